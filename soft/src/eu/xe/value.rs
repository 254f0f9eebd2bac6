//! Element values of the Xe-HPG types and the conversions between them:
//! F, HF and BF floats, the integer types, rounding to a destination.

use baregpu_isa::inst::Type;

use crate::eu::fp::convert::{f16_to_f32, float_to_int, int_to_f32, int_to_int};
use crate::eu::fp::round::round_f32;
use crate::eu::fp::{self, Rounding};

/// Float controls of cr0.0 on Xe-HPG: rounding in bits 5:4 (as Gen7),
/// single- and half-precision denormals kept when bits 7 and 10 are set
/// (Mesa brw_eu_defines.h BRW_CR0_FP32_DENORM_PRESERVE (1 << 7),
/// BRW_CR0_FP16_DENORM_PRESERVE (1 << 10)); both flush by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatCtl {
    pub mode: Rounding,
    pub keep32: bool,
    pub keep16: bool,
}

impl FloatCtl {
    pub fn from_cr0(c: u32) -> FloatCtl {
        FloatCtl {
            mode: match (c >> 4) & 3 {
                0 => Rounding::NearestEven,
                1 => Rounding::Up,
                2 => Rounding::Down,
                _ => Rounding::TowardZero,
            },
            keep32: c & (1 << 7) != 0,
            keep16: c & (1 << 10) != 0,
        }
    }
}

/// Precision a float operation rounds to: F, or HF when every operand is
/// HF (mixed HF/F operations compute in F).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prec {
    F32,
    F16,
}

/// A computed result before it is written: an integer, or an exact float
/// `hi + lo` of a given precision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Res {
    Int(i64),
    Float {
        hi: f64,
        lo: f64,
        prec: Prec,
    },
    /// Bits written as they are, cut to the destination's size (cmp's all
    /// ones or zeros, whatever the destination type).
    Bits(u64),
}

fn flush16(h: u16) -> u16 {
    if h & 0x7C00 == 0 { h & 0x8000 } else { h }
}

/// A float source element as f64 (exact): F, HF, BF (BF denormals flush,
/// 004 line 13891; F/HF denormals by cr0), integers by value.
pub fn to_float(raw: u64, ty: Type, fc: &FloatCtl) -> f64 {
    match ty {
        Type::F => {
            let b = raw as u32;
            let b = if fc.keep32 { b } else { fp::flush32(b) };
            f64::from(f32::from_bits(b))
        }
        Type::Hf => {
            let h = raw as u16;
            let h = if fc.keep16 { h } else { flush16(h) };
            f64::from(f16_to_f32(h))
        }
        Type::Bf => {
            let b = u32::from(raw as u16) << 16;
            f64::from(f32::from_bits(fp::flush32(b)))
        }
        Type::Df => f64::from_bits(raw),
        t => to_int(raw, t) as f64,
    }
}

/// An integer source element (sign- or zero-extended).
pub fn to_int(raw: u64, ty: Type) -> i64 {
    fp::convert::int_value(raw, ty)
}

/// `x` rounded to HF in `mode` from the exact value `hi + lo` (`lo` much
/// smaller than an ulp of `hi`): IEEE binary16, overflow by mode.
pub fn round_f16(hi: f64, lo: f64, mode: Rounding) -> u16 {
    if hi.is_nan() {
        return 0x7E00;
    }
    let neg = hi.is_sign_negative();
    let sign: u16 = if neg { 0x8000 } else { 0 };
    let a = hi.abs();
    let l = if neg { -lo } else { lo };
    if a.is_infinite() {
        return sign | 0x7C00;
    }
    if a == 0.0 && l == 0.0 {
        return sign;
    }
    // Quantum of the binade (denormals share 2^-24).
    let e = if a > 0.0 {
        libm::floor(libm::log2(a)) as i32
    } else {
        -14
    };
    let e = e.max(-14);
    let q = libm::ldexp(1.0, e - 10);
    let n = a / q;
    let ln = l / q;
    let mut t = libm::floor(n);
    let mut r = n - t;
    if r == 0.0 && ln < 0.0 {
        t -= 1.0;
        r = 1.0;
    }
    let inexact = r != 0.0 || ln != 0.0;
    let half = if r > 0.5 {
        1
    } else if r < 0.5 {
        -1
    } else if ln > 0.0 {
        1
    } else if ln < 0.0 {
        -1
    } else {
        0
    };
    let up = match mode {
        Rounding::NearestEven => half > 0 || (half == 0 && (t as u64) & 1 == 1),
        Rounding::TowardZero => false,
        Rounding::Up => inexact && !neg,
        Rounding::Down => inexact && neg,
    };
    let n = if up { t + 1.0 } else { t };
    let v = n * q;
    // Largest finite HF: 65504.
    if v > 65504.0 {
        let to_inf = match mode {
            Rounding::NearestEven => true,
            Rounding::TowardZero => false,
            Rounding::Up => !neg,
            Rounding::Down => neg,
        };
        return sign | if to_inf { 0x7C00 } else { 0x7BFF };
    }
    let (mut e2, mut m) = (e, n as u32);
    if m >= 2048 {
        m /= 2;
        e2 += 1;
    }
    if m < 1024 {
        // Denormal (only reachable at e = -14).
        return sign | m as u16;
    }
    sign | (((e2 + 15) as u16) << 10) | (m as u16 - 1024)
}

/// F to BF: round to nearest even, NaN kept quiet, denormals kept (004
/// line 29205: "Denorms are always retained", RTNE line 29207).
pub fn f32_to_bf(x: f32) -> u16 {
    let b = x.to_bits();
    if fp::is_nan32(b) {
        return ((b >> 16) | 0x40) as u16;
    }
    let round = 0x7FFF + ((b >> 16) & 1);
    (b.wrapping_add(round) >> 16) as u16
}

/// Writes result `r` as type `ty`: the raw bits, whether an integer
/// conversion went out of range (the `.o` signal), and the post signals
/// (zero, sign, NaN) of the written value.
pub fn store(r: Res, ty: Type, sat: bool, fc: &FloatCtl) -> (u64, Signals) {
    let (raw, of) = match r {
        Res::Int(v) => match ty {
            Type::F | Type::Hf | Type::Bf => float_bits(
                f64::from(int_to_f32(v, fc.mode)),
                0.0,
                Prec::F32,
                ty,
                sat,
                fc,
            ),
            _ => int_to_int(v, ty, sat),
        },
        Res::Bits(b) => {
            let size = u32::from(ty.size()) * 8;
            (if size >= 64 { b } else { b & ((1 << size) - 1) }, false)
        }
        Res::Float { hi, lo, prec } => match ty {
            Type::F | Type::Hf | Type::Bf => float_bits(hi, lo, prec, ty, sat, fc),
            _ => {
                // Rounded to its precision, then to the integer (toward
                // zero; NaN to 0; out of range to the limit).
                let v = match prec {
                    Prec::F32 => f64::from(round_f32(hi, lo, fc.mode)),
                    Prec::F16 => f64::from(f16_to_f32(round_f16(hi, lo, fc.mode))),
                };
                float_to_int(v, ty)
            }
        },
    };
    (raw, signals(raw, ty, of))
}

fn float_bits(hi: f64, lo: f64, prec: Prec, ty: Type, sat: bool, fc: &FloatCtl) -> (u64, bool) {
    let raw = match (ty, prec) {
        (Type::Hf, Prec::F16) => u64::from(round_f16(hi, lo, fc.mode)),
        (Type::Hf, Prec::F32) => {
            let f = round_f32(hi, lo, fc.mode);
            u64::from(round_f16(f64::from(f), 0.0, fc.mode))
        }
        (Type::Bf, _) => u64::from(f32_to_bf(round_f32(hi, lo, Rounding::NearestEven))),
        (_, Prec::F32) => u64::from(round_f32(hi, lo, fc.mode).to_bits()),
        (_, Prec::F16) => u64::from(f16_to_f32(round_f16(hi, lo, fc.mode)).to_bits()),
    };
    let raw = match ty {
        Type::F => {
            let mut b = raw as u32;
            if fp::is_nan32(b) {
                b = fp::F32_NAN;
            }
            if !fc.keep32 {
                b = fp::flush32(b);
            }
            u64::from(if sat { fp::saturate32(b) } else { b })
        }
        Type::Hf => {
            let mut h = raw as u16;
            if !fc.keep16 {
                h = flush16(h);
            }
            if sat {
                let v = f16_to_f32(h);
                h = if v.is_nan() || v <= 0.0 {
                    0
                } else if v >= 1.0 {
                    0x3C00
                } else {
                    h
                };
            }
            u64::from(h)
        }
        _ => {
            let b = raw as u16;
            if sat {
                let v = f32::from_bits(u32::from(b) << 16);
                u64::from(if v.is_nan() || v <= 0.0 {
                    0
                } else if v >= 1.0 {
                    0x3F80
                } else {
                    b
                })
            } else {
                u64::from(b)
            }
        }
    };
    (raw, false)
}

/// The post signals of a written value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Signals {
    pub zero: bool,
    pub sign: bool,
    pub nan: bool,
    pub of: bool,
}

pub fn signals(raw: u64, ty: Type, of: bool) -> Signals {
    let (zero, sign, nan) = match ty {
        Type::F => {
            let b = raw as u32;
            (b & 0x7FFF_FFFF == 0, b >> 31 != 0, fp::is_nan32(b))
        }
        Type::Hf => {
            let h = raw as u16;
            (h & 0x7FFF == 0, h >> 15 != 0, h & 0x7FFF > 0x7C00)
        }
        Type::Bf => {
            let h = raw as u16;
            (h & 0x7FFF == 0, h >> 15 != 0, h & 0x7FFF > 0x7F80)
        }
        t => {
            let v = to_int(raw, t);
            (v == 0, v < 0, false)
        }
    };
    Signals {
        zero,
        sign,
        nan,
        of,
    }
}

/// The flag a condition modifier sets for a result's signals (NaN makes
/// every condition false but `.nz`; 004's condition-modifier table, as on
/// Gen7: `crate::eu::exec::flags::cond`).
pub fn cond(cm: baregpu_isa::inst::CondMod, s: Signals) -> bool {
    use baregpu_isa::inst::CondMod as C;
    let n = !s.nan;
    match cm {
        C::None | C::R => false,
        C::Z => s.zero && n,
        C::Nz => !(s.zero && n),
        C::G => !s.sign && !s.zero && n,
        C::Ge => (!s.sign || s.zero) && n,
        C::L => s.sign && !s.zero && n,
        C::Le => (s.sign || s.zero) && n,
        C::O => s.of,
        C::U => s.nan,
    }
}
