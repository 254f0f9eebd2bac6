//! Type conversions of the destination write (000 lines 7250-7287; 003
//! lines 89560-89627; 001 lines 1638-1779).

use baregpu_isa::inst::Type;

use super::{Rounding, round_f32, round_f64};

/// Range of an integer type as i64 (`None` for non-integers).
pub const fn int_range(ty: Type) -> Option<(i64, i64)> {
    Some(match ty {
        Type::Ud => (0, u32::MAX as i64),
        Type::D => (i32::MIN as i64, i32::MAX as i64),
        Type::Uw | Type::Uv => (0, u16::MAX as i64),
        Type::W | Type::V => (i16::MIN as i64, i16::MAX as i64),
        Type::Ub => (0, u8::MAX as i64),
        Type::B => (i8::MIN as i64, i8::MAX as i64),
        _ => return None,
    })
}

/// Whether an integer type is signed.
pub const fn is_signed(ty: Type) -> bool {
    matches!(ty, Type::D | Type::W | Type::B | Type::V)
}

/// Reads the raw bits of an integer element as its value.
#[inline(always)]
pub const fn int_value(raw: u64, ty: Type) -> i64 {
    match ty {
        Type::Ud => raw as u32 as i64,
        Type::D => raw as u32 as i32 as i64,
        Type::Uw | Type::Uv => raw as u16 as i64,
        Type::W | Type::V => raw as u16 as i16 as i64,
        Type::Ub => raw as u8 as i64,
        Type::B => raw as u8 as i8 as i64,
        _ => raw as i64,
    }
}

/// Integer to an integer type: without `.sat` the low bits are kept (a wrap,
/// 000 lines 7267-7280); with `.sat` the value clamps to the type's range.
/// Returns the raw bits and whether the value was out of range (the
/// overflow condition, 000 lines 9140-9145).
#[inline(always)]
pub fn int_to_int(v: i64, ty: Type, sat: bool) -> (u64, bool) {
    let Some((lo, hi)) = int_range(ty) else {
        return (v as u64, false);
    };
    let out = v < lo || v > hi;
    let v = if sat && out { v.clamp(lo, hi) } else { v };
    (v as u64 & size_mask(ty), out)
}

/// Mask of an element's bits.
#[inline(always)]
pub const fn size_mask(ty: Type) -> u64 {
    match ty.size() {
        1 => 0xFF,
        2 => 0xFFFF,
        4 => 0xFFFF_FFFF,
        _ => u64::MAX,
    }
}

/// F to an integer type: round toward zero; zero, denormals and NaN give 0;
/// out-of-range values and infinities give the type's limit, with or
/// without `.sat` (000 lines 7252-7265; 001 lines 1642-1682). Returns the
/// raw bits and whether the value was out of range.
pub fn float_to_int(v: f64, ty: Type) -> (u64, bool) {
    let Some((lo, hi)) = int_range(ty) else {
        return (0, false);
    };
    if v.is_nan() {
        return (0, false);
    }
    let t = libm::trunc(v);
    let (r, out) = if t < lo as f64 {
        (lo, true)
    } else if t > hi as f64 {
        (hi, true)
    } else {
        (t as i64, false)
    };
    (r as u64 & size_mask(ty), out)
}

/// Integer to F. Gen4: beyond 24 bits the low bits are truncated toward
/// zero (000 lines 7282-7286); Gen6+: round to nearest even by default (003
/// lines 89620-89625), the cr0 rounding mode on Gen7 (001 lines 1719-1722).
pub fn int_to_f32(v: i64, mode: Rounding) -> f32 {
    let hi = v as f64;
    // The part of v the f64 did not keep (|v| < 2^64 so i128 is exact).
    let lo = (i128::from(v) - hi as i128) as f64;
    round_f32(hi, lo, mode)
}

/// Integer to DF (exact for 32-bit values; rounded for wider ones).
pub fn int_to_f64(v: i64, mode: Rounding) -> f64 {
    let hi = v as f64;
    let lo = (i128::from(v) - hi as i128) as f64;
    round_f64(hi, lo, mode)
}

/// DF to F rounds toward zero (001 lines 1725-1745); denormal results stay
/// (conversions do not flush, 001 line 1329).
pub fn f64_to_f32(v: f64) -> f32 {
    round_f32(v, 0.0, Rounding::TowardZero)
}

/// F to half float (Gen7 `f32to16`), rounded in `mode` [ext: Mesa
/// src/intel/compiler/brw_eu_emit.c emits f32to16 under the thread's
/// rounding mode]. Infinities and NaN keep their class.
pub fn f32_to_f16(x: f32, mode: Rounding) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    if x.is_nan() {
        return sign | 0x7E00;
    }
    if x.is_infinite() {
        return sign | 0x7C00;
    }
    let a = f64::from(x.abs());
    if a == 0.0 {
        return sign;
    }
    // Scale into an integer count of the half's ulp at this magnitude; the
    // binade comes from the F exponent field (F denormals are far below
    // the half range and land in its denormal binade).
    let e = ((b >> 23) & 0xFF) as i32 - 127;
    let e = e.clamp(-14, 16);
    let ulp = libm::ldexp(1.0, e - 10);
    let q = a / ulp; // exact: a power-of-two division
    let t = libm::trunc(q);
    let frac = q - t;
    let neg = sign != 0;
    let mut n = t as u32;
    let inc = match mode {
        Rounding::NearestEven => frac > 0.5 || (frac == 0.5 && n & 1 == 1),
        Rounding::TowardZero => false,
        Rounding::Up => frac > 0.0 && !neg,
        Rounding::Down => frac > 0.0 && neg,
    };
    if inc {
        n = n.saturating_add(1);
    }
    // n counts ulps of 2^(e-10): value = n * 2^(e-10). Normal when n has
    // 11 bits; n == 2048 rolls into the next binade.
    let (exp, mant) = if e == -14 && n < 1024 {
        (0u32, n)
    } else {
        let mut exp = (e + 15) as u32;
        let mut m = n;
        if m >= 2048 {
            m >>= 1;
            exp += 1;
        }
        (exp, m & 0x3FF)
    };
    if exp >= 31 {
        // Overflow: infinity unless the mode rounds toward zero.
        let to_max = match mode {
            Rounding::TowardZero => true,
            Rounding::Up => neg,
            Rounding::Down => !neg,
            Rounding::NearestEven => false,
        };
        return if to_max { sign | 0x7BFF } else { sign | 0x7C00 };
    }
    sign | (exp << 10 | mant) as u16
}

/// Half float to F, exact; half denormals are kept (001 line 1333).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1F);
    let mant = f64::from(h & 0x3FF);
    let v = match exp {
        0 => libm::ldexp(mant, -24),
        31 => {
            return if mant == 0.0 {
                sign as f32 * f32::INFINITY
            } else {
                f32::from_bits(
                    0x7FC0_0000 | u32::from(h & 0x8000) << 16 | u32::from(h & 0x3FF) << 13,
                )
            };
        }
        _ => libm::ldexp(1024.0 + mant, exp - 25),
    };
    (sign * v) as f32
}

/// DF value of an F after the checks a DF source gets: exact widening
/// (001 lines 1754-1775).
pub fn f32_to_f64(x: f32) -> f64 {
    f64::from(x)
}

/// Rounds a DF result in `mode`.
pub fn df_round(hi: f64, lo: f64, mode: Rounding) -> f64 {
    round_f64(hi, lo, mode)
}
