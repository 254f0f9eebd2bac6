//! Sandy Bridge: the output merger's state from the Gen6 commands (003
//! Volume 2): the three pointers of 3DSTATE_CC_STATE_POINTERS (003 lines
//! 26645-26758) and of 3DSTATE_VIEWPORT_STATE_POINTERS, the PS binding
//! table of 3DSTATE_BINDING_TABLE_POINTERS, what 3DSTATE_WM and
//! 3DSTATE_MULTISAMPLE say about the pixels, 3DSTATE_DEPTH_BUFFER (003
//! lines 42515-43140) with the separate stencil buffer that comes with
//! HiZ (003 lines 43150-43260), 3DSTATE_CLEAR_PARAMS, and the render
//! targets' SURFACE_STATE.
//! The front end keeps each pointer's change bit set once loaded.

use baregpu_hal::Packet;
use baregpu_hal::gen6::commands::{
    Cmd3dstateBindingTablePointers, Cmd3dstateCcStatePointers, Cmd3dstateClearParams,
    Cmd3dstateDepthBuffer, Cmd3dstateMultisample, Cmd3dstateStencilBuffer,
    Cmd3dstateViewportStatePointers, Cmd3dstateWm,
};
use baregpu_hal::gen6::structs::SurfaceState;

use super::depth::{DepthBuffer, DepthFormat, DepthPass, Placement, StencilBuffer};
use super::{OmState, RtFields, unpack};
use crate::eu::shared::DispatchFlags;
use crate::eu::shared::surface::MipLayout;
use crate::render3d::types::{DrawEnv, DrawError, Packets};

pub(super) fn om_state(env: &DrawEnv<'_>) -> Result<OmState, DrawError> {
    let packets = env.packets;
    let dynamic = env.bases.dynamic;
    let at = |offset: u32| Some(dynamic.wrapping_add(u64::from(offset)));
    let mut s = OmState {
        depth: depth_buffer(packets)?,
        ..OmState::default()
    };
    unpack::<Cmd3dstateMultisample>(packets, "3DSTATE_MULTISAMPLE does not decode")?;
    // The sample count of every render target and of the depth buffer
    // (003 lines 41663-41666).
    s.samples =
        crate::render3d::raster::multisample(packets.get(Cmd3dstateMultisample::NAME), false)?
            .samples;
    if let Some(wm) = unpack::<Cmd3dstateWm>(packets, "3DSTATE_WM does not decode")? {
        // "If Statistics Enable is set in 3DSTATE_WM, the PS_DEPTH_COUNT
        // register [...] will be incremented once for each pixel (or
        // sample) that passes" (003 lines 46478-46481); without pixel
        // shader dispatch Sandy Bridge counts regardless [ext: mesa
        // src/intel/blorp/blorp_clear.c `blorp_clear_depth_stencil`: "it
        // records samples even though we disable statistics in
        // 3DSTATE_WM"].
        s.count_samples = wm.statistics_enable || !wm.thread_dispatch_enable;
        s.pass = DepthPass::of(
            wm.depth_buffer_clear,
            wm.depth_buffer_resolve_enable,
            wm.hierarchical_depth_buffer_resolve_enable,
            s.depth.is_some_and(|d| d.hiz),
        )?;
        // The windower's R0.0 bits 13 and 12 (003 lines 44026-44030)
        // are taken to follow these 3DSTATE_WM bits: the oMask bit "is
        // made available to the DataPort (either via the message
        // header or via header bypass)" [ext: mesa
        // src/mesa/drivers/dri/i965/genX_state_upload.c, quoting the
        // PRM on oMask Present to RenderTarget]; source depth alike.
        s.flags = DispatchFlags {
            source_depth: wm.pixel_shader_computed_depth,
            omask: wm.omask_present_to_rendertarget,
        };
    }
    if let Some(p) =
        unpack::<Cmd3dstateCcStatePointers>(packets, "3DSTATE_CC_STATE_POINTERS does not decode")?
    {
        if p.blend_state_change {
            s.blend_at = at(p.pointer_to_blend_state);
        }
        if p.depth_stencil_state_change {
            s.depth_stencil_at = at(p.pointer_to_depth_stencil_state);
        }
        if p.color_calc_state_change {
            s.color_calc_at = at(p.pointer_to_color_calc_state);
        }
    }
    if let Some(p) = unpack::<Cmd3dstateViewportStatePointers>(
        packets,
        "3DSTATE_VIEWPORT_STATE_POINTERS does not decode",
    )? && p.cc_viewport_state_change
    {
        s.cc_viewport_at = at(p.pointer_to_cc_viewport);
    }
    if let Some(p) = unpack::<Cmd3dstateBindingTablePointers>(
        packets,
        "3DSTATE_BINDING_TABLE_POINTERS does not decode",
    )? && p.ps_binding_table_change
    {
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
    Ok(s)
}

/// The depth buffer 3DSTATE_DEPTH_BUFFER names, `None` for SURFTYPE_NULL
/// or no command.
fn depth_buffer(packets: &Packets) -> Result<Option<DepthBuffer>, DrawError> {
    let Some(p) = unpack::<Cmd3dstateDepthBuffer>(packets, "3DSTATE_DEPTH_BUFFER does not decode")?
    else {
        return Ok(None);
    };
    match p.surface_type {
        7 => return Ok(None),
        1 => {}
        // 1D, 3D and cube depth buffers.
        0 | 2 | 3 => {
            return Err(DrawError::Unmodelled(
                "depth buffers other than 2D and NULL",
            ));
        }
        _ => return Err(DrawError::Invalid("3DSTATE_DEPTH_BUFFER: surface type")),
    }
    let format = DepthFormat::of(p.surface_format)?;
    if !p.tiled_surface {
        return Err(DrawError::Invalid(
            "3DSTATE_DEPTH_BUFFER: a linear depth buffer is not supported on Gen6",
        ));
    }
    if p.tile_walk != 1 {
        return Err(DrawError::Invalid(
            "3DSTATE_DEPTH_BUFFER: a tiled depth buffer must walk Y major",
        ));
    }
    // "[DevSNB]: This field must be set to the same value ... as
    // Hierarchical Depth Buffer Enable" (003 lines 42796-42797), and
    // with it the combined stencil formats are not allowed (42780-42782).
    if p.hierarchical_depth_buffer_enable != p.separate_stencil_buffer_enable {
        return Err(DrawError::Invalid(
            "3DSTATE_DEPTH_BUFFER: hierarchical depth and separate stencil enables differ",
        ));
    }
    if p.separate_stencil_buffer_enable && format.has_stencil() {
        return Err(DrawError::Invalid(
            "3DSTATE_DEPTH_BUFFER: a combined depth-stencil format with a separate stencil buffer",
        ));
    }
    if p.software_tiled_rendering_mode != 0 {
        return Err(DrawError::Unmodelled("software tiled rendering modes"));
    }
    if p.depth != 0 || p.minimum_array_element != 0 {
        return Err(DrawError::Unmodelled("depth buffer arrays"));
    }
    let mut stencil = None;
    if p.separate_stencil_buffer_enable
        && let Some(s) =
            unpack::<Cmd3dstateStencilBuffer>(packets, "3DSTATE_STENCIL_BUFFER does not decode")?
    {
        stencil = Some(StencilBuffer::of(s.surface_base_address, s.surface_pitch)?);
    }
    let mut d = DepthBuffer::two_d(
        format,
        Placement {
            base: p.surface_base_address,
            width: p.width + 1,
            height: p.height + 1,
            pitch: p.surface_pitch + 1,
            lod: p.lod,
            mip_layout: if p.mip_map_layout_mode == 1 {
                MipLayout::Right
            } else {
                MipLayout::Below
            },
            // i = 4 ("all other formats") and j = 4 "for any depth buffer"
            // (003 lines 6068-6076).
            align: (4, 4),
            offset: (p.depth_coordinate_offset_x, p.depth_coordinate_offset_y),
        },
    )?;
    d.separate_stencil = p.separate_stencil_buffer_enable;
    d.hiz = p.hierarchical_depth_buffer_enable;
    d.stencil = stencil;
    Ok(Some(d))
}

/// The render-target fields of a Gen6 SURFACE_STATE (6 dwords).
pub(super) fn rt_fields(dw: &[u32]) -> Result<RtFields, &'static str> {
    let s = SurfaceState::unpack(dw).map_err(|_| "render target SURFACE_STATE does not decode")?;
    Ok(RtFields {
        min_array: s.minimum_array_element,
        lod: s.mip_count_lod,
        offset_or_rotation: s.x_offset != 0 || s.y_offset != 0 || s.render_target_rotation != 0,
        mcs: false,
        clear_colour: [false; 4],
    })
}
