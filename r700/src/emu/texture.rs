//! Texture fetch: the resource's surface (dimension, mip chain, array slices), the LOD from
//! gradients, the sampler's filters, clamp modes and border colour.
//!
//! Descriptor words follow Mesa `src/gallium/drivers/r600/r600d.h` (SQ_TEX_RESOURCE_WORD0-6,
//! SQ_TEX_SAMPLER_WORD0-2); what the manual and the descriptors leave to addrlib or to the
//! hardware's arithmetic is the project's own and named so beside each rule (the mip
//! layout, the LOD rounding, the cube-face coordinates); `r700/README.md` lists them.

use alloc::format;
use alloc::string::String;

use super::Memory;
use super::fetch::{Format, select};
use super::float::b;
use crate::fetch::TexInst;
use crate::field;

/// SQ_TEX_RESOURCE_WORD0 DIM (r600d.h V_038000_SQ_TEX_DIM_*).
const DIM_1D: u32 = 0;
const DIM_2D: u32 = 1;
const DIM_3D: u32 = 2;
const DIM_CUBE: u32 = 3;
const DIM_1D_ARRAY: u32 = 4;
const DIM_2D_ARRAY: u32 = 5;

/// A resource's surface, decoded from SQ_TEX_RESOURCE_WORD0-6 (r600d.h): WORD0 DIM `[2:0]`,
/// TILE_MODE `[6:3]`, PITCH `[18:8]` (texels / 8 - 1), TEX_WIDTH `[31:19]` (- 1); WORD1
/// TEX_HEIGHT `[12:0]`, TEX_DEPTH `[25:13]` (- 1; array slices for arrays), DATA_FORMAT
/// `[31:26]`; WORD2 BASE_ADDRESS, WORD3 MIP_ADDRESS (both >> 8); WORD4 FORMAT_COMP_X-W `[7:0]`,
/// NUM_FORMAT_ALL `[9:8]`, ENDIAN_SWAP `[13:12]`, DST_SEL_X-W `[27:16]`, BASE_LEVEL
/// `[31:28]`; WORD5 LAST_LEVEL `[3:0]`, BASE_ARRAY `[16:4]`, LAST_ARRAY `[29:17]`; WORD6
/// TYPE `[31:30]` = 2.
pub struct Surface {
    dim: u32,
    width: u32,
    height: u32,
    depth: u32,
    pitch: u32,
    base: u64,
    mip_base: u64,
    format: Format,
    endian: u8,
    base_level: u32,
    last_level: u32,
    base_array: u32,
    last_array: u32,
}

impl Surface {
    pub fn new(w: &[u32; 7], id: u8) -> Result<Self, String> {
        if w[6] >> 30 != 2 {
            return Err(format!("texture resource {id} is not a valid texture"));
        }
        let dim = field(w[0], 0, 2);
        if dim > DIM_2D_ARRAY {
            return Err(format!(
                "texture dimension {dim} (multisampled) is not emulated"
            ));
        }
        // Tiled surfaces (1D/2D THIN1, r600d.h V_038000_ARRAY_*_TILED_THIN1) need the chip's
        // pipe/bank configuration (addrlib), which the launch interface does not carry.
        let tile = field(w[0], 3, 6);
        if tile > 1 {
            return Err(format!(
                "tiled texture (TILE_MODE {tile}, 1D/2D THIN1) is not emulated: linear only"
            ));
        }
        let fmt = field(w[1], 26, 31) as u8;
        let comp = core::array::from_fn(|c| field(w[4], 2 * c as u32, 2 * c as u32 + 1) == 1);
        let format = Format::new(fmt, field(w[4], 8, 9) as u8, comp)
            .ok_or_else(|| format!("texture format {fmt} is not emulated"))?;
        let base_level = field(w[4], 28, 31);
        let last_level = field(w[5], 0, 3);
        Ok(Surface {
            dim,
            width: field(w[0], 19, 31) + 1,
            height: if matches!(dim, DIM_1D | DIM_1D_ARRAY) {
                1
            } else {
                field(w[1], 0, 12) + 1
            },
            depth: field(w[1], 13, 25) + 1,
            pitch: (field(w[0], 8, 18) + 1) * 8,
            base: (w[2] as u64) << 8,
            mip_base: (w[3] as u64) << 8,
            format,
            endian: field(w[4], 12, 13) as u8,
            base_level,
            last_level: last_level.max(base_level),
            base_array: field(w[5], 4, 16),
            last_array: field(w[5], 17, 29),
        })
    }

    /// Slices every level holds: 3D depth halves per level; arrays and cubes keep theirs
    /// (a cube's six faces are slices 0-5, SET_CUBEMAP_INDEX picks a group of six).
    fn slices(&self, level: u32) -> u32 {
        match self.dim {
            DIM_3D => (self.depth >> level).max(1),
            DIM_1D_ARRAY | DIM_2D_ARRAY | DIM_CUBE => self.depth,
            _ => 1,
        }
    }

    /// Level `l`'s width, height and pitch in texels.
    fn level_size(&self, l: u32) -> (u32, u32, u32) {
        let w = (self.width >> l).max(1);
        let h = (self.height >> l).max(1);
        // Level 0 has the resource's PITCH; smaller levels are packed with their width rounded
        // up to 8 texels (ours: the real layout is addrlib's).
        let p = if l == 0 {
            self.pitch
        } else {
            w.div_ceil(8) * 8
        };
        (w, h, p)
    }

    /// Byte address of level `l`: level 0 at BASE_ADDRESS, levels 1.. one after another at
    /// MIP_ADDRESS (ours; Mesa points MIP_ADDRESS at level 1, r600_state.c).
    fn level_address(&self, l: u32) -> u64 {
        if l == 0 {
            return self.base;
        }
        let mut at = self.mip_base;
        for k in 1..l {
            let (_, h, p) = self.level_size(k);
            at += p as u64 * h as u64 * self.slices(k) as u64 * self.format.bytes() as u64;
        }
        at
    }

    /// The texel at integer coordinates of a level, converted to GPR dwords.
    fn texel(&self, mem: &Memory, l: u32, x: u32, y: u32, slice: u32) -> [u32; 4] {
        let (_, h, p) = self.level_size(l);
        let idx = (slice as u64 * h as u64 + y as u64) * p as u64 + x as u64;
        let at = self.level_address(l) + idx * self.format.bytes() as u64;
        self.format.read(mem, at, self.endian)
    }

    /// The sizes LOD arithmetic scales normalised gradients by: the base level's.
    fn base_size(&self) -> [f32; 3] {
        let (w, h, _) = self.level_size(self.base_level);
        let d = if self.dim == DIM_3D {
            self.slices(self.base_level)
        } else {
            1
        };
        [w as f32, h as f32, d as f32]
    }

    /// Axes the filter interpolates (the rest select a slice).
    fn axes(&self) -> usize {
        match self.dim {
            DIM_2D | DIM_CUBE | DIM_2D_ARRAY => 2,
            DIM_3D => 3,
            _ => 1,
        }
    }
}

/// What a SAMPLE takes besides its coordinate: the thread's gradients (from the quad, or the
/// last SET_GRADIENTS_H/V for the _G forms) and the SET_CUBEMAP_INDEX value.
#[derive(Clone, Copy, Debug, Default)]
pub struct Extra {
    pub grad_h: [f32; 3],
    pub grad_v: [f32; 3],
    pub cube_index: f32,
}

/// The sampler's words (r600d.h SQ_TEX_SAMPLER_WORD0-2): WORD0 CLAMP_X/Y/Z `[8:0]`,
/// XY_MAG_FILTER `[11:9]`, XY_MIN_FILTER `[14:12]` (0 POINT, 1 BILINEAR), Z_FILTER `[16:15]`
/// and MIP_FILTER `[18:17]` (0 NONE, 1 POINT, 2 LINEAR), BORDER_COLOR_TYPE `[23:22]`,
/// DEPTH_COMPARE_FUNCTION `[28:26]`; WORD1 MIN_LOD `[9:0]`, MAX_LOD `[19:10]` (unsigned 4.6),
/// LOD_BIAS `[31:20]` (signed, 6 fraction bits: Mesa r600_state.c S_FIXED(bias, 6)).
struct SamplerState {
    clamp: [u8; 3],
    mag: u32,
    min: u32,
    z_filter: u32,
    mip: u32,
    border: [u32; 4],
    min_lod: f32,
    max_lod: f32,
    bias: f32,
}

impl SamplerState {
    fn new(s: &[u32; 3], register: Option<[u32; 4]>) -> Self {
        let w0 = s[0];
        let one = b(1.0);
        // BORDER_COLOR_TYPE: transparent black, opaque black, opaque white, the sampler's
        // TD_PS_SAMPLER*_BORDER_* registers (r600d.h V_03C000_SQ_TEX_BORDER_COLOR_*).
        let border = match field(w0, 22, 23) {
            0 => [0; 4],
            1 => [0, 0, 0, one],
            2 => [one; 4],
            _ => register.unwrap_or([0; 4]),
        };
        SamplerState {
            clamp: [
                field(w0, 0, 2) as u8,
                field(w0, 3, 5) as u8,
                field(w0, 6, 8) as u8,
            ],
            mag: field(w0, 9, 11),
            min: field(w0, 12, 14),
            z_filter: field(w0, 15, 16),
            mip: field(w0, 17, 18),
            border,
            min_lod: field(s[1], 0, 9) as f32 / 64.0,
            max_lod: field(s[1], 10, 19) as f32 / 64.0,
            bias: (s[1] as i32 >> 20) as f32 / 64.0,
        }
    }
}

/// Texel-index wrap for CLAMP_X/Y/Z (r600d.h V_03C000_SQ_TEX_WRAP = 0, MIRROR 1,
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

/// A finite coordinate kept small enough for index arithmetic; NaN reads as 0.
fn tame(v: f32) -> f32 {
    if v.is_nan() {
        0.0
    } else {
        v.clamp(-1e12, 1e12)
    }
}

/// The slice a layer coordinate selects: rounded, clamped to the array (DX10 rule; ours).
fn layer(v: f32, lo: u32, hi: u32) -> u32 {
    let r = libm::floorf(tame(v) + 0.5);
    (r.max(lo as f32) as u32).min(hi)
}

/// The LOD the gradients give: log2 of the larger of the two gradient lengths in texels of
/// the base level (the OpenGL 4.6 rule 8.14.1, eq. 8.5-8.7; the hardware's own approximation
/// is not public). Zero gradients give -inf (magnification).
pub fn lod_from_gradients(h: [f32; 3], v: [f32; 3], scale: [f32; 3], axes: usize) -> f32 {
    let len = |g: [f32; 3]| {
        let mut s = 0.0f32;
        for a in 0..axes {
            let x = g[a] * scale[a];
            s += x * x;
        }
        libm::sqrtf(s)
    };
    libm::log2f(len(h).max(len(v)))
}

/// Per-texture state a SAMPLE needs from the caller.
pub struct Lookup<'a> {
    pub res: &'a [u32; 7],
    pub sampler: Option<&'a [u32; 3]>,
    pub border: Option<[u32; 4]>,
}

/// Normalised and texel coordinates per axis, the slice, and the axes' level-0 sizes.
struct Coords {
    /// Per axis: texel-space coordinate at the base level, or normalised.
    c: [f32; 3],
    normalised: [bool; 3],
    slice: u32,
}

fn coords(s: &Surface, t: &TexInst, coord: [u32; 4], extra: &Extra) -> Coords {
    let f = |c: usize| tame(f32::from_bits(coord[c]));
    let mut c = [f(0), f(1), f(2)];
    let mut normalised = [t.coord_type[0], t.coord_type[1], t.coord_type[2]];
    let hi = s.last_array.min(s.depth - 1).max(s.base_array);
    let slice = match s.dim {
        DIM_1D_ARRAY => layer(c[1], s.base_array, hi),
        DIM_2D_ARRAY => layer(c[2], s.base_array, hi),
        DIM_CUBE => {
            // Mesa r600_shader.c tgsi_tex: after CUBE, S and T are scaled by 1/|2 major| and
            // 1.5 is added, face id in Z; so a face spans [1, 2] (ours: minus 1).
            c[0] -= 1.0;
            c[1] -= 1.0;
            normalised[0] = true;
            normalised[1] = true;
            let face = layer(c[2], 0, 5);
            let group = layer(extra.cube_index, 0, u32::MAX / 8);
            (group * 6 + face).min(s.depth - 1)
        }
        _ => 0,
    };
    Coords {
        c,
        normalised,
        slice,
    }
}

/// The texels around a coordinate on one level: corner `k` (bit `a` set: the second index
/// on axis `a`) for the 2^axes corners, border corners the sampler's colour; and per axis
/// the weight of the second index (0 where `linear` is off).
fn footprint(
    mem: &Memory,
    s: &Surface,
    st: &SamplerState,
    cs: &Coords,
    level: u32,
    linear: [bool; 3],
    offset: [i64; 3],
) -> Result<([[u32; 4]; 8], [f32; 3]), String> {
    let (w, h, _) = s.level_size(level);
    let d = if s.dim == DIM_3D { s.slices(level) } else { 1 };
    let size = [w, h, d];
    let axes = s.axes();
    let mut idx = [[0i64; 2]; 3];
    let mut weight = [0f32; 3];
    for a in 0..axes {
        let n = size[a] as f32;
        let u = if cs.normalised[a] {
            cs.c[a] * n
        } else {
            // Unnormalised coordinates are texels of the base level.
            cs.c[a] * n / s.base_size()[a]
        };
        if linear[a] {
            let fu = u - 0.5;
            let i0 = libm::floorf(fu);
            idx[a] = [i0 as i64 + offset[a], i0 as i64 + 1 + offset[a]];
            weight[a] = fu - i0;
        } else {
            let i = libm::floorf(u) as i64 + offset[a];
            idx[a] = [i, i];
        }
    }
    let mut corners = [[0u32; 4]; 8];
    for (k, corner) in corners.iter_mut().enumerate().take(1 << axes) {
        let mut at = [0u32; 3];
        let mut border = false;
        for a in 0..axes {
            match wrap(idx[a][k >> a & 1], size[a] as i64, st.clamp[a])? {
                Some(i) => at[a] = i as u32,
                None => border = true,
            }
        }
        *corner = if border {
            st.border
        } else {
            let slice = if s.dim == DIM_3D { at[2] } else { cs.slice };
            s.texel(mem, level, at[0], at[1], slice)
        };
    }
    Ok((corners, weight))
}

/// One level, filtered by `linear` per axis (products of the axis weights, in f32).
fn filter_level(
    mem: &Memory,
    s: &Surface,
    st: &SamplerState,
    cs: &Coords,
    level: u32,
    linear: [bool; 3],
    offset: [i64; 3],
) -> Result<[f32; 4], String> {
    let (corners, weight) = footprint(mem, s, st, cs, level, linear, offset)?;
    let axes = s.axes();
    let mut out = [0f32; 4];
    for (k, texel) in corners.iter().enumerate().take(1 << axes) {
        let mut wgt = 1.0f32;
        for a in 0..axes {
            wgt *= if k >> a & 1 == 1 {
                weight[a]
            } else {
                1.0 - weight[a]
            };
        }
        if wgt == 0.0 {
            continue;
        }
        for c in 0..4 {
            out[c] += f32::from_bits(texel[c]) * wgt;
        }
    }
    Ok(out)
}

/// LOD state of one lookup: the computed LOD, the same clamped to [MIN_LOD, MAX_LOD] (which
/// decides magnification), and further to the view's levels (which selects them).
pub struct Lod {
    pub unclamped: f32,
    pub lambda: f32,
    pub clamped: f32,
}

/// The LOD a SAMPLE form uses (002 lines 7395-7430, 8586): _LZ zero; _L src.W; the rest the
/// gradients' LOD plus the sampler's LOD_BIAS, and for _LB the instruction's LOD_BIAS (S3.4)
/// and src.W (002 lines 7413-7419 name only the instruction's field; src.W is our reading
/// of Mesa r600 mapping TGSI TXB, bias in W, to SAMPLE_LB, unconfirmed at a line); then
/// clamped to [MIN_LOD, MAX_LOD] and to the resource's levels.
fn lod(s: &Surface, st: &SamplerState, t: &TexInst, coord: [u32; 4], extra: &Extra) -> Lod {
    // SAMPLE* by their low bits; FETCH4 at LOD zero; GET_LERP as SAMPLE.
    let kind = match t.op {
        16..=31 => t.op & 3,
        15 => 3,
        _ => 0,
    };
    let w = tame(f32::from_bits(coord[3]));
    let raw = match kind {
        3 => 0.0,
        1 => w,
        _ => {
            let mut l =
                lod_from_gradients(extra.grad_h, extra.grad_v, s.base_size(), s.axes()) + st.bias;
            if kind == 2 {
                l += ((t.lod_bias << 1) as i8 >> 1) as f32 / 16.0 + w;
            }
            l
        }
    };
    let raw = if raw.is_nan() { 0.0 } else { raw };
    let top = (s.last_level - s.base_level) as f32;
    let lambda = raw.clamp(st.min_lod, st.max_lod.max(st.min_lod));
    Lod {
        unclamped: raw,
        lambda,
        clamped: lambda.clamp(0.0, top),
    }
}

/// SAMPLE* (opcodes 16-31): LOD, mip selection (MIP_FILTER), the level filters (XY_MAG/MIN,
/// Z_FILTER for 3D), border colour, the _C compare. Returns the texel before DST_SEL.
pub fn sample(
    mem: &Memory,
    lk: &Lookup,
    t: &TexInst,
    coord: [u32; 4],
    extra: &Extra,
) -> Result<[u32; 4], String> {
    let s = Surface::new(lk.res, t.resource_id)?;
    let st = SamplerState::new(
        lk.sampler
            .ok_or_else(|| format!("sampler {} is not bound", t.sampler_id))?,
        lk.border,
    );
    if (24..=31).contains(&t.op) && matches!(t.op & 3, 1 | 2) {
        return Err(format!(
            "{}: where the _C_L/_C_LB forms take their LOD is not defined (src.W holds the reference)",
            crate::fetch::tex_op_name(t.op).unwrap_or("SAMPLE_C")
        ));
    }
    if s.format.integer() && (st.mag | st.min != 0 || st.mip == 2 || st.z_filter == 2) {
        return Err("filtering an integer format".into());
    }
    let cs = coords(&s, t, coord, extra);
    let l = lod(&s, &st, t, coord, extra);
    // Texel offsets: 5-bit signed (002 lines 8590-8600), on the filtered axes.
    let off = |o: u8| ((o << 3) as i8 >> 3) as i64;
    let mut offset = [0i64; 3];
    for a in 0..s.axes() {
        offset[a] = off(t.offset[a]);
    }
    // Magnification at a clamped LOD <= 0 (OpenGL 4.6 8.14.1-8.14.2), else minification
    // with the mip filter: NONE the base level, POINT the nearest level (ceil(lod + 0.5) - 1),
    // LINEAR the two around it.
    let minify = l.lambda > 0.0;
    let xy = if minify { st.min } else { st.mag };
    if xy > 1 {
        return Err(format!(
            "texture filter {xy} is not emulated (point, bilinear are)"
        ));
    }
    // Z_FILTER LINEAR interpolates 3D slices; NONE follows the XY filter (ours).
    let zl = s.dim == DIM_3D && (st.z_filter == 2 || st.z_filter == 0 && xy == 1);
    let linear = [xy == 1, xy == 1, zl];
    let base = s.base_level;
    let levels: [(u32, f32); 2] = if !minify || st.mip == 0 {
        [(base, 1.0), (base, 0.0)]
    } else if st.mip == 1 {
        let n = (libm::ceilf(l.clamped + 0.5) - 1.0).max(0.0) as u32;
        [((base + n).min(s.last_level), 1.0), (base, 0.0)]
    } else {
        let lo = libm::floorf(l.clamped);
        let frac = l.clamped - lo;
        let lo = (base + lo as u32).min(s.last_level);
        [(lo, 1.0 - frac), ((lo + 1).min(s.last_level), frac)]
    };
    if t.op == 15 {
        // FETCH4 ("Fetch4/Load4 for DX 10.1", TEX_INST table): the X of the four texels a
        // bilinear fetch of the level would use, in the gather order of OpenGL 4.6 8.14.2 and
        // D3D10.1 Gather: (i0, j1), (i1, j1), (i1, j0), (i0, j0).
        let (c, _) = footprint(mem, &s, &st, &cs, levels[0].0, [true, true, false], offset)?;
        return Ok(dst_sel(lk.res, [c[2][0], c[3][0], c[1][0], c[0][0]]));
    }
    if t.op == 9 {
        // GET_LERP: "X = horizontal lerp, Y = vertical lerp, Z = volume slice, W = mipmap
        // LERP" (TEX_INST table, 8517): the weights this lookup's filters use.
        let (_, wt) = footprint(mem, &s, &st, &cs, levels[0].0, linear, offset)?;
        return Ok([b(wt[0]), b(wt[1]), b(wt[2]), b(levels[1].1)]);
    }
    let mut v = [0f32; 4];
    for (level, wgt) in levels {
        if wgt == 0.0 {
            continue;
        }
        let r = filter_level(mem, &s, &st, &cs, level, linear, offset)?;
        for c in 0..4 {
            v[c] += r[c] * wgt;
        }
    }
    let mut v = if s.format.integer() {
        // Integer formats are point-sampled: the texel as read, exact.
        integer_texel(mem, &s, &st, &cs, levels[0].0, offset)?
    } else {
        v.map(b)
    };
    // SAMPLE_C*: the reference in src.W against the texel's X with the sampler's
    // DEPTH_COMPARE_FUNCTION (r600d.h S_03C000_DEPTH_COMPARE_FUNCTION [28:26]: never, less,
    // equal, less-equal, greater, not-equal, greater-equal, always); 1.0 or 0.0. Compared
    // after filtering (the hardware's PCF order is not public).
    if (24..=31).contains(&t.op) {
        let func = field(lk.sampler.map_or(0, |s| s[0]), 26, 28);
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
        v = [b(if pass { 1.0 } else { 0.0 }); 4];
    }
    Ok(dst_sel(lk.res, v))
}

/// An integer format's point-sampled texel, exact (the float path would round large values).
fn integer_texel(
    mem: &Memory,
    s: &Surface,
    st: &SamplerState,
    cs: &Coords,
    level: u32,
    offset: [i64; 3],
) -> Result<[u32; 4], String> {
    let (w, h, _) = s.level_size(level);
    let d = if s.dim == DIM_3D { s.slices(level) } else { 1 };
    let size = [w, h, d];
    let mut at = [0u32; 3];
    for a in 0..s.axes() {
        let n = size[a] as f32;
        let u = if cs.normalised[a] {
            cs.c[a] * n
        } else {
            cs.c[a] * n / s.base_size()[a]
        };
        match wrap(
            libm::floorf(u) as i64 + offset[a],
            size[a] as i64,
            st.clamp[a],
        )? {
            Some(i) => at[a] = i as u32,
            None => return Ok(st.border),
        }
    }
    let slice = if s.dim == DIM_3D { at[2] } else { cs.slice };
    Ok(s.texel(mem, level, at[0], at[1], slice))
}

/// The resource's DST_SEL_X-W (WORD4 `[27:16]`); the instruction's is applied by the caller.
fn dst_sel(res: &[u32; 7], v: [u32; 4]) -> [u32; 4] {
    core::array::from_fn(|c| {
        let s = field(res[4], 16 + 3 * c as u32, 18 + 3 * c as u32) as u8;
        select(v, s).unwrap_or(0)
    })
}

/// LD (opcode 3): integer texel coordinates X, Y, Z and the level in W (002 line 7138),
/// relative to BASE_LEVEL; the array slice in Y (1D arrays) or Z (2D arrays); no filtering,
/// no clamp modes: outside the level, zeros.
pub fn load(mem: &Memory, lk: &Lookup, t: &TexInst, coord: [u32; 4]) -> Result<[u32; 4], String> {
    let s = Surface::new(lk.res, t.resource_id)?;
    if s.dim == DIM_CUBE {
        return Err("LD of a cube map (the manual excludes it)".into());
    }
    let off = |o: u8| ((o << 3) as i8 >> 3) as i64;
    let i = |c: usize| coord[c] as i32 as i64;
    let level = s.base_level as i64 + i(3);
    if !(s.base_level as i64..=s.last_level as i64).contains(&level) {
        return Ok([0; 4]);
    }
    let level = level as u32;
    let (w, h, _) = s.level_size(level);
    let axes = s.axes();
    let mut at = [0i64; 3];
    let size = [w as i64, h as i64, s.slices(level) as i64];
    for a in 0..axes {
        at[a] = i(a) + off(t.offset[a]);
        if !(0..size[a]).contains(&at[a]) {
            return Ok([0; 4]);
        }
    }
    let slice = match s.dim {
        DIM_3D => at[2] as u32,
        DIM_1D_ARRAY | DIM_2D_ARRAY => {
            let l = i(axes);
            if !(0..s.depth as i64).contains(&l) {
                return Ok([0; 4]);
            }
            l as u32
        }
        _ => 0,
    };
    Ok(dst_sel(
        lk.res,
        s.texel(mem, level, at[0] as u32, at[1] as u32, slice),
    ))
}

/// GET_TEXTURE_RESINFO: width, height, depth, number of levels as integers (002 lines
/// 7060-7075), of the base level.
pub fn resinfo(res: &[u32; 7]) -> [u32; 4] {
    let w = res;
    let levels = field(w[5], 0, 3).saturating_sub(field(w[4], 28, 31)) + 1;
    [
        field(w[0], 19, 31) + 1,
        field(w[1], 0, 12) + 1,
        field(w[1], 13, 25) + 1,
        levels,
    ]
}

/// GET_NUMBER_OF_SAMPLES: width, height, depth and the sample count of a multisampled
/// resource (2D_MSAA/2D_ARRAY_MSAA keep log2 of it in LAST_LEVEL: Linux radeon r600_cs.c
/// `nsamples = 1 << llevel`); 1 for the other dimensions.
pub fn samples(res: &[u32; 7]) -> [u32; 4] {
    let mut r = resinfo(res);
    r[3] = if field(res[0], 0, 2) >= 6 {
        1 << field(res[5], 0, 3)
    } else {
        1
    };
    r
}

/// GET_COMP_TEX_LOD: X the clamped LOD, Y the unclamped one (002 TEX_INST table, 8517),
/// as floats; the same LOD the SAMPLE form with this instruction's bias would use.
pub fn comp_lod(
    lk: &Lookup,
    t: &TexInst,
    coord: [u32; 4],
    extra: &Extra,
) -> Result<[u32; 4], String> {
    let s = Surface::new(lk.res, t.resource_id)?;
    let st = SamplerState::new(
        lk.sampler
            .ok_or_else(|| format!("sampler {} is not bound", t.sampler_id))?,
        lk.border,
    );
    // As SAMPLE (opcode 16): computed LOD plus the sampler's bias.
    let as_sample = TexInst { op: 16, ..*t };
    let l = lod(&s, &st, &as_sample, coord, extra);
    Ok([b(l.clamped), b(l.unclamped), 0, 0])
}
