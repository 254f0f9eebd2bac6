//! Device-local memory (VRAM) as the CPU reaches it: through the GPU's
//! local-memory BAR (BAR2, "LMEMBAR" on DG2; Linux i915
//! intel_region_lmem.c maps it with `io_mapping_init_wc` over
//! `pci_resource_start(pdev, GEN12_LMEM_BAR)`, GEN12_LMEM_BAR = 2). The
//! driver never touches local memory another way, so the same code reads it
//! on a real DG2 (a [`MappedLocalBar`]) and on the software GPU (whose test
//! harness implements the trait over the model's BAR2).

use core::ptr::NonNull;

/// Reads and writes of device-local memory at byte offsets from its start.
pub trait LocalMemory {
    /// Bytes of local memory the CPU can reach (0: the GPU has none).
    fn local_size(&self) -> u64;
    /// Reads `buf.len()` bytes at `offset`; `false` when the range is beyond the end.
    fn read_local(&self, offset: u64, buf: &mut [u8]) -> bool;
    /// Writes `data` at `offset`; `false` when the range is beyond the end (nothing written).
    fn write_local(&self, offset: u64, data: &[u8]) -> bool;
}

/// A GPU without local memory.
pub struct NoLocalMemory;

impl LocalMemory for NoLocalMemory {
    fn local_size(&self) -> u64 {
        0
    }
    fn read_local(&self, _offset: u64, _buf: &mut [u8]) -> bool {
        false
    }
    fn write_local(&self, _offset: u64, _data: &[u8]) -> bool {
        false
    }
}

/// The local-memory BAR mapped by the OS ([`crate::Platform::map_mmio`]).
pub struct MappedLocalBar {
    base: NonNull<u8>,
    size: u64,
}

impl MappedLocalBar {
    /// # Safety
    /// `base` must map `size` bytes of the GPU's local-memory BAR for as long
    /// as the value lives.
    pub unsafe fn new(base: NonNull<u8>, size: u64) -> Self {
        Self { base, size }
    }

    fn fits(&self, offset: u64, len: usize) -> bool {
        offset
            .checked_add(len as u64)
            .is_some_and(|end| end <= self.size)
    }
}

impl LocalMemory for MappedLocalBar {
    fn local_size(&self) -> u64 {
        self.size
    }

    fn read_local(&self, offset: u64, buf: &mut [u8]) -> bool {
        if !self.fits(offset, buf.len()) {
            return false;
        }
        for (k, b) in buf.iter_mut().enumerate() {
            // SAFETY: inside the mapped BAR (checked above); device memory is
            // read with volatile accesses.
            *b = unsafe { self.base.as_ptr().add(offset as usize + k).read_volatile() };
        }
        true
    }

    fn write_local(&self, offset: u64, data: &[u8]) -> bool {
        if !self.fits(offset, data.len()) {
            return false;
        }
        for (k, b) in data.iter().enumerate() {
            // SAFETY: as in `read_local`.
            unsafe {
                self.base
                    .as_ptr()
                    .add(offset as usize + k)
                    .write_volatile(*b)
            };
        }
        true
    }
}
