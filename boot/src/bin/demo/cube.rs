//! The demo's 3D scene: a textured, lit, depth-tested cube spinning through
//! a few frames, drawn by the driver's 3D API (`baregpu::render`) with the
//! vertex and pixel shaders of `kernels/cube_*.asm` (assembled here at run
//! time) and the scene of `kernels/cube_scene.rs`, which `tests/cube.rs`
//! checks against a host reference. Each frame goes to the screen, right of
//! the Mandelbrot pictures.
//!
//! On a generation whose 3D pipeline the software GPU does not model yet,
//! the first draw comes back as an error state naming the refused command:
//! the section says so and carries on (`Skipped`), and the caller may try
//! the Sandy Bridge model, which draws 3D.

use baregpu::compute::ComputeError;
use baregpu::platform::PlatformBus;
use baregpu::render::Renderer;
use baregpu::{Generation, Gpu, GpuError, Platform};
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

/// Draws the spin on `gpu`, each frame on the screen and a line per frame
/// on the console.
pub fn spin<'a, P: Platform>(gpu: &mut Gpu<'a, P>) -> Result<Outcome, ComputeError> {
    let mut r = Renderer::new(gpu)?;
    let cube = Cube::new(&mut r, gpu, SIDE, SIDE)?;
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
        let pixels = cube.pixels()?;
        let drawn = baregpu_boot::screen::draw(|screen| {
            for y in 0..SIDE as usize {
                for x in 0..SIDE as usize {
                    let i = (y * SIDE as usize + x) * 4;
                    let rgb = u32::from_le_bytes([pixels[i], pixels[i + 1], pixels[i + 2], 0]);
                    screen.put(LEFT + x, y, rgb);
                }
            }
        });
        println!(
            "  cube frame {:>2}/{}: drawn in {} ms{}",
            k + 1,
            FRAMES,
            us / 1000,
            if drawn.is_some() {
                " and shown on the screen"
            } else {
                ""
            }
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
    cube.free(gpu);
    r.destroy(gpu);
    Ok(Outcome::Drawn)
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
    match spin(&mut gpu)? {
        Outcome::Drawn => Ok(()),
        Outcome::Skipped(reason) => {
            println!("  cube: {}", reason);
            Ok(())
        }
    }
}
