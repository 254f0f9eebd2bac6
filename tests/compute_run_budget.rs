//! End to end on the software GPU: EU threads run only within the device's
//! run budget, which grows each time the driver touches MMIO, so a long
//! dispatch spans many polls; meanwhile the engine stays inside the batch
//! (its head does not pass the commands that wait for the threads) and
//! the fence is not written; in the end every thread's work is there.

mod compute_run_common;

use baregpu::compute::{Compute, Dispatch, KernelDesc, Resource, Threads};
use baregpu::hal::Generation;
use baregpu_soft::eu::array::EuConfig;
use compute_run_common::*;

const G: Generation = Generation::Gen6;
const THREADS: usize = 200;
/// ACTHD of the render ring: base 0x2000 + 0x74 [ext: Linux i915_reg.h
/// RING_ACTHD]; notes seed-003-snb-core §4.1.
const ACTHD: u32 = 0x2074;

/// Spins 100 times, then stores 7 * ID + 1 with a one-OWord block write at
/// OWord ID (inline r1.0 = ID).
fn slow_kernel() -> Vec<u8> {
    let text = format!(
        "mov (1|M0) r5.0<1>:ud 0x64:ud\n\
         LOOP:\n\
         add (1|M0) (ne)f0.0 r5.0<1>:d r5.0<0;1,0>:d -1:d\n\
         (W&f0.0) jmpi LOOP\n\
         mov (8|M0) r10.0<1>:ud r0.0<8;8,1>:ud\n\
         mov (1|M0) r10.2<1>:ud r1.0<0;1,0>:ud\n\
         mul (1|M0) r11.0<1>:ud r1.0<0;1,0>:ud 0x7:ud\n\
         add (8|M0) m2.0<1>:ud r11.0<0;1,0>:ud 0x1:ud\n\
         {}{}",
        send(
            G,
            "r10",
            "null",
            "rc.oword_block_write(bti=0, owords=1lo) mlen=2 rlen=0 hdr"
        ),
        end_thread(G)
    );
    assemble(G, &text)
}

#[test]
fn a_long_dispatch_spans_many_run_budgets() {
    with_soft(G, |gpu, soft| {
        // One EU instruction per command of the budget: the submission's
        // TAIL write buys 4096, each register read 256.
        let config = soft.eu_config().unwrap();
        soft.set_eu_config(EuConfig {
            per_command: 1,
            ..config
        });
        let mut cx = Compute::new(gpu).unwrap();
        let bin = slow_kernel();
        let k = cx
            .load_kernel(
                gpu,
                &KernelDesc {
                    bindings: &[0],
                    ..KernelDesc::new(&bin)
                },
            )
            .unwrap();
        let out = cx.create_buffer(gpu, THREADS * 16).unwrap();
        let inline: Vec<u32> = (0..THREADS as u32).collect();
        let bindings = [(0, Resource::Buffer(&out))];
        let d = Dispatch {
            threads: Threads::Objects {
                count: THREADS,
                inline: &inline,
            },
            curbe: &[],
            bindings: &bindings,
            samplers: &[],
        };
        let batch = cx.record(gpu, &k, &d).unwrap();
        let (start, end) = (batch.gfx().0, batch.gfx().0 + 4 * batch.len() as u64);
        let fence = gpu.submit(cx.engine(), batch).unwrap();
        let after_submit = soft.eu_stats().instructions;
        let quantum = u64::from(config.quantum);
        assert!(
            after_submit > 0 && after_submit <= 4096 + quantum,
            "{after_submit}"
        );
        let (mut polls, mut inside) = (0, 0);
        let mut last = after_submit;
        loop {
            let acthd = u64::from(gpu.mmio().read32(ACTHD));
            if (start..end).contains(&acthd) {
                inside += 1;
            } else {
                // The engine leaves the batch only once every thread ended.
                assert_eq!(
                    soft.eu_stats().completed,
                    THREADS as u64,
                    "ACTHD {acthd:#x} left the batch {start:#x}..{end:#x} early"
                );
            }
            if gpu.poll(fence) {
                break;
            }
            polls += 1;
            let now = soft.eu_stats().instructions;
            // Two register reads per turn of this loop (ACTHD and the
            // poll's HEAD; the fence itself is in memory): at most 2 x 256
            // instructions, and a quantum past the budget.
            assert!(now > last && now - last <= 512 + quantum, "{last} -> {now}");
            last = now;
            assert!(polls < 10_000, "no progress");
        }
        assert!(inside > 20, "{inside} polls found the engine in the batch");
        let total = soft.eu_stats().instructions;
        assert!(polls > 20, "{polls} polls for {total} instructions");
        assert!(total > 200 * 200, "each thread spins 100 times: {total}");
        assert_eq!(soft.eu_stats().completed, THREADS as u64);
        let mut raw = vec![0u8; THREADS * 16];
        out.read(0, &mut raw).unwrap();
        for id in 0..THREADS {
            let v = u32::from_le_bytes(raw[16 * id..16 * id + 4].try_into().unwrap());
            assert_eq!(v, 7 * id as u32 + 1, "thread {id}");
        }
    });
}
