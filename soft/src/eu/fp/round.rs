//! Exact float results and their single rounding.
//!
//! An F result is the exact value `hi + lo`: `hi` is an f64, `lo` the part
//! `hi` could not hold (zero when `hi` is exact). Products of two F are
//! exact in f64 (24 + 24 bits); a sum gets its remainder from TwoSum.
//! [`round_f32`] then rounds the exact value once, in any mode.

use super::Rounding;

/// `a + b` as `(s, e)` with `s + e == a + b` exactly (Knuth's TwoSum;
/// exact for any finite f64 whose sum does not overflow).
#[inline(always)]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    if e.is_nan() { (s, 0.0) } else { (s, e) }
}

/// The exact sum of two F (as f64s holding F values).
#[inline(always)]
pub fn add_exact(a: f32, b: f32) -> (f64, f64) {
    two_sum(f64::from(a), f64::from(b))
}

/// The exact product of two F.
#[inline(always)]
pub fn mul_exact(a: f32, b: f32) -> (f64, f64) {
    (f64::from(a) * f64::from(b), 0.0)
}

/// The exact `a * b + c` of three F (one rounding: a fused multiply-add).
#[inline(always)]
pub fn fma_exact(a: f32, b: f32, c: f32) -> (f64, f64) {
    two_sum(f64::from(a) * f64::from(b), f64::from(c))
}

/// The F neighbour of `x` toward +infinity (finite `x`).
fn next_up(x: f32) -> f32 {
    let b = x.to_bits();
    if x == 0.0 {
        return f32::from_bits(1);
    }
    if b & 0x8000_0000 == 0 {
        f32::from_bits(b + 1)
    } else {
        f32::from_bits(b - 1)
    }
}

/// The F neighbour of `x` toward -infinity (finite `x`).
fn next_down(x: f32) -> f32 {
    -next_up(-x)
}

/// Rounds the exact value `hi + lo` to F. `lo` must be smaller than half an
/// f64 ulp of `hi` (as [`two_sum`] guarantees). Zero results keep the sign
/// `hi` has; NaN stays NaN.
pub fn round_f32(hi: f64, lo: f64, mode: Rounding) -> f32 {
    if !hi.is_finite() {
        return hi as f32;
    }
    // Round to nearest even first; that is the answer in RNE mode except
    // when `hi` sits exactly on a midpoint that `lo` moves off.
    let r = hi as f32;
    let rf = f64::from(r);
    // Bracket the exact value v = hi + lo between two neighbours.
    let (below, above) = if r.is_infinite() {
        if hi > 0.0 {
            (f32::MAX, f32::INFINITY)
        } else {
            (f32::NEG_INFINITY, f32::MIN)
        }
    } else if rf > hi || (rf == hi && lo < 0.0) {
        (next_down(r), r)
    } else if rf < hi || (rf == hi && lo > 0.0) {
        (r, next_up(r))
    } else {
        // Exact.
        return r;
    };
    let positive = hi > 0.0 || (hi == 0.0 && lo > 0.0);
    match mode {
        Rounding::NearestEven => {
            if r.is_infinite() {
                return r;
            }
            // v lies strictly between below and above. A midpoint is an
            // f64 (25 significant bits), so compare hi with it and break the
            // tie with lo.
            let mid = (f64::from(below) + f64::from(above)) / 2.0;
            let v_hi = if hi > mid {
                true
            } else if hi < mid {
                false
            } else if lo != 0.0 {
                lo > 0.0
            } else {
                return r;
            };
            if v_hi { above } else { below }
        }
        Rounding::Up => above,
        Rounding::Down => below,
        Rounding::TowardZero => {
            if positive {
                below
            } else {
                above
            }
        }
    }
}

/// Rounds `hi + lo` (with `hi` already the nearest f64) to DF in `mode`.
pub fn round_f64(hi: f64, lo: f64, mode: Rounding) -> f64 {
    if !hi.is_finite() || lo == 0.0 || lo.is_nan() {
        return hi;
    }
    let up = |x: f64| {
        if x == 0.0 {
            f64::from_bits(1)
        } else if x > 0.0 {
            f64::from_bits(x.to_bits() + 1)
        } else {
            f64::from_bits(x.to_bits() - 1)
        }
    };
    let down = |x: f64| -up(-x);
    match mode {
        Rounding::NearestEven => hi,
        Rounding::Up => {
            if lo > 0.0 {
                up(hi)
            } else {
                hi
            }
        }
        Rounding::Down => {
            if lo < 0.0 {
                down(hi)
            } else {
                hi
            }
        }
        Rounding::TowardZero => {
            if hi > 0.0 && lo < 0.0 {
                down(hi)
            } else if hi < 0.0 && lo > 0.0 {
                up(hi)
            } else {
                hi
            }
        }
    }
}

/// The sign of an exact zero sum `a + b` of operands of opposite signs:
/// -0 when rounding down, +0 otherwise (IEEE 754 §6.3, which the manuals
/// follow where they list no deviation: 000 lines 6984-7000).
#[inline(always)]
pub fn zero_sum_sign(a: f64, b: f64, mode: Rounding) -> f64 {
    let both = a.is_sign_negative() && b.is_sign_negative();
    let mixed_down = a.is_sign_negative() != b.is_sign_negative() && mode == Rounding::Down;
    if both || mixed_down { -0.0 } else { 0.0 }
}
