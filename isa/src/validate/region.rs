//! Region parameters of Align1 sources, how many registers a source may
//! span, and the execution-size limit by operand type.
//!
//! Gen4 compressed instructions are checked as the native halves the
//! hardware runs (000 lines 8744-8760: "Rules and restrictions for
//! compressed instructions can be found in the Instruction Compression
//! section", line 8437); their own rules are in `compress.rs`.

use super::facts::{self, REG_BYTES};
use super::{Check, Operand, Rule, Severity};
use crate::generation::IsaGen;
use crate::inst::{AccessMode, Addr, Body, RegSrc, Region, Src, Type};
use alloc::format;

pub(super) fn check(c: &mut Check<'_>) {
    let ops = facts::operands(c.p, c.inst);
    if ops.dst.is_none() {
        return;
    }
    exec_size_limit(c, &ops);
    if matches!(c.inst.body, Body::ThreeSrc(_)) {
        // Three-source operands have their own encoding (three_src.rs);
        // only the Align16 rules apply.
        super::address::check(c, &ops);
        return;
    }
    let exec = facts::region_exec(c.inst);
    for &(slot, src) in &ops.srcs {
        let Src::Reg(r) = src else { continue };
        if facts::is_null(r.file, r.addr) {
            continue;
        }
        region_form(c, slot, r);
        match r.region {
            Region::Align1 {
                vstride,
                width,
                hstride,
            } => {
                parameters(c, slot, r, exec, vstride, width, hstride);
                span(c, slot, r, exec, vstride, width, hstride);
            }
            Region::VxH { width, .. } => {
                if u32::from(width) > exec {
                    c.error(
                        Rule::WidthAboveExecSize,
                        Some(slot),
                        format!(
                            "{}: Width {width} is larger than ExecSize {exec}; Width may not \
                             exceed the execution size",
                            facts::src_text(c.p, src)
                        ),
                    );
                }
            }
            Region::Align16 { .. } => {}
        }
    }
    super::dst::check(c, &ops);
    super::address::check(c, &ops);
}

/// The access mode decides which region form every source uses.
fn region_form(c: &mut Check<'_>, slot: Operand, r: &RegSrc) {
    let align16 = matches!(r.region, Region::Align16 { .. });
    if align16 != (c.inst.access_mode == AccessMode::Align16) {
        let mode = match c.inst.access_mode {
            AccessMode::Align1 => "Align1",
            AccessMode::Align16 => "Align16",
        };
        c.error(
            Rule::RegionForm,
            Some(slot),
            format!(
                "{} uses a region form the {mode} access mode does not have; Align1 takes \
                 <v;w,h> or <w,h> regions, Align16 <v> with a swizzle",
                facts::src_text(c.p, &Src::Reg(*r))
            ),
        );
    }
}

/// The largest type size among the destination and the sources, in the
/// units the execution-size table counts (vectors as their elements).
fn widest(c: &Check<'_>, ops: &facts::Operands<'_>) -> u32 {
    let dst = ops.dst.map_or(0, |d| facts::elem_size(c.p, d.ty));
    ops.srcs
        .iter()
        .filter_map(|(_, s)| facts::src_type(s))
        .map(|t| facts::elem_size(c.p, t))
        .fold(dst, u32::max)
}

/// Rule 1: ExecSize at most what the widest operand type allows.
fn exec_size_limit(c: &mut Check<'_>, ops: &facts::Operands<'_>) {
    let exec = u32::from(c.inst.exec_size);
    let size = widest(c, ops);
    let compressed = facts::compressed(c.inst);
    let limit = match c.p {
        IsaGen::Gen4 | IsaGen::G45 => {
            let native = if size >= 4 { 8 } else { 16 };
            if compressed { native * 2 } else { native }
        }
        IsaGen::Gen6 | IsaGen::Gen7 => {
            if size >= 4 {
                16
            } else {
                32
            }
        }
        // Haswell DF keeps 8-byte elements: ExecSize * 8 <= 64 [ext: Mesa
        // brw_eu_validate.c, "ExecSize * n must be <= 64"].
        IsaGen::Gen75 | IsaGen::Gen12_5 => match size {
            8 => 8,
            4 => 16,
            _ => 32,
        },
    };
    let unit = match size {
        8 => "qword",
        4 => "dword",
        2 => "word",
        _ => "byte",
    };
    if exec > limit {
        let extra = if facts::gen4(c.p) && !compressed && exec <= limit * 2 {
            " (compressed instructions allow twice that)"
        } else {
            ""
        };
        c.error(
            Rule::ExecSizeLimit,
            None,
            format!(
                "ExecSize {exec} is too large for {unit} operands; at most {limit} channels{extra}"
            ),
        );
    } else if c.p == IsaGen::Gen6 && exec > 16 {
        c.warn(
            Rule::ExecSizeLimit,
            None,
            format!(
                "ExecSize {exec}: Sandy Bridge's table allows 32 for words and bytes, but the Ivy \
                 Bridge change list says ExecSize 32 arrives with Gen7; use at most 16"
            ),
        );
    }
}

/// Rules 3-8 and the VertStride encoding limit.
fn parameters(
    c: &mut Check<'_>,
    slot: Operand,
    r: &RegSrc,
    exec: u32,
    vstride: u8,
    width: u8,
    hstride: u8,
) {
    let text = facts::src_text(c.p, &Src::Reg(*r));
    let (v, w, h) = (u32::from(vstride), u32::from(width), u32::from(hstride));
    if w > exec {
        c.error(
            Rule::WidthAboveExecSize,
            Some(slot),
            format!("{text}: Width {w} is larger than ExecSize {exec}; Width may not exceed the execution size"),
        );
    }
    if exec == w && h != 0 && v != w * h {
        c.error(
            Rule::VertStrideMismatch,
            Some(slot),
            format!(
                "{text}: with Width = ExecSize = {w} and HorzStride {h}, VertStride must be \
                 Width * HorzStride = {}",
                w * h
            ),
        );
    }
    if w == 1 && h != 0 {
        c.error(
            Rule::WidthOneHorzStride,
            Some(slot),
            format!("{text}: Width 1 needs HorzStride 0, as in <{v};1,0>"),
        );
    }
    if exec == 1 && w == 1 && (v != 0 || h != 0) {
        c.error(
            Rule::ScalarStrides,
            Some(slot),
            format!("{text}: ExecSize = Width = 1 needs both strides 0: write <0;1,0>"),
        );
    }
    if v == 0 && h == 0 && w != 1 {
        c.error(
            Rule::ZeroStridesWidth,
            Some(slot),
            format!("{text}: VertStride = HorzStride = 0 needs Width 1: write <0;1,0>"),
        );
    }
    // The encoding note speaks of byte, word and dword elements; 8-byte
    // (Haswell DF) elements are left to the span rules.
    let size = facts::elem_size(c.p, r.ty);
    if size <= 4 && v * size > 32 {
        c.error(
            Rule::VertStrideForType,
            Some(slot),
            format!(
                "{text}: VertStride {v} of {size}-byte elements is {} bytes; VertStride 16 is \
                 for bytes and words only, 32 for bytes only",
                v * size
            ),
        );
    }
}

/// Rules 11, 11.1, 11.2 and 13.4: how many registers a direct source
/// touches, and where its rows may cross.
fn span(
    c: &mut Check<'_>,
    slot: Operand,
    r: &RegSrc,
    exec: u32,
    vstride: u8,
    width: u8,
    hstride: u8,
) {
    let size = facts::elem_size(c.p, r.ty);
    let Some(addrs) = facts::src_addrs(c.p, exec, r) else {
        return;
    };
    let Some((first, last)) = facts::reg_range(&addrs, size) else {
        return;
    };
    let text = facts::src_text(c.p, &Src::Reg(*r));
    if last > first + 1 {
        c.error(
            Rule::SourceSpan,
            Some(slot),
            format!(
                "{text} reads {} registers with ExecSize {exec}; a source may span at most two \
                 adjacent registers",
                last - first + 1
            ),
        );
        return;
    }
    let w = u32::from(width.max(1));
    let crossing = addrs.chunks(w as usize).any(|row| {
        let start = row.first().copied().unwrap_or(0);
        let end = start + (w - 1) * u32::from(hstride) * size + size - 1;
        start / REG_BYTES != end / REG_BYTES
    });
    if crossing {
        // An error where the manual says so (Gen4); Gen6+ keep it only in
        // Mesa's validator.
        let severity = if facts::gen4(c.p) {
            Severity::Error
        } else {
            Severity::Warning
        };
        c.push(
            Rule::SourceRowCrossing,
            Some(slot),
            severity,
            None,
            format!(
                "{text}: a row of {w} elements crosses a register boundary; only VertStride may \
                 step into the next register"
            ),
        );
        return;
    }
    if facts::gen4(c.p) && slot == Operand::Src1 && last > first {
        let bytes = u32::from(vstride) * size;
        if bytes != REG_BYTES {
            c.error(
                Rule::Src1CrossingStride,
                Some(slot),
                format!(
                    "{text} crosses into the next register with a VertStride of {bytes} bytes; \
                     src1 may cross only with a VertStride of 32 bytes"
                ),
            );
        }
    }
}

/// Whether a region is packed (`<8;8,1>`, `<16;16,1>`, `<1;1,0>`).
pub(super) fn is_packed(vstride: u8, width: u8, hstride: u8) -> bool {
    vstride == width
        && if vstride == 1 {
            hstride == 0
        } else {
            hstride == 1
        }
}

/// Whether an Align1 source is packed words.
pub(super) fn is_packed_word(r: &RegSrc) -> bool {
    matches!(r.ty, Type::W | Type::Uw)
        && matches!(r.region, Region::Align1 { vstride, width, hstride } if is_packed(vstride, width, hstride))
}

/// Whether a direct source is a register operand the span rules cover.
pub(super) fn direct_align1(r: &RegSrc) -> bool {
    matches!(r.addr, Addr::Direct { .. }) && matches!(r.region, Region::Align1 { .. })
}
