//! Sandy Bridge media pipeline: the [DevSNB+] programming model of 003
//! lines 46642-46772 (flush, PIPELINE_SELECT, STATE_BASE_ADDRESS,
//! MEDIA_VFE_STATE, MEDIA_CURBE_LOAD, MEDIA_INTERFACE_DESCRIPTOR_LOAD, then
//! MEDIA_OBJECT or MEDIA_OBJECT_WALKER), with the SNB PIPE_CONTROL
//! workarounds around the flushes.

use baregpu_hal::gen6::commands as c;
use baregpu_hal::gen6::structs as s;

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
    let (urb_rows, urb_entries) = media_urb(plan.work.inline_dwords(), curbe_rows)?;

    // --- state ---
    let table = binding_table(plan, area, 32, 32, |area, at, d| {
        area.put(at, &surface_state(d))
    })?;
    // Descriptors: 32 bytes, 32-byte aligned (003 lines 47660-47749).
    let id = area.alloc(32, 32);
    area.put(
        id,
        &s::InterfaceDescriptorData {
            // Relative to Instruction Base (003 line 47762).
            kernel_start_pointer: (kernel.gfx.0 - kernel.heap_base.0) as u32,
            single_program_flow: kernel.single_program_flow as u32,
            binding_table_pointer: table,
            binding_table_entry_count: bt_prefetch_count(plan.bt_entries),
            constant_urb_entry_read_length: kernel.curbe_rows(),
            constant_urb_entry_read_offset: 0,
            ..Default::default()
        },
    )?;
    // CURBE data: Dynamic State offset, 32-byte aligned (003 lines 47588-47659).
    let curbe = (!plan.curbe.is_empty()).then(|| {
        let at = area.alloc(plan.curbe.len(), 32);
        area.put_bytes(at, &plan.curbe);
        at
    });
    // The quadword the post-sync workaround writes.
    let scratch_qw = base + area.alloc(8, 8) as u64;
    let dynamic_end = (base + area.bytes() as u64).next_multiple_of(4096);

    // --- commands ---
    // Step 1 (003 lines 46652-46660), and the flush PIPELINE_SELECT needs
    // (003 lines 839-841): write caches out, then read-only caches
    // invalidated (the kernel and state are new) [ext: Mesa i965
    // brw_emit_select_pipeline quotes the [DevSNB+] rule for both].
    write_cache_flush(cmds, scratch_qw)?;
    cmds.push(&c::PipeControl {
        instruction_cache_invalidate_enable: true,
        texture_cache_invalidation_enable: true,
        constant_cache_invalidation_enable: true,
        state_cache_invalidation_enable: true,
        ..Default::default()
    })?;
    cmds.push(&c::PipelineSelect {
        pipeline_select: c::PipelineSelect::PIPELINE_SELECT_PIPELINE_MEDIA,
    })?;
    // Bases (003 lines 1092-1504): General 0 (scratch pointers become
    // addresses), Surface and Dynamic at the state area, Instruction at the
    // kernel's heap. Upper bounds are exclusive, 0 = unchecked.
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
                        .map(|&inline_data| c::MediaObjectInlineData { inline_data })
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
                color_count_minus_one: 0,
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
                    .map(|&inline_data| c::MediaObjectWalkerInlineData { inline_data })
                    .collect(),
                ..Default::default()
            })?;
        }
        Work::Groups { .. } => {
            return Err(ComputeError::Unsupported {
                generation: Generation::Gen6,
                what: "GPGPU_WALKER (Ivy Bridge and later)",
            });
        }
    }
    // Lets later state loads pipeline behind the objects (003 lines 48064-48168).
    cmds.push(&c::MediaStateFlush::default())?;
    // Data-port writes go through the render cache: flush it for the CPU.
    write_cache_flush(cmds, scratch_qw)?;
    Ok(())
}

/// A render-cache flush with CS stall, behind the SNB workarounds: a CS
/// stall needs a companion bit (003 lines 29689-29714; the pixel scoreboard
/// stall), and a write-cache flush needs a PIPE_CONTROL with a non-zero
/// post-sync operation before it (003 lines 29076-29078).
fn write_cache_flush(cmds: &mut Cmds, scratch_qw: u64) -> Result<(), ComputeError> {
    cmds.push(&c::PipeControl {
        cs_stall: true,
        stall_at_pixel_scoreboard: true,
        ..Default::default()
    })?;
    cmds.push(&c::PipeControl {
        post_sync_operation: c::PipeControl::POST_SYNC_OPERATION_WRITE_IMMEDIATE_DATA,
        address: scratch_qw,
        ..Default::default()
    })?;
    cmds.push(&c::PipeControl {
        cs_stall: true,
        render_target_cache_flush_enable: true,
        depth_cache_flush_enable: true,
        ..Default::default()
    })
}

/// MEDIA_OBJECT_WALKER numbers of a plain raster walk over the grid.
pub(crate) struct RasterWalk {
    /// Loop execution counts: the largest the 10-bit fields hold; the walk
    /// ends at the resolution.
    pub loop_count: u32,
    pub outer_x: i32,
    pub inner_y: i32,
}

/// A raster walk: one block the size of the grid, rows top to bottom, each
/// row left to right [ext: intel-vaapi-driver i965_gpe_utils.c
/// i965_init_media_object_walker_parameter, the no-dependency case: local
/// outer stride (0,1), inner unit (1,0), local end (w-1,0), global outer
/// stride (w,0), global inner unit (0,h)]; field widths from 003 lines
/// 50230-50538.
pub(crate) fn raster_walk(width: u32, height: u32) -> RasterWalk {
    RasterWalk {
        loop_count: 0x3ff,
        outer_x: width as i32,
        inner_y: height as i32,
    }
}

/// SURFACE_STATE [DevSNB] (003 lines 75428-76407), with read-write render
/// cache allocation, which OWord, DWord scattered and atomic writes need
/// (003 line 83649).
fn surface_state(d: &SurfaceDesc) -> s::SurfaceState {
    use s::SurfaceState as S;
    let mut st = S {
        surface_format: d.format,
        render_cache_read_write_mode: S::RENDER_CACHE_READ_WRITE_MODE_READ_WRITE,
        surface_base_address: d.base,
        ..Default::default()
    };
    match d.kind {
        SurfaceKind::Buffer { entries, stride } => {
            let (w, h, depth) = SurfaceDesc::buffer_split(entries, Generation::Gen6);
            st.surface_type = S::SURFACE_TYPE_SURFTYPE_BUFFER;
            st.width = w;
            st.height = h;
            st.depth = depth;
            // BUFFER: the structure size minus one, [0,2047] (notes seed-003 §3.9).
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
