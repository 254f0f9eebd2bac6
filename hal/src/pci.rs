//! PCI configuration-space facts the GPU's interrupt delivery uses, shared by
//! the driver (which finds and programs the MSI capability) and the software
//! GPU (which has one). Offsets are bytes in the type-0 header.
//!
//! Sources: PCI Local Bus Specification 3.0, 6.2.2 (Command register, bit 10
//! Interrupt Disable), 6.2.3 (Status register, bit 3 Interrupt Status, bit 4
//! Capabilities List), 6.7 (Capabilities Pointer at 34h, low two bits
//! reserved), 6.8.1 (MSI capability: ID 05h, Message Control, Message Address,
//! Message Data; the 64-bit form adds Message Upper Address before the data);
//! Intel SDM Vol. 3A 10.11.1 (an x86 MSI is a write to FEEx_xxxxh).

use crate::ConfigSpace;

/// The dword holding the Command (15:0) and Status (31:16) registers.
pub const COMMAND: u16 = 0x04;
/// Command: the function may master the bus (needed for DMA and MSI writes).
pub const COMMAND_BUS_MASTER: u32 = 1 << 2;
/// Command: INTx is not asserted (MSI is unaffected).
pub const COMMAND_INTERRUPT_DISABLE: u32 = 1 << 10;
/// Status (as bits of the COMMAND dword): INTx is pending in the function.
pub const STATUS_INTERRUPT: u32 = 1 << (16 + 3);
/// Status (as bits of the COMMAND dword): the capabilities pointer is valid.
pub const STATUS_CAPABILITIES_LIST: u32 = 1 << (16 + 4);
/// The first capability's offset (bits 7:0; bits 1:0 reserved).
pub const CAPABILITIES_POINTER: u16 = 0x34;

/// The MSI capability.
pub mod msi {
    /// Its capability ID.
    pub const ID: u8 = 0x05;
    /// Message Control: bits 31:16 of the capability's first dword.
    pub const CONTROL_SHIFT: u32 = 16;
    /// Message Control bit 0: MSI enable.
    pub const CONTROL_ENABLE: u16 = 1 << 0;
    /// Message Control bit 7: 64-bit address capable.
    pub const CONTROL_64BIT: u16 = 1 << 7;
    /// Message Control bits 6:4: Multiple Message Enable (0: one vector).
    pub const CONTROL_MULTIPLE_ENABLE: u16 = 0x7 << 4;
    /// Message Address (bits 1:0 read as zero): capability + 4.
    pub const ADDRESS: u16 = 0x04;
    /// Message Upper Address of the 64-bit form: capability + 8.
    pub const UPPER_ADDRESS: u16 = 0x08;
    /// Message Data (16 bits) of the 32-bit form: capability + 8.
    pub const DATA_32: u16 = 0x08;
    /// Message Data of the 64-bit form: capability + 0xc.
    pub const DATA_64: u16 = 0x0c;
}

/// The x86 MSI address window: a write here is an interrupt message to the local APICs.
pub const MSI_WINDOW: core::ops::Range<u64> = 0xfee0_0000..0xfef0_0000;

/// The offset of the first capability with ID `id`, walking the list from the
/// capabilities pointer; `None` without a list, when the ID is missing, or when the
/// list is malformed (a pointer into the header, or a loop: at most 48 entries fit).
pub fn find_capability(cfg: &dyn ConfigSpace, id: u8) -> Option<u16> {
    if cfg.config_read32(COMMAND) & STATUS_CAPABILITIES_LIST == 0 {
        return None;
    }
    let mut at = (cfg.config_read32(CAPABILITIES_POINTER) & 0xfc) as u16;
    for _ in 0..48 {
        if at < 0x40 {
            return None;
        }
        let head = cfg.config_read32(at);
        if head as u8 == id {
            return Some(at);
        }
        at = ((head >> 8) & 0xfc) as u16;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::cell::RefCell;

    struct Space(RefCell<[u32; 64]>);
    impl ConfigSpace for Space {
        fn config_read32(&self, offset: u16) -> u32 {
            self.0.borrow()[offset as usize / 4]
        }
        fn config_write32(&self, offset: u16, value: u32) {
            self.0.borrow_mut()[offset as usize / 4] = value;
        }
    }

    #[test]
    fn the_capability_list_is_walked_and_a_loop_ends() {
        let s = Space(RefCell::new([0; 64]));
        assert_eq!(find_capability(&s, msi::ID), None, "no list");
        s.config_write32(COMMAND, STATUS_CAPABILITIES_LIST);
        s.config_write32(CAPABILITIES_POINTER, 0xd0);
        s.config_write32(0xd0, 0x9001); // power management, next 0x90
        s.config_write32(0x90, 0x0005); // MSI, end of list
        assert_eq!(find_capability(&s, msi::ID), Some(0x90));
        assert_eq!(find_capability(&s, 0x10), None);
        s.config_write32(0x90, 0xd009); // vendor-specific, next 0xd0: a loop
        assert_eq!(find_capability(&s, msi::ID), None);
    }
}
