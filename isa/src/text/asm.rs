//! Statements → instructions → bytes: labels and encoding here; operand
//! placement in [`operand`], the controls around the operands in
//! [`options`], the forms of each layout in [`form`] and [`send`].

mod form;
mod operand;
mod options;
mod send;

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::parse::{Stmt, statement};
use crate::codec;
use crate::compact;
use crate::inst::{Body, Imm, Instruction, Jump, Src};
use crate::platform::Platform;
use crate::tables;
use form::build;

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
    /// A `.raw` word (2 or 4 dwords).
    Raw(Vec<u32>),
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

/// Parses a single instruction line whose branch targets are numeric.
pub(crate) fn parse_line(p: Platform, text: &str, line: usize) -> Res<Option<Item>> {
    match statement(p, text, line)? {
        Some(Stmt::Inst(l)) => {
            let (inst, compacted, labels) = build(p, &l, line)?;
            if let Some((_, name, col)) = labels.first() {
                return err(line, *col, alloc::format!("undefined label {name}"));
            }
            Ok(Some(Item { inst, compacted }))
        }
        _ => Ok(None),
    }
}

/// Parses a whole source text into instructions with labels resolved.
pub fn assemble_program(p: Platform, text: &str) -> Result<Vec<Program>, AsmError> {
    let mut labels: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    let mut pending = Vec::new();
    let mut offset = 0usize;
    for (i, text) in text.lines().enumerate() {
        let line = i + 1;
        match statement(p, text, line)? {
            None => {}
            Some(Stmt::Label(name)) if labels.contains_key(&name) => {
                return err(line, 1, alloc::format!("label {name} defined twice"));
            }
            Some(Stmt::Label(name)) => {
                labels.insert(name, offset);
            }
            Some(Stmt::Raw(words)) => {
                offset += words.len() * 4;
                out.push(Program::Raw(words));
            }
            Some(Stmt::Inst(l)) => {
                let (inst, compacted, refs) = build(p, &l, line)?;
                if !refs.is_empty() {
                    pending.push((out.len(), offset, refs));
                }
                offset += if compacted { 8 } else { 16 };
                out.push(Program::Inst {
                    inst,
                    compacted,
                    line,
                });
            }
        }
    }
    for (index, at, refs) in pending {
        let Some(Program::Inst { inst, line, .. }) = out.get_mut(index) else {
            continue;
        };
        for (which, name, col) in refs {
            let Some(&target) = labels.get(&name) else {
                return err(*line, col, alloc::format!("undefined label {name}"));
            };
            let bytes = target as i64 - at as i64;
            set_target(p, inst, which, bytes).or_else(|m| err(*line, col, m))?;
        }
    }
    Ok(out)
}

/// Assembles a source text to little-endian bytes.
pub fn assemble(p: Platform, text: &str) -> Result<Vec<u8>, AsmError> {
    let mut bytes = Vec::new();
    for item in assemble_program(p, text)? {
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

/// Which jump field a label fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Which {
    Jip,
    Uip,
    Jmpi,
}

type Refs = Vec<(Which, String, usize)>;

fn set_target(p: Platform, inst: &mut Instruction, which: Which, bytes: i64) -> Result<(), String> {
    let b = i32::try_from(bytes).map_err(|_| String::from("branch offset out of range"))?;
    match (&mut inst.body, which) {
        (Body::Branch(br), _) => match (&mut br.jump, which) {
            (Jump::Count { jump, .. }, _) | (Jump::Jip { jip: jump }, _) => *jump = b,
            (Jump::JipUip { jip, .. }, Which::Jip) => *jip = b,
            (Jump::JipUip { uip, .. }, _) => *uip = b,
        },
        (Body::Alu(a), Which::Jmpi) => a.src1 = Src::Imm(jmpi_imm(p, bytes)?),
        _ => return Err(String::from("this instruction takes no label")),
    }
    Ok(())
}

/// The `jmpi` immediate for a byte offset from the `jmpi` (see the printer).
fn jmpi_imm(p: Platform, bytes: i64) -> Result<Imm, String> {
    let rel = bytes - 16;
    let unit = if p == Platform::Gen75 {
        1
    } else {
        i64::from(tables::for_platform(p).jmpi_unit)
    };
    if rel % unit != 0 {
        return Err(alloc::format!(
            "jmpi offset {bytes} is not a multiple of {unit} bytes"
        ));
    }
    let v = i32::try_from(rel / unit).map_err(|_| String::from("jmpi offset out of range"))?;
    Ok(Imm::d(v))
}
