//! The symbolic descriptor text: a writer that each message family fills
//! with its unit, operation and fields, and a reader that splits text into
//! the same parts and hands fields out by name (see the syntax in the
//! module documentation of [`super`]).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write};

use super::MessageError;

/// A keyword-valued field: the enum's values and their words.
pub trait Named: Sized + Copy + 'static {
    /// Every value, in code order.
    const ALL: &'static [Self];
    /// The word written in text.
    fn name(self) -> &'static str;
    /// The value a word names.
    fn from_name(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.name() == s)
    }
}

/// Declares a keyword-valued enum: `Variant = "word"` per value.
macro_rules! named {
    ($(#[$m:meta])* pub enum $name:ident { $($(#[$vm:meta])* $var:ident = $text:literal,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vm])* $var,)* }

        impl $crate::message::text::Named for $name {
            const ALL: &'static [$name] = &[$($name::$var,)*];
            fn name(self) -> &'static str {
                match self { $($name::$var => $text,)* }
            }
        }
    };
}
pub(crate) use named;

/// A field value as written.
enum Val {
    Text(String),
    Num(u32),
    Hex(u32),
    Word(&'static str),
    Flag,
}

/// Text of one message: `unit.op(fields)`.
pub(crate) struct Out {
    unit: &'static str,
    op: &'static str,
    fields: Vec<(&'static str, Val)>,
}

impl Out {
    pub(crate) fn new(unit: &'static str, op: &'static str) -> Out {
        Out {
            unit,
            op,
            fields: Vec::new(),
        }
    }

    pub(crate) fn num(&mut self, name: &'static str, v: u32) {
        self.fields.push((name, Val::Num(v)));
    }

    pub(crate) fn hex(&mut self, name: &'static str, v: u32) {
        self.fields.push((name, Val::Hex(v)));
    }

    pub(crate) fn word<T: Named>(&mut self, name: &'static str, v: T) {
        self.fields.push((name, Val::Word(v.name())));
    }

    /// A value spelled by the family itself.
    pub(crate) fn word_str(&mut self, name: &'static str, v: String) {
        self.fields.push((name, Val::Text(v)));
    }

    /// A flag appears only when set.
    pub(crate) fn flag(&mut self, name: &'static str, on: bool) {
        if on {
            self.fields.push((name, Val::Flag));
        }
    }
}

impl fmt::Display for Out {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.unit)?;
        if !self.op.is_empty() {
            write!(f, ".{}", self.op)?;
        }
        f.write_char('(')?;
        for (i, (name, v)) in self.fields.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match v {
                Val::Num(n) => write!(f, "{name}={n}")?,
                Val::Hex(n) => write!(f, "{name}={n:#x}")?,
                Val::Word(w) => write!(f, "{name}={w}")?,
                Val::Text(w) => write!(f, "{name}={w}")?,
                Val::Flag => f.write_str(name)?,
            }
        }
        f.write_char(')')
    }
}

pub(crate) fn syntax(at: usize, what: String) -> MessageError {
    MessageError::Syntax { at, what }
}

/// One `name[=value]` item of the field list.
struct Item<'a> {
    name: &'a str,
    value: Option<&'a str>,
    at: usize,
    taken: bool,
}

/// The fields of a parsed message; families take them by name, and
/// [`Fields::finish`] refuses any left over.
pub(crate) struct Fields<'a> {
    items: Vec<Item<'a>>,
    /// Offset of the closing parenthesis, for errors about missing fields.
    end: usize,
}

impl<'a> Fields<'a> {
    fn take(&mut self, name: &str) -> Option<&mut Item<'a>> {
        let item = self.items.iter_mut().find(|i| i.name == name)?;
        item.taken = true;
        Some(item)
    }

    /// A numeric field, if present (decimal or `0x` hex).
    pub(crate) fn opt_num(&mut self, name: &str) -> Result<Option<u32>, MessageError> {
        let Some(item) = self.take(name) else {
            return Ok(None);
        };
        let at = item.at;
        let Some(v) = item.value else {
            return Err(syntax(at, format!("`{name}` needs a number")));
        };
        parse_num(v)
            .map(Some)
            .ok_or_else(|| syntax(at, format!("`{v}` is not a number")))
    }

    /// A numeric field that must be present.
    pub(crate) fn num(&mut self, name: &str) -> Result<u32, MessageError> {
        let end = self.end;
        self.opt_num(name)?
            .ok_or_else(|| syntax(end, format!("missing field `{name}`")))
    }

    /// A field's value as written and its offset, if present.
    pub(crate) fn opt_str(&mut self, name: &str) -> Result<Option<(&'a str, usize)>, MessageError> {
        let Some(item) = self.take(name) else {
            return Ok(None);
        };
        match item.value {
            Some(v) => Ok(Some((v, item.at))),
            None => Err(syntax(item.at, format!("`{name}` needs a value"))),
        }
    }

    /// A keyword field, if present.
    pub(crate) fn opt_word<T: Named>(&mut self, name: &str) -> Result<Option<T>, MessageError> {
        let Some(item) = self.take(name) else {
            return Ok(None);
        };
        let at = item.at;
        let v = item.value.unwrap_or("");
        match T::from_name(v) {
            Some(t) => Ok(Some(t)),
            None => {
                let mut words = String::new();
                for (i, t) in T::ALL.iter().enumerate() {
                    if i > 0 {
                        words.push_str(", ");
                    }
                    words.push_str(t.name());
                }
                Err(syntax(at, format!("`{name}` takes one of: {words}")))
            }
        }
    }

    /// A keyword field that must be present.
    pub(crate) fn word<T: Named>(&mut self, name: &str) -> Result<T, MessageError> {
        let end = self.end;
        self.opt_word(name)?
            .ok_or_else(|| syntax(end, format!("missing field `{name}`")))
    }

    /// A flag: present (without a value) or absent.
    pub(crate) fn flag(&mut self, name: &str) -> Result<bool, MessageError> {
        match self.take(name) {
            None => Ok(false),
            Some(Item { value: None, .. }) => Ok(true),
            Some(item) => Err(syntax(
                item.at,
                format!("`{name}` is a flag and takes no value"),
            )),
        }
    }

    /// Error on a field no one took.
    pub(crate) fn finish(self) -> Result<(), MessageError> {
        match self.items.iter().find(|i| !i.taken) {
            None => Ok(()),
            Some(i) => Err(syntax(
                i.at,
                format!("field `{}` does not belong to this message", i.name),
            )),
        }
    }
}

fn parse_num(s: &str) -> Option<u32> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() => u32::from_str_radix(hex, 16).ok(),
        Some(_) => None,
        None if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => s.parse().ok(),
        None => None,
    }
}

/// A descriptor in text, split into its parts.
pub(crate) struct Parsed<'a> {
    pub(crate) unit: &'a str,
    pub(crate) op: &'a str,
    /// Offset of the operation (or unit) word, for errors.
    pub(crate) op_at: usize,
    pub(crate) fields: Fields<'a>,
    pub(crate) mlen: u32,
    pub(crate) rlen: u32,
    pub(crate) header: bool,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Byte-offset cursor over the text.
struct Cursor<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn skip_space(&mut self) {
        while self
            .s
            .as_bytes()
            .get(self.pos)
            .is_some_and(u8::is_ascii_whitespace)
        {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.pos).copied()
    }

    /// A run of word characters (possibly empty).
    fn word(&mut self) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(is_word_byte) {
            self.pos += 1;
        }
        &self.s[start..self.pos]
    }

    fn expect(&mut self, b: u8) -> Result<(), MessageError> {
        self.skip_space();
        if self.peek() == Some(b) {
            self.pos += 1;
            Ok(())
        } else {
            Err(syntax(self.pos, format!("expected `{}`", b as char)))
        }
    }
}

/// Splits `unit[.op](fields) mlen=N rlen=N [hdr]`.
pub(crate) fn split(s: &str) -> Result<Parsed<'_>, MessageError> {
    let mut c = Cursor { s, pos: 0 };
    c.skip_space();
    let unit_at = c.pos;
    let unit = c.word();
    if unit.is_empty() {
        return Err(syntax(unit_at, "expected a shared-function name".into()));
    }
    let (op, op_at) = if c.peek() == Some(b'.') {
        c.pos += 1;
        let at = c.pos;
        let op = c.word();
        if op.is_empty() {
            return Err(syntax(at, "expected a message name after `.`".into()));
        }
        (op, at)
    } else {
        ("", unit_at)
    };
    c.expect(b'(')?;
    let mut items: Vec<Item<'_>> = Vec::new();
    c.skip_space();
    if c.peek() != Some(b')') {
        loop {
            c.skip_space();
            let at = c.pos;
            let name = c.word();
            if name.is_empty() {
                return Err(syntax(at, "expected a field name".into()));
            }
            c.skip_space();
            let value = if c.peek() == Some(b'=') {
                c.pos += 1;
                c.skip_space();
                let vat = c.pos;
                let v = c.word();
                if v.is_empty() {
                    return Err(syntax(vat, format!("expected a value for `{name}`")));
                }
                Some(v)
            } else {
                None
            };
            if items.iter().any(|i| i.name == name) {
                return Err(syntax(at, format!("field `{name}` given twice")));
            }
            items.push(Item {
                name,
                value,
                at,
                taken: false,
            });
            c.skip_space();
            match c.peek() {
                Some(b',') => c.pos += 1,
                _ => break,
            }
        }
    }
    c.skip_space();
    let end = c.pos;
    c.expect(b')')?;
    let (mut mlen, mut rlen, mut header) = (None, None, false);
    loop {
        c.skip_space();
        let at = c.pos;
        let w = c.word();
        match w {
            "" if c.peek().is_none() => break,
            "" => return Err(syntax(at, "unexpected character".into())),
            "hdr" if !header => header = true,
            "mlen" | "rlen" => {
                c.expect(b'=')?;
                c.skip_space();
                let vat = c.pos;
                let v = parse_num(c.word())
                    .ok_or_else(|| syntax(vat, format!("`{w}` needs a number")))?;
                let slot = if w == "mlen" { &mut mlen } else { &mut rlen };
                if slot.replace(v).is_some() {
                    return Err(syntax(at, format!("`{w}` given twice")));
                }
            }
            _ => {
                return Err(syntax(
                    at,
                    format!("unexpected `{w}`; expected mlen, rlen or hdr"),
                ));
            }
        }
    }
    let mlen = mlen.ok_or_else(|| syntax(s.len(), "missing `mlen=`".into()))?;
    let rlen = rlen.ok_or_else(|| syntax(s.len(), "missing `rlen=`".into()))?;
    Ok(Parsed {
        unit,
        op,
        op_at,
        fields: Fields { items, end },
        mlen,
        rlen,
        header,
    })
}

/// Error for an operation word a unit does not have.
pub(crate) fn unknown_op(p: &Parsed<'_>) -> MessageError {
    syntax(p.op_at, format!("`{}` has no message `{}`", p.unit, p.op))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn splits_fields_flags_and_lengths() {
        let mut p = split(" dc.untyped_read( bti=0x1F , simd=8,ret ) mlen=2 rlen=4 hdr").unwrap();
        assert_eq!((p.unit, p.op), ("dc", "untyped_read"));
        assert_eq!((p.mlen, p.rlen, p.header), (2, 4, true));
        assert_eq!(p.fields.num("bti").unwrap(), 31);
        assert_eq!(p.fields.num("simd").unwrap(), 8);
        assert!(p.fields.flag("ret").unwrap());
        assert!(!p.fields.flag("commit").unwrap());
        assert!(p.fields.finish().is_ok());
    }

    #[test]
    fn refuses_leftovers_repeats_and_missing_lengths() {
        let p = split("gw.open(ack, x=1) mlen=1 rlen=0").unwrap();
        assert!(p.fields.finish().is_err());
        assert!(split("gw.open(ack, ack) mlen=1 rlen=0").is_err());
        assert!(split("gw.open() mlen=1").is_err());
        assert!(split("gw.open() mlen=1 rlen=0 mlen=2").is_err());
        assert!(split("gw.open() mlen=1 rlen=0 extra").is_err());
        assert!(split("gw.open( mlen=1 rlen=0").is_err());
    }

    #[test]
    fn writes_fields_in_order() {
        let mut o = Out::new("ts", "deref");
        o.num("a", 3);
        o.hex("fc", 0x1F);
        o.flag("child", true);
        o.flag("root", false);
        assert_eq!(o.to_string(), "ts.deref(a=3, fc=0x1f, child)");
        assert_eq!(Out::new("null", "").to_string(), "null()");
    }

    #[test]
    fn numbers_are_decimal_or_hex_only() {
        assert_eq!(parse_num("12"), Some(12));
        assert_eq!(parse_num("0x1f"), Some(31));
        assert_eq!(parse_num("0x"), None);
        assert_eq!(parse_num("1f"), None);
        assert_eq!(parse_num("-1"), None);
    }
}
