//! The Sandy Bridge 3D pipeline end to end: batches of 3D state and
//! 3DPRIMITIVE built with the hal's typed packets, submitted on the render
//! ring through MMIO, with a real vertex shader (SIMD4x2, push constants,
//! URB writes) and a pixel shader assembled with the isa toolkit; the
//! triangle in a linear B8G8R8A8 render target is compared pixel by pixel
//! with a host reference of its coverage (pixel centres, top-left rule).
//!
//! The command sequence follows the digest's minimal triangle (notes
//! seed-003 section 4.4) with the VS enabled.

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
    gs: bool,
    colour: [f32; 4],
    /// 16-bit indices with the cut index enabled, and the base vertex;
    /// `None`: sequential.
    indices: Option<(Vec<u16>, i32)>,
    /// Lines drawn anti-aliased, 3 pixels wide, blended SRC_ALPHA /
    /// INV_SRC_ALPHA over the target.
    aa: bool,
    /// 4X with Mesa's standard positions (MSRASTMODE_ON_PATTERN,
    /// per-pixel dispatch) into an interleaved target twice as wide and
    /// high.
    msaa: bool,
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
            color_buffer_blend_enable: scene.aa,
            source_blend_factor: 0x03,      // SRC_ALPHA
            destination_blend_factor: 0x13, // INV_SRC_ALPHA
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
            surface_pitch: if scene.msaa { 2 * PITCH } else { PITCH } - 1,
            number_of_multisamples: if scene.msaa { 2 } else { 0 },
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
    push(
        &mut b,
        &if scene.msaa {
            // Mesa's 4X positions (i965 brw_multisample_state.h,
            // 0xae2ae662).
            Cmd3dstateMultisample {
                number_of_multisamples: 2,
                sample0_x_offset: 6,
                sample0_y_offset: 2,
                sample1_x_offset: 14,
                sample1_y_offset: 6,
                sample2_x_offset: 2,
                sample2_y_offset: 10,
                sample3_x_offset: 10,
                sample3_y_offset: 14,
                ..Cmd3dstateMultisample::default()
            }
        } else {
            Cmd3dstateMultisample::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateSampleMask {
            sample_mask: if scene.msaa { 0xf } else { 1 },
        },
    );
    push(
        &mut b,
        &Cmd3dstateUrb {
            vs_urb_entry_allocation_size: 0,
            vs_number_of_urb_entries: 24,
            ..Cmd3dstateUrb::default()
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
    push(&mut b, &Cmd3dstateConstantGs::default());
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
    push(
        &mut b,
        &Cmd3dstateGs {
            gs_enable: scene.gs,
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
            anti_aliasing_enable: scene.aa,
            aa_line_distance_mode: 1,                  // AALINEDISTANCE_TRUE
            line_width: 3 << 7,                        // U3.7
            line_end_cap_antialiasing_region_width: 1, // 1.0
            multisample_rasterization_mode: if scene.msaa { 3 } else { 0 },
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
            line_antialiasing_region_width: 1,         // 1.0
            line_end_cap_antialiasing_region_width: 0, // 0.5
            multisample_rasterization_mode: if scene.msaa { 3 } else { 0 },
            multisample_dispatch_mode: u32::from(scene.msaa), // PERPIXEL
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

/// Whether the pixel centre (px, py) is inside the triangle by the
/// top-left rule (003 lines 38050-38110, the SF chapter's rasterization
/// rules): on an edge it counts only for a top edge (horizontal, the
/// others below it) or a left edge.
fn covered(t: [[f32; 2]; 3], px: f32, py: f32) -> bool {
    let area =
        (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (t[1][1] - t[0][1]) * (t[2][0] - t[0][0]);
    if area == 0.0 {
        return false;
    }
    // Orient clockwise on screen (y down): positive area.
    let t = if area < 0.0 { [t[0], t[2], t[1]] } else { t };
    (0..3).all(|k| {
        let (a, b) = (t[k], t[(k + 1) % 3]);
        let e = (b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0]);
        if e != 0.0 {
            return e > 0.0;
        }
        // On the edge a->b (clockwise, y down): a top edge runs left to
        // right horizontally, a left edge runs upwards.
        let top = a[1] == b[1] && b[0] > a[0];
        let left = b[1] < a[1];
        top || left
    })
}

/// Draws the test triangle with the VS on or off and checks every pixel.
fn draw_triangle(vs: bool) {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    // Corners on pixel centres: the top and left edges pass through
    // centres that are in, the long edge through centres that are out.
    let tri = [[2.5, 1.5], [14.5, 1.5], [2.5, 13.5]];
    let scene = Scene {
        vertices: tri.to_vec(),
        topology: 4, // TRILIST
        vs,
        gs: false,
        colour: [1.0, 0.0, 0.2, 1.0],
        indices: None,
        aa: false,
        msaa: false,
    };
    // Background: a colour the triangle does not use.
    ram.put(RT, &[0x11; (W * H * 4) as usize]);
    let batch = setup(&ram, &scene);
    submit(&gpu, &ram, &batch, 20);
    assert_eq!(gpu.unmodelled(render), None);
    assert_eq!(
        ram.dw(FENCE),
        0x600D,
        "the batch completed ({:?})",
        gpu.eu_report()
    );
    let mut lit = 0u64;
    for y in 0..H {
        for x in 0..W {
            let got = ram.bytes(RT + u64::from(y * PITCH + x * 4), 4);
            let want = if covered(tri, x as f32 + 0.5, y as f32 + 0.5) {
                lit += 1;
                vec![51, 0, 255, 255]
            } else {
                vec![0x11; 4]
            };
            assert_eq!(got, want, "pixel ({x}, {y})");
        }
    }
    // 12 + 11 + ... + 1 pixels: rows 1-12 (the long edge excluded).
    assert_eq!(lit, (1..=12).sum::<u64>());
    // The statistics registers: IA vertices and primitives, VS invocations
    // (with the VS), CL invocations and primitives, PS invocations.
    let counts = [0x2310, 0x2318, 0x2320, 0x2338, 0x2340, 0x2348].map(|r| gpu.read32(r));
    assert_eq!(counts, [3, 1, if vs { 3 } else { 0 }, 1, 1, lit as u32]);
    // The samples that passed (no depth test: every lit pixel) are counted.
    assert_eq!(
        u64::from(ram.dw(DEPTH_COUNT)) | u64::from(ram.dw(DEPTH_COUNT + 4)) << 32,
        lit
    );
}

#[test]
fn a_triangle_through_a_real_vs_and_ps_matches_the_host_coverage() {
    draw_triangle(true);
}

/// With the VS disabled the VF's entries are the VUEs (the positions
/// already in NDC): the same pixels.
#[test]
fn a_triangle_with_the_vs_disabled_matches_too() {
    draw_triangle(false);
}

/// An indexed strip with a cut: a rectangle of two triangles sharing a
/// diagonal (every pixel once: the depth count sees no double hit), then
/// after the cut a strip of one triangle; the base vertex skips a dummy
/// vertex.
#[test]
fn an_indexed_strip_with_a_cut_covers_each_pixel_once() {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    let (l, r, t, b) = (3.25, 11.75, 2.5, 9.5);
    let scene = Scene {
        // Vertex 0 is never used (base vertex 1).
        vertices: vec![
            [0.0, 0.0],
            [l, t],
            [l, b],
            [r, t],
            [r, b],
            [13.5, 11.5],
            [15.5, 11.5],
            [13.5, 14.5],
        ],
        topology: 5, // TRISTRIP
        vs: true,
        gs: false,
        colour: [0.0, 1.0, 0.0, 1.0],
        indices: Some((vec![0, 1, 2, 3, 0xFFFF, 4, 5, 6], 1)),
        aa: false,
        msaa: false,
    };
    ram.put(RT, &[0x11; (W * H * 4) as usize]);
    let batch = setup(&ram, &scene);
    submit(&gpu, &ram, &batch, 20);
    assert_eq!(gpu.unmodelled(render), None);
    assert_eq!(ram.dw(FENCE), 0x600D, "{:?}", gpu.eu_report());
    let tris = [
        [[l, t], [l, b], [r, t]],
        [[l, b], [r, t], [r, b]],
        [[13.5, 11.5], [15.5, 11.5], [13.5, 14.5]],
    ];
    let mut lit = 0u64;
    for y in 0..H {
        for x in 0..W {
            let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
            let hits = tris.iter().filter(|t| covered(**t, px, py)).count();
            assert!(hits <= 1, "({x}, {y}) covered twice by the reference");
            lit += hits as u64;
            let want = if hits == 1 {
                vec![0, 255, 0, 255]
            } else {
                vec![0x11; 4]
            };
            let got = ram.bytes(RT + u64::from(y * PITCH + x * 4), 4);
            assert_eq!(got, want, "pixel ({x}, {y})");
        }
    }
    // The rectangle: columns 3-11, rows 2-8; the small triangle: two
    // pixels in rows 11 and 12, one in row 13.
    assert_eq!(lit, 9 * 7 + 5);
    let count = u64::from(ram.dw(DEPTH_COUNT)) | u64::from(ram.dw(DEPTH_COUNT + 4)) << 32;
    assert_eq!(count, lit, "no pixel drawn twice");
}

/// A draw longer than a run's instruction allowance: the engine stays at
/// 3DPRIMITIVE between runs, the threads go on in the next ones, and the
/// picture is the same.
#[test]
fn a_draw_longer_than_a_run_resumes_at_its_3dprimitive() {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    let tri = [[2.5, 1.5], [14.5, 1.5], [2.5, 13.5]];
    let scene = Scene {
        vertices: tri.to_vec(),
        topology: 4,
        vs: true,
        gs: false,
        colour: [1.0, 0.0, 0.2, 1.0],
        indices: None,
        aa: false,
        msaa: false,
    };
    ram.put(RT, &[0x11; (W * H * 4) as usize]);
    let batch = setup(&ram, &scene);
    // Seven pixel threads of 700 instructions: more than the run the
    // TAIL write starts (4096 commands at one instruction each).
    ram.put(
        KERNELS + u64::from(PS_KSP),
        &ps_kernel_after(scene.colour, 700),
    );
    let mut config = gpu.eu_config().unwrap();
    config.per_command = 1;
    gpu.set_eu_config(config);
    submit(&gpu, &ram, &batch, 0);
    assert_eq!(ram.dw(FENCE), 0, "not finished in the first run");
    let layout = baregpu_soft::layout::Layout::of(Generation::Gen6).unwrap();
    let e = layout.device.engines[render];
    let prim = batch.iter().position(|d| d >> 16 == 0x7B00).unwrap() as u64;
    assert_eq!(u64::from(gpu.read32(e.base + 0x74)), BATCH + 4 * prim);
    let mut runs = 0;
    while ram.dw(FENCE) != 0x600D && runs < 100_000 {
        gpu.run(64);
        runs += 1;
    }
    assert!(runs > 1, "the draw went on over several runs ({runs})");
    assert_eq!(gpu.unmodelled(render), None);
    assert_eq!(ram.dw(FENCE), 0x600D, "{:?}", gpu.eu_report());
    for y in 0..H {
        for x in 0..W {
            let got = ram.bytes(RT + u64::from(y * PITCH + x * 4), 4);
            let want = if covered(tri, x as f32 + 0.5, y as f32 + 0.5) {
                vec![51, 0, 255, 255]
            } else {
                vec![0x11; 4]
            };
            assert_eq!(got, want, "pixel ({x}, {y})");
        }
    }
}

#[test]
fn vs_threads_run_for_a_draw_without_objects() {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    // Two vertices of a strip make no triangle: the VS still shades them
    // (one thread), nothing reaches the raster stage.
    let scene = Scene {
        vertices: vec![[1.0, 1.0], [3.0, 1.0]],
        topology: 5, // TRISTRIP
        vs: true,
        gs: false,
        colour: [0.0; 4],
        indices: None,
        aa: false,
        msaa: false,
    };
    let batch = setup(&ram, &scene);
    submit(&gpu, &ram, &batch, 4);
    assert_eq!(gpu.unmodelled(render), None);
    assert_eq!(ram.dw(FENCE), 0x600D, "{:?}", gpu.eu_report());
    let s = gpu.eu_stats();
    assert_eq!((s.dispatched, s.completed), (1, 1), "one SIMD4x2 VS thread");
    assert_eq!(ram.dw(DEPTH_COUNT), 0);
    // IA_VERTICES_COUNT, IA_PRIMITIVES_COUNT, VS_INVOCATION_COUNT.
    let counts = [0x2310, 0x2318, 0x2320].map(|r| gpu.read32(r));
    assert_eq!(counts, [2, 0, 2]);
}

/// GS threads run (tests/render3d_gs.rs); a GS without GS URB entries
/// breaks the manual's rule (003 lines 35010-35014) and stops the engine
/// at the draw.
#[test]
fn a_gs_without_urb_entries_stops_the_draw() {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    let scene = Scene {
        vertices: vec![[1.0, 1.0], [3.0, 1.0], [1.0, 3.0]],
        topology: 4,
        vs: true,
        gs: true,
        colour: [0.0; 4],
        indices: None,
        aa: false,
        msaa: false,
    };
    let batch = setup(&ram, &scene);
    submit(&gpu, &ram, &batch, 4);
    assert_eq!(gpu.unmodelled(render), None, "refused as invalid");
    assert_eq!(ram.dw(FENCE), 0, "the engine stopped at the draw");
}

#[test]
fn a_looping_vs_is_a_hang_not_a_frozen_host() {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    let scene = Scene {
        vertices: vec![[1.0, 1.0], [3.0, 1.0]],
        topology: 5,
        vs: true,
        gs: false,
        colour: [0.0; 4],
        indices: None,
        aa: false,
        msaa: false,
    };
    let batch = setup(&ram, &scene);
    // A VS that jumps to itself forever.
    let spin = baregpu_isa::text::asm::assemble(IsaGen::Gen6, "jmpi (1|M0) 0xfffffff0:d\n")
        .or_else(|_| baregpu_isa::text::asm::assemble(IsaGen::Gen6, "jmpi (1|M0) -16:d\n"))
        .expect("a jump");
    ram.put(KERNELS, &spin);
    submit(&gpu, &ram, &batch, 3);
    assert_eq!(ram.dw(FENCE), 0, "the draw never ends");
    assert_eq!(gpu.unmodelled(render), None);
    let layout = baregpu_soft::layout::Layout::of(Generation::Gen6).unwrap();
    let e = layout.device.engines[render];
    // ACTHD stays on the 3DPRIMITIVE (render base + 0x74, 003 ACTHD).
    let acthd = u64::from(gpu.read32(e.base + 0x74));
    let prim = batch.iter().position(|d| d >> 16 == 0x7B00).unwrap() as u64;
    assert_eq!(acthd, BATCH + 4 * prim);
}

#[test]
fn state_3d_in_the_media_pipeline_is_an_instruction_error() {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    let mut b = Vec::new();
    push(
        &mut b,
        &PipelineSelect {
            pipeline_selection: 1,
        },
    );
    push(&mut b, &Cmd3dstateSampleMask { sample_mask: 1 });
    push(&mut b, &MiBatchBufferEnd {});
    b.push(0);
    submit(&gpu, &ram, &b, 2);
    assert_eq!(gpu.unmodelled(render), None);
    assert_eq!(gpu.stats().errors, 1);
}

/// A 3-pixel anti-aliased line through a real VS and PS, blended
/// SRC_ALPHA / INV_SRC_ALPHA: each pixel of the SF's rectangle (its caps
/// 1.0 beyond the end points) takes the shader's colour with its alpha
/// scaled by the manual's coverage (003 lines 38180-38225, 41114-41254:
/// ramps over half the 1.0 region inside the edges and over the 0.5 cap
/// region past the end points, U0.8), computed here on the host; the
/// other pixels keep the background.
#[test]
fn an_anti_aliased_line_blends_by_its_coverage() {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    let (p0, p1) = ([2.3f32, 4.2], [13.6f32, 10.7]);
    let colour = [1.0f32, 0.5, 0.0, 0.9];
    let scene = Scene {
        vertices: vec![p0, p1],
        topology: 2, // LINELIST
        vs: true,
        gs: false,
        colour,
        indices: None,
        aa: true,
        msaa: false,
    };
    // B8G8R8A8 background.
    let bg = [0x20u8, 0x40, 0x60, 0x80];
    ram.put(RT, &bg.repeat((W * H) as usize));
    let batch = setup(&ram, &scene);
    submit(&gpu, &ram, &batch, 40);
    assert_eq!(gpu.unmodelled(render), None);
    assert_eq!(ram.dw(FENCE), 0x600D, "{:?}", gpu.eu_report());
    // End points as the VS and viewport leave them, snapped to 1/256.
    let snap = |v: f32, scale: f32, off: f32, m: f32| {
        let pix = (v * scale + off) * m + m.abs();
        (f64::from(pix) * 256.0).round() / 256.0
    };
    let to_px = |p: [f32; 2]| {
        (
            snap(p[0], 2.0 / W as f32, -1.0, W as f32 / 2.0),
            snap(p[1], -2.0 / H as f32, 1.0, -(H as f32) / 2.0),
        )
    };
    let (q0, q1) = (to_px(p0), to_px(p1));
    let (dx, dy) = (q1.0 - q0.0, q1.1 - q0.1);
    let len = (dx * dx + dy * dy).sqrt();
    let (mut drawn, mut partial) = (0, 0);
    for y in 0..H {
        for x in 0..W {
            let (rx, ry) = (f64::from(x) + 0.5 - q0.0, f64::from(y) + 0.5 - q0.1);
            let across = (dx * ry - dy * rx).abs() / len;
            let along = (dx * rx + dy * ry) / len;
            let got = ram.bytes(RT + u64::from(y * PITCH + x * 4), 4);
            if !(across < 1.5 && along > -1.0 && along < len + 1.0) {
                assert_eq!(got, bg, "pixel ({x}, {y}) outside the rectangle");
                continue;
            }
            drawn += 1;
            let past = if along < 0.0 {
                -along
            } else {
                (along - len).max(0.0)
            };
            let edge = ((1.5 - across) / 0.5).clamp(0.0, 1.0);
            let cap = (1.0 - past / 0.5).clamp(0.0, 1.0);
            let c = edge * cap * 255.0;
            if (c - c.floor() - 0.5).abs() < 0.01 {
                continue;
            }
            partial += usize::from(c < 254.5);
            let a = f64::from(colour[3]) * c.round() / 255.0;
            // B, G, R, A in memory.
            let src = [colour[2], colour[1], colour[0], colour[3]].map(f64::from);
            for ch in 0..4 {
                let s = if ch == 3 { a } else { src[ch] };
                let v = s * a + f64::from(bg[ch]) / 255.0 * (1.0 - a);
                let frac = v * 255.0 - (v * 255.0).floor();
                if (frac - 0.5).abs() < 0.01 {
                    continue;
                }
                assert_eq!(
                    f64::from(got[ch]),
                    (v * 255.0).round(),
                    "pixel ({x}, {y}) channel {ch}, coverage {c}"
                );
            }
        }
    }
    assert!(
        drawn > 30 && partial > 10,
        "{drawn} drawn, {partial} partial"
    );
}

/// A small xorshift generator for the mutation test.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Sandy Bridge 3D batches of this file's scenes (a triangle through the
/// VS, 1X or 4X, an indexed strip with a cut, an anti-aliased line) with a few bits
/// of their commands or of the state they point at changed at random:
/// whatever the change, the model finishes, refuses or stops within its
/// budget, never panics, and keeps answering MMIO.
#[test]
fn mutated_gen6_3d_batches_never_panic() {
    let mut rng = Rng(0x6_3D5E);
    for round in 0..150 {
        let ram = Ram::new();
        let (gpu, render) = gpu(&ram);
        let scene = match round % 3 {
            0 => Scene {
                vertices: vec![[2.5, 1.5], [14.5, 1.5], [2.5, 13.5]],
                topology: 4,
                vs: true,
                gs: false,
                colour: [1.0, 0.0, 0.2, 1.0],
                indices: None,
                aa: false,
                msaa: round % 2 == 1,
            },
            1 => Scene {
                vertices: vec![[0.0, 0.0], [3.0, 2.0], [3.0, 9.0], [11.0, 2.0], [11.0, 9.0]],
                topology: 5,
                vs: true,
                gs: false,
                colour: [0.0, 1.0, 0.0, 1.0],
                indices: Some((vec![0, 1, 2, 0xFFFF, 3], 1)),
                aa: false,
                msaa: false,
            },
            _ => Scene {
                vertices: vec![[2.3, 4.2], [13.6, 10.7]],
                topology: 2,
                vs: true,
                gs: false,
                colour: [1.0, 0.5, 0.0, 0.9],
                indices: None,
                aa: true,
                msaa: false,
            },
        };
        let mut batch = setup(&ram, &scene);
        for _ in 0..1 + rng.next() % 4 {
            let k = (rng.next() % batch.len() as u64) as usize;
            batch[k] ^= 1 << (rng.next() % 32);
            if rng.next().is_multiple_of(3) {
                batch[k] = rng.next() as u32;
            }
        }
        for _ in 0..rng.next() % 3 {
            let area = if rng.next().is_multiple_of(2) {
                DYNAMIC
            } else {
                SURFACES
            };
            let at = area + 4 * (rng.next() % 0x200);
            let v = ram.dw(at) ^ 1 << (rng.next() % 32);
            ram.put_dw(at, &[v]);
        }
        submit(&gpu, &ram, &batch, 4);
        let _ = gpu.unmodelled(render);
        let _ = gpu.read32(0x2348);
    }
}

/// A triangle drawn 4X through a real VS and PS: each sample of the
/// interleaved target (003 lines 41590-42163; layout Mesa
/// brw_blorp_blit.cpp encode_msaa) holds the colour exactly when the
/// host's top-left rule covers it at its programmed offset, and the depth
/// count counts covered samples.
#[test]
fn a_4x_triangle_writes_the_covered_samples_interleaved() {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    let tri = [[2.5, 1.5], [14.5, 1.5], [2.5, 13.5]];
    let scene = Scene {
        vertices: tri.to_vec(),
        topology: 4,
        vs: true,
        gs: false,
        colour: [1.0, 0.0, 0.2, 1.0],
        indices: None,
        aa: false,
        msaa: true,
    };
    ram.put(RT, &[0x11; (4 * W * H * 4) as usize]);
    let batch = setup(&ram, &scene);
    submit(&gpu, &ram, &batch, 20);
    assert_eq!(gpu.unmodelled(render), None);
    assert_eq!(ram.dw(FENCE), 0x600D, "{:?}", gpu.eu_report());
    let offsets = [(6u32, 2u32), (14, 6), (2, 10), (10, 14)];
    let (mut covered_samples, mut partial) = (0u64, 0);
    for y in 0..H {
        for x in 0..W {
            let mut n = 0;
            for (s, &(ox, oy)) in offsets.iter().enumerate() {
                let s = s as u32;
                let inside = covered(
                    tri,
                    x as f32 + ox as f32 / 16.0,
                    y as f32 + oy as f32 / 16.0,
                );
                // The 2x2 pixel block as a 4x4 block of 2x2 quadrants,
                // quadrant (s % 2, s / 2) holding sample s.
                let sx = 4 * (x / 2) + 2 * (s % 2) + x % 2;
                let sy = 4 * (y / 2) + 2 * (s / 2) + y % 2;
                let got = ram.bytes(RT + u64::from(sy * 2 * PITCH + sx * 4), 4);
                let want = if inside {
                    n += 1;
                    vec![51, 0, 255, 255]
                } else {
                    vec![0x11; 4]
                };
                assert_eq!(got, want, "pixel ({x}, {y}) sample {s}");
            }
            covered_samples += n;
            partial += usize::from(n != 0 && n != 4);
        }
    }
    assert!(partial > 8, "{partial}");
    assert_eq!(
        u64::from(ram.dw(DEPTH_COUNT)) | u64::from(ram.dw(DEPTH_COUNT + 4)) << 32,
        covered_samples
    );
}
