//! The MSI capability the device models list (PCI Local Bus 3.0, 6.8.1):
//! one vector, a 32-bit message address, disabled at reset; and the message
//! the function writes on a rising edge of its interrupt.

use baregpu_hal::MemoryBus;
use baregpu_hal::pci::{self, msi};

/// Where the MSI capability sits in configuration space: our choice (0x90, where
/// the IGDs we know of have theirs; not checked against a cited dump). It is the
/// only capability the models list.
pub const CAPABILITY: u16 = 0x90;
const CAP: usize = CAPABILITY as usize / 4;

/// Lists the capability: status bit 4 (capabilities list), the pointer at
/// 0x34, the capability's ID with next pointer 0 and Message Control 0.
pub fn install(config: &mut [u32; 64]) {
    config[1] |= pci::STATUS_CAPABILITIES_LIST;
    config[pci::CAPABILITIES_POINTER as usize / 4] = CAPABILITY as u32;
    config[CAP] = msi::ID as u32;
}

/// What a write of `value` to configuration dword `index` leaves there, for
/// the capability's dwords (`None` for the others): only the enable bit of
/// Message Control is writable (one vector, 32-bit address); the address's
/// low two bits and the data's upper half read as zero.
pub fn write(config: &[u32; 64], index: usize, value: u32) -> Option<u32> {
    match index {
        CAP => {
            let enable = (msi::CONTROL_ENABLE as u32) << msi::CONTROL_SHIFT;
            Some((config[CAP] & !enable) | (value & enable))
        }
        i if i == CAP + msi::ADDRESS as usize / 4 => Some(value & !3),
        i if i == CAP + msi::DATA_32 as usize / 4 => Some(value & 0xffff),
        _ => None,
    }
}

/// MSI is enabled.
pub fn enabled(config: &[u32; 64]) -> bool {
    let control = config[CAP] >> msi::CONTROL_SHIFT;
    control as u16 & msi::CONTROL_ENABLE != 0
}

/// The function's message state: the line as last seen, messages sent.
#[derive(Clone, Copy, Debug, Default)]
pub struct Messages {
    pub line_was: bool,
    pub sent: u64,
}

impl Messages {
    /// Sends an MSI on the rising edge of the interrupt line, as the function
    /// does: a dword write of the message data to the message address, on the
    /// bus, when MSI is enabled and bus mastering is on.
    pub fn update(&mut self, line: bool, config: &[u32; 64], bus: &impl MemoryBus) {
        let rising = line && !self.line_was;
        self.line_was = line;
        let command = config[pci::COMMAND as usize / 4];
        if rising && enabled(config) && command & pci::COMMAND_BUS_MASTER != 0 {
            let address = u64::from(config[CAP + msi::ADDRESS as usize / 4]);
            let data = config[CAP + msi::DATA_32 as usize / 4] & 0xffff;
            // A write nobody takes is lost, as a master abort would lose it.
            let _ = bus.write_u32(address, data);
            self.sent += 1;
        }
    }
}
