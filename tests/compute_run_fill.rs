//! End to end through the driver on the software GPU: the self-test's fill
//! (`baregpu::compute::selftest`, [`Scenario::Fill`]): a kernel fills a 2D
//! surface with a colour from its constants (CURBE) by media block writes,
//! one thread per 8x8 block, launched by MEDIA_OBJECTs on every generation
//! and by the MEDIA_OBJECT_WALKER on SNB and Ivy Bridge; the self-test
//! checks every pixel. Here the software GPU's own counters must agree with
//! the dispatch shapes.

mod compute_run_common;

use baregpu::compute::Compute;
use baregpu::compute::selftest::{self, Failure, Params, Scenario};
use baregpu::hal::Generation;
use compute_run_common::*;

#[test]
fn the_fill_self_test_passes_on_every_generation() {
    let p = Params::FULL;
    for g in MEDIA_GENERATIONS {
        with_soft(g, |gpu, soft| {
            let mut cx = Compute::new(gpu).unwrap();
            let r = selftest::run(gpu, &mut cx, Scenario::Fill, &p)
                .unwrap_or_else(|e| panic!("{e}\nEU: {:?}", soft.eu_report()));
            // Objects everywhere, the walker too from SNB on.
            let launches = if g >= Generation::Gen6 { 2 } else { 1 };
            let blocks = u64::from(p.width / 8) * u64::from(p.height / 8);
            assert_eq!(r.dispatches, launches, "{g}");
            assert_eq!(r.threads, blocks * u64::from(launches), "{g}");
            assert_eq!(
                r.checked,
                u64::from(p.width * p.height) * u64::from(launches),
                "{g}"
            );
            assert_eq!(
                soft.eu_stats().completed,
                r.threads,
                "{g}: one thread per block"
            );
            assert!(soft.eu_report().is_none(), "{g}: {:?}", soft.eu_report());
        });
    }
}

#[test]
fn surface_sizes_the_kernels_cannot_cover_are_refused_before_any_work() {
    with_soft(Generation::Gen6, |gpu, soft| {
        let mut cx = Compute::new(gpu).unwrap();
        for (width, height) in [(60, 32), (64, 0), (8192 + 8, 8)] {
            let p = Params {
                width,
                height,
                ..Params::FULL
            };
            let e = selftest::run(gpu, &mut cx, Scenario::Fill, &p).unwrap_err();
            assert!(matches!(e.failure, Failure::BadParams(_)), "{e}");
        }
        assert_eq!(soft.eu_stats().completed, 0);
    });
}
