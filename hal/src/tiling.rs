//! Where a byte of a tiled surface lives: the tile layouts the Gen12.5 (DG2)
//! blitter and the CPU helpers share (X tiles, Tile4, Tile64).
//!
//! A tile is a power-of-two block of bytes, `width` bytes by `height` rows;
//! tiles follow each other left to right, `pitch / width` to a row of tiles.
//! Inside a tile, each bit of the byte offset takes the next bit of either
//! the byte column `u` or the row `v`: a layout is the pair of masks that say
//! which offset bits come from which coordinate (the "swizzle descriptor" of
//! Intel gmmlib, Source/GmmLib/Utility/CpuSwizzleBlt/CpuSwizzleBlt.c, whose
//! strings are written below MSB first).
//!
//! Sources: gmmlib CpuSwizzleBlt.c INTEL_TILE_X, INTEL_TILE_4 and
//! INTEL_TILE_64_{8,16,32,64,128} (the 2D single-sample Tile64 layouts); Mesa
//! src/intel/isl/isl.c isl_tiling_get_info gives the same extents (Tile4:
//! 128 B x 32 rows; Tile64 2D, one sample: 2^Cu bytes x 2^Cv rows with
//! (Cv, Cu) = (8, 8) at 8 bpp, (7, 9) at 16 and 32 bpp, (6, 10) at 64 and
//! 128 bpp). Tile64's MSAA and 3D layouts differ and are not here.

/// One tile layout: `x` and `y` mark the offset bits taken, lowest first,
/// from the byte column and from the row inside the tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileLayout {
    pub x: u32,
    pub y: u32,
}

/// X tiles: `o o o o Y Y Y X X X X X X X X X` (512 B x 8 rows, row-major).
pub const TILE_X: TileLayout = TileLayout {
    x: 0x01ff,
    y: 0x0e00,
};
/// Tile4: `o o o o Y Y X Y X X Y Y X X X X` (128 B x 32 rows).
pub const TILE_4: TileLayout = TileLayout {
    x: 0x02cf,
    y: 0x0d30,
};
/// Tile64 at 8 bpp: `Y Y Y X Y Y X Y X X Y Y X X X X` (256 B x 256 rows).
pub const TILE_64_8BPP: TileLayout = TileLayout {
    x: 0x12cf,
    y: 0xed30,
};
/// Tile64 at 16 and 32 bpp: `Y Y X X Y Y X Y X X Y Y X X X X` (512 B x 128 rows).
pub const TILE_64_16_32BPP: TileLayout = TileLayout {
    x: 0x32cf,
    y: 0xcd30,
};
/// Tile64 at 64 and 128 bpp: `Y X X X Y Y X Y X X Y Y X X X X` (1 KiB x 64 rows).
pub const TILE_64_64_128BPP: TileLayout = TileLayout {
    x: 0x72cf,
    y: 0x8d30,
};

/// The 2D single-sample Tile64 layout for pixels of `bytes` bytes (1, 2, 4,
/// 8 or 16); `None` for other sizes (96 bpp surfaces are linear only).
pub const fn tile64(bytes: usize) -> Option<TileLayout> {
    match bytes {
        1 => Some(TILE_64_8BPP),
        2 | 4 => Some(TILE_64_16_32BPP),
        8 | 16 => Some(TILE_64_64_128BPP),
        _ => None,
    }
}

/// Spreads the low bits of `value` over the set bits of `mask`, lowest first.
const fn deposit(mut value: usize, mask: u32) -> usize {
    let mut out = 0;
    let mut bit = 0;
    while bit < 32 {
        if mask >> bit & 1 == 1 {
            out |= (value & 1) << bit;
            value >>= 1;
        }
        bit += 1;
    }
    out
}

impl TileLayout {
    /// Tile width in bytes.
    pub const fn width(self) -> usize {
        1 << self.x.count_ones()
    }

    /// Tile height in rows.
    pub const fn height(self) -> usize {
        1 << self.y.count_ones()
    }

    /// Bytes in one tile.
    pub const fn size(self) -> usize {
        self.width() * self.height()
    }

    /// Bytes of a row that stay contiguous in memory from a multiple of it:
    /// the column bits at the bottom of the offset (16 for Tile4 and Tile64,
    /// the whole 512-byte row for X tiles).
    pub const fn run(self) -> usize {
        1 << self.x.trailing_ones()
    }

    /// Offset of byte column `u` of row `v` inside a tile (both taken modulo
    /// the tile's width and height).
    pub const fn offset_in_tile(self, u: usize, v: usize) -> usize {
        deposit(u, self.x) | deposit(v, self.y)
    }

    /// Offset of byte column `x` of row `y` in a surface of `pitch` bytes
    /// (a multiple of the tile width), from its base.
    pub const fn offset(self, pitch: usize, x: usize, y: usize) -> usize {
        let tile = (y / self.height()) * (pitch / self.width()) + x / self.width();
        tile * self.size() + self.offset_in_tile(x, y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A gmmlib swizzle string (bit 15 first; `o` unused) as masks: written
    /// out by reading the characters, not by the constants above.
    fn parse(s: &str) -> TileLayout {
        let bits: Vec<char> = s
            .split_whitespace()
            .map(|w| w.chars().next().unwrap())
            .collect();
        assert_eq!(bits.len(), 16);
        let mut l = TileLayout { x: 0, y: 0 };
        for (k, c) in bits.iter().rev().enumerate() {
            match c {
                'X' => l.x |= 1 << k,
                'Y' => l.y |= 1 << k,
                _ => {}
            }
        }
        l
    }

    #[test]
    fn layouts_match_the_gmmlib_strings() {
        for (s, l) in [
            ("o o o o Y Y Y X X X X X X X X X", TILE_X),
            ("o o o o Y Y X Y X X Y Y X X X X", TILE_4),
            ("Y Y Y X Y Y X Y X X Y Y X X X X", TILE_64_8BPP),
            ("Y Y X X Y Y X Y X X Y Y X X X X", TILE_64_16_32BPP),
            ("Y X X X Y Y X Y X X Y Y X X X X", TILE_64_64_128BPP),
        ] {
            assert_eq!(parse(s), l, "{s}");
            assert_eq!(l.x & l.y, 0);
        }
    }

    /// Mesa isl_tiling_get_info: Tile4 128 x 32; Tile64 (Cv, Cu) per bpp.
    #[test]
    fn extents_match_isl() {
        assert_eq!(
            (TILE_4.width(), TILE_4.height(), TILE_4.size()),
            (128, 32, 4096)
        );
        assert_eq!((TILE_X.width(), TILE_X.height()), (512, 8));
        for (bytes, cv, cu) in [(1, 8, 8), (2, 7, 9), (4, 7, 9), (8, 6, 10), (16, 6, 10)] {
            let l = tile64(bytes).unwrap();
            assert_eq!((l.height(), l.width()), (1 << cv, 1 << cu), "{bytes} bytes");
            assert_eq!(l.size(), 64 << 10);
            assert_eq!(l.run(), 16);
        }
        assert_eq!(tile64(12), None);
        assert_eq!((TILE_4.run(), TILE_X.run()), (16, 512));
    }

    /// Every byte of a tile has its own offset, and the tile grid follows the pitch.
    #[test]
    fn tiles_are_permutations_laid_out_row_major() {
        for l in [
            TILE_X,
            TILE_4,
            TILE_64_8BPP,
            TILE_64_16_32BPP,
            TILE_64_64_128BPP,
        ] {
            let mut seen = vec![false; l.size()];
            for v in 0..l.height() {
                for u in 0..l.width() {
                    let o = l.offset_in_tile(u, v);
                    assert!(!seen[o], "({u}, {v}) twice");
                    seen[o] = true;
                }
            }
            let pitch = 3 * l.width();
            assert_eq!(l.offset(pitch, l.width(), 0), l.size());
            assert_eq!(l.offset(pitch, 0, l.height()), 3 * l.size());
            assert_eq!(
                l.offset(pitch, 2 * l.width() + 5, 2 * l.height() + 1),
                8 * l.size() + l.offset_in_tile(5, 1)
            );
        }
        // Tile64's low 4 KiB is a Tile4 tile: bits 11..0 are the same.
        assert_eq!(TILE_64_8BPP.x & 0xfff, TILE_4.x);
        assert_eq!(TILE_64_64_128BPP.y & 0xfff, TILE_4.y);
    }
}
