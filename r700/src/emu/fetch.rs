//! Vertex and texture fetch through resource and sampler descriptors.
//!
//! The manual leaves the descriptors to the register guide (002 table 2.8, lines 566-575);
//! the words here follow Linux radeon `r600d.h` / Mesa `r600d.h` (SQ_VTX_CONSTANT_WORD0-6,
//! SQ_TEX_RESOURCE_WORD0-6, SQ_TEX_SAMPLER_WORD0), with the emulator's memory map for the
//! base address (buffer index in bits 39:32, see [`super::address`]).

use alloc::format;
use alloc::string::String;

use super::Memory;
use super::float::b;
use crate::{bit, field};

/// SQ_VTX_CONSTANT_WORD0-6. WORD0 BASE_ADDRESS `[31:0]`; WORD1 SIZE (bytes - 1); WORD2
/// BASE_ADDRESS_HI `[7:0]`, STRIDE `[18:8]`, CLAMP_X 19, DATA_FORMAT `[25:20]`,
/// NUM_FORMAT_ALL `[27:26]`, FORMAT_COMP_ALL 28, SRF_MODE_ALL 29, ENDIAN_SWAP `[31:30]`;
/// WORD6 TYPE `[31:30]` = 3 (SQ_TEX_VTX_VALID_BUFFER).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VtxResource(pub [u32; 7]);

impl VtxResource {
    /// A valid buffer: `size` bytes at `address`, `stride` bytes per index; the format
    /// fields (used with USE_CONST_FIELDS) are DATA_FORMAT `format`, NUM_FORMAT `num`.
    pub fn buffer(address: u64, size: u32, stride: u32, format: u8, num: u8) -> Self {
        let mut w = [0; 7];
        w[0] = address as u32;
        w[1] = size.wrapping_sub(1);
        w[2] = (address >> 32) as u32 & 0xFF
            | (stride & 0x7FF) << 8
            | (format as u32 & 0x3F) << 20
            | (num as u32 & 3) << 26;
        w[6] = 3 << 30;
        VtxResource(w)
    }
    fn address(&self) -> u64 {
        (field(self.0[2], 0, 7) as u64) << 32 | self.0[0] as u64
    }
    fn size(&self) -> u64 {
        self.0[1] as u64 + 1
    }
    fn stride(&self) -> u64 {
        field(self.0[2], 8, 18) as u64
    }
}

/// SQ_TEX_RESOURCE_WORD0-6. WORD0 DIM `[2:0]`, TILE_MODE `[6:3]`, PITCH `[18:8]` (texels
/// over 8, minus one), TEX_WIDTH `[31:19]` (minus one); WORD1 TEX_HEIGHT `[12:0]` (minus
/// one), TEX_DEPTH `[25:13]`,
/// DATA_FORMAT `[31:26]`; WORD2 BASE_ADDRESS (address >> 8); WORD4 FORMAT_COMP_X-W
/// `[7:0]`, NUM_FORMAT_ALL `[9:8]`, ENDIAN_SWAP `[13:12]`, DST_SEL_X-W `[27:16]`; WORD6
/// TYPE `[31:30]` = 2 (SQ_TEX_VTX_VALID_TEXTURE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexResource(pub [u32; 7]);

impl TexResource {
    /// A linear 1D (`dim` 0, height 1) or 2D (`dim` 1) texture of `[width, height]` at a
    /// 256-byte aligned `address`, pitch in texels (a multiple of 8), identity DST_SEL.
    pub fn linear(
        dim: u8,
        address: u64,
        [width, height]: [u32; 2],
        pitch: u32,
        format: u8,
        num: u8,
        signed: bool,
    ) -> Self {
        let mut w = [0; 7];
        w[0] = dim as u32 & 7
            | ((pitch / 8).wrapping_sub(1) & 0x7FF) << 8
            | (width.wrapping_sub(1) & 0x1FFF) << 19;
        w[1] = height.wrapping_sub(1) & 0x1FFF | (format as u32 & 0x3F) << 26;
        w[2] = (address >> 8) as u32;
        let comp = if signed { 0x55 } else { 0 };
        w[4] = comp | (num as u32 & 3) << 8 | (1 << 3 | 2 << 6 | 3 << 9) << 16;
        w[6] = 2 << 30;
        TexResource(w)
    }
}

/// SQ_TEX_SAMPLER_WORD0-2 (Mesa r600d.h R_03C000_SQ_TEX_SAMPLER_WORD0_0): CLAMP_X/Y/Z `[2:0]`/`[5:3]`/`[8:6]` (0 WRAP,
/// 1 MIRROR, 2 CLAMP_LAST_TEXEL, 6 CLAMP_BORDER, ...), XY_MAG_FILTER `[11:9]`,
/// XY_MIN_FILTER `[14:12]` (0 POINT, 1 BILINEAR).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampler(pub [u32; 3]);

impl Sampler {
    /// Point filtering, one CLAMP mode on every axis.
    pub fn point(clamp: u8) -> Self {
        let c = clamp as u32 & 7;
        Sampler([c | c << 3 | c << 6, 0, 0])
    }

    /// Bilinear filtering (XY_MAG_FILTER and XY_MIN_FILTER 1), one CLAMP mode.
    pub fn bilinear(clamp: u8) -> Self {
        let c = clamp as u32 & 7;
        Sampler([c | c << 3 | c << 6 | 1 << 9 | 1 << 12, 0, 0])
    }
}

/// How one format stores its components: bits per component and count, float or not.
struct Layout {
    bits: u32,
    count: usize,
    float: bool,
}

/// The FMT_* values both fetch kinds use (002 lines 8319-8352; the same numbers as
/// r600d.h V_038004_COLOR_*). Only the plain ones: packed and compressed formats are not
/// emulated.
fn layout(fmt: u8) -> Option<Layout> {
    let (bits, count, float) = match fmt {
        1 => (8, 1, false),
        5 => (16, 1, false),
        6 => (16, 1, true),
        7 => (8, 2, false),
        13 => (32, 1, false),
        14 => (32, 1, true),
        15 => (16, 2, false),
        16 => (16, 2, true),
        26 => (8, 4, false),
        29 => (32, 2, false),
        30 => (32, 2, true),
        31 => (16, 4, false),
        32 => (16, 4, true),
        34 => (32, 4, false),
        35 => (32, 4, true),
        47 => (32, 3, false),
        48 => (32, 3, true),
        _ => return None,
    };
    Some(Layout { bits, count, float })
}

fn half_to_f32(h: u32) -> f32 {
    let s = (h >> 15) & 1;
    let e = (h >> 10) & 0x1F;
    let m = h & 0x3FF;
    let v = if e == 0 {
        m as f32 * (1.0 / 16_777_216.0)
    } else if e == 31 {
        if m == 0 { f32::INFINITY } else { f32::NAN }
    } else {
        f32::from_bits((e + 112) << 23 | m << 13)
    };
    if s == 1 { -v } else { v }
}

/// Converts raw components to GPR dwords: NUM_FORMAT 0 NORM ([0,1] or [-1,1] floats),
/// 1 INT (the integer), 2 SCALED (the integer as a float) (002 lines 8455-8460);
/// missing components read (0, 0, 0, 1).
fn convert(raw: [u32; 4], l: &Layout, num: u8, signed: bool) -> [u32; 4] {
    let mut out = [0, 0, 0, b(1.0)];
    if num == 1 && !l.float {
        out[3] = 1;
    }
    for c in 0..l.count {
        let r = raw[c];
        out[c] = if l.float {
            if l.bits == 16 { b(half_to_f32(r)) } else { r }
        } else if l.bits == 32 && num == 1 {
            r
        } else {
            let max = ((1u64 << (l.bits - signed as u32)) - 1) as f32;
            let v = if signed {
                ((r << (32 - l.bits)) as i32 >> (32 - l.bits)) as f32
            } else {
                r as f32
            };
            match num {
                0 => b(if signed { (v / max).max(-1.0) } else { v / max }),
                1 => {
                    if signed {
                        ((r << (32 - l.bits)) as i32 >> (32 - l.bits)) as u32
                    } else {
                        r
                    }
                }
                _ => b(v),
            }
        };
    }
    out
}

/// Reads one element's components; `None` if any byte is outside the buffers.
fn load(mem: &Memory, addr: u64, l: &Layout, endian: u8) -> Option<[u32; 4]> {
    let bytes = (l.bits / 8) as usize * l.count;
    let mut buf = [0u8; 16];
    if !mem.read(addr, &mut buf[..bytes]) {
        return None;
    }
    // ENDIAN_SWAP 1: bytes swapped in 16-bit units, 2: in 32-bit units (8480-8484).
    match endian {
        1 => buf[..bytes].chunks_exact_mut(2).for_each(|c| c.swap(0, 1)),
        2 => buf[..bytes].chunks_exact_mut(4).for_each(|c| c.reverse()),
        _ => {}
    }
    let mut raw = [0u32; 4];
    let step = (l.bits / 8) as usize;
    for (c, r) in raw.iter_mut().enumerate().take(l.count) {
        let mut v = 0u32;
        for k in (0..step).rev() {
            v = v << 8 | buf[c * step + k] as u32;
        }
        *r = v;
    }
    Some(raw)
}

/// A destination select: 0-3 a component, 4 0.0, 5 1.0, 7 masked (002 lines 8380-8397).
pub fn select(v: [u32; 4], sel: u8) -> Option<u32> {
    match sel {
        0..=3 => Some(v[sel as usize]),
        4 => Some(0),
        5 => Some(b(1.0)),
        _ => None,
    }
}

/// VTX_FETCH: the element at index `idx` (002 chapter 5, lines 2087-2115).
pub fn vertex(
    mem: &Memory,
    res: &VtxResource,
    v: &crate::fetch::VtxInst,
    idx: u32,
) -> Result<[u32; 4], String> {
    if res.0[6] >> 30 != 3 {
        return Err(format!(
            "vertex resource {} is not a valid buffer",
            v.buffer_id
        ));
    }
    let (fmt, num, signed, endian) = if v.use_const_fields {
        let w = res.0[2];
        (
            field(w, 20, 25) as u8,
            field(w, 26, 27) as u8,
            bit(w, 28),
            field(w, 30, 31) as u8,
        )
    } else {
        (
            v.data_format,
            v.num_format_all,
            v.format_comp_all,
            v.endian_swap,
        )
    };
    let l = layout(fmt).ok_or_else(|| format!("vertex format {fmt} is not emulated"))?;
    let bytes = (l.bits / 8) as u64 * l.count as u64;
    let off = idx as u64 * res.stride() + v.offset as u64;
    // Past the buffer's SIZE: zeros (what the fetch unit returns out of bounds).
    if off + bytes > res.size() {
        return Ok(convert([0; 4], &l, num, signed));
    }
    Ok(match load(mem, res.address() + off, &l, endian) {
        Some(raw) => convert(raw, &l, num, signed),
        None => convert([0; 4], &l, num, signed),
    })
}

/// Texel-index wrap for CLAMP_X/Y (r600d.h V_03C000_SQ_TEX_WRAP = 0, MIRROR 1,
/// CLAMP_LAST_TEXEL 2, MIRROR_ONCE_LAST_TEXEL 3, CLAMP_BORDER 6): `None` is the border.
fn wrap(i: i64, n: i64, mode: u8) -> Result<Option<i64>, String> {
    Ok(match mode {
        0 => Some(i.rem_euclid(n)),
        1 => {
            let p = i.rem_euclid(2 * n);
            Some(if p < n { p } else { 2 * n - 1 - p })
        }
        2 => Some(i.clamp(0, n - 1)),
        // MIRROR_ONCE_LAST_TEXEL: mirrored about 0 once, then clamped.
        3 => Some((if i < 0 { -1 - i } else { i }).min(n - 1)),
        6 => (0..n).contains(&i).then_some(i),
        m => return Err(format!("sampler clamp mode {m} is not emulated")),
    })
}

/// LD (unfiltered, integer texel coordinates) and SAMPLE* (point or bilinear filtering,
/// level 0) on linear 1D and 2D textures. `coord` is the source after SRC_SEL.
pub fn texture(
    mem: &Memory,
    res: &TexResource,
    sampler: Option<&Sampler>,
    t: &crate::fetch::TexInst,
    coord: [u32; 4],
) -> Result<[u32; 4], String> {
    let w = res.0;
    if w[6] >> 30 != 2 {
        return Err(format!(
            "texture resource {} is not a valid texture",
            t.resource_id
        ));
    }
    let dim = field(w[0], 0, 2);
    if dim > 1 {
        return Err(format!(
            "texture dimension {dim} is not emulated (1D and 2D are)"
        ));
    }
    if field(w[0], 3, 6) > 1 {
        return Err("tiled textures are not emulated (linear only)".into());
    }
    let width = field(w[0], 19, 31) as i64 + 1;
    let height = if dim == 0 {
        1
    } else {
        field(w[1], 0, 12) as i64 + 1
    };
    let pitch = (field(w[0], 8, 18) as i64 + 1) * 8;
    let fmt = field(w[1], 26, 31) as u8;
    let l = layout(fmt).ok_or_else(|| format!("texture format {fmt} is not emulated"))?;
    let num = field(w[4], 8, 9) as u8;
    let signed = field(w[4], 0, 1) == 1;
    let endian = field(w[4], 12, 13) as u8;
    let base = (w[2] as u64) << 8;
    // Texel offsets: 5-bit signed (002 lines 8590-8600).
    let off = |o: u8| ((o << 3) as i8 >> 3) as i64;
    let (ox, oy) = (off(t.offset[0]), off(t.offset[1]) * dim as i64);
    let texel_bytes = (l.bits / 8) as u64 * l.count as u64;
    let at = |x: i64, y: i64| {
        let raw = load(
            mem,
            base + ((y * pitch + x) as u64) * texel_bytes,
            &l,
            endian,
        );
        convert(raw.unwrap_or([0; 4]), &l, num, signed)
    };
    let v = if t.op == 3 {
        let (x, y) = (coord[0] as i32 as i64 + ox, coord[1] as i32 as i64 + oy);
        // LD out of range: zeros.
        if !(0..width).contains(&x) || !(0..height).contains(&y) {
            return Ok([0; 4]);
        }
        at(x, y)
    } else {
        let s = sampler
            .ok_or_else(|| format!("sampler {} is not bound", t.sampler_id))?
            .0[0];
        let (wx, wy) = (field(s, 0, 2) as u8, field(s, 3, 5) as u8);
        // Border colour: transparent black (TD_PS_BORDER_COLOR_* is not modelled).
        let wrapped = |x: i64, y: i64| -> Result<[u32; 4], String> {
            Ok(match (wrap(x, width, wx)?, wrap(y, height, wy)?) {
                (Some(x), Some(y)) => at(x, y),
                _ => [0; 4],
            })
        };
        // Texel-space coordinate: normalised ones scale by the size (COORD_TYPE).
        let texel = |c: usize, n: i64| {
            let v = f32::from_bits(coord[c]);
            let v = if t.coord_type[c] { v * n as f32 } else { v };
            // Far outside any texture: keep the index arithmetic small.
            if v.is_nan() {
                0.0
            } else {
                v.clamp(-1e12, 1e12)
            }
        };
        let (u, w2) = (
            texel(0, width),
            if dim == 0 { 0.5 } else { texel(1, height) },
        );
        // Level 0 only, so the magnification filter applies (XY_MAG_FILTER).
        match field(s, 9, 11) {
            0 => wrapped(libm::floorf(u) as i64 + ox, libm::floorf(w2) as i64 + oy)?,
            1 => {
                if num == 1 && !l.float {
                    return Err("bilinear filtering of an integer format".into());
                }
                // Bilinear: the four texels around (u - 0.5, v - 0.5), weights exact in f32.
                let (fu, fv) = (u - 0.5, w2 - 0.5);
                let (x0, y0) = (libm::floorf(fu), libm::floorf(fv));
                let (a, b2) = (fu - x0, if dim == 0 { 0.0 } else { fv - y0 });
                let (x0, y0) = (x0 as i64 + ox, y0 as i64 + oy);
                let q = [
                    wrapped(x0, y0)?,
                    wrapped(x0 + 1, y0)?,
                    wrapped(x0, y0 + 1)?,
                    wrapped(x0 + 1, y0 + 1)?,
                ];
                let mut r = [0u32; 4];
                for (c, o) in r.iter_mut().enumerate() {
                    let f = |k: usize| f32::from_bits(q[k][c]);
                    let top = f(0) + (f(1) - f(0)) * a;
                    let bottom = f(2) + (f(3) - f(2)) * a;
                    *o = b(top + (bottom - top) * b2);
                }
                r
            }
            m => {
                return Err(format!(
                    "texture filter {m} is not emulated (point, bilinear are)"
                ));
            }
        }
    };
    // SAMPLE_C*: the reference in src.W against the texel's X with the sampler's
    // DEPTH_COMPARE_FUNCTION (r600d.h S_03C000_DEPTH_COMPARE_FUNCTION [28:26]: never, less,
    // equal, less-equal, greater, not-equal, greater-equal, always); 1.0 or 0.0.
    let v = if (24..=31).contains(&t.op) {
        let func = sampler.map_or(0, |s| field(s.0[0], 26, 28));
        let (r, d) = (f32::from_bits(coord[3]), f32::from_bits(v[0]));
        let pass = match func {
            0 => false,
            1 => r < d,
            2 => r == d,
            3 => r <= d,
            4 => r > d,
            5 => r != d,
            6 => r >= d,
            _ => true,
        };
        [b(if pass { 1.0 } else { 0.0 }); 4]
    } else {
        v
    };
    // The resource's DST_SEL, then the instruction's (applied by the caller).
    let mut out = [0; 4];
    for (c, o) in out.iter_mut().enumerate() {
        let s = field(w[4], 16 + 3 * c as u32, 18 + 3 * c as u32) as u8;
        *o = select(v, s).unwrap_or(0);
    }
    Ok(out)
}

/// GET_TEXTURE_RESINFO: width, height, depth, levels as integers (002 lines 7060-7075).
pub fn resinfo(res: &TexResource) -> [u32; 4] {
    let w = res.0;
    [
        field(w[0], 19, 31) + 1,
        field(w[1], 0, 12) + 1,
        field(w[1], 13, 25) + 1,
        field(w[5], 0, 3) + 1,
    ]
}
