//! The checked, normalised form of the tables.

use std::collections::BTreeMap;

/// Where an entry's facts come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Citation {
    /// Manual number (`"003"`) or `"ext"` for a public source outside the manuals.
    pub source: String,
    /// Line range in the manual, e.g. `"15944-16048"`.
    pub lines: Option<String>,
    /// For facts from elsewhere: where (file, symbol).
    pub reference: Option<String>,
    /// Why the entry deviates from the manual, or anything a reader must know.
    pub note: Option<String>,
}

impl Citation {
    /// One line for generated docs: "SNB PRM (003) lines 1-2" or "ext: Mesa ...".
    pub fn describe(&self) -> String {
        let mut s = match (&self.lines, &self.reference) {
            (Some(lines), None) => format!("manual {} lines {}", self.source, lines),
            (Some(lines), Some(r)) => format!("manual {} lines {}; {}", self.source, lines, r),
            (None, Some(r)) => format!("{}: {}", self.source, r),
            (None, None) => format!("{} (no location)", self.source),
        };
        if let Some(n) = &self.note {
            s.push_str("; note: ");
            s.push_str(n);
        }
        s
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FieldKind {
    Fixed,
    Length,
    Uint,
    Int,
    Bool,
    Enum,
    Address,
    Offset,
    Float,
    Ufixed,
    Sfixed,
    Mbz,
}

impl FieldKind {
    pub fn parse(s: &str) -> Option<FieldKind> {
        Some(match s {
            "fixed" => FieldKind::Fixed,
            "length" => FieldKind::Length,
            "uint" => FieldKind::Uint,
            "int" => FieldKind::Int,
            "bool" => FieldKind::Bool,
            "enum" => FieldKind::Enum,
            "address" => FieldKind::Address,
            "offset" => FieldKind::Offset,
            "float" => FieldKind::Float,
            "ufixed" => FieldKind::Ufixed,
            "sfixed" => FieldKind::Sfixed,
            "mbz" => FieldKind::Mbz,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            FieldKind::Fixed => "fixed",
            FieldKind::Length => "length",
            FieldKind::Uint => "uint",
            FieldKind::Int => "int",
            FieldKind::Bool => "bool",
            FieldKind::Enum => "enum",
            FieldKind::Address => "address",
            FieldKind::Offset => "offset",
            FieldKind::Float => "float",
            FieldKind::Ufixed => "ufixed",
            FieldKind::Sfixed => "sfixed",
            FieldKind::Mbz => "mbz",
        }
    }

    /// Whether the field is a member of the generated struct.
    pub fn is_value(self) -> bool {
        !matches!(self, FieldKind::Fixed | FieldKind::Length | FieldKind::Mbz)
    }
}

/// One field. `start`/`end` are absolute bit numbers counted from bit 0 of
/// dword 0 (of the packet, the group element, or the register), inclusive.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub start: u32,
    pub end: u32,
    pub kind: FieldKind,
    /// For `fixed`: the header value.
    pub value: Option<u64>,
    pub default: Option<u64>,
    /// Named values (enums, and named values of plain fields).
    pub values: Vec<(String, u64)>,
    /// Fraction bits of fixed-point fields.
    pub frac: Option<u32>,
    /// For `address`/`offset`: how many low bits of the value are dropped
    /// (the `lo` of the field's `bits` within its first dword).
    pub shift: u32,
    /// Register fields: access when it differs from the register's.
    pub access: Option<String>,
    pub note: Option<String>,
    pub reference: Option<String>,
}

impl Field {
    pub fn width(&self) -> u32 {
        self.end - self.start + 1
    }
    /// The largest raw value the field holds.
    pub fn max_raw(&self) -> u64 {
        if self.width() >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width()) - 1
        }
    }
    /// Whether the Rust value needs 64 bits.
    pub fn is_wide(&self) -> bool {
        match self.kind {
            FieldKind::Address => true,
            FieldKind::Offset => self.width() + self.shift > 32,
            _ => self.width() > 32,
        }
    }
}

/// A repeated tail of a variable-length command.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub name: String,
    /// Dword where the first element starts.
    pub dw: u32,
    /// Dwords per element.
    pub size: u32,
    pub fields: Vec<Field>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Command {
    pub name: String,
    pub citation: Citation,
    pub engines: Vec<String>,
    /// Total dwords when fixed.
    pub length: Option<u32>,
    /// Smallest legal length (equals `length` when fixed).
    pub min_length: u32,
    /// DWord Length = total - bias; bias 1 means no length field.
    pub bias: u32,
    pub fields: Vec<Field>,
    pub groups: Vec<Group>,
}

impl Command {
    /// (mask, value) over dword 0 of the `fixed` fields: how the decoder
    /// recognises the command.
    pub fn header_match(&self) -> (u32, u32) {
        let mut mask = 0u32;
        let mut value = 0u32;
        for f in self
            .fields
            .iter()
            .filter(|f| f.kind == FieldKind::Fixed && f.end < 32)
        {
            let m = (f.max_raw() as u32) << f.start;
            mask |= m;
            value |= ((f.value.unwrap_or(0) as u32) << f.start) & m;
        }
        (mask, value)
    }

    pub fn length_field(&self) -> Option<&Field> {
        self.fields.iter().find(|f| f.kind == FieldKind::Length)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Register {
    pub name: String,
    pub citation: Citation,
    /// Engine-relative offset when `engines` is non-empty, else absolute.
    pub offset: u32,
    pub engines: Vec<String>,
    pub width: u32,
    pub access: String,
    pub reset: Option<u64>,
    pub count: u32,
    pub stride: u32,
    pub fields: Vec<Field>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Struct {
    pub name: String,
    pub citation: Citation,
    pub length: u32,
    pub fields: Vec<Field>,
    pub groups: Vec<Group>,
}

/// Everything one generation has, merged with what it inherits.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GenerationTables {
    pub name: String,
    pub engines: BTreeMap<String, u32>,
    pub registers: Vec<Register>,
    pub commands: Vec<Command>,
    pub structs: Vec<Struct>,
}
