//! The 3D pipeline for OS code: vertex input, vertex and pixel shaders
//! (EU binaries written with the `baregpu-isa` toolkit), and the
//! fixed-function state, drawn into a render target (with an optional depth
//! buffer) by one batch per draw.
//!
//! ```ignore
//! let mut r = Renderer::new(&mut gpu)?;
//! let target = r.compute().create_surface_2d(&mut gpu, 64, 64, Format::B8G8R8A8Unorm, Tiling::Linear)?;
//! let vb = r.compute().upload_buffer(&mut gpu, &vertices)?;
//! let ps = r.compute_mut().load_kernel(&mut gpu, &KernelDesc::new(&ps_binary))?;
//! let fence = r.draw(&mut gpu, &Draw { target: &target, ..., ps: PixelShader { simd16: Some(PixelKernel { kernel: &ps, grf_start: 6 }), .. } })?;
//! gpu.wait(fence, 1_000_000)?;
//! ```
//!
//! Sandy Bridge (Gen6) and Ivy Bridge (Gen7) are programmed; other
//! generations are refused with [`ComputeError::Unsupported`]. The software
//! GPU draws both generations' batches; what it does not model stops the
//! draw with the feature named. Every value is checked against its
//! field before anything is submitted; errors are [`ComputeError`]s (the
//! compute path's, as both build batches the same way).
//!
//! A draw may add a geometry shader, stream output (Ivy Bridge's SOL
//! unit, or Sandy Bridge's GS SVB writes) and multisampling
//! (`Raster::multisample`, resolved on the CPU by `Samples::resolve`).
//!
//! Files: `desc` (the draw's parts), `plan` (checks and the generation-
//! neutral plan), `gen6` (Sandy Bridge's packets in the manual's order),
//! `gen7` (Ivy Bridge's, in Linux's order), `shared` (what both build alike).

pub mod desc;
mod gen6;
mod gen7;
mod plan;
mod shared;

use baregpu_hal::Generation;

pub use desc::*;

use crate::compute::dispatch::build_batch;
use crate::compute::{Compute, ComputeError};
use crate::gtt::tiling::{self, Tiling};
use crate::platform::Platform;
use crate::submit::{Batch, Fence, Gpu};

/// 3D drawing on one GPU. It owns a [`Compute`] for kernels, buffers and
/// surfaces, which the draws share.
#[derive(Debug)]
pub struct Renderer<'a> {
    compute: Compute<'a>,
}

impl<'a> Renderer<'a> {
    /// 3D for the GPU `gpu` drives.
    pub fn new<P: Platform>(gpu: &mut Gpu<'a, P>) -> Result<Self, ComputeError> {
        let generation = gpu.generation();
        if !matches!(generation, Generation::Gen6 | Generation::Gen7) {
            return Err(ComputeError::Unsupported {
                generation,
                what: "the 3D pipeline (Sandy Bridge and Ivy Bridge only)",
            });
        }
        Ok(Renderer {
            compute: Compute::new(gpu)?,
        })
    }

    /// Buffers, surfaces and kernels.
    pub fn compute(&self) -> &Compute<'a> {
        &self.compute
    }

    pub fn compute_mut(&mut self) -> &mut Compute<'a> {
        &mut self.compute
    }

    /// A zeroed Y-tiled depth buffer (Sandy Bridge has no linear depth:
    /// 003 lines 42619-42622; Ivy Bridge's is always tiled Y).
    pub fn create_depth_buffer<P: Platform>(
        &self,
        gpu: &mut Gpu<'a, P>,
        width: u32,
        height: u32,
        format: DepthFormat,
    ) -> Result<DepthBuffer<'a>, ComputeError> {
        if width == 0 || height == 0 {
            return Err(ComputeError::Invalid("empty depth buffer"));
        }
        plan::check_side(width, height)?;
        let row = (width * format.bytes()) as usize;
        let pitch = tiling::align_pitch(Tiling::Y, row).ok_or(ComputeError::OutOfRange {
            what: "depth buffer row bytes",
            value: row as u64,
            max: tiling::MAX_PITCH as u64,
        })?;
        let size = tiling::surface_size(Tiling::Y, pitch, height as usize);
        let stencil = if self.compute.generation() == Generation::Gen7 && format.has_stencil() {
            // Whole W tiles of 64 x 64 bytes (003 lines 7374-7379).
            let (across, down) = (width.div_ceil(64), height.div_ceil(64));
            let (memory, mapping) = gpu.map_buffer((across * down * 4096) as usize)?;
            Some(SeparateStencil {
                memory,
                mapping,
                pitch: 128 * across,
            })
        } else {
            None
        };
        let (memory, mapping) = match gpu.map_buffer(size) {
            Ok(m) => m,
            Err(e) => {
                if let Some(s) = stencil {
                    gpu.unmap(s.mapping);
                }
                return Err(e.into());
            }
        };
        Ok(DepthBuffer {
            memory,
            mapping,
            width,
            height,
            pitch: pitch as u32,
            format,
            stencil,
        })
    }

    /// Builds the batch of a draw without submitting it.
    pub fn record<P: Platform>(
        &self,
        gpu: &mut Gpu<'a, P>,
        draw: &Draw<'_>,
    ) -> Result<Batch<'a>, ComputeError> {
        let generation = self.compute.generation();
        let plan = plan::plan(generation, draw)?;
        build_batch(gpu, generation, |base, area, cmds| match generation {
            Generation::Gen6 => gen6::record(&plan, draw, base, area, cmds),
            _ => gen7::record(&plan, draw, base, area, cmds),
        })
    }

    /// Builds and submits a draw; the fence completes when its pixels are
    /// written and flushed.
    pub fn draw<P: Platform>(
        &self,
        gpu: &mut Gpu<'a, P>,
        draw: &Draw<'_>,
    ) -> Result<Fence, ComputeError> {
        let batch = self.record(gpu, draw)?;
        Ok(gpu.submit(self.compute.engine(), batch)?)
    }

    /// Unmaps a depth buffer and drops it (once no submitted work uses it).
    pub fn free_depth_buffer<P: Platform>(gpu: &mut Gpu<'a, P>, depth: DepthBuffer<'a>) {
        gpu.unmap(depth.mapping);
        if let Some(s) = depth.stencil {
            gpu.unmap(s.mapping);
        }
    }

    /// Gives the kernels' heaps back (once no submitted work runs them).
    pub fn destroy<P: Platform>(self, gpu: &mut Gpu<'a, P>) {
        self.compute.destroy(gpu);
    }
}
