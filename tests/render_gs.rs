//! Geometry shaders, stream output and multisampling through the driver's
//! 3D API on Sandy Bridge and Ivy Bridge, run on the software GPU and
//! checked against host references written here: the coverage of each
//! triangle by the top-left rule at pixel centres (independently of the
//! model), the vertices a stream-output buffer must hold, and primitive
//! counts from the inputs.

use baregpu::compute::{Format, KernelDesc, Swizzle, Tiling};
use baregpu::hal::Generation;
use baregpu::render::*;
use baregpu_isa::{IsaGen, message};

mod compute_common;
use baregpu::platform::PlatformBus;
use baregpu::platform::host::HostPlatform;
use baregpu_soft::SoftGpu;
use compute_common::{HostGpu, commands, one};

/// Runs `f` with a GPU of `generation` on the software GPU; `f` returns
/// whether its work completed, and a failure reports what the EUs and the
/// 3D unit said.
fn with_gpu(g: Generation, f: impl FnOnce(&mut HostGpu<'_>) -> bool) {
    let p = HostPlatform::new();
    let soft = SoftGpu::new(g, PlatformBus::new(&p)).expect("software GPU");
    let mut gpu = baregpu::Gpu::new(&p, &soft, g).expect("GPU bring-up");
    let done = f(&mut gpu);
    assert!(
        done,
        "{g:?}: the draw did not complete; EUs: {:?}; unmodelled: {:?}",
        soft.eu_report(),
        soft.unmodelled(0)
    );
}

const W: u32 = 32;
const H: u32 = 32;
const GENERATIONS: [Generation; 2] = [Generation::Gen6, Generation::Gen7];
/// What the target is cleared to, and the colour the pixel shader writes
/// (B8G8R8A8 bytes of RGBA (1, 0, 0.2, 1)).
const CLEAR: [u8; 4] = [0x11; 4];
const DRAWN: [u8; 4] = [51, 0, 255, 255];

fn isa_gen(g: Generation) -> IsaGen {
    match g {
        Generation::Gen6 => IsaGen::Gen6,
        _ => IsaGen::Gen7,
    }
}

fn assemble(g: Generation, text: &str) -> Vec<u8> {
    baregpu_isa::text::asm::assemble(isa_gen(g), text).unwrap_or_else(|e| panic!("{e:?}\n{text}"))
}

/// A message descriptor from its symbolic form (Sandy Bridge sends with
/// an explicit SFID).
fn desc(text: &str) -> String {
    let (_, d) = message::parse_symbolic(IsaGen::Gen6, text).unwrap();
    let v =
        u32::from(d.mlen) << 25 | u32::from(d.rlen) << 20 | u32::from(d.header) << 19 | d.function;
    format!("{v:#x}")
}

/// The SIMD16 pixel shader writing RGBA (1, 0, 0.2, 1).
fn solid_ps(g: Generation) -> Vec<u8> {
    let c = [1.0f32, 0.0, 0.2, 1.0].map(f32::to_bits);
    let text = match g {
        // With the header (R0, R1) as the Gen6 render-target write takes.
        Generation::Gen6 => format!(
            "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}\n\
             mov (8|M0) m2.0<1>:ud r1.0<8;8,1>:ud {{NoMask}}\n\
             mov (16|M0) m3.0<1>:f {:#x}:f\n\
             mov (16|M0) m5.0<1>:f {:#x}:f\n\
             mov (16|M0) m7.0<1>:f {:#x}:f\n\
             mov (16|M0) m9.0<1>:f {:#x}:f\n\
             send (16|M0) null:uw m1 0x5 {} {{EOT}}\n",
            c[0],
            c[1],
            c[2],
            c[3],
            desc("rc.rt_write(bti=0, mode=simd16, last) mlen=10 rlen=0 hdr")
        ),
        _ => format!(
            "mov (16|M0) r114<1>:f {:#x}:f\n\
             mov (16|M0) r116<1>:f {:#x}:f\n\
             mov (16|M0) r118<1>:f {:#x}:f\n\
             mov (16|M0) r120<1>:f {:#x}:f\n\
             send (16|M0) null:ud r114 rc.rt_write(bti=0, mode=simd16, last) mlen=8 rlen=0 {{EOT}}\n",
            c[0], c[1], c[2], c[3]
        ),
    };
    assemble(g, &text)
}

/// Sandy Bridge GS kernel text: FF_SYNC reporting `prims` primitives,
/// then one URB write per `(register, M0.2 flags)` output vertex (each
/// completing its handle and allocating the next, as Mesa's Gen6 GS does),
/// then the EOT write. `body` runs first.
fn gen6_gs(body: &str, prims: u32, out: &[(u32, u32)]) -> String {
    let mut s = String::from(body);
    s += &format!(
        "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}\n\
         mov (1|M0) m1.0<1>:ud 0x0:ud {{NoMask}}\n\
         mov (1|M0) m1.1<1>:ud {prims:#x}:ud {{NoMask}}\n\
         send (8|M0) r10.0<1>:ud m1 0x6 {} {{NoMask}}\n\
         mov (1|M0) r11.0<1>:ud r10.0<0;1,0>:ud {{NoMask}}\n",
        desc("urb.ff_sync(offset=0, swizzle=none) mlen=1 rlen=1 hdr")
    );
    for (reg, flags) in out {
        s += &format!(
            "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}\n\
             mov (1|M0) m1.0<1>:ud r11.0<0;1,0>:ud {{NoMask}}\n\
             mov (1|M0) m1.2<1>:ud {flags:#x}:ud {{NoMask}}\n\
             mov (8|M0) m2.0<1>:ud r{reg}.0<8;8,1>:ud {{NoMask}}\n\
             send (8|M0) r11.0<1>:ud m1 0x6 {} {{NoMask}}\n",
            desc("urb.write(offset=0, swizzle=none, alloc, used, complete) mlen=2 rlen=1 hdr")
        );
    }
    s += &format!(
        "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}\n\
         mov (1|M0) m1.0<1>:ud r11.0<0;1,0>:ud {{NoMask}}\n\
         mov (1|M0) m1.2<1>:ud 0x0:ud {{NoMask}}\n\
         send (8|M0) null:ud m1 0x6 {} {{EOT}}\n",
        desc("urb.write(offset=0, swizzle=none, complete) mlen=1 rlen=0 hdr")
    );
    s
}

/// 3DPRIM_TRILIST in M0.2's primitive type (bits 6:2) and its start and
/// end flags (003 lines 34620-34700).
const TRI: u32 = 0x04 << 2;
const START: u32 = 2;
const END: u32 = 1;

/// A GS that emits its triangle and a copy moved right by its push
/// constant (dword 0 of the register before the vertices, NDC): on Sandy
/// Bridge the vertices are r2-r4 (one 256-bit row each: header, position)
/// and the constant r1; on Ivy Bridge (SINGLE dispatch) the same, each
/// row holding the header then the position.
fn duplicating_gs(g: Generation) -> Vec<u8> {
    let text = match g {
        Generation::Gen6 => {
            let body = "mov (8|M0) r20.0<1>:ud r2.0<8;8,1>:ud {NoMask}\n\
                        mov (8|M0) r21.0<1>:ud r3.0<8;8,1>:ud {NoMask}\n\
                        mov (8|M0) r22.0<1>:ud r4.0<8;8,1>:ud {NoMask}\n\
                        add (1|M0) r20.4<1>:f r2.4<0;1,0>:f r1.0<0;1,0>:f {NoMask}\n\
                        add (1|M0) r21.4<1>:f r3.4<0;1,0>:f r1.0<0;1,0>:f {NoMask}\n\
                        add (1|M0) r22.4<1>:f r4.4<0;1,0>:f r1.0<0;1,0>:f {NoMask}\n";
            gen6_gs(
                body,
                2,
                &[
                    (2, TRI | START),
                    (3, TRI),
                    (4, TRI | END),
                    (20, TRI | START),
                    (21, TRI),
                    (22, TRI | END),
                ],
            )
        }
        _ => {
            // The URB write header (R0, channel masks on) in r112; vertex
            // n's two slots in r113, r114 [the model's Gen7 GS tests].
            let mut s = String::from(
                "mov (8|M0) r112.0<1>:ud r0.0<8;8,1>:ud {NoMask}\n\
                 or (1|M0) r112.5<1>:ud r0.5<0;1,0>:ud 0xff00:ud {NoMask}\n",
            );
            for copy in 0..2 {
                for v in 0..3u32 {
                    s += &format!(
                        "mov (4|M0) r113.0<1>:ud r{r}.0<4;4,1>:ud\n\
                         mov (4|M0) r114.0<1>:ud r{r}.4<4;4,1>:ud\n",
                        r = 2 + v
                    );
                    if copy == 1 {
                        s += "add (1|M0) r114.0<1>:f r114.0<0;1,0>:f r1.0<0;1,0>:f {NoMask}\n";
                    }
                    s += &format!(
                        "mov (2|M0) r112.3<1>:ud {n:#x}:ud {{NoMask}}\n\
                         send (8|M0) null:ud r112 urb.write_hword(offset=0, interleave, per_slot) mlen=3 rlen=0 hdr\n",
                        n = 3 * copy + v
                    );
                }
            }
            s += "mov (8|M0) r120.0<1>:ud r0.0<8;8,1>:ud {NoMask}\n\
                  mov (1|M0) r120.2<1>:ud 0x6:ud {NoMask}\n\
                  send (8|M0) null:ud r120 urb.write_hword(offset=0, interleave) mlen=1 rlen=0 hdr {EOT}\n";
            s
        }
    };
    assemble(g, &text)
}

/// The host reference: whether a triangle (pixels, y down) covers the
/// point, centres inside or on a top or left edge (the D3D rule the
/// manual's rasteriser follows).
fn covers(t: [[f64; 2]; 3], px: f64, py: f64) -> bool {
    let area =
        (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (t[1][1] - t[0][1]) * (t[2][0] - t[0][0]);
    if area == 0.0 {
        return false;
    }
    let t = if area > 0.0 { t } else { [t[0], t[2], t[1]] };
    (0..3).all(|i| {
        let (a, b) = (t[i], t[(i + 1) % 3]);
        let e = (b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0]);
        e > 0.0 || (e == 0.0 && ((a[1] == b[1] && b[0] > a[0]) || b[1] < a[1]))
    })
}

/// Pixels (y down) of an NDC point in the W x H viewport.
fn to_pixels(p: [f32; 2]) -> [f64; 2] {
    [
        (p[0] as f64 + 1.0) * W as f64 / 2.0,
        (1.0 - p[1] as f64) * H as f64 / 2.0,
    ]
}

/// The picture the host expects: `tris` (NDC) drawn in [`DRAWN`].
fn reference(tris: &[[[f32; 2]; 3]]) -> Vec<[u8; 4]> {
    let px: Vec<[[f64; 2]; 3]> = tris.iter().map(|t| t.map(to_pixels)).collect();
    let mut out = Vec::new();
    for y in 0..H {
        for x in 0..W {
            let hit = px
                .iter()
                .any(|t| covers(*t, x as f64 + 0.5, y as f64 + 0.5));
            out.push(if hit { DRAWN } else { CLEAR });
        }
    }
    out
}

/// Vertex bytes: each NDC point as (x, y, 0, 1).
fn vertex_bytes(tris: &[[[f32; 2]; 3]]) -> Vec<u8> {
    tris.iter()
        .flatten()
        .flat_map(|[x, y]| [*x, *y, 0.0, 1.0])
        .flat_map(f32::to_le_bytes)
        .collect()
}

/// The GS description for the duplicating kernels.
fn gs_desc<'k>(
    g: Generation,
    kernel: &'k baregpu::compute::Kernel<'k>,
    constants: &'k [u8],
) -> GeometryShader<'k> {
    GeometryShader {
        kernel,
        grf_start: 2,
        input_rows: 1,
        output_slots: 2,
        max_vertices: 6,
        output_topology: Topology::TriangleList,
        control_data_header: 0,
        dispatch: GsDispatch::Single,
        instances: 1,
        include_primitive_id: false,
        constants: if g == Generation::Gen6 || !constants.is_empty() {
            constants
        } else {
            &[]
        },
    }
}

/// A draw of `tris` (NDC) without a vertex shader, through the GS given,
/// into a cleared W x H target; the picture.
fn draw(g: Generation, tris: &[[[f32; 2]; 3]], gs_dx: Option<f32>) -> Vec<[u8; 4]> {
    let mut out = Vec::new();
    with_gpu(g, |gpu| {
        let mut r = Renderer::new(gpu).unwrap();
        let target = r
            .compute()
            .create_surface_2d(gpu, W, H, Format::B8G8R8A8Unorm, Tiling::Linear)
            .unwrap();
        target
            .write_pixels(Swizzle::None, &CLEAR.repeat((W * H) as usize))
            .unwrap();
        let vb = r.compute().upload_buffer(gpu, &vertex_bytes(tris)).unwrap();
        let ps_bin = solid_ps(g);
        let ps = r
            .compute_mut()
            .load_kernel(gpu, &KernelDesc::new(&ps_bin))
            .unwrap();
        let gs_bin = duplicating_gs(g);
        let gsk = r
            .compute_mut()
            .load_kernel(gpu, &KernelDesc::new(&gs_bin))
            .unwrap();
        let mut constants = [0u8; 32];
        constants[..4].copy_from_slice(&gs_dx.unwrap_or(0.0).to_le_bytes());
        let buffers = [VertexBuffer {
            buffer: &vb,
            pitch: 16,
            step: Step::PerVertex,
        }];
        let elements = [VertexElement::new(0, 0, VertexFormat::R32G32B32A32Float)];
        let d = Draw {
            target: &target,
            depth: None,
            vertex_buffers: &buffers,
            elements: &elements,
            index: None,
            topology: Topology::TriangleList,
            first_vertex: 0,
            vertex_count: 3 * tris.len() as u32,
            first_instance: 0,
            instance_count: 1,
            base_vertex: 0,
            vs: None,
            gs: gs_dx.map(|_| gs_desc(g, &gsk, &constants)),
            stream_output: None,
            ps: solid_pixels(&ps),
            attributes: 0,
            flat: 0,
            viewport: viewport(),
            raster: Raster::default(),
            blend: Blend::default(),
            depth_stencil: DepthStencil::default(),
            textures: &[],
            samplers: &[],
        };
        let fence = r.draw(gpu, &d).unwrap();
        if gpu.wait(fence, 60_000_000).is_err() {
            return false;
        }
        let mut px = vec![0u8; (W * H * 4) as usize];
        target.read_pixels(Swizzle::None, &mut px).unwrap();
        out = px.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
        true
    });
    out
}

fn solid_pixels<'k>(ps: &'k baregpu::compute::Kernel<'k>) -> PixelShader<'k> {
    PixelShader {
        simd8: None,
        simd16: Some(PixelKernel {
            kernel: ps,
            // After R0, R1 and the perspective barycentrics (r2-r5).
            grf_start: 6,
        }),
        barycentrics: Barycentrics::PERSPECTIVE_PIXEL,
        uses_source_depth: false,
        uses_source_w: false,
        kills_pixels: false,
        computes_depth: false,
        constants: &[],
    }
}

fn viewport() -> Viewport {
    Viewport {
        x: 0.0,
        y: 0.0,
        width: W as f32,
        height: H as f32,
        min_depth: 0.0,
        max_depth: 1.0,
    }
}

fn assert_picture(got: &[[u8; 4]], want: &[[u8; 4]], what: &str) {
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g, w, "{what}: pixel ({}, {})", k as u32 % W, k as u32 / W);
    }
}

/// NDC of a point given in pixels: quarter pixels over 16 are exact in
/// f32, so the host and the GPU see the same vertices (ties on edges go
/// by the top-left rule in both).
const fn ndc(x: f32, y: f32) -> [f32; 2] {
    [x / (W as f32 / 2.0) - 1.0, 1.0 - y / (H as f32 / 2.0)]
}

const TRI_A: [[f32; 2]; 3] = [ndc(3.25, 3.25), ndc(14.75, 2.5), ndc(3.5, 15.25)];
const TRI_B: [[f32; 2]; 3] = [ndc(6.25, 18.5), ndc(17.5, 21.25), ndc(8.25, 30.75)];

fn shifted(t: [[f32; 2]; 3], dx: f32) -> [[f32; 2]; 3] {
    t.map(|[x, y]| [x + dx, y])
}

/// A GS that emits each triangle and a copy moved right by its push
/// constant draws four triangles from two: the host coverage of all four,
/// on both generations.
#[test]
fn a_gs_duplicating_triangles_draws_both_copies() {
    let dx = 0.75;
    let want = reference(&[TRI_A, TRI_B, shifted(TRI_A, dx), shifted(TRI_B, dx)]);
    assert_ne!(want, reference(&[TRI_A, TRI_B]), "the copies add pixels");
    for g in GENERATIONS {
        // Without the GS only the inputs are drawn.
        let plain = draw(g, &[TRI_A, TRI_B], None);
        assert_picture(
            &plain,
            &reference(&[TRI_A, TRI_B]),
            &format!("{g:?} without"),
        );
        let got = draw(g, &[TRI_A, TRI_B], Some(dx));
        assert_picture(&got, &want, &format!("{g:?} with the GS"));
    }
}

/// A geometry shader's description is checked before anything is built:
/// Ivy Bridge's DUAL_OBJECT with instances, an odd vertex size while
/// rendering, no room for R0 before the constants.
#[test]
fn bad_geometry_shaders_are_refused_before_submission() {
    for g in GENERATIONS {
        with_gpu(g, |gpu| {
            let mut r = Renderer::new(gpu).unwrap();
            let target = r
                .compute()
                .create_surface_2d(gpu, W, H, Format::B8G8R8A8Unorm, Tiling::Linear)
                .unwrap();
            let vb = r
                .compute()
                .upload_buffer(gpu, &vertex_bytes(&[TRI_A]))
                .unwrap();
            let ps_bin = solid_ps(g);
            let ps = r
                .compute_mut()
                .load_kernel(gpu, &KernelDesc::new(&ps_bin))
                .unwrap();
            let gs_bin = duplicating_gs(g);
            let gsk = r
                .compute_mut()
                .load_kernel(gpu, &KernelDesc::new(&gs_bin))
                .unwrap();
            let constants = [0u8; 32];
            let buffers = [VertexBuffer {
                buffer: &vb,
                pitch: 16,
                step: Step::PerVertex,
            }];
            let elements = [VertexElement::new(0, 0, VertexFormat::R32G32B32A32Float)];
            let good = gs_desc(g, &gsk, &constants);
            let mut bad = vec![
                // The constants take r1: grf_start 1 leaves R0 no room.
                GeometryShader {
                    grf_start: 1,
                    ..good
                },
                GeometryShader {
                    input_rows: 0,
                    ..good
                },
                GeometryShader {
                    output_topology: Topology::QuadList,
                    ..good
                },
            ];
            if g == Generation::Gen7 {
                bad.push(GeometryShader {
                    dispatch: GsDispatch::DualObject,
                    instances: 2,
                    ..good
                });
                bad.push(GeometryShader {
                    output_slots: 3,
                    ..good
                });
                bad.push(GeometryShader {
                    instances: 0,
                    ..good
                });
            }
            for gs in bad {
                let d = Draw {
                    target: &target,
                    depth: None,
                    vertex_buffers: &buffers,
                    elements: &elements,
                    index: None,
                    topology: Topology::TriangleList,
                    first_vertex: 0,
                    vertex_count: 3,
                    first_instance: 0,
                    instance_count: 1,
                    base_vertex: 0,
                    vs: None,
                    gs: Some(gs),
                    stream_output: None,
                    ps: solid_pixels(&ps),
                    attributes: 0,
                    flat: 0,
                    viewport: viewport(),
                    raster: Raster::default(),
                    blend: Blend::default(),
                    depth_stencil: DepthStencil::default(),
                    textures: &[],
                    samplers: &[],
                };
                assert!(r.record(gpu, &d).is_err(), "{g:?}: {gs:?} accepted");
            }
            true
        });
    }
}

/// Sandy Bridge's stream-output GS: FF_SYNC asking for 3 SO vertices and
/// 1 SO primitive (M0.0) returns SVBI 0 in r10.1; each vertex's position
/// (r2-r4 after R1's SVBIs, dwords 4-7) is written with an SVB write
/// through binding-table entry 0 at that index plus k; the thread ends
/// without a URB handle (rendering disabled), reporting 1 primitive
/// written in M0.2[26:16] (003 lines 34620-34900).
fn svb_gs() -> Vec<u8> {
    let mut s = format!(
        "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}\n\
         mov (1|M0) m1.0<1>:ud 0x30001:ud {{NoMask}}\n\
         mov (1|M0) m1.1<1>:ud 0x0:ud {{NoMask}}\n\
         send (8|M0) r10.0<1>:ud m1 0x6 {} {{NoMask}}\n",
        desc("urb.ff_sync(offset=0, swizzle=none) mlen=1 rlen=1 hdr")
    );
    for k in 0..3 {
        s += &format!(
            "mov (4|M0) m2.0<1>:ud r{}.4<4;4,1>:ud {{NoMask}}\n\
             add (1|M0) m2.5<1>:ud r10.1<0;1,0>:ud {k:#x}:ud {{NoMask}}\n\
             send (8|M0) r12.0<1>:ud m2 0x5 {} {{NoMask}}\n\
             mov (8|M0) r12.0<1>:ud r12.0<8;8,1>:ud {{NoMask}}\n",
            2 + k,
            desc("rc.svb_write(bti=0, commit) mlen=1 rlen=1 hdr"),
        );
    }
    s += &format!(
        "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}\n\
         mov (1|M0) m1.2<1>:ud 0x10000:ud {{NoMask}}\n\
         send (8|M0) null:ud m1 0x6 {} {{EOT}}\n",
        desc("urb.write(offset=0, swizzle=none) mlen=1 rlen=0 hdr")
    );
    assemble(Generation::Gen6, &s)
}

/// Which GS a stream-output draw runs.
#[derive(Clone, Copy, PartialEq)]
enum Gs {
    None,
    /// [`duplicating_gs`] moving the copy by dx.
    Duplicating(f32),
    /// [`svb_gs`] (Sandy Bridge).
    Svb,
}

/// What a stream-output draw left: the picture, each buffer's bytes, and
/// SO_NUM_PRIMS_WRITTEN before and after the draw.
struct Streamed {
    picture: Vec<[u8; 4]>,
    buffers: Vec<Vec<f32>>,
    counts: [u64; 2],
    /// The driver's reading of the two.
    written: u64,
}

/// Draws `tris` with the GS `gs` and stream output into buffers of
/// `(bytes, pitch, offset)`, with `decls`; the buffers start as NaN-free
/// 0.5s so that untouched dwords are seen.
fn stream(
    g: Generation,
    tris: &[[[f32; 2]; 3]],
    gs: Gs,
    buffers: &[(usize, u32, u32)],
    decls: &[StreamDecl],
    rendering: bool,
) -> Streamed {
    let mut out = None;
    with_gpu(g, |gpu| {
        let mut r = Renderer::new(gpu).unwrap();
        let target = r
            .compute()
            .create_surface_2d(gpu, W, H, Format::B8G8R8A8Unorm, Tiling::Linear)
            .unwrap();
        target
            .write_pixels(Swizzle::None, &CLEAR.repeat((W * H) as usize))
            .unwrap();
        let vb = r.compute().upload_buffer(gpu, &vertex_bytes(tris)).unwrap();
        let ps_bin = solid_ps(g);
        let ps = r
            .compute_mut()
            .load_kernel(gpu, &KernelDesc::new(&ps_bin))
            .unwrap();
        let gs_bin = match gs {
            Gs::Svb => svb_gs(),
            _ => duplicating_gs(g),
        };
        let gsk = r
            .compute_mut()
            .load_kernel(gpu, &KernelDesc::new(&gs_bin))
            .unwrap();
        let mut constants = [0u8; 32];
        if let Gs::Duplicating(dx) = gs {
            constants[..4].copy_from_slice(&dx.to_le_bytes());
        }
        let so_mem: Vec<_> = buffers
            .iter()
            .map(|&(bytes, _, _)| {
                let fill: Vec<u8> = (0..bytes / 4).flat_map(|_| 0.5f32.to_le_bytes()).collect();
                r.compute().upload_buffer(gpu, &fill).unwrap()
            })
            .collect();
        let so_buffers: Vec<StreamBuffer<'_>> = so_mem
            .iter()
            .zip(buffers)
            .map(|(b, &(_, pitch, offset))| StreamBuffer {
                buffer: b,
                pitch,
                offset,
            })
            .collect();
        let count = r.compute().upload_buffer(gpu, &[0xee; 16]).unwrap();
        let vbs = [VertexBuffer {
            buffer: &vb,
            pitch: 16,
            step: Step::PerVertex,
        }];
        let elements = [VertexElement::new(0, 0, VertexFormat::R32G32B32A32Float)];
        let gs_desc = match gs {
            Gs::None => None,
            // SVB writes only: R1 holds the SVBIs, the vertices from r2.
            Gs::Svb => Some(GeometryShader {
                grf_start: 2,
                ..gs_desc(g, &gsk, &[])
            }),
            Gs::Duplicating(_) => Some(gs_desc(g, &gsk, &constants)),
        };
        let d = Draw {
            target: &target,
            depth: None,
            vertex_buffers: &vbs,
            elements: &elements,
            index: None,
            topology: Topology::TriangleList,
            first_vertex: 0,
            vertex_count: 3 * tris.len() as u32,
            first_instance: 0,
            instance_count: 1,
            base_vertex: 0,
            vs: None,
            gs: gs_desc,
            stream_output: Some(StreamOutput {
                buffers: &so_buffers,
                decls,
                rendering,
                count: Some((&count, 0)),
            }),
            ps: solid_pixels(&ps),
            attributes: 0,
            flat: 0,
            viewport: viewport(),
            raster: Raster::default(),
            blend: Blend::default(),
            depth_stencil: DepthStencil::default(),
            textures: &[],
            samplers: &[],
        };
        let fence = r.draw(gpu, &d).unwrap();
        if gpu.wait(fence, 60_000_000).is_err() {
            return false;
        }
        let mut px = vec![0u8; (W * H * 4) as usize];
        target.read_pixels(Swizzle::None, &mut px).unwrap();
        let mut c = [0u8; 16];
        count.read(0, &mut c).unwrap();
        out = Some(Streamed {
            picture: px.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect(),
            buffers: so_mem
                .iter()
                .map(|b| {
                    let mut bytes = vec![0u8; b.size()];
                    b.read(0, &mut bytes).unwrap();
                    bytes
                        .chunks(4)
                        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                        .collect()
                })
                .collect(),
            counts: [
                u64::from_le_bytes(c[..8].try_into().unwrap()),
                u64::from_le_bytes(c[8..].try_into().unwrap()),
            ],
            written: StreamOutput::primitives_written(&count, 0).unwrap(),
        });
        true
    });
    out.unwrap()
}

/// The host's expectation of a buffer: `fill` everywhere, then from
/// dword `first` each vertex's `take(vertex)` dwords `pitch` dwords apart.
fn expected_buffer(
    dwords: usize,
    first: usize,
    pitch: usize,
    vertices: &[[f32; 2]],
    take: impl Fn([f32; 2]) -> Vec<f32>,
) -> Vec<f32> {
    let mut out = vec![0.5; dwords];
    for (k, v) in vertices.iter().enumerate() {
        for (c, x) in take(*v).into_iter().enumerate() {
            out[first + k * pitch + c] = x;
        }
    }
    out
}

/// Ivy Bridge, no GS: the VF's vertices (header, position) into two
/// buffers, the whole position into buffer 0 (16-byte vertices from byte
/// 32) and x, y with a one-dword hole before them into buffer 1 (12-byte
/// vertices from 0), rendering disabled: nothing drawn, six vertices in
/// each, two primitives counted.
#[test]
fn gen7_stream_output_writes_both_buffers_without_rendering() {
    let decls = [
        StreamDecl {
            buffer: 0,
            slot: 1,
            mask: 0xf,
            hole: false,
        },
        StreamDecl {
            buffer: 1,
            slot: 0,
            mask: 0x1,
            hole: true,
        },
        StreamDecl {
            buffer: 1,
            slot: 1,
            mask: 0x3,
            hole: false,
        },
    ];
    let s = stream(
        Generation::Gen7,
        &[TRI_A, TRI_B],
        Gs::None,
        &[(256, 16, 32), (128, 12, 0)],
        &decls,
        false,
    );
    assert!(s.picture.iter().all(|p| *p == CLEAR), "rendering disabled");
    let verts: Vec<[f32; 2]> = [TRI_A, TRI_B].iter().flatten().copied().collect();
    assert_eq!(
        s.buffers[0],
        expected_buffer(64, 8, 4, &verts, |[x, y]| vec![x, y, 0.0, 1.0])
    );
    // The hole keeps what was there.
    assert_eq!(
        s.buffers[1],
        expected_buffer(32, 0, 3, &verts, |[x, y]| vec![0.5, x, y])
    );
    assert_eq!(s.counts[1] - s.counts[0], 2, "primitives written");
    assert_eq!(s.written, 2);
}

/// A full buffer: room for four vertices, so the first triangle only
/// (a primitive is written whole or not at all), and one counted.
#[test]
fn gen7_stream_output_stops_at_the_buffer_end() {
    let decls = [StreamDecl {
        buffer: 0,
        slot: 1,
        mask: 0xf,
        hole: false,
    }];
    let s = stream(
        Generation::Gen7,
        &[TRI_A, TRI_B],
        Gs::None,
        &[(64, 16, 0)],
        &decls,
        false,
    );
    let verts: Vec<[f32; 2]> = TRI_A.to_vec();
    assert_eq!(
        s.buffers[0],
        expected_buffer(16, 0, 4, &verts, |[x, y]| vec![x, y, 0.0, 1.0])
    );
    assert_eq!(s.counts[1] - s.counts[0], 1);
}

/// Ivy Bridge with the duplicating GS and rendering on: the picture of
/// four triangles and the GS's twelve vertices in the buffer, in order
/// (each input's triangle, then its copy).
#[test]
fn gen7_stream_output_of_a_gs_while_rendering() {
    let dx = 0.75;
    let decls = [StreamDecl {
        buffer: 0,
        slot: 1,
        mask: 0x3,
        hole: false,
    }];
    let s = stream(
        Generation::Gen7,
        &[TRI_A, TRI_B],
        Gs::Duplicating(dx),
        &[(256, 8, 0)],
        &decls,
        true,
    );
    assert_picture(
        &s.picture,
        &reference(&[TRI_A, TRI_B, shifted(TRI_A, dx), shifted(TRI_B, dx)]),
        "rendered while streaming",
    );
    let verts: Vec<[f32; 2]> = [TRI_A, shifted(TRI_A, dx), TRI_B, shifted(TRI_B, dx)]
        .iter()
        .flatten()
        .copied()
        .collect();
    assert_eq!(
        s.buffers[0],
        expected_buffer(64, 0, 2, &verts, |[x, y]| vec![x, y])
    );
    assert_eq!(s.counts[1] - s.counts[0], 4);
}

/// Sandy Bridge: the caller's GS writes each position through the decl's
/// buffer surface at SVBI 0, which the driver starts at the buffer
/// offset's vertex (16-byte vertices from byte 48: index 3); rendering
/// disabled; the two primitives the threads report are counted.
#[test]
fn gen6_stream_output_through_svb_writes() {
    let decls = [StreamDecl {
        buffer: 0,
        slot: 1,
        mask: 0xf,
        hole: false,
    }];
    let s = stream(
        Generation::Gen6,
        &[TRI_A, TRI_B],
        Gs::Svb,
        &[(256, 16, 48)],
        &decls,
        false,
    );
    assert!(s.picture.iter().all(|p| *p == CLEAR), "rendering disabled");
    let verts: Vec<[f32; 2]> = [TRI_A, TRI_B].iter().flatten().copied().collect();
    assert_eq!(
        s.buffers[0],
        expected_buffer(64, 12, 4, &verts, |[x, y]| vec![x, y, 0.0, 1.0])
    );
    assert_eq!(s.counts[1] - s.counts[0], 2);
}

/// The standard sample positions (the Vulkan standard locations), in
/// pixels from the pixel's upper-left corner, written out here for the
/// host reference.
const POSITIONS_4X: [(f64, f64); 4] = [
    (0.375, 0.125),
    (0.875, 0.375),
    (0.125, 0.625),
    (0.625, 0.875),
];
const POSITIONS_8X: [(f64, f64); 8] = [
    (0.5625, 0.3125),
    (0.4375, 0.6875),
    (0.8125, 0.5625),
    (0.3125, 0.1875),
    (0.1875, 0.8125),
    (0.0625, 0.4375),
    (0.6875, 0.9375),
    (0.9375, 0.0625),
];

/// The host's resolved picture: per pixel, the covered samples (among
/// those the mask enables) count in [`DRAWN`], the others keep [`CLEAR`];
/// channels averaged and rounded.
fn resolved_reference(tris: &[[[f32; 2]; 3]], positions: &[(f64, f64)], mask: u32) -> Vec<[u8; 4]> {
    let px: Vec<[[f64; 2]; 3]> = tris.iter().map(|t| t.map(to_pixels)).collect();
    let n = positions.len() as u32;
    let mut out = Vec::new();
    for y in 0..H {
        for x in 0..W {
            let covered = positions
                .iter()
                .enumerate()
                .filter(|(s, (dx, dy))| {
                    mask >> s & 1 == 1
                        && px.iter().any(|t| covers(*t, x as f64 + dx, y as f64 + dy))
                })
                .count() as u32;
            let mut p = [0u8; 4];
            for c in 0..4 {
                let sum = covered * u32::from(DRAWN[c]) + (n - covered) * u32::from(CLEAR[c]);
                p[c] = ((sum + n / 2) / n) as u8;
            }
            out.push(p);
        }
    }
    out
}

/// Draws `tris` multisampled into a cleared target of `samples` and
/// resolves it on the CPU.
fn draw_multisampled(
    g: Generation,
    tris: &[[[f32; 2]; 3]],
    samples: Samples,
    mask: u32,
) -> Vec<[u8; 4]> {
    let mut out = Vec::new();
    with_gpu(g, |gpu| {
        let mut r = Renderer::new(gpu).unwrap();
        let (pw, ph) = samples.target_size(g, W, H).unwrap();
        let target = r
            .compute()
            .create_surface_2d(gpu, pw, ph, Format::B8G8R8A8Unorm, Tiling::Linear)
            .unwrap();
        target
            .write_pixels(Swizzle::None, &CLEAR.repeat((pw * ph) as usize))
            .unwrap();
        let vb = r.compute().upload_buffer(gpu, &vertex_bytes(tris)).unwrap();
        let ps_bin = solid_ps(g);
        let ps = r
            .compute_mut()
            .load_kernel(gpu, &KernelDesc::new(&ps_bin))
            .unwrap();
        let vbs = [VertexBuffer {
            buffer: &vb,
            pitch: 16,
            step: Step::PerVertex,
        }];
        let elements = [VertexElement::new(0, 0, VertexFormat::R32G32B32A32Float)];
        let d = Draw {
            target: &target,
            depth: None,
            vertex_buffers: &vbs,
            elements: &elements,
            index: None,
            topology: Topology::TriangleList,
            first_vertex: 0,
            vertex_count: 3 * tris.len() as u32,
            first_instance: 0,
            instance_count: 1,
            base_vertex: 0,
            vs: None,
            gs: None,
            stream_output: None,
            ps: solid_pixels(&ps),
            attributes: 0,
            flat: 0,
            viewport: viewport(),
            raster: Raster {
                multisample: Some(Multisample { samples, mask }),
                ..Raster::default()
            },
            blend: Blend::default(),
            depth_stencil: DepthStencil::default(),
            textures: &[],
            samplers: &[],
        };
        let fence = r.draw(gpu, &d).unwrap();
        if gpu.wait(fence, 60_000_000).is_err() {
            return false;
        }
        let px = samples.resolve(g, &target).unwrap();
        out = px.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
        true
    });
    out
}

/// Thin slanted edges: the resolved pixels along them are partial, each
/// the share of its covered samples, as the host computes it at the
/// standard positions; 4X on both generations, 8X on Ivy Bridge, and a
/// sample mask that leaves samples out.
#[test]
fn multisampled_edges_resolve_to_the_host_coverage() {
    let tris = [TRI_A, TRI_B];
    type Case = (Generation, Samples, &'static [(f64, f64)], u32);
    let cases: [Case; 4] = [
        (Generation::Gen6, Samples::X4, &POSITIONS_4X, 0xf),
        (Generation::Gen6, Samples::X4, &POSITIONS_4X, 0x5),
        (Generation::Gen7, Samples::X4, &POSITIONS_4X, 0xf),
        (Generation::Gen7, Samples::X8, &POSITIONS_8X, 0xff),
    ];
    // Sandy Bridge has no 8X; Ivy Bridge's sample slices need heights in
    // fours.
    assert!(Samples::X8.target_size(Generation::Gen6, W, H).is_err());
    assert!(Samples::X4.target_size(Generation::Gen7, W, 30).is_err());
    for (g, samples, positions, mask) in cases {
        let want = resolved_reference(&tris, positions, mask);
        // Some pixels are partly covered: the edges are anti-aliased.
        assert!(want.iter().any(|p| *p != DRAWN && *p != CLEAR));
        let got = draw_multisampled(g, &tris, samples, mask);
        assert_picture(&got, &want, &format!("{g:?} {samples:?} mask {mask:#x}"));
    }
}

/// The URB split with the duplicating GS (2-slot vertices in and out, at
/// most 6 vertices out), worked by hand from Mesa's rules. Sandy Bridge
/// (gen6_urb.c): each stage half of GT1's 32 KiB in 1024-bit units, 128
/// entries each. Ivy Bridge (gen7_urb.c) over the driver's 48 KiB (six
/// 8 KiB chunks, two for the push constants): VS 64-byte entries, minimum
/// 32 (1 chunk), could use 512 (3 more); GS 192-byte entries, minimum 8
/// (1 chunk), could use 192 (4 more); the 2 chunks left go round(3 * 2 /
/// 7) = 1 to the VS and 1 to the GS: 256 VS entries from chunk 2, 80 GS
/// entries (85 rounded down to 8) from chunk 4; push constants 5, 5 and 6
/// KiB.
#[test]
fn the_urb_is_split_between_vs_and_gs_as_mesa_splits_it() {
    for g in GENERATIONS {
        with_gpu(g, |gpu| {
            let mut r = Renderer::new(gpu).unwrap();
            let target = r
                .compute()
                .create_surface_2d(gpu, W, H, Format::B8G8R8A8Unorm, Tiling::Linear)
                .unwrap();
            let vb = r
                .compute()
                .upload_buffer(gpu, &vertex_bytes(&[TRI_A]))
                .unwrap();
            let ps_bin = solid_ps(g);
            let ps = r
                .compute_mut()
                .load_kernel(gpu, &KernelDesc::new(&ps_bin))
                .unwrap();
            let gs_bin = duplicating_gs(g);
            let gsk = r
                .compute_mut()
                .load_kernel(gpu, &KernelDesc::new(&gs_bin))
                .unwrap();
            let constants = [0u8; 32];
            let buffers = [VertexBuffer {
                buffer: &vb,
                pitch: 16,
                step: Step::PerVertex,
            }];
            let elements = [VertexElement::new(0, 0, VertexFormat::R32G32B32A32Float)];
            let d = Draw {
                target: &target,
                depth: None,
                vertex_buffers: &buffers,
                elements: &elements,
                index: None,
                topology: Topology::TriangleList,
                first_vertex: 0,
                vertex_count: 3,
                first_instance: 0,
                instance_count: 1,
                base_vertex: 0,
                vs: None,
                gs: Some(gs_desc(g, &gsk, &constants)),
                stream_output: None,
                ps: solid_pixels(&ps),
                attributes: 0,
                flat: 0,
                viewport: viewport(),
                raster: Raster::default(),
                blend: Blend::default(),
                depth_stencil: DepthStencil::default(),
                textures: &[],
                samplers: &[],
            };
            let batch = r.record(gpu, &d).unwrap();
            let cmds = commands(g, &batch);
            let field = |name: &str, f: &str| one(&cmds, name).get(f);
            if g == Generation::Gen6 {
                assert_eq!(field("3DSTATE_URB", "vs_number_of_urb_entries"), 128);
                assert_eq!(field("3DSTATE_URB", "vs_urb_entry_allocation_size"), 0);
                assert_eq!(field("3DSTATE_URB", "gs_number_of_urb_entries"), 128);
                assert_eq!(field("3DSTATE_URB", "gs_urb_entry_allocation_size"), 0);
                assert_eq!(
                    field("3DSTATE_GS", "dispatch_grf_start_register_for_urb_data"),
                    1
                );
            } else {
                let vs = ("3DSTATE_URB_VS", "vs_");
                let gs = ("3DSTATE_URB_GS", "gs_");
                let urb = |(name, p): (&str, &str), f: &str| field(name, &format!("{p}{f}"));
                assert_eq!(urb(vs, "urb_starting_address"), 2);
                assert_eq!(urb(vs, "number_of_urb_entries"), 256);
                assert_eq!(urb(vs, "urb_entry_allocation_size"), 0);
                assert_eq!(urb(gs, "urb_starting_address"), 4);
                assert_eq!(urb(gs, "number_of_urb_entries"), 80);
                assert_eq!(urb(gs, "urb_entry_allocation_size"), 2);
                assert_eq!(field("3DSTATE_URB_HS", "hs_urb_starting_address"), 6);
                let alloc = |n: &str| {
                    let name = format!("3DSTATE_PUSH_CONSTANT_ALLOC_{n}");
                    (
                        field(&name, "constant_buffer_offset"),
                        field(&name, "constant_buffer_size"),
                    )
                };
                assert_eq!(
                    [alloc("VS"), alloc("GS"), alloc("PS")],
                    [(0, 5), (5, 5), (10, 6)]
                );
                assert_eq!(field("3DSTATE_GS", "output_vertex_size"), 1);
                assert_eq!(field("3DSTATE_GS", "output_topology"), 4);
            }
            true
        });
    }
}
