//! A direct harness for one EU thread: load a kernel, preload registers,
//! run, inspect, optionally trace every executed instruction.

use alloc::vec::Vec;

use baregpu_isa::IsaGen;
use baregpu_isa::text::{self, AsmError};

use crate::eu::error::EuError;
use crate::eu::predecode::Program;
use crate::eu::run::{Step, TraceEntry};
use crate::eu::send::{NoSharedFunctions, SharedFunctions};
use crate::eu::thread::Thread;

pub struct Harness {
    pub thread: Thread,
    pub program: Program,
    /// Recorded instructions when tracing is on.
    pub trace: Option<Vec<TraceEntry>>,
}

impl Harness {
    /// A thread in its dispatch state with an empty kernel.
    pub fn new(p: IsaGen) -> Harness {
        Harness {
            thread: Thread::new(p),
            program: Program::new(p, &[]),
            trace: None,
        }
    }

    /// Predecodes `bytes` and puts the thread at IP 0.
    pub fn load(&mut self, bytes: &[u8]) {
        self.program = Program::new(self.thread.platform(), bytes);
        self.thread.set_ip(0);
    }

    /// Assembles `src` (the syntax of `baregpu_isa::text`) and loads it.
    pub fn load_asm(&mut self, src: &str) -> Result<(), AsmError> {
        let bytes = text::assemble(self.thread.platform(), src)?;
        self.load(&bytes);
        Ok(())
    }

    /// Records every executed instruction from now on.
    pub fn enable_trace(&mut self) {
        self.trace = Some(Vec::new());
    }

    /// One instruction, messages to `sf`.
    pub fn step_with(&mut self, sf: &mut dyn SharedFunctions) -> Result<Step, EuError> {
        self.thread
            .step_traced(&self.program, sf, self.trace.as_mut())
    }

    /// Runs until the thread ends, waits or leaves the kernel, or `budget`
    /// instructions have run (an error: a hang). Messages go to `sf`.
    pub fn run_with(&mut self, sf: &mut dyn SharedFunctions, budget: u64) -> Result<Step, EuError> {
        if self.trace.is_none() {
            return self.thread.run(&self.program, sf, budget);
        }
        for _ in 0..budget {
            match self.step_with(sf)? {
                Step::Ran => {}
                other => return Ok(other),
            }
        }
        Err(EuError::new(
            self.thread.ip(),
            crate::eu::error::ErrorKind::Budget,
        ))
    }

    /// Runs with no shared functions: any send is an error.
    pub fn run(&mut self, budget: u64) -> Result<Step, EuError> {
        self.run_with(&mut NoSharedFunctions::default(), budget)
    }

    /// Runs exactly `n` instructions (or fewer if the thread stops).
    pub fn run_n(&mut self, n: u64) -> Result<Step, EuError> {
        let mut sf = NoSharedFunctions::default();
        let mut last = Step::Ran;
        for _ in 0..n {
            last = self.step_with(&mut sf)?;
            if last != Step::Ran {
                break;
            }
        }
        Ok(last)
    }
}
