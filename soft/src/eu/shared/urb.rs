//! The URB shared function: threads write entries (Gen4-Gen6 URB_WRITE;
//! Gen7 OWord/HWord writes and reads) into a [`Urb`] byte array.
//!
//! A handle here is the first 256-bit row of its entry: the fixed
//! functions that hand out handles (later) map theirs onto rows. Allocate
//! requests, Gen6 FF_SYNC and the Gen7 atomics need those fixed functions
//! and are refused as unhandled.
//!
//! Gen4-Gen6 URB_WRITE (000 lines 6569-6777; 003 lines 88204-88420):
//! header `M0.0[15:0]` handle 0, `M0.1[15:0]` handle 1; the descriptor's offset
//! counts 256-bit rows from the entry start.
//! - NOSWIZZLE: M1.. go to consecutive rows; channel enables ignored (000
//!   lines 6659-6699; 003 lines 88351-88383).
//! - INTERLEAVED: each register's low four dwords continue handle 0's
//!   entry, its high four handle 1's; the channel enables gate the dwords
//!   (000 lines 6701-6739).
//! - TRANSPOSE: every 3 registers become 4 rows, Table 8-2 (000 lines
//!   6741-6776); channel enables ignored.
//!
//! Gen7 [ext: mesa brw_eu_defines.h GEN7_URB_OPCODE_*]: HWord messages
//! move whole 32-byte rows, OWord messages 16-byte halves; the global and
//! per-slot offsets count the message's unit. Interleaved writes send slot
//! 0's data in the low four dwords and slot 1's in the high four. The
//! header, as Mesa's vec4 generators quote the IVB PRM (vol 4 part 2,
//! 2.4.3.1; elk_vec4_generator.cpp `generate_gs_set_write_offset`,
//! `generate_gs_set_channel_masks`, `generate_tcs_input_urb_offsets`
//! "m0.0-0.1: URB handles", "m0.3-0.4" offsets, "m0.5 bits 8-15 are
//! channel enables"): handles in M0.0 and M0.1, per-slot offsets in M0.3
//! and M0.4, and M0.5 bits 15:8 channel masks ANDed with the channel enables
//! (bit 8 + d for dword d of each register, interleaved or not); a dword
//! whose final enable is 0 is neither written nor read back.

use alloc::vec;
use alloc::vec::Vec;

use baregpu_isa::message::{UrbMsg, UrbOp, UrbOp7, UrbSwizzle};

use super::MessageEnv;
use super::payload::{Msg, Reg, bad, dword_of, set_dword};
use crate::eu::send::SendError;

/// URB storage: 256-bit rows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Urb {
    pub bytes: Vec<u8>,
}

impl Urb {
    /// A URB of `rows` zeroed 256-bit rows.
    pub fn new(rows: usize) -> Urb {
        Urb {
            bytes: vec![0; rows * 32],
        }
    }

    /// Dword `d` of row `row` (0 outside).
    pub fn dword(&self, row: usize, d: usize) -> u32 {
        let at = row * 32 + (d & 7) * 4;
        self.bytes
            .get(at..at + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn put(&mut self, byte: usize, v: u32) -> Result<(), SendError> {
        let end = byte
            .checked_add(4)
            .ok_or(bad("URB access beyond the URB"))?;
        let b = self
            .bytes
            .get_mut(byte..end)
            .ok_or(bad("URB access beyond the URB"))?;
        b.copy_from_slice(&v.to_le_bytes());
        Ok(())
    }

    fn get(&self, byte: usize) -> Result<u32, SendError> {
        let end = byte
            .checked_add(4)
            .ok_or(bad("URB access beyond the URB"))?;
        let b = self
            .bytes
            .get(byte..end)
            .ok_or(bad("URB access beyond the URB"))?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

pub(super) fn handle(env: &mut MessageEnv, m: &mut Msg, u: &UrbMsg) -> Result<(), SendError> {
    let urb = env.urb.as_deref_mut().ok_or(bad("no URB configured"))?;
    match *u {
        UrbMsg::Legacy {
            op: UrbOp::Write,
            offset,
            swizzle,
            allocate: false,
            ..
        } => legacy_write(urb, m, usize::from(offset), swizzle),
        UrbMsg::Legacy { .. } => Err(SendError::Unhandled),
        UrbMsg::Gen7 {
            op,
            offset,
            interleave,
            per_slot,
            ..
        } => gen7(urb, m, op, usize::from(offset), interleave, per_slot),
    }
}

fn handle_row(m: &Msg, d: usize) -> Result<usize, SendError> {
    Ok((m.dword(0, d)? & 0xFFFF) as usize)
}

fn legacy_write(
    urb: &mut Urb,
    m: &mut Msg,
    offset: usize,
    swizzle: UrbSwizzle,
) -> Result<(), SendError> {
    let data = usize::from(m.req.mlen).saturating_sub(1);
    let h0 = handle_row(m, 0)?;
    match swizzle {
        UrbSwizzle::None => {
            for i in 0..data {
                let reg = m.reg(1 + i)?;
                for d in 0..8 {
                    urb.put((h0 + offset + i) * 32 + d * 4, dword_of(&reg, d))?;
                }
            }
        }
        UrbSwizzle::Interleave => {
            let h1 = handle_row(m, 1)?;
            let ce = m.enables();
            for i in 0..data {
                let reg = m.reg(1 + i)?;
                for d in 0..8 {
                    if ce >> d & 1 == 0 {
                        continue;
                    }
                    let h = if d < 4 { h0 } else { h1 };
                    let k = 4 * i + d % 4; // dword of the vertex
                    urb.put((h + offset) * 32 + k * 4, dword_of(&reg, d))?;
                }
            }
        }
        UrbSwizzle::Transpose => {
            if data % 3 != 0 {
                return Err(bad("URB transpose needs a multiple of 3 registers"));
            }
            for g in 0..data / 3 {
                let src = [m.reg(1 + 3 * g)?, m.reg(2 + 3 * g)?, m.reg(3 + 3 * g)?];
                for k in 0..4 {
                    let row = h0 + offset + 4 * g + k;
                    for half in 0..2 {
                        let col = 2 * k + half;
                        let quad = [
                            dword_of(&src[0], col),
                            dword_of(&src[1], col),
                            0,
                            dword_of(&src[2], col),
                        ];
                        for (j, v) in quad.iter().enumerate() {
                            urb.put(row * 32 + (4 * half + j) * 4, *v)?;
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

fn gen7(
    urb: &mut Urb,
    m: &mut Msg,
    op: UrbOp7,
    offset: usize,
    interleave: bool,
    per_slot: bool,
) -> Result<(), SendError> {
    let (unit, write) = match op {
        UrbOp7::WriteHword => (32, true),
        UrbOp7::WriteOword => (16, true),
        UrbOp7::ReadHword => (32, false),
        UrbOp7::ReadOword => (16, false),
        UrbOp7::AtomicMov | UrbOp7::AtomicInc => return Err(SendError::Unhandled),
    };
    // Byte where slot `s`'s data starts.
    let start = |s: usize| -> Result<usize, SendError> {
        let handle = handle_row(m, s)?;
        let extra = if per_slot {
            m.dword(0, 3 + s)? as usize
        } else {
            0
        };
        offset
            .checked_add(extra)
            .and_then(|o| o.checked_mul(unit))
            .and_then(|o| o.checked_add(handle * 32))
            .ok_or(bad("URB access beyond the URB"))
    };
    let slots = if interleave { 2 } else { 1 };
    let starts = [start(0)?, if slots == 2 { start(1)? } else { 0 }];
    let regs = if write {
        usize::from(m.req.mlen).saturating_sub(1)
    } else {
        usize::from(m.req.rlen)
    };
    let enabled = (m.dword(0, 5)? >> 8) & m.enables() & 0xFF;
    for i in 0..regs {
        if write {
            let reg = m.reg(1 + i)?;
            for d in 0..8 {
                if enabled >> d & 1 == 0 {
                    continue;
                }
                let (s, k) = if interleave {
                    (d / 4, 4 * i + d % 4)
                } else {
                    (0, 8 * i + d)
                };
                urb.put(starts[s].saturating_add(4 * k), dword_of(&reg, d))?;
            }
        } else {
            let mut reg: Reg = [0; 32];
            for d in 0..8 {
                let (s, k) = if interleave {
                    (d / 4, 4 * i + d % 4)
                } else {
                    (0, 8 * i + d)
                };
                set_dword(&mut reg, d, urb.get(starts[s].saturating_add(4 * k))?);
            }
            m.respond(i, &reg, enabled as u8)?;
        }
    }
    Ok(())
}
