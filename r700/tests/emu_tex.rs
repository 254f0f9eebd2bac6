//! Texture fetch on the emulator against host code written from the definitions: mip
//! selection from gradients (SET_GRADIENTS_H/V, KEEP_GRADIENTS, the quad's differences), the
//! _L/_LB/_LZ forms and the sampler's LOD fields, point and linear mip filters,
//! GET_COMP_TEX_LOD, cube maps through Mesa's CUBE sequence, 3D and array textures, border
//! colour types, the packed and plain formats Mesa r600 sets up, LD with levels and slices.
//!
//! Host rules: the LOD is log2 of the longer gradient in base-level texels (OpenGL 4.6
//! 8.14.1), mip POINT takes level ceil(lod + 0.5) - 1, LINEAR blends floor(lod) and the next;
//! the mip layout is the one `r700/README.md` documents (levels 1.. packed at MIP_ADDRESS,
//! rows of the level width rounded up to 8 texels).

mod emu_common;

use baregpu_r700::alu::Src;
use baregpu_r700::cf::CfAluOp;
use baregpu_r700::emu::{self, Inputs, Options, Sampler, TexResource};
use baregpu_r700::fetch::TexInst;
use emu_common::*;

const TEXBUF: u8 = 2;

fn tex(op: u8, src: u8, dst: u8, src_sel: [u8; 4]) -> TexInst {
    TexInst {
        op,
        bc_frac_mode: false,
        fetch_whole_quad: false,
        resource_id: 0,
        src_gpr: src,
        src_rel: false,
        alt_const: false,
        dst_gpr: dst,
        dst_rel: false,
        dst_sel: [0, 1, 2, 3],
        lod_bias: 0,
        coord_type: [true; 4],
        offset: [0; 3],
        sampler_id: 0,
        src_sel,
    }
}

/// Per-thread GPRs R1..R(rows) from `rows` vec4s per thread.
fn inputs(per_thread: &[Vec<[f32; 4]>]) -> (Vec<u8>, u8) {
    let rows = per_thread[0].len();
    let mut buf = Vec::new();
    for t in per_thread {
        assert_eq!(t.len(), rows);
        for v in t {
            buf.extend(v.iter().flat_map(|f| f.to_le_bytes()));
        }
    }
    (buf, rows as u8)
}

/// A mip chain of RGBA32F texels on the host, laid out as the README says.
struct Chain {
    w: u32,
    h: u32,
    slices: u32,
    last: u32,
    /// Byte offset of MIP_ADDRESS in the texture buffer (level 0 is at 0).
    mip: usize,
    data: Vec<u8>,
}

impl Chain {
    fn size(&self, l: u32) -> (u32, u32, u32) {
        let w = (self.w >> l).max(1);
        let h = (self.h >> l).max(1);
        let pitch = if l == 0 {
            self.w.div_ceil(8) * 8
        } else {
            w.div_ceil(8) * 8
        };
        (w, h, pitch)
    }

    fn offset(&self, l: u32) -> usize {
        if l == 0 {
            return 0;
        }
        let mut at = self.mip;
        for k in 1..l {
            let (_, h, p) = self.size(k);
            at += (p * h * self.slices) as usize * 16;
        }
        at
    }

    /// Fills every texel with `f(level, slice, x, y)`.
    fn new(
        w: u32,
        h: u32,
        slices: u32,
        last: u32,
        f: impl Fn(u32, u32, u32, u32) -> [f32; 4],
    ) -> Self {
        let pitch0 = w.div_ceil(8) * 8;
        let mip = ((pitch0 * h * slices * 16) as usize).div_ceil(256) * 256;
        let mut c = Chain {
            w,
            h,
            slices,
            last,
            mip,
            data: Vec::new(),
        };
        let end = c.offset(last + 1);
        c.data = vec![0; end.max(mip)];
        for l in 0..=last {
            let (lw, lh, p) = c.size(l);
            for s in 0..slices {
                for y in 0..lh {
                    for x in 0..lw {
                        let at = c.offset(l) + (((s * lh + y) * p + x) * 16) as usize;
                        let v = f(l, s, x, y);
                        for (k, comp) in v.iter().enumerate() {
                            c.data[at + 4 * k..at + 4 * k + 4].copy_from_slice(&comp.to_le_bytes());
                        }
                    }
                }
            }
        }
        c
    }

    fn resource(&self, dim: u8) -> TexResource {
        let pitch0 = self.w.div_ceil(8) * 8;
        TexResource::linear(
            dim,
            emu::address(TEXBUF, 0),
            [self.w, self.h],
            pitch0,
            35,
            0,
            false,
        )
        .with_depth(self.slices)
        .with_mips(emu::address(TEXBUF, self.mip as u32), 0, self.last as u8)
    }
}

/// Level texel: which level, x, y, slice it came from.
fn id_texel(l: u32, s: u32, x: u32, y: u32) -> [f32; 4] {
    [l as f32, x as f32, y as f32, s as f32]
}

/// Runs `items` over the per-thread inputs; returns each thread's exported R(first..).
fn run(
    items: Vec<C>,
    per_thread: &[Vec<[f32; 4]>],
    texture: &mut [u8],
    params: usize,
    opts: &mut Options,
) -> Vec<Vec<[f32; 4]>> {
    let (mut inp, rows) = inputs(per_thread);
    opts.inputs = Some(Inputs {
        address: emu::address(1, 0),
        first: 1,
        count: rows,
    });
    let bytes = build(items);
    let (_, out) = run_params(
        &bytes,
        per_thread.len() as u32,
        params,
        opts,
        &mut [&mut inp, texture],
    )
    .unwrap();
    out.iter()
        .map(|t| t.iter().map(|v| v.map(f32::from_bits)).collect())
        .collect()
}

/// The host's point sample of level `l` at normalised (u, v) with clamp-to-last-texel.
fn point(c: &Chain, l: u32, u: f32, v: f32) -> [f32; 4] {
    let (w, h, _) = c.size(l);
    let x = ((u * w as f32).floor() as i64).clamp(0, w as i64 - 1) as u32;
    let y = ((v * h as f32).floor() as i64).clamp(0, h as i64 - 1) as u32;
    id_texel(l, 0, x, y)
}

/// The host's mip selection and blend for a LOD already clamped to [0, last].
fn mip_sample(c: &Chain, lod: f32, linear: bool, u: f32, v: f32) -> [f32; 4] {
    if lod <= 0.0 {
        return point(c, 0, u, v);
    }
    if !linear {
        let l = ((lod + 0.5).ceil() - 1.0).max(0.0) as u32;
        return point(c, l.min(c.last), u, v);
    }
    let lo = lod.floor();
    let f = lod - lo;
    let a = point(c, (lo as u32).min(c.last), u, v);
    let b = point(c, (lo as u32 + 1).min(c.last), u, v);
    core::array::from_fn(|k| a[k] * (1.0 - f) + b[k] * f)
}

fn close(got: [f32; 4], want: [f32; 4], what: &str) {
    for k in 0..4 {
        assert!(
            (got[k] - want[k]).abs() <= 1e-4,
            "{what}: got {got:?}, want {want:?}"
        );
    }
}

/// Gradients set with SET_GRADIENTS_H/V select each level of a 32x32 chain and the blends
/// between them (SAMPLE_G), with the mip filter POINT and LINEAR.
#[test]
fn sample_g_selects_levels_from_set_gradients() {
    let mut chain = Chain::new(32, 32, 1, 5, id_texel);
    let mut cases = Vec::new();
    for k in 0..7 {
        for f in [1.0f32, 1.3, 1.5, 1.9] {
            let g = (1u32 << k) as f32 * f / 32.0;
            // Anisotropic: the longer gradient decides.
            cases.push(([0.37f32, 0.61], [g, 0.0], [0.0, g * 0.5]));
            cases.push(([0.9f32, 0.05], [g * 0.25, 0.0], [0.0, g]));
        }
    }
    cases.push(([0.5, 0.5], [0.0, 0.0], [0.0, 0.0]));
    let per: Vec<Vec<[f32; 4]>> = cases
        .iter()
        .map(|(c, h, v)| {
            vec![
                [c[0], c[1], 0.0, 0.0],
                [h[0], h[1], 0.0, 0.0],
                [v[0], v[1], 0.0, 0.0],
            ]
        })
        .collect();
    for linear in [false, true] {
        let mut opts = Options {
            tex_resources: vec![(0, chain.resource(1))],
            samplers: vec![(
                0,
                Sampler::point(2)
                    .with_mip_filter(if linear { 2 } else { 1 })
                    .with_lod(0.0, 15.0, 0.0),
            )],
            ..Options::default()
        };
        let out = run(
            vec![
                C::Tex(vec![
                    tex(11, 2, 5, [0, 1, 2, 3]),
                    tex(12, 3, 5, [0, 1, 2, 3]),
                    tex(20, 1, 5, [0, 1, 2, 3]),
                ]),
                export_params(5, 1),
            ],
            &per,
            &mut chain.data,
            1,
            &mut opts,
        );
        for (t, (c, h, v)) in cases.iter().enumerate() {
            let rho = (h[0] * 32.0)
                .hypot(h[1] * 32.0)
                .max((v[0] * 32.0).hypot(v[1] * 32.0));
            let lod = rho.log2().clamp(0.0, 5.0);
            let want = mip_sample(&chain, lod, linear, c[0], c[1]);
            close(
                out[t][0],
                want,
                &format!("case {t} lod {lod} linear {linear}"),
            );
        }
    }
}

/// Quad coordinates `d` apart: plain SAMPLE takes its gradients from the quad.
fn quad_cases(spacings: &[f32]) -> Vec<Vec<[f32; 4]>> {
    let mut per = Vec::new();
    for (q, &d) in spacings.iter().enumerate() {
        let (u0, v0) = (0.1 + 0.03 * q as f32, 0.2 + 0.05 * q as f32);
        for i in 0..4 {
            let u = u0 + (i & 1) as f32 * d;
            let v = v0 + (i >> 1) as f32 * d;
            per.push(vec![[u, v, 0.0, 0.0]]);
        }
    }
    per
}

#[test]
fn implicit_gradients_from_the_quad_select_levels() {
    let mut chain = Chain::new(32, 32, 1, 5, id_texel);
    let spacings: Vec<f32> = [1.0f32, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0]
        .iter()
        .map(|s| s / 32.0)
        .collect();
    let per = quad_cases(&spacings);
    let mut opts = Options {
        tex_resources: vec![(0, chain.resource(1))],
        samplers: vec![(
            0,
            Sampler::point(2)
                .with_mip_filter(2)
                .with_lod(0.0, 15.0, 0.0),
        )],
        ..Options::default()
    };
    let out = run(
        vec![
            C::Tex(vec![tex(16, 1, 5, [0, 1, 2, 3])]),
            export_params(5, 1),
        ],
        &per,
        &mut chain.data,
        1,
        &mut opts,
    );
    for (t, row) in per.iter().enumerate() {
        let d = spacings[t / 4];
        let lod = (d * 32.0).log2().clamp(0.0, 5.0);
        let want = mip_sample(&chain, lod, true, row[0][0], row[0][1]);
        close(out[t][0], want, &format!("thread {t} spacing {d}"));
    }
}

/// KEEP_GRADIENTS stores the quad's gradients of its source; a later SAMPLE_G of another
/// coordinate uses them.
#[test]
fn keep_gradients_feeds_sample_g() {
    let mut chain = Chain::new(32, 32, 1, 5, id_texel);
    let spacings = [4.0f32 / 32.0, 8.0 / 32.0];
    let mut per = quad_cases(&spacings);
    for (t, row) in per.iter_mut().enumerate() {
        row.push([0.7 - 0.01 * t as f32, 0.3, 0.0, 0.0]);
    }
    let mut opts = Options {
        tex_resources: vec![(0, chain.resource(1))],
        samplers: vec![(
            0,
            Sampler::point(2)
                .with_mip_filter(1)
                .with_lod(0.0, 15.0, 0.0),
        )],
        ..Options::default()
    };
    let out = run(
        vec![
            C::Tex(vec![
                tex(10, 1, 6, [0, 1, 2, 3]),
                tex(20, 2, 5, [0, 1, 2, 3]),
            ]),
            export_params(5, 1),
        ],
        &per,
        &mut chain.data,
        1,
        &mut opts,
    );
    for (t, row) in per.iter().enumerate() {
        let lod = (spacings[t / 4] * 32.0).log2();
        let want = mip_sample(&chain, lod, false, row[1][0], row[1][1]);
        close(out[t][0], want, &format!("thread {t}"));
    }
}

/// SAMPLE_L (LOD in W), SAMPLE_LB (instruction LOD_BIAS, W and the sampler's bias added to
/// the quad's LOD), SAMPLE_LZ (level 0 of the view: BASE_LEVEL), GET_COMP_TEX_LOD (clamped
/// and unclamped), GET_TEXTURE_RESINFO of the view.
#[test]
fn explicit_lod_bias_and_comp_lod() {
    let mut chain = Chain::new(32, 32, 1, 5, id_texel);
    let lods = [-1.0f32, 0.0, 0.25, 0.5, 0.75, 1.0, 2.6, 4.5, 9.0];
    // Quad spacing 2 texels: computed LOD 1.
    let d = 2.0 / 32.0;
    let mut per = Vec::new();
    for &l in &lods {
        for i in 0..4 {
            per.push(vec![[
                0.3 + (i & 1) as f32 * d,
                0.55 + (i >> 1) as f32 * d,
                0.0,
                l,
            ]]);
        }
    }
    // S3.4: -1.5 is -24.
    let mut lb = tex(18, 1, 6, [0, 1, 2, 3]);
    lb.lod_bias = (-24i8 as u8) & 0x7F;
    let sampler_bias = 0.25;
    let mut opts = Options {
        tex_resources: vec![(0, chain.resource(1))],
        samplers: vec![(
            0,
            Sampler::point(2)
                .with_mip_filter(2)
                .with_lod(0.0, 15.0, sampler_bias),
        )],
        ..Options::default()
    };
    let out = run(
        vec![
            C::Tex(vec![
                tex(17, 1, 5, [0, 1, 2, 3]),
                lb,
                tex(19, 1, 7, [0, 1, 2, 3]),
                tex(6, 1, 8, [0, 1, 2, 3]),
                tex(4, 1, 9, [0, 1, 2, 3]),
            ]),
            export_params(5, 5),
        ],
        &per,
        &mut chain.data,
        5,
        &mut opts,
    );
    for (t, row) in per.iter().enumerate() {
        let [u, v, _, w] = row[0];
        let what = format!("thread {t} w {w}");
        close(
            out[t][0],
            mip_sample(&chain, w.clamp(0.0, 5.0), true, u, v),
            &format!("SAMPLE_L {what}"),
        );
        let biased = 1.0 + sampler_bias - 1.5 + w;
        close(
            out[t][1],
            mip_sample(&chain, biased.clamp(0.0, 5.0), true, u, v),
            &format!("SAMPLE_LB {what}"),
        );
        close(
            out[t][2],
            point(&chain, 0, u, v),
            &format!("SAMPLE_LZ {what}"),
        );
        let comp = 1.0 + sampler_bias;
        close(
            out[t][3],
            [comp.clamp(0.0, 5.0), comp, 0.0, 0.0],
            &format!("GET_COMP_TEX_LOD {what}"),
        );
        let info = out[t][4].map(f32::to_bits);
        assert_eq!(info, [32, 32, 1, 6], "RESINFO");
    }

    // A view starting at level 2 (BASE_LEVEL), MAX_LOD 1: LZ reads level 2, large LODs stop
    // at level 3, RESINFO counts the view's levels.
    opts.tex_resources = vec![(
        0,
        chain
            .resource(1)
            .with_mips(emu::address(TEXBUF, chain.mip as u32), 2, 5),
    )];
    opts.samplers = vec![(
        0,
        Sampler::point(2).with_mip_filter(1).with_lod(0.0, 1.0, 0.0),
    )];
    let out = run(
        vec![
            C::Tex(vec![
                tex(19, 1, 5, [0, 1, 2, 3]),
                tex(17, 1, 6, [0, 1, 2, 3]),
                tex(4, 1, 7, [0, 1, 2, 3]),
                tex(6, 1, 8, [0, 1, 2, 3]),
            ]),
            export_params(5, 4),
        ],
        &per,
        &mut chain.data,
        4,
        &mut opts,
    );
    for (t, row) in per.iter().enumerate() {
        let [u, v, _, w] = row[0];
        close(out[t][0], point(&chain, 2, u, v), "LZ at BASE_LEVEL 2");
        let l = ((w.clamp(0.0, 1.0) + 0.5).ceil() - 1.0).max(0.0) as u32;
        let want = if w > 0.0 {
            point(&chain, 2 + l, u, v)
        } else {
            point(&chain, 2, u, v)
        };
        close(
            out[t][1],
            want,
            &format!("SAMPLE_L w {w} from BASE_LEVEL 2"),
        );
        assert_eq!(
            out[t][2].map(f32::to_bits)[3],
            4,
            "RESINFO levels of the view"
        );
        // The quad's LOD against the base level's 8 texels: log2(2/32 * 8) = -1.
        close(
            out[t][3],
            [0.0, -1.0, 0.0, 0.0],
            "GET_COMP_TEX_LOD at BASE_LEVEL 2",
        );
    }
}

/// The OpenGL cube-map table (OpenGL 4.6 table 8.19): face (+X -X +Y -Y +Z -Z = 0-5), s, t.
fn gl_cube(d: [f32; 3]) -> (u32, f32, f32) {
    let [x, y, z] = d;
    let (face, sc, tc, ma) = if x.abs() >= y.abs() && x.abs() >= z.abs() {
        if x > 0.0 {
            (0, -z, -y, x)
        } else {
            (1, z, -y, x)
        }
    } else if y.abs() >= z.abs() {
        if y > 0.0 { (2, x, z, y) } else { (3, x, -z, y) }
    } else if z > 0.0 {
        (4, x, -y, z)
    } else {
        (5, -x, -y, z)
    };
    (
        face,
        (sc / ma.abs() + 1.0) / 2.0,
        (tc / ma.abs() + 1.0) / 2.0,
    )
}

/// Directions along each major axis (and off it) through Mesa r600's cube sequence: CUBE,
/// RECIP_IEEE of |2 major|, S and T times it plus 1.5, then SAMPLE of (S, T, face)
/// (r600_shader.c tgsi_tex); the texel comes from the face the OpenGL table names.
#[test]
fn cube_faces_for_each_major_axis() {
    let n = 8;
    let mut chain = Chain::new(n, n, 6, 0, id_texel);
    let mut dirs = Vec::new();
    for axis in 0..3 {
        for sign in [1.0f32, -1.0] {
            for (a, b) in [(0.1f32, 0.2f32), (-0.7, 0.4), (0.55, -0.9), (-0.3, -0.05)] {
                let mut d = [a, b, a * b + 0.1];
                d[axis] = sign * 1.5;
                dirs.push(d);
            }
        }
    }
    let per: Vec<Vec<[f32; 4]>> = dirs.iter().map(|d| vec![[d[0], d[1], d[2], 0.0]]).collect();
    let src0 = [2u8, 2, 0, 1];
    let src1 = [1u8, 0, 2, 2];
    let cube = group(
        (0..4)
            .map(|c| op2(82, (4, c as u8), gpr(1, src0[c]), gpr(1, src1[c])))
            .collect(),
        vec![],
    );
    let rcp = group(
        vec![op2(
            102,
            (4, 2),
            Src {
                abs: true,
                ..gpr(4, 2)
            },
            gpr(4, 2),
        )],
        vec![],
    );
    let one_and_half = 1.5f32.to_bits();
    let scale = group(
        vec![
            op3(16, (4, 0), gpr(4, 0), gpr(4, 2), lit(0)),
            op3(16, (4, 1), gpr(4, 1), gpr(4, 2), lit(0)),
        ],
        vec![one_and_half],
    );
    let mut opts = Options {
        tex_resources: vec![(0, chain.resource(3))],
        samplers: vec![(0, Sampler::point(2))],
        ..Options::default()
    };
    let out = run(
        vec![
            C::Alu(CfAluOp::Alu, vec![cube, rcp, scale]),
            C::Tex(vec![tex(16, 4, 5, [1, 0, 3, 2])]),
            export_params(5, 1),
        ],
        &per,
        &mut chain.data,
        1,
        &mut opts,
    );
    for (t, d) in dirs.iter().enumerate() {
        let (face, s, tt) = gl_cube(*d);
        let x = ((s * n as f32).floor() as u32).min(n - 1);
        let y = ((tt * n as f32).floor() as u32).min(n - 1);
        close(
            out[t][0],
            id_texel(0, face, x, y),
            &format!("direction {d:?}"),
        );
    }
}

/// A 3D texture whose texels hold their own (x, y, z): trilinear filtering (bilinear plus
/// Z_FILTER LINEAR) returns the texel-space position minus a half inside the volume; Z_FILTER
/// POINT returns the slice's z.
#[test]
fn three_d_linear_and_point_slices() {
    let (w, h, d) = (8u32, 8, 4);
    let mut chain = Chain::new(w, h, d, 0, |_, s, x, y| [x as f32, y as f32, s as f32, 1.0]);
    let pts: Vec<[f32; 3]> = (0..24)
        .map(|i| {
            let i = i as f32;
            [0.1 + 0.033 * i, 0.8 - 0.025 * i, 0.15 + 0.029 * i]
        })
        .collect();
    let per: Vec<Vec<[f32; 4]>> = pts.iter().map(|p| vec![[p[0], p[1], p[2], 0.0]]).collect();
    for zf in [2u8, 1] {
        let mut opts = Options {
            tex_resources: vec![(0, chain.resource(2))],
            samplers: vec![(0, Sampler::bilinear(2).with_z_filter(zf))],
            ..Options::default()
        };
        let out = run(
            vec![
                C::Tex(vec![tex(19, 1, 5, [0, 1, 2, 3])]),
                export_params(5, 1),
            ],
            &per,
            &mut chain.data,
            1,
            &mut opts,
        );
        for (t, p) in pts.iter().enumerate() {
            // Clamp-to-last-texel keeps a linear ramp linear inside [0.5, n - 0.5].
            let ramp = |c: f32, n: u32| (c * n as f32 - 0.5).clamp(0.0, n as f32 - 1.0);
            let z = if zf == 2 {
                ramp(p[2], d)
            } else {
                (p[2] * d as f32).floor().min(d as f32 - 1.0)
            };
            close(
                out[t][0],
                [ramp(p[0], w), ramp(p[1], h), z, 1.0],
                &format!("{p:?} z filter {zf}"),
            );
        }
    }
}

/// 2D and 1D arrays: the layer coordinate is rounded and clamped to BASE_ARRAY..LAST_ARRAY.
#[test]
fn array_layers_round_and_clamp() {
    let mut chain = Chain::new(4, 4, 5, 0, id_texel);
    let layers = [-1.0f32, 0.4, 0.6, 1.49, 1.5, 2.5, 3.49, 9.0];
    let per: Vec<Vec<[f32; 4]>> = layers.iter().map(|&l| vec![[0.6, 0.3, l, l]]).collect();
    let mut opts = Options {
        tex_resources: vec![(0, chain.resource(5).with_array_range(1, 3))],
        samplers: vec![(0, Sampler::point(2))],
        ..Options::default()
    };
    let mut t2 = tex(19, 1, 5, [0, 1, 2, 3]);
    t2.coord_type = [true, true, false, false];
    let out = run(
        vec![C::Tex(vec![t2]), export_params(5, 1)],
        &per,
        &mut chain.data,
        1,
        &mut opts,
    );
    for (t, &l) in layers.iter().enumerate() {
        let slice = ((l + 0.5).floor().max(1.0) as u32).min(3);
        close(
            out[t][0],
            id_texel(0, slice, 2, 1),
            &format!("2D array layer {l}"),
        );
    }
    // 1D array (DIM 4): the layer is Y; the 4x1 rows of the same storage.
    let mut chain1 = Chain::new(4, 1, 5, 0, id_texel);
    opts.tex_resources = vec![(0, chain1.resource(4).with_array_range(0, 4))];
    let mut t1 = tex(19, 1, 5, [0, 3, 2, 3]);
    t1.coord_type = [true, false, false, false];
    let out = run(
        vec![C::Tex(vec![t1]), export_params(5, 1)],
        &per,
        &mut chain1.data,
        1,
        &mut opts,
    );
    for (t, &l) in layers.iter().enumerate() {
        let slice = ((l + 0.5).floor().max(0.0) as u32).min(4);
        close(
            out[t][0],
            id_texel(0, slice, 2, 0),
            &format!("1D array layer {l}"),
        );
    }
}

/// CLAMP_BORDER outside the texture reads the colour BORDER_COLOR_TYPE names: transparent
/// black, opaque black, opaque white, or the sampler's border registers; inside, the texel.
#[test]
fn border_colour_per_type() {
    let mut chain = Chain::new(4, 4, 1, 0, |_, _, x, y| {
        [x as f32 + 0.5, y as f32, 7.0, 9.0]
    });
    let pts = [
        [-0.1f32, 0.5],
        [1.2, 0.5],
        [0.5, -3.0],
        [0.5, 1.01],
        [0.6, 0.3],
    ];
    let per: Vec<Vec<[f32; 4]>> = pts.iter().map(|p| vec![[p[0], p[1], 0.0, 0.0]]).collect();
    let register = [0.25f32, 0.5, 0.75, 0.125];
    for kind in 0..4u8 {
        let mut opts = Options {
            tex_resources: vec![(0, chain.resource(1))],
            samplers: vec![(0, Sampler::point(6).with_border(kind))],
            border_colors: vec![(0, register.map(f32::to_bits))],
            ..Options::default()
        };
        let out = run(
            vec![
                C::Tex(vec![tex(16, 1, 5, [0, 1, 2, 3])]),
                export_params(5, 1),
            ],
            &per,
            &mut chain.data,
            1,
            &mut opts,
        );
        let border = match kind {
            0 => [0.0; 4],
            1 => [0.0, 0.0, 0.0, 1.0],
            2 => [1.0; 4],
            _ => register,
        };
        for (t, p) in pts.iter().enumerate() {
            let inside = (0.0..1.0).contains(&p[0]) && (0.0..1.0).contains(&p[1]);
            let want = if inside {
                let (x, y) = ((p[0] * 4.0).floor(), (p[1] * 4.0).floor());
                [x + 0.5, y, 7.0, 9.0]
            } else {
                border
            };
            close(out[t][0], want, &format!("border type {kind} at {p:?}"));
        }
    }
}

/// One format case: DATA_FORMAT, NUM_FORMAT, signed components, bytes per texel, a texel's
/// bytes from raw components, and what the host expects.
struct FormatCase {
    name: &'static str,
    fmt: u8,
    num: u8,
    signed: bool,
    bytes: usize,
    pack: fn([u32; 4]) -> Vec<u8>,
    want: fn([u32; 4]) -> [u32; 4],
}

fn f(v: f32) -> u32 {
    v.to_bits()
}

fn le(word: u64, n: usize) -> Vec<u8> {
    word.to_le_bytes()[..n].to_vec()
}

fn half(h: u32) -> f32 {
    // IEEE half: sign, 5-bit exponent (bias 15), 10-bit mantissa.
    let (s, e, m) = ((h >> 15) & 1, (h >> 10) & 31, h & 1023);
    let v = match e {
        0 => m as f32 / 1024.0 * 2f32.powi(-14),
        31 => {
            if m == 0 {
                f32::INFINITY
            } else {
                f32::NAN
            }
        }
        _ => (1.0 + m as f32 / 1024.0) * 2f32.powi(e as i32 - 15),
    };
    if s == 1 { -v } else { v }
}

fn format_cases() -> Vec<FormatCase> {
    vec![
        FormatCase {
            name: "5_6_5 UNORM",
            fmt: 8,
            num: 0,
            signed: false,
            bytes: 2,
            pack: |r| le((r[0] & 31 | (r[1] & 63) << 5 | (r[2] & 31) << 11) as u64, 2),
            want: |r| {
                [
                    f((r[0] & 31) as f32 / 31.0),
                    f((r[1] & 63) as f32 / 63.0),
                    f((r[2] & 31) as f32 / 31.0),
                    f(1.0),
                ]
            },
        },
        FormatCase {
            name: "1_5_5_5 UNORM",
            fmt: 10,
            num: 0,
            signed: false,
            bytes: 2,
            pack: |r| {
                le(
                    (r[0] & 31 | (r[1] & 31) << 5 | (r[2] & 31) << 10 | (r[3] & 1) << 15) as u64,
                    2,
                )
            },
            want: |r| {
                [
                    f((r[0] & 31) as f32 / 31.0),
                    f((r[1] & 31) as f32 / 31.0),
                    f((r[2] & 31) as f32 / 31.0),
                    f((r[3] & 1) as f32),
                ]
            },
        },
        FormatCase {
            name: "4_4_4_4 UNORM",
            fmt: 11,
            num: 0,
            signed: false,
            bytes: 2,
            pack: |r| {
                le(
                    (r[0] & 15 | (r[1] & 15) << 4 | (r[2] & 15) << 8 | (r[3] & 15) << 12) as u64,
                    2,
                )
            },
            want: |r| r.map(|c| f((c & 15) as f32 / 15.0)),
        },
        FormatCase {
            name: "2_10_10_10 UNORM",
            fmt: 25,
            num: 0,
            signed: false,
            bytes: 4,
            pack: |r| {
                le(
                    (r[0] & 1023 | (r[1] & 1023) << 10 | (r[2] & 1023) << 20 | (r[3] & 3) << 30)
                        as u64,
                    4,
                )
            },
            want: |r| {
                [
                    f((r[0] & 1023) as f32 / 1023.0),
                    f((r[1] & 1023) as f32 / 1023.0),
                    f((r[2] & 1023) as f32 / 1023.0),
                    f((r[3] & 3) as f32 / 3.0),
                ]
            },
        },
        FormatCase {
            name: "10_10_10_2 INT",
            fmt: 27,
            num: 1,
            signed: false,
            bytes: 4,
            pack: |r| {
                le(
                    (r[0] & 3 | (r[1] & 1023) << 2 | (r[2] & 1023) << 12 | (r[3] & 1023) << 22)
                        as u64,
                    4,
                )
            },
            want: |r| [r[0] & 3, r[1] & 1023, r[2] & 1023, r[3] & 1023],
        },
        FormatCase {
            name: "8_8_8_8 SNORM",
            fmt: 26,
            num: 0,
            signed: true,
            bytes: 4,
            pack: |r| r.iter().map(|&c| c as u8).collect(),
            want: |r| r.map(|c| f((c as u8 as i8 as f32 / 127.0).max(-1.0))),
        },
        FormatCase {
            name: "8_8_8_8 SCALED",
            fmt: 26,
            num: 2,
            signed: false,
            bytes: 4,
            pack: |r| r.iter().map(|&c| c as u8).collect(),
            want: |r| r.map(|c| f((c & 255) as f32)),
        },
        FormatCase {
            name: "8 UNORM",
            fmt: 1,
            num: 0,
            signed: false,
            bytes: 1,
            pack: |r| vec![r[0] as u8],
            want: |r| [f((r[0] & 255) as f32 / 255.0), 0, 0, f(1.0)],
        },
        FormatCase {
            name: "8_8 SINT",
            fmt: 7,
            num: 1,
            signed: true,
            bytes: 2,
            pack: |r| vec![r[0] as u8, r[1] as u8],
            want: |r| {
                [
                    r[0] as u8 as i8 as i32 as u32,
                    r[1] as u8 as i8 as i32 as u32,
                    0,
                    1,
                ]
            },
        },
        FormatCase {
            name: "16_16 UNORM",
            fmt: 15,
            num: 0,
            signed: false,
            bytes: 4,
            pack: |r| le((r[0] & 0xFFFF | (r[1] & 0xFFFF) << 16) as u64, 4),
            want: |r| {
                [
                    f((r[0] & 0xFFFF) as f32 / 65535.0),
                    f((r[1] & 0xFFFF) as f32 / 65535.0),
                    0,
                    f(1.0),
                ]
            },
        },
        FormatCase {
            name: "16_16_16_16_FLOAT",
            fmt: 32,
            num: 0,
            signed: false,
            bytes: 8,
            pack: |r| r.iter().flat_map(|&c| (c as u16).to_le_bytes()).collect(),
            want: |r| r.map(|c| f(half(c & 0xFFFF))),
        },
        FormatCase {
            name: "32 UINT",
            fmt: 13,
            num: 1,
            signed: false,
            bytes: 4,
            pack: |r| r[0].to_le_bytes().to_vec(),
            want: |r| [r[0], 0, 0, 1],
        },
        FormatCase {
            name: "32_FLOAT",
            fmt: 14,
            num: 0,
            signed: false,
            bytes: 4,
            pack: |r| r[0].to_le_bytes().to_vec(),
            want: |r| [r[0], 0, 0, f(1.0)],
        },
        FormatCase {
            name: "32_32 SINT",
            fmt: 29,
            num: 1,
            signed: true,
            bytes: 8,
            pack: |r| r[..2].iter().flat_map(|c| c.to_le_bytes()).collect(),
            want: |r| [r[0], r[1], 0, 1],
        },
        FormatCase {
            name: "32_32_32_32 UINT",
            fmt: 34,
            num: 1,
            signed: false,
            bytes: 16,
            pack: |r| r.iter().flat_map(|c| c.to_le_bytes()).collect(),
            want: |r| r,
        },
    ]
}

/// LD of a 1D texture in each format against the host's decoding of the same bits.
#[test]
fn formats_decode_as_mesa_sets_them_up() {
    let mut seed = 0x9E37_79B9u32;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    let n = 16u32;
    for case in format_cases() {
        let raw: Vec<[u32; 4]> = (0..n).map(|_| core::array::from_fn(|_| next())).collect();
        // Keep float halves finite so the comparison is by value.
        let raw: Vec<[u32; 4]> = if case.fmt == 32 {
            raw.iter()
                .map(|r| r.map(|c| c & 0xFFFF & !0x4000))
                .collect()
        } else if case.fmt == 14 {
            raw.iter().map(|r| r.map(|c| c & !0x4000_0000)).collect()
        } else {
            raw
        };
        let mut data: Vec<u8> = raw.iter().flat_map(|&r| (case.pack)(r)).collect();
        assert_eq!(data.len(), n as usize * case.bytes, "{}", case.name);
        data.resize(256, 0);
        let per: Vec<Vec<[f32; 4]>> = (0..n)
            .map(|x| vec![[f32::from_bits(x), 0.0, 0.0, 0.0]])
            .collect();
        let mut opts = Options {
            tex_resources: vec![(
                0,
                TexResource::linear(
                    0,
                    emu::address(TEXBUF, 0),
                    [n, 1],
                    n,
                    case.fmt,
                    case.num,
                    case.signed,
                ),
            )],
            ..Options::default()
        };
        let (mut inp, rows) = inputs(&per);
        opts.inputs = Some(Inputs {
            address: emu::address(1, 0),
            first: 1,
            count: rows,
        });
        let bytes = build(vec![
            C::Tex(vec![tex(3, 1, 5, [0, 1, 2, 3])]),
            export_params(5, 1),
        ]);
        let (_, out) = run_params(&bytes, n, 1, &mut opts, &mut [&mut inp, &mut data]).unwrap();
        for x in 0..n as usize {
            let want = (case.want)(raw[x]);
            let got = out[x][0];
            for c in 0..4 {
                let (g, w) = (f32::from_bits(got[c]), f32::from_bits(want[c]));
                let same = got[c] == want[c] || (case.num != 1 && (g - w).abs() <= 1e-6);
                assert!(
                    same,
                    "{} texel {x} comp {c}: got {got:08x?}, want {want:08x?}",
                    case.name
                );
            }
        }
    }
}

/// LD with a level in W and a slice in Z on a 2D array with a mip chain; outside a level,
/// a level past LAST_LEVEL or a slice past the array: zeros.
#[test]
fn ld_reads_levels_and_slices() {
    let mut chain = Chain::new(16, 8, 3, 3, id_texel);
    let mut per = Vec::new();
    let mut want = Vec::new();
    for l in 0..5u32 {
        for s in 0..4u32 {
            for (x, y) in [(0u32, 0u32), (1, 1), (3, 2), (7, 3), (15, 7)] {
                let i = |v: u32| f32::from_bits(v);
                per.push(vec![[i(x), i(y), i(s), i(l)]]);
                let (w, h) = ((16 >> l).max(1), (8 >> l).max(1));
                let inside = l <= 3 && s < 3 && x < w && y < h;
                want.push(if inside {
                    id_texel(l, s, x, y)
                } else {
                    [0.0; 4]
                });
            }
        }
    }
    let mut opts = Options {
        tex_resources: vec![(0, chain.resource(5))],
        ..Options::default()
    };
    let out = run(
        vec![
            C::Tex(vec![tex(3, 1, 5, [0, 1, 2, 3])]),
            export_params(5, 1),
        ],
        &per,
        &mut chain.data,
        1,
        &mut opts,
    );
    for (t, w) in want.iter().enumerate() {
        close(
            out[t][0],
            *w,
            &format!("LD {:?}", per[t][0].map(f32::to_bits)),
        );
    }
}

/// GET_NUMBER_OF_SAMPLES: 1 for a single-sampled resource, 1 << LAST_LEVEL for 2D_MSAA
/// (Linux radeon r600_cs.c); sampling a multisampled resource is refused by name.
#[test]
fn number_of_samples_and_msaa_refusal() {
    let mut data = vec![0u8; 4096];
    for (dim, last, want) in [(1u8, 0u8, 1u32), (6, 2, 4), (7, 3, 8)] {
        let mut opts = Options {
            tex_resources: vec![(
                0,
                TexResource::linear(dim, emu::address(TEXBUF, 0), [8, 4], 8, 35, 0, false)
                    .with_mips(0, 0, last),
            )],
            ..Options::default()
        };
        let per = vec![vec![[0.0f32; 4]]; 4];
        let out = run(
            vec![
                C::Tex(vec![tex(5, 1, 5, [0, 1, 2, 3])]),
                export_params(5, 1),
            ],
            &per,
            &mut data,
            1,
            &mut opts,
        );
        assert_eq!(out[0][0].map(f32::to_bits), [8, 4, 1, want], "dim {dim}");
        if dim >= 6 {
            opts.samplers = vec![(0, Sampler::point(2))];
            let (mut inp, _) = inputs(&per);
            let bytes = build(vec![
                C::Tex(vec![tex(16, 1, 5, [0, 1, 2, 3])]),
                export_params(5, 1),
            ]);
            let e = run_params(&bytes, 4, 1, &mut opts, &mut [&mut inp, &mut data]).unwrap_err();
            assert!(format!("{e}").contains("multisampled"), "{e}");
        }
    }
}

/// FETCH4 returns the X of the bilinear footprint's four texels in the gather order
/// (i0, j1), (i1, j1), (i1, j0), (i0, j0); GET_LERP the horizontal and vertical weights.
#[test]
fn fetch4_and_get_lerp() {
    let (w, h) = (4u32, 4u32);
    let mut chain = Chain::new(w, h, 1, 0, |_, _, x, y| {
        [(x + 10 * y) as f32, 0.0, 0.0, 0.0]
    });
    let pts = [
        [0.3f32, 0.6],
        [0.01, 0.99],
        [0.5, 0.5],
        [0.9, 0.12],
        [0.62, 0.37],
    ];
    let per: Vec<Vec<[f32; 4]>> = pts.iter().map(|p| vec![[p[0], p[1], 0.0, 0.0]]).collect();
    let mut opts = Options {
        tex_resources: vec![(0, chain.resource(1))],
        samplers: vec![(0, Sampler::bilinear(2))],
        ..Options::default()
    };
    let out = run(
        vec![
            C::Tex(vec![
                tex(15, 1, 5, [0, 1, 2, 3]),
                tex(9, 1, 6, [0, 1, 2, 3]),
            ]),
            export_params(5, 2),
        ],
        &per,
        &mut chain.data,
        2,
        &mut opts,
    );
    for (t, p) in pts.iter().enumerate() {
        let (fu, fv) = (p[0] * w as f32 - 0.5, p[1] * h as f32 - 0.5);
        let (i0, j0) = (fu.floor(), fv.floor());
        let c = |i: f32, n: u32| (i as i64).clamp(0, n as i64 - 1) as f32;
        let x = |i: f32, j: f32| c(i, w) + 10.0 * c(j, h);
        let want = [
            x(i0, j0 + 1.0),
            x(i0 + 1.0, j0 + 1.0),
            x(i0 + 1.0, j0),
            x(i0, j0),
        ];
        close(out[t][0], want, &format!("FETCH4 at {p:?}"));
        close(
            out[t][1],
            [fu - i0, fv - j0, 0.0, 0.0],
            &format!("GET_LERP at {p:?}"),
        );
    }
}

/// MIN_LOD above the computed LOD still minifies (the clamped LOD decides), and on a
/// one-level texture a large LOD selects the minification filter at level 0.
#[test]
fn min_lod_and_filter_choice() {
    let mut chain = Chain::new(32, 32, 1, 5, id_texel);
    let per = quad_cases(&[1.0 / 32.0]);
    let mut opts = Options {
        tex_resources: vec![(0, chain.resource(1))],
        samplers: vec![(
            0,
            Sampler::point(2)
                .with_mip_filter(2)
                .with_lod(1.5, 15.0, 0.0),
        )],
        ..Options::default()
    };
    let out = run(
        vec![
            C::Tex(vec![tex(16, 1, 5, [0, 1, 2, 3])]),
            export_params(5, 1),
        ],
        &per,
        &mut chain.data,
        1,
        &mut opts,
    );
    for (t, row) in per.iter().enumerate() {
        let want = mip_sample(&chain, 1.5, true, row[0][0], row[0][1]);
        close(out[t][0], want, &format!("MIN_LOD 1.5, thread {t}"));
    }
    // One level; MAG point, MIN bilinear (XY_MIN_FILTER [14:12]); the quad spans 8 texels.
    let mut one = Chain::new(8, 8, 1, 0, |_, _, x, y| [x as f32, y as f32, 0.0, 0.0]);
    let per = quad_cases(&[1.0]);
    let mut s = Sampler::point(2).with_lod(0.0, 15.0, 0.0);
    s.0[0] |= 1 << 12;
    opts.tex_resources = vec![(0, one.resource(1))];
    opts.samplers = vec![(0, s)];
    let out = run(
        vec![
            C::Tex(vec![tex(16, 1, 5, [0, 1, 2, 3])]),
            export_params(5, 1),
        ],
        &per,
        &mut one.data,
        1,
        &mut opts,
    );
    for (t, row) in per.iter().enumerate() {
        let ramp = |c: f32| (c * 8.0 - 0.5).clamp(0.0, 7.0);
        let (u, v) = (row[0][0], row[0][1]);
        if !(0.0..1.0).contains(&u) || !(0.0..1.0).contains(&v) {
            continue;
        }
        close(
            out[t][0],
            [ramp(u), ramp(v), 0.0, 0.0],
            &format!("minified bilinear, thread {t}"),
        );
    }
}
