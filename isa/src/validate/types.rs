//! Operand types: which types exist per generation, mixed float/integer
//! sources, the types each instruction accepts, and immediates (placement,
//! word replication, vector immediates).

use super::facts::{self, Operands};
use super::{Check, Operand, Rule, Severity};
use crate::generation::IsaGen;
use crate::inst::{AccessMode, Addr, Body, Dst, Opcode, RegFile, Src, Type};
use crate::tables::{self, code_of};
use alloc::format;

pub(super) fn check(c: &mut Check<'_>) {
    existing_types(c);
    let ops = facts::operands(c.p, c.inst);
    if ops.dst.is_none() {
        return;
    }
    mixed(c, &ops);
    immediates(c, &ops);
    opcode_types(c, &ops);
}

/// Register and immediate type codes the platform defines.
fn existing_types(c: &mut Check<'_>) {
    let t = tables::for_platform(c.p);
    let dst = c.inst.dst().copied();
    if let Some(d) = dst
        && d.file != RegFile::Imm
        && code_of(&t.reg_types, d.ty).is_none()
    {
        c.error(
            Rule::RegisterType,
            Some(Operand::Dst),
            format!(
                "{} is typed :{}, which is not a register type on {}",
                facts::dst_text(c.p, &d),
                d.ty.name(),
                c.p
            ),
        );
    }
    let slots = [Operand::Src0, Operand::Src1, Operand::Src2];
    let srcs = c.inst.srcs();
    for (slot, src) in slots.iter().zip(srcs) {
        match src {
            Some(Src::Reg(r)) if code_of(&t.reg_types, r.ty).is_none() => {
                let text = facts::src_text(c.p, &Src::Reg(*r));
                c.error(
                    Rule::RegisterType,
                    Some(*slot),
                    format!("{text}: :{} is not a register type on {}", r.ty.name(), c.p),
                );
            }
            Some(Src::Imm(i)) => {
                // Haswell's dim alone carries a 64-bit DF immediate
                // [ext: Mesa brw_inst.h brw_inst_set_imm_df].
                let dim_df =
                    c.p == IsaGen::Gen75 && c.inst.opcode == Opcode::Dim && i.ty == Type::Df;
                if code_of(&t.imm_types, i.ty).is_none() && !dim_df {
                    c.error(
                        Rule::ImmediateType,
                        Some(*slot),
                        format!(
                            "an immediate of type :{} does not exist on {}; immediates are \
                             ud, d, uw, w, f, v, vf{}",
                            i.ty.name(),
                            c.p,
                            if facts::gen4(c.p) { "" } else { ", uv" }
                        ),
                    );
                }
            }
            _ => {}
        }
    }
}

/// Gen6+: no float/integer source mix; Gen4: no float with a dword integer
/// in the instructions whose pages say so.
fn mixed(c: &mut Check<'_>, ops: &Operands<'_>) {
    let tys: alloc::vec::Vec<Type> = ops
        .srcs
        .iter()
        .filter_map(|(_, s)| facts::src_type(s))
        .collect();
    let float = tys.iter().any(|t| t.is_float());
    if !float {
        return;
    }
    if facts::gen4(c.p) {
        let listed = matches!(
            c.inst.opcode,
            Opcode::Add | Opcode::Mul | Opcode::Cmp | Opcode::Cmpn | Opcode::Line
        );
        if listed && tys.iter().any(|t| matches!(t, Type::D | Type::Ud)) {
            c.error(
                Rule::MixedTypes,
                None,
                format!(
                    "a float source with a dword integer source; {} allows a float only with \
                     float, word or byte sources",
                    c.inst.opcode.mnemonic()
                ),
            );
        }
        return;
    }
    // line's own page allows a float src0 with a byte or word src1 (003
    // line 98718, 000 line 12025); that is the narrower rule.
    if c.inst.opcode == Opcode::Line {
        return;
    }
    if tys.iter().any(|t| !t.is_float()) {
        c.error(
            Rule::MixedTypes,
            None,
            format!(
                "float and integer sources in one instruction ({}); convert one of them with \
                 mov first",
                tys.iter()
                    .map(|t| t.name())
                    .collect::<alloc::vec::Vec<_>>()
                    .join(", ")
            ),
        );
    }
}

/// Placement, word replication and vector-immediate rules.
fn immediates(c: &mut Check<'_>, ops: &Operands<'_>) {
    let n = ops.srcs.len();
    for (i, &(slot, src)) in ops.srcs.iter().enumerate() {
        let Src::Imm(imm) = src else { continue };
        if i + 1 < n && !matches!(c.inst.body, Body::ThreeSrc(_)) {
            c.error(
                Rule::ImmediatePlacement,
                Some(slot),
                format!(
                    "an immediate in {slot} of a {n}-source instruction; only the last source \
                     (src1) may be an immediate: swap the operands or load it with mov"
                ),
            );
        }
        if matches!(imm.ty, Type::W | Type::Uw) {
            let (low, high) = (imm.bits & 0xFFFF, (imm.bits >> 16) & 0xFFFF);
            if low != high {
                c.error(
                    Rule::WordImmediate,
                    Some(slot),
                    format!(
                        "word immediate {:#010x}: the high half {high:#06x} differs from the low \
                         half {low:#06x}; a W/UW immediate repeats its value in both halves",
                        imm.bits
                    ),
                );
            }
        }
        if matches!(imm.ty, Type::V | Type::Uv | Type::Vf)
            && let Some(d) = ops.dst
        {
            vector_dst(c, slot, imm.ty, d);
            if matches!(imm.ty, Type::V | Type::Uv) && slot == Operand::Src1 {
                let src0 = ops.srcs.first().and_then(|(_, s)| facts::src_type(s));
                if let Some(t0) = src0
                    && t0.size() > 2
                {
                    c.error(
                        Rule::VectorImmediatePackedWord,
                        Some(slot),
                        format!(
                            ":{} immediates run in packed-word mode; src0 is :{}, it must be b, \
                             ub, w or uw",
                            imm.ty.name(),
                            t0.name()
                        ),
                    );
                }
            }
        }
    }
}

/// A vector immediate's destination: 16-byte aligned, word (V/UV) or dword
/// (VF) stride.
fn vector_dst(c: &mut Check<'_>, slot: Operand, ty: Type, d: &Dst) {
    if facts::is_null(d.file, d.addr) {
        return;
    }
    let text = facts::dst_text(c.p, d);
    if let Addr::Direct { subnr, .. } = d.addr
        && subnr % 16 != 0
    {
        c.error(
            Rule::VectorImmediateDst,
            Some(Operand::Dst),
            format!(
                "{text} starts at byte {subnr}; with a :{} immediate in {slot} the destination \
                 must be 16-byte aligned",
                ty.name()
            ),
        );
    }
    // Align16 has no destination stride to check.
    if c.inst.access_mode == AccessMode::Align16 {
        return;
    }
    let want = if ty == Type::Vf { 4 } else { 2 };
    let stride = u32::from(d.hstride) * u32::from(d.ty.size());
    if stride != want {
        c.error(
            Rule::VectorImmediateDst,
            Some(Operand::Dst),
            format!(
                "{text} has a {stride}-byte stride; a :{} immediate needs a {want}-byte \
                 destination stride",
                ty.name()
            ),
        );
    }
}

/// What an instruction accepts for a group of operands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    Any,
    Int,
    Float,
    NoDword,
    DwordInt,
    Ud,
    Bytes,
    Words,
}

impl Want {
    fn accepts(self, t: Type) -> bool {
        match self {
            Want::Any => true,
            Want::Int => !t.is_float(),
            Want::Float => t.is_float(),
            Want::NoDword => !matches!(t, Type::D | Type::Ud),
            Want::DwordInt => matches!(t, Type::D | Type::Ud),
            Want::Ud => t == Type::Ud,
            Want::Bytes => matches!(t, Type::B | Type::Ub),
            Want::Words => matches!(t, Type::W | Type::Uw),
        }
    }

    fn text(self) -> &'static str {
        match self {
            Want::Any => "any type",
            Want::Int => "integer types",
            Want::Float => "float types",
            Want::NoDword => "no dword integers",
            Want::DwordInt => "d or ud",
            Want::Ud => "ud",
            Want::Bytes => "b or ub",
            Want::Words => "w or uw",
        }
    }
}

/// (sources, destination, Gen4 citation, Gen6+ citation) per instruction.
fn table(op: Opcode, p: IsaGen) -> Option<(Want, Want, &'static str)> {
    use Want::*;
    let g4 = facts::gen4(p);
    let pick = |a: &'static str, b: &'static str| if g4 { a } else { b };
    Some(match op {
        Opcode::And => (Int, Int, pick("000 line 10923", "003 line 96764")),
        Opcode::Or => (Int, Int, pick("000 line 12658", "003 line 99891")),
        Opcode::Xor => (Int, Int, pick("000 line 13727", "003 line 101514")),
        Opcode::Not => (Int, Int, pick("000 line 12607", "003 line 99798")),
        Opcode::Asr => (
            Int,
            Int,
            pick("000 lines 10981, 10987", "003 lines 96860, 96871"),
        ),
        Opcode::Avg => (Int, Int, pick("000 line 11031", "003 line 96931")),
        Opcode::Shl => (Int, Int, pick("000 line 13512", "003 line 101165")),
        Opcode::Shr => (Int, Int, pick("000 line 13558", "003 line 101233")),
        Opcode::Lzd => (
            DwordInt,
            Ud,
            pick("000 lines 12076-12078", "003 lines 98798-98802"),
        ),
        Opcode::Mac => (NoDword, Any, pick("000 line 12129", "003 line 98945")),
        Opcode::Mach => (
            DwordInt,
            DwordInt,
            pick("000 lines 12187-12190", "003 lines 99035-99041"),
        ),
        Opcode::Sad2 => (Bytes, Words, pick("000 line 13178", "003 line 100536")),
        Opcode::Sada2 => (Bytes, Words, pick("000 line 13232", "003 line 100614")),
        Opcode::Frc => (Float, Any, pick("000 line 11722", "003 line 98281")),
        Opcode::Rndd if g4 => (Float, Any, "000 line 12860"),
        Opcode::Rndd => (Float, Float, "003 line 100138"),
        Opcode::Rndu if g4 => (Float, Any, "000 line 12937"),
        Opcode::Rndu => (Float, Float, "003 line 100234"),
        Opcode::Rnde => (Float, Any, "000 line 13026 (003 repeats the Gen4 page)"),
        Opcode::Rndz => (Float, Any, "000 line 13105 (003 repeats the Gen4 page)"),
        Opcode::Dp2 => (Float, Any, pick("000 line 11386", "003 line 97665")),
        Opcode::Dp3 => (Float, Any, pick("000 line 11442", "003 line 97749")),
        Opcode::Dp4 => (Float, Any, pick("000 line 11499", "003 line 97830")),
        Opcode::Dph => (Float, Any, pick("000 line 11556", "003 line 97911")),
        Opcode::Pln => (Float, Any, "000 line 12726"),
        Opcode::Mad => (Float, Float, "003 line 99110"),
        Opcode::Lrp => (Float, Float, "003 line 98876"),
        Opcode::Bfe
        | Opcode::Bfi1
        | Opcode::Bfi2
        | Opcode::Bfrev
        | Opcode::Cbit
        | Opcode::Fbh
        | Opcode::Fbl
        | Opcode::Addc
        | Opcode::Subb => (
            Int,
            Int,
            "001 lines 646-650 name them bit and integer operations; types [ext: Mesa brw_eu.c]",
        ),
        _ => return None,
    })
}

fn opcode_types(c: &mut Check<'_>, ops: &Operands<'_>) {
    let op = c.inst.opcode;
    if let Some((src_want, dst_want, cite)) = table(op, c.p) {
        for &(slot, s) in &ops.srcs {
            if let Some(t) = facts::src_type(s)
                && !src_want.accepts(t)
            {
                c.push(
                    Rule::OpcodeTypes,
                    Some(slot),
                    Severity::Error,
                    Some(cite),
                    format!(
                        "{} is :{}; {} takes {} here",
                        facts::src_text(c.p, s),
                        t.name(),
                        op.mnemonic(),
                        src_want.text()
                    ),
                );
            }
        }
        if let Some(d) = ops.dst
            && !dst_want.accepts(d.ty)
        {
            c.push(
                Rule::OpcodeTypes,
                Some(Operand::Dst),
                Severity::Error,
                Some(cite),
                format!(
                    "{} is :{}; {} writes {} here",
                    facts::dst_text(c.p, d),
                    d.ty.name(),
                    op.mnemonic(),
                    dst_want.text()
                ),
            );
        }
    }
    special_types(c, ops);
}

/// Type rules that relate several operands.
fn special_types(c: &mut Check<'_>, ops: &Operands<'_>) {
    let op = c.inst.opcode;
    let tys: alloc::vec::Vec<(Operand, Type)> = ops
        .srcs
        .iter()
        .filter_map(|&(slot, s)| facts::src_type(s).map(|t| (slot, t)))
        .collect();
    let Some(d) = ops.dst else { return };
    let dword = |t: Type| matches!(t, Type::D | Type::Ud);
    let g4 = facts::gen4(c.p);
    match op {
        Opcode::Mach => {
            let signed_src = ops.srcs.iter().any(|(_, s)| {
                matches!(s, Src::Reg(r) if r.ty == Type::D && !r.abs)
                    || matches!(s, Src::Imm(i) if i.ty == Type::D)
            });
            let bad = (d.ty == Type::Ud && signed_src)
                || (d.ty == Type::D && tys.iter().any(|(_, t)| *t == Type::Ud));
            if bad {
                c.push(
                    Rule::OpcodeTypes,
                    Some(Operand::Dst),
                    Severity::Error,
                    Some(if g4 {
                        "000 lines 12189-12190"
                    } else {
                        "003 lines 99037-99041"
                    }),
                    format!(
                        "mach into :{} with sources {}: a ud destination needs ud sources (or d \
                         with (abs)), a d destination needs d sources",
                        d.ty.name(),
                        tys.iter()
                            .map(|(_, t)| t.name())
                            .collect::<alloc::vec::Vec<_>>()
                            .join(", ")
                    ),
                );
            }
        }
        Opcode::Mul
            if tys.iter().any(|(_, t)| dword(*t)) && !tys.iter().any(|(_, t)| t.is_float()) =>
        {
            if d.ty.is_float() {
                c.push(
                    Rule::OpcodeTypes,
                    Some(Operand::Dst),
                    Severity::Error,
                    Some(if g4 {
                        "000 line 12505"
                    } else {
                        "003 line 99681"
                    }),
                    format!(
                        "mul with a dword integer source writes :{}; its destination may not be \
                         float",
                        d.ty.name()
                    ),
                );
            }
            let word0 = tys
                .iter()
                .any(|(s, t)| *s == Operand::Src0 && t.size() == 2);
            let dword1 = tys.iter().any(|(s, t)| *s == Operand::Src1 && dword(*t));
            let word1 = tys
                .iter()
                .any(|(s, t)| *s == Operand::Src1 && t.size() == 2);
            let dword0 = tys.iter().any(|(s, t)| *s == Operand::Src0 && dword(*t));
            if c.p == IsaGen::Gen6 && dword0 && word1 && !(word0 && dword1) {
                c.push(
                    Rule::OpcodeTypes,
                    Some(Operand::Src0),
                    Severity::Error,
                    Some("003 line 99691"),
                    "mul of a dword src0 by a word src1; Sandy Bridge needs the word in src0 \
                         and the dword in src1",
                );
            }
        }
        Opcode::Movi if !g4 => {
            if let Some((_, t)) = tys.first()
                && *t != d.ty
            {
                c.push(
                    Rule::OpcodeTypes,
                    Some(Operand::Dst),
                    Severity::Error,
                    Some("003 line 99494"),
                    format!(
                        "movi from :{} to :{}; source and destination must have the same type",
                        t.name(),
                        d.ty.name()
                    ),
                );
            }
        }
        Opcode::Line => {
            for (slot, t) in &tys {
                let bad = match slot {
                    Operand::Src0 => !t.is_float(),
                    _ => dword(*t),
                };
                if bad {
                    c.push(
                        Rule::OpcodeTypes,
                        Some(*slot),
                        Severity::Error,
                        Some(if g4 {
                            "000 line 12025"
                        } else {
                            "003 lines 98718-98719"
                        }),
                        format!(
                            "line {slot} is :{}; src0 must be float, src1 float, byte or word",
                            t.name()
                        ),
                    );
                }
            }
        }
        _ => {}
    }
}
