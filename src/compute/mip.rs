//! Where the levels of a mipmapped 2D texture lie in its memory: the
//! manuals' "monolithic" layout, every level inside one rectangle from the
//! base address with one pitch (003 lines 5969-5985).
//!
//! * Level L is `max(1, W >> L)` by `max(1, H >> L)` texels (003 lines
//!   5987-5992), at most 14 levels down to 1x1 (000 line 2723).
//! * Each level is padded to the alignment unit i x j = 4 x 2 texels (003
//!   lines 6055-6090: i = 4 for uncompressed formats, j = 2 for sampling
//!   engine surfaces with VALIGN_2, the SURFACE_STATE default this driver
//!   leaves; 965/G45 have the same 4 x 2 unit and no VALIGN field [ext:
//!   Mesa i965 intel_mipmap_tree.c, alignment units before Gen7's
//!   HALIGN/VALIGN choices]; Ivy Bridge's defaults HALIGN_4/VALIGN_2 are
//!   the same [ext: Mesa gen7.xml RENDER_SURFACE_STATE]).
//! * MIPLAYOUT_BELOW (the SURFACE_STATE default; Ivy Bridge has only this
//!   one): step down from level 0 to 1, right from 1 to 2, down for every
//!   other (003 lines 6018-6034).

use super::error::ComputeError;

/// Most levels a surface can have (000 line 2723: 8192x8192 down to 1x1).
pub const MAX_LEVELS: u32 = 14;

/// The alignment unit in texels (i, j).
const ALIGN: (u32, u32) = (4, 2);

/// Levels of a mip chain and the rectangle that holds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MipChain {
    pub width: u32,
    pub height: u32,
    pub levels: u32,
}

impl MipChain {
    /// A chain of `levels` levels from a `width` x `height` base; refused
    /// past 1x1 or past [`MAX_LEVELS`].
    pub(crate) fn new(width: u32, height: u32, levels: u32) -> Result<Self, ComputeError> {
        // Levels until both sides reach 1: floor(log2(max side)) + 1.
        let full = u32::BITS - width.max(height).max(1).leading_zeros();
        if levels == 0 {
            return Err(ComputeError::Invalid("a texture needs at least one level"));
        }
        super::error::check_max("mip levels", levels as u64, full.min(MAX_LEVELS) as u64)?;
        Ok(MipChain {
            width,
            height,
            levels,
        })
    }

    /// Size of level `l` in texels.
    pub(crate) fn size(&self, l: u32) -> (u32, u32) {
        ((self.width >> l).max(1), (self.height >> l).max(1))
    }

    /// Size of level `l` padded to the alignment unit.
    fn padded(&self, l: u32) -> (u32, u32) {
        let (w, h) = self.size(l);
        (w.next_multiple_of(ALIGN.0), h.next_multiple_of(ALIGN.1))
    }

    /// Upper-left texel of level `l`, by MIPLAYOUT_BELOW stepping.
    pub(crate) fn origin(&self, l: u32) -> (u32, u32) {
        let (mut x, mut y) = (0, 0);
        for step in 0..l {
            let (pw, ph) = self.padded(step);
            if step == 1 {
                x += pw;
            } else {
                y += ph;
            }
        }
        (x, y)
    }

    /// Texels across and rows down the rectangle holding every level.
    pub(crate) fn extent(&self) -> (u32, u32) {
        (0..self.levels).fold((0, 0), |(w, h), l| {
            let (x, y) = self.origin(l);
            let (pw, ph) = if self.levels == 1 {
                // One level: exactly the surface, no padding rows.
                self.size(0)
            } else {
                self.padded(l)
            };
            (w.max(x + pw), h.max(y + ph))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_layout_steps_down_right_then_down() {
        // 16x8, 5 levels: 16x8, 8x4, 4x2, 2x1 (padded 4x2), 1x1 (4x2).
        let c = MipChain::new(16, 8, 5).unwrap();
        assert_eq!(c.origin(0), (0, 0));
        assert_eq!(c.origin(1), (0, 8));
        assert_eq!(c.origin(2), (8, 8));
        assert_eq!(c.origin(3), (8, 10));
        assert_eq!(c.origin(4), (8, 12));
        assert_eq!(c.size(4), (1, 1));
        assert_eq!(c.extent(), (16, 14));
    }

    #[test]
    fn small_levels_can_widen_the_rectangle() {
        // 4x4: level 1 is 2x2 padded to 4x2, level 2 sits right of it.
        let c = MipChain::new(4, 4, 3).unwrap();
        assert_eq!(c.origin(2), (4, 4));
        assert_eq!(c.extent(), (8, 6));
    }

    #[test]
    fn level_counts_stop_at_one_texel() {
        assert!(MipChain::new(8, 2, 4).is_ok());
        assert!(MipChain::new(8, 2, 5).is_err());
        assert!(MipChain::new(8, 8, 0).is_err());
        assert!(MipChain::new(1, 1, 1).is_ok());
        assert!(MipChain::new(8192, 8192, 14).is_ok());
        assert_eq!(MipChain::new(1, 1, 1).unwrap().extent(), (1, 1));
    }
}
