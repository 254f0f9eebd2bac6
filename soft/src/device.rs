//! The device: the register file, the GGTT and memory bus, and the units
//! (the command streamers, with the blitter state of each engine, and the
//! media unit of the render engine); MMIO dispatch, interrupts, reset,
//! forcewake and PCI configuration space around them.
//!
//! The device is the top of the model: it runs the streamers (`cs`) and
//! lends them its parts; they reach its MMIO dispatch back through
//! [`Host`], and nothing below imports this module.

use alloc::boxed::Box;

use baregpu_hal::{Generation, MemoryBus};

use crate::SoftGpuError;
use crate::blit;
use crate::cs::{self, EngineState, Host, Parts, Stats, Streamers};
use crate::display::scanout::{self, Picture};
use crate::display::{Display, FirmwareMode};
use crate::eu::array::{EuConfig, EuReport, EuStats};
use crate::layout::{self, Layout};
use crate::media::{self, Media};
use crate::mem::gtt::Ggtt;
use crate::regfile::RegFile;
use baregpu_hal::device::{self, Forcewake, SizeSource, StatusBit};

/// Commands an engine may run when the driver writes its TAIL.
const RUN_ON_TAIL: u32 = 4096;
/// Commands run per MMIO read: reading is how time passes for the model.
const RUN_ON_POLL: u32 = 256;

pub struct Device<B: MemoryBus> {
    layout: Layout,
    bus: B,
    gtt: Ggtt,
    regs: RegFile,
    /// The command streamers.
    cs: Streamers,
    stats: Stats,
    /// GT interrupt state: pending (IIR) bits.
    gt_iir: u32,
    /// Free-running timestamp, one tick per command executed.
    timestamp: u64,
    /// PCI configuration space (64 dwords), see [`Device::config_write`].
    config: [u32; 64],
    /// The render engine's media/GPGPU unit and EU array (`None` for
    /// generations without one).
    media: Option<Box<Media>>,
    /// The display engine (`None` where the description has none).
    display: Option<Display>,
    /// MMIO reads so far: with the timestamp, the display's clock.
    mmio_reads: u64,
}

impl<B: MemoryBus> Device<B> {
    pub fn new(generation: Generation, bus: B) -> Result<Self, SoftGpuError> {
        let layout = Layout::of(generation).ok_or(SoftGpuError::Unsupported(generation))?;
        let tables = generation.tables();
        let mut regs = RegFile::new(tables);
        // The interrupt mask resets to all masked (003 line 55552 area).
        regs.set(layout.irq.imr, u32::MAX);
        // The GTT size the driver reads, where it is a register (Gen4/G45 PGTBL_CTL).
        let size = layout.device.gtt.size;
        if let (SizeSource::Mmio(at), Some(field)) =
            (size.source, size.field_for(layout.gtt_entries))
        {
            regs.set(at, regs.get(at) | field);
        }
        let cs = Streamers::new(&layout, tables).map_err(|m| SoftGpuError::MissingField {
            command: m.command,
            field: m.field,
        })?;
        Ok(Self {
            layout,
            bus,
            gtt: Ggtt::new(layout.gtt_entries),
            regs,
            cs,
            stats: Stats::default(),
            gt_iir: 0,
            timestamp: 0,
            config: config_space(&layout),
            media: media::new_media(generation),
            display: layout.device.display.as_ref().map(|d| {
                let mut display = Display::new(d, layout.irq.iir);
                display.light(&FirmwareMode::default_lit());
                display
            }),
            mmio_reads: 0,
        })
    }

    /// Replaces what the firmware left lit: `Some(mode)` lights that pipe
    /// alone, `None` leaves every pipe dark. `false` when the mode does not
    /// fit the generation (no such pipe, a format the plane does not accept).
    pub fn set_firmware_display(&mut self, mode: Option<FirmwareMode>) -> bool {
        let Some(d) = self.display.as_mut() else {
            return mode.is_none();
        };
        d.dark();
        mode.is_none_or(|m| d.light(&m))
    }

    /// Clock ticks per frame of the display (see `crate::display`).
    pub fn set_frame_ticks(&mut self, ticks: u64) {
        let clock = self.display_clock_now();
        if let Some(d) = self.display.as_mut() {
            d.set_frame_ticks(ticks, clock);
        }
    }

    pub fn frame_ticks(&self) -> Option<u64> {
        self.display.as_ref().map(|d| d.frame_ticks())
    }

    /// What pipe `pipe`'s primary plane shows now.
    pub fn scanout(&self, pipe: usize) -> Option<Picture> {
        let d = self.display.as_ref()?;
        scanout::scanout(
            d,
            pipe,
            &self.bus,
            &self.gtt,
            &self.regs,
            self.layout.generation,
        )
    }

    fn display_clock_now(&self) -> u64 {
        self.timestamp + self.mmio_reads
    }

    /// Brings the display up to the device clock and sets the status bits
    /// of what happened (vertical blanks, flips).
    fn display_clock(&mut self) {
        let clock = self.display_clock_now();
        let Some(d) = self.display.as_mut() else {
            return;
        };
        d.advance(clock);
        for event in d.take_events() {
            self.display_status(event);
        }
    }

    /// Sets a display status bit: in a register the display keeps
    /// (PIPExSTAT), in the GT's IIR unless IMR masks it (Gen4/G45 flip
    /// pending), or in the display engine's IIR unless its IMR masks it
    /// (Gen6/Gen7 DEIIR). The one place display events reach the interrupt
    /// registers.
    fn display_status(&mut self, s: StatusBit) {
        let Some(d) = self.display.as_mut() else {
            return;
        };
        if d.owns(s.register) {
            d.set_status(s);
            return;
        }
        let (iir, imr) = match d.desc().irq {
            Some(de) if de.iir == s.register => (de.iir, de.imr),
            _ => (self.layout.irq.iir, self.layout.irq.imr),
        };
        if self.regs.get(imr) & (1 << s.bit) != 0 {
            return;
        }
        if iir == self.layout.irq.iir {
            self.gt_iir |= 1 << s.bit;
        } else {
            self.regs.set(iir, self.regs.get(iir) | (1 << s.bit));
        }
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
        for i in 0..self.cs.engines.len() {
            cs::run(self, i, budget);
        }
        self.display_clock();
    }

    pub fn mmio_read(&mut self, offset: u32) -> u32 {
        self.mmio_reads += 1;
        self.run(RUN_ON_POLL);
        self.read_register(offset)
    }

    pub fn mmio_write(&mut self, offset: u32, value: u32) {
        self.write_register(offset, value);
    }

    /// A register read without side effects on progress (also used by
    /// MI_STORE_REGISTER_MEM).
    fn read_register(&self, offset: u32) -> u32 {
        let l = &self.layout;
        if offset >= l.gtt_offset && offset < l.gtt_offset + l.gtt_entries * 4 {
            return self.gtt.read_entry((offset - l.gtt_offset) / 4);
        }
        if let Some((i, rel)) = l.engine_at(offset) {
            let e = &self.cs.engines[i];
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
        if let Some(v) = self.display.as_ref().and_then(|d| d.read(offset)) {
            return v;
        }
        let irq = l.irq;
        let gt = l.device.gt;
        let (driven, live) = self
            .display
            .as_ref()
            .map_or((0, 0), |d| d.live_status(offset));
        match (offset, gt.forcewake, gt.reset) {
            (o, ..) if o == irq.iir => self.gt_iir,
            (o, ..) if o == irq.isr => (self.gt_iir & !driven) | live,
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

    fn write_register(&mut self, offset: u32, value: u32) {
        let l = self.layout;
        if offset >= l.gtt_offset && offset < l.gtt_offset + l.gtt_entries * 4 {
            self.gtt.write_entry((offset - l.gtt_offset) / 4, value);
            return;
        }
        if let Some((i, rel)) = l.engine_at(offset) {
            let ring = l.engines[i].ring;
            match rel {
                r if r == ring.tail => {
                    self.cs.engines[i].tail = value & 0x001f_fff8;
                    cs::run(self, i, RUN_ON_TAIL);
                    return;
                }
                r if r == ring.head => {
                    self.cs.engines[i].head = value & 0x001f_fffc;
                    return;
                }
                // Read-only, cleared by the engine's reset.
                baregpu_hal::mmio::SOFT_UNMODELLED_COMMAND => return,
                r if r == ring.start => {
                    self.cs.engines[i].start = value & 0xffff_f000;
                    return;
                }
                r if r == ring.ctl => {
                    let e = &mut self.cs.engines[i];
                    // Writing 1 to Semaphore Wait (10) or RB Wait (11) cancels that wait.
                    if value & e.ctl & 0xc00 != 0 {
                        e.cancel_wait = true;
                    }
                    // RB Wait (11) and Semaphore Wait (10) are write-one-to-clear.
                    let waits = e.ctl & 0xc00 & !value;
                    e.ctl = (value & !0xc00) | waits;
                    if value & 1 == 1 && e.halted.is_none() {
                        cs::run(self, i, RUN_ON_TAIL);
                    }
                    return;
                }
                _ => {}
            }
        }
        if let Some(d) = self.display.as_mut()
            && d.write(offset, value)
        {
            return;
        }
        if blit::write_register(&mut self.regs, offset, value) {
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
        for i in 0..self.cs.engines.len() {
            let reset_bit = self.layout.engines[i].reset_bit;
            if bits & 1 != 0 || bits & (1 << reset_bit) != 0 {
                self.reset_engine(i);
            }
        }
    }

    /// Gen4/G45 configuration-space reset of a GRDOM domain (0 = everything).
    fn reset_domain(&mut self, domain: u32) {
        for i in 0..self.cs.engines.len() {
            if domain == 0 || self.layout.engines[i].reset_bit == domain {
                self.reset_engine(i);
            }
        }
    }

    fn reset_engine(&mut self, i: usize) {
        self.cs.engines[i] = EngineState::default();
        let base = self.layout.engines[i].base;
        // Gen6/Gen7 engines own a 4 KiB register page; on Gen4 the render page also
        // holds the GTT, interrupt and fence registers, which survive an engine
        // reset, so only the ring and error registers (base .. base + 0x100) reset.
        let span = match self.layout.reset {
            layout::Reset::Gdrst => 0x1000,
            layout::Reset::PciConfig => 0x100,
        };
        // The GTT control (Gen4/G45 PGTBL_CTL, in the render page) survives.
        let gtt_control = match self.layout.device.gtt.size.source {
            SizeSource::Mmio(at) => Some((at, self.regs.get(at))),
            SizeSource::PciConfig(_) => None,
        };
        self.regs.reset_range(base..base + span);
        if let Some((at, value)) = gtt_control {
            self.regs.set(at, value);
        }
        // The engine's media unit resets with it.
        if media::on_engine(self.layout.engines[i].name)
            && let Some(m) = self.media.as_mut()
        {
            m.reset();
        }
        self.stats.resets += 1;
    }
    pub(crate) fn eu_config(&self) -> Option<EuConfig> {
        self.media.as_ref().map(|m| m.array.config())
    }

    /// A new EU array shape; the array is rebuilt (threads are dropped, so
    /// change it while idle).
    pub(crate) fn set_eu_config(&mut self, config: EuConfig) {
        if let Some(m) = self.media.as_mut() {
            m.array.reconfigure(config);
            let limit = m.vfe.max_threads as usize;
            if limit > 0 {
                m.array.set_limit(limit);
            }
        }
    }

    /// The last failure of the EU array (kept across engine resets).
    pub(crate) fn eu_report(&self) -> Option<EuReport> {
        let m = self.media.as_ref()?;
        m.array.report().cloned().or_else(|| m.last_report.clone())
    }

    pub(crate) fn eu_stats(&self) -> EuStats {
        self.media
            .as_ref()
            .map(|m| m.array.stats())
            .unwrap_or_default()
    }

    /// Kernels predecoded so far.
    pub(crate) fn eu_decodes(&self) -> u64 {
        self.media.as_ref().map_or(0, |m| m.cache.stats.decodes)
    }
}

impl<B: MemoryBus> Host for Device<B> {
    type Bus = B;

    fn parts(&mut self) -> Parts<'_, B> {
        Parts {
            layout: &self.layout,
            bus: &self.bus,
            gtt: &mut self.gtt,
            regs: &mut self.regs,
            engines: &mut self.cs.engines,
            commands: &self.cs.commands,
            scratch: &mut self.cs.scratch,
            stats: &mut self.stats,
            gt_iir: &mut self.gt_iir,
            timestamp: &mut self.timestamp,
            media: &mut self.media,
            display: &mut self.display,
        }
    }

    fn read_register(&self, offset: u32) -> u32 {
        Device::read_register(self, offset)
    }

    fn write_register(&mut self, offset: u32, value: u32) {
        Device::write_register(self, offset, value)
    }
}

/// The configuration space the model reports: Intel's vendor ID and the
/// generation's device ID, class 03h (display controller) subclass 00h (VGA),
/// and the GTT size where it is a configuration word (Gen6/Gen7 SNB_GMCH_CTRL).
fn config_space(layout: &Layout) -> [u32; 64] {
    let mut c = [0u32; 64];
    c[0] = ((layout.device_id as u32) << 16) | 0x8086;
    c[2] = 0x0300_0000;
    let size = layout.device.gtt.size;
    if let (SizeSource::PciConfig(at), Some(field)) =
        (size.source, size.field_for(layout.gtt_entries))
    {
        c[at as usize / 4] |= field << ((at % 4) * 8);
    }
    c
}
