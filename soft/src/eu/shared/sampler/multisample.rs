//! The multisample loads: Gen7 `ld2dms` and `ld2dss`, and Gen6 `ld` with
//! its sample index, reading one sample of one pixel of a multisampled
//! surface where [`sample_location`] stores it (interleaved on Gen6 and
//! Gen7 MSFMT_DEPTH_STENCIL, array slices on Gen7 MSFMT_MSS).
//!
//! The manual (003 lines 79605-79645, ld, ld2dms, ld_mcs, ld2dss): the
//! sample index "is clamped to the number of samples on the surface", the
//! default sampler state is nearest filtering with the "zero" address mode
//! (a texel off the map reads zero, alpha one for formats without alpha;
//! 003 lines 79887-79891, "Input of any value outside of the range returns
//! zero"), and the surface of ld_mcs, ld2dms and ld2dss "must be
//! SURFTYPE_2D". Gen6's ld takes si after lod (003 lines 73661-73663,
//! 79380).
//!
//! Not modelled, refused by name: compressed multisampling (Gen7 MCS
//! Enable) and so `ld_mcs` (no public source here says what it returns on
//! a surface without an MCS); multisampled arrays and mip levels (no
//! public source here orders samples and slices; Mesa gives such
//! surfaces one level); the header's texel offsets on ld2dms and ld2dss
//! (Mesa sends none: "no offsetting for this message", [ext: mesa
//! src/intel/compiler/elk/elk_lower_logical_sends.cpp]); Gen6's sample*,
//! LOD and load4 on a 4X surface, which "in-effect sample a surface with
//! double the height and width" with each pixel "replaced with a 2x2 of
//! samples" (003 lines 73667-73677), not wired into the filter here.
//! An MCS value on a surface without MCS Enable is ignored.

use baregpu_isa::IsaGen;
use baregpu_isa::message::SamplerOp;

use super::super::MessageEnv;
use super::super::multisample::sample_location;
use super::super::payload::bad;
use super::super::surface::{Surface, SurfaceKind};
use super::state::BorderMode;
use super::texel::{self, Format};
use super::{Args, Header};
use crate::eu::send::SendError;

/// Whether `op` on `surface` is a multisample load served here; the
/// refusals of messages a multisampled surface does not serve, and of
/// what is not modelled.
pub(super) fn serves(p: IsaGen, op: SamplerOp, surface: &Surface) -> Result<bool, SendError> {
    use SamplerOp as O;
    let multi = surface.samples > 1;
    match op {
        O::LdMcs if surface.mcs => Err(bad(
            "ld_mcs: compressed multisampling (MCS Enable) is not modelled",
        )),
        O::LdMcs => Err(bad(
            "ld_mcs: not modelled (no public source here says what it returns without an MCS)",
        )),
        // A null surface reads zeros, as for ld.
        O::Ld2dms | O::Ld2dss if surface.kind == SurfaceKind::Null => Ok(true),
        O::Ld2dms | O::Ld2dss => {
            if surface.kind != SurfaceKind::D2 {
                return Err(bad(
                    "ld2dms/ld2dss: the surface must be SURFTYPE_2D (003 lines 79644-79645)",
                ));
            }
            if !multi {
                return Err(bad(
                    "ld2dms/ld2dss on a single-sampled surface are not modelled",
                ));
            }
            if surface.mcs {
                return Err(bad(
                    "ld2dms/ld2dss: compressed multisampling (MCS Enable) is not modelled",
                ));
            }
            Ok(true)
        }
        O::Ld if p == IsaGen::Gen6 && multi => Ok(true),
        O::Resinfo | O::SampleInfo => Ok(false),
        _ if multi && p == IsaGen::Gen6 => Err(bad(
            "sampler: sample*, LOD and load4 on a multisampled surface (a double-size view, 003 lines 73667-73677) are not modelled",
        )),
        _ if multi => Err(bad(
            "sampler: a multisampled surface is read by ld2dms, ld2dss, resinfo and sampleinfo only here",
        )),
        _ => Ok(false),
    }
}

/// One sample of each enabled lane's pixel (u, v), array index r, level
/// lod (Gen6 ld; 0 for ld2dms and ld2dss).
pub(super) fn load(
    env: &mut MessageEnv,
    op: SamplerOp,
    surface: &Surface,
    a: &Args,
    header: Header,
    ce: u32,
) -> Result<[[u32; 4]; 16], SendError> {
    let mut out = [[0u32; 4]; 16];
    if surface.kind == SurfaceKind::Null {
        return Ok(out);
    }
    if surface.kind != SurfaceKind::D2 {
        return Err(bad(
            "sampler: a multisampled surface must be SURFTYPE_2D (003 lines 79644-79645)",
        ));
    }
    if surface.depth > 1 || surface.min_array != 0 {
        return Err(bad(
            "sampler: multisampled surface arrays are not modelled (no public sample/slice order here)",
        ));
    }
    if surface.min_lod != 0 {
        return Err(bad(
            "sampler: mip levels of multisampled surfaces are not modelled",
        ));
    }
    let (du, dv) = if op == SamplerOp::Ld {
        header.offsets
    } else if header.offsets != (0, 0) {
        return Err(bad(
            "ld2dms/ld2dss: header texel offsets are not modelled (Mesa sends none)",
        ));
    } else {
        (0, 0)
    };
    let f = Format::of(surface, BorderMode::Dx10Ogl)?;
    let level0 = surface.level(0).ok_or(bad(
        "sampler: level 0 of a multisampled surface cannot be placed",
    ))?;
    let last = surface.samples - 1;
    for (c, t) in out.iter_mut().enumerate().take(a.lanes) {
        if ce >> c & 1 == 0 {
            continue;
        }
        let int = |x: u32| i64::from(x as i32);
        let (x, y, q) = (int(a.u[c]) + du, int(a.v[c]) + dv, int(a.r[c]));
        let lod = a.lod[c];
        if lod != 0 && lod < surface.mip_count {
            return Err(bad(
                "sampler: mip levels of multisampled surfaces are not modelled",
            ));
        }
        let inside = lod == 0
            && q == 0
            && (0..i64::from(surface.width)).contains(&x)
            && (0..i64::from(surface.height)).contains(&y);
        if !inside {
            *t = f.zero();
            continue;
        }
        // "Clamped to the number of samples on the surface".
        let si = a.si[c].min(u32::from(last)) as u8;
        let (sx, sy, slice) =
            sample_location(surface.ms_layout, surface.samples, x as u32, y as u32, si);
        let l = if slice == 0 {
            level0
        } else {
            surface
                .slice(0, slice)
                .ok_or(bad("sampler: a sample slice this model cannot place"))?
        };
        *t = texel::read(
            env,
            surface,
            &f,
            u64::from(l.x) + u64::from(sx),
            u64::from(l.y) + u64::from(sy),
        )?;
    }
    Ok(out)
}
