//! Shared helpers of the EU tests: running assembled snippets, and an
//! independent float oracle that rounds exact integer arithmetic (no f64
//! shortcuts) in any IEEE mode.
#![allow(dead_code)]

use baregpu_isa::IsaGen;
use baregpu_soft::eu::{Harness, Step};

/// Assembles `src` for `p`, lets `setup` preload the thread, runs to the
/// end of the kernel, returns the harness.
pub fn run(p: IsaGen, src: &str, setup: impl FnOnce(&mut Harness)) -> Harness {
    let mut h = Harness::new(p);
    h.load_asm(src)
        .unwrap_or_else(|e| panic!("{p}: {src}: {e}"));
    setup(&mut h);
    let r = h.run(10_000);
    assert_eq!(r, Ok(Step::EndOfKernel), "{p}: {src}");
    h
}

/// Dispatch mask 0xFF on Gen6+ so SIMD8 kernels see 8 channels (Gen4
/// keeps its 16-bit mask).
pub fn simd8(h: &mut Harness) {
    h.thread.set_dispatch_mask(0xFF);
}

/// Sets 8 dwords of a register.
pub fn set_ud(h: &mut Harness, reg: u8, v: [u32; 8]) {
    for (i, x) in v.iter().enumerate() {
        h.thread.set_grf_ud(reg, i, *x);
    }
}

pub fn set_f(h: &mut Harness, reg: u8, v: [f32; 8]) {
    for (i, x) in v.iter().enumerate() {
        h.thread.set_grf_f(reg, i, *x);
    }
}

pub fn ud(h: &Harness, reg: u8) -> [u32; 8] {
    core::array::from_fn(|i| h.thread.grf_ud(reg, i))
}

pub fn uw(h: &Harness, reg: u8) -> [u16; 16] {
    core::array::from_fn(|i| h.thread.grf_uw(reg, i))
}

/// Float immediate syntax for `x`.
pub fn fimm(x: f32) -> String {
    format!("{:#x}:f", x.to_bits())
}

// ---------------------------------------------------------------------------
// Float oracle: values as sign, integer magnitude and binary exponent.
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Rne,
    Ru,
    Rd,
    Rtz,
}

/// A finite F as (negative, significand, exponent): value = ±m * 2^e.
pub fn parts(x: f32) -> (bool, u128, i32) {
    let b = x.to_bits();
    let neg = b >> 31 != 0;
    let e = ((b >> 23) & 0xFF) as i32;
    let f = u128::from(b & 0x7F_FFFF);
    if e == 0 {
        (neg, f, -149)
    } else {
        (neg, f | 0x80_0000, e - 150)
    }
}

/// Rounds ±(m * 2^e, plus a sticky bit below it) to F in `mode`, with
/// gradual underflow and overflow.
pub fn round(neg: bool, mut m: u128, mut e: i32, mut sticky: bool, mode: Mode) -> f32 {
    if m == 0 {
        return if sticky {
            // Magnitude below everything: rounds to 0 or the smallest denormal.
            let up = match mode {
                Mode::Ru => !neg,
                Mode::Rd => neg,
                _ => false,
            };
            let v = if up { f32::from_bits(1) } else { 0.0 };
            if neg { -v } else { v }
        } else if neg {
            -0.0
        } else {
            0.0
        };
    }
    // Normalise to 24 bits (or fewer for denormals: exponent at least -149).
    let bits = 128 - m.leading_zeros() as i32;
    let mut shift = bits - 24;
    if e + shift < -149 {
        shift = -149 - e;
    }
    let (mut q, half, below) = if shift > 0 {
        let s = shift.min(127) as u32;
        let q = m >> s;
        let rem = m & ((1u128 << s) - 1);
        let half_bit = 1u128 << (s - 1);
        (
            q,
            rem & half_bit != 0,
            (rem & (half_bit - 1)) != 0 || sticky,
        )
    } else {
        m <<= (-shift) as u32;
        (m, false, sticky)
    };
    e += shift;
    sticky = half || below;
    let inc = match mode {
        Mode::Rne => half && (below || q & 1 == 1),
        Mode::Rtz => false,
        Mode::Ru => !neg && sticky,
        Mode::Rd => neg && sticky,
    };
    if inc {
        q += 1;
        if q == 1 << 24 {
            q >>= 1;
            e += 1;
        }
    }
    // Overflow.
    if e > 104 || (q >= 1 << 24) {
        let to_max = match mode {
            Mode::Rtz => true,
            Mode::Ru => neg,
            Mode::Rd => !neg,
            Mode::Rne => false,
        };
        let v = if to_max { f32::MAX } else { f32::INFINITY };
        return if neg { -v } else { v };
    }
    let v = (q as f64) * 2f64.powi(e);
    let v = v as f32; // exact: q has at most 24 bits and e is in range
    if neg { -v } else { v }
}

/// Exact a + b rounded in `mode` (finite inputs).
pub fn add(a: f32, b: f32, mode: Mode) -> f32 {
    let (na, ma, ea) = parts(a);
    let (nb, mb, eb) = parts(b);
    sum(na, ma, ea, nb, mb, eb, mode)
}

/// ±ma*2^ea ± mb*2^eb rounded once. A term more than 60 bits below the
/// other only contributes a sticky bit: the other is kept with 8 more bits
/// and the small term moves it by less than one of those units.
fn sum(na: bool, ma: u128, ea: i32, nb: bool, mb: u128, eb: i32, mode: Mode) -> f32 {
    if ma == 0 && mb == 0 {
        let neg = (na && nb) || (na != nb && mode == Mode::Rd);
        return if neg { -0.0 } else { 0.0 };
    }
    if ma == 0 {
        return round(nb, mb, eb, false, mode);
    }
    if mb == 0 {
        return round(na, ma, ea, false, mode);
    }
    let top = |m: u128, e: i32| e + (128 - m.leading_zeros() as i32);
    if (top(ma, ea) - top(mb, eb)).abs() > 60 {
        let (big, nbig, ebig, small_neg) = if top(ma, ea) > top(mb, eb) {
            (ma, na, ea, nb)
        } else {
            (mb, nb, eb, na)
        };
        let m = big << 8;
        let m = if small_neg != nbig { m - 1 } else { m };
        return round(nbig, m, ebig - 8, true, mode);
    }
    let e = ea.min(eb);
    let xa = (ma << (ea - e) as u32) as i128;
    let xb = (mb << (eb - e) as u32) as i128;
    let s = (if na { -xa } else { xa }) + (if nb { -xb } else { xb });
    if s == 0 {
        let neg = na != nb && mode == Mode::Rd;
        return if neg { -0.0 } else { 0.0 };
    }
    round(s < 0, s.unsigned_abs(), e, false, mode)
}

/// Exact a * b rounded in `mode`.
pub fn mul(a: f32, b: f32, mode: Mode) -> f32 {
    let (na, ma, ea) = parts(a);
    let (nb, mb, eb) = parts(b);
    round(na != nb, ma * mb, ea + eb, false, mode)
}

/// Exact a * b + c rounded once in `mode`.
pub fn fma(a: f32, b: f32, c: f32, mode: Mode) -> f32 {
    let (na, ma, ea) = parts(a);
    let (nb, mb, eb) = parts(b);
    let (nc, mc, ec) = parts(c);
    sum(na != nb, ma * mb, ea + eb, nc, mc, ec, mode)
}

/// Flushes a denormal to zero of the same sign.
pub fn flush(x: f32) -> f32 {
    if x.to_bits() & 0x7F80_0000 == 0 {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// A deterministic pseudo-random generator (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn u32(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }

    /// A finite F: mostly ordinary magnitudes, sometimes extreme ones.
    pub fn f32(&mut self) -> f32 {
        loop {
            let b = match self.next() % 4 {
                0 => self.u32(),
                _ => {
                    let e = 100 + (self.next() % 55) as u32;
                    (self.u32() & 0x807F_FFFF) | (e << 23)
                }
            };
            let x = f32::from_bits(b);
            if x.is_finite() {
                return x;
            }
        }
    }
}

/// Exact a * b + c * d rounded once in `mode`.
pub fn dot2(a: f32, b: f32, c: f32, d: f32, mode: Mode) -> f32 {
    let (na, ma, ea) = parts(a);
    let (nb, mb, eb) = parts(b);
    let (nc, mc, ec) = parts(c);
    let (nd, md, ed) = parts(d);
    sum(na != nb, ma * mb, ea + eb, nc != nd, mc * md, ec + ed, mode)
}
