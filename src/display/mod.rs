//! Taking over the display the firmware lit (Gen4, G45, Gen6, Gen7): no mode
//! setting. The pipe the firmware enabled keeps its timings and size; the
//! driver points its primary plane at two surfaces of its own in the GGTT
//! (linear or X-tiled, in the format the firmware chose) and flips between
//! them at vertical blank, by MI_DISPLAY_FLIP through the ring the
//! generation's driver used for flips, or through the plane's registers.
//! Everything generation-specific (registers, fields, formats, status bits,
//! the flip ring) comes from the device description's `[display]`
//! (`baregpu_hal::device::DisplayDesc`).
//!
//! X-tiled scanout needs no fence register on the 965 and later: "Pre-i965
//! always needs a fence, whereas 965+ only requires a fence if using
//! framebuffer compression" (Linux intel_display.c, intel_pin_and_fence_fb_obj),
//! and this driver does not compress.

use alloc::vec::Vec;
use core::fmt;

use baregpu_hal::Generation;
use baregpu_hal::device::{self, DisplayDesc, PipeDesc, PixelFormat};
use baregpu_hal::mmio::Mmio;

use crate::gtt::ggtt::Mapping;
use crate::gtt::tiling::{self, Swizzle, Tiling, TilingError};
use crate::platform::{Dma, Platform};
use crate::submit::{Gpu, GpuError};

/// What the firmware left on a pipe, read from its registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mode {
    /// Index of the pipe in the description (0 = pipe A).
    pub pipe: usize,
    /// The pipe's name ("a", "b", "c").
    pub pipe_name: &'static str,
    pub width: u32,
    pub height: u32,
    pub format: PixelFormat,
    /// Bytes from line to line.
    pub stride: u32,
    pub tiled: bool,
    /// GGTT address the plane scans out.
    pub surface: u64,
}

/// How [`Display::flip`] asks for the flip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlipMethod {
    /// MI_DISPLAY_FLIP on the description's flip ring (the ring Linux used:
    /// render on Gen4-Gen6, blitter on Ivy Bridge).
    Ring,
    /// A write of DSPxSURF, which the plane takes at the next vertical blank.
    Registers,
}

/// Why the display cannot be taken over or flipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DisplayError {
    /// The generation's description has no display.
    NoDisplay(Generation),
    /// No pipe is enabled with its primary plane: the firmware lit nothing.
    NoLitPipe,
    /// The lit plane uses a DSPxCNTR pixel format code the plane does not accept.
    UnknownFormat {
        pipe: &'static str,
        code: u32,
    },
    /// No vertical blank within the timeout: the pipe is not running.
    VblankTimeout {
        pipe: &'static str,
        waited_us: u64,
    },
    /// The flip did not complete within the timeout.
    FlipTimeout {
        pipe: &'static str,
        waited_us: u64,
    },
    /// The ring the description names for flips is not running.
    NoFlipEngine(&'static str),
    Gpu(GpuError),
    Tiling(TilingError),
}

impl fmt::Display for DisplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DisplayError::NoDisplay(g) => write!(f, "{g} has no display description"),
            DisplayError::NoLitPipe => write!(
                f,
                "no pipe is lit (no PIPExCONF with its enable and DSPxCNTR with its plane enable): the firmware left the display off"
            ),
            DisplayError::UnknownFormat { pipe, code } => write!(
                f,
                "pipe {pipe}: DSPxCNTR pixel format {code} is not one the primary plane accepts"
            ),
            DisplayError::VblankTimeout { pipe, waited_us } => write!(
                f,
                "pipe {pipe}: no vertical blank in {waited_us} us (the pipe does not run)"
            ),
            DisplayError::FlipTimeout { pipe, waited_us } => {
                write!(
                    f,
                    "pipe {pipe}: the flip did not complete in {waited_us} us"
                )
            }
            DisplayError::NoFlipEngine(name) => {
                write!(f, "the flip ring {name} is not running")
            }
            DisplayError::Gpu(e) => write!(f, "{e}"),
            DisplayError::Tiling(e) => write!(f, "{e}"),
        }
    }
}

impl From<GpuError> for DisplayError {
    fn from(e: GpuError) -> Self {
        DisplayError::Gpu(e)
    }
}

impl From<TilingError> for DisplayError {
    fn from(e: TilingError) -> Self {
        DisplayError::Tiling(e)
    }
}

fn description(generation: Generation) -> Result<&'static DisplayDesc, DisplayError> {
    device::of(generation)
        .and_then(|d| d.display.as_ref())
        .ok_or(DisplayError::NoDisplay(generation))
}

/// The first pipe the firmware lit: its pipe enabled (PIPExCONF) and its
/// primary plane enabled (DSPxCNTR), with the mode read back as Linux reads
/// the firmware's framebuffer (i9xx_plane.c i9xx_get_initial_plane_config:
/// DSPCNTR's format and tiling, DSPSURF, DSPSTRIDE, PIPESRC + 1).
pub fn find_lit(mmio: &dyn Mmio, generation: Generation) -> Result<Mode, DisplayError> {
    let desc = description(generation)?;
    let b = desc.bits;
    for (i, p) in desc.pipes.iter().enumerate() {
        let cntr = mmio.read32(p.cntr);
        if b.pipe_enable.get(mmio.read32(p.conf)) == 0 || b.plane_enable.get(cntr) == 0 {
            continue;
        }
        let code = b.pixel_format.get(cntr);
        let format = desc
            .format_of(code)
            .ok_or(DisplayError::UnknownFormat { pipe: p.name, code })?;
        let src = mmio.read32(p.src);
        return Ok(Mode {
            pipe: i,
            pipe_name: p.name,
            width: b.src_width.get(src) + 1,
            height: b.src_height.get(src) + 1,
            format,
            stride: mmio.read32(p.stride) & b.stride.mask(),
            tiled: b.tiled.get(cntr) != 0,
            surface: (mmio.read32(p.surf) & 0xffff_f000) as u64,
        });
    }
    Err(DisplayError::NoLitPipe)
}

/// A pipe's frame counter: the 32-bit counter, or the 965's 24 bits split
/// over two registers, read high, low, high until the two highs agree (Linux
/// i915_reg.h, PIPEAFRAMEHIGH).
fn frame_counter(mmio: &dyn Mmio, p: &PipeDesc) -> u32 {
    let Some(low_reg) = p.frame_pixel else {
        return mmio.read32(p.frame);
    };
    let mut high = mmio.read32(p.frame) & 0xffff;
    // The low byte wraps at most once per frame: a few tries always agree.
    for _ in 0..4 {
        let low = mmio.read32(low_reg) >> 24;
        let again = mmio.read32(p.frame) & 0xffff;
        if again == high {
            return (high << 8) | low;
        }
        high = again;
    }
    high << 8
}

/// One of the two surfaces the plane shows.
pub struct Surface<'a> {
    pub memory: Dma<'a>,
    pub mapping: Mapping,
    /// Bytes from line to line.
    pub stride: u32,
    pub tiling: Tiling,
}

impl Surface<'_> {
    pub fn gfx(&self) -> u64 {
        self.mapping.gfx.0
    }
}

/// The plane registers the firmware left, given back when the driver lets go.
#[derive(Clone, Copy, Debug)]
struct Saved {
    cntr: u32,
    linoff: u32,
    stride: u32,
    surf: u32,
    tileoff: u32,
}

/// Frame counters around a flip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlipReport {
    /// The frame counter when the flip was asked for, and when it was seen done.
    pub frame_before: u32,
    pub frame_after: u32,
    /// The surface now shown (0 or 1).
    pub front: usize,
}

/// The primary plane of a lit pipe, driven by this driver.
pub struct Display<'a, P: Platform> {
    desc: &'static DisplayDesc,
    pipe: &'static PipeDesc,
    mmio: &'a dyn Mmio,
    platform: &'a P,
    generation: Generation,
    mode: Mode,
    saved: Saved,
    /// The two surfaces (empty once released).
    buffers: Vec<Surface<'a>>,
    front: usize,
    released: bool,
}

/// Microseconds between two polls of a display register (a frame is
/// 16 667 us at 60 Hz).
const POLL_US: u64 = 10;

/// How long the take-over waits for the plane to show the first surface.
const TAKE_OVER_TIMEOUT_US: u64 = 1_000_000;

impl<'a, P: Platform> Display<'a, P> {
    /// Takes over the pipe the firmware lit, keeping its mode: two surfaces
    /// of the mode's size and format (`tiling`: linear or X; the plane has no
    /// Y tiling, so Y is taken as X), cleared to black, mapped in the GGTT;
    /// the plane shows the first from the next vertical blank on (this waits
    /// for it).
    pub fn take_over(
        gpu: &mut Gpu<'a, P>,
        platform: &'a P,
        tiling: Tiling,
    ) -> Result<Self, DisplayError> {
        let generation = gpu.generation();
        let desc = description(generation)?;
        let mmio = gpu.mmio();
        let mode = find_lit(mmio, generation)?;
        let pipe = &desc.pipes[mode.pipe];
        let saved = Saved {
            cntr: mmio.read32(pipe.cntr),
            linoff: mmio.read32(pipe.linoff),
            stride: mmio.read32(pipe.stride),
            surf: mmio.read32(pipe.surf),
            tileoff: mmio.read32(pipe.tileoff),
        };
        let tiling = match tiling {
            Tiling::Linear => Tiling::Linear,
            _ => Tiling::X,
        };
        let row = (mode.width * mode.format.bytes_per_pixel()) as usize;
        // The plane's stride is at most 32 KiB (003 lines 62712-62725); the
        // helpers' limit is the larger one of the blitter.
        let stride = tiling::align_pitch(tiling, row)
            .filter(|&s| s <= 32 * 1024)
            .ok_or(DisplayError::Tiling(TilingError::InvalidPitch {
                tiling,
                pitch: row,
            }))?;
        let bytes = tiling::surface_size(tiling, stride, mode.height as usize);
        let mut make = || -> Result<Surface<'a>, DisplayError> {
            let (memory, mapping) = gpu.map_buffer(bytes)?;
            memory
                .fill(0, memory.size(), 0)
                .map_err(|_| GpuError::BringUp("clearing a display surface"))?;
            Ok(Surface {
                memory,
                mapping,
                stride: stride as u32,
                tiling,
            })
        };
        let buffers = alloc::vec![make()?, make()?];
        let mut display = Display {
            desc,
            pipe,
            mmio,
            platform,
            generation,
            mode,
            saved,
            buffers,
            front: 0,
            released: false,
        };
        display.program(0);
        display.wait_vblank(TAKE_OVER_TIMEOUT_US)?;
        Ok(display)
    }

    /// Points the plane at surface `k` with its stride and tiling, the
    /// firmware's format kept; written last, DSPxSURF arms the update.
    fn program(&mut self, k: usize) {
        let b = self.desc.bits;
        let s = &self.buffers[k];
        let tiled = (s.tiling == Tiling::X) as u32;
        let cntr = b.tiled.put(self.mmio.read32(self.pipe.cntr), tiled);
        self.mmio.write32(self.pipe.cntr, cntr);
        self.mmio.write32(self.pipe.linoff, 0);
        self.mmio.write32(self.pipe.tileoff, 0);
        self.mmio
            .write32(self.pipe.stride, s.stride & b.stride.mask());
        self.mmio.write32(self.pipe.surf, s.gfx() as u32);
        self.front = k;
    }

    /// The mode kept from the firmware.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The surface on screen and the one to draw into.
    pub fn front(&self) -> &Surface<'a> {
        &self.buffers[self.front]
    }

    pub fn back(&self) -> &Surface<'a> {
        &self.buffers[1 - self.front]
    }

    /// The pipe's frame counter now.
    pub fn frame(&self) -> u32 {
        frame_counter(self.mmio, self.pipe)
    }

    /// Waits for the pipe's next vertical blank (its frame counter moves);
    /// returns the new frame count.
    pub fn wait_vblank(&self, timeout_us: u64) -> Result<u32, DisplayError> {
        let start = self.frame();
        let t0 = self.platform.now_ns();
        loop {
            let now = self.frame();
            if now != start {
                return Ok(now);
            }
            let waited_us = self.platform.now_ns().saturating_sub(t0) / 1000;
            if waited_us > timeout_us {
                return Err(DisplayError::VblankTimeout {
                    pipe: self.pipe.name,
                    waited_us,
                });
            }
            self.platform.delay_us(POLL_US);
        }
    }

    /// Writes `pixels` (row after row, `width` x `height` of the mode, in
    /// the mode's format as little-endian bytes) into the back surface with
    /// the CPU tiling helpers; `swizzle` is the bit-6 swizzling of X-tiled
    /// surfaces the machine uses (`Swizzle::None` where ARB_MODE's is off, as
    /// `Gpu::new` leaves it).
    pub fn write_back(&self, swizzle: Swizzle, pixels: &[u8]) -> Result<(), DisplayError> {
        let s = self.back();
        let row = (self.mode.width * self.mode.format.bytes_per_pixel()) as usize;
        let mut image = alloc::vec![0u8; s.memory.size()];
        tiling::linear_to_tiled(
            &mut image,
            s.tiling,
            swizzle,
            s.stride as usize,
            pixels,
            row,
            row,
            self.mode.height as usize,
        )?;
        s.memory
            .write(0, &image)
            .map_err(|_| GpuError::BringUp("writing a display surface"))?;
        Ok(())
    }

    /// Shows the back surface from the next vertical blank on and waits until
    /// the plane shows it. `Ring`: MI_DISPLAY_FLIP on the description's flip
    /// ring, done when the plane's flip-pending status clears (Gen4/G45 ISR)
    /// or its flip counter moves (G45 and later); `Registers`: DSPxSURF
    /// written, done at the next vertical blank. After a timeout the flip
    /// may still be taken at a later vertical blank: [`Display::front`] is
    /// then stale until the next flip that completes.
    pub fn flip(
        &mut self,
        gpu: &mut Gpu<'a, P>,
        method: FlipMethod,
        timeout_us: u64,
    ) -> Result<FlipReport, DisplayError> {
        let back = 1 - self.front;
        let frame_before = self.frame();
        let flips_before = self.pipe.flip_count.map(|r| self.mmio.read32(r));
        match method {
            FlipMethod::Registers => {
                self.program(back);
                let frame_after = self.wait_vblank(timeout_us)?;
                return Ok(FlipReport {
                    frame_before,
                    frame_after,
                    front: back,
                });
            }
            FlipMethod::Ring => self.queue_flip(gpu, back, timeout_us)?,
        }
        let t0 = self.platform.now_ns();
        loop {
            let pending = self
                .pipe
                .flip_pending
                .map(|s| self.mmio.read32(s.register) & (1 << s.bit) != 0);
            let done = match (pending, self.pipe.flip_count, flips_before) {
                (Some(p), ..) => !p,
                (None, Some(r), Some(before)) => self.mmio.read32(r) != before,
                // Neither: the flip is taken at the first vertical blank after it.
                _ => self.frame() != frame_before,
            };
            if done {
                self.front = back;
                return Ok(FlipReport {
                    frame_before,
                    frame_after: self.frame(),
                    front: back,
                });
            }
            let waited_us = self.platform.now_ns().saturating_sub(t0) / 1000;
            if waited_us > timeout_us {
                return Err(DisplayError::FlipTimeout {
                    pipe: self.pipe.name,
                    waited_us,
                });
            }
            self.platform.delay_us(POLL_US);
        }
    }

    /// MI_DISPLAY_FLIP of surface `k` on the flip ring, waited for as a batch.
    fn queue_flip(
        &mut self,
        gpu: &mut Gpu<'a, P>,
        k: usize,
        timeout_us: u64,
    ) -> Result<(), DisplayError> {
        let engine = gpu
            .engine_named(self.desc.flip_engine)
            .ok_or(DisplayError::NoFlipEngine(self.desc.flip_engine))?;
        let s = &self.buffers[k];
        let plane = self.pipe.flip_plane;
        let pitch = s.stride / 64;
        let tiled = (s.tiling == Tiling::X) as u32;
        let base = s.gfx();
        let mut batch = gpu.new_batch(4096)?;
        let src = self.mmio.read32(self.pipe.src) & 0x0fff_0fff;
        let pushed = match self.generation {
            Generation::Gen4 => batch.push(&baregpu_hal::gen4::commands::MiDisplayFlip {
                display_plane_select: plane,
                display_buffer_pitch: pitch,
                display_buffer_base_address: base,
                tile_parameter: tiled,
                pipe_source_size: Some(src),
                panel_fitter_enable: Some(false),
            }),
            Generation::G45 => batch.push(&baregpu_hal::g45::commands::MiDisplayFlip {
                display_plane_select: plane,
                display_buffer_pitch: pitch,
                display_buffer_base_address: base,
                tile_parameter: tiled,
                pipe_source_size: Some(src),
                panel_fitter_enable: Some(false),
            }),
            Generation::Gen6 => batch.push(&baregpu_hal::gen6::commands::MiDisplayFlip {
                async_flip_indicator: false,
                display_plane_select: plane,
                display_buffer_pitch: pitch,
                tile_parameter: tiled,
                display_buffer_base_address: base,
                flip_type: 0,
            }),
            Generation::Gen7 => batch.push(&baregpu_hal::gen7::commands::MiDisplayFlip {
                display_plane_select: plane,
                display_buffer_pitch: pitch,
                tile_parameter: tiled,
                display_buffer_base_address: base,
            }),
            g => return Err(DisplayError::NoDisplay(g)),
        };
        pushed.map_err(|_| GpuError::BringUp("MI_DISPLAY_FLIP does not pack"))?;
        let fence = gpu.submit(engine, batch)?;
        gpu.wait(fence, timeout_us)?;
        Ok(())
    }

    /// Gives the plane back to the firmware's surface and registers, waits
    /// until it shows it, and unmaps the two surfaces.
    pub fn release(mut self, gpu: &mut Gpu<'a, P>, timeout_us: u64) -> Result<(), DisplayError> {
        self.restore();
        let shown = self.wait_vblank(timeout_us);
        for s in self.buffers.drain(..) {
            gpu.unmap(s.mapping);
        }
        shown.map(|_| ())
    }

    /// The firmware's plane registers, DSPxSURF last (arming them).
    fn restore(&mut self) {
        if core::mem::replace(&mut self.released, true) {
            return;
        }
        let s = self.saved;
        self.mmio.write32(self.pipe.cntr, s.cntr);
        self.mmio.write32(self.pipe.linoff, s.linoff);
        self.mmio.write32(self.pipe.stride, s.stride);
        self.mmio.write32(self.pipe.tileoff, s.tileoff);
        self.mmio.write32(self.pipe.surf, s.surf);
    }
}

impl<P: Platform> Drop for Display<'_, P> {
    /// The firmware's surface comes back at the next vertical blank even when
    /// the display is dropped without [`Display::release`] (its surfaces'
    /// GGTT ranges then stay in use until the `Gpu` goes).
    fn drop(&mut self) {
        self.restore();
    }
}
