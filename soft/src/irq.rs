//! The interrupt logic of the device description's interrupt blocks (003 lines
//! 54916-54944): an event shows in ISR (live status); an event whose IMR bit is
//! clear sets the sticky IIR, which is cleared by writing ones and queues one more
//! event per bit (set again at once when cleared); IIR bits enabled in IER are ORed
//! over every block and ANDed with the master enable, where there is one, into the
//! device's interrupt line. IMR, IER and the master enable are plain registers of
//! the register file; ISR and IIR live here.
//!
//! Blocks and bits are the description's (`[interrupts]` of `device.toml`): the
//! engines raise theirs in the engine block, and any other unit (the display)
//! raises its bits in its block by name ([`Interrupts::block`]).

use alloc::vec::Vec;

use baregpu_hal::device::InterruptDesc;

use crate::regfile::RegFile;

#[derive(Clone, Copy, Debug, Default)]
struct BlockState {
    /// Sticky identity bits.
    iir: u32,
    /// A second event that arrived while its IIR bit was still set.
    queued: u32,
}

pub struct Interrupts {
    desc: InterruptDesc,
    state: Vec<BlockState>,
    /// The engine block's index.
    engines: usize,
}

impl Interrupts {
    pub fn new(desc: InterruptDesc) -> Self {
        Self {
            desc,
            state: alloc::vec![BlockState::default(); desc.blocks.len()],
            engines: desc.blocks.iter().position(|b| b.engines).unwrap_or(0),
        }
    }

    /// The index of the block named `name` (`gt`, `display`, `pm`, `main`).
    pub fn block(&self, name: &str) -> Option<usize> {
        self.desc.blocks.iter().position(|b| b.name == name)
    }

    /// The block holding the engines' bits.
    pub fn engine_block(&self) -> usize {
        self.engines
    }

    /// Resets every block's mask to all masked (the hardware reset state, 003 line
    /// 9276-9300: interrupts masked) and forgets pending events.
    pub fn reset(&mut self, regs: &mut RegFile) {
        for b in self.desc.blocks {
            regs.set(b.regs.imr, u32::MAX);
        }
        self.state.fill(BlockState::default());
    }

    /// An event on `bit` of block `block`: latched in IIR unless masked in IMR.
    pub fn event(&mut self, regs: &RegFile, block: usize, bit: u32) {
        let (Some(b), Some(s)) = (self.desc.blocks.get(block), self.state.get_mut(block)) else {
            return;
        };
        let Some(bits) = 1u32.checked_shl(bit) else {
            return;
        };
        let unmasked = bits & !regs.get(b.regs.imr);
        s.queued |= unmasked & s.iir;
        s.iir |= unmasked;
    }

    /// The IIR of a block.
    #[cfg(test)]
    pub fn iir(&self, block: usize) -> u32 {
        self.state.get(block).map_or(0, |s| s.iir)
    }

    /// A read of a block's ISR or IIR; `live` is the ISR value the device's level
    /// sources show for that block. `None`: not an ISR or IIR.
    pub fn read(&self, offset: u32, live: impl Fn(usize) -> u32) -> Option<u32> {
        self.desc.blocks.iter().enumerate().find_map(|(i, b)| {
            if offset == b.regs.iir {
                Some(self.state[i].iir)
            } else if offset == b.regs.isr {
                Some(live(i))
            } else {
                None
            }
        })
    }

    /// A write: IIR is write-one-to-clear (a queued event sets its bit again a clock
    /// later), ISR is read-only. `None`: not one of those, the register file takes
    /// it; `Some(true)`: a queued event came back, so the line fell for that clock.
    pub fn write(&mut self, offset: u32, value: u32) -> Option<bool> {
        for (i, b) in self.desc.blocks.iter().enumerate() {
            if offset == b.regs.iir {
                let s = &mut self.state[i];
                s.iir &= !value;
                let again = s.queued & value;
                s.iir |= again;
                s.queued &= !again;
                return Some(again != 0);
            }
            if offset == b.regs.isr {
                return Some(false);
            }
        }
        None
    }

    /// The device's interrupt: some block has `IIR & IER`, and the master enable is set.
    pub fn line(&self, regs: &RegFile) -> bool {
        let any = self
            .desc
            .blocks
            .iter()
            .zip(&self.state)
            .any(|(b, s)| s.iir & regs.get(b.regs.ier) != 0);
        let master = self
            .desc
            .master
            .is_none_or(|m| regs.get(m.register) >> m.bit & 1 == 1);
        any && master
    }

    /// The IMR, IER and master-enable registers (kept across an engine reset).
    pub fn control_registers(&self) -> impl Iterator<Item = u32> + '_ {
        self.desc
            .blocks
            .iter()
            .flat_map(|b| [b.regs.imr, b.regs.ier])
            .chain(self.desc.master.map(|m| m.register))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen6() -> (Interrupts, RegFile) {
        let d = baregpu_hal::device::of(baregpu_hal::Generation::Gen6).unwrap();
        let mut regs = RegFile::new(&baregpu_hal::gen6::TABLES);
        let mut irq = Interrupts::new(d.interrupts);
        irq.reset(&mut regs);
        (irq, regs)
    }

    /// Mask, identity, enable and master, each on its own (003 lines 54916-54944).
    #[test]
    fn masked_events_stay_out_of_iir_and_the_line_needs_ier_and_master() {
        let (mut irq, mut regs) = gen6();
        let gt = irq.block("gt").unwrap();
        assert_eq!(gt, irq.engine_block());
        irq.event(&regs, gt, 0);
        assert_eq!(irq.iir(gt), 0, "masked in GTIMR");
        regs.write(0x44014, !1); // GTIMR: unmask bit 0
        irq.event(&regs, gt, 0);
        assert_eq!(irq.iir(gt), 1);
        assert!(!irq.line(&regs), "not enabled in GTIER");
        regs.write(0x4401c, 1); // GTIER
        assert!(!irq.line(&regs), "master off");
        regs.write(0x4400c, 1 << 31); // DEIER master
        assert!(irq.line(&regs));
        assert_eq!(irq.write(0x44018, 1), Some(false)); // GTIIR: write one to clear
        assert_eq!(irq.iir(gt), 0);
        assert!(!irq.line(&regs));
    }

    /// IIR queues one more event per bit: clearing it sets it again once.
    #[test]
    fn iir_queues_a_second_event() {
        let (mut irq, mut regs) = gen6();
        let gt = irq.block("gt").unwrap();
        regs.write(0x44014, 0);
        for _ in 0..3 {
            irq.event(&regs, gt, 12);
        }
        assert_eq!(irq.write(0x44018, 1 << 12), Some(true));
        assert_eq!(irq.iir(gt), 1 << 12, "the queued event");
        irq.write(0x44018, 1 << 12);
        assert_eq!(irq.iir(gt), 0, "only one was queued");
        assert_eq!(irq.read(0x44018, |_| 0), Some(0));
        assert_eq!(irq.read(0x44010, |_| 7), Some(7), "ISR is the live status");
        assert_eq!(irq.read(0x44020 + 0x100, |_| 7), None);
    }

    /// A display bit raised by name reaches the line through DEIER like the GT's.
    #[test]
    fn a_display_block_event_joins_the_line() {
        let (mut irq, mut regs) = gen6();
        let de = irq.block("display").unwrap();
        regs.write(0x44004, !(1 << 7)); // DEIMR: pipe A vblank
        regs.write(0x4400c, (1 << 31) | (1 << 7));
        irq.event(&regs, de, 7);
        assert!(irq.line(&regs));
    }
}
