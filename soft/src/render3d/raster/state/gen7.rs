//! Ivy Bridge: the raster state from the Gen7 3DSTATE_* layouts (hal
//! `gen7` tables, from Mesa src/intel/genxml/gen7.xml; there is no IVB
//! 3D manual here). What moved from SNB: the attribute setup is in
//! 3DSTATE_SBE, the pixel-shader dispatch in 3DSTATE_PS, 3DSTATE_WM keeps
//! the rasteriser side, 3DSTATE_CLIP gains an early cull, 3DSTATE_SF gains
//! the depth buffer format, the viewports are one SF_CLIP_VIEWPORT array,
//! each stage has its own binding-table and sampler pointer commands, and
//! the push constants live in the space 3DSTATE_PUSH_CONSTANT_ALLOC_PS
//! reserves.

use baregpu_hal::gen7::commands::{
    Cmd3dstateAaLineParams, Cmd3dstateBindingTablePointersPs, Cmd3dstateCcStatePointers,
    Cmd3dstateClip, Cmd3dstateConstantPs, Cmd3dstateDrawingRectangle, Cmd3dstateLineStipple,
    Cmd3dstateMultisample, Cmd3dstatePs, Cmd3dstatePushConstantAllocPs, Cmd3dstateSampleMask,
    Cmd3dstateSamplerStatePointersPs, Cmd3dstateSbe, Cmd3dstateScissorStatePointers, Cmd3dstateSf,
    Cmd3dstateViewportStatePointersSfClip, Cmd3dstateWm,
};
use baregpu_hal::gen7::structs::SfClipViewport;
use baregpu_hal::packet::Packet;

use super::{
    Clip, Cull, DrawRect, RasterState, Sf, Viewports, Wm, aa_width, attr_controls, clip_mode, cr0,
    cull, fill, get, line_stipple, multisample, packet, push_constants, read_dwords, required,
    stipple, subpixel_bits, ufixed, wrap_shortest,
};
use crate::render3d::types::{DrawEnv, DrawError};

pub(super) fn raster_state(env: &DrawEnv<'_>) -> Result<RasterState, DrawError> {
    let s: Cmd3dstateSf = packet(env, "3DSTATE_SF does not decode")?
        .ok_or(DrawError::Invalid("3DPRIMITIVE without 3DSTATE_SF"))?;
    let sf_cull = cull(s.cull_mode);
    let sf_front_ccw = s.front_winding == 1;

    let c: Cmd3dstateClip = packet(env, "3DSTATE_CLIP does not decode")?.unwrap_or_default();
    // The early cull (DW1 20:16) drops triangles by facing before they are
    // clipped. Mesa programs it with the SF's cull mode and winding
    // (crocus_state.c / gen7 i965 upload of 3DSTATE_CLIP), and then it
    // drops only what the SF would cull anyway; other pairings are not
    // modelled.
    if c.clip_enable
        && c.earlycull_enable
        && (cull(c.cull_mode) != sf_cull || (c.front_winding == 1) != sf_front_ccw)
        && cull(c.cull_mode) != Cull::None
    {
        return Err(DrawError::Unmodelled(
            "3DSTATE_CLIP early cull with a cull mode or front winding other than 3DSTATE_SF's",
        ));
    }
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

    let (b, sbe_dw) = required::<Cmd3dstateSbe>(
        env,
        "3DPRIMITIVE without 3DSTATE_SBE",
        "3DSTATE_SBE does not decode",
    )?;
    // 0-32 outputs; the 16 swizzle controls serve outputs 16-31 with
    // SWIZ_16_31 (Mesa gen7.xml 3DSTATE_SBE DW1 28, 27:22; SNB's 33-48
    // encoding is gone).
    if b.number_of_sf_output_attributes > 32 {
        return Err(DrawError::Invalid(
            "3DSTATE_SBE Number of SF Output Attributes above 32",
        ));
    }
    if b.vertex_urb_entry_read_length == 0 {
        // SNB's "never 0" (003 lines 38390-38403) kept: Mesa never sends 0
        // (its read length is DIV_ROUND_UP(max source attribute + 1, 2)).
        return Err(DrawError::Invalid(
            "3DSTATE_SBE Vertex URB Entry Read Length is 0",
        ));
    }
    // Each detail's bit 11 (Mesa gen7.xml "Swizzle Control Mode") has no
    // meaning the sources here give; Mesa leaves it 0.
    if sbe_dw
        .get(2..10)
        .unwrap_or(&[])
        .iter()
        .any(|d| d & (1 << 11 | 1 << 27) != 0)
    {
        return Err(DrawError::Unmodelled(
            "3DSTATE_SBE per-attribute Swizzle Control Mode",
        ));
    }
    let sf = Sf {
        outputs: b.number_of_sf_output_attributes,
        swizzle_high: b.attribute_swizzle_control_mode == 1,
        swizzle_enable: b.attribute_swizzle_enable,
        sprite_lower_left: b.point_sprite_texture_coordinate_origin == 1,
        read_length: b.vertex_urb_entry_read_length,
        read_offset: b.vertex_urb_entry_read_offset,
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
        front_ccw: sf_front_ccw,
        antialias: s.anti_aliasing_enable,
        cull: sf_cull,
        line_width: ufixed(s.line_width, 7),
        scissor: s.scissor_rectangle_enable,
        last_pixel: s.last_pixel_enable,
        pv_tri: s.triangle_strip_list_provoking_vertex_select,
        pv_line: s.line_strip_list_provoking_vertex_select,
        pv_fan: s.triangle_fan_provoking_vertex_select,
        subpixel_bits: subpixel_bits(s.vertex_sub_pixel_precision_select),
        point_width_from_state: s.point_width_source == 1,
        point_width: ufixed(s.point_width, 3),
        depth_offset_constant: s.global_depth_offset_constant,
        depth_offset_scale: s.global_depth_offset_scale,
        depth_offset_clamp: s.global_depth_offset_clamp,
        // SBE DW2-9 hold the 16 SF_OUTPUT_ATTRIBUTE_DETAILs, DW12-13 the
        // WrapShortest enables (Mesa gen7.xml 3DSTATE_SBE).
        controls: attr_controls(sbe_dw.get(2..10).unwrap_or(&[])),
        sprite_enable: b.point_sprite_texture_coordinate_enable,
        flat: b.constant_interpolation_enable,
        wrap_shortest: wrap_shortest(sbe_dw.get(12..14).unwrap_or(&[])),
        ms_raster_mode: s.multisample_rasterization_mode,
        // DW2 17:16, DW3 14 (Mesa gen7.xml 3DSTATE_SF).
        aa_cap_region: aa_width(s.line_end_cap_antialiasing_region_width),
        aa_true_distance: s.aa_line_distance_mode == 1,
    };

    let w: Cmd3dstateWm = packet(env, "3DSTATE_WM does not decode")?
        .ok_or(DrawError::Invalid("3DPRIMITIVE without 3DSTATE_WM"))?;
    // Without thread dispatch no PS state is read (a depth-only draw may
    // leave it at its reset value).
    let p: Cmd3dstatePs = match packet(env, "3DSTATE_PS does not decode")? {
        Some(p) => p,
        None if !w.thread_dispatch_enable => Cmd3dstatePs::default(),
        None => return Err(DrawError::Invalid("3DPRIMITIVE without 3DSTATE_PS")),
    };
    if w.early_depth_stencil_control != 0 {
        // Mesa sends EDSC_PREPS only for early_fragment_tests.
        return Err(DrawError::Unmodelled(
            "3DSTATE_WM Early Depth/Stencil Control other than EDSC_NORMAL",
        ));
    }
    // cr0.0 on IVB adds Vector Mask Enable (3), Rounding Mode (5:4) and the
    // Double Precision Denorm Mode (6), "initialized by Thread Dispatch"
    // (001 lines 3240-3262); 3DSTATE_PS DW2 carries them (Mesa gen7.xml).
    let mut cr = cr0(
        p.floating_point_mode == 1,
        p.single_program_flow,
        p.illegal_opcode_exception_enable,
        p.mask_stack_exception_enable,
        p.software_exception_enable,
    );
    cr[0] |= u32::from(p.vector_mask_enable) << 3
        | (p.rounding_mode & 3) << 4
        | (p.denormal_mode & 1) << 6;
    let wm = Wm {
        // KSP 0/1/2 and GRF starts 0/1/2 serve the widths as Table 22 on
        // SNB (Mesa brw_wm_prog_data_prog_offset: SIMD8 0, SIMD16 2,
        // SIMD32 1 when several are enabled).
        ksp: [
            p.kernel_start_pointer_0,
            p.kernel_start_pointer_1,
            p.kernel_start_pointer_2,
        ],
        grf_start: [
            p.dispatch_grf_start_register_for_constant_setup_data_0,
            p.dispatch_grf_start_register_for_constant_setup_data_1,
            p.dispatch_grf_start_register_for_constant_setup_data_2,
        ],
        cr0: cr,
        // DW3 31:10: the base within General State, 1 KiB aligned.
        scratch_base: p.scratch_space_base_pointer as u32,
        scratch_code: p.per_thread_scratch_space as u8,
        statistics: w.statistics_enable,
        computed_depth: w.pixel_shader_computed_depth_mode != 0,
        uses_source_depth: w.pixel_shader_uses_source_depth,
        dispatch: w.thread_dispatch_enable,
        polygon_stipple: w.polygon_stipple_enable,
        line_stipple: w.line_stipple_enable,
        omask: p.omask_present_to_rendertarget,
        uses_source_w: w.pixel_shader_uses_source_w,
        enable8: p.pixel_dispatch_enable_8,
        enable16: p.pixel_dispatch_enable_16,
        enable32: p.pixel_dispatch_enable_32,
        // Mesa sets Attribute Enable when the shader has varying inputs
        // (i965 gen7_wm_state.c, blorp genX_blorp_exec.h).
        attributes: p.attribute_enable,
        input_coverage_mask: w.pixel_shader_uses_input_coverage_mask,
        position_offset: p.position_xy_offset_select,
        barycentric_modes: w.barycentric_interpolation_mode,
        ms_per_pixel: w.multisample_dispatch_mode == 1,
        point_upper_right: w.point_rasterization_rule == 1,
        ms_raster_mode: w.multisample_rasterization_mode,
        legacy_diamond_lines: w.legacy_diamond_line_rasterization,
        // DW1 9:8, 7:6 (Mesa gen7.xml 3DSTATE_WM).
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
    let multi = multisample(get(env, Cmd3dstateMultisample::NAME), true)?;
    // Without 3DSTATE_SAMPLE_MASK every sample is enabled (a model choice:
    // the reset value is not given).
    let sample_mask = packet::<Cmd3dstateSampleMask>(env, "3DSTATE_SAMPLE_MASK does not decode")?
        .map_or(0xff, |m| m.sample_mask);
    let stipple = stipple(env, wm.polygon_stipple)?;
    // 3DSTATE_WM DW1 bit 3 enables it; the command keeps SNB's pattern and
    // repeat count fields (Mesa gen7.xml).
    let line_stipple = line_stipple(
        wm.line_stipple,
        packet::<Cmd3dstateLineStipple>(env, "3DSTATE_LINE_STIPPLE does not decode")?
            .map(|l| (l.line_stipple_pattern, l.line_stipple_repeat_count)),
    );

    let vp: Cmd3dstateViewportStatePointersSfClip = packet(
        env,
        "3DSTATE_VIEWPORT_STATE_POINTERS_SF_CLIP does not decode",
    )?
    .unwrap_or_default();
    let sc: Cmd3dstateScissorStatePointers =
        packet(env, "3DSTATE_SCISSOR_STATE_POINTERS does not decode")?.unwrap_or_default();
    let cc: Cmd3dstateCcStatePointers =
        packet(env, "3DSTATE_CC_STATE_POINTERS does not decode")?.unwrap_or_default();
    let bt: Cmd3dstateBindingTablePointersPs =
        packet(env, "3DSTATE_BINDING_TABLE_POINTERS_PS does not decode")?.unwrap_or_default();
    let sp: Cmd3dstateSamplerStatePointersPs =
        packet(env, "3DSTATE_SAMPLER_STATE_POINTERS_PS does not decode")?.unwrap_or_default();

    // Push constants: 3DSTATE_CONSTANT_PS (Gen7 body: four read lengths in
    // 256-bit units, a buffer valid when its length is not 0) loads them
    // into the PS's share of the push-constant space, which
    // 3DSTATE_PUSH_CONSTANT_ALLOC_PS sizes in KiB (Mesa gen7.xml; i965
    // gen7_urb.c gen7_emit_push_constant_state). The payload carries them
    // only with 3DSTATE_PS Push Constant Enable (Mesa sets it when the
    // shader has push constants).
    let k: Cmd3dstateConstantPs =
        packet(env, "3DSTATE_CONSTANT_PS does not decode")?.unwrap_or_default();
    let read = [
        k.constant_buffer_0_read_length,
        k.constant_buffer_1_read_length,
        k.constant_buffer_2_read_length,
        k.constant_buffer_3_read_length,
    ];
    let read_bytes: u64 = read.iter().map(|&n| 32 * u64::from(n)).sum();
    let alloc: Cmd3dstatePushConstantAllocPs =
        packet(env, "3DSTATE_PUSH_CONSTANT_ALLOC_PS does not decode")?.unwrap_or_default();
    if read_bytes > 1024 * u64::from(alloc.constant_buffer_size) {
        return Err(DrawError::Invalid(
            "3DSTATE_CONSTANT_PS reads more than 3DSTATE_PUSH_CONSTANT_ALLOC_PS reserves",
        ));
    }
    let mut constants = push_constants(env, read_bytes != 0)?;
    if !p.push_constant_enable {
        constants.clear();
    }

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
        // Gen7 keeps the command as on SNB (Mesa gen7.xml
        // 3DSTATE_AA_LINE_PARAMETERS; the hal's gen7 inherits it).
        aa_improved: packet::<Cmd3dstateAaLineParams>(
            env,
            "3DSTATE_AA_LINE_PARAMS does not decode",
        )?
        .is_some_and(|p| p.aa_coverage_slope != 0 || p.aa_coverage_endcap_slope != 0),
        viewports: Viewports::Gen7 {
            sf_clip: vp.sf_clip_viewport_pointer,
        },
        scissor: sc.scissor_rect_pointer,
        cc_state: cc.color_calc_state_pointer,
        ps_binding_table: bt.pointer_to_ps_binding_table,
        ps_samplers: sp.pointer_to_ps_sampler_state,
        constants,
        dynamic_base: env.bases.dynamic,
        // 3DSTATE_SF DW1 14:12 (Mesa gen7.xml), the depth offset's units.
        depth_format: s.depth_buffer_surface_format,
    })
}

/// SF_CLIP_VIEWPORT[index] (16 dwords, 64-byte stride; Mesa gen7.xml): the
/// viewport transform m00, m11, m22, m30, m31, m32 and the guardband x
/// min/max, y min/max in NDC.
pub(super) fn sf_clip_viewport(
    env: &mut DrawEnv<'_>,
    dynamic_base: u64,
    pointer: u32,
    index: u32,
) -> Result<([f32; 6], [f32; 4]), DrawError> {
    let mut dw = [0u32; 16];
    let addr = dynamic_base
        .wrapping_add(u64::from(pointer))
        .wrapping_add(64 * u64::from(index));
    read_dwords(env, addr, &mut dw)?;
    let v = SfClipViewport::unpack(&dw)
        .map_err(|_| DrawError::Invalid("SF_CLIP_VIEWPORT does not decode"))?;
    Ok((
        [
            v.viewport_matrix_element_m00,
            v.viewport_matrix_element_m11,
            v.viewport_matrix_element_m22,
            v.viewport_matrix_element_m30,
            v.viewport_matrix_element_m31,
            v.viewport_matrix_element_m32,
        ],
        [
            v.x_min_clip_guardband,
            v.x_max_clip_guardband,
            v.y_min_clip_guardband,
            v.y_max_clip_guardband,
        ],
    ))
}
