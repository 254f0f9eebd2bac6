//! The MI commands (and PIPE_CONTROL's post-sync operation) the model
//! executes.
//!
//! Modelled: MI_NOOP (NOPID write), MI_BATCH_BUFFER_START (chaining),
//! MI_BATCH_BUFFER_END, MI_STORE_DATA_IMM, MI_STORE_DATA_INDEX,
//! MI_LOAD_REGISTER_IMM, MI_STORE_REGISTER_MEM, MI_USER_INTERRUPT,
//! MI_REPORT_HEAD, MI_FLUSH_DW and PIPE_CONTROL post-sync writes and notify,
//! MI_CONDITIONAL_BATCH_BUFFER_END, MI_SEMAPHORE_MBOX (compare and wait,
//! update), MI_WAIT_FOR_EVENT (vertical blanks of a running pipe and flips
//! pending on a plane hold the engine; conditions that do not exist pass),
//! MI_UPDATE_GTT (GGTT entries), MI_LOAD_REGISTER_MEM,
//! MI_SET_CONTEXT (save and restore of the modelled registers),
//! MI_DISPLAY_FLIP (queued on the display, `crate::display`), Ivy
//! Bridge's MI_PREDICATE (the predicate state bit in MI_PREDICATE_RESULT)
//! and MI_TOPOLOGY_FILTER, which drop predicated-off or filtered
//! 3DPRIMITIVE and GPGPU_WALKER commands (`Parts::dropped`), and the
//! blitter commands of `crate::blit`. Memory accesses go through the GGTT
//! or, for PPGTT batches and PPGTT-addressed commands, the engine's
//! two-level PPGTT. The media/GPGPU commands (PIPELINE_SELECT,
//! STATE_BASE_ADDRESS, the MEDIA_* state and dispatch commands,
//! GPGPU_WALKER, the Gen4/G45 URB and constant commands) go to
//! `crate::media`, which also decides when a command may run while EU
//! threads are busy. MI_REPORT_PERF_COUNT writes a report; a few commands
//! have no effect on a machine without caches, display or preemption
//! (`table::NO_EFFECT`). On Sandy Bridge the 3D commands (3DSTATE_* and
//! 3DPRIMITIVE) go to the media unit too, which holds the 3D front end
//! (`crate::render3d::front`); other generations refuse them. Every other
//! command of the tables (MI_LOAD_SCAN_LINES_INCL, ...) is refused: the engine stops with
//! [`Halt::Unmodelled`], an instruction error whose header also shows in
//! the model's `SOFT_UNMODELLED_COMMAND` register, so that work the model
//! cannot do never passes as done. A command the tables do not know is an
//! instruction error.

use baregpu_hal::MemoryBus;
use baregpu_hal::gen6::{Engine as Gen6Engine, regs as gen6};

use super::table::Op;
use super::{Halt, Host, Parts};
use crate::command::{Cmd, F, field};
use crate::display::Display;
use crate::mem::Space;

/// Physical address bits 35:32 of a Gen4/G45 command that addresses
/// physical memory (its "physical start address extension" field).
fn high_bits(space: Space, c: &Cmd, dw: &[u32]) -> u64 {
    match space {
        Space::Physical => field(c, dw, F::PhysicalStartAddressExtension).unwrap_or(0) << 32,
        _ => 0,
    }
}

/// Whether an MI_WAIT_FOR_EVENT still waits. Events (vertical and
/// horizontal blanks) come from a running pipe: a vertical blank wait ends
/// when the pipe's frame counter passes the frame it started in (kept in
/// `event_frame`); a horizontal blank comes every line, so it passes while
/// the pipe runs. A pipe that is off (or missing) never sends one: the
/// engine waits until the driver cancels it or resets the engine. The other
/// selections are conditions: "if a specified condition does not exist ...
/// the parser proceeds, treating this command as a no-operation" (003 lines
/// 16487-16490); a plane's flip pending holds the engine while a flip is
/// queued on that plane; the scan-line window and the sprites' flips (not
/// modelled) do not exist.
pub(super) fn event_pending(
    c: &Cmd,
    dw: &[u32],
    display: Option<&Display>,
    event_frame: &mut Option<u32>,
) -> bool {
    let mut pending = false;
    for f in c.info.fields.iter().filter(|f| f.extract(dw) != 0) {
        let blank = c.blank_events.iter().any(|b| b.name == f.name);
        let flip = f.name.contains("flip_pending") && !f.name.contains("sprite");
        if !blank && !flip {
            continue;
        }
        let pipe = display.and_then(|d| Some((d, d.pipe_named_in(f.name)?)));
        pending |= match (pipe, blank) {
            // No such pipe (or no display): the event never comes, the
            // condition does not exist.
            (None, blank) => blank,
            (Some((d, i)), false) => d.flip_pending(i),
            (Some((d, i)), true) if !d.running(i) => true,
            (Some((d, i)), true) if f.name.contains("vertical") => {
                let frame = d.frame(i).unwrap_or(0);
                let end = *event_frame.get_or_insert(frame.wrapping_add(1));
                (frame.wrapping_sub(end) as i32) < 0
            }
            (Some(_), true) => false,
        };
    }
    pending
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

/// MI_PREDICATE's registers (hal/tables/gen7/registers.toml).
const MI_PREDICATE_SRC0: u32 = baregpu_hal::gen7::regs::MI_PREDICATE_SRC0.offset();
const MI_PREDICATE_SRC1: u32 = baregpu_hal::gen7::regs::MI_PREDICATE_SRC1.offset();
const MI_PREDICATE_DATA: u32 = baregpu_hal::gen7::regs::MI_PREDICATE_DATA.offset();
const MI_PREDICATE_RESULT: u32 = baregpu_hal::gen7::regs::MI_PREDICATE_RESULT.offset();

/// Dwords of the MI_REPORT_PERF_COUNT report (256 bytes, A45_B8_C8).
const PERF_REPORT_DWORDS: u64 = 64;

/// Executes a command whose checks and waits have passed. The commands
/// that reach registers go through the device's MMIO dispatch ([`Host`]);
/// the others stay among the streamers' parts ([`Parts::execute`]).
pub(super) fn execute<H: Host>(
    h: &mut H,
    i: usize,
    c: &Cmd,
    op: Op,
    dw: &[u32],
) -> Result<(), Halt> {
    match op {
        Op::LoadRegisterImm => {
            if let (Some(g), Some((o, d))) = (&c.group, c.register_pair) {
                let pairs = dw.get(g.dw as usize..).unwrap_or(&[]);
                for pair in pairs.chunks_exact(g.size as usize) {
                    let reg = (o.extract(pair) << o.shift) as u32;
                    h.write_register(reg, d.extract(pair) as u32);
                }
            }
        }
        Op::StoreRegisterMem => {
            let reg = field(c, dw, F::RegisterAddress).unwrap_or(0) as u32;
            let value = h.read_register(reg);
            let p = h.parts();
            let space = p.space_for(i, c, dw);
            let addr = field(c, dw, F::MemoryAddress).unwrap_or(0) | high_bits(space, c, dw);
            p.write_gfx_u32(i, space, addr, value)?;
        }
        Op::LoadRegisterMem => {
            let p = h.parts();
            let space = p.space_for(i, c, dw);
            let value = p.read_gfx_u32(i, space, field(c, dw, F::MemoryAddress).unwrap_or(0))?;
            h.write_register(field(c, dw, F::RegisterAddress).unwrap_or(0) as u32, value);
        }
        Op::SetContext => set_context(h, i, c, dw)?,
        _ => h.parts().execute(i, c, op, dw)?,
    }
    Ok(())
}

/// The semaphore compare: the mailbox register (Compare Register set;
/// register select 0 or 2 names the engine's two sync registers at base +
/// 0x40 and + 0x44, 003 lines 11352-11400) or the dword in memory must be
/// greater than the data.
pub(super) fn semaphore_passes<H: Host>(
    h: &mut H,
    i: usize,
    c: &Cmd,
    dw: &[u32],
) -> Result<bool, Halt> {
    if field(c, dw, F::CompareSemaphore) != Some(1) {
        return Ok(true);
    }
    let data = field(c, dw, F::SemaphoreDataDword).unwrap_or(0) as u32;
    let value = if field(c, dw, F::CompareRegister) == Some(1) {
        let base = h.parts().layout.engines[i].base;
        let select = field(c, dw, F::RegisterSelect).unwrap_or(0);
        h.read_register(base + if select == 2 { 0x44 } else { 0x40 })
    } else {
        let p = h.parts();
        let space = p.space_for(i, c, dw);
        p.read_gfx_u32(i, space, field(c, dw, F::SemaphoreAddress).unwrap_or(0))?
    };
    Ok(value > data)
}

/// MI_SET_CONTEXT (003 lines 15788-15943, model 9135-9275): save the
/// current context when the address changes (or on force restore), then
/// restore the new one unless Restore Inhibit is set, and load CCID.
/// The image format is the model's own (the hardware's is opaque to
/// software): the registers of [`CONTEXT_REGISTERS`], one dword each, at
/// the start of the 4 KiB-aligned context in the GGTT.
fn set_context<H: Host>(h: &mut H, i: usize, c: &Cmd, dw: &[u32]) -> Result<(), Halt> {
    let p = h.parts();
    let base = p.layout.engines[i].base;
    let new = field(c, dw, F::LogicalContextAddress).unwrap_or(0);
    let ccid = p.regs.get(base + CCID);
    let current = (ccid & 0xffff_f000) as u64;
    let force = field(c, dw, F::ForceRestore) == Some(1);
    // Gen4's memory space select may name physical memory; elsewhere the GGTT.
    let space = match p.space_for(i, c, dw) {
        Space::Physical => Space::Physical,
        _ => Space::Ggtt,
    };
    if ccid & 1 == 1 && (current != new || force) {
        for (k, reg) in CONTEXT_REGISTERS.iter().enumerate() {
            let value = h.read_register(base + reg);
            h.parts()
                .write_gfx_u32(i, space, current + 4 * k as u64, value)?;
        }
    }
    let p = h.parts();
    if field(c, dw, F::RestoreInhibit) != Some(1) {
        for (k, reg) in CONTEXT_REGISTERS.iter().enumerate() {
            let value = p.read_gfx_u32(i, space, new + 4 * k as u64)?;
            p.regs.set(base + reg, value);
        }
    }
    // CCID: 31:12 context address, 8 must be one, 0 valid (003 lines 12456-12545).
    p.regs.set(base + CCID, new as u32 | (1 << 8) | 1);
    Ok(())
}

impl<B: MemoryBus> Parts<'_, B> {
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

    /// Executes a command that reaches no register through the MMIO
    /// dispatch.
    fn execute(&mut self, i: usize, c: &Cmd, op: Op, dw: &[u32]) -> Result<(), Halt> {
        let base = self.layout.engines[i].base;
        match op {
            Op::Noop => {
                if field(c, dw, F::IdentificationNumberRegisterWriteEnable) == Some(1) {
                    let id = field(c, dw, F::IdentificationNumber).unwrap_or(0) as u32;
                    self.regs.set(base + gen6::NOPID.relative_offset(), id);
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
            // Through the MMIO dispatch: [`execute`].
            Op::LoadRegisterImm | Op::StoreRegisterMem | Op::LoadRegisterMem | Op::SetContext => {}
            Op::Media(m) => self.media_execute(i, c, m, dw)?,
            Op::ReportPerfCount => self.report_perf_count(i, c, dw)?,
            Op::DisplayFlip => self.display_flip(c, dw)?,
            Op::Predicate => self.predicate(c, dw)?,
            Op::TopologyFilter => {
                self.engines[i].topology_filter =
                    field(c, dw, F::TopologyFilterValue).unwrap_or(0) as u32;
            }
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
                let pte_addr = self.memory(i).ppgtt_pte_address(page << 12)?;
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

    /// MI_DISPLAY_FLIP (003 lines 15063-15319; Gen4 and Gen7 from Linux,
    /// see mi.toml): queues the new base, pitch (in 64-byte units) and
    /// tiling for the plane's next vertical blank; Flip Type 1 (Gen6
    /// asynchronous) flips at once. A flip of a sprite plane is refused:
    /// the model has no sprites.
    fn display_flip(&mut self, c: &Cmd, dw: &[u32]) -> Result<(), Halt> {
        let plane = field(c, dw, F::DisplayPlaneSelect).unwrap_or(0) as u32;
        let Some(display) = self.display.as_mut() else {
            return Err(self.refuse(c, dw));
        };
        let Some(pipe) = display.pipe_of_flip_plane(plane) else {
            return Err(self.refuse(c, dw));
        };
        let base = field(c, dw, F::DisplayBufferBaseAddress).unwrap_or(0) as u32;
        let pitch = field(c, dw, F::DisplayBufferPitch).unwrap_or(0) as u32 * 64;
        let tiled = field(c, dw, F::TileParameter) == Some(1);
        let asynchronous = field(c, dw, F::FlipType) == Some(1);
        display.queue_flip(pipe, base, pitch, tiled, asynchronous);
        Ok(())
    }

    /// MI_PREDICATE (004 lines 28041-28087, the same command as Mesa
    /// gen7.xml's): the compare operation's result (TRUE, FALSE,
    /// SRC0 == SRC1 loading SRC0 - SRC1 into MI_PREDICATE_DATA, or
    /// SRC0 - SRC1 == MI_PREDICATE_DATA), combined with the predicate state
    /// bit (SET, AND, OR, XOR), then loaded into it as is or inverted, or
    /// the bit kept. The state bit is MI_PREDICATE_RESULT bit 0 (004 lines
    /// 28688, 30550). The reserved load operation 1 is an invalid command.
    fn predicate(&mut self, c: &Cmd, dw: &[u32]) -> Result<(), Halt> {
        let load = field(c, dw, F::LoadOperation).unwrap_or(0);
        let combine = field(c, dw, F::CombineOperation).unwrap_or(0);
        let compare = field(c, dw, F::CompareOperation).unwrap_or(0);
        if load == 1 {
            return Err(Halt::InstructionError {
                dw0: dw.first().copied().unwrap_or(0),
            });
        }
        let src0 = self.read_u64(MI_PREDICATE_SRC0);
        let src1 = self.read_u64(MI_PREDICATE_SRC1);
        let delta = src0.wrapping_sub(src1);
        let result = match compare {
            0 => true,
            1 => false,
            2 => {
                self.regs.set(MI_PREDICATE_DATA, delta as u32);
                self.regs.set(MI_PREDICATE_DATA + 4, (delta >> 32) as u32);
                src0 == src1
            }
            _ => delta == self.read_u64(MI_PREDICATE_DATA),
        };
        let state = self.regs.get(MI_PREDICATE_RESULT) & 1 == 1;
        let combined = match combine {
            0 => result,
            1 => result & state,
            2 => result | state,
            _ => result ^ state,
        };
        let bit = match load {
            2 => combined,
            3 => !combined,
            _ => state,
        };
        self.regs.set(MI_PREDICATE_RESULT, bit as u32);
        Ok(())
    }

    /// Whether the command streamer drops command `c` (Gen7): a
    /// 3DPRIMITIVE or GPGPU_WALKER with Predicate Enable while the predicate
    /// state bit is 0 ("ignored only if PredicateEnable is set and the
    /// Predicate state bit is 0", 004 lines 617, 669), and a 3DPRIMITIVE
    /// whose topology the MI_TOPOLOGY_FILTER does not let through (004 line
    /// 28827). Checked only when the command starts: a draw or walk under
    /// way is not dropped half done.
    pub(super) fn dropped(&self, i: usize, c: &Cmd, op: Op, dw: &[u32]) -> bool {
        let dispatch = matches!(
            op,
            Op::Media(crate::media::MediaOp::Primitive | crate::media::MediaOp::GpgpuWalker)
        );
        if !dispatch || self.media.as_deref().is_some_and(|m| m.mid_dispatch()) {
            return false;
        }
        if field(c, dw, F::PredicateEnable) == Some(1)
            && self.regs.get(MI_PREDICATE_RESULT) & 1 == 0
        {
            return true;
        }
        let filter = self.engines[i].topology_filter;
        op == Op::Media(crate::media::MediaOp::Primitive)
            && filter != 0
            && field(c, dw, F::PrimitiveTopologyType).is_some_and(|t| t as u32 != filter)
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
        let ts = *self.timestamp as u32;
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
            // Write PS Depth Count: the PS_DEPTH_COUNT register, the samples
            // that passed the depth and stencil tests as the 3D front end
            // adds them from the output merger when each draw ends (64
            // bits). Every earlier draw has ended (a draw holds the engine
            // at its 3DPRIMITIVE until its threads have), which is what the
            // Depth Stall asks for. MI_FLUSH_DW has no such operation (2 is
            // reserved).
            Some(2) if pipe_control => {
                let count = self.read_u64(super::units::PS_DEPTH_COUNT);
                self.write_gfx_u32(i, space, addr, count as u32)?;
                self.write_gfx_u32(i, space, addr + 4, (count >> 32) as u32)?;
            }
            Some(3) => {
                self.write_gfx_u32(i, space, addr, *self.timestamp as u32)?;
                self.write_gfx_u32(i, space, addr + 4, (*self.timestamp >> 32) as u32)?;
            }
            _ => {}
        }
        if field(c, dw, F::NotifyEnable) == Some(1) {
            self.raise(self.layout.engines[i].notify_bit);
        }
        Ok(())
    }
}
