//! End to end on Ivy Bridge: a work-group reduction. Each group of 64
//! invocations (four SIMD16 threads) sums 64 integers: every thread adds
//! its 16 lanes, stores the partial sum in the group's shared local memory
//! (binding table index 254 [ext: Mesa GEN7_BTI_SLM]), meets the others at
//! a gateway barrier (`send` BarrierMsg then `wait n0` [ext: Mesa
//! emit_barrier]), and thread 0 adds the four partials and writes the
//! group's sum. Checked against the host; the same kernel without the
//! barrier reads partials that are not there yet, which shows the barrier
//! orders the threads.

mod compute_run_common;

use baregpu::compute::{Compute, Dispatch, KernelDesc, Resource, Simd, Threads};
use baregpu::hal::Generation;
use compute_run_common::*;

const G: Generation = Generation::Gen7;
const GROUPS: usize = 64;
const THREADS: usize = 4;
const GROUP_SIZE: usize = THREADS * 16;

const BARRIER: &str = "mov (8|M0) r112.0<1>:ud 0x0:ud\n\
                       and (1|M0) r112.2<1>:ud r0.2<0;1,0>:ud 0x0f000000:ud\n\
                       send (8|M0) null:ud r112 gw.barrier() mlen=1 rlen=0\n\
                       wait (1|M0) n0.0<0;1,0>:ud\n";

/// r0.1 = group ID X, r1.0 = thread index in the group (its CURBE block).
fn reduce_kernel(barrier: bool) -> Vec<u8> {
    let mut k = String::new();
    k += "mov (8|M0) r30.0<1>:ud 0x76543210:v\n";
    k += "add (8|M0) r31.0<1>:ud r30.0<8;8,1>:ud 0x8:ud\n";
    // The thread's 16 elements: (X * 4 + t) * 16 + lane, as byte addresses.
    k += "shl (1|M0) r32.0<1>:ud r0.1<0;1,0>:ud 0x2:ud\n";
    k += "add (1|M0) r32.0<1>:ud r32.0<0;1,0>:ud r1.0<0;1,0>:ud\n";
    k += "shl (1|M0) r32.0<1>:ud r32.0<0;1,0>:ud 0x4:ud\n";
    k += "add (8|M0) r112.0<1>:ud r30.0<8;8,1>:ud r32.0<0;1,0>:ud\n";
    k += "add (8|M0) r113.0<1>:ud r31.0<8;8,1>:ud r32.0<0;1,0>:ud\n";
    k += "shl (8|M0) r112.0<1>:ud r112.0<8;8,1>:ud 0x2:ud\n";
    k += "shl (8|M0) r113.0<1>:ud r113.0<8;8,1>:ud 0x2:ud\n";
    k += "send (16|M0) r20:ud r112 dc.untyped_read(bti=0, simd=16, mask=x) mlen=2 rlen=2\n";
    // Horizontal sum of the 16 lanes.
    k += "add (8|M0) r24.0<1>:ud r20.0<8;8,1>:ud r21.0<8;8,1>:ud\n";
    k += "add (4|M0) r25.0<1>:ud r24.0<4;4,1>:ud r24.4<4;4,1>:ud\n";
    k += "add (2|M0) r26.0<1>:ud r25.0<2;2,1>:ud r25.2<2;2,1>:ud\n";
    k += "add (1|M0) r27.0<1>:ud r26.0<0;1,0>:ud r26.1<0;1,0>:ud\n";
    // The partial sum to SLM dword t (every lane writes the same dword).
    k += "shl (1|M0) r28.0<1>:ud r1.0<0;1,0>:ud 0x2:ud\n";
    k += "mov (8|M0) r112.0<1>:ud r28.0<0;1,0>:ud\n";
    k += "mov (8|M0) r113.0<1>:ud r27.0<0;1,0>:ud\n";
    k += "send (8|M0) null:ud r112 dc.untyped_write(bti=254, simd=8, mask=x) mlen=2 rlen=0\n";
    if barrier {
        k += BARRIER;
    }
    // Thread 0 reads SLM dwords 0-7, adds the first four, writes out[X].
    k += "cmp (1|M0) (ne)f0.0 null<1>:ud r1.0<0;1,0>:ud 0x0:ud\n";
    k += "(W&f0.0) jmpi END\n";
    k += "shl (8|M0) r112.0<1>:ud r30.0<8;8,1>:ud 0x2:ud\n";
    k += "send (8|M0) r40:ud r112 dc.untyped_read(bti=254, simd=8, mask=x) mlen=1 rlen=1\n";
    k += "add (2|M0) r41.0<1>:ud r40.0<2;2,1>:ud r40.2<2;2,1>:ud\n";
    k += "add (1|M0) r42.0<1>:ud r41.0<0;1,0>:ud r41.1<0;1,0>:ud\n";
    k += "shl (1|M0) r43.0<1>:ud r0.1<0;1,0>:ud 0x2:ud\n";
    k += "mov (8|M0) r112.0<1>:ud r43.0<0;1,0>:ud\n";
    k += "mov (8|M0) r113.0<1>:ud r42.0<0;1,0>:ud\n";
    k += "send (8|M0) null:ud r112 dc.untyped_write(bti=1, simd=8, mask=x) mlen=2 rlen=0\n";
    k += "END:\n";
    k += &end_thread(G);
    assemble(G, &k)
}

/// Runs the reduction; returns the group sums and the host's.
fn reduce(barrier: bool) -> (Vec<u32>, Vec<u32>) {
    let mut result = (Vec::new(), Vec::new());
    with_soft(G, |gpu, soft| {
        let mut cx = Compute::new(gpu).unwrap();
        let input: Vec<u32> = (0..GROUPS * GROUP_SIZE)
            .map(|i| (i as u32).wrapping_mul(2_654_435_761) >> 7)
            .collect();
        let bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
        let inb = cx.upload_buffer(gpu, &bytes).unwrap();
        let out = cx.create_buffer(gpu, GROUPS * 4).unwrap();
        let bin = reduce_kernel(barrier);
        let desc = KernelDesc {
            simd: Simd::Simd16,
            curbe_bytes: 32,
            bindings: &[0, 1],
            barriers: true,
            slm_bytes: 4096,
            ..KernelDesc::new(&bin)
        };
        let k = cx.load_kernel(gpu, &desc).unwrap();
        // One CURBE block per thread of a group: its index in r1.0.
        let curbe: Vec<u8> = (0..THREADS as u32)
            .flat_map(|t| {
                let mut b = [0u8; 32];
                b[..4].copy_from_slice(&t.to_le_bytes());
                b
            })
            .collect();
        let bindings = [(0, Resource::Buffer(&inb)), (1, Resource::Buffer(&out))];
        let d = Dispatch {
            threads: Threads::Groups {
                groups: [GROUPS as u32, 1, 1],
                group_size: [GROUP_SIZE as u32, 1, 1],
            },
            curbe: &curbe,
            bindings: &bindings,
        };
        let fence = cx.dispatch(gpu, &k, &d).unwrap();
        gpu.wait(fence, DONE_US)
            .unwrap_or_else(|e| panic!("{e}\nEU: {:?}", soft.eu_report()));
        let mut raw = vec![0u8; GROUPS * 4];
        out.read(0, &mut raw).unwrap();
        let got = raw
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let want = input
            .chunks(GROUP_SIZE)
            .map(|g| g.iter().fold(0u32, |a, v| a.wrapping_add(*v)))
            .collect();
        let stats = soft.eu_stats();
        assert_eq!(stats.completed, (GROUPS * THREADS) as u64);
        if barrier {
            assert_eq!(stats.barriers, GROUPS as u64, "one barrier per group");
        }
        result = (got, want);
    });
    result
}

#[test]
fn a_group_reduction_with_barrier_and_shared_local_memory() {
    let (got, want) = reduce(true);
    assert_eq!(got, want);
}

#[test]
fn without_the_barrier_thread_0_reads_partials_too_early() {
    let (got, want) = reduce(false);
    let wrong = got.iter().zip(&want).filter(|(a, b)| a != b).count();
    assert!(
        wrong > 0,
        "the scheduler interleaves threads, so a missing barrier must show"
    );
}
