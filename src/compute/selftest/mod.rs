//! End-to-end compute self-test: small scenarios that an operating system
//! can run at boot (on the GPU or on the software GPU) to see that kernels
//! are uploaded, dispatched and their results land where the CPU expects.
//!
//! Each scenario assembles its kernel for the GPU's generation, dispatches
//! it through [`Compute`], waits on the fence and checks every result
//! against a computation on the CPU:
//!
//! * [`Scenario::Fill`]: a colour from the constants (CURBE) written over a
//!   2D surface with media block writes, by MEDIA_OBJECTs and, on SNB and
//!   Ivy Bridge, by the MEDIA_OBJECT_WALKER;
//! * [`Scenario::VectorAdd`]: c = a + b over [`Params::elements`] integers;
//! * [`Scenario::Reduce`]: per-group sums with a barrier and shared local
//!   memory (Ivy Bridge);
//! * [`Scenario::Tiled`]: a picture written into linear, X- and Y-tiled
//!   surfaces, compared with the CPU tiling helpers' layout.
//!
//! On DG2 (Gen12.5) the four run as Xe-HPG kernels dispatched by
//! COMPUTE_WALKER (`xe.rs`), the tiled surfaces being linear and Tile4.
//!
//! ```ignore
//! let mut cx = Compute::new(&mut gpu)?;
//! for s in Scenario::ALL.into_iter().filter(|s| s.runs_on(gpu.generation())) {
//!     let report = selftest::run(&mut gpu, &mut cx, s, &Params::FULL)?;
//! }
//! ```
//!
//! Everything a scenario allocates is freed before it returns, on success
//! and on failure.

mod fill;
pub mod kernels;
pub mod reduce;
mod report;
mod tiled;
mod vector_add;
#[cfg(feature = "gen12_5")]
mod xe;

#[cfg(test)]
mod tests;

use alloc::vec::Vec;
use core::fmt;

use baregpu_hal::Generation;

use super::surface::MAX_SURFACE_SIDE;
use super::{Buffer, Compute, Dispatch, Kernel, Surface};
use crate::gtt::tiling::{Swizzle, Tiling};
use crate::platform::Platform;
use crate::submit::Gpu;

pub use report::{Failure, Mismatch, Place, Report, SelfTestError};

/// One end-to-end check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scenario {
    Fill,
    VectorAdd,
    Reduce,
    Tiled,
}

impl Scenario {
    /// Every scenario, in the order a boot self-test would run them.
    pub const ALL: [Scenario; 4] = [
        Scenario::Fill,
        Scenario::VectorAdd,
        Scenario::Reduce,
        Scenario::Tiled,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Scenario::Fill => "fill",
            Scenario::VectorAdd => "vector add",
            Scenario::Reduce => "group reduction",
            Scenario::Tiled => "tiled surfaces",
        }
    }

    /// Whether the scenario exists on `generation`: the reduction needs
    /// thread groups, barriers and shared local memory (Ivy Bridge, DG2);
    /// the others run on every generation with a media pipeline, and on DG2
    /// (built with its tables, the `gen12_5` feature).
    pub const fn runs_on(self, generation: Generation) -> bool {
        if matches!(generation, Generation::Gen12_5) {
            return cfg!(feature = "gen12_5");
        }
        match self {
            Scenario::Reduce => matches!(generation, Generation::Gen7),
            _ => matches!(
                generation,
                Generation::Gen4 | Generation::G45 | Generation::Gen6 | Generation::Gen7
            ),
        }
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Sizes and platform facts the scenarios run with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Vector add: elements, a non-zero multiple of [`VECTOR_ADD_GRAIN`]
    /// whose buffers fit 2^27 bytes.
    pub elements: usize,
    /// Fill and tiled surfaces: width and height in pixels, multiples of
    /// [`BLOCK_PIXELS`] (the kernels write 8x8 blocks) up to 8192.
    pub width: u32,
    pub height: u32,
    /// Reduction: thread groups of [`reduce::GROUP_SIZE`] invocations (their
    /// input must fit a buffer of 2^27 bytes).
    pub groups: u32,
    /// The bit-6 swizzle the memory controller applies to X- and Y-tiled
    /// surfaces (see [`Swizzle`]); none on the software GPU.
    pub swizzle_x: Swizzle,
    pub swizzle_y: Swizzle,
    /// How long to wait for each dispatch, in microseconds of the platform's clock.
    pub timeout_us: u64,
}

impl Params {
    /// The sizes of the issue's acceptance tests: 1 Mi elements, a
    /// 128 x 64 surface, 64 groups, 5 s per dispatch.
    pub const FULL: Params = Params {
        elements: 1 << 20,
        width: 128,
        height: 64,
        groups: 64,
        swizzle_x: Swizzle::None,
        swizzle_y: Swizzle::None,
        timeout_us: 5_000_000,
    };

    /// The swizzle of a surface with `tiling`.
    pub const fn swizzle(&self, tiling: Tiling) -> Swizzle {
        match tiling {
            Tiling::Linear => Swizzle::None,
            Tiling::X => self.swizzle_x,
            Tiling::Y => self.swizzle_y,
        }
    }
}

/// Vector add elements come in whole thread groups of Ivy Bridge (four
/// threads of 256 elements); the media threads of the others take 256.
pub const VECTOR_ADD_GRAIN: usize = vector_add::GRAIN;

/// Side of the pixel blocks the fill and tiled kernels write.
pub const BLOCK_PIXELS: u32 = 8;

/// Runs `scenario` on the GPU `cx` was made for.
pub fn run<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    cx: &mut Compute<'a>,
    scenario: Scenario,
    params: &Params,
) -> Result<Report, SelfTestError> {
    let generation = cx.generation();
    let fail = |failure| SelfTestError {
        scenario,
        generation,
        failure,
    };
    if gpu.generation() != generation {
        return Err(fail(Failure::BadParams(
            "the compute state belongs to a GPU of another generation",
        )));
    }
    if !scenario.runs_on(generation) {
        return Err(fail(Failure::Unsupported));
    }
    let mut tally = Tally::default();
    #[cfg(feature = "gen12_5")]
    if generation == Generation::Gen12_5 {
        let outcome = match scenario {
            Scenario::Fill => xe::fill(gpu, cx, params, &mut tally),
            Scenario::VectorAdd => xe::vector_add(gpu, cx, params, &mut tally),
            Scenario::Reduce => xe::reduce(gpu, cx, params, &mut tally),
            Scenario::Tiled => xe::tiled(gpu, cx, params, &mut tally),
        };
        outcome.map_err(fail)?;
        return Ok(Report {
            scenario,
            generation,
            dispatches: tally.dispatches,
            threads: tally.threads,
            checked: tally.checked,
        });
    }
    let outcome = match scenario {
        Scenario::Fill => fill::run(gpu, cx, params, &mut tally),
        Scenario::VectorAdd => vector_add::run(gpu, cx, params, &mut tally),
        Scenario::Reduce => reduce::run(gpu, cx, params, &mut tally),
        Scenario::Tiled => tiled::run(gpu, cx, params, &mut tally),
    };
    outcome.map_err(fail)?;
    Ok(Report {
        scenario,
        generation,
        dispatches: tally.dispatches,
        threads: tally.threads,
        checked: tally.checked,
    })
}

/// What a scenario did, summed over its dispatches.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tally {
    pub dispatches: u32,
    pub threads: u64,
    /// Values compared with the CPU's.
    pub checked: u64,
}

/// Everything a scenario allocated, in allocation order (scenarios find
/// their resources by index).
#[derive(Debug, Default)]
pub(crate) struct Held<'a> {
    pub buffers: Vec<Buffer<'a>>,
    pub surfaces: Vec<Surface<'a>>,
    pub kernels: Vec<Kernel<'a>>,
}

/// Runs `f` with an empty [`Held`], then frees what it holds. `f` may use
/// its resources only in work submitted through [`launch`], which returns
/// after that work completed or its engine was reset.
pub(crate) fn scoped<'g, P: Platform, T>(
    gpu: &mut Gpu<'g, P>,
    f: impl FnOnce(&mut Gpu<'g, P>, &mut Held<'g>) -> Result<T, Failure>,
) -> Result<T, Failure> {
    let mut held = Held::default();
    let outcome = f(gpu, &mut held);
    // Every submission using these resources went through `launch`, which
    // returned only once its fence completed or the engine was reset (which
    // drops the queued work): nothing submitted still uses them.
    for b in held.buffers {
        Compute::free_buffer(gpu, b);
    }
    for s in held.surfaces {
        Compute::free_surface(gpu, s);
    }
    for k in held.kernels {
        Compute::free_kernel(gpu, k);
    }
    outcome
}

/// Dispatches and waits for the fence (a hang or lost submission is the
/// error; the driver has reset the engine by then).
pub(crate) fn launch<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    cx: &Compute<'a>,
    kernel: &Kernel,
    dispatch: &Dispatch<'_>,
    timeout_us: u64,
) -> Result<(), Failure> {
    let fence = cx.dispatch(gpu, kernel, dispatch)?;
    gpu.wait(fence, timeout_us).map_err(Failure::Gpu)
}

/// The little-endian dword at `i` of `bytes` (0 past the end).
pub(crate) fn dword(bytes: &[u8], i: usize) -> u32 {
    let at = i.saturating_mul(4);
    match bytes.get(at..at.saturating_add(4)) {
        Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
}

/// The surface sizes the block-writing kernels accept: whole blocks, and
/// at most [`MAX_SURFACE_SIDE`] (which also keeps the tiled picture's
/// coordinates within their 16 bits).
pub(crate) fn check_surface_size(p: &Params) -> Result<(), Failure> {
    let fits = |v: u32| v != 0 && v.is_multiple_of(BLOCK_PIXELS) && v <= MAX_SURFACE_SIDE;
    if fits(p.width) && fits(p.height) {
        Ok(())
    } else {
        Err(Failure::BadParams(
            "surface width and height must be multiples of 8 pixels from 8 to 8192",
        ))
    }
}
