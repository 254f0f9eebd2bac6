//! Gen7 untyped surface read/write and untyped atomics (data cache; data
//! cache 1 on Gen7.5), and the Gen6 render-cache DWord atomic.
//!
//! Untyped messages [ext: mesa brw_eu_emit.c `brw_untyped_surface_read`,
//! `brw_untyped_surface_write`, `brw_untyped_atomic`,
//! `brw_surface_payload_size`; brw_fs_surface_builder / lower_surface
//! logical sends]: an optional header, then the per-slot byte addresses
//! (SIMD8: one register, SIMD16: two, SIMD4x2: one with slot 0 in dword 0
//! and slot 1 in dword 4), then the data.
//! - Read/write: channels x, y, z, w not disabled by the descriptor mask
//!   address consecutive dwords from each slot's address. SIMD8/16 data is
//!   one register (two for SIMD16) per enabled channel, in channel order,
//!   slot s in dword s; the response has the same shape (its length is the
//!   channel count, times 2 for SIMD16). SIMD4x2 data is one register:
//!   slot s, channel c in dword 4s + c.
//! - Atomics: src0 (absent for INC/DEC/PREDEC) then src1 (CMPWR), each
//!   one register (two for SIMD16); SIMD4x2 zips both into one register,
//!   slot s's src0 in dword 4s and src1 in dword 4s + 1; the return data,
//!   when asked for, has the addresses' shape.
//!
//! Slots are enabled by the channel enables (SIMD4x2: by any bit of the
//! slot's group of four; its channels by their own bits). Bounds: reads
//! outside return 0, writes are dropped (IGC vISA DWORD_ATOMIC page,
//! "Out-of-bound Access"); an atomic on a dword outside neither writes nor
//! returns anything but 0 (003 lines 84646-84647 for the Gen6 form).
//!
//! Gen6 DWord atomic (003 lines 84641-84811): header, M1 eight DWord
//! offsets (plus the Global Offset, in DWords), M2 src0, M3 src1 when the
//! two-source bit is set; W0 returns the old values; the low 8 channel
//! enables pick the channels (003 line 84665).

use baregpu_isa::message::{AtomicOp, Channels, SurfaceSimd};

use super::super::MessageEnv;
use super::super::access::Window;
use super::super::payload::{Msg, Reg, bad, set_dword};
use super::atomic::{self, Compare};
use super::{Unit, after_header, buffer_window, element, global_offset, require_header};
use crate::eu::send::SendError;

/// Slots, and registers per data phase, of a SIMD mode.
fn shape(simd: SurfaceSimd) -> (usize, usize) {
    match simd {
        SurfaceSimd::Simd4x2 => (2, 1),
        SurfaceSimd::Simd8 => (8, 1),
        SurfaceSimd::Simd16 => (16, 2),
    }
}

/// Register and dword of slot `s` in a data phase of `simd`, counted from
/// the phase's first register.
fn slot_at(simd: SurfaceSimd, s: usize) -> (usize, usize) {
    match simd {
        SurfaceSimd::Simd4x2 => (0, 4 * s),
        _ => (s / 8, s % 8),
    }
}

/// Whether slot `s` takes part.
fn slot_on(simd: SurfaceSimd, ce: u32, s: usize) -> bool {
    match simd {
        SurfaceSimd::Simd4x2 => ce >> (4 * s) & 0xF != 0,
        _ => ce >> s & 1 != 0,
    }
}

fn window(env: &mut MessageEnv, m: &Msg, bti: u8) -> Result<Window, SendError> {
    let elem = element(env, m, bti)?;
    buffer_window(env, m, bti, elem)
}

fn addresses(m: &Msg, simd: SurfaceSimd) -> Result<[u64; 16], SendError> {
    let a = after_header(m);
    let mut out = [0u64; 16];
    if simd == SurfaceSimd::Simd4x2 {
        for (s, o) in out.iter_mut().enumerate().take(2) {
            let (r, d) = slot_at(simd, s);
            *o = u64::from(m.dword(a + r, d)?);
        }
    } else {
        // Every slot's address is read, enabled or not.
        let (slots, per) = shape(simd);
        let lanes = m.lanes(a, per, lanes_of(slots))?;
        for (o, v) in out.iter_mut().zip(lanes) {
            *o = u64::from(v);
        }
    }
    Ok(out)
}

fn enabled(mask: Channels) -> impl Iterator<Item = usize> {
    (0..4).filter(move |c| mask.0 >> c & 1 != 0)
}

pub(super) fn read(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    simd: SurfaceSimd,
    mask: Channels,
) -> Result<(), SendError> {
    let (slots, per) = shape(simd);
    let channels = enabled(mask).count();
    let rlen = if simd == SurfaceSimd::Simd4x2 {
        1
    } else {
        channels * per
    };
    let a = after_header(m);
    m.need(a + per, rlen)?;
    let addrs = addresses(m, simd)?;
    let w = window(env, m, bti)?;
    let ce = m.enables();
    let mut out: [(Reg, u8); 8] = [([0; 32], 0); 8];
    if simd == SurfaceSimd::Simd4x2 {
        for c in enabled(mask) {
            for (s, addr) in addrs.iter().enumerate().take(slots) {
                let d = 4 * s + c;
                if !slot_on(simd, ce, s) || ce >> d & 1 == 0 {
                    continue;
                }
                let v = env.read_dword(w, addr.wrapping_add(4 * c as u64))?;
                set_dword(&mut out[0].0, d, v);
                out[0].1 |= 1 << d;
            }
        }
    } else {
        // Channel by channel, each a gather over the slots (the order of
        // the one-by-one reads: channel, then slot).
        let on = ce & lanes_of(slots);
        for (k, c) in enabled(mask).enumerate() {
            let offs = channel_offsets(&addrs, c);
            let mut v = [0u32; 16];
            env.gather_dwords(w, &offs[..slots], on, &mut v)?;
            // Register k * per + r holds lanes 8r..8r + 8; only the
            // enabled lanes' dwords are written back.
            for (r, lanes) in v.chunks_exact(8).enumerate().take(per) {
                let (reg, dwords) = &mut out[k * per + r];
                for (d, x) in lanes.iter().enumerate() {
                    set_dword(reg, d, *x);
                }
                *dwords = (on >> (8 * r)) as u8;
            }
        }
    }
    for (r, (reg, dwords)) in out.iter().enumerate().take(rlen) {
        m.respond(r, reg, *dwords)?;
    }
    Ok(())
}

pub(super) fn write(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    simd: SurfaceSimd,
    mask: Channels,
) -> Result<(), SendError> {
    let (slots, per) = shape(simd);
    let channels = enabled(mask).count();
    let data = if simd == SurfaceSimd::Simd4x2 {
        1
    } else {
        channels * per
    };
    let a = after_header(m);
    m.need(a + per + data, 0)?;
    let addrs = addresses(m, simd)?;
    let w = window(env, m, bti)?;
    let ce = m.enables();
    if simd == SurfaceSimd::Simd4x2 {
        for c in enabled(mask) {
            for (s, addr) in addrs.iter().enumerate().take(slots) {
                let d = 4 * s + c;
                if ce >> d & 1 != 0 {
                    let v = m.dword(a + per, d)?;
                    env.write_dword(w, addr.wrapping_add(4 * c as u64), v)?;
                }
            }
        }
        return Ok(());
    }
    let on = ce & lanes_of(slots);
    for (k, c) in enabled(mask).enumerate() {
        let offs = channel_offsets(&addrs, c);
        let first = a + per + k * per;
        match m.lanes(first, per, on) {
            Ok(v) => env.scatter_dwords(w, &offs[..slots], on, &v)?,
            // A data register beyond the register file: lane by lane, so
            // that the lanes before the bad register are still written.
            Err(_) => {
                for s in (0..slots).filter(|s| on >> s & 1 != 0) {
                    let v = m.dword(first + s / 8, s % 8)?;
                    env.write_dword(w, offs[s], v)?;
                }
            }
        }
    }
    Ok(())
}

/// The lane bits of `slots` lanes.
fn lanes_of(slots: usize) -> u32 {
    if slots >= 32 {
        u32::MAX
    } else {
        (1 << slots) - 1
    }
}

/// Each slot's byte address of channel `c` (dword `c` from the slot's
/// address).
fn channel_offsets(addrs: &[u64; 16], c: usize) -> [u64; 16] {
    addrs.map(|a| a.wrapping_add(4 * c as u64))
}

/// One atomic on the dword at `off` of `w`: the returned value (0 when
/// the dword is outside the window, which is left alone).
fn one(
    env: &mut MessageEnv,
    w: Window,
    off: u64,
    op: AtomicOp,
    s0: u32,
    s1: u32,
    cmp: Compare,
) -> Result<u32, SendError> {
    if !env.dword_inside(w, off) {
        return Ok(0);
    }
    let old = env.read_dword(w, off)?;
    let (new, ret) = atomic::apply(op, old, s0, s1, cmp);
    env.write_dword(w, off, new)?;
    Ok(ret)
}

pub(super) fn atomic(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    op: AtomicOp,
    simd: SurfaceSimd,
    ret: bool,
) -> Result<(), SendError> {
    let (slots, per) = shape(simd);
    let srcs = atomic::sources(op);
    // SIMD4x2 zips the sources into one register: src0 in a slot's x,
    // src1 in its y [ext: mesa src/intel/compiler/brw_vec4_surface_builder.cpp
    // `emit_untyped_atomic`, "represented as the X and Y components of the
    // same vector"].
    let zipped = simd == SurfaceSimd::Simd4x2;
    let src_regs = if zipped { srcs.min(1) } else { srcs };
    let a = after_header(m);
    m.need(a + per * (1 + src_regs), if ret { per } else { 0 })?;
    let addrs = addresses(m, simd)?;
    let w = window(env, m, bti)?;
    let ce = m.enables();
    let mut out: [Reg; 2] = [[0; 32]; 2];
    let mut dwords = [0u8; 2];
    for (s, addr) in addrs.iter().enumerate().take(slots) {
        if !slot_on(simd, ce, s) {
            continue;
        }
        let (r, d) = slot_at(simd, s);
        let src = |i: usize| -> Result<u32, SendError> {
            if i >= srcs {
                Ok(0)
            } else if zipped {
                m.dword(a + 1, d + i)
            } else {
                m.dword(a + per * (1 + i) + r, d)
            }
        };
        let (s0, s1) = (src(0)?, src(1)?);
        let v = one(env, w, *addr, op, s0, s1, Compare::Src0)?;
        set_dword(&mut out[r], d, v);
        dwords[r] |= 1 << d;
    }
    if ret {
        for r in 0..per {
            m.respond(r, &out[r], dwords[r])?;
        }
    }
    Ok(())
}

pub(super) fn dword_atomic(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    op: AtomicOp,
    two_src: bool,
) -> Result<(), SendError> {
    require_header(m)?;
    // "Two-source message is used only for opcode 0111" (CMPXCHG), 003
    // lines 84674-84675.
    if two_src != (op == AtomicOp::CmpWr) {
        return Err(bad("DWord atomic: the two-source bit must match CMPXCHG"));
    }
    let srcs = if two_src { 2 } else { 1 };
    m.need(2 + srcs, 1)?;
    let g = global_offset(m)?;
    let elem = element(env, m, bti)?;
    let w = buffer_window(env, m, bti, elem)?;
    let ce = m.enables();
    let mut out: Reg = [0; 32];
    let mut dwords = 0u8;
    for s in 0..8 {
        if ce >> s & 1 == 0 {
            continue;
        }
        let off = Unit::Dword.bytes(u64::from(g.wrapping_add(m.dword(1, s)?)), 4);
        let s0 = m.dword(2, s)?;
        let s1 = if two_src { m.dword(3, s)? } else { 0 };
        let v = one(env, w, off, op, s0, s1, Compare::Src1)?;
        set_dword(&mut out, s, v);
        dwords |= 1 << s;
    }
    m.respond(0, &out, dwords)
}

#[cfg(test)]
mod tests;
