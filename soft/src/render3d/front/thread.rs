//! What the front's thread stages (the VS in `draw`, the GS in `gs`)
//! share: why a draw stops, and the General State their threads see.

use crate::eu::shared::{GeneralState, MemFault};
use crate::gpe::Bases;
use crate::render3d::types::DrawError;

/// Why a draw stops the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The draw's state or memory.
    Draw(DrawError),
    /// A thread failed on memory.
    ThreadFault(MemFault),
    /// A thread stopped on an error the array detects.
    Thread,
    /// A thread could not be started.
    Dispatch,
}

impl From<DrawError> for Stop {
    fn from(e: DrawError) -> Stop {
        Stop::Draw(e)
    }
}

impl From<MemFault> for Stop {
    fn from(f: MemFault) -> Stop {
        Stop::Draw(DrawError::Fault(f))
    }
}

/// The General State Base and its bound for a draw's threads (scratch).
pub(super) fn general(bases: &Bases) -> GeneralState {
    GeneralState {
        base: bases.general,
        upper_bound: match bases.general_bound {
            0 => u64::MAX,
            b => b,
        },
    }
}

/// The Instruction Access Upper Bound the draw's kernels are read under
/// (0: none).
pub(super) fn instruction_limit(bases: &Bases) -> u64 {
    match bases.instruction_bound {
        0 => u64::MAX,
        b => b,
    }
}

/// A thread's payload as bytes: R0, then the registers after it.
pub(super) fn payload_bytes(r0: &[u32; 8], rest: &[u32]) -> alloc::vec::Vec<u8> {
    r0.iter()
        .chain(rest.iter())
        .flat_map(|w| w.to_le_bytes())
        .collect()
}
