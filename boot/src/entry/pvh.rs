//! PVH entry: QEMU's `-kernel` loader jumps to the address in the Xen
//! `PHYS32_ENTRY` ELF note, in 32-bit protected mode with paging off and
//! EBX pointing at a `hvm_start_info` structure. Layouts follow Xen's
//! public `arch-x86/hvm/start_info.h` (version 1 adds the memory map).

use crate::bootinfo::{BootInfo, Loader, MemoryKind, MemoryRegion};

/// Magic value of `hvm_start_info`.
pub const START_INFO_MAGIC: u32 = 0x336e_c578;
/// Bytes of `hvm_start_info` (version 1).
const START_INFO_SIZE: usize = 56;
/// Bytes of one `hvm_memmap_table_entry` (addr, size, type, reserved).
const MEMMAP_ENTRY_SIZE: usize = 24;
/// Bytes of one `hvm_modlist_entry` (paddr, size, cmdline_paddr, reserved).
const MODLIST_ENTRY_SIZE: usize = 32;
/// Longest command line read (the rest is cut).
const CMDLINE_MAX: usize = 4096;
/// Most modules looked at.
const MODULES_MAX: usize = 64;

#[cfg(target_os = "none")]
core::arch::global_asm!(
    r#"
.section .note.pvh, "a", @note
    .balign 4
    .long 4, 4, 18              /* namesz, descsz, XEN_ELFNOTE_PHYS32_ENTRY */
    .asciz "Xen"
    .balign 4
    .long pvh_start32
    .balign 4
"#,
    options(att_syntax)
);

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap_or([0; 4]))
}

fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap_or([0; 8]))
}

/// Reads physical memory: `read(addr, len)` is `None` when the range is
/// not readable.
pub type Reader<'a> = &'a dyn Fn(u64, usize) -> Option<&'a [u8]>;

/// Parses the `hvm_start_info` at `phys`. Every count is bounded; what
/// cannot be read is noted and skipped.
pub fn parse(phys: u64, read: Reader<'_>) -> BootInfo {
    let mut info = BootInfo::new(Loader::Pvh);
    let Some(si) = read(phys, START_INFO_SIZE) else {
        info.note(0, "start_info unreadable");
        return info;
    };
    if u32_at(si, 0) != START_INFO_MAGIC {
        info.note(0, "start_info magic is wrong");
        return info;
    }
    let version = u32_at(si, 4);
    info.push_reserved(phys, START_INFO_SIZE as u64);

    let cmdline = u64_at(si, 24);
    if cmdline != 0 {
        // The string may end before CMDLINE_MAX bytes; read less near the
        // end of readable memory.
        let text = (1..=CMDLINE_MAX / 256)
            .rev()
            .find_map(|k| read(cmdline, k * 256))
            .unwrap_or(&[]);
        let len = text.iter().position(|&b| b == 0).unwrap_or(text.len());
        info.set_cmdline(&text[..len]);
        info.push_reserved(cmdline, len as u64 + 1);
    }

    let modules = (u32_at(si, 12) as usize).min(MODULES_MAX);
    let modlist = u64_at(si, 16);
    if modules > 0 {
        match read(modlist, modules * MODLIST_ENTRY_SIZE) {
            Some(list) => {
                info.push_reserved(modlist, list.len() as u64);
                for m in list.chunks_exact(MODLIST_ENTRY_SIZE) {
                    info.push_reserved(u64_at(m, 0), u64_at(m, 8));
                }
            }
            None => info.note(0, "module list unreadable"),
        }
    }

    if version >= 1 {
        let count = u32_at(si, 48) as usize;
        let table = u64_at(si, 40);
        let kept = count.min(crate::bootinfo::MAX_REGIONS);
        info.regions_dropped = count - kept;
        if table != 0 && kept > 0 {
            match read(table, kept * MEMMAP_ENTRY_SIZE) {
                Some(entries) => {
                    info.push_reserved(table, entries.len() as u64);
                    for e in entries.chunks_exact(MEMMAP_ENTRY_SIZE) {
                        info.push_region(MemoryRegion {
                            addr: u64_at(e, 0),
                            len: u64_at(e, 8),
                            kind: MemoryKind::from_e820(u32_at(e, 16)),
                        });
                    }
                }
                None => info.note(0, "memory map unreadable"),
            }
        }
    } else {
        info.note(0, "start_info version 0 has no memory map");
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    #[test]
    fn reads_start_info_memory_map_and_command_line() {
        // Physical memory 0x1000..0x3000 as one buffer.
        let mut mem = vec![0u8; 0x2000];
        let mut put = |addr: usize, bytes: &[u8]| {
            mem[addr - 0x1000..addr - 0x1000 + bytes.len()].copy_from_slice(bytes)
        };
        let mut si = Vec::new();
        for v in [START_INFO_MAGIC, 1, 0, 0] {
            si.extend_from_slice(&v.to_le_bytes());
        }
        for v in [0u64, 0x1800, 0, 0x1900] {
            si.extend_from_slice(&v.to_le_bytes());
        }
        si.extend_from_slice(&2u32.to_le_bytes());
        si.extend_from_slice(&0u32.to_le_bytes());
        put(0x1000, &si);
        put(0x1800, b"quiet\0");
        let mut map = Vec::new();
        for (addr, len, kind) in [(0u64, 0x9fc00u64, 1u32), (0x100000, 0x1000_0000, 1)] {
            map.extend_from_slice(&addr.to_le_bytes());
            map.extend_from_slice(&len.to_le_bytes());
            map.extend_from_slice(&kind.to_le_bytes());
            map.extend_from_slice(&0u32.to_le_bytes());
        }
        put(0x1900, &map);
        let read = |addr: u64, len: usize| {
            let start = (addr as usize).checked_sub(0x1000)?;
            mem.get(start..start + len)
        };
        let info = parse(0x1000, &read);
        assert_eq!(info.notes(), &[]);
        assert_eq!(info.loader, Loader::Pvh);
        assert_eq!(info.cmdline(), "quiet");
        assert_eq!(info.memory_map().len(), 2);
        assert_eq!(info.ram_bytes(), 0x9fc00 + 0x1000_0000);
        assert!(info.framebuffer.is_none());
        assert!(info.reserved().contains(&(0x1900, 0x1900 + 48)));

        // A wrong magic is noted, nothing else read.
        let bad = |_: u64, len: usize| mem.get(0x10..0x10 + len);
        assert_eq!(parse(0, &bad).notes()[0].what, "start_info magic is wrong");
    }
}
