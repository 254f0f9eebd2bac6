//! The screen: a linear framebuffer drawn pixel by pixel, with a text
//! console on it.
//!
//! The framebuffer is the firmware's (the loader's framebuffer tag, e.g.
//! GRUB's graphics mode on a PC) or, without one, QEMU's standard VGA
//! switched to a mode of its own ([`bochs`]). Both look the same to users:
//! [`Screen::put`] takes 0xRRGGBB and packs it into the framebuffer's pixel
//! format. The console (`console.rs`) writes `print!` text below an optional
//! picture area at the top ([`reserve_top`]), which programs draw into
//! with [`draw`].

pub mod bochs;
mod console;

pub use console::{BACKGROUND, FOREGROUND};

use core::ptr::NonNull;

use spin::Mutex;

use crate::bootinfo::{BootInfo, ColorField, Framebuffer};

/// Mode set on QEMU's VGA when there is no firmware framebuffer.
pub const BOCHS_WIDTH: u16 = 1024;
pub const BOCHS_HEIGHT: u16 = 768;

/// Where the pixels come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The framebuffer the loader described.
    Firmware,
    /// QEMU's standard VGA, mode set by this kernel.
    BochsVga,
}

/// A mapped linear framebuffer.
pub struct Screen {
    base: NonNull<u8>,
    fb: Framebuffer,
    bytes_per_pixel: usize,
    pub source: Source,
}

// SAFETY: the framebuffer mapping is plain memory reachable from any CPU;
// access goes through the SCREEN lock.
unsafe impl Send for Screen {}

impl Screen {
    /// Maps `fb` (write-combining) for drawing.
    pub fn new(fb: Framebuffer, source: Source) -> Option<Screen> {
        let bytes_per_pixel = match fb.bits_per_pixel {
            16 => 2,
            24 => 3,
            32 => 4,
            _ => return None,
        };
        crate::paging::map(
            fb.addr,
            fb.size_bytes(),
            crate::paging::Cache::WriteCombining,
        )
        .ok()?;
        Some(Screen {
            base: NonNull::new(fb.addr as *mut u8)?,
            fb,
            bytes_per_pixel,
            source,
        })
    }

    pub fn width(&self) -> usize {
        self.fb.width as usize
    }

    pub fn height(&self) -> usize {
        self.fb.height as usize
    }

    /// The framebuffer's description.
    pub fn framebuffer(&self) -> &Framebuffer {
        &self.fb
    }

    /// Sets pixel (`x`, `y`) to `rgb` (0x00RRGGBB); outside is ignored.
    pub fn put(&mut self, x: usize, y: usize, rgb: u32) {
        if x >= self.width() || y >= self.height() {
            return;
        }
        let pixel = pack(&self.fb, rgb);
        let offset = y * self.fb.pitch as usize + x * self.bytes_per_pixel;
        // SAFETY: (x, y) is inside the framebuffer, which `new` mapped; a
        // pixel's bytes lie within its row (pitch >= width * bytes).
        unsafe {
            let p = self.base.as_ptr().add(offset);
            match self.bytes_per_pixel {
                4 => p.cast::<u32>().write_volatile(pixel),
                2 => p.cast::<u16>().write_volatile(pixel as u16),
                _ => {
                    for (i, b) in pixel.to_le_bytes()[..self.bytes_per_pixel]
                        .iter()
                        .enumerate()
                    {
                        p.add(i).write_volatile(*b);
                    }
                }
            }
        }
    }

    /// The raw pixel value at (`x`, `y`) (in the framebuffer's format, see
    /// [`pack`]); `None` outside. Slow on write-combining memory: for tests.
    pub fn get(&self, x: usize, y: usize) -> Option<u32> {
        if x >= self.width() || y >= self.height() {
            return None;
        }
        let offset = y * self.fb.pitch as usize + x * self.bytes_per_pixel;
        let mut bytes = [0u8; 4];
        for (i, b) in bytes[..self.bytes_per_pixel].iter_mut().enumerate() {
            // SAFETY: inside the mapped framebuffer, as in `put`.
            *b = unsafe { self.base.as_ptr().add(offset + i).read_volatile() };
        }
        Some(u32::from_le_bytes(bytes))
    }

    /// Fills a rectangle (clipped to the screen).
    pub fn fill(&mut self, x: usize, y: usize, w: usize, h: usize, rgb: u32) {
        for yy in y..(y + h).min(self.height()) {
            for xx in x..(x + w).min(self.width()) {
                self.put(xx, yy, rgb);
            }
        }
    }
}

/// 0xRRGGBB in the framebuffer's layout: each channel's top `size` bits
/// at its `position`.
pub fn pack(fb: &Framebuffer, rgb: u32) -> u32 {
    let channel = |value: u32, f: ColorField| {
        if f.size == 0 {
            0
        } else {
            ((value & 0xff) >> (8 - u32::from(f.size.min(8)))) << f.position
        }
    };
    channel(rgb >> 16, fb.red) | channel(rgb >> 8, fb.green) | channel(rgb, fb.blue)
}

struct Display {
    screen: Screen,
    console: console::Console,
}

static DISPLAY: Mutex<Option<Display>> = Mutex::new(None);

/// Opens the screen: the firmware framebuffer when the boot information
/// has one, otherwise QEMU's VGA; then the console on it.
#[cfg(target_os = "none")]
pub fn init(info: &BootInfo) {
    let screen = match info.framebuffer {
        Some(fb) => Screen::new(fb, Source::Firmware),
        None => bochs::open(&crate::BootPlatform::new(), BOCHS_WIDTH, BOCHS_HEIGHT)
            .and_then(|fb| Screen::new(fb, Source::BochsVga)),
    };
    if let Some(mut screen) = screen {
        let console = console::Console::new(&mut screen, 0);
        *DISPLAY.lock() = Some(Display { screen, console });
    }
}

#[cfg(not(target_os = "none"))]
pub fn init(_info: &BootInfo) {}

/// Runs `f` on the screen; `None` when there is none. Text printed inside
/// `f` reaches the serial console only (the screen is busy).
pub fn draw<R>(f: impl FnOnce(&mut Screen) -> R) -> Option<R> {
    DISPLAY.lock().as_mut().map(|d| f(&mut d.screen))
}

/// Where the screen's pixels come from and its size, if there is one.
pub fn describe() -> Option<(Source, usize, usize)> {
    draw(|s| (s.source, s.width(), s.height()))
}

/// The console's grid: columns, rows, cell size in pixels (square) and the
/// pixel row where it starts.
pub fn console_geometry() -> Option<(usize, usize, usize, usize)> {
    DISPLAY.lock().as_ref().map(|d| d.console.geometry())
}

/// Keeps the top `height` pixels for pictures: the console moves below
/// them (cleared, starting at its first line).
pub fn reserve_top(height: usize) {
    if let Some(d) = DISPLAY.lock().as_mut() {
        d.console = console::Console::new(&mut d.screen, height);
    }
}

/// Writes console text on the screen (no-op without one). Skipped when the
/// screen is busy, e.g. a panic while drawing: serial still has the text.
pub(crate) fn write_text(s: &str) {
    if let Some(mut guard) = DISPLAY.try_lock()
        && let Some(d) = guard.as_mut()
    {
        d.console.write(&mut d.screen, s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixels_pack_into_the_framebuffer_layout() {
        let f = |position, size| ColorField { position, size };
        let mut fb = Framebuffer {
            addr: 0,
            width: 1,
            height: 1,
            pitch: 4,
            bits_per_pixel: 32,
            red: f(16, 8),
            green: f(8, 8),
            blue: f(0, 8),
        };
        assert_eq!(pack(&fb, 0x12_34_56), 0x12_34_56);
        // BGR order (red low).
        fb.red = f(0, 8);
        fb.blue = f(16, 8);
        assert_eq!(pack(&fb, 0x12_34_56), 0x56_34_12);
        // 16-bit 5:6:5.
        fb.bits_per_pixel = 16;
        fb.red = f(11, 5);
        fb.green = f(5, 6);
        fb.blue = f(0, 5);
        assert_eq!(pack(&fb, 0xff_ff_ff), 0xffff);
        assert_eq!(pack(&fb, 0x80_40_08), (0x10 << 11) | (0x10 << 5) | 0x01);
    }
}
