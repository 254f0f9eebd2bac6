//! What the end-to-end compute tests share: a driver on the software GPU
//! (with the `SoftGpu` handle, for its EU report and configuration), the
//! generations with a media pipeline, and the per-generation pieces of EU
//! assembly every kernel needs (where a message payload lives, how a
//! thread ends), which are the driver self-test's
//! (`baregpu::compute::selftest::kernels`). Kernels are IGA-syntax text
//! assembled at run time.

#![allow(dead_code)]

use baregpu::hal::Generation;
use baregpu::platform::PlatformBus;
use baregpu::platform::host::HostPlatform;
use baregpu::{Gpu, GpuError};
use baregpu_soft::SoftGpu;

pub type HostGpu<'a> = Gpu<'a, HostPlatform>;
pub type Soft<'a> = SoftGpu<PlatformBus<'a, HostPlatform>>;

/// Every generation whose media pipeline the driver programs.
pub const MEDIA_GENERATIONS: [Generation; 4] = [
    Generation::Gen4,
    Generation::G45,
    Generation::Gen6,
    Generation::Gen7,
];

/// Fence timeout for work that must complete (virtual microseconds of the
/// host platform's clock; the software GPU advances while it is polled).
pub const DONE_US: u64 = 5_000_000;

/// Runs `f` with a driver of `generation` on a fresh software GPU.
pub fn with_soft(generation: Generation, f: impl FnOnce(&mut HostGpu<'_>, &Soft<'_>)) {
    let p = HostPlatform::new();
    let soft = SoftGpu::new(generation, PlatformBus::new(&p)).expect("software GPU");
    let mut gpu = Gpu::new(&p, &soft, generation).expect("GPU bring-up");
    f(&mut gpu, &soft);
}

/// The self-test's per-generation pieces of EU assembly.
#[allow(unused_imports)] // each test binary uses a few
pub use baregpu::compute::selftest::kernels::{end_thread, msg, send, send_n, write_port};

/// Assembles `text` for `generation`, panicking with the assembler's
/// message (a test kernel that does not assemble is a test bug).
pub fn assemble(generation: Generation, text: &str) -> Vec<u8> {
    baregpu::compute::selftest::kernels::assemble(generation, text)
        .unwrap_or_else(|e| panic!("{generation}: kernel does not assemble: {e}\n{text}"))
}

/// The driver's hang report, or a panic naming what came instead.
pub fn expect_hang(r: Result<(), GpuError>) -> Box<baregpu::submit::ErrorState> {
    match r {
        Err(GpuError::Hang(state)) => state,
        other => panic!("expected a hang, got {other:?}"),
    }
}
