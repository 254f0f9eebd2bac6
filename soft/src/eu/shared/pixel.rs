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

use alloc::boxed::Box;

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
    /// Anti-aliased lines: each slot's coverage (Antialias Alpha, U0.8 as
    /// 0-255), bypassed data the windower hands the render cache with the
    /// pixels (003 lines 84957-84960); `None` for other objects.
    pub aa_alpha: Option<[u8; 32]>,
    /// Multisampled rasterisation (more than one sample a pixel): each
    /// slot's covered samples and their depths; `None` with one sample.
    pub samples: Option<Box<SampleDispatch>>,
}

/// What the windower hands the output merger about each slot's samples
/// (the multisample coverage mask is bypassed data, 003 lines
/// 84957-84960).
#[derive(Clone, Debug, PartialEq)]
pub struct SampleDispatch {
    /// Samples a pixel: 4 or 8.
    pub count: u8,
    /// Bit `s`: sample `s` is covered (and enabled by the sample mask).
    pub coverage: [u8; 32],
    /// Source depth of each sample, evaluated at the sample's position.
    pub depth: [[f32; 8]; 32],
}

/// One render-target write message, decoded by the data port (003 lines
/// 84812-85793; the forms in `dataport::render::gen6`).
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
    /// dispatch): slot `i` is pixel `i % 4` of subspan `corners[i / 4]`.
    pub corners: [u32; 4],
    /// The dispatch slot of the message's slot 0 (0, 8, 16 or 24: the slot
    /// group and the dual-source half), where the rasteriser's depth of
    /// the message's pixels is.
    pub dispatch_slot: usize,
    /// The primitive faces away from the viewer (M0.0 bit 15, or the
    /// dispatch): selects the backface stencil state.
    pub back_facing: bool,
    /// Viewport index (M0.0 30:27): selects the CC_VIEWPORT depth range.
    pub viewport_index: u8,
    /// Colour per slot as the shader's dwords (float or integer by format);
    /// source 0 of a dual-source write.
    pub color: [[u32; 4]; 16],
    /// Source 1 of a dual-source write.
    pub color1: Option<[[u32; 4]; 16]>,
    /// The replicated-data form: one colour for every slot.
    pub replicated: bool,
    /// Source-0 alpha, for alpha test and alpha-to-coverage.
    pub src0_alpha: Option<[u32; 16]>,
    /// The shader's depth, replacing the rasteriser's.
    pub depth: Option<[f32; 16]>,
    /// The shader's sample mask.
    pub omask: Option<[u16; 16]>,
}

/// What a header-less render-target write inherits from R0.0 of the
/// dispatch beyond the pixel dispatch (003 lines 85008-85012: "as if the
/// message was sent with most fields set to the same value that was
/// delivered in R0 and R1"): whether source depth (bit 13) and oMask (bit
/// 12) follow the colour (003 R0.0, lines 44026-44030).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DispatchFlags {
    pub source_depth: bool,
    pub omask: bool,
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

    /// The R0.0 flags the windower gives the draw's pixel threads, which
    /// header-less render-target writes inherit.
    fn dispatch_flags(&self) -> DispatchFlags {
        DispatchFlags::default()
    }
}
