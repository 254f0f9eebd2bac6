//! The three DG2 blits decoded into one rectangle operation, or refused by
//! name. Layouts: hal/tables/gen12.5/blitter.toml (manual 004 lines
//! 36930-37779); meanings as Linux igt lib/intel_blt.c programs them on DG2
//! (fill_data, emit_blt_fast_copy: pitches in DWords for tiled surfaces, in
//! bytes for linear ones, minus one in XY_BLOCK_COPY_BLT; fast-copy tiling
//! 0 linear, 1 X, 2 YMAJOR with the DW1 Tile4 bits, 3 Tile64) and i915
//! gt/intel_migrate.c emit_clear (XY_FAST_COLOR_BLT: pitch minus one, the
//! fill colour from DW7).

use baregpu_hal::tiling::{TILE_4, TILE_X, TileLayout, tile64};

use super::super::memory::VA_MASK;
use super::surface::Surface;
use crate::command::{Cmd, F, field};

/// The blits the model executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    FastCopy,
    BlockCopy,
    FastColor,
    /// The legacy XY_COLOR_BLT and XY_SRC_COPY_BLT (in the legacy module).
    Color,
    SrcCopy,
}

/// One rectangle: `width` x `height` pixels of `cpp` bytes at (`x`, `y`) of
/// the destination, from (`sx`, `sy`) of the source or of the fill colour.
#[derive(Clone, Copy, Debug)]
pub struct Blit {
    pub dst: Surface,
    pub src: Option<(Surface, u64, u64)>,
    pub x: u64,
    pub y: u64,
    pub width: u64,
    pub height: u64,
    pub cpp: usize,
    /// The fill colour, little-endian, first `cpp` bytes used.
    pub fill: [u8; 16],
    /// The legacy blits' raster operation and byte mask (`None`: a plain
    /// copy or fill).
    pub raster: Option<Raster>,
}

/// A legacy blit's per-byte operation: the ROP3 code, the solid pattern
/// (little-endian bytes of one pixel) and which bytes of a pixel are written.
#[derive(Clone, Copy, Debug)]
pub struct Raster {
    pub rop: u8,
    pub pattern: [u8; 4],
    pub writes: [bool; 4],
}

/// A refusal names what the model does not do.
pub type Refused = &'static str;

/// The per-surface fields of XY_BLOCK_COPY_BLT and XY_FAST_COLOR_BLT.
struct Side {
    tiling: F,
    pitch: F,
    base: F,
    compression: F,
    aux: F,
    clear: F,
    surface_type: F,
    lod: F,
    array_index: F,
    depth_stencil: F,
    mip_tail_start: F,
    x_offset: F,
    y_offset: F,
}

const DST: Side = Side {
    tiling: F::DestinationTiling,
    pitch: F::DestinationPitch,
    base: F::DestinationBaseAddress,
    compression: F::DestinationCompressionEnable,
    aux: F::DestinationAuxiliarySurfaceMode,
    clear: F::DestinationClearValueEnable,
    surface_type: F::DestinationSurfaceType,
    lod: F::DestinationLod,
    array_index: F::DestinationArrayIndex,
    depth_stencil: F::DestinationDepthStencilResource,
    mip_tail_start: F::DestinationMipTailStartLod,
    x_offset: F::DestinationXOffset,
    y_offset: F::DestinationYOffset,
};

const SRC: Side = Side {
    tiling: F::SourceTiling,
    pitch: F::SourcePitch,
    base: F::SourceBaseAddress,
    compression: F::SourceCompressionEnable,
    aux: F::SourceAuxiliarySurfaceMode,
    clear: F::SourceClearValueEnable,
    surface_type: F::SourceSurfaceType,
    lod: F::SourceLod,
    array_index: F::SourceArrayIndex,
    depth_stencil: F::SourceDepthStencilResource,
    mip_tail_start: F::SourceMipTailStartLod,
    x_offset: F::SourceXOffset,
    y_offset: F::SourceYOffset,
};

/// The fields each blit reads without a fallback (the others default to 0).
pub fn required(kind: Kind) -> &'static [F] {
    match kind {
        Kind::FastCopy => &[
            F::ColorDepth,
            F::SourceTilingMethod,
            F::DestinationTilingMethod,
            F::TileYTypeForSource,
            F::TileYTypeForDestination,
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
        Kind::BlockCopy => &[
            F::ColorDepth,
            F::SpecialModeOfOperation,
            F::NumberOfMultisamples,
            F::DestinationTiling,
            F::SourceTiling,
            F::DestinationPitch,
            F::SourcePitch,
            F::DestinationBaseAddress,
            F::SourceBaseAddress,
            F::DestinationCompressionEnable,
            F::SourceCompressionEnable,
            F::DestinationAuxiliarySurfaceMode,
            F::SourceAuxiliarySurfaceMode,
            F::DestinationSurfaceType,
            F::SourceSurfaceType,
            F::DestinationLod,
            F::SourceLod,
            F::DestinationMipTailStartLod,
            F::SourceMipTailStartLod,
            F::DestinationXOffset,
            F::SourceXOffset,
            F::SourceX1,
            F::SourceY1,
            F::DestinationX1,
            F::DestinationY1,
            F::DestinationX2,
            F::DestinationY2,
        ],
        // The legacy blits' fields are the legacy module's (see `required` in this folder's mod.rs).
        Kind::Color | Kind::SrcCopy => &[],
        Kind::FastColor => &[
            F::ColorDepth,
            F::SpecialModeOfOperation,
            F::NumberOfMultisamples,
            F::DestinationTiling,
            F::DestinationPitch,
            F::DestinationBaseAddress,
            F::DestinationCompressionEnable,
            F::DestinationAuxiliarySurfaceMode,
            F::DestinationSurfaceType,
            F::DestinationLod,
            F::DestinationMipTailStartLod,
            F::DestinationXOffset,
            F::FillColor0,
            F::FillColor3,
            F::DestinationX1,
            F::DestinationY1,
            F::DestinationX2,
            F::DestinationY2,
        ],
    }
}

/// The command's length on DG2: a shorter form (the Gen12 XY_BLOCK_COPY_BLT
/// without its surface DWords) is not DG2's.
fn length(kind: Kind) -> (usize, Refused) {
    match kind {
        Kind::FastCopy => (10, "XY_FAST_COPY_BLT shorter than its 10 DWords"),
        Kind::BlockCopy => (
            22,
            "XY_BLOCK_COPY_BLT shorter than DG2's 22 DWords (the Gen12 form)",
        ),
        Kind::FastColor => (16, "XY_FAST_COLOR_BLT shorter than DG2's 16 DWords"),
        Kind::Color => (7, "XY_COLOR_BLT shorter than DG2's 7 DWords"),
        Kind::SrcCopy => (10, "XY_SRC_COPY_BLT shorter than DG2's 10 DWords"),
    }
}

/// A 16-bit signed coordinate.
pub(super) fn s16(v: u64) -> i64 {
    v as u16 as i16 as i64
}

/// Decodes one of the three DG2 blits (the legacy ones are `legacy`'s, given
/// the same field reader: see `super::decode`): `Ok(None)` for an empty
/// rectangle (nothing happens).
pub fn decode(f: &impl Fn(F) -> u64, kind: Kind) -> Result<Option<Blit>, Refused> {
    match kind {
        Kind::FastCopy => fast_copy(f),
        Kind::BlockCopy => block_copy(f),
        Kind::FastColor => fast_color(f),
        Kind::Color | Kind::SrcCopy => Err("a legacy blit decoded as a DG2 one"),
    }
}

/// The command's fields, once its length is checked.
pub fn fields<'a>(
    c: &'a Cmd,
    kind: Kind,
    dw: &'a [u32],
) -> Result<impl Fn(F) -> u64 + 'a, Refused> {
    let (min, short) = length(kind);
    if dw.len() < min {
        return Err(short);
    }
    Ok(move |x: F| field(c, dw, x).unwrap_or(0))
}

/// XY_FAST_COPY_BLT colour depth: 0 8 bpp, 1 16 bpp (565), 3 32 bpp, 4 64
/// bpp, 5 128 bpp; 2 "is not supported", 6 and 7 do not exist.
fn fast_copy_cpp(depth: u64) -> Result<usize, Refused> {
    match depth {
        0 => Ok(1),
        1 => Ok(2),
        3 => Ok(4),
        4 => Ok(8),
        5 => Ok(16),
        _ => Err("XY_FAST_COPY_BLT reserved colour depth"),
    }
}

/// XY_BLOCK_COPY_BLT / XY_FAST_COLOR_BLT colour depth: 8, 16, 32, 64, 96,
/// 128 bpp for 0-5.
fn block_cpp(depth: u64) -> Result<usize, Refused> {
    match depth {
        0 => Ok(1),
        1 => Ok(2),
        2 => Ok(4),
        3 => Ok(8),
        4 => Ok(12),
        5 => Ok(16),
        _ => Err("XY_BLOCK_COPY_BLT / XY_FAST_COLOR_BLT reserved colour depth"),
    }
}

fn tile64_of(cpp: usize) -> Result<TileLayout, Refused> {
    tile64(cpp).ok_or("Tile64 at 96 bpp (96 bpp surfaces are linear only)")
}

/// Fast-copy tiling method (DW0) with its Tile4 bit (DW1).
fn fast_copy_tiling(method: u64, tile4: u64, cpp: usize) -> Result<Option<TileLayout>, Refused> {
    match method {
        0 => Ok(None),
        1 => Ok(Some(TILE_X)),
        2 if tile4 == 1 => Ok(Some(TILE_4)),
        2 => Err("legacy Tile-Y (YMAJOR with Tile Y Type 0): DG2 tiles Y-major surfaces as Tile4"),
        _ => tile64_of(cpp).map(Some),
    }
}

/// Block-copy and fast-colour tiling: 0 linear, 1 X, 2 Tile4, 3 Tile64.
fn block_tiling(code: u64, cpp: usize) -> Result<Option<TileLayout>, Refused> {
    match code {
        0 => Ok(None),
        1 => Ok(Some(TILE_X)),
        2 => Ok(Some(TILE_4)),
        _ => tile64_of(cpp).map(Some),
    }
}

/// A surface from its base, pitch in bytes and layout, with the rules the
/// pages give: a tiled pitch is a non-zero multiple of the tile width, a
/// linear one whole pixels; the base is 64-byte aligned when `aligned`.
fn surface(
    base: u64,
    pitch: u64,
    layout: Option<TileLayout>,
    cpp: usize,
    aligned: bool,
) -> Result<Surface, Refused> {
    match layout {
        Some(l) if pitch == 0 || !pitch.is_multiple_of(l.width() as u64) => {
            return Err("a tiled pitch that is not a multiple of the tile width");
        }
        None if !pitch.is_multiple_of(cpp as u64) => {
            return Err("a linear pitch that is not whole pixels");
        }
        _ => {}
    }
    if aligned && !base.is_multiple_of(64) {
        return Err("a surface base address that is not 64-byte aligned");
    }
    Ok(Surface {
        base: base & VA_MASK,
        pitch,
        layout,
    })
}

/// The destination rectangle and source corner in pixels: `None` when
/// empty; negative coordinates are refused (no clipping on these blits).
pub(super) fn rect(f: &impl Fn(F) -> u64, source: bool) -> Result<Option<[u64; 6]>, Refused> {
    let (x1, y1, x2, y2) = (
        s16(f(F::DestinationX1)),
        s16(f(F::DestinationY1)),
        s16(f(F::DestinationX2)),
        s16(f(F::DestinationY2)),
    );
    let (sx, sy) = if source {
        (s16(f(F::SourceX1)), s16(f(F::SourceY1)))
    } else {
        (0, 0)
    };
    if x1 < 0 || y1 < 0 || sx < 0 || sy < 0 {
        return Err("negative blit coordinates");
    }
    if x2 <= x1 || y2 <= y1 {
        return Ok(None);
    }
    Ok(Some([
        x1 as u64,
        y1 as u64,
        (x2 - x1) as u64,
        (y2 - y1) as u64,
        sx as u64,
        sy as u64,
    ]))
}

fn fast_copy(f: &impl Fn(F) -> u64) -> Result<Option<Blit>, Refused> {
    let cpp = fast_copy_cpp(f(F::ColorDepth))?;
    let dl = fast_copy_tiling(
        f(F::DestinationTilingMethod),
        f(F::TileYTypeForDestination),
        cpp,
    )?;
    let sl = fast_copy_tiling(f(F::SourceTilingMethod), f(F::TileYTypeForSource), cpp)?;
    // Pitch in DWords for tiled surfaces, bytes for linear ones.
    let pitch = |raw: u64, l: Option<TileLayout>| if l.is_some() { raw * 4 } else { raw };
    let dst = surface(
        f(F::DestinationBaseAddress),
        pitch(f(F::DestinationPitch), dl),
        dl,
        cpp,
        true,
    )?;
    let src = surface(
        f(F::SourceBaseAddress),
        pitch(f(F::SourcePitch), sl),
        sl,
        cpp,
        true,
    )?;
    let Some([x, y, width, height, sx, sy]) = rect(f, true)? else {
        return Ok(None);
    };
    // "The starting pixel ... should be on an OWord boundary" (both operands).
    if !(x * cpp as u64).is_multiple_of(16) || !(sx * cpp as u64).is_multiple_of(16) {
        return Err("XY_FAST_COPY_BLT start pixel not on an OWord boundary");
    }
    Ok(Some(Blit {
        dst,
        src: Some((src, sx, sy)),
        x,
        y,
        width,
        height,
        cpp,
        fill: [0; 16],
        raster: None,
    }))
}

/// The block-copy / fast-colour special mode and sample count: only the
/// plain single-sample operation is modelled.
fn plain(f: &impl Fn(F) -> u64, special: Refused) -> Result<(), Refused> {
    if f(F::SpecialModeOfOperation) != 0 {
        return Err(special);
    }
    if f(F::NumberOfMultisamples) != 0 {
        return Err("multisampled surfaces (Number of Multisamples)");
    }
    Ok(())
}

/// One surface of XY_BLOCK_COPY_BLT or XY_FAST_COLOR_BLT: its layout and
/// pitch (minus one), origin offsets, and the state the model refuses
/// (compression, auxiliary and clear-value surfaces, 3D and cube surfaces,
/// mip levels and array slices other than the first, depth/stencil
/// resources, a Tile64 mip tail holding LOD 0). Returns the surface and its
/// origin offset in pixels.
fn side(f: &impl Fn(F) -> u64, s: &Side, cpp: usize) -> Result<(Surface, u64, u64), Refused> {
    let layout = block_tiling(f(s.tiling), cpp)?;
    if cpp == 12 && layout.is_some() {
        return Err("96 bpp with a tiled surface");
    }
    if f(s.compression) != 0 {
        return Err("compression (Compression Enable)");
    }
    if f(s.aux) != 0 {
        return Err("an auxiliary surface (Auxiliary Surface Mode)");
    }
    if f(s.clear) != 0 {
        return Err("a clear value (Clear Value Enable)");
    }
    if f(s.surface_type) > 1 {
        return Err("3D, cube or reserved surface types (Surface Type)");
    }
    if f(s.lod) != 0 {
        return Err("mip levels other than LOD 0 (LOD)");
    }
    if f(s.array_index) != 0 {
        return Err("array slices other than the first (Array Index)");
    }
    if f(s.depth_stencil) != 0 {
        return Err("depth/stencil resources (Depth/Stencil Resource)");
    }
    // "which LOD is the first one in the MIP tail if Tiled Mode is Tile64".
    if layout.is_some_and(|l| l.size() == 64 << 10) && f(s.mip_tail_start) == 0 {
        return Err("a Tile64 mip tail holding LOD 0 (Mip Tail Start LOD 0)");
    }
    let (xo, yo) = (f(s.x_offset), f(s.y_offset));
    if layout.is_none() && (xo != 0 || yo != 0) {
        return Err("X/Y offsets on a linear surface (they must be 0)");
    }
    // Pitch U18-1: DWords for tiled surfaces, bytes for linear ones.
    let raw = f(s.pitch) + 1;
    let pitch = if layout.is_some() { raw * 4 } else { raw };
    let surface = surface(f(s.base), pitch, layout, cpp, layout.is_some())?;
    Ok((surface, xo, yo))
}

fn block_copy(f: &impl Fn(F) -> u64) -> Result<Option<Blit>, Refused> {
    plain(f, "XY_BLOCK_COPY_BLT resolves (Special Mode of Operation)")?;
    let cpp = block_cpp(f(F::ColorDepth))?;
    let (dst, dxo, dyo) = side(f, &DST, cpp)?;
    let (src, sxo, syo) = side(f, &SRC, cpp)?;
    let Some([x, y, width, height, sx, sy]) = rect(f, true)? else {
        return Ok(None);
    };
    Ok(Some(Blit {
        dst,
        src: Some((src, sx + sxo, sy + syo)),
        x: x + dxo,
        y: y + dyo,
        width,
        height,
        cpp,
        fill: [0; 16],
        raster: None,
    }))
}

fn fast_color(f: &impl Fn(F) -> u64) -> Result<Option<Blit>, Refused> {
    plain(
        f,
        "XY_FAST_COLOR_BLT fast clears (Special Mode of Operation)",
    )?;
    let cpp = block_cpp(f(F::ColorDepth))?;
    let (dst, xo, yo) = side(f, &DST, cpp)?;
    let Some([x, y, width, height, _, _]) = rect(f, false)? else {
        return Ok(None);
    };
    let mut fill = [0u8; 16];
    for (k, c) in [F::FillColor0, F::FillColor1, F::FillColor2, F::FillColor3]
        .iter()
        .enumerate()
    {
        fill[4 * k..4 * k + 4].copy_from_slice(&(f(*c) as u32).to_le_bytes());
    }
    Ok(Some(Blit {
        dst,
        src: None,
        x: x + xo,
        y: y + yo,
        width,
        height,
        cpp,
        fill,
        raster: None,
    }))
}
