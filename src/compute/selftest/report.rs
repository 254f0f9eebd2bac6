//! What a self-test run says: a report when every value matched, or an
//! error naming the scenario, the generation and what went wrong (for a
//! wrong result: which element, pixel or group, what the GPU wrote and what
//! the CPU computed).

use core::fmt;

use baregpu_hal::Generation;
use baregpu_isa::text::AsmError;

use super::Scenario;
use crate::compute::ComputeError;
use crate::submit::GpuError;

/// A scenario that passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    pub scenario: Scenario,
    pub generation: Generation,
    /// Dispatches submitted.
    pub dispatches: u32,
    /// Hardware threads those dispatches launched.
    pub threads: u64,
    /// Values (elements, pixels, group sums) that matched the CPU's.
    pub checked: u64,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.dispatches == 1 { "" } else { "es" };
        write!(
            f,
            "{} {}: {} values from {} threads in {} dispatch{s} match the CPU",
            self.generation, self.scenario, self.checked, self.threads, self.dispatches
        )
    }
}

/// A scenario that failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfTestError {
    pub scenario: Scenario,
    pub generation: Generation,
    pub failure: Failure,
}

/// Why a scenario failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The scenario does not exist on this generation ([`Scenario::runs_on`]).
    Unsupported,
    /// A [`super::Params`] value the scenario cannot use.
    BadParams(&'static str),
    /// The scenario's kernel text did not assemble (a self-test bug).
    Assemble(AsmError),
    /// The compute API refused a kernel, resource or dispatch.
    Compute(ComputeError),
    /// The dispatch did not complete: a hang (the engine was reset) or a
    /// submission lost in a reset.
    Gpu(GpuError),
    /// A result differs from the CPU's.
    Mismatch(Mismatch),
}

/// The first value the GPU got wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Which variant of the scenario (dispatch kind, tiling).
    pub case: &'static str,
    pub at: Place,
    pub got: u32,
    pub want: u32,
}

/// Where a wrong value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// An element of an output buffer.
    Element(usize),
    /// A pixel of a surface (a 32-bit pixel value).
    Pixel { x: u32, y: u32 },
    /// The result of a thread group.
    Group(usize),
    /// A byte of surface memory outside every pixel (tile padding), which
    /// must stay as the surface was created.
    Byte(usize),
}

impl From<AsmError> for Failure {
    fn from(e: AsmError) -> Self {
        Failure::Assemble(e)
    }
}

impl From<ComputeError> for Failure {
    fn from(e: ComputeError) -> Self {
        Failure::Compute(e)
    }
}

impl From<Mismatch> for Failure {
    fn from(m: Mismatch) -> Self {
        Failure::Mismatch(m)
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Place::Element(i) => write!(f, "element {i}"),
            Place::Pixel { x, y } => write!(f, "pixel ({x}, {y})"),
            Place::Group(g) => write!(f, "group {g}"),
            Place::Byte(o) => write!(f, "padding byte {o:#x}"),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Unsupported => f.write_str("not available on this generation"),
            Failure::BadParams(what) => write!(f, "bad parameters: {what}"),
            Failure::Assemble(e) => write!(f, "the kernel does not assemble: {e}"),
            Failure::Compute(e) => write!(f, "{e}"),
            Failure::Gpu(e) => write!(f, "{e}"),
            Failure::Mismatch(m) => write!(
                f,
                "{}: {} is {:#x}, the CPU computed {:#x}",
                m.case, m.at, m.got, m.want
            ),
        }
    }
}

impl fmt::Display for SelfTestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.generation, self.scenario, self.failure)
    }
}

impl core::error::Error for SelfTestError {}
