//! Statements → instructions → bytes: the entry points and encoding here;
//! where each statement lands (labels, automatic compaction) in `layout`,
//! operand placement in `operand`, the controls around the operands in
//! `options`, the forms of each layout in `form` and `send`.

mod form;
mod layout;
mod operand;
mod options;
mod send;

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::parse::{Stmt, statement};
use crate::codec;
use crate::compact;
use crate::generation::IsaGen;
use crate::inst::Instruction;
use form::build;
use layout::Piece;

pub(crate) use super::jumps::Which;

/// An assembly error at a line and column (both from 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl core::error::Error for AsmError {}

/// One assembled statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Program {
    /// An instruction, to be stored compacted or not, and its source line.
    Inst {
        inst: Instruction,
        compacted: bool,
        line: usize,
    },
    /// A `.raw` word (2 or 4 dwords), or padding the layout inserted.
    Raw(Vec<u32>),
}

/// How the assembler stores instructions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AsmOptions {
    /// Compact every instruction whose native word the generation's tables
    /// can compact ([`compact::compact`]), with branch offsets computed on
    /// the compacted layout (003 lines 92488-92495). `{Compacted}` and
    /// `{Uncompacted}` still force the form of their line. See `layout`
    /// for the padding this needs. Off by default: the text then says
    /// exactly which words are compact.
    pub compact: bool,
}

/// How a line asks to be stored: `{Compacted}`, `{Uncompacted}` or neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Storage {
    Auto,
    Compact,
    Native,
}

/// A parsed instruction of a single line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Item {
    pub inst: Instruction,
    pub compacted: bool,
}

type Res<T> = Result<T, AsmError>;

fn err<T>(line: usize, col: usize, msg: impl Into<String>) -> Res<T> {
    Err(AsmError {
        line,
        col,
        message: msg.into(),
    })
}

/// Label references of one instruction: field, label name, column.
type Refs = Vec<(Which, String, usize)>;

/// Parses a single instruction line whose branch targets are numeric.
pub(crate) fn parse_line(p: IsaGen, text: &str, line: usize) -> Res<Option<Item>> {
    match statement(p, text, line)? {
        Some(Stmt::Inst(l)) => {
            let (inst, form, labels) = build(p, &l, line)?;
            if let Some((_, name, col)) = labels.first() {
                return err(line, *col, alloc::format!("undefined label {name}"));
            }
            Ok(Some(Item {
                inst,
                compacted: form == Storage::Compact,
            }))
        }
        _ => Ok(None),
    }
}

/// Parses a source text into statements; labels are checked for
/// duplicates here and resolved by the layout.
fn pieces(p: IsaGen, text: &str) -> Res<Vec<Piece>> {
    let mut out = Vec::new();
    let mut names = BTreeSet::new();
    for (i, text) in text.lines().enumerate() {
        let line = i + 1;
        match statement(p, text, line)? {
            None => {}
            Some(Stmt::Label(name)) => {
                if !names.insert(name.clone()) {
                    return err(line, 1, alloc::format!("label {name} defined twice"));
                }
                out.push(Piece::Label(name));
            }
            Some(Stmt::Raw(words)) => out.push(Piece::Raw(words)),
            Some(Stmt::Inst(l)) => {
                let (inst, form, refs) = build(p, &l, line)?;
                out.push(Piece::Inst {
                    inst,
                    form,
                    refs,
                    line,
                });
            }
        }
    }
    Ok(out)
}

/// Parses a whole source text into instructions with labels resolved,
/// storing each as its line says (`{Compacted}` or native).
pub fn assemble_program(p: IsaGen, text: &str) -> Result<Vec<Program>, AsmError> {
    assemble_program_with(p, text, AsmOptions::default())
}

/// [`assemble_program`] with options; with `compact` the result says which
/// instructions are stored compacted and holds the padding as `Raw` words.
pub fn assemble_program_with(
    p: IsaGen,
    text: &str,
    opts: AsmOptions,
) -> Result<Vec<Program>, AsmError> {
    if p.is_xe() {
        return xe_program(text, opts);
    }
    layout::place(p, &pieces(p, text)?, opts)
}

/// Gen12.5: one instruction per line through `crate::xehpg::parse`
/// (labels are `L<byte offset>`, as IGA prints them; no symbolic messages
/// yet). With `opts.compact`, every instruction with a compact form is
/// stored compacted except those with a jump target (their offsets would
/// move under them); `{Compacted}` asks for it on one line, `{Uncompacted}`
/// refuses it. Compaction
/// moves what follows, so label definitions (`L64:`) are placed where they
/// land and the branches naming them are resolved to those offsets.
fn xe_program(text: &str, opts: AsmOptions) -> Result<Vec<Program>, AsmError> {
    let lines = xe_lines(text);
    let has_option = |line: &str, name: &str| {
        line.split('{')
            .skip(1)
            .any(|o| o.trim_end_matches('}').split(',').any(|x| x == name))
    };
    let wants_compact = |line: &str| has_option(line, "Compacted");
    if !opts.compact
        && !lines
            .iter()
            .any(|l| matches!(l, XeLine::Inst(_, s) if wants_compact(s)))
    {
        return xe_native(text);
    }
    // Pass 1: sizes (a jump target does not change whether an instruction
    // compacts, since jumps are never compacted) and label offsets.
    let mut labels = alloc::collections::BTreeMap::new();
    let mut sizes = Vec::new();
    let mut at = 0i64;
    for l in &lines {
        match l {
            XeLine::Label(name) => {
                labels.insert(*name, at);
            }
            XeLine::Inst(n, s) => {
                let inst = crate::xehpg::parse::parse(s, 0).map_err(|message| AsmError {
                    line: *n,
                    col: 1,
                    message,
                })?;
                let jumps = matches!(inst.body, crate::inst::Body::Branch(_));
                let fits = !jumps
                    && crate::xehpg::encode(&inst).is_ok_and(|w| {
                        compact::compact(IsaGen::Gen12_5, codec::to_dwords(w)).is_some()
                    });
                if wants_compact(s) && !fits {
                    return err(
                        *n,
                        1,
                        "{Compacted} given but the instruction has no compact form (or jumps)",
                    );
                }
                let c = fits && (opts.compact || wants_compact(s)) && !has_option(s, "Uncompacted");
                sizes.push(c);
                at += if c { 8 } else { 16 };
            }
        }
    }
    // Pass 2: each line at its offset, defined labels renamed to where
    // they landed.
    let mut out = Vec::new();
    let mut at = 0i64;
    let mut k = 0;
    for l in &lines {
        let XeLine::Inst(n, s) = l else {
            continue;
        };
        let line: Vec<String> = s
            .split_whitespace()
            .map(|t| match labels.get(t) {
                Some(off) => alloc::format!("L{off}"),
                None => t.into(),
            })
            .collect();
        let inst = crate::xehpg::parse::parse(&line.join(" "), at).map_err(|message| AsmError {
            line: *n,
            col: 1,
            message,
        })?;
        out.push(Program::Inst {
            inst,
            compacted: sizes[k],
            line: *n,
        });
        at += if sizes[k] { 8 } else { 16 };
        k += 1;
    }
    Ok(out)
}

/// A Gen12.5 source line: an instruction (its line number and text) or a
/// label definition.
enum XeLine<'a> {
    Inst(usize, &'a str),
    Label(&'a str),
}

fn xe_lines(text: &str) -> Vec<XeLine<'_>> {
    let mut out = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let mut line = raw.split("//").next().unwrap_or("").trim();
        if let Some(rest) = line.strip_prefix("/*").and_then(|r| r.split_once("*/")) {
            line = rest.1.trim();
        }
        if line.is_empty() {
            continue;
        }
        match line.strip_suffix(':') {
            Some(name) if name.starts_with('L') => out.push(XeLine::Label(name)),
            _ => out.push(XeLine::Inst(n + 1, line)),
        }
    }
    out
}

/// Native only: `L<n>` targets are byte offsets of the native layout.
fn xe_native(text: &str) -> Result<Vec<Program>, AsmError> {
    let mut out = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let mut line = raw.split("//").next().unwrap_or("").trim();
        // The disassembler's `/* offset */` prefix.
        if let Some(rest) = line.strip_prefix("/*").and_then(|r| r.split_once("*/")) {
            line = rest.1.trim();
        }
        if line.is_empty() || (line.starts_with('L') && line.ends_with(':')) {
            continue;
        }
        let pc = 16 * out.len() as i64;
        let inst = crate::xehpg::parse::parse(line, pc).map_err(|message| AsmError {
            line: n + 1,
            col: 1,
            message,
        })?;
        out.push(Program::Inst {
            inst,
            compacted: false,
            line: n + 1,
        });
    }
    Ok(out)
}

/// Assembles a source text to little-endian bytes.
pub fn assemble(p: IsaGen, text: &str) -> Result<Vec<u8>, AsmError> {
    assemble_with(p, text, AsmOptions::default())
}

/// Assembles a source text to little-endian bytes with options.
pub fn assemble_with(p: IsaGen, text: &str, opts: AsmOptions) -> Result<Vec<u8>, AsmError> {
    let mut bytes = Vec::new();
    for item in assemble_program_with(p, text, opts)? {
        match item {
            Program::Raw(words) => words
                .iter()
                .for_each(|w| bytes.extend_from_slice(&w.to_le_bytes())),
            Program::Inst {
                inst,
                compacted,
                line,
            } => {
                let word = codec::encode(p, &inst)
                    .or_else(|e| err(line, 1, alloc::format!("cannot encode: {e}")))?;
                let dw = codec::to_dwords(word);
                if compacted {
                    let Some(c) = compact::compact(p, dw) else {
                        return err(
                            line,
                            1,
                            "{Compacted} given but the instruction has no compact form",
                        );
                    };
                    c.iter()
                        .for_each(|w| bytes.extend_from_slice(&w.to_le_bytes()));
                } else {
                    dw.iter()
                        .for_each(|w| bytes.extend_from_slice(&w.to_le_bytes()));
                }
            }
        }
    }
    Ok(bytes)
}
