//! Blending, logic ops, write disables and clamps against the reference.

use baregpu_hal::gen6::structs::{BlendState, ColorCalcState};

use super::*;

const RGBA8: u32 = 0x0C7;
const RGBA32F: u32 = 0x000;

/// Every blend factor of Table 23 (003 lines 45938-45978), by code.
const FACTORS: [u32; 19] = [
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x11, 0x12, 0x13, 0x14, 0x15, 0x17,
    0x18, 0x19, 0x1A,
];

/// Reference of Table 23: the factor for channel `ch` (`s` source 0, `s1`
/// source 1, `d` destination, `k` constant colour).
fn ref_factor(code: u32, ch: usize, s: [f64; 4], s1: [f64; 4], d: [f64; 4], k: [f64; 4]) -> f64 {
    let inv = |v: f64| 1.0 - v;
    match code {
        0x11 => 0.0,
        0x01 => 1.0,
        0x02 => s[ch],
        0x12 => inv(s[ch]),
        0x03 => s[3],
        0x13 => inv(s[3]),
        0x09 => s1[ch],
        0x19 => inv(s1[ch]),
        0x0A => s1[3],
        0x1A => inv(s1[3]),
        0x05 => d[ch],
        0x15 => inv(d[ch]),
        0x04 => d[3],
        0x14 => inv(d[3]),
        0x07 => k[ch],
        0x17 => inv(k[ch]),
        0x08 => k[3],
        0x18 => inv(k[3]),
        // SRC_ALPHA_SATURATE: f, f, f, 1 with f = min(1 - dst.a, src.a).
        0x06 if ch == 3 => 1.0,
        0x06 => (1.0 - d[3]).min(s[3]),
        _ => panic!("no factor {code:#x}"),
    }
}

/// Reference of Table 24.
fn ref_function(f: u32, a: f64, b: f64) -> f64 {
    match f {
        0 => a + b,
        1 => a - b,
        2 => b - a,
        3 => a.min(b),
        _ => a.max(b),
    }
}

#[test]
fn every_factor_and_function_blends_as_the_tables_say() {
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let mut compared = 0;
    for (n, &sf) in FACTORS.iter().enumerate() {
        for &df in FACTORS.iter() {
            for func in 0..5u32 {
                // Independent alpha on odd rounds, with other factors.
                let independent = (n + func as usize) % 2 == 1;
                let (asf, adf, afunc) = (FACTORS[(n + 3) % 19], df, (func + 1) % 5);
                let mut f = Fixture::new(RGBA8, 4);
                let b = BlendState {
                    color_buffer_blend_enable: true,
                    independent_alpha_blend_enable: independent,
                    source_blend_factor: sf,
                    destination_blend_factor: df,
                    color_blend_function: func,
                    source_alpha_blend_factor: asf,
                    destination_alpha_blend_factor: adf,
                    alpha_blend_function: afunc,
                    pre_blend_color_clamp_enable: true,
                    post_blend_color_clamp_enable: true,
                    ..Default::default()
                };
                f.blend(0, &b);
                let k = [
                    rng.float(0.0, 1.0),
                    rng.float(0.0, 1.0),
                    rng.float(0.0, 1.0),
                    rng.float(0.0, 1.0),
                ];
                f.color_calc(&ColorCalcState {
                    blend_constant_color_red: k[0],
                    blend_constant_color_green: k[1],
                    blend_constant_color_blue: k[2],
                    blend_constant_color_alpha: k[3],
                    ..Default::default()
                });
                // Destination bytes and sources per slot.
                let mut dst = [[0u8; 4]; 8];
                for (s, d) in dst.iter_mut().enumerate() {
                    *d = core::array::from_fn(|_| rng.next() as u8);
                    let (x, y) = xy8(s);
                    let at = f.rt_at(x, y);
                    f.mem.put(at, d);
                }
                let src: Vec<[f32; 4]> = (0..8)
                    .map(|_| core::array::from_fn(|_| rng.float(0.0, 1.0)))
                    .collect();
                let src1: Vec<[f32; 4]> = (0..8)
                    .map(|_| core::array::from_fn(|_| rng.float(0.0, 1.0)))
                    .collect();
                let mut w = write8(|s| src[s]);
                let mut c1 = [[0u32; 4]; 16];
                for s in 0..8 {
                    c1[s] = src1[s].map(f32::to_bits);
                }
                w.color1 = Some(c1);
                let mut om = f.om().unwrap();
                f.run(&mut om, &w).unwrap();
                for s in 0..8 {
                    let (x, y) = xy8(s);
                    let got = f.rt_bytes(x, y);
                    let sd = src[s].map(f64::from);
                    let s1d = src1[s].map(f64::from);
                    let dd = dst[s].map(|v| f64::from(v) / 255.0);
                    let kd = k.map(f64::from);
                    for ch in 0..4 {
                        let (fs, fd, fun) = if ch == 3 && independent {
                            (asf, adf, afunc)
                        } else {
                            (sf, df, func)
                        };
                        let v = ref_function(
                            fun,
                            sd[ch] * ref_factor(fs, ch, sd, s1d, dd, kd),
                            dd[ch] * ref_factor(fd, ch, sd, s1d, dd, kd),
                        )
                        .clamp(0.0, 1.0);
                        // Values near a rounding tie may go either way in
                        // f32; they are skipped.
                        let frac = v * 255.0 - (v * 255.0).floor();
                        if (frac - 0.5).abs() < 0.01 {
                            continue;
                        }
                        compared += 1;
                        assert_eq!(
                            u32::from(got[ch]),
                            unorm(v, 255.0),
                            "src {sf:#x} dst {df:#x} func {func} ind {independent} slot {s} ch {ch}"
                        );
                    }
                }
            }
        }
    }
    assert!(compared > 50_000, "{compared}");
}

#[test]
fn logic_ops_combine_the_stored_bits() {
    let mut rng = Rng(77);
    for op in 0..16u32 {
        let mut f = Fixture::new(RGBA8, 4);
        // Linear, X and Y tiled targets in turn.
        if op % 3 != 0 {
            f.tile_rt(op % 3);
        }
        f.blend(
            0,
            &BlendState {
                logic_op_enable: true,
                logic_op_function: op,
                pre_blend_color_clamp_enable: true,
                ..Default::default()
            },
        );
        let dst: Vec<[u8; 4]> = (0..8)
            .map(|_| core::array::from_fn(|_| rng.next() as u8))
            .collect();
        let src: Vec<[u8; 4]> = (0..8)
            .map(|_| core::array::from_fn(|_| rng.next() as u8))
            .collect();
        for (s, d) in dst.iter().enumerate() {
            let (x, y) = xy8(s);
            let at = f.rt_at(x, y);
            f.mem.put(at, d);
        }
        // Sources that convert exactly to the bytes: n / 255.
        let w = write8(|s| src[s].map(|v| f32::from(v) / 255.0));
        let mut om = f.om().unwrap();
        f.run(&mut om, &w).unwrap();
        for s in 0..8 {
            let (x, y) = xy8(s);
            let got = f.rt_bytes(x, y);
            for ch in 0..4 {
                let (a, b) = (src[s][ch], dst[s][ch]);
                // Table 25 (003 lines 45235-45255).
                let want = match op {
                    0 => 0,
                    1 => !(a | b),
                    2 => !a & b,
                    3 => !a,
                    4 => a & !b,
                    5 => !b,
                    6 => a ^ b,
                    7 => !(a & b),
                    8 => a & b,
                    9 => !(a ^ b),
                    10 => b,
                    11 => !a | b,
                    12 => a,
                    13 => a | !b,
                    14 => a | b,
                    _ => 0xFF,
                };
                assert_eq!(got[ch], want, "op {op} slot {s} ch {ch}");
            }
        }
    }
}

#[test]
fn channel_write_disables_keep_the_destination() {
    for disables in 0..16u32 {
        let mut f = Fixture::new(RGBA8, 4);
        f.blend(
            0,
            &BlendState {
                write_disable_red: disables & 1 != 0,
                write_disable_green: disables & 2 != 0,
                write_disable_blue: disables & 4 != 0,
                write_disable_alpha: disables & 8 != 0,
                pre_blend_color_clamp_enable: true,
                ..Default::default()
            },
        );
        for s in 0..8 {
            let (x, y) = xy8(s);
            let at = f.rt_at(x, y);
            f.mem.put(at, &[0x11, 0x22, 0x33, 0x44]);
        }
        let w = write8(|_| [1.0, 0.0, 1.0, 0.0]);
        let mut om = f.om().unwrap();
        f.run(&mut om, &w).unwrap();
        for s in 0..8 {
            let (x, y) = xy8(s);
            let got = f.rt_bytes(x, y);
            let want: [u8; 4] = core::array::from_fn(|ch| {
                if disables >> ch & 1 != 0 {
                    [0x11, 0x22, 0x33, 0x44][ch]
                } else {
                    [255, 0, 255, 0][ch]
                }
            });
            assert_eq!(got, want, "disables {disables:04b}");
        }
    }
}

/// Reads the four floats of an R32G32B32A32_FLOAT pixel.
fn floats(f: &Fixture, s: usize) -> [f32; 4] {
    let (x, y) = xy8(s);
    let b = f.rt_bytes(x, y);
    core::array::from_fn(|c| {
        f32::from_le_bytes([b[4 * c], b[4 * c + 1], b[4 * c + 2], b[4 * c + 3]])
    })
}

#[test]
fn clamps_follow_their_enables_and_range_on_a_float_target() {
    // ONE * src + ONE * dst with dst 0.5: pre-clamp limits the source,
    // post-clamp the sum; range 0 UNORM, 1 SNORM, 2 the format (none for
    // float) (003 lines 44889-44996, 45131-45141).
    let src = [1.5f32, -2.0, 0.25, -0.75];
    for range in 0..3u32 {
        for pre in [false, true] {
            for post in [false, true] {
                let mut f = Fixture::new(RGBA32F, 16);
                f.blend(
                    0,
                    &BlendState {
                        color_buffer_blend_enable: true,
                        source_blend_factor: 0x01,
                        destination_blend_factor: 0x01,
                        color_clamp_range: range,
                        pre_blend_color_clamp_enable: pre,
                        post_blend_color_clamp_enable: post,
                        ..Default::default()
                    },
                );
                for s in 0..8 {
                    let (x, y) = xy8(s);
                    let at = f.rt_at(x, y);
                    for c in 0..4 {
                        f.mem.put(at + 4 * c, &0.5f32.to_le_bytes());
                    }
                }
                let w = write8(|_| src);
                let mut om = f.om().unwrap();
                f.run(&mut om, &w).unwrap();
                let lim = |v: f32| match range {
                    0 => v.clamp(0.0, 1.0),
                    1 => v.clamp(-1.0, 1.0),
                    _ => v,
                };
                let want = src.map(|v| {
                    let s = if pre { lim(v) } else { v };
                    let d = if pre { lim(0.5) } else { 0.5 };
                    if post { lim(s + d) } else { s + d }
                });
                assert_eq!(floats(&f, 3), want, "range {range} pre {pre} post {post}");
            }
        }
    }
}

#[test]
fn blending_off_with_the_pre_blend_clamp_stores_the_clamped_source() {
    let mut f = Fixture::new(RGBA32F, 16);
    f.blend(
        0,
        &BlendState {
            color_clamp_range: 1,
            pre_blend_color_clamp_enable: true,
            ..Default::default()
        },
    );
    let w = write8(|s| [s as f32, -3.0, 0.5, -0.5]);
    let mut om = f.om().unwrap();
    f.run(&mut om, &w).unwrap();
    for s in 0..8 {
        assert_eq!(floats(&f, s), [(s as f32).min(1.0), -1.0, 0.5, -0.5]);
    }
}

#[test]
fn the_render_target_index_selects_the_blend_state_entry() {
    let mut f = Fixture::new(RGBA8, 4);
    // Entry 0 writes red only, entry 2 green only.
    let only = |ch: usize| BlendState {
        write_disable_red: ch != 0,
        write_disable_green: ch != 1,
        write_disable_blue: true,
        write_disable_alpha: true,
        pre_blend_color_clamp_enable: true,
        ..Default::default()
    };
    f.blend(0, &only(0));
    f.blend(2, &only(1));
    let mut w = write8(|_| [1.0; 4]);
    w.render_target_index = 2;
    let mut om = f.om().unwrap();
    f.run(&mut om, &w).unwrap();
    assert_eq!(f.rt_bytes(0, 0), [0, 255, 0, 0]);
}

#[test]
fn unlit_and_omask_killed_slots_write_nothing() {
    let mut f = Fixture::new(RGBA8, 4);
    f.blend(
        0,
        &BlendState {
            pre_blend_color_clamp_enable: true,
            ..Default::default()
        },
    );
    let mut w = write8(|_| [1.0; 4]);
    w.mask = 0b1111_0110;
    let mut om_mask = [0xFFFFu16; 16];
    om_mask[4] = 0xFFFE;
    w.omask = Some(om_mask);
    let mut om = f.om().unwrap();
    f.run(&mut om, &w).unwrap();
    for s in 0..8 {
        let (x, y) = xy8(s);
        let lit = w.mask >> s & 1 == 1 && s != 4;
        let want = if lit { [255; 4] } else { [0; 4] };
        assert_eq!(f.rt_bytes(x, y), want, "slot {s}");
    }
    // Six lit slots, one of them killed by its oMask.
    assert_eq!(om.samples_passed(), 5);
}

#[test]
fn srgb_targets_blend_in_linear_space() {
    // ONE * src + ONE * dst on R8G8B8A8_UNORM_SRGB: the destination is
    // decoded to linear, the sum encoded again; alpha stays linear (003
    // lines 45336-45345).
    let to_lin = |c: f64| {
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let to_srgb = |l: f64| {
        let l = l.clamp(0.0, 1.0);
        if l <= 0.0031308 {
            12.92 * l
        } else {
            1.055 * l.powf(1.0 / 2.4) - 0.055
        }
    };
    let mut rng = Rng(5);
    let mut f = Fixture::new(0x0C8, 4);
    f.blend(
        0,
        &BlendState {
            color_buffer_blend_enable: true,
            source_blend_factor: 0x01,
            destination_blend_factor: 0x01,
            pre_blend_color_clamp_enable: true,
            post_blend_color_clamp_enable: true,
            ..Default::default()
        },
    );
    let dst: Vec<[u8; 4]> = (0..8)
        .map(|_| core::array::from_fn(|_| (rng.next() % 128) as u8))
        .collect();
    for (s, d) in dst.iter().enumerate() {
        let (x, y) = xy8(s);
        let at = f.rt_at(x, y);
        f.mem.put(at, d);
    }
    let src: Vec<[f32; 4]> = (0..8)
        .map(|_| core::array::from_fn(|_| rng.float(0.0, 0.5)))
        .collect();
    let w = write8(|s| src[s]);
    let mut om = f.om().unwrap();
    f.run(&mut om, &w).unwrap();
    let mut compared = 0;
    for s in 0..8 {
        let (x, y) = xy8(s);
        let got = f.rt_bytes(x, y);
        for ch in 0..4 {
            let d = f64::from(dst[s][ch]) / 255.0;
            let v = if ch < 3 {
                to_srgb(f64::from(src[s][ch]) + to_lin(d))
            } else {
                (f64::from(src[s][ch]) + d).min(1.0)
            };
            let frac = v * 255.0 - (v * 255.0).floor();
            if (frac - 0.5).abs() < 0.01 {
                continue;
            }
            compared += 1;
            assert_eq!(u32::from(got[ch]), unorm(v, 255.0), "slot {s} ch {ch}");
        }
    }
    assert!(compared > 24);
}

/// The dither matrix as the manual prints it (003 lines 45195-45209; the
/// dropped digit of its last row restored: every value 0-15 once), rows
/// by y, columns by x.
const DITHER: [[u32; 4]; 4] = [[0, 8, 2, 10], [12, 4, 14, 6], [3, 11, 1, 9], [15, 7, 13, 5]];

#[test]
fn dithering_adds_the_matrix_below_the_channels_lsb() {
    use baregpu_hal::gen6::structs::ColorCalcState;
    // B5G6R5 (5, 6, 5 bits) and B8G8R8A8: every channel between two codes,
    // dithered at each pixel of the 4 x 2 block of `write8`, with offsets.
    for (format, bpp, bits) in [(0x100u32, 2u64, [5u32, 6, 5, 0]), (0x0C0, 4, [8, 8, 8, 8])] {
        for (xo, yo) in [(0u32, 0u32), (3, 1)] {
            for blending in [false, true] {
                let mut f = Fixture::new(format, bpp);
                f.blend(
                    0,
                    &BlendState {
                        color_dither_enable: true,
                        x_dither_offset: xo,
                        y_dither_offset: yo,
                        // ONE / ZERO: blending that leaves the source.
                        color_buffer_blend_enable: blending,
                        source_blend_factor: 0x01,
                        destination_blend_factor: 0x11,
                        source_alpha_blend_factor: 0x01,
                        destination_alpha_blend_factor: 0x11,
                        ..Default::default()
                    },
                );
                f.color_calc(&ColorCalcState {
                    round_disable_function_disable: true,
                    ..Default::default()
                });
                f.depth_stencil(&Default::default());
                let rgba = [0.3f32, 0.55, 0.81, 0.47];
                let mut om = f.om().unwrap();
                f.run(&mut om, &write8(|_| rgba)).unwrap();
                for s in 0..8 {
                    let (x, y) = xy8(s);
                    let d = DITHER[((y as u32 + yo) & 3) as usize][((x as u32 + xo) & 3) as usize];
                    // Red, green, blue (and alpha): floor(v * max * 16) + d,
                    // over 16.
                    let want: Vec<u64> = (0..4)
                        .map(|c| {
                            let b = bits[c];
                            if b == 0 {
                                return 0;
                            }
                            let max = ((1u64 << b) - 1) as f64;
                            ((f64::from(rgba[c]) * max * 16.0).floor() as u64 + u64::from(d)) >> 4
                        })
                        .collect();
                    let px = f.rt_bytes(x, y);
                    let word = px.iter().rev().fold(0u64, |w, &b| w << 8 | u64::from(b));
                    let got = if bpp == 2 {
                        // B5G6R5: blue 4:0, green 10:5, red 15:11.
                        vec![word >> 11 & 31, word >> 5 & 63, word & 31, 0]
                    } else {
                        // B8G8R8A8: blue byte 0, green 1, red 2, alpha 3.
                        vec![word >> 16 & 255, word >> 8 & 255, word & 255, word >> 24]
                    };
                    assert_eq!(
                        got, want,
                        "format {format:#x} offsets ({xo}, {yo}) blending {blending} pixel ({x}, {y})"
                    );
                }
            }
        }
    }
}

#[test]
fn a_dither_value_of_8_encodes_as_without_dithering() {
    use crate::eu::shared::render_target::RtFormat;
    // The dither values spread the codes around the rounded one: with d = 8
    // the truncated sum is round-to-nearest, ties up, for every UNORM
    // width and sRGB.
    let mut rng = Rng(77);
    for code in [0x0C0u32, 0x0C1, 0x100, 0x102, 0x104, 0x0D1, 0x0C2] {
        let f = RtFormat::of(code).unwrap();
        for k in 0..2000 {
            let v: [u32; 4] = core::array::from_fn(|c| {
                match (k + c) % 5 {
                    0 => 0.5f32,
                    1 => (rng.next() as u32 % 256) as f32 / 255.0,
                    _ => rng.float(-0.1, 1.1),
                }
                .to_bits()
            });
            assert_eq!(
                f.encode_dithered(v, 8),
                f.encode(v),
                "format {code:#x} {v:x?}"
            );
        }
    }
}
