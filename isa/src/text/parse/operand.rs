//! Operands: registers with modifiers, regions, swizzles and types,
//! typed immediates, branch targets and `pop(N)`.

use alloc::string::ToString;
use alloc::vec::Vec;

use super::super::{ARF_NAMES, TYPES, arf_base};
use super::{Cursor, ImmVal, Opnd, RegAddr, RegOp, Res, Target};
use crate::generation::IsaGen;
use crate::inst::Type;
use crate::tables::ArfKind;

pub(super) fn parse_type(c: &mut Cursor) -> Res<Type> {
    let col = c.col();
    let name = c.ident();
    match TYPES.iter().find(|t| t.name() == name.to_ascii_lowercase()) {
        Some(t) => Ok(*t),
        None => c.err(col, alloc::format!("unknown type ':{name}'")),
    }
}

/// Splits `acc1` into (`acc`, 1); `null`/`ip` have no number.
fn split_name(id: &str) -> (&str, Option<u8>) {
    let digits = id.bytes().rev().take_while(u8::is_ascii_digit).count();
    let (name, num) = id.split_at(id.len() - digits);
    (name, num.parse::<u8>().ok())
}

pub(super) fn operand(p: IsaGen, c: &mut Cursor) -> Res<Opnd> {
    let col = c.col();
    let mut sat = false;
    let mut negate = false;
    let mut abs = false;
    loop {
        let save = c.pos;
        if c.eat(b'(') {
            let n = c.ident();
            match n {
                "sat" => sat = true,
                "abs" => abs = true,
                _ => {
                    c.pos = save;
                    return c.err(col, "expected an operand");
                }
            }
            c.expect(b')')?;
        } else if c.peek() == Some(b'-') && !c.peek_at(1).is_some_and(|b| b.is_ascii_digit()) {
            c.pos += 1;
            negate = true;
        } else {
            break;
        }
    }
    let plain = !sat && !negate && !abs;
    // Immediates and numeric targets.
    if c.peek().is_some_and(|b| b.is_ascii_digit() || b == b'-') {
        let icol = c.col();
        let neg = c.eat(b'-');
        let vstart = c.pos;
        let int = c.uint()?;
        let int = i128::from(int);
        let mut value = ImmVal::Int(if neg { -int } else { int });
        if c.peek() == Some(b'.') && c.peek_at(1).is_some_and(|b| b.is_ascii_digit()) {
            c.pos += 1;
            // Digits, then an optional exponent with its sign (`1.5e-3`).
            while let Some(b) = c.peek() {
                let exponent_sign = matches!(b, b'+' | b'-')
                    && c.pos > vstart
                    && matches!(c.s[c.pos - 1], b'e' | b'E');
                if !(b.is_ascii_digit() || matches!(b, b'e' | b'E') || exponent_sign) {
                    break;
                }
                c.pos += 1;
            }
            let txt = core::str::from_utf8(&c.s[vstart..c.pos]).unwrap_or("");
            match txt.parse::<f64>() {
                Ok(f) => value = ImmVal::Float(if neg { -f } else { f }),
                Err(_) => return c.err(icol, "malformed float"),
            }
        }
        if c.eat(b':') {
            let ty = parse_type(c)?;
            return Ok(Opnd::Imm {
                value,
                ty,
                col: icol,
            });
        }
        return match (value, plain) {
            (ImmVal::Int(v), true) => match i64::try_from(v) {
                Ok(v) => Ok(Opnd::Target {
                    target: Target::Bytes(v),
                    col: icol,
                }),
                Err(_) => c.err(icol, alloc::format!("{v} is out of range")),
            },
            _ => c.err(icol, "an immediate needs a type, e.g. 5:d"),
        };
    }
    let id = c.ident();
    if id.is_empty() {
        return c.err(col, "expected an operand");
    }
    if matches!(id, "inf" | "nan") && c.peek() == Some(b':') {
        c.pos += 1;
        let ty = parse_type(c)?;
        let v = if id == "inf" { f64::INFINITY } else { f64::NAN };
        return Ok(Opnd::Imm {
            value: ImmVal::Float(if negate { -v } else { v }),
            ty,
            col,
        });
    }
    if id == "pop" && c.eat(b'(') {
        let n = c.small(15, "pop count")?;
        c.expect(b')')?;
        return Ok(Opnd::Pop { count: n, col });
    }
    let (name, num) = split_name(id);
    use crate::inst::RegFile;
    let mut file = RegFile::Arf;
    let mut addr = None;
    match (name, num) {
        ("r" | "m", None) if c.peek() == Some(b'[') => {
            file = if name == "r" {
                RegFile::Grf
            } else {
                RegFile::Mrf
            };
            c.pos += 1;
            c.ws();
            let acol = c.col();
            if c.ident() != "a0" {
                return c.err(acol, "expected a0.<n> in an indirect operand");
            }
            c.expect(b'.')?;
            let addr_subnr = c.small(15, "address sub-register")?;
            c.ws();
            let mut offset = 0;
            if c.eat(b',') {
                c.ws();
                let ocol = c.col();
                let v = c.int()?;
                if !(-512..=511).contains(&v) {
                    return c.err(ocol, "indirect offset out of range -512..=511");
                }
                offset = v as i16;
            }
            c.ws();
            c.expect(b']')?;
            addr = Some(RegAddr::Indirect { addr_subnr, offset });
        }
        ("r", Some(n)) => {
            file = RegFile::Grf;
            addr = Some(RegAddr::Direct { nr: n, sub: None });
        }
        ("m", Some(n)) => {
            file = RegFile::Mrf;
            addr = Some(RegAddr::Direct { nr: n, sub: None });
        }
        ("arf", Some(n)) => addr = Some(RegAddr::Direct { nr: n, sub: None }),
        // A source slot whose file field says IMM but whose other bits are
        // register fields (the placeholder src0 of branches), `imm0<0;1,0>:w`.
        ("imm", Some(n)) => {
            file = RegFile::Imm;
            addr = Some(RegAddr::Direct { nr: n, sub: None });
        }
        _ => {
            if let Some((kind, _)) = ARF_NAMES.iter().find(|(_, n)| *n == name) {
                let bare = matches!(kind, ArfKind::Null | ArfKind::Ip);
                if num.is_some() || bare {
                    let base = arf_base(p, *kind).map_or_else(
                        || c.err(col, alloc::format!("{id} does not exist on {p}")),
                        Ok,
                    )?;
                    let n = num.unwrap_or(0);
                    if n > 15 {
                        return c.err(col, "register number out of range");
                    }
                    addr = Some(RegAddr::Direct {
                        nr: base | n,
                        sub: None,
                    });
                }
            }
        }
    }
    let Some(mut addr) = addr else {
        if !plain {
            return c.err(col, alloc::format!("unknown register '{id}'"));
        }
        if id.as_bytes()[0].is_ascii_digit() {
            return c.err(col, "expected an operand");
        }
        return Ok(Opnd::Target {
            target: Target::Label(id.to_string()),
            col,
        });
    };
    // Sub-register.
    if let RegAddr::Direct { sub, .. } = &mut addr
        && c.peek() == Some(b'.')
        && c.peek_at(1).is_some_and(|b| b.is_ascii_digit())
    {
        c.pos += 1;
        let v = c.uint()?;
        let bytes = c.eat(b'b');
        *sub = Some((v.min(u64::from(u32::MAX)) as u32, bytes));
    }
    let mut region = None;
    if c.eat(b'<') {
        let mut nums = Vec::new();
        let mut semi = false;
        loop {
            c.ws();
            nums.push(c.small(32, "region value")?);
            c.ws();
            if c.eat(b'>') {
                break;
            }
            if c.eat(b';') {
                semi = true;
            } else {
                c.expect(b',')?;
            }
            if nums.len() > 3 {
                return c.err(c.col(), "a region has at most three values");
            }
        }
        region = Some((nums, semi));
    }
    let mut swizzle = None;
    if c.peek() == Some(b'.') && c.peek_at(1).is_some_and(|b| b.is_ascii_alphabetic()) {
        c.pos += 1;
        let scol = c.col();
        let s = c.ident();
        if s != "none"
            && (s.len() > 4 || !s.bytes().all(|b| matches!(b, b'x' | b'y' | b'z' | b'w')))
        {
            return c.err(scol, alloc::format!("bad swizzle or write mask '.{s}'"));
        }
        swizzle = Some(s.to_string());
    }
    let mut ty = None;
    if c.eat(b':') {
        ty = Some(parse_type(c)?);
    }
    Ok(Opnd::Reg(RegOp {
        sat,
        negate,
        abs,
        file,
        addr,
        region,
        swizzle,
        ty,
        col,
    }))
}
