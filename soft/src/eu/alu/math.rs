//! The Gen6+ `math` instruction (003 lines 99124-99339), evaluated per
//! channel by the extended-math unit ([`crate::eu::math`]).

use baregpu_isa::inst::{MathFn, Type};

use crate::eu::decoded::{Next, Op};
use crate::eu::error::ErrorKind;
use crate::eu::fp;
use crate::eu::math::{self, MathError, MathMode, Operands, Precision};
use crate::eu::operand::{DstKind, MAX_CH, read, write};
use crate::eu::thread::Thread;
use crate::eu::thread::layout::{GRF_BASE, GRF_REGS, REG_BYTES};

fn why(e: MathError) -> ErrorKind {
    ErrorKind::Math(match e {
        MathError::Unsupported { .. } => "function not on this platform",
        MathError::WrongKind(_) => "integer and float functions mixed",
        MathError::FdivInAltMode => "FDIV is not supported in ALT mode",
        MathError::SaturateOnInteger => "saturate on an integer function",
        MathError::BadTypes(_) => "source types the function does not take",
        MathError::ReservedFunction(_) => "reserved function",
        MathError::ReservedBits(_) => "reserved bits",
        MathError::NoMessageForm(_) => "no message form",
    })
}

fn binary(f: MathFn) -> bool {
    math::operand_count(f) == 2
}

/// An INT DIV result in the destination type. Its execution type is the
/// integer source type, so a float destination gets the converted value
/// (003 lines 91687-91696; the math table lists float and integer
/// destination types, 003 lines 99135-99152). Quotients beyond 24 bits
/// round to nearest even (003 lines 89621-89625), the only mode the math
/// instruction supports (003 line 99336), whatever cr0 says.
fn int_result(v: i64, ty: Type, sat: bool) -> u64 {
    let mode = fp::Rounding::NearestEven;
    match ty {
        Type::F => {
            let b = fp::int_to_f32(v, mode).to_bits();
            u64::from(if sat { fp::saturate32(b) } else { b })
        }
        Type::Df => {
            let b = fp::int_to_f64(v, mode).to_bits();
            if sat { fp::saturate64(b) } else { b }
        }
        ty => fp::int_to_int(v, ty, sat).0,
    }
}

pub(crate) fn math_op(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let Some(f) = op.math else {
        return Err(ErrorKind::Unimplemented(op.inst.opcode));
    };
    let ctl = &op.ctl;
    let n = usize::from(ctl.exec);
    let en = t.enables(ctl, op.ip) & t.pmask(ctl);
    let src1_ty = binary(f).then_some(op.src[1].ty);
    let kind = math::operand_kind(f, op.src[0].ty, src1_ty).map_err(why)?;
    let float = kind == Operands::Float;
    let mode = MathMode {
        platform: t.platform,
        alt: t.fp.alt,
        precision: Precision::Full,
        // The unit clamps to [0, 1], the range of a float destination; an
        // integer destination saturates to its own range (000 line 9802;
        // 003 lines 94448-94470), which the conversion below clamps to.
        saturate: ctl.sat && float && matches!(op.dst.ty, Type::F | Type::Df),
    };
    let mut raw = [0u64; MAX_CH];
    let mut second = [0u64; MAX_CH];
    let mut two = false;
    match kind {
        Operands::Float => {
            // The unit flushes denormal inputs itself.
            let a = read::f32s(t, &op.src[0], n, en, false, t.fp.rounding)?;
            let b = if binary(f) {
                read::f32s(t, &op.src[1], n, en, false, t.fp.rounding)?
            } else {
                [0u32; MAX_CH]
            };
            for c in 0..n {
                if en >> c & 1 == 0 {
                    continue;
                }
                let (r, _) = math::float(f, a[c], b[c], &mode).map_err(why)?;
                raw[c] = match op.dst.ty {
                    Type::F => u64::from(r),
                    Type::Df => fp::f32_to_f64(f32::from_bits(r)).to_bits(),
                    ty => fp::float_to_int(f64::from(f32::from_bits(r)), ty).0,
                };
            }
        }
        Operands::Int { signed } => {
            let a = read::ints(t, &op.src[0], n, en)?;
            let b = read::ints(t, &op.src[1], n, en)?;
            for c in 0..n {
                if en >> c & 1 == 0 {
                    continue;
                }
                let (q, r) =
                    math::int_div(f, a[c] as u32, b[c] as u32, signed, &mode).map_err(why)?;
                let value = |x: u32| {
                    if signed {
                        i64::from(x as i32)
                    } else {
                        i64::from(x)
                    }
                };
                raw[c] = int_result(value(q), op.dst.ty, ctl.sat);
                if let Some(r) = r {
                    second[c] = int_result(value(r), op.dst.ty, ctl.sat);
                    two = true;
                }
            }
        }
    }
    write::store(t, &op.dst, n, 1, en, &raw)?;
    if two {
        // Quotient and remainder: the remainder goes to the register after
        // the destination (003 lines 99216-99218, 99321).
        if let DstKind::Direct { off } = &op.dst.kind {
            let size = usize::from(op.dst.ty.size());
            let end = GRF_BASE + GRF_REGS * REG_BYTES;
            for c in 0..n {
                let o = usize::from(off[c]) + REG_BYTES;
                if en >> c & 1 != 0 && o + size <= end {
                    t.store(o, size, second[c]);
                }
            }
        }
    }
    Ok(Next::Fall)
}
