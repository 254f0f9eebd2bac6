//! The device: MMIO dispatch, interrupts, reset and forcewake around the
//! register file, the GGTT and the command streamers.

use alloc::vec::Vec;

use baregpu_hal::{Generation, MemoryBus};

use crate::SoftGpuError;
use crate::engine::{CommandTable, EngineState};
use crate::gtt::Ggtt;
use crate::layout::{self, Layout};
use crate::regfile::RegFile;

/// Commands an engine may run when the driver writes its TAIL.
const RUN_ON_TAIL: u32 = 4096;
/// Commands run per MMIO read: reading is how time passes for the model.
const RUN_ON_POLL: u32 = 256;

/// Counters for tests and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Commands executed, all engines.
    pub commands: u64,
    /// Known commands the model accepts without modelling their effect (3D state ...).
    pub unmodelled: u64,
    /// Batch buffers started.
    pub batches: u64,
    /// Engine errors raised (unknown command, page fault).
    pub errors: u64,
    /// Engine resets.
    pub resets: u64,
}

pub struct Device<B: MemoryBus> {
    pub(crate) layout: Layout,
    pub(crate) bus: B,
    pub(crate) gtt: Ggtt,
    pub(crate) regs: RegFile,
    pub(crate) engines: Vec<EngineState>,
    pub(crate) commands: Vec<CommandTable>,
    pub(crate) stats: Stats,
    /// GT interrupt state: pending (IIR) bits.
    pub(crate) gt_iir: u32,
    /// Free-running timestamp, one tick per command executed.
    pub(crate) timestamp: u64,
    /// Reused buffer for the command being executed.
    pub(crate) scratch: Vec<u32>,
}

impl<B: MemoryBus> Device<B> {
    pub fn new(generation: Generation, bus: B) -> Result<Self, SoftGpuError> {
        let layout = Layout::of(generation).ok_or(SoftGpuError::Unsupported(generation))?;
        let tables = generation.tables();
        let mut regs = RegFile::new(tables);
        // GTIMR resets to all masked (003 line 55552 area).
        regs.set(layout::GTIMR, u32::MAX);
        let engines = layout
            .engines
            .iter()
            .map(|_| EngineState::default())
            .collect();
        let commands = layout
            .engines
            .iter()
            .map(|e| CommandTable::new(tables, e.name))
            .collect();
        Ok(Self {
            layout,
            bus,
            gtt: Ggtt::new(layout.gtt_entries),
            regs,
            engines,
            commands,
            stats: Stats::default(),
            gt_iir: 0,
            timestamp: 0,
            scratch: Vec::with_capacity(64),
        })
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Runs every engine for at most `budget` commands.
    pub fn run(&mut self, budget: u32) {
        for i in 0..self.engines.len() {
            self.run_engine(i, budget);
        }
    }

    pub fn mmio_read(&mut self, offset: u32) -> u32 {
        self.run(RUN_ON_POLL);
        self.read_register(offset)
    }

    pub fn mmio_write(&mut self, offset: u32, value: u32) {
        self.write_register(offset, value);
    }

    /// A register read without side effects on progress (also used by
    /// MI_STORE_REGISTER_MEM).
    pub(crate) fn read_register(&self, offset: u32) -> u32 {
        let l = &self.layout;
        if offset >= l.gtt_offset && offset < l.gtt_offset + l.gtt_entries * 4 {
            return self.gtt.read_entry((offset - l.gtt_offset) / 4);
        }
        if let Some((i, rel)) = l.engine_at(offset) {
            let e = &self.engines[i];
            match rel {
                layout::TAIL => return e.tail,
                layout::HEAD => return e.head | (e.wrap_count << 21),
                layout::START => return e.start,
                layout::CTL => return e.ctl,
                layout::ACTHD => return e.acthd as u32,
                _ => {}
            }
        }
        match offset {
            layout::GTIIR | layout::GTISR => self.gt_iir,
            layout::FORCEWAKE_ACK => self.regs.get(layout::FORCEWAKE) & 1,
            layout::FORCEWAKE_MT_ACK => self.regs.get(layout::FORCEWAKE_MT) & 0xffff,
            layout::GDRST => 0, // resets complete at once
            _ if self.is_timestamp(offset) => {
                if offset.is_multiple_of(8) {
                    self.timestamp as u32
                } else {
                    (self.timestamp >> 32) as u32
                }
            }
            _ => self.regs.read(offset),
        }
    }

    /// TIMESTAMP: 64-bit at render base + 0x358 (003 line 13316).
    fn is_timestamp(&self, offset: u32) -> bool {
        self.layout
            .engines
            .first()
            .is_some_and(|r| offset == r.base + 0x358 || offset == r.base + 0x35c)
    }

    pub(crate) fn write_register(&mut self, offset: u32, value: u32) {
        let l = self.layout;
        if offset >= l.gtt_offset && offset < l.gtt_offset + l.gtt_entries * 4 {
            self.gtt.write_entry((offset - l.gtt_offset) / 4, value);
            return;
        }
        if let Some((i, rel)) = l.engine_at(offset) {
            match rel {
                layout::TAIL => {
                    self.engines[i].tail = value & 0x001f_fff8;
                    self.run_engine(i, RUN_ON_TAIL);
                    return;
                }
                layout::HEAD => {
                    self.engines[i].head = value & 0x001f_fffc;
                    return;
                }
                layout::START => {
                    self.engines[i].start = value & 0xffff_f000;
                    return;
                }
                layout::CTL => {
                    let e = &mut self.engines[i];
                    // Writing 1 to Semaphore Wait cancels a pending semaphore wait.
                    if value & e.ctl & 0x400 != 0 {
                        e.cancel_semaphore = true;
                    }
                    // RB Wait (11) and Semaphore Wait (10) are write-one-to-clear.
                    let waits = e.ctl & 0xc00 & !value;
                    e.ctl = (value & !0xc00) | waits;
                    if value & 1 == 1 && e.halted.is_none() {
                        self.run_engine(i, RUN_ON_TAIL);
                    }
                    return;
                }
                _ => {}
            }
        }
        if self.write_blit_register(offset, value) {
            return;
        }
        match offset {
            layout::GTIIR => self.gt_iir &= !value,
            layout::GDRST => self.reset(value),
            _ => self.regs.write(offset, value),
        }
    }

    /// GDRST: bit 0 resets every engine, the others one engine each.
    fn reset(&mut self, bits: u32) {
        for i in 0..self.engines.len() {
            let reset_bit = self.layout.engines[i].reset_bit;
            if bits & 1 != 0 || bits & (1 << reset_bit) != 0 {
                self.engines[i] = EngineState::default();
                let base = self.layout.engines[i].base;
                self.regs.reset_range(base..base + 0x1000);
                self.stats.resets += 1;
            }
        }
    }

    /// Raises a GT interrupt source: visible in IIR unless masked in GTIMR
    /// (the ring IMR masks at ring level; the model folds both into IIR).
    pub(crate) fn raise(&mut self, bit: u32) {
        let ring_imr = self
            .layout
            .engines
            .iter()
            .find(|e| [e.user_interrupt_bit, e.error_bit, e.notify_bit].contains(&bit));
        let ring_masked = ring_imr.is_some_and(|e| self.regs.get(e.base + 0xa8) & (1 << bit) != 0);
        if self.regs.get(layout::GTIMR) & (1 << bit) == 0 && !ring_masked {
            self.gt_iir |= 1 << bit;
        }
    }
}
