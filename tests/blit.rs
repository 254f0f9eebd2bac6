//! Blitter fills and copies on the software GPU, for Gen4, G45, Gen6 and Gen7, checked
//! byte for byte against the driver's CPU tiling helpers: the expected
//! memory of a tiled surface is built by editing its de-tiled image on the
//! CPU and tiling it again with `linear_to_tiled`, so every byte of the
//! surface (inside and outside the rectangle) is compared.

use baregpu::gtt::tiling::{Swizzle, Tiling, align_pitch, linear_to_tiled, tiled_to_linear};
use baregpu::platform::PlatformBus;
use baregpu::platform::host::HostPlatform;
use baregpu::submit::HangReason;
use baregpu::{Batch, Dma, Gpu, GpuError};
use baregpu_soft::SoftGpu;

type HostGpu<'a> = Gpu<'a, HostPlatform>;

/// BCS_SWCTRL: bit 0 source Y-tiled, bit 1 destination Y-tiled, masked
/// (Linux i915 `BCS_SWCTRL`, `BCS_SRC_Y`, `BCS_DST_Y`).
const BCS_SWCTRL: u32 = 0x22200;
/// ARB_MODE (masked): bit 4 swizzles on Gen6, bit 5 on Gen7 (Linux).
const ARB_MODE: u32 = 0x4030;

/// Surface width in pixels and height in rows: odd, several tiles wide.
const W: usize = 301;
const H: usize = 37;

/// Fills a mapped buffer with noise.
fn scribble(buffer: &Dma<'_>, seed: u32) {
    let mut bytes = vec![0; buffer.size()];
    noise(seed, &mut bytes);
    buffer.write(0, &bytes).unwrap();
}

/// Deterministic noise (xorshift32), so failures reproduce.
fn noise(seed: u32, buf: &mut [u8]) {
    let mut x = seed | 1;
    for b in buf {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = x as u8;
    }
}

/// A GPU surface and how the CPU helpers see it.
struct Surf<'a> {
    tiling: Tiling,
    swizzle: Swizzle,
    /// Bytes per pixel.
    cpp: usize,
    pitch: usize,
    /// Rows of memory (whole tile rows when tiled).
    rows: usize,
    memory: Dma<'a>,
    gfx: u64,
}

impl<'a> Surf<'a> {
    /// A `W` x `H` surface filled with noise. Linear pitches are a few
    /// pixels wider than the row, and not a multiple of 64.
    fn new(
        gpu: &mut HostGpu<'a>,
        tiling: Tiling,
        swizzle: Swizzle,
        cpp: usize,
        seed: u32,
    ) -> Surf<'a> {
        let pitch = match tiling {
            Tiling::Linear => (W + 3) * cpp,
            _ => align_pitch(tiling, W * cpp).unwrap(),
        };
        let rows = H.next_multiple_of(tiling.row_alignment());
        let (memory, map) = gpu.map_buffer(pitch * rows).unwrap();
        let s = Surf {
            tiling,
            swizzle,
            cpp,
            pitch,
            rows,
            memory,
            gfx: map.gfx.0,
        };
        scribble(&s.memory, seed);
        s
    }

    /// A copy of the surface's bytes (`pitch * rows`).
    fn mem(&self) -> Vec<u8> {
        let mut bytes = vec![0; self.pitch * self.rows];
        self.memory.read(0, &mut bytes).unwrap();
        bytes
    }

    /// The whole surface as a row-major image, `pitch` bytes per row.
    fn image(&self) -> Vec<u8> {
        let mut img = vec![0; self.pitch * self.rows];
        match self.tiling {
            Tiling::Linear => img.copy_from_slice(&self.mem()),
            t => tiled_to_linear(
                &mut img,
                self.pitch,
                &self.mem(),
                t,
                self.swizzle,
                self.pitch,
                self.pitch,
                self.rows,
            )
            .unwrap(),
        }
        img
    }

    /// The memory that holds `img` in this surface's layout.
    fn layout(&self, img: &[u8]) -> Vec<u8> {
        let mut mem = vec![0; self.pitch * self.rows];
        match self.tiling {
            Tiling::Linear => mem.copy_from_slice(img),
            t => linear_to_tiled(
                &mut mem,
                t,
                self.swizzle,
                self.pitch,
                img,
                self.pitch,
                self.pitch,
                self.rows,
            )
            .unwrap(),
        }
        mem
    }

    fn tiled(&self) -> bool {
        self.tiling != Tiling::Linear
    }

    /// The pitch as the XY commands take it: bytes, or DWords when tiled.
    fn xy_pitch(&self) -> i32 {
        (if self.tiled() {
            self.pitch / 4
        } else {
            self.pitch
        }) as i32
    }

    fn is_y(&self) -> bool {
        self.tiling == Tiling::Y
    }

    /// Asserts that memory holds exactly `img` laid out.
    fn assert_holds(&self, img: &[u8], what: &str) {
        let want = self.layout(img);
        let got = self.mem();
        if let Some(i) = (0..want.len()).find(|&i| want[i] != got[i]) {
            let (y, x) = (i / self.pitch, i % self.pitch);
            panic!(
                "{what}: {:?} {}bpp surface differs first at byte {i} (memory row {y}, byte {x}): {:#04x} != {:#04x}",
                self.tiling,
                self.cpp * 8,
                got[i],
                want[i]
            );
        }
    }
}

/// Colour depth field for a pixel size.
fn depth(cpp: usize) -> u32 {
    match cpp {
        1 => 0,
        2 => 1,
        _ => 3,
    }
}

/// Applies `f(byte_in_pixel, old) -> new` to every pixel byte of a rectangle of an image.
fn paint(
    img: &mut [u8],
    s: &Surf,
    (x1, y1, x2, y2): (usize, usize, usize, usize),
    f: impl Fn(usize, usize, usize, u8) -> u8,
) {
    for y in y1..y2 {
        for x in x1..x2 {
            for k in 0..s.cpp {
                let i = y * s.pitch + x * s.cpp + k;
                img[i] = f(x, y, k, img[i]);
            }
        }
    }
}

/// Submits one batch on the blitter and waits for it.
fn run(gpu: &mut HostGpu, build: impl FnOnce(&mut Batch)) -> Result<(), GpuError> {
    let mut b = gpu.new_batch(4096).unwrap();
    build(&mut b);
    let engine = gpu.blit_engine().expect("an engine that runs blits");
    let f = gpu.submit(engine, b)?;
    gpu.wait(f, 1_000_000)
}

/// The engine error a faulty blit must produce; returns EIR.
fn expect_engine_error(r: Result<(), GpuError>) -> u32 {
    match r {
        Err(GpuError::Hang(state)) => {
            assert_eq!(state.reason, HangReason::EngineError, "{state}");
            state.eir
        }
        other => panic!("expected an engine error, got {other:?}"),
    }
}

/// The blit tests of one generation. `$tilings`: the layouts its XY commands
/// address (Gen4/G45 blit X tiles only); `$y_select`: it selects Y tiling
/// through BCS_SWCTRL; `$page_fault`: the EIR bit of a page fault; `$extra`:
/// more tests, expanded inside the module.
macro_rules! blit_tests {
    ($gen:ident, $generation:expr, $tilings:expr, $y_select:expr, $page_fault:expr, { $($extra:tt)* }) => {
        mod $gen {
            use super::*;
            use baregpu::hal::$gen::commands::*;

            /// Runs `test` on a fresh software GPU with the driver on top.
            fn with_gpu(test: impl FnOnce(&mut HostGpu)) {
                let p = HostPlatform::new();
                let soft = SoftGpu::new($generation, PlatformBus::new(&p)).expect("software GPU");
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                test(&mut gpu);
            }

            /// Selects X or Y tiling for the next blits, as Linux does (Gen6/Gen7 only).
            fn swctrl(b: &mut Batch, src_y: bool, dst_y: bool) {
                if !$y_select {
                    return;
                }
                let bits = src_y as u32 | (dst_y as u32) << 1;
                b.push(&MiLoadRegisterImm {
                    byte_write_disables: 0,
                    registers: vec![MiLoadRegisterImmRegisters {
                        register_offset: BCS_SWCTRL,
                        data_dword: (3 << 16) | bits,
                    }],
                })
                .unwrap();
            }

            // Gen4's commands have no fields beyond these; later ones do.
            #[allow(clippy::needless_update)]
            fn color_blt(
                d: &Surf,
                rect: (usize, usize, usize, usize),
                rop: u32,
                mask: u32,
                color: u32,
            ) -> XyColorBlt {
                XyColorBlt {
                    bpp32_byte_mask: mask,
                    tiling_enable: d.tiled(),
                    color_depth: depth(d.cpp),
                    raster_operation: rop,
                    destination_pitch: d.xy_pitch(),
                    destination_x1: rect.0 as i32,
                    destination_y1: rect.1 as i32,
                    destination_x2: rect.2 as i32,
                    destination_y2: rect.3 as i32,
                    destination_base_address: d.gfx,
                    solid_pattern_color: color,
                    ..Default::default()
                }
            }

            /// A copy of the `w` x `h` rectangle at (sx, sy) of `s` to (dx, dy) of `d`.
            #[allow(clippy::too_many_arguments, clippy::needless_update)]
            fn copy_blt(
                d: &Surf,
                s: &Surf,
                (dx, dy): (i32, i32),
                (sx, sy): (i32, i32),
                w: i32,
                h: i32,
                rop: u32,
            ) -> XySrcCopyBlt {
                XySrcCopyBlt {
                    bpp32_byte_mask: 3,
                    src_tiling_enable: s.tiled(),
                    dest_tiling_enable: d.tiled(),
                    color_depth: depth(d.cpp),
                    raster_operation: rop,
                    destination_pitch: d.xy_pitch(),
                    destination_x1: dx,
                    destination_y1: dy,
                    destination_x2: dx + w,
                    destination_y2: dy + h,
                    destination_base_address: d.gfx,
                    source_x1: sx,
                    source_y1: sy,
                    source_pitch: s.xy_pitch(),
                    source_base_address: s.gfx,
                    ..Default::default()
                }
            }

            /// Fills a rectangle of a surface of every layout and depth,
            /// with every 32 bpp byte mask.
            fn check_fills(gpu: &mut HostGpu, swizzle: impl Fn(Tiling) -> Swizzle) {
                let rect = (7, 3, W - 5, H - 2);
                let color = 0x89ab_cdefu32;
                for tiling in $tilings {
                    for cpp in [1, 2, 4] {
                        let masks: &[u32] = if cpp == 4 { &[3, 1, 2] } else { &[3] };
                        for &mask in masks {
                            let d = Surf::new(gpu, tiling, swizzle(tiling), cpp, 7 + cpp as u32);
                            let mut img = d.image();
                            paint(&mut img, &d, rect, |_, _, k, old| {
                                let written = cpp < 4
                                    || (k == 3 && mask & 2 != 0)
                                    || (k < 3 && mask & 1 != 0);
                                if written {
                                    (color >> (8 * k)) as u8
                                } else {
                                    old
                                }
                            });
                            run(gpu, |b| {
                                swctrl(b, false, d.is_y());
                                b.push(&color_blt(&d, rect, 0xf0, mask, color)).unwrap();
                            })
                            .unwrap();
                            d.assert_holds(&img, &format!("XY_COLOR_BLT mask {mask}"));
                        }
                    }
                }
            }

            /// Copies a rectangle between every pair of layouts at every depth.
            fn check_copies(gpu: &mut HostGpu, swizzle: impl Fn(Tiling) -> Swizzle) {
                let (w, h) = (W as i32 - 11, H as i32 - 7);
                for cpp in [1, 2, 4] {
                    for st in $tilings {
                        for dt in $tilings {
                            let s = Surf::new(gpu, st, swizzle(st), cpp, 100 + cpp as u32);
                            let d = Surf::new(gpu, dt, swizzle(dt), cpp, 200 + cpp as u32);
                            let src_img = s.image();
                            let mut img = d.image();
                            paint(
                                &mut img,
                                &d,
                                (5, 4, 5 + w as usize, 4 + h as usize),
                                |x, y, k, _| src_img[(y - 4 + 1) * s.pitch + (x - 5 + 2) * cpp + k],
                            );
                            run(gpu, |b| {
                                swctrl(b, s.is_y(), d.is_y());
                                b.push(&copy_blt(&d, &s, (5, 4), (2, 1), w, h, 0xcc))
                                    .unwrap();
                            })
                            .unwrap();
                            d.assert_holds(&img, &format!("XY_SRC_COPY_BLT from {st:?}"));
                            s.assert_holds(&src_img, "source after the copy");
                        }
                    }
                }
            }

            #[test]
            fn fills_of_every_layout_match_the_cpu_tiling() {
                with_gpu(|gpu| check_fills(gpu, |_| Swizzle::None));
            }

            #[test]
            fn copies_between_every_layout_match_the_cpu_tiling() {
                with_gpu(|gpu| check_copies(gpu, |_| Swizzle::None));
            }

            #[test]
            fn linear_to_tiled_to_linear_round_trips() {
                with_gpu(|gpu| {
                    for tiling in $tilings.into_iter().filter(|&t| t != Tiling::Linear) {
                        let src = Surf::new(gpu, Tiling::Linear, Swizzle::None, 4, 1);
                        let mid = Surf::new(gpu, tiling, Swizzle::None, 4, 2);
                        let out = Surf::new(gpu, Tiling::Linear, Swizzle::None, 4, 3);
                        let (w, h) = (W as i32, H as i32);
                        run(gpu, |b| {
                            swctrl(b, false, mid.is_y());
                            b.push(&copy_blt(&mid, &src, (0, 0), (0, 0), w, h, 0xcc))
                                .unwrap();
                            swctrl(b, mid.is_y(), false);
                            b.push(&copy_blt(&out, &mid, (0, 0), (0, 0), w, h, 0xcc))
                                .unwrap();
                        })
                        .unwrap();
                        // The tiled copy is the CPU tiling of the source over the old noise.
                        let mut img = mid.image();
                        let src_img = src.image();
                        paint(&mut img, &mid, (0, 0, W, H), |x, y, k, _| {
                            src_img[y * src.pitch + x * 4 + k]
                        });
                        mid.assert_holds(&img, "linear -> tiled");
                        let (a, b) = (src.mem(), out.mem());
                        for y in 0..H {
                            let row = y * src.pitch..y * src.pitch + W * 4;
                            assert!(a[row.clone()] == b[row], "{tiling:?} round trip row {y}");
                        }
                    }
                });
            }

            #[test]
            fn overlapping_copies_within_one_surface() {
                with_gpu(|gpu| {
                    for tiling in $tilings {
                        for cpp in [1, 4] {
                            // Down-right (scan lines bottom up), then up-left.
                            for ((sx, sy), (dx, dy)) in
                                [((2, 1), (5, 4)), ((6, 5), (1, 2)), ((9, 3), (4, 3))]
                            {
                                let s = Surf::new(gpu, tiling, Swizzle::None, cpp, 9);
                                let (w, h) = (W - 12, H - 8);
                                let before = s.image();
                                let mut img = before.clone();
                                paint(&mut img, &s, (dx, dy, dx + w, dy + h), |x, y, k, _| {
                                    before[(y - dy + sy) * s.pitch + (x - dx + sx) * cpp + k]
                                });
                                let (d, src) = ((dx as i32, dy as i32), (sx as i32, sy as i32));
                                run(gpu, |b| {
                                    swctrl(b, s.is_y(), s.is_y());
                                    b.push(&copy_blt(&s, &s, d, src, w as i32, h as i32, 0xcc))
                                        .unwrap();
                                })
                                .unwrap();
                                s.assert_holds(&img, &format!("overlapping copy {src:?} -> {d:?}"));
                            }
                        }
                    }
                });
            }

            #[test]
            fn bad_blits_halt_the_engine_and_the_next_work_runs() {
                with_gpu(|gpu| {
                    let d = Surf::new(gpu, Tiling::X, Swizzle::None, 4, 41);
                    let before = d.image();
                    // A fill whose ROP reads a source it does not have: instruction error.
                    let eir = expect_engine_error(run(gpu, |b| {
                        b.push(&color_blt(&d, (0, 0, 8, 8), 0xcc, 3, 0)).unwrap();
                    }));
                    assert_eq!(eir & 1, 1, "instruction error");
                    // A tiled pitch that is not whole tiles (400 bytes): instruction error.
                    let mut bad = color_blt(&d, (0, 0, 8, 8), 0xf0, 3, 0);
                    bad.destination_pitch = 100;
                    assert_eq!(
                        expect_engine_error(run(gpu, |b| b.push(&bad).unwrap())) & 1,
                        1
                    );
                    // Memory behind an invalid GTT entry (unused entries point at
                    // the scratch page; this one is made invalid): page fault.
                    let mut unmapped = color_blt(&d, (0, 0, 8, 8), 0xf0, 3, 0);
                    unmapped.destination_base_address = 0x1f00_0000;
                    let mmio = gpu.mmio();
                    gpu.ggtt().unwrap().write_entry(mmio, 0x1f00_0000 / 4096, 0);
                    assert_eq!(
                        expect_engine_error(run(gpu, |b| b.push(&unmapped).unwrap())) & $page_fault,
                        $page_fault
                    );
                    // The largest rectangle: it runs off the mapping and faults.
                    let huge = color_blt(&d, (0, 0, 0, 0), 0xf0, 3, 0);
                    let huge = XyColorBlt {
                        destination_x1: -32768,
                        destination_y1: -32768,
                        destination_x2: 32767,
                        destination_y2: 32767,
                        ..huge
                    };
                    assert_eq!(
                        expect_engine_error(run(gpu, |b| b.push(&huge).unwrap())) & $page_fault,
                        $page_fault
                    );
                    d.assert_holds(&before, "nothing written by the bad blits");
                    // Empty and inverted rectangles are rejected without effect.
                    run(gpu, |b| {
                        b.push(&color_blt(&d, (9, 9, 9, 20), 0xf0, 3, 0)).unwrap();
                        b.push(&color_blt(&d, (20, 9, 10, 20), 0xf0, 3, 0)).unwrap();
                    })
                    .unwrap();
                    d.assert_holds(&before, "rejected rectangles");
                    // The engine was reset and takes new work.
                    let mut img = before;
                    paint(&mut img, &d, (1, 1, 4, 4), |_, _, _, _| 0x77);
                    run(gpu, |b| {
                        swctrl(b, false, false);
                        b.push(&color_blt(&d, (1, 1, 4, 4), 0xf0, 3, 0x7777_7777))
                            .unwrap();
                    })
                    .unwrap();
                    d.assert_holds(&img, "fill after the errors");
                });
            }

            $($extra)*
        }
    };
}

/// Tests of what only the Gen6/Gen7 blitter has: Y tiles, ARB_MODE swizzling,
/// clipping, the legacy X direction and XY_PIXEL_BLT.
macro_rules! blitter_ring_tests {
    ($swizzle_bit:expr) => {
        #[test]
        fn bit6_swizzling_follows_arb_mode() {
            // Linux pairs ARB_MODE swizzling with 9_10 for X tiles and 9 for Y tiles.
            let swizzle = |t| match t {
                Tiling::X => Swizzle::Bit9Bit10,
                Tiling::Y => Swizzle::Bit9,
                Tiling::Linear => Swizzle::None,
            };
            with_gpu(|gpu| {
                gpu.mmio()
                    .write32(ARB_MODE, ($swizzle_bit << 16) | $swizzle_bit);
                check_fills(gpu, swizzle);
                check_copies(gpu, swizzle);
            });
        }

        #[test]
        fn clipping_and_negative_source_coordinates() {
            with_gpu(|gpu| {
                let d = Surf::new(gpu, Tiling::X, Swizzle::None, 2, 4);
                let mut img = d.image();
                paint(&mut img, &d, (10, 6, 40, 20), |_, _, k, _| [0x34, 0x12][k]);
                run(gpu, |b| {
                    swctrl(b, false, false);
                    b.push(&XySetupClipBlt {
                        tiling_enable: true,
                        cliprect_x1: 10,
                        cliprect_y1: 6,
                        cliprect_x2: 40,
                        cliprect_y2: 20,
                    })
                    .unwrap();
                    let mut fill = color_blt(&d, (3, 2, 50, 30), 0xf0, 3, 0x1234);
                    fill.clipping_enable = true;
                    b.push(&fill).unwrap();
                })
                .unwrap();
                d.assert_holds(&img, "clipped fill");

                // Source (-3, -2): the destination starts 3 right and 2 down.
                let s = Surf::new(gpu, Tiling::Linear, Swizzle::None, 2, 5);
                let src_img = s.image();
                paint(&mut img, &d, (13, 12, 30, 25), |x, y, k, _| {
                    src_img[(y - 12) * s.pitch + (x - 13) * 2 + k]
                });
                run(gpu, |b| {
                    b.push(&copy_blt(&d, &s, (10, 10), (-3, -2), 20, 15, 0xcc))
                        .unwrap()
                })
                .unwrap();
                d.assert_holds(&img, "negative source coordinates");
            });
        }

        #[test]
        fn general_raster_operations() {
            with_gpu(|gpu| {
                let d = Surf::new(gpu, Tiling::X, Swizzle::None, 4, 11);
                let s = Surf::new(gpu, Tiling::Y, Swizzle::None, 4, 12);
                let src_img = s.image();
                let mut img = d.image();
                let color = 0x5a5a_0ff0u32;
                // PATINVERT (P ^ D), then SRCINVERT (S ^ D), then SRCAND (S & D).
                paint(&mut img, &d, (1, 1, 50, 20), |_, _, k, old| {
                    old ^ (color >> (8 * k)) as u8
                });
                let at = |x: usize, y: usize, k: usize| src_img[y * s.pitch + x * 4 + k];
                paint(&mut img, &d, (3, 2, 63, 32), |x, y, k, old| {
                    old ^ at(x - 3, y - 2, k)
                });
                paint(&mut img, &d, (100, 5, 160, 35), |x, y, k, old| {
                    old & at(x - 100, y - 5, k)
                });
                run(gpu, |b| {
                    swctrl(b, true, false);
                    b.push(&color_blt(&d, (1, 1, 50, 20), 0x5a, 3, color))
                        .unwrap();
                    b.push(&copy_blt(&d, &s, (3, 2), (0, 0), 60, 30, 0x66))
                        .unwrap();
                    b.push(&copy_blt(&d, &s, (100, 5), (0, 0), 60, 30, 0x88))
                        .unwrap();
                })
                .unwrap();
                d.assert_holds(&img, "ROP3");
            });
        }

        #[test]
        fn legacy_color_blt_and_bottom_up_src_copy_blt() {
            with_gpu(|gpu| {
                let d = Surf::new(gpu, Tiling::Linear, Swizzle::None, 2, 21);
                let s = Surf::new(gpu, Tiling::Linear, Swizzle::None, 2, 22);
                let src_img = s.image();
                let mut img = d.image();
                paint(&mut img, &d, (4, 3, 44, 13), |_, _, k, _| [0xcd, 0xab][k]);
                // Copy with negative pitches: from the last rows upwards.
                paint(&mut img, &d, (50, 10, 80, 30), |x, y, k, _| {
                    src_img[(y - 10 + 5) * s.pitch + (x - 50) * 2 + k]
                });
                let at =
                    |surf: &Surf, x: usize, y: usize| surf.gfx + (y * surf.pitch + x * 2) as u64;
                run(gpu, |b| {
                    b.push(&ColorBlt {
                        bpp32_byte_mask: 0,
                        color_depth: 1,
                        raster_operation: 0xf0,
                        destination_pitch: d.pitch as i32,
                        destination_height: 10,
                        destination_width: 80,
                        destination_address: at(&d, 4, 3),
                        solid_pattern_color: 0xabcd,
                    })
                    .unwrap();
                    b.push(&SrcCopyBlt {
                        bpp32_byte_mask: 0,
                        x_direction: false,
                        color_depth: 1,
                        raster_operation: 0xcc,
                        destination_pitch: -(d.pitch as i32),
                        destination_height: 20,
                        destination_width: 60,
                        destination_address: at(&d, 50, 29),
                        source_pitch: -(s.pitch as i32),
                        source_address: at(&s, 0, 24),
                    })
                    .unwrap();
                })
                .unwrap();
                d.assert_holds(&img, "COLOR_BLT and SRC_COPY_BLT");
            });
        }

        #[test]
        fn setup_and_pixel_blt() {
            with_gpu(|gpu| {
                for tiling in Tiling::ALL {
                    let d = Surf::new(gpu, tiling, Swizzle::None, 4, 31);
                    let mut img = d.image();
                    let inside = [(10, 5), (29, 19), (10, 19)];
                    let outside = [(9, 5), (30, 5), (12, 20), (0, 0)];
                    for &(x, y) in &inside {
                        paint(&mut img, &d, (x, y, x + 1, y + 1), |_, _, k, _| {
                            (0x0403_0201u32 >> (8 * k)) as u8
                        });
                    }
                    run(gpu, |b| {
                        swctrl(b, false, d.is_y());
                        b.push(&XySetupBlt {
                            bpp32_byte_mask: 3,
                            tiling_enable: d.tiled(),
                            clipping_enable: true,
                            color_depth: 3,
                            raster_operation: 0xf0,
                            destination_pitch: d.xy_pitch(),
                            cliprect_x1: 10,
                            cliprect_y1: 5,
                            cliprect_x2: 30,
                            cliprect_y2: 20,
                            setup_destination_base_address: d.gfx,
                            setup_background_color: 0x0403_0201,
                            ..Default::default()
                        })
                        .unwrap();
                        for &(x, y) in inside.iter().chain(&outside) {
                            b.push(&XyPixelBlt {
                                tiling_enable: d.tiled(),
                                destination_x1: x as i32,
                                destination_y1: y as i32,
                            })
                            .unwrap();
                        }
                    })
                    .unwrap();
                    d.assert_holds(&img, "XY_PIXEL_BLT");
                }
            });
        }
    };
}

const ALL: [Tiling; 3] = Tiling::ALL;
const LINEAR_AND_X: [Tiling; 2] = [Tiling::Linear, Tiling::X];

blit_tests!(
    gen4,
    baregpu::Generation::Gen4,
    LINEAR_AND_X,
    false,
    0x10,
    {}
);
blit_tests!(g45, baregpu::Generation::G45, LINEAR_AND_X, false, 0x20, {});
blit_tests!(gen6, baregpu::Generation::Gen6, ALL, true, 0x10, {
    blitter_ring_tests!(1u32 << 4);
});
blit_tests!(gen7, baregpu::Generation::Gen7, ALL, true, 0x10, {
    blitter_ring_tests!(1u32 << 5);
});
