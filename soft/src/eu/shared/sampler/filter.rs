//! Filtering: texel addressing with the address control modes, nearest
//! and (bi)linear filtering within a level, and the blend between two
//! levels.
//!
//! - Normalized coordinates run over [0, 1) across the level (000 line
//!   2685); non-normalized ones count texels (SAMPLER_STATE
//!   Non-normalized Coordinate Enable, Gen6+).
//! - MAPFILTER_NEAREST reads "the texel nearest to the pixel's U,V,Q
//!   coordinate" (000 line 2864): the texel containing it, `floor(u * W)`.
//! - MAPFILTER_LINEAR reads the 2 (1D) or 2x2 (2D) texels surrounding the
//!   coordinate and weights each "according to its distance from the pixel
//!   center" (000 lines 2870-2875): with texel centres at `i + 0.5`, `x =
//!   u * W - 0.5`, texels `floor(x)` and `floor(x) + 1` get `1 - frac(x)`
//!   and `frac(x)`. The manuals give no fixed-point precision for the
//!   weights or for sub-texel positions (the Address Rounding Enable bits,
//!   000 lines 3805-3812, choose rounding or truncation of an unstated
//!   precision): this model computes them in double precision and rounds
//!   the filtered value to float once.
//! - The message header's U and V offsets move every texel read, in texels
//!   of the level sampled (000 lines 3979-3984).
//! - Address modes act on texel indices (000 lines 2915-2966): WRAP
//!   repeats, MIRROR reflects at every edge, CLAMP repeats the edge texel,
//!   MIRROR_ONCE mirrors about 0 and then clamps, CLAMP_BORDER reads the
//!   border colour outside the level.
//! - MIPFILTER_LINEAR blends the two levels' results by TriBeta (000 line
//!   2842).
//! - sample_c replaces each texel's red channel by the compare result
//!   before filtering (000 lines 3004-3021).

use super::super::MessageEnv;
use super::super::surface::{MipLevel, Surface, SurfaceKind};
use super::cube;
use super::lod::Pick;
use super::state::{AddressMode, Compare, MapFilter};
use super::texel::{self, Format};
use crate::eu::send::SendError;

/// What one message samples: the surface, its format and border colour,
/// and the state that shapes the addressing.
pub(super) struct Texture<'a> {
    pub surface: &'a Surface,
    pub format: Format,
    /// The channels a border texel returns.
    pub border: [u32; 4],
    /// TCX, TCY and TCZ.
    pub modes: [AddressMode; 3],
    pub normalized: bool,
    /// Header U and V offsets.
    pub offsets: (i64, i64),
}

/// Where one lane samples: coordinates on the level (normalized, or in
/// texels), and which slice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct At {
    pub u: f64,
    pub v: f64,
    /// The third coordinate of a 3D surface.
    pub r: f64,
    /// The array slice (absolute, Minimum Array Element added); for a cube,
    /// the slice of its +X face.
    pub slice: u32,
    /// The cube face the direction selected.
    pub face: Option<u32>,
}

/// Intra-level filter actually applied (anisotropic is resolved before).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Filter {
    Nearest,
    Linear,
}

impl Filter {
    pub fn of(f: MapFilter) -> Filter {
        match f {
            MapFilter::Nearest => Filter::Nearest,
            _ => Filter::Linear,
        }
    }
}

/// The shadow compare of a sample_c message: function and reference.
pub(super) type Shadow = Option<(Compare, f32)>;

/// A texel index and the weight of the next one along an axis.
#[derive(Clone, Copy)]
struct Axis {
    first: i64,
    frac: f64,
}

impl Texture<'_> {
    /// Samples the level or levels of `pick` at `at` with the mag or min
    /// filter.
    pub fn sample(
        &self,
        env: &mut MessageEnv,
        pick: &Pick,
        (mag, min): (Filter, Filter),
        at: &At,
        shadow: Shadow,
    ) -> Result<[u32; 4], SendError> {
        let filter = if pick.mag { mag } else { min };
        let a = self.level(env, pick.level0, filter, at, shadow)?;
        if pick.beta == 0.0 || pick.level0 == pick.level1 {
            return Ok(a);
        }
        let b = self.level(env, pick.level1, filter, at, shadow)?;
        let beta = pick.beta;
        Ok(core::array::from_fn(|c| {
            let (x, y) = (
                f64::from(f32::from_bits(a[c])),
                f64::from(f32::from_bits(b[c])),
            );
            (((1.0 - beta) * x + beta * y) as f32).to_bits()
        }))
    }

    /// The bilinear footprint of level `lod` at `at` for gather4: the
    /// upper-left, upper-right, lower-left and lower-right texels (each
    /// after the address modes and the shadow compare).
    pub fn footprint(
        &self,
        env: &mut MessageEnv,
        lod: u32,
        at: &At,
        shadow: Shadow,
    ) -> Result<[[u32; 4]; 4], SendError> {
        let Some(size) = self.surface.level(lod) else {
            return Ok([self.format.zero(); 4]);
        };
        let (x, y, _) = self.axes(&size, lod, at, Filter::Linear);
        let mut t = [None; 4];
        for (n, tap) in t.iter_mut().enumerate() {
            let (ox, oy) = ((n & 1) as i64, (n >> 1) as i64);
            *tap = self.texel(env, lod, x.first + ox, y.first + oy, 0, at, shadow)?;
        }
        Ok(self.corner(t))
    }

    /// Per-axis texel index and weight of level `lod` (Linear: the texel
    /// left of the sample point and the weight of the one after it;
    /// Nearest: the texel containing it), with the header offsets.
    fn axes(&self, size: &MipLevel, lod: u32, at: &At, filter: Filter) -> (Axis, Axis, Axis) {
        let kind = self.surface.kind;
        let depth = self.depth(lod);
        let scale = |n: u32| if self.normalized { f64::from(n) } else { 1.0 };
        let coord = |c: f64| if c.is_nan() { 0.0 } else { c };
        let axis = |c: f64, n: u32, off: i64| match filter {
            Filter::Nearest => Axis {
                first: index(libm::floor(coord(c) * scale(n))) + off,
                frac: 0.0,
            },
            Filter::Linear => {
                let x = coord(c) * scale(n) - 0.5;
                let f = libm::floor(x);
                Axis {
                    first: index(f) + off,
                    frac: x - f,
                }
            }
        };
        let none = Axis {
            first: 0,
            frac: 0.0,
        };
        let (du, dv) = self.offsets;
        let x = axis(at.u, size.width, du);
        let y = if kind == SurfaceKind::D1 {
            none
        } else {
            axis(at.v, size.height, dv)
        };
        let z = if kind == SurfaceKind::D3 {
            axis(at.r, depth, 0)
        } else {
            none
        };
        (x, y, z)
    }

    /// Planes of level `lod` of a 3D surface (`max(1, D >> L)`, 003 line
    /// 6240); 1 for the other kinds.
    fn depth(&self, lod: u32) -> u32 {
        if self.surface.kind == SurfaceKind::D3 {
            self.surface.depth.checked_shr(lod).unwrap_or(0).max(1)
        } else {
            1
        }
    }

    /// Filters level `lod` (absolute): 1, 2, 4 or 8 taps as the surface
    /// has 1, 2 or 3 dimensions (trilinear within a 3D level).
    fn level(
        &self,
        env: &mut MessageEnv,
        lod: u32,
        filter: Filter,
        at: &At,
        shadow: Shadow,
    ) -> Result<[u32; 4], SendError> {
        let Some(size) = self.surface.level(lod) else {
            // Beyond any level a surface can have: out of bounds.
            return Ok(self.format.zero());
        };
        let (x, y, z) = self.axes(&size, lod, at, filter);
        if filter == Filter::Nearest {
            let t = self.texel(env, lod, x.first, y.first, z.first, at, shadow)?;
            return Ok(t.unwrap_or(self.border));
        }
        let kind = self.surface.kind;
        let ys = if kind == SurfaceKind::D1 { 1 } else { 2 };
        let zs = if kind == SurfaceKind::D3 { 2 } else { 1 };
        let mut sum = [0f64; 4];
        for dz in 0..zs {
            // The 2x2 footprint of one plane, UL, UR, LL, LR.
            let mut quad = [None; 4];
            for (n, tap) in quad.iter_mut().enumerate() {
                let (ox, oy) = ((n & 1) as i64, (n >> 1) as i64);
                if oy < ys {
                    *tap = self.texel(
                        env,
                        lod,
                        x.first + ox,
                        y.first + oy,
                        z.first + dz,
                        at,
                        shadow,
                    )?;
                }
            }
            let quad = if ys == 2 {
                self.corner(quad)
            } else {
                quad.map(|t| t.unwrap_or(self.border))
            };
            let wz = if zs == 1 {
                1.0
            } else if dz == 0 {
                1.0 - z.frac
            } else {
                z.frac
            };
            for (n, t) in quad.iter().enumerate().take(2 * ys as usize) {
                let wx = if n & 1 == 0 { 1.0 - x.frac } else { x.frac };
                let wy = match (ys, n >> 1) {
                    (1, _) => 1.0,
                    (_, 0) => 1.0 - y.frac,
                    _ => y.frac,
                };
                for (s, c) in sum.iter_mut().zip(t) {
                    *s += wx * wy * wz * f64::from(f32::from_bits(*c));
                }
            }
        }
        Ok(sum.map(|s| (s as f32).to_bits()))
    }

    /// Fills the texel a cube corner lacks (UL, UR, LL, LR order): "replaced
    /// with the opposite corner texel or the average of all three that
    /// exist" by Cube Map Corner Mode (003 lines 75681-75700).
    fn corner(&self, quad: [Option<[u32; 4]>; 4]) -> [[u32; 4]; 4] {
        let mut out = quad.map(|t| t.unwrap_or(self.border));
        if let Some(m) = quad.iter().position(Option::is_none) {
            out[m] = if self.surface.cube_average {
                let f = |t: [u32; 4], c: usize| f64::from(f32::from_bits(t[c]));
                core::array::from_fn(|c| {
                    let s: f64 = (0..4).filter(|&n| n != m).map(|n| f(out[n], c)).sum();
                    ((s / 3.0) as f32).to_bits()
                })
            } else {
                out[3 - m]
            };
        }
        out
    }

    /// Texel (`x`, `y`, `z`) of level `lod` after the address modes, or
    /// the border colour; with the shadow compare applied. `None` for the
    /// missing texel of a cube corner.
    #[allow(clippy::too_many_arguments)]
    fn texel(
        &self,
        env: &mut MessageEnv,
        lod: u32,
        x: i64,
        y: i64,
        z: i64,
        at: &At,
        shadow: Shadow,
    ) -> Result<Option<[u32; 4]>, SendError> {
        let Some(size) = self.surface.level(lod) else {
            return Ok(Some(self.format.zero()));
        };
        let w = i64::from(size.width);
        let h = i64::from(size.height);
        let d = i64::from(self.depth(lod));
        let kind = self.surface.kind;
        let mut face = at.face;
        let (mut x, mut y) = (x, y);
        let outside = !(0..w).contains(&x) || !(0..h).contains(&y);
        let cube_mode = face.is_some() && self.modes[0] == AddressMode::Cube;
        let plane = if let (Some(f), true, true) = (face, cube_mode, outside) {
            match cube::across(f, x, y, w) {
                Some((g, i, j)) => {
                    face = Some(g);
                    Some((i, j, 0))
                }
                None => return Ok(None),
            }
        } else {
            let y_mode = if kind == SurfaceKind::D1 {
                AddressMode::Clamp
            } else {
                self.modes[1]
            };
            let z = if kind == SurfaceKind::D3 {
                address(z, d, self.modes[2])
            } else {
                Some(0)
            };
            match (address(x, w, self.modes[0]), address(y, h, y_mode), z) {
                (Some(i), Some(j), Some(k)) => Some((i, j, k)),
                _ => None,
            }
        };
        let enabled = face.is_none_or(|f| self.surface.cube_faces >> cube::enable_bit(f) & 1 != 0);
        let mut t = match plane {
            Some((i, j, k)) if enabled => {
                (x, y) = (i, j);
                let q = match face {
                    _ if kind == SurfaceKind::D3 => k as u32,
                    Some(f) => at.slice.saturating_add(f),
                    None => at.slice,
                };
                match self.surface.slice(lod, q) {
                    Some(p) => texel::read(
                        env,
                        self.surface,
                        &self.format,
                        u64::from(p.x) + x as u64,
                        u64::from(p.y) + y as u64,
                    )?,
                    None => self.format.zero(),
                }
            }
            _ => self.border,
        };
        if let Some((f, reference)) = shadow {
            t[0] = f.apply(f32::from_bits(t[0]), reference).to_bits();
        }
        Ok(Some(t))
    }
}

/// A coordinate as a texel index (clamped far outside any surface).
fn index(f: f64) -> i64 {
    f.clamp(-1e15, 1e15) as i64
}

/// Texel index `i` of `n` under `mode`; `None` for a border texel.
pub(super) fn address(i: i64, n: i64, mode: AddressMode) -> Option<i64> {
    if n <= 0 {
        return None;
    }
    match mode {
        AddressMode::Clamp => Some(i.clamp(0, n - 1)),
        AddressMode::Wrap => Some(i.rem_euclid(n)),
        AddressMode::Mirror => {
            let k = i.rem_euclid(2 * n);
            Some(if k < n { k } else { 2 * n - 1 - k })
        }
        AddressMode::MirrorOnce => Some(if i < 0 { -1 - i } else { i }.min(n - 1)),
        AddressMode::ClampBorder => (0..n).contains(&i).then_some(i),
        // Inside a face (the edges are crossed in `Texture::texel`); on
        // other surfaces the mode is refused before sampling.
        AddressMode::Cube => Some(i.clamp(0, n - 1)),
    }
}
