//! The device side of memory: what a GPU (real or modelled) reads and
//! writes at physical addresses.
//!
//! The software GPU reaches system memory only through [`MemoryBus`], as a
//! real GPU reaches it only through its DMA engine. The OS side (a
//! `baregpu::Platform`) provides the implementation.

use core::fmt;

/// An access to a physical address with no memory behind it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BusError {
    /// The first byte that could not be accessed.
    pub phys: u64,
}

impl fmt::Display for BusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no memory at physical address {:#x}", self.phys)
    }
}

/// Physical memory as a device sees it.
pub trait MemoryBus {
    /// Reads `buf.len()` bytes at `phys`.
    fn read(&self, phys: u64, buf: &mut [u8]) -> Result<(), BusError>;
    /// Writes `data` at `phys`.
    fn write(&self, phys: u64, data: &[u8]) -> Result<(), BusError>;

    fn read_u32(&self, phys: u64) -> Result<u32, BusError> {
        let mut b = [0u8; 4];
        self.read(phys, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn write_u32(&self, phys: u64, value: u32) -> Result<(), BusError> {
        self.write(phys, &value.to_le_bytes())
    }
}

impl<T: MemoryBus + ?Sized> MemoryBus for &T {
    fn read(&self, phys: u64, buf: &mut [u8]) -> Result<(), BusError> {
        (**self).read(phys, buf)
    }
    fn write(&self, phys: u64, data: &[u8]) -> Result<(), BusError> {
        (**self).write(phys, data)
    }
}
