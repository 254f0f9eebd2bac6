//! The command streamers: ring buffer and batch buffer fetch, the MI
//! commands the model executes (`mi`), and the calls into the units
//! (`units`: the blitter and the media unit).
//!
//! Commands are recognised with the generation's reflection tables; the
//! fields the model reads are looked up once, when the engine's command
//! table is built (`table`, with `crate::command`), so one implementation
//! serves every generation whose tables use the same field names, and a
//! generation lacking a field an operation needs fails construction. What
//! is modelled and what is refused is listed in `mi`.
//!
//! Layering: the streamers work on the device's parts ([`Parts`], borrowed
//! apart: registers, memory through `crate::mem`, their own engine state,
//! the units) and reach the rest of the device through [`Host`], which the
//! device implements: a command's register access goes through the MMIO
//! dispatch (an MI_LOAD_REGISTER_IMM to a ring's TAIL runs that ring, as a
//! driver's write does), so the streamers never name the device and the
//! device module is the only one that imports this one.

mod mi;
pub(crate) mod table;
mod units;

use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec::Vec;

use baregpu_hal::MemoryBus;
use baregpu_hal::reflect::GenTables;

use crate::blit::Blitter;
use crate::display::Display;
use crate::layout::{self, Layout};
use crate::media::Media;
use crate::mem::gtt::Ggtt;
use crate::mem::{Fault, Memory, Space};
use crate::regfile::RegFile;
use table::{CommandTable, MissingField, Op};

/// Why an engine stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Halt {
    /// A command the engine does not know (EIR bit 0).
    InstructionError { dw0: u32 },
    /// An access through an invalid GTT entry or to missing memory (EIR bit 4).
    PageFault { gfx_addr: u64, ggtt: bool },
    /// A command of the tables the model does not execute, or a draw that
    /// needs what the model lacks: reported as an instruction error (EIR
    /// bit 0) with the header in IPEHR and in the model's
    /// `SOFT_UNMODELLED_COMMAND` register. `name`: the command's, or for a
    /// draw the missing feature.
    Unmodelled { dw0: u32, name: &'static str },
    /// A draw whose state breaks a rule of the manual (`why`): reported as
    /// an instruction error, the rule kept for the host.
    Invalid { dw0: u32, why: &'static str },
}

impl From<Fault> for Halt {
    fn from(f: Fault) -> Halt {
        Halt::PageFault {
            gfx_addr: f.gfx_addr,
            ggtt: f.ggtt,
        }
    }
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
    /// MI_WAIT_FOR_EVENT on a vertical blank: the frame count that ends it.
    pub event_frame: Option<u32>,
    /// The blitter's shared setup and clip state (blitter engine only).
    pub blit: Blitter,
    /// MI_TOPOLOGY_FILTER's value (Gen7 render): a non-zero 3DPRIM_*
    /// topology every 3DPRIMITIVE must have or be discarded (004 line
    /// 28827); 0, no filter.
    pub topology_filter: u32,
}

impl EngineState {
    fn ring_size(&self) -> u32 {
        (((self.ctl >> 12) & 0x1ff) + 1) * 4096
    }
    fn enabled(&self) -> bool {
        self.ctl & 1 == 1
    }
}

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

/// The command streamers' own state: each engine's ring and batch state,
/// the commands each accepts, and the buffer of the command being run.
pub(crate) struct Streamers {
    pub engines: Vec<EngineState>,
    /// Shared, so that executing a command may borrow the device (and even
    /// run an engine, on a TAIL write).
    pub commands: Arc<[CommandTable]>,
    /// Reused buffer for the command being executed.
    pub scratch: Vec<u32>,
}

impl Streamers {
    /// The streamers of `layout`'s engines, in their reset state.
    pub fn new(layout: &Layout, tables: &'static GenTables) -> Result<Streamers, MissingField> {
        let engines = layout
            .engines
            .iter()
            .map(|_| EngineState::default())
            .collect();
        let commands = layout
            .engines
            .iter()
            .map(|e| CommandTable::new(tables, e.name))
            .collect::<Result<Arc<[_]>, _>>()?;
        Ok(Streamers {
            engines,
            commands,
            scratch: Vec::with_capacity(64),
        })
    }
}

/// The device as the streamers reach it.
pub(crate) trait Host {
    type Bus: MemoryBus;
    /// The parts a command works on, borrowed apart.
    fn parts(&mut self) -> Parts<'_, Self::Bus>;
    /// A register read as through MMIO (MI_STORE_REGISTER_MEM and the
    /// other commands that read registers).
    fn read_register(&self, offset: u32) -> u32;
    /// A register write as through MMIO (MI_LOAD_REGISTER_IMM, ...): its
    /// side effects included, a ring's TAIL running that ring.
    fn write_register(&mut self, offset: u32, value: u32);
}

/// The device's parts the streamers work on.
pub(crate) struct Parts<'a, B: MemoryBus> {
    pub layout: &'a Layout,
    pub bus: &'a B,
    pub gtt: &'a mut Ggtt,
    pub regs: &'a mut RegFile,
    pub engines: &'a mut Vec<EngineState>,
    pub commands: &'a Arc<[CommandTable]>,
    pub scratch: &'a mut Vec<u32>,
    pub stats: &'a mut Stats,
    /// The interrupt blocks (the engines raise their bits in the engine block).
    pub irq: &'a mut crate::irq::Interrupts,
    /// Free-running timestamp, one tick per command executed.
    pub timestamp: &'a mut u64,
    /// The render engine's media/GPGPU unit and EU array.
    pub media: &'a mut Option<Box<Media>>,
    /// The display engine (pipes, planes, flips).
    pub display: &'a mut Option<Display>,
}

/// Dwords [`Parts::fetch_window`] reads at once: the longest MI command
/// of the fast path (MI_STORE_DATA_IMM, LRI with a few pairs) fits.
const FETCH_WINDOW: usize = 16;

/// Longest command the model reads (MI_LOAD_REGISTER_IMM with 255 pairs + header).
const MAX_COMMAND: usize = 1024;

/// Executes up to `budget` commands of engine `i`.
pub(crate) fn run<H: Host>(h: &mut H, i: usize, budget: u32) {
    h.parts().media_grant(i, budget);
    // The command tables are shared, so that executing a command may
    // borrow the device (and even run an engine, on a TAIL write).
    let tables = Arc::clone(h.parts().commands);
    let mut n = 0;
    while n < budget && h.parts().has_work(i) {
        n += 1;
        match step(h, i, &tables[i]) {
            Ok(true) => {}
            // Waiting on a semaphore or on EU threads: try again on the
            // next run.
            Ok(false) => break,
            Err(halt) => h.parts().halt(i, halt),
        }
    }
    h.parts().media_background(i);
}

/// Fetches, decodes and executes one command.
/// Returns whether the engine moved on (false: it waits on a semaphore).
fn step<H: Host>(h: &mut H, i: usize, table: &CommandTable) -> Result<bool, Halt> {
    let mut p = h.parts();
    let mut window = [0u32; FETCH_WINDOW];
    let windowed = p.fetch_window(i, &mut window)?;
    let dw0 = match windowed {
        0 => p.fetch(i, 0)?,
        _ => window[0],
    };
    let e = &p.engines[i];
    p.engines[i].acthd = match e.batch {
        Some(a) => a,
        None => e.start as u64 + e.head as u64,
    };
    let Some((info, op)) = table.identify(dw0) else {
        return Err(Halt::InstructionError { dw0 });
    };
    let op = *op;
    // Long commands (media inline data) are skipped past what the model reads.
    let len = info.length_from_header(dw0).max(1);
    let mut buf = core::mem::take(p.scratch);
    buf.clear();
    let read = len.min(MAX_COMMAND);
    // The dwords the window holds, then the rest one by one.
    buf.extend_from_slice(&window[..windowed.clamp(1, read)]);
    buf[0] = dw0;
    for k in buf.len()..read {
        match p.fetch(i, k as u32) {
            Ok(v) => buf.push(v),
            Err(halt) => {
                *p.scratch = buf;
                return Err(halt);
            }
        }
    }
    // A dispatch the predicate or the topology filter drops does nothing,
    // not even wait for earlier threads.
    let dropped = p.dropped(i, info, op, &buf);
    // EU threads: a dispatch command starts them, any other command waits
    // until they have finished (`media`); the head stays meanwhile.
    let media = match op {
        _ if dropped => None,
        Op::Media(m) => Some(m),
        _ => None,
    };
    let gate = match dropped {
        true => Ok(true),
        false => p.media_gate(i, info, media, &buf),
    };
    match gate {
        Ok(true) => {}
        Ok(false) => {
            *p.scratch = buf;
            return Ok(false);
        }
        Err(halt) => {
            *p.scratch = buf;
            return Err(halt);
        }
    }
    // MI_SEMAPHORE_MBOX holds the engine (RING_CTL bit 10 set) until its
    // condition holds or the driver cancels the wait (003 lines 15643-15787).
    // MI_WAIT_FOR_EVENT on a display event holds the engine with RB Wait (bit 11)
    // set until the event (`mi::event_pending`: a vertical blank of a running
    // pipe, a flip done) or the driver's cancel (or a reset after hang
    // detection) moves it on.
    if op == Op::WaitForEvent {
        let Parts {
            display, engines, ..
        } = &mut p;
        let e = &mut engines[i];
        if mi::event_pending(info, &buf, display.as_ref(), &mut e.event_frame)
            && !core::mem::take(&mut e.cancel_wait)
        {
            e.ctl |= 0x800;
            *p.scratch = buf;
            return Ok(false);
        }
        p.engines[i].event_frame = None;
        p.engines[i].ctl &= !0x800;
    }
    if op == Op::SemaphoreMbox && !core::mem::take(&mut p.engines[i].cancel_wait) {
        let passes = mi::semaphore_passes(h, i, info, &buf);
        p = h.parts();
        match passes {
            Ok(true) => p.engines[i].ctl &= !0x400,
            Ok(false) => {
                p.engines[i].ctl |= 0x400;
                *p.scratch = buf;
                return Ok(false);
            }
            Err(halt) => {
                *p.scratch = buf;
                return Err(halt);
            }
        }
    }
    // Advance before executing: a batch start or end changes the stream.
    match &mut p.engines[i].batch {
        Some(addr) => *addr += len as u64 * 4,
        None => {
            let e = &mut p.engines[i];
            let size = e.ring_size();
            let next = e.head + len as u32 * 4;
            if next >= size {
                e.wrap_count = (e.wrap_count + 1) & 0x7ff;
            }
            e.head = next % size;
        }
    }
    p.stats.commands += 1;
    *p.timestamp += 1;
    let result = match dropped {
        true => Ok(()),
        false => mi::execute(h, i, info, op, &buf),
    };
    *h.parts().scratch = buf;
    result.map(|()| true)
}

impl<B: MemoryBus> Parts<'_, B> {
    /// Engine `i`'s graphics memory.
    pub(crate) fn memory(&self, i: usize) -> Memory<'_, B> {
        Memory::new(
            self.bus,
            &*self.gtt,
            &*self.regs,
            self.layout.engines[i].base,
        )
    }

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
        let phys = self.memory(i).translate(space, gfx)?;
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

    pub(crate) fn read_gfx_u32(&self, i: usize, space: Space, gfx: u64) -> Result<u32, Halt> {
        Ok(self.memory(i).read_u32(space, gfx)?)
    }

    pub(crate) fn write_gfx_u32(
        &self,
        i: usize,
        space: Space,
        gfx: u64,
        value: u32,
    ) -> Result<(), Halt> {
        Ok(self.memory(i).write_u32(space, gfx, value)?)
    }

    /// Whether the engine has work: in a batch, or the ring has commands.
    fn has_work(&self, i: usize) -> bool {
        let e = &self.engines[i];
        e.enabled() && e.halted.is_none() && (e.batch.is_some() || e.head != e.tail)
    }

    /// Stops engine `i` with an error: EIR/ESR, IPEHR/IPEIR, the fault
    /// record, and the error interrupt unless masked.
    pub(crate) fn halt(&mut self, i: usize, halt: Halt) {
        let dw0 = match halt {
            Halt::InstructionError { dw0 }
            | Halt::Unmodelled { dw0, .. }
            | Halt::Invalid { dw0, .. } => dw0,
            Halt::PageFault { .. } => 0,
        };
        let eir_bit = match halt {
            Halt::InstructionError { .. } | Halt::Unmodelled { .. } | Halt::Invalid { .. } => {
                1 << 0
            }
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
        if !ring_masked {
            let block = self.irq.engine_block();
            self.irq.event(self.regs, block, bit);
        }
    }
}
