//! f32to16 and f16to32 (Ivy Bridge), movi (G45+), dim (Haswell).

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{Opcode, Type};

use super::cond_flags;
use crate::eu::decoded::{Next, Op};
use crate::eu::error::ErrorKind;
use crate::eu::fp;
use crate::eu::operand::{MAX_CH, SrcKind, read, write};
use crate::eu::thread::Thread;
use crate::eu::thread::layout::{GRF_BASE, GRF_REGS, REG_BYTES};

/// f32to16 / f16to32: conversion between F and the half float in the low
/// 16 bits of a word or dword (001 lines 665-666 list them; layout [ext:
/// Mesa src/intel/compiler/brw_fs_generator.cpp generate F32TO16 with a
/// W or UD destination]). Half denormals are kept (001 line 1333).
pub fn half(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let ctl = &op.ctl;
    let n = usize::from(ctl.exec);
    let en = t.enables(ctl, op.ip) & t.pmask(ctl);
    let raw_src = read::raw(t, &op.src[0], n, en)?;
    let mut raw = [0u64; MAX_CH];
    for c in 0..n {
        raw[c] = match op.inst.opcode {
            Opcode::F32to16 => {
                let mut b = raw_src[c] as u32;
                if op.src[0].mods.abs {
                    b &= 0x7FFF_FFFF;
                }
                if op.src[0].mods.neg {
                    b ^= 0x8000_0000;
                }
                u64::from(fp::f32_to_f16(f32::from_bits(b), t.fp.rounding))
            }
            _ => {
                let mut h = raw_src[c] as u16;
                if op.src[0].mods.abs {
                    h &= 0x7FFF;
                }
                if op.src[0].mods.neg {
                    h ^= 0x8000;
                }
                let mut b = fp::f16_to_f32(h).to_bits();
                if ctl.sat {
                    b = fp::saturate32(b);
                }
                u64::from(b)
            }
        } & fp::size_mask(op.dst.ty);
    }
    write::store(t, &op.dst, n, 1, en, &raw)?;
    cond_flags(t, op, en, &raw, 0, 0);
    Ok(Next::Fall)
}

/// movi: every channel reads from the one GRF register a0.0 (+ offset)
/// names, at the sub-register its own a0.n gives, aligned to the element
/// size (003 lines 99418-99537; 000 lines 12242-12325).
pub fn movi(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    if t.platform == IsaGen::Gen4 {
        return Err(ErrorKind::IllegalOpcode);
    }
    let ctl = &op.ctl;
    let n = usize::from(ctl.exec).min(8);
    let en = t.enables(ctl, op.ip) & t.pmask(ctl);
    let SrcKind::Indirect(ind) = &op.src[0].kind else {
        return Err(ErrorKind::BadOperand("movi needs an indirect source"));
    };
    let size = usize::from(op.src[0].ty.size());
    let imm = i32::from(ind.imm);
    let addr = |i: usize| t.a0(i) as i32 + imm;
    let base = addr(0);
    let reg = (base >> 5) as usize;
    if base < 0 || reg >= GRF_REGS {
        return Err(ErrorKind::IndirectOutOfRange { addr: base });
    }
    let mut raw = [0u64; MAX_CH];
    for (c, r) in raw.iter_mut().enumerate().take(n) {
        let sub = (addr(c) as usize & 0x1F) & !(size - 1);
        *r = t.load(GRF_BASE + reg * REG_BYTES + sub, size);
    }
    write::store(t, &op.dst, n, 1, en, &raw)?;
    Ok(Next::Fall)
}

/// dim: a DF immediate to a DF destination (Haswell; [ext: Mesa
/// src/intel/compiler/brw_eu_emit.c brw_DIM, "Move a double immediate"]).
pub fn dim(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let ctl = &op.ctl;
    let n = usize::from(ctl.exec);
    let en = t.enables(ctl, op.ip) & t.pmask(ctl);
    let src = read::raw(t, &op.src[0], n, en)?;
    let mut raw = [0u64; MAX_CH];
    for c in 0..n {
        let v = f64::from_bits(src[c]);
        raw[c] = match op.dst.ty {
            Type::Df => src[c],
            Type::F => u64::from(fp::f64_to_f32(v).to_bits()),
            ty => fp::float_to_int(v, ty).0,
        };
    }
    write::store(t, &op.dst, n, 1, en, &raw)?;
    Ok(Next::Fall)
}
