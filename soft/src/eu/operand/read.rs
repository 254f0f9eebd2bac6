//! Reading source elements into lanes of the execution type: raw bits,
//! then the source modifiers, then (for arithmetic) the denormal flush.

use baregpu_isa::inst::Type;

use super::{MAX_CH, SrcKind, SrcPlan, indirect};
use crate::eu::error::ErrorKind;
use crate::eu::fp::{self, Rounding};
use crate::eu::thread::Thread;

/// Raw bits (of the plan's type) of each of `n` channels' elements.
#[inline]
pub fn raw(t: &Thread, s: &SrcPlan, n: usize, en: u32) -> Result<[u64; MAX_CH], ErrorKind> {
    let mut out = [0u64; MAX_CH];
    raw_into(t, s, n, en, &mut out)?;
    Ok(out)
}

/// [`raw`] into `out` (channels `n..` left as they are): the integer path
/// reads in place rather than moving 256-byte arrays around.
#[inline]
pub fn raw_into(
    t: &Thread,
    s: &SrcPlan,
    n: usize,
    en: u32,
    out: &mut [u64; MAX_CH],
) -> Result<(), ErrorKind> {
    let size = usize::from(s.ty.size());
    match &s.kind {
        SrcKind::Absent => {}
        SrcKind::Direct { off } => {
            for (o, &at) in out.iter_mut().zip(off.iter()).take(n) {
                *o = t.load(usize::from(at), size);
            }
        }
        SrcKind::Imm { vals, period } => {
            let p = usize::from((*period).max(1));
            for (c, o) in out.iter_mut().enumerate().take(n) {
                *o = vals[c % p];
            }
        }
        SrcKind::Indirect(ind) => {
            let off = indirect::offsets(t, ind, n, size, size, en)?;
            for (o, &at) in out.iter_mut().zip(off.iter()).take(n) {
                *o = t.load(usize::from(at), size);
            }
        }
    }
    Ok(())
}

/// F lanes (bits). Integer sources are converted (a mixed-type instruction
/// the manuals forbid, 003 lines 91687-91709, still gets a defined value);
/// DF sources round toward zero. `flush` applies the input denormal flush
/// of arithmetic (never to an accumulator source, 000 lines 7753-7771).
pub fn f32s(
    t: &Thread,
    s: &SrcPlan,
    n: usize,
    en: u32,
    flush: bool,
    rounding: Rounding,
) -> Result<[u32; MAX_CH], ErrorKind> {
    let mut out = [0u32; MAX_CH];
    if s.is_absent() {
        return Ok(out);
    }
    let raw = raw(t, s, n, en)?;
    let flush = flush && !s.acc;
    for (o, &r) in out.iter_mut().zip(raw.iter()).take(n) {
        let mut b = match s.ty {
            Type::F | Type::Vf => r as u32,
            Type::Df => fp::f64_to_f32(f64::from_bits(r)).to_bits(),
            ty => fp::int_to_f32(fp::int_value(r, ty), rounding).to_bits(),
        };
        if s.mods.abs {
            b &= 0x7FFF_FFFF;
        }
        if s.mods.neg {
            b ^= 0x8000_0000;
        }
        *o = if flush { fp::flush32(b) } else { b };
    }
    Ok(out)
}

/// Integer lanes: each element's value by its own signedness, then abs and
/// negate exactly (a 32-bit source cannot overflow an i64).
#[inline]
pub fn ints(t: &Thread, s: &SrcPlan, n: usize, en: u32) -> Result<[i64; MAX_CH], ErrorKind> {
    let mut out = [0i64; MAX_CH];
    ints_into(t, s, n, en, &mut out)?;
    Ok(out)
}

/// [`ints`] into `out` (an absent source leaves it as it is; channels
/// `n..` too).
#[inline]
pub fn ints_into(
    t: &Thread,
    s: &SrcPlan,
    n: usize,
    en: u32,
    out: &mut [i64; MAX_CH],
) -> Result<(), ErrorKind> {
    if s.is_absent() {
        return Ok(());
    }
    let mut raw = [0u64; MAX_CH];
    raw_into(t, s, n, en, &mut raw)?;
    for (o, &r) in out.iter_mut().zip(raw.iter()).take(n) {
        let mut v = match s.ty {
            Type::F | Type::Vf => {
                fp::float_to_int(f64::from(f32::from_bits(r as u32)), Type::D).0 as u32 as i32
                    as i64
            }
            Type::Df => fp::float_to_int(f64::from_bits(r), Type::D).0 as u32 as i32 as i64,
            ty => fp::int_value(r, ty),
        };
        if s.mods.abs {
            v = v.wrapping_abs();
        }
        if s.mods.neg {
            v = v.wrapping_neg();
        }
        *o = v;
    }
    Ok(())
}

/// DF lanes (bits): F widens exactly, integers convert; denormals flush
/// unless cr0.0[6] keeps them (001 lines 3240-3250).
pub fn f64s(
    t: &Thread,
    s: &SrcPlan,
    n: usize,
    en: u32,
    flush: bool,
    rounding: Rounding,
) -> Result<[u64; MAX_CH], ErrorKind> {
    let mut out = [0u64; MAX_CH];
    if s.is_absent() {
        return Ok(out);
    }
    let raw = raw(t, s, n, en)?;
    let flush = flush && !s.acc;
    for (o, &r) in out.iter_mut().zip(raw.iter()).take(n) {
        let mut b = match s.ty {
            Type::Df => r,
            Type::F | Type::Vf => fp::f32_to_f64(f32::from_bits(r as u32)).to_bits(),
            ty => fp::int_to_f64(fp::int_value(r, ty), rounding).to_bits(),
        };
        if s.mods.abs {
            b &= 0x7FFF_FFFF_FFFF_FFFF;
        }
        if s.mods.neg {
            b ^= 0x8000_0000_0000_0000;
        }
        *o = if flush { fp::flush64(b) } else { b };
    }
    Ok(out)
}
