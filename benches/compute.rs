//! Compute on the software GPU through the driver, measured in one run:
//!
//! 1. dispatch overhead: an empty kernel (end of thread only), one SIMD8
//!    thread, from `Compute::dispatch` to the fence passing (median), next to
//!    the submit-to-seqno time of an empty batch on the same GPU;
//! 2. vector add of 1 Mi 32-bit integers by a Gen7 GPGPU kernel (SIMD16
//!    untyped reads and writes, 256 elements per thread) against a plain Rust
//!    loop adding the same arrays, as a time ratio.
//!
//! 3. the same two on the DG2 (Gen12.5) model, through its public
//!    interface (`compute/dg2.rs`; the driver's DG2 compute path is not
//!    used), against the same plain loop.
//!
//! `cargo bench --bench compute` (`gen7` or `gen12.5` as an argument runs
//! only that part). Nothing asserts on time; the sums are checked.

#[path = "compute/dg2.rs"]
mod dg2;

use std::hint::black_box;
use std::time::{Duration, Instant};

use baregpu::compute::{Compute, Dispatch, KernelDesc, Resource, Simd, Threads};
use baregpu::isa::{IsaGen as Isa, text};
use baregpu::platform::PlatformBus;
use baregpu::platform::host::HostPlatform;
use baregpu::{EngineId, Generation, Gpu};
use baregpu_soft::SoftGpu;

const N: usize = 1 << 20;
/// Elements per thread: 16 loop passes of 16 lanes.
const PER_THREAD: usize = 256;
const DISPATCHES: usize = 300;
const REPS: usize = 5;

const END: &str = "mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud {NoMask}
send (8|M0) null:ud r127 ts.deref(keep_urb) mlen=1 rlen=0 {EOT}
";

/// c[i] = a[i] + b[i] for the 256 elements of group X (r0.1).
const VECTOR_ADD: &str = "mov (8|M0) r126.0<1>:uw 0x76543210:v
mov (8|M0) r30.0<1>:ud r126.0<8;8,1>:uw
add (8|M0) r31.0<1>:ud r30.0<8;8,1>:ud 0x8:ud
shl (1|M0) r32.0<1>:ud r0.1<0;1,0>:ud 0xa:ud
shl (8|M0) r36.0<1>:ud r30.0<8;8,1>:ud 0x2:ud
add (8|M0) r36.0<1>:ud r36.0<8;8,1>:ud r32.0<0;1,0>:ud
shl (8|M0) r37.0<1>:ud r31.0<8;8,1>:ud 0x2:ud
add (8|M0) r37.0<1>:ud r37.0<8;8,1>:ud r32.0<0;1,0>:ud
mov (1|M0) r33.0<1>:d 0x0:d
LOOP:
mov (8|M0) r112.0<1>:ud r36.0<8;8,1>:ud
mov (8|M0) r113.0<1>:ud r37.0<8;8,1>:ud
send (16|M0) r20:ud r112 dc.untyped_read(bti=0, simd=16, mask=x) mlen=2 rlen=2
send (16|M0) r22:ud r112 dc.untyped_read(bti=1, simd=16, mask=x) mlen=2 rlen=2
add (8|M0) r114.0<1>:ud r20.0<8;8,1>:ud r22.0<8;8,1>:ud
add (8|M0) r115.0<1>:ud r21.0<8;8,1>:ud r23.0<8;8,1>:ud
send (16|M0) null:ud r112 dc.untyped_write(bti=2, simd=16, mask=x) mlen=4 rlen=0
add (8|M0) r36.0<1>:ud r36.0<8;8,1>:ud 0x40:ud
add (8|M0) r37.0<1>:ud r37.0<8;8,1>:ud 0x40:ud
add (1|M0) r33.0<1>:d r33.0<0;1,0>:d 0x1:d
cmp (16|M0) (lt)f0.0 null<1>:d r33.0<0;1,0>:d 0x10:d {Switch}
(f0.0) while (16|M0) LOOP
";

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn inputs(seed: u32) -> Vec<u32> {
    (0..N as u32)
        .map(|i| i.wrapping_mul(2_654_435_761).wrapping_add(seed))
        .collect()
}

fn bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The plain loop's time for c = a + b over `N` elements (best of `REPS`
/// rounds of ten).
fn plain_loop(a: &[u32], b: &[u32]) -> Duration {
    let mut host = Duration::MAX;
    let mut c = vec![0u32; N];
    for _ in 0..REPS {
        let t = Instant::now();
        for _ in 0..10 {
            let (a, b) = (black_box(a), black_box(b));
            for i in 0..N {
                c[i] = a[i].wrapping_add(b[i]);
            }
            black_box(&mut c);
        }
        host = host.min(t.elapsed() / 10);
    }
    host
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let only = |name: &str| {
        let named: Vec<&String> = args
            .iter()
            .filter(|a| ["gen7", "gen12.5"].contains(&a.as_str()))
            .collect();
        named.is_empty() || named.iter().any(|a| *a == name)
    };
    if only("gen7") {
        gen7();
    }
    if only("gen12.5") {
        let (a, b) = (inputs(1), inputs(77));
        let host = plain_loop(&a, &b);
        dg2::run(DISPATCHES, REPS.min(3), &a, &b, host);
    }
}

fn gen7() {
    let p = HostPlatform::new();
    let soft = SoftGpu::new(Generation::Gen7, PlatformBus::new(&p)).expect("software GPU");
    let mut gpu = Gpu::new(&p, &soft, Generation::Gen7).expect("GPU bring-up");
    let mut cx = Compute::new(&mut gpu).expect("compute");

    // 1. Dispatch overhead.
    let empty = text::assemble(Isa::Gen7, END).expect("assembles");
    let k = cx
        .load_kernel(
            &mut gpu,
            &KernelDesc {
                simd: Simd::Simd8,
                ..KernelDesc::new(&empty)
            },
        )
        .expect("load");
    let one = Dispatch {
        threads: Threads::Groups {
            groups: [1, 1, 1],
            group_size: [8, 1, 1],
        },
        curbe: &[],
        bindings: &[],
        samplers: &[],
    };
    let mut samples = Vec::with_capacity(DISPATCHES);
    for _ in 0..DISPATCHES {
        let t = Instant::now();
        let f = cx.dispatch(&mut gpu, &k, &one).expect("dispatch");
        gpu.wait(f, 10_000_000).expect("the empty kernel completes");
        samples.push(t.elapsed());
    }
    let dispatch = median(samples);
    let mut samples = Vec::with_capacity(DISPATCHES);
    for _ in 0..DISPATCHES {
        let t = Instant::now();
        let b = gpu.new_batch(4096).expect("batch");
        let f = gpu.submit(EngineId::RENDER, b).expect("submit");
        gpu.wait(f, 10_000_000).expect("empty batch");
        samples.push(t.elapsed());
    }
    let submit = median(samples);
    println!(
        "dispatch of an empty kernel (one SIMD8 thread) to its fence: median {:.1} us; an empty batch: {:.1} us ({:.1}x)",
        dispatch.as_secs_f64() * 1e6,
        submit.as_secs_f64() * 1e6,
        dispatch.as_secs_f64() / submit.as_secs_f64()
    );

    // 2. Vector add.
    let bin = text::assemble(Isa::Gen7, &format!("{VECTOR_ADD}{END}")).expect("assembles");
    let k = cx
        .load_kernel(
            &mut gpu,
            &KernelDesc {
                simd: Simd::Simd16,
                bindings: &[0, 1, 2],
                ..KernelDesc::new(&bin)
            },
        )
        .expect("load");
    let (a, b) = (inputs(1), inputs(77));
    let ba = cx.upload_buffer(&mut gpu, &bytes(&a)).expect("a");
    let bb = cx.upload_buffer(&mut gpu, &bytes(&b)).expect("b");
    let bc = cx.create_buffer(&mut gpu, N * 4).expect("c");
    let bindings = [
        (0, Resource::Buffer(&ba)),
        (1, Resource::Buffer(&bb)),
        (2, Resource::Buffer(&bc)),
    ];
    let d = Dispatch {
        threads: Threads::Groups {
            groups: [(N / PER_THREAD) as u32, 1, 1],
            group_size: [16, 1, 1],
        },
        curbe: &[],
        bindings: &bindings,
        samplers: &[],
    };
    let mut emu = Duration::MAX;
    for _ in 0..REPS {
        let t = Instant::now();
        let f = cx.dispatch(&mut gpu, &k, &d).expect("dispatch");
        gpu.wait(f, 600_000_000).expect("vector add completes");
        emu = emu.min(t.elapsed());
    }
    let mut got = vec![0u8; N * 4];
    bc.read(0, &mut got).expect("read back");
    for i in 0..N {
        let v = u32::from_le_bytes([got[4 * i], got[4 * i + 1], got[4 * i + 2], got[4 * i + 3]]);
        assert_eq!(v, a[i].wrapping_add(b[i]), "element {i}");
    }
    let host = plain_loop(&a, &b);
    println!(
        "vector add of {} Mi u32 on the Gen7 software GPU: {:.1} ms ({:.0} M elements/s); plain loop {:.3} ms; time ratio {:.0}x",
        N >> 20,
        emu.as_secs_f64() * 1e3,
        N as f64 / emu.as_secs_f64() / 1e6,
        host.as_secs_f64() * 1e3,
        emu.as_secs_f64() / host.as_secs_f64()
    );
}
