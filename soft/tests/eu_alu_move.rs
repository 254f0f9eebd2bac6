//! mov and the operand machinery: type conversions (000 lines 7250-7287;
//! 001 lines 1638-1779), raw moves, saturation, immediates (V, UV, VF),
//! regions, strides, sub-registers, Align16 swizzles and write masks,
//! indirect addressing, Gen4 compression and Gen6+ quarter control.

// Channels index several arrays at once; index loops read best.
#![allow(clippy::needless_range_loop)]

mod eu_support;

use baregpu_isa::IsaGen;
use eu_support::*;

const ALL: [IsaGen; 5] = IsaGen::ALL;

/// F to integer: round toward zero, NaN/zero/denormal to 0, out-of-range
/// and infinities to the limits, with or without .sat (000 lines
/// 7252-7265: the table's rows for INF, -INF, NaN, denormals).
#[test]
fn float_to_int_table() {
    let inputs: [u32; 10] = [
        0x7F80_0000, // +inf
        0xFF80_0000, // -inf
        0x7FC0_0000, // NaN
        0xFFC0_0001, // -NaN
        0x0000_0001, // +denorm
        0x8040_0000, // -denorm
        0x4F80_0000, // 2^32
        0xCF80_0001, // just below -2^32
        0x3FC0_0000, // 1.5
        0xC0B0_0000, // -5.5
    ];
    // Expected per destination type, from the manual's table and RTZ.
    let expect: [(&str, [u32; 10]); 6] = [
        ("ud", [0xFFFF_FFFF, 0, 0, 0, 0, 0, 0xFFFF_FFFF, 0, 1, 0]),
        (
            "d",
            [
                0x7FFF_FFFF,
                0x8000_0000,
                0,
                0,
                0,
                0,
                0x7FFF_FFFF,
                0x8000_0000,
                1,
                (-5i32) as u32,
            ],
        ),
        ("uw", [0xFFFF, 0, 0, 0, 0, 0, 0xFFFF, 0, 1, 0]),
        ("w", [0x7FFF, 0x8000, 0, 0, 0, 0, 0x7FFF, 0x8000, 1, 0xFFFB]),
        ("ub", [0xFF, 0, 0, 0, 0, 0, 0xFF, 0, 1, 0]),
        ("b", [0x7F, 0x80, 0, 0, 0, 0, 0x7F, 0x80, 1, 0xFB]),
    ];
    for p in ALL {
        for (ty, want) in expect {
            for (k, &x) in inputs.iter().enumerate() {
                let src = format!("mov (1|M0) r1.0<1>:{ty} r2.0<0;1,0>:f\n");
                let h = run(p, &src, |h| {
                    h.thread.set_grf_ud(1, 0, 0xAAAA_AAAA);
                    h.thread.set_grf_ud(2, 0, x);
                });
                let size = match ty {
                    "ud" | "d" => 4,
                    "uw" | "w" => 2,
                    _ => 1,
                };
                let mask = if size == 4 {
                    u32::MAX
                } else {
                    (1u32 << (size * 8)) - 1
                };
                let got = h.thread.grf_ud(1, 0);
                assert_eq!(got & mask, want[k], "{p} {ty} input {x:#x}");
                // Bytes beyond the element are untouched.
                assert_eq!(got & !mask, 0xAAAA_AAAA & !mask, "{p} {ty}");
            }
        }
    }
}

/// Integer to F: exact up to 24 bits; beyond, Gen4/G45 truncate (000
/// lines 7282-7286) and Gen6+ round to nearest even (003 lines
/// 89620-89625).
#[test]
fn int_to_float_rounding() {
    let values: [i32; 6] = [
        0x0100_0001,
        0x0100_0003,
        -0x0100_0003,
        0x7FFF_FFFF,
        16_777_215,
        -7,
    ];
    for p in ALL {
        for &v in &values {
            let h = run(p, "mov (1|M0) r1.0<1>:f r2.0<0;1,0>:d\n", |h| {
                h.thread.set_grf_ud(2, 0, v as u32)
            });
            let mode = if p <= IsaGen::G45 {
                Mode::Rtz
            } else {
                Mode::Rne
            };
            // Independent: the integer as an exact magnitude, rounded.
            let want = round(v < 0, u128::from(v.unsigned_abs()), 0, false, mode);
            assert_eq!(h.thread.grf_f(1, 0).to_bits(), want.to_bits(), "{p} {v}");
        }
    }
}

/// Integer to integer: wider from signed sign-extends, from unsigned
/// zero-extends, narrower truncates; .sat clamps (000 lines 7267-7280; the
/// signed-to-unsigned case sign-extends as 001 lines 1699-1701 say).
#[test]
fn int_to_int() {
    for p in ALL {
        let cases: [(&str, &str, u32, bool, u32); 10] = [
            ("ud", "w", 0xFFFF, false, 0xFFFF_FFFF),
            ("d", "uw", 0xFFFF, false, 0x0000_FFFF),
            ("ud", "w", 0xFFFF, true, 0),
            ("w", "d", 0x0001_2345, false, 0x2345),
            ("w", "d", 0x0001_2345, true, 0x7FFF),
            ("w", "d", 0xFFFE_0000, true, 0x8000),
            ("ub", "d", 300, true, 255),
            ("b", "d", 0xFFFF_FF00, true, 0x80),
            ("d", "ud", 0x8000_0000, true, 0x7FFF_FFFF),
            ("ud", "d", 0x8000_0000, true, 0),
        ];
        for (dt, st, x, sat, want) in cases {
            let s = if sat { "(sat)" } else { "" };
            let src = format!("mov (1|M0) {s}r1.0<1>:{dt} r2.0<0;1,0>:{st}\n");
            let h = run(p, &src, |h| h.thread.set_grf_ud(2, 0, x));
            let size = match dt {
                "ud" | "d" => 32,
                "uw" | "w" => 16,
                _ => 8,
            };
            let got = h.thread.grf_ud(1, 0) & (u64::MAX >> (64 - size)) as u32;
            assert_eq!(got, want, "{p}: {src} with {x:#x}");
        }
    }
}

/// A raw move keeps denormals and NaN payloads; a move with a modifier or
/// a float conversion flushes (000 lines 7014-7017, 8586-8593).
#[test]
fn raw_move_keeps_bits() {
    for p in ALL {
        let h = run(
            p,
            "mov (8|M0) r1.0<1>:f r2.0<8;8,1>:f\nmov (8|M0) r3.0<1>:f -r2.0<8;8,1>:f\nmov (8|M0) r4.0<1>:d r2.0<8;8,1>:d\n",
            |h| {
                simd8(h);
                set_ud(
                    h,
                    2,
                    [
                        1,
                        0x8000_0005,
                        0x7FC1_2345,
                        0xFFA0_0001,
                        0x3F80_0000,
                        0x007F_FFFF,
                        0,
                        0x8000_0000,
                    ],
                );
            },
        );
        assert_eq!(ud(&h, 1), ud(&h, 2), "{p} raw F");
        assert_eq!(ud(&h, 4), ud(&h, 2), "{p} raw D");
        let neg = ud(&h, 3);
        // Negated and flushed: denormals become zero of the new sign.
        assert_eq!(neg[0], 0x8000_0000, "{p}");
        assert_eq!(neg[1], 0, "{p}");
        assert_eq!(neg[4], 0xBF80_0000, "{p}");
        assert_eq!(neg[5], 0x8000_0000, "{p}");
    }
}

/// `.sat` on floats: [0, 1], NaN to 0, -inf to 0, +inf to 1 (003 lines
/// 94448-94458).
#[test]
fn float_saturate() {
    let inputs = [
        f32::NAN,
        f32::NEG_INFINITY,
        f32::INFINITY,
        -0.5,
        0.25,
        1.5,
        1.0,
        -0.0,
    ];
    let want = [0.0, 0.0, 1.0, 0.0, 0.25, 1.0, 1.0, 0.0];
    for p in ALL {
        let h = run(p, "mov (8|M0) (sat)r1.0<1>:f r2.0<8;8,1>:f\n", |h| {
            simd8(h);
            set_f(h, 2, inputs);
        });
        for i in 0..8 {
            assert_eq!(
                h.thread.grf_f(1, i).to_bits(),
                f32::to_bits(want[i]),
                "{p} {i}"
            );
        }
    }
}

/// V (signed 4-bit), UV and VF immediates expand per channel (000 lines
/// 8229-8258, 14013: 0x01234567:v gives 7,6,5,4,3,2,1,0; VF Table 10-2).
#[test]
fn vector_immediates() {
    for p in ALL {
        let h = run(
            p,
            "mov (16|M0) r1.0<1>:w 0x01234567:v\nmov (8|M0) r2.0<1>:w 0xF8A9:v\n",
            |h| h.thread.set_dispatch_mask(0xFFFF),
        );
        let w = uw(&h, 1);
        for i in 0..16 {
            assert_eq!(w[i], (7 - (i % 8)) as u16, "{p} V element {i}");
        }
        // 0xF8A9: elements 9, A, 8, F, 0, 0, 0, 0 as signed nibbles.
        let w2 = uw(&h, 2);
        assert_eq!(
            &w2[..8],
            &[0xFFF9, 0xFFFA, 0xFFF8, 0xFFFF, 0, 0, 0, 0],
            "{p}"
        );
        if p >= IsaGen::Gen6 {
            let h = run(p, "mov (8|M0) r1.0<1>:uw 0xF8A9:uv\n", simd8);
            assert_eq!(&uw(&h, 1)[..8], &[9, 10, 8, 15, 0, 0, 0, 0], "{p} UV");
        }
        // VF: 0x30 = 1.0 (exponent 3 = bias), 0x48 = 3.0, 0xB0 = -1.0, 0 = 0.
        let h = run(p, "mov (8|M0) r1.0<1>:f 0x00B04830:vf\n", simd8);
        let got: Vec<f32> = (0..8).map(|i| h.thread.grf_f(1, i)).collect();
        assert_eq!(got, [1.0, 3.0, -1.0, 0.0, 1.0, 3.0, -1.0, 0.0], "{p} VF");
    }
}

/// Regions: <vstride;width,hstride> with the manual's address formula (000
/// lines 8319-8340), including a vertical stride smaller than the row,
/// a scalar, a source spanning two registers and a destination stride.
#[test]
fn regions_and_strides() {
    for p in ALL {
        let src = "mov (8|M0) r1.0<1>:w r2.1<4;2,2>:w\n\
                   mov (8|M0) r3.0<2>:w r2.0<1;4,2>:w\n\
                   mov (8|M0) r4.0<1>:d r5.6<8;8,1>:d\n\
                   mov (8|M0) r7.0<1>:d r2.3<0;1,0>:d\n";
        let h = run(p, src, |h| {
            h.thread.set_dispatch_mask(0xFF);
            for i in 0..16 {
                h.thread.set_grf_uw(2, i, 100 + i as u16);
            }
            for i in 0..8 {
                h.thread.set_grf_ud(5, i, 500 + i as u32);
                h.thread.set_grf_ud(6, i, 600 + i as u32);
                h.thread.set_grf_ud(3, i, 0xDEAD_BEEF);
            }
        });
        // Channel c: row c/2 starts at element 1 + 4*row, column c%2 at +2.
        let want: Vec<u16> = (0..8)
            .map(|c| 100 + 1 + 4 * (c / 2) + 2 * (c % 2))
            .collect();
        assert_eq!(&uw(&h, 1)[..8], &want[..], "{p} <4;2,2>");
        // <1;4,2>: rows overlap (vstride 1 < width*hstride).
        let w3 = uw(&h, 3);
        for c in 0..8usize {
            let want = 100 + (c / 4) as u16 + 2 * (c % 4) as u16;
            assert_eq!(w3[2 * c], want, "{p} <1;4,2> channel {c}");
            // Destination stride 2: the odd words (0xDEAD, the high half of
            // each 0xDEADBEEF dword) are untouched.
            assert_eq!(w3[2 * c + 1], 0xDEAD, "{p}");
        }
        // r5.6<8;8,1>: dwords 6, 7 of r5 then 0..5 of r6.
        let want: Vec<u32> = (0..8)
            .map(|c| if c < 2 { 506 + c } else { 600 + c - 2 })
            .collect();
        assert_eq!(ud(&h, 4).to_vec(), want, "{p} spanning two registers");
        let w2_3 = u32::from(h.thread.grf_uw(2, 6)) | u32::from(h.thread.grf_uw(2, 7)) << 16;
        assert_eq!(ud(&h, 7), [w2_3; 8], "{p} scalar");
    }
}

/// Align16: sources read 4-vectors through the swizzle, the destination
/// write mask keeps the other components (000 lines 8412-8422; 003 lines
/// 94400-94420 give r0.0<4>.zywz as Data2, Data1, Data3, Data2).
#[test]
fn align16_swizzle_and_writemask() {
    for p in ALL {
        let src = "mov (8|M0) r1.0<1>.xzw:f r2.0<4>.zywz:f {Align16}\n\
                   add (4|M0) r3.0<1>:f r2.4<0>.wzyx:f r2.0<4>.xxxx:f {Align16}\n";
        let h = run(p, src, |h| {
            simd8(h);
            set_f(h, 2, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
            set_f(h, 1, [-1.0; 8]);
        });
        let got: Vec<f32> = (0..8).map(|i| h.thread.grf_f(1, i)).collect();
        // zywz per group, y not written.
        assert_eq!(got, [2.0, -1.0, 3.0, 2.0, 6.0, -1.0, 7.0, 6.0], "{p}");
        let got: Vec<f32> = (0..4).map(|i| h.thread.grf_f(3, i)).collect();
        // Second group replicated (vstride 0) as wzyx, plus x of group 0.
        assert_eq!(got, [7.0, 6.0, 5.0, 4.0], "{p}");
    }
}

/// Register-indirect sources and destinations: a0.N plus an offset in
/// bytes (1x1), and one address register per row (Vx1/VxH) (000 lines
/// 8353-8411).
#[test]
fn indirect_addressing() {
    for p in ALL {
        let src = "mov (8|M0) r1.0<1>:d r[a0.0,32]<8;8,1>:d\n\
                   mov (4|M0) r3.0<1>:d r[a0.2]<1,0>:d\n\
                   mov (4|M0) r[a0.1,4]<1>:d r4.0<4;4,1>:d\n";
        let h = run(p, src, |h| {
            simd8(h);
            for i in 0..8 {
                h.thread.set_grf_ud(10, i, 1000 + i as u32);
                h.thread.set_grf_ud(11, i, 1100 + i as u32);
                h.thread.set_grf_ud(4, i, 40 + i as u32);
            }
            h.thread.set_a0(0, 10 * 32 + 8); // r10.2 + 32 bytes -> r11.2
            h.thread.set_a0(1, 20 * 32); // destination r20.1
            // VxH: one address per channel.
            h.thread.set_a0(2, 10 * 32 + 28);
            h.thread.set_a0(3, 11 * 32);
            h.thread.set_a0(4, 10 * 32 + 4);
            h.thread.set_a0(5, 11 * 32 + 12);
        });
        let want: Vec<u32> = (0..8)
            .map(|c| if c < 6 { 1102 + c } else { 1200 + c - 6 })
            .collect();
        // r11.2.. then past r11 into r12 (zero).
        let mut want = want;
        want[6] = 0;
        want[7] = 0;
        assert_eq!(ud(&h, 1).to_vec(), want, "{p} 1x1");
        assert_eq!(&ud(&h, 3)[..4], &[1007, 1100, 1001, 1103], "{p} VxH");
        assert_eq!(&ud(&h, 20)[..5], &[0, 40, 41, 42, 43], "{p} indirect dst");
    }
}

/// a0.2-a0.7 keep 12 bits (000 lines 7634-7675; 001 lines 2612-2618).
#[test]
fn address_register_widths() {
    for p in ALL {
        let h = run(
            p,
            "mov (8|M0) a0.0<1>:uw r2.0<8;8,1>:uw\nmov (8|M0) r1.0<1>:uw a0.0<8;8,1>:uw\n",
            |h| {
                simd8(h);
                for i in 0..8 {
                    h.thread.set_grf_uw(2, i, 0xF123 + i as u16);
                }
            },
        );
        let w = uw(&h, 1);
        assert_eq!(w[0], 0xF123, "{p}");
        assert_eq!(w[1], 0xF124, "{p}");
        for i in 2..8 {
            assert_eq!(w[i], (0xF123 + i as u16) & 0x0FFF, "{p} a0.{i}");
        }
    }
}

/// Gen4/G45 compression: {Compr} runs two halves, the second on RegNum|1
/// with SecHalf masks; a scalar source is not moved (000 lines
/// 8746-8830).
#[test]
fn gen4_compression() {
    for p in [IsaGen::Gen4, IsaGen::G45] {
        let src = "add (16|M0) r4.0<1>:d r6.0<8;8,1>:d r8.0<0;1,0>:d {Compr}\n";
        let h = run(p, src, |h| {
            for i in 0..8 {
                h.thread.set_grf_ud(6, i, i as u32);
                h.thread.set_grf_ud(7, i, 100 + i as u32);
            }
            h.thread.set_grf_ud(8, 0, 1000);
            h.thread.set_grf_ud(9, 0, 5000);
            // Channels 3 and 12 disabled.
            h.thread.set_dispatch_mask(0xFFFF & !(1 << 3) & !(1 << 12));
            h.thread.set_grf_ud(4, 3, 7);
            h.thread.set_grf_ud(5, 4, 7);
        });
        let want4: Vec<u32> = (0..8).map(|c| if c == 3 { 7 } else { 1000 + c }).collect();
        let want5: Vec<u32> = (0..8).map(|c| if c == 4 { 7 } else { 1100 + c }).collect();
        assert_eq!(ud(&h, 4).to_vec(), want4, "{p} first half");
        assert_eq!(ud(&h, 5).to_vec(), want5, "{p} second half");
    }
}

/// Gen6+ quarter control: (8|M8) uses channels 8-15 of the dispatch mask
/// and the flag bits 15:8 (003 lines 94636-94699).
#[test]
fn quarter_control() {
    for p in [IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75] {
        let src = "(f0.0) mov (8|M8) r1.0<1>:d r2.0<8;8,1>:d\n\
                   cmp (8|M8) (gt)f0.1 null<1>:d r2.0<8;8,1>:d 3:d\n";
        let h = run(p, src, |h| {
            h.thread.set_dispatch_mask(0xFF00 & !(1 << 9));
            h.thread.set_flag(0, 0b1111_0011 << 8);
            for i in 0..8 {
                h.thread.set_grf_ud(2, i, i as u32);
            }
        });
        let got = ud(&h, 1);
        // Channel 8+c runs when dispatch bit and flag bit 8+c are set.
        let want: Vec<u32> = (0..8)
            .map(|c| {
                if [0, 4, 5, 6, 7].contains(&c) {
                    c as u32
                } else {
                    0
                }
            })
            .collect();
        assert_eq!(got.to_vec(), want, "{p}");
        // The compare wrote f0.1 bits 15:8 for enabled channels only.
        let f = h.thread.flag(0) >> 16;
        let want_bits: u32 = (0..8)
            .filter(|&c| c != 1 && c > 3)
            .fold(0, |m, c| m | 1 << (8 + c));
        assert_eq!(f, want_bits, "{p}");
    }
}

/// Moves to and from architecture registers: sr0 is read-only, cr0 holds
/// the float mode, f0 and acc0 are plain storage for mov.
#[test]
fn arf_operands() {
    for p in ALL {
        let src = "mov (1|M0) sr0.0<1>:ud r2.0<0;1,0>:ud\n\
                   mov (1|M0) r1.0<1>:ud sr0.0<0;1,0>:ud\n\
                   mov (1|M0) f0.0<1>:uw r2.1<0;1,0>:uw\n\
                   mov (1|M0) r1.1<1>:ud f0.0<0;1,0>:ud\n\
                   mov (8|M0) acc0.0<1>:ud r3.0<8;8,1>:ud\n\
                   mov (8|M0) r4.0<1>:ud acc0.0<8;8,1>:ud\n\
                   mov (1|M0) r1.2<1>:ud ip<0;1,0>:ud\n";
        let h = run(p, src, |h| {
            simd8(h);
            h.thread.set_sr0(0, 0x1234);
            h.thread.set_grf_ud(2, 0, 0xABCD_0000);
            for i in 0..8 {
                h.thread.set_grf_ud(3, i, 77 * i as u32);
            }
        });
        assert_eq!(h.thread.grf_ud(1, 0), 0x1234, "{p} sr0 write dropped");
        assert_eq!(h.thread.grf_ud(1, 1), 0xABCD, "{p} f0");
        assert_eq!(ud(&h, 4), ud(&h, 3), "{p} acc0 round trip");
        assert_eq!(
            h.thread.grf_ud(1, 2),
            6 * 16,
            "{p} ip reads its own address"
        );
    }
}
