//! The scanner: a cursor over one line with the lexical pieces (blanks
//! and comments, identifiers, numbers, flag registers) and positioned errors.

use alloc::string::{String, ToString};

use super::super::asm::AsmError;

/// A position in one line of source.
pub(crate) struct Cursor<'a> {
    pub(super) s: &'a [u8],
    pub(super) pos: usize,
    line: usize,
}

pub(crate) type Res<T> = Result<T, AsmError>;

impl<'a> Cursor<'a> {
    pub(crate) fn new(s: &'a str, line: usize) -> Self {
        Cursor {
            s: s.as_bytes(),
            pos: 0,
            line,
        }
    }

    pub(crate) fn col(&self) -> usize {
        self.pos + 1
    }

    pub(crate) fn err<T>(&self, col: usize, msg: impl Into<String>) -> Res<T> {
        Err(AsmError {
            line: self.line,
            col,
            message: msg.into(),
        })
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    pub(super) fn peek_at(&self, k: usize) -> Option<u8> {
        self.s.get(self.pos + k).copied()
    }

    /// Skips blanks and `/* */` comments; a `//` or `#` comment ends the line.
    pub(super) fn ws(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\r') => self.pos += 1,
                Some(b'/') if self.peek_at(1) == Some(b'*') => {
                    let rest = &self.s[self.pos + 2..];
                    match rest.windows(2).position(|w| w == b"*/") {
                        Some(i) => self.pos += i + 4,
                        None => self.pos = self.s.len(),
                    }
                }
                Some(b'/') if self.peek_at(1) == Some(b'/') => self.pos = self.s.len(),
                _ => return,
            }
        }
    }

    pub(super) fn at_end(&mut self) -> bool {
        self.ws();
        self.pos >= self.s.len()
    }

    pub(super) fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn expect(&mut self, c: u8) -> Res<()> {
        if self.eat(c) {
            Ok(())
        } else {
            let found = self.peek().map_or("end of line".to_string(), |b| {
                alloc::format!("'{}'", b as char)
            });
            self.err(
                self.col(),
                alloc::format!("expected '{}', found {found}", c as char),
            )
        }
    }

    pub(super) fn ident(&mut self) -> &'a str {
        let start = self.pos;
        while let Some(b) = self.peek() {
            if b.is_ascii_alphanumeric() || b == b'_' {
                self.pos += 1;
            } else {
                break;
            }
        }
        core::str::from_utf8(&self.s[start..self.pos]).unwrap_or("")
    }

    /// An unsigned decimal or `0x` hex integer.
    pub(super) fn uint(&mut self) -> Res<u64> {
        let col = self.col();
        let hex = self.peek() == Some(b'0') && matches!(self.peek_at(1), Some(b'x' | b'X'));
        if hex {
            self.pos += 2;
        }
        let start = self.pos;
        while self.peek().is_some_and(|b| {
            if hex {
                b.is_ascii_hexdigit()
            } else {
                b.is_ascii_digit()
            }
        }) {
            self.pos += 1;
        }
        let digits = core::str::from_utf8(&self.s[start..self.pos]).unwrap_or("");
        let parsed = if hex {
            u64::from_str_radix(digits, 16)
        } else {
            digits.parse::<u64>()
        };
        match parsed {
            Ok(v) => Ok(v),
            Err(_) if digits.is_empty() => self.err(col, "expected a number"),
            Err(_) => self.err(col, "number out of range (more than 64 bits)"),
        }
    }

    pub(super) fn small(&mut self, max: u64, what: &str) -> Res<u8> {
        let col = self.col();
        let v = self.uint()?;
        if v > max {
            return self.err(
                col,
                alloc::format!("{what} {v} out of range (at most {max})"),
            );
        }
        Ok(v as u8)
    }

    /// A signed integer.
    pub(super) fn int(&mut self) -> Res<i64> {
        let neg = self.eat(b'-');
        let col = self.col();
        let v = self.uint()?;
        let v = i64::try_from(v).or_else(|_| self.err(col, "number too large"))?;
        Ok(if neg { -v } else { v })
    }

    /// `f<r>.<s>`.
    pub(super) fn flag(&mut self) -> Res<(u8, u8)> {
        let col = self.col();
        if !self.eat(b'f') {
            return self.err(col, "expected a flag register f<n>.<m>");
        }
        let r = self.small(1, "flag register")?;
        self.expect(b'.')?;
        let s = self.small(1, "flag sub-register")?;
        Ok((r, s))
    }
}
