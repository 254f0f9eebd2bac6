//! A generation's device description: its engines, where their ring and
//! status-page registers are, the GT's interrupt, reset, forcewake and PPGTT
//! registers, and where the GTT is. Generated per generation (`DEVICE` in each
//! generation module) from `hal/tables/<gen>/device.toml`, whose register
//! names resolve against the generation's register tables; the driver and the
//! software GPU both read it instead of declaring these facts themselves.

use crate::Generation;

/// Everything per-generation that the driver and the model agree on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Device {
    /// The EU instruction set the generation's kernels are written in (isa platform name).
    pub eu_isa: &'static str,
    pub engines: &'static [EngineDesc],
    pub gt: GtDesc,
    pub gtt: GttDesc,
    /// How the device's interrupt is formed: its interrupt register sets and the master enable.
    pub interrupts: InterruptDesc,
    /// The media/GPGPU pipeline's limits; `None` where the driver has no compute path yet.
    pub compute: Option<ComputeDesc>,
    /// The display pipes and their primary planes; `None` where the tables have none.
    pub display: Option<DisplayDesc>,
    /// Mode-register writes the driver makes once an engine's ring runs, in order
    /// (what Linux i915's ring initialisation writes).
    pub init: &'static [InitWrite],
}

/// One masked write to a mode register after an engine's ring starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InitWrite {
    /// The engine whose ring initialisation makes it.
    pub engine: &'static str,
    /// Absolute offset.
    pub register: u32,
    /// Write enables in 31:16, values in 15:0.
    pub value: u32,
}

/// The display engine as the driver takes over a lit pipe and the model scans out:
/// each pipe's registers, the pixel formats the primary plane accepts, where vertical
/// blank and flip events show, which ring runs MI_DISPLAY_FLIP, and the register
/// fields both sides read (resolved from the register tables by field name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DisplayDesc {
    pub pipes: &'static [PipeDesc],
    /// The primary plane's accepted formats: DSPxCNTR's Source Pixel Format codes.
    pub formats: &'static [PlaneFormat],
    /// The ring the driver queues MI_DISPLAY_FLIP on.
    pub flip_engine: &'static str,
    pub bits: DisplayBits,
}

/// One pipe and its primary plane (absolute register offsets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipeDesc {
    /// "a", "b", "c".
    pub name: &'static str,
    pub conf: u32,
    pub src: u32,
    /// Frame counter: the 32-bit counter (G45 and later), or on the 965 the register
    /// holding bits 23:8 (its bits 7:0 are in `frame_pixel` 31:24).
    pub frame: u32,
    pub frame_pixel: Option<u32>,
    pub flip_count: Option<u32>,
    /// PIPExSTAT (Gen4/G45).
    pub stat: Option<u32>,
    pub cntr: u32,
    pub linoff: u32,
    pub stride: u32,
    pub surf: u32,
    pub tileoff: u32,
    /// Set at each start of vertical blank (sticky, write one to clear): a register
    /// of the display (PIPExSTAT) or the IIR of an interrupt block (`Device::interrupts`).
    pub vblank: StatusBit,
    /// Set when a flip of the primary plane completes (Gen6/Gen7 DEIIR).
    pub flip_done: Option<StatusBit>,
    /// High while a queued flip waits for vertical blank (Gen4/G45 ISR; the IIR bit
    /// latches when the flip is queued).
    pub flip_pending: Option<StatusBit>,
    /// MI_DISPLAY_FLIP's Display Plane Select value for this plane.
    pub flip_plane: u32,
    /// The pipe event a PIPExSTAT status bit raises while its enable (16 bits
    /// above it) is set (Gen4/G45 IIR).
    pub stat_event: Option<StatusBit>,
}

/// A bit of a status register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatusBit {
    pub register: u32,
    pub bit: u32,
}

/// A register field: its low bit and width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldBits {
    pub shift: u32,
    pub width: u32,
}

impl FieldBits {
    pub const fn mask(self) -> u32 {
        (((1u64 << self.width) - 1) as u32) << self.shift
    }
    /// The field's value in `reg`.
    pub const fn get(self, reg: u32) -> u32 {
        (reg & self.mask()) >> self.shift
    }
    /// `reg` with the field set to `value` (cut to the field).
    pub const fn put(self, reg: u32, value: u32) -> u32 {
        (reg & !self.mask()) | ((value << self.shift) & self.mask())
    }
}

/// The pipe and plane register fields the driver and the model read, the same for
/// every pipe of a generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DisplayBits {
    /// PIPExCONF: enable, and the state the pipe is in.
    pub pipe_enable: FieldBits,
    pub pipe_state: FieldBits,
    /// PIPExSRC: width and height minus one.
    pub src_width: FieldBits,
    pub src_height: FieldBits,
    /// DSPxCNTR.
    pub plane_enable: FieldBits,
    pub pixel_format: FieldBits,
    pub tiled: FieldBits,
    /// DSPxCNTR's pipe select (Gen4/G45); `None` where planes are tied to their pipe.
    pub pipe_select: Option<FieldBits>,
    /// DSPxSTRIDE: the stride in bytes (its low bits are the field's alignment).
    pub stride: FieldBits,
    /// DSPxTILEOFF.
    pub tile_x: FieldBits,
    pub tile_y: FieldBits,
}

/// A pixel format of the primary plane and its DSPxCNTR code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlaneFormat {
    pub code: u32,
    pub format: PixelFormat,
}

/// Pixel formats (DRM fourcc names, memory order little-endian).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PixelFormat {
    /// 8-bit index into the pipe palette.
    C8,
    /// 16-bit R 15:11, G 10:5, B 4:0.
    Rgb565,
    /// 32-bit X 31:24, R 23:16, G 15:8, B 7:0.
    Xrgb8888,
    /// 32-bit X 31:24, B 23:16, G 15:8, R 7:0.
    Xbgr8888,
    /// 32-bit X 31:30, R 29:20, G 19:10, B 9:0.
    Xrgb2101010,
    /// 32-bit X 31:30, B 29:20, G 19:10, R 9:0.
    Xbgr2101010,
    /// 64-bit half floats: R 15:0, G 31:16, B 47:32, X 63:48.
    Xbgr16161616F,
}

impl PixelFormat {
    pub const fn bytes_per_pixel(self) -> u32 {
        match self {
            PixelFormat::C8 => 1,
            PixelFormat::Rgb565 => 2,
            PixelFormat::Xbgr16161616F => 8,
            _ => 4,
        }
    }
}

impl DisplayDesc {
    /// The format of DSPxCNTR code `code`, if the plane accepts it.
    pub fn format_of(&self, code: u32) -> Option<PixelFormat> {
        self.formats
            .iter()
            .find(|f| f.code == code)
            .map(|f| f.format)
    }

    /// The DSPxCNTR code of `format`, if the plane accepts it.
    pub fn code_of(&self, format: PixelFormat) -> Option<u32> {
        self.formats
            .iter()
            .find(|f| f.format == format)
            .map(|f| f.code)
    }
}

/// Limits of the media/GPGPU pipeline the driver sizes its state by and the model
/// decodes by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComputeDesc {
    /// Hardware threads MEDIA_VFE_STATE is programmed for (the scratch space is sized for
    /// this many; a GPGPU group must fit them).
    pub threads: u32,
    /// GRF registers of a thread: its payload (R0, constants, inline data) must fit.
    pub grf_registers: u32,
    /// Constant (CURBE) registers one thread may read.
    pub curbe_read_rows: u32,
    /// Rows (256-bit) of the URB media dispatch shares with the CURBE, where the driver
    /// sizes URB entries itself (Gen6/Gen7); `None`: the generation's own scheme (Gen4/G45).
    pub urb_rows: Option<u32>,
    /// How MEDIA_VFE_STATE's Per Thread Scratch Space code maps to bytes.
    pub scratch: ScratchEncoding,
    /// The most scratch bytes per thread.
    pub scratch_max_bytes: u32,
    /// The most shared local memory one group may have (0: none).
    pub shared_local_memory_bytes: u32,
    /// The most inline dwords one MEDIA_OBJECT may carry to its thread.
    pub inline_dwords: u32,
    /// MEDIA_OBJECT_WALKER exists.
    pub media_walker: bool,
    /// GPGPU_WALKER exists: thread groups with barriers, SIMD32 and shared local memory.
    pub gpgpu_walker: bool,
}

/// The Per Thread Scratch Space code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScratchEncoding {
    /// Code `n` is `n + 1` KiB.
    LinearKib,
    /// Code `n` is `1 KiB << n`.
    PowersOfTwoKib,
}

impl ScratchEncoding {
    /// Bytes per thread of code `code` (its low 4 bits; a power-of-two code beyond
    /// the largest encoding, 11 = 2 MiB, reads as the largest).
    pub fn bytes(self, code: u32) -> u32 {
        let code = code & 0xf;
        match self {
            ScratchEncoding::LinearKib => (code + 1) << 10,
            ScratchEncoding::PowersOfTwoKib => 1024 << code.min(11),
        }
    }

    /// The code for at least `bytes` (non-zero) and the bytes it stands for.
    pub fn code_for(self, bytes: u32) -> (u32, u32) {
        let kib = bytes.div_ceil(1024).max(1);
        match self {
            ScratchEncoding::LinearKib => (kib - 1, kib << 10),
            ScratchEncoding::PowersOfTwoKib => {
                let pow = kib.next_power_of_two();
                (pow.trailing_zeros(), pow << 10)
            }
        }
    }
}

/// One command streamer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineDesc {
    /// Name in the tables.
    pub name: &'static str,
    /// MMIO base of its registers.
    pub base: u32,
    /// Its ring registers, relative to `base`.
    pub ring: RingRegs,
    /// Its HWS_PGA (status page address) register, absolute: Gen7 moves it below the video
    /// and blitter bases.
    pub hws_pga: u32,
    /// Where its errors and its position are reported.
    pub errors: ErrorRegs,
    /// Its own interrupt mask register (absolute), in front of the GT one; `None` where
    /// rings have none (Gen4/G45).
    pub imr: Option<u32>,
    /// Its 64-bit TIMESTAMP counter (absolute, low dword first), where it has one.
    pub timestamp: Option<u32>,
    /// Where the first page fault of its accesses is recorded (absolute), where it has
    /// such a register (Gen6/Gen7's arbiter page fault registers).
    pub page_fault: Option<u32>,
    /// Bit of its user interrupt (MI_USER_INTERRUPT) in the interrupt registers.
    pub user_interrupt_bit: u32,
    /// Bit of its command streamer error.
    pub error_bit: u32,
    /// Bit of its MI_FLUSH_DW / PIPE_CONTROL notify interrupt.
    pub notify_bit: u32,
    /// GDRST bit (MMIO reset) or reset domain (PCI configuration reset).
    pub reset_bit: u32,
    /// The command groups it executes (table file stems: "mi", "3d", "media", "blitter").
    pub runs: &'static [&'static str],
}

impl EngineDesc {
    /// Whether it executes commands of `group`.
    pub fn runs(&self, group: &str) -> bool {
        self.runs.contains(&group)
    }
}

/// Ring buffer registers, offsets relative to the engine base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RingRegs {
    pub tail: u32,
    pub head: u32,
    pub start: u32,
    pub ctl: u32,
}

/// The registers an engine's error capture reads, absolute offsets: the engine's own
/// instance, or a GT-level register engines share (Gen4/G45's EIR/EMR/ESR).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorRegs {
    /// Instruction parser error identity.
    pub ipeir: u32,
    /// Header of the command the parser stopped at.
    pub ipehr: u32,
    pub instdone: u32,
    /// Active head: the graphics address being fetched.
    pub acthd: u32,
    /// Error identity, mask and status.
    pub eir: u32,
    pub emr: u32,
    pub esr: u32,
    /// Address of the batch being executed.
    pub bb_addr: u32,
}

/// Interrupt status, mask, identity and enable registers (absolute offsets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IrqRegs {
    pub isr: u32,
    pub imr: u32,
    pub iir: u32,
    pub ier: u32,
}

/// One set of interrupt registers (ISR/IMR/IIR/IER): an event sets ISR (live
/// status), an unmasked (IMR bit clear) rising edge latches IIR (write one to
/// clear), and IIR bits enabled in IER feed the device's interrupt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IrqBlock {
    /// Its name in the description (`gt`, `display`, `pm`, or `main` where one set holds everything).
    pub name: &'static str,
    pub regs: IrqRegs,
    /// It holds the engines' user, error and notify bits ([`EngineDesc::user_interrupt_bit`] ...).
    pub engines: bool,
}

/// A master enable: one bit of a register that gates the device's combined interrupt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MasterEnable {
    /// Absolute offset of the register (DEIER on Gen6/Gen7).
    pub register: u32,
    pub bit: u32,
}

/// How the device's interrupt is formed: the `(IIR & IER) != 0` of every block, ORed, then
/// ANDed with the master enable where there is one; that line goes out as MSI or INTx
/// through the PCI function's configuration space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InterruptDesc {
    /// The blocks, in the order a handler reads and acknowledges them.
    pub blocks: &'static [IrqBlock],
    pub master: Option<MasterEnable>,
}

impl InterruptDesc {
    /// The block named `name`.
    pub fn block(&self, name: &str) -> Option<&'static IrqBlock> {
        self.blocks.iter().find(|b| b.name == name)
    }

    /// The block holding the engines' bits.
    pub fn engine_block(&self) -> Option<&'static IrqBlock> {
        self.blocks.iter().find(|b| b.engines)
    }
}

/// How the GT is kept awake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Forcewake {
    /// No power wells to wake.
    None,
    /// One request register (write 1), acknowledged in `ack` bit 0.
    Single { request: u32, ack: u32 },
    /// Multi-threaded: a masked request register, acknowledged in `ack` bit 0.
    MultiThreaded { request: u32, ack: u32 },
}

/// The steps around a forcewake request (Linux i915 intel_uncore.c
/// fw_domains_get_with_thread_status): wait for the old acknowledge to clear,
/// request, post the write with a read, wait for the acknowledge, then for the GT
/// threads to wake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WakeSequence {
    /// How long each acknowledge may take, in milliseconds.
    pub ack_timeout_ms: u32,
    /// The register read after the request to post it (ECOBUS), if any.
    pub posting_read: Option<u32>,
    /// The GT thread status register and the mask that reads 0 once the threads are awake.
    pub thread_status: Option<(u32, u32)>,
    /// Multi-threaded forcewake only where this says so: with it held, `register` bit
    /// `bit` reads 1; otherwise the single request and acknowledge registers are used.
    pub mt_enable: Option<MtEnable>,
}

/// Where a part says whether multi-threaded forcewake works, and what to use when not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MtEnable {
    pub register: u32,
    pub bit: u32,
    pub single_request: u32,
    pub single_ack: u32,
}

/// How engines are reset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reset {
    /// MMIO GDRST: one bit per engine (`EngineDesc::reset_bit`), `full_bit` the whole GT.
    Gdrst { register: u32, full_bit: u32 },
    /// GDRST in PCI configuration space at `offset`: the domain in bits 3:2
    /// (`EngineDesc::reset_bit`), bit 0 starts the reset and reads 1 until it is done.
    PciConfig { offset: u16 },
}

/// Where PPGTT is switched on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GfxMode {
    /// One register for all engines (absolute offset).
    Global(u32),
    /// One per engine at engine base + offset.
    PerEngine(u32),
}

/// The GT: interrupts, reset, forcewake, PPGTT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GtDesc {
    /// The interrupt registers of the engines' block ([`InterruptDesc::engine_block`]).
    pub irq: IrqRegs,
    pub forcewake: Forcewake,
    /// The steps around a forcewake request (meaningless with [`Forcewake::None`]).
    pub wake: WakeSequence,
    pub reset: Reset,
    /// `None`: no PPGTT on this generation.
    pub gfx_mode: Option<GfxMode>,
    /// Each ring has its own IMR in front of the GT one (`EngineDesc::imr` on every engine).
    pub ring_imr: bool,
    /// HWS_PGA takes a physical address, not a GTT one.
    pub hwsp_physical: bool,
    /// Commands may address memory physically (their GTT bit clear).
    pub physical_addressing: bool,
    /// EIR bit of a page-table error.
    pub page_fault_eir_bit: u32,
}

/// The GTT's PTE format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PteFormat {
    /// 965/G4x: memory type in bits 2:1, address bits 35:32 in 7:4.
    Gen4,
    /// Sandy Bridge: cacheability control in bits 2:1.
    Gen6,
    /// Ivy Bridge: LLC bit 2, L3 bit 1.
    Gen7,
}

/// Where the global GTT is and how big it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GttDesc {
    /// Offset of the PTE alias in the register BAR (registers below it).
    pub alias_offset: u32,
    /// Entries (4 KiB pages) at the size the software GPU reports (the smallest the
    /// generation's parts come with); the driver reads the real one from `size`.
    pub entries: u32,
    /// Size of the register BAR.
    pub bar_size: u32,
    /// Register written after PTE updates to flush the GTT write buffers.
    pub flush_register: u32,
    pub pte: PteFormat,
    /// Where the size the firmware or hardware chose is read.
    pub size: GttSize,
    /// Where the firmware's stolen memory is read.
    pub stolen: StolenDesc,
}

/// A 16-bit word of PCI configuration space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigWord {
    /// Of the GPU.
    Gpu(u16),
    /// Of the host bridge, 00:00.0 (the GMCH of Gen4/G45).
    HostBridge(u16),
}

/// Stolen memory: the RAM the firmware set aside for the GPU (its size in a
/// graphics control word, its base in the GPU's BSM dword).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StolenDesc {
    /// The word holding the size field.
    pub size: ConfigWord,
    /// Low bit and width of the size field.
    pub shift: u32,
    pub width: u32,
    /// MiB per field value (empty: `unit_mib` times the value).
    pub mib: &'static [u32],
    pub unit_mib: u32,
    /// The GPU's configuration dword whose bits 31:20 are the base.
    pub base_offset: u16,
}

impl StolenDesc {
    /// Bytes of stolen memory for the size word's raw value; `None` for a
    /// reserved value.
    pub fn bytes(&self, word: u16) -> Option<u64> {
        let value = (u32::from(word) >> self.shift) & ((1 << self.width) - 1);
        let mib = if self.mib.is_empty() {
            value * self.unit_mib
        } else {
            *self.mib.get(value as usize)?
        };
        Some(u64::from(mib) << 20)
    }

    /// The field value that stands for `bytes`, at its bits (what a device with
    /// that much stolen memory reports).
    pub fn field_for(&self, bytes: u64) -> Option<u16> {
        let mib = u32::try_from(bytes >> 20).ok()?;
        if bytes & 0xf_ffff != 0 {
            return None;
        }
        let value = if self.mib.is_empty() {
            (mib.is_multiple_of(self.unit_mib)).then(|| mib / self.unit_mib)?
        } else {
            self.mib.iter().position(|&m| m == mib)? as u32
        };
        (value < 1 << self.width).then(|| (value << self.shift) as u16)
    }

    /// The size field's bits within its word.
    pub fn mask(&self) -> u16 {
        (((1u32 << self.width) - 1) << self.shift) as u16
    }

    /// The base in the BSM dword's value.
    pub fn base(&self, bsm: u32) -> u64 {
        u64::from(bsm & 0xfff0_0000)
    }
}

/// Where the GTT size is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeSource {
    /// An MMIO register (absolute offset).
    Mmio(u32),
    /// A 16-bit word of the GPU's PCI configuration space.
    PciConfig(u16),
}

/// The GTT size field: where it is and the KiB of PTEs each value stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GttSize {
    pub source: SizeSource,
    /// Low bit and width of the field.
    pub shift: u32,
    pub width: u32,
    /// KiB of PTEs (256 entries each) per field value; 0 for no GTT.
    pub kib: &'static [u32],
}

impl GttSize {
    /// Entries (4 KiB pages) for the source's raw value (the register, or the
    /// configuration word); `None` for a reserved value or one meaning no GTT.
    pub fn entries(&self, raw: u32) -> Option<u32> {
        let value = (raw >> self.shift) & ((1 << self.width) - 1);
        let kib = *self.kib.get(value as usize)?;
        (kib != 0).then_some(kib * 256)
    }

    /// The field value that stands for `entries`, placed at its bits (what a device
    /// with that many entries reports).
    pub fn field_for(&self, entries: u32) -> Option<u32> {
        let value = self
            .kib
            .iter()
            .position(|&k| k != 0 && k * 256 == entries)?;
        Some((value as u32) << self.shift)
    }
}

impl Device {
    /// The engine named `name`.
    pub fn engine(&self, name: &str) -> Option<&'static EngineDesc> {
        self.engines.iter().find(|e| e.name == name)
    }
}

/// The description of `generation`, or `None` when its tables have none yet.
pub const fn of(generation: Generation) -> Option<&'static Device> {
    match generation {
        Generation::Gen4 => crate::gen4::DEVICE.as_ref(),
        Generation::G45 => crate::g45::DEVICE.as_ref(),
        Generation::Gen6 => crate::gen6::DEVICE.as_ref(),
        Generation::Gen7 => crate::gen7::DEVICE.as_ref(),
        Generation::Gen12_5 => crate::gen12_5::DEVICE.as_ref(),
    }
}
