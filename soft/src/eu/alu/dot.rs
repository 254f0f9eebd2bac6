//! The vector instructions: dp4, dph, dp3, dp2, line, pln (float) and
//! sad2, sada2 (bytes). Dot products and planes are fused: the products
//! are exact and the sum is rounded once (the manuals allow fused results,
//! 000 lines 7020-7024).

use baregpu_isa::inst::Opcode;

use super::{FCtx, FOut, IOut};
use crate::eu::decoded::Op;
use crate::eu::error::ErrorKind;
use crate::eu::exec::acc::AccView;
use crate::eu::fp;
use crate::eu::operand::{MAX_CH, SrcKind};
use crate::eu::thread::Thread;

/// A compensated sum: the f64 sum and the error it dropped, so that the
/// final rounding sees (almost always exactly) the true sum.
fn sum(terms: &[f64]) -> (f64, f64) {
    let mut s = 0.0f64;
    let mut e = 0.0f64;
    let mut first = true;
    for &t in terms {
        if first {
            s = t;
            first = false;
            continue;
        }
        let (hi, lo) = fp::two_sum(s, t);
        s = hi;
        e += lo;
    }
    if e == 0.0 {
        (s, 0.0)
    } else {
        fp::two_sum(s, e)
    }
}

/// The F value at a flat offset of a scalar source (line/pln read p, q, r
/// from the 16-byte group of src0, 000 lines 11977-12030, 12669-12731).
fn src0_scalar(t: &Thread, op: &Op, dwords: usize) -> f32 {
    match &op.src[0].kind {
        SrcKind::Direct { off } => {
            let b = t.load32(usize::from(off[0]) + dwords * 4);
            let b = if op.src[0].mods.abs {
                b & 0x7FFF_FFFF
            } else {
                b
            };
            let b = if op.src[0].mods.neg {
                b ^ 0x8000_0000
            } else {
                b
            };
            f32::from_bits(fp::flush32(b))
        }
        SrcKind::Imm { vals, .. } => f32::from_bits(vals[dwords.min(7)] as u32),
        _ => 0.0,
    }
}

pub fn float(
    t: &Thread,
    op: &Op,
    fx: FCtx,
    a: &[u32; MAX_CH],
    b: &[u32; MAX_CH],
    out: &mut FOut,
) -> Result<(), ErrorKind> {
    let n = usize::from(op.ctl.exec);
    let f = |v: u32| f64::from(f32::from_bits(v));
    for k in 0..n {
        let g = k - k % 4;
        let at = |i: usize| (f(a[(g + i) % MAX_CH]), f(b[(g + i) % MAX_CH]));
        let (hi, lo) = match op.inst.opcode {
            // dp4/dp3/dp2: sum over the 4-group, replicated to its channels
            // (000 lines 11337-11506; 003 lines 97593-97920).
            Opcode::Dp4 | Opcode::Dp3 | Opcode::Dp2 => {
                let m = match op.inst.opcode {
                    Opcode::Dp4 => 4,
                    Opcode::Dp3 => 3,
                    _ => 2,
                };
                let mut terms = [0.0f64; 4];
                for (i, tm) in terms.iter_mut().enumerate().take(m) {
                    let (x, y) = at(i);
                    *tm = x * y;
                }
                sum(&terms[..m])
            }
            // dph: src0.xyz . src1.xyz + src1.w (000 lines 11507-11561).
            Opcode::Dph => {
                let mut terms = [0.0f64; 4];
                for (i, tm) in terms.iter_mut().enumerate().take(3) {
                    let (x, y) = at(i);
                    *tm = x * y;
                }
                terms[3] = at(3).1;
                sum(&terms)
            }
            // line: p * src1 + q with p = src0 and q its dword 3 (000 lines
            // 11977-12030; 003 lines 98646-98724).
            Opcode::Line => {
                let p = f64::from(src0_scalar(t, op, 0));
                let q = f64::from(src0_scalar(t, op, 3));
                sum(&[p * f(b[k]), q])
            }
            // pln: p * u + q * v + r, u = src1, v = the register after it
            // (the second 8 channels use the next pair), p, q, r = dwords 0,
            // 1 and 3 of src0 (000 lines 12669-12731; 003 lines
            // 99911-99997).
            Opcode::Pln => {
                let p = f64::from(src0_scalar(t, op, 0));
                let q = f64::from(src0_scalar(t, op, 1));
                let r = f64::from(src0_scalar(t, op, 3));
                let (u, v) = pln_uv(t, op, k);
                sum(&[p * u, q * v, r])
            }
            _ => (f64::NAN, 0.0),
        };
        let (bits, of) = fx.fin(hi, lo);
        out.bits[k] = bits;
        out.wide[k] = hi + lo;
        if of {
            out.of |= 1 << k;
        }
    }
    Ok(())
}

/// pln's u and v of channel `k`: src1 is an even register pair per 8
/// channels.
fn pln_uv(t: &Thread, op: &Op, k: usize) -> (f64, f64) {
    let base = match &op.src[1].kind {
        SrcKind::Direct { off } => usize::from(off[0]),
        _ => return (0.0, 0.0),
    };
    let u_at = base + (k / 8) * 64 + (k % 8) * 4;
    let rd = |o: usize| {
        let mut b = t.load32(o);
        if op.src[1].mods.abs {
            b &= 0x7FFF_FFFF;
        }
        if op.src[1].mods.neg {
            b ^= 0x8000_0000;
        }
        f64::from(f32::from_bits(fp::flush32(b)))
    };
    (rd(u_at), rd(u_at + 32))
}

/// sad2/sada2 on byte lanes: the even channel of each pair gets the sum of
/// the two absolute differences (plus the accumulator for sada2); the odd
/// channel, which the manuals leave undefined, gets 0 (000 lines
/// 13141-13243; 003 lines 100479-100635).
pub fn sad(t: &Thread, op: &Op, a: &[i64; MAX_CH], b: &[i64; MAX_CH], n: usize, out: &mut IOut) {
    let first = usize::from(op.ctl.acc_first);
    let mut k = 0;
    while k < n {
        let d0 = (a[k] - b[k]).abs();
        let d1 = if k + 1 < n {
            (a[k + 1] - b[k + 1]).abs()
        } else {
            0
        };
        let mut s = d0 + d1;
        if op.inst.opcode == Opcode::Sada2 {
            s += t.acc_int(AccView::W, first + k);
        }
        out.v[k] = s;
        if k + 1 < n {
            out.v[k + 1] = 0;
        }
        k += 2;
    }
}
