//! Ivy Bridge's front-end commands (hal `gen7` tables, from Mesa
//! src/intel/genxml/gen7.xml; there is no IVB 3D manual here), turned into
//! the forms the front end shares with Sandy Bridge, and what IVB checks
//! or refuses on top.
//!
//! - 3DPRIMITIVE: the topology and access type move to DW1 and the
//!   indirect, predicate and end-offset enables appear (indirect draws read
//!   the 3DPRIM_* registers, predication is the command streamer's, the
//!   end offset is refused); the counts follow in DW2-6.
//! - VERTEX_ELEMENT_STATE: as on SNB with an 11:0 Source Element Offset;
//!   VERTEX_BUFFER_STATE: as on SNB with Address Modify Enable (bit 14):
//!   taken by its name, clear, the buffer keeps the addresses it had (Mesa
//!   sets it whenever it loads addresses: i965 genX_state_upload.c
//!   `genX(emit_vertex_buffer_state)`).
//! - 3DSTATE_URB_VS sizes the VS entries in 512-bit units (minus one); the
//!   GS's are `gs7`'s, the HS and DS entries are kept (their stages are
//!   disabled).
//! - 3DSTATE_CONSTANT_*: four read lengths in 256-bit units, a buffer
//!   valid when its length is not 0; buffer 0 Dynamic State relative as on
//!   SNB (i965 genX_state_upload.c `upload_constant_state`: before Gen9
//!   buffer 0 carries the state-buffer offset, no relocation), the others
//!   graphics addresses. The reads must fit the stage's share of the push
//!   constant space (3DSTATE_PUSH_CONSTANT_ALLOC_*, KiB).
//! - HS, TE and DS run only when enabled: enabled they are refused by
//!   name. GS threads are `gs7`'s, stream output `sol`'s.
//! - 3DSTATE_SO_BUFFER is kept per SO Buffer Index (one packet each).

use alloc::vec::Vec;

use baregpu_hal::Packet;
use baregpu_hal::gen6::commands as g6;
use baregpu_hal::gen7::commands::{
    Cmd3dprimitive, Cmd3dstateBindingTablePointersGs, Cmd3dstateBindingTablePointersVs,
    Cmd3dstateConstantDs, Cmd3dstateConstantGs, Cmd3dstateConstantHs, Cmd3dstateConstantPs,
    Cmd3dstateConstantVs, Cmd3dstateDs, Cmd3dstateHs, Cmd3dstatePs, Cmd3dstatePushConstantAllocDs,
    Cmd3dstatePushConstantAllocGs, Cmd3dstatePushConstantAllocHs, Cmd3dstatePushConstantAllocPs,
    Cmd3dstatePushConstantAllocVs, Cmd3dstateSamplerStatePointersGs,
    Cmd3dstateSamplerStatePointersVs, Cmd3dstateSoBuffer, Cmd3dstateTe, Cmd3dstateUrbVs,
    Cmd3dstateVertexBuffers, Cmd3dstateVertexBuffersVertexBufferState, Cmd3dstateVertexElements,
    Cmd3dstateVs,
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

/// 3DPRIMITIVE in the SNB form the vertex fetch reads. With Indirect
/// Parameter Enable the counts of DW2-6 are replaced by the 3DPRIM_*
/// registers (`indirect`, in DW2-6 order: 004 line 733; Mesa i965 and
/// crocus load them with MI_LOAD_REGISTER_MEM for glDraw*Indirect).
/// Predicate Enable is the command streamer's (`cs::mi`: a draw it drops
/// never gets here). End Offset Enable is refused: its vertex count comes
/// from how much of VB0 lies before 3DPRIM_END_OFFSET (004 lines
/// 752-754), and no manual or driver here says from where that offset
/// counts.
pub(crate) fn primitive(dw: &[u32], indirect: &[u32; 5]) -> Result<g6::Cmd3dprimitive, DrawError> {
    let p: Cmd3dprimitive = decode(dw, "3DPRIMITIVE does not decode")?;
    if p.end_offset_enable {
        return Err(DrawError::Unmodelled("3DPRIMITIVE End Offset Enable"));
    }
    let [count, start, instances, start_instance, base] = match p.indirect_parameter_enable {
        true => *indirect,
        false => [
            p.vertex_count_per_instance,
            p.start_vertex_location,
            p.instance_count,
            p.start_instance_location,
            p.base_vertex_location as u32,
        ],
    };
    Ok(g6::Cmd3dprimitive {
        vertex_access_type: p.vertex_access_type,
        primitive_topology_type: p.primitive_topology_type,
        // The SNB GS stream-output count has no IVB counterpart.
        internal_vertex_count: false,
        vertex_count_per_instance: count,
        start_vertex_location: start,
        instance_count: instances,
        start_instance_location: start_instance,
        base_vertex_location: base as i32,
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
pub(crate) fn check_push_constant_alloc(name: &str, dw: &[u32]) -> Result<(), DrawError> {
    const BAD: &str = "3DSTATE_PUSH_CONSTANT_ALLOC_* does not decode";
    // The five commands share the body (Mesa gen7.xml).
    macro_rules! body {
        ($t:ty) => {{
            let a: $t = decode(dw, BAD)?;
            (a.constant_buffer_offset, a.constant_buffer_size)
        }};
    }
    let (offset, size) = match name {
        "3DSTATE_PUSH_CONSTANT_ALLOC_VS" => body!(Cmd3dstatePushConstantAllocVs),
        "3DSTATE_PUSH_CONSTANT_ALLOC_HS" => body!(Cmd3dstatePushConstantAllocHs),
        "3DSTATE_PUSH_CONSTANT_ALLOC_DS" => body!(Cmd3dstatePushConstantAllocDs),
        "3DSTATE_PUSH_CONSTANT_ALLOC_GS" => body!(Cmd3dstatePushConstantAllocGs),
        "3DSTATE_PUSH_CONSTANT_ALLOC_PS" => body!(Cmd3dstatePushConstantAllocPs),
        _ => return Err(DrawError::Invalid(BAD)),
    };
    if offset + size > PUSH_CONSTANT_KIB {
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
    if units < 9 && !entries.is_multiple_of(8) {
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
    let alloc: Cmd3dstatePushConstantAllocVs = kept(
        packets,
        "3DSTATE_PUSH_CONSTANT_ALLOC_VS",
        "3DSTATE_PUSH_CONSTANT_ALLOC_VS does not decode",
    )?
    .unwrap_or_default();
    fits_allocation(
        packets,
        "PCB_VS",
        alloc.constant_buffer_size,
        "3DSTATE_CONSTANT_VS reads more than 3DSTATE_PUSH_CONSTANT_ALLOC_VS reserves",
    )
}

/// The GS push constants must fit the GS's push constant allocation.
pub(crate) fn check_gs_constants(packets: &Packets) -> Result<(), DrawError> {
    let alloc: Cmd3dstatePushConstantAllocGs = kept(
        packets,
        "3DSTATE_PUSH_CONSTANT_ALLOC_GS",
        "3DSTATE_PUSH_CONSTANT_ALLOC_GS does not decode",
    )?
    .unwrap_or_default();
    fits_allocation(
        packets,
        "PCB_GS",
        alloc.constant_buffer_size,
        "3DSTATE_CONSTANT_GS reads more than 3DSTATE_PUSH_CONSTANT_ALLOC_GS reserves",
    )
}

fn fits_allocation(
    packets: &Packets,
    pcb: &str,
    kib: u32,
    what: &'static str,
) -> Result<(), DrawError> {
    let bytes = packets.get(pcb).map_or(0, |d| 4 * d.len());
    if bytes > 1024 * kib as usize {
        return Err(DrawError::Invalid(what));
    }
    Ok(())
}

/// The name each SO Buffer Index's 3DSTATE_SO_BUFFER is kept under.
pub(crate) const SO_BUFFERS: [&str; 4] = [
    "3DSTATE_SO_BUFFER[0]",
    "3DSTATE_SO_BUFFER[1]",
    "3DSTATE_SO_BUFFER[2]",
    "3DSTATE_SO_BUFFER[3]",
];

/// 3DSTATE_SO_BUFFER: one buffer's state, kept by its index (DW1 30:29).
pub(crate) fn keep_so_buffer(packets: &mut Packets, dw: &[u32]) -> Result<(), DrawError> {
    let b: Cmd3dstateSoBuffer = decode(dw, "3DSTATE_SO_BUFFER does not decode")?;
    packets.set(SO_BUFFERS[b.so_buffer_index as usize & 3], dw);
    Ok(())
}

/// The GS binding table (Surface State relative) and SAMPLER_STATE
/// (Dynamic State relative) pointers.
pub(crate) fn gs_pointers(packets: &Packets) -> Result<(u32, u32), DrawError> {
    let bt: Cmd3dstateBindingTablePointersGs = kept(
        packets,
        "3DSTATE_BINDING_TABLE_POINTERS_GS",
        "3DSTATE_BINDING_TABLE_POINTERS_GS does not decode",
    )?
    .unwrap_or_default();
    let sp: Cmd3dstateSamplerStatePointersGs = kept(
        packets,
        "3DSTATE_SAMPLER_STATE_POINTERS_GS",
        "3DSTATE_SAMPLER_STATE_POINTERS_GS does not decode",
    )?
    .unwrap_or_default();
    Ok((
        bt.pointer_to_gs_binding_table,
        sp.pointer_to_gs_sampler_state,
    ))
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

/// The tessellation stages, which the model does not run: refused when
/// enabled.
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eu::array::{EuArray, EuConfig, ProgramCache};
    use crate::eu::shared::{FlatMemory, GfxMemory};
    use crate::render3d::front::draw::{Front, Unit};
    use crate::render3d::front::thread::Stop;
    use baregpu_hal::Generation;
    use baregpu_isa::IsaGen;

    const KERNEL: u64 = 0x1000;
    const VB: u64 = 0x2000;
    const CONSTANTS: u64 = 0x3000;

    fn keep(f: &mut Front, mem: &mut FlatMemory, bases: &Bases, name: &'static str, dw: &[u32]) {
        f.keep(Generation::Gen7, name, dw, mem, bases, false)
            .unwrap();
    }

    #[test]
    fn pointer_commands_are_kept_as_they_come() {
        let mut f = Front::default();
        let mut mem = FlatMemory::new(0, 0x1000);
        let b = Bases::default();
        // Gen7 3DSTATE_CC_STATE_POINTERS is one pointer: no SNB change-bit
        // merge (its DW1 bit 0 is "must be one", not a change bit).
        keep(
            &mut f,
            &mut mem,
            &b,
            "3DSTATE_CC_STATE_POINTERS",
            &[0x780E_0000, 0x41],
        );
        keep(
            &mut f,
            &mut mem,
            &b,
            "3DSTATE_CC_STATE_POINTERS",
            &[0x780E_0000, 0x81],
        );
        assert_eq!(
            f.packets.get("3DSTATE_CC_STATE_POINTERS"),
            Some(&[0x780E_0000, 0x81][..])
        );
        keep(
            &mut f,
            &mut mem,
            &b,
            "3DSTATE_BINDING_TABLE_POINTERS_VS",
            &[0x7826_0000, 0x60],
        );
        keep(
            &mut f,
            &mut mem,
            &b,
            "3DSTATE_SAMPLER_STATE_POINTERS_VS",
            &[0x782B_0000, 0x1A0],
        );
        assert_eq!(vs_pointers(&f.packets), Ok((0x60, 0x1A0)));
    }

    fn vb(index: u32, modify: bool, start: u32, end: u32) -> [u32; 4] {
        [index << 26 | u32::from(modify) << 14 | 16, start, end, 0]
    }

    #[test]
    fn vertex_buffers_merge_by_index_and_keep_unmodified_addresses() {
        let mut p = Packets::default();
        let (a, b) = (vb(0, true, 0x1000, 0x10FF), vb(5, true, 0x2000, 0x20FF));
        let mut dw = alloc::vec![0x7808_0007];
        dw.extend_from_slice(&a);
        dw.extend_from_slice(&b);
        keep_vertex_buffers(&mut p, &dw).unwrap();
        // Buffer 5 again without Address Modify Enable: new pitch, old
        // addresses; buffer 2, never loaded, without it: addresses 0.
        let mut c = vb(5, false, 0x9000, 0x90FF);
        c[0] = c[0] & !0xFFF | 64;
        let d = vb(2, false, 0x7000, 0x70FF);
        let mut dw = alloc::vec![0x7808_0007];
        dw.extend_from_slice(&c);
        dw.extend_from_slice(&d);
        keep_vertex_buffers(&mut p, &dw).unwrap();
        let all = vertex_buffers(p.get("3DSTATE_VERTEX_BUFFERS").unwrap()).unwrap();
        let got: Vec<_> = all
            .iter()
            .map(|b| {
                (
                    b.vertex_buffer_index,
                    b.buffer_pitch,
                    b.buffer_starting_address,
                    b.end_address,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (0, 16, 0x1000, 0x10FF),
                (2, 16, 0, 0),
                (5, 64, 0x2000, 0x20FF)
            ]
        );
    }

    #[test]
    fn constants_read_in_the_gen7_body_and_fit_their_allocation() {
        let mut f = Front::default();
        let mut mem = FlatMemory::new(0, 0x4000);
        for k in 0..24u32 {
            mem.write(0x1000 + 4 * u64::from(k), &(k + 1).to_le_bytes())
                .unwrap();
            mem.write(0x3000 + 4 * u64::from(k), &(k + 100).to_le_bytes())
                .unwrap();
        }
        let b = Bases {
            dynamic: 0x800,
            ..Bases::default()
        };
        // Buffer 0: one row at Dynamic State + 0x800; buffer 1 (a graphics
        // address) has read length 0: not read; buffer 2: two rows.
        keep(
            &mut f,
            &mut mem,
            &b,
            "3DSTATE_CONSTANT_VS",
            &[0x7815_0005, 1, 2, 0x800, 0x3000, 0x3000, 0],
        );
        let pcb = f.packets.get("PCB_VS").unwrap();
        assert_eq!(pcb.len(), 24);
        assert_eq!((pcb[0], pcb[7], pcb[8], pcb[23]), (1, 8, 100, 115));
        // 96 bytes need a 1 KiB allocation.
        assert!(matches!(
            check_vs_constants(&f.packets),
            Err(DrawError::Invalid(_))
        ));
        keep(
            &mut f,
            &mut mem,
            &b,
            "3DSTATE_PUSH_CONSTANT_ALLOC_VS",
            &[0x7912_0000, 1],
        );
        assert_eq!(check_vs_constants(&f.packets), Ok(()));
        // An allocation past the 16 KiB space is refused when kept.
        let r = f.keep(
            Generation::Gen7,
            "3DSTATE_PUSH_CONSTANT_ALLOC_PS",
            &[0x7916_0000, 8 << 16 | 9],
            &mut mem,
            &b,
            false,
        );
        assert!(matches!(r, Err(DrawError::Invalid(_))));
        keep(
            &mut f,
            &mut mem,
            &b,
            "3DSTATE_PUSH_CONSTANT_ALLOC_PS",
            &[0x7916_0000, 8 << 16 | 8],
        );
        // The HS and DS have their push constants too.
        keep(
            &mut f,
            &mut mem,
            &b,
            "3DSTATE_CONSTANT_HS",
            &[0x7819_0005, 1, 0, 0x800, 0, 0, 0],
        );
        assert_eq!(f.packets.get("PCB_HS").map(<[u32]>::len), Some(8));
    }

    #[test]
    fn the_gen7_3dprimitive_has_its_topology_in_dw1() {
        let regs = [9, 8, 7, 6, (-4i32) as u32];
        let p = primitive(
            &[0x7B00_0005, 1 << 8 | 0x05, 6, 2, 3, 1, (-5i32) as u32],
            &regs,
        )
        .unwrap();
        assert_eq!(
            (
                p.vertex_access_type,
                p.primitive_topology_type,
                p.vertex_count_per_instance,
                p.start_vertex_location,
                p.instance_count,
                p.start_instance_location,
                p.base_vertex_location
            ),
            (1, 5, 6, 2, 3, 1, -5)
        );
        // The SNB place of the topology (DW0 14:10) means nothing here.
        let p = primitive(&[0x7B00_0005 | 0x04 << 10, 0x0F, 3, 0, 1, 0, 0], &regs).unwrap();
        assert_eq!((p.vertex_access_type, p.primitive_topology_type), (0, 0x0F));
        assert_eq!(
            p.vertex_count_per_instance, 3,
            "bit 12 is not the indirect enable"
        );
        // Indirect Parameter Enable (DW0 bit 10): DW2-6 come from the
        // 3DPRIM_* registers, the topology and access type still from DW1.
        let p = primitive(&[0x7B00_0405, 1 << 8 | 0x04, 3, 0, 1, 0, 0], &regs).unwrap();
        assert_eq!(
            (
                p.vertex_access_type,
                p.primitive_topology_type,
                p.vertex_count_per_instance,
                p.start_vertex_location,
                p.instance_count,
                p.start_instance_location,
                p.base_vertex_location
            ),
            (1, 4, 9, 8, 7, 6, -4)
        );
        assert!(matches!(
            primitive(&[0x7B00_0005, 1 << 9 | 0x04, 3, 0, 1, 0, 0], &regs),
            Err(DrawError::Unmodelled("3DPRIMITIVE End Offset Enable"))
        ));
    }

    #[test]
    fn urb_vs_entries_follow_the_ivb_rules() {
        let mut p = Packets::default();
        // 64 entries of 3 512-bit units: 6 rows each.
        p.set("3DSTATE_URB_VS", &[0x7830_0000, 2 << 16 | 64]);
        let u = urb_layout(&p).unwrap();
        assert_eq!((u.entries, u.rows, u.dwords()), (64, 6, 48));
        for bad in [2 << 16 | 36, 2 << 16 | 24, 2 << 16 | 520, 63 << 16 | 64] {
            p.set("3DSTATE_URB_VS", &[0x7830_0000, bad]);
            assert!(
                matches!(urb_layout(&p), Err(DrawError::Invalid(_))),
                "{bad:#x}"
            );
        }
        // 9 units and more: any count.
        p.set("3DSTATE_URB_VS", &[0x7830_0000, 8 << 16 | 33]);
        assert_eq!(urb_layout(&p).unwrap().entries, 33);
    }

    fn unit<'a>(
        array: &'a mut EuArray,
        cache: &'a mut ProgramCache,
        bases: &'a Bases,
        allowance: &'a mut u64,
    ) -> Unit<'a> {
        Unit {
            platform: IsaGen::Gen7,
            generation: Generation::Gen7,
            array,
            cache,
            bases,
            allowance,
        }
    }

    #[test]
    fn enabled_hs_te_and_ds_are_refused_by_name() {
        let cases: [(&'static str, &[u32]); 3] = [
            ("3DSTATE_HS", &[0x781B_0005, 0, 1 << 31, 0, 0, 0, 0]),
            ("3DSTATE_TE", &[0x781C_0002, 1, 0, 0]),
            ("3DSTATE_DS", &[0x781D_0004, 0, 0, 0, 0, 1]),
        ];
        for (name, dw) in cases {
            let mut f = Front::default();
            let mut mem = FlatMemory::new(0, 0x1000);
            let bases = Bases::default();
            // Disabled, the same command passes.
            let mut off = dw.to_vec();
            off[1..].iter_mut().for_each(|d| *d = 0);
            keep(&mut f, &mut mem, &bases, name, &off);
            assert_eq!(refuse_unmodelled_stages(&f.packets), Ok(()), "{name}");
            keep(&mut f, &mut mem, &bases, name, dw);
            let mut array = EuArray::new(IsaGen::Gen7, EuConfig::for_platform(IsaGen::Gen7));
            let mut cache = ProgramCache::new();
            let mut allowance = 1000;
            let r = f.draw(
                unit(&mut array, &mut cache, &bases, &mut allowance),
                &mut mem,
                &[0x7B00_0005, 0x04, 3, 0, 1, 0, 0],
            );
            assert!(
                matches!(r, Err(Stop::Draw(DrawError::Unmodelled(_)))),
                "{name}: {r:?}"
            );
        }
    }

    /// A SIMD4x2 Gen7 VS as Mesa's vec4 back end ends it: the header is
    /// g0 with M0.5 ORed with 0xff00 (elk_urb_WRITE), then the VF's
    /// header element and `position * g1.0-3 + g1.4-7` (the push
    /// constants), an interleaved URB_WRITE_HWORD from a GRF (r112, as EOT
    /// sends need).
    fn vs_kernel() -> Vec<u8> {
        let src = "mov (8|M0) r112.0<1>:ud r0.0<8;8,1>:ud {NoMask}\n\
             or (1|M0) r112.5<1>:ud r0.5<0;1,0>:ud 0xff00:ud {NoMask}\n\
             mov (8|M0) r113.0<1>:ud r2.0<8;8,1>:ud\n\
             mul (8|M0) r10.0<1>:f r3.0<8;8,1>:f r1.0<0;4,1>:f\n\
             add (8|M0) r114.0<1>:f r10.0<8;8,1>:f r1.4<0;4,1>:f\n\
             send (8|M0) null:ud r112 urb.write_hword(offset=0, interleave) mlen=3 rlen=0 hdr {EOT}\n";
        baregpu_isa::text::asm::assemble(IsaGen::Gen7, src).unwrap()
    }

    /// Three vertices through a real Gen7 VS: a pair, then one alone (its
    /// second slot disabled); the VUEs come back from the URB in vertex
    /// order, the header as the VF wrote it, the position from the shader.
    #[test]
    fn a_gen7_vs_writes_its_urb_entries_read_back_as_vues() {
        let mut mem = FlatMemory::new(0, 0x4000);
        mem.write(KERNEL, &vs_kernel()).unwrap();
        let consts = [2.0f32, 3.0, 1.0, 1.0, 10.0, 20.0, 0.5, 0.0];
        for (k, c) in consts.iter().enumerate() {
            mem.write(CONSTANTS + 4 * k as u64, &c.to_bits().to_le_bytes())
                .unwrap();
        }
        for k in 0..3u32 {
            let x = k as f32;
            let words = [k, 7, 8, 9, x.to_bits(), (-x).to_bits(), 0, 1.0f32.to_bits()];
            for (i, w) in words.iter().enumerate() {
                mem.write(VB + 32 * u64::from(k) + 4 * i as u64, &w.to_le_bytes())
                    .unwrap();
            }
        }
        let bases = Bases::default();
        let mut f = Front::default();
        // 32 entries of two 512-bit units (32 dwords).
        keep(
            &mut f,
            &mut mem,
            &bases,
            "3DSTATE_URB_VS",
            &[0x7830_0000, 1 << 16 | 32],
        );
        keep(
            &mut f,
            &mut mem,
            &bases,
            "3DSTATE_PUSH_CONSTANT_ALLOC_VS",
            &[0x7912_0000, 1],
        );
        keep(
            &mut f,
            &mut mem,
            &bases,
            "3DSTATE_CONSTANT_VS",
            &[0x7815_0005, 1, 0, CONSTANTS as u32, 0, 0, 0],
        );
        // KSP, GRF start 1 (constants, then the vertex data from r2), read length 1, two threads, statistics, enabled.
        keep(
            &mut f,
            &mut mem,
            &bases,
            "3DSTATE_VS",
            &[
                0x7810_0004,
                KERNEL as u32,
                0,
                0,
                1 << 20 | 1 << 11,
                1 << 25 | 1 << 10 | 1,
            ],
        );
        keep(
            &mut f,
            &mut mem,
            &bases,
            "3DSTATE_VERTEX_BUFFERS",
            &[0x7808_0003, 1 << 14 | 32, VB as u32, VB as u32 + 95, 0],
        );
        keep(
            &mut f,
            &mut mem,
            &bases,
            "3DSTATE_VERTEX_ELEMENTS",
            &[
                0x7809_0003,
                1 << 25 | 2 << 16,
                0x1111 << 16,
                1 << 25 | 16,
                0x1111 << 16,
            ],
        );
        let mut array = EuArray::new(IsaGen::Gen7, EuConfig::for_platform(IsaGen::Gen7));
        let mut cache = ProgramCache::new();
        let mut allowance = 100_000u64;
        // LINESTRIP_ADJ of three vertices: no object, so no raster stage.
        let prim = [0x7B00_0005, 0x0A, 3, 0, 1, 0, 0];
        let r = f.draw(
            unit(&mut array, &mut cache, &bases, &mut allowance),
            &mut mem,
            &prim,
        );
        assert_eq!(r, Ok(true));
        assert_eq!(f.statistics.vs_invocations, 3);
        assert_eq!(array.stats().dispatched, 2);
        let vues = f.last_vues();
        assert_eq!(vues.len(), 3);
        for (k, v) in vues.iter().enumerate() {
            let x = k as f32;
            assert_eq!(&v.dw[..4], &[k as u32, 7, 8, 9], "vertex {k}: the header");
            let pos: Vec<f32> = v.dw[4..8].iter().map(|d| f32::from_bits(*d)).collect();
            assert_eq!(
                pos,
                [2.0 * x + 10.0, -3.0 * x + 20.0, 0.5, 1.0],
                "vertex {k}"
            );
            assert_eq!(v.dw.len(), 32, "two 512-bit units");
        }
    }

    /// With 3DSTATE_VS disabled (as igt's rendercopy_gen7 sends it) the
    /// VF's entries are the VUEs: no thread runs, the entry is as wide as
    /// 3DSTATE_URB_VS makes it.
    #[test]
    fn a_disabled_gen7_vs_passes_the_vf_entries_through() {
        let mut mem = FlatMemory::new(0, 0x4000);
        for k in 0..5u32 {
            mem.write(
                VB + 16 * u64::from(k),
                &[k, 10 + k, 20 + k, 30 + k].map(u32::to_le_bytes).concat(),
            )
            .unwrap();
        }
        let bases = Bases::default();
        let mut f = Front::default();
        keep(
            &mut f,
            &mut mem,
            &bases,
            "3DSTATE_URB_VS",
            &[0x7830_0000, 64],
        );
        keep(
            &mut f,
            &mut mem,
            &bases,
            "3DSTATE_VS",
            &[0x7810_0004, 0, 0, 0, 0, 0],
        );
        keep(
            &mut f,
            &mut mem,
            &bases,
            "3DSTATE_VERTEX_BUFFERS",
            &[0x7808_0003, 1 << 14 | 16, VB as u32, VB as u32 + 79, 0],
        );
        // STORE_0 header, then the R32G32B32A32_UINT data.
        keep(
            &mut f,
            &mut mem,
            &bases,
            "3DSTATE_VERTEX_ELEMENTS",
            &[
                0x7809_0003,
                1 << 25 | 2 << 16,
                0x2222 << 16,
                1 << 25 | 2 << 16,
                0x1111 << 16,
            ],
        );
        let mut array = EuArray::new(IsaGen::Gen7, EuConfig::for_platform(IsaGen::Gen7));
        let mut cache = ProgramCache::new();
        let mut allowance = 1000u64;
        // TRILIST_ADJ of five: no object.
        let prim = [0x7B00_0005, 0x0B, 5, 0, 1, 0, 0];
        let r = f.draw(
            unit(&mut array, &mut cache, &bases, &mut allowance),
            &mut mem,
            &prim,
        );
        assert_eq!(r, Ok(true));
        assert_eq!(array.stats().dispatched, 0);
        assert_eq!(f.statistics.vs_invocations, 0);
        for (k, v) in f.last_vues().iter().enumerate() {
            let k = k as u32;
            assert_eq!(v.dw.len(), 16, "one 512-bit unit");
            assert_eq!(&v.dw[..8], &[0, 0, 0, 0, k, 10 + k, 20 + k, 30 + k]);
        }
        assert_eq!(f.last_vues().len(), 5);
    }
}
