//! DMA memory: the raw region a [`Platform`] hands out, and [`Dma`], the
//! owned value the driver and its users hold. A `Dma` gives its memory back
//! to the platform when it is dropped, so nothing frees DMA memory by hand
//! and memory is freed exactly once.

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use core::ptr::NonNull;

use super::{PhysAddr, Platform, PlatformError};

/// A block of physically contiguous memory that a device may read and write,
/// as the platform describes it: what [`Platform::dma_alloc`] returns and
/// [`Platform::dma_free`] takes back.
///
/// It is a plain description with no ownership (copies of it do not keep the
/// memory alive); [`Dma`] owns the memory behind one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DmaRegion {
    /// Bus address of the first byte.
    pub phys: PhysAddr,
    /// Where the CPU sees the first byte.
    pub virt: NonNull<u8>,
    /// Size in bytes.
    pub size: usize,
}

impl DmaRegion {
    /// Whether `phys..phys+len` lies inside this region.
    pub fn contains(&self, phys: PhysAddr, len: usize) -> bool {
        phys.0 >= self.phys.0
            && (phys.0 - self.phys.0)
                .checked_add(len as u64)
                .is_some_and(|end| end <= self.size as u64)
    }

    /// The part of this region from byte `offset` on, or `None` when
    /// `offset` is not inside it.
    pub fn tail(&self, offset: usize) -> Option<DmaRegion> {
        if offset >= self.size {
            return None;
        }
        Some(DmaRegion {
            phys: PhysAddr(self.phys.0 + offset as u64),
            // SAFETY: `offset` < `size`: the pointer stays inside the same
            // allocation (nothing is dereferenced here).
            virt: unsafe { self.virt.add(offset) },
            size: self.size - offset,
        })
    }
}

/// A CPU access outside a [`Dma`] buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfBounds {
    pub offset: usize,
    pub len: usize,
    /// Bytes in the buffer.
    pub size: usize,
}

impl fmt::Display for OutOfBounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} bytes at offset {} do not fit a buffer of {} bytes",
            self.len, self.offset, self.size
        )
    }
}

/// DMA memory owned by its holder: allocated from a platform, given back to
/// it when dropped.
///
/// The CPU reaches the memory through copies ([`Dma::read`], [`Dma::write`],
/// [`Dma::read_u32`] ...), never through Rust references, because the device
/// may write it at any time. What the device does is outside Rust's view:
/// drop a buffer only when no submitted work uses it any more (its fence has
/// completed, or its engine was reset), as with any DMA memory.
pub struct Dma<'p> {
    platform: &'p dyn Platform,
    region: DmaRegion,
}

impl fmt::Debug for Dma<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dma")
            .field("phys", &self.region.phys)
            .field("size", &self.region.size)
            .finish()
    }
}

impl<'p> Dma<'p> {
    /// `size` bytes of zeroed memory aligned to `align`, from `platform`.
    pub fn new(
        platform: &'p dyn Platform,
        size: usize,
        align: usize,
    ) -> Result<Self, PlatformError> {
        let region = platform.dma_alloc(size, align)?;
        if region.size < size {
            // A platform that hands out less than asked breaks its contract;
            // give it back rather than index past its end.
            // SAFETY: just allocated by this platform and never used.
            unsafe { platform.dma_free(region) };
            return Err(PlatformError::OutOfMemory);
        }
        Ok(Dma { platform, region })
    }

    /// Bus address of the first byte.
    pub fn phys(&self) -> PhysAddr {
        self.region.phys
    }

    /// Size in bytes.
    pub fn size(&self) -> usize {
        self.region.size
    }

    /// The region's description, for mapping it in a GTT or handing it to a
    /// device model. It does not keep the memory alive.
    pub fn region(&self) -> DmaRegion {
        self.region
    }

    /// Where the CPU sees the first byte (for volatile accesses the copies
    /// here do not cover).
    pub fn virt(&self) -> NonNull<u8> {
        self.region.virt
    }

    fn check(&self, offset: usize, len: usize) -> Result<(), OutOfBounds> {
        match offset.checked_add(len) {
            Some(end) if end <= self.region.size => Ok(()),
            _ => Err(OutOfBounds {
                offset,
                len,
                size: self.region.size,
            }),
        }
    }

    /// Copies `out.len()` bytes from `offset` into `out`.
    pub fn read(&self, offset: usize, out: &mut [u8]) -> Result<(), OutOfBounds> {
        self.check(offset, out.len())?;
        // SAFETY: the range lies inside the live allocation this value owns;
        // `out` is ordinary memory, so the two do not overlap.
        unsafe {
            core::ptr::copy_nonoverlapping(
                self.region.virt.as_ptr().add(offset),
                out.as_mut_ptr(),
                out.len(),
            )
        };
        Ok(())
    }

    /// Copies `data` to `offset`. Takes `&self`: the memory is shared with
    /// the device anyway, and no Rust reference into it ever exists.
    pub fn write(&self, offset: usize, data: &[u8]) -> Result<(), OutOfBounds> {
        self.check(offset, data.len())?;
        // SAFETY: as in `read`; `Dma` is not `Sync`, so no other thread
        // copies in or out at the same time.
        unsafe {
            core::ptr::copy_nonoverlapping(
                data.as_ptr(),
                self.region.virt.as_ptr().add(offset),
                data.len(),
            )
        };
        Ok(())
    }

    /// Sets `len` bytes at `offset` to `value`.
    pub fn fill(&self, offset: usize, len: usize, value: u8) -> Result<(), OutOfBounds> {
        self.check(offset, len)?;
        // SAFETY: as in `write`.
        unsafe { core::ptr::write_bytes(self.region.virt.as_ptr().add(offset), value, len) };
        Ok(())
    }

    /// The dword at dword index `index`, read once (volatile: the device may
    /// have just written it).
    pub fn read_u32(&self, index: usize) -> Result<u32, OutOfBounds> {
        let offset = index.saturating_mul(4);
        self.check(offset, 4)?;
        // SAFETY: in bounds (checked); a byte array has no alignment need.
        let bytes = unsafe {
            core::ptr::read_volatile(self.region.virt.as_ptr().add(offset).cast::<[u8; 4]>())
        };
        Ok(u32::from_ne_bytes(bytes))
    }

    /// Writes the dword at dword index `index` (volatile).
    pub fn write_u32(&self, index: usize, value: u32) -> Result<(), OutOfBounds> {
        let offset = index.saturating_mul(4);
        self.check(offset, 4)?;
        // SAFETY: in bounds (checked); a byte array has no alignment need.
        unsafe {
            core::ptr::write_volatile(
                self.region.virt.as_ptr().add(offset).cast::<[u8; 4]>(),
                value.to_ne_bytes(),
            )
        };
        Ok(())
    }

    /// A copy of the whole buffer.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = vec![0; self.region.size];
        // Cannot fail: the whole buffer is in bounds.
        let _ = self.read(0, &mut out);
        out
    }

    /// A copy of the whole buffer as dwords (native byte order, as the GPU
    /// on a little-endian host sees them).
    pub fn to_u32s(&self) -> Vec<u32> {
        (0..self.region.size / 4)
            .map(|i| self.read_u32(i).unwrap_or(0))
            .collect()
    }
}

impl Drop for Dma<'_> {
    fn drop(&mut self) {
        // SAFETY: the region came from `dma_alloc` on this platform (only
        // `Dma::new` makes a `Dma`), this value is its only owner, and drop
        // runs once, so it is freed exactly once. Pending device access is
        // the holder's to finish first (see the type's documentation).
        unsafe { self.platform.dma_free(self.region) };
    }
}
