//! Execlist submission: the submit queue and its load, the context
//! descriptor, the logical ring context image (restored when a context
//! starts, saved when it stops), the context status buffer and its
//! interrupt, and the engine's run loop and error reporting.
//!
//! Descriptor (Linux Xe xe_lrc.c LRC_VALID bit 0, LRC_ADDRESSING_MODE 4:3
//! with LRC_LEGACY_64B_CONTEXT = 3, LRC_PRIVILEGE bit 8, the GGTT address of
//! the context in 31:12; xe_execlist.c XEHP_SW_CTX_ID 54:39 from graphics
//! 12.50). The driver writes it to RING_EXECLIST_SQ_CONTENTS, the low dword
//! first and a second element 8 bytes on, then sets EL_CTRL_LOAD in
//! RING_EXECLIST_CONTROL (xe_execlist.c __start_lrc; i915
//! execlists_submit_ports).
//!
//! Context image: page 0 the per-process hardware status page, page 1 the
//! register state (i915 gt/intel_lrc.h LRC_PPHWSP_PN 0, LRC_STATE_PN 1).
//! The register state is a list of MI_LOAD_REGISTER_IMM commands (i915
//! gt/intel_lrc.c set_offsets and gen12_rcs_offsets; intel_lrc_reg.h puts
//! RING_HEAD's value at dword 5, RING_TAIL 7, RING_START 9, RING_CTL 11,
//! BB_STATE 17, the PDP0/PML4 pair at 0x31/0x33). The model restores a
//! context by executing that list (every register it names) and saves it by
//! writing each named register's value back into its slot, so any layout the
//! driver writes in that form works; the list ends at the first dword that
//! is neither MI_NOOP nor MI_LOAD_REGISTER_IMM (or at the page end).
//!
//! Context status buffer: 12 entries of two dwords in the engine's status
//! page (RING_HWS_PGA) from dword 0x10, the write pointer mirrored at dword
//! 0x2f (i915 intel_engine.h I915_HWS_CSB_BUF0_INDEX, INTEL_HWS_CSB_WRITE_INDEX
//! for Gen11+, GEN11_CSB_ENTRIES), in RING_CONTEXT_STATUS_PTR bits 3:0 and
//! in RING_CONTEXT_STATUS_BUF (base + 0x370 + 8 n). Each event raises the
//! context-switch interrupt (bit 8). Entry format, Xe_HP (i915
//! intel_execlists_submission.c, the comment above __gen12_csb_parse and
//! xehp_csb_parse): low dword bits 3:0 switch detail, 9:4 engine instance,
//! 25:10 the software context ID switched to (0xffff: idle); high dword bit
//! 1 (33) switched to a new queue, bits 25:10 (57:42) the context switched
//! away from. Events: a submission (to the new context, away from the
//! running one or idle, new queue), a completion (the ring emptied: to the
//! next element or idle, away from the finished one), a lite restore (the
//! running context submitted again: its RING_TAIL resampled from the image).

use alloc::vec::Vec;

use super::Device;
use super::memory::{Memory, Space};
use baregpu_hal::MemoryBus;

/// GEN12_RCU_MODE bit 0, GEN12_RCU_MODE_CCS_ENABLE.
const CCS_ENABLE: u32 = 1 << 0;
/// Entries of the context status buffer (GEN11_CSB_ENTRIES).
pub const CSB_ENTRIES: u32 = 12;
/// Dword of the status page holding entry 0, and the write-pointer mirror.
const CSB_HWSP_DWORD: u64 = 0x10;
const CSB_WRITE_DWORD: u64 = 0x2f;
/// RING_CONTEXT_STATUS_BUF_LO/HI(base, n) = base + 0x370 + 8 n (+ 4) (Linux
/// i915's execlist registers; not in the hal tables yet).
const CSB_MMIO: u32 = 0x370;
/// GEN8_RING_PDP_LDW/UDW(base, n) = base + 0x270 + 8 n (+ 4): PDP0 holds
/// the PML4 of a 48-bit context (i915 gt/intel_engine_regs.h,
/// intel_lrc_reg.h ASSIGN_CTX_PML4).
pub const PDP0_LDW: u32 = 0x270;
pub const PDP0_UDW: u32 = 0x274;
/// The per-context and indirect-context workaround batches a restore runs
/// (i915 RING_BB_PER_CTX_PTR base + 0x1c0 with PER_CTX_BB_VALID bit 0,
/// RING_INDIRECT_CTX base + 0x1c4 with the size in cachelines in 5:0; the
/// image slots CTX_BB_PER_CTX_PTR and CTX_RCS_INDIRECT_CTX of intel_lrc_reg.h).
const BB_PER_CTX_PTR: u32 = 0x1c0;
const PER_CTX_BB_VALID: u32 = 1 << 0;
const INDIRECT_CTX: u32 = 0x1c4;
const INDIRECT_CTX_SIZE: u32 = 0x3f;
/// The idle context ID of Xe_HP CSB entries (XEHP_IDLE_CTX_ID).
const IDLE_ID: u32 = 0xffff;
/// GT_CONTEXT_SWITCH_INTERRUPT, GT_CS_MASTER_ERROR_INTERRUPT, GT_RENDER_USER_INTERRUPT,
/// GT_RENDER_PIPECTL_NOTIFY_INTERRUPT (hal RING_IMR fields).
pub const CONTEXT_SWITCH_BIT: u32 = 8;
pub const ERROR_BIT: u32 = 3;
pub const USER_BIT: u32 = 0;
pub const NOTIFY_BIT: u32 = 4;
/// RING_EIR bits as Linux i915 names them for every generation:
/// I915_ERROR_INSTRUCTION, I915_ERROR_PAGE_TABLE.
const EIR_INSTRUCTION: u32 = 1 << 0;
const EIR_PAGE_TABLE: u32 = 1 << 4;
/// MI_LOAD_REGISTER_IMM and MI_NOOP headers: opcode 0x22 and 0 in 28:23
/// (hal gen12.5 mi.toml); bit 19 adds the engine's MMIO base to the low 12
/// bits of each offset (MI_LRI_LRM_CS_MMIO, which i915 sets on Gen11+ images).
const MI_OPCODE_SHIFT: u32 = 23;
const LRI_OPCODE: u32 = 0x22;
const LRI_CS_MMIO: u32 = 1 << 19;

pub use super::halt::Halt;

/// A context's register state page and where its LRI list's values sit.
struct StateImage {
    page: Vec<u32>,
    /// (dword index of a value slot, its register).
    pairs: Vec<(usize, u32)>,
}

/// A submitted context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Context {
    pub desc: u64,
}

impl Context {
    pub fn lrca(&self) -> u64 {
        self.desc & 0xffff_f000
    }
    /// The software context ID (XEHP_SW_CTX_ID, 54:39).
    pub fn id(&self) -> u32 {
        (self.desc >> 39) as u32 & 0xffff
    }
    fn state_page(&self) -> u64 {
        self.lrca() + 0x1000
    }
}

/// A batch being executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batch {
    pub addr: u64,
    pub space: Space,
}

#[derive(Clone, Debug, Default)]
pub struct EngineState {
    pub active: Option<Context>,
    /// The second element of the last submission, run when the first completes.
    pub queued: Option<Context>,
    pub batch: Option<Batch>,
    /// Where a second-level batch returns to.
    pub parent: Option<Batch>,
    pub halted: Option<Halt>,
    /// Header of the command refused as not modelled (`SOFT_UNMODELLED_COMMAND`).
    pub unmodelled: u32,
    /// MI_SET_PREDICATE's status: commands are dropped while it is set.
    pub set_predicate: bool,
    /// The compute pipeline's state (`super::compute`).
    pub compute: super::compute::State,
}

impl<B: MemoryBus> Device<B> {
    /// Engine `i`'s view of memory (the PML4 from PDP0 while a context runs).
    pub(super) fn memory(&mut self, i: usize) -> Memory<'_, B> {
        let base = self.engines[i].base;
        let pml4 = self.state[i].active.map(|_| {
            u64::from(self.regs.get(base + PDP0_LDW))
                | u64::from(self.regs.get(base + PDP0_UDW)) << 32
        });
        Memory {
            bus: &self.bus,
            local: &mut self.local,
            ggtt: &self.ggtt,
            pml4,
        }
    }

    /// EL_CTRL_LOAD: the queue's valid elements become the engine's.
    pub(super) fn submit(&mut self, i: usize) {
        let base = self.engines[i].base;
        let sq = base + self.er.sq_contents;
        let element = |k: u32| Context {
            desc: u64::from(self.regs.get(sq + 8 * k))
                | u64::from(self.regs.get(sq + 8 * k + 4)) << 32,
        };
        let mut elements = (0..2).map(element).filter(|c| c.desc & 1 == 1);
        let Some(first) = elements.next() else {
            return;
        };
        let second = elements.next();
        if self.state[i].halted.is_some() {
            return;
        }
        // The compute engines run only with GEN12_RCU_MODE CCS_ENABLE set
        // (hal registers.toml; Xe's __start_lrc sets it before a compute
        // submission): otherwise the load is not taken, a hang for the driver
        // to detect.
        if self.engines[i].class == super::COMPUTE_CLASS
            && self.regs.get(self.gt.rcu_mode) & CCS_ENABLE == 0
        {
            return;
        }
        // Addressing mode 4:3: only the legacy 64-bit (four-level PPGTT) context.
        if (first.desc >> 3) & 3 != 3 {
            return self.halt(
                i,
                Halt::Unmodelled {
                    dw0: 0,
                    name: "a context descriptor not in legacy 64-bit addressing mode",
                },
            );
        }
        let away = self.state[i].active;
        let lite = away.is_some_and(|a| a.lrca() == first.lrca());
        // The model keeps a context's batch position outside its image: it
        // cannot switch away from a context inside a batch.
        if away.is_some() && !lite && self.state[i].batch.is_some() {
            return self.halt(
                i,
                Halt::Unmodelled {
                    dw0: 0,
                    name: "preemption of a context inside a batch buffer",
                },
            );
        }
        let result = match away {
            // Lite restore: the same context again resamples its RING_TAIL.
            Some(a) if a.lrca() == first.lrca() => self.restore(i, first, true),
            Some(a) => self.save(i, a).and_then(|()| self.restore(i, first, false)),
            None => self.restore(i, first, false),
        };
        if let Err(h) = result {
            return self.halt(i, h);
        }
        self.state[i].active = Some(first);
        self.state[i].queued = second;
        if !lite {
            self.state[i].batch = None;
            self.state[i].parent = None;
        }
        self.set_status(i);
        self.csb_event(i, Some(first), away, true);
    }

    /// The running context in RING_EXECLIST_STATUS_HI.
    fn set_status(&mut self, i: usize) {
        let at = self.engines[i].base + self.er.execlist_status_hi;
        let id = self.state[i].active.map_or(0, |c| c.id());
        self.regs.set(at, id);
    }

    /// The register state page, read at once (one GGTT page: the context
    /// is page aligned), and its MI_LOAD_REGISTER_IMM list as (dword index
    /// of each value slot, register).
    fn image_pairs(&mut self, i: usize, ctx: Context) -> Result<StateImage, Halt> {
        let base = self.engines[i].base;
        let mut bytes = [0u8; 4096];
        self.memory(i)
            .read(Space::Ggtt, ctx.state_page(), &mut bytes)
            .map_err(|e| Halt::of(e, 0))?;
        let page: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let mut pairs = Vec::new();
        let mut k = 0usize;
        while k < 1024 {
            let header = page[k];
            if header == 0 {
                k += 1;
                continue;
            }
            if header >> MI_OPCODE_SHIFT != LRI_OPCODE {
                break;
            }
            // DWord Length = 2 x pairs - 1 (hal mi.toml MI_LOAD_REGISTER_IMM).
            let n = ((header & 0xff) + 1) as usize / 2;
            for p in 0..n {
                let slot = k + 1 + 2 * p;
                if slot + 1 >= 1024 {
                    break;
                }
                let raw = page[slot] & 0x7f_fffc;
                let reg = if header & LRI_CS_MMIO != 0 {
                    base + (raw & 0xfff)
                } else {
                    raw
                };
                pairs.push((slot + 1, reg));
            }
            k += 1 + 2 * n;
        }
        Ok(StateImage { page, pairs })
    }

    /// Loads a context's registers from its image (only RING_TAIL on a lite
    /// restore). A context with workaround batches to run on restore is
    /// refused: the model does not execute them.
    fn restore(&mut self, i: usize, ctx: Context, lite: bool) -> Result<(), Halt> {
        let base = self.engines[i].base;
        let tail = base + self.er.tail;
        // Cleared first: an image that does not list them has none.
        self.regs.set(base + BB_PER_CTX_PTR, 0);
        self.regs.set(base + INDIRECT_CTX, 0);
        self.restore_pairs(i, ctx, lite, tail)?;
        let per_ctx = self.regs.get(base + BB_PER_CTX_PTR) & PER_CTX_BB_VALID != 0;
        let indirect = self.regs.get(base + INDIRECT_CTX) & INDIRECT_CTX_SIZE != 0;
        if !lite && (per_ctx || indirect) {
            return Err(Halt::Unmodelled {
                dw0: 0,
                name: "a context's workaround batches (BB_PER_CTX_PTR, INDIRECT_CTX)",
            });
        }
        Ok(())
    }

    fn restore_pairs(&mut self, i: usize, ctx: Context, lite: bool, tail: u32) -> Result<(), Halt> {
        let image = self.image_pairs(i, ctx)?;
        for &(slot, reg) in &image.pairs {
            if !lite || reg == tail {
                self.regs.restore(reg, image.page[slot]);
            }
        }
        Ok(())
    }

    /// Writes the registers the image lists back into it.
    fn save(&mut self, i: usize, ctx: Context) -> Result<(), Halt> {
        let mut image = self.image_pairs(i, ctx)?;
        for &(slot, reg) in &image.pairs {
            image.page[slot] = self.regs.saved_value(reg);
        }
        let bytes: Vec<u8> = image.page.iter().flat_map(|d| d.to_le_bytes()).collect();
        self.memory(i)
            .write(Space::Ggtt, ctx.state_page(), &bytes)
            .map_err(|e| Halt::of(e, 0))
    }

    /// Writes a CSB entry and raises the context-switch interrupt.
    fn csb_event(&mut self, i: usize, to: Option<Context>, away: Option<Context>, new_queue: bool) {
        let e = self.engines[i];
        let ptr_reg = e.base + self.er.csb_ptr;
        let ptr = self.regs.get(ptr_reg) & 0xf;
        let next = if ptr + 1 >= CSB_ENTRIES { 0 } else { ptr + 1 };
        let id = |c: Option<Context>| c.map_or(IDLE_ID, |c| c.id());
        let low = (id(to) << 10) | (e.instance << 4);
        let high = (id(away) << 10) | (u32::from(new_queue) << 1);
        let hwsp = u64::from(self.regs.get(e.base + self.er.hws_pga) & 0xffff_f000);
        let entry = hwsp + 4 * (CSB_HWSP_DWORD + 2 * u64::from(next));
        let mut mem = self.memory(i);
        // The status page is the driver's: a missing one loses the entry,
        // the MMIO copy and the pointer still show it.
        let _ = mem.write_u32(Space::Ggtt, entry, low);
        let _ = mem.write_u32(Space::Ggtt, entry + 4, high);
        let _ = mem.write_u32(Space::Ggtt, hwsp + 4 * CSB_WRITE_DWORD, next);
        self.regs.set(e.base + CSB_MMIO + 8 * next, low);
        self.regs.set(e.base + CSB_MMIO + 8 * next + 4, high);
        self.regs
            .set(ptr_reg, (self.regs.get(ptr_reg) & !0xf) | next);
        self.raise(i, CONTEXT_SWITCH_BIT);
    }

    pub(super) fn raise(&mut self, i: usize, bit: u32) {
        self.irq.raise(&self.regs, &self.engines, i, bit);
    }

    /// The running context's ring emptied: save it, then run the queued one or go idle.
    fn complete(&mut self, i: usize) {
        let Some(done) = self.state[i].active else {
            return;
        };
        if let Err(h) = self.save(i, done) {
            return self.halt(i, h);
        }
        let next = self.state[i].queued.take();
        if let Some(n) = next
            && let Err(h) = self.restore(i, n, false)
        {
            self.state[i].active = None;
            return self.halt(i, h);
        }
        self.state[i].active = next;
        self.set_status(i);
        self.csb_event(i, next, Some(done), false);
    }

    /// Runs engine `i` for at most `budget` commands.
    pub(super) fn run_engine(&mut self, i: usize, budget: u32) {
        // A stopped ring (RING_MI_MODE STOP_RING) executes nothing.
        let mi_mode = self.engines[i].base + self.er.mi_mode;
        if self.regs.get(mi_mode) & super::STOP_RING != 0 {
            return;
        }
        let mut n = 0;
        while n < budget && self.state[i].halted.is_none() && self.state[i].active.is_some() {
            let e = &self.state[i];
            let base = self.engines[i].base;
            let head = self.regs.get(base + self.er.head) & 0x001f_fffc;
            let tail = self.regs.get(base + self.er.tail) & 0x001f_fff8;
            let ring_valid = self.regs.get(base + self.er.ctl) & 1 == 1;
            if e.batch.is_none() && (head == tail || !ring_valid) {
                self.complete(i);
                continue;
            }
            n += 1;
            match self.step(i) {
                Ok(true) => {}
                // Waiting on a semaphore: try again on the next run.
                Ok(false) => break,
                Err(h) => self.halt(i, h),
            }
        }
    }

    /// Stops engine `i` with an error: RING_EIR/ESR, IPEHR/IPEIR, the fault
    /// record for a page fault, and the CS error interrupt unless EMR masks it.
    pub(super) fn halt(&mut self, i: usize, halt: Halt) {
        let base = self.engines[i].base;
        let er = self.er;
        let (dw0, eir) = match halt {
            Halt::InstructionError { dw0 }
            | Halt::Unmodelled { dw0, .. }
            | Halt::Kernel { dw0 } => (dw0, EIR_INSTRUCTION),
            Halt::PageFault { .. } => (0, EIR_PAGE_TABLE),
        };
        if let Halt::Unmodelled { dw0, .. } = halt {
            self.state[i].unmodelled = dw0;
            self.stats.unmodelled += 1;
        }
        if let Halt::PageFault { gfx_addr, space } = halt {
            self.record_fault(i, gfx_addr, space);
        }
        self.state[i].halted = Some(halt);
        self.stats.errors += 1;
        self.regs
            .set(base + er.eir, self.regs.get(base + er.eir) | eir);
        self.regs
            .set(base + er.esr, self.regs.get(base + er.esr) | eir);
        self.regs.set(base + er.ipehr, dw0);
        self.regs.set(base + er.ipeir, eir);
        if self.regs.get(base + er.emr) & eir == 0 {
            self.raise(i, ERROR_BIT);
        }
    }

    /// The fault registers as i915 reads them (gt/intel_gt.c
    /// gen8_check_faults / xehp_check_faults): GEN12_RING_FAULT_REG valid
    /// (0), GTT select (11) and engine ID (14:12, the model puts the engine
    /// class there: i915 only prints it); GEN12_FAULT_TLB_DATA0 the page
    /// (address 43:12), DATA1 bits 3:0 address 47:44 and bit 4 FAULT_GTT_SEL.
    fn record_fault(&mut self, i: usize, gfx: u64, space: Space) {
        let ggtt = u32::from(space == Space::Ggtt);
        let gt = self.gt;
        let class = self.engines[i].class & 7;
        self.regs.set(gt.fault, (class << 12) | (ggtt << 11) | 1);
        self.regs.set(gt.fault_data0, (gfx >> 12) as u32);
        self.regs
            .set(gt.fault_data1, ((gfx >> 44) as u32 & 0xf) | (ggtt << 4));
    }
}

/// Engine position for ACTHD: the batch address, or ring start + head.
pub(super) fn position(batch: Option<Batch>, start: u32, head: u32) -> u64 {
    match batch {
        Some(b) => b.addr,
        None => u64::from(start) + u64::from(head),
    }
}
