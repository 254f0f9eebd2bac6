//! Accumulator rules of Gen12.5, from the restrictions of each
//! instruction's entry in 004. iga64 -p=12p71 accepts every one of the
//! breaking forms (`bfrev` from `acc0`, `addc` to `acc0`, `math.inv` on
//! `acc0`), so they are warnings.

use alloc::format;

use crate::inst::{Addr, Body, Dst, MathFn, Opcode, RegFile, Src};
use crate::validate::{Check, Operand, Rule, Severity};

fn is_acc(file: RegFile, addr: Addr) -> bool {
    file == RegFile::Arf && matches!(addr, Addr::Direct { nr, .. } if nr & 0xF0 == 0x20)
}

fn dst_acc(d: &Dst) -> bool {
    is_acc(d.file, d.addr)
}

fn src_acc(s: &Src) -> bool {
    matches!(s, Src::Reg(r) if is_acc(r.file, r.addr))
}

const SLOTS: [Operand; 3] = [Operand::Src0, Operand::Src1, Operand::Src2];

pub(super) fn check(c: &mut Check) {
    let i = c.inst;
    let (dst, srcs): (Dst, alloc::vec::Vec<Src>) = match &i.body {
        Body::Alu(a) => (a.dst, alloc::vec![a.src0, a.src1]),
        Body::Math(m) => (m.dst, alloc::vec![m.src0, m.src1]),
        Body::ThreeSrc(t) => (t.dst, t.src.to_vec()),
        _ => return,
    };
    let warn = |c: &mut Check, at: Option<Operand>, line: &str, what: &str| {
        c.push(
            Rule::XeAccumulator,
            at,
            Severity::Warning,
            Some(&format!("004 line {line}")),
            format!("{what} (iga64 accepts it)"),
        );
    };
    let acc_srcs: alloc::vec::Vec<usize> = (0..srcs.len()).filter(|&k| src_acc(&srcs[k])).collect();
    // Instructions with no accumulator access at all.
    let none = match i.opcode {
        Opcode::Bfe => Some("10500"),
        Opcode::Bfi1 => Some("10686"),
        Opcode::Bfi2 => Some("10846"),
        Opcode::Bfrev => Some("11016"),
        Opcode::Cbit => Some("13405"),
        Opcode::Fbl => Some("15495"),
        Opcode::Fbh => Some("15678"),
        _ => None,
    };
    if let Some(line) = none {
        if dst_acc(&dst) {
            warn(
                c,
                Some(Operand::Dst),
                line,
                "the accumulator; this instruction has no accumulator access",
            );
        }
        for &k in &acc_srcs {
            warn(
                c,
                Some(SLOTS[k]),
                line,
                "the accumulator; this instruction has no accumulator access",
            );
        }
        return;
    }
    match i.opcode {
        // The carry or borrow goes to the accumulator: it is implied, not
        // named, and AccWrEn must be set.
        Opcode::Addc | Opcode::Subb => {
            let (dst_line, wr_line) = if i.opcode == Opcode::Addc {
                ("6313", "6311")
            } else {
                ("34992", "34994")
            };
            if dst_acc(&dst) {
                warn(
                    c,
                    Some(Operand::Dst),
                    dst_line,
                    "the accumulator is this instruction's implicit destination, not an explicit one",
                );
            }
            if !i.acc_wr_ctrl {
                warn(c, None, wr_line, "AccWrEn is required");
            }
        }
        Opcode::Math => {
            let Body::Math(m) = &i.body else { return };
            if !matches!(m.function, MathFn::Invm | MathFn::Rsqtm) {
                if dst_acc(&dst) {
                    warn(
                        c,
                        Some(Operand::Dst),
                        "15177",
                        "the accumulator; only math.invm and math.rsqtm access it",
                    );
                }
                for &k in &acc_srcs {
                    warn(
                        c,
                        Some(SLOTS[k]),
                        "15177",
                        "the accumulator; only math.invm and math.rsqtm access it",
                    );
                }
            }
        }
        Opcode::And | Opcode::Not | Opcode::Or | Opcode::Xor => {
            let line = match i.opcode {
                Opcode::And => "19735",
                Opcode::Not => "19895",
                Opcode::Or => "20053",
                _ => "20238",
            };
            for &k in &acc_srcs {
                if let Src::Reg(r) = srcs[k]
                    && (r.negate || r.abs)
                {
                    warn(
                        c,
                        Some(SLOTS[k]),
                        line,
                        "a source modifier on the accumulator",
                    );
                }
            }
        }
        Opcode::Movi => {
            for &k in acc_srcs.iter().filter(|&&k| k == 0) {
                warn(
                    c,
                    Some(SLOTS[k]),
                    "29372",
                    "the accumulator; movi's source is a general register",
                );
            }
        }
        Opcode::Mul => {
            for &k in &acc_srcs {
                if let Src::Reg(r) = srcs[k]
                    && !r.ty.is_float()
                {
                    warn(
                        c,
                        Some(SLOTS[k]),
                        "29625",
                        "an integer source from the accumulator",
                    );
                }
            }
        }
        Opcode::Dp4a if acc_srcs.contains(&0) && acc_srcs.contains(&1) => {
            warn(
                c,
                Some(Operand::Src1),
                "13596",
                "src0 and src1 both the accumulator; at most one may be",
            );
        }
        _ => {}
    }
}
