//! Probe: find the GPU, decide which device the driver talks to.
//!
//! The probe lists every display controller (PCI base class 0x03), matches
//! Intel ones (vendor 0x8086) against [`devices::DEVICES`] and picks the
//! first supported one. With none, the software GPU is selected: the driver
//! will then drive the device model through the same interface.

pub mod devices;
pub mod hardware;

use alloc::vec::Vec;
use core::fmt;

pub use devices::DeviceInfo;
pub use hardware::{HardwareGpu, OpenError};

use crate::Generation;
use crate::pci::{self, Bar, PciFunction};
use crate::platform::Platform;

/// PCI vendor ID of Intel.
pub const INTEL_VENDOR_ID: u16 = 0x8086;

/// What a display controller is to baregpu.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// An Intel GPU in the device table.
    Supported(&'static DeviceInfo),
    /// An Intel display device whose ID is not in the table.
    UnknownIntel,
    /// Another vendor's display controller.
    OtherVendor,
}

/// One display controller found on the bus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DisplayController {
    pub function: PciFunction,
    pub support: Support,
    pub bars: [Option<Bar>; 6],
}

/// Which device the driver will talk to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// A real GPU: index into [`ProbeReport::displays`], and its generation.
    Hardware {
        display: usize,
        generation: Generation,
    },
    /// No supported GPU: the software GPU stands in.
    Software,
}

/// Everything the probe found, printable as a report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeReport {
    /// How many PCI functions the scan saw.
    pub functions_scanned: usize,
    pub displays: Vec<DisplayController>,
    pub backend: Backend,
}

/// Classifies a PCI function as a display controller baregpu knows or not.
pub fn classify(f: &PciFunction) -> Option<Support> {
    if !f.is_display_controller() {
        return None;
    }
    Some(if f.vendor_id != INTEL_VENDOR_ID {
        Support::OtherVendor
    } else if let Some(info) = devices::lookup(f.device_id) {
        Support::Supported(info)
    } else {
        Support::UnknownIntel
    })
}

/// Scans the PCI bus and decides on the backend.
pub fn probe<P: Platform + ?Sized>(platform: &P) -> ProbeReport {
    let functions = pci::enumerate(platform);
    let mut displays = Vec::new();
    for f in &functions {
        let Some(support) = classify(f) else { continue };
        info!(
            "display controller {}:{}.{} {:#x}:{:#x}",
            f.addr.bus, f.addr.device, f.addr.function, f.vendor_id, f.device_id
        );
        let bars = pci::read_bars(platform, f.addr);
        displays.push(DisplayController {
            function: f.clone(),
            support,
            bars,
        });
    }
    let backend = displays
        .iter()
        .enumerate()
        .find_map(|(i, d)| match d.support {
            Support::Supported(info) => Some(Backend::Hardware {
                display: i,
                generation: info.generation,
            }),
            _ => None,
        })
        .unwrap_or(Backend::Software);
    match backend {
        Backend::Hardware { .. } => info!("backend: hardware GPU"),
        Backend::Software => info!("backend: software GPU (no supported Intel GPU found)"),
    }
    ProbeReport {
        functions_scanned: functions.len(),
        displays,
        backend,
    }
}

impl fmt::Display for ProbeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "PCI scan: {} functions, {} display controller(s)",
            self.functions_scanned,
            self.displays.len()
        )?;
        for d in &self.displays {
            let func = &d.function;
            write!(
                f,
                "  {} {:04x}:{:04x} class {:02x}{:02x}{:02x} rev {:02x}: ",
                func.addr,
                func.vendor_id,
                func.device_id,
                func.class,
                func.subclass,
                func.prog_if,
                func.revision
            )?;
            match d.support {
                Support::Supported(info) => writeln!(
                    f,
                    "Intel {} ({}), supported",
                    info.platform, info.generation
                )?,
                Support::UnknownIntel => {
                    writeln!(f, "Intel display device with an unknown ID, not supported")?
                }
                Support::OtherVendor => writeln!(f, "not an Intel GPU")?,
            }
            for (i, bar) in d.bars.iter().enumerate() {
                if let Some(bar) = bar {
                    writeln!(f, "      BAR{}: {}", i, bar)?;
                }
            }
        }
        match self.backend {
            Backend::Hardware {
                display,
                generation,
            } => {
                let func = &self.displays[display].function;
                write!(f, "backend: hardware GPU at {} ({})", func.addr, generation)
            }
            Backend::Software => write!(f, "backend: software GPU (no supported Intel GPU found)"),
        }
    }
}
