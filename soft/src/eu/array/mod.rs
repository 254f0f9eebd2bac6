//! The EU array: hardware thread slots on execution units, a deterministic
//! round-robin scheduler, thread dispatch with the payloads the pipelines
//! define, GPGPU thread groups (barriers, shared local memory), and the two
//! shared functions the array serves itself: the message gateway and the
//! thread spawner. Every other message goes to [`crate::eu::shared`].
//!
//! Files: `config` (sizes, scheduler knobs), `payload` (R0 headers and the
//! GRF image at dispatch), `cache` (predecode cache), `group` (thread
//! groups), `sched` (the run loop), `sf` (message routing, with the
//! `gateway` and the `spawner` inside), `report` (what went wrong,
//! counters).
//!
//! Slots: slot `s` is thread `s % threads_per_eu` of EU `s / threads_per_eu`
//! (sr0.0 EUID and TID). New threads take the free slot with the lowest
//! TID, spreading over the EUs first. The scheduler visits slots in index
//! order; each runnable thread runs a quantum of instructions.
//!
//! Nothing here panics on kernel bytes or payloads: a thread that fails is
//! reported ([`EuReport`]) and the array stops.

pub mod cache;
pub mod config;
pub mod group;
pub mod payload;
mod report;
mod sched;
mod sf;

use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec::Vec;

use baregpu_isa::IsaGen;

use crate::eu::predecode::Program;
use crate::eu::shared::sampler::SamplerSource;
use crate::eu::shared::{BindingTable, GeneralState, Memos, PixelDispatch, Scratch, SurfaceList};
use crate::eu::thread::Thread;
use crate::eu::thread::layout::N_BASE;

pub use cache::{CacheStats, ProgramCache};
pub use config::EuConfig;
pub use group::{GroupId, GroupSpec};
pub use payload::{Pipeline, RootHeader};
pub use report::{EuFailure, EuReport, EuStats, Event};

/// Where a thread's binding-table indices resolve.
#[derive(Clone, Debug)]
pub enum Bindings {
    /// A binding table in graphics memory (the pipelines' case).
    Table(BindingTable),
    /// Surfaces given directly (tests and tools).
    List(SurfaceList),
}

/// Everything the dispatcher knows about a new thread.
#[derive(Clone, Debug)]
pub struct ThreadStart {
    pub program: Arc<Program>,
    /// Graphics address of the kernel (for reports).
    pub kernel: u64,
    /// GRF image from r0, whole registers (see [`payload::build`]).
    pub payload: Vec<u8>,
    /// sr0 Dispatch Mask.
    pub dispatch_mask: u32,
    /// cr0.0 (floating-point mode, single program flow, Gen7 rounding) and
    /// cr0.1 (exception enables), as the dispatcher loads them.
    pub cr0: [u32; 2],
    /// sr0.0 FFID of the unit that made the thread.
    pub ffid: u8,
    /// Gen6+: `sr0.1[31:24]` FFTID. Gen4/G45: `sr0.1[23:20]` GRF register
    /// blocks.
    pub sr0_1_high: u8,
    pub bindings: Bindings,
    pub general_state: GeneralState,
    pub scratch: Option<Scratch>,
    pub group: Option<GroupId>,
    /// Where its sampler messages find SAMPLER_STATE; `None`: the
    /// model's fallback settings (`MemoryUnits::sampling`).
    pub samplers: Option<SamplerSource>,
    /// The dispatch index the thread holds while resident (its FFTID, and
    /// which scratch slice is its own); see [`EuArray::free_index`].
    pub index: u8,
    /// A pixel-shader thread's pixels, for its render-target writes.
    pub pixel: Option<Box<PixelDispatch>>,
}

/// Why a thread cannot start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartError {
    /// The slot is out of range or busy.
    SlotBusy,
    /// The payload does not fit the GRF.
    PayloadTooLarge,
}

/// The per-thread context the shared functions need.
pub(crate) struct Ctx {
    pub kernel: u64,
    pub bindings: Bindings,
    pub general_state: GeneralState,
    pub scratch: Option<Scratch>,
    pub group: Option<GroupId>,
    pub samplers: Option<SamplerSource>,
    pub pixel: Option<Box<PixelDispatch>>,
}

/// A resident thread.
pub(crate) struct Live {
    pub thread: Thread,
    pub program: Arc<Program>,
    pub ctx: Ctx,
    /// Asleep in `wait` until a notification arrives.
    pub waiting: bool,
    /// Its dispatch index (FFTID).
    pub index: u8,
}

/// One hardware thread slot.
#[derive(Default)]
pub(crate) struct Slot {
    pub live: Option<Box<Live>>,
    /// The notification registers survive the thread: "it is not reset at
    /// thread dispatch time" (003 line 91049).
    pub n0: [u32; 3],
}

/// What one call to [`EuArray::run`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunResult {
    /// Instructions executed.
    pub used: u64,
    /// Threads that ended.
    pub ended: u32,
    /// Nothing could run although threads are resident (every one waits
    /// for a notification).
    pub stalled: bool,
}

/// The EU array.
pub struct EuArray {
    platform: IsaGen,
    config: EuConfig,
    slots: Vec<Slot>,
    groups: group::Groups,
    gateway: sf::gateway::Gateway,
    /// Threads the dispatcher may have resident at once (MEDIA_VFE_STATE
    /// Maximum Number of Threads), at most the slots.
    limit: usize,
    resident: usize,
    /// Next slot the scheduler visits.
    cursor: usize,
    /// Instructions executed since reset: the array's clock.
    clock: u64,
    report: Option<EuReport>,
    stats: EuStats,
    log: Option<Vec<Event>>,
    /// Decoded descriptors and surface states, shared by every thread.
    memos: Memos,
}

impl EuArray {
    pub fn new(platform: IsaGen, config: EuConfig) -> EuArray {
        let config = config.sane();
        let n = config.threads();
        let mut slots = Vec::with_capacity(n);
        slots.resize_with(n, Slot::default);
        EuArray {
            platform,
            config,
            slots,
            groups: group::Groups::default(),
            gateway: sf::gateway::Gateway::new(n),
            limit: n,
            resident: 0,
            cursor: 0,
            clock: 0,
            report: None,
            stats: EuStats::default(),
            log: None,
            memos: Memos::default(),
        }
    }

    pub fn platform(&self) -> IsaGen {
        self.platform
    }

    pub fn config(&self) -> EuConfig {
        self.config
    }

    /// Drops every thread, group and gateway state, and the report (an
    /// engine reset). The configuration and counters stay.
    pub fn reset(&mut self) {
        for s in &mut self.slots {
            *s = Slot::default();
        }
        self.groups.clear();
        self.gateway = sf::gateway::Gateway::new(self.slots.len());
        self.resident = 0;
        self.cursor = 0;
        self.report = None;
        self.limit = self.slots.len();
    }

    /// A new shape: the array is rebuilt empty.
    pub fn reconfigure(&mut self, config: EuConfig) {
        let stats = self.stats;
        *self = EuArray::new(self.platform, config);
        self.stats = stats;
    }

    /// Limits the resident threads (MEDIA_VFE_STATE Maximum Number of
    /// Threads); at least one, at most the slots.
    pub fn set_limit(&mut self, threads: usize) {
        self.limit = threads.clamp(1, self.slots.len());
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Threads resident now.
    pub fn resident(&self) -> usize {
        self.resident
    }

    /// No thread is resident.
    pub fn is_idle(&self) -> bool {
        self.resident == 0
    }

    /// Slots free for new threads under the limit.
    pub fn free_slots(&self) -> usize {
        self.limit.saturating_sub(self.resident)
    }

    /// The slot the next thread goes to: the lowest TID, then the lowest
    /// EU, so consecutive threads spread over the EUs.
    pub fn free_slot(&self) -> Option<usize> {
        if self.free_slots() == 0 {
            return None;
        }
        let tpe = usize::from(self.config.threads_per_eu);
        (0..tpe)
            .flat_map(|tid| (0..usize::from(self.config.eus)).map(move |eu| eu * tpe + tid))
            .find(|&s| self.slots.get(s).is_some_and(|x| x.live.is_none()))
    }

    /// The lowest dispatch index no resident thread holds, below the limit:
    /// what the thread spawner gives a new root thread as its FFTID, "a
    /// unique identifier for the thread in comparison to other concurrent
    /// root threads" (003 lines 50626-50628), and what picks its slice of
    /// the scratch space, which is sized for the limit.
    pub fn free_index(&self) -> Option<u8> {
        let mut used = [false; 256];
        for s in &self.slots {
            if let Some(l) = &s.live {
                used[usize::from(l.index)] = true;
            }
        }
        (0..self.limit.min(256))
            .find(|&i| !used[i])
            .map(|i| i as u8)
    }

    /// (EUID, TID) of a slot.
    pub fn slot_ids(&self, slot: usize) -> (u8, u8) {
        let tpe = usize::from(self.config.threads_per_eu);
        ((slot / tpe) as u8, (slot % tpe) as u8)
    }

    /// The thread in `slot`, if one is resident.
    pub fn thread(&self, slot: usize) -> Option<&Thread> {
        self.slots.get(slot)?.live.as_ref().map(|l| &l.thread)
    }

    /// Opens a GPGPU thread group; `None` when no barrier ID is free.
    pub fn open_group(&mut self, spec: GroupSpec) -> Option<(GroupId, Option<u8>)> {
        self.groups.open(spec)
    }

    /// Groups open now.
    pub fn open_groups(&self) -> usize {
        self.groups.count()
    }

    /// Gen6 MEDIA_GATEWAY_STATE: barrier `id` completes when `threads`
    /// threads have sent a barrier message, and then writes `byte`.
    pub fn set_barrier_state(&mut self, id: u8, byte: u8, threads: u8) {
        self.gateway.set_barrier(id, byte, threads);
    }

    /// Starts a thread in a free slot: its registers from the payload, sr0
    /// and cr0 as the dispatcher sets them, IP 0.
    pub fn start(&mut self, slot: usize, s: ThreadStart) -> Result<(), StartError> {
        let (euid, tid) = self.slot_ids(slot);
        let p = self.platform;
        let entry = self.slots.get_mut(slot).ok_or(StartError::SlotBusy)?;
        if entry.live.is_some() {
            return Err(StartError::SlotBusy);
        }
        let mut t = Thread::new(p);
        let grf = t.grf_mut();
        if s.payload.len() > grf.len() {
            return Err(StartError::PayloadTooLarge);
        }
        grf[..s.payload.len()].copy_from_slice(&s.payload);
        // sr0.0: FFID 27:24, EUID 11:8, TID 2:0 (000 lines 8016-8036; 003
        // lines 90560-90620).
        t.set_sr0(
            0,
            u32::from(s.ffid & 0xF) << 24 | u32::from(euid & 0xF) << 8 | u32::from(tid & 7),
        );
        t.set_dispatch_mask(s.dispatch_mask);
        let high = u32::from(s.sr0_1_high);
        let sr1 = t.sr0(1);
        if p <= IsaGen::G45 {
            // sr0.1[23:20] GRF register blocks (000 line 8029).
            t.set_sr0(1, sr1 | (high & 0xF) << 20);
        } else {
            // sr0.1[31:24] FFTID (003 lines 90628-90632).
            t.set_sr0(1, sr1 | high << 24);
        }
        t.set_cr0(0, s.cr0[0]);
        t.set_cr0(1, s.cr0[1]);
        for (k, v) in entry.n0.iter().enumerate() {
            t.store32(N_BASE + 4 * k, *v);
        }
        t.set_ip(0);
        if let Some(g) = s.group {
            self.groups.started(g);
        }
        entry.live = Some(Box::new(Live {
            thread: t,
            program: s.program,
            ctx: Ctx {
                kernel: s.kernel,
                bindings: s.bindings,
                general_state: s.general_state,
                scratch: s.scratch,
                group: s.group,
                samplers: s.samplers,
                pixel: s.pixel,
            },
            waiting: false,
            index: s.index,
        }));
        self.resident += 1;
        self.stats.dispatched += 1;
        self.stats.peak_resident = self.stats.peak_resident.max(self.resident);
        if let Some(log) = &mut self.log {
            log.push(Event::Started { slot });
        }
        Ok(())
    }

    /// What stopped the array, if anything did.
    pub fn report(&self) -> Option<&EuReport> {
        self.report.as_ref()
    }

    /// The account of threads still resident, for an engine reset that
    /// comes before any failure (the driver's timeout ran out first): the
    /// first resident thread that is not asleep (else the first asleep), and
    /// how many there are. None when nothing is resident.
    pub fn unfinished_report(&self) -> Option<EuReport> {
        let resident = self.resident;
        let lives = || {
            self.slots
                .iter()
                .enumerate()
                .filter_map(|(i, s)| s.live.as_ref().map(|l| (i, l)))
        };
        let (idx, live) = lives()
            .find(|(_, l)| !l.waiting)
            .or_else(|| lives().next())?;
        Some(self.account(idx, live, EuFailure::Unfinished { resident }))
    }

    /// Stops the array with a failure found outside a thread (a dispatch
    /// that can never happen, a deadlock the dispatcher sees).
    pub fn fail(&mut self, failure: EuFailure) {
        if self.report.is_none() {
            self.report = Some(EuReport::general(failure));
        }
    }

    pub fn stats(&self) -> EuStats {
        self.stats
    }

    /// Instructions executed since the array was made.
    pub fn clock(&self) -> u64 {
        self.clock
    }

    /// Starts recording thread starts, ends and barrier completions.
    pub fn enable_log(&mut self) {
        self.log = Some(Vec::new());
    }

    pub fn log(&self) -> &[Event] {
        self.log.as_deref().unwrap_or(&[])
    }
}

impl EuArray {
    /// MEDIA_VFE_STATE Bypass Gateway Control: RegBase 0 and no open check
    /// for gateway messages (003 lines 87410-87418).
    pub fn set_bypass_gateway(&mut self, bypass: bool) {
        self.gateway.bypass = bypass;
    }

    /// The shared local memory of an open group.
    pub fn group_slm(&self, id: GroupId) -> Option<&[u8]> {
        self.groups.get(id).map(|g| g.slm.as_slice())
    }
}
