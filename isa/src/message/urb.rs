//! URB messages (SFID 6).
//!
//! Gen4/G45 (000 lines 6588-6606): 3:0 opcode (0 URB_WRITE, others
//! reserved), 9:4 offset in 256-bit units, 11:10 swizzle (11 reserved), 12
//! fast-composite check pass (G45 only; ignored on Gen4, so it must be 0),
//! 13 allocate, 14 used, 15 complete. The offset row lost its bit range in
//! the text (000 line 6605); 9:4 is what remains between swizzle and opcode
//! and what Mesa uses [ext: mesa src/intel/compiler/brw_inst.h
//! `urb_global_offset` 4-6: MD(9):MD(4)].
//!
//! Gen6 (003 lines 88073-88203): the same bits, 18:16 ignored, opcode 1 is
//! FF_SYNC.
//!
//! Gen7/7.5 [ext: mesa src/intel/compiler/brw_inst.h `urb_opcode`,
//! `urb_global_offset`, `urb_swizzle_control`, `urb_complete`,
//! `urb_per_slot_offset` for gen 7; brw_eu_defines.h BRW_URB_OPCODE_*,
//! GEN7_URB_OPCODE_*]: 2:0 opcode, 13:3 global offset, 14 interleave, 15
//! complete, 16 per-slot offset present.

use super::MessageError;
use super::bits::{Reader, Writer, by_code, code_for, reserved};
use super::text::{Named, Out, Parsed, named, unknown_op};
use crate::generation::IsaGen;

named! {
    /// Gen4-Gen6 URB opcode.
    pub enum UrbOp {
        Write = "write",
        /// Gen6.
        FfSync = "ff_sync",
    }
}

named! {
    /// Gen4-Gen6 swizzle control.
    pub enum UrbSwizzle {
        None = "none",
        Interleave = "interleave",
        Transpose = "transpose",
    }
}

named! {
    /// Gen7/7.5 URB opcode.
    pub enum UrbOp7 {
        WriteHword = "write_hword",
        WriteOword = "write_oword",
        ReadHword = "read_hword",
        ReadOword = "read_oword",
        AtomicMov = "atomic_mov",
        AtomicInc = "atomic_inc",
    }
}

/// A URB request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UrbMsg {
    /// Gen4-Gen6 layout.
    Legacy {
        op: UrbOp,
        /// 256-bit units from the entry start (6 bits).
        offset: u8,
        swizzle: UrbSwizzle,
        allocate: bool,
        used: bool,
        complete: bool,
        /// G45/Gen6: fast-composite restriction check passed.
        fc_pass: bool,
    },
    /// Gen7/7.5 layout.
    Gen7 {
        op: UrbOp7,
        /// Global offset (11 bits; 256-bit units for HWord messages).
        offset: u16,
        interleave: bool,
        complete: bool,
        /// Per-slot offsets present in the payload.
        per_slot: bool,
    },
}

const OPS: [(u32, UrbOp); 2] = [(0, UrbOp::Write), (1, UrbOp::FfSync)];
const SWIZZLES: [(u32, UrbSwizzle); 3] = [
    (0b00, UrbSwizzle::None),
    (0b01, UrbSwizzle::Interleave),
    (0b10, UrbSwizzle::Transpose),
];
const OPS7: [(u32, UrbOp7); 6] = [
    (0, UrbOp7::WriteHword),
    (1, UrbOp7::WriteOword),
    (2, UrbOp7::ReadHword),
    (3, UrbOp7::ReadOword),
    (4, UrbOp7::AtomicMov),
    (5, UrbOp7::AtomicInc),
];

pub(super) fn decode(p: IsaGen, fc: u32) -> Result<UrbMsg, MessageError> {
    let mut r = Reader::new(fc);
    let m = if p >= IsaGen::Gen7 {
        let code = r.get(2, 0);
        UrbMsg::Gen7 {
            op: by_code(&OPS7, code).ok_or(reserved("URB opcode", 2, 0, code))?,
            offset: r.get(13, 3) as u16,
            interleave: r.flag(14),
            complete: r.flag(15),
            per_slot: r.flag(16),
        }
    } else {
        let code = r.get(3, 0);
        let op = match by_code(&OPS, code) {
            Some(UrbOp::FfSync) if p != IsaGen::Gen6 => None,
            o => o,
        }
        .ok_or(reserved("URB opcode", 3, 0, code))?;
        let sw = r.get(11, 10);
        UrbMsg::Legacy {
            op,
            offset: r.get(9, 4) as u8,
            swizzle: by_code(&SWIZZLES, sw).ok_or(reserved("URB swizzle", 11, 10, sw))?,
            fc_pass: p != IsaGen::Gen4 && r.flag(12),
            allocate: r.flag(13),
            used: r.flag(14),
            complete: r.flag(15),
        }
    };
    r.finish()?;
    Ok(m)
}

pub(super) fn encode(u: &UrbMsg) -> Result<u32, MessageError> {
    let mut w = Writer::default();
    match *u {
        UrbMsg::Legacy {
            op,
            offset,
            swizzle,
            allocate,
            used,
            complete,
            fc_pass,
        } => {
            w.put(3, 0, code_for(&OPS, op).unwrap_or(0), "URB opcode")?;
            w.put(9, 4, offset.into(), "offset")?;
            w.put(11, 10, code_for(&SWIZZLES, swizzle).unwrap_or(0), "swizzle")?;
            w.flag(12, fc_pass);
            w.flag(13, allocate);
            w.flag(14, used);
            w.flag(15, complete);
        }
        UrbMsg::Gen7 {
            op,
            offset,
            interleave,
            complete,
            per_slot,
        } => {
            w.put(2, 0, code_for(&OPS7, op).unwrap_or(0), "URB opcode")?;
            w.put(13, 3, offset.into(), "offset")?;
            w.flag(14, interleave);
            w.flag(15, complete);
            w.flag(16, per_slot);
        }
    }
    Ok(w.bits())
}

impl UrbMsg {
    pub(super) fn text(&self) -> Out {
        match *self {
            UrbMsg::Legacy {
                op,
                offset,
                swizzle,
                allocate,
                used,
                complete,
                fc_pass,
            } => {
                let mut o = Out::new("urb", op.name());
                o.num("offset", offset.into());
                if swizzle != UrbSwizzle::None {
                    o.word("swizzle", swizzle);
                }
                o.flag("alloc", allocate);
                o.flag("used", used);
                o.flag("complete", complete);
                o.flag("fc_pass", fc_pass);
                o
            }
            UrbMsg::Gen7 {
                op,
                offset,
                interleave,
                complete,
                per_slot,
            } => {
                let mut o = Out::new("urb", op.name());
                o.num("offset", offset.into());
                o.flag("interleave", interleave);
                o.flag("complete", complete);
                o.flag("per_slot", per_slot);
                o
            }
        }
    }
}

pub(super) fn parse(p: &mut Parsed<'_>) -> Result<UrbMsg, MessageError> {
    let legacy = UrbOp::from_name(p.op);
    let gen7 = UrbOp7::from_name(p.op);
    if legacy.is_none() && gen7.is_none() {
        return Err(unknown_op(p));
    }
    let f = &mut p.fields;
    let offset = f.num("offset")?;
    let too_big = MessageError::OutOfRange {
        field: "offset",
        value: offset,
    };
    Ok(match (legacy, gen7) {
        (Some(op), _) => UrbMsg::Legacy {
            op,
            offset: u8::try_from(offset).map_err(|_| too_big)?,
            swizzle: f.opt_word("swizzle")?.unwrap_or(UrbSwizzle::None),
            allocate: f.flag("alloc")?,
            used: f.flag("used")?,
            complete: f.flag("complete")?,
            fc_pass: f.flag("fc_pass")?,
        },
        (None, op) => UrbMsg::Gen7 {
            op: op.unwrap_or(UrbOp7::WriteHword),
            offset: u16::try_from(offset).map_err(|_| too_big)?,
            interleave: f.flag("interleave")?,
            complete: f.flag("complete")?,
            per_slot: f.flag("per_slot")?,
        },
    })
}
