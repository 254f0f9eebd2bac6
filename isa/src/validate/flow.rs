//! Branches: Gen4 exit codes, Gen6 embedded compares and operands, and the
//! kernel-level rules that need neighbours: where jumps land, G45
//! compaction alignment, back-to-back `wait`, and the 965's two-row
//! sources after branches.
//!
//! Jump origins (the same arithmetic as the assembler's): JIP/UIP and Gen4
//! jump counts are "added to IP pre-increment" (000 line 11084; 003 lines
//! 97017-97027), counted from the branch (its 128-bit slot on G45, where
//! two compacted instructions share an IP, 000 line 9073); `jmpi` counts
//! from the next instruction (000 lines 11928-11953; 003 lines
//! 98602-98610); Gen6+ `call` from the call (003 lines 97116-97127). On
//! Gen7.5 `jmpi` and `call` immediates are bytes [ext: iga64 -p=7p5].

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::vec::Vec;

use super::facts;
use super::{Check, Operand, Rule, Severity, Violation};
use crate::generation::IsaGen;
use crate::inst::{Body, DstSlot, Instruction, Jump, Opcode, PredCtrl, Src};
use crate::kernel::Entry;
use crate::text::jumps::{self, Which};

pub(super) fn check(c: &mut Check<'_>) {
    let Body::Branch(b) = &c.inst.body else {
        return;
    };
    let op = c.inst.opcode;
    if let Jump::Count { jump, pop } = b.jump {
        let (want_pop, jump_zero) = match op {
            Opcode::Else => (Some(1), false),
            Opcode::Endif => (Some(1), true),
            Opcode::If | Opcode::Iff | Opcode::While | Opcode::Halt => (Some(0), false),
            _ => (None, false),
        };
        if let Some(w) = want_pop
            && pop != w
        {
            c.error(
                Rule::PopCount,
                None,
                format!(
                    "{} pops {pop} mask-stack levels; its exit code's pop count must be {w}",
                    op.mnemonic()
                ),
            );
        }
        if jump_zero && jump != 0 {
            c.error(
                Rule::PopCount,
                None,
                format!("endif jumps {jump} bytes; its jump count is reserved and must be 0"),
            );
        }
    }
    if c.p == IsaGen::Gen6 {
        let compare = c.inst.cond_mod != crate::inst::CondMod::None;
        if compare && c.inst.pred_ctrl != PredCtrl::None {
            c.error(
                Rule::EmbeddedCompare,
                None,
                format!(
                    "{} with both a predicate and an embedded compare; with a condition modifier \
                     the predicate field must be zero",
                    op.mnemonic()
                ),
            );
        }
        if op == Opcode::Halt {
            let dst_null = matches!(b.dst, DstSlot::Reg(d) if facts::is_null(d.file, d.addr));
            let src_null = matches!(&b.src0, Src::Reg(r) if facts::is_null(r.file, r.addr));
            if !dst_null || !src_null {
                c.push(
                    Rule::OpcodeOperands,
                    None,
                    Severity::Error,
                    Some("003 line 98416"),
                    "halt's destination and src0 must be null",
                );
            }
        }
    }
}

/// The byte offsets the jumps of the instruction at `at` land on (the
/// assembler's arithmetic, `text::jumps`). A Gen4/G45 `call` has no
/// immediate target.
fn targets(p: IsaGen, inst: &Instruction, at: usize, size: usize) -> Vec<i64> {
    jumps::fields(p, inst)
        .into_iter()
        .flatten()
        .filter(|(which, _)| !(facts::gen4(p) && *which == Which::Call))
        .map(|(which, value)| jumps::target(p, which, value, at, size))
        .collect()
}

fn report(
    p: IsaGen,
    e: &Entry,
    rule: Rule,
    at: Option<Operand>,
    severity: Severity,
    what: impl core::fmt::Display,
    out: &mut Vec<(usize, Violation)>,
) {
    let mut c = Check::new(p, &e.inst);
    c.push(rule, at, severity, None, what);
    out.extend(c.out.into_iter().map(|v| (e.offset, v)));
}

/// Whether a non-compressed instruction reads a source with several rows
/// spread over two registers (000 line 8484).
fn two_row_source(p: IsaGen, inst: &Instruction) -> bool {
    if facts::compressed(inst) {
        return false;
    }
    let exec = u32::from(inst.exec_size);
    let ops = facts::operands(p, inst);
    ops.srcs.iter().any(|(_, s)| match s {
        Src::Reg(r) => {
            let rows = match r.region {
                crate::inst::Region::Align1 { width, .. } => exec / u32::from(width.max(1)),
                _ => 1,
            };
            let size = facts::elem_size(p, r.ty);
            rows > 1
                && facts::src_addrs(p, exec, r)
                    .and_then(|a| facts::reg_range(&a, size))
                    .is_some_and(|(f, l)| l > f)
        }
        _ => false,
    })
}

/// A predicated jmpi or a conditional branch (000 line 8484, examples at
/// lines 8530-8575).
fn conditional_branch(inst: &Instruction) -> bool {
    inst.pred_ctrl != PredCtrl::None
        && matches!(
            inst.opcode,
            Opcode::Jmpi
                | Opcode::If
                | Opcode::Iff
                | Opcode::While
                | Opcode::Break
                | Opcode::Cont
                | Opcode::Halt
        )
}

pub(super) fn check_kernel(
    p: IsaGen,
    entries: &[Entry],
    skipped: &[usize],
    len: usize,
    out: &mut Vec<(usize, Violation)>,
) {
    // Words that did not decode still start where a jump may land.
    let starts: BTreeSet<i64> = entries
        .iter()
        .map(|e| e.offset)
        .chain(skipped.iter().copied())
        .map(|o| o as i64)
        .collect();
    let mut landed: BTreeSet<i64> = BTreeSet::new();
    for e in entries {
        for t in targets(p, &e.inst, e.offset, e.size()) {
            landed.insert(t);
            if t < 0 || t > len as i64 {
                report(
                    p,
                    e,
                    Rule::JumpTarget,
                    None,
                    Severity::Warning,
                    format!("jumps to byte {t}, outside this {len}-byte kernel"),
                    out,
                );
            } else if t != len as i64 && !starts.contains(&t) {
                report(
                    p,
                    e,
                    Rule::JumpTarget,
                    None,
                    Severity::Error,
                    format!("jumps to byte {t}, which is not the start of an instruction"),
                    out,
                );
            } else if p == IsaGen::G45 && t % 16 != 0 {
                report(
                    p,
                    e,
                    Rule::CompactAlignment,
                    None,
                    Severity::Error,
                    format!(
                        "jumps to byte {t}; with compaction, jump targets must be 16-byte aligned"
                    ),
                    out,
                );
            }
        }
        if p == IsaGen::G45 && !e.compacted && e.offset % 16 != 0 {
            report(
                p,
                e,
                Rule::CompactAlignment,
                None,
                Severity::Error,
                format!(
                    "a native instruction at byte {}; native instructions must start on 16 bytes \
                 (pad the compacted one before it with a nenop)",
                    e.offset
                ),
                out,
            );
        }
    }
    for pair in entries.windows(2) {
        let (prev, e) = (&pair[0], &pair[1]);
        // Not neighbours when an undecodable word lies between them.
        if prev.offset + prev.size() != e.offset {
            continue;
        }
        if prev.inst.opcode == Opcode::Wait && e.inst.opcode == Opcode::Wait {
            report(
                p,
                e,
                Rule::WaitBackToBack,
                None,
                Severity::Error,
                "a wait directly after a wait; put an instruction (a nop) between them",
                out,
            );
        }
        if p == IsaGen::Gen4 && conditional_branch(&prev.inst) && two_row_source(p, &e.inst) {
            report(
                p,
                e,
                Rule::TwoRowAfterBranch,
                None,
                Severity::Warning,
                "a two-row source right after a conditional branch; unless the EU itself wrote \
                 both rows, split it into one-row instructions or put a nop before it",
                out,
            );
        }
    }
    if p == IsaGen::Gen4 {
        for e in entries {
            if landed.contains(&(e.offset as i64)) && two_row_source(p, &e.inst) {
                report(
                    p,
                    e,
                    Rule::TwoRowAfterBranch,
                    None,
                    Severity::Warning,
                    "a two-row source at a jump target; unless the EU itself wrote both rows, split \
                     it into one-row instructions or put a nop before it",
                    out,
                );
            }
        }
    }
}
