//! The Ivy Bridge 3D front end through the whole model: batches of Gen7
//! 3D state and 3DPRIMITIVE built with the hal's `gen7` typed packets,
//! submitted on the render ring through MMIO; a real SIMD4x2 vertex
//! shader assembled for Gen7 writes its URB entries with URB_WRITE_HWORD
//! as Mesa's vec4 back end does (g0 as the header, M0.5 ORed with 0xff00).
//!
//! What the engine shows of the front end: the pipeline statistics
//! registers (stored with MI_STORE_REGISTER_MEM), the fence after the
//! draw, and the not-modelled reason when a stage the model lacks is
//! enabled.

use std::cell::RefCell;
use std::rc::Rc;

use baregpu_hal::Packet;
use baregpu_hal::gen7::commands::*;
use baregpu_hal::{BusError, Generation, MemoryBus, Mmio};
use baregpu_isa::IsaGen;
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
const KERNELS: u64 = 0x30_0000;
const DYNAMIC: u64 = 0x40_0000;
const CONSTANTS: u32 = 0x200;
const SF_CLIP_VP: u32 = 0x0;
const CC_VP: u32 = 0x80;
const BLEND: u32 = 0xC0;
const DEPTH_STENCIL: u32 = 0x100;
const COLOR_CALC: u32 = 0x140;
/// Surface state base: the PS binding table at 0, SURFACE_STATE at 0x40.
const SURFACES: u64 = 0x50_0000;
const RT: u64 = 0x70_0000;
const VB: u64 = 0x60_0000;
const FENCE: u64 = 0x80_0000;
/// Where the statistics registers are stored.
const COUNTS: u64 = 0x80_0100;

/// The statistics registers (Linux i915_reg.h IA_VERTICES_COUNT 0x2310,
/// IA_PRIMITIVES_COUNT 0x2318, VS_INVOCATION_COUNT 0x2320, the same on
/// Gen7).
const IA_VERTICES_COUNT: u32 = 0x2310;
const IA_PRIMITIVES_COUNT: u32 = 0x2318;
const VS_INVOCATION_COUNT: u32 = 0x2320;

fn gpu(ram: &Ram) -> (SoftGpu<Ram>, usize) {
    let gpu = SoftGpu::new(Generation::Gen7, ram.clone()).unwrap();
    let layout = baregpu_soft::layout::Layout::of(Generation::Gen7).unwrap();
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

fn submit(gpu: &SoftGpu<Ram>, ram: &Ram, batch: &[u32], rounds: usize) {
    ram.put_dw(BATCH, batch);
    // MI_BATCH_BUFFER_START (GGTT), MI_NOOP x2.
    ram.put_dw(RING, &[0x1880_0000, BATCH as u32, 0, 0]);
    let layout = baregpu_soft::layout::Layout::of(Generation::Gen7).unwrap();
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

/// VS push constants that leave positions as they are.
const IDENTITY: [f32; 8] = [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0];

fn push<P: Packet>(b: &mut Vec<u32>, p: &P) {
    let at = b.len();
    b.resize(at + p.dwords(), 0);
    p.pack(&mut b[at..]).unwrap();
}

/// The Gen7 vertex shader: SIMD4x2, its push constants in g1 (a scale in
/// dwords 0-3, an offset in 4-7), the two vertices' elements from g2
/// (element 0 the VUE header, element 1 the position); it writes the
/// header and `position * scale + offset` with one interleaved
/// URB_WRITE_HWORD from r112 that ends the thread.
fn vs_kernel() -> Vec<u8> {
    let src = "mov (8|M0) r112.0<1>:ud r0.0<8;8,1>:ud {NoMask}\n\
         or (1|M0) r112.5<1>:ud r0.5<0;1,0>:ud 0xff00:ud {NoMask}\n\
         mov (8|M0) r113.0<1>:ud r2.0<8;8,1>:ud\n\
         mul (8|M0) r10.0<1>:f r3.0<8;8,1>:f r1.0<0;4,1>:f\n\
         add (8|M0) r114.0<1>:f r10.0<8;8,1>:f r1.4<0;4,1>:f\n\
         send (8|M0) null:ud r112 urb.write_hword(offset=0, interleave) mlen=3 rlen=0 hdr {EOT}\n";
    baregpu_isa::text::asm::assemble(IsaGen::Gen7, src).unwrap_or_else(|e| panic!("{e:?}\n{src}"))
}

/// Memory and a batch that runs `vertices` (x, y) of `topology` through
/// the VS with push constants `consts` (scale, offset), with `extra`
/// commands before the draw, then stores the statistics registers and
/// writes the fence. The VUE header element is `(k, 0, 0, 0)` for vertex
/// `k` when `numbered`, else zero.
fn vs_batch(
    ram: &Ram,
    vertices: &[[f32; 2]],
    consts: [f32; 8],
    numbered: bool,
    topology: u32,
    extra: &[u32],
) -> Vec<u32> {
    let n = vertices.len() as u32;
    ram.put(KERNELS, &vs_kernel());
    ram.put_dw(DYNAMIC + u64::from(CONSTANTS), &consts.map(f32::to_bits));
    for (k, &[x, y]) in vertices.iter().enumerate() {
        let id = if numbered { k as u32 } else { 0 };
        ram.put_dw(
            VB + 32 * k as u64,
            &[id, 0, 0, 0, x.to_bits(), y.to_bits(), 0, 1.0f32.to_bits()],
        );
    }
    let mut b = Vec::new();
    push(&mut b, &PipelineSelect::default());
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
            ..StateBaseAddress::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateVfStatistics {
            statistics_enable: true,
        },
    );
    // The VS's share of the push constant space and the URB, as Mesa's
    // gen7_urb.c orders them (push constants first).
    push(
        &mut b,
        &Cmd3dstatePushConstantAllocVs {
            constant_buffer_offset: 0,
            constant_buffer_size: 2,
        },
    );
    push(
        &mut b,
        &Cmd3dstateUrbVs {
            vs_urb_starting_address: 2,
            vs_urb_entry_allocation_size: 1,
            vs_number_of_urb_entries: 64,
        },
    );
    push(&mut b, &Cmd3dstateUrbHs::default());
    push(&mut b, &Cmd3dstateUrbDs::default());
    push(&mut b, &Cmd3dstateUrbGs::default());
    push(
        &mut b,
        &Cmd3dstateConstantVs {
            constant_buffer_0_read_length: 1,
            pointer_to_constant_buffer_0: u64::from(CONSTANTS),
            ..Cmd3dstateConstantVs::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateVs {
            kernel_start_pointer: 0,
            // Push constants from r1, the vertex data after them (r2).
            dispatch_grf_start_register_for_urb_data: 1,
            vertex_urb_entry_read_length: 1,
            maximum_number_of_threads: 3,
            statistics_enable: true,
            vs_function_enable: true,
            ..Cmd3dstateVs::default()
        },
    );
    // The stages the model does not run, disabled as Mesa sends them.
    push(&mut b, &Cmd3dstateHs::default());
    push(&mut b, &Cmd3dstateTe::default());
    push(&mut b, &Cmd3dstateDs::default());
    push(&mut b, &Cmd3dstateGs::default());
    push(&mut b, &Cmd3dstateStreamout::default());
    push(
        &mut b,
        &Cmd3dstateVertexBuffers {
            vertex_buffer_state: vec![Cmd3dstateVertexBuffersVertexBufferState {
                address_modify_enable: true,
                buffer_pitch: 32,
                buffer_starting_address: VB,
                end_address: VB + 32 * u64::from(n) - 1,
                ..Default::default()
            }],
        },
    );
    let element = |format: u32, offset: u32| Cmd3dstateVertexElementsVertexElementState {
        valid: true,
        source_element_format: format,
        source_element_offset: offset,
        component_0_control: 1,
        component_1_control: 1,
        component_2_control: 1,
        component_3_control: 1,
        ..Default::default()
    };
    push(
        &mut b,
        &Cmd3dstateVertexElements {
            // R32G32B32A32_UINT header, R32G32B32A32_FLOAT position.
            vertex_element_state: vec![element(0x002, 0), element(0x000, 16)],
        },
    );
    b.extend_from_slice(extra);
    push(
        &mut b,
        &Cmd3dprimitive {
            primitive_topology_type: topology,
            vertex_count_per_instance: n,
            instance_count: 1,
            ..Cmd3dprimitive::default()
        },
    );
    for (k, reg) in [IA_VERTICES_COUNT, IA_PRIMITIVES_COUNT, VS_INVOCATION_COUNT]
        .into_iter()
        .enumerate()
    {
        push(
            &mut b,
            &MiStoreRegisterMem {
                use_global_gtt: true,
                register_address: reg,
                memory_address: COUNTS + 8 * k as u64,
            },
        );
    }
    push(
        &mut b,
        &PipeControl {
            command_streamer_stall_enable: true,
            post_sync_operation: 1,
            address: FENCE,
            use_global_gtt: true,
            immediate_data_low: 0x600D,
            ..PipeControl::default()
        },
    );
    push(&mut b, &MiBatchBufferEnd {});
    b
}

/// Five vertices of TRILIST_ADJ (an incomplete triangle: nothing for the
/// raster stage): three VS threads (two pairs and one alone) run and end,
/// the statistics count every vertex and invocation and no primitive, the
/// fence lands.
#[test]
fn a_gen7_vs_draw_runs_and_counts() {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    let vertices: Vec<[f32; 2]> = (0..5).map(|k| [k as f32, 0.0]).collect();
    let batch = vs_batch(&ram, &vertices, IDENTITY, true, 0x0B, &[]);
    submit(&gpu, &ram, &batch, 4);
    assert_eq!(gpu.unmodelled(render), None);
    assert_eq!(ram.dw(FENCE), 0x600D, "{:?}", gpu.eu_report());
    assert_eq!(ram.dw(COUNTS), 5, "IA_VERTICES_COUNT");
    assert_eq!(ram.dw(COUNTS + 8), 0, "IA_PRIMITIVES_COUNT");
    assert_eq!(ram.dw(COUNTS + 16), 5, "VS_INVOCATION_COUNT");
}

/// An enabled HS stops the engine at the draw with the reason.
#[test]
fn an_enabled_hs_is_refused_with_the_reason() {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    let mut hs = Vec::new();
    push(
        &mut hs,
        &Cmd3dstateHs {
            enable: true,
            ..Cmd3dstateHs::default()
        },
    );
    let vertices = [[0.0, 0.0]; 3];
    let batch = vs_batch(&ram, &vertices, IDENTITY, true, 0x0A, &hs);
    submit(&gpu, &ram, &batch, 4);
    assert_eq!(
        gpu.unmodelled(render),
        Some("HS threads (3DSTATE_HS Enable)")
    );
    assert_eq!(ram.dw(FENCE), 0, "the engine stopped at the draw");
    let layout = baregpu_soft::layout::Layout::of(Generation::Gen7).unwrap();
    let e = layout.device.engines[render];
    let header = gpu.read32(e.base + baregpu_hal::mmio::SOFT_UNMODELLED_COMMAND);
    assert_eq!(header >> 16, 0x7B00, "3DPRIMITIVE's header");
}

// ---------------------------------------------------------------------
// A textured-rectangle copy in the order of intel-gpu-tools'
// `gen7_render_copyfunc` (lib/rendercopy_gen7.c): everything passed
// through up to the windower, RECTLIST in screen coordinates from
// R16G16_SSCALED positions, a SIMD16 pixel shader that interpolates the
// texture coordinate with `pln`, samples the source (nearest,
// unnormalised) and writes the colour headerless. The shader is this
// project's own Gen7 assembly.

/// The state object (surface, dynamic and instruction base, as igt
/// points all three at its batch) and the two surfaces.
const STATE: u64 = 0x40_0000;
const SRC: u64 = 0x60_0000;
const DST: u64 = 0x70_0000;
const SW: u32 = 32;
const SH: u32 = 16;

/// The pixel shader: attribute 0 (setup data in r6) interpolated from the
/// perspective barycentrics (r2-r5), sampled from binding 1 with sampler
/// 0, written to binding 0; payloads in r112 and up (Gen7 has no MRF).
const PS: &str = "
pln (8|M0) r113<1>:f r6.0<0;1,0>:f r2<8;8,1>:f
pln (8|M8) r114<1>:f r6.0<0;1,0>:f r4<8;8,1>:f
pln (8|M0) r115<1>:f r6.4<0;1,0>:f r2<8;8,1>:f
pln (8|M8) r116<1>:f r6.4<0;1,0>:f r4<8;8,1>:f
(W) mov (8|M0) r112<1>:ud r0<8;8,1>:ud
(W) mov (1|M0) r112.2<1>:ud 0x0:ud
send (16|M0) r14:uw r112 sampler.sample(bti=1, sampler=0, simd=16) mlen=5 rlen=8 hdr
mov (16|M0) r114<1>:f r14<8;8,1>:f
mov (16|M0) r116<1>:f r16<8;8,1>:f
mov (16|M0) r118<1>:f r18<8;8,1>:f
mov (16|M0) r120<1>:f r20<8;8,1>:f
send (16|M0) null:ud r114 rc.rt_write(bti=0, mode=simd16, last) mlen=8 rlen=0 {EOT}
";

fn pack_at<P: Packet>(ram: &Ram, at: u64, p: &P) {
    let mut out = vec![0; p.dwords()];
    p.pack(&mut out).unwrap();
    ram.put_dw(at, &out);
}

/// The copy of the `w` x `h` rectangle at (`sx`, `sy`) of the source to
/// (`dx`, `dy`) of the destination: memory, state and the batch.
fn rendercopy(
    ram: &Ram,
    (sx, sy): (u32, u32),
    (w, h): (u32, u32),
    (dx, dy): (u32, u32),
) -> Vec<u32> {
    use baregpu_hal::gen7::structs::{BlendState, CcViewport, RenderSurfaceState, SamplerState};
    // State offsets within STATE.
    const PS_KSP: u32 = 0x0;
    const SURFACE_DST: u32 = 0x400;
    const SURFACE_SRC: u32 = 0x420;
    const TABLE: u32 = 0x440;
    const SAMPLER: u32 = 0x460;
    const CC_VP: u32 = 0x480;
    const BLEND: u32 = 0x4C0;
    const VERTICES: u32 = 0x500;
    const DS_STATE: u32 = 0x540;
    const CC_STATE: u32 = 0x580;
    ram.put(
        STATE + u64::from(PS_KSP),
        &baregpu_isa::text::asm::assemble(IsaGen::Gen7, PS)
            .unwrap_or_else(|e| panic!("{e:?}\n{PS}")),
    );
    // B8G8R8A8_UNORM (0x0C0) 2D linear surfaces.
    let surface = |base: u64| RenderSurfaceState {
        surface_type: 1,
        surface_format: 0x0C0,
        surface_base_address: base,
        width: SW - 1,
        height: SH - 1,
        surface_pitch: SW * 4 - 1,
        ..Default::default()
    };
    pack_at(ram, STATE + u64::from(SURFACE_DST), &surface(DST));
    pack_at(ram, STATE + u64::from(SURFACE_SRC), &surface(SRC));
    ram.put_dw(STATE + u64::from(TABLE), &[SURFACE_DST, SURFACE_SRC]);
    // Nearest, clamped, unnormalised coordinates (TEXCOORDMODE_CLAMP 2).
    pack_at(
        ram,
        STATE + u64::from(SAMPLER),
        &SamplerState {
            non_normalized_coordinate_enable: true,
            tcx_address_control_mode: 2,
            tcy_address_control_mode: 2,
            tcz_address_control_mode: 2,
            ..Default::default()
        },
    );
    pack_at(
        ram,
        STATE + u64::from(CC_VP),
        &CcViewport {
            minimum_depth: -1e35,
            maximum_depth: 1e35,
        },
    );
    // ONE, ZERO, ADD with both clamps, as igt's blend state.
    pack_at(
        ram,
        STATE + u64::from(BLEND),
        &BlendState {
            source_blend_factor: 1,
            destination_blend_factor: 0x11,
            pre_blend_color_clamp_enable: true,
            post_blend_color_clamp_enable: true,
            ..Default::default()
        },
    );
    // Three corners: (dx+w, dy+h), (dx, dy+h), (dx, dy), each with its
    // source texel coordinate, as 16-bit integers.
    let v: [u16; 12] = [
        (dx + w) as u16,
        (dy + h) as u16,
        (sx + w) as u16,
        (sy + h) as u16,
        dx as u16,
        (dy + h) as u16,
        sx as u16,
        (sy + h) as u16,
        dx as u16,
        dy as u16,
        sx as u16,
        sy as u16,
    ];
    let vb: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    ram.put(STATE + u64::from(VERTICES), &vb);
    // Depth, stencil and colour-calculator state all off.
    ram.put_dw(STATE + u64::from(DS_STATE), &[0; 3]);
    ram.put_dw(STATE + u64::from(CC_STATE), &[0; 6]);

    let mut b = Vec::new();
    push(&mut b, &PipelineSelect::default());
    push(
        &mut b,
        &StateBaseAddress {
            general_state_base_address_modify_enable: true,
            surface_state_base_address: STATE,
            surface_state_base_address_modify_enable: true,
            dynamic_state_base_address: STATE,
            dynamic_state_base_address_modify_enable: true,
            indirect_object_base_address_modify_enable: true,
            instruction_base_address: STATE,
            instruction_base_address_modify_enable: true,
            dynamic_state_access_upper_bound_modify_enable: true,
            instruction_access_upper_bound_modify_enable: true,
            ..StateBaseAddress::default()
        },
    );
    push(&mut b, &Cmd3dstateMultisample::default());
    push(&mut b, &Cmd3dstateSampleMask { sample_mask: 1 });
    push(
        &mut b,
        &Cmd3dstatePushConstantAllocPs {
            constant_buffer_offset: 0,
            constant_buffer_size: 8,
        },
    );
    push(
        &mut b,
        &Cmd3dstateUrbVs {
            vs_urb_starting_address: 1,
            vs_urb_entry_allocation_size: 1,
            vs_number_of_urb_entries: 64,
        },
    );
    push(
        &mut b,
        &Cmd3dstateUrbHs {
            hs_urb_starting_address: 2,
            ..Default::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateUrbDs {
            ds_urb_starting_address: 2,
            ..Default::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateUrbGs {
            gs_urb_starting_address: 1,
            ..Default::default()
        },
    );
    push(&mut b, &Cmd3dstateVs::default());
    push(&mut b, &Cmd3dstateHs::default());
    push(&mut b, &Cmd3dstateTe::default());
    push(&mut b, &Cmd3dstateDs::default());
    push(&mut b, &Cmd3dstateGs::default());
    push(&mut b, &Cmd3dstateClip::default());
    push(&mut b, &Cmd3dstateViewportStatePointersSfClip::default());
    push(
        &mut b,
        &Cmd3dstateSf {
            // CULLMODE_NONE (1), trifan provoking vertex 2.
            cull_mode: 1,
            triangle_fan_provoking_vertex_select: 2,
            ..Default::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateWm {
            thread_dispatch_enable: true,
            // BIM_PERSPECTIVE_PIXEL.
            barycentric_interpolation_mode: 1,
            ..Default::default()
        },
    );
    push(&mut b, &Cmd3dstateStreamout::default());
    push(
        &mut b,
        &Cmd3dstateDepthBuffer {
            // SURFTYPE_NULL (7), D32_FLOAT (1).
            surface_type: 7,
            surface_format: 1,
            ..Default::default()
        },
    );
    push(&mut b, &Cmd3dstateClearParams::default());
    push(
        &mut b,
        &Cmd3dstateBlendStatePointers {
            blend_state_pointer: BLEND,
            must_be_one: true,
        },
    );
    push(
        &mut b,
        &Cmd3dstateViewportStatePointersCc {
            cc_viewport_pointer: CC_VP,
        },
    );
    // Not in igt's batch: igt leaves the depth-stencil and colour-calculator
    // pointers at their context values (0, which on hardware reads the
    // start of its batch as the state: depth and stencil happen to be
    // off there); the model's output merger refuses a render-target write
    // without DEPTH_STENCIL_STATE loaded, so they are sent here, all off.
    push(
        &mut b,
        &Cmd3dstateDepthStencilStatePointers {
            pointer_to_depth_stencil_state: DS_STATE,
            must_be_one: true,
        },
    );
    push(
        &mut b,
        &Cmd3dstateCcStatePointers {
            color_calc_state_pointer: CC_STATE,
            must_be_one: true,
        },
    );
    push(
        &mut b,
        &Cmd3dstateSamplerStatePointersPs {
            pointer_to_ps_sampler_state: SAMPLER,
        },
    );
    push(
        &mut b,
        &Cmd3dstateSbe {
            number_of_sf_output_attributes: 1,
            vertex_urb_entry_read_length: 1,
            vertex_urb_entry_read_offset: 1,
            ..Default::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstatePs {
            kernel_start_pointer_0: PS_KSP,
            sampler_count: 1,
            binding_table_entry_count: 2,
            maximum_number_of_threads: 40,
            pixel_dispatch_enable_16: true,
            attribute_enable: true,
            dispatch_grf_start_register_for_constant_setup_data_0: 6,
            ..Default::default()
        },
    );
    // The VUE: a zero header, the position (x, y, 0, 1.0), the texel
    // coordinate (s, t, 0, 1.0); R32G32B32A32_FLOAT (0x000) and
    // R16G16_SSCALED (0x0F6).
    let element =
        |format: u32, offset: u32, ctl: [u32; 4]| Cmd3dstateVertexElementsVertexElementState {
            valid: true,
            source_element_format: format,
            source_element_offset: offset,
            component_0_control: ctl[0],
            component_1_control: ctl[1],
            component_2_control: ctl[2],
            component_3_control: ctl[3],
            ..Default::default()
        };
    push(
        &mut b,
        &Cmd3dstateVertexElements {
            vertex_element_state: vec![
                element(0x000, 0, [2, 2, 2, 2]),
                element(0x0F6, 0, [1, 1, 2, 3]),
                element(0x0F6, 4, [1, 1, 2, 3]),
            ],
        },
    );
    push(
        &mut b,
        &Cmd3dstateVertexBuffers {
            vertex_buffer_state: vec![Cmd3dstateVertexBuffersVertexBufferState {
                address_modify_enable: true,
                buffer_pitch: 8,
                buffer_starting_address: STATE + u64::from(VERTICES),
                end_address: 0xFFFF_FFFF,
                ..Default::default()
            }],
        },
    );
    push(
        &mut b,
        &Cmd3dstateBindingTablePointersPs {
            pointer_to_ps_binding_table: TABLE,
        },
    );
    push(
        &mut b,
        &Cmd3dstateDrawingRectangle {
            clipped_drawing_rectangle_x_max: SW - 1,
            clipped_drawing_rectangle_y_max: SH - 1,
            ..Default::default()
        },
    );
    push(
        &mut b,
        &Cmd3dprimitive {
            primitive_topology_type: 0x0F,
            vertex_count_per_instance: 3,
            instance_count: 1,
            ..Cmd3dprimitive::default()
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
    b
}

/// The source texel (x, y): every byte different.
fn texel(x: u32, y: u32) -> u32 {
    (x * 7 + y * 131) | (y * 3 + 1) << 8 | (x ^ y) << 16 | (0x80 | x) << 24
}

#[test]
fn an_igt_style_gen7_rendercopy_copies_exactly() {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    for y in 0..SH {
        for x in 0..SW {
            ram.put_dw(SRC + u64::from(4 * (y * SW + x)), &[texel(x, y)]);
            ram.put_dw(DST + u64::from(4 * (y * SW + x)), &[0xDEAD_BEEF]);
        }
    }
    let (src, size, dst) = ((3, 2), (10, 7), (12, 5));
    let batch = rendercopy(&ram, src, size, dst);
    submit(&gpu, &ram, &batch, 8);
    assert_eq!(gpu.unmodelled(render), None);
    assert_eq!(ram.dw(FENCE), 0x600D, "{:?}", gpu.eu_report());
    for y in 0..SH {
        for x in 0..SW {
            let inside =
                (dst.0..dst.0 + size.0).contains(&x) && (dst.1..dst.1 + size.1).contains(&y);
            let want = if inside {
                texel(x - dst.0 + src.0, y - dst.1 + src.1)
            } else {
                0xDEAD_BEEF
            };
            assert_eq!(
                ram.dw(DST + u64::from(4 * (y * SW + x))),
                want,
                "({x}, {y})"
            );
        }
    }
}

// ---------------------------------------------------------------------
// A triangle through the real VS and the raster stage, checked pixel by
// pixel against a host reference of its coverage (pixel centres, the
// top-left rule).

const W: u32 = 16;
const H: u32 = 16;

/// Whether the pixel centre (px, py) is in the triangle `t` (screen
/// coordinates, y down), edges by the top-left rule.
fn covered(t: [[f32; 2]; 3], px: f32, py: f32) -> bool {
    let area =
        (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (t[1][1] - t[0][1]) * (t[2][0] - t[0][0]);
    if area == 0.0 {
        return false;
    }
    let t = if area < 0.0 { [t[0], t[2], t[1]] } else { t };
    (0..3).all(|k| {
        let (a, b) = (t[k], t[(k + 1) % 3]);
        let e = (b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0]);
        if e != 0.0 {
            return e > 0.0;
        }
        // A top edge runs left to right, a left edge upwards.
        (a[1] == b[1] && b[0] > a[0]) || b[1] < a[1]
    })
}

/// The SIMD16 pixel shader writing one colour, headerless, from r114.
fn solid_ps(rgba: [f32; 4]) -> Vec<u8> {
    let src = format!(
        "mov (16|M0) r114<1>:f {:#x}:f\n\
         mov (16|M0) r116<1>:f {:#x}:f\n\
         mov (16|M0) r118<1>:f {:#x}:f\n\
         mov (16|M0) r120<1>:f {:#x}:f\n\
         send (16|M0) null:ud r114 rc.rt_write(bti=0, mode=simd16, last) mlen=8 rlen=0 {{EOT}}\n",
        rgba[0].to_bits(),
        rgba[1].to_bits(),
        rgba[2].to_bits(),
        rgba[3].to_bits()
    );
    baregpu_isa::text::asm::assemble(IsaGen::Gen7, &src).unwrap_or_else(|e| panic!("{e:?}\n{src}"))
}

/// 8X sample offsets in 16ths, ordered by distance from the centre.
const OFFSETS_8X: [(u32, u32); 8] = [
    (9, 9),
    (7, 5),
    (12, 7),
    (3, 10),
    (5, 13),
    (10, 2),
    (1, 4),
    (14, 14),
];

/// The raster and output state of the triangle draw, as commands; the
/// indirect state written to memory. With `ms8`: 8X, MSRASTMODE_ON_PATTERN
/// at [`OFFSETS_8X`], per-pixel dispatch, and an MSFMT_MSS target (its
/// samples in array slices H rows apart, ARYSPC_LOD0 with VALIGN_2).
fn raster_commands(ram: &Ram, ps_ksp: u32, ms8: bool) -> Vec<u32> {
    use baregpu_hal::gen7::structs::{BlendState, CcViewport, RenderSurfaceState, SfClipViewport};
    pack_at(
        ram,
        DYNAMIC + u64::from(SF_CLIP_VP),
        &SfClipViewport {
            viewport_matrix_element_m00: W as f32 / 2.0,
            viewport_matrix_element_m11: -(H as f32) / 2.0,
            viewport_matrix_element_m22: 1.0,
            viewport_matrix_element_m30: W as f32 / 2.0,
            viewport_matrix_element_m31: H as f32 / 2.0,
            x_min_clip_guardband: -1.0,
            x_max_clip_guardband: 1.0,
            y_min_clip_guardband: -1.0,
            y_max_clip_guardband: 1.0,
            ..Default::default()
        },
    );
    pack_at(
        ram,
        DYNAMIC + u64::from(CC_VP),
        &CcViewport {
            minimum_depth: 0.0,
            maximum_depth: 1.0,
        },
    );
    pack_at(
        ram,
        DYNAMIC + u64::from(BLEND),
        &BlendState {
            pre_blend_color_clamp_enable: true,
            post_blend_color_clamp_enable: true,
            ..Default::default()
        },
    );
    ram.put_dw(DYNAMIC + u64::from(DEPTH_STENCIL), &[0; 3]);
    ram.put_dw(DYNAMIC + u64::from(COLOR_CALC), &[0; 6]);
    ram.put_dw(SURFACES, &[0x40]);
    pack_at(
        ram,
        SURFACES + 0x40,
        &RenderSurfaceState {
            surface_type: 1,
            surface_format: 0x0C0,
            surface_base_address: RT,
            width: W - 1,
            height: H - 1,
            surface_pitch: W * 4 - 1,
            number_of_multisamples: if ms8 { 3 } else { 0 },
            surface_array_spacing: u32::from(ms8),
            ..Default::default()
        },
    );
    let mut b = Vec::new();
    let o = |k: usize| OFFSETS_8X[k];
    push(
        &mut b,
        &if ms8 {
            Cmd3dstateMultisample {
                number_of_multisamples: 3,
                sample0_x_offset: o(0).0,
                sample0_y_offset: o(0).1,
                sample1_x_offset: o(1).0,
                sample1_y_offset: o(1).1,
                sample2_x_offset: o(2).0,
                sample2_y_offset: o(2).1,
                sample3_x_offset: o(3).0,
                sample3_y_offset: o(3).1,
                sample4_x_offset: o(4).0,
                sample4_y_offset: o(4).1,
                sample5_x_offset: o(5).0,
                sample5_y_offset: o(5).1,
                sample6_x_offset: o(6).0,
                sample6_y_offset: o(6).1,
                sample7_x_offset: o(7).0,
                sample7_y_offset: o(7).1,
                ..Default::default()
            }
        } else {
            Cmd3dstateMultisample::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateSampleMask {
            sample_mask: if ms8 { 0xff } else { 1 },
        },
    );
    push(
        &mut b,
        &Cmd3dstateClip {
            clipper_statistics_enable: true,
            ..Default::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateViewportStatePointersSfClip {
            sf_clip_viewport_pointer: SF_CLIP_VP,
        },
    );
    push(
        &mut b,
        &Cmd3dstateViewportStatePointersCc {
            cc_viewport_pointer: CC_VP,
        },
    );
    push(
        &mut b,
        &Cmd3dstateSf {
            viewport_transform_enable: true,
            statistics_enable: true,
            cull_mode: 1,
            multisample_rasterization_mode: if ms8 { 3 } else { 0 },
            ..Default::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateSbe {
            vertex_urb_entry_read_length: 1,
            vertex_urb_entry_read_offset: 1,
            ..Default::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateWm {
            statistics_enable: true,
            thread_dispatch_enable: true,
            multisample_rasterization_mode: if ms8 { 3 } else { 0 },
            multisample_dispatch_mode: u32::from(ms8), // PERPIXEL
            ..Default::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstatePs {
            kernel_start_pointer_0: ps_ksp,
            binding_table_entry_count: 1,
            maximum_number_of_threads: 40,
            pixel_dispatch_enable_16: true,
            dispatch_grf_start_register_for_constant_setup_data_0: 2,
            ..Default::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateDepthBuffer {
            surface_type: 7,
            surface_format: 1,
            ..Default::default()
        },
    );
    push(&mut b, &Cmd3dstateClearParams::default());
    push(
        &mut b,
        &Cmd3dstateBlendStatePointers {
            blend_state_pointer: BLEND,
            must_be_one: true,
        },
    );
    push(
        &mut b,
        &Cmd3dstateDepthStencilStatePointers {
            pointer_to_depth_stencil_state: DEPTH_STENCIL,
            must_be_one: true,
        },
    );
    push(
        &mut b,
        &Cmd3dstateCcStatePointers {
            color_calc_state_pointer: COLOR_CALC,
            must_be_one: true,
        },
    );
    push(
        &mut b,
        &Cmd3dstateBindingTablePointersPs {
            pointer_to_ps_binding_table: 0,
        },
    );
    push(
        &mut b,
        &Cmd3dstateDrawingRectangle {
            clipped_drawing_rectangle_x_max: W - 1,
            clipped_drawing_rectangle_y_max: H - 1,
            ..Default::default()
        },
    );
    b
}

/// A TRILIST triangle in pixels, mapped to NDC by the VS's push constants
/// (x * 2/W - 1, y * -2/H + 1), back to pixels by the viewport.
#[test]
fn a_triangle_through_a_gen7_vs_matches_the_host_coverage() {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    const PS_KSP: u32 = 0x1000;
    ram.put(KERNELS + u64::from(PS_KSP), &solid_ps([1.0, 0.0, 0.2, 1.0]));
    ram.put(RT, &[0x11; (W * H * 4) as usize]);
    let tri = [[2.5, 1.5], [14.5, 1.5], [2.5, 13.5]];
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
    let raster = raster_commands(&ram, PS_KSP, false);
    let batch = vs_batch(&ram, &tri, consts, false, 0x04, &raster);
    submit(&gpu, &ram, &batch, 20);
    assert_eq!(gpu.unmodelled(render), None);
    assert_eq!(ram.dw(FENCE), 0x600D, "{:?}", gpu.eu_report());
    let mut lit = 0u32;
    for y in 0..H {
        for x in 0..W {
            let got = ram.dw(RT + u64::from(4 * (y * W + x)));
            let want = if covered(tri, x as f32 + 0.5, y as f32 + 0.5) {
                lit += 1;
                // B8G8R8A8: B 0.2 -> 51, R 1.0 -> 255.
                u32::from_le_bytes([51, 0, 255, 255])
            } else {
                0x1111_1111
            };
            assert_eq!(got, want, "pixel ({x}, {y})");
        }
    }
    assert_eq!(lit, (1..=12).sum::<u32>());
    assert_eq!(
        [ram.dw(COUNTS), ram.dw(COUNTS + 8), ram.dw(COUNTS + 16)],
        [3, 1, 3],
        "IA vertices, IA primitives, VS invocations"
    );
    assert_eq!(gpu.read32(0x2348), lit, "PS_INVOCATION_COUNT");
}

/// The same triangle 8X into an MSFMT_MSS target: sample s of each pixel,
/// in array slice s (H rows further), holds the colour exactly when the
/// host's top-left rule covers the sample at its programmed offset (003
/// lines 41590-42163; layout Mesa src/intel/isl ISL_MSAA_LAYOUT_ARRAY).
#[test]
fn an_8x_triangle_fills_the_covered_samples_of_each_slice() {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    const PS_KSP: u32 = 0x1000;
    ram.put(KERNELS + u64::from(PS_KSP), &solid_ps([1.0, 0.0, 0.2, 1.0]));
    ram.put(RT, &[0x11; (8 * W * H * 4) as usize]);
    let tri = [[2.5, 1.5], [14.5, 1.5], [2.5, 13.5]];
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
    let raster = raster_commands(&ram, PS_KSP, true);
    let batch = vs_batch(&ram, &tri, consts, false, 0x04, &raster);
    submit(&gpu, &ram, &batch, 20);
    assert_eq!(gpu.unmodelled(render), None);
    assert_eq!(ram.dw(FENCE), 0x600D, "{:?}", gpu.eu_report());
    let mut partial = 0;
    for y in 0..H {
        for x in 0..W {
            let mut n = 0;
            for (s, &(ox, oy)) in OFFSETS_8X.iter().enumerate() {
                let at = RT + u64::from(4 * ((y + s as u32 * H) * W + x));
                let inside = covered(
                    tri,
                    x as f32 + ox as f32 / 16.0,
                    y as f32 + oy as f32 / 16.0,
                );
                let want = if inside {
                    n += 1;
                    u32::from_le_bytes([51, 0, 255, 255])
                } else {
                    0x1111_1111
                };
                assert_eq!(ram.dw(at), want, "pixel ({x}, {y}) sample {s}");
            }
            partial += usize::from(n != 0 && n != 8);
        }
    }
    assert!(partial > 8, "{partial}");
}
