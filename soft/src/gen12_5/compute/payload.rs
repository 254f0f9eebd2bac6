//! The registers a compute thread starts with.
//!
//! - R0 (Mesa brw_fs_nir.cpp load_workgroup_id and cs_thread_payload, the
//!   Gfx12.5 reading of the header): r0.1, r0.6, r0.7 the thread group's
//!   X, Y, Z IDs; r0.2 bits 7:0 the thread's index in its group (Mesa
//!   `load_subgroup_id` masks 7:0 from Xe-HP on), bits 31:24 the number of
//!   threads in the group (Mesa `setup_barrier_message_payload_gfx125`
//!   copies r0.2[31:24] into the barrier message's producer and consumer
//!   counts, "BSpec 54006").
//! - From R1, the local IDs the dispatcher generates (004 COMPUTE_WALKER
//!   Emit Local programming notes): per emitted component one register of
//!   16-bit IDs (SIMD8/16), two for SIMD32 (lower and upper 16 channels);
//!   X, then Y, then Z. Mesa cs_thread_payload reads them the same way
//!   (`brw_uw8_grf(r, 0)`, one register per component, two at SIMD32).
//! - Then the inline data, one register (004 Emit Inline Parameter: "this
//!   register will immediately follow the register position for all the
//!   Local ID payloads. If all Emit Local bits are clear, this payload will
//!   be in R1"; Mesa `inline_parameter` after the local IDs).
//! - The indirect data is not loaded into registers: "The kernel is
//!   responsible for loading the indirect data from memory" (004 DW3,
//!   Indirect Data Start Address; it only pre-fetches into L3). Its address
//!   "is delivered to the kernel in the thread's R0 payload" (004 line
//!   12806): r0.0 bits 31:6, the 64-byte aligned offset from General State
//!   Base Address as the walker gives it (IGC visa/PrologEpilog.cpp,
//!   PayloadLoader: "IndirectArgPtr = r0.0 bits 31:6 + GeneralStateBase",
//!   "thread id in group is at r0.2[7:0]"; IGC's DG2 prologue masks r0.0
//!   with 0xFFFFFFC0 and reads the cross-thread and per-thread data with
//!   dc0 OWord block reads on BTI 253). Bits 5:0 are left 0: no source
//!   here gives them for a compute thread.
//! - sr0.0, the hardware thread slot: a group's threads take consecutive
//!   slots ([`state_id`]); the model runs one group at a time, so every
//!   live thread has its own slot, as on hardware. Kernels index
//!   per-thread memory by it (IGC's stateless private memory: the base plus
//!   HWTID times the per-thread size; the scratch surface's PThreadID).

use super::walker::Walker;
use crate::eu::thread::Thread;
use crate::eu::thread::slot::state_id;

/// Local ID of channel `lane` of thread `t` in the group: the channels of
/// the group numbered in walk order (fastest dimension first).
pub fn local_id(w: &Walker, t: u32, lane: u32) -> [u32; 3] {
    let mut n = t * w.simd + lane;
    let mut id = [0u32; 3];
    for d in w.walk {
        id[d] = n % w.local[d];
        n /= w.local[d];
    }
    id
}

/// Fills `thread`'s payload registers for thread `t` of group `group`.
pub fn load(th: &mut Thread, w: &Walker, group: [u32; 3], t: u32) {
    for r in 0..8 {
        th.set_grf_ud(0, r, 0);
    }
    th.set_grf_ud(0, 0, w.indirect_data & !0x3f);
    th.set_grf_ud(0, 1, group[0]);
    th.set_grf_ud(0, 6, group[1]);
    th.set_grf_ud(0, 7, group[2]);
    th.set_grf_ud(0, 2, (t & 0xff) | (w.threads_per_group & 0xff) << 24);
    th.set_sr0(0, state_id(t));
    // r0.5 31:10: CFE_STATE's Scratch Space Buffer, the scratch surface
    // state's offset [27:6] from Surface State Base (004 lines 12356-12365);
    // IGC shifts it right by 4 into an LSC extended descriptor (IGC
    // BuildIRImpl.cpp initScratchSurfaceOffset) and copies r0 into its
    // scratch block headers.
    th.set_grf_ud(0, 5, w.scratch_surface << 10);
    let regs_per_id = if w.simd == 32 { 2 } else { 1 };
    let mut reg = 1u8;
    for d in 0..3 {
        if w.emit_local >> d & 1 == 0 {
            continue;
        }
        for k in 0..regs_per_id {
            for dw in 0..8usize {
                let mut v = 0u32;
                for half in 0..2u32 {
                    let lane = k * 16 + dw as u32 * 2 + half;
                    if lane < w.simd {
                        v |= (local_id(w, t, lane)[d] & 0xffff) << (16 * half);
                    }
                }
                th.set_grf_ud(reg + k as u8, dw, v);
            }
        }
        reg += regs_per_id as u8;
    }
    if let Some(inline) = w.inline {
        for (dw, v) in inline.iter().enumerate() {
            th.set_grf_ud(reg, dw, *v);
        }
    }
}

/// The dispatch mask of thread `t`: every channel of the SIMD width, the
/// last thread of the group with the walker's Execution Mask (004 DW5).
pub fn dispatch_mask(w: &Walker, t: u32) -> u32 {
    if t + 1 == w.threads_per_group {
        w.last_mask
    } else if w.simd == 32 {
        u32::MAX
    } else {
        (1 << w.simd) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen12_5::compute::walker::PostSync;

    fn walker(walk: [usize; 3], local: [u32; 3]) -> Walker {
        Walker {
            simd: 16,
            emit_local: 7,
            walk,
            inline: None,
            indirect_data: 0,
            local,
            last_mask: 0,
            groups: [1; 3],
            start: [0; 3],
            kernel: 0,
            binding_table: 0,
            threads_per_group: 2,
            slm_bytes: 0,
            barriers: 0,
            post_sync: PostSync::None,
            post_sync_address: 0,
            scratch_surface: 0,
        }
    }

    #[test]
    fn local_ids_cover_the_group_once_with_the_first_dimension_fastest() {
        for walk in [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ] {
            let w = walker(walk, [2, 4, 4]);
            let mut seen = alloc::vec::Vec::new();
            for n in 0..32 {
                let id = local_id(&w, n / 16, n % 16);
                assert!(!seen.contains(&id), "{walk:?} {id:?}");
                seen.push(id);
            }
            // Lane 1 differs from lane 0 in the fastest dimension only.
            let (a, b) = (local_id(&w, 0, 0), local_id(&w, 0, 1));
            assert_eq!(b[walk[0]], a[walk[0]] + 1);
        }
    }

    #[test]
    fn r0_carries_the_indirect_data_address_and_the_thread_index() {
        let mut w = walker([0, 1, 2], [32, 1, 1]);
        w.indirect_data = 0x12_3440;
        let mut x = crate::eu::xe::XeThread::new();
        load(&mut x.thread, &w, [5, 6, 7], 1);
        assert_eq!(x.thread.grf_ud(0, 0), 0x12_3440);
        assert_eq!(x.thread.grf_ud(0, 1), 5);
        assert_eq!(x.thread.grf_ud(0, 2), 1 | 2 << 24);
        assert_eq!([x.thread.grf_ud(0, 6), x.thread.grf_ud(0, 7)], [6, 7]);
        assert_eq!(x.thread.sr0(0), state_id(1));
    }

    /// IGC's DG2 code takes the hardware thread ID from sr0.0: bits 13:0,
    /// bit 6 removed, then bit 3 (`(x & 63) | (x >> 1 & !63)`, then
    /// `(y & 7) | (y >> 1 & !7)`, from `ocloc -device dg2` output of a
    /// kernel with private memory). Every slot gives back itself, the
    /// reserved bits stay clear and the fields stay in 13:0.
    #[test]
    fn igc_recovers_the_slot_from_sr0() {
        for slot in 0..4096u32 {
            let x = state_id(slot);
            assert_eq!(x & 0x48, 0, "reserved bits of {slot}");
            assert_eq!(x & !0x3fff, 0);
            assert_eq!(crate::eu::thread::slot::slot_of(x), slot);
        }
    }
}
