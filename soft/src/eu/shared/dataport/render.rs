//! Render-target write, as far as clears and simple colour output need,
//! and the streamed vertex buffer write.
//!
//! Render-target write (000 lines 4911-5249), partial: Gen4/G45 only (the
//! Gen6+ header moves its fields and is not modelled); SIMD16 and SIMD8
//! single source and SIMD16 replicated data; colour only (messages with
//! depth, stencil or antialias alpha are refused); no blending, logic ops,
//! colour write disables or pixel-scoreboard effects (the colour
//! calculator state is not modelled); 2D surfaces of the formats in
//! `surface::format` that the sampler can also read. The header's M0.0
//! pixel enables pick the pixels (the execution mask is ignored, 000 line
//! 4937); M1.2-M1.5 give each subspan's upper-left X/Y (000 lines
//! 5010-5017); a subspan's pixels are UL, UR, LL, LR (000 lines 4945-4956).
//! Pixels outside the surface are dropped (000 line 4939).
//!
//! Streamed vertex buffer write (000 lines 5250-5289; 003 lines
//! 86080-86150): M0.5 the destination index, M0.0-M0.3 the R, G, B, A
//! data written raw; the surface format says how many channels exist and
//! the low 4 channel enables which are written.

use baregpu_isa::Platform;
use baregpu_isa::message::RtMode;

use super::super::MessageEnv;
use super::super::payload::{Msg, bad};
use super::super::surface::{Surface, SurfaceKind, format};
use super::require_header;
use crate::eu::send::SendError;

pub(super) fn rt_write(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    mode: RtMode,
) -> Result<(), SendError> {
    if m.platform() > Platform::G45 {
        return Err(SendError::Unhandled);
    }
    // Every sequencing row has the two header registers (000 line 5214).
    let (pixels, data_regs) = match mode {
        RtMode::Simd16 => (16, 8),
        RtMode::Simd8Lo => (8, 4),
        RtMode::Simd16Rep => (16, 1),
        _ => return Err(SendError::Unhandled),
    };
    m.need(2 + data_regs, 0)?;
    // Source depth, destination depth, stencil, antialias alpha (M1.6
    // bits 29:26, 000 lines 5005-5008).
    if m.dword(1, 6)? >> 26 & 0xF != 0 {
        return Err(SendError::Unhandled);
    }
    let s = env.surface(bti)?;
    if s.kind == SurfaceKind::Null {
        return Ok(());
    }
    if s.kind != SurfaceKind::D2 {
        return Err(bad("render-target write: only 2D surfaces are modelled"));
    }
    let enables = m.dword(0, 0)? & 0xFFFF;
    for slot in 0..pixels {
        if enables >> slot & 1 == 0 {
            continue;
        }
        let (span, pix) = (slot / 4, slot % 4);
        let xy = m.dword(1, 2 + span)?;
        let x = (xy & 0xFFFF) + (pix & 1) as u32;
        let y = (xy >> 16) + (pix >> 1) as u32;
        let mut rgba = [0u32; 4];
        for (c, v) in rgba.iter_mut().enumerate() {
            *v = match mode {
                RtMode::Simd16Rep => m.dword(2, c)?,
                // SIMD16: subspans 1/0 then 3/2, four registers each
                // (000 line 5228); SIMD8: one register per channel.
                _ => m.dword(2 + (slot / 8) * 4 + c, slot % 8)?,
            };
        }
        store_pixel(env, &s, x, y, rgba)?;
    }
    Ok(())
}

/// Converts a colour to `s`'s format and stores it at (x, y), dropping it
/// outside the surface.
fn store_pixel(
    env: &mut MessageEnv,
    s: &Surface,
    x: u32,
    y: u32,
    rgba: [u32; 4],
) -> Result<(), SendError> {
    if x >= s.width || y >= s.height {
        return Ok(());
    }
    let (channels, kind) =
        format::channels(s.format).ok_or(bad("render-target write: format not modelled"))?;
    let bpp = s.bytes_per_pixel().unwrap_or(4);
    let size = (bpp / u32::from(channels)) as usize;
    let mut bytes = [0u8; 16];
    for c in 0..usize::from(channels) {
        // B8G8R8A8 stores blue first.
        let src = if s.format == format::B8G8R8A8_UNORM && c != 3 {
            2 - c
        } else {
            c
        };
        let v = rgba[src];
        let stored = match kind {
            format::Kind::Unorm => {
                let f = f32::from_bits(v);
                let max = ((1u64 << (8 * size)) - 1) as f32;
                let f = if f.is_nan() { 0.0 } else { f.clamp(0.0, 1.0) };
                (f * max + 0.5) as u32
            }
            _ => v,
        };
        let at = c * size;
        bytes[at..at + size].copy_from_slice(&stored.to_le_bytes()[..size]);
    }
    let addr = s.address(u64::from(x) * u64::from(bpp), u64::from(y));
    env.mem_write(addr, &bytes[..bpp as usize])
}

/// Channels a streamed vertex buffer element has, by surface format.
fn svb_channels(fmt: u32) -> Option<usize> {
    format::channels(fmt).and_then(|(n, k)| {
        let four_byte = format::bytes(fmt) == Some(4 * u32::from(n));
        (four_byte && k != format::Kind::Unorm).then_some(usize::from(n))
    })
}

pub(super) fn svb_write(env: &mut MessageEnv, m: &mut Msg, bti: u8) -> Result<(), SendError> {
    require_header(m)?;
    m.need(1, 0)?;
    // "The stateless model cannot be used with this message" (000 line
    // 5260).
    if bti >= super::super::BTI_SLM {
        return Err(bad("streamed vertex buffer write needs a surface"));
    }
    let s = env.surface(bti)?;
    match s.kind {
        SurfaceKind::Null => return Ok(()),
        SurfaceKind::Buffer => {}
        _ => return Err(bad("streamed vertex buffer write needs a buffer")),
    }
    let n = svb_channels(s.format).ok_or(bad("streamed vertex buffer: format not modelled"))?;
    let index = u64::from(m.dword(0, 5)?);
    if index >= s.entries() {
        return Ok(());
    }
    let ce = m.enables();
    for c in 0..n {
        if ce >> c & 1 != 0 {
            let at = s
                .base
                .wrapping_add(index * u64::from(s.pitch))
                .wrapping_add(4 * c as u64);
            let v = m.dword(0, c)?;
            env.mem_write(at, &v.to_le_bytes())?;
        }
    }
    Ok(())
}
