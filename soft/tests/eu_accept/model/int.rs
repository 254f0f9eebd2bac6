//! Integer execution: every source is an integer. Values are exact
//! (i128); the hardware keeps "extra precision" so the signed execution
//! type does not change results (000 lines 8423-8434), up to 33 bits
//! (000 line 7734).

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{CondMod, Opcode, Type};

use super::{Ctx, Expect, INT33, Lane, Val, Want, int_to_dst};
use crate::eu_accept::combos::Combo;

fn i(v: Val) -> i128 {
    match v {
        Val::I(x) => x,
        _ => 0,
    }
}

/// The 32-bit pattern of a D/UD source.
fn u(v: Val) -> u32 {
    i(v) as u32
}

/// cmp/cmpn on integers: the sign and zero of src0 - src1 (000 lines
/// 9094-9150; cmpn is cmp for integers, 000 lines 11167-11224).
pub fn cond(cm: CondMod, d: i128) -> bool {
    match cm {
        CondMod::Z => d == 0,
        CondMod::Nz => d != 0,
        CondMod::G => d > 0,
        CondMod::Ge => d >= 0,
        CondMod::L => d < 0,
        CondMod::Le => d <= 0,
        _ => false,
    }
}

pub fn int(combo: &Combo, c: &Ctx, l: &Lane) -> Expect {
    use Opcode as O;
    let [a, b, z] = l.srcs;
    let (x, y) = (i(a), i(b));
    let t0 = combo.srcs.first().map(|s| s.ty);
    let t1 = combo.srcs.get(1).map(|s| s.ty);
    let dword = |t: Option<Type>| matches!(t, Some(Type::D | Type::Ud));
    let v: i128 = match combo.op {
        // f16to32: the half in the low word to F, exact (001 lines 665,
        // 1333).
        O::F16to32 => {
            let f = super::f16_to_f32(x as u16);
            return Expect::new(super::float_to_dst(f, combo.dst, c));
        }
        O::Mov => x,
        // sel: the predicate picks src0 (000 lines 13244-13294).
        O::Sel => {
            if l.flag {
                x
            } else {
                y
            }
        }
        O::Not => !x,
        O::And => x & y,
        O::Or => x | y,
        O::Xor => x ^ y,
        // Shifts use src1[4:0] (000 lines 13468-13561; 10934-10992).
        O::Shl => x << (y & 31),
        O::Shr => x >> (y & 31),
        O::Asr => x >> (y & 31),
        O::Add => x + y,
        O::Avg => (x + y + 1) >> 1,
        // A dword-by-dword mul uses the low 16 bits of src0 (000 line
        // 12454; 003 lines 99598-99600) or, on Gen7, of src1 (001 lines
        // 667-668). Taking them unsigned is what makes mul+mach give the
        // 64-bit product (000 lines 12178-12184).
        O::Mul if dword(t0) && dword(t1) => {
            if c.p >= IsaGen::Gen7 {
                x * (y & 0xFFFF)
            } else {
                (x & 0xFFFF) * y
            }
        }
        O::Mul => x * y,
        O::Mac => x * y + i(l.acc),
        // mul acc0 + mach: the high dword of the 64-bit product (000 lines
        // 12133-12197).
        O::Mach => (x * y) >> 32,
        // cmp/cmpn: the destination's LSB is the flag (000 line 11151).
        O::Cmp | O::Cmpn => {
            let d = x - y;
            if !(INT33.0..=INT33.1).contains(&d) {
                return Expect::new(Want::Undef("compare beyond 33 bits"));
            }
            let f = cond(c.cond, d);
            let dst = if combo.dst.is_float() {
                Want::Undef("cmp into a float destination defines only the flag")
            } else {
                // Only bit 0 is defined; the runner compares bit 0.
                Want::Bits(u64::from(f))
            };
            return Expect {
                flag: Some(f),
                ..Expect::new(dst)
            };
        }
        // lzd: leading zeros of the UD pattern, 32 for 0 (000 lines
        // 12031-12087).
        O::Lzd => i128::from(u(a).leading_zeros()),
        // Gen7 bit operations (001 lines 646-650 name them; semantics
        // [ext: Mesa brw_eu.c, brw_fs_nir.cpp]).
        O::Fbh => {
            let bits = u(a);
            let v = if t0 == Some(Type::D) && (bits as i32) < 0 {
                !bits
            } else {
                bits
            };
            if v == 0 {
                0xFFFF_FFFF
            } else {
                i128::from(v.leading_zeros())
            }
        }
        O::Fbl => {
            let bits = u(a);
            if bits == 0 {
                0xFFFF_FFFF
            } else {
                i128::from(bits.trailing_zeros())
            }
        }
        O::Cbit => i128::from(u(a).count_ones()),
        O::Bfrev => i128::from(u(a).reverse_bits()),
        // bfi1: ((1 << width) - 1) << offset, width src0[4:0], offset
        // src1[4:0].
        O::Bfi1 => {
            let width = u(a) & 31;
            let off = u(b) & 31;
            i128::from((((1u64 << width) - 1) << off) as u32)
        }
        // bfi2: (src0 & src1) | (!src0 & src2).
        O::Bfi2 => i128::from((u(a) & u(b)) | (!u(a) & u(z))),
        // bfe: width src0[4:0], offset src1[4:0], from src2; sign-extended
        // for D.
        O::Bfe => {
            let width = u(a) & 31;
            let off = u(b) & 31;
            let val = u(z);
            let signed = combo.srcs.get(2).map(|s| s.ty) == Some(Type::D);
            if width + off > 32 {
                return Expect::new(Want::Undef("bfe past bit 31 [ext: Mesa brw_fs_nir.cpp]"));
            }
            if width == 0 {
                0
            } else {
                let up = val << (32 - width - off);
                if signed {
                    i128::from((up as i32) >> (32 - width))
                } else {
                    i128::from(up >> (32 - width))
                }
            }
        }
        // addc/subb: the low 32 bits of the UD sum/difference (the carry
        // goes to acc0).
        O::Addc => i128::from(u(a).wrapping_add(u(b))),
        O::Subb => i128::from(u(a).wrapping_sub(u(b))),
        // sad2: sums of absolute byte differences over channel pairs; odd
        // channels undefined (000 lines 13141-13189). sada2 adds the
        // accumulator (000 lines 13190-13243).
        O::Sad2 | O::Sada2 => {
            if l.channel % 2 == 1 {
                return Expect::new(Want::Undef("sad2 odd channels (000 lines 13160-13170)"));
            }
            let s = (x - y).abs() + (i(l.next[0]) - i(l.next[1])).abs();
            if combo.op == O::Sada2 {
                s + i(l.acc)
            } else {
                s
            }
        }
        // Three-source integer forms other than bfe/bfi2 are not defined.
        O::Mad | O::Lrp => {
            return Expect::new(Want::Undef(
                "mad/lrp are float operations (003 lines 99110, 98876)",
            ));
        }
        O::Frc
        | O::Rndd
        | O::Rndu
        | O::Rnde
        | O::Rndz
        | O::Dp2
        | O::Dp3
        | O::Dp4
        | O::Dph
        | O::Line
        | O::Pln => {
            return Expect::new(Want::Undef("a float operation given integer operands"));
        }
        _ => {
            return Expect::new(Want::Undef("not modelled"));
        }
    };
    // mach's result is the high dword as its own type.
    let v = if combo.op == Opcode::Mach {
        if combo.dst == Type::D {
            i128::from(v as i32)
        } else {
            i128::from(v as u32)
        }
    } else {
        v
    };
    Expect::new(int_to_dst(v, combo.dst, c))
}
