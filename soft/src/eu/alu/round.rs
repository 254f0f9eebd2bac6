//! frc, rndu, rndd, rnde, rndz.
//!
//! Gen4/G45 round instructions write floor(src0) and report in the INC
//! signal whether 1 must be added (the `.r` modifier; a predicated add
//! finishes the rounding): rndd (000 lines 12824-12896), rndu (12897-12980),
//! rnde (12981-13061), rndz (13062-13140). Gen6 writes the final value
//! (003 lines 100081-100478; `.r` is gone, 003 lines 93945-93975).

use baregpu_isa::IsaGen;
use baregpu_isa::inst::Opcode;

use super::FOut;
use crate::eu::fp;
use crate::eu::operand::MAX_CH;

/// Float rounding on F lanes. Integral results are exact, so no rounding
/// mode applies.
pub fn float(p: IsaGen, op: Opcode, a: &[u32; MAX_CH], n: usize, out: &mut FOut) {
    let gen4 = p <= IsaGen::G45;
    for k in 0..n {
        let b = a[k];
        let x = f64::from(f32::from_bits(b));
        let fl = libm::floor(x);
        let frac = x - fl;
        let (r, inc) = match op {
            // frc: src0 - floor(src0) in [0, 1); infinities give NaN (003
            // lines 98250-98268 Table 8-3; 000 Table 14-3, lines
            // 11735-11740). The exact fraction is rounded toward zero so it
            // stays below 1; it is taken as a two-part sum because
            // `x - floor(x)` in f64 already rounds 1 - 2^-60 up to 1.
            Opcode::Frc => {
                if !x.is_finite() {
                    (f64::NAN, false)
                } else {
                    let (hi, lo) = fp::two_sum(x, -fl);
                    (
                        f64::from(fp::round_f32(hi, lo, fp::Rounding::TowardZero)),
                        false,
                    )
                }
            }
            Opcode::Rndd => (fl, false),
            Opcode::Rndu => {
                if gen4 {
                    (fl, frac > 0.0)
                } else {
                    (libm::ceil(x), false)
                }
            }
            Opcode::Rnde => {
                let odd = libm::fmod(fl, 2.0) != 0.0;
                let inc = frac > 0.5 || (frac == 0.5 && odd);
                if gen4 {
                    (fl, inc)
                } else {
                    (libm::rint(x), false)
                }
            }
            Opcode::Rndz => {
                if gen4 {
                    (fl, x < 0.0 && frac > 0.0)
                } else {
                    (libm::trunc(x), false)
                }
            }
            _ => (x, false),
        };
        out.bits[k] = if r.is_nan() {
            fp::F32_NAN
        } else {
            (r as f32).to_bits()
        };
        out.wide[k] = r;
        if inc {
            out.inc |= 1 << k;
        }
    }
}

/// DF rounding (Gen7).
pub fn df(op: Opcode, x: f64) -> f64 {
    match op {
        // As for F: the exact fraction rounded toward zero, so that it
        // stays in [0, 1) ("not including 1": 000 Table 14-3, lines
        // 11735-11740; the Gen7 manual here has no frc page, so the F rule
        // is carried over to DF). `x - floor(x)` alone would round
        // 1 - 2^-60 (a tiny negative `x`) up to 1.
        Opcode::Frc => {
            if x.is_finite() {
                let (hi, lo) = fp::two_sum(x, -libm::floor(x));
                if lo < 0.0 && hi > 0.0 {
                    // One step toward zero: `hi` is positive and normal
                    // (at least the rest's ulp), so its bits decrement.
                    f64::from_bits(hi.to_bits() - 1)
                } else {
                    hi
                }
            } else {
                f64::NAN
            }
        }
        Opcode::Rndd => libm::floor(x),
        Opcode::Rndu => libm::ceil(x),
        Opcode::Rnde => libm::rint(x),
        Opcode::Rndz => libm::trunc(x),
        _ => x,
    }
}
