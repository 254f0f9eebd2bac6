//! The OS seam: everything the driver needs from the operating system.
//!
//! An OS embeds baregpu by implementing [`Platform`]: raw DMA regions come
//! from it and go back to it. Everything above the seam holds DMA memory as
//! [`Dma`], which returns it to the platform when dropped. Two implementations
//! ship with the project: the QEMU boot kernel's (`baregpu-boot`) and, with
//! the cargo feature `host`, `host::HostPlatform` for tests and host tools,
//! which keeps DMA memory on the heap under made-up physical addresses and
//! simulates a PCI bus. `examples/bare_metal_platform/` is a skeleton to
//! copy.

pub mod bus;
pub mod dma;
#[cfg(any(test, feature = "host"))]
pub mod host;
pub mod local;

pub use bus::PlatformBus;
pub use dma::{Dma, DmaRegion, OutOfBounds};
pub use local::{LocalMemory, MappedLocalBar, NoLocalMemory};

use core::fmt;
use core::ptr::NonNull;

/// A physical (bus) address: what the device sees and what GTT entries hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PhysAddr(pub u64);

impl fmt::Display for PhysAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// A PCI function: bus, device (0-31), function (0-7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PciAddress {
    pub bus: u8,
    pub device: u8,
    pub function: u8,
}

impl PciAddress {
    /// A function address; `device` and `function` are masked to their widths.
    pub const fn new(bus: u8, device: u8, function: u8) -> Self {
        Self {
            bus,
            device: device & 0x1f,
            function: function & 0x7,
        }
    }
}

impl fmt::Display for PciAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02x}:{:02x}.{}", self.bus, self.device, self.function)
    }
}

/// Why a platform request failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PlatformError {
    /// No memory of the requested size and alignment is left.
    OutOfMemory,
    /// The size or alignment is not acceptable (zero, not a power of two ...).
    InvalidRequest,
    /// The physical range cannot be mapped (for example it lies above what
    /// the OS maps).
    Unmappable,
}

impl fmt::Display for PlatformError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PlatformError::OutOfMemory => "out of DMA memory",
            PlatformError::InvalidRequest => "invalid size or alignment",
            PlatformError::Unmappable => "physical range cannot be mapped",
        })
    }
}

/// What the driver needs from an operating system.
///
/// Implementations must be usable from one thread at a time at least; the
/// driver does its own locking around device state.
pub trait Platform {
    /// Allocates `size` bytes of zeroed, physically contiguous memory aligned
    /// to `align` (a power of two, at least 4096 is typical for GPU pages),
    /// mapped for the CPU with a caching mode coherent with device access.
    /// The driver calls it through [`Dma::new`].
    fn dma_alloc(&self, size: usize, align: usize) -> Result<DmaRegion, PlatformError>;

    /// Frees a region returned by [`Platform::dma_alloc`]. The driver calls
    /// it from one place only, [`Dma`]'s `Drop`; code that embeds the driver
    /// holds [`Dma`] values (`Dma::new`) and never calls this itself.
    ///
    /// # Safety
    /// `region` must come from `dma_alloc` on this platform, must not have
    /// been freed already, and no device access to it may still be pending.
    unsafe fn dma_free(&self, region: DmaRegion);

    /// The CPU address of a physical address inside memory this platform
    /// handed out (DMA regions), or `None`.
    fn phys_to_virt(&self, phys: PhysAddr) -> Option<NonNull<u8>>;

    /// The CPU address of `phys..phys + len` (`len` at least 1) when one DMA
    /// region holds all of it, or `None`. The device model asks this for every
    /// memory access; the default looks both ends up with [`Platform::phys_to_virt`],
    /// and a platform with a faster single lookup overrides it.
    fn phys_span_to_virt(&self, phys: PhysAddr, len: usize) -> Option<NonNull<u8>> {
        let first = self.phys_to_virt(phys)?;
        if len > 1 {
            let last_phys = phys.0.checked_add(len as u64 - 1)?;
            let last = self.phys_to_virt(PhysAddr(last_phys))?;
            if last.as_ptr() as usize != (first.as_ptr() as usize).checked_add(len - 1)? {
                return None;
            }
        }
        Some(first)
    }

    /// Maps `size` bytes of device memory (a BAR) uncached and returns the
    /// CPU address of its first byte.
    fn map_mmio(&self, phys: PhysAddr, size: usize) -> Result<NonNull<u8>, PlatformError>;

    /// Undoes [`Platform::map_mmio`].
    ///
    /// # Safety
    /// `virt` and `size` must come from one `map_mmio` call and the mapping
    /// must no longer be used.
    unsafe fn unmap_mmio(&self, virt: NonNull<u8>, size: usize);

    /// Reads a dword of PCI configuration space. `offset` is 4-byte aligned;
    /// a missing device reads as all ones.
    fn pci_read32(&self, dev: PciAddress, offset: u16) -> u32;

    /// Writes a dword of PCI configuration space.
    fn pci_write32(&self, dev: PciAddress, offset: u16, value: u32);

    /// A monotonic clock in nanoseconds (its zero is arbitrary).
    fn now_ns(&self) -> u64;

    /// Waits at least `us` microseconds.
    fn delay_us(&self, us: u64);

    /// A device wrote an interrupt message (MSI) to `address` (in the x86 window
    /// `0xfee0_0000..0xfef0_0000`, [`baregpu_hal::pci::MSI_WINDOW`]) with `data`.
    /// On hardware the write goes to the local APICs and never reaches this call;
    /// a device model reaches it through [`PlatformBus`]. A platform that models
    /// the interrupt (wakes a waiter, injects the vector) returns `true`; the
    /// default has no interrupt controller behind the window and returns `false`
    /// (the write is lost, as a master abort would lose it).
    fn msi(&self, address: u64, data: u32) -> bool {
        let _ = (address, data);
        false
    }

    /// Sleeps until an interrupt arrives or the clock reaches `deadline_ns`
    /// ([`Platform::now_ns`]), whichever comes first; it may return early. The
    /// driver's [`crate::Gpu::wait`] calls it once interrupts are enabled, then
    /// looks at the status page. An OS halts until its handler for the GPU's
    /// vector (or INTx line) has run; the default waits one poll interval, so a
    /// platform that does not model interrupts keeps working by polling.
    fn wait_for_interrupt(&self, deadline_ns: u64) {
        let _ = deadline_ns;
        self.delay_us(10);
    }
}
