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

// ---------------------------------------------------------------------
// HiZ and fast clears as Mesa's Ivy Bridge drivers use them, in one
// batch: a render-target fast clear of a Y-tiled MCS target, a depth
// clear pass of a HiZ depth buffer, a depth-tested triangle, a depth
// resolve and a render-target resolve. The model keeps both surfaces
// resolved, so what the batch leaves is what the hardware's resolves
// leave: the clear colour and depth where the triangle is not.

const DEPTHBUF: u64 = 0xA0_0000;
const HIZ: u64 = 0xA1_0000;
const MCS: u64 = 0xA2_0000;

/// Byte offset of pixel (x, y) in a Y-tiled surface of one tile's width
/// (128 bytes a row): 16-byte columns of 32 rows (003 lines 7382-7476).
fn y_tiled(x: u32, y: u32) -> u64 {
    let xb = u64::from(4 * x);
    (xb / 16) * 512 + u64::from(y) * 16 + xb % 16
}

/// The triangle the HiZ scene draws, in pixels.
const AUX_TRI: [[f32; 2]; 3] = [[2.5, 1.5], [14.5, 1.5], [2.5, 13.5]];

/// Memory and the batch of the HiZ and fast-clear scene (see below).
fn aux_scene(ram: &Ram) -> Vec<u32> {
    use baregpu_hal::gen7::structs::{DepthStencilState, RenderSurfaceState};
    const PS_KSP: u32 = 0x1000;
    ram.put(KERNELS + u64::from(PS_KSP), &solid_ps([0.0, 1.0, 0.0, 1.0]));
    ram.put(RT, &[0x11; 4096]);
    ram.put(DEPTHBUF, &[0x22; 4096]);
    let mut b = raster_commands(ram, PS_KSP, false);
    // The target again, Y tiled with an MCS and the clear colour (R, G, B,
    // A) = (1, 0, 1, 1).
    pack_at(
        ram,
        SURFACES + 0x40,
        &RenderSurfaceState {
            surface_type: 1,
            surface_format: 0x0C0,
            surface_base_address: RT,
            width: W - 1,
            height: H - 1,
            surface_pitch: 127,
            tiled_surface: true,
            tile_walk: 1,
            surface_vertical_alignment: 1,
            mcs_enable: true,
            mcs_base_address: MCS,
            red_clear_color: 1,
            blue_clear_color: 1,
            alpha_clear_color: 1,
            ..Default::default()
        },
    );
    // A D32_FLOAT depth buffer with HiZ; the clear value 0.75.
    push(
        &mut b,
        &Cmd3dstateDepthBuffer {
            surface_type: 1,
            depth_write_enable: true,
            hierarchical_depth_buffer_enable: true,
            surface_format: 1,
            surface_pitch: 127,
            surface_base_address: DEPTHBUF,
            width: W - 1,
            height: H - 1,
            ..Default::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateHierDepthBuffer {
            surface_pitch: 127,
            surface_base_address: HIZ,
            ..Default::default()
        },
    );
    push(&mut b, &Cmd3dstateStencilBuffer::default());
    push(
        &mut b,
        &Cmd3dstateClearParams {
            depth_clear_value: 0.75f32.to_bits(),
            depth_clear_value_valid: true,
        },
    );
    // Depth-stencil states: writes only, LESS with writes, NEVER with
    // writes (the depth resolve's).
    let ds = [(false, 0), (true, 2), (true, 1)];
    for (k, &(test, func)) in ds.iter().enumerate() {
        pack_at(
            ram,
            DYNAMIC + 0x400 + 0x40 * k as u64,
            &DepthStencilState {
                depth_test_enable: test,
                depth_test_function: func,
                depth_buffer_write_enable: true,
                ..Default::default()
            },
        );
    }
    let pass = |b: &mut Vec<u32>, ds: usize, dispatch: bool, wm: Cmd3dstateWm, ps: (bool, bool)| {
        push(
            b,
            &Cmd3dstateDepthStencilStatePointers {
                pointer_to_depth_stencil_state: 0x400 + 0x40 * ds as u32,
                must_be_one: true,
            },
        );
        push(
            b,
            &Cmd3dstateWm {
                statistics_enable: true,
                thread_dispatch_enable: dispatch,
                ..wm
            },
        );
        push(
            b,
            &Cmd3dstatePs {
                kernel_start_pointer_0: PS_KSP,
                binding_table_entry_count: 1,
                maximum_number_of_threads: 40,
                pixel_dispatch_enable_16: true,
                dispatch_grf_start_register_for_constant_setup_data_0: 2,
                render_target_fast_clear_enable: ps.0,
                render_target_resolve_enable: ps.1,
                ..Default::default()
            },
        );
    };
    let draw = |b: &mut Vec<u32>, first: u32| {
        push(
            b,
            &Cmd3dprimitive {
                primitive_topology_type: 0x04,
                vertex_count_per_instance: 3,
                start_vertex_location: first,
                instance_count: 1,
                ..Cmd3dprimitive::default()
            },
        );
    };
    // Fast clear: the scaled-down rectangle's pixel (0, 0) stands for a
    // 64 x 64 block, the whole 16 x 16 target.
    pass(&mut b, 0, true, Cmd3dstateWm::default(), (true, false));
    draw(&mut b, 0);
    // Depth clear over the whole buffer, no pixel shader.
    let clear = Cmd3dstateWm {
        depth_buffer_clear: true,
        ..Default::default()
    };
    pass(&mut b, 0, false, clear, (false, false));
    draw(&mut b, 3);
    // The triangle, depth 0 against 0.75: LESS passes.
    pass(&mut b, 1, true, Cmd3dstateWm::default(), (false, false));
    draw(&mut b, 6);
    // Depth resolve (test NEVER, writes on), then the render-target
    // resolve: vs_batch's own draw of all nine vertices.
    let resolve = Cmd3dstateWm {
        depth_buffer_resolve_enable: true,
        ..Default::default()
    };
    pass(&mut b, 2, false, resolve, (false, false));
    draw(&mut b, 3);
    pass(&mut b, 0, true, Cmd3dstateWm::default(), (false, true));
    let tri = AUX_TRI;
    let vertices = [
        [0.0, 0.0],
        [2.0, 0.0],
        [0.0, 2.0],
        [0.0, 0.0],
        [40.0, 0.0],
        [0.0, 40.0],
        tri[0],
        tri[1],
        tri[2],
    ];
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
    vs_batch(ram, &vertices, consts, false, 0x04, &b)
}

#[test]
fn fast_clears_and_hiz_passes_leave_the_resolved_surfaces() {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    let tri = AUX_TRI;
    let batch = aux_scene(&ram);
    submit(&gpu, &ram, &batch, 40);
    assert_eq!(gpu.unmodelled(render), None);
    assert_eq!(ram.dw(FENCE), 0x600D, "{:?}", gpu.eu_report());
    for y in 0..H {
        for x in 0..W {
            let inside = covered(tri, x as f32 + 0.5, y as f32 + 0.5);
            // B8G8R8A8: the triangle green, the clear colour magenta.
            let want = if inside {
                [0, 255, 0, 255]
            } else {
                [255, 0, 255, 255]
            };
            let got = ram.dw(RT + y_tiled(x, y)).to_le_bytes();
            assert_eq!(got, want, "colour at ({x}, {y})");
            let z = f32::from_bits(ram.dw(DEPTHBUF + y_tiled(x, y)));
            assert_eq!(z, if inside { 0.0 } else { 0.75 }, "depth at ({x}, {y})");
        }
    }
}

/// A draw whose state breaks a rule of the manual stops the engine with an
/// instruction error, and the model keeps the rule for the host.
#[test]
fn an_invalid_draw_names_the_rule_it_breaks() {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    const PS_KSP: u32 = 0x1000;
    ram.put(KERNELS + u64::from(PS_KSP), &solid_ps([1.0; 4]));
    let mut b = raster_commands(&ram, PS_KSP, false);
    // Depth buffer clear and resolve at once (003 lines 40034-40036).
    push(
        &mut b,
        &Cmd3dstateWm {
            statistics_enable: true,
            depth_buffer_clear: true,
            depth_buffer_resolve_enable: true,
            ..Default::default()
        },
    );
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
    let batch = vs_batch(&ram, &AUX_TRI, consts, false, 0x04, &b);
    submit(&gpu, &ram, &batch, 20);
    assert_ne!(ram.dw(FENCE), 0x600D, "the draw must not complete");
    assert_eq!(gpu.unmodelled(render), None);
    let why = gpu.invalid(render).expect("the rule is kept");
    assert!(why.contains("more than one of depth buffer clear"), "{why}");
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

/// Real Ivy Bridge 3D batches with a few bits of their commands or of the
/// state they point at changed at random: whatever the change, the model
/// finishes, refuses or stops within its budget, never panics, and keeps
/// answering MMIO. The seeds are the igt-style copy and the HiZ and
/// fast-clear scene.
#[test]
fn mutated_gen7_3d_batches_never_panic() {
    let mut rng = Rng(0x3D_5EED);
    for round in 0..160 {
        let ram = Ram::new();
        let (gpu, render) = gpu(&ram);
        let mut batch = if round % 2 == 0 {
            rendercopy(&ram, (3, 2), (10, 7), (12, 5))
        } else {
            aux_scene(&ram)
        };
        for _ in 0..1 + rng.next() % 4 {
            let k = (rng.next() % batch.len() as u64) as usize;
            batch[k] ^= 1 << (rng.next() % 32);
            if rng.next().is_multiple_of(3) {
                batch[k] = rng.next() as u32;
            }
        }
        // The state the batch points at: dynamic state, surface state.
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
        // Still a device: its registers answer.
        let _ = gpu.unmodelled(render);
        let _ = gpu.read32(0x2348);
    }
}

// ---------------------------------------------------------------------
// Ivy Bridge GS threads and stream output. The GS kernels are this
// project's Gen7 assembly in the shape of Mesa's vec4 GS back end
// (elk_vec4_gs_visitor.cpp): each vertex written with an interleaved
// URB_WRITE_HWORD from r112 (g0 as the header, M0.5 ORed with 0xff00, the
// per-slot offsets M0.3/M0.4 the vertex number times the vertex size in
// 256-bit units, the global offset the control data header size), the
// control data header with URB_WRITE_OWORD, and an mlen 1 URB write with
// the vertex counts in M0.2 that ends the thread. The kernels are written
// in Align1 over the SIMD4x2 layout (channels 0-3 slot 0, 4-7 slot 1),
// which the model runs as Mesa's Align16 code would.

/// The GS kernel's offset from the instruction base.
const GS_KSP: u32 = 0x2000;
/// Stream-output buffers.
const SO0: u64 = 0x90_0000;
const SO1: u64 = 0x90_1000;

/// Linux i915_reg.h GS_INVOCATION_COUNT, GS_PRIMITIVES_COUNT,
/// CL_INVOCATION_COUNT, GEN7_SO_NUM_PRIMS_WRITTEN(0),
/// GEN7_SO_PRIM_STORAGE_NEEDED(0), GEN7_SO_WRITE_OFFSET(0).
const GS_INVOCATION_COUNT: u32 = 0x2328;
const GS_PRIMITIVES_COUNT: u32 = 0x2330;
const CL_INVOCATION_COUNT: u32 = 0x2338;
const SO_NUM_PRIMS_WRITTEN0: u32 = 0x5200;
const SO_PRIM_STORAGE_NEEDED0: u32 = 0x5240;
const SO_WRITE_OFFSET0: u32 = 0x5280;

fn gs_asm(src: &str) -> Vec<u8> {
    baregpu_isa::text::asm::assemble(IsaGen::Gen7, src).unwrap_or_else(|e| panic!("{e:?}\n{src}"))
}

/// The header of every URB write (r112: g0, channel masks on).
const GS_HEADER: &str = "mov (8|M0) r112.0<1>:ud r0.0<8;8,1>:ud {NoMask}\n\
     or (1|M0) r112.5<1>:ud r0.5<0;1,0>:ud 0xff00:ud {NoMask}\n";

/// Writes vertex `n` (its two 128-bit attributes already in r113, r114)
/// after a control data header of `header` 256-bit units.
fn gs_emit(n: u32, header: u32) -> String {
    format!(
        "mov (2|M0) r112.3<1>:ud {n:#x}:ud {{NoMask}}\n\
         send (8|M0) null:ud r112 urb.write_hword(offset={header}, interleave, per_slot) mlen=3 rlen=0 hdr\n"
    )
}

/// Ends the thread: vertex counts `slot0` and `slot1` in M0.2.
fn gs_end(slot0: u32, slot1: u32) -> String {
    format!(
        "mov (8|M0) r120.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}\n\
         mov (1|M0) r120.2<1>:ud {:#x}:ud {{NoMask}}\n\
         send (8|M0) null:ud r120 urb.write_hword(offset=0, interleave) mlen=1 rlen=0 hdr {{EOT}}\n",
        slot0 | slot1 << 16
    )
}

/// SINGLE mode: vertex `v` of the object is r(2 + v), attribute 0 (the
/// VUE header) in its low half, 1 (the position) in its high half.
fn single_copy(v: u32) -> String {
    format!(
        "mov (4|M0) r113.0<1>:ud r{r}.0<4;4,1>:ud\n\
         mov (4|M0) r114.0<1>:ud r{r}.4<4;4,1>:ud\n",
        r = 2 + v
    )
}

/// Adds `dx` (NDC) to the x of the position in r114, both halves.
fn shift_x(dx: f32) -> String {
    format!(
        "add (1|M0) r114.0<1>:f r114.0<0;1,0>:f {b:#x}:f {{NoMask}}\n\
         add (1|M0) r114.4<1>:f r114.4<0;1,0>:f {b:#x}:f {{NoMask}}\n",
        b = dx.to_bits()
    )
}

/// The GS state: `mode` (0 SINGLE, 1 DUAL_INSTANCE, 2 DUAL_OBJECT),
/// `instances`, output `topology`, a CUT control data header of
/// `header` units; PrimitiveID in r1, the vertices from r2 (one 256-bit
/// row each), 32-byte output vertices, with its URB entries.
fn gs_state(mode: u32, instances: u32, topology: u32, header: u32) -> Vec<u32> {
    let mut b = Vec::new();
    push(
        &mut b,
        &Cmd3dstateUrbGs {
            gs_urb_starting_address: 4,
            // 512-byte entries: a 32-byte header and up to 15 vertices.
            gs_urb_entry_allocation_size: 7,
            gs_number_of_urb_entries: 8,
        },
    );
    push(
        &mut b,
        &Cmd3dstateGs {
            kernel_start_pointer: GS_KSP,
            output_vertex_size: 1,
            output_topology: topology,
            vertex_urb_entry_read_length: 1,
            dispatch_grf_start_register_for_urb_data: 2,
            maximum_number_of_threads: 3,
            control_data_header_size: header,
            instance_control: instances - 1,
            dispatch_mode: mode,
            gs_statistics_enable: true,
            include_primitive_id: true,
            gs_enable: true,
            ..Cmd3dstateGs::default()
        },
    );
    b
}

/// One SO_DECL: (buffer, hole, register, mask).
type Decl = (u32, bool, u32, u32);

/// Stream output of stream 0 into buffers `pitches` (0 off) with
/// `decls`, LEADING or TRAILING reorder, rendering disabled; buffer k at
/// SO0 + 0x1000k, `ends[k]` bytes long.
fn so_state(pitches: [u32; 2], ends: [u64; 2], decls: &[Decl], trailing: bool) -> Vec<u32> {
    let mut b = Vec::new();
    for k in 0..2 {
        if pitches[k] == 0 {
            continue;
        }
        let base = SO0 + 0x1000 * k as u64;
        push(
            &mut b,
            &Cmd3dstateSoBuffer {
                so_buffer_index: k as u32,
                surface_pitch: pitches[k],
                surface_base_address: base,
                surface_end_address: base + ends[k],
                ..Default::default()
            },
        );
    }
    push(
        &mut b,
        &Cmd3dstateSoDeclList {
            stream_to_buffer_selects_0: u32::from(pitches[0] != 0)
                | u32::from(pitches[1] != 0) << 1,
            num_entries_0: decls.len() as u32,
            so_decl_entry: decls
                .iter()
                .map(|&(slot, hole, reg, mask)| Cmd3dstateSoDeclListSoDeclEntry {
                    stream_0_output_buffer_slot: slot,
                    stream_0_hole_flag: hole,
                    stream_0_register_index: reg,
                    stream_0_component_mask: mask,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        },
    );
    push(
        &mut b,
        &Cmd3dstateStreamout {
            so_function_enable: true,
            rendering_disable: true,
            reorder_mode: u32::from(trailing),
            so_statistics_enable: true,
            so_buffer_enable_0: pitches[0] != 0,
            so_buffer_enable_1: pitches[1] != 0,
            // Two 256-bit rows: the header and the position.
            stream_0_vertex_read_length: 0,
            ..Default::default()
        },
    );
    b
}

/// MI_LOAD_REGISTER_IMM of SO_WRITE_OFFSET`k` (Gen7 header 0x11000001).
fn load_offset(k: u32, bytes: u32) -> [u32; 3] {
    [0x1100_0001, SO_WRITE_OFFSET0 + 4 * k, bytes]
}

fn f32s(ram: &Ram, at: u64, n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| f32::from_bits(ram.dw(at + 4 * i as u64)))
        .collect()
}

/// Pixels from NDC with the viewport of `raster_commands`.
fn to_pixels(t: [[f32; 2]; 3]) -> [[f32; 2]; 3] {
    t.map(|[x, y]| [(x + 1.0) * W as f32 / 2.0, (1.0 - y) * H as f32 / 2.0])
}

/// Draws `tris` (NDC) as a TRILIST through the VS and a GS running
/// `gs_src` (its state `gs`), then checks every pixel against the host
/// coverage of `expect` (NDC triangles).
fn draw_through_gs(
    tris: &[[[f32; 2]; 3]],
    gs: Vec<u32>,
    gs_src: &str,
    expect: &[[[f32; 2]; 3]],
) -> Ram {
    draw_through_gs_with(tris, gs, gs_src, expect, &|_| {})
}

/// [`draw_through_gs`] after `prepare` wrote to memory.
fn draw_through_gs_with(
    tris: &[[[f32; 2]; 3]],
    gs: Vec<u32>,
    gs_src: &str,
    expect: &[[[f32; 2]; 3]],
    prepare: &dyn Fn(&Ram),
) -> Ram {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    const PS_KSP: u32 = 0x1000;
    ram.put(KERNELS + u64::from(PS_KSP), &solid_ps([1.0, 0.0, 0.2, 1.0]));
    ram.put(KERNELS + u64::from(GS_KSP), &gs_asm(gs_src));
    ram.put(RT, &[0x11; (W * H * 4) as usize]);
    let vertices: Vec<[f32; 2]> = tris.iter().flatten().copied().collect();
    let mut extra = raster_commands(&ram, PS_KSP, false);
    extra.extend(gs);
    let batch = vs_batch(&ram, &vertices, IDENTITY, true, 0x04, &extra);
    prepare(&ram);
    submit(&gpu, &ram, &batch, 40);
    assert_eq!(gpu.unmodelled(render), None);
    assert_eq!(ram.dw(FENCE), 0x600D, "{:?}", gpu.eu_report());
    let px: Vec<[[f32; 2]; 3]> = expect.iter().map(|t| to_pixels(*t)).collect();
    for y in 0..H {
        for x in 0..W {
            let inside = px
                .iter()
                .any(|t| covered(*t, x as f32 + 0.5, y as f32 + 0.5));
            let want = if inside {
                u32::from_le_bytes([51, 0, 255, 255])
            } else {
                0x1111_1111
            };
            assert_eq!(
                ram.dw(RT + u64::from(4 * (y * W + x))),
                want,
                "pixel ({x}, {y})"
            );
        }
    }
    ram.put_dw(
        COUNTS + 0x40,
        &[
            gpu.read32(GS_INVOCATION_COUNT),
            gpu.read32(GS_PRIMITIVES_COUNT),
        ],
    );
    ram
}

const TRI_A: [[f32; 2]; 3] = [[-0.75, 0.75], [0.0, 0.75], [-0.75, 0.0]];
const TRI_B: [[f32; 2]; 3] = [[0.25, -0.25], [0.75, -0.25], [0.25, -0.75]];

fn shifted(t: [[f32; 2]; 3], dx: f32) -> [[f32; 2]; 3] {
    t.map(|[x, y]| [x + dx, y])
}

/// A SINGLE-mode GS that copies its triangle draws what the VS alone
/// draws: the host coverage of the input triangle.
#[test]
fn a_gen7_gs_passing_triangles_through_draws_them() {
    let mut src = GS_HEADER.to_string();
    for v in 0..3 {
        src += &single_copy(v);
        src += &gs_emit(v, 0);
    }
    src += &gs_end(3, 0);
    let ram = draw_through_gs(&[TRI_A], gs_state(0, 1, 0x04, 0), &src, &[TRI_A]);
    assert_eq!(
        [ram.dw(COUNTS + 0x40), ram.dw(COUNTS + 0x44)],
        [1, 1],
        "GS invocations, GS primitives"
    );
}

/// A DUAL_OBJECT GS (two triangles in one thread, one per SIMD4x2 half)
/// that emits each triangle and a copy moved right by its push constant
/// (3DSTATE_CONSTANT_GS, in r2 before the vertices): four triangles.
#[test]
fn a_dual_object_gen7_gs_emits_two_triangles_per_input() {
    const GS_CONSTANTS: u32 = 0x300;
    let dx = 0.5f32;
    let mut src = GS_HEADER.to_string();
    for copy in 0..2 {
        for v in 0..3 {
            // DUAL_OBJECT: vertex v's attributes in r(3 + 2v) and
            // r(4 + 2v), object 0 low, object 1 high.
            src += &format!(
                "mov (8|M0) r113.0<1>:ud r{}.0<8;8,1>:ud\n\
                 mov (8|M0) r114.0<1>:ud r{}.0<8;8,1>:ud\n",
                3 + 2 * v,
                4 + 2 * v
            );
            if copy == 1 {
                src += "add (1|M0) r114.0<1>:f r114.0<0;1,0>:f r2.0<0;1,0>:f {NoMask}\n\
                        add (1|M0) r114.4<1>:f r114.4<0;1,0>:f r2.0<0;1,0>:f {NoMask}\n";
            }
            src += &gs_emit(3 * copy + v, 0);
        }
    }
    src += &gs_end(6, 6);
    let mut gs = Vec::new();
    push(
        &mut gs,
        &Cmd3dstatePushConstantAllocGs {
            constant_buffer_offset: 2,
            constant_buffer_size: 1,
        },
    );
    push(
        &mut gs,
        &Cmd3dstateConstantGs {
            constant_buffer_0_read_length: 1,
            pointer_to_constant_buffer_0: u64::from(GS_CONSTANTS),
            ..Cmd3dstateConstantGs::default()
        },
    );
    gs.extend(gs_state(2, 1, 0x04, 0));
    let mut consts = [0u32; 8];
    consts[0] = dx.to_bits();
    let prepare = |ram: &Ram| ram.put_dw(DYNAMIC + u64::from(GS_CONSTANTS), &consts);
    let ram = draw_through_gs_with(
        &[TRI_A, TRI_B],
        gs,
        &src,
        &[TRI_A, TRI_B, shifted(TRI_A, dx), shifted(TRI_B, dx)],
        &prepare,
    );
    assert_eq!(
        [ram.dw(COUNTS + 0x40), ram.dw(COUNTS + 0x44)],
        [2, 4],
        "GS invocations, GS primitives"
    );
}

/// Runs `vertices` (NDC, TRILIST unless `topology`) through the VS, the
/// GS of `gs` (none when empty) and stream output `so`, rendering
/// disabled, after loading the write offsets `start`.
fn stream_out(
    vertices: &[[f32; 2]],
    topology: u32,
    gs: (Vec<u32>, &str),
    so: Vec<u32>,
    start: [u32; 2],
) -> (Ram, SoftGpu<Ram>) {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    ram.put(KERNELS + u64::from(GS_KSP), &gs_asm(gs.1));
    // Sentinels: what the SOL does not write stays.
    ram.put(SO0, &[0xEE; 0x2000]);
    let mut extra = gs.0;
    extra.extend(so);
    extra.extend(load_offset(0, start[0]));
    extra.extend(load_offset(1, start[1]));
    let batch = vs_batch(&ram, vertices, IDENTITY, true, topology, &extra);
    submit(&gpu, &ram, &batch, 40);
    assert_eq!(gpu.unmodelled(render), None);
    assert_eq!(ram.dw(FENCE), 0x600D, "{:?}", gpu.eu_report());
    assert_eq!(gpu.read32(CL_INVOCATION_COUNT), 0, "rendering disabled");
    (ram, gpu)
}

/// The triangles of a strip of `n` in the order the SOL writes them:
/// odd ones (v0, v2, v1) with LEADING, (v1, v0, v2) with TRAILING.
fn strip_order(n: usize, trailing: bool) -> Vec<usize> {
    (0..n - 2)
        .flat_map(|k| match (k % 2, trailing) {
            (0, _) => [k, k + 1, k + 2],
            (_, false) => [k, k + 2, k + 1],
            (_, true) => [k + 1, k, k + 2],
        })
        .collect()
}

/// The VS's TRISTRIP to two buffers: buffer 0 (pitch 8, from byte 8) the
/// position's x and y; buffer 1 (pitch 16) the header's first dword (the
/// vertex number), a hole, the position's w, its last dword untouched.
fn vs_stream_out(trailing: bool, end1: u64) -> (Ram, SoftGpu<Ram>, Vec<[f32; 2]>) {
    let verts: Vec<[f32; 2]> = (0..5)
        .map(|k| [k as f32 * 0.25, 1.0 - k as f32 * 0.125])
        .collect();
    let decls = [
        (0, false, 1, 0b0011),
        (1, false, 0, 0b0001),
        (1, true, 0, 0b0001),
        (1, false, 1, 0b1000),
    ];
    let so = so_state([8, 16], [0x100, end1], &decls, trailing);
    let (ram, gpu) = stream_out(&verts, 0x05, (Vec::new(), ""), so, [8, 0]);
    (ram, gpu, verts)
}

/// Checks the two buffers of [`vs_stream_out`] hold `order`'s vertices
/// and nothing after.
fn check_vs_buffers(ram: &Ram, verts: &[[f32; 2]], order: &[usize]) {
    for (i, &k) in order.iter().enumerate() {
        let at0 = SO0 + 8 + 8 * i as u64;
        assert_eq!(f32s(ram, at0, 2), verts[k].to_vec(), "buffer 0 vertex {i}");
        let at1 = SO1 + 16 * i as u64;
        assert_eq!(
            [
                ram.dw(at1),
                ram.dw(at1 + 4),
                ram.dw(at1 + 8),
                ram.dw(at1 + 12)
            ],
            [k as u32, 0xEEEE_EEEE, 1.0f32.to_bits(), 0xEEEE_EEEE],
            "buffer 1 vertex {i}"
        );
    }
    let n = order.len() as u64;
    assert_eq!(
        ram.dw(SO0 + 8 + 8 * n),
        0xEEEE_EEEE,
        "buffer 0 after the last"
    );
    assert_eq!(ram.dw(SO1 + 16 * n), 0xEEEE_EEEE, "buffer 1 after the last");
    assert_eq!(ram.dw(SO0), 0xEEEE_EEEE, "before the start offset");
}

/// Stream output from the VS (no GS): a strip of five vertices is three
/// triangles, written with their strides from the loaded offsets, which
/// move on; both counters count three.
#[test]
fn stream_output_from_the_vs_writes_two_buffers_and_moves_the_offsets() {
    for trailing in [false, true] {
        let (ram, gpu, verts) = vs_stream_out(trailing, 0x200);
        check_vs_buffers(&ram, &verts, &strip_order(5, trailing));
        assert_eq!(
            [
                gpu.read32(SO_WRITE_OFFSET0),
                gpu.read32(SO_WRITE_OFFSET0 + 4)
            ],
            [8 + 9 * 8, 9 * 16],
            "write offsets"
        );
        assert_eq!(
            [
                gpu.read32(SO_NUM_PRIMS_WRITTEN0),
                gpu.read32(SO_PRIM_STORAGE_NEEDED0)
            ],
            [3, 3]
        );
    }
}

/// Buffer 1 holds two triangles: the third is written to neither buffer,
/// the offsets stop after the second, SO_PRIM_STORAGE_NEEDED counts it.
#[test]
fn a_full_buffer_stops_the_primitive_and_counts_only_storage() {
    let (ram, gpu, verts) = vs_stream_out(false, 6 * 16);
    let order = strip_order(5, false);
    check_vs_buffers(&ram, &verts, &order[..6]);
    assert_eq!(
        [
            gpu.read32(SO_WRITE_OFFSET0),
            gpu.read32(SO_WRITE_OFFSET0 + 4)
        ],
        [8 + 6 * 8, 6 * 16]
    );
    assert_eq!(
        [
            gpu.read32(SO_NUM_PRIMS_WRITTEN0),
            gpu.read32(SO_PRIM_STORAGE_NEEDED0)
        ],
        [2, 3]
    );
}

/// A GS writing the PrimitiveID (r1.0) over its vertices' first header
/// dword, streamed out: buffer 0 the IDs, buffer 1 (pitch 12) x and y.
#[test]
fn stream_output_from_the_gs_carries_primitive_ids() {
    let mut src = GS_HEADER.to_string();
    for v in 0..3 {
        src += &single_copy(v);
        src += "mov (1|M0) r113.0<1>:ud r1.0<0;1,0>:ud\n";
        src += &gs_emit(v, 0);
    }
    src += &gs_end(3, 0);
    let tris = [TRI_A, TRI_B, shifted(TRI_A, 0.125)];
    let verts: Vec<[f32; 2]> = tris.iter().flatten().copied().collect();
    let decls = [(0, false, 0, 0b0001), (1, false, 1, 0b0011)];
    let so = so_state([4, 12], [0x100, 0x100], &decls, false);
    let (ram, gpu) = stream_out(&verts, 0x04, (gs_state(0, 1, 0x04, 0), &src), so, [0, 0]);
    for (i, v) in verts.iter().enumerate() {
        assert_eq!(
            ram.dw(SO0 + 4 * i as u64),
            i as u32 / 3,
            "PrimitiveID of vertex {i}"
        );
        assert_eq!(f32s(&ram, SO1 + 12 * i as u64, 2), v.to_vec(), "vertex {i}");
        assert_eq!(ram.dw(SO1 + 12 * i as u64 + 8), 0xEEEE_EEEE);
    }
    assert_eq!(
        [
            gpu.read32(SO_WRITE_OFFSET0),
            gpu.read32(SO_WRITE_OFFSET0 + 4)
        ],
        [9 * 4, 9 * 12]
    );
    assert_eq!(
        [
            gpu.read32(GS_INVOCATION_COUNT),
            gpu.read32(GS_PRIMITIVES_COUNT),
            gpu.read32(SO_NUM_PRIMS_WRITTEN0)
        ],
        [3, 3, 3]
    );
}

/// A TRISTRIP GS with a cut bit after its third vertex: two triangles,
/// not the four a six-vertex strip makes.
#[test]
fn a_cut_bit_ends_the_gs_strip() {
    let dx = 0.5;
    let mut src = GS_HEADER.to_string();
    // The control data header: cut after vertex 2 (bit 2).
    src += "mov (8|M0) r113.0<1>:ud 0x0:ud {NoMask}\n\
            mov (1|M0) r113.0<1>:ud 0x4:ud {NoMask}\n\
            send (8|M0) null:ud r112 urb.write_oword(offset=0, interleave) mlen=2 rlen=0 hdr\n";
    for copy in 0..2 {
        for v in 0..3 {
            src += &single_copy(v);
            if copy == 1 {
                src += &shift_x(dx);
            }
            src += &gs_emit(3 * copy + v, 1);
        }
    }
    src += &gs_end(6, 0);
    let decls = [(0, false, 1, 0b0011)];
    let so = so_state([8, 0], [0x100, 0], &decls, false);
    let (ram, gpu) = stream_out(&TRI_A, 0x04, (gs_state(0, 1, 0x05, 1), &src), so, [0, 0]);
    let want: Vec<[f32; 2]> = TRI_A
        .iter()
        .chain(shifted(TRI_A, dx).iter())
        .copied()
        .collect();
    for (i, v) in want.iter().enumerate() {
        assert_eq!(f32s(&ram, SO0 + 8 * i as u64, 2), v.to_vec(), "vertex {i}");
    }
    assert_eq!(
        ram.dw(SO0 + 8 * 6),
        0xEEEE_EEEE,
        "nothing after two triangles"
    );
    assert_eq!(
        [
            gpu.read32(GS_PRIMITIVES_COUNT),
            gpu.read32(SO_NUM_PRIMS_WRITTEN0)
        ],
        [2, 2]
    );
}

/// DUAL_INSTANCE with three instances: threads of instances (0, 1) and
/// (2); each instance writes its number (R0.0/R0.1 bits 31:27) as x.
#[test]
fn dual_instance_threads_see_their_instance_numbers() {
    let mut src = GS_HEADER.to_string();
    src += "shr (8|M0) r10.0<1>:ud r0.0<1;4,0>:ud 0x1b:ud\n\
            mov (8|M0) r113.0<1>:ud 0x0:ud\n\
            mov (1|M0) r113.0<1>:ud r10.0<0;1,0>:ud {NoMask}\n\
            mov (1|M0) r113.4<1>:ud r10.4<0;1,0>:ud {NoMask}\n\
            mov (8|M0) r114.0<1>:ud 0x0:ud\n";
    src += &gs_emit(0, 0);
    src += &gs_end(1, 1);
    let decls = [(0, false, 0, 0b0001)];
    let so = so_state([4, 0], [0x100, 0], &decls, false);
    let (ram, gpu) = stream_out(&TRI_A, 0x04, (gs_state(1, 3, 0x01, 0), &src), so, [0, 0]);
    let got: Vec<u32> = (0..4).map(|i| ram.dw(SO0 + 4 * i)).collect();
    assert_eq!(got, [0, 1, 2, 0xEEEE_EEEE]);
    assert_eq!(gpu.read32(GS_INVOCATION_COUNT), 3);
}

/// A POINTLIST GS with stream IDs in its control data header (GSCTL_SID,
/// two bits per vertex): vertex 0 to stream 0, 1 and 2 to stream 1; each
/// stream has its own SO_DECLs and buffer and counts in its own
/// registers.
#[test]
fn stream_ids_send_gs_vertices_to_their_streams() {
    let mut src = GS_HEADER.to_string();
    src += "mov (8|M0) r113.0<1>:ud 0x0:ud {NoMask}\n\
            mov (1|M0) r113.0<1>:ud 0x14:ud {NoMask}\n\
            send (8|M0) null:ud r112 urb.write_oword(offset=0, interleave) mlen=2 rlen=0 hdr\n";
    for v in 0..3 {
        src += &single_copy(v);
        src += &gs_emit(v, 1);
    }
    src += &gs_end(3, 0);
    let mut gs = gs_state(0, 1, 0x01, 1);
    // The GS packet (the last one pushed) with Control Data Format
    // GSCTL_SID.
    let at = gs.len() - 7;
    let mut p = Cmd3dstateGs::unpack(&gs[at..]).unwrap();
    p.control_data_format = 1;
    p.pack(&mut gs[at..]).unwrap();
    let mut so = Vec::new();
    for k in 0..2u32 {
        let base = SO0 + 0x1000 * u64::from(k);
        push(
            &mut so,
            &Cmd3dstateSoBuffer {
                so_buffer_index: k,
                surface_pitch: 8,
                surface_base_address: base,
                surface_end_address: base + 0x100,
                ..Default::default()
            },
        );
    }
    push(
        &mut so,
        &Cmd3dstateSoDeclList {
            stream_to_buffer_selects_0: 1,
            stream_to_buffer_selects_1: 2,
            num_entries_0: 1,
            num_entries_1: 1,
            so_decl_entry: vec![Cmd3dstateSoDeclListSoDeclEntry {
                stream_0_output_buffer_slot: 0,
                stream_0_register_index: 1,
                stream_0_component_mask: 0b0011,
                stream_1_output_buffer_slot: 1,
                stream_1_register_index: 1,
                stream_1_component_mask: 0b0011,
                ..Default::default()
            }],
            ..Default::default()
        },
    );
    push(
        &mut so,
        &Cmd3dstateStreamout {
            so_function_enable: true,
            rendering_disable: true,
            so_statistics_enable: true,
            so_buffer_enable_0: true,
            so_buffer_enable_1: true,
            ..Default::default()
        },
    );
    let (ram, gpu) = stream_out(&TRI_A, 0x04, (gs, &src), so, [0, 0]);
    assert_eq!(f32s(&ram, SO0, 2), TRI_A[0].to_vec());
    assert_eq!(ram.dw(SO0 + 8), 0xEEEE_EEEE, "stream 0 has one point");
    assert_eq!(f32s(&ram, SO1, 4), [TRI_A[1], TRI_A[2]].concat());
    assert_eq!(
        [
            gpu.read32(SO_WRITE_OFFSET0),
            gpu.read32(SO_WRITE_OFFSET0 + 4)
        ],
        [8, 16]
    );
    let per_stream = |reg: u32| [gpu.read32(reg), gpu.read32(reg + 8)];
    assert_eq!(per_stream(SO_NUM_PRIMS_WRITTEN0), [1, 2]);
    assert_eq!(per_stream(SO_PRIM_STORAGE_NEEDED0), [1, 2]);
    assert_eq!(gpu.read32(GS_PRIMITIVES_COUNT), 3);
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

// --- Predication, the topology filter and indirect draws (MI_PREDICATE,
// MI_TOPOLOGY_FILTER, 3DPRIMITIVE Predicate / Indirect Parameter Enable) ---

/// MI_PREDICATE's registers and the indirect draw registers (Linux
/// i915_reg.h MI_PREDICATE_SRC0/SRC1/DATA/RESULT, GEN7_3DPRIM_*).
const PRED_SRC0: u32 = 0x2400;
const PRED_SRC1: u32 = 0x2408;
const PRED_DATA: u32 = 0x2410;
const PRED_RESULT: u32 = 0x2418;
const PRIM_START_VERTEX: u32 = 0x2430;
const PRIM_VERTEX_COUNT: u32 = 0x2434;
const PRIM_INSTANCE_COUNT: u32 = 0x2438;
const PRIM_START_INSTANCE: u32 = 0x243C;
const PRIM_BASE_VERTEX: u32 = 0x2440;
/// Where the tests keep indirect parameters and read registers back.
const PARAMS: u64 = 0x80_0400;

fn lri(b: &mut Vec<u32>, pairs: &[(u32, u32)]) {
    push(
        b,
        &MiLoadRegisterImm {
            registers: pairs
                .iter()
                .map(
                    |&(register_offset, data_dword)| MiLoadRegisterImmRegisters {
                        register_offset,
                        data_dword,
                    },
                )
                .collect(),
            ..Default::default()
        },
    );
}

fn srm(b: &mut Vec<u32>, reg: u32, at: u64) {
    push(
        b,
        &MiStoreRegisterMem {
            use_global_gtt: true,
            register_address: reg,
            memory_address: at,
        },
    );
}

/// The batch's 3DPRIMITIVE (the Gen7 header, 7 dwords) with `flags` or-ed
/// into its DW0.
fn flag_the_draw(batch: &mut [u32], flags: u32) {
    let at = batch
        .iter()
        .position(|&d| d == 0x7B00_0005)
        .expect("a Gen7 3DPRIMITIVE");
    batch[at] |= flags;
}

const PREDICATE_ENABLE: u32 = 1 << 8;
const INDIRECT_PARAMETER_ENABLE: u32 = 1 << 10;

/// Runs the five-vertex TRILIST_ADJ draw of `a_gen7_vs_draw_runs_and_counts`
/// with `extra` before it and `flags` in its DW0; returns IA_VERTICES_COUNT
/// and VS_INVOCATION_COUNT after the fence.
fn counted_draw(ram: &Ram, extra: &[u32], flags: u32) -> (SoftGpu<Ram>, usize, [u32; 2]) {
    let (gpu, render) = gpu(ram);
    let vertices: Vec<[f32; 2]> = (0..5).map(|k| [k as f32, 0.0]).collect();
    let mut batch = vs_batch(ram, &vertices, IDENTITY, true, 0x0B, extra);
    flag_the_draw(&mut batch, flags);
    submit(&gpu, ram, &batch, 4);
    assert_eq!(gpu.unmodelled(render), None);
    assert_eq!(ram.dw(FENCE), 0x600D, "{:?}", gpu.eu_report());
    let counts = [ram.dw(COUNTS), ram.dw(COUNTS + 16)];
    (gpu, render, counts)
}

/// MI_PREDICATE header: Load, Combine and Compare Operation (Mesa gen7.xml
/// MI_PREDICATE: opcode 0x0C, bits 7:6, 4:3, 1:0).
fn mi_predicate(load: u32, combine: u32, compare: u32) -> Vec<u32> {
    let mut b = Vec::new();
    push(
        &mut b,
        &MiPredicate {
            load_operation: load,
            combine_operation: combine,
            compare_operation: compare,
        },
    );
    b
}

/// Every Load (KEEP, LOAD, LOADINV), Combine (SET, AND, OR, XOR) and
/// Compare (TRUE, FALSE, SRCS_EQUAL, DELTAS_EQUAL) operation, from both
/// predicate states, with equal and unequal 64-bit sources and a
/// PredicateData that matches the delta or not: the predicate bit and
/// MI_PREDICATE_DATA read back with MI_STORE_REGISTER_MEM are the host's
/// reading of the operation tables (004 lines 28041-28087).
#[test]
fn mi_predicate_follows_its_truth_tables() {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    let mut b = Vec::new();
    let mut expected = Vec::new();
    let sources: [(u64, u64); 3] = [
        (0x1_0000_0005, 0x1_0000_0005),
        (0x1_0000_0007, 0x0_0000_0005),
        (3, 0x2_0000_0003),
    ];
    let datas = [0x1_0000_0002u64, 7];
    let mut at = PARAMS;
    for load in [0u32, 2, 3] {
        for combine in 0..4u32 {
            for compare in 0..4u32 {
                for state in [false, true] {
                    for &(s0, s1) in &sources {
                        for &data in &datas {
                            lri(
                                &mut b,
                                &[
                                    (PRED_SRC0, s0 as u32),
                                    (PRED_SRC0 + 4, (s0 >> 32) as u32),
                                    (PRED_SRC1, s1 as u32),
                                    (PRED_SRC1 + 4, (s1 >> 32) as u32),
                                    (PRED_DATA, data as u32),
                                    (PRED_DATA + 4, (data >> 32) as u32),
                                    (PRED_RESULT, state as u32),
                                ],
                            );
                            b.extend(mi_predicate(load, combine, compare));
                            srm(&mut b, PRED_RESULT, at);
                            srm(&mut b, PRED_DATA, at + 4);
                            srm(&mut b, PRED_DATA + 4, at + 8);
                            // The host's reading of the tables.
                            let delta = s0.wrapping_sub(s1);
                            let (out, new_data) = match compare {
                                0 => (true, data),
                                1 => (false, data),
                                2 => (s0 == s1, delta),
                                _ => (delta == data, data),
                            };
                            let combined = match combine {
                                0 => out,
                                1 => out && state,
                                2 => out || state,
                                _ => out != state,
                            };
                            let bit = match load {
                                0 => state,
                                2 => combined,
                                _ => !combined,
                            };
                            expected.push((at, bit, new_data, (load, combine, compare, state)));
                            at += 12;
                        }
                    }
                }
            }
        }
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
    submit(&gpu, &ram, &b, 20);
    assert_eq!(gpu.unmodelled(render), None);
    assert_eq!(ram.dw(FENCE), 0x600D);
    assert_eq!(expected.len(), 3 * 4 * 4 * 2 * 3 * 2);
    for (at, bit, data, case) in expected {
        assert_eq!(ram.dw(at), bit as u32, "predicate bit, case {case:?}");
        let got = u64::from(ram.dw(at + 4)) | u64::from(ram.dw(at + 8)) << 32;
        assert_eq!(got, data, "MI_PREDICATE_DATA, case {case:?}");
    }
}

/// i965's conditional rendering on Gen7 (brw_conditional_render.c: the
/// query result in SRC0, 0 in SRC1, LOADINV | SET | SRCS_EQUAL): a
/// predicated draw with a zero result is dropped (nothing counted, the
/// batch goes on), with a non-zero one it runs; without Predicate Enable
/// the predicate does not matter.
#[test]
fn a_predicated_draw_runs_only_when_the_predicate_is_set() {
    for (query, flags, drawn) in [
        (0u32, PREDICATE_ENABLE, false),
        (42, PREDICATE_ENABLE, true),
        (0, 0, true),
    ] {
        let ram = Ram::new();
        ram.put_dw(PARAMS, &[query, 0]);
        let mut extra = Vec::new();
        lri(&mut extra, &[(PRED_SRC1, 0), (PRED_SRC1 + 4, 0)]);
        for (k, reg) in [PRED_SRC0, PRED_SRC0 + 4].into_iter().enumerate() {
            push(
                &mut extra,
                &MiLoadRegisterMem {
                    use_global_gtt: true,
                    register_address: reg,
                    memory_address: PARAMS + 4 * k as u64,
                    ..Default::default()
                },
            );
        }
        extra.extend(mi_predicate(3, 0, 2));
        let (gpu, _, counts) = counted_draw(&ram, &extra, flags);
        let n = if drawn { 5 } else { 0 };
        assert_eq!(counts, [n, n], "query {query}, flags {flags:#x}");
        assert_eq!(gpu.read32(PRED_RESULT), u32::from(query != 0));
    }
}

/// MI_TOPOLOGY_FILTER: a TRILIST_ADJ draw is dropped under a TRILIST
/// filter, drawn under its own topology and with the filter off (0).
#[test]
fn the_topology_filter_drops_other_topologies() {
    for (filter, drawn) in [(0x04u32, false), (0x0B, true), (0, true)] {
        let ram = Ram::new();
        let mut extra = Vec::new();
        push(
            &mut extra,
            &MiTopologyFilter {
                topology_filter_value: filter,
            },
        );
        let (_, _, counts) = counted_draw(&ram, &extra, 0);
        let n = if drawn { 5 } else { 0 };
        assert_eq!(counts, [n, n], "filter {filter:#x}");
    }
}

/// glDrawArraysIndirect as i965 and crocus send it on Gen7: the draw
/// parameters loaded into the 3DPRIM_* registers with
/// MI_LOAD_REGISTER_MEM (base vertex with MI_LOAD_REGISTER_IMM), the
/// 3DPRIMITIVE's own counts ignored. The registers read back with
/// MI_STORE_REGISTER_MEM, and the statistics count what the host computes
/// from the memory's parameters (count x instances).
#[test]
fn an_indirect_draw_takes_its_counts_from_the_3dprim_registers() {
    let ram = Ram::new();
    // DrawArraysIndirectCommand: count, instanceCount, first, baseInstance.
    let (count, instances, first, base_instance) = (3u32, 2u32, 1u32, 0u32);
    ram.put_dw(PARAMS, &[count, instances, first, base_instance]);
    let mut extra = Vec::new();
    for (reg, k) in [
        (PRIM_VERTEX_COUNT, 0u64),
        (PRIM_INSTANCE_COUNT, 1),
        (PRIM_START_VERTEX, 2),
        (PRIM_START_INSTANCE, 3),
    ] {
        push(
            &mut extra,
            &MiLoadRegisterMem {
                use_global_gtt: true,
                register_address: reg,
                memory_address: PARAMS + 4 * k,
                ..Default::default()
            },
        );
    }
    lri(&mut extra, &[(PRIM_BASE_VERTEX, 0)]);
    for (k, reg) in [
        PRIM_VERTEX_COUNT,
        PRIM_INSTANCE_COUNT,
        PRIM_START_VERTEX,
        PRIM_START_INSTANCE,
    ]
    .into_iter()
    .enumerate()
    {
        srm(&mut extra, reg, PARAMS + 0x40 + 4 * k as u64);
    }
    let (_, _, counts) = counted_draw(&ram, &extra, INDIRECT_PARAMETER_ENABLE);
    let back: Vec<u32> = (0..4).map(|k| ram.dw(PARAMS + 0x40 + 4 * k)).collect();
    assert_eq!(back, [count, instances, first, base_instance]);
    assert_eq!(counts[0], count * instances, "IA_VERTICES_COUNT");
    assert_eq!(counts[1], count * instances, "VS_INVOCATION_COUNT");
    // The same draw without the enable counts the command's five.
    let ram = Ram::new();
    ram.put_dw(PARAMS, &[count, instances, first, base_instance]);
    let (_, _, counts) = counted_draw(&ram, &extra, 0);
    assert_eq!(counts, [5, 5]);
}

/// GPGPU_DISPATCHDIMX/Y/Z (Linux i915_reg.h GEN7_GPGPU_DISPATCHDIM*).
const DISPATCH_DIM: u32 = 0x2500;

/// glDispatchComputeIndirect as i965 sends it on Gen7 (brw_compute.c
/// `prepare_indirect_gpgpu_walker`): the group counts loaded into the
/// GPGPU_DISPATCHDIM registers and, one by one, into SRC0 for MI_PREDICATE
/// (predicate = x == 0 || y == 0 || z == 0, then inverted), and a
/// GPGPU_WALKER with Indirect Parameter and Predicate Enable whose own
/// dimensions are ignored. `force_false` appends an MI_PREDICATE LOAD SET
/// FALSE. Returns the threads dispatched and MI_PREDICATE_RESULT.
fn indirect_dispatch(dims: [u32; 3], force_false: bool) -> (u64, u32) {
    let ram = Ram::new();
    let (gpu, render) = gpu(&ram);
    let src = "mov (8|M0) r112.0<1>:ud r0.0<8;8,1>:ud\n\
               send (8|M0) null:ud r112 0x27 0x02000010 {EOT}\n";
    ram.put(
        KERNELS,
        &baregpu_isa::text::asm::assemble(IsaGen::Gen7, src).unwrap(),
    );
    ram.put_dw(PARAMS, &dims);
    pack_at(
        &ram,
        DYNAMIC + 0x400,
        &baregpu_hal::gen7::structs::InterfaceDescriptorData {
            kernel_start_pointer: 0,
            number_of_threads_in_gpgpu_thread_group: 1,
            ..Default::default()
        },
    );
    let mut b = Vec::new();
    push(
        &mut b,
        &PipelineSelect {
            pipeline_selection: PipelineSelect::PIPELINE_SELECTION_GPGPU,
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
            ..StateBaseAddress::default()
        },
    );
    push(
        &mut b,
        &MediaVfeState {
            maximum_number_of_threads: 15,
            gpgpu_mode: true,
            reset_gateway_timer: true,
            bypass_gateway_control: true,
            ..Default::default()
        },
    );
    push(
        &mut b,
        &MediaInterfaceDescriptorLoad {
            interface_descriptor_total_length: 32,
            interface_descriptor_data_start_address: 0x400,
        },
    );
    let lrm = |b: &mut Vec<u32>, reg: u32, k: u64| {
        push(
            b,
            &MiLoadRegisterMem {
                use_global_gtt: true,
                register_address: reg,
                memory_address: PARAMS + 4 * k,
                ..Default::default()
            },
        )
    };
    for k in 0..3 {
        lrm(&mut b, DISPATCH_DIM + 4 * k as u32, k);
    }
    lri(
        &mut b,
        &[(PRED_SRC0 + 4, 0), (PRED_SRC1, 0), (PRED_SRC1 + 4, 0)],
    );
    for k in 0..3 {
        lrm(&mut b, PRED_SRC0, k);
        // LOAD, SET for x then OR, SRCS_EQUAL.
        b.extend(mi_predicate(2, if k == 0 { 0 } else { 2 }, 2));
    }
    // LOADINV, OR, FALSE: predicate = !predicate.
    b.extend(mi_predicate(3, 2, 1));
    if force_false {
        b.extend(mi_predicate(2, 0, 1));
    }
    push(
        &mut b,
        &GpgpuWalker {
            indirect_parameter_enable: true,
            predicate_enable: true,
            simd_size: 1,
            thread_group_id_x_dimension: 7,
            thread_group_id_y_dimension: 7,
            thread_group_id_z_dimension: 7,
            right_execution_mask: 0xffff,
            bottom_execution_mask: 0xffff_ffff,
            ..Default::default()
        },
    );
    push(&mut b, &MediaStateFlush::default());
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
    submit(&gpu, &ram, &b, 8);
    assert_eq!(gpu.unmodelled(render), None);
    assert_eq!(ram.dw(FENCE), 0x600D, "{:?}", gpu.eu_report());
    (gpu.eu_stats().dispatched, gpu.read32(PRED_RESULT))
}

/// The indirect dispatch runs x * y * z one-thread groups (the registers'
/// counts, not the command's 7 x 7 x 7); a zero count clears the predicate
/// and the walker is dropped; a predicate forced false drops it too.
#[test]
fn an_indirect_predicated_gpgpu_walker_follows_the_dispatch_registers() {
    assert_eq!(indirect_dispatch([2, 3, 1], false), (6, 1));
    assert_eq!(indirect_dispatch([4, 0, 2], false), (0, 0));
    assert_eq!(indirect_dispatch([2, 3, 1], true), (0, 0));
}
