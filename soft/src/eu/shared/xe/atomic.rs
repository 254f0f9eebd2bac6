//! One LSC atomic on one element: the new memory value from the old one
//! and the lane's operands (004 DP_ATOMIC_* pseudocode, lines 6638-7340:
//! `old = mem; mem = op(old, src1); dest = old`). `None`: memory is not
//! written (atomic_load, a compare-exchange that does not match).

use baregpu_isa::message::lsc::{DataSize, LscOp};

/// Bits of an element in memory.
fn bits(d: DataSize) -> u32 {
    match d {
        DataSize::D8 | DataSize::D8U32 => 8,
        DataSize::D16 | DataSize::D16U32 | DataSize::D16U32H => 16,
        DataSize::D32 => 32,
        DataSize::D64 => 64,
    }
}

fn signed(v: u64, n: u32) -> i64 {
    ((v << (64 - n)) as i64) >> (64 - n)
}

/// IEEE minNum/maxNum as the float atomics define them: a NaN operand
/// yields the other one (two NaNs: a NaN); -0 is below +0.
fn fminmax(a: f32, b: f32, max: bool) -> f32 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if a == b {
        // Only the zeros differ here: the sign bit decides.
        let a_neg = a.is_sign_negative();
        return if a_neg != max { a } else { b };
    }
    if (a < b) != max { a } else { b }
}

pub fn apply(op: LscOp, d: DataSize, old: u64, x: u64, y: u64) -> Option<u64> {
    let n = bits(d);
    let m = if n == 64 { u64::MAX } else { (1 << n) - 1 };
    let (old, x, y) = (old & m, x & m, y & m);
    let f = |v: u64| f32::from_bits(v as u32);
    let r = match op {
        LscOp::AtomicInc => old.wrapping_add(1),
        LscOp::AtomicDec => old.wrapping_sub(1),
        LscOp::AtomicLoad => return None,
        LscOp::AtomicStore => x,
        LscOp::AtomicAdd => old.wrapping_add(x),
        LscOp::AtomicSub => old.wrapping_sub(x),
        LscOp::AtomicMin => {
            if signed(x, n) < signed(old, n) {
                x
            } else {
                old
            }
        }
        LscOp::AtomicMax => {
            if signed(x, n) > signed(old, n) {
                x
            } else {
                old
            }
        }
        LscOp::AtomicUmin => old.min(x),
        LscOp::AtomicUmax => old.max(x),
        LscOp::AtomicCmpxchg => {
            if old == x {
                y
            } else {
                return None;
            }
        }
        LscOp::AtomicAnd => old & x,
        LscOp::AtomicOr => old | x,
        LscOp::AtomicXor => old ^ x,
        // Float atomics are d32 only here (checked by the caller).
        LscOp::AtomicFadd => u64::from((f(old) + f(x)).to_bits()),
        LscOp::AtomicFsub => u64::from((f(old) - f(x)).to_bits()),
        LscOp::AtomicFmin => u64::from(fminmax(f(old), f(x), false).to_bits()),
        LscOp::AtomicFmax => u64::from(fminmax(f(old), f(x), true).to_bits()),
        // A float compare: +0 matches -0, a NaN matches nothing.
        LscOp::AtomicFcmpxchg => {
            if f(old) == f(x) {
                y
            } else {
                return None;
            }
        }
        LscOp::Load | LscOp::LoadCmask | LscOp::Store | LscOp::StoreCmask => return None,
    };
    Some(r & m)
}
