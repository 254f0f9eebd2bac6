//! Xe-HPG ALU in the one-thread harness (`XeHarness`): kernels in IGA
//! syntax, random seeded inputs, every result checked against a host
//! computation.

#![allow(clippy::needless_range_loop, clippy::type_complexity)]

use baregpu_soft::eu::ErrorKind;
use baregpu_soft::eu::run::Step;
use baregpu_soft::eu::xe::XeHarness;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
    /// A finite float of moderate magnitude (sign, exponent -20..20).
    fn float(&mut self) -> f32 {
        let m = self.next() & 0x7F_FFFF;
        let e = 127 - 20 + self.next() % 41;
        f32::from_bits((self.next() & 0x8000_0000) | e << 23 | m)
    }
}

/// Runs `src` with r2..r5 preloaded (dwords), returns the harness.
fn run(src: &str, regs: &[[u32; 8]; 4]) -> XeHarness {
    let mut h = XeHarness::new();
    h.load_asm(src).unwrap_or_else(|e| panic!("{src}: {e:?}"));
    for (r, vals) in regs.iter().enumerate() {
        for (i, v) in vals.iter().enumerate() {
            h.set_grf_ud(2 + r as u8, i, *v);
        }
    }
    let step = h.run(100).unwrap_or_else(|e| panic!("{src}: {e}"));
    assert_eq!(step, Step::EndOfKernel, "{src}");
    h
}

fn randoms(rng: &mut Rng, f: impl Fn(&mut Rng) -> u32) -> [[u32; 8]; 4] {
    let mut r = [[0; 8]; 4];
    for reg in r.iter_mut() {
        for v in reg.iter_mut() {
            *v = f(rng);
        }
    }
    r
}

#[test]
fn smoke_kernel_with_flow_math_and_eot() {
    let src = "mov (8|M0) r10.0<1>:ud r2.0<1;1,0>:ud
add (8|M0) r11.0<1>:f r2.0<1;1,0>:f r3.0<1;1,0>:f
math.inv (8|M0) r17.0<1>:f r3.0<1;1,0>:f {$1}
sync.nop null {$1.dst}
mov (8|M0) r18.0<1>:f r17.0<1;1,0>:f
send.gtwy (1|M0) null r0 null:0 0x0 0x02000010 {EOT}
";
    let mut h = XeHarness::new();
    h.load_asm(src).unwrap();
    for i in 0..8 {
        h.set_grf_ud(2, i, (i as f32 + 1.0).to_bits());
        h.set_grf_ud(3, i, 2.0f32.to_bits());
    }
    assert_eq!(h.run(100).unwrap(), Step::Ended);
    for i in 0..8 {
        assert_eq!(f32::from_bits(h.grf_ud(11, i)), i as f32 + 3.0);
        assert_eq!(f32::from_bits(h.grf_ud(18, i)), 0.5);
    }
}

/// Two-source integer opcodes over d/ud/w/uw, every channel against the
/// host.
#[test]
fn two_source_integer_ops_match_the_host() {
    let mut rng = Rng(0x5eed_0001);
    type F = fn(i64, i64, u32) -> i64;
    let ops: [(&str, F); 9] = [
        ("add", |a, b, _| a + b),
        ("and", |a, b, _| a & b),
        ("or", |a, b, _| a | b),
        ("xor", |a, b, _| a ^ b),
        ("avg", |a, b, _| (a + b + 1) >> 1),
        ("shl", |a, b, bits| a << (b as u32 & (bits - 1))),
        ("shr", |a, b, bits| {
            let m = if bits == 32 { 0xFFFF_FFFF } else { 0xFFFF };
            (a as u64 & m) as i64 >> (b as u32 & (bits - 1))
        }),
        ("asr", |a, b, bits| a >> (b as u32 & (bits - 1))),
        ("mul", |a, b, _| a * b),
    ];
    for ty in ["d", "ud", "w", "uw"] {
        let (size, signed) = match ty {
            "d" => (4, true),
            "ud" => (4, false),
            "w" => (2, true),
            _ => (2, false),
        };
        for (name, f) in ops {
            // DG2 has no 32x32 multiply: mul d/ud takes a word src1.
            let t1 = if name == "mul" && size == 4 {
                if signed { "w" } else { "uw" }
            } else {
                ty
            };
            let n = 32 / size;
            let src = format!("{name} ({n}|M0) r10.0<1>:{ty} r2.0<1;1,0>:{ty} r3.0<1;1,0>:{t1}\n");
            let regs = randoms(&mut rng, |r| r.next());
            let h = run(&src, &regs);
            for c in 0..n {
                let get = |reg: usize, sz: usize, sg: bool| -> i64 {
                    let d = regs[reg][c * sz / 4];
                    let v = if sz == 4 {
                        d as u64
                    } else {
                        (d >> (16 * (c % 2))) as u64 & 0xFFFF
                    };
                    match (sz, sg) {
                        (4, true) => v as u32 as i32 as i64,
                        (4, false) => v as u32 as i64,
                        (_, true) => v as u16 as i16 as i64,
                        _ => v as u16 as i64,
                    }
                };
                let a = get(0, size, signed);
                let (s1, sg1) = if t1 == ty {
                    (size, signed)
                } else {
                    (2, signed)
                };
                let b = get(1, s1, sg1);
                let want = f(a, b, (size * 8) as u32) as u64;
                let got = if size == 4 {
                    h.grf_ud(10, c) as u64
                } else {
                    (h.grf_ud(10, c / 2) >> (16 * (c % 2))) as u64 & 0xFFFF
                };
                let mask = if size == 4 { 0xFFFF_FFFF } else { 0xFFFF };
                assert_eq!(got, want & mask, "{src} channel {c}: {a} {b}");
            }
        }
    }
}

/// The 32x32 integer multiply DG2 lacks is refused by name.
#[test]
fn dword_by_dword_mul_is_refused() {
    let mut h = XeHarness::new();
    h.load_asm("mul (8|M0) r10.0<1>:d r2.0<1;1,0>:d r3.0<1;1,0>:d\n")
        .unwrap();
    let e = h.run(10).unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::BadOperand(w) if w.contains("32x32")),
        "{e}"
    );
    // 64-bit types: DG2 has no 64-bit ALU.
    h.load_asm("add (8|M0) r10.0<1>:q r2.0<1;1,0>:q r4.0<1;1,0>:q\n")
        .unwrap();
    let e = h.run(10).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Unsupported(_)), "{e}");
    h.load_asm("mov (8|M0) r10.0<1>:df r2.0<1;1,0>:f\n")
        .unwrap();
    assert!(matches!(
        h.run(10).unwrap_err().kind,
        ErrorKind::Unsupported(_)
    ));
}

/// Three-source and bit opcodes on dwords.
#[test]
fn xe_three_source_and_bit_ops_match_the_host() {
    let mut rng = Rng(0x5eed_0002);
    type F = fn(u32, u32, u32) -> u32;
    let ops: [(&str, &str, F); 12] = [
        ("add3", "d", |a, b, c| a.wrapping_add(b).wrapping_add(c)),
        ("bfn.0xCA", "ud", |a, b, c| (a & !c) | (b & c)),
        ("bfn.0x96", "ud", |a, b, c| a ^ b ^ c),
        ("bfn.0x80", "ud", |a, b, c| a & b & c),
        ("bfn.0x01", "ud", |a, b, c| !(a | b | c)),
        ("dp4a", "d", |a, b, c| {
            let mut s = a as i32;
            for k in 0..4 {
                s = s.wrapping_add(((b >> (8 * k)) as i8 as i32) * ((c >> (8 * k)) as i8 as i32));
            }
            s as u32
        }),
        ("dp4a", "ud", |a, b, c| {
            let mut s = a;
            for k in 0..4 {
                s = s.wrapping_add(((b >> (8 * k)) & 0xFF) * ((c >> (8 * k)) & 0xFF));
            }
            s
        }),
        ("bfe", "ud", |w, o, v| {
            let (w, o) = (w & 31, o & 31);
            if w == 0 {
                0
            } else if w + o < 32 {
                (v << (32 - w - o)) >> (32 - w)
            } else {
                v >> o
            }
        }),
        ("bfe", "d", |w, o, v| {
            let (w, o) = (w & 31, o & 31);
            if w == 0 {
                0
            } else if w + o < 32 {
                (((v << (32 - w - o)) as i32) >> (32 - w)) as u32
            } else {
                ((v as i32) >> o) as u32
            }
        }),
        ("bfi2", "ud", |m, a, b| (m & a) | (!m & b)),
        ("mad", "d", |a, b, c| a.wrapping_add(b.wrapping_mul(c))),
        ("mad", "ud", |a, b, c| a.wrapping_add(b.wrapping_mul(c))),
    ];
    for (name, ty, f) in ops {
        // mad's word src2 (no 32x32 multiply on DG2).
        let t2 = if name == "mad" {
            if ty == "d" { "w" } else { "uw" }
        } else {
            ty
        };
        let st = if t2 == ty { 1 } else { 2 };
        let src =
            format!("{name} (8|M0) r10.0<1>:{ty} r2.0<1;0>:{ty} r3.0<1;0>:{ty} r4.0<{st}>:{t2}\n");
        let regs = randoms(&mut rng, |r| r.next());
        let h = run(&src, &regs);
        for c in 0..8 {
            // src2 <2> of a word type: word 2c of r4.
            let s2 = if t2 == ty {
                regs[2][c]
            } else {
                let w = (regs[2][c] & 0xFFFF) as u16;
                if t2 == "w" {
                    w as i16 as i32 as u32
                } else {
                    w as u32
                }
            };
            assert_eq!(
                h.grf_ud(10, c),
                f(regs[0][c], regs[1][c], s2),
                "{src} ch {c}"
            );
        }
    }
    let one: [(&str, &str, fn(u32) -> u32); 6] = [
        ("bfrev", "ud", |a| a.reverse_bits()),
        ("cbit", "ud", |a| a.count_ones()),
        ("fbl", "ud", |a| {
            if a == 0 { u32::MAX } else { a.trailing_zeros() }
        }),
        ("fbh", "ud", |a| {
            if a == 0 { u32::MAX } else { a.leading_zeros() }
        }),
        ("fbh", "d", |a| {
            let x = if (a as i32) < 0 { !a } else { a };
            if x == 0 { u32::MAX } else { x.leading_zeros() }
        }),
        ("lzd", "ud", |a| a.leading_zeros()),
    ];
    for (name, ty, f) in one {
        let src = format!("{name} (8|M0) r10.0<1>:ud r2.0<1;1,0>:{ty}\n");
        let mut regs = randoms(&mut rng, |r| r.next() >> (r.next() % 32));
        regs[0][0] = 0;
        regs[0][1] = u32::MAX;
        let h = run(&src, &regs);
        for c in 0..8 {
            assert_eq!(
                h.grf_ud(10, c),
                f(regs[0][c]),
                "{src} ch {c} {:#x}",
                regs[0][c]
            );
        }
    }
    // bfi1: width, offset.
    let src = "bfi1 (8|M0) r10.0<1>:ud r2.0<1;1,0>:ud r3.0<1;1,0>:ud\n";
    let regs = randoms(&mut rng, |r| r.next() % 40);
    let h = run(src, &regs);
    for c in 0..8 {
        let (w, o) = (regs[0][c] & 31, regs[1][c] & 31);
        assert_eq!(
            h.grf_ud(10, c),
            (((1u64 << w) - 1) as u32).wrapping_shl(o),
            "bfi1 ch {c}"
        );
    }
}

/// Every finite non-negative HF value as f64, ascending (the oracle for
/// rounding to HF: the nearest, ties to the even code).
fn hf_table() -> Vec<f64> {
    (0u16..0x7C00).map(hf_to_f64).collect()
}

fn hf_to_f64(h: u16) -> f64 {
    let e = (h >> 10) & 0x1F;
    let m = f64::from(h & 0x3FF);
    let v = if e == 0 {
        m * 2f64.powi(-24)
    } else {
        (1.0 + m / 1024.0) * 2f64.powi(i32::from(e) - 15)
    };
    if h & 0x8000 != 0 { -v } else { v }
}

fn host_f16(x: f64, table: &[f64]) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    // Beyond the largest finite value by half an ulp or more: infinity.
    if a >= 65520.0 {
        return sign | 0x7C00;
    }
    let i = table.partition_point(|v| *v < a);
    if i < table.len() && table[i] == a {
        return sign | i as u16;
    }
    let (lo, hi) = (i - 1, i.min(table.len() - 1));
    let (dl, dh) = (a - table[lo], table[hi] - a);
    let pick = if dl < dh || (dl == dh && lo % 2 == 0) {
        lo
    } else {
        hi
    };
    sign | pick as u16
}

/// F arithmetic (RNE, the default rounding) and comparisons against the
/// host's IEEE operations; min/max through sel with a condition.
#[test]
fn float_ops_match_the_host() {
    let mut rng = Rng(0x5eed_0003);
    type F = fn(f32, f32, f32) -> f32;
    let ops: [(&str, F); 8] = [
        (
            "add (8|M0) r10.0<1>:f r2.0<1;1,0>:f r3.0<1;1,0>:f",
            |a, b, _| a + b,
        ),
        (
            "add (8|M0) r10.0<1>:f -r2.0<1;1,0>:f (abs)r3.0<1;1,0>:f",
            |a, b, _| -a + b.abs(),
        ),
        (
            "mul (8|M0) r10.0<1>:f r2.0<1;1,0>:f r3.0<1;1,0>:f",
            |a, b, _| a * b,
        ),
        (
            "mad (8|M0) r10.0<1>:f r2.0<1;0>:f r3.0<1;0>:f r4.0<1>:f",
            |a, b, c| b.mul_add(c, a),
        ),
        (
            "sel (8|M0) (lt)f0.0 r10.0<1>:f r2.0<1;1,0>:f r3.0<1;1,0>:f",
            |a, b, _| a.min(b),
        ),
        (
            "sel (8|M0) (ge)f0.0 r10.0<1>:f r2.0<1;1,0>:f r3.0<1;1,0>:f",
            |a, b, _| a.max(b),
        ),
        ("frc (8|M0) r10.0<1>:f r2.0<1;1,0>:f", |a, _, _| {
            a - a.floor()
        }),
        ("rndd (8|M0) r10.0<1>:f r2.0<1;1,0>:f", |a, _, _| a.floor()),
    ];
    for (src, f) in ops {
        let regs = randoms(&mut rng, |r| r.float().to_bits());
        let h = run(&format!("{src}\n"), &regs);
        for c in 0..8 {
            let (a, b, d) = (
                f32::from_bits(regs[0][c]),
                f32::from_bits(regs[1][c]),
                f32::from_bits(regs[2][c]),
            );
            assert_eq!(
                h.grf_ud(10, c),
                f(a, b, d).to_bits(),
                "{src} ch {c}: {a} {b} {d}"
            );
        }
    }
    for (src, f) in [
        (
            "rnde (8|M0) r10.0<1>:f r2.0<1;1,0>:f",
            f32::round_ties_even as fn(f32) -> f32,
        ),
        ("rndu (8|M0) r10.0<1>:f r2.0<1;1,0>:f", f32::ceil),
        ("rndz (8|M0) r10.0<1>:f r2.0<1;1,0>:f", f32::trunc),
    ] {
        let regs = randoms(&mut rng, |r| (r.float() * 0.001).to_bits());
        let h = run(&format!("{src}\n"), &regs);
        for c in 0..8 {
            let a = f32::from_bits(regs[0][c]);
            assert_eq!(f32::from_bits(h.grf_ud(10, c)), f(a), "{src} {a}");
        }
    }
}

/// Saturation, conditional modifiers into flags, predication (normal and
/// inverted) and cmp's all-ones destination.
#[test]
fn cmp_flags_predication_and_saturation() {
    let mut rng = Rng(0x5eed_0004);
    for _ in 0..8 {
        let regs = randoms(&mut rng, |r| r.next() % 200);
        let src = "cmp (16|M0) (lt)f1.0 r10.0<1>:ud r2.0<1;1,0>:ud r4.0<1;1,0>:ud
(f1.0) mov (16|M0) r12.0<1>:ud r4.0<1;1,0>:ud
(~f1.0) add (16|M0) r12.0<1>:d r2.0<1;1,0>:d -r4.0<1;1,0>:d
add (16|M0) (sat)r14.0<1>:uw r2.0<1;1,0>:uw 0xFFF0:uw
";
        let h = run(src, &regs);
        let mut flags = 0u32;
        for c in 0..16 {
            let (a, b) = (regs[c / 8][c % 8], regs[2 + c / 8][c % 8]);
            let lt = a < b;
            flags |= u32::from(lt) << c;
            assert_eq!(
                h.grf_ud(10 + (c / 8) as u8, c % 8),
                if lt { u32::MAX } else { 0 }
            );
            let want = if lt { b } else { a.wrapping_sub(b) };
            assert_eq!(h.grf_ud(12 + (c / 8) as u8, c % 8), want, "ch {c}");
        }
        assert_eq!(h.thread.thread.flag(1) & 0xFFFF, flags);
        // Words: r2's 16 low... words of r2 (16 channels of :uw).
        for c in 0..16 {
            let w = (regs[0][c / 2] >> (16 * (c % 2))) & 0xFFFF;
            let got = (h.grf_ud(14, c / 2) >> (16 * (c % 2))) & 0xFFFF;
            assert_eq!(got, (w + 0xFFF0).min(0xFFFF), "sat ch {c}");
        }
    }
    // A condition modifier on arithmetic, then float saturation.
    let mut regs = [[0u32; 8]; 4];
    for c in 0..8 {
        regs[0][c] = (c as f32 - 3.5).to_bits();
        regs[1][c] = 0.25f32.to_bits();
    }
    let h = run(
        "add (8|M0) (gt)f0.0 r10.0<1>:f r2.0<1;1,0>:f r3.0<1;1,0>:f
mul (8|M0) (sat)r11.0<1>:f r2.0<1;1,0>:f r3.0<1;1,0>:f\n",
        &regs,
    );
    for c in 0..8 {
        let s = c as f32 - 3.5 + 0.25;
        assert_eq!(h.thread.thread.flag(0) >> c & 1 != 0, s > 0.0, "ch {c}");
        let m = ((c as f32 - 3.5) * 0.25).clamp(0.0, 1.0);
        assert_eq!(f32::from_bits(h.grf_ud(11, c)), m);
    }
}

/// Regions: strided, scalar, two rows of a width; a destination stride.
#[test]
fn regions_select_the_elements_the_manual_describes() {
    let mut rng = Rng(0x5eed_0005);
    let regs = randoms(&mut rng, |r| r.next());
    let h = run(
        "mov (8|M0) r10.0<1>:ud r2.1<4;2,2>:ud
mov (8|M0) r11.0<1>:ud r3.5<0;1,0>:ud
mov (8|M0) r12.0<2>:uw r4.0<1;1,0>:uw
add (8|M0) r13.0<1>:ud r2.0<2;1,0>:ud r4.7<0;1,0>:ud\n",
        &regs,
    );
    let flat = |i: usize| regs[i / 8][i % 8];
    for c in 0..8 {
        // <4;2,2> from dword 1: rows of two elements two apart, rows four
        // apart.
        let i = 1 + (c / 2) * 4 + (c % 2) * 2;
        assert_eq!(h.grf_ud(10, c), flat(i), "strided ch {c}");
        assert_eq!(h.grf_ud(11, c), regs[1][5], "scalar ch {c}");
        let w = (regs[2][c / 2] >> (16 * (c % 2))) & 0xFFFF;
        assert_eq!(h.grf_ud(12, c) & 0xFFFF, w, "dst stride ch {c}");
        assert_eq!(h.grf_ud(13, c), flat(2 * c).wrapping_add(regs[2][7]));
    }
}

/// cmp writes all ones or zeros in every bit of a destination channel,
/// whatever its type (004 cmp, line 12444): a float destination holds
/// 0xFFFFFFFF, not -1.0 (IGC's fmod ands it with the divisor's bits), a
/// half-float one 0xFFFF.
#[test]
fn cmp_destinations_hold_all_ones() {
    let mut h = XeHarness::new();
    h.load_asm(
        "cmp (8|M0) (lt)f0.0 r10.0<1>:f r2.0<1;1,0>:f r3.0<1;1,0>:f
cmp (8|M0) (lt)f0.0 r11.0<1>:hf r2.0<1;1,0>:f r3.0<1;1,0>:f\n",
    )
    .unwrap();
    for i in 0..8 {
        h.set_grf_ud(2, i, (i as f32).to_bits());
        h.set_grf_ud(3, i, 3.5f32.to_bits());
    }
    h.run(10).unwrap();
    for c in 0..8usize {
        let want = if c < 4 { 0xFFFF_FFFF } else { 0 };
        assert_eq!(h.grf_ud(10, c), want, "f channel {c}");
        let half = (h.grf_ud(11, c / 2) >> (16 * (c % 2))) & 0xFFFF;
        assert_eq!(half, want & 0xFFFF, "hf channel {c}");
    }
}

/// sel and csel move the chosen source's bits when types match and
/// nothing modifies them, as a raw mov does: integer bit patterns that
/// read as NaNs through a :f sel (IGC's convert_int_sat selects -1 and
/// qnan(0x3FFFFF) = INT_MAX so) keep their bits.
#[test]
fn sel_moves_bits_that_read_as_nans() {
    let mut h = XeHarness::new();
    h.load_asm(
        "cmp (8|M0) (lt)f0.0 null<1>:d r2.0<1;1,0>:d 4:w
(f0.0) sel (8|M0) r10.0<1>:f r3.0<1;1,0>:f qnan(0x3FFFFF):f
(f0.0) sel (8|M0) r11.0<1>:f r3.0<1;1,0>:f (abs)r3.0<1;1,0>:f\n",
    )
    .unwrap();
    for i in 0..8 {
        h.set_grf_ud(2, i, i as u32);
        h.set_grf_ud(3, i, (-(i as i32) - 1) as u32);
    }
    h.run(10).unwrap();
    for c in 0..8usize {
        let int = (-(c as i32) - 1) as u32;
        let want = if c < 4 { int } else { 0x7FFF_FFFF };
        assert_eq!(h.grf_ud(10, c), want, "channel {c}");
    }
    // A source modifier makes it arithmetic: the NaN becomes canonical
    // where (abs) is taken.
    assert_eq!(h.grf_ud(11, 0), 0xFFFF_FFFF);
    assert!(f32::from_bits(h.grf_ud(11, 5)).is_nan());
}

/// A SIMD16 VxH read takes each channel's address from its own a0
/// sub-register, a0.0-a0.15 (IGC's dynamically indexed private arrays on
/// DG2: `mov (16|M0) r91.0<1>:d r[a0.0]<1,0>:d`). Channels 8-15 once read
/// a0.0-a0.7 again.
#[test]
fn simd16_vxh_reads_a0_0_to_a0_15() {
    let mut h = XeHarness::new();
    h.load_asm(
        "(W) mov (16|M0) a0.0<1>:uw r4.0<1;1,0>:uw
mov (16|M0) r40.0<1>:d r[a0.0]<1,0>:d {A@1}\n",
    )
    .unwrap();
    for i in 0..8 {
        // Channel c reads dword 15 - c of r60-r61.
        let at = |c: u32| 60 * 32 + (15 - c) * 4;
        h.set_grf_ud(4, i, at(2 * i as u32) | at(2 * i as u32 + 1) << 16);
        h.set_grf_ud(60, i, 100 + i as u32);
        h.set_grf_ud(61, i, 108 + i as u32);
    }
    h.run(10).unwrap();
    for c in 0..16usize {
        assert_eq!(
            h.grf_ud(40 + (c / 8) as u8, c % 8),
            115 - c as u32,
            "channel {c}"
        );
    }
}

/// Conversions: F to HF and back, HF arithmetic in HF precision, F to BF
/// and back, integers to and from F.
#[test]
fn conversions_and_half_precision() {
    let table = hf_table();
    let mut rng = Rng(0x5eed_0006);
    for _ in 0..16 {
        let regs = randoms(&mut rng, |r| (r.float() * 0.01).to_bits());
        let h = run(
            "mov (8|M0) r10.0<1>:hf r2.0<1;1,0>:f
mov (8|M0) r11.0<1>:bf r2.0<1;1,0>:f
mov (8|M0) r12.0<1>:d r2.0<1;1,0>:f
mov (8|M0) r13.0<1>:f r3.0<1;1,0>:d\n",
            &regs,
        );
        for c in 0..8 {
            let a = f32::from_bits(regs[0][c]);
            let hf = (h.grf_ud(10, c / 2) >> (16 * (c % 2))) & 0xFFFF;
            assert_eq!(hf as u16, host_f16(f64::from(a), &table), "f->hf {a}");
            let bf = (h.grf_ud(11, c / 2) >> (16 * (c % 2))) & 0xFFFF;
            let b = a.to_bits();
            let want = (b + 0x7FFF + ((b >> 16) & 1)) >> 16;
            assert_eq!(bf, want, "f->bf {a}");
            assert_eq!(h.grf_ud(12, c) as i32, a as i32, "f->d {a}");
            assert_eq!(f32::from_bits(h.grf_ud(13, c)), regs[1][c] as i32 as f32);
        }
    }
    // HF arithmetic: exact results rounded once to HF.
    for _ in 0..16 {
        let regs = randoms(&mut rng, |r| {
            let a = host_f16(f64::from(r.float() * 1e-3), &table);
            let b = host_f16(f64::from(r.float() * 1e-3), &table);
            u32::from(a) | u32::from(b) << 16
        });
        // cr0.0 bit 10 keeps HF denormals (the default flushes them).
        let h = run(
            "or (1|M0) cr0.0<1>:ud cr0.0<0;1,0>:ud 0x400:ud
add (16|M0) r10.0<1>:hf r2.0<1;1,0>:hf r3.0<1;1,0>:hf
mul (16|M0) r11.0<1>:hf r2.0<1;1,0>:hf r3.0<1;1,0>:hf
mad (16|M0) r12.0<1>:hf r2.0<1;0>:hf r3.0<1;0>:hf r4.0<1>:hf
mov (16|M0) r13.0<1>:f r2.0<1;1,0>:hf\n",
            &regs,
        );
        let hv = |r: usize, c: usize| (regs[r][c / 2] >> (16 * (c % 2))) as u16;
        let got = |reg: u8, c: usize| (h.grf_ud(reg, c / 2) >> (16 * (c % 2))) as u16;
        for c in 0..16 {
            let (a, b, d) = (
                hf_to_f64(hv(0, c)),
                hf_to_f64(hv(1, c)),
                hf_to_f64(hv(2, c)),
            );
            assert_eq!(got(10, c), host_f16(a + b, &table), "hf add {a} {b}");
            assert_eq!(got(11, c), host_f16(a * b, &table), "hf mul {a} {b}");
            // a + b*d is exact in f64 at these magnitudes.
            assert_eq!(got(12, c), host_f16(a + b * d, &table), "hf mad");
        }
        for c in 0..8 {
            assert_eq!(
                f64::from(f32::from_bits(h.grf_ud(13, c))),
                hf_to_f64(hv(0, c))
            );
        }
    }
    // By default HF denormals flush in arithmetic: the smallest denormal
    // plus zero is zero; a move keeps it.
    let mut regs = [[0u32; 8]; 4];
    regs[0][0] = 1;
    let h = run(
        "add (1|M0) r10.0<1>:hf r2.0<0;1,0>:hf r3.0<0;1,0>:hf
mov (1|M0) r11.0<1>:hf r2.0<0;1,0>:hf\n",
        &regs,
    );
    assert_eq!(h.grf_ud(10, 0) & 0xFFFF, 0);
    assert_eq!(h.grf_ud(11, 0) & 0xFFFF, 1);
}

/// math as an instruction: the Gen7.5 unit's results, within an ulp of
/// the correctly rounded value for inv and sqrt, exact for fdiv's exact
/// quotients.
#[test]
fn math_instruction() {
    let mut rng = Rng(0x5eed_0007);
    let regs = randoms(&mut rng, |r| r.float().abs().to_bits());
    let h = run(
        "math.inv (8|M0) r10.0<1>:f r2.0<1;1,0>:f {$0}
math.sqt (8|M0) r11.0<1>:f r3.0<1;1,0>:f {$1}
sync.allwr null\n",
        &regs,
    );
    for c in 0..8 {
        let (a, b) = (f32::from_bits(regs[0][c]), f32::from_bits(regs[1][c]));
        let ulps = |x: f32, y: f32| (x.to_bits() as i64 - y.to_bits() as i64).abs();
        assert!(
            ulps(f32::from_bits(h.grf_ud(10, c)), 1.0 / a) <= 1,
            "inv {a}"
        );
        assert!(
            ulps(f32::from_bits(h.grf_ud(11, c)), b.sqrt()) <= 1,
            "sqrt {b}"
        );
    }
}

/// Random Gen12.5 words as kernels: errors, never a panic.
#[test]
fn random_words_never_panic() {
    let mut rng = Rng(0x5eed_0008);
    let mut ran = 0;
    for _ in 0..3000 {
        let mut bytes = Vec::new();
        for _ in 0..16 {
            bytes.extend_from_slice(&rng.next().to_le_bytes());
        }
        let mut h = XeHarness::new();
        h.load(&bytes);
        ran += h.program.len();
        let _ = h.run(64);
    }
    assert!(ran > 0, "some random words decode");
}

/// dpas (ExecSize 8, depth 8): integer bytes and HF/BF against the
/// layout of 004 lines 13756-14070 computed on the host (see
/// `soft/src/eu/xe/dpas.rs`).
#[test]
fn dpas_integer_and_half_precision() {
    let mut rng = Rng(0x5eed_0009);
    let table = hf_table();
    for (src, float) in [
        ("dpas.8x4 (8|M0) r40:d r30:d r10:b r20:ub", 0),
        ("dpas.8x3 (8|M0) r40:ud r30:ud r10:ub r20:ub", 0),
        ("dpas.8x2 (8|M0) r40:f r30:f r10:hf r20:hf", 1),
        ("dpas.8x4 (8|M0) r40:f r30:f r10:bf r20:bf", 2),
    ] {
        let rep: usize = src[7..8].parse().unwrap();
        let mut h = XeHarness::new();
        h.load_asm(&format!("{src} {{$0}}\nsync.allwr null\n"))
            .unwrap();
        let mut r1 = [[0u32; 8]; 8];
        let mut r2 = [[0u32; 8]; 8];
        let mut r0 = [[0u32; 8]; 8];
        let el = |rng: &mut Rng| -> u32 {
            match float {
                0 => rng.next(),
                1 => {
                    let x = rng.float() / 2f32.powi(16) * (rng.next() % 2 + 1) as f32;
                    let a = host_f16(f64::from(x.clamp(-15.0, 15.0)), &table);
                    let b = host_f16(
                        f64::from((rng.float() / 2f32.powi(17)).clamp(-15.0, 15.0)),
                        &table,
                    );
                    u32::from(a) | u32::from(b) << 16
                }
                _ => {
                    let a = (rng.float() / 2f32.powi(16)).to_bits() >> 16;
                    let b = (rng.float() / 2f32.powi(16)).to_bits() >> 16;
                    a | b << 16
                }
            }
        };
        for k in 0..8 {
            for n in 0..8 {
                r1[k][n] = el(&mut rng);
                r2[k][n] = el(&mut rng);
                r0[k][n] = if float > 0 {
                    (rng.float() / 65536.0).to_bits()
                } else {
                    rng.next()
                };
                h.set_grf_ud(10 + k as u8, n, r1[k][n]);
                h.set_grf_ud(20 + k as u8, n, r2[k][n]);
                h.set_grf_ud(30 + k as u8, n, r0[k][n]);
            }
        }
        assert_eq!(h.run(10).unwrap(), Step::EndOfKernel, "{src}");
        for r in 0..rep {
            for n in 0..8 {
                let want = if float == 0 {
                    let signed1 = src.contains("r10:b");
                    let mut acc = r0[r][n];
                    for k in 0..8 {
                        for i in 0..4 {
                            let a = (r1[k][n] >> (8 * i)) as u8;
                            let a = if signed1 { a as i8 as i32 } else { a as i32 };
                            let b = ((r2[r][k] >> (8 * i)) & 0xFF) as i32;
                            acc = acc.wrapping_add((a * b) as u32);
                        }
                    }
                    acc
                } else {
                    let half = |v: u32, i: u32| -> f64 {
                        let x = (v >> (16 * i)) as u16;
                        // HF denormals flush in the default denorm mode, BF
                        // ones always (004 line 13891).
                        if x & 0x7C00 == 0 && (float == 1 || x & 0x7F80 == 0) {
                            0.0
                        } else if float == 1 {
                            hf_to_f64(x)
                        } else {
                            f64::from(f32::from_bits(u32::from(x) << 16))
                        }
                    };
                    let mut acc = f64::from(f32::from_bits(r0[r][n]));
                    for k in 0..8 {
                        let (a, b) = (r1[k][n], r2[r][k]);
                        // Exact at these magnitudes; each stage rounds to F.
                        acc = f64::from(
                            (acc + half(a, 0) * half(b, 0) + half(a, 1) * half(b, 1)) as f32,
                        );
                    }
                    (acc as f32).to_bits()
                };
                assert_eq!(h.grf_ud(40 + r as u8, n), want, "{src} row {r} ch {n}");
            }
        }
        // Rows past the repeat count are untouched.
        assert_eq!(h.grf_ud(40 + rep as u8, 0), 0);
    }
    // What 004 does not allow or the model does not have is refused.
    for bad in [
        "dpas.4x1 (8|M0) r40:d r30:d r10:b r20:b",
        "dpas.8x1 (8|M0) r40:d r30:d r10:u4 r20:b",
        "dpas.8x1 (8|M0) r40:f r30:f r10:hf r20:bf",
    ] {
        let mut h = XeHarness::new();
        h.load_asm(&format!("{bad}\n")).unwrap();
        assert!(h.run(10).is_err(), "{bad}");
    }
}

/// A line of each form the tests above run assembles with
/// `iga64 -p=12p71` to our bits. Skipped (with a note) without iga64.
#[test]
fn test_forms_match_iga64() {
    let lines = [
        "add (16|M0) r10.0<1>:uw r2.0<1;1,0>:uw r3.0<1;1,0>:uw",
        "mul (8|M0) r10.0<1>:d r2.0<1;1,0>:d r3.0<1;1,0>:w",
        "add3 (8|M0) r10.0<1>:d r2.0<1;0>:d r3.0<1;0>:d r4.0<1>:d",
        "bfn.0xCA (8|M0) r10.0<1>:ud r2.0<1;0>:ud r3.0<1;0>:ud r4.0<1>:ud",
        "dp4a (8|M0) r10.0<1>:d r2.0<1;0>:d r3.0<1;0>:d r4.0<1>:d",
        "bfe (8|M0) r10.0<1>:ud r2.0<1;0>:ud r3.0<1;0>:ud r4.0<1>:ud",
        "mad (8|M0) r10.0<1>:d r2.0<1;0>:d r3.0<1;0>:d r4.0<2>:w",
        "mad (16|M0) r12.0<1>:hf r2.0<1;0>:hf r3.0<1;0>:hf r4.0<1>:hf",
        "csel (8|M0) (lt)f0.0 r14.0<1>:f r2.0<1;0>:f r3.0<1;0>:f r4.0<1>:f",
        "sel (8|M0) (ge)f0.0 r10.0<1>:f r2.0<1;1,0>:f r3.0<1;1,0>:f",
        "cmp (16|M0) (lt)f1.0 r10.0<1>:ud r2.0<1;1,0>:ud r4.0<1;1,0>:ud",
        "(~f1.0) add (16|M0) r12.0<1>:d r2.0<1;1,0>:d -r4.0<1;1,0>:d",
        "add (16|M0) (sat)r14.0<1>:uw r2.0<1;1,0>:uw 0xFFF0:uw",
        "mov (8|M0) r10.0<1>:ud r2.1<4;2,2>:ud",
        "mov (8|M0) r11.0<1>:bf r2.0<1;1,0>:f",
        "math.inv (8|M0) r10.0<1>:f r2.0<1;1,0>:f {$0}",
        "sync.allwr null",
        "or (1|M0) cr0.0<1>:ud cr0.0<0;1,0>:ud 0x400:ud",
        "dpas.8x4 (8|M0) r40:d r30:d r10:b r20:ub {$0}",
        "dpas.8x2 (8|M0) r40:f r30:f r10:hf r20:hf",
        "add (8|M0) r11.0<1>:d r10.0<1;1,0>:d r2.0<1;1,0>:d {I@1}",
        "mov (8|M0) r13.0<1>:f r12.0<1;1,0>:f {$2.dst}",
        "send.ugm (8|M0) r20 r2 null:0 0x0 0x02100000 {$4}",
        "send.gtwy (1|M0) null r0 null:0 0x0 0x02000010 {EOT}",
    ];
    let dir = std::env::temp_dir().join(format!("baregpu-xe-alu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, out) = (dir.join("k.asm"), dir.join("k.bin"));
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&src, &text).unwrap();
    let Ok(r) = std::process::Command::new("iga64")
        .args(["-p=12p71", "-a"])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output()
    else {
        eprintln!("iga64 not found: skipping the oracle comparison");
        return;
    };
    assert!(
        r.status.success(),
        "iga64: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    let theirs = std::fs::read(&out).unwrap();
    let ours = baregpu_isa::text::assemble(baregpu_isa::IsaGen::Gen12_5, &text).unwrap();
    assert_eq!(ours.len(), theirs.len());
    for (i, (a, b)) in ours.chunks(16).zip(theirs.chunks(16)).enumerate() {
        assert_eq!(a, b, "{}", lines[i]);
    }
}

/// A raw move copies bits (a NaN payload, an F denormal under the
/// default flush mode); a converting or modified move does not.
#[test]
fn raw_moves_copy_bits() {
    let mut regs = [[0u32; 8]; 4];
    regs[0][0] = 0x7F80_1234;
    regs[0][1] = 0x0000_0001;
    let h = run(
        "mov (2|M0) r10.0<1>:f r2.0<1;1,0>:f
mov (2|M0) r11.0<1>:f -r2.0<1;1,0>:f
add (2|M0) r12.0<1>:f r2.0<1;1,0>:f 0x0:f\n",
        &regs,
    );
    assert_eq!(h.grf_ud(10, 0), 0x7F80_1234);
    assert_eq!(h.grf_ud(10, 1), 1);
    // The negated NaN is a NaN; the negated denormal is kept by the mov
    // (004 line 29189) and flushed by the add.
    assert!(f32::from_bits(h.grf_ud(11, 0)).is_nan());
    assert_eq!(h.grf_ud(11, 1), 0x8000_0001);
    assert_eq!(h.grf_ud(12, 1), 0);
}

/// r128 and above do not exist in the 128-register file: an error, not a
/// read of another register.
#[test]
fn registers_past_r127_are_refused() {
    let mut h = XeHarness::new();
    h.load_asm("mov (8|M0) r10.0<1>:ud r130.0<1;1,0>:ud\n")
        .unwrap();
    assert!(matches!(
        h.run(10).unwrap_err().kind,
        ErrorKind::BadOperand(_)
    ));
}

/// Valid instructions with random bits flipped (most still decode, with
/// odd regions, types, registers, flags and branch offsets) run without a
/// panic: errors or results only.
#[test]
fn mutated_instructions_never_panic() {
    let forms = "add (16|M0) r10.0<1>:uw r2.0<1;1,0>:uw r3.0<1;1,0>:uw
add3 (8|M0) r10.0<1>:d r2.0<1;0>:d r3.0<1;0>:d r4.0<1>:d
bfn.0xCA (8|M0) r10.0<1>:ud r2.0<1;0>:ud r3.0<1;0>:ud r4.0<1>:ud
mad (16|M0) r12.0<1>:hf r2.0<1;0>:hf r3.0<1;0>:hf r4.0<1>:hf
csel (8|M0) (lt)f0.0 r14.0<1>:f r2.0<1;0>:f r3.0<1;0>:f r4.0<1>:f
cmp (16|M0) (lt)f1.0 r10.0<1>:ud r2.0<1;1,0>:ud r4.0<1;1,0>:ud
mov (8|M0) r10.0<1>:ud r2.1<4;2,2>:ud
math.inv (8|M0) r10.0<1>:f r2.0<1;1,0>:f {$0}
dpas.8x4 (8|M0) r40:d r30:d r10:b r20:ub {$0}
sync.allwr null
send.gtwy (1|M0) null r0 null:0 0x0 0x02000010 {EOT}
";
    let words = baregpu_isa::text::assemble(baregpu_isa::IsaGen::Gen12_5, forms).unwrap();
    let mut rng = Rng(0x5eed_000a);
    let mut decoded = 0;
    for _ in 0..20_000 {
        let mut bytes = words.clone();
        for _ in 0..1 + rng.next() % 3 {
            let bit = rng.next() as usize % (bytes.len() * 8);
            bytes[bit / 8] ^= 1 << (bit % 8);
        }
        let mut h = XeHarness::new();
        h.load(&bytes);
        decoded += h.program.len();
        for r in 0..128 {
            h.set_grf_ud(r, 0, rng.next());
        }
        h.thread.check_swsb = rng.next() & 1 == 0;
        let _ = h.run(200);
    }
    assert!(decoded > 20_000 * 5, "most mutants decode ({decoded})");
}

/// The 32x32 multiply macro both ways IGC writes it for DG2: `mul acc0`,
/// `mach` without AccWrEn gives the product's low DWord (004 mach
/// pseudocode); with AccWrEn the high DWord, the low one left in acc0. And
/// addc with AccWrEn leaves the carry in acc0, not the sum.
#[test]
fn mach_and_addc_leave_what_igc_reads() {
    let src = "mul (8|M0) acc0.0<1>:ud r2.0<1;1,0>:ud r3.0<16;8,2>:uw
mach (8|M0) r10.0<1>:ud r2.0<1;1,0>:ud r3.0<1;1,0>:ud
mul (8|M0) acc0.0<1>:ud r2.0<1;1,0>:ud r3.0<16;8,2>:uw
mach (8|M0) r11.0<1>:ud r2.0<1;1,0>:ud r3.0<1;1,0>:ud {AccWrEn}
mov (8|M0) r12.0<1>:ud acc0.0<1;1,0>:ud
addc (8|M0) r13.0<1>:ud r2.0<1;1,0>:ud r4.0<1;1,0>:ud {AccWrEn}
mov (8|M0) r14.0<1>:ud acc0.0<1;1,0>:ud
";
    let mut rng = Rng(0x5eed_0fac);
    for _ in 0..8 {
        let regs = randoms(&mut rng, |r| r.next().wrapping_mul(0x9e37_79b9));
        let h = run(src, &regs);
        for i in 0..8 {
            let (a, b, c) = (regs[0][i], regs[1][i], regs[2][i]);
            let full = u64::from(a) * u64::from(b);
            assert_eq!(h.grf_ud(10, i), full as u32, "mach low {a:#x}*{b:#x}");
            assert_eq!(h.grf_ud(11, i), (full >> 32) as u32, "mach high");
            assert_eq!(h.grf_ud(12, i), full as u32, "acc0 low");
            let (sum, carry) = a.overflowing_add(c);
            assert_eq!(h.grf_ud(13, i), sum, "addc");
            assert_eq!(h.grf_ud(14, i), u32::from(carry), "addc carry");
        }
    }
}
