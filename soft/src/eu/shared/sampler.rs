//! The sampling engine, as far as compute needs: `ld`, `sample` and
//! `sample_l` with point sampling of mip level 0, and `resinfo`, for SIMD8
//! and SIMD16 messages on 1D, 2D and (for `ld`) buffer surfaces. Not
//! modelled: filtering other than nearest, mip levels (every LOD reads
//! level 0), arrays, 3D and cube maps, shadow compare, gather, SIMD4x2 and
//! SIMD32 messages, sampler state (the address mode comes from
//! [`Sampling`], not from SAMPLER_STATE).
//!
//! Payload: Gen4/G45 always start with the header M0 (000 lines
//! 3962-3988); Gen6+ only with the descriptor's header bit (003 lines
//! 79177-79182, 79221-79226). Parameter k sits in register k (SIMD8) or
//! registers 2k and 2k+1 (SIMD16, channels 0-7 then 8-15) after the header
//! (000 lines 4103-4142); parameters beyond the message are 0 (003 lines
//! 79438-79440). Parameter order:
//! - Gen4/G45 (000 lines 3999-4022): sample u v r; sample_l u v r lod;
//!   ld u v r lod; resinfo lod.
//! - Gen6 (003 lines 79366-79390): sample u v r ai; sample_l u v r ai lod;
//!   ld u v r lod; resinfo lod.
//! - Gen7 [ext: mesa brw_lower_logical_sends.cpp
//!   `lower_sampler_logical_send` for Gen7: the LOD goes before the
//!   coordinates, except for ld, whose parameters are "intermixed: u, lod,
//!   v, r"]: sample u v r; sample_l lod u v r; ld u lod v r; resinfo lod.
//!
//! Header M0.2 (000 lines 3974-3981): bits 15:12 mask the A, B, G, R
//! channels out of the writeback; 11:8 and 7:4 are the signed U and V texel
//! offsets.
//!
//! Writeback (000 lines 4183-4246): SIMD8 returns R, G, B, A in four
//! registers, a masked channel keeps its register unwritten; SIMD16 returns
//! two registers per channel with masked channels removed and the rest
//! moved down. Only pixels with their channel enable set are written.
//! Channels a format lacks read 0, alpha 1 (000 lines 3541-3648); `ld`
//! outside the surface returns zeros (alpha 1 for formats without alpha).

use baregpu_isa::Platform;
use baregpu_isa::message::{SamplerMsg, SamplerOp, SamplerSimd};

use super::MessageEnv;
use super::payload::{Msg, Reg, bad, set_dword};
use super::surface::{Surface, SurfaceKind, format};
use crate::eu::send::SendError;

/// How normalized coordinates outside [0, 1) map to texels (SAMPLER_STATE
/// TCX/TCY modes, 000 lines 2915-2972; this model takes them from here).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AddressMode {
    #[default]
    Clamp,
    Wrap,
    Mirror,
    /// Outside texels read as zero (a zero border colour).
    ClampBorder,
}

/// Sampler settings the model uses instead of SAMPLER_STATE.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sampling {
    pub address: AddressMode,
}

/// Parameter positions of an operation on a platform: (u, v, lod).
fn params(p: Platform, op: SamplerOp) -> Option<(usize, usize, Option<usize>)> {
    let gen7 = p >= Platform::Gen7;
    Some(match op {
        SamplerOp::Sample => (0, 1, None),
        SamplerOp::SampleL if gen7 => (1, 2, Some(0)),
        SamplerOp::SampleL if p == Platform::Gen6 => (0, 1, Some(4)),
        SamplerOp::SampleL => (0, 1, Some(3)),
        SamplerOp::Ld if gen7 => (0, 2, Some(1)),
        SamplerOp::Ld => (0, 1, Some(3)),
        SamplerOp::Resinfo => (0, 0, Some(0)),
        _ => return None,
    })
}

pub(super) fn handle(env: &mut MessageEnv, m: &mut Msg, s: &SamplerMsg) -> Result<(), SendError> {
    let p = m.platform();
    let (pu, pv, plod) = params(p, s.op).ok_or(SendError::Unhandled)?;
    let lanes = match s.simd {
        SamplerSimd::Simd8 => 8,
        SamplerSimd::Simd16 => 16,
        SamplerSimd::Simd4x2 => return Err(SendError::Unhandled),
    };
    let header = p <= Platform::G45 || m.req.header;
    let h = usize::from(header);
    let m2 = if header { m.dword(0, 2)? } else { 0 };
    let masked = (m2 >> 12) & 0xF;
    if masked == 0xF {
        return Err(bad("sampler: all four channels masked"));
    }
    let per = lanes / 8;
    let rlen = if lanes == 16 {
        2 * (4 - masked.count_ones() as usize)
    } else {
        4
    };
    m.need(h, rlen)?;
    // Parameter k of lane c (0 past the message's end).
    let param = |k: usize, c: usize| -> Result<u32, SendError> {
        let r = h + k * per + c / 8;
        if r < usize::from(m.req.mlen) {
            m.dword(r, c % 8)
        } else {
            Ok(0)
        }
    };
    let offset = |bits: u32| -> i64 { i64::from(((bits & 0xF) as i32) << 28 >> 28) };
    let (du, dv) = (offset(m2 >> 8), offset(m2 >> 4));
    let surface = env.surface(s.bti)?;
    let ce = m.enables();
    let mut texels = [[0u32; 4]; 16];
    for (c, t) in texels.iter_mut().enumerate().take(lanes) {
        if ce >> c & 1 == 0 {
            continue;
        }
        let (u, v) = (param(pu, c)?, param(pv, c)?);
        *t = match s.op {
            SamplerOp::Resinfo => {
                let lod = plod.map_or(Ok(0), |k| param(k, c))?;
                resinfo(&surface, lod)
            }
            SamplerOp::Ld => {
                let x = i64::from(u as i32) + du;
                let y = i64::from(v as i32) + dv;
                fetch(env, &surface, x, y, AddressMode::ClampBorder)?
            }
            _ => {
                let (x, y) = texel_of(&surface, f32::from_bits(u), f32::from_bits(v));
                fetch(env, &surface, x + du, y + dv, env.sampling.address)?
            }
        };
    }
    // Writeback: channel slots after removing masked ones (SIMD16 only).
    let planes: [[u32; 16]; 4] = core::array::from_fn(|ch| core::array::from_fn(|c| texels[c][ch]));
    let mut slot = 0;
    for (ch, plane) in planes.iter().enumerate() {
        let off = masked >> ch & 1 != 0;
        if off && lanes == 16 {
            continue;
        }
        for ph in 0..per {
            let mut reg: Reg = [0; 32];
            let mut dwords = 0u8;
            for d in 0..8 {
                let c = ph * 8 + d;
                if ce >> c & 1 != 0 {
                    set_dword(&mut reg, d, plane[c]);
                    dwords |= 1 << d;
                }
            }
            if !off {
                m.respond(slot, &reg, dwords)?;
            }
            slot += 1;
        }
    }
    Ok(())
}

/// Texel coordinates of normalized (u, v): floor(u * width), floor(v *
/// height) (NaN reads as 0).
fn texel_of(s: &Surface, u: f32, v: f32) -> (i64, i64) {
    let scale = |f: f32, n: u32| -> i64 {
        let f = if f.is_nan() { 0.0 } else { f };
        libm::floor(f64::from(f) * f64::from(n)).clamp(-1e15, 1e15) as i64
    };
    let h = if s.kind == SurfaceKind::D1 {
        1
    } else {
        s.height
    };
    (scale(u, s.width), scale(v, h))
}

/// resinfo: (width >> lod, height >> lod, depth, mip count) as UINT32
/// (000 lines 4054-4059); one mip level in this model.
fn resinfo(s: &Surface, lod: u32) -> [u32; 4] {
    let sh = |n: u32| n.checked_shr(lod).unwrap_or(0);
    match s.kind {
        SurfaceKind::Null => [0; 4],
        SurfaceKind::D1 => [sh(s.width), 0, 0, 1],
        _ => [sh(s.width), sh(s.height), 0, 1],
    }
}

/// Applies the address mode to texel index `i` of `n`; `None` for a border
/// texel.
fn address(i: i64, n: i64, mode: AddressMode) -> Option<i64> {
    if n <= 0 {
        return None;
    }
    match mode {
        AddressMode::Clamp => Some(i.clamp(0, n - 1)),
        AddressMode::Wrap => Some(i.rem_euclid(n)),
        AddressMode::Mirror => {
            let k = i.rem_euclid(2 * n);
            Some(if k < n { k } else { 2 * n - 1 - k })
        }
        AddressMode::ClampBorder => (0..n).contains(&i).then_some(i),
    }
}

/// The four channels of texel (x, y) of `s`.
fn fetch(
    env: &mut MessageEnv,
    s: &Surface,
    x: i64,
    y: i64,
    mode: AddressMode,
) -> Result<[u32; 4], SendError> {
    if s.kind == SurfaceKind::Null {
        return Ok([0; 4]);
    }
    let (n, kind) = format::channels(s.format).ok_or(bad("sampler: format not modelled"))?;
    let one = if matches!(kind, format::Kind::Float | format::Kind::Unorm) {
        1.0f32.to_bits()
    } else {
        1
    };
    let border = if n == 4 { [0; 4] } else { [0, 0, 0, one] };
    let (w, hgt) = match s.kind {
        SurfaceKind::D2 => (s.width, s.height),
        SurfaceKind::D1 | SurfaceKind::Buffer => (s.width, 1),
        _ => return Err(SendError::Unhandled),
    };
    let (Some(x), Some(y)) = (
        address(x, i64::from(w), mode),
        address(if hgt == 1 { 0 } else { y }, i64::from(hgt), mode),
    ) else {
        return Ok(border);
    };
    let bpp = s.bytes_per_pixel().unwrap_or(4);
    let mut raw = [0u8; 16];
    let addr = match s.kind {
        SurfaceKind::Buffer => s.base.wrapping_add(x as u64 * u64::from(s.pitch)),
        _ => s.address(x as u64 * u64::from(bpp), y as u64),
    };
    env.mem_read(addr, &mut raw[..bpp as usize])?;
    let size = (bpp / u32::from(n)) as usize;
    let mut out = [0, 0, 0, one];
    for c in 0..usize::from(n) {
        let mut b = [0u8; 4];
        b[..size].copy_from_slice(&raw[c * size..c * size + size]);
        let v = u32::from_le_bytes(b);
        // B8G8R8A8 holds blue first.
        let dst = if s.format == format::B8G8R8A8_UNORM && c != 3 {
            2 - c
        } else {
            c
        };
        out[dst] = match kind {
            format::Kind::Unorm => {
                let max = ((1u64 << (8 * size)) - 1) as f32;
                (v as f32 / max).to_bits()
            }
            _ => v,
        };
    }
    Ok(out)
}
