//! Arithmetic: float add/mul/mad/mac/lrp rounded exactly in each
//! generation's mode (Gen4/G45 round toward zero, 000 lines 7007-7011;
//! Gen6 nearest even, 003 lines 89214-89219; Gen7 the cr0 mode, 001 lines
//! 3251-3260), denormal flush, NaN, ALT mode; integer add/mul/avg/mach/
//! addc/subb; the accumulator.
//!
//! Expected float values come from the integer oracle in eu_support, not
//! from the interpreter's own rounding code.

// Channels index several arrays at once; index loops read best.
#![allow(clippy::needless_range_loop)]

mod eu_support;

use baregpu_isa::IsaGen;
use eu_support::*;

const ALL: [IsaGen; 5] = IsaGen::ALL;

/// The rounding modes a platform runs, with the cr0.0 value selecting them.
fn modes(p: IsaGen) -> Vec<(Mode, u32)> {
    match p {
        IsaGen::Gen4 | IsaGen::G45 => vec![(Mode::Rtz, 0)],
        IsaGen::Gen6 => vec![(Mode::Rne, 0)],
        _ => vec![
            (Mode::Rne, 0),
            (Mode::Ru, 1 << 4),
            (Mode::Rd, 2 << 4),
            (Mode::Rtz, 3 << 4),
        ],
    }
}

/// What the EU stores for a rounded F result: denormal results flushed,
/// NaN as the quiet NaN the interpreter documents.
fn out(x: f32) -> u32 {
    if x.is_nan() {
        0x7FC0_0000
    } else {
        flush(x).to_bits()
    }
}

/// Runs `src` with r2, r3, r4 loaded and cr0 set; returns r1.
fn run3(p: IsaGen, cr0: u32, src: &str, a: [f32; 8], b: [f32; 8], c: [f32; 8]) -> [u32; 8] {
    let h = run(p, src, |h| {
        simd8(h);
        h.thread.set_cr0(0, cr0);
        set_f(h, 2, a);
        set_f(h, 3, b);
        set_f(h, 4, c);
    });
    ud(&h, 1)
}

#[test]
fn float_add_mul_mad_random() {
    let mut rng = Rng(0x5EED_0001);
    for p in ALL {
        for (mode, cr0) in modes(p) {
            for _ in 0..200 {
                let a: [f32; 8] = core::array::from_fn(|_| rng.f32());
                let b: [f32; 8] = core::array::from_fn(|_| rng.f32());
                let c: [f32; 8] = core::array::from_fn(|_| rng.f32());
                let add = run3(
                    p,
                    cr0,
                    "add (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n",
                    a,
                    b,
                    c,
                );
                let mul = run3(
                    p,
                    cr0,
                    "mul (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n",
                    a,
                    b,
                    c,
                );
                for i in 0..8 {
                    let (x, y) = (flush(a[i]), flush(b[i]));
                    assert_eq!(
                        add[i],
                        out(eu_support::add(x, y, mode)),
                        "{p} {mode:?} {x:e} + {y:e}"
                    );
                    assert_eq!(
                        mul[i],
                        out(eu_support::mul(x, y, mode)),
                        "{p} {mode:?} {x:e} * {y:e}"
                    );
                }
                if p >= IsaGen::Gen6 {
                    // mad dst src0 src1 src2 = src1 * src2 + src0, one rounding.
                    let mad = run3(
                        p,
                        cr0,
                        "mad (8|M0) r1.0<1>:f r2.0<2;1>:f r3.0<2;1>:f r4.0<1>:f\n",
                        a,
                        b,
                        c,
                    );
                    for i in 0..8 {
                        let (x, y, z) = (flush(a[i]), flush(b[i]), flush(c[i]));
                        assert_eq!(
                            mad[i],
                            out(fma(y, z, x, mode)),
                            "{p} {mode:?} {y:e} * {z:e} + {x:e}"
                        );
                    }
                }
            }
        }
    }
}

/// Additions whose operands are far apart: an f64 intermediate would round
/// twice (1 - 2^-60 truncates to 0x3F7FFFFF, the digest's example).
#[test]
fn float_add_far_operands() {
    let tiny = f32::from_bits(0x2180_0000); // 2^-60
    for p in ALL {
        for (mode, cr0) in modes(p) {
            let a = [1.0, 1.0, -1.0, 3.0, 1.0e30, -1.0e-30, 0.5, 1.0];
            let b = [-tiny, tiny, -tiny, tiny, -1.0, 1.0e-38, -tiny, 0.0];
            let got = run3(
                p,
                cr0,
                "add (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n",
                a,
                b,
                [0.0; 8],
            );
            for i in 0..8 {
                let want = out(eu_support::add(flush(a[i]), flush(b[i]), mode));
                assert_eq!(got[i], want, "{p} {mode:?} {} + {}", a[i], b[i]);
            }
            if mode == Mode::Rtz {
                assert_eq!(got[0], 0x3F7F_FFFF, "{p}");
            }
        }
    }
}

/// IEEE special cases (000 lines 6987-7005): inf - inf and 0 * inf are
/// NaN, NaN propagates, -0 + 0 = +0, x * 1 = x, denormals flush on input
/// and output.
#[test]
fn float_special_values() {
    let inf = f32::INFINITY;
    let den = f32::from_bits(0x0000_0100);
    let a = [inf, 0.0, f32::NAN, -0.0, 3.5, den, 1.0e-20, -inf];
    let b = [-inf, inf, 1.0, 0.0, 1.0, 1.0, 1.0e-20, -inf];
    for p in ALL {
        let add = run3(
            p,
            0,
            "add (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n",
            a,
            b,
            [0.0; 8],
        );
        let mul = run3(
            p,
            0,
            "mul (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n",
            a,
            b,
            [0.0; 8],
        );
        assert_eq!(add[0], 0x7FC0_0000, "{p} inf - inf");
        assert_eq!(mul[1], 0x7FC0_0000, "{p} 0 * inf");
        assert_eq!(add[2], 0x7FC0_0000, "{p} NaN + 1");
        assert_eq!(add[3], 0, "{p} -0 + 0 = +0");
        assert_eq!(mul[4], 3.5f32.to_bits(), "{p} x * 1");
        assert_eq!(mul[5], 0, "{p} denormal input flushed");
        assert_eq!(mul[6], 0, "{p} denormal result flushed");
        assert_eq!(add[7], 0xFF80_0000, "{p} -inf + -inf");
    }
}

/// ALT mode: an infinite result becomes FLT_MAX (000 lines 7213-7217).
#[test]
fn alt_mode_clamps_infinity() {
    for p in ALL {
        let a = [3.0e38, -3.0e38, 2.0, 1.0, 0.0, 0.0, 0.0, 0.0];
        let b = [3.0e38, -3.0e38, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0];
        let got = run3(
            p,
            1,
            "add (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n",
            a,
            b,
            [0.0; 8],
        );
        assert_eq!(got[0], 0x7F7F_FFFF, "{p}");
        assert_eq!(got[1], 0xFF7F_FFFF, "{p}");
        assert_eq!(got[2], 3.0f32.to_bits(), "{p}");
    }
}

/// mac: src0 * src1 + acc with one rounding (000 lines 12088-12132; 003
/// lines 98884-98947); the accumulator is loaded by a raw move.
#[test]
fn float_mac() {
    let mut rng = Rng(77);
    for p in ALL {
        for (mode, cr0) in modes(p) {
            let a: [f32; 8] = core::array::from_fn(|_| rng.f32());
            let b: [f32; 8] = core::array::from_fn(|_| rng.f32());
            let c: [f32; 8] = core::array::from_fn(|_| rng.f32());
            let src = "mov (8|M0) acc0.0<1>:f r4.0<8;8,1>:f\nmac (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n";
            let got = run3(p, cr0, src, a, b, c);
            for i in 0..8 {
                let want = out(fma(flush(a[i]), flush(b[i]), c[i], mode));
                assert_eq!(got[i], want, "{p} {mode:?} lane {i}");
            }
        }
    }
}

/// Gen4/G45 keep the unrounded float in the accumulator (000 lines
/// 7736-7745): mul then mac computes a*b + c*d with one rounding; with a
/// GRF temporary a*b would be rounded first.
#[test]
fn gen4_extended_accumulator() {
    let a = [1.0 + f32::EPSILON, 3.0, 1.1, 7.0, 1.0e-3, 2.0, 0.1, 0.3];
    let b = [
        1.0 - f32::EPSILON,
        1.0 / 3.0,
        1.3,
        1.0 / 7.0,
        3.3,
        0.7,
        0.2,
        0.7,
    ];
    let c = [-1.0, -1.0, 0.5, -1.0, 1.0, 1.0, 0.2, -0.21];
    for p in [IsaGen::Gen4, IsaGen::G45] {
        let src = "mul (8|M0) null<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n\
                   mac (8|M0) r1.0<1>:f r4.0<8;8,1>:f r5.0<8;8,1>:f\n";
        let h = run(p, src, |h| {
            set_f(h, 2, a);
            set_f(h, 3, b);
            set_f(h, 4, c);
            set_f(h, 5, [1.0; 8]);
        });
        for i in 0..8 {
            let want = out(dot2(a[i], b[i], c[i], 1.0, Mode::Rtz));
            assert_eq!(h.thread.grf_ud(1, i), want, "{p} lane {i}");
        }
    }
}

/// lrp: src1 * src0 + src2 * (1 - src0) (003 lines 98811-98883), with
/// 1 - src0 rounded first.
#[test]
fn float_lrp() {
    let x = [0.0, 1.0, 0.5, 0.25, 0.1, 0.9, 0.3, 0.7];
    let u = [2.0, 2.0, 4.0, 8.0, 10.0, 1.5, -3.0, 5.0];
    let v = [6.0, 6.0, 8.0, 0.0, -10.0, 2.5, 1.0, 3.0];
    for p in [IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75] {
        let got = run3(
            p,
            0,
            "lrp (8|M0) r1.0<1>:f r2.0<2;1>:f r3.0<2;1>:f r4.0<1>:f\n",
            x,
            u,
            v,
        );
        for i in 0..8 {
            let one_minus = eu_support::add(1.0, -x[i], Mode::Rne);
            let want = out(dot2(u[i], x[i], v[i], one_minus, Mode::Rne));
            assert_eq!(got[i], want, "{p} lane {i}");
        }
    }
}

/// Integer add wraps without .sat and clamps with it; .o reports results
/// outside the destination type (000 lines 7267-7280, 9142-9145).
#[test]
fn integer_add_overflow() {
    for p in ALL {
        let src = "add (8|M0) r1.0<1>:w r2.0<8;8,1>:w r3.0<8;8,1>:w\n\
                   add (8|M0) (sat)r4.0<1>:w r2.0<8;8,1>:w r3.0<8;8,1>:w\n\
                   add (8|M0) (ov)f0.0 (sat)r5.0<1>:ud r6.0<8;8,1>:ud r7.0<8;8,1>:ud\n";
        let a: [i16; 8] = [32767, -32768, 100, -100, 20000, 0, 1, -1];
        let b: [i16; 8] = [1, -1, 200, 50, 20000, 0, -1, -1];
        let x: [u32; 8] = [u32::MAX, 1, 5, 0x8000_0000, 0, 7, 9, 0xFFFF_FFF0];
        let y: [u32; 8] = [1, 2, 3, 0x8000_0000, 0, 8, 10, 0x20];
        let h = run(p, src, |h| {
            simd8(h);
            for i in 0..8 {
                h.thread.set_grf_uw(2, i, a[i] as u16);
                h.thread.set_grf_uw(3, i, b[i] as u16);
                h.thread.set_grf_ud(6, i, x[i]);
                h.thread.set_grf_ud(7, i, y[i]);
            }
        });
        for i in 0..8 {
            let exact = i32::from(a[i]) + i32::from(b[i]);
            assert_eq!(h.thread.grf_uw(1, i), exact as u16, "{p} wrap {i}");
            assert_eq!(
                h.thread.grf_uw(4, i),
                exact.clamp(-32768, 32767) as i16 as u16,
                "{p} sat {i}"
            );
            let s = u64::from(x[i]) + u64::from(y[i]);
            assert_eq!(
                h.thread.grf_ud(5, i),
                s.min(u64::from(u32::MAX)) as u32,
                "{p} ud sat {i}"
            );
            assert_eq!(
                h.thread.flag(0) >> i & 1,
                u32::from(s > u64::from(u32::MAX)),
                "{p} .o {i}"
            );
        }
    }
}

/// Dword multiplies use 16 bits of one source: src0 on Gen4-Gen6 (000 line
/// 12454; 003 lines 99598-99600), src1 on Gen7 (001 lines 667-668); the
/// accumulator keeps the product and mach completes the 64-bit result (000
/// lines 12178-12184: mul acc0, mach, mov).
#[test]
fn integer_multiply_and_mach() {
    let a: [i32; 8] = [
        123_456_789,
        -7,
        0x7FFF_FFFF,
        -0x8000_0000,
        65_537,
        -65_536,
        3,
        0,
    ];
    let b: [i32; 8] = [
        987_654_321,
        12_345_678,
        0x7FFF_FFFF,
        3,
        -65_537,
        99_999,
        -1,
        5,
    ];
    for p in ALL {
        let acc = if p >= IsaGen::Gen6 { " {AccWrEn}" } else { "" };
        let src = format!(
            "mul (8|M0) r1.0<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d\n\
             mul (8|M0) acc0.0<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d\n\
             mach (8|M0) r4.0<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d{acc}\n\
             mov (8|M0) r5.0<1>:d acc0.0<8;8,1>:d\n"
        );
        let h = run(p, &src, |h| {
            simd8(h);
            for i in 0..8 {
                h.thread.set_grf_ud(2, i, a[i] as u32);
                h.thread.set_grf_ud(3, i, b[i] as u32);
            }
        });
        for i in 0..8 {
            let (x, y) = (i64::from(a[i]), i64::from(b[i]));
            let low16 = if p >= IsaGen::Gen7 {
                x * (y & 0xFFFF)
            } else {
                (x & 0xFFFF) * y
            };
            assert_eq!(h.thread.grf_ud(1, i), low16 as u32, "{p} mul {i}");
            let full = x * y;
            assert_eq!(
                h.thread.grf_ud(4, i),
                (full >> 32) as u32,
                "{p} mach high {i}"
            );
            assert_eq!(h.thread.grf_ud(5, i), full as u32, "{p} mach low {i}");
        }
    }
}

/// Word multiplies are exact into a dword destination; avg rounds up (000
/// lines 10993-11034).
#[test]
fn word_multiply_and_avg() {
    for p in ALL {
        let src = "mul (8|M0) r1.0<1>:d r2.0<8;8,1>:w r3.0<8;8,1>:uw\n\
                   avg (8|M0) r4.0<1>:w r2.0<8;8,1>:w r3.0<8;8,1>:w\n";
        let a: [i16; 8] = [-32768, 32767, -1, 7, 100, -3, 0, 2];
        let b: [u16; 8] = [65535, 65535, 65535, 3, 100, 3, 9, 1];
        let h = run(p, src, |h| {
            simd8(h);
            for i in 0..8 {
                h.thread.set_grf_uw(2, i, a[i] as u16);
                h.thread.set_grf_uw(3, i, b[i]);
            }
        });
        for i in 0..8 {
            assert_eq!(
                h.thread.grf_ud(1, i) as i32,
                i32::from(a[i]) * i32::from(b[i]),
                "{p} mul {i}"
            );
            // avg reads both as W: (a + b + 1) >> 1 with b as signed.
            let bw = i32::from(b[i] as i16);
            let want = (i32::from(a[i]) + bw + 1) >> 1;
            assert_eq!(h.thread.grf_uw(4, i), want as u16, "{p} avg {i}");
        }
    }
}

/// addc/subb (Gen7): the carry or borrow goes to the accumulator (001
/// lines 646-648).
#[test]
fn addc_subb() {
    let a: [u32; 8] = [u32::MAX, 1, 0x8000_0000, 0, 5, 7, 0xFFFF_0000, 3];
    let b: [u32; 8] = [1, 2, 0x8000_0000, 1, 5, 9, 0x0001_0000, 3];
    for p in [IsaGen::Gen7, IsaGen::Gen75] {
        let src = "addc (8|M0) r1.0<1>:ud r2.0<8;8,1>:ud r3.0<8;8,1>:ud {AccWrEn}\n\
                   mov (8|M0) r4.0<1>:ud acc0.0<8;8,1>:ud\n\
                   subb (8|M0) r5.0<1>:ud r2.0<8;8,1>:ud r3.0<8;8,1>:ud {AccWrEn}\n\
                   mov (8|M0) r6.0<1>:ud acc0.0<8;8,1>:ud\n";
        let h = run(p, src, |h| {
            simd8(h);
            set_ud(h, 2, a);
            set_ud(h, 3, b);
        });
        for i in 0..8 {
            let s = u64::from(a[i]) + u64::from(b[i]);
            assert_eq!(h.thread.grf_ud(1, i), s as u32, "{p} addc {i}");
            assert_eq!(h.thread.grf_ud(4, i), (s >> 32) as u32, "{p} carry {i}");
            assert_eq!(
                h.thread.grf_ud(5, i),
                a[i].wrapping_sub(b[i]),
                "{p} subb {i}"
            );
            assert_eq!(
                h.thread.grf_ud(6, i),
                u32::from(a[i] < b[i]),
                "{p} borrow {i}"
            );
        }
    }
}

/// The implicit accumulator: Gen4/G45 arithmetic writes it unless cr0.0[1]
/// disables it (000 lines 7715-7720); Gen6+ only with AccWrEn (003 lines
/// 94489-94494).
#[test]
fn implicit_accumulator_writes() {
    for p in ALL {
        let acc_opt = if p >= IsaGen::Gen6 { " {AccWrEn}" } else { "" };
        let src = format!(
            "mov (8|M0) acc0.0<1>:f r4.0<8;8,1>:f\n\
             add (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f{acc_opt}\n\
             mov (8|M0) r5.0<1>:f acc0.0<8;8,1>:f\n\
             add (8|M0) r6.0<1>:f r2.0<8;8,1>:f r2.0<8;8,1>:f\n\
             mov (8|M0) r7.0<1>:f acc0.0<8;8,1>:f\n"
        );
        let h = run(p, &src, |h| {
            simd8(h);
            set_f(h, 2, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
            set_f(h, 3, [0.5; 8]);
            set_f(h, 4, [-9.0; 8]);
        });
        for i in 0..8 {
            let sum = (i + 1) as f32 + 0.5;
            assert_eq!(h.thread.grf_f(5, i), sum, "{p} AccWrEn/implicit {i}");
            let after = if p >= IsaGen::Gen6 {
                sum
            } else {
                2.0 * (i + 1) as f32
            };
            assert_eq!(h.thread.grf_f(7, i), after, "{p} no AccWrEn {i}");
        }
        // cr0.0[1] disables the implicit update.
        let h = run(p, &src, |h| {
            simd8(h);
            h.thread.set_cr0(0, 2);
            set_f(h, 2, [1.0; 8]);
            set_f(h, 3, [1.0; 8]);
            set_f(h, 4, [-9.0; 8]);
        });
        assert_eq!(h.thread.grf_f(5, 0), -9.0, "{p} acc disabled");
    }
}

/// Gen7 cr0 rounding also rounds integer-to-float conversions (001 lines
/// 1715-1720).
#[test]
fn gen7_rounding_of_conversions() {
    for p in [IsaGen::Gen7, IsaGen::Gen75] {
        for (mode, cr0) in modes(p) {
            let v: [i32; 8] = [
                0x0100_0001,
                0x0100_0003,
                -0x0100_0001,
                0x7FFF_FFFF,
                -0x7FFF_FFFF,
                5,
                0,
                -9,
            ];
            let h = run(p, "mov (8|M0) r1.0<1>:f r2.0<8;8,1>:d\n", |h| {
                simd8(h);
                h.thread.set_cr0(0, cr0);
                set_ud(h, 2, v.map(|x| x as u32));
            });
            for i in 0..8 {
                let want = round(v[i] < 0, u128::from(v[i].unsigned_abs()), 0, false, mode);
                assert_eq!(
                    h.thread.grf_ud(1, i),
                    want.to_bits(),
                    "{p} {mode:?} {}",
                    v[i]
                );
            }
        }
    }
}

/// An exact zero sum of opposite signs is +0, except -0 when rounding down
/// (IEEE 754 6.3; the manuals list no deviation, 000 lines 6984-7005).
#[test]
fn zero_sum_sign() {
    for p in ALL {
        for (mode, cr0) in modes(p) {
            let a = [1.0, -2.5, 0.0, -0.0, 0.0, 3.0, -0.0, 7.0];
            let b = [-1.0, 2.5, -0.0, -0.0, 0.0, -3.0, 0.0, -7.0];
            let got = run3(
                p,
                cr0,
                "add (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n",
                a,
                b,
                [0.0; 8],
            );
            for i in 0..8 {
                let want = eu_support::add(a[i], b[i], mode).to_bits();
                assert_eq!(got[i], want, "{p} {mode:?} {} + {}", a[i], b[i]);
            }
            let neg_zero = if mode == Mode::Rd { 0x8000_0000 } else { 0 };
            assert_eq!(got[0], neg_zero, "{p} {mode:?} 1 + -1");
        }
    }
}

/// DF arithmetic (Gen7+, 001 lines 629-663): Haswell regions DF with
/// 8-byte elements; Ivy Bridge counts 4-byte elements with doubled
/// execution size and strides (001 lines 660-663), so the same four DF
/// values take ExecSize 8 there.
#[test]
fn double_precision() {
    let a = [1.5f64, -2.25, 1.0e300, 0.1];
    let b = [2.0f64, 4.0, 1.0e10, 0.2];
    for p in [IsaGen::Gen7, IsaGen::Gen75] {
        let (n, r) = if p == IsaGen::Gen7 {
            (8, "8;8,1")
        } else {
            (4, "4;4,1")
        };
        let src = format!(
            "add ({n}|M0) r1.0<1>:df r2.0<{r}>:df r4.0<{r}>:df\n\
             mul ({n}|M0) r6.0<1>:df r2.0<{r}>:df r4.0<{r}>:df\n"
        );
        let h = run(p, &src, |h| {
            simd8(h);
            for i in 0..4 {
                let (x, y) = (a[i].to_bits(), b[i].to_bits());
                h.thread.set_grf_ud(2, 2 * i, x as u32);
                h.thread.set_grf_ud(2, 2 * i + 1, (x >> 32) as u32);
                h.thread.set_grf_ud(4, 2 * i, y as u32);
                h.thread.set_grf_ud(4, 2 * i + 1, (y >> 32) as u32);
            }
        });
        let df = |r: u8, i: usize| {
            f64::from_bits(
                u64::from(h.thread.grf_ud(r, 2 * i))
                    | u64::from(h.thread.grf_ud(r, 2 * i + 1)) << 32,
            )
        };
        for i in 0..4 {
            assert_eq!(df(1, i), a[i] + b[i], "{p} add {i}");
            // 1e300 * 1e10 overflows to infinity in round-to-nearest.
            assert_eq!(df(6, i), a[i] * b[i], "{p} mul {i}");
        }
    }
}
