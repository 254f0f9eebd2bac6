//! Tile64, the 64 KiB tiling of Gen12.5 (DG2) surfaces, for the CPU: where a
//! byte of a Tile64 surface lives, and copies between linear and Tile64
//! memory. 2D single-sample surfaces only: Tile64's MSAA and 3D layouts are
//! different and not here.
//!
//! A tile's shape depends on the pixel size (Mesa src/intel/isl/isl.c
//! isl_tiling_get_info, ISL_TILING_64): 256 B x 256 rows at 8 bpp, 512 B x
//! 128 rows at 16 and 32 bpp, 1 KiB x 64 rows at 64 and 128 bpp; tiles follow
//! each other left to right, `pitch / width` to a row of tiles. Inside a tile
//! the low 4 KiB is laid out as a Tile4 tile and the upper offset bits take
//! further column and row bits (Intel gmmlib CpuSwizzleBlt.c INTEL_TILE_64_*).
//! The layouts are `baregpu_hal::tiling`'s, shared with the software GPU's
//! blitter.

use core::fmt;

use super::tiled_copy::{self, CopyError};
use baregpu_hal::tiling::{TileLayout, tile64};

/// Why a Tile64 copy or address was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tile64Error {
    /// Pixels of this many bytes have no Tile64 layout (1, 2, 4, 8, 16 do).
    UnsupportedPixelSize(usize),
    /// The surface pitch is not a non-zero multiple of the tile width.
    InvalidPitch { pitch: usize, tile_width: usize },
    /// The rectangle is wider than a pitch.
    WidthExceedsPitch { width: usize, pitch: usize },
    /// A buffer is shorter than the rectangle needs.
    BufferTooSmall { needed: usize, len: usize },
}

impl fmt::Display for Tile64Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Tile64Error::UnsupportedPixelSize(b) => {
                write!(
                    f,
                    "{b}-byte pixels have no Tile64 layout (1, 2, 4, 8 or 16)"
                )
            }
            Tile64Error::InvalidPitch { pitch, tile_width } => write!(
                f,
                "pitch {pitch} is not a non-zero multiple of {tile_width} bytes (Tile64)"
            ),
            Tile64Error::WidthExceedsPitch { width, pitch } => {
                write!(f, "width {width} exceeds the pitch {pitch}")
            }
            Tile64Error::BufferTooSmall { needed, len } => {
                write!(f, "the buffer has {len} bytes, {needed} needed")
            }
        }
    }
}

fn layout(bytes_per_pixel: usize) -> Result<TileLayout, Tile64Error> {
    tile64(bytes_per_pixel).ok_or(Tile64Error::UnsupportedPixelSize(bytes_per_pixel))
}

fn error(l: TileLayout, e: CopyError) -> Tile64Error {
    match e {
        CopyError::InvalidPitch(pitch) => Tile64Error::InvalidPitch {
            pitch,
            tile_width: l.width(),
        },
        CopyError::WidthExceedsPitch { width, pitch } => {
            Tile64Error::WidthExceedsPitch { width, pitch }
        }
        CopyError::BufferTooSmall { needed, len } => Tile64Error::BufferTooSmall { needed, len },
    }
}

/// Tile width in bytes and height in rows for pixels of `bytes_per_pixel`.
pub fn tile64_extent(bytes_per_pixel: usize) -> Result<(usize, usize), Tile64Error> {
    layout(bytes_per_pixel).map(|l| (l.width(), l.height()))
}

/// Byte offset of byte column `x` of row `y` in a Tile64 surface of `pitch`
/// bytes (a multiple of the tile width) with pixels of `bytes_per_pixel`.
pub fn tile64_offset(
    bytes_per_pixel: usize,
    pitch: usize,
    x: usize,
    y: usize,
) -> Result<usize, Tile64Error> {
    layout(bytes_per_pixel).map(|l| l.offset(pitch, x, y))
}

/// Bytes a Tile64 surface of `pitch` and `height` rows takes (whole tile rows).
pub fn tile64_size(
    bytes_per_pixel: usize,
    pitch: usize,
    height: usize,
) -> Result<usize, Tile64Error> {
    layout(bytes_per_pixel).map(|l| tiled_copy::size(l, pitch, height))
}

/// Copies a `width`-byte x `height` rectangle from linear `src` (rows
/// `src_pitch` apart) into the top-left of the Tile64 surface `dst`.
pub fn linear_to_tile64(
    dst: &mut [u8],
    dst_pitch: usize,
    src: &[u8],
    src_pitch: usize,
    bytes_per_pixel: usize,
    width: usize,
    height: usize,
) -> Result<(), Tile64Error> {
    let l = layout(bytes_per_pixel)?;
    tiled_copy::check(l, dst_pitch, dst.len(), src_pitch, src.len(), width, height)
        .map_err(|e| error(l, e))?;
    tiled_copy::runs(l, dst_pitch, width, height, |at, x, y, len| {
        let from = y * src_pitch + x;
        dst[at..at + len].copy_from_slice(&src[from..from + len]);
    });
    Ok(())
}

/// Copies a `width`-byte x `height` rectangle from the top-left of the
/// Tile64 surface `src` into linear `dst` (rows `dst_pitch` apart).
pub fn tile64_to_linear(
    dst: &mut [u8],
    dst_pitch: usize,
    src: &[u8],
    src_pitch: usize,
    bytes_per_pixel: usize,
    width: usize,
    height: usize,
) -> Result<(), Tile64Error> {
    let l = layout(bytes_per_pixel)?;
    tiled_copy::check(l, src_pitch, src.len(), dst_pitch, dst.len(), width, height)
        .map_err(|e| error(l, e))?;
    tiled_copy::runs(l, src_pitch, width, height, |at, x, y, len| {
        let to = y * dst_pitch + x;
        dst[to..to + len].copy_from_slice(&src[at..at + len]);
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    /// Each column and row bit lands on the offset bit gmmlib's string gives
    /// it (written out per pixel size, bit 15 on the left:
    /// 8 bpp `Y Y Y X Y Y X Y X X Y Y X X X X`, 16/32 bpp
    /// `Y Y X X Y Y X Y X X Y Y X X X X`, 64/128 bpp
    /// `Y X X X Y Y X Y X X Y Y X X X X`).
    #[test]
    fn each_coordinate_bit_lands_where_the_strings_say() {
        let cases: [(usize, &[usize], &[usize]); 3] = [
            (
                1,
                &[0, 1, 2, 3, 6, 7, 9, 12],
                &[4, 5, 8, 10, 11, 13, 14, 15],
            ),
            (
                4,
                &[0, 1, 2, 3, 6, 7, 9, 12, 13],
                &[4, 5, 8, 10, 11, 14, 15],
            ),
            (
                16,
                &[0, 1, 2, 3, 6, 7, 9, 12, 13, 14],
                &[4, 5, 8, 10, 11, 15],
            ),
        ];
        for (bpp, xs, ys) in cases {
            let (w, h) = tile64_extent(bpp).unwrap();
            assert_eq!((w, h), (1 << xs.len(), 1 << ys.len()));
            let pitch = 2 * w;
            for (k, bit) in xs.iter().enumerate() {
                assert_eq!(
                    tile64_offset(bpp, pitch, 1 << k, 0),
                    Ok(1 << bit),
                    "{bpp}: x{k}"
                );
            }
            for (k, bit) in ys.iter().enumerate() {
                assert_eq!(
                    tile64_offset(bpp, pitch, 0, 1 << k),
                    Ok(1 << bit),
                    "{bpp}: y{k}"
                );
            }
            // The next tile to the right, then the next row of tiles.
            assert_eq!(tile64_offset(bpp, pitch, w, 0), Ok(65536));
            assert_eq!(tile64_offset(bpp, pitch, 0, h), Ok(2 * 65536));
        }
        assert_eq!(tile64_extent(2), tile64_extent(4));
        assert_eq!(tile64_extent(8), tile64_extent(16));
        assert_eq!(
            tile64_extent(12),
            Err(Tile64Error::UnsupportedPixelSize(12))
        );
    }

    #[test]
    fn copies_round_trip_and_bad_arguments_are_refused() {
        for bpp in [1, 2, 4, 8, 16] {
            let (tw, th) = tile64_extent(bpp).unwrap();
            let (w, h, lp, tp) = (tw + 77, th + 3, tw + 100, 2 * tw);
            let src: Vec<u8> = (0..lp * h).map(|i| (i * 13 + i / 509) as u8).collect();
            let mut tiled = vec![0u8; tile64_size(bpp, tp, h).unwrap()];
            linear_to_tile64(&mut tiled, tp, &src, lp, bpp, w, h).unwrap();
            let at = tile64_offset(bpp, tp, w - 1, h - 1).unwrap();
            assert_eq!(tiled[at], src[(h - 1) * lp + w - 1]);
            let mut back = vec![0u8; lp * h];
            tile64_to_linear(&mut back, lp, &tiled, tp, bpp, w, h).unwrap();
            for y in 0..h {
                assert_eq!(
                    back[y * lp..y * lp + w],
                    src[y * lp..y * lp + w],
                    "{bpp}: row {y}"
                );
            }
            assert_eq!(
                linear_to_tile64(&mut tiled, tw + 128, &src, lp, bpp, w, h),
                Err(Tile64Error::InvalidPitch {
                    pitch: tw + 128,
                    tile_width: tw
                })
            );
            assert!(matches!(
                tile64_to_linear(&mut back, lp, &tiled[..100], tp, bpp, w, h),
                Err(Tile64Error::BufferTooSmall { .. })
            ));
        }
    }
}
