//! What the 3D pipeline lends the shared functions while its threads run
//! ([`Fixed`]): the URB that vertex threads write their entries into, and
//! the output merger ([`PixelBackend`]) that pixel threads' render-target
//! writes go through (blending, depth, stencil, the surface formats).
//! Threads of the media and GPGPU pipelines run without either: their
//! render-target writes land directly (`dataport::render`) and their URB
//! messages are refused.
//!
//! [`PixelDispatch`] is what the windower knows about a pixel-shader
//! thread's pixels beyond its payload; the thread carries it so that its
//! render-target writes reach the right pixels with the rasteriser's depth.

use crate::eu::send::SendError;

use super::memory::GfxMemory;
use super::urb::Urb;

/// The fixed functions' side of a run of the EU array.
#[derive(Default)]
pub struct Fixed<'a> {
    /// Where URB messages land; `None` refuses them.
    pub urb: Option<&'a mut Urb>,
    /// Where render-target writes go; `None` writes them directly.
    pub pixels: Option<&'a mut dyn PixelBackend>,
}

/// The pixels of one pixel-shader thread as the windower dispatched them.
#[derive(Clone, Debug, PartialEq)]
pub struct PixelDispatch {
    /// Dispatch width: 8, 16 or 32 pixels.
    pub simd: u8,
    /// Upper-left corner of each subspan, X in 15:0 and Y in 31:16 (the
    /// payload's packing); subspan `k` holds slots 4k..4k+3 (UL, UR, LL, LR).
    pub corners: [u32; 8],
    /// Pixels lit by the rasteriser (and left by early depth), bit per slot.
    pub mask: u32,
    /// The rasteriser's depth of each slot (the source depth).
    pub depth: [f32; 32],
    /// The primitive faces the viewer (for two-sided stencil).
    pub front_facing: bool,
}

/// One render-target write message, decoded by the data port.
#[derive(Clone, Debug, PartialEq)]
pub struct RtWrite {
    /// Binding-table index of the render target.
    pub binding_table_index: u8,
    /// Index into BLEND_STATE (header M0.2 2:0; 0 without a header).
    pub render_target_index: u8,
    /// Last render target write of the thread: depth and stencil are
    /// resolved here.
    pub last: bool,
    /// Slots the message carries (8 or 16) and the pixels it enables.
    pub slots: usize,
    pub mask: u32,
    /// Upper-left corner of each subspan the slots belong to (header or
    /// dispatch).
    pub corners: [u32; 4],
    /// Colour per slot as the shader's dwords (float or integer by format).
    pub color: [[u32; 4]; 16],
    /// Source-0 alpha, for alpha test and alpha-to-coverage.
    pub src0_alpha: Option<[u32; 16]>,
    /// The shader's depth, replacing the rasteriser's.
    pub depth: Option<[f32; 16]>,
    /// The shader's sample mask.
    pub omask: Option<[u16; 16]>,
}

/// The output merger as the data port sees it.
pub trait PixelBackend {
    /// A render-target write of the thread whose pixels are `dispatch`.
    fn render_target(
        &mut self,
        memory: &mut dyn GfxMemory,
        dispatch: Option<&PixelDispatch>,
        write: &RtWrite,
    ) -> Result<(), SendError>;

    /// Depth and stencil for pixels no shader thread runs for (the
    /// windower with pixel-shader dispatch off).
    fn depth_stencil_only(
        &mut self,
        memory: &mut dyn GfxMemory,
        dispatch: &PixelDispatch,
    ) -> Result<(), SendError>;

    /// Samples that passed the depth and stencil tests since the output
    /// merger was made (PIPE_CONTROL's depth count).
    fn samples_passed(&self) -> u64;
}
