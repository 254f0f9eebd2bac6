//! The software GPU's interrupt delivery through its public interface: the MSI
//! capability in configuration space, the message written to the bus on each
//! rising edge of the interrupt line (and only then), bus mastering and the
//! master enable that hold it back, INTx as a level.

use std::sync::Mutex;

use baregpu_hal::pci::{self, msi};
use baregpu_hal::{BusError, ConfigSpace, Generation, MemoryBus, Mmio};
use baregpu_soft::SoftGpu;

/// A bus that records the writes and has no memory.
#[derive(Default)]
struct Recorder(Mutex<Vec<(u64, Vec<u8>)>>);

impl MemoryBus for Recorder {
    fn read(&self, phys: u64, _buf: &mut [u8]) -> Result<(), BusError> {
        Err(BusError { phys })
    }
    fn write(&self, phys: u64, data: &[u8]) -> Result<(), BusError> {
        self.0.lock().unwrap().push((phys, data.to_vec()));
        Ok(())
    }
}

impl Recorder {
    fn writes(&self) -> Vec<(u64, Vec<u8>)> {
        self.0.lock().unwrap().clone()
    }
}

const CAP: u16 = 0x90;
const ENABLE: u32 = (msi::CONTROL_ENABLE as u32) << msi::CONTROL_SHIFT;

#[test]
fn configuration_space_lists_one_32_bit_msi_capability() {
    for g in [
        Generation::Gen4,
        Generation::G45,
        Generation::Gen6,
        Generation::Gen7,
    ] {
        let bus = Recorder::default();
        let gpu = SoftGpu::new(g, &bus).unwrap();
        let status = gpu.config_read32(pci::COMMAND);
        assert_ne!(status & pci::STATUS_CAPABILITIES_LIST, 0, "{g}");
        assert_eq!(
            gpu.config_read32(pci::CAPABILITIES_POINTER) & 0xff,
            CAP as u32
        );
        assert_eq!(pci::find_capability(&gpu, msi::ID), Some(CAP));
        let head = gpu.config_read32(CAP);
        assert_eq!(
            (head & 0xff, head >> 8 & 0xff),
            (5, 0),
            "ID 5, last in the list"
        );
        assert_eq!(head >> 16 & msi::CONTROL_64BIT as u32, 0, "32-bit address");
        // Only the enable bit of the capability's first dword is writable.
        gpu.config_write32(CAP, u32::MAX);
        assert_eq!(gpu.config_read32(CAP), head | ENABLE);
        gpu.config_write32(CAP + msi::ADDRESS, 0xfee0_1003);
        assert_eq!(gpu.config_read32(CAP + msi::ADDRESS), 0xfee0_1000);
        gpu.config_write32(CAP + msi::DATA_32, 0xdead_4041);
        assert_eq!(gpu.config_read32(CAP + msi::DATA_32), 0x4041);
        // The status half is read-only here.
        gpu.config_write32(pci::COMMAND, 0);
        assert_ne!(
            gpu.config_read32(pci::COMMAND) & pci::STATUS_CAPABILITIES_LIST,
            0
        );
    }
}

/// Sandy Bridge with MSI set up and the GT's bit 0 unmasked and enabled.
fn snb(bus: &Recorder, bus_master: bool) -> SoftGpu<&Recorder> {
    let gpu = SoftGpu::new(Generation::Gen6, bus).unwrap();
    gpu.config_write32(CAP + msi::ADDRESS, 0xfee0_0000);
    gpu.config_write32(CAP + msi::DATA_32, 0x41);
    gpu.config_write32(CAP, ENABLE);
    let master = if bus_master {
        pci::COMMAND_BUS_MASTER
    } else {
        0
    };
    gpu.config_write32(pci::COMMAND, master | pci::COMMAND_INTERRUPT_DISABLE);
    gpu.write32(0x44014, !1); // GTIMR
    gpu.write32(0x4401c, 1); // GTIER
    gpu.write32(0x4400c, 1 << 31); // DEIER: master
    gpu
}

/// One message per rising edge: a second event while IIR is still set queues
/// without a message; acknowledging brings it back after a clock with the line
/// low, which is a new edge and a new message.
#[test]
fn an_msi_is_written_on_each_rising_edge_only() {
    let bus = Recorder::default();
    let gpu = snb(&bus, true);
    assert!(gpu.raise_interrupt("gt", 0));
    let msg = (0xfee0_0000, 0x41u32.to_le_bytes().to_vec());
    assert_eq!(
        bus.writes(),
        std::slice::from_ref(&msg),
        "a dword write of the data"
    );
    gpu.raise_interrupt("gt", 0);
    assert_eq!(bus.writes().len(), 1, "the line is still high");
    gpu.write32(0x44018, 1); // GTIIR: acknowledge, the queued event returns
    assert_eq!(gpu.read32(0x44018), 1);
    assert_eq!(bus.writes(), [msg.clone(), msg]);
    gpu.write32(0x44018, 1);
    assert_eq!(gpu.read32(0x44018), 0);
    assert_eq!(gpu.msis_sent(), 2);
    assert!(!gpu.intx_asserted(), "MSI replaces INTx");
}

/// No bus mastering: the function may not write, so no message; the master enable
/// off: no interrupt at all until it is set.
#[test]
fn bus_mastering_and_the_master_enable_hold_messages_back() {
    let bus = Recorder::default();
    let gpu = snb(&bus, false);
    gpu.raise_interrupt("gt", 0);
    assert!(bus.writes().is_empty());
    let bus = Recorder::default();
    let gpu = snb(&bus, true);
    gpu.write32(0x4400c, 0);
    gpu.raise_interrupt("gt", 0);
    assert!(bus.writes().is_empty());
    gpu.write32(0x4400c, 1 << 31);
    assert_eq!(bus.writes().len(), 1);
}

/// A display event joins the same line by its block's name (the display unit's
/// way in); a generation without that block says so.
#[test]
fn display_events_use_their_block() {
    let bus = Recorder::default();
    let gpu = snb(&bus, true);
    gpu.write32(0x44004, !(1 << 7)); // DEIMR: pipe A vblank (003 lines 54946-55114)
    gpu.raise_interrupt("display", 7);
    assert!(bus.writes().is_empty(), "not enabled in DEIER");
    assert_eq!(gpu.read32(0x44008), 1 << 7, "but latched in DEIIR");
    gpu.write32(0x4400c, (1 << 31) | (1 << 7));
    assert_eq!(bus.writes().len(), 1);
    assert!(
        !SoftGpu::new(Generation::Gen4, &bus)
            .unwrap()
            .raise_interrupt("display", 7)
    );
}

/// Interrupt bits by name, from the register tables: the same name lands on each
/// generation's own bit.
#[test]
fn interrupt_bits_are_found_by_name() {
    let bus = Recorder::default();
    let bit = |g, block, field| SoftGpu::new(g, &bus).unwrap().interrupt_bit(block, field);
    assert_eq!(bit(Generation::Gen6, "display", "pipe_a_vblank"), Some(7));
    assert_eq!(bit(Generation::Gen7, "display", "pipe_a_vblank"), Some(0));
    assert_eq!(
        bit(
            Generation::Gen6,
            "gt",
            "blitter_command_streamer_mi_user_interrupt"
        ),
        Some(22)
    );
    assert_eq!(bit(Generation::Gen4, "main", "user_interrupt"), Some(1));
    assert_eq!(bit(Generation::Gen4, "main", "no_such_bit"), None);
    assert_eq!(bit(Generation::Gen4, "display", "user_interrupt"), None);
}

/// INTx is the line as a level, gated by the command register's Interrupt Disable;
/// the status register's Interrupt Status shows it either way.
#[test]
fn intx_follows_the_line_and_interrupt_disable() {
    let bus = Recorder::default();
    let gpu = SoftGpu::new(Generation::Gen4, &bus).unwrap();
    gpu.write32(0x20a8, !(1 << 1)); // IMR: user interrupt
    gpu.write32(0x20a0, 1 << 1); // IER
    assert!(!gpu.intx_asserted());
    gpu.raise_interrupt("main", 1);
    assert!(gpu.intx_asserted());
    gpu.config_write32(pci::COMMAND, pci::COMMAND_INTERRUPT_DISABLE);
    assert!(!gpu.intx_asserted());
    assert_ne!(gpu.config_read32(pci::COMMAND) & pci::STATUS_INTERRUPT, 0);
    gpu.config_write32(pci::COMMAND, 0);
    assert!(gpu.intx_asserted());
    gpu.write32(0x20a4, 1 << 1); // IIR
    assert!(!gpu.intx_asserted());
    assert!(bus.writes().is_empty());
}
