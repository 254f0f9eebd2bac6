//! Three-source rules of Gen12.5 beyond the encoding's own limits
//! (immediates only in src0/src2 and 16 bits wide, src2 without a
//! VertStride are already all the encoding can say): dpas's restrictions
//! from its entry in 004. iga64 -p=12p71 accepts every systolic depth and
//! ExecSize, so they are warnings.

use alloc::format;

use crate::inst::{Addr, Body, Src};
use crate::validate::{Check, Operand, Rule, Severity};

pub(super) fn check(c: &mut Check) {
    let i = c.inst;
    let Body::Dpas(d) = &i.body else { return };
    // dpas 13863, 13867; dpasw 14205, 14209.
    let (exec_line, depth_line, src1_line) = if i.opcode == crate::inst::Opcode::Dpasw {
        (14205, 14209, 14199)
    } else {
        (13863, 13867, 13857)
    };
    if i.exec_size != 8 {
        c.push(
            Rule::XeDpas,
            None,
            Severity::Warning,
            Some(&format!("004 line {exec_line}")),
            format!("ExecSize {}; it must be 8", i.exec_size),
        );
    }
    if d.depth != 8 {
        c.push(
            Rule::XeDpas,
            None,
            Severity::Warning,
            Some(&format!("004 line {depth_line}")),
            format!("systolic depth {}; it must be 8", d.depth),
        );
    }
    if let Src::Reg(r) = d.src[1]
        && let Addr::Direct { subnr, .. } = r.addr
        && subnr != 0
    {
        c.push(
            Rule::XeDpas,
            Some(Operand::Src1),
            Severity::Warning,
            Some(&format!("004 line {src1_line}")),
            format!("sub-register {subnr}; src1 starts at a register"),
        );
    }
}
