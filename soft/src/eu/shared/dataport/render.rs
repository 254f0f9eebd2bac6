//! Render-target write, as far as clears and simple colour output need,
//! and the streamed vertex buffer write.
//!
//! Render-target write: the header's pixel enables pick the pixels (the
//! execution mask is ignored: 000 line 4937, 003 lines 84862-84863); the
//! header gives each subspan's upper-left X/Y and a subspan's pixels are
//! UL, UR, LL, LR (000 lines 4945-4956, 003 lines 84870-84900); pixels
//! outside the surface are dropped (000 line 4939, 003 lines 84865-84867).
//! Colour only, on 2D surfaces, converted to the surface format by
//! [`target`]. Per generation:
//!
//! - Gen4/G45 (000 lines 4911-5249), below: M0.0 holds the pixel enables,
//!   M1.2-M1.5 the subspan X/Y (000 lines 5010-5017); SIMD16 colour is
//!   subspans 1/0 R, G, B, A then 3/2 R, G, B, A (000 line 5228).
//! - Gen6, Gen7 and Gen7.5 (003 lines 84812-85793), in [`gen6`]: the
//!   header moves the enables to M1.7 and is optional; SIMD16 colour
//!   interleaves the halves per channel. Every form is decoded into an
//!   [`crate::eu::shared::RtWrite`]; a pixel thread of the 3D pipeline
//!   hands it to the draw's output merger (blending, logic ops, write
//!   disables, alpha, depth and stencil test: `render3d::om`).
//!
//! Threads without an output merger (media, GPGPU, the harness) write
//! directly, as with blending off and every channel enabled; the forms
//! that only mean something to the merger (source depth, oMask, source-0
//! alpha, dual source) are refused there, as are header-less messages,
//! whose pixel positions come from a pixel-shader dispatch. The
//! replicated-data clear lands the same way whatever the blend state says
//! [ext: mesa src/intel/blorp/blorp_clear.c: "Constant color writes ignore
//! everything in blend and color calculator state"]. Not modelled
//! anywhere: destination depth, stencil and antialias alpha (Gen4/G45),
//! (Gen6) SIMD8 image writes, per-sample dispatch, surface arrays.
//!
//! Streamed vertex buffer write (000 lines 5250-5289; 003 lines
//! 86080-86150): M0.5 the destination index, M0.0-M0.3 the R, G, B, A
//! data written raw; the surface format says how many channels exist and
//! the low 4 channel enables which are written.

mod gen6;
pub(crate) mod target;
#[cfg(test)]
mod tests;

use baregpu_isa::IsaGen;
use baregpu_isa::message::RtMode;

use super::super::MessageEnv;
use super::super::payload::{Msg, bad};
use super::super::surface::{SurfaceKind, format};
use super::require_header;
use crate::eu::send::SendError;
use target::Target;

pub(super) fn rt_write(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    mode: RtMode,
    last: bool,
    slot_hi: bool,
) -> Result<(), SendError> {
    if m.platform() >= IsaGen::Gen6 {
        return gen6::write(env, m, bti, mode, last, slot_hi);
    }
    // Every sequencing row has the two header registers (000 line 5214).
    let (pixels, data_regs) = match mode {
        RtMode::Simd16 => (16, 8),
        RtMode::Simd8Lo => (8, 4),
        RtMode::Simd16Rep => (16, 1),
        RtMode::Simd8DualLo | RtMode::Simd8DualHi => {
            return Err(bad("render-target write: dual source is not modelled"));
        }
        RtMode::Simd8Image => return Err(bad("render-target write type reserved before Gen6")),
    };
    m.need(2 + data_regs, 0)?;
    // Source depth, destination depth, stencil, antialias alpha (M1.6
    // bits 29:26, 000 lines 5005-5008).
    if m.dword(1, 6)? >> 26 & 0xF != 0 {
        return Err(bad(
            "render-target write: depth, stencil or antialias alpha is not modelled",
        ));
    }
    let Some(t) = Target::open(env, bti, mode == RtMode::Simd16Rep)? else {
        return Ok(());
    };
    let enables = m.dword(0, 0)? & 0xFFFF;
    for slot in 0..pixels {
        if enables >> slot & 1 == 0 {
            continue;
        }
        let (x, y) = target::pixel_xy(m.dword(1, 2 + slot / 4)?, slot);
        let mut rgba = [0u32; 4];
        for (c, v) in rgba.iter_mut().enumerate() {
            *v = match mode {
                RtMode::Simd16Rep => m.dword(2, c)?,
                // SIMD16: subspans 1/0 then 3/2, four registers each
                // (000 line 5228); SIMD8: one register per channel.
                _ => m.dword(2 + (slot / 8) * 4 + c, slot % 8)?,
            };
        }
        t.store(env, x, y, rgba)?;
    }
    Ok(())
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
