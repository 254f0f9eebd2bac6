//! The ELF64 little-endian section table of a zebin: names and bytes.
//! Layout from the ELF specification (System V gABI, "Sections": the file
//! header's e_shoff at 0x28, e_shentsize 0x3A, e_shnum 0x3C, e_shstrndx
//! 0x3E; a section header's sh_name +0, sh_type +4, sh_offset +0x18,
//! sh_size +0x20). Every read is bounds-checked.

use alloc::string::String;
use alloc::vec::Vec;

use super::ZebinError;

/// One section: its name, type and bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section<'a> {
    pub name: String,
    pub kind: u32,
    pub bytes: &'a [u8],
    /// sh_size: the byte length, also of a section without bytes in the
    /// file (SHT_NOBITS, `.bss.*`).
    pub size: usize,
}

/// SHT_NOBITS: a section without bytes in the file.
pub const SHT_NOBITS: u32 = 8;

fn get(b: &[u8], at: usize, n: usize) -> Result<&[u8], ZebinError> {
    at.checked_add(n)
        .and_then(|end| b.get(at..end))
        .ok_or(ZebinError::Truncated { at })
}

pub(super) fn u16_at(b: &[u8], at: usize) -> Result<usize, ZebinError> {
    let s = get(b, at, 2)?;
    Ok(usize::from(u16::from_le_bytes([s[0], s[1]])))
}

pub(super) fn u32_at(b: &[u8], at: usize) -> Result<u32, ZebinError> {
    let s = get(b, at, 4)?;
    Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

pub(super) fn u64_at(b: &[u8], at: usize) -> Result<u64, ZebinError> {
    let s = get(b, at, 8)?;
    let mut q = [0u8; 8];
    q.copy_from_slice(s);
    Ok(u64::from_le_bytes(q))
}

fn usize_at(b: &[u8], at: usize) -> Result<usize, ZebinError> {
    usize::try_from(u64_at(b, at)?).map_err(|_| ZebinError::Truncated { at })
}

/// Every section of `elf`.
pub fn sections(elf: &[u8]) -> Result<Vec<Section<'_>>, ZebinError> {
    if get(elf, 0, 4)? != b"\x7fELF" {
        return Err(ZebinError::NotElf);
    }
    // EI_CLASS 2 (64-bit), EI_DATA 1 (little-endian).
    if get(elf, 4, 2)? != [2, 1] {
        return Err(ZebinError::NotElf64Le);
    }
    let shoff = usize_at(elf, 0x28)?;
    let shentsize = u16_at(elf, 0x3A)?;
    let shnum = u16_at(elf, 0x3C)?;
    let shstrndx = u16_at(elf, 0x3E)?;
    if shentsize < 0x40 {
        return Err(ZebinError::BadSectionTable("section header size below 64"));
    }
    if shstrndx >= shnum {
        return Err(ZebinError::BadSectionTable(
            "section-name table index past the section count",
        ));
    }
    let header = |i: usize| -> Result<(u32, u32, usize, usize), ZebinError> {
        let h = i
            .checked_mul(shentsize)
            .and_then(|o| o.checked_add(shoff))
            .ok_or(ZebinError::BadSectionTable(
                "section header offset overflows",
            ))?;
        Ok((
            u32_at(elf, h)?,
            u32_at(elf, h + 4)?,
            usize_at(elf, h + 0x18)?,
            usize_at(elf, h + 0x20)?,
        ))
    };
    let body = |kind: u32, off: usize, size: usize| -> Result<&[u8], ZebinError> {
        if kind == SHT_NOBITS {
            Ok(&[])
        } else {
            get(elf, off, size)
        }
    };
    let (_, strkind, stroff, strsize) = header(shstrndx)?;
    let names = body(strkind, stroff, strsize)?;
    let mut out = Vec::with_capacity(shnum);
    for i in 0..shnum {
        let (name, kind, off, size) = header(i)?;
        let name = names
            .get(name as usize..)
            .and_then(|s| s.split(|&c| c == 0).next())
            .ok_or(ZebinError::BadSectionTable(
                "section name outside the name table",
            ))?;
        out.push(Section {
            name: String::from_utf8_lossy(name).into_owned(),
            kind,
            bytes: body(kind, off, size)?,
            size,
        });
    }
    Ok(out)
}
