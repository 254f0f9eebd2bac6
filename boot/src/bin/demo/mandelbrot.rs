//! Real compute through the whole stack: the Mandelbrot kernel
//! (kernels/mandelbrot_gen7.asm, EU assembly) is assembled here in the
//! kernel, loaded by the driver, dispatched with GPGPU_WALKER over a Y-tiled
//! R32_UINT surface, run by the software GPU's EU array, and read back
//! through the CPU tiling helpers.

use alloc::vec;
use alloc::vec::Vec;

use baregpu::Gpu;
use baregpu::compute::{
    Compute, ComputeError, Dispatch, Format, KernelDesc, Resource, Simd, Swizzle, Threads, Tiling,
};
use baregpu::isa::{IsaGen, text};

const SOURCE: &str = include_str!("../../../../kernels/mandelbrot_gen7.asm");

/// Iterations per point.
pub const LIMIT: u32 = 48;

/// The view: x0, y0 (the point of pixel (0, 0)), its width and height.
pub const VIEW: [f32; 4] = [-2.2, -1.2, 3.0, 2.4];

/// The iteration counts of a `width` x `height` view (`width` a multiple of
/// 8) of x in [-2.2, 0.8], y in [-1.2, 1.2] ([`VIEW`]).
pub fn render<P: baregpu::Platform>(
    gpu: &mut Gpu<'_, P>,
    width: u32,
    height: u32,
) -> Result<Vec<u32>, ComputeError> {
    let binary = text::assemble(IsaGen::Gen7, SOURCE)
        .map_err(|_| ComputeError::Invalid("the Mandelbrot kernel does not assemble"))?;
    let mut cx = Compute::new(gpu)?;
    let surface = cx.create_surface_2d(gpu, width, height, Format::R32Uint, Tiling::Y)?;
    let kernel = cx.load_kernel(
        gpu,
        &KernelDesc {
            simd: Simd::Simd8,
            curbe_bytes: 32,
            bindings: &[0],
            ..KernelDesc::new(&binary)
        },
    )?;
    // CURBE (r1): x0, y0, dx, dy, iteration limit.
    let [x0, y0, w, h] = VIEW;
    let mut curbe = [0u8; 32];
    for (i, v) in [x0, y0, w / width as f32, h / height as f32]
        .iter()
        .enumerate()
    {
        curbe[i * 4..i * 4 + 4].copy_from_slice(&v.to_bits().to_le_bytes());
    }
    curbe[16..20].copy_from_slice(&LIMIT.to_le_bytes());
    let bindings = [(0, Resource::Surface(&surface))];
    let fence = cx.dispatch(
        gpu,
        &kernel,
        &Dispatch {
            threads: Threads::Groups {
                groups: [width / 8, height, 1],
                group_size: [8, 1, 1],
            },
            curbe: &curbe,
            bindings: &bindings,
            samplers: &[],
        },
    )?;
    gpu.wait(fence, 120_000_000)?;
    let mut bytes = vec![0u8; (width * height * 4) as usize];
    surface.read_pixels(Swizzle::None, &mut bytes)?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// A colour for an iteration count: black inside, a ramp outside.
pub fn colour(count: u32) -> u32 {
    if count >= LIMIT {
        return 0;
    }
    let t = count * 255 / LIMIT;
    let (r, g, b) = (t * 4 / 3, t, 128 + t / 2);
    r.min(255) << 16 | g.min(255) << 8 | b.min(255)
}
