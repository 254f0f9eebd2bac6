//! The steps that come before the engines start, in the order Linux i915 takes
//! them at load (`i915_driver_probe`): make the device answer and master the bus,
//! find stolen memory and what the firmware keeps in the GGTT, then take the GGTT
//! over with a scratch page behind every unused entry. `Gpu::new` runs them, then
//! forcewake and the rings; `docs/hardware.md` lists every step with its sources.

use alloc::vec::Vec;

use baregpu_hal::DeviceIo;
use baregpu_hal::device::{self, ConfigWord};

use crate::gtt::Mapping;
use crate::pci::{PciAddress, cfg};
use crate::platform::{PhysAddr, Platform};

/// The RAM the firmware set aside for the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stolen {
    pub base: PhysAddr,
    pub bytes: u64,
}

/// What bring-up found and did, for the OS to show (`Display`) and tests to check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BringUpReport {
    /// The PCI command register before and after the driver enabled memory
    /// space and bus mastering.
    pub command_before: u16,
    pub command_after: u16,
    /// GGTT entries (4 KiB pages), as the GPU reports its GTT size.
    pub ggtt_entries: u32,
    /// Stolen memory, from the graphics control register and BDSM (`None`: the
    /// size field says none, or it could not be read).
    pub stolen: Option<Stolen>,
    /// GGTT ranges the firmware had pointed into stolen memory (its console):
    /// kept as they are and never handed out.
    pub firmware_ranges: Vec<Mapping>,
    /// The page behind every unused GGTT entry (`None`: the driver keeps
    /// none and leaves unused entries invalid, as on Gen12.5).
    pub scratch: Option<PhysAddr>,
}

impl core::fmt::Display for BringUpReport {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        writeln!(
            f,
            "PCI command {:#06x} -> {:#06x} (memory space, bus master)",
            self.command_before, self.command_after
        )?;
        write!(
            f,
            "GGTT {} MiB ({} entries)",
            (u64::from(self.ggtt_entries) * 4096) >> 20,
            self.ggtt_entries,
        )?;
        match self.scratch {
            Some(s) => writeln!(f, ", scratch page at {:#x}", s.0)?,
            None => writeln!(f, ", no scratch page")?,
        }
        match self.stolen {
            Some(s) => write!(f, "stolen memory {} MiB at {:#x}", s.bytes >> 20, s.base.0)?,
            None => write!(f, "stolen memory: none reported")?,
        }
        for m in &self.firmware_ranges {
            write!(
                f,
                "\nkept the firmware's GGTT range {:#x}..{:#x}",
                m.gfx.0,
                m.gfx.0 + m.pages * 4096
            )?;
        }
        Ok(())
    }
}

/// Turns on memory-space decoding and bus mastering in the PCI command register
/// (Linux: `pci_enable_device` from `i915_driver_probe`, then `pci_set_master`
/// from `i915_driver_hw_probe`, drivers/gpu/drm/i915/i915_driver.c; PCI Local Bus
/// 3.0, 6.2.2). Returns the register before and after; an error when the bits
/// do not stick.
pub fn enable_device(device: &dyn DeviceIo) -> Result<(u16, u16), &'static str> {
    let before = device.config_read32(cfg::COMMAND) & 0xffff;
    let want = cfg::COMMAND_MEMORY | cfg::COMMAND_BUS_MASTER;
    if before & want != want {
        // The status half is write-one-to-clear: write zeros there.
        device.config_write32(cfg::COMMAND, before | want);
    }
    let after = device.config_read32(cfg::COMMAND) & 0xffff;
    if after & want != want {
        return Err("the PCI command register kept memory space or bus master off");
    }
    Ok((before as u16, after as u16))
}

/// Stolen memory as the firmware reports it (Linux arch/x86/kernel/early-quirks.c
/// `intel_graphics_stolen`): its size from the graphics control word the device
/// description names (the GPU's SNB_GMCH_CTRL on Gen6/Gen7, the host bridge's
/// GMCH_CTRL on Gen4/G45), its base from BDSM. `None` when the size is 0 or
/// reserved, the base is 0, or the host bridge does not answer.
pub fn read_stolen<P: Platform + ?Sized>(
    platform: &P,
    device: &dyn DeviceIo,
    generation: baregpu_hal::Generation,
) -> Option<Stolen> {
    let desc = device::of(generation)?.gtt.stolen;
    let size_word = match desc.size {
        ConfigWord::Gpu(o) => device.config_read16(o),
        ConfigWord::HostBridge(o) => {
            let bridge = PciAddress::new(0, 0, 0);
            if platform.pci_read32(bridge, cfg::ID) & 0xffff != 0x8086 {
                return None;
            }
            baregpu_hal::config::config_word(platform.pci_read32(bridge, o & !3), o)
        }
    };
    let bytes = desc.bytes(size_word).filter(|&b| b > 0)?;
    let base = desc.base(device.config_read32(desc.base_offset));
    (base != 0).then_some(Stolen {
        base: PhysAddr(base),
        bytes,
    })
}
