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

/// SQ_TEX_RESOURCE_WORD0-6 (Mesa r600d.h R_038000..R_038018); the fields are listed and
/// decoded in `texture.rs` (`Surface`).
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

    /// TEX_DEPTH: 3D depth, or the slices of an array or cube map (WORD1 `[25:13]`, minus one).
    pub fn with_depth(mut self, depth: u32) -> Self {
        self.0[1] = self.0[1] & !(0x1FFF << 13) | (depth.wrapping_sub(1) & 0x1FFF) << 13;
        self
    }

    /// A mip chain: levels 1..=`last` at the 256-byte aligned `mip_address` (WORD3
    /// MIP_ADDRESS), BASE_LEVEL `base` (WORD4 `[31:28]`), LAST_LEVEL `last` (WORD5 `[3:0]`).
    pub fn with_mips(mut self, mip_address: u64, base: u8, last: u8) -> Self {
        self.0[3] = (mip_address >> 8) as u32;
        self.0[4] = self.0[4] & 0x0FFF_FFFF | (base as u32 & 0xF) << 28;
        self.0[5] = self.0[5] & !0xF | last as u32 & 0xF;
        self
    }

    /// BASE_ARRAY and LAST_ARRAY (WORD5 `[16:4]`, `[29:17]`).
    pub fn with_array_range(mut self, base: u32, last: u32) -> Self {
        self.0[5] = self.0[5] & 0xC000_000F | (base & 0x1FFF) << 4 | (last & 0x1FFF) << 17;
        self
    }
}

/// SQ_TEX_SAMPLER_WORD0-2 (Mesa r600d.h R_03C000..R_03C008); the fields are listed and
/// decoded in `texture.rs` (`SamplerState`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampler(pub [u32; 3]);

impl Sampler {
    /// Point filtering, one CLAMP mode on every axis, MAX_LOD 0 (Mesa's default word1 for
    /// a sampler without levels is MIN_LOD = MAX_LOD = 0).
    pub fn point(clamp: u8) -> Self {
        let c = clamp as u32 & 7;
        Sampler([c | c << 3 | c << 6, 0, 0])
    }

    /// Bilinear filtering (XY_MAG_FILTER and XY_MIN_FILTER 1), one CLAMP mode.
    pub fn bilinear(clamp: u8) -> Self {
        let c = clamp as u32 & 7;
        Sampler([c | c << 3 | c << 6 | 1 << 9 | 1 << 12, 0, 0])
    }

    /// MIP_FILTER (WORD0 `[18:17]`: 0 NONE, 1 POINT, 2 LINEAR, Mesa r600_tex_mipfilter).
    pub fn with_mip_filter(mut self, m: u8) -> Self {
        self.0[0] = self.0[0] & !(3 << 17) | (m as u32 & 3) << 17;
        self
    }

    /// Z_FILTER (WORD0 `[16:15]`: 0 NONE, 1 POINT, 2 LINEAR).
    pub fn with_z_filter(mut self, m: u8) -> Self {
        self.0[0] = self.0[0] & !(3 << 15) | (m as u32 & 3) << 15;
        self
    }

    /// BORDER_COLOR_TYPE (WORD0 `[23:22]`: 0 transparent black, 1 opaque black, 2 opaque
    /// white, 3 the sampler's border colour registers, [`super::Options::border_colors`]).
    pub fn with_border(mut self, t: u8) -> Self {
        self.0[0] = self.0[0] & !(3 << 22) | (t as u32 & 3) << 22;
        self
    }

    /// MIN_LOD, MAX_LOD (unsigned 4.6) and LOD_BIAS (signed 6.6) as Mesa r600_state.c
    /// encodes them (S_FIXED(v, 6)), in WORD1 `[9:0]`, `[19:10]`, `[31:20]`.
    pub fn with_lod(mut self, min: f32, max: f32, bias: f32) -> Self {
        let fixed = |v: f32| (v * 64.0) as i32 as u32;
        self.0[1] = fixed(min.clamp(0.0, 15.0)) & 0x3FF
            | (fixed(max.clamp(0.0, 15.0)) & 0x3FF) << 10
            | (fixed(bias.clamp(-16.0, 16.0)) & 0xFFF) << 20;
        self
    }
}

/// How one DATA_FORMAT stores its components, with the NUM_FORMAT and per-component sign
/// that convert them.
pub struct Format {
    /// Bits per component, X first from the low bits of the element (Mesa
    /// r600_translate_texformat: util_format channel 0, the low bits, is X for FMT_5_6_5,
    /// FMT_1_5_5_5 and FMT_2_10_10_10, so FMT_* names list components high to low).
    widths: [u32; 4],
    count: usize,
    float: bool,
    num: u8,
    signed: [bool; 4],
}

impl Format {
    /// The FMT_* values both fetch kinds use (002 lines 8319-8352; r600d.h V_038004_COLOR_*
    /// and FMT_*). Compressed, shared-exponent, 10_11_11 and depth-stencil formats are not
    /// emulated.
    pub fn new(fmt: u8, num: u8, signed: [bool; 4]) -> Option<Self> {
        let (widths, count, float): ([u32; 4], usize, bool) = match fmt {
            1 => ([8, 0, 0, 0], 1, false),
            3 => ([4, 4, 0, 0], 2, false),
            5 => ([16, 0, 0, 0], 1, false),
            6 => ([16, 0, 0, 0], 1, true),
            7 => ([8, 8, 0, 0], 2, false),
            8 => ([5, 6, 5, 0], 3, false),
            9 => ([5, 5, 6, 0], 3, false),
            10 => ([5, 5, 5, 1], 4, false),
            11 => ([4, 4, 4, 4], 4, false),
            12 => ([1, 5, 5, 5], 4, false),
            13 => ([32, 0, 0, 0], 1, false),
            14 => ([32, 0, 0, 0], 1, true),
            15 => ([16, 16, 0, 0], 2, false),
            16 => ([16, 16, 0, 0], 2, true),
            25 => ([10, 10, 10, 2], 4, false),
            26 => ([8, 8, 8, 8], 4, false),
            27 => ([2, 10, 10, 10], 4, false),
            29 => ([32, 32, 0, 0], 2, false),
            30 => ([32, 32, 0, 0], 2, true),
            31 => ([16, 16, 16, 16], 4, false),
            32 => ([16, 16, 16, 16], 4, true),
            34 => ([32, 32, 32, 32], 4, false),
            35 => ([32, 32, 32, 32], 4, true),
            44 => ([8, 8, 8, 0], 3, false),
            45 => ([16, 16, 16, 0], 3, false),
            46 => ([16, 16, 16, 0], 3, true),
            47 => ([32, 32, 32, 0], 3, false),
            48 => ([32, 32, 32, 0], 3, true),
            _ => return None,
        };
        (num <= 2).then_some(Format {
            widths,
            count,
            float,
            num,
            signed,
        })
    }

    /// Bytes per element.
    pub fn bytes(&self) -> usize {
        (self.widths.iter().sum::<u32>() / 8) as usize
    }

    /// NUM_FORMAT INT of a fixed-point format: no filtering.
    pub fn integer(&self) -> bool {
        self.num == 1 && !self.float
    }

    /// Reads and converts one element; unmapped bytes read as zeros.
    pub fn read(&self, mem: &Memory, addr: u64, endian: u8) -> [u32; 4] {
        let n = self.bytes();
        let mut buf = [0u8; 16];
        mem.read(addr, &mut buf[..n]);
        // ENDIAN_SWAP 1: bytes swapped in 16-bit units, 2: in 32-bit units (8480-8484).
        match endian {
            1 => buf[..n].chunks_exact_mut(2).for_each(|c| c.swap(0, 1)),
            2 => buf[..n].chunks_exact_mut(4).for_each(|c| c.reverse()),
            _ => {}
        }
        let all = u128::from_le_bytes(buf);
        let mut raw = [0u32; 4];
        let mut at = 0;
        for c in 0..self.count {
            let w = self.widths[c];
            raw[c] = ((all >> at) & ((1u128 << w) - 1)) as u32;
            at += w;
        }
        self.convert(raw)
    }

    /// Converts raw components to GPR dwords: NUM_FORMAT 0 NORM ([0,1] or [-1,1] floats),
    /// 1 INT (the integer), 2 SCALED (the integer as a float) (002 lines 8455-8460);
    /// missing components read (0, 0, 0, 1).
    pub fn convert(&self, raw: [u32; 4]) -> [u32; 4] {
        let mut out = [0, 0, 0, b(1.0)];
        if self.integer() {
            out[3] = 1;
        }
        for c in 0..self.count {
            let (r, bits, signed) = (raw[c], self.widths[c], self.signed[c]);
            out[c] = if self.float {
                if bits == 16 { b(half_to_f32(r)) } else { r }
            } else {
                let sext = ((r << (32 - bits)) as i32 >> (32 - bits)) as u32;
                let int = if signed { sext } else { r };
                if self.num == 1 {
                    int
                } else {
                    let max = ((1u64 << (bits - signed as u32)) - 1) as f32;
                    let v = if signed {
                        int as i32 as f32
                    } else {
                        int as f32
                    };
                    match self.num {
                        0 => b(if signed { (v / max).max(-1.0) } else { v / max }),
                        _ => b(v),
                    }
                }
            };
        }
        out
    }
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
    let l = Format::new(fmt, num, [signed; 4])
        .ok_or_else(|| format!("vertex format {fmt} is not emulated"))?;
    let bytes = l.bytes() as u64;
    let off = idx as u64 * res.stride() + v.offset as u64;
    // Past the buffer's SIZE: zeros (what the fetch unit returns out of bounds).
    if off + bytes > res.size() {
        return Ok(l.convert([0; 4]));
    }
    Ok(l.read(mem, res.address() + off, endian))
}
