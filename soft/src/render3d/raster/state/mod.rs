//! The state clipping, setup and the windower read, decoded once per draw
//! from the latest 3DSTATE_* commands into one generation-neutral
//! [`RasterState`]: [`gen6`] from the Sandy Bridge layouts (003 Volume 2),
//! [`gen7`] from the Ivy Bridge ones (hal `gen7` tables, Mesa gen7.xml),
//! each with the indirect state it points at (viewports, scissors:
//! Dynamic State Base relative, 003 seed digest §2.4). The helpers both
//! share live here, once.

mod gen6;
mod gen7;

use alloc::vec::Vec;

use baregpu_hal::Generation;
use baregpu_hal::gen6::commands::{Cmd3dstatePolyStippleOffset, Cmd3dstatePolyStipplePattern};
use baregpu_hal::gen6::structs::ScissorRect;
use baregpu_hal::packet::Packet;

use super::stipple::LineStipple;
use crate::render3d::types::{DrawEnv, DrawError};

/// 3DSTATE_CLIP Clip Mode (003 lines 35477-35825; 1, 2, 5-7 reserved).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ClipMode {
    Normal,
    RejectAll,
    AcceptAll,
}

/// 3DSTATE_CLIP.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Clip {
    pub enable: bool,
    pub statistics: bool,
    /// APIMODE_D3D: z in [0, 1]; OGL: z in [-1, 1] (the VertexClipTest
    /// pseudo-code, 003 lines 36203-36211; the field table has them swapped).
    pub d3d: bool,
    pub viewport_xy: bool,
    pub viewport_z: bool,
    pub guardband: bool,
    pub ucd_clip: u8,
    pub ucd_cull: u8,
    pub mode: ClipMode,
    pub perspective_divide_disable: bool,
    /// Non-Perspective Barycentric Enable: clipped objects keep their
    /// non-perspective interpolation.
    pub non_perspective: bool,
    /// U8.3 pixels, as floats.
    pub min_point_width: f32,
    pub max_point_width: f32,
    pub force_zero_rta: bool,
    pub max_vp_index: u32,
}

/// Front/back fill mode (3DSTATE_SF DW2 6:5, 4:3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fill {
    Solid,
    Wireframe,
    Point,
}

/// Cull Mode (3DSTATE_SF DW3 30:29; 0 is BOTH, 003 lines 38610-38635).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cull {
    Both,
    None,
    Front,
    Back,
}

/// One 16-bit attribute control of 3DSTATE_SF DW8-15 (003 lines
/// 38908-39263): overrides W/Z/Y/X in 15:12, constant source 10:9, swizzle
/// select 7:6, source attribute 4:0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct AttrControl {
    pub override_mask: u8,
    pub constant: u8,
    pub swizzle: u8,
    pub source: u8,
}

impl AttrControl {
    pub fn from_bits(b: u16) -> Self {
        AttrControl {
            // bit 12 X .. bit 15 W: component c is bit c of the mask.
            override_mask: ((b >> 12) & 0xf) as u8,
            constant: ((b >> 9) & 3) as u8,
            swizzle: ((b >> 6) & 3) as u8,
            source: (b & 0x1f) as u8,
        }
    }
}

/// 3DSTATE_SF (on Gen7 with the attribute fields of 3DSTATE_SBE).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Sf {
    /// Output attributes (after the 33-48 encoding is undone).
    pub outputs: u32,
    /// Swizzle controls apply to outputs 16-31 instead of 0-15.
    pub swizzle_high: bool,
    pub swizzle_enable: bool,
    /// Point sprite origin LOWERLEFT.
    pub sprite_lower_left: bool,
    /// Vertex URB Entry Read Length/Offset, 256-bit units.
    pub read_length: u32,
    pub read_offset: u32,
    pub depth_offset: [bool; 3],
    pub legacy_depth_bias: bool,
    pub statistics: bool,
    pub front_fill: Fill,
    pub back_fill: Fill,
    pub viewport_transform: bool,
    /// FRONTWINDING_CCW.
    pub front_ccw: bool,
    pub antialias: bool,
    pub cull: Cull,
    /// U3.7 pixels.
    pub line_width: f32,
    pub scissor: bool,
    pub last_pixel: bool,
    pub pv_tri: u32,
    pub pv_line: u32,
    pub pv_fan: u32,
    /// Fractional bits of the vertex snap (8 or 4).
    pub subpixel_bits: u32,
    pub point_width_from_state: bool,
    pub point_width: f32,
    pub depth_offset_constant: f32,
    pub depth_offset_scale: f32,
    pub depth_offset_clamp: f32,
    pub controls: [AttrControl; 16],
    pub sprite_enable: u32,
    pub flat: u32,
    pub wrap_shortest: u64,
    pub ms_raster_mode: u32,
    /// Line End Cap Antialiasing Region Width, pixels: where the SF puts an
    /// anti-aliased line's cap edges.
    pub aa_cap_region: f32,
    /// AA Line Distance Mode AALINEDISTANCE_TRUE (0 is reserved).
    pub aa_true_distance: bool,
}

/// 3DSTATE_WM (on Gen7 with the dispatch fields of 3DSTATE_PS).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Wm {
    /// KSP[0..2], Instruction Base relative.
    pub ksp: [u32; 3],
    pub grf_start: [u32; 3],
    /// cr0.0 and cr0.1 as the dispatcher loads them.
    pub cr0: [u32; 2],
    pub scratch_base: u32,
    pub scratch_code: u8,
    pub statistics: bool,
    pub computed_depth: bool,
    pub uses_source_depth: bool,
    pub dispatch: bool,
    pub polygon_stipple: bool,
    pub line_stipple: bool,
    pub omask: bool,
    pub uses_source_w: bool,
    pub enable8: bool,
    pub enable16: bool,
    pub enable32: bool,
    /// The setup data (attribute deltas) follow the push constants in the
    /// payload: always on Gen6, 3DSTATE_PS Attribute Enable on Gen7.
    pub attributes: bool,
    /// Gen7 3DSTATE_WM Pixel Shader Uses Input Coverage Mask: the payload
    /// carries each pixel's covered samples.
    pub input_coverage_mask: bool,
    pub position_offset: u32,
    pub barycentric_modes: u32,
    /// Multisample Dispatch Mode MSDISPMODE_PERPIXEL (0 is PERSAMPLE, also
    /// the normal 1X setting).
    pub ms_per_pixel: bool,
    /// RASTRULE_UPPER_RIGHT.
    pub point_upper_right: bool,
    pub ms_raster_mode: u32,
    pub legacy_diamond_lines: bool,
    /// Line Antialiasing Region Width and the WM's copy of Line End Cap
    /// Antialiasing Region Width, pixels: the coverage ramps.
    pub aa_region: f32,
    pub aa_cap_region: f32,
}

/// 3DSTATE_DRAWING_RECTANGLE: the clipped rectangle (inclusive) and origin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct DrawRect {
    pub xmin: i32,
    pub ymin: i32,
    pub xmax: i32,
    pub ymax: i32,
    pub origin_x: i32,
    pub origin_y: i32,
}

/// The viewport arrays of a generation (Dynamic State Base relative).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Viewports {
    /// SNB: separate CLIP_VIEWPORT and SF_VIEWPORT arrays.
    Gen6 { clip: u32, sf: u32 },
    /// IVB: one SF_CLIP_VIEWPORT array with the guardband inside.
    Gen7 { sf_clip: u32 },
}

/// Everything the raster stages read for one draw.
#[derive(Clone, Debug)]
pub(crate) struct RasterState {
    pub clip: Clip,
    pub sf: Sf,
    pub wm: Wm,
    pub rect: DrawRect,
    /// 3DSTATE_MULTISAMPLE Pixel Location UL_CORNER (samples at the pixel
    /// corner instead of its centre).
    pub ul_corner: bool,
    pub ms: Multisample,
    pub sample_mask: u32,
    pub stipple: Option<([u32; 32], u32, u32)>,
    /// 3DSTATE_LINE_STIPPLE when 3DSTATE_WM Line Stipple Enable is set.
    pub line_stipple: Option<LineStipple>,
    /// 3DSTATE_AA_LINE_PARAMS asks for the "improved" coverage (a slope
    /// other than 0; 0 is the legacy computation, 003 lines 41179-41189).
    pub aa_improved: bool,
    /// Where the viewports are (Dynamic State relative).
    pub viewports: Viewports,
    /// Dynamic-State-relative pointers.
    pub scissor: u32,
    pub cc_state: u32,
    pub ps_binding_table: u32,
    pub ps_samplers: u32,
    /// The PS push constants the payload carries, whole registers.
    pub constants: Vec<u8>,
    pub dynamic_base: u64,
    /// The depth buffer's Surface Format (for the depth offset's units):
    /// 3DSTATE_DEPTH_BUFFER's on Gen6, 3DSTATE_SF's copy on Gen7.
    pub depth_format: u32,
}

/// Where the front end keeps the push constants 3DSTATE_CONSTANT_PS loaded
/// (`front::state::pcb_name`): dwords, buffer 0 first.
pub(crate) const PCB_PS: &str = "PCB_PS";

impl RasterState {
    /// Decodes the state of the current draw in its generation's layouts.
    /// 3DSTATE_SF and 3DSTATE_WM (and on Gen7 3DSTATE_SBE and 3DSTATE_PS)
    /// must have been sent; the rest defaults to its reset value (zero).
    pub fn decode(env: &DrawEnv<'_>) -> Result<RasterState, DrawError> {
        match env.generation {
            Generation::Gen6 => gen6::raster_state(env),
            Generation::Gen7 => gen7::raster_state(env),
            _ => Err(DrawError::Unmodelled(
                "3D clipping, setup and rasterisation on this generation",
            )),
        }
    }
}

fn get<'a>(env: &'a DrawEnv<'_>, name: &'static str) -> Option<&'a [u32]> {
    env.packets.get(name)
}

/// The latest `P` command, typed; `what` names it when it does not decode.
fn packet<P: Packet>(env: &DrawEnv<'_>, what: &'static str) -> Result<Option<P>, DrawError> {
    match get(env, P::NAME) {
        None => Ok(None),
        Some(dw) => P::unpack(dw)
            .map(Some)
            .map_err(|_| DrawError::Invalid(what)),
    }
}

/// A command that must have been sent before 3DPRIMITIVE.
fn required<'e, P: Packet>(
    env: &'e DrawEnv<'_>,
    missing: &'static str,
    bad: &'static str,
) -> Result<(P, &'e [u32]), DrawError> {
    let dw = get(env, P::NAME).ok_or(DrawError::Invalid(missing))?;
    Ok((P::unpack(dw).map_err(|_| DrawError::Invalid(bad))?, dw))
}

/// Fill Mode (3DSTATE_SF; the same encoding on Gen6 and Gen7).
fn fill(v: u32) -> Result<Fill, DrawError> {
    match v {
        0 => Ok(Fill::Solid),
        1 => Ok(Fill::Wireframe),
        2 => Ok(Fill::Point),
        _ => Err(DrawError::Invalid("3DSTATE_SF fill mode 3 is reserved")),
    }
}

/// Cull Mode (3DSTATE_SF, Gen7 also 3DSTATE_CLIP; 0 is BOTH).
fn cull(v: u32) -> Cull {
    match v & 3 {
        0 => Cull::Both,
        1 => Cull::None,
        2 => Cull::Front,
        _ => Cull::Back,
    }
}

/// Clip Mode (003 lines 35477-35825; 1, 2, 5-7 reserved; Gen7 the same
/// values, Mesa gen7.xml 3DSTATE_CLIP).
fn clip_mode(v: u32) -> Result<ClipMode, DrawError> {
    match v {
        0 => Ok(ClipMode::Normal),
        3 => Ok(ClipMode::RejectAll),
        4 => Ok(ClipMode::AcceptAll),
        _ => Err(DrawError::Invalid("3DSTATE_CLIP Clip Mode is reserved")),
    }
}

/// U8.3 / U3.7 fixed point to float.
fn ufixed(v: u32, frac: u32) -> f32 {
    v as f32 / (1u32 << frac) as f32
}

/// Vertex sub-pixel precision: 8 fractional bits, 4 with the select set.
fn subpixel_bits(select: u32) -> u32 {
    if select == 1 { 4 } else { 8 }
}

/// The 16 attribute controls from the 8 dwords that hold them (the even
/// attribute in 15:0, the odd one in 31:16): SNB 3DSTATE_SF DW8-15, IVB
/// 3DSTATE_SBE DW2-9.
fn attr_controls(dw: &[u32]) -> [AttrControl; 16] {
    let mut controls = [AttrControl::default(); 16];
    for (i, ctl) in controls.iter_mut().enumerate() {
        let w = dw.get(i / 2).copied().unwrap_or(0);
        *ctl = AttrControl::from_bits((w >> (16 * (i % 2))) as u16);
    }
    controls
}

/// The WrapShortest enables of attributes 0-15 (4 bits each, attribute 0
/// lowest) from their two dwords: SNB 3DSTATE_SF DW18-19, IVB 3DSTATE_SBE
/// DW12-13.
fn wrap_shortest(dw: &[u32]) -> u64 {
    u64::from(dw.first().copied().unwrap_or(0)) | u64::from(dw.get(1).copied().unwrap_or(0)) << 32
}

/// cr0.0 (floating-point mode bit 0, single program flow bit 2) and cr0.1
/// (exception enables), the layout the media descriptors load
/// (`gpe::cr0`; 003 lines 90570-90640).
fn cr0(alt: bool, spf: bool, illegal: bool, mask_stack: bool, software: bool) -> [u32; 2] {
    [
        u32::from(alt) | u32::from(spf) << 2,
        u32::from(illegal) << 12 | u32::from(mask_stack) << 11 | u32::from(software) << 13,
    ]
}

/// 3DSTATE_MULTISAMPLE as the raster stages use it (003 lines 41937-42163;
/// Gen7's adds 8X and the offsets of samples 4-7 in DW3, Mesa
/// src/intel/genxml/gen7.xml 3DSTATE_MULTISAMPLE).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Multisample {
    /// Samples per pixel: 1, 4 or (Gen7) 8.
    pub samples: u8,
    /// Sample `k`'s X and Y offset from the pixel's upper-left corner in
    /// 16ths (U0.4): DW2 holds samples 0-3, DW3 samples 4-7, a byte each,
    /// X in the high nibble.
    pub offsets: [(u8, u8); 8],
}

/// Decodes 3DSTATE_MULTISAMPLE's raw dwords (`None`: not sent, one
/// sample). Number of Multisamples is log2 of the count: 0 and 2 on SNB,
/// 3 (8X) on IVB too; the others are reserved.
pub(crate) fn multisample(raw: Option<&[u32]>, eight: bool) -> Result<Multisample, DrawError> {
    let Some(dw) = raw else {
        return Ok(Multisample {
            samples: 1,
            ..Default::default()
        });
    };
    let samples = match (dw.get(1).copied().unwrap_or(0) >> 1 & 7, eight) {
        (0, _) => 1,
        (2, _) => 4,
        (3, true) => 8,
        _ => {
            return Err(DrawError::Invalid(
                "3DSTATE_MULTISAMPLE: reserved Number of Multisamples",
            ));
        }
    };
    let mut offsets = [(0u8, 0u8); 8];
    for (k, o) in offsets.iter_mut().enumerate() {
        let b = dw.get(2 + k / 4).copied().unwrap_or(0) >> (8 * (k % 4));
        *o = ((b >> 4 & 0xf) as u8, (b & 0xf) as u8);
    }
    Ok(Multisample { samples, offsets })
}

/// The polygon stipple pattern and offset when 3DSTATE_WM enables it.
/// Gen7 inherits both commands from Gen6 unchanged (hal/tables/gen7 does
/// not redefine them; Mesa gen7.xml has the same layouts).
fn stipple(env: &DrawEnv<'_>, enabled: bool) -> Result<Option<([u32; 32], u32, u32)>, DrawError> {
    if !enabled {
        return Ok(None);
    }
    // Checked through the typed packet, read as its 32 row dwords.
    packet::<Cmd3dstatePolyStipplePattern>(env, "3DSTATE_POLY_STIPPLE_PATTERN does not decode")?;
    let raw = get(env, Cmd3dstatePolyStipplePattern::NAME).unwrap_or(&[]);
    let mut rows = [0u32; 32];
    for (i, r) in rows.iter_mut().enumerate() {
        *r = raw.get(1 + i).copied().unwrap_or(0);
    }
    let o: Cmd3dstatePolyStippleOffset =
        packet(env, "3DSTATE_POLY_STIPPLE_OFFSET does not decode")?.unwrap_or_default();
    Ok(Some((
        rows,
        o.polygon_stipple_x_offset,
        o.polygon_stipple_y_offset,
    )))
}

/// The line stipple from 3DSTATE_LINE_STIPPLE's Line Stipple Pattern and
/// Repeat Count (DW1 15:0, DW2 8:0 on SNB, 003 lines 41362-41398, and on
/// IVB, Mesa gen7.xml). The Inverse Repeat Count (SNB U1.13 31:16, IVB
/// U1.16 31:15) is software's 1/r, truncated (Mesa i965
/// brw_misc_state.c upload_line_stipple): the counter form of the rule
/// needs only r, so it is not read. A missing command is its reset value,
/// repeat 0, outside the field's range [1, 256]: refused when a line
/// meets it (`stipple::apply`), as a draw without lines never reads it.
fn line_stipple(enabled: bool, pattern_repeat: Option<(u32, u32)>) -> Option<LineStipple> {
    let (pattern, repeat) = pattern_repeat.unwrap_or((0, 0));
    enabled.then_some(LineStipple {
        pattern: pattern as u16,
        repeat,
    })
}

/// The AA region width encodings (003 lines 38673-38690, 40253-40290;
/// the same on Gen7, Mesa gen7.xml): 0.5, 1, 2, 4 pixels.
fn aa_width(v: u32) -> f32 {
    0.5 * (1u32 << (v & 3)) as f32
}

/// The push constants kept under [`PCB_PS`] as whole registers, when
/// 3DSTATE_CONSTANT_PS loaded some (`loaded`).
fn push_constants(env: &DrawEnv<'_>, loaded: bool) -> Result<Vec<u8>, DrawError> {
    let mut constants = Vec::new();
    match get(env, PCB_PS) {
        Some(dw) => {
            for d in dw {
                constants.extend_from_slice(&d.to_le_bytes());
            }
            constants.resize(constants.len().div_ceil(32) * 32, 0);
        }
        None if loaded => {
            return Err(DrawError::Invalid(
                "3DSTATE_CONSTANT_PS without the push constants it loaded",
            ));
        }
        None => {}
    }
    Ok(constants)
}

fn read_dwords(env: &mut DrawEnv<'_>, addr: u64, out: &mut [u32]) -> Result<(), DrawError> {
    let mut buf = [0u8; 64];
    let bytes = &mut buf[..out.len() * 4];
    env.memory.read(addr, bytes)?;
    for (i, d) in out.iter_mut().enumerate() {
        *d = u32::from_le_bytes([
            bytes[4 * i],
            bytes[4 * i + 1],
            bytes[4 * i + 2],
            bytes[4 * i + 3],
        ]);
    }
    Ok(())
}

/// The viewport transform of VPIndex `index`: m00, m11, m22, m30, m31, m32.
pub(crate) fn sf_viewport(
    env: &mut DrawEnv<'_>,
    st: &RasterState,
    index: u32,
) -> Result<[f32; 6], DrawError> {
    match st.viewports {
        Viewports::Gen6 { sf, .. } => gen6::sf_viewport(env, st.dynamic_base, sf, index),
        Viewports::Gen7 { sf_clip } => {
            gen7::sf_clip_viewport(env, st.dynamic_base, sf_clip, index).map(|v| v.0)
        }
    }
}

/// The guardband of VPIndex `index` in NDC: x min/max, y min/max.
pub(crate) fn clip_viewport(
    env: &mut DrawEnv<'_>,
    st: &RasterState,
    index: u32,
) -> Result<[f32; 4], DrawError> {
    match st.viewports {
        Viewports::Gen6 { clip, .. } => gen6::clip_viewport(env, st.dynamic_base, clip, index),
        Viewports::Gen7 { sf_clip } => {
            gen7::sf_clip_viewport(env, st.dynamic_base, sf_clip, index).map(|v| v.1)
        }
    }
}

/// SCISSOR_RECT[index] as (xmin, ymin, xmax, ymax), inclusive, relative to
/// the drawing-rectangle origin (stride 2 dwords, 003 lines 39476-39548;
/// Gen7 inherits the structure, Mesa gen7.xml SCISSOR_RECT).
pub(crate) fn scissor_rect(
    env: &mut DrawEnv<'_>,
    st: &RasterState,
    index: u32,
) -> Result<[i32; 4], DrawError> {
    let mut dw = [0u32; 2];
    let addr = st
        .dynamic_base
        .wrapping_add(u64::from(st.scissor))
        .wrapping_add(8 * u64::from(index));
    read_dwords(env, addr, &mut dw)?;
    let v =
        ScissorRect::unpack(&dw).map_err(|_| DrawError::Invalid("SCISSOR_RECT does not decode"))?;
    Ok([
        v.scissor_rectangle_x_min as i32,
        v.scissor_rectangle_y_min as i32,
        v.scissor_rectangle_x_max as i32,
        v.scissor_rectangle_y_max as i32,
    ])
}

/// Subpixel units per pixel and the sample's offset into its pixel.
pub(crate) fn sample_grid(st: &RasterState) -> (i64, i64) {
    let one = 1i64 << st.sf.subpixel_bits;
    // PIXLOC_CENTER samples at the pixel centre, UL_CORNER at its corner
    // (003 lines 41992-42005).
    (one, if st.ul_corner { 0 } else { one / 2 })
}
