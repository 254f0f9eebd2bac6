//! Sandy Bridge GS threads end to end: the harness of `render3d_gen6.rs`
//! (typed 3D packets on the render ring, a real VS and PS) with a GS
//! stage whose kernels are hand-written Gen6 EU assembly in the shape
//! Mesa's Gen6 GS emits [ext: mesa gfx6_gs_visitor.cpp emit_thread_end,
//! brw_vec4_generator.cpp generate_gs_ff_sync]: FF_SYNC for the first
//! handle, one URB_WRITE per vertex with Allocate/Used/Complete and
//! PrimType/PrimStart/PrimEnd in M0.2, an unused complete write with EOT.
//! Pictures are compared with the same draw without a GS or with the host
//! coverage reference; stream output with the buffer's contents.

use std::cell::RefCell;
use std::rc::Rc;

use baregpu_hal::Packet;
use baregpu_hal::gen6::commands::*;
use baregpu_hal::gen6::structs::{BlendState, CcViewport, ClipViewport, SfViewport, SurfaceState};
use baregpu_hal::{BusError, Generation, MemoryBus, Mmio};
use baregpu_isa::{IsaGen, message};
use baregpu_soft::SoftGpu;

/// 16 MiB of memory at physical address 0, shared with the test.
#[derive(Clone)]
struct Ram(Rc<RefCell<Vec<u8>>>);

impl Ram {
    fn new() -> Ram {
        Ram(Rc::new(RefCell::new(vec![0u8; 16 << 20])))
    }
    fn put(&self, at: u64, bytes: &[u8]) {
        self.0.borrow_mut()[at as usize..at as usize + bytes.len()].copy_from_slice(bytes);
    }
    fn put_dw(&self, at: u64, dw: &[u32]) {
        let b: Vec<u8> = dw.iter().flat_map(|d| d.to_le_bytes()).collect();
        self.put(at, &b);
    }
    fn dw(&self, at: u64) -> u32 {
        let r = self.0.borrow();
        u32::from_le_bytes(r[at as usize..at as usize + 4].try_into().unwrap())
    }
    fn bytes(&self, at: u64, n: usize) -> Vec<u8> {
        self.0.borrow()[at as usize..at as usize + n].to_vec()
    }
}

impl MemoryBus for Ram {
    fn read(&self, phys: u64, buf: &mut [u8]) -> Result<(), BusError> {
        let ram = self.0.borrow();
        let s = ram
            .get(phys as usize..phys as usize + buf.len())
            .ok_or(BusError { phys })?;
        buf.copy_from_slice(s);
        Ok(())
    }
    fn write(&self, phys: u64, data: &[u8]) -> Result<(), BusError> {
        let mut ram = self.0.borrow_mut();
        let d = ram
            .get_mut(phys as usize..phys as usize + data.len())
            .ok_or(BusError { phys })?;
        d.copy_from_slice(data);
        Ok(())
    }
}

const RING: u64 = 0x10_0000;
const BATCH: u64 = 0x20_0000;
/// Instruction base: the VS at 0, the PS at 0x1000.
const KERNELS: u64 = 0x30_0000;
const PS_KSP: u32 = 0x1000;
/// Dynamic state base and the structures in it.
const DYNAMIC: u64 = 0x40_0000;
const CLIP_VP: u32 = 0x0;
const SF_VP: u32 = 0x40;
const CC_VP: u32 = 0x80;
const BLEND: u32 = 0xC0;
const DEPTH_STENCIL: u32 = 0x100;
const COLOR_CALC: u32 = 0x140;
const CONSTANTS: u32 = 0x200;
/// The GS's push constants (Dynamic State relative).
const GS_CONSTANTS: u32 = 0x300;
/// The GS kernel (Instruction Base relative).
const GS_KSP: u32 = 0x2000;
/// The stream-output buffer and its size in 16-byte elements.
const SO: u64 = 0x90_0000;
const SO_ENTRIES: u32 = 64;
/// Surface state base: binding table at 0, SURFACE_STATE at 0x40.
const SURFACES: u64 = 0x50_0000;
const VB: u64 = 0x60_0000;
const IB: u64 = 0x68_0000;
const RT: u64 = 0x70_0000;
const FENCE: u64 = 0x80_0000;
const DEPTH_COUNT: u64 = 0x80_0010;

const W: u32 = 16;
const H: u32 = 16;
const PITCH: u32 = W * 4;

/// The model with the first 16 MiB identity-mapped in the GGTT, and the
/// render engine's index.
fn gpu(ram: &Ram) -> (SoftGpu<Ram>, usize) {
    let gpu = SoftGpu::new(Generation::Gen6, ram.clone()).unwrap();
    let layout = baregpu_soft::layout::Layout::of(Generation::Gen6).unwrap();
    for page in 0..4096u32 {
        gpu.write32(layout.gtt_offset + page * 4, (page << 12) | 1);
    }
    let render = layout
        .device
        .engines
        .iter()
        .position(|e| e.name == "render")
        .unwrap();
    (gpu, render)
}

/// Runs `batch` from the render ring until it ends (or `rounds` runs).
fn submit(gpu: &SoftGpu<Ram>, ram: &Ram, batch: &[u32], rounds: usize) {
    ram.put_dw(BATCH, batch);
    // MI_BATCH_BUFFER_START (GGTT), MI_NOOP x2.
    ram.put_dw(RING, &[0x1880_0000, BATCH as u32, 0, 0]);
    let layout = baregpu_soft::layout::Layout::of(Generation::Gen6).unwrap();
    let e = layout
        .device
        .engines
        .iter()
        .find(|e| e.name == "render")
        .unwrap();
    gpu.write32(e.base + e.ring.start, RING as u32);
    gpu.write32(e.base + e.ring.ctl, 1);
    gpu.write32(e.base + e.ring.tail, 16);
    for _ in 0..rounds {
        gpu.run(10_000);
    }
}

fn push<P: Packet>(b: &mut Vec<u32>, p: &P) {
    let at = b.len();
    b.resize(at + p.dwords(), 0);
    p.pack(&mut b[at..]).unwrap();
}

fn desc(text: &str) -> String {
    let (_, d) = message::parse_symbolic(IsaGen::Gen6, text).unwrap();
    let v =
        u32::from(d.mlen) << 25 | u32::from(d.rlen) << 20 | u32::from(d.header) << 19 | d.function;
    format!("{v:#x}")
}

fn fimm(x: f32) -> String {
    format!("{:#x}:f", x.to_bits())
}

/// The vertex shader: SIMD4x2, its push constants in r1 (a scale in
/// dwords 0-3 and an offset in 4-7), the two vertices' elements from r2
/// (element 0: the VUE header, element 1: the position). It writes the
/// header and `position * scale + offset` to its URB entries,
/// interleaved, and ends with that write.
fn vs_kernel() -> Vec<u8> {
    let src = format!(
        "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}\n\
         mov (8|M0) m2.0<1>:ud r2.0<8;8,1>:ud\n\
         mul (8|M0) r10.0<1>:f r3.0<8;8,1>:f r1.0<0;4,1>:f\n\
         add (8|M0) m3.0<1>:f r10.0<8;8,1>:f r1.4<0;4,1>:f\n\
         send (8|M0) null:ud m1 0x6 {} {{EOT}}\n",
        desc("urb.write(offset=0, swizzle=interleave, used, complete) mlen=3 rlen=0 hdr")
    );
    baregpu_isa::text::asm::assemble(IsaGen::Gen6, &src).unwrap_or_else(|e| panic!("{e:?}\n{src}"))
}

/// The pixel shader: SIMD16, writes one colour to render target 0.
fn ps_kernel(rgba: [f32; 4]) -> Vec<u8> {
    ps_kernel_after(rgba, 0)
}

/// [`ps_kernel`] after `spin` filler instructions.
fn ps_kernel_after(rgba: [f32; 4], spin: usize) -> Vec<u8> {
    let filler = "mov (8|M0) r20.0<1>:ud r20.0<8;8,1>:ud\n".repeat(spin);
    let src = filler
        + &format!(
            "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}\n\
         mov (8|M0) m2.0<1>:ud r1.0<8;8,1>:ud {{NoMask}}\n\
         mov (16|M0) m3.0<1>:f {}\n\
         mov (16|M0) m5.0<1>:f {}\n\
         mov (16|M0) m7.0<1>:f {}\n\
         mov (16|M0) m9.0<1>:f {}\n\
         send (16|M0) null:uw m1 0x5 {} {{EOT}}\n",
            fimm(rgba[0]),
            fimm(rgba[1]),
            fimm(rgba[2]),
            fimm(rgba[3]),
            desc("rc.rt_write(bti=0, mode=simd16, last) mlen=10 rlen=0 hdr")
        );
    baregpu_isa::text::asm::assemble(IsaGen::Gen6, &src).unwrap_or_else(|e| panic!("{e:?}\n{src}"))
}

/// The draw's description.
struct Scene {
    /// Vertices in pixels (x, y), before the VS maps them to NDC.
    vertices: Vec<[f32; 2]>,
    topology: u32,
    vs: bool,
    gs: Option<GsSetup>,
    colour: [f32; 4],
    /// 16-bit indices with the cut index enabled, and the base vertex;
    /// `None`: sequential.
    indices: Option<(Vec<u16>, i32)>,
}

/// Memory and the batch for `scene`.
fn setup(ram: &Ram, scene: &Scene) -> Vec<u32> {
    ram.put(KERNELS, &vs_kernel());
    ram.put(KERNELS + u64::from(PS_KSP), &ps_kernel(scene.colour));
    // The VS maps pixels to NDC: x * 2/W - 1, y * -2/H + 1 (z 0, w 1).
    let consts = [
        2.0 / W as f32,
        -2.0 / H as f32,
        0.0,
        0.0,
        -1.0,
        1.0,
        0.0,
        1.0,
    ];
    ram.put_dw(DYNAMIC + u64::from(CONSTANTS), &consts.map(f32::to_bits));
    // Vertex buffer: per vertex x, y, 0, 1 (the VS) or NDC (no VS).
    let vb: Vec<u32> = scene
        .vertices
        .iter()
        .flat_map(|&[x, y]| {
            if scene.vs {
                [x, y, 0.0, 1.0]
            } else {
                [
                    x * consts[0] + consts[4],
                    y * consts[1] + consts[5],
                    0.0,
                    1.0,
                ]
            }
        })
        .map(f32::to_bits)
        .collect();
    ram.put_dw(VB, &vb);
    // Viewports: NDC back to pixels (003 lines 37550-37565).
    push_at(
        ram,
        DYNAMIC + u64::from(CLIP_VP),
        &ClipViewport {
            xmin_clip_guardband: -1.0,
            xmax_clip_guardband: 1.0,
            ymin_clip_guardband: -1.0,
            ymax_clip_guardband: 1.0,
        },
    );
    push_at(
        ram,
        DYNAMIC + u64::from(SF_VP),
        &SfViewport {
            viewport_matrix_element_m00: W as f32 / 2.0,
            viewport_matrix_element_m11: -(H as f32) / 2.0,
            viewport_matrix_element_m22: 1.0,
            viewport_matrix_element_m30: W as f32 / 2.0,
            viewport_matrix_element_m31: H as f32 / 2.0,
            viewport_matrix_element_m32: 0.0,
        },
    );
    push_at(
        ram,
        DYNAMIC + u64::from(CC_VP),
        &CcViewport {
            minimum_depth: 0.0,
            maximum_depth: 1.0,
        },
    );
    push_at(
        ram,
        DYNAMIC + u64::from(BLEND),
        &BlendState {
            pre_blend_color_clamp_enable: true,
            post_blend_color_clamp_enable: true,
            ..BlendState::default()
        },
    );
    ram.put_dw(DYNAMIC + u64::from(DEPTH_STENCIL), &[0; 3]);
    ram.put_dw(DYNAMIC + u64::from(COLOR_CALC), &[0; 6]);
    // Binding table entry 0 -> SURFACE_STATE at 0x40.
    ram.put_dw(SURFACES, &[0x40]);
    push_at(
        ram,
        SURFACES + 0x40,
        &SurfaceState {
            surface_type: SurfaceState::SURFACE_TYPE_SURFTYPE_2D,
            surface_format: 0x0C0, // B8G8R8A8_UNORM
            surface_base_address: RT,
            width: W - 1,
            height: H - 1,
            surface_pitch: PITCH - 1,
            ..SurfaceState::default()
        },
    );

    let mut b = Vec::new();
    push(
        &mut b,
        &PipelineSelect {
            pipeline_selection: 0,
        },
    );
    push(
        &mut b,
        &StateBaseAddress {
            general_state_base_address_modify_enable: true,
            surface_state_base_address: SURFACES,
            surface_state_base_address_modify_enable: true,
            dynamic_state_base_address: DYNAMIC,
            dynamic_state_base_address_modify_enable: true,
            indirect_object_base_address_modify_enable: true,
            instruction_base_address: KERNELS,
            instruction_base_address_modify_enable: true,
            general_state_access_upper_bound_modify_enable: true,
            dynamic_state_access_upper_bound_modify_enable: true,
            indirect_object_access_upper_bound_modify_enable: true,
            instruction_access_upper_bound_modify_enable: true,
            ..StateBaseAddress::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateVfStatistics {
            statistics_enable: true,
        },
    );
    push(&mut b, &Cmd3dstateMultisample::default());
    push(&mut b, &Cmd3dstateSampleMask { sample_mask: 1 });
    push(
        &mut b,
        &Cmd3dstateUrb {
            vs_urb_entry_allocation_size: 0,
            vs_number_of_urb_entries: 24,
            gs_number_of_urb_entries: if scene.gs.is_some() { 8 } else { 0 },
            gs_urb_entry_allocation_size: 0,
        },
    );
    push(
        &mut b,
        &Cmd3dstateViewportStatePointers {
            cc_viewport_state_change: true,
            sf_viewport_state_change: true,
            clip_viewport_state_change: true,
            pointer_to_clip_viewport: CLIP_VP,
            pointer_to_sf_viewport: SF_VP,
            pointer_to_cc_viewport: CC_VP,
        },
    );
    push(
        &mut b,
        &Cmd3dstateCcStatePointers {
            pointer_to_blend_state: BLEND,
            blend_state_change: true,
            pointer_to_depth_stencil_state: DEPTH_STENCIL,
            depth_stencil_state_change: true,
            pointer_to_color_calc_state: COLOR_CALC,
            color_calc_state_change: true,
        },
    );
    push(
        &mut b,
        &Cmd3dstateBindingTablePointers {
            ps_binding_table_change: true,
            pointer_to_ps_binding_table: 0,
            ..Cmd3dstateBindingTablePointers::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateConstantVs {
            buffer_0_valid: true,
            pointer_to_vs_constant_buffer_0: CONSTANTS,
            vs_constant_buffer_0_read_length: 0,
            ..Cmd3dstateConstantVs::default()
        },
    );
    match scene.gs.as_ref().and_then(|g| g.constants) {
        Some(c) => {
            ram.put_dw(DYNAMIC + u64::from(GS_CONSTANTS), &c.map(f32::to_bits));
            push(
                &mut b,
                &Cmd3dstateConstantGs {
                    buffer_0_valid: true,
                    pointer_to_gs_constant_buffer_0: GS_CONSTANTS,
                    gs_constant_buffer_0_read_length: 0,
                    ..Cmd3dstateConstantGs::default()
                },
            );
        }
        None => push(&mut b, &Cmd3dstateConstantGs::default()),
    }
    push(&mut b, &Cmd3dstateConstantPs::default());
    push(
        &mut b,
        &Cmd3dstateVs {
            kernel_start_pointer: 0,
            // Push constants from r1, the vertex data after them (r2).
            dispatch_grf_start_register_for_urb_data: 1,
            vertex_urb_entry_read_length: 1,
            vertex_urb_entry_read_offset: 0,
            maximum_number_of_threads: 3,
            statistics_enable: true,
            vs_function_enable: scene.vs,
            ..Cmd3dstateVs::default()
        },
    );
    if let Some(g) = &scene.gs {
        ram.put(KERNELS + u64::from(GS_KSP), &gs_kernel(&g.kernel));
        for (k, (index, max)) in g.svbi.iter().enumerate() {
            push(
                &mut b,
                &Cmd3dstateGsSvbIndex {
                    index_number: k as u32,
                    streamed_vertex_buffer_index: *index,
                    maximum_index: *max,
                    ..Cmd3dstateGsSvbIndex::default()
                },
            );
        }
        if g.so_buffer {
            // GS binding table at 0x20: entry 0 -> SURFACE_STATE at 0x80,
            // an R32G32B32A32_FLOAT buffer of 16-byte elements.
            ram.put_dw(SURFACES + 0x20, &[0x80]);
            let entries = SO_ENTRIES - 1;
            push_at(
                ram,
                SURFACES + 0x80,
                &SurfaceState {
                    surface_type: 4,       // SURFTYPE_BUFFER
                    surface_format: 0x000, // R32G32B32A32_FLOAT
                    surface_base_address: SO,
                    width: entries & 0x7F,
                    height: entries >> 7 & 0x1FFF,
                    depth: entries >> 20 & 0x7F,
                    surface_pitch: 15,
                    ..SurfaceState::default()
                },
            );
            push(
                &mut b,
                &Cmd3dstateBindingTablePointers {
                    gs_binding_table_change: true,
                    pointer_to_gs_binding_table: 0x20,
                    ..Cmd3dstateBindingTablePointers::default()
                },
            );
        }
    }
    let gs = scene.gs.as_ref();
    push(
        &mut b,
        &Cmd3dstateGs {
            gs_enable: gs.is_some(),
            kernel_start_pointer: GS_KSP,
            // R1 the SVBIs, the vertices from r2, one 256-bit row each.
            dispatch_grf_start_register_for_urb_data: 2,
            vertex_urb_entry_read_length: 1,
            vertex_urb_entry_read_offset: 0,
            maximum_number_of_threads: 0,
            gs_statistics_enable: true,
            so_statistics_enable: true,
            rendering_enabled: gs.is_some_and(|g| g.rendering),
            svbi_payload_enable: gs.is_some(),
            discard_adjacency: true,
            ..Cmd3dstateGs::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateClip {
            clipper_statistics_enable: true,
            clip_enable: true,
            clip_mode: 4, // ACCEPT_ALL
            ..Cmd3dstateClip::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateSf {
            number_of_sf_output_attributes: 0,
            vertex_urb_entry_read_length: 1,
            vertex_urb_entry_read_offset: 1,
            viewport_transform_enable: true,
            statistics_enable: true,
            cull_mode: 1, // CULLMODE_NONE
            ..Cmd3dstateSf::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateWm {
            kernel_start_pointer_0: PS_KSP,
            binding_table_entry_count: 1,
            dispatch_grf_start_register_for_constant_setup_data_0: 2,
            maximum_number_of_threads: 39,
            thread_dispatch_enable: true,
            pixel_dispatch_enable_16: true,
            statistics_enable: true,
            ..Cmd3dstateWm::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateDepthBuffer {
            surface_type: 7,   // SURFTYPE_NULL
            surface_format: 1, // D32_FLOAT
            ..Cmd3dstateDepthBuffer::default()
        },
    );
    push(&mut b, &Cmd3dstateClearParams::default());
    push(
        &mut b,
        &Cmd3dstateDrawingRectangle {
            clipped_drawing_rectangle_x_max: W - 1,
            clipped_drawing_rectangle_y_max: H - 1,
            ..Cmd3dstateDrawingRectangle::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateVertexBuffers {
            vertex_buffer_state: vec![Cmd3dstateVertexBuffersVertexBufferState {
                vertex_buffer_index: 0,
                buffer_pitch: 16,
                buffer_starting_address: VB,
                end_address: VB + 16 * scene.vertices.len() as u64 - 1,
                ..Cmd3dstateVertexBuffersVertexBufferState::default()
            }],
        },
    );
    // Element 0: the VUE header (zeros); element 1: the position.
    let element = |store: u32| Cmd3dstateVertexElementsElement {
        vertex_buffer_index: 0,
        valid: true,
        source_element_format: 0, // R32G32B32A32_FLOAT
        source_element_offset: 0,
        component_0_control: store,
        component_1_control: store,
        component_2_control: store,
        component_3_control: store,
        ..Cmd3dstateVertexElementsElement::default()
    };
    push(
        &mut b,
        &Cmd3dstateVertexElements {
            element: vec![element(2), element(1)],
        },
    );
    let (access, count, base) = match &scene.indices {
        None => (0, scene.vertices.len() as u32, 0),
        Some((indices, base)) => {
            let bytes: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
            ram.put(IB, &bytes);
            push(
                &mut b,
                &Cmd3dstateIndexBuffer {
                    cut_index_enable: true,
                    index_format: 1, // INDEX_WORD
                    buffer_starting_address: IB,
                    buffer_ending_address: IB + bytes.len() as u64 - 1,
                    ..Cmd3dstateIndexBuffer::default()
                },
            );
            (1, indices.len() as u32, *base)
        }
    };
    push(
        &mut b,
        &Cmd3dprimitive {
            vertex_access_type: access,
            primitive_topology_type: scene.topology,
            vertex_count_per_instance: count,
            instance_count: 1,
            base_vertex_location: base,
            ..Cmd3dprimitive::default()
        },
    );
    // The depth count, then the fence after a render-target flush.
    push(
        &mut b,
        &PipeControl {
            depth_stall_enable: true,
            post_sync_operation: 2,
            address: DEPTH_COUNT,
            use_global_gtt: true,
            immediate_data_high: Some(0),
            ..PipeControl::default()
        },
    );
    push(
        &mut b,
        &PipeControl {
            command_streamer_stall_enable: true,
            render_target_cache_flush_enable: true,
            post_sync_operation: 1,
            address: FENCE,
            use_global_gtt: true,
            immediate_data_low: 0x600D,
            ..PipeControl::default()
        },
    );
    push(&mut b, &MiBatchBufferEnd {});
    b.push(0);
    b
}

fn push_at<P: Packet>(ram: &Ram, at: u64, p: &P) {
    let mut v = vec![0u32; p.dwords()];
    p.pack(&mut v).unwrap();
    ram.put_dw(at, &v);
}

/// The GS of a scene.
struct GsSetup {
    kernel: String,
    rendering: bool,
    /// SVBI and Maximum Index for indexes 0, 1, ...
    svbi: Vec<(u32, u32)>,
    /// The stream-output buffer at GS binding-table entry 0.
    so_buffer: bool,
    /// One register of push constants (3DSTATE_CONSTANT_GS buffer 0).
    constants: Option<[f32; 8]>,
}

fn gs_kernel(src: &str) -> Vec<u8> {
    baregpu_isa::text::asm::assemble(IsaGen::Gen6, src).unwrap_or_else(|e| panic!("{e:?}\n{src}"))
}

/// `_3DPRIM_*` values (003 lines 31101-31175) and the M0.2 flags.
const TRILIST: u32 = 0x04;
const TRISTRIP: u32 = 0x05;
const LINESTRIP: u32 = 0x03;
const LINELOOP: u32 = 0x10;
const QUADSTRIP: u32 = 0x08;
const START: u32 = 2;
const END: u32 = 1;

/// Kernel text: FF_SYNC reporting `prims` GS primitives and `so` (M0.0),
/// then one URB_WRITE per `(register, M0.2 flags)` output vertex, each
/// completing its handle and allocating the next (as Mesa does), then the
/// EOT write that dereferences the last handle with `so_written` in
/// M0.2[26:16]. `body` runs first (it may fill registers).
fn emitter(body: &str, prims: u32, so: u32, out: &[(u32, u32)], so_written: u32) -> String {
    let mut s = String::from(body);
    s += &format!(
        "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}\n\
         mov (1|M0) m1.0<1>:ud {so:#x}:ud {{NoMask}}\n\
         mov (1|M0) m1.1<1>:ud {prims:#x}:ud {{NoMask}}\n\
         send (8|M0) r10.0<1>:ud m1 0x6 {} {{NoMask}}\n\
         mov (1|M0) r11.0<1>:ud r10.0<0;1,0>:ud {{NoMask}}\n",
        desc("urb.ff_sync(offset=0, swizzle=none) mlen=1 rlen=1 hdr")
    );
    for (reg, flags) in out {
        s += &format!(
            "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}\n\
             mov (1|M0) m1.0<1>:ud r11.0<0;1,0>:ud {{NoMask}}\n\
             mov (1|M0) m1.2<1>:ud {flags:#x}:ud {{NoMask}}\n\
             mov (8|M0) m2.0<1>:ud r{reg}.0<8;8,1>:ud {{NoMask}}\n\
             send (8|M0) r11.0<1>:ud m1 0x6 {} {{NoMask}}\n",
            desc("urb.write(offset=0, swizzle=none, alloc, used, complete) mlen=2 rlen=1 hdr")
        );
    }
    s += &format!(
        "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}\n\
         mov (1|M0) m1.0<1>:ud r11.0<0;1,0>:ud {{NoMask}}\n\
         mov (1|M0) m1.2<1>:ud {:#x}:ud {{NoMask}}\n\
         send (8|M0) null:ud m1 0x6 {} {{EOT}}\n",
        so_written << 16,
        desc("urb.write(offset=0, swizzle=none, complete) mlen=1 rlen=0 hdr")
    );
    s
}

struct Drawn {
    picture: Vec<u8>,
    /// GS_INVOCATION_COUNT, GS_PRIMITIVES_COUNT, SO_NUM_PRIMS_WRITTEN,
    /// SO_PRIM_STORAGE_NEEDED (low dwords).
    gs_counts: [u32; 4],
    /// IA_PRIMITIVES_COUNT.
    ia_primitives: u32,
    ram: Ram,
}

fn draw(scene: &Scene) -> Drawn {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    ram.put(RT, &[0x11; (W * H * 4) as usize]);
    let batch = setup(&ram, scene);
    submit(&gpu, &ram, &batch, 20);
    assert_eq!(gpu.unmodelled(render), None);
    assert_eq!(
        ram.dw(FENCE),
        0x600D,
        "the batch completed ({:?})",
        gpu.eu_report()
    );
    Drawn {
        picture: ram.bytes(RT, (W * H * 4) as usize),
        gs_counts: [0x2328, 0x2330, 0x2288, 0x2280].map(|r| gpu.read32(r)),
        ia_primitives: gpu.read32(0x2318),
        ram,
    }
}

fn lit(picture: &[u8]) -> usize {
    picture.chunks(4).filter(|p| p != &[0x11; 4]).count()
}

fn scene(vertices: &[[f32; 2]], topology: u32, gs: Option<GsSetup>) -> Scene {
    Scene {
        vertices: vertices.to_vec(),
        topology,
        vs: true,
        gs,
        colour: [1.0, 0.0, 0.2, 1.0],
        indices: None,
    }
}

fn rendering(kernel: String) -> Option<GsSetup> {
    Some(GsSetup {
        kernel,
        rendering: true,
        svbi: Vec::new(),
        so_buffer: false,
        constants: None,
    })
}

const TWO_TRIANGLES: [[f32; 2]; 6] = [
    [1.5, 1.5],
    [7.5, 1.5],
    [1.5, 9.5],
    [9.5, 4.5],
    [14.5, 12.5],
    [8.5, 14.5],
];

/// (a) Each triangle through unchanged: the picture is the no-GS one.
#[test]
fn pass_through_gs_draws_what_no_gs_draws() {
    let tri = TRILIST << 2;
    let k = emitter("", 1, 0, &[(2, tri | START), (3, tri), (4, tri | END)], 0);
    let with = draw(&scene(&TWO_TRIANGLES, TRILIST, rendering(k)));
    let without = draw(&scene(&TWO_TRIANGLES, TRILIST, None));
    assert!(lit(&without.picture) > 20);
    assert_eq!(with.picture, without.picture);
    // One thread per object, one primitive reported by each FF_SYNC.
    assert_eq!(with.gs_counts, [2, 2, 0, 0]);
}

/// (b) A QUADSTRIP: each quad object (0,1,3,2) becomes a two-triangle
/// strip, as Mesa's Gen6 converts quad strips; the picture is the one a
/// TRISTRIP over the same vertices draws without a GS.
#[test]
fn quad_strip_becomes_triangles() {
    let strip = TRISTRIP << 2;
    // Payload vertices r2..r5 = (v0, v1, v3, v2): the strip (v0, v1, v2,
    // v3) is r2, r3, r5, r4.
    let k = emitter(
        "",
        2,
        0,
        &[(2, strip | START), (3, strip), (5, strip), (4, strip | END)],
        0,
    );
    let quads = [
        [2.5, 2.5],
        [2.5, 13.5],
        [8.5, 1.5],
        [7.5, 12.5],
        [14.5, 3.5],
        [13.5, 14.5],
    ];
    let with = draw(&scene(&quads, QUADSTRIP, rendering(k)));
    let reference = draw(&scene(&quads, TRISTRIP, None));
    assert!(lit(&reference.picture) > 60);
    assert_eq!(with.picture, reference.picture);
    assert_eq!(with.gs_counts[..2], [2, 4]);
    assert_eq!(with.ia_primitives, 2, "the VF's two quads");
}

/// Without a GS, QUADSTRIP is refused (SF does not take it).
#[test]
fn quad_strip_without_gs_stops_the_draw() {
    let ram = Ram::new();
    let (gpu, _) = gpu(&ram);
    let batch = setup(&ram, &scene(&TWO_TRIANGLES[..4], QUADSTRIP, None));
    submit(&gpu, &ram, &batch, 5);
    assert_ne!(ram.dw(FENCE), 0x600D);
}

/// (c) One triangle in, two out: the second a copy moved right by the
/// push constant in r2.0 (6 pixels: 0.75 in NDC x; the vertices follow
/// the constants, from r3); the picture is that of both drawn without a
/// GS.
#[test]
fn one_triangle_in_two_out() {
    let tri = TRILIST << 2;
    let body = "mov (8|M0) r20.0<1>:ud r3.0<8;8,1>:ud {NoMask}\n\
                mov (8|M0) r21.0<1>:ud r4.0<8;8,1>:ud {NoMask}\n\
                mov (8|M0) r22.0<1>:ud r5.0<8;8,1>:ud {NoMask}\n\
                add (1|M0) r20.4<1>:f r3.4<0;1,0>:f r2.0<0;1,0>:f {NoMask}\n\
                add (1|M0) r21.4<1>:f r4.4<0;1,0>:f r2.0<0;1,0>:f {NoMask}\n\
                add (1|M0) r22.4<1>:f r5.4<0;1,0>:f r2.0<0;1,0>:f {NoMask}\n";
    let k = emitter(
        body,
        2,
        0,
        &[
            (3, tri | START),
            (4, tri),
            (5, tri | END),
            (20, tri | START),
            (21, tri),
            (22, tri | END),
        ],
        0,
    );
    let gs = Some(GsSetup {
        kernel: k,
        rendering: true,
        svbi: Vec::new(),
        so_buffer: false,
        constants: Some([0.75, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    });
    let one = [[1.5, 1.5], [7.5, 2.5], [2.5, 12.5]];
    let with = draw(&scene(&one, TRILIST, gs));
    let moved: Vec<[f32; 2]> = one.iter().map(|&[x, y]| [x + 6.0, y]).collect();
    let both: Vec<[f32; 2]> = one.iter().copied().chain(moved).collect();
    let reference = draw(&scene(&both, TRILIST, None));
    assert_eq!(with.picture, reference.picture);
    assert_ne!(with.picture, draw(&scene(&one, TRILIST, None)).picture);
    assert_eq!(with.gs_counts[..2], [1, 2]);
}

/// The stream-output kernel: FF_SYNC for the SVBIs, each vertex's
/// position to the buffer at SVBI 0 + k, the EOT write.
fn so_kernel() -> String {
    let mut body = String::new();
    // FF_SYNC: 3 SO vertices, 1 SO primitive; W0.1 = SVBI 0.
    body += &format!(
        "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}\n\
         mov (1|M0) m1.0<1>:ud 0x30001:ud {{NoMask}}\n\
         mov (1|M0) m1.1<1>:ud 0x0:ud {{NoMask}}\n\
         send (8|M0) r10.0<1>:ud m1 0x6 {} {{NoMask}}\n",
        desc("urb.ff_sync(offset=0, swizzle=none) mlen=1 rlen=1 hdr")
    );
    for k in 0..3 {
        body += &format!(
            "mov (4|M0) m2.0<1>:ud r{}.4<4;4,1>:ud {{NoMask}}\n\
             add (1|M0) m2.5<1>:ud r10.1<0;1,0>:ud {k:#x}:ud {{NoMask}}\n\
             send (8|M0) r12.0<1>:ud m2 0x5 {} {{NoMask}}\n\
             mov (8|M0) r12.0<1>:ud r12.0<8;8,1>:ud {{NoMask}}\n",
            2 + k,
            desc("rc.svb_write(bti=0, commit) mlen=1 rlen=1 hdr"),
        );
    }
    // The EOT write: no handle held (Rendering Enabled clear), so an
    // incomplete non-write, with SONumPrimsWritten 1.
    body += &format!(
        "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}\n\
         mov (1|M0) m1.2<1>:ud 0x10000:ud {{NoMask}}\n\
         send (8|M0) null:ud m1 0x6 {} {{EOT}}\n",
        desc("urb.write(offset=0, swizzle=none) mlen=1 rlen=0 hdr")
    );
    body
}

fn so_only(svbi0: (u32, u32)) -> Option<GsSetup> {
    Some(GsSetup {
        kernel: so_kernel(),
        rendering: false,
        svbi: vec![svbi0],
        so_buffer: true,
        constants: None,
    })
}

#[test]
fn stream_output_writes_the_vertices_in_order() {
    let d = draw(&scene(&TWO_TRIANGLES, TRILIST, so_only((5, 64))));
    assert_eq!(lit(&d.picture), 0, "nothing rendered");
    // The VS output: x * 2/16 - 1, y * -2/16 + 1, 0, 1.
    for (k, [x, y]) in TWO_TRIANGLES.iter().enumerate() {
        let at = SO + 16 * (5 + k as u64);
        let got: Vec<f32> = (0..4)
            .map(|c| f32::from_bits(d.ram.dw(at + 4 * c)))
            .collect();
        assert_eq!(got, [x / 8.0 - 1.0, 1.0 - y / 8.0, 0.0, 1.0], "vertex {k}");
    }
    assert_eq!(d.ram.dw(SO + 16 * 4), 0, "before the first SVBI");
    assert_eq!(d.ram.dw(SO + 16 * 11), 0, "after the last vertex");
    assert_eq!(d.gs_counts, [2, 0, 2, 2]);
}

/// FF_SYNC holds SVBI 0 at its Maximum Index: with maximum 7 the second
/// thread gets 7 (5 + 3 clamped), so its vertices land at 7-9 over the
/// first thread's last one (overflow checks are the kernel's job).
#[test]
fn svbis_stop_at_their_maximum_index() {
    let d = draw(&scene(&TWO_TRIANGLES, TRILIST, so_only((5, 7))));
    let x = |slot: u64| f32::from_bits(d.ram.dw(SO + 16 * slot));
    assert_eq!(x(5), TWO_TRIANGLES[0][0] / 8.0 - 1.0);
    assert_eq!(x(6), TWO_TRIANGLES[1][0] / 8.0 - 1.0);
    for k in 0..3 {
        assert_eq!(x(7 + k), TWO_TRIANGLES[3 + k as usize][0] / 8.0 - 1.0);
    }
}

/// A GS thread that ends with a handle it allocated still incomplete
/// breaks the termination rule: the engine stops at the draw.
#[test]
fn a_gs_ending_with_an_incomplete_handle_stops_the_draw() {
    let tri = TRILIST << 2;
    let k = emitter("", 1, 0, &[(2, tri | START)], 0).replace(
        &desc("urb.write(offset=0, swizzle=none, complete) mlen=1 rlen=0 hdr"),
        &desc("urb.write(offset=0, swizzle=none) mlen=1 rlen=0 hdr"),
    );
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    let batch = setup(&ram, &scene(&TWO_TRIANGLES[..3], TRILIST, rendering(k)));
    submit(&gpu, &ram, &batch, 5);
    assert_eq!(gpu.unmodelled(render), None);
    assert_ne!(ram.dw(FENCE), 0x600D);
}

/// A LINELOOP: each line object (the closing one last) out as a
/// one-line LINESTRIP; the picture is the closed LINESTRIP's without a
/// GS.
#[test]
fn line_loop_closes_through_the_gs() {
    let strip = LINESTRIP << 2;
    let k = emitter("", 1, 0, &[(2, strip | START), (3, strip | END)], 0);
    let loop_ = [[2.5, 2.5], [13.5, 3.5], [7.5, 13.5]];
    let with = draw(&scene(&loop_, LINELOOP, rendering(k)));
    let closed: Vec<[f32; 2]> = loop_.iter().copied().chain([loop_[0]]).collect();
    let reference = draw(&scene(&closed, LINESTRIP, None));
    assert!(lit(&reference.picture) > 20);
    assert_eq!(with.picture, reference.picture);
    // Three objects (the closing line included) through GS threads; the
    // VF counts two.
    assert_eq!(with.gs_counts[..2], [3, 3]);
    assert_eq!(with.ia_primitives, 2);
}
