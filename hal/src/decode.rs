//! Batch decoder over the reflection tables: lists the commands in a stream
//! of dwords with their fields, reports unknown opcodes and truncated
//! packets, and never panics. It is the base of error dumps and tools.

use core::fmt;

use crate::reflect::{CommandInfo, FieldInfo, FieldKind, GenTables};

/// What went wrong at one place in the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeProblem {
    /// No command of this engine matches dword 0; `assumed_length` is what
    /// the generic header rules of its client suggest.
    Unknown { assumed_length: usize },
    /// The packet claims more dwords than remain.
    Truncated { needed: usize },
    /// The DWord Length gives a length the command cannot have.
    BadLength { length: usize },
}

/// One entry of a decoded stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded<'a> {
    /// Dword index of the command in the stream.
    pub offset: usize,
    /// The command, when recognised.
    pub command: Option<&'static CommandInfo>,
    /// The command's dwords (as many as are present).
    pub dwords: &'a [u32],
    pub problem: Option<DecodeProblem>,
}

/// Generic length rule of a command's client (bits 31:29), for commands the
/// tables do not know. MI: opcodes below 0x10 are one dword, else length in
/// 5:0 + 2; 2D and 3D: 7:0 + 2; media/GPGPU (3D subtype 2): 15:0 + 2.
/// Source: SNB PRM (003) lines 1935-2141, the client/length table.
pub fn generic_length(dw0: u32) -> usize {
    match dw0 >> 29 {
        0 => {
            if (dw0 >> 23) & 0x3f < 0x10 {
                1
            } else {
                (dw0 & 0x3f) as usize + 2
            }
        }
        2 => (dw0 & 0xff) as usize + 2,
        3 => {
            let subtype = (dw0 >> 27) & 0x3;
            let opcode = (dw0 >> 24) & 0x7;
            if subtype == 1 && opcode <= 1 {
                1 // single-dword GFXPIPE commands (PIPELINE_SELECT ...)
            } else if subtype == 2 {
                (dw0 & 0xffff) as usize + 2
            } else {
                (dw0 & 0xff) as usize + 2
            }
        }
        _ => 1,
    }
}

/// An iterator over the commands of a stream.
pub struct Decoder<'a> {
    tables: &'static GenTables,
    engine: &'a str,
    dwords: &'a [u32],
    pos: usize,
    stop_at_end: bool,
    ended: bool,
}

/// Decodes `dwords` as commands of `engine` in generation `tables`.
pub fn decode<'a>(tables: &'static GenTables, engine: &'a str, dwords: &'a [u32]) -> Decoder<'a> {
    Decoder {
        tables,
        engine,
        dwords,
        pos: 0,
        stop_at_end: false,
        ended: false,
    }
}

impl<'a> Decoder<'a> {
    /// Stop after MI_BATCH_BUFFER_END (as the command streamer does).
    pub fn stop_at_batch_end(mut self) -> Self {
        self.stop_at_end = true;
        self
    }
}

impl<'a> Iterator for Decoder<'a> {
    type Item = Decoded<'a>;

    fn next(&mut self) -> Option<Decoded<'a>> {
        if self.ended || self.pos >= self.dwords.len() {
            return None;
        }
        let offset = self.pos;
        let rest = &self.dwords[offset..];
        let dw0 = rest[0];
        let command = self.tables.identify(self.engine, dw0);
        let (length, mut problem) = match command {
            Some(c) => {
                let len = c.length_from_header(dw0);
                let valid = match (c.length, &c.group) {
                    (Some(n), _) => len == n as usize,
                    (None, Some(g)) => {
                        len >= c.min_length as usize
                            && (len - g.dw as usize).is_multiple_of(g.size as usize)
                    }
                    (None, None) => len >= c.min_length as usize,
                };
                (
                    len.max(1),
                    if valid {
                        None
                    } else {
                        Some(DecodeProblem::BadLength { length: len })
                    },
                )
            }
            None => {
                let len = generic_length(dw0);
                (
                    len,
                    Some(DecodeProblem::Unknown {
                        assumed_length: len,
                    }),
                )
            }
        };
        let available = length.min(rest.len());
        if length > rest.len() {
            problem = Some(DecodeProblem::Truncated { needed: length });
            self.ended = true;
        }
        self.pos += available;
        if self.stop_at_end && command.is_some_and(|c| c.name == "MI_BATCH_BUFFER_END") {
            self.ended = true;
        }
        Some(Decoded {
            offset,
            command,
            dwords: &rest[..available],
            problem,
        })
    }
}

/// Formats one field's value from raw bits.
pub struct FieldValue<'f> {
    pub field: &'f FieldInfo,
    pub raw: u64,
}

impl fmt::Display for FieldValue<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let field = self.field;
        let raw = self.raw;
        match field.kind {
            FieldKind::Bool => write!(f, "{}", raw != 0)?,
            FieldKind::Address | FieldKind::Offset => write!(f, "{:#x}", raw << field.shift)?,
            FieldKind::Int | FieldKind::Sfixed if field.frac == 0 => {
                write!(f, "{}", crate::bits::sign_extend(raw, field.width()))?
            }
            FieldKind::Float => write!(f, "{}", f32::from_bits(raw as u32))?,
            FieldKind::Ufixed => write!(
                f,
                "{} ({:#x})",
                raw as f64 / (1u64 << field.frac) as f64,
                raw
            )?,
            FieldKind::Sfixed => {
                let v = crate::bits::sign_extend(raw, field.width()) as f64
                    / (1u64 << field.frac) as f64;
                write!(f, "{} ({:#x})", v, raw)?
            }
            _ => {
                if raw < 10 {
                    write!(f, "{raw}")?
                } else {
                    write!(f, "{raw:#x}")?
                }
            }
        }
        if let Some(name) = field.value_name(raw) {
            write!(f, " ({name})")?;
        }
        Ok(())
    }
}

impl fmt::Display for Decoded<'_> {
    /// One line per command plus one per field, as an error dump shows it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dw0 = self.dwords.first().copied().unwrap_or(0);
        match self.command {
            Some(c) => writeln!(
                f,
                "{:#06x}: {:#010x}  {} ({} dword{})",
                self.offset * 4,
                dw0,
                c.name,
                self.dwords.len(),
                if self.dwords.len() == 1 { "" } else { "s" }
            )?,
            None => writeln!(
                f,
                "{:#06x}: {:#010x}  unknown command",
                self.offset * 4,
                dw0
            )?,
        }
        match self.problem {
            Some(DecodeProblem::Unknown { assumed_length }) => writeln!(
                f,
                "        (no table entry; skipping {assumed_length} dwords by the client's length rule)"
            )?,
            Some(DecodeProblem::Truncated { needed }) => writeln!(
                f,
                "        TRUNCATED: needs {needed} dwords, {} present",
                self.dwords.len()
            )?,
            Some(DecodeProblem::BadLength { length }) => {
                writeln!(f, "        BAD LENGTH: header says {length} dwords")?
            }
            None => {}
        }
        let Some(c) = self.command else { return Ok(()) };
        for field in c.fields.iter().filter(|fl| {
            !matches!(
                fl.kind,
                FieldKind::Fixed | FieldKind::Mbz | FieldKind::Length
            )
        }) {
            if (field.start as usize) / 32 >= self.dwords.len() {
                continue; // optional dwords not present
            }
            let raw = field.extract(self.dwords);
            writeln!(f, "        {}: {}", field.name, FieldValue { field, raw })?;
        }
        if let Some(g) = &c.group {
            let start = g.dw as usize;
            let elems = self.dwords.get(start..).unwrap_or(&[]);
            for (i, e) in elems.chunks(g.size as usize).enumerate() {
                for field in g.fields.iter().filter(|fl| fl.kind != FieldKind::Mbz) {
                    let raw = field.extract(e);
                    writeln!(
                        f,
                        "        {}[{i}].{}: {}",
                        g.name,
                        field.name,
                        FieldValue { field, raw }
                    )?;
                }
            }
        }
        Ok(())
    }
}
