//! Kernels sampling textures on the software GPU, every generation with
//! a media pipeline, compared with the host reference.

use baregpu::compute::{AddressMode, Compute, Filter, Format, MipFilter, Sampler, Swizzle, Tiling};
use baregpu::hal::Generation;

use crate::compute_run_common::{MEDIA_GENERATIONS, with_soft};
use crate::reference::{Level, Mode, close, filter, pick, unorm};
use crate::rig::{Job, Op, curbe_of, kernel, params, run};

pub const BORDER: [f32; 4] = [0.25, 0.5, 0.75, 1.0];

/// 4x4 R8G8B8A8_UNORM texel (x, y).
fn rgba_texel(x: u32, y: u32) -> [u8; 4] {
    [
        (x * 64 + 16) as u8,
        (y * 64 + 32) as u8,
        (x * y * 16 + 8) as u8,
        (255 - x * 20 - y * 10) as u8,
    ]
}

/// 4x4 R32_FLOAT texel (x, y).
fn float_texel(x: u32, y: u32) -> f32 {
    (x + 4 * y) as f32 * 0.25 + 0.5
}

#[test]
fn kernels_sample_with_nearest_and_bilinear_filters_and_address_modes() {
    let u: [f32; 16] = [
        0.125, 0.375, 0.25, 0.5, 0.0, 1.0, -0.25, 1.3, 0.9375, -1.0, 0.6, 0.8125, 0.5, 0.0625,
        1.125, -0.0625,
    ];
    let v: [f32; 16] = [
        0.125, 0.625, 0.25, 0.75, 0.0, 0.5, 0.3, 1.1, 0.0625, 2.0, 0.4, 0.9375, 1.0, -0.5, 0.375,
        0.875,
    ];
    let base = Sampler::new();
    let samplers = [
        (0, base.with_filter(Filter::Nearest)),
        (1, base),
        (2, base.with_address(AddressMode::Wrap)),
        (
            3,
            base.with_filter(Filter::Nearest)
                .with_address(AddressMode::Wrap),
        ),
        (
            4,
            Sampler {
                border: BORDER,
                ..base.with_address(AddressMode::ClampBorder)
            },
        ),
    ];
    // (BTI, sampler): the RGBA texture under every sampler, the float one
    // under nearest wrap and, where R32_FLOAT supports filtering, bilinear
    // wrap and border: SNB on (003 line 76549), not 965/G45 (000 line
    // 3414: no "Sampling Engine Filtering").
    let all = [
        (1, 0),
        (1, 1),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 2),
        (2, 4),
    ];
    let rgba = Level {
        w: 4,
        h: 4,
        texels: (0..16).map(|i| unorm(rgba_texel(i % 4, i / 4))).collect(),
    };
    // R32_FLOAT returns R, 0, 0, 1 (000 lines 3579-3580).
    let float = Level {
        w: 4,
        h: 4,
        texels: (0..16)
            .map(|i| [f64::from(float_texel(i % 4, i / 4)), 0.0, 0.0, 1.0])
            .collect(),
    };
    for g in MEDIA_GENERATIONS {
        let filters_floats = g >= Generation::Gen6;
        let cases = if filters_floats { &all[..] } else { &all[..6] };
        with_soft(g, |gpu, soft| {
            let mut cx = Compute::new(gpu).unwrap();
            let tex = cx
                .create_surface_2d(gpu, 4, 4, Format::R8G8B8A8Unorm, Tiling::Linear)
                .unwrap();
            let bytes: Vec<u8> = (0..16).flat_map(|i| rgba_texel(i % 4, i / 4)).collect();
            tex.write_pixels(Swizzle::None, &bytes).unwrap();
            // X-tiled: the sampler follows SURFACE_STATE's tiling too.
            let ftex = cx
                .create_surface_2d(gpu, 4, 4, Format::R32Float, Tiling::X)
                .unwrap();
            let fbytes: Vec<u8> = (0..16)
                .flat_map(|i| float_texel(i % 4, i / 4).to_le_bytes())
                .collect();
            ftex.write_pixels(Swizzle::None, &fbytes).unwrap();

            let p = params(g, Op::Sample, u, v, [0.0; 16]);
            let bin = kernel(g, Op::Sample, 2 * p.len(), cases);
            let job = Job {
                bin: &bin,
                curbe: &curbe_of(&p),
                textures: &[&tex, &ftex],
                samplers: &samplers,
                cases: cases.len(),
            };
            let got = run(gpu, soft, &mut cx, &job);
            for (c, &(bti, index)) in cases.iter().enumerate() {
                let s = samplers[index as usize].1;
                let level = if bti == 1 { &rgba } else { &float };
                // DX10/OGL border: missing channels keep 0 and alpha 1
                // (000 line 3824).
                let border = if bti == 1 {
                    BORDER.map(f64::from)
                } else {
                    [f64::from(BORDER[0]), 0.0, 0.0, 1.0]
                };
                for lane in 0..16 {
                    let want = filter(
                        level,
                        s.min_filter == Filter::Linear,
                        Mode::of(s.address[0]),
                        border,
                        u[lane],
                        v[lane],
                    );
                    for ch in 0..4 {
                        close(
                            got[c][ch][lane],
                            want[ch],
                            &format!(
                                "{g}: BTI {bti} sampler {index} lane {lane} ({}, {}) channel {ch}",
                                u[lane], v[lane]
                            ),
                        );
                    }
                }
            }
        });
    }
}

/// 8x8 R8G8B8A8_UNORM texel (x, y) of mip level `l`.
fn mip_texel(l: u32, x: u32, y: u32) -> [u8; 4] {
    [
        (l * 50 + x * 5 + 10) as u8,
        (y * 20 + 5) as u8,
        (l * 60) as u8,
        (200 + l) as u8,
    ]
}

#[test]
fn kernels_sample_mip_levels_by_explicit_lod() {
    let levels = 4;
    let u: [f32; 16] = core::array::from_fn(|k| 0.05 + k as f32 / 16.0);
    let v: [f32; 16] = core::array::from_fn(|k| 0.96 - k as f32 * 0.06);
    let lod: [f32; 16] = [
        0.0, 1.0, 2.0, 3.0, 0.4, 0.6, 1.5, 2.5, 3.7, -1.0, 1.25, 0.75, 2.0, 1.0, 0.5, 5.0,
    ];
    let nearest = Sampler::new().with_filter(Filter::Nearest);
    let samplers = [
        (
            0,
            Sampler {
                mip_filter: MipFilter::Nearest,
                ..nearest
            },
        ),
        (
            1,
            Sampler {
                mip_filter: MipFilter::Linear,
                ..nearest
            },
        ),
        (
            2,
            Sampler {
                mip_filter: MipFilter::Nearest,
                max_lod: 1.0,
                ..nearest
            },
        ),
        // No mip filter: level 0 whatever the LOD, bilinear.
        (3, Sampler::new()),
    ];
    let cases = [(1, 0), (1, 1), (1, 2), (1, 3)];
    let chain: Vec<Level> = (0..levels)
        .map(|l| {
            let (w, h) = (8 >> l, 8 >> l);
            Level {
                w,
                h,
                texels: (0..w * h)
                    .map(|i| unorm(mip_texel(l, i % w, i / w)))
                    .collect(),
            }
        })
        .collect();
    for g in MEDIA_GENERATIONS {
        with_soft(g, |gpu, soft| {
            let mut cx = Compute::new(gpu).unwrap();
            let tex = cx
                .create_texture_2d(gpu, 8, 8, levels, Format::R8G8B8A8Unorm, Tiling::Linear)
                .unwrap();
            for l in 0..levels {
                let (w, h) = tex.level_size(l).unwrap();
                assert_eq!((w, h), (8 >> l, 8 >> l));
                let bytes: Vec<u8> = (0..w * h)
                    .flat_map(|i| mip_texel(l, i % w, i / w))
                    .collect();
                tex.write_level(Swizzle::None, l, &bytes).unwrap();
                let mut back = vec![0; bytes.len()];
                tex.read_level(Swizzle::None, l, &mut back).unwrap();
                assert_eq!(back, bytes, "{g}: level {l} reads back");
            }
            let p = params(g, Op::SampleL, u, v, lod);
            let bin = kernel(g, Op::SampleL, 2 * p.len(), &cases);
            let job = Job {
                bin: &bin,
                curbe: &curbe_of(&p),
                textures: &[&tex],
                samplers: &samplers,
                cases: cases.len(),
            };
            let got = run(gpu, soft, &mut cx, &job);
            for (c, &(_, index)) in cases.iter().enumerate() {
                let s = samplers[index as usize].1;
                let linear = s.min_filter == Filter::Linear;
                for lane in 0..16 {
                    let (l0, l1, beta) = pick(&s, levels, lod[lane]);
                    let at = |l: u32| {
                        filter(
                            &chain[l as usize],
                            linear,
                            Mode::Clamp,
                            [0.0; 4],
                            u[lane],
                            v[lane],
                        )
                    };
                    let (a, b) = (at(l0), at(l1));
                    for ch in 0..4 {
                        close(
                            got[c][ch][lane],
                            (1.0 - beta) * a[ch] + beta * b[ch],
                            &format!(
                                "{g}: sampler {index} lane {lane} lod {} levels {l0}, {l1} ch {ch}",
                                lod[lane]
                            ),
                        );
                    }
                }
            }
        });
    }
}
