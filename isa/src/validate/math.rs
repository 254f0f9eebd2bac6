//! Gen6+ `math` (003 lines 99124-99339): GRF operands, function types,
//! regions, execution size and source modifiers.

use super::facts::{self, is_int_div};
use super::{Check, Operand, Rule, Severity};
use crate::generation::IsaGen;
use crate::inst::{AccessMode, Addr, Body, Math, MathFn, RegFile, Region, Src, Type};
use crate::tables::{self, code_of};
use alloc::format;

pub(super) fn check(c: &mut Check<'_>) {
    let Body::Math(m) = &c.inst.body else { return };
    let f = m.function;
    if code_of(&tables::for_platform(c.p).math_fns, f).is_none() {
        c.error(
            Rule::MathFunction,
            None,
            format!("math function {f:?} does not exist on {}", c.p),
        );
    }
    operands(c, m);
    types(c, m);
    exec_size(c, f);
    regions(c, m);
    modifiers(c, m);
    if c.p == IsaGen::Gen6 && c.inst.access_mode == AccessMode::Align16 {
        c.warn(
            Rule::MathAccessMode,
            None,
            "math in Align16: the manual lists Align16, but Sandy Bridge math ignores the \
                 write mask and swizzles; use Align1",
        );
    }
}

/// GRF operands, direct, src1 null for one-source functions.
fn operands(c: &mut Check<'_>, m: &Math) {
    let used = facts::math_srcs(m.function);
    let d = &m.dst;
    if d.file != RegFile::Grf || !matches!(d.addr, Addr::Direct { .. }) {
        c.error(
            Rule::MathOperands,
            Some(Operand::Dst),
            format!(
                "math writes {}; math operands are directly addressed GRF registers",
                facts::dst_text(c.p, d)
            ),
        );
    } else if m.function == MathFn::IntDivQuotientRemainder
        && let Addr::Direct { nr, .. } = d.addr
        && nr >= 127
    {
        c.error(
            Rule::RegisterNumber,
            Some(Operand::Dst),
            format!("the remainder goes to r{}, past r127", u32::from(nr) + 1),
        );
    }
    for (i, (slot, s)) in [(Operand::Src0, &m.src0), (Operand::Src1, &m.src1)]
        .into_iter()
        .enumerate()
    {
        let ok = if i < used {
            matches!(s, Src::Reg(r) if r.file == RegFile::Grf && matches!(r.addr, Addr::Direct { .. }))
        } else {
            matches!(s, Src::Reg(r) if facts::is_null(r.file, r.addr))
        };
        if !ok {
            let want = if i < used {
                "a directly addressed GRF register"
            } else {
                "the null register, as the function reads one source"
            };
            c.error(
                Rule::MathOperands,
                Some(slot),
                format!(
                    "math {slot} is {}; it must be {want}",
                    facts::src_text(c.p, s)
                ),
            );
        }
    }
}

fn types(c: &mut Check<'_>, m: &Math) {
    let used = facts::math_srcs(m.function);
    let srcs = [(Operand::Src0, &m.src0), (Operand::Src1, &m.src1)];
    let tys: alloc::vec::Vec<(Operand, Type)> = srcs
        .iter()
        .take(used)
        .filter_map(|(s, src)| facts::src_type(src).map(|t| (*s, t)))
        .collect();
    let int_div = is_int_div(m.function);
    for (slot, t) in &tys {
        let ok = if int_div {
            matches!(t, Type::D | Type::Ud)
        } else {
            *t == Type::F
        };
        if !ok {
            c.error(
                Rule::MathTypes,
                Some(*slot),
                format!(
                    "math.{:?} source is :{}; {}",
                    m.function,
                    t.name(),
                    if int_div {
                        "INT DIV takes d or ud"
                    } else {
                        "the float functions take f"
                    }
                ),
            );
        }
    }
    if int_div && tys.iter().any(|(_, t)| *t == Type::D) && tys.iter().any(|(_, t)| *t == Type::Ud)
    {
        c.error(
            Rule::MathTypes,
            None,
            "INT DIV mixes d and ud sources; use one signedness for both",
        );
    }
}

/// Gen6: SIMD8 only; Gen7+: SIMD16 except INT DIV.
fn exec_size(c: &mut Check<'_>, f: MathFn) {
    let exec = c.inst.exec_size;
    let (max, cite) = if c.p == IsaGen::Gen6 {
        (8, "003 line 99333")
    } else if is_int_div(f) {
        (
            8,
            "[ext: Mesa brw_fs.cpp, 'Integer division is limited to SIMD8 on all generations']",
        )
    } else {
        (
            16,
            "[ext: Mesa brw_fs.cpp, 'SIMD16 is only allowed on Gfx7+']",
        )
    };
    if exec > max {
        c.push(
            Rule::OpcodeExecSize,
            None,
            Severity::Error,
            Some(cite),
            format!("math with ExecSize {exec}; this function runs at most {max} channels here"),
        );
    }
}

/// Align1 regions: stride 1, rows as wide as the execution (Gen7: or two
/// packed rows of 8), the same offset as the destination.
fn regions(c: &mut Check<'_>, m: &Math) {
    if c.inst.access_mode != AccessMode::Align1 {
        return;
    }
    let d = &m.dst;
    if d.hstride != 1 {
        c.error(
            Rule::MathRegion,
            Some(Operand::Dst),
            format!(
                "math destination {} needs stride 1",
                facts::dst_text(c.p, d)
            ),
        );
    }
    let dst_sub = match d.addr {
        Addr::Direct { subnr, .. } => Some(subnr),
        Addr::Indirect { .. } => None,
    };
    let exec = c.inst.exec_size;
    let used = facts::math_srcs(m.function);
    for (slot, s) in [(Operand::Src0, &m.src0), (Operand::Src1, &m.src1)]
        .into_iter()
        .take(used)
    {
        let Src::Reg(r) = s else { continue };
        if facts::is_scalar(r) {
            continue;
        }
        let Region::Align1 {
            vstride,
            width,
            hstride,
        } = r.region
        else {
            continue;
        };
        // Gen7 SIMD16 math reads two packed rows of 8 [ext: Mesa emits
        // <8;8,1> sources for SIMD16 math on Gen7].
        let rows_ok =
            width == exec || (c.p >= IsaGen::Gen7 && exec == 16 && width == 8 && vstride == 8);
        if hstride != 1 || !rows_ok {
            c.error(
                Rule::MathRegion,
                Some(slot),
                format!(
                    "math {slot} {} must be packed: HorzStride 1 and Width equal to ExecSize {exec} \
                     (or a scalar)",
                    facts::src_text(c.p, s)
                ),
            );
        }
        if let (Addr::Direct { subnr, .. }, Some(ds)) = (r.addr, dst_sub)
            && subnr != ds
        {
            c.error(
                Rule::MathRegion,
                Some(slot),
                format!(
                    "math {slot} starts at byte {subnr} but the destination at byte {ds}; both \
                     start at the same offset"
                ),
            );
        }
    }
}

/// Gen6 ignores source modifiers on math; INT DIV takes none on Gen7.
fn modifiers(c: &mut Check<'_>, m: &Math) {
    let cite = if c.p == IsaGen::Gen6 {
        "[ext: Mesa brw_eu_emit.c, 'Source modifiers are ignored for extended math instructions on Gen6']"
    } else if is_int_div(m.function) {
        "[ext: Mesa brw_eu_validate.c, Bspec 6647 'INT DIV function does not support source modifiers']"
    } else {
        return;
    };
    for (slot, s) in [(Operand::Src0, &m.src0), (Operand::Src1, &m.src1)] {
        if let Src::Reg(r) = s
            && (r.negate || r.abs)
        {
            c.push(
                Rule::SourceModifierNotAllowed,
                Some(slot),
                Severity::Error,
                Some(cite),
                format!(
                    "math {slot} has a source modifier, which this math function does not apply"
                ),
            );
        }
    }
}
