//! Mip maps: explicit LODs, the mip filters, LOD bias and clamps, the LOD
//! from subspan gradients, `ld` of a level and `resinfo` per level.
//!
//! The texture is 16 x 8 RGBA8 with 5 levels (16x8, 8x4, 4x2, 2x1, 1x1);
//! every texel holds its level in red and its position in green, so the
//! level and texel each lane read are visible.

use baregpu_isa::IsaGen;
use baregpu_soft::eu::shared::MemoryUnits;

use super::rig::*;

const LEVELS: u32 = 5;

fn texel(l: u32, x: u32, y: u32) -> [u8; 4] {
    [
        (40 * l + 7) as u8,
        (16 * x + y) as u8,
        (10 * l + 3) as u8,
        255,
    ]
}

fn texture(p: IsaGen, tex: &Tex) -> MemoryUnits {
    let mut gpu = new_gpu(p, tex);
    for l in 0..LEVELS {
        let (w, h) = tex.size(l);
        for y in 0..h {
            for x in 0..w {
                put_texel(&mut gpu, tex, l, x, y, texel(l, x, y));
            }
        }
    }
    gpu
}

/// The layouts to try: MIPLAYOUT_BELOW everywhere, MIPLAYOUT_RIGHT where
/// SURFACE_STATE has the bit (Gen4-Gen6; 000 line 3137).
fn layouts(p: IsaGen) -> Vec<Tex> {
    let below = Tex::new(R8G8B8A8_UNORM, 16, 8, LEVELS);
    if p >= IsaGen::Gen7 {
        vec![below]
    } else {
        vec![
            below,
            Tex {
                right: true,
                ..below
            },
        ]
    }
}

/// Lane coordinates at distinct texels.
fn coords() -> ([f32; 16], [f32; 16]) {
    (
        core::array::from_fn(|l| (((l * 3) % 16) as f32 + 0.5) / 16.0),
        core::array::from_fn(|l| (((l * 5) % 8) as f32 + 0.5) / 8.0),
    )
}

/// Channels of the nearest texel of level `l` at (u, v) (000 line 2864).
fn nearest(tex: &Tex, l: u32, u: f32, v: f32) -> [f64; 4] {
    let (w, h) = tex.size(l);
    let x = ((f64::from(u) * f64::from(w)).floor() as u32).min(w - 1);
    let y = ((f64::from(v) * f64::from(h)).floor() as u32).min(h - 1);
    texel(l, x, y).map(unorm)
}

fn check(p: IsaGen, got: [f32; 4], want: [f64; 4], what: &str) {
    for c in 0..4 {
        close(got[c], want[c], &format!("{p:?} {what} channel {c}"));
    }
}

/// MIPFILTER_NEAREST level for an LOD with the default state (Min LOD 0,
/// Max LOD 13, no bias, base 0): 000 lines 2781-2828 give MaxLod =
/// min(13, MIPCnt) = 4, magnification (level 0) for LOD <= 0, else
/// floor(min(LOD + 0.5, 4)).
fn nearest_level(lod: f32) -> u32 {
    let lod = f64::from(lod);
    if lod <= 0.0 {
        0
    } else {
        (lod + 0.5).min(4.0).floor() as u32
    }
}

#[test]
fn explicit_lod_reads_levels_1_and_2() {
    let (u, v) = coords();
    let lods = [
        1.0f32, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 1.4, 1.6, 0.4, 2.4, 1.49, 1.51, 2.0, 1.0,
    ];
    for p in ALL {
        for tex in layouts(p) {
            let mut gpu = texture(p, &tex);
            put_sampler(
                &mut gpu,
                SAMPLERS,
                0,
                &Spec {
                    mip: 1,
                    ..Spec::default()
                },
            );
            let msg = Msg {
                lod: lods.map(f32::to_bits),
                ..Msg::new(Op::SampleL, u, v)
            };
            let got = ok(&mut gpu, &msg);
            for l in 0..16 {
                let level = nearest_level(lods[l]);
                let what = format!("right {} lane {l} lod {}", tex.right, lods[l]);
                check(p, floats(got[l]), nearest(&tex, level, u[l], v[l]), &what);
            }
        }
    }
}

#[test]
fn mip_filter_linear_blends_two_levels() {
    let (u, v) = coords();
    let lods = [
        1.25f32, 1.5, 1.75, 2.0, 0.5, 3.9, 2.2, 1.0, 4.0, 6.0, 0.1, 1.1, 2.9, 3.3, 1.6, 0.75,
    ];
    for p in ALL {
        let tex = Tex::new(R8G8B8A8_UNORM, 16, 8, LEVELS);
        let mut gpu = texture(p, &tex);
        put_sampler(
            &mut gpu,
            SAMPLERS,
            0,
            &Spec {
                mip: 3,
                ..Spec::default()
            },
        );
        let msg = Msg {
            lod: lods.map(f32::to_bits),
            ..Msg::new(Op::SampleL, u, v)
        };
        let got = ok(&mut gpu, &msg);
        for l in 0..16 {
            // MIPFILTER_LINEAR (000 lines 2822-2826): LOD clamped to
            // [0, 4], TriBeta = frac, levels floor and floor + 1 (the
            // second clamped to 4).
            let lod = f64::from(lods[l]).clamp(0.0, 4.0);
            let l0 = lod.floor();
            let beta = lod - l0;
            let l1 = (l0 + 1.0).min(4.0);
            let a = nearest(&tex, l0 as u32, u[l], v[l]);
            let b = nearest(&tex, l1 as u32, u[l], v[l]);
            let want = core::array::from_fn(|c| (1.0 - beta) * a[c] + beta * b[c]);
            check(
                p,
                floats(got[l]),
                want,
                &format!("lane {l} lod {}", lods[l]),
            );
        }
    }
}

#[test]
fn lod_bias_min_max_lod_and_surface_min_lod() {
    let (u, v) = coords();
    let nearest_mip = Spec {
        mip: 1,
        ..Spec::default()
    };
    // (state, surface min LOD, delivered lod, level read).
    let cases = [
        // LOD = Bias + lod: 1 + 1 = 2.
        (
            Spec {
                bias: 1.0,
                ..nearest_mip
            },
            0,
            1.0f32,
            2u32,
        ),
        (
            Spec {
                bias: -0.75,
                ..nearest_mip
            },
            0,
            2.0,
            1,
        ),
        // MaxLod 1: ceil(1) bounds the level.
        (
            Spec {
                max_lod: 1.0,
                ..nearest_mip
            },
            0,
            3.0,
            1,
        ),
        // MinLod 2: floor(2) bounds the level from below.
        (
            Spec {
                min_lod: 2.0,
                ..nearest_mip
            },
            0,
            0.4,
            2,
        ),
        // Surface Min LOD 1 is added to the delivered lod (000 line 3294).
        (nearest_mip, 1, 0.0, 1),
        (nearest_mip, 1, 1.0, 2),
        // Magnified (LOD <= Base): the most detailed level, floor(MinLod) =
        // Surface Min LOD.
        (
            Spec {
                base: 2.0,
                ..nearest_mip
            },
            0,
            1.5,
            0,
        ),
    ];
    for p in ALL {
        for (spec, min_lod, lod, want) in cases {
            let tex = Tex {
                min_lod,
                mips: LEVELS - min_lod,
                ..Tex::new(R8G8B8A8_UNORM, 16, 8, LEVELS)
            };
            let mut gpu = texture(p, &tex);
            put_sampler(&mut gpu, SAMPLERS, 0, &spec);
            let got = ok(&mut gpu, &Msg::new(Op::SampleL, u, v).lod(lod));
            for l in 0..16 {
                let what = format!("{spec:?} surface min {min_lod} lod {lod} lane {l}");
                check(p, floats(got[l]), nearest(&tex, want, u[l], v[l]), &what);
            }
        }
    }
}

/// Subspan k (lanes 4k..4k+3: UL, UR, LL, LR, 000 lines 4103-4125) with
/// its upper-left pixel at texel (2, 1) of level 0 and neighbours `step[k]`
/// texels apart in x and y.
fn subspans(step: [f32; 4]) -> ([f32; 16], [f32; 16]) {
    let u = core::array::from_fn(|l| (2.3 + step[l / 4] * (l % 2) as f32) / 16.0);
    let v = core::array::from_fn(|l| (1.3 + step[l / 4] * (l % 4 / 2) as f32) / 8.0);
    (u, v)
}

#[test]
fn sample_takes_the_lod_from_subspan_gradients() {
    // log2 of the texel distance between neighbours (000 lines 2739-2745):
    // steps 1, 2, 4, 0.5 texels give LOD 0, 1, 2, -1.
    let step = [1.0f32, 2.0, 4.0, 0.5];
    let (u, v) = subspans(step);
    for p in ALL {
        let tex = Tex::new(R8G8B8A8_UNORM, 16, 8, LEVELS);
        let mut gpu = texture(p, &tex);
        put_sampler(
            &mut gpu,
            SAMPLERS,
            0,
            &Spec {
                mip: 1,
                ..Spec::default()
            },
        );
        let got = ok(&mut gpu, &Msg::new(Op::Sample, u, v));
        for l in 0..16 {
            let level = nearest_level(step[l / 4].log2());
            check(
                p,
                floats(got[l]),
                nearest(&tex, level, u[l], v[l]),
                &format!("sample lane {l}"),
            );
        }
        // sample_b adds its bias parameter: LOD 1, 2, 3, 0.
        let msg = Msg::new(Op::SampleB, u, v).lod(1.0);
        let got = ok(&mut gpu, &msg);
        for l in 0..16 {
            let level = nearest_level(step[l / 4].log2() + 1.0);
            check(
                p,
                floats(got[l]),
                nearest(&tex, level, u[l], v[l]),
                &format!("sample_b lane {l}"),
            );
        }
        // Force LOD to Zero (Gen4/G45 M0.2 bit 16, 000 line 3974).
        if p <= IsaGen::G45 {
            let msg = Msg {
                header: Some((1 << 16, SAMPLERS)),
                ..Msg::new(Op::Sample, u, v)
            };
            let got = ok(&mut gpu, &msg);
            for l in 0..16 {
                check(
                    p,
                    floats(got[l]),
                    nearest(&tex, 0, u[l], v[l]),
                    &format!("lod zero lane {l}"),
                );
            }
        }
    }
}

#[test]
fn sample_d_takes_the_lod_from_its_gradients() {
    // SIMD8 (the only sample_d width on Gen4/G45, 000 lines 4018-4019).
    // Gradients in texels, each of the four different so that a swapped
    // parameter changes the level: lane l's long gradient is 2^(l/2 - 0.3)
    // texels, in x on even lanes and in y on odd ones.
    let (u, v) = coords();
    let len = |l: usize| 2f64.powf(l as f64 / 2.0 - 0.3);
    let texels = |l: usize| -> [f64; 4] {
        if l.is_multiple_of(2) {
            [len(l), len(l), 0.1, 0.15]
        } else {
            [0.1, 0.3, 0.2, len(l)]
        }
    };
    // Normalized: du by the width 16, dv by the height 8.
    let scale = [16.0, 8.0, 16.0, 8.0];
    let grads: [[f32; 16]; 4] =
        core::array::from_fn(|k| core::array::from_fn(|l| (texels(l)[k] / scale[k]) as f32));
    for p in ALL {
        let tex = Tex::new(R8G8B8A8_UNORM, 16, 8, LEVELS);
        let mut gpu = texture(p, &tex);
        put_sampler(
            &mut gpu,
            SAMPLERS,
            0,
            &Spec {
                mip: 1,
                ..Spec::default()
            },
        );
        let msg = Msg {
            simd16: false,
            gradients: grads.map(|g| g.map(f32::to_bits)),
            ..Msg::new(Op::SampleD, u, v)
        };
        let got = ok(&mut gpu, &msg);
        for l in 0..8 {
            // 000 lines 2739-2745: log2 of the longer of (du/dx, dv/dx)
            // and (du/dy, dv/dy), in texels.
            let [dudx, dvdx, dudy, dvdy] = texels(l);
            let rho = dudx.hypot(dvdx).max(dudy.hypot(dvdy));
            let level = nearest_level(rho.log2() as f32);
            let what = format!("sample_d lane {l}");
            check(p, floats(got[l]), nearest(&tex, level, u[l], v[l]), &what);
        }
    }
}

#[test]
fn ld_reads_a_mip_level() {
    // Integer texel coordinates (000 line 4064); lanes 12-15 fall off
    // level 1 (8 x 4) and read zeros, alpha too (RGBA8 has alpha).
    let x: [i32; 16] = [0, 1, 7, 3, 5, 6, 2, 4, 0, 7, 1, 3, 8, -1, 2, 0];
    let y: [i32; 16] = [0, 0, 3, 1, 2, 3, 1, 0, 3, 0, 2, 2, 0, 1, 4, -1];
    for p in ALL {
        for min_lod in [0, 1] {
            let tex = Tex {
                min_lod,
                mips: LEVELS - min_lod,
                ..Tex::new(R8G8B8A8_UNORM, 16, 8, LEVELS)
            };
            let mut gpu = texture(p, &tex);
            let lod = 1 - min_lod;
            let msg = Msg {
                u: x.map(|v| v as u32),
                v: y.map(|v| v as u32),
                lod: [lod; 16],
                ..Msg::new(Op::Ld, [0.0; 16], [0.0; 16])
            };
            let got = ok(&mut gpu, &msg);
            for l in 0..16 {
                let inside = (0..8).contains(&x[l]) && (0..4).contains(&y[l]);
                let want = if inside {
                    texel(1, x[l] as u32, y[l] as u32).map(unorm)
                } else {
                    [0.0; 4]
                };
                check(
                    p,
                    floats(got[l]),
                    want,
                    &format!("ld min {min_lod} lane {l}"),
                );
            }
            // A lod past the MIP Count reads zeros.
            let got = ok(
                &mut gpu,
                &Msg {
                    lod: [LEVELS; 16],
                    ..msg
                },
            );
            assert!(got.iter().all(|t| *t == [0; 4]), "{p:?}: {got:?}");
        }
    }
}

#[test]
fn resinfo_reports_each_level() {
    // (Width+1)>>LOD, (Height+1)>>LOD, 0 for a 2D non-array, MIP count
    // (000 line 4054); Surface Min LOD is added to the lod (line 3294).
    for p in ALL {
        for min_lod in [0, 1] {
            let tex = Tex {
                min_lod,
                mips: LEVELS - min_lod,
                ..Tex::new(R8G8B8A8_UNORM, 16, 8, LEVELS)
            };
            let mut gpu = texture(p, &tex);
            let msg = Msg {
                lod: core::array::from_fn(|l| (l % 5) as u32),
                ret: "u32",
                ..Msg::new(Op::Resinfo, [0.0; 16], [0.0; 16])
            };
            let got = ok(&mut gpu, &msg);
            for (l, t) in got.iter().enumerate() {
                let s = (l % 5) as u32 + min_lod;
                assert_eq!(*t, [16 >> s, 8 >> s, 0, LEVELS - min_lod], "{p:?} lane {l}");
            }
            if p == IsaGen::Gen4 {
                // The FLOAT32 return format (000 line 3945).
                let got = ok(&mut gpu, &Msg { ret: "f32", ..msg });
                for (l, t) in got.iter().enumerate() {
                    let s = (l % 5) as u32 + min_lod;
                    let want = [16 >> s, 8 >> s, 0, LEVELS - min_lod].map(|v| (v as f32).to_bits());
                    assert_eq!(*t, want, "Gen4 f32 lane {l}");
                }
            }
        }
    }
}
