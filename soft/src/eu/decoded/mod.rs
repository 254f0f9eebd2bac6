//! The predecoded form of a kernel: what the predecoder (`predecode`)
//! builds and the handlers (`alu`, `flow`, `message`) and the run loop
//! consume. It lives apart from both so that neither imports the other:
//! the predecoder chooses handlers, the handlers read operations.
//!
//! [`Op`] is one executable operation; [`lite`] holds the straight-line
//! entries the run loop executes in blocks.

pub(crate) mod lite;

use baregpu_isa::inst::{Instruction, MathFn, Type};

use crate::eu::error::ErrorKind;
use crate::eu::exec::{Ctl, Dom};
use crate::eu::operand::{DstPlan, SrcPlan};
use crate::eu::send;
use crate::eu::thread::Thread;
use crate::eu::thread::arf::ArfUse;

/// What an operation asks the run loop to do next.
#[derive(Debug)]
pub(crate) enum Next {
    /// The next instruction in memory.
    Fall,
    /// Continue at this IP (bytes from the kernel start).
    Jump(u32),
    /// A message for the shared functions; then fall through.
    Send(alloc::boxed::Box<send::SendRequest>),
    /// `wait` found no notification: the thread sleeps at this instruction.
    Wait,
}

/// An operation's handler.
pub(crate) type Handler = fn(&mut Thread, &Op) -> Result<Next, ErrorKind>;

/// Branch offsets in bytes from the instruction (JIP/UIP, or the Gen4 jump
/// count and pop count).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Target {
    pub jip: i32,
    pub uip: i32,
    pub pop: u8,
}

/// One executable operation.
#[derive(Clone, Debug)]
pub(crate) struct Op {
    pub ip: u32,
    /// IP of the next instruction in memory.
    pub next_ip: u32,
    pub inst: Instruction,
    pub run: Handler,
    pub ctl: Ctl,
    pub dst: DstPlan,
    pub src: [SrcPlan; 3],
    pub arf: ArfUse,
    pub target: Target,
    pub math: Option<MathFn>,
    /// The first half of a Gen4/G45 compressed instruction: the next
    /// operation (the second half) runs in the same step.
    pub pair: bool,
    /// Why this instruction cannot run (reported when it is reached).
    pub bad: Option<ErrorKind>,
    /// Linear layouts (first flat offset, byte stride) of dst, src0, src1,
    /// src2 when every channel's element follows that pattern: what the
    /// fast paths need.
    pub lin: [Option<(u16, u8)>; 4],
    /// Runs without the run loop's extra work: no flow and no special
    /// register touched (for a compressed pair: by both halves).
    pub simple: bool,
    /// The handler is one of the ALU's (`alu::choose`), so an ALU fast
    /// path may stand in for it.
    pub alu: bool,
}

/// The type a Gen6 branch's embedded compare computes in.
pub(crate) fn compare_dom(op: &Op) -> Dom {
    match (op.src[0].ty, op.src[1].ty) {
        (Type::F, _) | (_, Type::F) => Dom::F,
        _ => Dom::D,
    }
}
