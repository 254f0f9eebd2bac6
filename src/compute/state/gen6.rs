//! Sandy Bridge media pipeline: the [DevSNB+] programming model of 003
//! lines 46642-46772 (flush, PIPELINE_SELECT, STATE_BASE_ADDRESS,
//! MEDIA_VFE_STATE, MEDIA_CURBE_LOAD, MEDIA_INTERFACE_DESCRIPTOR_LOAD, then
//! MEDIA_OBJECT or MEDIA_OBJECT_WALKER), with the SNB PIPE_CONTROL
//! workarounds around the flushes.

use baregpu_hal::Generation;
use baregpu_hal::gen6::commands as c;
use baregpu_hal::gen6::structs as s;

use super::sampler::{GEN6_BORDER_BYTES, gen6_sampler_entry, sampler_table};
use super::{
    Cmds, Plan, StateArea, binding_table, max_threads, media_urb, place_curbe, scratch_space,
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
    let (urb_rows, urb_entries) =
        media_urb(Generation::Gen6, plan.work.inline_dwords(), curbe_rows)?;

    // --- state ---
    let table = binding_table(
        &plan.surfaces,
        plan.bt_entries,
        area,
        32,
        32,
        |area, at, d| area.put(at, &surface_state(d)),
    )?;
    let samplers = sampler_table(&plan.samplers, area, GEN6_BORDER_BYTES, gen6_sampler_entry)?;
    // Descriptors: 32 bytes, 32-byte aligned (003 lines 47660-47749).
    let id = area.alloc(32, 32);
    area.put(
        id,
        &s::InterfaceDescriptorData {
            single_program_flow: kernel.single_program_flow as u32,
            // Dynamic State offsets (003 lines 47856-47876).
            sampler_state_pointer: samplers.map_or(0, |t| t.at),
            sampler_count: samplers.map_or(0, |t| t.count),
            ..interface_descriptor(kernel, table, plan.bt_entries)
        },
    )?;
    // CURBE data: Dynamic State offset, 32-byte aligned (003 lines 47588-47659).
    let curbe = place_curbe(plan, area, plan.curbe.len(), 32);
    // The quadword the post-sync workaround writes.
    let scratch_qw = base + area.alloc(8, 8) as u64;
    let dynamic_end = (base + area.bytes() as u64).next_multiple_of(4096);

    // --- commands ---
    // Step 1 (003 lines 46652-46660), and the flush PIPELINE_SELECT needs
    // (003 lines 839-841): write caches out, then read-only caches
    // invalidated [ext: Mesa i965 brw_emit_select_pipeline quotes the
    // [DevSNB+] rule for both].
    write_cache_flush(cmds, scratch_qw)?;
    cmds.push(&invalidate_read_only_caches())?;
    cmds.push(&c::PipelineSelect {
        pipeline_selection: c::PipelineSelect::PIPELINE_SELECTION_PIPELINE_MEDIA,
    })?;
    cmds.push(&state_base_address(base, dynamic_end, kernel))?;
    let (scratch, scratch_code) = scratch_space(kernel);
    cmds.push(&c::MediaVfeState {
        scratch_space_base_pointer: scratch as u32,
        per_thread_scratch_space: scratch_code,
        maximum_number_of_threads: max_threads(Generation::Gen6) - 1,
        number_of_urb_entries: urb_entries,
        urb_entry_allocation_size: urb_rows,
        curbe_allocation_size: curbe_rows,
        ..Default::default()
    })?;
    if let Some(at) = curbe {
        cmds.push(&curbe_load(at, plan.curbe.len()))?;
    }
    cmds.push(&descriptor_load(id))?;
    // MEDIA_OBJECTs or the walker; thread groups are refused (no GPGPU_WALKER on SNB).
    media_threads(cmds, plan.work)?;
    // Lets later state loads pipeline behind the objects (003 lines 48064-48168).
    cmds.push(&c::MediaStateFlush::default())?;
    // Data-port writes go through the render cache: flush it for the CPU.
    write_cache_flush(cmds, scratch_qw)?;
    Ok(())
}

// The builders SNB shares with Ivy Bridge (state/media.rs): the cache
// invalidation, STATE_BASE_ADDRESS, the descriptor, the two loads and the
// media threads. SNB's tables call an inline dword `inline_data`.
super::media::snb_media!(gen6, Generation::Gen6, inline_data);

/// A render-cache flush with CS stall, behind the SNB workarounds: a CS
/// stall needs a companion bit (003 lines 29689-29714; the pixel scoreboard
/// stall), and a write-cache flush needs a PIPE_CONTROL with a non-zero
/// post-sync operation before it (003 lines 29076-29078).
pub(crate) fn write_cache_flush(cmds: &mut Cmds, scratch_qw: u64) -> Result<(), ComputeError> {
    cmds.push(&c::PipeControl {
        command_streamer_stall_enable: true,
        stall_at_pixel_scoreboard: true,
        ..Default::default()
    })?;
    cmds.push(&c::PipeControl {
        post_sync_operation: c::PipeControl::POST_SYNC_OPERATION_WRITE_IMMEDIATE_DATA,
        address: scratch_qw,
        ..Default::default()
    })?;
    cmds.push(&c::PipeControl {
        command_streamer_stall_enable: true,
        render_target_cache_flush_enable: true,
        depth_cache_flush_enable: true,
        ..Default::default()
    })
}

super::surface::surface_state!(
    /// SURFACE_STATE [DevSNB] (003 lines 75428-76407), with read-write
    /// render cache allocation, which OWord, DWord scattered and atomic
    /// writes need (003 line 83649).
    s::SurfaceState,
    Generation::Gen6,
    s::SurfaceState::RENDER_CACHE_READ_WRITE_MODE_READ_WRITE
);
