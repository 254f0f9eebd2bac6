//! The real GPU the probe found, opened for the driver: its register BAR
//! (BAR0, GTTMMADR: registers and the GTT alias) mapped uncached, and its
//! configuration space through the platform. What [`crate::Gpu::new`] takes
//! as its `device`, exactly as it takes the software GPU.

use core::fmt;

use baregpu_hal::{DeviceIo, SplitDevice, VolatileMmio};

use super::{Backend, ProbeReport};
use crate::Generation;
use crate::pci::{Bar, PciAddress, PciConfig};
use crate::platform::{PhysAddr, Platform, PlatformError};

/// Why the GPU the probe found cannot be opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenError {
    /// The probe chose the software GPU.
    NoHardware,
    /// BAR0 is not a memory BAR (the firmware left it unassigned?).
    NoRegisterBar,
    /// BAR0 is smaller than the registers and GTT alias of the generation.
    BarTooSmall { size: u64, needed: u64 },
    /// The platform could not map it.
    Platform(PlatformError),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::NoHardware => write!(f, "no supported GPU was found"),
            OpenError::NoRegisterBar => write!(f, "BAR0 (registers and GTT) is not a memory BAR"),
            OpenError::BarTooSmall { size, needed } => write!(
                f,
                "BAR0 is {size:#x} bytes; the registers and GTT need {needed:#x}"
            ),
            OpenError::Platform(e) => write!(f, "mapping BAR0: {e}"),
        }
    }
}

/// A real GPU with its register BAR mapped; unmapped on drop.
pub struct HardwareGpu<'a, P: Platform + ?Sized> {
    platform: &'a P,
    device: SplitDevice<VolatileMmio, PciConfig<'a, P>>,
    generation: Generation,
    address: PciAddress,
    bar: (PhysAddr, usize),
    /// The mapping, for `drop`.
    virt: core::ptr::NonNull<u8>,
}

impl<'a, P: Platform + ?Sized> HardwareGpu<'a, P> {
    /// Opens the GPU the probe chose ([`Backend::Hardware`]): maps the whole of
    /// BAR0, which must hold at least the generation's registers and GTT alias
    /// (the device description's BAR size).
    pub fn open(platform: &'a P, report: &ProbeReport) -> Result<Self, OpenError> {
        let Backend::Hardware {
            display,
            generation,
        } = report.backend
        else {
            return Err(OpenError::NoHardware);
        };
        let d = report.displays.get(display).ok_or(OpenError::NoHardware)?;
        let Some(Bar::Memory { base, size, .. }) = d.bars[0] else {
            return Err(OpenError::NoRegisterBar);
        };
        let needed =
            baregpu_hal::device::of(generation).map_or(0, |dev| u64::from(dev.gtt.bar_size));
        if size < needed || size == 0 {
            return Err(OpenError::BarTooSmall { size, needed });
        }
        let len =
            usize::try_from(size).map_err(|_| OpenError::Platform(PlatformError::Unmappable))?;
        let virt = platform
            .map_mmio(PhysAddr(base), len)
            .map_err(OpenError::Platform)?;
        // SAFETY: `virt` is the platform's uncached mapping of all `len` bytes of
        // BAR0, kept until `drop` unmaps it; the driver reaches it only through
        // this value's volatile accesses.
        let mmio = unsafe { VolatileMmio::new(virt, len) };
        Ok(Self {
            platform,
            device: SplitDevice {
                mmio,
                config: PciConfig {
                    platform,
                    addr: d.function.addr,
                },
            },
            generation,
            address: d.function.addr,
            bar: (PhysAddr(base), len),
            virt,
        })
    }

    /// The device for [`crate::Gpu::new`].
    pub fn device(&self) -> &(dyn DeviceIo + '_) {
        &self.device
    }

    pub fn generation(&self) -> Generation {
        self.generation
    }

    pub fn address(&self) -> PciAddress {
        self.address
    }

    /// BAR0's physical address and size.
    pub fn bar(&self) -> (PhysAddr, usize) {
        self.bar
    }
}

impl<P: Platform + ?Sized> Drop for HardwareGpu<'_, P> {
    fn drop(&mut self) {
        // SAFETY: the mapping came from this platform's `map_mmio` with this
        // size, and the `VolatileMmio` over it goes with `self`.
        unsafe { self.platform.unmap_mmio(self.virt, self.bar.1) };
    }
}
