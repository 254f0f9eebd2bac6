//! The state clipping, setup and the windower read, decoded once per draw
//! from the latest 3DSTATE_* commands (SNB, 003 Volume 2) with the hal's
//! typed packets, and the indirect state they point at (viewports,
//! scissors: Dynamic State Base relative, 003 seed digest §2.4).

use alloc::vec::Vec;

use baregpu_hal::gen6::commands::{
    Cmd3dstateBindingTablePointers, Cmd3dstateCcStatePointers, Cmd3dstateClip,
    Cmd3dstateConstantPs, Cmd3dstateDepthBuffer, Cmd3dstateDrawingRectangle, Cmd3dstateMultisample,
    Cmd3dstatePolyStippleOffset, Cmd3dstatePolyStipplePattern, Cmd3dstateSampleMask,
    Cmd3dstateSamplerStatePointers, Cmd3dstateScissorStatePointers, Cmd3dstateSf,
    Cmd3dstateViewportStatePointers, Cmd3dstateWm,
};
use baregpu_hal::gen6::structs::{ClipViewport, ScissorRect, SfViewport};
use baregpu_hal::packet::Packet;

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

/// 3DSTATE_SF.
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
}

/// 3DSTATE_WM.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Wm {
    /// KSP[0..2], Instruction Base relative.
    pub ksp: [u32; 3],
    pub grf_start: [u32; 3],
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
    pub outputs: u32,
    pub position_offset: u32,
    pub barycentric_modes: u32,
    /// RASTRULE_UPPER_RIGHT.
    pub point_upper_right: bool,
    pub ms_raster_mode: u32,
    pub legacy_diamond_lines: bool,
    pub depth_clear_or_resolve: bool,
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
    pub sample_mask: u32,
    pub stipple: Option<([u32; 32], u32, u32)>,
    /// Dynamic-State-relative pointers.
    pub clip_viewport: u32,
    pub sf_viewport: u32,
    pub scissor: u32,
    pub cc_state: u32,
    pub ps_binding_table: u32,
    pub ps_samplers: u32,
    /// The PS push constants, whole registers.
    pub constants: Vec<u8>,
    pub dynamic_base: u64,
    /// 3DSTATE_DEPTH_BUFFER Surface Format (for the depth offset's units).
    pub depth_format: u32,
}

/// Where the front end keeps the push constants of 3DSTATE_CONSTANT_PS.
pub(crate) const PCB_PS: &str = "PCB_PS";

fn get<'a>(env: &'a DrawEnv<'_>, name: &'static str) -> Option<&'a [u32]> {
    env.packets.get(name)
}

fn decode<P: Packet>(env: &DrawEnv<'_>, what: &'static str) -> Result<Option<P>, DrawError> {
    match get(env, P::NAME) {
        None => Ok(None),
        Some(dw) => P::unpack(dw)
            .map(Some)
            .map_err(|_| DrawError::Invalid(what)),
    }
}

fn fill(v: u32) -> Result<Fill, DrawError> {
    match v {
        0 => Ok(Fill::Solid),
        1 => Ok(Fill::Wireframe),
        2 => Ok(Fill::Point),
        _ => Err(DrawError::Invalid("3DSTATE_SF fill mode 3 is reserved")),
    }
}

/// U8.3 / U3.7 fixed point to float.
fn ufixed(v: u32, frac: u32) -> f32 {
    v as f32 / (1u32 << frac) as f32
}

impl RasterState {
    /// Decodes the state of the current draw. 3DSTATE_SF and 3DSTATE_WM
    /// must have been sent; the rest defaults to its reset value (zero).
    pub fn decode(env: &DrawEnv<'_>) -> Result<RasterState, DrawError> {
        let c: Cmd3dstateClip = decode(env, "3DSTATE_CLIP does not decode")?.unwrap_or_default();
        let mode = match c.clip_mode {
            0 => ClipMode::Normal,
            3 => ClipMode::RejectAll,
            4 => ClipMode::AcceptAll,
            _ => return Err(DrawError::Invalid("3DSTATE_CLIP Clip Mode is reserved")),
        };
        let clip = Clip {
            enable: c.clip_enable,
            statistics: c.clipper_statistics_enable,
            d3d: c.api_mode == 1,
            viewport_xy: c.viewport_xy_cliptest_enable,
            viewport_z: c.viewport_z_cliptest_enable,
            guardband: c.guardband_cliptest_enable,
            ucd_clip: c.user_clip_distance_clip_test_enable_bitmask as u8,
            ucd_cull: c.user_clip_distance_cull_test_enable_bitmask as u8,
            mode,
            perspective_divide_disable: c.perspective_divide_disable,
            non_perspective: c.non_perspective_barycentric_enable,
            min_point_width: ufixed(c.minimum_point_width, 3),
            max_point_width: ufixed(c.maximum_point_width, 3),
            force_zero_rta: c.force_zero_rtaindex_enable,
            max_vp_index: c.maximum_vpindex,
        };

        let sf_dw = get(env, Cmd3dstateSf::NAME)
            .ok_or(DrawError::Invalid("3DPRIMITIVE without 3DSTATE_SF"))?;
        let s = Cmd3dstateSf::unpack(sf_dw)
            .map_err(|_| DrawError::Invalid("3DSTATE_SF does not decode"))?;
        // 0-32 attributes, or 33-48 meaning value-16 attributes with the
        // swizzle controls applied to attributes 16-31 (003 lines 38229-38300).
        let (outputs, swizzle_high) = match s.number_of_sf_output_attributes {
            n @ 0..=32 => (n, false),
            n @ 33..=48 => (n - 16, true),
            _ => {
                return Err(DrawError::Invalid(
                    "3DSTATE_SF Number of SF Output Attributes above 48",
                ));
            }
        };
        if s.vertex_urb_entry_read_length == 0 {
            // "never 0" (003 lines 38390-38403).
            return Err(DrawError::Invalid(
                "3DSTATE_SF Vertex URB Entry Read Length is 0",
            ));
        }
        let mut controls = [AttrControl::default(); 16];
        for (i, ctl) in controls.iter_mut().enumerate() {
            // DW8-15: the even attribute in 15:0, the odd one in 31:16.
            let w = sf_dw.get(8 + i / 2).copied().unwrap_or(0);
            *ctl = AttrControl::from_bits((w >> (16 * (i % 2))) as u16);
        }
        let wrap_shortest = u64::from(sf_dw.get(18).copied().unwrap_or(0))
            | u64::from(sf_dw.get(19).copied().unwrap_or(0)) << 32;
        let sf = Sf {
            outputs,
            swizzle_high,
            swizzle_enable: s.attribute_swizzle_enable,
            sprite_lower_left: s.point_sprite_texture_coordinate_origin == 1,
            read_length: s.vertex_urb_entry_read_length,
            read_offset: s.vertex_urb_entry_read_offset,
            depth_offset: [
                s.global_depth_offset_enable_solid,
                s.global_depth_offset_enable_wireframe,
                s.global_depth_offset_enable_point,
            ],
            legacy_depth_bias: s.legacy_global_depth_bias_enable,
            statistics: s.statistics_enable,
            front_fill: fill(s.frontface_fill_mode)?,
            back_fill: fill(s.backface_fill_mode)?,
            viewport_transform: s.viewport_transform_enable,
            front_ccw: s.front_winding == 1,
            antialias: s.anti_aliasing_enable,
            cull: match s.cull_mode {
                0 => Cull::Both,
                1 => Cull::None,
                2 => Cull::Front,
                _ => Cull::Back,
            },
            line_width: ufixed(s.line_width, 7),
            scissor: s.scissor_rectangle_enable,
            last_pixel: s.last_pixel_enable,
            pv_tri: s.triangle_strip_list_provoking_vertex_select,
            pv_line: s.line_strip_list_provoking_vertex_select,
            pv_fan: s.triangle_fan_provoking_vertex_select,
            subpixel_bits: if s.vertex_sub_pixel_precision_select == 1 {
                4
            } else {
                8
            },
            point_width_from_state: s.use_point_width_state == 1,
            point_width: ufixed(s.point_width, 3),
            depth_offset_constant: s.global_depth_offset_constant,
            depth_offset_scale: s.global_depth_offset_scale,
            depth_offset_clamp: s.global_depth_offset_clamp,
            controls,
            sprite_enable: s.point_sprite_texture_coordinate_enable,
            flat: s.constant_interpolation_enable,
            wrap_shortest,
            ms_raster_mode: s.multisample_rasterization_mode,
        };

        let w: Cmd3dstateWm = decode(env, "3DSTATE_WM does not decode")?
            .ok_or(DrawError::Invalid("3DPRIMITIVE without 3DSTATE_WM"))?;
        let wm = Wm {
            ksp: [
                w.kernel_start_pointer_0,
                w.kernel_start_pointer_1,
                w.kernel_start_pointer_2,
            ],
            grf_start: [
                w.dispatch_grf_start_register_for_constant_setup_data_0,
                w.dispatch_grf_start_register_for_constant_setup_data_1,
                w.dispatch_grf_start_register_for_constant_setup_data_2,
            ],
            // cr0.0: floating-point mode bit 0, single program flow bit 2;
            // cr0.1: exception enables (the layout the media descriptors
            // load, `media::descriptor::cr0`; 003 lines 90570-90640).
            cr0: [
                (w.floating_point_mode & 1) | (w.single_program_flow & 1) << 2,
                u32::from(w.illegal_opcode_exception_enable) << 12
                    | u32::from(w.maskstack_exception_enable) << 11
                    | u32::from(w.software_exception_enable) << 13,
            ],
            scratch_base: w.scratch_space_base_pointer,
            scratch_code: w.per_thread_scratch_space as u8,
            statistics: w.statistics_enable,
            computed_depth: w.pixel_shader_computed_depth,
            uses_source_depth: w.pixel_shader_uses_source_depth,
            dispatch: w.thread_dispatch_enable,
            polygon_stipple: w.polygon_stipple_enable,
            line_stipple: w.line_stipple_enable,
            omask: w.omask_present_to_rendertarget,
            uses_source_w: w.pixel_shader_uses_source_w,
            enable8: w.pixel_dispatch_enable_8,
            enable16: w.pixel_dispatch_enable_16,
            enable32: w.pixel_dispatch_enable_32,
            outputs: w.number_of_sf_output_attributes,
            position_offset: w.position_xy_offset_select,
            barycentric_modes: w.barycentric_interpolation_mode,
            point_upper_right: w.point_rasterization_rule == 1,
            ms_raster_mode: w.multisample_rasterization_mode,
            legacy_diamond_lines: w.legacy_diamond_line_rasterization,
            depth_clear_or_resolve: w.depth_buffer_clear
                || w.depth_buffer_resolve_enable
                || w.hierarchical_depth_buffer_resolve_enable,
        };

        let r: Cmd3dstateDrawingRectangle =
            decode(env, "3DSTATE_DRAWING_RECTANGLE does not decode")?.unwrap_or_default();
        let rect = DrawRect {
            xmin: r.clipped_drawing_rectangle_x_min as i32,
            ymin: r.clipped_drawing_rectangle_y_min as i32,
            xmax: r.clipped_drawing_rectangle_x_max as i32,
            ymax: r.clipped_drawing_rectangle_y_max as i32,
            origin_x: r.drawing_rectangle_origin_x,
            origin_y: r.drawing_rectangle_origin_y,
        };

        let ms: Cmd3dstateMultisample =
            decode(env, "3DSTATE_MULTISAMPLE does not decode")?.unwrap_or_default();
        if ms.number_of_multisamples != 0 {
            return Err(DrawError::Unmodelled(
                "multisampled rasterisation (NUMSAMPLES_4)",
            ));
        }
        // Without 3DSTATE_SAMPLE_MASK the one sample is enabled (a model
        // choice: the reset value is not given).
        let sample_mask = match decode::<Cmd3dstateSampleMask>(env, "3DSTATE_SAMPLE_MASK")? {
            Some(m) => m.sample_mask,
            None => 1,
        };
        let stipple = if wm.polygon_stipple {
            // Checked through the typed packet, read as its 32 row dwords.
            decode::<Cmd3dstatePolyStipplePattern>(
                env,
                "3DSTATE_POLY_STIPPLE_PATTERN does not decode",
            )?;
            let raw = get(env, Cmd3dstatePolyStipplePattern::NAME).unwrap_or(&[]);
            let mut rows = [0u32; 32];
            for (i, r) in rows.iter_mut().enumerate() {
                *r = raw.get(1 + i).copied().unwrap_or(0);
            }
            let o: Cmd3dstatePolyStippleOffset =
                decode(env, "3DSTATE_POLY_STIPPLE_OFFSET does not decode")?.unwrap_or_default();
            Some((rows, o.polygon_stipple_x_offset, o.polygon_stipple_y_offset))
        } else {
            None
        };

        let vp: Cmd3dstateViewportStatePointers =
            decode(env, "3DSTATE_VIEWPORT_STATE_POINTERS does not decode")?.unwrap_or_default();
        let sc: Cmd3dstateScissorStatePointers =
            decode(env, "3DSTATE_SCISSOR_STATE_POINTERS does not decode")?.unwrap_or_default();
        let cc: Cmd3dstateCcStatePointers =
            decode(env, "3DSTATE_CC_STATE_POINTERS does not decode")?.unwrap_or_default();
        let bt: Cmd3dstateBindingTablePointers =
            decode(env, "3DSTATE_BINDING_TABLE_POINTERS does not decode")?.unwrap_or_default();
        let sp: Cmd3dstateSamplerStatePointers =
            decode(env, "3DSTATE_SAMPLER_STATE_POINTERS does not decode")?.unwrap_or_default();

        // The push constants 3DSTATE_CONSTANT_PS loaded when it executed
        // (003 lines 40780-40999): the front end keeps them as dwords
        // under PCB_PS (`front::state::pcb_name`), whole registers.
        let mut constants = Vec::new();
        let loaded = decode::<Cmd3dstateConstantPs>(env, "3DSTATE_CONSTANT_PS does not decode")?
            .is_some_and(|k| {
                k.buffer_0_valid || k.buffer_1_valid || k.buffer_2_valid || k.buffer_3_valid
            });
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

        Ok(RasterState {
            clip,
            sf,
            wm,
            rect,
            ul_corner: ms.pixel_location == 1,
            sample_mask,
            stipple,
            clip_viewport: vp.pointer_to_clip_viewport,
            sf_viewport: vp.pointer_to_sf_viewport,
            scissor: sc.pointer_to_scissor_rect,
            cc_state: cc.pointer_to_color_calc_state,
            ps_binding_table: bt.pointer_to_ps_binding_table,
            ps_samplers: sp.pointer_to_ps_sampler_state,
            constants,
            dynamic_base: env.bases.dynamic,
            depth_format: decode::<Cmd3dstateDepthBuffer>(
                env,
                "3DSTATE_DEPTH_BUFFER does not decode",
            )?
            .map_or(1, |d| d.surface_format),
        })
    }
}

fn read_dwords(env: &mut DrawEnv<'_>, addr: u64, out: &mut [u32]) -> Result<(), DrawError> {
    let mut buf = [0u8; 32];
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

/// SF_VIEWPORT[index]: m00, m11, m22, m30, m31, m32 (stride 8 dwords,
/// 003 lines 39431-39475).
pub(crate) fn sf_viewport(
    env: &mut DrawEnv<'_>,
    st: &RasterState,
    index: u32,
) -> Result<[f32; 6], DrawError> {
    let mut dw = [0u32; 8];
    let addr = st
        .dynamic_base
        .wrapping_add(u64::from(st.sf_viewport))
        .wrapping_add(32 * u64::from(index));
    read_dwords(env, addr, &mut dw)?;
    let v =
        SfViewport::unpack(&dw).map_err(|_| DrawError::Invalid("SF_VIEWPORT does not decode"))?;
    Ok([
        v.viewport_matrix_element_m00,
        v.viewport_matrix_element_m11,
        v.viewport_matrix_element_m22,
        v.viewport_matrix_element_m30,
        v.viewport_matrix_element_m31,
        v.viewport_matrix_element_m32,
    ])
}

/// CLIP_VIEWPORT[index]: the guardband x min/max, y min/max in NDC
/// (stride 4 dwords, 003 lines 35826-35909).
pub(crate) fn clip_viewport(
    env: &mut DrawEnv<'_>,
    st: &RasterState,
    index: u32,
) -> Result<[f32; 4], DrawError> {
    let mut dw = [0u32; 4];
    let addr = st
        .dynamic_base
        .wrapping_add(u64::from(st.clip_viewport))
        .wrapping_add(16 * u64::from(index));
    read_dwords(env, addr, &mut dw)?;
    let v = ClipViewport::unpack(&dw)
        .map_err(|_| DrawError::Invalid("CLIP_VIEWPORT does not decode"))?;
    Ok([
        v.xmin_clip_guardband,
        v.xmax_clip_guardband,
        v.ymin_clip_guardband,
        v.ymax_clip_guardband,
    ])
}

/// SCISSOR_RECT[index] as (xmin, ymin, xmax, ymax), inclusive, relative to
/// the drawing-rectangle origin (stride 2 dwords, 003 lines 39476-39548).
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
