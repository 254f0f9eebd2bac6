//! Raw-bit helpers shared by the float functions: denormal flushing, NaN
//! handling, rounding from the wide (f64) intermediate, the ALT-mode
//! infinity clamp and destination saturation.

/// Sign bit of an f32.
pub(super) const SIGN: u32 = 0x8000_0000;
/// Largest finite f32 magnitude: exponent 0xFE, mantissa all ones
/// (000 line 7215; 003 line 89494; 001 line 1550).
pub(super) const FLT_MAX: u32 = 0x7F7F_FFFF;
/// The NaN this model generates when no input NaN is propagated. The
/// manuals leave the bit pattern of a produced NaN open (000 line 6997,
/// 003 line 89238, 001 line 1337); we pick the positive quiet NaN.
pub const GENERATED_NAN: u32 = 0x7FC0_0000;
/// Quiet bit of an f32 NaN (mantissa MSB).
const QUIET: u32 = 0x0040_0000;

/// True for any NaN bit pattern.
pub(super) const fn is_nan(bits: u32) -> bool {
    bits & !SIGN > 0x7F80_0000
}

/// An input NaN as it leaves the unit: same payload, quiet bit set (the
/// IEEE-754 convention; the manuals allow any NaN pattern, see above).
pub(super) const fn propagate(nan: u32) -> u32 {
    nan | QUIET
}

/// Reads a source: denormals flush to sign-preserved zero on input
/// (000 line 7014; 003 line 89228; 001 line 1323).
pub(super) fn input(bits: u32) -> f32 {
    if bits & 0x7F80_0000 == 0 {
        f32::from_bits(bits & SIGN)
    } else {
        f32::from_bits(bits)
    }
}

/// An f32 result to bits: any NaN the computation produced becomes
/// [`GENERATED_NAN`] (input NaNs are handled before computing).
pub(super) fn from_f32(x: f32) -> u32 {
    if x.is_nan() {
        GENERATED_NAN
    } else {
        x.to_bits()
    }
}

/// A wide intermediate rounded to f32. `as f32` rounds to nearest even,
/// the only rounding the math unit has (003 line 99336), and overflows to
/// infinity.
pub(super) fn from_f64(x: f64) -> u32 {
    if x.is_nan() {
        GENERATED_NAN
    } else {
        (x as f32).to_bits()
    }
}

/// The output stage every float result passes through, in order:
/// - denormal results flush to sign-preserved zero (000 line 7014;
///   003 line 89228; 001 line 1323);
/// - ALT mode: +/-inf becomes +/-FLT_MAX (000 line 7219; 003 line 89500;
///   001 line 1563);
/// - saturate clamps to [0, 1] and sends NaN to 0 (000 lines 5875 and
///   9802; 003 line 94454).
pub(super) fn output(bits: u32, alt: bool, saturate: bool) -> u32 {
    let mut r = bits;
    if r & 0x7F80_0000 == 0 {
        r &= SIGN;
    }
    if alt && r & !SIGN == 0x7F80_0000 {
        r = (r & SIGN) | FLT_MAX;
    }
    if saturate {
        r = saturate_unit(r);
    }
    r
}

/// Clamp to [0.0, 1.0]; NaN and every negative value (including -0, which
/// we write as +0 since "any negative number is saturated to 0") go to +0.
fn saturate_unit(bits: u32) -> u32 {
    const ONE: u32 = 0x3F80_0000;
    if is_nan(bits) || bits & SIGN != 0 {
        0
    } else if bits > ONE {
        ONE
    } else {
        bits
    }
}
