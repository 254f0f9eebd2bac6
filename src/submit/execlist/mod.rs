//! Gen12.5 (DG2) submission through execlists: a logical ring context per
//! driver context and engine, submitted through the execlist submit queue
//! (RING_EXECLIST_SQ_CONTENTS, then EL_CTRL_LOAD in RING_EXECLIST_CONTROL:
//! Linux Xe xe_execlist.c __start_lrc, i915 execlists_submit_ports), context
//! status events read from the engine's status page, seqnos written by the
//! breadcrumb after each batch, waits with hang detection, and engine reset
//! with the error state captured first.
//!
//! Every context has its own four-level PPGTT ([`Ppgtt4`]); each engine
//! also has a kernel context (an empty PPGTT) that runs GGTT batches. A
//! buffer lives in system memory (DMA from the platform) or in local memory
//! (reached by the CPU only through [`LocalMemory`], the BAR2 aperture).

mod lrc;
mod regs;

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use baregpu_hal::gen12_5::commands as c;
use baregpu_hal::{DeviceIo, Generation, Mmio, Packet};

use super::buffer::{Buffer, Memory, Placement};
use super::engines::{ErrorRegs, RingRegs};
use super::error::{ErrorState, FaultRecord, HangReason, Unmodelled};
use super::{Batch, ContextId, EngineId, EngineInfo, Fence, GpuError};
use crate::bringup::BringUpReport;
use crate::gtt::gen12::{Backing, Ggtt64, PageSize, Ppgtt4, huge_alignment};
use crate::gtt::{GfxAddr, Mapping, PAGE, ranges::PageRanges};
use crate::irq::{InterruptMode, Signalled};
use crate::platform::{Dma, LocalMemory, Platform, PlatformError};
use regs::{EngineRegs, GtRegs};

/// Status-page dwords: the context status buffer from 0x10 (12 entries of
/// two dwords) and its write pointer at 0x2f (i915 intel_engine.h
/// I915_HWS_CSB_BUF0_INDEX, INTEL_HWS_CSB_WRITE_INDEX, GEN11_CSB_ENTRIES);
/// the seqno at 0x40 (I915_GEM_HWS_SEQNO).
/// GU_CNTL and its LMEM_INIT bit, set once the boot firmware has trained
/// local memory (Linux i915_reg.h `GU_CNTL` 0x101010, `LMEM_INIT` bit 7).
const GU_CNTL: u32 = 0x10_1010;
const GU_CNTL_LMEM_INIT: u32 = 1 << 7;
const CSB_DWORD: usize = 0x10;
const CSB_WRITE_DWORD: usize = 0x2f;
const CSB_ENTRIES: u32 = 12;
const SEQNO_DWORD: usize = 0x40;
/// Xe_HP's idle context ID in CSB entries (i915 XEHP_IDLE_CTX_ID).
const IDLE_ID: u32 = 0xffff;
/// Ring of each context: 16 KiB.
const RING_BYTES: u32 = 16 << 10;
/// Polling interval and the limits of the driver's own waits.
const POLL_US: u64 = 10;
const REGISTER_WAIT_US: u64 = 500_000;
const RING_SPACE_US: u64 = 2_000_000;
/// Masked-register writes: the enable mask in 31:16.
const fn masked_on(bit: u32) -> u32 {
    bit << 16 | bit
}
const fn masked_off(bit: u32) -> u32 {
    bit << 16
}
/// RING_MODE GEN11_GFX_DISABLE_LEGACY_MODE (bit 3): execlists (i915
/// intel_engine_cs.c / Xe __start_lrc).
const DISABLE_LEGACY_MODE: u32 = 1 << 3;
/// RING_MI_MODE STOP_RING (bit 8) and MODE_IDLE (bit 9).
const STOP_RING: u32 = 1 << 8;
const MODE_IDLE: u32 = 1 << 9;
/// RING_RESET_CTL RESET_CTL_REQUEST_RESET (bit 0), RESET_CTL_READY_TO_RESET (bit 1).
const REQUEST_RESET: u32 = 1 << 0;
const READY_TO_RESET: u32 = 1 << 1;
/// GEN12_RCU_MODE_CCS_ENABLE (bit 0).
const CCS_ENABLE: u32 = 1 << 0;
/// FORCEWAKE_KERNEL (bit 0) of the forcewake request and acknowledge.
const FORCEWAKE_KERNEL: u32 = 1 << 0;
/// Engine interrupt vector bits (i915 gt/intel_gt_regs.h):
/// GT_RENDER_USER_INTERRUPT 0, GT_CS_MASTER_ERROR_INTERRUPT 3,
/// GT_CONTEXT_SWITCH_INTERRUPT 8.
pub const USER_INTERRUPT: u16 = 1 << 0;
pub const ERROR_INTERRUPT: u16 = 1 << 3;
pub const CONTEXT_SWITCH_INTERRUPT: u16 = 1 << 8;
const IRQ_BITS: u32 = (USER_INTERRUPT | ERROR_INTERRUPT | CONTEXT_SWITCH_INTERRUPT) as u32;
/// DG1_MSTR_IRQ / GEN11_MASTER_IRQ (bit 31), GEN11_INTR_DATA_VALID (bit 31).
const MASTER_IRQ: u32 = 1 << 31;
const DATA_VALID: u32 = 1 << 31;

/// An engine the backend drives: its name in the tables, its class
/// (i915 gt/intel_engine_types.h), its GEN6_GDRST domain (GEN11_GRDOM_RENDER
/// 1, which also resets the compute engines, GEN11_GRDOM_BLT 2), its bit of
/// GEN11_GT_INTR_DW0 (GEN11_RCS0 0, GEN12_CCS0 4, GEN11_BCS 15), and its
/// interrupt enable and mask registers with its half of them.
#[derive(Clone, Copy, Debug)]
struct EngineSpec {
    name: &'static str,
    class: u32,
    reset_bit: u32,
    dw0_bit: u32,
}

/// The copy engine class (i915 COPY_ENGINE_CLASS).
const BLITTER_CLASS: u32 = 3;

const ENGINES: [EngineSpec; 3] = [
    EngineSpec {
        name: "render",
        class: 0,
        reset_bit: 1,
        dw0_bit: 0,
    },
    EngineSpec {
        name: "blitter",
        class: 3,
        reset_bit: 2,
        dw0_bit: 15,
    },
    EngineSpec {
        name: "compute",
        class: 5,
        reset_bit: 1,
        dw0_bit: 4,
    },
];

/// A context status event: the context switched to and away from (software
/// IDs, `None` for idle), and whether it came from a new submission (i915
/// intel_execlists_submission.c, Xe_HP layout: low dword 25:10 the ID
/// switched to, high dword 25:10 the ID switched from, high bit 1 new queue).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CsbEvent {
    pub to: Option<u32>,
    pub away: Option<u32>,
    pub new_queue: bool,
}

impl CsbEvent {
    fn decode(low: u32, high: u32) -> Self {
        let id = |v: u32| Some((v >> 10) & 0xffff).filter(|&i| i != IDLE_ID);
        Self {
            to: id(low),
            away: id(high),
            new_queue: high & 2 != 0,
        }
    }
}

/// A context's logical ring context on one engine.
struct Lrc<'a> {
    /// PPHWSP page and register state page.
    image: Dma<'a>,
    lrca: GfxAddr,
    ring: Dma<'a>,
    ring_gfx: GfxAddr,
    /// Where the next dword goes in the ring.
    tail: u32,
    /// The end of the last retired request: the ring is free from here to `tail`.
    head: u32,
    sw_id: u32,
}

struct Context<'a> {
    ppgtt: Ppgtt4<'a>,
    /// One per engine, created on first use.
    lrcs: Vec<Option<Lrc<'a>>>,
}

/// Work submitted and not yet retired.
struct Request<'a> {
    seqno: u32,
    /// The ring tail after its commands: ring space up to here is free once it completes.
    ring_end: u32,
    /// The slot (driver context) whose ring holds it, and that ring.
    slot: usize,
    ring: GfxAddr,
    batch: Batch<'a>,
    /// A GGTT batch's range, given back when the request retires.
    ggtt: Option<(GfxAddr, u64)>,
}

struct Engine<'a> {
    spec: EngineSpec,
    base: u32,
    hwsp: Dma<'a>,
    hwsp_gfx: GfxAddr,
    next_seqno: u32,
    /// The CSB entry read last.
    csb_head: u32,
    events: Vec<CsbEvent>,
    /// The slot whose context the engine runs (`None`: idle).
    running: Option<usize>,
    inflight: VecDeque<Request<'a>>,
    lost: Option<(u32, u32)>,
}

/// The execlist backend of [`crate::Gpu`] for one GPU.
pub struct ExeclistBackend<'a, P: Platform> {
    platform: &'a P,
    device: &'a dyn DeviceIo,
    generation: Generation,
    bring_up: BringUpReport,
    /// The engines as the driver's common API describes them.
    infos: Vec<EngineInfo>,
    local: &'a dyn LocalMemory,
    er: EngineRegs,
    gt: GtRegs,
    ggtt: Ggtt64,
    local_free: PageRanges,
    engines: Vec<Engine<'a>>,
    /// Slot 0..engines: each engine's kernel context; then the driver's contexts.
    contexts: Vec<Option<Context<'a>>>,
    /// The engines' interrupts are unmasked.
    interrupts: bool,
    /// How interrupts reach the OS, once enabled.
    irq: Option<InterruptMode>,
    /// What the interrupt handler has found since the last [`Self::take_signalled`].
    signalled: Signalled,
}

fn pack_err(_: baregpu_hal::PackError) -> GpuError {
    GpuError::BringUp("submission packet does not fit its fields")
}

fn passed(completed: u32, seqno: u32) -> bool {
    completed.wrapping_sub(seqno) as i32 >= 0
}

impl<'a, P: Platform> ExeclistBackend<'a, P> {
    /// Whether `generation` submits through execlists: its register tables
    /// describe the execlist submit queue.
    pub fn drives(generation: Generation) -> bool {
        generation
            .tables()
            .register("RING_EXECLIST_SQ_CONTENTS")
            .is_some()
    }

    /// Brings a Gen12.5 GPU up: bus master, forcewake, the GGTT, the CCS
    /// engines enabled, and each engine in execlist mode with its status page.
    pub fn new(
        platform: &'a P,
        device: &'a dyn DeviceIo,
        generation: Generation,
        local: &'a dyn LocalMemory,
    ) -> Result<Self, GpuError> {
        let tables = generation.tables();
        if !Self::drives(generation) {
            return Err(GpuError::Unsupported(generation));
        }
        let er = EngineRegs::resolve(tables)?;
        let gt = GtRegs::resolve(tables)?;
        let (command_before, command_after) =
            crate::bringup::enable_device(device).map_err(GpuError::BringUp)?;
        // The card's own firmware trains local memory; until it has, the GT
        // stays powered down and nothing below would answer (i915
        // intel_uncore.c intel_uncore_init_mmio and xe xe_mmio.c refuse the
        // device the same way).
        if device.read32(GU_CNTL) & GU_CNTL_LMEM_INIT == 0 {
            return Err(GpuError::BringUp(
                "local memory not initialised by the card's firmware (GU_CNTL 0x101010 LMEM_INIT clear)",
            ));
        }
        let ggtt = Ggtt64::read(device)?;
        let local_pages = local.local_size() / PAGE;
        let bring_up = BringUpReport {
            command_before,
            command_after,
            ggtt_entries: u32::try_from(ggtt.entries()).unwrap_or(u32::MAX),
            // DG2's stolen memory is a part of local memory the driver does not use.
            stolen: None,
            firmware_ranges: Vec::new(),
            scratch: None,
        };
        let mut gpu = Self {
            platform,
            device,
            generation,
            bring_up,
            infos: Vec::new(),
            local,
            er,
            gt,
            ggtt,
            local_free: PageRanges::new(0, local_pages),
            engines: Vec::new(),
            contexts: Vec::new(),
            interrupts: false,
            irq: None,
            signalled: Signalled::default(),
        };
        gpu.forcewake()?;
        // The compute engines take work only with CCS_ENABLE (i915
        // gt/intel_engine_cs.c xehp_enable_ccs_engines; Xe __start_lrc).
        gpu.mmio().write32(gt.rcu_mode, masked_on(CCS_ENABLE));
        for spec in ENGINES {
            let base = tables
                .engine_base(spec.name)
                .ok_or(GpuError::BringUp(spec.name))?;
            let hwsp = Dma::new(platform, PAGE as usize, PAGE as usize)?;
            let hwsp_gfx = gpu.ggtt.map(device, Backing::System(hwsp.phys()), 1)?;
            gpu.infos.push(EngineInfo {
                name: spec.name,
                base,
                ring: RingRegs {
                    tail: er.tail,
                    head: er.head,
                    start: er.start,
                    ctl: er.ctl,
                },
                hws_pga: base + er.hws_pga,
                errors: ErrorRegs {
                    ipeir: base + er.ipeir,
                    ipehr: base + er.ipehr,
                    instdone: base + er.instdone,
                    acthd: base + er.acthd,
                    eir: base + er.eir,
                    emr: base + er.emr,
                    esr: base + er.esr,
                    bb_addr: base + er.bbaddr,
                },
                imr: Some(base + er.imr),
                user_interrupt_bit: spec.dw0_bit,
                reset_bit: spec.reset_bit,
                runs_blits: spec.class == BLITTER_CLASS,
            });
            gpu.engines.push(Engine {
                spec,
                base,
                hwsp,
                hwsp_gfx,
                next_seqno: 1,
                csb_head: CSB_ENTRIES - 1,
                events: Vec::new(),
                running: None,
                inflight: VecDeque::new(),
                lost: None,
            });
            let i = gpu.engines.len() - 1;
            gpu.start_engine(i);
        }
        for _ in 0..gpu.engines.len() {
            let ctx = gpu.new_context()?;
            gpu.contexts.push(Some(ctx));
        }
        Ok(gpu)
    }

    pub fn mmio(&self) -> &'a dyn Mmio {
        self.device
    }

    pub fn generation(&self) -> Generation {
        self.generation
    }

    pub fn device(&self) -> &'a dyn DeviceIo {
        self.device
    }

    pub fn bring_up(&self) -> &BringUpReport {
        &self.bring_up
    }

    pub fn engine_infos(&self) -> &[EngineInfo] {
        &self.infos
    }

    /// Forcewake, render and GT domains: request FORCEWAKE_KERNEL (masked),
    /// wait for the acknowledge (i915 intel_uncore.c fw_domain_get /
    /// fw_domain_wait_ack_set, 50 ms).
    fn forcewake(&self) -> Result<(), GpuError> {
        for (req, ack) in self.gt.forcewake {
            self.mmio().write32(req, masked_on(FORCEWAKE_KERNEL));
            if !self.wait_register(ack, FORCEWAKE_KERNEL, FORCEWAKE_KERNEL, 50_000) {
                return Err(GpuError::Forcewake(super::ForcewakeTimeout {
                    register: ack,
                    step: "the forcewake acknowledge",
                    timeout_ms: 50,
                }));
            }
        }
        Ok(())
    }

    fn wait_register(&self, offset: u32, mask: u32, want: u32, timeout_us: u64) -> bool {
        let start = self.platform.now_ns();
        loop {
            if self.mmio().read32(offset) & mask == want {
                return true;
            }
            if self.platform.now_ns().saturating_sub(start) > timeout_us.saturating_mul(1000) {
                return false;
            }
            self.platform.delay_us(POLL_US);
        }
    }

    /// Between two looks at an engine: with interrupts on, what is pending
    /// is acknowledged (a vector left pending would hold the line high, and
    /// the next completion would send no new MSI) and the CPU sleeps until
    /// the next interrupt or `deadline_ns` ([`Platform::wait_for_interrupt`],
    /// as the ring backend's waits do); without, it polls.
    fn pause(&mut self, deadline_ns: u64) {
        if self.irq.is_some() {
            self.platform.wait_for_interrupt(deadline_ns);
            self.handle_interrupt();
        } else {
            self.platform.delay_us(POLL_US);
        }
    }

    /// An engine into execlist mode: its status page (RING_HWS_PGA, posted
    /// by a read), GFX_DISABLE_LEGACY_MODE, STOP_RING cleared, and the CSB
    /// read pointer at the last entry with the status page's write pointer
    /// the same (i915 intel_execlists_submission.c enable_execlists,
    /// reset_csb_pointers: after a reset the hardware writes entry 0 first).
    fn start_engine(&mut self, i: usize) {
        let mmio = self.mmio();
        let (er, e) = (self.er, &mut self.engines[i]);
        mmio.write32(e.base + er.hws_pga, e.hwsp_gfx.0 as u32);
        let _ = mmio.read32(e.base + er.hws_pga);
        mmio.write32(e.base + er.ring_mode, masked_on(DISABLE_LEGACY_MODE));
        mmio.write32(e.base + er.mi_mode, masked_off(STOP_RING));
        e.csb_head = CSB_ENTRIES - 1;
        let _ = e.hwsp.write_u32(CSB_WRITE_DWORD, CSB_ENTRIES - 1);
        e.running = None;
        if self.interrupts {
            mmio.write32(e.base + er.imr, !IRQ_BITS);
        }
    }

    fn new_context(&mut self) -> Result<Context<'a>, GpuError> {
        Ok(Context {
            ppgtt: Ppgtt4::new(self.platform)?,
            lrcs: (0..self.engines.len()).map(|_| None).collect(),
        })
    }

    /// A new context with its own PPGTT: buffers mapped in it are invisible
    /// to every other context.
    pub fn create_context(&mut self) -> Result<ContextId, GpuError> {
        let ctx = self.new_context()?;
        if let Some(free) = self
            .contexts
            .iter()
            .skip(self.engines.len())
            .position(Option::is_none)
        {
            let slot = free + self.engines.len();
            self.contexts[slot] = Some(ctx);
            return Ok(ContextId(slot));
        }
        self.contexts.push(Some(ctx));
        Ok(ContextId(self.contexts.len() - 1))
    }

    /// Destroys a context once every engine is done with it: its images,
    /// rings and page tables go back to the platform. Its buffers must be
    /// dropped by the caller (their addresses mean nothing any more).
    pub fn destroy_context(&mut self, ctx: ContextId) -> Result<(), GpuError> {
        if ctx.0 < self.engines.len() || self.contexts.get(ctx.0).is_none_or(Option::is_none) {
            return Err(GpuError::NoContext(ctx));
        }
        for i in 0..self.engines.len() {
            if let Some(last) = self.engines[i]
                .inflight
                .iter()
                .rev()
                .find(|r| r.slot == ctx.0)
                .map(|r| r.seqno)
            {
                self.wait(
                    Fence {
                        engine: EngineId(i),
                        seqno: last,
                    },
                    RING_SPACE_US,
                )?;
            }
            self.switched_out(i, ctx.0)?;
        }
        let Some(mut c) = self.contexts[ctx.0].take() else {
            return Err(GpuError::NoContext(ctx));
        };
        for lrc in c.lrcs.drain(..).flatten() {
            self.ggtt.unmap(self.device, lrc.lrca, 2);
            self.ggtt
                .unmap(self.device, lrc.ring_gfx, u64::from(RING_BYTES) / PAGE);
        }
        Ok(())
    }

    /// Waits until engine `i` has reported switching away from `slot` (the
    /// CSB event that follows the context's last seqno write: the engine
    /// has saved the image and reads it no more). A context that stays on
    /// is a hang: the engine is reset.
    fn switched_out(&mut self, i: usize, slot: usize) -> Result<(), GpuError> {
        let start = self.platform.now_ns();
        let eir = self.engines[i].base + self.er.eir;
        loop {
            let _ = self.mmio().read32(eir);
            self.process_csb(i);
            if self.engines[i].running != Some(slot) {
                return Ok(());
            }
            if self.platform.now_ns().saturating_sub(start) > RING_SPACE_US * 1000 {
                let e = &self.engines[i];
                let (done, want) = (self.completed(EngineId(i)), e.next_seqno.wrapping_sub(1));
                return Err(self.hang(i, HangReason::Timeout, done, want));
            }
            self.pause(start + RING_SPACE_US * 1000 + 1);
        }
    }

    fn ppgtt(&mut self, ctx: ContextId) -> Result<&mut Ppgtt4<'a>, GpuError> {
        if ctx.0 < self.engines.len() {
            return Err(GpuError::NoContext(ctx));
        }
        self.contexts
            .get_mut(ctx.0)
            .and_then(Option::as_mut)
            .map(|c| &mut c.ppgtt)
            .ok_or(GpuError::NoContext(ctx))
    }

    /// How `gfx` is mapped in `ctx`'s PPGTT (`None`: not mapped).
    pub fn context_page_size(
        &mut self,
        ctx: ContextId,
        gfx: GfxAddr,
    ) -> Result<Option<PageSize>, GpuError> {
        Ok(self.ppgtt(ctx)?.page_size(gfx))
    }

    /// Memory of `bytes` (whole pages) in `placement`, aligned so that a
    /// PPGTT mapping can use the largest page that fits ([`huge_alignment`];
    /// a platform that cannot align that far gives page-aligned memory,
    /// mapped with smaller pages).
    fn memory(
        &mut self,
        bytes: u64,
        placement: Placement,
    ) -> Result<(Memory<'a>, Backing), GpuError> {
        let pages = bytes.max(1).div_ceil(PAGE);
        let align = huge_alignment(pages * PAGE);
        match placement {
            Placement::System => {
                let size =
                    usize::try_from(pages * PAGE).map_err(|_| PlatformError::InvalidRequest)?;
                let d = match Dma::new(self.platform, size, align as usize) {
                    Ok(d) => d,
                    Err(_) => Dma::new(self.platform, size, PAGE as usize)?,
                };
                let b = Backing::System(d.phys());
                Ok((Memory::System(d), b))
            }
            Placement::Local => {
                if self.local.local_size() == 0 {
                    return Err(GpuError::NoLocalMemory);
                }
                let first = self
                    .local_free
                    .allocate_aligned(pages, align / PAGE)
                    .or_else(|_| self.local_free.allocate(pages))
                    .map_err(|_| GpuError::Platform(PlatformError::OutOfMemory))?;
                let offset = first * PAGE;
                // New buffers read as zero, as DMA memory does.
                let zero = [0u8; PAGE as usize];
                for k in 0..pages {
                    if !self.local.write_local(offset + k * PAGE, &zero) {
                        self.local_free.release(first, pages);
                        return Err(GpuError::Platform(PlatformError::Unmappable));
                    }
                }
                Ok((
                    Memory::Local {
                        offset,
                        local: self.local,
                    },
                    Backing::Local(offset),
                ))
            }
        }
    }

    /// A buffer of `bytes` in `placement`, mapped in the GGTT (its local-memory pages with GEN12_GGTT_PTE_LM).
    pub fn buffer(&mut self, bytes: u64, placement: Placement) -> Result<Buffer<'a>, GpuError> {
        let (memory, backing) = self.memory(bytes, placement)?;
        let pages = bytes.max(1).div_ceil(PAGE);
        let gfx = match self.ggtt.map(self.device, backing, pages) {
            Ok(gfx) => gfx,
            Err(e) => {
                self.release_local(&memory, pages);
                return Err(e.into());
            }
        };
        Ok(Buffer {
            gfx,
            bytes: pages * PAGE,
            memory,
            context: None,
        })
    }

    /// A buffer of `bytes` in `placement`, mapped in `ctx`'s PPGTT only: at
    /// exactly `at` when given (an error when unaligned, in use (page 0
    /// always is) or beyond the 48-bit space).
    pub fn context_buffer(
        &mut self,
        ctx: ContextId,
        at: Option<GfxAddr>,
        bytes: u64,
        placement: Placement,
    ) -> Result<Buffer<'a>, GpuError> {
        self.ppgtt(ctx)?;
        let (memory, backing) = self.memory(bytes, placement)?;
        let pages = bytes.max(1).div_ceil(PAGE);
        let platform = self.platform;
        let ppgtt = self.ppgtt(ctx)?;
        let mapped = match at {
            Some(gfx) => ppgtt.map_at(platform, backing, gfx, pages).map(|_| gfx),
            None => ppgtt.map(platform, backing, pages),
        };
        match mapped {
            Ok(gfx) => Ok(Buffer {
                gfx,
                bytes: pages * PAGE,
                memory,
                context: Some(ctx),
            }),
            Err(e) => {
                self.release_local(&memory, pages);
                Err(e.into())
            }
        }
    }

    /// Gives back the local memory of a buffer that could not be mapped.
    fn release_local(&mut self, memory: &Memory<'a>, pages: u64) {
        if let Memory::Local { offset, .. } = memory {
            self.local_free.release(offset / PAGE, pages);
        }
    }

    /// System memory mapped in the GGTT.
    pub fn map_buffer(&mut self, bytes: usize) -> Result<(Dma<'a>, Mapping), GpuError> {
        let buffer = self.buffer(bytes as u64, Placement::System)?;
        let mapping = Mapping {
            gfx: buffer.gfx,
            pages: buffer.bytes / PAGE,
        };
        match buffer.memory {
            Memory::System(d) => Ok((d, mapping)),
            Memory::Local { .. } => Err(GpuError::BringUp("system memory came back local")),
        }
    }

    /// Gives back a GGTT range from [`Self::map_buffer`].
    pub fn unmap(&mut self, mapping: Mapping) {
        self.ggtt.unmap(self.device, mapping.gfx, mapping.pages);
    }

    /// System memory mapped in `ctx`'s PPGTT (at `at` when given).
    fn map_system_in_context(
        &mut self,
        ctx: ContextId,
        at: Option<GfxAddr>,
        bytes: usize,
    ) -> Result<(Dma<'a>, GfxAddr), GpuError> {
        let buffer = self.context_buffer(ctx, at, bytes as u64, Placement::System)?;
        match buffer.memory {
            Memory::System(d) => Ok((d, buffer.gfx)),
            Memory::Local { .. } => Err(GpuError::BringUp("system memory came back local")),
        }
    }

    pub fn map_in_context(
        &mut self,
        ctx: ContextId,
        bytes: usize,
    ) -> Result<(Dma<'a>, GfxAddr), GpuError> {
        self.map_system_in_context(ctx, None, bytes)
    }

    pub fn map_in_context_at(
        &mut self,
        ctx: ContextId,
        gfx: GfxAddr,
        bytes: usize,
    ) -> Result<(Dma<'a>, GfxAddr), GpuError> {
        self.map_system_in_context(ctx, Some(gfx), bytes)
    }

    /// A batch the caller placed in system memory mapped at `region_gfx`
    /// (GGTT, or `context`'s PPGTT): see [`crate::Gpu::placed_batch`].
    ///
    /// # Safety
    /// `memory` must stay alive and mapped until the batch's fence
    /// completes, the engine is reset, or the backend is dropped.
    pub unsafe fn placed_batch(
        &self,
        memory: &Dma<'_>,
        region_gfx: GfxAddr,
        start: GfxAddr,
        context: Option<ContextId>,
        decode_bytes: usize,
    ) -> Option<Batch<'a>> {
        let offset = usize::try_from(start.0.checked_sub(region_gfx.0)?).ok()?;
        if !offset.is_multiple_of(4) {
            return None;
        }
        let view = memory.region().tail(offset)?;
        Some(Batch {
            region: view,
            memory: None,
            gfx: start,
            ggtt_mapping: None,
            context,
            len: decode_bytes.min(view.size) / 4,
            batch_end: c::MiBatchBufferEnd::HEADER_VALUE,
            noop: c::MiNoop::HEADER_VALUE,
        })
    }

    /// Gives a buffer's graphics range (and local memory) back. Call it once
    /// no submitted work uses the buffer.
    pub fn free_buffer(&mut self, buffer: Buffer<'a>) {
        let pages = buffer.bytes / PAGE;
        match buffer.context {
            None => self.ggtt.unmap(self.device, buffer.gfx, pages),
            Some(ctx) => {
                if let Ok(p) = self.ppgtt(ctx) {
                    p.unmap(buffer.gfx, pages);
                }
            }
        }
        if let Memory::Local { offset, .. } = buffer.memory {
            self.local_free.release(offset / PAGE, pages);
        }
    }

    fn batch_of(&self, memory: Dma<'a>, gfx: GfxAddr, context: Option<ContextId>) -> Batch<'a> {
        Batch {
            region: memory.region(),
            memory: Some(memory),
            gfx,
            ggtt_mapping: None,
            context,
            len: 0,
            batch_end: c::MiBatchBufferEnd::HEADER_VALUE,
            noop: c::MiNoop::HEADER_VALUE,
        }
    }

    /// A batch in system memory mapped in the GGTT: it runs in the engine's kernel context.
    pub fn new_batch(&mut self, bytes: usize) -> Result<Batch<'a>, GpuError> {
        let size = bytes.max(PAGE as usize).next_multiple_of(PAGE as usize);
        let memory = Dma::new(self.platform, size, PAGE as usize)?;
        let gfx = self.ggtt.map(
            self.device,
            Backing::System(memory.phys()),
            size as u64 / PAGE,
        )?;
        Ok(self.batch_of(memory, gfx, None))
    }

    /// A batch mapped in `ctx`'s PPGTT, run in that context (a non-privileged PPGTT batch).
    pub fn new_context_batch(
        &mut self,
        ctx: ContextId,
        bytes: usize,
    ) -> Result<Batch<'a>, GpuError> {
        let size = bytes.max(PAGE as usize).next_multiple_of(PAGE as usize);
        let memory = Dma::new(self.platform, size, PAGE as usize)?;
        let platform = self.platform;
        let phys = memory.phys();
        let gfx = self
            .ppgtt(ctx)?
            .map(platform, Backing::System(phys), size as u64 / PAGE)?;
        Ok(self.batch_of(memory, gfx, Some(ctx)))
    }

    /// The LRC of `slot` on engine `i`, created on first use.
    fn lrc(&mut self, slot: usize, i: usize) -> Result<&mut Lrc<'a>, GpuError> {
        let exists = self
            .contexts
            .get(slot)
            .and_then(Option::as_ref)
            .ok_or(GpuError::NoContext(ContextId(slot)))?
            .lrcs[i]
            .is_some();
        if !exists {
            let image = Dma::new(self.platform, 2 * PAGE as usize, PAGE as usize)?;
            let ring = Dma::new(self.platform, RING_BYTES as usize, PAGE as usize)?;
            let lrca = self
                .ggtt
                .map(self.device, Backing::System(image.phys()), 2)?;
            let ring_gfx = self.ggtt.map(
                self.device,
                Backing::System(ring.phys()),
                u64::from(RING_BYTES) / PAGE,
            )?;
            let pml4 = self.contexts[slot].as_ref().map_or(0, |c| c.ppgtt.pml4().0);
            let state = lrc::state(
                &self.er,
                self.engines[i].base,
                ring_gfx.0 as u32,
                RING_BYTES,
                pml4,
            );
            for (k, d) in state.iter().enumerate() {
                let _ = image.write_u32(1024 + k, *d);
            }
            let lrc = Lrc {
                image,
                lrca,
                ring,
                ring_gfx,
                tail: 0,
                head: 0,
                // A software ID per (context, engine) pair, unique on the engine.
                sw_id: slot as u32 + 1,
            };
            if let Some(c) = self.contexts[slot].as_mut() {
                c.lrcs[i] = Some(lrc);
            }
        }
        self.contexts[slot]
            .as_mut()
            .and_then(|c| c.lrcs[i].as_mut())
            .ok_or(GpuError::NoContext(ContextId(slot)))
    }

    /// Reads the context status events the engine wrote since the last look
    /// (i915 process_csb: from the read pointer up to the status page's
    /// write pointer).
    fn process_csb(&mut self, i: usize) {
        let e = &mut self.engines[i];
        let write = e.hwsp.read_u32(CSB_WRITE_DWORD).unwrap_or(e.csb_head);
        if write >= CSB_ENTRIES {
            return;
        }
        while e.csb_head != write {
            e.csb_head = (e.csb_head + 1) % CSB_ENTRIES;
            let at = CSB_DWORD + 2 * e.csb_head as usize;
            let low = e.hwsp.read_u32(at).unwrap_or(0);
            let high = e.hwsp.read_u32(at + 1).unwrap_or(0);
            let ev = CsbEvent::decode(low, high);
            e.events.push(ev);
            // Software IDs are slot + 1; an ID the driver never gave is no slot of its own.
            e.running = ev.to.and_then(|id| (id as usize).checked_sub(1));
        }
    }

    /// The context status events seen on `engine` so far, oldest first.
    pub fn csb_events(&mut self, engine: EngineId) -> Result<Vec<CsbEvent>, GpuError> {
        let base = self
            .engines
            .get(engine.0)
            .ok_or(GpuError::NoEngine(engine))?
            .base;
        let _ = self.mmio().read32(base + self.er.eir);
        self.process_csb(engine.0);
        Ok(self.engines[engine.0].events.clone())
    }

    /// The software context ID a driver context has on the engines (what CSB events name).
    pub fn context_sw_id(&self, ctx: Option<ContextId>, engine: EngineId) -> u32 {
        ctx.map_or(engine.0, |c| c.0) as u32 + 1
    }

    /// The last seqno `engine` completed.
    pub fn completed(&self, engine: EngineId) -> u32 {
        self.engines
            .get(engine.0)
            .map_or(0, |e| e.hwsp.read_u32(SEQNO_DWORD).unwrap_or(0))
    }

    /// Ring bytes free in the slot's ring on engine `i` behind `tail`: up
    /// to the end of the last retired request, less a gap (head and tail
    /// never share a cacheline).
    fn ring_free(&self, i: usize, slot: usize, tail: u32) -> u32 {
        let head = self
            .contexts
            .get(slot)
            .and_then(Option::as_ref)
            .and_then(|c| c.lrcs[i].as_ref())
            .map_or(tail, |l| l.head);
        // `tail` and `head` are below RING_BYTES: no underflow.
        (head + 2 * RING_BYTES - tail - 64) % RING_BYTES
    }

    /// Submits a batch to `engine`; returns its fence. A batch of a context
    /// other than the one the engine runs waits for the engine to go idle
    /// first (the model and this driver do not preempt).
    pub fn submit(&mut self, engine: EngineId, mut batch: Batch<'a>) -> Result<Fence, GpuError> {
        let i = engine.0;
        if i >= self.engines.len() {
            return Err(GpuError::NoEngine(engine));
        }
        let slot = batch.context.map_or(i, |c| c.0);
        if slot < self.engines.len() && batch.context.is_some() {
            return Err(GpuError::NoContext(ContextId(slot)));
        }
        let ggtt_batch = batch.context.is_none();
        self.lrc(slot, i)?;
        // Another context on the engine: let its work finish first.
        let _ = self.mmio().read32(self.engines[i].base + self.er.eir);
        self.process_csb(i);
        if let Some(other) = self.engines[i].running.filter(|&s| s != slot)
            && let Some(last) = self.engines[i]
                .inflight
                .iter()
                .rev()
                .find(|r| r.slot == other)
                .map(|r| r.seqno)
            && let Err(e) = self.wait(
                Fence {
                    engine,
                    seqno: last,
                },
                RING_SPACE_US,
            )
        {
            self.release_batch(&batch);
            return Err(e);
        }
        let e = &mut self.engines[i];
        let seqno = e.next_seqno;
        e.next_seqno = e.next_seqno.wrapping_add(1).max(1);
        let seqno_gfx = e.hwsp_gfx.0 + 4 * SEQNO_DWORD as u64;
        let render_like = e.spec.class != BLITTER_CLASS;
        batch.finish();
        let mut cmds = [0u32; 24];
        let mut n = 0;
        n += c::MiBatchBufferStart {
            batch_buffer_start_address: batch.gfx().0,
            address_space_indicator: if ggtt_batch {
                c::MiBatchBufferStart::ADDRESS_SPACE_INDICATOR_GGTT
            } else {
                c::MiBatchBufferStart::ADDRESS_SPACE_INDICATOR_PPGTT
            },
            ..Default::default()
        }
        .pack(&mut cmds[n..])
        .map_err(pack_err)?;
        // The breadcrumb (i915 gt/gen8_engine_cs.c
        // gen12_emit_fini_breadcrumb_rcs / _xcs): a stalling PIPE_CONTROL
        // with a post-sync write of the seqno on render and compute,
        // MI_FLUSH_DW with a post-sync store on the copy engine; then
        // MI_USER_INTERRUPT.
        n += if render_like {
            c::PipeControl {
                command_streamer_stall_enable: true,
                post_sync_operation: c::PipeControl::POST_SYNC_OPERATION_WRITE_IMMEDIATE_DATA,
                use_global_gtt: true,
                address: seqno_gfx,
                immediate_data: u64::from(seqno),
                ..Default::default()
            }
            .pack(&mut cmds[n..])
        } else {
            c::MiFlushDw {
                post_sync_operation: c::MiFlushDw::POST_SYNC_OPERATION_WRITE_IMMEDIATE_DATA,
                use_global_gtt: true,
                destination_address: seqno_gfx,
                immediate_data_low: seqno,
                ..Default::default()
            }
            .pack(&mut cmds[n..])
        }
        .map_err(pack_err)?;
        cmds[n] = c::MiUserInterrupt::HEADER_VALUE;
        n += 1;
        if n % 2 == 1 {
            cmds[n] = c::MiNoop::HEADER_VALUE;
            n += 1;
        }
        let bytes = 4 * n as u32;
        // Room in the ring (a wrap pads the end with MI_NOOP).
        let start = self.platform.now_ns();
        loop {
            let tail = self.lrc(slot, i)?.tail;
            let need = if tail + bytes > RING_BYTES {
                RING_BYTES - tail + bytes
            } else {
                bytes
            };
            if self.ring_free(i, slot, tail) >= need {
                break;
            }
            if self.platform.now_ns().saturating_sub(start) > RING_SPACE_US * 1000 {
                let (done, want) = (self.completed(engine), seqno);
                self.release_batch(&batch);
                return Err(self.hang(i, HangReason::Timeout, done, want));
            }
            let _ = self.mmio().read32(self.engines[i].base + self.er.eir);
            self.retire(i);
            self.pause(start + RING_SPACE_US * 1000 + 1);
        }
        let lrc = self.lrc(slot, i)?;
        let mut tail = lrc.tail;
        if tail + bytes > RING_BYTES {
            while tail < RING_BYTES {
                let _ = lrc
                    .ring
                    .write_u32(tail as usize / 4, c::MiNoop::HEADER_VALUE);
                tail += 4;
            }
            tail = 0;
        }
        for d in &cmds[..n] {
            let _ = lrc.ring.write_u32(tail as usize / 4, *d);
            tail += 4;
        }
        lrc.tail = tail % RING_BYTES;
        let _ = lrc.image.write_u32(1024 + lrc::CTX_RING_TAIL, lrc.tail);
        let desc = lrc::descriptor(lrc.lrca.0, lrc.sw_id);
        let ring_end = lrc.tail;
        let ring = lrc.ring_gfx;
        let ggtt =
            (ggtt_batch && !batch.placed()).then(|| (batch.gfx(), batch.region.size as u64 / PAGE));
        self.engines[i].inflight.push_back(Request {
            seqno,
            ring_end,
            slot,
            ring,
            batch,
            ggtt,
        });
        // The submit queue: element 0 the context, element 1 invalid; the
        // low dword first (Xe __start_lrc, i915 execlists_submit_ports).
        let (mmio, base) = (self.mmio(), self.engines[i].base);
        let sq = base + self.er.sq_contents;
        mmio.write32(sq, desc as u32);
        mmio.write32(sq + 4, (desc >> 32) as u32);
        mmio.write32(sq + 8, 0);
        mmio.write32(sq + 12, 0);
        // EL_CTRL_LOAD (bit 0).
        mmio.write32(base + self.er.execlist_control, 1);
        self.engines[i].running = Some(slot);
        Ok(Fence { engine, seqno })
    }

    fn retire(&mut self, i: usize) {
        let done = self.completed(EngineId(i));
        while self.engines[i]
            .inflight
            .front()
            .is_some_and(|r| passed(done, r.seqno))
        {
            if let Some(r) = self.engines[i].inflight.pop_front() {
                self.retire_request(r);
            }
        }
    }

    /// Gives back the graphics range of a batch that will not run (a placed
    /// batch's range is the caller's).
    fn release_batch(&mut self, batch: &Batch<'a>) {
        if batch.placed() {
            return;
        }
        let pages = batch.region.size as u64 / PAGE;
        match batch.context {
            None => self.ggtt.unmap(self.device, batch.gfx(), pages),
            Some(ctx) => {
                if let Ok(p) = self.ppgtt(ctx) {
                    p.unmap(batch.gfx(), pages);
                }
            }
        }
    }

    fn retire_request(&mut self, r: Request<'a>) {
        if let Some(Some(c)) = self.contexts.get_mut(r.slot) {
            for l in c.lrcs.iter_mut().flatten() {
                if l.ring_gfx == r.ring {
                    l.head = r.ring_end;
                }
            }
        }
        if let Some((gfx, pages)) = r.ggtt {
            self.ggtt.unmap(self.device, gfx, pages);
        }
        if let (Some(ctx), false) = (r.batch.context, r.batch.placed())
            && let Ok(p) = self.ppgtt(ctx)
        {
            p.unmap(r.batch.gfx(), r.batch.region.size as u64 / PAGE);
        }
    }

    /// Whether the fence has completed (without waiting).
    pub fn poll(&mut self, fence: Fence) -> bool {
        if let Some(e) = self.engines.get(fence.engine.0) {
            let _ = self.mmio().read32(e.base + self.er.eir);
        }
        passed(self.completed(fence.engine), fence.seqno)
    }

    /// Waits for a fence: `Ok` once its seqno is written; on an engine error
    /// or after `timeout_us` without completion, the error state is
    /// captured and decoded, the engine reset and restarted, and
    /// [`GpuError::Hang`] returned. Work queued behind it is [`GpuError::Lost`].
    pub fn wait(&mut self, fence: Fence, timeout_us: u64) -> Result<(), GpuError> {
        let i = fence.engine.0;
        if i >= self.engines.len() {
            return Err(GpuError::NoEngine(fence.engine));
        }
        if let Some((a, b)) = self.engines[i].lost
            && fence.seqno.wrapping_sub(a) <= b.wrapping_sub(a)
        {
            return Err(GpuError::Lost(fence));
        }
        let start = self.platform.now_ns();
        let limit = timeout_us.saturating_mul(1000);
        let eir = self.engines[i].base + self.er.eir;
        if self.irq.is_some() {
            self.handle_interrupt();
        }
        loop {
            let err = self.mmio().read32(eir);
            self.process_csb(i);
            let done = self.completed(fence.engine);
            if err != 0 {
                return Err(self.hang(i, HangReason::EngineError, done, fence.seqno));
            }
            if passed(done, fence.seqno) {
                self.retire(i);
                return Ok(());
            }
            if self.platform.now_ns().saturating_sub(start) > limit {
                return Err(self.hang(i, HangReason::Timeout, done, fence.seqno));
            }
            self.pause(start.saturating_add(limit).saturating_add(1));
        }
    }

    /// Captures the engine's error state, resets it (and the engines that
    /// share its reset domain) and restarts them; the work they had queued is lost.
    fn hang(&mut self, i: usize, reason: HangReason, completed: u32, waited_for: u32) -> GpuError {
        let state = self.capture(i, reason, completed, waited_for);
        let mmio = self.mmio();
        let (er, base) = (self.er, self.engines[i].base);
        // Acknowledge what was captured (write one to clear, as i915's
        // intel_engine_print_registers' users and gen8 clear_error_registers do).
        mmio.write32(base + er.eir, state.eir);
        // i915 intel_reset.c: stop the ring (RING_MI_MODE STOP_RING, wait
        // for MODE_IDLE), then ask the engine to get ready
        // (gen8_engine_reset_prepare: RESET_CTL_REQUEST_RESET, wait
        // READY_TO_RESET), then the domain's GEN6_GDRST bit until it clears.
        mmio.write32(base + er.mi_mode, masked_on(STOP_RING));
        let _ = self.wait_register(base + er.mi_mode, MODE_IDLE, MODE_IDLE, REGISTER_WAIT_US);
        mmio.write32(base + er.reset_ctl, masked_on(REQUEST_RESET));
        let _ = self.wait_register(
            base + er.reset_ctl,
            READY_TO_RESET,
            READY_TO_RESET,
            REGISTER_WAIT_US,
        );
        let bit = 1 << self.engines[i].spec.reset_bit;
        mmio.write32(self.gt.gdrst, bit);
        let _ = self.wait_register(self.gt.gdrst, bit, 0, REGISTER_WAIT_US);
        mmio.write32(base + er.reset_ctl, masked_off(REQUEST_RESET));
        // The fault record is acknowledged by clearing its valid bit.
        mmio.write32(self.gt.fault, 0);
        let domain = self.engines[i].spec.reset_bit;
        for k in 0..self.engines.len() {
            if self.engines[k].spec.reset_bit != domain {
                continue;
            }
            let e = &mut self.engines[k];
            let last = e.next_seqno.wrapping_sub(1);
            let done = e.hwsp.read_u32(SEQNO_DWORD).unwrap_or(0);
            e.lost = (!passed(done, last)).then(|| (done.wrapping_add(1), last));
            // The engine is in reset: the driver writes the seqno it will not.
            let _ = e.hwsp.write_u32(SEQNO_DWORD, last);
            let dropped: Vec<Request<'a>> = e.inflight.drain(..).collect();
            for r in dropped {
                // Every ring of the engine starts again at its tail: what it held is gone.
                if let Some(Some(l)) = self
                    .contexts
                    .get_mut(r.slot)
                    .map(|c| c.as_mut().and_then(|c| c.lrcs[k].as_mut()))
                {
                    let _ = l.image.write_u32(1024 + lrc::CTX_RING_HEAD, l.tail);
                    l.head = l.tail;
                    let _ = l.image.write_u32(1024 + lrc::CTX_RING_TAIL, l.tail);
                }
                self.retire_request(r);
            }
            self.start_engine(k);
        }
        GpuError::Hang(Box::new(state))
    }

    fn capture(&self, i: usize, reason: HangReason, completed: u32, waited_for: u32) -> ErrorState {
        let mmio = self.mmio();
        let e = &self.engines[i];
        let (er, gt) = (self.er, self.gt);
        let r = |off: u32| mmio.read32(e.base + off);
        let eir = r(er.eir);
        let ipehr = r(er.ipehr);
        let acthd = u64::from(r(er.acthd)) | u64::from(r(er.acthd_udw)) << 32;
        let bb = u64::from(r(er.bbaddr)) | u64::from(r(er.bbaddr_udw)) << 32;
        let tables = self.generation.tables();
        let unmodelled = if eir & 1 != 0 {
            let refused = r(baregpu_hal::mmio::SOFT_UNMODELLED_COMMAND);
            (refused != 0 && refused == ipehr).then(|| Unmodelled {
                header: refused,
                name: tables.identify(e.spec.name, refused).map(|c| c.name),
            })
        } else {
            None
        };
        // GEN12_RING_FAULT_REG valid (bit 0), GGTT (bit 11), engine (14:12);
        // the page from GEN12_FAULT_TLB_DATA0 (43:12) and DATA1 (47:44 in 3:0)
        // (i915 gt/intel_gt.c gen8_check_faults).
        let fault_reg = mmio.read32(gt.fault);
        let fault = (fault_reg & 1 != 0).then(|| {
            let d0 = u64::from(mmio.read32(gt.fault_data0));
            let d1 = u64::from(mmio.read32(gt.fault_data1));
            FaultRecord {
                register: fault_reg,
                address: (d0 << 12) | ((d1 & 0xf) << 44),
                ggtt: d1 & 0x10 != 0,
            }
        });
        let mut commands = String::new();
        if let Some(req) = e
            .inflight
            .iter()
            .find(|q| q.batch.gfx().0 <= bb && bb < q.batch.gfx().0 + q.batch.region.size as u64)
        {
            let start = req.batch.gfx().0;
            for cmd in baregpu_hal::decode::decode(tables, e.spec.name, req.batch.contents())
                .stop_at_batch_end()
                .take(4096)
            {
                let addr = start + cmd.offset as u64 * 4;
                let mark = if addr == acthd { "=> " } else { "   " };
                let _ = write!(commands, "{mark}{cmd}");
            }
        }
        ErrorState {
            engine: e.spec.name,
            reason,
            eir,
            esr: r(er.esr),
            ipeir: r(er.ipeir),
            ipehr,
            instdone: 0,
            acthd: acthd as u32,
            head: r(er.head),
            tail: r(er.tail),
            bb_addr: bb as u32,
            completed,
            waited_for,
            commands,
            unmodelled,
            fault,
        }
    }

    /// Enables the engines' user, error and context-switch interrupts
    /// (i915 gt/intel_gt_irq.c gen11_gt_irq_postinstall: the class enables
    /// and the engines' masks, RING_IMR; i915_irq.c dg1_irq_postinstall:
    /// GEN11_GFX_MSTR_IRQ and DG1_MSTR_TILE_INTR master bits). The device
    /// shows them on its interrupt line; [`Self::take_interrupt_vectors`] reads them.
    pub fn enable_user_interrupts(&mut self) {
        let mmio = self.mmio();
        let gt = self.gt;
        mmio.write32(gt.render_copy_enable, IRQ_BITS << 16 | IRQ_BITS);
        mmio.write32(gt.ccs_enable, IRQ_BITS << 16);
        for m in [gt.rcs_mask, gt.bcs_mask, gt.ccs_mask] {
            // The first-named engine's half is 31:16; the other half's engine is absent here.
            mmio.write32(m, !(IRQ_BITS << 16));
        }
        self.interrupts = true;
        for e in &self.engines {
            mmio.write32(e.base + self.er.imr, !IRQ_BITS);
        }
        mmio.write32(gt.master_irq, MASTER_IRQ);
        mmio.write32(gt.tile_irq, MASTER_IRQ);
    }

    /// [`Self::enable_user_interrupts`], with the PCI function pointed at
    /// the OS first (MSI or INTx, [`crate::irq::configure`]). The waits then
    /// sleep in [`Platform::wait_for_interrupt`] between looks at the status page.
    pub fn enable_interrupts(&mut self, mode: InterruptMode) -> Result<(), GpuError> {
        crate::irq::configure(self.device, mode)?;
        self.enable_user_interrupts();
        self.irq = Some(mode);
        Ok(())
    }

    pub fn interrupt_mode(&self) -> Option<InterruptMode> {
        self.irq
    }

    /// Reads and acknowledges pending engine interrupts as i915's
    /// gen11_gt_bank_handler does: GEN11_GT_INTR_DW0's bits, each engine's
    /// vector through GEN11_IIR_REG_SELECTOR0 and GEN11_INTR_IDENTITY_REG0
    /// (DATA_VALID, written back), then the bank cleared. Returns each
    /// signalling engine with its vector.
    pub fn take_interrupt_vectors(&mut self) -> Vec<(EngineId, u16)> {
        self.acknowledge().1
    }

    /// What [`Self::take_interrupt_vectors`] reads, with GEN11_GT_INTR_DW0 as it was.
    fn acknowledge(&mut self) -> (u32, Vec<(EngineId, u16)>) {
        let mmio = self.mmio();
        let gt = self.gt;
        // i915 i915_irq.c dg1_irq_handler: the tile master off while the
        // banks are read, on again after, so that anything still pending
        // raises the line again (a new edge: a new MSI).
        if self.interrupts {
            mmio.write32(gt.tile_irq, 0);
        }
        let dw = mmio.read32(gt.intr_dw0);
        let mut out = Vec::new();
        for (k, e) in self.engines.iter().enumerate() {
            let bit = 1 << e.spec.dw0_bit;
            if dw & bit == 0 {
                continue;
            }
            mmio.write32(gt.selector0, bit);
            let ident = mmio.read32(gt.identity0);
            if ident & DATA_VALID != 0 {
                mmio.write32(gt.identity0, ident);
                out.push((EngineId(k), ident as u16));
            }
        }
        if dw != 0 {
            mmio.write32(gt.intr_dw0, dw);
        }
        if self.interrupts {
            mmio.write32(gt.tile_irq, MASTER_IRQ);
        }
        (dw, out)
    }

    /// The engines' GEN11_GT_INTR_DW0 bits whose user interrupt fired, acknowledged.
    pub fn take_interrupts(&mut self) -> u32 {
        let (_, vectors) = self.acknowledge();
        vectors
            .iter()
            .filter(|(_, v)| v & USER_INTERRUPT != 0)
            .fold(0, |bits, (e, _)| bits | 1 << self.engines[e.0].spec.dw0_bit)
    }

    /// The OS's handler: acknowledges as [`Self::take_interrupt_vectors`]
    /// does and records which engines signalled and which reported errors.
    pub fn handle_interrupt(&mut self) -> Signalled {
        let (dw, vectors) = self.acknowledge();
        let mut s = Signalled::default();
        s.iir[0] = dw;
        for (e, v) in vectors {
            if v & USER_INTERRUPT != 0 {
                s.engines |= 1 << e.0;
            }
            if v & ERROR_INTERRUPT != 0 {
                s.errors |= 1 << e.0;
            }
        }
        self.signalled.merge(s);
        s
    }

    pub fn take_signalled(&mut self) -> Signalled {
        core::mem::take(&mut self.signalled)
    }
}

impl<P: Platform> Drop for ExeclistBackend<'_, P> {
    fn drop(&mut self) {
        // Stop every engine first: no engine reads a context image, ring,
        // batch or page table after this, and their memory goes back to the platform.
        for e in &self.engines {
            self.device
                .write32(e.base + self.er.mi_mode, masked_on(STOP_RING));
        }
        self.device.write32(self.gt.master_irq, 0);
        for (req, _) in self.gt.forcewake {
            self.device.write32(req, masked_off(FORCEWAKE_KERNEL));
        }
    }
}
