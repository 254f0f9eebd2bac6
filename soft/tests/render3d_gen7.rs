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

/// Memory and a batch that runs `n` vertices of `topology` through the
/// VS, with `extra` commands before the draw, then stores the statistics
/// registers and writes the fence.
fn vs_batch(ram: &Ram, n: u32, topology: u32, extra: &[u32]) -> Vec<u32> {
    ram.put(KERNELS, &vs_kernel());
    let consts = [1.0f32, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0];
    let c: Vec<u32> = consts.iter().map(|f| f.to_bits()).collect();
    ram.put_dw(DYNAMIC + u64::from(CONSTANTS), &c);
    for k in 0..n {
        let x = k as f32;
        ram.put_dw(
            VB + 32 * u64::from(k),
            &[k, 0, 0, 0, x.to_bits(), x.to_bits(), 0, 1.0f32.to_bits()],
        );
    }
    let mut b = Vec::new();
    push(&mut b, &PipelineSelect::default());
    push(
        &mut b,
        &StateBaseAddress {
            general_state_base_address_modify_enable: true,
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
            dispatch_grf_start_register_for_urb_data: 2,
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
    let batch = vs_batch(&ram, 5, 0x0B, &[]);
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
    let batch = vs_batch(&ram, 3, 0x0A, &hs);
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
