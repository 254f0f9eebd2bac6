//! One wavefront's CF program: the per-thread state (active, inactive-branch,
//! inactive-continue, inactive-break) and valid bit, the branch/loop/call stack, and the
//! clauses and exports the CF instructions start (002 lines 963-1188, 2241-2956).
//!
//! Where the manual is ambiguous the compilers' usage decides (cited per instruction):
//! JUMP and ELSE pop POP_COUNT only when they jump (Mesa r600_shader.c tgsi_else/tgsi_endif
//! and LLVM R600ControlFlowFinalizer give ELSE a POP_COUNT of 1 that skips the endif POP;
//! decaf-emu's glsl2 ELSE pops only when no thread stays active).

use alloc::vec;
use alloc::vec::Vec;

use super::alu::{self, ClauseState, Consts, Ctx};
use super::fetch;
use super::texture::{self, Extra, Lookup};
use super::{EmuError, Memory, Options};
use crate::cf::{CfAlu, CfAluOp, CfExport, CfInst, CfOp, CfWord, ExportOp, ExportWord1};
use crate::mem::{DsRead, DsWrite, MemInst};
use crate::program::{Clause, Program};

const ACTIVE: u8 = 0;
const BRANCH: u8 = 1;
const CONTINUE: u8 = 2;
const BREAK: u8 = 3;

#[derive(Clone, Copy, Debug, Default)]
struct LoopRegs {
    al: i32,
    count: u32,
    inc: i32,
    /// DX9 loops end on their trip count; DX10 loops only when every thread has broken.
    counted: bool,
}

enum Entry {
    Push(Vec<u8>, bool),
    Loop(Vec<u8>, LoopRegs),
    Call(u32, u32),
}

pub struct Wave {
    n: usize,
    /// Threads that exist; a partial wavefront's others never export or write memory.
    real: usize,
    gid: Vec<u32>,
    /// Each thread's linear id within its thread group (LDS SIMD_WAVE_REL addressing).
    local: Vec<u32>,
    gpr: Vec<[u32; 4]>,
    state: Vec<u8>,
    valid: Vec<bool>,
    initial: Vec<u8>,
    stack: Vec<Entry>,
    lp: LoopRegs,
    depth: u32,
    killed: u64,
    /// Each thread's gradients from the last SET_GRADIENTS_H/V or KEEP_GRADIENTS (the _G
    /// sample forms use them) and its SET_CUBEMAP_INDEX value.
    tex_state: Vec<Extra>,
    /// GS events (EMIT/CUT) each thread has issued.
    gs_events: Vec<u64>,
    /// The next CF instruction (a wavefront stops at barriers and resumes here).
    pc: u32,
    /// Subentries per stack entry: 8 for 16- and 32-wide parts, 4 for 48 and 64 (table 3.5).
    per_entry: u32,
}

impl Wave {
    pub fn new(opts: &Options, init: &[[[u32; 4]; 3]]) -> Self {
        let n = opts.wave_size;
        let mut gpr = vec![[0u32; 4]; n * 128];
        let mut gid = vec![0; n];
        let mut local = vec![0; n];
        for (t, r) in init.iter().enumerate() {
            gpr[t * 128..t * 128 + 3].copy_from_slice(r);
            gid[t] = r[0][0];
            local[t] = r[0][1];
        }
        // Threads past the end of a partial wavefront are invalid and start inactive.
        let valid: Vec<bool> = (0..n).map(|t| t < init.len()).collect();
        let state: Vec<u8> = valid
            .iter()
            .map(|&v| if v { ACTIVE } else { BRANCH })
            .collect();
        Wave {
            n,
            real: init.len(),
            gid,
            local,
            gpr,
            initial: state.clone(),
            state,
            valid,
            stack: Vec::new(),
            lp: LoopRegs::default(),
            depth: 0,
            killed: 0,
            per_entry: if n <= 32 { 8 } else { 4 },
            tex_state: vec![Extra::default(); n],
            pc: 0,
            gs_events: vec![0; n],
        }
    }

    pub fn killed(&self) -> u64 {
        self.killed
    }

    pub fn set_gpr(&mut self, t: usize, g: usize, v: [u32; 4]) {
        if t < self.n && g < 128 {
            self.gpr[t * 128 + g] = v;
        }
    }

    fn quad_active(&self, t: usize) -> bool {
        let q = t & !3;
        (q..(q + 4).min(self.n)).any(|u| self.state[u] == ACTIVE)
    }

    /// The condition test of table 3.4 (002 lines 1038-1044) on the current state.
    fn test(&self, t: usize, cond: u8, cf_const: u8, wqm: bool, vpm: bool, opts: &Options) -> bool {
        let base = if wqm {
            self.quad_active(t)
        } else {
            self.state[t] == ACTIVE && (!vpm || self.valid[t])
        };
        let boolean = opts.bool_consts >> (cf_const & 31) & 1 != 0;
        match cond {
            0 => base,
            1 => false,
            2 => base && boolean,
            _ => base && !boolean,
        }
    }

    fn any_active(&self) -> bool {
        self.state.contains(&ACTIVE)
    }

    fn stack_cost(&self) -> u32 {
        self.stack
            .iter()
            .map(|e| match e {
                Entry::Push(_, true) | Entry::Loop(..) => self.per_entry,
                // A 16-wide part needs two subentries for a return address (table 3.6).
                Entry::Call(..) if self.n == 16 => 2,
                _ => 1,
            })
            .sum()
    }

    fn push(&mut self, e: Entry, pc: u32, opts: &Options) -> Result<(), EmuError> {
        self.stack.push(e);
        // A + B / subentries-per-entry <= STACK_SIZE (002 lines 1060-1088).
        if self.stack_cost() > opts.stack_size.saturating_mul(self.per_entry) {
            return Err(EmuError::StackOverflow { pc });
        }
        Ok(())
    }

    /// Pops `k` entries; the state becomes the last popped one. Threads that broke out of
    /// or continued a loop stay so through pops inside the loop ("remain disabled until
    /// the innermost loop exits", 002 lines 1145-1152). Popping an empty stack does nothing.
    fn pop(&mut self, k: u8, vpm: bool) {
        for _ in 0..k {
            match self.stack.pop() {
                Some(Entry::Push(s, _)) => {
                    for (cur, old) in self.state.iter_mut().zip(s) {
                        if !matches!(*cur, CONTINUE | BREAK) {
                            *cur = old;
                        }
                    }
                }
                Some(Entry::Loop(s, regs)) => {
                    self.state = s;
                    self.lp = regs;
                }
                Some(Entry::Call(..)) | None => {}
            }
        }
        if vpm {
            // VALID_PIXEL_MODE on a pop deactivates invalid pixels after the restore (1000-1004).
            for t in 0..self.n {
                if !self.valid[t] && self.state[t] == ACTIVE {
                    self.state[t] = BRANCH;
                }
            }
        }
    }

    /// Pops back to the innermost loop's entry (LOOP_BREAK/LOOP_CONTINUE jumps, table 3.7),
    /// restoring each popped state as a POP does.
    fn pop_to_loop(&mut self) {
        while matches!(self.stack.last(), Some(Entry::Push(..))) {
            self.pop(1, false);
        }
    }

    /// The state the last surviving push saved (or the initial one).
    fn pushed(&self) -> Vec<u8> {
        match self.stack.last() {
            Some(Entry::Push(s, _)) | Some(Entry::Loop(s, _)) => s.clone(),
            _ => self.initial.clone(),
        }
    }

    /// ELSE: threads active at the last push that pass the test swap active and
    /// inactive-branch (002 lines 1134, 2453-2470). Returns whether any thread is active.
    fn do_else(&mut self, w: &CfWord, opts: &Options) -> bool {
        let pushed = self.pushed();
        self.invert(w, opts, &pushed)
    }

    /// Swaps active and inactive-branch for threads active in `pushed` that pass.
    fn invert(&mut self, w: &CfWord, opts: &Options, pushed: &[u8]) -> bool {
        let boolean = opts.bool_consts >> (w.cf_const & 31) & 1 != 0;
        for t in 0..self.n {
            let pass = pushed[t] == ACTIVE
                && (!w.valid_pixel_mode || self.valid[t])
                && match w.cond {
                    0 => true,
                    1 => false,
                    2 => boolean,
                    _ => !boolean,
                };
            if pass {
                self.state[t] = match self.state[t] {
                    ACTIVE => BRANCH,
                    BRANCH => ACTIVE,
                    s => s,
                };
            }
        }
        self.any_active()
    }

    /// PUSH: if every thread fails, pop POP_COUNT and jump; else push, and active threads
    /// that fail go inactive-branch (002 lines 1127-1131, 2862-2871).
    fn do_push(&mut self, w: &CfWord, pc: u32, opts: &Options) -> Result<Option<u32>, EmuError> {
        let pass: Vec<bool> = (0..self.n)
            .map(|t| {
                self.test(
                    t,
                    w.cond,
                    w.cf_const,
                    w.whole_quad_mode,
                    w.valid_pixel_mode,
                    opts,
                )
            })
            .collect();
        if !pass.contains(&true) {
            self.pop(w.pop_count, false);
            return Ok(Some(w.addr));
        }
        self.push(Entry::Push(self.state.clone(), w.whole_quad_mode), pc, opts)?;
        for t in 0..self.n {
            if self.state[t] == ACTIVE && !pass[t] {
                self.state[t] = BRANCH;
            }
        }
        Ok(None)
    }

    /// PUSH_ELSE, "Push State To Stack and Invert State" (2873-2882; table 3.7: the ELSE
    /// part of an IF): push always, then invert as ELSE does against the state the
    /// enclosing push saved; jump if no thread is left active. Our reading of a page the
    /// conversion garbled.
    fn do_push_else(
        &mut self,
        w: &CfWord,
        pc: u32,
        opts: &Options,
    ) -> Result<Option<u32>, EmuError> {
        let outer = self.pushed();
        self.push(Entry::Push(self.state.clone(), w.whole_quad_mode), pc, opts)?;
        Ok((!self.invert(w, opts, &outer)).then_some(w.addr))
    }

    /// Runs the CF program from where it stopped until it ends or, after at least one
    /// instruction, reaches one with BARRIER set (the caller then runs the group's other
    /// wavefronts up to theirs); returns the steps used and whether the program ended.
    pub fn run(
        &mut self,
        prog: &Program,
        opts: &Options,
        mem: &mut Memory,
        budget: u64,
    ) -> Result<(u64, bool), EmuError> {
        let mut steps: u64 = 0;
        loop {
            let pc = self.pc;
            let inst = *prog
                .cf
                .get(pc as usize)
                .ok_or(EmuError::PcOutOfRange { pc })?;
            if inst.barrier() && steps > 0 {
                return Ok((steps, false));
            }
            if steps >= budget {
                return Err(EmuError::Budget { steps: opts.budget });
            }
            steps += 1;
            let mut next = pc.wrapping_add(1);
            match &inst {
                CfInst::Word(w) => {
                    if let Some(to) = self.word(w, pc, prog, opts, mem, &mut steps, budget)? {
                        next = to;
                    }
                }
                CfInst::Alu(a) => self.alu_clause(a, pc, prog, opts, mem, &mut steps, budget)?,
                CfInst::Export(e) => self.export(e, pc, opts, mem)?,
            }
            if inst.end_of_program() {
                return Ok((steps, true));
            }
            self.pc = next;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn word(
        &mut self,
        w: &CfWord,
        pc: u32,
        prog: &Program,
        opts: &Options,
        mem: &mut Memory,
        steps: &mut u64,
        budget: u64,
    ) -> Result<Option<u32>, EmuError> {
        let test = |s: &Self, t: usize| {
            s.test(
                t,
                w.cond,
                w.cf_const,
                w.whole_quad_mode,
                w.valid_pixel_mode,
                opts,
            )
        };
        let pass = |s: &Self| -> Vec<bool> { (0..s.n).map(|t| test(s, t)).collect() };
        Ok(match w.op {
            CfOp::Nop | CfOp::WaitAck => None,
            CfOp::Tex | CfOp::Vtx | CfOp::VtxTc => {
                let p = pass(self);
                self.fetch_clause(w, pc, &p, prog, opts, mem, steps, budget)?;
                None
            }
            CfOp::Jump => {
                if pass(self).contains(&true) {
                    None
                } else {
                    self.pop(w.pop_count, false);
                    Some(w.addr)
                }
            }
            CfOp::Push => self.do_push(w, pc, opts)?,
            CfOp::PushElse => self.do_push_else(w, pc, opts)?,
            CfOp::Else => {
                if self.do_else(w, opts) {
                    None
                } else {
                    self.pop(w.pop_count, false);
                    Some(w.addr)
                }
            }
            CfOp::Pop | CfOp::PopJump | CfOp::PopPush | CfOp::PopPushElse => {
                // POP: pop, then apply the test to the restored state (1133, 2841-2860);
                // the POP_* forms are a pop then JUMP/PUSH/PUSH_ELSE with POP_COUNT 0.
                self.pop(w.pop_count, w.valid_pixel_mode);
                let rest = CfWord { pop_count: 0, ..*w };
                match w.op {
                    CfOp::Pop => {
                        let p = pass(self);
                        for t in 0..self.n {
                            if self.state[t] == ACTIVE && !p[t] {
                                self.state[t] = BRANCH;
                            }
                        }
                        None
                    }
                    CfOp::PopJump => (!pass(self).contains(&true)).then_some(w.addr),
                    CfOp::PopPush => self.do_push(&rest, pc, opts)?,
                    _ => self.do_push_else(&rest, pc, opts)?,
                }
            }
            CfOp::LoopStart | CfOp::LoopStartDx10 | CfOp::LoopStartNoAl => {
                // SQ_LOOP_CONST: COUNT [11:0], INIT [23:12], INC [31:24] (r600d.h).
                let k = opts.loop_consts[w.cf_const as usize & 31];
                let counted = w.op != CfOp::LoopStartDx10;
                let count = k & 0xFFF;
                let p = pass(self);
                if !p.contains(&true) || (counted && count == 0) {
                    self.pop(w.pop_count, false);
                    return Ok(Some(w.addr));
                }
                self.push(Entry::Loop(self.state.clone(), self.lp), pc, opts)?;
                let mut regs = LoopRegs {
                    count,
                    counted,
                    ..self.lp
                };
                if w.op == CfOp::LoopStart {
                    regs.al = (k >> 12 & 0xFFF) as i32;
                    regs.inc = (k >> 24) as u8 as i8 as i32;
                }
                self.lp = regs;
                for t in 0..self.n {
                    if self.state[t] == ACTIVE && !p[t] {
                        self.state[t] = BREAK;
                    }
                }
                None
            }
            CfOp::LoopEnd => {
                // Reactivate continued threads; loop again if the count is not spent and a
                // thread has not broken (002 lines 2629-2648); else pop the loop.
                for s in self.state.iter_mut() {
                    if *s == CONTINUE {
                        *s = ACTIVE;
                    }
                }
                if !matches!(self.stack.last(), Some(Entry::Loop(..))) {
                    self.pop_to_loop();
                }
                let mut again = pass(self).contains(&true);
                if self.lp.counted {
                    self.lp.count = self.lp.count.saturating_sub(1);
                    again &= self.lp.count != 0;
                }
                if again {
                    self.lp.al = self.lp.al.wrapping_add(self.lp.inc);
                    Some(w.addr)
                } else {
                    self.pop(1, false);
                    None
                }
            }
            CfOp::LoopBreak | CfOp::LoopContinue => {
                let to = if w.op == CfOp::LoopBreak {
                    BREAK
                } else {
                    CONTINUE
                };
                let p = pass(self);
                for t in 0..self.n {
                    if p[t] {
                        self.state[t] = to;
                    }
                }
                if self.any_active() {
                    None
                } else {
                    self.pop_to_loop();
                    Some(w.addr)
                }
            }
            CfOp::Call => {
                // Skipped if every thread fails or the depth would pass 32 (1163-1170).
                let depth = self.depth + w.call_count as u32;
                if !pass(self).contains(&true) || depth > 32 {
                    None
                } else {
                    self.pop(w.pop_count, false);
                    self.push(Entry::Call(pc.wrapping_add(1), self.depth), pc, opts)?;
                    self.depth = depth;
                    Some(w.addr)
                }
            }
            CfOp::Return => loop {
                match self.stack.pop() {
                    Some(Entry::Call(ret, depth)) => {
                        self.depth = depth;
                        break Some(ret);
                    }
                    Some(_) => {}
                    None => return Err(EmuError::ReturnOutsideCall { pc }),
                }
            },
            CfOp::Kill => {
                // KILL: passing pixels become invalid; jump if none is left (2566-2585).
                let p = pass(self);
                for t in 0..self.n {
                    if p[t] && self.valid[t] {
                        self.valid[t] = false;
                        self.killed += 1;
                    }
                }
                (!self.valid.contains(&true)).then_some(w.addr)
            }
            // The launch interface binds no fetch shader (its inputs come through
            // `Options::inputs`): CALL_FS calls an empty one and goes on (ours).
            CfOp::CallFs => None,
            CfOp::EmitVertex | CfOp::EmitCutVertex | CfOp::CutVertex => {
                // What VGT sees (002 lines 954-960, 2436-2510): per passing thread, an event
                // appended to its GS event list (the project's own stand-in for VGT, see
                // `super::GS_EVENTS`): 1 EMIT_VERTEX, 2 CUT_VERTEX, 3 EMIT_CUT_VERTEX.
                let code = match w.op {
                    CfOp::EmitVertex => 1,
                    CfOp::CutVertex => 2,
                    _ => 3,
                };
                let p = pass(self);
                for t in 0..self.real {
                    if !p[t] {
                        continue;
                    }
                    let k = self.gs_events[t];
                    self.gs_events[t] = k + 1;
                    match opts.gs_events {
                        Some(base) if k < super::GS_EVENTS => {
                            let list =
                                base.wrapping_add(self.gid[t] as u64 * (super::GS_EVENTS + 1) * 4);
                            mem.write_u32(list.wrapping_add((1 + k) * 4), code);
                            mem.write_u32(list, (k + 1) as u32);
                        }
                        _ => mem.dropped += 1,
                    }
                }
                None
            }
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn alu_clause(
        &mut self,
        a: &CfAlu,
        pc: u32,
        prog: &Program,
        opts: &Options,
        mem: &mut Memory,
        steps: &mut u64,
        budget: u64,
    ) -> Result<(), EmuError> {
        let Some(Clause::Alu(groups)) = prog.clauses.get(&a.addr) else {
            return Err(EmuError::PcOutOfRange { pc: a.addr });
        };
        if a.op == CfAluOp::AluPushBefore {
            // "Equivalent to PUSH; ALU clause" (table 3.7): one push before the clause.
            self.push(Entry::Push(self.state.clone(), false), pc, opts)?;
        }
        let exec: Vec<bool> = (0..self.n)
            .map(|t| {
                if a.whole_quad_mode {
                    self.quad_active(t)
                } else {
                    self.state[t] == ACTIVE
                }
            })
            .collect();
        let consts = Consts::new(
            opts,
            mem,
            a.kcache_bank,
            a.kcache_mode,
            a.kcache_addr,
            self.lp.al,
        );
        // The predicate starts as the active mask (002 lines 2012-2029).
        let mut st = ClauseState::new(self.n, exec.clone());
        let mut ctx = Ctx {
            gpr: &mut self.gpr,
            globals: &mut mem.globals,
            consts: &consts,
            clause: a.addr,
            group: 0,
        };
        for (k, g) in groups.iter().enumerate() {
            if *steps >= budget {
                return Err(EmuError::Budget { steps: opts.budget });
            }
            *steps += 1;
            ctx.group = k;
            alu::group(&mut ctx, &mut st, g, &exec)?;
        }
        // At the end of the clause: exec-mask updates, then the variant's stack work.
        let to = match a.op {
            CfAluOp::AluBreak => BREAK,
            CfAluOp::AluContinue => CONTINUE,
            _ => BRANCH,
        };
        for t in 0..self.n {
            if st.exec_update[t] == Some(false) && self.state[t] == ACTIVE {
                self.state[t] = to;
            }
            if st.killed[t] && self.valid[t] {
                self.valid[t] = false;
                self.killed += 1;
            }
        }
        match a.op {
            CfAluOp::AluPopAfter => self.pop(1, false),
            CfAluOp::AluPop2After => self.pop(2, false),
            CfAluOp::AluElseAfter => {
                // The clause, then an ELSE against the enclosing push, as decaf-emu's
                // translator does (spirv translateCf_ALU_ELSE_AFTER). The manual also says it
                // pops (table 3.7, 1185-1188), which would lose the push ELSE inverts against.
                let w = CfWord {
                    addr: 0,
                    pop_count: 0,
                    cf_const: 0,
                    cond: 0,
                    count: 0,
                    call_count: 0,
                    end_of_program: false,
                    valid_pixel_mode: false,
                    op: CfOp::Else,
                    whole_quad_mode: false,
                    barrier: false,
                };
                self.do_else(&w, opts);
            }
            _ => {}
        }
        Ok(())
    }

    fn src_gpr(&self, t: usize, g: u8, rel: bool, opts: &Options) -> [u32; 4] {
        let i = g as i64 + if rel { self.lp.al as i64 } else { 0 };
        // Out of range: GPR0 (002 lines 1340-1346).
        let i = if (0..opts.num_gprs as i64).contains(&i) {
            i as usize
        } else {
            0
        };
        self.gpr[t * 128 + i]
    }

    fn write_gpr(&mut self, t: usize, g: u8, rel: bool, v: [u32; 4], sel: [u8; 4], opts: &Options) {
        let i = g as i64 + if rel { self.lp.al as i64 } else { 0 };
        // A fetch result out of range goes to GPR0 (002 line 1346).
        let i = if (0..opts.num_gprs as i64).contains(&i) {
            i as usize
        } else {
            0
        };
        for c in 0..4 {
            if let Some(x) = fetch::select(v, sel[c]) {
                self.gpr[t * 128 + i][c] = x;
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn fetch_clause(
        &mut self,
        w: &CfWord,
        pc: u32,
        pass: &[bool],
        prog: &Program,
        opts: &Options,
        mem: &mut Memory,
        steps: &mut u64,
        budget: u64,
    ) -> Result<(), EmuError> {
        let res_err = |why| EmuError::Resource { pc, why };
        match prog.clauses.get(&w.addr) {
            Some(Clause::Vtx(insts)) => {
                for v in insts {
                    if *steps >= budget {
                        return Err(EmuError::Budget { steps: opts.budget });
                    }
                    *steps += 1;
                    // VTX_SEMANTIC: SEMANTIC_ID is looked up in the host-written semantic
                    // table for the destination GPR (002 lines 2091, 8296-8297); an ID the
                    // table lacks is an error (the manual gives no rule for it).
                    let (dst, dst_rel) = if v.op == 1 {
                        let gpr = opts
                            .semantic_table
                            .iter()
                            .find(|e| e.0 == v.dst_or_semantic)
                            .map(|e| e.1)
                            .ok_or_else(|| {
                                res_err(alloc::format!(
                                    "semantic ID {} is not in the semantic table",
                                    v.dst_or_semantic
                                ))
                            })?;
                        (gpr & 0x7F, false)
                    } else {
                        (v.dst_or_semantic & 0x7F, v.dst_or_semantic & 0x80 != 0)
                    };
                    // FETCH_TYPE picks the index offset added to the index (002 lines
                    // 8263-8267): vertex data SQ_VTX_BASE_VTX_LOC, instance data
                    // SQ_VTX_START_INST_LOC (r600d.h 0x3CFF0/0x3CFF4; Mesa r600_state_common.c
                    // writes start_instance there), none for NO_INDEX_OFFSET.
                    let index_offset = match v.fetch_type {
                        0 => opts.base_vertex,
                        1 => opts.start_instance,
                        _ => 0,
                    };
                    let res = opts
                        .vtx_resources
                        .iter()
                        .find(|r| r.0 == v.buffer_id)
                        .map(|r| r.1)
                        .ok_or_else(|| {
                            res_err(alloc::format!(
                                "vertex resource {} is not bound",
                                v.buffer_id
                            ))
                        })?;
                    for t in 0..self.n {
                        let whole = v.fetch_whole_quad && self.quad_active(t);
                        if !(pass[t] || whole) {
                            continue;
                        }
                        let idx = self.src_gpr(t, v.src_gpr, v.src_rel, opts)[v.src_sel_x as usize]
                            .wrapping_add(index_offset);
                        let val = fetch::vertex(mem, &res, v, idx).map_err(res_err)?;
                        self.write_gpr(t, dst, dst_rel, val, v.dst_sel, opts);
                    }
                }
            }
            Some(Clause::Tex(insts)) => {
                for x in insts {
                    if *steps >= budget {
                        return Err(EmuError::Budget { steps: opts.budget });
                    }
                    *steps += 1;
                    if matches!(x.op, 7 | 8) {
                        self.gradients(x, pass, opts);
                        continue;
                    }
                    if matches!(x.op, 10..=12 | 14) {
                        self.set_tex_state(x, pass, opts);
                        continue;
                    }
                    if !matches!(x.op, 3..=6 | 9 | 15..=31) {
                        return Err(EmuError::Unsupported {
                            pc,
                            what: crate::fetch::tex_op_name(x.op).unwrap_or("TEX"),
                        });
                    }
                    let res = opts
                        .tex_resources
                        .iter()
                        .find(|r| r.0 == x.resource_id)
                        .map(|r| r.1)
                        .ok_or_else(|| {
                            res_err(alloc::format!(
                                "texture resource {} is not bound",
                                x.resource_id
                            ))
                        })?;
                    let lk = Lookup {
                        res: &res.0,
                        sampler: opts
                            .samplers
                            .iter()
                            .find(|s| s.0 == x.sampler_id)
                            .map(|s| &s.1.0),
                        border: opts
                            .border_colors
                            .iter()
                            .find(|s| s.0 == x.sampler_id)
                            .map(|s| s.1),
                    };
                    let coords: Vec<[u32; 4]> = (0..self.n)
                        .map(|t| {
                            let g = self.src_gpr(t, x.src_gpr, x.src_rel, opts);
                            core::array::from_fn(|c| fetch::select(g, x.src_sel[c]).unwrap_or(0))
                        })
                        .collect();
                    for t in 0..self.n {
                        let whole = x.fetch_whole_quad && self.quad_active(t);
                        if !(pass[t] || whole) {
                            continue;
                        }
                        let coord = coords[t];
                        // The _G forms use the stored gradients; the others the quad's.
                        let mut extra = self.tex_state[t];
                        if !matches!(x.op, 20..=23 | 28..=31) {
                            (extra.grad_h, extra.grad_v) = quad_gradients(&coords, t);
                        }
                        let val = match x.op {
                            3 => texture::load(mem, &lk, x, coord),
                            4 => Ok(texture::resinfo(&res.0)),
                            5 => Ok(texture::samples(&res.0)),
                            6 => texture::comp_lod(&lk, x, coord, &extra),
                            _ => texture::sample(mem, &lk, x, coord, &extra),
                        }
                        .map_err(res_err)?;
                        self.write_gpr(t, x.dst_gpr, x.dst_rel, val, x.dst_sel, opts);
                    }
                }
            }
            Some(Clause::Mem(insts)) => {
                for m in insts {
                    if *steps >= budget {
                        return Err(EmuError::Budget { steps: opts.budget });
                    }
                    *steps += 1;
                    match m {
                        MemInst::DsWrite(d) => self.lds_write(d, pc, pass, opts, mem)?,
                        MemInst::DsRead(d) => self.lds_read(d, pc, pass, opts, mem)?,
                        MemInst::Read(r) => self.mem_read(r, pc, pass, opts, mem)?,
                    }
                }
            }
            _ => return Err(EmuError::PcOutOfRange { pc: w.addr }),
        }
        Ok(())
    }

    /// MEM_RD (002 chapter 7, lines 2159-2218). Scatter reads address the MEM_EXPORT buffer
    /// with MEM_EXPORT's own equation, in dwords: ARRAY_BASE + SRC_GPR + burst * (ELEM_SIZE + 1)
    /// (2205-2207; the write side is 2697-2733). Scratch reads read what MEM_SCRATCH wrote:
    /// element ARRAY_BASE + burst + INDEXED * clamp(SRC_GPR, 0, ARRAY_SIZE - 1) of
    /// ELEM_SIZE + 1 dwords in the thread's scratch item (Mesa r600_shader.c spills with
    /// MEM_SCRATCH writes and reads them back with READ_SCRATCH, which r600_asm.c
    /// r700_bytecode_fetch_mem_build encodes as MEM_RD RD_SCRATCH with the same ARRAY_BASE and
    /// the address register as SRC_GPR). The element converts through DATA_FORMAT,
    /// NUM_FORMAT_ALL, FORMAT_COMP_ALL and ENDIAN_SWAP as a vertex fetch does (MEM_RD_WORD1 is
    /// VTX_WORD1's layout). Reduction reads need WavefrontID and ReductionBufferStride, which
    /// no public source sets for R700: refused.
    fn mem_read(
        &mut self,
        r: &crate::mem::MemRead,
        pc: u32,
        pass: &[bool],
        opts: &Options,
        mem: &mut Memory,
    ) -> Result<(), EmuError> {
        let base = match r.mem_op {
            0 => match (opts.scratch_base, opts.scratch_item) {
                (Some(b), Some(_)) => b,
                _ => {
                    return Err(EmuError::Resource {
                        pc,
                        why: "MEM_RD scratch read without scratch_base and scratch_item".into(),
                    });
                }
            },
            2 => opts.mem_export_base.ok_or_else(|| EmuError::Resource {
                pc,
                why: "MEM_RD scatter read without mem_export_base".into(),
            })?,
            _ => {
                return Err(EmuError::Unsupported {
                    pc,
                    what: "MEM_RD reduction reads (WavefrontID and ReductionBufferStride are not public)",
                });
            }
        };
        let format = fetch::Format::new(r.data_format, r.num_format_all, [r.format_comp_all; 4])
            .ok_or_else(|| EmuError::Resource {
                pc,
                why: alloc::format!("MEM_RD data format {} is not emulated", r.data_format),
            })?;
        let es = r.elem_size as u64 + 1;
        for t in 0..self.n {
            let whole = r.fetch_whole_quad && self.quad_active(t);
            if !(pass[t] || whole) || t >= self.real {
                continue;
            }
            let src = self.src_gpr(t, r.src_gpr, r.src_rel, opts)[r.src_sel_x as usize];
            for step in 0..=r.burst_count as u64 {
                let addr = if r.mem_op == 2 {
                    let off = (r.array_base as u64)
                        .wrapping_add(src as u64)
                        .wrapping_add(step * es);
                    Some(base.wrapping_add(off.wrapping_mul(4)))
                } else {
                    let item = opts.scratch_item.unwrap_or(0) as u64;
                    let index = if r.indexed {
                        (src as i32).clamp(0, (r.array_size as i32 - 1).max(0)) as u64
                    } else {
                        0
                    };
                    let off = (r.array_base as u64 + step + index) * es;
                    (off + format.bytes().div_ceil(4) as u64 <= item)
                        .then(|| base.wrapping_add((self.gid[t] as u64 * item + off) * 4))
                };
                let v = match addr {
                    Some(a) => format.read(mem, a, r.endian_swap),
                    // Past the thread's scratch item: zeros (ours).
                    None => format.convert([0; 4]),
                };
                let dst = r.dst_gpr.wrapping_add(step as u8) & 0x7F;
                self.write_gpr(t, dst, r.dst_rel, v, r.dst_sel, opts);
            }
        }
        Ok(())
    }

    /// An LDS REL_MODE: 0 absolute, 1 plus the loop index, 2 REL_GLOBAL ("treat GPR address
    /// as absolute, not thread-relative", 002 line 8852: the SIMD-global GPRs).
    fn lds_rel(pc: u32, mode: u8) -> Result<u8, EmuError> {
        match mode {
            0..=2 => Ok(mode),
            _ => Err(EmuError::Unsupported {
                pc,
                what: "LDS REL_MODE 3 (reserved)",
            }),
        }
    }

    /// Thread `t`'s GPR `g` under an LDS REL_MODE.
    fn lds_src(&self, t: usize, g: u8, mode: u8, opts: &Options, mem: &Memory) -> [u32; 4] {
        if mode == 2 {
            alu::global_index(5, g, [0; 4], opts).map_or([0; 4], |i| mem.globals[t * 128 + i])
        } else {
            self.src_gpr(t, g, mode == 1, opts)
        }
    }

    /// Writes thread `t`'s GPR `g` under an LDS REL_MODE through `sel`.
    #[allow(clippy::too_many_arguments)]
    fn lds_dst(
        &mut self,
        t: usize,
        g: u8,
        mode: u8,
        v: [u32; 4],
        sel: [u8; 4],
        opts: &Options,
        mem: &mut Memory,
    ) {
        if mode != 2 {
            return self.write_gpr(t, g, mode == 1, v, sel, opts);
        }
        if let Some(i) = alu::global_index(5, g, [0; 4], opts) {
            for c in 0..4 {
                if let Some(x) = fetch::select(v, sel[c]) {
                    mem.globals[t * 128 + i][c] = x;
                }
            }
        }
    }

    /// LOCAL_DS_WRITE: thread `id`'s component `c` (X..W) goes to dword
    /// `(id >> 2) * DST_STRIDE + DST_INDEX + c` of bank `id & 3`, `id` counted from the wavefront's first thread, or from the
    /// group's first with SIMD_WAVE_REL (002 lines 645-658). A burst step adds 4 dwords to
    /// DST_INDEX and 1 to SRC_GPR (MEM_DSW_WORD2, 8820-8823). Dwords past the bank are
    /// dropped and counted: the manual does not say what they do.
    fn lds_write(
        &mut self,
        d: &DsWrite,
        pc: u32,
        pass: &[bool],
        opts: &Options,
        mem: &mut Memory,
    ) -> Result<(), EmuError> {
        let rel = Self::lds_rel(pc, d.src_rel_mode)?;
        let bank_len = mem.lds.len() / 4;
        for step in 0..=d.burst_count as usize {
            for t in 0..self.real {
                if !pass[t] || !self.valid[t] {
                    continue;
                }
                let g = self.lds_src(t, d.src_gpr.wrapping_add(step as u8), rel, opts, mem);
                let id = if d.simd_wave_rel {
                    self.local[t]
                } else {
                    t as u32
                } as usize;
                let base = (id >> 2)
                    .saturating_mul(d.dst_stride as usize)
                    .saturating_add(d.dst_index as usize + 4 * step);
                for c in 0..4 {
                    let Some(v) = fetch::select(g, d.src_sel[c]) else {
                        continue;
                    };
                    let off = base.saturating_add(c);
                    if off < bank_len {
                        mem.lds[(id & 3) * bank_len + off] = v;
                    } else {
                        mem.lds_out_of_range += 1;
                    }
                }
            }
        }
        Ok(())
    }

    /// LOCAL_DS_READ with DSR_MUX_NONE: the source's X selects the bank ("X channel has
    /// index"), its Y the dword offset in the bank ("Y has address"), plus RD_OFFSET (MEM_DSR
    /// SRC_SEL, RD_OFFSET); the aligned four-dword entry holding that dword is read (002
    /// line 663). A burst step adds 4 to RD_OFFSET and 1 to DST_GPR (MEM_DSR_WORD2).
    /// BROADCAST reads the first valid thread's address into every thread (8873-8875);
    /// WATERFALL only changes timing. A read outside the LDS returns 0 and is counted.
    fn lds_read(
        &mut self,
        d: &DsRead,
        pc: u32,
        pass: &[bool],
        opts: &Options,
        mem: &mut Memory,
    ) -> Result<(), EmuError> {
        // The manual gives these modes one line each ("a 16 bank dword butterfly read across
        // the 512 bit output", "any single dword read", 002 lines 664-665): which dword or lane
        // lands in which thread's channel is not public (Mesa and LLVM never emit R700 LDS).
        if d.mux_cntl != 0 {
            return Err(EmuError::Unsupported {
                pc,
                what: "LDS reads with DSR_MUX_FFT_PERMUTE or DSR_MUX_WORD_SELECT (no public lane/dword mapping)",
            });
        }
        let src_rel = Self::lds_rel(pc, d.src_rel_mode)?;
        let dst_rel = Self::lds_rel(pc, d.dst_rel_mode)?;
        let bank_len = mem.lds.len() / 4;
        // DST_WR_X..W: write the read X..W, or nothing (SEL_MASK).
        let mut sel = [0u8, 1, 2, 3];
        for c in 0..4 {
            if !d.dst_write[c] {
                sel[c] = 7;
            }
        }
        let first = (0..self.real).find(|&t| self.valid[t]);
        for step in 0..=d.burst_count as usize {
            let read = |s: &Self, t: usize, mem: &mut Memory| -> [u32; 4] {
                let g = s.lds_src(t, d.src_gpr, src_rel, opts, mem);
                let bank = fetch::select(g, d.src_sel[0]).unwrap_or(0) as usize;
                let off = (fetch::select(g, d.src_sel[1]).unwrap_or(0) as usize)
                    .saturating_add(d.rd_offset as usize + 4 * step);
                let off = off & !3;
                if bank < 4 && off + 4 <= bank_len {
                    let at = bank * bank_len + off;
                    [
                        mem.lds[at],
                        mem.lds[at + 1],
                        mem.lds[at + 2],
                        mem.lds[at + 3],
                    ]
                } else {
                    mem.lds_out_of_range += 4;
                    [0; 4]
                }
            };
            let dst = d.dst_gpr.wrapping_add(step as u8);
            if d.broadcast {
                // "all threads of the wavefront receive the data, even if inactive or invalid".
                let Some(f) = first else { continue };
                let v = read(self, f, mem);
                for t in 0..self.n {
                    self.lds_dst(t, dst, dst_rel, v, sel, opts, mem);
                }
                continue;
            }
            let vals: Vec<Option<[u32; 4]>> = (0..self.n)
                .map(|t| (pass[t] && self.valid[t]).then(|| read(self, t, mem)))
                .collect();
            for (t, v) in vals.into_iter().enumerate() {
                if let Some(v) = v {
                    self.lds_dst(t, dst, dst_rel, v, sel, opts, mem);
                }
            }
        }
        Ok(())
    }

    /// GET_GRADIENTS_H/V: the source's difference across the quad, right minus left or
    /// bottom minus top (quads are threads 4k..4k+3: top-left, top-right, bottom-left,
    /// bottom-right; 002 lines 7100-7116 give only "dx/dh").
    fn gradients(&mut self, x: &crate::fetch::TexInst, pass: &[bool], opts: &Options) {
        let src: Vec<[u32; 4]> = (0..self.n)
            .map(|t| {
                let g = self.src_gpr(t, x.src_gpr, x.src_rel, opts);
                core::array::from_fn(|c| fetch::select(g, x.src_sel[c]).unwrap_or(0))
            })
            .collect();
        let step = if x.op == 7 { 1 } else { 2 };
        for t in 0..self.n {
            let whole = x.fetch_whole_quad && self.quad_active(t);
            if !(pass[t] || whole) {
                continue;
            }
            let (lo, hi) = (t & !step, (t | step).min(self.n - 1));
            let d: [u32; 4] = core::array::from_fn(|c| {
                (f32::from_bits(src[hi][c]) - f32::from_bits(src[lo][c])).to_bits()
            });
            self.write_gpr(t, x.dst_gpr, x.dst_rel, d, x.dst_sel, opts);
        }
    }

    /// SET_GRADIENTS_H/V store the source's XYZ as the horizontal/vertical gradients,
    /// KEEP_GRADIENTS the quad's gradients of its source (002 lines 7117-7119: "GetGradientsH/V
    /// followed by SetGradientsH/V"; its destination is left alone), SET_CUBEMAP_INDEX the
    /// source's Z ("Z set index for array of cubemaps", TEX_INST table).
    fn set_tex_state(&mut self, x: &crate::fetch::TexInst, pass: &[bool], opts: &Options) {
        let src: Vec<[u32; 4]> = (0..self.n)
            .map(|t| {
                let g = self.src_gpr(t, x.src_gpr, x.src_rel, opts);
                core::array::from_fn(|c| fetch::select(g, x.src_sel[c]).unwrap_or(0))
            })
            .collect();
        for t in 0..self.n {
            let whole = x.fetch_whole_quad && self.quad_active(t);
            if !(pass[t] || whole) {
                continue;
            }
            let xyz = |v: [u32; 4]| core::array::from_fn(|c| f32::from_bits(v[c]));
            let st = &mut self.tex_state[t];
            match x.op {
                10 => (st.grad_h, st.grad_v) = quad_gradients(&src, t),
                11 => st.grad_h = xyz(src[t]),
                12 => st.grad_v = xyz(src[t]),
                _ => st.cube_index = f32::from_bits(src[t][2]),
            }
        }
    }

    fn export(
        &mut self,
        e: &CfExport,
        pc: u32,
        opts: &Options,
        mem: &mut Memory,
    ) -> Result<(), EmuError> {
        let pass: Vec<bool> = (0..self.n)
            .map(|t| self.test(t, 0, 0, e.whole_quad_mode, e.valid_pixel_mode, opts))
            .collect();
        for t in 0..self.real {
            if !pass[t] {
                continue;
            }
            for n in 0..=e.burst_count as u32 {
                let g = self.src_gpr(t, e.rw_gpr.wrapping_add(n as u8) & 0x7F, e.rw_rel, opts);
                match (e.op, e.word1) {
                    (ExportOp::Export | ExportOp::ExportDone, ExportWord1::Swiz { sel }) => {
                        // Our layout: 64 targets of 16 bytes per thread.
                        let index = e.array_base as u64 + n as u64;
                        let base = opts.export_base.get(e.kind as usize).copied().flatten();
                        for c in 0..4 {
                            let Some(v) = fetch::select(g, sel[c]) else {
                                continue;
                            };
                            match base {
                                Some(a) if index < 64 => mem.write_u32(
                                    a.wrapping_add(
                                        (self.gid[t] as u64 * 64 + index) * 16 + 4 * c as u64,
                                    ),
                                    v,
                                ),
                                _ => mem.dropped += 1,
                            }
                        }
                    }
                    (
                        op,
                        ExportWord1::Buf {
                            array_size,
                            comp_mask,
                        },
                    ) => {
                        let read = e.kind >= 2;
                        let scratch_item = opts.scratch_item.filter(|_| op == ExportOp::MemScratch);
                        if read && op != ExportOp::MemExport && scratch_item.is_none() {
                            return Err(EmuError::Unsupported {
                                pc,
                                what: "CF memory reads other than MEM_EXPORT and MEM_SCRATCH with a scratch item size",
                            });
                        }
                        let es = e.elem_size as u64 + 1;
                        // TYPE WRITE_IND and READ_IND (1, 3) add INDEX_GPR.x (002 lines 896-903).
                        let indexed = e.kind & 1 == 1;
                        let index = if indexed {
                            self.src_gpr(t, e.index_gpr, false, opts)[0] as u64
                        } else {
                            0
                        };
                        let mut got = [0u32; 4];
                        for c in 0..es {
                            if !read && comp_mask >> c & 1 == 0 {
                                continue;
                            }
                            let addr = if op == ExportOp::MemExport {
                                // Dword address = base + INDEX_GPR.x + ARRAY_BASE + burst * elemsize
                                // (2697-2733); ARRAY_SIZE "unused", read as a bound when non-zero.
                                let off = index + e.array_base as u64 + n as u64 * es + c;
                                if array_size != 0 && off >= (array_size as u64) << 6 {
                                    None
                                } else {
                                    opts.mem_export_base.map(|b| b.wrapping_add(off * 4))
                                }
                            } else if let Some(item) = scratch_item {
                                // With a scratch item size (SQ_*TMP_RING_ITEMSIZE's stand-in) every
                                // thread owns `item` dwords; first_mem as below, the ARRAY_SIZE
                                // clamp for indexed accesses only ("an array size for indexed
                                // operations", 002 line 890; Mesa r600_shader.c gives direct spill
                                // accesses ARRAY_SIZE 0).
                                let first = (e.array_base as u64 + index) * es;
                                let off = first + n as u64 * es + c;
                                let limit = (e.array_base as u64 + array_size as u64) * es;
                                if (indexed && off >= limit) || off >= item as u64 {
                                    None
                                } else {
                                    opts.scratch_base.map(|b| {
                                        b.wrapping_add((self.gid[t] as u64 * item as u64 + off) * 4)
                                    })
                                }
                            } else {
                                // first_mem = (ARRAY_BASE + use_index * INDEX) * (ELEM_SIZE + 1),
                                // clamped at (ARRAY_BASE + ARRAY_SIZE) * (ELEM_SIZE + 1) (902-910);
                                // each thread an item of that many dwords (ours).
                                let first = (e.array_base as u64 + index) * es;
                                let limit = (e.array_base as u64 + array_size as u64) * es;
                                let off = first + n as u64 * es + c;
                                let base = match op {
                                    ExportOp::MemStream0 => opts.stream_base[0],
                                    ExportOp::MemStream1 => opts.stream_base[1],
                                    ExportOp::MemStream2 => opts.stream_base[2],
                                    ExportOp::MemStream3 => opts.stream_base[3],
                                    ExportOp::MemScratch => opts.scratch_base,
                                    ExportOp::MemReduction => opts.reduction_base,
                                    _ => opts.ring_base,
                                };
                                if off >= limit {
                                    None
                                } else {
                                    base.map(|b| {
                                        b.wrapping_add((self.gid[t] as u64 * limit + off) * 4)
                                    })
                                }
                            };
                            match (read, addr) {
                                // A read outside the buffer or past the clamp reads 0 (ours).
                                (true, a) => {
                                    got[c as usize] = a.and_then(|a| mem.read_u32(a)).unwrap_or(0)
                                }
                                (false, Some(a)) => mem.write_u32(a, g[c as usize]),
                                (false, None) => mem.dropped += 1,
                            }
                        }
                        if read {
                            // RW_GPR (+ burst) receives ELEM_SIZE + 1 dwords: "no element
                            // mask for reads" (002 line 890).
                            let sel =
                                core::array::from_fn(|c| if (c as u64) < es { c as u8 } else { 7 });
                            let dst = e.rw_gpr.wrapping_add(n as u8) & 0x7F;
                            self.write_gpr(t, dst, e.rw_rel, got, sel, opts);
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

/// Thread `t`'s coordinate differences across its quad: right minus left (horizontal),
/// bottom minus top (vertical); quads are threads 4k..4k+3 as top-left, top-right,
/// bottom-left, bottom-right (the same rule as GET_GRADIENTS_H/V).
fn quad_gradients(src: &[[u32; 4]], t: usize) -> ([f32; 3], [f32; 3]) {
    let n = src.len();
    let d = |step: usize| -> [f32; 3] {
        let (lo, hi) = (t & !step, (t | step).min(n - 1));
        core::array::from_fn(|c| f32::from_bits(src[hi][c]) - f32::from_bits(src[lo][c]))
    };
    (d(1), d(2))
}
