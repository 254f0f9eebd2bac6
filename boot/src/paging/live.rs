//! The kernel's page tables: the trampoline's, extended from a static pool.

use core::sync::atomic::{AtomicBool, Ordering};

use spin::Mutex;
use x86_64::registers::model_specific::Msr;

use super::{Cache, MapError, Mapper, Tables};

/// Page-table pages for mappings beyond the trampoline's (each split of a
/// 2 MiB page or each new 1 GiB or 512 GiB slot takes one).
const POOL_PAGES: usize = 64;

#[repr(C, align(4096))]
struct Pool([[u64; 512]; POOL_PAGES]);

static mut POOL: Pool = Pool([[0; 512]; POOL_PAGES]);

unsafe extern "C" {
    /// The trampoline's PML4 (entry/mod.rs), in the identity-mapped image.
    static boot_pml4: u8;
}

struct Live {
    used: usize,
}

impl Tables for Live {
    fn alloc(&mut self) -> Option<u64> {
        if self.used == POOL_PAGES {
            return None;
        }
        self.used += 1;
        // SAFETY: only the address is taken; the pool lies in the kernel
        // image, identity-mapped, so the address is also physical.
        Some(unsafe { (&raw mut POOL.0[self.used - 1]) as u64 })
    }

    fn entries(&mut self, phys: u64) -> &mut [u64; 512] {
        // SAFETY: every table address the mapper passes is the trampoline's
        // PML4, a table it linked (the trampoline's, in the image) or a pool
        // page: all identity-mapped, 4 KiB aligned, used only under MAPPER's lock.
        unsafe { &mut *(phys as *mut [u64; 512]) }
    }
}

static MAPPER: Mutex<Option<Mapper<Live>>> = Mutex::new(None);

/// Whether the PAT was reprogrammed with a write-combining entry.
static PAT_WC: AtomicBool = AtomicBool::new(false);

/// IA32_PAT (MSR 0x277): eight memory-type bytes PA0..PA7 (Intel SDM Vol.
/// 3A, "Page Attribute Table (PAT)": types 0 UC, 1 WC, 4 WT, 5 WP, 6 WB,
/// 7 UC-; power-up value 0x0007040600070406). PA1 (PWT only) becomes WC, as
/// Linux does; nothing maps with PA1's old write-through type before this.
const PAT_VALUE: u64 = 0x0007_0406_0007_0106;

/// Programs the PAT (when the CPU has one: CPUID.01H:EDX bit 16) and takes
/// over the trampoline's tables.
pub fn init() {
    // CPUID leaf 1 exists on every x86_64 CPU.
    let has_pat = core::arch::x86_64::__cpuid(1).edx & (1 << 16) != 0;
    if has_pat {
        // SAFETY: writing IA32_PAT changes only the meaning of PAT index 1,
        // which no mapping uses yet; the TLB flush below drops stale types.
        unsafe { Msr::new(0x277).write(PAT_VALUE) };
        PAT_WC.store(true, Ordering::Relaxed);
    }
    let pml4 = &raw const boot_pml4 as u64;
    *MAPPER.lock() = Some(Mapper::new(pml4, Live { used: 0 }));
    x86_64::instructions::tlb::flush_all();
}

/// Identity-maps `phys..phys + size` with `cache` (write-combining falls
/// back to uncached without a PAT) and flushes the TLB.
pub fn map(phys: u64, size: u64, cache: Cache) -> Result<(), MapError> {
    let cache = match cache {
        Cache::WriteCombining if !PAT_WC.load(Ordering::Relaxed) => Cache::Uncached,
        other => other,
    };
    let mut guard = MAPPER.lock();
    let mapper = guard.as_mut().ok_or(MapError::OutOfTables)?;
    let result = mapper.map(phys, size, cache);
    // Also after a partial failure: some entries may have changed.
    x86_64::instructions::tlb::flush_all();
    result
}
