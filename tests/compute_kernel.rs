//! Kernel upload on every generation: the interface descriptor's kernel
//! pointer lands on the uploaded bytes, 64-byte aligned, followed by the
//! 128 bytes of prefetch padding (000 lines 9187-9193, 003 lines
//! 92725-92735); bad binaries are refused before anything is allocated.

use baregpu::compute::{Compute, ComputeError, Dispatch, KernelDesc, PREFETCH_PAD, Simd, Threads};
use baregpu::hal::Generation;
use baregpu_isa::inst::Opcode;
use baregpu_isa::kernel::decode_kernel;

mod compute_common;
use compute_common::*;

fn one_thread() -> Dispatch<'static> {
    Dispatch {
        threads: Threads::Objects {
            count: 1,
            inline: &[],
        },
        curbe: &[],
        bindings: &[],
        samplers: &[],
    }
}

#[test]
fn the_kernel_pointer_lands_on_the_uploaded_binary_and_nops_follow_it() {
    for g in GENERATIONS {
        with_gpu(g, |gpu, p| {
            let bin = eot_kernel(g);
            let mut cx = Compute::new(gpu).unwrap();
            let k = cx.load_kernel(gpu, &KernelDesc::new(&bin)).unwrap();
            let batch = cx.record(gpu, &k, &one_thread()).unwrap();
            let cmds = commands(g, &batch);
            let id = interface_descriptor(gpu, p, &cmds);
            let at = kernel_address(g, &cmds, &id);
            assert_eq!(at, k.gfx().0, "{g}");
            assert_eq!(at % 64, 0, "{g}: kernel start pointers are 64-byte aligned");
            let mem = gfx_read(gpu, p, at, bin.len() + 128);
            assert_eq!(&mem[..bin.len()], &bin[..], "{g}: the binary is in memory");
            // The 128 prefetched bytes are mapped and hold 8 NOPs.
            let pad = decode_kernel(isa(g), &mem[bin.len()..]).unwrap();
            assert_eq!(pad.len(), 8, "{g}");
            assert!(pad.iter().all(|e| e.inst.opcode == Opcode::Nop), "{g}");
            assert_eq!(k.instruction_count(), 2);
            assert_eq!(PREFETCH_PAD, 128);
            if matches!(g, Generation::Gen6 | Generation::Gen7) {
                // The instruction heap's bounds cover the kernel and its padding.
                let sba = one(&cmds, "STATE_BASE_ADDRESS");
                let base = sba.get("instruction_base_address");
                let bound = sba.get("instruction_access_upper_bound");
                assert!(base <= at, "{g}");
                assert!(
                    bound >= at + bin.len() as u64 + 128,
                    "{g}: bound {bound:#x}"
                );
            }
        });
    }
}

#[test]
fn kernels_share_a_heap_without_overlapping_their_padding() {
    for g in GENERATIONS {
        with_gpu(g, |gpu, p| {
            let mut cx = Compute::new(gpu).unwrap();
            let bins: Vec<Vec<u8>> = (0..3)
                .map(|n| {
                    // Kernels of 2, 3 and 4 instructions.
                    let mut b = eot_kernel(g);
                    let extra = &endless_kernel(g)[..16];
                    for _ in 0..n {
                        b.splice(0..0, extra.iter().copied());
                    }
                    b
                })
                .collect();
            let ks: Vec<_> = bins
                .iter()
                .map(|b| cx.load_kernel(gpu, &KernelDesc::new(b)).unwrap())
                .collect();
            for w in ks.windows(2) {
                let (a, b) = (&w[0], &w[1]);
                assert_eq!(b.gfx().0 % 64, 0, "{g}");
                // 128 bytes of prefetch (000 lines 9187-9193).
                assert!(
                    b.gfx().0 >= a.gfx().0 + a.len() as u64 + 128,
                    "{g}: the next kernel starts after the padding"
                );
            }
            for (k, b) in ks.iter().zip(&bins) {
                assert_eq!(gfx_read(gpu, p, k.gfx().0, b.len()), *b, "{g}");
            }
        });
    }
}

#[test]
fn a_binary_that_does_not_decode_is_refused_with_its_offset_before_anything_is_allocated() {
    for g in GENERATIONS {
        with_gpu(g, |gpu, p| {
            let mut cx = Compute::new(gpu).unwrap();
            let free = gpu.ggtt().unwrap().free_pages();
            let dma = p.dma_bytes_in_use();
            // Two good instructions (32 bytes), then opcode 0x7F, reserved on
            // every generation here (000 opcode table; notes seed-000 "0x7F reserved").
            let mut bad = eot_kernel(g);
            bad.extend_from_slice(&[0x7f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            match cx.load_kernel(gpu, &KernelDesc::new(&bad)) {
                Err(ComputeError::KernelDecode { offset, .. }) => assert_eq!(offset, 32, "{g}"),
                other => panic!("{g}: {other:?}"),
            }
            // Half an instruction at the end: truncated at the same place.
            let mut short = eot_kernel(g);
            short.extend_from_slice(&[0; 12]);
            match cx.load_kernel(gpu, &KernelDesc::new(&short)) {
                Err(ComputeError::KernelDecode { offset, .. }) => assert_eq!(offset, 32, "{g}"),
                other => panic!("{g}: {other:?}"),
            }
            assert_eq!(
                gpu.ggtt().unwrap().free_pages(),
                free,
                "{g}: no GTT space taken"
            );
            assert_eq!(p.dma_bytes_in_use(), dma, "{g}: no memory taken");
        });
    }
}

#[test]
fn kernels_that_cannot_run_are_refused() {
    for g in GENERATIONS {
        with_gpu(g, |gpu, _| {
            let mut cx = Compute::new(gpu).unwrap();
            let endless = endless_kernel(g);
            assert_eq!(
                cx.load_kernel(gpu, &KernelDesc::new(&endless)).unwrap_err(),
                ComputeError::NoEndOfThread,
                "{g}"
            );
            assert_eq!(
                cx.load_kernel(gpu, &KernelDesc::new(&[])).unwrap_err(),
                ComputeError::EmptyKernel
            );
            let bin = eot_kernel(g);
            let odd_curbe = KernelDesc {
                curbe_bytes: 40,
                ..KernelDesc::new(&bin)
            };
            assert!(matches!(
                cx.load_kernel(gpu, &odd_curbe),
                Err(ComputeError::Invalid(_))
            ));
            // Constant registers past the descriptor's read length (965/G45
            // and SNB: 6 bits) or, on Ivy Bridge, the GRF behind R0.
            let max_rows = match g {
                Generation::Gen7 => 127,
                _ => 63,
            };
            let too_many = KernelDesc {
                curbe_bytes: (max_rows + 1) * 32,
                ..KernelDesc::new(&bin)
            };
            assert!(matches!(
                cx.load_kernel(gpu, &too_many),
                Err(ComputeError::OutOfRange { .. })
            ));
            let most = KernelDesc {
                curbe_bytes: max_rows * 32,
                ..KernelDesc::new(&bin)
            };
            assert!(cx.load_kernel(gpu, &most).is_ok(), "{g}");
            let odd_grf = KernelDesc {
                grf_registers: 20,
                ..KernelDesc::new(&bin)
            };
            assert!(matches!(
                cx.load_kernel(gpu, &odd_grf),
                Err(ComputeError::Invalid(_))
            ));
            let gen7_only = [
                KernelDesc {
                    barriers: true,
                    ..KernelDesc::new(&bin)
                },
                KernelDesc {
                    slm_bytes: 4096,
                    ..KernelDesc::new(&bin)
                },
                KernelDesc {
                    simd: Simd::Simd32,
                    ..KernelDesc::new(&bin)
                },
            ];
            for d in gen7_only {
                let r = cx.load_kernel(gpu, &d);
                if g == Generation::Gen7 {
                    assert!(r.is_ok(), "{g}: {r:?}");
                } else {
                    assert!(
                        matches!(r, Err(ComputeError::Unsupported { generation, .. }) if generation == g),
                        "{g}: {r:?}"
                    );
                }
            }
        });
    }
}

#[test]
fn scratch_space_is_allocated_and_encoded_per_generation() {
    // 3000 bytes per thread: SNB encodes 1-12 KiB linearly (003 lines
    // 47440-47461): 3 KiB = 2. The others take powers of two from 1 KiB:
    // 4 KiB = 2.
    for g in GENERATIONS {
        with_gpu(g, |gpu, p| {
            let bin = eot_kernel(g);
            let mut cx = Compute::new(gpu).unwrap();
            let desc = KernelDesc {
                scratch_bytes: 3000,
                ..KernelDesc::new(&bin)
            };
            let k = cx.load_kernel(gpu, &desc).unwrap();
            let scratch = k.scratch_gfx().expect("scratch allocated").0;
            assert_eq!(scratch % 1024, 0);
            let batch = cx.record(gpu, &k, &one_thread()).unwrap();
            let cmds = commands(g, &batch);
            let (pointer, code) = match g {
                Generation::Gen4 | Generation::G45 => {
                    let vfe = vfe_state(gpu, p, &cmds);
                    (
                        vfe.get("scratch_space_base_pointer"),
                        vfe.get("per_thread_scratch_space"),
                    )
                }
                _ => {
                    let vfe = one(&cmds, "MEDIA_VFE_STATE");
                    (
                        vfe.get("scratch_space_base_pointer"),
                        vfe.get("per_thread_scratch_space"),
                    )
                }
            };
            assert_eq!(
                pointer, scratch,
                "{g}: general state base 0 makes it an address"
            );
            assert_eq!(code, 2, "{g}");
        });
    }
    with_gpu(Generation::Gen6, |gpu, _| {
        let bin = eot_kernel(Generation::Gen6);
        let mut cx = Compute::new(gpu).unwrap();
        let too_big = KernelDesc {
            scratch_bytes: 13 << 10,
            ..KernelDesc::new(&bin)
        };
        assert!(matches!(
            cx.load_kernel(gpu, &too_big),
            Err(ComputeError::OutOfRange { .. })
        ));
    });
}

#[test]
fn the_965_descriptor_carries_the_grf_block_count() {
    // 64 registers = 4 blocks of 16, written minus one.
    for g in [Generation::Gen4, Generation::G45] {
        with_gpu(g, |gpu, p| {
            let bin = eot_kernel(g);
            let mut cx = Compute::new(gpu).unwrap();
            let desc = KernelDesc {
                grf_registers: 64,
                single_program_flow: true,
                ..KernelDesc::new(&bin)
            };
            let k = cx.load_kernel(gpu, &desc).unwrap();
            let batch = cx.record(gpu, &k, &one_thread()).unwrap();
            let cmds = commands(g, &batch);
            let id = interface_descriptor(gpu, p, &cmds);
            assert_eq!(id.get("grf_register_block_count"), 3);
            assert_eq!(id.get("single_program_flow"), 1);
        });
    }
}
