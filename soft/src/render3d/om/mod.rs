//! The output merger behind render-target writes (see `super`): the
//! colour calculator and pixel backend for one draw, Gen6 (003 lines
//! 44593-46487) and Gen7.
//!
//! [`OutputMerger::new`] decodes the draw's commands per generation into
//! one `OmState` ([`gen6`]: 3DSTATE_CC_STATE_POINTERS with three pointers;
//! [`gen7`]: one command per pointer, the Gen7 depth and stencil buffer
//! commands), then reads what it names: the BLEND_STATE entries,
//! DEPTH_STENCIL_STATE, COLOR_CALC_STATE and CC_VIEWPORTs (all Dynamic
//! State Base relative, one layout on both generations, [`state`]), the
//! pixel shader's binding table (Surface State Base relative) and the
//! depth buffer ([`depth`]).
//!
//! Per pixel, in the order of the manual's PixelProcessing (003 lines
//! 44641-44657): the oMask (sample 0 of a 1X pixel, 003 lines 85420-85422),
//! an anti-aliased line's coverage into source-0 alpha ([`aa_attenuate`]),
//! alpha test (per render target, on source-0 alpha when the message has
//! it, 003 lines 44760-44783), stencil test, depth test (the source depth
//! clamped to the CC_VIEWPORT range, 003 lines 44874-44877), then stencil
//! and depth buffer updates (003 lines 45271-45335), blending or the logic
//! op, the channel write disables, the store. A pixel that fails the
//! stencil or depth test writes no colour ("the pixel is discarded", 003
//! lines 45333-45334). Alpha-test failures and killed samples update nothing.
//!
//! Several render targets: each write tests against the buffer as it is;
//! depth and stencil are updated, and samples counted, on the write marked
//! Last Render Target (003 lines 84949-84953), so every target of a pixel
//! sees the same test.
//!
//! Multisampling (3DSTATE_MULTISAMPLE 4X, and 8X on Gen7): each pixel's
//! samples are those the windower covered (`SampleDispatch`), less the
//! oMask's and alpha-to-coverage's; each is depth/stencil tested with its
//! own source depth and written at its own place (`multisample`: the
//! render target interleaved, or on Gen7 MSFMT_MSS in array slices; the
//! depth and stencil buffers interleaved); samples are counted.
//! Alpha-to-one sets source-0 alpha to 1.0 after alpha-to-coverage used it.
//!
//! The depth buffer clear and resolve passes of 3DSTATE_WM keep the depth
//! buffer as it would be without HiZ ([`depth::DepthPass`]): a clear
//! writes the clear value with the stencil as the state says, a resolve
//! with HiZ on changes nothing. Gen7 render-target fast clears and
//! resolves on single-sampled MCS targets alike (`fast_clear`).
//!
//! Colour dithering (BLEND_STATE Color Dither Enable, with its X and Y
//! Dither Offsets) adds the 4x4 dither matrix's value at the pixel below
//! each UNORM channel's least significant bit before truncating (003 lines
//! 45147-45213; `RtFormat::encode_dithered`); Mesa's GL drivers enable it
//! whenever GL_DITHER is on, its default [ext: mesa
//! src/gallium/drivers/crocus/crocus_state.c, BLEND_STATE_ENTRY
//! ColorDitherEnable from the blend state's dither].
//!
//! Refused (a draw error from `new`, a send error from a write), never
//! drawn wrongly: render targets whose sample count differs from
//! 3DSTATE_MULTISAMPLE's, MCS on a multisampled target (compressed
//! multisampling), alpha-to-coverage with 1X (forbidden, 003 lines
//! 44755-44756), dithered or of an alpha strictly between 0 and 1 (the
//! manual gives no mask), alpha-to-one with dual source, colour dithering
//! with a logic op or with blending while the round-disable function is
//! on, render targets other than 2D (arrays, 3D, cube,
//! buffers) and their X/Y offsets and rotation, depth buffer arrays, depth
//! or stencil enabled without a buffer that has them (UNDEFINED, 003 lines
//! 44842-44844, 44887, 45320-45330), blending of integer targets and logic
//! ops on formats other than UNORM (003 lines 44987-44989, 45228-45229),
//! both on at once (003 lines 45225-45226), pixels that the depth
//! coordinate offset moves off the depth buffer.

mod blend;
mod depth;
mod fast_clear;
mod gen6;
mod gen7;
mod state;

#[cfg(test)]
mod tests;

use alloc::collections::BTreeMap;

use baregpu_hal::gen6::structs::{BlendState, ColorCalcState, DepthStencilState};
use baregpu_hal::{Generation, Packet};
use baregpu_isa::IsaGen;

use crate::eu::send::SendError;
use crate::eu::shared::multisample::{MsLayout, sample_location};
use crate::eu::shared::render_target::{Class, RtFormat, dither, pixel_xy, render_surface};
use crate::eu::shared::surface::{MipLevel, Surface};
use crate::eu::shared::{DispatchFlags, GfxMemory, PixelBackend, PixelDispatch, RtWrite};
use crate::render3d::types::{DrawEnv, DrawError, Packets};

use depth::{Depth, DepthBuffer, DepthPass, DepthPixel};
use fast_clear::RtPass;

/// A pixel's depth and stencil tests: whether it passed, and what to store
/// on the last write (the new depth pixel, whether its depth and its
/// stencil are written), `None` when nothing changes.
type Tested = (bool, Option<(DepthPixel, bool, bool)>);

/// A render target as the merger writes it.
#[derive(Clone, Copy, Debug)]
struct RenderTarget {
    surface: Surface,
    format: RtFormat,
    /// The mip level rendered into (SURFACE_STATE MIP Count / LOD: "the
    /// MIP level that is currently being rendered into", 003 lines
    /// 75975-75977), placed by the surface's mip layout.
    level: MipLevel,
    /// Gen7 MCS Enable on this single-sampled target, and the clear colour
    /// of its surface state (R, G, B, A: one or zero), for fast clears.
    mcs: bool,
    clear_colour: [bool; 4],
    /// Samples a pixel and where they are stored.
    samples: u8,
    layout: MsLayout,
}

/// The output merger's state as one generation's commands give it
/// ([`gen6`], [`gen7`]): graphics addresses of the state each pointer
/// names (`None`: not loaded), the depth buffer, the dispatch flags.
#[derive(Clone, Copy, Debug, Default)]
struct OmState {
    blend_at: Option<u64>,
    depth_stencil_at: Option<u64>,
    color_calc_at: Option<u64>,
    cc_viewport_at: Option<u64>,
    /// The pixel shader's binding table.
    binding_table: Option<u64>,
    flags: DispatchFlags,
    depth: Option<DepthBuffer>,
    /// Gen7: 3DSTATE_DEPTH_BUFFER's Depth and Stencil Write Enables, which
    /// gate DEPTH_STENCIL_STATE's (`None` on Gen6, where only the latter
    /// exist).
    write_gate: Option<(bool, bool)>,
    /// The depth-buffer pass of 3DSTATE_WM.
    pass: DepthPass,
    /// The render-target pass of 3DSTATE_PS (Gen7).
    rt_pass: RtPass,
    /// Whether samples passing the tests add to PS_DEPTH_COUNT.
    count_samples: bool,
    /// 3DSTATE_CLEAR_PARAMS Depth Clear Value when Depth Clear Value Valid
    /// is set (raw, in the depth buffer's format).
    clear_value: Option<u32>,
    /// 3DSTATE_MULTISAMPLE Number of Multisamples, as a count.
    samples: u8,
}

/// What the merger checks in a render target's SURFACE_STATE beyond the
/// surface itself, from either generation's layout.
struct RtFields {
    min_array: u32,
    /// MIP Count / LOD: the level rendered into.
    lod: u32,
    offset_or_rotation: bool,
    /// Gen7 MCS Enable (multisample control surface, fast clears).
    mcs: bool,
    /// Gen7 Red/Green/Blue/Alpha Clear Color (false on Gen6).
    clear_colour: [bool; 4],
}

/// The last `P` the draw's state holds, decoded.
fn unpack<P: Packet>(packets: &Packets, what: &'static str) -> Result<Option<P>, DrawError> {
    packets
        .get(P::NAME)
        .map(|dw| P::unpack(dw).map_err(|_| DrawError::Invalid(what)))
        .transpose()
}

/// The output merger of one draw.
pub(crate) struct OutputMerger {
    /// The generation whose SURFACE_STATE layout render targets use.
    platform: IsaGen,
    /// BLEND_STATE (absolute), and its entries as read.
    blend_at: Option<u64>,
    blends: [Option<BlendState>; 8],
    depth_stencil: Option<DepthStencilState>,
    color_calc: Option<ColorCalcState>,
    cc_viewport_at: Option<u64>,
    /// CC_VIEWPORTs as read, by viewport index.
    cc_viewports: [Option<(f32, f32)>; 16],
    /// The pixel shader's binding table (absolute) and Surface State Base.
    binding_table: Option<u64>,
    surface_base: u64,
    /// Render targets by binding-table index (`None`: SURFTYPE_NULL).
    targets: BTreeMap<u8, Option<RenderTarget>>,
    depth: Option<DepthBuffer>,
    flags: DispatchFlags,
    passed: u64,
    pass: DepthPass,
    rt_pass: RtPass,
    count_samples: bool,
    /// A clear pass's depth: 3DSTATE_CLEAR_PARAMS's value, or without one
    /// the first lit pixel's ("the interpolated depth of an arbitrary
    /// pixel of the primitive", 003 lines 43429-43431).
    clear_depth: Option<Depth>,
    samples: u8,
}

fn draw_to_send(e: DrawError) -> SendError {
    SendError::Bad(match e {
        DrawError::Fault(_) => "output merger: state could not be read (memory fault)",
        DrawError::Invalid(s) | DrawError::Unmodelled(s) => s,
    })
}

fn bad(s: &'static str) -> SendError {
    SendError::Bad(s)
}

fn fault(_: crate::eu::shared::MemFault) -> SendError {
    SendError::Bad("output merger: memory fault on the render target or depth buffer")
}

impl OutputMerger {
    /// Reads the state of one draw.
    pub fn new(env: &mut DrawEnv) -> Result<OutputMerger, DrawError> {
        let (s, platform) = match env.generation {
            Generation::Gen6 => (gen6::om_state(env)?, IsaGen::Gen6),
            Generation::Gen7 => (gen7::om_state(env)?, IsaGen::Gen7),
            _ => {
                return Err(DrawError::Unmodelled(
                    "the output merger of generations other than Gen6 and Gen7",
                ));
            }
        };
        let ds = s
            .depth_stencil_at
            .map(|at| state::depth_stencil(env.memory, at))
            .transpose()?;
        let cc = s
            .color_calc_at
            .map(|at| state::color_calc(env.memory, at))
            .transpose()?;
        let mut depth = s.depth;
        if let Some(d) = &mut depth {
            d.samples = s.samples;
        }
        if let Some(ds) = &ds {
            let has_stencil = depth.is_some_and(|d| d.has_stencil());
            // The writes that can happen: on Gen7 only those the depth
            // buffer command enables too.
            let (gate_depth, gate_stencil) = s.write_gate.unwrap_or((true, true));
            let depth_write = ds.depth_buffer_write_enable && gate_depth;
            let stencil_write = ds.stencil_buffer_write_enable && gate_stencil;
            if (ds.depth_test_enable || depth_write) && depth.is_none() {
                return Err(DrawError::Invalid(
                    "depth test or depth write enabled without a depth buffer (UNDEFINED)",
                ));
            }
            let separate = depth.is_some_and(|d| d.separate_stencil && !d.has_stencil());
            if (ds.stencil_test_enable || stencil_write) && separate {
                return Err(DrawError::Invalid(
                    "stencil with Separate Stencil Buffer Enable but no 3DSTATE_STENCIL_BUFFER",
                ));
            }
            if (ds.stencil_test_enable || stencil_write) && !has_stencil {
                return Err(DrawError::Invalid(
                    "stencil test or stencil write enabled without a depth buffer format holding stencil",
                ));
            }
            if ds.stencil_test_enable && cc.is_none() {
                return Err(DrawError::Invalid(
                    "stencil test without COLOR_CALC_STATE (its reference values)",
                ));
            }
            // "If this field is enabled, the Depth Test Enable field in
            // DEPTH_STENCIL_STATE must be disabled" (003 lines 40009-40010).
            if s.pass == DepthPass::Clear && ds.depth_test_enable {
                return Err(DrawError::Invalid(
                    "depth buffer clear with the depth test enabled",
                ));
            }
        }
        let clear_depth = match (s.pass, depth, s.clear_value) {
            (DepthPass::Clear, Some(d), Some(raw)) => Some(d.clear_value(raw)),
            _ => None,
        };
        Ok(OutputMerger {
            platform,
            blend_at: s.blend_at,
            blends: [None; 8],
            depth_stencil: ds,
            color_calc: cc,
            cc_viewport_at: s.cc_viewport_at,
            cc_viewports: [None; 16],
            binding_table: s.binding_table,
            surface_base: env.bases.surface,
            targets: BTreeMap::new(),
            depth,
            flags: s.flags,
            passed: 0,
            pass: s.pass,
            rt_pass: s.rt_pass,
            count_samples: s.count_samples,
            clear_depth,
            samples: s.samples.max(1),
        })
    }

    /// BLEND_STATE entry `index`, read on first use (the driver allocates
    /// as many entries as it has render targets).
    fn blend_state(
        &mut self,
        memory: &mut dyn GfxMemory,
        index: u8,
    ) -> Result<BlendState, SendError> {
        let i = usize::from(index & 7);
        if let Some(b) = self.blends[i] {
            return Ok(b);
        }
        let at = self
            .blend_at
            .ok_or(bad("render-target write: no BLEND_STATE was loaded"))?;
        let b = state::blend(memory, at, index & 7).map_err(draw_to_send)?;
        if (b.alphatocoverage_enable || b.alphatocoverage_dither_enable) && self.samples == 1 {
            // "When NumSamples = 1, AlphaToCoverage and AlphaTo Coverage
            // Dither both must be disabled" (003 lines 44755-44756).
            return Err(bad("BLEND_STATE: alpha-to-coverage with 1X sampling"));
        }
        if b.alphatocoverage_enable && b.alphatocoverage_dither_enable {
            return Err(bad(
                "BLEND_STATE: alpha-to-coverage dithering is not modelled (the manual gives no dither)",
            ));
        }
        // Colour dithering is modelled (`store_colour`) but for two cases
        // the manual leaves open: with a logic op (it does not say whether
        // the dithered or the undithered colour is combined), and with
        // blending while COLOR_CALC_STATE's round-disable function is on:
        // "dithering is cancelled based on the data used by blend to avoid
        // drift" (003 lines 45385-45389), with no rule for when.
        if b.color_dither_enable && b.logic_op_enable {
            return Err(bad(
                "BLEND_STATE: colour dithering with a logic op is not modelled",
            ));
        }
        if b.color_dither_enable
            && b.color_buffer_blend_enable
            && !self
                .color_calc
                .is_some_and(|c| c.round_disable_function_disable)
        {
            return Err(bad(
                "BLEND_STATE: colour dithering with blending while the round-disable function is on (the manual gives no rule)",
            ));
        }
        if b.color_buffer_blend_enable && b.logic_op_enable {
            return Err(bad(
                "BLEND_STATE: blending and logic ops both enabled (UNDEFINED)",
            ));
        }
        if b.alpha_test_enable && self.color_calc.is_none() {
            return Err(bad("alpha test without COLOR_CALC_STATE"));
        }
        self.blends[i] = Some(b);
        Ok(b)
    }

    /// The render target at `bti` of the pixel shader's binding table.
    fn target(
        &mut self,
        memory: &mut dyn GfxMemory,
        bti: u8,
    ) -> Result<Option<RenderTarget>, SendError> {
        if let Some(t) = self.targets.get(&bti) {
            return Ok(*t);
        }
        // "Binding Table Index cannot be 255" (003 line 84839).
        if bti == 255 {
            return Err(bad("render-target write cannot be stateless"));
        }
        let table = self.binding_table.ok_or(bad(
            "render-target write: no pixel-shader binding table was loaded",
        ))?;
        let [entry] =
            state::dwords::<1>(memory, table.wrapping_add(4 * u64::from(bti))).map_err(fault)?;
        let at = self.surface_base.wrapping_add(u64::from(entry & !0x1F));
        let (dw, fields) = if self.platform == IsaGen::Gen6 {
            let dw = state::dwords::<6>(memory, at).map_err(fault)?;
            (dw.to_vec(), gen6::rt_fields(&dw).map_err(bad)?)
        } else {
            let dw = state::dwords::<8>(memory, at).map_err(fault)?;
            (dw.to_vec(), gen7::rt_fields(&dw).map_err(bad)?)
        };
        let surface = Surface::from_surface_state(self.platform, &dw).map_err(|e| match e {
            crate::eu::shared::surface::SurfaceError::BadState(s) => bad(s),
            _ => bad("render target SURFACE_STATE does not decode"),
        })?;
        let t = match render_surface(&surface, false)? {
            None => None,
            Some(format) => {
                if surface.samples != self.samples {
                    // "This field in 3DSTATE_MULTISAMPLE must match the
                    // corresponding field in SURFACE_STATE for each render
                    // target" (003 lines 41664-41665).
                    return Err(bad(
                        "render target Number of Multisamples differs from 3DSTATE_MULTISAMPLE's",
                    ));
                }
                if surface.samples > 1 && fields.mcs {
                    // Compressed multisampling (Mesa's CMS): the MCS says
                    // which samples share a colour; not modelled.
                    return Err(bad(
                        "compressed multisampled render targets (MCS with more than one sample) are not modelled",
                    ));
                }
                if surface.samples > 1 && fields.lod != 0 {
                    return Err(bad(
                        "multisampled render targets have one level (LOD 0; Mesa isl refuses more)",
                    ));
                }
                if surface.samples > 1
                    && surface.ms_layout == MsLayout::Array
                    && surface.qpitch().is_none()
                {
                    return Err(bad(
                        "MSFMT_MSS render target whose sample slices this model cannot place",
                    ));
                }
                if fields.min_array != 0 {
                    return Err(bad(
                        "render targets at an array element other than 0 are not modelled",
                    ));
                }
                let level = surface
                    .level(fields.lod)
                    .ok_or(bad("render target SURFACE_STATE: LOD beyond 13"))?;
                if fields.offset_or_rotation {
                    return Err(bad(
                        "render target X/Y offsets and rotation are not modelled",
                    ));
                }
                Some(RenderTarget {
                    surface,
                    format,
                    level,
                    mcs: fields.mcs,
                    clear_colour: fields.clear_colour,
                    samples: surface.samples,
                    layout: surface.ms_layout,
                })
            }
        };
        self.targets.insert(bti, t);
        Ok(t)
    }

    /// The depth test and stencil test of one pixel at (x, y) with source
    /// depth `z`: whether it passes, and the depth pixel to store when the
    /// write is the last one (`None`: nothing changes).
    fn depth_stencil(
        &mut self,
        memory: &mut dyn GfxMemory,
        at: (u32, u32, u8),
        z: Option<f32>,
        back: bool,
        viewport: u8,
    ) -> Result<Tested, SendError> {
        let Some(ds) = self.depth_stencil else {
            return Err(bad(
                "render-target write: no DEPTH_STENCIL_STATE was loaded",
            ));
        };
        let stencil_on = ds.stencil_test_enable;
        let depth_on = ds.depth_test_enable;
        let depth_write = ds.depth_buffer_write_enable;
        if !stencil_on && !depth_on && !depth_write {
            return Ok((true, None));
        }
        let Some(buffer) = self.depth else {
            // `new` refuses these without a buffer.
            return Ok((true, None));
        };
        let Some(old) = buffer
            .read(memory, at, depth_on || depth_write)
            .map_err(fault)?
        else {
            return Err(bad(
                "output merger: a pixel outside the depth buffer (the manual requires software to keep them inside)",
            ));
        };
        let z = z.ok_or(bad(
            "output merger: no source depth (neither the message nor a pixel dispatch)",
        ))?;
        let z = match self.cc_viewport_at {
            Some(at) => {
                let i = usize::from(viewport & 15);
                let (lo, hi) = match self.cc_viewports[i] {
                    Some(r) => r,
                    None => {
                        let vp =
                            state::cc_viewport(memory, at, viewport & 15).map_err(draw_to_send)?;
                        let r = (vp.minimum_depth, vp.maximum_depth);
                        self.cc_viewports[i] = Some(r);
                        r
                    }
                };
                // max then min: a NaN depth takes the minimum.
                z.max(lo).min(hi)
            }
            None => z,
        };
        let src = match self.pass {
            DepthPass::Clear => *self.clear_depth.get_or_insert(buffer.quantise(z)),
            _ => buffer.quantise(z),
        };
        let mut stencil_pass = true;
        let mut new = old;
        let mut face = None;
        if stencil_on {
            let cc = self
                .color_calc
                .ok_or(bad("stencil test without COLOR_CALC_STATE"))?;
            let f = state::face(&ds, &cc, back);
            stencil_pass =
                state::compare(f.func, f.reference & f.test_mask, old.stencil & f.test_mask);
            face = Some(f);
        }
        let depth_pass = !depth_on || state::compare(ds.depth_test_function, src, old.depth);
        if let Some(f) = face {
            let op = if !stencil_pass {
                f.fail
            } else if !depth_pass {
                f.depth_fail
            } else {
                f.pass
            };
            let v = state::stencil_op(op, old.stencil, f.reference);
            new.stencil = (old.stencil & !f.write_mask) | (v & f.write_mask);
        }
        let pass = stencil_pass && depth_pass;
        // Gen7 3DSTATE_DEPTH_BUFFER's own write enables gate the writes
        // too (Mesa sets them from the same GL state as
        // DEPTH_STENCIL_STATE's, gen7_misc_state.c; read as an AND).
        let write_depth = depth_write && buffer.depth_write && pass;
        if write_depth {
            new.depth = src;
        }
        let write_stencil = stencil_on && ds.stencil_buffer_write_enable && buffer.stencil_write;
        Ok((pass, Some((new, write_depth, write_stencil))))
    }
}

/// Does the alpha test (per BLEND_STATE, with COLOR_CALC_STATE's format
/// and reference, 003 lines 44760-44783) pass for `alpha` (a float's
/// bits, whatever the target's format, 003 lines 45412-45413)?
fn alpha_test(b: &BlendState, cc: &ColorCalcState, alpha: u32) -> bool {
    if !b.alpha_test_enable {
        return true;
    }
    let a = f32::from_bits(alpha);
    if cc.alpha_test_format == 0 {
        // UNORM8: the alpha converted to UNORM8 against the reference's
        // value [ext: mesa src/intel/genxml/gen6.xml COLOR_CALC_STATE
        // "Alpha Reference Value As UNORM8", a whole dword].
        let a8 = crate::eu::shared::surface::format::encode_channel(
            crate::eu::shared::surface::format::Kind::Unorm,
            8,
            alpha,
        );
        state::compare(b.alpha_test_function, a8, cc.alpha_reference_value)
    } else {
        state::compare(
            b.alpha_test_function,
            a,
            f32::from_bits(cc.alpha_reference_value),
        )
    }
}

impl OutputMerger {
    /// The colour of one pixel after blending or the logic op, stored.
    #[allow(clippy::too_many_arguments)]
    fn store_colour(
        &self,
        memory: &mut dyn GfxMemory,
        t: &RenderTarget,
        b: &BlendState,
        (x, y, sample): (u32, u32, u8),
        src: [u32; 4],
        src1: Option<[u32; 4]>,
    ) -> Result<(), SendError> {
        let s = &t.surface;
        let l = &t.level;
        // Pixels outside the surface are dropped (003 lines 84865-84867).
        if x >= l.width || y >= l.height {
            return Ok(());
        }
        // The pixel's dither value, from its screen coordinates.
        let dither = b
            .color_dither_enable
            .then(|| dither(x, y, b.x_dither_offset, b.y_dither_offset));
        let (sx, sy, slice) = sample_location(t.layout, t.samples, x, y, sample);
        let l = if slice == 0 {
            *l
        } else {
            s.slice(0, slice)
                .ok_or(bad("render target: a sample slice this model cannot place"))?
        };
        let (x, y) = (sx + l.x, sy + l.y);
        let f = &t.format;
        let enable = u8::from(!b.write_disable_red)
            | u8::from(!b.write_disable_green) << 1
            | u8::from(!b.write_disable_blue) << 2
            | u8::from(!b.write_disable_alpha) << 3;
        if enable == 0 {
            return Ok(());
        }
        let bpp = f.bytes();
        let at = s.address(u64::from(x) * bpp as u64, u64::from(y));
        let mut px = [0u8; 16];
        memory.read(at, &mut px[..bpp]).map_err(fault)?;
        let int = matches!(f.class, Class::Uint | Class::Sint);
        let fields = if b.logic_op_enable {
            if f.class != Class::Unorm || f.srgb {
                return Err(bad(
                    "BLEND_STATE: logic ops are only supported on UNORM (not sRGB) render targets",
                ));
            }
            let s = f.encode(clamp_src(b, f, src));
            let d = f.read_fields(&px[..bpp]);
            let mut out = [0u32; 4];
            for (ch, o) in out.iter_mut().enumerate() {
                *o = blend::logic_op(b.logic_op_function, s[ch], d[ch], f.bits(ch));
            }
            out
        } else if b.color_buffer_blend_enable {
            if int {
                return Err(bad(
                    "BLEND_STATE: blending must be disabled on UINT and SINT render targets",
                ));
            }
            let range = blend::clamp_range(b.color_clamp_range, f.class);
            let pre = |c: [f32; 4]| {
                if b.pre_blend_color_clamp_enable {
                    blend::clamp4(c, range)
                } else {
                    c
                }
            };
            let cc = self.color_calc.ok_or(bad(
                "blending without COLOR_CALC_STATE (the constant colour)",
            ))?;
            let dst = f.decode(f.read_fields(&px[..bpp])).map(f32::from_bits);
            let inputs = blend::Inputs {
                src: pre(src.map(f32::from_bits)),
                src1: src1.map(|c| pre(c.map(f32::from_bits))),
                dst: pre(dst),
                constant: pre([
                    cc.blend_constant_color_red,
                    cc.blend_constant_color_green,
                    cc.blend_constant_color_blue,
                    cc.blend_constant_color_alpha,
                ]),
            };
            let mut out = blend::blend(b, &inputs).map_err(bad)?;
            if b.post_blend_color_clamp_enable {
                out = blend::clamp4(out, range);
            }
            encode(f, out.map(f32::to_bits), dither)
        } else {
            encode(f, clamp_src(b, f, src), dither)
        };
        f.write_fields(&mut px[..bpp], fields, enable);
        memory.write(at, &px[..bpp]).map_err(fault)
    }
}

/// A colour as the target stores it, dithered with `dither` when given.
fn encode(f: &RtFormat, rgba: [u32; 4], dither: Option<u32>) -> [u32; 4] {
    match dither {
        Some(d) => f.encode_dithered(rgba, d),
        None => f.encode(rgba),
    }
}

/// The source colour through the pre-blend clamp with blending off
/// (integer targets clamp to their format on conversion, 003 lines
/// 44987-44989).
fn clamp_src(b: &BlendState, f: &RtFormat, src: [u32; 4]) -> [u32; 4] {
    if !b.pre_blend_color_clamp_enable || matches!(f.class, Class::Uint | Class::Sint) {
        return src;
    }
    blend::clamp4(
        src.map(f32::from_bits),
        blend::clamp_range(b.color_clamp_range, f.class),
    )
    .map(f32::to_bits)
}

impl PixelBackend for OutputMerger {
    fn render_target(
        &mut self,
        memory: &mut dyn GfxMemory,
        dispatch: Option<&PixelDispatch>,
        w: &RtWrite,
    ) -> Result<(), SendError> {
        // "Pixel Shader Dispatch [...] must all be disabled" for the depth
        // buffer clear and resolve passes (003 lines 42394-42395,
        // 42446-42447, 42469-42470).
        if self.pass != DepthPass::Draw {
            return Err(bad(
                "render-target write during a depth buffer clear or resolve pass (pixel shader dispatch must be disabled)",
            ));
        }
        match self.rt_pass {
            RtPass::Draw => {}
            // The model's target is always resolved (`fast_clear`).
            RtPass::Resolve => return Ok(()),
            RtPass::FastClear => {
                let Some(t) = self.target(memory, w.binding_table_index)? else {
                    return Ok(());
                };
                for slot in (0..w.slots.min(16)).filter(|s| w.mask >> s & 1 != 0) {
                    let (x, y) = pixel_xy(w.corners[slot / 4], slot);
                    fast_clear::clear(memory, &t, x, y)?;
                }
                return Ok(());
            }
        }
        // "Constant color writes ignore everything in blend and color
        // calculator state" [ext: mesa src/intel/blorp/blorp_clear.c]: the
        // replicated-data form stores as with blending off, every channel
        // on and no alpha test; depth and stencil still apply.
        let b = if w.replicated {
            BlendState::default()
        } else {
            self.blend_state(memory, w.render_target_index)?
        };
        let target = self.target(memory, w.binding_table_index)?;
        if w.replicated
            && target
                .is_some_and(|t| t.surface.tiling == crate::eu::shared::surface::Tiling::Linear)
        {
            return Err(bad(
                "replicated-data render-target write to linear memory is undefined",
            ));
        }
        if w.color1.is_none() && uses_src1(&b) {
            return Err(bad(
                "BLEND_STATE: a source-1 blend factor without a dual-source write",
            ));
        }
        // The coverage of an anti-aliased line's pixels; not for the
        // replicated form, which bypasses the colour calculator.
        let aa = dispatch.and_then(|d| d.aa_alpha).filter(|_| !w.replicated);
        if aa.is_some()
            && target.is_some_and(|t| matches!(t.format.class, Class::Uint | Class::Sint))
        {
            // 3DSTATE_SF Anti-aliasing Enable "must be disabled if any of
            // the render targets have integer (UINT or SINT) surface
            // format" (003 lines 38598-38602).
            return Err(bad(
                "anti-aliased lines drawn into an integer render target (3DSTATE_SF forbids it)",
            ));
        }
        if b.alphatoone_enable && w.color1.is_some() {
            // "If Dual Source Blending is enabled, this bit must be
            // disabled" (003 line 46055).
            return Err(bad("BLEND_STATE: alpha-to-one with a dual-source write"));
        }
        let count = self.samples;
        let ms = dispatch.and_then(|d| d.samples.as_deref());
        for slot in (0..w.slots.min(16)).filter(|s| w.mask >> s & 1 != 0) {
            let ds = w.dispatch_slot + slot;
            // The samples the rasteriser covered (all of a pixel without
            // a dispatch), then the oMask's: bit s for sample s, a 1X
            // pixel being its sample 0 (003 lines 85420-85422).
            let mut cover = ms.map_or(all_samples(count), |m| {
                m.coverage.get(ds).copied().unwrap_or(0)
            });
            if let Some(m) = w.omask {
                cover &= m[slot] as u8;
            }
            if cover == 0 {
                continue;
            }
            let mut colour = w.color[slot];
            let mut src0_alpha = w.src0_alpha.map(|a| a[slot]);
            if let Some(coverage) = aa.and_then(|a| a.get(ds).copied()) {
                colour[3] = aa_attenuate(colour[3], coverage);
                src0_alpha = src0_alpha.map(|a| aa_attenuate(a, coverage));
            }
            let alpha = src0_alpha.unwrap_or(colour[3]);
            if b.alpha_test_enable {
                let cc = self
                    .color_calc
                    .ok_or(bad("alpha test without COLOR_CALC_STATE"))?;
                if !alpha_test(&b, &cc, alpha) {
                    continue;
                }
            }
            if b.alphatocoverage_enable {
                cover &= alpha_to_coverage(alpha, count)?;
            }
            if b.alphatoone_enable {
                // Source 0 alpha becomes 1.0 after alpha-to-coverage used
                // it (003 lines 46050-46051).
                colour[3] = 1.0f32.to_bits();
            }
            let (x, y) = pixel_xy(w.corners[slot / 4], slot);
            for sample in (0..count).filter(|s| cover >> s & 1 != 0) {
                // The shader's depth is the pixel's; the rasteriser's is
                // per sample, at the sample's position.
                let z = match (w.depth, ms) {
                    (Some(d), _) => Some(d[slot]),
                    (None, Some(m)) => m.depth.get(ds).map(|d| d[usize::from(sample)]),
                    (None, None) => dispatch.and_then(|d| d.depth.get(ds).copied()),
                };
                let at = (x, y, sample);
                let (pass, update) =
                    self.depth_stencil(memory, at, z, w.back_facing, w.viewport_index)?;
                if w.last {
                    if let (Some((p, dz, dst)), Some(buffer)) = (update, self.depth)
                        && (dz || dst)
                    {
                        buffer.write(memory, at, p, dz, dst).map_err(fault)?;
                    }
                    // Per sample: the manual counts "pixels" (003 lines
                    // 13303-13306) without multisampling in view; GL's
                    // SAMPLES_PASSED counts samples and Mesa reads it from
                    // this register unscaled (a model choice).
                    if pass {
                        self.passed += 1;
                    }
                }
                if !pass {
                    continue;
                }
                if let Some(t) = &target {
                    self.store_colour(memory, t, &b, at, colour, w.color1.map(|c| c[slot]))?;
                }
            }
        }
        Ok(())
    }

    fn depth_stencil_only(
        &mut self,
        memory: &mut dyn GfxMemory,
        dispatch: &PixelDispatch,
    ) -> Result<(), SendError> {
        if self.pass == DepthPass::Resolve {
            return Ok(());
        }
        let slots = usize::from(dispatch.simd).min(32);
        let count = self.samples;
        let ms = dispatch.samples.as_deref();
        for slot in (0..slots).filter(|s| dispatch.mask >> s & 1 != 0) {
            let (x, y) = pixel_xy(dispatch.corners[slot / 4], slot);
            let cover = ms.map_or(all_samples(count), |m| m.coverage[slot]);
            for sample in (0..count).filter(|s| cover >> s & 1 != 0) {
                let z =
                    Some(ms.map_or(dispatch.depth[slot], |m| m.depth[slot][usize::from(sample)]));
                let at = (x, y, sample);
                let (pass, update) =
                    self.depth_stencil(memory, at, z, !dispatch.front_facing, 0)?;
                if let (Some((p, dz, ds)), Some(buffer)) = (update, self.depth)
                    && (dz || ds)
                {
                    buffer.write(memory, at, p, dz, ds).map_err(fault)?;
                }
                if pass {
                    self.passed += 1;
                }
            }
        }
        Ok(())
    }

    fn samples_passed(&self) -> u64 {
        if self.count_samples { self.passed } else { 0 }
    }

    fn dispatch_flags(&self) -> DispatchFlags {
        self.flags
    }
}

/// Source-0 alpha (a float's bits) times an anti-aliased line's coverage
/// `c` (0-255 for 0.0-1.0, U0.8, 003 lines 41125-41127): "Src0.alpha needs
/// to be first multiplied with AA alpha before applying AlphaToCoverage
/// and AlphaToOne" (003 lines 44750-44751), so before alpha test too (the
/// order of 003 lines 44641-44657), and the attenuated alpha is what
/// blending and the store see (003 lines 38183-38189). The manual gives
/// no precision for the multiply: done in FLOAT32 with the coverage as
/// c / 255 (a model choice). The depth/stencil-only path has no colour, so
/// the coverage plays no part there.
pub(crate) fn aa_attenuate(alpha: u32, c: u8) -> u32 {
    (f32::from_bits(alpha) * (f32::from(c) / 255.0)).to_bits()
}

/// Bits for every sample of a pixel.
fn all_samples(count: u8) -> u8 {
    ((1u16 << count.min(8)) - 1) as u8
}

/// The alpha-to-coverage mask of a source-0 alpha (003 lines 46026-46036):
/// "Value of 0 disables all samples and value of 1 enables all samples",
/// a NaN none (003 line 44753); between them the mask only "monotonically
/// increases the number of enabled" samples, which leaves the mask of
/// each value open: refused rather than guessed. Alphas below 0 and above
/// 1 are taken as 0 and 1 (a model choice; FLOAT32, 003 lines 44758-44759).
fn alpha_to_coverage(alpha: u32, count: u8) -> Result<u8, SendError> {
    let a = f32::from_bits(alpha);
    if a.is_nan() || a <= 0.0 {
        Ok(0)
    } else if a >= 1.0 {
        Ok(all_samples(count))
    } else {
        Err(bad(
            "alpha-to-coverage of an alpha between 0 and 1 (the manual does not give the mask)",
        ))
    }
}

/// Whether blending reads source 1.
fn uses_src1(b: &BlendState) -> bool {
    if !b.color_buffer_blend_enable {
        return false;
    }
    let src1 = |f: u32| matches!(f, 0x09 | 0x0A | 0x19 | 0x1A);
    src1(b.source_blend_factor)
        || src1(b.destination_blend_factor)
        || (b.independent_alpha_blend_enable
            && (src1(b.source_alpha_blend_factor) || src1(b.destination_alpha_blend_factor)))
}
