//! End to end through the driver on the software GPU: the self-test's
//! vector add ([`Scenario::VectorAdd`]): c = a + b over 1 Mi 32-bit
//! integers (wrapping), checked element by element against the CPU by the
//! self-test. Media objects of 256 elements each on 965, G45 and SNB;
//! GPGPU_WALKER groups of four SIMD16 threads on Ivy Bridge (see
//! `src/compute/selftest/vector_add.rs`). Here the software GPU's counters
//! must agree: one thread per 256 elements, the kernel decoded once.
//!
//! 1 Mi elements is 4096 threads; the test takes a few seconds in debug
//! builds (the workspace builds tests with opt-level 1).

mod compute_run_common;

use baregpu::compute::Compute;
use baregpu::compute::selftest::{self, Failure, Params, Scenario, VECTOR_ADD_GRAIN};
use baregpu::hal::Generation;
use compute_run_common::*;

fn vector_add(g: Generation) {
    let p = Params::FULL;
    assert_eq!(p.elements, 1 << 20);
    with_soft(g, |gpu, soft| {
        let mut cx = Compute::new(gpu).unwrap();
        let r = selftest::run(gpu, &mut cx, Scenario::VectorAdd, &p)
            .unwrap_or_else(|e| panic!("{e}\nEU: {:?}", soft.eu_report()));
        assert_eq!(r.dispatches, 1, "{g}");
        assert_eq!(r.threads, (p.elements / 256) as u64, "{g}");
        assert_eq!(r.checked, p.elements as u64, "{g}");
        assert_eq!(soft.eu_stats().completed, r.threads, "{g}");
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

#[test]
fn element_counts_must_be_whole_groups() {
    assert_eq!(VECTOR_ADD_GRAIN, 1024);
    with_soft(Generation::Gen7, |gpu, soft| {
        let mut cx = Compute::new(gpu).unwrap();
        // Not whole groups, or past a 2^27-byte buffer.
        for elements in [0, 1000, 1024 + 256, (1 << 25) + 1024] {
            let p = Params {
                elements,
                ..Params::FULL
            };
            let e = selftest::run(gpu, &mut cx, Scenario::VectorAdd, &p).unwrap_err();
            assert!(matches!(e.failure, Failure::BadParams(_)), "{e}");
        }
        // The smallest size runs: one group.
        let p = Params {
            elements: 1024,
            ..Params::FULL
        };
        let r = selftest::run(gpu, &mut cx, Scenario::VectorAdd, &p).unwrap();
        assert_eq!((r.threads, r.checked), (4, 1024));
        assert_eq!(soft.eu_stats().completed, 4);
    });
}
