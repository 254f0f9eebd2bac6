//! mov, not, and, or, xor, shr, shl, asr.

use baregpu_isa::inst::{Opcode, Type};

use super::{FOut, IOut};
use crate::eu::decoded::Op;
use crate::eu::operand::MAX_CH;

/// `mov` in the float domain: the (modified, flushed unless raw) source
/// passes unchanged (000 lines 12198-12241).
pub fn mov_f(a: &[u32; MAX_CH], n: usize, out: &mut FOut) {
    for c in 0..n {
        out.bits[c] = a[c];
        out.wide[c] = f64::from(f32::from_bits(a[c]));
    }
}

/// Bitwise and shift instructions on integer lanes. Shifts use the low 5
/// bits of src1 (000 lines 13468-13561, 10934-10992; 003 lines
/// 101097-101233); shr is a logical shift of the source's 32 bits, asr an
/// arithmetic one of its value.
pub fn int(op: &Op, a: &[i64; MAX_CH], b: &[i64; MAX_CH], n: usize, out: &mut IOut) {
    let ty0 = op.src[0].ty;
    // Bits of the execution width: shr of a word operand shifts its 16 (or
    // 32, when the execution type is dword) bits.
    let width = exec_bits(op);
    let mask: u64 = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    for c in 0..n {
        let (x, y) = (a[c], b[c]);
        let sh = (y & 0x1F) as u32;
        out.v[c] = match op.inst.opcode {
            Opcode::Not => !x,
            Opcode::And => x & y,
            Opcode::Or => x | y,
            Opcode::Xor => x ^ y,
            Opcode::Shl => x.wrapping_shl(sh),
            Opcode::Shr => {
                // Logical: the source bits as unsigned (a signed src0 should
                // carry (abs), 000 line 13554).
                let u = (x as u64) & mask;
                let _ = ty0;
                (u >> sh) as i64
            }
            Opcode::Asr => x >> sh,
            _ => x,
        };
    }
}

/// Bits of the execution type (32 for dword, 16 for word execution).
fn exec_bits(op: &Op) -> u32 {
    let any_dword = op
        .src
        .iter()
        .any(|s| !s.is_absent() && matches!(s.ty, Type::D | Type::Ud | Type::F));
    if any_dword { 32 } else { 16 }
}
