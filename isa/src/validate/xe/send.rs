//! The send rules that the typed LSC and gateway descriptors decide.

use alloc::format;
use alloc::vec::Vec;

use super::GRF;
use crate::inst::{Addr, ExDesc, RegFile, Send, SendDesc, Sfid, Src};
use crate::message::lsc::{self, LscKind, Shape};
use crate::message::xe_gateway;
use crate::validate::{Check, Operand, Rule, Severity};

pub(super) fn send(c: &mut Check, s: &Send) {
    let SendDesc::Imm { desc, .. } = &s.desc else {
        return;
    };
    let word = desc.function | u32::from(desc.header) << 19;
    let len1 = match s.ex_desc {
        Some(ExDesc::Imm(v)) => Some((v >> 6) & 0x1F),
        Some(ExDesc::Reg { src1_len, .. }) => src1_len.map(u32::from),
        None => None,
    };
    payloads(c, s, u32::from(desc.mlen), u32::from(desc.rlen), len1);
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

/// The register numbers and lengths of a send's runs: the payloads and
/// the response. A split send's two payloads may not overlap, and a
/// response reaching r127 may not overlap the payload ([ext: Mesa
/// brw_eu_validate.c send_restrictions]); no run may go past r127 (DG2 has
/// 128 GRFs, 004 line 33186). iga64 accepts all three: warnings.
fn payloads(c: &mut Check, s: &Send, mlen: u32, rlen: u32, len1: Option<u32>) {
    let nr = |src: &Src| match src {
        Src::Reg(r) if r.file == RegFile::Grf => match r.addr {
            Addr::Direct { nr, .. } => Some(u32::from(nr)),
            Addr::Indirect { .. } => None,
        },
        _ => None,
    };
    let src0 = nr(&s.src0).map(|n| (n, mlen));
    let src1 = s.src1.as_ref().and_then(nr).zip(len1);
    let dst = match (s.dst.file, s.dst.addr) {
        (RegFile::Grf, Addr::Direct { nr, .. }) => Some((u32::from(nr), rlen)),
        _ => None,
    };
    let runs = [
        (Operand::Src0, src0),
        (Operand::Src1, src1),
        (Operand::Dst, dst),
    ];
    for (at, run) in runs {
        if let Some((n, len)) = run
            && len > 0
            && n + len > 128
        {
            c.push(
                Rule::XeRegisterNumber,
                Some(at),
                Severity::Warning,
                None,
                format!("r{n} and {len} registers run past r127 (iga64 accepts it)"),
            );
        }
    }
    let overlap =
        |(a, la): (u32, u32), (b, lb): (u32, u32)| la > 0 && lb > 0 && a < b + lb && b < a + la;
    if let (Some(a), Some(b)) = (src0, src1)
        && overlap(a, b)
    {
        c.push(
            Rule::XeSendPayload,
            Some(Operand::Src1),
            Severity::Warning,
            None,
            format!(
                "the payloads r{}:{} and r{}:{} overlap (iga64 accepts it)",
                a.0, a.1, b.0, b.1
            ),
        );
    }
    if let (Some((d, rl)), Some((p, ml))) = (dst, src0)
        && d + rl > 127
        && p + ml > d
        && rl > 0
    {
        c.push(
            Rule::XeSendPayload,
            Some(Operand::Dst),
            Severity::Warning,
            None,
            format!(
                "a response r{d}:{rl} reaching r127 over the payload r{p}:{ml} (iga64 accepts it)"
            ),
        );
    }
}
