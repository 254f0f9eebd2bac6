//! The device's view of memory on a [`Platform`]: physical addresses
//! inside DMA regions the platform handed out. The software GPU reads and
//! writes system memory through this, as a real GPU does by DMA.

use core::ptr::NonNull;

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
        self.platform
            .phys_span_to_virt(PhysAddr(phys), len.max(1))
            .map(NonNull::as_ptr)
            .ok_or(BusError { phys })
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

    /// A dword write to the MSI window is an interrupt message: it goes to
    /// [`Platform::msi`]; everything else to DMA memory.
    fn write(&self, phys: u64, data: &[u8]) -> Result<(), BusError> {
        if baregpu_hal::pci::MSI_WINDOW.contains(&phys)
            && let Ok(dword) = <[u8; 4]>::try_from(data)
        {
            return if self.platform.msi(phys, u32::from_le_bytes(dword)) {
                Ok(())
            } else {
                Err(BusError { phys })
            };
        }
        let dst = self.span(phys, data.len())?;
        // SAFETY: as in `read`; the region is writable DMA memory.
        unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len()) };
        Ok(())
    }
}
