//! Clipping, setup, rasterisation and pixel-shader dispatch (see `super`),
//! Sandy Bridge and Ivy Bridge: the fixed-function clipper ([`clip`]), the SF unit
//! ([`setup`]), coverage by the manual's rules ([`coverage`]) and the
//! windower with its thread payloads ([`windower`]), on the state
//! [`state`] decodes per generation into one generation-neutral form.
//!
//! Line stipple is [`stipple`]'s, anti-aliased lines [`aa`]'s (their
//! coverage rides with the pixels to the output merger).
//!
//! Multisampling (4X, and 8X on Gen7; 003 lines 41590-42163): in the
//! PATTERN modes each sample is covered by the top-left rule at its
//! 3DSTATE_MULTISAMPLE offset (lines in OFF_PATTERN, and everything in
//! the PIXEL modes, at the pixel location), less the sample mask's; the
//! PS runs once per pixel (MSDISPMODE_PERPIXEL) with the covered samples
//! in the Gen7 input coverage mask, and the output merger gets each
//! sample's coverage and depth.
//!
//! Refused (`DrawError::Unmodelled`): per-sample PS dispatch, lines in
//! the MSRASTMODE_ON modes (rectangles of Line Width), centroid or sample
//! barycentrics and position offsets with the PATTERN modes (the centroid
//! rule is not modelled), 3DSTATE_AA_LINE_PARAMS' improved coverage,
//! anti-aliased or stippled wireframe edges, a LINESTRIP_CONT that opens
//! a draw with line stipple on and no counter carried in (none since the
//! engine's reset, see [`rasterize_carried`]),
//! the PrimID attribute override, and RECTLIST rectangles that must be
//! clipped; on Gen7 also an
//! Early Depth/Stencil Control other than EDSC_NORMAL, a 3DSTATE_CLIP early cull that
//! differs from the SF's cull mode or winding, and 3DSTATE_SBE's
//! per-attribute Swizzle Control Mode bit. Other generations than SNB and
//! IVB are refused whole.
//!
//! Gen7 fields read but without effect here: Sampler Count and Binding
//! Table Entry Count (prefetch hints), Maximum Number of Threads, Kill
//! Pixel, Dual Source Blend (the output merger's), Position ZW
//! Interpolation Mode, the
//! CLIP's provoking-vertex and sub-pixel copies (the SF's are used). An
//! early cull equal to the SF's drops what setup would cull, so the
//! pixels are the same, but CL_PRIMITIVES still counts those objects.
//!
//! Model choices where the manual is silent: the clipper cuts must-clip
//! objects against the guardband (the viewport when the guardband test is
//! off), the enabled z planes, the clip-test distances and w > 0; new
//! vertices take every dword after the header by linear interpolation in
//! clip space, and with Non-Perspective Barycentric Enable the linear
//! barycentrics of cut triangles are mapped so that non-perspective
//! attributes stay linear in window space across the cut (without it they
//! are linear per piece); the windower dispatches the widest
//! enabled width, the narrowest that holds the rest for an object's last
//! subspans; objects are traversed in rows of subspans, top to bottom.

mod aa;
mod clip;
mod coverage;
mod setup;
mod state;
mod stipple;
mod windower;

pub(crate) use state::multisample;

#[cfg(test)]
mod tests;

use alloc::vec::Vec;

use crate::eu::shared::PixelBackend;
use crate::render3d::types::{DrawEnv, DrawError, Object, ObjectKind, PixelThread, Vue};

use setup::ObjectInfo;
use state::RasterState;
pub(crate) use stipple::StippleCounter;
use windower::Windower;

/// Vertices an object of `kind` has.
fn vertex_count(kind: ObjectKind) -> usize {
    match kind {
        ObjectKind::Point => 1,
        ObjectKind::Line => 2,
        ObjectKind::Triangle | ObjectKind::Rectangle => 3,
    }
}

/// Runs the objects of a draw (their vertices after the VS/GS in `vues`)
/// through clipping, setup and rasterisation; returns the pixel-shader
/// threads in dispatch order. With thread dispatch off the pixels' depth
/// and stencil go to `pixels` instead. (The draw uses
/// [`rasterize_carried`]; this form is the tests'.)
#[cfg(test)]
pub(crate) fn rasterize(
    env: &mut DrawEnv,
    vues: &[Vue],
    objects: &[Object],
    pixels: &mut dyn PixelBackend,
) -> Result<Vec<PixelThread>, DrawError> {
    rasterize_counted(env, vues, objects, pixels).map(|(t, _)| t)
}

/// What the raster stages add to the pipeline statistics registers of a
/// draw, each counted only when its unit's Statistics Enable is set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RasterStatistics {
    /// CL_INVOCATION_COUNT: objects the clipper received (it must be
    /// enabled to count; 003 lines 36840-36871).
    pub cl_invocations: u64,
    /// CL_PRIMITIVES_COUNT: objects the SF received from the clipper,
    /// counted by the SF (003 lines 39656-39674).
    pub cl_primitives: u64,
    /// PS_INVOCATION_COUNT: unmasked pixels dispatched to PS threads (003
    /// lines 44586-44592).
    pub ps_invocations: u64,
}

/// [`rasterize`], with the statistics the draw adds.
#[cfg(test)]
pub(crate) fn rasterize_counted(
    env: &mut DrawEnv,
    vues: &[Vue],
    objects: &[Object],
    pixels: &mut dyn PixelBackend,
) -> Result<(Vec<PixelThread>, RasterStatistics), DrawError> {
    rasterize_carried(env, vues, objects, pixels, &mut None)
}

/// Clipping, setup and rasterisation of a draw with the statistics it
/// adds and the Line Stipple Counter the engine keeps between draws:
/// `counter` is where the last draw (or a 3DSTATE_LINE_STIPPLE with
/// Modify Enable, [`StippleCounter::loaded`]) left it, `None` when
/// unknown, and is left where this draw leaves it (`front` keeps it).
pub(crate) fn rasterize_carried(
    env: &mut DrawEnv,
    vues: &[Vue],
    objects: &[Object],
    pixels: &mut dyn PixelBackend,
    counter: &mut Option<StippleCounter>,
) -> Result<(Vec<PixelThread>, RasterStatistics), DrawError> {
    let mut stats = RasterStatistics::default();
    if objects.is_empty() {
        // Nothing reaches the clipper: its state is not looked at.
        return Ok((Vec::new(), stats));
    }
    let st = RasterState::decode(env)?;
    multisampling(&st, objects)?;
    let mut win = Windower::new(&st, env.bases.instruction);
    let mut threads = Vec::new();
    let grid = state::sample_grid(&st);
    for (k, obj) in objects.iter().enumerate() {
        // s is reset before each LINELIST line and at the start of each
        // primitive but a LINESTRIP_CONT(_BF) one (003 lines 41266-41272).
        let first_in_primitive = k == 0 || {
            let p = &objects[k - 1];
            p.topology != obj.topology || p.ordinal + 1 != obj.ordinal
        };
        let cont = matches!(
            obj.topology,
            setup::topo::LINESTRIP_CONT | setup::topo::LINESTRIP_CONT_BF
        );
        if obj.kind == ObjectKind::Line
            && (obj.topology == setup::topo::LINELIST || (first_in_primitive && !cont))
        {
            *counter = Some(StippleCounter::default());
        }
        // The next object continues the same strip when it counts on from
        // this one in the same topology.
        let last_in_primitive = objects
            .get(k + 1)
            .is_none_or(|n| n.topology != obj.topology || n.ordinal != obj.ordinal + 1);
        let n = vertex_count(obj.kind);
        let mut verts = Vec::with_capacity(n);
        for &i in &obj.v[..n] {
            let v = vues.get(i as usize).ok_or(DrawError::Invalid(
                "object names a vertex past the draw's vertex entries",
            ))?;
            verts.push(v.dw.clone());
        }
        let pv = verts[setup::provoking(&st.sf, obj.kind, obj.topology)?].clone();
        // The leading vertex's header (003 Table 4, lines 27740-27800):
        // RTAIndex DW1, VPIndex DW2 (range-clamped by the clipper).
        let lead = &verts[0];
        let vp_index = lead.get(2).copied().unwrap_or(0).min(st.clip.max_vp_index);
        let rta_index = if st.clip.force_zero_rta {
            0
        } else {
            lead.get(1).copied().unwrap_or(0) & 0x7ff
        };
        let gb = if st.clip.enable && st.clip.guardband {
            state::clip_viewport(env, &st, vp_index)?
        } else {
            [-1.0, 1.0, -1.0, 1.0]
        };
        let viewport = if st.sf.viewport_transform {
            Some(state::sf_viewport(env, &st, vp_index)?)
        } else {
            None
        };
        let scissor = if st.sf.scissor {
            Some(state::scissor_rect(env, &st, vp_index)?)
        } else {
            None
        };
        if st.clip.enable && st.clip.statistics {
            stats.cl_invocations += 1;
        }
        for c in clip::clip_object(&st.clip, gb, obj.kind, verts)? {
            if st.sf.statistics {
                stats.cl_primitives += 1;
            }
            let info = ObjectInfo {
                kind: c.kind,
                topology: obj.topology,
                ordinal: obj.ordinal,
                last_in_primitive,
                weights: &c.weights,
                pv: &pv,
                vp_index,
                rta_index,
                viewport,
            };
            if let Some(mut so) = setup::setup(&st, &info, &c.verts)? {
                if let (Some(ls), Some(ends)) = (&st.line_stipple, so.stippled_line) {
                    let Some(s) = counter.as_mut() else {
                        return Err(DrawError::Unmodelled(
                            "LINESTRIP_CONT continuing the line stipple of an earlier draw",
                        ));
                    };
                    so.shapes = so
                        .shapes
                        .iter()
                        .map(|sh| stipple::apply(ls, s, sh, ends, st.sf.line_width, grid))
                        .collect::<Result<_, _>>()?;
                }
                let spans = windower::subspans(&st, scissor, &so);
                win.dispatch(env, &so, &spans, pixels, &mut threads)?;
            }
        }
    }
    if st.wm.statistics {
        stats.ps_invocations = threads
            .iter()
            .map(|t| u64::from(t.pixels.mask.count_ones()))
            .sum();
    }
    Ok((threads, stats))
}

/// What this model rasterises of multisampling (003 lines 41590-41960):
/// the modes that are defined for the sample count, per-pixel dispatch,
/// lines only where they keep their legacy rasterisation.
fn multisampling(st: &RasterState, objects: &[Object]) -> Result<(), DrawError> {
    let mode = st.wm.ms_raster_mode;
    if st.sf.ms_raster_mode != mode {
        return Err(DrawError::Invalid(
            "3DSTATE_SF and 3DSTATE_WM Multisample Rasterization Modes differ",
        ));
    }
    let samples = st.ms.samples;
    if samples == 1 && matches!(mode, 1 | 3) {
        // "Setting Multisample Rasterization Mode to MSRASTMODE_xxx_PATTERN
        // when Number of Multisamples == NUMSAMPLES_1 is UNDEFINED" (003
        // lines 42044-42046).
        return Err(DrawError::Invalid(
            "MSRASTMODE_xxx_PATTERN with one sample (UNDEFINED)",
        ));
    }
    if mode >= 2 && objects.iter().any(|o| o.kind == ObjectKind::Line) {
        return Err(DrawError::Unmodelled(
            "multisampled line rasterisation (MSRASTMODE_ON_xx draws lines as Line Width rectangles)",
        ));
    }
    if !st.wm.dispatch || samples == 1 {
        return Ok(());
    }
    if !st.wm.ms_per_pixel {
        return Err(DrawError::Unmodelled(
            "per-sample pixel shader dispatch (MSDISPMODE_PERSAMPLE with more than one sample)",
        ));
    }
    // Table 22's B, D, E and F combinations (any SIMD16 or SIMD32) are
    // "not valid on [DevSNB] if 4x PERPIXEL mode with pixel shader
    // computed depth" (003 lines 43548-43556).
    let snb = matches!(st.viewports, state::Viewports::Gen6 { .. });
    if snb && st.wm.computed_depth && (st.wm.enable16 || st.wm.enable32) {
        return Err(DrawError::Invalid(
            "SNB 4X per-pixel dispatch with PS computed depth allows SIMD8 only (Table 22)",
        ));
    }
    // Per-pixel dispatch evaluates "pixel" values at the pixel location;
    // centroid and sample locations differ from it only when the samples
    // are at their programmed offsets.
    if matches!(mode, 1 | 3)
        && (st.wm.barycentric_modes & 0b11_0110 != 0 || matches!(st.wm.position_offset, 2 | 3))
    {
        return Err(DrawError::Unmodelled(
            "centroid or sample barycentrics and position offsets with pattern multisampling",
        ));
    }
    Ok(())
}
