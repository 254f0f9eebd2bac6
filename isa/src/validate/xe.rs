//! Gen12.5 (Xe-HPG, DG2) rules: the send rules that the typed LSC and
//! gateway descriptors decide (descriptor against SFID, payload lengths
//! against the descriptor, the LSC shape restrictions), the general region
//! rules of the one- and two-source forms, and the software scoreboard
//! (SWSB) dataflow rules over a straight run of instructions.
//!
//! The dataflow rules follow the dependency model of Mesa's
//! `brw_scoreboard.cpp`: send, math and dpas run out of order and hand
//! their registers back through an SBID token (`$n`), which a later
//! instruction touching those registers must wait on (`$n.dst`, or
//! `$n.src` for a write over a register the send still reads); everything
//! else runs in order, and a read of a register written by one of the few
//! instructions before it needs a register-distance wait (`@n`) reaching
//! back to the writer. They are warnings: the walk is linear, forgets
//! everything at a branch or a jump target, and does not follow indirect
//! operands, so it can neither prove nor fully rule out a hazard.

use alloc::format;
use alloc::vec::Vec;

use super::{Check, Rule, Severity, Violation};
use crate::generation::IsaGen;
use crate::inst::{
    Addr, Body, Dst, ExDesc, Instruction, Opcode, RegFile, Region, Send, SendDesc, Sfid, Src, Swsb,
    SyncFn, TokenMode,
};
use crate::kernel::Entry;
use crate::message::lsc::{self, LscKind, Shape};
use crate::message::xe_gateway;

/// Bytes per GRF on Xe-HPG.
const GRF: u32 = 32;

/// The per-instruction Gen12.5 rules.
pub(super) fn check(c: &mut Check) {
    match &c.inst.body {
        Body::Send(s) => send(c, s),
        Body::Alu(a) if !matches!(c.inst.opcode, Opcode::Nop | Opcode::Illegal) => {
            let (dst, srcs) = (a.dst, [a.src0, a.src1]);
            regions(c, &dst, &srcs);
        }
        Body::Math(m) => {
            let (dst, srcs) = (m.dst, [m.src0, m.src1]);
            regions(c, &dst, &srcs);
        }
        _ => {}
    }
}

/// Where the general region rules come from on Gen12.5: the Gen6 text
/// (003), which Mesa's `brw_eu_validate.c`
/// `general_restrictions_on_region_parameters` applies to every generation
/// it validates, Xe-HPG included; the two-register span is 64 bytes there.
const REGION_CITE: &str = "003 lines 91722-91731, 91749-91754, 91788, 91798; \
    [ext: Mesa brw_eu_validate.c general_restrictions_on_region_parameters, all generations]";

/// The general region rules for the one- and two-source forms (jumps and
/// three-source operands have their own encodings and are left out).
fn regions(c: &mut Check, dst: &Dst, srcs: &[Src; 2]) {
    use super::Operand;
    let exec = u32::from(c.inst.exec_size);
    let is_null = |file: RegFile, addr: Addr| {
        file == RegFile::Arf && matches!(addr, Addr::Direct { nr: 0, .. })
    };
    let err = |c: &mut Check, rule, at, what: alloc::string::String| {
        c.push(rule, at, Severity::Error, Some(REGION_CITE), what);
    };
    if dst.hstride == 0 && !is_null(dst.file, dst.addr) {
        err(
            c,
            Rule::DstHorzStrideZero,
            Some(Operand::Dst),
            "destination HorzStride 0; it must be 1, 2 or 4".into(),
        );
    }
    for (k, s) in srcs.iter().enumerate() {
        let Src::Reg(r) = s else { continue };
        if is_null(r.file, r.addr) {
            continue;
        }
        let Region::Align1 {
            vstride,
            width,
            hstride,
        } = r.region
        else {
            continue;
        };
        let slot = if k == 0 { Operand::Src0 } else { Operand::Src1 };
        let (v, w, h) = (u32::from(vstride), u32::from(width), u32::from(hstride));
        let region = format!("<{v};{w},{h}>");
        if w > exec {
            err(
                c,
                Rule::WidthAboveExecSize,
                Some(slot),
                format!("{region}: Width {w} is above ExecSize {exec}"),
            );
        }
        if exec == w && h != 0 && v != w * h {
            err(
                c,
                Rule::VertStrideMismatch,
                Some(slot),
                format!(
                    "{region}: with ExecSize = Width and HorzStride {h}, VertStride must be {}",
                    w * h
                ),
            );
        }
        // These two are warnings here: iga64 -p=12p71 accepts both (a
        // scalar `<1;1,0>` is common in its output), Mesa refuses them.
        if w == 1 && h != 0 {
            c.push(
                Rule::WidthOneHorzStride,
                Some(slot),
                Severity::Warning,
                Some(REGION_CITE),
                format!("{region}: Width 1 needs HorzStride 0 (iga64 accepts it)"),
            );
        }
        if exec == 1 && w == 1 && (v != 0 || h != 0) {
            c.push(
                Rule::ScalarStrides,
                Some(slot),
                Severity::Warning,
                Some(REGION_CITE),
                format!("{region}: ExecSize = Width = 1 needs both strides 0 (iga64 accepts it)"),
            );
        }
        if v == 0 && h == 0 && w != 1 {
            err(
                c,
                Rule::ZeroStridesWidth,
                Some(slot),
                format!("{region}: both strides 0 need Width 1"),
            );
        }
        if let Some((start, end)) = src_span(s, exec)
            && (end - 1) / GRF - start / GRF >= 2
        {
            err(
                c,
                Rule::SourceSpan,
                Some(slot),
                format!(
                    "{region} from byte {} spans {} registers; at most 2",
                    start % GRF,
                    (end - 1) / GRF - start / GRF + 1
                ),
            );
        }
    }
}

fn send(c: &mut Check, s: &Send) {
    let SendDesc::Imm { desc, .. } = &s.desc else {
        return;
    };
    let word = desc.function | u32::from(desc.header) << 19;
    let len1 = match s.ex_desc {
        Some(ExDesc::Imm(v)) => Some((v >> 6) & 0x1F),
        Some(ExDesc::Reg { src1_len, .. }) => src1_len.map(u32::from),
        None => None,
    };
    if s.sfid == Some(Sfid::Gateway) {
        match xe_gateway::decode(word) {
            Err(e) => c.error(
                Rule::XeSendDescriptor,
                None,
                format!("gateway descriptor: {e}"),
            ),
            Ok(_) if desc.mlen != 1 || desc.rlen != 0 => c.error(
                Rule::XeSendLength,
                None,
                format!(
                    "a gateway message sends 1 register and gets none back, not mlen {} rlen {}",
                    desc.mlen, desc.rlen
                ),
            ),
            Ok(_) => {}
        }
        return;
    }
    let Some((msg, _)) = lsc::of_send(s) else {
        return;
    };
    let msg = match msg {
        Ok(m) => m,
        Err(e) => {
            c.error(Rule::XeSendDescriptor, None, format!("LSC descriptor: {e}"));
            return;
        }
    };
    let LscKind::Access(a) = msg.kind else {
        // Fence: one register out, and a register back (the completion
        // write) or none (004 DP_FENCE lines 15406-15469).
        if desc.mlen != 1 || desc.rlen > 1 {
            c.error(
                Rule::XeSendLength,
                None,
                format!(
                    "a fence sends 1 register, gets 0 or 1 back, not mlen {} rlen {}",
                    desc.mlen, desc.rlen
                ),
            );
        }
        return;
    };
    let exec = u32::from(c.inst.exec_size);
    let transposed = matches!(
        a.shape,
        Shape::Vector {
            transpose: true,
            ..
        }
    );
    if transposed && exec != 1 {
        c.error(
            Rule::XeLscShape,
            None,
            format!("a transposed message runs at SIMD1, not SIMD{exec}"),
        );
    }
    let dsize = a.data.reg_bytes();
    if let Shape::Vector { len, transpose } = a.shape {
        if dsize < 4 && (len > 1 || transpose) {
            c.error(
                Rule::XeLscShape,
                None,
                "8- and 16-bit data sizes take vector length 1 and no transpose",
            );
        }
        let limit = match (msg.sfid, dsize) {
            (Sfid::Ugml, _) => 4,
            (_, 8) => 4,
            _ => 8,
        };
        if !transpose && u32::from(len) > limit {
            c.error(
                Rule::XeLscShape,
                None,
                format!("a non-transposed vector holds at most {limit} elements here, not {len}"),
            );
        }
        if !transpose && msg.sfid == Sfid::Ugml && len == 3 {
            c.error(Rule::XeLscShape, None, "UGML has no vector length 3");
        }
    }
    // Payload sizes (004 lines 7003-7014 and every DP_* entry: src0 =
    // roundup(addr_size * simd / grf), dest = roundup(data_size * vector *
    // simd / grf)); a non-transposed vector takes one register run per
    // element. 8- and 16-bit data and TGM's coordinate counts are left out.
    if dsize < 4 || msg.sfid == Sfid::Tgm {
        return;
    }
    let simd = if transposed { 1 } else { exec };
    let addr = (a.addr_size.bytes() * simd).div_ceil(GRF);
    let elems = a.shape.elements();
    let data = if transposed {
        (dsize * elems).div_ceil(GRF)
    } else {
        elems * (dsize * simd).div_ceil(GRF)
    };
    let mut wrong = Vec::new();
    if u32::from(desc.mlen) != addr {
        wrong.push(format!("mlen {} (the addresses take {addr})", desc.mlen));
    }
    let returns = a.op.is_load() || a.op.is_atomic();
    let rlen = u32::from(desc.rlen);
    if returns && rlen != 0 && rlen != data {
        wrong.push(format!("rlen {rlen} (the data takes {data}, or 0)"));
    }
    if !returns && rlen != 0 {
        wrong.push(format!("rlen {rlen} (a store returns nothing)"));
    }
    let src1 = if a.op.is_store() {
        data
    } else {
        u32::from(a.op.atomic_operands()) * data
    };
    if let Some(l) = len1
        && l != src1
    {
        wrong.push(format!("second payload length {l} (the data takes {src1})"));
    }
    if !wrong.is_empty() {
        c.error(
            Rule::XeSendLength,
            None,
            format!("{msg} at SIMD{exec}: {}", wrong.join(", ")),
        );
    }
}

/// A run of GRF bytes `[start, end)`.
type Span = (u32, u32);

fn overlaps(a: Span, b: Span) -> bool {
    a.0 < b.1 && b.0 < a.1
}

fn dst_span(d: &Dst, exec: u32) -> Option<Span> {
    let (RegFile::Grf, Addr::Direct { nr, subnr }) = (d.file, d.addr) else {
        return None;
    };
    let t = u32::from(d.ty.size());
    let start = u32::from(nr) * GRF + u32::from(subnr);
    Some((
        start,
        start + ((exec - 1) * u32::from(d.hstride.max(1)) + 1) * t,
    ))
}

fn src_span(s: &Src, exec: u32) -> Option<Span> {
    let Src::Reg(r) = s else {
        return None;
    };
    let (RegFile::Grf, Addr::Direct { nr, subnr }) = (r.file, r.addr) else {
        return None;
    };
    let t = u32::from(r.ty.size());
    let start = u32::from(nr) * GRF + u32::from(subnr);
    let last = match r.region {
        Region::Align1 {
            vstride,
            width,
            hstride,
        } => {
            let w = u32::from(width.max(1));
            let rows = exec.div_ceil(w);
            (rows - 1) * u32::from(vstride) + (w - 1) * u32::from(hstride)
        }
        _ => return None,
    };
    Some((start, start + (last + 1) * t))
}

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
            r.extend(t.src.iter().filter_map(|s| src_span(s, exec)));
        }
        Body::Bfn(b) => {
            w.extend(dst_span(&b.dst, exec));
            r.extend(b.src.iter().filter_map(|s| src_span(s, exec)));
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

/// A token in flight: what its instruction writes and still reads.
struct Pending {
    at: usize,
    writes: Vec<Span>,
    reads: Vec<Span>,
}

/// An in-order write still possibly in flight.
struct Ordered {
    index: usize,
    at: usize,
    writes: Vec<Span>,
}

/// The kernel-level SWSB rules (see the module documentation).
pub(super) fn check_kernel(
    p: IsaGen,
    entries: &[Entry],
    targets: &alloc::collections::BTreeSet<i64>,
    out: &mut Vec<(usize, Violation)>,
) {
    // In-order writes older than this many instructions have completed:
    // the longest register distance the SWSB byte can name is 7.
    const WINDOW: usize = 7;
    let mut tokens: [Option<Pending>; 16] = Default::default();
    let mut ordered: Vec<Ordered> = Vec::new();
    for (index, e) in entries.iter().enumerate() {
        let i = &e.inst;
        if targets.contains(&(e.offset as i64)) {
            tokens = Default::default();
            ordered.clear();
        }
        // What this instruction waits for.
        let mut waited_dst: Option<u8> = None;
        let mut waited_src: Option<u8> = None;
        let mut dist: Option<u8> = None;
        match i.swsb {
            Some(Swsb::Token {
                mode: TokenMode::Dst,
                sbid,
            }) => waited_dst = Some(sbid),
            Some(Swsb::Token {
                mode: TokenMode::Src,
                sbid,
            }) => waited_src = Some(sbid),
            Some(Swsb::Dist { dist: d, .. }) => dist = Some(d),
            Some(Swsb::Both { dist: d, sbid }) => {
                dist = Some(d);
                if !out_of_order(i) {
                    waited_dst = Some(sbid);
                }
            }
            _ => {}
        }
        if let Some(n) = waited_dst {
            tokens[usize::from(n)] = None;
        }
        if let Some(n) = waited_src
            && let Some(t) = &mut tokens[usize::from(n)]
        {
            t.reads.clear();
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
        if let Some(d) = dist {
            // Waiting on the instruction d back retires it and everything
            // older (pipes are not told apart: fewer, not more, warnings).
            ordered.retain(|o| o.index + usize::from(d) > index);
        }
        ordered.retain(|o| o.index + WINDOW >= index);
        let (writes, reads) = footprint(i);
        let mut say = |rule, what: alloc::string::String| {
            let mut c = Check::new(p, i);
            c.push(rule, None, Severity::Warning, None, what);
            out.extend(c.out.into_iter().map(|v| (e.offset, v)));
        };
        for (n, t) in tokens.iter().enumerate() {
            let Some(t) = t else { continue };
            let touches = |spans: &[Span], of: &[Span]| {
                spans.iter().any(|a| of.iter().any(|b| overlaps(*a, *b)))
            };
            if touches(&reads, &t.writes) || touches(&writes, &t.writes) {
                say(
                    Rule::XeTokenDependency,
                    format!(
                        "uses a register the out-of-order instruction at {:#06x} writes without waiting on ${n}.dst",
                        t.at
                    ),
                );
            } else if touches(&writes, &t.reads) {
                say(
                    Rule::XeTokenDependency,
                    format!(
                        "overwrites a register the out-of-order instruction at {:#06x} reads without waiting on ${n}.src",
                        t.at
                    ),
                );
            }
        }
        // Read after in-order write (a write after write in order is
        // ordered by the pipe itself).
        {
            for o in &ordered {
                let hit = reads
                    .iter()
                    .any(|a| o.writes.iter().any(|b| overlaps(*a, *b)));
                if hit {
                    say(
                        Rule::XeDistanceDependency,
                        format!(
                            "reads a register written {} instructions before (at {:#06x}) without a register-distance wait @{} or shorter",
                            index - o.index,
                            o.at,
                            index - o.index
                        ),
                    );
                    break;
                }
            }
        }
        if out_of_order(i) {
            let sbid = match i.swsb {
                Some(Swsb::Token {
                    mode: TokenMode::Set,
                    sbid,
                })
                | Some(Swsb::Both { sbid, .. }) => Some(sbid),
                _ => None,
            };
            if let Some(n) = sbid {
                tokens[usize::from(n)] = Some(Pending {
                    at: e.offset,
                    writes,
                    reads,
                });
            }
        } else if !writes.is_empty() {
            ordered.push(Ordered {
                index,
                at: e.offset,
                writes,
            });
        }
        if ends_run(i) {
            tokens = Default::default();
            ordered.clear();
        }
    }
}
