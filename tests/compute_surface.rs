//! Buffers and 2D surfaces as the kernel sees them: the SURFACE_STATE a
//! binding table entry points to (type, base, size encoding, pitch, format
//! code, tiling), the memory behind it, and CPU access.

use baregpu::compute::{
    Compute, Dispatch, Format, KernelDesc, Resource, Surface, Swizzle, Threads, Tiling,
};
use baregpu::hal::Generation;

mod compute_common;
use compute_common::*;

/// SURFACE_FORMAT codes from the manuals' tables (000 lines 3393-3485, 003
/// lines 76508-76952), written out here rather than taken from the driver.
fn manual_code(f: Format) -> u64 {
    match f {
        Format::R8Unorm => 0x140,
        Format::R8Uint => 0x143,
        Format::R32Uint => 0x0d7,
        Format::R32Float => 0x0d8,
        Format::R8G8B8A8Unorm => 0x0c7,
        Format::B8G8R8A8Unorm => 0x0c0,
    }
}

/// Binds `resource` at index 0 of a one-thread dispatch and returns the
/// SURFACE_STATE the hardware would find.
fn surface_state_of<'g>(
    gpu: &mut HostGpu<'g>,
    p: &baregpu::platform::host::HostPlatform,
    cx: &mut Compute<'g>,
    resource: Resource<'_>,
) -> State {
    let g = gpu.generation();
    let bin = eot_kernel(g);
    let k = cx
        .load_kernel(
            gpu,
            &KernelDesc {
                bindings: &[0],
                ..KernelDesc::new(&bin)
            },
        )
        .unwrap();
    let bindings = [(0, resource)];
    let d = Dispatch {
        threads: Threads::Objects {
            count: 1,
            inline: &[],
        },
        curbe: &[],
        bindings: &bindings,
        samplers: &[],
    };
    let batch = cx.record(gpu, &k, &d).unwrap();
    let cmds = commands(g, &batch);
    bound_surface(gpu, p, &cmds, 0)
}

/// Rebuilds "entries - 1" from the three size fields of a SURFTYPE_BUFFER:
/// bits 6:0 / 19:7 / 26:20 (000 line 3236, 003 lines 75895-75898), or 6:0 /
/// 20:7 / 26:21 on Ivy Bridge (Mesa isl).
fn buffer_entries(g: Generation, ss: &State) -> u64 {
    let (w, h, d) = (ss.get("width"), ss.get("height"), ss.get("depth"));
    if g == Generation::Gen7 {
        (w | h << 7 | d << 21) + 1
    } else {
        (w | h << 7 | d << 20) + 1
    }
}

#[test]
fn an_untyped_buffer_is_raw_bytes_on_ivb_and_dwords_before() {
    for g in GENERATIONS {
        with_gpu(g, |gpu, p| {
            let mut cx = Compute::new(gpu).unwrap();
            let buf = cx.create_buffer(gpu, 1000).unwrap();
            let ss = surface_state_of(gpu, p, &mut cx, Resource::Buffer(&buf));
            assert_eq!(ss.get("surface_type"), 4, "{g}: SURFTYPE_BUFFER");
            assert_eq!(ss.get("surface_base_address"), buf.gfx().0);
            assert_eq!(ss.get("tiled_surface"), 0, "buffers are linear");
            assert_eq!(ss.get("render_cache_read_write_mode"), 1, "{g}");
            if g == Generation::Gen7 {
                assert_eq!(ss.get("surface_format"), 0x1ff, "RAW");
                assert_eq!(ss.get("surface_pitch"), 0, "1-byte elements");
                assert_eq!(buffer_entries(g, &ss), 1000);
            } else {
                assert_eq!(ss.get("surface_format"), 0x0d7, "{g}: R32_UINT");
                assert_eq!(ss.get("surface_pitch"), 3, "4-byte elements");
                assert_eq!(buffer_entries(g, &ss), 250);
            }
        });
    }
}

#[test]
fn a_large_typed_buffer_splits_its_size_over_width_height_and_depth() {
    // 2^20 + 0x346 bytes of R8_UINT: entries - 1 = 0x100345.
    let size = (1 << 20) + 0x346;
    for g in GENERATIONS {
        with_gpu(g, |gpu, p| {
            let mut cx = Compute::new(gpu).unwrap();
            let buf = cx.create_buffer(gpu, size).unwrap();
            let ss = surface_state_of(gpu, p, &mut cx, Resource::TypedBuffer(&buf, Format::R8Uint));
            assert_eq!(ss.get("surface_format"), 0x143);
            assert_eq!(ss.get("surface_pitch"), 0);
            assert_eq!(ss.get("width"), 0x45, "{g}");
            if g == Generation::Gen7 {
                assert_eq!((ss.get("height"), ss.get("depth")), (0x2006, 0), "{g}");
            } else {
                assert_eq!((ss.get("height"), ss.get("depth")), (0x0006, 1), "{g}");
            }
            assert_eq!(buffer_entries(g, &ss), size as u64);
            // R32_FLOAT elements: a quarter as many, 4 bytes apart.
            let ss = surface_state_of(
                gpu,
                p,
                &mut cx,
                Resource::TypedBuffer(&buf, Format::R32Float),
            );
            assert_eq!(ss.get("surface_format"), 0x0d8);
            assert_eq!(ss.get("surface_pitch"), 3);
            assert_eq!(buffer_entries(g, &ss), size as u64 / 4);
        });
    }
}

/// The pitch each tiling needs for a row of `row` bytes: linear rows padded
/// to 64 bytes, X tiles 512 bytes wide, Y tiles 128 (003 lines 7351-7356).
fn expected_pitch(tiling: Tiling, row: u64) -> u64 {
    let unit = match tiling {
        Tiling::Linear => 64,
        Tiling::X => 512,
        Tiling::Y => 128,
    };
    row.div_ceil(unit) * unit
}

#[test]
fn two_d_surfaces_describe_size_pitch_format_and_tiling() {
    for g in GENERATIONS {
        with_gpu(g, |gpu, p| {
            let mut cx = Compute::new(gpu).unwrap();
            for format in Format::ALL {
                for tiling in Tiling::ALL {
                    let s: Surface = cx.create_surface_2d(gpu, 100, 50, format, tiling).unwrap();
                    let row = 100 * format.bytes_per_pixel() as u64;
                    let pitch = expected_pitch(tiling, row);
                    assert_eq!(s.pitch() as u64, pitch);
                    let ss = surface_state_of(gpu, p, &mut cx, Resource::Surface(&s));
                    let what = format!("{g} {format:?} {tiling:?}");
                    assert_eq!(ss.get("surface_type"), 1, "{what}: SURFTYPE_2D");
                    assert_eq!(ss.get("surface_format"), manual_code(format), "{what}");
                    assert_eq!(ss.get("surface_base_address"), s.gfx().0, "{what}");
                    assert_eq!(ss.get("width"), 99, "{what}");
                    assert_eq!(ss.get("height"), 49, "{what}");
                    assert_eq!(ss.get("surface_pitch"), pitch - 1, "{what}");
                    assert_eq!(
                        ss.get("tiled_surface"),
                        (tiling != Tiling::Linear) as u64,
                        "{what}"
                    );
                    if tiling != Tiling::Linear {
                        assert_eq!(ss.get("tile_walk"), (tiling == Tiling::Y) as u64, "{what}");
                        assert_eq!(s.gfx().0 % 4096, 0, "tiled surfaces start on a page");
                    }
                    // Whole tile rows: 50 rows are 56 (X, 8 high) or 64 (Y, 32 high).
                    let rows = match tiling {
                        Tiling::Linear => 50,
                        Tiling::X => 56,
                        Tiling::Y => 64,
                    };
                    assert_eq!(s.size() as u64, pitch * rows, "{what}");
                }
            }
        });
    }
}

#[test]
fn tiled_surfaces_are_mapped_uncached_on_965_and_g45() {
    // "Tiled surfaces can only be mapped to Main Memory" (000 line 3282):
    // memory type 0 in PTE bits 2:1 instead of the snooped 3.
    for g in [Generation::Gen4, Generation::G45] {
        with_gpu(g, |gpu, _| {
            let cx = Compute::new(gpu).unwrap();
            for tiling in Tiling::ALL {
                let s = cx
                    .create_surface_2d(gpu, 64, 64, Format::R8Unorm, tiling)
                    .unwrap();
                let pages = (s.size() as u64).div_ceil(4096);
                for page in 0..pages {
                    let e = pte(gpu, s.gfx().0 + page * 4096);
                    let kind = (e >> 1) & 3;
                    let want = if tiling == Tiling::Linear { 3 } else { 0 };
                    assert_eq!(kind, want, "{g} {tiling:?} page {page}: PTE {e:#x}");
                }
            }
        });
    }
}

#[test]
fn pixels_go_in_and_out_in_the_surface_layout() {
    with_gpu(Generation::Gen6, |gpu, p| {
        let cx = Compute::new(gpu).unwrap();
        let s = cx
            .create_surface_2d(gpu, 40, 40, Format::R8Uint, Tiling::Y)
            .unwrap();
        let pixels: Vec<u8> = (0..40 * 40).map(|i| (i * 7 % 251) as u8).collect();
        s.write_pixels(Swizzle::None, &pixels).unwrap();
        let mut back = vec![0; 40 * 40];
        s.read_pixels(Swizzle::None, &mut back).unwrap();
        assert_eq!(back, pixels);
        // Y tiles store 16-byte columns one after another, 32 rows each
        // (003 lines 7365-7366): pixel (16, 0) is byte 512 of the tile,
        // pixel (0, 1) byte 16.
        let mem = gfx_read(gpu, p, s.gfx().0, 4096);
        assert_eq!(mem[512], pixels[16]);
        assert_eq!(mem[16], pixels[40]);
        assert_eq!(mem[0], pixels[0]);
        // A buffer of the wrong size is refused.
        assert!(s.write_pixels(Swizzle::None, &pixels[1..]).is_err());
    });
}

#[test]
fn buffers_read_and_write_within_their_size() {
    with_gpu(Generation::Gen7, |gpu, p| {
        let cx = Compute::new(gpu).unwrap();
        let data: Vec<u8> = (0..=255).collect();
        let buf = cx.upload_buffer(gpu, &data).unwrap();
        assert_eq!(gfx_read(gpu, p, buf.gfx().0, 256), data);
        let mut out = [0u8; 4];
        buf.read(252, &mut out).unwrap();
        assert_eq!(out, [252, 253, 254, 255]);
        assert!(buf.read(253, &mut out).is_err());
        assert!(buf.write(usize::MAX, &[1]).is_err());
        buf.write(0, &[9, 9]).unwrap();
        assert_eq!(gfx_read(gpu, p, buf.gfx().0, 3), [9, 9, 2]);
        assert!(cx.create_buffer(gpu, 0).is_err());
        assert!(
            cx.create_surface_2d(gpu, 0, 4, Format::R8Unorm, Tiling::Linear)
                .is_err()
        );
        assert!(
            cx.create_surface_2d(gpu, 8193, 4, Format::R8Unorm, Tiling::Linear)
                .is_err()
        );
    });
}
