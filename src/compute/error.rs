//! What can go wrong while preparing or submitting compute work.

use alloc::string::String;
use core::fmt;

use baregpu_hal::{Generation, PackError};
use baregpu_isa::kernel::KernelError;

use crate::submit::{BatchError, GpuError};

/// Why a compute request was refused. Nothing here is reached by a panic:
/// every check on caller input (kernel bytes, sizes, bindings) ends in one
/// of these before anything is submitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComputeError {
    /// The submission layer failed (allocation, GTT space, the engine).
    Gpu(GpuError),
    /// The batch could not hold the commands.
    Batch(BatchError),
    /// A value did not fit its hardware field (a size past a limit that was
    /// not caught earlier).
    Pack(PackError),
    /// The kernel binary does not decode as EU instructions of this
    /// generation; `offset` is the byte offset of the first bad instruction.
    KernelDecode { offset: usize, error: KernelError },
    /// The kernel decodes but breaks a rule of its ISA (Gen12.5: the
    /// validator's first error, e.g. a missing SWSB dependency);
    /// `offset` is the byte offset of the instruction.
    KernelInvalid { offset: usize, why: String },
    /// The kernel has no instructions.
    EmptyKernel,
    /// No `send` with End Of Thread: its threads would never retire.
    NoEndOfThread,
    /// The kernel uses a binding table index the dispatch does not bind.
    MissingResource { bti: u32 },
    /// A binding table index is reserved, out of range or bound twice.
    BadBinding { bti: u32 },
    /// The kernel uses a sampler index the dispatch does not bind.
    MissingSampler { index: u32 },
    /// A sampler index is past the 16 a table holds, or bound twice.
    BadSampler { index: u32 },
    /// The generation has no such feature (or this driver does not program it).
    Unsupported {
        generation: Generation,
        what: &'static str,
    },
    /// A size or count is outside what the hardware fields can express.
    OutOfRange {
        what: &'static str,
        value: u64,
        max: u64,
    },
    /// A request that makes no sense (zero-sized, misaligned, mismatched).
    Invalid(&'static str),
}

impl fmt::Display for ComputeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ComputeError::Gpu(e) => write!(f, "{e}"),
            ComputeError::Batch(e) => write!(f, "batch: {e:?}"),
            ComputeError::Pack(e) => write!(f, "{e}"),
            ComputeError::KernelDecode { offset, error } => {
                write!(f, "kernel does not decode at byte {offset:#x}: {error}")
            }
            ComputeError::KernelInvalid { offset, why } => {
                write!(
                    f,
                    "kernel instruction at byte {offset:#x} is invalid: {why}"
                )
            }
            ComputeError::EmptyKernel => f.write_str("the kernel is empty"),
            ComputeError::NoEndOfThread => {
                f.write_str("the kernel never ends its thread (no send with EOT)")
            }
            ComputeError::MissingResource { bti } => {
                write!(f, "binding table index {bti} is used but not bound")
            }
            ComputeError::BadBinding { bti } => {
                write!(f, "binding table index {bti} is reserved or bound twice")
            }
            ComputeError::MissingSampler { index } => {
                write!(f, "sampler {index} is used but not bound")
            }
            ComputeError::BadSampler { index } => {
                write!(f, "sampler index {index} is past 15 or bound twice")
            }
            ComputeError::Unsupported { generation, what } => {
                write!(f, "{generation}: {what} is not supported")
            }
            ComputeError::OutOfRange { what, value, max } => {
                write!(f, "{what} is {value}, at most {max} is possible")
            }
            ComputeError::Invalid(what) => write!(f, "invalid request: {what}"),
        }
    }
}

impl From<GpuError> for ComputeError {
    fn from(e: GpuError) -> Self {
        ComputeError::Gpu(e)
    }
}

impl From<BatchError> for ComputeError {
    fn from(e: BatchError) -> Self {
        ComputeError::Batch(e)
    }
}

impl From<PackError> for ComputeError {
    fn from(e: PackError) -> Self {
        ComputeError::Pack(e)
    }
}

impl From<KernelError> for ComputeError {
    fn from(error: KernelError) -> Self {
        ComputeError::KernelDecode {
            offset: error.offset,
            error,
        }
    }
}

/// Shorthand for a range check.
pub(crate) fn check_max(what: &'static str, value: u64, max: u64) -> Result<(), ComputeError> {
    if value > max {
        Err(ComputeError::OutOfRange { what, value, max })
    } else {
        Ok(())
    }
}
