//! End to end on Ivy Bridge: per-thread scratch space from
//! MEDIA_VFE_STATE. Each media thread stores its ID in its scratch space
//! (Gen7 scratch block write, the header's M0.5[31:10] = R0.5's scratch
//! pointer [ext: Mesa gen7_block_read_scratch]), lets the other threads run
//! for a while, reads it back and stores what it read. Threads that shared
//! a slice would read each other's IDs; slices outside the kernel's
//! scratch buffer would fault or land in other memory.

mod compute_run_common;

use baregpu::compute::{Compute, Dispatch, KernelDesc, Resource, Threads};
use baregpu::hal::Generation;
use compute_run_common::*;

const G: Generation = Generation::Gen7;
const THREADS: usize = 100;

/// r1.0 = the thread's ID (inline data). Stores (ID read back from
/// scratch, R0.5 & !0x3FF) at 8 * ID.
fn scratch_kernel() -> Vec<u8> {
    let mut k = String::from(
        "mov (8|M0) r112.0<1>:ud r0.0<8;8,1>:ud\n\
         mov (8|M0) r113.0<1>:ud r1.0<0;1,0>:ud\n\
         send (8|M0) null:ud r112 dc.scratch_write(regs=1, offset=2) mlen=2 rlen=0 hdr\n",
    );
    // Long enough for the scheduler to run the other threads in between.
    for _ in 0..100 {
        k += "add (1|M0) r5.0<1>:ud r5.0<0;1,0>:ud 0x1:ud\n";
    }
    k += "send (8|M0) r30:ud r112 dc.scratch_read(regs=1, offset=2) mlen=1 rlen=1 hdr\n\
          shl (1|M0) r31.0<1>:ud r1.0<0;1,0>:ud 0x3:ud\n\
          mov (8|M0) r112.0<1>:ud r31.0<0;1,0>:ud\n\
          add (1|M0) r112.1<1>:ud r31.0<0;1,0>:ud 0x4:ud\n\
          mov (8|M0) r113.0<1>:ud r30.0<0;1,0>:ud\n\
          and (1|M0) r113.1<1>:ud r0.5<0;1,0>:ud 0xfffffc00:ud\n\
          send (2|M0) null:ud r112 dc.untyped_write(bti=0, simd=8, mask=x) mlen=2 rlen=0\n";
    k += &end_thread(G);
    assemble(G, &k)
}

#[test]
fn every_resident_thread_has_its_own_scratch() {
    with_soft(G, |gpu, soft| {
        let mut cx = Compute::new(gpu).unwrap();
        let bin = scratch_kernel();
        let k = cx
            .load_kernel(
                gpu,
                &KernelDesc {
                    bindings: &[0],
                    scratch_bytes: 1024,
                    ..KernelDesc::new(&bin)
                },
            )
            .unwrap();
        let scratch = k.scratch_gfx().expect("scratch space").0;
        let out = cx.create_buffer(gpu, THREADS * 8).unwrap();
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
        let fence = cx.dispatch(gpu, &k, &d).unwrap();
        gpu.wait(fence, DONE_US)
            .unwrap_or_else(|e| panic!("{e}\nEU: {:?}", soft.eu_report()));
        let mut raw = vec![0u8; THREADS * 8];
        out.read(0, &mut raw).unwrap();
        // The driver sizes scratch for 36 threads (its MEDIA_VFE_STATE
        // limit) of 1 KiB.
        let end = scratch + 36 * 1024;
        for id in 0..THREADS {
            let d = |i: usize| u32::from_le_bytes(raw[i..i + 4].try_into().unwrap());
            assert_eq!(d(8 * id), id as u32, "thread {id} read another's scratch");
            let slice = u64::from(d(8 * id + 4));
            assert!(
                slice >= scratch && slice + 1024 <= end,
                "thread {id}: slice {slice:#x} outside {scratch:#x}..{end:#x}"
            );
        }
        assert!(soft.eu_stats().peak_resident > 1, "threads overlapped");
    });
}
