//! Constructors and value helpers for building instructions by hand
//! (assemblers, tests) and reading immediates (interpreters).

use super::{Addr, Dst, Imm, RegFile, RegSrc, Region, Src, Type, Vacant, WRITEMASK_XYZW, arf};

impl Dst {
    /// A direct Align1 destination `file nr.subnr<hstride>:ty`.
    pub const fn new(file: RegFile, nr: u8, subnr: u8, ty: Type, hstride: u8) -> Self {
        Dst {
            file,
            ty,
            addr: Addr::Direct { nr, subnr },
            hstride,
            writemask: WRITEMASK_XYZW,
        }
    }

    /// A GRF destination with stride 1.
    pub const fn grf(nr: u8, subnr: u8, ty: Type) -> Self {
        Dst::new(RegFile::Grf, nr, subnr, ty, 1)
    }

    /// The null register.
    pub const fn null(ty: Type) -> Self {
        Dst::new(RegFile::Arf, arf::NULL, 0, ty, 1)
    }
}

impl RegSrc {
    /// A direct Align1 source with the given region.
    pub const fn new(file: RegFile, nr: u8, subnr: u8, ty: Type, region: Region) -> Self {
        RegSrc {
            file,
            ty,
            addr: Addr::Direct { nr, subnr },
            region,
            negate: false,
            abs: false,
        }
    }

    /// A GRF source `rN.S<v;w,h>:ty`.
    pub const fn grf(nr: u8, subnr: u8, ty: Type, vstride: u8, width: u8, hstride: u8) -> Self {
        RegSrc::new(
            RegFile::Grf,
            nr,
            subnr,
            ty,
            Region::Align1 {
                vstride,
                width,
                hstride,
            },
        )
    }

    /// The null register with a scalar region.
    pub const fn null(ty: Type) -> Self {
        RegSrc::grf(0, 0, ty, 0, 1, 0).with_file(RegFile::Arf)
    }

    const fn with_file(mut self, file: RegFile) -> Self {
        self.file = file;
        self
    }
}

impl Src {
    /// A register source.
    pub const fn reg(r: RegSrc) -> Self {
        Src::Reg(r)
    }

    /// The vacant slot assemblers write next to an immediate src0: ARF with
    /// the immediate's type.
    pub const fn vacant(file: RegFile, ty: Type) -> Self {
        Src::Vacant(Vacant { file, ty })
    }
}

impl Imm {
    pub const fn ud(v: u32) -> Self {
        Imm {
            ty: Type::Ud,
            bits: v as u64,
        }
    }
    pub const fn d(v: i32) -> Self {
        Imm {
            ty: Type::D,
            bits: v as u32 as u64,
        }
    }
    /// Word immediate, replicated into both halves as the manuals require.
    pub const fn uw(v: u16) -> Self {
        Imm {
            ty: Type::Uw,
            bits: (v as u64) << 16 | v as u64,
        }
    }
    /// Word immediate, replicated into both halves.
    pub const fn w(v: i16) -> Self {
        let h = v as u16 as u64;
        Imm {
            ty: Type::W,
            bits: h << 16 | h,
        }
    }
    pub const fn f(v: f32) -> Self {
        Imm {
            ty: Type::F,
            bits: v.to_bits() as u64,
        }
    }
    /// A 64-bit float (only `dim` on Gen7.5 takes one).
    pub const fn df(v: f64) -> Self {
        Imm {
            ty: Type::Df,
            bits: v.to_bits(),
        }
    }
    /// Packed vector immediate of type V, UV or VF.
    pub const fn vector(ty: Type, packed: u32) -> Self {
        Imm {
            ty,
            bits: packed as u64,
        }
    }

    /// The low 32 bits.
    pub const fn u32(self) -> u32 {
        self.bits as u32
    }

    /// Element `i` of the value as the interpreter sees it, widened to 32
    /// bits: scalars ignore `i`; V/UV give the 4-bit element sign- or
    /// zero-extended; VF gives the float bits of the 8-bit element.
    pub const fn element(self, i: u8) -> u32 {
        let b = self.bits as u32;
        match self.ty {
            Type::V => (((b >> ((i & 7) * 4)) << 28) as i32 >> 28) as u32,
            Type::Uv => (b >> ((i & 7) * 4)) & 0xF,
            Type::Vf => vf_to_f32_bits(((b >> ((i & 3) * 8)) & 0xFF) as u8),
            Type::W => (b as u16 as i16) as i32 as u32,
            Type::Uw => b & 0xFFFF,
            _ => b,
        }
    }
}

/// Expands an 8-bit restricted float (sign, 3-bit exponent with bias 3,
/// 4-bit mantissa; 0 and 0x80 are zeros) to F32 bits: exponent + 124.
pub const fn vf_to_f32_bits(v: u8) -> u32 {
    let sign = ((v as u32) & 0x80) << 24;
    if v & 0x7F == 0 {
        return sign;
    }
    let exp = (((v as u32) >> 4) & 7) + 124;
    let mant = ((v as u32) & 0xF) << 19;
    sign | exp << 23 | mant
}

#[cfg(test)]
mod tests {
    use super::super::{Compression, GroupCtrl, Opcode, Swizzle};
    use super::*;

    #[test]
    fn mnemonics_are_unique_and_parse_back() {
        for (i, op) in Opcode::ALL.iter().enumerate() {
            assert_eq!(Opcode::from_mnemonic(op.mnemonic()), Some(*op));
            assert!(
                Opcode::ALL[i + 1..]
                    .iter()
                    .all(|o| o.mnemonic() != op.mnemonic())
            );
        }
        assert_eq!(Opcode::from_mnemonic("MOV"), None);
    }

    #[test]
    fn immediates() {
        assert_eq!(Imm::w(-3).bits, 0xFFFD_FFFD);
        assert_eq!(Imm::uw(0x1234).bits, 0x1234_1234);
        assert_eq!(Imm::w(-3).element(5), -3i32 as u32);
        assert_eq!(Imm::d(-1).u32(), u32::MAX);
        assert_eq!(Imm::f(1.5).element(0), 1.5f32.to_bits());
        // V: signed nibbles, element 0 lowest (000 lines 14013: 0x01234567:v
        // gives 7,6,5,...); UV: unsigned nibbles.
        let v = Imm::vector(Type::V, 0x0123_45F7);
        assert_eq!(v.element(0), 7);
        assert_eq!(v.element(1), (-1i32) as u32);
        assert_eq!(v.element(7), 0);
        assert_eq!(Imm::vector(Type::Uv, 0xF000_0000).element(7), 15);
        // VF: 0x30 = 1.0 (exponent 3 = bias), 0x38 = 1.5, 0xB0 = -1.0, 0x80 = -0.
        let vf = Imm::vector(Type::Vf, 0x80B0_3830);
        assert_eq!(f32::from_bits(vf.element(0)), 1.0);
        assert_eq!(f32::from_bits(vf.element(1)), 1.5);
        assert_eq!(f32::from_bits(vf.element(2)), -1.0);
        assert_eq!(vf.element(3), 0x8000_0000);
        assert_eq!(f32::from_bits(vf_to_f32_bits(0x7F)), 31.0);
        assert_eq!(f32::from_bits(vf_to_f32_bits(0x01)), 0.1328125); // 2^-3 * (1 + 1/16)
        assert_eq!(Imm::df(2.0).bits, 2.0f64.to_bits());
    }

    #[test]
    fn channel_groups_and_swizzles() {
        let q = |qtr, nib| GroupCtrl::Quarter { qtr, nib };
        assert_eq!(q(1, false).first_channel(8), 8);
        assert_eq!(q(3, false).first_channel(8), 24);
        assert_eq!(q(2, false).first_channel(16), 16);
        assert_eq!(q(1, true).first_channel(4), 12);
        assert_eq!(q(0, false).first_channel(32), 0);
        assert_eq!(
            GroupCtrl::Compression(Compression::SecHalf).first_channel(8),
            8
        );
        assert_eq!(
            GroupCtrl::Compression(Compression::Compressed).first_channel(16),
            0
        );
        let s = Swizzle(0x39); // .yzwx
        assert_eq!(
            [
                s.component(0),
                s.component(1),
                s.component(2),
                s.component(3)
            ],
            [1, 2, 3, 0]
        );
        assert_eq!(Swizzle::XYZW.component(2), 2);
    }

    #[test]
    fn constructors() {
        let d = Dst::grf(3, 4, Type::F);
        assert_eq!(
            (d.file, d.addr, d.hstride, d.writemask),
            (RegFile::Grf, Addr::Direct { nr: 3, subnr: 4 }, 1, 0xF)
        );
        let n = RegSrc::null(Type::Ud);
        assert_eq!(
            (n.file, n.region),
            (
                RegFile::Arf,
                Region::Align1 {
                    vstride: 0,
                    width: 1,
                    hstride: 0
                }
            )
        );
        assert_eq!(
            Src::vacant(RegFile::Arf, Type::Ud),
            Src::Vacant(Vacant {
                file: RegFile::Arf,
                ty: Type::Ud
            })
        );
        assert_eq!(
            Dst::null(Type::Ud).addr,
            Addr::Direct {
                nr: arf::NULL,
                subnr: 0
            }
        );
        assert_eq!(Type::Df.size(), 8);
        assert!(Type::Vf.is_float() && !Type::V.is_float());
    }
}
