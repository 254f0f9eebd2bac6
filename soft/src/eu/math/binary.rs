//! The two-operand float functions: POW (Gen4 message and Gen6+) and FDIV
//! (Gen6+ only).

use super::bits::{FLT_MAX, SIGN, from_f32, from_f64, input, is_nan, propagate};

const ONE: u32 = 0x3F80_0000;

/// FDIV, src0 / src1 (003 lines 99203-99204; FC 9h at line 99288).
///
/// The manuals give no precision or table for FDIV. We return the correctly
/// rounded IEEE quotient of the flushed inputs, which follows the listed
/// IEEE rules: x/+-inf = +-0, +-inf/+-inf = NaN, and 0 * inf = NaN makes
/// 0/0 = NaN (003 lines 89174-89180). CHOICE: the FP chapter says API
/// divides are x*(1/y) (003 line 89257); if the unit did that internally,
/// divisors above 2^126 would differ (their reciprocal is a denormal that
/// flushes to zero). Nothing says FDIV does, so we keep true division.
pub(super) fn fdiv(a: u32, b: u32) -> u32 {
    if is_nan(a) {
        return propagate(a);
    }
    if is_nan(b) {
        return propagate(b);
    }
    from_f32(input(a) / input(b))
}

/// POW, |src0| ^ src1, defined as 2^(src1 * log2(|src0|)) (000 lines
/// 6143-6155). Precision 2^-15 relative (000 line 6157).
///
/// Finite non-zero bases with finite exponents take the exact power,
/// rounded once. Every other case follows the definition step by step with
/// the unit's own special values, which reproduces the tables:
/// - IEEE (000 lines 6163-6170): log2(0) = -inf, log2(inf) = +inf, and
///   0 * inf = NaN, so pow(0, 0) = pow(inf, 0) = pow(1, inf) = NaN,
///   pow(0, -F) = +inf, pow(inf, -F) = 0.
/// - ALT (000 lines 6174-6181): log2(0) = -FLT_MAX (the LOG ALT table,
///   000 line 6062), so pow(0, 0) = 1, pow(0, -F) = exp2(+huge) = +FLT_MAX
///   after the clamp, pow(0, +F) = 0. Infinite inputs (left blank in the
///   ALT table: "INF is never present as input", 000 line 7237) get the
///   IEEE treatment with log2(inf) clamped to FLT_MAX likewise.
///
/// DEVIATION: the IEEE table's +F row gives NaN for src0 = -inf, while its
/// +inf, -inf and -F rows treat src0 = -inf exactly as +inf (|src0|), as
/// the description and pseudocode do. We follow the definition:
/// pow(-inf, +F) = +inf.
pub(super) fn pow(a: u32, b: u32, alt: bool) -> u32 {
    if is_nan(a) {
        return propagate(a);
    }
    if is_nan(b) {
        return propagate(b);
    }
    let m = input(a).abs();
    let y = input(b);
    if m != 0.0 && m.is_finite() && y.is_finite() {
        if m == 1.0 || y == 0.0 {
            // log2(1) = 0 or a zero exponent: exp2(0) = 1 exactly.
            return ONE;
        }
        return from_f64(libm::pow(f64::from(m), f64::from(y)));
    }
    // Zero or infinite base, or infinite exponent: evaluate the definition.
    let log = if m == 0.0 {
        f64::NEG_INFINITY
    } else if m.is_infinite() {
        f64::INFINITY
    } else {
        libm::log2(f64::from(m))
    };
    let log = if alt && log.is_infinite() {
        let max = f64::from(f32::from_bits(FLT_MAX));
        if log < 0.0 { -max } else { max }
    } else {
        log
    };
    // f64 keeps every product of two f32-range values finite and exact
    // enough; 0 * inf gives NaN here as in the table.
    let product = f64::from(y) * log;
    let r = from_f64(libm::exp2(product));
    // exp2 is never negative; keep a NaN as produced.
    if is_nan(r) { r } else { r & !SIGN }
}
