//! Sampler state in the state area: the SAMPLER_STATE array an interface
//! descriptor points to, and one SAMPLER_BORDER_COLOR_STATE per sampler,
//! packed with each generation's hal structures.
//!
//! Layout: entries 0 to the highest bound index, 16 bytes apart, the array
//! 32-byte aligned (000 line 3657; 003 lines 77315-77318); indices in
//! between that nothing binds get Sampler Disable, so a stray message
//! returns zeros (000 line 3659) instead of reading an unset state. Then
//! the border colours, 32-byte aligned (their pointer keeps bits 31:5: 000
//! line 3773; Mesa places the Gen4, G45 and Ivy Bridge colours with 32-byte
//! alignment too [ext: Mesa i965 brw_sampler_state.c upload_default_color]).
//! Pointers are General State relative on 965/G45 (000 lines 3773, 3971),
//! whose base this driver sets to 0, and Dynamic State relative on SNB and
//! Ivy Bridge (003 lines 47856-47867), whose base is the state area.
//!
//! Every sampler here uses DX10/OGL border colours (floats; 000 lines
//! 3817-3851) and LOD PreClamp in OGL mode ("it is expected that an OpenGL
//! driver would need to set this bit", 000 line 3672): the LOD is clamped
//! to [Min LOD, Max LOD] before the mag-vs-min decision.

use super::StateArea;
use crate::compute::error::ComputeError;
use crate::compute::sampler::{SamplerDesc, half_bits, snorm, unorm};

/// Bytes of one SAMPLER_STATE (4 dwords on every generation here).
const ENTRY_BYTES: usize = 16;

/// A placed sampler table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SamplerTable {
    /// Offset of entry 0 in the state area.
    pub at: u32,
    /// The interface descriptor's Sampler Count: samplers "in multiples of
    /// 4", 0-4 (003 lines 47869-47876; 965/G45 the same hint, "1-4
    /// samplers used" = 1 [ext: xf86-video-intel src/i965_render.c
    /// wm4.sampler_count]).
    pub count: u32,
}

/// A bound sampler as an entry packer sees it: its fields and where its
/// border colour goes.
pub(crate) type Bound<'d> = Option<(&'d SamplerDesc, u32)>;

/// Lays out the table of `samplers`, sorted by index (None when there is
/// none).
/// `border_bytes` is the generation's SAMPLER_BORDER_COLOR_STATE size;
/// `entry(area, at, bound)` packs entry `at`, a disabled one for `None`.
pub(crate) fn sampler_table(
    samplers: &[(u32, SamplerDesc)],
    area: &mut StateArea,
    border_bytes: usize,
    mut entry: impl FnMut(&mut StateArea, u32, Bound<'_>) -> Result<(), ComputeError>,
) -> Result<Option<SamplerTable>, ComputeError> {
    let Some(&(highest, _)) = samplers.last() else {
        return Ok(None);
    };
    let entries = highest + 1;
    let at = area.alloc(entries as usize * ENTRY_BYTES, 32);
    for index in 0..entries {
        let slot = at + index * ENTRY_BYTES as u32;
        match samplers.iter().find(|(i, _)| *i == index) {
            Some((_, desc)) => {
                let border = area.alloc(border_bytes, 32);
                entry(area, slot, Some((desc, border)))?;
            }
            None => entry(area, slot, None)?,
        }
    }
    Ok(Some(SamplerTable {
        at,
        count: entries.div_ceil(4),
    }))
}

/// `fn sampler_entry(area, at, bound, base)` for 965 and G45, whose
/// SAMPLER_STATE (000 lines 3649-3816, hal gen4 state.toml) and four-float
/// border colour (000 lines 3845-3851) the two share; `base` turns area
/// offsets into the General State offsets (graphics addresses) the
/// pointers hold.
macro_rules! gen4_sampler_entry {
    ($gen:ident) => {
        fn sampler_entry(
            area: &mut crate::compute::state::StateArea,
            at: u32,
            bound: crate::compute::state::sampler::Bound<'_>,
            base: u64,
        ) -> Result<(), crate::compute::error::ComputeError> {
            use baregpu_hal::$gen::structs as s;
            let Some((d, border)) = bound else {
                return area.put(
                    at,
                    &s::SamplerState {
                        sampler_disable: true,
                        ..Default::default()
                    },
                );
            };
            let [r, g, b, a] = d.border;
            area.put(
                border,
                &s::SamplerBorderColorState {
                    border_color_red: r,
                    border_color_green: g,
                    border_color_blue: b,
                    border_color_alpha: a,
                },
            )?;
            let (min_round, mag_round) = d.rounding();
            area.put(
                at,
                &s::SamplerState {
                    lod_preclamp_enable: true,
                    mip_mode_filter: d.mip_filter,
                    mag_mode_filter: d.mag_filter,
                    min_mode_filter: d.min_filter,
                    texture_lod_bias: d.lod_bias,
                    min_lod: d.min_lod,
                    max_lod: d.max_lod,
                    tcx_address_control_mode: d.address[0],
                    tcy_address_control_mode: d.address[1],
                    tcz_address_control_mode: d.address[2],
                    border_color_pointer: base + border as u64,
                    u_address_mag_filter_rounding_enable: mag_round,
                    u_address_min_filter_rounding_enable: min_round,
                    v_address_mag_filter_rounding_enable: mag_round,
                    v_address_min_filter_rounding_enable: min_round,
                    r_address_mag_filter_rounding_enable: mag_round,
                    r_address_min_filter_rounding_enable: min_round,
                    ..Default::default()
                },
            )
        }
    };
}

pub(crate) use gen4_sampler_entry;

/// Gen6 SAMPLER_BORDER_COLOR_STATE bytes (12 dwords, hal gen6 state_extra.toml).
pub(crate) const GEN6_BORDER_BYTES: usize = 48;

/// SNB's SAMPLER_STATE (003 lines 77311-77871). Its border colour holds
/// the colour in every format the sampler may read it in [ext: Mesa
/// gen6.xml SAMPLER_BORDER_COLOR_STATE; Mesa i965 upload_default_color
/// fills each copy from the same float colour]: UNORM8, float, half,
/// UNORM16, SNORM16 and SNORM8, each converted by the format's definition.
pub(crate) fn gen6_sampler_entry(
    area: &mut StateArea,
    at: u32,
    bound: Bound<'_>,
) -> Result<(), ComputeError> {
    use baregpu_hal::gen6::structs as s;
    let Some((d, border)) = bound else {
        return area.put(
            at,
            &s::SamplerState {
                sampler_disable: true,
                ..Default::default()
            },
        );
    };
    let c = d.border;
    let (u8c, u16c) = (c.map(|v| unorm(v, 8)), c.map(|v| unorm(v, 16)));
    let (s8c, s16c, hc) = (
        c.map(|v| snorm(v, 8)),
        c.map(|v| snorm(v, 16)),
        c.map(half_bits),
    );
    area.put(
        border,
        &s::SamplerBorderColorState {
            border_color_unorm_red: u8c[0],
            border_color_unorm_green: u8c[1],
            border_color_unorm_blue: u8c[2],
            border_color_unorm_alpha: u8c[3],
            border_color_float_red: c[0],
            border_color_float_green: c[1],
            border_color_float_blue: c[2],
            border_color_float_alpha: c[3],
            border_color_float16_red: hc[0],
            border_color_float16_green: hc[1],
            border_color_float16_blue: hc[2],
            border_color_float16_alpha: hc[3],
            border_color_unorm16_red: u16c[0],
            border_color_unorm16_green: u16c[1],
            border_color_unorm16_blue: u16c[2],
            border_color_unorm16_alpha: u16c[3],
            border_color_snorm16_red: s16c[0],
            border_color_snorm16_green: s16c[1],
            border_color_snorm16_blue: s16c[2],
            border_color_snorm16_alpha: s16c[3],
            border_color_snorm8_red: s8c[0],
            border_color_snorm8_green: s8c[1],
            border_color_snorm8_blue: s8c[2],
            border_color_snorm8_alpha: s8c[3],
        },
    )?;
    let (min_round, mag_round) = d.rounding();
    // Address Rounding Enable bits 18:13 = U mag, U min, V mag, V min, R
    // mag, R min (003 lines 77828-77850).
    let rounding = if mag_round { 0b10_1010 } else { 0 } | if min_round { 0b01_0101 } else { 0 };
    area.put(
        at,
        &s::SamplerState {
            lod_preclamp_enable: s::SamplerState::LOD_PRECLAMP_ENABLE_OGL,
            // "Must be set to 1 if ... Mag Mode Filter and Min Mode Filter
            // are not the same" or the rounding bits differ (003 lines
            // 77352-77382); the rounding bits follow the filters.
            min_and_mag_state_not_equal: if d.min_filter != d.mag_filter {
                s::SamplerState::MIN_AND_MAG_STATE_NOT_EQUAL_MIN_MAG_NEQ
            } else {
                s::SamplerState::MIN_AND_MAG_STATE_NOT_EQUAL_MIN_MAG_EQ
            },
            mip_mode_filter: d.mip_filter,
            mag_mode_filter: d.mag_filter,
            min_mode_filter: d.min_filter,
            texture_lod_bias: d.lod_bias,
            min_lod: d.min_lod,
            max_lod: d.max_lod,
            tcx_address_control_mode: d.address[0],
            tcy_address_control_mode: d.address[1],
            tcz_address_control_mode: d.address[2],
            border_color_pointer: border,
            address_rounding_enable: rounding,
            non_normalized_coordinates: d.non_normalized,
            ..Default::default()
        },
    )
}

/// Ivy Bridge SAMPLER_STATE [ext: Mesa gen7.xml SAMPLER_STATE; hal gen7
/// state.toml] and its four-float border colour [ext: Mesa gen7.xml
/// SAMPLER_BORDER_COLOR_STATE, 32-byte aligned as Mesa i965 places it].
pub(crate) fn gen7_sampler_entry(
    area: &mut StateArea,
    at: u32,
    bound: Bound<'_>,
) -> Result<(), ComputeError> {
    use baregpu_hal::gen7::structs as s;
    let Some((d, border)) = bound else {
        return area.put(
            at,
            &s::SamplerState {
                sampler_disable: true,
                ..Default::default()
            },
        );
    };
    let [r, g, b, a] = d.border;
    area.put(
        border,
        &s::SamplerBorderColorState {
            border_color_float_red: r,
            border_color_float_green: g,
            border_color_float_blue: b,
            border_color_float_alpha: a,
        },
    )?;
    let (min_round, mag_round) = d.rounding();
    area.put(
        at,
        &s::SamplerState {
            lod_preclamp_enable: s::SamplerState::LOD_PRECLAMP_ENABLE_CLAMP_ENABLE_OGL,
            mip_mode_filter: d.mip_filter,
            mag_mode_filter: d.mag_filter,
            min_mode_filter: d.min_filter,
            texture_lod_bias: d.lod_bias,
            min_lod: d.min_lod,
            max_lod: d.max_lod,
            border_color_pointer: border,
            u_address_mag_filter_rounding_enable: mag_round,
            u_address_min_filter_rounding_enable: min_round,
            v_address_mag_filter_rounding_enable: mag_round,
            v_address_min_filter_rounding_enable: min_round,
            r_address_mag_filter_rounding_enable: mag_round,
            r_address_min_filter_rounding_enable: min_round,
            non_normalized_coordinate_enable: d.non_normalized,
            tcx_address_control_mode: d.address[0],
            tcy_address_control_mode: d.address[1],
            tcz_address_control_mode: d.address[2],
            ..Default::default()
        },
    )
}
