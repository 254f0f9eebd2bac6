//! The surface a render-target write lands on: which surfaces the model
//! takes, where a slot's pixel is, and the colour conversion to the
//! surface format.
//!
//! Conversion, with blending off (003 lines 44889-44990):
//! - UNORM: clamped to [0, 1] (the pre-blend clamp "must be enabled with
//!   range = RT range or [0,1]", 003 lines 44901-44907), scaled by
//!   2^n - 1 and rounded to the nearest integer. The manual calls the
//!   quantisation implementation specific (003 lines 45144-45145); ties
//!   round up here. A NaN stores 0 (the manuals are silent; this follows
//!   the D3D rule that NaN converts to 0).
//! - UINT, SINT: "an implied clamp to the rendertarget surface format"
//!   (003 lines 44987-44989); 32-bit channels store the value as sent.
//! - FLOAT: the 32-bit value as sent (the clamp range is colour-calculator
//!   state, which is not modelled).
//!
//! Channels are stored in the order the format names them, lowest byte
//! first; B8G8R8A8 puts blue first (003 line 31552, printed there as
//! "R8G8R8A8": component 0 is B).

use super::super::super::payload::bad;
use super::super::super::surface::{Surface, SurfaceKind, Tiling, format};
use super::super::super::{BTI_STATELESS, MessageEnv};
use crate::eu::send::SendError;

/// Pixel of `slot` in a subspan whose upper-left corner is packed as the
/// header packs it: X in 15:0, Y in 31:16 (000 lines 5010-5017; 003 lines
/// 85173-85192). Pixels 0-3 of a subspan are UL, UR, LL, LR (003 lines
/// 84876-84882).
pub(super) fn pixel_xy(corner: u32, slot: usize) -> (u32, u32) {
    let pix = (slot % 4) as u32;
    ((corner & 0xFFFF) + (pix & 1), (corner >> 16) + (pix >> 1))
}

/// How a format's channels are stored.
#[derive(Clone, Copy, Debug)]
struct Layout {
    channels: usize,
    /// Bytes per channel: 1, 2 or 4.
    size: usize,
    kind: format::Kind,
    blue_first: bool,
}

impl Layout {
    fn of(fmt: u32) -> Result<Layout, SendError> {
        let unknown = bad("render-target write: surface format not modelled");
        let (n, kind) = format::channels(fmt).ok_or(unknown)?;
        let bytes = format::bytes(fmt).ok_or(unknown)? as usize;
        let channels = usize::from(n);
        let size = bytes / channels.max(1);
        // Packed YUV has no per-channel bytes.
        if kind == format::Kind::Yuv || !matches!(size, 1 | 2 | 4) || size * channels != bytes {
            return Err(unknown);
        }
        Ok(Layout {
            channels,
            size,
            kind,
            blue_first: fmt == format::B8G8R8A8_UNORM,
        })
    }

    /// One channel's stored value (the low `size` bytes are written).
    fn convert(&self, v: u32) -> u32 {
        format::encode_channel(self.kind, 8 * self.size as u32, v)
    }
}

/// A render target the model can write.
pub(super) struct Target {
    surface: Surface,
    layout: Layout,
}

impl Target {
    /// The surface at `bti`, or `None` for SURFTYPE_NULL (writes dropped,
    /// 000 line 3090; 003 lines 75483-75490). `replicated` is the
    /// replicated-data clear, which linear memory leaves undefined (000
    /// line 4966; 003 lines 84978-84979, 85575).
    pub(super) fn open(
        env: &mut MessageEnv,
        bti: u8,
        replicated: bool,
    ) -> Result<Option<Target>, SendError> {
        // "Binding Table Index cannot be 255" (000 line 4924; 003 line
        // 84839).
        if bti == BTI_STATELESS {
            return Err(bad("render-target write cannot be stateless"));
        }
        let s = env.surface(bti)?;
        if s.kind == SurfaceKind::Null {
            return Ok(None);
        }
        // All surface types are allowed (003 line 84821); this model takes
        // single 2D surfaces only: no array index is applied.
        if s.kind != SurfaceKind::D2 {
            return Err(bad("render-target write: only 2D surfaces are modelled"));
        }
        if s.depth > 1 {
            return Err(bad("render-target write: surface arrays are not modelled"));
        }
        // Field mode is not allowed (000 line 4931; 003 line 84848).
        if s.vertical_line_stride {
            return Err(bad("render-target write to a field-mode surface"));
        }
        if replicated && s.tiling == Tiling::Linear {
            return Err(bad(
                "replicated-data render-target write to linear memory is undefined",
            ));
        }
        let layout = Layout::of(s.format)?;
        Ok(Some(Target { surface: s, layout }))
    }

    /// Converts `rgba` (the channels as the message sends them) and stores
    /// it at (x, y), or drops it outside the surface.
    pub(super) fn store(
        &self,
        env: &mut MessageEnv,
        x: u32,
        y: u32,
        rgba: [u32; 4],
    ) -> Result<(), SendError> {
        let s = &self.surface;
        if x >= s.width || y >= s.height {
            return Ok(());
        }
        let l = &self.layout;
        let mut bytes = [0u8; 16];
        for c in 0..l.channels {
            let src = if l.blue_first && c < 3 { 2 - c } else { c };
            let at = c * l.size;
            bytes[at..at + l.size].copy_from_slice(&l.convert(rgba[src]).to_le_bytes()[..l.size]);
        }
        let bpp = l.channels * l.size;
        let addr = s.address(u64::from(x) * bpp as u64, u64::from(y));
        env.mem_write(addr, &bytes[..bpp])
    }
}
