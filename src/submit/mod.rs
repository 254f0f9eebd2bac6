//! Submission: one driver type, [`Gpu`], for every generation. It brings
//! the command streamers up and runs batches with seqno fences, hang
//! detection with engine reset, and error capture, through one of two
//! backends chosen by the generation's description at [`Gpu::new`]:
//! rings (Gen4/G45, Gen6, Gen7: `ring`) or execlists with logical ring
//! contexts (Gen12.5: `execlist`). A caller writes the same code for all of
//! them; what only one backend has (placement in local memory, context
//! status events, destroying a context) answers [`GpuError::Unsupported`]
//! on the other.
//!
//! The same code drives the real GPU and the software GPU: it sees only an
//! [`Mmio`] and the platform's DMA memory (and, on Gen12.5, the local-memory
//! BAR through [`LocalMemory`]).

pub mod batch;
pub mod buffer;
pub mod engines;
pub mod error;
#[cfg(feature = "gen12_5")]
mod execlist;
mod forcewake;
mod packets;
mod ring;

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;

use baregpu_hal::{DeviceIo, Generation, Mmio};

pub use batch::{Batch, BatchError};
pub use buffer::{Buffer, Placement};
pub use engines::EngineInfo;
pub use error::{ErrorState, FaultRecord, HangReason, Unmodelled};
#[cfg(feature = "gen12_5")]
pub use execlist::{CONTEXT_SWITCH_INTERRUPT, CsbEvent, ERROR_INTERRUPT, USER_INTERRUPT};
pub use forcewake::ForcewakeTimeout;

use crate::bringup::BringUpReport;
use crate::gtt::{GfxAddr, Ggtt, GttError, Mapping};
use crate::irq::{InterruptHandler, InterruptMode, IrqError, Signalled};
use crate::platform::{Dma, LocalMemory, NoLocalMemory, Platform, PlatformError};
#[cfg(feature = "gen12_5")]
use execlist::ExeclistBackend;
use ring::RingBackend;

/// An engine, by index into [`Gpu::engines`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EngineId(pub usize);

impl EngineId {
    pub const RENDER: EngineId = EngineId(0);
    pub const VIDEO: EngineId = EngineId(1);
    pub const BLITTER: EngineId = EngineId(2);
}

/// A context: its own PPGTT address space, from [`Gpu::create_context`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ContextId(pub usize);

/// Completion of one submission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fence {
    pub engine: EngineId,
    pub seqno: u32,
}

/// What can go wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GpuError {
    /// The submission layer does not cover this generation yet, or the
    /// operation does not exist on it (a feature of another generation).
    Unsupported(Generation),
    Platform(PlatformError),
    Gtt(GttError),
    /// A register did not reach the expected state (reset, ring start).
    BringUp(&'static str),
    /// The GT did not wake: a forcewake step timed out.
    Forcewake(ForcewakeTimeout),
    /// Interrupts could not be set up as asked.
    Interrupts(IrqError),
    /// The engine hung or reported an error; it was reset and takes new work.
    Hang(Box<ErrorState>),
    /// The submission was still queued when its engine was reset: it did not run.
    Lost(Fence),
    /// No such engine.
    NoEngine(EngineId),
    /// No such context.
    NoContext(ContextId),
    /// A buffer in local memory on a GPU brought up without its local-memory
    /// BAR ([`Gpu::new`] rather than [`Gpu::with_local_memory`]).
    NoLocalMemory,
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::Unsupported(g) => write!(f, "the driver does not do this on {g}"),
            GpuError::Platform(e) => write!(f, "platform: {e}"),
            GpuError::Gtt(e) => write!(f, "GTT: {e}"),
            GpuError::BringUp(what) => write!(f, "bring-up failed: {what}"),
            GpuError::Forcewake(t) => write!(f, "{t}"),
            GpuError::Interrupts(e) => write!(f, "interrupts: {e}"),
            GpuError::Hang(state) => write!(f, "{state}"),
            GpuError::Lost(fence) => write!(
                f,
                "submission {} on engine {} was lost in an engine reset",
                fence.seqno, fence.engine.0
            ),
            GpuError::NoEngine(e) => write!(f, "no engine {}", e.0),
            GpuError::NoContext(c) => write!(f, "no context {}", c.0),
            GpuError::NoLocalMemory => write!(
                f,
                "no local memory: the GPU was brought up without its local-memory BAR (Gpu::with_local_memory)"
            ),
        }
    }
}

impl From<PlatformError> for GpuError {
    fn from(e: PlatformError) -> Self {
        GpuError::Platform(e)
    }
}
impl From<ForcewakeTimeout> for GpuError {
    fn from(e: ForcewakeTimeout) -> Self {
        GpuError::Forcewake(e)
    }
}
impl From<IrqError> for GpuError {
    fn from(e: IrqError) -> Self {
        GpuError::Interrupts(e)
    }
}
impl From<GttError> for GpuError {
    fn from(e: GttError) -> Self {
        GpuError::Gtt(e)
    }
}

/// The backend a [`Gpu`] drives, chosen by the generation.
enum Backend<'a, P: Platform> {
    Ring(RingBackend<'a, P>),
    #[cfg(feature = "gen12_5")]
    Execlist(ExeclistBackend<'a, P>),
}

/// `$e` on whichever backend `$gpu` has, bound to `$b`.
macro_rules! on_backend {
    ($backend:expr, $b:ident => $e:expr) => {
        match $backend {
            Backend::Ring($b) => $e,
            #[cfg(feature = "gen12_5")]
            Backend::Execlist($b) => $e,
        }
    };
}

/// `$e` on the execlist backend; [`GpuError::Unsupported`] on the rings.
macro_rules! execlist_only {
    ($gpu:expr, $b:ident => $e:expr) => {
        match &mut $gpu.backend {
            Backend::Ring(r) => Err(GpuError::Unsupported(r.generation())),
            #[cfg(feature = "gen12_5")]
            Backend::Execlist($b) => $e,
        }
    };
}

/// The driver for one GPU, whatever its generation.
///
/// It owns its status pages, rings or context images, in-flight batches and
/// page tables as [`Dma`] values: dropping the `Gpu` stops the engines and
/// gives all of that memory back to the platform.
pub struct Gpu<'a, P: Platform> {
    backend: Backend<'a, P>,
}

/// A GPU with no local memory behind the seam ([`Gpu::new`]).
static NO_LOCAL_MEMORY: NoLocalMemory = NoLocalMemory;

impl<'a, P: Platform> Gpu<'a, P> {
    /// Brings the GPU up: forcewake, GGTT, and per engine a status page and
    /// a ring (Gen4-Gen7) or execlist mode (Gen12.5).
    ///
    /// `device` is the GPU's register BAR and configuration space: a
    /// [`baregpu_hal::SplitDevice`] of a mapped BAR and a
    /// [`crate::pci::PciConfig`] on hardware, or the software GPU. A Gen12.5
    /// GPU brought up this way has buffers in system memory only; give it
    /// its local-memory BAR with [`Gpu::with_local_memory`].
    pub fn new(
        platform: &'a P,
        device: &'a dyn DeviceIo,
        generation: Generation,
    ) -> Result<Self, GpuError> {
        Self::new_avoiding(platform, device, generation, &[])
    }

    /// [`Gpu::new`] with the GPU's local memory as the CPU reaches it (the
    /// BAR2 aperture, [`crate::platform::MappedLocalBar`] on hardware), for
    /// buffers in [`Placement::Local`]. Generations without local memory
    /// ignore it.
    pub fn with_local_memory(
        platform: &'a P,
        device: &'a dyn DeviceIo,
        generation: Generation,
        local: &'a dyn LocalMemory,
    ) -> Result<Self, GpuError> {
        Self::bring_up_with(platform, device, generation, &[], local)
    }

    /// [`Gpu::new`], with the driver's own GGTT objects (status pages, rings)
    /// placed outside the `(address, bytes)` ranges of `keep_free`, so that
    /// the caller can map its memory there afterwards with
    /// [`Gpu::map_buffer_at`] (before anything else allocates GGTT space).
    /// An error when a range is unaligned, overlaps another or page 0, or
    /// lies beyond the GGTT. Gen12.5 places nothing at fixed GGTT
    /// addresses: a non-empty `keep_free` is [`GpuError::Unsupported`].
    pub fn new_avoiding(
        platform: &'a P,
        device: &'a dyn DeviceIo,
        generation: Generation,
        keep_free: &[(GfxAddr, u64)],
    ) -> Result<Self, GpuError> {
        Self::bring_up_with(platform, device, generation, keep_free, &NO_LOCAL_MEMORY)
    }

    fn bring_up_with(
        platform: &'a P,
        device: &'a dyn DeviceIo,
        generation: Generation,
        keep_free: &[(GfxAddr, u64)],
        local: &'a dyn LocalMemory,
    ) -> Result<Self, GpuError> {
        // The generation's description decides: an execlist GPU has no ring
        // profile, a ring GPU no execlist registers.
        #[cfg(feature = "gen12_5")]
        if ExeclistBackend::<P>::drives(generation) {
            if !keep_free.is_empty() {
                return Err(GpuError::Unsupported(generation));
            }
            let backend = ExeclistBackend::new(platform, device, generation, local)?;
            return Ok(Self {
                backend: Backend::Execlist(backend),
            });
        }
        let _ = local;
        let backend = RingBackend::new_avoiding(platform, device, generation, keep_free)?;
        Ok(Self {
            backend: Backend::Ring(backend),
        })
    }

    pub fn generation(&self) -> Generation {
        on_backend!(&self.backend, b => b.generation())
    }

    /// What bring-up found and did: the PCI command register, GGTT size, stolen
    /// memory, the firmware's GGTT ranges kept, the scratch page.
    pub fn bring_up(&self) -> &BringUpReport {
        on_backend!(&self.backend, b => b.bring_up())
    }

    /// The engines, by [`EngineId`].
    pub fn engines(&self) -> impl Iterator<Item = &EngineInfo> {
        let infos: &[EngineInfo] = on_backend!(&self.backend, b => b.engine_infos());
        infos.iter()
    }

    /// The engine named `name` in the tables ("render", "video", "blitter", "compute").
    pub fn engine_named(&self, name: &str) -> Option<EngineId> {
        self.engines().position(|e| e.name == name).map(EngineId)
    }

    /// The engine that executes the XY_* blitter commands: the blitter
    /// engine on Gen6 and later, the render ring on Gen4/G45.
    pub fn blit_engine(&self) -> Option<EngineId> {
        self.engines().position(|e| e.runs_blits).map(EngineId)
    }

    /// Makes unused GGTT entries invalid instead of pointing at the scratch page
    /// ([`Ggtt::invalidate_unused`]): stray accesses then fault and are reported.
    /// For debugging tools; drivers leave the scratch page, as Linux does.
    /// Gen12.5 keeps no scratch page: the driver points no unused entry
    /// anywhere, and this changes nothing.
    pub fn invalidate_unused_ggtt(&mut self) {
        match &mut self.backend {
            Backend::Ring(r) => r.invalidate_unused_ggtt(),
            #[cfg(feature = "gen12_5")]
            Backend::Execlist(_) => {}
        }
    }

    /// The GGTT manager of Gen4-Gen7 (32-bit entries, for mapping buffers
    /// the batches use); [`GpuError::Unsupported`] on Gen12.5, whose GGTT
    /// the driver manages through [`Gpu::map_buffer`] and [`Gpu::buffer`] only.
    pub fn ggtt(&mut self) -> Result<&mut Ggtt, GpuError> {
        match &mut self.backend {
            Backend::Ring(r) => Ok(r.ggtt()),
            #[cfg(feature = "gen12_5")]
            Backend::Execlist(_) => Err(GpuError::Unsupported(Generation::Gen12_5)),
        }
    }

    pub fn mmio(&self) -> &'a dyn Mmio {
        on_backend!(&self.backend, b => b.mmio())
    }

    /// Allocates DMA memory and maps it in the GGTT. The memory goes back to
    /// the platform when the returned [`Dma`] is dropped; the GGTT range
    /// when the mapping is given to [`Gpu::unmap`] (a buffer dropped while
    /// still mapped leaves its range in use until the `Gpu` goes).
    pub fn map_buffer(&mut self, bytes: usize) -> Result<(Dma<'a>, Mapping), GpuError> {
        on_backend!(&mut self.backend, b => b.map_buffer(bytes))
    }

    /// Allocates DMA memory of `bytes` (rounded up to pages) and maps it in
    /// the GGTT at exactly `gfx`: an error when the range is unaligned, in
    /// use (by the driver's rings and status pages too) or beyond the GGTT.
    /// [`GpuError::Unsupported`] on Gen12.5 (contexts take fixed addresses:
    /// [`Gpu::map_in_context_at`]).
    pub fn map_buffer_at(
        &mut self,
        gfx: GfxAddr,
        bytes: usize,
    ) -> Result<(Dma<'a>, Mapping), GpuError> {
        match &mut self.backend {
            Backend::Ring(r) => r.map_buffer_at(gfx, bytes),
            #[cfg(feature = "gen12_5")]
            Backend::Execlist(_) => Err(GpuError::Unsupported(Generation::Gen12_5)),
        }
    }

    /// Gives back the GGTT range of a buffer from [`Gpu::map_buffer`] or
    /// [`Gpu::map_buffer_at`] (its PTEs are invalidated). Unmap a buffer
    /// before dropping it once no submitted work uses it any more.
    pub fn unmap(&mut self, mapping: Mapping) {
        on_backend!(&mut self.backend, b => b.unmap(mapping))
    }

    /// A buffer of `bytes` (whole pages) in `placement`, mapped in the GGTT.
    /// [`Placement::Local`] needs local memory (Gen12.5 brought up with
    /// [`Gpu::with_local_memory`]): [`GpuError::Unsupported`] on the older
    /// generations, [`GpuError::NoLocalMemory`] when the GPU has none
    /// behind the seam.
    pub fn buffer(&mut self, bytes: u64, placement: Placement) -> Result<Buffer<'a>, GpuError> {
        on_backend!(&mut self.backend, b => b.buffer(bytes, placement))
    }

    /// A buffer of `bytes` in `placement`, mapped in `ctx`'s PPGTT only.
    pub fn context_buffer(
        &mut self,
        ctx: ContextId,
        bytes: u64,
        placement: Placement,
    ) -> Result<Buffer<'a>, GpuError> {
        on_backend!(&mut self.backend, b => b.context_buffer(ctx, None, bytes, placement))
    }

    /// A buffer of `bytes` in `placement`, mapped in `ctx`'s PPGTT at exactly `gfx`.
    pub fn context_buffer_at(
        &mut self,
        ctx: ContextId,
        gfx: GfxAddr,
        bytes: u64,
        placement: Placement,
    ) -> Result<Buffer<'a>, GpuError> {
        on_backend!(&mut self.backend, b => b.context_buffer(ctx, Some(gfx), bytes, placement))
    }

    /// Gives a buffer's graphics range (and local memory) back. Call it once
    /// no submitted work uses the buffer. (Gen6/Gen7 keep a context
    /// buffer's PPGTT range reserved until the `Gpu` goes.)
    pub fn free_buffer(&mut self, buffer: Buffer<'a>) {
        on_backend!(&mut self.backend, b => b.free_buffer(buffer))
    }

    /// Enables interrupts: the device signals the OS by `mode` (an MSI address and
    /// data the OS chose, or INTx) whenever an engine finishes a submission (its
    /// MI_USER_INTERRUPT) or reports an error. [`Gpu::wait`] then sleeps in
    /// [`Platform::wait_for_interrupt`] instead of polling (rings and execlists). The OS routes the
    /// interrupt to a handler that calls [`Gpu::handle_interrupt`].
    pub fn enable_interrupts(&mut self, mode: InterruptMode) -> Result<(), GpuError> {
        on_backend!(&mut self.backend, b => b.enable_interrupts(mode))
    }

    /// How interrupts reach the OS (`None`: not enabled, the driver polls).
    pub fn interrupt_mode(&self) -> Option<InterruptMode> {
        on_backend!(&self.backend, b => b.interrupt_mode())
    }

    /// The handler alone: registers only, for an OS whose interrupt handler cannot
    /// reach the `Gpu` (it is busy in a wait on another CPU). What it finds is not
    /// recorded in the `Gpu`; the waits read completion from the status pages.
    /// Gen4-Gen7 ([`GpuError::Unsupported`] on Gen12.5, whose handler
    /// acknowledges through the `Gpu`: [`Gpu::handle_interrupt`]).
    pub fn interrupt_handler(&self) -> Result<InterruptHandler<'a>, GpuError> {
        match &self.backend {
            Backend::Ring(r) => Ok(r.interrupt_handler()),
            #[cfg(feature = "gen12_5")]
            Backend::Execlist(_) => Err(GpuError::Unsupported(Generation::Gen12_5)),
        }
    }

    /// What the OS calls when the GPU's interrupt arrives: reads and acknowledges
    /// the pending interrupts as Linux i915's handlers do, records them, and
    /// returns which engines signalled (and which reported errors).
    pub fn handle_interrupt(&mut self) -> Signalled {
        on_backend!(&mut self.backend, b => b.handle_interrupt())
    }

    /// What the handler has recorded since the last call, cleared.
    pub fn take_signalled(&mut self) -> Signalled {
        on_backend!(&mut self.backend, b => b.take_signalled())
    }

    /// Unmasks the user interrupts of every engine without routing them to
    /// the OS: [`Gpu::take_interrupts`] reads them.
    pub fn enable_user_interrupts(&mut self) {
        on_backend!(&mut self.backend, b => b.enable_user_interrupts())
    }

    /// Reads and acknowledges the pending interrupts: the engines' bits
    /// ([`Gpu::user_interrupt_bit`]) whose user interrupt fired (Gen4-Gen7:
    /// IIR as it was, other bits too).
    pub fn take_interrupts(&mut self) -> u32 {
        on_backend!(&mut self.backend, b => b.take_interrupts())
    }

    /// Reads and acknowledges the pending engine interrupts with each
    /// engine's interrupt vector ([`USER_INTERRUPT`], [`ERROR_INTERRUPT`],
    /// [`CONTEXT_SWITCH_INTERRUPT`]): Gen12.5; the older generations have
    /// no per-engine vectors ([`GpuError::Unsupported`]).
    pub fn take_interrupt_vectors(&mut self) -> Result<Vec<(EngineId, u16)>, GpuError> {
        execlist_only!(self, b => Ok(b.take_interrupt_vectors()))
    }

    /// Whether the PCI function shows an interrupt (the status register's bit).
    pub fn interrupt_pending(&self) -> bool {
        let device = on_backend!(&self.backend, b => b.device());
        device.config_read32(baregpu_hal::pci::COMMAND) & baregpu_hal::pci::STATUS_INTERRUPT != 0
    }

    /// The bit of an engine in [`Gpu::take_interrupts`]'s value.
    pub fn user_interrupt_bit(&self, engine: EngineId) -> Option<u32> {
        self.engines().nth(engine.0).map(|e| e.user_interrupt_bit)
    }

    /// A new, empty batch of `bytes` (rounded up to pages), mapped in the
    /// GGTT (on Gen12.5 it runs in the engine's kernel context).
    pub fn new_batch(&mut self, bytes: usize) -> Result<Batch<'a>, GpuError> {
        on_backend!(&mut self.backend, b => b.new_batch(bytes))
    }

    /// A new batch that runs in a context's PPGTT.
    pub fn new_context_batch(
        &mut self,
        ctx: ContextId,
        bytes: usize,
    ) -> Result<Batch<'a>, GpuError> {
        on_backend!(&mut self.backend, b => b.new_context_batch(ctx, bytes))
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
        // SAFETY: the caller's promise, passed on.
        on_backend!(&self.backend, b => unsafe {
            b.placed_batch(memory, region_gfx, start, context, decode_bytes)
        })
    }

    /// [`Gpu::placed_batch`] in a [`Buffer`] of system memory (`None` for
    /// local memory, which the driver does not read back to decode).
    ///
    /// # Safety
    /// As for [`Gpu::placed_batch`]: `buffer` must stay alive and mapped
    /// until the batch's fence completes, the engine is reset, or the `Gpu`
    /// is dropped.
    pub unsafe fn placed_batch_in(
        &self,
        buffer: &Buffer<'_>,
        start: GfxAddr,
        decode_bytes: usize,
    ) -> Option<Batch<'a>> {
        let memory = buffer.system()?;
        // SAFETY: the caller's promise, passed on.
        unsafe { self.placed_batch(memory, buffer.gfx, start, buffer.context, decode_bytes) }
    }

    /// Submits a batch to `engine`; returns the fence that completes with it.
    pub fn submit(&mut self, engine: EngineId, batch: Batch<'a>) -> Result<Fence, GpuError> {
        on_backend!(&mut self.backend, b => b.submit(engine, batch))
    }

    /// The last seqno `engine` completed (read from its status page).
    pub fn completed(&self, engine: EngineId) -> u32 {
        on_backend!(&self.backend, b => b.completed(engine))
    }

    /// Whether the fence has completed (without waiting).
    pub fn poll(&mut self, fence: Fence) -> bool {
        on_backend!(&mut self.backend, b => b.poll(fence))
    }

    /// Waits for a fence. On timeout or an engine error the engine's state is
    /// captured and decoded, the engine is reset and restarted, and the error
    /// is returned as [`GpuError::Hang`]; the engine takes new work afterwards,
    /// and work that was queued behind is [`GpuError::Lost`]. `timeout_us` is
    /// time on the platform's clock ([`Platform::now_ns`]); any value works,
    /// `u64::MAX` is no limit.
    pub fn wait(&mut self, fence: Fence, timeout_us: u64) -> Result<(), GpuError> {
        on_backend!(&mut self.backend, b => b.wait(fence, timeout_us))
    }

    /// Creates a context with its own PPGTT: buffers mapped in it are
    /// invisible to every other context. Gen4/G45 have no PPGTT contexts
    /// here: [`GpuError::Unsupported`].
    pub fn create_context(&mut self) -> Result<ContextId, GpuError> {
        on_backend!(&mut self.backend, b => b.create_context())
    }

    /// Destroys a context once every engine is done with it: its images,
    /// rings and page tables go back to the platform. Its buffers must be
    /// dropped by the caller (their addresses mean nothing any more).
    /// Gen12.5; [`GpuError::Unsupported`] on the older generations, whose
    /// contexts live as long as the `Gpu`.
    #[cfg_attr(not(feature = "gen12_5"), allow(unused_variables))]
    pub fn destroy_context(&mut self, ctx: ContextId) -> Result<(), GpuError> {
        execlist_only!(self, b => b.destroy_context(ctx))
    }

    /// Allocates DMA memory and maps it in a context's PPGTT.
    pub fn map_in_context(
        &mut self,
        ctx: ContextId,
        bytes: usize,
    ) -> Result<(Dma<'a>, GfxAddr), GpuError> {
        on_backend!(&mut self.backend, b => b.map_in_context(ctx, bytes))
    }

    /// Allocates DMA memory of `bytes` (rounded up to pages) and maps it in a
    /// context's PPGTT at exactly `gfx`: an error when the range is
    /// unaligned, in use (page 0 always is) or beyond the address space
    /// (2 GiB on Gen6/Gen7, 48 bits on Gen12.5).
    pub fn map_in_context_at(
        &mut self,
        ctx: ContextId,
        gfx: GfxAddr,
        bytes: usize,
    ) -> Result<(Dma<'a>, GfxAddr), GpuError> {
        on_backend!(&mut self.backend, b => b.map_in_context_at(ctx, gfx, bytes))
    }

    /// How `gfx` is mapped in `ctx`'s PPGTT: the page size the driver chose
    /// (Gen12.5; `Ok(None)` when unmapped; [`GpuError::Unsupported`] on the rings).
    #[cfg(feature = "gen12_5")]
    pub fn context_page_size(
        &mut self,
        ctx: ContextId,
        gfx: GfxAddr,
    ) -> Result<Option<crate::gtt::gen12::PageSize>, GpuError> {
        execlist_only!(self, b => b.context_page_size(ctx, gfx))
    }

    /// The context status events seen on `engine` so far, oldest first
    /// (Gen12.5's execlists; [`GpuError::Unsupported`] on the rings).
    #[cfg(feature = "gen12_5")]
    pub fn csb_events(&mut self, engine: EngineId) -> Result<Vec<CsbEvent>, GpuError> {
        execlist_only!(self, b => b.csb_events(engine))
    }

    /// The software context ID a driver context (`None`: the engine's
    /// kernel context) has on `engine`, as context status events name it
    /// (Gen12.5; [`GpuError::Unsupported`] on the rings).
    #[cfg_attr(not(feature = "gen12_5"), allow(unused_variables))]
    pub fn context_sw_id(&self, ctx: Option<ContextId>, engine: EngineId) -> Result<u32, GpuError> {
        match &self.backend {
            Backend::Ring(r) => Err(GpuError::Unsupported(r.generation())),
            #[cfg(feature = "gen12_5")]
            Backend::Execlist(b) => Ok(b.context_sw_id(ctx, engine)),
        }
    }
}
