//! What the loader told the kernel, in one shape whichever loader it was:
//! memory map, firmware framebuffer, command line, loader name, and the
//! physical ranges the loader's data occupies (which the heap must avoid).
//!
//! Built by [`crate::entry::pvh`] from Xen's `hvm_start_info` or by
//! [`crate::entry::multiboot2`] from the multiboot2 tags. The structure is
//! a fixed-size copy (no heap yet when it is built) kept for the kernel's
//! lifetime; what does not fit is counted, never silently lost.

use core::fmt;

/// Memory map entries kept (the rest are counted in `regions_dropped`).
pub const MAX_REGIONS: usize = 128;
/// Reserved ranges kept: the boot information itself, modules, strings.
pub const MAX_RESERVED: usize = 16;
/// Notes about input that was skipped while parsing.
pub const MAX_NOTES: usize = 8;

/// The loader that started the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loader {
    /// QEMU's `-kernel` through the Xen PVH entry note.
    Pvh,
    /// A Multiboot2 loader (GRUB).
    Multiboot2,
}

/// The type of a memory map entry. PVH passes e820 types and Multiboot2
/// uses the same numbers (Multiboot2 spec 2.0 §3.6.8: 1 available, 3 ACPI
/// reclaimable, 4 preserved on hibernation, 5 defective, others reserved).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryKind {
    Usable,
    Reserved,
    AcpiReclaimable,
    AcpiNvs,
    Defective,
    /// Any other number: reserved, as both specifications say.
    Other(u32),
}

impl MemoryKind {
    pub fn from_e820(kind: u32) -> MemoryKind {
        match kind {
            1 => MemoryKind::Usable,
            2 => MemoryKind::Reserved,
            3 => MemoryKind::AcpiReclaimable,
            4 => MemoryKind::AcpiNvs,
            5 => MemoryKind::Defective,
            other => MemoryKind::Other(other),
        }
    }
}

/// One memory map entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryRegion {
    pub addr: u64,
    pub len: u64,
    pub kind: MemoryKind,
}

/// Where one colour channel sits in a pixel (bit position and width).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColorField {
    pub position: u8,
    pub size: u8,
}

/// A linear direct-colour framebuffer the firmware or loader set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Framebuffer {
    /// Physical address of pixel (0, 0).
    pub addr: u64,
    pub width: u32,
    pub height: u32,
    /// Bytes from one row to the next.
    pub pitch: u32,
    pub bits_per_pixel: u8,
    pub red: ColorField,
    pub green: ColorField,
    pub blue: ColorField,
}

impl Framebuffer {
    /// Bytes the framebuffer spans.
    pub fn size_bytes(&self) -> u64 {
        u64::from(self.pitch) * u64::from(self.height)
    }
}

/// Something in the loader's data that was not used, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Note {
    /// The tag type (Multiboot2) or 0.
    pub tag: u32,
    pub what: &'static str,
}

/// The boot information handed to the kernel's main function.
#[derive(Clone, Debug)]
pub struct BootInfo {
    pub loader: Loader,
    regions: [MemoryRegion; MAX_REGIONS],
    region_count: usize,
    /// Memory map entries that did not fit in `MAX_REGIONS`.
    pub regions_dropped: usize,
    pub framebuffer: Option<Framebuffer>,
    cmdline: [u8; 256],
    cmdline_len: usize,
    loader_name: [u8; 64],
    loader_name_len: usize,
    reserved: [(u64, u64); MAX_RESERVED],
    reserved_count: usize,
    notes: [Note; MAX_NOTES],
    note_count: usize,
    /// Notes that did not fit in `MAX_NOTES`.
    pub notes_dropped: usize,
}

impl BootInfo {
    pub const fn new(loader: Loader) -> BootInfo {
        const EMPTY: MemoryRegion = MemoryRegion {
            addr: 0,
            len: 0,
            kind: MemoryKind::Reserved,
        };
        BootInfo {
            loader,
            regions: [EMPTY; MAX_REGIONS],
            region_count: 0,
            regions_dropped: 0,
            framebuffer: None,
            cmdline: [0; 256],
            cmdline_len: 0,
            loader_name: [0; 64],
            loader_name_len: 0,
            reserved: [(0, 0); MAX_RESERVED],
            reserved_count: 0,
            notes: [Note { tag: 0, what: "" }; MAX_NOTES],
            note_count: 0,
            notes_dropped: 0,
        }
    }

    /// The firmware memory map, in the loader's order.
    pub fn memory_map(&self) -> &[MemoryRegion] {
        &self.regions[..self.region_count]
    }

    /// Bytes of usable RAM in the memory map.
    pub fn ram_bytes(&self) -> u64 {
        self.memory_map()
            .iter()
            .filter(|r| r.kind == MemoryKind::Usable)
            .map(|r| r.len)
            .sum()
    }

    /// The kernel command line (up to its first byte that is not UTF-8).
    pub fn cmdline(&self) -> &str {
        utf8_prefix(&self.cmdline[..self.cmdline_len])
    }

    /// The loader's name, when it gave one.
    pub fn loader_name(&self) -> &str {
        utf8_prefix(&self.loader_name[..self.loader_name_len])
    }

    /// Physical ranges (start, end) holding the loader's data: the boot
    /// information, its tables and strings, and modules.
    pub fn reserved(&self) -> &[(u64, u64)] {
        &self.reserved[..self.reserved_count]
    }

    /// What was skipped while parsing.
    pub fn notes(&self) -> &[Note] {
        &self.notes[..self.note_count]
    }

    pub fn push_region(&mut self, region: MemoryRegion) {
        if self.region_count < MAX_REGIONS {
            self.regions[self.region_count] = region;
            self.region_count += 1;
        } else {
            self.regions_dropped += 1;
        }
    }

    /// Records `len` bytes at `start` as loader data (ignored when empty).
    /// When the table is full, the last entry grows to cover the new range
    /// too: the heap then avoids more than it must, never less.
    pub fn push_reserved(&mut self, start: u64, len: u64) {
        if len == 0 {
            return;
        }
        let end = start.saturating_add(len);
        if self.reserved_count < MAX_RESERVED {
            self.reserved[self.reserved_count] = (start, end);
            self.reserved_count += 1;
        } else {
            let last = &mut self.reserved[MAX_RESERVED - 1];
            *last = (last.0.min(start), last.1.max(end));
        }
    }

    pub fn note(&mut self, tag: u32, what: &'static str) {
        if self.note_count < MAX_NOTES {
            self.notes[self.note_count] = Note { tag, what };
            self.note_count += 1;
        } else {
            self.notes_dropped += 1;
        }
    }

    /// Copies a string the loader gave (NUL-terminated or not), truncated
    /// to the buffer.
    pub fn set_cmdline(&mut self, bytes: &[u8]) {
        self.cmdline_len = copy_string(&mut self.cmdline, bytes);
    }

    pub fn set_loader_name(&mut self, bytes: &[u8]) {
        self.loader_name_len = copy_string(&mut self.loader_name, bytes);
    }
}

fn copy_string(dst: &mut [u8], src: &[u8]) -> usize {
    let src = src.split(|&b| b == 0).next().unwrap_or(&[]);
    let n = src.len().min(dst.len());
    dst[..n].copy_from_slice(&src[..n]);
    n
}

fn utf8_prefix(bytes: &[u8]) -> &str {
    match core::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => core::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""),
    }
}

/// One line: loader, RAM, framebuffer, command line.
impl fmt::Display for BootInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.loader {
            Loader::Pvh => write!(f, "PVH")?,
            Loader::Multiboot2 => write!(f, "multiboot2")?,
        }
        if !self.loader_name().is_empty() {
            write!(f, " from \"{}\"", self.loader_name())?;
        }
        write!(
            f,
            ", {} MiB of RAM in a map of {} regions",
            self.ram_bytes() >> 20,
            self.memory_map().len()
        )?;
        match &self.framebuffer {
            Some(fb) => write!(
                f,
                ", framebuffer {}x{} {} bpp (pitch {}) at {:#x}",
                fb.width, fb.height, fb.bits_per_pixel, fb.pitch, fb.addr
            )?,
            None => write!(f, ", no firmware framebuffer")?,
        }
        if !self.cmdline().is_empty() {
            write!(f, ", command line \"{}\"", self.cmdline())?;
        }
        Ok(())
    }
}
