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
//! `three_src.rs` and `flow.rs` (branches and kernel-level rules). The rules
//! and their citations are in `rule.rs` and `cite.rs`.

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

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

pub use crate::error::Slot as Operand;
use crate::inst::Instruction;
use crate::kernel::{self, KernelError};
use crate::platform::Platform;
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
pub fn validate(p: Platform, inst: &Instruction) -> Vec<Violation> {
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
    c.out
}

/// Decodes `bytes` as a kernel and validates every instruction, plus the
/// rules that look at neighbours. Each violation comes with the byte offset
/// of its instruction.
pub fn validate_kernel(p: Platform, bytes: &[u8]) -> Result<Vec<(usize, Violation)>, KernelError> {
    let entries = kernel::decode_kernel(p, bytes)?;
    Ok(validate_entries(p, &entries, bytes.len()))
}

/// [`validate_kernel`] for an already decoded kernel of `len` bytes.
pub fn validate_entries(
    p: Platform,
    entries: &[kernel::Entry],
    len: usize,
) -> Vec<(usize, Violation)> {
    let mut out = Vec::new();
    for e in entries {
        out.extend(validate(p, &e.inst).into_iter().map(|v| (e.offset, v)));
    }
    flow::check_kernel(p, entries, len, &mut out);
    out.sort_by_key(|(offset, _)| *offset);
    out
}

/// The state of one instruction's check: what it is and what was found.
pub(crate) struct Check<'a> {
    pub p: Platform,
    pub inst: &'a Instruction,
    pub out: Vec<Violation>,
}

impl<'a> Check<'a> {
    fn new(p: Platform, inst: &'a Instruction) -> Self {
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
