//! The display model through MMIO, as a driver sees it: the firmware's pipe,
//! double-buffered plane registers, the vertical blank clock, scanout.

use alloc::vec;
use alloc::vec::Vec;
use core::cell::RefCell;

use baregpu_hal::device::{self, PixelFormat};
use baregpu_hal::{BusError, Generation, MemoryBus, Mmio};

use super::FirmwareMode;
use crate::SoftGpu;

/// 1 MiB of physical memory.
struct Ram(RefCell<Vec<u8>>);

impl MemoryBus for &Ram {
    fn read(&self, phys: u64, buf: &mut [u8]) -> Result<(), BusError> {
        let ram = self.0.borrow();
        let s = ram
            .get(phys as usize..phys as usize + buf.len())
            .ok_or(BusError { phys })?;
        buf.copy_from_slice(s);
        Ok(())
    }

    fn write(&self, phys: u64, data: &[u8]) -> Result<(), BusError> {
        let mut ram = self.0.borrow_mut();
        let d = ram
            .get_mut(phys as usize..phys as usize + data.len())
            .ok_or(BusError { phys })?;
        d.copy_from_slice(data);
        Ok(())
    }
}

const GENERATIONS: [Generation; 4] = [
    Generation::Gen4,
    Generation::G45,
    Generation::Gen6,
    Generation::Gen7,
];

/// A 16 x 4 XRGB8888 mode, lines 64 bytes apart, at GGTT 0x10000.
const W: u32 = 16;
const H: u32 = 4;

fn gpu(generation: Generation, ram: &Ram) -> SoftGpu<&Ram> {
    let gpu = SoftGpu::new(generation, ram)
        .unwrap()
        .with_firmware_display(W, H, PixelFormat::Xrgb8888, 0x10000);
    // GGTT pages 0x10-0x1f map physical pages 0x10-0x1f (valid bit 0).
    let alias = device::of(generation).unwrap().gtt.alias_offset;
    for page in 0x10..0x20u32 {
        gpu.write32(alias + page * 4, (page << 12) | 1);
    }
    gpu
}

fn fill(ram: &Ram, phys: usize, words: &[u32]) {
    let mut r = ram.0.borrow_mut();
    for (k, w) in words.iter().enumerate() {
        r[phys + 4 * k..phys + 4 * k + 4].copy_from_slice(&w.to_le_bytes());
    }
}

fn display(generation: Generation) -> &'static device::DisplayDesc {
    device::of(generation).unwrap().display.as_ref().unwrap()
}

/// Reads a register until the pipe's frame counter moves (one vertical blank).
fn next_frame(gpu: &SoftGpu<&Ram>, generation: Generation) -> u32 {
    let pipe = &display(generation).pipes[0];
    let frame = |g: &SoftGpu<&Ram>| match pipe.frame_pixel {
        Some(low) => (g.read32(pipe.frame) << 8) | (g.read32(low) >> 24),
        None => g.read32(pipe.frame),
    };
    let start = frame(gpu);
    for _ in 0..10 * gpu.frame_ticks().unwrap() {
        let now = frame(gpu);
        if now != start {
            return now;
        }
    }
    panic!("{generation:?}: no vertical blank");
}

#[test]
fn the_firmware_mode_reads_back() {
    for g in GENERATIONS {
        let ram = Ram(RefCell::new(vec![0; 0x10_0000]));
        let gpu = gpu(g, &ram);
        let d = display(g);
        let b = d.bits;
        let a = &d.pipes[0];
        assert_eq!(b.pipe_enable.get(gpu.read32(a.conf)), 1, "{g:?}");
        assert_eq!(b.pipe_state.get(gpu.read32(a.conf)), 1, "{g:?}");
        let cntr = gpu.read32(a.cntr);
        assert_eq!(b.plane_enable.get(cntr), 1);
        assert_eq!(
            d.format_of(b.pixel_format.get(cntr)),
            Some(PixelFormat::Xrgb8888)
        );
        assert_eq!(b.src_width.get(gpu.read32(a.src)), W - 1);
        assert_eq!(b.src_height.get(gpu.read32(a.src)), H - 1);
        assert_eq!(gpu.read32(a.surf), 0x10000);
        assert_eq!(gpu.read32(a.stride), 64);
        // Pipe B is dark.
        assert_eq!(b.pipe_enable.get(gpu.read32(d.pipes[1].conf)), 0);
        assert!(gpu.scanout(1).is_none());
    }
}

#[test]
fn a_surface_write_shows_at_the_next_vertical_blank() {
    for g in GENERATIONS {
        let ram = Ram(RefCell::new(vec![0; 0x10_0000]));
        let gpu = gpu(g, &ram);
        let a = &display(g).pipes[0];
        fill(&ram, 0x10000, &[0x00aa_0000; (W * H) as usize]);
        fill(&ram, 0x11000, &[0x0000_00bb; 1024]);
        let before = gpu.scanout(0).unwrap();
        assert_eq!(before.pixel(3, 2), Some(0xaa_0000));
        // Stride and surface written: nothing changes before the vertical blank.
        gpu.write32(a.stride, 128);
        gpu.write32(a.surf, 0x11000);
        assert_eq!(gpu.read32(a.surf), 0x11000, "reads back what was written");
        assert_eq!(
            gpu.scanout(0).unwrap(),
            before,
            "{g:?}: latched only at vblank"
        );
        next_frame(&gpu, g);
        let after = gpu.scanout(0).unwrap();
        assert_eq!(after.surface, 0x11000);
        assert!(after.pixels.iter().all(|&p| p == 0xbb), "{g:?}");
        if let Some(flips) = a.flip_count {
            assert_eq!(gpu.read32(flips), 1, "{g:?}: one flip counted");
        }
        // The vertical blank status of the description is set.
        let v = a.vblank;
        let de = device::of(g).unwrap().interrupts.block("display");
        if a.stat == Some(v.register) || de.is_none() {
            assert_ne!(gpu.read32(v.register) & (1 << v.bit), 0, "{g:?}");
        }
    }
}

#[test]
fn x_tiled_scanout_reads_the_tile_layout() {
    for g in GENERATIONS {
        let ram = Ram(RefCell::new(vec![0; 0x10_0000]));
        let gpu = gpu(g, &ram).with_firmware_mode(Some(FirmwareMode {
            pipe: 0,
            width: 200,
            height: 10,
            format: PixelFormat::Xrgb8888,
            surface: 0x10000,
            stride: 1024,
            tiled: true,
        }));
        let alias = device::of(g).unwrap().gtt.alias_offset;
        for page in 0x10..0x20u32 {
            gpu.write32(alias + page * 4, (page << 12) | 1);
        }
        // Pixel (x, y) = y << 8 | x, stored where an X tile puts it: tiles of
        // 512 bytes x 8 lines, 4 KiB each, two tiles per tile row.
        for y in 0..10u32 {
            for x in 0..200u32 {
                let xb = x * 4;
                let at = (y / 8) * 2 * 4096 + (xb / 512) * 4096 + (y % 8) * 512 + xb % 512;
                fill(&ram, 0x10000 + at as usize, &[y << 8 | x]);
            }
        }
        let pic = gpu.scanout(0).unwrap();
        assert!(pic.tiled);
        for (y, x) in [(0, 0), (0, 127), (0, 128), (7, 199), (8, 0), (9, 130)] {
            assert_eq!(pic.pixel(x, y), Some(y << 8 | x), "{g:?} ({x}, {y})");
        }
    }
}

#[test]
fn a_plane_outside_the_ggtt_shows_black() {
    for g in GENERATIONS {
        let ram = Ram(RefCell::new(vec![0; 0x10_0000]));
        let gpu = gpu(g, &ram);
        let a = &display(g).pipes[0];
        fill(&ram, 0x10000, &[0x00ff_ffff; (W * H) as usize]);
        // Page 0x40 has no valid entry.
        gpu.write32(a.surf, 0x40000);
        next_frame(&gpu, g);
        let pic = gpu.scanout(0).unwrap();
        assert_eq!(pic.unreadable, W * H);
        assert!(pic.pixels.iter().all(|&p| p == 0));
    }
}

#[test]
fn a_dark_machine_has_no_picture_and_no_frames() {
    for g in GENERATIONS {
        let ram = Ram(RefCell::new(vec![0; 0x10_0000]));
        let gpu = SoftGpu::new(g, &ram).unwrap().with_firmware_mode(None);
        let a = &display(g).pipes[0];
        assert!(gpu.scanout(0).is_none());
        for _ in 0..4 * gpu.frame_ticks().unwrap() {
            gpu.read32(a.conf);
        }
        assert_eq!(
            gpu.read32(a.frame),
            0,
            "{g:?}: a disabled pipe counts no frames"
        );
    }
}
