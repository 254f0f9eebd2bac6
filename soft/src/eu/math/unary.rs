//! The single-operand float functions: INV, LOG, EXP, SQRT, RSQ, SIN, COS.
//!
//! Each takes the raw source bits and returns raw result bits before the
//! common output stage (`bits::output`: denormal flush, ALT clamp,
//! saturate). Special values follow the Gen4 EM tables, which the Gen6/7
//! FP-mode chapters repeat for the instruction form (003 lines 89182-89186;
//! 001 ALT rules lines 1563-1575). Finite inputs are evaluated in f64 and
//! rounded once, so results are far inside the manuals' bounds; where the
//! f32 operation is itself correctly rounded (INV, SQRT) we use it directly.

use super::bits::{GENERATED_NAN, SIGN, from_f32, from_f64, input, is_nan, propagate};

const POS_INF: u32 = 0x7F80_0000;
const NEG_INF: u32 = 0xFF80_0000;
const ONE: u32 = 0x3F80_0000;

/// INV, 1/x. Precision 1 ULP (000 line 6032); we return the correctly
/// rounded quotient. Table (000 lines 6034-6036): +inf -> +0, +0/+denorm
/// -> +inf, -0/-denorm -> -inf, -inf -> -0, NaN -> NaN; ALT +/-0 ->
/// +/-FLT_MAX comes from the output clamp. IEEE rules 000 line 6994.
pub(super) fn inv(a: u32) -> u32 {
    if is_nan(a) {
        return propagate(a);
    }
    from_f32(1.0 / input(a))
}

/// LOG, log2(x). Precision +/-2^-21 relative, full; +/-2^-10 partial
/// (000 lines 6055-6056). Table (000 lines 6060-6062): +inf -> +inf,
/// +/-0 -> -inf, -inf and -F -> NaN; ALT takes |x| first (000 line 6058)
/// and +/-0 -> -FLT_MAX through the output clamp.
pub(super) fn log(a: u32, alt: bool) -> u32 {
    if is_nan(a) {
        return propagate(a);
    }
    let x = if alt { input(a).abs() } else { input(a) };
    if x == 0.0 {
        NEG_INF
    } else if x < 0.0 {
        GENERATED_NAN
    } else if x.is_infinite() {
        POS_INF
    } else {
        from_f64(libm::log2(f64::from(x)))
    }
}

/// EXP, 2^x. Precision as LOG (000 lines 6081-6082). Table (000 lines
/// 6084-6086): +inf -> +inf, +/-0 -> 1, -inf -> 0, -F -> +F. Results below
/// the normal range flush to +0 at the output stage.
pub(super) fn exp(a: u32) -> u32 {
    if is_nan(a) {
        return propagate(a);
    }
    let x = input(a);
    if x == 0.0 {
        ONE
    } else if x == f32::NEG_INFINITY {
        0
    } else {
        // exp2(+inf) = +inf exactly; finite inputs round once.
        from_f64(libm::exp2(f64::from(x)))
    }
}

/// SQRT. Precision 1 ULP (000 line 6107); the hardware computes x*rsq(x)
/// (000 line 5991), we return the correctly rounded root (libm's `sqrtf`
/// is the IEEE square root). Table (000 lines 6111-6113): +inf -> +inf,
/// +0 -> +0, -0 -> -0, -inf and -F -> NaN; ALT takes |x| (000 line 6109),
/// so -0 -> +0 and -F -> +F.
pub(super) fn sqrt(a: u32, alt: bool) -> u32 {
    if is_nan(a) {
        return propagate(a);
    }
    let x = if alt { input(a).abs() } else { input(a) };
    if x < 0.0 {
        return GENERATED_NAN;
    }
    // sqrtf(-0) = -0 keeps the IEEE table's sign.
    from_f32(libm::sqrtf(x))
}

/// RSQ, 1/sqrt(x). Precision 1 ULP (000 line 6133). Table (000 lines
/// 6137-6139): +inf -> +0, +0 -> +inf, -0 -> -inf, -inf and -F -> NaN;
/// ALT takes |x| (000 line 6135), so +/-0 -> +FLT_MAX after the clamp.
pub(super) fn rsq(a: u32, alt: bool) -> u32 {
    if is_nan(a) {
        return propagate(a);
    }
    let x = if alt { input(a).abs() } else { input(a) };
    if x == 0.0 {
        // +0 -> +inf, -0 -> -inf (000 line 6994).
        (x.to_bits() & SIGN) | POS_INF
    } else if x < 0.0 {
        GENERATED_NAN
    } else if x.is_infinite() {
        0
    } else {
        // Two f64 operations (each within 2^-53) then one rounding: within
        // 0.5 ULP + 2^-52 relative, exact for powers of four.
        from_f64(1.0 / libm::sqrt(f64::from(x)))
    }
}

/// SIN. Precision: absolute error 0.0008 within +/-100*pi; beyond it the
/// hardware stays periodic with its own internal pi and drifts (000 lines
/// 6201-6202). We reduce exactly (libm) at every magnitude, so the result
/// is the true sine rounded to f32 everywhere: within the bound inside the
/// range, in [-1, 1] outside it. Table (000 lines 6204-6206): +/-inf -> NaN,
/// +0 -> +0, -0 -> -0.
pub(super) fn sin(a: u32) -> u32 {
    if is_nan(a) {
        return propagate(a);
    }
    let x = input(a);
    if x.is_infinite() {
        return GENERATED_NAN;
    }
    from_f64(libm::sin(f64::from(x)))
}

/// COS. Precision and range as SIN (000 lines 6229-6230). Table (000 lines
/// 6232-6234): +/-inf -> NaN. DEVIATION: the IEEE row gives cos(+/-0) =
/// +/-0, a copy of the SIN row; the ALT row of the same table gives +1,
/// which is cos(0). We return +1 in both modes.
pub(super) fn cos(a: u32) -> u32 {
    if is_nan(a) {
        return propagate(a);
    }
    let x = input(a);
    if x.is_infinite() {
        return GENERATED_NAN;
    }
    from_f64(libm::cos(f64::from(x)))
}
