//! Tiled surface layout (X and Y tiling, bit-6 swizzling) and CPU copies
//! between linear memory and tiled surfaces.
//!
//! Source: Sandy Bridge PRM, Vol. 1 Part 2, §4.5 "Address Tiling Function"
//! (`/work/shared/prm/003_*.txt`; "line N" below means a line of that file).
//! Gen4/G45 use the same X and Y tile shapes. W tiling (separate stencil only,
//! line 7374) is not covered here.
//!
//! All offsets are relative to the surface base, which the PRM requires to be
//! 4 KiB aligned for tiled surfaces (line 7730): so tile boundaries coincide
//! with pages, and the swizzle bits 6..=11 of an offset equal those of the
//! graphics address.
//!
//! Nothing here panics: arithmetic saturates or is checked, and the copy
//! helpers validate their arguments before touching memory.

use core::fmt;

/// Bytes in one tile, whatever its shape (line 7351).
pub const TILE_SIZE: usize = 4096;
/// X tile: 512 bytes wide (line 7352-7353).
pub const X_TILE_WIDTH: usize = 512;
/// X tile: 8 rows high (line 7351-7352).
pub const X_TILE_HEIGHT: usize = 8;
/// Y tile: 128 bytes wide (line 7353).
pub const Y_TILE_WIDTH: usize = 128;
/// Y tile: 32 rows high (line 7353).
pub const Y_TILE_HEIGHT: usize = 32;
/// A Y tile is an 8-wide by 32-high array of 16-byte OWords stored column by
/// column (lines 7365-7366), so 16 bytes is the longest contiguous run.
pub const Y_COLUMN_WIDTH: usize = 16;
/// Linear pitch granule chosen by this module, see [`pitch_is_valid`].
pub const LINEAR_PITCH_ALIGN: usize = 64;
/// Largest pitch accepted for every tiling, see [`pitch_is_valid`].
pub const MAX_PITCH: usize = 128 * 1024;

/// Bit-6 swizzling flips bit 6 only, i.e. swaps the 64-byte halves of a
/// 128-byte block; runs inside one 64-byte half stay contiguous.
const SWIZZLE_RUN: usize = 64;

/// How a surface's bytes are laid out in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tiling {
    /// Row after row, `pitch` bytes apart (line 7474: `Base + Y*LinearPitch + X`).
    Linear,
    /// X-major tiles: 512 B x 8 rows, rows of a tile stored one after another.
    X,
    /// Y-major tiles: 128 B x 32 rows, 16-byte columns stored one after another.
    Y,
}

impl Tiling {
    /// Every tiling, for iteration in tests and tools.
    pub const ALL: [Tiling; 3] = [Tiling::Linear, Tiling::X, Tiling::Y];

    /// Tile width in bytes, `None` for linear surfaces.
    pub const fn tile_width(self) -> Option<usize> {
        match self {
            Tiling::Linear => None,
            Tiling::X => Some(X_TILE_WIDTH),
            Tiling::Y => Some(Y_TILE_WIDTH),
        }
    }

    /// Tile height in rows, `None` for linear surfaces.
    pub const fn tile_height(self) -> Option<usize> {
        match self {
            Tiling::Linear => None,
            Tiling::X => Some(X_TILE_HEIGHT),
            Tiling::Y => Some(Y_TILE_HEIGHT),
        }
    }

    /// What a valid pitch must be a multiple of: the tile width for tiled
    /// surfaces (lines 7356, 7716), [`LINEAR_PITCH_ALIGN`] for linear ones.
    pub const fn pitch_alignment(self) -> usize {
        match self {
            Tiling::Linear => LINEAR_PITCH_ALIGN,
            Tiling::X => X_TILE_WIDTH,
            Tiling::Y => Y_TILE_WIDTH,
        }
    }

    /// What the memory footprint's row count is rounded up to: whole tile
    /// rows for tiled surfaces, single rows for linear ones.
    pub const fn row_alignment(self) -> usize {
        match self {
            Tiling::Linear => 1,
            Tiling::X => X_TILE_HEIGHT,
            Tiling::Y => Y_TILE_HEIGHT,
        }
    }
}

/// Bit-6 address swizzling of tiled surfaces: bit 6 of the address is XORed
/// with the listed higher address bits.
///
/// The PRM only says that "address bit\[6\] needs to be swizzled for tiled
/// surfaces" (ARB_MODE bits 5:4, lines 9355-9375; DISP_ARB_CTL bits 14:13,
/// lines 56371-56385) and that the driver must decide from the DRAM
/// configuration. Which bits feed the XOR comes from Linux i915
/// (`I915_BIT_6_SWIZZLE_*`, `i915_gem_detect_bit_6_swizzle`):
/// * Gen5, and Gen4/Gen6 with symmetric dual-channel memory: X-tiled surfaces
///   use [`Swizzle::Bit9Bit10`], Y-tiled ones [`Swizzle::Bit9`].
/// * Gen3/mobile 9xx dual-channel interleaved with the CPU channel XOR on
///   bit 11: X uses [`Swizzle::Bit9Bit10Bit11`], Y uses [`Swizzle::Bit9Bit11`].
/// * Single-channel or asymmetric memory: [`Swizzle::None`].
///
/// Linux's bit-17 modes (`_9_17`, `_9_10_17`) depend on the physical page
/// address, not on the surface offset, so they are not representable here.
/// The swizzle to pass is the one for the surface's tiling (X and Y differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Swizzle {
    /// No swizzling (`I915_BIT_6_SWIZZLE_NONE`).
    None,
    /// bit 6 ^= bit 9 (`I915_BIT_6_SWIZZLE_9`).
    Bit9,
    /// bit 6 ^= bit 9 ^ bit 10 (`I915_BIT_6_SWIZZLE_9_10`).
    Bit9Bit10,
    /// bit 6 ^= bit 9 ^ bit 11 (`I915_BIT_6_SWIZZLE_9_11`).
    Bit9Bit11,
    /// bit 6 ^= bit 9 ^ bit 10 ^ bit 11 (`I915_BIT_6_SWIZZLE_9_10_11`).
    Bit9Bit10Bit11,
}

impl Swizzle {
    /// Every swizzle mode, for iteration in tests and tools.
    pub const ALL: [Swizzle; 5] = [
        Swizzle::None,
        Swizzle::Bit9,
        Swizzle::Bit9Bit10,
        Swizzle::Bit9Bit11,
        Swizzle::Bit9Bit10Bit11,
    ];

    /// Mask of the address bits XORed into bit 6.
    const fn source_bits(self) -> usize {
        match self {
            Swizzle::None => 0,
            Swizzle::Bit9 => 1 << 9,
            Swizzle::Bit9Bit10 => (1 << 9) | (1 << 10),
            Swizzle::Bit9Bit11 => (1 << 9) | (1 << 11),
            Swizzle::Bit9Bit10Bit11 => (1 << 9) | (1 << 10) | (1 << 11),
        }
    }

    /// Swizzles an offset of a tiled surface. Bit 6 is never a source bit, so
    /// applying it twice gives the offset back (the same call un-swizzles).
    pub const fn apply(self, offset: usize) -> usize {
        let parity = (offset & self.source_bits()).count_ones() as usize & 1;
        offset ^ (parity << 6)
    }
}

/// Which buffer of a copy an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Buffer {
    /// The buffer laid out by the `tiling` argument (the GPU surface).
    Surface,
    /// The plain row-major CPU buffer.
    Linear,
}

/// Why a copy between linear and tiled memory was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TilingError {
    /// The surface pitch breaks [`pitch_is_valid`] for its tiling.
    InvalidPitch {
        /// Tiling of the surface.
        tiling: Tiling,
        /// The pitch that was given, in bytes.
        pitch: usize,
    },
    /// The rectangle is wider than a buffer's pitch (rows would overlap).
    WidthExceedsPitch {
        /// Buffer whose pitch is too small.
        buffer: Buffer,
        /// Rectangle width in bytes.
        width: usize,
        /// That buffer's pitch in bytes.
        pitch: usize,
    },
    /// A buffer is shorter than the rectangle needs.
    BufferTooSmall {
        /// Buffer that is too short.
        buffer: Buffer,
        /// Bytes needed (saturated at `usize::MAX`).
        needed: usize,
        /// Bytes available.
        len: usize,
    },
}

impl fmt::Display for TilingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TilingError::InvalidPitch { tiling, pitch } => {
                write!(f, "pitch {pitch} is not valid for {tiling:?} tiling")
            }
            TilingError::WidthExceedsPitch {
                buffer,
                width,
                pitch,
            } => {
                write!(f, "width {width} exceeds the {buffer:?} pitch {pitch}")
            }
            TilingError::BufferTooSmall {
                buffer,
                needed,
                len,
            } => {
                write!(f, "{buffer:?} buffer has {len} bytes, {needed} needed")
            }
        }
    }
}

/// Whether `pitch` (bytes) is usable for a surface with this tiling.
///
/// * X and Y: a non-zero multiple of the tile width (lines 7356, 7587, 7716)
///   and at most 128 KiB. The PRM allows 256 KiB for surfaces only the GPU
///   touches (line 7772) but 128 KiB for anything the CPU reaches through a
///   fence (lines 7538-7539, 7764; FENCE pitch field 3FFh = 128KB at line
///   7642); Linux also caps Gen4-Gen6 at 128 KiB (`I965_FENCE_MAX_PITCH_VAL`).
///   We take the lower limit so every surface can also be fenced.
/// * Linear: a non-zero multiple of 64 bytes, at most 128 KiB. SURFACE_STATE
///   itself allows any byte pitch for most linear surfaces (line 76104), but
///   display strides must be 64-byte aligned (line 62721), linear depth
///   buffers need a multiple of 64 up to 128 KiB (lines 42846, 42863) and
///   overlapping blits want 64-byte pitches (line 20572); 64 satisfies all.
pub const fn pitch_is_valid(tiling: Tiling, pitch: usize) -> bool {
    pitch != 0 && pitch <= MAX_PITCH && pitch.is_multiple_of(tiling.pitch_alignment())
}

/// Smallest valid pitch that holds `width_bytes` bytes per row (at least one
/// alignment unit, so a zero width still gets a usable pitch); `None` when
/// that would exceed [`MAX_PITCH`].
pub const fn align_pitch(tiling: Tiling, width_bytes: usize) -> Option<usize> {
    if width_bytes > MAX_PITCH {
        return None;
    }
    let align = tiling.pitch_alignment();
    let units = if width_bytes == 0 {
        1
    } else {
        width_bytes.div_ceil(align)
    };
    // MAX_PITCH is a multiple of every alignment, so this stays <= MAX_PITCH.
    Some(units * align)
}

/// Bytes of memory a surface of `height` rows occupies: `pitch * height` for
/// linear surfaces, whole tile rows (`pitch * tile height` each, the PRM's
/// RowSize, line 7410) for tiled ones. Assumes a valid pitch; saturates at
/// `usize::MAX` rather than overflow.
pub const fn surface_size(tiling: Tiling, pitch: usize, height: usize) -> usize {
    let rows_per_unit = tiling.row_alignment();
    let rows = height.div_ceil(rows_per_unit).saturating_mul(rows_per_unit);
    pitch.saturating_mul(rows)
}

/// Offset of the first byte of the tile holding (x, y): the
/// `RowSize * TileNumber_InY + TileSize * TileNumber_InX` part of the PRM's
/// tiling function (lines 7406-7463), with RowSize = pitch in tiles * 4 KiB.
const fn tile_start(tile_w: usize, tile_h: usize, pitch: usize, x: usize, y: usize) -> usize {
    let row_size = (pitch / tile_w).saturating_mul(TILE_SIZE);
    row_size
        .saturating_mul(y / tile_h)
        .saturating_add(TILE_SIZE.saturating_mul(x / tile_w))
}

/// Byte offset, from the surface base, of the byte at column `x_bytes`, row
/// `y` of a surface with this tiling, swizzle and pitch.
///
/// Follows the PRM tiling function (lines 7382-7476):
/// * X: `tile_start + 512 * (y % 8) + x % 512` (TiledOffsetX, lines 7462-7463);
/// * Y: `tile_start + 32 * 16 * ((x % 128) / 16) + 16 * (y % 32) + x % 16`
///   (TiledOffsetY, lines 7444-7446);
/// * linear: `y * pitch + x` (line 7474).
///
/// The swizzle is then applied to tiled offsets only; it is ignored for
/// linear surfaces. Results are meaningful for a valid pitch and
/// `x_bytes < pitch`; nothing panics otherwise (arithmetic saturates).
pub const fn tiled_offset(
    tiling: Tiling,
    swizzle: Swizzle,
    pitch: usize,
    x_bytes: usize,
    y: usize,
) -> usize {
    match tiling {
        Tiling::Linear => y.saturating_mul(pitch).saturating_add(x_bytes),
        Tiling::X => {
            let base = tile_start(X_TILE_WIDTH, X_TILE_HEIGHT, pitch, x_bytes, y);
            let within = X_TILE_WIDTH * (y % X_TILE_HEIGHT) + x_bytes % X_TILE_WIDTH;
            swizzle.apply(base.saturating_add(within))
        }
        Tiling::Y => {
            let base = tile_start(Y_TILE_WIDTH, Y_TILE_HEIGHT, pitch, x_bytes, y);
            let xo = x_bytes % Y_TILE_WIDTH;
            let within = Y_TILE_HEIGHT * Y_COLUMN_WIDTH * (xo / Y_COLUMN_WIDTH)
                + Y_COLUMN_WIDTH * (y % Y_TILE_HEIGHT)
                + xo % Y_COLUMN_WIDTH;
            swizzle.apply(base.saturating_add(within))
        }
    }
}

/// Length of the run starting at column `x` that is contiguous in the
/// surface, capped at `remaining`.
fn run_len(tiling: Tiling, swizzle: Swizzle, x: usize, remaining: usize) -> usize {
    let span = match tiling {
        Tiling::Linear => return remaining,
        // A tile row is 512 contiguous bytes, unless a swizzle moves 64-byte halves.
        Tiling::X if matches!(swizzle, Swizzle::None) => X_TILE_WIDTH,
        Tiling::X => SWIZZLE_RUN,
        // One OWord column; 16 < 64, so a swizzle never splits it.
        Tiling::Y => Y_COLUMN_WIDTH,
    };
    remaining.min(span - x % span)
}

/// Bytes a linear buffer needs for `height` (>= 1) rows of `width` bytes.
fn linear_extent(pitch: usize, width: usize, height: usize) -> usize {
    height
        .saturating_sub(1)
        .saturating_mul(pitch)
        .saturating_add(width)
}

/// Checks every argument of a copy up front, so the copy loop cannot fail.
fn validate(
    tiling: Tiling,
    surface_pitch: usize,
    surface_len: usize,
    linear_pitch: usize,
    linear_len: usize,
    width: usize,
    height: usize,
) -> Result<(), TilingError> {
    if !pitch_is_valid(tiling, surface_pitch) {
        return Err(TilingError::InvalidPitch {
            tiling,
            pitch: surface_pitch,
        });
    }
    for (buffer, pitch) in [
        (Buffer::Surface, surface_pitch),
        (Buffer::Linear, linear_pitch),
    ] {
        if width > pitch {
            return Err(TilingError::WidthExceedsPitch {
                buffer,
                width,
                pitch,
            });
        }
    }
    if width == 0 || height == 0 {
        return Ok(());
    }
    // Tiled surfaces must hold whole tile rows; a linear one only needs to
    // reach the end of the rectangle's last row.
    let surface_needed = match tiling {
        Tiling::Linear => linear_extent(surface_pitch, width, height),
        Tiling::X | Tiling::Y => surface_size(tiling, surface_pitch, height),
    };
    let linear_needed = linear_extent(linear_pitch, width, height);
    for (buffer, needed, len) in [
        (Buffer::Surface, surface_needed, surface_len),
        (Buffer::Linear, linear_needed, linear_len),
    ] {
        if len < needed {
            return Err(TilingError::BufferTooSmall {
                buffer,
                needed,
                len,
            });
        }
    }
    Ok(())
}

/// Calls `f(surface_offset, linear_row, x, len)` for each contiguous run of
/// the `width` x `height` rectangle, row by row.
fn for_each_run(
    tiling: Tiling,
    swizzle: Swizzle,
    pitch: usize,
    width: usize,
    height: usize,
    mut f: impl FnMut(usize, usize, usize, usize) -> Result<(), TilingError>,
) -> Result<(), TilingError> {
    for y in 0..height {
        let mut x = 0;
        while x < width {
            // run_len is >= 1 and x + len <= width, so this terminates.
            let len = run_len(tiling, swizzle, x, width - x);
            f(tiled_offset(tiling, swizzle, pitch, x, y), y, x, len)?;
            x += len;
        }
    }
    Ok(())
}

/// Copies `len` bytes with both ranges checked, so a wrong offset is an
/// error rather than a panic (after [`validate`] it never happens).
fn copy_run(
    dst: &mut [u8],
    dst_at: usize,
    dst_buffer: Buffer,
    src: &[u8],
    src_at: usize,
    src_buffer: Buffer,
    len: usize,
) -> Result<(), TilingError> {
    let too_small = |buffer, at: usize, have| TilingError::BufferTooSmall {
        buffer,
        needed: at.saturating_add(len),
        len: have,
    };
    let dst_len = dst.len();
    let out = dst_at
        .checked_add(len)
        .and_then(|end| dst.get_mut(dst_at..end))
        .ok_or_else(|| too_small(dst_buffer, dst_at, dst_len))?;
    let inp = src_at
        .checked_add(len)
        .and_then(|end| src.get(src_at..end))
        .ok_or_else(|| too_small(src_buffer, src_at, src.len()))?;
    // Both slices are exactly `len` long, so this cannot panic.
    out.copy_from_slice(inp);
    Ok(())
}

/// Offset of (x, y) in the plain CPU buffer.
fn linear_offset(pitch: usize, x: usize, y: usize) -> usize {
    y.saturating_mul(pitch).saturating_add(x)
}

/// Copies a `width_bytes` x `height` rectangle from the linear buffer `src`
/// (rows `src_pitch` bytes apart, starting at offset 0) into the top-left
/// corner of the surface `dst`, laid out with `tiling`, `swizzle` and
/// `dst_pitch`. Bytes of `dst` outside the rectangle are left alone.
///
/// `dst` must hold whole tile rows ([`surface_size`]) when tiled; `src` needs
/// `(height - 1) * src_pitch + width_bytes` bytes.
#[allow(clippy::too_many_arguments)] // mirrors a 2D memcpy: buffer, layout, rectangle
pub fn linear_to_tiled(
    dst: &mut [u8],
    tiling: Tiling,
    swizzle: Swizzle,
    dst_pitch: usize,
    src: &[u8],
    src_pitch: usize,
    width_bytes: usize,
    height: usize,
) -> Result<(), TilingError> {
    validate(
        tiling,
        dst_pitch,
        dst.len(),
        src_pitch,
        src.len(),
        width_bytes,
        height,
    )?;
    for_each_run(
        tiling,
        swizzle,
        dst_pitch,
        width_bytes,
        height,
        |at, y, x, len| {
            let from = linear_offset(src_pitch, x, y);
            copy_run(dst, at, Buffer::Surface, src, from, Buffer::Linear, len)
        },
    )
}

/// Copies a `width_bytes` x `height` rectangle from the top-left corner of
/// the surface `src` (laid out with `tiling`, `swizzle` and `src_pitch`) into
/// the linear buffer `dst` (rows `dst_pitch` bytes apart, starting at offset
/// 0). Bytes of `dst` between rows are left alone.
///
/// The inverse of [`linear_to_tiled`], with the same size rules.
#[allow(clippy::too_many_arguments)] // mirrors a 2D memcpy: buffer, layout, rectangle
pub fn tiled_to_linear(
    dst: &mut [u8],
    dst_pitch: usize,
    src: &[u8],
    tiling: Tiling,
    swizzle: Swizzle,
    src_pitch: usize,
    width_bytes: usize,
    height: usize,
) -> Result<(), TilingError> {
    validate(
        tiling,
        src_pitch,
        src.len(),
        dst_pitch,
        dst.len(),
        width_bytes,
        height,
    )?;
    for_each_run(
        tiling,
        swizzle,
        src_pitch,
        width_bytes,
        height,
        |at, y, x, len| {
            let to = linear_offset(dst_pitch, x, y);
            copy_run(dst, to, Buffer::Linear, src, at, Buffer::Surface, len)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    /// Deterministic pseudo-random bytes (xorshift), so failures reproduce.
    fn pattern(len: usize, seed: u32) -> Vec<u8> {
        let mut s = seed | 1;
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                (s >> 24) as u8
            })
            .collect()
    }

    /// A valid pitch for each tiling that spans more than one tile.
    fn pitches(tiling: Tiling) -> [usize; 3] {
        match tiling {
            Tiling::Linear => [64, 192, 1024],
            Tiling::X => [512, 1024, 1536],
            Tiling::Y => [128, 256, 384],
        }
    }

    // X tile, TiledOffsetX (lines 7462-7463) with TileW = 512, TileH = 8:
    // within a tile, offset = 512 * y + x; tiles are 4 KiB, row-major (line 7357).
    #[test]
    fn x_tile_points_follow_the_prm() {
        let off = |pitch, x, y| tiled_offset(Tiling::X, Swizzle::None, pitch, x, y);
        assert_eq!(off(1024, 0, 0), 0);
        assert_eq!(off(1024, 511, 0), 511);
        assert_eq!(off(1024, 0, 1), 512);
        assert_eq!(off(1024, 512, 0), 4096);
        assert_eq!(off(1024, 511, 7), 4095);
        // Row 8 starts the second tile row: RowSize = 2 tiles * 4 KiB (line 7410).
        assert_eq!(off(1024, 0, 8), 8192);
        assert_eq!(off(1024, 513, 9), 8192 + 4096 + 512 + 1);
        // One tile wide: an X-tiled region is then plain linear (line 7372).
        for (x, y) in [(0, 0), (5, 3), (511, 7), (100, 8), (300, 21)] {
            assert_eq!(off(512, x, y), 512 * y + x);
        }
    }

    // Y tile, TiledOffsetY (lines 7444-7446) with TileH = 32:
    // within a tile, offset = 512 * (x / 16) + 16 * y + x % 16.
    #[test]
    fn y_tile_points_follow_the_prm() {
        let off = |pitch, x, y| tiled_offset(Tiling::Y, Swizzle::None, pitch, x, y);
        assert_eq!(off(256, 0, 0), 0);
        assert_eq!(off(256, 15, 0), 15);
        assert_eq!(off(256, 16, 0), 512);
        assert_eq!(off(256, 0, 1), 16);
        assert_eq!(off(256, 15, 31), 31 * 16 + 15);
        assert_eq!(off(256, 127, 31), 4095);
        assert_eq!(off(256, 128, 0), 4096);
        // Two tiles per row: row 32 starts at RowSize = 2 * 4096 (line 7410).
        assert_eq!(off(256, 0, 32), 8192);
        assert_eq!(off(256, 130, 33), 8192 + 4096 + 16 + 2);
    }

    // Restates the Y layout from the prose instead of the formula: a tile is
    // an 8-wide x 32-high array of OWords stored column-major (lines 7365-7366).
    #[test]
    fn y_tile_matches_oword_column_description() {
        let pitch = 384;
        for y in 0..64 {
            for x in 0..pitch {
                let tile = (y / 32) * (pitch / 128) + x / 128;
                let oword = ((x % 128) / 16) * 32 + y % 32;
                let expected = tile * 4096 + oword * 16 + x % 16;
                assert_eq!(
                    tiled_offset(Tiling::Y, Swizzle::None, pitch, x, y),
                    expected
                );
            }
        }
    }

    // Linear: Base + Y * LinearPitch + X (line 7474); a swizzle never applies.
    #[test]
    fn linear_offsets_ignore_swizzle() {
        for swizzle in Swizzle::ALL {
            assert_eq!(tiled_offset(Tiling::Linear, swizzle, 1024, 0, 1), 1024);
            assert_eq!(tiled_offset(Tiling::Linear, swizzle, 192, 7, 3), 583);
        }
    }

    #[test]
    fn swizzle_examples() {
        let x = |swizzle, x, y| tiled_offset(Tiling::X, swizzle, 512, x, y);
        // Row 1 of an X tile is offset 512 (bit 9): bit 6 flips for every mode.
        assert_eq!(x(Swizzle::Bit9Bit10, 0, 1), 576);
        assert_eq!(x(Swizzle::Bit9Bit10, 64, 1), 512);
        // Row 2 = 1024 (bit 10); row 3 = 1536 (bits 9 and 10 cancel out).
        assert_eq!(x(Swizzle::Bit9Bit10, 0, 2), 1088);
        assert_eq!(x(Swizzle::Bit9, 0, 2), 1024);
        assert_eq!(x(Swizzle::Bit9Bit10, 0, 3), 1536);
        assert_eq!(x(Swizzle::Bit9, 0, 3), 1600);
        // Row 4 = 2048 (bit 11) only matters to the bit-11 modes.
        assert_eq!(x(Swizzle::Bit9Bit10, 0, 4), 2048);
        assert_eq!(x(Swizzle::Bit9Bit11, 0, 4), 2112);
        assert_eq!(x(Swizzle::Bit9Bit10Bit11, 0, 4), 2112);
        // Row 7 = 3584 (bits 9, 10, 11): odd parity flips, 9^11 cancels.
        assert_eq!(x(Swizzle::Bit9Bit10Bit11, 0, 7), 3648);
        assert_eq!(x(Swizzle::Bit9Bit11, 0, 7), 3584);
        assert_eq!(x(Swizzle::None, 0, 7), 3584);
        // Y: the second OWord column starts at 512 (bit 9).
        assert_eq!(tiled_offset(Tiling::Y, Swizzle::Bit9, 128, 16, 0), 576);
        assert_eq!(tiled_offset(Tiling::Y, Swizzle::Bit9, 128, 16, 4), 512);
        assert_eq!(tiled_offset(Tiling::Y, Swizzle::Bit9, 128, 0, 4), 64);
        // Un-swizzling is the same XOR.
        for s in Swizzle::ALL {
            for off in [0, 64, 512, 576, 1600, 3648, 123_456] {
                assert_eq!(s.apply(s.apply(off)), off);
                assert_eq!(s.apply(off) & !64, off & !64);
            }
        }
    }

    // Every byte of the surface is hit by exactly one (x, y) with x < pitch.
    #[test]
    fn offsets_are_a_permutation() {
        for tiling in Tiling::ALL {
            for swizzle in Swizzle::ALL {
                for pitch in pitches(tiling) {
                    let size = surface_size(tiling, pitch, 37);
                    let rows = size / pitch;
                    let mut seen = vec![false; size];
                    for y in 0..rows {
                        for x in 0..pitch {
                            let off = tiled_offset(tiling, swizzle, pitch, x, y);
                            let slot = seen.get_mut(off).expect("offset inside the surface");
                            assert!(!*slot, "{tiling:?} {swizzle:?} pitch {pitch}: {off} twice");
                            *slot = true;
                        }
                    }
                    assert!(seen.iter().all(|&s| s));
                }
            }
        }
    }

    // Odd rectangles: the run-based copy matches a byte-by-byte placement
    // through tiled_offset, leaves the rest alone, and round-trips.
    #[test]
    fn copies_round_trip_and_match_offsets() {
        let mut case = 0u32;
        for tiling in Tiling::ALL {
            for swizzle in Swizzle::ALL {
                for pitch in pitches(tiling) {
                    for (width, height) in
                        [(1, 1), (pitch - 1, 9), (pitch.min(77), 33), (pitch, 40)]
                    {
                        case += 1;
                        let src_pitch = width + 3;
                        let src = pattern(linear_extent(src_pitch, width, height), case);
                        let size = surface_size(tiling, pitch, height);
                        let mut tiled = vec![0xAA; size];
                        linear_to_tiled(
                            &mut tiled, tiling, swizzle, pitch, &src, src_pitch, width, height,
                        )
                        .unwrap();

                        let mut expected = vec![0xAA; size];
                        for y in 0..height {
                            for x in 0..width {
                                let off = tiled_offset(tiling, swizzle, pitch, x, y);
                                expected[off] = src[y * src_pitch + x];
                            }
                        }
                        assert!(
                            tiled == expected,
                            "{tiling:?} {swizzle:?} {pitch} {width}x{height}"
                        );

                        let dst_pitch = width + 5;
                        let mut back = vec![0x55; linear_extent(dst_pitch, width, height)];
                        tiled_to_linear(
                            &mut back, dst_pitch, &tiled, tiling, swizzle, pitch, width, height,
                        )
                        .unwrap();
                        for y in 0..height {
                            let row = &back[y * dst_pitch..];
                            assert_eq!(&row[..width], &src[y * src_pitch..y * src_pitch + width]);
                            if y + 1 < height {
                                assert!(row[width..dst_pitch].iter().all(|&b| b == 0x55));
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn pitch_rules() {
        assert!(pitch_is_valid(Tiling::X, 512));
        assert!(pitch_is_valid(Tiling::X, 128 * 1024));
        assert!(!pitch_is_valid(Tiling::X, 0));
        assert!(!pitch_is_valid(Tiling::X, 256));
        assert!(!pitch_is_valid(Tiling::X, 128 * 1024 + 512));
        assert!(pitch_is_valid(Tiling::Y, 128));
        assert!(pitch_is_valid(Tiling::Y, 384));
        assert!(!pitch_is_valid(Tiling::Y, 100));
        assert!(!pitch_is_valid(Tiling::Y, usize::MAX));
        assert!(pitch_is_valid(Tiling::Linear, 64));
        assert!(!pitch_is_valid(Tiling::Linear, 100));
        assert_eq!(align_pitch(Tiling::X, 1), Some(512));
        assert_eq!(align_pitch(Tiling::X, 513), Some(1024));
        assert_eq!(align_pitch(Tiling::Y, 129), Some(256));
        assert_eq!(align_pitch(Tiling::Linear, 0), Some(64));
        assert_eq!(align_pitch(Tiling::Linear, 4000), Some(4032));
        assert_eq!(align_pitch(Tiling::Y, MAX_PITCH), Some(MAX_PITCH));
        assert_eq!(align_pitch(Tiling::Y, MAX_PITCH + 1), None);
        assert_eq!(align_pitch(Tiling::X, usize::MAX), None);
        for tiling in Tiling::ALL {
            for w in [1, 63, 64, 500, 4097, 100_000] {
                let p = align_pitch(tiling, w).unwrap();
                assert!(pitch_is_valid(tiling, p) && p >= w);
            }
        }
    }

    #[test]
    fn surface_sizes_are_whole_tile_rows() {
        assert_eq!(surface_size(Tiling::X, 1024, 1), 8192);
        assert_eq!(surface_size(Tiling::X, 1024, 8), 8192);
        assert_eq!(surface_size(Tiling::X, 1024, 9), 16384);
        assert_eq!(surface_size(Tiling::Y, 256, 33), 16384);
        assert_eq!(surface_size(Tiling::Linear, 192, 5), 960);
        assert_eq!(surface_size(Tiling::Y, 256, 0), 0);
        assert_eq!(surface_size(Tiling::X, MAX_PITCH, usize::MAX), usize::MAX);
    }

    #[test]
    fn copy_errors() {
        let mut surf = vec![0u8; 8192];
        let lin = vec![0u8; 8192];
        assert_eq!(
            linear_to_tiled(&mut surf, Tiling::X, Swizzle::None, 256, &lin, 256, 16, 1),
            Err(TilingError::InvalidPitch {
                tiling: Tiling::X,
                pitch: 256
            })
        );
        assert_eq!(
            tiled_to_linear(&mut surf, 100, &lin, Tiling::Y, Swizzle::None, 100, 16, 1),
            Err(TilingError::InvalidPitch {
                tiling: Tiling::Y,
                pitch: 100
            })
        );
        assert_eq!(
            linear_to_tiled(&mut surf, Tiling::Y, Swizzle::Bit9, 128, &lin, 256, 129, 1),
            Err(TilingError::WidthExceedsPitch {
                buffer: Buffer::Surface,
                width: 129,
                pitch: 128
            })
        );
        assert_eq!(
            linear_to_tiled(&mut surf, Tiling::Y, Swizzle::Bit9, 256, &lin, 100, 129, 1),
            Err(TilingError::WidthExceedsPitch {
                buffer: Buffer::Linear,
                width: 129,
                pitch: 100
            })
        );
        // A Y surface 256 wide, 33 rows high needs two tile rows = 16 KiB.
        assert_eq!(
            linear_to_tiled(&mut surf, Tiling::Y, Swizzle::None, 256, &lin, 256, 16, 33),
            Err(TilingError::BufferTooSmall {
                buffer: Buffer::Surface,
                needed: 16384,
                len: 8192
            })
        );
        assert_eq!(
            tiled_to_linear(
                &mut surf[..8000],
                512,
                &lin,
                Tiling::X,
                Swizzle::None,
                512,
                512,
                16
            ),
            Err(TilingError::BufferTooSmall {
                buffer: Buffer::Linear,
                needed: 8192,
                len: 8000
            })
        );
        assert_eq!(
            tiled_to_linear(
                &mut surf[..100],
                64,
                &lin,
                Tiling::X,
                Swizzle::None,
                512,
                64,
                2
            ),
            Err(TilingError::BufferTooSmall {
                buffer: Buffer::Linear,
                needed: 128,
                len: 100
            })
        );
        // Linear surfaces need only reach the end of the last row.
        assert_eq!(
            linear_to_tiled(
                &mut surf[..64 + 10],
                Tiling::Linear,
                Swizzle::Bit9,
                64,
                &lin,
                10,
                10,
                2
            ),
            Ok(())
        );
        // Empty rectangles copy nothing but still need a valid pitch.
        assert_eq!(
            linear_to_tiled(&mut [], Tiling::X, Swizzle::None, 512, &[], 0, 0, 5),
            Ok(())
        );
        assert_eq!(
            linear_to_tiled(&mut [], Tiling::Y, Swizzle::None, 128, &[], 8, 8, 0),
            Ok(())
        );
        assert!(linear_to_tiled(&mut [], Tiling::Y, Swizzle::None, 0, &[], 0, 0, 0).is_err());
    }

    // Extreme inputs must give errors or saturated values, never a panic.
    #[test]
    fn extreme_inputs_do_not_panic() {
        let mut surf = vec![0u8; 4096];
        let lin = vec![0u8; 4096];
        let big = usize::MAX;
        assert!(
            linear_to_tiled(
                &mut surf,
                Tiling::X,
                Swizzle::Bit9Bit10,
                512,
                &lin,
                512,
                512,
                big
            )
            .is_err()
        );
        assert!(
            tiled_to_linear(
                &mut surf,
                big,
                &lin,
                Tiling::Y,
                Swizzle::Bit9,
                128,
                128,
                big
            )
            .is_err()
        );
        assert!(
            linear_to_tiled(
                &mut surf,
                Tiling::Linear,
                Swizzle::None,
                big,
                &lin,
                big,
                big,
                2
            )
            .is_err()
        );
        for tiling in Tiling::ALL {
            for swizzle in Swizzle::ALL {
                for (p, x, y) in [
                    (big, big, big),
                    (0, big, big),
                    (512, big, 0),
                    (MAX_PITCH, 0, big),
                ] {
                    let _ = tiled_offset(tiling, swizzle, p, x, y);
                }
            }
        }
        assert_eq!(surface_size(Tiling::Linear, big, big), big);
    }
}
