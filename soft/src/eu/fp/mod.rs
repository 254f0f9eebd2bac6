//! Floating-point arithmetic exactly as the EU rounds it: results are
//! computed exactly (as an unevaluated sum `hi + lo` of two f64) and then
//! rounded once to F in the generation's rounding mode. The host's f32
//! operations cannot do this: they round to nearest even only, and an f64
//! intermediate rounds twice (an F add whose operands differ by more than
//! 2^29 loses the bit that decides a directed rounding).

pub mod convert;
pub mod round;

pub use convert::*;
pub use round::*;

/// Rounding of float results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    NearestEven,
    /// Toward +infinity.
    Up,
    /// Toward -infinity.
    Down,
    TowardZero,
}

/// F bits of the largest finite float, FLT_MAX (000 lines 7213-7217).
pub const F32_MAX_BITS: u32 = 0x7F7F_FFFF;
/// The NaN every computed float NaN result is given. The manuals let the
/// pattern change (000 lines 7014-7019; 001 lines 1337-1338); one fixed
/// quiet NaN keeps results deterministic.
pub const F32_NAN: u32 = 0x7FC0_0000;
pub const F64_NAN: u64 = 0x7FF8_0000_0000_0000;

/// True for an F denormal (exponent 0, mantissa non-zero).
#[inline(always)]
pub const fn is_denorm32(b: u32) -> bool {
    b & 0x7F80_0000 == 0 && b & 0x007F_FFFF != 0
}

/// F denormals become zero of the same sign on input and output of
/// arithmetic (000 lines 7014-7017; 003 lines 89228-89233; 001 lines
/// 1322-1326).
#[inline(always)]
pub const fn flush32(b: u32) -> u32 {
    if b & 0x7F80_0000 == 0 {
        b & 0x8000_0000
    } else {
        b
    }
}

#[inline(always)]
pub const fn is_nan32(b: u32) -> bool {
    b & 0x7FFF_FFFF > 0x7F80_0000
}

#[inline(always)]
pub const fn is_nan64(b: u64) -> bool {
    b & 0x7FFF_FFFF_FFFF_FFFF > 0x7FF0_0000_0000_0000
}

/// DF denormals flushed to signed zero (`cr0.0[6]` clear, 001 lines
/// 3240-3250).
#[inline(always)]
pub const fn flush64(b: u64) -> u64 {
    if b & 0x7FF0_0000_0000_0000 == 0 {
        b & 0x8000_0000_0000_0000
    } else {
        b
    }
}

/// `.sat` on a float: [0.0, 1.0], NaN to 0 (000 line 9802; 003 lines
/// 94448-94458). -0.0 saturates to +0.0 (the clamp's lower bound).
#[inline(always)]
pub const fn saturate32(b: u32) -> u32 {
    if is_nan32(b) || b & 0x8000_0000 != 0 {
        0
    } else if b >= 0x3F80_0000 {
        0x3F80_0000
    } else {
        b
    }
}

pub const fn saturate64(b: u64) -> u64 {
    if is_nan64(b) || b & 0x8000_0000_0000_0000 != 0 {
        0
    } else if b >= 0x3FF0_0000_0000_0000 {
        0x3FF0_0000_0000_0000
    } else {
        b
    }
}

/// ALT mode: an infinite result becomes FLT_MAX of the same sign (000
/// lines 7213-7217; 001 line 1563).
#[inline(always)]
pub const fn alt_clamp32(b: u32) -> u32 {
    if b & 0x7FFF_FFFF == 0x7F80_0000 {
        (b & 0x8000_0000) | F32_MAX_BITS
    } else {
        b
    }
}
