//! Render targets: which surfaces the model writes, where a slot's pixel
//! is, and the render-target formats ([`RtFormat`]): how the message's
//! colour becomes a stored pixel and how a stored pixel reads back for
//! blending and logic ops. The data port's direct write ([`Target`]) and
//! the output merger (`render3d::om`) share them.
//!
//! Formats: the codes of the surface format table (003 lines
//! 76420-76960), those marked render-target capable that this model takes.
//! Channels are packed from bit 0 in the order the name lists them:
//! B8G8R8A8 puts blue in the lowest byte (003 line 31552, printed there as
//! "R8G8R8A8": component 0 is B), B5G6R5 blue in bits 4:0 [ext: mesa
//! src/intel/isl/isl_format_layout.csv, channels listed from bit 0].
//!
//! Conversion of a message value to a channel (003 lines 44889-44990):
//! - UNORM: clamped to [0, 1], scaled by 2^n - 1 and rounded to the
//!   nearest integer (the quantisation is implementation specific, 003
//!   lines 45144-45145: ties round up here; NaN stores 0, the D3D rule).
//!   SNORM alike on [-1, 1] with 2^(n-1) - 1.
//! - UINT, SINT: "an implied clamp to the rendertarget surface format"
//!   (003 lines 44987-44989).
//! - FLOAT: 32-bit channels as sent; 16-bit and the 11/10-bit channels of
//!   R11G11B10_FLOAT rounded to nearest even (the small floats have no
//!   sign: negative values store 0) [ext: the D3D10 float rules, also
//!   mesa src/util/format_r11g11b10f.h].
//! - *_SRGB: RGB encoded by the sRGB curve before quantisation (003 lines
//!   45336-45345 "gamma-corrected ... whenever the destination surface
//!   has an SRGB format"; the curve is the standard sRGB one, as mesa
//!   src/util/format_srgb.h).

use super::super::super::payload::bad;
use super::super::super::surface::{Surface, SurfaceKind, Tiling, format};
use super::super::super::{BTI_STATELESS, MessageEnv};
use crate::eu::send::SendError;

/// Pixel of `slot` in a subspan whose upper-left corner is packed as the
/// header packs it: X in 15:0, Y in 31:16 (000 lines 5010-5017; 003 lines
/// 85173-85192). Pixels 0-3 of a subspan are UL, UR, LL, LR (003 lines
/// 84876-84882).
pub(crate) fn pixel_xy(corner: u32, slot: usize) -> (u32, u32) {
    let pix = (slot % 4) as u32;
    ((corner & 0xFFFF) + (pix & 1), (corner >> 16) + (pix >> 1))
}

/// How a format's channels are coded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Unorm,
    Snorm,
    Float,
    Uint,
    Sint,
}

/// One stored channel: which colour channel (0 R .. 3 A; 4 an unused X
/// channel) and its width; positions follow from the order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Chan {
    src: u8,
    bits: u8,
}

const R: u8 = 0;
const G: u8 = 1;
const B: u8 = 2;
const A: u8 = 3;
const X: u8 = 4;

const fn c(src: u8, bits: u8) -> Chan {
    Chan { src, bits }
}

/// (code, class, sRGB, channels from bit 0).
type Entry = (u32, Class, bool, &'static [Chan]);

use Class::{Float as F, Sint as S, Snorm as SN, Uint as U, Unorm as UN};

/// Render-target formats, codes from 003 lines 76420-76960.
const TABLE: &[Entry] = &[
    (0x000, F, false, &[c(R, 32), c(G, 32), c(B, 32), c(A, 32)]),
    (0x001, S, false, &[c(R, 32), c(G, 32), c(B, 32), c(A, 32)]),
    (0x002, U, false, &[c(R, 32), c(G, 32), c(B, 32), c(A, 32)]),
    (0x040, F, false, &[c(R, 32), c(G, 32), c(B, 32)]),
    (0x041, S, false, &[c(R, 32), c(G, 32), c(B, 32)]),
    (0x042, U, false, &[c(R, 32), c(G, 32), c(B, 32)]),
    (0x080, UN, false, &[c(R, 16), c(G, 16), c(B, 16), c(A, 16)]),
    (0x081, SN, false, &[c(R, 16), c(G, 16), c(B, 16), c(A, 16)]),
    (0x082, S, false, &[c(R, 16), c(G, 16), c(B, 16), c(A, 16)]),
    (0x083, U, false, &[c(R, 16), c(G, 16), c(B, 16), c(A, 16)]),
    (0x084, F, false, &[c(R, 16), c(G, 16), c(B, 16), c(A, 16)]),
    (0x085, F, false, &[c(R, 32), c(G, 32)]),
    (0x086, S, false, &[c(R, 32), c(G, 32)]),
    (0x087, U, false, &[c(R, 32), c(G, 32)]),
    (0x0C0, UN, false, &[c(B, 8), c(G, 8), c(R, 8), c(A, 8)]),
    (0x0C1, UN, true, &[c(B, 8), c(G, 8), c(R, 8), c(A, 8)]),
    (0x0C2, UN, false, &[c(R, 10), c(G, 10), c(B, 10), c(A, 2)]),
    (0x0C3, UN, true, &[c(R, 10), c(G, 10), c(B, 10), c(A, 2)]),
    (0x0C4, U, false, &[c(R, 10), c(G, 10), c(B, 10), c(A, 2)]),
    (0x0C7, UN, false, &[c(R, 8), c(G, 8), c(B, 8), c(A, 8)]),
    (0x0C8, UN, true, &[c(R, 8), c(G, 8), c(B, 8), c(A, 8)]),
    (0x0C9, SN, false, &[c(R, 8), c(G, 8), c(B, 8), c(A, 8)]),
    (0x0CA, S, false, &[c(R, 8), c(G, 8), c(B, 8), c(A, 8)]),
    (0x0CB, U, false, &[c(R, 8), c(G, 8), c(B, 8), c(A, 8)]),
    (0x0CC, UN, false, &[c(R, 16), c(G, 16)]),
    (0x0CD, SN, false, &[c(R, 16), c(G, 16)]),
    (0x0CE, S, false, &[c(R, 16), c(G, 16)]),
    (0x0CF, U, false, &[c(R, 16), c(G, 16)]),
    (0x0D0, F, false, &[c(R, 16), c(G, 16)]),
    (0x0D1, UN, false, &[c(B, 10), c(G, 10), c(R, 10), c(A, 2)]),
    (0x0D2, UN, true, &[c(B, 10), c(G, 10), c(R, 10), c(A, 2)]),
    (0x0D3, F, false, &[c(R, 11), c(G, 11), c(B, 10)]),
    (0x0D6, S, false, &[c(R, 32)]),
    (0x0D7, U, false, &[c(R, 32)]),
    (0x0D8, F, false, &[c(R, 32)]),
    (0x0E9, UN, false, &[c(B, 8), c(G, 8), c(R, 8), c(X, 8)]),
    (0x100, UN, false, &[c(B, 5), c(G, 6), c(R, 5)]),
    (0x102, UN, false, &[c(B, 5), c(G, 5), c(R, 5), c(A, 1)]),
    (0x104, UN, false, &[c(B, 4), c(G, 4), c(R, 4), c(A, 4)]),
    (0x106, UN, false, &[c(R, 8), c(G, 8)]),
    (0x107, SN, false, &[c(R, 8), c(G, 8)]),
    (0x108, S, false, &[c(R, 8), c(G, 8)]),
    (0x109, U, false, &[c(R, 8), c(G, 8)]),
    (0x10A, UN, false, &[c(R, 16)]),
    (0x10B, SN, false, &[c(R, 16)]),
    (0x10C, S, false, &[c(R, 16)]),
    (0x10D, U, false, &[c(R, 16)]),
    (0x10E, F, false, &[c(R, 16)]),
    (0x140, UN, false, &[c(R, 8)]),
    (0x141, SN, false, &[c(R, 8)]),
    (0x142, S, false, &[c(R, 8)]),
    (0x143, U, false, &[c(R, 8)]),
    (0x144, UN, false, &[c(A, 8)]),
];

/// A render-target format: how its pixel's bits hold the channels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RtFormat {
    pub code: u32,
    pub class: Class,
    pub srgb: bool,
    chans: &'static [Chan],
}

impl RtFormat {
    pub fn of(code: u32) -> Option<RtFormat> {
        TABLE
            .iter()
            .find(|e| e.0 == code)
            .map(|&(code, class, srgb, chans)| RtFormat {
                code,
                class,
                srgb,
                chans,
            })
    }

    /// Bytes per pixel.
    pub fn bytes(&self) -> usize {
        self.chans
            .iter()
            .map(|c| usize::from(c.bits))
            .sum::<usize>()
            / 8
    }

    /// Width of colour channel `ch`, 0 when not stored.
    pub fn bits(&self, ch: usize) -> u32 {
        self.chans
            .iter()
            .find(|c| usize::from(c.src) == ch)
            .map_or(0, |c| u32::from(c.bits))
    }

    /// The stored field of each colour channel (R, G, B, A) for the
    /// message values `rgba`, converted by the class (module doc).
    pub fn encode(&self, rgba: [u32; 4]) -> [u32; 4] {
        let mut f = [0u32; 4];
        for (ch, out) in f.iter_mut().enumerate() {
            let bits = self.bits(ch);
            if bits == 0 {
                continue;
            }
            let mut v = rgba[ch];
            if self.srgb && ch < 3 {
                v = srgb_encode(f32::from_bits(v)).to_bits();
            }
            *out = match self.class {
                Class::Unorm => format::encode_channel(format::Kind::Unorm, bits, v),
                Class::Uint => format::encode_channel(format::Kind::Uint, bits, v),
                Class::Sint => {
                    format::encode_channel(format::Kind::Sint, bits, v) & field_mask(bits)
                }
                Class::Snorm => snorm(f32::from_bits(v), bits) & field_mask(bits),
                Class::Float => float_field(f32::from_bits(v), bits),
            };
        }
        f
    }

    /// [`encode`](Self::encode) with colour dithering (003 lines
    /// 45147-45163): a UNORM channel is taken with four bits below its
    /// least significant one, the dither value `d` (0-15, [`dither`]) is
    /// added there and the sum truncated to the channel's bits. Those four
    /// bits are the value's own, truncated (a model choice: the manual
    /// shows the bits but not how they are formed); then a `d` of 8 is the
    /// undithered rounding to nearest. Other classes have no truncated
    /// bits and encode as without dithering.
    pub fn encode_dithered(&self, rgba: [u32; 4], d: u32) -> [u32; 4] {
        if self.class != Class::Unorm {
            return self.encode(rgba);
        }
        let mut f = [0u32; 4];
        for (ch, out) in f.iter_mut().enumerate() {
            let bits = self.bits(ch);
            if bits == 0 {
                continue;
            }
            let mut v = f32::from_bits(rgba[ch]);
            if self.srgb && ch < 3 {
                v = srgb_encode(v);
            }
            // NaN stores 0, as without dithering.
            let v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
            let max = (1u64 << bits) - 1;
            let fixed = (f64::from(v) * max as f64 * 16.0) as u64;
            *out = ((fixed + u64::from(d & 15)) >> 4).min(max) as u32;
        }
        f
    }

    /// The colour a stored pixel holds, as the shader would send it:
    /// floats for UNORM, SNORM and FLOAT (sRGB decoded), integers for
    /// UINT and SINT. Channels the format lacks read 0, alpha 1 (003 lines
    /// 45033-45034: "If there is no alpha value contained in the Color
    /// Buffer, a default value of 1.0 is used").
    pub fn decode(&self, f: [u32; 4]) -> [u32; 4] {
        let int = matches!(self.class, Class::Uint | Class::Sint);
        let mut out = [0, 0, 0, if int { 1 } else { 1.0f32.to_bits() }];
        for (ch, o) in out.iter_mut().enumerate() {
            let bits = self.bits(ch);
            if bits == 0 {
                continue;
            }
            let v = f[ch];
            *o = match self.class {
                Class::Unorm => {
                    let x = (f64::from(v) / ((1u64 << bits) - 1) as f64) as f32;
                    if self.srgb && ch < 3 {
                        srgb_decode(x).to_bits()
                    } else {
                        x.to_bits()
                    }
                }
                Class::Snorm => {
                    let s = sign_extend(v, bits);
                    let max = ((1i64 << (bits - 1)) - 1) as f64;
                    ((f64::from(s) / max).max(-1.0) as f32).to_bits()
                }
                Class::Float => float_value(v, bits).to_bits(),
                Class::Uint => v,
                Class::Sint => sign_extend(v, bits) as u32,
            };
        }
        out
    }

    /// The fields of the pixel in `bytes` (little-endian, `bytes()` long).
    pub fn read_fields(&self, bytes: &[u8]) -> [u32; 4] {
        let mut word = 0u128;
        for (i, b) in bytes.iter().take(16).enumerate() {
            word |= u128::from(*b) << (8 * i);
        }
        let mut f = [0u32; 4];
        let mut at = 0u32;
        for c in self.chans {
            if usize::from(c.src) < 4 {
                f[usize::from(c.src)] = ((word >> at) as u32) & field_mask(u32::from(c.bits));
            }
            at += u32::from(c.bits);
        }
        f
    }

    /// Replaces the fields of the colour channels enabled in `enable`
    /// (bit 0 R .. bit 3 A) in the pixel `bytes`.
    pub fn write_fields(&self, bytes: &mut [u8], f: [u32; 4], enable: u8) {
        let n = self.bytes().min(bytes.len()).min(16);
        let mut word = 0u128;
        for (i, b) in bytes.iter().take(n).enumerate() {
            word |= u128::from(*b) << (8 * i);
        }
        let mut at = 0u32;
        for c in self.chans {
            let ch = usize::from(c.src);
            if ch < 4 && enable >> ch & 1 != 0 {
                let m = u128::from(field_mask(u32::from(c.bits))) << at;
                word = (word & !m) | (u128::from(f[ch]) << at & m);
            }
            at += u32::from(c.bits);
        }
        for (i, b) in bytes.iter_mut().take(n).enumerate() {
            *b = (word >> (8 * i)) as u8;
        }
    }
}

fn field_mask(bits: u32) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1 << bits) - 1
    }
}

fn sign_extend(v: u32, bits: u32) -> i32 {
    if bits >= 32 {
        v as i32
    } else {
        ((v << (32 - bits)) as i32) >> (32 - bits)
    }
}

/// Float to a signed normalised integer of `bits` bits (two's complement
/// in the low bits), clamped to [-1, 1], ties away from zero.
fn snorm(f: f32, bits: u32) -> u32 {
    if f.is_nan() {
        return 0;
    }
    let max = ((1i64 << (bits - 1)) - 1) as f64;
    let scaled = f64::from(f.clamp(-1.0, 1.0)) * max;
    let r = if scaled >= 0.0 {
        libm::floor(scaled + 0.5)
    } else {
        -libm::floor(-scaled + 0.5)
    };
    r as i64 as u32
}

/// The sRGB encoding of a linear value in [0, 1].
/// The dither value of render-target pixel (x, y) with BLEND_STATE's X
/// and Y Dither Offsets: the two low bits of the offset coordinates pick a
/// column (x) and a row (y) of the 4x4 Dither Constant matrix (003 lines
/// 45154-45160, the matrix in Figure 8-1, lines 45195-45209). The text
/// prints the last row as "3 7 13 5"; the matrix holds each of 0-15 once
/// (the ordered-dither pattern), so its first entry is 15, a digit the
/// text dropped.
pub(crate) fn dither(x: u32, y: u32, x_offset: u32, y_offset: u32) -> u32 {
    const MATRIX: [[u32; 4]; 4] = [[0, 8, 2, 10], [12, 4, 14, 6], [3, 11, 1, 9], [15, 7, 13, 5]];
    MATRIX[(y.wrapping_add(y_offset) & 3) as usize][(x.wrapping_add(x_offset) & 3) as usize]
}

fn srgb_encode(x: f32) -> f32 {
    if x.is_nan() {
        return 0.0;
    }
    let x = f64::from(x.clamp(0.0, 1.0));
    let y = if x <= 0.003_130_8 {
        12.92 * x
    } else {
        1.055 * libm::pow(x, 1.0 / 2.4) - 0.055
    };
    y as f32
}

fn srgb_decode(y: f32) -> f32 {
    let y = f64::from(y);
    let x = if y <= 0.040_45 {
        y / 12.92
    } else {
        libm::pow((y + 0.055) / 1.055, 2.4)
    };
    x as f32
}

/// A FLOAT channel of `bits` bits: 32 as sent, 16 IEEE half, 11 and 10
/// the unsigned small floats (5-bit exponent, 6 or 5 mantissa bits).
fn float_field(f: f32, bits: u32) -> u32 {
    match bits {
        32 => f.to_bits(),
        16 => small_float(f, 10, true),
        11 => small_float(f, 6, false),
        _ => small_float(f, 5, false),
    }
}

fn float_value(v: u32, bits: u32) -> f32 {
    match bits {
        32 => f32::from_bits(v),
        16 => small_value(v, 10, true),
        11 => small_value(v, 6, false),
        _ => small_value(v, 5, false),
    }
}

/// f32 to a float with a 5-bit exponent (bias 15) and `man` mantissa
/// bits, with a sign bit above when `signed`; round to nearest even,
/// overflow to infinity, NaN kept as a NaN. Unsigned: negatives give 0.
fn small_float(f: f32, man: u32, signed: bool) -> u32 {
    let bits = f.to_bits();
    let sign = if signed { (bits >> 31) << (man + 5) } else { 0 };
    let exp_max = 0x1F << man;
    if f.is_nan() {
        return sign | exp_max | (1 << (man - 1));
    }
    if !signed && bits >> 31 == 1 {
        return 0;
    }
    if f.is_infinite() {
        return sign | exp_max;
    }
    let a = f64::from(f.abs());
    if a == 0.0 {
        return sign;
    }
    // Smallest normal 2^-14; subnormals step by 2^(-14 - man).
    let e = (libm::floor(libm::log2(a)) as i32).max(-14);
    let step = libm::exp2(f64::from(e - man as i32));
    let q = a / step;
    // Round to nearest even on the exact quotient.
    let fl = libm::floor(q);
    let rem = q - fl;
    let mut m = fl as u64;
    if rem > 0.5 || (rem == 0.5 && m & 1 == 1) {
        m += 1;
    }
    // m counts steps of 2^(e - man): normals have m in [2^man, 2^(man+1)].
    let (mut e, mut m) = (e, m);
    if m >= 1 << (man + 1) {
        m >>= 1;
        e += 1;
    }
    if m < 1 << man {
        // Subnormal (e == -14).
        return sign | m as u32;
    }
    if e > 15 {
        return sign | exp_max;
    }
    sign | (((e + 15) as u32) << man) | (m as u32 & ((1 << man) - 1))
}

fn small_value(v: u32, man: u32, signed: bool) -> f32 {
    let neg = signed && v >> (man + 5) & 1 == 1;
    let e = (v >> man) & 0x1F;
    let m = v & ((1 << man) - 1);
    let mag = if e == 0x1F {
        if m == 0 { f64::INFINITY } else { f64::NAN }
    } else if e == 0 {
        f64::from(m) * libm::exp2(-14.0 - f64::from(man))
    } else {
        (1.0 + f64::from(m) / f64::from(1u32 << man)) * libm::exp2(f64::from(e as i32 - 15))
    };
    (if neg { -mag } else { mag }) as f32
}

/// A render target the data port writes directly (threads without the
/// output merger: media, GPGPU, the harness), as with blending off and
/// every channel enabled.
pub(super) struct Target {
    surface: Surface,
    format: RtFormat,
}

/// Checks that `s` is a surface this model renders to; `None` for
/// SURFTYPE_NULL (writes dropped, 000 line 3090; 003 lines 75483-75490).
/// `replicated` is the replicated-data clear, which linear memory leaves
/// undefined (000 line 4966; 003 lines 84978-84979, 85575).
pub(crate) fn render_surface(s: &Surface, replicated: bool) -> Result<Option<RtFormat>, SendError> {
    if s.kind == SurfaceKind::Null {
        return Ok(None);
    }
    // All surface types are allowed (003 line 84821); this model takes
    // single 2D surfaces only: no array index is applied.
    if s.kind != SurfaceKind::D2 {
        return Err(bad("render-target write: only 2D surfaces are modelled"));
    }
    if s.depth > 1 {
        return Err(bad("render-target write: surface arrays are not modelled"));
    }
    // Field mode is not allowed (000 line 4931; 003 line 84848).
    if s.vertical_line_stride {
        return Err(bad("render-target write to a field-mode surface"));
    }
    if replicated && s.tiling == Tiling::Linear {
        return Err(bad(
            "replicated-data render-target write to linear memory is undefined",
        ));
    }
    RtFormat::of(s.format)
        .map(Some)
        .ok_or(bad("render-target write: surface format not modelled"))
}

impl Target {
    /// The surface at `bti` (see [`render_surface`]).
    pub(super) fn open(
        env: &mut MessageEnv,
        bti: u8,
        replicated: bool,
    ) -> Result<Option<Target>, SendError> {
        // "Binding Table Index cannot be 255" (000 line 4924; 003 line
        // 84839).
        if bti == BTI_STATELESS {
            return Err(bad("render-target write cannot be stateless"));
        }
        let s = env.surface(bti)?;
        if s.samples > 1 {
            // Without the 3D pipeline there is no sample coverage: the
            // output merger (render3d) writes multisampled targets.
            return Err(bad(
                "render-target write to a multisampled surface outside the 3D pipeline",
            ));
        }
        Ok(render_surface(&s, replicated)?.map(|format| Target { surface: s, format }))
    }

    /// Converts `rgba` (the channels as the message sends them) and stores
    /// it at (x, y), or drops it outside the surface.
    pub(super) fn store(
        &self,
        env: &mut MessageEnv,
        x: u32,
        y: u32,
        rgba: [u32; 4],
    ) -> Result<(), SendError> {
        let s = &self.surface;
        if x >= s.width || y >= s.height {
            return Ok(());
        }
        let bpp = self.format.bytes();
        let mut bytes = [0u8; 16];
        let addr = s.address(u64::from(x) * bpp as u64, u64::from(y));
        // Unused X channels keep what memory held.
        if self.format.chans.iter().any(|c| c.src == X) {
            env.mem_read(addr, &mut bytes[..bpp])?;
        }
        self.format
            .write_fields(&mut bytes[..bpp], self.format.encode(rgba), 0xF);
        env.mem_write(addr, &bytes[..bpp])
    }
}
