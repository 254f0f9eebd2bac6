//! DG2 blits as packets: a [`Surface`] (graphics address, pitch, layout,
//! pixel size) and a rectangle become an XY_FAST_COPY_BLT,
//! XY_BLOCK_COPY_BLT or XY_FAST_COLOR_BLT with the encodings the hardware
//! wants, or an error naming the rule broken.
//!
//! Encodings (hal/tables/gen12.5/blitter.toml, manual 004 lines
//! 36930-37779; Linux igt lib/intel_blt.c for DG2): pitches in DWords for
//! tiled surfaces and bytes for linear ones, minus one in the block-copy and
//! fast-colour commands; fast-copy tiling 0 linear, 2 YMAJOR with the Tile4
//! bit, 3 Tile64; block-copy and fast-colour tiling 0 linear, 2 Tile4, 3
//! Tile64; colour depths per command. The extended block-copy and
//! fast-colour DWords describe a 2D surface at LOD 0 with no mip tail (Mip
//! Tail Start LOD 15, as igt's blt_set_object_ext), uncompressed.

use core::fmt;

use crate::gtt::GfxAddr;
use baregpu_hal::gen12_5::commands::{XyBlockCopyBlt, XyFastColorBlt, XyFastCopyBlt};
use baregpu_hal::tiling::{TILE_4, tile64};

/// How a surface's bytes are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Linear,
    /// `gtt::tile4`.
    Tile4,
    /// `gtt::tile64` (2D, one sample).
    Tile64,
}

/// One blit operand.
#[derive(Clone, Copy, Debug)]
pub struct Surface {
    /// Graphics address of pixel (0, 0) in the context the blit runs in.
    pub gfx: GfxAddr,
    /// Bytes from one row to the next (for tiled surfaces, one row of
    /// pixels; tile rows are `pitch * tile height` apart).
    pub pitch: u32,
    pub layout: Layout,
    /// Bytes per pixel: 1, 2, 4, 8, 16 (12 for linear block copies and fills).
    pub bytes_per_pixel: u32,
}

/// A rectangle of pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

/// Why a blit could not be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlitError {
    /// The command has no colour depth for pixels of this size.
    PixelSize(u32),
    /// Source and destination pixels differ in size.
    PixelSizesDiffer,
    /// A tiled pitch is not a non-zero multiple of the tile width, or a
    /// linear pitch not whole pixels.
    Pitch { pitch: u32, multiple_of: u32 },
    /// A pitch does not fit the command's field.
    PitchTooLarge(u32),
    /// The base address breaks the command's alignment (64 bytes).
    Base(GfxAddr),
    /// A coordinate does not fit the commands' 16-bit signed fields.
    Coordinate(u32),
    /// XY_FAST_COPY_BLT starts each row on a 16-byte boundary.
    NotOwordAligned,
}

impl fmt::Display for BlitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            BlitError::PixelSize(b) => write!(f, "no colour depth for {b}-byte pixels"),
            BlitError::PixelSizesDiffer => write!(f, "source and destination pixel sizes differ"),
            BlitError::Pitch { pitch, multiple_of } => {
                write!(
                    f,
                    "pitch {pitch} is not a non-zero multiple of {multiple_of}"
                )
            }
            BlitError::PitchTooLarge(p) => write!(f, "pitch {p} does not fit the command"),
            BlitError::Base(a) => write!(f, "base {:#x} is not 64-byte aligned", a.0),
            BlitError::Coordinate(c) => write!(f, "coordinate {c} exceeds 32767"),
            BlitError::NotOwordAligned => {
                write!(f, "a fast copy's rows must start on 16-byte boundaries")
            }
        }
    }
}

impl Surface {
    /// Checks the pitch against the layout's tile width (whole pixels when
    /// linear) and the base against 64-byte alignment when `aligned`, and
    /// returns the pitch in the commands' unit (DWords when tiled).
    fn pitch_field(&self, aligned: bool) -> Result<u32, BlitError> {
        let bpp = self.bytes_per_pixel as usize;
        let multiple = match self.layout {
            Layout::Linear => bpp,
            Layout::Tile4 => TILE_4.width(),
            Layout::Tile64 => tile64(bpp)
                .ok_or(BlitError::PixelSize(self.bytes_per_pixel))?
                .width(),
        } as u32;
        if multiple == 0 || self.pitch == 0 || !self.pitch.is_multiple_of(multiple) {
            return Err(BlitError::Pitch {
                pitch: self.pitch,
                multiple_of: multiple,
            });
        }
        if (aligned || self.layout != Layout::Linear) && !self.gfx.0.is_multiple_of(64) {
            return Err(BlitError::Base(self.gfx));
        }
        Ok(match self.layout {
            Layout::Linear => self.pitch,
            _ => self.pitch / 4,
        })
    }
}

/// A 16-bit signed coordinate field.
fn coord(v: u32) -> Result<i32, BlitError> {
    if v > 0x7fff {
        return Err(BlitError::Coordinate(v));
    }
    Ok(v as i32)
}

/// The rectangle's corners: x1, y1, x2, y2.
fn corners(r: Rect) -> Result<[i32; 4], BlitError> {
    Ok([
        coord(r.x)?,
        coord(r.y)?,
        coord(r.x.saturating_add(r.width))?,
        coord(r.y.saturating_add(r.height))?,
    ])
}

/// XY_FAST_COPY_BLT of `rect` (destination pixels) from (`sx`, `sy`) of
/// `src`: both rows start on 16-byte boundaries, both bases 64-byte aligned.
pub fn fast_copy(
    src: &Surface,
    (sx, sy): (u32, u32),
    dst: &Surface,
    rect: Rect,
) -> Result<XyFastCopyBlt, BlitError> {
    if src.bytes_per_pixel != dst.bytes_per_pixel {
        return Err(BlitError::PixelSizesDiffer);
    }
    let bpp = dst.bytes_per_pixel;
    let color_depth = match bpp {
        1 => XyFastCopyBlt::COLOR_DEPTH_COLOR_8BIT,
        2 => XyFastCopyBlt::COLOR_DEPTH_COLOR_565,
        4 => XyFastCopyBlt::COLOR_DEPTH_COLOR_32BIT,
        8 => XyFastCopyBlt::COLOR_DEPTH_COLOR_64BIT,
        16 => XyFastCopyBlt::COLOR_DEPTH_COLOR_128BIT,
        _ => return Err(BlitError::PixelSize(bpp)),
    };
    if !(rect.x * bpp).is_multiple_of(16) || !(sx * bpp).is_multiple_of(16) {
        return Err(BlitError::NotOwordAligned);
    }
    let method = |l: Layout| match l {
        Layout::Linear => XyFastCopyBlt::SOURCE_TILING_METHOD_LINEAR,
        Layout::Tile4 => XyFastCopyBlt::SOURCE_TILING_METHOD_YMAJOR,
        Layout::Tile64 => XyFastCopyBlt::SOURCE_TILING_METHOD_TILE64,
    };
    let field = |s: &Surface| {
        let p = s.pitch_field(true)?;
        if p > 0xffff {
            return Err(BlitError::PitchTooLarge(s.pitch));
        }
        Ok(p)
    };
    let [x1, y1, x2, y2] = corners(rect)?;
    Ok(XyFastCopyBlt {
        source_tiling_method: method(src.layout),
        destination_tiling_method: method(dst.layout),
        tile_y_type_for_source: src.layout == Layout::Tile4,
        tile_y_type_for_destination: dst.layout == Layout::Tile4,
        color_depth,
        // The manual prints these bits reserved; igt fills them with its
        // own memory-type code (lib/intel_blt.c), whose encoding is not
        // published. Left 0, as the manual asks.
        source_memory_type: false,
        destination_memory_type: false,
        destination_pitch: field(dst)?,
        destination_x1: x1,
        destination_y1: y1,
        destination_x2: x2,
        destination_y2: y2,
        destination_base_address: dst.gfx.0,
        source_x1: coord(sx)?,
        source_y1: coord(sy)?,
        source_pitch: field(src)?,
        source_base_address: src.gfx.0,
    })
}

/// Block-copy / fast-colour colour depth (8, 16, 32, 64, 96, 128 bpp = 0-5).
fn block_depth(bpp: u32, layouts_linear: bool) -> Result<u32, BlitError> {
    Ok(match bpp {
        1 => 0,
        2 => 1,
        4 => 2,
        8 => 3,
        12 if layouts_linear => 4,
        16 => 5,
        _ => return Err(BlitError::PixelSize(bpp)),
    })
}

/// Block-copy / fast-colour tiling code and pitch field (minus one, U18).
fn block_surface(s: &Surface) -> Result<(u32, u32), BlitError> {
    let tiling = match s.layout {
        Layout::Linear => XyBlockCopyBlt::DESTINATION_TILING_LINEAR,
        Layout::Tile4 => XyBlockCopyBlt::DESTINATION_TILING_TILE4,
        Layout::Tile64 => XyBlockCopyBlt::DESTINATION_TILING_TILE64,
    };
    let p = s.pitch_field(false)?;
    if p > 1 << 18 {
        return Err(BlitError::PitchTooLarge(s.pitch));
    }
    Ok((tiling, p - 1))
}

/// Mip Tail Start LOD 15: no level of the surface is in a mip tail.
const NO_MIP_TAIL: u32 = 15;

/// XY_BLOCK_COPY_BLT of `rect` (destination pixels) from (`sx`, `sy`) of
/// `src`, uncompressed 2D surfaces at LOD 0.
pub fn block_copy(
    src: &Surface,
    (sx, sy): (u32, u32),
    dst: &Surface,
    rect: Rect,
) -> Result<XyBlockCopyBlt, BlitError> {
    if src.bytes_per_pixel != dst.bytes_per_pixel {
        return Err(BlitError::PixelSizesDiffer);
    }
    let linear = src.layout == Layout::Linear && dst.layout == Layout::Linear;
    let color_depth = block_depth(dst.bytes_per_pixel, linear)?;
    let (dst_tiling, dst_pitch) = block_surface(dst)?;
    let (src_tiling, src_pitch) = block_surface(src)?;
    let [x1, y1, x2, y2] = corners(rect)?;
    Ok(XyBlockCopyBlt {
        color_depth,
        destination_tiling: dst_tiling,
        destination_pitch: dst_pitch,
        destination_x1: x1,
        destination_y1: y1,
        destination_x2: x2,
        destination_y2: y2,
        destination_base_address: dst.gfx.0,
        source_x1: coord(sx)?,
        source_y1: coord(sy)?,
        source_tiling: src_tiling,
        source_pitch: src_pitch,
        source_base_address: src.gfx.0,
        destination_surface_type: XyBlockCopyBlt::DESTINATION_SURFACE_TYPE_SURFTYPE_2D,
        source_surface_type: XyBlockCopyBlt::SOURCE_SURFACE_TYPE_SURFTYPE_2D,
        destination_mip_tail_start_lod: NO_MIP_TAIL,
        source_mip_tail_start_lod: NO_MIP_TAIL,
        ..Default::default()
    })
}

/// XY_FAST_COLOR_BLT filling `rect` of `dst` with the pixel whose bytes are
/// `color`'s first `bytes_per_pixel` (little endian from `color[0]`).
pub fn fill(dst: &Surface, rect: Rect, color: [u32; 4]) -> Result<XyFastColorBlt, BlitError> {
    let color_depth = block_depth(dst.bytes_per_pixel, dst.layout == Layout::Linear)?;
    let (tiling, pitch) = block_surface(dst)?;
    let [x1, y1, x2, y2] = corners(rect)?;
    Ok(XyFastColorBlt {
        color_depth,
        destination_tiling: tiling,
        destination_pitch: pitch,
        destination_x1: x1,
        destination_y1: y1,
        destination_x2: x2,
        destination_y2: y2,
        destination_base_address: dst.gfx.0,
        fill_color_0: color[0],
        fill_color_1: color[1],
        fill_color_2: color[2],
        fill_color_3: color[3],
        destination_surface_type: XyFastColorBlt::DESTINATION_SURFACE_TYPE_SURFTYPE_2D,
        destination_mip_tail_start_lod: NO_MIP_TAIL,
        ..Default::default()
    })
}
