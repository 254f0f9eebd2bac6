//! DG2 (Gen12.5) compute: one COMPUTE_WALKER and the state it reads.
//!
//! The batch, in the order Mesa's Gfx12.5 drivers emit it [ext: Mesa
//! src/gallium/drivers/iris/iris_state.c iris_upload_compute_walker,
//! src/intel/vulkan/genX_cmd_compute.c emit_compute_walker and
//! genX_cmd_buffer.c genX(cmd_buffer_emit_state_base_address)]:
//! 1. PIPE_CONTROL: stall, flush the data port (HDC pipeline and untyped
//!    data-port cache) so that state changes see finished work;
//! 2. PIPELINE_SELECT GPGPU, both Mask Bits set (004 lines 30751-30826);
//! 3. STATE_COMPUTE_MODE: Large GRF Mode written 0 through its mask bit
//!    (128 GRFs; 004 lines 34567-34663, DW1 31:16 mask 15:0);
//! 4. STATE_BASE_ADDRESS (004 lines 34270-34566): General, Surface,
//!    Dynamic and Indirect Object State all at the batch's state area,
//!    Instruction at the kernel's heap, each with its size; then a
//!    PIPE_CONTROL that stalls and invalidates the state and instruction
//!    caches (Mesa's invalidation after a base address change);
//! 5. CFE_STATE (004 lines 12335-12434): Maximum Number of Threads and,
//!    for a kernel with scratch, the scratch surface state (below);
//! 6. COMPUTE_WALKER (004 lines 12738-12980) with its embedded
//!    INTERFACE_DESCRIPTOR_DATA and the inline data;
//! 7. PIPE_CONTROL: stall and flush the data port, so that the threads'
//!    writes are in memory when the submission's fence (which follows the
//!    batch) signals.
//!
//! Every PIPE_CONTROL sets Command Streamer Stall and none of the 3D
//! flushes the compute engine forbids (004 lines 30503-30505).
//!
//! **The thread payload** (what a kernel finds in its registers; the model's
//! `soft/src/gen12_5/compute/payload.rs` loads the same):
//! - R0: r0.0 bits 31:6 the Indirect Data Start Address (an offset from
//!   General State Base, 004 line 12806) [ext: IGC vISA PrologEpilog.cpp
//!   PayloadLoader reads it so]; r0.1, r0.6, r0.7 the group's X, Y, Z IDs;
//!   r0.2 bits 7:0 the thread's index in its group, bits 31:24 the threads
//!   in the group [ext: Mesa brw_fs_nir.cpp load_workgroup_id,
//!   cs_thread_payload].
//! - From R1, the local IDs the walker generates ([`LocalIds`]: X, XY or
//!   XYZ): per component one register of 16-bit IDs, channel n in word n
//!   (SIMD8 uses words 0-7), two registers at SIMD32 (channels 0-15, then
//!   16-31); X, then Y, then Z (004 COMPUTE_WALKER Emit Local).
//! - Then the inline data, one register (8 dwords; 004 Emit Inline
//!   Parameter: right after the local IDs, R1 when none).
//! - Indirect data is not loaded into registers ("The kernel is responsible
//!   for loading the indirect data from memory", 004 line 12806). The walker
//!   names it (Indirect Data Start Address/Length, from General State Base,
//!   here the state area, whose General State Buffer Size bounds the
//!   kernel's stateless reads of it). With `IndirectPointer::InlineQword0`
//!   the driver also puts its 64-bit GPU address in inline dwords 0-1, the
//!   user's inline data following from dword 2 (Mesa anv's convention);
//!   with `IndirectPointer::R0` the inline data is the caller's alone
//!   (Intel's OpenCL runtime's, for IGC's kernels).
//!
//! Surfaces: a binding table (32-byte aligned, 004 INTERFACE_DESCRIPTOR_DATA
//! Binding Table Pointer 20:5 from Surface State Base) of 64-byte
//! RENDER_SURFACE_STATEs (hal gen12.5 structs.toml, Mesa gen125.xml):
//! buffers as RAW SURFTYPE_BUFFER, 2D surfaces linear or Tile4.

use baregpu_hal::gen12_5::commands as c;
use baregpu_hal::gen12_5::structs as s;

use super::{Cmds, Plan, StateArea, Work, binding_table, bt_prefetch_count};
use crate::compute::error::ComputeError;
use crate::compute::kernel::{LocalIds, Simd};
use crate::compute::surface::{SurfaceDesc, SurfaceKind};
use baregpu_hal::Generation;

/// Invocations in one group: "LWS <= 1024" (004 COMPUTE_WALKER DW6 restriction).
pub const MAX_GROUP_INVOCATIONS: u32 = 1024;

/// Inline dwords the walker carries (DW31-38, hal compute.toml).
pub const INLINE_DWORDS: usize = 8;

/// Indirect data a dispatch may carry: the driver's bound, so that it fits
/// the state area (`MAX_STATE_BYTES`) with the binding table and surface
/// states (the field itself is U17, 004 line 12804).
pub const MAX_INDIRECT_BYTES: usize = 32 << 10;

/// CFE_STATE Maximum Number of Threads. Any value that holds one group's
/// threads lets every walker run (at most 1024 / 8 = 128 at SIMD8); Mesa
/// programs the device's compute threads times its subslices [ext: Mesa
/// anv genX_cmd_compute.c emit_cfe_state]. 4096 is DG2-512's 512 EUs of 8
/// threads [ext: Mesa intel_device_info.c DG2 G10].
pub(crate) const CFE_MAX_THREADS: u32 = 4096;

/// Largest scratch part of one thread: the scratch surface's pitch is 18
/// bits of (pitch - 1) (RENDER_SURFACE_STATE Surface Pitch, hal gen12.5
/// structs.toml), so 256 KiB.
pub const MAX_SCRATCH_PER_THREAD: u32 = 1 << 18;

/// One thread's part of the scratch surface for `bytes` of scratch: a
/// whole number of KiB (the granularity the older generations' scratch
/// has; the parts stay 64-byte aligned, as surface bases are).
pub(crate) fn scratch_pitch(bytes: u32) -> Result<u32, ComputeError> {
    crate::compute::error::check_max(
        "scratch bytes per thread",
        u64::from(bytes),
        u64::from(MAX_SCRATCH_PER_THREAD),
    )?;
    Ok(bytes.div_ceil(1024) * 1024)
}

pub(crate) fn record(
    plan: &Plan<'_>,
    base: u64,
    area: &mut StateArea,
    cmds: &mut Cmds,
) -> Result<(), ComputeError> {
    let kernel = plan.kernel;
    let Work::Compute {
        groups,
        group_size,
        threads,
        right_mask,
        inline,
        indirect,
        address_inline,
    } = plan.work
    else {
        return Err(ComputeError::Unsupported {
            generation: Generation::Gen12_5,
            what: "media objects and walkers (COMPUTE_WALKER only)",
        });
    };

    // --- state ---
    let table = binding_table(
        &plan.surfaces,
        plan.bt_entries,
        area,
        64,
        64,
        |area, at, d| area.put(at, &surface_state(d)),
    )?;
    // Scratch: a SURFTYPE_SCRATCH surface state, 64-byte aligned, which
    // CFE_STATE names by its offset [27:6] from Surface State Base (here
    // the state area); "Pitch = Per Thread Scratch Space, Number of
    // entries in the buffer = Maximum Number Of Threads" (004 lines
    // 12356-12365). Threads find it in r0.5 31:10 and reach
    // Base + PThreadID * Pitch (004 line 6653).
    let scratch_surface = match kernel.scratch.as_ref() {
        None => None,
        Some(sc) => {
            let at = area.alloc(64, 64);
            area.put(at, &scratch_state(sc.memory.gfx().0, sc.encoded))?;
            Some(at)
        }
    };
    // Indirect data, 64-byte aligned (Indirect Data Start Address 31:6).
    let indirect_at = (!indirect.is_empty()).then(|| {
        let at = area.alloc(indirect.len(), 64);
        area.put_bytes(at, indirect);
        at
    });
    let state_end = (base + area.bytes() as u64).next_multiple_of(4096);
    let state_pages = ((state_end - base) / 4096) as u32;

    // The inline data: the indirect data's address first when asked to.
    let mut data = [0u32; INLINE_DWORDS];
    let user_at = match indirect_at.filter(|_| address_inline) {
        Some(at) => {
            let addr = base + at as u64;
            data[0] = addr as u32;
            data[1] = (addr >> 32) as u32;
            2
        }
        None => 0,
    };
    let user = data
        .get_mut(user_at..user_at + inline.len())
        .ok_or(ComputeError::OutOfRange {
            what: "inline dwords",
            value: inline.len() as u64,
            max: (INLINE_DWORDS - user_at) as u64,
        })?;
    user.copy_from_slice(inline);
    let emit_inline = !inline.is_empty() || indirect_at.is_some();

    // --- commands ---
    cmds.push(&flush_data_port())?;
    cmds.push(&c::PipelineSelect {
        mask_bits: 0x3,
        pipeline_selection: c::PipelineSelect::PIPELINE_SELECTION_GPGPU,
        ..Default::default()
    })?;
    cmds.push(&c::StateComputeMode {
        // Bit 15 (Large GRF Mode) written, as 0.
        mask: 1 << 15,
        large_grf_mode: false,
        ..Default::default()
    })?;
    cmds.push(&c::StateBaseAddress {
        general_state_base_address: base,
        general_state_base_address_modify_enable: true,
        general_state_buffer_size: state_pages,
        general_state_buffer_size_modify_enable: true,
        surface_state_base_address: base,
        surface_state_base_address_modify_enable: true,
        dynamic_state_base_address: base,
        dynamic_state_base_address_modify_enable: true,
        dynamic_state_buffer_size: state_pages,
        dynamic_state_buffer_size_modify_enable: true,
        indirect_object_base_address: base,
        indirect_object_base_address_modify_enable: true,
        indirect_object_buffer_size: state_pages,
        indirect_object_buffer_size_modify_enable: true,
        instruction_base_address: kernel.heap_base.0,
        instruction_base_address_modify_enable: true,
        instruction_buffer_size: ((kernel.heap_end.0 - kernel.heap_base.0).div_ceil(4096)) as u32,
        instruction_buffer_size_modify_enable: true,
        ..Default::default()
    })?;
    cmds.push(&c::PipeControl {
        command_streamer_stall_enable: true,
        state_cache_invalidation_enable: true,
        instruction_cache_invalidate_enable: true,
        constant_cache_invalidation_enable: true,
        texture_cache_invalidation_enable: true,
        ..Default::default()
    })?;
    cmds.push(&c::CfeState {
        maximum_number_of_threads: CFE_MAX_THREADS,
        scratch_space_buffer: scratch_surface.map_or(0, |at| at >> 6),
        ..Default::default()
    })?;
    let local_ids = kernel.local_ids;
    let simd = simd_code(kernel.simd);
    cmds.push(&c::ComputeWalker {
        indirect_data_length: indirect.len() as u32,
        indirect_data_start_address: indirect_at.unwrap_or(0),
        simd_size: simd,
        message_simd: simd,
        generate_local_id: local_ids != LocalIds::None,
        emit_local: emit_local_code(local_ids),
        emit_inline_parameter: emit_inline,
        walk_order: walk_order(local_ids, group_size)?,
        execution_mask: right_mask,
        local_x_maximum: group_size[0] - 1,
        local_y_maximum: group_size[1] - 1,
        local_z_maximum: group_size[2] - 1,
        thread_group_id_x_dimension: groups[0],
        thread_group_id_y_dimension: groups[1],
        thread_group_id_z_dimension: groups[2],
        interface_descriptor_kernel_start_pointer: (kernel.gfx.0 + u64::from(kernel.entry)
            - kernel.heap_base.0) as u32,
        interface_descriptor_single_program_flow: kernel.single_program_flow,
        interface_descriptor_binding_table_pointer: table,
        interface_descriptor_binding_table_entry_count: bt_prefetch_count(plan.bt_entries),
        interface_descriptor_number_of_barriers: u32::from(kernel.barriers),
        interface_descriptor_shared_local_memory_size: slm_code(kernel.slm_bytes),
        interface_descriptor_number_of_threads_in_gpgpu_thread_group: threads,
        interface_descriptor_preferred_slm_allocation_size: preferred_slm_code(kernel.slm_bytes),
        inline_data0: data[0],
        inline_data1: data[1],
        inline_data2: data[2],
        inline_data3: data[3],
        inline_data4: data[4],
        inline_data5: data[5],
        inline_data6: data[6],
        inline_data7: data[7],
        ..Default::default()
    })?;
    cmds.push(&flush_data_port())?;
    Ok(())
}

/// A stalling PIPE_CONTROL that flushes the data port: the HDC pipeline
/// and the untyped data-port cache (which needs the HDC flush, hal
/// compute.toml), and the data cache.
fn flush_data_port() -> c::PipeControl {
    c::PipeControl {
        command_streamer_stall_enable: true,
        hdc_pipeline_flush: true,
        untyped_data_port_cache_flush: true,
        dc_flush_enable: true,
        ..Default::default()
    }
}

/// SIMD Size / Message SIMD: 0 SIMD8, 1 SIMD16, 2 SIMD32.
fn simd_code(simd: Simd) -> u32 {
    match simd {
        Simd::Simd8 => c::ComputeWalker::SIMD_SIZE_SIMD8,
        Simd::Simd16 => c::ComputeWalker::SIMD_SIZE_SIMD16,
        Simd::Simd32 => c::ComputeWalker::SIMD_SIZE_SIMD32,
    }
}

fn emit_local_code(ids: LocalIds) -> u32 {
    match ids {
        LocalIds::None => c::ComputeWalker::EMIT_LOCAL_EMIT_NONE,
        LocalIds::X => c::ComputeWalker::EMIT_LOCAL_EMIT_X,
        LocalIds::Xy => c::ComputeWalker::EMIT_LOCAL_EMIT_XY,
        LocalIds::Xyz => c::ComputeWalker::EMIT_LOCAL_EMIT_XYZ,
    }
}

/// Walk Order: X fastest (WALK_012) unless one group side is not a power
/// of two, which "Generate Local ID" requires to be walked last (004
/// COMPUTE_WALKER Generate Local ID restriction): then that side goes last,
/// the others keep their order. The local IDs a channel gets are the same
/// either way (the other sides are walked within it).
fn walk_order(ids: LocalIds, size: [u32; 3]) -> Result<u32, ComputeError> {
    let npot: alloc::vec::Vec<usize> = (0..3).filter(|&d| !size[d].is_power_of_two()).collect();
    if ids == LocalIds::None || npot.is_empty() {
        return Ok(c::ComputeWalker::WALK_ORDER_WALK_012);
    }
    match npot.as_slice() {
        [0] => Ok(c::ComputeWalker::WALK_ORDER_WALK_120),
        [1] => Ok(c::ComputeWalker::WALK_ORDER_WALK_021),
        [2] => Ok(c::ComputeWalker::WALK_ORDER_WALK_012),
        _ => Err(ComputeError::Invalid(
            "generated local IDs allow one group side that is not a power of two (004 COMPUTE_WALKER)",
        )),
    }
}

/// Shared Local Memory Size: 0, then 1 KiB << (code - 1) up to 64 KiB (hal
/// compute.toml ENCODES_0K..ENCODES_64K, Mesa gen125.xml).
fn slm_code(bytes: u32) -> u32 {
    if bytes == 0 {
        return 0;
    }
    let kib = bytes.div_ceil(1024).next_power_of_two();
    kib.trailing_zeros() + 1
}

/// Preferred SLM Allocation Size: the smallest listed size (0, 16, 32, 64
/// KiB) that holds one group's SLM (hal compute.toml SLM_ENCODES_*; Mesa
/// encodes the per-subslice need the same way, intel_compute_slm.c).
fn preferred_slm_code(bytes: u32) -> u32 {
    match bytes {
        0 => 8,
        1..=0x4000 => 9,
        0x4001..=0x8000 => 10,
        _ => 11,
    }
}

/// The scratch surface: `CFE_MAX_THREADS` parts of `pitch` bytes at
/// `base`, RAW like the buffers (Mesa isl_genX(buffer_fill_state_s) for
/// scratch: SURFTYPE_SCRATCH, Surface Pitch = stride - 1, the entry count
/// split as a buffer's).
fn scratch_state(base: u64, pitch: u32) -> s::RenderSurfaceState {
    let buffer = SurfaceDesc {
        base,
        format: crate::compute::surface::RAW_FORMAT,
        kind: SurfaceKind::Buffer {
            entries: CFE_MAX_THREADS,
            stride: pitch,
        },
    };
    s::RenderSurfaceState {
        surface_type: s::RenderSurfaceState::SURFACE_TYPE_SURFTYPE_SCRATCH,
        ..surface_state(&buffer)
    }
}

/// RENDER_SURFACE_STATE of a buffer (RAW or typed SURFTYPE_BUFFER, the
/// entry count over Width 6:0, Height 20:7, Depth 31:21 as the model and
/// Mesa isl buffer_fill_state_s split it) or a 2D surface (linear or
/// Tile4, pitch - 1).
fn surface_state(d: &SurfaceDesc) -> s::RenderSurfaceState {
    type S = s::RenderSurfaceState;
    let mut st = S {
        surface_format: d.format,
        surface_base_address: d.base,
        ..Default::default()
    };
    match d.kind {
        SurfaceKind::Buffer { entries, stride } => {
            let (w, h, depth) = SurfaceDesc::buffer_split(entries, Generation::Gen12_5);
            st.surface_type = S::SURFACE_TYPE_SURFTYPE_BUFFER;
            st.width = w;
            st.height = h;
            st.depth = depth;
            st.surface_pitch = stride - 1;
        }
        SurfaceKind::Image2d {
            width,
            height,
            pitch,
            tile4,
            ..
        } => {
            st.surface_type = S::SURFACE_TYPE_SURFTYPE_2D;
            // VALIGN_4: the smallest valid encoding (0 is reserved, hal
            // structs.toml); a single-level, single-slice surface has no
            // second image to align, so the choice does not move a texel.
            st.surface_vertical_alignment = S::SURFACE_VERTICAL_ALIGNMENT_VALIGN_4;
            st.width = width - 1;
            st.height = height - 1;
            st.surface_pitch = pitch - 1;
            st.tile_mode = if tile4 {
                S::TILE_MODE_TILE4
            } else {
                S::TILE_MODE_LINEAR
            };
        }
    }
    st
}
