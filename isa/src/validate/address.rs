//! Register-indirect addressing and Align16 operands: which operands may
//! use several address sub-registers, their alignment, device errata, and
//! the 16-byte origins, VertStride codes and strides of Align16.

use super::facts::{self, Operands};
use super::{Check, Operand, Rule};
use crate::generation::IsaGen;
use crate::inst::{AccessMode, Addr, Body, RegFile, RegSrc, Region, Src};
use alloc::format;

pub(super) fn check(c: &mut Check<'_>, ops: &Operands<'_>) {
    let exec = facts::region_exec(c.inst);
    for &(slot, src) in &ops.srcs {
        let Src::Reg(r) = src else { continue };
        indirect_source(c, slot, r, exec);
        if let Region::Align16 { vstride, .. } = r.region {
            align16_source(c, slot, r, vstride, exec);
        }
    }
    if let Some(d) = ops.dst {
        if let Addr::Indirect { addr_subnr, offset } = d.addr {
            device_errata(c, Operand::Dst, addr_subnr, offset, d.ty.size());
        }
        let three_src = matches!(c.inst.body, Body::ThreeSrc(_));
        if c.inst.access_mode == AccessMode::Align16 && d.file != RegFile::Imm && !three_src {
            let origin = match d.addr {
                Addr::Direct { subnr, .. } => i32::from(subnr),
                Addr::Indirect { offset, .. } => i32::from(offset),
            };
            if origin % 16 != 0 {
                c.error(
                    Rule::Align16Origin,
                    Some(Operand::Dst),
                    format!(
                        "{} starts {origin} bytes into its register; Align16 operands start on \
                         16 bytes",
                        facts::dst_text(c.p, d)
                    ),
                );
            }
            if !facts::gen4(c.p) && d.hstride != 1 {
                c.error(
                    Rule::Align16DstStride,
                    Some(Operand::Dst),
                    format!(
                        "Align16 destination HorzStride is {}; hardware needs it programmed as 1",
                        d.hstride
                    ),
                );
            }
        }
    }
    align16_exec_size(c, ops);
}

fn indirect_source(c: &mut Check<'_>, slot: Operand, r: &RegSrc, exec: u32) {
    let Addr::Indirect { addr_subnr, offset } = r.addr else {
        return;
    };
    device_errata(c, slot, addr_subnr, offset, r.ty.size());
    if c.p == IsaGen::Gen4 && slot == Operand::Src1 {
        c.warn(
            Rule::IndirectSrc1Device,
            Some(slot),
            format!(
                "{} is register-indirect; the 965G/G35 cannot address src1 indirectly (GM965 \
                 can)",
                facts::src_text(c.p, &Src::Reg(*r))
            ),
        );
    }
    let Region::VxH { width, .. } = r.region else {
        return;
    };
    let text = facts::src_text(c.p, &Src::Reg(*r));
    if slot != Operand::Src0 {
        c.error(
            Rule::IndirectSingleIndex,
            Some(slot),
            format!(
                "{text} uses one address sub-register per row; only src0 may, other operands \
                 take a single index (r[a0.N,off]<v;w,h>)"
            ),
        );
        return;
    }
    let indices = exec / u32::from(width.max(1));
    let start = u32::from(addr_subnr);
    if indices > 8 || start % indices.max(1) != 0 || start + indices > 8 {
        c.error(
            Rule::AddressGroup,
            Some(slot),
            format!(
                "{text} needs {indices} address sub-registers from a0.{start}; a group of N \
                 sub-registers starts on a multiple of N and there are only 8 (a0.0-a0.7)"
            ),
        );
    }
    if c.p == IsaGen::Gen4 && width == 1 && indices == 2 && start == 6 {
        c.error(
            Rule::IndirectDevice,
            Some(slot),
            format!("{text}: on the 965 a two-index VxH region may not start at a0.6"),
        );
    }
}

/// GM965 erratum 13.6: a0.7 with a negative offset on byte data.
fn device_errata(c: &mut Check<'_>, slot: Operand, addr_subnr: u8, offset: i16, size: u8) {
    if c.p == IsaGen::Gen4 && addr_subnr == 7 && offset < 0 && size == 1 {
        c.warn(
            Rule::IndirectDevice,
            Some(slot),
            format!(
                "r[a0.7,{offset}] on byte data: the GM965 cannot use a0.7 with a negative \
                 offset for bytes"
            ),
        );
    }
}

fn align16_source(c: &mut Check<'_>, slot: Operand, r: &RegSrc, vstride: u8, exec: u32) {
    let text = facts::src_text(c.p, &Src::Reg(*r));
    // Haswell adds VertStride 2 [ext: Mesa brw_eu_validate.c].
    let ok = vstride == 0 || vstride == 4 || (c.p == IsaGen::Gen75 && vstride == 2);
    if !ok {
        c.error(
            Rule::Align16VertStride,
            Some(slot),
            format!("{text}: Align16 VertStride must be 0 or 4"),
        );
    }
    if matches!(c.inst.body, Body::ThreeSrc(_)) {
        return;
    }
    let origin = match r.addr {
        Addr::Direct { subnr, .. } => i32::from(subnr),
        Addr::Indirect { offset, .. } => i32::from(offset),
    };
    if origin % 16 != 0 {
        c.error(
            Rule::Align16Origin,
            Some(slot),
            format!(
                "{text} starts {origin} bytes into its register; Align16 operands start on 16 \
                 bytes"
            ),
        );
        return;
    }
    if !facts::gen4(c.p) || facts::is_null(r.file, r.addr) {
        return;
    }
    let size = facts::elem_size(c.p, r.ty);
    let range = facts::src_addrs(c.p, exec, r).and_then(|a| facts::reg_range(&a, size));
    if let Some((first, last)) = range
        && last > first
    {
        c.error(
            Rule::Align16SourceSpan,
            Some(slot),
            format!(
                "{text} reads two registers with ExecSize {exec}; an Align16 source lies within \
                 one register"
            ),
        );
    }
}

/// Gen6/Gen7: SIMD16 Align16 on dword operands.
fn align16_exec_size(c: &mut Check<'_>, ops: &Operands<'_>) {
    if !matches!(c.p, IsaGen::Gen6 | IsaGen::Gen7)
        || c.inst.access_mode != AccessMode::Align16
        || c.inst.exec_size <= 8
    {
        return;
    }
    let dword = ops.dst.is_some_and(|d| d.ty.size() >= 4)
        || ops
            .srcs
            .iter()
            .any(|(_, s)| facts::src_type(s).is_some_and(|t| t.size() >= 4));
    if dword {
        c.error(
            Rule::Align16ExecSize,
            None,
            format!(
                "ExecSize {} in Align16 on dword operands; split it into two SIMD8 \
                 instructions (Haswell is the first to run SIMD16 Align16 on dwords)",
                c.inst.exec_size
            ),
        );
    }
}
