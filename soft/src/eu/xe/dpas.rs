//! `dpas`: dot product accumulate systolic (004 lines 13756-14070).
//!
//! Layout, for ExecSize 8 and systolic depth 8 (the only ones DG2 allows:
//! "The Execution Size must be 8", "The systolic depth must be 8"), repeat
//! r of RepeatCount and channel n:
//!
//! ```text
//! dst[r][n] = src0[r][n] + sum over d < 8 of dot(src1 reg d dword n, src2 dword 8r + d)
//! ```
//!
//! Dst and src0 advance a register per repeat (`<1>` regions, element
//! `8r + n`); src1 holds one register per systolic stage with channel n's
//! packed elements in its dword n and stays the same for every repeat;
//! src2 advances `sdepth * OPS_PER_CHAN` elements (one register) per repeat
//! and each stage reads one dword of it, broadcast to every channel (004:
//! "Src1 remaining same and Src2 advancing ..."; the worked example,
//! where stage d of repeat r reads `r14+r` at dword d; the roles as in
//! IGC's vISA DPAS: src1 the B matrix packed by four, src2 A's rows).
//! A dword holds OPS_PER_CHAN elements: four bytes, or two HF/BF.
//! Each stage's output is a 32-bit value; floats round to nearest even
//! there, BF and F src0/dst denormals flush, HF inputs by cr0's HF mode
//! (004 lines 13885-13895). Sub-byte precisions (u4/s4/u2/s2), whose
//! src1 interleaving the manual's example only sketches, are refused.

use baregpu_isa::inst::{Addr, Dpas, Precision, RegFile, Src, Type};

use super::operand::Touched;
use super::value::FloatCtl;
use crate::eu::error::ErrorKind;
use crate::eu::fp::convert::f16_to_f32;
use crate::eu::fp::round::{round_f32, two_sum};
use crate::eu::fp::{self, Rounding};
use crate::eu::thread::Thread;
use crate::eu::thread::layout::{GRF_REGS, REG_BYTES};

fn grf_base(file: RegFile, addr: &Addr) -> Result<usize, ErrorKind> {
    match (file, addr) {
        (RegFile::Grf, Addr::Direct { nr, subnr }) => {
            Ok(usize::from(*nr) * REG_BYTES + usize::from(*subnr))
        }
        _ => Err(ErrorKind::BadOperand(
            "dpas operands are direct GRF registers",
        )),
    }
}

fn reg_of(src: &Src) -> Result<(Type, Option<usize>), ErrorKind> {
    match src {
        Src::Reg(r) if super::operand::is_null(r.file, &r.addr) => Ok((r.ty, None)),
        Src::Reg(r) => Ok((r.ty, Some(grf_base(r.file, &r.addr)?))),
        _ => Err(ErrorKind::BadOperand("dpas source")),
    }
}

fn check(off: usize, len: usize) -> Result<(), ErrorKind> {
    if off + len > GRF_REGS * REG_BYTES {
        Err(ErrorKind::BadOperand("dpas operand leaves the GRF"))
    } else {
        Ok(())
    }
}

/// Executes a dpas (ExecSize 8, every channel: dpas has no predication
/// and runs NoMask-like over its rows).
pub fn exec(
    t: &mut Thread,
    d: &Dpas,
    exec: usize,
    fc: &FloatCtl,
    touched: &mut Touched,
) -> Result<(), ErrorKind> {
    if exec != 8 {
        return Err(ErrorKind::BadOperand("dpas needs ExecSize 8 (004)"));
    }
    if d.depth != 8 {
        return Err(ErrorKind::BadOperand("the systolic depth must be 8 (004)"));
    }
    if d.precision != [Precision::Full, Precision::Full] {
        return Err(ErrorKind::Unsupported(
            "dpas with 4- or 2-bit precision is not modelled",
        ));
    }
    let rep = usize::from(d.repeat.clamp(1, 8));
    let dst = grf_base(d.dst.file, &d.dst.addr)?;
    let (t0, s0) = reg_of(&d.src[0])?;
    let (t1, s1) = reg_of(&d.src[1])?;
    let (t2, s2) = reg_of(&d.src[2])?;
    let (Some(s1), Some(s2)) = (s1, s2) else {
        return Err(ErrorKind::BadOperand(
            "dpas src1 and src2 must be registers",
        ));
    };
    let float = match (d.dst.ty, t1, t2) {
        (Type::D | Type::Ud, Type::Ub | Type::B, Type::Ub | Type::B) => false,
        (Type::F, Type::Hf, Type::Hf) | (Type::F, Type::Bf, Type::Bf) => true,
        _ => {
            return Err(ErrorKind::Unsupported(
                "dpas type combination not in 004's tables (d/ud from b/ub, f from hf or bf)",
            ));
        }
    };
    if s0.is_some() && t0 != d.dst.ty {
        return Err(ErrorKind::BadOperand(
            "dpas src0 must have the destination's type",
        ));
    }
    check(dst, rep * REG_BYTES)?;
    check(s1, 8 * REG_BYTES)?;
    check(s2, rep * REG_BYTES)?;
    if let Some(s0) = s0 {
        check(s0, rep * REG_BYTES)?;
    }
    for k in 0..8 {
        touched.read(s1 + k * REG_BYTES, 4);
    }
    for r in 0..rep {
        touched.read(s2 + r * REG_BYTES, 4);
        touched.write(dst + r * REG_BYTES, 4);
        if let Some(s0) = s0 {
            touched.read(s0 + r * REG_BYTES, 4);
        }
    }
    let mut out = [[0u32; 8]; 8];
    for (r, row) in out.iter_mut().enumerate().take(rep) {
        for (n, o) in row.iter_mut().enumerate() {
            let acc0 = s0.map_or(0, |s| t.load32(s + (r * 8 + n) * 4));
            let a = |k: usize| t.load32(s1 + k * REG_BYTES + n * 4);
            let b = |k: usize| t.load32(s2 + (r * 8 + k) * 4);
            *o = if float {
                let mut acc = f64::from(f32::from_bits(fp::flush32(acc0)));
                for k in 0..8 {
                    let (x, y) = (a(k), b(k));
                    let el = |v: u32, i: u32, ty: Type| -> f64 {
                        let h = (v >> (16 * i)) as u16;
                        match ty {
                            Type::Bf => f64::from(f32::from_bits(fp::flush32(u32::from(h) << 16))),
                            _ => {
                                let h = if fc.keep16 || h & 0x7C00 != 0 {
                                    h
                                } else {
                                    h & 0x8000
                                };
                                f64::from(f16_to_f32(h))
                            }
                        }
                    };
                    // Products of HF/BF pairs are exact in f64; the stage
                    // sums them with its input and rounds once to F.
                    let p0 = el(x, 0, t1) * el(y, 0, t2);
                    let p1 = el(x, 1, t1) * el(y, 1, t2);
                    let (s, e) = two_sum(p0, p1);
                    let (s, e2) = two_sum(s, acc);
                    let f = round_f32(s, e + e2, Rounding::NearestEven);
                    acc = f64::from(f32::from_bits(fp::flush32(f.to_bits())));
                }
                (acc as f32).to_bits()
            } else {
                let mut acc = acc0;
                for k in 0..8 {
                    let (x, y) = (a(k), b(k));
                    for i in 0..4 {
                        let byte = |v: u32, ty: Type| -> i32 {
                            let b = (v >> (8 * i)) as u8;
                            if ty == Type::B {
                                i32::from(b as i8)
                            } else {
                                i32::from(b)
                            }
                        };
                        acc = acc.wrapping_add(byte(x, t1).wrapping_mul(byte(y, t2)) as u32);
                    }
                }
                acc
            };
        }
    }
    for (r, row) in out.iter().enumerate().take(rep) {
        for (n, v) in row.iter().enumerate() {
            t.store32(dst + (r * 8 + n) * 4, *v);
        }
    }
    Ok(())
}
