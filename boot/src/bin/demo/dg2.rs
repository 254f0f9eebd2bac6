//! The demo's DG2 (Gen12.5) part: a second software GPU modelling DG2 runs
//! the same submission work as the Gen7 one (`run_work`), the blitter's
//! picture through a Tile4 surface, and the Mandelbrot set
//! (kernels/mandelbrot_xehpg.asm) under COMPUTE_WALKER.
//!
//! The walker's batch is built here from the hal's typed packets and
//! submitted through the driver's `Gpu` in a context of its own (a TODO
//! until the driver's compute path, `baregpu::compute`, dispatches on
//! Gen12.5: then this goes through `Compute` as the Gen7 kernel does).

use alloc::vec;
use alloc::vec::Vec;

use baregpu::blit::dg2::{self as blit, Layout, Rect, Surface};
use baregpu::compute::ComputeError;
use baregpu::gtt::tile4::{tile4_size, tile4_to_linear};
use baregpu::hal::Generation;
use baregpu::hal::gen12_5::commands::{
    CfeState, ComputeWalker, PipeControl, PipelineSelect, StateBaseAddress,
};
use baregpu::isa::{IsaGen, text};
use baregpu::platform::{LocalMemory, PlatformBus};
use baregpu::submit::{Buffer, Placement};
use baregpu::{ContextId, Gpu, GpuError, Platform};
use baregpu_boot::{BootPlatform, RunningDevice, println};
use baregpu_soft::SoftGpu;

const SOURCE: &str = include_str!("../../../../kernels/mandelbrot_xehpg.asm");

/// The model's local memory behind the driver's BAR2 seam.
struct Bar2<'a>(&'a SoftGpu<PlatformBus<'a, BootPlatform>>);

impl LocalMemory for Bar2<'_> {
    fn local_size(&self) -> u64 {
        self.0.local_memory_size()
    }
    fn read_local(&self, offset: u64, buf: &mut [u8]) -> bool {
        self.0.read_local(offset, buf)
    }
    fn write_local(&self, offset: u64, data: &[u8]) -> bool {
        self.0.write_local(offset, data)
    }
}

/// Brings up a software GPU modelling DG2 and runs the demo's work on it;
/// `gen7` is the Gen7 Mandelbrot's iteration counts, compared with DG2's.
pub fn run(platform: &BootPlatform, gen7: Option<&[u32]>) -> Result<(), ComputeError> {
    const G: Generation = Generation::Gen12_5;
    println!();
    println!("software GPU: {} (DG2) device model", G);
    let soft = SoftGpu::new(G, PlatformBus::new(platform)).map_err(|_| GpuError::Unsupported(G))?;
    let step = || soft.run(256);
    let running = RunningDevice::new(platform, &step);
    let bar = Bar2(&soft);
    let mut gpu = Gpu::with_local_memory(&running, &soft, G, &bar)?;
    super::print_bring_up(&gpu);
    println!(
        "  {} MiB of local memory behind BAR2",
        soft.local_memory_size() >> 20
    );
    super::enable_msi(&mut gpu);
    let counts = super::run_work(&mut gpu)?;
    // DG2's 128 x 96 pixel (x, y) is the Gen7 256 x 192 picture's (2x, 2y).
    if let (Some(dg2), Some(gen7)) = (counts.as_deref(), gen7)
        && gen7.len() == 4 * dg2.len()
    {
        let w = super::MANDELBROT_WIDTH as usize / 2;
        let differ = (0..dg2.len())
            .filter(|&k| dg2[k] != gen7[(k / w) * 2 * (2 * w) + (k % w) * 2])
            .count();
        if differ == 0 {
            println!(
                "  the same iteration counts as the Gen7 kernel's at all {} of these pixels",
                dg2.len()
            );
        } else {
            println!(
                "  differs from the Gen7 kernel's picture at {} of {} pixels",
                differ,
                dg2.len()
            );
        }
    }
    let stats = soft.stats();
    println!(
        "software GPU (DG2) totals: {} commands, {} batches, {} errors, {} engine resets",
        stats.commands, stats.batches, stats.errors, stats.resets
    );
    Ok(())
}

/// A buffer in `ctx`'s PPGTT, in local memory when the GPU has it.
fn local_or_system<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    ctx: ContextId,
    bytes: u64,
) -> Result<Buffer<'a>, GpuError> {
    gpu.context_buffer(ctx, bytes, Placement::Local)
        .or_else(|_| gpu.context_buffer(ctx, bytes, Placement::System))
}

/// The demo's rectangles filled by XY_FAST_COLOR_BLT into a Tile4 surface
/// (local memory), copied by XY_FAST_COPY_BLT to a linear one; the linear
/// copy's bytes (`width` x `height`, `pitch` apart) for the caller to print,
/// after checking the tiled bytes against the CPU's Tile4 helper.
pub fn draw_picture<P: Platform>(
    gpu: &mut Gpu<'_, P>,
    rects: &[(u32, u32, u32, u32, u32)],
    width: u32,
    height: u32,
) -> Result<Vec<u8>, ComputeError> {
    const PITCH: u32 = 128;
    let bad = |_| ComputeError::Invalid("a Tile4 blit does not fit its surface");
    let blitter = gpu
        .blit_engine()
        .ok_or(ComputeError::Invalid("no blitter engine"))?;
    let ctx = gpu.create_context()?;
    let tiled_len = tile4_size(PITCH as usize, height as usize);
    let tiled = local_or_system(gpu, ctx, tiled_len as u64)?;
    let linear = gpu.context_buffer(ctx, u64::from(PITCH * height), Placement::System)?;
    let surface = |b: &Buffer<'_>, layout| Surface {
        gfx: b.gfx(),
        pitch: PITCH,
        layout,
        bytes_per_pixel: 1,
    };
    let (t, l) = (
        surface(&tiled, Layout::Tile4),
        surface(&linear, Layout::Linear),
    );
    let mut b = gpu.new_context_batch(ctx, 4096)?;
    for &(x1, y1, x2, y2, colour) in rects {
        let rect = Rect {
            x: x1,
            y: y1,
            width: x2 - x1,
            height: y2 - y1,
        };
        b.push(&blit::fill(&t, rect, [colour, 0, 0, 0]).map_err(bad)?)?;
    }
    let all = Rect {
        x: 0,
        y: 0,
        width,
        height,
    };
    b.push(&blit::fast_copy(&t, (0, 0), &l, all).map_err(bad)?)?;
    let fence = gpu.submit(blitter, b)?;
    gpu.wait(fence, 1_000_000)?;
    let mut tiled_bytes = vec![0u8; tiled_len];
    let mut bytes = vec![0u8; (PITCH * height) as usize];
    if !tiled.read(0, &mut tiled_bytes) || !linear.read(0, &mut bytes) {
        return Err(ComputeError::Invalid(
            "the blit's surfaces cannot be read back",
        ));
    }
    // The tiled surface, detiled by the CPU, is the blitter's linear copy.
    let mut detiled = vec![0u8; bytes.len()];
    let agree = tile4_to_linear(
        &mut detiled,
        PITCH as usize,
        &tiled_bytes,
        PITCH as usize,
        width as usize,
        height as usize,
    )
    .is_ok()
        && (0..height as usize).all(|y| {
            let row = y * PITCH as usize..y * PITCH as usize + width as usize;
            detiled[row.clone()] == bytes[row]
        });
    println!(
        "  the blitter filled a Tile4 surface in {} memory and copied it to linear memory \
         (the CPU's Tile4 helper {} it):",
        match tiled.placement() {
            Placement::Local => "local",
            _ => "system",
        },
        if agree {
            "agrees with"
        } else {
            "DISAGREES with"
        }
    );
    gpu.free_buffer(tiled);
    gpu.free_buffer(linear);
    gpu.destroy_context(ctx)?;
    Ok(bytes)
}

/// The iteration counts of a `width` x `height` view (`width` a multiple
/// of 16) of the Mandelbrot picture: kernels/mandelbrot_xehpg.asm assembled
/// here, one COMPUTE_WALKER on the compute engine over groups of one SIMD16
/// thread, the parameters and the output's address in the inline data.
///
/// TODO: through `baregpu::compute::Compute` once it dispatches on
/// Gen12.5 (COMPUTE_WALKER); until then the batch is built here.
pub fn mandelbrot<P: Platform>(
    gpu: &mut Gpu<'_, P>,
    width: u32,
    height: u32,
    view: [f32; 4],
    limit: u32,
) -> Result<Vec<u32>, ComputeError> {
    let binary = text::assemble(IsaGen::Gen12_5, SOURCE)
        .map_err(|_| ComputeError::Invalid("the Xe-HPG Mandelbrot kernel does not assemble"))?;
    if !width.is_multiple_of(16) || width == 0 || height == 0 {
        return Err(ComputeError::Invalid(
            "the picture is not whole SIMD16 threads",
        ));
    }
    let compute = gpu
        .engine_named("compute")
        .ok_or(ComputeError::Invalid("no compute engine"))?;
    let ctx = gpu.create_context()?;
    let kernel = gpu.context_buffer(ctx, binary.len() as u64, Placement::System)?;
    let pitch = width * 4;
    let out = local_or_system(gpu, ctx, u64::from(pitch * height))?;
    if !kernel.write(0, &binary) {
        return Err(ComputeError::Invalid("the kernel does not fit its buffer"));
    }
    let [x0, y0, w, h] = view;
    let out_gfx = out.gfx().0;
    let mut b = gpu.new_context_batch(ctx, 4096)?;
    b.push(&PipelineSelect {
        mask_bits: 0x3,
        pipeline_selection: PipelineSelect::PIPELINE_SELECTION_GPGPU,
        ..Default::default()
    })?;
    b.push(&StateBaseAddress {
        instruction_base_address: kernel.gfx().0,
        instruction_base_address_modify_enable: true,
        instruction_buffer_size: kernel.len().div_ceil(4096) as u32,
        instruction_buffer_size_modify_enable: true,
        ..Default::default()
    })?;
    b.push(&CfeState {
        maximum_number_of_threads: 64,
        ..Default::default()
    })?;
    // One SIMD16 thread per group of 16 x 1 x 1 channels: every channel of
    // the thread enabled (004 DW5 Execution Mask), the local X IDs in r1.
    b.push(&ComputeWalker {
        simd_size: ComputeWalker::SIMD_SIZE_SIMD16,
        message_simd: ComputeWalker::MESSAGE_SIMD_SIMD16,
        generate_local_id: true,
        emit_local: ComputeWalker::EMIT_LOCAL_EMIT_X,
        emit_inline_parameter: true,
        execution_mask: 0xffff,
        local_x_maximum: 15,
        thread_group_id_x_dimension: width / 16,
        thread_group_id_y_dimension: height,
        thread_group_id_z_dimension: 1,
        interface_descriptor_kernel_start_pointer: 0,
        interface_descriptor_number_of_threads_in_gpgpu_thread_group: 1,
        inline_data0: x0.to_bits(),
        inline_data1: y0.to_bits(),
        inline_data2: (w / width as f32).to_bits(),
        inline_data3: (h / height as f32).to_bits(),
        inline_data4: limit,
        inline_data5: out_gfx as u32,
        inline_data6: (out_gfx >> 32) as u32,
        inline_data7: pitch,
        ..Default::default()
    })?;
    // The stores reach memory before the batch ends (Mesa anv's data cache
    // flush on Gfx12.5: HDC pipeline and untyped data-port cache flushes,
    // with a command streamer stall).
    b.push(&PipeControl {
        command_streamer_stall_enable: true,
        hdc_pipeline_flush: true,
        untyped_data_port_cache_flush: true,
        ..Default::default()
    })?;
    let fence = gpu.submit(compute, b)?;
    gpu.wait(fence, 120_000_000)?;
    let mut bytes = vec![0u8; (pitch * height) as usize];
    if !out.read(0, &mut bytes) {
        return Err(ComputeError::Invalid("the picture cannot be read back"));
    }
    gpu.free_buffer(kernel);
    gpu.free_buffer(out);
    gpu.destroy_context(ctx)?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}
