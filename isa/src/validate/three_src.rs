//! Three-source instructions (mad, lrp; Gen7 bfe, bfi2): Align16 only,
//! GRF sources, a GRF (Gen6: or MRF) destination, direct addressing,
//! dword sub-registers, no immediates, one shared source type (003 lines
//! 93842-93928; Gen7 type fields 001 lines 642-644).

use super::facts;
use super::{Check, Operand, Rule};
use crate::generation::IsaGen;
use crate::inst::{AccessMode, Addr, Body, RegFile, Src, Type};
use alloc::format;

pub(super) fn check(c: &mut Check<'_>) {
    let Body::ThreeSrc(t) = &c.inst.body else {
        return;
    };
    if c.inst.access_mode != AccessMode::Align16 {
        c.error(
            Rule::ThreeSrcAccessMode,
            None,
            format!("{} must be Align16", c.inst.opcode.mnemonic()),
        );
    }
    let d = &t.dst;
    let dst_file_ok = d.file == RegFile::Grf || (c.p == IsaGen::Gen6 && d.file == RegFile::Mrf);
    let dst_dword = matches!(d.addr, Addr::Direct { subnr, .. } if subnr % 4 == 0);
    if !dst_file_ok || !dst_dword {
        c.error(
            Rule::ThreeSrcOperands,
            Some(Operand::Dst),
            format!(
                "{}: a three-source destination is a directly addressed {} register on a dword \
                 boundary",
                facts::dst_text(c.p, d),
                if c.p == IsaGen::Gen6 {
                    "GRF or MRF"
                } else {
                    "GRF"
                }
            ),
        );
    }
    let slots = [Operand::Src0, Operand::Src1, Operand::Src2];
    let mut types: alloc::vec::Vec<Type> = alloc::vec::Vec::new();
    for (slot, s) in slots.iter().zip(t.src.iter()) {
        let text = facts::src_text(c.p, s);
        match s {
            Src::Imm(_) => c.error(
                Rule::ThreeSrcOperands,
                Some(*slot),
                format!("{text}: three-source instructions take no immediates; load it into a GRF"),
            ),
            Src::Reg(r) => {
                types.push(r.ty);
                let ok = r.file == RegFile::Grf
                    && matches!(r.addr, Addr::Direct { subnr, .. } if subnr % 4 == 0);
                if !ok {
                    c.error(
                        Rule::ThreeSrcOperands,
                        Some(*slot),
                        format!(
                            "{text}: three-source sources are directly addressed GRF registers on \
                             dword boundaries"
                        ),
                    );
                }
            }
            Src::Vacant(_) => c.error(
                Rule::ThreeSrcOperands,
                Some(*slot),
                "a three-source instruction reads all three sources",
            ),
        }
    }
    let shared = types.windows(2).all(|w| w[0] == w[1]);
    let gen6_float = c.p != IsaGen::Gen6 || types.iter().all(|t| *t == Type::F);
    if !shared || !gen6_float {
        c.error(
            Rule::ThreeSrcOperands,
            None,
            format!(
                "the three sources share one type field{}; their types differ or are not allowed",
                if c.p == IsaGen::Gen6 {
                    " and are always f on Sandy Bridge"
                } else {
                    ""
                }
            ),
        );
    }
}
