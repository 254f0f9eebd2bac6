//! Buffers with a placement: system memory (DMA from the platform) on
//! every generation, or device-local memory (Gen12.5's VRAM, reached by the
//! CPU only through [`LocalMemory`], the BAR2 aperture).

use crate::gtt::GfxAddr;
use crate::platform::{Dma, LocalMemory};

use super::ContextId;

/// Where a buffer's pages are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    System,
    /// Device-local memory (VRAM).
    Local,
}

/// A buffer the GPU reaches through the GGTT or a context's PPGTT.
pub struct Buffer<'a> {
    pub(crate) gfx: GfxAddr,
    pub(crate) bytes: u64,
    pub(crate) memory: Memory<'a>,
    /// `None`: mapped in the GGTT; else the context.
    pub(crate) context: Option<ContextId>,
}

pub(crate) enum Memory<'a> {
    System(Dma<'a>),
    #[cfg_attr(not(feature = "gen12_5"), allow(dead_code))]
    Local {
        offset: u64,
        local: &'a dyn LocalMemory,
    },
}

impl<'a> Buffer<'a> {
    /// Its graphics address (GGTT, or in its context's PPGTT).
    pub fn gfx(&self) -> GfxAddr {
        self.gfx
    }
    pub fn placement(&self) -> Placement {
        match self.memory {
            Memory::System(_) => Placement::System,
            Memory::Local { .. } => Placement::Local,
        }
    }
    pub fn context(&self) -> Option<ContextId> {
        self.context
    }
    pub fn len(&self) -> u64 {
        self.bytes
    }
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }
    /// Reads bytes at `offset`; `false` outside the buffer.
    pub fn read(&self, offset: u64, buf: &mut [u8]) -> bool {
        if offset.saturating_add(buf.len() as u64) > self.bytes {
            return false;
        }
        match &self.memory {
            Memory::System(d) => d.read(offset as usize, buf).is_ok(),
            Memory::Local { offset: o, local } => local.read_local(o + offset, buf),
        }
    }
    /// Writes bytes at `offset`; `false` outside the buffer.
    pub fn write(&self, offset: u64, data: &[u8]) -> bool {
        if offset.saturating_add(data.len() as u64) > self.bytes {
            return false;
        }
        match &self.memory {
            Memory::System(d) => d.write(offset as usize, data).is_ok(),
            Memory::Local { offset: o, local } => local.write_local(o + offset, data),
        }
    }
    /// The DMA memory of a buffer in system memory.
    pub fn system(&self) -> Option<&Dma<'a>> {
        match &self.memory {
            Memory::System(d) => Some(d),
            Memory::Local { .. } => None,
        }
    }
    /// Dword `index`; `None` outside the buffer.
    pub fn read_u32(&self, index: u64) -> Option<u32> {
        let mut b = [0u8; 4];
        self.read(index * 4, &mut b).then(|| u32::from_le_bytes(b))
    }
    pub fn write_u32(&self, index: u64, value: u32) -> bool {
        self.write(index * 4, &value.to_le_bytes())
    }
}
