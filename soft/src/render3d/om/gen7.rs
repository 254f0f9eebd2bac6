//! Ivy Bridge: the output merger's state from the Gen7 commands (hal
//! `gen7` tables, from Mesa src/intel/genxml/gen7.xml; there is no IVB 3D
//! manual here). What moved from SNB: each state pointer has its own
//! command (3DSTATE_BLEND_STATE_POINTERS, 3DSTATE_DEPTH_STENCIL_STATE_POINTERS,
//! 3DSTATE_CC_STATE_POINTERS now holding only COLOR_CALC_STATE,
//! 3DSTATE_VIEWPORT_STATE_POINTERS_CC, 3DSTATE_BINDING_TABLE_POINTERS_PS),
//! without change bits; the pixel shader's oMask and render-target clear
//! and resolve bits are in 3DSTATE_PS; 3DSTATE_DEPTH_BUFFER carries depth
//! and stencil write enables, has no combined depth-stencil formats and no
//! tiling fields, and stencil is always the separate W-tiled buffer of
//! 3DSTATE_STENCIL_BUFFER; render targets use the 8-dword
//! RENDER_SURFACE_STATE. BLEND_STATE, DEPTH_STENCIL_STATE,
//! COLOR_CALC_STATE and CC_VIEWPORT keep the Gen6 layouts (gen7.xml
//! BLEND_STATE_ENTRY, DEPTH_STENCIL_STATE, COLOR_CALC_STATE, CC_VIEWPORT
//! against gen6.xml, bit for bit), so `super::state` reads them alike.

use baregpu_hal::Packet;
use baregpu_hal::gen7::commands::{
    Cmd3dstateBindingTablePointersPs, Cmd3dstateBlendStatePointers, Cmd3dstateCcStatePointers,
    Cmd3dstateClearParams, Cmd3dstateDepthBuffer, Cmd3dstateDepthStencilStatePointers,
    Cmd3dstateHierDepthBuffer, Cmd3dstateMultisample, Cmd3dstatePs, Cmd3dstateStencilBuffer,
    Cmd3dstateViewportStatePointersCc, Cmd3dstateWm,
};
use baregpu_hal::gen7::structs::RenderSurfaceState;

use super::depth::{DepthBuffer, DepthFormat, DepthPass, Placement, StencilBuffer};
use super::fast_clear::RtPass;
use super::{OmState, RtFields, unpack};
use crate::eu::shared::DispatchFlags;
use crate::eu::shared::surface::MipLayout;
use crate::render3d::types::{DrawEnv, DrawError, Packets};

pub(super) fn om_state(env: &DrawEnv<'_>) -> Result<OmState, DrawError> {
    let packets = env.packets;
    let dynamic = env.bases.dynamic;
    let at = |offset: u32| Some(dynamic.wrapping_add(u64::from(offset)));
    // A pointer command never sent leaves its pointer at its reset value,
    // 0: the state is read at Dynamic State Base Address itself. Linux's
    // Gen7 copy sends no DEPTH_STENCIL_STATE or COLOR_CALC_STATE pointer
    // (intel-gpu-tools lib/rendercopy_gen7.c gen7_render_copyfunc) and
    // relies on what lies there leaving the tests off.
    unpack::<Cmd3dstateMultisample>(packets, "3DSTATE_MULTISAMPLE does not decode")?;
    let samples =
        crate::render3d::raster::multisample(packets.get(Cmd3dstateMultisample::NAME), true)?
            .samples;
    let mut s = OmState {
        blend_at: at(0),
        depth_stencil_at: at(0),
        color_calc_at: at(0),
        cc_viewport_at: at(0),
        depth: depth_buffer(packets)?,
        samples,
        ..OmState::default()
    };
    if let Some(wm) = unpack::<Cmd3dstateWm>(packets, "3DSTATE_WM does not decode")? {
        // As on Gen6 (003 lines 46478-46481) [ext: mesa
        // src/intel/genxml/gen7.xml 3DSTATE_WM Statistics Enable].
        s.count_samples = wm.statistics_enable;
        s.pass = DepthPass::of(
            wm.depth_buffer_clear,
            wm.depth_buffer_resolve_enable,
            wm.hierarchical_depth_buffer_resolve_enable,
            s.depth.is_some_and(|d| d.hiz),
        )?;
        // EDSC_PSEXEC and EDSC_PREPS move the depth and stencil test and
        // update relative to the shader (gen7.xml Early Depth/Stencil
        // Control); the model tests after the shader, EDSC_NORMAL.
        if wm.early_depth_stencil_control != 0 {
            return Err(DrawError::Unmodelled(
                "3DSTATE_WM Early Depth/Stencil Control other than EDSC_NORMAL",
            ));
        }
        // PSCDEPTH_ON_GE / ON_LE only promise a direction for HiZ, which
        // is not modelled: every mode other than OFF is computed depth.
        s.flags.source_depth = wm.pixel_shader_computed_depth_mode != 0;
    }
    if let Some(ps) = unpack::<Cmd3dstatePs>(packets, "3DSTATE_PS does not decode")? {
        s.rt_pass = RtPass::of(
            ps.render_target_fast_clear_enable,
            ps.render_target_resolve_enable,
        )
        .map_err(DrawError::Invalid)?;
        s.flags = DispatchFlags {
            omask: ps.omask_present_to_rendertarget,
            ..s.flags
        };
    }
    if let Some(p) = unpack::<Cmd3dstateBlendStatePointers>(
        packets,
        "3DSTATE_BLEND_STATE_POINTERS does not decode",
    )? {
        s.blend_at = at(p.blend_state_pointer);
    }
    if let Some(p) = unpack::<Cmd3dstateDepthStencilStatePointers>(
        packets,
        "3DSTATE_DEPTH_STENCIL_STATE_POINTERS does not decode",
    )? {
        s.depth_stencil_at = at(p.pointer_to_depth_stencil_state);
    }
    if let Some(p) =
        unpack::<Cmd3dstateCcStatePointers>(packets, "3DSTATE_CC_STATE_POINTERS does not decode")?
    {
        s.color_calc_at = at(p.color_calc_state_pointer);
    }
    if let Some(p) = unpack::<Cmd3dstateViewportStatePointersCc>(
        packets,
        "3DSTATE_VIEWPORT_STATE_POINTERS_CC does not decode",
    )? {
        s.cc_viewport_at = at(p.cc_viewport_pointer);
    }
    if let Some(p) = unpack::<Cmd3dstateBindingTablePointersPs>(
        packets,
        "3DSTATE_BINDING_TABLE_POINTERS_PS does not decode",
    )? {
        s.binding_table = Some(
            env.bases
                .surface
                .wrapping_add(u64::from(p.pointer_to_ps_binding_table)),
        );
    }
    if let Some(p) =
        unpack::<Cmd3dstateClearParams>(packets, "3DSTATE_CLEAR_PARAMS does not decode")?
        && p.depth_clear_value_valid
    {
        s.clear_value = Some(p.depth_clear_value);
    }
    // The command's own write enables gate DEPTH_STENCIL_STATE's, with a
    // NULL surface too (no command: their reset value, off).
    s.write_gate = Some(
        unpack::<Cmd3dstateDepthBuffer>(packets, "3DSTATE_DEPTH_BUFFER does not decode")?
            .map_or((false, false), |p| {
                (p.depth_write_enable, p.stencil_write_enable)
            }),
    );
    Ok(s)
}

/// The depth buffer of 3DSTATE_DEPTH_BUFFER with the stencil buffer of
/// 3DSTATE_STENCIL_BUFFER, `None` for SURFTYPE_NULL or no command.
fn depth_buffer(packets: &Packets) -> Result<Option<DepthBuffer>, DrawError> {
    let Some(p) = unpack::<Cmd3dstateDepthBuffer>(packets, "3DSTATE_DEPTH_BUFFER does not decode")?
    else {
        return Ok(None);
    };
    match p.surface_type {
        7 => return Ok(None),
        1 => {}
        0 | 2 | 3 => {
            return Err(DrawError::Unmodelled(
                "depth buffers other than 2D and NULL",
            ));
        }
        _ => return Err(DrawError::Invalid("3DSTATE_DEPTH_BUFFER: surface type")),
    }
    // gen7.xml lists D32_FLOAT, D24_UNORM_X8_UINT and D16_UNORM only:
    // stencil is never in the depth buffer on Gen7.
    let format = match p.surface_format {
        1 | 3 | 5 => DepthFormat::of(p.surface_format)?,
        _ => {
            return Err(DrawError::Invalid(
                "3DSTATE_DEPTH_BUFFER: not a Gen7 depth format (D32_FLOAT, D24_UNORM_X8_UINT, D16_UNORM)",
            ));
        }
    };
    if p.depth != 0 || p.minimum_array_element != 0 || p.render_target_view_extent != 0 {
        return Err(DrawError::Unmodelled("depth buffer arrays"));
    }
    // Mesa sends an all-zero 3DSTATE_STENCIL_BUFFER for "no stencil
    // buffer" and the real one with its pitch doubled [ext: mesa
    // src/mesa/drivers/dri/i965/gen7_misc_state.c
    // gen7_emit_depth_stencil_hiz].
    let mut stencil = None;
    if let Some(dw) = packets.get(Cmd3dstateStencilBuffer::NAME) {
        let s = Cmd3dstateStencilBuffer::unpack(dw)
            .map_err(|_| DrawError::Invalid("3DSTATE_STENCIL_BUFFER does not decode"))?;
        if dw.iter().skip(1).any(|&d| d != 0) {
            stencil = Some(StencilBuffer::of(s.surface_base_address, s.surface_pitch)?);
        }
    }
    // The HiZ buffer only serves the hardware's acceleration, which the
    // model does without (`depth`'s module text); its command must decode.
    unpack::<Cmd3dstateHierDepthBuffer>(packets, "3DSTATE_HIER_DEPTH_BUFFER does not decode")?;
    let mut d = DepthBuffer::two_d(
        format,
        Placement {
            base: p.surface_base_address,
            width: p.width + 1,
            height: p.height + 1,
            pitch: p.surface_pitch + 1,
            lod: p.lod,
            // Gen7's command has no MIP Map Layout Mode: levels go below
            // [ext: mesa src/intel/genxml/gen7.xml 3DSTATE_DEPTH_BUFFER].
            mip_layout: MipLayout::Below,
            // The alignment unit is 8 x 4 for D16_UNORM and 4 x 4 for the
            // other depth formats [ext: mesa src/intel/isl/isl_gfx7.c
            // isl_gfx7_choose_image_alignment_el, quoting the IVB PRM Vol. 2
            // Part 2 section 6.18.4.4 "Alignment unit size"].
            align: if format == DepthFormat::D16Unorm {
                (8, 4)
            } else {
                (4, 4)
            },
            offset: (p.depth_coordinate_offset_x, p.depth_coordinate_offset_y),
        },
    )?;
    d.separate_stencil = true;
    d.hiz = p.hierarchical_depth_buffer_enable;
    d.stencil = stencil;
    d.depth_write = p.depth_write_enable;
    d.stencil_write = p.stencil_write_enable;
    Ok(Some(d))
}

/// The render-target fields of a Gen7 RENDER_SURFACE_STATE (8 dwords).
pub(super) fn rt_fields(dw: &[u32]) -> Result<RtFields, &'static str> {
    let s = RenderSurfaceState::unpack(dw)
        .map_err(|_| "render target RENDER_SURFACE_STATE does not decode")?;
    Ok(RtFields {
        min_array: s.minimum_array_element,
        lod: s.mip_count_lod,
        offset_or_rotation: s.x_offset != 0 || s.y_offset != 0 || s.render_target_rotation != 0,
        mcs: s.mcs_enable,
        clear_colour: [
            s.red_clear_color == 1,
            s.green_clear_color == 1,
            s.blue_clear_color == 1,
            s.alpha_clear_color == 1,
        ],
    })
}
