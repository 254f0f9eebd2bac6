//! End to end through the driver on the software GPU: c = a + b over
//! 1 Mi 32-bit integers (wrapping), checked element by element against the
//! host.
//!
//! * 965, G45, SNB: media objects. Each thread adds 256 elements in eight
//!   steps of an OWord block read of each input (8 OWords = 32 dwords into
//!   four registers), four SIMD8 adds and an OWord block write (000 lines
//!   4503-4664; 003 lines 83580-83772). The sends are SIMD16: the 16
//!   channel enables gate the registers' OWords (000 lines 4553-4557). Its first element's offset comes
//!   in its inline data, in bytes on Gen4/G45 and OWords on SNB (the
//!   Global Offset units, 000 line 4518, 003 lines 83583-83606).
//! * Ivy Bridge: GPGPU_WALKER, groups of 64 invocations run by four SIMD16
//!   threads; each thread finds its elements from the group ID in R0.1 and
//!   its index in the group, which its own CURBE block carries, and moves
//!   data with SIMD16 untyped surface reads and writes of RAW buffers
//!   [ext: Mesa brw_eu_defines.h untyped surface messages].
//!
//! 1 Mi elements is 4096 threads of 256; the test takes well under a
//! second in debug builds (the workspace builds tests with opt-level 1).

mod compute_run_common;

use baregpu::compute::{Compute, Dispatch, KernelDesc, Resource, Simd, Threads};
use baregpu::hal::Generation;
use compute_run_common::*;

const N: usize = 1 << 20;
const PER_THREAD: usize = 256;
/// Elements one OWord block message moves: 8 OWords of 4 dwords.
const BLOCK: usize = 32;

fn read_port(g: Generation) -> &'static str {
    match g {
        Generation::Gen4 | Generation::G45 => "dpr",
        Generation::Gen6 => "rc",
        _ => "dc",
    }
}

/// The media kernel: r1.0 = the thread's first offset (bytes or OWords).
fn media_kernel(g: Generation) -> Vec<u8> {
    let (cache, hdr) = match g {
        Generation::Gen4 | Generation::G45 => (", cache=data", ""),
        _ => ("", " hdr"),
    };
    // The Global Offset of the next block: 128 bytes, or 8 OWords.
    let step = if g >= Generation::Gen6 { 8 } else { 128 };
    let mut k = String::from("mov (8|M0) r10.0<1>:ud r0.0<8;8,1>:ud\n");
    for s in 0..PER_THREAD / BLOCK {
        k += &format!("add (1|M0) r10.2<1>:ud r1.0<0;1,0>:ud {:#x}:ud\n", s * step);
        for (bti, dst) in [(0, "r20"), (1, "r24")] {
            let desc = format!(
                "{}.oword_block_read(bti={bti}, owords=8{cache}) mlen=1 rlen=4{hdr}",
                read_port(g)
            );
            k += &send_n(g, 16, "r10", dst, &desc);
        }
        for r in 0..4 {
            k += &format!(
                "add (8|M0) {}.0<1>:ud r{}.0<8;8,1>:ud r{}.0<8;8,1>:ud\n",
                msg(g, r + 1),
                20 + r,
                24 + r
            );
        }
        let port = if g <= Generation::G45 {
            "dpw"
        } else {
            read_port(g)
        };
        let desc = format!("{port}.oword_block_write(bti=2, owords=8) mlen=5 rlen=0{hdr}");
        k += &send_n(g, 16, "r10", "null", &desc);
    }
    k += &end_thread(g);
    assemble(g, &k)
}

/// Threads in one GPGPU group (64 invocations at SIMD16).
const GROUP_THREADS: usize = 4;

/// The GPGPU kernel: r0.1 = group ID X, r1.0 = thread index in the group.
fn gpgpu_kernel() -> Vec<u8> {
    let g = Generation::Gen7;
    let mut k = String::new();
    // Lanes 0-15 in r30, r31.
    k += "mov (8|M0) r30.0<1>:ud 0x76543210:v\n";
    k += "add (8|M0) r31.0<1>:ud r30.0<8;8,1>:ud 0x8:ud\n";
    // First element: (X * 4 + t) * 256.
    k += "shl (1|M0) r32.0<1>:ud r0.1<0;1,0>:ud 0x2:ud\n";
    k += "add (1|M0) r32.0<1>:ud r32.0<0;1,0>:ud r1.0<0;1,0>:ud\n";
    k += "shl (1|M0) r32.0<1>:ud r32.0<0;1,0>:ud 0x8:ud\n";
    // Byte addresses of the first 16 elements in r36, r37.
    k += "add (8|M0) r36.0<1>:ud r30.0<8;8,1>:ud r32.0<0;1,0>:ud\n";
    k += "add (8|M0) r37.0<1>:ud r31.0<8;8,1>:ud r32.0<0;1,0>:ud\n";
    k += "shl (8|M0) r36.0<1>:ud r36.0<8;8,1>:ud 0x2:ud\n";
    k += "shl (8|M0) r37.0<1>:ud r37.0<8;8,1>:ud 0x2:ud\n";
    for s in 0..PER_THREAD / 16 {
        let off = s * 64;
        k += &format!("add (8|M0) r112.0<1>:ud r36.0<8;8,1>:ud {off:#x}:ud\n");
        k += &format!("add (8|M0) r113.0<1>:ud r37.0<8;8,1>:ud {off:#x}:ud\n");
        k += "send (16|M0) r20:ud r112 dc.untyped_read(bti=0, simd=16, mask=x) mlen=2 rlen=2\n";
        k += "send (16|M0) r22:ud r112 dc.untyped_read(bti=1, simd=16, mask=x) mlen=2 rlen=2\n";
        k += "add (8|M0) r114.0<1>:ud r20.0<8;8,1>:ud r22.0<8;8,1>:ud\n";
        k += "add (8|M0) r115.0<1>:ud r21.0<8;8,1>:ud r23.0<8;8,1>:ud\n";
        k += "send (16|M0) null:ud r112 dc.untyped_write(bti=2, simd=16, mask=x) mlen=4 rlen=0\n";
    }
    k += &end_thread(g);
    assemble(g, &k)
}

/// xorshift64*: inputs the host can regenerate.
fn inputs(seed: u64) -> Vec<u32> {
    let mut s = seed;
    (0..N)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            (s.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
        })
        .collect()
}

fn bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn vector_add(g: Generation) {
    with_soft(g, |gpu, soft| {
        let mut cx = Compute::new(gpu).unwrap();
        let a = inputs(1 + g as u64);
        let b = inputs(1000 + g as u64);
        let ba = cx.upload_buffer(gpu, &bytes(&a)).unwrap();
        let bb = cx.upload_buffer(gpu, &bytes(&b)).unwrap();
        let bc = cx.create_buffer(gpu, N * 4).unwrap();
        let bindings = [
            (0, Resource::Buffer(&ba)),
            (1, Resource::Buffer(&bb)),
            (2, Resource::Buffer(&bc)),
        ];
        let threads = N / PER_THREAD;
        let bin;
        let per_thread_curbe: Vec<u8>;
        let inline: Vec<u32>;
        let (desc, d) = if g == Generation::Gen7 {
            bin = gpgpu_kernel();
            per_thread_curbe = (0..GROUP_THREADS as u32)
                .flat_map(|t| {
                    let mut block = [0u8; 32];
                    block[..4].copy_from_slice(&t.to_le_bytes());
                    block
                })
                .collect();
            (
                KernelDesc {
                    simd: Simd::Simd16,
                    curbe_bytes: 32,
                    bindings: &[0, 1, 2],
                    ..KernelDesc::new(&bin)
                },
                Dispatch {
                    threads: Threads::Groups {
                        groups: [(threads / GROUP_THREADS) as u32, 1, 1],
                        group_size: [(GROUP_THREADS * 16) as u32, 1, 1],
                    },
                    curbe: &per_thread_curbe,
                    bindings: &bindings,
                },
            )
        } else {
            bin = media_kernel(g);
            let unit = if g >= Generation::Gen6 { 16 } else { 1 };
            inline = (0..threads)
                .map(|t| (t * PER_THREAD * 4 / unit) as u32)
                .collect();
            (
                KernelDesc {
                    bindings: &[0, 1, 2],
                    ..KernelDesc::new(&bin)
                },
                Dispatch {
                    threads: Threads::Objects {
                        count: threads,
                        inline: &inline,
                    },
                    curbe: &[],
                    bindings: &bindings,
                },
            )
        };
        let k = cx.load_kernel(gpu, &desc).unwrap();
        let fence = cx.dispatch(gpu, &k, &d).unwrap();
        gpu.wait(fence, DONE_US)
            .unwrap_or_else(|e| panic!("{g}: {e}\nEU: {:?}", soft.eu_report()));
        let mut out = vec![0u8; N * 4];
        bc.read(0, &mut out).unwrap();
        for (i, c) in out.chunks(4).enumerate() {
            let got = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            assert_eq!(got, a[i].wrapping_add(b[i]), "{g}: element {i}");
        }
        let stats = soft.eu_stats();
        assert_eq!(stats.completed, threads as u64, "{g}");
        // One kernel, decoded once for all its threads.
        assert_eq!(soft.eu_decodes(), 1, "{g}");
    });
}

#[test]
fn media_threads_add_a_million_elements_on_965_g45_and_snb() {
    for g in [Generation::Gen4, Generation::G45, Generation::Gen6] {
        vector_add(g);
    }
}

#[test]
fn gpgpu_groups_add_a_million_elements_on_ivy_bridge() {
    vector_add(Generation::Gen7);
}
