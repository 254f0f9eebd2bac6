//! Level of detail: the LOD from gradients, then the manual's biasing,
//! clamping, min/mag determination and mip-level choice.
//!
//! LOD from gradients (000 lines 2739-2745, "the ideal LOD computation"):
//! `log2(max(|(du/dx, dv/dx)|, |(du/dy, dv/dy)|))` with the coordinates in
//! texels of the base level; 3D surfaces add dr (in planes of the base
//! level) to each vector ("1D and 3D surfaces follow a similar method but
//! with a different number of dimensions", 003 lines 73382-73383). Cube
//! maps take the differences of the face coordinates on the face of the
//! subspan's upper-left pixel, in texels of the face (a choice: the
//! manuals do not define cube gradients). `sample`, `sample_b` and `sample_c` take the
//! gradients "between adjacent pixels" (000 line 4038; 003 lines
//! 79437-79438): the differences of the upper-right and lower-left pixel
//! of each 2x2 subspan from its upper-left one (subspans are lanes 4k to
//! 4k + 3 in UL, UR, LL, LR order, 000 lines 4103-4125; 003 lines
//! 79924-79956 for SIMD16 and 79966-79985 for SIMD8, "Subspan 0, Pixel 0
//! (upper left)"), whatever kind of thread sent the message; these three
//! pixels are used even when their channels are off (000 lines 3927-3929;
//! 003 lines 79157-79160, "the sampling engine assumes that the parameters
//! for the upper left, upper right, and lower left pixels in the subspan
//! are valid regardless of the execution mask, as these are needed for
//! the LOD computation"). The Gen6 manual states the payload in subspans
//! for every thread type; only the pixel shader's dispatch puts pixels of
//! a 2x2 subspan there, so other threads get the same arithmetic on
//! whatever lanes 4k to 4k + 3 hold. SIMD4x2 messages have no subspan and
//! may not use these three messages (003 lines 79453, 79484, 79518-79520). `sample_d` brings the gradients.
//! The manuals say the hardware's LOD is "implementation-dependent"
//! (000 line 2733); this model computes the ideal one in double precision.
//!
//! Then the pseudocode of 000 lines 2781-2828, taken literally, on every
//! generation (the Gen6 copy, 003 lines 73279-73301, lost its body in the
//! conversion; Gen7 has no manual here):
//!
//! ```text
//! MaxLod = min(MaxLod, MIPCnt) + SurfMinLod
//! MinLod = min(MinLod, MIPCnt) + SurfMinLod
//! sample_b: LOD += Bias + bias_parameter;  sample_l: LOD = Bias + lod + SurfMinLod
//! otherwise LOD += Bias
//! PreClamp: LOD = max(min(LOD, MaxLod), MinLod)
//! MagMode = (LOD - Base <= 0)
//! MagMode or MipFlt None: LOD = max(min(0, ceil(MaxLod)), floor(MinLod))
//! MipFlt Nearest: LOD = floor(max(min(LOD + 0.5, ceil(MaxLod)), floor(MinLod)))
//! MipFlt Linear: LOD = max(min(LOD, MaxLod), MinLod); TriBeta = frac(LOD);
//!                LOD0 = floor(LOD); LOD1 = LOD0 + 1
//! ```
//!
//! MIPCnt is the SURFACE_STATE field (levels - 1). Both levels are then
//! clamped to the integer range of the clamped MinLod and MaxLod (000 lines
//! 2844-2845; access "between ... the integer bits of the Min LOD and the
//! ceiling of" Max LOD, line 3726). The Gen4/G45 erratum of line 3730
//! (MIPFILTER_NEAREST with a Max LOD fraction below 0.5 picks one level
//! too many) is what the pseudocode's `ceil(MaxLod)` does, and is kept on
//! every generation. A NaN LOD is taken as 0 (the manuals do not say).

use super::state::{MipFilter, SamplerState};
use crate::eu::shared::surface::Surface;

/// The LOD a message delivers or implies, before the pseudocode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum LodIn {
    /// From gradients (sample, sample_c, sample_d), or 0 with Force LOD to
    /// Zero.
    Computed(f64),
    /// From gradients plus the message's bias (sample_b).
    Biased(f64, f64),
    /// The message's lod (sample_l).
    Explicit(f64),
}

/// The level or levels to filter, absolute (0 is the base map).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Pick {
    /// Magnified: filter with the Mag Mode Filter, else the Min one.
    pub mag: bool,
    pub level0: u32,
    pub level1: u32,
    /// Weight of `level1` (0 unless MIPFILTER_LINEAR).
    pub beta: f64,
}

/// log2 of the longer gradient, in texels: `dx` and `dy` are the (u, v,
/// r) differences along x and y, `size` scales each (the level-0 width,
/// height and depth for normalized coordinates, 1 for unnormalized ones, 0
/// for an axis the surface lacks). Zero gradients give -inf.
pub(super) fn from_gradients(dx: [f64; 3], dy: [f64; 3], size: [f64; 3]) -> f64 {
    let len = |d: [f64; 3]| {
        let s: f64 = (0..3).map(|i| (d[i] * size[i]) * (d[i] * size[i])).sum();
        libm::sqrt(s)
    };
    libm::log2(len(dx).max(len(dy)))
}

/// The pseudocode's LOD after its bias step, with the clamp range it
/// uses (absolute levels: Surface Min LOD added).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Biased {
    lod: f64,
    min_lod: f64,
    max_lod: f64,
}

/// The pseudocode up to and including the bias (module doc); a NaN LOD
/// becomes 0 here.
fn biased(st: &SamplerState, s: &Surface, lod: LodIn) -> Biased {
    let mip_cnt = f64::from(s.mip_count.saturating_sub(1));
    let surf_min = f64::from(s.min_lod);
    let bias = f64::from(st.lod_bias);
    let lod = match lod {
        LodIn::Computed(l) => l + bias,
        LodIn::Biased(l, b) => l + bias + b,
        LodIn::Explicit(l) => bias + l + surf_min,
    };
    Biased {
        lod: if lod.is_nan() { 0.0 } else { lod },
        min_lod: f64::from(st.min_lod).min(mip_cnt) + surf_min,
        max_lod: f64::from(st.max_lod).min(mip_cnt) + surf_min,
    }
}

/// What the `lod` message returns: (clamped, unclamped). The manual names
/// the two values only ("the clamped and unclamped LOD values", 003 lines
/// 79659-79663); this model takes the unclamped one as the pseudocode's
/// LOD after the bias step and the clamped one as that LOD clamped to
/// [MinLod, MaxLod] (the PreClamp step, applied whatever LOD PreClamp
/// Enable says; a choice). Zero gradients give an unclamped -inf.
pub(super) fn query(st: &SamplerState, s: &Surface, lod: LodIn) -> (f64, f64) {
    let b = biased(st, s, lod);
    (b.lod.min(b.max_lod).max(b.min_lod), b.lod)
}

/// Applies the pseudocode of the module doc.
pub(super) fn pick(st: &SamplerState, s: &Surface, lod: LodIn) -> Pick {
    let Biased {
        mut lod,
        min_lod,
        max_lod,
    } = biased(st, s, lod);
    if st.lod_preclamp {
        lod = lod.min(max_lod).max(min_lod);
    }
    let mag = lod - f64::from(st.base_mip) <= 0.0;
    let (lo, hi) = (libm::floor(min_lod), libm::ceil(max_lod));
    let level = |l: f64| l.clamp(0.0, 31.0) as u32;
    let single = |l: f64| Pick {
        mag,
        level0: level(l),
        level1: level(l),
        beta: 0.0,
    };
    match st.mip_filter {
        _ if mag => single(0f64.min(hi).max(lo)),
        MipFilter::None => single(0f64.min(hi).max(lo)),
        MipFilter::Nearest => single(libm::floor((lod + 0.5).min(hi).max(lo))),
        MipFilter::Linear => {
            let l = lod.min(max_lod).max(min_lod);
            let l0 = libm::floor(l);
            Pick {
                mag,
                level0: level(l0),
                level1: level((l0 + 1.0).min(hi).max(lo)),
                beta: l - l0,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eu::shared::sampler::Sampling;
    use crate::eu::shared::surface::{MipLayout, Tiling, format};

    fn setup() -> (SamplerState, Surface) {
        let st = SamplerState {
            min_lod: 0.5,
            max_lod: 2.25,
            lod_bias: -0.25,
            mip_filter: MipFilter::Linear,
            ..Sampling::default().state()
        };
        let s = Surface::two_d(0, format::R8G8B8A8_UNORM, 16, 16, 64, Tiling::Linear)
            .with_mips(5, MipLayout::Below);
        (st, s)
    }

    /// `query` clamps to the same range the mip filter uses, whatever LOD
    /// PreClamp says, after the state's bias; Surface Min LOD moves the
    /// range, not the computed LOD.
    #[test]
    fn query_clamps_after_the_bias() {
        let (st, s) = setup();
        for pre in [false, true] {
            let st = SamplerState {
                lod_preclamp: pre,
                ..st
            };
            assert_eq!(query(&st, &s, LodIn::Computed(1.0)), (0.75, 0.75));
            assert_eq!(query(&st, &s, LodIn::Computed(4.0)), (2.25, 3.75));
            assert_eq!(query(&st, &s, LodIn::Computed(-3.0)), (0.5, -3.25));
            let (c, u) = query(&st, &s, LodIn::Computed(f64::NEG_INFINITY));
            assert_eq!((c, u), (0.5, f64::NEG_INFINITY));
        }
        let s = Surface { min_lod: 1, ..s };
        assert_eq!(query(&st, &s, LodIn::Computed(4.0)), (3.25, 3.75));
        assert_eq!(query(&st, &s, LodIn::Computed(f64::NAN)), (1.5, 0.0));
    }

    /// With MIPFILTER_LINEAR the levels `pick` blends are the ones around
    /// the clamped LOD `query` reports.
    #[test]
    fn linear_pick_follows_the_clamped_lod() {
        let (st, s) = setup();
        for lod in [-2.0, 0.6, 1.0, 1.7, 2.2, 9.0] {
            let (c, _) = query(&st, &s, LodIn::Computed(lod));
            let p = pick(&st, &s, LodIn::Computed(lod));
            if !p.mag {
                assert_eq!(f64::from(p.level0) + p.beta, c, "lod {lod}");
            }
        }
    }
}
