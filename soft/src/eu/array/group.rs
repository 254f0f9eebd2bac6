//! GPGPU thread groups (Gen7): the threads of one group share a barrier
//! and a block of shared local memory, and all of them are resident at
//! once (the walker dispatches a group only when every thread fits).
//!
//! Barrier IDs: 16 barriers exist (`R0.2[27:24]` is four bits, 003 line
//! 50657 "one from the 16 Barriers"); a group with barriers enabled holds
//! one until its last thread ends.

use alloc::vec;
use alloc::vec::Vec;

/// A thread group handle (index into the array's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupId(pub(crate) usize);

/// What a group needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupSpec {
    /// Threads the walker dispatches for it.
    pub threads: u32,
    /// Threads the barrier waits for (the interface descriptor's Number of
    /// Threads in GPGPU Thread Group; the walker's count when that is 0).
    pub barrier_threads: u32,
    /// Barriers enabled (interface descriptor Barrier Enable).
    pub barrier: bool,
    /// Shared local memory bytes.
    pub slm_bytes: usize,
}

pub(crate) struct Group {
    pub spec: GroupSpec,
    /// Threads started and not yet ended.
    pub live: u32,
    /// Threads started so far.
    pub started: u32,
    pub slm: Vec<u8>,
    pub barrier_id: Option<u8>,
    /// Slots that sent a barrier message since the barrier last completed.
    pub arrived: Vec<usize>,
}

#[derive(Default)]
pub(crate) struct Groups {
    list: Vec<Option<Group>>,
    /// Barrier IDs in use, bit per ID.
    ids: u16,
}

impl Groups {
    /// Opens a group; `None` when it needs a barrier and all 16 are taken.
    pub fn open(&mut self, spec: GroupSpec) -> Option<(GroupId, Option<u8>)> {
        let barrier_id = if spec.barrier {
            let free = (!self.ids).trailing_zeros();
            if free >= 16 {
                return None;
            }
            self.ids |= 1 << free;
            Some(free as u8)
        } else {
            None
        };
        let group = Group {
            spec,
            live: 0,
            started: 0,
            slm: vec![0; spec.slm_bytes],
            barrier_id,
            arrived: Vec::new(),
        };
        let index = match self.list.iter().position(Option::is_none) {
            Some(i) => {
                self.list[i] = Some(group);
                i
            }
            None => {
                self.list.push(Some(group));
                self.list.len() - 1
            }
        };
        Some((GroupId(index), barrier_id))
    }

    pub fn get(&self, id: GroupId) -> Option<&Group> {
        self.list.get(id.0).and_then(Option::as_ref)
    }

    pub fn get_mut(&mut self, id: GroupId) -> Option<&mut Group> {
        self.list.get_mut(id.0).and_then(Option::as_mut)
    }

    /// A thread of the group started.
    pub fn started(&mut self, id: GroupId) {
        if let Some(g) = self.get_mut(id) {
            g.live += 1;
            g.started += 1;
        }
    }

    /// A thread of the group ended; the last one frees it (its SLM and its
    /// barrier ID) once every thread was started.
    pub fn ended(&mut self, id: GroupId) {
        let Some(g) = self.get_mut(id) else { return };
        g.live = g.live.saturating_sub(1);
        if g.live == 0 {
            g.arrived.clear();
        }
        if g.live == 0 && g.started >= g.spec.threads {
            if let Some(b) = g.barrier_id {
                self.ids &= !(1 << b);
            }
            self.list[id.0] = None;
        }
    }

    /// Open groups.
    pub fn count(&self) -> usize {
        self.list.iter().filter(|g| g.is_some()).count()
    }

    pub fn clear(&mut self) {
        self.list.clear();
        self.ids = 0;
    }
}
