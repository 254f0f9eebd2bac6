//! The demo's spinning cube (`kernels/cube_scene.rs`, the shaders
//! `kernels/cube_{vs,ps}_gen6.asm`) drawn on the software GPU through the
//! driver's 3D API, checked against a host reference written here: the
//! corners projected with the frame's matrix, then the pixel rules done
//! independently of the model (pixel centres at +0.5, coverage by edge
//! functions, perspective-correct attributes, the nearest surface wins).
//!
//! What a cube must show: its silhouette (the hull of the eight projected
//! corners) covered and nothing outside it, only front faces with the depth
//! test (back faces show through without it), the face towards the light
//! brightest, the checker texture on every face. A frame is written to
//! `target/cube.png` for a human to look at.

extern crate alloc;

mod compute_common;
#[path = "../kernels/cube_scene.rs"]
mod cube_scene;

use baregpu::hal::Generation;
use baregpu::render::Renderer;
use compute_common::*;
use cube_scene::*;

const W: u32 = 128;
const H: u32 = 112;
/// Generations whose software GPU draws 3D (the Gen7 shaders are
/// `kernels/cube_{vs,ps}_gen7.asm`).
const GENERATIONS: [Generation; 2] = [Generation::Gen6, Generation::Gen7];

/// Draws the cube in each pose with each option set on one GPU; B8G8R8A8
/// pixels per draw.
fn render(g: Generation, draws: &[(Pose, Options)]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    with_gpu(g, |gpu, _| {
        let mut r = Renderer::new(gpu).expect("3D");
        let cube = Cube::new(&mut r, gpu, W, H).expect("the cube's objects");
        for &(pose, options) in draws {
            let fence = cube.draw(&r, gpu, pose, options).expect("draw");
            gpu.wait(fence, 600_000_000).expect("the draw completes");
            out.push(cube.pixels().expect("pixels"));
        }
        cube.free(gpu);
    });
    out
}

/// A point on the screen (pixels, y down) and its clip-space w and depth.
#[derive(Clone, Copy, Debug)]
struct Screen {
    x: f64,
    y: f64,
    z: f64,
    w: f64,
}

fn project(mvp: &Mat, p: [f32; 3]) -> Screen {
    let c = transform(mvp, [p[0], p[1], p[2], 1.0]).map(f64::from);
    Screen {
        x: (c[0] / c[3] + 1.0) * W as f64 / 2.0,
        y: (1.0 - c[1] / c[3]) * H as f64 / 2.0,
        z: c[2] / c[3],
        w: c[3],
    }
}

/// One projected triangle of the cube: its face and corners.
struct Tri {
    face: usize,
    v: [Screen; 3],
    uv: [[f64; 2]; 3],
}

impl Tri {
    /// Twice the signed area in pixels: negative when counter-clockwise
    /// as the screen shows it (y down), which is how a face turned to the
    /// viewer projects (its corners run counter-clockwise seen from outside).
    fn area(&self) -> f64 {
        let [a, b, c] = self.v;
        (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
    }

    fn front(&self) -> bool {
        self.area() < 0.0
    }

    /// Screen-space barycentrics of (px, py), `None` outside.
    fn barycentrics(&self, px: f64, py: f64) -> Option<[f64; 3]> {
        let area = self.area();
        if area == 0.0 {
            return None;
        }
        let e = |a: Screen, b: Screen| ((b.x - a.x) * (py - a.y) - (b.y - a.y) * (px - a.x)) / area;
        let [a, b, c] = self.v;
        let l = [e(b, c), e(c, a), e(a, b)];
        l.iter().all(|&t| t >= 0.0).then_some(l)
    }

    /// Distance from (px, py) to the nearest edge.
    fn edge_distance(&self, px: f64, py: f64) -> f64 {
        (0..3)
            .map(|i| segment_distance(self.v[i], self.v[(i + 1) % 3], px, py))
            .fold(f64::MAX, f64::min)
    }
}

fn segment_distance(a: Screen, b: Screen, px: f64, py: f64) -> f64 {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let len2 = dx * dx + dy * dy;
    let t = if len2 == 0.0 {
        0.0
    } else {
        (((px - a.x) * dx + (py - a.y) * dy) / len2).clamp(0.0, 1.0)
    };
    let (qx, qy) = (a.x + t * dx - px, a.y + t * dy - py);
    (qx * qx + qy * qy).sqrt()
}

fn triangles(pose: Pose) -> Vec<Tri> {
    let mvp = pose.mvp(W as f32 / H as f32);
    let verts = vertices();
    indices()
        .chunks_exact(3)
        .map(|t| {
            let t = [t[0], t[1], t[2]];
            let v = t.map(|i| verts[i as usize]);
            Tri {
                face: t[0] as usize / 4,
                v: v.map(|v| project(&mvp, v.position)),
                uv: v.map(|v| v.uv.map(f64::from)),
            }
        })
        .collect()
}

/// The light a face gets: ambient plus diffuse times the cosine to the
/// light (world space, from the rotated normal).
fn face_light(pose: Pose, face: usize) -> f64 {
    let n = transform(&pose.model(), {
        let n = FACES[face].normal;
        [n[0], n[1], n[2], 0.0]
    });
    let cos = (0..3).map(|i| n[i] as f64 * LIGHT[i] as f64).sum::<f64>();
    AMBIENT as f64 + DIFFUSE as f64 * cos.max(0.0)
}

/// What triangle `t` puts at pixel centre (px, py), with its barycentrics
/// `l`: the texel (grey level), its depth, the colour (B8G8R8A8) and how
/// close (in texels) its texture coordinates are to a texel boundary.
struct Sample {
    depth: f64,
    texel: u8,
    bgra: [u8; 4],
    texel_margin: f64,
}

fn sample(pose: Pose, t: &Tri, l: [f64; 3]) -> Sample {
    // Perspective-correct: weights l_i / w_i, normalised.
    let q: Vec<f64> = (0..3).map(|i| l[i] / t.v[i].w).collect();
    let s: f64 = q.iter().sum();
    let uv = [0, 1].map(|c| (0..3).map(|i| q[i] * t.uv[i][c]).sum::<f64>() / s);
    let depth = (0..3).map(|i| l[i] * t.v[i].z).sum::<f64>();
    let side = TEXTURE as f64;
    let coord = uv.map(|c| c * side);
    let texel_margin = coord
        .iter()
        .map(|c| (c - c.round()).abs())
        .fold(f64::MAX, f64::min);
    let [tx, ty] = coord.map(|c| (c.floor().max(0.0) as u32).min(TEXTURE - 1));
    let g = texel(tx, ty);
    let light = face_light(pose, t.face);
    let rgb = FACES[t.face].colour;
    let channel = |c: u8| ((g as f64 / 255.0) * (c as f64 / 255.0) * light * 255.0).round() as u8;
    Sample {
        depth,
        texel: g,
        bgra: [channel(rgb[2]), channel(rgb[1]), channel(rgb[0]), 255],
        texel_margin,
    }
}

/// The reference at one pixel: the nearest front surface (`front`), and
/// the last triangle in draw order to cover it (what a draw without depth
/// test or culling leaves); `edge` is set within one pixel of any
/// triangle's edge, where rounding may go either way.
struct Reference {
    front: Option<(usize, Sample)>,
    last: Option<(usize, Sample)>,
    edge: bool,
}

fn reference(pose: Pose) -> Vec<Reference> {
    let tris = triangles(pose);
    let mut out = Vec::new();
    for y in 0..H {
        for x in 0..W {
            let (px, py) = (x as f64 + 0.5, y as f64 + 0.5);
            let mut front: Option<(usize, Sample)> = None;
            let mut last = None;
            let mut edge = false;
            for t in &tris {
                edge |= t.edge_distance(px, py) <= 1.0;
                let Some(l) = t.barycentrics(px, py) else {
                    continue;
                };
                let s = sample(pose, t, l);
                if t.front() && front.as_ref().is_none_or(|(_, f)| s.depth < f.depth) {
                    front = Some((t.face, sample(pose, t, l)));
                }
                last = Some((t.face, s));
            }
            out.push(Reference { front, last, edge });
        }
    }
    out
}

fn pixel(px: &[u8], x: u32, y: u32) -> [u8; 4] {
    let i = ((y * W + x) * 4) as usize;
    [px[i], px[i + 1], px[i + 2], px[i + 3]]
}

fn close(a: [u8; 4], b: [u8; 4]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 2)
}

/// Pixels (not near an edge or a texel boundary) compared with `pick` of
/// the reference: how many were compared; panics on the first mismatch.
fn compare(
    what: &str,
    got: &[u8],
    refs: &[Reference],
    pick: impl Fn(&Reference) -> &Option<(usize, Sample)>,
) -> usize {
    let mut compared = 0;
    for y in 0..H {
        for x in 0..W {
            let r = &refs[(y * W + x) as usize];
            if r.edge {
                continue;
            }
            let g = pixel(got, x, y);
            match pick(r) {
                None => assert_eq!(g, BACKGROUND, "{what}: pixel ({x}, {y}) is background"),
                Some((face, s)) => {
                    if s.texel_margin < 0.05 {
                        continue;
                    }
                    assert!(
                        close(g, s.bgra),
                        "{what}: pixel ({x}, {y}) is {g:?}, face {face} gives {:?}",
                        s.bgra
                    );
                }
            }
            compared += 1;
        }
    }
    compared
}

/// The convex hull of the points (counter-clockwise with y down), Andrew's
/// monotone chain.
fn hull(mut p: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    p.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let cross = |o: (f64, f64), a: (f64, f64), b: (f64, f64)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut h: Vec<(f64, f64)> = Vec::new();
    for pass in 0..2 {
        let start = h.len();
        let pts: Vec<_> = if pass == 0 {
            p.clone()
        } else {
            p.iter().rev().copied().collect()
        };
        for q in pts {
            while h.len() >= start + 2 && cross(h[h.len() - 2], h[h.len() - 1], q) <= 0.0 {
                h.pop();
            }
            h.push(q);
        }
        h.pop();
    }
    h
}

/// Signed distance from (px, py) to a convex polygon: negative inside.
fn hull_distance(h: &[(f64, f64)], px: f64, py: f64) -> f64 {
    let s = |a: (f64, f64)| Screen {
        x: a.0,
        y: a.1,
        z: 0.0,
        w: 1.0,
    };
    let d = (0..h.len())
        .map(|i| segment_distance(s(h[i]), s(h[(i + 1) % h.len()]), px, py))
        .fold(f64::MAX, f64::min);
    let inside = (0..h.len()).all(|i| {
        let (a, b) = (h[i], h[(i + 1) % h.len()]);
        (b.0 - a.0) * (py - a.1) - (b.1 - a.1) * (px - a.0) >= 0.0
    });
    if inside { -d } else { d }
}

const POSES: [Pose; 2] = [
    Pose {
        yaw: 0.6,
        pitch: 0.45,
    },
    Pose {
        yaw: 2.3,
        pitch: -0.8,
    },
];

const NONE: Options = Options {
    depth_test: false,
    cull_back: false,
};
const DEPTH_ONLY: Options = Options {
    depth_test: true,
    cull_back: false,
};
const CULL_ONLY: Options = Options {
    depth_test: false,
    cull_back: true,
};

/// The silhouette: every pixel more than a pixel inside the hull of the
/// eight projected corners is drawn, every pixel more than a pixel outside
/// is background.
#[test]
fn the_silhouette_is_the_hull_of_the_corners() {
    for g in GENERATIONS {
        let frames = render(g, &POSES.map(|p| (p, Options::SOLID)));
        for (pose, got) in POSES.iter().zip(&frames) {
            let mvp = pose.mvp(W as f32 / H as f32);
            let corners: Vec<(f64, f64)> = (0..8)
                .map(|k| {
                    let c =
                        [k & 1, k >> 1 & 1, k >> 2 & 1].map(|b| if b == 1 { 1.0 } else { -1.0 });
                    let s = project(&mvp, c);
                    (s.x, s.y)
                })
                .collect();
            let h = hull(corners);
            let (mut inside, mut outside) = (0, 0);
            for y in 0..H {
                for x in 0..W {
                    let d = hull_distance(&h, x as f64 + 0.5, y as f64 + 0.5);
                    let p = pixel(got, x, y);
                    if d < -1.0 {
                        assert_ne!(p, BACKGROUND, "{g} {pose:?}: ({x}, {y}) inside the hull");
                        inside += 1;
                    } else if d > 1.0 {
                        assert_eq!(p, BACKGROUND, "{g} {pose:?}: ({x}, {y}) outside the hull");
                        outside += 1;
                    }
                }
            }
            assert!(
                inside > 2000 && outside > 2000,
                "{inside} in, {outside} out"
            );
        }
    }
}

/// Depth test and culling: with either (or both) the picture is the
/// nearest front faces' everywhere, pixel by pixel against the reference;
/// with neither, faces drawn later cover nearer ones, so back faces show:
/// the picture is then the last-drawn triangle's at each pixel, and it
/// differs from the depth-tested one in many pixels.
#[test]
fn depth_test_hides_the_back_faces() {
    for g in GENERATIONS {
        for pose in POSES {
            let frames = render(
                g,
                &[
                    (pose, Options::SOLID),
                    (pose, DEPTH_ONLY),
                    (pose, CULL_ONLY),
                    (pose, NONE),
                ],
            );
            let refs = reference(pose);
            for (k, what) in ["depth and culling", "depth test", "culling"]
                .iter()
                .enumerate()
            {
                let n = compare(what, &frames[k], &refs, |r| &r.front);
                assert!(n > 3000, "{what}: only {n} pixels compared");
            }
            let n = compare("neither", &frames[3], &refs, |r| &r.last);
            assert!(n > 3000, "neither: only {n} pixels compared");
            // Back faces visible: pixels whose last triangle is of a face
            // turned away, showing its colour instead of the front face's.
            let back_shown = (0..W * H)
                .filter(|&i| {
                    let r = &refs[i as usize];
                    let (Some((lf, ls)), Some((ff, fs))) = (&r.last, &r.front) else {
                        return false;
                    };
                    !r.edge
                        && lf != ff
                        && !close(ls.bgra, fs.bgra)
                        && close(pixel(&frames[3], i % W, i / W), ls.bgra)
                })
                .count();
            assert!(
                back_shown > 500,
                "{g} {pose:?}: {back_shown} pixels of back faces"
            );
        }
    }
}

/// Lighting: on each visible face the drawn colour over the unlit colour
/// (texel times face colour) is the face's light, and the face turned most
/// towards the light is the brightest.
#[test]
fn the_face_towards_the_light_is_brightest() {
    for g in GENERATIONS {
        for pose in POSES {
            let got = &render(g, &[(pose, Options::SOLID)])[0];
            let refs = reference(pose);
            let mut ratio = [(0.0f64, 0u32); 6];
            for (i, r) in refs.iter().enumerate() {
                let Some((face, s)) = &r.front else { continue };
                if r.edge || s.texel_margin < 0.05 {
                    continue;
                }
                let p = pixel(got, i as u32 % W, i as u32 / W);
                let rgb = FACES[*face].colour;
                // Green: every face colour has a large green part.
                let unlit = s.texel as f64 * rgb[1] as f64 / 255.0;
                ratio[*face].0 += p[1] as f64 / unlit;
                ratio[*face].1 += 1;
            }
            let visible: Vec<(usize, f64)> = (0..6)
                .filter(|&f| ratio[f].1 > 100)
                .map(|f| (f, ratio[f].0 / ratio[f].1 as f64))
                .collect();
            assert!(visible.len() >= 2, "{pose:?}: {visible:?}");
            for &(f, measured) in &visible {
                let want = face_light(pose, f);
                assert!(
                    (measured - want).abs() < 0.03,
                    "{g} {pose:?} face {f}: light {measured:.3}, expected {want:.3}"
                );
            }
            let most = visible
                .iter()
                .max_by(|a, b| face_light(pose, a.0).total_cmp(&face_light(pose, b.0)))
                .unwrap();
            for &(f, measured) in &visible {
                if f != most.0 {
                    assert!(
                        measured < most.1,
                        "{g} {pose:?}: face {f} brighter than {most:?}"
                    );
                }
            }
        }
    }
}

/// The texture: on every visible face, pixels of the checker's light
/// squares are far brighter than those of its dark squares.
#[test]
fn the_checker_texture_is_on_every_face() {
    for g in GENERATIONS {
        let pose = POSES[0];
        let got = &render(g, &[(pose, Options::SOLID)])[0];
        let refs = reference(pose);
        // Per face: the sum and count of green over light and dark texels.
        let mut sums = [[(0u64, 0u32); 2]; 6];
        for (i, r) in refs.iter().enumerate() {
            let Some((face, s)) = &r.front else { continue };
            if r.edge || s.texel_margin < 0.05 {
                continue;
            }
            let p = pixel(got, i as u32 % W, i as u32 / W);
            let k = (s.texel == LIGHT_TEXEL) as usize;
            sums[*face][k].0 += p[1] as u64;
            sums[*face][k].1 += 1;
        }
        let mut faces = 0;
        for (f, [dark, light]) in sums.iter().enumerate() {
            if dark.1 < 40 || light.1 < 40 {
                continue;
            }
            faces += 1;
            let (d, l) = (dark.0 / dark.1 as u64, light.0 / light.1 as u64);
            // 235 against 80: light squares are about three times as bright.
            assert!(l > 2 * d, "{g} face {f}: light squares {l}, dark {d}");
        }
        assert!(faces >= 3, "{faces} faces show the checker");
    }
}

/// The shared maths: sin and cos against std, and every frame of the
/// demo's spin inside the picture (clip-space w > 0, corners within the
/// viewport) so that nothing is clipped.
#[test]
fn the_spin_stays_in_the_picture() {
    for k in -40..=40 {
        let x = k as f32 * 0.37;
        assert!((sin(x) - x.sin()).abs() < 2e-6, "sin {x}");
        assert!((cos(x) - x.cos()).abs() < 2e-6, "cos {x}");
    }
    for (w, h) in [(W, H), (192, 192)] {
        for k in 0..48 {
            let mvp = Pose::frame(k, 48).mvp(w as f32 / h as f32);
            for v in vertices() {
                let c = transform(&mvp, [v.position[0], v.position[1], v.position[2], 1.0]);
                assert!(c[3] > 0.0);
                for (i, lim) in [(0, 0.98), (1, 0.98)] {
                    assert!((c[i] / c[3]).abs() < lim, "frame {k}: {c:?}");
                }
                assert!(
                    (0.0..1.0).contains(&(c[2] / c[3])),
                    "frame {k} depth: {c:?}"
                );
            }
        }
    }
}

/// A frame for people: the lit, textured cube, and beside it the same pose
/// drawn without depth test or culling.
#[test]
fn writes_a_frame_as_png() {
    let pose = POSES[0];
    let frames = render(Generation::Gen6, &[(pose, Options::SOLID), (pose, NONE)]);
    let mut rgba = Vec::with_capacity((2 * W * H * 4) as usize);
    for y in 0..H {
        for f in &frames {
            for x in 0..W {
                let [b, g, r, a] = pixel(f, x, y);
                rgba.extend_from_slice(&[r, g, b, a]);
            }
        }
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cube.png");
    let file = std::fs::File::create(&path).unwrap();
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), 2 * W, H);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header().unwrap().write_image_data(&rgba).unwrap();
    let back = std::fs::read(&path).unwrap();
    assert!(back.starts_with(b"\x89PNG"), "{} is a PNG", path.display());
}

/// Every shader of the cube, the Gen7 ones too (which the software GPU
/// cannot run until it models Ivy Bridge's 3D front end and output merger),
/// assembles and passes the manuals' region, type and operand rules.
#[test]
fn the_shaders_assemble_and_validate() {
    use baregpu::isa::{IsaGen, text, validate};
    for (isa, name, src) in [
        (IsaGen::Gen6, "cube_vs_gen6.asm", VS_GEN6),
        (IsaGen::Gen6, "cube_ps_gen6.asm", PS_GEN6),
        (IsaGen::Gen7, "cube_vs_gen7.asm", VS_GEN7),
        (IsaGen::Gen7, "cube_ps_gen7.asm", PS_GEN7),
    ] {
        let bin = text::assemble(isa, src).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let found = validate::validate_kernel(isa, &bin).expect("decodes");
        assert!(found.is_empty(), "{name}: {found:?}");
        // The last instruction ends the thread (EOT), and nothing runs after it.
        assert!(src.trim_end().ends_with("{EOT}"), "{name}");
    }
}
