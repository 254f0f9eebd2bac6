//! The fetch-execute loop of one thread over a predecoded [`Program`].

use alloc::string::String;
use alloc::vec::Vec;

use crate::eu::decoded::{Next, lite};
use crate::eu::error::{ErrorKind, EuError};
use crate::eu::operand::{DstKind, MAX_CH};
use crate::eu::predecode::Program;
use crate::eu::send::{SendError, SharedFunctions};
use crate::eu::thread::Thread;

/// What a step did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// An instruction ran; the thread goes on.
    Ran,
    /// The thread ended (EOT, or every channel halted).
    Ended,
    /// The IP reached the end of the kernel (a test kernel's natural end).
    EndOfKernel,
    /// `wait` found no notification: the thread sleeps at the same IP.
    Waiting,
}

/// One executed instruction, as the trace records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceEntry {
    pub ip: u32,
    /// The instruction in the assembler's syntax.
    pub text: String,
    /// Channels enabled (execution mask with predication), bit per channel.
    pub exec_mask: u32,
    /// Destination elements written: (channel, raw bits of the destination
    /// type), for a register destination.
    pub writes: Vec<(u8, u64)>,
}

impl Thread {
    /// Runs one instruction.
    pub fn step(&mut self, prog: &Program, sf: &mut dyn SharedFunctions) -> Result<Step, EuError> {
        self.step_traced(prog, sf, None)
    }

    /// Runs up to `budget` instructions, until the thread ends, waits or
    /// leaves the kernel. An exhausted budget is an error: an endless kernel
    /// is a hang the caller must see.
    pub fn run(
        &mut self,
        prog: &Program,
        sf: &mut dyn SharedFunctions,
        budget: u64,
    ) -> Result<Step, EuError> {
        let mut left = budget;
        while left > 0 {
            // Straight-line code runs in blocks (see `predecode::lite`);
            // parked channels need the general step, which rejoins them.
            if self.parked == 0 && !self.ended {
                match self.run_blocks(prog, sf, &mut left)? {
                    Some(Step::Ran) => continue,
                    Some(other) => return Ok(other),
                    None => {}
                }
                if left == 0 {
                    break;
                }
            }
            match self.step(prog, sf)? {
                Step::Ran => left -= 1,
                other => return Ok(other),
            }
        }
        Err(EuError::new(self.ip, ErrorKind::Budget))
    }

    /// Runs straight-line blocks from the IP while there are some and
    /// budget is `left`. Returns the step of an instruction that did not
    /// fall through (the block's last), or `None` when the IP reaches an
    /// instruction that needs the general step.
    fn run_blocks(
        &mut self,
        prog: &Program,
        sf: &mut dyn SharedFunctions,
        left: &mut u64,
    ) -> Result<Option<Step>, EuError> {
        let Some(mut k) = self.inst_at(prog) else {
            return Ok(None);
        };
        // The general step that may follow finds it too.
        self.hint = k;
        // Valid for the whole run of blocks: nothing in a block changes it,
        // and a send ends the run.
        let on = self.channels_on();
        loop {
            let Some(head) = prog.lite.get(k).filter(|h| h.ip == self.ip) else {
                return Ok(None);
            };
            let n = usize::try_from(*left)
                .unwrap_or(usize::MAX)
                .min(head.straight as usize);
            let Some(block) = prog.lite.get(k..k + n).filter(|b| !b.is_empty()) else {
                return Ok(None);
            };
            // A block cut short by the budget ends before the successor
            // its last instruction may leave the accumulator to (see
            // `lite::mark_dead_acc`): that one runs exactly.
            let cut = n < head.straight as usize;
            for (j, l) in block.iter().enumerate() {
                let run = if cut && j + 1 == n {
                    lite::by_ops
                } else {
                    l.run
                };
                let next = match run(self, l, &prog.ops, on) {
                    Ok(next) => next,
                    Err(e) => {
                        // As if run one by one: the earlier instructions
                        // counted, the IP at the failing one.
                        self.executed += j as u64;
                        *left -= j as u64;
                        self.ip = l.ip;
                        self.hint = k + j;
                        return Err(EuError::new(l.ip, e));
                    }
                };
                if !matches!(next, Next::Fall) {
                    self.executed += j as u64 + 1;
                    *left -= j as u64 + 1;
                    self.ip = l.ip;
                    return self.finish(prog, k + j, next, sf).map(Some);
                }
            }
            self.executed += n as u64;
            *left -= n as u64;
            k += n;
            self.hint = k;
            if let Some(last) = block.last() {
                self.ip = last.next_ip;
            }
            if *left == 0 {
                return Ok(None);
            }
        }
    }

    /// Index of the instruction at the IP (in `Program::lite`): the hint
    /// when it matches, else a lookup.
    fn inst_at(&self, prog: &Program) -> Option<usize> {
        match prog.lite.get(self.hint) {
            Some(l) if l.ip == self.ip => Some(self.hint),
            _ => prog.lookup_inst(self.ip),
        }
    }

    /// One instruction, recording it in `trace` when given.
    pub fn step_traced(
        &mut self,
        prog: &Program,
        sf: &mut dyn SharedFunctions,
        trace: Option<&mut Vec<TraceEntry>>,
    ) -> Result<Step, EuError> {
        if self.ended {
            return Ok(Step::Ended);
        }
        let ip = self.ip;
        let Some(k) = self.inst_at(prog) else {
            if let Some(e) = &prog.tail
                && e.offset as u32 == ip
            {
                return Err(EuError::new(ip, ErrorKind::Decode(*e)));
            }
            let end = prog.ops.last().map_or(0, |o| o.next_ip);
            if ip == end && prog.tail.is_none() {
                return Ok(Step::EndOfKernel);
            }
            return Err(EuError::new(ip, ErrorKind::NotAnInstruction));
        };
        // Gen6+: channels parked at this IP rejoin (003 lines 96514-96562).
        if self.parked != 0 {
            let mut m = self.parked;
            while m != 0 {
                let ch = m.trailing_zeros() as usize;
                m &= m - 1;
                if self.pcip[ch] == ip {
                    self.parked &= !(1 << ch);
                }
            }
        }
        self.executed += 1;
        let mut idx = prog.index.get(k).map_or(usize::MAX, |e| e.1 as usize);
        let mut next = Next::Fall;
        let mut trace = trace;
        loop {
            let Some(op) = prog.ops.get(idx) else {
                return Err(EuError::new(ip, ErrorKind::NotAnInstruction));
            };
            let mask = if trace.is_some() {
                self.enables(&op.ctl, ip) & self.pmask(&op.ctl)
            } else {
                0
            };
            let saved = op.arf.any_write().then(|| self.save_arf(ip));
            self.sync_arf_reads(op.arf, ip);
            let n = (op.run)(self, op).map_err(|k| EuError::new(ip, k))?;
            if let Some(s) = saved
                && let Some(j) = self.finish_arf_writes(op.arf, &s)
            {
                next = Next::Jump(j);
            } else if !matches!(n, Next::Fall) {
                next = n;
            }
            if let Some(tr) = trace.as_deref_mut() {
                tr.push(self.trace_entry(prog.platform, op, mask));
            }
            if !op.pair {
                break;
            }
            idx += 1;
        }
        self.finish(prog, k, next, sf)
    }

    /// Moves past instruction `k` (an index in `Program::lite`), which
    /// produced `next`.
    fn finish(
        &mut self,
        prog: &Program,
        k: usize,
        next: Next,
        sf: &mut dyn SharedFunctions,
    ) -> Result<Step, EuError> {
        let (ip, next_ip) = prog
            .lite
            .get(k)
            .map_or((self.ip, self.ip), |l| (l.ip, l.next_ip));
        self.hint = usize::MAX;
        match next {
            Next::Fall => {
                self.ip = next_ip;
                self.hint = k + 1;
            }
            Next::Jump(t) => self.ip = t,
            Next::Wait => return Ok(Step::Waiting),
            Next::Send(req) => {
                sf.send(self, &req).map_err(|e| {
                    EuError::new(
                        ip,
                        match e {
                            SendError::Unhandled => ErrorKind::UnhandledSend,
                            SendError::Bad(w) => ErrorKind::SharedFunction(w),
                            SendError::Fault { addr, len, write } => {
                                ErrorKind::MemoryFault { addr, len, write }
                            }
                        },
                    )
                })?;
                if req.eot {
                    self.ended = true;
                    return Ok(Step::Ended);
                }
                self.ip = next_ip;
                self.hint = k + 1;
            }
        }
        Ok(Step::Ran)
    }

    fn trace_entry(
        &self,
        p: baregpu_isa::IsaGen,
        op: &crate::eu::decoded::Op,
        mask: u32,
    ) -> TraceEntry {
        let mut writes = Vec::new();
        if let DstKind::Direct { off } = &op.dst.kind {
            let size = usize::from(op.dst.ty.size());
            for (c, o) in off
                .iter()
                .enumerate()
                .take(usize::from(op.ctl.exec).min(MAX_CH))
            {
                if mask >> c & 1 != 0 {
                    writes.push((c as u8, self.load(usize::from(*o), size)));
                }
            }
        }
        TraceEntry {
            ip: op.ip,
            text: baregpu_isa::text::print_instruction(p, &op.inst),
            exec_mask: mask,
            writes,
        }
    }
}
