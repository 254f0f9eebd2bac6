//! Tile4, the 4 KiB tiling of Gen12.5 (DG2) surfaces, for the CPU: where a
//! byte of a Tile4 surface lives, and copies between linear and Tile4 memory.
//!
//! A tile is 128 bytes by 32 rows; tiles follow each other left to right,
//! `pitch / 128` to a row of tiles. Inside a tile, with `u` the byte column
//! (0-127) and `v` the row (0-31), the offset's bits 11..0 are
//! `v4 v3 u6 v2 u5 u4 v1 v0 u3 u2 u1 u0` (Mesa src/intel/isl/tests/
//! isl_tilememcpy_tiled_unittest.cpp, linear_to_tile4_swizzle; isl.c
//! isl_tiling_get_info gives ISL_TILING_4 its 128 B x 32 rows): 16-byte runs,
//! four rows of them make a 64-byte block, blocks go in Y-major pairs. The
//! layout itself is `baregpu_hal::tiling::TILE_4`, shared with the software
//! GPU's blitter; Tile64 is in `super::tile64`.

use core::fmt;

use super::tiled_copy::{self, CopyError};
use baregpu_hal::tiling::TILE_4;

/// Tile width in bytes and height in rows.
pub const TILE4_WIDTH: usize = TILE_4.width();
pub const TILE4_HEIGHT: usize = TILE_4.height();
#[cfg(test)]
const TILE_BYTES: usize = TILE4_WIDTH * TILE4_HEIGHT;

/// Why a Tile4 copy was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tile4Error {
    /// The surface pitch is not a non-zero multiple of 128 bytes.
    InvalidPitch(usize),
    /// The rectangle is wider than a pitch.
    WidthExceedsPitch { width: usize, pitch: usize },
    /// A buffer is shorter than the rectangle needs.
    BufferTooSmall { needed: usize, len: usize },
}

impl fmt::Display for Tile4Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Tile4Error::InvalidPitch(p) => {
                write!(
                    f,
                    "pitch {p} is not a non-zero multiple of 128 bytes (Tile4)"
                )
            }
            Tile4Error::WidthExceedsPitch { width, pitch } => {
                write!(f, "width {width} exceeds the pitch {pitch}")
            }
            Tile4Error::BufferTooSmall { needed, len } => {
                write!(f, "the buffer has {len} bytes, {needed} needed")
            }
        }
    }
}

/// Byte offset of byte column `x` of row `y` in a Tile4 surface of `pitch`
/// bytes (a multiple of 128).
pub const fn tile4_offset(pitch: usize, x: usize, y: usize) -> usize {
    TILE_4.offset(pitch, x, y)
}

/// Bytes a Tile4 surface of `pitch` and `height` rows takes (whole tile rows).
pub const fn tile4_size(pitch: usize, height: usize) -> usize {
    tiled_copy::size(TILE_4, pitch, height)
}

impl From<CopyError> for Tile4Error {
    fn from(e: CopyError) -> Self {
        match e {
            CopyError::InvalidPitch(p) => Tile4Error::InvalidPitch(p),
            CopyError::WidthExceedsPitch { width, pitch } => {
                Tile4Error::WidthExceedsPitch { width, pitch }
            }
            CopyError::BufferTooSmall { needed, len } => Tile4Error::BufferTooSmall { needed, len },
        }
    }
}

/// Copies a `width` x `height` byte rectangle from linear `src` (rows
/// `src_pitch` apart) into the top-left of the Tile4 surface `dst`.
pub fn linear_to_tile4(
    dst: &mut [u8],
    dst_pitch: usize,
    src: &[u8],
    src_pitch: usize,
    width: usize,
    height: usize,
) -> Result<(), Tile4Error> {
    tiled_copy::check(
        TILE_4,
        dst_pitch,
        dst.len(),
        src_pitch,
        src.len(),
        width,
        height,
    )?;
    tiled_copy::runs(TILE_4, dst_pitch, width, height, |at, x, y, len| {
        let from = y * src_pitch + x;
        dst[at..at + len].copy_from_slice(&src[from..from + len]);
    });
    Ok(())
}

/// Copies a `width` x `height` byte rectangle from the top-left of the Tile4
/// surface `src` into linear `dst` (rows `dst_pitch` apart).
pub fn tile4_to_linear(
    dst: &mut [u8],
    dst_pitch: usize,
    src: &[u8],
    src_pitch: usize,
    width: usize,
    height: usize,
) -> Result<(), Tile4Error> {
    tiled_copy::check(
        TILE_4,
        src_pitch,
        src.len(),
        dst_pitch,
        dst.len(),
        width,
        height,
    )?;
    tiled_copy::runs(TILE_4, src_pitch, width, height, |at, x, y, len| {
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

    /// Points of the bit table: each coordinate bit moves one offset bit.
    #[test]
    fn each_coordinate_bit_lands_where_the_table_says() {
        let p = 256;
        for (x, y, want) in [
            (1, 0, 1),
            (8, 0, 8),
            (0, 1, 1 << 4),
            (0, 2, 1 << 5),
            (16, 0, 1 << 6),
            (32, 0, 1 << 7),
            (0, 4, 1 << 8),
            (64, 0, 1 << 9),
            (0, 8, 1 << 10),
            (0, 16, 1 << 11),
            // The next tile to the right, then the next row of tiles.
            (128, 0, 4096),
            (0, 32, 2 * 4096),
        ] {
            assert_eq!(tile4_offset(p, x, y), want, "({x}, {y})");
        }
    }

    #[test]
    fn a_tile_is_a_permutation_and_copies_round_trip() {
        let mut seen = vec![false; TILE_BYTES];
        for y in 0..TILE4_HEIGHT {
            for x in 0..TILE4_WIDTH {
                let o = tile4_offset(TILE4_WIDTH, x, y);
                assert!(!seen[o], "({x}, {y}) twice");
                seen[o] = true;
            }
        }
        let (w, h, lp, tp) = (300, 70, 320, 384);
        let src: Vec<u8> = (0..lp * h).map(|i| (i * 7 + i / 251) as u8).collect();
        let mut tiled = vec![0u8; tile4_size(tp, h)];
        linear_to_tile4(&mut tiled, tp, &src, lp, w, h).unwrap();
        assert_eq!(tiled[tile4_offset(tp, 299, 69)], src[69 * lp + 299]);
        let mut back = vec![0u8; lp * h];
        tile4_to_linear(&mut back, lp, &tiled, tp, w, h).unwrap();
        for y in 0..h {
            assert_eq!(back[y * lp..y * lp + w], src[y * lp..y * lp + w], "row {y}");
        }
        assert_eq!(
            linear_to_tile4(&mut tiled, 200, &src, lp, w, h),
            Err(Tile4Error::InvalidPitch(200))
        );
        assert!(matches!(
            linear_to_tile4(&mut tiled[..100], tp, &src, lp, w, h),
            Err(Tile4Error::BufferTooSmall { .. })
        ));
    }
}
