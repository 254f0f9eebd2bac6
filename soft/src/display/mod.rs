//! The display engine: the pipes the firmware left lit, their primary planes,
//! vertical blank, flips, and the picture a plane shows (`scanout`).
//!
//! What each generation has is read from the device description's
//! `[display]` (`baregpu_hal::device::DisplayDesc`): the pipe and plane
//! registers, the accepted pixel formats, the register fields, where vertical
//! blank and flip events show. The model keeps those registers itself (the
//! register file never sees them) because they are double buffered:
//!
//! - DSPxCNTR, DSPxSTRIDE, DSPxLINOFF and DSPxTILEOFF read back what was last
//!   written; what the plane uses (its *live* copy) changes at the start of
//!   the next vertical blank after a write to DSPxSURF arms the update, or at
//!   once while the pipe or the plane is disabled ("Double Buffer Update
//!   Point: Start of vertical blank or pipe disabled or primary disabled,
//!   after armed. Double Buffer Armed By: Write to DSPASURF", 003 lines
//!   62469-62483; the 965 is the same in Linux i9xx_plane.c
//!   i9xx_plane_update_arm, which writes DSPSURF last to arm the update);
//! - MI_DISPLAY_FLIP queues a new base, pitch and tiling for the plane's next
//!   vertical blank; "command execution then continues normally" (003 lines
//!   15063-15100). A second flip before that vertical blank replaces the
//!   first (the manual leaves it undefined). Gen6's asynchronous flips
//!   (Flip Type 1) take effect at once;
//! - at each start of vertical blank of an enabled pipe: the frame counter
//!   counts, armed plane registers and a queued flip become live (the flip
//!   counter counts each latched DSPxSURF write and each command streamer
//!   flip), and the status bits
//!   of the description are set through the device (`Display::take_events`):
//!   PIPExSTAT's vblank status on Gen4/G45, DEIIR's vblank and (for a
//!   command streamer flip) flip done on Gen6/Gen7. On Gen4/G45 the plane's
//!   flip-pending bit is high in ISR from the MI_DISPLAY_FLIP until the flip
//!   is done, and latched in IIR when the flip is queued (Linux i915_irq.c:
//!   "IIR has the Pendingflip asserted following the MI_DISPLAY_FLIP, but ISR
//!   is deasserted, hence the flip is completed").
//!
//! Time: the display has no clock of its own. Its clock is the device's,
//! counted in ticks: one per command an engine executes (the timestamp) and
//! one per MMIO read (reading is how time passes for the model). A frame lasts
//! [`DEFAULT_FRAME_TICKS`] ticks unless changed (`SoftGpu::set_frame_ticks`),
//! so the same MMIO and command sequence always sees vertical blanks at the
//! same points. A driver polling a register for vertical blank sees one
//! within that many reads; a ring waiting on MI_WAIT_FOR_EVENT waits until
//! the next frame begins.

pub mod scanout;

use alloc::vec::Vec;

use baregpu_hal::device::{DisplayDesc, FieldBits, PipeDesc, PixelFormat, StatusBit};

/// Clock ticks (commands executed plus MMIO reads) per frame.
pub const DEFAULT_FRAME_TICKS: u64 = 256;

/// PIPExSTAT: status bits (15:0 and the FIFO underrun status, 31) are
/// write-one-to-clear, enable bits (30:16) plain (Linux i915_reg.h
/// PIPESTAT_INT_ENABLE_MASK 0x7fff0000, PIPESTAT_INT_STATUS_MASK 0x0000ffff,
/// PIPE_FIFO_UNDERRUN_STATUS bit 31).
const PIPESTAT_ENABLES: u32 = 0x7fff_0000;

/// The mode the firmware left on a pipe: what `SoftGpu` starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FirmwareMode {
    /// Index of the pipe in the description (0 = pipe A).
    pub pipe: usize,
    pub width: u32,
    pub height: u32,
    pub format: PixelFormat,
    /// GGTT address of the surface the plane scans out.
    pub surface: u64,
    /// Bytes from line to line.
    pub stride: u32,
    /// X-tiled (else linear).
    pub tiled: bool,
}

impl FirmwareMode {
    /// Pipe A lit at `width` x `height` in `format`, a linear surface at
    /// `surface` with lines 64-byte aligned.
    pub fn linear(width: u32, height: u32, format: PixelFormat, surface: u64) -> FirmwareMode {
        FirmwareMode {
            pipe: 0,
            width,
            height,
            format,
            surface,
            stride: width
                .saturating_mul(format.bytes_per_pixel())
                .checked_next_multiple_of(64)
                .unwrap_or(!63),
            tiled: false,
        }
    }

    /// What the model's firmware leaves lit: pipe A at 1024 x 768, XRGB8888,
    /// linear, at GGTT address 0 (where firmware puts its framebuffer at the
    /// start of stolen memory; Linux i915 reads it back from DSPSURF in
    /// i9xx_plane.c i9xx_get_initial_plane_config).
    pub fn default_lit() -> FirmwareMode {
        FirmwareMode::linear(1024, 768, PixelFormat::Xrgb8888, 0)
    }
}

/// The plane registers of one copy (written or live).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PlaneRegs {
    pub cntr: u32,
    pub linoff: u32,
    pub stride: u32,
    pub surf: u32,
    pub tileoff: u32,
}

/// A flip queued by MI_DISPLAY_FLIP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Flip {
    base: u32,
    stride: u32,
    tiled: bool,
}

#[derive(Clone, Debug, Default)]
struct Pipe {
    conf: u32,
    src: u32,
    stat: u32,
    frame: u32,
    flips: u32,
    /// What software wrote (and reads back).
    written: PlaneRegs,
    /// What the plane scans out.
    live: PlaneRegs,
    /// A DSPxSURF write waits for the next vertical blank.
    armed: bool,
    flip: Option<Flip>,
}

pub(crate) struct Display {
    desc: &'static DisplayDesc,
    pipes: Vec<Pipe>,
    frame_ticks: u64,
    /// Frames begun so far on the device clock (clock / frame_ticks).
    frames: u64,
    /// The GT interrupt identity register, where Gen4/G45 latch flip pending.
    gt_iir: u32,
    /// Status bits to set, in order (the device sets them).
    events: Vec<StatusBit>,
}

impl Display {
    pub fn new(desc: &'static DisplayDesc, gt_iir: u32) -> Display {
        Display {
            desc,
            pipes: desc.pipes.iter().map(|_| Pipe::default()).collect(),
            frame_ticks: DEFAULT_FRAME_TICKS,
            frames: 0,
            gt_iir,
            events: Vec::new(),
        }
    }

    pub fn desc(&self) -> &'static DisplayDesc {
        self.desc
    }

    /// Lights a pipe as firmware leaves it: pipe and plane enabled, the
    /// source size, format, stride and surface live. `false` when the pipe
    /// does not exist or the plane does not accept the format.
    pub fn light(&mut self, mode: &FirmwareMode) -> bool {
        let b = self.desc.bits;
        let Some(code) = self.desc.code_of(mode.format) else {
            return false;
        };
        let Some(pipe) = self.pipes.get_mut(mode.pipe) else {
            return false;
        };
        // The source size fields hold the size minus one.
        let fits =
            |size: u32, field: FieldBits| size >= 1 && size - 1 <= field.mask() >> field.shift;
        if !fits(mode.width, b.src_width) || !fits(mode.height, b.src_height) {
            return false;
        }
        pipe.conf = b.pipe_state.put(b.pipe_enable.put(0, 1), 1);
        pipe.src = b
            .src_height
            .put(b.src_width.put(0, mode.width - 1), mode.height - 1);
        let mut cntr = b.pixel_format.put(b.plane_enable.put(0, 1), code);
        if let Some(select) = b.pipe_select {
            cntr = select.put(cntr, mode.pipe as u32);
        }
        cntr = b.tiled.put(cntr, mode.tiled as u32);
        let regs = PlaneRegs {
            cntr,
            linoff: 0,
            stride: mode.stride & b.stride.mask(),
            surf: mode.surface as u32 & 0xffff_f000,
            tileoff: 0,
        };
        pipe.written = regs;
        pipe.live = regs;
        true
    }

    /// Turns every pipe off (a machine whose firmware lit nothing).
    pub fn dark(&mut self) {
        for p in &mut self.pipes {
            *p = Pipe::default();
        }
    }

    pub fn set_frame_ticks(&mut self, ticks: u64, clock: u64) {
        self.frame_ticks = ticks.max(1);
        self.frames = clock / self.frame_ticks;
    }

    pub fn frame_ticks(&self) -> u64 {
        self.frame_ticks
    }

    fn pipe_enabled(&self, p: &Pipe) -> bool {
        self.desc.bits.pipe_enable.get(p.conf) != 0
    }

    fn plane_enabled(&self, p: &Pipe) -> bool {
        self.desc.bits.plane_enable.get(p.live.cntr) != 0
    }

    /// Advances to the device clock `clock`: each frame begun since the last
    /// call is a start of vertical blank on every enabled pipe.
    pub fn advance(&mut self, clock: u64) {
        let now = clock / self.frame_ticks;
        let begun = now.saturating_sub(self.frames);
        self.frames = now;
        if begun == 0 {
            return;
        }
        // The first of them latches what is armed or queued and sets the
        // (sticky) status bits; the others only count.
        for i in 0..self.pipes.len() {
            self.vblank(i);
            if self.pipe_enabled(&self.pipes[i]) {
                let p = &mut self.pipes[i];
                p.frame = p.frame.wrapping_add((begun - 1) as u32);
            }
        }
    }

    /// Start of vertical blank on pipe `i`.
    fn vblank(&mut self, i: usize) {
        if !self.pipe_enabled(&self.pipes[i]) {
            return;
        }
        let desc = &self.desc.pipes[i];
        let b = self.desc.bits;
        let p = &mut self.pipes[i];
        p.frame = p.frame.wrapping_add(1);
        let armed = core::mem::take(&mut p.armed);
        if armed {
            p.live = p.written;
        }
        let flipped = p.flip.take();
        if let Some(f) = flipped {
            p.live.surf = f.base;
            p.live.stride = f.stride;
            p.live.cntr = b.tiled.put(p.live.cntr, f.tiled as u32);
            p.written.surf = f.base;
            p.written.stride = f.stride;
            p.written.cntr = b.tiled.put(p.written.cntr, f.tiled as u32);
        }
        // "This includes command streamer asynchronous and synchronous flips
        // and any MMIO writes to the primary plane surface address" (003
        // lines 61234-61250).
        if armed || flipped.is_some() {
            p.flips = p.flips.wrapping_add(1);
        }
        self.events.push(desc.vblank);
        if flipped.is_some()
            && let Some(done) = desc.flip_done
        {
            self.events.push(done);
        }
    }

    /// The status bits to set since the last call, in order.
    pub fn take_events(&mut self) -> Vec<StatusBit> {
        core::mem::take(&mut self.events)
    }

    /// Whether the model keeps `offset` itself.
    pub fn owns(&self, offset: u32) -> bool {
        self.desc
            .pipes
            .iter()
            .any(|d| regs_of(d).contains(&Some(offset)))
    }

    /// Sets a status bit of a register the display keeps (PIPExSTAT); the
    /// pipe event to raise when the bit's enable (16 above it) is set.
    pub fn set_status(&mut self, s: StatusBit) -> Option<StatusBit> {
        let i = self
            .desc
            .pipes
            .iter()
            .position(|d| d.stat == Some(s.register))?;
        let stat = &mut self.pipes[i].stat;
        *stat |= 1 << s.bit;
        let enabled = s.bit < 16 && *stat & (1 << (s.bit + 16)) != 0;
        self.desc.pipes[i].stat_event.filter(|_| enabled)
    }

    /// The live status bits the display drives high in the ISR at `offset`
    /// (the Gen4/G45 flip-pending bits).
    pub fn live_status(&self, offset: u32) -> u32 {
        let mut high = 0;
        for (d, p) in self.desc.pipes.iter().zip(&self.pipes) {
            if let Some(s) = d.flip_pending
                && s.register == offset
                && p.flip.is_some()
            {
                high |= 1 << s.bit;
            }
        }
        high
    }

    /// A read of a register the display keeps.
    pub fn read(&self, offset: u32) -> Option<u32> {
        for (d, p) in self.desc.pipes.iter().zip(&self.pipes) {
            let value = match offset {
                o if o == d.conf => p.conf,
                o if o == d.src => p.src,
                o if Some(o) == d.stat => p.stat,
                o if o == d.cntr => p.written.cntr,
                o if o == d.linoff => p.written.linoff,
                o if o == d.stride => p.written.stride,
                o if o == d.surf => p.written.surf,
                o if o == d.tileoff => p.written.tileoff,
                o if Some(o) == d.flip_count => p.flips,
                // The 965's 24-bit counter: bits 23:8 here, 7:0 in FRAMEPIXEL
                // 31:24 (the pixel count is not modelled: 0).
                o if o == d.frame && d.frame_pixel.is_some() => (p.frame >> 8) & 0xffff,
                o if o == d.frame => p.frame,
                o if Some(o) == d.frame_pixel => (p.frame & 0xff) << 24,
                _ => continue,
            };
            return Some(value);
        }
        None
    }

    /// A write of a register the display keeps; `false` if it is not one.
    pub fn write(&mut self, offset: u32, value: u32) -> bool {
        let b = self.desc.bits;
        let Some(i) = self
            .desc
            .pipes
            .iter()
            .position(|d| regs_of(d).contains(&Some(offset)))
        else {
            return false;
        };
        let d = &self.desc.pipes[i];
        let p = &mut self.pipes[i];
        match offset {
            o if o == d.conf => {
                // The pipe follows its enable at once (Pipe State, bit 30).
                let on = b.pipe_enable.get(value);
                p.conf = b.pipe_state.put(value, on);
            }
            o if o == d.src => p.src = value,
            o if Some(o) == d.stat => {
                p.stat = (value & PIPESTAT_ENABLES) | (p.stat & !PIPESTAT_ENABLES & !value);
            }
            o if o == d.cntr => p.written.cntr = value,
            o if o == d.linoff => p.written.linoff = value,
            o if o == d.stride => p.written.stride = value,
            o if o == d.tileoff => p.written.tileoff = value,
            o if o == d.surf => {
                p.written.surf = value & 0xffff_f000;
                p.armed = true;
            }
            // Read-only counters.
            _ => return true,
        }
        // With the pipe or the plane off, the written registers apply at once.
        let pipe_on = b.pipe_enable.get(p.conf) != 0;
        let plane_on = b.plane_enable.get(p.live.cntr) != 0;
        if !pipe_on || !plane_on {
            if core::mem::take(&mut p.armed) {
                p.flips = p.flips.wrapping_add(1);
            }
            p.live = p.written;
        }
        true
    }

    /// The pipe whose primary plane MI_DISPLAY_FLIP's plane select `plane` names.
    pub fn pipe_of_flip_plane(&self, plane: u32) -> Option<usize> {
        self.desc.pipes.iter().position(|d| d.flip_plane == plane)
    }

    /// MI_DISPLAY_FLIP on pipe `i`'s plane: queued for the next vertical blank,
    /// or done at once when `asynchronous`.
    pub fn queue_flip(
        &mut self,
        i: usize,
        base: u32,
        stride: u32,
        tiled: bool,
        asynchronous: bool,
    ) {
        let d = &self.desc.pipes[i];
        let flip = Flip {
            base: base & 0xffff_f000,
            stride: stride & self.desc.bits.stride.mask(),
            tiled,
        };
        if let Some(s) = d.flip_pending {
            // Latched in IIR at the rising edge of ISR's flip pending.
            self.events.push(StatusBit {
                register: self.gt_iir,
                bit: s.bit,
            });
        }
        self.pipes[i].flip = Some(flip);
        if asynchronous || !self.pipe_enabled(&self.pipes[i]) {
            self.finish_flip(i);
        }
    }

    /// Applies pipe `i`'s queued flip now (an asynchronous flip, or a pipe
    /// without vertical blanks).
    fn finish_flip(&mut self, i: usize) {
        let b = self.desc.bits;
        let p = &mut self.pipes[i];
        if let Some(f) = p.flip.take() {
            for regs in [&mut p.live, &mut p.written] {
                regs.surf = f.base;
                regs.stride = f.stride;
                regs.cntr = b.tiled.put(regs.cntr, f.tiled as u32);
            }
            p.flips = p.flips.wrapping_add(1);
            if let Some(done) = self.desc.pipes[i].flip_done {
                self.events.push(done);
            }
        }
    }

    /// Pipe `i`'s frame counter (frames begun while it was enabled).
    pub fn frame(&self, i: usize) -> Option<u32> {
        self.pipes.get(i).map(|p| p.frame)
    }

    /// Whether pipe `i` is enabled and its plane too.
    pub fn lit(&self, i: usize) -> bool {
        self.pipes
            .get(i)
            .is_some_and(|p| self.pipe_enabled(p) && self.plane_enabled(p))
    }

    /// Whether pipe `i` is enabled (its vertical blanks come).
    pub fn running(&self, i: usize) -> bool {
        self.pipes.get(i).is_some_and(|p| self.pipe_enabled(p))
    }

    /// Whether a flip waits on pipe `i`'s plane.
    pub fn flip_pending(&self, i: usize) -> bool {
        self.pipes.get(i).is_some_and(|p| p.flip.is_some())
    }

    /// What pipe `i`'s plane scans out: the live registers and the source size.
    pub(crate) fn live(&self, i: usize) -> Option<(PlaneRegs, u32)> {
        self.pipes.get(i).map(|p| (p.live, p.src))
    }

    /// The pipe a register name of MI_WAIT_FOR_EVENT refers to ("pipe_b",
    /// "plane_c" ...), by the description's pipe names.
    pub fn pipe_named_in(&self, field: &str) -> Option<usize> {
        self.desc.pipes.iter().position(|d| {
            let mut pipe = *b"pipe_x_";
            let mut plane = *b"plane_x_";
            let Some(&letter) = d.name.as_bytes().first() else {
                return false;
            };
            pipe[5] = letter;
            plane[6] = letter;
            let contains =
                |needle: &[u8]| field.as_bytes().windows(needle.len()).any(|w| w == needle);
            contains(&pipe) || contains(&plane)
        })
    }
}

/// The registers of a pipe the display keeps.
fn regs_of(d: &PipeDesc) -> [Option<u32>; 12] {
    [
        Some(d.conf),
        Some(d.src),
        d.stat,
        Some(d.cntr),
        Some(d.linoff),
        Some(d.stride),
        Some(d.surf),
        Some(d.tileoff),
        Some(d.frame),
        d.frame_pixel,
        d.flip_count,
        None,
    ]
}

#[cfg(test)]
mod tests;
