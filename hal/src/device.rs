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
