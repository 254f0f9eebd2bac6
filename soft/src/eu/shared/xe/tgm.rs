//! Typed (TGM) LSC messages on 2D surfaces, linear or Tile4:
//! `load_quad`/`store_quad` with their channel masks, and the integer
//! atomics on R32_UINT/R32_SINT.
//!
//! The address payload holds up to four A32 coordinates, each a
//! component-major block like a data component (U, then V, R and LOD;
//! Mesa `brw_lower_logical_sends` lower_lsc_surface_logical_send builds
//! them so for typed messages; their count is the message length over one
//! coordinate's registers). 2D surfaces have one slice and one level, so a
//! non-zero R or LOD is out of bounds like a U or V past the surface: a
//! read returns 0 in every channel, a write or an atomic does nothing (an
//! atomic returns 0). Texels convert as the older generations' typed
//! messages do (`dataport::typed::format::Layout`: missing channels read 0
//! and alpha 1, UNORM from floats with clamping and rounding); the formats
//! are those that table has. Tile4 addresses come from
//! `baregpu_hal::tiling::TILE_4`.

use baregpu_hal::tiling::TILE_4;
use baregpu_isa::message::lsc::{Access, DataSize, Shape};

use super::payload::{reg_load, reg_store, regs_for};
use super::surface::XeSurface;
use super::{XeEnv, bad, fault};
use crate::eu::send::{SendError, SendRequest};
use crate::eu::shared::dataport::typed::format::Layout;
use crate::eu::shared::surface::format;
use crate::eu::thread::Thread;
use crate::eu::thread::layout::REG_BYTES;

pub(super) fn access(
    env: &mut XeEnv,
    t: &mut Thread,
    req: &SendRequest,
    a: &Access,
    img: Option<XeSurface>,
) -> Result<(), SendError> {
    let exec = usize::from(req.exec_size).clamp(1, 32);
    let coord_regs = regs_for(exec * 4);
    let coords = usize::from(req.mlen) / coord_regs;
    if coords == 0 || coords > 4 {
        return Err(bad("LSC typed: message length is not 1 to 4 coordinates"));
    }
    if a.data != DataSize::D32 {
        return Err(bad("LSC typed: data size must be d32"));
    }
    let base = usize::from(req.payload.reg) * REG_BYTES;
    let coord = |t: &Thread, k: usize, n: usize| -> Result<u32, SendError> {
        if k < coords {
            Ok(reg_load(t, base + k * coord_regs * REG_BYTES + n * 4, 4)? as u32)
        } else {
            Ok(0)
        }
    };
    // A null surface: reads 0, writes dropped.
    let Some(XeSurface::Image {
        base: sbase,
        width,
        height,
        pitch,
        format: fmt,
        tile4,
    }) = img
    else {
        return null_surface(t, req, a, exec);
    };
    let layout = Layout::of(fmt)?;
    let bpp = layout.bytes;
    // Where texel (u, v) is, `None` out of bounds.
    let locate = |u: u32, v: u32, r: u32, lod: u32| -> Option<u64> {
        if u >= width || v >= height || r != 0 || lod != 0 {
            return None;
        }
        let x = u as usize * bpp;
        let off = if tile4 {
            TILE_4.offset(pitch as usize, x, v as usize) as u64
        } else {
            u64::from(v) * u64::from(pitch) + x as u64
        };
        Some(sbase.wrapping_add(off))
    };
    let enabled = |n: usize| req.channels >> n & 1 != 0;
    let stride = regs_for(exec * 4) * REG_BYTES;
    let dst = req.dst.map(|r| usize::from(r) * REG_BYTES);
    let src1 = req.extended.src1.map(|r| usize::from(r) * REG_BYTES);
    match a.shape {
        Shape::Cmask(mask) if a.op.is_load() => {
            let k = mask.count_ones() as usize;
            if req.rlen == 0 {
                return Ok(());
            }
            if usize::from(req.rlen) < k * regs_for(exec * 4) {
                return Err(bad("LSC typed load: response length shorter than the data"));
            }
            let d = dst.ok_or(bad("LSC typed load: null destination"))?;
            for n in 0..exec {
                if !enabled(n) {
                    continue;
                }
                let at = locate(
                    coord(t, 0, n)?,
                    coord(t, 1, n)?,
                    coord(t, 2, n)?,
                    coord(t, 3, n)?,
                );
                let rgba = match at {
                    Some(addr) => {
                        let mut texel = [0u8; 16];
                        env.memory
                            .read(addr, &mut texel[..bpp])
                            .map_err(|f| fault(f, false))?;
                        layout.unpack(&texel[..bpp])
                    }
                    None => [0; 4],
                };
                let mut comp = 0;
                for (c, v) in rgba.iter().enumerate() {
                    if mask >> c & 1 != 0 {
                        reg_store(t, d + comp * stride + n * 4, 4, u64::from(*v))?;
                        comp += 1;
                    }
                }
            }
            Ok(())
        }
        Shape::Cmask(mask) if a.op.is_store() => {
            let k = mask.count_ones() as usize;
            let s = src1.ok_or(bad("LSC typed store: no second payload (src1)"))?;
            if usize::from(req.extended.src1_len) < k * regs_for(exec * 4) {
                return Err(bad("LSC typed store: second payload shorter than the data"));
            }
            for n in 0..exec {
                if !enabled(n) {
                    continue;
                }
                let Some(addr) = locate(
                    coord(t, 0, n)?,
                    coord(t, 1, n)?,
                    coord(t, 2, n)?,
                    coord(t, 3, n)?,
                ) else {
                    continue;
                };
                let mut rgba = [0u32; 4];
                let mut comp = 0;
                for (c, v) in rgba.iter_mut().enumerate() {
                    if mask >> c & 1 != 0 {
                        *v = reg_load(t, s + comp * stride + n * 4, 4)? as u32;
                        comp += 1;
                    }
                }
                let mut texel = [0u8; 16];
                env.memory
                    .read(addr, &mut texel[..bpp])
                    .map_err(|f| fault(f, false))?;
                layout.pack(&mut texel[..bpp], rgba, mask);
                env.memory
                    .write(addr, &texel[..bpp])
                    .map_err(|f| fault(f, true))?;
            }
            Ok(())
        }
        Shape::Vector {
            len: 1,
            transpose: false,
        } if a.op.is_atomic() => {
            if fmt != format::R32_UINT && fmt != format::R32_SINT {
                return Err(bad(
                    "LSC typed atomic: the surface format must be R32_UINT or R32_SINT",
                ));
            }
            let operands = usize::from(a.op.atomic_operands());
            if operands > 0
                && (src1.is_none()
                    || usize::from(req.extended.src1_len) < operands * regs_for(exec * 4))
            {
                return Err(bad(
                    "LSC typed atomic: second payload shorter than the operands",
                ));
            }
            for n in 0..exec {
                if !enabled(n) {
                    continue;
                }
                let op = |t: &Thread, j: usize| -> Result<u64, SendError> {
                    match src1 {
                        Some(s) => reg_load(t, s + j * stride + n * 4, 4),
                        None => Ok(0),
                    }
                };
                let (x, y) = (op(t, 0)?, if operands == 2 { op(t, 1)? } else { 0 });
                let at = locate(
                    coord(t, 0, n)?,
                    coord(t, 1, n)?,
                    coord(t, 2, n)?,
                    coord(t, 3, n)?,
                );
                let old = match at {
                    Some(addr) => {
                        let mut b = [0u8; 4];
                        env.memory.read(addr, &mut b).map_err(|f| fault(f, false))?;
                        let old = u64::from(u32::from_le_bytes(b));
                        if let Some(new) = super::atomic::apply(a.op, a.data, old, x, y) {
                            env.memory
                                .write(addr, &(new as u32).to_le_bytes())
                                .map_err(|f| fault(f, true))?;
                        }
                        old
                    }
                    None => 0,
                };
                if req.rlen > 0
                    && let Some(d) = dst
                {
                    reg_store(t, d + n * 4, 4, old)?;
                }
            }
            Ok(())
        }
        _ => Err(bad(
            "LSC typed: only load_quad, store_quad and integer atomics are modelled on TGM",
        )),
    }
}

/// A message to a null surface: loads and atomics return 0.
fn null_surface(
    t: &mut Thread,
    req: &SendRequest,
    a: &Access,
    exec: usize,
) -> Result<(), SendError> {
    let Some(d) = req.dst else { return Ok(()) };
    if a.op.is_store() {
        return Ok(());
    }
    let comps = match a.shape {
        Shape::Cmask(m) => m.count_ones() as usize,
        Shape::Vector { .. } => 1,
    };
    let stride = regs_for(exec * 4) * REG_BYTES;
    for n in 0..exec {
        if req.channels >> n & 1 == 0 {
            continue;
        }
        for c in 0..comps {
            if usize::from(req.rlen) * REG_BYTES > c * stride {
                reg_store(t, usize::from(d) * REG_BYTES + c * stride + n * 4, 4, 0)?;
            }
        }
    }
    Ok(())
}
