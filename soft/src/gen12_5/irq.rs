//! The Gen11+ interrupt tree as DG2 has it (the registers of hal gen12.5
//! registers.toml, after Linux i915 gt/intel_gt_irq.c and i915_irq.c
//! dg1_irq_handler):
//!
//! - each engine raises bits of its 16-bit vector (RING_IMR's layout: user
//!   interrupt 0, CS error 3, notify 4, context switch 8); a bit counts when
//!   its class enable register has it set and neither the engine's half of
//!   its mask register nor RING_IMR masks it;
//! - a pending vector shows as the engine's bit of GEN11_GT_INTR_DW0/1
//!   (write one to clear); writing that bit to GEN11_IIR_REG_SELECTOR0/1
//!   moves the vector into GEN11_INTR_IDENTITY_REG0/1 with DATA_VALID (bit
//!   31) and the engine's class and instance; writing DATA_VALID back clears
//!   the identity;
//! - GEN11_GFX_MSTR_IRQ shows a pending bank in bits 0/1, DG1_MSTR_TILE_INTR
//!   the tile in bit 0; the line is up while both master enables (bit 31 of
//!   each) are set and a bank has a bit.

use super::Engine12;
use crate::regfile::RegFile;

/// Interrupt register offsets (absolute), resolved from the tables.
#[derive(Clone, Copy, Debug)]
pub struct IrqRegs {
    pub tile: u32,
    pub master: u32,
    pub dw: [u32; 2],
    pub selector: [u32; 2],
    pub identity: [u32; 2],
}

/// Bit 31 of DG1_MSTR_TILE_INTR (DG1_MSTR_IRQ) and GEN11_GFX_MSTR_IRQ (GEN11_MASTER_IRQ).
const MASTER_ENABLE: u32 = 1 << 31;
/// GEN11_INTR_DATA_VALID.
const DATA_VALID: u32 = 1 << 31;

#[derive(Default)]
pub struct Interrupts {
    /// Each engine's vector not yet moved into an identity register.
    pending: alloc::vec::Vec<u16>,
    /// GEN11_GT_INTR_DW0/1.
    dw: [u32; 2],
    /// GEN11_INTR_IDENTITY_REG0/1.
    identity: [u32; 2],
}

impl Interrupts {
    pub fn new(engines: usize) -> Self {
        Self {
            pending: alloc::vec![0; engines],
            ..Self::default()
        }
    }

    pub fn reset(&mut self) {
        self.pending.fill(0);
        self.dw = [0; 2];
        self.identity = [0; 2];
    }

    /// Engine `i` raises `bit` of its vector.
    pub fn raise(&mut self, regs: &RegFile, engines: &[Engine12], i: usize, bit: u32) {
        let e = &engines[i];
        let enabled = regs.get(e.irq.enable) >> (e.irq.enable_shift + bit) & 1 == 1;
        let masked = regs.get(e.irq.mask) >> (e.irq.mask_shift + bit) & 1 == 1
            || regs.get(e.imr) >> bit & 1 == 1;
        if enabled && !masked {
            self.pending[i] |= 1 << bit;
            self.dw[e.irq.bank] |= 1 << e.irq.bit;
        }
    }

    /// The device's interrupt line.
    pub fn line(&self, regs: &RegFile, r: &IrqRegs) -> bool {
        regs.get(r.tile) & MASTER_ENABLE != 0
            && regs.get(r.master) & MASTER_ENABLE != 0
            && self.dw != [0; 2]
    }

    /// A read of one of the tree's registers; `None` for others.
    pub fn read(&self, regs: &RegFile, r: &IrqRegs, offset: u32) -> Option<u32> {
        let banks = (self.dw[0] != 0) as u32 | ((self.dw[1] != 0) as u32) << 1;
        if offset == r.tile {
            return Some(regs.get(r.tile) & MASTER_ENABLE | (banks != 0) as u32);
        }
        if offset == r.master {
            return Some(regs.get(r.master) & MASTER_ENABLE | banks);
        }
        (0..2).find_map(|b| {
            if offset == r.dw[b] {
                Some(self.dw[b])
            } else if offset == r.identity[b] {
                Some(self.identity[b])
            } else {
                None
            }
        })
    }

    /// A write to one of the tree's registers; `false` for others (the
    /// register file takes those, the master enables among them).
    pub fn write(&mut self, engines: &[Engine12], r: &IrqRegs, offset: u32, value: u32) -> bool {
        for b in 0..2 {
            if offset == r.dw[b] {
                // Write one to clear; a vector still pending sets its bit again.
                self.dw[b] &= !value;
                for (i, e) in engines.iter().enumerate() {
                    if e.irq.bank == b && self.pending[i] != 0 {
                        self.dw[b] |= 1 << e.irq.bit;
                    }
                }
                return true;
            }
            if offset == r.selector[b] {
                if let Some(i) = engines
                    .iter()
                    .position(|e| e.irq.bank == b && value == 1 << e.irq.bit)
                {
                    let e = &engines[i];
                    let vector = core::mem::take(&mut self.pending[i]);
                    self.identity[b] =
                        DATA_VALID | (e.instance << 20) | (e.class << 16) | u32::from(vector);
                }
                return true;
            }
            if offset == r.identity[b] {
                if value & DATA_VALID != 0 {
                    self.identity[b] = 0;
                }
                return true;
            }
        }
        false
    }
}
