//! A separate pass over decoded instructions that checks the manuals'
//! restrictions: register regions, operand types, operand files, the
//! per-instruction restrictions of the instruction references, `send`,
//! `math`, three-source and branch rules.
//!
//! Each finding is a [`Violation`] naming its [`Rule`] (every rule cites the
//! manual lines it comes from), the operand it is about, a [`Severity`] and
//! a message written for a person reading assembly: which operand, what is
//! wrong, what is allowed, and where the manual says so.
//!
//! [`validate`] checks one instruction; [`validate_kernel`] decodes a kernel
//! and adds the rules that need neighbours (jump targets, back-to-back
//! `wait`, compaction alignment). Nothing here panics on any instruction the
//! decoder can produce or a caller can build.
//!
//! Rule families, one file each: `region.rs`, `dst.rs` and `address.rs`
//! (region parameters, spans, destination alignment, indirect and Align16
//! addressing), `types.rs` (types, execution type, immediates),
//! `operands.rs` and `acc.rs` (register files and numbers, accumulator,
//! flags, predicates), `opcode.rs` and `forms.rs` (the instruction
//! reference's per-instruction restrictions), `compress.rs` (Gen4
//! compression, Gen6+ channel groups), `send.rs`, `math.rs`,
//! `three_src.rs` and `flow.rs` (branches and kernel-level rules); Gen12.5
//! has its own families in `xe/`. The rules and their citations are in
//! `rule.rs` and `cite.rs`.

mod acc;
mod address;
mod cite;
mod compress;
mod dst;
mod facts;
mod flow;
mod forms;
mod math;
mod opcode;
mod operands;
mod region;
mod rule;
mod send;
mod three_src;
mod types;
mod xe;

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

pub use crate::error::Slot as Operand;
use crate::generation::IsaGen;
use crate::inst::Instruction;
use crate::kernel::{self, KernelError};
pub use rule::Rule;

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// A "should" rule, a device-dependent restriction, or a point where
    /// the manuals contradict each other: the code may work.
    Warning,
    /// The hardware does not support it or gives undefined results.
    Error,
}

/// One broken rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub rule: Rule,
    /// The operand the rule is about; `None` for instruction-wide rules.
    pub operand: Option<Operand>,
    pub severity: Severity,
    /// "operand: what is wrong; what is allowed (citation)".
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(f, "{sev} [{:?}]: {}", self.rule, self.message)
    }
}

/// Checks one instruction against every rule of `p` that can be decided
/// from the instruction alone.
pub fn validate(p: IsaGen, inst: &Instruction) -> Vec<Violation> {
    if p.is_xe() {
        // Gen12.5 has its own rule families (xe/); the ones below are
        // Gen4-Gen7.5's.
        let mut c = Check::new(p, inst);
        xe::check(&mut c);
        return c.out;
    }
    let mut c = Check::new(p, inst);
    operands::check(&mut c);
    types::check(&mut c);
    region::check(&mut c);
    compress::check(&mut c);
    opcode::check(&mut c);
    send::check(&mut c);
    math::check(&mut c);
    three_src::check(&mut c);
    flow::check(&mut c);
    root_causes(c.out)
}

/// Findings that follow from another finding of the same instruction:
/// (cause, consequence, only on the same operand). An ExecSize too large
/// for the type makes every span too large; a VertStride that breaks the
/// Width*HorzStride rule is reported once, not again as a stride too wide
/// for the type; a VertStride too wide for the type is not reported again
/// as the span it makes.
const IMPLIED: [(Rule, Rule, bool); 5] = [
    (Rule::ExecSizeLimit, Rule::SourceSpan, false),
    (Rule::ExecSizeLimit, Rule::Align16SourceSpan, false),
    (Rule::ExecSizeLimit, Rule::DstCrossing, false),
    (Rule::VertStrideMismatch, Rule::VertStrideForType, true),
    (Rule::VertStrideForType, Rule::SourceSpan, true),
];

/// Reports each root cause once: drops the findings [`IMPLIED`] by another.
fn root_causes(found: Vec<Violation>) -> Vec<Violation> {
    let implied = |v: &Violation| {
        IMPLIED.iter().any(|(cause, effect, same)| {
            v.rule == *effect
                && found
                    .iter()
                    .any(|c| c.rule == *cause && (!same || c.operand == v.operand))
        })
    };
    let keep: Vec<bool> = found.iter().map(|v| !implied(v)).collect();
    found
        .into_iter()
        .zip(keep)
        .filter_map(|(v, k)| k.then_some(v))
        .collect()
}

/// Decodes `bytes` as a kernel and validates every instruction, plus the
/// rules that look at neighbours. Each violation comes with the byte offset
/// of its instruction.
pub fn validate_kernel(p: IsaGen, bytes: &[u8]) -> Result<Vec<(usize, Violation)>, KernelError> {
    let entries = kernel::decode_kernel(p, bytes)?;
    Ok(validate_entries(p, &entries, bytes.len()))
}

/// [`validate_kernel`] for an already decoded kernel of `len` bytes.
pub fn validate_entries(
    p: IsaGen,
    entries: &[kernel::Entry],
    len: usize,
) -> Vec<(usize, Violation)> {
    validate_around(p, entries, &[], len)
}

/// What [`validate_bytes`] found in a kernel that may hold words that do
/// not decode.
pub struct KernelReport {
    /// The instructions that decode.
    pub entries: Vec<kernel::Entry>,
    /// The words that do not (reserved encodings, compact words without an
    /// expansion, a truncated last word), by offset.
    pub undecodable: Vec<KernelError>,
    /// The violations of the decoded instructions, by offset.
    pub found: Vec<(usize, Violation)>,
}

/// [`validate_kernel`] that goes on past a word that does not decode: it
/// skips that word (8 bytes if its CmptCtrl bit is set, else 16), records
/// it, and checks the rest; jumps may still land on it.
pub fn validate_bytes(p: IsaGen, bytes: &[u8]) -> KernelReport {
    let cmpt = p.is_xe() || crate::tables::for_platform(p).fields.cmpt.is_some();
    let (mut entries, mut undecodable) = (Vec::new(), Vec::new());
    let mut offset = 0;
    while offset < bytes.len() {
        match kernel::decode_at(p, bytes, offset) {
            Ok(e) => {
                offset += e.size();
                entries.push(e);
            }
            Err(e) => {
                undecodable.push(e);
                if let kernel::KernelErrorKind::Truncated { .. } = e.kind {
                    break;
                }
                let dw0 = bytes
                    .get(offset..offset + 4)
                    .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                offset += if cmpt && crate::compact::is_compact(dw0) {
                    8
                } else {
                    16
                };
            }
        }
    }
    let skipped: Vec<usize> = undecodable.iter().map(|e| e.offset).collect();
    let found = validate_around(p, &entries, &skipped, bytes.len());
    KernelReport {
        entries,
        undecodable,
        found,
    }
}

/// Validates `entries` of a `len`-byte kernel whose words at `skipped` did
/// not decode.
fn validate_around(
    p: IsaGen,
    entries: &[kernel::Entry],
    skipped: &[usize],
    len: usize,
) -> Vec<(usize, Violation)> {
    let mut out = Vec::new();
    for e in entries {
        out.extend(validate(p, &e.inst).into_iter().map(|v| (e.offset, v)));
    }
    if p.is_xe() {
        // Where jumps land (labels): the SWSB walk starts over there.
        let targets = entries
            .iter()
            .flat_map(|e| {
                crate::text::jumps::fields(p, &e.inst)
                    .into_iter()
                    .flatten()
                    .map(move |(_, v)| e.offset as i64 + v)
            })
            .chain(skipped.iter().map(|s| *s as i64))
            .collect();
        xe::check_kernel(p, entries, &targets, &mut out);
        out.sort_by_key(|(offset, _)| *offset);
        return out;
    }
    flow::check_kernel(p, entries, skipped, len, &mut out);
    out.sort_by_key(|(offset, _)| *offset);
    out
}

/// The state of one instruction's check: what it is and what was found.
pub(crate) struct Check<'a> {
    pub p: IsaGen,
    pub inst: &'a Instruction,
    pub out: Vec<Violation>,
}

impl<'a> Check<'a> {
    fn new(p: IsaGen, inst: &'a Instruction) -> Self {
        Check {
            p,
            inst,
            out: Vec::new(),
        }
    }

    /// Records an error; the message ends with the rule's citation.
    pub fn error(&mut self, rule: Rule, at: Option<Operand>, what: impl fmt::Display) {
        self.push(rule, at, Severity::Error, None, what);
    }

    /// Records a warning.
    pub fn warn(&mut self, rule: Rule, at: Option<Operand>, what: impl fmt::Display) {
        self.push(rule, at, Severity::Warning, None, what);
    }

    /// Records a finding whose citation is more exact than the rule's
    /// (per-instruction restrictions).
    pub fn push(
        &mut self,
        rule: Rule,
        at: Option<Operand>,
        severity: Severity,
        cite: Option<&str>,
        what: impl fmt::Display,
    ) {
        let mut message = String::new();
        let cite = cite.unwrap_or(rule.citation(self.p));
        // Writing into a String cannot fail.
        let _ = match at {
            Some(slot) => fmt::write(&mut message, format_args!("{slot}: {what} ({cite})")),
            None => fmt::write(
                &mut message,
                format_args!("{}: {what} ({cite})", self.inst.opcode.mnemonic()),
            ),
        };
        self.out.push(Violation {
            rule,
            operand: at,
            severity,
            message,
        });
    }
}
