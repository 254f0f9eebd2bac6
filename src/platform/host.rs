//! A platform for hosted tests and tools.
//!
//! DMA memory comes from the heap and gets made-up physical addresses from a
//! simple bump counter (so a device model can translate them back), the PCI
//! bus holds whatever configuration spaces a test puts on it, and time is a
//! simulated clock that only `delay_us` advances, so tests are deterministic.
//! A tool whose timeouts are the user's wall-clock bounds gives the platform
//! the host's clock instead ([`HostPlatform::with_clock`]).
//!
//! Interrupts: an MSI a device writes through [`super::PlatformBus`] is
//! recorded and wakes [`Platform::wait_for_interrupt`]. A software GPU's time
//! passes only when something runs it (the driver's MMIO accesses, or
//! `SoftGpu::run`), so a wait on the plain platform sleeps one poll interval at
//! most (the driver's MMIO reads then run the device) and returns early only
//! when another thread delivers an MSI; [`WithDevice`] is the platform of a
//! host where the device runs while the CPU waits: its wait runs the device in
//! small steps until an MSI arrives or the deadline passes. The counts in
//! [`InterruptCounts`] tell the two ways of waking apart.

use alloc::alloc::{Layout, alloc_zeroed, dealloc};
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicU64, Ordering};

use spin::Mutex;

use super::{DmaRegion, PciAddress, PhysAddr, Platform, PlatformError};

/// Where made-up physical addresses start: above 4 GiB, so that code which
/// truncates addresses to 32 bits shows up in tests.
const PHYS_BASE: u64 = 0x1_0000_0000;

#[derive(Clone, Copy)]
struct Allocation {
    virt: NonNull<u8>,
    layout: Layout,
}

/// The live DMA allocations by physical start, and the two the last lookups hit,
/// most recent first (the device model reads and writes the same few buffers over
/// and over: a batch and the memory its commands write).
#[derive(Default)]
struct DmaMap {
    by_phys: BTreeMap<u64, Allocation>,
    recent: [Option<(u64, Allocation)>; 2],
}

impl DmaMap {
    /// The allocation holding `phys`, with its physical start.
    fn find(&mut self, phys: u64) -> Option<(u64, Allocation)> {
        let holds = |(start, a): &(u64, Allocation)| {
            phys >= *start && phys - start < a.layout.size() as u64
        };
        if let Some(hit) = self.recent[0].filter(holds) {
            return Some(hit);
        }
        if let Some(hit) = self.recent[1].filter(holds) {
            self.recent.swap(0, 1);
            return Some(hit);
        }
        let (&start, &a) = self.by_phys.range(..=phys).next_back()?;
        let hit = (start, a);
        holds(&hit).then(|| {
            self.recent = [Some(hit), self.recent[0]];
            hit
        })
    }

    /// Forgets a freed allocation.
    fn remove(&mut self, start: u64) -> Option<Allocation> {
        for r in &mut self.recent {
            if r.is_some_and(|(s, _)| s == start) {
                *r = None;
            }
        }
        self.by_phys.remove(&start)
    }
}

/// A device on the simulated PCI bus: 4 KiB of configuration space plus the
/// BAR size masks that make BAR sizing (write all ones, read back) work.
#[derive(Clone)]
pub struct SimPciDevice {
    /// Configuration space as dwords.
    pub config: [u32; 1024],
    /// For each BAR register: the bits that read back as zero after writing
    /// all ones (size - 1 for a memory BAR); 0 for an unimplemented BAR.
    pub bar_size_mask: [u32; 6],
}

impl SimPciDevice {
    /// A type-0 function with the given IDs and class code
    /// (`class << 16 | subclass << 8 | prog_if`).
    pub fn new(vendor: u16, device: u16, class_code: u32) -> Self {
        let mut config = [0u32; 1024];
        config[0] = vendor as u32 | (device as u32) << 16;
        config[2] = class_code << 8;
        Self {
            config,
            bar_size_mask: [0; 6],
        }
    }

    /// Adds a 32-bit memory BAR at index `bar` (size a power of two).
    pub fn with_mem_bar(mut self, bar: usize, base: u32, size: u32, prefetchable: bool) -> Self {
        self.config[4 + bar] = base | if prefetchable { 0x8 } else { 0 };
        self.bar_size_mask[bar] = size - 1;
        self
    }

    /// Adds a 64-bit memory BAR at index `bar` (occupying `bar` and `bar + 1`).
    pub fn with_mem64_bar(mut self, bar: usize, base: u64, size: u64, prefetchable: bool) -> Self {
        self.config[4 + bar] = base as u32 | 0x4 | if prefetchable { 0x8 } else { 0 };
        self.config[5 + bar] = (base >> 32) as u32;
        self.bar_size_mask[bar] = (size - 1) as u32;
        self.bar_size_mask[bar + 1] = ((size - 1) >> 32) as u32;
        self
    }

    /// Marks the function as the first of a multi-function device.
    pub fn multifunction(mut self) -> Self {
        self.config[3] |= 0x80 << 16;
        self
    }
}

/// What the platform saw of interrupts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InterruptCounts {
    /// Every MSI written to the platform: (address, data).
    pub msis: Vec<(u64, u32)>,
    /// Waits that returned because an MSI arrived.
    pub woken_by_interrupt: u64,
    /// Waits that returned without one (a poll interval or the deadline passed).
    pub woken_otherwise: u64,
}

/// Heap-backed [`Platform`] for hosted tests and tools.
pub struct HostPlatform {
    next_phys: AtomicU64,
    dma: Mutex<DmaMap>,
    pci: Mutex<BTreeMap<PciAddress, SimPciDevice>>,
    clock_ns: AtomicU64,
    /// A real clock (nanoseconds, monotonic) that replaces the simulated one.
    wall: Option<fn() -> u64>,
    /// MSIs not yet taken by a wait.
    msi_pending: AtomicU64,
    interrupts: Mutex<InterruptCounts>,
    /// Plain RAM standing in for device memory at physical ranges, for
    /// [`Platform::map_mmio`]: (physical start, allocation).
    mmio_ram: Mutex<Vec<(u64, Allocation)>>,
}

// SAFETY: the raw pointers in `dma` are owned allocations only reached under
// the mutex; nothing is tied to the creating thread.
unsafe impl Send for HostPlatform {}
// SAFETY: see above; all interior state is behind a mutex or an atomic.
unsafe impl Sync for HostPlatform {}

impl Default for HostPlatform {
    fn default() -> Self {
        Self::new()
    }
}

impl HostPlatform {
    /// An empty platform: no PCI devices, no DMA memory in use.
    pub fn new() -> Self {
        Self {
            next_phys: AtomicU64::new(PHYS_BASE),
            dma: Mutex::new(DmaMap::default()),
            pci: Mutex::new(BTreeMap::new()),
            clock_ns: AtomicU64::new(0),
            wall: None,
            msi_pending: AtomicU64::new(0),
            interrupts: Mutex::new(InterruptCounts::default()),
            mmio_ram: Mutex::new(Vec::new()),
        }
    }

    /// The MSIs seen and how waits ended.
    pub fn interrupt_counts(&self) -> InterruptCounts {
        self.interrupts.lock().clone()
    }

    /// Takes the pending MSIs: whether there were any.
    fn take_interrupt(&self) -> bool {
        self.msi_pending.swap(0, Ordering::AcqRel) != 0
    }

    /// Counts how a wait ended.
    fn woke(&self, by_interrupt: bool) {
        let mut c = self.interrupts.lock();
        if by_interrupt {
            c.woken_by_interrupt += 1;
        } else {
            c.woken_otherwise += 1;
        }
    }

    /// Puts `size` bytes of zeroed RAM at physical `phys` for [`Platform::map_mmio`]
    /// to map, as if a device's BAR were there. Nothing answers behind it: it is
    /// how tests run code that maps a real GPU's BAR, up to the first register
    /// that does not behave (a forcewake that is never acknowledged, ...).
    pub fn add_mmio_ram(&self, phys: u64, size: usize) -> Result<(), PlatformError> {
        let layout = Layout::from_size_align(size.max(4096), 4096)
            .map_err(|_| PlatformError::InvalidRequest)?;
        // SAFETY: the size is non-zero.
        let virt =
            NonNull::new(unsafe { alloc_zeroed(layout) }).ok_or(PlatformError::OutOfMemory)?;
        self.mmio_ram
            .lock()
            .push((phys, Allocation { virt, layout }));
        Ok(())
    }

    /// A platform whose time is `clock` (monotonic nanoseconds, such as the
    /// host's `Instant` since some start): the driver's timeouts become
    /// bounds on real time, however slowly a software device runs, and
    /// `delay_us` waits on that clock.
    pub fn with_clock(clock: fn() -> u64) -> Self {
        let mut p = Self::new();
        p.wall = Some(clock);
        p
    }

    /// Puts a device on the simulated PCI bus.
    pub fn add_pci_device(&self, addr: PciAddress, dev: SimPciDevice) {
        self.pci.lock().insert(addr, dev);
    }

    /// Bytes of DMA memory currently allocated.
    pub fn dma_bytes_in_use(&self) -> usize {
        self.dma
            .lock()
            .by_phys
            .values()
            .map(|a| a.layout.size())
            .sum()
    }

    /// Physical addresses of every live DMA region, for leak checks.
    pub fn live_dma_regions(&self) -> Vec<PhysAddr> {
        self.dma
            .lock()
            .by_phys
            .keys()
            .map(|&p| PhysAddr(p))
            .collect()
    }
}

impl Drop for HostPlatform {
    fn drop(&mut self) {
        for (_, a) in core::mem::take(&mut *self.mmio_ram.lock()) {
            // SAFETY: allocated in `add_mmio_ram` with this layout; mappings of it
            // do not outlive the platform they came from.
            unsafe { dealloc(a.virt.as_ptr(), a.layout) };
        }
        for (_, a) in core::mem::take(&mut self.dma.lock().by_phys) {
            // SAFETY: every entry was allocated with exactly this layout and
            // the platform (and so every region it handed out) is going away.
            unsafe { dealloc(a.virt.as_ptr(), a.layout) };
        }
    }
}

impl Platform for HostPlatform {
    fn dma_alloc(&self, size: usize, align: usize) -> Result<DmaRegion, PlatformError> {
        if size == 0 {
            return Err(PlatformError::InvalidRequest);
        }
        let layout =
            Layout::from_size_align(size, align).map_err(|_| PlatformError::InvalidRequest)?;
        // SAFETY: the layout has a non-zero size.
        let virt =
            NonNull::new(unsafe { alloc_zeroed(layout) }).ok_or(PlatformError::OutOfMemory)?;
        // Physical addresses keep the requested alignment and never overlap.
        let span = (size as u64).next_multiple_of(align as u64);
        let mut phys = 0;
        let _ = self
            .next_phys
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |p| {
                phys = p.next_multiple_of(align as u64);
                Some(phys + span)
            });
        self.dma
            .lock()
            .by_phys
            .insert(phys, Allocation { virt, layout });
        Ok(DmaRegion {
            phys: PhysAddr(phys),
            virt,
            size,
        })
    }

    unsafe fn dma_free(&self, region: DmaRegion) {
        if let Some(a) = self.dma.lock().remove(region.phys.0) {
            // SAFETY: allocated in `dma_alloc` with this layout; the caller
            // promises the region is no longer used.
            unsafe { dealloc(a.virt.as_ptr(), a.layout) };
        }
    }

    fn phys_to_virt(&self, phys: PhysAddr) -> Option<NonNull<u8>> {
        self.phys_span_to_virt(phys, 1)
    }

    /// One lookup for the whole span (the last region hit first).
    fn phys_span_to_virt(&self, phys: PhysAddr, len: usize) -> Option<NonNull<u8>> {
        let (start, a) = self.dma.lock().find(phys.0)?;
        let off = phys.0 - start;
        let end = off.checked_add(len.max(1) as u64)?;
        if end <= a.layout.size() as u64 {
            // SAFETY: `off` is inside the allocation.
            Some(unsafe { a.virt.add(off as usize) })
        } else {
            None
        }
    }

    /// There is no device memory on the host.
    fn map_mmio(&self, phys: PhysAddr, size: usize) -> Result<NonNull<u8>, PlatformError> {
        let ram = self.mmio_ram.lock();
        let (start, a) = ram
            .iter()
            .find(|(start, a)| {
                phys.0 >= *start
                    && phys.0.saturating_add(size as u64) <= start + a.layout.size() as u64
            })
            .ok_or(PlatformError::Unmappable)?;
        // SAFETY: the range lies inside the allocation (checked above).
        Ok(unsafe { a.virt.add((phys.0 - start) as usize) })
    }

    unsafe fn unmap_mmio(&self, _virt: NonNull<u8>, _size: usize) {}

    fn pci_read32(&self, dev: PciAddress, offset: u16) -> u32 {
        let pci = self.pci.lock();
        match pci.get(&dev) {
            Some(d) => d
                .config
                .get(offset as usize / 4)
                .copied()
                .unwrap_or(u32::MAX),
            None => u32::MAX,
        }
    }

    fn pci_write32(&self, dev: PciAddress, offset: u16, value: u32) {
        let mut pci = self.pci.lock();
        let Some(d) = pci.get_mut(&dev) else { return };
        let idx = offset as usize / 4;
        match idx {
            // BARs: only the address bits above the size are writable; the
            // low type bits are read-only.
            4..=9 => {
                let bar = idx - 4;
                let mask = d.bar_size_mask[bar];
                let upper_half_of_64bit = bar > 0 && d.config[idx - 1] & 0x7 == 0x4;
                if upper_half_of_64bit {
                    d.config[idx] = value & !mask;
                } else if mask != 0 {
                    let ro_low = if d.config[idx] & 1 == 1 { 0x3 } else { 0xf };
                    d.config[idx] = (d.config[idx] & ro_low) | (value & !(mask | ro_low));
                } // else: unimplemented BAR, reads as zero
            }
            // Command register (low half); status is read-only here.
            1 => d.config[1] = (d.config[1] & 0xffff_0000) | (value & 0xffff),
            0 | 2 | 3 => {}
            i if i < 1024 => d.config[i] = value,
            _ => {}
        }
    }

    fn now_ns(&self) -> u64 {
        match self.wall {
            Some(clock) => clock(),
            None => self.clock_ns.load(Ordering::Relaxed),
        }
    }

    fn msi(&self, address: u64, data: u32) -> bool {
        self.interrupts.lock().msis.push((address, data));
        self.msi_pending.fetch_add(1, Ordering::AcqRel);
        true
    }

    /// Returns at once on a pending MSI; otherwise waits one poll interval (10 us,
    /// not past the deadline), on the wall clock watching for an MSI another thread
    /// delivers.
    fn wait_for_interrupt(&self, deadline_ns: u64) {
        if self.take_interrupt() {
            return self.woke(true);
        }
        let end = self.now_ns().saturating_add(10_000).min(deadline_ns);
        match self.wall {
            Some(clock) => {
                while clock() < end && self.msi_pending.load(Ordering::Acquire) == 0 {
                    core::hint::spin_loop();
                }
            }
            None => {
                let now = self.now_ns();
                self.clock_ns
                    .fetch_add(end.saturating_sub(now).max(1), Ordering::Relaxed);
            }
        }
        let by_interrupt = self.take_interrupt();
        self.woke(by_interrupt)
    }

    fn delay_us(&self, us: u64) {
        match self.wall {
            Some(clock) => {
                let end = clock().saturating_add(us.saturating_mul(1000));
                while clock() < end {
                    core::hint::spin_loop();
                }
            }
            None => {
                self.clock_ns
                    .fetch_add(us.saturating_mul(1000), Ordering::Relaxed);
            }
        }
    }
}

/// A [`HostPlatform`] whose waits let a device run, as a GPU runs while the CPU
/// sleeps: [`Platform::wait_for_interrupt`] calls `step` (a slice of the device's
/// work, such as `|| soft.run(64)`) until an MSI arrives or the deadline passes,
/// the simulated clock moving on 1 us per step; everything else is the wrapped
/// platform's. The device's bus must be the wrapped platform's
/// ([`super::PlatformBus`] over it), so that its MSIs reach the wait.
pub struct WithDevice<'a> {
    pub platform: &'a HostPlatform,
    step: &'a dyn Fn(),
}

impl<'a> WithDevice<'a> {
    pub fn new(platform: &'a HostPlatform, step: &'a dyn Fn()) -> Self {
        Self { platform, step }
    }
}

impl Platform for WithDevice<'_> {
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
    fn phys_span_to_virt(&self, phys: PhysAddr, len: usize) -> Option<NonNull<u8>> {
        self.platform.phys_span_to_virt(phys, len)
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
        loop {
            if self.platform.take_interrupt() {
                return self.platform.woke(true);
            }
            if self.platform.now_ns() >= deadline_ns {
                return self.platform.woke(false);
            }
            (self.step)();
            if self.platform.msi_pending.load(Ordering::Acquire) == 0 {
                self.platform.delay_us(1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dma_regions_are_aligned_disjoint_zeroed_and_translate_back() {
        let p = HostPlatform::new();
        let a = p.dma_alloc(100, 4096).unwrap();
        let b = p.dma_alloc(8192, 65536).unwrap();
        assert_eq!(a.phys.0 % 4096, 0);
        assert_eq!(b.phys.0 % 65536, 0);
        assert!(a.phys.0 + 100 <= b.phys.0);
        // SAFETY: `b` is 8192 bytes of live memory owned by this test.
        let bytes = unsafe { core::slice::from_raw_parts(b.virt.as_ptr(), b.size) };
        assert!(bytes.iter().all(|&x| x == 0));
        assert_eq!(
            p.phys_to_virt(PhysAddr(b.phys.0 + 10)).unwrap().as_ptr(),
            unsafe { b.virt.as_ptr().add(10) }
        );
        assert!(p.phys_to_virt(PhysAddr(a.phys.0 + 100)).is_none());
        assert_eq!(p.dma_bytes_in_use(), 8292);
        // SAFETY: both regions came from this platform and are unused now.
        unsafe {
            p.dma_free(a);
            p.dma_free(b);
        }
        assert_eq!(p.dma_bytes_in_use(), 0);
        assert!(p.phys_to_virt(b.phys).is_none());
    }

    #[test]
    fn rejects_bad_requests() {
        let p = HostPlatform::new();
        assert_eq!(p.dma_alloc(0, 4096), Err(PlatformError::InvalidRequest));
        assert_eq!(p.dma_alloc(16, 3), Err(PlatformError::InvalidRequest));
        assert_eq!(
            p.map_mmio(PhysAddr(0xfe00_0000), 4096),
            Err(PlatformError::Unmappable)
        );
    }

    #[test]
    fn a_given_clock_replaces_the_simulated_one() {
        static NOW: AtomicU64 = AtomicU64::new(7_000);
        // Each reading moves this clock on by 1 us: delay_us waits on it.
        fn clock() -> u64 {
            NOW.fetch_add(1_000, Ordering::Relaxed)
        }
        let p = HostPlatform::with_clock(clock);
        let t0 = p.now_ns();
        p.delay_us(50);
        let waited = p.now_ns() - t0;
        assert!((50_000..60_000).contains(&waited), "{waited}");
    }

    /// An MSI ends a wait at once; without one a wait takes one poll interval, or
    /// less before a deadline.
    #[test]
    fn an_msi_wakes_a_waiter_and_is_counted() {
        let p = HostPlatform::new();
        p.wait_for_interrupt(u64::MAX);
        assert_eq!(p.now_ns(), 10_000, "one poll interval");
        p.wait_for_interrupt(12_000);
        assert_eq!(p.now_ns(), 12_000, "not past the deadline");
        assert!(p.msi(0xfee0_0000, 0x41));
        p.wait_for_interrupt(u64::MAX);
        assert_eq!(p.now_ns(), 12_000, "no time passed");
        let c = p.interrupt_counts();
        assert_eq!(c.msis, [(0xfee0_0000, 0x41)]);
        assert_eq!((c.woken_by_interrupt, c.woken_otherwise), (1, 2));
    }

    /// The device-running wait steps the device until its MSI arrives.
    #[test]
    fn a_wait_with_the_device_runs_it_until_its_msi() {
        let p = HostPlatform::new();
        let steps = core::cell::Cell::new(0);
        let step = || {
            steps.set(steps.get() + 1);
            if steps.get() == 5 {
                p.msi(0xfee0_0000, 7);
            }
        };
        let w = WithDevice::new(&p, &step);
        w.wait_for_interrupt(u64::MAX);
        assert_eq!(steps.get(), 5);
        assert_eq!(p.now_ns(), 4_000, "1 us per step without an MSI");
        w.wait_for_interrupt(p.now_ns() + 3_000);
        assert_eq!(steps.get(), 8, "until the deadline");
        let c = p.interrupt_counts();
        assert_eq!((c.woken_by_interrupt, c.woken_otherwise), (1, 1));
    }

    #[test]
    fn clock_advances_only_by_delay() {
        let p = HostPlatform::new();
        let t0 = p.now_ns();
        p.delay_us(5);
        assert_eq!(p.now_ns() - t0, 5000);
    }

    /// The lookup remembers the regions it hit last; a freed region is never
    /// found again, and a span must lie inside one region.
    #[test]
    fn freed_regions_leave_the_lookup() {
        let p = HostPlatform::new();
        let a = p.dma_alloc(4096, 4096).unwrap();
        let b = p.dma_alloc(8192, 4096).unwrap();
        for _ in 0..2 {
            assert_eq!(p.phys_to_virt(a.phys), Some(a.virt));
            assert_eq!(
                p.phys_span_to_virt(PhysAddr(b.phys.0 + 8), 8184),
                Some(unsafe { b.virt.add(8) })
            );
        }
        assert_eq!(p.phys_span_to_virt(PhysAddr(b.phys.0 + 8), 8185), None);
        // SAFETY: nothing else uses the regions.
        unsafe {
            p.dma_free(a);
            p.dma_free(b);
        }
        assert_eq!(p.phys_to_virt(a.phys), None);
        assert_eq!(p.phys_to_virt(b.phys), None);
    }
}
