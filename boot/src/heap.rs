//! The kernel heap: the largest RAM region of the PVH memory map above the
//! kernel image and below 4 GiB (the identity-mapped range).

use linked_list_allocator::LockedHeap;

#[cfg(target_os = "none")]
use crate::pvh::{MEMMAP_RAM, StartInfo};

#[cfg_attr(target_os = "none", global_allocator)]
static HEAP: LockedHeap = LockedHeap::empty();

#[cfg(target_os = "none")]
unsafe extern "C" {
    /// End of the kernel image, from the linker script.
    static _kernel_end: u8;
}

#[cfg(target_os = "none")]
const MAPPED_LIMIT: u64 = 4 << 30;

/// Hands the largest free RAM region to the allocator.
#[cfg(target_os = "none")]
pub fn init(info: &StartInfo) {
    let kernel_end = &raw const _kernel_end as u64;
    let best = info
        .memory_map()
        .iter()
        .filter(|e| e.kind == MEMMAP_RAM)
        .map(|e| {
            let start = e.addr.max(kernel_end).next_multiple_of(4096);
            let end = (e.addr + e.size).min(MAPPED_LIMIT);
            (start, end.saturating_sub(start))
        })
        .max_by_key(|&(_, size)| size);
    match best {
        Some((start, size)) if size >= 1 << 20 => {
            // SAFETY: the region is RAM per the firmware map, above the kernel
            // image (so it holds neither code, stack nor page tables), mapped
            // by the trampoline, and given to the allocator exactly once.
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
