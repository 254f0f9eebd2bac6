//! `send`/`sendc`: payload and writeback operands, message and response
//! lengths, the register descriptor, controls send does not take, and the
//! end-of-thread rules (000 lines 13295-13467; 003 lines 100767-101096).

use super::facts::{self, REG_BYTES};
use super::{Check, Operand, Rule, Severity};
use crate::generation::IsaGen;
use crate::inst::{
    AccessMode, Addr, Compression, GroupCtrl, MsgDesc, RegFile, Region, Send, SendDesc, Sfid, Src,
    ThreadCtrl, Type, arf,
};
use alloc::format;

pub(super) fn check(c: &mut Check<'_>) {
    let crate::inst::Body::Send(s) = &c.inst.body else {
        return;
    };
    let desc = match s.desc {
        SendDesc::Imm { desc, .. } => Some(desc),
        SendDesc::Reg(_) => None,
    };
    payload(c, s, desc);
    destination(c, s, desc);
    descriptor(c, s, desc);
    controls(c);
    eot(c, s);
}

/// Message payload: Gen4 implied-move source (GRF or null) and base MRF;
/// Gen6 first MRF; Gen7 first GRF.
fn payload(c: &mut Check<'_>, s: &Send, desc: Option<MsgDesc>) {
    let mlen = desc.map_or(1, |d| u32::from(d.mlen));
    let text = facts::src_text(c.p, &s.src0);
    let reg = match &s.src0 {
        Src::Reg(r) => Some(r),
        _ => None,
    };
    let at = Some(Operand::Src0);
    if facts::gen4(c.p) {
        let ok = reg.is_some_and(|r| {
            facts::is_null(r.file, r.addr)
                || (r.file == RegFile::Grf && matches!(r.addr, Addr::Direct { .. }))
        });
        if !ok {
            c.error(
                Rule::SendPayload,
                at,
                format!(
                    "{text}: the implied-move source is a directly addressed GRF or null (no ARF, \
                     no indirect)"
                ),
            );
        }
        if let Some(base) = s.base_mrf {
            let last = u32::from(base) + mlen.max(1) - 1;
            if last >= 16 {
                c.error(
                    Rule::RegisterNumber,
                    None,
                    format!(
                        "the payload m{base}..m{last} runs past m15; message registers are m0-m15"
                    ),
                );
            }
            if base == 0 {
                c.warn(
                    Rule::MrfZero,
                    None,
                    "the payload starts at m0, which is reserved for the system routine",
                );
            }
        }
        return;
    }
    let (file, count, name) = if c.p == IsaGen::Gen6 {
        (RegFile::Mrf, 24, "an MRF (m0-m23)")
    } else {
        (RegFile::Grf, 128, "a GRF (Gen7 has no MRF)")
    };
    let Some(r) = reg.filter(|r| r.file == file) else {
        c.error(
            Rule::SendPayload,
            at,
            format!("{text}: the payload starts in {name}"),
        );
        return;
    };
    let Addr::Direct { nr, subnr } = r.addr else {
        c.error(
            Rule::SendPayload,
            at,
            format!("{text}: the payload register is directly addressed"),
        );
        return;
    };
    if subnr != 0 {
        c.error(
            Rule::SendPayload,
            at,
            format!("{text}: the payload starts on a whole register (.0)"),
        );
    }
    let last = u32::from(nr) + mlen.max(1) - 1;
    if last >= count {
        c.error(
            Rule::RegisterNumber,
            at,
            format!(
                "the {mlen}-register payload from {text} runs past the last register ({})",
                count - 1
            ),
        );
    }
}

/// Writeback register, response length, lengths.
fn destination(c: &mut Check<'_>, s: &Send, desc: Option<MsgDesc>) {
    let d = &s.dst;
    let text = facts::dst_text(c.p, d);
    let null = facts::is_null(d.file, d.addr);
    let at = Some(Operand::Dst);
    if !null && d.file != RegFile::Grf {
        c.error(
            Rule::SendDestination,
            at,
            format!(
                "{text}: a send's destination must be a GRF or null (it names where a response \
                 goes{}, and the channel enables)",
                if desc.is_some_and(|d| d.rlen == 0) {
                    "; with response length 0 nothing is written back, but the field must \
                     still be a GRF or null"
                } else {
                    ""
                }
            ),
        );
    }
    if facts::gen4(c.p) {
        // The post-destination shapes the channel enables (000 lines
        // 13362-13368).
        if d.ty.size() == 1 {
            c.error(
                Rule::SendPostDstType,
                at,
                format!("{text}: the post-destination type must be word or dword, not byte"),
            );
        } else if c.inst.exec_size == 16
            && (d.ty.size() != 2 || matches!(d.addr, Addr::Direct { subnr, .. } if subnr != 0))
        {
            c.error(
                Rule::SendPostDstType,
                at,
                format!(
                    "{text}: with ExecSize 16 the post-destination is a word type starting a \
                     register, or only 8 channel enables reach the shared function"
                ),
            );
        }
        if let Addr::Direct { subnr, .. } = d.addr
            && c.inst.access_mode == AccessMode::Align1
        {
            let end = u32::from(subnr)
                + (u32::from(c.inst.exec_size).max(1) - 1)
                    * u32::from(d.hstride)
                    * u32::from(d.ty.size())
                + u32::from(d.ty.size())
                - 1;
            if end >= REG_BYTES {
                c.error(
                    Rule::DstCrossing,
                    at,
                    format!(
                        "{text}: the post-destination region may not cross a register boundary"
                    ),
                );
            }
        }
    }
    let Some(desc) = desc else { return };
    let (mlen, rlen) = (u32::from(desc.mlen), u32::from(desc.rlen));
    let rmax = if facts::gen4(c.p) { 8 } else { 16 };
    if mlen == 0 || mlen > 15 {
        c.error(
            Rule::SendLength,
            None,
            format!("message length {mlen}; it must be 1-15 registers"),
        );
    }
    if rlen > rmax {
        c.error(
            Rule::SendLength,
            None,
            format!("response length {rlen}; it must be 0-{rmax} registers"),
        );
    }
    if null && rlen != 0 {
        c.error(
            Rule::SendResponse,
            at,
            format!("a null writeback with response length {rlen}; a null destination needs 0"),
        );
    } else if !null && d.file == RegFile::Grf && rlen == 0 {
        c.error(
            Rule::SendResponse,
            at,
            format!(
                "{text} with response length 0; a GRF writeback needs at least one response \
                 register (use null for no response)"
            ),
        );
    }
    if let Addr::Direct { nr, .. } = d.addr
        && d.file == RegFile::Grf
    {
        if !facts::gen4(c.p) && nr == 0 && rlen > 0 {
            c.error(Rule::SendDestination, at, "r0 cannot receive a writeback");
        }
        let last = u32::from(nr) + rlen.max(1) - 1;
        if last >= 128 {
            c.error(
                Rule::RegisterNumber,
                at,
                format!("the {rlen}-register response from {text} runs past r127"),
            );
        }
    }
}

/// A register descriptor is exactly a0.0<0;1,0>:ud.
fn descriptor(c: &mut Check<'_>, s: &Send, _desc: Option<MsgDesc>) {
    let SendDesc::Reg(r) = &s.desc else { return };
    let scalar = matches!(
        r.region,
        Region::Align1 {
            vstride: 0,
            width: 1,
            hstride: 0
        }
    );
    let a00 = r.file == RegFile::Arf
        && r.addr
            == (Addr::Direct {
                nr: arf::A0,
                subnr: 0,
            });
    if !a00 || !scalar || r.ty != Type::Ud || r.negate || r.abs {
        c.error(
            Rule::SendDescriptor,
            Some(Operand::Src1),
            format!(
                "descriptor {}: a register descriptor must be a0.0<0;1,0>:ud",
                facts::src_text(c.p, &Src::Reg(*r))
            ),
        );
    }
}

/// Controls send does not take.
fn controls(c: &mut Check<'_>) {
    let i = c.inst;
    if facts::gen4(c.p) && i.group == GroupCtrl::Compression(Compression::Compressed) {
        c.error(
            Rule::SendControls,
            None,
            "send cannot be compressed (SecHalf is allowed and shifts the channel enables)",
        );
    }
    if !facts::gen4(c.p) {
        if i.acc_wr_ctrl {
            c.error(
                Rule::SendControls,
                None,
                "send cannot update the accumulator (no AccWrEn)",
            );
        }
        if i.saturate {
            c.error(Rule::SendControls, None, "send takes no saturation");
        }
        if i.thread_ctrl != ThreadCtrl::Normal {
            c.error(
                Rule::SendControls,
                None,
                "send takes no thread control (Switch/Atomic)",
            );
        }
    }
    if i.no_dd_chk {
        c.warn(
            Rule::SendControls,
            None,
            "send does not check its writeback dependencies; {NoDDChk} should not be used",
        );
    }
}

fn eot(c: &mut Check<'_>, s: &Send) {
    if !s.eot {
        return;
    }
    let d = &s.dst;
    if !facts::is_null(d.file, d.addr) {
        c.error(
            Rule::EotDestination,
            Some(Operand::Dst),
            format!(
                "an end-of-thread send writes back to {}; EOT needs a null destination (the EU \
                 would never issue it)",
                facts::dst_text(c.p, d)
            ),
        );
    }
    let g4 = facts::gen4(c.p);
    let (sev, why) = match s.sfid {
        Some(Sfid::Sampler) => (Severity::Error, "the sampler cannot end a thread"),
        Some(Sfid::Math) if g4 => (
            Severity::Error,
            "the extended math unit cannot end a thread",
        ),
        Some(Sfid::Null) => (
            Severity::Warning,
            "the manuals disagree on ending a thread with a null message (one table allows it, \
             the send page does not)",
        ),
        Some(Sfid::DataPortRead | Sfid::DpSamplerCache | Sfid::DpConstantCache) => (
            Severity::Warning,
            "a read-only data port; the EOT tables list read ports among the targets that cannot \
             end a thread",
        ),
        _ => (Severity::Error, ""),
    };
    if !why.is_empty() {
        c.push(
            Rule::EotTarget,
            None,
            sev,
            None,
            format!("EOT message: {why}"),
        );
    }
    if g4 && matches!(s.desc, SendDesc::Reg(_)) {
        c.warn(
            Rule::EotDescriptor,
            None,
            "EOT with a register descriptor: the error table says EOT is only recognized with \
                 an immediate descriptor",
        );
    }
    if c.p >= IsaGen::Gen7
        && let Src::Reg(r) = &s.src0
        && let Addr::Direct { nr, .. } = r.addr
        && nr < 112
    {
        c.error(
            Rule::EotPayload,
            Some(Operand::Src0),
            format!("the EOT payload starts at r{nr}; it must be in r112-r127"),
        );
    }
}
