//! The demo's DG2 (Gen12.5) part: a second software GPU modelling DG2 runs
//! the same submission work as the Gen7 one (`run_work`), the blitter's
//! picture through a Tile4 surface, and the Mandelbrot set
//! (kernels/mandelbrot_xehpg.asm) through the driver's compute path
//! (`baregpu::compute::Compute`, which builds the COMPUTE_WALKER batch), as
//! the Gen7 kernel goes through it with GPGPU_WALKER.

use alloc::vec;
use alloc::vec::Vec;

use baregpu::blit::dg2::{self as blit, Layout, Rect, Surface};
use baregpu::compute::{
    Buffer as ComputeBuffer, Compute, ComputeError, Dispatch, IndirectPointer, KernelDesc,
    LocalIds, Simd, Threads,
};
use baregpu::gtt::tile4::{tile4_size, tile4_to_linear};
use baregpu::hal::Generation;
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

/// The memory a buffer's placement names, as the demo prints it.
pub fn memory_name(placement: Placement) -> &'static str {
    match placement {
        Placement::Local => "local",
        _ => "system",
    }
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
        memory_name(tiled.placement()),
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
/// of 16) of the Mandelbrot picture, and where the output buffer was
/// (local memory when the GPU has it): kernels/mandelbrot_xehpg.asm
/// assembled here, loaded and dispatched by the driver's compute path
/// (`Compute`: one COMPUTE_WALKER over groups of one SIMD16 thread, the
/// local X IDs in r1), the parameters and the output's address in the
/// inline data (r2, laid out in the kernel's header comment).
pub fn mandelbrot<P: Platform>(
    gpu: &mut Gpu<'_, P>,
    width: u32,
    height: u32,
    view: [f32; 4],
    limit: u32,
) -> Result<(Vec<u32>, Placement), ComputeError> {
    let binary = text::assemble(IsaGen::Gen12_5, SOURCE)
        .map_err(|_| ComputeError::Invalid("the Xe-HPG Mandelbrot kernel does not assemble"))?;
    if !width.is_multiple_of(16) || width == 0 || height == 0 {
        return Err(ComputeError::Invalid(
            "the picture is not whole SIMD16 threads",
        ));
    }
    // The kernel reads the row pitch as a word.
    let pitch = width * 4;
    if pitch > 0xffff {
        return Err(ComputeError::OutOfRange {
            what: "Mandelbrot row pitch bytes",
            value: u64::from(pitch),
            max: 0xffff,
        });
    }
    let bytes = pitch as usize * height as usize;
    let mut cx = Compute::new(gpu)?;
    // Local memory when the GPU has it, else system memory.
    let out = match cx
        .set_placement(Placement::Local)
        .and_then(|()| cx.create_buffer(gpu, bytes))
    {
        Ok(out) => out,
        Err(_) => match cx
            .set_placement(Placement::System)
            .and_then(|()| cx.create_buffer(gpu, bytes))
        {
            Ok(out) => out,
            Err(e) => {
                cx.destroy(gpu);
                return Err(e);
            }
        },
    };
    let counts = dispatch(gpu, &mut cx, &binary, &out, [width, height], view, limit);
    let placement = out.placement();
    Compute::free_buffer(gpu, out);
    cx.destroy(gpu);
    Ok((counts?, placement))
}

/// Loads the kernel, runs it over the picture into `out` and reads the
/// counts back.
fn dispatch<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    cx: &mut Compute<'a>,
    binary: &[u8],
    out: &ComputeBuffer<'a>,
    [width, height]: [u32; 2],
    view: [f32; 4],
    limit: u32,
) -> Result<Vec<u32>, ComputeError> {
    let kernel = cx.load_kernel(
        gpu,
        &KernelDesc {
            simd: Simd::Simd16,
            local_ids: LocalIds::X,
            ..KernelDesc::new(binary)
        },
    )?;
    // The kernel's inline data: x0, y0, dx, dy (floats), the iteration
    // limit, the output's address (low, high dword), its row pitch.
    let [x0, y0, w, h] = view;
    let addr = out.gfx().0;
    let inline = [
        x0.to_bits(),
        y0.to_bits(),
        (w / width as f32).to_bits(),
        (h / height as f32).to_bits(),
        limit,
        addr as u32,
        (addr >> 32) as u32,
        width * 4,
    ];
    let fence = cx.dispatch(
        gpu,
        &kernel,
        &Dispatch {
            threads: Threads::Compute {
                groups: [width / 16, height, 1],
                group_size: [16, 1, 1],
                inline: &inline,
                indirect: &[],
                pointer: IndirectPointer::InlineQword0,
            },
            curbe: &[],
            bindings: &[],
            samplers: &[],
        },
    );
    let waited = fence.and_then(|f| Ok(gpu.wait(f, 120_000_000)?));
    // No submitted work uses the kernel any more.
    Compute::free_kernel(gpu, kernel);
    waited?;
    let mut bytes = vec![0u8; out.size()];
    out.read(0, &mut bytes)?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}
