//! PCI enumeration and BAR decoding over [`Platform`] configuration access.

use alloc::vec::Vec;
use core::fmt;

use crate::platform::Platform;

/// The function address is part of the OS seam (configuration access takes
/// one), so it is defined there; PCI code names it here too.
pub use crate::platform::PciAddress;

/// Configuration-space offsets of the type-0 header (PCI Local Bus 3.0, 6.1).
pub mod cfg {
    pub const ID: u16 = 0x00;
    /// The command/status dword (with the capability and MSI facts in the hal,
    /// which the software GPU shares).
    pub use baregpu_hal::pci::COMMAND;
    pub const CLASS: u16 = 0x08;
    pub const HEADER: u16 = 0x0c;
    pub const BAR0: u16 = 0x10;
    pub const SUBSYSTEM: u16 = 0x2c;
    /// Command register: I/O space and memory space decoding enables.
    pub const COMMAND_DECODE: u32 = 0x3;
    /// Command register: memory space decoding, and bus mastering (6.2.2).
    pub const COMMAND_MEMORY: u32 = 1 << 1;
    pub const COMMAND_BUS_MASTER: u32 = 1 << 2;
}

/// A decoded base address register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Bar {
    /// Memory space: base address, size in bytes (0 if not sized), whether
    /// it is 64-bit and prefetchable.
    Memory {
        base: u64,
        size: u64,
        is_64bit: bool,
        prefetchable: bool,
    },
    /// I/O space: port base and size.
    Io { port: u32, size: u32 },
}

impl fmt::Display for Bar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Bar::Memory {
                base,
                size,
                is_64bit,
                prefetchable,
            } => {
                write!(f, "mem {:#x}", base)?;
                if size != 0 {
                    write!(f, " size {}", HumanSize(size))?;
                }
                write!(f, " {}", if is_64bit { "64-bit" } else { "32-bit" })?;
                if prefetchable {
                    f.write_str(" prefetchable")?;
                }
                Ok(())
            }
            Bar::Io { port, size } => write!(f, "io {:#x} size {:#x}", port, size),
        }
    }
}

/// Bytes as KiB/MiB/GiB for reports.
pub struct HumanSize(pub u64);

impl fmt::Display for HumanSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
        for (unit, scale) in UNITS {
            if self.0 >= scale && self.0.is_multiple_of(scale) {
                return write!(f, "{} {}", self.0 / scale, unit);
            }
        }
        write!(f, "{} B", self.0)
    }
}

/// One PCI function as found by [`enumerate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PciFunction {
    pub addr: PciAddress,
    pub vendor_id: u16,
    pub device_id: u16,
    pub revision: u8,
    /// Base class (0x03 = display controller), subclass, programming interface.
    pub class: u8,
    pub subclass: u8,
    pub prog_if: u8,
    pub header_type: u8,
    pub subsystem_vendor_id: u16,
    pub subsystem_id: u16,
}

impl PciFunction {
    /// Base class 0x03: VGA, XGA, 3D or other display controller.
    pub fn is_display_controller(&self) -> bool {
        self.class == 0x03
    }
}

fn read_function<P: Platform + ?Sized>(p: &P, addr: PciAddress) -> Option<PciFunction> {
    let id = p.pci_read32(addr, cfg::ID);
    let vendor_id = id as u16;
    if vendor_id == 0xffff || vendor_id == 0 {
        return None;
    }
    let class = p.pci_read32(addr, cfg::CLASS);
    let header = p.pci_read32(addr, cfg::HEADER);
    let header_type = (header >> 16) as u8;
    let subsystem = if header_type & 0x7f == 0 {
        p.pci_read32(addr, cfg::SUBSYSTEM)
    } else {
        0
    };
    Some(PciFunction {
        addr,
        vendor_id,
        device_id: (id >> 16) as u16,
        revision: class as u8,
        class: (class >> 24) as u8,
        subclass: (class >> 16) as u8,
        prog_if: (class >> 8) as u8,
        header_type,
        subsystem_vendor_id: subsystem as u16,
        subsystem_id: (subsystem >> 16) as u16,
    })
}

/// Lists every PCI function on buses 0-255 by brute force (no bridge walk,
/// so it finds devices behind bridges the firmware numbered, too).
pub fn enumerate<P: Platform + ?Sized>(p: &P) -> Vec<PciFunction> {
    let mut found = Vec::new();
    for bus in 0..=255u8 {
        for device in 0..32u8 {
            let Some(f0) = read_function(p, PciAddress::new(bus, device, 0)) else {
                continue;
            };
            let multifunction = f0.header_type & 0x80 != 0;
            found.push(f0);
            if multifunction {
                for function in 1..8u8 {
                    if let Some(f) = read_function(p, PciAddress::new(bus, device, function)) {
                        found.push(f);
                    }
                }
            }
        }
    }
    found
}

/// Decodes and sizes the six BARs of a type-0 function.
///
/// Sizing writes all ones to each BAR and reads back the mask, with I/O and
/// memory decoding switched off meanwhile so that the device never answers
/// at a half-written address; the original values are restored.
pub fn read_bars<P: Platform + ?Sized>(p: &P, addr: PciAddress) -> [Option<Bar>; 6] {
    let mut bars = [None; 6];
    let header_type = (p.pci_read32(addr, cfg::HEADER) >> 16) as u8;
    if header_type & 0x7f != 0 {
        return bars; // bridges and CardBus: not display controllers
    }
    let command = p.pci_read32(addr, cfg::COMMAND);
    p.pci_write32(addr, cfg::COMMAND, command & !cfg::COMMAND_DECODE & 0xffff);

    let mut i = 0;
    while i < 6 {
        let reg = cfg::BAR0 + 4 * i as u16;
        let orig = p.pci_read32(addr, reg);
        p.pci_write32(addr, reg, u32::MAX);
        let mask = p.pci_read32(addr, reg);
        p.pci_write32(addr, reg, orig);
        if orig & 1 == 1 {
            let size_mask = mask & !0x3;
            if size_mask != 0 {
                let size = (!size_mask).wrapping_add(1) & 0xffff;
                bars[i] = Some(Bar::Io {
                    port: orig & !0x3,
                    size,
                });
            }
            i += 1;
            continue;
        }
        let is_64bit = (orig >> 1) & 0x3 == 0x2;
        let prefetchable = orig & 0x8 != 0;
        let mut base = (orig & !0xf) as u64;
        let mut size_mask = (mask & !0xf) as u64;
        if is_64bit && i < 5 {
            let reg_hi = reg + 4;
            let orig_hi = p.pci_read32(addr, reg_hi);
            p.pci_write32(addr, reg_hi, u32::MAX);
            let mask_hi = p.pci_read32(addr, reg_hi);
            p.pci_write32(addr, reg_hi, orig_hi);
            base |= (orig_hi as u64) << 32;
            size_mask |= (mask_hi as u64) << 32;
        } else {
            size_mask |= 0xffff_ffff_0000_0000;
        }
        // An unimplemented BAR reads back zero in every address bit.
        if mask & !0xf != 0 || is_64bit {
            let size = (!size_mask).wrapping_add(1);
            bars[i] = Some(Bar::Memory {
                base,
                size,
                is_64bit,
                prefetchable,
            });
        }
        i += if is_64bit { 2 } else { 1 };
    }

    p.pci_write32(addr, cfg::COMMAND, command & 0xffff);
    bars
}

/// One function's configuration space through the platform: the
/// [`baregpu_hal::ConfigSpace`] half of a hardware device (see
/// [`baregpu_hal::SplitDevice`]).
pub struct PciConfig<'a, P: Platform + ?Sized> {
    pub platform: &'a P,
    pub addr: PciAddress,
}

impl<P: Platform + ?Sized> baregpu_hal::ConfigSpace for PciConfig<'_, P> {
    fn config_read32(&self, offset: u16) -> u32 {
        self.platform.pci_read32(self.addr, offset)
    }
    fn config_write32(&self, offset: u16, value: u32) {
        self.platform.pci_write32(self.addr, offset, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::host::{HostPlatform, SimPciDevice};

    #[test]
    fn finds_functions_including_multifunction_ones() {
        let p = HostPlatform::new();
        p.add_pci_device(
            PciAddress::new(0, 0, 0),
            SimPciDevice::new(0x8086, 0x1237, 0x060000),
        );
        p.add_pci_device(
            PciAddress::new(0, 1, 0),
            SimPciDevice::new(0x8086, 0x7000, 0x060100).multifunction(),
        );
        p.add_pci_device(
            PciAddress::new(0, 1, 3),
            SimPciDevice::new(0x8086, 0x7113, 0x068000),
        );
        // Function 2 of a single-function device must not be scanned.
        p.add_pci_device(
            PciAddress::new(0, 0, 2),
            SimPciDevice::new(0x1234, 0x5678, 0x030000),
        );
        p.add_pci_device(
            PciAddress::new(3, 0, 0),
            SimPciDevice::new(0x8086, 0x5690, 0x030000),
        );
        let found = enumerate(&p);
        let addrs: Vec<_> = found.iter().map(|f| f.addr).collect();
        assert_eq!(
            addrs,
            [
                PciAddress::new(0, 0, 0),
                PciAddress::new(0, 1, 0),
                PciAddress::new(0, 1, 3),
                PciAddress::new(3, 0, 0)
            ]
        );
        assert!(found[3].is_display_controller());
        assert_eq!((found[3].vendor_id, found[3].device_id), (0x8086, 0x5690));
    }

    #[test]
    fn sizes_32_and_64_bit_bars_and_restores_them() {
        let p = HostPlatform::new();
        let a = PciAddress::new(0, 2, 0);
        let mut dev = SimPciDevice::new(0x8086, 0x0162, 0x030000)
            .with_mem64_bar(0, 0xf000_0000, 4 << 20, false)
            .with_mem64_bar(2, 0x2_e000_0000, 256 << 20, true);
        dev.config[8] = 0xf001; // BAR4: I/O at 0xf000, 64 ports
        dev.bar_size_mask[4] = 0x3f;
        dev.config[1] = 0x7;
        p.add_pci_device(a, dev);
        let bars = read_bars(&p, a);
        assert_eq!(
            bars[0],
            Some(Bar::Memory {
                base: 0xf000_0000,
                size: 4 << 20,
                is_64bit: true,
                prefetchable: false
            })
        );
        assert_eq!(bars[1], None);
        assert_eq!(
            bars[2],
            Some(Bar::Memory {
                base: 0x2_e000_0000,
                size: 256 << 20,
                is_64bit: true,
                prefetchable: true
            })
        );
        assert_eq!(
            bars[4],
            Some(Bar::Io {
                port: 0xf000,
                size: 64
            })
        );
        assert_eq!(bars[5], None);
        // Sizing left the BARs and the command register as they were.
        assert_eq!(p.pci_read32(a, 0x10), 0xf000_0004);
        assert_eq!(p.pci_read32(a, 0x1c), 0x2);
        assert_eq!(p.pci_read32(a, 0x04) & 0xffff, 0x7);
    }

    #[test]
    fn human_sizes() {
        assert_eq!(alloc::format!("{}", HumanSize(16 << 20)), "16 MiB");
        assert_eq!(alloc::format!("{}", HumanSize(4096)), "4 KiB");
        assert_eq!(alloc::format!("{}", HumanSize(3 << 30)), "3 GiB");
        assert_eq!(alloc::format!("{}", HumanSize(100)), "100 B");
    }
}
