//! The legacy XY_COLOR_BLT and XY_SRC_COPY_BLT that DG2 keeps (manual 004
//! lines 37314-37368 and 39020-39093; Linux igt lib/intel_cmds_info.c lists
//! both for DG2, gen12_dg2_cmds_info), on linear surfaces: the SNB layout
//! with 64-bit base addresses, pitches in bytes, colour depth 8, 16
//! (565/1555) or 32 bpp, the general ROP3 of the older blitter
//! (`crate::blit::rop3`) and the 32 bpp byte mask (DW0 bit 21 alpha, bit
//! 20 RGB).
//!
//! Refused by name: tiled surfaces (the pages say "Tile-X or Tile-Y" and
//! the selector, BCS_SWCTRL on older parts, is not in DG2's tables),
//! clipping (the XY_SETUP_CLIP_BLT state is not modelled on DG2), negative
//! pitches and coordinates, and ROPs that read an operand the command lacks
//! (a source in a fill, a pattern in a copy).

use super::super::memory::VA_MASK;
use super::decode::{Blit, Kind, Raster, Refused, rect, s16};
use super::surface::Surface;
use crate::command::F;

pub fn required(kind: Kind) -> &'static [F] {
    match kind {
        Kind::Color => &[
            F::ColorDepth,
            F::RasterOperation,
            F::TilingEnable,
            F::ClippingEnable,
            F::DestinationPitch,
            F::DestinationBaseAddress,
            F::SolidPatternColor,
            F::DestinationX1,
            F::DestinationY1,
            F::DestinationX2,
            F::DestinationY2,
        ],
        _ => &[
            F::ColorDepth,
            F::RasterOperation,
            F::DestTilingEnable,
            F::SrcTilingEnable,
            F::ClippingEnable,
            F::DestinationPitch,
            F::SourcePitch,
            F::DestinationBaseAddress,
            F::SourceBaseAddress,
            F::SourceX1,
            F::SourceY1,
            F::DestinationX1,
            F::DestinationY1,
            F::DestinationX2,
            F::DestinationY2,
        ],
    }
}

/// Whether the ROP3 result depends on the pattern or the source: the code
/// differs between the halves where that operand is 0 and 1.
fn uses_pattern(rop: u8) -> bool {
    rop >> 4 != rop & 0x0f
}
fn uses_source(rop: u8) -> bool {
    (rop >> 2) & 0x33 != rop & 0x33
}

fn linear(base: u64, pitch: u64) -> Result<Surface, Refused> {
    let pitch = s16(pitch);
    if pitch < 0 {
        return Err("negative pitches on DG2's legacy blits");
    }
    Ok(Surface {
        base: base & VA_MASK,
        pitch: pitch as u64,
        layout: None,
    })
}

pub fn decode(f: &impl Fn(F) -> u64, kind: Kind) -> Result<Option<Blit>, Refused> {
    let tiled = match kind {
        Kind::Color => f(F::TilingEnable) != 0,
        _ => f(F::DestTilingEnable) != 0 || f(F::SrcTilingEnable) != 0,
    };
    if tiled {
        return Err("a tiled legacy XY_* blit (DG2's Tile-X/Tile-Y selector is not in the tables)");
    }
    if f(F::ClippingEnable) != 0 {
        return Err("clipping on DG2's legacy blits (the XY_SETUP_CLIP_BLT state)");
    }
    // Colour depth 25:24: 8 bpp, 565, 1555, 32 bpp.
    let cpp = match f(F::ColorDepth) & 3 {
        0 => 1,
        1 | 2 => 2,
        _ => 4,
    };
    let rop = f(F::RasterOperation) as u8;
    let (mask, color) = (f(F::Bpp32ByteMask), f(F::SolidPatternColor) as u32);
    let (alpha, rgb) = (mask & 2 != 0, mask & 1 != 0);
    let writes = if cpp == 4 {
        [rgb, rgb, rgb, alpha]
    } else {
        [true; 4]
    };
    let raster = Raster {
        rop,
        pattern: color.to_le_bytes(),
        writes,
    };
    let dst = linear(f(F::DestinationBaseAddress), f(F::DestinationPitch))?;
    let src = match kind {
        Kind::Color if uses_source(rop) => {
            return Err("a raster operation that reads a source (XY_COLOR_BLT)");
        }
        Kind::Color => None,
        _ if uses_pattern(rop) => {
            return Err("a raster operation that reads a pattern (XY_SRC_COPY_BLT)");
        }
        _ => Some(linear(f(F::SourceBaseAddress), f(F::SourcePitch))?),
    };
    let Some([x, y, width, height, sx, sy]) = rect(f, src.is_some())? else {
        return Ok(None);
    };
    Ok(Some(Blit {
        dst,
        src: src.map(|s| (s, sx, sy)),
        x,
        y,
        width,
        height,
        cpp,
        fill: [0; 16],
        raster: Some(raster),
    }))
}
