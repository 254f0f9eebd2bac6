//! The spinning cube of the demo (`boot/src/bin/demo/cube.rs`) and of its
//! host test (`tests/cube.rs`), which both include this file: the cube's
//! 24 vertices and 36 indices, the per-frame matrices computed in f32
//! without `std`, the checker texture, and one draw through the driver's
//! 3D API with the vertex and pixel shaders of `cube_{vs,ps}_gen{6,7}.asm`.
//!
//! Conventions: right-handed object and world space, the camera at the
//! origin looking down -z, clip space as Direct3D has it (0 <= z <= w),
//! matrices column-major (`m[4 * column + row]`), the shaders' layout.

use alloc::vec::Vec;

use baregpu::compute::{
    AddressMode, Buffer, Compute, ComputeError, Filter, Format, Kernel, KernelDesc, Resource,
    Sampler, Surface, Swizzle, Tiling,
};
use baregpu::hal::Generation;
use baregpu::isa::{IsaGen, text};
use baregpu::render::*;
use baregpu::{Fence, Gpu, Platform};

pub const VS_GEN6: &str = include_str!("cube_vs_gen6.asm");
pub const PS_GEN6: &str = include_str!("cube_ps_gen6.asm");
pub const VS_GEN7: &str = include_str!("cube_vs_gen7.asm");
pub const PS_GEN7: &str = include_str!("cube_ps_gen7.asm");

/// A column-major 4x4 matrix.
pub type Mat = [f32; 16];

pub const PI: f32 = core::f32::consts::PI;

/// sin(x) in f32 without `std`: x brought to [-pi, pi], then to [-pi/2,
/// pi/2] by sin(x) = sin(pi - x), then the Taylor series to x^11 (its
/// error there is below 6e-8).
pub fn sin(x: f32) -> f32 {
    let tau = 2.0 * PI;
    let turns = x / tau;
    // Round to the nearest whole turn (`as` truncates towards zero).
    let whole = if turns >= 0.0 {
        (turns + 0.5) as i64
    } else {
        (turns - 0.5) as i64
    };
    let mut r = x - whole as f32 * tau;
    if r > PI / 2.0 {
        r = PI - r;
    } else if r < -PI / 2.0 {
        r = -PI - r;
    }
    let r2 = r * r;
    // r - r^3/3! + r^5/5! - ... in Horner form.
    r * (1.0
        - r2 / 6.0 * (1.0 - r2 / 20.0 * (1.0 - r2 / 42.0 * (1.0 - r2 / 72.0 * (1.0 - r2 / 110.0)))))
}

pub fn cos(x: f32) -> f32 {
    sin(x + PI / 2.0)
}

pub fn mul(a: &Mat, b: &Mat) -> Mat {
    let mut m = [0.0; 16];
    for c in 0..4 {
        for r in 0..4 {
            m[4 * c + r] = (0..4).map(|k| a[4 * k + r] * b[4 * c + k]).sum();
        }
    }
    m
}

/// `m` times the column vector `v`.
pub fn transform(m: &Mat, v: [f32; 4]) -> [f32; 4] {
    core::array::from_fn(|r| (0..4).map(|c| m[4 * c + r] * v[c]).sum())
}

fn rotation_x(a: f32) -> Mat {
    let (s, c) = (sin(a), cos(a));
    [
        1.0, 0.0, 0.0, 0.0, //
        0.0, c, s, 0.0, //
        0.0, -s, c, 0.0, //
        0.0, 0.0, 0.0, 1.0,
    ]
}

fn rotation_y(a: f32) -> Mat {
    let (s, c) = (sin(a), cos(a));
    [
        c, 0.0, -s, 0.0, //
        0.0, 1.0, 0.0, 0.0, //
        s, 0.0, c, 0.0, //
        0.0, 0.0, 0.0, 1.0,
    ]
}

fn translation(x: f32, y: f32, z: f32) -> Mat {
    [
        1.0, 0.0, 0.0, 0.0, //
        0.0, 1.0, 0.0, 0.0, //
        0.0, 0.0, 1.0, 0.0, //
        x, y, z, 1.0,
    ]
}

/// Perspective projection onto Direct3D's clip space: `tan_half` the
/// tangent of half the vertical field of view; z = -near goes to depth 0,
/// z = -far to depth 1, w = -z.
fn perspective(tan_half: f32, aspect: f32, near: f32, far: f32) -> Mat {
    let (sy, sx) = (1.0 / tan_half, 1.0 / (tan_half * aspect));
    let (a, b) = (far / (near - far), near * far / (near - far));
    [
        sx, 0.0, 0.0, 0.0, //
        0.0, sy, 0.0, 0.0, //
        0.0, 0.0, a, -1.0, //
        0.0, 0.0, b, 0.0,
    ]
}

/// The unit vector towards the light in world space: up, left, towards the
/// viewer (0.48^2 + 0.64^2 + 0.6^2 = 1).
pub const LIGHT: [f32; 3] = [-0.48, 0.64, 0.6];
/// Light every face gets, and the weight of the diffuse term.
pub const AMBIENT: f32 = 0.25;
pub const DIFFUSE: f32 = 0.75;
/// The camera: the cube's centre this far in front of it, and the field of
/// view (tan of half of it), chosen so that every pose fits in the picture.
const DISTANCE: f32 = 4.4;
const TAN_HALF_FOV: f32 = 0.55;

/// The cube's orientation: turned by `yaw` about y, then by `pitch` about
/// x (radians).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    pub yaw: f32,
    pub pitch: f32,
}

impl Pose {
    /// Frame `k` of `n` of the spin: a whole turn about y and half a turn
    /// about x, from a start that shows three faces.
    pub fn frame(k: u32, n: u32) -> Pose {
        let t = k as f32 / n.max(1) as f32;
        Pose {
            yaw: 0.6 + 2.0 * PI * t,
            pitch: 0.45 + PI * t,
        }
    }

    /// Object to world: the rotation (its inverse is its transpose).
    pub fn model(&self) -> Mat {
        mul(&rotation_x(self.pitch), &rotation_y(self.yaw))
    }

    /// Object to clip space for a `aspect` (width / height) picture.
    pub fn mvp(&self, aspect: f32) -> Mat {
        let view = mul(&translation(0.0, 0.0, -DISTANCE), &self.model());
        mul(&perspective(TAN_HALF_FOV, aspect, 1.0, 10.0), &view)
    }

    /// The light direction in object space: the model's transpose times
    /// the world direction.
    pub fn light_in_object(&self) -> [f32; 3] {
        let m = self.model();
        core::array::from_fn(|i| (0..3).map(|r| m[4 * i + r] * LIGHT[r]).sum())
    }

    /// The vertex shader's push constants (three registers): the matrix's
    /// columns, then the object-space light, 0, ambient, diffuse.
    pub fn constants(&self, aspect: f32) -> [u8; 96] {
        let mut f = [0.0f32; 24];
        f[..16].copy_from_slice(&self.mvp(aspect));
        f[16..19].copy_from_slice(&self.light_in_object());
        f[20] = AMBIENT;
        f[21] = DIFFUSE;
        let mut out = [0u8; 96];
        for (i, v) in f.iter().enumerate() {
            out[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        out
    }
}

/// One face: its outward normal, and the directions of increasing u and
/// decreasing v (right and up, seen from outside: right x up = normal, so
/// that the face's corners run counter-clockwise seen from outside).
pub struct Face {
    pub normal: [f32; 3],
    pub right: [f32; 3],
    pub up: [f32; 3],
    /// The face's colour (RGB, UNORM8).
    pub colour: [u8; 3],
}

pub const FACES: [Face; 6] = [
    Face {
        normal: [1.0, 0.0, 0.0],
        right: [0.0, 0.0, -1.0],
        up: [0.0, 1.0, 0.0],
        colour: [255, 110, 90],
    },
    Face {
        normal: [-1.0, 0.0, 0.0],
        right: [0.0, 0.0, 1.0],
        up: [0.0, 1.0, 0.0],
        colour: [90, 215, 255],
    },
    Face {
        normal: [0.0, 1.0, 0.0],
        right: [1.0, 0.0, 0.0],
        up: [0.0, 0.0, -1.0],
        colour: [115, 255, 115],
    },
    Face {
        normal: [0.0, -1.0, 0.0],
        right: [1.0, 0.0, 0.0],
        up: [0.0, 0.0, 1.0],
        colour: [255, 115, 240],
    },
    Face {
        normal: [0.0, 0.0, 1.0],
        right: [1.0, 0.0, 0.0],
        up: [0.0, 1.0, 0.0],
        colour: [255, 230, 90],
    },
    Face {
        normal: [0.0, 0.0, -1.0],
        right: [-1.0, 0.0, 0.0],
        up: [0.0, 1.0, 0.0],
        colour: [115, 140, 255],
    },
];

/// A vertex: position, normal, texture coordinates, face colour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vertex {
    pub position: [f32; 3],
    pub normal: [f32; 3],
    pub uv: [f32; 2],
    pub colour: [u8; 3],
}

/// Bytes a vertex takes in the vertex buffer.
pub const VERTEX_BYTES: u32 = 36;

/// Corner `k` (top left, top right, bottom right, bottom left) of each
/// face: 24 vertices.
pub fn vertices() -> [Vertex; 24] {
    const UV: [[f32; 2]; 4] = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
    core::array::from_fn(|i| {
        let (f, uv) = (&FACES[i / 4], UV[i % 4]);
        let (a, b) = (2.0 * uv[0] - 1.0, 1.0 - 2.0 * uv[1]);
        Vertex {
            position: core::array::from_fn(|c| f.normal[c] + a * f.right[c] + b * f.up[c]),
            normal: f.normal,
            uv,
            colour: f.colour,
        }
    })
}

/// Two triangles a face, counter-clockwise seen from outside: (top left,
/// bottom left, bottom right) and (top left, bottom right, top right).
pub fn indices() -> [u16; 36] {
    core::array::from_fn(|i| {
        let face = (i / 6) as u16;
        4 * face + [0, 3, 2, 0, 2, 1][i % 6]
    })
}

/// The vertex buffer: per vertex the position and normal (R32G32B32_FLOAT
/// each), u and v (R32G32_FLOAT), the colour (R8G8B8A8_UNORM).
pub fn vertex_bytes() -> Vec<u8> {
    let mut out = Vec::with_capacity(24 * VERTEX_BYTES as usize);
    for v in vertices() {
        for f in v.position.iter().chain(&v.normal).chain(&v.uv) {
            out.extend_from_slice(&f.to_le_bytes());
        }
        out.extend_from_slice(&[v.colour[0], v.colour[1], v.colour[2], 255]);
    }
    out
}

/// The texture: TEXTURE x TEXTURE texels, a checker of CHECKS x CHECKS
/// squares, light in the top-left one.
pub const TEXTURE: u32 = 64;
pub const CHECKS: u32 = 8;
pub const LIGHT_TEXEL: u8 = 235;
pub const DARK_TEXEL: u8 = 80;

/// The grey level of texel (x, y).
pub fn texel(x: u32, y: u32) -> u8 {
    let side = TEXTURE / CHECKS;
    if (x / side + y / side).is_multiple_of(2) {
        LIGHT_TEXEL
    } else {
        DARK_TEXEL
    }
}

/// The picture's background (B8G8R8A8).
pub const BACKGROUND: [u8; 4] = [0x40, 0x20, 0x18, 0xff];

/// What a draw does with depth and faces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Depth test LESS against a depth buffer cleared to 1.0.
    pub depth_test: bool,
    /// Cull faces turned away from the viewer.
    pub cull_back: bool,
}

impl Options {
    pub const SOLID: Options = Options {
        depth_test: true,
        cull_back: true,
    };
}

/// The cube's GPU objects, made once and drawn every frame into a
/// `width` x `height` B8G8R8A8 target with a D32_FLOAT depth buffer.
pub struct Cube<'a> {
    pub target: Surface<'a>,
    depth: DepthBuffer<'a>,
    texture: Surface<'a>,
    vertices: Buffer<'a>,
    indices: Buffer<'a>,
    vs: Kernel<'a>,
    ps: Kernel<'a>,
}

impl<'a> Cube<'a> {
    /// Assembles the shaders for the renderer's generation (Gen6 or Gen7),
    /// loads them, uploads the geometry and the texture.
    pub fn new<P: Platform>(
        r: &mut Renderer<'a>,
        gpu: &mut Gpu<'a, P>,
        width: u32,
        height: u32,
    ) -> Result<Cube<'a>, ComputeError> {
        let generation = gpu.generation();
        let (isa, vs, ps) = match generation {
            Generation::Gen6 => (IsaGen::Gen6, VS_GEN6, PS_GEN6),
            Generation::Gen7 => (IsaGen::Gen7, VS_GEN7, PS_GEN7),
            _ => {
                return Err(ComputeError::Unsupported {
                    generation,
                    what: "the cube's shaders (Gen6 and Gen7 only)",
                });
            }
        };
        let vs = text::assemble(isa, vs)
            .map_err(|_| ComputeError::Invalid("the cube's vertex shader does not assemble"))?;
        let ps = text::assemble(isa, ps)
            .map_err(|_| ComputeError::Invalid("the cube's pixel shader does not assemble"))?;
        let vs = r.compute_mut().load_kernel(gpu, &KernelDesc::new(&vs))?;
        let ps = r.compute_mut().load_kernel(gpu, &KernelDesc::new(&ps))?;
        let target = r.compute().create_surface_2d(
            gpu,
            width,
            height,
            Format::B8G8R8A8Unorm,
            Tiling::Linear,
        )?;
        let depth = r.create_depth_buffer(gpu, width, height, DepthFormat::D32Float)?;
        let texture = r.compute().create_surface_2d(
            gpu,
            TEXTURE,
            TEXTURE,
            Format::B8G8R8A8Unorm,
            Tiling::Linear,
        )?;
        let texels: Vec<u8> = (0..TEXTURE * TEXTURE)
            .flat_map(|i| {
                let g = texel(i % TEXTURE, i / TEXTURE);
                [g, g, g, 255]
            })
            .collect();
        texture.write_pixels(Swizzle::None, &texels)?;
        let vertices = r.compute().upload_buffer(gpu, &vertex_bytes())?;
        let index_bytes: Vec<u8> = indices().iter().flat_map(|i| i.to_le_bytes()).collect();
        let indices = r.compute().upload_buffer(gpu, &index_bytes)?;
        Ok(Cube {
            target,
            depth,
            texture,
            vertices,
            indices,
            vs,
            ps,
        })
    }

    /// Clears the target and the depth buffer and submits the draw of the
    /// cube in `pose`; wait for the fence before reading the target.
    pub fn draw<P: Platform>(
        &self,
        r: &Renderer<'a>,
        gpu: &mut Gpu<'a, P>,
        pose: Pose,
        options: Options,
    ) -> Result<Fence, ComputeError> {
        let (w, h) = (self.target.width(), self.target.height());
        let background: Vec<u8> = (0..w * h).flat_map(|_| BACKGROUND).collect();
        self.target.write_pixels(Swizzle::None, &background)?;
        self.depth.clear(1.0, 0)?;
        let constants = pose.constants(w as f32 / h as f32);
        let buffers = [VertexBuffer {
            buffer: &self.vertices,
            pitch: VERTEX_BYTES,
            step: Step::PerVertex,
        }];
        let xyz1 = [
            Component::Source,
            Component::Source,
            Component::Source,
            Component::OneFloat,
        ];
        let elements = [
            VertexElement {
                components: xyz1,
                ..VertexElement::new(0, 0, VertexFormat::R32G32B32Float)
            },
            VertexElement {
                components: xyz1,
                ..VertexElement::new(0, 12, VertexFormat::R32G32B32Float)
            },
            VertexElement {
                components: [
                    Component::Source,
                    Component::Source,
                    Component::Zero,
                    Component::OneFloat,
                ],
                ..VertexElement::new(0, 24, VertexFormat::R32G32Float)
            },
            VertexElement::new(0, 32, VertexFormat::R8G8B8A8Unorm),
        ];
        let textures = [(1, Resource::Surface(&self.texture))];
        let samplers = [(
            0,
            Sampler::new()
                .with_filter(Filter::Nearest)
                .with_address(AddressMode::Clamp),
        )];
        let draw = Draw {
            target: &self.target,
            depth: Some(&self.depth),
            vertex_buffers: &buffers,
            elements: &elements,
            index: Some(IndexBuffer {
                buffer: &self.indices,
                format: IndexFormat::U16,
                cut: false,
            }),
            topology: Topology::TriangleList,
            first_vertex: 0,
            vertex_count: 36,
            first_instance: 0,
            instance_count: 1,
            base_vertex: 0,
            vs: Some(VertexShader {
                kernel: &self.vs,
                // After R0 and the three registers of push constants.
                grf_start: 4,
                inputs: 4,
                // Header, position, (u, v, light, 1), colour.
                outputs: 4,
                constants: &constants,
            }),
            gs: None,
            stream_output: None,
            ps: PixelShader {
                simd8: None,
                simd16: Some(PixelKernel {
                    kernel: &self.ps,
                    grf_start: 6,
                }),
                barycentrics: Barycentrics::PERSPECTIVE_PIXEL,
                uses_source_depth: false,
                uses_source_w: false,
                kills_pixels: false,
                computes_depth: false,
                constants: &[],
            },
            attributes: 2,
            flat: 0,
            viewport: Viewport {
                x: 0.0,
                y: 0.0,
                width: w as f32,
                height: h as f32,
                min_depth: 0.0,
                max_depth: 1.0,
            },
            raster: Raster {
                cull: if options.cull_back {
                    Cull::Back
                } else {
                    Cull::None
                },
                // Counter-clockwise seen from outside stays counter-
                // clockwise on the screen (the viewport's y flip turns the
                // numbers, not the picture).
                front_ccw: true,
                ..Raster::default()
            },
            blend: Blend::default(),
            depth_stencil: DepthStencil {
                depth_test: options.depth_test.then_some(Compare::Less),
                depth_write: options.depth_test,
                stencil: None,
            },
            textures: &textures,
            samplers: &samplers,
        };
        r.draw(gpu, &draw)
    }

    /// The target's pixels (B8G8R8A8), once the draw's fence completed.
    pub fn pixels(&self) -> Result<Vec<u8>, ComputeError> {
        let mut out = alloc::vec![0u8; (self.target.width() * self.target.height() * 4) as usize];
        self.target.read_pixels(Swizzle::None, &mut out)?;
        Ok(out)
    }

    /// Gives the target, depth buffer, texture, buffers and kernels back
    /// (once no submitted work uses them).
    pub fn free<P: Platform>(self, gpu: &mut Gpu<'a, P>) {
        Compute::free_surface(gpu, self.target);
        Compute::free_surface(gpu, self.texture);
        Renderer::free_depth_buffer(gpu, self.depth);
        Compute::free_buffer(gpu, self.vertices);
        Compute::free_buffer(gpu, self.indices);
        Compute::free_kernel(gpu, self.vs);
        Compute::free_kernel(gpu, self.ps);
    }
}
