//! DWord scattered read/write (every generation) and byte scattered
//! read/write (Gen7).
//!
//! DWord scattered: 000 lines 4800-4910, 003 lines 84440-84640. The
//! payload is [header] + 1 or 2 registers of per-channel offsets (channel
//! c in register c / 8, dword c % 8) + for writes as many data registers;
//! the writeback has the same shape. The low 8 or all 16 channel enables
//! pick the channels (000 line 4824; 003 lines 84485-84487).
//!
//! Byte scattered (Gen7): per-channel byte offsets plus the header's byte
//! Global Offset (003 lines 83288-83302, 83596); each channel moves 1, 2
//! or 4 bytes held in the low bytes of its dword [ext: mesa brw_eu.h
//! `brw_dp_byte_scattered_rw_desc`; IGA MessageDecoderHDC "Fill low 1 byte
//! per DW"]. Reads zero-extend (a choice: the sources do not say what the
//! high bytes hold).

use baregpu_isa::message::{ElemSize, ScatterSimd};

use super::super::MessageEnv;
use super::super::payload::{Msg, Reg, dword_of, set_dword};
use super::{Unit, after_header, buffer_window, element, global_offset, header_on_gen6, unit};
use crate::eu::send::SendError;

fn width(simd: ScatterSimd) -> usize {
    match simd {
        ScatterSimd::Simd8 => 8,
        ScatterSimd::Simd16 => 16,
    }
}

/// Per-channel byte offsets: the Global Offset plus each channel's offset,
/// both in `u` units.
fn offsets(m: &Msg, n: usize, u: Unit, align: u64) -> Result<[u64; 16], SendError> {
    let g = global_offset(m)?;
    let a = after_header(m);
    let mut out = [0u64; 16];
    for (c, o) in out.iter_mut().enumerate().take(n) {
        *o = u.bytes(u64::from(g.wrapping_add(m.dword(a + c / 8, c % 8)?)), align);
    }
    Ok(out)
}

pub(super) fn dword_read(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    simd: ScatterSimd,
) -> Result<(), SendError> {
    header_on_gen6(m)?;
    let n = width(simd);
    let a = after_header(m);
    m.need(a + n / 8, n / 8)?;
    let offs = offsets(m, n, unit(m.platform(), Unit::Dword), 4)?;
    let elem = element(env, m, bti)?;
    let w = buffer_window(env, m, bti, elem)?;
    let on = m.enables() & lanes_of(n);
    let mut v = [0u32; 16];
    env.gather_dwords(w, &offs[..n], on, &mut v)?;
    for (r, lanes) in v.chunks_exact(8).enumerate().take(n / 8) {
        let mut reg: Reg = [0; 32];
        for (d, x) in lanes.iter().enumerate() {
            set_dword(&mut reg, d, *x);
        }
        m.respond(r, &reg, (on >> (8 * r)) as u8)?;
    }
    Ok(())
}

pub(super) fn dword_write(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    simd: ScatterSimd,
) -> Result<(), SendError> {
    header_on_gen6(m)?;
    let n = width(simd);
    let a = after_header(m);
    m.need(a + 2 * (n / 8), 0)?;
    let offs = offsets(m, n, unit(m.platform(), Unit::Dword), 4)?;
    let elem = element(env, m, bti)?;
    let w = buffer_window(env, m, bti, elem)?;
    let on = m.enables() & lanes_of(n);
    match m.lanes(a + n / 8, n / 8, on) {
        Ok(v) => env.scatter_dwords(w, &offs[..n], on, &v),
        // A data register beyond the register file: channel by channel,
        // so the channels before it are still written.
        Err(_) => {
            for (c, off) in offs.iter().enumerate().take(n) {
                if on >> c & 1 != 0 {
                    let v = m.dword(a + n / 8 + c / 8, c % 8)?;
                    env.write_dword(w, *off, v)?;
                }
            }
            Ok(())
        }
    }
}

/// The lane bits of an `n`-lane message.
fn lanes_of(n: usize) -> u32 {
    (1u32 << n) - 1
}

fn bytes(size: ElemSize) -> usize {
    match size {
        ElemSize::Byte => 1,
        ElemSize::Word => 2,
        ElemSize::Dword => 4,
    }
}

pub(super) fn byte_read(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    simd: ScatterSimd,
    size: ElemSize,
) -> Result<(), SendError> {
    let n = width(simd);
    let a = after_header(m);
    m.need(a + n / 8, n / 8)?;
    let offs = offsets(m, n, Unit::Byte, 1)?;
    let elem = element(env, m, bti)?;
    let w = buffer_window(env, m, bti, elem)?;
    let len = bytes(size);
    let ce = m.enables();
    let mut regs: [(Reg, u8); 2] = [([0; 32], 0); 2];
    for (c, off) in offs.iter().enumerate().take(n) {
        if ce >> c & 1 != 0 {
            let mut b = [0u8; 4];
            env.read_window(w, *off, &mut b[..len])?;
            set_dword(&mut regs[c / 8].0, c % 8, u32::from_le_bytes(b));
            regs[c / 8].1 |= 1 << (c % 8);
        }
    }
    for (r, (reg, dwords)) in regs.iter().enumerate().take(n / 8) {
        m.respond(r, reg, *dwords)?;
    }
    Ok(())
}

pub(super) fn byte_write(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    simd: ScatterSimd,
    size: ElemSize,
) -> Result<(), SendError> {
    let n = width(simd);
    let a = after_header(m);
    m.need(a + 2 * (n / 8), 0)?;
    let offs = offsets(m, n, Unit::Byte, 1)?;
    let elem = element(env, m, bti)?;
    let w = buffer_window(env, m, bti, elem)?;
    let len = bytes(size);
    let ce = m.enables();
    for (c, off) in offs.iter().enumerate().take(n) {
        if ce >> c & 1 != 0 {
            let reg = m.reg(a + n / 8 + c / 8)?;
            let v = dword_of(&reg, c % 8).to_le_bytes();
            env.write_window(w, *off, &v[..len])?;
        }
    }
    Ok(())
}
