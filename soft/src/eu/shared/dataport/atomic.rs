//! The data-port atomic operations on one dword.
//!
//! Gen6 DWord atomics: 003 lines 84687-84714 (MIN/MAX are unsigned, the
//! _SINT forms signed; every operation returns the old value; CMPXCHG
//! writes src0 when the old value equals src1).
//!
//! Gen7 untyped atomics [ext: mesa brw_eu_defines.h BRW_AOP_*, with the
//! operations as IGC's vISA DWORD_ATOMIC page describes them,
//! intel-graphics-compiler documentation/visa/instructions/DWORD_ATOMIC.md]:
//! the same operations plus REVSUB (src0 - old) and PREDEC (old - 1,
//! returning the new value). CMPWR compares with the first source and
//! writes the second: Mesa sends the NIR compare value as the first data
//! source and the swap value as the second [ext: mesa brw_fs_nir.cpp
//! `comp_swap`, ibc surface lowering `IBC_SURFACE_SRC_DATA0/1`].

use baregpu_isa::message::AtomicOp;

/// Which operand of a compare-and-write is the comparand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compare {
    /// Gen6 CMPXCHG: `new = old == src1 ? src0 : old`.
    Src1,
    /// Gen7 CMPWR: `new = old == src0 ? src1 : old`.
    Src0,
}

/// Applies `op` to `old` with sources `s0`, `s1`: the value to store and
/// the value returned to the thread.
pub fn apply(op: AtomicOp, old: u32, s0: u32, s1: u32, cmp: Compare) -> (u32, u32) {
    let new = match op {
        AtomicOp::And => old & s0,
        AtomicOp::Or => old | s0,
        AtomicOp::Xor => old ^ s0,
        AtomicOp::Mov => s0,
        AtomicOp::Inc => old.wrapping_add(1),
        AtomicOp::Dec | AtomicOp::PreDec => old.wrapping_sub(1),
        AtomicOp::Add => old.wrapping_add(s0),
        AtomicOp::Sub => old.wrapping_sub(s0),
        AtomicOp::RevSub => s0.wrapping_sub(old),
        AtomicOp::Imax => (old as i32).max(s0 as i32) as u32,
        AtomicOp::Imin => (old as i32).min(s0 as i32) as u32,
        AtomicOp::Umax => old.max(s0),
        AtomicOp::Umin => old.min(s0),
        AtomicOp::CmpWr => match cmp {
            Compare::Src1 if old == s1 => s0,
            Compare::Src0 if old == s0 => s1,
            _ => old,
        },
    };
    let ret = if op == AtomicOp::PreDec { new } else { old };
    (new, ret)
}

/// Sources the operation reads: INC, DEC and PREDEC none, CMPWR two.
pub fn sources(op: AtomicOp) -> usize {
    match op {
        AtomicOp::Inc | AtomicOp::Dec | AtomicOp::PreDec => 0,
        AtomicOp::CmpWr => 2,
        _ => 1,
    }
}
