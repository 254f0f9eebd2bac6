//! Fast paths for the dword integer instructions address arithmetic is made
//! of: add, shl, and, or and mov on D/UD operands laid out linearly (dwords
//! in a row, one dword replicated, or a scalar immediate), with no
//! modifiers, predication, saturation, condition or accumulator write
//! (which leaves out Gen4/G45 arithmetic, whose accumulator write is
//! implicit). They compute what the generic path computes: every value is
//! taken by its signedness into 64 bits and the result truncated to the
//! destination's 32 bits, which for these operations is the 32-bit
//! wrapping result whatever the signedness; a shift counts the low five
//! bits of src1 (`logic::int`).

use baregpu_isa::inst::{CondMod, Opcode, PredCtrl, Type};

use super::lanes::store;
use super::{Flat, exec};
use crate::eu::decoded::lite::{Lite, LiteFn};
use crate::eu::decoded::{Handler, Next, Op};
use crate::eu::error::ErrorKind;
use crate::eu::exec::Dom;
use crate::eu::operand::SrcKind;
use crate::eu::thread::Thread;

/// The operation a kernel computes.
const IADD: u8 = 0;
const ISHL: u8 = 1;
const IAND: u8 = 2;
const IOR: u8 = 3;
const IMOV: u8 = 4;

/// Whether `op` has an integer fast path: (operation, channels, operands).
fn fast(op: &Op) -> Option<(u8, u8, Flat)> {
    let ctl = &op.ctl;
    let dword = |ty: Type| matches!(ty, Type::D | Type::Ud);
    let shape = ctl.dom == Dom::D
        && ctl.pred == PredCtrl::None
        && ctl.cond == CondMod::None
        && !ctl.sat
        && !ctl.acc_write
        && ctl.wmask & 0xF == 0xF
        && ctl.step == 1
        && !op.dst.acc
        && dword(op.dst.ty)
        && matches!(ctl.exec, 8 | 16);
    if !shape {
        return None;
    }
    let Some((dst, 4)) = op.lin[0] else {
        return None;
    };
    let (kind, srcs) = match op.inst.opcode {
        Opcode::Add => (IADD, 2),
        Opcode::Shl => (ISHL, 2),
        Opcode::And => (IAND, 2),
        Opcode::Or => (IOR, 2),
        Opcode::Mov => (IMOV, 1),
        _ => return None,
    };
    let mut flat = Flat {
        dst,
        lanes: ctl.exec,
        ..Flat::default()
    };
    for k in 0..srcs {
        let s = &op.src[k];
        if !dword(s.ty) || s.acc || s.mods.abs || s.mods.neg {
            return None;
        }
        match (&s.kind, op.lin[k + 1]) {
            (SrcKind::Imm { vals, period: 1 }, _) => flat.imm[k] = Some(vals[0] as u32),
            (SrcKind::Direct { .. }, Some((off, stride @ (0 | 4)))) => {
                flat.src[k] = off;
                flat.scalar[k] = stride == 0;
            }
            _ => return None,
        }
    }
    Some((kind, ctl.exec, flat))
}

/// The general step's handler for `op`, if it has an integer fast path.
pub(super) fn choose(op: &Op) -> Option<Handler> {
    let (kind, n, _) = fast(op)?;
    Some(match (kind, n) {
        (IADD, 8) => on_op::<8, IADD>,
        (IADD, _) => on_op::<16, IADD>,
        (ISHL, 8) => on_op::<8, ISHL>,
        (ISHL, _) => on_op::<16, ISHL>,
        (IAND, 8) => on_op::<8, IAND>,
        (IAND, _) => on_op::<16, IAND>,
        (IOR, 8) => on_op::<8, IOR>,
        (IOR, _) => on_op::<16, IOR>,
        (_, 8) => on_op::<8, IMOV>,
        _ => on_op::<16, IMOV>,
    })
}

/// The straight-line handler for `op` and its operands (single
/// operations only: the Gen4/G45 compressed pairs these forms take write
/// the accumulator or go through the general path).
pub(super) fn choose_lite(op: &Op) -> Option<(LiteFn, Flat)> {
    let (kind, n, flat) = fast(op)?;
    let h: LiteFn = match (kind, n) {
        (IADD, 8) => lite::<8, IADD>,
        (IADD, _) => lite::<16, IADD>,
        (ISHL, 8) => lite::<8, ISHL>,
        (ISHL, _) => lite::<16, ISHL>,
        (IAND, 8) => lite::<8, IAND>,
        (IAND, _) => lite::<16, IAND>,
        (IOR, 8) => lite::<8, IOR>,
        (IOR, _) => lite::<16, IOR>,
        (_, 8) => lite::<8, IMOV>,
        _ => lite::<16, IMOV>,
    };
    Some((h, flat))
}

fn on_op<const N: usize, const K: u8>(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let Some((_, _, f)) = fast(op) else {
        return exec(t, op);
    };
    let en = t.enables(&op.ctl, op.ip);
    kernel::<N, K>(t, &f, en);
    Ok(Next::Fall)
}

fn lite<const N: usize, const K: u8>(
    t: &mut Thread,
    l: &Lite,
    _ops: &[Op],
    on: u32,
) -> Result<Next, ErrorKind> {
    kernel::<N, K>(t, &l.flat, l.enables(on));
    Ok(Next::Fall)
}

/// `N` dwords of source `k`: its immediate replicated, one register dword
/// replicated, or a row. Out of range (never produced) reads zeros.
#[inline(always)]
fn load<const N: usize>(regs: &[u8], f: &Flat, k: usize) -> [u32; N] {
    if let Some(v) = f.imm[k] {
        return [v; N];
    }
    let o = usize::from(f.src[k]);
    let mut w = [0u32; N];
    if f.scalar[k] {
        if let Some(s) = regs.get(o..o + 4) {
            w = [u32::from_le_bytes([s[0], s[1], s[2], s[3]]); N];
        }
    } else if let Some(s) = regs.get(o..o + 4 * N) {
        // `s` has exactly 4 * N bytes: the indexing cannot fail.
        for i in 0..N {
            w[i] = u32::from_le_bytes([s[4 * i], s[4 * i + 1], s[4 * i + 2], s[4 * i + 3]]);
        }
    }
    w
}

#[inline(always)]
fn kernel<const N: usize, const K: u8>(t: &mut Thread, f: &Flat, en: u32) {
    let a = load::<N>(&t.regs, f, 0);
    let b = if K == IMOV {
        [0; N]
    } else {
        load::<N>(&t.regs, f, 1)
    };
    let mut o = [0u32; N];
    for i in 0..N {
        o[i] = match K {
            IADD => a[i].wrapping_add(b[i]),
            ISHL => a[i] << (b[i] & 0x1F),
            IAND => a[i] & b[i],
            IOR => a[i] | b[i],
            _ => a[i],
        };
    }
    store::<N>(&mut t.regs, f.dst, &o, en);
}
