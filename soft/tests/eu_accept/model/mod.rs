//! An independent model of one lane of an ALU instruction, written from
//! the manuals' pseudocode and conversion rules: what the destination
//! must hold (exact bits, any NaN, a value within a stated error, or
//! "undefined" with the reason), and the flag bit of cmp/cmpn.
//!
//! Sources: 000 = Gen4/G45 PRM Vol 4, 001 = Ivy Bridge EU ISA, 003 = Sandy
//! Bridge PRM. Facts from elsewhere are marked [ext: ...].

mod float;
mod half;
mod int;

#[allow(unused_imports)]
pub use float::float_fn;
pub use half::{f16_to_f32, f32_to_f16};

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{CondMod, MathFn, Opcode, Type};

use super::combos::Combo;
use super::support::{self, Mode};

/// A source element as the instruction reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val {
    /// An integer, extended by its own type's signedness.
    I(i128),
    /// F bits (VF immediates arrive converted).
    F(u32),
    /// DF bits.
    D(u64),
}

/// What one destination element must be.
#[derive(Clone, Debug, PartialEq)]
pub enum Want {
    Bits(u64),
    /// Any NaN ("the exact bit pattern of the NaN is not required to stay
    /// the same", 001 lines 1336-1338).
    Nan,
    /// A float within `tol` of `v` (fused or chained operations whose
    /// intermediate precision the manuals leave open).
    Near {
        v: f64,
        tol: f64,
    },
    /// One of two bit patterns (where the manuals allow either).
    Either(u64, u64),
    /// An integer destination value in this inclusive range (a fused
    /// result near an integer boundary).
    IntRange(i128, i128),
    /// The manuals define no value; the reason is reported.
    Undef(&'static str),
}

/// Per-run context of the model.
#[derive(Clone, Copy, Debug)]
pub struct Ctx {
    pub p: IsaGen,
    pub sat: bool,
    /// The condition modifier of cmp/cmpn runs.
    pub cond: CondMod,
    /// F arithmetic rounding: Gen4/G45 toward zero (000 lines 7007-7011),
    /// Gen6 nearest even (003 lines 89214-89219), Gen7 cr0.0[5:4], nearest
    /// even at dispatch (001 lines 3251-3260).
    pub mode: Mode,
}

impl Ctx {
    pub fn new(p: IsaGen, sat: bool) -> Ctx {
        Ctx {
            p,
            sat,
            cond: CondMod::Z,
            mode: if p <= IsaGen::G45 {
                Mode::Rtz
            } else {
                Mode::Rne
            },
        }
    }

    pub fn gen4(&self) -> bool {
        self.p <= IsaGen::G45
    }
}

/// One lane's inputs.
#[derive(Clone, Copy, Debug)]
pub struct Lane {
    pub srcs: [Val; 3],
    /// The accumulator lane mac/sada2 add (preloaded by the runner).
    pub acc: Val,
    /// The predicate bit (sel).
    pub flag: bool,
    /// The channel number.
    pub channel: usize,
    /// src0 and src1 of the lane's 4-channel group (dp*).
    pub g0: [Val; 4],
    pub g1: [Val; 4],
    /// Elements 0-3 of src0's register at its start (line, pln).
    pub pqr: [Val; 4],
    /// src0 and src1 of the next channel (sad2); for pln, `next[1]` is
    /// src1's element one register up.
    pub next: [Val; 2],
}

/// The lane's expectations: destination, the flag of cmp/cmpn, the
/// second destination register of a quotient-and-remainder divide.
#[derive(Clone, Debug, PartialEq)]
pub struct Expect {
    pub dst: Want,
    pub flag: Option<bool>,
    pub second: Option<Want>,
    /// frc: the result must also be below 1.0 (000 Table 14-3).
    pub frac: bool,
}

impl Expect {
    pub fn new(w: Want) -> Expect {
        Expect {
            dst: w,
            flag: None,
            second: None,
            frac: false,
        }
    }

    fn frac(mut self) -> Expect {
        self.frac = true;
        self
    }
}

/// Reads an element of `ty` from raw bits: integers extended by their own
/// signedness; V/UV immediates pick nibble `lane % 8` (000 lines
/// 8236-8244); VF picks byte `lane % 4`, converted to F (000 lines
/// 6932-6976).
pub fn read(ty: Type, bits: u64, lane: usize) -> Val {
    match ty {
        Type::Ub => Val::I(i128::from(bits as u8)),
        Type::B => Val::I(i128::from(bits as u8 as i8)),
        Type::Uw => Val::I(i128::from(bits as u16)),
        Type::W => Val::I(i128::from(bits as u16 as i16)),
        Type::Ud => Val::I(i128::from(bits as u32)),
        Type::D => Val::I(i128::from(bits as u32 as i32)),
        Type::F => Val::F(bits as u32),
        Type::Df => Val::D(bits),
        Type::V => {
            let n = (bits >> (4 * (lane % 8))) & 0xF;
            Val::I(i128::from(((n << 4) as u8 as i8) >> 4))
        }
        Type::Uv => Val::I(i128::from((bits >> (4 * (lane % 8))) & 0xF)),
        Type::Vf => Val::F(vf_to_f32((bits >> (8 * (lane % 4))) as u8)),
        _ => Val::I(0),
    }
}

/// An 8-bit restricted float: sign 7, exponent 6:4 with bias 3, fraction
/// 3:0 with an implied 1; 0x00 and 0x80 are the zeros (000 lines
/// 6932-6936; the range ±0.125..±31, line 6898).
pub fn vf_to_f32(b: u8) -> u32 {
    let sign = u32::from(b >> 7) << 31;
    if b & 0x7F == 0 {
        return sign;
    }
    let e = u32::from((b >> 4) & 7) + 127 - 3;
    let f = u32::from(b & 0xF) << 19;
    sign | e << 23 | f
}

/// Integer range of a type.
pub fn range(ty: Type) -> (i128, i128) {
    match ty {
        Type::Ub => (0, 255),
        Type::B => (-128, 127),
        Type::Uw => (0, 65535),
        Type::W => (-32768, 32767),
        Type::Ud => (0, 0xFFFF_FFFF),
        _ => (-0x8000_0000, 0x7FFF_FFFF),
    }
}

/// The integer an element of `ty` holds.
pub fn int_of(bits: u64, ty: Type) -> i128 {
    match read(ty, bits, 0) {
        Val::I(x) => x,
        _ => 0,
    }
}

fn int_bits(v: i128, ty: Type) -> u64 {
    let size = u32::from(ty.size()) * 8;
    (v as u64) & (u64::MAX >> (64 - size))
}

/// The span of an integer result the hardware keeps exactly: 33 bits in
/// word mode and in the accumulator; wider results are "unpredictable"
/// when saturated or converted (000 line 7734).
pub const INT33: (i128, i128) = (-(1 << 32), (1 << 32) - 1);

/// An exact integer result converted to the destination type: truncation
/// without .sat, clamping with it (000 lines 7267-7280, 9802); to F
/// rounded as the conversion rules say (000 lines 7282-7286: toward zero
/// on Gen4/G45; 003 lines 89621-89625 and 001 lines 1711-1715: nearest
/// even).
pub fn int_to_dst(v: i128, dst: Type, c: &Ctx) -> Want {
    let in33 = (INT33.0..=INT33.1).contains(&v);
    match dst {
        Type::F => {
            if !in33 {
                return Want::Undef("an integer result beyond 33 bits converted to F");
            }
            let mode = if c.gen4() { Mode::Rtz } else { c.mode };
            let neg = v < 0;
            let f = support::round(neg, v.unsigned_abs(), 0, false, mode);
            float_to_dst(f.to_bits(), Type::F, c)
        }
        Type::Df => {
            if !in33 {
                return Want::Undef("an integer result beyond 33 bits converted to DF");
            }
            df_to_dst((v as f64).to_bits(), Type::Df, c)
        }
        _ => {
            if c.sat {
                if !in33 {
                    return Want::Undef("saturating a result beyond 33 bits (000 line 7734)");
                }
                let (lo, hi) = range(dst);
                Want::Bits(int_bits(v.clamp(lo, hi), dst))
            } else {
                Want::Bits(int_bits(v, dst))
            }
        }
    }
}

/// Float to integer: toward zero, out-of-range values and infinities to
/// the nearest end of the range, NaN and zero to 0 (000 lines 7250-7265;
/// 001 lines 1640-1682). Saturation clamps to the integer type's range,
/// which the conversion already does (000 line 9802: the target range
/// depends on the destination type).
pub fn f64_to_int(x: f64, dst: Type) -> u64 {
    let (lo, hi) = range(dst);
    let v = if x.is_nan() {
        0
    } else if x >= hi as f64 {
        hi
    } else if x <= lo as f64 {
        lo
    } else {
        x.trunc() as i128
    };
    int_bits(v, dst)
}

/// F saturation: [0, 1], NaN to 0 (000 line 9802).
fn sat_f32(b: u32) -> Want {
    let x = f32::from_bits(b);
    if x.is_nan() {
        return Want::Bits(0);
    }
    if x >= 1.0 {
        return Want::Bits(0x3F80_0000);
    }
    if x > 0.0 {
        return Want::Bits(u64::from(b));
    }
    // Negative numbers go to 0; whether -0 stays -0 is not stated.
    if b == 0x8000_0000 {
        Want::Either(0, 0x8000_0000)
    } else {
        Want::Bits(0)
    }
}

/// A final F result (already rounded and flushed) into the destination.
pub fn float_to_dst(b: u32, dst: Type, c: &Ctx) -> Want {
    let x = f32::from_bits(b);
    match dst {
        Type::F => {
            if c.sat {
                sat_f32(b)
            } else if x.is_nan() {
                Want::Nan
            } else {
                Want::Bits(u64::from(b))
            }
        }
        // F to DF is exact (001 lines 1760-1775); NaN stays NaN.
        Type::Df => df_to_dst(f64::from(x).to_bits(), Type::Df, c),
        _ => Want::Bits(f64_to_int(f64::from(x), dst)),
    }
}

/// A final DF result into the destination. DF to F rounds toward zero and
/// DF denormals become zeros (001 lines 1725-1745).
pub fn df_to_dst(b: u64, dst: Type, c: &Ctx) -> Want {
    let x = f64::from_bits(b);
    match dst {
        Type::Df => {
            if x.is_nan() {
                return if c.sat { Want::Bits(0) } else { Want::Nan };
            }
            if c.sat {
                let s = if x >= 1.0 {
                    1.0
                } else if x > 0.0 {
                    x
                } else {
                    0.0
                };
                return Want::Bits(s.to_bits());
            }
            Want::Bits(b)
        }
        Type::F => {
            if x.is_nan() {
                return if c.sat { Want::Bits(0) } else { Want::Nan };
            }
            let f = if x.is_infinite() {
                if x > 0.0 {
                    f32::INFINITY
                } else {
                    f32::NEG_INFINITY
                }
            } else if x.abs() < f64::MIN_POSITIVE {
                if x.is_sign_negative() { -0.0 } else { 0.0 }
            } else {
                df_to_f32_rtz(x)
            };
            float_to_dst(f.to_bits(), Type::F, &Ctx { sat: c.sat, ..*c })
        }
        _ => Want::Bits(f64_to_int(x, dst)),
    }
}

/// DF to F toward zero: drop the mantissa bits F cannot hold, keeping
/// gradual underflow and clamping overflow to the largest finite.
fn df_to_f32_rtz(x: f64) -> f32 {
    let neg = x < 0.0;
    let a = x.abs();
    let (m, e) = frexp(a);
    let mant = (m * (1u64 << 53) as f64) as u128;
    // round() keeps gradual underflow; magnitudes past F max clamp to it.
    support::round(neg, mant, e - 53, false, Mode::Rtz)
}

/// `a = m * 2^e` with m in [0.5, 1).
fn frexp(a: f64) -> (f64, i32) {
    let bits = a.to_bits();
    let e = ((bits >> 52) & 0x7FF) as i32;
    if e == 0 {
        let (m, e2) = frexp(a * (1u64 << 54) as f64);
        return (m, e2 - 54);
    }
    let m = f64::from_bits((bits & !(0x7FF << 52)) | (1022 << 52));
    (m, e - 1022)
}

/// Whether an opcode's operands are a float execution type: any F, VF or
/// DF source (000 lines 8428-8432).
pub fn float_exec(srcs: &[Type]) -> Option<Type> {
    if srcs.contains(&Type::Df) {
        Some(Type::Df)
    } else if srcs.iter().any(|t| matches!(t, Type::F | Type::Vf)) {
        Some(Type::F)
    } else {
        None
    }
}

/// The expectation for one lane of `combo`.
pub fn expect(combo: &Combo, c: &Ctx, lane: &Lane) -> Expect {
    let tys: Vec<Type> = combo.srcs.iter().map(|s| s.ty).collect();
    if let Some(why) = undefined_combo(combo) {
        return Expect::new(Want::Undef(why));
    }
    if combo.op == Opcode::Math {
        let mut e = Expect::new(float::math(combo, c, lane));
        // The quotient-and-remainder divide writes the remainder one
        // register up (003 lines 99150-99155).
        if combo.func == Some(MathFn::IntDivQuotientRemainder) {
            e.second = Some(match float::idiv(combo, lane) {
                Some((_, r)) => int_to_dst(r, combo.dst, c),
                None => Want::Undef("INT_MIN / -1 overflows"),
            });
        }
        return e;
    }
    match float_exec(&tys) {
        Some(Type::Df) => float::df(combo, c, lane),
        Some(_) => float::f(combo, c, lane),
        None => int::int(combo, c, lane),
    }
}

/// Combinations the validator accepts but for which the manuals give no
/// semantics; they run for robustness only.
fn undefined_combo(combo: &Combo) -> Option<&'static str> {
    use Opcode as O;
    let tys: Vec<Type> = combo.srcs.iter().map(|s| s.ty).collect();
    let dword = |t: &Type| matches!(t, Type::D | Type::Ud);
    // Ivy Bridge DF sources pair channels and a DF-to-F result fills the
    // low dword of each qword (001 lines 660-663, 1744); how a narrower
    // source feeds a DF destination is not stated.
    let gen7_df = combo.p == IsaGen::Gen7
        && (combo.dst == Type::Df || tys.contains(&Type::Df))
        && !tys.iter().all(|t| *t == Type::Df);
    Some(match combo.op {
        O::Movi => "movi gathers through a0 (an indirect form; see eu_accept_forms)",
        O::Dim if !(combo.dst == Type::Df && tys == [Type::Df] && combo.srcs[0].imm) => {
            "dim moves a DF immediate; other operands have no meaning [ext: Mesa brw_eu_emit.c]"
        }
        O::Lzd if tys.contains(&Type::D) => "lzd of a signed source needs (abs) (000 line 12076)",
        O::Shr if !tys.is_empty() && matches!(tys[0], Type::B | Type::W | Type::D) => {
            "shr of a signed src0 needs (abs) (000 line 13554)"
        }
        O::Fbh | O::Fbl | O::Cbit | O::Bfrev | O::Bfe | O::Bfi1 | O::Bfi2
            if !(tys.iter().all(dword) && dword(&combo.dst)) =>
        {
            "Gen7 bit operations are defined on D/UD [ext: Mesa brw_eu.c, brw_fs_nir.cpp]"
        }
        O::Addc | O::Subb if !(tys.iter().all(|t| *t == Type::Ud) && combo.dst == Type::Ud) => {
            "addc/subb are UD operations [ext: Mesa brw_fs_nir.cpp uadd_carry/usub_borrow]"
        }
        O::F32to16 if !(tys == [Type::F] && is_half_holder(combo.dst)) => {
            "f32to16 converts F into a word or the low word of a dword (001 line 665)"
        }
        O::F16to32 if !(is_half_holder(tys[0]) && combo.dst == Type::F) => {
            "f16to32 converts a half in a word or dword into F (001 line 665)"
        }
        O::Mac | O::Lrp | O::Dp2 | O::Dp3 | O::Dp4 | O::Dph | O::Line | O::Pln
            if tys.contains(&Type::Df) || combo.dst == Type::Df =>
        {
            "no DF form of this instruction is defined (001 lines 639-640 add DF to mov/arith)"
        }
        O::Math if tys.contains(&Type::Df) || combo.dst == Type::Df => {
            "math has no DF form on Gen6/Gen7 (003 lines 99124-99339)"
        }
        _ if tys.contains(&Type::Df) && !tys.iter().all(|t| *t == Type::Df) => {
            "DF beside another source type: no execution-type rule covers it (000 lines 8428-8432 predate DF)"
        }
        _ if gen7_df => {
            "Ivy Bridge: a non-DF source beside DF pairs channels without a stated layout (001 lines 660-663)"
        }
        O::Mach if combo.dst != tys[0] || tys[0] != tys[1] => {
            "mach mixing D and UD (000 lines 12189-12190)"
        }
        O::Sad2 | O::Sada2 if !matches!(combo.dst, Type::W | Type::Uw) => {
            "sad2/sada2 write words (000 line 13178)"
        }
        _ => return None,
    })
}

fn is_half_holder(t: Type) -> bool {
    matches!(t, Type::W | Type::Uw | Type::D | Type::Ud)
}

/// Function of a math combination (for messages).
pub fn math_name(f: Option<MathFn>) -> &'static str {
    match f {
        Some(MathFn::Inv) => "inv",
        Some(MathFn::Log) => "log",
        Some(MathFn::Exp) => "exp",
        Some(MathFn::Sqrt) => "sqrt",
        Some(MathFn::Rsq) => "rsq",
        Some(MathFn::Sin) => "sin",
        Some(MathFn::Cos) => "cos",
        Some(MathFn::Fdiv) => "fdiv",
        Some(MathFn::Pow) => "pow",
        Some(MathFn::IntDivQuotient) => "idiv quotient",
        Some(MathFn::IntDivRemainder) => "idiv remainder",
        Some(MathFn::IntDivQuotientRemainder) => "idiv both",
        _ => "-",
    }
}

/// Whether destination bits `got` of type `ty` satisfy `w`; `frac` adds
/// frc's upper bound (the result stays below 1).
pub fn accepts(w: &Want, got: u64, ty: Type, frac: bool) -> bool {
    let as_f = |b: u64| -> f64 {
        if ty == Type::Df {
            f64::from_bits(b)
        } else {
            f64::from(f32::from_bits(b as u32))
        }
    };
    match w {
        Want::Bits(b) => *b == got,
        Want::Either(a, b) => *a == got || *b == got,
        Want::Nan => as_f(got).is_nan(),
        Want::Near { v, tol } => {
            let g = as_f(got);
            (g - v).abs() <= *tol && (!frac || (0.0..1.0).contains(&g))
        }
        Want::IntRange(lo, hi) => (*lo..=*hi).contains(&int_of(got, ty)),
        Want::Undef(_) => true,
    }
}
