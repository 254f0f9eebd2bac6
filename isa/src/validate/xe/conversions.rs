//! Destination rules of type conversions on Gen12.5, from Mesa's
//! `brw_eu_validate.c` `general_restrictions_based_on_operand_types`
//! (which applies them to Xe-HPG): a packed byte destination only for a
//! raw `mov`; a destination narrower than the execution type strided and
//! aligned to it; integer <-> HF conversions DWord-strided and aligned.
//! iga64 -p=12p71 accepts all three, so they are warnings.

use alloc::format;

use crate::inst::{Addr, Body, Opcode, Src, Type};
use crate::validate::{Check, Operand, Rule, Severity};

const CITE: &str = "[ext: Mesa brw_eu_validate.c general_restrictions_based_on_operand_types]";

/// Mesa `execution_type_for_type`: bytes and words execute as words.
fn exec_of(t: Type) -> Type {
    match t {
        Type::B | Type::Ub | Type::W | Type::Uw | Type::V | Type::Uv => Type::W,
        Type::D | Type::Ud => Type::D,
        Type::Q | Type::Uq => Type::Q,
        Type::Vf => Type::F,
        t => t,
    }
}

/// Mesa `execution_type` for the one- and two-source forms: a one-source
/// HF runs as its destination, mixed F/HF as F, otherwise the wider of
/// Q, D, W (in that order) before DF.
fn execution_type(dst: Type, srcs: &[Type]) -> Type {
    let mixed = |a: Type, b: Type| matches!((a, b), (Type::F, Type::Hf) | (Type::Hf, Type::F));
    match srcs {
        [] => dst,
        [a] if exec_of(*a) == Type::Hf => dst,
        [a] => exec_of(*a),
        [a, b, ..] => {
            let (a, b) = (exec_of(*a), exec_of(*b));
            if mixed(a, b) || mixed(a, dst) || mixed(b, dst) {
                Type::F
            } else if a == b {
                a
            } else if a == Type::Q || b == Type::Q {
                Type::Q
            } else if a == Type::D || b == Type::D {
                Type::D
            } else if a == Type::W || b == Type::W {
                Type::W
            } else {
                Type::Df
            }
        }
    }
}

/// Mixed float: HF (or BF) with F among the destination and sources.
fn mixed_float(dst: Type, srcs: &[Type]) -> bool {
    let all = || core::iter::once(dst).chain(srcs.iter().copied());
    all().any(|t| t == Type::F) && all().any(|t| matches!(t, Type::Hf | Type::Bf))
}

pub(super) fn check(c: &mut Check) {
    let i = c.inst;
    let Body::Alu(a) = &i.body else { return };
    if i.exec_size == 1 || matches!(i.opcode, Opcode::Nop | Opcode::Illegal | Opcode::Jmpi) {
        return;
    }
    let Addr::Direct { subnr, .. } = a.dst.addr else {
        return;
    };
    let one = matches!(
        i.opcode,
        Opcode::Mov
            | Opcode::Not
            | Opcode::Bfrev
            | Opcode::Cbit
            | Opcode::Fbl
            | Opcode::Fbh
            | Opcode::Frc
            | Opcode::Lzd
            | Opcode::Rndd
            | Opcode::Rnde
            | Opcode::Rndz
            | Opcode::Rndu
    );
    let ty = |s: &Src| match s {
        Src::Reg(r) => Some((r.ty, r.negate || r.abs)),
        Src::Imm(m) => Some((m.ty, false)),
        Src::Vacant(_) => None,
    };
    let mut srcs = alloc::vec::Vec::new();
    let mut modified = false;
    let both = [a.src0, a.src1];
    for s in &both[..if one { 1 } else { 2 }] {
        if let Some((t, m)) = ty(s) {
            srcs.push(t);
            modified |= m;
        }
    }
    let dst = a.dst.ty;
    let stride = u32::from(a.dst.hstride);
    let dsize = u32::from(dst.size());
    let subnr = u32::from(subnr);
    let byte_dst = matches!(dst, Type::B | Type::Ub);
    // Mesa inst_is_raw_move: a mov between same-size integer types (or
    // the same type) without modifiers or saturation.
    let raw_move = i.opcode == Opcode::Mov
        && !i.saturate
        && !modified
        && srcs.first().is_some_and(|s| {
            *s == dst || (!s.is_float() && !dst.is_float() && s.size() == dst.size())
        });
    let warn = |c: &mut Check, what: alloc::string::String| {
        c.push(
            Rule::XeConversion,
            Some(Operand::Dst),
            Severity::Warning,
            Some(CITE),
            what,
        );
    };
    if byte_dst && stride == 1 {
        if !raw_move {
            warn(
                c,
                format!(
                    "a packed byte destination ({} is not a raw mov; iga64 accepts it)",
                    i.opcode.mnemonic()
                ),
            );
        }
        return;
    }
    let exec = execution_type(dst, &srcs);
    let esize = u32::from(exec.size());
    let int = |t: Type| !t.is_float();
    let int_hf =
        (dst == Type::Hf && srcs.iter().any(|t| int(*t))) || (int(dst) && srcs.contains(&Type::Hf));
    if int_hf {
        if stride * dsize != 4 || subnr % 4 != 0 {
            warn(
                c,
                format!(
                    ":{} <- :{}: a conversion between integer and HF needs a DWord-strided, DWord-aligned destination (iga64 accepts it)",
                    dst.name(),
                    srcs.iter()
                        .map(|t| t.name())
                        .collect::<alloc::vec::Vec<_>>()
                        .join("/")
                ),
            );
        }
        return;
    }
    if mixed_float(dst, &srcs) || esize <= dsize || (byte_dst && raw_move) {
        return;
    }
    if stride * dsize != esize {
        warn(
            c,
            format!(
                ":{} from a {}-byte execution type: the destination stride must be {} (iga64 accepts it)",
                dst.name(),
                esize,
                esize / dsize
            ),
        );
    } else if subnr % esize != 0 && !(byte_dst && subnr % esize == 1) {
        warn(
            c,
            format!(
                ":{} at byte {subnr}: the destination must be aligned to the {esize}-byte execution type (iga64 accepts it)",
                dst.name()
            ),
        );
    }
}
