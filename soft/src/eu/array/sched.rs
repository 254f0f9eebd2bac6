//! The scheduler: round robin over the slots in index order, a fixed
//! quantum of instructions per turn, so a run is a pure function of the
//! dispatched threads, the memory and the budget.
//!
//! A thread leaves its turn early when it ends, sleeps in `wait`, or fails.
//! Sleeping threads are skipped until a gateway notification wakes them.

use crate::eu::error::ErrorKind;
use crate::eu::run::Step;
use crate::eu::shared::{Fixed, GfxMemory};
use crate::eu::thread::layout::N_BASE;

use super::report::{EuFailure, EuReport, Event};
use super::sf::ArraySf;
use super::{EuArray, Live, RunResult};

impl EuArray {
    /// Runs the resident threads for at most `budget` instructions (one
    /// more quantum may finish past it). Stops early when no thread can
    /// run; does nothing once a report exists.
    pub fn run(&mut self, memory: &mut dyn GfxMemory, budget: u64) -> RunResult {
        self.run_fixed(memory, budget, &mut Fixed::default())
    }

    /// [`EuArray::run`] with what the 3D fixed functions lend their
    /// threads: the URB the vertex threads write and the output merger the
    /// pixel threads' render-target writes reach.
    pub fn run_fixed(
        &mut self,
        memory: &mut dyn GfxMemory,
        budget: u64,
        fixed: &mut Fixed<'_>,
    ) -> RunResult {
        // Surfaces resolved through another run's memory mean nothing here.
        self.memos.forget_resolved();
        let mut r = RunResult::default();
        let n = self.slots.len();
        while r.used < budget && self.report.is_none() && self.resident > 0 {
            let mut progressed = false;
            for k in 0..n {
                let idx = (self.cursor + k) % n;
                if self.turn(idx, memory, fixed, budget - r.used, &mut r) {
                    progressed = true;
                }
                if r.used >= budget || self.report.is_some() {
                    self.cursor = (idx + 1) % n;
                    break;
                }
                // The rest of the pass would only visit empty slots.
                if self.resident == 0 {
                    break;
                }
            }
            if !progressed {
                r.stalled = self.resident > 0;
                break;
            }
        }
        r
    }

    /// One thread's turn. Returns whether it executed anything.
    fn turn(
        &mut self,
        idx: usize,
        memory: &mut dyn GfxMemory,
        fixed: &mut Fixed<'_>,
        left: u64,
        r: &mut RunResult,
    ) -> bool {
        let Some(mut live) = self.slots[idx].live.take() else {
            return false;
        };
        if live.waiting {
            self.slots[idx].live = Some(live);
            return false;
        }
        let quantum = u64::from(self.config.quantum).min(left).max(1);
        let before = live.thread.executed();
        let result = {
            let Live {
                thread,
                program,
                ctx,
                ..
            } = &mut *live;
            let mut sf = ArraySf {
                platform: self.platform,
                slot: idx,
                threads_per_eu: self.config.threads_per_eu,
                ctx,
                slots: &mut self.slots,
                groups: &mut self.groups,
                gateway: &mut self.gateway,
                memory,
                fixed,
                memos: &mut self.memos,
                clock: self.clock,
                turn_start: before,
                fault: None,
                messages: 0,
                log: self.log.as_mut(),
                barriers: 0,
            };
            let result = thread.run(program, &mut sf, quantum);
            self.stats.messages += sf.messages;
            self.stats.barriers += sf.barriers;
            (result, sf.fault)
        };
        let ran = live.thread.executed() - before;
        r.used += ran;
        self.clock += ran;
        self.stats.instructions += ran;
        self.stats.switches += 1;
        let (result, fault) = result;
        match result {
            Ok(Step::Ended) => {
                self.retire(idx, live);
                r.ended += 1;
                return true;
            }
            // `wait` found its notification count at zero; only a gateway
            // notification wakes the thread.
            Ok(Step::Waiting) => live.waiting = true,
            Ok(Step::Ran) => {}
            Ok(Step::EndOfKernel) => {
                self.fail_thread(idx, &live, EuFailure::LeftKernel);
            }
            Err(e) if e.kind == ErrorKind::Budget => {}
            Err(e) => {
                let failure = match fault {
                    Some(f) => EuFailure::Fault(f),
                    None => EuFailure::Error(e),
                };
                self.fail_thread(idx, &live, failure);
            }
        }
        if self.report.is_none() && live.thread.executed() > self.config.thread_budget {
            self.fail_thread(idx, &live, EuFailure::Hang);
        }
        self.slots[idx].live = Some(live);
        ran > 0
    }

    /// A thread ended: its slot, group and gateway entry are free.
    fn retire(&mut self, idx: usize, live: alloc::boxed::Box<Live>) {
        for k in 0..3 {
            self.slots[idx].n0[k] = live.thread.load32(N_BASE + 4 * k);
        }
        if let Some(g) = live.ctx.group {
            self.groups.ended(g);
        }
        self.gateway.close(idx);
        self.resident -= 1;
        self.stats.completed += 1;
        if let Some(log) = &mut self.log {
            log.push(Event::Ended {
                slot: idx,
                executed: live.thread.executed(),
            });
        }
    }

    fn fail_thread(&mut self, idx: usize, live: &Live, failure: EuFailure) {
        if self.report.is_some() {
            return;
        }
        self.report = Some(self.account(idx, live, failure));
    }

    /// What a report says about the thread in slot `idx`.
    pub(super) fn account(&self, idx: usize, live: &Live, failure: EuFailure) -> EuReport {
        let (euid, tid) = self.slot_ids(idx);
        let ip = live.thread.ip();
        let instruction = live
            .program
            .lookup(ip)
            .and_then(|i| live.program.ops.get(i))
            .map(|op| baregpu_isa::text::print_instruction(self.platform, &op.inst));
        EuReport {
            failure,
            slot: Some(idx),
            euid,
            tid,
            kernel: live.ctx.kernel,
            ip,
            executed: live.thread.executed(),
            instruction,
        }
    }
}
