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
    /// TCX and TCY.
    pub modes: [AddressMode; 2],
    pub normalized: bool,
    /// Header U and V offsets.
    pub offsets: (i64, i64),
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

impl Texture<'_> {
    /// Samples the level or levels of `pick` at (`u`, `v`) with the mag or
    /// min filter.
    pub fn sample(
        &self,
        env: &mut MessageEnv,
        pick: &Pick,
        (mag, min): (Filter, Filter),
        (u, v): (f32, f32),
        shadow: Shadow,
    ) -> Result<[u32; 4], SendError> {
        let filter = if pick.mag { mag } else { min };
        let a = self.level(env, pick.level0, filter, u, v, shadow)?;
        if pick.beta == 0.0 || pick.level0 == pick.level1 {
            return Ok(a);
        }
        let b = self.level(env, pick.level1, filter, u, v, shadow)?;
        let beta = pick.beta;
        Ok(core::array::from_fn(|c| {
            let (x, y) = (
                f64::from(f32::from_bits(a[c])),
                f64::from(f32::from_bits(b[c])),
            );
            (((1.0 - beta) * x + beta * y) as f32).to_bits()
        }))
    }

    /// Filters level `lod` (absolute).
    fn level(
        &self,
        env: &mut MessageEnv,
        lod: u32,
        filter: Filter,
        u: f32,
        v: f32,
        shadow: Shadow,
    ) -> Result<[u32; 4], SendError> {
        let Some(level) = self.surface.level(lod) else {
            // Beyond any level a surface can have: out of bounds.
            return Ok(self.format.zero());
        };
        let one_d = self.surface.kind == SurfaceKind::D1;
        let (sw, sh) = if self.normalized {
            (f64::from(level.width), f64::from(level.height))
        } else {
            (1.0, 1.0)
        };
        let coord = |c: f32| if c.is_nan() { 0.0 } else { f64::from(c) };
        let (x, y) = (coord(u) * sw, if one_d { 0.0 } else { coord(v) * sh });
        let (du, dv) = self.offsets;
        let dv = if one_d { 0 } else { dv };
        match filter {
            Filter::Nearest => {
                let (i, j) = (index(libm::floor(x)), index(libm::floor(y)));
                self.texel(env, &level, i + du, j + dv, shadow)
            }
            Filter::Linear => {
                let (x, y) = (x - 0.5, if one_d { 0.0 } else { y - 0.5 });
                let (fx, fy) = (libm::floor(x), libm::floor(y));
                let (a, b) = (x - fx, y - fy);
                let (i, j) = (index(fx) + du, index(fy) + dv);
                let taps: &[(i64, i64, f64)] = if one_d {
                    &[(0, 0, 1.0 - a), (1, 0, a)]
                } else {
                    &[
                        (0, 0, (1.0 - a) * (1.0 - b)),
                        (1, 0, a * (1.0 - b)),
                        (0, 1, (1.0 - a) * b),
                        (1, 1, a * b),
                    ]
                };
                let mut sum = [0f64; 4];
                for &(ox, oy, w) in taps {
                    let t = self.texel(env, &level, i + ox, j + oy, shadow)?;
                    for (s, c) in sum.iter_mut().zip(t) {
                        *s += w * f64::from(f32::from_bits(c));
                    }
                }
                Ok(sum.map(|s| (s as f32).to_bits()))
            }
        }
    }

    /// Texel (`x`, `y`) of `level` after the address modes, or the border
    /// colour; with the shadow compare applied.
    fn texel(
        &self,
        env: &mut MessageEnv,
        level: &MipLevel,
        x: i64,
        y: i64,
        shadow: Shadow,
    ) -> Result<[u32; 4], SendError> {
        let w = i64::from(level.width);
        let h = i64::from(level.height);
        let mut t = match (address(x, w, self.modes[0]), address(y, h, self.modes[1])) {
            (Some(x), Some(y)) => texel::read(
                env,
                self.surface,
                &self.format,
                u64::from(level.x) + x as u64,
                u64::from(level.y) + y as u64,
            )?,
            _ => self.border,
        };
        if let Some((f, reference)) = shadow {
            t[0] = f.apply(f32::from_bits(t[0]), reference).to_bits();
        }
        Ok(t)
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
    }
}
