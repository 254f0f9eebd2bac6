//! The picture a primary plane shows: its live surface read through the GGTT
//! (linear, or X-tiled in the blitter's layout), each pixel converted to RGB.
//!
//! Addresses (003 lines 62682-62819): linear, `surface + linear offset + y *
//! stride + x * bytes per pixel`; X-tiled, pixel (x + start x, y + start y) of
//! the tiled surface (DSPxTILEOFF), the linear offset ignored. A pixel whose
//! page has no valid GGTT entry, or lies beyond the GGTT or memory, is black:
//! the display engine's fetch through a bad entry returns no picture data
//! (SNB reports it in DEIIR's GTT fault bit, 003 lines 54995-54997, which the
//! model does not raise); [`Picture::unreadable`] counts such pixels.
//! 8-bit indexed pixels go through the pipe palette, which the model does not
//! keep: they show as grey levels (a linear palette).

use alloc::vec::Vec;

use baregpu_hal::device::PixelFormat;
use baregpu_hal::{Generation, MemoryBus};

use super::Display;
use crate::blit;
use crate::mem::gtt::Ggtt;
use crate::mem::{Memory, Space};
use crate::regfile::RegFile;

/// What a pipe's primary plane shows now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picture {
    pub width: u32,
    pub height: u32,
    /// Row after row, 0x00RRGGBB.
    pub pixels: Vec<u32>,
    pub format: PixelFormat,
    pub tiled: bool,
    /// GGTT address of the surface being scanned out.
    pub surface: u64,
    /// Pixels that could not be read (shown black).
    pub unreadable: u32,
}

impl Picture {
    /// The pixel at (`x`, `y`), 0x00RRGGBB.
    pub fn pixel(&self, x: u32, y: u32) -> Option<u32> {
        if x >= self.width || y >= self.height {
            return None;
        }
        self.pixels.get((y * self.width + x) as usize).copied()
    }
}

/// Pipe `i`'s picture; `None` when the pipe or its plane is off, or the plane
/// is programmed with a pixel format it does not accept.
pub(crate) fn scanout<B: MemoryBus>(
    display: &Display,
    i: usize,
    bus: &B,
    gtt: &Ggtt,
    regs: &RegFile,
    generation: Generation,
) -> Option<Picture> {
    if !display.lit(i) {
        return None;
    }
    let b = display.desc().bits;
    let (live, src) = display.live(i)?;
    let format = display.desc().format_of(b.pixel_format.get(live.cntr))?;
    let width = b.src_width.get(src) + 1;
    let height = b.src_height.get(src) + 1;
    let tiled = b.tiled.get(live.cntr) != 0;
    let stride = (live.stride & b.stride.mask()) as u64;
    let cpp = format.bytes_per_pixel() as u64;
    let base = live.surf as u64;
    let (start_x, start_y) = (
        b.tile_x.get(live.tileoff) as u64,
        b.tile_y.get(live.tileoff) as u64,
    );
    let memory = Memory::new(bus, gtt, regs, 0);
    let mut page: Option<(u64, Option<u64>)> = None;
    let mut unreadable = 0;
    let mut pixels = Vec::with_capacity((width * height) as usize);
    for y in 0..height as u64 {
        for x in 0..width as u64 {
            let gfx = if tiled {
                blit::x_tiled_address(
                    regs,
                    generation,
                    base,
                    stride,
                    (x + start_x) * cpp,
                    y + start_y,
                )
            } else {
                (base + live.linoff as u64 + y * stride + x * cpp) & 0xffff_ffff
            };
            // One translation per page.
            let phys_page = match page {
                Some((p, phys)) if p == gfx >> 12 => phys,
                _ => {
                    let phys = memory.translate(Space::Ggtt, gfx & !0xfff).ok();
                    page = Some((gfx >> 12, phys));
                    phys
                }
            };
            let mut raw = [0u8; 8];
            let read =
                phys_page.and_then(|p| bus.read(p + (gfx & 0xfff), &mut raw[..cpp as usize]).ok());
            if read.is_none() {
                unreadable += 1;
                pixels.push(0);
                continue;
            }
            pixels.push(to_rgb(format, u64::from_le_bytes(raw)));
        }
    }
    Some(Picture {
        width,
        height,
        pixels,
        format,
        tiled,
        surface: base,
        unreadable,
    })
}

/// A pixel of `format` (its bytes little-endian in `raw`) as 0x00RRGGBB.
pub fn to_rgb(format: PixelFormat, raw: u64) -> u32 {
    let v = raw as u32;
    let (r, g, b) = match format {
        PixelFormat::C8 => {
            let i = v & 0xff;
            (i, i, i)
        }
        PixelFormat::Rgb565 => (
            widen((v >> 11) & 0x1f, 5),
            widen((v >> 5) & 0x3f, 6),
            widen(v & 0x1f, 5),
        ),
        PixelFormat::Xrgb8888 => ((v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff),
        PixelFormat::Xbgr8888 => (v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff),
        PixelFormat::Xrgb2101010 => ((v >> 22) & 0xff, (v >> 12) & 0xff, (v >> 2) & 0xff),
        PixelFormat::Xbgr2101010 => ((v >> 2) & 0xff, (v >> 12) & 0xff, (v >> 22) & 0xff),
        PixelFormat::Xbgr16161616F => (
            half_to_8bit(raw as u16),
            half_to_8bit((raw >> 16) as u16),
            half_to_8bit((raw >> 32) as u16),
        ),
    };
    (r << 16) | (g << 8) | b
}

/// An `bits`-bit channel widened to 8 bits by repeating its high bits.
fn widen(c: u32, bits: u32) -> u32 {
    (c << (8 - bits)) | (c >> (2 * bits - 8))
}

/// A half float (1:5:10, 003 line 62666) clamped to [0, 1], as 8 bits rounded.
fn half_to_8bit(h: u16) -> u32 {
    let sign = h >> 15;
    let exp = ((h >> 10) & 0x1f) as i32;
    let frac = (h & 0x3ff) as f32;
    if sign == 1 {
        return 0; // negative (or -0): black
    }
    let value = match exp {
        0 => frac / 1024.0 / 16384.0,
        31 if frac == 0.0 => return 255,
        31 => return 0, // NaN
        e => {
            let scale = if e >= 15 {
                (1u32 << (e - 15)) as f32
            } else {
                1.0 / (1u32 << (15 - e)) as f32
            };
            (1.0 + frac / 1024.0) * scale
        }
    };
    let v = value.clamp(0.0, 1.0) * 255.0 + 0.5;
    v as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_converts_its_channels() {
        // Red 0x12, green 0x34, blue 0x56 in each packing.
        assert_eq!(to_rgb(PixelFormat::Xrgb8888, 0xff12_3456), 0x12_3456);
        assert_eq!(to_rgb(PixelFormat::Xbgr8888, 0x0056_3412), 0x12_3456);
        // 10-bit channels: the top 8 bits.
        let (r, g, b) = (0x12 << 2 | 3, 0x34 << 2, 0x56 << 2 | 1);
        assert_eq!(
            to_rgb(PixelFormat::Xrgb2101010, (r << 20 | g << 10 | b) as u64),
            0x12_3456
        );
        assert_eq!(
            to_rgb(PixelFormat::Xbgr2101010, (b << 20 | g << 10 | r) as u64),
            0x12_3456
        );
        // 5:6:5 widens by repeating the high bits: full scale stays full.
        assert_eq!(to_rgb(PixelFormat::Rgb565, 0xffff), 0xff_ffff);
        assert_eq!(to_rgb(PixelFormat::Rgb565, 0xf800), 0xff_0000);
        assert_eq!(to_rgb(PixelFormat::Rgb565, 0x0410), 0x00_8284);
        assert_eq!(to_rgb(PixelFormat::C8, 0x80), 0x80_8080);
        // Half floats: 1.0 (0x3c00), 0.5 (0x3800), 0 and -1 (clamped).
        let fp = 0x3c00u64 | 0x3800 << 16 | 0xbc00 << 32 | 0x3c00 << 48;
        assert_eq!(to_rgb(PixelFormat::Xbgr16161616F, fp), 0xff_8000);
        assert_eq!(half_to_8bit(0x7c00), 255, "+inf clamps");
        assert_eq!(half_to_8bit(0x4000), 255, "2.0 clamps");
    }
}
