//! DMA memory is owned: everything the driver allocates goes back to the
//! platform when its owner is dropped, counted by the host platform's live
//! regions. No test here frees anything by hand.

use baregpu::compute::{Compute, Dispatch, Format, KernelDesc, Resource, Threads, Tiling};
use baregpu::hal::Generation;
use baregpu::hal::gen7::commands::{MiBatchBufferStart, MiStoreDataImm};
use baregpu::platform::PlatformBus;
use baregpu::platform::host::HostPlatform;
use baregpu::{Dma, EngineId, Gpu};
use baregpu_soft::SoftGpu;

mod compute_common;
use compute_common::eot_kernel;

/// MI_STORE_DATA_IMM of one dword through the GGTT.
fn store(gfx: u64, value: u32) -> MiStoreDataImm {
    MiStoreDataImm {
        use_global_gtt: true,
        address: gfx,
        data_dword0: value,
        data_dword1: None,
    }
}

#[test]
fn a_dropped_gpu_returns_all_its_dma_memory() {
    for g in [
        Generation::Gen4,
        Generation::G45,
        Generation::Gen6,
        Generation::Gen7,
    ] {
        let p = HostPlatform::new();
        let soft = SoftGpu::new(g, PlatformBus::new(&p)).expect("software GPU");
        let mut gpu = Gpu::new(&p, &soft, g).expect("bring-up");
        // Rings and status pages.
        assert!(
            !p.live_dma_regions().is_empty(),
            "{g}: bring-up allocated nothing"
        );
        if matches!(g, Generation::Gen6 | Generation::Gen7) {
            // A context: its page tables come on demand with its mappings.
            let ctx = gpu.create_context().unwrap();
            let (in_ctx, _) = gpu.map_in_context(ctx, 8192).unwrap();
            let mut b = gpu.new_context_batch(ctx, 4096).unwrap();
            b.push_dwords(&[0]).unwrap();
            // Left in flight: the Gpu owns it until it is dropped.
            gpu.submit(EngineId::RENDER, b).unwrap();
            drop(in_ctx);
        }
        // A batch built and never submitted.
        let unsubmitted = gpu.new_batch(4096).unwrap();
        drop(unsubmitted);
        drop(gpu);
        assert_eq!(
            p.live_dma_regions(),
            [],
            "{g}: DMA memory left after the Gpu"
        );
        assert_eq!(p.dma_bytes_in_use(), 0, "{g}");
    }
}

#[test]
fn completed_batches_and_dropped_buffers_give_their_memory_back() {
    let g = Generation::Gen7;
    let p = HostPlatform::new();
    let soft = SoftGpu::new(g, PlatformBus::new(&p)).expect("software GPU");
    let mut gpu = Gpu::new(&p, &soft, g).expect("bring-up");
    let idle = p.dma_bytes_in_use();

    let (buffer, mapping) = gpu.map_buffer(8192).unwrap();
    assert_eq!(p.dma_bytes_in_use(), idle + 8192);
    for round in 0..3u32 {
        let mut b = gpu.new_batch(4096).unwrap();
        b.push(&store(mapping.gfx.0 + 4 * round as u64, 0x100 + round))
            .unwrap();
        let f = gpu.submit(EngineId::RENDER, b).unwrap();
        gpu.wait(f, 1_000_000).unwrap();
        // The engine finished the batch: the driver let go of it.
        assert_eq!(p.dma_bytes_in_use(), idle + 8192, "round {round}");
    }
    assert_eq!(buffer.read_u32(2), Ok(0x102), "the stores landed");
    let free = gpu.ggtt().unwrap().free_pages();
    gpu.unmap(mapping);
    assert_eq!(
        gpu.ggtt().unwrap().free_pages(),
        free + 2,
        "the GGTT range went back"
    );
    drop(buffer);
    assert_eq!(p.dma_bytes_in_use(), idle, "the buffer's pages went back");

    // A hang drops the queued work: that memory goes back too.
    let mut runaway = gpu.new_batch(4096).unwrap();
    let at = runaway.gfx().0;
    // A jump back to its own start: it never ends.
    runaway
        .push(&MiBatchBufferStart {
            batch_buffer_start_address: at,
            ..Default::default()
        })
        .unwrap();
    let f = gpu.submit(EngineId::RENDER, runaway).unwrap();
    assert!(gpu.wait(f, 20_000).is_err(), "the runaway batch hangs");
    assert_eq!(
        p.dma_bytes_in_use(),
        idle,
        "the dropped batch's memory went back"
    );
}

#[test]
fn compute_resources_and_the_compute_state_give_their_memory_back() {
    let g = Generation::Gen7;
    let p = HostPlatform::new();
    let soft = SoftGpu::new(g, PlatformBus::new(&p)).expect("software GPU");
    let mut gpu = Gpu::new(&p, &soft, g).expect("bring-up");
    let idle = p.dma_bytes_in_use();
    {
        let mut cx = Compute::new(&mut gpu).unwrap();
        let out = cx.create_buffer(&mut gpu, 4096).unwrap();
        let surface = cx
            .create_surface_2d(&mut gpu, 64, 16, Format::R32Uint, Tiling::Y)
            .unwrap();
        let bin = eot_kernel(g);
        let kernel = cx
            .load_kernel(
                &mut gpu,
                &KernelDesc {
                    bindings: &[0],
                    scratch_bytes: 1024,
                    ..KernelDesc::new(&bin)
                },
            )
            .unwrap();
        let d = Dispatch {
            threads: Threads::Objects {
                count: 2,
                inline: &[],
            },
            curbe: &[],
            bindings: &[(0, Resource::Buffer(&out))],
            samplers: &[],
        };
        let f = cx.dispatch(&mut gpu, &kernel, &d).unwrap();
        gpu.wait(f, 5_000_000).unwrap();
        assert!(p.dma_bytes_in_use() > idle);
        // Some unmapped first, the others just dropped with the scope.
        Compute::free_surface(&mut gpu, surface);
        Compute::free_kernel(&mut gpu, kernel);
        drop(out);
        drop(cx);
    }
    assert_eq!(p.dma_bytes_in_use(), idle, "compute memory left behind");
}

#[test]
fn dma_copies_stay_inside_the_buffer() {
    let p = HostPlatform::new();
    let d = Dma::new(&p, 64, 4096).unwrap();
    assert_eq!(d.size(), 64);
    assert_eq!(d.phys().0 % 4096, 0);
    assert_eq!(d.to_vec(), vec![0; 64], "zeroed");
    d.write(60, &[1, 2, 3, 4]).unwrap();
    assert_eq!(d.read_u32(15), Ok(u32::from_ne_bytes([1, 2, 3, 4])));
    assert!(d.write(61, &[0; 4]).is_err(), "past the end");
    assert!(d.read(usize::MAX, &mut [0; 2]).is_err(), "offset overflow");
    assert!(d.read_u32(16).is_err());
    assert!(d.write_u32(usize::MAX / 2, 0).is_err());
    d.fill(0, 8, 0xff).unwrap();
    assert_eq!(d.to_u32s()[..3], [u32::MAX, u32::MAX, 0]);
    assert_eq!(p.dma_bytes_in_use(), 64);
    drop(d);
    assert_eq!(p.dma_bytes_in_use(), 0);
    assert!(
        Dma::new(&p, 0, 4096).is_err(),
        "an empty request is refused"
    );
    assert_eq!(p.live_dma_regions(), []);
}
