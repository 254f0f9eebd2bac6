//! 965 (Gen4) and G45 media pipeline.
//!
//! Our manuals lack the 965/G45 media chapter (Vol 2), so the sequence is
//! the one the two drivers that ran this pipeline use [ext:
//! intel-vaapi-driver src/i965_media.c i965_media_pipeline_setup;
//! xf86-video-intel src/xvmc/i965_xvmc.c render_surface]:
//!
//! 1. MI_FLUSH, invalidating the state and instruction caches (the kernel
//!    and the state were just written by the CPU);
//! 2. PIPELINE_SELECT (media);
//! 3. URB_FENCE: the VFE region holds one entry per root thread (its inline
//!    data), the CS region the CURBE;
//! 4. STATE_BASE_ADDRESS;
//! 5. MEDIA_STATE_POINTERS to the VFE state, which points to the interface
//!    descriptors;
//! 6. with constants, CS_URB_STATE and CONSTANT_BUFFER (libva's step 5);
//! 7. one MEDIA_OBJECT per thread;
//! 8. MI_FLUSH, writing the render cache back.
//!
//! The General State Base is 0, as both drivers program it: kernel, VFE
//! state, descriptor, scratch and constant pointers are then plain graphics
//! addresses whichever base each one is relative to.

use super::sampler::sampler_table;
use super::{
    Cmds, Plan, StateArea, Work, binding_table, bt_prefetch_count, place_curbe, scratch_space,
};
use crate::compute::error::ComputeError;
use baregpu_hal::Generation;

/// URB rows (512-bit) of each part [ext: intel-vaapi-driver i965_defines.h
/// URB_SIZE: 256 on 965, 384 on G4x].
const URB_ROWS_965: u32 = 256;
const URB_ROWS_G45: u32 = 384;

/// VFE URB entries (one per root thread); the 965 runs 32 threads (8 EUs x 4).
const VFE_ENTRIES: u32 = 32;

/// Dword index within a 64-byte line past which a 3-dword URB_FENCE would
/// cross into the next line: it must not [ext: xf86-video-intel
/// i965_xvmc.c align_urb_fence, "urb fence must be aligned to cacheline";
/// Mesa i965 brw_urb.c pads the same way].
const URB_FENCE_LAST_START: usize = 13;

/// The URB split: VFE entries of `vfe_units` 512-bit rows, then the CS
/// (CURBE) entry of `cs_units` rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UrbLayout {
    pub vfe_units: u32,
    pub vfe_entries: u32,
    pub cs_units: u32,
    pub rows: u32,
}

pub(crate) fn urb_layout(
    generation: Generation,
    inline_dwords: usize,
    curbe_rows: u32,
) -> Result<UrbLayout, ComputeError> {
    let rows = if generation == Generation::G45 {
        URB_ROWS_G45
    } else {
        URB_ROWS_965
    };
    // 16 dwords per 512-bit unit; CURBE registers are 256-bit, two per unit.
    let vfe_units = (inline_dwords.div_ceil(16) as u32).max(1);
    let cs_units = curbe_rows.div_ceil(2);
    let vfe_entries = (rows.saturating_sub(cs_units) / vfe_units).min(VFE_ENTRIES);
    if vfe_entries == 0 {
        return Err(ComputeError::OutOfRange {
            what: "inline dwords per thread",
            value: inline_dwords as u64,
            max: (rows.saturating_sub(cs_units) * 16) as u64,
        });
    }
    Ok(UrbLayout {
        vfe_units,
        vfe_entries,
        cs_units,
        rows,
    })
}

macro_rules! media_pipeline {
    ($name:ident, $gen:ident, $generation:expr) => {
        pub(crate) fn $name(
            plan: &Plan<'_>,
            base: u64,
            area: &mut StateArea,
            cmds: &mut Cmds,
        ) -> Result<(), ComputeError> {
            use baregpu_hal::$gen::commands as c;
            use baregpu_hal::$gen::structs as s;

            let kernel = plan.kernel;
            let Work::Objects {
                inline,
                per_thread,
                threads,
            } = plan.work
            else {
                return Err(ComputeError::Unsupported {
                    generation: $generation,
                    what: "walkers (only MEDIA_OBJECT exists before SNB)",
                });
            };
            let urb = urb_layout($generation, per_thread, kernel.curbe_rows())?;

            // --- state ---
            let table = binding_table(&plan.surfaces, plan.bt_entries, area, 32, 32, |area, at, d| {
                area.put(at, &surface_state(d))
            })?;
            // Samplers and their four-float border colours (16 bytes).
            let samplers = sampler_table(&plan.samplers, area, 16, |area, at, bound| {
                sampler_entry(area, at, bound, base)
            })?;
            // Descriptors are 16-byte aligned (VFE state DW2 bits 31:4).
            let id = area.alloc(16, 16);
            area.put(
                id,
                &s::InterfaceDescriptor {
                    kernel_start_pointer: kernel.gfx.0,
                    // 16-register blocks minus one, as the 3D unit states of
                    // the same hardware encode their GRF counts [ext: Mesa
                    // gen4.xml VS_STATE]; see the report on the drivers' values.
                    grf_register_block_count: kernel.grf_registers / 16 - 1,
                    constant_urb_entry_read_length: kernel.curbe_rows(),
                    constant_urb_entry_read_offset: 0,
                    single_program_flow: kernel.single_program_flow,
                    binding_table_pointer: table,
                    binding_table_entry_count: bt_prefetch_count(plan.bt_entries),
                    // General State offsets: graphics addresses (base 0).
                    sampler_state_pointer: samplers.map_or(0, |t| base + t.at as u64),
                    sampler_count: samplers.map_or(0, |t| t.count),
                    ..Default::default()
                },
            )?;
            let vfe = area.alloc(12, 32);
            let (scratch, scratch_code) = scratch_space(kernel);
            area.put(
                vfe,
                &s::MediaVfeState {
                    scratch_space_base_pointer: scratch,
                    per_thread_scratch_space: scratch_code,
                    // Threads minus one, bounded by the entries (one each).
                    maximum_number_of_threads: urb.vfe_entries - 1,
                    urb_entry_allocation_size: urb.vfe_units - 1,
                    number_of_urb_entries: urb.vfe_entries,
                    vfe_mode: s::MediaVfeState::VFE_MODE_GENERIC,
                    interface_descriptor_base_pointer: base + id as u64,
                    ..Default::default()
                },
            )?;
            // CONSTANT_BUFFER takes 64-byte aligned addresses (bits 31:6).
            let curbe = place_curbe(plan, area, urb.cs_units as usize * 64, 64);

            // --- commands ---
            cmds.push(&c::MiFlush {
                state_instruction_cache_invalidate:
                    c::MiFlush::STATE_INSTRUCTION_CACHE_INVALIDATE_INVALIDATE,
                ..Default::default()
            })?;
            cmds.push(&c::PipelineSelect {
                pipeline_selection: c::PipelineSelect::PIPELINE_SELECTION_PIPELINE_MEDIA,
            })?;
            while cmds.dwords.len() % 16 > URB_FENCE_LAST_START {
                cmds.raw(&[c::MiNoop::HEADER_VALUE]);
            }
            // Every unit reallocated: the 3D units get empty regions, the VFE
            // the first rows, the CS the rest [ext: i965_xvmc.c urb_layout
            // reallocates all units; i965_media.c sets the VFE and CS fences].
            let vfe_fence = urb.vfe_entries * urb.vfe_units;
            cmds.push(&c::UrbFence {
                cs_unit_urb_reallocation_request: true,
                vfe_unit_urb_reallocation_request: true,
                sf_unit_urb_reallocation_request: true,
                clip_unit_urb_reallocation_request: true,
                gs_unit_urb_reallocation_request: true,
                vs_unit_urb_reallocation_request: true,
                vfe_fence,
                cs_fence: urb.rows,
                ..Default::default()
            })?;
            cmds.push(&c::StateBaseAddress {
                general_state_base_address: 0,
                general_state_base_address_modify_enable: true,
                surface_state_base_address: base,
                surface_state_base_address_modify_enable: true,
                indirect_object_base_address: 0,
                indirect_object_base_address_modify_enable: true,
                // 0: no bound check, as both drivers program it.
                general_state_access_upper_bound: 0,
                general_state_access_upper_bound_modify_enable: true,
                indirect_object_access_upper_bound: 0,
                indirect_object_access_upper_bound_modify_enable: true,
            })?;
            cmds.push(&c::MediaStatePointers {
                vfe_state_pointer: base + vfe as u64,
                ..Default::default()
            })?;
            if let Some(at) = curbe {
                // One CS entry of the CURBE's size, minus one (both fields).
                cmds.push(&c::CsUrbState {
                    urb_entry_allocation_size: urb.cs_units - 1,
                    number_of_urb_entries: 1,
                })?;
                cmds.push(&c::ConstantBuffer {
                    valid: true,
                    buffer_starting_address: base + at as u64,
                    buffer_length: urb.cs_units - 1,
                })?;
            }
            media_objects(cmds, inline, per_thread, threads)?;
            cmds.push(&c::MiFlush::default())?;
            Ok(())
        }

        // One MEDIA_OBJECT per thread (state/media.rs), on this table's layout.
        super::super::media::media_objects!($gen, inline_data);

        // SAMPLER_STATE and border colours (state/sampler.rs).
        super::super::sampler::gen4_sampler_entry!($gen);

        super::super::surface::surface_state!(
            /// SURFACE_STATE (000 lines 3052-3334), read-write render cache
            /// allocation (stated for SNB, 003 line 83649; the same bit on 965).
            baregpu_hal::$gen::structs::SurfaceState,
            $generation,
            baregpu_hal::$gen::structs::SurfaceState::RENDER_CACHE_READ_WRITE_MODE_READ_WRITE
        );
    };
}

mod gen4_965 {
    use super::*;
    media_pipeline!(record, gen4, Generation::Gen4);
}

mod gen4_g45 {
    use super::*;
    media_pipeline!(record, g45, Generation::G45);
}

pub(crate) use gen4_965::record as record_gen4;
pub(crate) use gen4_g45::record as record_g45;
