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
use crate::irq::Interrupts;
use crate::layout::{self, Layout};
use crate::media::{self, Media};
use crate::mem::bus::DeviceBus;
use crate::mem::gtt::Ggtt;
use crate::regfile::RegFile;
use baregpu_hal::device::{self, Forcewake, SizeSource, StatusBit};
use baregpu_hal::pci;

/// Commands an engine may run when the driver writes its TAIL.
const RUN_ON_TAIL: u32 = 4096;
/// Commands run per MMIO read: reading is how time passes for the model.
const RUN_ON_POLL: u32 = 256;

pub struct Device<B: MemoryBus> {
    layout: Layout,
    /// The platform's bus behind the bus-master switch, with stolen memory.
    bus: DeviceBus<B>,
    gtt: Ggtt,
    regs: RegFile,
    /// The command streamers.
    cs: Streamers,
    stats: Stats,
    /// The interrupt blocks' ISR/IIR state.
    irq: Interrupts,
    /// The interrupt line as delivery last saw it (an MSI goes out on its
    /// rising edge) and the MSI messages written to the bus.
    msi: crate::msi::Messages,
    /// Test knobs: forcewake requests are acknowledged; Ivy Bridge reports
    /// multi-threaded forcewake (ECOBUS bit 5).
    forcewake_acks: bool,
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
    /// What the firmware lit, stolen memory (base, bytes), and the GGTT entries
    /// (first, count) the firmware pointed at its console in stolen memory.
    firmware_mode: Option<FirmwareMode>,
    stolen: (u64, u64),
    firmware_ptes: Option<(u32, u32)>,
}

impl<B: MemoryBus> Device<B> {
    pub fn new(generation: Generation, bus: B) -> Result<Self, SoftGpuError> {
        let layout = Layout::of(generation).ok_or(SoftGpuError::Unsupported(generation))?;
        let tables = generation.tables();
        let mut regs = RegFile::new(tables);
        // Interrupts reset masked (003 lines 9276-9300).
        let mut irq = Interrupts::new(layout.device.interrupts);
        irq.reset(&mut regs);
        // The part does multi-threaded forcewake where the description asks (ECOBUS bit 5).
        if let Some(mt) = layout.device.gt.wake.mt_enable {
            regs.set(mt.register, regs.get(mt.register) | 1 << mt.bit);
        }
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
        let mut bus = DeviceBus::new(bus, FIRMWARE_COMMAND & PCI_COMMAND_BUS_MASTER != 0);
        bus.set_stolen(STOLEN_BASE, STOLEN_BYTES);
        let mut device = Self {
            layout,
            bus,
            gtt: Ggtt::new(layout.gtt_entries),
            regs,
            cs,
            stats: Stats::default(),
            irq,
            msi: crate::msi::Messages::default(),
            forcewake_acks: true,
            timestamp: 0,
            config: config_space(&layout),
            media: media::new_media(generation),
            display: layout.device.display.as_ref().map(|d| {
                let mut display = Display::new(d, layout.irq.iir);
                display.light(&FirmwareMode::default_lit());
                display
            }),
            mmio_reads: 0,
            firmware_mode: layout
                .device
                .display
                .is_some()
                .then(FirmwareMode::default_lit),
            stolen: (STOLEN_BASE, STOLEN_BYTES),
            firmware_ptes: None,
        };
        device.map_firmware_console();
        Ok(device)
    }

    /// The firmware's console in the GGTT: the entries of the lit surface point
    /// at the start of stolen memory, page by page, as firmware leaves them (the
    /// framebuffer Linux i915 takes over from DSPSURF, i9xx_get_initial_plane_config,
    /// lies in stolen memory). The entries of an earlier console are cleared.
    fn map_firmware_console(&mut self) {
        if let Some((first, count)) = self.firmware_ptes.take() {
            for index in first..first + count {
                self.gtt.write_entry(index, 0);
            }
        }
        let (Some(mode), (base, bytes)) = (self.firmware_mode, self.stolen) else {
            return;
        };
        // X tiles are 8 rows high: the surface spans whole tile rows.
        let rows = if mode.tiled {
            mode.height.next_multiple_of(8)
        } else {
            mode.height
        };
        let pages = (u64::from(mode.stride) * u64::from(rows))
            .div_ceil(4096)
            .min(bytes / 4096);
        let first = mode.surface / 4096;
        let count = pages.min(u64::from(self.layout.gtt_entries).saturating_sub(first));
        for p in 0..count {
            self.gtt.write_entry(
                (first + p) as u32,
                crate::mem::gtt::entry_for(base + p * 4096),
            );
        }
        self.firmware_ptes = Some((first as u32, count as u32));
    }

    /// Replaces what the firmware left lit: `Some(mode)` lights that pipe
    /// alone, `None` leaves every pipe dark. `false` when the mode does not
    /// fit the generation (no such pipe, a format the plane does not accept).
    pub fn set_firmware_display(&mut self, mode: Option<FirmwareMode>) -> bool {
        let Some(d) = self.display.as_mut() else {
            return mode.is_none();
        };
        d.dark();
        let lit = mode.is_none_or(|m| d.light(&m));
        self.firmware_mode = if lit { mode } else { None };
        self.map_firmware_console();
        lit
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
    /// (PIPExSTAT), or as an event of the interrupt block whose IIR it is
    /// (Gen6/Gen7 DEIIR, the Gen4/G45 IIR's flip pending), which latches it
    /// unless IMR masks it. The one place display events reach the
    /// interrupt registers.
    fn display_status(&mut self, s: StatusBit) {
        let Some(d) = self.display.as_mut() else {
            return;
        };
        if d.owns(s.register) {
            if let Some(event) = d.set_status(s) {
                self.display_status(event);
            }
            return;
        }
        let block = self
            .layout
            .device
            .interrupts
            .blocks
            .iter()
            .position(|b| b.regs.iir == s.register);
        if let Some(block) = block {
            self.irq.event(&self.regs, block, s.bit);
        }
    }

    /// A configuration-space read (dword `offset & !3`). The status register's
    /// Interrupt Status bit shows the interrupt line.
    pub fn config_read(&self, offset: u16) -> u32 {
        let value = self.config.get(offset as usize / 4).copied().unwrap_or(0);
        if offset & !3 == pci::COMMAND && self.irq.line(&self.regs) {
            return value | pci::STATUS_INTERRUPT;
        }
        value
    }

    /// A configuration-space write. The identity dwords (vendor/device ID,
    /// class and revision) are read-only; GDRST (Gen4/G45, 0xc0) resets the
    /// domain in bits 3:2 when bit 0 is written as 1 and clears bit 0 at once,
    /// which is how the hardware says the reset is done (Linux
    /// i965_reset_complete). Other dwords keep what is written.
    pub fn config_write(&mut self, offset: u16, value: u32) {
        let index = offset as usize / 4;
        // The identity dwords and the stolen-memory size and base the firmware
        // locked are read-only.
        let stolen = self.layout.device.gtt.stolen;
        if index == 0
            || index == 2
            || index >= self.config.len()
            || index == stolen.base_offset as usize / 4
        {
            return;
        }
        let mut value = value;
        let old = self.config[index];
        // Command register: memory space, bus master and the interrupt disable
        // bit are writable; the status half is write-one-to-clear, and its
        // bits the model sets (capabilities list) are read-only.
        if index == 1 {
            self.bus.set_master(value & PCI_COMMAND_BUS_MASTER != 0);
            value = (old & 0xffff_0000) | (value & 0xffff);
        } else if let Some(v) = crate::msi::write(&self.config, index, value) {
            value = v;
        }
        if let device::ConfigWord::Gpu(word) = stolen.size
            && index == word as usize / 4
        {
            // The GMS field is locked by the firmware (SNB_GMCH_CTRL is read-only
            // to software once GGCLCK is set; the model keeps it fixed).
            let mask = u32::from(stolen.mask()) << ((word % 4) * 8);
            value = (value & !mask) | (self.config[index] & mask);
        }
        if let device::Reset::PciConfig { offset: gdrst } = self.layout.device.gt.reset
            && offset & !3 == gdrst
        {
            if value & 1 != 0 {
                self.reset_domain((value >> 2) & 3);
            }
            value &= !1;
        }
        self.config[index] = value;
        self.deliver();
    }

    /// Whether the INTx line is asserted: the interrupt is pending, MSI is off and
    /// the command register's Interrupt Disable is clear.
    pub fn intx_asserted(&self) -> bool {
        self.irq.line(&self.regs)
            && !crate::msi::enabled(&self.config)
            && self.config[pci::COMMAND as usize / 4] & pci::COMMAND_INTERRUPT_DISABLE == 0
    }

    /// Sends an MSI on the rising edge of the interrupt line (`crate::msi`).
    fn deliver(&mut self) {
        let line = self.irq.line(&self.regs);
        self.msi.update(line, &self.config, &self.bus);
    }

    /// MSI messages sent so far.
    pub fn msis(&self) -> u64 {
        self.msi.sent
    }

    /// Test knob: whether forcewake requests are acknowledged.
    pub fn set_forcewake_acks(&mut self, acks: bool) {
        self.forcewake_acks = acks;
    }

    /// Test knob: whether the part reports multi-threaded forcewake (ECOBUS bit 5,
    /// where the description has that check).
    pub fn set_forcewake_mt_capable(&mut self, capable: bool) {
        if let Some(mt) = self.layout.device.gt.wake.mt_enable {
            let v = self.regs.get(mt.register) & !(1 << mt.bit);
            self.regs.set(mt.register, v | (capable as u32) << mt.bit);
        }
    }

    /// An event on bit `bit` of interrupt block `block` (`gt`, `display`, `pm`,
    /// `main`): for units outside the command streamers (the display). `false`
    /// when the description has no such block.
    pub fn raise_interrupt(&mut self, block: &str, bit: u32) -> bool {
        let Some(b) = self.irq.block(block) else {
            return false;
        };
        self.irq.event(&self.regs, b, bit);
        self.deliver();
        true
    }

    /// The bit of the one-bit field `field` of block `block`'s IIR in the
    /// generation's register tables (`pipe_a_vblank` is DEIIR bit 7 on Sandy
    /// Bridge, bit 0 on Ivy Bridge).
    pub fn interrupt_bit(&self, block: &str, field: &str) -> Option<u32> {
        let iir = self.layout.device.interrupts.block(block)?.regs.iir;
        let tables = self.layout.generation.tables();
        let reg = tables
            .registers
            .iter()
            .find(|r| r.offset == iir && r.engines.is_empty())?;
        let f = reg.fields.iter().find(|f| f.name == field)?;
        (f.start == f.end).then_some(f.start as u32)
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
        self.deliver();
    }

    pub fn mmio_read(&mut self, offset: u32) -> u32 {
        // Reading GTT entries is memory, not polling: the engines run on register reads.
        let l = &self.layout;
        if offset < l.gtt_offset || offset - l.gtt_offset >= l.gtt_entries * 4 {
            self.mmio_reads += 1;
            self.run(RUN_ON_POLL);
        }
        self.read_register(offset)
    }

    pub fn mmio_write(&mut self, offset: u32, value: u32) {
        self.write_register(offset, value);
        self.deliver();
    }

    /// The live status (ISR) of interrupt block `block`: the engines' error bits
    /// while their EIR holds an unmasked error; events are pulses and read as 0.
    fn live_status(&self, block: usize) -> u32 {
        // The display's level sources: a plane's flip pending (Gen4/G45 ISR).
        let display = self
            .layout
            .device
            .interrupts
            .blocks
            .get(block)
            .map_or(0, |b| {
                self.display
                    .as_ref()
                    .map_or(0, |d| d.live_status(b.regs.isr))
            });
        if block != self.irq.engine_block() {
            return display;
        }
        self.layout
            .engines
            .iter()
            .filter(|e| self.regs.get(e.errors.eir) & !self.regs.get(e.errors.emr) != 0)
            .fold(display, |bits, e| bits | 1 << e.error_bit)
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
        if let Some(v) = self.irq.read(offset, |b| self.live_status(b)) {
            return v;
        }
        let gt = l.device.gt;
        // The acknowledge follows the request at once (unless a test says never).
        let acks = self.forcewake_acks as u32;
        match (offset, gt.forcewake, gt.reset) {
            (o, Forcewake::Single { request, ack }, _) if o == ack => self.regs.get(request) & acks,
            (o, Forcewake::MultiThreaded { request, ack }, _) if o == ack => {
                self.regs.get(request) & 0xffff & acks.wrapping_neg()
            }
            (o, ..) if gt.wake.mt_enable.is_some_and(|m| m.single_ack == o) => gt
                .wake
                .mt_enable
                .map_or(0, |m| self.regs.get(m.single_request) & acks),
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
        match self.irq.write(offset, value) {
            // The line dropped for a clock before the queued event set IIR again:
            // an edge for MSI.
            Some(true) => {
                self.msi.line_was = false;
                return;
            }
            Some(false) => return,
            None => {}
        }
        match offset {
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
        // The GTT control (Gen4/G45 PGTBL_CTL, in the render page) and the GT-level
        // interrupt masks and enables (Gen4/G45 IMR/IER at 0x20a8/0x20a0) survive.
        let gtt_control = match self.layout.device.gtt.size.source {
            SizeSource::Mmio(at) => Some(at),
            SizeSource::PciConfig(_) => None,
        };
        let keep: alloc::vec::Vec<(u32, u32)> = gtt_control
            .into_iter()
            .chain(self.irq.control_registers())
            .filter(|at| (base..base + span).contains(at))
            .map(|at| (at, self.regs.get(at)))
            .collect();
        self.regs.reset_range(base..base + span);
        for (at, value) in keep {
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

    /// What engine `i` refused as not modelled, by name: the command, or
    /// for a draw the feature it needs (`render3d`).
    pub(crate) fn unmodelled(&self, i: usize) -> Option<&'static str> {
        match self.cs.engines.get(i)?.halted {
            Some(cs::Halt::Unmodelled { name, .. }) => Some(name),
            _ => None,
        }
    }

    /// The rule of the manual a draw on engine `i` broke, when it stopped
    /// the engine.
    pub(crate) fn invalid(&self, i: usize) -> Option<&'static str> {
        match self.cs.engines.get(i)?.halted {
            Some(cs::Halt::Invalid { why, .. }) => Some(why),
            _ => None,
        }
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
    type Bus = DeviceBus<B>;

    fn parts(&mut self) -> Parts<'_, DeviceBus<B>> {
        Parts {
            layout: &self.layout,
            bus: &self.bus,
            gtt: &mut self.gtt,
            regs: &mut self.regs,
            engines: &mut self.cs.engines,
            commands: &self.cs.commands,
            scratch: &mut self.cs.scratch,
            stats: &mut self.stats,
            irq: &mut self.irq,
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

/// PCI command register bits (PCI Local Bus 3.0, 6.2.2): memory space, and bus
/// master from the hal's PCI facts.
const PCI_COMMAND_MEMORY: u32 = 1 << 1;
const PCI_COMMAND_BUS_MASTER: u32 = pci::COMMAND_BUS_MASTER;
/// The command register as the firmware leaves a GPU it used for its console:
/// I/O, memory space and bus master on. [`Device::set_pci_command`] puts it
/// back to the reset value (0) for tests of the driver's bring-up.
const FIRMWARE_COMMAND: u32 = 0x1 | PCI_COMMAND_MEMORY | PCI_COMMAND_BUS_MASTER;
/// Stolen memory the model's firmware set aside: 32 MiB at 1920 MiB, below
/// 4 GiB as BDSM requires (bits 31:20) and where neither the host test platform
/// (DMA from 4 GiB up) nor the QEMU kernel's heap hands out memory.
pub(crate) const STOLEN_BASE: u64 = 0x7800_0000;
pub(crate) const STOLEN_BYTES: u64 = 32 << 20;

impl<B: MemoryBus> Device<B> {
    /// Sets the PCI command register (as the firmware or a reset left it).
    pub fn set_pci_command(&mut self, value: u16) {
        self.config[1] = (self.config[1] & 0xffff_0000) | u32::from(value);
        self.bus
            .set_master(u32::from(value) & PCI_COMMAND_BUS_MASTER != 0);
    }

    /// Moves or resizes stolen memory (0 bytes: none), and reports it in
    /// configuration space: the base in BDSM, the size in the GMS field where the
    /// GPU holds it (Gen6/Gen7; on Gen4/G45 the host bridge holds it, which the
    /// platform models). `None` when the description has no value for the size
    /// or the base is not 1 MiB aligned below 4 GiB.
    pub fn set_stolen(&mut self, base: u64, bytes: u64) -> Option<()> {
        let stolen = self.layout.device.gtt.stolen;
        if base & 0xf_ffff != 0 || base >> 32 != 0 {
            return None;
        }
        if let device::ConfigWord::Gpu(word) = stolen.size {
            let field = u32::from(stolen.field_for(bytes)?);
            let shift = (word % 4) * 8;
            let mask = u32::from(stolen.mask()) << shift;
            let i = word as usize / 4;
            self.config[i] = (self.config[i] & !mask) | (field << shift);
        }
        self.config[stolen.base_offset as usize / 4] = base as u32;
        self.bus.set_stolen(base, bytes);
        self.stolen = (base, bytes);
        self.map_firmware_console();
        Some(())
    }
}

/// The configuration space the model reports: Intel's vendor ID and the
/// generation's device ID, the command register as the firmware left it, class
/// 03h (display controller) subclass 00h (VGA), the GTT size where it is a
/// configuration word (Gen6/Gen7 SNB_GMCH_CTRL), stolen memory's base (BDSM)
/// and size (Gen6/Gen7 SNB_GMCH_CTRL GMS), and a capability list holding one
/// MSI capability (32-bit address, one vector, disabled): status bit 4, the
/// pointer at 0x34.
fn config_space(layout: &Layout) -> [u32; 64] {
    let mut c = [0u32; 64];
    c[0] = ((layout.device_id as u32) << 16) | 0x8086;
    c[1] = FIRMWARE_COMMAND;
    c[2] = 0x0300_0000;
    crate::msi::install(&mut c);
    let stolen = layout.device.gtt.stolen;
    c[stolen.base_offset as usize / 4] = STOLEN_BASE as u32;
    if let (device::ConfigWord::Gpu(word), Some(field)) =
        (stolen.size, stolen.field_for(STOLEN_BYTES))
    {
        c[word as usize / 4] |= u32::from(field) << ((word % 4) * 8);
    }
    let size = layout.device.gtt.size;
    if let (SizeSource::PciConfig(at), Some(field)) =
        (size.source, size.field_for(layout.gtt_entries))
    {
        c[at as usize / 4] |= field << ((at % 4) * 8);
    }
    c
}
