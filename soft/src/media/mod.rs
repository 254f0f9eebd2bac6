//! The software GPU's media and GPGPU pipelines: the video front end and
//! thread spawner state the render command streamer's media commands load,
//! the dispatch commands that start threads (MEDIA_OBJECT,
//! MEDIA_OBJECT_WALKER, GPGPU_WALKER), and the EU array they run on.
//!
//! Files: `state` (PIPELINE_SELECT, STATE_BASE_ADDRESS, VFE state, CURBE,
//! interface descriptors, the Gen4/G45 URB and constant commands),
//! `descriptor` (interface descriptors per generation), `dispatch` (a
//! thread's payload and start), `walker` (the walkers' iteration).
//!
//! The media unit is one the render command streamer calls (`cs::units`
//! holds the streamer's side: gating commands on the threads, the run
//! budget, turning a [`MediaError`] into an engine error); it reaches
//! memory only through the [`GfxMemory`] views the streamer hands it.
//!
//! Ordering: a MEDIA_OBJECT starts its thread and lets the command
//! streamer move on (it waits only for a free thread slot); a walker stays
//! the current command until every thread it started has ended; any other
//! command waits until the array is idle. The hardware only promises the
//! last at a flush with a command-streamer stall; waiting at every command
//! is stricter, never looser, and keeps a fence write after the threads'
//! writes.
//!
//! Not modelled: the scoreboard (threads start in command order and their
//! dependencies are not checked), synchronized root threads and child
//! threads (refused), MEDIA_OBJECT_PRT and GPGPU_OBJECT (refused as not
//! modelled rather than skipped), indirect GPGPU_WALKER parameters and
//! predication (refused).

mod descriptor;
mod dispatch;
mod state;
pub(crate) mod three_d;
mod walker;

pub(crate) use crate::gpe::Bases;

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::command::{Cmd, F};
use baregpu_hal::Generation;
use baregpu_hal::device::{self, ScratchEncoding};
use baregpu_isa::IsaGen;

use crate::eu::array::{EuArray, EuConfig, EuFailure, EuReport, ProgramCache};
use crate::eu::shared::{GfxMemory, MemFault};
use crate::mem::Space;

/// The media unit of a device of generation `g`, if it has one: its EU instruction
/// set and its limits come from the device description (`eu_isa`, `[compute]`).
pub(crate) fn new_media(g: Generation) -> Option<Box<Media>> {
    let d = device::of(g)?;
    let platform = IsaGen::from_name(d.eu_isa)?;
    Some(Box::new(Media::new(platform, d.compute?.scratch)))
}

/// Whether the engine named `engine` has the media unit: the media and
/// GPGPU pipelines hang off the render command streamer.
pub(crate) fn on_engine(engine: &str) -> bool {
    engine == "render"
}

/// The media commands the model executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MediaOp {
    PipelineSelect,
    StateBaseAddress,
    VfeState,
    CurbeLoad,
    DescriptorLoad,
    GatewayState,
    StateFlush,
    Object,
    ObjectWalker,
    GpgpuWalker,
    /// 965/G45: MEDIA_STATE_POINTERS (the VFE state in memory).
    StatePointers,
    /// 965/G45: URB_FENCE and CS_URB_STATE (URB partitioning, no effect on
    /// the model).
    UrbLayout,
    /// 965/G45: CONSTANT_BUFFER (the CURBE).
    ConstantBuffer,
    /// Dispatch commands the model does not run (MEDIA_OBJECT_PRT,
    /// GPGPU_OBJECT): refused as not modelled, so that their threads are
    /// not silently lost.
    Unsupported,
    /// A 3DSTATE_* command: kept by the 3D front end (`render3d::front`).
    /// The 3D pipeline shares the EU array with the media pipelines, so
    /// the media unit holds its state; Gen6 and Gen7, the others refuse it.
    State3d(&'static str),
    /// 3DPRIMITIVE: a draw, run in the gate like the walkers.
    Primitive,
}

impl MediaOp {
    pub fn of(name: &'static str) -> Option<MediaOp> {
        Some(match name {
            "PIPELINE_SELECT" => MediaOp::PipelineSelect,
            "STATE_BASE_ADDRESS" => MediaOp::StateBaseAddress,
            "MEDIA_VFE_STATE" => MediaOp::VfeState,
            "MEDIA_CURBE_LOAD" => MediaOp::CurbeLoad,
            "MEDIA_INTERFACE_DESCRIPTOR_LOAD" => MediaOp::DescriptorLoad,
            "MEDIA_GATEWAY_STATE" => MediaOp::GatewayState,
            "MEDIA_STATE_FLUSH" => MediaOp::StateFlush,
            "MEDIA_OBJECT" => MediaOp::Object,
            "MEDIA_OBJECT_WALKER" => MediaOp::ObjectWalker,
            "GPGPU_WALKER" => MediaOp::GpgpuWalker,
            "MEDIA_STATE_POINTERS" => MediaOp::StatePointers,
            "URB_FENCE" | "CS_URB_STATE" => MediaOp::UrbLayout,
            "CONSTANT_BUFFER" => MediaOp::ConstantBuffer,
            "MEDIA_OBJECT_PRT" | "GPGPU_OBJECT" => MediaOp::Unsupported,
            "3DPRIMITIVE" => MediaOp::Primitive,
            _ if name.starts_with("3DSTATE_") => MediaOp::State3d(name),
            _ => return None,
        })
    }
}

impl MediaOp {
    /// The fields the operation reads without a fallback (see
    /// `cs::table::required`). Those of one generation only (Gen7's GPGPU
    /// mode, the gateway bypass) are read as optional.
    pub(crate) fn required(self) -> &'static [F] {
        match self {
            MediaOp::StateBaseAddress => &[
                F::GeneralStateBaseAddress,
                F::GeneralStateBaseAddressModifyEnable,
                F::SurfaceStateBaseAddress,
                F::SurfaceStateBaseAddressModifyEnable,
                F::IndirectObjectBaseAddress,
                F::IndirectObjectBaseAddressModifyEnable,
            ],
            MediaOp::VfeState => &[
                F::MaximumNumberOfThreads,
                F::ScratchSpaceBasePointer,
                F::PerThreadScratchSpace,
            ],
            MediaOp::CurbeLoad => &[F::CurbeTotalDataLength, F::CurbeDataStartAddress],
            MediaOp::DescriptorLoad => &[
                F::InterfaceDescriptorTotalLength,
                F::InterfaceDescriptorDataStartAddress,
            ],
            MediaOp::GatewayState => &[F::BarrierId, F::BarrierByte, F::BarrierThreadCount],
            MediaOp::Object => &[
                F::InterfaceDescriptorOffset,
                F::IndirectDataLength,
                F::IndirectDataStartAddress,
            ],
            MediaOp::ObjectWalker => &[
                F::InterfaceDescriptorOffset,
                F::GlobalResolutionX,
                F::GlobalResolutionY,
                F::GlobalLoopExecCount,
                F::LocalLoopExecCount,
            ],
            MediaOp::GpgpuWalker => &[
                F::InterfaceDescriptorOffset,
                F::SimdSize,
                F::ThreadGroupIdXDimension,
                F::ThreadGroupIdYDimension,
                F::ThreadGroupIdZDimension,
                F::RightExecutionMask,
                F::BottomExecutionMask,
            ],
            MediaOp::StatePointers => &[F::VfeStatePointer],
            MediaOp::ConstantBuffer => &[F::Valid, F::BufferLength, F::BufferStartingAddress],
            MediaOp::PipelineSelect
            | MediaOp::StateFlush
            | MediaOp::UrbLayout
            | MediaOp::Unsupported
            | MediaOp::State3d(_)
            | MediaOp::Primitive => &[],
        }
    }
}

/// Why a media command failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MediaError {
    /// State or a kernel could not be read (or a thread's message faulted).
    Fault(MemFault),
    /// The command cannot execute with the state it has (no descriptors,
    /// a payload that does not fit, a feature the model lacks): the engine
    /// reports it like an unknown command.
    Command,
    /// As `Command`, for a draw whose state breaks a rule of the manual,
    /// with the rule: the engine reports it like an unknown command and
    /// the model keeps the reason for the host (`SoftGpu::invalid`).
    Invalid(&'static str),
    /// An EU thread stopped on an error the array detects when it happens
    /// (an instruction or operand it cannot execute, a message its shared
    /// function refuses, a run past the kernel's end). See
    /// [`Media::run_threads`] for how the engine reports it.
    Thread,
    /// A draw needs what the model does not have: refused with the reason
    /// (the engine's not-modelled error, naming it).
    Unmodelled(&'static str),
}

impl From<MemFault> for MediaError {
    fn from(f: MemFault) -> Self {
        MediaError::Fault(f)
    }
}

/// The selected pipeline (PIPELINE_SELECT).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Selected {
    #[default]
    ThreeD,
    Media,
    Gpgpu,
}

/// The video front end's state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Vfe {
    /// Threads that may run at once (Maximum Number of Threads + 1).
    pub max_threads: u32,
    /// Scratch Space Base Pointer (General State relative) and Per Thread
    /// Scratch Space code.
    pub scratch_base: u64,
    pub scratch_code: u8,
    /// Gen7 GPGPU mode.
    pub gpgpu: bool,
    /// Bypass Gateway Control.
    pub bypass_gateway: bool,
    /// 965/G45: Interface Descriptor Base Pointer (General State relative).
    pub descriptors: u64,
}

/// The media/GPGPU unit of the render engine.
pub(crate) struct Media {
    pub platform: IsaGen,
    /// How MEDIA_VFE_STATE's Per Thread Scratch Space code maps to bytes.
    pub scratch: ScratchEncoding,
    pub array: EuArray,
    pub cache: ProgramCache,
    pub selected: Selected,
    pub bases: Bases,
    pub vfe: Vfe,
    /// The CURBE: MEDIA_CURBE_LOAD (SNB+) or CONSTANT_BUFFER (965/G45).
    pub curbe: Vec<u8>,
    /// SNB+: the interface descriptors MEDIA_INTERFACE_DESCRIPTOR_LOAD
    /// loaded, as dwords.
    pub descriptors: Vec<u32>,
    /// The walker being executed.
    walk: Option<dispatch::Walk>,
    /// GPGPU_DISPATCHDIMX/Y/Z as the command streamer last loaded them
    /// (Gen7), for GPGPU_WALKER's Indirect Parameter Enable.
    pub dispatch_dims: [u32; 3],
    /// EU instructions the current run may still execute.
    pub allowance: u64,
    /// The address space of the resident threads.
    pub thread_space: Space,
    /// URB handles handed out (a counter: the model keeps no URB).
    urb_handles: u16,
    /// Root threads started (the Gen4 debug ID's object counter).
    roots: u32,
    /// The array's last failure; kept across resets for the report.
    pub last_report: Option<EuReport>,
    /// The 3D pipeline's state and draw.
    pub front: crate::render3d::front::Front,
    /// INSTPM CONSTANT_BUFFER Address Offset Disable, as the streamer saw
    /// it at the command being executed.
    pub constants_absolute: bool,
}

impl Media {
    pub fn new(platform: IsaGen, scratch: ScratchEncoding) -> Media {
        Media {
            platform,
            scratch,
            array: EuArray::new(platform, EuConfig::for_platform(platform)),
            cache: ProgramCache::new(),
            selected: Selected::default(),
            bases: Bases::default(),
            vfe: Vfe::default(),
            curbe: Vec::new(),
            descriptors: Vec::new(),
            walk: None,
            dispatch_dims: [0; 3],
            allowance: 0,
            thread_space: Space::Ggtt,
            urb_handles: 0,
            roots: 0,
            last_report: None,
            front: crate::render3d::front::Front::default(),
            constants_absolute: false,
        }
    }

    /// An engine reset: threads, walk and state are gone; the array's
    /// shape and counters stay.
    pub fn reset(&mut self) {
        // Threads still running keep an account for the report.
        if self.array.report().is_none()
            && let Some(r) = self.array.unfinished_report()
        {
            self.last_report = Some(r);
        }
        self.array.reset();
        self.cache.invalidate();
        self.selected = Selected::default();
        self.bases = Bases::default();
        self.vfe = Vfe::default();
        self.curbe.clear();
        self.descriptors.clear();
        self.walk = None;
        self.allowance = 0;
        self.thread_space = Space::Ggtt;
        self.front.reset();
    }

    /// Whether a dispatch command is under way: a walker or a draw the
    /// engine comes back to (its command is the current one).
    pub fn mid_dispatch(&self) -> bool {
        self.walk.is_some() || self.front.busy()
    }

    /// Whether threads are resident or a walker is unfinished.
    pub fn busy(&self) -> bool {
        !self.array.is_idle() || self.walk.is_some() || self.front.busy()
    }

    /// Decides whether the command `op` (`None`: not a media command) may
    /// execute now. Dispatch commands start their threads here. Returns
    /// false when the engine has to wait (threads still running, no free
    /// slot, the run's budget spent, or the array stopped on a failure).
    pub fn gate(
        &mut self,
        cmd: &mut dyn GfxMemory,
        threads: &mut dyn GfxMemory,
        c: &Cmd,
        op: Option<MediaOp>,
        dw: &[u32],
    ) -> Result<bool, MediaError> {
        if self.array.report().is_some() {
            return Ok(false);
        }
        match op {
            Some(MediaOp::Object) => self.object_gate(cmd, threads, c, dw),
            Some(MediaOp::ObjectWalker | MediaOp::GpgpuWalker) => {
                self.walk_gate(cmd, threads, c, op, dw)
            }
            Some(MediaOp::Primitive) if three_d::three_d_generation(self.platform).is_some() => {
                self.draw_gate(threads, dw)
            }
            _ => self.drain(threads),
        }
    }

    /// Runs the threads until the array is idle or the budget is spent.
    pub fn drain(&mut self, threads: &mut dyn GfxMemory) -> Result<bool, MediaError> {
        // A draw's threads need the URB and output merger it lends them:
        // they run when the engine comes back to its 3DPRIMITIVE.
        if self.front.busy() {
            return Ok(false);
        }
        loop {
            if self.array.is_idle() {
                return Ok(true);
            }
            if !self.run_threads(threads)? {
                return Ok(false);
            }
        }
    }

    /// One slice of the threads' time; false when nothing more can happen
    /// in this run (budget spent, a hang, or every thread asleep with
    /// nothing left to wake it: a deadlock, reported).
    ///
    /// A failed thread ends the dispatch at once. A memory fault is the
    /// page-table error it is on hardware. A thread error the array detects
    /// has no error bit of its own: on hardware it raises an EU exception
    /// that goes to the System Routine (003 lines 90905-90951 Illegal Opcode
    /// in cr0.1; 92849-92856 invoking the System Routine), which this model and
    /// driver do not install, so the thread would be lost and the engine
    /// stay busy. The model instead stops the engine with the fatal
    /// Instruction Error (EIR bit 0, 003 lines 12102-12150), IPEHR holding
    /// the header of the command the engine waits at (the dispatch), so the
    /// driver learns of it on its next poll instead of after its timeout.
    /// Endless threads (the lifetime budget) and a deadlock remain what they
    /// are on hardware: an engine that never finishes, for the driver's hang
    /// detection.
    fn run_threads(&mut self, threads: &mut dyn GfxMemory) -> Result<bool, MediaError> {
        if self.allowance == 0 || self.array.report().is_some() {
            return Ok(false);
        }
        let r = self.array.run(threads, self.allowance);
        self.allowance = self.allowance.saturating_sub(r.used);
        // Threads that ended freed slots: the caller may dispatch more, so
        // a stall is a deadlock only when nothing ended either.
        if r.stalled && r.ended == 0 {
            self.array.fail(EuFailure::Deadlock);
        }
        if let Some(report) = self.array.report() {
            self.last_report = Some(report.clone());
            return match report.failure {
                EuFailure::Fault(f) => Err(MediaError::Fault(f)),
                EuFailure::Error(_) | EuFailure::LeftKernel => Err(MediaError::Thread),
                EuFailure::Dispatch(_) => Err(MediaError::Command),
                EuFailure::Hang | EuFailure::Deadlock | EuFailure::Unfinished { .. } => Ok(false),
            };
        }
        Ok(true)
    }
}
