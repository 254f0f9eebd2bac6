//! Whole-operand lane helpers of the fast paths: loads with the input
//! denormal flush, stores under an enable mask, the implicit accumulator,
//! and the stored form of a result in the two common rounding modes.
//!
//! Offsets come from operand plans, which are checked against the
//! register file at predecode; an out-of-range offset (never produced)
//! reads zeros and stores nothing rather than panicking.

use crate::eu::fp;
use crate::eu::thread::Thread;
use crate::eu::thread::layout::ACC_BASE;

/// Mask of lanes `0..N`.
#[inline(always)]
pub const fn full<const N: usize>() -> u32 {
    if N >= 32 { u32::MAX } else { (1u32 << N) - 1 }
}

/// All ones when `c`, else zero.
#[inline(always)]
fn mask(c: bool) -> u32 {
    u32::from(c).wrapping_neg()
}

/// The input flush of arithmetic (000 lines 7014-7017): a denormal
/// becomes a zero of its sign. Mask arithmetic so that lanes vectorise.
#[inline(always)]
fn flush(w: u32) -> u32 {
    w & !(mask(w & 0x7F80_0000 == 0) & 0x7FFF_FFFF)
}

/// [`flush`] for the fast paths' results.
#[inline(always)]
pub fn flush_bits(w: u32) -> u32 {
    flush(w)
}

/// `N` F elements of an operand at flat offset `off`: consecutive dwords,
/// or one dword replicated when `scalar`. Denormals flushed.
#[inline(always)]
pub fn load<const N: usize>(regs: &[u8], off: u16, scalar: bool) -> [f32; N] {
    let o = usize::from(off);
    let mut w = [0u32; N];
    if scalar {
        if let Some(s) = regs.get(o..o + 4) {
            w = [u32::from_le_bytes([s[0], s[1], s[2], s[3]]); N];
        }
    } else if let Some(s) = regs.get(o..o + 4 * N) {
        // `s` has exactly 4 * N bytes: the indexing cannot fail.
        for i in 0..N {
            w[i] = u32::from_le_bytes([s[4 * i], s[4 * i + 1], s[4 * i + 2], s[4 * i + 3]]);
        }
    }
    let mut v = [0f32; N];
    for i in 0..N {
        v[i] = f32::from_bits(flush(w[i]));
    }
    v
}

/// Stores `v` to the consecutive dwords at `off` for the lanes enabled in
/// `en`.
#[inline(always)]
pub fn store<const N: usize>(regs: &mut [u8], off: u16, v: &[u32; N], en: u32) {
    let o = usize::from(off);
    let Some(d) = regs.get_mut(o..o + 4 * N) else {
        return;
    };
    let all = full::<N>();
    // `d` has exactly 4 * N bytes: the indexing cannot fail.
    if en & all == all {
        for i in 0..N {
            d[4 * i..4 * i + 4].copy_from_slice(&v[i].to_le_bytes());
        }
    } else {
        // A blend rather than a branch per lane: the lanes stay vectors.
        for i in 0..N {
            let m = mask(en & (1 << i) != 0);
            let old = u32::from_le_bytes([d[4 * i], d[4 * i + 1], d[4 * i + 2], d[4 * i + 3]]);
            let new = (v[i] & m) | (old & !m);
            d[4 * i..4 * i + 4].copy_from_slice(&new.to_le_bytes());
        }
    }
}

/// The implicit accumulator write of F lanes: element `first + k` gets
/// the stored bits in its image and `wide` as its extra precision, for
/// the enabled lanes (what [`Thread::acc_put_f32`] does lane by lane).
#[inline(always)]
pub fn store_acc<const N: usize>(
    t: &mut Thread,
    first: u8,
    bits: &[u32; N],
    wide: &[f64; N],
    en: u32,
) {
    let first = usize::from(first);
    if first + N > 16 {
        // Wraps around acc1: element by element.
        for k in 0..N {
            if en >> k & 1 != 0 {
                t.acc_put_f32(first + k, bits[k], wide[k]);
            }
        }
        return;
    }
    store::<N>(&mut t.regs, (ACC_BASE + first * 4) as u16, bits, en);
    if let Some(f) = t.acc.f.get_mut(first..first + N) {
        let all = full::<N>();
        if en & all == all {
            f.copy_from_slice(wide);
        } else {
            for (k, (d, w)) in f.iter_mut().zip(wide.iter()).enumerate() {
                if en >> k & 1 != 0 {
                    *d = *w;
                }
            }
        }
    }
}

/// The stored form of an F result already rounded: NaN made canonical,
/// a denormal flushed to a zero of its sign (000 lines 7014-7019).
#[inline(always)]
pub fn out(r: f32) -> u32 {
    let b = flush(r.to_bits());
    // Both sides are below 2^31: a signed compare is the same and cheaper
    // in vector code.
    let nan = mask((r.to_bits() & 0x7FFF_FFFF) as i32 > 0x7F80_0000);
    (b & !nan) | (fp::F32_NAN & nan)
}

/// The stored form of the exact value `s + e` rounded toward zero, where
/// `s` is that value rounded to nearest even in f64 and `e` the rest (as
/// [`fp::two_sum`] gives them; `e` is 0 for an exact `s`).
///
/// `s` rounded to nearest F is either the truncation of `s + e` or one F
/// step farther from zero: farther when it is larger in magnitude than
/// `s`, or equal to `s` with the rest pointing toward zero. One step back
/// toward zero is a decrement of the magnitude bits (an infinity steps
/// back to FLT_MAX, as an overflow does toward zero). Results below the
/// normal range are flushed either way, with the sign of the value.
#[inline(always)]
pub fn toward_zero(s: f64, e: f64) -> u32 {
    let r = s as f32;
    let back = f64::from(r);
    // Non-short-circuit operators keep the lanes branch-free.
    let rest_inward = (e != 0.0) & ((e < 0.0) != (s < 0.0));
    let farther = (back.abs() > s.abs()) | ((back == s) & rest_inward);
    // `farther` implies a non-zero magnitude: no borrow into the sign.
    let b = r.to_bits().wrapping_sub(u32::from(farther));
    out(f32::from_bits(b))
}

/// F `a + b` rounded toward zero, in its stored form, and whether that
/// is right: `false` only when the sum is finite but an intermediate of
/// TwoSum overflowed (operands near FLT_MAX); the caller then uses
/// [`toward_zero`] on the f64 TwoSum.
///
/// The host's F sum `r` rounds to nearest; TwoSum in F gives the exact
/// rest `err` (`r + err == a + b` while nothing overflows, gradual
/// underflow included). `r` is the truncation unless the rest points
/// toward zero; then one step back toward zero is a decrement of the
/// magnitude bits (never below zero: the rest is smaller than `r`). An
/// infinite sum of finite operands is an overflow: FLT_MAX, one step back
/// from the infinity; with an infinite operand it stays infinite.
#[inline(always)]
pub fn add_toward_zero(a: f32, b: f32) -> (u32, bool) {
    let r = a + b;
    let bb = r - a;
    let err = (a - (r - bb)) + (b - bb);
    let rb = r.to_bits();
    // `x * 0` is a zero for a finite `x`, NaN otherwise (cheaper in
    // vector code than `is_finite`). Non-short-circuit operators keep the
    // lanes branch-free.
    let finite = |x: f32| x * 0.0 == 0.0;
    let (r_fin, err_fin) = (finite(r), finite(err));
    let rest_inward = (err != 0.0) & (((err.to_bits() ^ rb) as i32) < 0);
    let overflow = finite(a) & finite(b);
    let inward = (r_fin & rest_inward) | (!r_fin & overflow);
    (
        out(f32::from_bits(rb.wrapping_sub(u32::from(inward)))),
        !r_fin | err_fin,
    )
}

/// [`add_toward_zero`] for the common case, cheaper: right when the sum
/// and its TwoSum rest are both finite, which the second value says (no
/// NaN can then come out, and the rest never overflowed).
#[inline(always)]
pub fn add_toward_zero_finite(a: f32, b: f32) -> (u32, bool) {
    let r = a + b;
    let bb = r - a;
    let err = (a - (r - bb)) + (b - bb);
    let rb = r.to_bits();
    // Non-short-circuit operators keep the lanes branch-free.
    let finite = (r * 0.0 == 0.0) & (err * 0.0 == 0.0);
    let inward = (err != 0.0) & (((err.to_bits() ^ rb) as i32) < 0);
    (flush(rb.wrapping_sub(u32::from(inward))), finite)
}

/// F `a * b` rounded toward zero, in its stored form.
///
/// The host's F product rounds the exact product (which f64 holds) to
/// nearest; it is the truncation unless it is farther from zero than the
/// exact product, then one step back toward zero is a decrement of the
/// magnitude bits. That covers overflow too (the infinity is farther than
/// any finite product: FLT_MAX); an infinite or NaN operand gives an
/// infinite or NaN product, never farther.
#[inline(always)]
pub fn mul_toward_zero(a: f32, b: f32) -> u32 {
    let exact = f64::from(a) * f64::from(b);
    let r = a * b;
    let farther = f64::from(r).abs() > exact.abs();
    out(f32::from_bits(r.to_bits().wrapping_sub(u32::from(farther))))
}

/// The value the accumulator keeps for F `a + b`: the exact sum rounded
/// to f64 (one rounding), a zero signed as nearest-even or toward-zero
/// sign it (-0 only for -0 + -0), as the generic path keeps it.
#[inline(always)]
pub fn add_wide(a: f32, b: f32) -> f64 {
    f64::from(a) + f64::from(b)
}
