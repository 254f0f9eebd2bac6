//! End to end on Ivy Bridge: the shape of a GPGPU_WALKER dispatch as its
//! threads see it. Groups over X, Y and Z, a group size that is not a
//! multiple of the SIMD width, SIMD8, SIMD16 and SIMD32: every thread
//! records its dispatch mask (sr0.2, 003 lines 90640-90650), its group ID
//! (R0.1, R0.6, R0.7 [ext: Mesa emit_cs_work_group_id_setup]) and its
//! index in the group (its own CURBE block); the host checks that each
//! group ran, each thread once, the last thread of a group with the right
//! execution mask and the others with every channel of their SIMD width.

mod compute_run_common;

use baregpu::compute::{Compute, Dispatch, KernelDesc, Resource, Simd, Threads};
use baregpu::hal::Generation;
use compute_run_common::*;

const G: Generation = Generation::Gen7;
const GROUPS: [u32; 3] = [3, 2, 2];
/// Invocations per group: 36 = 4 more than a multiple of 8, 16 and 32.
const SIZE: u32 = 36;

/// r1.0 = thread index t in the group, `threads` per group. The record of
/// (group, t) goes to 32 * (group linear index * threads + t).
fn record_kernel(threads: u32) -> Vec<u8> {
    let text = format!(
        "mul (1|M0) r30.0<1>:ud r0.7<0;1,0>:ud {y}:uw\n\
         add (1|M0) r30.0<1>:ud r30.0<0;1,0>:ud r0.6<0;1,0>:ud\n\
         mul (1|M0) r30.0<1>:ud r30.0<0;1,0>:ud {x}:uw\n\
         add (1|M0) r30.0<1>:ud r30.0<0;1,0>:ud r0.1<0;1,0>:ud\n\
         mul (1|M0) r30.0<1>:ud r30.0<0;1,0>:ud {threads}:uw\n\
         add (1|M0) r30.0<1>:ud r30.0<0;1,0>:ud r1.0<0;1,0>:ud\n\
         shl (1|M0) r30.0<1>:ud r30.0<0;1,0>:ud 0x5:ud\n\
         (W) mov (8|M0) r126.0<1>:uw 0x76543210:v\n\
         (W) mov (8|M0) r112.0<1>:ud r126.0<8;8,1>:uw\n\
         (W) shl (8|M0) r112.0<1>:ud r112.0<8;8,1>:ud 0x2:ud\n\
         (W) add (8|M0) r112.0<1>:ud r112.0<8;8,1>:ud r30.0<0;1,0>:ud\n\
         (W) mov (8|M0) r113.0<1>:ud 0x0:ud\n\
         (W) mov (1|M0) r113.0<1>:ud sr0.2<0;1,0>:ud\n\
         (W) mov (1|M0) r113.1<1>:ud r0.1<0;1,0>:ud\n\
         (W) mov (1|M0) r113.2<1>:ud r0.6<0;1,0>:ud\n\
         (W) mov (1|M0) r113.3<1>:ud r0.7<0;1,0>:ud\n\
         (W) mov (1|M0) r113.4<1>:ud r1.0<0;1,0>:ud\n\
         (W) send (8|M0) null:ud r112 dc.untyped_write(bti=0, simd=8, mask=x) mlen=2 rlen=0\n\
         {}",
        end_thread(G),
        x = GROUPS[0],
        y = GROUPS[1],
    );
    assemble(G, &text)
}

fn walk(simd: Simd) {
    with_soft(G, |gpu, soft| {
        let lanes = simd.lanes();
        let threads = SIZE.div_ceil(lanes);
        let mut cx = Compute::new(gpu).unwrap();
        let bin = record_kernel(threads);
        let k = cx
            .load_kernel(
                gpu,
                &KernelDesc {
                    simd,
                    curbe_bytes: 32,
                    bindings: &[0],
                    ..KernelDesc::new(&bin)
                },
            )
            .unwrap();
        let groups: u32 = GROUPS.iter().product();
        let out = cx
            .create_buffer(gpu, (groups * threads * 32) as usize)
            .unwrap();
        let curbe: Vec<u8> = (0..threads)
            .flat_map(|t| {
                let mut b = [0u8; 32];
                b[..4].copy_from_slice(&t.to_le_bytes());
                b
            })
            .collect();
        let bindings = [(0, Resource::Buffer(&out))];
        let d = Dispatch {
            threads: Threads::Groups {
                groups: GROUPS,
                group_size: [SIZE, 1, 1],
            },
            curbe: &curbe,
            bindings: &bindings,
            samplers: &[],
        };
        let fence = cx.dispatch(gpu, &k, &d).unwrap();
        gpu.wait(fence, DONE_US)
            .unwrap_or_else(|e| panic!("SIMD{lanes}: {e}\nEU: {:?}", soft.eu_report()));
        let mut raw = vec![0u8; (groups * threads * 32) as usize];
        out.read(0, &mut raw).unwrap();
        let dword = |i: usize| u32::from_le_bytes([raw[i], raw[i + 1], raw[i + 2], raw[i + 3]]);
        let full = if lanes == 32 {
            u32::MAX
        } else {
            (1 << lanes) - 1
        };
        // 36 invocations: the last thread holds 36 - 32 = 4 of them.
        let right = 0xF;
        let mut n = 0;
        for z in 0..GROUPS[2] {
            for y in 0..GROUPS[1] {
                for x in 0..GROUPS[0] {
                    for t in 0..threads {
                        let at = n * 32;
                        let mask = if t + 1 == threads { right } else { full };
                        assert_eq!(
                            [dword(at), dword(at + 4), dword(at + 8), dword(at + 12)],
                            [mask, x, y, z],
                            "SIMD{lanes}: group ({x}, {y}, {z}) thread {t}"
                        );
                        assert_eq!(dword(at + 16), t);
                        n += 1;
                    }
                }
            }
        }
        assert_eq!(soft.eu_stats().completed, u64::from(groups * threads));
    });
}

#[test]
fn simd8_groups() {
    walk(Simd::Simd8);
}

#[test]
fn simd16_groups() {
    walk(Simd::Simd16);
}

#[test]
fn simd32_groups() {
    walk(Simd::Simd32);
}
