//! lzd (all generations) and the Gen7 bit instructions fbh, fbl, cbit,
//! bfrev, bfe, bfi1, bfi2. The Gen7 volume lists them (001 lines 646-650)
//! but its reference pages are missing; their semantics are from the
//! public compiler that emits them [ext: Mesa src/intel/compiler/
//! brw_fs_nir.cpp (nir_op_ufind_msb/ifind_msb/find_lsb/bit_count/
//! bitfield_reverse/ubfe/ibfe/bfm/bfi) and the matching nir_opcodes.py
//! definitions].

use baregpu_isa::inst::{Opcode, Type};

use super::IOut;
use crate::eu::decoded::Op;
use crate::eu::operand::MAX_CH;

pub fn int(
    op: &Op,
    a: &[i64; MAX_CH],
    b: &[i64; MAX_CH],
    c: &[i64; MAX_CH],
    n: usize,
    out: &mut IOut,
) {
    let ty0 = op.src[0].ty;
    let signed2 = matches!(op.src[2].ty, Type::D);
    for k in 0..n {
        let x = a[k] as u32;
        out.v[k] = match op.inst.opcode {
            // Leading zeros of the dword, 32 for zero (000 lines 12031-12087).
            Opcode::Lzd => i64::from(x.leading_zeros()),
            // First bit set from the MSB (0 = bit 31); for D the first bit
            // that differs from the sign; none: 0xFFFFFFFF.
            Opcode::Fbh => {
                let v = if ty0 == Type::D && (x as i32) < 0 {
                    !x
                } else {
                    x
                };
                if v == 0 {
                    i64::from(u32::MAX)
                } else {
                    i64::from(v.leading_zeros())
                }
            }
            // Lowest set bit, 0xFFFFFFFF for zero.
            Opcode::Fbl => {
                if x == 0 {
                    i64::from(u32::MAX)
                } else {
                    i64::from(x.trailing_zeros())
                }
            }
            // Set bits of the source element.
            Opcode::Cbit => {
                let bits = u32::from(op.src[0].ty.size()) * 8;
                let m = if bits >= 32 {
                    u32::MAX
                } else {
                    (1u32 << bits) - 1
                };
                i64::from((x & m).count_ones())
            }
            Opcode::Bfrev => i64::from(x.reverse_bits()),
            // bfe width, offset, value: the field of `width` bits at
            // `offset` (sign-extended when the value is D); a field past
            // bit 31 is the value shifted down.
            Opcode::Bfe => {
                let width = (a[k] & 0x1F) as u32;
                let offset = (b[k] & 0x1F) as u32;
                let v = c[k] as u32;
                if width == 0 {
                    0
                } else if width + offset >= 32 {
                    if signed2 {
                        i64::from((v as i32) >> offset)
                    } else {
                        i64::from(v >> offset)
                    }
                } else {
                    let f = (v >> offset) & ((1u32 << width) - 1);
                    if signed2 {
                        let s = 32 - width;
                        i64::from(((f << s) as i32) >> s)
                    } else {
                        i64::from(f)
                    }
                }
            }
            // bfi1: a mask of src0[4:0] ones at bit src1[4:0].
            Opcode::Bfi1 => {
                let width = (a[k] & 0x1F) as u32;
                let offset = (b[k] & 0x1F) as u32;
                i64::from(((1u32 << width) - 1) << offset)
            }
            // bfi2: insert src1 into src2 under the mask src0.
            Opcode::Bfi2 => {
                let m = x;
                i64::from((m & b[k] as u32) | (!m & c[k] as u32))
            }
            _ => a[k],
        };
    }
}
