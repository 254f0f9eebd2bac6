//! Reflection tables: names, positions and types of every register, command
//! and structure field, generated from the same tables as the typed code.
//! Decoders, error dumps, `hal-dump` and tools read these.

/// How a field's bits are interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FieldKind {
    /// A constant header value that identifies the command.
    Fixed,
    /// DWord Length: total dwords minus the command's bias.
    Length,
    Uint,
    Int,
    Bool,
    Enum,
    /// A graphics address; the field holds bits `shift..` of it.
    Address,
    /// An offset (state, register); the field holds bits `shift..` of it.
    Offset,
    Float,
    Ufixed,
    Sfixed,
    /// Must be zero.
    Mbz,
}

impl FieldKind {
    /// The name used in the table files and the JSON export.
    pub const fn name(self) -> &'static str {
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
}

/// One field. `start` and `end` are inclusive bit numbers counted from bit 0
/// of dword 0 (of the command, the group element, the structure or the
/// register), as Mesa's genxml counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldInfo {
    pub name: &'static str,
    pub start: u16,
    pub end: u16,
    pub kind: FieldKind,
    /// The header value of a `Fixed` field.
    pub value: Option<u64>,
    pub default: Option<u64>,
    /// Named values.
    pub values: &'static [(&'static str, u64)],
    /// Low bits of the value not stored (addresses and offsets).
    pub shift: u8,
    /// Fraction bits of fixed-point fields.
    pub frac: u8,
}

impl FieldInfo {
    pub const fn width(&self) -> u32 {
        (self.end - self.start + 1) as u32
    }

    /// Reads the raw field bits out of `dwords` (missing dwords read as 0).
    pub fn extract(&self, dwords: &[u32]) -> u64 {
        crate::bits::get(dwords, self.start as u32, self.width())
    }

    /// The name of a raw value, if the table names it.
    pub fn value_name(&self, raw: u64) -> Option<&'static str> {
        self.values.iter().find(|(_, v)| *v == raw).map(|(n, _)| *n)
    }
}

/// The repeated tail of a variable-length command or structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupInfo {
    pub name: &'static str,
    /// First dword of the first element.
    pub dw: u16,
    /// Dwords per element.
    pub size: u16,
    /// Fields, with bit numbers relative to the element.
    pub fields: &'static [FieldInfo],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandInfo {
    pub name: &'static str,
    /// Engines whose command streamer accepts it.
    pub engines: &'static [&'static str],
    /// Total dwords when fixed.
    pub length: Option<u16>,
    pub min_length: u16,
    /// DWord Length = total - bias (1: no length field).
    pub bias: u8,
    /// Dword 0 matches when `dw0 & header_mask == header_value`.
    pub header_mask: u32,
    pub header_value: u32,
    pub fields: &'static [FieldInfo],
    pub group: Option<GroupInfo>,
    /// Where the entry comes from.
    pub source: &'static str,
}

impl CommandInfo {
    /// The DWord Length field, if the command has one.
    pub fn length_field(&self) -> Option<&'static FieldInfo> {
        self.fields.iter().find(|f| f.kind == FieldKind::Length)
    }

    /// The command's total length in dwords as its header states it.
    pub fn length_from_header(&self, dw0: u32) -> usize {
        match self.length_field() {
            Some(f) => f.extract(&[dw0]) as usize + self.bias as usize,
            None => self.length.unwrap_or(self.min_length) as usize,
        }
    }

    pub fn accepts(&self, engine: &str) -> bool {
        self.engines.contains(&engine)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegisterInfo {
    pub name: &'static str,
    /// Engine-relative offset when `engines` is non-empty, else absolute.
    pub offset: u32,
    pub engines: &'static [&'static str],
    pub width: u8,
    /// `rw`, `ro`, `wo`, `rw1c` or `masked`.
    pub access: &'static str,
    pub reset: Option<u64>,
    pub count: u32,
    pub stride: u32,
    pub fields: &'static [FieldInfo],
    pub source: &'static str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StructInfo {
    pub name: &'static str,
    pub length: u16,
    pub fields: &'static [FieldInfo],
    pub group: Option<GroupInfo>,
    pub source: &'static str,
}

/// Everything known about one generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenTables {
    /// `gen4`, `g45`, `gen6`, `gen7` or `gen12.5`.
    pub name: &'static str,
    /// Engine names and MMIO bases.
    pub engines: &'static [(&'static str, u32)],
    pub registers: &'static [RegisterInfo],
    pub commands: &'static [CommandInfo],
    pub structs: &'static [StructInfo],
}

impl GenTables {
    pub fn command(&self, name: &str) -> Option<&'static CommandInfo> {
        self.commands.iter().find(|c| c.name == name)
    }
    pub fn register(&self, name: &str) -> Option<&'static RegisterInfo> {
        self.registers.iter().find(|r| r.name == name)
    }
    pub fn structure(&self, name: &str) -> Option<&'static StructInfo> {
        self.structs.iter().find(|s| s.name == name)
    }
    pub fn engine_base(&self, engine: &str) -> Option<u32> {
        self.engines
            .iter()
            .find(|(n, _)| *n == engine)
            .map(|(_, b)| *b)
    }

    /// The absolute MMIO offset of a register (instance `index` of an array)
    /// on `engine` (ignored for absolute registers).
    pub fn register_offset(&self, reg: &RegisterInfo, engine: &str, index: u32) -> Option<u32> {
        if index >= reg.count {
            return None;
        }
        let base = if reg.engines.is_empty() {
            0
        } else if reg.engines.contains(&engine) {
            self.engine_base(engine)?
        } else {
            return None;
        };
        Some(base + reg.offset + index * reg.stride)
    }

    /// The command of `engine` that dword 0 identifies: the matching entry
    /// with the most specific header (most mask bits).
    pub fn identify(&self, engine: &str, dw0: u32) -> Option<&'static CommandInfo> {
        self.commands
            .iter()
            .filter(|c| c.accepts(engine) && dw0 & c.header_mask == c.header_value)
            .max_by_key(|c| c.header_mask.count_ones())
    }
}
