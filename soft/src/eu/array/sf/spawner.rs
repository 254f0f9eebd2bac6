//! The thread spawner (SFID 7) as the EU side sees it: the "dereference
//! resource" message that ends a root or child thread (with EOT) or gives
//! back a URB handle. The descriptor is decoded with
//! `baregpu_isa::message` (003 lines 50901-50949); the payload is one
//! register, a copy of R0 whose M0.5[7:0] FFTID names the thread's
//! resources (003 lines 50955-50970).
//!
//! Spawning child or synchronized root threads (opcode 1) needs URB
//! payloads written by the parent and is not modelled: it is refused.

use baregpu_isa::inst::{MsgDesc, Sfid};
use baregpu_isa::message::{self, Message};

use crate::eu::send::{SendError, SendRequest};
use crate::eu::thread::Thread;

use super::ArraySf;

pub(super) fn handle(
    sf: &mut ArraySf<'_, '_>,
    thread: &mut Thread,
    req: &SendRequest,
) -> Result<(), SendError> {
    let desc = MsgDesc {
        mlen: req.mlen,
        rlen: req.rlen,
        header: req.header,
        function: req.function,
    };
    let m = match message::decode(sf.platform, Sfid::ThreadSpawner, &desc) {
        Ok(Message::Spawner(m)) => m,
        _ => return Err(SendError::Bad("thread-spawner descriptor does not decode")),
    };
    // "Header Present ... must be set to zero for all Thread Spawner
    // messages" (003 line 50910); "This message contains only one 8-DW
    // register" (003 lines 50850-50851).
    if req.header {
        return Err(SendError::Bad("thread-spawner messages carry no header"));
    }
    // Reading the FFTID also checks that the payload register exists.
    sf.payload_dword(thread, req, 0, 5)?;
    if m.spawn {
        return Err(SendError::Bad("spawning threads is not modelled"));
    }
    // "A thread cannot terminate with an Opcode of spawn thread" is covered
    // above; a dereference without EOT only gives back the URB handle, which
    // the model does not track.
    Ok(())
}
