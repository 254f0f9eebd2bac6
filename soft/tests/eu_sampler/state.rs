//! Where SAMPLER_STATE comes from, what its switches do, the shadow
//! compare, and the states the model refuses.

use baregpu_isa::IsaGen;
use baregpu_soft::eu::shared::MemoryUnits;

use super::rig::*;

/// A 4 x 4 R32_FLOAT texture holding (x + 4y) / 16.
fn depth_texture(p: IsaGen) -> (Tex, MemoryUnits) {
    let tex = Tex::new(R32_FLOAT, 4, 4, 1);
    let mut gpu = new_gpu(p, &tex);
    for y in 0..4 {
        for x in 0..4 {
            put_texel(&mut gpu, &tex, 0, x, y, depth(x, y).to_le_bytes());
        }
    }
    (tex, gpu)
}

fn depth(x: u32, y: u32) -> f32 {
    (x + 4 * y) as f32 / 16.0
}

/// Lanes at texel centres (x = l % 4, y = l / 4).
fn centres() -> ([f32; 16], [f32; 16]) {
    (
        core::array::from_fn(|l| ((l % 4) as f32 + 0.5) / 4.0),
        core::array::from_fn(|l| ((l / 4) as f32 + 0.5) / 4.0),
    )
}

/// R32_FLOAT returns R, 0, 0, 1 in DX10/OGL mode (000 lines 3579-3580).
fn red(t: [u32; 4]) -> f32 {
    assert_eq!(&t[1..], &[0, 0, 1.0f32.to_bits()], "G, B, A of R32_FLOAT");
    f32::from_bits(t[0])
}

#[test]
fn the_state_pointer_comes_from_the_header_or_the_thread() {
    // Table A (the thread's pointer) samples; table B (in the header's
    // M0.3) has Sampler Disable set, so all channels read 0 (000 line
    // 3659). Gen4/G45 read M0.3 (000 line 3971); Gen6 ignores it (003 line
    // 79236); Gen7.5 reads it [ext: mesa brw_eu_emit.c
    // brw_adjust_sampler_state_pointer], Gen7 does not.
    let (u, v) = centres();
    for p in ALL {
        let (_, mut gpu) = depth_texture(p);
        put_sampler(&mut gpu, SAMPLERS, 0, &Spec::default());
        put_sampler(
            &mut gpu,
            SAMPLERS_B,
            0,
            &Spec {
                disable: true,
                ..Spec::default()
            },
        );
        let msg = Msg {
            header: Some((0, SAMPLERS_B)),
            ..Msg::new(Op::SampleL, u, v).lod(0.0)
        };
        let got = ok(&mut gpu, &msg);
        let header_wins = matches!(p, IsaGen::Gen4 | IsaGen::G45 | IsaGen::Gen75);
        for (l, t) in got.iter().enumerate() {
            if header_wins {
                assert_eq!(*t, [0; 4], "{p:?} lane {l}");
            } else {
                assert_eq!(
                    red(*t),
                    depth((l % 4) as u32, (l / 4) as u32),
                    "{p:?} lane {l}"
                );
            }
        }
    }
}

#[test]
fn the_sampler_index_picks_an_entry_16_bytes_apart() {
    // Entry 2 of the table clamps, entry 0 wraps (000 line 3657).
    let u = [-0.125f32; 16];
    let v = [0.125f32; 16];
    for p in ALL {
        let (_, mut gpu) = depth_texture(p);
        put_sampler(
            &mut gpu,
            SAMPLERS,
            0,
            &Spec {
                tc: [0; 3],
                ..Spec::default()
            },
        );
        put_sampler(&mut gpu, SAMPLERS, 2, &Spec::default());
        let msg = Msg::new(Op::SampleL, u, v).lod(0.0);
        let wrap = ok(&mut gpu, &msg);
        let clamp = ok(&mut gpu, &Msg { sampler: 2, ..msg });
        for l in 0..16 {
            assert_eq!(red(wrap[l]), depth(3, 0), "{p:?} wrap");
            assert_eq!(red(clamp[l]), depth(0, 0), "{p:?} clamp");
        }
    }
}

#[test]
fn sample_c_compares_before_filtering() {
    // PREFILTEROP_LESS: 0.0 where texel < ref, else 1.0 (000 lines
    // 3009-3016), replacing the texel before the filter; bilinear then
    // averages the four results (R32_FLOAT may be filtered with sample_c
    // even on Gen4/G45, 000 line 4046).
    let reference = 0.3f32;
    let u: [f32; 16] = core::array::from_fn(|l| (l % 4) as f32 / 4.0 + 0.1);
    let v: [f32; 16] = core::array::from_fn(|l| (l / 4) as f32 / 4.0 + 0.2);
    let cmp = |x: i64, y: i64| {
        let t = depth(x.clamp(0, 3) as u32, y.clamp(0, 3) as u32);
        if t < reference { 0.0f64 } else { 1.0 }
    };
    for p in ALL {
        let (_, mut gpu) = depth_texture(p);
        let less = Spec {
            shadow: 2,
            ..Spec::default()
        };
        put_sampler(&mut gpu, SAMPLERS, 0, &less);
        put_sampler(
            &mut gpu,
            SAMPLERS,
            1,
            &Spec {
                mag: 1,
                min: 1,
                ..less
            },
        );
        let msg = Msg {
            reference: [reference.to_bits(); 16],
            ..Msg::new(Op::SampleC, u, v)
        };
        let got = ok(&mut gpu, &msg);
        for l in 0..16 {
            let (x, y) = ((u[l] * 4.0).floor() as i64, (v[l] * 4.0).floor() as i64);
            assert_eq!(f64::from(red(got[l])), cmp(x, y), "{p:?} nearest lane {l}");
        }
        let got = ok(&mut gpu, &Msg { sampler: 1, ..msg });
        for l in 0..16 {
            let x = f64::from(u[l]) * 4.0 - 0.5;
            let y = f64::from(v[l]) * 4.0 - 0.5;
            let (i, j) = (x.floor(), y.floor());
            let (a, b) = (x - i, y - j);
            let (i, j) = (i as i64, j as i64);
            let want = (1.0 - a) * (1.0 - b) * cmp(i, j)
                + a * (1.0 - b) * cmp(i + 1, j)
                + (1.0 - a) * b * cmp(i, j + 1)
                + a * b * cmp(i + 1, j + 1);
            close(red(got[l]), want, &format!("{p:?} bilinear lane {l}"));
        }
    }
}

#[test]
fn non_normalized_coordinates_count_texels() {
    // Gen6+ (003 line 77855): u and v in texels, with CLAMP (lines
    // 77866-77867).
    let u: [f32; 16] = core::array::from_fn(|l| (l % 4) as f32 + 0.7);
    let v: [f32; 16] = core::array::from_fn(|l| (l / 4) as f32 * 1.5 - 0.2);
    for p in [IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75] {
        let (_, mut gpu) = depth_texture(p);
        put_sampler(
            &mut gpu,
            SAMPLERS,
            0,
            &Spec {
                non_normalized: true,
                ..Spec::default()
            },
        );
        let got = ok(&mut gpu, &Msg::new(Op::SampleL, u, v).lod(0.0));
        for l in 0..16 {
            let x = (u[l].floor() as i64).clamp(0, 3) as u32;
            let y = (v[l].floor() as i64).clamp(0, 3) as u32;
            assert_eq!(red(got[l]), depth(x, y), "{p:?} lane {l}");
        }
    }
}

#[test]
fn anisotropic_is_linear_for_sample_l_and_refused_elsewhere() {
    // 000 line 3692: MAPFILTER_ANISOTROPIC is overridden to LINEAR with
    // sample_l; the model refuses it where it would have to filter
    // anisotropically.
    let tex = Tex::new(R8G8B8A8_UNORM, 4, 4, 1);
    let u: [f32; 16] = core::array::from_fn(|l| l as f32 / 16.0 + 0.01);
    let v: [f32; 16] = core::array::from_fn(|l| (15 - l) as f32 / 16.0 + 0.02);
    for p in ALL {
        let mut gpu = new_gpu(p, &tex);
        for y in 0..4 {
            for x in 0..4 {
                put_texel(
                    &mut gpu,
                    &tex,
                    0,
                    x,
                    y,
                    [(50 * x) as u8, (60 * y) as u8, 7, 255],
                );
            }
        }
        put_sampler(&mut gpu, SAMPLERS, 0, &Spec::linear());
        put_sampler(
            &mut gpu,
            SAMPLERS,
            1,
            &Spec {
                mag: 2,
                min: 2,
                ..Spec::default()
            },
        );
        let msg = Msg::new(Op::SampleL, u, v).lod(0.0);
        let linear = ok(&mut gpu, &msg);
        let aniso = ok(&mut gpu, &Msg { sampler: 1, ..msg });
        assert_eq!(linear, aniso, "{p:?}");
        refused(
            &mut gpu,
            &Msg {
                sampler: 1,
                ..Msg::new(Op::Sample, u, v)
            },
            "ANISOTROPIC",
        );
    }
}

#[test]
fn unmodelled_states_are_refused() {
    let (u, v) = centres();
    let cases: [(Spec, &str); 5] = [
        (
            Spec {
                mag: 6,
                min: 6,
                ..Spec::default()
            },
            "MAPFILTER_MONO",
        ),
        (
            Spec {
                tc: [3, 2, 2],
                ..Spec::default()
            },
            "TEXCOORDMODE_CUBE",
        ),
        (
            Spec {
                chroma_key: true,
                ..Spec::default()
            },
            "ChromaKey",
        ),
        (
            Spec {
                mip: 2,
                ..Spec::default()
            },
            "reserved mip filter",
        ),
        (
            Spec {
                mag: 4,
                ..Spec::default()
            },
            "reserved min/mag filter",
        ),
    ];
    for p in ALL {
        for (spec, why) in cases {
            let (_, mut gpu) = depth_texture(p);
            put_sampler(&mut gpu, SAMPLERS, 0, &spec);
            refused(&mut gpu, &Msg::new(Op::SampleL, u, v).lod(0.0), why);
        }
    }
    // Linear filtering of R32_FLOAT, which the Gen4/G45 format table does
    // not mark as filterable (000 line 3414; 003 line 76549 marks it for
    // [DevILK+]).
    for p in ALL {
        let (_, mut gpu) = depth_texture(p);
        put_sampler(&mut gpu, SAMPLERS, 0, &Spec::linear());
        let msg = Msg::new(Op::SampleL, u, v).lod(0.0);
        if p <= IsaGen::G45 {
            refused(&mut gpu, &msg, "Sampling Engine Filtering");
        } else {
            let got = ok(&mut gpu, &msg);
            for (l, t) in got.iter().enumerate() {
                assert_eq!(red(*t), depth((l % 4) as u32, (l / 4) as u32), "{p:?}");
            }
        }
    }
}
