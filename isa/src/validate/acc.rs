//! Explicit accumulator operands: which slot, which accumulator, source
//! modifiers, the instructions that take none, wide execution and
//! swizzles.

use alloc::format;
use alloc::vec::Vec;

use super::facts;
use super::{Check, Operand, Rule, Severity};
use crate::generation::IsaGen;
use crate::inst::{AccessMode, Opcode, RegSrc, Region, Src, Swizzle, Type};

pub(super) fn check(c: &mut Check<'_>) {
    let p = c.p;
    let ops = facts::operands(p, c.inst);
    let Some(d) = ops.dst else { return };
    let dst_acc = acc_nr(p, d.file, d.addr);
    let srcs: Vec<(Operand, RegSrc, u8)> = ops
        .srcs
        .iter()
        .filter_map(|&(slot, s)| match s {
            Src::Reg(r) => acc_nr(p, r.file, r.addr).map(|n| (slot, *r, n)),
            _ => None,
        })
        .collect();
    for (slot, _, n) in &srcs {
        if *slot != Operand::Src0 {
            c.error(
                Rule::AccSourceSlot,
                Some(*slot),
                format!("acc{n} as {slot}; an explicit accumulator source must be src0"),
            );
        }
        if let Some(dn) = dst_acc
            && dn != *n
        {
            c.error(
                Rule::AccMismatch,
                Some(*slot),
                format!(
                    "source acc{n} with destination acc{dn}; source and destination may not name \
                     different accumulators"
                ),
            );
        }
    }
    modifiers(c, &srcs);
    per_opcode(c, dst_acc.is_some(), &srcs, &ops);
    wide(c, dst_acc, &srcs, &ops);
    if facts::gen4(p) && dst_acc.is_some() && c.inst.saturate {
        c.error(
            Rule::AccSaturate,
            Some(Operand::Dst),
            "saturation into an accumulator; .sat is not allowed with an accumulator destination",
        );
    }
    swizzles(c, &srcs, &ops);
}

/// The accumulator number (0 or 1) of a direct accumulator operand.
fn acc_nr(p: IsaGen, file: crate::inst::RegFile, addr: crate::inst::Addr) -> Option<u8> {
    match addr {
        crate::inst::Addr::Direct { nr, .. } if facts::is_acc(p, file, addr) => Some(nr & 0xF),
        _ => None,
    }
}

fn modifiers(c: &mut Check<'_>, srcs: &[(Operand, RegSrc, u8)]) {
    let op = c.inst.opcode;
    let logic = matches!(op, Opcode::And | Opcode::Or | Opcode::Xor | Opcode::Not);
    let cmp = matches!(op, Opcode::Cmp);
    for (slot, r, n) in srcs {
        if !(r.negate || r.abs) {
            continue;
        }
        let cite = if facts::gen4(c.p) {
            "000 line 7709"
        } else if logic {
            "003 lines 96766, 99805, 99893, 101516"
        } else if cmp && c.p == IsaGen::Gen6 {
            "003 line 97393"
        } else {
            continue;
        };
        c.push(
            Rule::AccSourceModifier,
            Some(*slot),
            Severity::Error,
            Some(cite),
            format!(
                "acc{n} with a source modifier; modifiers on an accumulator source are not \
                 allowed here (hardware ignores them)"
            ),
        );
    }
}

/// Instructions whose pages forbid accumulator sources (`src`) or
/// destinations (`dst`), with the lines (Gen4, Gen6).
fn forbidden(op: Opcode, p: IsaGen) -> Option<(bool, bool, &'static str)> {
    let g4 = facts::gen4(p);
    let pick = |a: &'static str, b: &'static str| if g4 { a } else { b };
    Some(match op {
        Opcode::Dp2 => (true, false, pick("000 line 11382", "003 line 97661")),
        Opcode::Dp3 => (true, false, pick("000 line 11438", "003 line 97745")),
        Opcode::Dp4 => (true, false, pick("000 line 11495", "003 line 97826")),
        Opcode::Dph => (true, false, pick("000 line 11552", "003 line 97907")),
        Opcode::Line => (true, false, pick("000 line 12027", "003 line 98721")),
        Opcode::Pln => (true, false, pick("000 line 12728", "003 line 99993")),
        Opcode::Sad2 => (true, false, pick("000 line 13186", "003 line 100547")),
        Opcode::Sada2 => (true, false, pick("000 line 13240", "003 line 100632")),
        Opcode::Mul => (true, false, pick("000 line 12503", "003 line 99678")),
        Opcode::Mac => (true, false, pick("000 line 12127", "003 line 98945")),
        Opcode::Mach => (true, false, pick("000 line 12194", "003 line 99047")),
        Opcode::Frc => (true, true, pick("000 line 11746", "003 line 98316")),
        Opcode::Rndd => (true, true, pick("000 line 12893", "003 line 100170")),
        Opcode::Rndu => (true, true, "000 line 12977"),
        Opcode::Rnde => (true, true, "000 line 13058"),
        Opcode::Rndz => (true, true, "000 line 13137"),
        Opcode::Asr => (false, true, "000 line 10989"),
        Opcode::Lzd => (false, true, pick("000 line 12082", "003 line 98806")),
        Opcode::Shl if !g4 => (false, true, "003 line 101153"),
        // Sandy Bridge only: Ivy Bridge removes it (001 line 654).
        Opcode::Sel if p == IsaGen::Gen6 => (true, true, "003 lines 100757, 100766"),
        _ => return None,
    })
}

fn per_opcode(
    c: &mut Check<'_>,
    dst_acc: bool,
    srcs: &[(Operand, RegSrc, u8)],
    ops: &facts::Operands<'_>,
) {
    let op = c.inst.opcode;
    let m = op.mnemonic();
    if let Some((no_src, no_dst, cite)) = forbidden(op, c.p) {
        if no_src && let Some((slot, _, n)) = srcs.first() {
            c.push(
                Rule::AccOperand,
                Some(*slot),
                Severity::Error,
                Some(cite),
                format!("{m} cannot take an accumulator source (acc{n})"),
            );
        }
        if no_dst && dst_acc {
            c.push(
                Rule::AccOperand,
                Some(Operand::Dst),
                Severity::Error,
                Some(cite),
                format!("{m} cannot write an accumulator destination"),
            );
        }
    }
    if op == Opcode::Mov && dst_acc && !srcs.is_empty() {
        c.push(
            Rule::AccOperand,
            Some(Operand::Src0),
            Severity::Error,
            Some(if facts::gen4(c.p) {
                "000 line 12236"
            } else {
                "003 line 99408"
            }),
            "mov from an accumulator into an accumulator; it may be src0 or dst, not both",
        );
    }
    let int = ops
        .srcs
        .iter()
        .any(|(_, s)| facts::src_type(s).is_some_and(|t| !t.is_float()));
    if c.p == IsaGen::Gen6
        && matches!(op, Opcode::Cmp | Opcode::Cmpn)
        && int
        && let Some((slot, _, n)) = srcs.first()
    {
        c.push(
            Rule::AccOperand,
            Some(*slot),
            Severity::Error,
            Some("003 lines 97396, 97494"),
            format!("integer {m} reading acc{n}: Sandy Bridge integer compares cannot read the accumulator"),
        );
    }
}

/// Compressed or SIMD16 dword instructions and explicit accumulators.
fn wide(
    c: &mut Check<'_>,
    dst_acc: Option<u8>,
    srcs: &[(Operand, RegSrc, u8)],
    ops: &facts::Operands<'_>,
) {
    let any: Vec<(Operand, u8)> = dst_acc
        .map(|n| (Operand::Dst, n))
        .into_iter()
        .chain(srcs.iter().map(|(s, _, n)| (*s, *n)))
        .collect();
    let Some(&(slot, _)) = any.first() else {
        return;
    };
    let dword = ops.dst.is_some_and(|d| d.ty.size() == 4)
        || ops
            .srcs
            .iter()
            .any(|(_, s)| facts::src_type(s).is_some_and(|t| t.size() == 4 && t != Type::V));
    let acc1 = any.iter().find(|(_, n)| *n == 1).map(|(s, _)| *s);
    if facts::gen4(c.p) {
        if facts::compressed(c.inst)
            && let Some(s) = acc1
        {
            c.error(
                Rule::AccWideExec,
                Some(s),
                "acc1 in a compressed instruction; name acc0, the second half uses acc1 itself",
            );
        }
        return;
    }
    if c.inst.exec_size < 16 || !dword {
        return;
    }
    if c.p == IsaGen::Gen7 {
        c.error(
            Rule::AccWideExec,
            Some(slot),
            "SIMD16 on dwords with an explicit accumulator; Ivy Bridge does not allow it, \
                 split into SIMD8 halves",
        );
    } else if let Some(s) = acc1 {
        c.error(
            Rule::AccWideExec,
            Some(s),
            "acc1 in a SIMD16 dword instruction; name acc0, which covers both halves",
        );
    }
}

/// Gen6+: no swizzle with an explicit or implicit accumulator source.
fn swizzles(c: &mut Check<'_>, srcs: &[(Operand, RegSrc, u8)], ops: &facts::Operands<'_>) {
    if facts::gen4(c.p) || c.inst.access_mode != AccessMode::Align16 {
        return;
    }
    let swizzled = |r: &RegSrc| matches!(r.region, Region::Align16 { swizzle, .. } if swizzle != Swizzle::XYZW);
    for (slot, r, n) in srcs {
        if swizzled(r) {
            c.error(
                Rule::AccSwizzle,
                Some(*slot),
                format!("acc{n} with a swizzle; accumulator sources are read unswizzled (.xyzw)"),
            );
        }
    }
    let implicit = matches!(c.inst.opcode, Opcode::Mac | Opcode::Mach | Opcode::Sada2);
    if !implicit {
        return;
    }
    for &(slot, s) in &ops.srcs {
        if let Src::Reg(r) = s
            && swizzled(r)
        {
            c.error(
                Rule::AccSwizzle,
                Some(slot),
                format!(
                    "{} reads the accumulator implicitly, so its sources may not be swizzled",
                    c.inst.opcode.mnemonic()
                ),
            );
        }
    }
}
