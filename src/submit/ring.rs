//! The ring backend of [`super::Gpu`] (Gen4/G45, Gen6, Gen7): bring-up
//! of the command streamers, rings, batches, seqno fences, hang detection
//! with engine reset, and error capture.
//!
//! Per engine: a hardware status page (HWSP) and a ring, both mapped in the
//! GGTT. A submission writes `MI_BATCH_BUFFER_START`, a flush, an
//! `MI_STORE_DATA_INDEX` of the next seqno into HWSP dword 0x20 and an
//! `MI_USER_INTERRUPT`, then moves TAIL (the breadcrumb idiom of SNB 003
//! lines 8300-8316 and 9470-9507). A fence is that seqno.

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::vec::Vec;

use baregpu_hal::{DeviceIo, Generation, Mmio, device};

use super::buffer::Memory;
use super::packets::{self, Encoders};
use super::{
    Batch, Buffer, ContextId, EngineId, EngineInfo, ErrorState, Fence, GpuError, HangReason,
    Placement, engines, forcewake,
};
use crate::bringup::{self, BringUpReport};
use crate::gtt::{self, Caching, GfxAddr, Ggtt, Mapping, Ppgtt};
use crate::irq::{InterruptHandler, InterruptMode, Signalled};
use crate::platform::{Dma, Platform, PlatformError};

/// HWSP dword that receives the seqno (HWSP dwords 0x20-0x3ff are free for software, 003 lines 9470-9507).
const SEQNO_INDEX: u32 = 0x20;
/// Ring size: 32 KiB (CTL buffer length = pages - 1, 003 lines 11671-11772).
const RING_BYTES: usize = 32 << 10;
/// Bytes kept free between TAIL and HEAD (head and tail must not share a cacheline: 003 line 8322).
const RING_GAP: u32 = 64;
/// Polling interval while waiting.
const POLL_US: u64 = 10;
/// How long a ring may take to start (Linux init_ring_common: 50 ms).
const RING_START_US: u64 = 50_000;
/// PPGTT registers: PP_DCLV (engine + 0x220, 64-bit, write-only) and PP_DIR_BASE (engine + 0x228),
/// SNB 003 lines 9508-9614; the GFX_MODE bit 9 enables the PPGTT ([`engines::GfxMode`]).
const PP_DCLV: u32 = baregpu_hal::gen6::regs::PP_DCLV.relative_offset();
const PP_DIR_BASE: u32 = baregpu_hal::gen6::regs::PP_DIR_BASE.relative_offset();
const PPGTT_ENABLE: u32 = 1 << 9;

struct Ring<'a> {
    region: Dma<'a>,
    mapping: Mapping,
    size: u32,
    /// Byte offset where the next dword goes.
    tail: u32,
}

struct Queue<'a> {
    info: EngineInfo,
    hwsp: Dma<'a>,
    hwsp_map: Mapping,
    ring: Ring<'a>,
    next_seqno: u32,
    /// Seqnos lost in the last reset (inclusive range).
    lost: Option<(u32, u32)>,
    inflight: VecDeque<(u32, Batch<'a>)>,
    /// The context whose PPGTT the engine has loaded.
    context: Option<ContextId>,
}

/// A timeout in nanoseconds. Saturates: a caller's `u64::MAX` microseconds
/// means "wait for ever", and a wrapped product would be a tiny timeout that
/// resets a healthy engine.
fn us_to_ns(us: u64) -> u64 {
    us.saturating_mul(1000)
}

/// `bytes` rounded up to whole pages; a size with no such multiple in a
/// usize is an invalid request, not an overflow.
fn whole_pages(bytes: usize) -> Result<usize, PlatformError> {
    bytes
        .checked_next_multiple_of(4096)
        .ok_or(PlatformError::InvalidRequest)
}

/// Seqno order that survives wrapping.
fn passed(completed: u32, seqno: u32) -> bool {
    completed.wrapping_sub(seqno) as i32 >= 0
}

/// The ring backend for one GPU.
///
/// It owns its status pages, rings, in-flight batches and page tables as
/// [`Dma`] values: dropping the `Gpu` stops the rings and gives all of that
/// memory back to the platform.
pub(crate) struct RingBackend<'a, P: Platform> {
    platform: &'a P,
    /// The device: registers and configuration space.
    device: &'a dyn DeviceIo,
    /// The same device, as registers only.
    mmio: &'a dyn Mmio,
    generation: Generation,
    profile: engines::Profile,
    ggtt: Ggtt,
    queues: Vec<Queue<'a>>,
    enc: Encoders,
    contexts: Vec<Option<Ppgtt<'a>>>,
    /// The page behind every unused GGTT entry (kept for the `Gpu`'s life).
    _scratch: Dma<'a>,
    bring_up: BringUpReport,
    /// The forcewake held since bring-up.
    forcewake: forcewake::Held,
    /// How interrupts reach the OS, once enabled.
    irq: Option<InterruptMode>,
    /// What the interrupt handler has found since the last [`Gpu::take_signalled`].
    signalled: Signalled,
}

impl<'a, P: Platform> RingBackend<'a, P> {
    /// Brings the GPU up, the driver's own GGTT objects (status pages,
    /// rings) outside the ranges of `keep_free` ([`super::Gpu::new_avoiding`]).
    pub fn new_avoiding(
        platform: &'a P,
        device: &'a dyn DeviceIo,
        generation: Generation,
        keep_free: &[(GfxAddr, u64)],
    ) -> Result<Self, GpuError> {
        let profile = engines::profile(generation).ok_or(GpuError::Unsupported(generation))?;
        let enc = packets::encoders(generation).ok_or(GpuError::Unsupported(generation))?;
        // The bring-up steps before the engines, in i915's order (`crate::bringup`).
        let (command_before, command_after) =
            bringup::enable_device(device).map_err(GpuError::BringUp)?;
        let layout = gtt::ggtt::GgttLayout::read(generation, device)?;
        let stolen = bringup::read_stolen(platform, device, generation);
        let mut ggtt = Ggtt::with_layout(generation, layout);
        let scratch = Dma::new(platform, 4096, 4096)?;
        let firmware_ranges = ggtt.take_over(
            device,
            stolen.map(|s| (s.base.0, s.bytes)),
            &scratch.region(),
        )?;
        let bring_up = BringUpReport {
            command_before,
            command_after,
            ggtt_entries: layout.entries,
            stolen,
            firmware_ranges,
            scratch: Some(scratch.phys()),
        };
        let mut held = Vec::new();
        for &(gfx, bytes) in keep_free {
            held.push(ggtt.reserve_at(gfx, bytes.div_ceil(gtt::PAGE))?);
        }
        let mmio: &'a dyn Mmio = device;
        let infos = profile.engines.clone();
        let mut gpu = Self {
            platform,
            device,
            mmio,
            generation,
            profile,
            ggtt,
            queues: Vec::new(),
            enc,
            contexts: Vec::new(),
            _scratch: scratch,
            bring_up,
            forcewake: forcewake::Held::None,
            irq: None,
            signalled: Signalled::default(),
        };
        gpu.forcewake = forcewake::take(mmio, platform, gpu.profile.forcewake, gpu.profile.wake)?;
        for info in infos {
            let hwsp = Dma::new(platform, 4096, 4096)?;
            let hwsp_map = gpu.ggtt.map(mmio, &hwsp.region(), Caching::Llc)?;
            let region = Dma::new(platform, RING_BYTES, 4096)?;
            let mapping = gpu.ggtt.map(mmio, &region.region(), Caching::Uncached)?;
            let ring = Ring {
                region,
                mapping,
                size: RING_BYTES as u32,
                tail: 0,
            };
            gpu.queues.push(Queue {
                info,
                hwsp,
                hwsp_map,
                ring,
                next_seqno: 1,
                lost: None,
                inflight: VecDeque::new(),
                context: None,
            });
            let i = gpu.queues.len() - 1;
            gpu.start_engine(i)?;
        }
        for (first, pages) in held {
            gpu.ggtt.release_reservation(first, pages);
        }
        Ok(gpu)
    }

    /// The engines, by [`EngineId`].
    pub fn engine_infos(&self) -> &[EngineInfo] {
        &self.profile.engines
    }

    pub fn device(&self) -> &'a dyn DeviceIo {
        self.device
    }

    /// A system-memory buffer mapped in the GGTT (the rings' GPUs have no local memory).
    pub fn buffer(&mut self, bytes: u64, placement: Placement) -> Result<Buffer<'a>, GpuError> {
        if placement != Placement::System {
            return Err(GpuError::Unsupported(self.generation));
        }
        let size = usize::try_from(bytes.max(1)).map_err(|_| PlatformError::InvalidRequest)?;
        let (memory, mapping) = self.map_buffer(size)?;
        Ok(Buffer {
            gfx: mapping.gfx,
            bytes: mapping.pages * gtt::PAGE,
            memory: Memory::System(memory),
            context: None,
        })
    }

    /// A system-memory buffer mapped in a context's PPGTT (at `gfx` when given).
    pub fn context_buffer(
        &mut self,
        ctx: ContextId,
        gfx: Option<GfxAddr>,
        bytes: u64,
        placement: Placement,
    ) -> Result<Buffer<'a>, GpuError> {
        if placement != Placement::System {
            return Err(GpuError::Unsupported(self.generation));
        }
        let size = usize::try_from(bytes.max(1)).map_err(|_| PlatformError::InvalidRequest)?;
        let (memory, gfx) = match gfx {
            Some(at) => self.map_in_context_at(ctx, at, size)?,
            None => self.map_in_context(ctx, size)?,
        };
        Ok(Buffer {
            gfx,
            bytes: memory.region().size as u64,
            memory: Memory::System(memory),
            context: Some(ctx),
        })
    }

    /// Gives a GGTT buffer's range back; a context buffer's PPGTT range
    /// stays reserved until the context goes (the PPGTT hands out no range twice).
    pub fn free_buffer(&mut self, buffer: Buffer<'a>) {
        if buffer.context.is_none() {
            let mapping = Mapping {
                gfx: buffer.gfx,
                pages: buffer.bytes / gtt::PAGE,
            };
            self.ggtt.unmap(self.mmio, mapping);
        }
    }

    pub fn generation(&self) -> Generation {
        self.generation
    }

    /// What bring-up found and did: the PCI command register, GGTT size, stolen
    /// memory, the firmware's GGTT ranges kept, the scratch page.
    pub fn bring_up(&self) -> &BringUpReport {
        &self.bring_up
    }

    /// Makes unused GGTT entries invalid instead of pointing at the scratch page
    /// ([`Ggtt::invalidate_unused`]): stray accesses then fault and are reported.
    /// For debugging tools; drivers leave the scratch page, as Linux does.
    pub fn invalidate_unused_ggtt(&mut self) {
        self.ggtt.invalidate_unused(self.mmio);
    }

    /// The GGTT manager (for mapping buffers the batches use).
    pub fn ggtt(&mut self) -> &mut Ggtt {
        &mut self.ggtt
    }

    pub fn mmio(&self) -> &'a dyn Mmio {
        self.mmio
    }

    /// Allocates DMA memory and maps it in the GGTT. The memory goes back to
    /// the platform when the returned [`Dma`] is dropped; the GGTT range
    /// when the mapping is given to [`Gpu::unmap`] (a buffer dropped while
    /// still mapped leaves its range in use until the `Gpu` goes).
    pub fn map_buffer(&mut self, bytes: usize) -> Result<(Dma<'a>, Mapping), GpuError> {
        let buffer = Dma::new(self.platform, whole_pages(bytes)?, 4096)?;
        let mapping = self.ggtt.map(self.mmio, &buffer.region(), Caching::Llc)?;
        Ok((buffer, mapping))
    }

    /// Allocates DMA memory of `bytes` (rounded up to pages) and maps it in
    /// the GGTT at exactly `gfx`: an error when the range is unaligned, in
    /// use (by the driver's rings and status pages too) or beyond the GGTT.
    pub fn map_buffer_at(
        &mut self,
        gfx: GfxAddr,
        bytes: usize,
    ) -> Result<(Dma<'a>, Mapping), GpuError> {
        if !self.ggtt.is_free(gfx, bytes.max(1) as u64) {
            // The precise reason, before any memory is allocated.
            let pages = (bytes.max(1) as u64).div_ceil(gtt::PAGE);
            let (first, pages) = self.ggtt.reserve_at(gfx, pages)?;
            self.ggtt.release_reservation(first, pages);
        }
        let buffer = Dma::new(self.platform, whole_pages(bytes.max(1))?, 4096)?;
        let mapping = self
            .ggtt
            .map_at(self.mmio, &buffer.region(), gfx, Caching::Llc)?;
        Ok((buffer, mapping))
    }

    /// Gives back the GGTT range of a buffer from [`Gpu::map_buffer`] or
    /// [`Gpu::map_buffer_at`] (its PTEs are invalidated). Unmap a buffer
    /// before dropping it once no submitted work uses it any more.
    pub fn unmap(&mut self, mapping: Mapping) {
        self.ggtt.unmap(self.mmio, mapping);
    }

    /// Waits until `read() & mask == want`, for at most `timeout_us`.
    fn wait_for(
        &self,
        offset: u32,
        mask: u32,
        want: u32,
        timeout_us: u64,
        what: &'static str,
    ) -> Result<(), GpuError> {
        let start = self.platform.now_ns();
        loop {
            if self.mmio.read32(offset) & mask == want {
                return Ok(());
            }
            if self.platform.now_ns().saturating_sub(start) > us_to_ns(timeout_us) {
                return Err(GpuError::BringUp(what));
            }
            self.platform.delay_us(POLL_US);
        }
    }

    /// Programs an engine's status page and ring and enables it (003 lines 8281-8288: START, HEAD
    /// and TAIL before CTL).
    fn start_engine(&mut self, i: usize) -> Result<(), GpuError> {
        let q = &mut self.queues[i];
        let base = q.info.base;
        let hws = if self.profile.hwsp_physical {
            // 965: the physical page, bits 35:32 in bits 7:4.
            let phys = q.hwsp.phys().0;
            (phys as u32 & 0xffff_f000) | ((phys >> 28) as u32 & 0xf0)
        } else {
            q.hwsp_map.gfx.0 as u32
        };
        self.mmio.write32(q.info.hws_pga, hws);
        let regs = q.info.ring;
        self.mmio.write32(base + regs.ctl, 0);
        self.mmio.write32(base + regs.head, 0);
        self.mmio.write32(base + regs.tail, 0);
        self.mmio
            .write32(base + regs.start, q.ring.mapping.gfx.0 as u32);
        q.ring.tail = 0;
        q.context = None;
        let pages = q.ring.size / 4096;
        self.mmio.write32(base + regs.ctl, ((pages - 1) << 12) | 1);
        // The ring runs once CTL is valid, START reads back and HEAD is 0; Linux
        // (intel_ringbuffer.c init_ring_common) gives it 50 ms.
        let want_start = q.ring.mapping.gfx.0 as u32;
        let started = self.platform.now_ns();
        loop {
            let (start, ctl, head) = (
                self.mmio.read32(base + regs.start),
                self.mmio.read32(base + regs.ctl),
                self.mmio.read32(base + regs.head) & 0x001f_fffc,
            );
            if start == want_start && ctl & 1 == 1 && head == 0 {
                break;
            }
            if self.platform.now_ns().saturating_sub(started) > us_to_ns(RING_START_US) {
                return Err(GpuError::BringUp("ring did not start"));
            }
            self.platform.delay_us(POLL_US);
        }
        // The mode-register writes of the engine's ring initialisation, in order
        // (device description `[[init]]`, from i915's init_render_ring).
        let name = self.queues[i].info.name;
        if let Some(d) = baregpu_hal::device::of(self.generation) {
            for w in d.init.iter().filter(|w| w.engine == name) {
                self.mmio.write32(w.register, w.value);
            }
        }
        // A reset masked the ring's interrupts again.
        if self.irq.is_some() {
            self.unmask_ring(i);
        }
        Ok(())
    }

    /// The engine's user and error bits.
    fn engine_irq_bits(desc: &device::EngineDesc) -> u32 {
        (1 << desc.user_interrupt_bit) | (1 << desc.error_bit)
    }

    /// Unmasks an engine's user and error interrupts in its ring IMR (Gen6/Gen7: the
    /// manual says to mask command streamer interrupts there, not in GTIMR, 003 line
    /// 55552).
    fn unmask_ring(&self, i: usize) {
        let (Some(q), Some(d)) = (self.queues.get(i), self.profile.engine_descs.get(i)) else {
            return;
        };
        if let Some(imr) = q.info.imr {
            self.mmio.write32(imr, !Self::engine_irq_bits(d));
        }
    }

    /// Enables interrupts: the device signals the OS by `mode` (an MSI address and
    /// data the OS chose, or INTx) whenever an engine finishes a submission (its
    /// MI_USER_INTERRUPT) or reports an error, and [`Gpu::wait`] sleeps in
    /// [`Platform::wait_for_interrupt`] instead of polling. The OS routes the
    /// interrupt to a handler that calls [`Gpu::handle_interrupt`] (or
    /// [`Gpu::interrupt_handler`]'s `handle`). Linux i915's order: master off,
    /// stale identity bits cleared (twice: IIR queues two events), the PCI
    /// function pointed at the OS, the masks and enables of every engine's user and
    /// error bits (ring IMR, IMR, IER), master on (DEIER bit 31 on Gen6/Gen7).
    pub fn enable_interrupts(&mut self, mode: InterruptMode) -> Result<(), GpuError> {
        let desc = self.profile.interrupts;
        if let Some(m) = desc.master {
            let v = self.mmio.read32(m.register);
            self.mmio.write32(m.register, v & !(1 << m.bit));
        }
        for b in desc.blocks {
            self.mmio.write32(b.regs.iir, u32::MAX);
            self.mmio.write32(b.regs.iir, u32::MAX);
        }
        crate::irq::configure(self.device, mode)?;
        let mut bits = 0;
        for (i, d) in self.profile.engine_descs.iter().enumerate() {
            bits |= Self::engine_irq_bits(d);
            self.unmask_ring(i);
        }
        let irq = self.profile.irq;
        self.mmio.write32(irq.imr, !bits);
        self.mmio.write32(irq.ier, bits);
        self.irq = Some(mode);
        if let Some(m) = desc.master {
            let v = self.mmio.read32(m.register);
            self.mmio.write32(m.register, v | 1 << m.bit);
        }
        Ok(())
    }

    /// How interrupts reach the OS (`None`: not enabled, the driver polls).
    pub fn interrupt_mode(&self) -> Option<InterruptMode> {
        self.irq
    }

    /// The handler alone: registers only, for an OS whose interrupt handler cannot
    /// reach the `Gpu` (it is busy in a wait on another CPU). What it finds is not
    /// recorded in the `Gpu`; the waits read completion from the status pages.
    pub fn interrupt_handler(&self) -> InterruptHandler<'a> {
        InterruptHandler {
            mmio: self.mmio,
            desc: self.profile.interrupts,
            engines: self.profile.engine_descs,
        }
    }

    /// What the OS calls when the GPU's interrupt arrives: reads and acknowledges
    /// the pending interrupts as Linux i915's handlers do ([`InterruptHandler::handle`]),
    /// records them, and returns which engines signalled (and which reported errors).
    pub fn handle_interrupt(&mut self) -> Signalled {
        let s = self.interrupt_handler().handle();
        self.signalled.merge(s);
        s
    }

    /// What the handler has recorded since the last call, cleared.
    pub fn take_signalled(&mut self) -> Signalled {
        core::mem::take(&mut self.signalled)
    }

    fn queue(&mut self, engine: EngineId) -> Result<&mut Queue<'a>, GpuError> {
        self.queues
            .get_mut(engine.0)
            .ok_or(GpuError::NoEngine(engine))
    }

    /// A new, empty batch of `bytes` (rounded up to pages).
    pub fn new_batch(&mut self, bytes: usize) -> Result<Batch<'a>, GpuError> {
        let (memory, mapping) = self.map_buffer(bytes.max(4096))?;
        Ok(Batch {
            region: memory.region(),
            memory: Some(memory),
            gfx: mapping.gfx,
            ggtt_mapping: Some(mapping),
            context: None,
            len: 0,
            batch_end: self.enc.batch_end,
            noop: self.enc.noop,
        })
    }

    /// The last seqno `engine` completed (read from its status page).
    pub fn completed(&self, engine: EngineId) -> u32 {
        let Some(q) = self.queues.get(engine.0) else {
            return 0;
        };
        // A volatile read: the device writes this dword. The page is 4 KiB,
        // so the index is always inside it.
        q.hwsp.read_u32(SEQNO_INDEX as usize).unwrap_or(0)
    }

    /// Ring bytes free before TAIL would come within RING_GAP of HEAD.
    fn ring_free(&self, i: usize) -> u32 {
        let q = &self.queues[i];
        let head = self.mmio.read32(q.info.base + q.info.ring.head) & 0x001f_fffc;
        (head + q.ring.size - q.ring.tail - RING_GAP) % q.ring.size
    }

    /// Writes `dwords` at the ring's tail (wrapping with MI_NOOP so that no
    /// command straddles the end, 003 line 8296) and moves TAIL.
    fn emit(&mut self, i: usize, dwords: &[u32]) -> Result<(), GpuError> {
        let bytes = (dwords.len() as u32 * 4).next_multiple_of(8);
        let start = self.platform.now_ns();
        loop {
            let q = &self.queues[i];
            let to_end = q.ring.size - q.ring.tail;
            let need = if bytes > to_end {
                to_end + bytes
            } else {
                bytes
            };
            if self.ring_free(i) >= need {
                break;
            }
            if self.platform.now_ns().saturating_sub(start) > 2_000_000_000 {
                let (done, want) = (self.completed(EngineId(i)), self.queues[i].next_seqno);
                return Err(self.hang(i, HangReason::Timeout, done, want));
            }
            self.platform.delay_us(POLL_US);
        }
        let noop = self.enc.noop;
        let q = &mut self.queues[i];
        let ring = &q.ring.region;
        let put = |tail: &mut u32, v: u32| {
            // `tail` stays below the ring's size (the wrap logic), so the
            // volatile write always lands inside the ring.
            let _ = ring.write_u32(*tail as usize / 4, v);
            *tail += 4;
        };
        let mut tail = q.ring.tail;
        if tail + bytes > q.ring.size {
            while tail < q.ring.size {
                put(&mut tail, noop);
            }
            tail = 0;
        }
        for &d in dwords {
            put(&mut tail, d);
        }
        if !tail.is_multiple_of(8) {
            put(&mut tail, noop);
        }
        q.ring.tail = tail % q.ring.size;
        self.mmio
            .write32(q.info.base + q.info.ring.tail, q.ring.tail);
        Ok(())
    }

    /// Submits a batch to `engine`; returns the fence that completes with it.
    pub fn submit(&mut self, engine: EngineId, mut batch: Batch<'a>) -> Result<Fence, GpuError> {
        let render = self.queue(engine)?.info.name == "render";
        let q = self.queue(engine)?;
        let seqno = q.next_seqno;
        q.next_seqno = q.next_seqno.wrapping_add(1).max(1);
        let base = q.info.base;
        let switch = batch.context.filter(|c| q.context != Some(*c));
        if batch.context.is_some() {
            q.context = batch.context;
        }
        batch.finish();
        let mut cmds = [0u32; 32];
        let mut n = 0;
        let pack_err = |_| GpuError::BringUp("submission packet does not fit its fields");
        if let Some(ctx) = switch {
            // Load the context's page directory: PP_DCLV validates all 512 PDEs,
            // PP_DIR_BASE points at the directory (003 lines 9508-9614).
            let pd = self.ppgtt(ctx)?.pp_dir_base();
            let pairs = [(base + PP_DCLV, 0xffff_ffff), (base + PP_DIR_BASE, pd)];
            n += (self.enc.load_register_imm)(&pairs, &mut cmds[n..]).map_err(pack_err)?;
        }
        let ppgtt = batch.context.is_some();
        n += (self.enc.batch_start)(batch.gfx().0, ppgtt, &mut cmds[n..]).map_err(pack_err)?;
        n += (self.enc.flush)(render, &mut cmds[n..]).map_err(pack_err)?;
        n += (self.enc.store_data_index)(SEQNO_INDEX * 4, seqno, &mut cmds[n..])
            .map_err(pack_err)?;
        cmds[n] = self.enc.user_interrupt;
        n += 1;
        self.queues[engine.0].inflight.push_back((seqno, batch));
        self.emit(engine.0, &cmds[..n])?;
        Ok(Fence { engine, seqno })
    }

    /// Frees the batches an engine has finished.
    fn retire(&mut self, i: usize) {
        let done = self.completed(EngineId(i));
        let q = &mut self.queues[i];
        while q.inflight.front().is_some_and(|(s, _)| passed(done, *s)) {
            if let Some((_, b)) = q.inflight.pop_front() {
                Self::retire_batch(&mut self.ggtt, self.mmio, b);
            }
        }
    }

    /// Whether the fence has completed (without waiting).
    pub fn poll(&mut self, fence: Fence) -> bool {
        let _ = self.mmio.read32(
            self.queues
                .get(fence.engine.0)
                .map_or(0, |q| q.info.base + q.info.ring.head),
        );
        passed(self.completed(fence.engine), fence.seqno)
    }

    /// Waits for a fence. On timeout or an engine error the engine's state is
    /// captured and decoded, the engine is reset and restarted, and the error
    /// is returned; the engine takes new work afterwards. `timeout_us` is
    /// time on the platform's clock ([`Platform::now_ns`]); any value works,
    /// `u64::MAX` is no limit.
    pub fn wait(&mut self, fence: Fence, timeout_us: u64) -> Result<(), GpuError> {
        let i = fence.engine.0;
        if i >= self.queues.len() {
            return Err(GpuError::NoEngine(fence.engine));
        }
        if let Some((a, b)) = self.queues[i].lost
            && fence.seqno.wrapping_sub(a) <= b.wrapping_sub(a)
        {
            return Err(GpuError::Lost(fence));
        }
        let start = self.platform.now_ns();
        let eir_reg = self.queues[i].info.errors.eir;
        loop {
            // With interrupts on, acknowledge what is pending first, on every
            // pass: an interrupt left in IIR keeps the line high, and the next
            // one would make no new edge (no MSI) for any waiter.
            if self.irq.is_some() {
                self.handle_interrupt();
            }
            // Reading a register is also what lets the software GPU advance.
            let eir = self.mmio.read32(eir_reg);
            let done = self.completed(fence.engine);
            // An error wins over completion: a flagged but non-fatal error (a
            // privileged command refused in a non-secure batch) lets the batch
            // finish, and must still reach the caller.
            if eir != 0 {
                return Err(self.hang(i, HangReason::EngineError, done, fence.seqno));
            }
            if passed(done, fence.seqno) {
                self.retire(i);
                return Ok(());
            }
            if self.platform.now_ns().saturating_sub(start) > us_to_ns(timeout_us) {
                return Err(self.hang(i, HangReason::Timeout, done, fence.seqno));
            }
            if self.irq.is_some() {
                // Sleep until an interrupt or the hang deadline.
                let deadline = start.saturating_add(us_to_ns(timeout_us).saturating_add(1));
                self.platform.wait_for_interrupt(deadline);
            } else {
                self.platform.delay_us(POLL_US);
            }
        }
    }

    /// Captures the error state, resets the engine (GDRST) and restarts it.
    fn hang(&mut self, i: usize, reason: HangReason, completed: u32, waited_for: u32) -> GpuError {
        let q = &self.queues[i];
        let bb = self.mmio.read32(q.info.errors.bb_addr) as u64;
        // Decode the in-flight batch that BB_ADDR points into, if the driver has it.
        let context = q
            .inflight
            .iter()
            .find(|(_, b)| b.gfx().0 == bb)
            .map(|(_, b)| (b.gfx().0, b.contents()));
        let tables = self.generation.tables();
        let state = ErrorState::capture(
            self.mmio, &q.info, reason, completed, waited_for, tables, context,
        );
        let last = q.next_seqno.wrapping_sub(1);
        // EIR is write-one-to-clear and, on Gen4/G45, shared by the engines: an engine
        // reset does not clear it, so acknowledge what was captured (Linux i915
        // i915_report_and_clear_eir does the same).
        self.mmio.write32(q.info.errors.eir, state.eir);
        let reset_bit = q.info.reset_bit;
        self.reset_engine(reset_bit);
        // Everything queued on the engine is gone: account for it, free it, and
        // let the status page say so.
        let q = &mut self.queues[i];
        // Nothing is lost when the engine had finished everything (an error
        // flagged by work that still completed).
        q.lost = (!passed(completed, last)).then(|| (completed.wrapping_add(1), last));
        let dropped: Vec<(u32, Batch<'a>)> = q.inflight.drain(..).collect();
        // The engine is in reset and does not write its status page now.
        let _ = q.hwsp.write_u32(SEQNO_INDEX as usize, last);
        for (_, b) in dropped {
            Self::retire_batch(&mut self.ggtt, self.mmio, b);
        }
        if let Err(e) = self.start_engine(i) {
            return e;
        }
        GpuError::Hang(Box::new(state))
    }

    /// Lets go of a batch the engine is done with (completed, or dropped by
    /// a reset): its GGTT range is given back and its memory goes with it (a
    /// placed batch's memory is the caller's). A context batch's PPGTT range
    /// stays reserved until the context goes.
    fn retire_batch(ggtt: &mut Ggtt, mmio: &dyn Mmio, b: Batch<'a>) {
        if let Some(m) = b.ggtt_mapping {
            ggtt.unmap(mmio, m);
        }
    }

    /// Creates a context with its own PPGTT. The first one turns PPGTT on
    /// (GFX_MODE bit 9, masked: 003 lines 10136-10325; per engine on Gen7).
    /// Gen4/G45 have no PPGTT contexts here: [`GpuError::Unsupported`].
    pub fn create_context(&mut self) -> Result<ContextId, GpuError> {
        let gfx_mode = self
            .profile
            .gfx_mode
            .ok_or(GpuError::Unsupported(self.generation))?;
        if self.contexts.is_empty() {
            let enable = (PPGTT_ENABLE << 16) | PPGTT_ENABLE;
            match gfx_mode {
                engines::GfxMode::Global(reg) => self.mmio.write32(reg, enable),
                engines::GfxMode::PerEngine(off) => {
                    for q in &self.queues {
                        self.mmio.write32(q.info.base + off, enable);
                    }
                }
            }
        }
        let ppgtt = Ppgtt::new(self.platform, &mut self.ggtt, self.mmio)?;
        self.contexts.push(Some(ppgtt));
        Ok(ContextId(self.contexts.len() - 1))
    }

    fn ppgtt(&mut self, ctx: ContextId) -> Result<&mut Ppgtt<'a>, GpuError> {
        self.contexts
            .get_mut(ctx.0)
            .and_then(|c| c.as_mut())
            .ok_or(GpuError::NoContext(ctx))
    }

    /// Allocates DMA memory and maps it in a context's PPGTT.
    pub fn map_in_context(
        &mut self,
        ctx: ContextId,
        bytes: usize,
    ) -> Result<(Dma<'a>, GfxAddr), GpuError> {
        let buffer = Dma::new(self.platform, whole_pages(bytes)?, 4096)?;
        let (ggtt, mmio) = (&self.ggtt, self.mmio);
        let ppgtt = self
            .contexts
            .get_mut(ctx.0)
            .and_then(|c| c.as_mut())
            .ok_or(GpuError::NoContext(ctx))?;
        let gfx = ppgtt.map(ggtt, mmio, &buffer.region(), Caching::Llc)?;
        Ok((buffer, gfx))
    }

    /// Allocates DMA memory of `bytes` (rounded up to pages) and maps it in a
    /// context's PPGTT at exactly `gfx`: an error when the range is
    /// unaligned, in use (page 0 always is) or beyond the 2 GiB space.
    pub fn map_in_context_at(
        &mut self,
        ctx: ContextId,
        gfx: GfxAddr,
        bytes: usize,
    ) -> Result<(Dma<'a>, GfxAddr), GpuError> {
        let buffer = Dma::new(self.platform, whole_pages(bytes.max(1))?, 4096)?;
        let (ggtt, mmio) = (&self.ggtt, self.mmio);
        let ppgtt = self
            .contexts
            .get_mut(ctx.0)
            .and_then(|c| c.as_mut())
            .ok_or(GpuError::NoContext(ctx))?;
        let gfx = ppgtt.map_at(ggtt, mmio, &buffer.region(), gfx, Caching::Llc)?;
        Ok((buffer, gfx))
    }

    /// A batch the caller has placed in memory it mapped itself: the engine
    /// starts at `start`, inside `region`, which is mapped at `region_gfx` (in
    /// the GGTT, or in `context`'s PPGTT). The driver submits it as it is (no
    /// MI_BATCH_BUFFER_END added) and never frees it; an error report decodes
    /// at most `decode_bytes` of it. `None` when `start` is not a dword inside
    /// the region.
    ///
    /// # Safety
    /// The batch keeps a view of `memory` past this borrow: `memory` must
    /// stay alive (not dropped), and mapped there, until the batch's fence
    /// completes, the engine is reset, or the `Gpu` is dropped.
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
            batch_end: self.enc.batch_end,
            noop: self.enc.noop,
        })
    }

    /// A new batch that runs in a context's PPGTT.
    pub fn new_context_batch(
        &mut self,
        ctx: ContextId,
        bytes: usize,
    ) -> Result<Batch<'a>, GpuError> {
        let (memory, gfx) = self.map_in_context(ctx, bytes.max(4096))?;
        Ok(Batch {
            region: memory.region(),
            memory: Some(memory),
            gfx,
            ggtt_mapping: None,
            context: Some(ctx),
            len: 0,
            batch_end: self.enc.batch_end,
            noop: self.enc.noop,
        })
    }

    /// Unmasks the user interrupts of every engine (ring IMR on Gen6/Gen7, then IMR and IER).
    pub fn enable_user_interrupts(&mut self) {
        let mut bits = 0;
        for q in &self.queues {
            bits |= 1 << q.info.user_interrupt_bit;
            if let Some(imr) = q.info.imr {
                self.mmio.write32(imr, !(1u32 << q.info.user_interrupt_bit));
            }
        }
        let irq = self.profile.irq;
        self.mmio.write32(irq.ier, bits);
        self.mmio.write32(irq.imr, !bits);
    }

    /// Reads and clears the pending interrupts (IIR is write-one-to-clear).
    pub fn take_interrupts(&mut self) -> u32 {
        let iir_reg = self.profile.irq.iir;
        let iir = self.mmio.read32(iir_reg);
        if iir != 0 {
            self.mmio.write32(iir_reg, iir);
        }
        iir
    }

    /// Resets one engine: Gen6/Gen7 through GDRST, Gen4/G45 through the
    /// configuration-space GDRST (domain in bits 3:2, then bit 0; the device
    /// clears bit 0 when done; finally the request is cleared, as Linux's
    /// g4x_do_reset does). A reset that does not finish is left for the
    /// ring restart to report.
    fn reset_engine(&self, reset_bit: u32) {
        match self.profile.reset {
            engines::ResetMethod::Gdrst { register, .. } => {
                self.mmio.write32(register, 1 << reset_bit);
                let _ = self.wait_for(register, 1 << reset_bit, 0, 500_000, "engine reset");
            }
            engines::ResetMethod::PciConfig { offset } => {
                let keep = self.device.config_read32(offset) & !0xff;
                self.device
                    .config_write32(offset, keep | (reset_bit << 2) | 1);
                let start = self.platform.now_ns();
                while self.device.config_read32(offset) & 1 != 0
                    && self.platform.now_ns().saturating_sub(start) < 500_000_000
                {
                    self.platform.delay_us(POLL_US);
                }
                self.device.config_write32(offset, keep);
            }
        }
    }
}

impl<P: Platform> Drop for RingBackend<'_, P> {
    fn drop(&mut self) {
        // Stop every ring first: after that no engine reads a ring, a batch,
        // a status page or a page table, and their memory (owned `Dma`
        // values in `queues` and `contexts`) can go back to the platform.
        for q in &self.queues {
            self.mmio.write32(q.info.base + q.info.ring.ctl, 0);
        }
        for p in core::mem::take(&mut self.contexts).into_iter().flatten() {
            // SAFETY: the rings are stopped; no engine walks these tables.
            unsafe { p.destroy(&mut self.ggtt, self.mmio) };
        }
        // No more interrupts for the OS's vector or line, and the GT may sleep.
        if self.irq.is_some() {
            if let Some(m) = self.profile.interrupts.master {
                let v = self.mmio.read32(m.register);
                self.mmio.write32(m.register, v & !(1 << m.bit));
            }
            self.mmio.write32(self.profile.irq.ier, 0);
        }
        forcewake::release(self.mmio, self.forcewake);
        // The queues (rings, status pages, in-flight batches) drop with `self`.
    }
}
