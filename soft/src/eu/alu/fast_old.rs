//! Fast paths for the instructions ALU-bound kernels are made of: F add,
//! mul and mad with direct register operands laid out linearly, and no
//! modifiers, predication, saturation or condition. They compute exactly
//! what the generic path computes, in any rounding mode, and write the
//! implicit accumulator when the instruction does (Gen4/G45 arithmetic);
//! ALT mode goes to the generic path.

use baregpu_isa::Platform;
use baregpu_isa::inst::{CondMod, Opcode, PredCtrl, Type};

use super::exec;
use crate::eu::error::ErrorKind;
use crate::eu::exec::Dom;
use crate::eu::fp::{self, Rounding};
use crate::eu::operand::SrcPlan;
use crate::eu::predecode::{Handler, Next, Op};
use crate::eu::thread::Thread;

/// The fast handler for `op`, if it qualifies.
pub fn choose(p: Platform, op: &Op) -> Option<Handler> {
    let ctl = &op.ctl;
    let simple = ctl.dom == Dom::F
        && ctl.pred == PredCtrl::None
        && ctl.cond == CondMod::None
        && !ctl.sat
        && ctl.wmask & 0xF == 0xF
        && ctl.step == 1
        && !op.dst.acc
        && op.dst.ty == Type::F
        && matches!(op.lin[0], Some((_, 4)));
    let _ = p;
    if !simple {
        return None;
    }
    let plain = |k: usize| {
        let s: &SrcPlan = &op.src[k];
        s.ty == Type::F
            && !s.acc
            && !s.mods.abs
            && !s.mods.neg
            && matches!(op.lin[k + 1], Some((_, 0 | 4)))
    };
    let two = plain(0) && plain(1);
    match (op.inst.opcode, ctl.exec) {
        (Opcode::Add, 8) if two => Some(add::<8>),
        (Opcode::Add, 16) if two => Some(add::<16>),
        (Opcode::Mul, 8) if two => Some(mul::<8>),
        (Opcode::Mul, 16) if two => Some(mul::<16>),
        (Opcode::Mad, 8) if two && plain(2) => Some(mad::<8>),
        (Opcode::Mad, 16) if two && plain(2) => Some(mad::<16>),
        _ => None,
    }
}

#[inline(always)]
fn word(regs: &[u8], o: usize) -> u32 {
    regs.get(o..o + 4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map_or(0, u32::from_le_bytes)
}

/// `N` F elements of a linear operand, denormals flushed.
#[inline(always)]
fn load<const N: usize>(regs: &[u8], lin: Option<(u16, u8)>) -> [f32; N] {
    let (off, stride) = lin.unwrap_or((0, 0));
    let o = usize::from(off);
    if stride == 0 {
        return [f32::from_bits(fp::flush32(word(regs, o))); N];
    }
    let mut v = [0f32; N];
    if let Some(s) = regs.get(o..o + 4 * N) {
        for (d, c) in v.iter_mut().zip(s.chunks_exact(4)) {
            let w = <[u8; 4]>::try_from(c).map_or(0, u32::from_le_bytes);
            *d = f32::from_bits(fp::flush32(w));
        }
    }
    v
}

/// The stored form of a rounded F result: NaN canonical, denormals
/// flushed.
#[inline(always)]
fn out(r: f32) -> u32 {
    let b = r.to_bits();
    let nan = b & 0x7FFF_FFFF > 0x7F80_0000;
    let flushed = if b & 0x7F80_0000 == 0 {
        b & 0x8000_0000
    } else {
        b
    };
    if nan { fp::F32_NAN } else { flushed }
}

/// Results of `N` lanes: the stored bits and, for the Gen4/G45
/// accumulator, the value before rounding.
type Lanes<const N: usize> = ([u32; N], [f64; N]);

/// Shared driver: `f` computes the `N` results from the registers in the
/// thread's rounding mode.
#[inline(always)]
fn run<const N: usize>(
    t: &mut Thread,
    op: &Op,
    f: impl Fn(&[u8], Rounding) -> Lanes<N>,
) -> Result<Next, ErrorKind> {
    if t.fp.alt {
        return exec(t, op);
    }
    let en = t.enables(&op.ctl, op.ip);
    let (res, wide) = f(&t.regs[..], t.fp.rounding);
    let o = usize::from(op.lin[0].map_or(0, |l| l.0));
    let full = if N >= 32 { u32::MAX } else { (1u32 << N) - 1 };
    if let Some(d) = t.regs.get_mut(o..o + 4 * N) {
        if en & full == full {
            for (c, v) in d.chunks_exact_mut(4).zip(res.iter()) {
                c.copy_from_slice(&v.to_le_bytes());
            }
        } else {
            for (k, (c, v)) in d.chunks_exact_mut(4).zip(res.iter()).enumerate() {
                if en >> k & 1 != 0 {
                    c.copy_from_slice(&v.to_le_bytes());
                }
            }
        }
    }
    if super::implicit_acc(t, &op.ctl) {
        let first = usize::from(op.ctl.acc_first);
        for k in 0..N {
            if en >> k & 1 != 0 {
                t.acc_put_f32(first + k, res[k], wide[k]);
            }
        }
    }
    Ok(Next::Fall)
}

/// Rounds the exact `s + e` in `mode` and stores it; nearest-even with an
/// exact f64 (the common case) is one conversion.
#[inline(always)]
fn round(s: f64, e: f64, mode: Rounding) -> u32 {
    if mode == Rounding::NearestEven && e == 0.0 {
        out(s as f32)
    } else {
        out(fp::round_f32(s, e, mode))
    }
}

fn add<const N: usize>(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let (la, lb) = (op.lin[1], op.lin[2]);
    run::<N>(t, op, |r, mode| {
        let (a, b) = (load::<N>(r, la), load::<N>(r, lb));
        let mut o = [0u32; N];
        let mut w = [0f64; N];
        if mode == Rounding::NearestEven {
            // The host's F add is correctly rounded to nearest even.
            for i in 0..N {
                let v = a[i] + b[i];
                o[i] = out(v);
                w[i] = f64::from(v);
            }
        } else {
            for i in 0..N {
                let (s, e) = fp::add_exact(a[i], b[i]);
                let s = if s == 0.0 && e == 0.0 {
                    fp::zero_sum_sign(f64::from(a[i]), f64::from(b[i]), mode)
                } else {
                    s
                };
                o[i] = round(s, e, mode);
                w[i] = s + e;
            }
        }
        (o, w)
    })
}

fn mul<const N: usize>(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let (la, lb) = (op.lin[1], op.lin[2]);
    run::<N>(t, op, |r, mode| {
        let (a, b) = (load::<N>(r, la), load::<N>(r, lb));
        let mut o = [0u32; N];
        let mut w = [0f64; N];
        for i in 0..N {
            // The product is exact in f64.
            let p = f64::from(a[i]) * f64::from(b[i]);
            o[i] = round(p, 0.0, mode);
            w[i] = p;
        }
        (o, w)
    })
}

/// mad = src1 * src2 + src0 with one rounding. The product is exact in
/// f64; in nearest-even the f64 sum rounds once more, which only matters
/// when it lands exactly on an F rounding midpoint (or near the denormal
/// range): those lanes, and other modes, are done exactly.
fn mad<const N: usize>(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let (la, lb, lc) = (op.lin[1], op.lin[2], op.lin[3]);
    run::<N>(t, op, |r, mode| {
        let (a, b, c) = (load::<N>(r, la), load::<N>(r, lb), load::<N>(r, lc));
        let mut o = [0u32; N];
        let mut w = [0f64; N];
        let mut redo = mode != Rounding::NearestEven;
        if !redo {
            for i in 0..N {
                let s = f64::from(b[i]) * f64::from(c[i]) + f64::from(a[i]);
                let midpoint = s.to_bits() & 0x1FFF_FFFF == 0x1000_0000;
                redo |= midpoint | (s != 0.0 && s.abs() < 1.0e-37);
                o[i] = out(s as f32);
                w[i] = s;
            }
        }
        if redo {
            for i in 0..N {
                let (s, e) = fp::fma_exact(b[i], c[i], a[i]);
                let s = if s == 0.0 && e == 0.0 {
                    let p = f64::from(b[i]) * f64::from(c[i]);
                    fp::zero_sum_sign(p, f64::from(a[i]), mode)
                } else {
                    s
                };
                o[i] = round(s, e, mode);
                w[i] = s + e;
            }
        }
        (o, w)
    })
}
