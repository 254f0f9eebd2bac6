//! The demo kernel (README command 1, and `cargo image` for PCs): boot, probe
//! the PCI bus, open the supported Intel GPU it finds (falling back to the
//! software GPU, with the reason, when there is none or a step fails), and run
//! real work through the driver stack:
//! batches on every engine, a chain of batches, a runaway batch that the
//! driver detects as a hang, reports (decoded) and recovers from, a blitter
//! picture, and a Mandelbrot set computed by an EU kernel on the software
//! GPU's EU array, shown on the serial console and on the screen (the
//! firmware framebuffer, or QEMU's standard VGA); then a textured, lit,
//! depth-tested cube spinning through frames drawn by the 3D pipeline. On
//! the software GPU, a second one modelling DG2 (Gen12.5) runs the same
//! work after it: a Tile4 blitter picture, and the Mandelbrot set by an
//! Xe-HPG kernel dispatched through the driver's compute path
//! (COMPUTE_WALKER).
#![cfg_attr(target_os = "none", no_std, no_main)]

extern crate alloc;

use baregpu::compute::ComputeError;
use baregpu::hal::Generation;
use baregpu::hal::gen7::commands::{XyColorBlt, XySrcCopyBlt};
use baregpu::irq::InterruptMode;
use baregpu::platform::PlatformBus;
use baregpu::probe::HardwareGpu;
use baregpu::{Backend, EngineId, Gpu, GpuError, Platform, ProbeReport};
use baregpu_boot::{BootInfo, BootPlatform, ExitCode, RunningDevice, exit_qemu, println};
use baregpu_soft::SoftGpu;

#[path = "demo/cube.rs"]
mod cube;
#[path = "demo/dg2.rs"]
mod dg2;
// Shared with tests/cube.rs, which uses its maths beyond what the demo does.
#[allow(dead_code)]
#[path = "../../../kernels/cube_scene.rs"]
mod cube_scene;
#[path = "demo/mandelbrot.rs"]
mod mandelbrot;
#[path = "demo/packets.rs"]
mod packets;
#[path = "demo/scanout.rs"]
mod scanout;

use packets::Mi;

baregpu_boot::entry!(demo);

/// The generation the software GPU models in the demo.
const SOFT_GENERATION: Generation = Generation::Gen7;

/// A copy of a buffer's dwords, read after the GPU finished with it.
fn words(buffer: &baregpu::Dma<'_>) -> alloc::vec::Vec<u32> {
    buffer.to_u32s()
}

/// Pixel rows at the top of the screen kept for the Mandelbrot picture.
const PICTURE_HEIGHT: usize = 192;
/// The Mandelbrot picture's width on the screen (Gen7 computes every pixel).
const MANDELBROT_WIDTH: u32 = 256;

fn demo(info: &'static BootInfo) -> ! {
    // The picture goes above the console text on the screen.
    baregpu_boot::screen::reserve_top(PICTURE_HEIGHT);
    println!("baregpu demo kernel");
    println!("boot: {}", info);
    match baregpu_boot::screen::describe() {
        Some((source, w, h)) => println!(
            "screen: {:?} {}x{}, console below the picture",
            source, w, h
        ),
        None => println!("screen: none (serial console only)"),
    }
    let platform = BootPlatform::new();
    if baregpu_boot::interrupts::init(&platform).is_none() {
        println!("interrupts: the local APIC could not be mapped");
    }
    let report = baregpu::probe(&platform);
    println!("{}", report);
    let outcome = match report.backend {
        Backend::Hardware { .. } => match run_hardware(&platform, &report) {
            Ok(()) => Ok(()),
            Err(reason) => {
                println!("hardware GPU: {}", reason);
                println!("falling back to the software GPU");
                run_software_gpus(&platform)
            }
        },
        Backend::Software => run_software_gpus(&platform),
    };
    match outcome {
        Ok(()) => {
            println!("demo finished");
            exit_qemu(ExitCode::Success)
        }
        Err(e) => {
            println!("demo failed: {}", e);
            exit_qemu(ExitCode::Failed)
        }
    }
}

/// The work on the GPU the probe found: open it (map BAR0), bring it up, run the
/// demo. Every step has a timeout inside the driver; the first failure comes back
/// as the line to print before falling back to the software GPU.
fn run_hardware(
    platform: &BootPlatform,
    report: &ProbeReport,
) -> Result<(), alloc::string::String> {
    println!();
    let hw =
        HardwareGpu::open(platform, report).map_err(|e| alloc::format!("cannot open it: {e}"))?;
    let (bar, size) = hw.bar();
    println!(
        "hardware GPU: {} at {}, BAR0 {:#x} ({} MiB) mapped",
        hw.generation(),
        hw.address(),
        bar.0,
        size >> 20
    );
    let mut gpu = Gpu::new(platform, hw.device(), hw.generation())
        .map_err(|e| alloc::format!("bring-up failed: {e}"))?;
    print_bring_up(&gpu);
    enable_msi(&mut gpu);
    let counts = run_work(&mut gpu).map_err(|e| alloc::format!("{e}"))?;
    // The picture on the monitor, through the GPU's own primary plane (the
    // flips' blits are Gen6/Gen7 packets; the 256 x 192 picture is Gen7's).
    if let Some(counts) = counts
        && gpu.generation() == Generation::Gen7
        && let Err(e) = scanout::show(
            &mut gpu,
            None,
            platform,
            &counts,
            256,
            PICTURE_HEIGHT as u32,
        )
    {
        println!("  display: {}", e);
    }
    match cube::spin(&mut gpu, None) {
        Ok(cube::Outcome::Drawn) => {}
        Ok(cube::Outcome::Skipped(reason)) => println!("  cube: {}", reason),
        Err(e) => println!("  cube: {}", e),
    }
    Ok(())
}

/// Interrupts through MSI to this CPU's APIC (the kernel's IDT and APIC,
/// `baregpu_boot::interrupts`); without them the driver polls.
fn enable_msi<P: Platform>(gpu: &mut Gpu<'_, P>) {
    let Some((address, data)) = baregpu_boot::interrupts::msi_message() else {
        println!("interrupts: no local APIC; the driver polls");
        return;
    };
    match gpu.enable_interrupts(InterruptMode::Msi { address, data }) {
        Ok(()) => println!(
            "interrupts: MSI to {:#x}, vector {:#x}; waits return when it arrives",
            address, data
        ),
        // The error's own text starts with "interrupts: ".
        Err(e @ GpuError::Interrupts(_)) => println!("{}; the driver polls", e),
        Err(e) => println!("interrupts: {}; the driver polls", e),
    }
}

/// What bring-up found, one line each.
fn print_bring_up<P: Platform>(gpu: &Gpu<'_, P>) {
    match gpu.generation() {
        Generation::Gen12_5 => println!(
            "bring-up: forcewake, GGTT, execlists with a kernel context and its status page on each engine"
        ),
        _ => println!("bring-up: forcewake, GGTT, status page and 32 KiB ring on each engine"),
    }
    for line in alloc::format!("{}", gpu.bring_up()).lines() {
        println!("  {}", line);
    }
}

/// The demo on a software GPU modelling Ivy Bridge, then on one modelling
/// DG2.
fn run_software_gpus(platform: &BootPlatform) -> Result<(), ComputeError> {
    let gen7 = run_software_gpu(platform)?;
    dg2::run(platform, gen7.as_deref())
}

/// The demo on the software GPU modelling Ivy Bridge; the Mandelbrot's
/// iteration counts when it ran.
fn run_software_gpu(platform: &BootPlatform) -> Result<Option<alloc::vec::Vec<u32>>, ComputeError> {
    println!();
    println!(
        "software GPU: {} ({}) device model",
        SOFT_GENERATION, "Ivy Bridge"
    );
    let soft = SoftGpu::new(SOFT_GENERATION, PlatformBus::new(platform))
        .map_err(|_| GpuError::Unsupported(SOFT_GENERATION))?;
    // While the driver waits, the model runs in slices until its MSI arrives.
    let step = || soft.run(256);
    let running = RunningDevice::new(platform, &step);
    let mut gpu = Gpu::new(&running, &soft, SOFT_GENERATION)?;
    print_bring_up(&gpu);
    enable_msi(&mut gpu);
    let counts = run_work(&mut gpu)?;
    // The picture again, through the modelled display's primary plane.
    if let Some(counts) = &counts
        && let Err(e) = scanout::show(
            &mut gpu,
            Some(&soft),
            &running,
            counts,
            256,
            PICTURE_HEIGHT as u32,
        )
    {
        println!("  display: {}", e);
    }
    spin_cube(&mut gpu, &soft, &running, platform)?;
    let stats = soft.stats();
    println!(
        "software GPU totals: {} commands, {} batches, {} errors, {} engine resets",
        stats.commands, stats.batches, stats.errors, stats.resets
    );
    println!(
        "interrupts: {} MSIs arrived through the IDT",
        baregpu_boot::interrupts::count()
    );
    Ok(counts)
}

/// The spinning cube through the 3D pipeline. When the model of the demo's
/// generation refuses the draw (Ivy Bridge's 3D pipeline is still being
/// modelled), the reason is printed and a second software GPU modelling
/// Sandy Bridge, whose 3D pipeline the model runs, draws it instead.
fn spin_cube<'a>(
    gpu: &mut Gpu<'a, RunningDevice<'a>>,
    soft: &SoftGpu<PlatformBus<'_, BootPlatform>>,
    running: &'a RunningDevice<'a>,
    platform: &BootPlatform,
) -> Result<(), ComputeError> {
    println!(
        "  the 3D pipeline: a textured, lit, depth-tested cube ({} frames)",
        cube::FRAMES
    );
    match cube::spin(gpu, Some((soft, running)))? {
        cube::Outcome::Drawn => Ok(()),
        cube::Outcome::Skipped(reason) => {
            println!("  cube: {}", reason);
            cube::spin_on_sandy_bridge(platform)
        }
    }
}

/// The demo's work, the same on the real GPU and the software one; the
/// Mandelbrot's iteration counts when it ran.
fn run_work<P: Platform>(
    gpu: &mut Gpu<'_, P>,
) -> Result<Option<alloc::vec::Vec<u32>>, ComputeError> {
    let g = gpu.generation();
    let batch_err = |_| GpuError::BringUp("batch");
    let (buf, map) = gpu.map_buffer(4096)?;

    // 1. A batch on each engine: store a value, and the ring START register.
    let engines: alloc::vec::Vec<(&'static str, u32)> = gpu
        .engines()
        .map(|e| (e.name, e.base + e.ring.start))
        .collect();
    for (k, &(name, start_reg)) in engines.iter().enumerate() {
        let mut b = gpu.new_batch(4096)?;
        let slot = map.gfx.0 + 8 * k as u64;
        let value = 0xc0de_0000 | k as u32;
        packets::push(&mut b, g, Mi::Store { gfx: slot, value }).map_err(batch_err)?;
        packets::push(
            &mut b,
            g,
            Mi::StoreRegister {
                register: start_reg,
                gfx: slot + 4,
            },
        )
        .map_err(batch_err)?;
        let fence = gpu.submit(EngineId(k), b)?;
        gpu.wait(fence, 1_000_000)?;
        println!(
            "  {:<8} seqno {}: memory holds {:#010x} and RING_START {:#x}",
            name,
            fence.seqno,
            words(&buf)[2 * k],
            words(&buf)[2 * k + 1]
        );
    }

    // 2. A chain of 64 batches, each storing the square of its index.
    let mut next = None;
    let mut first = None;
    let mut chain = alloc::vec::Vec::new();
    for k in (0..64u32).rev() {
        let mut b = gpu.new_batch(4096)?;
        let store = Mi::Store {
            gfx: map.gfx.0 + 256 + 4 * k as u64,
            value: k * k,
        };
        packets::push(&mut b, g, store).map_err(batch_err)?;
        let tail = match next {
            Some(gfx) => Mi::Start { gfx },
            None => Mi::End,
        };
        packets::push(&mut b, g, tail).map_err(batch_err)?;
        next = Some(b.gfx().0);
        if k == 0 {
            first = Some(b)
        } else {
            chain.push(b)
        }
    }
    if let Some(b) = first {
        let fence = gpu.submit(EngineId::RENDER, b)?;
        gpu.wait(fence, 1_000_000)?;
    }
    let all = words(&buf);
    let squares = &all[64..128];
    println!(
        "  chain of 64 batches wrote squares: {:?} ... {:?}",
        &squares[..8],
        &squares[60..]
    );

    // 3. A batch that jumps to itself forever: the driver detects the hang,
    //    dumps the decoded state, resets the engine and carries on.
    let mut b = gpu.new_batch(4096)?;
    let top = b.gfx().0;
    let store = Mi::Store {
        gfx: map.gfx.0 + 512,
        value: 7,
    };
    packets::push(&mut b, g, store).map_err(batch_err)?;
    packets::push(&mut b, g, Mi::Start { gfx: top }).map_err(batch_err)?;
    let fence = gpu.submit(EngineId::RENDER, b)?;
    match gpu.wait(fence, 20_000) {
        Err(GpuError::Hang(state)) => {
            println!("  runaway batch: hang detected after 20 ms, engine reset; error state:");
            for line in alloc::format!("{}", state).lines() {
                println!("    {}", line);
            }
        }
        other => println!("  runaway batch: unexpected {:?}", other),
    }
    let b = gpu.new_batch(4096)?;
    let fence = gpu.submit(EngineId::RENDER, b)?;
    gpu.wait(fence, 1_000_000)?;
    println!(
        "  after the reset the render engine completed seqno {}",
        gpu.completed(EngineId::RENDER)
    );
    // The blits are Gen6/Gen7 XY_* commands, or DG2's fast colour and copy
    // blits; the EU kernels are Ivy Bridge's and DG2's.
    match g {
        Generation::Gen6 | Generation::Gen7 => draw_picture(gpu)?,
        Generation::Gen12_5 => {
            let bytes = dg2::draw_picture(gpu, &PICTURE_RECTS, PICTURE_W, PICTURE_H)?;
            print_picture(&bytes, 128);
        }
        _ => println!(
            "  (the blitter picture is written for Gen6, Gen7 and DG2: skipped on {})",
            g
        ),
    }
    match g {
        Generation::Gen7 | Generation::Gen12_5 => draw_mandelbrot(gpu).map(Some),
        _ => {
            println!(
                "  (the Mandelbrot kernels are Gen7 and DG2 code: skipped on {})",
                g
            );
            Ok(None)
        }
    }
}

/// The blitter picture: its size and its rectangles (x1, y1, x2, y2, colour
/// index) over the background.
const PICTURE_W: u32 = 72;
const PICTURE_H: u32 = 20;
const PICTURE_RECTS: [(u32, u32, u32, u32, u32); 6] = [
    (0, 0, PICTURE_W, PICTURE_H, 1),
    (2, 1, 30, 11, 2),
    (18, 6, 50, 18, 3),
    (40, 2, 70, 9, 4),
    (56, 11, 68, 19, 5),
    (6, 13, 14, 18, 6),
];

/// The blitter picture's 8-bit pixels (`pitch` bytes a row) as characters.
fn print_picture(bytes: &[u8], pitch: usize) {
    const GLYPHS: &[u8] = b" .#o*+@";
    for y in 0..PICTURE_H as usize {
        let row: alloc::string::String = bytes[y * pitch..y * pitch + PICTURE_W as usize]
            .iter()
            .map(|&v| GLYPHS.get(v as usize).copied().unwrap_or(b'?') as char)
            .collect();
        println!("    |{}|", row);
    }
}

/// The blitter draws rectangles into an X-tiled 8-bit surface, copies it to
/// a linear one, and the CPU prints the linear copy as characters.
fn draw_picture<P: Platform>(gpu: &mut Gpu<'_, P>) -> Result<(), GpuError> {
    const W: i32 = PICTURE_W as i32;
    const H: i32 = PICTURE_H as i32;
    // X tiles are 512 bytes by 8 rows: one tile wide, three tiles high.
    const TILED_PITCH: i32 = 512;
    let (_tiled, tiled_map) = gpu.map_buffer(512 * 24)?;
    let (linear, linear_map) = gpu.map_buffer(4096 * 2)?;
    let tiled = tiled_map.gfx.0;
    let mut b = gpu.new_batch(4096)?;
    let err = |_| GpuError::BringUp("blit batch");
    // Background, then overlapping rectangles (8 bpp: colour depth 0, PATCOPY 0xF0;
    // a tiled pitch is given in dwords).
    for (x1, y1, x2, y2, colour) in PICTURE_RECTS {
        let [x1, y1, x2, y2] = [x1, y1, x2, y2].map(|v| v as i32);
        b.push(&XyColorBlt {
            tiling_enable: true,
            color_depth: 0,
            raster_operation: 0xf0,
            destination_pitch: TILED_PITCH / 4,
            destination_x1: x1,
            destination_y1: y1,
            destination_x2: x2,
            destination_y2: y2,
            destination_base_address: tiled,
            solid_pattern_color: colour,
            ..Default::default()
        })
        .map_err(err)?;
    }
    // Copy the tiled picture to a linear surface (SRCCOPY 0xCC).
    b.push(&XySrcCopyBlt {
        src_tiling_enable: true,
        color_depth: 0,
        raster_operation: 0xcc,
        destination_pitch: 128,
        destination_x2: W,
        destination_y2: H,
        destination_base_address: linear_map.gfx.0,
        source_pitch: TILED_PITCH / 4,
        source_base_address: tiled,
        ..Default::default()
    })
    .map_err(err)?;
    let fence = gpu.submit(EngineId::BLITTER, b)?;
    gpu.wait(fence, 1_000_000)?;
    println!(
        "  the blitter drew this into an X-tiled surface and copied it back to linear memory:"
    );
    // The blitter finished writing the linear buffer.
    print_picture(&linear.to_vec(), 128);
    Ok(())
}

/// The Mandelbrot set computed by an EU kernel, shown at the top of the
/// screen when there is one (256 x 192), and sampled down to characters on
/// the console. Gen7's kernel computes 256 x 192 pixels; DG2's, interpreted
/// more slowly by the model, 128 x 96 of the same view (pixel (x, y) is
/// Gen7's (2x, 2y) exactly: the steps differ by a power of two), each drawn
/// as 2 x 2 pixels.
fn draw_mandelbrot<P: Platform>(
    gpu: &mut Gpu<'_, P>,
) -> Result<alloc::vec::Vec<u32>, ComputeError> {
    const SCREEN_W: u32 = MANDELBROT_WIDTH;
    const SCREEN_H: u32 = PICTURE_HEIGHT as u32;
    let start = baregpu_boot::clock::now_us();
    let dg2 = gpu.generation() == Generation::Gen12_5;
    let (w, h) = if dg2 {
        (SCREEN_W / 2, SCREEN_H / 2)
    } else {
        (SCREEN_W, SCREEN_H)
    };
    let (counts, dg2_memory) = if dg2 {
        let (counts, placement) = dg2::mandelbrot(gpu, w, h, mandelbrot::VIEW, mandelbrot::LIMIT)?;
        (counts, Some(placement))
    } else {
        (mandelbrot::render(gpu, w, h)?, None)
    };
    let ms = (baregpu_boot::clock::now_us() - start) / 1000;
    if let Some(placement) = dg2_memory {
        println!(
            "  the EU array ran the Mandelbrot kernel (kernels/mandelbrot_xehpg.asm, COMPUTE_WALKER over {} \
             groups of one SIMD16 thread, LSC stores to a linear buffer in {} memory, {}x{}) in {} ms:",
            w / 16 * h,
            dg2::memory_name(placement),
            w,
            h,
            ms
        );
    } else {
        println!(
            "  the EU array ran the Mandelbrot kernel (kernels/mandelbrot_gen7.asm, GPGPU_WALKER over {} \
             groups of one SIMD8 thread, Y-tiled R32_UINT surface) in {} ms:",
            w / 8 * h,
            ms
        );
    }
    // 64 characters by 24 rows whatever the size.
    const SHADES: &[u8] = b" .:-=+*#%@";
    for y in (0..h).step_by((h / 24) as usize) {
        let row: alloc::string::String = (0..w)
            .step_by((w / 64) as usize)
            .map(|x| {
                let c = counts[(y * w + x) as usize].min(mandelbrot::LIMIT);
                SHADES[(c * (SHADES.len() as u32 - 1) / mandelbrot::LIMIT) as usize] as char
            })
            .collect();
        println!("    |{}|", row);
    }
    let scale = (SCREEN_W / w) as usize;
    let drawn = baregpu_boot::screen::draw(|screen| {
        for y in 0..SCREEN_H as usize {
            for x in 0..SCREEN_W as usize {
                let count = counts[y / scale * w as usize + x / scale];
                screen.put(x, y, mandelbrot::colour(count));
            }
        }
    });
    match drawn {
        Some(()) => {
            println!(
                "  and drew it on the screen ({}x{}, top left)",
                SCREEN_W, SCREEN_H
            );
            // Leave it up for a moment: with a display (or a screendump,
            // qemu/screenshot.sh) the picture is seen before QEMU exits.
            baregpu_boot::clock::delay_us(1_500_000);
        }
        None => println!("  (no screen: the picture stays on the serial console)"),
    }
    Ok(counts)
}
