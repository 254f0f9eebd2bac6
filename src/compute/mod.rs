//! Compute on the EUs: kernel upload, buffers and surfaces, and dispatch
//! through the media pipeline (965, G45, SNB: MEDIA_OBJECT; SNB and Ivy
//! Bridge: MEDIA_OBJECT_WALKER), the GPGPU pipeline (Ivy Bridge:
//! GPGPU_WALKER) or DG2's compute pipeline (Gen12.5: COMPUTE_WALKER, see
//! `state/gen12_5.rs` for the thread payload).
//!
//! On Gen12.5 a [`Compute`] owns a context of its own: its kernels, buffers,
//! surfaces and batches live in that context's PPGTT (system memory, or
//! local memory after [`Compute::set_placement`]), and its dispatches run on
//! the compute engine (CCS), or the render engine where there is none.
//!
//! ```ignore
//! let mut cx = Compute::new(&mut gpu)?;
//! let out = cx.create_buffer(&mut gpu, 4096)?;
//! let k = cx.load_kernel(&mut gpu, &KernelDesc { bindings: &[0], ..KernelDesc::new(binary) })?;
//! let fence = cx.dispatch(&mut gpu, &k, &Dispatch {
//!     threads: Threads::Objects { count: 4, inline: &[0, 1, 2, 3] },
//!     curbe: &[],
//!     bindings: &[(0, Resource::Buffer(&out))],
//!     samplers: &[],
//! })?;
//! gpu.wait(fence, 1_000_000)?;
//! out.read(0, &mut bytes)?;
//! ```
//!
//! The software GPU and hardware get the same batches; nothing here asks
//! which one is present. A batch carries its own state (binding table,
//! SURFACE_STATEs, interface descriptor, constants) and is freed by the
//! submission layer when its fence completes; kernels live in instruction
//! heaps owned by [`Compute`].

pub mod dispatch;
pub mod error;
pub mod kernel;
mod memory;
mod mip;
pub mod sampler;
pub mod selftest;
pub(crate) mod state;
pub mod surface;

use alloc::vec::Vec;

use baregpu_hal::Generation;

pub use dispatch::{
    Dispatch, IndirectPointer, MAX_BINDING_INDEX, Threads, max_curbe_bytes, right_mask,
};
pub use error::ComputeError;
pub use kernel::{Kernel, KernelDesc, LocalIds, PREFETCH_PAD, Simd};
pub use mip::MAX_LEVELS;
pub use sampler::{AddressMode, Filter, MAX_SAMPLERS, MipFilter, Sampler};
pub use surface::{Buffer, Format, MAX_BUFFER_BYTES, Resource, Surface};

pub use crate::gtt::tiling::{Swizzle, Tiling};

use crate::gtt::tiling;
use crate::gtt::{Caching, GfxAddr, tile4};
use crate::platform::Platform;
use crate::submit::{Batch, ContextId, EngineId, Fence, Gpu, Placement};
use error::check_max;
use kernel::{InstructionHeap, Scratch};
use memory::Backing;

/// Compute state of one GPU: its instruction heaps and the engine that runs
/// the media and GPGPU pipelines. It owns the heaps: their memory goes back
/// to the platform when it is dropped (or given to [`Compute::destroy`]).
#[derive(Debug)]
pub struct Compute<'a> {
    generation: Generation,
    engine: EngineId,
    heaps: Vec<InstructionHeap<'a>>,
    /// Gen12.5: the context whose PPGTT holds everything (see the module doc).
    context: Option<ContextId>,
    /// Where new buffers and surfaces go.
    placement: Placement,
}

impl<'a> Compute<'a> {
    /// Compute for the GPU `gpu` drives (965, G45, SNB, Ivy Bridge or DG2).
    pub fn new<P: Platform>(gpu: &mut Gpu<'a, P>) -> Result<Self, ComputeError> {
        let generation = gpu.generation();
        if kernel::isa_gen(generation).is_none() {
            return Err(ComputeError::Unsupported {
                generation,
                what: "compute",
            });
        }
        let xe = kernel::is_xe(generation);
        // The media and GPGPU pipelines hang off the render command
        // streamer; DG2's compute pipeline is also on its compute engines
        // (hal gen12.5 compute.toml: COMPUTE_WALKER engines render, compute).
        let engine = xe
            .then(|| gpu.engine_named("compute"))
            .flatten()
            .or_else(|| gpu.engine_named("render"))
            .ok_or(ComputeError::Unsupported {
                generation,
                what: "a render engine",
            })?;
        let context = if xe {
            Some(gpu.create_context()?)
        } else {
            None
        };
        Ok(Compute {
            generation,
            engine,
            heaps: Vec::new(),
            context,
            placement: Placement::System,
        })
    }

    /// Where the buffers and surfaces made from now on go: system memory
    /// (the default) or, on Gen12.5 with local memory, local memory
    /// (kernels and batches stay in system memory).
    pub fn set_placement(&mut self, placement: Placement) -> Result<(), ComputeError> {
        if placement == Placement::Local && self.context.is_none() {
            return Err(ComputeError::Unsupported {
                generation: self.generation,
                what: "local memory",
            });
        }
        self.placement = placement;
        Ok(())
    }

    /// The context the dispatches run in (Gen12.5), `None` on the older
    /// generations (GGTT batches).
    pub fn context(&self) -> Option<ContextId> {
        self.context
    }

    pub fn generation(&self) -> Generation {
        self.generation
    }

    /// The engine dispatches are submitted to.
    pub fn engine(&self) -> EngineId {
        self.engine
    }

    /// A zeroed buffer of `size` bytes, mapped in the GGTT and visible to the CPU.
    pub fn create_buffer<P: Platform>(
        &self,
        gpu: &mut Gpu<'a, P>,
        size: usize,
    ) -> Result<Buffer<'a>, ComputeError> {
        if size == 0 {
            return Err(ComputeError::Invalid("empty buffer"));
        }
        check_max("buffer bytes", size as u64, MAX_BUFFER_BYTES as u64)?;
        let memory = Backing::new(gpu, self.context, self.placement, size)?;
        Ok(Buffer { memory, size })
    }

    /// A buffer holding a copy of `data`.
    pub fn upload_buffer<P: Platform>(
        &self,
        gpu: &mut Gpu<'a, P>,
        data: &[u8],
    ) -> Result<Buffer<'a>, ComputeError> {
        let buffer = self.create_buffer(gpu, data.len())?;
        buffer.write(0, data)?;
        Ok(buffer)
    }

    /// A zeroed 2D surface. The pitch is the smallest valid one for the
    /// tiling ([`tiling::align_pitch`]); tiled surfaces occupy whole tile rows.
    pub fn create_surface_2d<P: Platform>(
        &self,
        gpu: &mut Gpu<'a, P>,
        width: u32,
        height: u32,
        format: Format,
        tiling: Tiling,
    ) -> Result<Surface<'a>, ComputeError> {
        self.create_texture_2d(gpu, width, height, 1, format, tiling)
    }

    /// A zeroed 2D texture with `levels` mip levels (1 up to the 1x1 level,
    /// at most [`MAX_LEVELS`]), laid out as the sampler reads them (see
    /// `mip.rs`); fill each with [`Surface::write_level`]. Textures with
    /// more than one level are linear.
    pub fn create_texture_2d<P: Platform>(
        &self,
        gpu: &mut Gpu<'a, P>,
        width: u32,
        height: u32,
        levels: u32,
        format: Format,
        tiling: Tiling,
    ) -> Result<Surface<'a>, ComputeError> {
        if width == 0 || height == 0 {
            return Err(ComputeError::Invalid("empty surface"));
        }
        check_max(
            "surface width",
            width as u64,
            surface::MAX_SURFACE_SIDE as u64,
        )?;
        check_max(
            "surface height",
            height as u64,
            surface::MAX_SURFACE_SIDE as u64,
        )?;
        let chain = mip::MipChain::new(width, height, levels)?;
        if levels > 1 && tiling != Tiling::Linear {
            return Err(ComputeError::Unsupported {
                generation: self.generation,
                what: "tiled mipmapped textures (mip chains are linear)",
            });
        }
        let (texels, rows) = chain.extent();
        let row = texels as usize * format.bytes_per_pixel() as usize;
        let pitch = tiling::align_pitch(tiling, row).ok_or(ComputeError::OutOfRange {
            what: "surface row bytes",
            value: row as u64,
            max: tiling::MAX_PITCH as u64,
        })?;
        if tiling != Tiling::Linear && kernel::is_xe(self.generation) {
            return Err(ComputeError::Unsupported {
                generation: self.generation,
                what: "X and Y tiling (DG2 surfaces are linear or Tile4: create_surface_tile4)",
            });
        }
        let size = tiling::surface_size(tiling, pitch, rows as usize);
        let mut memory = Backing::new(gpu, self.context, self.placement, size)?;
        if tiling != Tiling::Linear && matches!(self.generation, Generation::Gen4 | Generation::G45)
        {
            // 965/G45: "Tiled surfaces can only be mapped to Main Memory"
            // (000 line 3282): uncached PTEs instead of snooped ones.
            if let Backing::Ggtt {
                memory: dma,
                mapping,
            } = memory
            {
                let mmio = gpu.mmio();
                let mapped = gpu
                    .ggtt()
                    .and_then(|g| Ok(g.map(mmio, &dma.region(), Caching::Uncached)?));
                match mapped {
                    Ok(uncached) => {
                        gpu.unmap(mapping);
                        memory = Backing::Ggtt {
                            memory: dma,
                            mapping: uncached,
                        };
                    }
                    Err(e) => {
                        // The memory goes back as `dma` drops.
                        gpu.unmap(mapping);
                        return Err(ComputeError::Gpu(e));
                    }
                }
            }
        }
        Ok(Surface {
            memory,
            width,
            height,
            pitch: pitch as u32,
            format,
            tiling,
            levels,
            rows,
            tile4: false,
        })
    }

    /// A zeroed 2D surface in DG2's Tile4 layout (Gen12.5): the pitch is
    /// the row rounded up to whole 128-byte tiles, the memory whole tile
    /// rows of 32 (`gtt::tile4`; Mesa isl_tiling_get_info, ISL_TILING_4).
    pub fn create_surface_tile4<P: Platform>(
        &self,
        gpu: &mut Gpu<'a, P>,
        width: u32,
        height: u32,
        format: Format,
    ) -> Result<Surface<'a>, ComputeError> {
        if !kernel::is_xe(self.generation) {
            return Err(ComputeError::Unsupported {
                generation: self.generation,
                what: "Tile4 surfaces (DG2 and later)",
            });
        }
        if width == 0 || height == 0 {
            return Err(ComputeError::Invalid("empty surface"));
        }
        check_max(
            "surface width",
            width as u64,
            surface::MAX_SURFACE_SIDE as u64,
        )?;
        check_max(
            "surface height",
            height as u64,
            surface::MAX_SURFACE_SIDE as u64,
        )?;
        let row = width as usize * format.bytes_per_pixel() as usize;
        let pitch = row.next_multiple_of(tile4::TILE4_WIDTH);
        let size = tile4::tile4_size(pitch, height as usize);
        let memory = Backing::new(gpu, self.context, self.placement, size)?;
        Ok(Surface {
            memory,
            width,
            height,
            pitch: pitch as u32,
            format,
            tiling: Tiling::Linear,
            levels: 1,
            rows: height,
            tile4: true,
        })
    }

    /// Checks `desc` (the binary decodes, ends its threads, and asks for
    /// what the generation has), then copies it into instruction memory,
    /// 64-byte aligned and followed by the prefetch padding.
    pub fn load_kernel<P: Platform>(
        &mut self,
        gpu: &mut Gpu<'a, P>,
        desc: &KernelDesc<'_>,
    ) -> Result<Kernel<'a>, ComputeError> {
        let generation = self.generation;
        let instructions = kernel::validate(generation, desc)?;
        // Last of the checks: the scratch size, as it is encoded.
        let scratch = match state::scratch_code(generation, desc.scratch_bytes)? {
            None => None,
            Some((encoded, per_thread)) => {
                let bytes = per_thread as usize * state::max_threads(generation) as usize;
                let memory = Backing::new(gpu, self.context, Placement::System, bytes)?;
                Some(Scratch { memory, encoded })
            }
        };
        let (index, at) = match kernel::upload(gpu, self.context, &mut self.heaps, desc.binary) {
            Ok(placed) => placed,
            Err(e) => {
                // Never used.
                if let Some(s) = scratch {
                    s.memory.release(gpu);
                }
                return Err(e);
            }
        };
        let heap = &self.heaps[index];
        let heap_base = heap.memory.gfx();
        Ok(Kernel {
            generation,
            gfx: GfxAddr(heap_base.0 + at as u64),
            heap_base,
            heap_end: GfxAddr(heap_base.0 + heap.size() as u64),
            len: desc.binary.len(),
            instructions,
            simd: desc.simd,
            grf_registers: desc.grf_registers,
            curbe_bytes: desc.curbe_bytes,
            bindings: desc.bindings.to_vec(),
            samplers: desc.samplers.to_vec(),
            barriers: desc.barriers,
            slm_bytes: desc.slm_bytes,
            single_program_flow: desc.single_program_flow,
            local_ids: desc.local_ids,
            entry: desc.entry,
            scratch,
        })
    }

    /// Builds the batch of a dispatch without submitting it (to inspect it,
    /// or to submit it later with [`Gpu::submit`] on [`Compute::engine`]).
    pub fn record<P: Platform>(
        &self,
        gpu: &mut Gpu<'a, P>,
        kernel: &Kernel<'_>,
        dispatch: &Dispatch<'_>,
    ) -> Result<Batch<'a>, ComputeError> {
        let plan = dispatch::plan(self.generation, kernel, dispatch)?;
        dispatch::build(gpu, self.generation, self.context, &plan)
    }

    /// Builds and submits a dispatch; the fence completes when its threads
    /// have run and their writes are flushed.
    pub fn dispatch<P: Platform>(
        &self,
        gpu: &mut Gpu<'a, P>,
        kernel: &Kernel<'_>,
        dispatch: &Dispatch<'_>,
    ) -> Result<Fence, ComputeError> {
        let batch = self.record(gpu, kernel, dispatch)?;
        Ok(gpu.submit(self.engine, batch)?)
    }

    /// Unmaps a buffer from the GGTT and drops it (its memory goes back to
    /// the platform). Dropping it alone gives the memory back too, but keeps
    /// its GGTT range in use. Call it once no submitted work uses the buffer.
    pub fn free_buffer<P: Platform>(gpu: &mut Gpu<'a, P>, buffer: Buffer<'a>) {
        buffer.memory.release(gpu);
    }

    /// Unmaps a surface and drops it, as [`Compute::free_buffer`].
    pub fn free_surface<P: Platform>(gpu: &mut Gpu<'a, P>, surface: Surface<'a>) {
        surface.memory.release(gpu);
    }

    /// Unmaps and drops a kernel's scratch space (its code stays in the heap
    /// until the `Compute` goes), as [`Compute::free_buffer`].
    pub fn free_kernel<P: Platform>(gpu: &mut Gpu<'a, P>, kernel: Kernel<'a>) {
        if let Some(s) = kernel.scratch {
            s.memory.release(gpu);
        }
    }

    /// Unmaps the instruction heaps and drops them (and on Gen12.5 destroys
    /// the context; its buffers must be freed first). Call it once no
    /// submitted work runs any kernel loaded here.
    pub fn destroy<P: Platform>(self, gpu: &mut Gpu<'a, P>) {
        for h in self.heaps {
            h.memory.release(gpu);
        }
        if let Some(ctx) = self.context {
            // Nothing of it runs any more (the caller's promise); a refusal
            // leaves the context to the Gpu, which frees it when it goes.
            let _ = gpu.destroy_context(ctx);
        }
    }
}
