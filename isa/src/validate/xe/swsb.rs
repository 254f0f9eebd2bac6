//! The software scoreboard (SWSB) dataflow rules over a straight run of
//! instructions (see the parent module's documentation).

use alloc::format;
use alloc::vec::Vec;

use super::{GRF, Span, dst_span, operand_span, overlaps, src_span};
use crate::generation::IsaGen;
use crate::inst::{
    Addr, Body, ExDesc, Instruction, Opcode, Pipe, RegFile, SendDesc, Sfid, Src, Swsb, SyncFn,
    TokenMode, Type,
};
use crate::kernel::Entry;
use crate::validate::{Check, Rule, Severity, Violation};

fn regs(nr: u8, n: u32) -> Option<Span> {
    (n > 0).then(|| (u32::from(nr) * GRF, (u32::from(nr) + n) * GRF))
}

fn send_nr(s: &Src) -> Option<u8> {
    match s {
        Src::Reg(r) if r.file == RegFile::Grf => match r.addr {
            Addr::Direct { nr, .. } => Some(nr),
            Addr::Indirect { .. } => None,
        },
        _ => None,
    }
}

/// The GRF bytes an instruction writes and reads (direct operands only).
fn footprint(i: &Instruction) -> (Vec<Span>, Vec<Span>) {
    let exec = u32::from(i.exec_size.max(1));
    let mut w = Vec::new();
    let mut r = Vec::new();
    match &i.body {
        Body::Alu(a) => {
            w.extend(dst_span(&a.dst, exec));
            r.extend(src_span(&a.src0, exec));
            r.extend(src_span(&a.src1, exec));
        }
        Body::Math(m) => {
            w.extend(dst_span(&m.dst, exec));
            r.extend(src_span(&m.src0, exec));
            r.extend(src_span(&m.src1, exec));
        }
        Body::ThreeSrc(t) => {
            w.extend(dst_span(&t.dst, exec));
            r.extend(t.src.iter().filter_map(|s| operand_span(s, exec, true)));
        }
        Body::Bfn(b) => {
            w.extend(dst_span(&b.dst, exec));
            r.extend(b.src.iter().filter_map(|s| operand_span(s, exec, true)));
        }
        Body::Dpas(d) => {
            // One destination row per repeat (Mesa brw_scoreboard.cpp
            // takes dpas's whole destination); the sources are left out.
            if let Some((s, e)) = dst_span(&d.dst, exec) {
                w.push((s, s + (e - s) * u32::from(d.repeat.max(1))));
            }
        }
        Body::Send(s) => {
            if let SendDesc::Imm { desc, .. } = &s.desc {
                if let Addr::Direct { nr, .. } = s.dst.addr
                    && s.dst.file == RegFile::Grf
                {
                    w.extend(regs(nr, desc.rlen.into()));
                }
                r.extend(send_nr(&s.src0).and_then(|n| regs(n, desc.mlen.into())));
            }
            let len1 = match s.ex_desc {
                Some(ExDesc::Imm(v)) => Some((v >> 6) & 0x1F),
                Some(ExDesc::Reg { src1_len, .. }) => src1_len.map(u32::from),
                None => None,
            };
            if let (Some(src1), Some(l)) = (&s.src1, len1) {
                r.extend(send_nr(src1).and_then(|n| regs(n, l)));
            }
        }
        Body::Branch(_) | Body::Sync(_) => {}
    }
    (w, r)
}

/// Runs out of order and answers through an SBID token (Mesa
/// `brw_scoreboard.cpp` `is_unordered`: sends, math before Xe2, dpas).
fn out_of_order(i: &Instruction) -> bool {
    matches!(
        i.opcode,
        Opcode::Send | Opcode::Sendc | Opcode::Math | Opcode::Dpas | Opcode::Dpasw
    )
}

/// Control leaves the straight run: what was in flight is forgotten.
fn ends_run(i: &Instruction) -> bool {
    matches!(i.body, Body::Branch(_))
        || matches!(
            i.opcode,
            Opcode::Jmpi | Opcode::Call | Opcode::Calla | Opcode::Ret | Opcode::Brd | Opcode::Brc
        )
}

/// An in-order pipe (Mesa `brw_scoreboard.cpp` `tgl_pipe`, Xe-HP
/// FLOAT, INT and LONG).
#[derive(Clone, Copy, PartialEq, Eq)]
enum InOrder {
    Float,
    Int,
    Long,
}

impl InOrder {
    const fn idx(self) -> usize {
        self as usize
    }

    /// Mesa `ordered_dependency_swsb`: a write further back than this many
    /// instructions of its pipe has completed (10, the long pipe 14).
    const fn reach(self) -> u32 {
        match self {
            InOrder::Long => 14,
            _ => 10,
        }
    }

    const fn letter(self) -> char {
        match self {
            InOrder::Float => 'F',
            InOrder::Int => 'I',
            InOrder::Long => 'L',
        }
    }
}

/// The source types an instruction reads (register and immediate).
fn source_types(i: &Instruction) -> Vec<Type> {
    let ty = |s: &Src| match s {
        Src::Reg(r) => Some(r.ty),
        Src::Imm(m) => Some(m.ty),
        Src::Vacant(_) => None,
    };
    match &i.body {
        Body::Alu(a) => [a.src0, a.src1].iter().filter_map(ty).collect(),
        Body::ThreeSrc(t) => t.src.iter().filter_map(ty).collect(),
        Body::Bfn(b) => b.src.iter().filter_map(ty).collect(),
        _ => Vec::new(),
    }
}

/// The in-order pipe an instruction runs on (Mesa `brw_scoreboard.cpp`
/// `inferred_exec_pipe`, Xe-HP rules): LONG for a 64-bit destination or
/// source or a 32x32-bit integer multiply, FLOAT for a float destination,
/// INT otherwise; `None` for the out-of-order ones and those without a
/// destination the pipes count (sync, nop, branches).
fn exec_pipe(i: &Instruction) -> Option<InOrder> {
    if out_of_order(i) {
        return None;
    }
    let dst = match &i.body {
        Body::Alu(a) => a.dst,
        Body::ThreeSrc(t) => t.dst,
        Body::Bfn(b) => b.dst,
        _ => return None,
    };
    if matches!(i.opcode, Opcode::Nop | Opcode::Illegal) {
        return None;
    }
    let srcs = source_types(i);
    let reg_srcs: Vec<Type> = match &i.body {
        Body::Alu(a) => [a.src0, a.src1]
            .iter()
            .filter_map(|s| match s {
                Src::Reg(r) => Some(r.ty),
                _ => None,
            })
            .collect(),
        _ => srcs.clone(),
    };
    let int_mul = |a: Type, b: Type| !a.is_float() && a.size() >= 4 && b.size() >= 4;
    let dword_mul = match (i.opcode, srcs.as_slice()) {
        (Opcode::Mul, [a, b]) => int_mul(*a, *b),
        (Opcode::Mad, [_, a, b]) => int_mul(*a, *b),
        _ => false,
    };
    if dst.ty.size() >= 8 || reg_srcs.iter().any(|t| t.size() >= 8) || dword_mul {
        Some(InOrder::Long)
    } else if dst.ty.is_float() {
        Some(InOrder::Float)
    } else {
        Some(InOrder::Int)
    }
}

/// The shared function of a send or sendc.
fn send_sfid(i: &Instruction) -> Option<Sfid> {
    match &i.body {
        Body::Send(s) => s.sfid,
        _ => None,
    }
}

/// A token in flight: what its instruction writes and still reads.
struct Pending {
    at: usize,
    math: bool,
    /// The shared function of a send.
    sfid: Option<Sfid>,
    writes: Vec<Span>,
    reads: Vec<Span>,
}

/// An in-order instruction still possibly in flight: its pipe, that
/// pipe's instruction count before it, what it writes and reads.
struct Ordered {
    pipe: InOrder,
    count: u32,
    at: usize,
    writes: Vec<Span>,
    reads: Vec<Span>,
}

/// The kernel-level SWSB rules (see the module documentation).
pub(in crate::validate) fn check_kernel(
    p: IsaGen,
    entries: &[Entry],
    targets: &alloc::collections::BTreeSet<i64>,
    out: &mut Vec<(usize, Violation)>,
) {
    let mut tokens: [Option<Pending>; 16] = Default::default();
    let mut ordered: Vec<Ordered> = Vec::new();
    // In-order instructions issued so far, per pipe.
    let mut count = [0u32; 3];
    for e in entries {
        let i = &e.inst;
        if targets.contains(&(e.offset as i64)) {
            tokens = Default::default();
            ordered.clear();
        }
        let pipe = exec_pipe(i);
        // What this instruction waits for.
        let mut waited_dst: Option<u8> = None;
        let mut waited_src: Option<u8> = None;
        let mut set: Option<u8> = None;
        let mut dist: Option<(Pipe, u8)> = None;
        match i.swsb {
            Some(Swsb::Token {
                mode: TokenMode::Dst,
                sbid,
            }) => waited_dst = Some(sbid),
            Some(Swsb::Token {
                mode: TokenMode::Src,
                sbid,
            }) => waited_src = Some(sbid),
            Some(Swsb::Token {
                mode: TokenMode::Set,
                sbid,
            }) => set = Some(sbid),
            Some(Swsb::Dist { pipe, dist: d }) => dist = Some((pipe, d)),
            // The pipe of a combined byte is inferred by hardware: taken
            // as every pipe here (fewer, not more, warnings).
            Some(Swsb::Both { dist: d, sbid }) => {
                dist = Some((Pipe::All, d));
                if out_of_order(i) {
                    set = Some(sbid);
                } else {
                    waited_dst = Some(sbid);
                }
            }
            None => {}
        }
        // An out-of-order instruction taking token n first waits for the
        // instruction that held it (Mesa brw_scoreboard.cpp
        // baked_unordered_dependency_mode: the SET mode is baked in; IGC's
        // DG2 output reads a send's result under a later send of the
        // same token).
        if let Some(n) = waited_dst.or(if out_of_order(i) { set } else { None }) {
            // A send that has completed was issued after every earlier send
            // to its shared function, whose payloads are read by then (the
            // same ordering IGC relies on above): their sources are free.
            if let Some(done) = &tokens[usize::from(n)]
                && let Some(f) = done.sfid
            {
                let at = done.at;
                for t in tokens.iter_mut().flatten() {
                    if t.sfid == Some(f) && t.at < at {
                        t.reads.clear();
                    }
                }
            }
            tokens[usize::from(n)] = None;
        }
        if let Some(n) = waited_src
            && let Some(t) = &mut tokens[usize::from(n)]
        {
            t.reads.clear();
            // Sends read their payloads in issue order per shared function
            // (as above): the earlier ones' sources are free too (IGC's
            // sampler code waits on the last sample's `$n.src` only).
            if let Some(f) = t.sfid {
                let at = t.at;
                for t in tokens.iter_mut().flatten() {
                    if t.sfid == Some(f) && t.at < at {
                        t.reads.clear();
                    }
                }
            }
        }
        if let Body::Sync(s) = &i.body {
            match s.function {
                SyncFn::AllWr => tokens = Default::default(),
                SyncFn::AllRd => {
                    for t in tokens.iter_mut().flatten() {
                        t.reads.clear();
                    }
                }
                _ => {}
            }
        }
        if let Some((wait, d)) = dist {
            // `X@d` retires the d-th instruction back on pipe X and all
            // before it; `A@d` (and `@d`, whose pipe hardware infers) that
            // on every pipe.
            let on = |q: InOrder| match wait {
                Pipe::All | Pipe::Same => true,
                Pipe::Float => q == InOrder::Float,
                Pipe::Int => q == InOrder::Int,
                Pipe::Long => q == InOrder::Long,
            };
            ordered.retain(|o| !(on(o.pipe) && count[o.pipe.idx()] - o.count >= u32::from(d)));
        }
        ordered.retain(|o| count[o.pipe.idx()] - o.count <= o.pipe.reach());
        let (writes, reads) = footprint(i);
        let mut say = |rule, what: alloc::string::String| {
            let mut c = Check::new(p, i);
            c.push(rule, None, Severity::Warning, None, what);
            out.extend(c.out.into_iter().map(|v| (e.offset, v)));
        };
        let touches =
            |spans: &[Span], of: &[Span]| spans.iter().any(|a| of.iter().any(|b| overlaps(*a, *b)));
        for (n, t) in tokens.iter().enumerate() {
            let Some(t) = t else { continue };
            if touches(&reads, &t.writes) || touches(&writes, &t.writes) {
                say(
                    Rule::XeTokenDependency,
                    format!(
                        "uses a register the out-of-order instruction at {:#06x} writes without waiting on ${n}.dst",
                        t.at
                    ),
                );
            } else if touches(&writes, &t.reads)
                && !(t.math && i.opcode == Opcode::Math)
                && !(t.sfid.is_some() && t.sfid == send_sfid(i))
            {
                // Math after math reads its sources in order: IGC's DG2
                // output overwrites an earlier math's source without
                // `$n.src`. So do sends to one shared function: IGC lets a
                // send's response land on the previous same-SFID send's
                // payload without `$n.src` (its -O0 atomics, a dc1 gather
                // right after a dc1 atomic reading the same registers).
                say(
                    Rule::XeTokenDependency,
                    format!(
                        "overwrites a register the out-of-order instruction at {:#06x} reads without waiting on ${n}.src",
                        t.at
                    ),
                );
            }
        }
        // Read after an in-order write, and a write after a write or a
        // read of another pipe, out-of-order units included (the pipes run
        // asynchronously to each other, Mesa brw_scoreboard.cpp `shadow`,
        // `dependency_for_write`; in one pipe reads and writes land in
        // order).
        for o in &ordered {
            let raw = touches(&reads, &o.writes);
            let other = pipe.map_or(out_of_order(i), |q| q != o.pipe);
            let waw = other && touches(&writes, &o.writes);
            let war = other && touches(&writes, &o.reads);
            if raw || waw || war {
                let back = count[o.pipe.idx()] - o.count;
                say(
                    Rule::XeDistanceDependency,
                    format!(
                        "{} the {} pipe's instruction at {:#06x}, {back} back on that pipe, without a wait reaching it ({}@{} or A@{})",
                        if raw {
                            "reads a register written by"
                        } else if waw {
                            "overwrites a register written by"
                        } else {
                            "overwrites a register read by"
                        },
                        o.pipe.letter(),
                        o.at,
                        o.pipe.letter(),
                        back.min(7),
                        back.min(7),
                    ),
                );
                break;
            }
        }
        if out_of_order(i) {
            if let Some(n) = set {
                tokens[usize::from(n)] = Some(Pending {
                    at: e.offset,
                    math: i.opcode == Opcode::Math,
                    sfid: send_sfid(i),
                    writes,
                    reads,
                });
            }
        } else if let Some(q) = pipe {
            if !writes.is_empty() || !reads.is_empty() {
                ordered.push(Ordered {
                    pipe: q,
                    count: count[q.idx()],
                    at: e.offset,
                    writes,
                    reads,
                });
            }
            count[q.idx()] += 1;
        }
        if ends_run(i) {
            tokens = Default::default();
            ordered.clear();
        }
    }
}
