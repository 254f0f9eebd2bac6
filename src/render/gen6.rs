//! Sandy Bridge: one draw as a batch, in the order of the notes' minimal
//! sequence (seed-003 §4.4, from 003 Vol 2) with the [DevSNB] rules beside
//! each packet: the flush workarounds, PIPELINE_SELECT, STATE_BASE_ADDRESS,
//! the multisample and URB state, the state pointers, the unit states
//! (VS, GS, CLIP, SF, WM with their constants), the depth buffer, the
//! drawing rectangle, vertex input, 3DPRIMITIVE, the final flush.
//!
//! The state area (the batch's second part) holds the dynamic state
//! (viewports, blend, depth-stencil and colour-calculator state, samplers,
//! push constants) and the surface state (binding table, SURFACE_STATEs):
//! STATE_BASE_ADDRESS points both bases at it.

use alloc::vec::Vec;

use baregpu_hal::gen6::commands as c;
use baregpu_hal::gen6::structs as s;

use super::desc::{Compare, Cull, DepthFormat, Draw, Fill, IndexFormat, Step};
use super::plan::Plan;
use crate::compute::ComputeError;
use crate::compute::error::check_max;
use crate::compute::state::gen6::{invalidate_read_only_caches, surface_state, write_cache_flush};
use crate::compute::state::sampler::{GEN6_BORDER_BYTES, gen6_sampler_entry, sampler_table};
use crate::compute::state::{Cmds, StateArea, binding_table};

/// Hardware threads the VS and WM are programmed for: the GT1 counts (24
/// VS, 40 WM threads), which GT2 parts exceed, so both run [ext: Mesa
/// src/intel/dev/intel_device_info.c snb_gt1 max_vs_threads 24,
/// max_wm_threads 40].
const VS_THREADS: u32 = 24;
const WM_THREADS: u32 = 40;
/// URB bytes the VS entries may use: GT1's whole 32 KiB URB, as no GS
/// shares it [ext: Mesa src/intel/dev/intel_device_info.c snb_gt1
/// .urb.size = 32 (KiB); Mesa gen6_urb.c halves it only for a GS]; at most
/// 128 entries on GT1 (003 lines 27300-27315).
const VS_URB_BYTES: u32 = 32 << 10;
const VS_MAX_ENTRIES: u32 = 128;
/// Push-constant registers a stage reads: VS 32, PS 64 (3DSTATE_CONSTANT_*
/// read lengths, notes §4.2).
const VS_CONSTANT_ROWS: u64 = 32;
const PS_CONSTANT_ROWS: u64 = 64;

pub(super) fn record(
    plan: &Plan,
    d: &Draw<'_>,
    base: u64,
    area: &mut StateArea,
    cmds: &mut Cmds,
) -> Result<(), ComputeError> {
    // --- state ---
    let table = binding_table(
        &plan.surfaces,
        plan.bt_entries,
        area,
        32,
        32,
        |area, at, desc| area.put(at, &surface_state(desc)),
    )?;
    let samplers = sampler_table(&plan.samplers, area, GEN6_BORDER_BYTES, gen6_sampler_entry)?;
    let viewports = viewports(d, area)?;
    let scissor = match d.raster.scissor {
        Some(r) => {
            // Inclusive bounds relative to the drawing rectangle's origin
            // (003 lines 39476-39548); an empty rectangle has min > max.
            let at = area.alloc(8, 32);
            let (x1, y1) = (r.x.min(0xffff), r.y.min(0xffff));
            let (x2, y2) = if r.width == 0 || r.height == 0 {
                (0, 0)
            } else {
                (
                    (r.x + r.width - 1).min(0xffff),
                    (r.y + r.height - 1).min(0xffff),
                )
            };
            let empty = r.width == 0 || r.height == 0;
            area.put(
                at,
                &s::ScissorRect {
                    scissor_rectangle_x_min: if empty { 1 } else { x1 },
                    scissor_rectangle_y_min: if empty { 1 } else { y1 },
                    scissor_rectangle_x_max: x2,
                    scissor_rectangle_y_max: y2,
                },
            )?;
            Some(at)
        }
        None => None,
    };
    let (blend, depth_stencil, cc) = output_state(d, area)?;
    let vs_constants = push_constants(
        area,
        d.vs.map_or(&[][..], |v| v.constants),
        VS_CONSTANT_ROWS,
    )?;
    let ps_constants = push_constants(area, d.ps.constants, PS_CONSTANT_ROWS)?;
    // The quadword the flush workaround writes.
    let scratch_qw = base + area.alloc(8, 8) as u64;
    let dynamic_end = (base + area.bytes() as u64).next_multiple_of(4096);

    // --- commands ---
    write_cache_flush(cmds, scratch_qw)?;
    cmds.push(&invalidate_read_only_caches())?;
    cmds.push(&c::PipelineSelect {
        pipeline_selection: c::PipelineSelect::PIPELINE_SELECTION_PIPELINE_3D,
    })?;
    cmds.push(&c::StateBaseAddress {
        general_state_base_address: 0,
        general_state_base_address_modify_enable: true,
        surface_state_base_address: base,
        surface_state_base_address_modify_enable: true,
        dynamic_state_base_address: base,
        dynamic_state_base_address_modify_enable: true,
        indirect_object_base_address: 0,
        indirect_object_base_address_modify_enable: true,
        instruction_base_address: plan.heap.0,
        instruction_base_address_modify_enable: true,
        general_state_access_upper_bound: 0,
        general_state_access_upper_bound_modify_enable: true,
        dynamic_state_access_upper_bound: dynamic_end,
        dynamic_state_access_upper_bound_modify_enable: true,
        indirect_object_access_upper_bound: 0,
        indirect_object_access_upper_bound_modify_enable: true,
        instruction_access_upper_bound: plan.heap.1,
        instruction_access_upper_bound_modify_enable: true,
        ..Default::default()
    })?;
    // 3DSTATE_MULTISAMPLE wants a CS stall with a depth-cache flush before
    // it (003 lines 41946-41948): 1X, pixel centre (41937-42163).
    cmds.push(&c::PipeControl {
        command_streamer_stall_enable: true,
        depth_cache_flush_enable: true,
        ..Default::default()
    })?;
    cmds.push(&c::Cmd3dstateMultisample::default())?;
    // One sample, enabled (0 would mask every pixel; 003 lines 42047-42049).
    cmds.push(&c::Cmd3dstateSampleMask { sample_mask: 1 })?;
    cmds.push(&urb(plan)?)?;
    cmds.push(&c::Cmd3dstateViewportStatePointers {
        clip_viewport_state_change: true,
        sf_viewport_state_change: true,
        cc_viewport_state_change: true,
        pointer_to_clip_viewport: viewports.clip,
        pointer_to_sf_viewport: viewports.sf,
        pointer_to_cc_viewport: viewports.cc,
    })?;
    cmds.push(&c::Cmd3dstateCcStatePointers {
        pointer_to_blend_state: blend,
        blend_state_change: true,
        pointer_to_depth_stencil_state: depth_stencil,
        depth_stencil_state_change: true,
        pointer_to_color_calc_state: cc,
        color_calc_state_change: true,
    })?;
    // One table serves both shaders; it lies in the first 64 KiB of the
    // Surface State Base (003 lines 26859-26900; the area is smaller).
    cmds.push(&c::Cmd3dstateBindingTablePointers {
        vs_binding_table_change: true,
        gs_binding_table_change: true,
        ps_binding_table_change: true,
        pointer_to_vs_binding_table: table,
        pointer_to_gs_binding_table: 0,
        pointer_to_ps_binding_table: table,
    })?;
    if let Some(t) = samplers {
        cmds.push(&c::Cmd3dstateSamplerStatePointers {
            vs_sampler_state_change: true,
            ps_sampler_state_change: true,
            pointer_to_vs_sampler_state: t.at,
            pointer_to_ps_sampler_state: t.at,
            ..Default::default()
        })?;
    }
    if let Some(at) = scissor {
        cmds.push(&c::Cmd3dstateScissorStatePointers {
            pointer_to_scissor_rect: at,
        })?;
    }
    // Constants then the unit state; CONSTANT_PS must be followed by
    // 3DSTATE_WM (003 line 40790).
    cmds.push(&c::Cmd3dstateConstantVs {
        buffer_0_valid: vs_constants.is_some(),
        pointer_to_vs_constant_buffer_0: vs_constants.map_or(0, |(at, _)| at),
        vs_constant_buffer_0_read_length: vs_constants.map_or(0, |(_, rows)| rows - 1),
        ..Default::default()
    })?;
    cmds.push(&vs(d, plan)?)?;
    cmds.push(&c::Cmd3dstateConstantGs::default())?;
    // No geometry shader: the GS passes objects through (GS Enable 0).
    cmds.push(&c::Cmd3dstateGs::default())?;
    cmds.push(&clip())?;
    cmds.push(&sf(d)?)?;
    cmds.push(&c::Cmd3dstateConstantPs {
        buffer_0_valid: ps_constants.is_some(),
        pointer_to_ps_constant_buffer_0: ps_constants.map_or(0, |(at, _)| at),
        ps_constant_buffer_0_read_length: ps_constants.map_or(0, |(_, rows)| rows - 1),
        ..Default::default()
    })?;
    cmds.push(&wm(d, plan, samplers.map_or(0, |t| t.count))?)?;
    cmds.push(&depth_buffer(d))?;
    cmds.push(&c::Cmd3dstateClearParams::default())?;
    let (w, h) = (d.target.width(), d.target.height());
    // Inclusive bounds, origin 0 (003 lines 37627-37800; Ymin 0 is even).
    cmds.push(&c::Cmd3dstateDrawingRectangle {
        clipped_drawing_rectangle_x_max: w - 1,
        clipped_drawing_rectangle_y_max: h - 1,
        ..Default::default()
    })?;
    vertex_input(d, plan, cmds)?;
    cmds.push(&c::Cmd3dprimitive {
        vertex_access_type: d.index.is_some() as u32,
        primitive_topology_type: d.topology.code(),
        vertex_count_per_instance: d.vertex_count,
        start_vertex_location: d.first_vertex,
        instance_count: d.instance_count,
        start_instance_location: d.first_instance,
        base_vertex_location: d.base_vertex,
        ..Default::default()
    })?;
    // The pixels out of the render cache (and the depth cache) before the
    // fence: the same workaround-guarded flush as compute's.
    write_cache_flush(cmds, scratch_qw)
}

struct Viewports {
    clip: u32,
    sf: u32,
    cc: u32,
}

/// CLIP_VIEWPORT, SF_VIEWPORT and CC_VIEWPORT of viewport 0 (003 lines
/// 35826-35989, 39431-39467, 46444-46474), each 32-byte aligned.
fn viewports(d: &Draw<'_>, area: &mut StateArea) -> Result<Viewports, ComputeError> {
    let v = d.viewport;
    // The guard band is the viewport itself (NDC ±1): anything outside is
    // clipped geometrically.
    let clip = area.alloc(16, 32);
    area.put(
        clip,
        &s::ClipViewport {
            xmin_clip_guardband: -1.0,
            xmax_clip_guardband: 1.0,
            ymin_clip_guardband: -1.0,
            ymax_clip_guardband: 1.0,
        },
    )?;
    // x' = m00 x + m30 and so on (003 lines 37550-37565); NDC y up, pixels
    // y down; z from [0, 1] (D3D API mode) to the depth range.
    let sf = area.alloc(32, 32);
    area.put(
        sf,
        &s::SfViewport {
            viewport_matrix_element_m00: v.width / 2.0,
            viewport_matrix_element_m11: -v.height / 2.0,
            viewport_matrix_element_m22: v.max_depth - v.min_depth,
            viewport_matrix_element_m30: v.x + v.width / 2.0,
            viewport_matrix_element_m31: v.y + v.height / 2.0,
            viewport_matrix_element_m32: v.min_depth,
        },
    )?;
    let cc = area.alloc(8, 32);
    area.put(
        cc,
        &s::CcViewport {
            minimum_depth: v.min_depth.min(v.max_depth),
            maximum_depth: v.max_depth.max(v.min_depth),
        },
    )?;
    Ok(Viewports { clip, sf, cc })
}

/// BLEND_STATE (entry 0), DEPTH_STENCIL_STATE and COLOR_CALC_STATE, each
/// 64-byte aligned (003 lines 45353-46460).
fn output_state(d: &Draw<'_>, area: &mut StateArea) -> Result<(u32, u32, u32), ComputeError> {
    let b = d.blend;
    let blend = area.alloc(8, 64);
    let mut st = s::BlendState {
        write_disable_red: b.write_mask & 1 == 0,
        write_disable_green: b.write_mask & 2 == 0,
        write_disable_blue: b.write_mask & 4 == 0,
        write_disable_alpha: b.write_mask & 8 == 0,
        // Pre-blend clamp to the UNORM range, which an UNORM target needs
        // with blending off (003 lines 44889-44996), and post-blend clamp.
        pre_blend_color_clamp_enable: true,
        post_blend_color_clamp_enable: true,
        color_clamp_range: 0,
        ..Default::default()
    };
    if let Some(color) = b.color {
        let alpha = b.alpha.unwrap_or(color);
        st.color_buffer_blend_enable = true;
        st.source_blend_factor = color.src.code();
        st.destination_blend_factor = color.dst.code();
        st.color_blend_function = color.op.code();
        st.independent_alpha_blend_enable = b.alpha.is_some();
        st.source_alpha_blend_factor = alpha.src.code();
        st.destination_alpha_blend_factor = alpha.dst.code();
        st.alpha_blend_function = alpha.op.code();
    }
    area.put(blend, &st)?;

    let z = d.depth_stencil;
    let depth_stencil = area.alloc(12, 64);
    let mut ds = s::DepthStencilState {
        depth_test_enable: z.depth_test.is_some(),
        depth_test_function: z.depth_test.unwrap_or(Compare::Always).code(),
        depth_buffer_write_enable: z.depth_write,
        ..Default::default()
    };
    let (mut front_ref, mut back_ref) = (0, 0);
    if let Some((front, back)) = z.stencil {
        ds.stencil_test_enable = true;
        ds.stencil_buffer_write_enable =
            front.write_mask != 0 || back.is_some_and(|b| b.write_mask != 0);
        ds.stencil_test_function = front.compare.code();
        ds.stencil_fail_op = front.fail.code();
        ds.stencil_pass_depth_fail_op = front.depth_fail.code();
        ds.stencil_pass_depth_pass_op = front.pass.code();
        ds.stencil_test_mask = front.read_mask as u32;
        ds.stencil_write_mask = front.write_mask as u32;
        front_ref = front.reference as u32;
        back_ref = front_ref;
        if let Some(back) = back {
            ds.double_sided_stencil_enable = true;
            ds.backface_stencil_test_function = back.compare.code();
            ds.backface_stencil_fail_op = back.fail.code();
            ds.backface_stencil_pass_depth_fail_op = back.depth_fail.code();
            ds.backface_stencil_pass_depth_pass_op = back.pass.code();
            ds.backface_stencil_test_mask = back.read_mask as u32;
            ds.backface_stencil_write_mask = back.write_mask as u32;
            back_ref = back.reference as u32;
        }
    }
    area.put(depth_stencil, &ds)?;

    let cc = area.alloc(24, 64);
    area.put(
        cc,
        &s::ColorCalcState {
            stencil_reference_value: front_ref,
            backface_stencil_reference_value: back_ref,
            blend_constant_color_red: b.constant[0],
            blend_constant_color_green: b.constant[1],
            blend_constant_color_blue: b.constant[2],
            blend_constant_color_alpha: b.constant[3],
            ..Default::default()
        },
    )?;
    Ok((blend, depth_stencil, cc))
}

/// Places push constants (32-byte aligned registers); their offset and
/// register count, `None` without any.
fn push_constants(
    area: &mut StateArea,
    bytes: &[u8],
    max_rows: u64,
) -> Result<Option<(u32, u32)>, ComputeError> {
    if bytes.is_empty() {
        return Ok(None);
    }
    let rows = bytes.len().div_ceil(32) as u64;
    check_max("push-constant registers", rows, max_rows)?;
    let at = area.alloc(bytes.len(), 32);
    area.put_bytes(at, bytes);
    Ok(Some((at, rows as u32)))
}

/// 3DSTATE_URB: VS entries of the vertex URB entry's size, at least 24 and
/// a multiple of 4 even with the VS off; no GS entries (003 lines
/// 27230-27350, notes pitfall 13).
fn urb(plan: &Plan) -> Result<c::Cmd3dstateUrb, ComputeError> {
    // Entry size in 1024-bit (8-slot) units.
    let units = plan.vue_slots.div_ceil(8).max(1);
    let entries = (VS_URB_BYTES / (units * 128)).min(VS_MAX_ENTRIES) / 4 * 4;
    if entries < 24 {
        return Err(ComputeError::OutOfRange {
            what: "vertex URB entry slots",
            value: plan.vue_slots as u64,
            max: (VS_URB_BYTES / (24 * 128) * 8) as u64,
        });
    }
    Ok(c::Cmd3dstateUrb {
        vs_urb_entry_allocation_size: units - 1,
        vs_number_of_urb_entries: entries,
        gs_number_of_urb_entries: 0,
        gs_urb_entry_allocation_size: 0,
    })
}

/// 3DSTATE_VS (003 lines 32621-33077): the kernel, its vertex input and
/// GRF start; disabled without a vertex shader (vertex fetch then writes
/// the vertex URB entries).
fn vs(d: &Draw<'_>, plan: &Plan) -> Result<c::Cmd3dstateVs, ComputeError> {
    let Some(v) = &d.vs else {
        return Ok(c::Cmd3dstateVs::default());
    };
    if v.kernel.scratch.is_some() {
        return Err(ComputeError::Unsupported {
            generation: baregpu_hal::Generation::Gen6,
            what: "scratch space in a 3D shader",
        });
    }
    Ok(c::Cmd3dstateVs {
        kernel_start_pointer: (v.kernel.gfx.0 - plan.heap.0) as u32,
        binding_table_entry_count: plan.bt_entries.min(255),
        dispatch_grf_start_register_for_urb_data: v.grf_start,
        // Pairs of 128-bit elements (two vertices a register pair).
        vertex_urb_entry_read_length: v.inputs.div_ceil(2),
        vertex_urb_entry_read_offset: 0,
        maximum_number_of_threads: VS_THREADS - 1,
        vs_function_enable: true,
        ..Default::default()
    })
}

/// 3DSTATE_CLIP (003 lines 35477-35909): normal clipping against the view
/// volume with the guard band of the CLIP_VIEWPORT, D3D depth range
/// (near plane at z = 0; the field's table has the two API modes swapped,
/// the pseudo-code at 36203-36211 is followed).
fn clip() -> c::Cmd3dstateClip {
    c::Cmd3dstateClip {
        clip_enable: true,
        api_mode: c::Cmd3dstateClip::API_MODE_APIMODE_D3D,
        viewport_xy_cliptest_enable: true,
        viewport_z_cliptest_enable: true,
        guardband_cliptest_enable: true,
        clip_mode: c::Cmd3dstateClip::CLIP_MODE_CLIPMODE_NORMAL,
        ..Default::default()
    }
}

/// 3DSTATE_SF (003 lines 38229-39430): the attributes after the vertex
/// header and position (read offset 1 row, at least one row read: notes
/// pitfall 15), the viewport transform, winding, culling, fill modes and
/// the scissor.
fn sf(d: &Draw<'_>) -> Result<c::Cmd3dstateSf, ComputeError> {
    let r = d.raster;
    let fill = |f: Fill| match f {
        Fill::Solid => c::Cmd3dstateSf::FRONTFACE_FILL_MODE_SOLID,
        Fill::Wireframe => c::Cmd3dstateSf::FRONTFACE_FILL_MODE_WIREFRAME,
        Fill::Point => c::Cmd3dstateSf::FRONTFACE_FILL_MODE_POINT,
    };
    Ok(c::Cmd3dstateSf {
        number_of_sf_output_attributes: d.attributes,
        vertex_urb_entry_read_length: d.attributes.div_ceil(2).max(1),
        vertex_urb_entry_read_offset: 1,
        viewport_transform_enable: true,
        front_winding: if r.front_ccw {
            c::Cmd3dstateSf::FRONT_WINDING_FRONTWINDING_CCW
        } else {
            c::Cmd3dstateSf::FRONT_WINDING_FRONTWINDING_CW
        },
        cull_mode: match r.cull {
            Cull::None => c::Cmd3dstateSf::CULL_MODE_CULLMODE_NONE,
            Cull::Front => c::Cmd3dstateSf::CULL_MODE_CULLMODE_FRONT,
            Cull::Back => c::Cmd3dstateSf::CULL_MODE_CULLMODE_BACK,
        },
        frontface_fill_mode: fill(r.fill_front),
        backface_fill_mode: fill(r.fill_back),
        scissor_rectangle_enable: r.scissor.is_some(),
        // Line width 1.0 in U3.7 (unused by triangles).
        line_width: 1 << 7,
        constant_interpolation_enable: d.flat,
        ..Default::default()
    })
}

/// 3DSTATE_WM (003 lines 39736-40779): the kernels by dispatch width with
/// Table 22's KSP assignment (8 only: KSP0; 16 only: KSP0; both: 8 in KSP0,
/// 16 in KSP2; 43571-43640), the payload the shader asked for, the
/// attribute count (equal to the SF's), one sample per pixel.
fn wm(d: &Draw<'_>, plan: &Plan, sampler_count: u32) -> Result<c::Cmd3dstateWm, ComputeError> {
    let ps = d.ps;
    let offset = |k: &crate::compute::Kernel<'_>| -> Result<u32, ComputeError> {
        if k.scratch.is_some() {
            return Err(ComputeError::Unsupported {
                generation: baregpu_hal::Generation::Gen6,
                what: "scratch space in a 3D shader",
            });
        }
        Ok((k.gfx.0 - plan.heap.0) as u32)
    };
    let mut wm = c::Cmd3dstateWm {
        sampler_count,
        binding_table_entry_count: plan.bt_entries.min(255),
        statistics_enable: true,
        maximum_number_of_threads: WM_THREADS - 1,
        pixel_shader_kill_pixel: ps.kills_pixels,
        pixel_shader_computed_depth: ps.computes_depth,
        pixel_shader_uses_source_depth: ps.uses_source_depth,
        pixel_shader_uses_source_w: ps.uses_source_w,
        thread_dispatch_enable: true,
        pixel_dispatch_enable_8: ps.simd8.is_some(),
        pixel_dispatch_enable_16: ps.simd16.is_some(),
        number_of_sf_output_attributes: d.attributes,
        barycentric_interpolation_mode: ps.barycentrics.0,
        ..Default::default()
    };
    match (ps.simd8, ps.simd16) {
        (Some(k8), Some(k16)) => {
            wm.kernel_start_pointer_0 = offset(k8.kernel)?;
            wm.dispatch_grf_start_register_for_constant_setup_data_0 = k8.grf_start;
            wm.kernel_start_pointer_2 = offset(k16.kernel)?;
            wm.dispatch_grf_start_register_for_constant_setup_data_2 = k16.grf_start;
        }
        (Some(k), None) | (None, Some(k)) => {
            wm.kernel_start_pointer_0 = offset(k.kernel)?;
            wm.dispatch_grf_start_register_for_constant_setup_data_0 = k.grf_start;
        }
        (None, None) => return Err(ComputeError::Invalid("no pixel-shader kernel")),
    }
    Ok(wm)
}

/// 3DSTATE_DEPTH_BUFFER (003 lines 42515-43151): the Y-tiled buffer, or a
/// NULL surface (D32_FLOAT, as drivers program it [ext: Mesa
/// brw_emit_depthbuffer for no depth buffer]).
fn depth_buffer(d: &Draw<'_>) -> c::Cmd3dstateDepthBuffer {
    type D = c::Cmd3dstateDepthBuffer;
    match d.depth {
        None => D {
            surface_type: D::SURFACE_TYPE_SURFTYPE_NULL,
            surface_format: D::SURFACE_FORMAT_D32_FLOAT,
            ..Default::default()
        },
        Some(z) => D {
            surface_type: D::SURFACE_TYPE_SURFTYPE_2D,
            tiled_surface: true,
            tile_walk: D::TILE_WALK_TILEWALK_YMAJOR,
            surface_format: match z.format {
                DepthFormat::D16Unorm => D::SURFACE_FORMAT_D16_UNORM,
                DepthFormat::D24UnormS8Uint => D::SURFACE_FORMAT_D24_UNORM_S8_UINT,
                DepthFormat::D24UnormX8 => D::SURFACE_FORMAT_D24_UNORM_X8_UINT,
                DepthFormat::D32Float => D::SURFACE_FORMAT_D32_FLOAT,
            },
            surface_pitch: z.pitch - 1,
            surface_base_address: z.gfx().0,
            width: z.width - 1,
            height: z.height - 1,
            ..Default::default()
        },
    }
}

/// 3DSTATE_VERTEX_BUFFERS, 3DSTATE_VERTEX_ELEMENTS and, for indexed draws,
/// 3DSTATE_INDEX_BUFFER (003 lines 29823-30784). End addresses are the
/// last valid byte; past them vertex fetch reads zeros.
fn vertex_input(d: &Draw<'_>, plan: &Plan, cmds: &mut Cmds) -> Result<(), ComputeError> {
    let mut buffers = Vec::with_capacity(d.vertex_buffers.len());
    for (i, vb) in d.vertex_buffers.iter().enumerate() {
        let start = vb.buffer.gfx().0;
        let (access, step) = match vb.step {
            Step::PerVertex => (0, 0),
            Step::PerInstance(n) => (1, n),
        };
        buffers.push(c::Cmd3dstateVertexBuffersVertexBufferState {
            vertex_buffer_index: i as u32,
            buffer_access_type: access,
            buffer_pitch: vb.pitch,
            buffer_starting_address: start,
            end_address: start + vb.buffer.size() as u64 - 1,
            instance_data_step_rate: step,
            ..Default::default()
        });
    }
    if !buffers.is_empty() {
        cmds.push(&c::Cmd3dstateVertexBuffers {
            vertex_buffer_state: buffers,
        })?;
    }
    let elements = plan
        .elements
        .iter()
        .map(|e| c::Cmd3dstateVertexElementsElement {
            vertex_buffer_index: e.buffer,
            valid: true,
            source_element_format: e.format,
            source_element_offset: e.offset,
            component_0_control: e.components[0],
            component_1_control: e.components[1],
            component_2_control: e.components[2],
            component_3_control: e.components[3],
            ..Default::default()
        })
        .collect();
    cmds.push(&c::Cmd3dstateVertexElements { element: elements })?;
    if let Some(ib) = d.index {
        let start = ib.buffer.gfx().0;
        cmds.push(&c::Cmd3dstateIndexBuffer {
            cut_index_enable: ib.cut,
            index_format: match ib.format {
                IndexFormat::U8 => c::Cmd3dstateIndexBuffer::INDEX_FORMAT_INDEX_BYTE,
                IndexFormat::U16 => c::Cmd3dstateIndexBuffer::INDEX_FORMAT_INDEX_WORD,
                IndexFormat::U32 => c::Cmd3dstateIndexBuffer::INDEX_FORMAT_INDEX_DWORD,
            },
            buffer_starting_address: start,
            buffer_ending_address: start + ib.buffer.size() as u64 - 1,
            ..Default::default()
        })?;
    }
    Ok(())
}
