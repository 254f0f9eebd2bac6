//! The Gen4/G45 extended-math message (SFID 1), built on the per-channel
//! functions of `crate::eu::math`.
//!
//! Payload (000 lines 5900-5952): the message has no header. An 8-channel
//! message carries operand 0 in its first register (the POW base, the INT
//! DIV denominator, or the single operand) and, for POW and INT DIV,
//! operand 1 in the second (the exponent, the numerator). A G45
//! ([DevCTG+]) 16-channel message takes a single-operand function in two
//! registers: channels 0-7 then 8-15 (000 lines 5906-5952).
//!
//! Channels (000 lines 5884-5899, 5904): the low 8 channel enables (all 16
//! for the 16-channel form) pick the channels. In scalar mode the first
//! channel of each group of four feeds the whole group, computed when any
//! of the group is enabled.
//!
//! Writeback (000 lines 5956-5978): one register of results; SINCOS adds
//! the cosines and INT DIV quotient-and-remainder the remainders in the
//! next register. Only enabled channels are written. The 16-channel form
//! returns channels 8-15 in the register after channels 0-7; for a
//! 16-channel SINCOS (which the manual allows but does not lay out) this
//! model returns sines in the first two registers and cosines in the next
//! two (a choice).
//!
//! The floating-point mode is cr0.0 bit 0, carried with the message (000
//! lines 5882, 13416).

use baregpu_isa::IsaGen;
use baregpu_isa::message::MathMsg;

use super::payload::{Msg, Reg, bad, dword_of, set_dword};
use crate::eu::math::{self, MathError, MessageControl};
use crate::eu::send::SendError;

fn math_err(e: MathError) -> SendError {
    match e {
        MathError::Unsupported { .. } => bad("math: function not on this platform"),
        MathError::SaturateOnInteger => bad("math: saturate on INT DIV"),
        MathError::ReservedBits(_) | MathError::ReservedFunction(_) => {
            bad("math: reserved descriptor bits")
        }
        _ => bad("math: request the unit refuses"),
    }
}

pub(super) fn handle(m: &mut Msg, msg: &MathMsg) -> Result<(), SendError> {
    let p = m.platform();
    let ctl = MessageControl::from_message(p, msg).map_err(math_err)?;
    let func = ctl.function;
    let two = math::operand_count(func) == 2;
    let results = usize::from(math::result_count(func));
    let wide = !two && m.req.mlen >= 2;
    if wide && p != IsaGen::G45 {
        return Err(bad("math: 16-channel messages are G45 only"));
    }
    let channels = if wide { 16 } else { 8 };
    let phases = channels / 8;
    m.need(if two { 2 } else { phases }, results * phases)?;
    let ce = if wide {
        m.enables()
    } else {
        m.enables() & 0xFF
    };
    let mode = ctl.mode(p, m.thread.cr0(0) & 1 != 0);
    let regs: [Reg; 2] = [m.reg(0)?, if m.req.mlen >= 2 { m.reg(1)? } else { [0; 32] }];
    // Operand `k` of channel `c`.
    let operand = |k: usize, c: usize| -> u32 {
        if two {
            dword_of(&regs[k], c)
        } else {
            dword_of(&regs[c / 8], c % 8)
        }
    };
    let mut out = [[0u8; 32]; 4];
    let mut dwords = [0u8; 2];
    for c in 0..channels {
        if ce >> c & 1 == 0 {
            continue;
        }
        // Scalar mode: the group's first channel is the input.
        let src = if ctl.scalar { c & !3 } else { c };
        let (first, second) = if math::is_int_div(func) {
            // Dividend (numerator) is operand 1, divisor operand 0.
            math::int_div(func, operand(1, src), operand(0, src), ctl.signed, &mode)
        } else {
            math::float(func, operand(0, src), operand(1, src), &mode)
        }
        .map_err(math_err)?;
        let (ph, d) = (c / 8, c % 8);
        set_dword(&mut out[ph], d, first);
        if let Some(v) = second {
            set_dword(&mut out[phases + ph], d, v);
        }
        dwords[ph] |= 1 << d;
    }
    for r in 0..results * phases {
        m.respond(r, &out[r], dwords[r % phases])?;
    }
    Ok(())
}
