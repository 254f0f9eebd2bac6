//! The shared functions of Gen12.5 (Xe-HPG, DG2) threads: LSC messages on
//! UGM/UGML and SLM (`lsc`) and TGM (`tgm`: typed 2D surfaces, linear
//! and Tile4), some legacy dc1 messages (`hdc`: untyped surface
//! read/write, A64 scattered, A64 OWord block, media block; `hdc_atomic`:
//! the untyped integer and float atomics, A64 and surface) and dc0 ones
//! (`dc0`: OWord blocks, dword and byte scattered, scratch blocks, the
//! memory fence), the sampler's
//! basic forms (`sampler`, through the older sampling engine), the
//! gateway's barrier and end of thread.
//!
//! Public API (what a compute walker wires):
//! - memory is the [`GfxMemory`] trait the older generations use: on DG2
//!   the addresses are the context's PPGTT virtual addresses, and the
//!   implementation walks the PPGTT; a refused access becomes
//!   [`SendError::Fault`] with the address, which the thread reports as
//!   `ErrorKind::MemoryFault`;
//! - [`XeState`]: the bases STATE_BASE_ADDRESS and the interface
//!   descriptor give (surface state, bindless surface state, binding
//!   table, the base of flat A32 addresses);
//! - [`XeEnv`] borrows memory, state, the group's SLM and the [`Gateway`]
//!   for one message, [`serve`] runs it; [`XeUnits`] owns all of them and
//!   implements `SharedFunctions` for the harness and tests;
//! - barriers: a thread signals with the gateway's barrier message (counted
//!   in [`Gateway::barrier_signals`]) and then waits at `sync.bar`
//!   (`XeThread::at_barrier`). The walker releases a group when every
//!   thread of it has signalled and waits (`XeThread::signal_barrier` on
//!   each, then [`Gateway::barrier_signals`] back to 0). The walker steps
//!   one thread at a time, so a rise of the count after a step is that
//!   thread's signal (with several groups in flight, it keeps the count
//!   per group itself). EOT: the thread
//!   ends when the send is taken (`XeThread::step`), counted in
//!   [`Gateway::ended`].
//!
//! Not modelled yet (refused by name): half-float atomics, TGM surfaces
//! other than 2D linear/Tile4 and formats outside the older typed
//! messages' table (no 16-bit float formats), HWord blocks, the HDC
//! typed messages, typed atomics, counters and word atomics (see `hdc`,
//! `hdc_atomic`), the gateway's
//! event messages.

mod atomic;
mod dc0;
mod hdc;
mod hdc_atomic;
mod lsc;
mod payload;
mod sampler;
pub mod surface;
mod tgm;

use alloc::vec::Vec;

use baregpu_isa::inst::Sfid;
use baregpu_isa::message::xe_gateway::{self, XeGateway};

use super::{FlatMemory, GfxMemory, MemFault};
use crate::eu::send::{SendError, SendRequest, SharedFunctions};
use crate::eu::thread::Thread;

/// Bases the LSC surfaces are found from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XeState {
    /// Surface State Base Address (SS surfaces, binding-table entries).
    pub surface_state_base: u64,
    /// Bindless Surface State Base Address (BSS surfaces).
    pub bindless_surface_state_base: u64,
    /// Address of the binding table: the interface descriptor's Binding
    /// Table Pointer from the Binding Table Pool Base when the context
    /// programmed a pool, else from Surface State Base (the finding and its
    /// sources: `xe_state` in the gen12_5 compute module).
    pub binding_table: u64,
    /// Bytes of binding table readable from `binding_table` (what is left
    /// of the pool; `None` without a pool). An entry past it reads 0 (004
    /// 3DSTATE_BINDING_TABLE_POOL_ALLOC Buffer Size, line 1295).
    pub binding_table_left: Option<u64>,
    /// Dynamic State Base Address, and the interface descriptor's Sampler
    /// State Pointer (an offset from it) that headerless sampler messages
    /// index.
    pub dynamic_state_base: u64,
    pub sampler_state_pointer: u32,
    /// Bindless Sampler State Base Address (the sampler's bindless form).
    pub bindless_sampler_state_base: u64,
    /// What the scratch blocks' header offset (M0.5 31:10) counts from,
    /// and each thread's scratch bytes (0: no scratch space, the scratch
    /// messages are refused).
    pub scratch_base: u64,
    pub scratch_per_thread: u64,
    /// Xe-HPG walkers: a scratch block's header M0.5 31:10 is the offset
    /// `[27:6]` of a SURFTYPE_SCRATCH surface state from Surface State Base
    /// (CFE_STATE Scratch Space Buffer, copied from r0.5), not an offset
    /// from `scratch_base`.
    pub scratch_surface_state: bool,
    /// What flat addresses are relative to: 0 for A64; flat A32 addresses
    /// are offsets from it (General State Base on a stateless A32 access).
    pub flat_base: u64,
    /// General State Base Address: the base of the legacy data port's
    /// stateless A32 accesses (binding-table indices 253 and 255; 004
    /// STATE_BASE_ADDRESS, lines 34307-34311: "stateless (A32) Data Port
    /// messages, General State Base Address + Buffer Base Address").
    pub general_state_base: u64,
}

/// What the gateway saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Gateway {
    /// Barrier messages since the walker last released a group.
    pub barrier_signals: u32,
    /// End-of-thread messages.
    pub ended: u32,
}

/// Everything one message may touch besides the thread.
pub struct XeEnv<'a> {
    pub memory: &'a mut dyn GfxMemory,
    pub state: XeState,
    /// The thread group's shared local memory (`None` refuses SLM
    /// messages). Offsets past its end read 0 and drop writes.
    pub slm: Option<&'a mut [u8]>,
    pub gateway: &'a mut Gateway,
    /// The sending thread's hardware thread ID (its sr0.0 slot): which
    /// part of a scratch surface it reaches.
    pub slot: u32,
}

/// Binding-table entry `i`: the offset of a surface state from Surface
/// State Base in 31:6 (structs.toml line 142), as an address.
pub(crate) fn binding_table_entry(env: &mut XeEnv, i: u32) -> Result<u64, SendError> {
    let off = u64::from(i) * 4;
    let mut b = [0u8; 4];
    if env.state.binding_table_left.is_none_or(|n| off + 4 <= n) {
        env.memory
            .read_state(env.state.binding_table.wrapping_add(off), &mut b)
            .map_err(|f| fault(f, false))?;
    }
    let e = u32::from_le_bytes(b);
    Ok(env
        .state
        .surface_state_base
        .wrapping_add(u64::from(e & !0x3F)))
}

pub(crate) fn bad(why: &'static str) -> SendError {
    SendError::Bad(why)
}

pub(crate) fn fault(f: MemFault, write: bool) -> SendError {
    SendError::Fault {
        addr: f.addr,
        len: f.len,
        write: write || f.write,
    }
}

/// Serves one message of a Gen12.5 thread. Nothing panics on any
/// descriptor or payload: a malformed message is an error naming what is
/// wrong.
pub fn serve(env: &mut XeEnv, thread: &mut Thread, req: &SendRequest) -> Result<(), SendError> {
    let sfid = req.sfid.ok_or(bad("reserved shared function ID"))?;
    env.slot = crate::eu::thread::slot::slot_of(thread.sr0(0));
    match sfid {
        Sfid::Ugm | Sfid::Ugml | Sfid::Slm | Sfid::Tgm => lsc::handle(env, thread, req),
        Sfid::Sampler => sampler::handle(env, thread, req),
        Sfid::Gateway => gateway(env, req),
        Sfid::Null => Ok(()),
        Sfid::DpDataCache => dc0::handle(env, thread, req),
        Sfid::DpDataCache1 => hdc::handle(env, thread, req),
        _ => Err(SendError::Unhandled),
    }
}

/// The gateway (004 MSD_BARRIER lines 10451-10478, MSD_EOT 15127-15162).
fn gateway(env: &mut XeEnv, req: &SendRequest) -> Result<(), SendError> {
    // The EOT bit retires the thread whatever the function bits say (the
    // test kernels and older compilers leave bit 4 set, the Gen7 spawner's
    // end-of-thread bit).
    if req.eot {
        env.gateway.ended += 1;
        return Ok(());
    }
    let g = xe_gateway::decode(req.desc)
        .map_err(|_| bad("gateway descriptor does not decode (reserved subfunction or bit)"))?;
    match g {
        XeGateway::EndOfThread => Err(bad("gateway end-of-thread message without EOT")),
        XeGateway::Barrier => {
            if req.mlen < 1 {
                return Err(bad("gateway barrier without its one-register payload"));
            }
            env.gateway.barrier_signals += 1;
            Ok(())
        }
        _ => Err(bad("gateway event messages are not modelled")),
    }
}

/// A self-contained set of Gen12.5 shared functions over one memory, for
/// the harness and tests.
pub struct XeUnits<M: GfxMemory = FlatMemory> {
    pub memory: M,
    pub state: XeState,
    pub slm: Vec<u8>,
    pub gateway: Gateway,
    /// Messages served.
    pub served: u64,
}

impl<M: GfxMemory> XeUnits<M> {
    pub fn new(memory: M) -> XeUnits<M> {
        XeUnits {
            memory,
            state: XeState::default(),
            slm: Vec::new(),
            gateway: Gateway::default(),
            served: 0,
        }
    }
}

impl<M: GfxMemory> SharedFunctions for XeUnits<M> {
    fn send(&mut self, thread: &mut Thread, req: &SendRequest) -> Result<(), SendError> {
        let slm = (!self.slm.is_empty()).then_some(self.slm.as_mut_slice());
        let mut env = XeEnv {
            memory: &mut self.memory,
            state: self.state,
            slm,
            gateway: &mut self.gateway,
            slot: 0,
        };
        self.served += 1;
        serve(&mut env, thread, req)
    }
}
