//! Logic and shifts, the bit instructions (lzd; Gen7 fbh, fbl, cbit, bfrev,
//! bfe, bfi1, bfi2), rounding (frc, rndu, rndd, rnde, rndz), half-float
//! conversions, and the vector instructions (sad2, sada2, dp4, dph, dp3,
//! dp2, line, pln).

// Channels index several arrays at once; index loops read best.
#![allow(clippy::needless_range_loop)]

mod eu_support;

use baregpu_isa::IsaGen;
use eu_support::*;

const ALL: [IsaGen; 5] = IsaGen::ALL;

fn words(seed: u64) -> [u32; 8] {
    let mut r = Rng(seed);
    let mut v: [u32; 8] = core::array::from_fn(|_| r.u32());
    v[0] = 0;
    v[1] = u32::MAX;
    v[2] = 0x8000_0000;
    v[3] = 1;
    v
}

/// not/and/or/xor, and negation of a source: arithmetic (two's complement,
/// 003 lines 94079-94097).
#[test]
fn logic() {
    for p in ALL {
        let (a, b) = (words(1), words(2));
        let src = "and (8|M0) r1.0<1>:ud r2.0<8;8,1>:ud r3.0<8;8,1>:ud\n\
                   or (8|M0) r4.0<1>:ud r2.0<8;8,1>:ud r3.0<8;8,1>:ud\n\
                   xor (8|M0) r5.0<1>:ud r2.0<8;8,1>:ud r3.0<8;8,1>:ud\n\
                   not (8|M0) r6.0<1>:ud r2.0<8;8,1>:ud\n\
                   and (8|M0) r7.0<1>:d -r2.0<8;8,1>:d r3.0<8;8,1>:d\n";
        let h = run(p, src, |h| {
            simd8(h);
            set_ud(h, 2, a);
            set_ud(h, 3, b);
        });
        for i in 0..8 {
            assert_eq!(h.thread.grf_ud(1, i), a[i] & b[i], "{p}");
            assert_eq!(h.thread.grf_ud(4, i), a[i] | b[i], "{p}");
            assert_eq!(h.thread.grf_ud(5, i), a[i] ^ b[i], "{p}");
            assert_eq!(h.thread.grf_ud(6, i), !a[i], "{p}");
            assert_eq!(h.thread.grf_ud(7, i), a[i].wrapping_neg() & b[i], "{p}");
        }
    }
}

/// Shifts use the 5 low bits of src1 (000 lines 13468-13561); shr shifts
/// zeros in, asr copies the sign, word operands shift their 16 bits.
#[test]
fn shifts() {
    for p in ALL {
        let a = words(3);
        let s: [u32; 8] = [0, 1, 31, 32, 33, 35, 4, 0xFFFF_FFE1];
        let src = "shl (8|M0) r1.0<1>:ud r2.0<8;8,1>:ud r3.0<8;8,1>:ud\n\
                   shr (8|M0) r4.0<1>:ud r2.0<8;8,1>:ud r3.0<8;8,1>:ud\n\
                   asr (8|M0) r5.0<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:ud\n\
                   shr (8|M0) r6.0<1>:uw r2.0<16;8,2>:uw 1:uw\n\
                   asr (8|M0) r7.0<1>:w r2.0<16;8,2>:w 3:w\n";
        let h = run(p, src, |h| {
            simd8(h);
            set_ud(h, 2, a);
            set_ud(h, 3, s);
        });
        for i in 0..8 {
            let k = s[i] & 31;
            assert_eq!(h.thread.grf_ud(1, i), a[i] << k, "{p} shl {i}");
            assert_eq!(h.thread.grf_ud(4, i), a[i] >> k, "{p} shr {i}");
            assert_eq!(
                h.thread.grf_ud(5, i),
                ((a[i] as i32) >> k) as u32,
                "{p} asr {i}"
            );
            let lo = a[i] as u16;
            assert_eq!(h.thread.grf_uw(6, i), lo >> 1, "{p} shr word {i}");
            assert_eq!(
                h.thread.grf_uw(7, i),
                ((lo as i16) >> 3) as u16,
                "{p} asr word {i}"
            );
        }
    }
}

/// lzd: leading zeros of a dword, 32 for 0 (000 lines 12031-12087).
#[test]
fn lzd() {
    for p in ALL {
        let a = words(4);
        let h = run(p, "lzd (8|M0) r1.0<1>:ud r2.0<8;8,1>:ud\n", |h| {
            simd8(h);
            set_ud(h, 2, a);
        });
        for i in 0..8 {
            assert_eq!(h.thread.grf_ud(1, i), a[i].leading_zeros(), "{p}");
        }
    }
}

/// The Gen7 bit instructions (001 lines 646-650; semantics as the public
/// compiler uses them, see the interpreter's bits.rs).
#[test]
fn gen7_bit_instructions() {
    for p in [IsaGen::Gen7, IsaGen::Gen75] {
        let a = words(5);
        let b = words(6);
        let c = words(7);
        let src = "fbh (8|M0) r10.0<1>:ud r2.0<8;8,1>:ud\n\
                   fbh (8|M0) r11.0<1>:ud r2.0<8;8,1>:d\n\
                   fbl (8|M0) r12.0<1>:ud r2.0<8;8,1>:ud\n\
                   cbit (8|M0) r13.0<1>:ud r2.0<8;8,1>:ud\n\
                   bfrev (8|M0) r14.0<1>:ud r2.0<8;8,1>:ud\n\
                   bfi1 (8|M0) r15.0<1>:ud r3.0<8;8,1>:ud r4.0<8;8,1>:ud\n\
                   bfi2 (8|M0) r16.0<1>:ud r2.0<2;1>:ud r3.0<2;1>:ud r4.0<1>:ud\n\
                   bfe (8|M0) r17.0<1>:ud r3.0<2;1>:ud r4.0<2;1>:ud r2.0<1>:ud\n\
                   bfe (8|M0) r18.0<1>:d r3.0<2;1>:d r4.0<2;1>:d r2.0<1>:d\n";
        let h = run(p, src, |h| {
            simd8(h);
            set_ud(h, 2, a);
            set_ud(h, 3, b);
            set_ud(h, 4, c);
        });
        for i in 0..8 {
            let x = a[i];
            let fbh_u = if x == 0 { u32::MAX } else { x.leading_zeros() };
            assert_eq!(h.thread.grf_ud(10, i), fbh_u, "{p} fbh ud {x:#x}");
            let y = if (x as i32) < 0 { !x } else { x };
            let fbh_d = if y == 0 { u32::MAX } else { y.leading_zeros() };
            assert_eq!(h.thread.grf_ud(11, i), fbh_d, "{p} fbh d {x:#x}");
            let fbl = if x == 0 { u32::MAX } else { x.trailing_zeros() };
            assert_eq!(h.thread.grf_ud(12, i), fbl, "{p} fbl");
            assert_eq!(h.thread.grf_ud(13, i), x.count_ones(), "{p} cbit");
            assert_eq!(h.thread.grf_ud(14, i), x.reverse_bits(), "{p} bfrev");
            let (w, o) = (b[i] & 31, c[i] & 31);
            let mask = if w == 0 {
                0
            } else {
                (u32::MAX >> (32 - w)) << o
            };
            assert_eq!(h.thread.grf_ud(15, i), mask, "{p} bfi1 {w} {o}");
            assert_eq!(
                h.thread.grf_ud(16, i),
                (a[i] & b[i]) | (!a[i] & c[i]),
                "{p} bfi2"
            );
            let field = |signed: bool| -> u32 {
                if w == 0 {
                    0
                } else if w + o >= 32 {
                    if signed {
                        ((x as i32) >> o) as u32
                    } else {
                        x >> o
                    }
                } else {
                    let f = (x >> o) & ((1 << w) - 1);
                    if signed && f >> (w - 1) & 1 != 0 {
                        f | (u32::MAX << w)
                    } else {
                        f
                    }
                }
            };
            assert_eq!(h.thread.grf_ud(17, i), field(false), "{p} bfe ud {w} {o}");
            assert_eq!(h.thread.grf_ud(18, i), field(true), "{p} bfe d {w} {o}");
        }
    }
}

/// Rounding: Gen6+ write the rounded value (003 lines 100081-100478);
/// Gen4/G45 write floor and set `.r` where 1 must be added (000 lines
/// 12824-13140); frc is in [0, 1) and NaN for infinities.
#[test]
fn rounding_instructions() {
    let x = [1.5, -1.5, 2.5, -2.5, 0.3, -0.3, 7.0, -1.0e-40];
    for p in ALL {
        let src = "frc (8|M0) r10.0<1>:f r2.0<8;8,1>:f\n\
                   rndd (8|M0) r11.0<1>:f r2.0<8;8,1>:f\n\
                   rndu (8|M0) (r)f0.0 r12.0<1>:f r2.0<8;8,1>:f\n\
                   rnde (8|M0) (r)f0.1 r13.0<1>:f r2.0<8;8,1>:f\n\
                   rndz (8|M0) r14.0<1>:f r2.0<8;8,1>:f\n";
        let src = if p >= IsaGen::Gen6 {
            src.replace(" (r)f0.0", "").replace(" (r)f0.1", "")
        } else {
            src.to_string()
        };
        let h = run(p, &src, |h| {
            simd8(h);
            set_f(h, 2, x);
        });
        for i in 0..8 {
            let v = flush(x[i]);
            let fl = v.floor();
            assert_eq!(h.thread.grf_f(10, i), v - fl, "{p} frc {v}");
            assert_eq!(
                h.thread.grf_f(11, i).to_bits(),
                fl.to_bits(),
                "{p} rndd {v}"
            );
            // Round half to even, by hand.
            let rne = {
                let r = fl + 1.0;
                let d = v - fl;
                if d > 0.5 || (d == 0.5 && fl % 2.0 != 0.0) {
                    r
                } else {
                    fl
                }
            };
            if p >= IsaGen::Gen6 {
                assert_eq!(h.thread.grf_f(12, i), v.ceil(), "{p} rndu {v}");
                assert_eq!(h.thread.grf_f(13, i), rne, "{p} rnde {v}");
                assert_eq!(h.thread.grf_f(14, i), v.trunc(), "{p} rndz {v}");
            } else {
                for r in [12, 13, 14] {
                    assert_eq!(h.thread.grf_f(r, i), fl, "{p} r{r} writes floor");
                }
                let f = h.thread.flag(0);
                assert_eq!(f >> i & 1 != 0, v > fl, "{p} rndu.r {v}");
                assert_eq!(f >> (16 + i) & 1 != 0, rne != fl, "{p} rnde.r {v}");
            }
        }
        // frc of an infinity is NaN (003 lines 98288-98296).
        let h = run(p, "frc (1|M0) r1.0<1>:f r2.0<0;1,0>:f\n", |h| {
            h.thread.set_grf_f(2, 0, f32::INFINITY)
        });
        assert!(h.thread.grf_f(1, 0).is_nan(), "{p}");
    }
}

/// f32to16/f16to32 (Gen7, 001 lines 665-666): half bits in the low word;
/// half denormals survive the way back.
#[test]
fn half_float_conversions() {
    let x = [
        1.0,
        -2.5,
        65504.0,
        1.0e6,
        6.0e-8,
        f32::NAN,
        f32::NEG_INFINITY,
        0.333_333_34,
    ];
    // Half bits by the IEEE binary16 definition.
    let want: [u16; 8] = [
        0x3C00, 0xC100, 0x7BFF, 0x7C00, 0x0001, 0x7E00, 0xFC00, 0x3555,
    ];
    for p in [IsaGen::Gen7, IsaGen::Gen75] {
        let src = "f32to16 (8|M0) r1.0<1>:ud r2.0<8;8,1>:f\n\
                   f16to32 (8|M0) r3.0<1>:f r1.0<16;8,2>:uw\n";
        let h = run(p, src, |h| {
            simd8(h);
            set_f(h, 2, x);
        });
        for i in 0..8 {
            assert_eq!(
                h.thread.grf_ud(1, i),
                u32::from(want[i]),
                "{p} f32to16 {}",
                x[i]
            );
        }
        let back: Vec<f32> = (0..8).map(|i| h.thread.grf_f(3, i)).collect();
        assert_eq!(back[0], 1.0);
        assert_eq!(back[1], -2.5);
        assert_eq!(back[2], 65504.0);
        assert_eq!(back[3], f32::INFINITY);
        assert_eq!(back[4], 2f32.powi(-24), "{p} half denormal kept");
        assert!(back[5].is_nan());
        assert_eq!(back[6], f32::NEG_INFINITY);
    }
}

/// sad2/sada2 on byte pairs (000 lines 13141-13243).
#[test]
fn sad2_sada2() {
    for p in ALL {
        let a: [u8; 16] = [10, 20, 255, 0, 7, 7, 100, 50, 1, 2, 3, 4, 200, 100, 0, 255];
        let b: [u8; 16] = [20, 10, 0, 255, 7, 9, 50, 100, 4, 3, 2, 1, 0, 0, 255, 0];
        let acc_opt = if p >= IsaGen::Gen6 { " {AccWrEn}" } else { "" };
        let src = format!(
            "sad2 (16|M0) r1.0<1>:w r2.0<16;16,1>:ub r3.0<16;16,1>:ub{acc_opt}\n\
             sada2 (16|M0) r4.0<1>:w r2.0<16;16,1>:ub r3.0<16;16,1>:ub{acc_opt}\n"
        );
        let h = run(p, &src, |h| {
            h.thread.set_dispatch_mask(0xFFFF);
            for i in 0..4 {
                h.thread.set_grf_ud(
                    2,
                    i,
                    u32::from_le_bytes([a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3]]),
                );
                h.thread.set_grf_ud(
                    3,
                    i,
                    u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]),
                );
            }
        });
        for k in (0..16).step_by(2) {
            let s = (i32::from(a[k]) - i32::from(b[k])).abs()
                + (i32::from(a[k + 1]) - i32::from(b[k + 1])).abs();
            assert_eq!(h.thread.grf_uw(1, k), s as u16, "{p} sad2 {k}");
            // sada2 adds what sad2 left in the accumulator.
            assert_eq!(h.thread.grf_uw(4, k), (2 * s) as u16, "{p} sada2 {k}");
        }
    }
}

/// dp4/dph/dp3/dp2: dot products over each 4-group, replicated (000 lines
/// 11337-11561), with one rounding of the exact sum.
#[test]
fn dot_products() {
    let a = [1.0, 2.0, 3.0, 4.0, 0.5, -1.5, 1.0e-3, 7.0];
    let b = [5.0, 6.0, 7.0, 8.0, 3.0, 0.25, 1.0e3, -2.0];
    for p in ALL {
        let src = "dp4 (8|M0) r10.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n\
                   dph (8|M0) r11.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n\
                   dp3 (8|M0) r12.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n\
                   dp2 (8|M0) r13.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n";
        let h = run(p, src, |h| {
            simd8(h);
            set_f(h, 2, a);
            set_f(h, 3, b);
        });
        let mode = if p <= IsaGen::G45 {
            Mode::Rtz
        } else {
            Mode::Rne
        };
        for g in 0..2 {
            let at = |i: usize| (a[4 * g + i], b[4 * g + i]);
            // Exact sums of exact products through the oracle, pairwise
            // (these products and sums are exact in F except the last).
            let p2 = dot2(at(0).0, at(0).1, at(1).0, at(1).1, mode);
            let exact = |n: usize| -> f64 {
                (0..n)
                    .map(|i| f64::from(at(i).0) * f64::from(at(i).1))
                    .sum()
            };
            for c in 0..4 {
                let lane = 4 * g + c;
                assert_eq!(h.thread.grf_f(13, lane), p2, "{p} dp2");
                let d3 = h.thread.grf_f(12, lane);
                let d4 = h.thread.grf_f(10, lane);
                let dh = h.thread.grf_f(11, lane);
                assert!(
                    (f64::from(d3) - exact(3)).abs() <= exact(3).abs() * 1.2e-7,
                    "{p} dp3 {d3}"
                );
                assert!(
                    (f64::from(d4) - exact(4)).abs() <= exact(4).abs() * 1.2e-7,
                    "{p} dp4 {d4}"
                );
                let eh = exact(3) + f64::from(at(3).1);
                assert!(
                    (f64::from(dh) - eh).abs() <= eh.abs() * 1.2e-7,
                    "{p} dph {dh}"
                );
            }
        }
    }
}

/// line: p * src1 + q, p and q from src0 dwords 0 and 3 (000 lines
/// 11977-12030); pln: p*u + q*v + r with v the next register (000 lines
/// 12669-12731).
#[test]
fn line_and_pln() {
    let u = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];
    let v = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0];
    for p in ALL {
        let mut src = String::from("line (8|M0) r10.0<1>:f r2.0<0;1,0>:f r4.0<8;8,1>:f\n");
        if p != IsaGen::Gen4 {
            src += "pln (8|M0) r11.0<1>:f r2.4<0;1,0>:f r4.0<8;8,1>:f\n";
        }
        let h = run(p, &src, |h| {
            simd8(h);
            set_f(h, 2, [2.0, 0.0, 0.0, 0.5, 3.0, -1.0, 0.0, 100.0]);
            set_f(h, 4, u);
            set_f(h, 5, v);
        });
        for i in 0..8 {
            assert_eq!(h.thread.grf_f(10, i), 2.0 * u[i] + 0.5, "{p} line {i}");
            if p != IsaGen::Gen4 {
                assert_eq!(
                    h.thread.grf_f(11, i),
                    3.0 * u[i] - v[i] + 100.0,
                    "{p} pln {i}"
                );
            }
        }
    }
}

/// The Gen6+ `math` instruction goes to the extended-math unit: check
/// results that are exact (inv of powers of two, sqrt of squares) and the
/// integer divide with quotient and remainder in dst and dst+1 (003 lines
/// 99124-99339).
#[test]
fn math_instruction() {
    for p in [IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75] {
        let src = "math.inv (8|M0) r10.0<1>:f r2.0<8;8,1>:f\n\
                   math.sqt (8|M0) r11.0<1>:f r3.0<8;8,1>:f\n\
                   math.idiv (8|M0) r12.0<1>:d r4.0<8;8,1>:d r5.0<8;8,1>:d\n";
        let q: [i32; 8] = [7, -7, 100, -100, 0, 5, i32::MAX, 9];
        let d: [i32; 8] = [2, 2, -7, -7, 3, 5, 2, 10];
        let h = run(p, src, |h| {
            simd8(h);
            set_f(h, 2, [1.0, 2.0, 0.5, -4.0, 8.0, 0.25, 1024.0, -1.0]);
            set_f(h, 3, [1.0, 4.0, 9.0, 16.0, 0.25, 100.0, 0.0, 2.25]);
            set_ud(h, 4, q.map(|x| x as u32));
            set_ud(h, 5, d.map(|x| x as u32));
        });
        let inv = [1.0, 0.5, 2.0, -0.25, 0.125, 4.0, 1.0 / 1024.0, -1.0];
        let sq = [1.0, 2.0, 3.0, 4.0, 0.5, 10.0, 0.0, 1.5];
        for i in 0..8 {
            assert_eq!(h.thread.grf_f(10, i), inv[i], "{p} inv");
            assert_eq!(h.thread.grf_f(11, i), sq[i], "{p} sqrt");
            assert_eq!(h.thread.grf_ud(12, i) as i32, q[i] / d[i], "{p} quotient");
            assert_eq!(h.thread.grf_ud(13, i) as i32, q[i] % d[i], "{p} remainder");
        }
    }
}
