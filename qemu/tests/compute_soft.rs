//! The driver's compute self-test (`baregpu::compute::selftest`) on the
//! software GPU inside the kernel: every scenario on Gen4, G45, Gen6, Gen7
//! and Gen12.5 (DG2, through COMPUTE_WALKER, its buffers in local memory),
//! a line per scenario (with its TCG time), failure on any error.
//! The host tests (`tests/compute_run_*.rs`) run the same scenarios at the
//! full size; here the vector add is smaller to keep the run short.
#![cfg_attr(target_os = "none", no_std, no_main)]

extern crate alloc;

use baregpu::Gpu;
use baregpu::compute::Compute;
use baregpu::compute::selftest::{self, Params, Scenario};
use baregpu::hal::Generation;
use baregpu::platform::{LocalMemory, PlatformBus};
use baregpu::submit::Placement;
use baregpu_boot::{BootInfo, BootPlatform, ExitCode, clock, exit_qemu, println};
use baregpu_soft::SoftGpu;

baregpu_boot::entry!(run);

/// The host tests' sizes, except the vector add: 256 Ki elements (1024
/// threads of 256) instead of 1 Mi. Measured TCG time for the four
/// generations: the whole run took 75 s with 1 Mi, and 12-23 s with 256 Ki
/// (as the software GPU's interpreter changes), well inside the runner's
/// timeout; Gen12.5 adds about 23 s (21 s of it the vector add, its
/// buffers in local memory), 31 s in all.
/// The clock is real here, so the fence timeout is generous.
const PARAMS: Params = Params {
    elements: 256 << 10,
    timeout_us: 60_000_000,
    ..Params::FULL
};

const GENERATIONS: [Generation; 5] = [
    Generation::Gen4,
    Generation::G45,
    Generation::Gen6,
    Generation::Gen7,
    Generation::Gen12_5,
];

/// The harness's BAR2: the DG2 model's local memory behind the driver's seam.
struct Bar2<'a>(&'a SoftGpu<PlatformBus<'a, BootPlatform>>);

impl LocalMemory for Bar2<'_> {
    fn local_size(&self) -> u64 {
        self.0.local_memory_size()
    }
    fn read_local(&self, offset: u64, buf: &mut [u8]) -> bool {
        self.0.read_local(offset, buf)
    }
    fn write_local(&self, offset: u64, data: &[u8]) -> bool {
        self.0.write_local(offset, data)
    }
}

/// Every scenario of `g` on `gpu`; the number that failed.
fn scenarios(
    g: Generation,
    gpu: &mut Gpu<'_, BootPlatform>,
    soft: &SoftGpu<PlatformBus<'_, BootPlatform>>,
) -> u32 {
    let mut cx = match Compute::new(gpu) {
        Ok(cx) => cx,
        Err(e) => {
            println!("[FAIL] {g}: compute: {e}");
            exit_qemu(ExitCode::Failed);
        }
    };
    if g == Generation::Gen12_5
        && let Err(e) = cx.set_placement(Placement::Local)
    {
        println!("[FAIL] {g}: local memory: {e}");
        exit_qemu(ExitCode::Failed);
    }
    let mut failures = 0;
    for s in Scenario::ALL {
        if !s.runs_on(g) {
            println!("[skip] {g} {s}: not on this generation");
            continue;
        }
        let t0 = clock::now_us();
        let outcome = selftest::run(gpu, &mut cx, s, &PARAMS);
        let ms = (clock::now_us() - t0) / 1000;
        match outcome {
            Ok(report) => println!("[ok] {report} ({ms} ms)"),
            Err(e) => {
                // The compute engine is DG2's third (render, blitter, compute).
                let report = soft
                    .eu_report()
                    .map(|r| alloc::format!("{r:?}"))
                    .or_else(|| soft.compute_report(2));
                println!("[FAIL] {e} ({ms} ms); EU: {report:?}");
                failures += 1;
            }
        }
    }
    failures
}

fn run(_: &'static BootInfo) -> ! {
    let platform = BootPlatform::new();
    let start = clock::now_us();
    let mut failures = 0;
    for g in GENERATIONS {
        let Ok(soft) = SoftGpu::new(g, PlatformBus::new(&platform)) else {
            println!("[FAIL] {g}: no software GPU");
            exit_qemu(ExitCode::Failed);
        };
        let bar = Bar2(&soft);
        let gpu = if g == Generation::Gen12_5 {
            Gpu::with_local_memory(&platform, &soft, g, &bar)
        } else {
            Gpu::new(&platform, &soft, g)
        };
        let mut gpu = match gpu {
            Ok(gpu) => gpu,
            Err(e) => {
                println!("[FAIL] {g}: bring-up: {e}");
                exit_qemu(ExitCode::Failed);
            }
        };
        failures += scenarios(g, &mut gpu, &soft);
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
