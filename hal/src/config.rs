//! The PCI configuration-space seam, next to [`Mmio`].
//!
//! Most of a GPU is reached through its register BAR, but a few controls
//! live in its PCI configuration space (Gen4's reset register GDRST at
//! 0xc0, the graphics control registers). The driver reaches them through
//! [`ConfigSpace`]: on hardware an implementation over the platform's PCI
//! configuration access at the GPU's address, on the software GPU the
//! device model's own configuration space.

use crate::Mmio;

/// 32-bit access to one PCI function's configuration space.
///
/// Offsets are byte offsets below 256 (4 KiB with extended configuration
/// space) and 4-byte aligned; a sub-dword register is changed by a
/// read-modify-write of its dword.
pub trait ConfigSpace {
    fn config_read32(&self, offset: u16) -> u32;
    fn config_write32(&self, offset: u16, value: u32);

    /// The 16-bit word at `offset` (read as its dword).
    fn config_read16(&self, offset: u16) -> u16 {
        config_word(self.config_read32(offset & !3), offset)
    }
}

/// The 16-bit word at byte `offset` of configuration space, from the dword that holds it.
pub fn config_word(dword: u32, offset: u16) -> u16 {
    (dword >> ((offset % 4) * 8)) as u16
}

impl<T: ConfigSpace + ?Sized> ConfigSpace for &T {
    fn config_read32(&self, offset: u16) -> u32 {
        (**self).config_read32(offset)
    }
    fn config_write32(&self, offset: u16, value: u32) {
        (**self).config_write32(offset, value)
    }
}

/// Everything the driver needs from a GPU: its register BAR and its
/// configuration space. Any type with both is one.
pub trait DeviceIo: Mmio + ConfigSpace {}

impl<T: Mmio + ConfigSpace + ?Sized> DeviceIo for T {}

/// A device built from separate halves, as hardware is: a mapped BAR and a
/// configuration-space accessor.
pub struct SplitDevice<M, C> {
    pub mmio: M,
    pub config: C,
}

impl<M: Mmio, C> Mmio for SplitDevice<M, C> {
    fn read32(&self, offset: u32) -> u32 {
        self.mmio.read32(offset)
    }
    fn write32(&self, offset: u32, value: u32) {
        self.mmio.write32(offset, value)
    }
}

impl<M, C: ConfigSpace> ConfigSpace for SplitDevice<M, C> {
    fn config_read32(&self, offset: u16) -> u32 {
        self.config.config_read32(offset)
    }
    fn config_write32(&self, offset: u16, value: u32) {
        self.config.config_write32(offset, value)
    }
}
