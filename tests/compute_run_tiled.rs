//! End to end through the driver on the software GPU: the self-test's
//! tiled scenario ([`Scenario::Tiled`]): a kernel writes a picture (pixel
//! (x, y) = y << 16 | x) into linear, X-tiled and Y-tiled surfaces with
//! media block writes, and the self-test compares the surface memory with
//! the picture laid out by the CPU tiling helpers
//! (`baregpu::gtt::tiling::linear_to_tiled`). Every generation with a media
//! pipeline, at the full size and at a width that leaves tile padding.

mod compute_run_common;

use baregpu::compute::Compute;
use baregpu::compute::selftest::{self, Params, Scenario};
use compute_run_common::*;

#[test]
fn kernels_write_tiled_surfaces_as_the_cpu_tiles_them() {
    // 128 x 64: whole X and Y tiles; 40 x 24: padding in every tiled row.
    for (width, height) in [(128, 64), (40, 24)] {
        let p = Params {
            width,
            height,
            ..Params::FULL
        };
        for g in MEDIA_GENERATIONS {
            with_soft(g, |gpu, soft| {
                let mut cx = Compute::new(gpu).unwrap();
                let r = selftest::run(gpu, &mut cx, Scenario::Tiled, &p)
                    .unwrap_or_else(|e| panic!("{e}\nEU: {:?}", soft.eu_report()));
                // Linear, X, Y: one dispatch each, one thread per 8x8 block.
                let blocks = u64::from(width / 8) * u64::from(height / 8);
                assert_eq!(r.dispatches, 3, "{g}");
                assert_eq!(r.threads, 3 * blocks, "{g}");
                assert_eq!(r.checked, 3 * u64::from(width * height), "{g}");
                assert_eq!(soft.eu_stats().completed, r.threads, "{g}");
            });
        }
    }
}
