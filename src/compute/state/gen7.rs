//! Ivy Bridge media and GPGPU pipelines. Manual 001 has no command pages:
//! the packets are Mesa's gen7.xml (through the hal tables) and the order is
//! SNB's media programming model (003 lines 46642-46772), which the minimal
//! Ivy Bridge sequences follow [ext: intel-gpu-tools lib/gpgpu_fill.c
//! gen7_gpgpu_fillfunc and lib/media_fill.c: PIPELINE_SELECT,
//! STATE_BASE_ADDRESS, MEDIA_VFE_STATE, MEDIA_CURBE_LOAD,
//! MEDIA_INTERFACE_DESCRIPTOR_LOAD, walker or objects], with Mesa's flushes
//! around them.

use baregpu_hal::gen7::commands as c;
use baregpu_hal::gen7::structs as s;

use super::gen6::raster_walk;
use super::{
    Cmds, Plan, StateArea, Work, binding_table, bt_prefetch_count, max_threads, media_urb,
};
use crate::compute::error::ComputeError;
use crate::compute::surface::{SurfaceDesc, SurfaceKind};
use crate::gtt::tiling::Tiling;
use baregpu_hal::Generation;

pub(crate) fn record(
    plan: &Plan<'_>,
    base: u64,
    area: &mut StateArea,
    cmds: &mut Cmds,
) -> Result<(), ComputeError> {
    let kernel = plan.kernel;
    let curbe_rows = (plan.curbe.len() / 32) as u32;
    let gpgpu = matches!(plan.work, Work::Groups { .. });

    // --- state ---
    let table = binding_table(plan, area, 32, 32, |area, at, d| {
        area.put(at, &surface_state(d))
    })?;
    let threads_in_group = match plan.work {
        Work::Groups { threads, .. } => threads,
        _ => 0,
    };
    let id = area.alloc(32, 32);
    area.put(
        id,
        &s::InterfaceDescriptorData {
            kernel_start_pointer: (kernel.gfx.0 - kernel.heap_base.0) as u32,
            single_program_flow: kernel.single_program_flow,
            binding_table_pointer: table,
            binding_table_entry_count: bt_prefetch_count(plan.bt_entries),
            // Per thread: in GPGPU mode thread n of a group reads the n-th
            // block of this length [ext: Mesa iris/i965 gen7 compute push
            // constants, one copy per thread before Haswell's cross-thread data].
            constant_urb_entry_read_length: kernel.curbe_rows(),
            constant_urb_entry_read_offset: 0,
            barrier_enable: kernel.barriers,
            shared_local_memory_size: slm_code(kernel.slm_bytes),
            number_of_threads_in_gpgpu_thread_group: threads_in_group,
            ..Default::default()
        },
    )?;
    let curbe = (!plan.curbe.is_empty()).then(|| {
        let at = area.alloc(plan.curbe.len(), 32);
        area.put_bytes(at, &plan.curbe);
        at
    });
    let dynamic_end = (base + area.bytes() as u64).next_multiple_of(4096);

    // --- commands ---
    // Write caches out with a stall, then invalidate the read-only caches,
    // before PIPELINE_SELECT [ext: Mesa i965 brw_emit_select_pipeline, the
    // [DevSNB+] rule, with the data cache flush Gen7 adds].
    cmds.push(&c::PipeControl {
        command_streamer_stall_enable: true,
        render_target_cache_flush_enable: true,
        depth_cache_flush_enable: true,
        dc_flush_enable: true,
        ..Default::default()
    })?;
    cmds.push(&c::PipeControl {
        instruction_cache_invalidate_enable: true,
        texture_cache_invalidation_enable: true,
        constant_cache_invalidation_enable: true,
        state_cache_invalidation_enable: true,
        ..Default::default()
    })?;
    cmds.push(&c::PipelineSelect {
        pipeline_selection: if gpgpu {
            c::PipelineSelect::PIPELINE_SELECTION_GPGPU
        } else {
            c::PipelineSelect::PIPELINE_SELECTION_MEDIA
        },
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
        instruction_base_address: kernel.heap_base.0,
        instruction_base_address_modify_enable: true,
        general_state_access_upper_bound: 0,
        general_state_access_upper_bound_modify_enable: true,
        dynamic_state_access_upper_bound: dynamic_end,
        dynamic_state_access_upper_bound_modify_enable: true,
        indirect_object_access_upper_bound: 0,
        indirect_object_access_upper_bound_modify_enable: true,
        instruction_access_upper_bound: kernel.heap_end.0,
        instruction_access_upper_bound_modify_enable: true,
        ..Default::default()
    })?;
    let (scratch, scratch_code) = kernel
        .scratch
        .as_ref()
        .map_or((0, 0), |sc| (sc.mapping.gfx.0, sc.encoded));
    let mut vfe = c::MediaVfeState {
        scratch_space_base_pointer: scratch,
        per_thread_scratch_space: scratch_code,
        maximum_number_of_threads: max_threads(Generation::Gen7) - 1,
        ..Default::default()
    };
    if gpgpu {
        // GPGPU mode takes no URB entries; the CURBE is allocated in pairs
        // of rows [ext: Mesa i965 gen7 compute MEDIA_VFE_STATE: GPGPU mode,
        // 0 URB entries, gateway timer reset and bypass; iris
        // CURBEAllocationSize = ALIGN(rows, 2)].
        vfe.gpgpu_mode = true;
        vfe.reset_gateway_timer = true;
        vfe.bypass_gateway_control = true;
        vfe.curbe_allocation_size = curbe_rows.next_multiple_of(2);
    } else {
        let (urb_rows, urb_entries) = media_urb(plan.work.inline_dwords(), curbe_rows)?;
        vfe.number_of_urb_entries = urb_entries;
        vfe.urb_entry_allocation_size = urb_rows;
        vfe.curbe_allocation_size = curbe_rows;
    }
    cmds.push(&vfe)?;
    if let Some(at) = curbe {
        cmds.push(&c::MediaCurbeLoad {
            curbe_total_data_length: plan.curbe.len() as u32,
            curbe_data_start_address: at,
        })?;
    }
    cmds.push(&c::MediaInterfaceDescriptorLoad {
        interface_descriptor_total_length: 32,
        interface_descriptor_data_start_address: id,
    })?;
    match plan.work {
        Work::Objects {
            inline,
            per_thread,
            threads,
        } => {
            for t in 0..threads {
                let data = inline
                    .get(t * per_thread..(t + 1) * per_thread)
                    .unwrap_or(&[]);
                cmds.push(&c::MediaObject {
                    interface_descriptor_offset: 0,
                    inline_data: data
                        .iter()
                        .map(|&data| c::MediaObjectInlineData { data })
                        .collect(),
                    ..Default::default()
                })?;
            }
        }
        Work::Walker {
            width,
            height,
            inline,
        } => {
            let w = raster_walk(width, height);
            cmds.push(&c::MediaObjectWalker {
                interface_descriptor_offset: 0,
                global_loop_exec_count: w.loop_count,
                local_loop_exec_count: w.loop_count,
                block_resolution_x: width,
                block_resolution_y: height,
                local_end_x: width - 1,
                local_outer_loop_stride_y: 1,
                local_inner_loop_unit_x: 1,
                global_resolution_x: width,
                global_resolution_y: height,
                global_outer_loop_stride_x: w.outer_x,
                global_inner_loop_unit_y: w.inner_y,
                inline_data: inline
                    .iter()
                    .map(|&data| c::MediaObjectWalkerInlineData { data })
                    .collect(),
                ..Default::default()
            })?;
        }
        Work::Groups {
            groups,
            threads,
            right_mask,
        } => {
            // One thread group per ID; its threads counted in X only, the
            // bottom mask unused [ext: Mesa anv genX_cmd_buffer.c CmdDispatch].
            cmds.push(&c::GpgpuWalker {
                interface_descriptor_offset: 0,
                simd_size: simd_code(kernel.simd),
                thread_width_counter_maximum: threads - 1,
                thread_height_counter_maximum: 0,
                thread_depth_counter_maximum: 0,
                thread_group_id_x_dimension: groups[0],
                thread_group_id_y_dimension: groups[1],
                thread_group_id_z_dimension: groups[2],
                right_execution_mask: right_mask,
                bottom_execution_mask: 0xffff_ffff,
                ..Default::default()
            })?;
        }
    }
    // After the walker, as Mesa does [ext: anv CmdDispatch, iris
    // iris_upload_gpgpu_walker].
    cmds.push(&c::MediaStateFlush::default())?;
    // Data-port writes sit in the data cache (L3) and render cache.
    cmds.push(&c::PipeControl {
        command_streamer_stall_enable: true,
        render_target_cache_flush_enable: true,
        dc_flush_enable: true,
        ..Default::default()
    })?;
    Ok(())
}

/// GPGPU_WALKER SIMD Size: 0 SIMD8, 1 SIMD16, 2 SIMD32 (hal gen7 media.toml).
fn simd_code(simd: crate::compute::Simd) -> u32 {
    match simd {
        crate::compute::Simd::Simd8 => c::GpgpuWalker::SIMD_SIZE_SIMD8,
        crate::compute::Simd::Simd16 => c::GpgpuWalker::SIMD_SIZE_SIMD16,
        crate::compute::Simd::Simd32 => c::GpgpuWalker::SIMD_SIZE_SIMD32,
    }
}

/// Shared Local Memory Size: powers of two from 4 KiB, in 4 KiB units (0,
/// 1, 2, 4, 8, 16) [ext: Mesa encode_slm_size, Gfx7-8 row].
pub(crate) fn slm_code(bytes: u32) -> u32 {
    if bytes == 0 {
        0
    } else {
        bytes.next_power_of_two().max(4096) / 4096
    }
}

/// RENDER_SURFACE_STATE [ext: Mesa gen7.xml], read-write render cache
/// allocation as on SNB (003 line 83649) [ext: igt gen7_fill_surface_state
/// sets it too].
fn surface_state(d: &SurfaceDesc) -> s::RenderSurfaceState {
    use s::RenderSurfaceState as S;
    let mut st = S {
        surface_format: d.format,
        render_cache_read_write_mode: 1,
        surface_base_address: d.base,
        ..Default::default()
    };
    match d.kind {
        SurfaceKind::Buffer { entries, stride } => {
            let (w, h, depth) = SurfaceDesc::buffer_split(entries, Generation::Gen7);
            st.surface_type = S::SURFACE_TYPE_SURFTYPE_BUFFER;
            st.width = w;
            st.height = h;
            st.depth = depth;
            // Element size minus one; RAW buffers count bytes [ext: Mesa isl
            // buffer_fill_state, SurfacePitch = stride - 1].
            st.surface_pitch = stride - 1;
        }
        SurfaceKind::Image2d {
            width,
            height,
            pitch,
            tiling,
        } => {
            st.surface_type = S::SURFACE_TYPE_SURFTYPE_2D;
            st.width = width - 1;
            st.height = height - 1;
            st.surface_pitch = pitch - 1;
            st.tiled_surface = tiling != Tiling::Linear;
            st.tile_walk = if tiling == Tiling::Y {
                S::TILE_WALK_TILEWALK_YMAJOR
            } else {
                S::TILE_WALK_TILEWALK_XMAJOR
            };
        }
    }
    st
}
