//! Why an engine stopped: shared by the command executors (`mi`, `blit`,
//! `compute`) and the execlist engine that reports it, below all of them.

use super::memory::{Fault, Space};

/// Why an engine stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Halt {
    /// A header the engine's command tables do not know.
    InstructionError { dw0: u32 },
    /// An access through a missing translation or to missing memory.
    PageFault { gfx_addr: u64, space: Space },
    /// A known command, or a form of one, the model does not execute.
    Unmodelled { dw0: u32, name: &'static str },
    /// A compute thread error or undecodable kernel (the text in the
    /// engine's compute state, `Device::compute_report`).
    Kernel { dw0: u32 },
}

impl Halt {
    /// The halt a fault in the command with header `_dw0` causes: every
    /// fault is a page fault (the address, not the command, says what went wrong).
    pub fn of(fault: Fault, _dw0: u32) -> Halt {
        match fault {
            Fault::NotPresent { gfx_addr, space } => Halt::PageFault { gfx_addr, space },
        }
    }
}
