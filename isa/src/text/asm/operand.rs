//! Operand placement: a written operand becomes a destination, a source
//! or an immediate of the slot it fills, with the defaults of that slot.

use alloc::string::String;

use super::super::parse::{ImmVal, Line, Opnd, RegAddr, RegOp, Target};
use super::{Refs, Res, Which, err};
use crate::inst::{
    Addr, Dst, Imm, RegFile, RegSrc, Region, Src, Swizzle, Type, WRITEMASK_XYZW, arf,
};

/// The null register as IGA writes an unused source: scalar in Align1,
/// `<0>.xxxx` in Align16.
pub(super) const fn null_src(ty: Type, a16: bool) -> RegSrc {
    let region = if a16 {
        Region::Align16 {
            vstride: 0,
            swizzle: Swizzle::XXXX,
        }
    } else {
        Region::Align1 {
            vstride: 0,
            width: 1,
            hstride: 0,
        }
    };
    RegSrc::new(RegFile::Arf, arf::NULL, 0, ty, region)
}

/// `<0;1,0>`: the region of operands the syntax writes without one.
pub(super) const SCALAR: Region = Region::Align1 {
    vstride: 0,
    width: 1,
    hstride: 0,
};

/// What operand placement needs of the line: where to report errors and
/// whether operands are Align16.
pub(super) struct Ctx<'a> {
    pub line: usize,
    pub l: &'a Line,
    pub a16: bool,
}

impl Ctx<'_> {
    pub(super) fn e<T>(&self, col: usize, msg: impl Into<String>) -> Res<T> {
        err(self.line, col, msg)
    }

    pub(super) fn operand(&self, k: usize, what: &str) -> Res<&Opnd> {
        match self.l.operands.get(k) {
            Some(o) => Ok(o),
            None => self.e(
                self.l.mnemonic_col,
                alloc::format!("{} needs {what}", self.l.mnemonic),
            ),
        }
    }

    fn addr(&self, r: &RegOp, ty: Type) -> Res<Addr> {
        Ok(match r.addr {
            RegAddr::Direct { nr, sub } => {
                let subnr = match sub {
                    None => 0,
                    Some((v, true)) => v,
                    Some((v, false)) => v.saturating_mul(u32::from(ty.size())),
                };
                match u8::try_from(subnr) {
                    Ok(subnr) if subnr < 32 => Addr::Direct { nr, subnr },
                    _ => return self.e(r.col, "sub-register out of range"),
                }
            }
            RegAddr::Indirect { addr_subnr, offset } => Addr::Indirect { addr_subnr, offset },
        })
    }

    fn ty(&self, r: &RegOp) -> Res<Type> {
        match r.ty {
            Some(t) => Ok(t),
            None => self.e(r.col, "missing type, e.g. :f"),
        }
    }

    pub(super) fn reg<'o>(&self, o: &'o Opnd) -> Res<&'o RegOp> {
        match o {
            Opnd::Reg(r) => Ok(r),
            Opnd::Imm { col, .. }
            | Opnd::Target { col, .. }
            | Opnd::Pop { col, .. }
            | Opnd::Message { col, .. } => self.e(*col, "expected a register"),
        }
    }

    pub(super) fn dst(&self, o: &Opnd, three: bool) -> Res<(Dst, bool)> {
        let r = self.reg(o)?;
        if r.negate || r.abs {
            return self.e(r.col, "a destination takes no source modifier");
        }
        let ty = self.ty(r)?;
        let hstride = match &r.region {
            None => 1,
            Some((v, false)) if v.len() == 1 && matches!(v[0], 0 | 1 | 2 | 4) => v[0],
            Some(_) => return self.e(r.col, "a destination region is <0>, <1>, <2> or <4>"),
        };
        let writemask = match &r.swizzle {
            None => WRITEMASK_XYZW,
            Some(_) if !self.a16 && !three => {
                return self.e(r.col, "a write mask needs Align16");
            }
            Some(s) if s == "none" => 0,
            Some(s) => s.bytes().fold(0, |m, b| {
                m | 1 << (b"xyzw".iter().position(|&c| c == b).unwrap_or(0))
            }),
        };
        let addr = self.addr(r, ty)?;
        Ok((
            Dst {
                file: r.file,
                ty,
                addr,
                hstride,
                writemask,
            },
            r.sat,
        ))
    }

    fn swizzle(&self, r: &RegOp) -> Swizzle {
        let s = r.swizzle.as_deref().unwrap_or("xyzw");
        let comp = |b: u8| b"xyzw".iter().position(|&c| c == b).unwrap_or(0) as u8;
        let bytes = s.as_bytes();
        let mut v = 0u8;
        for i in 0..4 {
            let b = bytes.get(i).or(bytes.last()).copied().unwrap_or(b'x');
            v |= comp(b) << (2 * i);
        }
        Swizzle(v)
    }

    /// A source. `three`: Some(is_last) for three-source operands.
    pub(super) fn src(&self, o: &Opnd, three: Option<bool>, default: Region) -> Res<Src> {
        match o {
            Opnd::Imm { value, ty, col } => self.imm(*value, *ty, *col).map(Src::Imm),
            Opnd::Target { col, .. } | Opnd::Pop { col, .. } | Opnd::Message { col, .. } => {
                self.e(*col, "expected a register or a typed immediate")
            }
            Opnd::Reg(r) => {
                if r.sat {
                    return self.e(r.col, "(sat) belongs to the destination");
                }
                let ty = self.ty(r)?;
                let addr = self.addr(r, ty)?;
                let bad = || self.e(r.col, "bad region for this operand");
                let region = match (&r.region, three) {
                    (None, _) => default,
                    (Some((v, semi)), Some(last)) => {
                        match (v.as_slice(), *semi, &r.swizzle, last) {
                            ([2, 1], true, None, false) | ([1], false, None, true) => {
                                Region::Align16 {
                                    vstride: 4,
                                    swizzle: Swizzle::XYZW,
                                }
                            }
                            ([0, 0], true, None, false) | ([0], false, None, true) => {
                                Region::Align16 {
                                    vstride: 0,
                                    swizzle: Swizzle::XYZW,
                                }
                            }
                            ([vs], false, Some(_), _) => Region::Align16 {
                                vstride: *vs,
                                swizzle: self.swizzle(r),
                            },
                            _ => return bad(),
                        }
                    }
                    (Some((v, semi)), None) if self.a16 => match (v.as_slice(), *semi) {
                        ([vs], false) => Region::Align16 {
                            vstride: *vs,
                            swizzle: self.swizzle(r),
                        },
                        _ => return bad(),
                    },
                    (Some((v, semi)), None) => match (v.as_slice(), *semi) {
                        ([vs, w, h], true) => Region::Align1 {
                            vstride: *vs,
                            width: *w,
                            hstride: *h,
                        },
                        ([w, h], false) if matches!(addr, Addr::Indirect { .. }) => Region::VxH {
                            width: *w,
                            hstride: *h,
                        },
                        _ => return bad(),
                    },
                };
                if r.swizzle.is_some() && !matches!(region, Region::Align16 { .. }) {
                    return self.e(r.col, "a swizzle needs Align16");
                }
                Ok(Src::Reg(RegSrc {
                    file: r.file,
                    ty,
                    addr,
                    region,
                    negate: r.negate,
                    abs: r.abs,
                }))
            }
        }
    }

    /// A typed immediate. An integer must fit the type's bits read either
    /// signed or unsigned (`:w`/`:uw` -2^15..2^16-1, or the replicated
    /// dword the encoding holds, `0x00020002:w`; `:d`/`:ud` and the bit
    /// patterns of `:f`, `:v`, `:uv`, `:vf` -2^31..2^32-1, `:df`
    /// -2^63..2^64-1); iga64 truncates larger values silently, we refuse.
    fn imm(&self, v: ImmVal, ty: Type, col: usize) -> Res<Imm> {
        let fit = |bits: u32, x: i128| {
            if (-(1i128 << (bits - 1))..(1i128 << bits)).contains(&x) {
                Ok(x as u64 & (u64::MAX >> (64 - bits)))
            } else {
                self.e(
                    col,
                    alloc::format!(
                        "{x} does not fit :{} ({} to {})",
                        ty.name(),
                        -(1i128 << (bits - 1)),
                        (1i128 << bits) - 1
                    ),
                )
            }
        };
        Ok(match (v, ty) {
            // A literal beyond the type's range would become an infinity
            // silently: refuse it (infinities and NaNs are written as bit
            // patterns, `0x7f800000:f`, as the disassembler prints them).
            (ImmVal::Float(f), Type::F) if !(f as f32).is_finite() => {
                return self.e(col, "the float does not fit :f (about 3.4e38 at most)");
            }
            (ImmVal::Float(f), Type::Df) if !f.is_finite() => {
                return self.e(col, "the float does not fit :df (about 1.8e308 at most)");
            }
            (ImmVal::Float(f), Type::F) => Imm::f(f as f32),
            (ImmVal::Float(f), Type::Df) => Imm::df(f),
            (ImmVal::Float(_), _) => return self.e(col, "a float immediate needs :f or :df"),
            (ImmVal::Int(x), Type::Df) => Imm {
                ty,
                bits: fit(64, x)?,
            },
            // The dword the encoding holds, both halves equal, also reads.
            (ImmVal::Int(x), Type::W | Type::Uw)
                if x > 0xFFFF && x <= 0xFFFF_FFFF && x >> 16 == x & 0xFFFF =>
            {
                Imm { ty, bits: x as u64 }
            }
            (ImmVal::Int(x), Type::W | Type::Uw) => {
                let h = fit(16, x)?;
                Imm {
                    ty,
                    bits: h << 16 | h,
                }
            }
            (ImmVal::Int(x), Type::Ub | Type::B) => {
                return self.e(
                    col,
                    alloc::format!("no byte immediates ({x}:{})", ty.name()),
                );
            }
            (ImmVal::Int(x), _) => Imm {
                ty,
                bits: fit(32, x)?,
            },
        })
    }

    pub(super) fn target(&self, k: usize, refs: &mut Refs, which: Which) -> Res<i32> {
        match self.operand(k, "a branch target")? {
            Opnd::Target {
                target: Target::Bytes(b),
                col,
            } => i32::try_from(*b).or_else(|_| self.e(*col, "branch offset out of range")),
            Opnd::Target {
                target: Target::Label(name),
                col,
            } => {
                refs.push((which, name.clone(), *col));
                Ok(0)
            }
            Opnd::Reg(RegOp { col, .. })
            | Opnd::Imm { col, .. }
            | Opnd::Pop { col, .. }
            | Opnd::Message { col, .. } => self.e(*col, "expected a label or a byte offset"),
        }
    }
}
