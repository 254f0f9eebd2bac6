//! Message routing for resident threads: the gateway and the thread
//! spawner are served here (they reach other threads and the array's
//! state); everything else goes to the memory shared functions with the
//! thread's binding table, general state, scratch and its group's shared
//! local memory.
//!
//! Files: `gateway` and `spawner`, the array's own shared functions, which
//! take this context ([`ArraySf`]) to reach the other threads.

use alloc::vec::Vec;

use baregpu_isa::IsaGen;
use baregpu_isa::inst::Sfid;

use crate::eu::send::{SendError, SendRequest, SharedFunctions};
use crate::eu::shared::{self, GfxMemory, Handled, MemFault, MessageEnv, SurfaceSource};
use crate::eu::thread::Thread;
use crate::eu::thread::layout::N_BASE;

pub(super) mod gateway;
mod spawner;

use super::report::Event;
use super::{Bindings, Ctx, Slot, group};

/// The shared functions as one resident thread sees them. The sending
/// thread is out of its slot while it runs, so `slots[slot]` is empty and
/// the thread itself arrives as the `thread` argument of each send.
pub(super) struct ArraySf<'a, 'f> {
    pub platform: IsaGen,
    pub slot: usize,
    pub threads_per_eu: u8,
    pub ctx: &'a mut Ctx,
    pub slots: &'a mut [Slot],
    pub groups: &'a mut group::Groups,
    pub gateway: &'a mut gateway::Gateway,
    pub memory: &'a mut dyn GfxMemory,
    /// The URB and output merger of the 3D pipeline, when it runs threads.
    pub fixed: &'a mut shared::Fixed<'f>,
    pub memos: &'a mut shared::Memos,
    /// The array's clock when the turn began, and the sender's executed
    /// count then: the clock now is their sum plus what it ran since.
    pub clock: u64,
    pub turn_start: u64,
    /// The memory fault behind the last failed message.
    pub fault: Option<MemFault>,
    pub messages: u64,
    pub barriers: u64,
    pub log: Option<&'a mut Vec<Event>>,
}

impl SharedFunctions for ArraySf<'_, '_> {
    fn send(&mut self, thread: &mut Thread, req: &SendRequest) -> Result<(), SendError> {
        self.messages += 1;
        match req.sfid {
            Some(Sfid::Gateway) => gateway::handle(self, thread, req),
            Some(Sfid::ThreadSpawner) => spawner::handle(self, thread, req),
            _ => self.memory_message(thread, req),
        }
    }
}

impl ArraySf<'_, '_> {
    fn memory_message(&mut self, thread: &mut Thread, req: &SendRequest) -> Result<(), SendError> {
        let slm = match self.ctx.group {
            Some(g) => self
                .groups
                .get_mut(g)
                .map(|g| g.slm.as_mut_slice())
                .filter(|s| !s.is_empty()),
            None => None,
        };
        let surfaces = match &mut self.ctx.bindings {
            Bindings::Table(t) => SurfaceSource::Table(*t),
            Bindings::List(l) => SurfaceSource::List(l),
        };
        // Built with `new` so that fields the memory units add later keep
        // their defaults.
        let mut env = MessageEnv::new(&mut *self.memory, surfaces);
        env.slm = slm;
        env.general_state = self.ctx.general_state;
        env.scratch = self.ctx.scratch;
        env.samplers = self.ctx.samplers;
        env.memos = Some(&mut *self.memos);
        env.urb = self.fixed.urb.as_deref_mut();
        // Spelled out: the trait object's lifetime shortens only at a
        // coercion site.
        env.pixels = match self.fixed.pixels.as_mut() {
            Some(p) => Some(&mut **p),
            None => None,
        };
        env.pixel_dispatch = self.ctx.pixel.as_deref();
        let r = shared::handle(&mut env, thread, req);
        if env.fault.is_some() {
            self.fault = env.fault;
        }
        match r? {
            Handled::Done => Ok(()),
            Handled::NotMine => Err(SendError::Unhandled),
        }
    }

    /// Dword `d` of message register `i` of the payload.
    pub fn payload_dword(
        &self,
        thread: &Thread,
        req: &SendRequest,
        i: u8,
        d: usize,
    ) -> Result<u32, SendError> {
        if i >= req.mlen {
            return Err(SendError::Bad("message shorter than its payload"));
        }
        let reg = req
            .payload
            .reg
            .checked_add(i)
            .and_then(|r| thread.register(req.payload.file, r))
            .ok_or(SendError::Bad("payload register out of range"))?;
        let b = reg
            .get(d * 4..d * 4 + 4)
            .ok_or(SendError::Bad("payload dword out of range"))?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Runs `f` on the thread in `slot`: the sender itself or a resident
    /// one. `None` when the slot holds no thread.
    pub fn with_thread<R>(
        &mut self,
        thread: &mut Thread,
        slot: usize,
        f: impl FnOnce(&mut Thread) -> R,
    ) -> Option<R> {
        if slot == self.slot {
            return Some(f(thread));
        }
        let live = self.slots.get_mut(slot)?.live.as_mut()?;
        Some(f(&mut live.thread))
    }

    /// Adds one to notification register n0.`sub` of the thread in `slot`
    /// and wakes it (003 lines 91011-91127: n0.0 counts thread-to-thread
    /// notifications, U16).
    pub fn notify(&mut self, thread: &mut Thread, slot: usize, sub: usize) {
        let at = N_BASE + 4 * sub.min(2);
        let bump = |t: &mut Thread| {
            let v = t.load32(at) & 0xFFFF;
            t.store32(at, v.saturating_add(1).min(0xFFFF));
        };
        if self.with_thread(thread, slot, bump).is_some()
            && let Some(live) = self.slots.get_mut(slot).and_then(|s| s.live.as_mut())
        {
            live.waiting = false;
        }
    }

    /// The slot of EU `euid`, thread `tid`.
    pub fn slot_of(&self, euid: u32, tid: u32) -> Option<usize> {
        let tpe = u32::from(self.threads_per_eu);
        (tid < tpe)
            .then(|| (euid * tpe + tid) as usize)
            .filter(|&s| s < self.slots.len())
    }

    /// The array's clock at this point of the turn (instructions).
    pub fn now(&self, thread: &Thread) -> u64 {
        self.clock + thread.executed().saturating_sub(self.turn_start)
    }

    pub fn event(&mut self, e: Event) {
        if let Some(log) = self.log.as_deref_mut() {
            log.push(e);
        }
    }
}
