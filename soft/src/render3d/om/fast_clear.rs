//! Ivy Bridge render-target fast clear and resolve (3DSTATE_PS Render
//! Target Fast Clear Enable and Render Target Resolve Enable) on a
//! single-sampled render target with an MCS buffer (RENDER_SURFACE_STATE
//! MCS Enable; "CCS" in Mesa's isl). There is no IVB 3D manual here: the
//! facts are Mesa's, which quotes the IVB PRM Vol 2 Part 1 section 11.7
//! "MCS Buffer for Render Target(s)" and 11.9 "Render Target Resolve".
//!
//! The hardware's fast clear writes only the MCS buffer, marking blocks as
//! holding the surface state's clear colour; rendering reads through it
//! and a resolve pass writes the clear colour into the blocks still marked
//! [ext: mesa src/intel/blorp/blorp_clear.c and the fast-clear state
//! tracking of src/mesa/drivers/dri/i965/brw_meta_fast_clear.c]. As with
//! HiZ (see `depth`), the model keeps the render target in its resolved
//! state instead: a fast clear writes the clear colour into the pixels it
//! covers, a resolve changes nothing, ordinary rendering writes through.
//! What differs is only the surface's memory between a fast clear and its
//! resolve, which software must not read directly (Mesa resolves before
//! sampling, mapping or scanning out). One divergence: a resolve uses the
//! clear colour in the surface state it is given, so software that changed
//! those bits between the clear and the resolve would see the old colour
//! here.
//!
//! Coverage: the clear pass draws a rectangle scaled down from the area it
//! clears, each of its pixels standing for a block of the target of the
//! scale-down factors: half of 16 times the CCS block width and 32 times
//! its height [ext: mesa src/intel/blorp/blorp_clear.c
//! `get_fast_clear_rect`, quoting IVB PRM Vol2 Part1 11.7 beneath "Fast
//! Color Clear"], the CCS blocks being 16x2, 8x2, 4x2 pixels (X tiled) and
//! 8x4, 4x4, 2x4 (Y tiled) for 32, 64 and 128 bits a pixel [ext: mesa
//! src/intel/isl/isl_format_layout.csv GFX7_CCS_*]. Other tilings and
//! sizes have no MCS buffer for a single-sampled target
//! (`isl_surf_get_ccs_surf`) and are refused.

use crate::eu::send::SendError;
use crate::eu::shared::GfxMemory;
use crate::eu::shared::render_target::Class;
use crate::eu::shared::surface::Tiling;

use super::{RenderTarget, bad, fault};

/// What a draw does to its render targets: 3DSTATE_PS's two bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum RtPass {
    #[default]
    Draw,
    /// Covered blocks take the surface state's clear colour.
    FastClear,
    /// Nothing changes in the model's always-resolved target.
    Resolve,
}

impl RtPass {
    pub fn of(fast_clear: bool, resolve: bool) -> Result<RtPass, &'static str> {
        match (fast_clear, resolve) {
            (false, false) => Ok(RtPass::Draw),
            (true, false) => Ok(RtPass::FastClear),
            (false, true) => Ok(RtPass::Resolve),
            (true, true) => Err("3DSTATE_PS: render target fast clear and resolve both enabled"),
        }
    }
}

/// The block of the target one pixel of a fast-clear rectangle stands for.
fn scaledown(t: &RenderTarget) -> Result<(u32, u32), SendError> {
    let ccs = match (t.surface.tiling, t.format.bytes()) {
        (Tiling::X, 4) => (16, 2),
        (Tiling::X, 8) => (8, 2),
        (Tiling::X, 16) => (4, 2),
        (Tiling::Y, 4) => (8, 4),
        (Tiling::Y, 8) => (4, 4),
        (Tiling::Y, 16) => (2, 4),
        _ => {
            return Err(bad(
                "render-target fast clear: a single-sampled MCS needs an X or Y tiled target of 32, 64 or 128 bits a pixel",
            ));
        }
    };
    Ok((ccs.0 * 16 / 2, ccs.1 * 32 / 2))
}

/// The clear colour of RENDER_SURFACE_STATE DW7 31:28 (R, G, B, A each
/// CC_ZERO or CC_ONE) as the shader would send it: 1.0 or 0.0, or 1 or 0
/// for integer formats [ext: mesa src/intel/genxml/gen7.xml
/// RENDER_SURFACE_STATE Red/Green/Blue/Alpha Clear Color].
fn colour(t: &RenderTarget) -> [u32; 4] {
    let int = matches!(t.format.class, Class::Uint | Class::Sint);
    t.clear_colour.map(|one| match (one, int) {
        (false, _) => 0,
        (true, true) => 1,
        (true, false) => 1.0f32.to_bits(),
    })
}

/// Clears the block of pixel (x, y) of the scaled-down rectangle, clipped
/// to the level rendered into.
pub(super) fn clear(
    memory: &mut dyn GfxMemory,
    t: &RenderTarget,
    x: u32,
    y: u32,
) -> Result<(), SendError> {
    if !t.mcs {
        return Err(bad(
            "render-target fast clear of a target without MCS Enable",
        ));
    }
    let (sx, sy) = scaledown(t)?;
    let l = &t.level;
    let f = &t.format;
    let fields = f.encode(colour(t));
    let bpp = f.bytes();
    let mut px = [0u8; 16];
    let x0 = x.saturating_mul(sx);
    let y0 = y.saturating_mul(sy);
    for py in y0..y0.saturating_add(sy).min(l.height) {
        for qx in x0..x0.saturating_add(sx).min(l.width) {
            let at = t
                .surface
                .address(u64::from(qx + l.x) * bpp as u64, u64::from(py + l.y));
            memory.read(at, &mut px[..bpp]).map_err(fault)?;
            f.write_fields(&mut px[..bpp], fields, 0xF);
            memory.write(at, &px[..bpp]).map_err(fault)?;
        }
    }
    Ok(())
}
