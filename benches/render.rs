//! 3D fill rate on the software GPU through the driver's 3D API (Sandy
//! Bridge), in one run:
//!
//! a textured, blended triangle over most of a 512 x 512 B8G8R8A8 target:
//! the pixel shader interpolates a texture coordinate with `pln`, samples a
//! 256 x 256 texture (nearest) and the output merger blends it 50/50 with
//! the target (CONST_ALPHA / INV_CONST_ALPHA). Reported as pixels per
//! second, and as time ratios against (a) `copy_from_slice` of the same
//! bytes and (b) a plain Rust loop doing the same shading (barycentric
//! texture coordinate, nearest fetch, the blend, UNORM rounding) for the
//! same pixels.
//!
//! `cargo bench --bench render`. Nothing asserts on time; the pixels the
//! GPU wrote are checked against the plain loop's before timing.

use std::hint::black_box;
use std::time::{Duration, Instant};

use baregpu::compute::{
    AddressMode, Filter, Format, KernelDesc, Resource, Sampler, Swizzle, Tiling,
};
use baregpu::isa::{IsaGen as Isa, text};
use baregpu::platform::PlatformBus;
use baregpu::platform::host::HostPlatform;
use baregpu::render::*;
use baregpu::{Generation, Gpu};
use baregpu_soft::SoftGpu;

const W: u32 = 512;
const H: u32 = 512;
const TEX: u32 = 256;
const REPS: usize = 5;

const PS: &str = "
pln (8|M0) m2<1>:f r6.0<0;1,0>:f r2<8;8,1>:f
pln (8|M0) m3<1>:f r6.0<0;1,0>:f r4<8;8,1>:f
pln (8|M0) m4<1>:f r6.4<0;1,0>:f r2<8;8,1>:f
pln (8|M0) m5<1>:f r6.4<0;1,0>:f r4<8;8,1>:f
(W) mov (1|M0) r0.2<1>:ud 0x0:ud
mov (8|M0) m1<1>:ud r0<8;8,1>:ud
send (16|M0) r14:uw m1 sampler.sample(bti=1, sampler=0, simd=16) mlen=5 rlen=8 hdr
mov (16|M0) m2<1>:f r14<8;8,1>:f
mov (16|M0) m4<1>:f r16<8;8,1>:f
mov (16|M0) m6<1>:f r18<8;8,1>:f
mov (16|M0) m8<1>:f r20<8;8,1>:f
send (16|M0) null:ud m2 rc.rt_write(bti=0, mode=simd16, last) mlen=8 rlen=0 {EOT}
";

/// Screen-space corners (pixels) and texture coordinates of the triangle.
const TRI: [(f32, f32, f32, f32); 3] = [
    (8.0, 8.0, 0.0, 0.0),
    (504.0, 8.0, 1.0, 0.0),
    (8.0, 504.0, 0.0, 1.0),
];

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// UNORM8 of `v` in [0, 1], ties up.
fn unorm8(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
}

/// The plain loop: every pixel whose centre is inside the triangle (its
/// edges here are a top, a left and a diagonal one), the texture fetched
/// nearest at the interpolated coordinate, blended half and half.
fn shade(texture: &[u8], target: &mut [u8]) -> usize {
    let (x0, y0) = (TRI[0].0, TRI[0].1);
    let (dx, dy) = (TRI[1].0 - x0, TRI[2].1 - y0);
    let mut n = 0;
    for y in 0..H {
        let py = y as f32 + 0.5;
        let v = (py - y0) / dy;
        if !(0.0..1.0).contains(&v) {
            continue;
        }
        for x in 0..W {
            let px = x as f32 + 0.5;
            let u = (px - x0) / dx;
            if u < 0.0 || u + v >= 1.0 {
                continue;
            }
            let tx = ((u * TEX as f32) as u32).min(TEX - 1);
            let ty = ((v * TEX as f32) as u32).min(TEX - 1);
            let t = ((ty * TEX + tx) * 4) as usize;
            let d = ((y * W + x) * 4) as usize;
            for c in 0..4 {
                let s = texture[t + c] as f32 / 255.0;
                let o = target[d + c] as f32 / 255.0;
                target[d + c] = unorm8(0.5 * s + 0.5 * o);
            }
            n += 1;
        }
    }
    n
}

fn main() {
    let p = HostPlatform::new();
    let soft = SoftGpu::new(Generation::Gen6, PlatformBus::new(&p)).expect("software GPU");
    let mut gpu = Gpu::new(&p, &soft, Generation::Gen6).expect("GPU bring-up");
    let mut r = Renderer::new(&mut gpu).expect("3D");
    let texels: Vec<u8> = (0..TEX * TEX)
        .flat_map(|i| [(i * 7) as u8, (i >> 8) as u8, ((i * 13) >> 3) as u8, 0xff])
        .collect();
    let background: Vec<u8> = (0..W * H)
        .flat_map(|i| [0x20, (i >> 9) as u8, 0x80, 0xff])
        .collect();
    let texture = r
        .compute()
        .create_surface_2d(&mut gpu, TEX, TEX, Format::B8G8R8A8Unorm, Tiling::Linear)
        .expect("texture");
    texture
        .write_pixels(Swizzle::None, &texels)
        .expect("texels");
    let target = r
        .compute()
        .create_surface_2d(&mut gpu, W, H, Format::B8G8R8A8Unorm, Tiling::Linear)
        .expect("target");
    let mut verts = Vec::new();
    for (x, y, u, v) in TRI {
        for f in [
            x / (W as f32 / 2.0) - 1.0,
            1.0 - y / (H as f32 / 2.0),
            0.5,
            1.0,
            u,
            v,
            0.0,
            0.0,
        ] {
            verts.extend(f.to_le_bytes());
        }
    }
    let vb = r
        .compute()
        .upload_buffer(&mut gpu, &verts)
        .expect("vertices");
    let bin = text::assemble(Isa::Gen6, PS).expect("assembles");
    let ps = r
        .compute_mut()
        .load_kernel(&mut gpu, &KernelDesc::new(&bin))
        .expect("kernel");
    let buffers = [VertexBuffer {
        buffer: &vb,
        pitch: 32,
        step: Step::PerVertex,
    }];
    let elements = [
        VertexElement::new(0, 0, VertexFormat::R32G32B32A32Float),
        VertexElement::new(0, 16, VertexFormat::R32G32B32A32Float),
    ];
    let textures = [(1, Resource::Surface(&texture))];
    let samplers = [(
        0,
        Sampler::new()
            .with_filter(Filter::Nearest)
            .with_address(AddressMode::Clamp),
    )];
    let half = BlendEquation {
        src: BlendFactor::ConstAlpha,
        dst: BlendFactor::InvConstAlpha,
        op: BlendOp::Add,
    };
    let draw = Draw {
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
        flat: 0,
        viewport: Viewport {
            x: 0.0,
            y: 0.0,
            width: W as f32,
            height: H as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        },
        raster: Raster::default(),
        blend: Blend {
            color: Some(half),
            constant: [0.0, 0.0, 0.0, 0.5],
            ..Blend::default()
        },
        depth_stencil: DepthStencil::default(),
        textures: &textures,
        samplers: &samplers,
    };

    // Correctness first: one draw against the plain loop, within one step
    // per channel (the interpolated coordinate may land on the other side
    // of a texel edge: such pixels are counted, not failed, if few).
    target
        .write_pixels(Swizzle::None, &background)
        .expect("background");
    let fence = r.draw(&mut gpu, &draw).expect("draw");
    gpu.wait(fence, 600_000_000).expect("the draw completes");
    let mut got = vec![0u8; (W * H * 4) as usize];
    target.read_pixels(Swizzle::None, &mut got).expect("read");
    let mut want = background.clone();
    let pixels = shade(&texels, &mut want);
    let off = got
        .chunks(4)
        .zip(want.chunks(4))
        .filter(|(g, w)| g.iter().zip(w.iter()).any(|(a, b)| a.abs_diff(*b) > 1))
        .count();
    assert!(
        off * 1000 < pixels,
        "{off} of {pixels} pixels differ from the plain loop by more than one step"
    );

    let mut gpu_times = Vec::new();
    for _ in 0..REPS {
        target
            .write_pixels(Swizzle::None, &background)
            .expect("background");
        let t = Instant::now();
        let fence = r.draw(&mut gpu, &draw).expect("draw");
        gpu.wait(fence, 600_000_000).expect("the draw completes");
        gpu_times.push(t.elapsed());
    }
    let mut loop_times = Vec::new();
    for _ in 0..REPS {
        let mut t_target = background.clone();
        let t = Instant::now();
        black_box(shade(black_box(&texels), &mut t_target));
        loop_times.push(t.elapsed());
    }
    let mut copy_times = Vec::new();
    let mut dst = vec![0u8; background.len()];
    for _ in 0..REPS {
        let t = Instant::now();
        dst.copy_from_slice(black_box(&background));
        black_box(&dst);
        copy_times.push(t.elapsed());
    }
    let (g, l, c) = (median(gpu_times), median(loop_times), median(copy_times));
    println!(
        "textured blended triangle, {pixels} pixels of a {W}x{H} target: {:.2} ms, {:.2} M pixels/s",
        g.as_secs_f64() * 1e3,
        pixels as f64 / g.as_secs_f64() / 1e6
    );
    println!(
        "  plain Rust loop (same shading): {:.3} ms, ratio {:.0}x; memcpy of the target's {} bytes: {:.3} ms, ratio {:.0}x",
        l.as_secs_f64() * 1e3,
        g.as_secs_f64() / l.as_secs_f64(),
        background.len(),
        c.as_secs_f64() * 1e3,
        g.as_secs_f64() / c.as_secs_f64()
    );
}
