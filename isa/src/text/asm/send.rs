//! `send`/`sendc`: destination, (Gen4/G45) base MRF, payload, SFID and
//! descriptor.

use super::super::parse::{ImmVal, Opnd, RegAddr, RegOp, Target};
use super::Res;
use super::form::{Form, col_of};
use super::operand::{Ctx, SCALAR};
use crate::generation::IsaGen;
use crate::inst::{Body, MsgDesc, RegFile, Send, SendDesc, Src, Type};
use crate::tables::{self, SendLayout};

/// Builds a send from its operands; `eot` is the `{EOT}` option.
pub(super) fn send(p: IsaGen, cx: &Ctx, eot: bool) -> Res<Form> {
    let t = tables::for_platform(p);
    let (dst, saturate) = cx.dst(cx.operand(0, "a destination")?, false)?;
    let mut k = 1;
    let mut base_mrf = None;
    if let SendLayout::Gen4 { .. } = t.fields.send {
        match cx.operand(1, "a base message register")? {
            Opnd::Reg(RegOp {
                file: RegFile::Mrf,
                addr: RegAddr::Direct { nr, sub: None },
                ty: None,
                ..
            }) => base_mrf = Some(*nr),
            o => return cx.e(col_of(o), "expected the base message register m<n>"),
        }
        k = 2;
    }
    let s0 = cx.reg(cx.operand(k, "a payload register")?)?;
    let mut s0 = s0.clone();
    s0.ty = Some(s0.ty.unwrap_or(Type::Ud));
    let src0 = cx.src(&Opnd::Reg(s0), None, SCALAR)?;
    // A symbolic descriptor gives the SFID and descriptor at once.
    if let Opnd::Message { sfid, desc, .. } = cx.operand(k + 1, "an SFID")? {
        return Ok(Form {
            body: Body::Send(Send {
                dst,
                src0,
                desc: SendDesc::Imm {
                    ty: Type::Ud,
                    desc: *desc,
                },
                sfid: Some(*sfid),
                base_mrf,
                eot,
                src1: None,
                ex_desc: None,
            }),
            saturate,
            used: k + 2,
        });
    }
    let (ex, ex_col) = match cx.operand(k + 1, "an SFID")? {
        Opnd::Target {
            target: Target::Bytes(b),
            col,
        } => (*b, *col),
        o => return cx.e(col_of(o), "expected the SFID (extended descriptor) number"),
    };
    let eot = eot || (p >= IsaGen::Gen7 && ex & 0x20 != 0);
    let sfid = match tables::lookup(&t.sfids, (ex & 0xF) as u32) {
        Some(s) if ex & !0x2F == 0 => s,
        _ => return cx.e(ex_col, alloc::format!("SFID {ex:#x} does not exist on {p}")),
    };
    let desc = match cx.operand(k + 2, "a descriptor")? {
        Opnd::Target {
            target: Target::Bytes(raw),
            col,
        } => {
            let raw = u32::try_from(*raw).or_else(|_| cx.e(*col, "a descriptor has 32 bits"))?;
            SendDesc::Imm {
                ty: Type::Ud,
                desc: split_desc(t.fields.send, raw),
            }
        }
        Opnd::Imm {
            value: ImmVal::Int(raw),
            ty: ty @ (Type::Ud | Type::D),
            col,
        } => {
            let raw = u32::try_from(*raw).or_else(|_| cx.e(*col, "a descriptor has 32 bits"))?;
            SendDesc::Imm {
                ty: *ty,
                desc: split_desc(t.fields.send, raw),
            }
        }
        o => {
            let r = cx.reg(o)?;
            let mut r = r.clone();
            r.ty = Some(r.ty.unwrap_or(Type::Ud));
            match cx.src(&Opnd::Reg(r), None, SCALAR)? {
                Src::Reg(rs) => SendDesc::Reg(rs),
                _ => return cx.e(col_of(o), "expected a descriptor"),
            }
        }
    };
    // Gen4/G45 keep the SFID in the immediate descriptor only.
    let sfid = match (base_mrf, &desc) {
        (Some(_), SendDesc::Reg(_)) => None,
        _ => Some(sfid),
    };
    Ok(Form {
        body: Body::Send(Send {
            dst,
            src0,
            desc,
            sfid,
            base_mrf,
            eot,
            src1: None,
            ex_desc: None,
        }),
        saturate,
        used: k + 3,
    })
}

/// Splits a raw descriptor (DW3 without EOT) into its fields.
pub(crate) fn split_desc(layout: SendLayout, raw: u32) -> MsgDesc {
    let f = |b: tables::Bits| {
        let lo = u32::from(b.lo - 96);
        (raw >> lo) & (u32::MAX >> (32 - b.width()))
    };
    match layout {
        SendLayout::Gen4 {
            mlen,
            rlen,
            function,
            ..
        } => MsgDesc {
            mlen: f(mlen) as u8,
            rlen: f(rlen) as u8,
            header: false,
            function: f(function),
        },
        SendLayout::Gen6 {
            mlen,
            rlen,
            header,
            function,
        } => MsgDesc {
            mlen: f(mlen) as u8,
            rlen: f(rlen) as u8,
            header: f(header) != 0,
            function: f(function),
        },
    }
}
