//! Samplers: how a kernel's `sample` messages filter and address a
//! texture, given to a dispatch by sampler index, and their validation into
//! the generation-neutral field values that `state/sampler.rs` packs into
//! SAMPLER_STATE and SAMPLER_BORDER_COLOR_STATE.
//!
//! What the sampler does with these (000 sampling engine chapter, lines
//! 2660-3016 and SAMPLER_STATE 3649-3854; SNB 003 lines 77311-77871):
//! nearest or bilinear filtering in a level, no, nearest or linear
//! filtering between mip levels, an address mode per axis, a border colour,
//! LOD clamps and bias, and (SNB and later) non-normalized coordinates.
//! Not offered: anisotropic and monochrome filters, shadow compare,
//! ChromaKey, cube maps, DX9 border colours.

use alloc::vec::Vec;

use baregpu_hal::Generation;

use super::error::ComputeError;

/// Sampler states one table holds: "an array of up to 16 elements" (000
/// line 3657; 003 lines 77315-77318), indexed by the message's 4-bit
/// Sampler Index.
pub const MAX_SAMPLERS: u32 = 16;

/// Largest Min and Max LOD: "Range [0.0, 13.0]" (000 lines 3722 and 3726;
/// the same on SNB, 003 SAMPLER_STATE DW1).
pub const MAX_LOD: f32 = 13.0;

/// Filter within one mip level (Min/Mag Mode Filter, 000 lines 3692-3700).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Filter {
    /// MAPFILTER_NEAREST: the texel containing the coordinate.
    Nearest,
    /// MAPFILTER_LINEAR: the 2x2 texels around it, weighted by distance.
    #[default]
    Linear,
}

/// Filter between mip levels (Mip Mode Filter, 000 line 3682).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum MipFilter {
    /// MIPFILTER_NONE: the level of Min LOD only.
    #[default]
    None,
    /// MIPFILTER_NEAREST: the nearest level to the computed LOD.
    Nearest,
    /// MIPFILTER_LINEAR: a blend of the two nearest levels.
    Linear,
}

/// What a coordinate outside the texture maps to (TCX/TCY/TCZ Address
/// Control Mode, 000 lines 2915-2972 and 3748-3760).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum AddressMode {
    /// TEXCOORDMODE_WRAP: repeat the texture.
    Wrap,
    /// TEXCOORDMODE_MIRROR: repeat it mirrored at every edge.
    Mirror,
    /// TEXCOORDMODE_CLAMP: repeat the edge texel.
    #[default]
    Clamp,
    /// TEXCOORDMODE_CLAMP_BORDER: texels outside are the border colour.
    ClampBorder,
    /// TEXCOORDMODE_MIRROR_ONCE: mirror once about 0, then clamp.
    MirrorOnce,
}

/// One sampler: [`Sampler::new`] is bilinear, no mip filtering, clamp to
/// edge on every axis, border colour transparent black, LOD range [0, 13],
/// no bias, normalized coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampler {
    /// Filter when the texture is shrunk (LOD > 0).
    pub min_filter: Filter,
    /// Filter when it is enlarged (LOD <= 0).
    pub mag_filter: Filter,
    pub mip_filter: MipFilter,
    /// U, V and R (the third matters for 3D surfaces only).
    pub address: [AddressMode; 3],
    /// Red, green, blue, alpha of texels outside the texture under
    /// [`AddressMode::ClampBorder`] (DX10/OGL mode: 32-bit floats).
    pub border: [f32; 4],
    /// The computed LOD is clamped to [min_lod, max_lod], both in [0, 13].
    pub min_lod: f32,
    pub max_lod: f32,
    /// Added to the computed LOD, in [-16, 16).
    pub lod_bias: f32,
    /// Coordinates count texels instead of running over [0, 1) (SNB and
    /// later; address modes Clamp or ClampBorder only).
    pub non_normalized: bool,
}

impl Sampler {
    /// Bilinear, clamp to edge.
    pub const fn new() -> Self {
        Sampler {
            min_filter: Filter::Linear,
            mag_filter: Filter::Linear,
            mip_filter: MipFilter::None,
            address: [AddressMode::Clamp; 3],
            border: [0.0; 4],
            min_lod: 0.0,
            max_lod: MAX_LOD,
            lod_bias: 0.0,
            non_normalized: false,
        }
    }

    /// This sampler with `filter` for both minification and magnification.
    pub const fn with_filter(self, filter: Filter) -> Self {
        Sampler {
            min_filter: filter,
            mag_filter: filter,
            ..self
        }
    }

    /// This sampler with `mode` on every axis.
    pub const fn with_address(self, mode: AddressMode) -> Self {
        Sampler {
            address: [mode; 3],
            ..self
        }
    }
}

impl Default for Sampler {
    fn default() -> Self {
        Sampler::new()
    }
}

/// A sampler after validation: the SAMPLER_STATE field codes (the same
/// codes on 965, G45, SNB and Ivy Bridge) and its border colour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SamplerDesc {
    /// MAPFILTER_* codes: 0 nearest, 1 linear (000 lines 3692-3700).
    pub min_filter: u32,
    pub mag_filter: u32,
    /// MIPFILTER_* code: 0 none, 1 nearest, 3 linear (000 line 3682).
    pub mip_filter: u32,
    /// TEXCOORDMODE_* codes of TCX, TCY, TCZ: 0 wrap, 1 mirror, 2 clamp,
    /// 4 clamp border, 5 mirror once (000 lines 3748-3760).
    pub address: [u32; 3],
    /// Min/Max LOD in the generation's unsigned fixed point: U4.6 on
    /// 965/G45/SNB (000 lines 3722, 3726), U4.8 on Ivy Bridge [ext: Mesa
    /// gen7.xml SAMPLER_STATE Min LOD, Max LOD].
    pub min_lod: u32,
    pub max_lod: u32,
    /// Texture LOD Bias, S4.6 (000 line 3705) or S4.8 on Ivy Bridge [ext:
    /// Mesa gen7.xml], two's complement.
    pub lod_bias: i32,
    pub non_normalized: bool,
    pub border: [f32; 4],
}

impl SamplerDesc {
    /// The field values of `s` on `generation`, or why it cannot be had.
    pub(crate) fn of(s: &Sampler, generation: Generation) -> Result<Self, ComputeError> {
        let frac = if generation == Generation::Gen7 { 8 } else { 6 };
        let in_lod_range = |v: f32| (0.0..=MAX_LOD).contains(&v);
        if !in_lod_range(s.min_lod) || !in_lod_range(s.max_lod) {
            return Err(ComputeError::Invalid("sampler min/max LOD outside [0, 13]"));
        }
        // "Range [-16.0, 16.0)" (000 line 3705).
        if !(-16.0..16.0).contains(&s.lod_bias) {
            return Err(ComputeError::Invalid("sampler LOD bias outside [-16, 16)"));
        }
        if s.border.iter().any(|c| !c.is_finite()) {
            return Err(ComputeError::Invalid("sampler border colour is not finite"));
        }
        if s.non_normalized {
            if matches!(generation, Generation::Gen4 | Generation::G45) {
                return Err(ComputeError::Unsupported {
                    generation,
                    what: "non-normalized sampler coordinates (SNB and later)",
                });
            }
            // "TCX/Y/Z Address Control Mode must be TEXCOORDMODE_CLAMP or
            // TEXCOORDMODE_CLAMP_BORDER if enabled" (003 lines 77855-77867).
            if s.address
                .iter()
                .any(|m| !matches!(m, AddressMode::Clamp | AddressMode::ClampBorder))
            {
                return Err(ComputeError::Invalid(
                    "non-normalized coordinates need Clamp or ClampBorder on every axis",
                ));
            }
        }
        let one = 1u32 << frac;
        let mut max_lod = fixed_u(s.max_lod, frac);
        // [Pre-DevIL] erratum: with MIPFILTER_NEAREST a Max LOD fraction in
        // (0, 0.5) picks one level too many; "zeroing the fractional
        // portion ... gives the correct behavior" (000 line 3730).
        let frac_part = max_lod % one;
        if matches!(generation, Generation::Gen4 | Generation::G45)
            && s.mip_filter == MipFilter::Nearest
            && frac_part > 0
            && frac_part < one / 2
        {
            max_lod -= frac_part;
        }
        // S4.x: [-16, 16) in 1/2^frac steps; rounding may reach 16.
        let bias_limit = 16i32 << frac;
        let lod_bias = round(s.lod_bias * one as f32).min(bias_limit - 1);
        Ok(SamplerDesc {
            min_filter: filter_code(s.min_filter),
            mag_filter: filter_code(s.mag_filter),
            mip_filter: match s.mip_filter {
                MipFilter::None => 0,
                MipFilter::Nearest => 1,
                MipFilter::Linear => 3,
            },
            address: s.address.map(address_code),
            min_lod: fixed_u(s.min_lod, frac),
            max_lod,
            lod_bias,
            non_normalized: s.non_normalized,
            border: s.border,
        })
    }

    /// Whether the linear filter is on for minification, magnification:
    /// the Address Rounding Enable bits follow the filters, as Mesa sets
    /// them [ext: Mesa i965 brw_sampler_state.c brw_update_sampler_state,
    /// rounding for every non-nearest filter].
    pub(crate) fn rounding(&self) -> (bool, bool) {
        (self.min_filter != 0, self.mag_filter != 0)
    }
}

/// `v` (in [0, 13]) in unsigned fixed point with `frac` fraction bits,
/// rounded to nearest.
fn fixed_u(v: f32, frac: u32) -> u32 {
    round(v * (1u32 << frac) as f32) as u32
}

/// `v` rounded to the nearest integer, halves away from zero (`f32::round`
/// is not in `core`); `v` is finite and small here.
fn round(v: f32) -> i32 {
    let m = (v.abs() + 0.5) as i32;
    if v < 0.0 { -m } else { m }
}

const fn filter_code(f: Filter) -> u32 {
    match f {
        Filter::Nearest => 0,
        Filter::Linear => 1,
    }
}

const fn address_code(m: AddressMode) -> u32 {
    match m {
        AddressMode::Wrap => 0,
        AddressMode::Mirror => 1,
        AddressMode::Clamp => 2,
        AddressMode::ClampBorder => 4,
        AddressMode::MirrorOnce => 5,
    }
}

/// The sampler table of a dispatch: bound samplers validated, sorted by
/// index, each index in range and bound once.
pub(crate) fn plan_samplers(
    generation: Generation,
    bound: &[(u32, Sampler)],
    used: &[u32],
) -> Result<Vec<(u32, SamplerDesc)>, ComputeError> {
    let mut out: Vec<(u32, SamplerDesc)> = Vec::with_capacity(bound.len());
    for (index, s) in bound {
        if *index >= MAX_SAMPLERS || out.iter().any(|(i, _)| i == index) {
            return Err(ComputeError::BadSampler { index: *index });
        }
        out.push((*index, SamplerDesc::of(s, generation)?));
    }
    out.sort_by_key(|(i, _)| *i);
    if let Some(&index) = used.iter().find(|u| !out.iter().any(|(i, _)| i == *u)) {
        return Err(ComputeError::MissingSampler { index });
    }
    Ok(out)
}

/// Unsigned normalized `bits`-bit value of `v` (clamped to [0, 1]).
pub(crate) fn unorm(v: f32, bits: u32) -> u32 {
    // In f64: 2^24 - 1 + 0.5 rounds up to 2^24 in f32, which would turn a
    // 24-bit 1.0 into 0 once masked.
    let max = ((1u64 << bits) - 1) as f64;
    (f64::from(v.clamp(0.0, 1.0)) * max + 0.5) as u32
}

/// Signed normalized `bits`-bit value of `v` (clamped to [-1, 1]), in
/// two's complement.
pub(crate) fn snorm(v: f32, bits: u32) -> i32 {
    let max = ((1u32 << (bits - 1)) - 1) as f32;
    round(v.clamp(-1.0, 1.0) * max)
}

/// IEEE 754 binary16 bits of `v`, rounded to nearest even; overflow gives
/// infinity, NaN a quiet NaN.
pub(crate) fn half_bits(v: f32) -> u32 {
    let bits = v.to_bits();
    let sign = (bits >> 16) & 0x8000;
    let exp = ((bits >> 23) & 0xff) as i32;
    let man = bits & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    // Exponent rebiased from 127 to 15.
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    // The 24-bit significand (implicit one) and how far it shifts right to
    // land in the 10-bit field: 13 for normals, more for subnormals.
    let (sig, shift) = if e <= 0 {
        if e < -10 {
            return sign;
        }
        (man | 0x80_0000, (14 - e) as u32)
    } else {
        (man, 13)
    };
    let mut h = sig >> shift;
    let rest = sig & ((1 << shift) - 1);
    let halfway = 1 << (shift - 1);
    if rest > halfway || (rest == halfway && h & 1 == 1) {
        h += 1;
    }
    // A carry out of the mantissa moves into the exponent, as it should.
    let exp_field = if e <= 0 { 0 } else { (e as u32) << 10 };
    sign | (exp_field + h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_precision_matches_the_format() {
        // binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits.
        assert_eq!(half_bits(1.0), 0x3c00);
        assert_eq!(half_bits(0.5), 0x3800);
        assert_eq!(half_bits(-2.0), 0xc000);
        assert_eq!(half_bits(0.0), 0);
        assert_eq!(half_bits(-0.0), 0x8000);
        assert_eq!(half_bits(65504.0), 0x7bff);
        assert_eq!(half_bits(65520.0), 0x7c00, "rounds up to infinity");
        assert_eq!(half_bits(1.0e6), 0x7c00);
        assert_eq!(half_bits(f32::INFINITY), 0x7c00);
        assert_eq!(half_bits(f32::NAN) & 0x7e00, 0x7e00);
        // Smallest subnormal 2^-24 and the largest one (1023 * 2^-24).
        assert_eq!(half_bits(2f32.powi(-24)), 1);
        assert_eq!(half_bits(1023.0 * 2f32.powi(-24)), 0x3ff);
        assert_eq!(half_bits(2f32.powi(-26)), 0, "below half the smallest");
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1).
        assert_eq!(half_bits(1.0 + 2f32.powi(-11)), 0x3c00);
        assert_eq!(half_bits(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
        // 1/3 = 0x3555 (0.333251953125).
        assert_eq!(half_bits(1.0 / 3.0), 0x3555);
    }

    #[test]
    fn normalized_integers_round_and_clamp() {
        assert_eq!(unorm(1.0, 8), 255);
        assert_eq!(unorm(0.5, 8), 128);
        assert_eq!(unorm(-3.0, 8), 0);
        assert_eq!(unorm(0.25, 16), 16384);
        assert_eq!(unorm(1.0, 24), 0xFF_FFFF);
        assert_eq!(snorm(-1.0, 16), -32767);
        assert_eq!(snorm(0.5, 8), 64);
        assert_eq!(snorm(2.0, 8), 127);
    }

    #[test]
    fn lod_fields_are_fixed_point_per_generation() {
        let s = Sampler {
            min_lod: 1.5,
            max_lod: 2.25,
            lod_bias: -0.75,
            ..Sampler::new()
        };
        let d6 = SamplerDesc::of(&s, Generation::Gen6).unwrap();
        assert_eq!((d6.min_lod, d6.max_lod, d6.lod_bias), (96, 144, -48));
        let d7 = SamplerDesc::of(&s, Generation::Gen7).unwrap();
        assert_eq!((d7.min_lod, d7.max_lod, d7.lod_bias), (384, 576, -192));
        // The largest bias below 16 rounds to the largest S4.6 value.
        let near16 = Sampler {
            lod_bias: 15.999,
            ..Sampler::new()
        };
        assert_eq!(
            SamplerDesc::of(&near16, Generation::Gen4).unwrap().lod_bias,
            1023
        );
    }

    #[test]
    fn pre_ironlake_max_lod_fraction_erratum() {
        let s = Sampler {
            mip_filter: MipFilter::Nearest,
            max_lod: 2.25,
            ..Sampler::new()
        };
        // 000 line 3730: the fraction is dropped on 965/G45 only.
        assert_eq!(SamplerDesc::of(&s, Generation::G45).unwrap().max_lod, 128);
        assert_eq!(SamplerDesc::of(&s, Generation::Gen6).unwrap().max_lod, 144);
        let upper = Sampler { max_lod: 2.75, ..s };
        assert_eq!(
            SamplerDesc::of(&upper, Generation::Gen4).unwrap().max_lod,
            176
        );
    }

    #[test]
    fn what_is_refused() {
        let g = Generation::Gen6;
        let bad = [
            Sampler {
                max_lod: 13.5,
                ..Sampler::new()
            },
            Sampler {
                min_lod: -1.0,
                ..Sampler::new()
            },
            Sampler {
                lod_bias: 16.0,
                ..Sampler::new()
            },
            Sampler {
                border: [f32::NAN, 0.0, 0.0, 0.0],
                ..Sampler::new()
            },
            Sampler {
                non_normalized: true,
                ..Sampler::new().with_address(AddressMode::Wrap)
            },
        ];
        for s in bad {
            assert!(SamplerDesc::of(&s, g).is_err(), "{s:?}");
        }
        let nn = Sampler {
            non_normalized: true,
            ..Sampler::new()
        };
        assert!(SamplerDesc::of(&nn, Generation::Gen7).is_ok());
        assert!(matches!(
            SamplerDesc::of(&nn, Generation::Gen4),
            Err(ComputeError::Unsupported { .. })
        ));
        let s = Sampler::new();
        assert_eq!(
            plan_samplers(g, &[(16, s)], &[]),
            Err(ComputeError::BadSampler { index: 16 })
        );
        assert_eq!(
            plan_samplers(g, &[(1, s), (1, s)], &[]),
            Err(ComputeError::BadSampler { index: 1 })
        );
        assert_eq!(
            plan_samplers(g, &[(0, s)], &[0, 3]),
            Err(ComputeError::MissingSampler { index: 3 })
        );
        let sorted = plan_samplers(g, &[(5, s), (2, s)], &[2]).unwrap();
        assert_eq!(sorted.iter().map(|(i, _)| *i).collect::<Vec<_>>(), [2, 5]);
    }
}
