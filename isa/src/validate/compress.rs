//! Gen4/G45 instruction compression (ComprCtrl = Compr, 000 lines
//! 8718-8830) and the Gen6+ channel-group controls (QtrCtrl, NibCtrl).

use super::facts;
use super::operands::register_operands;
use super::{Check, Operand, Rule};
use crate::generation::IsaGen;
use crate::inst::{AccessMode, Addr, GroupCtrl, Opcode, RegFile, Region, Src, Type};
use crate::tables::ArfKind;
use alloc::format;

pub(super) fn check(c: &mut Check<'_>) {
    if facts::gen4(c.p) {
        if facts::compressed(c.inst) {
            compressed(c);
        }
    } else {
        group(c);
    }
}

fn compressed(c: &mut Check<'_>) {
    let op = c.inst.opcode;
    if c.inst.access_mode == AccessMode::Align16 {
        c.error(
            Rule::ComprAccessMode,
            None,
            "a compressed instruction in Align16; only Align1 instructions compress",
        );
    }
    let exec = c.inst.exec_size;
    if exec != 16 && exec != 32 {
        c.error(
            Rule::ComprExecSize,
            None,
            format!("compressed with ExecSize {exec}; compression needs ExecSize 16 or 32"),
        );
    }
    let compressible = super::opcode::row(op).is_some_and(|r| r.compress);
    if !compressible {
        c.error(
            Rule::ComprOpcode,
            None,
            format!(
                "{} cannot be compressed (branches, send, wait, movi, sad2 and the mask-stack \
                 instructions never are)",
                op.mnemonic()
            ),
        );
        return;
    }
    if c.p == IsaGen::Gen4 && exec == 32 && matches!(op, Opcode::Mac | Opcode::Mach | Opcode::Sada2)
    {
        c.error(
            Rule::ComprDevice,
            None,
            format!(
                "{} reads the implicit accumulator; on the 965 an ExecSize 16 half always uses \
                 acc0, so it cannot be compressed to ExecSize 32",
                op.mnemonic()
            ),
        );
    }
    let regs = register_operands(c);
    for r in &regs {
        let kind = facts::arf_kind(c.p, r.file, r.addr);
        if r.file == RegFile::Arf && !matches!(kind, Some(ArfKind::Null | ArfKind::Accumulator)) {
            c.error(
                Rule::ComprArf,
                Some(r.slot),
                format!(
                    "{} in a compressed instruction; only the accumulator (and null) may be an \
                     explicit ARF operand",
                    r.text
                ),
            );
        }
        if let Addr::Indirect { addr_subnr, .. } = r.addr
            && addr_subnr % 2 != 0
        {
            c.error(
                Rule::ComprIndirect,
                Some(r.slot),
                format!(
                    "{}: the second half uses the next address sub-register, so a compressed \
                     indirect operand starts on an even one (a0.0, a0.2, ...)",
                    r.text
                ),
            );
        }
    }
    alignment(c);
}

/// The operand alignment rule and its exceptions A-D (000 lines 8808-8822).
fn alignment(c: &mut Check<'_>) {
    let ops = facts::operands(c.p, c.inst);
    let Some(d) = ops.dst else { return };
    // "Dword mode": a dword destination with stride one.
    let dword_mode = d.ty.size() == 4 && d.hstride == 1;
    if let Addr::Direct { nr, subnr } = d.addr {
        let text = facts::dst_text(c.p, d);
        match d.file {
            RegFile::Mrf if subnr != 0 => c.error(
                Rule::ComprAlignment,
                Some(Operand::Dst),
                format!("{text}: a compressed MRF destination must start a register (.0)"),
            ),
            RegFile::Grf if nr % 2 != 0 || (dword_mode && subnr != 0) => c.warn(
                Rule::ComprAlignment,
                Some(Operand::Dst),
                format!(
                    "{text}: a compressed operand should start an even register{}; the second \
                     half sets the register number's low bit",
                    if dword_mode { " at .0" } else { "" }
                ),
            ),
            _ => {}
        }
    }
    for &(slot, s) in &ops.srcs {
        let Src::Reg(r) = s else { continue };
        if facts::is_scalar(r) || r.file != RegFile::Grf {
            continue;
        }
        if matches!(r.region, Region::VxH { .. }) {
            c.error(
                Rule::ComprIndirect,
                Some(slot),
                format!(
                    "{}: compressed indirect operands use one index (1x1 mode)",
                    facts::src_text(c.p, s)
                ),
            );
            continue;
        }
        let Addr::Direct { nr, subnr } = r.addr else {
            continue;
        };
        let text = facts::src_text(c.p, s);
        let hstride = match r.region {
            Region::Align1 { hstride, .. } => hstride,
            _ => 1,
        };
        let word = matches!(r.ty, Type::W | Type::Uw);
        let byte = matches!(r.ty, Type::B | Type::Ub);
        if dword_mode && word && hstride == 1 {
            if subnr != 0 {
                c.error(
                    Rule::ComprAlignment,
                    Some(slot),
                    format!(
                        "{text}: packed words under a dword destination must start a register \
                         (.0); the second half reads the upper 16 bytes"
                    ),
                );
            }
        } else if dword_mode && byte && hstride != 0 && hstride != 2 {
            c.error(
                Rule::ComprAlignment,
                Some(slot),
                format!(
                    "{text}: bytes under a dword destination need HorzStride 0 or 2 in a \
                     compressed instruction"
                ),
            );
        } else if nr % 2 != 0 || (dword_mode && subnr != 0) {
            c.warn(
                Rule::ComprAlignment,
                Some(slot),
                format!(
                    "{text}: a compressed operand should start an even register{}; otherwise \
                     both halves read the same register",
                    if dword_mode { " at .0" } else { "" }
                ),
            );
        }
    }
}

/// Gen6+ channel groups.
fn group(c: &mut Check<'_>) {
    let GroupCtrl::Quarter { qtr, nib } = c.inst.group else {
        return;
    };
    if nib && c.inst.exec_size > 4 {
        c.error(
            Rule::GroupControl,
            None,
            format!(
                "NibCtrl selects 4-channel groups; it is only meaningful with ExecSize 4 or less \
                 (ExecSize is {})",
                c.inst.exec_size
            ),
        );
    }
    if c.inst.opcode == Opcode::Call && (qtr != 0 || nib) {
        c.error(
            Rule::GroupControl,
            None,
            "call takes no QtrCtrl; write it for channels 0-1 (M0)",
        );
    }
}
