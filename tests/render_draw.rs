//! Sandy Bridge draws end to end: the driver's 3D API builds the batch,
//! the software GPU runs it (vertex fetch, the vertex shader's EU code,
//! clipping, setup, rasterisation, the pixel shader's EU code, the output
//! merger), and the render target is compared pixel by pixel with a host
//! reference written here from the manual's rules, independently of the
//! model: pixel centres at +0.5, the top-left fill convention for pixels on
//! an edge, perspective-correct attributes.

use baregpu::compute::{Format, KernelDesc, Swizzle, Tiling};
use baregpu::hal::Generation;
use baregpu::render::*;

mod compute_common;
use compute_common::*;

const W: u32 = 48;
const H: u32 = 32;

/// The pixel shader: attribute 0 (RGBA) interpolated with `pln` from the
/// perspective barycentrics (r2-r5) and its setup data (r6-r7, GRF start 6),
/// written SIMD16 without a header.
const PS_COLOUR: &str = "
pln (8|M0) m2<1>:f r6.0<0;1,0>:f r2<8;8,1>:f
pln (8|M0) m3<1>:f r6.0<0;1,0>:f r4<8;8,1>:f
pln (8|M0) m4<1>:f r6.4<0;1,0>:f r2<8;8,1>:f
pln (8|M0) m5<1>:f r6.4<0;1,0>:f r4<8;8,1>:f
pln (8|M0) m6<1>:f r7.0<0;1,0>:f r2<8;8,1>:f
pln (8|M0) m7<1>:f r7.0<0;1,0>:f r4<8;8,1>:f
pln (8|M0) m8<1>:f r7.4<0;1,0>:f r2<8;8,1>:f
pln (8|M0) m9<1>:f r7.4<0;1,0>:f r4<8;8,1>:f
send (16|M0) null:ud m2 rc.rt_write(bti=0, mode=simd16, last) mlen=8 rlen=0 {EOT}
";

/// A SIMD4x2 vertex shader: two vertices a thread, their position in r1 and
/// colour in r2 (each register: vertex 0 in dwords 0-3, vertex 1 in 4-7);
/// writes the URB entry (zero header, position, colour with red and blue
/// swapped, so that the test sees that it ran) interleaved, and ends.
const VS_SWAP: &str = "
mov (8|M0) m1<1>:ud 0x0:ud
mov (8|M0) m2<1>:f r1<8;8,1>:f
mov (8|M0) m3<1>:f r2<8;8,1>:f
mov (2|M0) m3.0<4>:f r2.2<4;1,0>:f
mov (2|M0) m3.2<4>:f r2.0<4;1,0>:f
mov (8|M0) m0<1>:ud r0<8;8,1>:ud
send (8|M0) null:ud m0 urb.write(offset=0, swizzle=interleave, complete) mlen=4 rlen=0 {EOT}
";

fn assemble(text: &str) -> Vec<u8> {
    baregpu_isa::text::assemble(isa(Generation::Gen6), text).expect("shader assembles")
}

/// A vertex in pixels (y down), depth and colour.
#[derive(Clone, Copy)]
struct V {
    x: f32,
    y: f32,
    z: f32,
    rgba: [f32; 4],
}

/// Position in normalised device coordinates for the W x H viewport, then
/// the colour: the vertex buffer's 32 bytes.
fn vertex_bytes(vs: &[V]) -> Vec<u8> {
    vs.iter()
        .flat_map(|v| {
            let ndc = [
                v.x / (W as f32 / 2.0) - 1.0,
                1.0 - v.y / (H as f32 / 2.0),
                v.z,
                1.0,
            ];
            ndc.into_iter().chain(v.rgba).flat_map(f32::to_le_bytes)
        })
        .collect()
}

/// The host reference: which pixels a triangle covers. A pixel is covered
/// when its centre is inside, or on an edge that is a top edge (horizontal,
/// the triangle below it) or a left edge (the triangle to its right), the
/// D3D rule the manual's rasteriser follows (003 3D volume, "Polygon
/// rasterization" top-left rule).
fn covers(t: [(f64, f64); 3], px: f64, py: f64) -> bool {
    // Orient the triangle clockwise on screen (y down): positive area.
    let area = (t[1].0 - t[0].0) * (t[2].1 - t[0].1) - (t[1].1 - t[0].1) * (t[2].0 - t[0].0);
    if area == 0.0 {
        return false;
    }
    let t = if area > 0.0 { t } else { [t[0], t[2], t[1]] };
    for i in 0..3 {
        let (a, b) = (t[i], t[(i + 1) % 3]);
        let e = (b.0 - a.0) * (py - a.1) - (b.1 - a.1) * (px - a.0);
        if e < 0.0 {
            return false;
        }
        if e == 0.0 {
            // Clockwise with y down: a top edge runs left to right
            // horizontally, a left edge runs upwards (b above a).
            let top = a.1 == b.1 && b.0 > a.0;
            let left = b.1 < a.1;
            if !(top || left) {
                return false;
            }
        }
    }
    true
}

/// Draws `tris` (three vertices each, one draw) with the given state and
/// returns the B8G8R8A8 pixels.
fn draw(
    tris: &[V],
    vs: bool,
    flat: bool,
    blend: Blend,
    depth: Option<Compare>,
    clear: [u8; 4],
) -> Vec<[u8; 4]> {
    let mut out = Vec::new();
    with_gpu(Generation::Gen6, |gpu, _| {
        let mut r = Renderer::new(gpu).unwrap();
        let target = r
            .compute()
            .create_surface_2d(gpu, W, H, Format::B8G8R8A8Unorm, Tiling::Linear)
            .unwrap();
        let fill: Vec<u8> = (0..W * H).flat_map(|_| clear).collect();
        target.write_pixels(Swizzle::None, &fill).unwrap();
        let z = depth.map(|test| {
            let z = r
                .create_depth_buffer(gpu, W, H, DepthFormat::D32Float)
                .unwrap();
            // Far for the tests that keep the nearest, near for the others.
            let far = matches!(test, Compare::Less | Compare::LessEqual);
            z.clear(if far { 1.0 } else { 0.0 }, 0).unwrap();
            z
        });
        let vb = r.compute().upload_buffer(gpu, &vertex_bytes(tris)).unwrap();
        let ps_bin = assemble(PS_COLOUR);
        let vs_bin = assemble(VS_SWAP);
        let ps = r
            .compute_mut()
            .load_kernel(gpu, &KernelDesc::new(&ps_bin))
            .unwrap();
        let vsk = r
            .compute_mut()
            .load_kernel(gpu, &KernelDesc::new(&vs_bin))
            .unwrap();
        let buffers = [VertexBuffer {
            buffer: &vb,
            pitch: 32,
            step: Step::PerVertex,
        }];
        let elements = [
            VertexElement::new(0, 0, VertexFormat::R32G32B32A32Float),
            VertexElement::new(0, 16, VertexFormat::R32G32B32A32Float),
        ];
        let d = Draw {
            target: &target,
            depth: z.as_ref(),
            vertex_buffers: &buffers,
            elements: &elements,
            index: None,
            topology: Topology::TriangleList,
            first_vertex: 0,
            vertex_count: tris.len() as u32,
            first_instance: 0,
            instance_count: 1,
            base_vertex: 0,
            vs: vs.then_some(VertexShader {
                kernel: &vsk,
                grf_start: 1,
                inputs: 2,
                outputs: 3,
                constants: &[],
            }),
            gs: None,
            stream_output: None,
            ps: PixelShader {
                simd8: None,
                simd16: Some(PixelKernel {
                    kernel: &ps,
                    grf_start: 6,
                }),
                barycentrics: Barycentrics::PERSPECTIVE_PIXEL,
                uses_source_depth: false,
                uses_source_w: false,
                kills_pixels: false,
                computes_depth: false,
                constants: &[],
            },
            attributes: 1,
            flat: flat as u32,
            viewport: Viewport {
                x: 0.0,
                y: 0.0,
                width: W as f32,
                height: H as f32,
                min_depth: 0.0,
                max_depth: 1.0,
            },
            raster: Raster::default(),
            blend,
            depth_stencil: DepthStencil {
                depth_test: depth,
                depth_write: depth.is_some(),
                stencil: None,
            },
            textures: &[],
            samplers: &[],
        };
        let fence = r.draw(gpu, &d).unwrap();
        gpu.wait(fence, 60_000_000).expect("the draw completes");
        let mut px = vec![0u8; (W * H * 4) as usize];
        target.read_pixels(Swizzle::None, &mut px).unwrap();
        out = px.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
    });
    out
}

fn unorm(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

fn bgra(rgba: [f32; 4]) -> [u8; 4] {
    [
        unorm(rgba[2]),
        unorm(rgba[1]),
        unorm(rgba[0]),
        unorm(rgba[3]),
    ]
}

fn v(x: f32, y: f32, rgba: [f32; 4]) -> V {
    V { x, y, z: 0.5, rgba }
}

/// Edges through pixel centres, a flat colour: the covered pixels are
/// exactly the reference's, each drawn in the colour.
#[test]
fn triangles_cover_the_pixels_of_the_top_left_rule() {
    let red = [1.0, 0.0, 0.0, 1.0];
    // Vertices on pixel centres (x.5), a horizontal top edge and a left
    // edge through centres, and a steep right edge.
    let tri = [v(4.5, 3.5, red), v(30.5, 3.5, red), v(4.5, 27.5, red)];
    let got = draw(&tri, false, true, Blend::default(), None, [0; 4]);
    let t = tri.map(|v| (v.x as f64, v.y as f64));
    for y in 0..H {
        for x in 0..W {
            let want = if covers(t, x as f64 + 0.5, y as f64 + 0.5) {
                bgra(red)
            } else {
                [0; 4]
            };
            assert_eq!(got[(y * W + x) as usize], want, "pixel ({x}, {y})");
        }
    }
}

/// Two triangles sharing a diagonal edge, added with blending ONE + ONE at
/// a quarter each: every pixel of the square is drawn once (a quarter),
/// none twice (a half) and none missed.
#[test]
fn shared_edges_are_drawn_once() {
    let q = [0.25, 0.25, 0.25, 0.25];
    let (x0, y0, x1, y1) = (3.0, 2.0, 40.0, 29.0);
    let tris = [
        v(x0, y0, q),
        v(x1, y0, q),
        v(x0, y1, q),
        v(x1, y0, q),
        v(x1, y1, q),
        v(x0, y1, q),
    ];
    let add = BlendEquation {
        src: BlendFactor::One,
        dst: BlendFactor::One,
        op: BlendOp::Add,
    };
    let got = draw(
        &tris,
        false,
        true,
        Blend {
            color: Some(add),
            ..Blend::default()
        },
        None,
        [0; 4],
    );
    let quarter = bgra(q);
    for y in 0..H {
        for x in 0..W {
            let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
            let inside = cx >= x0 && cx < x1 && cy >= y0 && cy < y1;
            let want = if inside { quarter } else { [0; 4] };
            assert_eq!(got[(y * W + x) as usize], want, "pixel ({x}, {y})");
        }
    }
}

/// Colours interpolated across the triangle (w = 1: linear): within one
/// step of the reference's barycentric blend at each pixel centre.
#[test]
fn attributes_interpolate_across_the_triangle() {
    let tri = [
        v(2.0, 2.0, [1.0, 0.0, 0.0, 1.0]),
        v(45.0, 6.0, [0.0, 1.0, 0.0, 1.0]),
        v(10.0, 30.0, [0.0, 0.0, 1.0, 1.0]),
    ];
    let got = draw(&tri, false, false, Blend::default(), None, [0; 4]);
    let t = tri.map(|v| (v.x as f64, v.y as f64));
    let area = (t[1].0 - t[0].0) * (t[2].1 - t[0].1) - (t[1].1 - t[0].1) * (t[2].0 - t[0].0);
    let mut inside = 0;
    for y in 0..H {
        for x in 0..W {
            let (px, py) = (x as f64 + 0.5, y as f64 + 0.5);
            let g = got[(y * W + x) as usize];
            if !covers(t, px, py) {
                assert_eq!(g, [0; 4], "pixel ({x}, {y}) outside");
                continue;
            }
            inside += 1;
            let b1 = ((px - t[0].0) * (t[2].1 - t[0].1) - (py - t[0].1) * (t[2].0 - t[0].0)) / area;
            let b2 = ((t[1].0 - t[0].0) * (py - t[0].1) - (t[1].1 - t[0].1) * (px - t[0].0)) / area;
            let b0 = 1.0 - b1 - b2;
            let want = bgra([b0 as f32, b1 as f32, b2 as f32, 1.0]);
            for c in 0..4 {
                assert!(
                    g[c].abs_diff(want[c]) <= 1,
                    "pixel ({x}, {y}) channel {c}: {g:?} against {want:?}"
                );
            }
        }
    }
    assert!(inside > 200, "{inside} pixels inside");
}

/// The vertex shader runs: its red/blue swap reaches the pixels.
#[test]
fn the_vertex_shader_transforms_the_vertices() {
    let c = [0.2, 0.4, 0.8, 1.0];
    let tri = [v(4.0, 4.0, c), v(40.0, 4.0, c), v(4.0, 28.0, c)];
    let got = draw(&tri, true, true, Blend::default(), None, [0; 4]);
    let swapped = bgra([0.8, 0.4, 0.2, 1.0]);
    assert_eq!(got[(10 * W + 10) as usize], swapped);
    assert_eq!(got[(30 * W + 45) as usize], [0; 4]);
}

/// Depth: a near and a far triangle over each other give the near one's
/// colour in either drawing order with LESS, the far one's with GREATER.
#[test]
fn depth_test_keeps_the_nearest() {
    let near = [0.0, 1.0, 0.0, 1.0];
    let far = [1.0, 0.0, 1.0, 1.0];
    let tri = |z: f32, c: [f32; 4]| {
        [
            V {
                x: 2.0,
                y: 2.0,
                z,
                rgba: c,
            },
            V {
                x: 44.0,
                y: 2.0,
                z,
                rgba: c,
            },
            V {
                x: 2.0,
                y: 30.0,
                z,
                rgba: c,
            },
        ]
    };
    let near_first: Vec<V> = tri(0.25, near).into_iter().chain(tri(0.75, far)).collect();
    let far_first: Vec<V> = tri(0.75, far).into_iter().chain(tri(0.25, near)).collect();
    for (tris, test, want) in [
        (&near_first, Compare::Less, near),
        (&far_first, Compare::Less, near),
        (&far_first, Compare::Greater, far),
    ] {
        let got = draw(tris, false, true, Blend::default(), Some(test), [0; 4]);
        assert_eq!(got[(8 * W + 8) as usize], bgra(want), "{test:?}");
    }
}
