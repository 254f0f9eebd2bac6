//! The extended-math unit: the Gen4/G45 extended-math message (SFID 1,
//! 000 lines 5845-6319) and the Gen6/Gen7 `math` instruction (003 lines
//! 99124-99337), as pure per-channel functions on raw bits.
//!
//! One model serves both forms. The Gen4 chapter is the only one with
//! precision figures and special-value tables; the Gen6 and Gen7 manuals
//! repeat its IEEE and ALT rules in their FP-mode chapters (003 lines
//! 89174-89186 and 89500-89502; 001 lines 1563-1575) and add FDIV, drop
//! SINCOS and fix rounding to RTNE (003 lines 99286-99336).
//!
//! What this model returns, and why:
//! - Inputs and outputs flush denormals to sign-preserved zero (000 line
//!   7014; 003 line 89228; 001 line 1323).
//! - Every finite result is the exact function value rounded once to
//!   nearest even (INV, SQRT, FDIV correctly rounded; RSQ, LOG, EXP, POW,
//!   SIN, COS from an f64 intermediate), well inside the manuals' bounds
//!   (1 ULP, 2^-21 relative, 2^-15 relative, 0.0008 absolute). Gen4 EU
//!   arithmetic truncates (000 line 7007) but the EM unit only promises its
//!   bounds; RTNE is the one rounding Gen6+ math has (003 line 99336).
//! - Partial precision (Gen4 ALT mode only) is accepted and returns the
//!   full-precision value, which meets the looser partial bound too.
//! - NaN inputs come back with their payload and the quiet bit set; NaNs
//!   the unit creates are [`GENERATED_NAN`]. The manuals leave the bit
//!   pattern open (000 line 6997).
//! - ALT mode inputs of +/-inf are "never present" (000 line 7237); we
//!   give them the IEEE treatment and clamp infinite results to FLT_MAX.
//! - SIN/COS beyond +/-100*pi: exact reduction, not the hardware's drift
//!   (see `unary::sin`).
//! - Division by zero is not an error: it returns the manual's values.

mod binary;
mod bits;
mod caps;
mod int_div;
mod unary;

use baregpu_isa::IsaGen;
use baregpu_isa::inst::MathFn;

pub use bits::GENERATED_NAN;
pub use caps::{
    MessageControl, Operands, function_code, function_from_code, is_int_div, max_exec_size,
    operand_count, operand_kind, result_count, supports,
};

/// Gen4/G45 message precision hint (descriptor bit 5, 000 line 5876).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    #[default]
    Full,
    /// Honoured by hardware only in ALT mode, for LOG and EXP (000 lines
    /// 6055-6056, 6081-6082); this model returns full precision always.
    Partial,
}

/// Everything besides the operands that changes a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MathMode {
    pub platform: IsaGen,
    /// cr0 bit 0, ALT floating-point mode (000 line 6982).
    pub alt: bool,
    /// Gen4/G45 message precision; ignored on Gen6+ (no such field).
    pub precision: Precision,
    /// Clamp float results to [0, 1], NaN to 0: the Gen4 message bit
    /// (000 line 5875) or a Gen6+ `math` with `.sat`. Not applied to INT
    /// DIV: on Gen4 the message rejects it, on Gen6+ integer saturation
    /// belongs to the destination write.
    pub saturate: bool,
}

impl MathMode {
    /// IEEE mode, full precision, no saturate.
    pub const fn ieee(platform: IsaGen) -> Self {
        Self {
            platform,
            alt: false,
            precision: Precision::Full,
            saturate: false,
        }
    }

    /// ALT mode, full precision, no saturate.
    pub const fn alt(platform: IsaGen) -> Self {
        Self {
            alt: true,
            ..Self::ieee(platform)
        }
    }
}

/// A request the hardware rejects or leaves undefined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathError {
    /// The platform has no such function (SINCOS is Gen4/G45 only, FDIV
    /// Gen6+ only).
    Unsupported { platform: IsaGen, func: MathFn },
    /// An INT DIV function passed to [`float`], or a float one to
    /// [`int_div`].
    WrongKind(MathFn),
    /// FDIV in ALT mode: "not supported in ALT_MODE" (003 line 99335).
    FdivInAltMode,
    /// Saturate on INT DIV, "allowed only on floating point math
    /// functions" (000 line 5875).
    SaturateOnInteger,
    /// Source types the function does not take (003 lines 99324-99329).
    BadTypes(MathFn),
    /// A reserved function-control code.
    ReservedFunction(u8),
    /// Must-be-zero message descriptor bits that are set.
    ReservedBits(u32),
    /// Gen6+ has no extended-math message (it is the `math` instruction).
    NoMessageForm(IsaGen),
}

/// Evaluates a float function on one channel. `a` is src0 (the base for
/// POW, the dividend for FDIV), `b` is src1 (the exponent, the divisor) and
/// is ignored by single-operand functions. Returns the result bits and, for
/// SINCOS, the cosine as the second result (000 lines 6238-6262).
pub fn float(
    func: MathFn,
    a: u32,
    b: u32,
    mode: &MathMode,
) -> Result<(u32, Option<u32>), MathError> {
    check(func, mode.platform)?;
    if is_int_div(func) {
        return Err(MathError::WrongKind(func));
    }
    let alt = mode.alt;
    let (first, second) = match func {
        MathFn::Inv => (unary::inv(a), None),
        MathFn::Log => (unary::log(a, alt), None),
        MathFn::Exp => (unary::exp(a), None),
        MathFn::Sqrt => (unary::sqrt(a, alt), None),
        MathFn::Rsq => (unary::rsq(a, alt), None),
        MathFn::Sin => (unary::sin(a), None),
        MathFn::Cos => (unary::cos(a), None),
        // Back-to-back SIN and COS of the same source (000 line 5997).
        MathFn::SinCos => (unary::sin(a), Some(unary::cos(a))),
        MathFn::Pow => (binary::pow(a, b, alt), None),
        MathFn::Fdiv => {
            if alt {
                return Err(MathError::FdivInAltMode);
            }
            (binary::fdiv(a, b), None)
        }
        // Gen12.5 macros: refused by `check` on the generations modelled.
        MathFn::IntDivQuotientRemainder
        | MathFn::IntDivQuotient
        | MathFn::IntDivRemainder
        | MathFn::Invm
        | MathFn::Rsqtm => {
            return Err(MathError::WrongKind(func));
        }
    };
    let out = |r: u32| bits::output(r, alt, mode.saturate);
    Ok((out(first), second.map(out)))
}

/// Evaluates an integer divide on one channel: `a` is the dividend (src0),
/// `b` the divisor (src1), both D when `signed`, else UD. Quotient+remainder
/// returns (quotient, Some(remainder)); the others return their one result.
///
/// The Gen4 message carries the divisor in the first register (M0) and the
/// dividend in the second (M1) (000 lines 5913-5921). The pseudocode's
/// "src0 / src1" (000 line 6281) reads the other way; the payload text
/// wins [ext: Mesa brw_fs_visitor.cpp `emit_math` swaps the operands on
/// Gen4/5 quoting it]. The sends helper passes M1 as `a` and M0 as `b`.
pub fn int_div(
    func: MathFn,
    a: u32,
    b: u32,
    signed: bool,
    mode: &MathMode,
) -> Result<(u32, Option<u32>), MathError> {
    check(func, mode.platform)?;
    let (q, r) = int_div::divide(a, b, signed);
    let result = match func {
        MathFn::IntDivQuotientRemainder => (q, Some(r)),
        MathFn::IntDivQuotient => (q, None),
        MathFn::IntDivRemainder => (r, None),
        _ => return Err(MathError::WrongKind(func)),
    };
    // Only the message has a saturate bit to reject (see `MathMode`).
    if mode.saturate && matches!(mode.platform, IsaGen::Gen4 | IsaGen::G45) {
        return Err(MathError::SaturateOnInteger);
    }
    Ok(result)
}

fn check(func: MathFn, platform: IsaGen) -> Result<(), MathError> {
    if supports(platform, func) {
        Ok(())
    } else {
        Err(MathError::Unsupported { platform, func })
    }
}
