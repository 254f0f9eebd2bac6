//! Message-gateway messages (SFID 3).
//!
//! Gen4/G45 (000 lines 6343-6346): 1:0 SubFuncID (open, close, forward;
//! 11 reserved), 13:2 MBZ, 14 AckReq, 15 Notify (only the low bit of the
//! "16:15" field belongs to the Gen4 descriptor). GetTimeStamp is described
//! (000 lines 6476-6529) without a code; 003 line 87508 says 011 and 1xx
//! are reserved before SNB, so it is refused there.
//!
//! Gen6 (003 lines 87444-87506): 2:0 SubFuncID (000-110), 13:3 MBZ, 14
//! AckReq, 16:15 Notify (01 N0, 10 N2, 11 reserved), 18:17 ignored. Gen7
//! and Gen7.5 keep these bits [ext: mesa src/intel/compiler/brw_inst.h
//! `gateway_subfuncid`, `gateway_notify`; brw_eu_defines.h
//! BRW_MESSAGE_GATEWAY_SFID_*].

use super::MessageError;
use super::bits::{Reader, Writer, by_code, code_for, reserved};
use super::text::{Named, Out, Parsed, named, unknown_op};
use crate::generation::IsaGen;

named! {
    /// Gateway sub-function.
    pub enum GatewayOp {
        Open = "open",
        Close = "close",
        Forward = "forward",
        /// Gen6+.
        Timestamp = "timestamp",
        /// Gen6+: one more thread reached the barrier.
        Barrier = "barrier",
        /// Gen6+.
        UpdateState = "update_state",
        /// Gen6+ MMIO read/write.
        Mmio = "mmio",
    }
}

named! {
    /// Which notification counter of the recipient a message increments.
    pub enum Notify {
        None = "none",
        N0 = "n0",
        /// Gen6+.
        N2 = "n2",
    }
}

/// A gateway request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GatewayMsg {
    pub op: GatewayOp,
    /// AckReq: the gateway writes an error code back (response length 1).
    pub ack: bool,
    /// Only meaningful for ForwardMsg, but the bits exist on every message.
    pub notify: Notify,
}

const OPS: [(u32, GatewayOp); 7] = [
    (0b000, GatewayOp::Open),
    (0b001, GatewayOp::Close),
    (0b010, GatewayOp::Forward),
    (0b011, GatewayOp::Timestamp),
    (0b100, GatewayOp::Barrier),
    (0b101, GatewayOp::UpdateState),
    (0b110, GatewayOp::Mmio),
];

const NOTIFY: [(u32, Notify); 3] = [(0, Notify::None), (1, Notify::N0), (2, Notify::N2)];

/// (SubFuncID high bit, Notify high bit) for the platform.
fn widths(p: IsaGen) -> (u32, u32) {
    if p < IsaGen::Gen6 { (1, 15) } else { (2, 16) }
}

pub(super) fn decode(p: IsaGen, fc: u32) -> Result<GatewayMsg, MessageError> {
    let (op_hi, n_hi) = widths(p);
    let mut r = Reader::new(fc);
    let code = r.get(op_hi, 0);
    let op = by_code(&OPS, code).ok_or(reserved("gateway sub-function", op_hi, 0, code))?;
    if p < IsaGen::Gen6 && code == 0b11 {
        return Err(reserved("gateway sub-function", op_hi, 0, code));
    }
    let ack = r.flag(14);
    let n = r.get(n_hi, 15);
    let notify = by_code(&NOTIFY, n).ok_or(reserved("gateway notify", n_hi, 15, n))?;
    r.finish()?;
    Ok(GatewayMsg { op, ack, notify })
}

pub(super) fn encode(p: IsaGen, g: &GatewayMsg) -> Result<u32, MessageError> {
    let (op_hi, n_hi) = widths(p);
    let mut w = Writer::default();
    w.put(
        op_hi,
        0,
        code_for(&OPS, g.op).unwrap_or(0),
        "gateway sub-function",
    )?;
    w.flag(14, g.ack);
    w.put(n_hi, 15, code_for(&NOTIFY, g.notify).unwrap_or(0), "notify")?;
    Ok(w.bits())
}

impl GatewayMsg {
    pub(super) fn text(&self) -> Out {
        let mut o = Out::new("gw", self.op.name());
        o.flag("ack", self.ack);
        if self.notify != Notify::None {
            o.word("notify", self.notify);
        }
        o
    }
}

pub(super) fn parse(p: &mut Parsed<'_>) -> Result<GatewayMsg, MessageError> {
    let op = GatewayOp::from_name(p.op).ok_or_else(|| unknown_op(p))?;
    let f = &mut p.fields;
    Ok(GatewayMsg {
        op,
        ack: f.flag("ack")?,
        notify: f.opt_word("notify")?.unwrap_or(Notify::None),
    })
}
