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

use super::sampler::{gen7_sampler_entry, sampler_table};
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
    let table = binding_table(
        &plan.surfaces,
        plan.bt_entries,
        area,
        32,
        32,
        |area, at, d| area.put(at, &surface_state(d)),
    )?;
    // Samplers and their four-float border colours (16 bytes).
    let samplers = sampler_table(&plan.samplers, area, 16, gen7_sampler_entry)?;
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
            // Dynamic State offsets [ext: Mesa gen7.xml INTERFACE_DESCRIPTOR_DATA].
            sampler_state_pointer: samplers.map_or(0, |t| t.at),
            sampler_count: samplers.map_or(0, |t| t.count),
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
    // Groups with shared local memory need SLM ways in the L3; on the
    // software GPU the writes only land in its register file.
    if kernel.slm_bytes > 0 {
        partition_l3_for_slm(cmds)?;
    }
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
        let (urb_rows, urb_entries) =
            media_urb(Generation::Gen7, plan.work.inline_dwords(), curbe_rows)?;
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

/// Ivy Bridge L3 way split with SLM: Mesa's validated IVB configuration
/// SLM 16, URB 16, DC 16, RO 16 ways (of 64), the row its weighting picks
/// when a kernel needs SLM and the data cache (SLM 1, URB 1, DC 0.1, RO 1)
/// [ext: Mesa src/intel/common/intel_l3_config.c ivb_l3_configs,
/// intel_get_default_l3_weights, intel_get_l3_config]. Manual 001 has no
/// L3 register pages; offsets and bits are in hal gen7 registers.toml.
mod l3 {
    /// Ways per partition of the chosen row.
    pub const SLM_WAYS: u8 = 16;
    pub const URB_WAYS: u8 = 16;
    pub const DC_WAYS: u8 = 16;
    pub const RO_WAYS: u8 = 16;
    /// L3SQCREG1 general/high priority credit initialization, the IVB
    /// default [ext: Mesa src/mesa/drivers/dri/i965/intel_reg.h
    /// IVB_L3SQCREG1_SQGHPCI_DEFAULT]. No convert-to-uncached bits: DC has
    /// ways, and IS, C and T read through the RO partition.
    pub const SQC_CREDITS_IVB: u32 = 0x0073_0000;
    // The low-bandwidth URB must mirror SLM (see partition_l3_for_slm).
    const _: () = assert!(URB_WAYS == SLM_WAYS);
}

/// Programs the L3 split with SLM before the walker, as Mesa does for IVB
/// [ext: Mesa src/mesa/drivers/dri/i965/gen7_l3_state.c setup_l3_config]:
/// the L3 may change only on a drained pipeline with flushed caches. The
/// stalling flush and the read-only invalidation before PIPELINE_SELECT are
/// its first two steps; this stalling data-cache flush is its third, so the
/// invalidation is complete when the registers change. Nothing is restored
/// afterwards: Mesa's end-of-batch restore protects other contexts that
/// assume the default URB size; this driver has no 3D pipeline and its media
/// URB (at most 32 KiB, `URB_ROWS_SNB`) fits in the 16 URB ways.
fn partition_l3_for_slm(cmds: &mut Cmds) -> Result<(), ComputeError> {
    use baregpu_hal::gen7::regs as r;
    cmds.push(&c::PipeControl {
        command_streamer_stall_enable: true,
        dc_flush_enable: true,
        ..Default::default()
    })?;
    // SLM uses half of the banks; the matching space on the others goes to
    // the URB in low-bandwidth (2-bank hashing) mode, so URB ways = SLM ways
    // [ext: Mesa setup_l3_config, urb_low_bw for all Gen7 but Bay Trail].
    let cntl2 = r::L3cntlreg2::new()
        .with_slm_enable(true)
        .with_urb_allocation(l3::URB_WAYS)
        .with_urb_low_bandwidth(true)
        .with_ro_allocation(l3::RO_WAYS)
        .with_dc_allocation(l3::DC_WAYS);
    // IS, C and T get no ways of their own (they share RO).
    let cntl3 = r::L3cntlreg3::new();
    let pair = |reg: u32, data: u32| c::MiLoadRegisterImmRegisters {
        register_offset: reg,
        data_dword: data,
    };
    cmds.push(&c::MiLoadRegisterImm {
        byte_write_disables: 0,
        registers: alloc::vec![
            pair(r::L3SQCREG1.offset(), l3::SQC_CREDITS_IVB),
            pair(r::L3CNTLREG2.offset(), cntl2.into_bits()),
            pair(r::L3CNTLREG3.offset(), cntl3.into_bits()),
        ],
    })
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
