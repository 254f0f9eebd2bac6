//! End to end on the software GPU: requests past the hardware's limits are
//! refused by the driver before anything runs, waits accept any timeout,
//! and an EU thread that stops on an error ends its dispatch at once with
//! an engine error instead of a timeout.

mod compute_run_common;

use baregpu::compute::{
    Compute, ComputeError, Dispatch, KernelDesc, MAX_BUFFER_BYTES, Resource, Simd, Threads,
};
use baregpu::hal::Generation;
use baregpu::submit::HangReason;
use baregpu::{GpuError, PlatformError};
use baregpu_soft::eu::array::EuFailure;
use compute_run_common::*;

/// A kernel that only ends its thread.
fn ending_kernel(g: Generation) -> Vec<u8> {
    assemble(g, &end_thread(g))
}

/// One thread: a media object with `inline` data, or one SIMD8 group on
/// Ivy Bridge.
fn one_thread<'a>(g: Generation, inline: &'a [u32], curbe: &'a [u8]) -> Dispatch<'a> {
    let threads = if g == Generation::Gen7 && inline.is_empty() {
        Threads::Groups {
            groups: [1, 1, 1],
            group_size: [8, 1, 1],
        }
    } else {
        Threads::Objects { count: 1, inline }
    };
    Dispatch {
        threads,
        curbe,
        bindings: &[],
        samplers: &[],
    }
}

fn out_of_range(r: Result<impl std::fmt::Debug, ComputeError>) -> (&'static str, u64, u64) {
    match r {
        Err(ComputeError::OutOfRange { what, value, max }) => (what, value, max),
        other => panic!("expected OutOfRange, got {other:?}"),
    }
}

#[test]
fn waits_take_any_timeout() {
    // u64::MAX microseconds overflows nanoseconds; MAX / 1000 + 1 wraps to
    // 384 ns, a timeout that would reset the engine in a few polls.
    for timeout in [u64::MAX, u64::MAX / 1000 + 1] {
        for g in MEDIA_GENERATIONS {
            with_soft(g, |gpu, _| {
                let mut cx = Compute::new(gpu).unwrap();
                let bin = ending_kernel(g);
                let k = cx.load_kernel(gpu, &KernelDesc::new(&bin)).unwrap();
                let fence = cx.dispatch(gpu, &k, &one_thread(g, &[], &[])).unwrap();
                gpu.wait(fence, timeout)
                    .unwrap_or_else(|e| panic!("{g}, timeout {timeout}: {e}"));
            });
        }
    }
}

/// A 4 KiB CURBE (128 registers) does not fit behind R0 in the GRF, and
/// 965/G45/SNB read at most 63 rows: refused when the kernel is loaded.
#[test]
fn constants_past_what_a_thread_reads_are_refused() {
    for g in MEDIA_GENERATIONS {
        with_soft(g, |gpu, _| {
            let mut cx = Compute::new(gpu).unwrap();
            let bin = ending_kernel(g);
            let desc = KernelDesc {
                curbe_bytes: 4096,
                ..KernelDesc::new(&bin)
            };
            let (what, value, max) = out_of_range(cx.load_kernel(gpu, &desc));
            assert_eq!((what, value), ("CURBE bytes per thread", 4096), "{g}");
            let want = if g == Generation::Gen7 { 127 } else { 63 };
            assert_eq!(max, want * 32, "{g}");
            // The largest read runs.
            let curbe = vec![7u8; max as usize];
            let desc = KernelDesc {
                curbe_bytes: max as u32,
                ..KernelDesc::new(&bin)
            };
            let k = cx.load_kernel(gpu, &desc).unwrap();
            let fence = cx.dispatch(gpu, &k, &one_thread(g, &[], &curbe)).unwrap();
            gpu.wait(fence, DONE_US)
                .unwrap_or_else(|e| panic!("{g}: {max} CURBE bytes: {e}"));
        });
    }
}

/// R0, the constants and the inline data together must fit the GRF: the
/// driver names the limit instead of the device refusing the dispatch.
/// (965/G45 and SNB's 63 constant rows and inline limits cannot reach 128
/// registers; Ivy Bridge's can, and 965/G45 kernels may have fewer.)
#[test]
fn a_payload_past_the_register_file_is_refused_before_it_runs() {
    let g = Generation::Gen7;
    with_soft(g, |gpu, _| {
        let mut cx = Compute::new(gpu).unwrap();
        let bin = ending_kernel(g);
        let rows = 65;
        let desc = KernelDesc {
            curbe_bytes: rows * 32,
            ..KernelDesc::new(&bin)
        };
        let k = cx.load_kernel(gpu, &desc).unwrap();
        let curbe = vec![1u8; rows as usize * 32];
        // Inline data filling the registers after R0 and the constants
        // runs; one more dword is a register too many.
        let fits = (128 - 1 - rows as usize) * 8;
        let inline = vec![3u32; fits];
        let fence = cx.dispatch(gpu, &k, &one_thread(g, &inline, &curbe));
        gpu.wait(fence.unwrap(), DONE_US)
            .unwrap_or_else(|e| panic!("{fits} inline dwords: {e}"));
        let inline = vec![3u32; fits + 1];
        let (what, value, max) = out_of_range(cx.record(gpu, &k, &one_thread(g, &inline, &curbe)));
        assert!(what.starts_with("payload registers"), "{what}");
        assert_eq!((value, max), (129, 128));
    });
    // 965/G45: the kernel's GRF register blocks bound the payload.
    for g in [Generation::Gen4, Generation::G45] {
        with_soft(g, |gpu, _| {
            let mut cx = Compute::new(gpu).unwrap();
            let bin = ending_kernel(g);
            let desc = KernelDesc {
                grf_registers: 16,
                curbe_bytes: 15 * 32,
                ..KernelDesc::new(&bin)
            };
            let k = cx.load_kernel(gpu, &desc).unwrap();
            let curbe = vec![0u8; 15 * 32];
            let fence = cx.dispatch(gpu, &k, &one_thread(g, &[], &curbe)).unwrap();
            gpu.wait(fence, DONE_US)
                .unwrap_or_else(|e| panic!("{g}: 16 registers: {e}"));
            let d = one_thread(g, &[1], &curbe);
            let (_, value, max) = out_of_range(cx.record(gpu, &k, &d));
            assert_eq!((value, max), (17, 16), "{g}");
        });
    }
}

#[test]
fn a_buffer_no_binding_can_reach_is_refused_before_it_is_allocated() {
    with_soft(Generation::Gen7, |gpu, _| {
        let cx = Compute::new(gpu).unwrap();
        for size in [MAX_BUFFER_BYTES + 1, 1 << 40, usize::MAX] {
            let (what, value, max) = out_of_range(cx.create_buffer(gpu, size));
            assert_eq!(what, "buffer bytes");
            assert_eq!((value, max), (size as u64, MAX_BUFFER_BYTES as u64));
        }
        assert_eq!(MAX_BUFFER_BYTES, 4 << 27);
        // The submission layer's own allocation refuses what has no page count.
        assert_eq!(
            gpu.map_buffer(usize::MAX).unwrap_err(),
            GpuError::Platform(PlatformError::InvalidRequest)
        );
    });
}

/// An illegal instruction: the EU array knows at once. The engine stops
/// with the Instruction Error at the dispatch, found on the first poll
/// (a 1 ms timeout is far less than a hang would need), and the next
/// dispatch runs on the reset engine.
#[test]
fn an_eu_thread_error_stops_the_engine_at_once() {
    for g in MEDIA_GENERATIONS {
        with_soft(g, |gpu, soft| {
            let mut cx = Compute::new(gpu).unwrap();
            let text = format!("illegal (1|M0) null:ud r0.0<0;1,0>:ud\n{}", end_thread(g));
            let bin = assemble(g, &text);
            let desc = KernelDesc {
                simd: Simd::Simd8,
                ..KernelDesc::new(&bin)
            };
            let k = cx.load_kernel(gpu, &desc).unwrap();
            let fence = cx.dispatch(gpu, &k, &one_thread(g, &[0, 0], &[])).unwrap();
            let state = expect_hang(gpu.wait(fence, 1_000));
            assert_eq!(state.reason, HangReason::EngineError, "{g}: {state}");
            assert_eq!(state.eir & 1, 1, "{g}: Instruction Error: {state}");
            // IPEHR holds the header of the command the engine stopped at,
            // the one ACTHD marks in the decoded batch.
            let marked = state
                .commands
                .lines()
                .find(|l| l.starts_with("=>"))
                .unwrap_or_else(|| panic!("{g}: nothing at ACTHD:\n{state}"));
            assert!(
                marked.contains(&format!("{:#010x}", state.ipehr)),
                "{g}: IPEHR {:#x}, {marked}",
                state.ipehr
            );
            let report = soft.eu_report().expect("the EU array's account");
            assert!(
                matches!(report.failure, EuFailure::Error(_)),
                "{g}: {report}"
            );
            assert_eq!(report.ip, 0, "{g}: {report}");
            // The engine takes new work.
            let ok = ending_kernel(g);
            let k = cx.load_kernel(gpu, &KernelDesc::new(&ok)).unwrap();
            let fence = cx.dispatch(gpu, &k, &one_thread(g, &[], &[])).unwrap();
            gpu.wait(fence, DONE_US)
                .unwrap_or_else(|e| panic!("{g}: after the reset: {e}"));
        });
    }
}

/// A timeout that comes before any failure leaves the account of the
/// threads still running (the driver gave up; nothing failed).
#[test]
fn a_timeout_keeps_the_account_of_the_running_threads() {
    let g = Generation::Gen6;
    with_soft(g, |gpu, soft| {
        let mut cx = Compute::new(gpu).unwrap();
        let text = format!("LOOP:\n(W) jmpi LOOP\n{}", end_thread(g));
        let bin = assemble(g, &text);
        let k = cx.load_kernel(gpu, &KernelDesc::new(&bin)).unwrap();
        let d = Dispatch {
            threads: Threads::Objects {
                count: 3,
                inline: &[],
            },
            curbe: &[],
            bindings: &[] as &[(u32, Resource<'_>)],
            samplers: &[],
        };
        let fence = cx.dispatch(gpu, &k, &d).unwrap();
        let state = expect_hang(gpu.wait(fence, 1_000));
        assert_eq!(state.reason, HangReason::Timeout);
        let report = soft.eu_report().expect("an account");
        assert_eq!(
            report.failure,
            EuFailure::Unfinished { resident: 3 },
            "{report}"
        );
        assert_eq!(report.ip, 0, "{report}");
        assert!(report.executed > 0, "{report}");
        assert!(report.to_string().contains("jmpi"), "{report}");
    });
}
