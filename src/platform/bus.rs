//! The device's view of memory on a [`Platform`]: physical addresses
//! inside DMA regions the platform handed out. The software GPU reads and
//! writes system memory through this, as a real GPU does by DMA.

use baregpu_hal::{BusError, MemoryBus};

use super::{PhysAddr, Platform};

/// [`MemoryBus`] over a platform's DMA memory.
pub struct PlatformBus<'a, P: Platform + ?Sized> {
    platform: &'a P,
}

impl<'a, P: Platform + ?Sized> PlatformBus<'a, P> {
    pub fn new(platform: &'a P) -> Self {
        Self { platform }
    }

    /// CPU pointer of `phys..phys+len`, if one DMA region holds all of it.
    fn span(&self, phys: u64, len: usize) -> Result<*mut u8, BusError> {
        let first = self
            .platform
            .phys_to_virt(PhysAddr(phys))
            .ok_or(BusError { phys })?;
        if len > 1 {
            let last_phys = phys + len as u64 - 1;
            let last = self
                .platform
                .phys_to_virt(PhysAddr(last_phys))
                .ok_or(BusError { phys: last_phys })?;
            if last.as_ptr() as usize != first.as_ptr() as usize + len - 1 {
                return Err(BusError { phys: last_phys });
            }
        }
        Ok(first.as_ptr())
    }
}

impl<P: Platform + ?Sized> MemoryBus for PlatformBus<'_, P> {
    fn read(&self, phys: u64, buf: &mut [u8]) -> Result<(), BusError> {
        let src = self.span(phys, buf.len())?;
        // SAFETY: `span` checked that the whole range lies in one live DMA
        // region of this platform, which device and CPU share by design.
        unsafe { core::ptr::copy_nonoverlapping(src, buf.as_mut_ptr(), buf.len()) };
        Ok(())
    }

    fn write(&self, phys: u64, data: &[u8]) -> Result<(), BusError> {
        let dst = self.span(phys, data.len())?;
        // SAFETY: as in `read`; the region is writable DMA memory.
        unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len()) };
        Ok(())
    }
}
