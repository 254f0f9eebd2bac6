//! Multiboot2: the header that makes the kernel ELF bootable by GRUB, and
//! the parser of the boot information GRUB passes.
//!
//! Section numbers are those of the Multiboot2 Specification version 2.0
//! (GNU GRUB manual "Multiboot2 Specification"). The loader enters
//! `multiboot2_start32` (the ELF entry point) in 32-bit protected mode,
//! paging off, with EAX = [`BOOTLOADER_MAGIC`] and EBX = the physical
//! address of the information structure (§3.3 "I386 machine state"); the
//! shared trampoline ([`super`]) takes it from there.

use crate::bootinfo::{BootInfo, ColorField, Framebuffer, Loader, MemoryKind, MemoryRegion};

/// EAX at entry (§3.3).
pub const BOOTLOADER_MAGIC: u32 = 0x36d7_6289;

/// Largest information structure accepted. GRUB's is a few KiB (the EFI
/// memory map is the largest tag); anything near this is corrupt.
pub const MAX_INFO_BYTES: usize = 1 << 20;

// The header (§3.1.1 layout, §3.1.2 magic fields): magic 0xE85250D6,
// architecture 0 (i386 32-bit protected mode), header length, checksum
// (the four u32 sum to zero). It must lie 64-bit aligned within the
// file's first 32768 bytes: linker.ld puts `.multiboot2` first.
// Tags (§3.1.3): u16 type, u16 flags (bit 0 = optional), u32 size,
// each 8-byte aligned, ended by type 0 size 8.
//  - information request (§3.1.4, type 1): the memory map (6) and
//    framebuffer (8) tags; optional, so a loader that cannot give them
//    still boots the kernel (it then uses its own fallbacks).
//  - framebuffer (§3.1.10, type 5): a preferred 1024x768 32-bpp linear
//    mode (width, height, depth); optional, so a machine without a
//    graphics mode still boots with the serial console.
// No address tag (§3.1.5): the loader takes the load addresses from the
// ELF program headers; no entry address tag (§3.1.6): the ELF entry point
// is `multiboot2_start32`.
#[cfg(target_os = "none")]
core::arch::global_asm!(
    r#"
.section .multiboot2, "a"
    .balign 8
multiboot2_header:
    .long 0xe85250d6
    .long 0
    .long multiboot2_header_end - multiboot2_header
    .long -(0xe85250d6 + 0 + (multiboot2_header_end - multiboot2_header))
    .balign 8
    .short 1, 1                 /* information request, optional */
    .long 16
    .long 6, 8                  /* memory map, framebuffer info */
    .balign 8
    .short 5, 1                 /* framebuffer, optional */
    .long 20
    .long 1024, 768, 32
    .balign 8
    .short 0, 0                 /* end */
    .long 8
multiboot2_header_end:
"#,
    options(att_syntax)
);

/// Boot information tag types (§3.6.2 and the sections named).
mod tag {
    pub const END: u32 = 0;
    /// §3.6.5 Boot command line.
    pub const CMDLINE: u32 = 1;
    /// §3.6.9 Boot loader name.
    pub const LOADER_NAME: u32 = 2;
    /// §3.6.6 Modules.
    pub const MODULE: u32 = 3;
    /// §3.6.8 Memory map.
    pub const MEMORY_MAP: u32 = 6;
    /// §3.6.12 Framebuffer info.
    pub const FRAMEBUFFER: u32 = 8;
}

fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(off..off + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], off: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(off..off + 8)?.try_into().ok()?))
}

/// The information structure's length, from its first u32 (§3.6.1:
/// `total_size`, then a reserved u32, then the tags).
pub fn total_size(first8: &[u8; 8]) -> u32 {
    u32::from_le_bytes([first8[0], first8[1], first8[2], first8[3]])
}

/// Parses the information structure `mbi` found at physical address
/// `phys`. Malformed or unusable tags are noted and skipped; the walk is
/// bounded by the structure's length and never reads outside `mbi`.
pub fn parse(mbi: &[u8], phys: u64) -> BootInfo {
    let mut info = BootInfo::new(Loader::Multiboot2);
    let Some(total) = u32_at(mbi, 0) else {
        info.note(0, "boot information shorter than its header");
        return info;
    };
    let total = total as usize;
    if total < 16 || total > mbi.len() {
        info.note(0, "boot information total_size out of range");
        return info;
    }
    info.push_reserved(phys, total as u64);
    let mbi = &mbi[..total];
    let mut off = 8;
    let mut ended = false;
    // Every tag is at least 8 bytes, so the loop runs at most total/8 times.
    while off + 8 <= total {
        let (Some(kind), Some(size)) = (u32_at(mbi, off), u32_at(mbi, off + 4)) else {
            break;
        };
        let size = size as usize;
        if size < 8 || size > total - off {
            info.note(
                kind,
                "tag size runs outside the boot information; rest ignored",
            );
            return info;
        }
        let body = &mbi[off..off + size];
        match kind {
            tag::END => {
                ended = true;
                break;
            }
            tag::CMDLINE => info.set_cmdline(&body[8..]),
            tag::LOADER_NAME => info.set_loader_name(&body[8..]),
            tag::MODULE => module(&mut info, body),
            tag::MEMORY_MAP => memory_map(&mut info, body),
            tag::FRAMEBUFFER => framebuffer(&mut info, body),
            // Every other tag (basic memory, boot device, ELF sections,
            // APM, VBE, EFI, SMBIOS, ACPI, network, load base...) is not
            // used by this kernel.
            _ => {}
        }
        // Tags start 8-byte aligned (§3.6.2).
        off += size.next_multiple_of(8);
    }
    if !ended {
        info.note(tag::END, "no end tag before total_size");
    }
    info
}

/// §3.6.6: u32 type, u32 size, u32 mod_start, u32 mod_end, string.
fn module(info: &mut BootInfo, body: &[u8]) {
    match (u32_at(body, 8), u32_at(body, 12)) {
        (Some(start), Some(end)) if end >= start => {
            info.push_reserved(u64::from(start), u64::from(end - start))
        }
        _ => info.note(tag::MODULE, "module tag with a bad range"),
    }
}

/// §3.6.8: u32 type, u32 size, u32 entry_size, u32 entry_version, then
/// entries of `entry_size` bytes: u64 base_addr, u64 length, u32 type,
/// u32 reserved (entry_size is a multiple of 8, at least 24).
fn memory_map(info: &mut BootInfo, body: &[u8]) {
    let Some(entry_size) = u32_at(body, 8) else {
        info.note(tag::MEMORY_MAP, "memory map tag too short");
        return;
    };
    let entry_size = entry_size as usize;
    if entry_size < 24 {
        info.note(tag::MEMORY_MAP, "memory map entry_size below 24");
        return;
    }
    for entry in body[16..].chunks_exact(entry_size) {
        let (Some(addr), Some(len), Some(kind)) =
            (u64_at(entry, 0), u64_at(entry, 8), u32_at(entry, 16))
        else {
            continue;
        };
        info.push_region(MemoryRegion {
            addr,
            len,
            kind: MemoryKind::from_e820(kind),
        });
    }
}

/// §3.6.12: u32 type, u32 size, u64 framebuffer_addr, u32 pitch, u32
/// width, u32 height, u8 bpp, u8 framebuffer_type, then reserved and
/// color_info. For type 1 (direct RGB) color_info is red position, red
/// mask size, green position, green size, blue position, blue size (u8
/// each). The specification's table shows one reserved byte, but GRUB
/// (the reference loader) declares it u16 and writes color_info at offset
/// 32 [ext: GRUB include/multiboot2.h, struct
/// multiboot_tag_framebuffer_common], which is what loaders produce.
fn framebuffer(info: &mut BootInfo, body: &[u8]) {
    const RGB: u8 = 1;
    const COLOR_INFO: usize = 32;
    let (Some(addr), Some(pitch), Some(width), Some(height)) = (
        u64_at(body, 8),
        u32_at(body, 16),
        u32_at(body, 20),
        u32_at(body, 24),
    ) else {
        info.note(tag::FRAMEBUFFER, "framebuffer tag too short");
        return;
    };
    let (Some(&bpp), Some(&kind)) = (body.get(28), body.get(29)) else {
        info.note(tag::FRAMEBUFFER, "framebuffer tag too short");
        return;
    };
    if kind != RGB {
        info.note(
            tag::FRAMEBUFFER,
            "framebuffer is not direct RGB (indexed or text)",
        );
        return;
    }
    let Some(c) = body.get(COLOR_INFO..COLOR_INFO + 6) else {
        info.note(
            tag::FRAMEBUFFER,
            "RGB framebuffer tag without its colour fields",
        );
        return;
    };
    let bytes_per_pixel = u32::from(bpp) / 8;
    let fits =
        |f: &ColorField| f.size <= 8 && u32::from(f.position) + u32::from(f.size) <= u32::from(bpp);
    let field = |i: usize| ColorField {
        position: c[i],
        size: c[i + 1],
    };
    let (red, green, blue) = (field(0), field(2), field(4));
    if addr == 0
        || width == 0
        || height == 0
        || !matches!(bpp, 16 | 24 | 32)
        || u64::from(pitch) < u64::from(width) * u64::from(bytes_per_pixel)
        || ![red, green, blue].iter().all(fits)
    {
        info.note(
            tag::FRAMEBUFFER,
            "framebuffer geometry or pixel format unusable",
        );
        return;
    }
    info.framebuffer = Some(Framebuffer {
        addr,
        width,
        height,
        pitch,
        bits_per_pixel: bpp,
        red,
        green,
        blue,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// Builds an information structure from (type, body) tags.
    fn mbi(tags: &[(u32, Vec<u8>)], end: bool) -> Vec<u8> {
        let mut out = vec![0u8; 8];
        for (kind, body) in tags {
            out.extend_from_slice(&kind.to_le_bytes());
            out.extend_from_slice(&((body.len() + 8) as u32).to_le_bytes());
            out.extend_from_slice(body);
            while !out.len().is_multiple_of(8) {
                out.push(0);
            }
        }
        if end {
            out.extend_from_slice(&[0, 0, 0, 0, 8, 0, 0, 0]);
        }
        let total = out.len() as u32;
        out[..4].copy_from_slice(&total.to_le_bytes());
        out
    }

    fn mmap_body(entries: &[(u64, u64, u32)]) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&24u32.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        for &(addr, len, kind) in entries {
            b.extend_from_slice(&addr.to_le_bytes());
            b.extend_from_slice(&len.to_le_bytes());
            b.extend_from_slice(&kind.to_le_bytes());
            b.extend_from_slice(&0u32.to_le_bytes());
        }
        b
    }

    fn fb_body(kind: u8, bpp: u8) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&0xfd00_0000u64.to_le_bytes());
        b.extend_from_slice(&4096u32.to_le_bytes()); // pitch
        b.extend_from_slice(&1024u32.to_le_bytes());
        b.extend_from_slice(&768u32.to_le_bytes());
        b.extend_from_slice(&[bpp, kind, 0, 0]);
        b.extend_from_slice(&[16, 8, 8, 8, 0, 8]);
        b
    }

    #[test]
    fn reads_grub_like_information() {
        let bytes = mbi(
            &[
                (tag::CMDLINE, b"console=ttyS0\0".to_vec()),
                (tag::LOADER_NAME, b"GRUB 2.06\0".to_vec()),
                (4, vec![0; 8]), // basic memory info: not used, skipped quietly
                (
                    tag::MEMORY_MAP,
                    mmap_body(&[
                        (0, 0x9fc00, 1),
                        (0xf0000, 0x10000, 2),
                        (0x100000, 0x1fee_0000, 1),
                    ]),
                ),
                (tag::FRAMEBUFFER, fb_body(1, 32)),
                (
                    tag::MODULE,
                    [0x30_0000u32.to_le_bytes(), 0x30_2000u32.to_le_bytes()].concat(),
                ),
            ],
            true,
        );
        let info = parse(&bytes, 0x1_0000);
        assert_eq!(info.notes(), &[]);
        assert_eq!(info.loader, Loader::Multiboot2);
        assert_eq!(info.cmdline(), "console=ttyS0");
        assert_eq!(info.loader_name(), "GRUB 2.06");
        assert_eq!(info.memory_map().len(), 3);
        assert_eq!(info.memory_map()[1].kind, MemoryKind::Reserved);
        assert_eq!(info.ram_bytes(), 0x9fc00 + 0x1fee_0000);
        let fb = info.framebuffer.expect("framebuffer");
        assert_eq!(
            (fb.addr, fb.width, fb.height, fb.pitch, fb.bits_per_pixel),
            (0xfd00_0000, 1024, 768, 4096, 32)
        );
        assert_eq!(
            fb.red,
            ColorField {
                position: 16,
                size: 8
            }
        );
        assert_eq!(
            fb.blue,
            ColorField {
                position: 0,
                size: 8
            }
        );
        assert_eq!(
            info.reserved(),
            &[
                (0x1_0000, 0x1_0000 + bytes.len() as u64),
                (0x30_0000, 0x30_2000)
            ]
        );
    }

    #[test]
    fn odd_tags_are_noted_and_skipped() {
        // An indexed framebuffer, a memory map with a short entry size, an
        // unknown tag type, and no end tag.
        let bytes = mbi(
            &[
                (tag::FRAMEBUFFER, fb_body(0, 8)),
                (
                    tag::MEMORY_MAP,
                    [8u32.to_le_bytes(), 0u32.to_le_bytes()].concat(),
                ),
                (0x7777, vec![1, 2, 3]),
            ],
            false,
        );
        let info = parse(&bytes, 0);
        assert!(info.framebuffer.is_none());
        assert!(info.memory_map().is_empty());
        let tags: Vec<u32> = info.notes().iter().map(|n| n.tag).collect();
        assert_eq!(tags, [tag::FRAMEBUFFER, tag::MEMORY_MAP, tag::END]);
    }

    #[test]
    fn sizes_that_overrun_stop_the_walk() {
        let mut bytes = mbi(&[(tag::CMDLINE, b"abc\0".to_vec())], true);
        // The command line tag claims 4 KiB.
        bytes[12..16].copy_from_slice(&4096u32.to_le_bytes());
        let info = parse(&bytes, 0);
        assert_eq!(info.cmdline(), "");
        assert_eq!(info.notes()[0].tag, tag::CMDLINE);
        // total_size larger than the bytes given, or too small: nothing read.
        let mut short = mbi(&[], true);
        short[..4].copy_from_slice(&1000u32.to_le_bytes());
        assert_eq!(
            parse(&short, 0).notes()[0].what,
            "boot information total_size out of range"
        );
        assert_eq!(parse(&[1, 2], 0).notes().len(), 1);
        // A zero-size tag cannot loop forever.
        let mut zero = mbi(&[(99, vec![0; 8])], true);
        zero[12..16].copy_from_slice(&0u32.to_le_bytes());
        assert_eq!(parse(&zero, 0).notes()[0].tag, 99);
    }

    #[test]
    fn memory_map_entries_beyond_the_table_are_counted() {
        let entries: Vec<(u64, u64, u32)> = (0..crate::bootinfo::MAX_REGIONS as u64 + 3)
            .map(|i| (i << 20, 1 << 20, 1))
            .collect();
        let info = parse(&mbi(&[(tag::MEMORY_MAP, mmap_body(&entries))], true), 0);
        assert_eq!(info.memory_map().len(), crate::bootinfo::MAX_REGIONS);
        assert_eq!(info.regions_dropped, 3);
    }
}
