//! The `send`/`sendc` handler: reads the descriptor and the operands into
//! a [`SendRequest`] that the run loop hands to the shared functions
//! (`send`), after the Gen4/G45 implied move of src0 into the MRF.

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{Addr, Body, RegFile, SendDesc, Sfid, Src};
use baregpu_isa::tables::{self, SendLayout};

use crate::eu::decoded::{Next, Op};
use crate::eu::error::ErrorKind;
use crate::eu::operand::{MAX_CH, read};
use crate::eu::send::{Payload, SendRequest};
use crate::eu::thread::Thread;
use crate::eu::thread::layout::{MRF_BASE, REG_BYTES, mrf_regs};

/// Splits a 32-bit descriptor by the generation's layout.
fn fields(p: IsaGen, desc: u32) -> (Option<Sfid>, u8, u8, bool, u32) {
    let t = tables::for_platform(p);
    let get = |b: tables::Bits| (desc >> (b.lo - 96)) & ((1u32 << b.width()) - 1);
    match t.fields.send {
        SendLayout::Gen4 {
            sfid,
            mlen,
            rlen,
            function,
        } => (
            tables::lookup(&t.sfids, get(sfid)),
            get(mlen) as u8,
            get(rlen) as u8,
            false,
            get(function),
        ),
        SendLayout::Gen6 {
            mlen,
            rlen,
            header,
            function,
        } => (
            None,
            get(mlen) as u8,
            get(rlen) as u8,
            get(header) != 0,
            get(function),
        ),
    }
}

/// The send/sendc handler.
pub(crate) fn exec(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let Body::Send(s) = &op.inst.body else {
        return Err(ErrorKind::Unimplemented(op.inst.opcode));
    };
    let p = t.platform;
    let ctl = &op.ctl;
    let n = usize::from(ctl.exec);
    let channels = t.enables(ctl, op.ip) & t.pmask(ctl);
    // The descriptor: immediate, or a0.0:ud (000 lines 13330-13341).
    let (desc, imm_fields) = match &s.desc {
        SendDesc::Imm { desc, .. } => {
            let t6 = tables::for_platform(p);
            let raw = match t6.fields.send {
                SendLayout::Gen4 {
                    sfid,
                    mlen,
                    rlen,
                    function,
                } => {
                    let code = s
                        .sfid
                        .and_then(|f| tables::code_of(&t6.sfids, f))
                        .unwrap_or(0);
                    u32::from(code) << (sfid.lo - 96)
                        | u32::from(desc.mlen) << (mlen.lo - 96)
                        | u32::from(desc.rlen) << (rlen.lo - 96)
                        | desc.function << (function.lo - 96)
                }
                SendLayout::Gen6 {
                    mlen,
                    rlen,
                    header,
                    function,
                } => {
                    u32::from(desc.mlen) << (mlen.lo - 96)
                        | u32::from(desc.rlen) << (rlen.lo - 96)
                        | u32::from(desc.header) << (header.lo - 96)
                        | desc.function << (function.lo - 96)
                }
            };
            (
                raw,
                Some((desc.mlen, desc.rlen, desc.header, desc.function)),
            )
        }
        SendDesc::Reg(_) => {
            let v = read::raw(t, &op.src[1], 1, 1)?;
            (v[0] as u32, None)
        }
    };
    let (dsfid, mlen, rlen, header, function) = fields(p, desc);
    let (mlen, rlen, header, function) = imm_fields.unwrap_or((mlen, rlen, header, function));
    let sfid = if p <= IsaGen::G45 {
        dsfid.or(s.sfid)
    } else {
        s.sfid
    };
    let payload = match (p, s.base_mrf, &s.src0) {
        // Gen4/G45: the payload starts at the base MRF, and a GRF src0 is
        // first copied there (the implied move, 000 lines 13346-13349).
        (_, Some(base), src0) => {
            if let Src::Reg(r) = src0
                && r.file == RegFile::Grf
            {
                implied_move(t, op, base, n)?;
            }
            Payload {
                file: RegFile::Mrf,
                reg: base,
            }
        }
        (_, None, Src::Reg(r)) => {
            let reg = match r.addr {
                Addr::Direct { nr, .. } => nr,
                Addr::Indirect { .. } => {
                    return Err(ErrorKind::BadOperand("indirect send payload"));
                }
            };
            Payload { file: r.file, reg }
        }
        _ => return Err(ErrorKind::BadOperand("send payload")),
    };
    let dst = match (s.dst.file, s.dst.addr) {
        (RegFile::Grf, Addr::Direct { nr, .. }) => Some(nr),
        _ => None,
    };
    Ok(Next::Send(alloc::boxed::Box::new(SendRequest {
        ip: op.ip,
        sfid,
        desc,
        mlen,
        rlen,
        header,
        function,
        payload,
        dst,
        dst_type: s.dst.ty,
        exec_size: ctl.exec,
        first_channel: op.inst.first_channel(),
        channels,
        eot: s.eot,
        conditional: op.inst.opcode == baregpu_isa::inst::Opcode::Sendc,
        extended: crate::eu::send::ExtendedSend::NONE,
    })))
}

/// Gen4/G45 implied move: src0's elements into MRF `base`, laid out by the
/// destination's type and stride, for every channel regardless of the
/// execution mask (000 lines 13342-13349).
fn implied_move(t: &mut Thread, op: &Op, base: u8, n: usize) -> Result<(), ErrorKind> {
    if usize::from(base) >= mrf_regs(t.platform) {
        return Err(ErrorKind::BadOperand("send base MRF out of range"));
    }
    let Body::Send(s) = &op.inst.body else {
        return Ok(());
    };
    let raw = read::raw(t, &op.src[0], n.min(MAX_CH), u32::MAX)?;
    let size = usize::from(op.src[0].ty.size());
    let sub = match s.dst.addr {
        Addr::Direct { subnr, .. } => usize::from(subnr),
        Addr::Indirect { .. } => 0,
    };
    let stride = usize::from(s.dst.hstride.max(1));
    let start = MRF_BASE + usize::from(base) * REG_BYTES;
    let end = MRF_BASE + mrf_regs(t.platform) * REG_BYTES;
    for (c, v) in raw.iter().enumerate().take(n) {
        let o = start + sub + c * stride * size;
        if o + size <= end {
            t.store(o, size, *v);
        }
    }
    Ok(())
}
