//! What the array tells the outside: why it stopped, counters, and an
//! optional log of thread events for tests.

use alloc::string::String;
use core::fmt;

use crate::eu::error::EuError;
use crate::eu::shared::MemFault;

/// Why the array stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EuFailure {
    /// The thread executed its whole lifetime budget without ending: an
    /// endless kernel.
    Hang,
    /// The thread stopped on an instruction it could not execute.
    Error(EuError),
    /// A message faulted on memory (an unmapped or missing page).
    Fault(MemFault),
    /// The thread ran past the last instruction of its kernel without an
    /// end-of-thread message.
    LeftKernel,
    /// Every resident thread waits for a notification nothing can send.
    Deadlock,
    /// The dispatcher cannot start a thread (the text says why).
    Dispatch(&'static str),
    /// Nothing failed, but the engine was reset (the driver gave up
    /// waiting) while `resident` threads were still running.
    Unfinished { resident: usize },
}

/// A failure and the thread it happened on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EuReport {
    pub failure: EuFailure,
    /// Slot, EUID and TID of the thread (none for array-wide failures).
    pub slot: Option<usize>,
    pub euid: u8,
    pub tid: u8,
    /// Graphics address of its kernel.
    pub kernel: u64,
    /// Its IP (bytes from the kernel start).
    pub ip: u32,
    /// Instructions it executed.
    pub executed: u64,
    /// The instruction at the IP, disassembled, when there is one.
    pub instruction: Option<String>,
}

impl EuReport {
    pub(crate) fn general(failure: EuFailure) -> EuReport {
        EuReport {
            failure,
            slot: None,
            euid: 0,
            tid: 0,
            kernel: 0,
            ip: 0,
            executed: 0,
            instruction: None,
        }
    }
}

impl fmt::Display for EuReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.failure {
            EuFailure::Hang => f.write_str("EU thread hang: instruction budget exhausted")?,
            EuFailure::Error(e) => write!(f, "EU thread error: {e}")?,
            EuFailure::Fault(m) => write!(
                f,
                "EU memory fault: {} of {} bytes at {:#x}",
                if m.write { "write" } else { "read" },
                m.len,
                m.addr
            )?,
            EuFailure::LeftKernel => f.write_str("EU thread ran past the end of its kernel")?,
            EuFailure::Deadlock => {
                f.write_str("EU deadlock: every thread waits for a notification")?
            }
            EuFailure::Dispatch(why) => write!(f, "EU dispatch failed: {why}")?,
            EuFailure::Unfinished { resident } => write!(
                f,
                "EU threads still running at the engine reset: {resident} resident, the first"
            )?,
        }
        if let Some(slot) = self.slot {
            write!(
                f,
                " (slot {slot}, EU {} thread {}, kernel {:#x}, ip {:#06x}, {} instructions",
                self.euid, self.tid, self.kernel, self.ip, self.executed
            )?;
            if let Some(text) = &self.instruction {
                write!(f, ", at `{text}`")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// Counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EuStats {
    /// Threads started.
    pub dispatched: u64,
    /// Threads that ended.
    pub completed: u64,
    /// Instructions executed.
    pub instructions: u64,
    /// Messages sent.
    pub messages: u64,
    /// Barriers completed.
    pub barriers: u64,
    /// Most threads resident at once.
    pub peak_resident: usize,
    /// Quanta handed out by the scheduler.
    pub switches: u64,
}

/// A thread event, in the order the array saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Started {
        slot: usize,
    },
    /// The thread ended after `executed` instructions.
    Ended {
        slot: usize,
        executed: u64,
    },
    /// A slot sent a barrier message.
    BarrierArrive {
        slot: usize,
    },
    /// A barrier completed and notified its threads.
    BarrierDone {
        threads: u32,
    },
}
