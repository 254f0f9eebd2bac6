//! The driver's compute self-test (`baregpu::compute::selftest`) on the
//! software GPU inside the kernel: every scenario on Gen4, G45, Gen6 and
//! Gen7, a line per scenario (with its TCG time), failure on any error.
//! The host tests (`tests/compute_run_*.rs`) run the same scenarios at the
//! full size; here the vector add is smaller to keep the run short.
#![cfg_attr(target_os = "none", no_std, no_main)]

extern crate alloc;

use baregpu::Gpu;
use baregpu::compute::Compute;
use baregpu::compute::selftest::{self, Params, Scenario};
use baregpu::hal::Generation;
use baregpu::platform::PlatformBus;
use baregpu_boot::{BootInfo, BootPlatform, ExitCode, clock, exit_qemu, println};
use baregpu_soft::SoftGpu;

baregpu_boot::entry!(run);

/// The host tests' sizes, except the vector add: 256 Ki elements (1024
/// threads of 256) instead of 1 Mi. Measured TCG time for the four
/// generations: the whole run took 75 s with 1 Mi, and 12-23 s with 256 Ki
/// (as the software GPU's interpreter changes), well inside the runner's
/// timeout.
/// The clock is real here, so the fence timeout is generous.
const PARAMS: Params = Params {
    elements: 256 << 10,
    timeout_us: 60_000_000,
    ..Params::FULL
};

const GENERATIONS: [Generation; 4] = [
    Generation::Gen4,
    Generation::G45,
    Generation::Gen6,
    Generation::Gen7,
];

fn run(_: &'static BootInfo) -> ! {
    let platform = BootPlatform::new();
    let start = clock::now_us();
    let mut failures = 0;
    for g in GENERATIONS {
        let Ok(soft) = SoftGpu::new(g, PlatformBus::new(&platform)) else {
            println!("[FAIL] {g}: no software GPU");
            exit_qemu(ExitCode::Failed);
        };
        let mut gpu = match Gpu::new(&platform, &soft, g) {
            Ok(gpu) => gpu,
            Err(e) => {
                println!("[FAIL] {g}: bring-up: {e}");
                exit_qemu(ExitCode::Failed);
            }
        };
        let mut cx = match Compute::new(&mut gpu) {
            Ok(cx) => cx,
            Err(e) => {
                println!("[FAIL] {g}: compute: {e}");
                exit_qemu(ExitCode::Failed);
            }
        };
        for s in Scenario::ALL {
            if !s.runs_on(g) {
                println!("[skip] {g} {s}: not on this generation");
                continue;
            }
            let t0 = clock::now_us();
            let outcome = selftest::run(&mut gpu, &mut cx, s, &PARAMS);
            let ms = (clock::now_us() - t0) / 1000;
            match outcome {
                Ok(report) => println!("[ok] {report} ({ms} ms)"),
                Err(e) => {
                    println!("[FAIL] {e} ({ms} ms); EU: {:?}", soft.eu_report());
                    failures += 1;
                }
            }
        }
    }
    let ms = (clock::now_us() - start) / 1000;
    if failures > 0 {
        println!("compute_soft: {failures} scenarios failed ({ms} ms)");
        exit_qemu(ExitCode::Failed);
    }
    println!(
        "[ok] compute_soft: every scenario on every generation, vector add of {} elements ({ms} ms)",
        PARAMS.elements
    );
    exit_qemu(ExitCode::Success)
}
