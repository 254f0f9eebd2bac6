//! Graphics memory as the EU array reaches it: addresses translated
//! through the engine's address space (GGTT, the context's PPGTT, or
//! physical memory for Gen4/G45 accesses without their GTT bit) and read or
//! written on the device's memory bus, page by page.

use baregpu_hal::MemoryBus;

use crate::device::Device;
use crate::engine::Space;
use crate::eu::shared::{GfxMemory, MemFault};

const PAGE: u64 = 4096;

/// The device's memory in one engine's address space.
pub(crate) struct GfxView<'a, B: MemoryBus> {
    dev: &'a Device<B>,
    engine: usize,
    space: Space,
}

impl<'a, B: MemoryBus> GfxView<'a, B> {
    pub fn new(dev: &'a Device<B>, engine: usize, space: Space) -> GfxView<'a, B> {
        GfxView { dev, engine, space }
    }

    /// Runs `f` on each page-sized piece of `[addr, addr + len)` with its
    /// physical address and its range in the caller's buffer.
    fn pages(
        &self,
        addr: u64,
        len: usize,
        write: bool,
        mut f: impl FnMut(u64, core::ops::Range<usize>) -> bool,
    ) -> Result<(), MemFault> {
        let mut done = 0usize;
        while done < len {
            let at = addr.wrapping_add(done as u64);
            let take = ((PAGE - at % PAGE) as usize).min(len - done);
            let fault = MemFault {
                addr: at,
                len: len - done,
                write,
            };
            let phys = self
                .dev
                .translate(self.engine, self.space, at)
                .map_err(|_| fault)?;
            if !f(phys, done..done + take) {
                return Err(fault);
            }
            done += take;
        }
        Ok(())
    }
}

impl<B: MemoryBus> GfxMemory for GfxView<'_, B> {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), MemFault> {
        let bus = &self.dev.bus;
        let len = buf.len();
        self.pages(addr, len, false, |phys, r| {
            bus.read(phys, &mut buf[r]).is_ok()
        })
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        let bus = &self.dev.bus;
        self.pages(addr, data.len(), true, |phys, r| {
            bus.write(phys, &data[r]).is_ok()
        })
    }
}
