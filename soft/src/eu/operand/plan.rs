//! From decoded operands to plans: the byte offset of every channel's
//! element, computed once per instruction with the manuals' region formula
//! (000 lines 8319-8340; 003 lines 91550-91570).

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{self as isa, Addr, RegFile, Region, Type};

use super::{DstKind, DstPlan, Indirect, MAX_CH, Mods, SrcKind, SrcPlan};
use crate::eu::thread::layout::{ACC_BASE, Span, register_span};

/// What the region formula needs to know about the instruction.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub platform: IsaGen,
    /// Channels to plan (the execution size).
    pub exec: usize,
    pub align16: bool,
    /// Three-source form: sub-registers in dwords, vertical stride 0 means
    /// "replicate the starting channel" (003 lines 94424-94431).
    pub three_src: bool,
    /// Ivy Bridge DF: DF operands are regioned with 4-byte elements and
    /// doubled parameters (001 lines 660-663).
    pub df_half: bool,
}

type Res<T> = Result<T, &'static str>;

/// Size of an element in the region formula.
fn region_esize(sh: &Shape, ty: Type) -> usize {
    if sh.df_half && ty == Type::Df {
        4
    } else {
        usize::from(ty.size())
    }
}

/// The span and absolute start of a direct operand.
fn direct_start(sh: &Shape, file: RegFile, nr: u8, subnr: u8) -> Res<(Span, usize)> {
    let (span, at) = register_span(sh.platform, file, nr).ok_or("reserved register number")?;
    Ok((span, span.base + at + usize::from(subnr)))
}

fn check(span: Span, off: usize, size: usize) -> Res<u16> {
    if off + size > span.base + span.len {
        return Err("region leaves the register file");
    }
    u16::try_from(off).map_err(|_| "offset out of range")
}

/// Plans a source slot. `Vacant` slots (the unused second source of a
/// one-source instruction after an immediate, branch fields) are absent.
pub fn src(sh: &Shape, s: &isa::Src) -> Res<SrcPlan> {
    match s {
        isa::Src::Vacant(_) => Ok(SrcPlan::ABSENT),
        isa::Src::Imm(imm) => Ok(imm_plan(imm)),
        isa::Src::Reg(r) => reg_src(sh, r),
    }
}

/// Immediates: scalars, and the vector forms expanded per channel: V and
/// UV to 8 words (000 lines 8229-8258; 003 lines 91270-91300), VF to 4
/// floats (000 lines 6930-6976).
pub fn imm_plan(imm: &isa::Imm) -> SrcPlan {
    let mut vals = [0u64; 8];
    let (ty, period) = match imm.ty {
        Type::V => (Type::W, 8),
        Type::Uv => (Type::Uw, 8),
        Type::Vf => (Type::F, 4),
        t => (t, 1),
    };
    for (i, v) in vals.iter_mut().enumerate().take(period) {
        *v = match imm.ty {
            Type::Df => imm.bits,
            // A word immediate uses its low 16 bits (software replicates it
            // into both halves, 000 lines 8229-8240).
            Type::W | Type::Uw | Type::V | Type::Uv => u64::from(imm.element(i as u8) & 0xFFFF),
            _ => u64::from(imm.element(i as u8)),
        };
    }
    SrcPlan {
        ty,
        mods: Mods::default(),
        acc: false,
        kind: SrcKind::Imm {
            vals,
            period: period as u8,
        },
    }
}

fn reg_src(sh: &Shape, r: &isa::RegSrc) -> Res<SrcPlan> {
    if r.file == RegFile::Imm {
        // An IMM-file register slot only appears in branch placeholders.
        return Ok(SrcPlan::ABSENT);
    }
    let mods = Mods {
        abs: r.abs,
        neg: r.negate,
    };
    let acc = r.file == RegFile::Arf && is_acc(sh.platform, r.addr);
    let esize = region_esize(sh, r.ty);
    let read = usize::from(r.ty.size());
    let kind = match r.addr {
        Addr::Direct { nr, subnr } => {
            let (span, base) = direct_start(sh, r.file, nr, subnr)?;
            let mut off = [0u16; MAX_CH];
            for (c, o) in off.iter_mut().enumerate().take(sh.exec) {
                let at = match r.region {
                    Region::Align1 {
                        vstride,
                        width,
                        hstride,
                    } => {
                        let w = usize::from(width.max(1));
                        base + (c / w) * usize::from(vstride) * esize
                            + (c % w) * usize::from(hstride) * esize
                    }
                    Region::Align16 { vstride, swizzle } => {
                        if sh.three_src && vstride == 0 {
                            base
                        } else {
                            let comp = usize::from(swizzle.component(c as u8));
                            base + (c / 4) * usize::from(vstride) * esize + comp * esize
                        }
                    }
                    Region::VxH { .. } => return Err("Vx1/VxH region needs indirect addressing"),
                };
                *o = check(span, at, read)?;
            }
            SrcKind::Direct { off }
        }
        Addr::Indirect { addr_subnr, offset } => {
            let (span, _) = register_span(sh.platform, r.file, 0)
                .ok_or("indirect into a file without registers")?;
            if r.file == RegFile::Arf {
                return Err("indirect addressing of an architecture register");
            }
            let (vstride, width, hstride, per_row, swizzle) = match r.region {
                Region::Align1 {
                    vstride,
                    width,
                    hstride,
                } => (vstride, width, hstride, false, None),
                Region::VxH { width, hstride } => (0, width, hstride, true, None),
                Region::Align16 { vstride, swizzle } => (vstride, 4, 1, false, Some(swizzle.0)),
            };
            SrcKind::Indirect(Indirect {
                span,
                addr_subnr,
                imm: offset,
                vstride,
                width: width.max(1),
                hstride,
                per_row,
                swizzle,
            })
        }
    };
    Ok(SrcPlan {
        ty: r.ty,
        mods,
        acc,
        kind,
    })
}

fn is_acc(p: IsaGen, addr: Addr) -> bool {
    match addr {
        Addr::Direct { nr, .. } => {
            baregpu_isa::tables::for_platform(p).arf_kind(nr)
                == Some(baregpu_isa::tables::ArfKind::Accumulator)
        }
        Addr::Indirect { .. } => false,
    }
}

/// Plans a destination. `null` gives a plan that stores nothing.
pub fn dst(sh: &Shape, d: &isa::Dst) -> Res<DstPlan> {
    let null = d.file == RegFile::Arf
        && matches!(d.addr, Addr::Direct { nr, .. } if nr & 0xF0 == isa::arf::NULL);
    if null {
        return Ok(DstPlan {
            ty: d.ty,
            acc: false,
            kind: DstKind::Null,
        });
    }
    let esize = region_esize(sh, d.ty);
    let write = usize::from(d.ty.size());
    // Align16 destinations are contiguous (HorzStride must be 1, 003 lines
    // 94772-94776); so are three-source destinations.
    let stride = if sh.align16 {
        1
    } else {
        usize::from(d.hstride)
    };
    let kind = match d.addr {
        Addr::Direct { nr, subnr } => {
            let (span, base) = direct_start(sh, d.file, nr, subnr)?;
            let mut off = [0u16; MAX_CH];
            for (c, o) in off.iter_mut().enumerate().take(sh.exec) {
                *o = check(span, base + c * stride * esize, write)?;
            }
            DstKind::Direct { off }
        }
        Addr::Indirect { addr_subnr, offset } => {
            if d.file == RegFile::Arf {
                return Err("indirect addressing of an architecture register");
            }
            let (span, _) = register_span(sh.platform, d.file, 0)
                .ok_or("indirect into a file without registers")?;
            DstKind::Indirect(Indirect {
                span,
                addr_subnr,
                imm: offset,
                vstride: 0,
                width: sh.exec.min(MAX_CH) as u8,
                hstride: stride as u8,
                per_row: false,
                swizzle: None,
            })
        }
    };
    let acc = d.file == RegFile::Arf && is_acc(sh.platform, d.addr);
    Ok(DstPlan {
        ty: d.ty,
        acc,
        kind,
    })
}

/// The accumulator element (in units of `size` bytes, 0-based from acc0)
/// a flat offset inside the accumulator falls in.
pub fn acc_slot(off: usize, size: usize) -> usize {
    off.saturating_sub(ACC_BASE) / size.max(1)
}
