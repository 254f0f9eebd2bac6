//! INT DIV: 32-bit integer quotient and remainder (000 lines 6268-6316;
//! 003 lines 99210-99230 for the Gen6+ instruction).

/// Quotient and remainder of `dividend / divisor` (src0 / src1 in the
/// pseudocode, 000 lines 6270 and 6280-6288; 003 lines 99212-99214).
pub(super) fn divide(dividend: u32, divisor: u32, signed: bool) -> (u32, u32) {
    if signed {
        signed_divide(dividend as i32, divisor as i32)
    } else {
        unsigned_divide(dividend, divisor)
    }
}

/// Unsigned: the exact quotient and remainder; a zero divisor gives
/// Q = R = 0xFFFFFFFF for any dividend (UDIV table, 000 lines 6310-6314).
fn unsigned_divide(n: u32, d: u32) -> (u32, u32) {
    match (n.checked_div(d), n.checked_rem(d)) {
        (Some(q), Some(r)) => (q, r),
        _ => (u32::MAX, u32::MAX),
    }
}

/// Signed: the quotient truncates toward zero and the remainder takes the
/// numerator's sign (sign table, 000 lines 6297-6300: +/- gives Q -, R +;
/// -/+ gives Q -, R -). A zero divisor gives Q = R = 0x7FFFFFFF for a
/// dividend >= 0 and 0x80000000 for a negative one (IDIV table, 000 lines
/// 6304-6309).
///
/// CHOICE: the manuals are silent on INT_MIN / -1, whose quotient 2^31 does
/// not fit. We return the two's-complement wrap: Q = 0x80000000, R = 0.
fn signed_divide(n: i32, d: i32) -> (u32, u32) {
    if d == 0 {
        let v = if n < 0 { 0x8000_0000 } else { 0x7FFF_FFFF };
        return (v, v);
    }
    (n.wrapping_div(d) as u32, n.wrapping_rem(d) as u32)
}
