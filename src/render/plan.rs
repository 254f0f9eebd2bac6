//! A draw checked against what the hardware fields and rules allow, and
//! turned into the generation-neutral parts the packet builders need:
//! surfaces, samplers, the vertex elements as vertex fetch sees them, the
//! vertex URB entry's size, the instruction heap the kernels share.

use alloc::vec::Vec;

use baregpu_hal::Generation;

use super::desc::{Component, Draw, GsDispatch, StreamDecl, Topology, VertexElement, VertexFormat};
use crate::compute::error::check_max;
use crate::compute::sampler::{SamplerDesc, plan_samplers};
use crate::compute::surface::{MAX_SURFACE_SIDE, SurfaceDesc, SurfaceKind};
use crate::compute::{ComputeError, Kernel, Resource};

/// Vertex buffers 3DSTATE_VERTEX_BUFFERS can hold (indices 0-32, 003 lines
/// 30062-30413).
pub const MAX_VERTEX_BUFFERS: usize = 33;
/// Vertex elements (003 lines 30414-30784), the header one included.
pub const MAX_VERTEX_ELEMENTS: usize = 34;
/// Largest vertex pitch and element offset (VERTEX_BUFFER_STATE pitch
/// 0-2048, VERTEX_ELEMENT_STATE offset 10:0).
pub const MAX_PITCH: u32 = 2048;
pub const MAX_ELEMENT_OFFSET: u32 = 2047;
/// SF output attributes without the 16-31 swizzle trick (003 3DSTATE_SF
/// DW1 27:22, "0-32").
pub const MAX_ATTRIBUTES: u32 = 32;
/// VUE size: 3DSTATE_URB VS entry size 0-4, in 1024-bit (8-slot) units
/// (003 lines 27230-27350).
pub const MAX_VUE_SLOTS: u32 = 5 * 8;

/// One VERTEX_ELEMENT_STATE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Element {
    pub buffer: u32,
    pub format: u32,
    pub offset: u32,
    pub components: [u32; 4],
}

/// A checked draw.
#[derive(Debug)]
pub(crate) struct Plan {
    /// Binding table: 0 the render target, then the textures.
    pub surfaces: Vec<(u32, SurfaceDesc)>,
    pub bt_entries: u32,
    /// Sandy Bridge stream output: the GS's binding table, one buffer
    /// surface per SO decl.
    pub gs_surfaces: Vec<(u32, SurfaceDesc)>,
    /// Sandy Bridge stream output: streamed vertex buffer index 0's start
    /// and Maximum Index.
    pub svbi: (u32, u32),
    pub samplers: Vec<(u32, SamplerDesc)>,
    pub elements: Vec<Element>,
    /// 128-bit slots of the vertex URB entry (VF's output without a vertex
    /// shader, the shader's outputs with one).
    pub vue_slots: u32,
    /// Instruction Base Address and its upper bound: the heap every kernel
    /// of the draw is in.
    pub heap: (u64, u64),
    /// The target's size in pixels (the surface's, or its samples' pixel
    /// size when multisampled).
    pub target_size: (u32, u32),
}

pub(crate) fn check_side(width: u32, height: u32) -> Result<(), ComputeError> {
    check_max("surface width", width as u64, MAX_SURFACE_SIDE as u64)?;
    check_max("surface height", height as u64, MAX_SURFACE_SIDE as u64)
}

/// Checks `d` and plans it for `generation`.
pub(crate) fn plan(generation: Generation, d: &Draw<'_>) -> Result<Plan, ComputeError> {
    let target = d.target;
    if target.levels() != 1 {
        return Err(ComputeError::Invalid("a render target has one mip level"));
    }
    if let Some(z) = d.depth {
        // The render target and depth buffer share one size unless the
        // target is a plain 2D surface (003 lines 75903-75906), which it is;
        // the drawing rectangle covers both, so they must agree.
        if (z.width, z.height) != (target.width(), target.height()) {
            return Err(ComputeError::Invalid(
                "the depth buffer and the render target differ in size",
            ));
        }
        if d.depth_stencil.stencil.is_some() && !z.format.has_stencil() {
            return Err(ComputeError::Invalid(
                "stencil test without a D24_UNORM_S8_UINT depth buffer",
            ));
        }
    } else if d.depth_stencil.depth_test.is_some()
        || d.depth_stencil.depth_write
        || d.depth_stencil.stencil.is_some()
    {
        // UNDEFINED on hardware without a depth buffer (notes pitfall 19).
        return Err(ComputeError::Invalid(
            "depth or stencil test without a depth buffer",
        ));
    }

    // Surfaces: the target at 0, the textures after it.
    let mut surfaces: Vec<(u32, SurfaceDesc)> = Vec::with_capacity(1 + d.textures.len());
    surfaces.push((0, SurfaceDesc::of(&Resource::Surface(target), generation)?));
    for (bti, r) in d.textures {
        if *bti == 0 || *bti > crate::compute::MAX_BINDING_INDEX {
            return Err(ComputeError::BadBinding { bti: *bti });
        }
        if surfaces.iter().any(|(b, _)| b == bti) {
            return Err(ComputeError::BadBinding { bti: *bti });
        }
        surfaces.push((*bti, SurfaceDesc::of(r, generation)?));
    }
    surfaces.sort_by_key(|(b, _)| *b);
    if let SurfaceDesc {
        kind: SurfaceKind::Buffer { .. },
        ..
    } = surfaces[0].1
    {
        return Err(ComputeError::Invalid("the render target is a buffer"));
    }
    let bt_entries = surfaces.last().map_or(1, |(b, _)| b + 1);
    // A multisampled target's SURFACE_STATE is of its pixels; its samples
    // are laid out by `Samples::target_size`.
    let mut target_size = (target.width(), target.height());
    if let Some(ms) = d.raster.multisample {
        target_size = ms
            .samples
            .logical_size(generation, target.width(), target.height())?;
        if ms.mask == 0 || ms.mask >> ms.samples.count() != 0 {
            return Err(ComputeError::Invalid(
                "the sample mask names no sample or one the target lacks",
            ));
        }
        if d.depth.is_some() {
            return Err(ComputeError::Unsupported {
                generation,
                what: "a depth buffer with a multisampled target (no multisampled depth buffers yet)",
            });
        }
        if let SurfaceKind::Image2d { width, height, .. } = &mut surfaces[0].1.kind {
            (*width, *height) = target_size;
        }
    }
    let samplers = plan_samplers(generation, d.samplers, &[])?;

    // Vertex input.
    check_max(
        "vertex buffers",
        d.vertex_buffers.len() as u64,
        MAX_VERTEX_BUFFERS as u64,
    )?;
    for vb in d.vertex_buffers {
        check_max("vertex pitch", vb.pitch as u64, MAX_PITCH as u64)?;
    }
    if d.elements.is_empty() {
        return Err(ComputeError::Invalid(
            "a draw needs at least one vertex element",
        ));
    }
    let mut elements = Vec::with_capacity(d.elements.len() + 1);
    if d.vs.is_none() {
        // Without a vertex shader vertex fetch writes the whole vertex URB
        // entry, header first: four zero dwords (003 lines 27405-27430).
        elements.push(Element {
            buffer: 0,
            format: VertexFormat::R32G32B32A32Float.code(),
            offset: 0,
            components: [Component::Zero.code(); 4],
        });
    }
    for e in d.elements {
        elements.push(element(d, e)?);
    }
    check_max(
        "vertex elements",
        elements.len() as u64,
        MAX_VERTEX_ELEMENTS as u64,
    )?;
    check_max("attributes", d.attributes as u64, MAX_ATTRIBUTES as u64)?;
    let vue_slots = match &d.vs {
        None => elements.len() as u32,
        Some(vs) => {
            if vs.inputs as usize != elements.len() {
                return Err(ComputeError::Invalid(
                    "the vertex shader's inputs differ from the vertex elements",
                ));
            }
            if vs.constants.len() % 32 != 0 {
                return Err(ComputeError::Invalid(
                    "push constants are whole 32-byte registers",
                ));
            }
            vs.dispatch_start()?;
            vs.outputs
        }
    };
    check_max(
        "vertex URB entry slots",
        vue_slots as u64,
        MAX_VUE_SLOTS as u64,
    )?;
    let out_slots = match &d.gs {
        None => vue_slots,
        Some(_) => check_gs(generation, d, vue_slots)?,
    };
    // Header, position, then the attributes setup reads.
    if out_slots < 2 + d.attributes {
        return Err(ComputeError::Invalid(
            "the vertex has fewer slots than header, position and attributes",
        ));
    }
    if !d.ps.constants.len().is_multiple_of(32) {
        return Err(ComputeError::Invalid(
            "push constants are whole 32-byte registers",
        ));
    }
    if d.vertex_count == 0 || d.instance_count == 0 {
        return Err(ComputeError::Invalid(
            "a draw of no vertices or no instances",
        ));
    }
    // Written so that a NaN anywhere fails (a comparison with NaN is false).
    let v = d.viewport;
    let sized = v.width > 0.0 && v.height > 0.0 && v.width.is_finite() && v.height.is_finite();
    let placed = [v.x, v.y, v.min_depth, v.max_depth]
        .iter()
        .all(|c| c.is_finite());
    if !sized || !placed {
        return Err(ComputeError::Invalid("viewport not finite or empty"));
    }
    if d.ps.simd8.is_none() && d.ps.simd16.is_none() {
        return Err(ComputeError::Invalid(
            "a pixel shader needs a SIMD8 or SIMD16 kernel",
        ));
    }
    let heap = shared_heap(d)?;
    let (gs_surfaces, svbi) = check_stream_output(generation, d, out_slots)?;
    Ok(Plan {
        surfaces,
        bt_entries,
        gs_surfaces,
        svbi,
        samplers,
        elements,
        vue_slots,
        heap,
        target_size,
    })
}

fn element(d: &Draw<'_>, e: &VertexElement) -> Result<Element, ComputeError> {
    let vb = d
        .vertex_buffers
        .get(e.buffer as usize)
        .ok_or(ComputeError::Invalid(
            "vertex element of a buffer the draw lacks",
        ))?;
    check_max("element offset", e.offset as u64, MAX_ELEMENT_OFFSET as u64)?;
    if e.offset + e.format.bytes() > vb.pitch.max(e.format.bytes()) && vb.pitch != 0 {
        return Err(ComputeError::Invalid(
            "vertex element reaches past its vertex pitch",
        ));
    }
    Ok(Element {
        buffer: e.buffer,
        format: e.format.code(),
        offset: e.offset,
        components: e.components.map(Component::code),
    })
}

/// The heap of the draw's kernels: kernel start pointers are relative to
/// one Instruction Base Address (003 notes pitfall 12).
fn shared_heap(d: &Draw<'_>) -> Result<(u64, u64), ComputeError> {
    let mut kernels: Vec<&Kernel<'_>> = Vec::new();
    if let Some(vs) = &d.vs {
        kernels.push(vs.kernel);
    }
    if let Some(gs) = &d.gs {
        kernels.push(gs.kernel);
    }
    kernels.extend(d.ps.simd8.iter().map(|k| k.kernel));
    kernels.extend(d.ps.simd16.iter().map(|k| k.kernel));
    let first = kernels[0];
    let heap = (first.heap_base.0, first.heap_end.0);
    if kernels
        .iter()
        .any(|k| (k.heap_base.0, k.heap_end.0) != heap)
    {
        return Err(ComputeError::Invalid(
            "the draw's kernels are in different instruction heaps",
        ));
    }
    Ok(heap)
}

/// Most GS output slots: Sandy Bridge's GS URB entry, 5 units of 8 slots
/// (3DSTATE_URB GS URB Entry Allocation Size 0-4, 003 lines 27318-27345);
/// Ivy Bridge's Output Vertex Size, whose "effective maximum" is 62
/// 16-byte units (3DSTATE_GS DW4 28:23 holds the count less one) [ext:
/// Mesa elk_vec4_gs_visitor.cpp elk_compile_gs, quoting the IVB PRM].
const GEN6_GS_MAX_SLOTS: u32 = 5 * 8;
const GEN7_GS_MAX_SLOTS: u32 = 62;

/// The geometry shader's own rules; its output vertex's slots.
fn check_gs(generation: Generation, d: &Draw<'_>, vue_slots: u32) -> Result<u32, ComputeError> {
    let Some(gs) = &d.gs else {
        return Ok(vue_slots);
    };
    if !gs.constants.len().is_multiple_of(32) {
        return Err(ComputeError::Invalid(
            "push constants are whole 32-byte registers",
        ));
    }
    // Read Length 0 is UNDEFINED; it reads whole rows of the VS's entry
    // (003 lines 34012-34030; 6 bits).
    if gs.input_rows == 0 || gs.input_rows > vue_slots.div_ceil(2) {
        return Err(ComputeError::Invalid(
            "the geometry shader reads no rows or more than the vertex has",
        ));
    }
    if gs.output_slots < 2 || gs.max_vertices == 0 {
        return Err(ComputeError::Invalid(
            "a geometry shader's vertex has a header and a position, and it emits one or more",
        ));
    }
    // What setup takes after the GS (Ivy Bridge's Output Topology; Sandy
    // Bridge's kernel names the type per vertex, checked by the GS unit).
    if !matches!(
        gs.output_topology,
        Topology::PointList
            | Topology::LineList
            | Topology::LineStrip
            | Topology::TriangleList
            | Topology::TriangleStrip
    ) {
        return Err(ComputeError::Invalid(
            "a geometry shader emits points, lines or triangles (lists or strips)",
        ));
    }
    let rendering = d.stream_output.is_none_or(|so| so.rendering);
    match generation {
        Generation::Gen6 => {
            check_max(
                "geometry shader output slots",
                gs.output_slots as u64,
                GEN6_GS_MAX_SLOTS as u64,
            )?;
            gs.dispatch_start(if d.stream_output.is_some() { 2 } else { 1 })?;
        }
        _ => {
            check_max(
                "geometry shader output slots",
                gs.output_slots as u64,
                GEN7_GS_MAX_SLOTS as u64,
            )?;
            // "If rendering is enabled (as per SOL state) the vertex size
            // must be programmed as a multiple of 32B units" [ext: Mesa
            // elk_compile_gs quoting the IVB PRM vol 2 part 1 7.2.1.1].
            if rendering && !gs.output_slots.is_multiple_of(2) {
                return Err(ComputeError::Invalid(
                    "with rendering on, the geometry shader's vertex is whole 32-byte pairs of slots",
                ));
            }
            // Instance Control holds the count less one (5 bits); "If
            // InstanceCount>1, DUAL_OBJECT mode is invalid" [ext: Mesa
            // elk_vec4_gs_visitor.cpp, quoting the IVB PRM].
            if gs.instances == 0 || gs.instances > 32 {
                return Err(ComputeError::OutOfRange {
                    what: "geometry shader instances",
                    value: gs.instances as u64,
                    max: 32,
                });
            }
            if gs.dispatch == GsDispatch::DualObject && gs.instances > 1 {
                return Err(ComputeError::Invalid(
                    "DUAL_OBJECT geometry shader dispatch with more than one instance",
                ));
            }
            check_max(
                "geometry shader control data header",
                gs.control_data_header as u64,
                15,
            )?;
            gs.dispatch_start(if gs.include_primitive_id { 2 } else { 1 })?;
        }
    }
    Ok(gs.output_slots)
}

/// Stream-output buffers: four on Ivy Bridge (3DSTATE_SO_BUFFER Index
/// 30:29), SO_DECL entries per stream (Num Entries, 8 bits; Mesa fills at
/// most 128) [ext: Mesa genxml gen7.xml]; the pitch field's 12 bits.
pub const MAX_SO_BUFFERS: usize = 4;
const MAX_SO_DECLS: usize = 128;
const MAX_SO_PITCH: u32 = 4095;

/// Dwords a decl takes in its buffer's vertex (its mask's width).
pub(crate) fn decl_dwords(decl: &StreamDecl) -> u32 {
    decl.mask.count_ones()
}

/// Checks the draw's stream output against `out_slots`, the vertex it
/// reads; on Sandy Bridge also the GS binding table of the decls and the
/// SVBI 0 start and maximum.
#[allow(clippy::type_complexity)]
fn check_stream_output(
    generation: Generation,
    d: &Draw<'_>,
    out_slots: u32,
) -> Result<(Vec<(u32, SurfaceDesc)>, (u32, u32)), ComputeError> {
    let Some(so) = &d.stream_output else {
        return Ok((Vec::new(), (0, 0)));
    };
    if so.buffers.is_empty() || so.decls.is_empty() {
        return Err(ComputeError::Invalid(
            "stream output needs a buffer and a decl",
        ));
    }
    check_max(
        "stream-output buffers",
        so.buffers.len() as u64,
        MAX_SO_BUFFERS as u64,
    )?;
    check_max(
        "stream-output decls",
        so.decls.len() as u64,
        MAX_SO_DECLS as u64,
    )?;
    if let Some((b, at)) = so.count
        && (!at.is_multiple_of(8) || at as usize + 16 > b.size())
    {
        return Err(ComputeError::Invalid(
            "the primitive count needs two aligned quadwords inside its buffer",
        ));
    }
    for b in so.buffers {
        check_max("stream-output pitch", b.pitch as u64, MAX_SO_PITCH as u64)?;
        if b.pitch == 0 || !b.pitch.is_multiple_of(4) || !b.offset.is_multiple_of(4) {
            return Err(ComputeError::Invalid(
                "stream-output pitch and offset are non-zero whole dwords",
            ));
        }
        if b.offset as usize > b.buffer.size() {
            return Err(ComputeError::Invalid(
                "stream-output offset past the buffer's end",
            ));
        }
    }
    let mut used = [0u32; MAX_SO_BUFFERS];
    for decl in so.decls {
        let b = so
            .buffers
            .get(decl.buffer as usize)
            .ok_or(ComputeError::Invalid(
                "a stream-output decl of a buffer the draw lacks",
            ))?;
        // A contiguous run of components (Mesa emits x, xy, xyz, ... from
        // a start component).
        let m = decl.mask as u32;
        if m == 0 || m > 0xf || (m >> m.trailing_zeros()) & ((m >> m.trailing_zeros()) + 1) != 0 {
            return Err(ComputeError::Invalid(
                "a stream-output decl's mask is a contiguous run of x, y, z, w",
            ));
        }
        if !decl.hole && decl.slot >= out_slots {
            return Err(ComputeError::Invalid(
                "a stream-output decl reads past the vertex",
            ));
        }
        used[decl.buffer as usize] += decl_dwords(decl);
        if used[decl.buffer as usize] * 4 > b.pitch {
            return Err(ComputeError::Invalid(
                "stream-output decls exceed their buffer's pitch",
            ));
        }
    }
    if generation != Generation::Gen6 {
        return Ok((Vec::new(), (0, 0)));
    }
    // Sandy Bridge: the GS kernel writes through SVB write messages.
    if d.gs.is_none() {
        return Err(ComputeError::Invalid(
            "Sandy Bridge stream output needs a geometry shader that writes the vertices (SVB writes)",
        ));
    }
    // One index for every buffer: the first vertex written and the
    // vertices every buffer holds [ext: Mesa i965 gen6_sol.c
    // brw_gs_svb_index: Maximum Index the smallest capacity].
    let first = so.buffers[0].offset / so.buffers[0].pitch;
    let mut max = u32::MAX;
    for b in so.buffers {
        if b.offset != first * b.pitch {
            return Err(ComputeError::Invalid(
                "Sandy Bridge stream-output buffers start at one vertex index (offset = index * pitch)",
            ));
        }
        max = max.min((b.buffer.size() / b.pitch as usize).min(u32::MAX as usize) as u32);
    }
    let mut surfaces = Vec::new();
    let mut at = [0u32; MAX_SO_BUFFERS];
    for decl in so.decls {
        let k = decl.buffer as usize;
        let b = so.buffers[k];
        let dwords = decl_dwords(decl);
        if !decl.hole {
            // R32..R32G32B32A32_FLOAT by component count (003 lines
            // 76425-76549), as Mesa binds each varying [ext: Mesa i965
            // gen6_sol.c brw_update_sol_surface].
            let format = match dwords {
                1 => VertexFormat::R32Float,
                2 => VertexFormat::R32G32Float,
                3 => VertexFormat::R32G32B32Float,
                _ => VertexFormat::R32G32B32A32Float,
            }
            .code();
            let entries = max;
            check_max(
                "stream-output vertices",
                entries as u64,
                crate::compute::surface::MAX_BUFFER_ENTRIES,
            )?;
            surfaces.push((
                surfaces.len() as u32,
                SurfaceDesc {
                    base: b.buffer.gfx().0 + at[k] as u64 * 4,
                    format,
                    kind: SurfaceKind::Buffer {
                        entries,
                        stride: b.pitch,
                    },
                },
            ));
        }
        at[k] += dwords;
    }
    Ok((surfaces, (first, max)))
}
