//! The blits that expand a pattern, a monochrome source or a chroma key
//! per pixel: XY_PAT_BLT(_IMMEDIATE), XY_PAT_CHROMA_BLT(_IMMEDIATE),
//! XY_MONO_PAT_BLT, XY_MONO_PAT_FIXED_BLT, XY_MONO_SRC_COPY(_IMMEDIATE)_BLT, XY_SRC_COPY_CHROMA_BLT,
//! the six XY_FULL_* blits, XY_SCANLINES_BLT, XY_TEXT_BLT and
//! XY_TEXT_IMMEDIATE_BLT (SNB PRM 003 lines 20941-22949; "line N" below).
//!
//! Each destination pixel of the (clipped) rectangle is `ROP3(P, S, D)`
//! byte by byte, written when no transparency or chroma key holds it back:
//! * Pattern: an 8x8 pattern whose pixel for destination (x, y) is column
//!   `(x + horizontal seed) % 8` of row `(y + vertical seed) % 8` ("The
//!   Pattern Seeds correspond to Destination X = 0 ... Y = 0", lines
//!   21162-21165). A colour pattern is 8 rows of 8 pixels, row after row,
//!   64, 128 or 256 bytes (line 21306), in linear memory at a 64-byte
//!   aligned address or in the command. A mono pattern is the 64 bits of
//!   BR20 (low DWord, line 21551) and BR21: row r is byte r, pixel 0 its
//!   bit 7 (Monochrome Pattern Memory Format, lines 21674-21690).
//! * Bit order of monochrome sources and text: the first pixel is the most
//!   significant bit of a byte, as in patterns. The PRM says so for
//!   patterns only; Linux `drivers/video/fbdev/i810/i810_accel.c` passes fbdev's MSB-first
//!   glyph bitmaps (`fb_image.data`) unchanged to XY_MONO_SRC_COPY_IMM_BLT.
//!   Mono bit 1 selects the foreground colour, 0 the background or, in
//!   transparency mode, no write (BR13 bits 29, 28: lines 23190-23210).
//!   Solid Pattern Select forces the pattern to the background colour with
//!   every bit 0 (lines 23180-23188).
//! * Monochrome sources are word aligned: a scan line starts at the source
//!   Bit Position (bits counted from the most significant of the first
//!   byte) and the next one at the next 16-bit word (lines 22120-22123).
//!   Text is bit packed (the next line follows the last bit) or byte packed
//!   (it starts at the next byte), lines 20994-20996.
//! * Chroma key (Transparency Range Mode, lines 23080-23111): each colour
//!   component of the source (modes 001 RGB, 011 ARGB) or destination
//!   (101 ARGB, 111 RGB) pixel is compared with BR18 <= c <= BR19. Source
//!   keys write pixels outside the range, destination keys inside it.
//!   Components: 8 bpp one byte; 565 5/6/5 bits; 1555 A1 and 5/5/5; 32 bpp
//!   four bytes. A source key on a pattern chroma blit ("SRC ILLEGAL",
//!   line 21245) is an instruction error.
//! * A ROP that reads an operand the command lacks is an instruction error,
//!   as in `mod.rs`. Immediate data too short for the rectangle is one too.
//! * Scan-line and text blits take the XY_SETUP state: ROP, depth, byte
//!   mask, pitch, base, clip enable, background BR05, foreground BR06, the
//!   mono source transparency, and the pattern (BR07 colour pattern after
//!   XY_SETUP_BLT, BR20/BR21 after XY_SETUP_MONO_PATTERN_SL_BLT).
//! * Colour sources follow XY_SRC_COPY_BLT: negative coordinates move the
//!   destination start, a same-base source above the destination is read
//!   bottom up, a whole source line is read before the line is written.

use alloc::vec;
use alloc::vec::Vec;

use crate::command::Cmd;
use baregpu_hal::MemoryBus;

use super::{
    Access, BlitError, Blitter, Raster, Rect, SWCTRL_DST_Y, SWCTRL_SRC_Y, SetupPattern, Surface,
    TileControl, Tiling, destination_rect, raster_of, rop3, s16,
};
use crate::command::{F, field};

/// Which operands a command has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ExpandedKind {
    pattern: PatternFrom,
    source: SourceFrom,
    chroma: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PatternFrom {
    None,
    /// 8x8 colour pattern at the pattern base address.
    ColorMemory,
    /// 8x8 colour pattern after the command's fields.
    ColorImmediate,
    /// BR20/BR21 with the command's pattern colours.
    Mono,
    /// One of the fixed mono patterns ([`FIXED_PATTERNS`]).
    Fixed,
    /// The XY_SETUP state's pattern.
    Setup,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SourceFrom {
    None,
    Color,
    /// Word-aligned mono source at this address field.
    MonoMemory(F),
    MonoImmediate,
    /// Text with the setup colours, at BR12.
    TextMemory,
    TextImmediate,
}

impl ExpandedKind {
    pub(crate) fn of(name: &str) -> Option<Self> {
        use PatternFrom as P;
        use SourceFrom as S;
        let (pattern, source, chroma) = match name {
            "XY_PAT_BLT" => (P::ColorMemory, S::None, false),
            "XY_PAT_BLT_IMMEDIATE" => (P::ColorImmediate, S::None, false),
            "XY_PAT_CHROMA_BLT" => (P::ColorMemory, S::None, true),
            "XY_PAT_CHROMA_BLT_IMMEDIATE" => (P::ColorImmediate, S::None, true),
            "XY_MONO_PAT_BLT" => (P::Mono, S::None, false),
            "XY_MONO_PAT_FIXED_BLT" => (P::Fixed, S::None, false),
            "XY_MONO_SRC_COPY_BLT" => (P::None, S::MonoMemory(F::SourceAddress), false),
            "XY_MONO_SRC_COPY_IMMEDIATE_BLT" => (P::None, S::MonoImmediate, false),
            "XY_SRC_COPY_CHROMA_BLT" => (P::None, S::Color, true),
            "XY_FULL_BLT" => (P::ColorMemory, S::Color, false),
            "XY_FULL_IMMEDIATE_PATTERN_BLT" => (P::ColorImmediate, S::Color, false),
            "XY_FULL_MONO_SRC_BLT" => (P::ColorMemory, S::MonoMemory(F::MonoSourceAddress), false),
            "XY_FULL_MONO_SRC_IMMEDIATE_PATTERN_BLT" => (
                P::ColorImmediate,
                S::MonoMemory(F::MonoSourceAddress),
                false,
            ),
            "XY_FULL_MONO_PATTERN_BLT" => (P::Mono, S::Color, false),
            "XY_FULL_MONO_PATTERN_MONO_SRC_BLT" => {
                (P::Mono, S::MonoMemory(F::SourceAddress), false)
            }
            "XY_SCANLINES_BLT" => (P::Setup, S::None, false),
            "XY_TEXT_BLT" => (P::Setup, S::TextMemory, false),
            "XY_TEXT_IMMEDIATE_BLT" => (P::Setup, S::TextImmediate, false),
            _ => return None,
        };
        Some(Self {
            pattern,
            source,
            chroma,
        })
    }
}

/// The pattern operand, resolved.
enum Pattern {
    None,
    /// 64 pixels, row-major, `cpp` bytes each.
    Color(Vec<u8>),
    /// The same, still in memory: base and size.
    ColorAt(u64, usize),
    Mono {
        bits: u64,
        fg: u32,
        bg: u32,
        transparent: bool,
    },
}

/// Where monochrome bits come from.
enum MonoData {
    Memory(u64),
    Immediate(Vec<u8>),
}

/// How monochrome scan lines are packed.
#[derive(Clone, Copy)]
enum Packing {
    /// Each line from this bit, the next at the next 16-bit word.
    Words {
        first_bit: u64,
    },
    Bits,
    Bytes,
}

enum Source {
    None,
    /// The colour source and its pixel at the rectangle's top-left.
    Color(Surface, i64, i64),
    Mono {
        data: MonoData,
        packing: Packing,
        fg: u32,
        bg: u32,
        transparent: bool,
    },
}

/// Transparency Range Mode and BR18/BR19.
#[derive(Clone, Copy)]
struct Chroma {
    mode: u64,
    low: u32,
    high: u32,
    /// BR13 colour depth (0: 8 bpp, 1: 565, 2: 1555, 3: 32 bpp).
    depth: u64,
}

impl Chroma {
    /// Whether the pixel may be written given its source and destination.
    fn passes(&self, s: u32, d: u32) -> bool {
        let (pixel, alpha, inside_writes) = match self.mode {
            0b001 => (s, false, false),
            0b011 => (s, true, false),
            0b101 => (d, true, true),
            0b111 => (d, false, true),
            _ => return true,
        };
        let fields: &[(u32, u32)] = match self.depth {
            0 => &[(0, 8)],
            1 => &[(11, 5), (5, 6), (0, 5)],
            2 if alpha => &[(15, 1), (10, 5), (5, 5), (0, 5)],
            2 => &[(10, 5), (5, 5), (0, 5)],
            _ if alpha => &[(24, 8), (16, 8), (8, 8), (0, 8)],
            _ => &[(16, 8), (8, 8), (0, 8)],
        };
        let inside = fields.iter().all(|&(shift, width)| {
            let m = (1u32 << width) - 1;
            let c = (pixel >> shift) & m;
            (self.low >> shift) & m <= c && c <= (self.high >> shift) & m
        });
        inside == inside_writes
    }
}

/// One expanded blit.
pub(super) struct Expanded {
    dst: Surface,
    /// The drawn (clipped) rectangle and the unclipped one, whose top-left
    /// is the first pixel of a monochrome source.
    rect: Rect,
    origin: (i64, i64),
    /// Pixels per unclipped scan line (for mono packing).
    width: i64,
    raster: Raster,
    pattern: Pattern,
    seed: (i64, i64),
    source: Source,
    chroma: Option<Chroma>,
    bottom_up: bool,
}

/// The command's immediate dwords (its group, else the dwords after its
/// last field), as bytes.
fn immediate(c: &Cmd, dw: &[u32]) -> Vec<u8> {
    dw.get(c.immediate_dw..)
        .unwrap_or(&[])
        .iter()
        .flat_map(|d| d.to_le_bytes())
        .collect()
}

/// Bit `n` of MSB-first monochrome data.
fn bit(bytes: &[u8], n: u64) -> bool {
    bytes[(n / 8) as usize] >> (7 - n % 8) & 1 == 1
}

impl Blitter {
    /// Decodes an expanded blit. `None`: instruction error; `Some(None)`:
    /// nothing to draw.
    pub(super) fn expanded(
        &self,
        tiles: TileControl,
        c: &Cmd,
        kind: ExpandedKind,
        dw: &[u32],
    ) -> Option<Option<Expanded>> {
        let setup = *self;
        let uses_setup = kind.pattern == PatternFrom::Setup;
        let (raster, pitch, base, clipping) = if uses_setup {
            let raster = setup.raster?;
            (raster, setup.pitch, setup.base, setup.clipping)
        } else {
            (
                raster_of(c, dw, None)?,
                field(c, dw, F::DestinationPitch)?,
                field(c, dw, F::DestinationBaseAddress)?,
                field(c, dw, F::ClippingEnable) == Some(1),
            )
        };
        // Negative pitches are not allowed with a monochrome source or text
        // (lines 20511-20513, 21000, 22130, 22224, 22537, 22635).
        let mono_source = !matches!(kind.source, SourceFrom::None | SourceFrom::Color);
        if mono_source && s16(pitch) < 0 {
            return None;
        }
        let tiled = field(c, dw, F::TilingEnable).or_else(|| field(c, dw, F::DestTilingEnable));
        let dst = tiles.xy_surface(base, pitch, tiled == Some(1), SWCTRL_DST_Y)?;
        let mut rect = destination_rect(c, dw);
        let origin = (rect.x1, rect.y1);
        let width = rect.x2 - rect.x1;
        let seed = (
            field(c, dw, F::PatternHorizontalSeed).unwrap_or(0) as i64,
            field(c, dw, F::PatternVerticalSeed).unwrap_or(0) as i64,
        );
        let cpp = raster.cpp;
        let color = |name| field(c, dw, name).unwrap_or(0) as u32;
        let pattern = match kind.pattern {
            PatternFrom::None => Pattern::None,
            PatternFrom::ColorImmediate => {
                let data = immediate(c, dw);
                if data.len() < 64 * cpp {
                    return None;
                }
                Pattern::Color(data[..64 * cpp].to_vec())
            }
            PatternFrom::ColorMemory => {
                let base = field(c, dw, F::PatternBaseAddress)?;
                self.color_pattern(raster, base)
            }
            PatternFrom::Fixed => Pattern::Mono {
                bits: fixed_pattern(field(c, dw, F::FixedPattern)?)?,
                fg: color(F::PatternForegroundColor),
                bg: color(F::PatternBackgroundColor),
                transparent: field(c, dw, F::MonoPatternTransparencyMode) == Some(1),
            },
            PatternFrom::Mono => Pattern::Mono {
                bits: field(c, dw, F::PatternData0)? | field(c, dw, F::PatternData1)? << 32,
                fg: color(F::PatternForegroundColor),
                bg: color(F::PatternBackgroundColor),
                transparent: field(c, dw, F::MonoPatternTransparencyMode) == Some(1),
            },
            PatternFrom::Setup => match setup.pattern {
                SetupPattern::None => Pattern::None,
                SetupPattern::Color(base) => self.color_pattern(raster, base),
                SetupPattern::Mono {
                    bits,
                    solid,
                    transparent,
                } => Pattern::Mono {
                    bits: if solid { 0 } else { bits },
                    fg: setup.foreground,
                    bg: u32::from_le_bytes(raster.pattern),
                    transparent,
                },
            },
        };
        // Solid Pattern Select on a mono pattern command.
        let pattern = match pattern {
            Pattern::Mono {
                fg,
                bg,
                transparent,
                ..
            } if field(c, dw, F::SolidPatternSelect) == Some(1) => Pattern::Mono {
                bits: 0,
                fg,
                bg,
                transparent,
            },
            p => p,
        };
        if matches!(pattern, Pattern::None) && raster.uses_pattern() {
            return None;
        }
        let word_bits = field(c, dw, F::MonochromeSourceDataBitPosition).unwrap_or(0);
        let text_packing = if field(c, dw, F::BitBytePacked) == Some(1) {
            Packing::Bytes
        } else {
            Packing::Bits
        };
        let mono = |data, packing, fg, bg, transparent| Source::Mono {
            data,
            packing,
            fg,
            bg,
            transparent,
        };
        let mono_transparent = field(c, dw, F::MonoSourceTransparencyMode) == Some(1);
        let (src_fg, src_bg) = (
            color(F::SourceForegroundColor),
            color(F::SourceBackgroundColor),
        );
        let text_bg = setup.raster.map_or(0, |r| u32::from_le_bytes(r.pattern));
        let text_fg = setup.foreground;
        let words = Packing::Words {
            first_bit: word_bits,
        };
        let mut bottom_up = false;
        let source = match kind.source {
            SourceFrom::None => Source::None,
            SourceFrom::MonoMemory(name) => {
                let data = MonoData::Memory(field(c, dw, name)?);
                mono(data, words, src_fg, src_bg, mono_transparent)
            }
            SourceFrom::MonoImmediate => {
                let data = MonoData::Immediate(immediate(c, dw));
                mono(data, words, src_fg, src_bg, mono_transparent)
            }
            SourceFrom::TextMemory => {
                let data = MonoData::Memory(field(c, dw, F::SourceAddress)?);
                let t = setup.mono_source_transparent;
                mono(data, text_packing, text_fg, text_bg, t)
            }
            SourceFrom::TextImmediate => {
                let data = MonoData::Immediate(immediate(c, dw));
                let t = setup.mono_source_transparent;
                mono(data, text_packing, text_fg, text_bg, t)
            }
            SourceFrom::Color => {
                let src_base = field(c, dw, F::SourceBaseAddress)?;
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
                bottom_up = src_base == base && sy < rect.y1;
                rect.x1 += (-sx).max(0);
                rect.y1 += (-sy).max(0);
                Source::Color(src, sx.max(0) - rect.x1, sy.max(0) - rect.y1)
            }
        };
        if matches!(source, Source::None) && raster.uses_source() {
            return None;
        }
        // Immediate bits must cover the last scan line of the rectangle.
        let lines = rect.y2 - rect.y1;
        if let Source::Mono {
            data: MonoData::Immediate(bytes),
            packing,
            ..
        } = &source
            && width > 0
            && lines > 0
            && mono_line_start(*packing, width, lines - 1) + width as u64 > bytes.len() as u64 * 8
        {
            return None;
        }
        let chroma = if kind.chroma {
            let mode = field(c, dw, F::TransparencyRangeMode)?;
            // Pattern chroma blits take destination keys only (line 21245).
            if kind.source == SourceFrom::None && mode & 1 == 1 && mode & 0b100 == 0 {
                return None;
            }
            Some(Chroma {
                mode,
                low: color(F::TransparencyColorLow),
                high: color(F::TransparencyColorHigh),
                depth: field(c, dw, F::ColorDepth)?,
            })
        } else {
            None
        };
        let clip_on = clipping;
        let rect = if clip_on {
            rect.intersect(&setup.clip)
        } else {
            rect
        };
        // A colour source starts at the moved rectangle's corner.
        let source = match source {
            Source::Color(s, sx, sy) => Source::Color(s, sx + rect.x1, sy + rect.y1),
            other => other,
        };
        Some((!rect.is_empty()).then_some(Expanded {
            dst,
            rect,
            origin,
            width,
            raster,
            pattern,
            seed,
            source,
            chroma,
            bottom_up,
        }))
    }

    /// An 8x8 colour pattern: read from linear memory when the ROP uses it.
    fn color_pattern(&self, raster: Raster, base: u64) -> Pattern {
        if raster.uses_pattern() {
            Pattern::ColorAt(base, 64 * raster.cpp)
        } else {
            Pattern::None
        }
    }

    /// Draws an expanded blit scan line by scan line.
    pub(super) fn run_expanded<B: MemoryBus>(
        &self,
        at: &Access<'_, B>,
        e: &Expanded,
    ) -> Result<(), BlitError> {
        // A pattern in memory is read once, before the first pixel.
        let read;
        let pattern = match &e.pattern {
            Pattern::ColorAt(base, n) => {
                let mut p = vec![0u8; *n];
                at.read_line(&linear_at(*base), 0, 0, &mut p)?;
                read = Pattern::Color(p);
                &read
            }
            p => p,
        };
        let cpp = e.raster.cpp;
        let w = (e.rect.x2 - e.rect.x1) as usize;
        let mut d = vec![0u8; w * cpp];
        let mut s = vec![0u8; w * cpp];
        let mut bits = Vec::new();
        let lines = e.rect.y2 - e.rect.y1;
        for n in 0..lines {
            let r = if e.bottom_up { lines - 1 - n } else { n };
            let y = e.rect.y1 + r;
            let dx = e.rect.x1 * cpp as i64;
            at.read_line(&e.dst, dx, y, &mut d)?;
            match &e.source {
                Source::Color(src, sx, sy) => at.read_line(src, sx * cpp as i64, sy + r, &mut s)?,
                Source::Mono { data, packing, .. } => {
                    self.mono_line(at, data, *packing, e, y, &mut bits)?
                }
                Source::None => {}
            }
            for k in 0..w {
                let x = e.rect.x1 + k as i64;
                let px = k * cpp..(k + 1) * cpp;
                let old = pixel(&d[px.clone()]);
                let (sv, s_write) = match &e.source {
                    Source::None => (0, true),
                    Source::Color(..) => (pixel(&s[px.clone()]), true),
                    Source::Mono {
                        fg,
                        bg,
                        transparent,
                        ..
                    } => {
                        let on = bits[(x - e.rect.x1) as usize];
                        (if on { *fg } else { *bg }, on || !transparent)
                    }
                };
                let (pv, p_write) = self.pattern_at(pattern, e, x, y);
                let keyed = e.chroma.is_some_and(|ch| !ch.passes(sv, old));
                if !s_write || !p_write || keyed {
                    continue;
                }
                let (p, sb) = (pv.to_le_bytes(), sv.to_le_bytes());
                for (b, byte) in d[px].iter_mut().enumerate() {
                    if e.raster.writes[b] {
                        *byte = rop3(e.raster.rop, p[b], sb[b], *byte);
                    }
                }
            }
            at.write_line(&e.dst, dx, y, &d)?;
        }
        Ok(())
    }

    /// The pattern colour at destination (x, y) and whether the pixel may be
    /// written (mono pattern transparency).
    fn pattern_at(&self, p: &Pattern, e: &Expanded, x: i64, y: i64) -> (u32, bool) {
        let col = (x + e.seed.0).rem_euclid(8) as usize;
        let row = (y + e.seed.1).rem_euclid(8) as usize;
        match p {
            Pattern::Color(data) => {
                let cpp = e.raster.cpp;
                let at = (row * 8 + col) * cpp;
                (pixel(&data[at..at + cpp]), true)
            }
            Pattern::Mono {
                bits,
                fg,
                bg,
                transparent,
            } => {
                let on = (bits >> (row * 8)) as u8 >> (7 - col) & 1 == 1;
                (if on { *fg } else { *bg }, on || !transparent)
            }
            _ => (0, true),
        }
    }

    /// The monochrome bits of destination line `y`, one per pixel of the
    /// drawn rectangle.
    fn mono_line<B: MemoryBus>(
        &self,
        at: &Access<'_, B>,
        data: &MonoData,
        packing: Packing,
        e: &Expanded,
        y: i64,
        out: &mut Vec<bool>,
    ) -> Result<(), BlitError> {
        let line = y - e.origin.1;
        let start = mono_line_start(packing, e.width, line);
        let first = start + (e.rect.x1 - e.origin.0) as u64;
        let w = (e.rect.x2 - e.rect.x1) as u64;
        let (lo, hi) = (first / 8, (first + w).div_ceil(8));
        let mut bytes = vec![0u8; (hi - lo) as usize];
        match data {
            MonoData::Memory(base) => at.read_line(&linear_at(*base), lo as i64, 0, &mut bytes)?,
            MonoData::Immediate(imm) => {
                for (k, b) in bytes.iter_mut().enumerate() {
                    *b = imm.get(lo as usize + k).copied().unwrap_or(0);
                }
            }
        }
        out.clear();
        out.extend((0..w).map(|k| bit(&bytes, first - lo * 8 + k)));
        Ok(())
    }
}

/// XY_MONO_PAT_FIXED_BLT's patterns by Fixed Pattern code (lines
/// 21700-21918), scan line 0 first, pixel 0 in bit 7 (the mono pattern
/// memory format, lines 21674-21690). Codes 6, 7 and 12-15 are reserved.
const FIXED_PATTERNS: [(u64, [u8; 8]); 10] = [
    (0, [0x00, 0x00, 0x00, 0xff, 0x00, 0x00, 0x00, 0x00]), // HS_HORIZONTAL
    (1, [0x08; 8]),                                        // HS_VERTICAL
    (2, [0x80, 0x40, 0x20, 0x10, 0x08, 0x04, 0x02, 0x01]), // HS_FDIAGONAL
    (3, [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80]), // HS_BDIAGONAL
    (4, [0x08, 0x08, 0x08, 0xff, 0x08, 0x08, 0x08, 0x08]), // HS_CROSS
    (5, [0x81, 0x42, 0x24, 0x18, 0x18, 0x24, 0x42, 0x81]), // HS_DIAGCROSS
    (8, [0x55, 0xaa, 0x55, 0xaa, 0x55, 0xaa, 0x55, 0xaa]), // screen door
    (9, [0xcc, 0x33, 0xcc, 0x33, 0xcc, 0x33, 0xcc, 0x33]), // SD wide
    (10, [0x88, 0x44, 0x22, 0x11, 0x88, 0x44, 0x22, 0x11]), // walking bit
    (11, [0x77, 0xbb, 0xdd, 0xee, 0x77, 0xbb, 0xdd, 0xee]), // walking zero
];

/// The 64 pattern bits of a fixed pattern code; `None` for a reserved one.
fn fixed_pattern(code: u64) -> Option<u64> {
    FIXED_PATTERNS
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, rows)| u64::from_le_bytes(*rows))
}

/// First bit of mono scan line `line` of a `width`-pixel rectangle.
fn mono_line_start(packing: Packing, width: i64, line: i64) -> u64 {
    let (w, line) = (width as u64, line as u64);
    match packing {
        Packing::Words { first_bit } => line * (first_bit + w).div_ceil(16) * 16 + first_bit,
        Packing::Bits => line * w,
        Packing::Bytes => line * w.div_ceil(8) * 8,
    }
}

/// Linear bytes from `base` (patterns and mono sources have no pitch).
fn linear_at(base: u64) -> Surface {
    Surface {
        base,
        pitch: 0,
        tiling: Tiling::Linear,
        swizzle: false,
    }
}

/// A pixel's bytes as a little-endian colour.
fn pixel(bytes: &[u8]) -> u32 {
    bytes.iter().rev().fold(0, |acc, &b| (acc << 8) | b as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mono_scan_lines_start_where_their_packing_says() {
        // Word aligned: 10 pixels from bit 3 take 13 bits, one word per line.
        let words = Packing::Words { first_bit: 3 };
        assert_eq!(mono_line_start(words, 10, 2), 2 * 16 + 3);
        // 14 pixels from bit 3 take 17 bits: two words per line.
        assert_eq!(mono_line_start(words, 14, 1), 32 + 3);
        assert_eq!(mono_line_start(Packing::Bits, 10, 3), 30);
        assert_eq!(mono_line_start(Packing::Bytes, 10, 3), 48);
    }

    #[test]
    fn chroma_ranges_compare_each_component() {
        let key = |mode, depth| Chroma {
            mode,
            low: 0x1010_1010,
            high: 0x2020_2020,
            depth,
        };
        // 32 bpp RGB: inside when R, G and B are; alpha ignored.
        let inside = 0xff18_1418;
        let outside = 0x0018_3018;
        assert!(key(0b111, 3).passes(0, inside) && !key(0b111, 3).passes(0, outside));
        assert!(
            !key(0b101, 3).passes(0, inside),
            "ARGB: alpha 0xff is outside"
        );
        assert!(!key(0b001, 3).passes(inside, 0) && key(0b001, 3).passes(outside, 0));
        assert!(key(0b000, 3).passes(inside, inside), "no key");
        // 565: R 4:0 of 15:11, G 10:5, B 4:0.
        let k = Chroma {
            mode: 0b111,
            low: (2 << 11) | (4 << 5) | 2,
            high: (3 << 11) | (5 << 5) | 3,
            depth: 1,
        };
        assert!(k.passes(0, (3 << 11) | (4 << 5) | 2));
        assert!(!k.passes(0, (3 << 11) | (6 << 5) | 2));
    }

    #[test]
    fn fixed_patterns_put_scan_line_zero_in_the_low_byte() {
        assert_eq!(fixed_pattern(0), Some(0xff << 24));
        assert_eq!(fixed_pattern(2).map(|b| b as u8), Some(0x80));
        assert_eq!(fixed_pattern(6), None);
        assert_eq!(fixed_pattern(15), None);
    }
}
