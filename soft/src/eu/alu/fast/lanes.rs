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

/// The input flush of arithmetic (000 lines 7014-7017): a denormal
/// becomes a zero of its sign. Branch-free so that lanes vectorise.
#[inline(always)]
fn flush(w: u32) -> u32 {
    let keep = if w & 0x7F80_0000 == 0 {
        0x8000_0000
    } else {
        u32::MAX
    };
    w & keep
}

/// `N` F elements of an operand at flat offset `off`: consecutive dwords,
/// or one dword replicated when `scalar`. Denormals flushed.
#[inline(always)]
pub fn load<const N: usize>(regs: &[u8], off: u16, scalar: bool) -> [f32; N] {
    let o = usize::from(off);
    if scalar {
        let w = regs
            .get(o..o + 4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map_or(0, u32::from_le_bytes);
        return [f32::from_bits(flush(w)); N];
    }
    let mut v = [0f32; N];
    if let Some(s) = regs.get(o..o + 4 * N) {
        for (d, c) in v.iter_mut().zip(s.chunks_exact(4)) {
            let w = <[u8; 4]>::try_from(c).map_or(0, u32::from_le_bytes);
            *d = f32::from_bits(flush(w));
        }
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
    if en & all == all {
        for (c, x) in d.chunks_exact_mut(4).zip(v.iter()) {
            c.copy_from_slice(&x.to_le_bytes());
        }
    } else {
        for (k, (c, x)) in d.chunks_exact_mut(4).zip(v.iter()).enumerate() {
            if en >> k & 1 != 0 {
                c.copy_from_slice(&x.to_le_bytes());
            }
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
    let b = r.to_bits();
    let flushed = flush(b);
    // Both sides are below 2^31: a signed compare is the same and cheaper
    // in vector code.
    if (b & 0x7FFF_FFFF) as i32 > 0x7F80_0000 {
        fp::F32_NAN
    } else {
        flushed
    }
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
/// is right: `false` when an intermediate of TwoSum overflowed (operands
/// near FLT_MAX), the caller then uses [`toward_zero`] on the f64 TwoSum.
///
/// The host's F sum `r` rounds to nearest; TwoSum in F gives the exact
/// rest `err` (`r + err == a + b` while nothing overflows, gradual
/// underflow included). `r` is the truncation unless the rest points
/// toward zero; then one step back toward zero is a decrement of the
/// magnitude bits. An F overflow of finite operands is FLT_MAX, one step
/// back from the infinity.
#[inline(always)]
pub fn add_toward_zero(a: f32, b: f32) -> (u32, bool) {
    let r = a + b;
    let bb = r - a;
    let err = (a - (r - bb)) + (b - bb);
    let rb = r.to_bits();
    // Non-short-circuit operators keep the lanes branch-free.
    let finite = r.is_finite();
    let rest_inward = (err != 0.0) & ((err.to_bits() ^ rb) & 0x8000_0000 != 0);
    let overflow = r.is_infinite() & a.is_finite() & b.is_finite();
    let inward = (finite & rest_inward) | overflow;
    let bits = out(f32::from_bits(rb.wrapping_sub(u32::from(inward))));
    (bits, err.is_finite() | !finite)
}

/// The value the Gen4/G45 accumulator keeps for F `a + b`: the sum
/// rounded to f64, a zero made +0 (what `s + e` of [`fp::two_sum`] is).
#[inline(always)]
pub fn add_wide(a: f32, b: f32) -> f64 {
    f64::from(a) + f64::from(b) + 0.0
}
