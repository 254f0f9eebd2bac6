//! A `baregpu::Platform` for a kernel that maps physical memory at a fixed
//! offset (0 for an identity map): DMA memory from a static arena by a bump
//! allocator, PCI configuration space through ports 0xCF8/0xCFC, and the
//! kernel's clock. It uses `core` and `spin` only: copy it into the kernel.

use core::cell::UnsafeCell;
use core::ptr::NonNull;

use baregpu::platform::PciAddress;
use baregpu::{DmaRegion, PhysAddr, Platform, PlatformError};
use spin::Mutex;

/// Memory set aside for the GPU: page aligned, in the kernel image's
/// `.bss`. A GPU with its rings, status pages and a few batches needs a
/// few hundred KiB.
#[repr(C, align(4096))]
pub struct Arena<const N: usize>(UnsafeCell<[u8; N]>);

// SAFETY: the arena is only reached through `KernelPlatform`, which hands
// out each byte once under its lock.
unsafe impl<const N: usize> Sync for Arena<N> {}

impl<const N: usize> Arena<N> {
    pub const fn new() -> Self {
        Self(UnsafeCell::new([0; N]))
    }

    /// CPU address of the first byte.
    pub fn as_ptr(&self) -> *mut u8 {
        self.0.get().cast()
    }
}

/// How the kernel reaches PCI configuration space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PciAccess {
    /// Configuration mechanism #1: address to port 0xCF8, data at 0xCFC
    /// (the legacy 256 bytes of each function).
    PortIo,
    /// No PCI bus: every function reads as absent (all ones).
    Absent,
}

/// The kernel's platform for baregpu.
pub struct KernelPlatform {
    /// CPU address of the arena's first byte.
    arena: NonNull<u8>,
    arena_size: usize,
    /// `virt = phys + direct_map_offset` for all physical memory,
    /// MMIO included (0 in an identity-mapped kernel).
    direct_map_offset: u64,
    /// Bytes of the arena handed out: a bump pointer.
    used: Mutex<usize>,
    pci: PciAccess,
    /// Serialises the 0xCF8/0xCFC pair.
    pci_lock: Mutex<()>,
    /// The kernel's monotonic clock in nanoseconds.
    clock: fn() -> u64,
}

// SAFETY: the arena pointer is owned by the platform, and every mutable
// state is behind a lock.
unsafe impl Send for KernelPlatform {}
// SAFETY: as above.
unsafe impl Sync for KernelPlatform {}

impl KernelPlatform {
    /// A platform over `arena`, whose CPU addresses map to physical ones
    /// by `direct_map_offset`. The kernel must map MMIO ranges uncached
    /// in that direct map (PCD or a PAT entry), as `boot/src/platform.rs`
    /// does.
    pub fn new<const N: usize>(
        arena: &'static Arena<N>,
        direct_map_offset: u64,
        pci: PciAccess,
        clock: fn() -> u64,
    ) -> Self {
        Self {
            // SAFETY: a pointer into a static is never null.
            arena: unsafe { NonNull::new_unchecked(arena.as_ptr()) },
            arena_size: N,
            direct_map_offset,
            used: Mutex::new(0),
            pci,
            pci_lock: Mutex::new(()),
            clock,
        }
    }

    /// Bytes of the arena handed out (the bump pointer).
    pub fn dma_bytes_in_use(&self) -> usize {
        *self.used.lock()
    }

    fn phys_of(&self, virt: *const u8) -> PhysAddr {
        PhysAddr((virt as u64).wrapping_sub(self.direct_map_offset))
    }

    /// The arena's physical range.
    fn arena_phys(&self) -> (u64, u64) {
        let start = self.phys_of(self.arena.as_ptr()).0;
        (start, start + self.arena_size as u64)
    }

    fn config_address(dev: PciAddress, offset: u16) -> u32 {
        0x8000_0000
            | (dev.bus as u32) << 16
            | (dev.device as u32) << 11
            | (dev.function as u32) << 8
            | (offset as u32 & 0xfc)
    }
}

impl Platform for KernelPlatform {
    fn dma_alloc(&self, size: usize, align: usize) -> Result<DmaRegion, PlatformError> {
        if size == 0 || !align.is_power_of_two() {
            return Err(PlatformError::InvalidRequest);
        }
        let mut used = self.used.lock();
        // Align the physical address (the arena is page aligned, so for
        // alignments up to a page this is the offset's alignment).
        let base = self.arena_phys().0;
        let start = (base + *used as u64).next_multiple_of(align as u64) - base;
        let end = start
            .checked_add(size as u64)
            .filter(|&end| end <= self.arena_size as u64)
            .ok_or(PlatformError::OutOfMemory)?;
        // SAFETY: `start..end` lies inside the arena (checked above).
        let virt = unsafe { self.arena.add(start as usize) };
        // SAFETY: as above; the bytes were never handed out, or were
        // given back (`dma_free`), so nobody else uses them. The device
        // expects zeroed memory.
        unsafe { virt.as_ptr().write_bytes(0, size) };
        *used = end as usize;
        Ok(DmaRegion {
            phys: self.phys_of(virt.as_ptr()),
            virt,
            size,
        })
    }

    unsafe fn dma_free(&self, region: DmaRegion) {
        // Reached only from `baregpu::Dma`'s drop, once per region.
        // A bump allocator takes back only the last region; the others
        // stay used until the kernel resets the arena. A kernel that
        // brings GPUs up and down wants a real page allocator here.
        let mut used = self.used.lock();
        let end = region.virt.as_ptr() as usize + region.size;
        if end == self.arena.as_ptr() as usize + *used {
            *used = region.virt.as_ptr() as usize - self.arena.as_ptr() as usize;
        }
    }

    fn phys_to_virt(&self, phys: PhysAddr) -> Option<NonNull<u8>> {
        // Only memory handed out for DMA: the used part of the arena.
        let (start, _) = self.arena_phys();
        let used = *self.used.lock() as u64;
        if phys.0 < start || phys.0 - start >= used {
            return None;
        }
        NonNull::new(phys.0.wrapping_add(self.direct_map_offset) as *mut u8)
    }

    fn map_mmio(&self, phys: PhysAddr, size: usize) -> Result<NonNull<u8>, PlatformError> {
        if size == 0 || phys.0.checked_add(size as u64).is_none() {
            return Err(PlatformError::InvalidRequest);
        }
        // The direct map already covers the BAR (see `new`).
        NonNull::new(phys.0.wrapping_add(self.direct_map_offset) as *mut u8)
            .ok_or(PlatformError::Unmappable)
    }

    unsafe fn unmap_mmio(&self, _virt: NonNull<u8>, _size: usize) {
        // The direct map stays.
    }

    fn pci_read32(&self, dev: PciAddress, offset: u16) -> u32 {
        if self.pci == PciAccess::Absent || offset >= 256 {
            return u32::MAX; // port I/O reaches only the legacy 256 bytes
        }
        let _pair = self.pci_lock.lock();
        // SAFETY: configuration mechanism #1; the lock keeps the address
        // and data accesses together.
        unsafe {
            port::out32(0xcf8, Self::config_address(dev, offset));
            port::in32(0xcfc)
        }
    }

    fn pci_write32(&self, dev: PciAddress, offset: u16, value: u32) {
        if self.pci == PciAccess::Absent || offset >= 256 {
            return;
        }
        let _pair = self.pci_lock.lock();
        // SAFETY: as in `pci_read32`; the driver chose the register.
        unsafe {
            port::out32(0xcf8, Self::config_address(dev, offset));
            port::out32(0xcfc, value);
        }
    }

    fn now_ns(&self) -> u64 {
        (self.clock)()
    }

    fn delay_us(&self, us: u64) {
        let until = (self.clock)().saturating_add(us.saturating_mul(1000));
        while (self.clock)() < until {
            core::hint::spin_loop();
        }
    }
}

/// x86 port I/O (the kernel may already have this, e.g. the `x86_64`
/// crate's `Port`).
mod port {
    /// # Safety
    /// Port output has whatever effect the device gives it; ring 0 only.
    pub unsafe fn out32(port: u16, value: u32) {
        // SAFETY: the caller's contract.
        unsafe {
            core::arch::asm!("out dx, eax", in("dx") port, in("eax") value,
                options(nomem, nostack, preserves_flags));
        }
    }

    /// # Safety
    /// As for [`out32`].
    pub unsafe fn in32(port: u16) -> u32 {
        let value: u32;
        // SAFETY: the caller's contract.
        unsafe {
            core::arch::asm!("in eax, dx", in("dx") port, out("eax") value,
                options(nomem, nostack, preserves_flags));
        }
        value
    }
}
