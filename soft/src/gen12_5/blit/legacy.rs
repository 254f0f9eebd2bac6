//! The legacy XY_COLOR_BLT and XY_SRC_COPY_BLT that DG2 keeps (manual 004
//! lines 37314-37368 and 39020-39093; Linux igt lib/intel_cmds_info.c lists
//! both for DG2, gen12_dg2_cmds_info, with linear and X-tiled surfaces): the
//! SNB layout with 64-bit base addresses, colour depth 8, 16 (565/1555) or
//! 32 bpp, the general ROP3 of the older blitter (`crate::blit::rop3`) and
//! the 32 bpp byte mask (DW0 bit 21 alpha, bit 20 RGB).
//!
//! A linear pitch is in bytes; with the tiling enable (DW0 bit 11 for the
//! destination, bit 15 for the source) the surface is Tile-X, its pitch in
//! DWords, a multiple of 512 bytes, its base 4 KiB aligned (004 lines
//! 39074-39091). The pages say "Tile-X or Tile-Y": older parts chose Y
//! through BCS_SWCTRL bits 0/1 (BCS_SRC_Y, BCS_DST_Y: igt
//! tests/i915/gem_blits.c), which Xe_HP no longer has (Linux Xe
//! regs/xe_engine_regs.h defines only BCS_SWCTRL_DISABLE_256B, bit 2) and
//! DG2 has no Tile-Y layout (Tile4 took its place), so the enable means
//! Tile-X here.
//!
//! Refused by name: tiled surfaces that break those rules, clipping (the
//! XY_SETUP_CLIP_BLT state is not modelled on DG2), negative pitches and
//! coordinates, and ROPs that read an operand the command lacks (a source
//! in a fill, a pattern in a copy).

use baregpu_hal::tiling::TILE_X;

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

/// An operand from its base and pitch field, linear or (`tiled`) Tile-X.
fn operand(base: u64, pitch: u64, tiled: bool) -> Result<Surface, Refused> {
    let pitch = s16(pitch);
    if pitch < 0 {
        return Err("negative pitches on DG2's legacy blits");
    }
    let base = base & VA_MASK;
    if !tiled {
        return Ok(Surface {
            base,
            pitch: pitch as u64,
            layout: None,
        });
    }
    let bytes = pitch as u64 * 4;
    if bytes == 0 || !bytes.is_multiple_of(TILE_X.width() as u64) {
        return Err("a Tile-X legacy blit pitch that is not a multiple of 512 bytes");
    }
    if !base.is_multiple_of(4096) {
        return Err("a Tile-X legacy blit surface whose base is not 4 KiB aligned");
    }
    Ok(Surface {
        base,
        pitch: bytes,
        layout: Some(TILE_X),
    })
}

pub fn decode(f: &impl Fn(F) -> u64, kind: Kind) -> Result<Option<Blit>, Refused> {
    let dst_tiled = match kind {
        Kind::Color => f(F::TilingEnable) != 0,
        _ => f(F::DestTilingEnable) != 0,
    };
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
    let dst = operand(
        f(F::DestinationBaseAddress),
        f(F::DestinationPitch),
        dst_tiled,
    )?;
    let src = match kind {
        Kind::Color if uses_source(rop) => {
            return Err("a raster operation that reads a source (XY_COLOR_BLT)");
        }
        Kind::Color => None,
        _ if uses_pattern(rop) => {
            return Err("a raster operation that reads a pattern (XY_SRC_COPY_BLT)");
        }
        _ => Some(operand(
            f(F::SourceBaseAddress),
            f(F::SourcePitch),
            f(F::SrcTilingEnable) != 0,
        )?),
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
