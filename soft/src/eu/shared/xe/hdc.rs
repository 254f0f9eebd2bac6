//! The legacy data-port (HDC) messages DG2 kernels from older compilers
//! still send, on the second data-cache port (dc1): untyped surface read and
//! write, A64 or through a binding-table index (types 01h/09h, 11h/19h), and
//! the A64 scattered byte, dword and qword read and write (10h/1Ah). Typed
//! by `baregpu_isa::message::xe_hdc` (004's MSD tables, cited there).
//!
//! Layouts (the Gen8+ forms Mesa builds for Gen12, `brw_lower_logical_sends`
//! lower_a64_logical_send and lower_surface_logical_send; split sends, so
//! the addresses are the first payload and write data the second): one
//! address per lane, packed (8 bytes for A64, 4 for a surface offset),
//! after a header register when the descriptor has one; data component-
//! major, each component a register run of the SIMD lanes' dwords (qwords
//! for the qword scattered form); the byte scattered form keeps each lane's
//! 1, 2 or 4 bytes in the low bytes of its dword. Lanes off in the execution
//! mask are left alone. Binding-table index 255 is the stateless model
//! (addresses from `XeState::flat_base`), 254 SLM; others are buffers with
//! the LSC out-of-bounds rules.
//!
//! A64 OWord block read and write (14h/15h): the header register holds
//! the 64-bit byte address in its first qword (Mesa brw_fs_nir.cpp
//! `emit_a64_oword_block_header`); the OWords are packed in the response
//! or the second payload, two to a 32-byte register, a single high OWord
//! (`x1H`) in a register's upper half. A block moves whole, whatever the
//! execution mask (Mesa sends them with NoMask).
//!
//! Media block read and write (04h/0Ah) on 2D linear and Tile4 surfaces:
//! the header and data layout of the older generations' media block (000
//! lines 4748-4799, 003 lines 84003-84436; see `dataport::media`): M0.0 X
//! in bytes and M0.1 Y in rows (signed), M0.2 21:16 height - 1 and 4:0
//! width - 1, rows a power-of-two pitch apart in the data registers (the
//! second payload for a write); out-of-bounds reads clamp to the nearest
//! edge element (bytes, words or dwords by the format's size), writes
//! outside are dropped. The vertical line stride override is refused.
//!
//! The untyped integer and float atomics are served by `hdc_atomic`
//! beside this module, the dc0 messages by `dc0`.
//!
//! Not modelled yet (refused by name): typed surfaces, typed atomics and
//! atomic counters, HWord blocks, the packed (16-bit) forms, SIMD4x2.

use baregpu_isa::message::xe_hdc::{Dc1, OwordCount, ScatterElem, UntypedSimd, decode_dc1};

use super::lsc::{Target, bti_target, read, write};
use super::payload::{reg_load, reg_store, regs_for};
use super::surface::{self as xsurface, XeSurface};
use super::{XeEnv, bad};
use crate::eu::send::{SendError, SendRequest};
use crate::eu::shared::dataport::typed::format::Layout;
use crate::eu::thread::Thread;
use crate::eu::thread::layout::REG_BYTES;

pub(super) fn handle(env: &mut XeEnv, t: &mut Thread, req: &SendRequest) -> Result<(), SendError> {
    let m = decode_dc1(req.desc).map_err(|_| {
        bad("dc1 descriptor does not decode (reserved type, code or bit; see baregpu_isa::message::xe_hdc)")
    })?;
    // (lanes, address bytes, header, element bytes in registers, element
    // bytes in memory, components, write, target)
    let (lanes, abytes, header, rb, mb, comps, wr, tg) = match m {
        Dc1::Untyped(u) => {
            if u.packed_address || u.packed_data {
                return Err(bad(
                    "dc1 untyped: packed (16-bit) payloads are not modelled",
                ));
            }
            let lanes = match u.simd {
                UntypedSimd::Simd8 => 8,
                UntypedSimd::Simd16 => 16,
                UntypedSimd::Simd4x2 => {
                    return Err(bad("dc1 untyped: SIMD4x2 is not modelled"));
                }
            };
            let comps = u.channels & 0xF;
            let tg = if u.a64 {
                Target::Flat(0)
            } else {
                bti_target(env, u.bti)?
            };
            let abytes = if u.a64 { 8 } else { 4 };
            // The channels present, x first: packed in the registers, at
            // their own dword in memory.
            (lanes, abytes, u.header, 4, 4, comps, u.write, tg)
        }
        Dc1::A64Scattered(s) => {
            let lanes = if s.simd16 { 16 } else { 8 };
            let n = usize::from(s.elements);
            match s.elem {
                ScatterElem::Byte if n <= 4 => {
                    (lanes, 8, false, 4, n, 1u8, s.write, Target::Flat(0))
                }
                // (the component mask below: one component)
                ScatterElem::Byte => {
                    return Err(bad("dc1 A64 byte scattered: more than 4 bytes a lane"));
                }
                ScatterElem::Dword => (lanes, 8, false, 4, 4, mask_of(n), s.write, Target::Flat(0)),
                ScatterElem::Qword => (lanes, 8, false, 8, 8, mask_of(n), s.write, Target::Flat(0)),
            }
        }
        Dc1::A64Block(b) => return a64_block(env, t, req, b.write, b.count),
        Dc1::MediaBlock(m) => return media_block(env, t, req, m.write, m.bti, m.vlso),
        Dc1::Atomic(a) => return super::hdc_atomic::integer(env, t, req, a),
        Dc1::FloatAtomic(a) => return super::hdc_atomic::float(env, t, req, a),
        _ => {
            return Err(bad(
                "dc1: typed surfaces, typed atomics, atomic counters and HWord blocks are not modelled on Gen12.5",
            ));
        }
    };
    let hdr = usize::from(header);
    if usize::from(req.mlen) < hdr + regs_for(lanes * abytes) {
        return Err(bad("dc1: message length shorter than the addresses"));
    }
    let stride = regs_for(lanes * rb) * REG_BYTES;
    let abase = (usize::from(req.payload.reg) + hdr) * REG_BYTES;
    let byte_form = rb == 4 && mb < 4;
    let count = comps.count_ones() as usize;
    for n in 0..lanes {
        if req.channels >> n & 1 == 0 {
            continue;
        }
        let addr = reg_load(t, abase + n * abytes, abytes)?;
        // `ch` the element's place in memory, `c` its register component.
        let present = (0..8usize).filter(|ch| comps >> ch & 1 != 0);
        for (c, ch) in present.enumerate() {
            let off = addr.wrapping_add((ch * mb) as u64);
            if wr {
                let s = req
                    .extended
                    .src1
                    .ok_or(bad("dc1 write: no second payload (src1) with the data"))?;
                if usize::from(req.extended.src1_len) * REG_BYTES < count * stride {
                    return Err(bad("dc1 write: second payload shorter than the data"));
                }
                let v = reg_load(t, usize::from(s) * REG_BYTES + c * stride + n * rb, rb)?;
                let len = if byte_form { mb } else { rb };
                write(env, tg, off, &v.to_le_bytes()[..len])?;
            } else {
                if req.rlen == 0 {
                    continue;
                }
                if usize::from(req.rlen) * REG_BYTES < count * stride {
                    return Err(bad("dc1 read: response length shorter than the data"));
                }
                let d = req.dst.ok_or(bad("dc1 read: null destination"))?;
                let mut b = [0u8; 8];
                let len = if byte_form { mb } else { rb };
                read(env, tg, off, &mut b[..len])?;
                reg_store(
                    t,
                    usize::from(d) * REG_BYTES + c * stride + n * rb,
                    rb,
                    u64::from_le_bytes(b),
                )?;
            }
        }
    }
    Ok(())
}

/// The components 0..n as a mask (n up to 8).
fn mask_of(n: usize) -> u8 {
    ((1u16 << n.min(8)) - 1) as u8
}

/// An A64 OWord block read or write: the address is the header's first
/// qword.
fn a64_block(
    env: &mut XeEnv,
    t: &mut Thread,
    req: &SendRequest,
    write_block: bool,
    count: OwordCount,
) -> Result<(), SendError> {
    if req.mlen < 1 {
        return Err(bad("dc1 A64 OWord block: no header register"));
    }
    let addr = reg_load(t, usize::from(req.payload.reg) * REG_BYTES, 8)?;
    move_oword_block(env, t, req, Target::Flat(0), addr, write_block, count)
}

/// Moves an OWord block between `tg` at byte offset `off` and the
/// response (a read) or the second payload (a write): OWords packed two to
/// a register, a single high OWord in a register's upper half. The whole
/// block moves whatever the execution mask.
pub(super) fn move_oword_block(
    env: &mut XeEnv,
    t: &mut Thread,
    req: &SendRequest,
    tg: Target,
    off: u64,
    write_block: bool,
    count: OwordCount,
) -> Result<(), SendError> {
    let (n, high) = match count {
        OwordCount::OneLow => (1usize, false),
        OwordCount::OneHigh => (1, true),
        OwordCount::Two => (2, false),
        OwordCount::Four => (4, false),
        OwordCount::Eight => (8, false),
        OwordCount::Sixteen => (16, false),
    };
    let skip = if high { 16 } else { 0 };
    let regs = (n * 16 + skip).div_ceil(REG_BYTES);
    let mut data = [0u8; 256];
    let data = &mut data[..n * 16];
    if write_block {
        let s = req
            .extended
            .src1
            .ok_or(bad("OWord block write: no second payload (src1)"))?;
        if usize::from(req.extended.src1_len) < regs {
            return Err(bad(
                "OWord block write: second payload shorter than the block",
            ));
        }
        let at = usize::from(s) * REG_BYTES + skip;
        let g = t.grf();
        data.copy_from_slice(
            g.get(at..at + n * 16)
                .ok_or(bad("OWord block write: payload runs past r127"))?,
        );
        write(env, tg, off, data)
    } else {
        if req.rlen == 0 {
            return Ok(());
        }
        if usize::from(req.rlen) < regs {
            return Err(bad("OWord block read: response shorter than the block"));
        }
        let d = req.dst.ok_or(bad("OWord block read: null destination"))?;
        read(env, tg, off, data)?;
        let at = usize::from(d) * REG_BYTES + skip;
        let g = t.grf_mut();
        g.get_mut(at..at + n * 16)
            .ok_or(bad("OWord block read: response runs past r127"))?
            .copy_from_slice(data);
        Ok(())
    }
}

/// A media block read or write on the 2D surface at `bti`.
fn media_block(
    env: &mut XeEnv,
    t: &mut Thread,
    req: &SendRequest,
    write_block: bool,
    bti: u8,
    vlso: u8,
) -> Result<(), SendError> {
    if vlso != 0 {
        return Err(bad(
            "dc1 media block: the vertical line stride override is not modelled",
        ));
    }
    if req.mlen < 1 {
        return Err(bad("dc1 media block: no header register"));
    }
    let ss = super::binding_table_entry(env, u32::from(bti))?;
    let XeSurface::Image {
        base,
        width,
        height,
        pitch,
        format,
        tile4,
    } = xsurface::read(env.memory, ss)?
    else {
        return Err(bad("dc1 media block: the surface is not 2D"));
    };
    let elem = Layout::of(format)?.bytes;
    if !matches!(elem, 1 | 2 | 4) {
        return Err(bad(
            "dc1 media block: formats above 32 bits a pixel are not modelled",
        ));
    }
    let hdr = usize::from(req.payload.reg) * REG_BYTES;
    let x = i64::from(reg_load(t, hdr, 4)? as u32 as i32);
    let y = i64::from(reg_load(t, hdr + 4, 4)? as u32 as i32);
    let m2 = reg_load(t, hdr + 8, 4)? as u32;
    let rows = ((m2 >> 16) & 0x3F) as usize + 1;
    let cols = (m2 & 0x1F) as usize + 1;
    let rpitch = cols.next_power_of_two();
    let regs = (rpitch * rows).div_ceil(REG_BYTES);
    if regs > 8 {
        return Err(bad(
            "dc1 media block: taller than its width allows (8 registers)",
        ));
    }
    let row_bytes = i64::from(width) * elem as i64;
    let addr_of = |bx: i64, by: i64| -> u64 {
        let off = if tile4 {
            baregpu_hal::tiling::TILE_4.offset(pitch as usize, bx as usize, by as usize) as u64
        } else {
            by as u64 * u64::from(pitch) + bx as u64
        };
        base.wrapping_add(off)
    };
    let data_reg = if write_block {
        if usize::from(req.extended.src1_len) < regs {
            return Err(bad(
                "dc1 media block write: second payload shorter than the block",
            ));
        }
        req.extended
            .src1
            .ok_or(bad("dc1 media block write: no second payload (src1)"))?
    } else {
        if req.rlen == 0 {
            return Ok(());
        }
        if usize::from(req.rlen) < regs {
            return Err(bad("dc1 media block read: response shorter than the block"));
        }
        req.dst
            .ok_or(bad("dc1 media block read: null destination"))?
    };
    let data = usize::from(data_reg) * REG_BYTES;
    for r in 0..rows {
        for c in 0..cols {
            let (bx, by) = (x + c as i64, y + r as i64);
            let reg_at = data + r * rpitch + c;
            if write_block {
                if bx < 0 || by < 0 || bx >= row_bytes || by >= i64::from(height) {
                    continue;
                }
                let v = reg_load(t, reg_at, 1)? as u8;
                write(env, Target::Flat(0), addr_of(bx, by), &[v])?;
            } else {
                // Clamp to the nearest edge element, keeping the byte's
                // place inside the element.
                let cy = by.clamp(0, i64::from(height) - 1);
                let cx = if bx < 0 {
                    bx.rem_euclid(elem as i64)
                } else if bx >= row_bytes {
                    row_bytes - elem as i64 + bx.rem_euclid(elem as i64)
                } else {
                    bx
                };
                let mut b = [0u8; 1];
                read(env, Target::Flat(0), addr_of(cx, cy), &mut b)?;
                reg_store(t, reg_at, 1, u64::from(b[0]))?;
            }
        }
    }
    Ok(())
}
