//! Operand rules of Gen12.5: what each instruction's header in 004 allows
//! (predication, condition modifier, saturation, source modifiers), the
//! register numbers and the EOT payload's registers.

use super::GRF;
use crate::inst::{Addr, Body, CondMod, Dst, Opcode, PredCtrl, RegFile, Src};
use crate::validate::{Check, Operand, Rule, Severity};

/// What an instruction's entry in 004 allows: (opcode, predication,
/// condition modifier, saturation, source modifier, the header's line).
/// Opcodes not listed allow all four.
const HEADERS: [(Opcode, bool, bool, bool, bool, u32); 26] = [
    (Opcode::Addc, true, true, false, false, 6299),
    (Opcode::Bfe, true, false, false, false, 10488),
    (Opcode::Bfi1, true, false, false, false, 10674),
    (Opcode::Bfi2, true, false, false, false, 10834),
    (Opcode::Bfrev, true, false, false, false, 11004),
    (Opcode::Bfn, true, true, false, false, 11149),
    (Opcode::Cmp, true, true, false, true, 12443),
    (Opcode::Cmpn, true, true, false, true, 12582),
    (Opcode::Csel, false, true, true, true, 12990),
    (Opcode::Cbit, true, false, false, false, 13393),
    (Opcode::Dp4a, true, true, true, false, 13566),
    (Opcode::Dpas, false, false, false, false, 13765),
    (Opcode::Dpasw, false, false, false, false, 14080),
    (Opcode::Math, true, false, true, true, 15171),
    (Opcode::Fbl, true, false, false, false, 15479),
    (Opcode::Fbh, true, false, false, false, 15660),
    (Opcode::Frc, true, true, false, true, 15826),
    (Opcode::And, true, true, false, true, 19729),
    (Opcode::Not, true, true, false, true, 19881),
    (Opcode::Or, true, true, false, true, 20039),
    (Opcode::Xor, true, true, false, true, 20224),
    (Opcode::Mach, true, false, false, true, 29950),
    (Opcode::Rol, true, true, false, false, 31881),
    (Opcode::Ror, true, true, false, false, 32049),
    (Opcode::Subb, true, true, true, false, 34988),
    (Opcode::Sync, false, false, false, false, 35127),
];

/// The operands of the register-source forms.
fn operands(body: &Body) -> (Option<Dst>, [Option<Src>; 3]) {
    match body {
        Body::Alu(a) => (Some(a.dst), [Some(a.src0), Some(a.src1), None]),
        Body::Math(m) => (Some(m.dst), [Some(m.src0), Some(m.src1), None]),
        Body::ThreeSrc(t) => (Some(t.dst), t.src.map(Some)),
        Body::Bfn(b) => (Some(b.dst), b.src.map(Some)),
        Body::Dpas(d) => (Some(d.dst), d.src.map(Some)),
        Body::Send(s) => (Some(s.dst), [Some(s.src0), s.src1, None]),
        Body::Branch(_) | Body::Sync(_) => (None, [None; 3]),
    }
}

const SLOTS: [Operand; 3] = [Operand::Src0, Operand::Src1, Operand::Src2];

pub(super) fn check(c: &mut Check) {
    let i = c.inst;
    if let Some(&(_, pred, cmod, sat, smod, line)) = HEADERS.iter().find(|h| h.0 == i.opcode) {
        let cite = alloc::format!("004 line {line}");
        // iga64 -p=12p71 refuses a source modifier where the header says
        // none; it accepts the other three, so they are warnings.
        if !smod {
            let (_, srcs) = operands(&i.body);
            for (k, s) in srcs.iter().enumerate() {
                if let Some(Src::Reg(r)) = s
                    && (r.negate || r.abs)
                {
                    c.push(
                        Rule::XeModifier,
                        Some(SLOTS[k]),
                        Severity::Error,
                        Some(&cite),
                        "a source modifier; this instruction takes none",
                    );
                }
            }
        }
        if !sat && i.saturate {
            c.push(
                Rule::XeModifier,
                Some(Operand::Dst),
                Severity::Warning,
                Some(&cite),
                "saturation; this instruction has none (iga64 accepts it)",
            );
        }
        if !cmod && i.cond_mod != CondMod::None && !matches!(i.body, Body::Math(_)) {
            c.push(
                Rule::XeModifier,
                None,
                Severity::Warning,
                Some(&cite),
                "a condition modifier; this instruction has none (iga64 accepts it)",
            );
        }
        if !pred && i.pred_ctrl != PredCtrl::None && i.opcode != Opcode::Csel {
            c.push(
                Rule::XeModifier,
                None,
                Severity::Warning,
                Some(&cite),
                "predication; this instruction is not predicated (iga64 accepts it)",
            );
        }
    }
    registers(c);
}

/// DG2 has 128 GRFs: an operand past r127 (004 line 33186 names r112-r127
/// as the last sixteen; [ext: Mesa brw_eu_validate.c, which refuses
/// register numbers past the file]); iga64 accepts r128-r255, so a warning.
/// An EOT send's payload lies in r112-r127 (004 line 33186).
fn registers(c: &mut Check) {
    let i = c.inst;
    let exec = u32::from(i.exec_size.max(1));
    let (dst, srcs) = operands(&i.body);
    let mut spans: alloc::vec::Vec<(Operand, Option<(u32, u32)>)> = alloc::vec::Vec::new();
    if let Some(d) = dst
        && !matches!(i.body, Body::Send(_) | Body::Dpas(_))
    {
        spans.push((Operand::Dst, super::dst_span(&d, exec)));
    }
    if !matches!(i.body, Body::Send(_) | Body::Dpas(_)) {
        for (k, s) in srcs.iter().enumerate() {
            if let Some(s) = s {
                let three = matches!(i.body, Body::ThreeSrc(_) | Body::Bfn(_));
                spans.push((SLOTS[k], super::operand_span(s, exec, three)));
            }
        }
    }
    // Direct register numbers of every operand, spans where known.
    let mut numbers: alloc::vec::Vec<(Operand, u8)> = alloc::vec::Vec::new();
    if let Some(Dst {
        file: RegFile::Grf,
        addr: Addr::Direct { nr, .. },
        ..
    }) = dst
    {
        numbers.push((Operand::Dst, nr));
    }
    for (k, s) in srcs.iter().enumerate() {
        if let Some(Src::Reg(r)) = s
            && r.file == RegFile::Grf
            && let Addr::Direct { nr, .. } = r.addr
        {
            numbers.push((SLOTS[k], nr));
        }
    }
    let cite = "004 line 33186; [ext: Mesa brw_eu_validate.c]";
    for (at, nr) in &numbers {
        if *nr > 127 {
            c.push(
                Rule::XeRegisterNumber,
                Some(*at),
                Severity::Warning,
                Some(cite),
                alloc::format!("r{nr}: DG2 has r0-r127 (iga64 accepts it)"),
            );
        }
    }
    for (at, span) in spans {
        if let Some((start, end)) = span
            && start / GRF <= 127
            && (end - 1) / GRF > 127
        {
            c.push(
                Rule::XeRegisterNumber,
                Some(at),
                Severity::Warning,
                Some(cite),
                alloc::format!(
                    "runs past r127 into r{} (iga64 accepts it)",
                    (end - 1) / GRF
                ),
            );
        }
    }
    if let Body::Send(s) = &i.body
        && s.eot
        && let Some(Src::Reg(r)) = Some(s.src0)
        && let Addr::Direct { nr, .. } = r.addr
        && r.file == RegFile::Grf
        && !(112..=127).contains(&nr)
    {
        c.push(
            Rule::XeEotPayload,
            Some(Operand::Src0),
            Severity::Warning,
            None,
            alloc::format!(
                "an EOT send's payload r{nr}; it must be in r112-r127 (iga64 accepts it)"
            ),
        );
    }
}
