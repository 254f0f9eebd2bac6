//! Typed register access through the generated bitfield types over a
//! recording `Mmio`.

use std::cell::RefCell;
use std::collections::BTreeMap;

use baregpu_hal::Mmio;
use baregpu_hal::gen6::{Engine, regs};

#[derive(Default)]
struct Recorder {
    regs: RefCell<BTreeMap<u32, u32>>,
    writes: RefCell<Vec<(u32, u32)>>,
}

impl Mmio for Recorder {
    fn read32(&self, offset: u32) -> u32 {
        self.regs.borrow().get(&offset).copied().unwrap_or(0)
    }
    fn write32(&self, offset: u32, value: u32) {
        self.writes.borrow_mut().push((offset, value));
        self.regs.borrow_mut().insert(offset, value);
    }
}

#[test]
fn ring_control_fields_land_in_the_manuals_bits() {
    let m = Recorder::default();
    // RING_BUFFER_CONTROL (003 lines 11671-11772): length 20:12 (pages - 1), enable bit 0.
    let ctl = regs::RingBufferControl::new()
        .with_buffer_length(31)
        .with_ring_buffer_enable(true);
    regs::RING_BUFFER_CONTROL.at(Engine::Blitter).write(&m, ctl);
    assert_eq!(m.writes.borrow().last(), Some(&(0x2203c, (31 << 12) | 1)));
    let back = regs::RING_BUFFER_CONTROL.at(Engine::Blitter).read(&m);
    assert_eq!(back.buffer_length(), 31);
    assert!(back.ring_buffer_enable());
    // TAIL: bits 20:3 hold the QWord offset.
    regs::RING_BUFFER_TAIL
        .at(Engine::Render)
        .write(&m, regs::RingBufferTail::new().with_tail_offset(0x200 >> 3));
    assert_eq!(m.read32(0x2030), 0x200);
}

#[test]
fn masked_registers_write_enable_bits() {
    let m = Recorder::default();
    // MI_MODE is masked (003 line 9842): bits 31:16 select which of 15:0 change.
    regs::MI_MODE.write_masked(&m, 1 << 8, 1 << 8);
    assert_eq!(
        m.writes.borrow().last(),
        Some(&(0x209c, (1 << 24) | (1 << 8)))
    );
    regs::MI_MODE.write_masked(&m, 1 << 8, 0);
    assert_eq!(m.writes.borrow().last(), Some(&(0x209c, 1 << 24)));
}

#[test]
fn values_too_wide_for_a_field_are_refused() {
    let c = regs::RingBufferControl::new();
    assert!(c.with_buffer_length_checked(1 << 9).is_err());
    assert!(c.with_buffer_length_checked((1 << 9) - 1).is_ok());
}
