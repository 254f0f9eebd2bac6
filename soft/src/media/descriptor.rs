//! Interface descriptors: what a dispatch command's Interface Descriptor
//! Offset selects (kernel, binding table, constants, flow and float modes,
//! barrier and shared local memory), unpacked with the hal's typed
//! structures into one generation-neutral form.
//!
//! * 965/G45 INTERFACE_DESCRIPTOR, 16 bytes, at the VFE state's Interface
//!   Descriptor Base + 16 x offset, General State relative (hal gen4
//!   media.toml, from intel-vaapi-driver / xf86-video-intel [ext]).
//! * SNB INTERFACE_DESCRIPTOR_DATA, 32 bytes, loaded by
//!   MEDIA_INTERFACE_DESCRIPTOR_LOAD (003 lines 47750-47991).
//! * Ivy Bridge INTERFACE_DESCRIPTOR_DATA [ext: Mesa gen7.xml], adding
//!   rounding mode, barrier enable, shared local memory size and the
//!   threads of a GPGPU group.

use crate::gpe::cr0;
use baregpu_hal::Packet;
use baregpu_isa::IsaGen;

use super::MediaError;

/// An interface descriptor, addresses resolved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Descriptor {
    /// Graphics address of the kernel's first instruction.
    pub kernel: u64,
    /// cr0.0 and cr0.1 at dispatch.
    pub cr0: [u32; 2],
    /// Sampler state pointer as R0.3 carries it.
    pub sampler_state: u32,
    /// Binding table pointer (Surface State Base relative).
    pub binding_table: u32,
    /// Constant registers each thread reads, and the first.
    pub curbe_rows: u32,
    pub curbe_offset: u32,
    /// SNB Barrier ID (DW5 3:0).
    pub barrier_id: u8,
    /// Ivy Bridge Barrier Enable.
    pub barrier_enable: bool,
    /// Ivy Bridge shared local memory bytes.
    pub slm_bytes: u32,
    /// Ivy Bridge Number of Threads in GPGPU Thread Group.
    pub group_threads: u32,
    /// 965/G45 GRF Register Block Count, as stored.
    pub grf_blocks: u8,
}

macro_rules! gen4_descriptor {
    ($gen:ident, $dw:expr, $general:expr) => {{
        let d = baregpu_hal::$gen::structs::InterfaceDescriptor::unpack($dw)
            .map_err(|_| MediaError::Command)?;
        Descriptor {
            kernel: $general.wrapping_add(d.kernel_start_pointer),
            cr0: cr0(
                d.floating_point_mode != 0,
                d.single_program_flow,
                d.illegal_opcode_exception_enable,
                d.mask_stack_exception_enable,
                d.software_exception_enable,
            ),
            sampler_state: d.sampler_state_pointer as u32,
            binding_table: d.binding_table_pointer,
            curbe_rows: d.constant_urb_entry_read_length,
            curbe_offset: d.constant_urb_entry_read_offset,
            grf_blocks: d.grf_register_block_count as u8,
            ..Descriptor::default()
        }
    }};
}

/// Unpacks the descriptor dwords `dw` of platform `p`. `general` is the
/// General State Base (965/G45 kernels are relative to it), `instruction`
/// the Instruction Base (SNB and later).
pub(crate) fn unpack(
    p: IsaGen,
    dw: &[u32],
    general: u64,
    instruction: u64,
) -> Result<Descriptor, MediaError> {
    Ok(match p {
        // No Gen12.5 media pipeline model.
        IsaGen::Gen12_5 => return Err(MediaError::Command),
        IsaGen::Gen4 => gen4_descriptor!(gen4, dw, general),
        IsaGen::G45 => gen4_descriptor!(g45, dw, general),
        IsaGen::Gen6 => {
            let d = baregpu_hal::gen6::structs::InterfaceDescriptorData::unpack(dw)
                .map_err(|_| MediaError::Command)?;
            Descriptor {
                kernel: instruction.wrapping_add(u64::from(d.kernel_start_pointer)),
                cr0: cr0(
                    d.floating_point_mode != 0,
                    d.single_program_flow != 0,
                    d.illegal_opcode_exception_enable,
                    d.maskstack_exception_enable,
                    d.software_exception_enable,
                ),
                sampler_state: d.sampler_state_pointer,
                binding_table: d.binding_table_pointer,
                curbe_rows: d.constant_urb_entry_read_length,
                curbe_offset: d.constant_urb_entry_read_offset,
                barrier_id: d.barrier_id as u8,
                ..Descriptor::default()
            }
        }
        IsaGen::Gen7 | IsaGen::Gen75 => {
            let d = baregpu_hal::gen7::structs::InterfaceDescriptorData::unpack(dw)
                .map_err(|_| MediaError::Command)?;
            let mut c = cr0(
                d.floating_point_mode != 0,
                d.single_program_flow,
                d.illegal_opcode_exception_enable,
                d.mask_stack_exception_enable,
                d.software_exception_enable,
            );
            // cr0.0[5:4] rounding mode (001 lines 3251-3260), loaded from
            // the descriptor's Rounding Mode [ext: Mesa gen7.xml DW5 23:22].
            c[0] |= (d.rounding_mode & 3) << 4;
            Descriptor {
                kernel: instruction.wrapping_add(u64::from(d.kernel_start_pointer)),
                cr0: c,
                sampler_state: d.sampler_state_pointer,
                binding_table: d.binding_table_pointer,
                curbe_rows: d.constant_urb_entry_read_length,
                curbe_offset: d.constant_urb_entry_read_offset,
                barrier_enable: d.barrier_enable,
                // 4 KiB units [ext: Mesa encode_slm_size, Gfx7: 0, 1, 2, 4,
                // 8, 16]; 64 KiB at most.
                slm_bytes: d.shared_local_memory_size.min(16) * 4096,
                group_threads: d.number_of_threads_in_gpgpu_thread_group,
                ..Descriptor::default()
            }
        }
    })
}

/// Dwords of one descriptor: 4 on 965/G45, 8 later.
pub(crate) const fn dwords(p: IsaGen) -> usize {
    match p {
        IsaGen::Gen4 | IsaGen::G45 => 4,
        _ => 8,
    }
}
