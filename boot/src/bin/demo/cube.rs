//! The demo's 3D scene: a textured, lit, depth-tested cube spinning through
//! a few frames, drawn by the driver's 3D API (`baregpu::render`) with the
//! vertex and pixel shaders of `kernels/cube_*.asm` (assembled here at run
//! time) and the scene of `kernels/cube_scene.rs`, which `tests/cube.rs`
//! checks against a host reference. Each frame goes to the screen, right of
//! the Mandelbrot pictures: on the software GPU through its modelled display
//! plane (a blit into the back surface, a flip, the plane's scanout).
//!
//! On a generation whose 3D pipeline the software GPU does not model yet,
//! the first draw comes back as an error state naming the refused command:
//! the section says so and carries on (`Skipped`), and the caller may try
//! the Sandy Bridge model, which draws 3D.

use baregpu::compute::ComputeError;
use baregpu::display::{Display, DisplayError, FlipMethod};
use baregpu::gtt::tiling::Tiling;
use baregpu::hal::gen7::commands::XySrcCopyBlt;
use baregpu::platform::PlatformBus;
use baregpu::render::Renderer;
use baregpu::{EngineId, Generation, Gpu, GpuError, Platform};
use baregpu_boot::{BootPlatform, RunningDevice, println};
use baregpu_soft::SoftGpu;

use crate::cube_scene::{Cube, Options, Pose};

/// Frames of the spin, and the picture's side in pixels: under QEMU's
/// emulation the software GPU (Sandy Bridge) draws one 192 x 192 frame in
/// about 350 ms (the demo prints each frame's time), so the spin adds some
/// ten seconds to the demo.
pub const FRAMES: u32 = 24;
pub const SIDE: u32 = 192;
/// Where the frames go on the screen: right of the Mandelbrot and the two
/// pictures of the display plane (256 pixels each).
const LEFT: usize = 768;
/// How long one frame may take before it is an error.
const TIMEOUT_US: u64 = 60_000_000;

/// How the section ended.
pub enum Outcome {
    Drawn,
    /// The model refused the draw: the reason.
    Skipped(alloc::string::String),
}

/// The software GPU whose modelled primary plane shows the frames, and the
/// platform the driver's display code runs on.
pub type Plane<'s, 'b, 'a, P> = (&'s SoftGpu<PlatformBus<'b, BootPlatform>>, &'a P);

/// Draws the spin on `gpu`, a line per frame on the console. Each frame
/// goes to the screen: with `plane`, through the software GPU's display
/// (the blitter copies it into the back one of two X-tiled surfaces, an
/// MI_DISPLAY_FLIP shows it, and what the plane scans out goes to the
/// screen), otherwise straight from the render target.
pub fn spin<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    plane: Option<Plane<'_, '_, 'a, P>>,
) -> Result<Outcome, ComputeError> {
    let mut r = Renderer::new(gpu)?;
    let cube = Cube::new(&mut r, gpu, SIDE, SIDE)?;
    let mut display = None;
    let mut total_us = 0;
    for k in 0..FRAMES {
        let start = baregpu_boot::clock::now_us();
        let fence = cube.draw(&r, gpu, Pose::frame(k, FRAMES), Options::SOLID)?;
        match gpu.wait(fence, TIMEOUT_US) {
            Ok(()) => {}
            // The model does not run this generation's 3D pipeline (yet):
            // the command it refused, or the feature 3DPRIMITIVE needed.
            Err(GpuError::Hang(state)) if k == 0 => {
                let reason = match state.unmodelled {
                    Some(u) => alloc::format!(
                        "the software GPU does not model {} on {} yet",
                        u.name.unwrap_or("a command of the draw"),
                        gpu.generation()
                    ),
                    None => alloc::format!("the draw failed: {:?}", state.reason),
                };
                cube.free(gpu);
                r.destroy(gpu);
                return Ok(Outcome::Skipped(reason));
            }
            Err(e) => return Err(e.into()),
        }
        let us = baregpu_boot::clock::now_us() - start;
        total_us += us;
        if k == 0
            && let Some((soft, platform)) = plane
        {
            match Display::take_over(gpu, platform, Tiling::X) {
                Ok(d) => {
                    let m = d.mode();
                    println!(
                        "  display: took over pipe {} again ({}x{}); each frame is flipped onto the plane",
                        m.pipe_name, m.width, m.height
                    );
                    display = Some((soft, d));
                }
                Err(e) => println!("  display: {}; frames go to the screen directly", e),
            }
        }
        let shown = match display.as_mut() {
            Some((soft, d)) => match through_plane(gpu, soft, d, &cube.target) {
                Ok(line) => line,
                Err(e) => {
                    println!("  display: {}", e);
                    return Err(ComputeError::Invalid("the display plane failed"));
                }
            },
            None => {
                let pixels = cube.pixels()?;
                baregpu_boot::screen::draw(|screen| {
                    for y in 0..SIDE as usize {
                        for x in 0..SIDE as usize {
                            let i = (y * SIDE as usize + x) * 4;
                            let rgb =
                                u32::from_le_bytes([pixels[i], pixels[i + 1], pixels[i + 2], 0]);
                            screen.put(LEFT + x, y, rgb);
                        }
                    }
                })
                .map_or(alloc::string::String::new(), |()| {
                    " and shown on the screen".into()
                })
            }
        };
        println!(
            "  cube frame {:>2}/{}: drawn in {} ms{}",
            k + 1,
            FRAMES,
            us / 1000,
            shown
        );
    }
    println!(
        "  the 3D pipeline drew {} frames of {}x{} in {} ms (kernels/cube_vs_{g}.asm, kernels/cube_ps_{g}.asm)",
        FRAMES,
        SIDE,
        SIDE,
        total_us / 1000,
        g = match gpu.generation() {
            Generation::Gen6 => "gen6",
            _ => "gen7",
        },
    );
    if baregpu_boot::screen::describe().is_some() {
        // The last frame stays up a moment for whoever watches (or takes a
        // screendump with qemu/screenshot.sh).
        baregpu_boot::clock::delay_us(1_500_000);
    }
    if let Some((_, d)) = display
        && let Err(e) = d.release(gpu, FLIP_TIMEOUT_US)
    {
        println!("  display: {}", e);
    }
    cube.free(gpu);
    r.destroy(gpu);
    Ok(Outcome::Drawn)
}

/// How long a blit, a flip or a vertical blank may take.
const FLIP_TIMEOUT_US: u64 = 2_000_000;

/// The frame in `target` through the display: the blitter copies it into
/// the top-left corner of the back surface (tiling it), MI_DISPLAY_FLIP on
/// the ring shows that surface, and the corner of what the modelled plane
/// then scans out goes to the screen. The line's end for the console.
fn through_plane<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    soft: &SoftGpu<PlatformBus<'_, BootPlatform>>,
    display: &mut Display<'a, P>,
    target: &baregpu::compute::Surface<'_>,
) -> Result<alloc::string::String, DisplayError> {
    let back = display.back();
    let mut b = gpu.new_batch(4096)?;
    b.push(&XySrcCopyBlt {
        bpp32_byte_mask: 3,
        dest_tiling_enable: true,
        color_depth: 3,
        raster_operation: 0xcc,
        // A tiled pitch in dwords, a linear one in bytes.
        destination_pitch: (back.stride / 4) as i32,
        destination_x2: SIDE as i32,
        destination_y2: SIDE as i32,
        destination_base_address: back.gfx(),
        source_pitch: target.pitch() as i32,
        source_base_address: target.gfx().0,
        ..Default::default()
    })
    .map_err(|_| GpuError::BringUp("blit batch"))?;
    let fence = gpu.submit(EngineId::BLITTER, b)?;
    gpu.wait(fence, FLIP_TIMEOUT_US)?;
    let flip = display.flip(gpu, FlipMethod::Ring, FLIP_TIMEOUT_US)?;
    let Some(picture) = soft.scanout(display.mode().pipe) else {
        return Ok(alloc::format!(", flipped (frame {})", flip.frame_after));
    };
    let shown = baregpu_boot::screen::draw(|screen| {
        for y in 0..SIDE {
            for x in 0..SIDE {
                screen.put(
                    LEFT + x as usize,
                    y as usize,
                    picture.pixel(x, y).unwrap_or(0),
                );
            }
        }
    });
    Ok(alloc::format!(
        ", flipped onto the plane (frame {} -> {}){}",
        flip.frame_before,
        flip.frame_after,
        if shown.is_some() {
            ", its scanout on the screen"
        } else {
            ""
        }
    ))
}

/// The spin on a software GPU modelling Sandy Bridge, whose 3D pipeline
/// the model runs: for a demo whose own generation cannot draw 3D yet.
pub fn spin_on_sandy_bridge(platform: &BootPlatform) -> Result<(), ComputeError> {
    let soft = SoftGpu::new(Generation::Gen6, PlatformBus::new(platform))
        .map_err(|_| GpuError::Unsupported(Generation::Gen6))?;
    let step = || soft.run(256);
    let running = RunningDevice::new(platform, &step);
    let mut gpu = Gpu::new(&running, &soft, Generation::Gen6)?;
    println!("  a second software GPU, modelling gen6 (Sandy Bridge), draws it:");
    match spin(&mut gpu, Some((&soft, &running)))? {
        Outcome::Drawn => Ok(()),
        Outcome::Skipped(reason) => {
            println!("  cube: {}", reason);
            Ok(())
        }
    }
}
