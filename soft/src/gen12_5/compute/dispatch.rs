//! Running a walker's thread groups: each group's threads get their
//! payload, run round-robin (each until it ends or waits at `sync.bar`),
//! and meet at the gateway's barrier; messages other than the gateway's go
//! to the DG2 model's shared functions.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use baregpu_isa::inst::Sfid;
use baregpu_isa::message::xe_gateway::{self, XeGateway};

use super::ComputeFunctions;
use super::payload;
use super::walker::Walker;
use crate::eu::ErrorKind;
use crate::eu::run::Step;
use crate::eu::send::{SendError, SendRequest, SharedFunctions};
use crate::eu::thread::Thread;
use crate::eu::xe::{XeProgram, XeThread};

/// Why a walker did not complete.
#[derive(Debug)]
pub enum Failure {
    /// The instruction budget ran out, or every live thread of a group
    /// waits at a barrier no one else will signal: the engine never
    /// finishes (a hang).
    Hang(String),
    /// A thread error (an undecodable or refused instruction, a refused
    /// message, leaving the kernel): the engine stops with an Instruction
    /// Error, as the Gen7 model does (`crate::media::run_threads`).
    Thread(String),
}

/// The gateway's view of one group's barrier.
struct Barrier {
    /// Threads of the group that signalled the current barrier.
    arrived: Vec<bool>,
    /// Threads let through, whether or not they reached `sync.bar` yet.
    released: Vec<bool>,
}

/// The send router for one thread: gateway messages here, the rest to the
/// shared functions.
struct Router<'a> {
    sf: &'a mut dyn ComputeFunctions,
    barrier: &'a mut Barrier,
    me: usize,
    has_barrier: bool,
}

impl SharedFunctions for Router<'_> {
    fn send(&mut self, t: &mut Thread, req: &SendRequest) -> Result<(), SendError> {
        if req.sfid != Some(Sfid::Gateway) {
            return self.sf.send(t, req);
        }
        // EOT ends the thread whatever the function bits say: Mesa's
        // compute terminate message carries the thread spawner's
        // end-of-thread bit 4 (desc 0x02000010), which the gateway ignores.
        if req.eot {
            return Ok(());
        }
        match xe_gateway::decode(req.desc) {
            Ok(XeGateway::Barrier) if !self.has_barrier => Err(SendError::Bad(
                "barrier message in a walker whose Number of Barriers is 0",
            )),
            Ok(XeGateway::Barrier) => {
                // Every thread of the group is a producer and consumer of
                // the one barrier (Mesa copies r0.2[31:24], the group's
                // thread count, into both counts).
                let b = &mut *self.barrier;
                b.arrived[self.me] = true;
                if b.arrived.iter().all(|a| *a) {
                    for k in 0..b.arrived.len() {
                        b.arrived[k] = false;
                        b.released[k] = true;
                    }
                }
                Ok(())
            }
            Ok(XeGateway::EndOfThread) => Err(SendError::Bad("gateway end of thread without EOT")),
            Ok(_) => Err(SendError::Bad("gateway event messages are not modelled")),
            Err(_) => Err(SendError::Bad("gateway descriptor with reserved bits")),
        }
    }
}

/// Runs one group; `budget` is what is left of the walker's instructions;
/// `check_swsb` turns the threads' dependency check on.
pub fn run_group(
    w: &Walker,
    prog: &XeProgram,
    group: [u32; 3],
    sf: &mut dyn ComputeFunctions,
    budget: &mut u64,
    check_swsb: bool,
) -> Result<(), Failure> {
    let n = w.threads_per_group as usize;
    sf.begin_group(group, w.slm_bytes);
    let mut threads: Vec<XeThread> = (0..n)
        .map(|t| {
            let mut x = XeThread::new();
            x.check_swsb = check_swsb;
            payload::load(&mut x.thread, w, group, t as u32);
            x.thread
                .set_dispatch_mask(payload::dispatch_mask(w, t as u32));
            x.set_ip(0);
            x
        })
        .collect();
    let mut barrier = Barrier {
        arrived: alloc::vec![false; n],
        released: alloc::vec![false; n],
    };
    loop {
        let mut ran = false;
        let mut live = 0;
        for (k, x) in threads.iter_mut().enumerate() {
            if x.thread.ended {
                continue;
            }
            live += 1;
            if x.at_barrier {
                if !barrier.released[k] {
                    continue;
                }
                barrier.released[k] = false;
                x.signal_barrier();
            }
            ran = true;
            let before = x.thread.executed;
            let mut router = Router {
                sf: &mut *sf,
                barrier: &mut barrier,
                me: k,
                has_barrier: w.barriers > 0,
            };
            let r = x.run(prog, &mut router, (*budget).max(1));
            *budget = budget.saturating_sub(x.thread.executed - before);
            match r {
                Ok(Step::Ended) | Ok(Step::EndOfKernel) => x.thread.ended = true,
                Ok(_) => {}
                Err(e) if e.kind == ErrorKind::Budget => {
                    return Err(Failure::Hang(format!(
                        "group {group:?} thread {k}: instruction budget exhausted at ip {:#x}",
                        e.ip
                    )));
                }
                Err(e) => {
                    return Err(Failure::Thread(format!("group {group:?} thread {k}: {e}")));
                }
            }
            if *budget == 0 {
                return Err(Failure::Hang(format!(
                    "group {group:?}: instruction budget exhausted"
                )));
            }
        }
        if live == 0 {
            return Ok(());
        }
        if !ran {
            return Err(Failure::Hang(format!(
                "group {group:?}: every live thread waits at a barrier that cannot complete"
            )));
        }
    }
}
