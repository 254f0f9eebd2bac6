//! add, mul, avg, mac, mach, addc, subb, mad, lrp.

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{Opcode, Type};

use super::{FCtx, FOut, IOut};
use crate::eu::decoded::Op;
use crate::eu::exec::Dom;
use crate::eu::exec::acc::AccView;
use crate::eu::fp;
use crate::eu::operand::MAX_CH;
use crate::eu::thread::Thread;

/// Float arithmetic: each result is exact before one rounding.
pub fn float(
    t: &Thread,
    op: &Op,
    fx: FCtx,
    a: &[u32; MAX_CH],
    b: &[u32; MAX_CH],
    c: &[u32; MAX_CH],
    out: &mut FOut,
) {
    let n = usize::from(op.ctl.exec);
    let gen4 = t.platform <= IsaGen::G45;
    let first = usize::from(op.ctl.acc_first);
    for k in 0..n {
        let (x, y, z) = (
            f32::from_bits(a[k]),
            f32::from_bits(b[k]),
            f32::from_bits(c[k]),
        );
        let (hi, lo) = match op.inst.opcode {
            // add (000 lines 10798-10884; 003 lines 96565-96694).
            Opcode::Add => {
                let (s, e) = fp::add_exact(x, y);
                if s == 0.0 && e == 0.0 {
                    (fp::zero_sum_sign(f64::from(x), f64::from(y), fx.mode), 0.0)
                } else {
                    (s, e)
                }
            }
            // mul (000 lines 12418-12510).
            Opcode::Mul => fp::mul_exact(x, y),
            // mac: src0 * src1 + acc, the accumulator an implied source
            // with its extra precision on Gen4/G45 (000 lines 12088-12132,
            // 7736-7745; 003 lines 98884-98947).
            Opcode::Mac => {
                let acc = t.acc_f(first + k, gen4);
                exact_sum(f64::from(x) * f64::from(y), acc, fx)
            }
            // mad: src1 * src2 + src0 with one rounding (003 lines
            // 99052-99123; fused as Mesa relies on it when it maps ffma to
            // mad [ext: Mesa src/intel/compiler/brw_compiler.c lowers ffma
            // only before Gen6]).
            Opcode::Mad => exact_sum(f64::from(y) * f64::from(z), f64::from(x), fx),
            // lrp: src1 * src0 + src2 * (1 - src0) (003 lines 98811-98883);
            // 1 - src0 is rounded to F, the rest is exact before the final
            // rounding (the manual gives no intermediate precision).
            Opcode::Lrp => {
                let (u, v) = fp::add_exact(1.0, -x);
                let one_minus = fp::round_f32(u, v, fx.mode);
                fp::two_sum(
                    f64::from(y) * f64::from(x),
                    f64::from(z) * f64::from(one_minus),
                )
            }
            _ => (f64::NAN, 0.0),
        };
        let (bits, of) = fx.fin(hi, lo);
        out.bits[k] = bits;
        // The exact result rounded to f64; `hi + lo` with a zero `lo`
        // would turn a -0 (a product, or -0 + -0) into +0.
        out.wide[k] = if hi.is_nan() {
            f64::NAN
        } else if lo == 0.0 {
            hi
        } else {
            hi + lo
        };
        if of {
            out.of |= 1 << k;
        }
    }
}

/// The exact sum of two f64 terms (a product and an addend), with the sign
/// an exact zero gets in the rounding mode.
fn exact_sum(p: f64, c: f64, fx: FCtx) -> (f64, f64) {
    let (s, e) = fp::two_sum(p, c);
    if s == 0.0 && e == 0.0 {
        (fp::zero_sum_sign(p, c, fx.mode), 0.0)
    } else {
        (s, e)
    }
}

/// Whether a source is a dword integer.
fn is_dword(ty: Type) -> bool {
    matches!(ty, Type::D | Type::Ud)
}

/// The high 16 bits of a dword source as its type makes them (signed for
/// D).
fn hi16(v: i64, ty: Type) -> i64 {
    if ty == Type::D {
        (v as i32 >> 16) as i64
    } else {
        (v as u32 >> 16) as i64
    }
}

/// Integer arithmetic on exact values (i64 holds every 32-bit result and
/// the 48-bit products).
pub fn int(
    t: &Thread,
    op: &Op,
    a: &[i64; MAX_CH],
    b: &[i64; MAX_CH],
    c: &[i64; MAX_CH],
    n: usize,
    out: &mut IOut,
) {
    let gen7 = t.platform >= IsaGen::Gen7;
    let (t0, t1) = (op.src[0].ty, op.src[1].ty);
    let dword_mul = is_dword(t0) && is_dword(t1);
    let view = if op.ctl.dom == Dom::W {
        AccView::W
    } else {
        AccView::D
    };
    let first = usize::from(op.ctl.acc_first);
    let mut acc_v = [0i64; MAX_CH];
    let mut acc_used = false;
    for k in 0..n {
        let (x, y, z) = (a[k], b[k], c[k]);
        out.v[k] = match op.inst.opcode {
            Opcode::Add => x.wrapping_add(y),
            // A dword-by-dword mul multiplies only the low 16 bits of one
            // source, as unsigned, by the other: src0 on Gen4-Gen6 (000
            // line 12454; 003 lines 99598-99600), src1 on Gen7 (001 lines
            // 667-668). The full product needs mul/mach.
            Opcode::Mul if dword_mul => {
                if gen7 {
                    x.wrapping_mul(y & 0xFFFF)
                } else {
                    (x & 0xFFFF).wrapping_mul(y)
                }
            }
            Opcode::Mul => x.wrapping_mul(y),
            // avg: (src0 + src1 + 1) >> 1 (000 lines 10993-11034).
            Opcode::Avg => (x.wrapping_add(y).wrapping_add(1)) >> 1,
            Opcode::Mac => x.wrapping_mul(y).wrapping_add(t.acc_int(view, first + k)),
            // mach: acc += (src0[31:16] * src1) << 16 over 64 bits; dst =
            // acc[63:32] (000 lines 12133-12197; 003 lines 98948-99051). On
            // Gen7 the high half comes from src1, the source whose low half
            // mul used [ext: Mesa src/intel/compiler/brw_lower_integer_
            // multiplication.cpp pairs mul and mach on the same operands].
            Opcode::Mach => {
                let prod = if gen7 {
                    x.wrapping_mul(hi16(y, t1))
                } else {
                    hi16(x, t0).wrapping_mul(y)
                };
                let acc = t.acc_int(AccView::D, first + k);
                let sum = acc.wrapping_add(prod.wrapping_shl(16));
                acc_v[k] = sum;
                acc_used = true;
                sum >> 32
            }
            // addc/subb: 32-bit unsigned add/subtract, the carry or borrow
            // into the accumulator (001 lines 646-648 add them; semantics
            // [ext: Mesa src/intel/compiler/brw_fs_nir.cpp uadd_carry and
            // usub_borrow read acc0 after addc/subb]).
            Opcode::Addc => {
                let s = (x as u32 as u64) + (y as u32 as u64);
                acc_v[k] = (s >> 32) as i64;
                acc_used = true;
                (s as u32) as i64
            }
            Opcode::Subb => {
                let (xu, yu) = (x as u32, y as u32);
                acc_v[k] = i64::from(xu < yu);
                acc_used = true;
                xu.wrapping_sub(yu) as i64
            }
            Opcode::Mad => y.wrapping_mul(z).wrapping_add(x),
            Opcode::Lrp => y
                .wrapping_mul(x)
                .wrapping_add(z.wrapping_mul(1i64.wrapping_sub(x))),
            _ => x,
        };
    }
    if acc_used {
        out.acc_v = Some(acc_v);
    }
}
