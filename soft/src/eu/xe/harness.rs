//! A direct harness for one Xe-HPG thread: load a kernel (bytes or IGA
//! text), preload registers, run, inspect.

use baregpu_isa::IsaGen;
use baregpu_isa::inst::Sfid;
use baregpu_isa::text::{self, AsmError};

use super::{XeProgram, XeThread};
use crate::eu::error::EuError;
use crate::eu::run::Step;
use crate::eu::send::{SendError, SendRequest, SharedFunctions};
use crate::eu::thread::Thread;

/// No shared functions: every send is an error, except the end-of-thread
/// message to the gateway, which ends the thread.
#[derive(Clone, Copy, Debug, Default)]
pub struct GatewayEotOnly;

impl SharedFunctions for GatewayEotOnly {
    fn send(&mut self, _t: &mut Thread, req: &SendRequest) -> Result<(), SendError> {
        if req.eot && req.sfid == Some(Sfid::Gateway) {
            Ok(())
        } else {
            Err(SendError::Unhandled)
        }
    }
}

pub struct XeHarness {
    pub thread: XeThread,
    pub program: XeProgram,
}

impl Default for XeHarness {
    fn default() -> Self {
        Self::new()
    }
}

impl XeHarness {
    /// A thread in its dispatch state (every channel on) with no kernel.
    pub fn new() -> XeHarness {
        XeHarness {
            thread: XeThread::new(),
            program: XeProgram::default(),
        }
    }

    pub fn load(&mut self, bytes: &[u8]) {
        self.program = XeProgram::new(bytes);
        self.thread.set_ip(0);
    }

    pub fn load_asm(&mut self, src: &str) -> Result<(), AsmError> {
        let bytes = text::assemble(IsaGen::Gen12_5, src)?;
        self.load(&bytes);
        Ok(())
    }

    pub fn run_with(&mut self, sf: &mut dyn SharedFunctions, budget: u64) -> Result<Step, EuError> {
        let r = self.thread.run(&self.program, sf, budget);
        match r {
            // Leaving the kernel at its end is a test kernel's natural end.
            Err(e)
                if e.kind == crate::eu::ErrorKind::NotAnInstruction
                    && e.ip == self.program.end()
                    && self.program.decode_error().is_none() =>
            {
                Ok(Step::EndOfKernel)
            }
            other => other,
        }
    }

    /// Runs with no shared functions but the gateway's EOT.
    pub fn run(&mut self, budget: u64) -> Result<Step, EuError> {
        self.run_with(&mut GatewayEotOnly, budget)
    }

    pub fn grf_ud(&self, reg: u8, i: usize) -> u32 {
        self.thread.thread.grf_ud(reg, i)
    }

    pub fn set_grf_ud(&mut self, reg: u8, i: usize, v: u32) {
        self.thread.thread.set_grf_ud(reg, i, v)
    }
}
