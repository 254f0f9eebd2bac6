//! End to end on Ivy Bridge: the self-test's work-group reduction
//! ([`Scenario::Reduce`]): each group of 64 invocations (four SIMD16
//! threads) sums 64 integers through shared local memory and a gateway
//! barrier, and the self-test checks every group's sum against the CPU (see
//! `src/compute/selftest/reduce.rs`). Here the software GPU's counters must
//! show one barrier per group; the same kernel without the barrier reads
//! partials that are not there yet, which shows the barrier orders the
//! threads; and the older generations refuse the scenario.

mod compute_run_common;

use baregpu::compute::Compute;
use baregpu::compute::selftest::{self, Failure, Params, Scenario, reduce};
use baregpu::hal::Generation;
use compute_run_common::*;

const G: Generation = Generation::Gen7;

#[test]
fn a_group_reduction_with_barrier_and_shared_local_memory() {
    let p = Params::FULL;
    with_soft(G, |gpu, soft| {
        let mut cx = Compute::new(gpu).unwrap();
        let r = selftest::run(gpu, &mut cx, Scenario::Reduce, &p)
            .unwrap_or_else(|e| panic!("{e}\nEU: {:?}", soft.eu_report()));
        let groups = u64::from(p.groups);
        assert_eq!(r.checked, groups);
        assert_eq!(r.threads, groups * reduce::THREADS as u64);
        let stats = soft.eu_stats();
        assert_eq!(stats.completed, r.threads);
        assert_eq!(stats.barriers, groups, "one barrier per group");
    });
}

#[test]
fn without_the_barrier_thread_0_reads_partials_too_early() {
    with_soft(G, |gpu, soft| {
        let mut cx = Compute::new(gpu).unwrap();
        let s = reduce::sums(gpu, &mut cx, 64, false, DONE_US)
            .unwrap_or_else(|e| panic!("{e}\nEU: {:?}", soft.eu_report()));
        assert_eq!(s.got.len(), 64);
        let wrong = s.got.iter().zip(&s.want).filter(|(a, b)| a != b).count();
        assert!(
            wrong > 0,
            "the scheduler interleaves threads, so a missing barrier must show"
        );
        assert_eq!(soft.eu_stats().barriers, 0);
        // With the barrier the same entry point agrees with the CPU.
        let s = reduce::sums(gpu, &mut cx, 64, true, DONE_US).unwrap();
        assert_eq!(s.got, s.want);
    });
}

#[test]
fn generations_without_thread_groups_refuse_the_reduction() {
    for g in [Generation::Gen4, Generation::G45, Generation::Gen6] {
        with_soft(g, |gpu, _| {
            let mut cx = Compute::new(gpu).unwrap();
            let e = selftest::run(gpu, &mut cx, Scenario::Reduce, &Params::FULL).unwrap_err();
            assert_eq!(e.failure, Failure::Unsupported, "{g}");
            let e = reduce::sums(gpu, &mut cx, 1, true, DONE_US).unwrap_err();
            assert_eq!(e.failure, Failure::Unsupported, "{g}");
        });
    }
}
