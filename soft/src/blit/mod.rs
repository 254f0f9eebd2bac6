//! The blitter's fills and copies: COLOR_BLT, SRC_COPY_BLT, XY_COLOR_BLT,
//! XY_SRC_COPY_BLT, and XY_SETUP_BLT / XY_SETUP_CLIP_BLT / XY_PIXEL_BLT.
//!
//! Sources: SNB PRM (`/work/shared/prm/003_*.txt`, "line N" below), BLT chapter
//! lines 20480-23589; tiling function lines 7382-7480; the notes in
//! `/work/shared/notes/seed-003-snb-core.md` sections 6 and 8.
//!
//! What the model does, and the choices where the manual leaves a gap:
//! * Pixels are 1, 2 or 4 bytes (colour depth 0 / 1-2 / 3, lines 21125-21133; line 20490).
//!   The 32 bpp byte mask (DW0 bit 21 alpha = byte 3, bit 20 RGB = bytes 0-2,
//!   line 23040) selects the bytes written; other depths ignore it.
//! * The raster operation is the general 8-bit ROP3 (BR13 23:16, "one of 256
//!   possible raster operations", line 23236): bit `P*4 + S*2 + D` of
//!   the code is the result. A ROP that reads an operand the command does not
//!   have (a source in a fill, a pattern in a copy: "must involve source and
//!   no pattern data", line 21932) is reported as an instruction error.
//! * Pitch: bytes for linear surfaces, DWords for tiled ones (lines
//!   23244-23252, 23421-23429). A tiled pitch that is not a positive multiple
//!   of the tile width, or a tiled base that is not 4 KiB aligned (line
//!   21152), is reported as an instruction error rather than guessed at.
//! * X or Y tiling: the XY pages say "Tile-X or Tile-Y" (line 21113) but not
//!   how they are told apart; the BCS context image lists a BCS_SWCTRL
//!   register (line 6404). Linux places it at blitter base + 0x200 (0x22200),
//!   masked, bit 0 = source Y-tiled, bit 1 = destination Y-tiled (i915
//!   `gem/selftests/i915_gem_client_blt.c`, used for Gen6+; xe `BCS_SWCTRL`).
//! * Bit-6 swizzling of tiled surfaces follows ARB_MODE (0x4030): Gen6 bits
//!   5:4 = 01 "address bit 6 is swizzled" (lines 9354-9380), Gen7 bit 5
//!   (Linux `ARB_MODE_SWIZZLE_IVB`). Linux pairs that setting with
//!   `I915_BIT_6_SWIZZLE_9_10` for X tiles and `_9` for Y tiles, which the
//!   model applies to the graphics address (bits 6-10 lie inside the 4 KiB
//!   page, so they equal the physical ones; bit-17 modes are not modelled).
//! * Clipping (lines 20700-20713): negative source X1/Y1 move the destination
//!   start, then the destination is intersected with the clip rectangle
//!   (BR24/BR25, shared state set by the XY_SETUP commands) when the command
//!   enables clipping; an empty result is a rejected BLT (nothing happens).
//! * Overlap (lines 20725-20730, 21923-21931): when source and destination
//!   base addresses are equal and source Y1 < destination Y1, scan lines go
//!   bottom up. The model reads a whole source scan line before writing the
//!   destination one, which is what choosing the X direction achieves, so
//!   the X direction needs no separate handling. The legacy SRC_COPY_BLT
//!   leaves the Y direction to the pitch signs; its X-backwards bit is an
//!   instruction error, as the page does not say where a backwards scan line
//!   starts.
//! * XY_PIXEL_BLT writes the setup background colour BR05 as the solid
//!   pattern ("BR05 is also used as the solid pattern for the PIXEL_BLT",
//!   lines 23284-23285) with the setup ROP, depth, pitch and base (BR01, BR09). Its
//!   page compares the pixel with the clip rectangle (lines 20908-20912); the
//!   model does so when the setup enabled clipping (BR01 bit 30), like every
//!   other XY command. Negative setup pitches are not allowed for it (line
//!   20507) and are an instruction error, as is a PIXEL_BLT before any
//!   XY_SETUP_BLT (BR01 has no defined reset value, "Default: 0000 xxxx", line 23134).
//! * The pattern, monochrome-source, text, scan-line, full and chroma-key
//!   blits are in `expand` (pattern and colour expansion per pixel).
//!
//! The blitter is a unit the command streamer calls ([`Blitter::execute`])
//! with the engine's memory and address space (the GGTT, or the PPGTT in a
//! PPGTT batch, as for MI commands) and the registers that say how
//! surfaces are tiled; it answers with a [`BlitError`] that the streamer
//! turns into an engine error (a fault halts the engine).

use alloc::vec;
use alloc::vec::Vec;
use core::ops::Range;

use crate::command::Cmd;
use baregpu_hal::{Generation, MemoryBus};

use crate::command::{F, field};
use crate::mem::{Fault, Memory, Space};
use crate::regfile::RegFile;

mod expand;

use expand::ExpandedKind;

/// The blitter commands the model executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BlitOp {
    Color,
    SrcCopy,
    XySetup,
    XySetupClip,
    XyPixel,
    XyColor,
    XySrcCopy,
    XySetupMonoPattern,
    /// The blits with a pattern, a monochrome source or a chroma key.
    Expanded(ExpandedKind),
}

impl BlitOp {
    /// The blit operation of a table command name, if the model executes it.
    pub(crate) fn of(name: &str) -> Option<Self> {
        Some(match name {
            "COLOR_BLT" => Self::Color,
            "SRC_COPY_BLT" => Self::SrcCopy,
            "XY_SETUP_BLT" => Self::XySetup,
            "XY_SETUP_CLIP_BLT" => Self::XySetupClip,
            "XY_PIXEL_BLT" => Self::XyPixel,
            "XY_COLOR_BLT" => Self::XyColor,
            "XY_SRC_COPY_BLT" => Self::XySrcCopy,
            "XY_SETUP_MONO_PATTERN_SL_BLT" => Self::XySetupMonoPattern,
            _ => return ExpandedKind::of(name).map(Self::Expanded),
        })
    }
}

impl BlitOp {
    /// The fields the operation reads without a fallback (see
    /// `cs::table::required`).
    pub(crate) fn required(self) -> &'static [F] {
        const XY_RECT: [F; 4] = [
            F::DestinationX1,
            F::DestinationY1,
            F::DestinationX2,
            F::DestinationY2,
        ];
        match self {
            Self::Color => &[
                F::ColorDepth,
                F::RasterOperation,
                F::DestinationAddress,
                F::DestinationPitch,
                F::DestinationWidth,
                F::DestinationHeight,
            ],
            Self::SrcCopy => &[
                F::ColorDepth,
                F::RasterOperation,
                F::DestinationAddress,
                F::DestinationPitch,
                F::DestinationWidth,
                F::DestinationHeight,
                F::SourceAddress,
                F::SourcePitch,
            ],
            Self::XySetup | Self::XySetupMonoPattern => &[
                F::ColorDepth,
                F::RasterOperation,
                F::DestinationPitch,
                F::SetupDestinationBaseAddress,
            ],
            Self::XySetupClip => &[F::CliprectX1, F::CliprectY1, F::CliprectX2, F::CliprectY2],
            Self::XyPixel => &[F::DestinationX1, F::DestinationY1],
            Self::XyColor => &[
                F::ColorDepth,
                F::RasterOperation,
                F::DestinationBaseAddress,
                F::DestinationPitch,
                F::DestinationX1,
                F::DestinationY1,
                F::DestinationX2,
                F::DestinationY2,
            ],
            Self::XySrcCopy => &[
                F::ColorDepth,
                F::RasterOperation,
                F::DestinationBaseAddress,
                F::DestinationPitch,
                F::DestinationX1,
                F::DestinationY1,
                F::DestinationX2,
                F::DestinationY2,
                F::SourceBaseAddress,
                F::SourcePitch,
                F::SourceX1,
                F::SourceY1,
            ],
            Self::Expanded(_) => &XY_RECT,
        }
    }
}

/// BCS_SWCTRL (Linux: blitter base + 0x200; masked). Bit 0: the source of
/// a tiled XY blit is Y-tiled; bit 1: the destination is.
pub(crate) const BCS_SWCTRL: u32 = baregpu_hal::gen6::regs::BCS_SWCTRL.offset();
const SWCTRL_SRC_Y: u32 = 1 << 0;
const SWCTRL_DST_Y: u32 = 1 << 1;
/// ARB_MODE and its swizzle bit per generation (see the module notes).
const ARB_MODE: u32 = baregpu_hal::gen6::regs::ARB_MODE.offset();

/// A rectangle, X2/Y2 exclusive (line 20712).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rect {
    x1: i64,
    y1: i64,
    x2: i64,
    y2: i64,
}

impl Rect {
    fn is_empty(&self) -> bool {
        self.x2 <= self.x1 || self.y2 <= self.y1
    }

    fn intersect(&self, o: &Rect) -> Rect {
        Rect {
            x1: self.x1.max(o.x1),
            y1: self.y1.max(o.y1),
            x2: self.x2.min(o.x2),
            y2: self.y2.min(o.y2),
        }
    }

    fn contains(&self, x: i64, y: i64) -> bool {
        x >= self.x1 && x < self.x2 && y >= self.y1 && y < self.y2
    }
}

/// Why a blitter command did not complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BlitError {
    /// The command cannot execute as given (see the module notes): an
    /// instruction error.
    Invalid,
    /// A surface access faulted.
    Fault(Fault),
}

/// The blitter of one engine: the state shared between commands (lines
/// 20493-20540), what the XY_SETUP commands load and XY_PIXEL_BLT and
/// clipped BLTs use.
#[derive(Clone, Copy, Debug, Default)]
pub struct Blitter {
    /// BR01: the setup raster (depth, ROP, byte mask, background colour
    /// BR05 as the PIXEL_BLT pattern).
    raster: Option<Raster>,
    /// BR01: setup destination pitch (raw 16-bit field) and clip enable.
    pitch: u64,
    clipping: bool,
    /// BR09: setup destination base.
    base: u64,
    /// BR24/BR25: the clip rectangle.
    clip: Rect,
    /// BR06: setup foreground colour (text and mono pattern).
    foreground: u32,
    /// BR01 bit 29: monochrome source (text) transparency.
    mono_source_transparent: bool,
    /// The scan-line pattern: BR07's colour pattern (XY_SETUP_BLT) or the
    /// mono pattern BR20/BR21 (XY_SETUP_MONO_PATTERN_SL_BLT).
    pattern: SetupPattern,
}

/// The pattern the XY_SETUP commands leave for scan-line and text blits.
#[derive(Clone, Copy, Debug, Default)]
enum SetupPattern {
    #[default]
    None,
    /// BR07: the base of an 8x8 colour pattern in linear memory.
    Color(u64),
    /// BR20/BR21, BR01 bit 31 (solid) and bit 28 (transparency).
    Mono {
        bits: u64,
        solid: bool,
        transparent: bool,
    },
}

/// How a surface's bytes are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tiling {
    Linear,
    X,
    Y,
}

/// One operand surface: base, pitch in bytes, layout.
#[derive(Clone, Copy, Debug)]
struct Surface {
    base: u64,
    pitch: i64,
    tiling: Tiling,
    swizzle: bool,
}

impl Surface {
    /// Graphics address of byte column `xb` of scan line `y`.
    ///
    /// Linear: `base + y * pitch + x` (lines 20714-20718). Tiled: the PRM
    /// tiling function (lines 7406-7463): `RowSize * (y / TileH) + 4096 *
    /// (x / TileW)` plus, inside the tile, `512 * (y % 8) + x % 512` for X
    /// and `512 * (x % 128 / 16) + 16 * (y % 32) + x % 16` for Y. Floor
    /// division keeps negative coordinates on the same grid. Addresses wrap
    /// at 32 bits like the engine's address registers.
    fn address(&self, xb: i64, y: i64) -> u64 {
        let offset = match self.tiling {
            Tiling::Linear => y * self.pitch + xb,
            Tiling::X => {
                let (xo, yo) = (xb.rem_euclid(512), y.rem_euclid(8));
                self.tile_start(512, 8, xb, y) + 512 * yo + xo
            }
            Tiling::Y => {
                let (xo, yo) = (xb.rem_euclid(128), y.rem_euclid(32));
                self.tile_start(128, 32, xb, y) + 512 * (xo / 16) + 16 * yo + xo % 16
            }
        };
        let addr = (self.base as i64).wrapping_add(offset) as u64 & 0xffff_ffff;
        self.swizzled(addr)
    }

    /// Offset of the tile holding (xb, y): `RowSize * TileY + 4096 * TileX`.
    fn tile_start(&self, tile_w: i64, tile_h: i64, xb: i64, y: i64) -> i64 {
        let row_size = self.pitch / tile_w * 4096;
        row_size * y.div_euclid(tile_h) + 4096 * xb.div_euclid(tile_w)
    }

    /// Bit 6 ^= bit 9 ^ bit 10 (X) or bit 9 (Y) when swizzling is on.
    fn swizzled(&self, addr: u64) -> u64 {
        let sources = match (self.swizzle, self.tiling) {
            (true, Tiling::X) => (1 << 9) | (1 << 10),
            (true, Tiling::Y) => 1 << 9,
            _ => return addr,
        };
        addr ^ (((addr & sources).count_ones() as u64 & 1) << 6)
    }

    /// Bytes from column `xb` (at `addr`) that are contiguous in memory and
    /// on one page: to the page end when linear; to the end of the 512-byte
    /// tile row (X), of the 64-byte half a swizzle may move (X swizzled),
    /// or of the 16-byte OWord column (Y). Tiles are pages (4 KiB, 4 KiB
    /// aligned), so a tiled run never leaves its page.
    fn run_len(&self, addr: u64, xb: i64) -> usize {
        let span = match (self.tiling, self.swizzle) {
            (Tiling::Linear, _) => return 4096 - (addr & 0xfff) as usize,
            (Tiling::X, false) => 512,
            (Tiling::X, true) => 64,
            (Tiling::Y, _) => 16,
        };
        (span - xb.rem_euclid(span)) as usize
    }

    /// The contiguous runs of `len` bytes from column `xb` of line `y`:
    /// (graphics address, range of the scan-line buffer).
    fn runs(self, xb: i64, y: i64, len: usize) -> impl Iterator<Item = (u64, Range<usize>)> {
        let mut done = 0;
        core::iter::from_fn(move || {
            if done >= len {
                return None;
            }
            let x = xb + done as i64;
            let addr = self.address(x, y);
            let n = self.run_len(addr, x).min(len - done);
            let range = done..done + n;
            done += n;
            Some((addr, range))
        })
    }
}

/// The per-pixel operation: depth, ROP, written bytes, solid pattern.
#[derive(Clone, Copy, Debug)]
struct Raster {
    cpp: usize,
    rop: u8,
    /// Which bytes of a pixel are written (the 32 bpp byte mask).
    writes: [bool; 4],
    /// The solid pattern colour, little-endian bytes of one pixel.
    pattern: [u8; 4],
}

impl Raster {
    /// From BR13-style control (depth 25:24, ROP 23:16), the DW0 byte mask
    /// (bit 1 = alpha, bit 0 = RGB) and the solid colour.
    fn new(color_depth: u64, rop: u64, mask: u64, pattern: u32) -> Self {
        let cpp = match color_depth & 3 {
            0 => 1,
            1 | 2 => 2,
            _ => 4,
        };
        let (alpha, rgb) = (mask & 2 != 0, mask & 1 != 0);
        let writes = if cpp == 4 {
            [rgb, rgb, rgb, alpha]
        } else {
            [true; 4]
        };
        Self {
            cpp,
            rop: rop as u8,
            writes,
            pattern: pattern.to_le_bytes(),
        }
    }

    /// Whether the result depends on the pattern, source or destination:
    /// the code differs between the halves where that operand is 0 and 1.
    fn uses_pattern(&self) -> bool {
        self.rop >> 4 != self.rop & 0x0f
    }
    fn uses_source(&self) -> bool {
        (self.rop >> 2) & 0x33 != self.rop & 0x33
    }
    fn uses_dest(&self) -> bool {
        (self.rop >> 1) & 0x55 != self.rop & 0x55
    }

    /// The old destination bytes matter when the ROP reads them or some
    /// bytes of a pixel are kept.
    fn reads_dest(&self) -> bool {
        self.uses_dest() || self.writes[..self.cpp].iter().any(|w| !w)
    }

    /// Combines one scan line in place: `d = rop(P, S, D)` on written bytes.
    fn apply(&self, d: &mut [u8], s: &[u8]) {
        for (i, byte) in d.iter_mut().enumerate() {
            let k = i % self.cpp;
            if self.writes[k] {
                let src = s.get(i).copied().unwrap_or(0);
                *byte = rop3(self.rop, self.pattern[k], src, *byte);
            }
        }
    }
}

/// The ternary raster operation on 8 bits: result bit = code bit number
/// `P*4 + S*2 + D` (so 0xF0 = pattern, 0xCC = source, 0xAA = destination).
pub(crate) fn rop3(code: u8, p: u8, s: u8, d: u8) -> u8 {
    match code {
        0xf0 => p,
        0xcc => s,
        _ => (0..8).filter(|i| code >> i & 1 == 1).fold(0, |acc, i| {
            let p = if i & 4 != 0 { p } else { !p };
            let s = if i & 2 != 0 { s } else { !s };
            let d = if i & 1 != 0 { d } else { !d };
            acc | (p & s & d)
        }),
    }
}

/// One rectangle operation, in destination pixels.
struct Blit {
    dst: Surface,
    /// The source and the source pixel of the rectangle's top-left corner.
    src: Option<(Surface, i64, i64)>,
    rect: Rect,
    raster: Raster,
    /// Scan lines bottom up (overlapping copy on one base).
    bottom_up: bool,
}

/// A 16-bit signed coordinate or pitch field.
fn s16(v: u64) -> i64 {
    v as u16 as i16 as i64
}

/// The destination rectangle (BR22/BR23) of an XY command.
fn destination_rect(c: &Cmd, dw: &[u32]) -> Rect {
    let get = |name| s16(field(c, dw, name).unwrap_or(0));
    Rect {
        x1: get(F::DestinationX1),
        y1: get(F::DestinationY1),
        x2: get(F::DestinationX2),
        y2: get(F::DestinationY2),
    }
}

/// The clip rectangle of BR24/BR25: 15-bit positive coordinates.
fn clip_of(c: &Cmd, dw: &[u32]) -> Rect {
    let get = |name| field(c, dw, name).unwrap_or(0) as i64 & 0x7fff;
    Rect {
        x1: get(F::CliprectX1),
        y1: get(F::CliprectY1),
        x2: get(F::CliprectX2),
        y2: get(F::CliprectY2),
    }
}

/// Writes BCS_SWCTRL, a masked register (bits 31:16 enable 15:0), on every
/// generation: the gen6/gen7 tables list it, the Gen4/G45 ones (no blitter ring)
/// do not, and there it stays 0 unless written (X tiles). Returns whether
/// `offset` was BCS_SWCTRL.
pub(crate) fn write_register(regs: &mut RegFile, offset: u32, value: u32) -> bool {
    if offset != BCS_SWCTRL {
        return false;
    }
    let mask = value >> 16;
    let old = regs.get(offset);
    regs.set(offset, (old & !mask) | (value & mask & 0xffff));
    true
}

/// How tiled surfaces are laid out, from the registers as a command starts:
/// BCS_SWCTRL (X or Y tiles) and ARB_MODE (bit-6 swizzling).
#[derive(Clone, Copy, Debug)]
struct TileControl {
    swctrl: u32,
    swizzle: bool,
}

impl TileControl {
    fn read(regs: &RegFile, generation: Generation) -> TileControl {
        TileControl {
            swctrl: regs.get(BCS_SWCTRL),
            swizzle: swizzling(regs, generation),
        }
    }

    /// An XY operand: linear (pitch in bytes) or tiled (pitch in DWords,
    /// X or Y per BCS_SWCTRL `y_bit`). `None` for a tiled surface the
    /// engine cannot address (see the module notes).
    fn xy_surface(&self, base: u64, pitch: u64, tiled: bool, y_bit: u32) -> Option<Surface> {
        let pitch = s16(pitch);
        if !tiled {
            let tiling = Tiling::Linear;
            return Some(Surface {
                base,
                pitch,
                tiling,
                swizzle: false,
            });
        }
        let y = self.swctrl & y_bit != 0;
        let (tiling, tile_w) = if y {
            (Tiling::Y, 128)
        } else {
            (Tiling::X, 512)
        };
        let pitch = pitch * 4;
        let valid = pitch > 0 && pitch % tile_w == 0 && base & 0xfff == 0;
        let swizzle = self.swizzle;
        valid.then_some(Surface {
            base,
            pitch,
            tiling,
            swizzle,
        })
    }
}

/// Graphics address of byte column `xb` of line `y` of an X-tiled surface at
/// `base`, `pitch` bytes per line, swizzled as ARB_MODE asks: the layout the
/// blitter writes, which the display plane scans out.
pub(crate) fn x_tiled_address(
    regs: &RegFile,
    generation: Generation,
    base: u64,
    pitch: u64,
    xb: u64,
    y: u64,
) -> u64 {
    let surface = Surface {
        base,
        pitch: pitch as i64,
        tiling: Tiling::X,
        swizzle: swizzling(regs, generation),
    };
    surface.address(xb as i64, y as i64)
}

/// Whether ARB_MODE asks for bit-6 swizzling of tiled surfaces.
fn swizzling(regs: &RegFile, generation: Generation) -> bool {
    let bit = match generation {
        Generation::Gen6 => 1 << 4,
        _ => 1 << 5,
    };
    regs.get(ARB_MODE) & bit != 0
}

impl Blitter {
    /// Executes one blitter command. Blits have no GGTT bit: `at` is the
    /// batch's address space.
    pub(crate) fn execute<B: MemoryBus>(
        &mut self,
        at: &Access<'_, B>,
        regs: &RegFile,
        generation: Generation,
        c: &Cmd,
        op: BlitOp,
        dw: &[u32],
    ) -> Result<(), BlitError> {
        let tiles = TileControl::read(regs, generation);
        let blit = match op {
            BlitOp::XySetup => return self.setup(c, dw),
            BlitOp::XySetupClip => {
                self.clip = clip_of(c, dw);
                return Ok(());
            }
            BlitOp::XySetupMonoPattern => return self.setup(c, dw),
            BlitOp::Expanded(kind) => {
                return match self.expanded(tiles, c, kind, dw) {
                    Some(Some(e)) => self.run_expanded(at, &e),
                    Some(None) => Ok(()),
                    None => Err(BlitError::Invalid),
                };
            }
            BlitOp::Color => self.color_blt(c, dw),
            BlitOp::SrcCopy => self.src_copy_blt(c, dw),
            BlitOp::XyColor => self.xy_color_blt(tiles, c, dw),
            BlitOp::XySrcCopy => self.xy_src_copy_blt(tiles, c, dw),
            BlitOp::XyPixel => self.xy_pixel_blt(tiles, c, dw),
        };
        match blit {
            Some(Some(b)) => self.run_blit(at, &b),
            Some(None) => Ok(()), // rejected: nothing to draw
            None => Err(BlitError::Invalid),
        }
    }

    /// XY_SETUP_BLT: loads the shared state (lines 20730-20802).
    fn setup(&mut self, c: &Cmd, dw: &[u32]) -> Result<(), BlitError> {
        let s = self;
        s.raster = raster_of(c, dw, Some(F::SetupBackgroundColor));
        s.pitch = field(c, dw, F::DestinationPitch).unwrap_or(0);
        s.clipping = field(c, dw, F::ClippingEnable) == Some(1);
        s.base = field(c, dw, F::SetupDestinationBaseAddress).unwrap_or(0);
        s.clip = clip_of(c, dw);
        s.foreground = field(c, dw, F::SetupForegroundColor).unwrap_or(0) as u32;
        s.mono_source_transparent = field(c, dw, F::MonoSourceTransparencyMode) == Some(1);
        s.pattern = match field(c, dw, F::PatternData0) {
            Some(lo) => SetupPattern::Mono {
                bits: lo | field(c, dw, F::PatternData1).unwrap_or(0) << 32,
                solid: field(c, dw, F::SolidPatternSelect) == Some(1),
                transparent: field(c, dw, F::MonoPatternTransparencyMode) == Some(1),
            },
            None => SetupPattern::Color(field(c, dw, F::SetupPatternBaseAddress).unwrap_or(0)),
        };
        Ok(())
    }

    /// COLOR_BLT (lines 20599-20645): a linear fill of width bytes x height
    /// lines from the first byte. `None` = instruction error.
    fn color_blt(&self, c: &Cmd, dw: &[u32]) -> Option<Option<Blit>> {
        let raster = raster_of(c, dw, Some(F::SolidPatternColor))?;
        if raster.uses_source() {
            return None;
        }
        let dst = linear(
            field(c, dw, F::DestinationAddress)?,
            field(c, dw, F::DestinationPitch)?,
        );
        let rect = legacy_rect(c, dw, raster.cpp)?;
        Some(Some(Blit {
            dst,
            src: None,
            rect,
            raster,
            bottom_up: false,
        }))
    }

    /// SRC_COPY_BLT (lines 20646-20729): a linear copy; the driver picks the
    /// vertical direction with the pitch signs.
    fn src_copy_blt(&self, c: &Cmd, dw: &[u32]) -> Option<Option<Blit>> {
        let raster = raster_of(c, dw, None)?;
        if raster.uses_pattern() || field(c, dw, F::XDirection) == Some(1) {
            return None;
        }
        let dst = linear(
            field(c, dw, F::DestinationAddress)?,
            field(c, dw, F::DestinationPitch)?,
        );
        let src = linear(
            field(c, dw, F::SourceAddress)?,
            field(c, dw, F::SourcePitch)?,
        );
        let rect = legacy_rect(c, dw, raster.cpp)?;
        Some(Some(Blit {
            dst,
            src: Some((src, 0, 0)),
            rect,
            raster,
            bottom_up: false,
        }))
    }

    /// XY_COLOR_BLT (lines 21090-21155).
    fn xy_color_blt(&self, tiles: TileControl, c: &Cmd, dw: &[u32]) -> Option<Option<Blit>> {
        let raster = raster_of(c, dw, Some(F::SolidPatternColor))?;
        if raster.uses_source() {
            return None;
        }
        let dst = tiles.xy_surface(
            field(c, dw, F::DestinationBaseAddress)?,
            field(c, dw, F::DestinationPitch)?,
            field(c, dw, F::TilingEnable) == Some(1),
            SWCTRL_DST_Y,
        )?;
        let rect = self.clipped(c, dw, destination_rect(c, dw));
        Some((!rect.is_empty()).then_some(Blit {
            dst,
            src: None,
            rect,
            raster,
            bottom_up: false,
        }))
    }

    /// XY_SRC_COPY_BLT (lines 21919-22012).
    fn xy_src_copy_blt(&self, tiles: TileControl, c: &Cmd, dw: &[u32]) -> Option<Option<Blit>> {
        let raster = raster_of(c, dw, None)?;
        if raster.uses_pattern() {
            return None;
        }
        let dst_base = field(c, dw, F::DestinationBaseAddress)?;
        let src_base = field(c, dw, F::SourceBaseAddress)?;
        let dst = tiles.xy_surface(
            dst_base,
            field(c, dw, F::DestinationPitch)?,
            field(c, dw, F::DestTilingEnable) == Some(1),
            SWCTRL_DST_Y,
        )?;
        let src = tiles.xy_surface(
            src_base,
            field(c, dw, F::SourcePitch)?,
            field(c, dw, F::SrcTilingEnable) == Some(1),
            SWCTRL_SRC_Y,
        )?;
        let (sx, sy) = (
            s16(field(c, dw, F::SourceX1)?),
            s16(field(c, dw, F::SourceY1)?),
        );
        let mut rect = destination_rect(c, dw);
        let bottom_up = src_base == dst_base && sy < rect.y1;
        // Negative source coordinates move the destination start (lines 20706-20711).
        rect.x1 += (-sx).max(0);
        rect.y1 += (-sy).max(0);
        let (sx, sy) = (sx.max(0) - rect.x1, sy.max(0) - rect.y1);
        let rect = self.clipped(c, dw, rect);
        let src = Some((src, sx + rect.x1, sy + rect.y1));
        Some((!rect.is_empty()).then_some(Blit {
            dst,
            src,
            rect,
            raster,
            bottom_up,
        }))
    }

    /// XY_PIXEL_BLT (lines 20907-20940): one pixel with the setup state.
    fn xy_pixel_blt(&self, tiles: TileControl, c: &Cmd, dw: &[u32]) -> Option<Option<Blit>> {
        let s = *self;
        let raster = s.raster?;
        let tiled = field(c, dw, F::TilingEnable) == Some(1);
        if raster.uses_source() || s16(s.pitch) < 0 {
            return None;
        }
        let dst = tiles.xy_surface(s.base, s.pitch, tiled, SWCTRL_DST_Y)?;
        let (x, y) = (
            s16(field(c, dw, F::DestinationX1)?),
            s16(field(c, dw, F::DestinationY1)?),
        );
        let clipped = s.clipping && !s.clip.contains(x, y);
        let rect = Rect {
            x1: x,
            y1: y,
            x2: x + 1,
            y2: y + 1,
        };
        Some((!clipped).then_some(Blit {
            dst,
            src: None,
            rect,
            raster,
            bottom_up: false,
        }))
    }

    /// The destination rectangle after the clip rectangle, when enabled.
    fn clipped(&self, c: &Cmd, dw: &[u32], rect: Rect) -> Rect {
        if field(c, dw, F::ClippingEnable) == Some(1) {
            rect.intersect(&self.clip)
        } else {
            rect
        }
    }

    /// Runs a blit scan line by scan line: read the source line, read the
    /// destination line if the ROP or byte mask needs it, combine, write.
    fn run_blit<B: MemoryBus>(&self, at: &Access<'_, B>, b: &Blit) -> Result<(), BlitError> {
        let cpp = b.raster.cpp as i64;
        let width = ((b.rect.x2 - b.rect.x1) * cpp) as usize;
        let mut d = vec![0u8; width];
        let mut s: Vec<u8> = vec![0u8; if b.src.is_some() { width } else { 0 }];
        let lines = b.rect.y2 - b.rect.y1;
        for n in 0..lines {
            let r = if b.bottom_up { lines - 1 - n } else { n };
            if let Some((src, sx, sy)) = b.src {
                at.read_line(&src, sx * cpp, sy + r, &mut s)?;
            }
            let (dx, dy) = (b.rect.x1 * cpp, b.rect.y1 + r);
            if b.raster.reads_dest() {
                at.read_line(&b.dst, dx, dy, &mut d)?;
            }
            b.raster.apply(&mut d, &s);
            at.write_line(&b.dst, dx, dy, &d)?;
        }
        Ok(())
    }
}

/// The engine's memory and the address space a blit reaches it through.
/// Runs never cross a page, so one translation serves a whole run.
pub(crate) struct Access<'a, B: MemoryBus> {
    pub mem: Memory<'a, B>,
    pub space: Space,
}

impl<B: MemoryBus> Access<'_, B> {
    fn fault(&self, gfx_addr: u64) -> BlitError {
        let ggtt = self.space == Space::Ggtt;
        BlitError::Fault(Fault { gfx_addr, ggtt })
    }

    fn read_line(&self, s: &Surface, xb: i64, y: i64, buf: &mut [u8]) -> Result<(), BlitError> {
        for (addr, range) in s.runs(xb, y, buf.len()) {
            if let Some(part) = buf.get_mut(range) {
                let phys = self
                    .mem
                    .translate(self.space, addr)
                    .map_err(BlitError::Fault)?;
                self.mem
                    .bus
                    .read(phys, part)
                    .map_err(|_| self.fault(addr))?;
            }
        }
        Ok(())
    }

    fn write_line(&self, s: &Surface, xb: i64, y: i64, buf: &[u8]) -> Result<(), BlitError> {
        for (addr, range) in s.runs(xb, y, buf.len()) {
            if let Some(part) = buf.get(range) {
                let phys = self
                    .mem
                    .translate(self.space, addr)
                    .map_err(BlitError::Fault)?;
                self.mem
                    .bus
                    .write(phys, part)
                    .map_err(|_| self.fault(addr))?;
            }
        }
        Ok(())
    }
}

/// Depth, ROP and byte mask of a BLT command, with the solid colour field
/// `pattern` (none: `None`). `None` when the command lacks the fields.
fn raster_of(c: &Cmd, dw: &[u32], pattern: Option<F>) -> Option<Raster> {
    let color = pattern.and_then(|p| field(c, dw, p)).unwrap_or(0) as u32;
    Some(Raster::new(
        field(c, dw, F::ColorDepth)?,
        field(c, dw, F::RasterOperation)?,
        field(c, dw, F::Bpp32ByteMask).unwrap_or(3),
        color,
    ))
}

/// A legacy (non-XY) operand: linear, addressed from its first byte, with a
/// signed byte pitch.
fn linear(base: u64, pitch: u64) -> Surface {
    Surface {
        base,
        pitch: s16(pitch),
        tiling: Tiling::Linear,
        swizzle: false,
    }
}

/// The legacy BR14 size (height in lines, width in bytes) as a pixel
/// rectangle at (0, 0). A width that is not whole pixels is an error.
fn legacy_rect(c: &Cmd, dw: &[u32], cpp: usize) -> Option<Rect> {
    let width = field(c, dw, F::DestinationWidth)? as usize;
    let height = field(c, dw, F::DestinationHeight)? as i64;
    width.is_multiple_of(cpp).then_some(Rect {
        x1: 0,
        y1: 0,
        x2: (width / cpp) as i64,
        y2: height,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rop3_matches_the_named_codes() {
        let (p, s, d) = (0b1100_1010, 0b1010_0110, 0b0110_1100);
        assert_eq!(rop3(0xf0, p, s, d), p);
        assert_eq!(rop3(0xcc, p, s, d), s);
        assert_eq!(rop3(0xaa, p, s, d), d);
        assert_eq!(rop3(0x00, p, s, d), 0);
        assert_eq!(rop3(0xff, p, s, d), 0xff);
        assert_eq!(rop3(0x66, p, s, d), s ^ d); // SRCINVERT
        assert_eq!(rop3(0x88, p, s, d), s & d); // SRCAND
        assert_eq!(rop3(0x5a, p, s, d), p ^ d); // PATINVERT
        assert_eq!(rop3(0x33, p, s, d), !s); // NOTSRCCOPY
    }

    #[test]
    fn rop_operands_are_detected() {
        let r = |rop| Raster::new(3, rop, 3, 0);
        assert!(r(0xf0).uses_pattern() && !r(0xf0).uses_source() && !r(0xf0).uses_dest());
        assert!(!r(0xcc).uses_pattern() && r(0xcc).uses_source() && !r(0xcc).uses_dest());
        assert!(r(0x5a).uses_dest() && !r(0x5a).uses_source());
        assert!(!r(0x00).uses_pattern() && !r(0xff).uses_dest());
    }

    #[test]
    fn tiled_addresses_follow_the_prm_function() {
        let x = Surface {
            base: 0x10000,
            pitch: 1024,
            tiling: Tiling::X,
            swizzle: false,
        };
        // Second tile of the first row, line 3, byte 5.
        assert_eq!(x.address(512 + 5, 3), 0x10000 + 4096 + 3 * 512 + 5);
        // Second tile row: RowSize = 2 tiles.
        assert_eq!(x.address(0, 8), 0x10000 + 2 * 4096);
        let y = Surface {
            base: 0x10000,
            pitch: 256,
            tiling: Tiling::Y,
            swizzle: false,
        };
        assert_eq!(y.address(17, 2), 0x10000 + 512 + 2 * 16 + 1);
        assert_eq!(y.address(128, 32), 0x10000 + 3 * 4096);
        let xs = Surface { swizzle: true, ..x };
        // Bit 9 set, bit 10 clear: bit 6 flips.
        assert_eq!(xs.address(0, 1) - 0x10000, 512 ^ 64);
        assert_eq!(xs.address(0, 3) - 0x10000, 1536); // bits 9 and 10: no flip
    }
}
