//! The software-scoreboard check: a debugging aid no GPU gives. Xe-HPG
//! does not track register dependencies itself; the compiler annotates
//! each instruction (SWSB byte: `@n` register distances on an in-order
//! pipe, `$n` tokens of out-of-order instructions, `$n.dst`/`$n.src`
//! waits, `sync.allwr`/`sync.allrd`) and hardware trusts it. A missing
//! wait reads a stale register. This checker follows the executed path and
//! reports the first access that no annotation orders.
//!
//! Model (Mesa src/intel/compiler/brw_scoreboard.cpp):
//! - out of order: send/sendc, math and dpas (`is_unordered`, math before
//!   Xe2); such an instruction with `$n` holds token n over the GRF
//!   registers it writes and reads until a later `$n.dst` (both) or
//!   `$n.src` (its reads) or `sync.allwr`/`sync.allrd`. Reusing a token
//!   drops the old holder (the hardware waits for a token to be free
//!   before it allocates it again).
//! - in order: the float, int and long pipes (`inferred_exec_pipe`: long
//!   for 64-bit operands, float for a float execution type, else int).
//!   Each counts its instructions; a write n instructions back on pipe P is
//!   ordered by `@m` (the instruction's own pipe), `P@m` or `A@m` with
//!   m <= n. Writes more than 10 instructions back on their pipe (14 on
//!   the long pipe) are complete (`ordered_dependency_swsb`'s max_dist).
//! - checked: reads and writes of GRF registers against pending token
//!   writes, writes against pending token reads, and reads and writes
//!   against pending in-order writes of another pipe or unordered by a
//!   distance (a write after a write on the same pipe is ordered by the
//!   pipe). Flags, the accumulator and a0 are not tracked. In-order
//!   writes are compared by dword (IGC orders by the bytes an instruction
//!   touches: `operand::Touched`); tokens by whole registers.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use baregpu_isa::inst::{Body, Instruction, Opcode, Pipe, Swsb, SyncFn, TokenMode, Type};

use super::operand::{Touched, dword_overlap};
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

/// The in-order pipe of an instruction (`None`: out of order, or no ALU
/// work: branches, sync, nop).
pub fn pipe_of(i: &Instruction) -> Option<InOrder> {
    if out_of_order(i) {
        return None;
    }
    let (dst, srcs) = super::alu::operands(i)?;
    let n = super::alu::source_count(i.opcode, None);
    let mut long = matches!(dst.ty, Type::Df | Type::Q | Type::Uq);
    let mut float = false;
    for s in srcs.iter().take(n).flatten() {
        let ty = match s {
            baregpu_isa::inst::Src::Reg(r) => r.ty,
            baregpu_isa::inst::Src::Imm(m) => m.ty,
            baregpu_isa::inst::Src::Vacant(_) => continue,
        };
        long |= matches!(ty, Type::Df | Type::Q | Type::Uq);
        float |= ty.is_float();
    }
    Some(if long {
        InOrder::Long
    } else if float {
        InOrder::Float
    } else {
        InOrder::Int
    })
}

#[derive(Clone, Debug)]
struct Token {
    ip: u32,
    writes: u128,
    reads: u128,
}

#[derive(Clone, Debug)]
struct Write {
    pipe: InOrder,
    index: u64,
    ip: u32,
    regs: u128,
    /// The dwords written in each register of `regs`.
    dwords: Box<[u8; GRF_REGS]>,
}

/// The scoreboard state of one thread.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    count: [u64; 3],
    writes: Vec<Write>,
    tokens: [Option<Token>; 16],
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
        self.step_on(ip, inst, pipe_of(inst), text, touched)
    }

    /// [`Scoreboard::step`] with the instruction's pipe ([`pipe_of`])
    /// computed once at predecode.
    pub fn step_on(
        &mut self,
        ip: u32,
        inst: &Instruction,
        pipe: Option<InOrder>,
        text: &str,
        touched: &Touched,
    ) -> Option<String> {
        let ooo = out_of_order(inst);
        let mut dist: Option<(Pipe, u8)> = None;
        let mut set: Option<u8> = None;
        match inst.swsb {
            Some(Swsb::Dist { pipe, dist: d }) => dist = Some((pipe, d)),
            Some(Swsb::Token { mode, sbid }) => match mode {
                TokenMode::Set => set = Some(sbid),
                TokenMode::Dst => self.tokens[usize::from(sbid & 15)] = None,
                TokenMode::Src => {
                    if let Some(t) = &mut self.tokens[usize::from(sbid & 15)] {
                        t.reads = 0;
                    }
                }
            },
            Some(Swsb::Both { dist: d, sbid }) => {
                if ooo {
                    set = Some(sbid);
                } else {
                    self.tokens[usize::from(sbid & 15)] = None;
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
                Pipe::Same => pipe.is_none_or(|own| own == q),
                Pipe::Float => q == InOrder::Float,
                Pipe::Int => q == InOrder::Int,
                Pipe::Long => q == InOrder::Long,
            },
        };
        let d = dist.map_or(0, |(_, d)| u64::from(d));
        let count = self.count;
        self.writes.retain(|w| {
            let n = count[w.pipe as usize] + 1 - w.index;
            !(covers(w.pipe) && d <= n) && n <= w.pipe.max_dist()
        });
        // An out-of-order instruction setting a token in use waits for it
        // to be free before it issues: the old holder is complete.
        if ooo && let Some(n) = set {
            self.tokens[usize::from(n & 15)] = None;
        }
        let mut hazard = None;
        for (n, t) in self.tokens.iter().enumerate() {
            let Some(t) = t else { continue };
            let r = touched.reads & t.writes;
            let w = touched.writes & t.writes;
            let war = touched.writes & t.reads;
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
                let r = dword_overlap(touched.reads & w.regs, &touched.read_dwords, &w.dwords);
                let ww = if same_pipe {
                    0
                } else {
                    dword_overlap(touched.writes & w.regs, &touched.write_dwords, &w.dwords)
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
                self.tokens[usize::from(n & 15)] = Some(Token {
                    ip,
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
                    ip,
                    regs: touched.writes,
                    dwords: Box::new(touched.write_dwords),
                });
            }
        }
        hazard
    }
}
