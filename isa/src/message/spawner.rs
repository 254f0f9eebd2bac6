//! Thread-spawner messages (SFID 7).
//!
//! 003 lines 50901-50949 (written for Gen4 through SNB: it names
//! [DevCTG] and [DevILK+]): 0 opcode (0 dereference resource, also end of
//! thread; 1 spawn thread), 1 requester type (0 root, 1 child), 4 resource
//! select, 3:2 and 18:5 MBZ. 000 defines no spawner message (its
//! chapter list ends at the URB); this layout is used for Gen4/G45 too,
//! and for Gen7/7.5 [ext: mesa src/intel/compiler/brw_inst.h
//! `ts_opcode`, `ts_request_type`, `ts_resource_select`, same bits for
//! every generation].

use super::MessageError;
use super::bits::{Reader, Writer};
use super::text::{Out, Parsed, unknown_op};

/// A thread-spawner request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SpawnerMsg {
    /// Opcode 1: spawn a thread; 0: dereference resources (and, with EOT,
    /// end the thread).
    pub spawn: bool,
    /// Requester type: the sender is a child thread.
    pub child: bool,
    /// Resource select. Spawn: 1 spawns a root thread, 0 a child.
    /// Dereference: 1 keeps the URB handle, 0 dereferences it.
    pub resource: bool,
}

pub(super) fn decode(fc: u32) -> Result<SpawnerMsg, MessageError> {
    let mut r = Reader::new(fc);
    let m = SpawnerMsg {
        spawn: r.flag(0),
        child: r.flag(1),
        resource: r.flag(4),
    };
    r.finish()?;
    Ok(m)
}

impl SpawnerMsg {
    pub(super) fn encode(&self) -> u32 {
        let mut w = Writer::default();
        w.flag(0, self.spawn);
        w.flag(1, self.child);
        w.flag(4, self.resource);
        w.bits()
    }

    /// `ts.deref(child, keep_urb)` or `ts.spawn(child, root)`.
    pub(super) fn text(&self) -> Out {
        let mut o = Out::new("ts", if self.spawn { "spawn" } else { "deref" });
        o.flag("child", self.child);
        o.flag(if self.spawn { "root" } else { "keep_urb" }, self.resource);
        o
    }
}

pub(super) fn parse(p: &mut Parsed<'_>) -> Result<SpawnerMsg, MessageError> {
    let spawn = match p.op {
        "spawn" => true,
        "deref" => false,
        _ => return Err(unknown_op(p)),
    };
    let f = &mut p.fields;
    Ok(SpawnerMsg {
        spawn,
        child: f.flag("child")?,
        resource: f.flag(if spawn { "root" } else { "keep_urb" })?,
    })
}
