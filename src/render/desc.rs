//! What a draw is made of, in the driver's own words: vertex input,
//! shaders, and the fixed-function state. Each value names the hardware
//! encoding it becomes, with the manual line it comes from; the packets are
//! built per generation (`gen6.rs`).

use crate::compute::surface::read_dma_region;
use crate::compute::{Buffer, ComputeError, Kernel, Resource, Sampler, Surface};
use crate::gtt::{GfxAddr, Mapping};
use crate::platform::Dma;

/// How vertices make primitives: the 3DPRIMITIVE topology (003 lines
/// 31101-31175).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Topology {
    PointList,
    LineList,
    LineStrip,
    LineLoop,
    TriangleList,
    TriangleStrip,
    TriangleFan,
    QuadList,
    QuadStrip,
    Polygon,
    /// Axis-aligned rectangles from three corners each, the fourth implied
    /// (what blits and clears use).
    RectList,
    LineListAdjacency,
    LineStripAdjacency,
    TriangleListAdjacency,
    TriangleStripAdjacency,
}

impl Topology {
    /// The `_3DPRIM_*` code.
    pub const fn code(self) -> u32 {
        match self {
            Topology::PointList => 0x01,
            Topology::LineList => 0x02,
            Topology::LineStrip => 0x03,
            Topology::TriangleList => 0x04,
            Topology::TriangleStrip => 0x05,
            Topology::TriangleFan => 0x06,
            Topology::QuadList => 0x07,
            Topology::QuadStrip => 0x08,
            Topology::LineListAdjacency => 0x09,
            Topology::LineStripAdjacency => 0x0a,
            Topology::TriangleListAdjacency => 0x0b,
            Topology::TriangleStripAdjacency => 0x0c,
            Topology::Polygon => 0x0e,
            Topology::RectList => 0x0f,
            Topology::LineLoop => 0x10,
        }
    }
}

/// Formats vertex fetch reads (SURFACE_FORMAT codes with the "vertex
/// fetch" column set; 003 lines 76425-76952).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VertexFormat {
    /// 0x000 (line 76425).
    R32G32B32A32Float,
    /// 0x001 (line 76427).
    R32G32B32A32Sint,
    /// 0x002 (line 76429).
    R32G32B32A32Uint,
    /// 0x040 (line 76443).
    R32G32B32Float,
    /// 0x080 (line 76457).
    R16G16B16A16Unorm,
    /// 0x084 (line 76465).
    R16G16B16A16Float,
    /// 0x085 (line 76467).
    R32G32Float,
    /// 0x0C0 (line 76508).
    B8G8R8A8Unorm,
    /// 0x0C2 (line 76512).
    R10G10B10A2Unorm,
    /// 0x0C7 (line 76520).
    R8G8B8A8Unorm,
    /// 0x0C9 (line 76524).
    R8G8B8A8Snorm,
    /// 0x0CB (line 76528).
    R8G8B8A8Uint,
    /// 0x0CC (line 76529).
    R16G16Unorm,
    /// 0x0CD (line 76531).
    R16G16Snorm,
    /// 0x0D0 (line 76537).
    R16G16Float,
    /// 0x0D7 (line 76547).
    R32Uint,
    /// 0x0D8 (line 76549).
    R32Float,
}

impl VertexFormat {
    /// The SURFACE_FORMAT code.
    pub const fn code(self) -> u32 {
        match self {
            VertexFormat::R32G32B32A32Float => 0x000,
            VertexFormat::R32G32B32A32Sint => 0x001,
            VertexFormat::R32G32B32A32Uint => 0x002,
            VertexFormat::R32G32B32Float => 0x040,
            VertexFormat::R16G16B16A16Unorm => 0x080,
            VertexFormat::R16G16B16A16Float => 0x084,
            VertexFormat::R32G32Float => 0x085,
            VertexFormat::B8G8R8A8Unorm => 0x0c0,
            VertexFormat::R10G10B10A2Unorm => 0x0c2,
            VertexFormat::R8G8B8A8Unorm => 0x0c7,
            VertexFormat::R8G8B8A8Snorm => 0x0c9,
            VertexFormat::R8G8B8A8Uint => 0x0cb,
            VertexFormat::R16G16Unorm => 0x0cc,
            VertexFormat::R16G16Snorm => 0x0cd,
            VertexFormat::R16G16Float => 0x0d0,
            VertexFormat::R32Uint => 0x0d7,
            VertexFormat::R32Float => 0x0d8,
        }
    }

    /// Bytes one element occupies in its buffer (the "bpe" column).
    pub const fn bytes(self) -> u32 {
        match self {
            VertexFormat::R32G32B32A32Float
            | VertexFormat::R32G32B32A32Sint
            | VertexFormat::R32G32B32A32Uint => 16,
            VertexFormat::R32G32B32Float => 12,
            VertexFormat::R16G16B16A16Unorm
            | VertexFormat::R16G16B16A16Float
            | VertexFormat::R32G32Float => 8,
            _ => 4,
        }
    }
}

/// What vertex fetch stores in one component of an element (VERTEX_ELEMENT
/// Component Control, 003 lines 30679-30702; VertexID and InstanceID, which
/// the table prints as reserved, 29797-29822).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Component {
    /// The component of the source element.
    Source,
    Zero,
    /// 1.0.
    OneFloat,
    /// The integer 1.
    OneInt,
    VertexId,
    InstanceId,
}

impl Component {
    pub const fn code(self) -> u32 {
        match self {
            Component::Source => 1,
            Component::Zero => 2,
            Component::OneFloat => 3,
            Component::OneInt => 4,
            Component::VertexId => 5,
            Component::InstanceId => 6,
        }
    }
}

/// One vertex element: 128 bits of the vertex the vertex shader (or, with
/// no vertex shader, clipping and setup) receives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VertexElement {
    /// Index into [`Draw::vertex_buffers`].
    pub buffer: u32,
    /// Byte offset within a vertex (at most 2047).
    pub offset: u32,
    pub format: VertexFormat,
    pub components: [Component; 4],
}

impl VertexElement {
    /// An element of `format` at `offset` in buffer `buffer`, its missing
    /// components filled as (0, 0, 0, 1.0).
    pub const fn new(buffer: u32, offset: u32, format: VertexFormat) -> Self {
        VertexElement {
            buffer,
            offset,
            format,
            components: [Component::Source; 4],
        }
    }
}

/// How a vertex buffer advances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    PerVertex,
    /// One element per `n` instances (0: every instance reads element 0).
    PerInstance(u32),
}

/// A buffer vertex elements read.
#[derive(Clone, Copy, Debug)]
pub struct VertexBuffer<'b> {
    pub buffer: &'b Buffer<'b>,
    /// Bytes between consecutive vertices (at most 2048).
    pub pitch: u32,
    pub step: Step,
}

/// Index size (3DSTATE_INDEX_BUFFER Index Format, 003 lines 29838-29990).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexFormat {
    U8,
    U16,
    U32,
}

impl IndexFormat {
    pub const fn bytes(self) -> u32 {
        match self {
            IndexFormat::U8 => 1,
            IndexFormat::U16 => 2,
            IndexFormat::U32 => 4,
        }
    }
}

/// Indices of an indexed draw.
#[derive(Clone, Copy, Debug)]
pub struct IndexBuffer<'b> {
    pub buffer: &'b Buffer<'b>,
    pub format: IndexFormat,
    /// The all-ones index restarts strips (primitive restart).
    pub cut: bool,
}

/// A vertex shader: an EU kernel run SIMD4x2 (two vertices a thread) that
/// reads its vertex from the payload and writes the vertex URB entry
/// (header, position, attributes) with URB_WRITE messages.
#[derive(Clone, Copy, Debug)]
pub struct VertexShader<'k> {
    pub kernel: &'k Kernel<'k>,
    /// First GRF of the vertex data. The push constants arrive in the
    /// registers just before it (the hardware delivers constants, then
    /// vertex data, from the state's Dispatch GRF Start, which the driver
    /// sets to `grf_start` less the constant registers), so it is at
    /// least 1 plus the constant registers.
    pub grf_start: u32,
    /// 128-bit elements of vertex input each vertex receives (the vertex
    /// elements it reads).
    pub inputs: u32,
    /// 128-bit slots of the URB entry the shader writes: the header, the
    /// position, then the attributes setup interpolates.
    pub outputs: u32,
    /// Push constants, whole 32-byte registers, delivered just before the
    /// vertex data.
    pub constants: &'k [u8],
}

impl VertexShader<'_> {
    /// 3DSTATE_VS Dispatch GRF Start Register for URB Data: the thread
    /// payload's URB-sourced data, the push constants first and then the
    /// vertex data, is written from that register on (003 lines 28514-28523
    /// and the VS payload, lines 33380-33400; Mesa programs the VS with the
    /// first constant register, `setup_uniforms` in brw_vec4.cpp), so it is
    /// the vertex data's first register less the constant registers.
    pub(crate) fn dispatch_start(&self) -> Result<u32, ComputeError> {
        let constant_regs = self.constants.len().div_ceil(32) as u32;
        match self.grf_start.checked_sub(constant_regs) {
            Some(start) if start >= 1 => Ok(start),
            _ => Err(ComputeError::Invalid(
                "the vertex shader's grf_start leaves no room for R0 and its push constants",
            )),
        }
    }
}

/// Barycentric coordinates the windower delivers to a pixel shader
/// (3DSTATE_WM Barycentric Interpolation Mode, 003 DW6 15:10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Barycentrics(pub u32);

impl Barycentrics {
    pub const PERSPECTIVE_PIXEL: Barycentrics = Barycentrics(1 << 0);
    pub const PERSPECTIVE_CENTROID: Barycentrics = Barycentrics(1 << 1);
    pub const PERSPECTIVE_SAMPLE: Barycentrics = Barycentrics(1 << 2);
    pub const LINEAR_PIXEL: Barycentrics = Barycentrics(1 << 3);
    pub const LINEAR_CENTROID: Barycentrics = Barycentrics(1 << 4);
    pub const LINEAR_SAMPLE: Barycentrics = Barycentrics(1 << 5);
}

/// A pixel-shader kernel for one dispatch width.
#[derive(Clone, Copy, Debug)]
pub struct PixelKernel<'k> {
    pub kernel: &'k Kernel<'k>,
    /// First GRF of the constants and setup data.
    pub grf_start: u32,
}

/// A pixel shader: SIMD8 and/or SIMD16 kernels that end with a render
/// target write.
#[derive(Clone, Copy, Debug)]
pub struct PixelShader<'k> {
    pub simd8: Option<PixelKernel<'k>>,
    pub simd16: Option<PixelKernel<'k>>,
    pub barycentrics: Barycentrics,
    pub uses_source_depth: bool,
    pub uses_source_w: bool,
    /// It discards pixels (depth is then tested after it).
    pub kills_pixels: bool,
    pub computes_depth: bool,
    /// Push constants, whole 32-byte registers.
    pub constants: &'k [u8],
}

/// The viewport: normalised device coordinates to pixels, y down; depth
/// from [0, 1] to [`min_depth`, `max_depth`].
///
/// [`min_depth`]: Viewport::min_depth
/// [`max_depth`]: Viewport::max_depth
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
    pub min_depth: f32,
    pub max_depth: f32,
}

/// A rectangle of pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

/// Faces culled (3DSTATE_SF Cull Mode; 0 = both, 003 lines 38619-38630).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cull {
    None,
    Front,
    Back,
}

/// How a triangle face is drawn (3DSTATE_SF fill modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    Solid,
    Wireframe,
    Point,
}

/// Rasterisation state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Raster {
    pub cull: Cull,
    /// Counter-clockwise triangles (in pixels, y down) face the viewer.
    pub front_ccw: bool,
    pub fill_front: Fill,
    pub fill_back: Fill,
    /// Pixels outside are discarded.
    pub scissor: Option<Rect>,
    /// Multisampled rendering into a target laid out for it
    /// ([`Samples::target_size`]); `None`: one sample at the pixel centre.
    pub multisample: Option<Multisample>,
}

impl Default for Raster {
    fn default() -> Self {
        Raster {
            cull: Cull::None,
            front_ccw: false,
            fill_front: Fill::Solid,
            fill_back: Fill::Solid,
            scissor: None,
            multisample: None,
        }
    }
}

/// Blend factors (003 BLEND_STATE, the notes' list from 45841-46460).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlendFactor {
    One,
    SrcColor,
    SrcAlpha,
    DstAlpha,
    DstColor,
    SrcAlphaSaturate,
    ConstColor,
    ConstAlpha,
    Src1Color,
    Src1Alpha,
    Zero,
    InvSrcColor,
    InvSrcAlpha,
    InvDstAlpha,
    InvDstColor,
    InvConstColor,
    InvConstAlpha,
    InvSrc1Color,
    InvSrc1Alpha,
}

impl BlendFactor {
    pub const fn code(self) -> u32 {
        match self {
            BlendFactor::One => 0x01,
            BlendFactor::SrcColor => 0x02,
            BlendFactor::SrcAlpha => 0x03,
            BlendFactor::DstAlpha => 0x04,
            BlendFactor::DstColor => 0x05,
            BlendFactor::SrcAlphaSaturate => 0x06,
            BlendFactor::ConstColor => 0x07,
            BlendFactor::ConstAlpha => 0x08,
            BlendFactor::Src1Color => 0x09,
            BlendFactor::Src1Alpha => 0x0a,
            BlendFactor::Zero => 0x11,
            BlendFactor::InvSrcColor => 0x12,
            BlendFactor::InvSrcAlpha => 0x13,
            BlendFactor::InvDstAlpha => 0x14,
            BlendFactor::InvDstColor => 0x15,
            BlendFactor::InvConstColor => 0x17,
            BlendFactor::InvConstAlpha => 0x18,
            BlendFactor::InvSrc1Color => 0x19,
            BlendFactor::InvSrc1Alpha => 0x1a,
        }
    }
}

/// Blend functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlendOp {
    Add,
    Subtract,
    ReverseSubtract,
    Min,
    Max,
}

impl BlendOp {
    pub const fn code(self) -> u32 {
        match self {
            BlendOp::Add => 0,
            BlendOp::Subtract => 1,
            BlendOp::ReverseSubtract => 2,
            BlendOp::Min => 3,
            BlendOp::Max => 4,
        }
    }
}

/// One blend equation: `src * src_factor (op) dst * dst_factor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlendEquation {
    pub src: BlendFactor,
    pub dst: BlendFactor,
    pub op: BlendOp,
}

/// Colour output state of the render target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Blend {
    /// `None`: the shader's colour is written as is.
    pub color: Option<BlendEquation>,
    /// The alpha equation; `None` uses `color`'s.
    pub alpha: Option<BlendEquation>,
    /// Channels written: bit 0 red, 1 green, 2 blue, 3 alpha.
    pub write_mask: u8,
    pub constant: [f32; 4],
}

impl Default for Blend {
    fn default() -> Self {
        Blend {
            color: None,
            alpha: None,
            write_mask: 0xf,
            constant: [0.0; 4],
        }
    }
}

/// Compare functions (COMPAREFUNCTION; 0 is ALWAYS).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compare {
    Always,
    Never,
    Less,
    Equal,
    LessEqual,
    Greater,
    NotEqual,
    GreaterEqual,
}

impl Compare {
    pub const fn code(self) -> u32 {
        match self {
            Compare::Always => 0,
            Compare::Never => 1,
            Compare::Less => 2,
            Compare::Equal => 3,
            Compare::LessEqual => 4,
            Compare::Greater => 5,
            Compare::NotEqual => 6,
            Compare::GreaterEqual => 7,
        }
    }
}

/// Stencil operations (DEPTH_STENCIL_STATE, 003 lines 45469-45840).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StencilOp {
    Keep,
    Zero,
    Replace,
    IncrementClamp,
    DecrementClamp,
    IncrementWrap,
    DecrementWrap,
    Invert,
}

impl StencilOp {
    pub const fn code(self) -> u32 {
        match self {
            StencilOp::Keep => 0,
            StencilOp::Zero => 1,
            StencilOp::Replace => 2,
            StencilOp::IncrementClamp => 3,
            StencilOp::DecrementClamp => 4,
            StencilOp::IncrementWrap => 5,
            StencilOp::DecrementWrap => 6,
            StencilOp::Invert => 7,
        }
    }
}

/// The stencil test of one face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StencilFace {
    pub compare: Compare,
    pub fail: StencilOp,
    pub depth_fail: StencilOp,
    pub pass: StencilOp,
    pub read_mask: u8,
    pub write_mask: u8,
    pub reference: u8,
}

/// Depth and stencil tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DepthStencil {
    /// `None`: no depth test (and no depth write).
    pub depth_test: Option<Compare>,
    pub depth_write: bool,
    /// Front faces, and back faces when they differ.
    pub stencil: Option<(StencilFace, Option<StencilFace>)>,
}

impl DepthStencil {
    /// Whether the stencil test may change the buffer: on, with a write
    /// mask other than 0 on a face (Mesa's `_WriteEnabled`).
    pub(crate) fn writes_stencil(&self) -> bool {
        self.stencil
            .is_some_and(|(f, b)| f.write_mask != 0 || b.is_some_and(|b| b.write_mask != 0))
    }
}

/// Depth buffer formats (3DSTATE_DEPTH_BUFFER Surface Format, 003 lines
/// 42515-43151).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepthFormat {
    D16Unorm,
    D24UnormS8Uint,
    D24UnormX8,
    D32Float,
}

impl DepthFormat {
    pub const fn code(self) -> u32 {
        match self {
            DepthFormat::D32Float => 1,
            DepthFormat::D24UnormS8Uint => 2,
            DepthFormat::D24UnormX8 => 3,
            DepthFormat::D16Unorm => 5,
        }
    }

    pub const fn bytes(self) -> u32 {
        match self {
            DepthFormat::D16Unorm => 2,
            _ => 4,
        }
    }

    /// Whether it holds stencil.
    pub const fn has_stencil(self) -> bool {
        matches!(self, DepthFormat::D24UnormS8Uint)
    }
}

/// A Y-tiled depth (and stencil) buffer from
/// [`super::Renderer::create_depth_buffer`].
#[derive(Debug)]
pub struct DepthBuffer<'a> {
    pub(crate) memory: Dma<'a>,
    pub(crate) mapping: Mapping,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) pitch: u32,
    pub(crate) format: DepthFormat,
    /// Ivy Bridge keeps stencil in a buffer of its own.
    pub(crate) stencil: Option<SeparateStencil<'a>>,
}

/// A separate S8_UINT stencil buffer in W tiles (64 bytes by 64 rows, 003
/// lines 7374-7379), allocated with an Ivy Bridge D24_UNORM_S8_UINT depth
/// buffer: Gen7 always uses separate stencil [ext: Mesa
/// intel_device_info.c GFX7_FEATURES must_use_separate_stencil].
#[derive(Debug)]
pub(crate) struct SeparateStencil<'a> {
    pub(crate) memory: Dma<'a>,
    pub(crate) mapping: Mapping,
    /// The pitch 3DSTATE_STENCIL_BUFFER takes: twice a row of W tiles'
    /// 64 bytes, "as the stencil buffer is stored with two rows
    /// interleaved" (003 lines 43236-43237; on Ivy Bridge alike [ext: Mesa
    /// i965 gen7_misc_state.c, "experiments indicate that this is
    /// necessary"]).
    pub(crate) pitch: u32,
}

impl DepthBuffer<'_> {
    pub fn gfx(&self) -> GfxAddr {
        self.mapping.gfx
    }
    pub fn width(&self) -> u32 {
        self.width
    }
    pub fn height(&self) -> u32 {
        self.height
    }
    pub fn pitch(&self) -> u32 {
        self.pitch
    }
    pub fn format(&self) -> DepthFormat {
        self.format
    }
    /// Graphics address of the separate stencil buffer (Ivy Bridge
    /// D24_UNORM_S8_UINT), `None` when stencil is in the depth buffer or
    /// absent.
    pub fn stencil_gfx(&self) -> Option<GfxAddr> {
        self.stencil.as_ref().map(|s| s.mapping.gfx)
    }
    /// Sets every depth value to `depth` (clamped to [0, 1] for the UNORM
    /// formats) and stencil to `stencil`, from the CPU: a uniform value
    /// needs no tiling. Call it only while no submitted work uses the buffer.
    pub fn clear(&self, depth: f32, stencil: u8) -> Result<(), ComputeError> {
        let unorm = |bits: u32| crate::compute::sampler::unorm(depth, bits);
        let texel: [u8; 4] = match self.format {
            DepthFormat::D16Unorm => {
                let v = unorm(16) as u16;
                let b = v.to_le_bytes();
                [b[0], b[1], b[0], b[1]]
            }
            DepthFormat::D24UnormS8Uint | DepthFormat::D24UnormX8 => {
                (unorm(24) | u32::from(stencil) << 24).to_le_bytes()
            }
            DepthFormat::D32Float => depth.to_bits().to_le_bytes(),
        };
        let bytes: alloc::vec::Vec<u8> = texel.repeat(self.memory.size() / 4);
        self.memory
            .write(0, &bytes)
            .map_err(|_| ComputeError::Invalid("depth buffer write"))?;
        if let Some(s) = &self.stencil {
            // One byte a pixel: a uniform value needs no W tiling either.
            let bytes = alloc::vec![stencil; s.memory.size()];
            s.memory
                .write(0, &bytes)
                .map_err(|_| ComputeError::Invalid("stencil buffer write"))?;
        }
        Ok(())
    }

    /// The raw W-tiled bytes of the separate stencil buffer.
    pub fn read_stencil_raw(&self, offset: usize, out: &mut [u8]) -> Result<(), ComputeError> {
        let s = self
            .stencil
            .as_ref()
            .ok_or(ComputeError::Invalid("no separate stencil buffer"))?;
        read_dma_region(&s.memory, s.memory.size(), offset, out)
    }

    /// The raw Y-tiled bytes (to inspect after the draw completed).
    pub fn read_raw(&self, offset: usize, out: &mut [u8]) -> Result<(), ComputeError> {
        read_dma_region(&self.memory, self.memory.size(), offset, out)
    }
}

/// One draw call.
#[derive(Clone, Copy, Debug)]
pub struct Draw<'a> {
    /// The colour render target (binding table index 0).
    pub target: &'a Surface<'a>,
    pub depth: Option<&'a DepthBuffer<'a>>,
    pub vertex_buffers: &'a [VertexBuffer<'a>],
    /// The vertex shader's inputs; with no vertex shader, the position
    /// then the attributes setup interpolates (the driver adds the vertex
    /// header in front).
    pub elements: &'a [VertexElement],
    pub index: Option<IndexBuffer<'a>>,
    pub topology: Topology,
    pub first_vertex: u32,
    pub vertex_count: u32,
    pub first_instance: u32,
    pub instance_count: u32,
    /// Added to every index of an indexed draw.
    pub base_vertex: i32,
    pub vs: Option<VertexShader<'a>>,
    /// An optional geometry shader after the vertex shader.
    pub gs: Option<GeometryShader<'a>>,
    /// Optional stream output of the last vertex stage.
    pub stream_output: Option<StreamOutput<'a>>,
    pub ps: PixelShader<'a>,
    /// Attributes after the position that setup hands the pixel shader.
    pub attributes: u32,
    /// Attributes (bit per attribute) taken from the provoking vertex
    /// instead of interpolated.
    pub flat: u32,
    pub viewport: Viewport,
    pub raster: Raster,
    pub blend: Blend,
    pub depth_stencil: DepthStencil,
    /// Surfaces the pixel shader samples or reads, at binding-table indices
    /// 1 and up (0 is the render target).
    pub textures: &'a [(u32, Resource<'a>)],
    pub samplers: &'a [(u32, Sampler)],
}

/// How Ivy Bridge hands objects to GS threads (3DSTATE_GS Dispatch Mode
/// [ext: Mesa genxml gen7.xml 3DSTATE_GS DW5 12:11]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GsDispatch {
    /// One object instance a thread, channels 0-3.
    Single,
    /// Two instances of one object a thread.
    DualInstance,
    /// Two objects a thread (one instance only).
    DualObject,
}

impl GsDispatch {
    pub const fn code(self) -> u32 {
        match self {
            GsDispatch::Single => 0,
            GsDispatch::DualInstance => 1,
            GsDispatch::DualObject => 2,
        }
    }
}

/// A geometry shader: an EU kernel run once per object (primitive) with
/// the object's vertices in its payload, writing the vertices it emits.
///
/// On Sandy Bridge the kernel asks the GS unit for URB handles (FF_SYNC),
/// writes one output vertex per URB entry with the primitive type and
/// start/end flags in its message header, and ends with a URB write that
/// reports the primitives it streamed out (003 lines 34620-34900); it
/// receives R0, R1 with the streamed-vertex-buffer indices when stream
/// output is on, then from the dispatch start the push constants and the
/// vertices. On Ivy Bridge the kernel writes its own URB entry: a
/// control-data header of `control_data_header` 256-bit units, then each
/// vertex at `output_slots` 128-bit slots apart, and ends with a URB write
/// carrying the vertex count [ext: Mesa elk_vec4_gs_visitor.cpp]; it
/// receives R0, R1 with the PrimitiveID when asked, then the constants
/// and the vertices.
#[derive(Clone, Copy, Debug)]
pub struct GeometryShader<'k> {
    pub kernel: &'k Kernel<'k>,
    /// First GRF of the vertex data; the push constants arrive in the
    /// registers just before it (as for [`VertexShader::grf_start`]).
    pub grf_start: u32,
    /// 256-bit rows of each input vertex delivered (URB Entry Read Length,
    /// from the start of the vertex).
    pub input_rows: u32,
    /// 128-bit slots of one output vertex: header, position, attributes
    /// (what setup and stream output read).
    pub output_slots: u32,
    /// Most vertices one invocation emits (Ivy Bridge sizes the URB
    /// entry for them; Sandy Bridge takes one entry per vertex).
    pub max_vertices: u32,
    /// What the emitted vertices make (Ivy Bridge's Output Topology; on
    /// Sandy Bridge the kernel names it in each URB write).
    pub output_topology: Topology,
    /// Ivy Bridge: 256-bit units of control data (cut or stream bits)
    /// before the vertices; 0 for none.
    pub control_data_header: u32,
    /// Ivy Bridge dispatch mode.
    pub dispatch: GsDispatch,
    /// Ivy Bridge: invocations per object (1-32).
    pub instances: u32,
    /// Ivy Bridge: PrimitiveID in R1.
    pub include_primitive_id: bool,
    /// Push constants, whole 32-byte registers.
    pub constants: &'k [u8],
}

impl GeometryShader<'_> {
    /// Dispatch GRF Start Register for URB Data: the push constants from
    /// it, then the vertices (003 lines 34760-34800; [ext: Mesa
    /// gfx6_gs_visitor.cpp setup_payload, vec4 setup_uniforms]). `low` is
    /// the first register after R0 and the optional R1.
    pub(crate) fn dispatch_start(&self, low: u32) -> Result<u32, ComputeError> {
        let constant_regs = self.constants.len().div_ceil(32) as u32;
        match self.grf_start.checked_sub(constant_regs) {
            Some(start) if start >= low && start <= 15 => Ok(start),
            _ => Err(ComputeError::Invalid(
                "the geometry shader's grf_start leaves no room for its payload header and push constants (or exceeds the 4-bit dispatch start)",
            )),
        }
    }
}

/// One buffer stream output writes.
#[derive(Clone, Copy, Debug)]
pub struct StreamBuffer<'b> {
    pub buffer: &'b Buffer<'b>,
    /// Bytes between consecutive vertices (a multiple of 4).
    pub pitch: u32,
    /// Byte offset of the first vertex written (a multiple of 4; on Sandy
    /// Bridge a multiple of `pitch`, as it becomes a vertex index).
    pub offset: u32,
}

/// One SO_DECL: what stream output writes of a vertex into a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamDecl {
    /// Index into [`StreamOutput::buffers`].
    pub buffer: u32,
    /// The 128-bit slot of the output vertex (0 the header, 1 the
    /// position, ...).
    pub slot: u32,
    /// Components written, bit 0 x .. bit 3 w; contiguous. With `hole`,
    /// the buffer skips that many dwords instead.
    pub mask: u8,
    pub hole: bool,
}

/// Stream output (transform feedback) of a draw's last vertex stage.
///
/// Ivy Bridge writes the decls itself (3DSTATE_SO_DECL_LIST, SO_BUFFER,
/// the SO_WRITE_OFFSET registers). Sandy Bridge has no such unit: its GS
/// kernel writes the vertices with SVB write messages (the kernel is the
/// caller's); the driver binds each decl as a buffer surface at GS
/// binding-table entry k (decl k, its components at their offset in the
/// vertex) [ext: Mesa i965 gen6_sol.c brw_update_sol_surface], and loads
/// streamed vertex buffer index 0 with the first buffer's start vertex and
/// its capacity (3DSTATE_GS_SVB_INDEX, 003 lines 33600-33668).
#[derive(Clone, Copy, Debug)]
pub struct StreamOutput<'a> {
    /// Up to four buffers on Ivy Bridge; on Sandy Bridge the decls' one.
    pub buffers: &'a [StreamBuffer<'a>],
    pub decls: &'a [StreamDecl],
    /// Whether the primitives are also rasterised.
    pub rendering: bool,
    /// Where the primitives-written counter (SO_NUM_PRIMS_WRITTEN, 64
    /// bits, cumulative) is stored: before the draw at the byte offset (a
    /// multiple of 8), after it 8 bytes on; the draw's primitives are the
    /// difference ([`StreamOutput::primitives_written`]).
    pub count: Option<(&'a Buffer<'a>, u32)>,
}

impl StreamOutput<'_> {
    /// The primitives a completed draw wrote: the counter after it less
    /// the counter before, from the quadwords at `offset` of `buffer`.
    pub fn primitives_written(buffer: &Buffer<'_>, offset: u32) -> Result<u64, ComputeError> {
        let mut b = [0u8; 16];
        buffer.read(offset as usize, &mut b)?;
        let before = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        let after = u64::from_le_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]);
        Ok(after.wrapping_sub(before))
    }
}

/// Samples per pixel of a multisampled draw: 4X on Sandy Bridge (003
/// 3DSTATE_MULTISAMPLE NUMSAMPLES_4), 4X or 8X on Ivy Bridge [ext: Mesa
/// genxml gen7.xml 3DSTATE_MULTISAMPLE].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Samples {
    X4,
    X8,
}

impl Samples {
    pub const fn count(self) -> u32 {
        match self {
            Samples::X4 => 4,
            Samples::X8 => 8,
        }
    }

    /// The standard sample positions in 1/16 pixel from the pixel's
    /// upper-left corner, sample 0 first: the Vulkan standard locations
    /// Mesa programs on both generations [ext: Mesa
    /// src/intel/common/intel_sample_positions.c, 4x (0.375, 0.125),
    /// (0.875, 0.375), (0.125, 0.625), (0.625, 0.875); 8x (0.5625,
    /// 0.3125), (0.4375, 0.6875), (0.8125, 0.5625), (0.3125, 0.1875),
    /// (0.1875, 0.8125), (0.0625, 0.4375), (0.6875, 0.9375), (0.9375,
    /// 0.0625)].
    pub const fn positions(self) -> &'static [(u32, u32)] {
        match self {
            Samples::X4 => &[(6, 2), (14, 6), (2, 10), (10, 14)],
            Samples::X8 => &[
                (9, 5),
                (7, 11),
                (13, 9),
                (5, 3),
                (3, 13),
                (1, 7),
                (11, 15),
                (15, 1),
            ],
        }
    }

    /// The size of the 2D surface that holds a `width` x `height` target
    /// of these samples. Sandy Bridge interleaves them (IMS): 4X doubles
    /// both sides, each 2x2 pixel block stored as 4x4 samples. Ivy Bridge
    /// keeps colour samples in array slices (MSFMT_MSS), sample `s` at
    /// rows `s * height`, `height` a multiple of 4 so that the slices are
    /// QPitch apart with either vertical alignment [ext: Mesa
    /// brw_blorp_blit.cpp encode_msaa comment; isl
    /// ISL_MSAA_LAYOUT_INTERLEAVED / ISL_MSAA_LAYOUT_ARRAY].
    pub fn target_size(
        self,
        generation: baregpu_hal::Generation,
        width: u32,
        height: u32,
    ) -> Result<(u32, u32), ComputeError> {
        match (generation, self) {
            (baregpu_hal::Generation::Gen6, Samples::X4) => Ok((width * 2, height * 2)),
            (baregpu_hal::Generation::Gen7, _) if height.is_multiple_of(4) => {
                Ok((width, height * self.count()))
            }
            (baregpu_hal::Generation::Gen7, _) => Err(ComputeError::Invalid(
                "an Ivy Bridge multisampled target's height is a multiple of 4",
            )),
            _ => Err(ComputeError::Invalid(
                "multisampling: 4X on Sandy Bridge, 4X or 8X on Ivy Bridge",
            )),
        }
    }

    /// The target's pixel size for the surface that holds it.
    pub(crate) fn logical_size(
        self,
        generation: baregpu_hal::Generation,
        width: u32,
        height: u32,
    ) -> Result<(u32, u32), ComputeError> {
        let size = match generation {
            baregpu_hal::Generation::Gen6 => (width / 2, height / 2),
            _ => (width, height / self.count()),
        };
        if size.0 == 0
            || size.1 == 0
            || self.target_size(generation, size.0, size.1)? != (width, height)
        {
            return Err(ComputeError::Invalid(
                "the render target is not laid out for its samples (Samples::target_size)",
            ));
        }
        Ok(size)
    }

    /// Where sample `s` of pixel (`x`, `y`) lies in the surface that holds
    /// a target of `height` pixel rows (the layouts of
    /// [`Samples::target_size`]).
    pub fn location(
        self,
        generation: baregpu_hal::Generation,
        height: u32,
        x: u32,
        y: u32,
        s: u32,
    ) -> (u32, u32) {
        match generation {
            // Sample bits 0 and 1 go into bit 1 of X and Y.
            baregpu_hal::Generation::Gen6 => (
                (x & !1) << 1 | (s & 1) << 1 | (x & 1),
                (y & !1) << 1 | (s & 2) | (y & 1),
            ),
            _ => (x, y + s * height),
        }
    }

    /// The CPU resolve of a B8G8R8A8 or R8G8B8A8 target: each pixel's
    /// channels averaged over its samples (rounded), `width` x `height`
    /// 4-byte pixels. Call only after the draws completed.
    pub fn resolve(
        self,
        generation: baregpu_hal::Generation,
        target: &Surface<'_>,
    ) -> Result<alloc::vec::Vec<u8>, ComputeError> {
        let (pw, ph) = (target.width(), target.height());
        let (w, h) = self.logical_size(generation, pw, ph)?;
        let mut raw = alloc::vec![0u8; (pw * ph * 4) as usize];
        target.read_pixels(crate::compute::Swizzle::None, &mut raw)?;
        let n = self.count();
        let mut out = alloc::vec![0u8; (w * h * 4) as usize];
        for y in 0..h {
            for x in 0..w {
                for c in 0..4 {
                    let sum: u32 = (0..n)
                        .map(|s| {
                            let (sx, sy) = self.location(generation, h, x, y, s);
                            u32::from(raw[((sy * pw + sx) * 4 + c) as usize])
                        })
                        .sum();
                    out[((y * w + x) * 4 + c) as usize] = ((sum + n / 2) / n) as u8;
                }
            }
        }
        Ok(out)
    }
}

/// Multisampled rendering: the sample count (standard positions) and
/// which samples are written (3DSTATE_SAMPLE_MASK, bit per sample).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Multisample {
    pub samples: Samples,
    pub mask: u32,
}
