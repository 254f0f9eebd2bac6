//! Gen12.5 (Xe-HPG, DG2) rules, one file per family: `send.rs` (the
//! send rules that the typed LSC and gateway descriptors decide),
//! `region.rs` (the general region rules of the one- and two-source
//! forms), `types.rs` (types per opcode, 64-bit types), `conversions.rs`
//! (destinations of conversions: packed bytes, strides, integer <-> HF),
//! `mixed.rs` (mixed float, vector immediates, destination span),
//! `operands.rs` (modifiers, saturation, condition modifiers and
//! predication per opcode, register numbers, the EOT payload), `acc.rs`
//! (accumulator uses per instruction), `three_src.rs` (dpas's operands)
//! and `swsb.rs` (the software scoreboard's dataflow over a straight run).
//!
//! Errors are the rules that both the manual (004, the Xe-HPG command
//! reference) and `iga64 -p=12p71` hold; a rule of the manual or of Mesa
//! that iga64 accepts the breaking form of is a warning, as is everything
//! the SWSB walk finds (it cannot prove a hazard).

mod acc;
mod conversions;
mod mixed;
mod operands;
mod region;
mod send;
mod swsb;
mod three_src;
mod types;

pub(super) use swsb::check_kernel;

use crate::inst::{Addr, Body, Dst, Opcode, RegFile, Region, Src};
use crate::validate::Check;

/// Bytes per GRF on Xe-HPG.
const GRF: u32 = 32;

/// The per-instruction Gen12.5 rules.
pub(super) fn check(c: &mut Check) {
    match &c.inst.body {
        Body::Send(s) => send::send(c, s),
        Body::Alu(a) if !matches!(c.inst.opcode, Opcode::Nop | Opcode::Illegal) => {
            let (dst, srcs) = (a.dst, [a.src0, a.src1]);
            region::regions(c, &dst, &srcs);
        }
        Body::Math(m) => {
            let (dst, srcs) = (m.dst, [m.src0, m.src1]);
            region::regions(c, &dst, &srcs);
        }
        _ => {}
    }
    types::check(c);
    conversions::check(c);
    acc::check(c);
    mixed::check(c);
    operands::check(c);
    three_src::check(c);
}

/// A run of GRF bytes `[start, end)`.
pub(super) type Span = (u32, u32);

pub(super) fn overlaps(a: Span, b: Span) -> bool {
    a.0 < b.1 && b.0 < a.1
}

pub(super) fn dst_span(d: &Dst, exec: u32) -> Option<Span> {
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

pub(super) fn src_span(s: &Src, exec: u32) -> Option<Span> {
    operand_span(s, exec, false)
}

/// [`src_span`] for a source of a three-source form (`three`), whose
/// `<V;H>` region implies its width: V/H, one when H is 0, the whole row
/// when V is 0 (Mesa brw_eu_emit.c `brw_alu3`, Gfx12 region encoding; the
/// model reads them so, `soft/src/eu/xe/operand.rs`).
pub(super) fn operand_span(s: &Src, exec: u32, three: bool) -> Option<Span> {
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
            let (v, h) = (u32::from(vstride), u32::from(hstride));
            let w = if !three {
                u32::from(width.max(1))
            } else if h == 0 {
                1
            } else if v == 0 {
                exec
            } else {
                (v / h).max(1)
            };
            let rows = exec.div_ceil(w);
            (rows - 1) * u32::from(vstride) + (w - 1) * u32::from(hstride)
        }
        _ => return None,
    };
    Some((start, start + (last + 1) * t))
}
