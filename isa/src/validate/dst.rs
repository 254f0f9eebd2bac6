//! Destination region rules of Align1 instructions: stride, alignment to
//! the execution type, register crossing, and how a destination may pair
//! with sources spanning two registers (000 lines 8450-8466; 003 lines
//! 91733-91786).

use alloc::format;
use alloc::vec::Vec;

use super::facts::{self, Operands, REG_BYTES};
use super::region::{direct_align1, is_packed_word};
use super::{Check, Rule};
use crate::generation::IsaGen;
use crate::inst::{AccessMode, Addr, Dst, Opcode, RegFile, RegSrc, Src, Type};

pub(super) fn check(c: &mut Check<'_>, ops: &Operands<'_>) {
    let Some(d) = ops.dst else { return };
    if d.file == RegFile::Imm
        || facts::is_null(d.file, d.addr)
        || c.inst.access_mode == AccessMode::Align16
    {
        return;
    }
    let exec = facts::region_exec(c.inst);
    let text = facts::dst_text(c.p, d);
    if d.hstride == 0 {
        c.error(
            Rule::DstHorzStrideZero,
            Some(super::Operand::Dst),
            format!(
                "{text}: a destination HorzStride of 0 is not allowed (not even with ExecSize \
                 1); use <1> or wider"
            ),
        );
        return;
    }
    alignment(c, ops, d, exec, &text);
    let Some(addrs) = facts::dst_addrs(c.p, exec, d, AccessMode::Align1) else {
        return;
    };
    let size = facts::elem_size(c.p, d.ty);
    let Some((first, last)) = facts::reg_range(&addrs, size) else {
        return;
    };
    if !crossing(c, &addrs, first, last, &text) {
        return;
    }
    let sources: Vec<(super::Operand, RegSrc, Vec<u32>)> = ops
        .srcs
        .iter()
        .filter_map(|&(slot, s)| match s {
            Src::Reg(r) if direct_align1(r) && !facts::is_null(r.file, r.addr) => {
                facts::src_addrs(c.p, exec, r).map(|a| (slot, *r, a))
            }
            _ => None,
        })
        .collect();
    if first == last {
        oword_split(c, &sources, &addrs, &text);
    } else if !facts::gen4(c.p) {
        register_source(c, &sources, d, &addrs, first, &text);
    }
}

/// A raw move: `mov` without conversion or modifiers (000 lines 8586-8593);
/// UB and B count as the same bits [ext: Mesa brw_eu_validate.c compares
/// signed types].
fn raw_move(c: &Check<'_>, ops: &Operands<'_>, d: &Dst) -> bool {
    let same =
        |a: Type, b: Type| a == b || matches!((a, b), (Type::Ub, Type::B) | (Type::B, Type::Ub));
    c.inst.opcode == Opcode::Mov
        && !c.inst.saturate
        && matches!(ops.srcs.first(), Some((_, Src::Reg(r))) if !r.negate && !r.abs && same(r.ty, d.ty))
}

/// Rules 10.1-10.3, 10.5 (Gen6: 10.6).
fn alignment(c: &mut Check<'_>, ops: &Operands<'_>, d: &Dst, exec: u32, text: &str) {
    let Some(et) = facts::exec_type(&ops.srcs) else {
        return;
    };
    // Ivy Bridge DF regions count 4-byte halves (001 lines 660-663); their
    // alignment rules are not in the manuals at hand.
    if c.p == IsaGen::Gen7 && (et == Type::Df || d.ty == Type::Df) {
        return;
    }
    let ets = facts::elem_size(c.p, et);
    let dsize = facts::elem_size(c.p, d.ty);
    let byte = dsize == 1;
    if byte && raw_move(c, ops, d) {
        // Raw byte moves may sit on any byte (000 lines 8457, 8589-8592).
        return;
    }
    let dst = Some(super::Operand::Dst);
    if let Addr::Direct { subnr, .. } = d.addr {
        let sub = u32::from(subnr);
        // The odd-byte relaxation (10.5) is missing on the 965 (line 8486).
        let relaxed = byte && c.p != IsaGen::Gen4;
        if sub % ets != 0 && !(relaxed && sub % ets == 1) {
            let also = if relaxed { " or one byte above it" } else { "" };
            c.error(
                Rule::DstAlignment,
                dst,
                format!(
                    "{text} starts at byte {sub} of its register; the execution type is {} \
                     ({ets} bytes), so the destination must start on a multiple of {ets}{also}",
                    et.name()
                ),
            );
        }
    }
    if exec > 1 && u32::from(d.hstride) * dsize < ets {
        c.error(
            Rule::DstStride,
            dst,
            format!(
                "{text}: stride {} x {dsize} bytes is narrower than the {ets}-byte execution type \
                 ({}); use <{}> or wider",
                d.hstride,
                et.name(),
                ets / dsize
            ),
        );
    }
    if byte && d.hstride == 1 && exec > 1 {
        c.error(
            Rule::PackedByteDst,
            dst,
            format!(
                "{text} is a packed-byte destination, which only a raw mov (same type, no \
                 modifiers) may write; use <2> or a raw mov"
            ),
        );
    }
}

/// Rule 9: a destination stays in one register; Gen6+ allow two registers
/// written evenly. Returns whether the region is sound enough to go on.
fn crossing(c: &mut Check<'_>, addrs: &[u32], first: u32, last: u32, text: &str) -> bool {
    let dst = Some(super::Operand::Dst);
    if last > first + 1 {
        c.error(
            Rule::DstCrossing,
            dst,
            format!(
                "{text} covers {} registers; a destination may cover at most two",
                last - first + 1
            ),
        );
        return false;
    }
    if last == first {
        return true;
    }
    if facts::gen4(c.p) {
        c.error(
            Rule::DstCrossing,
            dst,
            format!(
                "{text} crosses a register boundary; a destination stays in one register \
                 (compressed instructions write one register per half)"
            ),
        );
        return false;
    }
    let low = addrs.iter().filter(|a| **a / REG_BYTES == first).count();
    let high = addrs.len() - low;
    if low != high {
        c.error(
            Rule::DstCrossing,
            dst,
            format!(
                "{text} writes {low} elements to r{first} and {high} to r{last}; a destination \
                 covering two registers must split its elements evenly between them"
            ),
        );
        return false;
    }
    true
}

/// Rule 10.4: with a source spanning two registers, a one-register
/// destination stays in one oword or splits evenly between the two.
fn oword_split(
    c: &mut Check<'_>,
    sources: &[(super::Operand, RegSrc, Vec<u32>)],
    addrs: &[u32],
    text: &str,
) {
    let spans_two = sources.iter().any(|(_, r, a)| {
        facts::reg_range(a, facts::elem_size(c.p, r.ty)).is_some_and(|(f, l)| l > f)
    });
    if !spans_two {
        return;
    }
    let low = addrs.iter().filter(|a| **a % REG_BYTES < 16).count();
    let high = addrs.len() - low;
    if low != 0 && high != 0 && low != high {
        c.error(
            Rule::DstOwordSplit,
            Some(super::Operand::Dst),
            format!(
                "{text} puts {low} elements in the low oword and {high} in the high one while a \
                 source spans two registers; the destination must stay in one oword or split \
                 evenly"
            ),
        );
    }
}

/// Gen6 rule 10.5: each register of a two-register destination comes from
/// one source register; a one-register source must be a scalar, or packed
/// words widened to packed dwords.
fn register_source(
    c: &mut Check<'_>,
    sources: &[(super::Operand, RegSrc, Vec<u32>)],
    d: &Dst,
    addrs: &[u32],
    first: u32,
    text: &str,
) {
    for (slot, r, saddrs) in sources {
        let size = facts::elem_size(c.p, r.ty);
        let Some((sfirst, slast)) = facts::reg_range(saddrs, size) else {
            continue;
        };
        let stext = facts::src_text(c.p, &Src::Reg(*r));
        if slast == sfirst + 1 {
            let mixed = addrs
                .iter()
                .zip(saddrs)
                .any(|(da, sa)| da / REG_BYTES - first != sa / REG_BYTES - sfirst);
            if mixed {
                c.error(
                    Rule::DstRegisterSource,
                    Some(*slot),
                    format!(
                        "{stext} feeds both registers of {text} from both of its registers; each \
                         destination register must come from one source register"
                    ),
                );
            }
        } else if slast == sfirst {
            let widening = d.ty.size() == 4 && d.hstride == 1 && is_packed_word(r);
            if !facts::is_scalar(r) && !widening {
                c.error(
                    Rule::DstRegisterSource,
                    Some(*slot),
                    format!(
                        "{stext} lies in one register while {text} covers two; such a source must \
                         be a scalar or packed words widened to packed dwords"
                    ),
                );
            }
        }
    }
}
