//! Ivy Bridge media and GPGPU pipelines. Manual 001 has no command pages:
//! the packets are Mesa's gen7.xml (through the hal tables) and the order is
//! SNB's media programming model (003 lines 46642-46772), which the minimal
//! Ivy Bridge sequences follow [ext: intel-gpu-tools lib/gpgpu_fill.c
//! gen7_gpgpu_fillfunc and lib/media_fill.c: PIPELINE_SELECT,
//! STATE_BASE_ADDRESS, MEDIA_VFE_STATE, MEDIA_CURBE_LOAD,
//! MEDIA_INTERFACE_DESCRIPTOR_LOAD, walker or objects], with Mesa's flushes
//! around them.

use baregpu_hal::Generation;
use baregpu_hal::gen7::commands as c;
use baregpu_hal::gen7::structs as s;

use super::{
    Cmds, Plan, StateArea, Work, binding_table, max_threads, media_urb, place_curbe, scratch_space,
};
use crate::compute::error::ComputeError;

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
        // The constant read length is per thread: in GPGPU mode thread n of
        // a group reads the n-th block of it [ext: Mesa iris/i965 gen7
        // compute push constants, one copy per thread before Haswell's
        // cross-thread data].
        &s::InterfaceDescriptorData {
            single_program_flow: kernel.single_program_flow,
            barrier_enable: kernel.barriers,
            shared_local_memory_size: slm_code(kernel.slm_bytes),
            number_of_threads_in_gpgpu_thread_group: threads_in_group,
            ..interface_descriptor(kernel, table, plan.bt_entries)
        },
    )?;
    let curbe = place_curbe(plan, area, plan.curbe.len(), 32);
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
    cmds.push(&invalidate_read_only_caches())?;
    cmds.push(&c::PipelineSelect {
        pipeline_selection: if gpgpu {
            c::PipelineSelect::PIPELINE_SELECTION_GPGPU
        } else {
            c::PipelineSelect::PIPELINE_SELECTION_MEDIA
        },
    })?;
    cmds.push(&state_base_address(base, dynamic_end, kernel))?;
    let (scratch, scratch_code) = scratch_space(kernel);
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
        cmds.push(&curbe_load(at, plan.curbe.len()))?;
    }
    cmds.push(&descriptor_load(id))?;
    match plan.work {
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
        // MEDIA_OBJECTs or the walker, as on SNB.
        media => media_threads(cmds, media)?,
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

// SNB's builders (state/media.rs), on Ivy Bridge's tables of the same
// layouts, whose inline dword is called `data`.
super::media::snb_media!(gen7, Generation::Gen7, data);

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

super::surface::surface_state!(
    /// RENDER_SURFACE_STATE [ext: Mesa gen7.xml], read-write render cache
    /// allocation as on SNB (003 line 83649) [ext: igt
    /// gen7_fill_surface_state sets it too]; the hal table names no values
    /// for the bit, hence the 1.
    s::RenderSurfaceState,
    Generation::Gen7,
    1
);
