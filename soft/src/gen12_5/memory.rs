//! Gen12.5 graphics memory: the global GTT of 64-bit entries, the device-local
//! memory behind BAR2, and a context's four-level PPGTT.
//!
//! A translated address lands either in system memory (the platform's bus,
//! behind the PCI function's bus-master switch) or in local memory, which the
//! model holds itself: a [`Location`].

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;

use baregpu_hal::MemoryBus;

use crate::mem::bus::DeviceBus;

/// Graphics addresses are 48 bits (canonical upper bits ignored).
pub(super) const VA_MASK: u64 = 0xffff_ffff_ffff;

const PAGE: u64 = 4096;

/// Entry bits shared by the GGTT and the PPGTT levels (Linux i915
/// gt/intel_gtt.h): GEN8_PAGE_PRESENT bit 0; the address of the page or the
/// next level in bits 45:12 (GEN12_GGTT_PTE_ADDR_MASK; hal gen12.5
/// registers.toml GEN12_GGTT_PTE).
const PRESENT: u64 = 1 << 0;
const ADDRESS: u64 = 0x0000_3fff_ffff_f000;
/// GGTT entry bit 1, GEN12_GGTT_PTE_LM: the page is in local memory (i915
/// gt/intel_ggtt.c gen8_ggtt_pte_encode; Xe xe_ggtt.c sets it for VRAM).
const GGTT_LOCAL: u64 = 1 << 1;
/// PPGTT entry bit 11, GEN12_PPGTT_PTE_LM: a local-memory page or table (i915
/// gt/intel_gtt.h; gen8_pte_encode / gen12_pte_encode).
const PPGTT_LOCAL: u64 = 1 << 11;
/// PDE bit 7 (GEN8_PDE_PS_2M) maps a 2 MiB page; PDPE bit 7 (GEN8_PDPE_PS_1G)
/// a 1 GiB page (i915 gt/intel_gtt.h, gen8_ppgtt_insert_huge).
const PAGE_SIZE_BIT: u64 = 1 << 7;
/// PDE bit 6, GEN12_PDE_64K (i915 gt/intel_gtt.h; Xe XE_PDE_64K): the page
/// table below is "compact", 32 entries of 64 KiB each, indexed by VA bits
/// 20:16 (i915 gt/gen8_ppgtt.c xehpsdv_ppgtt_insert_huge and
/// __xehpsdv_ppgtt_insert_entry_lm write entry `pte_index / 16` and set this
/// bit in the PDE; Xe xe_pt.c xe_compact_pt_shifts starts at 16, not 12).
/// Before Xe_HP the 64 KiB form was GEN8_PDE_IPS_64K, bit 11, which on
/// Xe_HP is GEN12_PPGTT_PTE_LM instead: the model reads bit 11 as LM only.
/// A 4 KiB PTE's bit 8 (GEN12_PTE_PS64) is only a TLB hint over sixteen
/// complete 4 KiB entries (xehpsdv_ppgtt_insert_huge writes all sixteen):
/// the walk translates through the 4 KiB entry and needs no more.
const PDE_64K: u64 = 1 << 6;
/// Entries of a compact page table and the page each maps.
const COMPACT_ENTRIES: u64 = 32;
const PAGE_64K: u64 = 64 << 10;

/// Where an access lands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// A physical address on the system bus.
    System(u64),
    /// An offset in device-local memory.
    Local(u64),
}

/// Which address space a command's access goes through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Space {
    #[default]
    Ggtt,
    /// The running context's PPGTT.
    Ppgtt,
}

/// Why a translation or access failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// No valid entry on the way, or no memory behind it.
    NotPresent { gfx_addr: u64, space: Space },
}

/// The global GTT: one 64-bit entry per 4 KiB page, written through its
/// MMIO alias one dword at a time (i915 writes them with writeq; a dword
/// write updates its half).
pub struct Ggtt {
    entries: Vec<u64>,
}

impl Ggtt {
    pub fn new(entries: u32) -> Self {
        Self {
            entries: vec![0; entries as usize],
        }
    }

    /// Dword `index` of the alias (two per entry, low first).
    pub fn read_dword(&self, index: u32) -> u32 {
        let e = self.entries.get(index as usize / 2).copied().unwrap_or(0);
        (e >> (32 * (index % 2))) as u32
    }

    pub fn write_dword(&mut self, index: u32, value: u32) {
        if let Some(e) = self.entries.get_mut(index as usize / 2) {
            let shift = 32 * (index % 2);
            *e = (*e & !(0xffff_ffff << shift)) | (u64::from(value) << shift);
        }
    }

    /// Where graphics address `gfx` lands.
    pub fn translate(&self, gfx: u64) -> Result<Location, Fault> {
        let fault = Fault::NotPresent {
            gfx_addr: gfx,
            space: Space::Ggtt,
        };
        let pte = *self.entries.get((gfx >> 12) as usize).ok_or(fault)?;
        if pte & PRESENT == 0 {
            return Err(fault);
        }
        let page = pte & ADDRESS;
        Ok(if pte & GGTT_LOCAL != 0 {
            Location::Local(page | (gfx & 0xfff))
        } else {
            Location::System(page | (gfx & 0xfff))
        })
    }
}

/// Device-local memory (the VRAM behind BAR2), page by page as written;
/// unwritten pages read as zero.
pub struct LocalMemory {
    bytes: u64,
    pages: BTreeMap<u64, Box<[u8; PAGE as usize]>>,
}

impl LocalMemory {
    pub fn new(bytes: u64) -> Self {
        Self {
            bytes,
            pages: BTreeMap::new(),
        }
    }

    pub fn size(&self) -> u64 {
        self.bytes
    }

    /// Reads `buf.len()` bytes at `offset`; `false` past the end.
    pub fn read(&self, offset: u64, buf: &mut [u8]) -> bool {
        if offset.saturating_add(buf.len() as u64) > self.bytes {
            return false;
        }
        let mut done = 0;
        while done < buf.len() {
            let at = offset + done as u64;
            let off = (at % PAGE) as usize;
            let n = (PAGE as usize - off).min(buf.len() - done);
            match self.pages.get(&(at / PAGE)) {
                Some(p) => buf[done..done + n].copy_from_slice(&p[off..off + n]),
                None => buf[done..done + n].fill(0),
            }
            done += n;
        }
        true
    }

    /// Writes `data` at `offset`; `false` past the end (nothing written).
    pub fn write(&mut self, offset: u64, data: &[u8]) -> bool {
        if offset.saturating_add(data.len() as u64) > self.bytes {
            return false;
        }
        let mut done = 0;
        while done < data.len() {
            let at = offset + done as u64;
            let off = (at % PAGE) as usize;
            let n = (PAGE as usize - off).min(data.len() - done);
            let page = self
                .pages
                .entry(at / PAGE)
                .or_insert_with(|| Box::new([0; PAGE as usize]));
            page[off..off + n].copy_from_slice(&data[done..done + n]);
            done += n;
        }
        true
    }
}

/// Graphics memory as one engine reaches it: the buses, the GGTT, and the
/// running context's PML4 (`None`: no context, so no PPGTT).
pub struct Memory<'a, B: MemoryBus> {
    pub bus: &'a DeviceBus<B>,
    pub local: &'a mut LocalMemory,
    pub ggtt: &'a Ggtt,
    pub pml4: Option<u64>,
}

impl<B: MemoryBus> Memory<'_, B> {
    fn read_at(&self, at: Location, buf: &mut [u8]) -> bool {
        match at {
            Location::System(phys) => self.bus.read(phys, buf).is_ok(),
            Location::Local(off) => self.local.read(off, buf),
        }
    }

    fn read_u64_at(&self, at: Location) -> Option<u64> {
        let mut b = [0u8; 8];
        self.read_at(at, &mut b).then(|| u64::from_le_bytes(b))
    }

    /// Where `gfx` lands in `space`.
    pub fn translate(&self, space: Space, gfx: u64) -> Result<Location, Fault> {
        match space {
            Space::Ggtt => self.ggtt.translate(gfx),
            Space::Ppgtt => self.walk(gfx),
        }
    }

    /// The four-level walk (i915 gt/gen8_ppgtt.c: PML4 index 47:39, PDP
    /// 38:30, PD 29:21, PT 20:12, 512 eight-byte entries per level), with
    /// 1 GiB and 2 MiB leaves where the page-size bit is set and 64 KiB
    /// leaves below a PDE with GEN12_PDE_64K (index 20:16 in the compact
    /// table). A leaf's address bits below its page size are ignored, the
    /// VA supplies them. A missing entry, or a table or page that is not
    /// in memory, is a page fault.
    fn walk(&self, gfx: u64) -> Result<Location, Fault> {
        let fault = Fault::NotPresent {
            gfx_addr: gfx,
            space: Space::Ppgtt,
        };
        // 48-bit addresses: bits 63:48 are the sign extension of bit 47.
        let va = gfx & 0xffff_ffff_ffff;
        let mut table = match self.pml4 {
            Some(root) => Location::System(root & ADDRESS),
            None => return Err(fault),
        };
        // Set once the PDE names a compact (64 KiB) page table.
        let mut compact = false;
        for level in 0..4u32 {
            let index = if level == 3 && compact {
                (va >> 16) & (COMPACT_ENTRIES - 1)
            } else {
                (va >> (39 - 9 * level)) & 0x1ff
            };
            let entry_at = match table {
                Location::System(a) => Location::System(a + index * 8),
                Location::Local(a) => Location::Local(a + index * 8),
            };
            let entry = self.read_u64_at(entry_at).ok_or(fault)?;
            if entry & PRESENT == 0 {
                return Err(fault);
            }
            let leaf_size = match level {
                1 if entry & PAGE_SIZE_BIT != 0 => Some(1u64 << 30),
                2 if entry & PAGE_SIZE_BIT != 0 => Some(1u64 << 21),
                3 if compact => Some(PAGE_64K),
                3 => Some(PAGE),
                _ => None,
            };
            if level == 2 && leaf_size.is_none() {
                compact = entry & PDE_64K != 0;
            }
            let next = entry & ADDRESS;
            let local = entry & PPGTT_LOCAL != 0;
            let place = |addr: u64| {
                if local {
                    Location::Local(addr)
                } else {
                    Location::System(addr)
                }
            };
            if let Some(size) = leaf_size {
                return Ok(place((next & !(size - 1)) | (va & (size - 1))));
            }
            table = place(next);
        }
        Err(fault)
    }

    pub fn read(&self, space: Space, gfx: u64, buf: &mut [u8]) -> Result<(), Fault> {
        let at = self.translate(space, gfx)?;
        if self.read_at(at, buf) {
            Ok(())
        } else {
            Err(Fault::NotPresent {
                gfx_addr: gfx,
                space,
            })
        }
    }

    pub fn read_u32(&self, space: Space, gfx: u64) -> Result<u32, Fault> {
        let mut b = [0u8; 4];
        self.read(space, gfx, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    pub fn write_u32(&mut self, space: Space, gfx: u64, value: u32) -> Result<(), Fault> {
        self.write(space, gfx, &value.to_le_bytes())
    }

    /// Writes `data` at `gfx` through one translation: the caller keeps
    /// `data` inside one 4 KiB page.
    pub fn write(&mut self, space: Space, gfx: u64, data: &[u8]) -> Result<(), Fault> {
        let at = self.translate(space, gfx)?;
        let ok = match at {
            Location::System(phys) => self.bus.write(phys, data).is_ok(),
            Location::Local(off) => self.local.write(off, data),
        };
        if ok {
            Ok(())
        } else {
            Err(Fault::NotPresent {
                gfx_addr: gfx,
                space,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ggtt_entries_are_64_bit_with_the_local_memory_bit() {
        let mut g = Ggtt::new(16);
        // Entry 3: page 0x12_3456_7000 in system memory, written low dword first.
        g.write_dword(6, 0x3456_7001);
        g.write_dword(7, 0x12);
        assert_eq!(g.translate(0x3abc), Ok(Location::System(0x12_3456_7abc)));
        assert_eq!(g.read_dword(7), 0x12);
        // Entry 4: local memory page 0x20000.
        g.write_dword(8, 0x2_0003);
        assert_eq!(g.translate(0x4010), Ok(Location::Local(0x2_0010)));
        assert!(g.translate(0x5000).is_err());
        assert!(g.translate(16 << 12).is_err());
    }

    #[test]
    fn local_memory_reads_back_across_pages_and_ends() {
        let mut l = LocalMemory::new(2 * PAGE);
        let data: Vec<u8> = (0..100u8).collect();
        assert!(l.write(PAGE - 50, &data));
        let mut back = vec![0u8; 100];
        assert!(l.read(PAGE - 50, &mut back));
        assert_eq!(back, data);
        assert!(!l.write(2 * PAGE - 2, &[0; 4]));
        assert!(!l.read(u64::MAX, &mut [0; 4]));
    }
}
