//! Mixed-float, vector-immediate and destination-span rules of the one-
//! and two-source forms, from Mesa's `brw_eu_validate.c`
//! (`special_restrictions_for_mixed_float_mode`, `vector_immediate_restrictions`,
//! `region_alignment_rules`), which applies them to Xe-HPG (Align1 only
//! here: Xe-HPG has no Align16). iga64 -p=12p71 accepts every breaking
//! form, so they are warnings.

use alloc::format;

use super::GRF;
use crate::inst::{Addr, Body, Dst, Opcode, RegFile, Src, Type};
use crate::validate::{Check, Operand, Rule, Severity};

const MIXED: &str = "[ext: Mesa brw_eu_validate.c special_restrictions_for_mixed_float_mode]";

fn is_acc(s: &Src) -> bool {
    matches!(s, Src::Reg(r) if r.file == RegFile::Arf
        && matches!(r.addr, Addr::Direct { nr, .. } if nr & 0xF0 == 0x20))
}

fn is_null(d: &Dst) -> bool {
    d.file == RegFile::Arf && matches!(d.addr, Addr::Direct { nr: 0, .. })
}

pub(super) fn check(c: &mut Check) {
    let i = c.inst;
    let (dst, srcs, sources) = match &i.body {
        Body::Alu(a) => (a.dst, [a.src0, a.src1], super::types::sources(i.opcode)),
        Body::Math(m) => (
            m.dst,
            [m.src0, m.src1],
            if matches!(m.src1, Src::Vacant(_)) {
                1
            } else {
                2
            },
        ),
        _ => return,
    };
    if matches!(
        i.opcode,
        Opcode::Nop | Opcode::Illegal | Opcode::Jmpi | Opcode::Sync
    ) {
        return;
    }
    let srcs = &srcs[..sources];
    let ty = |s: &Src| match s {
        Src::Reg(r) => Some(r.ty),
        Src::Imm(m) => Some(m.ty),
        Src::Vacant(_) => None,
    };
    let types: alloc::vec::Vec<Type> = srcs.iter().filter_map(ty).collect();
    let exec = u32::from(i.exec_size);
    let warn = |c: &mut Check, rule, at, cite: &str, what: alloc::string::String| {
        c.push(
            rule,
            at,
            Severity::Warning,
            Some(cite),
            format!("{what} (iga64 accepts it)"),
        );
    };
    // Destination span: at most two registers.
    if !is_null(&dst)
        && let Addr::Direct { subnr, .. } = dst.addr
    {
        let end = (exec - 1) * u32::from(dst.hstride) * u32::from(dst.ty.size()) + u32::from(subnr);
        if end >= 2 * GRF {
            warn(
                c,
                Rule::XeDstSpan,
                Some(Operand::Dst),
                "[ext: Mesa brw_eu_validate.c region_alignment_rules]",
                format!("the destination reaches byte {end}: it spans more than two registers"),
            );
        }
    }
    // Vector immediates: a 16-byte aligned destination, word-strided for
    // V/UV, dword-strided for VF.
    if let Some(Src::Imm(m)) = srcs.last()
        && matches!(m.ty, Type::V | Type::Uv | Type::Vf)
        && let Addr::Direct { subnr, .. } = dst.addr
    {
        let want = if m.ty == Type::Vf { 4 } else { 2 };
        let stride = u32::from(dst.hstride) * u32::from(dst.ty.size());
        if subnr % 16 != 0 || stride != want {
            warn(
                c,
                Rule::XeVectorImmediate,
                Some(Operand::Dst),
                "[ext: Mesa brw_eu_validate.c vector_immediate_restrictions]",
                format!(
                    "a :{} immediate needs a 16-byte aligned destination with a {want}-byte stride, not byte {subnr} with {stride}",
                    m.ty.name()
                ),
            );
        }
    }
    let mixed = |a: Type, b: Type| matches!((a, b), (Type::F, Type::Hf) | (Type::Hf, Type::F));
    let is_mixed =
        types.iter().any(|t| mixed(*t, dst.ty)) || (types.len() == 2 && mixed(types[0], types[1]));
    if !is_mixed {
        return;
    }
    let slots = [Operand::Src0, Operand::Src1];
    for (k, s) in srcs.iter().enumerate() {
        if let Src::Reg(r) = s
            && matches!(r.addr, Addr::Indirect { .. })
        {
            warn(
                c,
                Rule::XeMixedFloat,
                Some(slots[k]),
                MIXED,
                "an indirect source in mixed float".into(),
            );
        }
    }
    if exec > 8 && dst.ty == Type::F && i.opcode != Opcode::Mov {
        warn(
            c,
            Rule::XeMixedFloat,
            None,
            MIXED,
            format!("mixed float with an F destination at SIMD{exec}; at most SIMD8"),
        );
    }
    let packed_hf = dst.ty == Type::Hf && dst.hstride == 1;
    if packed_hf {
        if let Addr::Direct { subnr, .. } = dst.addr
            && subnr % 16 != 0
        {
            warn(
                c,
                Rule::XeMixedFloat,
                Some(Operand::Dst),
                MIXED,
                format!("packed HF output at byte {subnr}; it must be 16-byte aligned"),
            );
        }
        if exec > 8 {
            warn(
                c,
                Rule::XeMixedFloat,
                Some(Operand::Dst),
                MIXED,
                format!("packed HF output at SIMD{exec}; at most SIMD8"),
            );
        }
        for (k, s) in srcs.iter().enumerate() {
            if is_acc(s)
                && let Src::Reg(r) = s
                && let Addr::Direct { subnr, .. } = r.addr
                && subnr != 0
            {
                warn(
                    c,
                    Rule::XeMixedFloat,
                    Some(slots[k]),
                    MIXED,
                    "an accumulator source not at its register's start with a packed HF output"
                        .into(),
                );
            }
        }
    }
    if i.opcode == Opcode::Math {
        for (k, s) in srcs.iter().enumerate() {
            if let Src::Reg(r) = s
                && r.ty == Type::Hf
                && let crate::inst::Region::Align1 { hstride, .. } = r.region
                && hstride <= 1
            {
                warn(
                    c,
                    Rule::XeMixedFloat,
                    Some(slots[k]),
                    MIXED,
                    "mixed-float math needs strided HF inputs".into(),
                );
            }
        }
    }
    let acc_src = srcs.iter().any(is_acc) || matches!(i.opcode, Opcode::Mac | Opcode::Mach);
    if dst.ty == Type::Hf && acc_src && dst.hstride != 2 {
        warn(
            c,
            Rule::XeMixedFloat,
            Some(Operand::Dst),
            MIXED,
            "an HF destination with an accumulator source needs stride 2".into(),
        );
    }
}
