//! Where compute memory lives: DMA memory mapped in the GGTT (Gen4-Gen7,
//! whose batches and kernels run through the GGTT), or a buffer of the
//! compute context's PPGTT, in system or local memory (Gen12.5: the
//! COMPUTE_WALKER's kernel fetches and its threads' messages go through the
//! PPGTT of the context the batch runs in, which the GGTT does not feed).

use core::fmt;

use super::error::ComputeError;
use crate::gtt::{GfxAddr, Mapping};
use crate::platform::{Dma, Platform};
use crate::submit::{self, ContextId, Gpu, Placement};

/// Memory the GPU reaches, owned: it goes back to the platform (and its
/// graphics range to the GTT) through [`Backing::release`].
pub(crate) enum Backing<'a> {
    Ggtt { memory: Dma<'a>, mapping: Mapping },
    Context(submit::Buffer<'a>),
}

impl fmt::Debug for Backing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Backing::Ggtt { mapping, .. } => write!(f, "Ggtt({:#x})", mapping.gfx.0),
            Backing::Context(b) => write!(
                f,
                "Context({:#x}, {:?}, {} bytes)",
                b.gfx().0,
                b.placement(),
                b.len()
            ),
        }
    }
}

impl<'a> Backing<'a> {
    /// `bytes` (whole pages) of zeroed memory: in the GGTT without a
    /// context, else in `context`'s PPGTT at `placement`.
    pub fn new<P: Platform>(
        gpu: &mut Gpu<'a, P>,
        context: Option<ContextId>,
        placement: Placement,
        bytes: usize,
    ) -> Result<Self, ComputeError> {
        let Some(ctx) = context else {
            if placement == Placement::Local {
                return Err(ComputeError::Unsupported {
                    generation: gpu.generation(),
                    what: "local memory",
                });
            }
            let (memory, mapping) = gpu.map_buffer(bytes)?;
            return Ok(Backing::Ggtt { memory, mapping });
        };
        let buffer = gpu.context_buffer(ctx, bytes as u64, placement)?;
        let backing = Backing::Context(buffer);
        // Local memory is not zeroed by its allocator; system memory is, but
        // one rule for both keeps the contract ("zeroed") in one place.
        if placement == Placement::Local {
            let zeros = [0u8; 4096];
            let mut at = 0;
            while at < bytes {
                let n = zeros.len().min(bytes - at);
                backing.write(at, &zeros[..n])?;
                at += n;
            }
        }
        Ok(backing)
    }

    pub fn gfx(&self) -> GfxAddr {
        match self {
            Backing::Ggtt { mapping, .. } => mapping.gfx,
            Backing::Context(b) => b.gfx(),
        }
    }

    /// Bytes of memory behind the mapping (whole pages).
    pub fn len(&self) -> usize {
        match self {
            Backing::Ggtt { memory, .. } => memory.size(),
            Backing::Context(b) => b.len() as usize,
        }
    }

    pub fn placement(&self) -> Placement {
        match self {
            Backing::Ggtt { .. } => Placement::System,
            Backing::Context(b) => b.placement(),
        }
    }

    pub fn write(&self, offset: usize, data: &[u8]) -> Result<(), ComputeError> {
        let ok = match self {
            Backing::Ggtt { memory, .. } => memory.write(offset, data).is_ok(),
            Backing::Context(b) => b.write(offset as u64, data),
        };
        ok.then_some(())
            .ok_or(ComputeError::Invalid("write past the end of the buffer"))
    }

    pub fn read(&self, offset: usize, out: &mut [u8]) -> Result<(), ComputeError> {
        let ok = match self {
            Backing::Ggtt { memory, .. } => memory.read(offset, out).is_ok(),
            Backing::Context(b) => b.read(offset as u64, out),
        };
        ok.then_some(())
            .ok_or(ComputeError::Invalid("read past the end of the buffer"))
    }

    /// Gives the graphics range and the memory back (once no submitted
    /// work uses them).
    pub fn release<P: Platform>(self, gpu: &mut Gpu<'a, P>) {
        match self {
            Backing::Ggtt { mapping, .. } => gpu.unmap(mapping),
            Backing::Context(b) => gpu.free_buffer(b),
        }
    }
}
