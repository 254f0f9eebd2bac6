//! Ivy Bridge GPGPU dispatch: GPGPU_WALKER thread counts and execution
//! masks, the interface descriptor's group fields (threads, barrier, shared
//! local memory), per-thread constants, and the limits.

use baregpu::compute::{Compute, ComputeError, Dispatch, KernelDesc, Resource, Simd, Threads};
use baregpu::hal::Generation;

mod compute_common;
use compute_common::*;

const G: Generation = Generation::Gen7;

fn groups(groups: [u32; 3], group_size: [u32; 3]) -> Dispatch<'static> {
    Dispatch {
        threads: Threads::Groups { groups, group_size },
        curbe: &[],
        bindings: &[],
        samplers: &[],
    }
}

#[test]
fn the_walker_counts_threads_and_masks_the_last_one() {
    // (group size, SIMD, threads per group, last thread's channel mask),
    // worked out by hand: 20 invocations in SIMD16 are one full thread and
    // one of 4 channels (0xF); 21 in SIMD8 are 2 full and 5 (0x1F); 33 in
    // SIMD32 are 32 + 1 (0x1); exact multiples keep every channel.
    let cases = [
        ([8, 1, 1], Simd::Simd8, 1, 0xff),
        ([20, 1, 1], Simd::Simd16, 2, 0xf),
        ([7, 3, 1], Simd::Simd8, 3, 0x1f),
        ([4, 4, 2], Simd::Simd16, 2, 0xffff),
        ([33, 1, 1], Simd::Simd32, 2, 0x1),
        ([8, 8, 1], Simd::Simd32, 2, 0xffff_ffff),
    ];
    for (size, simd, threads, mask) in cases {
        with_gpu(G, |gpu, p| {
            let bin = eot_kernel(G);
            let mut cx = Compute::new(gpu).unwrap();
            let k = cx
                .load_kernel(
                    gpu,
                    &KernelDesc {
                        simd,
                        ..KernelDesc::new(&bin)
                    },
                )
                .unwrap();
            let batch = cx.record(gpu, &k, &groups([3, 2, 5], size)).unwrap();
            let cmds = commands(G, &batch);
            let w = one(&cmds, "GPGPU_WALKER");
            let simd_code = match simd {
                Simd::Simd8 => 0,
                Simd::Simd16 => 1,
                Simd::Simd32 => 2,
            };
            assert_eq!(w.get("simd_size"), simd_code, "{size:?}");
            assert_eq!(
                w.get("thread_width_counter_maximum"),
                threads - 1,
                "{size:?}"
            );
            assert_eq!(w.get("thread_height_counter_maximum"), 0);
            assert_eq!(w.get("thread_depth_counter_maximum"), 0);
            assert_eq!(w.get("right_execution_mask"), mask, "{size:?}");
            assert_eq!(w.get("bottom_execution_mask"), 0xffff_ffff);
            assert_eq!(w.get("thread_group_id_x_dimension"), 3);
            assert_eq!(w.get("thread_group_id_y_dimension"), 2);
            assert_eq!(w.get("thread_group_id_z_dimension"), 5);
            for f in [
                "thread_group_id_starting_x",
                "thread_group_id_starting_y",
                "thread_group_id_starting_z",
            ] {
                assert_eq!(w.get(f), 0);
            }
            let id = interface_descriptor(gpu, p, &cmds);
            assert_eq!(id.get("number_of_threads_in_gpgpu_thread_group"), threads);
        });
    }
}

#[test]
fn gpgpu_dispatch_selects_the_gpgpu_pipeline_in_gpgpu_mode() {
    with_gpu(G, |gpu, _| {
        let bin = eot_kernel(G);
        let mut cx = Compute::new(gpu).unwrap();
        let k = cx.load_kernel(gpu, &KernelDesc::new(&bin)).unwrap();
        let batch = cx.record(gpu, &k, &groups([1, 1, 1], [16, 1, 1])).unwrap();
        let cmds = commands(G, &batch);
        assert_eq!(
            names(&cmds),
            [
                "PIPE_CONTROL",
                "PIPE_CONTROL",
                "PIPELINE_SELECT",
                "STATE_BASE_ADDRESS",
                "MEDIA_VFE_STATE",
                "MEDIA_INTERFACE_DESCRIPTOR_LOAD",
                "GPGPU_WALKER",
                "MEDIA_STATE_FLUSH",
                "PIPE_CONTROL",
                "MI_BATCH_BUFFER_END",
            ]
        );
        assert_eq!(one(&cmds, "PIPELINE_SELECT").get("pipeline_selection"), 2);
        let vfe = one(&cmds, "MEDIA_VFE_STATE");
        assert_eq!(vfe.get("gpgpu_mode"), 1);
        assert_eq!(vfe.get("number_of_urb_entries"), 0);
        assert_eq!(vfe.get("urb_entry_allocation_size"), 0);
        // The last flush writes the data and render caches out behind a stall.
        let last = cmds
            .iter()
            .rev()
            .find(|c| c.name == "PIPE_CONTROL")
            .unwrap();
        assert_eq!(last.get("dc_flush_enable"), 1);
        assert_eq!(last.get("command_streamer_stall_enable"), 1);
    });
}

#[test]
fn barriers_and_shared_local_memory_reach_the_descriptor() {
    // SLM: powers of two from 4 KiB, counted in 4 KiB (Mesa encode_slm_size, Gfx7 row).
    for (bytes, code) in [
        (0, 0),
        (1, 1),
        (4096, 1),
        (5000, 2),
        (16384, 4),
        (65536, 16),
    ] {
        with_gpu(G, |gpu, p| {
            let bin = eot_kernel(G);
            let mut cx = Compute::new(gpu).unwrap();
            let desc = KernelDesc {
                barriers: true,
                slm_bytes: bytes,
                ..KernelDesc::new(&bin)
            };
            let k = cx.load_kernel(gpu, &desc).unwrap();
            let batch = cx.record(gpu, &k, &groups([2, 1, 1], [64, 1, 1])).unwrap();
            let cmds = commands(G, &batch);
            let id = interface_descriptor(gpu, p, &cmds);
            assert_eq!(id.get("barrier_enable"), 1);
            assert_eq!(id.get("shared_local_memory_size"), code, "{bytes} bytes");
            assert_eq!(id.get("number_of_threads_in_gpgpu_thread_group"), 4);
        });
    }
    with_gpu(G, |gpu, _| {
        let bin = eot_kernel(G);
        let mut cx = Compute::new(gpu).unwrap();
        let desc = KernelDesc {
            slm_bytes: 65537,
            ..KernelDesc::new(&bin)
        };
        assert!(matches!(
            cx.load_kernel(gpu, &desc),
            Err(ComputeError::OutOfRange { .. })
        ));
    });
}

#[test]
fn every_thread_of_a_group_gets_its_constants() {
    with_gpu(G, |gpu, p| {
        let bin = eot_kernel(G);
        let mut cx = Compute::new(gpu).unwrap();
        let desc = KernelDesc {
            curbe_bytes: 32,
            ..KernelDesc::new(&bin)
        };
        let k = cx.load_kernel(gpu, &desc).unwrap();
        // 3 threads of SIMD16 per group.
        let shared: Vec<u8> = (1..=20).collect();
        let d = Dispatch {
            curbe: &shared,
            ..groups([4, 1, 1], [48, 1, 1])
        };
        let batch = cx.record(gpu, &k, &d).unwrap();
        let cmds = commands(G, &batch);
        let (_, dynamic) = bases(G, &cmds);
        let load = one(&cmds, "MEDIA_CURBE_LOAD");
        assert_eq!(load.get("curbe_total_data_length"), 96);
        let mut block = shared.clone();
        block.resize(32, 0);
        let got = gfx_read(gpu, p, dynamic + load.get("curbe_data_start_address"), 96);
        assert_eq!(got, block.repeat(3), "the same constants for each thread");
        // Rows in pairs: 3 rows allocate 4.
        assert_eq!(
            one(&cmds, "MEDIA_VFE_STATE").get("curbe_allocation_size"),
            4
        );
        let id = interface_descriptor(gpu, p, &cmds);
        assert_eq!(id.get("constant_urb_entry_read_length"), 1);

        // Per-thread blocks are loaded as given.
        let per_thread: Vec<u8> = (0..96).collect();
        let d = Dispatch {
            curbe: &per_thread,
            ..d
        };
        let batch = cx.record(gpu, &k, &d).unwrap();
        let cmds = commands(G, &batch);
        let (_, dynamic) = bases(G, &cmds);
        let load = one(&cmds, "MEDIA_CURBE_LOAD");
        let got = gfx_read(gpu, p, dynamic + load.get("curbe_data_start_address"), 96);
        assert_eq!(got, per_thread);

        // Anything else is neither.
        let odd = vec![0u8; 40];
        assert!(matches!(
            cx.record(gpu, &k, &Dispatch { curbe: &odd, ..d }),
            Err(ComputeError::OutOfRange { .. })
        ));
    });
}

#[test]
fn groups_beyond_the_hardware_are_refused() {
    with_gpu(G, |gpu, _| {
        let bin = eot_kernel(G);
        let mut cx = Compute::new(gpu).unwrap();
        let k = cx
            .load_kernel(
                gpu,
                &KernelDesc {
                    simd: Simd::Simd8,
                    ..KernelDesc::new(&bin)
                },
            )
            .unwrap();
        // 37 SIMD8 threads: one more than Ivy Bridge GT1 runs at once.
        assert!(matches!(
            cx.record(gpu, &k, &groups([1, 1, 1], [8 * 37, 1, 1])),
            Err(ComputeError::OutOfRange { .. })
        ));
        assert!(
            cx.record(gpu, &k, &groups([1, 1, 1], [8 * 36, 1, 1]))
                .is_ok()
        );
        assert!(matches!(
            cx.record(gpu, &k, &groups([1, 0, 1], [8, 1, 1])),
            Err(ComputeError::Invalid(_))
        ));
        // Each thread's constants count: 28 registers x 36 threads > 991 rows.
        let fat = cx
            .load_kernel(
                gpu,
                &KernelDesc {
                    simd: Simd::Simd8,
                    curbe_bytes: 28 * 32,
                    ..KernelDesc::new(&bin)
                },
            )
            .unwrap();
        assert!(matches!(
            cx.record(gpu, &fat, &groups([1, 1, 1], [8 * 36, 1, 1])),
            Err(ComputeError::OutOfRange { .. })
        ));
        assert!(
            cx.record(gpu, &fat, &groups([1, 1, 1], [8 * 35, 1, 1]))
                .is_ok()
        );
        // Sizes whose product overflows are refused, not wrapped.
        assert!(matches!(
            cx.record(gpu, &k, &groups([1, 1, 1], [u32::MAX, u32::MAX, u32::MAX])),
            Err(ComputeError::OutOfRange { .. })
        ));
    });
}

#[test]
fn older_generations_have_no_gpgpu_walker() {
    for g in [Generation::Gen4, Generation::G45, Generation::Gen6] {
        with_gpu(g, |gpu, _| {
            let bin = eot_kernel(g);
            let mut cx = Compute::new(gpu).unwrap();
            let k = cx.load_kernel(gpu, &KernelDesc::new(&bin)).unwrap();
            assert!(matches!(
                cx.record(gpu, &k, &groups([1, 1, 1], [16, 1, 1])),
                Err(ComputeError::Unsupported { generation, .. }) if generation == g
            ));
        });
    }
}

#[test]
fn a_gpgpu_dispatch_runs_through_the_command_streamer() {
    with_gpu(G, |gpu, _| {
        let bin = eot_kernel(G);
        let mut cx = Compute::new(gpu).unwrap();
        let desc = KernelDesc {
            curbe_bytes: 32,
            bindings: &[1],
            barriers: true,
            slm_bytes: 8192,
            ..KernelDesc::new(&bin)
        };
        let k = cx.load_kernel(gpu, &desc).unwrap();
        let buf = cx.create_buffer(gpu, 4096).unwrap();
        let bindings = [(1, Resource::Buffer(&buf))];
        let d = Dispatch {
            curbe: &[3; 32],
            bindings: &bindings,
            ..groups([8, 4, 1], [32, 1, 1])
        };
        let fence = cx.dispatch(gpu, &k, &d).unwrap();
        gpu.wait(fence, 1_000_000).unwrap();
    });
}
