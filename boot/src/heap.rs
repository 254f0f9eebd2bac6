//! The kernel heap: the largest usable RAM range of the boot memory map
//! above the kernel image and below 4 GiB (the trampoline's identity map),
//! clear of the loader's data (boot information, modules, strings) and of
//! the framebuffer.

use linked_list_allocator::LockedHeap;

use crate::bootinfo::{BootInfo, MemoryKind};

#[cfg_attr(target_os = "none", global_allocator)]
static HEAP: LockedHeap = LockedHeap::empty();

#[cfg(target_os = "none")]
unsafe extern "C" {
    /// End of the kernel image, from the linker script.
    static _kernel_end: u8;
}

/// The heap stays inside the trampoline's identity map.
pub const MAPPED_LIMIT: u64 = 4 << 30;

/// The largest free range (start, length), 4 KiB aligned, of usable RAM
/// between `floor` and `limit` that overlaps none of the boot
/// information's reserved ranges nor its framebuffer.
pub fn choose_region(info: &BootInfo, floor: u64, limit: u64) -> Option<(u64, u64)> {
    const PAGE: u64 = 4096;
    let mut avoid = [(0u64, 0u64); crate::bootinfo::MAX_RESERVED + 1];
    let mut n = 0;
    for &r in info.reserved() {
        avoid[n] = r;
        n += 1;
    }
    if let Some(fb) = &info.framebuffer {
        avoid[n] = (fb.addr, fb.addr.saturating_add(fb.size_bytes()));
        n += 1;
    }
    let avoid = &mut avoid[..n];
    avoid.sort_unstable();
    let mut best: Option<(u64, u64)> = None;
    let mut consider = |start: u64, end: u64| {
        let start = start.next_multiple_of(PAGE);
        let end = end & !(PAGE - 1);
        if end > start && best.is_none_or(|(_, len)| end - start > len) {
            best = Some((start, end - start));
        }
    };
    for r in info
        .memory_map()
        .iter()
        .filter(|r| r.kind == MemoryKind::Usable)
    {
        let mut start = r.addr.max(floor);
        let end = r.addr.saturating_add(r.len).min(limit);
        // The gaps between the (sorted) ranges to avoid.
        for &(a, b) in avoid.iter() {
            if b <= start || a >= end {
                continue;
            }
            consider(start, a.max(start));
            start = start.max(b);
        }
        if start < end {
            consider(start, end);
        }
    }
    best
}

/// Hands the largest free RAM range to the allocator.
#[cfg(target_os = "none")]
pub fn init(info: &BootInfo) {
    let kernel_end = &raw const _kernel_end as u64;
    match choose_region(info, kernel_end, MAPPED_LIMIT) {
        Some((start, size)) if size >= 1 << 20 => {
            // SAFETY: the range is RAM per the firmware map, above the kernel
            // image (so it holds neither code, stack nor page tables), clear of
            // the loader's data and the framebuffer, mapped by the trampoline,
            // and given to the allocator exactly once.
            unsafe { HEAP.lock().init(start as *mut u8, size as usize) };
        }
        _ => {
            crate::println!("[boot] no usable RAM above the kernel for a heap");
            crate::exit_qemu(crate::ExitCode::Failed);
        }
    }
}

/// Heap bytes in use and free (zero on the host, where this heap is unused).
pub fn usage() -> (usize, usize) {
    let heap = HEAP.lock();
    (heap.used(), heap.free())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bootinfo::{ColorField, Framebuffer, Loader, MemoryRegion};

    fn ram(info: &mut BootInfo, addr: u64, len: u64) {
        info.push_region(MemoryRegion {
            addr,
            len,
            kind: MemoryKind::Usable,
        });
    }

    #[test]
    fn largest_range_above_the_kernel() {
        let mut info = BootInfo::new(Loader::Pvh);
        ram(&mut info, 0, 0x9f000);
        ram(&mut info, 0x10_0000, 0x1000_0000);
        info.push_region(MemoryRegion {
            addr: 0x2000_0000,
            len: 0x4000_0000,
            kind: MemoryKind::Reserved,
        });
        assert_eq!(
            choose_region(&info, 0x40_0000, MAPPED_LIMIT),
            Some((0x40_0000, 0x1010_0000 - 0x40_0000))
        );
    }

    #[test]
    fn loader_data_and_framebuffer_are_avoided() {
        let mut info = BootInfo::new(Loader::Multiboot2);
        ram(&mut info, 0x10_0000, 0x3ff0_0000); // 1 MiB .. 1 GiB
        // The boot information in the middle, a module above it, and a
        // framebuffer in RAM (as on machines with stolen memory).
        info.push_reserved(0x2000_0800, 0x1000);
        info.push_reserved(0x3000_0000, 0x10_0000);
        let field = ColorField {
            position: 0,
            size: 8,
        };
        info.framebuffer = Some(Framebuffer {
            addr: 0x0800_0000,
            width: 1024,
            height: 768,
            pitch: 4096,
            bits_per_pixel: 32,
            red: field,
            green: field,
            blue: field,
        });
        // Pieces: 1M..128M, 131M..512M+2K, 512M+6K..768M, 769M..1G.
        let (start, len) = choose_region(&info, 0x10_0000, MAPPED_LIMIT).unwrap();
        assert_eq!((start, start + len), (0x0830_0000, 0x2000_0000));
        for &(a, b) in info
            .reserved()
            .iter()
            .chain([(0x0800_0000, 0x0830_0000)].iter())
        {
            assert!(
                start + len <= a || start >= b,
                "heap overlaps {a:#x}..{b:#x}"
            );
        }
    }

    #[test]
    fn nothing_usable_gives_none() {
        let mut info = BootInfo::new(Loader::Pvh);
        ram(&mut info, 0x1_0000_0000, 0x1000_0000); // above the mapped limit only
        assert_eq!(choose_region(&info, 0, MAPPED_LIMIT), None);
    }
}
