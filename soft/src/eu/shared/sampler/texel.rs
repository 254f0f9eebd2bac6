//! Texel fetch: one texel's bytes turned into the four channels the
//! sampler returns.
//!
//! UNORM channels become floats `v / (2^bits - 1)`; float and integer
//! channels pass as they are (000 line 3945, FLOAT32 for UNORM and FLOAT
//! formats, UINT32/SINT32 for integer ones). Channels a format lacks take
//! the Sampler Output Channel Mapping defaults (000 lines 3541-3648):
//! 0.0 for colour and 1.0 (integer 1) for alpha in DX10/OGL border colour
//! mode; in DX9 mode the float formats give 1.0 for every missing channel
//! (R32G32_FLOAT line 3552, R32_FLOAT line 3579) and the other formats
//! with missing channels exist in DX10/OGL mode only (line 3545), so
//! DX9 mode is refused for them.

use super::super::MessageEnv;
use super::super::payload::bad;
use super::super::surface::{Surface, SurfaceKind, format};
use super::state::BorderMode;
use crate::eu::send::SendError;

/// How a surface's texels are read and returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Format {
    pub code: u32,
    /// Channels stored.
    pub channels: u8,
    pub kind: format::Kind,
    pub bytes: u32,
    /// What the missing channels return.
    pub defaults: [u32; 4],
}

impl Format {
    /// The format of `s` with the defaults of border colour mode `mode`.
    pub fn of(s: &Surface, mode: BorderMode) -> Result<Format, SendError> {
        let (channels, kind) =
            format::channels(s.format).ok_or(bad("sampler: surface format not modelled"))?;
        if kind == format::Kind::Yuv {
            return Err(bad("sampler: YUV surface formats are not modelled"));
        }
        let bytes = s.bytes_per_pixel().unwrap_or(4);
        let one = one(kind);
        let defaults = match mode {
            BorderMode::Dx10Ogl => [0, 0, 0, one],
            _ if channels == 4 => [0; 4],
            BorderMode::Dx9 if kind == format::Kind::Float => [one; 4],
            BorderMode::Dx9 => {
                return Err(bad(
                    "sampler: this surface format has only the DX10/OGL border colour mode",
                ));
            }
        };
        Ok(Format {
            code: s.format,
            channels,
            kind,
            bytes,
            defaults,
        })
    }

    /// Float and UNORM formats return floats.
    pub fn is_float(&self) -> bool {
        matches!(self.kind, format::Kind::Float | format::Kind::Unorm)
    }

    /// Bits per channel (for integer border colours).
    pub fn channel_bits(&self) -> u32 {
        8 * self.bytes / u32::from(self.channels.max(1))
    }

    /// A texel outside the surface or its mip range for `ld` and
    /// out-of-bounds levels: zeros, alpha 1 for formats without alpha (000
    /// line 4064; 003 lines 73298-73301).
    pub fn zero(&self) -> [u32; 4] {
        if self.channels == 4 {
            [0; 4]
        } else {
            [0, 0, 0, one(self.kind)]
        }
    }

    /// Keeps the channels the format stores from `c` and gives the others
    /// their defaults (a border colour in DX10/OGL mode, 000 line 3824).
    pub fn mask_missing(&self, c: [u32; 4]) -> [u32; 4] {
        let n = usize::from(self.channels);
        core::array::from_fn(|i| if i < n { c[i] } else { self.defaults[i] })
    }
}

fn one(kind: format::Kind) -> u32 {
    match kind {
        format::Kind::Float | format::Kind::Unorm => 1.0f32.to_bits(),
        _ => 1,
    }
}

/// The channels of texel (`x`, `y`) of `s`, in texels from the surface's
/// origin (a buffer's entry `x`; `y` ignored).
pub(super) fn read(
    env: &mut MessageEnv,
    s: &Surface,
    f: &Format,
    x: u64,
    y: u64,
) -> Result<[u32; 4], SendError> {
    let mut raw = [0u8; 16];
    let len = (f.bytes as usize).min(16);
    let addr = match s.kind {
        SurfaceKind::Buffer => s.base.wrapping_add(x.wrapping_mul(u64::from(s.pitch))),
        _ => s.address(x.saturating_mul(u64::from(f.bytes)), y),
    };
    env.mem_read(addr, &mut raw[..len])?;
    let size = (f.bytes / u32::from(f.channels.max(1))) as usize;
    let mut out = f.defaults;
    for c in 0..usize::from(f.channels).min(4) {
        let mut b = [0u8; 4];
        let bytes = raw.get(c * size..c * size + size).unwrap_or(&[]);
        b[..bytes.len().min(4)].copy_from_slice(&bytes[..bytes.len().min(4)]);
        let v = u32::from_le_bytes(b);
        // B8G8R8A8 stores blue first.
        let dst = if f.code == format::B8G8R8A8_UNORM && c != 3 {
            2 - c
        } else {
            c
        };
        out[dst] = match f.kind {
            format::Kind::Unorm => {
                let max = ((1u64 << (8 * size)) - 1) as f32;
                (v as f32 / max).to_bits()
            }
            _ => v,
        };
    }
    Ok(out)
}
