//! The Gen6+ `math` instruction (003 lines 99124-99339), evaluated per
//! channel by the extended-math unit ([`crate::eu::math`]).

use baregpu_isa::inst::{MathFn, Type};

use crate::eu::error::ErrorKind;
use crate::eu::fp;
use crate::eu::math::{self, MathError, MathMode, Operands, Precision};
use crate::eu::operand::{DstKind, MAX_CH, read, write};
use crate::eu::predecode::{Next, Op};
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
        saturate: ctl.sat && float,
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
                let v = if signed {
                    i64::from(q as i32)
                } else {
                    i64::from(q)
                };
                raw[c] = fp::int_to_int(v, op.dst.ty, ctl.sat).0;
                if let Some(r) = r {
                    let v = if signed {
                        i64::from(r as i32)
                    } else {
                        i64::from(r)
                    };
                    second[c] = fp::int_to_int(v, op.dst.ty, ctl.sat).0;
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
