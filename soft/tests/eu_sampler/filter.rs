//! Filtering within one level: nearest against bilinear, and every
//! address mode at the edges, with the border colour.

use baregpu_isa::IsaGen;
use baregpu_soft::eu::shared::MemoryUnits;

use super::rig::*;

/// The texels of the 4 x 4 RGBA8 test texture.
fn rgba(x: u32, y: u32) -> [u8; 4] {
    [
        (16 * x + 4 * y + 1) as u8,
        (200 - 10 * x - 3 * y) as u8,
        (9 * x * y + 20) as u8,
        (255 - 7 * x - 40 * y) as u8,
    ]
}

fn texture(p: IsaGen, tex: &Tex) -> MemoryUnits {
    let mut gpu = new_gpu(p, tex);
    for y in 0..tex.h {
        for x in 0..tex.w {
            put_texel(&mut gpu, tex, 0, x, y, rgba(x, y));
        }
    }
    gpu
}

/// Texel index `i` of `n` under address mode `code` (000 lines 2915-2966):
/// wrap repeats, mirror flips at every edge, clamp repeats the edge,
/// mirror-once mirrors about 0 then clamps; `None` is the border colour.
fn address(i: i64, n: i64, code: u32) -> Option<i64> {
    match code {
        0 => Some(((i % n) + n) % n),
        1 => {
            let period = ((i % (2 * n)) + 2 * n) % (2 * n);
            Some(if period < n {
                period
            } else {
                2 * n - 1 - period
            })
        }
        2 => Some(i.clamp(0, n - 1)),
        4 => (0 <= i && i < n).then_some(i),
        5 => Some((if i < 0 { -i - 1 } else { i }).min(n - 1)),
        _ => unreachable!(),
    }
}

/// Channel values of texel (i, j) under `mode`, or the border colour.
fn fetch(i: i64, j: i64, mode: u32, border: [f64; 4]) -> [f64; 4] {
    match (address(i, 4, mode), address(j, 4, mode)) {
        (Some(x), Some(y)) => rgba(x as u32, y as u32).map(unorm),
        _ => border,
    }
}

/// MAPFILTER_NEAREST: the texel containing (u, v) (000 line 2864).
fn nearest(u: f32, v: f32, mode: u32, border: [f64; 4]) -> [f64; 4] {
    let i = (f64::from(u) * 4.0).floor() as i64;
    let j = (f64::from(v) * 4.0).floor() as i64;
    fetch(i, j, mode, border)
}

/// MAPFILTER_LINEAR: the 2x2 texels around (u, v), texel centres at
/// i + 0.5, weights from the fractions (000 lines 2870-2875).
fn bilinear(u: f32, v: f32, mode: u32, border: [f64; 4]) -> [f64; 4] {
    let x = f64::from(u) * 4.0 - 0.5;
    let y = f64::from(v) * 4.0 - 0.5;
    let (i, j) = (x.floor(), y.floor());
    let (a, b) = (x - i, y - j);
    let (i, j) = (i as i64, j as i64);
    let mut out = [0.0; 4];
    for (di, dj, w) in [
        (0, 0, (1.0 - a) * (1.0 - b)),
        (1, 0, a * (1.0 - b)),
        (0, 1, (1.0 - a) * b),
        (1, 1, a * b),
    ] {
        let t = fetch(i + di, j + dj, mode, border);
        for c in 0..4 {
            out[c] += w * t[c];
        }
    }
    out
}

fn check(p: IsaGen, got: [[u32; 4]; 16], want: impl Fn(usize) -> [f64; 4], what: &str) {
    for (l, t) in got.iter().enumerate() {
        let g = floats(*t);
        let w = want(l);
        for c in 0..4 {
            close(g[c], w[c], &format!("{p:?} {what} lane {l} channel {c}"));
        }
    }
}

#[test]
fn nearest_and_bilinear_on_a_2d_texture() {
    let tex = Tex::new(R8G8B8A8_UNORM, 4, 4, 1);
    // Coordinates off the texel centres and grid, all inside [0, 1).
    let u: [f32; 16] = core::array::from_fn(|l| ((l * 7) % 16) as f32 / 16.0 + 0.03);
    let v: [f32; 16] = core::array::from_fn(|l| ((l * 5) % 16) as f32 / 16.0 + 0.011);
    for p in ALL {
        let mut gpu = texture(p, &tex);
        put_sampler(&mut gpu, SAMPLERS, 0, &Spec::default());
        put_sampler(&mut gpu, SAMPLERS, 1, &Spec::linear());
        let msg = Msg::new(Op::SampleL, u, v).lod(0.0);
        let got = ok(&mut gpu, &msg);
        check(p, got, |l| nearest(u[l], v[l], 2, [0.0; 4]), "nearest");
        let got = ok(&mut gpu, &Msg { sampler: 1, ..msg });
        check(p, got, |l| bilinear(u[l], v[l], 2, [0.0; 4]), "bilinear");
    }
}

#[test]
fn one_dimensional_surfaces_filter_along_u_only() {
    let tex = Tex {
        one_d: true,
        ..Tex::new(R8G8B8A8_UNORM, 4, 1, 1)
    };
    let u: [f32; 16] = core::array::from_fn(|l| l as f32 / 16.0 + 0.01);
    // v is an array index on 1D surfaces (000 line 4086): ignored.
    let v = [7.5f32; 16];
    for p in ALL {
        let mut gpu = texture(p, &tex);
        put_sampler(&mut gpu, SAMPLERS, 0, &Spec::linear());
        let got = ok(&mut gpu, &Msg::new(Op::SampleL, u, v).lod(0.0));
        check(
            p,
            got,
            |l| {
                let x = f64::from(u[l]) * 4.0 - 0.5;
                let i = x.floor();
                let a = x - i;
                let t = |i: i64| rgba(i.clamp(0, 3) as u32, 0).map(unorm);
                let (t0, t1) = (t(i as i64), t(i as i64 + 1));
                core::array::from_fn(|c| (1.0 - a) * t0[c] + a * t1[c])
            },
            "1D bilinear",
        );
    }
}

#[test]
fn address_modes_at_the_edges() {
    let tex = Tex::new(R8G8B8A8_UNORM, 4, 4, 1);
    let border = [0.25f32, 0.5, 0.75, 0.125];
    let border64 = border.map(f64::from);
    // Texel-space positions left of, on and right of the surface: lanes
    // 0-7 move along u on row 1, lanes 8-15 along v on column 2.
    let pos = [-5.5f32, -2.5, -0.5, 0.5, 3.5, 4.5, 5.5, 9.5];
    let u: [f32; 16] = core::array::from_fn(|l| if l < 8 { pos[l] / 4.0 } else { 2.5 / 4.0 });
    let v: [f32; 16] = core::array::from_fn(|l| if l < 8 { 1.5 / 4.0 } else { pos[l - 8] / 4.0 });
    // Bilinear lanes straddle the edges: u = 0, 1/8, 1 and beyond.
    let lu: [f32; 16] =
        core::array::from_fn(|l| [0.0, 0.125, 1.0, 1.1][l % 4] - 0.02 * (l / 4) as f32);
    let lv: [f32; 16] = core::array::from_fn(|l| [0.3, 0.0, 0.99, 1.2][l / 4]);
    for p in ALL {
        for mode in [0, 1, 2, 4, 5] {
            let mut gpu = texture(p, &tex);
            put_border(&mut gpu, border, [0; 4]);
            let s = Spec {
                tc: [mode; 3],
                ..Spec::default()
            };
            put_sampler(&mut gpu, SAMPLERS, 0, &s);
            put_sampler(
                &mut gpu,
                SAMPLERS,
                1,
                &Spec {
                    mag: 1,
                    min: 1,
                    ..s
                },
            );
            let msg = Msg::new(Op::SampleL, u, v).lod(0.0);
            let got = ok(&mut gpu, &msg);
            check(
                p,
                got,
                |l| nearest(u[l], v[l], mode, border64),
                &format!("nearest mode {mode}"),
            );
            let msg = Msg {
                sampler: 1,
                ..Msg::new(Op::SampleL, lu, lv).lod(0.0)
            };
            let got = ok(&mut gpu, &msg);
            check(
                p,
                got,
                |l| bilinear(lu[l], lv[l], mode, border64),
                &format!("bilinear mode {mode}"),
            );
        }
    }
}

#[test]
fn dx9_border_colour_is_unorm8() {
    let tex = Tex::new(R8G8B8A8_UNORM, 4, 4, 1);
    let u: [f32; 16] = core::array::from_fn(|l| if l % 2 == 0 { -0.3 } else { 0.6 });
    let v = [0.6f32; 16];
    // Gen7.5's border colour layout has no DX9 form [ext: mesa gen75.xml].
    for p in [IsaGen::Gen4, IsaGen::G45, IsaGen::Gen6, IsaGen::Gen7] {
        let mut gpu = texture(p, &tex);
        put_border_dx9(&mut gpu, [64, 128, 192, 32]);
        put_sampler(
            &mut gpu,
            SAMPLERS,
            0,
            &Spec {
                dx9: true,
                tc: [4; 3],
                ..Spec::default()
            },
        );
        let got = ok(&mut gpu, &Msg::new(Op::SampleL, u, v).lod(0.0));
        let dx9 = [64, 128, 192, 32].map(unorm);
        check(p, got, |l| nearest(u[l], v[l], 4, dx9), "DX9 border");
    }
    let mut gpu = texture(IsaGen::Gen75, &tex);
    put_sampler(
        &mut gpu,
        SAMPLERS,
        0,
        &Spec {
            dx9: true,
            tc: [4; 3],
            ..Spec::default()
        },
    );
    refused(&mut gpu, &Msg::new(Op::SampleL, u, v).lod(0.0), "DX9");
}

#[test]
fn integer_border_colour_needs_gen75() {
    // R32_UINT with CLAMP_BORDER: Gen7.5 keeps 32-bit integer border
    // values at DW16-19 [ext: mesa gen75.xml]; the other layouts have none.
    let tex = Tex::new(R32_UINT, 4, 4, 1);
    let u: [f32; 16] = core::array::from_fn(|l| if l % 2 == 0 { -0.3 } else { 0.6 });
    let v = [0.6f32; 16];
    for p in ALL {
        let mut gpu = new_gpu(p, &tex);
        for y in 0..4 {
            for x in 0..4 {
                put_texel(&mut gpu, &tex, 0, x, y, (100 * y + x).to_le_bytes());
            }
        }
        put_border(&mut gpu, [0.0; 4], [77, 88, 99, 111]);
        put_sampler(
            &mut gpu,
            SAMPLERS,
            0,
            &Spec {
                tc: [4; 3],
                ..Spec::default()
            },
        );
        let msg = Msg::new(Op::SampleL, u, v).lod(0.0);
        if p != IsaGen::Gen75 {
            refused(&mut gpu, &msg, "integer");
            continue;
        }
        let got = ok(&mut gpu, &msg);
        for (l, t) in got.iter().enumerate() {
            // R32_UINT: G and B read 0, alpha 1, even for the border (000
            // lines 3578, 3824).
            let want = if l % 2 == 0 {
                [77, 0, 0, 1]
            } else {
                [202, 0, 0, 1]
            };
            assert_eq!(*t, want, "lane {l}");
        }
    }
}
