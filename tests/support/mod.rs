//! What the submission tests of every generation share: helpers, and the
//! tests whose steps do not depend on the generation. The including module
//! provides `setup`, `sdi(addr, value)` (a store through the GTT) and
//! `batch_start(addr)` (a GTT batch start), which differ per generation.

#![allow(dead_code)]

/// A copy of a mapped buffer's dwords (read after the GPU finished with it).
pub fn words(buffer: &baregpu::Dma<'_>) -> Vec<u32> {
    buffer.to_u32s()
}

/// The generation-independent tests, expanded inside a generation's module.
/// `$page_fault_bit`: the EIR bit of a page-table error; `$head_wraps`:
/// whether the last engine's RING_HEAD counts the ring's wraps (one ring
/// per engine, Gen4-Gen7; Gen12.5's rings are per context).
#[macro_export]
macro_rules! shared_submission_tests {
    ($generation:expr, $page_fault_bit:expr) => {
        shared_submission_tests!($generation, $page_fault_bit, true);
    };
    ($generation:expr, $page_fault_bit:expr, $head_wraps:expr) => {
        #[test]
        fn every_engine_runs_work() {
            let p = HostPlatform::new();
            let soft = setup(&p);
            let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
            let engines: Vec<EngineId> = (0..gpu.engines().count()).map(EngineId).collect();
            let (buf, map) = gpu.map_buffer(4096).unwrap();
            for (k, &e) in engines.iter().enumerate() {
                let mut b = gpu.new_batch(4096).unwrap();
                b.push(&sdi(map.gfx.0 + 4 * k as u64, 100 + k as u32))
                    .unwrap();
                let f = gpu.submit(e, b).unwrap();
                gpu.wait(f, 1_000_000).unwrap();
                assert_eq!(gpu.completed(e), f.seqno);
            }
            let want: Vec<u32> = (0..engines.len() as u32).map(|k| 100 + k).collect();
            assert_eq!(&words(&buf)[..engines.len()], &want[..]);
        }

        #[test]
        fn a_chain_of_1000_batches() {
            let p = HostPlatform::new();
            let soft = setup(&p);
            let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
            let (buf, map) = gpu.map_buffer(4096).unwrap();
            // Build back to front: batch k stores k, then jumps to batch k+1.
            let mut next: Option<u64> = None;
            let mut first = None;
            let mut keep = Vec::new();
            for k in (0..1000u32).rev() {
                let mut b = gpu.new_batch(4096).unwrap();
                b.push(&sdi(map.gfx.0 + 4 * k as u64, k)).unwrap();
                match next {
                    Some(addr) => b.push(&batch_start(addr)).unwrap(),
                    None => b.push(&MiBatchBufferEnd::default()).unwrap(),
                }
                next = Some(b.gfx().0);
                if k == 0 {
                    first = Some(b)
                } else {
                    keep.push(b)
                }
            }
            let fence = gpu.submit(EngineId::RENDER, first.unwrap()).unwrap();
            gpu.wait(fence, 10_000_000).unwrap();
            let w = words(&buf);
            assert!((0..1000u32).all(|k| w[k as usize] == k));
            assert!(soft.stats().batches >= 1000);
        }

        #[test]
        fn the_ring_wraps_many_times_with_no_lost_or_repeated_work() {
            let p = HostPlatform::new();
            let soft = setup(&p);
            let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
            let engine = EngineId(gpu.engines().count() - 1);
            let base = gpu.engines().last().unwrap().base;
            let (buf, map) = gpu.map_buffer(4 * 4096).unwrap();
            let mut last = None;
            // Each submission takes 32 ring bytes (Gen4/G45) or 48 (Gen6/Gen7): 4000 of
            // them go round a 32 KiB ring at least three times (Gen12.5: 48 or
            // more bytes in a context's 16 KiB ring).
            for k in 0..4000u32 {
                let mut b = gpu.new_batch(4096).unwrap();
                // One store per slot, and a count of batches: a lost one leaves a 0, a repeated one
                // shows in the count.
                b.push(&sdi(map.gfx.0 + 4 * k as u64, k + 1)).unwrap();
                let f = gpu.submit(engine, b).unwrap();
                if k % 200 == 199 {
                    gpu.wait(f, 1_000_000).unwrap();
                }
                last = Some(f);
            }
            gpu.wait(last.unwrap(), 1_000_000).unwrap();
            let w = words(&buf);
            assert!((0..4000u32).all(|k| w[k as usize] == k + 1));
            assert_eq!(soft.stats().batches, 4000, "every batch ran exactly once");
            let head = gpu.mmio().read32(base + 0x34);
            assert!(
                !$head_wraps || head >> 21 >= 3,
                "HEAD's wrap count shows the ring wrapped: {head:#x}"
            );
        }

        #[test]
        fn user_interrupts_raise_and_clear() {
            let p = HostPlatform::new();
            let soft = setup(&p);
            let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
            let b = gpu.new_batch(4096).unwrap();
            let f = gpu.submit(EngineId::RENDER, b).unwrap();
            gpu.wait(f, 1_000_000).unwrap();
            assert_eq!(gpu.take_interrupts(), 0, "masked interrupts stay invisible");
            gpu.enable_user_interrupts();
            let mut bits = 0;
            for e in (0..gpu.engines().count()).map(EngineId) {
                let b = gpu.new_batch(4096).unwrap();
                let f = gpu.submit(e, b).unwrap();
                gpu.wait(f, 1_000_000).unwrap();
                bits |= 1 << gpu.user_interrupt_bit(e).unwrap();
            }
            assert_eq!(gpu.take_interrupts(), bits);
            assert_eq!(
                gpu.take_interrupts(),
                0,
                "acknowledged: nothing left pending"
            );
        }

        #[test]
        fn an_unknown_command_is_reported_decoded_and_the_engine_recovers() {
            let p = HostPlatform::new();
            let soft = setup(&p);
            let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
            let (buf, map) = gpu.map_buffer(4096).unwrap();
            let mut b = gpu.new_batch(4096).unwrap();
            b.push(&sdi(map.gfx.0, 1)).unwrap();
            b.push_dwords(&[0x0780_0000]).unwrap(); // MI opcode 0Fh: no generation here has it
            b.push(&sdi(map.gfx.0 + 4, 2)).unwrap();
            let f = gpu.submit(EngineId::RENDER, b).unwrap();
            let Err(GpuError::Hang(state)) = gpu.wait(f, 1_000_000) else {
                panic!("expected an error")
            };
            assert_eq!(state.reason, HangReason::EngineError);
            assert_eq!(state.eir & 1, 1, "instruction error in EIR");
            assert_eq!(state.ipehr, 0x0780_0000, "IPEHR holds the bad header");
            let dump = state.to_string();
            assert!(
                dump.contains("MI_STORE_DATA_IMM") && dump.contains("=> "),
                "{dump}"
            );
            assert!(dump.contains("unknown command"), "{dump}");
            assert_eq!(
                words(&buf)[..2],
                [1, 0],
                "the command after the error did not run"
            );
            assert!(soft.stats().resets >= 1);
            // The engine was reset and takes new work.
            let mut b = gpu.new_batch(4096).unwrap();
            b.push(&sdi(map.gfx.0 + 8, 3)).unwrap();
            let f = gpu.submit(EngineId::RENDER, b).unwrap();
            gpu.wait(f, 1_000_000).unwrap();
            assert_eq!(words(&buf)[2], 3);
        }

        #[test]
        fn a_runaway_batch_loop_is_a_hang_and_work_queued_behind_it_is_lost() {
            let p = HostPlatform::new();
            let soft = setup(&p);
            let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
            let mut b = gpu.new_batch(4096).unwrap();
            let top = b.gfx().0;
            b.push(&MiNoop::default()).unwrap();
            b.push(&batch_start(top)).unwrap();
            let hung = gpu.submit(EngineId::RENDER, b).unwrap();
            let empty = gpu.new_batch(4096).unwrap();
            let behind = gpu.submit(EngineId::RENDER, empty).unwrap();
            let Err(GpuError::Hang(state)) = gpu.wait(hung, 5_000) else {
                panic!("expected a hang")
            };
            assert_eq!(state.reason, HangReason::Timeout);
            assert_eq!(gpu.wait(behind, 5_000), Err(GpuError::Lost(behind)));
            let empty = gpu.new_batch(4096).unwrap();
            let f = gpu.submit(EngineId::RENDER, empty).unwrap();
            gpu.wait(f, 1_000_000).unwrap();
        }

        #[test]
        fn a_store_through_an_invalid_gtt_entry_faults_without_a_host_crash() {
            let p = HostPlatform::new();
            let soft = setup(&p);
            let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
            let last = EngineId(gpu.engines().count() - 1);
            // Where unused entries point at the scratch page (Gen4-Gen7), make
            // this one invalid, as a stray PTE write would; Gen12.5's driver
            // keeps no scratch page and leaves unused entries invalid.
            let mmio = gpu.mmio();
            if gpu.bring_up().scratch.is_some() {
                gpu.ggtt().unwrap().write_entry(mmio, 0x1fff_0000 / 4096, 0);
            }
            let mut b = gpu.new_batch(4096).unwrap();
            b.push(&sdi(0x1fff_0000, 1)).unwrap();
            let f = gpu.submit(last, b).unwrap();
            let Err(GpuError::Hang(state)) = gpu.wait(f, 1_000_000) else {
                panic!("expected a fault")
            };
            let bit = 1 << $page_fault_bit;
            assert_eq!(state.eir & bit, bit, "page table error in EIR: {state}");
            let empty = gpu.new_batch(4096).unwrap();
            let f = gpu.submit(last, empty).unwrap();
            gpu.wait(f, 1_000_000).unwrap();
        }
    };
}
