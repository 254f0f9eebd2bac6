//! Taking over the firmware's display on the software GPU, for Gen4, G45,
//! Gen6 and Gen7: the mode is kept, flips (through the ring and through the
//! plane registers) show only after a vertical blank, X-tiled surfaces scan
//! out as their linear picture, every accepted pixel format converts as the
//! manuals pack it, and a machine without a lit pipe is a clear error.

use baregpu::display::{Display, DisplayError, FlipMethod, find_lit};
use baregpu::gtt::tiling::{Swizzle, Tiling};
use baregpu::hal::Generation;
use baregpu::hal::device::{self, PixelFormat};
use baregpu::platform::PlatformBus;
use baregpu::platform::host::HostPlatform;
use baregpu::{EngineId, Gpu};
use baregpu_soft::{FirmwareMode, SoftGpu};

const GENERATIONS: [Generation; 4] = [
    Generation::Gen4,
    Generation::G45,
    Generation::Gen6,
    Generation::Gen7,
];

/// A small mode, so that every scanout is quick: odd width, several X tiles.
const W: u32 = 150;
const H: u32 = 20;
const TIMEOUT_US: u64 = 5_000_000;

fn soft(
    p: &HostPlatform,
    generation: Generation,
    mode: Option<FirmwareMode>,
) -> SoftGpu<PlatformBus<'_, HostPlatform>> {
    SoftGpu::new(generation, PlatformBus::new(p))
        .unwrap()
        .with_firmware_mode(mode)
}

fn small(format: PixelFormat) -> Option<FirmwareMode> {
    // The firmware's surface: GGTT page 0, which nothing maps (it shows black).
    Some(FirmwareMode::linear(W, H, format, 0))
}

/// A picture in XRGB8888 bytes: distinct colours per pixel.
fn pattern(seed: u32) -> Vec<u32> {
    (0..W * H)
        .map(|i| {
            let (x, y) = (i % W, i / W);
            ((x * 7 + seed) & 0xff) << 16 | ((y * 13 + seed) & 0xff) << 8 | ((x ^ y) + seed) & 0xff
        })
        .collect()
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn take_over_keeps_the_firmware_mode() {
    for g in GENERATIONS {
        let p = HostPlatform::new();
        // The model's default firmware mode: pipe A, 1024 x 768 XRGB8888, linear.
        let soft = SoftGpu::new(g, PlatformBus::new(&p)).unwrap();
        let mut gpu = Gpu::new(&p, &soft, g).unwrap();
        let mode = find_lit(gpu.mmio(), g).unwrap();
        assert_eq!(
            (mode.pipe_name, mode.width, mode.height, mode.format),
            ("a", 1024, 768, PixelFormat::Xrgb8888),
            "{g:?}"
        );
        let firmware_surface = mode.surface;
        let display = Display::take_over(&mut gpu, &p, Tiling::X).unwrap();
        let kept = find_lit(gpu.mmio(), g).unwrap();
        assert_eq!(
            (kept.width, kept.height, kept.format),
            (1024, 768, PixelFormat::Xrgb8888)
        );
        assert!(kept.tiled, "{g:?}: the plane scans the X-tiled surface");
        assert_eq!(kept.surface, display.front().gfx());
        assert_eq!(kept.stride % 512, 0);
        display.release(&mut gpu, TIMEOUT_US).unwrap();
        let back = find_lit(gpu.mmio(), g).unwrap();
        assert_eq!(
            back.surface, firmware_surface,
            "{g:?}: the firmware's surface is back"
        );
        assert!(!back.tiled);
    }
}

#[test]
fn a_flip_is_seen_only_after_a_vertical_blank() {
    for g in GENERATIONS {
        for method in [FlipMethod::Ring, FlipMethod::Registers] {
            let p = HostPlatform::new();
            let soft = soft(&p, g, small(PixelFormat::Xrgb8888));
            let mut gpu = Gpu::new(&p, &soft, g).unwrap();
            let mut display = Display::take_over(&mut gpu, &p, Tiling::Linear).unwrap();
            assert!(
                soft.scanout(0).unwrap().pixels.iter().all(|&px| px == 0),
                "black first"
            );
            let picture = pattern(1);
            display.write_back(Swizzle::None, &bytes(&picture)).unwrap();
            let report = display.flip(&mut gpu, method, TIMEOUT_US).unwrap();
            assert_ne!(report.frame_after, report.frame_before, "{g:?} {method:?}");
            let shown = soft.scanout(0).unwrap();
            assert_eq!(shown.surface, display.front().gfx());
            assert_eq!(shown.pixels, picture, "{g:?} {method:?}");
            // And back to the first surface, drawn anew.
            let second = pattern(77);
            display.write_back(Swizzle::None, &bytes(&second)).unwrap();
            display.flip(&mut gpu, method, TIMEOUT_US).unwrap();
            assert_eq!(soft.scanout(0).unwrap().pixels, second, "{g:?} {method:?}");
        }
    }
}

/// MI_DISPLAY_FLIP completes in the ring at once; the plane keeps the old
/// surface until the next frame begins.
#[test]
fn a_queued_flip_waits_for_the_frame_to_end() {
    for g in GENERATIONS {
        let p = HostPlatform::new();
        let soft = soft(&p, g, small(PixelFormat::Xrgb8888));
        let mut gpu = Gpu::new(&p, &soft, g).unwrap();
        let mut display = Display::take_over(&mut gpu, &p, Tiling::X).unwrap();
        display
            .write_back(Swizzle::None, &bytes(&pattern(5)))
            .unwrap();
        let front = display.front().gfx();
        // Frames far longer than the flip's batch takes.
        soft.set_frame_ticks(1 << 40);
        let err = display
            .flip(&mut gpu, FlipMethod::Ring, 20_000)
            .unwrap_err();
        assert!(
            matches!(err, DisplayError::FlipTimeout { .. }),
            "{g:?}: {err}"
        );
        assert!(err.to_string().contains("did not complete"), "{err}");
        assert_eq!(
            soft.scanout(0).unwrap().surface,
            front,
            "{g:?}: not before vblank"
        );
        // Frames short again: the next one takes the queued flip.
        soft.set_frame_ticks(64);
        display.wait_vblank(TIMEOUT_US).unwrap();
        let shown = soft.scanout(0).unwrap();
        assert_eq!(shown.surface, display.back().gfx(), "{g:?}");
        assert_eq!(shown.pixels, pattern(5));
    }
}

#[test]
fn x_tiled_scanout_equals_the_linear_picture() {
    for g in GENERATIONS {
        let mut pictures = Vec::new();
        for tiling in [Tiling::Linear, Tiling::X] {
            let p = HostPlatform::new();
            let soft = soft(&p, g, small(PixelFormat::Xrgb8888));
            let mut gpu = Gpu::new(&p, &soft, g).unwrap();
            let mut display = Display::take_over(&mut gpu, &p, tiling).unwrap();
            display
                .write_back(Swizzle::None, &bytes(&pattern(9)))
                .unwrap();
            display
                .flip(&mut gpu, FlipMethod::Ring, TIMEOUT_US)
                .unwrap();
            let shown = soft.scanout(0).unwrap();
            assert_eq!(shown.tiled, tiling == Tiling::X);
            assert_eq!(shown.unreadable, 0);
            pictures.push(shown.pixels);
        }
        assert_eq!(pictures[0], pictures[1], "{g:?}");
        assert_eq!(pictures[0], pattern(9));
    }
}

/// Each format's memory bytes for red `r`, green `g`, blue `b` (8 bits each),
/// packed as the manuals' bit tables say (003 lines 62660-62680), and the RGB the
/// plane shows for them.
fn packed(format: PixelFormat, r: u32, g: u32, b: u32) -> (Vec<u8>, u32) {
    let shown = |r: u32, g: u32, b: u32| r << 16 | g << 8 | b;
    match format {
        PixelFormat::C8 => (vec![r as u8], shown(r, r, r)),
        PixelFormat::Rgb565 => {
            let v = (r >> 3) << 11 | (g >> 2) << 5 | b >> 3;
            let w = |c: u32, bits: u32| {
                (c >> (8 - bits)) << (8 - bits) | (c >> (8 - bits)) >> (2 * bits - 8)
            };
            (
                (v as u16).to_le_bytes().to_vec(),
                shown(w(r, 5), w(g, 6), w(b, 5)),
            )
        }
        PixelFormat::Xrgb8888 => (
            (r << 16 | g << 8 | b).to_le_bytes().to_vec(),
            shown(r, g, b),
        ),
        PixelFormat::Xbgr8888 => (
            (b << 16 | g << 8 | r).to_le_bytes().to_vec(),
            shown(r, g, b),
        ),
        PixelFormat::Xrgb2101010 => (
            (r << 22 | g << 12 | b << 2).to_le_bytes().to_vec(),
            shown(r, g, b),
        ),
        PixelFormat::Xbgr2101010 => (
            (b << 22 | g << 12 | r << 2).to_le_bytes().to_vec(),
            shown(r, g, b),
        ),
        PixelFormat::Xbgr16161616F => {
            // 0.0, 0.5 and 1.0 as half floats: exactly 0, 128 (rounded), 255.
            let half = |c: u32| match c {
                0 => 0u64,
                128 => 0x3800,
                _ => 0x3c00,
            };
            let c8 = |c: u32| match c {
                0 => 0,
                128 => 128,
                _ => 255,
            };
            let v = half(r) | half(g) << 16 | half(b) << 32;
            (v.to_le_bytes().to_vec(), shown(c8(r), c8(g), c8(b)))
        }
    }
}

#[test]
fn every_accepted_format_shows_its_colours() {
    for g in GENERATIONS {
        let desc = device::of(g).unwrap().display.as_ref().unwrap();
        assert!(desc.formats.len() >= 6, "{g:?}");
        for f in desc.formats {
            let p = HostPlatform::new();
            let soft = soft(&p, g, small(f.format));
            let mut gpu = Gpu::new(&p, &soft, g).unwrap();
            let mut display = Display::take_over(&mut gpu, &p, Tiling::X).unwrap();
            assert_eq!(
                display.mode().format,
                f.format,
                "the firmware's format is kept"
            );
            let colours = [
                (255, 0, 0),
                (0, 255, 0),
                (0, 0, 255),
                (128, 255, 0),
                (255, 128, 128),
            ];
            let mut image = Vec::new();
            let mut expect = Vec::new();
            for i in 0..W * H {
                let (r, gr, b) = colours[(i % colours.len() as u32) as usize];
                let (raw, rgb) = packed(f.format, r, gr, b);
                image.extend(raw);
                expect.push(rgb);
            }
            display.write_back(Swizzle::None, &image).unwrap();
            display
                .flip(&mut gpu, FlipMethod::Registers, TIMEOUT_US)
                .unwrap();
            let shown = soft.scanout(0).unwrap();
            assert_eq!(shown.format, f.format);
            assert_eq!(shown.pixels, expect, "{g:?} {:?}", f.format);
        }
    }
}

#[test]
fn no_lit_pipe_is_a_clear_error() {
    for g in GENERATIONS {
        let p = HostPlatform::new();
        let soft = soft(&p, g, None);
        let mut gpu = Gpu::new(&p, &soft, g).unwrap();
        let err = Display::take_over(&mut gpu, &p, Tiling::Linear)
            .err()
            .unwrap();
        assert_eq!(err, DisplayError::NoLitPipe, "{g:?}");
        assert!(err.to_string().contains("no pipe is lit"), "{err}");
    }
}

#[test]
fn a_stopped_pipe_times_out_waiting_for_vblank() {
    for g in GENERATIONS {
        let p = HostPlatform::new();
        let soft = soft(&p, g, small(PixelFormat::Xrgb8888));
        let mut gpu = Gpu::new(&p, &soft, g).unwrap();
        let display = Display::take_over(&mut gpu, &p, Tiling::Linear).unwrap();
        let pipe = &device::of(g).unwrap().display.as_ref().unwrap().pipes[0];
        let conf = gpu.mmio().read32(pipe.conf);
        gpu.mmio().write32(pipe.conf, conf & !(1 << 31));
        let err = display.wait_vblank(20_000).unwrap_err();
        assert!(
            matches!(err, DisplayError::VblankTimeout { pipe: "a", .. }),
            "{g:?}: {err}"
        );
        assert!(err.to_string().contains("no vertical blank"), "{err}");
        gpu.mmio().write32(pipe.conf, conf);
        display.wait_vblank(TIMEOUT_US).unwrap();
    }
}

/// The ring's MI_WAIT_FOR_EVENT on pipe A's vertical blank ends at the next
/// frame; pipe B is off, so a wait on it is a hang the driver recovers from.
#[test]
fn a_ring_waits_for_the_running_pipes_vertical_blank() {
    use baregpu::hal::Packet;
    for g in GENERATIONS {
        let p = HostPlatform::new();
        let soft = soft(&p, g, small(PixelFormat::Xrgb8888));
        let mut gpu = Gpu::new(&p, &soft, g).unwrap();
        let (buf, map) = gpu.map_buffer(4096).unwrap();
        let wait = |pipe: usize| -> Vec<u32> {
            let mut dw = [0u32; 1];
            let (a, b) = (pipe == 0, pipe == 1);
            match g {
                Generation::Gen4 => baregpu::hal::gen4::commands::MiWaitForEvent {
                    pipe_a_vertical_blank_wait_enable: a,
                    pipe_b_vertical_blank_wait_enable: b,
                    ..Default::default()
                }
                .pack(&mut dw),
                Generation::G45 => baregpu::hal::g45::commands::MiWaitForEvent {
                    pipe_a_vertical_blank_wait_enable: a,
                    pipe_b_vertical_blank_wait_enable: b,
                    ..Default::default()
                }
                .pack(&mut dw),
                Generation::Gen6 => baregpu::hal::gen6::commands::MiWaitForEvent {
                    display_pipe_a_vertical_blank_wait_enable: a,
                    display_pipe_b_vertical_blank_wait_enable: b,
                    ..Default::default()
                }
                .pack(&mut dw),
                _ => baregpu::hal::gen7::commands::MiWaitForEvent {
                    display_pipe_a_vertical_blank_wait_enable: a,
                    display_pipe_b_vertical_blank_wait_enable: b,
                    ..Default::default()
                }
                .pack(&mut dw),
            }
            .unwrap();
            dw.to_vec()
        };
        // MI_STORE_DATA_IMM through the GGTT (the same four dwords on all four).
        let store = |value: u32| [0x1040_0002, 0, map.gfx.0 as u32, value];
        // The frame counter's low bits (the 965 keeps them in FRAMEPIXEL 31:24).
        let pipe = &device::of(g).unwrap().display.as_ref().unwrap().pipes[0];
        let frame = |gpu: &Gpu<'_, HostPlatform>| match pipe.frame_pixel {
            Some(low) => gpu.mmio().read32(low) >> 24,
            None => gpu.mmio().read32(pipe.frame),
        };
        let before = frame(&gpu);
        let mut b = gpu.new_batch(4096).unwrap();
        b.push_dwords(&wait(0)).unwrap();
        b.push_dwords(&store(7)).unwrap();
        let f = gpu.submit(EngineId::RENDER, b).unwrap();
        gpu.wait(f, TIMEOUT_US).unwrap();
        assert_eq!(buf.read_u32(0).unwrap(), 7, "{g:?}");
        assert_ne!(frame(&gpu), before, "{g:?}: a frame passed");
        let mut b = gpu.new_batch(4096).unwrap();
        b.push_dwords(&wait(1)).unwrap();
        b.push_dwords(&store(8)).unwrap();
        let f = gpu.submit(EngineId::RENDER, b).unwrap();
        assert!(gpu.wait(f, 20_000).is_err(), "{g:?}: pipe B never blanks");
        assert_eq!(buf.read_u32(0).unwrap(), 7);
    }
}

/// The status bits of the description: DEIIR's vertical blank and flip done
/// (Gen6/Gen7, latched unless DEIMR masks them, write one to clear), or
/// PIPExSTAT's vertical blank status and ISR's flip pending (Gen4/G45).
#[test]
fn vertical_blank_and_flip_status_bits() {
    for g in GENERATIONS {
        let p = HostPlatform::new();
        let soft = soft(&p, g, small(PixelFormat::Xrgb8888));
        let mut gpu = Gpu::new(&p, &soft, g).unwrap();
        let desc = device::of(g).unwrap().display.as_ref().unwrap();
        let pipe = &desc.pipes[0];
        let mmio = gpu.mmio();
        let mut display = Display::take_over(&mut gpu, &p, Tiling::X).unwrap();
        let vblank = 1 << pipe.vblank.bit;
        let de = device::of(g)
            .unwrap()
            .interrupts
            .block("display")
            .map(|b| b.regs);
        match (de, pipe.flip_done, pipe.flip_pending) {
            (Some(de), Some(done), None) => {
                let done_bit = 1 << done.bit;
                // Masked: nothing latches.
                mmio.write32(de.imr, u32::MAX);
                mmio.write32(de.iir, u32::MAX);
                display
                    .flip(&mut gpu, FlipMethod::Ring, TIMEOUT_US)
                    .unwrap();
                assert_eq!(
                    mmio.read32(de.iir) & (vblank | done_bit),
                    0,
                    "{g:?}: masked"
                );
                mmio.write32(de.imr, !(vblank | done_bit));
                display
                    .flip(&mut gpu, FlipMethod::Ring, TIMEOUT_US)
                    .unwrap();
                assert_eq!(
                    mmio.read32(de.iir) & (vblank | done_bit),
                    vblank | done_bit,
                    "{g:?}"
                );
                mmio.write32(de.iir, done_bit);
                assert_eq!(
                    mmio.read32(de.iir) & done_bit,
                    0,
                    "{g:?}: write one to clear"
                );
                // A register flip is no command streamer flip: no flip done.
                display
                    .flip(&mut gpu, FlipMethod::Registers, TIMEOUT_US)
                    .unwrap();
                assert_eq!(mmio.read32(de.iir) & done_bit, 0, "{g:?}");
            }
            (None, None, Some(pending)) => {
                let stat = pipe.stat.unwrap();
                assert_ne!(mmio.read32(stat) & vblank, 0, "{g:?}: vblank status");
                mmio.write32(stat, vblank);
                assert_eq!(mmio.read32(stat) & vblank, 0, "{g:?}: write one to clear");
                // With its enable set, the status raises the pipe event in IIR.
                let event = pipe.stat_event.unwrap();
                let irq = device::of(g).unwrap().gt.irq;
                mmio.write32(irq.imr, !(1 << event.bit));
                mmio.write32(irq.iir, u32::MAX);
                display.wait_vblank(TIMEOUT_US).unwrap();
                assert_eq!(
                    mmio.read32(irq.iir) & (1 << event.bit),
                    0,
                    "{g:?}: not enabled"
                );
                mmio.write32(stat, vblank << 16);
                display.wait_vblank(TIMEOUT_US).unwrap();
                assert_ne!(
                    mmio.read32(irq.iir) & (1 << event.bit),
                    0,
                    "{g:?}: pipe event"
                );
                // A queued flip is pending in ISR until its vertical blank.
                soft.set_frame_ticks(1 << 40);
                assert!(display.flip(&mut gpu, FlipMethod::Ring, 20_000).is_err());
                assert_ne!(
                    mmio.read32(pending.register) & (1 << pending.bit),
                    0,
                    "{g:?}"
                );
                soft.set_frame_ticks(64);
                display.wait_vblank(TIMEOUT_US).unwrap();
                assert_eq!(
                    mmio.read32(pending.register) & (1 << pending.bit),
                    0,
                    "{g:?}"
                );
                assert_ne!(mmio.read32(stat) & vblank, 0);
            }
            other => panic!("{g:?}: unexpected description {other:?}"),
        }
    }
}
