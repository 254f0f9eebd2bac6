//! Text → statements: a hand-written scanner over one line at a time that
//! reports errors with line and column and never panics. The lexer is in
//! `cursor`, operands in `operand`.

mod cursor;
mod operand;

pub(crate) use cursor::{Cursor, Res};

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::{COND_NAMES, MATH_NAMES, PRED_NAMES};
use crate::generation::IsaGen;
use crate::inst::{CondMod, MathFn, PredCtrl, Type};

/// A register or immediate operand as written, before it is given a slot.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Opnd {
    Reg(RegOp),
    Imm {
        value: ImmVal,
        ty: Type,
        col: usize,
    },
    /// A bare number or label: a branch target.
    Target {
        target: Target,
        col: usize,
    },
    /// `m<n>` before a Gen4 send payload is a register too; `pop(N)`.
    Pop {
        count: u8,
        col: usize,
    },
    /// A send's symbolic message descriptor (`dc.untyped_read(...) mlen=2
    /// rlen=4`, see [`crate::message`]): it stands for both the SFID and
    /// the descriptor operands.
    Message {
        sfid: crate::inst::Sfid,
        desc: crate::inst::MsgDesc,
        col: usize,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Target {
    Bytes(i64),
    Label(String),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ImmVal {
    /// As written, without wrapping: the type decides the accepted range.
    Int(i128),
    Float(f64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RegAddr {
    /// Register number; sub-register as written and whether it is in bytes.
    Direct {
        nr: u8,
        sub: Option<(u32, bool)>,
    },
    Indirect {
        addr_subnr: u8,
        offset: i16,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RegOp {
    pub sat: bool,
    pub negate: bool,
    pub abs: bool,
    pub file: crate::inst::RegFile,
    pub addr: RegAddr,
    /// Region numbers and whether a `;` separated the first two.
    pub region: Option<(Vec<u8>, bool)>,
    /// Letters after the region (`xyzw`).
    pub swizzle: Option<String>,
    pub ty: Option<Type>,
    pub col: usize,
}

/// An operand slot the syntax usually leaves implicit, written out as
/// `dst=`, `src0=` or `src1=` (see the module text of [`super`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SlotName {
    Dst,
    Src0,
    Src1,
}

/// The value of an explicit slot.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum SlotValue {
    Opnd(Opnd),
    /// `arf:ud`: only the file and type fields (a vacant slot).
    Vacant(crate::inst::RegFile, Type),
}

/// `slot=value` after the operands.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Explicit {
    pub slot: SlotName,
    pub value: SlotValue,
    pub col: usize,
}

/// One parsed instruction line, operands not yet placed.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Line {
    pub no_mask: bool,
    pub pred: Option<(bool, u8, u8, PredCtrl)>,
    pub mnemonic: String,
    pub mnemonic_col: usize,
    pub math: Option<MathFn>,
    pub exec: Option<(u8, u8)>,
    pub cond: Option<(CondMod, u8, u8)>,
    pub operands: Vec<Opnd>,
    /// Implicit slots written out, in the order written.
    pub explicit: Vec<Explicit>,
    pub options: Vec<(String, usize)>,
}

/// A statement of a source file.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Stmt {
    Label(String),
    Inst(Line),
    Raw(Vec<u32>),
}

/// Parses one line into a statement (`None` for a blank line).
pub(crate) fn statement(p: IsaGen, text: &str, line: usize) -> Res<Option<Stmt>> {
    let mut c = Cursor::new(text, line);
    if c.at_end() {
        return Ok(None);
    }
    let start = c.pos;
    if c.eat(b'.') {
        let col = c.col();
        let name = c.ident();
        if name != "raw" {
            return c.err(col, alloc::format!("unknown directive .{name}"));
        }
        let mut words = Vec::new();
        while !c.at_end() {
            let col = c.col();
            let v = c.uint()?;
            words.push(u32::try_from(v).or_else(|_| c.err(col, "a .raw word has 32 bits"))?);
        }
        if words.len() != 2 && words.len() != 4 {
            return c.err(c.col(), ".raw takes 2 (compact) or 4 (native) dwords");
        }
        return Ok(Some(Stmt::Raw(words)));
    }
    // A label?
    let id = c.ident();
    if !id.is_empty() {
        c.ws();
        if c.eat(b':') {
            if id.as_bytes()[0].is_ascii_digit() {
                return c.err(start + 1, "a label must start with a letter");
            }
            let name = id.to_string();
            if !c.at_end() {
                return c.err(c.col(), "expected end of line after a label");
            }
            return Ok(Some(Stmt::Label(name)));
        }
    }
    c.pos = start;
    instruction(p, &mut c).map(|l| Some(Stmt::Inst(l)))
}

fn instruction(p: IsaGen, c: &mut Cursor) -> Res<Line> {
    let mut l = Line {
        no_mask: false,
        pred: None,
        mnemonic: String::new(),
        mnemonic_col: 0,
        math: None,
        exec: None,
        cond: None,
        operands: Vec::new(),
        explicit: Vec::new(),
        options: Vec::new(),
    };
    c.ws();
    if c.eat(b'(') {
        c.ws();
        if c.peek() == Some(b'W') {
            c.pos += 1;
            l.no_mask = true;
            c.ws();
            if c.eat(b'&') {
                c.ws();
                l.pred = Some(predicate(c)?);
            }
        } else {
            l.pred = Some(predicate(c)?);
        }
        c.ws();
        c.expect(b')')?;
    }
    c.ws();
    l.mnemonic_col = c.col();
    l.mnemonic = c.ident().to_string();
    if l.mnemonic.is_empty() {
        return c.err(l.mnemonic_col, "expected a mnemonic");
    }
    if c.eat(b'.') {
        let col = c.col();
        let f = c.ident();
        match MATH_NAMES.iter().find(|(_, n)| *n == f) {
            Some((m, _)) if l.mnemonic == "math" => l.math = Some(*m),
            _ => return c.err(col, alloc::format!("unknown function '.{f}'")),
        }
    }
    c.ws();
    // Execution size `(8|M0)`, or a condition modifier `(lt)f0.0`.
    let save = c.pos;
    if c.eat(b'(') {
        c.ws();
        if c.peek().is_some_and(|b| b.is_ascii_digit()) {
            let col = c.col();
            let n = c.small(32, "execution size")?;
            if !matches!(n, 1 | 2 | 4 | 8 | 16 | 32) {
                return c.err(
                    col,
                    alloc::format!("execution size {n} is not 1, 2, 4, 8, 16 or 32"),
                );
            }
            c.ws();
            let mut m = 0;
            if c.eat(b'|') {
                c.ws();
                let col = c.col();
                if !c.eat(b'M') {
                    return c.err(col, "expected a channel offset M<n>");
                }
                let mcol = c.col();
                m = c.small(28, "channel offset")?;
                if m % 4 != 0 {
                    return c.err(mcol, "channel offset must be a multiple of 4");
                }
            }
            c.ws();
            c.expect(b')')?;
            l.exec = Some((n, m));
        } else {
            c.pos = save;
        }
    }
    c.ws();
    let save = c.pos;
    if c.eat(b'(') {
        let col = c.col();
        let name = c.ident();
        if let Some((cm, _)) = COND_NAMES.iter().find(|(_, n)| *n == name) {
            c.expect(b')')?;
            let (r, s) = c.flag()?;
            l.cond = Some((*cm, r, s));
        } else if name == "sat" || name == "abs" {
            c.pos = save;
        } else {
            return c.err(col, alloc::format!("unknown condition modifier '({name})'"));
        }
    }
    // Operands.
    loop {
        if c.at_end() {
            break;
        }
        if c.peek() == Some(b'{') {
            options(c, &mut l.options)?;
            if !c.at_end() {
                return c.err(c.col(), "unexpected text after the options");
            }
            break;
        }
        if let Some(e) = explicit(p, c)? {
            l.explicit.push(e);
            continue;
        }
        if !l.explicit.is_empty() {
            return c.err(c.col(), "operands come before dst=/src0=/src1=");
        }
        if matches!(l.mnemonic.as_str(), "send" | "sendc")
            && let Some(m) = symbolic_descriptor(p, c)?
        {
            l.operands.push(m);
            continue;
        }
        l.operands.push(operand::operand(p, c)?);
    }
    Ok(l)
}

/// `dst=`, `src0=` or `src1=` and its operand or `file:type`, if the cursor
/// is at one.
fn explicit(p: IsaGen, c: &mut Cursor) -> Res<Option<Explicit>> {
    let start = c.pos;
    let col = c.col();
    let slot = match c.ident() {
        "dst" => SlotName::Dst,
        "src0" => SlotName::Src0,
        "src1" => SlotName::Src1,
        _ => {
            c.pos = start;
            return Ok(None);
        }
    };
    if !c.eat(b'=') {
        c.pos = start;
        return Ok(None);
    }
    let vstart = c.pos;
    let file = match c.ident() {
        "arf" => Some(crate::inst::RegFile::Arf),
        "grf" => Some(crate::inst::RegFile::Grf),
        "mrf" => Some(crate::inst::RegFile::Mrf),
        "imm" => Some(crate::inst::RegFile::Imm),
        _ => None,
    };
    if let Some(file) = file
        && c.eat(b':')
    {
        let ty = operand::parse_type(c)?;
        return Ok(Some(Explicit {
            slot,
            value: SlotValue::Vacant(file, ty),
            col,
        }));
    }
    c.pos = vstart;
    let o = operand::operand(p, c)?;
    Ok(Some(Explicit {
        slot,
        value: SlotValue::Opnd(o),
        col,
    }))
}

/// A send's symbolic descriptor, if the cursor is at one: a unit word
/// followed by `.` or `(` (no register is named like a unit). It runs to
/// the options or the end of the line.
fn symbolic_descriptor(p: IsaGen, c: &mut Cursor) -> Res<Option<Opnd>> {
    let start = c.pos;
    let word = c.ident();
    let next = c.peek();
    c.pos = start;
    if !crate::message::is_unit_word(word) || !matches!(next, Some(b'.' | b'(')) {
        return Ok(None);
    }
    let col = c.col();
    let rest = &c.s[start..];
    let end = rest
        .windows(2)
        .position(|w| w == b"//")
        .unwrap_or(rest.len())
        .min(
            rest.iter()
                .position(|&b| b == b'{' || b == b'#')
                .unwrap_or(rest.len()),
        );
    let text = core::str::from_utf8(&rest[..end]).unwrap_or("");
    match crate::message::parse_symbolic(p, text) {
        Ok((sfid, desc)) => {
            c.pos = start + end;
            Ok(Some(Opnd::Message { sfid, desc, col }))
        }
        Err(e) => c.err(col, alloc::format!("message descriptor: {e}")),
    }
}

fn predicate(c: &mut Cursor) -> Res<(bool, u8, u8, PredCtrl)> {
    let inv = c.eat(b'~');
    let (r, s) = c.flag()?;
    let mut ctrl = PredCtrl::Normal;
    if c.eat(b'.') {
        let col = c.col();
        let n = c.ident();
        match PRED_NAMES.iter().find(|(_, name)| *name == n) {
            Some((pc, _)) => ctrl = *pc,
            None => return c.err(col, alloc::format!("unknown predicate control '.{n}'")),
        }
    }
    Ok((inv, r, s, ctrl))
}

fn options(c: &mut Cursor, out: &mut Vec<(String, usize)>) -> Res<()> {
    c.expect(b'{')?;
    loop {
        c.ws();
        if c.eat(b'}') {
            return Ok(());
        }
        let col = c.col();
        let name = c.ident();
        if name.is_empty() {
            return c.err(col, "expected an option name or '}'");
        }
        out.push((name.to_string(), col));
        c.ws();
        if !c.eat(b',') && c.peek() != Some(b'}') {
            return c.err(c.col(), "expected ',' or '}' in the options");
        }
    }
}
