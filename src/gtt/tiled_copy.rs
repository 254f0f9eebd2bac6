//! Copies between linear memory and a surface tiled in one of the hal's
//! layouts (`baregpu_hal::tiling`): the argument checks and the run walk the
//! Tile4 and Tile64 helpers share.

use baregpu_hal::tiling::TileLayout;

/// Why a copy was refused (each helper names it in its own error type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CopyError {
    InvalidPitch(usize),
    WidthExceedsPitch { width: usize, pitch: usize },
    BufferTooSmall { needed: usize, len: usize },
}

/// Bytes a surface of `pitch` and `height` rows takes (whole tile rows).
pub(crate) const fn size(layout: TileLayout, pitch: usize, height: usize) -> usize {
    height.div_ceil(layout.height()) * layout.height() * pitch
}

pub(crate) fn check(
    layout: TileLayout,
    surface_pitch: usize,
    surface_len: usize,
    linear_pitch: usize,
    linear_len: usize,
    width: usize,
    height: usize,
) -> Result<(), CopyError> {
    if surface_pitch == 0 || !surface_pitch.is_multiple_of(layout.width()) {
        return Err(CopyError::InvalidPitch(surface_pitch));
    }
    for pitch in [surface_pitch, linear_pitch] {
        if width > pitch {
            return Err(CopyError::WidthExceedsPitch { width, pitch });
        }
    }
    if width == 0 || height == 0 {
        return Ok(());
    }
    let needed = height
        .div_ceil(layout.height())
        .checked_mul(layout.height())
        .and_then(|h| h.checked_mul(surface_pitch))
        .unwrap_or(usize::MAX);
    if surface_len < needed {
        return Err(CopyError::BufferTooSmall {
            needed,
            len: surface_len,
        });
    }
    let needed = (height - 1)
        .checked_mul(linear_pitch)
        .and_then(|n| n.checked_add(width))
        .unwrap_or(usize::MAX);
    if linear_len < needed {
        return Err(CopyError::BufferTooSmall {
            needed,
            len: linear_len,
        });
    }
    Ok(())
}

/// Calls `f(surface offset, linear x, y, bytes)` for each contiguous run of
/// the `width` x `height` rectangle at the surface's top-left.
pub(crate) fn runs(
    layout: TileLayout,
    pitch: usize,
    width: usize,
    height: usize,
    mut f: impl FnMut(usize, usize, usize, usize),
) {
    let run = layout.run();
    for y in 0..height {
        let mut x = 0;
        while x < width {
            let len = (run - x % run).min(width - x);
            f(layout.offset(pitch, x, y), x, y, len);
            x += len;
        }
    }
}
