//! The device: MMIO dispatch, interrupts, reset and forcewake around the
//! register file, the GGTT and the command streamers.

use alloc::vec::Vec;

use baregpu_hal::{Generation, MemoryBus};

use crate::SoftGpuError;
use crate::engine::{CommandTable, EngineState};
use crate::gtt::Ggtt;
use crate::layout::{self, Layout};
use crate::regfile::RegFile;
use baregpu_hal::device::{self, Forcewake};

/// Commands an engine may run when the driver writes its TAIL.
const RUN_ON_TAIL: u32 = 4096;
/// Commands run per MMIO read: reading is how time passes for the model.
const RUN_ON_POLL: u32 = 256;

/// Counters for tests and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Commands executed, all engines.
    pub commands: u64,
    /// Known commands refused as not modelled (3D state ...).
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
    pub(crate) commands: alloc::sync::Arc<[CommandTable]>,
    pub(crate) stats: Stats,
    /// GT interrupt state: pending (IIR) bits.
    pub(crate) gt_iir: u32,
    /// Free-running timestamp, one tick per command executed.
    pub(crate) timestamp: u64,
    /// Reused buffer for the command being executed.
    pub(crate) scratch: Vec<u32>,
    /// PCI configuration space (64 dwords), see [`Device::config_write`].
    config: [u32; 64],
    /// The render engine's media/GPGPU unit and EU array (`None` while a
    /// command runs it, and for generations without one).
    pub(crate) media: Option<alloc::boxed::Box<crate::media::Media>>,
}

impl<B: MemoryBus> Device<B> {
    pub fn new(generation: Generation, bus: B) -> Result<Self, SoftGpuError> {
        let layout = Layout::of(generation).ok_or(SoftGpuError::Unsupported(generation))?;
        let tables = generation.tables();
        let mut regs = RegFile::new(tables);
        // The interrupt mask resets to all masked (003 line 55552 area).
        regs.set(layout.irq.imr, u32::MAX);
        let engines = layout
            .engines
            .iter()
            .map(|_| EngineState::default())
            .collect();
        let commands = layout
            .engines
            .iter()
            .map(|e| CommandTable::new(tables, e.name))
            .collect::<Result<alloc::sync::Arc<[_]>, _>>()
            .map_err(|m| SoftGpuError::MissingField {
                command: m.command,
                field: m.field,
            })?;
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
            config: config_space(&layout),
            media: crate::media::device::new_media(generation),
        })
    }

    /// A configuration-space read (dword `offset & !3`).
    pub fn config_read(&self, offset: u16) -> u32 {
        self.config.get(offset as usize / 4).copied().unwrap_or(0)
    }

    /// A configuration-space write. The identity dwords (vendor/device ID,
    /// class and revision) are read-only; GDRST (Gen4/G45, 0xc0) resets the
    /// domain in bits 3:2 when bit 0 is written as 1 and clears bit 0 at once,
    /// which is how the hardware says the reset is done (Linux
    /// i965_reset_complete). Other dwords keep what is written.
    pub fn config_write(&mut self, offset: u16, value: u32) {
        let index = offset as usize / 4;
        if index == 0 || index == 2 || index >= self.config.len() {
            return;
        }
        let mut value = value;
        if let device::Reset::PciConfig { offset: gdrst } = self.layout.device.gt.reset
            && offset & !3 == gdrst
        {
            if value & 1 != 0 {
                self.reset_domain((value >> 2) & 3);
            }
            value &= !1;
        }
        self.config[index] = value;
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
            let ring = l.engines[i].ring;
            match rel {
                r if r == ring.tail => return e.tail,
                r if r == ring.head => return e.head | (e.wrap_count << 21),
                r if r == ring.start => return e.start,
                r if r == ring.ctl => return e.ctl,
                _ if offset == l.engines[i].errors.acthd => return e.acthd as u32,
                baregpu_hal::mmio::SOFT_UNMODELLED_COMMAND => return e.unmodelled,
                _ => {}
            }
        }
        let irq = l.irq;
        let gt = l.device.gt;
        match (offset, gt.forcewake, gt.reset) {
            (o, ..) if o == irq.iir || o == irq.isr => self.gt_iir,
            // The acknowledge follows the request at once.
            (o, Forcewake::Single { request, ack }, _) if o == ack => self.regs.get(request) & 1,
            (o, Forcewake::MultiThreaded { request, ack }, _) if o == ack => {
                self.regs.get(request) & 0xffff
            }
            (o, _, device::Reset::Gdrst { register, .. }) if o == register => 0, // resets complete at once
            _ => match self.timestamp_half(offset) {
                Some(false) => self.timestamp as u32,
                Some(true) => (self.timestamp >> 32) as u32,
                None => self.regs.read(offset),
            },
        }
    }

    /// Whether `offset` is an engine's 64-bit TIMESTAMP: `Some(false)` its low dword,
    /// `Some(true)` its high one. The engines share one counter.
    fn timestamp_half(&self, offset: u32) -> Option<bool> {
        self.layout.engines.iter().find_map(|e| {
            let t = e.timestamp?;
            (offset == t || offset == t + 4).then_some(offset != t)
        })
    }

    pub(crate) fn write_register(&mut self, offset: u32, value: u32) {
        let l = self.layout;
        if offset >= l.gtt_offset && offset < l.gtt_offset + l.gtt_entries * 4 {
            self.gtt.write_entry((offset - l.gtt_offset) / 4, value);
            return;
        }
        if let Some((i, rel)) = l.engine_at(offset) {
            let ring = l.engines[i].ring;
            match rel {
                r if r == ring.tail => {
                    self.engines[i].tail = value & 0x001f_fff8;
                    self.run_engine(i, RUN_ON_TAIL);
                    return;
                }
                r if r == ring.head => {
                    self.engines[i].head = value & 0x001f_fffc;
                    return;
                }
                // Read-only, cleared by the engine's reset.
                baregpu_hal::mmio::SOFT_UNMODELLED_COMMAND => return,
                r if r == ring.start => {
                    self.engines[i].start = value & 0xffff_f000;
                    return;
                }
                r if r == ring.ctl => {
                    let e = &mut self.engines[i];
                    // Writing 1 to Semaphore Wait (10) or RB Wait (11) cancels that wait.
                    if value & e.ctl & 0xc00 != 0 {
                        e.cancel_wait = true;
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
            o if o == l.irq.iir => self.gt_iir &= !value,
            o if matches!(l.device.gt.reset, device::Reset::Gdrst { register, .. } if register == o) => {
                self.reset(value)
            }
            _ => self.regs.write(offset, value),
        }
    }

    /// GDRST: bit 0 resets every engine, the others one engine each.
    fn reset(&mut self, bits: u32) {
        for i in 0..self.engines.len() {
            let reset_bit = self.layout.engines[i].reset_bit;
            if bits & 1 != 0 || bits & (1 << reset_bit) != 0 {
                self.reset_engine(i);
            }
        }
    }

    /// Gen4/G45 configuration-space reset of a GRDOM domain (0 = everything).
    fn reset_domain(&mut self, domain: u32) {
        for i in 0..self.engines.len() {
            if domain == 0 || self.layout.engines[i].reset_bit == domain {
                self.reset_engine(i);
            }
        }
    }

    fn reset_engine(&mut self, i: usize) {
        self.engines[i] = EngineState::default();
        let base = self.layout.engines[i].base;
        // Gen6/Gen7 engines own a 4 KiB register page; on Gen4 the render page also
        // holds the GTT, interrupt and fence registers, which survive an engine
        // reset, so only the ring and error registers (base .. base + 0x100) reset.
        let span = match self.layout.reset {
            layout::Reset::Gdrst => 0x1000,
            layout::Reset::PciConfig => 0x100,
        };
        self.regs.reset_range(base..base + span);
        self.media_reset(i);
        self.stats.resets += 1;
    }

    /// Raises an interrupt source: visible in IIR unless masked in IMR
    /// (on Gen6/Gen7 the ring IMR masks at ring level too; the model folds
    /// both into IIR).
    pub(crate) fn raise(&mut self, bit: u32) {
        let ring_imr = self
            .layout
            .engines
            .iter()
            .filter(|_| self.layout.ring_imr)
            .find(|e| [e.user_interrupt_bit, e.error_bit, e.notify_bit].contains(&bit));
        let ring_masked = ring_imr
            .and_then(|e| e.imr)
            .is_some_and(|imr| self.regs.get(imr) & (1 << bit) != 0);
        if self.regs.get(self.layout.irq.imr) & (1 << bit) == 0 && !ring_masked {
            self.gt_iir |= 1 << bit;
        }
    }
}

/// The configuration space the model reports: Intel's vendor ID and the
/// generation's device ID, class 03h (display controller) subclass 00h (VGA).
fn config_space(layout: &Layout) -> [u32; 64] {
    let mut c = [0u32; 64];
    c[0] = ((layout.device_id as u32) << 16) | 0x8086;
    c[2] = 0x0300_0000;
    c
}
