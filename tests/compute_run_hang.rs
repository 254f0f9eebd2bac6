//! End to end through the driver on the software GPU: the error paths of
//! compute work.
//!
//! * A kernel that never ends: its thread runs until the array's
//!   per-thread instruction budget, which the model reports as a hang
//!   while the render engine stays busy at the dispatch; the driver's fence
//!   wait times out, captures the error state (the decoded batch marks the
//!   command the engine is stuck on), resets the engine, and the next
//!   dispatch runs normally.
//! * A kernel that reads an unmapped address: the data port's page fault
//!   stops the engine with the page-table error in EIR; the driver reports
//!   it, resets, and the next dispatch runs.
//!
//! Every generation with a media pipeline (Ivy Bridge through
//! GPGPU_WALKER, the others through MEDIA_OBJECT / MEDIA_OBJECT_WALKER).

mod compute_run_common;

use baregpu::compute::{Compute, Dispatch, Kernel, KernelDesc, Resource, Simd, Threads};
use baregpu::hal::Generation;
use baregpu::submit::HangReason;
use baregpu_soft::eu::array::{EuConfig, EuFailure};
use compute_run_common::*;

/// A fence wait that must time out: 100 ms of the platform's clock.
const HANG_US: u64 = 100_000;

/// The per-thread budget the tests give the array (instructions).
const BUDGET: u64 = 50_000;

fn endless_kernel(g: Generation) -> Vec<u8> {
    // The EOT after the loop is never reached; the driver wants one.
    let text = format!(
        "LOOP:\nadd (1|M0) r5.0<1>:ud r5.0<0;1,0>:ud 0x1:ud\n(W) jmpi LOOP\n{}",
        end_thread(g)
    );
    assemble(g, &text)
}

/// Stores 0x600D + the thread's index at dword `index` of BTI 0 with a
/// one-OWord block write (index and value from the inline data r1.0,
/// r1.1 on media threads; group ID X on GPGPU threads).
fn good_kernel(g: Generation) -> Vec<u8> {
    let (data, offset) = if g == Generation::Gen7 {
        ("r0.1", "r0.1")
    } else {
        ("r1.1", "r1.0")
    };
    let mut k = String::from("mov (8|M0) r10.0<1>:ud r0.0<8;8,1>:ud\n");
    // Global Offset: OWords from SNB on, bytes before (000 line 4518).
    if g >= Generation::Gen6 {
        k += &format!("mov (1|M0) r10.2<1>:ud {offset}<0;1,0>:ud\n");
    } else {
        k += &format!("shl (1|M0) r10.2<1>:ud {offset}<0;1,0>:ud 0x4:ud\n");
    }
    k += &format!(
        "add (8|M0) {}.0<1>:ud {data}<0;1,0>:ud 0x600d:ud\n",
        msg(g, 1)
    );
    let (port, hdr) = match g {
        Generation::Gen4 | Generation::G45 => ("dpw", ""),
        Generation::Gen6 => ("rc", " hdr"),
        _ => ("dc", " hdr"),
    };
    let desc = format!("{port}.oword_block_write(bti=0, owords=1lo) mlen=2 rlen=0{hdr}");
    k += &send(g, "r10", "null", &desc);
    k += &end_thread(g);
    assemble(g, &k)
}

/// A stateless OWord block read at graphics address `addr` (BTI 255: the
/// General State Base, 0 here, plus the header's Immediate Buffer Base in
/// M0.5[31:10], 000 lines 4327-4340; 003 lines 81028-81049).
fn faulting_kernel(g: Generation, addr: u32) -> Vec<u8> {
    let mut k = String::from("mov (8|M0) r10.0<1>:ud r0.0<8;8,1>:ud\n");
    k += &format!("mov (1|M0) r10.5<1>:ud {addr:#x}:ud\n");
    k += "mov (1|M0) r10.2<1>:ud 0x0:ud\n";
    let desc = match g {
        Generation::Gen4 | Generation::G45 => {
            "dpr.oword_block_read(bti=255, owords=2, cache=data) mlen=1 rlen=1"
        }
        Generation::Gen6 => "rc.oword_block_read(bti=255, owords=2) mlen=1 rlen=1 hdr",
        _ => "dc.oword_block_read(bti=255, owords=2) mlen=1 rlen=1 hdr",
    };
    k += &send(g, "r10", "r20", desc);
    k += &end_thread(g);
    assemble(g, &k)
}

fn load<'g>(
    cx: &mut Compute<'g>,
    gpu: &mut HostGpu<'g>,
    bin: &[u8],
    bindings: &'static [u32],
) -> Kernel<'g> {
    let desc = KernelDesc {
        simd: Simd::Simd8,
        bindings,
        ..KernelDesc::new(bin)
    };
    cx.load_kernel(gpu, &desc).unwrap()
}

/// `threads` threads of `k`: media objects (inline: index, index) or, on
/// Ivy Bridge, one SIMD8 thread per GPGPU group.
fn dispatch<'a>(
    g: Generation,
    threads: u32,
    inline: &'a [u32],
    bindings: &'a [(u32, Resource<'a>)],
) -> Dispatch<'a> {
    let threads = if g == Generation::Gen7 {
        Threads::Groups {
            groups: [threads, 1, 1],
            group_size: [8, 1, 1],
        }
    } else {
        Threads::Objects {
            count: threads as usize,
            inline,
        }
    };
    Dispatch {
        threads,
        curbe: &[],
        bindings,
        samplers: &[],
    }
}

/// After an error: a normal dispatch on the reset engine must complete
/// and store what its threads compute.
fn next_dispatch_works<'g>(
    g: Generation,
    cx: &mut Compute<'g>,
    gpu: &mut HostGpu<'g>,
    soft: &Soft<'_>,
) {
    let bin = good_kernel(g);
    let k = load(cx, gpu, &bin, &[0]);
    let out = cx.create_buffer(gpu, 4096).unwrap();
    let inline: Vec<u32> = (0..4).flat_map(|i| [i, i]).collect();
    let bindings = [(0, Resource::Buffer(&out))];
    let fence = cx
        .dispatch(gpu, &k, &dispatch(g, 4, &inline, &bindings))
        .unwrap();
    gpu.wait(fence, DONE_US)
        .unwrap_or_else(|e| panic!("{g}: after the reset: {e}\nEU: {:?}", soft.eu_report()));
    let mut raw = [0u8; 64];
    out.read(0, &mut raw).unwrap();
    for i in 0..4 {
        let at = i * 16;
        let v = u32::from_le_bytes([raw[at], raw[at + 1], raw[at + 2], raw[at + 3]]);
        assert_eq!(v, 0x600d + i as u32, "{g}: thread {i} after the reset");
    }
}

#[test]
fn an_endless_kernel_is_a_reported_hang_and_the_engine_recovers() {
    for g in MEDIA_GENERATIONS {
        with_soft(g, |gpu, soft| {
            let config = soft.eu_config().expect("an EU array");
            soft.set_eu_config(EuConfig {
                thread_budget: BUDGET,
                ..config
            });
            let mut cx = Compute::new(gpu).unwrap();
            let bin = endless_kernel(g);
            let k = load(&mut cx, gpu, &bin, &[]);
            let inline = [0, 0];
            let fence = cx.dispatch(gpu, &k, &dispatch(g, 1, &inline, &[])).unwrap();
            let state = expect_hang(gpu.wait(fence, HANG_US));
            assert_eq!(state.reason, HangReason::Timeout, "{g}");
            // The decoded batch marks where the engine stopped: the walker
            // that waits for its threads, or the command after the last
            // MEDIA_OBJECT, which waits for them to finish.
            let marked = state
                .commands
                .lines()
                .find(|l| l.starts_with("=>"))
                .unwrap_or_else(|| panic!("{g}: no command marked at ACTHD:\n{state}"))
                .to_string();
            let want = match g {
                Generation::Gen7 => "GPGPU_WALKER",
                Generation::Gen6 => "MEDIA_STATE_FLUSH",
                _ => "MI_FLUSH",
            };
            assert!(marked.contains(want), "{g}: {marked}");
            // The device says why: the thread's budget, at the loop.
            let report = soft.eu_report().expect("the EU array reports the hang");
            assert_eq!(report.failure, EuFailure::Hang, "{g}: {report}");
            assert!(report.executed > BUDGET, "{g}: {report}");
            assert!(report.ip < 32, "{g}: the loop's two instructions: {report}");
            assert_eq!(report.kernel, k.gfx().0, "{g}");
            next_dispatch_works(g, &mut cx, gpu, soft);
        });
    }
}

#[test]
fn a_walker_that_never_ends_is_marked_at_acthd_on_snb() {
    let g = Generation::Gen6;
    with_soft(g, |gpu, soft| {
        let config = soft.eu_config().unwrap();
        soft.set_eu_config(EuConfig {
            thread_budget: BUDGET,
            ..config
        });
        let mut cx = Compute::new(gpu).unwrap();
        let bin = endless_kernel(g);
        let k = load(&mut cx, gpu, &bin, &[]);
        let d = Dispatch {
            threads: Threads::Walker {
                width: 2,
                height: 2,
                inline: &[],
            },
            curbe: &[],
            bindings: &[],
            samplers: &[],
        };
        let fence = cx.dispatch(gpu, &k, &d).unwrap();
        let state = expect_hang(gpu.wait(fence, HANG_US));
        let marked = state
            .commands
            .lines()
            .find(|l| l.starts_with("=>"))
            .unwrap();
        assert!(marked.contains("MEDIA_OBJECT_WALKER"), "{marked}");
        next_dispatch_works(g, &mut cx, gpu, soft);
    });
}

#[test]
fn a_kernel_reading_through_an_invalid_gtt_entry_is_reported_as_a_page_fault() {
    // Far above anything the tests map, inside every generation's GGTT.
    let addr = 0x1800_0000u32;
    for g in MEDIA_GENERATIONS {
        with_soft(g, |gpu, soft| {
            // Unused entries point at the scratch page; this one is made invalid.
            let mmio = gpu.mmio();
            gpu.ggtt()
                .unwrap()
                .write_entry(mmio, u64::from(addr) / 4096, 0);
            let mut cx = Compute::new(gpu).unwrap();
            let bin = faulting_kernel(g, addr);
            let k = load(&mut cx, gpu, &bin, &[]);
            let inline = [0, 0];
            let fence = cx.dispatch(gpu, &k, &dispatch(g, 1, &inline, &[])).unwrap();
            let state = expect_hang(gpu.wait(fence, DONE_US));
            assert_eq!(state.reason, HangReason::EngineError, "{g}: {state}");
            // EIR page-table error: bit 4, bit 5 on G4x (hal g45 registers.toml).
            let bit = if g == Generation::G45 { 5 } else { 4 };
            assert_ne!(state.eir & 1 << bit, 0, "{g}: EIR {:#x}", state.eir);
            let report = soft.eu_report().expect("the EU array reports the fault");
            match report.failure {
                EuFailure::Fault(f) => {
                    assert_eq!(f.addr & !0xFFF, u64::from(addr), "{g}: {report}");
                    assert!(!f.write, "{g}");
                }
                other => panic!("{g}: {other:?}"),
            }
            next_dispatch_works(g, &mut cx, gpu, soft);
        });
    }
}
