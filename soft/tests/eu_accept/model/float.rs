//! Float execution (any F, VF or DF source) and the Gen6+ `math`
//! instruction.

use baregpu_isa::inst::{CondMod, MathFn, Opcode, Type};

use super::{
    Ctx, Expect, Lane, Val, Want, df_to_dst, f64_to_int, float_to_dst, int_of, int_to_dst,
};
use crate::eu_accept::combos::Combo;
use crate::eu_accept::support::{self, Mode};

/// Flushes an F denormal to the zero of its sign (000 lines 7012-7017;
/// 001 lines 1320-1322).
pub fn flush(b: u32) -> u32 {
    if b & 0x7F80_0000 == 0 {
        b & 0x8000_0000
    } else {
        b
    }
}

fn flush64(b: u64) -> u64 {
    if b & 0x7FF0_0000_0000_0000 == 0 {
        b & 0x8000_0000_0000_0000
    } else {
        b
    }
}

/// A source as F bits: an integer source of a Gen4 mixed instruction
/// converts to the float execution type, toward zero past 24 bits (000
/// lines 7282-7286, 8428-8432).
fn fbits(v: Val) -> u32 {
    match v {
        Val::F(b) => b,
        Val::I(x) => support::round(x < 0, x.unsigned_abs(), 0, false, Mode::Rtz).to_bits(),
        Val::D(b) => (f64::from_bits(b) as f32).to_bits(),
    }
}

fn fl(b: u32) -> f32 {
    f32::from_bits(b)
}

/// The smallest normal F: results below it may be flushed.
const MIN_NORMAL: f64 = 1.1754943508222875e-38;

/// A rounded arithmetic result, flushed.
fn finish(r: f32) -> u32 {
    flush(r.to_bits())
}

/// Exact add of finite flushed values in `mode`, with the IEEE specials
/// (Table 14-1, 000 lines 10830-10870).
fn add(x: u32, y: u32, mode: Mode) -> Option<u32> {
    let (a, b) = (fl(x), fl(y));
    if a.is_nan() || b.is_nan() || (a.is_infinite() && b.is_infinite() && a != b) {
        return None;
    }
    if a.is_infinite() {
        return Some(x);
    }
    if b.is_infinite() {
        return Some(y);
    }
    Some(finish(support::add(a, b, mode)))
}

/// Exact multiply (Table 14-5, 000 lines 12460-12490).
fn mul(x: u32, y: u32, mode: Mode) -> Option<u32> {
    let (a, b) = (fl(x), fl(y));
    if a.is_nan() || b.is_nan() {
        return None;
    }
    if a.is_infinite() || b.is_infinite() {
        if a == 0.0 || b == 0.0 {
            return None;
        }
        let neg = (x ^ y) >> 31 != 0;
        return Some(if neg { 0xFF80_0000 } else { 0x7F80_0000 });
    }
    Some(finish(support::mul(a, b, mode)))
}

/// A float result whose intermediate precision is open: the exact value
/// of `terms` summed, within `k` units of 2^-24 of the largest magnitude
/// involved. Overflow of an intermediate may give infinity (001 lines
/// 1339-1344), so only comfortably finite cases are checked.
fn near(terms: &[f64], k: f64) -> Want {
    let v: f64 = terms.iter().sum();
    let mag: f64 = terms.iter().map(|t| t.abs()).fold(0.0, f64::max);
    if !v.is_finite() || mag > 1.0e37 {
        return Want::Undef("a fused operation near the F range (001 lines 1339-1344)");
    }
    Want::Near {
        v,
        tol: k * mag * f64::powi(2.0, -24) + 2.0 * MIN_NORMAL,
    }
}

/// Converts a Near expectation into the destination type.
fn near_to_dst(w: Want, dst: Type, c: &Ctx) -> Want {
    let Want::Near { v, tol } = w else {
        return match w {
            Want::Nan => float_to_dst(0x7FC0_0000, dst, c),
            other => other,
        };
    };
    match dst {
        Type::F => {
            if c.sat {
                let s = v.clamp(0.0, 1.0);
                Want::Near { v: s, tol }
            } else {
                Want::Near { v, tol }
            }
        }
        Type::Df => Want::Undef("a fused F result into DF"),
        _ => {
            let lo = f64_to_int(v - tol, dst);
            let hi = f64_to_int(v + tol, dst);
            if lo == hi {
                Want::Bits(lo)
            } else {
                Want::IntRange(int_of(lo, dst), int_of(hi, dst))
            }
        }
    }
}

/// F compare with the IEEE rules: NaN compares false except .nz (000
/// Tables 10-3..10-8, lines 7031-7111); ±0 and denormals are equal.
fn fcond(cm: CondMod, a: f32, b: f32) -> bool {
    if a.is_nan() || b.is_nan() {
        return cm == CondMod::Nz;
    }
    match cm {
        CondMod::Z => a == b,
        CondMod::Nz => a != b,
        CondMod::G => a > b,
        CondMod::Ge => a >= b,
        CondMod::L => a < b,
        CondMod::Le => a <= b,
        _ => false,
    }
}

/// The F-domain lane.
pub fn f(combo: &Combo, c: &Ctx, l: &Lane) -> Expect {
    use Opcode as O;
    let raw: [u32; 3] = [fbits(l.srcs[0]), fbits(l.srcs[1]), fbits(l.srcs[2])];
    let s: [u32; 3] = raw.map(flush);
    let xs: [f32; 3] = s.map(fl);
    let dst = combo.dst;
    let same = |i: usize| combo.srcs.get(i).is_some_and(|t| t.ty == dst);
    let w = match combo.op {
        // A raw move keeps the bits, denormals and NaN payloads included
        // (000 lines 8586-8593); a conversion does not flush either (001
        // lines 1329-1331).
        O::Mov | O::Sel => {
            let i = if combo.op == O::Sel && !l.flag { 1 } else { 0 };
            let b = raw[i];
            let denorm = b & 0x7F80_0000 == 0 && b & 0x7F_FFFF != 0;
            // A raw move needs every source of the dst's type (000 lines
            // 8586-8593); sel beside a VF or word source converts, and
            // whether that flushes a denormal is not stated.
            let all_same = (0..combo.srcs.len()).all(same);
            if dst == Type::F && same(i) {
                if !c.sat && (all_same || !denorm) {
                    return Expect::new(Want::Bits(u64::from(b)));
                }
                if !c.sat {
                    return Expect::new(Want::Either(u64::from(b), u64::from(flush(b))));
                }
                if denorm {
                    // Saturating a denormal: kept by a raw move, flushed by
                    // an arithmetic one; a negative one goes to a zero.
                    return Expect::new(if b >> 31 == 0 {
                        Want::Either(0, u64::from(b))
                    } else {
                        Want::Either(0, 0x8000_0000)
                    });
                }
            }
            return Expect::new(float_to_dst(b, dst, c));
        }
        O::Add => add(s[0], s[1], c.mode),
        O::Mul => mul(s[0], s[1], c.mode),
        O::Frc => {
            let x = xs[0];
            if x.is_nan() || x.is_infinite() {
                None
            } else if x == 0.0 {
                Some(0)
            } else {
                // The exact fraction, in [0, 1): a result of 1.0 is out of
                // range (000 Table 14-3, lines 11735-11740).
                let v = f64::from(x) - f64::from(x).floor();
                return Expect::new(match dst {
                    Type::F | Type::Df => Want::Near {
                        v,
                        tol: f64::powi(2.0, -24),
                    },
                    _ => float_to_dst(0, dst, c),
                })
                .frac();
            }
        }
        O::Rndd | O::Rndu | O::Rnde | O::Rndz => {
            let x = xs[0];
            let r = if c.gen4() {
                // Gen4/G45 write floor and flag the increment (000 lines
                // 12824-13140).
                x.floor()
            } else {
                // Gen6+ write the rounded value (003 lines 100081-100478).
                match combo.op {
                    O::Rndd => x.floor(),
                    O::Rndu => x.ceil(),
                    O::Rnde => x.round_ties_even(),
                    _ => x.trunc(),
                }
            };
            if r.is_nan() { None } else { Some(r.to_bits()) }
        }
        O::Cmp | O::Cmpn => {
            let (a, b) = (xs[0], xs[1]);
            let nan = a.is_nan() || b.is_nan();
            let flag = if combo.op == O::Cmpn && nan {
                // cmpn's NaN rule is tested against its own tables in
                // eu_alu_compare; only ordered lanes are checked here.
                None
            } else {
                Some(fcond(c.cond, a, b))
            };
            let dst_w = match (flag, dst.is_float()) {
                (Some(f), false) => Want::Bits(u64::from(f)),
                _ => Want::Undef("cmp into a float destination defines only the flag"),
            };
            return Expect {
                dst: dst_w,
                flag,
                ..Expect::new(Want::Bits(0))
            };
        }
        O::Mac => {
            let acc = match l.acc {
                Val::F(b) => f64::from(fl(b)),
                _ => 0.0,
            };
            return Expect::new(fused(
                &xs,
                &[f64::from(xs[0]) * f64::from(xs[1]), acc],
                dst,
                c,
            ));
        }
        // mad: src1 * src2 + src0 (003 lines 99052-99123).
        O::Mad => {
            return Expect::new(fused(
                &xs,
                &[f64::from(xs[1]) * f64::from(xs[2]), f64::from(xs[0])],
                dst,
                c,
            ));
        }
        // lrp: src1 * src0 + src2 * (1 - src0) (003 lines 98811-98883).
        O::Lrp => {
            let a = f64::from(xs[0]);
            return Expect::new(fused(
                &xs,
                &[f64::from(xs[1]) * a, f64::from(xs[2]) * (1.0 - a), 0.0],
                dst,
                c,
            ));
        }
        // f32to16: the half in the low word, not flushed (001 lines 665,
        // 1329-1333); nearest even, the dispatch rounding mode.
        O::F32to16 => {
            let h = super::f32_to_f16(raw[0]);
            return Expect::new(Want::Bits(u64::from(h)));
        }
        O::Dp2 | O::Dp3 | O::Dp4 | O::Dph => return Expect::new(dot(combo, c, l)),
        O::Line | O::Pln => return Expect::new(plane(combo, c, l)),
        _ => return Expect::new(Want::Undef("not modelled in F")),
    };
    Expect::new(match w {
        None => float_to_dst(0x7FC0_0000, dst, c),
        Some(b) => float_to_dst(b, dst, c),
    })
}

/// A fused expression: NaN in gives NaN; infinities go through tables
/// this model does not repeat; finite values are checked within 4 units
/// of 2^-24 of the largest term.
fn fused(xs: &[f32], terms: &[f64], dst: Type, c: &Ctx) -> Want {
    if xs.iter().any(|x| x.is_nan()) {
        return near_to_dst(Want::Nan, dst, c);
    }
    if xs.iter().any(|x| x.is_infinite()) {
        return Want::Undef("infinities in a fused operation (tables not modelled)");
    }
    near_to_dst(near(terms, 4.0), dst, c)
}

fn f64v(v: Val) -> f64 {
    f64::from(fl(flush(fbits(v))))
}

/// dp4/dph/dp3/dp2: the dot product of the lane's 4-channel group,
/// replicated to every channel (000 lines 11337-11561).
fn dot(combo: &Combo, c: &Ctx, l: &Lane) -> Want {
    let n = match combo.op {
        Opcode::Dp2 => 2,
        Opcode::Dp3 => 3,
        _ => 4,
    };
    let mut xs = Vec::new();
    let mut terms = Vec::new();
    for k in 0..n {
        let a = if combo.op == Opcode::Dph && k == 3 {
            1.0
        } else {
            f64v(l.g0[k])
        };
        let b = f64v(l.g1[k]);
        xs.push(a as f32);
        xs.push(b as f32);
        terms.push(a * b);
    }
    fused(&xs, &terms, combo.dst, c)
}

/// line: p * src1 + q with p = src0.0 and q = src0.3 of the scalar's
/// 4-tuple (000 lines 11977-12030); pln: p * u + q * v + r with u =
/// src1, v the same channel one register up, r = src0.3 (000 lines
/// 12669-12731).
fn plane(combo: &Combo, c: &Ctx, l: &Lane) -> Want {
    let p = f64v(l.pqr[0]);
    let q = f64v(l.pqr[1]);
    let r = f64v(l.pqr[3]);
    let u = f64v(l.srcs[1]);
    if combo.op == Opcode::Line {
        return fused(&[p as f32, r as f32, u as f32], &[p * u, r], combo.dst, c);
    }
    // pln reads src1 and the register after it; an immediate has none.
    if combo.srcs[1].imm {
        return Want::Undef(
            "pln with an immediate src1 has no second register (000 lines 12690-12704)",
        );
    }
    let v = f64v(l.next[1]);
    fused(
        &[p as f32, q as f32, r as f32, u as f32, v as f32],
        &[p * u, q * v, r],
        combo.dst,
        c,
    )
}

/// The DF-domain lane (Gen7/Gen7.5 mov, sel, add, mul, mad, cmp and the
/// rounding instructions; 001 lines 639-640). DF denormals flush by
/// default (cr0.0[6] = 0, 001 lines 3240-3245); nearest even.
pub fn df(combo: &Combo, c: &Ctx, l: &Lane) -> Expect {
    if matches!(combo.op, Opcode::Cmp | Opcode::Cmpn) {
        let x = l.srcs.map(|v| match v {
            Val::D(b) => f64::from_bits(flush64(b)),
            _ => 0.0,
        });
        let nan = x[0].is_nan() || x[1].is_nan();
        let flag = if combo.op == Opcode::Cmpn && nan {
            None
        } else {
            Some(dcond(c.cond, x[0], x[1]))
        };
        let dst = match (flag, combo.dst.is_float()) {
            (Some(f), false) => Want::Bits(u64::from(f)),
            _ => Want::Undef("cmp into a float destination defines only the flag"),
        };
        return Expect {
            flag,
            ..Expect::new(dst)
        };
    }
    Expect::new(df_value(combo, c, l))
}

/// DF compare: the F rules at double precision (001 lines 1357-1400).
fn dcond(cm: CondMod, a: f64, b: f64) -> bool {
    if a.is_nan() || b.is_nan() {
        return cm == CondMod::Nz;
    }
    match cm {
        CondMod::Z => a == b,
        CondMod::Nz => a != b,
        CondMod::G => a > b,
        CondMod::Ge => a >= b,
        CondMod::L => a < b,
        CondMod::Le => a <= b,
        _ => false,
    }
}

fn df_value(combo: &Combo, c: &Ctx, l: &Lane) -> Want {
    use Opcode as O;
    let raw: [u64; 3] = l.srcs.map(|v| match v {
        Val::D(b) => b,
        Val::F(b) => f64::from(fl(b)).to_bits(),
        Val::I(x) => (x as f64).to_bits(),
    });
    let s = raw.map(flush64);
    let x = s.map(f64::from_bits);
    let dst = combo.dst;
    let r: f64 = match combo.op {
        O::Mov | O::Sel | O::Dim => {
            let i = if combo.op == O::Sel && !l.flag { 1 } else { 0 };
            if combo.op == O::Dim && c.sat {
                return Want::Undef("dim with .sat [ext: Mesa emits dim without it]");
            }
            if dst == Type::Df && !c.sat {
                // A raw DF move keeps the bits.
                return Want::Bits(raw[i]);
            }
            f64::from_bits(raw[i])
        }
        O::Add => x[0] + x[1],
        O::Mul => x[0] * x[1],
        // mad: fused or not, the manuals do not say for DF.
        O::Mad => {
            let fused = x[1].mul_add(x[2], x[0]);
            let split = x[1] * x[2] + x[0];
            if fused.to_bits() != split.to_bits() {
                let fin = |r: f64| flush64(r.to_bits());
                return match (df_to_dst(fin(fused), dst, c), df_to_dst(fin(split), dst, c)) {
                    (Want::Bits(a), Want::Bits(b)) => Want::Either(a, b),
                    (a, _) => a,
                };
            }
            fused
        }
        O::Rndd => x[0].floor(),
        O::Rndu => x[0].ceil(),
        O::Rnde => x[0].round_ties_even(),
        O::Rndz => x[0].trunc(),
        O::Frc => {
            if x[0].is_infinite() {
                f64::NAN
            } else {
                df_frc(x[0])
            }
        }
        _ => return Want::Undef("no DF form modelled"),
    };
    let b = if r.is_nan() {
        r.to_bits()
    } else {
        flush64(r.to_bits())
    };
    df_to_dst(b, dst, c)
}

/// The Gen6+ `math` instruction: float functions within the accuracy the
/// extended-math unit states (000 lines 6009-6262; Gen6 keeps the unit,
/// 003 lines 99124-99339, and rounds to nearest even), integer division
/// exactly with the divide-by-zero table (000 lines 6295-6317, which 003
/// does not repeat).
pub fn math(combo: &Combo, c: &Ctx, l: &Lane) -> Want {
    let f = combo.func.unwrap_or(MathFn::Inv);
    let dst = combo.dst;
    match f {
        MathFn::IntDivQuotient | MathFn::IntDivRemainder | MathFn::IntDivQuotientRemainder => {
            let (q, r) = match idiv(combo, l) {
                Some(qr) => qr,
                None => return Want::Undef("INT_MIN / -1 overflows"),
            };
            let v = if f == MathFn::IntDivRemainder { r } else { q };
            int_to_dst(v, dst, c)
        }
        _ => {
            let x = fl(flush(fbits(l.srcs[0])));
            let y = fl(flush(fbits(l.srcs[1])));
            float_fn(f, x, y, dst, c)
        }
    }
}

/// Quotient and remainder of a D or UD division (000 lines 6268-6317).
pub fn idiv(combo: &Combo, l: &Lane) -> Option<(i128, i128)> {
    let signed = combo.srcs[0].ty == Type::D;
    let (Val::I(a), Val::I(b)) = (l.srcs[0], l.srcs[1]) else {
        return Some((0, 0));
    };
    if b == 0 {
        let v: i128 = if !signed {
            0xFFFF_FFFF
        } else if a < 0 {
            -0x8000_0000
        } else {
            0x7FFF_FFFF
        };
        return Some((v, v));
    }
    if signed && a == -0x8000_0000 && b == -1 {
        return None;
    }
    // Truncating division; the remainder takes the dividend's sign.
    Some((a / b, a % b))
}

/// The expectation of a float math function.
pub fn float_fn(f: MathFn, x: f32, y: f32, dst: Type, c: &Ctx) -> Want {
    let xd = f64::from(x);
    let yd = f64::from(y);
    // Special values from the per-function tables (000 lines 6009-6262).
    let special: Option<f32> = match f {
        _ if x.is_nan() || (matches!(f, MathFn::Fdiv | MathFn::Pow) && y.is_nan()) => {
            Some(f32::NAN)
        }
        MathFn::Inv if x == 0.0 => Some(if x.is_sign_negative() {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        }),
        MathFn::Inv if x.is_infinite() => Some(if x > 0.0 { 0.0 } else { -0.0 }),
        MathFn::Log if x == 0.0 => Some(f32::NEG_INFINITY),
        MathFn::Log if x < 0.0 => Some(f32::NAN),
        MathFn::Log if x == f32::INFINITY => Some(f32::INFINITY),
        MathFn::Exp if x == f32::NEG_INFINITY => Some(0.0),
        MathFn::Exp if x == f32::INFINITY => Some(f32::INFINITY),
        MathFn::Sqrt if x == 0.0 => Some(x),
        MathFn::Sqrt if x < 0.0 => Some(f32::NAN),
        MathFn::Sqrt if x.is_infinite() => Some(f32::INFINITY),
        MathFn::Rsq if x == 0.0 => Some(if x.is_sign_negative() {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        }),
        MathFn::Rsq if x < 0.0 => Some(f32::NAN),
        MathFn::Rsq if x.is_infinite() => Some(0.0),
        MathFn::Sin | MathFn::Cos if x.is_infinite() => Some(f32::NAN),
        _ => None,
    };
    if let Some(v) = special {
        return float_to_dst(v.to_bits(), dst, c);
    }
    let ulp1 = f64::powi(2.0, -23);
    let (v, tol) = match f {
        MathFn::Inv => (1.0 / xd, ulp1 * (1.0 / xd).abs()),
        MathFn::Sqrt => (xd.sqrt(), ulp1 * xd.sqrt()),
        MathFn::Rsq => (1.0 / xd.sqrt(), ulp1 / xd.sqrt()),
        MathFn::Log => (xd.log2(), f64::powi(2.0, -21) * xd.log2().abs()),
        MathFn::Exp => (xd.exp2(), f64::powi(2.0, -21) * xd.exp2()),
        MathFn::Sin | MathFn::Cos => {
            if xd.abs() > 100.0 * std::f64::consts::PI {
                return Want::Undef("sin/cos beyond ±100π: only periodic within [-1, 1]");
            }
            let v = if f == MathFn::Sin { xd.sin() } else { xd.cos() };
            (v, 0.0008)
        }
        // fdiv is x * (1 / y), each step within 1 ULP (003 lines 89255-89259).
        MathFn::Fdiv => {
            if y == 0.0 || y.is_infinite() || x.is_infinite() {
                return Want::Undef("fdiv special values (no table in 003)");
            }
            let v = xd / yd;
            (v, 2.0 * ulp1 * v.abs())
        }
        // pow = 2^(src1 * log2|src0|), relative error 2^-15 (000 lines
        // 6140-6160).
        MathFn::Pow => {
            if x == 0.0 || y.is_infinite() || x.is_infinite() {
                return Want::Undef("pow special values (000 lines 6159-6183)");
            }
            let v = (yd * xd.abs().log2()).exp2();
            (v, f64::powi(2.0, -15) * v)
        }
        _ => return Want::Undef("not a float function"),
    };
    if !v.is_finite() || v.abs() > f64::from(f32::MAX) {
        return Want::Undef("a math result at the edge of the F range");
    }
    let w = Want::Near {
        v,
        tol: tol + 2.0 * MIN_NORMAL,
    };
    near_to_dst(w, dst, c)
}

/// DF frc: the exact fraction `x - floor(x)` truncated to DF (it lies in
/// [0, 1), "not including 1": 000 Table 14-3, lines 11735-11740, carried
/// over to DF). Computed in integers: `x = -M 2^e` with `M` odd-or-not
/// below 2^53; the fraction is `(m 2^-e - M) 2^e` for `m = -floor(x)`.
fn df_frc(x: f64) -> f64 {
    let fl = x.floor();
    if x >= 0.0 || fl == x || x.is_nan() {
        // Non-negative: x and floor(x) share the binade or floor is 0, so
        // the difference is exact. Integers (and NaN) pass through.
        return x - fl;
    }
    let bits = x.to_bits();
    let raw_exp = ((bits >> 52) & 0x7FF) as i32;
    let (mant, e) = if raw_exp == 0 {
        (bits & ((1 << 52) - 1), -1074)
    } else {
        ((bits & ((1 << 52) - 1)) | (1 << 52), raw_exp - 1075)
    };
    if -e > 120 {
        // |x| < 2^-67: the fraction 1 - |x| lies strictly between
        // 1 - 2^-53 and 1.
        return 1.0 - f64::EPSILON / 2.0;
    }
    let m = (-fl) as u128;
    let n = (m << (-e) as u32) - u128::from(mant);
    // Keep the top 53 bits (truncation), then scale exactly.
    let len = 128 - n.leading_zeros();
    let kept = if len > 53 {
        (n >> (len - 53)) << (len - 53)
    } else {
        n
    };
    (kept as f64) * 2f64.powi(e)
}
