//! COMPUTE_WALKER decoded (004 lines 12738-12980; the embedded
//! INTERFACE_DESCRIPTOR_DATA and POSTSYNC_DATA as the tables lay them out
//! from Mesa gen125.xml), with the forms the model does not run refused by
//! name.

use super::fields::Fields;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PostSync {
    None,
    Immediate(u64),
    Timestamp,
}

#[derive(Clone, Debug)]
pub struct Walker {
    /// 8, 16 or 32 channels per thread.
    pub simd: u32,
    /// Which local ID components are emitted (bit 0 X, 1 Y, 2 Z); 0 when
    /// Generate Local ID is clear.
    pub emit_local: u32,
    /// Dimensions from the fastest-varying to the slowest (Walk Order).
    pub walk: [usize; 3],
    pub inline: Option<[u32; 8]>,
    /// Indirect Data Start Address: an offset from General State Base
    /// Address, 64-byte aligned; goes to the threads in r0.0 (`payload`).
    /// The length only sizes the L3 pre-fetch (004 DW2), so it is not kept.
    pub indirect_data: u32,
    /// Local X/Y/Z maximum + 1.
    pub local: [u32; 3],
    /// Execution mask of the last thread of each group.
    pub last_mask: u32,
    /// Thread Group ID X/Y/Z Dimension: the IDs stop below these.
    pub groups: [u32; 3],
    pub start: [u32; 3],
    /// Offset from Instruction Base Address.
    pub kernel: u64,
    /// Binding Table Pointer (an offset, see `super::xe_state`).
    pub binding_table: u64,
    pub threads_per_group: u32,
    pub slm_bytes: u32,
    pub barriers: u32,
    pub post_sync: PostSync,
    pub post_sync_address: u64,
    /// CFE_STATE's Scratch Space Buffer (the scratch surface state's
    /// offset `[27:6]` from Surface State Base; 0: none), set from the
    /// context's state when the walker runs; goes to r0.5 31:10.
    pub scratch_surface: u32,
}

/// The fields the walker reads or refuses (checked when the model is built).
pub const WALKER_FIELDS: &[&str] = &[
    "cfe_subopcode_variant",
    "indirect_parameter_enable",
    "workload_partition_enable",
    "partition_type",
    "simd_size",
    "generate_local_id",
    "emit_local",
    "emit_inline_parameter",
    "walk_order",
    "tile_layout",
    "message_simd",
    "execution_mask",
    "local_x_maximum",
    "local_y_maximum",
    "local_z_maximum",
    "thread_group_id_x_dimension",
    "thread_group_id_y_dimension",
    "thread_group_id_z_dimension",
    "thread_group_id_starting_x",
    "thread_group_id_starting_y",
    "thread_group_id_starting_z",
    "interface_descriptor_kernel_start_pointer",
    "interface_descriptor_binding_table_pointer",
    "interface_descriptor_floating_point_mode",
    "interface_descriptor_rounding_mode",
    "interface_descriptor_btd_mode",
    "interface_descriptor_number_of_barriers",
    "interface_descriptor_shared_local_memory_size",
    "interface_descriptor_number_of_threads_in_gpgpu_thread_group",
    "post_sync_operation",
    "post_sync_destination_address",
    "post_sync_immediate_data",
    "inline_data0",
    "indirect_data_start_address",
];

/// Walk Order: the 004 enum names the dimensions from the fastest-varying
/// (WALK_012: X, then Y, then Z; WALK_210: Z fastest).
const WALKS: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

/// Decodes a walker; `Err` names what the model does not run.
pub fn decode(f: &Fields<'_>) -> Result<Walker, &'static str> {
    if f.get("cfe_subopcode_variant") != 0 {
        return Err("COMPUTE_WALKER CFE SubOpcode Variant other than STANDARD (resume)");
    }
    if f.set("indirect_parameter_enable") {
        return Err("COMPUTE_WALKER Indirect Parameter Enable");
    }
    if f.set("workload_partition_enable") || f.get("partition_type") != 0 {
        return Err(
            "COMPUTE_WALKER workload partitioning (Workload Partition Enable, Partition Type)",
        );
    }
    if f.get("tile_layout") != 0 {
        return Err("COMPUTE_WALKER Tile Layout other than LINEAR");
    }
    if f.set("interface_descriptor_btd_mode") {
        return Err("INTERFACE_DESCRIPTOR_DATA BTD Mode (bindless thread dispatch)");
    }
    if f.get("interface_descriptor_floating_point_mode") != 0 {
        return Err("INTERFACE_DESCRIPTOR_DATA Floating Point Mode ALTERNATE");
    }
    if f.get("interface_descriptor_rounding_mode") != 0 {
        return Err("INTERFACE_DESCRIPTOR_DATA Rounding Mode other than RTNE");
    }
    let simd = match f.get("simd_size") {
        0 => 8,
        1 => 16,
        2 => 32,
        _ => return Err("COMPUTE_WALKER SIMD Size 3 (reserved)"),
    };
    let generate = f.set("generate_local_id");
    let emit_local = if generate {
        match f.get("emit_local") {
            e @ (0 | 1 | 3 | 7) => e as u32,
            _ => return Err("COMPUTE_WALKER Emit Local reserved value"),
        }
    } else {
        0
    };
    // Batching local IDs for a narrower message SIMD changes their order
    // (004 Message SIMD): not modelled.
    if generate && f.get("message_simd") != f.get("simd_size") {
        return Err("COMPUTE_WALKER Message SIMD other than the SIMD Size");
    }
    let walk = *WALKS
        .get(f.get("walk_order") as usize)
        .ok_or("COMPUTE_WALKER Walk Order reserved value")?;
    let local = [
        f.get("local_x_maximum") as u32 + 1,
        f.get("local_y_maximum") as u32 + 1,
        f.get("local_z_maximum") as u32 + 1,
    ];
    let lws = local[0] * local[1] * local[2];
    let threads = f.get("interface_descriptor_number_of_threads_in_gpgpu_thread_group") as u32;
    // 004 DW6 restriction: LWS <= 1024 and SIMTSize * (N - 1) < LWS <= SIMTSize * N.
    if lws > 1024 || threads == 0 || simd * (threads - 1) >= lws || lws > simd * threads {
        return Err(
            "COMPUTE_WALKER local size against Number of Threads in GPGPU Thread Group (004 DW6 restriction)",
        );
    }
    if generate {
        // 004 Generate Local ID restriction: at most one dimension not a
        // power of two, and that one walked last.
        let npot: u32 = (0..3).map(|d| u32::from(!local[d].is_power_of_two())).sum();
        if npot > 1 || (npot == 1 && local[walk[2]].is_power_of_two()) {
            return Err(
                "COMPUTE_WALKER Generate Local ID with a non-power-of-two local size not walked last",
            );
        }
    }
    let slm_bytes = match f.get("interface_descriptor_shared_local_memory_size") {
        0 => 0,
        e @ 1..=7 => 1024 << (e - 1),
        _ => return Err("INTERFACE_DESCRIPTOR_DATA Shared Local Memory Size reserved value"),
    };
    let barriers = match f.get("interface_descriptor_number_of_barriers") {
        0 => 0,
        1 => 1,
        _ => return Err("INTERFACE_DESCRIPTOR_DATA Number of Barriers above one (named barriers)"),
    };
    let post_sync = match f.get("post_sync_operation") {
        0 => PostSync::None,
        1 => PostSync::Immediate(f.get("post_sync_immediate_data")),
        3 => PostSync::Timestamp,
        _ => return Err("POSTSYNC_DATA Operation 2 (reserved)"),
    };
    let inline = f.set("emit_inline_parameter").then(|| {
        let first = f
            .info
            .fields
            .iter()
            .find(|x| x.name == "inline_data0")
            .map_or(31, |x| x.start as usize / 32);
        core::array::from_fn(|k| f.dw.get(first + k).copied().unwrap_or(0))
    });
    let groups = [
        f.get("thread_group_id_x_dimension") as u32,
        f.get("thread_group_id_y_dimension") as u32,
        f.get("thread_group_id_z_dimension") as u32,
    ];
    // 004 DW7-9: [1h, FFFFFFFFh]; IDs run from the starting value to the
    // dimension minus one.
    if groups.contains(&0) {
        return Err("COMPUTE_WALKER Thread Group ID Dimension 0 (004: 1h to FFFFFFFFh)");
    }
    let mut last_mask = f.get("execution_mask") as u32;
    if simd < 32 {
        last_mask &= (1 << simd) - 1;
    }
    // The last thread runs the channels left over from the full ones: a
    // mask that disagrees with the local size breaks 004's packing rule.
    let left = lws - simd * (threads - 1);
    let packed = if left >= 32 {
        u32::MAX
    } else {
        (1 << left) - 1
    };
    if last_mask != packed {
        return Err(
            "COMPUTE_WALKER Execution Mask other than the last thread's packed channels (004 DW5)",
        );
    }
    Ok(Walker {
        simd,
        emit_local,
        walk,
        inline,
        indirect_data: f.get("indirect_data_start_address") as u32,
        local,
        last_mask,
        groups,
        start: [
            f.get("thread_group_id_starting_x") as u32,
            f.get("thread_group_id_starting_y") as u32,
            f.get("thread_group_id_starting_z") as u32,
        ],
        kernel: f.get("interface_descriptor_kernel_start_pointer"),
        binding_table: f.get("interface_descriptor_binding_table_pointer"),
        threads_per_group: threads,
        slm_bytes,
        barriers,
        post_sync,
        post_sync_address: f.get("post_sync_destination_address"),
        scratch_surface: 0,
    })
}
