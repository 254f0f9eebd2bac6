//! The shared functions that touch memory: the data ports, the URB, the
//! sampler (as far as compute needs) and the Gen4/G45 extended-math
//! message, as handlers that read a thread's payload and write its response
//! registers with the manuals' layouts.
//!
//! [`handle`] serves one [`SendRequest`] against a [`MessageEnv`] (memory,
//! binding table, shared local memory, general state, scratch, URB). It
//! answers [`Handled::NotMine`] for the gateway and the thread spawner,
//! which the EU array serves itself. [`MemoryUnits`] owns a simple
//! environment and implements [`SharedFunctions`] for the harness and
//! tests.
//!
//! Files: `memory` (the memory trait and its simple version), `surface`
//! (SURFACE_STATE, the binding-table lookup, tiling, bounds), `access` (byte
//! windows with the out-of-bounds rules, lane gathers and scatters),
//! `payload` (payload and response registers), `memo` (decoded
//! descriptors and surfaces kept between messages), `dataport/` (every
//! data-port message), `urb`, `math_msg`, `sampler`.
//!
//! Descriptors are interpreted by `baregpu_isa::message::decode`, which
//! cites each field; the handlers cite the payload layouts.

mod access;
pub(crate) mod dataport;
pub mod math_msg;
pub mod memo;
pub mod memory;
pub mod multisample;
mod payload;
pub mod pixel;
pub mod sampler;
pub mod surface;
pub mod urb;
pub mod xe;

use alloc::vec::Vec;

use baregpu_isa::inst::{MsgDesc, Sfid};
use baregpu_isa::message::{self, Message};

use crate::eu::send::{SendError, SendRequest, SharedFunctions};
use crate::eu::thread::Thread;

pub use dataport::atomic;
pub(crate) use dataport::render_target;
pub use memo::{DecodeMemo, Memos, SurfaceMemo};
pub use memory::{FlatMemory, GeneralState, GfxMemory, MemFault, Scratch};
pub use pixel::{DispatchFlags, Fixed, PixelBackend, PixelDispatch, RtWrite, SampleDispatch};
pub use surface::{
    BindingTable, Bit6Swizzle, Surface, SurfaceError, SurfaceKind, SurfaceList, Surfaces, Tiling,
};
pub use urb::{Gs7Snoop, GsSnoop, Urb};

use payload::{Msg, bad};

/// Binding-table index of the Gen7 shared local memory [ext: mesa
/// brw_eu_defines.h GEN7_BTI_SLM].
pub const BTI_SLM: u8 = 254;
/// Binding-table index of the stateless model (000 lines 4327-4340).
pub const BTI_STATELESS: u8 = 255;

/// Where binding-table indices are resolved.
pub enum SurfaceSource<'a> {
    /// The caller's lookup.
    List(&'a mut dyn Surfaces),
    /// The binding table in graphics memory, read through the env's memory.
    Table(BindingTable),
}

/// Everything a message may touch besides the thread.
pub struct MessageEnv<'a> {
    pub memory: &'a mut dyn GfxMemory,
    pub surfaces: SurfaceSource<'a>,
    /// Shared local memory of the thread's group (Gen7, BTI 254).
    pub slm: Option<&'a mut [u8]>,
    /// Stateless accesses and scratch space are relative to this.
    pub general_state: GeneralState,
    /// Gen7 scratch block messages; `None` refuses them.
    pub scratch: Option<Scratch>,
    /// URB writes land here; `None` refuses them.
    pub urb: Option<&'a mut Urb>,
    /// The output merger render-target writes go through; `None` writes
    /// them directly (media and GPGPU threads, the harness).
    pub pixels: Option<&'a mut dyn PixelBackend>,
    /// The sending pixel thread's pixels.
    pub pixel_dispatch: Option<&'a PixelDispatch>,
    /// Where the thread's SAMPLER_STATE is; `None` samples with
    /// `sampling` instead.
    pub samplers: Option<sampler::SamplerSource>,
    /// Sampler settings (address mode) used when there is no
    /// SAMPLER_STATE (`samplers` is `None`).
    pub sampling: sampler::Sampling,
    /// The memory fault behind the last `SendError::Bad("memory fault")`.
    pub fault: Option<MemFault>,
    /// Decoded descriptors and SURFACE_STATEs kept between messages;
    /// `None` decodes everything afresh.
    pub memos: Option<&'a mut Memos>,
    /// The last surface looked up, until the next memory write: a message
    /// asks for its surface more than once.
    last_surface: Option<(u8, Surface)>,
}

impl<'a> MessageEnv<'a> {
    /// An environment with only memory and surfaces.
    pub fn new(memory: &'a mut dyn GfxMemory, surfaces: SurfaceSource<'a>) -> MessageEnv<'a> {
        MessageEnv {
            memory,
            surfaces,
            slm: None,
            general_state: GeneralState::default(),
            scratch: None,
            urb: None,
            pixels: None,
            pixel_dispatch: None,
            samplers: None,
            sampling: sampler::Sampling::default(),
            fault: None,
            memos: None,
            last_surface: None,
        }
    }

    /// The surface bound at `bti` (0-253).
    pub fn surface(&mut self, bti: u8) -> Result<Surface, SendError> {
        if let Some((b, s)) = self.last_surface
            && b == bti
        {
            return Ok(s);
        }
        let r = match &mut self.surfaces {
            SurfaceSource::List(s) => s.surface(bti),
            SurfaceSource::Table(t) => match self.memos.as_deref_mut() {
                Some(m) => m.resolve(*t, &mut *self.memory, bti),
                None => t.resolve(&mut *self.memory, bti),
            },
        };
        if let Ok(s) = r {
            self.last_surface = Some((bti, s));
        }
        r.map_err(|e| match e {
            SurfaceError::Unbound(_) => bad("no surface at this binding-table index"),
            SurfaceError::Fault(f) => {
                self.fault = Some(f);
                bad("memory fault reading the binding table (see MessageEnv::fault)")
            }
            SurfaceError::BadState(s) => bad(s),
        })
    }
}

/// What [`handle`] did with a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handled {
    /// Served (payload consumed, response written).
    Done,
    /// A gateway or thread-spawner message: the EU array serves those.
    NotMine,
}

/// Serves one message: data port, URB, sampler, Gen4/G45 math, or the null
/// function (which does nothing). Errors describe a malformed message or a
/// memory fault; nothing panics on any payload or descriptor.
pub fn handle(
    env: &mut MessageEnv,
    thread: &mut Thread,
    req: &SendRequest,
) -> Result<Handled, SendError> {
    let p = thread.platform();
    let sfid = req.sfid.ok_or(bad("reserved shared function ID"))?;
    if matches!(sfid, Sfid::Gateway | Sfid::ThreadSpawner) {
        return Ok(Handled::NotMine);
    }
    let desc = MsgDesc {
        mlen: req.mlen,
        rlen: req.rlen,
        header: req.header,
        function: req.function,
    };
    let decoded = match env.memos.as_deref_mut() {
        Some(memo) => memo.decode(p, sfid, &desc),
        None => message::decode(p, sfid, &desc),
    }
    .map_err(|_| bad("descriptor does not decode"))?;
    let mut m = Msg { thread, req };
    match decoded {
        Message::Null => {}
        Message::DataPort(d) => dataport::handle(env, &mut m, &d)?,
        Message::Urb(u) => urb::handle(env, &mut m, &u)?,
        Message::Math(x) => math_msg::handle(&mut m, &x)?,
        Message::Sampler(s) => sampler::handle(env, &mut m, &s)?,
        Message::Gateway(_) | Message::Spawner(_) => return Ok(Handled::NotMine),
        Message::Other {
            sfid: Sfid::Sampler,
            function,
        } => return Err(sampler::refuse_simd32_64(p, function)),
        Message::Other { .. } => return Err(SendError::Unhandled),
    }
    Ok(Handled::Done)
}

/// A self-contained set of memory shared functions for the harness and
/// tests: a flat memory, surfaces from a list or from a binding table in
/// memory, SLM, scratch, a URB.
/// Gateway and spawner messages are accepted only as the thread's EOT
/// message (the thread ends; nothing else happens).
pub struct MemoryUnits<M: GfxMemory = FlatMemory> {
    pub memory: M,
    pub surfaces: SurfaceList,
    /// A binding table in `memory` to take surfaces from (SURFACE_STATEs
    /// decoded as the data port meets them) instead of `surfaces`.
    pub binding_table: Option<BindingTable>,
    pub slm: Vec<u8>,
    pub general_state: GeneralState,
    pub scratch: Option<Scratch>,
    pub urb: Urb,
    /// Where SAMPLER_STATE is; `None` uses `sampling`.
    pub samplers: Option<sampler::SamplerSource>,
    pub sampling: sampler::Sampling,
    /// The fault behind the last memory-fault error.
    pub fault: Option<MemFault>,
    /// Messages served, for tests.
    pub served: u64,
}

impl<M: GfxMemory> MemoryUnits<M> {
    pub fn new(memory: M) -> MemoryUnits<M> {
        MemoryUnits {
            memory,
            surfaces: SurfaceList::new(),
            binding_table: None,
            slm: Vec::new(),
            general_state: GeneralState::default(),
            scratch: None,
            urb: Urb::new(0),
            samplers: None,
            sampling: sampler::Sampling::default(),
            fault: None,
            served: 0,
        }
    }

    /// Serves one message (what [`SharedFunctions::send`] does, with the
    /// [`Handled`] answer).
    pub fn serve(&mut self, thread: &mut Thread, req: &SendRequest) -> Result<Handled, SendError> {
        let slm = (!self.slm.is_empty()).then_some(self.slm.as_mut_slice());
        let mut env = MessageEnv {
            memory: &mut self.memory,
            surfaces: match self.binding_table {
                Some(t) => SurfaceSource::Table(t),
                None => SurfaceSource::List(&mut self.surfaces),
            },
            slm,
            general_state: self.general_state,
            scratch: self.scratch,
            urb: Some(&mut self.urb),
            pixels: None,
            pixel_dispatch: None,
            samplers: self.samplers,
            sampling: self.sampling,
            fault: None,
            memos: None,
            last_surface: None,
        };
        let r = handle(&mut env, thread, req);
        self.fault = env.fault;
        self.served += 1;
        r
    }
}

impl<M: GfxMemory> SharedFunctions for MemoryUnits<M> {
    fn send(&mut self, thread: &mut Thread, req: &SendRequest) -> Result<(), SendError> {
        match self.serve(thread, req)? {
            Handled::Done => Ok(()),
            Handled::NotMine if req.eot => Ok(()),
            Handled::NotMine => Err(SendError::Unhandled),
        }
    }
}
