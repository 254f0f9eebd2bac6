//! The register-access seam.
//!
//! The driver reaches a GPU's registers only through [`Mmio`]. On hardware the
//! implementation is [`VolatileMmio`] over a mapped BAR; the software GPU
//! implements the same trait as a device model, so the driver never knows
//! which one it talks to.

use core::ptr::NonNull;
use volatile::VolatilePtr;

/// A register of the software GPU only, engine-relative (render base +
/// 0xffc, ...): after an engine stopped on a command the model does not
/// model, it holds that command's header, as IPEHR does, and 0 otherwise.
/// No hardware register is documented there; the driver trusts it only
/// when EIR reports an instruction error and it equals IPEHR, so on
/// hardware it never changes the driver's reading of an error.
pub const SOFT_UNMODELLED_COMMAND: u32 = 0xffc;

/// 32-bit register access at byte offsets from the start of a register BAR.
///
/// Offsets are byte offsets and must be 4-byte aligned; what an unaligned or
/// out-of-range access does is up to the implementation (hardware: undefined,
/// the software GPU: an error register and an ignored access).
pub trait Mmio {
    /// Reads the 32-bit register at `offset`.
    fn read32(&self, offset: u32) -> u32;
    /// Writes the 32-bit register at `offset`.
    fn write32(&self, offset: u32, value: u32);

    /// Reads a 64-bit register as two 32-bit reads, low dword first.
    fn read64(&self, offset: u32) -> u64 {
        let lo = self.read32(offset) as u64;
        let hi = self.read32(offset.wrapping_add(4)) as u64;
        lo | (hi << 32)
    }

    /// Writes a 64-bit register as two 32-bit writes, low dword first.
    fn write64(&self, offset: u32, value: u64) {
        self.write32(offset, value as u32);
        self.write32(offset.wrapping_add(4), (value >> 32) as u32);
    }
}

impl<T: Mmio + ?Sized> Mmio for &T {
    fn read32(&self, offset: u32) -> u32 {
        (**self).read32(offset)
    }
    fn write32(&self, offset: u32, value: u32) {
        (**self).write32(offset, value)
    }
}

/// Hardware register access: volatile loads and stores into a mapped BAR.
pub struct VolatileMmio {
    base: NonNull<u8>,
    size: usize,
}

impl VolatileMmio {
    /// Wraps a mapped register range.
    ///
    /// # Safety
    /// `base` must point to `size` bytes of device memory mapped uncached and
    /// valid for the lifetime of the returned value, and nothing else may
    /// hold a Rust reference into that range.
    pub unsafe fn new(base: NonNull<u8>, size: usize) -> Self {
        Self { base, size }
    }

    /// Size of the mapped range in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    fn reg(&self, offset: u32) -> Option<VolatilePtr<'_, u32>> {
        let off = offset as usize;
        if !off.is_multiple_of(4) || off.checked_add(4)? > self.size {
            return None;
        }
        // SAFETY: the range check above keeps the pointer inside the mapping
        // promised by `new`, and the offset is 4-byte aligned.
        unsafe { Some(VolatilePtr::new(self.base.add(off).cast::<u32>())) }
    }
}

impl Mmio for VolatileMmio {
    /// An access outside the mapping reads as all ones, like a PCI master abort.
    fn read32(&self, offset: u32) -> u32 {
        self.reg(offset).map_or(u32::MAX, |r| r.read())
    }

    /// A write outside the mapping is dropped.
    fn write32(&self, offset: u32, value: u32) {
        if let Some(r) = self.reg(offset) {
            r.write(value)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn volatile_mmio_reads_back_and_bounds_checks() {
        let mut backing = [0u32; 4];
        let base = NonNull::new(backing.as_mut_ptr().cast::<u8>()).unwrap();
        {
            // SAFETY: `backing` outlives `mmio` and is only touched through it.
            let mmio = unsafe { VolatileMmio::new(base, 16) };
            mmio.write32(4, 0xdead_beef);
            mmio.write64(8, 0x1122_3344_5566_7788);
            assert_eq!(mmio.read32(4), 0xdead_beef);
            assert_eq!(mmio.read32(8), 0x5566_7788);
            assert_eq!(mmio.read64(8), 0x1122_3344_5566_7788);
            // Out of range and unaligned accesses neither touch memory nor panic.
            mmio.write32(16, 1);
            mmio.write32(2, 1);
            assert_eq!(mmio.read32(16), u32::MAX);
            assert_eq!(mmio.read32(2), u32::MAX);
        }
        assert_eq!(backing, [0, 0xdead_beef, 0x5566_7788, 0x1122_3344]);
    }
}
