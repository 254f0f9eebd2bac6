//! The view's state cache: what it serves, what drops it, where it is off.

use core::cell::RefCell;

use alloc::vec;
use alloc::vec::Vec;

use baregpu_hal::{BusError, Generation, MemoryBus};

use super::GfxView;
use crate::eu::shared::{GfxMemory, MemFault};
use crate::layout::Layout;
use crate::mem::gtt::Ggtt;
use crate::mem::{Memory, Space};
use crate::regfile::RegFile;

/// 64 KiB of physical memory the test can change behind the view's back.
struct Ram(RefCell<Vec<u8>>);

impl Ram {
    fn new() -> Ram {
        Ram(RefCell::new(vec![0; 0x1_0000]))
    }

    fn poke(&self, phys: u64, v: u32) {
        let at = phys as usize;
        self.0.borrow_mut()[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    fn peek(&self, phys: u64) -> u32 {
        let at = phys as usize;
        let b = &self.0.borrow()[at..at + 4];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
}

impl MemoryBus for Ram {
    fn read(&self, phys: u64, buf: &mut [u8]) -> Result<(), BusError> {
        let ram = self.0.borrow();
        let s = ram
            .get(phys as usize..phys as usize + buf.len())
            .ok_or(BusError { phys })?;
        buf.copy_from_slice(s);
        Ok(())
    }

    fn write(&self, phys: u64, data: &[u8]) -> Result<(), BusError> {
        let mut ram = self.0.borrow_mut();
        let d = ram
            .get_mut(phys as usize..phys as usize + data.len())
            .ok_or(BusError { phys })?;
        d.copy_from_slice(data);
        Ok(())
    }
}

/// The GGTT and registers of a Gen7 device, reached through `ram`.
struct Device<'r> {
    ram: &'r Ram,
    gtt: Ggtt,
    regs: RegFile,
    /// The render engine's register base.
    base: u32,
}

impl Device<'_> {
    /// The render engine's memory (its PP_DIR_BASE is 0).
    fn memory(&self) -> Memory<'_, &Ram> {
        Memory::new(&self.ram, &self.gtt, &self.regs, self.base)
    }
}

/// Graphics pages 1 and 2 both map physical page 5 (an alias), page 3
/// maps physical page 6; page 4 is unmapped.
fn device(ram: &Ram) -> Device<'_> {
    let layout = Layout::of(Generation::Gen7).expect("Gen7 layout");
    let mut dev = Device {
        ram,
        gtt: Ggtt::new(layout.gtt_entries),
        regs: RegFile::new(Generation::Gen7.tables()),
        base: layout.engines[0].base,
    };
    dev.gtt.write_entry(1, 0x5000 | 1);
    dev.gtt.write_entry(2, 0x5000 | 1);
    dev.gtt.write_entry(3, 0x6000 | 1);
    dev
}

fn state(view: &mut GfxView<'_, &Ram>, addr: u64) -> u32 {
    let mut b = [0u8; 4];
    view.read_state(addr, &mut b).expect("mapped");
    u32::from_le_bytes(b)
}

#[test]
fn state_reads_are_kept_until_a_write_lands_on_their_physical_page() {
    let ram = Ram::new();
    ram.poke(0x5010, 0x1111_1111);
    let dev = device(&ram);
    let mut view = GfxView::new(dev.memory(), Space::Ggtt);
    assert_eq!(state(&mut view, 0x1010), 0x1111_1111);
    let epoch = view.state_epoch();
    assert!(epoch.is_some());
    // Within the view the state comes from the cache (nothing else may
    // write memory while a view lives; this write goes around it).
    ram.poke(0x5010, 0x2222_2222);
    assert_eq!(state(&mut view, 0x1010), 0x1111_1111);
    // A write to another page keeps it.
    view.write(0x3000, &[1, 2, 3, 4]).unwrap();
    assert_eq!(ram.peek(0x6000), 0x0403_0201);
    assert_eq!(state(&mut view, 0x1010), 0x1111_1111);
    assert_eq!(view.state_epoch(), epoch);
    // A write through the alias lands on the same physical page: dropped.
    view.write(0x2010, &0x3333_3333u32.to_le_bytes()).unwrap();
    assert_ne!(view.state_epoch(), epoch);
    assert_eq!(state(&mut view, 0x1010), 0x3333_3333);
    // Plain reads never come from the cache.
    ram.poke(0x5010, 0x4444_4444);
    let mut b = [0u8; 4];
    view.read(0x1010, &mut b).unwrap();
    assert_eq!(u32::from_le_bytes(b), 0x4444_4444);
    // A new view starts empty.
    let mut fresh = GfxView::new(dev.memory(), Space::Ggtt);
    assert_eq!(state(&mut fresh, 0x1010), 0x4444_4444);
}

#[test]
fn a_state_read_of_an_unmapped_page_faults_like_a_read() {
    let ram = Ram::new();
    let dev = device(&ram);
    let mut view = GfxView::new(dev.memory(), Space::Ggtt);
    let mut b = [0u8; 8];
    // The second page of this read is unmapped.
    let want = MemFault {
        addr: 0x4000,
        len: 4,
        write: false,
    };
    assert_eq!(view.read_state(0x3ffc, &mut b), Err(want));
    assert_eq!(view.read(0x3ffc, &mut b), Err(want));
    // Nothing was kept: a second try faults again.
    assert_eq!(view.read_state(0x3ffc, &mut b), Err(want));
}

#[test]
fn ppgtt_views_do_not_keep_state() {
    let ram = Ram::new();
    let mut dev = device(&ram);
    // PP_DIR_BASE is 0: PDE 0 is GGTT entry 0, a page table at physical
    // 0x8000 whose entry 1 maps graphics page 1 to physical page 5.
    dev.gtt.write_entry(0, 0x8000 | 1);
    ram.poke(0x8000 + 4, 0x5000 | 1);
    ram.poke(0x5020, 7);
    let mut view = GfxView::new(dev.memory(), Space::Ppgtt);
    assert_eq!(view.state_epoch(), None);
    assert_eq!(state(&mut view, 0x1020), 7);
    ram.poke(0x5020, 8);
    assert_eq!(state(&mut view, 0x1020), 8);
}

#[test]
fn state_from_too_many_pages_starts_the_cache_afresh() {
    let ram = Ram::new();
    let mut dev = device(&ram);
    // Graphics pages 8..14 map physical pages 8..14.
    for p in 8..14u32 {
        dev.gtt.write_entry(p, (p << 12) | 1);
        ram.poke(u64::from(p) << 12, p);
    }
    let mut view = GfxView::new(dev.memory(), Space::Ggtt);
    let first = view.state_epoch();
    for p in 8..8 + super::STATE_PAGES as u64 {
        assert_eq!(state(&mut view, p << 12), p as u32);
    }
    assert_eq!(view.state_epoch(), first);
    // One page more: the cache is emptied (a new epoch) to watch it.
    let more = (8 + super::STATE_PAGES as u64) << 12;
    assert_eq!(u64::from(state(&mut view, more)), more >> 12);
    assert_ne!(view.state_epoch(), first);
    // The first page is no longer kept, so it is read again.
    ram.poke(8 << 12, 0x88);
    assert_eq!(state(&mut view, 8 << 12), 0x88);
}
