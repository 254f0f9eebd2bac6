//! baregpu-soft: the software GPU.
//!
//! A device model that the driver reaches exactly as it reaches the
//! silicon: through MMIO ([`baregpu_hal::Mmio`]) and through memory the
//! device reads and writes at physical addresses ([`baregpu_hal::MemoryBus`]).
//! It depends on the hardware tables, never on the driver.
//!
//! What is modelled today (Gen4, G45, Gen6 and Gen7): the register file with its
//! access semantics (masked, read-only, write-one-to-clear) and reset values
//! from the tables; the GGTT, written through its MMIO alias; the render,
//! video and blitter command streamers (ring START/HEAD/TAIL/CTL, batch
//! buffers, the hardware status page) executing the MI commands listed in
//! `cs/mi.rs` and the blitter commands of `blit/`; the per-context
//! PPGTT; semaphore waits; user interrupts with their masks, enables and the
//! master enable, delivered as MSI (a bus write) or INTx; errors for unknown commands and
//! unmapped addresses, and a visible refusal of every other command of the
//! tables (`cs/mi.rs`); forcewake acknowledgement and engine reset; the media
//! and GPGPU pipelines of the render engine (`media`), whose threads run on
//! the EU array ([`eu::array`]); the Sandy Bridge and Ivy Bridge 3D pipeline (`render3d`:
//! 3D state, vertex fetch, VS threads, clipping, setup, rasterisation, PS
//! threads, the output merger) on the same array; the display engine ([`display`]: the pipe
//! the firmware lit, double-buffered primary planes, vertical blank, flips,
//! [`SoftGpu::scanout`]). Work advances only when the driver touches
//! MMIO, within a budget, so a looping batch or kernel is a hang the driver
//! must detect, never a frozen host.
//!
//! Gen12.5 (DG2) is a model of its own (`gen12_5`), since the way work
//! reaches the engines differs: execlist submission of logical ring
//! contexts with their status buffer, the Gen11 interrupt tree, a 64-bit
//! GGTT, four-level PPGTTs and local memory behind BAR2; it executes the MI
//! commands listed in `gen12_5/mi.rs` and refuses the rest by name, and has
//! no display, EU array or 3D/compute pipeline yet.
//!
//! Modules, each importing only those below it (no import cycles):
//! - `device`: the device the driver sees (MMIO dispatch, interrupts,
//!   reset, forcewake, configuration space), holding the units;
//! - `cs`: the command streamers, which work on the device's parts and
//!   reach its MMIO dispatch back through a trait (`cs::Host`) the device
//!   implements;
//! - `blit`, `media`, `render3d` and `display`: units the streamers call, each with its
//!   own state and methods, answering with errors the streamers map to engine
//!   errors;
//! - `gpe`: state both render-engine pipelines share (STATE_BASE_ADDRESS,
//!   the dispatcher's cr0);
//! - `mem`: graphics memory and address translation (GGTT, PPGTT, physical),
//!   which the streamers and units share;
//! - `command`, `layout`, `regfile`: command fields, the device description,
//!   the register file;
//! - `irq`: the interrupt blocks of the description (ISR, IIR, the line that
//!   the device sends as MSI or shows as INTx);
//! - [`eu`]: EU threads, the shared functions and the EU array;
//! - `gen12_5`: the Gen12.5 device (beside `device`, using `command`,
//!   `regfile` and the memory bus of `mem`).
#![cfg_attr(not(test), no_std)]

extern crate alloc;

mod blit;
mod command;
mod cs;
mod device;
pub mod display;
pub mod eu;
mod gen12_5;
mod gpe;
mod irq;
pub mod layout;
mod media;
mod mem;
mod msi;
mod regfile;
mod render3d;

use baregpu_hal::device::PixelFormat;
use baregpu_hal::{ConfigSpace, Generation, MemoryBus, Mmio};
use spin::Mutex;

pub use cs::Stats;
pub use display::FirmwareMode;
pub use display::scanout::Picture;
pub use gen12_5::ComputeFunctions;

/// Why a software GPU cannot be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SoftGpuError {
    /// The device model does not cover this generation yet.
    Unsupported(Generation),
    /// A command the model executes lacks a field it reads in this
    /// generation's tables (a table or model bug, found at construction).
    MissingField {
        command: &'static str,
        field: &'static str,
    },
}

/// The software GPU.
pub struct SoftGpu<B: MemoryBus> {
    device: Mutex<Model<B>>,
}

/// The device model of the generation: the Gen4-Gen7 one (ring buffers,
/// 32-bit GTTs), or Gen12.5's (execlists, 64-bit GTTs, local memory).
enum Model<B: MemoryBus> {
    Legacy(alloc::boxed::Box<device::Device<B>>),
    Gen12_5(alloc::boxed::Box<gen12_5::Device<B>>),
}

impl<B: MemoryBus> Model<B> {
    /// The Gen4-Gen7 device, for what only it has (display, EU array, stolen memory).
    fn legacy(&mut self) -> Option<&mut device::Device<B>> {
        match self {
            Model::Legacy(d) => Some(&mut **d),
            Model::Gen12_5(_) => None,
        }
    }
}

impl<B: MemoryBus> SoftGpu<B> {
    /// A device of `generation` in its reset state, reaching memory through `bus`.
    pub fn new(generation: Generation, bus: B) -> Result<Self, SoftGpuError> {
        let model = match generation {
            Generation::Gen12_5 => {
                Model::Gen12_5(alloc::boxed::Box::new(gen12_5::Device::new(bus)?))
            }
            g => Model::Legacy(alloc::boxed::Box::new(device::Device::new(g, bus)?)),
        };
        Ok(Self {
            device: Mutex::new(model),
        })
    }

    /// The device with pipe A lit by the firmware at `width` x `height` in
    /// `format`, a linear surface at GGTT address `surface` (the default is
    /// 1024 x 768 XRGB8888 at 0: [`FirmwareMode::default_lit`]). A mode the
    /// generation cannot show leaves every pipe dark.
    pub fn with_firmware_display(
        self,
        width: u32,
        height: u32,
        format: PixelFormat,
        surface: u64,
    ) -> Self {
        self.with_firmware_mode(Some(FirmwareMode::linear(width, height, format, surface)))
    }

    /// The device with `mode` lit by the firmware (any pipe, stride, X
    /// tiling), or with every pipe dark (`None`: a machine whose firmware
    /// lit no display).
    pub fn with_firmware_mode(self, mode: Option<FirmwareMode>) -> Self {
        let mut m = self.device.lock();
        if let Some(d) = m.legacy()
            && !d.set_firmware_display(mode)
        {
            d.set_firmware_display(None);
        }
        drop(m);
        self
    }

    /// What pipe `pipe`'s primary plane shows now (0 = pipe A); `None` when
    /// the pipe or the plane is off.
    pub fn scanout(&self, pipe: usize) -> Option<Picture> {
        self.device.lock().legacy()?.scanout(pipe)
    }

    /// Sets how long a display frame lasts, in clock ticks: commands executed
    /// plus MMIO reads (see the `display` module).
    pub fn set_frame_ticks(&self, ticks: u64) {
        if let Some(d) = self.device.lock().legacy() {
            d.set_frame_ticks(ticks)
        }
    }

    /// Clock ticks per display frame (`None` without a display).
    pub fn frame_ticks(&self) -> Option<u64> {
        self.device.lock().legacy()?.frame_ticks()
    }

    /// The device with its PCI command register at `value`: the firmware leaves
    /// memory space and bus master on (0x0007); 0 is the state after a reset,
    /// in which the GPU reaches no memory until a driver sets bus master.
    pub fn with_pci_command(self, value: u16) -> Self {
        match &mut *self.device.lock() {
            Model::Legacy(d) => d.set_pci_command(value),
            Model::Gen12_5(d) => d.config_write(baregpu_hal::pci::COMMAND, u32::from(value)),
        }
        self
    }

    /// The device with `bytes` of stolen memory at physical `base` (by default
    /// 32 MiB at 0x7800_0000), reported in configuration space (BDSM, and the
    /// size field where the GPU holds it) and served by the model itself. `None`
    /// when the generation has no size field value for `bytes` or `base` is not
    /// 1 MiB aligned below 4 GiB.
    pub fn with_stolen(self, base: u64, bytes: u64) -> Option<Self> {
        self.device.lock().legacy()?.set_stolen(base, bytes)?;
        Some(self)
    }

    /// Size of the MMIO BAR the driver should map (registers plus GTT alias).
    pub fn bar_size(&self) -> usize {
        match &*self.device.lock() {
            Model::Legacy(d) => d.layout().bar_size as usize,
            Model::Gen12_5(_) => gen12_5::BAR_SIZE as usize,
        }
    }

    /// Counters for tests and benchmarks.
    pub fn stats(&self) -> Stats {
        match &*self.device.lock() {
            Model::Legacy(d) => d.stats(),
            Model::Gen12_5(d) => d.stats(),
        }
    }

    /// Runs pending work for at most `budget` commands (the driver's MMIO
    /// polling does this too).
    pub fn run(&self, budget: u32) {
        match &mut *self.device.lock() {
            Model::Legacy(d) => d.run(budget),
            Model::Gen12_5(d) => d.run(budget),
        }
    }

    /// The shape and scheduling of the EU array (`None` without one).
    pub fn eu_config(&self) -> Option<eu::array::EuConfig> {
        self.device.lock().legacy()?.eu_config()
    }

    /// Reshapes the EU array. Resident threads are dropped: change it while
    /// the GPU is idle.
    pub fn set_eu_config(&self, config: eu::array::EuConfig) {
        if let Some(d) = self.device.lock().legacy() {
            d.set_eu_config(config)
        }
    }

    /// Why the EU array last stopped (a hung, faulting or failing thread),
    /// kept across engine resets.
    pub fn eu_report(&self) -> Option<eu::array::EuReport> {
        self.device.lock().legacy()?.eu_report()
    }

    /// Gen12.5: installs the shared functions the compute threads'
    /// messages reach (see `gen12_5/compute/mod.rs`); `false` on the older
    /// models, whose EU array has its own.
    pub fn set_compute_functions(
        &self,
        sf: alloc::boxed::Box<dyn ComputeFunctions + Send>,
    ) -> bool {
        match &mut *self.device.lock() {
            Model::Legacy(_) => false,
            Model::Gen12_5(d) => {
                d.set_compute_functions(sf);
                true
            }
        }
    }

    /// Gen12.5: takes the installed compute shared functions back.
    pub fn take_compute_functions(&self) -> Option<alloc::boxed::Box<dyn ComputeFunctions + Send>> {
        match &mut *self.device.lock() {
            Model::Legacy(_) => None,
            Model::Gen12_5(d) => d.take_compute_functions(),
        }
    }

    /// Gen12.5: the instructions one COMPUTE_WALKER may run before the
    /// engine counts as hung at it.
    pub fn set_compute_budget(&self, budget: u64) {
        if let Model::Gen12_5(d) = &mut *self.device.lock() {
            d.set_compute_budget(budget);
        }
    }

    /// Gen12.5: whether walker threads check their software scoreboard
    /// dependencies (on by default) and stop on a read or write that
    /// would race its writer. Off, they run as hardware would, without
    /// the diagnosis (and without the check's cost).
    pub fn set_swsb_check(&self, on: bool) {
        if let Model::Gen12_5(d) = &mut *self.device.lock() {
            d.set_swsb_check(on);
        }
    }

    /// Gen12.5: why engine `index`'s last walker hung or stopped it.
    pub fn compute_report(&self, index: usize) -> Option<alloc::string::String> {
        match &*self.device.lock() {
            Model::Legacy(_) => None,
            Model::Gen12_5(d) => d
                .compute_report(index)
                .map(alloc::string::ToString::to_string),
        }
    }

    /// What engine `index` (the layout's order) was stopped on as not
    /// modelled: the refused command's name, or for a draw the feature it
    /// needs. The driver sees the header in `SOFT_UNMODELLED_COMMAND`.
    pub fn unmodelled(&self, index: usize) -> Option<&'static str> {
        match &*self.device.lock() {
            Model::Legacy(d) => d.unmodelled(index),
            Model::Gen12_5(d) => d.unmodelled(index),
        }
    }

    /// The rule of the manual a draw on engine `index` broke when it
    /// stopped the engine (the driver sees an instruction error with the
    /// command in IPEHR; this is the model's reason, for the host).
    pub fn invalid(&self, index: usize) -> Option<&'static str> {
        self.device.lock().legacy()?.invalid(index)
    }

    /// EU array counters.
    pub fn eu_stats(&self) -> eu::array::EuStats {
        self.device
            .lock()
            .legacy()
            .map(|d| d.eu_stats())
            .unwrap_or_default()
    }

    /// Kernels the EU array has predecoded.
    pub fn eu_decodes(&self) -> u64 {
        self.device.lock().legacy().map_or(0, |d| d.eu_decodes())
    }

    /// Whether the INTx line is asserted (the platform's interrupt controller
    /// reads this level): an interrupt is pending, MSI is off and the command
    /// register's Interrupt Disable bit is clear. With MSI enabled the device
    /// writes its message to the bus instead ([`SoftGpu::msis_sent`]).
    pub fn intx_asserted(&self) -> bool {
        match &*self.device.lock() {
            Model::Legacy(d) => d.intx_asserted(),
            Model::Gen12_5(d) => d.intx_asserted(),
        }
    }

    /// MSI messages the device has written to its bus.
    pub fn msis_sent(&self) -> u64 {
        match &*self.device.lock() {
            Model::Legacy(d) => d.msis(),
            Model::Gen12_5(d) => d.msis(),
        }
    }

    /// Test knob: `false` makes forcewake requests go unacknowledged, as a GT that
    /// never wakes would (the driver must report it, not hang).
    pub fn set_forcewake_acks(&self, acks: bool) {
        if let Some(d) = self.device.lock().legacy() {
            d.set_forcewake_acks(acks)
        }
    }

    /// Test knob: whether an Ivy Bridge reports multi-threaded forcewake in ECOBUS
    /// bit 5 (the driver falls back to the single FORCEWAKE when not).
    pub fn set_forcewake_mt_capable(&self, capable: bool) {
        if let Some(d) = self.device.lock().legacy() {
            d.set_forcewake_mt_capable(capable)
        }
    }

    /// Raises bit `bit` of interrupt block `block` (`gt`, `display`, `pm` on
    /// Gen6/Gen7, `main` on Gen4/G45) as an event of a unit outside the command
    /// streamers would; `false` when the generation has no such block.
    pub fn raise_interrupt(&self, block: &str, bit: u32) -> bool {
        self.device
            .lock()
            .legacy()
            .is_some_and(|d| d.raise_interrupt(block, bit))
    }

    /// Bytes of device-local memory behind BAR2 (0 where the GPU has none:
    /// every generation before Gen12.5).
    pub fn local_memory_size(&self) -> u64 {
        match &*self.device.lock() {
            Model::Legacy(_) => 0,
            Model::Gen12_5(d) => d.local_memory_size(),
        }
    }

    /// Reads local memory at `offset` through BAR2; `false` past its end.
    pub fn read_local(&self, offset: u64, buf: &mut [u8]) -> bool {
        match &*self.device.lock() {
            Model::Legacy(_) => false,
            Model::Gen12_5(d) => d.read_local(offset, buf),
        }
    }

    /// Writes local memory at `offset` through BAR2; `false` past its end.
    pub fn write_local(&self, offset: u64, data: &[u8]) -> bool {
        match &mut *self.device.lock() {
            Model::Legacy(_) => false,
            Model::Gen12_5(d) => d.write_local(offset, data),
        }
    }

    /// The bit of interrupt `field` (a one-bit field of the block's IIR in the
    /// register tables, such as `pipe_a_vblank` of `display`), for
    /// [`SoftGpu::raise_interrupt`].
    pub fn interrupt_bit(&self, block: &str, field: &str) -> Option<u32> {
        self.device.lock().legacy()?.interrupt_bit(block, field)
    }
}

impl<B: MemoryBus> Mmio for SoftGpu<B> {
    fn read32(&self, offset: u32) -> u32 {
        match &mut *self.device.lock() {
            Model::Legacy(d) => d.mmio_read(offset),
            Model::Gen12_5(d) => d.mmio_read(offset),
        }
    }
    fn write32(&self, offset: u32, value: u32) {
        match &mut *self.device.lock() {
            Model::Legacy(d) => d.mmio_write(offset, value),
            Model::Gen12_5(d) => d.mmio_write(offset, value),
        }
    }
}

impl<B: MemoryBus> ConfigSpace for SoftGpu<B> {
    fn config_read32(&self, offset: u16) -> u32 {
        match &*self.device.lock() {
            Model::Legacy(d) => d.config_read(offset),
            Model::Gen12_5(d) => d.config_read(offset),
        }
    }
    fn config_write32(&self, offset: u16, value: u32) {
        match &mut *self.device.lock() {
            Model::Legacy(d) => d.config_write(offset, value),
            Model::Gen12_5(d) => d.config_write(offset, value),
        }
    }
}
