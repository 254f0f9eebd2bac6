//! Type rules of Gen12.5: the types each instruction's entry in 004 lists
//! ("Src Types / Dst Types"), and DG2's missing 64-bit arithmetic. iga64
//! -p=12p71 accepts every type on every opcode (`and` on `:f`, `math` on
//! `:d`, `add` on `:q`), so these are warnings.

use alloc::format;

use crate::inst::{Body, Opcode, Src, Type};
use crate::validate::{Check, Operand, Rule, Severity};

/// Integer-only (`*B,*W,*D` or narrower) and float-only (F, HF) opcodes,
/// with the line of their types table in 004.
const INTEGER: [(Opcode, u32); 21] = [
    (Opcode::Addc, 6341),
    (Opcode::Add3, 6171),
    (Opcode::Asr, 6522),
    (Opcode::Avg, 8136),
    (Opcode::Bfe, 10542),
    (Opcode::Bfi1, 10710),
    (Opcode::Bfi2, 10874),
    (Opcode::Bfrev, 11038),
    (Opcode::Bfn, 11211),
    (Opcode::Cbit, 13435),
    (Opcode::Dp4a, 13626),
    (Opcode::Fbl, 15527),
    (Opcode::Fbh, 15730),
    (Opcode::And, 19759),
    (Opcode::Not, 19915),
    (Opcode::Or, 20079),
    (Opcode::Xor, 20258),
    (Opcode::Mach, 30019),
    (Opcode::Rol, 31915),
    (Opcode::Ror, 32083),
    (Opcode::Subb, 34999),
];

const FLOAT: [(Opcode, u32); 6] = [
    (Opcode::Frc, 15872),
    (Opcode::Rndd, 32246),
    (Opcode::Rnde, 32400),
    (Opcode::Rndz, 32544),
    (Opcode::Rndu, 32673),
    (Opcode::Math, 15272),
];

/// The typed operands of an instruction: destination and sources (sends,
/// syncs and branches have none the type tables speak of).
fn typed(body: &Body) -> alloc::vec::Vec<(Operand, Type)> {
    let src = |s: &Src| match s {
        Src::Reg(r) => Some(r.ty),
        Src::Imm(m) => Some(m.ty),
        Src::Vacant(_) => None,
    };
    let mut out = alloc::vec::Vec::new();
    let (dst, srcs): (_, &[Src]) = match body {
        Body::Alu(a) => (a.dst, &[a.src0, a.src1][..]),
        Body::Math(m) => (m.dst, &[m.src0, m.src1][..]),
        Body::ThreeSrc(t) => (t.dst, &t.src[..]),
        Body::Bfn(b) => (b.dst, &b.src[..]),
        _ => return out,
    };
    out.push((Operand::Dst, dst.ty));
    let slots = [Operand::Src0, Operand::Src1, Operand::Src2];
    for (k, s) in srcs.iter().enumerate() {
        if let Some(t) = src(s) {
            out.push((slots[k], t));
        }
    }
    out
}

pub(super) fn check(c: &mut Check) {
    let i = c.inst;
    if matches!(i.opcode, Opcode::Nop | Opcode::Illegal) {
        return;
    }
    let ops = typed(&i.body);
    // A one-source instruction's src1 slot is not read.
    let ops: alloc::vec::Vec<_> = ops
        .into_iter()
        .filter(|(at, _)| !(*at == Operand::Src1 && one_source(i.opcode)))
        .collect();
    for &(at, t) in &ops {
        if matches!(t, Type::Df | Type::Q | Type::Uq) {
            c.push(
                Rule::XeOpcodeTypes,
                Some(at),
                Severity::Warning,
                Some(
                    "[ext: Mesa intel_device_info.c XEHP_FEATURES has_64bit_float = false, \
                     has_64bit_int = false; brw_eu_validate.c]",
                ),
                format!(
                    ":{}: DG2 has no 64-bit float or integer arithmetic (iga64 accepts it)",
                    t.name()
                ),
            );
        }
    }
    // Gen11+: no byte regioning for src1 (src1 and src2 of three-source
    // instructions but dpas, whose bytes are packed dwords).
    let byte_slots: &[Operand] = match &i.body {
        Body::Alu(_) if !one_source(i.opcode) => &[Operand::Src1],
        Body::ThreeSrc(_) | Body::Bfn(_) => &[Operand::Src1, Operand::Src2],
        _ => &[],
    };
    for &(at, t) in &ops {
        if byte_slots.contains(&at) && matches!(t, Type::B | Type::Ub) {
            c.push(
                Rule::XeByteSource,
                Some(at),
                Severity::Warning,
                Some("[ext: Mesa brw_eu_validate.c general_restrictions_based_on_operand_types, Gfx11+]"),
                format!(":{}: byte regioning is not supported in this source (iga64 accepts it)", t.name()),
            );
        }
    }
    let table = |list: &[(Opcode, u32)]| list.iter().find(|e| e.0 == i.opcode).map(|e| e.1);
    if let Some(line) = table(&INTEGER) {
        for &(at, t) in &ops {
            if t.is_float() {
                c.push(
                    Rule::XeOpcodeTypes,
                    Some(at),
                    Severity::Warning,
                    Some(&format!("004 line {line}")),
                    format!(
                        ":{}: {} takes integer types only (iga64 accepts it)",
                        t.name(),
                        i.opcode.mnemonic()
                    ),
                );
            }
        }
    }
    if let Some(line) = table(&FLOAT) {
        for &(at, t) in &ops {
            if !matches!(t, Type::F | Type::Hf | Type::Vf) && !matches!(t, Type::Df) {
                c.push(
                    Rule::XeOpcodeTypes,
                    Some(at),
                    Severity::Warning,
                    Some(&format!("004 line {line}")),
                    format!(
                        ":{}: {} takes F or HF only (iga64 accepts it)",
                        t.name(),
                        i.opcode.mnemonic()
                    ),
                );
            }
        }
    }
}

/// How many sources a one- or two-source opcode reads.
pub(super) fn sources(op: Opcode) -> usize {
    if one_source(op) { 1 } else { 2 }
}

/// One-source opcodes (their src1 slot is not read).
fn one_source(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Mov
            | Opcode::Not
            | Opcode::Bfrev
            | Opcode::Cbit
            | Opcode::Fbl
            | Opcode::Fbh
            | Opcode::Frc
            | Opcode::Rndd
            | Opcode::Rnde
            | Opcode::Rndz
            | Opcode::Rndu
            | Opcode::Lzd
            | Opcode::Movi
    )
}
