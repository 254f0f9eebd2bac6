//! Fast paths for the instructions ALU-bound kernels are made of: F add,
//! mul and mad with direct register operands laid out linearly (dwords in
//! a row, or one dword replicated), and no modifiers, predication,
//! saturation or condition. They compute exactly what the generic path
//! computes, in any rounding mode, and write the implicit accumulator when
//! the instruction does (Gen4/G45 arithmetic); ALT mode goes to the
//! generic path.
//!
//! The kernels take the operands as a [`Flat`] and the channel enables, so
//! that the general step (one operation) and the run loop's straight-line
//! blocks (one instruction, a Gen4/G45 compressed pair fused into one
//! SIMD16 operation) share them. Round-to-nearest-even without the
//! accumulator (Gen6+) and round-toward-zero (Gen4/G45) have lane loops
//! the compiler vectorises; other cases go lane by lane exactly.

mod host;
mod int;
mod lanes;

use core::sync::atomic::{AtomicBool, Ordering};

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{CondMod, Opcode, PredCtrl, Type};

use self::lanes::{
    add_toward_zero, add_toward_zero_finite, add_wide, load, mul_toward_zero, out, store,
    store_acc, toward_zero,
};
use super::exec;
use crate::eu::decoded::lite::{self, Flat, Lite, LiteFn};
use crate::eu::decoded::{Handler, Next, Op};
use crate::eu::error::ErrorKind;
use crate::eu::exec::Dom;
use crate::eu::fp::{self, Rounding};
use crate::eu::thread::{FloatPath, Thread};

/// The operation a kernel computes.
const ADD: u8 = 0;
const MUL: u8 = 1;
const MAD: u8 = 2;

/// A fast instruction: what it computes, its channels, its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fast {
    kind: u8,
    n: u8,
    flat: Flat,
}

/// Whether `op` has a fast path, and its operands.
fn fast(op: &Op) -> Option<Fast> {
    let ctl = &op.ctl;
    let shape = ctl.dom == Dom::F
        && ctl.pred == PredCtrl::None
        && ctl.cond == CondMod::None
        && !ctl.sat
        && ctl.wmask & 0xF == 0xF
        && ctl.step == 1
        && !op.dst.acc
        && op.dst.ty == Type::F;
    let Some((dst, 4)) = op.lin[0] else {
        return None;
    };
    if !shape {
        return None;
    }
    // A plain F source: no modifier, not the accumulator, linear.
    let plain = |k: usize| {
        let s = &op.src[k];
        let lin = op.lin[k + 1].filter(|&(_, stride)| stride == 0 || stride == 4);
        (s.ty == Type::F && !s.acc && !s.mods.abs && !s.mods.neg)
            .then_some(lin)
            .flatten()
    };
    let (kind, srcs) = match op.inst.opcode {
        Opcode::Add => (ADD, 2),
        Opcode::Mul => (MUL, 2),
        Opcode::Mad => (MAD, 3),
        _ => return None,
    };
    let mut flat = Flat {
        dst,
        acc_first: ctl.acc_first,
        acc_write: ctl.acc_write,
        lanes: ctl.exec,
        ..Flat::default()
    };
    for k in 0..srcs {
        let (off, stride) = plain(k)?;
        flat.src[k] = off;
        flat.scalar[k] = stride == 0;
    }
    matches!(ctl.exec, 8 | 16).then_some(Fast {
        kind,
        n: ctl.exec,
        flat,
    })
}

/// The fast handler for `op`, if it qualifies.
pub fn choose(p: IsaGen, op: &Op) -> Option<Handler> {
    let _ = p;
    let Some(f) = fast(op) else {
        return int::choose(op);
    };
    Some(match (f.kind, f.n) {
        (ADD, 8) => on_op::<8, ADD>,
        (ADD, _) => on_op::<16, ADD>,
        (MUL, 8) => on_op::<8, MUL>,
        (MUL, _) => on_op::<16, MUL>,
        (_, 8) => on_op::<8, MAD>,
        _ => on_op::<16, MAD>,
    })
}

/// The straight-line handler of one instruction: its single operation, or
/// a Gen4/G45 compressed pair whose halves can run as one SIMD16
/// operation. Also returns the operands.
pub(crate) fn choose_lite(p: IsaGen, first: &Op, second: Option<&Op>) -> Option<(LiteFn, Flat)> {
    // The handler is specialised for the rounding the platform starts in
    // (Gen7 may change it in cr0; the handlers check).
    let zero = p <= IsaGen::G45;
    let f = match second {
        None => match fast(first) {
            Some(f) => f,
            None => return int::choose_lite(first),
        },
        Some(b) => fuse(fast(first)?, fast(b)?, first, b)?,
    };
    let h: LiteFn = if host::wide() && !PORTABLE_ONLY.load(Ordering::Relaxed) {
        pick::<true>(zero, f.kind, f.n)
    } else {
        pick::<false>(zero, f.kind, f.n)
    };
    Some((h, f.flat))
}

/// The nearest-even lane kernels for the Xe-HPG thread (`eu::xe::fast`),
/// which has its own predecode but the same register array and, in its
/// default cr0 mode, the same F arithmetic: `op` (add, mul or mad) on
/// `flat.lanes` (8 or 16) channels, denormals flushed in and out, NaN made
/// canonical. `false`, with nothing written, for any other operation, an
/// accumulator write, or a thread whose rounding is not nearest even (the
/// hard mad lanes read it).
pub(crate) fn nearest_f(t: &mut Thread, op: Opcode, flat: &Flat, en: u32) -> bool {
    if t.fp.rounding != Rounding::NearestEven || flat.acc_write {
        return false;
    }
    let kind = match op {
        Opcode::Add => ADD,
        Opcode::Mul => MUL,
        Opcode::Mad => MAD,
        _ => return false,
    };
    let wide = host::wide() && !PORTABLE_ONLY.load(Ordering::Relaxed);
    macro_rules! lanes {
        ($n:literal, $k:ident) => {
            if wide {
                // SAFETY: `host::wide()` found AVX2 and FMA usable.
                unsafe { nearest_wide::<$n, $k>(t, flat, en) }
            } else {
                nearest::<$n, $k, false>(t, flat, en)
            }
        };
    }
    match (kind, flat.lanes) {
        (ADD, 8) => lanes!(8, ADD),
        (ADD, 16) => lanes!(16, ADD),
        (MUL, 8) => lanes!(8, MUL),
        (MUL, 16) => lanes!(16, MUL),
        (MAD, 8) => lanes!(8, MAD),
        (MAD, 16) => lanes!(16, MAD),
        _ => return false,
    }
    true
}

/// Whether the fast ALU paths run their AVX2 + FMA variants on this CPU
/// (they compute the same bits as the portable ones; benchmarks report
/// which ran).
pub fn wide_lanes() -> bool {
    host::wide()
}

/// Tests set this to predecode with the portable lane loops on a host
/// that has the wide ones (both compute the same bits; either is correct
/// for any program predecoded meanwhile).
static PORTABLE_ONLY: AtomicBool = AtomicBool::new(false);

/// The straight-line handler for the rounding, operation and width; `W`:
/// the lane loops compiled for AVX2 and FMA (see [`host`]).
fn pick<const W: bool>(zero: bool, kind: u8, n: u8) -> LiteFn {
    match (zero, kind, n) {
        (_, MAD, 8) => near_lite::<8, MAD, W>,
        (_, MAD, _) => near_lite::<16, MAD, W>,
        (false, ADD, 8) => near_lite::<8, ADD, W>,
        (false, ADD, _) => near_lite::<16, ADD, W>,
        (false, _, 8) => near_lite::<8, MUL, W>,
        (false, _, _) => near_lite::<16, MUL, W>,
        (true, ADD, 8) => zero_lite::<8, ADD, W>,
        (true, ADD, _) => zero_lite::<16, ADD, W>,
        (true, _, 8) => zero_lite::<8, MUL, W>,
        (true, _, _) => zero_lite::<16, MUL, W>,
    }
}

/// The halves of a compressed instruction as one SIMD16 operation, when
/// that computes the same: channels 8-15 of every operand follow channels
/// 0-7 (the next register, or the same replicated dword), the second half
/// takes the upper mask bits and accumulator elements, and it reads
/// nothing the first half writes (the halves run in order, 000 lines
/// 8746-8830).
fn fuse(a: Fast, b: Fast, op_a: &Op, op_b: &Op) -> Option<Fast> {
    let (fa, fb) = (a.flat, b.flat);
    let follows = |x: u16, y: u16, scalar: bool| {
        if scalar {
            y == x
        } else {
            u32::from(y) == u32::from(x) + 32
        }
    };
    let mut ok = a.kind == b.kind
        && a.n == 8
        && b.n == 8
        && follows(fa.dst, fb.dst, false)
        && op_a.ctl.mask_first == 0
        && op_b.ctl.mask_first == 8
        && op_a.ctl.no_mask == op_b.ctl.no_mask
        && fa.acc_write == fb.acc_write
        && u32::from(fb.acc_first) == u32::from(fa.acc_first) + 8;
    let srcs = if a.kind == MAD { 3 } else { 2 };
    for k in 0..srcs {
        let scalar = fa.scalar[k];
        ok &= scalar == fb.scalar[k] && follows(fa.src[k], fb.src[k], scalar);
        // The second half's source bytes against the first half's
        // destination bytes.
        let (s0, s1) = (
            u32::from(fb.src[k]),
            u32::from(fb.src[k]) + if scalar { 4 } else { 32 },
        );
        let (d0, d1) = (u32::from(fa.dst), u32::from(fa.dst) + 32);
        ok &= s1 <= d0 || d1 <= s0;
    }
    ok.then_some(Fast {
        kind: a.kind,
        n: 16,
        flat: Flat { lanes: 16, ..fa },
    })
}

/// Operation handler (the general step).
fn on_op<const N: usize, const K: u8>(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let Some(f) = fast(op).filter(|_| t.fp.path != FloatPath::Alt) else {
        return exec(t, op);
    };
    let en = t.enables(&op.ctl, op.ip);
    kernel::<N, K>(t, &f.flat, en);
    Ok(Next::Fall)
}

/// Straight-line handler for the platforms that round to nearest even
/// (Gen6+): that lane loop inline, anything else out of line. `on` is the
/// block's mask state (see [`Thread::channels_on`]).
fn near_lite<const N: usize, const K: u8, const W: bool>(
    t: &mut Thread,
    l: &Lite,
    ops: &[Op],
    on: u32,
) -> Result<Next, ErrorKind> {
    let f = &l.flat;
    if t.fp.path != FloatPath::Nearest || f.writes_acc(t.fp.acc_disable) {
        return slow_lite::<N, K>(t, l, ops, on);
    }
    if W {
        // SAFETY: `W` handlers are chosen only when `host::wide()` found
        // AVX2 and FMA usable on this CPU.
        unsafe { nearest_wide::<N, K>(t, f, l.enables(on)) }
    } else {
        nearest::<N, K, false>(t, f, l.enables(on));
    }
    Ok(Next::Fall)
}

/// Straight-line handler for the platforms that round toward zero
/// (Gen4/G45, no mad).
fn zero_lite<const N: usize, const K: u8, const W: bool>(
    t: &mut Thread,
    l: &Lite,
    ops: &[Op],
    on: u32,
) -> Result<Next, ErrorKind> {
    if t.fp.path != FloatPath::TowardZero {
        return slow_lite::<N, K>(t, l, ops, on);
    }
    if W {
        // SAFETY: as in `near_lite`.
        unsafe { toward_wide::<N, K>(t, &l.flat, l.enables(on)) }
    } else {
        toward::<N, K, false>(t, &l.flat, l.enables(on));
    }
    Ok(Next::Fall)
}

/// [`nearest`] compiled for AVX2 and FMA. Callers make sure the CPU has
/// them ([`host::wide`]).
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2,fma"))]
unsafe fn nearest_wide<const N: usize, const K: u8>(t: &mut Thread, f: &Flat, en: u32) {
    nearest::<N, K, true>(t, f, en);
}

/// [`toward`] compiled for AVX2 and FMA; callers as for [`nearest_wide`].
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2,fma"))]
unsafe fn toward_wide<const N: usize, const K: u8>(t: &mut Thread, f: &Flat, en: u32) {
    toward::<N, K, true>(t, f, en);
}

/// Any mode: ALT mode by the operations' own handlers (the generic
/// path), else the kernel.
#[cold]
#[inline(never)]
fn slow_lite<const N: usize, const K: u8>(
    t: &mut Thread,
    l: &Lite,
    ops: &[Op],
    on: u32,
) -> Result<Next, ErrorKind> {
    if t.fp.path == FloatPath::Alt {
        return lite::by_ops(t, l, ops, on);
    }
    kernel::<N, K>(t, &l.flat, l.enables(on));
    Ok(Next::Fall)
}

/// The kernel of `K` on `N` lanes in any mode but ALT.
fn kernel<const N: usize, const K: u8>(t: &mut Thread, f: &Flat, en: u32) {
    let acc = f.writes_acc(t.fp.acc_disable);
    match t.fp.path {
        FloatPath::Nearest if !acc => nearest::<N, K, false>(t, f, en),
        FloatPath::TowardZero if K != MAD => toward::<N, K, false>(t, f, en),
        _ => other::<N, K>(t, f, en),
    }
}

/// Nearest-even without the accumulator.
#[inline(always)]
fn nearest<const N: usize, const K: u8, const W: bool>(t: &mut Thread, f: &Flat, en: u32) {
    let a = load::<N>(&t.regs, f.src[0], f.scalar[0]);
    let b = load::<N>(&t.regs, f.src[1], f.scalar[1]);
    let mut o = [0u32; N];
    if K == MAD {
        let c = load::<N>(&t.regs, f.src[2], f.scalar[2]);
        let easy = if W {
            mad_fused::<N>(&a, &b, &c, &mut o)
        } else {
            mad_nearest::<N>(&a, &b, &c, &mut o)
        };
        if !easy {
            return other::<N, K>(t, f, en);
        }
    } else {
        // The host's F add and mul round correctly to nearest even.
        for i in 0..N {
            o[i] = out(if K == ADD { a[i] + b[i] } else { a[i] * b[i] });
        }
    }
    store::<N>(&mut t.regs, f.dst, &o, en);
}

/// Toward zero (add and mul), with the accumulator when written.
#[inline(always)]
fn toward<const N: usize, const K: u8, const W: bool>(t: &mut Thread, f: &Flat, en: u32) {
    let a = load::<N>(&t.regs, f.src[0], f.scalar[0]);
    let b = load::<N>(&t.regs, f.src[1], f.scalar[1]);
    let mut o = [0u32; N];
    let mut ok = true;
    // Bits and the accumulator's values in separate loops: each
    // vectorises at its own width.
    if K == ADD {
        let mut finite = true;
        for i in 0..N {
            let lane_finite;
            (o[i], lane_finite) = add_toward_zero_finite(a[i], b[i]);
            finite &= lane_finite;
        }
        // An infinity or NaN somewhere: the full rules.
        for i in 0..N {
            if finite {
                break;
            }
            let lane_ok;
            (o[i], lane_ok) = add_toward_zero(a[i], b[i]);
            ok &= lane_ok;
        }
    } else if !(W && mul_toward_zero_fused::<N>(&a, &b, &mut o)) {
        for i in 0..N {
            o[i] = mul_toward_zero(a[i], b[i]);
        }
    }
    if !ok {
        // Operands near FLT_MAX: the exact sum in f64.
        for i in 0..N {
            let (s, e) = fp::add_exact(a[i], b[i]);
            o[i] = toward_zero(s, e);
        }
    }
    store::<N>(&mut t.regs, f.dst, &o, en);
    if f.writes_acc(t.fp.acc_disable) {
        let mut w = [0f64; N];
        for i in 0..N {
            // A product is kept as it is (a -0 stays).
            w[i] = if K == ADD {
                add_wide(a[i], b[i])
            } else {
                f64::from(a[i]) * f64::from(b[i])
            };
        }
        store_acc::<N>(t, f.acc_first, &o, &w, en);
    }
}

/// mad = src1 * src2 + src0 with one rounding to nearest even. The product
/// is exact in f64; the f64 sum rounds once more, which only matters when
/// it lands exactly on an F rounding midpoint. `false` when a lane needs
/// the exact computation: see [`nearest_lane`]. The easy lanes' F results
/// are normal, zero or infinite, which are stored as they are.
#[inline(always)]
fn mad_nearest<const N: usize>(a: &[f32; N], b: &[f32; N], c: &[f32; N], o: &mut [u32; N]) -> bool {
    let mut hard = false;
    for i in 0..N {
        let (r, _, h) = nearest_lane(a[i], b[i], c[i]);
        hard |= h;
        o[i] = r;
    }
    !hard
}

/// [`mad_nearest`] with the host's fused multiply-add (one rounding to
/// nearest even, exactly the EU's): no midpoint can arise. Hard lanes are
/// only those whose result is NaN or below 2^-125 and not zero (the
/// denormal flush; see [`nearest_lane`]). Only for the `W` handlers.
#[inline(always)]
fn mad_fused<const N: usize>(a: &[f32; N], b: &[f32; N], c: &[f32; N], o: &mut [u32; N]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: only the `W` handlers get here, and they are chosen
        // when `host::wide()` found AVX2 and FMA usable.
        let r = unsafe { host::fma_lanes::<N>(b, c, a) };
        let mut hard = false;
        for i in 0..N {
            // The negated compare is also true for NaN.
            #[allow(clippy::neg_cmp_op_on_partial_ord)]
            let below = !(r[i].abs() >= f32::from_bits(0x0100_0000));
            hard |= below & (r[i] != 0.0);
            o[i] = r[i].to_bits();
        }
        !hard
    }
    #[cfg(not(target_arch = "x86_64"))]
    mad_nearest::<N>(a, b, c, o)
}

/// F `a * b` rounded toward zero on every lane, with the host's fused
/// multiply-add giving each product's exact rounding error: `false` (and
/// `o` to be recomputed) when a lane needs [`mul_toward_zero`] instead, an
/// infinite or NaN product, or one below 2^-100 and not zero, where the
/// error may itself underflow. Only for the `W` handlers.
#[inline(always)]
fn mul_toward_zero_fused<const N: usize>(a: &[f32; N], b: &[f32; N], o: &mut [u32; N]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let mut r = [0f32; N];
        let mut neg = [0f32; N];
        for i in 0..N {
            r[i] = a[i] * b[i];
            neg[i] = -r[i];
        }
        // SAFETY: as in `mad_fused`.
        let err = unsafe { host::fma_lanes::<N>(a, b, &neg) };
        let mut ok = true;
        for i in 0..N {
            let m = r[i].abs();
            // Non-short-circuit operators keep the lanes branch-free.
            ok &= (m < f32::INFINITY) & ((m >= f32::from_bits(0x0D80_0000)) | (m == 0.0));
            let rb = r[i].to_bits();
            // The exact product is `r + err`: `r` is farther from zero
            // when the error points back toward zero.
            let farther = (err[i] != 0.0) & (((err[i].to_bits() ^ rb) as i32) < 0);
            o[i] = lanes::flush_bits(rb.wrapping_sub(u32::from(farther)));
        }
        ok
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (a, b, o);
        false
    }
}

/// One mad lane in nearest-even through f64: the F result (not yet in
/// its stored form), the f64 sum, and whether the lane is hard: the sum is
/// on an F midpoint (the 29 bits below F precision are 1000...0), or the F
/// result is NaN (made canonical there) or not zero and below 2^-125 (the
/// denormal flush; and near the denormal range the midpoints have another
/// bit pattern).
#[inline(always)]
fn nearest_lane(a: f32, b: f32, c: f32) -> (u32, f64, bool) {
    let s = f64::from(b) * f64::from(c) + f64::from(a);
    let r = s as f32;
    let midpoint = (s.to_bits() as u32) & 0x1FFF_FFFF == 0x1000_0000;
    // Easy magnitudes: 0, or 2^-125 up to infinity. The negated compare
    // is also true for NaN. Non-short-circuit operators keep the lanes
    // branch-free.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    let below = !(r.abs() >= f32::from_bits(0x0100_0000));
    (r.to_bits(), s, midpoint | (below & (r != 0.0)))
}

/// Rounds the exact `s + e` in `mode` and stores it; nearest-even with an
/// exact f64 is one conversion.
#[inline(always)]
fn round(s: f64, e: f64, mode: Rounding) -> u32 {
    if mode == Rounding::NearestEven && e == 0.0 {
        out(s as f32)
    } else {
        out(fp::round_f32(s, e, mode))
    }
}

/// Every other case lane by lane, exactly: the accumulator in
/// nearest-even mode, rounding up or down (Gen7 cr0.0[5:4]), mad toward
/// zero, and mad lanes on a midpoint. The accumulator's extra precision
/// (`w`) is what the generic path keeps: the exact result rounded to f64,
/// a zero with the sign the rounding mode gives it.
#[cold]
#[inline(never)]
fn other<const N: usize, const K: u8>(t: &mut Thread, f: &Flat, en: u32) {
    let mode = t.fp.rounding;
    let a = load::<N>(&t.regs, f.src[0], f.scalar[0]);
    let b = load::<N>(&t.regs, f.src[1], f.scalar[1]);
    let c = load::<N>(&t.regs, f.src[2], f.scalar[2]);
    let mut o = [0u32; N];
    let mut w = [0f64; N];
    let mut easy = false;
    if K == MAD && mode == Rounding::NearestEven {
        easy = true;
        for i in 0..N {
            let (r, s, hard) = nearest_lane(a[i], b[i], c[i]);
            // `s` is the exact sum rounded to f64 (the product is exact),
            // its zero signed as nearest-even signs it.
            easy &= !hard;
            o[i] = out(f32::from_bits(r));
            w[i] = s;
        }
    }
    for i in 0..N {
        if easy {
            break;
        }
        match K {
            ADD if mode == Rounding::NearestEven => {
                o[i] = out(a[i] + b[i]);
                w[i] = add_wide(a[i], b[i]);
            }
            MUL => {
                let p = f64::from(a[i]) * f64::from(b[i]);
                o[i] = round(p, 0.0, mode);
                w[i] = p;
            }
            _ => {
                let (s, e) = if K == ADD {
                    fp::add_exact(a[i], b[i])
                } else {
                    fp::fma_exact(b[i], c[i], a[i])
                };
                let s = if s == 0.0 && e == 0.0 {
                    let (x, y) = if K == ADD {
                        (f64::from(a[i]), f64::from(b[i]))
                    } else {
                        (f64::from(b[i]) * f64::from(c[i]), f64::from(a[i]))
                    };
                    fp::zero_sum_sign(x, y, mode)
                } else {
                    s
                };
                o[i] = round(s, e, mode);
                // `s + e` would turn a -0 into +0.
                w[i] = if e == 0.0 { s } else { s + e };
            }
        }
    }
    store::<N>(&mut t.regs, f.dst, &o, en);
    if f.writes_acc(t.fp.acc_disable) {
        store_acc::<N>(t, f.acc_first, &o, &w, en);
    }
}

#[cfg(test)]
mod tests;
