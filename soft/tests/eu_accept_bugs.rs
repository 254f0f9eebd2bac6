//! Interpreter bugs found by the issue-6 acceptance sweep
//! (eu_accept_types.rs counts the lanes they touch and skips them). Each
//! test states the manual's result; all failed before soft/src/eu/ was
//! fixed and now guard against regressions.

mod eu_accept;

use baregpu_isa::IsaGen;
use baregpu_soft::eu::{Harness, Step};

fn run(p: IsaGen, src: &str, setup: impl FnOnce(&mut Harness)) -> Harness {
    let mut h = Harness::new(p);
    h.load(&eu_accept::kernels::assemble_valid(p, src));
    h.thread.set_dispatch_mask(0xFF);
    setup(&mut h);
    assert_eq!(h.run(16), Ok(Step::EndOfKernel), "{p}: {src}");
    h
}

/// Saturation depends on the destination type: [0, 1] for F, the type's
/// range for integers (000 line 9802; 003 lines 94448-94470). An F result
/// saturated into D must keep 5, not become 1.
#[test]
fn saturating_a_float_result_into_an_integer_keeps_the_integer_range() {
    for p in IsaGen::ALL {
        let h = run(
            p,
            "add (8|M0) (sat)r10.0<1>:d r2.0<8;8,1>:f r3.0<8;8,1>:f\n\
             mov (8|M0) (sat)r11.0<2>:uw r2.0<8;8,1>:f\n",
            |h| {
                for c in 0..8 {
                    h.thread.set_grf_f(2, c, 2.5 + c as f32 * 100.0);
                    h.thread.set_grf_f(3, c, 2.5);
                }
            },
        );
        for c in 0..8 {
            let x = 2.5 + c as f32 * 100.0;
            // Toward zero after the sum (000 lines 7250-7265).
            assert_eq!(h.thread.grf_ud(10, c), (x + 2.5) as u32, "{p} add ch{c}");
            assert_eq!(h.thread.grf_uw(11, 2 * c), x as u16, "{p} mov ch{c}");
        }
    }
}

/// The same rule on the Gen6+ `math` instruction: sqrt(30.25) = 5.5 into a
/// saturated D is 5.
#[test]
fn saturating_a_math_result_into_an_integer_keeps_the_integer_range() {
    for p in [IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75] {
        let h = run(p, "math.sqt (8|M0) (sat)r10.0<1>:d r2.0<8;8,1>:f\n", |h| {
            for c in 0..8 {
                h.thread.set_grf_f(2, c, 30.25);
            }
        });
        for c in 0..8 {
            assert_eq!(h.thread.grf_ud(10, c), 5, "{p} ch{c}");
        }
    }
}

/// frc's result lies in [+0, 1), "not including 1" (000 Table 14-3, lines
/// 11735-11740; the Gen6 page repeats it). For -2^-60 the exact fraction
/// 1 - 2^-60 must come out as the largest float below 1, 0x3F7FFFFF, on
/// every generation (Gen4/G45 even round toward zero, 000 line 7011).
#[test]
fn frc_stays_below_one() {
    for p in IsaGen::ALL {
        let h = run(p, "frc (8|M0) r10.0<1>:f r2.0<8;8,1>:f\n", |h| {
            for c in 0..8 {
                h.thread.set_grf_ud(2, c, 0xA180_0000 + c as u32); // ≈ -2^-60
            }
        });
        for c in 0..8 {
            assert_eq!(h.thread.grf_ud(10, c), 0x3F7F_FFFF, "{p} ch{c}");
        }
    }
}

/// The same on DF (Gen7; the F rule carried over, as the Gen7 manual
/// here has no frc page): -2^-60 gives the largest double below 1,
/// 0x3FEFFFFFFFFFFFFF, not 1.0; -0.3's exact fraction 1 - 0.3 needs one
/// bit more than DF has and is truncated; a positive value is exact.
#[test]
fn double_frc_stays_below_one() {
    let p = IsaGen::Gen75;
    let xs = [-f64::powi(2.0, -60), -0.3, 2.75, -1.0e-300];
    let h = run(p, "frc (4|M0) r10.0<1>:df r2.0<4;4,1>:df\n", |h| {
        for (i, x) in xs.iter().enumerate() {
            let b = x.to_bits();
            h.thread.set_grf_ud(2, 2 * i, b as u32);
            h.thread.set_grf_ud(2, 2 * i + 1, (b >> 32) as u32);
        }
    });
    let df = |i: usize| {
        u64::from(h.thread.grf_ud(10, 2 * i)) | u64::from(h.thread.grf_ud(10, 2 * i + 1)) << 32
    };
    // 1 - 0.3 exactly: 0.3 is 0x3FD3333333333333 = 5404319552844595 *
    // 2^-54; 1 - that = 12610078956637389 * 2^-54, 54 significant bits:
    // truncated to 53, 12610078956637388 * 2^-54.
    let frac_03 = 12_610_078_956_637_388f64 * f64::powi(2.0, -54);
    let want = [
        0x3FEF_FFFF_FFFF_FFFF,
        frac_03.to_bits(),
        0.75f64.to_bits(),
        0x3FEF_FFFF_FFFF_FFFF,
    ];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(df(i), *w, "{p} element {i}: {:e}", f64::from_bits(df(i)));
    }
}

/// Conversions do not flush denormals, and an F denormal becomes a finite
/// DF (001 lines 1329-1331 and the F-to-DF table, lines 1760-1775): 2^-149
/// is 0x36A0000000000000 as a DF. (Haswell; Ivy Bridge's paired-channel DF
/// layout leaves the F source's placement open.)
#[test]
fn a_float_denormal_converts_to_a_finite_double() {
    let p = IsaGen::Gen75;
    let h = run(p, "mov (4|M0) r10.0<1>:df r2.0<4;4,1>:f\n", |h| {
        h.thread.set_grf_ud(2, 0, 1);
        h.thread.set_grf_ud(2, 1, 0x8000_0003);
        h.thread.set_grf_ud(2, 2, 0x007F_FFFF);
        h.thread.set_grf_ud(2, 3, 0x3F80_0000);
    });
    let df = |i: usize| {
        u64::from(h.thread.grf_ud(10, 2 * i)) | u64::from(h.thread.grf_ud(10, 2 * i + 1)) << 32
    };
    let want = [
        f64::powi(2.0, -149),
        -3.0 * f64::powi(2.0, -149),
        f64::from(f32::from_bits(0x007F_FFFF)),
        1.0,
    ];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(df(i), w.to_bits(), "{p} element {i}");
    }
}

/// The execution type of INT DIV is the integer source type; a different
/// destination type converts the result (000 lines 8423-8434; 003 keeps
/// the rule). 7 / 2 into F is 3.0, not the bit pattern 3.
#[test]
fn integer_division_into_a_float_destination_converts() {
    for p in [IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75] {
        let h = run(
            p,
            "math.iqot (8|M0) r10.0<1>:f r2.0<8;8,1>:d r3.0<8;8,1>:d\n",
            |h| {
                for c in 0..8 {
                    h.thread.set_grf_ud(2, c, 7 + 10 * c as u32);
                    h.thread.set_grf_ud(3, c, 2);
                }
            },
        );
        for c in 0..8 {
            let q = (7 + 10 * c) / 2;
            assert_eq!(h.thread.grf_f(10, c), q as f32, "{p} ch{c}");
        }
    }
}
