//! Issue 6 acceptance, whole kernels the existing tests did not cover:
//! scattered reads and writes through each generation's data port (Gen4/
//! G45 data port read/write units, Gen6 render cache, Gen7/Gen7.5 data
//! cache) computing float and integer vector adds; a shared-local-memory
//! reduction with barriers on the Gen7 and Gen7.5 EU arrays; untyped
//! atomics from one thread and from many. Each kernel is assembled with
//! the EU toolkit and checked against the same computation on the host.
//!
//! (Vector add, dot products, the loop with break and continue and nested
//! if/else on every generation are in eu_kernels.rs and eu_flow.rs.)

// Lanes index several host arrays at once.
#![allow(clippy::needless_range_loop)]

mod eu_accept;

use baregpu_isa::IsaGen;
use baregpu_soft::eu::array::GroupSpec;
use baregpu_soft::eu::array::payload::RootHeader;
use baregpu_soft::eu::shared::FlatMemory;
use eu_accept::kernels::{self, MEM, end_thread};
use eu_accept::support::{self, Mode};
use eu_accept::values::{Rng, random_f};

/// Byte offsets of the vector-add buffers in the surface.
const A: u32 = 0x000;
const B: u32 = 0x100;
const IA: u32 = 0x200;
const IB: u32 = 0x300;
const C: u32 = 0x400;
const D: u32 = 0x500;

/// A dword scattered read of the 8 elements at byte offset `base` plus
/// the lane's index (held as dwords in `idx`) into `dst`, and the matching
/// write of `data`. Gen4/G45: offsets in bytes, the header from the
/// implied move of r0 (000 lines 4800-4910); Gen6: offsets in dwords,
/// header m1 (003 lines 84440-84640); Gen7+: the same in GRFs r112-r114
/// [ext: Mesa brw_eu_emit.c brw_dword_scattered_read].
fn read(p: IsaGen, idx: u8, base: u32, dst: u8) -> String {
    match p {
        IsaGen::Gen4 | IsaGen::G45 => format!(
            "shl (8|M0) r20.0<1>:ud r{idx}.0<8;8,1>:ud 0x2:ud\n\
             add (8|M0) m2.0<1>:ud r20.0<8;8,1>:ud {base:#x}:ud\n\
             send (8|M0) r{dst}:ud m1 r0:ud dpr.dword_scattered_read(bti=1, simd=8, cache=data) mlen=2 rlen=1\n"
        ),
        IsaGen::Gen6 => format!(
            "add (8|M0) m2.0<1>:ud r{idx}.0<8;8,1>:ud {:#x}:ud\n\
             send (8|M0) r{dst}:ud m1 rc.dword_scattered_read(bti=1, simd=8) mlen=2 rlen=1 hdr\n",
            base / 4
        ),
        _ => format!(
            "add (8|M0) r113.0<1>:ud r{idx}.0<8;8,1>:ud {:#x}:ud\n\
             send (8|M0) r{dst}:ud r112 dc.dword_scattered_read(bti=1, simd=8) mlen=2 rlen=1 hdr\n",
            base / 4
        ),
    }
}

fn write(p: IsaGen, idx: u8, base: u32, data: u8) -> String {
    match p {
        IsaGen::Gen4 | IsaGen::G45 => format!(
            "shl (8|M0) r20.0<1>:ud r{idx}.0<8;8,1>:ud 0x2:ud\n\
             add (8|M0) m2.0<1>:ud r20.0<8;8,1>:ud {base:#x}:ud\n\
             mov (8|M0) m3.0<1>:ud r{data}.0<8;8,1>:ud\n\
             send (8|M0) null:ud m1 r0:ud dpw.dword_scattered_write(bti=1, simd=8) mlen=3 rlen=0\n"
        ),
        IsaGen::Gen6 => format!(
            "add (8|M0) m2.0<1>:ud r{idx}.0<8;8,1>:ud {:#x}:ud\n\
             mov (8|M0) m3.0<1>:ud r{data}.0<8;8,1>:ud\n\
             send (8|M0) null:ud m1 rc.dword_scattered_write(bti=1, simd=8) mlen=3 rlen=0 hdr\n",
            base / 4
        ),
        _ => format!(
            "add (8|M0) r113.0<1>:ud r{idx}.0<8;8,1>:ud {:#x}:ud\n\
             mov (8|M0) r114.0<1>:ud r{data}.0<8;8,1>:ud\n\
             send (8|M0) null:ud r112 dc.dword_scattered_write(bti=1, simd=8) mlen=3 rlen=0 hdr\n",
            base / 4
        ),
    }
}

/// The kernel: two SIMD8 passes over scattered indices (r2, r3), each
/// gathering A, B, IA, IB, adding as F and as D, and scattering C, D.
fn scattered_add(p: IsaGen) -> String {
    let mut k = String::new();
    // The message header: r0 (Global Offset 0 here).
    match p {
        IsaGen::Gen4 | IsaGen::G45 => {}
        IsaGen::Gen6 => k += "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {NoMask}\n",
        _ => k += "mov (8|M0) r112.0<1>:ud r0.0<8;8,1>:ud {NoMask}\n",
    }
    for idx in [2u8, 3] {
        k += &read(p, idx, A, 10);
        k += &read(p, idx, B, 11);
        k += &read(p, idx, IA, 13);
        k += &read(p, idx, IB, 14);
        k += "add (8|M0) r12.0<1>:f r10.0<8;8,1>:f r11.0<8;8,1>:f\n";
        k += "add (8|M0) r15.0<1>:d r13.0<8;8,1>:d r14.0<8;8,1>:d\n";
        k += &write(p, idx, C, 12);
        k += &write(p, idx, D, 15);
    }
    k += end_thread(p);
    k
}

#[test]
fn scattered_vector_add_through_each_data_port() {
    for p in IsaGen::ALL {
        let mut rng = Rng(0xADD0 + p as u64);
        let mut u = kernels::units();
        // A permutation of 0..16: lanes gather from scattered elements.
        let idx: Vec<u32> = (0..16).map(|i| (5 * i + 3) % 16).collect();
        let a: Vec<f32> = (0..16)
            .map(|_| f32::from_bits(random_f(&mut rng) & 0xBFFF_FFFF))
            .collect();
        let b: Vec<f32> = (0..16)
            .map(|_| f32::from_bits(random_f(&mut rng) & 0xBFFF_FFFF))
            .collect();
        let ia: Vec<u32> = (0..16).map(|_| rng.u32()).collect();
        let ib: Vec<u32> = (0..16).map(|_| rng.u32()).collect();
        for i in 0..16 {
            let at = |base: u32| MEM + u64::from(base) + 4 * i as u64;
            u.memory.set_dword(at(A), a[i].to_bits());
            u.memory.set_dword(at(B), b[i].to_bits());
            u.memory.set_dword(at(IA), ia[i]);
            u.memory.set_dword(at(IB), ib[i]);
        }
        kernels::run(p, &scattered_add(p), &mut u, |h| {
            for l in 0..8 {
                h.thread.set_grf_ud(2, l, idx[l]);
                h.thread.set_grf_ud(3, l, idx[8 + l]);
            }
        });
        // Gen4/G45 round toward zero (000 lines 7007-7011); Gen6+ to
        // nearest even (003 lines 89214-89219; 001 lines 3251-3260).
        let mode = if p <= IsaGen::G45 {
            Mode::Rtz
        } else {
            Mode::Rne
        };
        for i in 0..16 {
            let at = |base: u32| MEM + u64::from(base) + 4 * i as u64;
            let want = support::flush(support::add(a[i], b[i], mode));
            assert_eq!(
                u.memory.dword(at(C)),
                want.to_bits(),
                "{p} float element {i}: {} + {}",
                a[i],
                b[i]
            );
            assert_eq!(
                u.memory.dword(at(D)),
                ia[i].wrapping_add(ib[i]),
                "{p} integer element {i}"
            );
        }
    }
}

/// Untyped messages: DC on Gen7, DC1 on Gen7.5 [ext: Mesa brw_eu_emit.c
/// brw_untyped_surface_read, HSW_SFID_DATAPORT_DATA_CACHE_1].
fn dc(p: IsaGen) -> &'static str {
    if p == IsaGen::Gen75 { "dc1" } else { "dc" }
}

/// Global memory layout of the array tests (stateless, BTI 255).
const IN: u32 = 0x1000;
const OUT: u32 = 0x2000;

/// Thread t (r1.0) of a group copies its 8 input dwords into SLM at 32t,
/// meets the others at the barrier, then sums all of SLM (8 dwords per
/// thread) and stores the total at OUT + 4t.
fn reduction_kernel(p: IsaGen, threads: u32) -> String {
    let u = dc(p);
    let mut k = kernels::lane_ids(32, 35);
    k += &format!(
        "shl (8|M0) r33.0<1>:ud r32.0<8;8,1>:ud 0x2:ud\n\
         shl (1|M0) r30.0<1>:ud r1.0<0;1,0>:ud 0x5:ud\n\
         shl (1|M0) r31.0<1>:ud r1.0<0;1,0>:ud 0x2:ud\n\
         add (8|M0) r34.0<1>:ud r33.0<8;8,1>:ud r30.0<0;1,0>:ud\n\
         add (8|M0) r112.0<1>:ud r34.0<8;8,1>:ud {IN:#x}:ud\n\
         send (8|M0) r40:ud r112 {u}.untyped_read(bti=255, simd=8, mask=x) mlen=1 rlen=1\n\
         mov (8|M0) r112.0<1>:ud r34.0<8;8,1>:ud\n\
         mov (8|M0) r113.0<1>:ud r40.0<8;8,1>:ud\n\
         send (8|M0) null:ud r112 {u}.untyped_write(bti=254, simd=8, mask=x) mlen=2 rlen=0\n\
         mov (8|M0) r112.0<1>:ud 0x0:ud\n\
         and (1|M0) r112.2<1>:ud r0.2<0;1,0>:ud 0x0f000000:ud\n\
         send (8|M0) null:ud r112 gw.barrier() mlen=1 rlen=0\n\
         wait (1|M0) n0.0<0;1,0>:ud\n\
         mov (8|M0) r62.0<1>:ud 0x0:ud\n"
    );
    for j in 0..threads {
        k += &format!(
            "add (8|M0) r112.0<1>:ud r33.0<8;8,1>:ud {:#x}:ud\n\
             send (8|M0) r50:ud r112 {u}.untyped_read(bti=254, simd=8, mask=x) mlen=1 rlen=1\n\
             add (8|M0) r62.0<1>:ud r62.0<8;8,1>:ud r50.0<8;8,1>:ud\n",
            32 * j
        );
    }
    k += &format!(
        "add (4|M0) r63.0<1>:ud r62.0<4;4,1>:ud r62.4<4;4,1>:ud\n\
         add (2|M0) r64.0<1>:ud r63.0<2;2,1>:ud r63.2<2;2,1>:ud\n\
         add (1|M0) r65.0<1>:ud r64.0<0;1,0>:ud r64.1<0;1,0>:ud\n\
         add (8|M0) r112.0<1>:ud r31.0<0;1,0>:ud {OUT:#x}:ud\n\
         mov (8|M0) r113.0<1>:ud r65.0<0;1,0>:ud\n\
         send (1|M0) null:ud r112 {u}.untyped_write(bti=255, simd=8, mask=x) mlen=2 rlen=0\n"
    );
    k += end_thread(p);
    k
}

#[test]
fn shared_local_memory_reduction_with_barriers() {
    for p in [IsaGen::Gen7, IsaGen::Gen75] {
        for threads in [2u32, 4, 8] {
            let mut rng = Rng(0x51A + u64::from(threads) + p as u64);
            let mut a = kernels::array(p);
            let mut mem = FlatMemory::new(0, 0x1_0000);
            let input: Vec<u32> = (0..8 * threads).map(|_| rng.u32()).collect();
            for (i, v) in input.iter().enumerate() {
                mem.set_dword(u64::from(IN) + 4 * i as u64, *v);
            }
            let prog = kernels::program(p, &reduction_kernel(p, threads));
            let spec = GroupSpec {
                threads,
                barrier_threads: threads,
                barrier: true,
                slm_bytes: 4096,
            };
            let (group, id) = a.open_group(spec).expect("a group");
            let id = id.expect("a barrier");
            for t in 0..threads {
                let slot = a.free_slot().expect("a free slot");
                let h = RootHeader {
                    barrier_id: id,
                    ..RootHeader::default()
                };
                kernels::start(&mut a, slot, &prog, h, &[t], Some(group));
            }
            let r = a.run(&mut mem, 1_000_000);
            if let Some(r) = a.report() {
                panic!("{p}: {r}");
            }
            assert!(a.is_idle() && !r.stalled, "{p}: every thread ends");
            let want = input.iter().fold(0u32, |s, v| s.wrapping_add(*v));
            for t in 0..threads {
                assert_eq!(
                    mem.dword(u64::from(OUT) + 4 * u64::from(t)),
                    want,
                    "{p}: thread {t} of {threads} sees every thread's values"
                );
            }
        }
    }
}

/// One thread: for each operation, SIMD8 atomics where lanes 0-3 share
/// dword 0 of the operation's block and lanes 4-7 each have their own,
/// returning the old values.
fn atomic_kernel(p: IsaGen, ops: &[(&str, usize)]) -> String {
    let u = dc(p);
    let mut k = kernels::lane_ids(32, 35);
    // Lane address offsets: 0, 0, 0, 0, 16, 20, 24, 28.
    k += "shl (8|M0) r33.0<1>:ud r32.0<8;8,1>:ud 0x2:ud\n\
          mov (4|M0) r33.0<1>:ud 0x0:ud\n";
    for (j, (op, srcs)) in ops.iter().enumerate() {
        k += &format!("add (8|M0) r112.0<1>:ud r33.0<8;8,1>:ud {:#x}:ud\n", 64 * j);
        for s in 0..*srcs {
            k += &format!(
                "mov (8|M0) r{}.0<1>:ud r{}.0<8;8,1>:ud\n",
                113 + s,
                4 + 2 * j + s
            );
        }
        k += &format!(
            "send (8|M0) r{}:ud r112 {u}.untyped_atomic(bti=1, op={op}, simd=8, ret) mlen={} rlen=1\n",
            40 + j,
            1 + srcs
        );
    }
    k += end_thread(p);
    k
}

/// The operation tables of the untyped atomics [ext: IGC vISA
/// DWORD_ATOMIC; 003 lines 84687-84714 for the Gen6 subset]: the new
/// value from the old one and the sources.
fn atomic_host(op: &str, old: u32, a: u32, b: u32) -> u32 {
    match op {
        "add" => old.wrapping_add(a),
        "sub" => old.wrapping_sub(a),
        "inc" => old.wrapping_add(1),
        "imax" => (old as i32).max(a as i32) as u32,
        "imin" => (old as i32).min(a as i32) as u32,
        "umax" => old.max(a),
        "umin" => old.min(a),
        "and" => old & a,
        "xor" => old ^ a,
        "cmpwr" => {
            if old == a {
                b
            } else {
                old
            }
        }
        _ => old,
    }
}

#[test]
fn atomics_from_one_thread_serialise_in_channel_order() {
    let ops: [(&str, usize); 9] = [
        ("add", 1),
        ("sub", 1),
        ("inc", 0),
        ("imax", 1),
        ("imin", 1),
        ("umax", 1),
        ("umin", 1),
        ("xor", 1),
        ("cmpwr", 2),
    ];
    for p in [IsaGen::Gen7, IsaGen::Gen75] {
        let mut rng = Rng(0xA70 + p as u64);
        let mut u = kernels::units();
        let mut init = vec![[0u32; 8]; ops.len()];
        let mut srcs = vec![[[0u32; 8]; 2]; ops.len()];
        for j in 0..ops.len() {
            for w in 0..8 {
                init[j][w] = rng.u32();
                u.memory
                    .set_dword(MEM + 64 * j as u64 + 4 * w as u64, init[j][w]);
            }
            for s in 0..2 {
                for l in 0..8 {
                    // cmpwr compares with the current value half the time.
                    srcs[j][s][l] = if ops[j].0 == "cmpwr" && s == 0 && l % 2 == 0 {
                        init[j][if l < 4 { 0 } else { l }]
                    } else {
                        rng.u32()
                    };
                }
            }
        }
        let h = kernels::run(p, &atomic_kernel(p, &ops), &mut u, |h| {
            h.thread.set_dispatch_mask(0xFF);
            for j in 0..ops.len() {
                for s in 0..2 {
                    for l in 0..8 {
                        h.thread.set_grf_ud((4 + 2 * j + s) as u8, l, srcs[j][s][l]);
                    }
                }
            }
        });
        for (j, (op, _)) in ops.iter().enumerate() {
            // Host: lanes in channel order; lanes 0-3 on dword 0.
            let mut mem = init[j];
            for l in 0..8 {
                let w = if l < 4 { 0 } else { l };
                let old = mem[w];
                mem[w] = atomic_host(op, old, srcs[j][0][l], srcs[j][1][l]);
                let ret = h.thread.grf_ud((40 + j) as u8, l);
                assert_eq!(ret, old, "{p} {op} lane {l} returns the old value");
            }
            for w in [0usize, 4, 5, 6, 7] {
                assert_eq!(
                    u.memory.dword(MEM + 64 * j as u64 + 4 * w as u64),
                    mem[w],
                    "{p} {op} dword {w}"
                );
            }
        }
    }
}

/// Thread t (r1.0) adds 8t + lane + 1 from each lane to one counter with a
/// returning untyped atomic, then stores the returned old values at OUT +
/// 32t.
fn counter_kernel(p: IsaGen) -> String {
    let u = dc(p);
    let mut k = kernels::lane_ids(32, 35);
    k += &format!(
        "shl (1|M0) r30.0<1>:ud r1.0<0;1,0>:ud 0x3:ud\n\
         add (8|M0) r113.0<1>:ud r32.0<8;8,1>:ud r30.0<0;1,0>:ud\n\
         add (8|M0) r113.0<1>:ud r113.0<8;8,1>:ud 0x1:ud\n\
         mov (8|M0) r112.0<1>:ud {IN:#x}:ud\n\
         send (8|M0) r40:ud r112 {u}.untyped_atomic(bti=255, op=add, simd=8, ret) mlen=2 rlen=1\n\
         shl (8|M0) r33.0<1>:ud r32.0<8;8,1>:ud 0x2:ud\n\
         shl (1|M0) r31.0<1>:ud r1.0<0;1,0>:ud 0x5:ud\n\
         add (8|M0) r112.0<1>:ud r33.0<8;8,1>:ud r31.0<0;1,0>:ud\n\
         add (8|M0) r112.0<1>:ud r112.0<8;8,1>:ud {OUT:#x}:ud\n\
         mov (8|M0) r113.0<1>:ud r40.0<8;8,1>:ud\n\
         send (8|M0) null:ud r112 {u}.untyped_write(bti=255, simd=8, mask=x) mlen=2 rlen=0\n"
    );
    k += end_thread(p);
    k
}

/// Many threads interleaved by a small quantum: the counter ends at the
/// host sum, and the returned old values with their addends tile the range
/// from the initial value to the final one exactly once (each atomic saw
/// every earlier one, none was lost or doubled).
#[test]
fn atomics_from_many_threads_add_up() {
    for p in [IsaGen::Gen7, IsaGen::Gen75] {
        let threads = 12u32;
        let mut a = kernels::array(p);
        let mut mem = FlatMemory::new(0, 0x1_0000);
        let init = 0xFFFF_FF00u32;
        mem.set_dword(u64::from(IN), init);
        let prog = kernels::program(p, &counter_kernel(p));
        let mut next = 0;
        while next < threads || !a.is_idle() {
            while next < threads {
                let Some(slot) = a.free_slot() else { break };
                kernels::start(&mut a, slot, &prog, RootHeader::default(), &[next], None);
                next += 1;
            }
            let r = a.run(&mut mem, 10_000);
            if let Some(r) = a.report() {
                panic!("{p}: {r}");
            }
            assert!(!r.stalled, "{p}");
        }
        let n = 8 * threads;
        let total = (1..=n).fold(init, |s, v| s.wrapping_add(v));
        assert_eq!(mem.dword(u64::from(IN)), total, "{p}: the final count");
        // (old value, addend) of every lane, in the order they applied.
        let mut seen: Vec<(u32, u32)> = (0..n)
            .map(|i| {
                let old = mem.dword(u64::from(OUT) + 4 * u64::from(i));
                (old.wrapping_sub(init), i + 1)
            })
            .collect();
        seen.sort();
        let mut at = 0u32;
        for (old, add) in seen {
            assert_eq!(old, at, "{p}: an atomic saw a count no other left behind");
            at = at.wrapping_add(add);
        }
    }
}
