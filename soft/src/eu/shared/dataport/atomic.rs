//! The data-port atomic operations on one dword (or, for Gen12.5's legacy
//! dc1 word and A64 qword forms, one word or qword: [`apply_bits`]).
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
    let (new, ret) = apply_bits(op, 32, u64::from(old), u64::from(s0), u64::from(s1), cmp);
    (new as u32, ret as u32)
}

/// [`apply`] on `bits`-bit integers (16, 32 or 64: Gen12.5's legacy word
/// and A64 qword atomics take the same operations at their width, 004
/// MSD1R_A64_QWAI line 5630 "Operations are on 64-bit integers"), the
/// values in the low bits; what lies above them is ignored and the
/// results come back zero-extended.
pub fn apply_bits(op: AtomicOp, bits: u32, old: u64, s0: u64, s1: u64, cmp: Compare) -> (u64, u64) {
    let m = if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let (old, s0, s1) = (old & m, s0 & m, s1 & m);
    // Signed view of a `bits`-bit value.
    let sx = |v: u64| ((v << (64 - bits)) as i64) >> (64 - bits);
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
        AtomicOp::Imax => {
            if sx(s0) > sx(old) {
                s0
            } else {
                old
            }
        }
        AtomicOp::Imin => {
            if sx(s0) < sx(old) {
                s0
            } else {
                old
            }
        }
        AtomicOp::Umax => old.max(s0),
        AtomicOp::Umin => old.min(s0),
        AtomicOp::CmpWr => match cmp {
            Compare::Src1 if old == s1 => s0,
            Compare::Src0 if old == s0 => s1,
            _ => old,
        },
    } & m;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The widths wrap and compare at their own size: the same operands
    /// give different answers at 16, 32 and 64 bits.
    #[test]
    fn widths_wrap_and_compare_at_their_size() {
        let c = Compare::Src0;
        // 0xFFFF + 1 wraps at 16 bits only.
        assert_eq!(apply_bits(AtomicOp::Inc, 16, 0xFFFF, 0, 0, c), (0, 0xFFFF));
        assert_eq!(apply_bits(AtomicOp::Inc, 32, 0xFFFF, 0, 0, c).0, 0x1_0000);
        assert_eq!(apply_bits(AtomicOp::Dec, 64, 0, 0, 0, c), (u64::MAX, 0));
        assert_eq!(apply_bits(AtomicOp::Dec, 32, 0, 0, 0, c).0, 0xFFFF_FFFF);
        // 0x8000_0000 is negative at 32 bits, positive at 64.
        let big = 0x8000_0000u64;
        assert_eq!(apply_bits(AtomicOp::Imax, 32, 1, big, 0, c).0, 1);
        assert_eq!(apply_bits(AtomicOp::Imax, 64, 1, big, 0, c).0, big);
        assert_eq!(apply_bits(AtomicOp::Imin, 32, 1, big, 0, c).0, big);
        assert_eq!(apply_bits(AtomicOp::Imin, 64, 1, big, 0, c).0, 1);
        // Bits above the width are ignored, in memory and operands.
        assert_eq!(
            apply_bits(AtomicOp::Add, 32, 0xAB_0000_0001, 0xCD_0000_0002, 0, c).0,
            3
        );
        // PREDEC returns the new value; REVSUB is src0 - old.
        assert_eq!(apply_bits(AtomicOp::PreDec, 64, 5, 0, 0, c), (4, 4));
        assert_eq!(apply_bits(AtomicOp::RevSub, 64, 5, 3, 0, c).0, u64::MAX - 1);
        // CMPWR: compare with src0, write src1; a mismatch keeps old.
        let k = 0x1234_5678_9ABC_DEF0;
        assert_eq!(apply_bits(AtomicOp::CmpWr, 64, k, k, 7, c), (7, k));
        assert_eq!(
            apply_bits(AtomicOp::CmpWr, 64, k, k ^ 1 << 40, 7, c),
            (k, k)
        );
        // The 32-bit entry point is the 32-bit width.
        assert_eq!(apply(AtomicOp::Umin, 3, 0xFFFF_FFFF, 0, c), (3, 3));
    }
}
