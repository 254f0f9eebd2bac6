//! cmp/cmpn, condition modifiers, flag writes, predication and sel.

// Channels index several arrays at once; index loops read best.
#![allow(clippy::needless_range_loop)]

mod eu_support;

use baregpu_isa::IsaGen;
use eu_support::*;

const ALL: [IsaGen; 5] = IsaGen::ALL;

/// The nine classes of the manuals' comparison tables (000 lines
/// 7031-7111; 001 lines 1377-1520).
const CLASSES: [f32; 9] = [
    f32::NEG_INFINITY,
    -2.5,
    -1.0e-40, // -denorm
    -0.0,
    0.0,
    1.0e-40, // +denorm
    2.5,
    f32::INFINITY,
    f32::NAN,
];

/// A condition modifier's name and its meaning on two numbers.
type Rule = (&'static str, fn(f32, f32) -> bool);

const CMODS: [Rule; 6] = [
    ("eq", |a, b| a == b),
    ("ne", |a, b| a != b),
    ("gt", |a, b| a > b),
    ("ge", |a, b| a >= b),
    ("lt", |a, b| a < b),
    ("le", |a, b| a <= b),
];

/// cmp on every pair of classes: denormals compare as zero, NaN makes
/// every condition false but `ne`. The rule is checked against the
/// manual's "Greater-Than" table rows typed in below.
#[test]
fn cmp_float_tables() {
    // 001 lines 1377-1398 (cmp.g), rows src0 = -denorm, +denorm, NaN over
    // the columns -inf -Fin -denorm -0 +0 +denorm +Fin +inf NaN (the
    // T/F* entries are false for denormals flushed to zero).
    let gt_rows = [
        (
            2,
            [true, true, false, false, false, false, false, false, false],
        ),
        (
            5,
            [true, true, false, false, false, false, false, false, false],
        ),
        (8, [false; 9]),
    ];
    for p in ALL {
        for (name, rule) in CMODS {
            for (i, &a) in CLASSES.iter().enumerate() {
                // Compressed operands are even-aligned: the second half of
                // r4 is r4|1 = r5 (000 lines 8763-8764).
                let src = format!(
                    "cmp (16|M0) ({name})f0.0 null<1>:f r2.0<0;1,0>:f r4.0<8;8,1>:f {{Compr}}\n"
                );
                let src = if p <= IsaGen::G45 {
                    src
                } else {
                    src.replace(" {Compr}", "")
                };
                let h = run(p, &src, |h| {
                    h.thread.set_dispatch_mask(0xFFFF);
                    h.thread.set_grf_f(2, 0, a);
                    for (j, b) in CLASSES.iter().enumerate() {
                        let (r, e) = if j < 8 { (4, j) } else { (5, j - 8) };
                        h.thread.set_grf_f(r, e, *b);
                    }
                });
                let f = h.thread.flag(0);
                for (j, &b) in CLASSES.iter().enumerate() {
                    let want = rule(flush(a), flush(b));
                    assert_eq!(f >> j & 1 != 0, want, "{p} cmp.{name} {a:e} {b:e}");
                }
                if name == "gt"
                    && let Some((_, row)) = gt_rows.iter().find(|(r, _)| *r == i)
                {
                    for (j, &w) in row.iter().enumerate() {
                        assert_eq!(f >> j & 1 != 0, w, "{p} table row {i} column {j}");
                    }
                }
            }
        }
    }
}

/// cmpn: a NaN src1 makes every condition true but `ne`; a NaN src0 with
/// a number in src1 makes them false but `ne` (000 lines 6997-7003).
#[test]
fn cmpn_nan_rule() {
    for p in ALL {
        for (name, rule) in CMODS {
            let src = format!("cmpn (8|M0) ({name})f0.0 r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n");
            let a = [f32::NAN, 1.0, f32::NAN, 2.0, -1.0, 0.0, 3.0, f32::NAN];
            let b = [1.0, f32::NAN, f32::NAN, 2.0, 1.0, -0.0, 1.0, -5.0];
            let h = run(p, &src, |h| {
                simd8(h);
                set_f(h, 2, a);
                set_f(h, 3, b);
            });
            for i in 0..8 {
                let want = if b[i].is_nan() {
                    name != "ne"
                } else if a[i].is_nan() {
                    name == "ne"
                } else {
                    rule(a[i], b[i])
                };
                assert_eq!(
                    h.thread.flag(0) >> i & 1 != 0,
                    want,
                    "{p} cmpn.{name} {} {}",
                    a[i],
                    b[i]
                );
                // The destination's LSB is the flag.
                assert_eq!(h.thread.grf_ud(1, i) & 1 != 0, want, "{p} dst lsb");
            }
        }
    }
}

/// Integer compares are exact, whatever the mix of signed and unsigned.
#[test]
fn cmp_integers() {
    for p in ALL {
        let a: [u32; 8] = [0xFFFF_FFFF, 0, 5, 0x8000_0000, 7, 7, 1, 0];
        let b: [i32; 8] = [-1, 0, 6, -1, 7, 8, -5, i32::MIN];
        for (name, _) in CMODS {
            let src = format!("cmp (8|M0) ({name})f0.1 null<1>:d r2.0<8;8,1>:ud r3.0<8;8,1>:d\n");
            let h = run(p, &src, |h| {
                simd8(h);
                set_ud(h, 2, a);
                set_ud(h, 3, b.map(|x| x as u32));
            });
            for i in 0..8 {
                let (x, y) = (i64::from(a[i]), i64::from(b[i]));
                let want = match name {
                    "eq" => x == y,
                    "ne" => x != y,
                    "gt" => x > y,
                    "ge" => x >= y,
                    "lt" => x < y,
                    _ => x <= y,
                };
                assert_eq!(
                    h.thread.flag(0) >> (16 + i) & 1 != 0,
                    want,
                    "{p} {name} {x} {y}"
                );
            }
        }
    }
}

/// Flag bits of disabled channels keep their value (per-bit write enables,
/// 000 line 7794; 001 lines 2878-2880), also under predication.
#[test]
fn flag_write_enables() {
    for p in ALL {
        // Predicate and condition share the flag register (001 lines
        // 2838-2840): the predicate is read before the compare writes.
        let src = "(f0.0) cmp (8|M0) (lt)f0.0 null<1>:d r2.0<8;8,1>:d 4:d\n";
        let old: u32 = 0b1101_0110;
        let h = run(p, src, |h| {
            h.thread.set_dispatch_mask(0b1011_1111);
            h.thread.set_flag(0, old | 0xAB00);
            set_ud(h, 2, [0, 1, 2, 3, 4, 5, 6, 7]);
        });
        // Enabled: dispatch bit and predicate bit.
        let en = 0b1011_1111u32 & old;
        let lt: u32 = 0b0000_1111;
        let want = (old & !en) | (lt & en);
        assert_eq!(h.thread.flag(0) & 0xFF, want, "{p}");
        assert_eq!(h.thread.flag(0) >> 8, 0xAB, "{p} bits 15:8 untouched");
    }
}

/// Predication modes (000 lines 8608-8717): sequential, inverted, the
/// horizontal any/all groups, the vertical pair, and Align16's per-4 modes.
#[test]
fn predication_modes() {
    // f0.0 = 0b1000_0110_1111_0001, f0.1 = 0b0000_1111_0000_0011.
    let f00: u32 = 0b1000_0110_1111_0001;
    let f01: u32 = 0b0000_1111_0000_0011;
    let bit = |v: u32, i: usize| v >> i & 1 != 0;
    let group = |v: u32, i: usize, g: usize, any: bool| {
        let s = i - i % g;
        if any {
            (s..s + g).any(|k| bit(v, k))
        } else {
            (s..s + g).all(|k| bit(v, k))
        }
    };
    type Case<'a> = (&'static str, Box<dyn Fn(usize) -> bool + 'a>);
    let cases: Vec<Case> = vec![
        ("f0.0", Box::new(move |i| bit(f00, i))),
        ("~f0.0", Box::new(move |i| !bit(f00, i))),
        ("f0.0.any2h", Box::new(move |i| group(f00, i, 2, true))),
        ("f0.0.all2h", Box::new(move |i| group(f00, i, 2, false))),
        ("f0.0.any4h", Box::new(move |i| group(f00, i, 4, true))),
        ("~f0.0.all4h", Box::new(move |i| !group(f00, i, 4, false))),
        ("f0.0.any8h", Box::new(move |i| group(f00, i, 8, true))),
        ("f0.0.all8h", Box::new(move |i| group(f00, i, 8, false))),
        ("f0.0.any16h", Box::new(move |i| group(f00, i, 16, true))),
        ("f0.0.all16h", Box::new(move |i| group(f00, i, 16, false))),
        ("f0.1.all2h", Box::new(move |i| group(f01, i, 2, false))),
    ];
    for p in ALL {
        for (pred, want) in &cases {
            let src = format!("({pred}) mov (16|M0) r1.0<1>:w 1:w\n");
            let h = run(p, &src, |h| {
                h.thread.set_dispatch_mask(0xFFFF);
                h.thread.set_flag(0, f00 | f01 << 16);
            });
            for i in 0..16 {
                assert_eq!(
                    h.thread.grf_uw(1, i) == 1,
                    want(i),
                    "{p} ({pred}) channel {i}"
                );
            }
        }
        // Vertical: f0.0 with f0.1 before Gen7, f0.0 with f1.0 on Gen7.
        for (pred, any) in [("f0.0.anyv", true), ("f0.0.allv", false)] {
            let src = format!("({pred}) mov (16|M0) r1.0<1>:w 1:w\n");
            let other: u32 = 0b1100_1100_1100_1100;
            let h = run(p, &src, |h| {
                h.thread.set_dispatch_mask(0xFFFF);
                if p >= IsaGen::Gen7 {
                    h.thread.set_flag(0, f00);
                    h.thread.set_flag(1, other);
                } else {
                    h.thread.set_flag(0, f00 | other << 16);
                }
            });
            for i in 0..16 {
                let w = if any {
                    bit(f00, i) || bit(other, i)
                } else {
                    bit(f00, i) && bit(other, i)
                };
                assert_eq!(h.thread.grf_uw(1, i) == 1, w, "{p} ({pred}) {i}");
            }
        }
        // Align16: .x .y .z .w replicate one channel of each 4; any4h/all4h.
        for (sfx, k) in [("x", 0), ("y", 1), ("z", 2), ("w", 3)] {
            let src = format!("(f0.0.{sfx}) mov (8|M0) r1.0<1>:d 1:d {{Align16}}\n");
            let h = run(p, &src, |h| {
                simd8(h);
                h.thread.set_flag(0, f00);
            });
            for i in 0..8 {
                assert_eq!(
                    h.thread.grf_ud(1, i) == 1,
                    bit(f00, i - i % 4 + k),
                    "{p} .{sfx} {i}"
                );
            }
        }
    }
}

/// Condition modifiers on arithmetic use the result after saturation and
/// conversion (post signals, 000 lines 9137-9148): `.u` for NaN, NaN false
/// for ordered conditions, `.nz` true.
#[test]
fn post_condition_signals() {
    for p in ALL {
        let a = [1.0, -1.0, 0.0, f32::NAN, 0.5, -0.0, 2.0, -3.0];
        let b = [-1.0, -1.0, 0.0, 1.0, 0.6, 0.0, -2.5, 5.0];
        let mut flags = Vec::new();
        for cm in ["eq", "ne", "gt", "ge", "lt", "le", "un"] {
            let src = format!("add (8|M0) ({cm})f0.0 r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n");
            let h = run(p, &src, |h| {
                simd8(h);
                set_f(h, 2, a);
                set_f(h, 3, b);
            });
            flags.push(h.thread.flag(0) & 0xFF);
        }
        for i in 0..8 {
            let r = a[i] + b[i];
            let n = !r.is_nan();
            let want = [
                r == 0.0 && n,
                !(r == 0.0 && n),
                r > 0.0,
                r >= 0.0,
                r < 0.0,
                r <= 0.0,
                r.is_nan(),
            ];
            for (k, w) in want.iter().enumerate() {
                assert_eq!(
                    flags[k] >> i & 1 != 0,
                    *w,
                    "{p} cmod {k} lane {i} result {r}"
                );
            }
        }
        // Saturation happens before the signals: -0.5 saturates to 0.
        let h = run(
            p,
            "add (8|M0) (eq)f0.0 (sat)r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n",
            |h| {
                simd8(h);
                set_f(h, 2, [-0.5; 8]);
                set_f(h, 3, [0.0; 8]);
            },
        );
        assert_eq!(h.thread.flag(0) & 0xFF, 0xFF, "{p}");
    }
}

/// sel: the predicate chooses src0 or src1 and channels the predicate
/// turns off are still written (000 lines 13244-13294).
#[test]
fn sel_with_predicate() {
    for p in ALL {
        let h = run(
            p,
            "(f0.0) sel (8|M0) r1.0<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d\n",
            |h| {
                simd8(h);
                h.thread.set_flag(0, 0b1010_0110);
                set_ud(h, 2, [10; 8]);
                set_ud(h, 3, [20; 8]);
            },
        );
        for i in 0..8 {
            let want = if 0b1010_0110 >> i & 1 != 0 { 10 } else { 20 };
            assert_eq!(h.thread.grf_ud(1, i), want, "{p} {i}");
        }
    }
}

/// Gen6+ sel with `.l`/`.ge` is min/max returning the operand that is not
/// NaN (003 lines 100636-100766); it writes no flags (001 line 2886).
#[test]
fn sel_min_max() {
    let a = [1.0, 5.0, f32::NAN, 2.0, -0.0, -3.0, f32::NAN, 7.0];
    let b = [2.0, 3.0, 4.0, f32::NAN, 0.0, -3.0, f32::NAN, f32::INFINITY];
    for p in [IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75] {
        for (cm, is_min) in [("lt", true), ("ge", false)] {
            let src = format!("sel (8|M0) ({cm})f0.0 r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n");
            let h = run(p, &src, |h| {
                simd8(h);
                h.thread.set_flag(0, 0x1234);
                set_f(h, 2, a);
                set_f(h, 3, b);
            });
            for i in 0..8 {
                let want = if b[i].is_nan() {
                    a[i]
                } else if a[i].is_nan() {
                    b[i]
                } else if (a[i] < b[i]) == is_min && a[i] != b[i] {
                    a[i]
                } else if a[i] == b[i] {
                    if is_min { b[i] } else { a[i] }
                } else {
                    b[i]
                };
                let got = h.thread.grf_f(1, i);
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "{p} sel.{cm} {} {} -> {got}",
                    a[i],
                    b[i]
                );
            }
            assert_eq!(h.thread.flag(0), 0x1234, "{p} sel writes no flags");
        }
    }
}

/// Gen7 has two flag registers; f1 works for predication and condition
/// modifiers (001 lines 2852-2890).
#[test]
fn gen7_second_flag_register() {
    for p in [IsaGen::Gen7, IsaGen::Gen75] {
        let src = "cmp (8|M0) (gt)f1.1 null<1>:d r2.0<8;8,1>:d 3:d\n\
                   (f1.1) mov (8|M0) r1.0<1>:d 9:d\n";
        let h = run(p, src, |h| {
            simd8(h);
            set_ud(h, 2, [0, 1, 2, 3, 4, 5, 6, 7]);
        });
        assert_eq!(h.thread.flag(1) >> 16, 0b1111_0000, "{p}");
        assert_eq!(h.thread.flag(0), 0, "{p}");
        assert_eq!(ud(&h, 1), [0, 0, 0, 0, 9, 9, 9, 9], "{p}");
    }
}
