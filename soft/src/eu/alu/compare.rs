//! cmp, cmpn and sel.
//!
//! cmp/cmpn set flags from the "pre" signals of src0 - src1, before any
//! rounding (000 lines 9094-9136; 003 lines 97302-97499): the comparison
//! is exact. NaN makes every condition false but `.nz`; cmpn instead makes
//! a NaN src1 true (false for `.nz`) and a NaN src0 (src1 not NaN) false
//! (true for `.nz`) (000 lines 6997-7003; 001 lines 1282-1289).

use baregpu_isa::inst::{CondMod, Opcode};

use super::{FOut, IOut};
use crate::eu::decoded::{Next, Op};
use crate::eu::error::ErrorKind;
use crate::eu::exec::Dom;
use crate::eu::fp;
use crate::eu::operand::{MAX_CH, read, write};
use crate::eu::thread::Thread;

/// An ordered comparison of exact values (`ord` is `a.partial_cmp(b)`).
fn holds(cm: CondMod, ord: core::cmp::Ordering) -> bool {
    use core::cmp::Ordering::*;
    match cm {
        CondMod::Z => ord == Equal,
        CondMod::Nz => ord != Equal,
        CondMod::G => ord == Greater,
        CondMod::Ge => ord != Less,
        CondMod::L => ord == Less,
        CondMod::Le => ord != Greater,
        _ => false,
    }
}

/// Float comparison with the NaN rules of cmp (`special` = false) or cmpn
/// and sel's min/max (`special` = true).
pub fn cmp_f64(cm: CondMod, a: f64, b: f64, special: bool) -> bool {
    let (na, nb) = (a.is_nan(), b.is_nan());
    if cm == CondMod::U {
        return na || nb;
    }
    if cm == CondMod::O {
        return false;
    }
    if special && nb {
        return cm != CondMod::Nz;
    }
    if na || nb {
        return cm == CondMod::Nz;
    }
    match a.partial_cmp(&b) {
        Some(o) => holds(cm, o),
        None => cm == CondMod::Nz,
    }
}

fn cmp_int(cm: CondMod, a: i64, b: i64) -> bool {
    match cm {
        CondMod::U | CondMod::O | CondMod::None | CondMod::R => false,
        _ => holds(cm, a.cmp(&b)),
    }
}

/// cmp and cmpn: flags for the enabled channels and, in the destination,
/// all ones for true and zero for false. The manuals define only the LSB
/// (000 line 11151; 003 lines 97372-97377); Gen6+ hardware writes all
/// ones, which Mesa relies on [ext: Mesa src/intel/compiler/brw_compiler.h
/// booleans are 0/~0 from Gen6], and the LSB is the flag either way.
pub fn exec(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let ctl = &op.ctl;
    let n = usize::from(ctl.exec);
    let en = t.enables(ctl, op.ip) & t.pmask(ctl);
    let special = op.inst.opcode == Opcode::Cmpn;
    let bits = lanes(t, op, ctl.dom, n, en, special)?;
    let ones = fp::size_mask(op.dst.ty);
    let mut raw = [0u64; MAX_CH];
    for (c, r) in raw.iter_mut().enumerate().take(n) {
        if bits >> c & 1 != 0 {
            *r = ones;
        }
    }
    write::store(t, &op.dst, n, usize::from(ctl.step.max(1)), en, &raw)?;
    if ctl.cond != CondMod::None {
        t.write_flags(ctl, en, bits);
    }
    Ok(Next::Fall)
}

/// The condition of each channel (bit `c`), comparing src0 with src1.
pub fn lanes(
    t: &Thread,
    op: &Op,
    dom: Dom,
    n: usize,
    en: u32,
    special: bool,
) -> Result<u32, ErrorKind> {
    let cm = op.ctl.cond;
    let mode = t.fp.rounding;
    let mut bits = 0u32;
    match dom {
        Dom::F => {
            // Denormals compare as zero (000 lines 7031-7111: ±denorm equals
            // ±0), so sources are flushed as for arithmetic.
            let a = read::f32s(t, &op.src[0], n, en, true, mode)?;
            let b = read::f32s(t, &op.src[1], n, en, true, mode)?;
            for c in 0..n {
                let x = f64::from(f32::from_bits(a[c]));
                let y = f64::from(f32::from_bits(b[c]));
                if cmp_f64(cm, x, y, special) {
                    bits |= 1 << c;
                }
            }
        }
        Dom::Df => {
            let flush = !t.fp.df_denorms;
            let a = read::f64s(t, &op.src[0], n, en, flush, mode)?;
            let b = read::f64s(t, &op.src[1], n, en, flush, mode)?;
            for c in 0..n {
                if cmp_f64(cm, f64::from_bits(a[c]), f64::from_bits(b[c]), special) {
                    bits |= 1 << c;
                }
            }
        }
        Dom::D | Dom::W => {
            let a = read::ints(t, &op.src[0], n, en)?;
            let b = read::ints(t, &op.src[1], n, en)?;
            for c in 0..n {
                if cmp_int(cm, a[c], b[c]) {
                    bits |= 1 << c;
                }
            }
        }
    }
    Ok(bits)
}

/// Which channels of a `sel` take src0: the predicate without a condition
/// modifier (000 lines 13244-13294); with one (Gen6+) the comparison of
/// src0 with src1, where `.l`/`.ge` follow cmpn's NaN rule so that
/// sel.l/sel.ge are min/max returning the non-NaN operand (003 lines
/// 100636-100766; 000 lines 9126-9136 "SELwCMod").
fn sel_mask(op: &Op, pm: u32, cmp: impl Fn(usize) -> bool) -> u32 {
    if op.ctl.cond == CondMod::None {
        return pm;
    }
    let mut m = 0u32;
    for c in 0..usize::from(op.ctl.exec) {
        if cmp(c) {
            m |= 1 << c;
        }
    }
    m
}

fn minmax(cm: CondMod, a: f64, b: f64) -> bool {
    match cm {
        CondMod::L | CondMod::Ge => {
            if b.is_nan() {
                true
            } else if a.is_nan() {
                false
            } else {
                cmp_f64(cm, a, b, false)
            }
        }
        _ => cmp_f64(cm, a, b, false),
    }
}

pub fn sel_f(t: &Thread, op: &Op, a: &[u32; MAX_CH], b: &[u32; MAX_CH], pm: u32, out: &mut FOut) {
    let _ = t;
    let cm = op.ctl.cond;
    let m = sel_mask(op, pm, |c| {
        minmax(
            cm,
            f64::from(f32::from_bits(fp::flush32(a[c]))),
            f64::from(f32::from_bits(fp::flush32(b[c]))),
        )
    });
    for c in 0..usize::from(op.ctl.exec) {
        let v = if m >> c & 1 != 0 { a[c] } else { b[c] };
        out.bits[c] = v;
        out.wide[c] = f64::from(f32::from_bits(v));
    }
}

pub fn sel_i(t: &Thread, op: &Op, a: &[i64; MAX_CH], b: &[i64; MAX_CH], pm: u32, out: &mut IOut) {
    let _ = t;
    let cm = op.ctl.cond;
    let m = sel_mask(op, pm, |c| cmp_int(cm, a[c], b[c]));
    for c in 0..usize::from(op.ctl.exec) {
        out.v[c] = if m >> c & 1 != 0 { a[c] } else { b[c] };
    }
}
