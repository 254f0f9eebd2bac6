//! A blit operand: where pixel bytes live, linear or in one of the tile
//! layouts of `baregpu_hal::tiling` (the same layouts as the driver's CPU
//! helpers), and the contiguous runs a scan line splits into.

use baregpu_hal::tiling::TileLayout;

const PAGE: u64 = 4096;

/// One surface: graphics base, pitch in bytes, layout (`None`: linear).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Surface {
    pub base: u64,
    pub pitch: u64,
    pub layout: Option<TileLayout>,
}

impl Surface {
    /// Byte offset of byte column `xb` of row `y` from the base: `y * pitch +
    /// xb` when linear; when tiled, tile number `(y / height) * (pitch /
    /// width) + xb / width` times the tile size, plus the offset inside it.
    pub fn offset(&self, xb: u64, y: u64) -> u64 {
        match self.layout {
            None => y * self.pitch + xb,
            Some(l) => {
                let (w, h) = (l.width() as u64, l.height() as u64);
                let tile = (y / h) * (self.pitch / w) + xb / w;
                let inside = l.offset_in_tile((xb % w) as usize, (y % h) as usize) as u64;
                tile * l.size() as u64 + inside
            }
        }
    }

    /// The contiguous runs of `len` bytes from column `xb` of row `y`:
    /// (graphics address, start in the line, length). A run stays inside
    /// the layout's contiguous span and inside one page, so one translation
    /// serves it.
    pub fn runs(self, xb: u64, y: u64, len: usize) -> impl Iterator<Item = (u64, usize, usize)> {
        let mut done = 0usize;
        core::iter::from_fn(move || {
            if done >= len {
                return None;
            }
            let x = xb + done as u64;
            let addr = self.base.wrapping_add(self.offset(x, y));
            let span = match self.layout {
                None => u64::MAX,
                Some(l) => l.run() as u64 - x % l.run() as u64,
            };
            let page = PAGE - addr % PAGE;
            let n = (span.min(page) as usize).min(len - done);
            let run = (addr, done, n);
            done += n;
            Some(run)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baregpu_hal::tiling::{TILE_4, TILE_64_16_32BPP};

    #[test]
    fn runs_cover_the_line_without_crossing_pages_or_tile_columns() {
        let s = Surface {
            base: 0x1000_0fc0,
            pitch: 8192,
            layout: None,
        };
        let runs: alloc::vec::Vec<_> = s.runs(0, 0, 200).collect();
        assert_eq!(runs[0], (0x1000_0fc0, 0, 64));
        assert_eq!(runs[1], (0x1000_1000, 64, 136));
        let t = Surface {
            base: 0x20_0000,
            pitch: 256,
            layout: Some(TILE_4),
        };
        let runs: alloc::vec::Vec<_> = t.runs(10, 5, 30).collect();
        assert_eq!(runs.len(), 3);
        assert_eq!(
            runs[0],
            (0x20_0000 + TILE_4.offset(256, 10, 5) as u64, 0, 6)
        );
        assert_eq!(runs[2].2, 8);
        let u = Surface {
            layout: Some(TILE_64_16_32BPP),
            pitch: 1024,
            ..t
        };
        assert_eq!(
            u.offset(512 + 3, 128 + 1),
            3 * 65536 + TILE_64_16_32BPP.offset_in_tile(3, 1) as u64
        );
    }
}
