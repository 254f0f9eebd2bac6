//! Per-instruction restrictions of the instruction references: which
//! controls (predication, saturation, condition modifier, source modifiers,
//! compression) each instruction takes. The operand forms and execution
//! sizes of special instructions are in `forms.rs`.
//!
//! The Gen4 reference prints, for every instruction, a row of bullets
//! "Instr Comp / Imp'd Accu / Pred / Sat / Cond Mod / Src Mod"; [`row`]
//! holds those rows with their lines. The Sandy Bridge pages print the
//! same columns, garbled by the text conversion, so Gen6+ keep the Gen4
//! rows for the instructions both have and add the changes the Gen6 pages
//! spell out in words.

use super::facts;
use super::{Check, Operand, Rule, Severity};
use crate::generation::IsaGen;
use crate::inst::{Body, CondMod, Opcode, PredCtrl, Src, Type};
use alloc::format;

/// One row of the Gen4 instruction table.
#[derive(Clone, Copy)]
pub(super) struct Row {
    pub compress: bool,
    pub pred: bool,
    pub sat: bool,
    pub cmod: bool,
    pub srcmod: bool,
    /// The row's line in 000.
    pub line: &'static str,
}

const fn r(
    compress: bool,
    pred: bool,
    sat: bool,
    cmod: bool,
    srcmod: bool,
    line: &'static str,
) -> Row {
    Row {
        compress,
        pred,
        sat,
        cmod,
        srcmod,
        line,
    }
}

/// The Gen4 row of an instruction (000 lines 10804-13689).
pub(super) fn row(op: Opcode) -> Option<Row> {
    const T: bool = true;
    const F: bool = false;
    Some(match op {
        Opcode::Add => r(T, T, T, T, T, "000 line 10804"),
        Opcode::And => r(T, T, F, T, T, "000 line 10891"),
        Opcode::Asr => r(T, T, T, T, T, "000 line 10940"),
        Opcode::Avg => r(T, T, T, T, T, "000 line 10999"),
        Opcode::Break => r(F, T, F, F, F, "000 line 11041"),
        Opcode::Cmp => r(T, T, F, T, T, "000 line 11119"),
        Opcode::Cmpn => r(T, T, F, T, T, "000 line 11173"),
        Opcode::Cont => r(F, T, F, F, F, "000 line 11231"),
        Opcode::Do => r(F, F, F, F, F, "000 line 11300"),
        Opcode::Dp2 => r(T, T, T, T, T, "000 line 11343"),
        Opcode::Dp3 => r(T, T, T, T, T, "000 line 11398"),
        Opcode::Dp4 => r(T, T, T, T, T, "000 line 11456"),
        Opcode::Dph => r(T, T, T, T, T, "000 line 11513"),
        Opcode::Else => r(F, F, F, F, F, "000 line 11568"),
        Opcode::Endif => r(F, F, F, F, F, "000 line 11641"),
        Opcode::Frc => r(T, T, F, T, T, "000 line 11696"),
        Opcode::Halt => r(F, T, F, F, F, "000 line 11758"),
        Opcode::If => r(F, T, F, F, F, "000 line 11812"),
        Opcode::Iff => r(F, T, F, F, F, "000 line 11869"),
        Opcode::Jmpi => r(F, T, F, F, F, "000 line 11931"),
        Opcode::Line => r(T, T, T, T, T, "000 line 11983"),
        // The table leaves Src Mod blank for lzd, while its text asks for
        // (abs) on signed sources (line 12076): source modifiers stay allowed.
        Opcode::Lzd => r(T, T, T, T, T, "000 lines 12037, 12076"),
        Opcode::Mac => r(T, T, T, T, T, "000 line 12094"),
        Opcode::Mach => r(T, T, F, T, T, "000 line 12139"),
        Opcode::Mov => r(T, T, T, T, T, "000 line 12204"),
        Opcode::Movi => r(F, T, T, T, T, "000 line 12248"),
        Opcode::Mrest => r(F, F, F, F, F, "000 lines 12332, 12367-12373"),
        Opcode::Msave => r(F, F, F, F, F, "000 lines 12381, 12410-12414"),
        Opcode::Mul => r(T, T, T, T, T, "000 line 12424"),
        Opcode::Nenop => r(F, F, F, F, F, "000 line 12517"),
        Opcode::Nop => r(F, F, F, F, F, "000 line 12544"),
        Opcode::Not => r(T, T, F, T, T, "000 line 12569"),
        Opcode::Or => r(T, T, F, T, T, "000 line 12624"),
        Opcode::Pln => r(T, T, T, T, T, "000 line 12675"),
        Opcode::Pop => r(F, F, F, F, F, "000 lines 12738, 12770-12774"),
        Opcode::Push => r(F, F, F, F, F, "000 lines 12788, 12818-12822"),
        Opcode::Rndd => r(T, T, T, T, T, "000 line 12830"),
        Opcode::Rndu => r(T, T, T, T, T, "000 line 12903"),
        Opcode::Rnde => r(T, T, T, T, T, "000 line 12987"),
        Opcode::Rndz => r(T, T, T, T, T, "000 line 13068"),
        Opcode::Sad2 => r(F, T, T, T, T, "000 line 13147"),
        Opcode::Sada2 => r(F, T, T, T, T, "000 line 13196"),
        Opcode::Sel => r(T, T, T, F, T, "000 line 13250"),
        Opcode::Shl => r(T, T, T, T, T, "000 line 13474"),
        Opcode::Shr => r(T, T, T, T, T, "000 line 13522"),
        Opcode::Wait => r(F, F, F, F, F, "000 lines 13568, 13603"),
        Opcode::While => r(F, T, F, F, F, "000 line 13617"),
        Opcode::Xor => r(T, T, F, T, T, "000 line 13689"),
        _ => return None,
    })
}

/// The controls an instruction takes on `p`, with where that is written.
struct Allowed {
    pred: (bool, &'static str),
    sat: (bool, &'static str),
    cmod: (bool, &'static str),
    srcmod: (bool, &'static str),
}

fn allowed(op: Opcode, p: IsaGen) -> Option<Allowed> {
    let g4 = facts::gen4(p);
    let base = row(op);
    let from_row = |b: Row| {
        let line = if g4 {
            b.line
        } else {
            "Gen4 row kept for Gen6+"
        };
        Allowed {
            pred: (b.pred, line),
            sat: (b.sat, line),
            cmod: (b.cmod, line),
            srcmod: (b.srcmod, line),
        }
    };
    if g4 {
        return base.map(from_row);
    }
    let mut a = match (op, base) {
        (_, Some(b)) => from_row(b),
        // Gen6+ branches: predication, no saturation or source modifiers;
        // if/while/case may carry an embedded compare (003 lines 98523-98557,
        // 97259-97297, 101432-101441).
        (Opcode::Case | Opcode::Fork | Opcode::Call | Opcode::Ret, None) => Allowed {
            pred: (true, "003 lines 97121, 100075"),
            sat: (false, "003 instruction reference"),
            cmod: (op == Opcode::Case, "003 lines 97288-97295"),
            srcmod: (false, "003 instruction reference"),
        },
        _ => return None,
    };
    match op {
        // The embedded compare is Sandy Bridge's; Gen7 branches carry no
        // compare operands [ext: Mesa brw_eu_emit.c gen6_IF].
        Opcode::If | Opcode::While if p == IsaGen::Gen6 => {
            a.cmod = (true, "003 lines 98550-98557, 101434-101441")
        }
        Opcode::Else => a.pred = (false, "003 line 98003"),
        Opcode::Endif => a.pred = (false, "003 line 98076"),
        Opcode::Wait => a.pred = (false, "003 line 101298"),
        Opcode::Sel => a.cmod = (true, "003 lines 100740-100749"),
        Opcode::Movi => a.cmod = (false, "003 line 99518"),
        Opcode::Frc => a.sat = (false, "003 line 98314"),
        _ => {}
    }
    Some(a)
}

pub(super) fn check(c: &mut Check<'_>) {
    let op = c.inst.opcode;
    let m = op.mnemonic();
    let Some(a) = allowed(op, c.p) else {
        extra(c);
        return;
    };
    if c.inst.pred_ctrl != PredCtrl::None && !a.pred.0 {
        c.push(
            Rule::PredicationNotAllowed,
            None,
            Severity::Error,
            Some(a.pred.1),
            format!("{m} is predicated; {m} takes no predicate"),
        );
    }
    if c.inst.saturate && !a.sat.0 {
        c.push(
            Rule::SaturateNotAllowed,
            None,
            Severity::Error,
            Some(a.sat.1),
            format!("{m} with .sat; {m} takes no saturation"),
        );
    }
    // mov with a condition modifier: the Sandy Bridge page forbids it, yet
    // compilers emit it on every generation [ext: Mesa brw_fs emits mov.nz].
    if c.inst.cond_mod != CondMod::None && !a.cmod.0 {
        c.push(
            Rule::CondModNotAllowed,
            None,
            Severity::Error,
            Some(a.cmod.1),
            format!("{m} with a condition modifier; {m} takes none"),
        );
    } else if c.inst.cond_mod != CondMod::None && op == Opcode::Mov && !facts::gen4(c.p) {
        c.push(
            Rule::CondModNotAllowed,
            None,
            Severity::Warning,
            Some("003 line 99412 against [ext: Mesa brw_fs.cpp, which emits mov.nz]"),
            "the Sandy Bridge manual allows no condition modifier on mov",
        );
    }
    if !a.srcmod.0 {
        let slots = [Operand::Src0, Operand::Src1, Operand::Src2];
        for (slot, s) in slots.iter().zip(c.inst.srcs()) {
            if let Some(Src::Reg(reg)) = s
                && (reg.negate || reg.abs)
            {
                c.push(
                    Rule::SourceModifierNotAllowed,
                    Some(*slot),
                    Severity::Error,
                    Some(a.srcmod.1),
                    format!("{m} takes no source modifiers"),
                );
            }
        }
    }
    extra(c);
}

/// Restrictions the pages state in words.
fn extra(c: &mut Check<'_>) {
    let op = c.inst.opcode;
    let g4 = facts::gen4(c.p);
    let ops = facts::operands(c.p, c.inst);
    let tys: alloc::vec::Vec<(Operand, Type)> = ops
        .srcs
        .iter()
        .filter_map(|&(s, src)| facts::src_type(src).map(|t| (s, t)))
        .collect();
    match op {
        Opcode::Sel => {
            let cmod = c.inst.cond_mod != CondMod::None && !g4;
            let pred = c.inst.pred_ctrl != PredCtrl::None;
            if !pred && !cmod {
                c.push(
                    Rule::PredicationRequired,
                    None,
                    Severity::Error,
                    Some(if g4 {
                        "000 line 13283"
                    } else {
                        "003 lines 100740-100741"
                    }),
                    format!(
                        "sel without a predicate selects nothing defined; predicate it{}",
                        if g4 {
                            ""
                        } else {
                            " or give it a condition modifier"
                        }
                    ),
                );
            }
            if cmod && pred {
                c.push(
                    Rule::PredicationNotAllowed,
                    None,
                    Severity::Error,
                    Some("003 line 100742"),
                    "sel with a condition modifier compares its sources; it takes no predicate then",
                );
            }
        }
        Opcode::Cmp | Opcode::Cmpn if c.inst.cond_mod == CondMod::None => {
            c.push(
                Rule::CondModRequired,
                None,
                Severity::Error,
                Some(if g4 {
                    "000 line 11151"
                } else {
                    "003 lines 97370, 97465"
                }),
                format!(
                    "{} needs a condition modifier (.z, .nz, .g, .ge, .l, .le, ...)",
                    op.mnemonic()
                ),
            );
        }
        Opcode::Mul => {
            let dword = tys.iter().any(|(_, t)| matches!(t, Type::D | Type::Ud))
                && !tys.iter().any(|(_, t)| t.is_float());
            let cite = if g4 {
                "000 line 12509"
            } else {
                "003 lines 99687-99689"
            };
            if dword && c.inst.saturate {
                c.push(
                    Rule::SaturateNotAllowed,
                    None,
                    Severity::Error,
                    Some(cite),
                    "mul with a dword integer source and .sat: overflow and sign are undefined",
                );
            }
            if dword && c.inst.cond_mod != CondMod::None {
                c.push(
                    Rule::CondModNotAllowed,
                    None,
                    Severity::Error,
                    Some(cite),
                    "mul with a dword integer source and a condition modifier: overflow and sign are undefined",
                );
            }
        }
        Opcode::Shl if c.inst.saturate && facts::exec_type(&ops.srcs) == Some(Type::D) => {
            c.push(
                Rule::SaturateNotAllowed,
                None,
                Severity::Error,
                Some(if g4 {
                    "000 lines 13506-13508"
                } else {
                    "003 line 101157"
                }),
                "shl with .sat in dword mode is unpredictable; saturate only word shifts",
            );
        }
        Opcode::Shr => {
            if let Some((_, Src::Reg(r))) = ops.srcs.first() {
                let unsigned = matches!(r.ty, Type::Ud | Type::Uw | Type::Ub);
                let cite = if g4 {
                    "000 line 13554"
                } else {
                    "003 lines 101227-101228"
                };
                if unsigned && (r.negate || r.abs) {
                    c.push(
                        Rule::SourceModifierNotAllowed,
                        Some(Operand::Src0),
                        Severity::Error,
                        Some(cite),
                        "shr with an unsigned src0 takes no source modifier",
                    );
                } else if !unsigned && !r.abs {
                    c.push(
                        Rule::SourceModifierNotAllowed,
                        Some(Operand::Src0),
                        Severity::Warning,
                        Some(cite),
                        format!(
                            "shr takes unsigned sources; a signed src0 (:{}) needs (abs)",
                            r.ty.name()
                        ),
                    );
                }
            }
        }
        Opcode::Jmpi if !c.inst.no_mask => {
            c.push(
                Rule::NoMaskRequired,
                None,
                Severity::Error,
                Some(if g4 {
                    "000 line 11963"
                } else {
                    "003 line 98631"
                }),
                "jmpi must carry {NoMask}",
            );
        }
        Opcode::Mach if !g4 && !c.inst.acc_wr_ctrl => {
            c.push(
                Rule::AccWriteRequired,
                None,
                Severity::Error,
                Some("003 lines 99049-99051"),
                "mach must set AccWrCtrl ({AccWrEn}): the high half builds up in the accumulator",
            );
        }
        Opcode::Lrp if c.inst.cond_mod == CondMod::O => {
            c.push(
                Rule::CondModNotAllowed,
                None,
                Severity::Error,
                Some("003 line 98882"),
                "lrp with the overflow condition modifier (.o), which it does not support",
            );
        }
        _ => {}
    }
    if matches!(c.inst.body, Body::Alu(_)) {
        super::forms::check(c, &ops, &tys);
    }
}
