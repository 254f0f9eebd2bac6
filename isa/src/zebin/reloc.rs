//! Program-scope data and relocations of a zebin: the `__constant` and
//! `__global` variables (and the tables IGC's built-ins carry, such as
//! `pow`'s) live in `.data.*`/`.bss.*` sections; each kernel's code reaches
//! them through addresses the runtime patches in (`.rel.text.<kernel>`,
//! `.rela.text.<kernel>`), as NEO does before it uploads the code.
//!
//! Sources: NEO's zebin layout (shared/source/device_binary_format/
//! zebin/zebin_elf.h: section names `.data.const`, `.data.global_const`,
//! `.data.const.string`, `.bss.const`, `.data.global`, `.bss.global`;
//! relocation types R_ZE_SYM_ADDR 1 (64-bit address), R_ZE_SYM_ADDR_32 2
//! (its low dword), R_ZE_SYM_ADDR_32_HI 3 (its high dword),
//! R_PER_THREAD_PAYLOAD_OFFSET 4) and the System V gABI (a symbol entry of
//! 24 bytes: st_name +0, st_info +4, st_shndx +6, st_value +8; SHT_REL 9
//! with 16-byte entries r_offset, r_info (symbol << 32 | type); SHT_RELA 4
//! with an addend after them).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::ZebinError;
use super::elf::{SHT_NOBITS, Section, u16_at, u32_at, u64_at};

/// Where program-scope data goes: the constant surface or the global one
/// (NEO's two surfaces; payload `const_base` and `global_base`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segment {
    Constants,
    Globals,
}

/// The data sections in the order they are laid out, and their segment.
const DATA_SECTIONS: [(&str, Segment); 6] = [
    (".data.const", Segment::Constants),
    (".data.global_const", Segment::Constants),
    (".bss.const", Segment::Constants),
    (".data.const.string", Segment::Constants),
    (".data.global", Segment::Globals),
    (".bss.global", Segment::Globals),
];

/// Each section starts 16-byte aligned in its segment.
const SECTION_ALIGN: usize = 16;

/// The program-scope data of a zebin, laid out per segment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Data {
    pub constants: Vec<u8>,
    pub globals: Vec<u8>,
    /// Section index -> segment and offset there.
    placed: Vec<(usize, Segment, u64)>,
}

impl Data {
    /// Lays out the data sections of `sections`.
    pub fn read(sections: &[Section<'_>]) -> Data {
        let mut d = Data::default();
        for (name, seg) in DATA_SECTIONS {
            let Some((i, s)) = sections.iter().enumerate().find(|(_, s)| s.name == name) else {
                continue;
            };
            let out = match seg {
                Segment::Constants => &mut d.constants,
                Segment::Globals => &mut d.globals,
            };
            out.resize(out.len().next_multiple_of(SECTION_ALIGN), 0);
            d.placed.push((i, seg, out.len() as u64));
            if s.kind == SHT_NOBITS {
                out.resize(out.len() + s.size, 0);
            } else {
                out.extend_from_slice(s.bytes);
            }
        }
        d
    }

    /// Where section `index` starts.
    fn place(&self, index: usize) -> Option<(Segment, u64)> {
        self.placed
            .iter()
            .find(|(i, _, _)| *i == index)
            .map(|(_, s, o)| (*s, *o))
    }
}

/// What a relocation writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelocKind {
    /// R_ZE_SYM_ADDR: the 64-bit address.
    Addr64,
    /// R_ZE_SYM_ADDR_32: its low 32 bits.
    Addr32,
    /// R_ZE_SYM_ADDR_32_HI: its high 32 bits.
    Addr32Hi,
    /// R_PER_THREAD_PAYLOAD_OFFSET: a 32-bit offset of the per-thread data.
    PerThreadPayloadOffset,
}

/// One relocation in a kernel's code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reloc {
    /// Byte offset in the kernel's code.
    pub offset: u64,
    pub kind: RelocKind,
    /// The symbol's name (for messages).
    pub symbol: String,
    /// Where the symbol is: a segment and the offset there; `None` when it
    /// is in no data section (a function of another section, undefined).
    pub target: Option<(Segment, u64)>,
    pub addend: i64,
}

/// The relocations of kernel `name`'s code.
pub fn kernel_relocs(
    sections: &[Section<'_>],
    data: &Data,
    name: &str,
) -> Result<Vec<Reloc>, ZebinError> {
    let rel = sections.iter().find(|s| {
        s.name.strip_prefix(".rel.text.") == Some(name)
            || s.name.strip_prefix(".rela.text.") == Some(name)
    });
    let Some(rel) = rel else {
        return Ok(Vec::new());
    };
    let rela = rel.name.starts_with(".rela.");
    let symtab = sections
        .iter()
        .find(|s| s.name == ".symtab")
        .ok_or(ZebinError::BadSectionTable("relocations without .symtab"))?;
    let strtab = sections
        .iter()
        .find(|s| s.name == ".strtab")
        .map_or(&[][..], |s| s.bytes);
    let entry = if rela { 24 } else { 16 };
    let mut out = Vec::new();
    for e in rel.bytes.chunks(entry) {
        if e.len() < entry {
            return Err(ZebinError::BadSectionTable("a relocation entry cut short"));
        }
        let offset = u64_at(e, 0)?;
        let info = u64_at(e, 8)?;
        let addend = if rela { u64_at(e, 16)? as i64 } else { 0 };
        let kind = match info & 0xFFFF_FFFF {
            0 => continue, // R_ZE_NONE
            1 => RelocKind::Addr64,
            2 => RelocKind::Addr32,
            3 => RelocKind::Addr32Hi,
            4 => RelocKind::PerThreadPayloadOffset,
            _ => return Err(ZebinError::BadSectionTable("unknown relocation type")),
        };
        let sym = usize::try_from(info >> 32).unwrap_or(usize::MAX);
        let at = sym
            .checked_mul(24)
            .ok_or(ZebinError::BadSectionTable("symbol index"))?;
        let st_name = u32_at(symtab.bytes, at)? as usize;
        let shndx = u16_at(symtab.bytes, at + 6)?;
        let value = u64_at(symtab.bytes, at + 8)?;
        let symbol = strtab
            .get(st_name..)
            .and_then(|s| s.split(|c| *c == 0).next())
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .unwrap_or_default();
        let target = data
            .place(shndx)
            .map(|(seg, base)| (seg, base.wrapping_add(value)));
        out.push(Reloc {
            offset,
            kind,
            symbol,
            target,
            addend,
        });
    }
    Ok(out)
}

/// `code` with `relocs` applied: symbols resolve to `constants` or
/// `globals` (the segments' GPU addresses; `None`: not uploaded, an error
/// if a relocation needs it) plus their offset and the addend;
/// `per_thread_offset` fills R_PER_THREAD_PAYLOAD_OFFSET.
pub fn relocate(
    code: &[u8],
    relocs: &[Reloc],
    constants: Option<u64>,
    globals: Option<u64>,
    per_thread_offset: u32,
) -> Result<Vec<u8>, String> {
    let mut out = code.to_vec();
    for r in relocs {
        let value = match (r.kind, r.target) {
            (RelocKind::PerThreadPayloadOffset, _) => u64::from(per_thread_offset),
            (_, Some((seg, off))) => {
                let base = match seg {
                    Segment::Constants => constants,
                    Segment::Globals => globals,
                }
                .ok_or_else(|| {
                    format!(
                        "relocation at {:#x} names {:?} in the {seg:?} segment, which has no address",
                        r.offset, r.symbol
                    )
                })?;
                base.wrapping_add(off).wrapping_add(r.addend as u64)
            }
            (_, None) => {
                return Err(format!(
                    "relocation at {:#x} names {:?}, which is in no data section",
                    r.offset, r.symbol
                ));
            }
        };
        let (bytes, n): ([u8; 8], usize) = match r.kind {
            RelocKind::Addr64 => (value.to_le_bytes(), 8),
            RelocKind::Addr32 | RelocKind::PerThreadPayloadOffset => (value.to_le_bytes(), 4),
            RelocKind::Addr32Hi => ((value >> 32).to_le_bytes(), 4),
        };
        let at = usize::try_from(r.offset).unwrap_or(usize::MAX);
        let dst = at
            .checked_add(n)
            .and_then(|end| out.get_mut(at..end))
            .ok_or_else(|| format!("relocation at {:#x} past the code's end", r.offset))?;
        dst.copy_from_slice(&bytes[..n]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reloc(offset: u64, kind: RelocKind, target: Option<(Segment, u64)>) -> Reloc {
        Reloc {
            offset,
            kind,
            symbol: String::from("sym"),
            target,
            addend: 0,
        }
    }

    /// Each kind writes its part of the symbol's address (segment base
    /// plus offset plus addend), little-endian, where the offset says.
    #[test]
    fn relocations_patch_the_addresses_they_name() {
        let code = alloc::vec![0xAAu8; 32];
        let mut with_addend = reloc(16, RelocKind::Addr64, Some((Segment::Globals, 0x10)));
        with_addend.addend = 4;
        let relocs = [
            reloc(0, RelocKind::Addr32, Some((Segment::Constants, 0x40))),
            reloc(4, RelocKind::Addr32Hi, Some((Segment::Constants, 0x40))),
            reloc(8, RelocKind::PerThreadPayloadOffset, None),
            with_addend,
        ];
        let out = relocate(
            &code,
            &relocs,
            Some(0x1_2345_0000),
            Some(0x9_0000_0000),
            0x60,
        )
        .unwrap();
        assert_eq!(out[0..4], 0x2345_0040u32.to_le_bytes());
        assert_eq!(out[4..8], 1u32.to_le_bytes());
        assert_eq!(out[8..12], 0x60u32.to_le_bytes());
        assert_eq!(out[12..16], [0xAA; 4], "untouched");
        assert_eq!(out[16..24], 0x9_0000_0014u64.to_le_bytes());
        // A segment without an address, a symbol in no data section, an
        // offset past the code: errors, not panics.
        assert!(relocate(&code, &relocs[..1], None, None, 0).is_err());
        assert!(
            relocate(
                &code,
                &[reloc(0, RelocKind::Addr32, None)],
                Some(0),
                Some(0),
                0
            )
            .is_err()
        );
        let past = [reloc(30, RelocKind::Addr32, Some((Segment::Globals, 0)))];
        assert!(relocate(&code, &past, Some(0), Some(0), 0).is_err());
    }
}
