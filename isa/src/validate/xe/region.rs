//! The general region rules of the one- and two-source forms on Gen12.5.

use alloc::format;

use super::{GRF, src_span};
use crate::inst::{Addr, Dst, RegFile, Region, Src};
use crate::validate::{Check, Rule, Severity};

/// Where the general region rules come from on Gen12.5: the Gen6 text
/// (003), which Mesa's `brw_eu_validate.c`
/// `general_restrictions_on_region_parameters` applies to every generation
/// it validates, Xe-HPG included; the two-register span is 64 bytes there.
const REGION_CITE: &str = "003 lines 91722-91731, 91749-91754, 91788, 91798; \
    [ext: Mesa brw_eu_validate.c general_restrictions_on_region_parameters, all generations]";

/// The general region rules for the one- and two-source forms (jumps and
/// three-source operands have their own encodings and are left out).
pub(super) fn regions(c: &mut Check, dst: &Dst, srcs: &[Src; 2]) {
    use crate::validate::Operand;
    let exec = u32::from(c.inst.exec_size);
    let is_null = |file: RegFile, addr: Addr| {
        file == RegFile::Arf && matches!(addr, Addr::Direct { nr: 0, .. })
    };
    let err = |c: &mut Check, rule, at, what: alloc::string::String| {
        c.push(rule, at, Severity::Error, Some(REGION_CITE), what);
    };
    if dst.hstride == 0 && !is_null(dst.file, dst.addr) {
        err(
            c,
            Rule::DstHorzStrideZero,
            Some(Operand::Dst),
            "destination HorzStride 0; it must be 1, 2 or 4".into(),
        );
    }
    for (k, s) in srcs.iter().enumerate() {
        let Src::Reg(r) = s else { continue };
        if is_null(r.file, r.addr) {
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
        let slot = if k == 0 { Operand::Src0 } else { Operand::Src1 };
        let (v, w, h) = (u32::from(vstride), u32::from(width), u32::from(hstride));
        let region = format!("<{v};{w},{h}>");
        if w > exec {
            err(
                c,
                Rule::WidthAboveExecSize,
                Some(slot),
                format!("{region}: Width {w} is above ExecSize {exec}"),
            );
        }
        if exec == w && h != 0 && v != w * h {
            err(
                c,
                Rule::VertStrideMismatch,
                Some(slot),
                format!(
                    "{region}: with ExecSize = Width and HorzStride {h}, VertStride must be {}",
                    w * h
                ),
            );
        }
        // These two are warnings here: iga64 -p=12p71 accepts both (a
        // scalar `<1;1,0>` is common in its output), Mesa refuses them.
        if w == 1 && h != 0 {
            c.push(
                Rule::WidthOneHorzStride,
                Some(slot),
                Severity::Warning,
                Some(REGION_CITE),
                format!("{region}: Width 1 needs HorzStride 0 (iga64 accepts it)"),
            );
        }
        if exec == 1 && w == 1 && (v != 0 || h != 0) {
            c.push(
                Rule::ScalarStrides,
                Some(slot),
                Severity::Warning,
                Some(REGION_CITE),
                format!("{region}: ExecSize = Width = 1 needs both strides 0 (iga64 accepts it)"),
            );
        }
        if v == 0 && h == 0 && w != 1 {
            err(
                c,
                Rule::ZeroStridesWidth,
                Some(slot),
                format!("{region}: both strides 0 need Width 1"),
            );
        }
        if let Some((start, end)) = src_span(s, exec)
            && (end - 1) / GRF - start / GRF >= 2
        {
            err(
                c,
                Rule::SourceSpan,
                Some(slot),
                format!(
                    "{region} from byte {} spans {} registers; at most 2",
                    start % GRF,
                    (end - 1) / GRF - start / GRF + 1
                ),
            );
        }
    }
}
