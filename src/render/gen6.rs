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

use baregpu_hal::gen6::commands as c;
use baregpu_hal::gen6::structs as s;

use super::desc::{Cull, DepthFormat, Draw, Fill};
use super::plan::Plan;
use super::shared::{push_constants, scissor_bounds};
use crate::compute::ComputeError;
use crate::compute::state::gen6::{invalidate_read_only_caches, surface_state, write_cache_flush};
use crate::compute::state::sampler::{GEN6_BORDER_BYTES, gen6_sampler_entry, sampler_table};
use crate::compute::state::{Cmds, StateArea, binding_table};

/// Hardware threads the VS and WM are programmed for: the GT1 counts (24
/// VS, 40 WM threads), which GT2 parts exceed, so both run [ext: Mesa
/// src/intel/dev/intel_device_info.c snb_gt1 max_vs_threads 24,
/// max_wm_threads 40].
const VS_THREADS: u32 = 24;
const WM_THREADS: u32 = 40;
/// GS threads on GT1: 21 with rendering ("conservative; 24 if rendering
/// disabled") [ext: Mesa intel_device_info.c snb_gt1 max_gs_threads]; the
/// field allows 0-27 with Rendering Enabled, 0-59 without (003 lines
/// 33975-33990).
const GS_THREADS_RENDERING: u32 = 21;
const GS_THREADS_STREAMING: u32 = 24;
/// GS URB entries: 0-256 in multiples of 4 (003 lines 27318-27345).
const GS_MAX_ENTRIES: u32 = 256;
/// URB bytes the VS entries may use: GT1's whole 32 KiB URB, as no GS
/// shares it [ext: Mesa src/intel/dev/intel_device_info.c snb_gt1
/// .urb.size = 32 (KiB); Mesa gen6_urb.c halves it only for a GS]; at most
/// 128 entries on GT1 (003 lines 27300-27315).
const VS_URB_BYTES: u32 = 32 << 10;
const VS_MAX_ENTRIES: u32 = 128;
/// Push-constant registers a stage reads: VS 32, PS 64 (3DSTATE_CONSTANT_*
/// read lengths, notes §4.2).
const VS_CONSTANT_ROWS: u64 = 32;
const GS_CONSTANT_ROWS: u64 = 32;
const PS_CONSTANT_ROWS: u64 = 64;

pub(super) fn record(
    plan: &Plan,
    d: &Draw<'_>,
    base: u64,
    area: &mut StateArea,
    cmds: &mut Cmds,
) -> Result<(), ComputeError> {
    // --- state ---
    let target = plan.surfaces[0].1;
    let ms = d.raster.multisample;
    let table = binding_table(
        &plan.surfaces,
        plan.bt_entries,
        area,
        32,
        32,
        |area, at, desc| {
            let mut st = surface_state(desc);
            // The target's samples, interleaved (003 SURFACE_STATE Number
            // of Multisamples, DW4 6:4, lines 76257-76290), with the
            // [DevSNB] erratum's Vertical Line Stride Offset of one for a
            // multisampled surface (lines 75632-75642; the stride stays 0,
            // so no line is skipped).
            if ms.is_some() && *desc == target {
                st.number_of_multisamples =
                    s::SurfaceState::NUMBER_OF_MULTISAMPLES_MULTISAMPLECOUNT_4;
                st.vertical_line_stride_offset = 1;
            }
            area.put(at, &st)
        },
    )?;
    // The GS's table: the stream-output decls' buffer surfaces.
    let gs_table = if plan.gs_surfaces.is_empty() {
        0
    } else {
        binding_table(
            &plan.gs_surfaces,
            plan.gs_surfaces.len() as u32,
            area,
            32,
            32,
            |area, at, desc| area.put(at, &surface_state(desc)),
        )?
    };
    let samplers = sampler_table(&plan.samplers, area, GEN6_BORDER_BYTES, gen6_sampler_entry)?;
    let viewports = viewports(d, area)?;
    let scissor = match d.raster.scissor {
        Some(r) => {
            let [x1, y1, x2, y2] = scissor_bounds(r);
            let at = area.alloc(8, 32);
            area.put(
                at,
                &s::ScissorRect {
                    scissor_rectangle_x_min: x1,
                    scissor_rectangle_y_min: y1,
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
    let gs_constants = push_constants(
        area,
        d.gs.map_or(&[][..], |g| g.constants),
        GS_CONSTANT_ROWS,
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
    cmds.push(&multisample(d))?;
    // One sample, enabled (0 would mask every pixel; 003 lines 42047-42049),
    // or the draw's mask of its samples.
    cmds.push(&c::Cmd3dstateSampleMask {
        sample_mask: ms.map_or(1, |m| m.mask),
    })?;
    cmds.push(&urb(d, plan)?)?;
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
        pointer_to_gs_binding_table: gs_table,
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
    cmds.push(&c::Cmd3dstateConstantGs {
        buffer_0_valid: gs_constants.is_some(),
        pointer_to_gs_constant_buffer_0: gs_constants.map_or(0, |(at, _)| at),
        gs_constant_buffer_0_read_length: gs_constants.map_or(0, |(_, rows)| rows - 1),
        ..Default::default()
    })?;
    if d.stream_output.is_some() {
        // Index 0 starts at the first vertex and stops at the buffers'
        // capacity; "if a buffer is not enabled then the MaxSVBI must be
        // set to 0xFFFFFFFF" (003 lines 33600-33668).
        for k in 0..4 {
            let (index, max) = if k == 0 { plan.svbi } else { (0, u32::MAX) };
            cmds.push(&c::Cmd3dstateGsSvbIndex {
                index_number: k,
                streamed_vertex_buffer_index: index,
                maximum_index: max,
                ..Default::default()
            })?;
        }
    }
    // Without a geometry shader the GS passes objects through (GS Enable 0).
    cmds.push(&gs(d, plan)?)?;
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
    let (w, h) = plan.target_size;
    // Inclusive bounds, origin 0 (003 lines 37627-37800; Ymin 0 is even).
    cmds.push(&c::Cmd3dstateDrawingRectangle {
        clipped_drawing_rectangle_x_max: w - 1,
        clipped_drawing_rectangle_y_max: h - 1,
        ..Default::default()
    })?;
    vertex_input(d, plan, cmds)?;
    let count = d.stream_output.and_then(|so| so.count);
    if let Some((buffer, at)) = count {
        store_prims_written(cmds, buffer.gfx().0 + at as u64)?;
    }
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
    write_cache_flush(cmds, scratch_qw)?;
    // After the stall: the count once the draw's primitives are written.
    if let Some((buffer, at)) = count {
        store_prims_written(cmds, buffer.gfx().0 + at as u64 + 8)?;
    }
    Ok(())
}

/// SO_NUM_PRIMS_WRITTEN (2288h, 64 bits; 003 lines 13350-13378) stored
/// at `at` with two MI_STORE_REGISTER_MEMs (003 lines 16150-16288), low
/// dword first.
fn store_prims_written(cmds: &mut Cmds, at: u64) -> Result<(), ComputeError> {
    let reg = baregpu_hal::gen6::regs::SO_NUM_PRIMS_WRITTEN.offset();
    for half in 0..2 {
        cmds.push(&c::MiStoreRegisterMem {
            use_global_gtt: true,
            register_address: reg + 4 * half,
            memory_address: at + 4 * half as u64,
        })?;
    }
    Ok(())
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

super::shared::output_state!(gen6);

/// 3DSTATE_URB: VS entries of the vertex URB entry's size, at least 24 and
/// a multiple of 4 even with the VS off (003 lines 27230-27350, notes
/// pitfall 13); with a geometry shader the URB is halved between the VS's
/// and the GS's entries, each count a multiple of 4 [ext: Mesa i965
/// gen6_urb.c gen6_upload_urb].
fn urb(d: &Draw<'_>, plan: &Plan) -> Result<c::Cmd3dstateUrb, ComputeError> {
    // Entry size in 1024-bit (8-slot) units.
    let units = plan.vue_slots.div_ceil(8).max(1);
    let vs_bytes = if d.gs.is_some() {
        VS_URB_BYTES / 2
    } else {
        VS_URB_BYTES
    };
    let entries = (vs_bytes / (units * 128)).min(VS_MAX_ENTRIES) / 4 * 4;
    if entries < 24 {
        return Err(ComputeError::OutOfRange {
            what: "vertex URB entry slots",
            value: plan.vue_slots as u64,
            max: (vs_bytes / (24 * 128) * 8) as u64,
        });
    }
    let (gs_units, gs_entries) = match &d.gs {
        // One output vertex an entry (the kernel allocates one a vertex).
        Some(g) => {
            let u = g.output_slots.div_ceil(8).max(1);
            (
                u,
                (VS_URB_BYTES / 2 / (u * 128)).min(GS_MAX_ENTRIES) / 4 * 4,
            )
        }
        None => (1, 0),
    };
    Ok(c::Cmd3dstateUrb {
        vs_urb_entry_allocation_size: units - 1,
        vs_number_of_urb_entries: entries,
        gs_number_of_urb_entries: gs_entries,
        gs_urb_entry_allocation_size: gs_units - 1,
    })
}

/// 3DSTATE_GS (003 lines 33669-34165): disabled without a geometry shader;
/// else the kernel, its payload (R1 the streamed-vertex-buffer indices
/// with stream output, then the constants and the vertices from the
/// dispatch start), its thread count, and whether its vertices go on to
/// be rasterised. Trailing reorder as Mesa sets it [ext: Mesa
/// genX_state_upload.c genX(upload_gs_state) ReorderMode = TRAILING].
fn gs(d: &Draw<'_>, plan: &Plan) -> Result<c::Cmd3dstateGs, ComputeError> {
    let Some(g) = &d.gs else {
        return Ok(c::Cmd3dstateGs::default());
    };
    if g.kernel.scratch.is_some() {
        return Err(ComputeError::Unsupported {
            generation: baregpu_hal::Generation::Gen6,
            what: "scratch space in a 3D shader",
        });
    }
    let streaming = d.stream_output.is_some();
    let rendering = d.stream_output.is_none_or(|so| so.rendering);
    let threads = if rendering {
        GS_THREADS_RENDERING
    } else {
        GS_THREADS_STREAMING
    };
    Ok(c::Cmd3dstateGs {
        kernel_start_pointer: (g.kernel.gfx.0 - plan.heap.0) as u32,
        binding_table_entry_count: plan.gs_surfaces.len() as u32,
        vertex_urb_entry_read_length: g.input_rows,
        vertex_urb_entry_read_offset: 0,
        dispatch_grf_start_register_for_urb_data: g.dispatch_start(1 + streaming as u32)?,
        maximum_number_of_threads: threads - 1,
        gs_statistics_enable: true,
        so_statistics_enable: true,
        rendering_enabled: rendering,
        reorder_enable: true,
        svbi_payload_enable: streaming,
        gs_enable: true,
        ..Default::default()
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
        dispatch_grf_start_register_for_urb_data: v.dispatch_start()?,
        // Pairs of 128-bit elements (two vertices a register pair).
        vertex_urb_entry_read_length: v.inputs.div_ceil(2),
        vertex_urb_entry_read_offset: 0,
        maximum_number_of_threads: VS_THREADS - 1,
        vs_function_enable: true,
        ..Default::default()
    })
}

/// 3DSTATE_MULTISAMPLE (003 lines 41937-42163): one sample at the pixel
/// centre, or four at the standard positions (offsets from the pixel's
/// upper-left corner), the pixel location at the centre as Mesa programs
/// it [ext: Mesa crocus_state.c 3DSTATE_MULTISAMPLE PixelLocation CENTER].
fn multisample(d: &Draw<'_>) -> c::Cmd3dstateMultisample {
    type M = c::Cmd3dstateMultisample;
    let Some(ms) = d.raster.multisample else {
        return M::default();
    };
    let p = ms.samples.positions();
    M {
        pixel_location: M::PIXEL_LOCATION_PIXLOC_CENTER,
        number_of_multisamples: M::NUMBER_OF_MULTISAMPLES_NUMSAMPLES_4,
        sample0_x_offset: p[0].0,
        sample0_y_offset: p[0].1,
        sample1_x_offset: p[1].0,
        sample1_y_offset: p[1].1,
        sample2_x_offset: p[2].0,
        sample2_y_offset: p[2].1,
        sample3_x_offset: p[3].0,
        sample3_y_offset: p[3].1,
    }
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
        // Multisampled: rasterise against the sample pattern (both units
        // must agree; 003 lines 38229-39430, 39736-40779).
        multisample_rasterization_mode: if r.multisample.is_some() {
            c::Cmd3dstateSf::MULTISAMPLE_RASTERIZATION_MODE_MSRASTMODE_ON_PATTERN
        } else {
            c::Cmd3dstateSf::MULTISAMPLE_RASTERIZATION_MODE_MSRASTMODE_OFF_PIXEL
        },
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
        // The pattern, with one pixel-shader invocation per pixel whose
        // colour goes to its covered samples [ext: Mesa gen6_wm_state:
        // MSDISPMODE_PERPIXEL unless per-sample shading].
        multisample_rasterization_mode: if d.raster.multisample.is_some() {
            c::Cmd3dstateWm::MULTISAMPLE_RASTERIZATION_MODE_MSRASTMODE_ON_PATTERN
        } else {
            c::Cmd3dstateWm::MULTISAMPLE_RASTERIZATION_MODE_MSRASTMODE_OFF_PIXEL
        },
        multisample_dispatch_mode: if d.raster.multisample.is_some() {
            c::Cmd3dstateWm::MULTISAMPLE_DISPATCH_MODE_MSDISPMODE_PERPIXEL
        } else {
            c::Cmd3dstateWm::MULTISAMPLE_DISPATCH_MODE_MSDISPMODE_PERSAMPLE
        },
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

super::shared::vertex_input!(gen6, Cmd3dstateVertexElementsElement, element, {});
