//! Ivy Bridge's front-end commands (hal `gen7` tables, from Mesa
//! src/intel/genxml/gen7.xml; there is no IVB 3D manual here), turned into
//! the forms the front end shares with Sandy Bridge, and what IVB checks
//! or refuses on top.
//!
//! - 3DPRIMITIVE: the topology and access type move to DW1 and the
//!   indirect, predicate and end-offset enables appear (refused as not
//!   modelled); the counts follow in DW2-6.
//! - VERTEX_ELEMENT_STATE: as on SNB with an 11:0 Source Element Offset;
//!   VERTEX_BUFFER_STATE: as on SNB with Address Modify Enable (bit 14):
//!   taken by its name, clear, the buffer keeps the addresses it had (Mesa
//!   sets it whenever it loads addresses: i965 genX_state_upload.c
//!   `genX(emit_vertex_buffer_state)`).
//! - 3DSTATE_URB_VS sizes the VS entries in 512-bit units (minus one); the
//!   HS, DS and GS entries are kept (their stages are disabled).
//! - 3DSTATE_CONSTANT_*: four read lengths in 256-bit units, a buffer
//!   valid when its length is not 0; buffer 0 Dynamic State relative as on
//!   SNB (i965 genX_state_upload.c `upload_constant_state`: before Gen9
//!   buffer 0 carries the state-buffer offset, no relocation), the others
//!   graphics addresses. The reads must fit the stage's share of the push
//!   constant space (3DSTATE_PUSH_CONSTANT_ALLOC_*, KiB).
//! - HS, TE, DS, GS and stream output run only when enabled: enabled they
//!   are refused by name.

use alloc::vec::Vec;

use baregpu_hal::Packet;
use baregpu_hal::gen6::commands as g6;
use baregpu_hal::gen7::commands::{
    Cmd3dprimitive, Cmd3dstateBindingTablePointersVs, Cmd3dstateConstantDs, Cmd3dstateConstantGs,
    Cmd3dstateConstantHs, Cmd3dstateConstantPs, Cmd3dstateConstantVs, Cmd3dstateDs, Cmd3dstateGs,
    Cmd3dstateHs, Cmd3dstatePs, Cmd3dstatePushConstantAllocVs, Cmd3dstateSamplerStatePointersVs,
    Cmd3dstateStreamout, Cmd3dstateTe, Cmd3dstateUrbVs, Cmd3dstateVertexBuffers,
    Cmd3dstateVertexBuffersVertexBufferState, Cmd3dstateVertexElements, Cmd3dstateVs,
};

use super::vs::{UrbLayout, VsState};
use crate::gpe::Bases;
use crate::render3d::types::{DrawError, Packets};

/// IVB GT1 (the model's thread count, hal/tables/gen7/device.toml): a
/// 128 KiB URB, 32-512 VS entries (Mesa src/intel/dev/intel_device_info.c
/// `ivb_gt1`: urb.size 128, min_entries VS 32, max_entries VS 512).
const URB_BYTES: usize = 128 * 1024;
const VS_MIN_ENTRIES: usize = 32;
const VS_MAX_ENTRIES: usize = 512;

/// The push constant space on IVB: 16 KiB (Mesa i965 gen7_urb.c
/// `gen7_upload_urb`: push_size_kB 16 unless Gen8+ or HSW GT3).
const PUSH_CONSTANT_KIB: u32 = 16;

fn decode<P: Packet>(dw: &[u32], what: &'static str) -> Result<P, DrawError> {
    P::unpack(dw).map_err(|_| DrawError::Invalid(what))
}

fn kept<P: Packet + Default>(
    packets: &Packets,
    name: &str,
    what: &'static str,
) -> Result<Option<P>, DrawError> {
    packets.get(name).map(|dw| decode(dw, what)).transpose()
}

/// 3DPRIMITIVE in the SNB form the vertex fetch reads.
pub(crate) fn primitive(dw: &[u32]) -> Result<g6::Cmd3dprimitive, DrawError> {
    let p: Cmd3dprimitive = decode(dw, "3DPRIMITIVE does not decode")?;
    if p.indirect_parameter_enable {
        return Err(DrawError::Unmodelled(
            "3DPRIMITIVE Indirect Parameter Enable (the 3DPRIM_* registers)",
        ));
    }
    if p.predicate_enable {
        return Err(DrawError::Unmodelled("3DPRIMITIVE Predicate Enable"));
    }
    if p.end_offset_enable {
        return Err(DrawError::Unmodelled("3DPRIMITIVE End Offset Enable"));
    }
    Ok(g6::Cmd3dprimitive {
        vertex_access_type: p.vertex_access_type,
        primitive_topology_type: p.primitive_topology_type,
        // The SNB GS stream-output count has no IVB counterpart.
        internal_vertex_count: false,
        vertex_count_per_instance: p.vertex_count_per_instance,
        start_vertex_location: p.start_vertex_location,
        instance_count: p.instance_count,
        start_instance_location: p.start_instance_location,
        base_vertex_location: p.base_vertex_location,
        ..g6::Cmd3dprimitive::default()
    })
}

/// The vertex elements of a Gen7 3DSTATE_VERTEX_ELEMENTS.
pub(crate) fn vertex_elements(
    dw: &[u32],
) -> Result<Vec<g6::Cmd3dstateVertexElementsElement>, DrawError> {
    let ves: Cmd3dstateVertexElements = decode(dw, "3DSTATE_VERTEX_ELEMENTS does not decode")?;
    Ok(ves
        .vertex_element_state
        .iter()
        .map(|e| g6::Cmd3dstateVertexElementsElement {
            vertex_buffer_index: e.vertex_buffer_index,
            valid: e.valid,
            source_element_format: e.source_element_format,
            edge_flag_enable: e.edge_flag_enable,
            source_element_offset: e.source_element_offset,
            component_0_control: e.component_0_control,
            component_1_control: e.component_1_control,
            component_2_control: e.component_2_control,
            component_3_control: e.component_3_control,
        })
        .collect())
}

/// The buffers of the kept (merged) Gen7 3DSTATE_VERTEX_BUFFERS.
pub(crate) fn vertex_buffers(
    dw: &[u32],
) -> Result<Vec<g6::Cmd3dstateVertexBuffersVertexBufferState>, DrawError> {
    let vbs: Cmd3dstateVertexBuffers = decode(dw, "3DSTATE_VERTEX_BUFFERS does not decode")?;
    Ok(vbs
        .vertex_buffer_state
        .iter()
        .map(|b| g6::Cmd3dstateVertexBuffersVertexBufferState {
            vertex_buffer_index: b.vertex_buffer_index,
            buffer_access_type: b.buffer_access_type,
            vertex_buffer_memory_object_control_state: b.vertex_buffer_memory_object_control_state,
            null_vertex_buffer: b.null_vertex_buffer,
            vertex_fetch_invalidate: b.vertex_fetch_invalidate,
            buffer_pitch: b.buffer_pitch,
            buffer_starting_address: b.buffer_starting_address,
            end_address: b.end_address,
            instance_data_step_rate: b.instance_data_step_rate,
        })
        .collect())
}

/// 3DSTATE_VERTEX_BUFFERS merged by index (as on SNB, 33 buffers, 003
/// line 30130; Mesa gen7.xml keeps the 6-bit index); a buffer loaded
/// without Address Modify Enable keeps its addresses.
pub(crate) fn keep_vertex_buffers(packets: &mut Packets, dw: &[u32]) -> Result<(), DrawError> {
    let new: Cmd3dstateVertexBuffers = decode(dw, "3DSTATE_VERTEX_BUFFERS does not decode")?;
    let mut all: Vec<Cmd3dstateVertexBuffersVertexBufferState> = match packets
        .get("3DSTATE_VERTEX_BUFFERS")
        .map(Cmd3dstateVertexBuffers::unpack)
    {
        Some(Ok(old)) => old.vertex_buffer_state,
        _ => Vec::new(),
    };
    for mut b in new.vertex_buffer_state {
        if b.vertex_buffer_index > 32 {
            return Err(DrawError::Invalid("vertex buffer index above 32"));
        }
        let old = all
            .iter()
            .position(|o| o.vertex_buffer_index == b.vertex_buffer_index)
            .map(|k| all.swap_remove(k));
        if !b.address_modify_enable {
            // Addresses never loaded are 0 (the power-on state).
            let (start, end) = old.map_or((0, 0), |o| (o.buffer_starting_address, o.end_address));
            b.buffer_starting_address = start;
            b.end_address = end;
        }
        // The kept packet holds the addresses in force.
        b.address_modify_enable = true;
        all.push(b);
    }
    all.sort_by_key(|b| b.vertex_buffer_index);
    let merged = Cmd3dstateVertexBuffers {
        vertex_buffer_state: all,
    };
    let mut out = alloc::vec![0u32; merged.dwords()];
    merged
        .pack(&mut out)
        .map_err(|_| DrawError::Invalid("3DSTATE_VERTEX_BUFFERS does not pack"))?;
    packets.set("3DSTATE_VERTEX_BUFFERS", &out);
    Ok(())
}

/// The buffers a Gen7 3DSTATE_CONSTANT_* command reads, as (graphics
/// address, 256-bit rows).
pub(crate) fn constant_buffers(
    name: &str,
    dw: &[u32],
    bases: &Bases,
    absolute: bool,
) -> Result<Vec<(u64, usize)>, DrawError> {
    const BAD: &str = "3DSTATE_CONSTANT_* does not decode";
    // The five commands share 3DSTATE_CONSTANT_BODY (Mesa gen7.xml).
    macro_rules! body {
        ($t:ty) => {{
            let c: $t = decode(dw, BAD)?;
            [
                (
                    c.pointer_to_constant_buffer_0,
                    c.constant_buffer_0_read_length,
                ),
                (
                    c.pointer_to_constant_buffer_1,
                    c.constant_buffer_1_read_length,
                ),
                (
                    c.pointer_to_constant_buffer_2,
                    c.constant_buffer_2_read_length,
                ),
                (
                    c.pointer_to_constant_buffer_3,
                    c.constant_buffer_3_read_length,
                ),
            ]
        }};
    }
    let b = match name {
        "3DSTATE_CONSTANT_VS" => body!(Cmd3dstateConstantVs),
        "3DSTATE_CONSTANT_HS" => body!(Cmd3dstateConstantHs),
        "3DSTATE_CONSTANT_DS" => body!(Cmd3dstateConstantDs),
        "3DSTATE_CONSTANT_GS" => body!(Cmd3dstateConstantGs),
        "3DSTATE_CONSTANT_PS" => body!(Cmd3dstateConstantPs),
        _ => return Err(DrawError::Invalid(BAD)),
    };
    let mut out = Vec::new();
    let mut total = 0;
    for (k, &(pointer, rows)) in b.iter().enumerate() {
        if rows == 0 {
            continue;
        }
        let at = if k == 0 && !absolute {
            bases.dynamic.wrapping_add(pointer)
        } else {
            pointer
        };
        total += rows as usize;
        out.push((at, rows as usize));
    }
    // No stage may read more than the whole push constant space.
    if total * 32 > PUSH_CONSTANT_KIB as usize * 1024 {
        return Err(DrawError::Invalid(
            "3DSTATE_CONSTANT_* reads more than the push constant space",
        ));
    }
    Ok(out)
}

/// 3DSTATE_PUSH_CONSTANT_ALLOC_*: Constant Buffer Offset and Size (KiB)
/// within the push constant space.
pub(crate) fn check_push_constant_alloc(dw: &[u32]) -> Result<(), DrawError> {
    // The five commands share the body (Mesa gen7.xml).
    let a: Cmd3dstatePushConstantAllocVs =
        decode(dw, "3DSTATE_PUSH_CONSTANT_ALLOC_* does not decode")?;
    if a.constant_buffer_offset + a.constant_buffer_size > PUSH_CONSTANT_KIB {
        return Err(DrawError::Invalid(
            "3DSTATE_PUSH_CONSTANT_ALLOC_* beyond the 16 KiB push constant space",
        ));
    }
    Ok(())
}

/// The VS URB entries of 3DSTATE_URB_VS.
pub(crate) fn urb_layout(packets: &Packets) -> Result<UrbLayout, DrawError> {
    let u: Cmd3dstateUrbVs = kept(packets, "3DSTATE_URB_VS", "3DSTATE_URB_VS does not decode")?
        .ok_or(DrawError::Invalid("no 3DSTATE_URB_VS before the draw"))?;
    let units = u.vs_urb_entry_allocation_size as usize + 1;
    let entries = u.vs_number_of_urb_entries as usize;
    if !(VS_MIN_ENTRIES..=VS_MAX_ENTRIES).contains(&entries) {
        return Err(DrawError::Invalid(
            "VS Number of URB Entries outside 32-512 (IVB GT1)",
        ));
    }
    // "VS Number of URB Entries must be divisible by 8 if the VS URB Entry
    // Allocation Size is less than 9 512-bit URB entries" (IVB PRM vol 2
    // part 1 1.7.1, quoted in Mesa i965 gen7_urb.c).
    if units < 9 && entries % 8 != 0 {
        return Err(DrawError::Invalid(
            "VS Number of URB Entries not a multiple of 8 with entries under 9 units",
        ));
    }
    if entries * units * 64 > URB_BYTES {
        return Err(DrawError::Invalid("VS URB entries larger than the URB"));
    }
    Ok(UrbLayout {
        entries,
        rows: units * 2,
    })
}

/// The Gen7 3DSTATE_VS; `None` when never loaded or disabled.
pub(crate) fn vs_state(packets: &Packets) -> Result<Option<VsState>, DrawError> {
    let Some(vs): Option<Cmd3dstateVs> = kept(packets, "3DSTATE_VS", "3DSTATE_VS does not decode")?
    else {
        return Ok(None);
    };
    if !vs.vs_function_enable {
        return Ok(None);
    }
    Ok(Some(VsState {
        kernel: vs.kernel_start_pointer,
        single_vertex: vs.single_vertex_dispatch,
        vector_mask: vs.vector_mask_enable,
        alt_float: vs.floating_point_mode != 0,
        illegal_opcode_exception: vs.illegal_opcode_exception_enable,
        software_exception: vs.software_exception_enable,
        scratch_base: vs.scratch_space_base_pointer as u32,
        scratch_code: vs.per_thread_scratch_space,
        grf_start: vs.dispatch_grf_start_register_for_urb_data,
        read_length: vs.vertex_urb_entry_read_length,
        read_offset: vs.vertex_urb_entry_read_offset,
        max_threads: vs.maximum_number_of_threads,
        statistics: vs.statistics_enable,
    }))
}

/// The VS push constants must fit the VS's push constant allocation.
pub(crate) fn check_vs_constants(packets: &Packets) -> Result<(), DrawError> {
    let bytes = packets.get("PCB_VS").map_or(0, |d| 4 * d.len());
    if bytes == 0 {
        return Ok(());
    }
    let alloc: Cmd3dstatePushConstantAllocVs = kept(
        packets,
        "3DSTATE_PUSH_CONSTANT_ALLOC_VS",
        "3DSTATE_PUSH_CONSTANT_ALLOC_VS does not decode",
    )?
    .unwrap_or_default();
    if bytes > 1024 * alloc.constant_buffer_size as usize {
        return Err(DrawError::Invalid(
            "3DSTATE_CONSTANT_VS reads more than 3DSTATE_PUSH_CONSTANT_ALLOC_VS reserves",
        ));
    }
    Ok(())
}

/// The VS binding table (Surface State relative) and SAMPLER_STATE
/// (Dynamic State relative) pointers.
pub(crate) fn vs_pointers(packets: &Packets) -> Result<(u32, u32), DrawError> {
    let bt: Cmd3dstateBindingTablePointersVs = kept(
        packets,
        "3DSTATE_BINDING_TABLE_POINTERS_VS",
        "3DSTATE_BINDING_TABLE_POINTERS_VS does not decode",
    )?
    .unwrap_or_default();
    let sp: Cmd3dstateSamplerStatePointersVs = kept(
        packets,
        "3DSTATE_SAMPLER_STATE_POINTERS_VS",
        "3DSTATE_SAMPLER_STATE_POINTERS_VS does not decode",
    )?
    .unwrap_or_default();
    Ok((
        bt.pointer_to_vs_binding_table,
        sp.pointer_to_vs_sampler_state,
    ))
}

/// The pixel-shader thread limit: 3DSTATE_PS Maximum Number of Threads
/// (DW4 31:24, Mesa gen7.xml) plus one.
pub(crate) fn ps_max_threads(packets: &Packets) -> Result<usize, DrawError> {
    let ps: Cmd3dstatePs = kept(packets, "3DSTATE_PS", "3DSTATE_PS does not decode")?
        .ok_or(DrawError::Invalid("no 3DSTATE_PS before the draw"))?;
    Ok(ps.maximum_number_of_threads as usize + 1)
}

/// The stages between the VS and the clipper the model does not run:
/// refused when enabled.
pub(crate) fn refuse_unmodelled_stages(packets: &Packets) -> Result<(), DrawError> {
    if let Some(hs) = kept::<Cmd3dstateHs>(packets, "3DSTATE_HS", "3DSTATE_HS does not decode")?
        && hs.enable
    {
        return Err(DrawError::Unmodelled("HS threads (3DSTATE_HS Enable)"));
    }
    if let Some(te) = kept::<Cmd3dstateTe>(packets, "3DSTATE_TE", "3DSTATE_TE does not decode")?
        && te.te_enable
    {
        return Err(DrawError::Unmodelled(
            "the tessellator (3DSTATE_TE TE Enable)",
        ));
    }
    if let Some(ds) = kept::<Cmd3dstateDs>(packets, "3DSTATE_DS", "3DSTATE_DS does not decode")?
        && ds.ds_function_enable
    {
        return Err(DrawError::Unmodelled(
            "DS threads (3DSTATE_DS DS Function Enable)",
        ));
    }
    if let Some(gs) = kept::<Cmd3dstateGs>(packets, "3DSTATE_GS", "3DSTATE_GS does not decode")?
        && gs.gs_enable
    {
        return Err(DrawError::Unmodelled(
            "Gen7 GS threads (3DSTATE_GS GS Enable)",
        ));
    }
    if let Some(so) = kept::<Cmd3dstateStreamout>(
        packets,
        "3DSTATE_STREAMOUT",
        "3DSTATE_STREAMOUT does not decode",
    )? {
        if so.so_function_enable {
            return Err(DrawError::Unmodelled(
                "stream output (3DSTATE_STREAMOUT SO Function Enable)",
            ));
        }
        if so.rendering_disable {
            return Err(DrawError::Unmodelled("3DSTATE_STREAMOUT Rendering Disable"));
        }
    }
    Ok(())
}
