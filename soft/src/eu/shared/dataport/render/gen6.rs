//! The Gen6, Gen7 and Gen7.5 render-target write with its header (003
//! lines 84812-85793).
//!
//! Gen7 and Gen7.5 keep the Gen6 descriptor and layout: last render target
//! in bit 12, slot group in 11, type in 10:8 [ext: mesa
//! src/intel/compiler/brw_inst.h `rt_last`, `rt_slot_group`,
//! `rt_message_type`, one definition for Gen6 on]; a header that is the
//! pixel-shader payload's R0/R1 with the same M0.0 flag bits and the pixel
//! mask in M1.7 15:0, followed by the colour one register per channel and
//! 8 slots [ext: mesa src/intel/compiler/elk/elk_lower_logical_sends.cpp
//! `lower_fb_write_logical_send`, which builds Gen6 (MRF) and Gen7 (GRF)
//! messages alike]. The Gen7 manual here stops before the data port.
//!
//! Header (003 lines 85004-85192; it copies R0/R1 of the PS dispatch,
//! 003 lines 43960-44080):
//! - M0.0 13 source depth present, 12 oMask present, 11 source-0 alpha
//!   present, 8:6 starting sample pair index (003 lines 85103-85133): all
//!   forms this model refuses.
//! - M0.0 26:16 render target array index: ignored, as only single 2D
//!   surfaces are taken; there an index other than 0 is out of range and
//!   falls back to the Minimum Array Element (003 lines 85089-85092),
//!   which this model takes as 0 (SURFACE_STATE's field is not decoded).
//! - M0.1 colour-calculator pointer, M0.2 2:0 render target index (the
//!   BLEND_STATE entry), M1.7 31:16 dispatched mask: state and scoreboard,
//!   not needed with blending off.
//! - M1.7 15:0 pixel/sample enables; M1.2-M1.5 the subspans' upper-left
//!   X (15:0) and Y (31:16) (003 lines 85157-85192).
//!
//! With the header present the X/Y and enables come from it, so Slot Group
//! Select only picks bypassed antialias alpha and coverage data (003 lines
//! 84957-84966), neither of which is modelled: both groups write the same.
//!
//! Colour after the header (003 lines 85474-85591 and the sequencing rows
//! at 85721-85793): SIMD16 R(slots 7:0), R(15:8), G, G, B, B, A, A; SIMD8
//! R, G, B, A for slots 7:0; replicated data one register holding R, G,
//! B, A in dwords 0-3 for every slot. The sequencing key labels "1/0" as
//! slots 15:8 (line 85732), against the payload sections, which put slots
//! 7:0 first; the payload sections are taken, as the Mesa source above
//! builds it.

use baregpu_isa::message::RtMode;

use super::super::super::MessageEnv;
use super::super::super::payload::{Msg, bad};
use super::target::{Target, pixel_xy};
use crate::eu::send::SendError;

/// The colour payload forms modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Colour {
    Simd16,
    Simd8,
    Replicated,
}

impl Colour {
    fn of(mode: RtMode) -> Result<Colour, SendError> {
        match mode {
            RtMode::Simd16 => Ok(Colour::Simd16),
            RtMode::Simd8Lo => Ok(Colour::Simd8),
            RtMode::Simd16Rep => Ok(Colour::Replicated),
            RtMode::Simd8DualLo | RtMode::Simd8DualHi => {
                Err(bad("render-target write: dual source is not modelled"))
            }
            RtMode::Simd8Image => Err(bad(
                "render-target write: SIMD8 image write is not modelled",
            )),
        }
    }

    fn slots(self) -> usize {
        match self {
            Colour::Simd8 => 8,
            _ => 16,
        }
    }

    fn regs(self) -> usize {
        match self {
            Colour::Simd16 => 8,
            Colour::Simd8 => 4,
            Colour::Replicated => 1,
        }
    }

    /// Register (counted from the first colour register) and dword of
    /// channel `c` of `slot`.
    fn at(self, slot: usize, c: usize) -> (usize, usize) {
        match self {
            Colour::Simd16 => (2 * c + slot / 8, slot % 8),
            Colour::Simd8 => (c, slot),
            Colour::Replicated => (0, c),
        }
    }
}

/// Header registers (003 line 85004).
const HEADER: usize = 2;

/// M0.0 bits this model refuses, with what they announce.
const REFUSED_FLAGS: [(u32, &str); 4] = [
    (1 << 13, "render-target write: source depth is not modelled"),
    (1 << 12, "render-target write: oMask is not modelled"),
    (
        1 << 11,
        "render-target write: source 0 alpha is not modelled",
    ),
    (
        0b111 << 6,
        "render-target write: per-sample dispatch (starting sample pair) is not modelled",
    ),
];

pub(super) fn write(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    mode: RtMode,
) -> Result<(), SendError> {
    if !m.req.header {
        return Err(bad(
            "render-target write without a header: its pixel positions come from a pixel-shader dispatch, which is not modelled",
        ));
    }
    let colour = Colour::of(mode)?;
    m.need(HEADER, 0)?;
    let flags = m.dword(0, 0)?;
    if let Some((_, why)) = REFUSED_FLAGS.iter().find(|(bit, _)| flags & bit != 0) {
        return Err(bad(why));
    }
    // Every legal form is one sequencing row (003 lines 85721-85793);
    // extra registers would be data of a form the header does not announce.
    if usize::from(m.req.mlen) != HEADER + colour.regs() {
        return Err(bad(
            "render-target write: message length does not match header and colour",
        ));
    }
    let Some(t) = Target::open(env, bti, colour == Colour::Replicated)? else {
        return Ok(());
    };
    let slots = colour.slots();
    let enables = m.dword(1, 7)? & ((1 << slots) - 1);
    for slot in (0..slots).filter(|s| enables >> s & 1 != 0) {
        let (x, y) = pixel_xy(m.dword(1, 2 + slot / 4)?, slot);
        let mut rgba = [0u32; 4];
        for (c, v) in rgba.iter_mut().enumerate() {
            let (reg, dw) = colour.at(slot, c);
            *v = m.dword(HEADER + reg, dw)?;
        }
        t.store(env, x, y, rgba)?;
    }
    Ok(())
}
