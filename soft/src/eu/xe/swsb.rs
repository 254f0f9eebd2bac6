//! The software-scoreboard check: a debugging aid no GPU gives. Xe-HPG
//! does not track register dependencies itself; the compiler annotates
//! each instruction (SWSB byte: `@n` register distances on an in-order
//! pipe, `$n` tokens of out-of-order instructions, `$n.dst`/`$n.src`
//! waits, `sync.allwr`/`sync.allrd`) and hardware trusts it. A missing
//! wait reads a stale register. This checker follows the executed path and
//! reports the first access that no annotation orders.
//!
//! Model (Mesa src/intel/compiler/brw_scoreboard.cpp; IGC
//! visa/LocalScheduler/SWSB_G4IR.cpp and visa/G4_IR.cpp; IGA
//! IR/SWSBSetter.cpp). Where the compilers' rules differ, the check takes
//! the more permissive, so that it never reports code one of them
//! considers ordered:
//! - out of order: send/sendc, math and dpas (`is_unordered`, math before
//!   Xe2); such an instruction with `$n` holds token n over the GRF
//!   registers it writes and reads until a later `$n.dst` (both) or
//!   `$n.src` (its reads) or `sync.allwr`/`sync.allrd`. Reusing a token
//!   drops the old holder (the hardware waits for a token to be free
//!   before it allocates it again).
//! - read order: sends to one shared function (SLM apart), or math, or
//!   dpas, under one predicate and the same channels, read their sources in
//!   issue order (IGC `WARDepRequired`): a later one may overwrite an
//!   earlier one's sources, and knowing a later one's sources read (its
//!   `.src` or `.dst`, or its token reused) knows the earlier ones' too.
//! - in order: the float, int and long pipes ([`pipes_of`]: branches on
//!   int; long for 64-bit operands; otherwise by the destination type).
//!   Each counts its instructions; a write n instructions back on pipe P is
//!   ordered by `@m` (on the instruction's own pipe or a pipe its source
//!   types name), `P@m` or `A@m` with m <= n. A write is complete 10
//!   instructions later on its pipe (14 on the long pipe; Mesa
//!   `ordered_dependency_swsb`'s max_dist), or 11 instructions of any kind
//!   later (15 for a 64-bit destination; IGC
//!   SWSB_MAX_ALU_DEPENDENCE_DISTANCE), or once the thread takes a jump
//!   ([`Scoreboard::branch_taken`]).
//! - checked: reads and writes of GRF registers against pending token
//!   writes, writes against pending token reads, and reads and writes
//!   against pending in-order writes of another pipe or unordered by a
//!   distance (a write after a write on the same pipe is ordered by the
//!   pipe). Flags, the accumulator and a0 are not tracked. In-order
//!   writes are compared by byte (IGC orders by the bytes an instruction
//!   touches: `operand::Touched`); tokens by whole registers.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use baregpu_isa::inst::{
    Body, Instruction, Opcode, Pipe, PredCtrl, SendDesc, Sfid, Swsb, SyncFn, TokenMode, Type,
};

use super::operand::{Touched, byte_overlap};
use crate::eu::thread::layout::GRF_REGS;
use alloc::boxed::Box;

/// An in-order pipe of Xe-HPG.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InOrder {
    Float = 0,
    Int = 1,
    Long = 2,
}

impl InOrder {
    fn name(self) -> &'static str {
        match self {
            InOrder::Float => "float",
            InOrder::Int => "int",
            InOrder::Long => "long",
        }
    }
    fn max_dist(self) -> u64 {
        if self == InOrder::Long { 14 } else { 10 }
    }
}

/// Runs out of order with an SBID token.
pub fn out_of_order(i: &Instruction) -> bool {
    matches!(
        i.opcode,
        Opcode::Send | Opcode::Sendc | Opcode::Math | Opcode::Dpas | Opcode::Dpasw
    )
}

/// JEU (branch) opcodes: they issue on the int pipe and count there (IGC
/// visa/G4_IR.cpp `isJEUPipeInstructionXe`, `isIntegerPipeInstructionXe`).
fn is_branch(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Jmpi
            | Opcode::If
            | Opcode::Else
            | Opcode::Endif
            | Opcode::Break
            | Opcode::Join
            | Opcode::Cont
            | Opcode::While
            | Opcode::Brc
            | Opcode::Brd
            | Opcode::Goto
            | Opcode::Call
            | Opcode::Calla
            | Opcode::Ret
    )
}

/// The in-order pipe of a value type on Xe-HPG: long for 64-bit types
/// (DG2 has no partial int64 support: Q and UQ run there too), float for
/// F/HF/BF, int otherwise.
fn type_pipe(ty: Type) -> InOrder {
    if ty.size() == 8 {
        InOrder::Long
    } else if ty.is_float() {
        InOrder::Float
    } else {
        InOrder::Int
    }
}

fn bit(p: InOrder) -> u8 {
    1 << p as u8
}

/// What the SWSB check needs of an instruction's pipes, found once at
/// predecode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pipes {
    /// The in-order pipe it issues on and counts on (`None`: out of order,
    /// or no pipe: sync, nop, wait, halt).
    pub exec: Option<InOrder>,
    /// The pipes (bit per [`InOrder`]) a bare `@n` waits on.
    pub bare: u8,
    /// Executed instructions (of any kind) after which its write is
    /// complete: 11, or 15 for a 64-bit destination (IGC
    /// SWSB_MAX_ALU_DEPENDENCE_DISTANCE and its _64BIT, `getMaxDepDistance`).
    pub drain: u8,
}

/// The pipes of `i` (IGC visa/G4_IR.cpp `getInstructionPipeXe` for DG2):
/// - branches: int;
/// - long when the destination or any source is 64-bit;
/// - otherwise by the destination type: float for F/HF/BF, int for the
///   integer types (so `mov r:f r:ud` is a float instruction; Mesa
///   brw_scoreboard.cpp `inferred_exec_pipe` agrees).
///
/// A bare `@n` waits on the instruction's own pipe (IGC `getDistDepPipeXe`)
/// and on the pipes its source types imply: IGC leaves the pipe out when
/// the operand types say it ("operand type indicated", SWSB_G4IR.cpp
/// `finalizeDistanceType`) and Mesa's `inferred_sync_pipe` infers it from
/// the source types. The check accepts either reading: it never reports
/// code that one of the two compilers considers ordered. Out-of-order
/// instructions' bare `@n` waits on every pipe (IGC encodes sends' as
/// DISTALL).
pub fn pipes_of(i: &Instruction) -> Pipes {
    let all = bit(InOrder::Float) | bit(InOrder::Int) | bit(InOrder::Long);
    if out_of_order(i) {
        return Pipes {
            exec: None,
            bare: all,
            drain: 11,
        };
    }
    let operands = super::alu::operands(i);
    let mut from_sources = 0u8;
    let mut long = false;
    let mut drain = 11;
    if let Some((dst, srcs)) = &operands {
        let n = super::alu::source_count(i.opcode, None);
        long = dst.ty.size() == 8;
        if long {
            drain = 15;
        }
        for s in srcs.iter().take(n).flatten() {
            let ty = match s {
                baregpu_isa::inst::Src::Reg(r) => r.ty,
                baregpu_isa::inst::Src::Imm(m) => m.ty,
                baregpu_isa::inst::Src::Vacant(_) => continue,
            };
            long |= ty.size() == 8;
            from_sources |= bit(type_pipe(ty));
        }
    }
    let exec = if is_branch(i.opcode) {
        Some(InOrder::Int)
    } else if let Some((dst, _)) = &operands {
        Some(if long {
            InOrder::Long
        } else if dst.ty.is_float() {
            InOrder::Float
        } else {
            InOrder::Int
        })
    } else {
        None
    };
    Pipes {
        exec,
        bare: exec.map_or(all, bit) | from_sources,
        drain,
    }
}

/// Out-of-order instructions that read their sources in issue order:
/// sends to one shared function (SLM apart), or math, or dpas, under the
/// same predicate flag and channels (IGC SWSB_G4IR.cpp `WARDepRequired`,
/// `hasSameFunctionID`, `hasSamePredicator`, `hasSameExecMask`). A wait
/// for one's sources to be read orders the earlier ones' reads too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOrder {
    unit: u16,
    flag: Option<(u8, u8)>,
    exec_size: u8,
    first_channel: u8,
}

/// `None`: `i` is in no read order (in order, or unpredicated NoMask).
pub fn read_order(i: &Instruction) -> Option<ReadOrder> {
    let unit = match &i.body {
        Body::Send(s) => {
            let sfid = s.sfid? as u16;
            let slm = s.sfid == Some(Sfid::Slm) || legacy_slm(s);
            0x100 | sfid << 1 | u16::from(slm)
        }
        _ if i.opcode == Opcode::Math => 1,
        _ if matches!(i.opcode, Opcode::Dpas | Opcode::Dpasw) => 2,
        _ => return None,
    };
    let flag = if i.pred_ctrl == PredCtrl::None {
        if i.no_mask {
            return None;
        }
        None
    } else {
        Some((i.flag.reg, i.flag.subreg))
    };
    Some(ReadOrder {
        unit,
        flag,
        exec_size: i.exec_size,
        first_channel: i.first_channel(),
    })
}

/// A legacy data-port message to binding-table entry 254 (SLM) with an
/// immediate descriptor.
fn legacy_slm(s: &baregpu_isa::inst::Send) -> bool {
    matches!(s.sfid, Some(Sfid::DpDataCache | Sfid::DpDataCache1))
        && matches!(s.desc, SendDesc::Imm { desc, .. } if desc.function & 0xFF == 0xFE)
}

#[derive(Clone, Debug)]
struct Token {
    ip: u32,
    /// Issue order among the thread's out-of-order instructions.
    seq: u64,
    order: Option<ReadOrder>,
    writes: u128,
    reads: u128,
}

#[derive(Clone, Debug)]
struct Write {
    pipe: InOrder,
    index: u64,
    /// The thread's executed-instruction count when it issued.
    at: u64,
    drain: u8,
    ip: u32,
    regs: u128,
    /// The bytes written in each register of `regs`.
    bytes: Box<[u32; GRF_REGS]>,
}

/// The scoreboard state of one thread.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    count: [u64; 3],
    /// Instructions executed (every kind).
    executed: u64,
    writes: Vec<Write>,
    tokens: [Option<Token>; 16],
    issued: u64,
}

/// What the check needs of an instruction, found once at predecode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Annot {
    pub pipes: Pipes,
    pub order: Option<ReadOrder>,
}

impl Annot {
    pub fn of(i: &Instruction) -> Annot {
        Annot {
            pipes: pipes_of(i),
            order: read_order(i),
        }
    }
}

fn lowest(m: u128) -> u8 {
    m.trailing_zeros() as u8
}

impl Scoreboard {
    /// Applies `inst`'s waits, checks what it `touched` (executed at `ip`;
    /// `text` is its disassembly) and records what it leaves pending.
    /// Returns the first unordered access as a message.
    pub fn step(
        &mut self,
        ip: u32,
        inst: &Instruction,
        text: &str,
        touched: &Touched,
    ) -> Option<String> {
        self.step_on(ip, inst, Annot::of(inst), text, touched)
    }

    /// The sources of token `n`'s instruction have been read, and so have
    /// those of the earlier instructions in its read order.
    fn sources_read(&mut self, n: u8) {
        let Some(t) = &mut self.tokens[usize::from(n & 15)] else {
            return;
        };
        t.reads = 0;
        let (seq, order) = (t.seq, t.order);
        if order.is_none() {
            return;
        }
        for t in self.tokens.iter_mut().flatten() {
            if t.seq < seq && t.order == order {
                t.reads = 0;
            }
        }
    }

    /// Token `n`'s instruction is complete.
    fn complete(&mut self, n: u8) {
        self.sources_read(n);
        self.tokens[usize::from(n & 15)] = None;
    }

    /// The branch just checked by [`Scoreboard::step`] jumped (the thread
    /// goes on somewhere other than the next instruction): the in-order
    /// writes before it are complete. The jump takes the EU several cycles
    /// to resolve, and both compilers rely on it: IGA's SWSB analyzer and
    /// IGC track register distances in program order only (IGA
    /// SWSBSetter.cpp: "by the time jmp happens counter should be at 0"),
    /// so a loop's back edge or a jump over code carries no `@n` for what
    /// was written before it (IGC's `group_sum` loop: `(W) mov r4.0 r4.1`,
    /// `jmpi` to the head, `shr r4.1 r4.0` with no wait).
    pub fn branch_taken(&mut self) {
        self.writes.clear();
    }

    /// [`Scoreboard::step`] with the instruction's [`Annot`] computed
    /// once at predecode.
    pub fn step_on(
        &mut self,
        ip: u32,
        inst: &Instruction,
        annot: Annot,
        text: &str,
        touched: &Touched,
    ) -> Option<String> {
        let pipe = annot.pipes.exec;
        let ooo = out_of_order(inst);
        self.executed += 1;
        let mut dist: Option<(Pipe, u8)> = None;
        let mut set: Option<u8> = None;
        match inst.swsb {
            Some(Swsb::Dist { pipe, dist: d }) => dist = Some((pipe, d)),
            Some(Swsb::Token { mode, sbid }) => match mode {
                TokenMode::Set => set = Some(sbid),
                TokenMode::Dst => self.complete(sbid),
                TokenMode::Src => self.sources_read(sbid),
            },
            Some(Swsb::Both { dist: d, sbid }) => {
                if ooo {
                    set = Some(sbid);
                } else {
                    self.complete(sbid);
                }
                let p = if matches!(inst.opcode, Opcode::Send | Opcode::Sendc) {
                    Pipe::All
                } else {
                    Pipe::Same
                };
                dist = Some((p, d));
            }
            None => {}
        }
        if let Body::Sync(s) = &inst.body {
            match s.function {
                SyncFn::AllWr => self.tokens = Default::default(),
                SyncFn::AllRd => {
                    for t in self.tokens.iter_mut().flatten() {
                        t.reads = 0;
                    }
                }
                _ => {}
            }
        }
        // Register-distance waits retire the in-order writes they reach;
        // writes past their pipe's maximum distance are complete (one pass
        // over the pending writes for both).
        let covers = |q: InOrder| match dist {
            None => false,
            Some((p, _)) => match p {
                Pipe::All => true,
                Pipe::Same => annot.pipes.bare & bit(q) != 0,
                Pipe::Float => q == InOrder::Float,
                Pipe::Int => q == InOrder::Int,
                Pipe::Long => q == InOrder::Long,
            },
        };
        let d = dist.map_or(0, |(_, d)| u64::from(d));
        // Two bounds: Mesa's, in the writer's pipe's instructions, and
        // IGC's, in instructions of any kind (SWSB_G4IR.cpp
        // `calcDiffBetweenInstDistAndPipeDepDist`: no stall once that many
        // have issued). Each compiler relies on its own, so a write is
        // complete past either.
        let count = self.count;
        let now = self.executed;
        self.writes.retain(|w| {
            let n = count[w.pipe as usize] + 1 - w.index;
            !(covers(w.pipe) && d <= n) && n <= w.pipe.max_dist() && now - w.at < u64::from(w.drain)
        });
        // An out-of-order instruction setting a token in use waits for it
        // to be free before it issues: the old holder is complete.
        if ooo && let Some(n) = set {
            self.complete(n);
        }
        let mut hazard = None;
        for (n, t) in self.tokens.iter().enumerate() {
            let Some(t) = t else { continue };
            let r = touched.reads & t.writes;
            let w = touched.writes & t.writes;
            // A later instruction in the same read order writes only after
            // the earlier ones read (IGC `WARDepRequired` adds no edge).
            let in_order = annot.order.is_some() && annot.order == t.order;
            let war = if in_order {
                0
            } else {
                touched.writes & t.reads
            };
            let (m, how, wait) = if r != 0 {
                (r, "reads", "dst")
            } else if w != 0 {
                (w, "overwrites", "dst")
            } else if war != 0 {
                (war, "overwrites", "src")
            } else {
                continue;
            };
            let what = if war != 0 && r == 0 && w == 0 {
                "reads"
            } else {
                "writes"
            };
            hazard = Some(format!(
                "SWSB: ip {ip:#06x} `{text}` {how} r{} which the out-of-order instruction at {:#06x} (${n}) {what}, without waiting on ${n}.{wait}",
                lowest(m),
                t.ip
            ));
            break;
        }
        if hazard.is_none() {
            for w in &self.writes {
                let same_pipe = pipe == Some(w.pipe);
                let r = byte_overlap(touched.reads & w.regs, &touched.read_bytes, &w.bytes);
                let ww = if same_pipe {
                    0
                } else {
                    byte_overlap(touched.writes & w.regs, &touched.write_bytes, &w.bytes)
                };
                let m = r | ww;
                if m == 0 {
                    continue;
                }
                let n = self.count[w.pipe as usize] + 1 - w.index;
                hazard = Some(format!(
                    "SWSB: ip {ip:#06x} `{text}` {} r{} written {n} {} instruction(s) back at {:#06x} without a register-distance wait (@{n} or less on that pipe)",
                    if r != 0 { "reads" } else { "overwrites" },
                    lowest(m),
                    w.pipe.name(),
                    w.ip
                ));
                break;
            }
        }
        if ooo {
            if let Some(n) = set {
                self.issued += 1;
                self.tokens[usize::from(n & 15)] = Some(Token {
                    ip,
                    seq: self.issued,
                    order: annot.order,
                    writes: touched.writes,
                    reads: touched.reads,
                });
            }
        } else if let Some(p) = pipe {
            self.count[p as usize] += 1;
            if touched.writes != 0 {
                self.writes.push(Write {
                    pipe: p,
                    index: self.count[p as usize],
                    at: self.executed,
                    drain: annot.pipes.drain,
                    ip,
                    regs: touched.writes,
                    bytes: Box::new(touched.write_bytes),
                });
            }
        }
        hazard
    }
}
