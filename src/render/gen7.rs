//! Ivy Bridge: one draw as a batch. Manual 001 has no 3D pages: the
//! packets are Mesa's gen7.xml (through the hal tables, where each cites
//! it) and the order is the one Linux's Gen7 userspace uses for a draw
//! [ext: intel-gpu-tools lib/rendercopy_gen7.c gen7_render_copyfunc:
//! PIPELINE_SELECT, STATE_BASE_ADDRESS, multisample, URB, VS, HS, TE, DS,
//! GS, CLIP, SF, WM, STREAMOUT, depth buffer, CC, samplers, SBE, PS, vertex
//! elements and buffers, binding table, drawing rectangle, 3DPRIMITIVE],
//! with the flushes Mesa puts around it.
//!
//! What differs from Sandy Bridge: the URB is split per stage after the
//! push-constant space (3DSTATE_PUSH_CONSTANT_ALLOC_*, 3DSTATE_URB_*);
//! state pointers are one command per stage or structure; SF_CLIP_VIEWPORT
//! merges the two viewports; setup's attribute state moved to 3DSTATE_SBE
//! and the pixel-shader dispatch to 3DSTATE_PS, 3DSTATE_WM keeping the
//! rasteriser's side; depth and stencil are always separate buffers.

use baregpu_hal::Generation;
use baregpu_hal::gen7::commands as c;
use baregpu_hal::gen7::structs as s;

use super::desc::{Cull, DepthFormat, Draw, Fill};
use super::plan::Plan;
use super::shared::{push_constants, scissor_bounds};
use crate::compute::ComputeError;
use crate::compute::state::gen7::{invalidate_read_only_caches, surface_state};
use crate::compute::state::sampler::{gen7_sampler_entry, sampler_table};
use crate::compute::state::{Cmds, StateArea, binding_table};

/// Thread counts of the smallest part, Ivy Bridge GT1: 36 VS, 48 PS
/// threads [ext: Mesa src/intel/dev/intel_device_info.c ivb_gt1
/// max_vs_threads, max_wm_threads].
const VS_THREADS: u32 = 36;
const PS_THREADS: u32 = 48;
/// GS threads on GT1 [ext: Mesa intel_device_info.c ivb_gt1
/// max_gs_threads 36].
const GS_THREADS: u32 = 36;
/// GS URB entries on GT1 [ext: Mesa intel_device_info.c ivb_gt1
/// urb.max_entries GEOMETRY 192].
const GS_MAX_ENTRIES: u32 = 192;
/// Push-constant space: 16 KiB on Ivy Bridge, split evenly between the
/// VS and the PS when no other stage runs [ext: Mesa intel_device_info.c
/// GFX7_FEATURES max_constant_urb_size_kb = 16; Mesa i965 gen7_urb.c
/// gen7_allocate_push_constants divides it among the active stages].
const PUSH_CONSTANT_KB: u32 = 16;
/// VS URB entries: at least 32 and at most 512 on GT1 [ext: Mesa
/// intel_device_info.c ivb_gt1 urb min_entries/max_entries], a multiple of
/// 8 when an entry is under 9 rows of 64 bytes [ext: Mesa gen7_urb.c
/// "multiple of 8 if size < 9"], in a 32 KiB region after the push
/// constants, which every Ivy Bridge L3 configuration's URB holds.
const VS_MIN_ENTRIES: u32 = 32;
const VS_MAX_ENTRIES: u32 = 512;
const VS_URB_BYTES: u32 = 32 << 10;
/// Push-constant registers a stage reads (3DSTATE_CONSTANT_* read lengths:
/// the VS and PS spaces above, 8 KiB = 256 registers, of which the four
/// buffers' 6-bit lengths reach 63 each for buffer 0).
const MAX_CONSTANT_ROWS: u64 = 63;

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
            // The target's samples in array slices (MSFMT_MSS), one
            // level's height apart (ARYSPC_LOD0: the slices' QPitch is
            // LOD 0's aligned height) [ext: Mesa genxml gen7.xml
            // RENDER_SURFACE_STATE; isl_surface_state.c
            // isl_encode_multisample_layout, and ARYSPC_LOD0 for
            // ISL_ARRAY_PITCH_SPAN_COMPACT, which isl chooses for a
            // single-level surface].
            if let Some(m) = ms
                && *desc == target
            {
                type R = s::RenderSurfaceState;
                st.number_of_multisamples = match m.samples {
                    super::desc::Samples::X4 => R::NUMBER_OF_MULTISAMPLES_MULTISAMPLECOUNT_4,
                    super::desc::Samples::X8 => R::NUMBER_OF_MULTISAMPLES_MULTISAMPLECOUNT_8,
                };
                st.multisampled_surface_storage_format =
                    R::MULTISAMPLED_SURFACE_STORAGE_FORMAT_MSFMT_MSS;
                st.surface_array_spacing = R::SURFACE_ARRAY_SPACING_ARYSPC_LOD0;
            }
            area.put(at, &st)
        },
    )?;
    let samplers = sampler_table(&plan.samplers, area, 16, gen7_sampler_entry)?;
    let v = d.viewport;
    // SF_CLIP_VIEWPORT: 64-byte aligned; the guard band is the viewport.
    let sf_clip = area.alloc(64, 64);
    area.put(
        sf_clip,
        &s::SfClipViewport {
            viewport_matrix_element_m00: v.width / 2.0,
            viewport_matrix_element_m11: -v.height / 2.0,
            viewport_matrix_element_m22: v.max_depth - v.min_depth,
            viewport_matrix_element_m30: v.x + v.width / 2.0,
            viewport_matrix_element_m31: v.y + v.height / 2.0,
            viewport_matrix_element_m32: v.min_depth,
            x_min_clip_guardband: -1.0,
            x_max_clip_guardband: 1.0,
            y_min_clip_guardband: -1.0,
            y_max_clip_guardband: 1.0,
        },
    )?;
    let cc_vp = area.alloc(8, 32);
    area.put(
        cc_vp,
        &s::CcViewport {
            minimum_depth: v.min_depth.min(v.max_depth),
            maximum_depth: v.max_depth.max(v.min_depth),
        },
    )?;
    let scissor = d.raster.scissor.map(|r| {
        let [x1, y1, x2, y2] = scissor_bounds(r);
        let rect = s::ScissorRect {
            scissor_rectangle_x_min: x1,
            scissor_rectangle_y_min: y1,
            scissor_rectangle_x_max: x2,
            scissor_rectangle_y_max: y2,
        };
        (area.alloc(8, 32), rect)
    });
    if let Some((at, rect)) = &scissor {
        area.put(*at, rect)?;
    }
    let (blend, depth_stencil, cc) = output_state(d, area)?;
    let vs_constants = push_constants(
        area,
        d.vs.map_or(&[][..], |v| v.constants),
        MAX_CONSTANT_ROWS,
    )?;
    let gs_constants = push_constants(
        area,
        d.gs.map_or(&[][..], |g| g.constants),
        MAX_CONSTANT_ROWS,
    )?;
    let ps_constants = push_constants(area, d.ps.constants, MAX_CONSTANT_ROWS)?;
    // The quadword the post-sync writes of the workarounds land in.
    let scratch_qw = base + area.alloc(8, 8) as u64;
    let dynamic_end = (base + area.bytes() as u64).next_multiple_of(4096);

    // --- commands ---
    // Caches written out and read caches invalidated before PIPELINE_SELECT
    // (the same steps as the compute path).
    cmds.push(&c::PipeControl {
        command_streamer_stall_enable: true,
        render_target_cache_flush_enable: true,
        depth_cache_flush_enable: true,
        dc_flush_enable: true,
        ..Default::default()
    })?;
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
    // One sample at the pixel centre, enabled; or the draw's samples.
    cmds.push(&multisample(d))?;
    cmds.push(&c::Cmd3dstateSampleMask {
        sample_mask: ms.map_or(1, |m| m.mask),
    })?;
    urb(d, plan, cmds)?;
    // The VS workaround flush before the VS state: a depth stall with a
    // post-sync write [ext: Mesa i965 gen7_emit_vs_workaround_flush].
    cmds.push(&c::PipeControl {
        depth_stall_enable: true,
        post_sync_operation: c::PipeControl::POST_SYNC_OPERATION_WRITE_IMMEDIATE_DATA,
        address: scratch_qw,
        ..Default::default()
    })?;
    cmds.push(&c::Cmd3dstateConstantVs {
        constant_buffer_0_read_length: vs_constants.map_or(0, |(_, rows)| rows),
        pointer_to_constant_buffer_0: vs_constants.map_or(0, |(at, _)| at as u64),
        ..Default::default()
    })?;
    cmds.push(&vs(d, plan)?)?;
    // Tessellation off; the geometry shader when the draw has one.
    cmds.push(&c::Cmd3dstateHs::default())?;
    cmds.push(&c::Cmd3dstateTe::default())?;
    cmds.push(&c::Cmd3dstateDs::default())?;
    if d.gs.is_some() {
        cmds.push(&c::Cmd3dstateConstantGs {
            constant_buffer_0_read_length: gs_constants.map_or(0, |(_, rows)| rows),
            pointer_to_constant_buffer_0: gs_constants.map_or(0, |(at, _)| at as u64),
            ..Default::default()
        })?;
    }
    cmds.push(&gs(d, plan)?)?;
    stream_output(d, cmds)?;
    cmds.push(&clip(d))?;
    cmds.push(&sf(d))?;
    cmds.push(&sbe(d))?;
    cmds.push(&wm(d))?;
    cmds.push(&c::Cmd3dstateConstantPs {
        constant_buffer_0_read_length: ps_constants.map_or(0, |(_, rows)| rows),
        pointer_to_constant_buffer_0: ps_constants.map_or(0, |(at, _)| at as u64),
        ..Default::default()
    })?;
    cmds.push(&ps(
        d,
        plan,
        samplers.map_or(0, |t| t.count),
        ps_constants.is_some(),
    )?)?;
    cmds.push(&c::Cmd3dstateViewportStatePointersSfClip {
        sf_clip_viewport_pointer: sf_clip,
    })?;
    cmds.push(&c::Cmd3dstateViewportStatePointersCc {
        cc_viewport_pointer: cc_vp,
    })?;
    cmds.push(&c::Cmd3dstateBlendStatePointers {
        blend_state_pointer: blend,
        must_be_one: true,
    })?;
    cmds.push(&c::Cmd3dstateDepthStencilStatePointers {
        pointer_to_depth_stencil_state: depth_stencil,
        must_be_one: true,
    })?;
    cmds.push(&c::Cmd3dstateCcStatePointers {
        color_calc_state_pointer: cc,
        must_be_one: true,
    })?;
    if let Some((at, _)) = scissor {
        cmds.push(&c::Cmd3dstateScissorStatePointers {
            scissor_rect_pointer: at,
        })?;
    }
    cmds.push(&c::Cmd3dstateBindingTablePointersVs {
        pointer_to_vs_binding_table: table,
    })?;
    if d.gs.is_some() {
        cmds.push(&c::Cmd3dstateBindingTablePointersGs {
            pointer_to_gs_binding_table: table,
        })?;
    }
    cmds.push(&c::Cmd3dstateBindingTablePointersPs {
        pointer_to_ps_binding_table: table,
    })?;
    if let Some(t) = samplers {
        cmds.push(&c::Cmd3dstateSamplerStatePointersVs {
            pointer_to_vs_sampler_state: t.at,
        })?;
        cmds.push(&c::Cmd3dstateSamplerStatePointersPs {
            pointer_to_ps_sampler_state: t.at,
        })?;
    }
    depth_buffer(d, cmds)?;
    let (w, h) = plan.target_size;
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
    // The pixels out of the render and depth caches before the fence.
    cmds.push(&c::PipeControl {
        command_streamer_stall_enable: true,
        render_target_cache_flush_enable: true,
        depth_cache_flush_enable: true,
        dc_flush_enable: true,
        ..Default::default()
    })?;
    // After the stall: the count once the draw's primitives are written.
    if let Some((buffer, at)) = count {
        store_prims_written(cmds, buffer.gfx().0 + at as u64 + 8)?;
    }
    Ok(())
}

/// Stream 0's SO_NUM_PRIMS_WRITTEN (5200h, 64 bits) [ext: Linux i915_reg.h
/// GEN7_SO_NUM_PRIMS_WRITTEN(n)] stored at `at` with two
/// MI_STORE_REGISTER_MEMs, low dword first.
fn store_prims_written(cmds: &mut Cmds, at: u64) -> Result<(), ComputeError> {
    let reg = baregpu_hal::gen7::regs::SO_NUM_PRIMS_WRITTEN
        .at(0)
        .map_or(0x5200, |r| r.offset());
    for half in 0..2 {
        cmds.push(&c::MiStoreRegisterMem {
            use_global_gtt: true,
            register_address: reg + 4 * half,
            memory_address: at + 4 * half as u64,
        })?;
    }
    Ok(())
}

/// Stream output off, or the buffers, stream 0's decls and the SOL unit's
/// state, and each buffer's write offset loaded into SO_WRITE_OFFSETn
/// with MI_LOAD_REGISTER_IMM [ext: Mesa i965 gen7_sol_state.c
/// upload_3dstate_so_buffers (end address start + size),
/// upload_3dstate_so_decl_list, upload_3dstate_streamout (read offset 0,
/// read length the rows less one); Linux i915_reg.h
/// GEN7_SO_WRITE_OFFSET(n)]. Reorder LEADING keeps a strip's provoking
/// vertex first, as setup's VERTEX_0 provoking vertex has it.
fn stream_output(d: &Draw<'_>, cmds: &mut Cmds) -> Result<(), ComputeError> {
    let Some(so) = &d.stream_output else {
        return cmds.push(&c::Cmd3dstateStreamout::default());
    };
    let mut offsets = alloc::vec::Vec::new();
    for (k, b) in so.buffers.iter().enumerate() {
        let start = b.buffer.gfx().0;
        cmds.push(&c::Cmd3dstateSoBuffer {
            so_buffer_index: k as u32,
            surface_pitch: b.pitch,
            surface_base_address: start,
            surface_end_address: start + b.buffer.size() as u64,
            ..Default::default()
        })?;
        let reg = baregpu_hal::gen7::regs::SO_WRITE_OFFSET
            .at(k as u32)
            .map_or(0x5280 + 4 * k as u32, |r| r.offset());
        offsets.push(c::MiLoadRegisterImmRegisters {
            register_offset: reg,
            data_dword: b.offset,
        });
    }
    cmds.push(&c::MiLoadRegisterImm {
        byte_write_disables: 0,
        registers: offsets,
    })?;
    let selects = so.decls.iter().fold(0u32, |m, e| m | 1 << e.buffer);
    let max_slot = so
        .decls
        .iter()
        .filter(|e| !e.hole)
        .map(|e| e.slot)
        .max()
        .unwrap_or(0);
    cmds.push(&c::Cmd3dstateSoDeclList {
        stream_to_buffer_selects_0: selects,
        num_entries_0: so.decls.len() as u32,
        so_decl_entry: so
            .decls
            .iter()
            .map(|e| c::Cmd3dstateSoDeclListSoDeclEntry {
                stream_0_output_buffer_slot: e.buffer,
                stream_0_hole_flag: e.hole,
                stream_0_register_index: if e.hole { 0 } else { e.slot },
                stream_0_component_mask: e.mask as u32,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    })?;
    cmds.push(&c::Cmd3dstateStreamout {
        so_function_enable: true,
        rendering_disable: !so.rendering,
        reorder_mode: c::Cmd3dstateStreamout::REORDER_MODE_LEADING,
        so_statistics_enable: true,
        so_buffer_enable_0: selects & 1 != 0,
        so_buffer_enable_1: selects & 2 != 0,
        so_buffer_enable_2: selects & 4 != 0,
        so_buffer_enable_3: selects & 8 != 0,
        stream_0_vertex_read_offset: 0,
        stream_0_vertex_read_length: (max_slot + 1).div_ceil(2) - 1,
        ..Default::default()
    })
}

/// Push-constant space split evenly between the active stages (VS, the
/// GS with one, PS; the PS takes the remainder), then the VS's and GS's
/// URB entries after it in 8 KiB chunks, partitioned as Mesa does: each
/// stage its minimum, the rest in proportion to what each could still use
/// [ext: Mesa i965 gen7_urb.c gen7_allocate_push_constants and
/// gen7_upload_urb, now intel_urb_config.c intel_get_urb_config]. HS and
/// DS get no entries, starting where the GS's end.
fn urb(d: &Draw<'_>, plan: &Plan, cmds: &mut Cmds) -> Result<(), ComputeError> {
    let stages = 2 + d.gs.is_some() as u32;
    let per_stage = PUSH_CONSTANT_KB / stages;
    let gs_kb = if d.gs.is_some() { per_stage } else { 0 };
    cmds.push(&c::Cmd3dstatePushConstantAllocVs {
        constant_buffer_offset: 0,
        constant_buffer_size: per_stage,
    })?;
    // Always sent (empty without a GS, as Mesa sends it): the state
    // outlives the batch, and an earlier draw's GS space would overlap.
    cmds.push(&c::Cmd3dstatePushConstantAllocGs {
        constant_buffer_offset: per_stage,
        constant_buffer_size: gs_kb,
    })?;
    cmds.push(&c::Cmd3dstatePushConstantAllocPs {
        constant_buffer_offset: per_stage + gs_kb,
        constant_buffer_size: PUSH_CONSTANT_KB - per_stage - gs_kb,
    })?;
    // Entry sizes in 64-byte rows (four 128-bit slots each).
    let vs_rows = plan.vue_slots.div_ceil(4).max(1);
    let gs_rows = d.gs.map(|g| gs_entry_rows(&g));
    let p = super::shared::gen7_urb_partition(
        PUSH_CONSTANT_KB / 8,
        (PUSH_CONSTANT_KB << 10) + VS_URB_BYTES,
        (vs_rows, VS_MIN_ENTRIES, VS_MAX_ENTRIES),
        gs_rows.map(|r| (r, 2, GS_MAX_ENTRIES)),
    );
    if p.vs_entries < VS_MIN_ENTRIES {
        return Err(ComputeError::OutOfRange {
            what: "vertex URB entry slots",
            value: plan.vue_slots as u64,
            max: (VS_URB_BYTES / (VS_MIN_ENTRIES * 64) * 4) as u64,
        });
    }
    // A DUAL_OBJECT or DUAL_INSTANCE thread holds two entries [ext: Mesa
    // intel_urb_config.c "we need room for at least 2 URB entries"].
    if let Some(rows) = gs_rows
        && p.gs_entries < 2
    {
        return Err(ComputeError::OutOfRange {
            what: "geometry shader URB entry rows (control data and max_vertices vertices)",
            value: rows as u64,
            max: (VS_URB_BYTES / 2 / 8 / 64) as u64,
        });
    }
    let vs_start = PUSH_CONSTANT_KB / 8;
    let gs_start = vs_start + p.vs_chunks;
    let after = gs_start + p.gs_chunks;
    cmds.push(&c::Cmd3dstateUrbVs {
        vs_urb_starting_address: vs_start,
        vs_urb_entry_allocation_size: vs_rows - 1,
        vs_number_of_urb_entries: p.vs_entries,
    })?;
    cmds.push(&c::Cmd3dstateUrbHs {
        hs_urb_starting_address: after,
        ..Default::default()
    })?;
    cmds.push(&c::Cmd3dstateUrbDs {
        ds_urb_starting_address: after,
        ..Default::default()
    })?;
    cmds.push(&c::Cmd3dstateUrbGs {
        gs_urb_starting_address: gs_start,
        gs_urb_entry_allocation_size: gs_rows.map_or(0, |r| r - 1),
        gs_number_of_urb_entries: p.gs_entries,
    })
}

/// 64-byte rows of a GS URB entry: the control data header (32-byte
/// units), then `max_vertices` vertices of `output_slots` 16-byte slots
/// [ext: Mesa elk_compile_gs output_size_bytes, rounded to 64 bytes].
fn gs_entry_rows(g: &super::desc::GeometryShader<'_>) -> u32 {
    let bytes = g.control_data_header * 32 + g.max_vertices * g.output_slots * 16;
    bytes.div_ceil(64).max(1)
}

/// 3DSTATE_GS: disabled without a geometry shader; else its kernel,
/// payload, output vertex size and topology, control data, instances and
/// dispatch mode, trailing reorder [ext: Mesa genxml gen7.xml 3DSTATE_GS;
/// genX_state_upload.c genX(upload_gs_state): OutputVertexSize in 16-byte
/// units less one, ReorderMode TRAILING, Statistics on].
fn gs(d: &Draw<'_>, plan: &Plan) -> Result<c::Cmd3dstateGs, ComputeError> {
    let Some(g) = &d.gs else {
        return Ok(c::Cmd3dstateGs::default());
    };
    no_scratch(g.kernel)?;
    Ok(c::Cmd3dstateGs {
        kernel_start_pointer: (g.kernel.gfx.0 - plan.heap.0) as u32,
        binding_table_entry_count: plan.bt_entries.min(255),
        output_vertex_size: g.output_slots - 1,
        output_topology: g.output_topology.code(),
        vertex_urb_entry_read_length: g.input_rows,
        vertex_urb_entry_read_offset: 0,
        dispatch_grf_start_register_for_urb_data: g
            .dispatch_start(1 + g.include_primitive_id as u32)?,
        maximum_number_of_threads: GS_THREADS - 1,
        control_data_header_size: g.control_data_header,
        instance_control: g.instances - 1,
        dispatch_mode: g.dispatch.code(),
        gs_statistics_enable: true,
        include_primitive_id: g.include_primitive_id,
        reorder_enable: true,
        gs_enable: true,
        ..Default::default()
    })
}

super::shared::output_state!(gen7);

fn vs(d: &Draw<'_>, plan: &Plan) -> Result<c::Cmd3dstateVs, ComputeError> {
    let Some(v) = &d.vs else {
        return Ok(c::Cmd3dstateVs::default());
    };
    no_scratch(v.kernel)?;
    Ok(c::Cmd3dstateVs {
        kernel_start_pointer: (v.kernel.gfx.0 - plan.heap.0) as u32,
        binding_table_entry_count: plan.bt_entries.min(255),
        dispatch_grf_start_register_for_urb_data: v.dispatch_start()?,
        vertex_urb_entry_read_length: v.inputs.div_ceil(2),
        vertex_urb_entry_read_offset: 0,
        maximum_number_of_threads: VS_THREADS - 1,
        vs_function_enable: true,
        ..Default::default()
    })
}

/// 3DSTATE_MULTISAMPLE: one sample at the pixel centre, or the standard
/// positions (offsets from the pixel's upper-left corner) with the pixel
/// location at the centre, as Mesa programs them [ext: Mesa genxml
/// gen7.xml 3DSTATE_MULTISAMPLE; crocus_state.c 3DSTATE_MULTISAMPLE
/// PixelLocation CENTER, INTEL_SAMPLE_POS_*X].
fn multisample(d: &Draw<'_>) -> c::Cmd3dstateMultisample {
    type M = c::Cmd3dstateMultisample;
    let Some(ms) = d.raster.multisample else {
        return M::default();
    };
    let p = ms.samples.positions();
    let at = |k: usize| p.get(k).copied().unwrap_or((0, 0));
    M {
        pixel_location: M::PIXEL_LOCATION_PIXLOC_CENTER,
        number_of_multisamples: match ms.samples {
            super::desc::Samples::X4 => M::NUMBER_OF_MULTISAMPLES_NUMSAMPLES_4,
            super::desc::Samples::X8 => M::NUMBER_OF_MULTISAMPLES_NUMSAMPLES_8,
        },
        sample0_x_offset: at(0).0,
        sample0_y_offset: at(0).1,
        sample1_x_offset: at(1).0,
        sample1_y_offset: at(1).1,
        sample2_x_offset: at(2).0,
        sample2_y_offset: at(2).1,
        sample3_x_offset: at(3).0,
        sample3_y_offset: at(3).1,
        sample4_x_offset: at(4).0,
        sample4_y_offset: at(4).1,
        sample5_x_offset: at(5).0,
        sample5_y_offset: at(5).1,
        sample6_x_offset: at(6).0,
        sample6_y_offset: at(6).1,
        sample7_x_offset: at(7).0,
        sample7_y_offset: at(7).1,
    }
}

fn no_scratch(k: &crate::compute::Kernel<'_>) -> Result<(), ComputeError> {
    if k.scratch.is_some() {
        return Err(ComputeError::Unsupported {
            generation: Generation::Gen7,
            what: "scratch space in a 3D shader",
        });
    }
    Ok(())
}

fn cull(c: Cull) -> u32 {
    match c {
        Cull::None => c::Cmd3dstateSf::CULL_MODE_CULLMODE_NONE,
        Cull::Front => c::Cmd3dstateSf::CULL_MODE_CULLMODE_FRONT,
        Cull::Back => c::Cmd3dstateSf::CULL_MODE_CULLMODE_BACK,
    }
}

/// 3DSTATE_CLIP: as on Sandy Bridge, with Ivy Bridge's early cull taking
/// the SF's winding and cull mode [ext: Mesa gen7.xml 3DSTATE_CLIP; i965
/// gen7 upload_clip_state copies them].
fn clip(d: &Draw<'_>) -> c::Cmd3dstateClip {
    c::Cmd3dstateClip {
        front_winding: d.raster.front_ccw as u32,
        cull_mode: cull(d.raster.cull),
        clip_enable: true,
        api_mode: c::Cmd3dstateClip::API_MODE_APIMODE_D3D,
        viewport_xy_cliptest_enable: true,
        viewport_z_cliptest_enable: true,
        guardband_cliptest_enable: true,
        clip_mode: c::Cmd3dstateClip::CLIP_MODE_CLIPMODE_NORMAL,
        ..Default::default()
    }
}

/// 3DSTATE_SF: the rasteriser's state; its depth format must be the depth
/// buffer's (D32_FLOAT with none) [ext: Mesa gen7.xml 3DSTATE_SF Depth
/// Buffer Surface Format].
fn sf(d: &Draw<'_>) -> c::Cmd3dstateSf {
    let r = d.raster;
    let fill = |f: Fill| match f {
        Fill::Solid => c::Cmd3dstateSf::FRONTFACE_FILL_MODE_FILL_MODE_SOLID,
        Fill::Wireframe => c::Cmd3dstateSf::FRONTFACE_FILL_MODE_FILL_MODE_WIREFRAME,
        Fill::Point => c::Cmd3dstateSf::FRONTFACE_FILL_MODE_FILL_MODE_POINT,
    };
    c::Cmd3dstateSf {
        depth_buffer_surface_format: depth_format(d.depth.map(|z| z.format)),
        viewport_transform_enable: true,
        front_winding: d.raster.front_ccw as u32,
        cull_mode: cull(r.cull),
        frontface_fill_mode: fill(r.fill_front),
        backface_fill_mode: fill(r.fill_back),
        scissor_rectangle_enable: r.scissor.is_some(),
        line_width: 1 << 7,
        // MSRASTMODE_ON_PATTERN (3) multisampled, as 3DSTATE_WM's.
        multisample_rasterization_mode: if r.multisample.is_some() { 3 } else { 0 },
        ..Default::default()
    }
}

/// 3DSTATE_SBE: the attributes after the vertex header and position, as
/// Sandy Bridge's SF read them (read offset 1 row, at least one row).
fn sbe(d: &Draw<'_>) -> c::Cmd3dstateSbe {
    c::Cmd3dstateSbe {
        number_of_sf_output_attributes: d.attributes,
        vertex_urb_entry_read_length: d.attributes.div_ceil(2).max(1),
        vertex_urb_entry_read_offset: 1,
        constant_interpolation_enable: d.flat,
        ..Default::default()
    }
}

fn wm(d: &Draw<'_>) -> c::Cmd3dstateWm {
    let ps = d.ps;
    c::Cmd3dstateWm {
        statistics_enable: true,
        thread_dispatch_enable: true,
        pixel_shader_kill_pixel: ps.kills_pixels,
        pixel_shader_computed_depth_mode: ps.computes_depth as u32,
        pixel_shader_uses_source_depth: ps.uses_source_depth,
        pixel_shader_uses_source_w: ps.uses_source_w,
        barycentric_interpolation_mode: ps.barycentrics.0,
        // The pattern, one pixel-shader invocation per pixel [ext: Mesa
        // gen7_wm_state.c upload_wm_state: MSRASTMODE_ON_PATTERN and
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
    }
}

/// 3DSTATE_PS: the kernels with Sandy Bridge's KSP assignment (8: KSP0;
/// 16: KSP0; both: 8 in KSP0 and 16 in KSP2) [ext: Mesa gen7.xml
/// 3DSTATE_PS, i965 gen7_wm_state upload_ps_state].
fn ps(
    d: &Draw<'_>,
    plan: &Plan,
    sampler_count: u32,
    constants: bool,
) -> Result<c::Cmd3dstatePs, ComputeError> {
    let p = d.ps;
    let mut ps = c::Cmd3dstatePs {
        sampler_count,
        binding_table_entry_count: plan.bt_entries.min(255),
        maximum_number_of_threads: PS_THREADS - 1,
        push_constant_enable: constants,
        attribute_enable: d.attributes > 0,
        pixel_dispatch_enable_8: p.simd8.is_some(),
        pixel_dispatch_enable_16: p.simd16.is_some(),
        ..Default::default()
    };
    let offset = |k: &crate::compute::Kernel<'_>| -> Result<u32, ComputeError> {
        no_scratch(k)?;
        Ok((k.gfx.0 - plan.heap.0) as u32)
    };
    match (p.simd8, p.simd16) {
        (Some(k8), Some(k16)) => {
            ps.kernel_start_pointer_0 = offset(k8.kernel)?;
            ps.dispatch_grf_start_register_for_constant_setup_data_0 = k8.grf_start;
            ps.kernel_start_pointer_2 = offset(k16.kernel)?;
            ps.dispatch_grf_start_register_for_constant_setup_data_2 = k16.grf_start;
        }
        (Some(k), None) | (None, Some(k)) => {
            ps.kernel_start_pointer_0 = offset(k.kernel)?;
            ps.dispatch_grf_start_register_for_constant_setup_data_0 = k.grf_start;
        }
        (None, None) => return Err(ComputeError::Invalid("no pixel-shader kernel")),
    }
    Ok(ps)
}

fn depth_format(f: Option<DepthFormat>) -> u32 {
    type D = c::Cmd3dstateDepthBuffer;
    match f {
        None | Some(DepthFormat::D32Float) => D::SURFACE_FORMAT_D32_FLOAT,
        Some(DepthFormat::D16Unorm) => D::SURFACE_FORMAT_D16_UNORM,
        // Depth only; the stencil half is a separate buffer on Gen7.
        Some(DepthFormat::D24UnormS8Uint | DepthFormat::D24UnormX8) => {
            D::SURFACE_FORMAT_D24_UNORM_X8_UINT
        }
    }
}

/// The depth buffer (always Y-tiled on Gen7), or a NULL one, then empty
/// hierarchical-depth and stencil buffers and the clear value, as Mesa
/// emits them together [ext: Mesa i965 gen7_emit_depth_stencil_hiz].
fn depth_buffer(d: &Draw<'_>, cmds: &mut Cmds) -> Result<(), ComputeError> {
    type D = c::Cmd3dstateDepthBuffer;
    let z = d.depth_stencil;
    cmds.push(&match d.depth {
        None => D {
            surface_type: D::SURFACE_TYPE_SURFTYPE_NULL,
            surface_format: D::SURFACE_FORMAT_D32_FLOAT,
            ..Default::default()
        },
        Some(b) => D {
            surface_type: D::SURFACE_TYPE_SURFTYPE_2D,
            depth_write_enable: z.depth_write,
            // Set with a stencil buffer that the draw writes [ext: Mesa
            // i965 gen7_misc_state.c: stencil_mt && Stencil._WriteEnabled].
            stencil_write_enable: b.stencil.is_some() && z.writes_stencil(),
            surface_format: depth_format(Some(b.format)),
            surface_pitch: b.pitch - 1,
            surface_base_address: b.gfx().0,
            width: b.width - 1,
            height: b.height - 1,
            ..Default::default()
        },
    })?;
    cmds.push(&c::Cmd3dstateHierDepthBuffer::default())?;
    // All zero for no stencil buffer, as Mesa sends it.
    cmds.push(&match d.depth.and_then(|b| b.stencil.as_ref()) {
        Some(s) => c::Cmd3dstateStencilBuffer {
            surface_pitch: s.pitch - 1,
            surface_base_address: s.mapping.gfx.0,
            ..Default::default()
        },
        None => c::Cmd3dstateStencilBuffer::default(),
    })?;
    cmds.push(&c::Cmd3dstateClearParams::default())
}

// Vertex buffers with Ivy Bridge's Address Modify Enable, without which
// the buffer's address is not taken [ext: Mesa gen7.xml
// VERTEX_BUFFER_STATE; igt rendercopy_gen7 sets it].
super::shared::vertex_input!(
    gen7,
    Cmd3dstateVertexElementsVertexElementState,
    vertex_element_state,
    { address_modify_enable: true, }
);
