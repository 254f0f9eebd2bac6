//! How the EU array stops: a thread that exceeds its lifetime instruction
//! budget is a reported hang (and the array stays stopped until reset), a
//! thread that runs off its kernel, an instruction that cannot execute,
//! and a message that faults on memory are reported with the thread's IP.

mod eu_array_support;

use baregpu_isa::IsaGen;
use baregpu_soft::eu::ErrorKind;
use baregpu_soft::eu::array::payload::{Pipeline, RootHeader};
use baregpu_soft::eu::array::{EuArray, EuConfig, EuFailure};
use eu_array_support::*;

fn array(p: IsaGen, budget: u64) -> EuArray {
    EuArray::new(
        p,
        EuConfig {
            thread_budget: budget,
            ..EuConfig::for_platform(p)
        },
    )
}

#[test]
fn an_endless_thread_is_a_hang_after_its_budget() {
    for p in IsaGen::ALL {
        let mut a = array(p, 5_000);
        let prog = program(
            p,
            &format!(
                "LOOP:\nadd (1|M0) r5.0<1>:ud r5.0<0;1,0>:ud 0x1:ud\n(W) jmpi LOOP\n{}",
                end_thread(p)
            ),
        );
        let mut mem = memory();
        start(
            &mut a,
            0,
            &prog,
            Pipeline::Media,
            RootHeader::default(),
            &[],
            None,
        );
        let r = a.run(&mut mem, 1_000_000);
        let report = a.report().expect("a hang").clone();
        assert_eq!(report.failure, EuFailure::Hang, "{p}");
        // It stopped at its first quantum past the budget.
        let q = u64::from(a.config().quantum);
        assert!(
            report.executed > 5_000 && report.executed <= 5_000 + q,
            "{p}: {report}"
        );
        assert_eq!(r.used, report.executed, "{p}");
        assert!(report.ip < 32, "{p}: inside the loop: {report}");
        assert_eq!((report.slot, report.euid, report.tid), (Some(0), 0, 0));
        assert!(report.instruction.is_some(), "{p}");
        // Stopped: no more work until a reset.
        assert_eq!(a.run(&mut mem, 1_000_000).used, 0, "{p}");
        a.reset();
        assert!(a.report().is_none() && a.is_idle(), "{p}");
    }
}

#[test]
fn a_thread_that_leaves_its_kernel_is_reported() {
    // No EOT: the IP reaches the end of the program.
    for p in IsaGen::ALL {
        let mut a = array(p, 5_000);
        let prog = program(p, "add (1|M0) r5.0<1>:ud r5.0<0;1,0>:ud 0x1:ud\n");
        let mut mem = memory();
        start(
            &mut a,
            0,
            &prog,
            Pipeline::Media,
            RootHeader::default(),
            &[],
            None,
        );
        a.run(&mut mem, 1000);
        let report = a.report().expect("reported");
        assert_eq!(report.failure, EuFailure::LeftKernel, "{p}");
        assert_eq!(report.ip, 16, "{p}: after the one instruction");
    }
}

#[test]
fn a_message_no_shared_function_serves_is_an_error() {
    // The Gen7 thread spawner's spawn opcode is not modelled.
    let p = IsaGen::Gen7;
    let mut a = array(p, 5_000);
    let prog = program(
        p,
        &format!(
            "mov (8|M0) r120.0<1>:ud r0.0<8;8,1>:ud\n\
             send (8|M0) null:ud r120 ts.spawn(root) mlen=1 rlen=0\n{}",
            end_thread(p)
        ),
    );
    let mut mem = memory();
    start(
        &mut a,
        0,
        &prog,
        Pipeline::Gpgpu,
        RootHeader::default(),
        &[],
        None,
    );
    a.run(&mut mem, 1000);
    let report = a.report().expect("reported").clone();
    match &report.failure {
        EuFailure::Error(e) => {
            assert_eq!(e.ip, 16, "the send");
            assert!(matches!(e.kind, ErrorKind::SharedFunction(_)), "{e}");
        }
        other => panic!("{other:?}"),
    }
    assert!(report.instruction.unwrap().starts_with("send"));
}

#[test]
fn a_read_of_missing_memory_is_a_fault_at_its_address() {
    let p = IsaGen::Gen7;
    let mut a = array(p, 5_000);
    // A stateless untyped read one page past the test memory.
    let addr = MEM_BYTES as u32 + 0x1000;
    let prog = program(
        p,
        &format!(
            "mov (8|M0) r112.0<1>:ud {addr:#x}:ud\n\
             send (8|M0) r20:ud r112 dc.untyped_read(bti=255, simd=8, mask=x) mlen=1 rlen=1\n{}",
            end_thread(p)
        ),
    );
    let mut mem = memory();
    start(
        &mut a,
        0,
        &prog,
        Pipeline::Gpgpu,
        RootHeader::default(),
        &[],
        None,
    );
    a.run(&mut mem, 1000);
    let report = a.report().expect("reported");
    match report.failure {
        EuFailure::Fault(f) => {
            assert_eq!(f.addr, u64::from(addr));
            assert!(!f.write);
        }
        ref other => panic!("{other:?}"),
    }
    assert_eq!(report.ip, 16);
}

#[test]
fn other_threads_do_not_run_after_a_failure() {
    let p = IsaGen::Gen7;
    let mut a = array(p, 100);
    let endless = program(p, &format!("LOOP:\n(W) jmpi LOOP\n{}", end_thread(p)));
    let mut mem = memory();
    for slot in [0, 8, 16] {
        start(
            &mut a,
            slot,
            &endless,
            Pipeline::Gpgpu,
            RootHeader::default(),
            &[],
            None,
        );
    }
    let r = a.run(&mut mem, 1_000_000);
    assert_eq!(a.report().unwrap().failure, EuFailure::Hang);
    // Threads ran in turns until the first one passed its budget.
    assert!(
        r.used <= 3 * (100 + u64::from(a.config().quantum)),
        "{}",
        r.used
    );
    assert_eq!(
        a.resident(),
        3,
        "the failed array keeps its threads until reset"
    );
}

/// Threads still running when nothing failed (a driver's timeout ran out
/// before their budget): the array's account names how many and the
/// first, with its IP and instruction, and leaves the array running.
#[test]
fn the_running_threads_can_be_accounted_for() {
    for p in IsaGen::ALL {
        let mut a = array(p, 1 << 40);
        let prog = program(p, &format!("LOOP:\n(W) jmpi LOOP\n{}", end_thread(p)));
        let mut mem = memory();
        assert!(a.unfinished_report().is_none(), "{p}: nothing resident");
        for slot in [0, 1, 2] {
            start(
                &mut a,
                slot,
                &prog,
                Pipeline::Media,
                RootHeader::default(),
                &[],
                None,
            );
        }
        a.run(&mut mem, 10_000);
        let report = a.unfinished_report().expect("an account");
        assert_eq!(report.failure, EuFailure::Unfinished { resident: 3 }, "{p}");
        assert_eq!(report.slot, Some(0), "{p}");
        assert_eq!(report.ip, 0, "{p}: {report}");
        assert!(report.executed > 0, "{p}: {report}");
        assert!(
            report.to_string().contains("3 resident") && report.to_string().contains("jmpi"),
            "{p}: {report}"
        );
        // An account is not a failure: the threads keep running.
        assert!(a.report().is_none(), "{p}");
        assert!(a.run(&mut mem, 1_000).used > 0, "{p}");
        a.reset();
        assert!(a.unfinished_report().is_none(), "{p}");
    }
}
