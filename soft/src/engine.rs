//! The command streamers: ring buffer and batch buffer fetch, and the MI
//! commands the model executes.
//!
//! Commands are recognised with the generation's reflection tables; the
//! fields the model reads are looked up once, when the engine's command
//! table is built (`command`), so one implementation serves every
//! generation whose tables use the same field names, and a generation
//! lacking a field an operation needs fails construction. Modelled:
//! MI_NOOP (NOPID write), MI_BATCH_BUFFER_START (chaining), MI_BATCH_BUFFER_END,
//! MI_STORE_DATA_IMM, MI_STORE_DATA_INDEX, MI_LOAD_REGISTER_IMM,
//! MI_STORE_REGISTER_MEM, MI_USER_INTERRUPT, MI_REPORT_HEAD, MI_FLUSH_DW and
//! PIPE_CONTROL post-sync writes and notify, MI_CONDITIONAL_BATCH_BUFFER_END,
//! MI_SEMAPHORE_MBOX (compare and wait, update), MI_WAIT_FOR_EVENT
//! (display events wait for ever, conditions pass), MI_UPDATE_GTT
//! (GGTT entries), MI_LOAD_REGISTER_MEM, MI_SET_CONTEXT (save and restore of
//! the modelled registers), and the blitter commands of `blit`. Memory accesses go
//! through the GGTT or, for PPGTT batches and PPGTT-addressed commands, the
//! engine's two-level PPGTT. The media/GPGPU commands (PIPELINE_SELECT,
//! STATE_BASE_ADDRESS, the MEDIA_* state and dispatch commands,
//! GPGPU_WALKER, the Gen4/G45 URB and constant commands) go to `media`,
//! which also decides when a command may run while EU threads are busy.
//! MI_REPORT_PERF_COUNT writes a report; a few commands have no effect on a
//! machine without caches, display or preemption ([`NO_EFFECT`]). Every
//! other command of the tables (3D state and 3DPRIMITIVE, MI_DISPLAY_FLIP,
//! ...) is refused: the engine stops with [`Halt::Unmodelled`], an
//! instruction error whose header also shows in the model's
//! `SOFT_UNMODELLED_COMMAND` register, so that work the model cannot do never
//! passes as done. A command the tables do not know is an instruction error.

use alloc::vec::Vec;

use alloc::sync::Arc;
use baregpu_hal::MemoryBus;
use baregpu_hal::gen6::{Engine as Gen6Engine, regs as gen6};

use baregpu_hal::reflect::{CommandInfo, GenTables};

use crate::command::{Cmd, F, field};

use crate::device::Device;
use crate::layout;

/// Why an engine stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Halt {
    /// A command the engine does not know (EIR bit 0).
    InstructionError { dw0: u32 },
    /// An access through an invalid GTT entry or to missing memory (EIR bit 4).
    PageFault { gfx_addr: u64, ggtt: bool },
    /// A command of the tables the model does not execute: reported as an
    /// instruction error (EIR bit 0) with the header in IPEHR and in the
    /// model's `SOFT_UNMODELLED_COMMAND` register.
    Unmodelled { dw0: u32, name: &'static str },
}

/// Per-engine state (the ring registers live here, not in the register file).
#[derive(Clone, Debug, Default)]
pub struct EngineState {
    pub tail: u32,
    /// Byte offset of the next ring dword.
    pub head: u32,
    pub wrap_count: u32,
    pub start: u32,
    pub ctl: u32,
    /// Graphics address of the next batch dword, while in a batch.
    pub batch: Option<u64>,
    /// The batch's address space: the PPGTT for a non-secure batch on Gen6/Gen7
    /// (inherited along a chain: 003 lines 14754-14894), physical memory for a
    /// Gen4 batch started without its GTT bit.
    pub batch_space: Space,
    /// The driver cancelled the semaphore or event wait (RING_CTL bit 10 or 11
    /// written as 1).
    pub cancel_wait: bool,
    /// Address of the command being executed.
    pub acthd: u64,
    pub halted: Option<Halt>,
    /// Header of the command refused as not modelled (0: none), read at
    /// `SOFT_UNMODELLED_COMMAND`.
    pub unmodelled: u32,
    /// The blitter's shared setup and clip state (blitter engine only).
    pub blit: crate::blit::BlitState,
}

impl EngineState {
    fn ring_size(&self) -> u32 {
        (((self.ctl >> 12) & 0x1ff) + 1) * 4096
    }
    fn enabled(&self) -> bool {
        self.ctl & 1 == 1
    }
}

/// What the model does with a recognised command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Noop,
    BatchStart,
    BatchEnd,
    StoreDataImm,
    StoreDataIndex,
    LoadRegisterImm,
    StoreRegisterMem,
    UserInterrupt,
    ReportHead,
    FlushDw,
    PipeControl,
    ConditionalBatchEnd,
    SemaphoreMbox,
    WaitForEvent,
    UpdateGtt,
    LoadRegisterMem,
    SetContext,
    /// A blitter command, executed in `blit/`.
    Blit(crate::blit::BlitOp),
    /// A media/GPGPU pipeline command, executed in `media`.
    Media(crate::media::MediaOp),
    ReportPerfCount,
    /// A command whose effect the model has nothing to apply to ([`NO_EFFECT`]).
    NoEffect,
    /// Known, not modelled: refused with [`Halt::Unmodelled`].
    Unmodelled,
}

/// Commands that have no effect on the model, each with why. Everything in
/// the tables that is neither here nor executed is refused.
const NO_EFFECT: [(&str, &str); 5] = [
    // Flushes the render cache (and invalidates read caches, 003 lines
    // 15320-15423): the model writes memory directly and keeps no caches.
    ("MI_FLUSH", "no caches"),
    // Flushes the cachelines of one page (003 lines 14940-15062): no caches;
    // the dwords after the address are dummies, one per half cacheline.
    ("MI_CLFLUSH", "no caches"),
    // An arbitration (preemption) point and its enable (003 lines
    // 14544-14633): the model runs each engine's commands to the end of a
    // run and never preempts, so neither changes what executes.
    ("MI_ARB_CHECK", "no preemption"),
    ("MI_ARB_ON_OFF", "no preemption"),
    // Holds back display and VT-d flushes (003 lines 16289-16333): the model
    // has neither.
    ("MI_SUSPEND_FLUSH", "no display flushes"),
];
// Refused on purpose (not in NO_EFFECT): STATE_PREFETCH would be harmless but
// is a 3D state-cache hint, refused with the 3D pipeline; STATE_SIP names the
// system routine the EU model never calls (no exceptions or debug), so a
// program relying on it would silently lose it; MI_PREDICATE (Gen7) sets the
// predicate of 3DPRIMITIVE and GPGPU_WALKER, whose predication the model
// refuses; MI_DISPLAY_FLIP, MI_LOAD_SCAN_LINES_INCL need a display;
// MI_TOPOLOGY_FILTER and MI_URB_CLEAR serve the 3D pipeline.

fn op_of(name: &str) -> Op {
    if let Some(b) = crate::blit::BlitOp::of(name) {
        return Op::Blit(b);
    }
    if let Some(m) = crate::media::MediaOp::of(name) {
        return Op::Media(m);
    }
    match name {
        "MI_NOOP" => Op::Noop,
        "MI_BATCH_BUFFER_START" => Op::BatchStart,
        "MI_BATCH_BUFFER_END" => Op::BatchEnd,
        "MI_STORE_DATA_IMM" => Op::StoreDataImm,
        "MI_STORE_DATA_INDEX" => Op::StoreDataIndex,
        "MI_LOAD_REGISTER_IMM" => Op::LoadRegisterImm,
        "MI_STORE_REGISTER_MEM" => Op::StoreRegisterMem,
        "MI_USER_INTERRUPT" => Op::UserInterrupt,
        "MI_REPORT_HEAD" => Op::ReportHead,
        "MI_FLUSH_DW" => Op::FlushDw,
        "PIPE_CONTROL" => Op::PipeControl,
        "MI_CONDITIONAL_BATCH_BUFFER_END" => Op::ConditionalBatchEnd,
        "MI_SEMAPHORE_MBOX" => Op::SemaphoreMbox,
        "MI_WAIT_FOR_EVENT" => Op::WaitForEvent,
        "MI_UPDATE_GTT" => Op::UpdateGtt,
        "MI_LOAD_REGISTER_MEM" => Op::LoadRegisterMem,
        "MI_SET_CONTEXT" => Op::SetContext,
        "MI_REPORT_PERF_COUNT" => Op::ReportPerfCount,
        _ if NO_EFFECT.iter().any(|(n, _)| *n == name) => Op::NoEffect,
        _ => Op::Unmodelled,
    }
}

/// The commands one engine accepts, most specific header first, with the
/// fields the model reads resolved.
pub struct CommandTable {
    entries: Vec<(Cmd, Op)>,
    /// For each value of header bits 31:23 (command type and MI opcode),
    /// the entries whose header can match it, in `entries` order: a header
    /// is compared with a handful of commands instead of all of them.
    buckets: Vec<Vec<u16>>,
}

/// Header bits that select a bucket of [`CommandTable`].
const BUCKET_SHIFT: u32 = 23;

/// A field an operation of the model needs is missing from a command of
/// the generation's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MissingField {
    pub command: &'static str,
    pub field: &'static str,
}

/// The fields each operation reads without a fallback: a command of that
/// operation without one of them fails construction. Fields that only some
/// generations have (Gen4's physical address extension, the 64-bit
/// immediate of G45's PIPE_CONTROL, ...) are read as optional.
fn required(op: Op) -> &'static [F] {
    match op {
        Op::Noop => &[
            F::IdentificationNumberRegisterWriteEnable,
            F::IdentificationNumber,
        ],
        Op::BatchStart => &[F::BatchBufferStartAddress],
        Op::StoreDataImm => &[F::Address, F::DataDword0],
        Op::StoreDataIndex => &[F::Offset, F::DataDword0],
        Op::StoreRegisterMem | Op::LoadRegisterMem => &[F::RegisterAddress, F::MemoryAddress],
        Op::FlushDw | Op::PipeControl => &[F::Address, F::PostSyncOperation, F::NotifyEnable],
        Op::ConditionalBatchEnd => &[F::CompareDataDword, F::CompareAddress],
        Op::SemaphoreMbox => &[
            F::CompareSemaphore,
            F::UpdateSemaphore,
            F::SemaphoreDataDword,
            F::SemaphoreAddress,
        ],
        Op::UpdateGtt => &[F::EntryAddress],
        Op::SetContext => &[F::LogicalContextAddress, F::ForceRestore, F::RestoreInhibit],
        Op::ReportPerfCount => &[F::MemoryAddress, F::ReportId],
        Op::Blit(b) => b.required(),
        Op::Media(m) => m.required(),
        Op::BatchEnd
        | Op::LoadRegisterImm
        | Op::UserInterrupt
        | Op::ReportHead
        | Op::WaitForEvent
        | Op::NoEffect
        | Op::Unmodelled => &[],
    }
}

/// A command's operation and resolved fields; an error names the first
/// field the operation needs that the command lacks.
fn resolve(info: &'static CommandInfo) -> Result<(Cmd, Op), MissingField> {
    let op = op_of(info.name);
    let cmd = match op {
        Op::NoEffect | Op::Unmodelled => Cmd::unread(info),
        _ => Cmd::resolve(info),
    };
    let missing = |f: F| MissingField {
        command: info.name,
        field: f.name(),
    };
    if let Some(f) = required(op).iter().find(|f| !cmd.has(**f)) {
        return Err(missing(*f));
    }
    if op == Op::LoadRegisterImm && cmd.register_pair.is_none() {
        return Err(missing(F::RegisterOffset));
    }
    Ok((cmd, op))
}

impl CommandTable {
    pub fn new(tables: &'static GenTables, engine: &str) -> Result<Self, MissingField> {
        let mut entries = Vec::new();
        for info in tables.commands.iter().filter(|c| c.accepts(engine)) {
            entries.push(resolve(info)?);
        }
        entries.sort_by_key(|(c, _)| core::cmp::Reverse(c.header_mask.count_ones()));
        let high = u32::MAX << BUCKET_SHIFT;
        let buckets = (0..=u32::MAX >> BUCKET_SHIFT)
            .map(|prefix| {
                let bits = prefix << BUCKET_SHIFT;
                (0..entries.len())
                    .filter(|&k| {
                        let c = &entries[k].0;
                        (bits ^ c.header_value) & c.header_mask & high == 0
                    })
                    .map(|k| k as u16)
                    .collect()
            })
            .collect();
        Ok(Self { entries, buckets })
    }

    /// The first entry (most specific header) that `dw0` matches.
    fn identify(&self, dw0: u32) -> Option<&(Cmd, Op)> {
        self.buckets[(dw0 >> BUCKET_SHIFT) as usize]
            .iter()
            .map(|&k| &self.entries[k as usize])
            .find(|(c, _)| dw0 & c.header_mask == c.header_value)
    }
}

/// Physical address bits 35:32 of a Gen4/G45 command that addresses
/// physical memory (its "physical start address extension" field).
fn high_bits(space: Space, c: &Cmd, dw: &[u32]) -> u64 {
    match space {
        Space::Physical => field(c, dw, F::PhysicalStartAddressExtension).unwrap_or(0) << 32,
        _ => 0,
    }
}

/// Whether an MI_WAIT_FOR_EVENT waits for a display event (a vertical or
/// horizontal blank). The other selections are conditions (scan-line window,
/// flip pending, condition codes), and "if a specified condition does not
/// exist ... the parser proceeds, treating this command as a no-operation"
/// (003 lines 16487-16490): with no display and no pending flip, none exists.
fn waits_for_display_event(c: &Cmd, dw: &[u32]) -> bool {
    c.blank_events.iter().any(|f| f.extract(dw) != 0)
}

/// Which address space an access goes through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Space {
    #[default]
    Ggtt,
    /// The engine's per-process GTT (page directory at PP_DIR_BASE).
    Ppgtt,
    /// Physical memory, untranslated (Gen4/G45 commands without their GTT bit).
    Physical,
}

/// Offset of a render-engine register from the render base. The model keeps the
/// registers below (the hal's typed Sandy Bridge ones) at the same engine-relative
/// offsets on every generation it runs (the gen4 and gen7 tables agree).
const fn render_relative(absolute: u32) -> u32 {
    absolute - Gen6Engine::Render.base_offset()
}

/// CCID, the current context register (render base + 0x180, 003 lines 12456-12545).
const CCID: u32 = render_relative(gen6::CCID.offset());
/// Engine-relative registers the model keeps in a logical context: INSTPM,
/// CACHE_MODE_0/1 and the PPGTT directory pointer, the state MI_SET_CONTEXT saves
/// per 003 lines 9152-9163 as far as the model has it.
const CONTEXT_REGISTERS: [u32; 4] = [
    render_relative(gen6::INSTPM.offset()),
    render_relative(gen6::CACHE_MODE_0.offset()),
    render_relative(gen6::CACHE_MODE_1.offset()),
    gen6::PP_DIR_BASE.relative_offset(),
];

/// Dwords of the MI_REPORT_PERF_COUNT report (256 bytes, A45_B8_C8).
const PERF_REPORT_DWORDS: u64 = 64;

/// Dwords [`Device::fetch_window`] reads at once: the longest MI command
/// of the fast path (MI_STORE_DATA_IMM, LRI with a few pairs) fits.
const FETCH_WINDOW: usize = 16;

/// Longest command the model reads (MI_LOAD_REGISTER_IMM with 255 pairs + header).
const MAX_COMMAND: usize = 1024;

impl<B: MemoryBus> Device<B> {
    /// Reads dword `index` of the current command stream position (rings are
    /// always in the GGTT: 003 line 11665).
    fn fetch(&mut self, i: usize, index: u32) -> Result<u32, Halt> {
        let (gfx, space) = self.stream_address(i, index);
        self.read_gfx_u32(i, space, gfx)
    }

    /// Graphics address and space of dword `index` of the command stream.
    fn stream_address(&self, i: usize, index: u32) -> (u64, Space) {
        let e = &self.engines[i];
        match e.batch {
            Some(addr) => (addr + index as u64 * 4, e.batch_space),
            None => {
                let offset = (e.head + index * 4) % e.ring_size();
                (e.start as u64 + offset as u64, Space::Ggtt)
            }
        }
    }

    /// Reads the stream's next dwords, up to the end of the page (a ring
    /// ends on a page boundary), with one translation and one bus access:
    /// the values [`Self::fetch`] would read one by one, as nothing writes
    /// memory in between. Returns how many it read; 0 when the bus refuses
    /// the span, and the caller fetches dword by dword (reporting the fault
    /// where it is).
    fn fetch_window(&self, i: usize, out: &mut [u32; FETCH_WINDOW]) -> Result<usize, Halt> {
        let (gfx, space) = self.stream_address(i, 0);
        let phys = self.translate(i, space, gfx)?;
        let n = (((4096 - (gfx & 0xfff)) / 4) as usize).min(FETCH_WINDOW);
        let mut bytes = [0u8; FETCH_WINDOW * 4];
        if self.bus.read(phys, &mut bytes[..n * 4]).is_err() {
            return Ok(0);
        }
        for (d, b) in out.iter_mut().zip(bytes[..n * 4].chunks_exact(4)) {
            *d = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        Ok(n)
    }

    /// Whether the engine has PPGTT enabled (GFX_MODE bit 9).
    pub(crate) fn ppgtt_enabled(&self, i: usize) -> bool {
        let reg = match self.layout.gfx_mode {
            Some(layout::GfxMode::Global(off)) => off,
            Some(layout::GfxMode::PerEngine(off)) => self.layout.engines[i].base + off,
            None => return false,
        };
        self.regs.get(reg) & layout::PPGTT_ENABLE != 0
    }

    /// Physical address of `gfx` in `space` (the PPGTT walk is in
    /// [`Self::ppgtt_pte_address`]; physical space is the identity).
    pub(crate) fn translate(&self, i: usize, space: Space, gfx: u64) -> Result<u64, Halt> {
        let fault = Halt::PageFault {
            gfx_addr: gfx,
            ggtt: space == Space::Ggtt,
        };
        match space {
            Space::Physical => Ok(gfx),
            Space::Ggtt => self.gtt.translate(gfx).map_err(|_| fault),
            Space::Ppgtt => {
                let pte_addr = self.ppgtt_pte_address(i, gfx)?;
                let pte = self.bus.read_u32(pte_addr).map_err(|_| fault)?;
                if pte & 1 == 0 {
                    return Err(fault);
                }
                Ok(crate::gtt::entry_address(pte) | (gfx & 0xfff))
            }
        }
    }

    /// Physical address of the PPGTT entry of `gfx`: PDEs are GGTT entries
    /// from PP_DIR_BASE (a cacheline offset in bits 30:16), each pointing to
    /// a page table of 1024 PTEs (003 lines 6964-7169).
    fn ppgtt_pte_address(&self, i: usize, gfx: u64) -> Result<u64, Halt> {
        let fault = Halt::PageFault {
            gfx_addr: gfx,
            ggtt: false,
        };
        let base = self.layout.engines[i].base;
        let pd_cachelines = (self.regs.get(base + layout::PP_DIR_BASE) >> 16) & 0x7fff;
        let pd_entry = pd_cachelines * 64 / 4;
        if gfx >> 32 != 0 {
            return Err(fault);
        }
        let pde = self.gtt.read_entry(pd_entry + (gfx >> 22) as u32);
        if pde & 1 == 0 {
            return Err(fault);
        }
        Ok(crate::gtt::entry_address(pde) + ((gfx >> 12) & 0x3ff) * 4)
    }

    pub(crate) fn read_gfx_u32(&self, i: usize, space: Space, gfx: u64) -> Result<u32, Halt> {
        let phys = self.translate(i, space, gfx)?;
        let ggtt = space == Space::Ggtt;
        self.bus.read_u32(phys).map_err(|_| Halt::PageFault {
            gfx_addr: gfx,
            ggtt,
        })
    }

    pub(crate) fn write_gfx_u32(
        &self,
        i: usize,
        space: Space,
        gfx: u64,
        value: u32,
    ) -> Result<(), Halt> {
        let phys = self.translate(i, space, gfx)?;
        let ggtt = space == Space::Ggtt;
        self.bus
            .write_u32(phys, value)
            .map_err(|_| Halt::PageFault {
                gfx_addr: gfx,
                ggtt,
            })
    }

    /// The address space of a command's memory access: everything in a PPGTT
    /// batch goes through the PPGTT (the GGTT bit is ignored in non-secure
    /// batches, 003 lines 15944-16048); elsewhere the command's GGTT bit
    /// decides, when PPGTT is on.
    pub(crate) fn space_for(&self, i: usize, c: &Cmd, dw: &[u32]) -> Space {
        if self.layout.physical_addressing {
            // Gen4/G45: the command's GTT bit (`use_global_gtt` in every table; the
            // manuals' Memory Address Type, Destination Address Type, Memory Space
            // Select) clear means a physical address. The model has no Gen4
            // per-process GTT (Linux keeps PGTBL_CTL2 disabled).
            let gtt_bit = field(c, dw, F::UseGlobalGtt);
            return if gtt_bit == Some(0) {
                Space::Physical
            } else {
                Space::Ggtt
            };
        }
        if !self.ppgtt_enabled(i) {
            return Space::Ggtt;
        }
        if self.engines[i].batch.is_some() && self.engines[i].batch_space == Space::Ppgtt {
            return Space::Ppgtt;
        }
        let ggtt_bit = field(c, dw, F::UseGlobalGtt);
        if ggtt_bit == Some(0) {
            Space::Ppgtt
        } else {
            Space::Ggtt
        }
    }

    /// Address of the engine's hardware status page: a GGTT address, or on
    /// the 965 a physical one with bits 35:32 in HWS_PGA bits 7:4.
    fn hwsp(&self, i: usize) -> (u64, Space) {
        let pga = self.regs.get(self.layout.engines[i].hws_pga) as u64;
        if self.layout.hwsp_physical {
            ((pga & 0xffff_f000) | ((pga & 0xf0) << 28), Space::Physical)
        } else {
            (pga & 0xffff_f000, Space::Ggtt)
        }
    }

    /// Whether the engine has work: in a batch, or the ring has commands.
    fn has_work(&self, i: usize) -> bool {
        let e = &self.engines[i];
        e.enabled() && e.halted.is_none() && (e.batch.is_some() || e.head != e.tail)
    }

    /// Executes up to `budget` commands of engine `i`.
    pub(crate) fn run_engine(&mut self, i: usize, budget: u32) {
        self.media_grant(i, budget);
        // The command tables are shared, so that executing a command may
        // borrow the device (and even run an engine, on a TAIL write).
        let tables = Arc::clone(&self.commands);
        let mut n = 0;
        while n < budget && self.has_work(i) {
            n += 1;
            match self.step(i, &tables[i]) {
                Ok(true) => {}
                // Waiting on a semaphore or on EU threads: try again on the
                // next run.
                Ok(false) => break,
                Err(halt) => self.halt(i, halt),
            }
        }
        self.media_background(i);
    }

    pub(crate) fn halt(&mut self, i: usize, halt: Halt) {
        let dw0 = match halt {
            Halt::InstructionError { dw0 } | Halt::Unmodelled { dw0, .. } => dw0,
            Halt::PageFault { .. } => 0,
        };
        let eir_bit = match halt {
            Halt::InstructionError { .. } | Halt::Unmodelled { .. } => 1 << 0,
            Halt::PageFault { .. } => 1 << self.layout.page_fault_eir_bit,
        };
        if let Halt::Unmodelled { dw0, .. } = halt {
            self.engines[i].unmodelled = dw0;
        }
        self.engines[i].halted = Some(halt);
        self.stats.errors += 1;
        let regs = self.layout.engines[i].errors;
        self.regs.set(regs.eir, self.regs.get(regs.eir) | eir_bit);
        self.regs.set(regs.esr, self.regs.get(regs.esr) | eir_bit);
        self.regs.set(regs.ipehr, dw0);
        self.regs.set(regs.ipeir, eir_bit);
        if let Halt::PageFault { gfx_addr, ggtt } = halt
            && let Some(record_at) = self.layout.engines[i].page_fault
        {
            // Fault record (003 lines 8961-9113): 31:12 page, 11 GGTT (0: PPGTT), 0 valid.
            let record = (gfx_addr as u32 & 0xffff_f000) | ((ggtt as u32) << 11) | 1;
            self.regs.set(record_at, record);
        }
        if self.regs.get(regs.emr) & eir_bit == 0 {
            self.raise(self.layout.engines[i].error_bit);
        }
    }

    /// Fetches, decodes and executes one command.
    /// Returns whether the engine moved on (false: it waits on a semaphore).
    fn step(&mut self, i: usize, table: &CommandTable) -> Result<bool, Halt> {
        let mut window = [0u32; FETCH_WINDOW];
        let windowed = self.fetch_window(i, &mut window)?;
        let dw0 = match windowed {
            0 => self.fetch(i, 0)?,
            _ => window[0],
        };
        let e = &self.engines[i];
        self.engines[i].acthd = match e.batch {
            Some(a) => a,
            None => e.start as u64 + e.head as u64,
        };
        let Some((info, op)) = table.identify(dw0) else {
            return Err(Halt::InstructionError { dw0 });
        };
        let op = *op;
        // Long commands (media inline data) are skipped past what the model reads.
        let len = info.length_from_header(dw0).max(1);
        let mut buf = core::mem::take(&mut self.scratch);
        buf.clear();
        let read = len.min(MAX_COMMAND);
        // The dwords the window holds, then the rest one by one.
        buf.extend_from_slice(&window[..windowed.clamp(1, read)]);
        buf[0] = dw0;
        for k in buf.len()..read {
            match self.fetch(i, k as u32) {
                Ok(v) => buf.push(v),
                Err(h) => {
                    self.scratch = buf;
                    return Err(h);
                }
            }
        }
        // EU threads: a dispatch command starts them, any other command waits
        // until they have finished (`media`); the head stays meanwhile.
        let media = match op {
            Op::Media(m) => Some(m),
            _ => None,
        };
        match self.media_gate(i, info, media, &buf) {
            Ok(true) => {}
            Ok(false) => {
                self.scratch = buf;
                return Ok(false);
            }
            Err(h) => {
                self.scratch = buf;
                return Err(h);
            }
        }
        // MI_SEMAPHORE_MBOX holds the engine (RING_CTL bit 10 set) until its
        // condition holds or the driver cancels the wait (003 lines 15643-15787).
        // MI_WAIT_FOR_EVENT on a display event holds the engine with RB Wait (bit 11)
        // set: the model has no display, so the event never comes and only the
        // driver's cancel (or a reset after hang detection) moves it on.
        if op == Op::WaitForEvent {
            if waits_for_display_event(info, &buf)
                && !core::mem::take(&mut self.engines[i].cancel_wait)
            {
                self.engines[i].ctl |= 0x800;
                self.scratch = buf;
                return Ok(false);
            }
            self.engines[i].ctl &= !0x800;
        }
        if op == Op::SemaphoreMbox && !core::mem::take(&mut self.engines[i].cancel_wait) {
            match self.semaphore_passes(i, info, &buf) {
                Ok(true) => self.engines[i].ctl &= !0x400,
                Ok(false) => {
                    self.engines[i].ctl |= 0x400;
                    self.scratch = buf;
                    return Ok(false);
                }
                Err(h) => {
                    self.scratch = buf;
                    return Err(h);
                }
            }
        }
        // Advance before executing: a batch start or end changes the stream.
        match &mut self.engines[i].batch {
            Some(addr) => *addr += len as u64 * 4,
            None => {
                let e = &mut self.engines[i];
                let size = e.ring_size();
                let next = e.head + len as u32 * 4;
                if next >= size {
                    e.wrap_count = (e.wrap_count + 1) & 0x7ff;
                }
                e.head = next % size;
            }
        }
        self.stats.commands += 1;
        self.timestamp += 1;
        let result = self.execute(i, info, op, &buf);
        self.scratch = buf;
        result.map(|()| true)
    }

    /// The semaphore compare: the mailbox register (Compare Register set;
    /// register select 0 or 2 names the engine's two sync registers at base +
    /// 0x40 and + 0x44, 003 lines 11352-11400) or the dword in memory must be
    /// greater than the data.
    fn semaphore_passes(&self, i: usize, c: &Cmd, dw: &[u32]) -> Result<bool, Halt> {
        if field(c, dw, F::CompareSemaphore) != Some(1) {
            return Ok(true);
        }
        let data = field(c, dw, F::SemaphoreDataDword).unwrap_or(0) as u32;
        let value = if field(c, dw, F::CompareRegister) == Some(1) {
            let base = self.layout.engines[i].base;
            let select = field(c, dw, F::RegisterSelect).unwrap_or(0);
            self.read_register(base + if select == 2 { 0x44 } else { 0x40 })
        } else {
            let space = self.space_for(i, c, dw);
            self.read_gfx_u32(i, space, field(c, dw, F::SemaphoreAddress).unwrap_or(0))?
        };
        Ok(value > data)
    }

    fn execute(&mut self, i: usize, c: &Cmd, op: Op, dw: &[u32]) -> Result<(), Halt> {
        let base = self.layout.engines[i].base;
        match op {
            Op::Noop => {
                if field(c, dw, F::IdentificationNumberRegisterWriteEnable) == Some(1) {
                    let id = field(c, dw, F::IdentificationNumber).unwrap_or(0) as u32;
                    self.regs.set(base + 0x94, id);
                }
            }
            Op::BatchStart => {
                let addr = field(c, dw, F::BatchBufferStartAddress).unwrap_or(0);
                if self.layout.physical_addressing {
                    // Gen4/G45: bit 7 fetches the batch through the GTT, else physically.
                    self.engines[i].batch_space = match field(c, dw, F::BufferAddressSpace) {
                        Some(0) => Space::Physical,
                        _ => Space::Ggtt,
                    };
                } else if self.engines[i].batch.is_none() {
                    // Bit 8 selects the PPGTT for a batch started from the ring; a
                    // chained batch keeps its parent's address space.
                    let ppgtt_bit = field(c, dw, F::BufferSecurityIndicator)
                        .or_else(|| field(c, dw, F::AddressSpaceIndicator))
                        == Some(1);
                    self.engines[i].batch_space = if ppgtt_bit && self.ppgtt_enabled(i) {
                        Space::Ppgtt
                    } else {
                        Space::Ggtt
                    };
                }
                self.engines[i].batch = Some(addr);
                self.regs
                    .set(self.layout.engines[i].errors.bb_addr, addr as u32);
                self.stats.batches += 1;
            }
            Op::BatchEnd => self.engines[i].batch = None,
            Op::StoreDataImm => {
                let space = self.space_for(i, c, dw);
                let addr = field(c, dw, F::Address).unwrap_or(0) | high_bits(space, c, dw);
                self.store(i, space, addr, c, dw, (F::DataDword0, F::DataDword1))?;
            }
            Op::StoreDataIndex => {
                // The status page is in the GGTT (or physical memory on the 965).
                let (page, space) = self.hwsp(i);
                let addr = page + field(c, dw, F::Offset).unwrap_or(0);
                self.store(i, space, addr, c, dw, (F::DataDword0, F::DataDword1))?;
            }
            Op::LoadRegisterImm => {
                if let (Some(g), Some((o, d))) = (&c.group, c.register_pair) {
                    let pairs = dw.get(g.dw as usize..).unwrap_or(&[]);
                    for pair in pairs.chunks_exact(g.size as usize) {
                        let reg = (o.extract(pair) << o.shift) as u32;
                        self.write_register(reg, d.extract(pair) as u32);
                    }
                }
            }
            Op::StoreRegisterMem => {
                let reg = field(c, dw, F::RegisterAddress).unwrap_or(0) as u32;
                let value = self.read_register(reg);
                let space = self.space_for(i, c, dw);
                let addr = field(c, dw, F::MemoryAddress).unwrap_or(0) | high_bits(space, c, dw);
                self.write_gfx_u32(i, space, addr, value)?;
            }
            Op::UserInterrupt => self.raise(self.layout.engines[i].user_interrupt_bit),
            Op::ReportHead => {
                let head = self.engines[i].head | (self.engines[i].wrap_count << 21);
                let (page, space) = self.hwsp(i);
                self.write_gfx_u32(i, space, page + 16, head)?;
            }
            Op::FlushDw | Op::PipeControl => self.post_sync(i, c, op == Op::PipeControl, dw)?,
            Op::ConditionalBatchEnd => {
                let data = field(c, dw, F::CompareDataDword).unwrap_or(0) as u32;
                let addr = field(c, dw, F::CompareAddress).unwrap_or(0);
                let space = self.space_for(i, c, dw);
                // Execution continues while memory > data (003 lines 14666-14753).
                if self.read_gfx_u32(i, space, addr)? <= data {
                    self.engines[i].batch = None;
                }
            }
            Op::Blit(b) => self.blit(i, c, b, dw)?,
            // The wait was resolved before execution (the compare passed, or was
            // cancelled); Update Semaphore then writes the data dword to the
            // semaphore in memory (003 lines 15680-15690).
            Op::SemaphoreMbox => {
                if field(c, dw, F::UpdateSemaphore) == Some(1)
                    && field(c, dw, F::CompareRegister) != Some(1)
                {
                    let space = self.space_for(i, c, dw);
                    let addr = field(c, dw, F::SemaphoreAddress).unwrap_or(0);
                    let data = field(c, dw, F::SemaphoreDataDword).unwrap_or(0) as u32;
                    self.write_gfx_u32(i, space, addr, data)?;
                }
            }
            Op::WaitForEvent => {}
            Op::UpdateGtt => self.update_gtt(i, c, dw)?,
            Op::LoadRegisterMem => {
                let space = self.space_for(i, c, dw);
                let value =
                    self.read_gfx_u32(i, space, field(c, dw, F::MemoryAddress).unwrap_or(0))?;
                self.write_register(field(c, dw, F::RegisterAddress).unwrap_or(0) as u32, value);
            }
            Op::SetContext => self.set_context(i, c, dw)?,
            Op::Media(m) => self.media_execute(i, c, m, dw)?,
            Op::ReportPerfCount => self.report_perf_count(i, c, dw)?,
            Op::NoEffect => {}
            Op::Unmodelled => return Err(self.refuse(c, dw)),
        }
        Ok(())
    }

    /// MI_UPDATE_GTT (003 lines 16334-16443): the entries for the pages from
    /// Entry Address on, in the global GTT or, with Use Global GTT clear, in
    /// the engine's PPGTT page tables. Privileged: in a non-secure (PPGTT)
    /// batch it is "converted to a no-op and an error flagged", which the
    /// model reports as a command privilege error (EIR bit 2, see
    /// hal/tables/g45/registers.toml EIR) without stopping the engine.
    /// A PPGTT entry whose page table is not present is a page fault.
    fn update_gtt(&mut self, i: usize, c: &Cmd, dw: &[u32]) -> Result<(), Halt> {
        if self.engines[i].batch.is_some() && self.engines[i].batch_space == Space::Ppgtt {
            self.flag_error(i, 1 << 2);
            return Ok(());
        }
        let Some(g) = &c.group else { return Ok(()) };
        let first = field(c, dw, F::EntryAddress).unwrap_or(0) >> 12;
        let entries = dw.get(g.dw as usize..).unwrap_or(&[]);
        let per_process = field(c, dw, F::UseGlobalGtt) == Some(0);
        for (k, e) in entries.chunks_exact(g.size as usize).enumerate() {
            let page = first + k as u64;
            if per_process {
                let pte_addr = self.ppgtt_pte_address(i, page << 12)?;
                self.bus
                    .write_u32(pte_addr, e[0])
                    .map_err(|_| Halt::PageFault {
                        gfx_addr: page << 12,
                        ggtt: false,
                    })?;
            } else {
                self.gtt.write_entry(page as u32, e[0]);
            }
        }
        Ok(())
    }

    /// Refuses a command the model does not execute.
    pub(crate) fn refuse(&mut self, c: &Cmd, dw: &[u32]) -> Halt {
        self.stats.unmodelled += 1;
        Halt::Unmodelled {
            dw0: dw.first().copied().unwrap_or(0),
            name: c.name,
        }
    }

    /// MI_REPORT_PERF_COUNT: the manuals in hand do not define the report
    /// (003 line 2297 lists the opcode only). Linux i915 `i915_perf.c` reads
    /// a Haswell OA report (format A45_B8_C8, 256 bytes) as DW0 report ID /
    /// reason, DW1 the low 32 bits of the timestamp, then the A, B and C
    /// counters; the model writes that layout with the report ID of DW2, its
    /// timestamp, and zero counters (it counts no OA events).
    fn report_perf_count(&mut self, i: usize, c: &Cmd, dw: &[u32]) -> Result<(), Halt> {
        let space = self.space_for(i, c, dw);
        let addr = field(c, dw, F::MemoryAddress).unwrap_or(0);
        let id = field(c, dw, F::ReportId).unwrap_or(0) as u32;
        let ts = self.timestamp as u32;
        for k in 0..PERF_REPORT_DWORDS {
            let value = match k {
                0 => id,
                1 => ts,
                _ => 0,
            };
            self.write_gfx_u32(i, space, addr + 4 * k, value)?;
        }
        Ok(())
    }

    /// Records a non-fatal error: EIR/ESR and the master error interrupt,
    /// the engine goes on.
    fn flag_error(&mut self, i: usize, eir_bit: u32) {
        let regs = self.layout.engines[i].errors;
        self.stats.errors += 1;
        self.regs.set(regs.eir, self.regs.get(regs.eir) | eir_bit);
        self.regs.set(regs.esr, self.regs.get(regs.esr) | eir_bit);
        if self.regs.get(regs.emr) & eir_bit == 0 {
            self.raise(self.layout.engines[i].error_bit);
        }
    }

    /// MI_SET_CONTEXT (003 lines 15788-15943, model 9135-9275): save the
    /// current context when the address changes (or on force restore), then
    /// restore the new one unless Restore Inhibit is set, and load CCID.
    /// The image format is the model's own (the hardware's is opaque to
    /// software): the registers of [`CONTEXT_REGISTERS`], one dword each, at
    /// the start of the 4 KiB-aligned context in the GGTT.
    fn set_context(&mut self, i: usize, c: &Cmd, dw: &[u32]) -> Result<(), Halt> {
        let base = self.layout.engines[i].base;
        let new = field(c, dw, F::LogicalContextAddress).unwrap_or(0);
        let ccid = self.regs.get(base + CCID);
        let current = (ccid & 0xffff_f000) as u64;
        let force = field(c, dw, F::ForceRestore) == Some(1);
        // Gen4's memory space select may name physical memory; elsewhere the GGTT.
        let space = match self.space_for(i, c, dw) {
            Space::Physical => Space::Physical,
            _ => Space::Ggtt,
        };
        if ccid & 1 == 1 && (current != new || force) {
            for (k, reg) in CONTEXT_REGISTERS.iter().enumerate() {
                let value = self.read_register(base + reg);
                self.write_gfx_u32(i, space, current + 4 * k as u64, value)?;
            }
        }
        if field(c, dw, F::RestoreInhibit) != Some(1) {
            for (k, reg) in CONTEXT_REGISTERS.iter().enumerate() {
                let value = self.read_gfx_u32(i, space, new + 4 * k as u64)?;
                self.regs.set(base + reg, value);
            }
        }
        // CCID: 31:12 context address, 8 must be one, 0 valid (003 lines 12456-12545).
        self.regs.set(base + CCID, new as u32 | (1 << 8) | 1);
        Ok(())
    }

    /// Stores a command's data dword, and its optional second dword.
    fn store(
        &mut self,
        i: usize,
        space: Space,
        addr: u64,
        c: &Cmd,
        dw: &[u32],
        (low, high): (F, F),
    ) -> Result<(), Halt> {
        self.write_gfx_u32(i, space, addr, field(c, dw, low).unwrap_or(0) as u32)?;
        if let Some(hi) = field(c, dw, high) {
            self.write_gfx_u32(i, space, addr + 4, hi as u32)?;
        }
        Ok(())
    }

    /// The post-sync operation of MI_FLUSH_DW and PIPE_CONTROL: write the
    /// immediate data or the timestamp, then raise the notify interrupt.
    fn post_sync(&mut self, i: usize, c: &Cmd, pipe_control: bool, dw: &[u32]) -> Result<(), Halt> {
        let mut addr = field(c, dw, F::Address).unwrap_or(0);
        let mut space = self.space_for(i, c, dw);
        if field(c, dw, F::StoreDataIndex) == Some(1) {
            let (page, hwsp_space) = self.hwsp(i);
            addr = page + (addr & 0xfff);
            space = hwsp_space;
        }
        match field(c, dw, F::PostSyncOperation) {
            // Gen4/G45 PIPE_CONTROL carries one 64-bit immediate; Gen6+ two dwords.
            Some(1) if c.has(F::ImmediateData) => {
                let data = field(c, dw, F::ImmediateData).unwrap_or(0);
                self.write_gfx_u32(i, space, addr, data as u32)?;
                self.write_gfx_u32(i, space, addr + 4, (data >> 32) as u32)?;
            }
            Some(1) => self.store(
                i,
                space,
                addr,
                c,
                dw,
                (F::ImmediateDataLow, F::ImmediateDataHigh),
            )?,
            // Write PS Depth Count: the pixels that passed the depth test.
            // The model has no 3D pipeline, so no pixel has passed: it
            // writes 0 (64 bits, like the other post-sync writes) until 3D
            // exists. MI_FLUSH_DW has no such operation (2 is reserved).
            Some(2) if pipe_control => {
                self.write_gfx_u32(i, space, addr, 0)?;
                self.write_gfx_u32(i, space, addr + 4, 0)?;
            }
            Some(3) => {
                self.write_gfx_u32(i, space, addr, self.timestamp as u32)?;
                self.write_gfx_u32(i, space, addr + 4, (self.timestamp >> 32) as u32)?;
            }
            _ => {}
        }
        if field(c, dw, F::NotifyEnable) == Some(1) {
            self.raise(self.layout.engines[i].notify_bit);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baregpu_hal::Generation;

    /// Every generation the model runs resolves every field its engines'
    /// commands need (a renamed or missing field fails here, not as a zero
    /// read while commands run).
    #[test]
    fn every_generation_resolves_the_fields_the_model_reads() {
        let mut built = 0;
        for g in Generation::ALL {
            let Some(layout) = layout::Layout::of(g) else {
                continue;
            };
            for e in layout.engines {
                let table = CommandTable::new(g.tables(), e.name)
                    .unwrap_or_else(|m| panic!("{g:?} {}: {m:?}", e.name));
                // The MI commands every engine executes are found and resolved.
                let store = table
                    .entries
                    .iter()
                    .find(|(c, _)| c.name == "MI_STORE_DATA_IMM")
                    .unwrap_or_else(|| panic!("{g:?} {}: no MI_STORE_DATA_IMM", e.name));
                assert_eq!(store.1, Op::StoreDataImm);
                assert!(store.0.has(F::Address) && store.0.has(F::DataDword0));
                built += 1;
            }
        }
        assert!(built >= 4, "only {built} engine tables built");
    }

    /// A command without a field its operation needs is refused at construction.
    #[test]
    fn a_missing_field_is_a_construction_error() {
        let tables = Generation::Gen7.tables();
        let sdi = tables
            .commands
            .iter()
            .find(|c| c.name == "MI_STORE_DATA_IMM")
            .expect("Gen7 has MI_STORE_DATA_IMM");
        assert!(resolve(sdi).is_ok());
        let fields: Vec<_> = sdi
            .fields
            .iter()
            .filter(|f| f.name != "address")
            .copied()
            .collect();
        let without_address: &'static CommandInfo =
            alloc::boxed::Box::leak(alloc::boxed::Box::new(CommandInfo {
                fields: alloc::boxed::Box::leak(fields.into_boxed_slice()),
                ..*sdi
            }));
        assert_eq!(
            resolve(without_address).err(),
            Some(MissingField {
                command: "MI_STORE_DATA_IMM",
                field: "address",
            })
        );
    }
}
