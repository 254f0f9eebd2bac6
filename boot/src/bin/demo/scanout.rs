//! The Mandelbrot through the modelled display: the driver takes over the
//! pipe the software GPU's firmware lit (keeping its mode), the blitter copies
//! each picture into the back one of two X-tiled surfaces in the GGTT,
//! MI_DISPLAY_FLIP on the flip ring shows it from the next vertical blank,
//! and what the modelled primary plane scans out (`SoftGpu::scanout`) goes to
//! the screen, sampled down beside the picture drawn directly: two flips, the
//! picture, then the same set in other colours.

use alloc::vec::Vec;

use baregpu::display::{Display, DisplayError, FlipMethod};
use baregpu::gtt::tiling::Tiling;
use baregpu::hal::gen7::commands::XySrcCopyBlt;
use baregpu::platform::PlatformBus;
use baregpu::{EngineId, Gpu, GpuError, Platform};
use baregpu_boot::{BootPlatform, println};
use baregpu_soft::{Picture, SoftGpu};

use crate::mandelbrot;

/// How long a flip or a vertical blank may take before it is an error.
const TIMEOUT_US: u64 = 2_000_000;

/// Shows the `width` x `height` iteration counts `counts` through the primary
/// plane, double-buffered. With the software GPU (`soft`) each flip's picture,
/// as its modelled plane scans it out, lands on the screen in a `width` x
/// `height` box right of the previous one; on a real GPU the monitor shows the
/// flipped surface itself for a moment.
pub fn show<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    soft: Option<&SoftGpu<PlatformBus<'_, BootPlatform>>>,
    platform: &'a P,
    counts: &[u32],
    width: u32,
    height: u32,
) -> Result<(), DisplayError> {
    let mut display = Display::take_over(gpu, platform, Tiling::X)?;
    let mode = display.mode();
    println!(
        "  display: took over pipe {} as the firmware left it ({}x{}, {:?}), two X-tiled surfaces in the GGTT",
        mode.pipe_name, mode.width, mode.height, mode.format
    );
    // The CPU writes each picture to a linear staging buffer; the blitter
    // copies it into the back surface (tiling it).
    let pitch = mode.width * 4;
    let (staging, staging_map) = gpu.map_buffer((pitch * mode.height) as usize)?;
    let palettes: [fn(u32) -> u32; 2] = [mandelbrot::colour, |c| {
        let rgb = mandelbrot::colour(c);
        // The same ramp, channels turned: blue to red.
        (rgb & 0xff) << 16 | (rgb >> 16 & 0xff) << 8 | (rgb >> 8 & 0xff)
    }];
    for (k, palette) in palettes.iter().enumerate() {
        let mut row = Vec::with_capacity(pitch as usize);
        for y in 0..mode.height {
            row.clear();
            for x in 0..mode.width {
                let c =
                    counts[((y * height / mode.height) * width + x * width / mode.width) as usize];
                row.extend_from_slice(&palette(c).to_le_bytes());
            }
            staging
                .write((y * pitch) as usize, &row)
                .map_err(|_| GpuError::BringUp("staging buffer"))?;
        }
        let back = display.back();
        let mut b = gpu.new_batch(4096)?;
        b.push(&XySrcCopyBlt {
            bpp32_byte_mask: 3,
            dest_tiling_enable: true,
            color_depth: 3,
            raster_operation: 0xcc,
            // A tiled pitch in dwords, a linear one in bytes.
            destination_pitch: (back.stride / 4) as i32,
            destination_x2: mode.width as i32,
            destination_y2: mode.height as i32,
            destination_base_address: back.gfx(),
            source_pitch: pitch as i32,
            source_base_address: staging_map.gfx.0,
            ..Default::default()
        })
        .map_err(|_| GpuError::BringUp("blit batch"))?;
        let fence = gpu.submit(EngineId::BLITTER, b)?;
        gpu.wait(fence, TIMEOUT_US)?;
        let flip = display.flip(gpu, FlipMethod::Ring, TIMEOUT_US)?;
        let picture = soft.and_then(|s| s.scanout(mode.pipe));
        println!(
            "  flip {}: MI_DISPLAY_FLIP, frame counter {} -> {}, the plane scans out surface {} at {:#x}",
            k + 1,
            flip.frame_before,
            flip.frame_after,
            flip.front,
            display.front().gfx()
        );
        let left = (k + 1) * width as usize;
        if soft.is_none() {
            println!("    the monitor shows it through the GPU's own plane");
            baregpu_boot::clock::delay_us(1_500_000);
        } else if let Some(p) = picture
            && to_screen(&p, left, width, height)
        {
            println!(
                "    the plane's picture ({}x{}) drawn on the screen at x = {}, sampled down to {}x{}",
                p.width, p.height, left, width, height
            );
            baregpu_boot::clock::delay_us(1_500_000);
        }
    }
    gpu.unmap(staging_map);
    display.release(gpu, TIMEOUT_US)?;
    println!(
        "  display: the firmware's surface is back on pipe {}",
        mode.pipe_name
    );
    Ok(())
}

/// Draws a picture sampled down to `width` x `height` at (`left`, 0) of the
/// screen; `false` without a screen.
fn to_screen(picture: &Picture, left: usize, width: u32, height: u32) -> bool {
    baregpu_boot::screen::draw(|screen| {
        for y in 0..height {
            for x in 0..width {
                let px = picture.pixel(x * picture.width / width, y * picture.height / height);
                screen.put(left + x as usize, y as usize, px.unwrap_or(0));
            }
        }
    })
    .is_some()
}
