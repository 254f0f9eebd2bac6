//! The Xe-HPG ALU: one generic loop over channels for every one-, two-
//! and three-source opcode (regions, types, source modifiers, saturation,
//! predication, condition modifiers), and the opcodes Xe-HPG adds (add3,
//! bfn, dp4a, csel; 004 lines 11140-11336 for bfn). Results are computed
//! exactly and rounded once to the destination (`value::store`).

use baregpu_isa::inst::{Body, CondMod, Dst, Instruction, MathFn, Opcode, Src, Type};

use super::operand::{self, MAX_CH, Plan, Touched};
use super::value::{self, FloatCtl, Prec, Res};
use crate::eu::alu::compare::cmp_f64;
use crate::eu::error::ErrorKind;
use crate::eu::fp::round::{add_exact, fma_exact, mul_exact};
use crate::eu::math::{self, MathMode};
use crate::eu::thread::Thread;
use crate::eu::thread::layout::{ACC_BASE, FLAG_BASE, REG_BYTES};

/// The destination and sources of an ALU-shaped body.
pub fn operands(inst: &Instruction) -> Option<(Dst, [Option<Src>; 3])> {
    match &inst.body {
        Body::Alu(a) => Some((a.dst, [Some(a.src0), Some(a.src1), None])),
        Body::Math(m) => Some((m.dst, [Some(m.src0), Some(m.src1), None])),
        Body::ThreeSrc(t) => Some((t.dst, [Some(t.src[0]), Some(t.src[1]), Some(t.src[2])])),
        Body::Bfn(b) => Some((b.dst, [Some(b.src[0]), Some(b.src[1]), Some(b.src[2])])),
        _ => None,
    }
}

/// Sources an opcode reads.
pub fn source_count(op: Opcode, math: Option<MathFn>) -> usize {
    match op {
        Opcode::Mov
        | Opcode::Not
        | Opcode::Frc
        | Opcode::Rndu
        | Opcode::Rndd
        | Opcode::Rnde
        | Opcode::Rndz
        | Opcode::Lzd
        | Opcode::Fbh
        | Opcode::Fbl
        | Opcode::Cbit
        | Opcode::Bfrev => 1,
        Opcode::Math => match math {
            Some(MathFn::Pow | MathFn::Fdiv) => 2,
            _ => 1,
        },
        Opcode::Mad
        | Opcode::Add3
        | Opcode::Bfe
        | Opcode::Bfi2
        | Opcode::Csel
        | Opcode::Dp4a
        | Opcode::Bfn => 3,
        _ => 2,
    }
}

/// Opcodes whose sources are floats by definition (the float path even
/// for integer-typed operands is not allowed; they are refused).
fn float_only(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Frc | Opcode::Rndu | Opcode::Rndd | Opcode::Rnde | Opcode::Rndz | Opcode::Math
    )
}

/// Bitwise opcodes: raw integer bits; the negate modifier is a NOT (as on
/// Gen7+).
fn logic(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::And | Opcode::Or | Opcode::Xor | Opcode::Not | Opcode::Bfn
    )
}

/// One channel's source value.
#[derive(Clone, Copy, Debug)]
enum V {
    I(i64),
    F(f64),
}

impl V {
    fn f(self) -> f64 {
        match self {
            V::F(x) => x,
            V::I(i) => i as f64,
        }
    }
    fn i(self) -> i64 {
        match self {
            V::I(i) => i,
            V::F(x) => x as i64,
        }
    }
}

fn read(t: &Thread, p: &Plan, c: usize, float: bool, logic_op: bool, fc: &FloatCtl) -> V {
    let raw = p.raw(t, c);
    let (neg, abs) = p.mods();
    let ty = p.ty();
    if float {
        let mut x = value::to_float(raw, ty, fc);
        if abs {
            x = x.abs();
        }
        if neg {
            x = -x;
        }
        V::F(x)
    } else if logic_op {
        let v = value::to_int(raw, ty);
        V::I(if neg { !v } else { v })
    } else {
        let mut v = value::to_int(raw, ty);
        if abs {
            v = v.abs();
        }
        if neg {
            v = v.wrapping_neg();
        }
        V::I(v)
    }
}

/// Rounds an integer source to F as the F pipe reads it.
fn as_f32(v: V, fc: &FloatCtl) -> f32 {
    match v {
        V::F(x) => x as f32,
        V::I(i) => crate::eu::fp::convert::int_to_f32(i, fc.mode),
    }
}

fn fres(hi: f64, lo: f64, prec: Prec) -> Res {
    Res::Float { hi, lo, prec }
}

fn type_bits(ty: Type) -> u32 {
    u32::from(ty.size()) * 8
}

/// Executes an ALU-shaped instruction on the channels `en` (execution
/// mask, and the predicate except for a predicated `sel`, which selects
/// with `pred` instead). `fc` from cr0.
#[allow(clippy::too_many_arguments)]
pub fn exec(
    t: &mut Thread,
    inst: &Instruction,
    first: usize,
    en: u32,
    pred: u32,
    fc: &FloatCtl,
    touched: &mut Touched,
) -> Result<(), ErrorKind> {
    let Some((dst, srcs)) = operands(inst) else {
        return Err(ErrorKind::BadOperand("not an ALU instruction"));
    };
    let op = inst.opcode;
    let math_fn = match &inst.body {
        Body::Math(m) => Some(m.function),
        _ => None,
    };
    let exec = usize::from(inst.exec_size).clamp(1, MAX_CH);
    let n = source_count(op, math_fn);
    let three = matches!(inst.body, Body::ThreeSrc(_) | Body::Bfn(_));
    let mut plans: [Option<Plan>; 3] = [None, None, None];
    for (i, s) in srcs.iter().enumerate().take(n) {
        let Some(s) = s else {
            return Err(ErrorKind::BadOperand("missing source"));
        };
        plans[i] = Some(operand::src(t, s, exec, three, touched)?);
    }
    // The sources' types (no allocation: this runs per instruction).
    let types = || plans.iter().flatten().map(Plan::ty);
    let float = types().any(|t| t.is_float()) && !logic(op) || float_only(op);
    if float_only(op) && types().any(|t| !t.is_float()) {
        return Err(ErrorKind::BadOperand(
            "this opcode takes float sources only",
        ));
    }
    let prec = if float && dst.ty == Type::Hf && types().all(|t| t == Type::Hf) {
        Prec::F16
    } else {
        Prec::F32
    };
    let dsts = operand::dst(t, &dst, exec, touched)?;
    let logic_op = logic(op);
    let raw_move = op == Opcode::Mov
        && !inst.saturate
        && plans[0]
            .as_ref()
            .is_some_and(|p| p.ty() == dst.ty && p.mods() == (false, false));
    // Flags of cmp/cmpn and of cond mods; sel and csel compare instead.
    let writes_flag = inst.cond_mod != CondMod::None && !matches!(op, Opcode::Sel | Opcode::Csel);
    let flag_off = FLAG_BASE + usize::from(inst.flag.reg & 1) * REG_BYTES;
    let mut flags = t.load32(flag_off);
    let flag_first = usize::from(inst.flag.subreg & 1) * 16 + first;
    let mut results = [(0u64, false); MAX_CH];
    for (c, slot) in results.iter_mut().enumerate().take(exec) {
        if en >> c & 1 == 0 {
            continue;
        }
        let rd = |i: usize| -> V {
            match &plans[i] {
                Some(p) => read(t, p, c, float, logic_op, fc),
                None => V::I(0),
            }
        };
        let mut flag_val: Option<bool> = None;
        // sel and csel move the chosen source's bits when it has the
        // destination's type and neither it nor the result is modified, as
        // a raw mov does (004 mov, line 29177; 004 line 32931: "A sel
        // instruction without a conditional modifier always copies a
        // denorm source value ... in the manner of a raw move"): IGC selects integer bit
        // patterns through a :f sel (convert_int_sat's INT_MAX as
        // qnan(0x3FFFFF), negative integers that read as NaNs), which a
        // pass through f64 would turn into the canonical NaN.
        let raw_pick = |i: usize| -> Option<u64> {
            plans[i]
                .as_ref()
                .filter(|p| !inst.saturate && p.ty() == dst.ty && p.mods() == (false, false))
                .map(|p| p.raw(t, c))
        };
        // A raw move (004 mov, line 29177: same types, no source modifier,
        // no saturation) copies the bits: NaN payloads and denormals stay.
        if raw_move && let Some(p) = &plans[0] {
            let bits = p.raw(t, c);
            *slot = (bits, true);
            if writes_flag {
                let sig = value::signals(bits, dst.ty, false);
                let b = (flag_first + c) % 32;
                let v = value::cond(inst.cond_mod, sig);
                flags = (flags & !(1 << b)) | (u32::from(v) << b);
            }
            continue;
        }
        let res = match op {
            Opcode::Mov => match rd(0) {
                V::F(x) => fres(x, 0.0, prec),
                V::I(i) => Res::Int(i),
            },
            Opcode::Sel => {
                let (a, b) = (rd(0), rd(1));
                let take_a = match inst.cond_mod {
                    // Predicated select: the predicate picks src0.
                    CondMod::None => pred >> c & 1 != 0,
                    cm => compare(cm, a, b, true),
                };
                let k = if take_a { 0 } else { 1 };
                raw_pick(k).map_or_else(|| pick(if take_a { a } else { b }, prec), Res::Bits)
            }
            Opcode::Csel => {
                // dst = (src2 cm 0) ? src0 : src1; no flag written (004
                // csel; Mesa brw_eu_emit.c brw_CSEL).
                let (a, b, s) = (rd(0), rd(1), rd(2));
                let zero = if float { V::F(0.0) } else { V::I(0) };
                let take_a = compare(inst.cond_mod, s, zero, false);
                let k = if take_a { 0 } else { 1 };
                raw_pick(k).map_or_else(|| pick(if take_a { a } else { b }, prec), Res::Bits)
            }
            Opcode::Cmp | Opcode::Cmpn => {
                let (a, b) = (rd(0), rd(1));
                let v = compare(inst.cond_mod, a, b, op == Opcode::Cmpn);
                flag_val = Some(v);
                // All ones for true, in every bit of the channel whatever
                // its type (004 cmp, line 12444: "all ones (e.g, byte
                // 0xFF, word 0xFFFF, DWord 0xFFFFFFFF)"): IGC's fmod ands
                // a float cmp result with 1.75's bits.
                Res::Bits(if v { u64::MAX } else { 0 })
            }
            Opcode::Add => match (float, rd(0), rd(1)) {
                (true, a, b) => float2(a, b, prec, fc, add_exact),
                (false, a, b) => Res::Int(a.i().wrapping_add(b.i())),
            },
            Opcode::Mul => match (float, rd(0), rd(1)) {
                (true, a, b) => float2(a, b, prec, fc, mul_exact),
                (false, a, b) => {
                    // DG2 has no 32x32 integer multiply (Mesa
                    // intel_device_info XEHP_FEATURES
                    // has_integer_dword_mul = false): Mesa splits it into
                    // mul with a word source and mach.
                    let wide = |i: usize| plans[i].as_ref().is_some_and(|p| p.ty().size() >= 4);
                    if wide(0) && wide(1) {
                        return Err(ErrorKind::BadOperand(
                            "DG2 has no 32x32-bit integer mul (use a :w/:uw src1 and mach)",
                        ));
                    }
                    Res::Int(a.i().wrapping_mul(b.i()))
                }
            },
            Opcode::Mach => {
                // The 64-bit product the pair `mul acc0 src0 src1:uw`,
                // `mach` builds in the accumulator: its high DWord with
                // AccWrEn (Mesa), its low DWord without (004 lines
                // 29995-30010, mach pseudocode; IGC's DG2 code multiplies
                // 32-bit IDs so).
                let (a, b) = (rd(0).i(), rd(1).i());
                let full = i128::from(a) * i128::from(b);
                if inst.acc_wr_ctrl {
                    // The accumulator keeps the product: its low DWord is
                    // what the macro's closing `mov dst acc0` reads.
                    t.store32(ACC_BASE + c * 4, full as u32);
                    Res::Int((full >> 32) as i64)
                } else {
                    Res::Int(i64::from(full as u32))
                }
            }
            Opcode::Mad => {
                // dst = src0 + src1 * src2 (004 mad; three-source order).
                let (a, b, s) = (rd(0), rd(1), rd(2));
                if float {
                    let (hi, lo) = fma_exact(as_f32(b, fc), as_f32(s, fc), as_f32(a, fc));
                    fres(hi, lo, prec)
                } else {
                    Res::Int(a.i().wrapping_add(b.i().wrapping_mul(s.i())))
                }
            }
            Opcode::Add3 => Res::Int(rd(0).i().wrapping_add(rd(1).i()).wrapping_add(rd(2).i())),
            Opcode::Avg => Res::Int((rd(0).i() + rd(1).i() + 1) >> 1),
            Opcode::Addc | Opcode::Subb => {
                let (a, b) = (rd(0).i() as u32, rd(1).i() as u32);
                let (r, carry) = if op == Opcode::Addc {
                    a.overflowing_add(b)
                } else {
                    a.overflowing_sub(b)
                };
                // The carry/borrow goes to the accumulator's channel.
                t.store32(ACC_BASE + c * 4, u32::from(carry));
                Res::Int(i64::from(r))
            }
            Opcode::And | Opcode::Or | Opcode::Xor => {
                let (a, b) = (rd(0).i(), rd(1).i());
                Res::Int(match op {
                    Opcode::And => a & b,
                    Opcode::Or => a | b,
                    _ => a ^ b,
                })
            }
            Opcode::Not => Res::Int(!rd(0).i()),
            Opcode::Bfn => {
                let Body::Bfn(b) = &inst.body else {
                    return Err(ErrorKind::BadOperand("bfn without its function"));
                };
                let (x, y, z) = (rd(0).i() as u64, rd(1).i() as u64, rd(2).i() as u64);
                let mut r = 0u64;
                for bit in 0..64 {
                    let k = (x >> bit & 1) | (y >> bit & 1) << 1 | (z >> bit & 1) << 2;
                    r |= u64::from(b.function >> k & 1) << bit;
                }
                Res::Int(r as i64)
            }
            Opcode::Shl | Opcode::Shr | Opcode::Asr | Opcode::Ror | Opcode::Rol => {
                let p0 = plans[0].as_ref().map_or(Type::Ud, Plan::ty);
                let bits = type_bits(p0).max(type_bits(dst.ty)).min(32);
                let sh = (rd(1).i() as u32) & (bits - 1);
                let a = rd(0).i();
                let mask = if bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                let u = a as u64 & mask;
                Res::Int(match op {
                    Opcode::Shl => a.wrapping_shl(sh),
                    Opcode::Shr => (u >> sh) as i64,
                    Opcode::Asr => a >> sh,
                    Opcode::Ror => ((u >> sh | u << ((bits - sh) % bits)) & mask) as i64,
                    _ => ((u << sh | u >> ((bits - sh) % bits)) & mask) as i64,
                })
            }
            Opcode::Lzd => Res::Int(i64::from((rd(0).i() as u32).leading_zeros())),
            Opcode::Fbh => {
                let ty = plans[0].as_ref().map_or(Type::Ud, Plan::ty);
                let v = rd(0).i() as u32;
                // From the MSB: the first 1 (UD) or the first bit unlike
                // the sign (D); none found gives 0xFFFFFFFF.
                let x = if ty == Type::D && (v as i32) < 0 {
                    !v
                } else {
                    v
                };
                Res::Int(if x == 0 {
                    0xFFFF_FFFF
                } else {
                    i64::from(x.leading_zeros())
                })
            }
            Opcode::Fbl => {
                let v = rd(0).i() as u32;
                Res::Int(if v == 0 {
                    0xFFFF_FFFF
                } else {
                    i64::from(v.trailing_zeros())
                })
            }
            Opcode::Cbit => {
                let ty = plans[0].as_ref().map_or(Type::Ud, Plan::ty);
                let m = crate::eu::fp::convert::size_mask(ty);
                Res::Int(i64::from((rd(0).i() as u64 & m).count_ones()))
            }
            Opcode::Bfrev => Res::Int(i64::from((rd(0).i() as u32).reverse_bits())),
            Opcode::Bfe => {
                // src0 width, src1 offset, src2 value (5-bit fields; Mesa
                // brw_nir lowering of ubitfield_extract).
                let (w, o) = ((rd(0).i() as u32) & 31, (rd(1).i() as u32) & 31);
                let v = rd(2).i() as u32;
                let signed = dst.ty == Type::D;
                Res::Int(if w == 0 {
                    0
                } else if w + o < 32 {
                    let x = v << (32 - w - o);
                    if signed {
                        i64::from((x as i32) >> (32 - w))
                    } else {
                        i64::from(x >> (32 - w))
                    }
                } else if signed {
                    i64::from((v as i32) >> o)
                } else {
                    i64::from(v >> o)
                })
            }
            Opcode::Bfi1 => {
                let (w, o) = ((rd(0).i() as u32) & 31, (rd(1).i() as u32) & 31);
                Res::Int(i64::from(((1u64 << w) - 1) as u32).wrapping_shl(o) & 0xFFFF_FFFF)
            }
            Opcode::Bfi2 => {
                let (m, a, b) = (rd(0).i(), rd(1).i(), rd(2).i());
                Res::Int((m & a) | (!m & b))
            }
            Opcode::Dp4a => {
                // src0 + the dot product of src1's and src2's four bytes,
                // signed for :d sources (Mesa brw_DP4A; 004 dp4a).
                let ty = |i: usize| plans[i].as_ref().map_or(Type::Ud, Plan::ty);
                let (x, y) = (rd(1).i() as u32, rd(2).i() as u32);
                let byte = |v: u32, k: u32, signed: bool| -> i64 {
                    let b = (v >> (k * 8)) as u8;
                    if signed {
                        i64::from(b as i8)
                    } else {
                        i64::from(b)
                    }
                };
                let mut s = rd(0).i();
                for k in 0..4 {
                    s += byte(x, k, ty(1) == Type::D) * byte(y, k, ty(2) == Type::D);
                }
                Res::Int(s)
            }
            Opcode::Frc => {
                let x = rd(0).f();
                fres(x - libm::floor(x), 0.0, prec)
            }
            Opcode::Rndd => fres(libm::floor(rd(0).f()), 0.0, prec),
            Opcode::Rndu => fres(libm::ceil(rd(0).f()), 0.0, prec),
            Opcode::Rndz => fres(libm::trunc(rd(0).f()), 0.0, prec),
            Opcode::Rnde => fres(libm::rint(rd(0).f()), 0.0, prec),
            Opcode::Math => {
                let f = math_fn.unwrap_or(MathFn::Inv);
                let (a, b) = (as_f32(rd(0), fc), as_f32(rd(1), fc));
                // Gen7.5's math unit's functions and precision (004 line
                // 15180: RNE only, which is what they round to).
                let mut mode = MathMode::ieee(baregpu_isa::IsaGen::Gen75);
                mode.saturate = false;
                let (r, _) = math::float(f, a.to_bits(), b.to_bits(), &mode)
                    .map_err(|_| ErrorKind::Math("function not available on Xe-HPG's math"))?;
                fres(f64::from(f32::from_bits(r)), 0.0, Prec::F32)
            }
            _ => return Err(ErrorKind::Unimplemented(op)),
        };
        let (raw, sig) = value::store(res, dst.ty, inst.saturate, fc);
        *slot = (raw, true);
        if writes_flag {
            let v = flag_val.unwrap_or_else(|| value::cond(inst.cond_mod, sig));
            let b = (flag_first + c) % 32;
            flags = (flags & !(1 << b)) | (u32::from(v) << b);
        }
    }
    // Write after computing every channel (sources may overlap the
    // destination).
    if let Some(off) = dsts {
        let size = usize::from(dst.ty.size());
        for (c, &(raw, written)) in results.iter().enumerate().take(exec) {
            if written {
                t.store(off[c] as usize, size, raw);
                // addc/subb's AccWrEn is what makes them write the
                // carry/borrow there, mach's the product (set above): the
                // destination's value does not overwrite it (IGC's 64-bit
                // adds read acc0 as the carry).
                if inst.acc_wr_ctrl && !matches!(op, Opcode::Addc | Opcode::Subb | Opcode::Mach) {
                    t.store(ACC_BASE + c * size, size, raw);
                }
            }
        }
    }
    if writes_flag {
        t.store32(flag_off, flags);
    }
    Ok(())
}

fn pick(v: V, prec: Prec) -> Res {
    match v {
        V::F(x) => fres(x, 0.0, prec),
        V::I(i) => Res::Int(i),
    }
}

fn compare(cm: CondMod, a: V, b: V, special: bool) -> bool {
    match (a, b) {
        (V::I(x), V::I(y)) => match cm {
            CondMod::Z => x == y,
            CondMod::Nz => x != y,
            CondMod::G => x > y,
            CondMod::Ge => x >= y,
            CondMod::L => x < y,
            CondMod::Le => x <= y,
            _ => false,
        },
        (a, b) => cmp_f64(cm, a.f(), b.f(), special),
    }
}

/// A two-operand float operation computed exactly on F values.
fn float2(a: V, b: V, prec: Prec, fc: &FloatCtl, f: impl Fn(f32, f32) -> (f64, f64)) -> Res {
    let (hi, lo) = f(as_f32(a, fc), as_f32(b, fc));
    fres(hi, lo, prec)
}
