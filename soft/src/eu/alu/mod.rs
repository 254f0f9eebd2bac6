//! Opcode semantics. Every ALU instruction runs the same way: read the
//! sources into lanes of the execution type, compute each lane (the
//! families below), convert to the destination type with saturation,
//! store the enabled channels, then update the accumulator and the flags.
//! [`fast`] holds specialised handlers for the common float cases.

// Channel loops index the lanes of several sources and results at once.
#![allow(clippy::needless_range_loop)]

mod arith;
mod bits;
pub(crate) mod compare;
mod conv;
mod dot;
mod fast;
mod logic;
mod math;
mod round;

pub use fast::wide_lanes;
pub(crate) use fast::{choose_lite, nearest_f};
pub(crate) use math::math_op;

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{CondMod, Instruction, Opcode, Type};

use crate::eu::decoded::{Handler, Next, Op};
use crate::eu::error::ErrorKind;
use crate::eu::exec::acc::AccView;
use crate::eu::exec::flags::{self, Signals};
use crate::eu::exec::{Ctl, Dom};
use crate::eu::fp::{self, Rounding};
use crate::eu::operand::plan::acc_slot;
use crate::eu::operand::{DstKind, MAX_CH, read, write};
use crate::eu::thread::Thread;

/// Lanes of a float-domain result: the rounded bits and, for the Gen4
/// accumulator, the value before rounding.
pub(crate) struct FOut {
    pub bits: [u32; MAX_CH],
    pub wide: [f64; MAX_CH],
    /// Channels whose result overflowed the F range (the `.o` signal).
    pub of: u32,
    /// Channels whose round instruction needs the increment (`.r`).
    pub inc: u32,
}

impl FOut {
    fn new() -> Self {
        FOut {
            bits: [0; MAX_CH],
            wide: [0.0; MAX_CH],
            of: 0,
            inc: 0,
        }
    }
}

/// How float results are finished: rounding mode and ALT mode.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FCtx {
    pub mode: Rounding,
    pub alt: bool,
}

impl FCtx {
    /// Rounds the exact value `hi + lo` to F, flushes a denormal result and
    /// applies ALT mode. Returns the bits and whether it overflowed.
    #[inline(always)]
    pub fn fin(&self, hi: f64, lo: f64) -> (u32, bool) {
        if hi.is_nan() {
            return (fp::F32_NAN, false);
        }
        let r = fp::round_f32(hi, lo, self.mode).to_bits();
        let of =
            hi.is_finite() && (hi.abs() > f64::from(f32::MAX) || r & 0x7FFF_FFFF == 0x7F80_0000);
        let r = fp::flush32(r);
        (if self.alt { fp::alt_clamp32(r) } else { r }, of)
    }
}

/// Lane results of an integer-domain instruction.
pub(crate) struct IOut {
    pub v: [i64; MAX_CH],
    /// Channels whose value must also go to the accumulator as `acc_v`
    /// (addc/subb carry, mach's 64-bit sum) instead of `v`.
    pub acc_v: Option<[i64; MAX_CH]>,
}

impl IOut {
    fn new() -> Self {
        IOut {
            v: [0; MAX_CH],
            acc_v: None,
        }
    }
}

/// Handler of instructions that failed to predecode.
pub(crate) fn bad(_t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    Err(op.bad.clone().unwrap_or(ErrorKind::BadOperand("operand")))
}

pub(crate) fn illegal(_t: &mut Thread, _op: &Op) -> Result<Next, ErrorKind> {
    Err(ErrorKind::IllegalOpcode)
}

pub(crate) fn unimplemented(_t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    Err(ErrorKind::Unimplemented(op.inst.opcode))
}

pub(crate) fn nop(_t: &mut Thread, _op: &Op) -> Result<Next, ErrorKind> {
    Ok(Next::Fall)
}

/// The handler of an ALU-layout instruction.
pub(crate) fn choose(p: IsaGen, inst: &Instruction, op: &Op) -> Handler {
    use Opcode::*;
    if let Some(h) = fast::choose(p, op) {
        return h;
    }
    match inst.opcode {
        Mov | Sel | Not | And | Or | Xor | Shr | Shl | Asr | Add | Mul | Avg | Frc | Rndu
        | Rndd | Rnde | Rndz | Mac | Mach | Lzd | Fbh | Fbl | Cbit | Bfrev | Bfe | Bfi1 | Bfi2
        | Addc | Subb | Mad | Lrp | Dp4 | Dph | Dp3 | Dp2 | Line | Pln | Sad2 | Sada2 => exec,
        Cmp | Cmpn => compare::exec,
        F32to16 | F16to32 => conv::half,
        Movi => conv::movi,
        Dim => conv::dim,
        _ => unimplemented,
    }
}

/// The generic ALU instruction.
pub(crate) fn exec(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let ctl = op.ctl;
    let en0 = t.enables(&ctl, op.ip);
    let pm = t.pmask(&ctl);
    // sel computes its write enables without the predicate, which selects
    // the source instead (000 lines 13244-13294).
    let sel = op.inst.opcode == Opcode::Sel && ctl.cond == CondMod::None;
    let en = if sel { en0 } else { en0 & pm };
    match ctl.dom {
        Dom::F => exec_f(t, op, en, pm),
        Dom::Df => exec_df(t, op, en, pm),
        Dom::D | Dom::W => exec_int(t, op, en, pm),
    }
}

/// The comparison of src0 with src1 per channel (a Gen6 branch's embedded
/// compare).
pub(crate) fn compare_lanes(
    t: &Thread,
    op: &Op,
    dom: Dom,
    n: usize,
    en: u32,
) -> Result<u32, ErrorKind> {
    compare::lanes(t, op, dom, n, en, false)
}

/// The float context of the thread.
pub(crate) fn fctx(t: &Thread) -> FCtx {
    FCtx {
        mode: t.fp.rounding,
        alt: t.fp.alt,
    }
}

fn exec_f(t: &mut Thread, op: &Op, en: u32, pm: u32) -> Result<Next, ErrorKind> {
    let ctl = &op.ctl;
    let n = usize::from(ctl.exec);
    // mov F to DF is a format conversion, which keeps denormals (001 lines
    // 1329-1331 and the F-to-DF table, lines 1760-1775).
    let widen = op.inst.opcode == Opcode::Mov && op.dst.ty == Type::Df;
    let flush = !ctl.raw && !widen;
    let mode = t.fp.rounding;
    let a = read::f32s(t, &op.src[0], n, en, flush, mode)?;
    let b = read::f32s(t, &op.src[1], n, en, flush, mode)?;
    let c = read::f32s(t, &op.src[2], n, en, flush, mode)?;
    let fx = fctx(t);
    let mut out = FOut::new();
    use Opcode::*;
    match op.inst.opcode {
        Mov => logic::mov_f(&a, n, &mut out),
        Sel => compare::sel_f(t, op, &a, &b, pm, &mut out),
        Add | Mul | Mac | Mad | Lrp | Avg => arith::float(t, op, fx, &a, &b, &c, &mut out),
        Frc | Rndu | Rndd | Rnde | Rndz => {
            round::float(t.platform, op.inst.opcode, &a, n, &mut out)
        }
        Dp4 | Dph | Dp3 | Dp2 | Line | Pln => dot::float(t, op, fx, &a, &b, &mut out)?,
        // Integer-only instructions given float operands: the manuals
        // leave the result undefined; compute on the bit patterns.
        _ => return exec_int(t, op, en, pm),
    }
    finish_f(t, op, en, &out)
}

/// Stores float lanes: destination conversion, accumulator, flags.
pub(crate) fn finish_f(t: &mut Thread, op: &Op, en: u32, out: &FOut) -> Result<Next, ErrorKind> {
    let ctl = &op.ctl;
    let n = usize::from(ctl.exec);
    let dty = op.dst.ty;
    let mut raw = [0u64; MAX_CH];
    let mut of = 0u32;
    for c in 0..n {
        let b = out.bits[c];
        let (r, o) = match dty {
            Type::F => (
                u64::from(if ctl.sat { fp::saturate32(b) } else { b }),
                false,
            ),
            Type::Df => {
                let d = fp::f32_to_f64(f32::from_bits(b)).to_bits();
                (if ctl.sat { fp::saturate64(d) } else { d }, false)
            }
            // An integer destination saturates to its own range (000 line
            // 9802; 003 lines 94448-94470), which the conversion's clamp
            // already is; [0, 1] is for float destinations only.
            ty => fp::float_to_int(f64::from(f32::from_bits(b)), ty),
        };
        raw[c] = r;
        if o || out.of >> c & 1 != 0 {
            of |= 1 << c;
        }
    }
    write::store(t, &op.dst, n, 1, en, &raw)?;
    if op.dst.acc {
        explicit_acc(t, op, en, &raw, |c| AccWrite::F(out.bits[c], out.wide[c]));
    } else if implicit_acc(t, ctl) {
        let first = usize::from(ctl.acc_first);
        for c in 0..n {
            if en >> c & 1 != 0 {
                t.acc_put_f32(first + c, out.bits[c], out.wide[c]);
            }
        }
    }
    cond_flags(t, op, en, &raw, of, out.inc);
    Ok(Next::Fall)
}

fn exec_int(t: &mut Thread, op: &Op, en: u32, pm: u32) -> Result<Next, ErrorKind> {
    let ctl = &op.ctl;
    let n = usize::from(ctl.exec);
    let mut out = IOut::new();
    use Opcode::*;
    if op.inst.opcode == Mov {
        // Straight into the result.
        read::ints_into(t, &op.src[0], n, en, &mut out.v)?;
        return finish_int(t, op, en, &out);
    }
    // Sources read in place (absent ones stay zero).
    let (mut a, mut b, mut c) = ([0; MAX_CH], [0; MAX_CH], [0; MAX_CH]);
    read::ints_into(t, &op.src[0], n, en, &mut a)?;
    read::ints_into(t, &op.src[1], n, en, &mut b)?;
    read::ints_into(t, &op.src[2], n, en, &mut c)?;
    match op.inst.opcode {
        Sel => compare::sel_i(t, op, &a, &b, pm, &mut out),
        Not | And | Or | Xor | Shr | Shl | Asr => logic::int(op, &a, &b, n, &mut out),
        Add | Mul | Avg | Mac | Mach | Addc | Subb | Mad | Lrp => {
            arith::int(t, op, &a, &b, &c, n, &mut out)
        }
        Lzd | Fbh | Fbl | Cbit | Bfrev | Bfe | Bfi1 | Bfi2 => {
            bits::int(op, &a, &b, &c, n, &mut out)
        }
        Sad2 | Sada2 => dot::sad(t, op, &a, &b, n, &mut out),
        // Float-only instructions given integer operands: undefined; run
        // them on the values converted to F.
        Frc | Rndu | Rndd | Rnde | Rndz | Dp4 | Dph | Dp3 | Dp2 | Line | Pln => {
            let mut op2 = op.clone();
            op2.ctl.dom = Dom::F;
            return exec_f(t, &op2, en, pm);
        }
        _ => return Err(ErrorKind::Unimplemented(op.inst.opcode)),
    }
    finish_int(t, op, en, &out)
}

/// Stores integer lanes: destination conversion, accumulator, flags.
pub(crate) fn finish_int(t: &mut Thread, op: &Op, en: u32, out: &IOut) -> Result<Next, ErrorKind> {
    let ctl = &op.ctl;
    let n = usize::from(ctl.exec);
    let dty = op.dst.ty;
    let mode = t.fp.rounding;
    let mut raw = [0u64; MAX_CH];
    let mut of = 0u32;
    for c in 0..n {
        let v = out.v[c];
        let (r, o) = match dty {
            Type::F => {
                let b = fp::int_to_f32(v, mode).to_bits();
                (
                    u64::from(if ctl.sat { fp::saturate32(b) } else { b }),
                    false,
                )
            }
            Type::Df => {
                let b = fp::int_to_f64(v, mode).to_bits();
                (if ctl.sat { fp::saturate64(b) } else { b }, false)
            }
            ty => fp::int_to_int(v, ty, ctl.sat),
        };
        raw[c] = r;
        if o {
            of |= 1 << c;
        }
    }
    write::store(t, &op.dst, n, 1, en, &raw)?;
    let view = if ctl.dom == Dom::W {
        AccView::W
    } else {
        AccView::D
    };
    if op.dst.acc {
        let src = out.acc_v.as_ref().unwrap_or(&out.v);
        explicit_acc(t, op, en, &raw, |c| AccWrite::Int(src[c]));
    } else if implicit_acc(t, ctl) || out.acc_v.is_some() {
        let src = out.acc_v.as_ref().unwrap_or(&out.v);
        let first = usize::from(ctl.acc_first);
        for c in 0..n {
            if en >> c & 1 != 0 {
                t.acc_put_int(view, first + c, src[c]);
            }
        }
    }
    cond_flags(t, op, en, &raw, of, 0);
    Ok(Next::Fall)
}

fn exec_df(t: &mut Thread, op: &Op, en: u32, pm: u32) -> Result<Next, ErrorKind> {
    let ctl = &op.ctl;
    use Opcode::*;
    match op.inst.opcode {
        Mov | Sel | Add | Mul | Mad | Frc | Rndu | Rndd | Rnde | Rndz => {}
        // DF operands where the manuals define no DF operation: integer
        // instructions run on the bits, float ones in F (undefined either
        // way; this keeps it deterministic).
        Mac | Lrp | Dp4 | Dph | Dp3 | Dp2 | Line | Pln => {
            let mut op2 = op.clone();
            op2.ctl.dom = Dom::F;
            return exec_f(t, &op2, en, pm);
        }
        _ => return exec_int(t, op, en, pm),
    }
    let n = usize::from(ctl.exec);
    let step = usize::from(ctl.step.max(1));
    let flush = !ctl.raw && !t.fp.df_denorms;
    let mode = t.fp.rounding;
    let a = read::f64s(t, &op.src[0], n, en, flush, mode)?;
    let b = read::f64s(t, &op.src[1], n, en, flush, mode)?;
    let c = read::f64s(t, &op.src[2], n, en, flush, mode)?;
    let mut out = [0u64; MAX_CH];
    let mut of = 0u32;
    let mut ch = 0;
    while ch < n {
        let (x, y, z) = (
            f64::from_bits(a[ch]),
            f64::from_bits(b[ch]),
            f64::from_bits(c[ch]),
        );
        let exact = match op.inst.opcode {
            Mov => None,
            Sel => {
                let take0 = if ctl.cond == CondMod::None {
                    pm >> ch & 1 != 0
                } else {
                    compare::cmp_f64(ctl.cond, x, y, true)
                };
                out[ch] = if take0 { a[ch] } else { b[ch] };
                ch += step;
                continue;
            }
            Add => Some(fp::two_sum(x, y)),
            Mul => {
                let p = x * y;
                Some((p, libm::fma(x, y, -p)))
            }
            Mad => {
                // dst = src1 * src2 + src0, fused.
                let r = libm::fma(y, z, x);
                Some((r, libm::fma(y, z, x - r)))
            }
            Frc | Rndu | Rndd | Rnde | Rndz => Some((round::df(op.inst.opcode, x), 0.0)),
            _ => return Err(ErrorKind::Unimplemented(op.inst.opcode)),
        };
        out[ch] = match exact {
            None => a[ch],
            Some((hi, lo)) => {
                if hi.is_nan() {
                    fp::F64_NAN
                } else {
                    let r = fp::df_round(hi, lo, mode);
                    if hi.is_finite() && r.is_infinite() {
                        of |= 1 << ch;
                    }
                    let r = r.to_bits();
                    if t.fp.df_denorms { r } else { fp::flush64(r) }
                }
            }
        };
        ch += step;
    }
    let dty = op.dst.ty;
    let mut raw = [0u64; MAX_CH];
    let mut ch = 0;
    while ch < n {
        let v = f64::from_bits(out[ch]);
        raw[ch] = match dty {
            Type::Df => {
                if ctl.sat {
                    fp::saturate64(out[ch])
                } else {
                    out[ch]
                }
            }
            Type::F => {
                let b = fp::f64_to_f32(v).to_bits();
                u64::from(if ctl.sat { fp::saturate32(b) } else { b })
            }
            ty => {
                let (r, o) = fp::float_to_int(v, ty);
                if o {
                    of |= 1 << ch;
                }
                r
            }
        };
        ch += step;
    }
    write::store(t, &op.dst, n, step, en, &raw)?;
    if implicit_acc(t, ctl) && !op.dst.acc {
        let mut ch = 0;
        let mut k = usize::from(ctl.acc_first);
        while ch < n {
            if en >> ch & 1 != 0 {
                t.acc_put_f64(k, out[ch]);
            }
            ch += step;
            k += 1;
        }
    }
    cond_flags(t, op, en, &raw, of, 0);
    Ok(Next::Fall)
}

/// Whether the implicit accumulator is written: the instruction asks for
/// it and cr0.0[1] does not disable it (000 lines 7715-7720; 001 lines
/// 2650-2655).
pub(crate) fn implicit_acc(t: &Thread, ctl: &Ctl) -> bool {
    ctl.acc_write && !t.fp.acc_disable
}

/// A value for an explicit accumulator destination.
pub(crate) enum AccWrite {
    Int(i64),
    F(u32, f64),
}

/// An explicit accumulator destination keeps the execution-type value with
/// its extra precision; the image already holds the converted value.
pub(crate) fn explicit_acc(
    t: &mut Thread,
    op: &Op,
    en: u32,
    raw: &[u64; MAX_CH],
    val: impl Fn(usize) -> AccWrite,
) {
    let DstKind::Direct { off } = &op.dst.kind else {
        return;
    };
    let size = usize::from(op.dst.ty.size());
    for c in 0..usize::from(op.ctl.exec) {
        if en >> c & 1 == 0 {
            continue;
        }
        let o = usize::from(off[c]);
        match (val(c), op.dst.ty) {
            (AccWrite::F(bits, wide), Type::F) => t.acc_put_f32(acc_slot(o, 4), bits, wide),
            (AccWrite::Int(v), Type::W | Type::Uw) => t.acc_put_int(AccView::W, acc_slot(o, 2), v),
            (AccWrite::Int(v), Type::D | Type::Ud) => t.acc_put_int(AccView::D, acc_slot(o, 4), v),
            // Other combinations (a conversion into the accumulator): the
            // image holds the converted value; mirror it.
            (_, ty) => {
                let v = fp::int_value(raw[c], ty);
                if size == 2 {
                    t.acc_put_int(AccView::W, acc_slot(o, 2), v);
                } else if size == 4 && ty != Type::F {
                    t.acc_put_int(AccView::D, acc_slot(o, 4), v);
                } else if ty == Type::F {
                    let b = raw[c] as u32;
                    t.acc_put_f32(acc_slot(o, 4), b, f64::from(f32::from_bits(b)));
                }
            }
        }
    }
}

/// Condition modifier of an ordinary instruction: the post signals of the
/// converted destination value (000 lines 9137-9148). `sel` never writes
/// flags (001 line 2886).
pub(crate) fn cond_flags(t: &mut Thread, op: &Op, en: u32, raw: &[u64; MAX_CH], of: u32, inc: u32) {
    let ctl = &op.ctl;
    if ctl.cond == CondMod::None || op.inst.opcode == Opcode::Sel {
        return;
    }
    let mut val = 0u32;
    let step = usize::from(ctl.step.max(1));
    let mut c = 0;
    while c < usize::from(ctl.exec) {
        let s: Signals = flags::post(raw[c], op.dst.ty, of >> c & 1 != 0, inc >> c & 1 != 0);
        if flags::cond(ctl.cond, s) {
            val |= 1 << c;
        }
        c += step;
    }
    t.write_flags(ctl, en, val);
}
