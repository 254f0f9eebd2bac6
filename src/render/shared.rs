//! What the Sandy Bridge and Ivy Bridge batches build alike. Ivy Bridge
//! keeps BLEND_STATE, DEPTH_STENCIL_STATE, COLOR_CALC_STATE, SCISSOR_RECT
//! and the vertex-input packets under the same field names (the hal's gen7
//! tables inherit or restate them), but as distinct types per generation,
//! so the fillers are macros each generation module invokes once, like
//! compute's `surface_state!`.

use super::desc::Rect;
use crate::compute::ComputeError;
use crate::compute::error::check_max;
use crate::compute::state::StateArea;

/// Places push constants (32-byte aligned registers) in the state area;
/// their offset and register count, `None` without any.
pub(super) fn push_constants(
    area: &mut StateArea,
    bytes: &[u8],
    max_rows: u64,
) -> Result<Option<(u32, u32)>, ComputeError> {
    if bytes.is_empty() {
        return Ok(None);
    }
    let rows = bytes.len().div_ceil(32) as u64;
    check_max("push-constant registers", rows, max_rows)?;
    let at = area.alloc(bytes.len(), 32);
    area.put_bytes(at, bytes);
    Ok(Some((at, rows as u32)))
}

/// SCISSOR_RECT's inclusive bounds (x min, y min, x max, y max), relative
/// to the drawing rectangle's origin (003 lines 39476-39548); an empty
/// rectangle is written with min > max, which rejects every pixel.
pub(super) fn scissor_bounds(r: Rect) -> [u32; 4] {
    if r.width == 0 || r.height == 0 {
        return [1, 1, 0, 0];
    }
    [
        r.x.min(0xffff),
        r.y.min(0xffff),
        (r.x + r.width - 1).min(0xffff),
        (r.y + r.height - 1).min(0xffff),
    ]
}

/// Ivy Bridge's URB split between the VS and the GS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct UrbPartition {
    pub vs_entries: u32,
    pub vs_chunks: u32,
    pub gs_entries: u32,
    pub gs_chunks: u32,
}

/// Mesa's Gen7 URB partition over `urb_bytes` in 8 KiB chunks, the first
/// `constant_chunks` the push constants': each stage (entry rows of 64
/// bytes, minimum and maximum entries) gets the chunks its minimum needs,
/// the remaining chunks go in proportion to what each stage could still
/// use (the VS's share rounded, the GS the rest), then the entry counts
/// are clamped and rounded down to 8 when an entry is under 9 rows [ext:
/// Mesa i965 gen7_urb.c gen7_upload_urb, intel_urb_config.c].
pub(super) fn gen7_urb_partition(
    constant_chunks: u32,
    urb_bytes: u32,
    vs: (u32, u32, u32),
    gs: Option<(u32, u32, u32)>,
) -> UrbPartition {
    const CHUNK: u32 = 8 << 10;
    let granularity = |rows: u32| if rows < 9 { 8 } else { 1 };
    let chunks_for = |rows: u32, entries: u32| (entries * rows * 64).div_ceil(CHUNK);
    let (vs_rows, vs_min, vs_max) = vs;
    let mut vs_chunks = chunks_for(vs_rows, vs_min);
    let vs_wants = chunks_for(vs_rows, vs_max) - vs_chunks;
    let (mut gs_chunks, gs_wants) = match gs {
        Some((rows, min, max)) => {
            let least = chunks_for(rows, min.max(granularity(rows)));
            (least, chunks_for(rows, max) - least)
        }
        None => (0, 0),
    };
    let total = urb_bytes / CHUNK;
    let remaining = total.saturating_sub(constant_chunks + vs_chunks + gs_chunks);
    let wants = vs_wants + gs_wants;
    if remaining > 0 && wants > 0 {
        let used = remaining.min(wants);
        // round(vs_wants * used / wants) in integers.
        let vs_more = (2 * vs_wants * used + wants) / (2 * wants);
        vs_chunks += vs_more;
        if gs.is_some() {
            gs_chunks += used - vs_more;
        }
    }
    let entries = |chunks: u32, (rows, _, max): (u32, u32, u32)| {
        let n = (chunks * CHUNK / (rows * 64)).min(max);
        n / granularity(rows) * granularity(rows)
    };
    UrbPartition {
        vs_entries: entries(vs_chunks, vs),
        vs_chunks,
        gs_entries: gs.map_or(0, |g| entries(gs_chunks, g)),
        gs_chunks: if gs.is_some() { gs_chunks } else { 0 },
    }
}

/// `fn output_state(d, area) -> (blend, depth_stencil, cc)` for the
/// generation `$gen`: BLEND_STATE (entry 0), DEPTH_STENCIL_STATE and
/// COLOR_CALC_STATE, each 64-byte aligned (003 lines 45353-46460).
macro_rules! output_state {
    ($gen:ident) => {
        fn output_state(
            d: &super::desc::Draw<'_>,
            area: &mut crate::compute::state::StateArea,
        ) -> Result<(u32, u32, u32), crate::compute::ComputeError> {
            use super::desc::Compare;
            use baregpu_hal::$gen::structs as s;
            let b = d.blend;
            let blend = area.alloc(8, 64);
            let mut st = s::BlendState {
                write_disable_red: b.write_mask & 1 == 0,
                write_disable_green: b.write_mask & 2 == 0,
                write_disable_blue: b.write_mask & 4 == 0,
                write_disable_alpha: b.write_mask & 8 == 0,
                // Pre-blend clamp to the UNORM range, which an UNORM target
                // needs with blending off (003 lines 44889-44996), and
                // post-blend clamp.
                pre_blend_color_clamp_enable: true,
                post_blend_color_clamp_enable: true,
                color_clamp_range: 0,
                ..Default::default()
            };
            if let Some(color) = b.color {
                let alpha = b.alpha.unwrap_or(color);
                st.color_buffer_blend_enable = true;
                st.source_blend_factor = color.src.code();
                st.destination_blend_factor = color.dst.code();
                st.color_blend_function = color.op.code();
                st.independent_alpha_blend_enable = b.alpha.is_some();
                st.source_alpha_blend_factor = alpha.src.code();
                st.destination_alpha_blend_factor = alpha.dst.code();
                st.alpha_blend_function = alpha.op.code();
            }
            area.put(blend, &st)?;

            let z = d.depth_stencil;
            let depth_stencil = area.alloc(12, 64);
            let mut ds = s::DepthStencilState {
                depth_test_enable: z.depth_test.is_some(),
                depth_test_function: z.depth_test.unwrap_or(Compare::Always).code(),
                depth_buffer_write_enable: z.depth_write,
                ..Default::default()
            };
            let (mut front_ref, mut back_ref) = (0, 0);
            if let Some((front, back)) = z.stencil {
                ds.stencil_test_enable = true;
                ds.stencil_buffer_write_enable = z.writes_stencil();
                ds.stencil_test_function = front.compare.code();
                ds.stencil_fail_op = front.fail.code();
                ds.stencil_pass_depth_fail_op = front.depth_fail.code();
                ds.stencil_pass_depth_pass_op = front.pass.code();
                ds.stencil_test_mask = front.read_mask as u32;
                ds.stencil_write_mask = front.write_mask as u32;
                front_ref = front.reference as u32;
                back_ref = front_ref;
                if let Some(back) = back {
                    ds.double_sided_stencil_enable = true;
                    ds.backface_stencil_test_function = back.compare.code();
                    ds.backface_stencil_fail_op = back.fail.code();
                    ds.backface_stencil_pass_depth_fail_op = back.depth_fail.code();
                    ds.backface_stencil_pass_depth_pass_op = back.pass.code();
                    ds.backface_stencil_test_mask = back.read_mask as u32;
                    ds.backface_stencil_write_mask = back.write_mask as u32;
                    back_ref = back.reference as u32;
                }
            }
            area.put(depth_stencil, &ds)?;

            let cc = area.alloc(24, 64);
            area.put(
                cc,
                &s::ColorCalcState {
                    stencil_reference_value: front_ref,
                    backface_stencil_reference_value: back_ref,
                    blend_constant_color_red: b.constant[0],
                    blend_constant_color_green: b.constant[1],
                    blend_constant_color_blue: b.constant[2],
                    blend_constant_color_alpha: b.constant[3],
                    ..Default::default()
                },
            )?;
            Ok((blend, depth_stencil, cc))
        }
    };
}

/// `fn vertex_input(d, plan, cmds)` for the generation `$gen`:
/// 3DSTATE_VERTEX_BUFFERS (each entry with `$vb_extra` fields),
/// 3DSTATE_VERTEX_ELEMENTS (entries of type `$element` in field `$list`)
/// and, for indexed draws, 3DSTATE_INDEX_BUFFER (003 lines 29823-30784).
/// End addresses are the last valid byte; past them vertex fetch reads
/// zeros.
macro_rules! vertex_input {
    ($gen:ident, $element:ident, $list:ident, { $($vb_extra:tt)* }) => {
        fn vertex_input(
            d: &super::desc::Draw<'_>,
            plan: &super::plan::Plan,
            cmds: &mut crate::compute::state::Cmds,
        ) -> Result<(), crate::compute::ComputeError> {
            use baregpu_hal::$gen::commands as c;
            use super::desc::{IndexFormat, Step};
            let mut buffers = alloc::vec::Vec::with_capacity(d.vertex_buffers.len());
            for (i, vb) in d.vertex_buffers.iter().enumerate() {
                let start = vb.buffer.gfx().0;
                let (access, step) = match vb.step {
                    Step::PerVertex => (0, 0),
                    Step::PerInstance(n) => (1, n),
                };
                buffers.push(c::Cmd3dstateVertexBuffersVertexBufferState {
                    vertex_buffer_index: i as u32,
                    buffer_access_type: access,
                    buffer_pitch: vb.pitch,
                    buffer_starting_address: start,
                    end_address: start + vb.buffer.size() as u64 - 1,
                    instance_data_step_rate: step,
                    $($vb_extra)*
                    ..Default::default()
                });
            }
            if !buffers.is_empty() {
                cmds.push(&c::Cmd3dstateVertexBuffers {
                    vertex_buffer_state: buffers,
                })?;
            }
            let elements = plan
                .elements
                .iter()
                .map(|e| c::$element {
                    vertex_buffer_index: e.buffer,
                    valid: true,
                    source_element_format: e.format,
                    source_element_offset: e.offset,
                    component_0_control: e.components[0],
                    component_1_control: e.components[1],
                    component_2_control: e.components[2],
                    component_3_control: e.components[3],
                    ..Default::default()
                })
                .collect();
            cmds.push(&c::Cmd3dstateVertexElements { $list: elements })?;
            if let Some(ib) = d.index {
                type I = c::Cmd3dstateIndexBuffer;
                let start = ib.buffer.gfx().0;
                cmds.push(&I {
                    cut_index_enable: ib.cut,
                    index_format: match ib.format {
                        IndexFormat::U8 => I::INDEX_FORMAT_INDEX_BYTE,
                        IndexFormat::U16 => I::INDEX_FORMAT_INDEX_WORD,
                        IndexFormat::U32 => I::INDEX_FORMAT_INDEX_DWORD,
                    },
                    buffer_starting_address: start,
                    buffer_ending_address: start + ib.buffer.size() as u64 - 1,
                    ..Default::default()
                })?;
            }
            Ok(())
        }
    };
}

pub(super) use {output_state, vertex_input};
