//! Colour buffer blending (003 lines 44997-45130: Table 23 factors, Table
//! 24 functions), pre- and post-blend clamps (003 lines 44889-44996,
//! 45131-45141) and logic ops (003 lines 45216-45255, Table 25), in f32.
//!
//! MIN and MAX apply the factors: "min (SrcColor*SrcFactor,
//! DstColor*DstFactor)", "a superset of the OpenGL min function" (003
//! lines 45123-45130).

use baregpu_hal::gen6::structs::BlendState;

use crate::eu::shared::render_target::Class;

/// The range of Color Clamp Range (003 lines 46367-46372: 0 UNORM, 1
/// SNORM, 2 the render target's format) for a render target of `class`.
pub(super) fn clamp_range(range: u32, class: Class) -> Option<(f32, f32)> {
    match range {
        0 => Some((0.0, 1.0)),
        1 => Some((-1.0, 1.0)),
        _ => match class {
            Class::Unorm => Some((0.0, 1.0)),
            Class::Snorm => Some((-1.0, 1.0)),
            // Float formats: their own range, no clamp.
            _ => None,
        },
    }
}

pub(super) fn clamp4(c: [f32; 4], range: Option<(f32, f32)>) -> [f32; 4] {
    match range {
        // f32::clamp keeps NaN; the store turns it into 0 for UNORM/SNORM.
        Some((lo, hi)) => c.map(|v| v.clamp(lo, hi)),
        None => c,
    }
}

/// What the blend factors read.
pub(super) struct Inputs {
    pub src: [f32; 4],
    /// Source 1 of a dual-source write.
    pub src1: Option<[f32; 4]>,
    pub dst: [f32; 4],
    pub constant: [f32; 4],
}

/// BLENDFACTOR `f` (003 lines 45938-45978) for channel `ch`; `None` for a
/// reserved code or a source-1 factor without source 1.
fn factor(f: u32, ch: usize, i: &Inputs) -> Option<f32> {
    let s1 = || i.src1;
    Some(match f {
        0x01 => 1.0,
        0x02 => i.src[ch],
        0x03 => i.src[3],
        0x04 => i.dst[3],
        0x05 => i.dst[ch],
        0x06 => {
            if ch == 3 {
                1.0
            } else {
                (1.0 - i.dst[3]).min(i.src[3])
            }
        }
        0x07 => i.constant[ch],
        0x08 => i.constant[3],
        0x09 => s1()?[ch],
        0x0A => s1()?[3],
        0x11 => 0.0,
        0x12 => 1.0 - i.src[ch],
        0x13 => 1.0 - i.src[3],
        0x14 => 1.0 - i.dst[3],
        0x15 => 1.0 - i.dst[ch],
        0x17 => 1.0 - i.constant[ch],
        0x18 => 1.0 - i.constant[3],
        0x19 => 1.0 - s1()?[ch],
        0x1A => 1.0 - s1()?[3],
        _ => return None,
    })
}

/// BLENDFUNCTION (003 lines 45905-45913).
fn function(func: u32, s: f32, d: f32) -> Option<f32> {
    Some(match func {
        0 => s + d,
        1 => s - d,
        2 => d - s,
        3 => s.min(d),
        4 => s.max(d),
        _ => return None,
    })
}

/// The blended colour; `Err` names a reserved factor or function.
pub(super) fn blend(b: &BlendState, i: &Inputs) -> Result<[f32; 4], &'static str> {
    let mut out = [0.0f32; 4];
    for (ch, o) in out.iter_mut().enumerate() {
        // Without Independent Alpha Blend the colour state serves alpha
        // too (003 lines 45035-45040).
        let (func, sf, df) = if ch == 3 && b.independent_alpha_blend_enable {
            (
                b.alpha_blend_function,
                b.source_alpha_blend_factor,
                b.destination_alpha_blend_factor,
            )
        } else {
            (
                b.color_blend_function,
                b.source_blend_factor,
                b.destination_blend_factor,
            )
        };
        let s = factor(sf, ch, i).ok_or(
            "BLEND_STATE: reserved blend factor, or a source-1 factor without a dual-source write",
        )?;
        let d = factor(df, ch, i).ok_or(
            "BLEND_STATE: reserved blend factor, or a source-1 factor without a dual-source write",
        )?;
        *o = function(func, i.src[ch] * s, i.dst[ch] * d)
            .ok_or("BLEND_STATE: reserved blend function")?;
    }
    Ok(out)
}

/// LOGICOP `op` (Table 25, 003 lines 45235-45255) on the stored fields
/// `s` and `d` of `bits` bits.
pub(super) fn logic_op(op: u32, s: u32, d: u32, bits: u32) -> u32 {
    let r = match op & 0xF {
        0x0 => 0,
        0x1 => !(s | d),
        0x2 => !s & d,
        0x3 => !s,
        0x4 => s & !d,
        0x5 => !d,
        0x6 => s ^ d,
        0x7 => !(s & d),
        0x8 => s & d,
        0x9 => !(s ^ d),
        0xA => d,
        0xB => !s | d,
        0xC => s,
        0xD => s | !d,
        0xE => s | d,
        _ => u32::MAX,
    };
    if bits >= 32 { r } else { r & ((1 << bits) - 1) }
}
