//! Execution sizes and fixed operand forms of special instructions (dot
//! products, line, pln, sad2, movi, sel, cmp, jmpi, wait, the Gen4
//! mask-stack instructions, Gen6+ call), each with its reference page.

use super::facts::{self, Operands};
use super::{Check, Operand, Rule, Severity};
use crate::generation::IsaGen;
use crate::inst::{AccessMode, Addr, Body, Opcode, RegFile, Region, Src, Type};
use crate::tables::ArfKind;
use alloc::format;

/// Allowed execution sizes: (check, description, Gen4 line, Gen6 line).
/// (accepts the ExecSize, what it accepts, citation).
type ExecRule = (fn(u8) -> bool, &'static str, &'static str);

fn exec_rule(op: Opcode, p: IsaGen) -> Option<ExecRule> {
    let g4 = facts::gen4(p);
    let pick = |a: &'static str, b: &'static str| if g4 { a } else { b };
    Some(match op {
        Opcode::Dp2 => (
            |e| e >= 4,
            "at least 4",
            pick("000 line 11384", "003 line 97663"),
        ),
        Opcode::Dp3 => (
            |e| e >= 4,
            "at least 4",
            pick("000 line 11440", "003 line 97747"),
        ),
        Opcode::Dp4 => (
            |e| e >= 4,
            "at least 4",
            pick("000 line 11497", "003 line 97828"),
        ),
        Opcode::Dph => (
            |e| e >= 4,
            "at least 4",
            pick("000 line 11554", "003 line 97909"),
        ),
        Opcode::Line => (
            |e| e == 8 || e == 16,
            "8 or 16",
            pick("000 line 12019", "003 line 98715"),
        ),
        Opcode::Pln => (
            |e| e == 8 || e == 16,
            "8 or 16",
            pick("000 line 12720", "003 line 99987"),
        ),
        Opcode::Sad2 => (
            |e| e >= 2,
            "at least 2",
            pick("000 line 13188", "003 line 100549"),
        ),
        Opcode::Sada2 => (
            |e| e >= 2,
            "at least 2",
            pick("000 line 13242", "003 line 100634"),
        ),
        Opcode::Jmpi => (|e| e == 1, "1", pick("000 line 11965", "003 line 98634")),
        Opcode::Wait => (|e| e == 1, "1", pick("000 line 13601", "003 line 101296")),
        Opcode::Msave => (|e| e == 1, "1", "000 line 12412"),
        Opcode::Mrest => (|e| e == 1, "1", "000 line 12369"),
        Opcode::Pop => (|e| e == 1, "1", "000 line 12772"),
        Opcode::Push => (|e| e == 1, "1", "000 line 12814"),
        Opcode::Movi => (
            |e| e < 16,
            "less than 16",
            pick("000 line 12294", "003 line 99498"),
        ),
        Opcode::Call if !g4 => (|e| e == 2, "2", "003 line 97138"),
        // Ivy Bridge only (001 line 670, "may not continue").
        Opcode::Sel if p == IsaGen::Gen7 => (|e| e != 32, "at most 16", "001 line 670"),
        _ => return None,
    })
}

pub(super) fn check(c: &mut Check<'_>, ops: &Operands<'_>, tys: &[(Operand, Type)]) {
    let op = c.inst.opcode;
    let m = op.mnemonic();
    if let Some((ok, want, cite)) = exec_rule(op, c.p)
        && !ok(c.inst.exec_size)
    {
        c.push(
            Rule::OpcodeExecSize,
            None,
            Severity::Error,
            Some(cite),
            format!(
                "{m} with ExecSize {}; {m} takes ExecSize {want}",
                c.inst.exec_size
            ),
        );
    }
    let Body::Alu(a) = &c.inst.body else { return };
    let g4 = facts::gen4(c.p);
    let pick = |x: &'static str, y: &'static str| if g4 { x } else { y };
    match op {
        Opcode::Line | Opcode::Pln => {
            let (scalar_line, sub_line) = if op == Opcode::Line {
                (
                    pick("000 line 12021", "003 line 98717"),
                    pick("000 line 12029", "003 line 98723"),
                )
            } else {
                (pick("000 line 12722", "003 line 99989"), "")
            };
            if let Src::Reg(r) = &a.src0
                && c.inst.access_mode == AccessMode::Align1
            {
                if !facts::is_scalar(r) {
                    form(
                        c,
                        Some(Operand::Src0),
                        scalar_line,
                        format!(
                            "{m} src0 {} must be a replicated scalar <0;1,0>",
                            facts::src_text(c.p, &a.src0)
                        ),
                    );
                } else if let Addr::Direct { subnr, .. } = r.addr
                    && op == Opcode::Line
                    && subnr != 0
                    && subnr != 16
                {
                    form(
                        c,
                        Some(Operand::Src0),
                        sub_line,
                        format!(
                            "line src0 {} must sit at .0 or .4",
                            facts::src_text(c.p, &a.src0)
                        ),
                    );
                }
            }
            if op == Opcode::Pln
                && let Src::Reg(r) = &a.src1
                && let Addr::Direct { nr, subnr } = r.addr
                && (nr % 2 != 0 || subnr != 0)
            {
                form(
                    c,
                    Some(Operand::Src1),
                    pick("000 line 12724", "003 line 99997"),
                    format!(
                        "pln src1 {} must start an even register",
                        facts::src_text(c.p, &a.src1)
                    ),
                );
            }
        }
        Opcode::Sad2 | Opcode::Sada2 => {
            if let Addr::Direct { subnr, .. } = a.dst.addr
                && subnr % 4 != 0
            {
                let cite = match op {
                    Opcode::Sad2 => pick("000 line 13182", "003 line 100542"),
                    _ => pick("000 line 13236", "003 line 100627"),
                };
                form(
                    c,
                    Some(Operand::Dst),
                    cite,
                    format!(
                        "{m} destination {} must start on an even word",
                        facts::dst_text(c.p, &a.dst)
                    ),
                );
            }
        }
        Opcode::Dim => dim(c, a),
        Opcode::Movi => movi(c, ops),
        Opcode::Sel => sel(c, ops, tys),
        Opcode::Cmp | Opcode::Cmpn => {
            let d = &a.dst;
            if d.file == RegFile::Arf && !facts::is_null(d.file, d.addr) {
                c.push(
                    Rule::CmpDestination,
                    Some(Operand::Dst),
                    Severity::Error,
                    Some(pick("000 lines 11159, 11217", "003 lines 97386, 97487")),
                    format!(
                        "{m} writes {}; its destination is a GRF, an MRF or null, never an ARF \
                         (accumulator included)",
                        facts::dst_text(c.p, d)
                    ),
                );
            }
        }
        Opcode::Jmpi => {
            let ok = match &a.src1 {
                Src::Imm(i) => i.ty == Type::D,
                Src::Reg(r) => r.ty == Type::D && facts::is_scalar(r),
                Src::Vacant(_) => false,
            };
            if !ok {
                form(
                    c,
                    Some(Operand::Src1),
                    pick("000 line 11961", "003 line 98627"),
                    format!(
                        "jmpi index {} must be a :d immediate or scalar register",
                        facts::src_text(c.p, &a.src1)
                    ),
                );
            }
            // Gen4/G45 use the low 16 bits of the index only.
            if let Src::Imm(i) = &a.src1 {
                let index = i64::from(i.bits as u32 as i32);
                let (lo, hi) = crate::text::jumps::imm_range(c.p, Opcode::Jmpi);
                if !(lo..=hi).contains(&index) {
                    form(
                        c,
                        Some(Operand::Src1),
                        "000 lines 11955-11961",
                        format!(
                            "jmpi index {index} is outside {lo}..={hi}; the hardware uses only \
                             its low 16 bits"
                        ),
                    );
                }
            }
        }
        Opcode::Wait => {
            let notif =
                |f: RegFile, ad: Addr| facts::arf_kind(c.p, f, ad) == Some(ArfKind::Notification);
            let src0_ok = matches!(&a.src0, Src::Reg(r) if notif(r.file, r.addr));
            let src1_ok = matches!(&a.src1, Src::Reg(r) if facts::is_null(r.file, r.addr))
                || matches!(a.src1, Src::Vacant(_));
            if !notif(a.dst.file, a.dst.addr) || !src0_ok || !src1_ok {
                form(
                    c,
                    None,
                    pick("000 line 13599", "003 line 101294"),
                    "wait takes a notification register (n0, n1) as dst and src0 and null as src1",
                );
            }
        }
        Opcode::Msave | Opcode::Mrest | Opcode::Push | Opcode::Pop => {
            let unsigned = |t: Type| matches!(t, Type::Ud | Type::Uw);
            let bad = !unsigned(a.dst.ty)
                || tys.iter().any(|(_, t)| !unsigned(*t))
                || matches!(&a.src0, Src::Reg(r) if !unsigned(r.ty));
            if bad {
                form(
                    c,
                    None,
                    "000 lines 12373, 12414, 12774, 12822",
                    format!("{m} operands must be unsigned integers (ud or uw)"),
                );
            }
        }
        Opcode::Call if !g4 => {
            let d = &a.dst;
            let qword = matches!(d.addr, Addr::Direct { subnr, .. } if subnr % 8 == 0);
            if !matches!(d.ty, Type::D | Type::Ud) || !qword {
                form(
                    c,
                    Some(Operand::Dst),
                    "003 line 97135",
                    format!(
                        "call writes {}; its destination is a qword-aligned d/ud register",
                        facts::dst_text(c.p, d)
                    ),
                );
            }
        }
        _ => {}
    }
}

fn form(c: &mut Check<'_>, at: Option<Operand>, cite: &'static str, what: impl core::fmt::Display) {
    c.push(Rule::OpcodeOperands, at, Severity::Error, Some(cite), what);
}

/// Haswell's dim moves a 64-bit immediate: src0 a DF immediate, the
/// destination DF. No manual here has the dim page; the form is the one
/// Mesa emits and asserts [ext: mesa src/intel/compiler/brw_fs_generator.cpp
/// `BRW_OPCODE_DIM`: src0 and dst of type DF], and what the encoder takes
/// (the immediate fills bits 127:64, flag fields included).
fn dim(c: &mut Check<'_>, a: &crate::inst::Alu) {
    const CITE: &str = "[ext: mesa brw_fs_generator.cpp BRW_OPCODE_DIM]";
    if !matches!(&a.src0, Src::Imm(i) if i.ty == Type::Df) {
        form(
            c,
            Some(Operand::Src0),
            CITE,
            format!(
                "dim src0 {} must be a DF immediate",
                facts::src_text(c.p, &a.src0)
            ),
        );
    }
    if a.dst.ty != Type::Df {
        form(
            c,
            Some(Operand::Dst),
            CITE,
            format!(
                "dim destination {} must be DF",
                facts::dst_text(c.p, &a.dst)
            ),
        );
    }
}

/// movi: an indirect GRF source with one index starting at a0.0, a 16-byte
/// aligned destination whose stride matches the source element, Align1.
fn movi(c: &mut Check<'_>, ops: &Operands<'_>) {
    let g4 = facts::gen4(c.p);
    let pick = |x: &'static str, y: &'static str| if g4 { x } else { y };
    if c.inst.access_mode == AccessMode::Align16 {
        form(
            c,
            None,
            pick("000 line 12302", "003 line 99506"),
            "movi cannot use Align16",
        );
    }
    let src = ops.srcs.first().map(|(_, s)| *s);
    let Some(Src::Reg(r)) = src else { return };
    let ok = r.file == RegFile::Grf
        && matches!(r.addr, Addr::Indirect { addr_subnr: 0, .. })
        && !matches!(r.region, Region::VxH { .. });
    if !ok {
        form(
            c,
            Some(Operand::Src0),
            pick(
                "000 lines 12288, 12296, 12306",
                "003 lines 99492, 99500, 99510",
            ),
            format!(
                "movi src0 {} must be an indirect GRF with one index starting at a0.0 (r[a0.0,off]<v;w,h>)",
                facts::src_text(c.p, src.unwrap_or(&Src::Reg(*r)))
            ),
        );
    }
    let Some(d) = ops.dst else { return };
    if let Addr::Direct { subnr, .. } = d.addr
        && subnr % 16 != 0
    {
        form(
            c,
            Some(Operand::Dst),
            pick("000 line 12298", "003 line 99502"),
            format!(
                "movi destination {} must be 16-byte aligned",
                facts::dst_text(c.p, d)
            ),
        );
    }
    if u32::from(d.hstride) * u32::from(d.ty.size()) != u32::from(r.ty.size()) {
        form(
            c,
            Some(Operand::Dst),
            pick("000 line 12300", "003 line 99504"),
            format!(
                "movi destination stride is {} bytes; it must equal the {}-byte source element",
                u32::from(d.hstride) * u32::from(d.ty.size()),
                r.ty.size()
            ),
        );
    }
}

/// sel: byte destinations on even bytes; Gen6+ no format conversion.
fn sel(c: &mut Check<'_>, ops: &Operands<'_>, tys: &[(Operand, Type)]) {
    let Some(d) = ops.dst else { return };
    let g4 = facts::gen4(c.p);
    if d.ty.size() == 1
        && let Addr::Direct { subnr, .. } = d.addr
        && subnr % 2 != 0
    {
        c.push(
            Rule::SelByteDestination,
            Some(Operand::Dst),
            Severity::Error,
            Some(if g4 {
                "000 line 13289"
            } else {
                "003 lines 100761-100764"
            }),
            format!(
                "sel writes bytes from odd byte {subnr}; sel executes in word channels, so a byte \
                 destination starts on an even byte (with a stride of 2 or more)"
            ),
        );
    }
    if g4 {
        return;
    }
    for (slot, t) in tys {
        if t.is_float() != d.ty.is_float()
            || facts::elem_size(c.p, *t) != facts::elem_size(c.p, d.ty)
        {
            c.push(
                Rule::SelConversion,
                Some(*slot),
                Severity::Error,
                Some("003 line 100755"),
                format!(
                    "sel from :{} into :{} converts; sel does no format conversion, use the \
                     destination's type",
                    t.name(),
                    d.ty.name()
                ),
            );
        }
    }
}
