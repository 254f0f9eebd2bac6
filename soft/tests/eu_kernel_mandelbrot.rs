//! The demo's Mandelbrot kernel (kernels/mandelbrot_gen7.asm) run thread by
//! thread on the interpreter, with the payload a GPGPU walker gives it (group
//! IDs in r0.1 and r0.6, the CURBE in r1), against the same arithmetic on the
//! host: every pixel's iteration count must match exactly.

use baregpu_isa::IsaGen;
use baregpu_soft::eu::Harness;
use baregpu_soft::eu::run::Step;
use baregpu_soft::eu::shared::surface::format::R32_UINT;
use baregpu_soft::eu::shared::{FlatMemory, MemoryUnits, Surface, Tiling};

const SOURCE: &str = include_str!("../../kernels/mandelbrot_gen7.asm");
const SURF: u64 = 0x10_0000;
const W: usize = 48;
const H: usize = 16;
const LIMIT: u32 = 40;
const X0: f32 = -2.2;
const Y0: f32 = -1.2;
const DX: f32 = 3.0 / W as f32;
const DY: f32 = 2.4 / H as f32;

#[path = "../../kernels/mandelbrot_reference.rs"]
mod reference;

fn host(col: usize, row: usize) -> u32 {
    reference::iterations(col as u32, row as u32, X0, Y0, DX, DY, LIMIT)
}

#[test]
fn every_pixel_matches_the_host() {
    let p = IsaGen::Gen7;
    let mut units = MemoryUnits::new(FlatMemory::new(SURF, W * H * 4));
    units.surfaces.bind(
        0,
        Surface::two_d(
            SURF,
            R32_UINT,
            W as u32,
            H as u32,
            (W * 4) as u32,
            Tiling::Linear,
        ),
    );
    let mut h = Harness::new(p);
    h.load_asm(SOURCE).expect("the kernel assembles");
    for gy in 0..H {
        for gx in 0..W / 8 {
            let program = h.program.clone();
            let mut t = Harness::new(p);
            t.program = program;
            t.thread.set_grf_ud(0, 1, gx as u32);
            t.thread.set_grf_ud(0, 6, gy as u32);
            for (i, v) in [X0, Y0, DX, DY].iter().enumerate() {
                t.thread.set_grf_f(1, i, *v);
            }
            t.thread.set_grf_ud(1, 4, LIMIT);
            let step = t.run_with(&mut units, 100_000).expect("the kernel runs");
            assert_eq!(step, Step::Ended, "group ({gx}, {gy})");
        }
    }
    let mut inside = 0;
    for row in 0..H {
        for col in 0..W {
            let got = units.memory.dword(SURF + (row * W + col) as u64 * 4);
            assert_eq!(got, host(col, row), "pixel ({col}, {row})");
            inside += usize::from(got == LIMIT);
        }
    }
    // The picture is not trivial: some points escape, some stay.
    assert!(inside > 20 && inside < W * H / 2, "{inside} points inside");
}
