//! The device's end of the system bus: what the GPU reaches when it issues a
//! memory access at a physical address.
//!
//! Two things sit between the units and the platform's [`MemoryBus`]:
//! - **bus mastering**: a PCI function issues memory requests only while the
//!   Bus Master Enable bit (bit 2) of its command register is set (PCI Local
//!   Bus 3.0, 6.2.2). The silicon's command streamer would stall on its first
//!   fetch; the model refuses the access instead, which the streamer reports
//!   as an engine error, so the driver sees the same thing: no progress, a hang
//!   it detects and reports;
//! - **stolen memory**: the RAM the firmware set aside for the GPU at BDSM
//!   (Linux early-quirks.c reserves it from the OS). The model holds it
//!   itself, page by page as pages are written, so that it never depends on
//!   what the platform's allocator hands out there.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use core::sync::atomic::{AtomicBool, Ordering};

use baregpu_hal::{BusError, MemoryBus};
use spin::Mutex;

const PAGE: u64 = 4096;

/// Stolen memory: `bytes` at physical `base`, pages allocated when first written
/// (unwritten pages read as zero, as the firmware left them cleared).
struct Stolen {
    base: u64,
    bytes: u64,
    pages: Mutex<BTreeMap<u64, Box<[u8; PAGE as usize]>>>,
}

impl Stolen {
    fn contains(&self, phys: u64) -> bool {
        phys >= self.base && phys - self.base < self.bytes
    }
}

/// The platform's bus, behind the device's bus-master switch and stolen memory.
pub(crate) struct DeviceBus<B: MemoryBus> {
    inner: B,
    master: AtomicBool,
    stolen: Option<Stolen>,
}

impl<B: MemoryBus> DeviceBus<B> {
    pub fn new(inner: B, master: bool) -> Self {
        Self {
            inner,
            master: AtomicBool::new(master),
            stolen: None,
        }
    }

    /// Follows the command register's Bus Master Enable bit.
    pub fn set_master(&self, enabled: bool) {
        self.master.store(enabled, Ordering::Relaxed);
    }

    /// Places `bytes` of stolen memory at `base` (0 bytes: none).
    pub fn set_stolen(&mut self, base: u64, bytes: u64) {
        self.stolen = (bytes > 0).then(|| Stolen {
            base,
            bytes,
            pages: Mutex::new(BTreeMap::new()),
        });
    }

    /// The access of `len` bytes at `phys`, split where it enters or leaves stolen
    /// memory (or crosses a page inside it): each piece as (address, length, in stolen).
    fn pieces(&self, phys: u64, len: usize) -> impl Iterator<Item = (u64, usize, bool)> + '_ {
        let end = phys.saturating_add(len as u64);
        let mut at = phys;
        core::iter::from_fn(move || {
            if at >= end {
                return None;
            }
            let piece_end = match &self.stolen {
                Some(s) if s.contains(at) => (s.base + s.bytes).min((at / PAGE + 1) * PAGE),
                Some(s) if at < s.base => s.base,
                _ => end,
            }
            .min(end);
            let piece = (at, (piece_end - at) as usize, self.in_stolen(at));
            at = piece_end;
            Some(piece)
        })
    }

    /// Whether any byte of `len` at `phys` is stolen memory.
    fn touches_stolen(&self, phys: u64, len: usize) -> bool {
        self.stolen
            .as_ref()
            .is_some_and(|s| phys < s.base + s.bytes && phys.saturating_add(len as u64) > s.base)
    }

    fn in_stolen(&self, phys: u64) -> bool {
        self.stolen.as_ref().is_some_and(|s| s.contains(phys))
    }

    fn check_master(&self, phys: u64) -> Result<(), BusError> {
        if self.master.load(Ordering::Relaxed) {
            Ok(())
        } else {
            Err(BusError { phys })
        }
    }
}

impl<B: MemoryBus> MemoryBus for DeviceBus<B> {
    fn read(&self, phys: u64, buf: &mut [u8]) -> Result<(), BusError> {
        self.check_master(phys)?;
        if !self.touches_stolen(phys, buf.len()) {
            return self.inner.read(phys, buf);
        }
        let mut done = 0;
        for (at, n, stolen) in self.pieces(phys, buf.len()) {
            let out = &mut buf[done..done + n];
            match (&self.stolen, stolen) {
                (Some(s), true) => {
                    let page = (at - s.base) / PAGE;
                    let off = ((at - s.base) % PAGE) as usize;
                    match s.pages.lock().get(&page) {
                        Some(p) => out.copy_from_slice(&p[off..off + n]),
                        None => out.fill(0),
                    }
                }
                _ => self.inner.read(at, out)?,
            }
            done += n;
        }
        Ok(())
    }

    fn write(&self, phys: u64, data: &[u8]) -> Result<(), BusError> {
        self.check_master(phys)?;
        if !self.touches_stolen(phys, data.len()) {
            return self.inner.write(phys, data);
        }
        let mut done = 0;
        for (at, n, stolen) in self.pieces(phys, data.len()) {
            let bytes = &data[done..done + n];
            match (&self.stolen, stolen) {
                (Some(s), true) => {
                    let page = (at - s.base) / PAGE;
                    let off = ((at - s.base) % PAGE) as usize;
                    let mut pages = s.pages.lock();
                    let p = pages
                        .entry(page)
                        .or_insert_with(|| Box::new([0; PAGE as usize]));
                    p[off..off + n].copy_from_slice(bytes);
                }
                _ => self.inner.write(at, bytes)?,
            }
            done += n;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::cell::RefCell;

    /// 64 KiB of "platform" memory at 0x10000.
    struct Ram(RefCell<alloc::vec::Vec<u8>>);

    impl MemoryBus for Ram {
        fn read(&self, phys: u64, buf: &mut [u8]) -> Result<(), BusError> {
            let at = phys.checked_sub(0x10000).ok_or(BusError { phys })? as usize;
            let m = self.0.borrow();
            let src = m.get(at..at + buf.len()).ok_or(BusError { phys })?;
            buf.copy_from_slice(src);
            Ok(())
        }
        fn write(&self, phys: u64, data: &[u8]) -> Result<(), BusError> {
            let at = phys.checked_sub(0x10000).ok_or(BusError { phys })? as usize;
            let mut m = self.0.borrow_mut();
            m.get_mut(at..at + data.len())
                .ok_or(BusError { phys })?
                .copy_from_slice(data);
            Ok(())
        }
    }

    fn bus() -> DeviceBus<Ram> {
        let mut b = DeviceBus::new(Ram(RefCell::new(alloc::vec![0; 0x10000])), true);
        // Stolen right after the RAM, 2 pages.
        b.set_stolen(0x20000, 2 * PAGE);
        b
    }

    #[test]
    fn stolen_memory_is_the_devices_own() {
        let b = bus();
        assert_eq!(b.read_u32(0x20ffc), Ok(0), "unwritten stolen reads as zero");
        b.write_u32(0x20ffc, 0x1234_5678).unwrap();
        assert_eq!(b.read_u32(0x20ffc), Ok(0x1234_5678));
        // An access that runs from RAM into stolen and across a stolen page.
        let data: alloc::vec::Vec<u8> = (0..8192u32).map(|i| i as u8).collect();
        b.write(0x1fffc, &data).unwrap();
        let mut back = alloc::vec![0u8; data.len()];
        b.read(0x1fffc, &mut back).unwrap();
        assert_eq!(back, data);
        assert_eq!(b.inner.0.borrow()[0xfffc..], data[..4]);
        // Past stolen there is nothing.
        assert!(b.read_u32(0x22000).is_err());
    }

    #[test]
    fn no_access_without_bus_master() {
        let b = bus();
        b.write_u32(0x10000, 7).unwrap();
        b.set_master(false);
        assert_eq!(b.read_u32(0x10000), Err(BusError { phys: 0x10000 }));
        assert!(b.write_u32(0x20000, 1).is_err());
        b.set_master(true);
        assert_eq!(b.read_u32(0x10000), Ok(7));
        assert_eq!(b.read_u32(0x20000), Ok(0), "the refused write did not land");
    }
}
