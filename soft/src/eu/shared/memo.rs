//! What the memory shared functions remember between messages, so that a
//! thread sending the same few messages again and again does not decode
//! them again and again. Every memo is exact: a hit is what the work would
//! give if done again.
//!
//! - [`DecodeMemo`]: message descriptors, keyed by the platform, the shared
//!   function and the whole descriptor (decoding reads nothing else).
//! - [`SurfaceMemo`]: SURFACE_STATE decoding, keyed by the platform and
//!   every dword of the state (kept with the decoder in `surface`, whose
//!   binding-table lookup takes it).
//! - resolved surfaces: binding table and index to surface, kept only while
//!   the memory promises (by [`GfxMemory::state_epoch`]) that no state
//!   byte read since has changed, and forgotten whenever the memory may be
//!   another one ([`Memos::forget_resolved`]).

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{MsgDesc, Sfid};
use baregpu_isa::message::{self, Message, MessageError};

use super::memory::GfxMemory;
pub use super::surface::SurfaceMemo;
use super::surface::{BindingTable, Surface, SurfaceError};

/// The memos of one EU array (every thread's messages).
#[derive(Clone, Debug, Default)]
pub struct Memos {
    pub decodes: DecodeMemo,
    pub surfaces: SurfaceMemo,
    resolved: Resolved,
}

impl Memos {
    /// `message::decode` through [`DecodeMemo`].
    pub fn decode(
        &mut self,
        p: IsaGen,
        sfid: Sfid,
        desc: &MsgDesc,
    ) -> Result<Message, MessageError> {
        self.decodes.decode(p, sfid, desc)
    }

    /// [`BindingTable::resolve`], from memory when `table` and `bti` were
    /// resolved through `memory` at its current state epoch.
    pub fn resolve(
        &mut self,
        table: BindingTable,
        memory: &mut dyn GfxMemory,
        bti: u8,
    ) -> Result<Surface, SurfaceError> {
        let Some(epoch) = memory.state_epoch() else {
            return table.resolve_with(memory, bti, Some(&mut self.surfaces));
        };
        if let Some(s) = self.resolved.find(table, bti, epoch) {
            return Ok(s);
        }
        let s = table.resolve_with(memory, bti, Some(&mut self.surfaces))?;
        // Kept only when the reads themselves did not move the epoch (a
        // state cache that overflowed stops watching the first read).
        if memory.state_epoch() == Some(epoch) {
            self.resolved.insert(table, bti, epoch, s);
        }
        Ok(s)
    }

    /// Forgets every resolved surface: the next messages may reach memory
    /// through another [`GfxMemory`], whose epochs mean nothing here.
    pub fn forget_resolved(&mut self) {
        self.resolved = Resolved::default();
    }
}

/// The last few descriptors decoded and what they mean.
#[derive(Clone, Debug, Default)]
pub struct DecodeMemo {
    entries: [Option<(IsaGen, Sfid, MsgDesc, Message)>; DECODES],
    /// Next entry to replace.
    next: usize,
}

const DECODES: usize = 4;

impl DecodeMemo {
    /// `message::decode`, from memory when this descriptor was decoded
    /// before (errors are not kept).
    pub fn decode(
        &mut self,
        p: IsaGen,
        sfid: Sfid,
        desc: &MsgDesc,
    ) -> Result<Message, MessageError> {
        let hit = self
            .entries
            .iter()
            .flatten()
            .find(|(ep, es, ed, _)| *ep == p && *es == sfid && ed == desc);
        if let Some((.., m)) = hit {
            return Ok(*m);
        }
        let m = message::decode(p, sfid, desc)?;
        self.entries[self.next] = Some((p, sfid, *desc, m));
        self.next = (self.next + 1) % DECODES;
        Ok(m)
    }
}

/// Surfaces resolved at a state epoch of the current memory.
#[derive(Clone, Debug, Default)]
struct Resolved {
    entries: [Option<(BindingTable, u8, u64, Surface)>; RESOLVED],
    next: usize,
}

const RESOLVED: usize = 8;

impl Resolved {
    fn find(&self, table: BindingTable, bti: u8, epoch: u64) -> Option<Surface> {
        self.entries
            .iter()
            .flatten()
            .find(|(t, b, e, _)| *t == table && *b == bti && *e == epoch)
            .map(|(.., s)| *s)
    }

    fn insert(&mut self, table: BindingTable, bti: u8, epoch: u64, s: Surface) {
        self.entries[self.next] = Some((table, bti, epoch, s));
        self.next = (self.next + 1) % RESOLVED;
    }
}

#[cfg(test)]
mod tests;
