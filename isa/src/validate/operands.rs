//! Register operands: files, register numbers, ARF registers, null and
//! unused sources, flag registers, predicate and condition codes, and the
//! {Switch} rule for pipeline-incoherent registers.

use alloc::format;
use alloc::vec::Vec;

use super::facts;
use super::{Check, Operand, Rule};
use crate::generation::IsaGen;
use crate::inst::{AccessMode, Addr, Body, CondMod, Opcode, PredCtrl, RegFile, Src, ThreadCtrl};
use crate::tables::{self, ArfKind, code_of};

pub(super) fn check(c: &mut Check<'_>) {
    let regs = register_operands(c);
    for r in &regs {
        file(c, r);
        number(c, r);
        arf(c, r);
    }
    switch_required(c, &regs);
    null_and_unused(c);
    flags(c);
    super::acc::check(c);
}

/// A register operand the rules look at.
pub(super) struct RegOp {
    pub slot: Operand,
    pub file: RegFile,
    pub addr: Addr,
    /// Last register the operand touches, when known (direct operands).
    pub last: Option<u32>,
    pub text: alloc::string::String,
}

/// The register operands an instruction reads or writes: the data
/// operands of ALU, math and three-source instructions, `send`'s
/// destination and payload, and the operands of the other instructions.
pub(super) fn register_operands(c: &Check<'_>) -> Vec<RegOp> {
    let p = c.p;
    let exec = facts::region_exec(c.inst);
    let mut out = Vec::new();
    let ops = facts::operands(p, c.inst);
    let (dst, srcs): (Option<_>, Vec<(Operand, &Src)>) = if ops.dst.is_some() {
        (ops.dst, ops.srcs)
    } else {
        let slots = [Operand::Src0, Operand::Src1, Operand::Src2];
        let srcs = slots
            .iter()
            .zip(c.inst.srcs())
            .filter_map(|(s, src)| src.map(|x| (*s, x)))
            .collect();
        (c.inst.dst(), srcs)
    };
    if let Some(d) = dst {
        let size = facts::elem_size(p, d.ty);
        let last = facts::dst_addrs(p, exec, d, c.inst.access_mode)
            .and_then(|a| facts::reg_range(&a, size))
            .map(|(_, l)| l);
        out.push(RegOp {
            slot: Operand::Dst,
            file: d.file,
            addr: d.addr,
            last,
            text: facts::dst_text(p, d),
        });
    }
    for (slot, s) in srcs {
        let Src::Reg(r) = s else { continue };
        let size = facts::elem_size(p, r.ty);
        let last = if matches!(c.inst.body, Body::Send(_)) {
            None
        } else {
            facts::src_addrs(p, exec, r)
                .and_then(|a| facts::reg_range(&a, size))
                .map(|(_, l)| l)
        };
        out.push(RegOp {
            slot,
            file: r.file,
            addr: r.addr,
            last,
            text: facts::src_text(p, s),
        });
    }
    out
}

/// MRF only as a destination and only before Gen7; no immediate
/// destination.
fn file(c: &mut Check<'_>, r: &RegOp) {
    if r.file == RegFile::Mrf && c.p >= IsaGen::Gen7 {
        c.error(
            Rule::RegisterFile,
            Some(r.slot),
            format!(
                "{}: Gen7 has no message registers; build payloads in the GRF",
                r.text
            ),
        );
        return;
    }
    // Gen6 send names its first payload MRF as src0 (send.rs).
    let send = matches!(c.inst.body, Body::Send(_));
    if r.file == RegFile::Mrf && r.slot != Operand::Dst && !send {
        c.error(
            Rule::RegisterFile,
            Some(r.slot),
            format!(
                "{}: message registers are write-only and can only be a destination",
                r.text
            ),
        );
    }
    if r.file == RegFile::Imm && r.slot == Operand::Dst {
        c.error(
            Rule::RegisterFile,
            Some(r.slot),
            "the destination is an immediate; a destination is a register",
        );
    }
}

fn number(c: &mut Check<'_>, r: &RegOp) {
    let Addr::Direct { nr, .. } = r.addr else {
        return;
    };
    let (limit, name) = match r.file {
        RegFile::Grf => (128, "GRF registers are r0-r127"),
        RegFile::Mrf => {
            if facts::gen4(c.p) {
                (16, "message registers are m0-m15")
            } else {
                (24, "message registers are m0-m23")
            }
        }
        _ => return,
    };
    let mut nr = u32::from(nr);
    let mut last = r.last;
    if r.file == RegFile::Mrf && r.slot == Operand::Dst && facts::compressed(c.inst) {
        // Compr4 (RegNum[7]) puts the second half 4 registers on; plain
        // Compr 1 (000 lines 8750, 8779-8781).
        let compr4 = nr & 0x80 != 0;
        nr &= 0x7F;
        last = Some(nr + if compr4 { 4 } else { 1 });
        if compr4 && c.p == IsaGen::Gen4 {
            c.error(
                Rule::ComprDevice,
                Some(r.slot),
                format!("{}: Compr4 (m128 and up) does not exist on the 965", r.text),
            );
        }
    }
    let last = last.unwrap_or(nr);
    if nr >= limit || last >= limit {
        let what = if nr >= limit { nr } else { last };
        c.error(
            Rule::RegisterNumber,
            Some(r.slot),
            format!("{} reaches register {what}; {name}", r.text),
        );
    }
    if r.file == RegFile::Mrf && nr == 0 && facts::gen4(c.p) && r.slot == Operand::Dst {
        c.warn(
            Rule::MrfZero,
            Some(r.slot),
            format!(
                "{}: m0 is reserved for the system routine and debug; normal threads start at m1",
                r.text
            ),
        );
    }
}

/// How many registers of an ARF kind exist.
fn arf_count(p: IsaGen, kind: ArfKind) -> u8 {
    match kind {
        ArfKind::Accumulator => 2,
        ArfKind::Flag => tables::for_platform(p).flag_regs,
        // n0 and n1 (000 lines 8142-8160; 003 line 90045; 001 line 3552).
        ArfKind::Notification => 2,
        _ => 1,
    }
}

fn arf(c: &mut Check<'_>, r: &RegOp) {
    let (RegFile::Arf, Addr::Direct { nr, .. }) = (r.file, r.addr) else {
        return;
    };
    match tables::for_platform(c.p).arf_kind(nr) {
        None => c.error(
            Rule::ArfNumber,
            Some(r.slot),
            format!("architecture register {nr:#04x} does not exist on {}", c.p),
        ),
        Some(kind) if nr & 0xF >= arf_count(c.p, kind) => c.error(
            Rule::ArfNumber,
            Some(r.slot),
            format!(
                "{}: {} has {} register(s) of this kind on {}",
                r.text,
                c.p,
                arf_count(c.p, kind),
                c.p
            ),
        ),
        _ => {}
    }
}

/// Explicit mask, mask-stack, mask-stack-depth and control register
/// operands need {Switch}; Gen7 `cmp` into null does too.
fn switch_required(c: &mut Check<'_>, regs: &[RegOp]) {
    if c.inst.thread_ctrl == ThreadCtrl::Switch {
        return;
    }
    for r in regs {
        let kind = facts::arf_kind(c.p, r.file, r.addr);
        let needs = match kind {
            Some(ArfKind::Control) => true,
            Some(ArfKind::Mask | ArfKind::MaskStackDepth) => true,
            // The 965/GM965 keep mask stacks coherent (000 line 7918).
            Some(ArfKind::MaskStack) => c.p == IsaGen::G45,
            _ => false,
        };
        if needs {
            c.error(
                Rule::SwitchRequired,
                Some(r.slot),
                format!(
                    "{} is read or written explicitly; the pipeline does not track it, so the \
                     instruction needs {{Switch}}",
                    r.text
                ),
            );
            return;
        }
    }
    let cmp = matches!(c.inst.opcode, Opcode::Cmp | Opcode::Cmpn);
    let null_dst = c.inst.dst().is_some_and(|d| facts::is_null(d.file, d.addr));
    if c.p >= IsaGen::Gen7 && cmp && null_dst {
        c.error(
            Rule::SwitchRequired,
            Some(Operand::Dst),
            format!(
                "{} into the null register needs {{Switch}} on Ivy Bridge and Haswell",
                c.inst.opcode.mnemonic()
            ),
        );
    }
}

/// Sources read as null, and the unused src1 of one-source instructions.
fn null_and_unused(c: &mut Check<'_>) {
    let ops = facts::operands(c.p, c.inst);
    for &(slot, s) in &ops.srcs {
        if let Src::Reg(r) = s
            && facts::is_null(r.file, r.addr)
        {
            c.error(
                Rule::NullSource,
                Some(slot),
                format!(
                    "{} reads the null register, which returns undefined values",
                    c.inst.opcode.mnemonic()
                ),
            );
        }
    }
    let Body::Alu(a) = &c.inst.body else { return };
    if ops.dst.is_none() || ops.srcs.len() != 1 {
        return;
    }
    let unused_ok = match &a.src1 {
        Src::Reg(r) => facts::is_null(r.file, r.addr),
        Src::Vacant(_) => true,
        Src::Imm(_) => false,
    };
    if !unused_ok {
        c.warn(
            Rule::UnusedSource,
            Some(Operand::Src1),
            format!(
                "{} reads one source, but src1 holds {}; an absent operand must be null",
                c.inst.opcode.mnemonic(),
                facts::src_text(c.p, &a.src1)
            ),
        );
    }
}

/// Flag register range, predicate and condition codes.
fn flags(c: &mut Check<'_>) {
    let t = tables::for_platform(c.p);
    let uses_flag = c.inst.pred_ctrl != PredCtrl::None || c.inst.cond_mod != CondMod::None;
    let f = c.inst.flag;
    if uses_flag && (f.reg >= t.flag_regs || f.subreg > 1) {
        let have = if t.flag_regs > 1 {
            "f0.0, f0.1, f1.0 and f1.1"
        } else {
            "f0.0 and f0.1"
        };
        c.error(
            Rule::FlagRegister,
            None,
            format!(
                "flag f{}.{} does not exist; {} has {have}",
                f.reg, f.subreg, c.p
            ),
        );
    }
    let align16 = c.inst.access_mode == AccessMode::Align16;
    let pred = c.inst.pred_ctrl;
    if pred != PredCtrl::None && code_of(t.preds(align16), pred).is_none() {
        let valid = code_of(t.preds(!align16), pred).is_some();
        let mode = if align16 { "Align16" } else { "Align1" };
        if valid {
            c.error(
                Rule::PredicateMode,
                None,
                format!(
                    "predicate {pred:?} is not available in {mode}; Align16 has .x/.y/.z/.w and \
                     .any4h/.all4h, Align1 the vertical and 2/4/8/16-channel groups"
                ),
            );
        } else {
            c.error(
                Rule::PredicateMode,
                None,
                format!("predicate {pred:?} does not exist on {}", c.p),
            );
        }
    }
    let cm = c.inst.cond_mod;
    if cm != CondMod::None && code_of(&t.cond_mods, cm).is_none() {
        c.error(
            Rule::CondModCode,
            None,
            format!(
                "condition modifier {cm:?} does not exist on {} (.r is Gen4/G45 only)",
                c.p
            ),
        );
    }
}
