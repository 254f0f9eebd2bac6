//! OWord block read/write, unaligned OWord block read, OWord dual block
//! read/write.
//!
//! Layouts: 000 lines 4533-4682 (Gen4/G45), 003 lines 83631-84001 (Gen6,
//! and Gen7, which keeps them in the data and constant caches [ext: mesa
//! brw_eu_emit.c `brw_oword_block_read`, `brw_oword_block_write_scratch`]).
//!
//! Execution mask (000 lines 4553-4557; 003 lines 83663-83673): the low 8
//! bits enable the first and third registers (W0/W2, M1/M3), the high 8
//! the second and fourth; a read fetches an OWord if any bit of its group
//! of four is set, a write stores each dword whose own bit is set. The
//! 1-OWord forms use the low or high 4 bits by the OWord's half. The
//! unaligned read ignores the mask (003 line 83802). The dual-block forms
//! use only the low 8 bits (000 line 4625; 003 lines 83894-83897).

use baregpu_isa::message::{DualBlocks, OwordBlocks};

use super::super::MessageEnv;
use super::super::payload::{Msg, Reg, dword_of, set_dword};
use super::{
    Unit, after_header, buffer_window, element, global_offset, header_on_gen6, require_header, unit,
};
use crate::eu::send::SendError;

/// OWords moved, and whether a single OWord sits in the high half
/// (descriptor bits 10:8, 000 line 4567; 003 lines 83693-83708).
fn shape(o: OwordBlocks) -> (usize, bool) {
    match o {
        OwordBlocks::OneLow => (1, false),
        OwordBlocks::OneHigh => (1, true),
        OwordBlocks::Two => (2, false),
        OwordBlocks::Four => (4, false),
        OwordBlocks::Six => (6, false),
        OwordBlocks::Eight => (8, false),
    }
}

/// (register, half) of OWord `i` of a block (the payload and writeback
/// tables, 000 lines 4572-4604; 003 lines 83727-83771).
fn place(i: usize, high: bool) -> (usize, usize) {
    if high { (0, 1) } else { (i / 2, i % 2) }
}

/// Channel-enable bit of dword `d` of half `h` of register `r`.
fn bit(r: usize, h: usize, d: usize) -> usize {
    (r % 2) * 8 + h * 4 + d
}

/// OWord block read; `unaligned` is the Gen6+ unaligned form, whose
/// Global Offset counts bytes, DWord aligned (003 lines 83773-83857).
pub(super) fn read(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    owords: OwordBlocks,
    unaligned: bool,
) -> Result<(), SendError> {
    require_header(m)?;
    let (n, high) = shape(owords);
    let regs = n.div_ceil(2);
    m.need(1, regs)?;
    let (u, align) = if unaligned {
        (Unit::Byte, 4)
    } else {
        (unit(m.platform(), Unit::Oword), 16)
    };
    let off = u.bytes(u64::from(global_offset(m)?), align);
    let elem = element(env, m, bti)?;
    let w = buffer_window(env, m, bti, elem)?;
    let data = env.read_vec(w, off, n * 16)?;
    let ce = m.enables();
    let mut out: [(Reg, u8); 4] = [([0; 32], 0); 4];
    for (r, o) in out.iter_mut().enumerate().take(regs) {
        o.0 = m.response_reg(r);
    }
    for i in 0..n {
        let (r, h) = place(i, high);
        if !unaligned && (ce >> bit(r, h, 0)) & 0xF == 0 {
            continue;
        }
        let reg = &mut out[r];
        for d in 0..4 {
            let at = i * 16 + d * 4;
            let v = u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
            set_dword(&mut reg.0, h * 4 + d, v);
        }
        reg.1 |= 0xF << (h * 4);
    }
    for (r, (reg, dwords)) in out.iter().enumerate().take(regs) {
        m.respond(r, reg, *dwords)?;
    }
    Ok(())
}

/// OWord block write: the data registers follow the header (000 lines
/// 4572-4587; 003 lines 83714-83742).
pub(super) fn write(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    owords: OwordBlocks,
) -> Result<(), SendError> {
    require_header(m)?;
    let (n, high) = shape(owords);
    let regs = n.div_ceil(2);
    m.need(1 + regs, 0)?;
    let off = unit(m.platform(), Unit::Oword).bytes(u64::from(global_offset(m)?), 16);
    let elem = element(env, m, bti)?;
    let w = buffer_window(env, m, bti, elem)?;
    let ce = m.enables();
    for i in 0..n {
        let (r, h) = place(i, high);
        let reg = m.reg(1 + r)?;
        for d in 0..4 {
            if ce >> bit(r, h, d) & 1 != 0 {
                let at = off.wrapping_add((i * 16 + d * 4) as u64);
                env.write_dword(w, at, dword_of(&reg, h * 4 + d))?;
            }
        }
    }
    Ok(())
}

/// OWords per block of a dual-block message (003 lines 83913-83918).
fn dual_count(o: DualBlocks) -> usize {
    match o {
        DualBlocks::One => 1,
        DualBlocks::Four => 4,
    }
}

/// Byte offsets of the two blocks: the Global Offset plus Block Offset 0
/// (M1.0) and 1 (M1.4), OWord aligned (000 lines 4637-4653; 003 lines
/// 83920-83954).
fn dual_offsets(m: &Msg) -> Result<[u64; 2], SendError> {
    let g = global_offset(m)?;
    let a = after_header(m);
    let u = unit(m.platform(), Unit::Oword);
    Ok([
        u.bytes(u64::from(g.wrapping_add(m.dword(a, 0)?)), 16),
        u.bytes(u64::from(g.wrapping_add(m.dword(a, 4)?)), 16),
    ])
}

/// Dual-block read: W(i) holds OWord i of block 0 in its low half and of
/// block 1 in its high half (000 lines 4667-4682; 003 lines 83976-84001).
pub(super) fn dual_read(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    owords: DualBlocks,
) -> Result<(), SendError> {
    header_on_gen6(m)?;
    let n = dual_count(owords);
    let a = after_header(m);
    m.need(a + 1, n)?;
    let offs = dual_offsets(m)?;
    let elem = element(env, m, bti)?;
    let w = buffer_window(env, m, bti, elem)?;
    let ce = m.enables();
    for i in 0..n {
        let mut reg = m.response_reg(i);
        let mut dwords = 0u8;
        for (h, off) in offs.iter().enumerate() {
            if (ce >> (h * 4)) & 0xF == 0 {
                continue;
            }
            for d in 0..4 {
                let at = off.wrapping_add((i * 16 + d * 4) as u64);
                set_dword(&mut reg, h * 4 + d, env.read_dword(w, at)?);
            }
            dwords |= 0xF << (h * 4);
        }
        m.respond(i, &reg, dwords)?;
    }
    Ok(())
}

/// Dual-block write: the data registers follow the offsets, laid out as
/// the read's writeback (000 lines 4649-4665, where the fourth row's
/// "M4" is a misprint of M5; 003 lines 83948-83974).
pub(super) fn dual_write(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    owords: DualBlocks,
) -> Result<(), SendError> {
    header_on_gen6(m)?;
    let n = dual_count(owords);
    let a = after_header(m);
    m.need(a + 1 + n, 0)?;
    let offs = dual_offsets(m)?;
    let elem = element(env, m, bti)?;
    let w = buffer_window(env, m, bti, elem)?;
    let ce = m.enables();
    for i in 0..n {
        let reg = m.reg(a + 1 + i)?;
        for (h, off) in offs.iter().enumerate() {
            for d in 0..4 {
                if ce >> (h * 4 + d) & 1 != 0 {
                    let at = off.wrapping_add((i * 16 + d * 4) as u64);
                    env.write_dword(w, at, dword_of(&reg, h * 4 + d))?;
                }
            }
        }
    }
    Ok(())
}
