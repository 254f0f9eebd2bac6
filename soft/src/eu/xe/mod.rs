//! Xe-HPG (Gen12.5, DG2) EU threads.
//!
//! Gen12.5 has its own native format (`baregpu_isa::xehpg`), so its
//! threads have their own predecode and step here, over the same thread
//! state (`Thread`: 128 32-byte GRFs, f0/f1, a0, acc0/acc1, sr0, cr0, tm0)
//! and the same seam to the shared functions (`SharedFunctions`):
//! - [`program`]: a kernel decoded once; what DG2 lacks is refused there
//!   and raised when reached, as hardware raises at execution;
//! - `operand`: regions, indirect addressing, ARF numbering, the GRF
//!   registers each instruction touched;
//! - `value`: F/HF/BF and integer conversions, rounding to a destination;
//! - `alu`: the generic ALU, the Xe additions and `math`; `dpas`: the
//!   systolic dot product; `fast`: F add/mul/mad planned once and run on
//!   the older ISA's lane kernels;
//! - `flow`: per-channel IPs, JIP/UIP branches, calls;
//! - [`swsb`]: the software-scoreboard check;
//! - [`harness`]: one thread, messages to a caller's shared functions.
//!
//! 128 GRFs, as Mesa compiles every DG2 kernel. A 256-register mode is
//! Xe-HPC's and Xe2's (Intel compute-runtime GrfConfig::LargeGrfNumber,
//! read back from a control register on those parts); on DG2, Linux i915
//! sets ROW_CHICKEN2 GEN12_ENABLE_LARGE_GRF_MODE only as a workaround on
//! G11 A0 steppings (Wa_14013392000), and 004 shows no field by which a
//! kernel selects it. It is not modelled: an operand in r128 and above is
//! an operand error when it runs.

mod alu;
mod dpas;
mod fast;
mod flow;
pub mod harness;
mod operand;
pub mod program;
pub mod swsb;
mod value;

use alloc::format;

use baregpu_isa::inst::{Body, CondMod, ExDesc, Opcode, PredCtrl, SendDesc, SyncFn};

use crate::eu::error::{ErrorKind, EuError};
use crate::eu::fp::Rounding;
use crate::eu::run::Step;
use crate::eu::send::{ExtendedSend, Payload, SendError, SendRequest, SharedFunctions};
use crate::eu::thread::Thread;
use crate::eu::thread::layout::{CR0_BASE, FLAG_BASE, IP_BASE, REG_BYTES, TM_BASE};

pub use harness::XeHarness;
pub use program::XeProgram;
pub use swsb::Scoreboard;

/// One Xe-HPG thread: the architectural state and the scoreboard check.
pub struct XeThread {
    pub thread: Thread,
    pub scoreboard: Scoreboard,
    /// Report unordered register accesses as errors (on by default; off
    /// runs as hardware would, trusting the annotations).
    pub check_swsb: bool,
    /// Waiting at `sync.bar` for the gateway's barrier signal.
    pub at_barrier: bool,
}

impl Default for XeThread {
    fn default() -> Self {
        Self::new()
    }
}

impl XeThread {
    pub fn new() -> XeThread {
        XeThread {
            thread: Thread::new(baregpu_isa::IsaGen::Gen12_5),
            scoreboard: Scoreboard::default(),
            check_swsb: true,
            at_barrier: false,
        }
    }

    /// Moves the thread and every channel to `ip`.
    pub fn set_ip(&mut self, ip: u32) {
        self.thread.set_ip(ip);
        self.thread.broken = 0;
        self.thread.call_mask = 0;
    }

    /// The gateway's barrier signal: a thread waiting at `sync.bar` goes on.
    pub fn signal_barrier(&mut self) {
        self.at_barrier = false;
    }

    /// The predicate of an instruction, bit per instruction channel (004
    /// PredCtrl: normal, and the any/all horizontal groups).
    fn pmask(
        &self,
        inst: &baregpu_isa::inst::Instruction,
        first: usize,
        exec: usize,
    ) -> Result<u32, ErrorKind> {
        // No predicate: every channel (the loop below gives the same).
        if inst.pred_ctrl == PredCtrl::None {
            return Ok(if exec >= 32 {
                u32::MAX
            } else {
                (1 << exec) - 1
            });
        }
        let off = FLAG_BASE + usize::from(inst.flag.reg & 1) * REG_BYTES;
        let f = self.thread.load32(off);
        let base = usize::from(inst.flag.subreg & 1) * 16 + first;
        let bit = |c: usize| f >> ((base + c) % 32) & 1 != 0;
        let group = |n: usize, all: bool, c: usize| {
            let g = c / n * n;
            let mut it = (g..g + n).map(bit);
            if all { it.all(|b| b) } else { it.any(|b| b) }
        };
        let mut m = 0u32;
        for c in 0..exec {
            let v = match inst.pred_ctrl {
                PredCtrl::None => true,
                PredCtrl::Normal => bit(c),
                PredCtrl::Any2H => group(2, false, c),
                PredCtrl::All2H => group(2, true, c),
                PredCtrl::Any4H => group(4, false, c),
                PredCtrl::All4H => group(4, true, c),
                PredCtrl::Any8H => group(8, false, c),
                PredCtrl::All8H => group(8, true, c),
                PredCtrl::Any16H => group(16, false, c),
                PredCtrl::All16H => group(16, true, c),
                PredCtrl::Any32H => group(32, false, c),
                PredCtrl::All32H => group(32, true, c),
                _ => return Err(ErrorKind::BadOperand("predicate mode not on Xe-HPG")),
            };
            if v != inst.pred_inv || inst.pred_ctrl == PredCtrl::None {
                m |= 1 << c;
            }
        }
        Ok(m)
    }

    /// Runs one instruction.
    pub fn step(
        &mut self,
        prog: &XeProgram,
        sf: &mut dyn SharedFunctions,
    ) -> Result<Step, EuError> {
        if self.thread.ended {
            return Ok(Step::Ended);
        }
        if self.at_barrier {
            return Ok(Step::Waiting);
        }
        let ip = self.thread.ip;
        let Some(k) = prog.lookup(ip) else {
            return Err(prog.off_end(ip));
        };
        let op = &prog.ops[k];
        if let Some(e) = &op.refused {
            return Err(EuError::new(ip, e.clone()));
        }
        let inst = &op.inst;
        self.thread.executed += 1;
        // What ip and tm0 read as (the instruction's own address; a
        // count of executed instructions as the timestamp).
        self.thread.store32(IP_BASE, ip);
        let ts = self.thread.executed;
        self.thread.store32(TM_BASE, ts as u32);
        self.thread.store32(TM_BASE + 4, (ts >> 32) as u32);
        let exec = usize::from(inst.exec_size).clamp(1, 32);
        let first = usize::from(inst.first_channel()) % 32;
        let live = self.thread.sr0(2);
        let mut here = 0u32;
        for c in 0..exec {
            let ch = (first + c) % 32;
            if live >> ch & 1 != 0 && self.thread.pcip[ch] == ip {
                here |= 1 << c;
            }
        }
        let en_exec = if inst.no_mask {
            if exec >= 32 {
                u32::MAX
            } else {
                (1 << exec) - 1
            }
        } else {
            here
        };
        let pred = self
            .pmask(inst, first, exec)
            .map_err(|e| EuError::new(ip, e))?;
        let mut fc = value::FloatCtl::from_cr0(self.thread.load32(CR0_BASE));
        if inst.opcode == Opcode::Mov {
            // Moves and conversions keep denormals (004 mov, lines
            // 29179-29190; conversions do not flush, as on Gen7: 001 line
            // 1329).
            fc.keep32 = true;
            fc.keep16 = true;
        }
        let mut touched = operand::Touched::default();
        let at = flow::At {
            ip,
            next_ip: op.next_ip,
            first,
            exec,
            live,
        };
        let mut next = op.next_ip;
        let mut end = false;
        let r: Result<(), ErrorKind> = (|| {
            match &inst.body {
                Body::Branch(_) => {
                    next = flow::exec(
                        &mut self.thread,
                        inst,
                        &at,
                        here,
                        pred,
                        op.uip_is_while,
                        &mut touched,
                    )?;
                }
                Body::Alu(_) if is_flow(inst.opcode) => {
                    next = flow::exec(
                        &mut self.thread,
                        inst,
                        &at,
                        here,
                        pred,
                        op.uip_is_while,
                        &mut touched,
                    )?;
                }
                Body::Alu(_) | Body::Math(_) | Body::ThreeSrc(_) | Body::Bfn(_) => {
                    if inst.opcode == Opcode::Nop {
                        flow::fall_rest(&mut self.thread, &at);
                        return Ok(());
                    }
                    let sel_pred = inst.opcode == Opcode::Sel && inst.cond_mod == CondMod::None;
                    let en = if sel_pred { en_exec } else { en_exec & pred };
                    let fast_done = match &op.fast {
                        Some(f @ fast::XeFast { int: Some(i), .. }) => {
                            touched = f.touched;
                            i.run(&mut self.thread, en);
                            true
                        }
                        Some(f) if fc.mode == Rounding::NearestEven && !fc.keep32 => {
                            touched = f.touched;
                            crate::eu::alu::nearest_f(&mut self.thread, inst.opcode, &f.flat, en)
                        }
                        _ => false,
                    };
                    if !fast_done {
                        touched = operand::Touched::default();
                        alu::exec(&mut self.thread, inst, first, en, pred, &fc, &mut touched)?;
                    }
                    flow::fall_rest(&mut self.thread, &at);
                }
                Body::Sync(s) => {
                    match s.function {
                        // The thread waits at the gateway until every
                        // thread of its group arrived (004 sync, lines
                        // 35132-35190).
                        SyncFn::Bar => self.at_barrier = true,
                        SyncFn::Nop
                        | SyncFn::AllRd
                        | SyncFn::AllWr
                        | SyncFn::Fence
                        | SyncFn::Host => {}
                    }
                    flow::fall_rest(&mut self.thread, &at);
                }
                Body::Send(s) => {
                    let req = send_request(
                        &self.thread,
                        inst,
                        s,
                        ip,
                        first,
                        en_exec & pred,
                        &mut touched,
                    )?;
                    flow::fall_rest(&mut self.thread, &at);
                    sf.send(&mut self.thread, &req).map_err(|e| match e {
                        SendError::Unhandled => ErrorKind::UnhandledSend,
                        SendError::Bad(w) => ErrorKind::SharedFunction(w),
                        SendError::Fault { addr, len, write } => {
                            ErrorKind::MemoryFault { addr, len, write }
                        }
                    })?;
                    end = req.eot;
                }
                Body::Dpas(d) if inst.opcode == Opcode::Dpas => {
                    dpas::exec(&mut self.thread, d, exec, &fc, &mut touched)?;
                    flow::fall_rest(&mut self.thread, &at);
                }
                _ => return Err(ErrorKind::Unimplemented(inst.opcode)),
            }
            Ok(())
        })();
        r.map_err(|e| EuError::new(ip, e))?;
        // Without the check the scoreboard is not kept either (it only
        // serves the check; `check_swsb` is set before a dispatch).
        if self.check_swsb
            && let Some(h) = self
                .scoreboard
                .step_on(ip, inst, op.swsb, &op.text, &touched)
        {
            return Err(EuError::new(ip, ErrorKind::Swsb(h)));
        }
        if self.check_swsb && next != op.next_ip {
            self.scoreboard.branch_taken();
        }
        if end {
            self.thread.ended = true;
            return Ok(Step::Ended);
        }
        self.thread.ip = next;
        if self.at_barrier {
            return Ok(Step::Waiting);
        }
        Ok(Step::Ran)
    }

    /// Runs until the thread ends, waits or leaves the kernel; `budget`
    /// instructions at most (an exhausted budget is a hang: an error).
    pub fn run(
        &mut self,
        prog: &XeProgram,
        sf: &mut dyn SharedFunctions,
        budget: u64,
    ) -> Result<Step, EuError> {
        for _ in 0..budget {
            match self.step(prog, sf)? {
                Step::Ran => {}
                other => return Ok(other),
            }
        }
        Err(EuError::new(self.thread.ip, ErrorKind::Budget))
    }
}

fn is_flow(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Jmpi | Opcode::Call | Opcode::Calla | Opcode::Ret | Opcode::Brd | Opcode::Brc
    )
}

/// The request of a send: descriptor from the immediate or a0.0, the
/// extended descriptor's second payload (src1), EOT. On Xe-HPG the SFID
/// is an instruction field and the end-of-thread message goes to the
/// gateway (Mesa brw_eu_defines.h GEN_RT_SFID/BRW_SFID_MESSAGE_GATEWAY
/// for EOT from Xe-HP; `baregpu_isa::message::xe_gateway`).
fn send_request(
    t: &Thread,
    inst: &baregpu_isa::inst::Instruction,
    s: &baregpu_isa::inst::Send,
    ip: u32,
    first: usize,
    channels: u32,
    touched: &mut operand::Touched,
) -> Result<SendRequest, ErrorKind> {
    let desc = match &s.desc {
        SendDesc::Imm { desc, .. } => {
            u32::from(desc.mlen) << 25
                | u32::from(desc.rlen) << 20
                | u32::from(desc.header) << 19
                | desc.function
        }
        SendDesc::Reg(_) => t.load32(crate::eu::thread::layout::A0_BASE),
    };
    let mlen = ((desc >> 25) & 0xF) as u8;
    let rlen = ((desc >> 20) & 0x1F) as u8;
    let payload_reg = match &s.src0 {
        baregpu_isa::inst::Src::Reg(r) => match r.addr {
            baregpu_isa::inst::Addr::Direct { nr, .. } => nr,
            _ => return Err(ErrorKind::BadOperand("indirect send payload")),
        },
        _ => return Err(ErrorKind::BadOperand("send payload")),
    };
    touched.read_regs(payload_reg, mlen);
    // The extended descriptor: an immediate, or the dword a0.N (IGA
    // numbers a0.0-a0.7 in dwords; Mesa brw_inst.h
    // send_ex_desc_ia_subreg_nr, set from the byte offset >> 2). Its bits
    // 10:6 give the second payload's length unless ExBSO moves the length
    // into the instruction.
    let a0_dword = |n: u8| t.load32(crate::eu::thread::layout::A0_BASE + usize::from(n & 7) * 4);
    let (ex_desc, from_a0, ex_len) = match s.ex_desc {
        Some(ExDesc::Imm(v)) => (v, false, ((v >> 6) & 0x1F) as u8),
        Some(ExDesc::Reg { subnr, src1_len }) => {
            let v = a0_dword(subnr);
            (v, true, src1_len.unwrap_or(((v >> 6) & 0x1F) as u8))
        }
        None => (0, false, 0),
    };
    let mut src1 = None;
    if let Some(baregpu_isa::inst::Src::Reg(r)) = &s.src1
        && let baregpu_isa::inst::Addr::Direct { nr, .. } = r.addr
        && r.file == baregpu_isa::inst::RegFile::Grf
    {
        touched.read_regs(nr, ex_len);
        src1 = Some(nr);
    }
    let dst = if operand::is_null(s.dst.file, &s.dst.addr) {
        None
    } else {
        match s.dst.addr {
            baregpu_isa::inst::Addr::Direct { nr, .. } => {
                touched.write_regs(nr, rlen);
                Some(nr)
            }
            _ => return Err(ErrorKind::BadOperand("indirect send destination")),
        }
    };
    Ok(SendRequest {
        ip,
        sfid: s.sfid,
        desc,
        mlen,
        rlen,
        header: desc >> 19 & 1 != 0,
        function: desc & 0x7FFFF,
        payload: Payload {
            file: baregpu_isa::inst::RegFile::Grf,
            reg: payload_reg,
        },
        dst,
        dst_type: s.dst.ty,
        exec_size: inst.exec_size,
        first_channel: first as u8,
        channels,
        eot: s.eot,
        conditional: inst.opcode == Opcode::Sendc,
        extended: ExtendedSend {
            desc: ex_desc,
            from_a0,
            src1,
            src1_len: if src1.is_some() { ex_len } else { 0 },
        },
    })
}

/// Text of an error for reports.
pub fn describe(e: &EuError) -> alloc::string::String {
    format!("{e}")
}
