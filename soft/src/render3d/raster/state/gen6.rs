//! Sandy Bridge: the raster state from the Gen6 3DSTATE_* layouts (003
//! Volume 2) and the separate SF_VIEWPORT and CLIP_VIEWPORT arrays.

use baregpu_hal::gen6::commands::{
    Cmd3dstateAaLineParams, Cmd3dstateBindingTablePointers, Cmd3dstateCcStatePointers,
    Cmd3dstateClip, Cmd3dstateConstantPs, Cmd3dstateDepthBuffer, Cmd3dstateDrawingRectangle,
    Cmd3dstateLineStipple, Cmd3dstateMultisample, Cmd3dstateSampleMask,
    Cmd3dstateSamplerStatePointers, Cmd3dstateScissorStatePointers, Cmd3dstateSf,
    Cmd3dstateViewportStatePointers, Cmd3dstateWm,
};
use baregpu_hal::gen6::structs::{ClipViewport, SfViewport};
use baregpu_hal::packet::Packet;

use super::{
    Clip, DrawRect, RasterState, Sf, Viewports, Wm, aa_width, attr_controls, clip_mode, cr0, cull,
    fill, get, line_stipple, multisample, packet, push_constants, read_dwords, required, stipple,
    subpixel_bits, ufixed, wrap_shortest,
};
use crate::render3d::types::{DrawEnv, DrawError};

pub(super) fn raster_state(env: &DrawEnv<'_>) -> Result<RasterState, DrawError> {
    let c: Cmd3dstateClip = packet(env, "3DSTATE_CLIP does not decode")?.unwrap_or_default();
    let clip = Clip {
        enable: c.clip_enable,
        statistics: c.clipper_statistics_enable,
        d3d: c.api_mode == 1,
        viewport_xy: c.viewport_xy_cliptest_enable,
        viewport_z: c.viewport_z_cliptest_enable,
        guardband: c.guardband_cliptest_enable,
        ucd_clip: c.user_clip_distance_clip_test_enable_bitmask as u8,
        ucd_cull: c.user_clip_distance_cull_test_enable_bitmask as u8,
        mode: clip_mode(c.clip_mode)?,
        perspective_divide_disable: c.perspective_divide_disable,
        non_perspective: c.non_perspective_barycentric_enable,
        min_point_width: ufixed(c.minimum_point_width, 3),
        max_point_width: ufixed(c.maximum_point_width, 3),
        force_zero_rta: c.force_zero_rtaindex_enable,
        max_vp_index: c.maximum_vpindex,
    };

    let (s, sf_dw) = required::<Cmd3dstateSf>(
        env,
        "3DPRIMITIVE without 3DSTATE_SF",
        "3DSTATE_SF does not decode",
    )?;
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
        cull: cull(s.cull_mode),
        line_width: ufixed(s.line_width, 7),
        scissor: s.scissor_rectangle_enable,
        last_pixel: s.last_pixel_enable,
        pv_tri: s.triangle_strip_list_provoking_vertex_select,
        pv_line: s.line_strip_list_provoking_vertex_select,
        pv_fan: s.triangle_fan_provoking_vertex_select,
        subpixel_bits: subpixel_bits(s.vertex_sub_pixel_precision_select),
        point_width_from_state: s.use_point_width_state == 1,
        point_width: ufixed(s.point_width, 3),
        depth_offset_constant: s.global_depth_offset_constant,
        depth_offset_scale: s.global_depth_offset_scale,
        depth_offset_clamp: s.global_depth_offset_clamp,
        // DW8-15 (003 lines 38908-39263), DW18-19.
        controls: attr_controls(sf_dw.get(8..16).unwrap_or(&[])),
        sprite_enable: s.point_sprite_texture_coordinate_enable,
        flat: s.constant_interpolation_enable,
        wrap_shortest: wrap_shortest(sf_dw.get(18..20).unwrap_or(&[])),
        ms_raster_mode: s.multisample_rasterization_mode,
        // DW3 17:16, DW4 14 (003 lines 38673-38690, 38808-38830).
        aa_cap_region: aa_width(s.line_end_cap_antialiasing_region_width),
        aa_true_distance: s.aa_line_distance_mode == 1,
    };

    let w: Cmd3dstateWm = packet(env, "3DSTATE_WM does not decode")?
        .ok_or(DrawError::Invalid("3DPRIMITIVE without 3DSTATE_WM"))?;
    if w.thread_dispatch_enable && w.number_of_sf_output_attributes != sf.outputs {
        return Err(DrawError::Invalid(
            "Number of SF Output Attributes differs between 3DSTATE_SF and 3DSTATE_WM",
        ));
    }
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
        cr0: cr0(
            w.floating_point_mode & 1 != 0,
            w.single_program_flow & 1 != 0,
            w.illegal_opcode_exception_enable,
            w.maskstack_exception_enable,
            w.software_exception_enable,
        ),
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
        attributes: true,
        input_coverage_mask: false,
        position_offset: w.position_xy_offset_select,
        barycentric_modes: w.barycentric_interpolation_mode,
        ms_per_pixel: w.multisample_dispatch_mode == 1,
        point_upper_right: w.point_rasterization_rule == 1,
        ms_raster_mode: w.multisample_rasterization_mode,
        legacy_diamond_lines: w.legacy_diamond_line_rasterization,
        // DW5 17:16, 15:14 (003 lines 40253-40290).
        aa_region: aa_width(w.line_antialiasing_region_width),
        aa_cap_region: aa_width(w.line_end_cap_antialiasing_region_width),
    };

    let r: Cmd3dstateDrawingRectangle =
        packet(env, "3DSTATE_DRAWING_RECTANGLE does not decode")?.unwrap_or_default();
    let rect = DrawRect {
        xmin: r.clipped_drawing_rectangle_x_min as i32,
        ymin: r.clipped_drawing_rectangle_y_min as i32,
        xmax: r.clipped_drawing_rectangle_x_max as i32,
        ymax: r.clipped_drawing_rectangle_y_max as i32,
        origin_x: r.drawing_rectangle_origin_x,
        origin_y: r.drawing_rectangle_origin_y,
    };

    let ms: Cmd3dstateMultisample =
        packet(env, "3DSTATE_MULTISAMPLE does not decode")?.unwrap_or_default();
    let multi = multisample(get(env, Cmd3dstateMultisample::NAME), false)?;
    // Without 3DSTATE_SAMPLE_MASK every sample is enabled (a model choice:
    // the reset value is not given).
    let sample_mask = packet::<Cmd3dstateSampleMask>(env, "3DSTATE_SAMPLE_MASK does not decode")?
        .map_or(0xff, |m| m.sample_mask);
    let stipple = stipple(env, wm.polygon_stipple)?;
    let line_stipple = line_stipple(
        wm.line_stipple,
        packet::<Cmd3dstateLineStipple>(env, "3DSTATE_LINE_STIPPLE does not decode")?
            .map(|l| (l.line_stipple_pattern, l.line_stipple_repeat_count)),
    );

    let vp: Cmd3dstateViewportStatePointers =
        packet(env, "3DSTATE_VIEWPORT_STATE_POINTERS does not decode")?.unwrap_or_default();
    let sc: Cmd3dstateScissorStatePointers =
        packet(env, "3DSTATE_SCISSOR_STATE_POINTERS does not decode")?.unwrap_or_default();
    let cc: Cmd3dstateCcStatePointers =
        packet(env, "3DSTATE_CC_STATE_POINTERS does not decode")?.unwrap_or_default();
    let bt: Cmd3dstateBindingTablePointers =
        packet(env, "3DSTATE_BINDING_TABLE_POINTERS does not decode")?.unwrap_or_default();
    let sp: Cmd3dstateSamplerStatePointers =
        packet(env, "3DSTATE_SAMPLER_STATE_POINTERS does not decode")?.unwrap_or_default();

    // The push constants 3DSTATE_CONSTANT_PS loaded when it executed (003
    // lines 40780-40999).
    let loaded = packet::<Cmd3dstateConstantPs>(env, "3DSTATE_CONSTANT_PS does not decode")?
        .is_some_and(|k| {
            k.buffer_0_valid || k.buffer_1_valid || k.buffer_2_valid || k.buffer_3_valid
        });
    let constants = push_constants(env, loaded)?;

    Ok(RasterState {
        clip,
        sf,
        wm,
        rect,
        ul_corner: ms.pixel_location == 1,
        ms: multi,
        sample_mask,
        stipple,
        line_stipple,
        aa_improved: packet::<Cmd3dstateAaLineParams>(
            env,
            "3DSTATE_AA_LINE_PARAMS does not decode",
        )?
        .is_some_and(|p| p.aa_coverage_slope != 0 || p.aa_coverage_endcap_slope != 0),
        viewports: Viewports::Gen6 {
            clip: vp.pointer_to_clip_viewport,
            sf: vp.pointer_to_sf_viewport,
        },
        scissor: sc.pointer_to_scissor_rect,
        cc_state: cc.pointer_to_color_calc_state,
        ps_binding_table: bt.pointer_to_ps_binding_table,
        ps_samplers: sp.pointer_to_ps_sampler_state,
        constants,
        dynamic_base: env.bases.dynamic,
        depth_format: packet::<Cmd3dstateDepthBuffer>(env, "3DSTATE_DEPTH_BUFFER does not decode")?
            .map_or(1, |d| d.surface_format),
    })
}

/// SF_VIEWPORT[index]: m00, m11, m22, m30, m31, m32 (stride 8 dwords,
/// 003 lines 39431-39475).
pub(super) fn sf_viewport(
    env: &mut DrawEnv<'_>,
    dynamic_base: u64,
    pointer: u32,
    index: u32,
) -> Result<[f32; 6], DrawError> {
    let mut dw = [0u32; 8];
    let addr = dynamic_base
        .wrapping_add(u64::from(pointer))
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
pub(super) fn clip_viewport(
    env: &mut DrawEnv<'_>,
    dynamic_base: u64,
    pointer: u32,
    index: u32,
) -> Result<[f32; 4], DrawError> {
    let mut dw = [0u32; 4];
    let addr = dynamic_base
        .wrapping_add(u64::from(pointer))
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
