//! `baregpu::Platform` for this kernel: identity-mapped memory from the
//! heap, uncached MMIO anywhere in the physical address space (identity
//! mappings made by [`crate::paging`]), PCI configuration through ports
//! 0xCF8/0xCFC, and the TSC clock.

use alloc::alloc::{Layout, alloc_zeroed, dealloc};
use alloc::collections::BTreeMap;
use core::ptr::NonNull;

use baregpu::platform::PciAddress;
use baregpu::{DmaRegion, PhysAddr, Platform, PlatformError};
use spin::Mutex;
use x86_64::instructions::port::Port;

use crate::paging;

/// The platform of this kernel.
pub struct BootPlatform {
    dma: Mutex<BTreeMap<u64, Layout>>,
    pci: Mutex<()>,
}

impl Default for BootPlatform {
    fn default() -> Self {
        Self::new()
    }
}

impl BootPlatform {
    pub const fn new() -> Self {
        Self {
            dma: Mutex::new(BTreeMap::new()),
            pci: Mutex::new(()),
        }
    }

    fn config_address(dev: PciAddress, offset: u16) -> u32 {
        0x8000_0000
            | (dev.bus as u32) << 16
            | (dev.device as u32) << 11
            | (dev.function as u32) << 8
            | (offset as u32 & 0xfc)
    }
}

impl Platform for BootPlatform {
    fn dma_alloc(&self, size: usize, align: usize) -> Result<DmaRegion, PlatformError> {
        if size == 0 {
            return Err(PlatformError::InvalidRequest);
        }
        let layout =
            Layout::from_size_align(size, align).map_err(|_| PlatformError::InvalidRequest)?;
        // SAFETY: non-zero size checked above.
        let virt =
            NonNull::new(unsafe { alloc_zeroed(layout) }).ok_or(PlatformError::OutOfMemory)?;
        let phys = virt.as_ptr() as u64; // identity-mapped heap
        self.dma.lock().insert(phys, layout);
        Ok(DmaRegion {
            phys: PhysAddr(phys),
            virt,
            size,
        })
    }

    unsafe fn dma_free(&self, region: DmaRegion) {
        if let Some(layout) = self.dma.lock().remove(&region.phys.0) {
            // SAFETY: allocated by `dma_alloc` with this layout; the caller
            // guarantees the device no longer uses it.
            unsafe { dealloc(region.virt.as_ptr(), layout) };
        }
    }

    fn phys_to_virt(&self, phys: PhysAddr) -> Option<NonNull<u8>> {
        let dma = self.dma.lock();
        let (&start, layout) = dma.range(..=phys.0).next_back()?;
        if phys.0 - start < layout.size() as u64 {
            NonNull::new(phys.0 as *mut u8)
        } else {
            None
        }
    }

    fn map_mmio(&self, phys: PhysAddr, size: usize) -> Result<NonNull<u8>, PlatformError> {
        let end = phys
            .0
            .checked_add(size as u64)
            .ok_or(PlatformError::InvalidRequest)?;
        if size == 0 || end > paging::LIMIT {
            return Err(PlatformError::Unmappable);
        }
        // Out of page-table pages or a range beyond the identity map.
        paging::map(phys.0, size as u64, paging::Cache::Uncached)
            .map_err(|_| PlatformError::Unmappable)?;
        // Identity mapping: the virtual address is the physical one.
        NonNull::new(phys.0 as *mut u8).ok_or(PlatformError::Unmappable)
    }

    unsafe fn unmap_mmio(&self, _virt: NonNull<u8>, _size: usize) {
        // The identity mapping stays, uncached (a later map may change it).
    }

    fn pci_read32(&self, dev: PciAddress, offset: u16) -> u32 {
        if offset >= 256 {
            return u32::MAX; // port I/O reaches only the legacy 256 bytes
        }
        let _guard = self.pci.lock();
        // SAFETY: the PCI configuration mechanism #1 ports; the lock keeps the
        // address/data pair together.
        unsafe {
            Port::<u32>::new(0xcf8).write(Self::config_address(dev, offset));
            Port::<u32>::new(0xcfc).read()
        }
    }

    fn pci_write32(&self, dev: PciAddress, offset: u16, value: u32) {
        if offset >= 256 {
            return;
        }
        let _guard = self.pci.lock();
        // SAFETY: as in `pci_read32`; the caller chose the register to write.
        unsafe {
            Port::<u32>::new(0xcf8).write(Self::config_address(dev, offset));
            Port::<u32>::new(0xcfc).write(value);
        }
    }

    fn now_ns(&self) -> u64 {
        crate::clock::now_ns()
    }

    fn delay_us(&self, us: u64) {
        crate::clock::delay_us(us)
    }

    /// The software GPU's MSI: when it is addressed to this CPU's APIC (what
    /// [`crate::interrupts::msi_message`] gave the driver), the vector is raised
    /// as a self-IPI and arrives through the IDT as a real MSI would.
    fn msi(&self, address: u64, data: u32) -> bool {
        match crate::interrupts::msi_message() {
            Some((to, _)) if to == address => {
                crate::interrupts::raise(data as u8);
                true
            }
            _ => false,
        }
    }

    /// Until the GPU's vector arrives or the deadline: the CPU halts, woken by
    /// the vector or by the APIC timer set to the deadline (without the APIC,
    /// one poll interval).
    fn wait_for_interrupt(&self, deadline_ns: u64) {
        wait_for_vector(deadline_ns, &|| {
            crate::interrupts::halt_for(deadline_ns.saturating_sub(crate::clock::now_ns()))
        });
    }
}

/// Runs `idle` until the GPU's vector arrives (interrupts let in between) or the
/// clock passes `deadline_ns`.
fn wait_for_vector(deadline_ns: u64, idle: &dyn Fn()) {
    if !crate::interrupts::ready() {
        crate::clock::delay_us(10);
        return;
    }
    let seen = crate::interrupts::count();
    loop {
        crate::interrupts::let_in();
        if crate::interrupts::count() != seen || crate::clock::now_ns() >= deadline_ns {
            return;
        }
        idle();
    }
}

/// [`BootPlatform`] for a driver whose device is the software GPU: the model
/// runs only when called, so while a waiter sleeps the wait runs it (`step`) in
/// small slices, until the MSI it sends arrives as the GPU's vector.
pub struct RunningDevice<'a> {
    pub platform: &'a BootPlatform,
    step: &'a dyn Fn(),
}

impl<'a> RunningDevice<'a> {
    pub fn new(platform: &'a BootPlatform, step: &'a dyn Fn()) -> Self {
        Self { platform, step }
    }
}

impl Platform for RunningDevice<'_> {
    fn dma_alloc(&self, size: usize, align: usize) -> Result<DmaRegion, PlatformError> {
        self.platform.dma_alloc(size, align)
    }
    unsafe fn dma_free(&self, region: DmaRegion) {
        // SAFETY: the caller's promise, passed on to the platform that allocated it.
        unsafe { self.platform.dma_free(region) }
    }
    fn phys_to_virt(&self, phys: PhysAddr) -> Option<NonNull<u8>> {
        self.platform.phys_to_virt(phys)
    }
    fn map_mmio(&self, phys: PhysAddr, size: usize) -> Result<NonNull<u8>, PlatformError> {
        self.platform.map_mmio(phys, size)
    }
    unsafe fn unmap_mmio(&self, virt: NonNull<u8>, size: usize) {
        // SAFETY: the caller's promise, passed on.
        unsafe { self.platform.unmap_mmio(virt, size) }
    }
    fn pci_read32(&self, dev: PciAddress, offset: u16) -> u32 {
        self.platform.pci_read32(dev, offset)
    }
    fn pci_write32(&self, dev: PciAddress, offset: u16, value: u32) {
        self.platform.pci_write32(dev, offset, value)
    }
    fn now_ns(&self) -> u64 {
        self.platform.now_ns()
    }
    fn delay_us(&self, us: u64) {
        self.platform.delay_us(us)
    }
    fn msi(&self, address: u64, data: u32) -> bool {
        self.platform.msi(address, data)
    }
    fn wait_for_interrupt(&self, deadline_ns: u64) {
        wait_for_vector(deadline_ns, self.step);
    }
}
