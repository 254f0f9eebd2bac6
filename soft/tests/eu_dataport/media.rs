//! Media block read/write (000 lines 4683-4799; 003 lines 84003-84436) on
//! linear, X-tiled and Y-tiled surfaces, with the edge rules.

use baregpu_isa::IsaGen;
use baregpu_soft::eu::shared::surface::format;
use baregpu_soft::eu::shared::{Surface, Tiling};

use super::rig::*;

const SURF: u64 = MEM_BASE + 0x1_0000; // 4 KB aligned for tiles

/// Byte offset of (x, y) in a surface, written out from the tiling
/// function (003 lines 7382-7476) for this test: X tiles are 512 x 8,
/// rows of a tile consecutive; Y tiles are 128 x 32 in 16-byte columns.
fn tiled(t: Tiling, pitch: usize, x: usize, y: usize) -> usize {
    match t {
        Tiling::Linear => y * pitch + x,
        Tiling::X => {
            let tiles_per_row = pitch / 512;
            (y / 8) * tiles_per_row * 4096 + (x / 512) * 4096 + (y % 8) * 512 + x % 512
        }
        Tiling::Y => {
            let tiles_per_row = pitch / 128;
            let xo = x % 128;
            (y / 32) * tiles_per_row * 4096
                + (x / 128) * 4096
                + (xo / 16) * 512
                + (y % 32) * 16
                + xo % 16
        }
        Tiling::Tile4 => unreachable!("no Gen4-Gen7.5 surface is Tile4"),
    }
}

/// The value the test stores at pixel byte (x, y) of the logical surface.
fn texel(x: usize, y: usize) -> u8 {
    (x * 3 + y * 29 + 1) as u8
}

fn port(p: IsaGen) -> (&'static str, &'static str, &'static str) {
    match p {
        IsaGen::Gen4 | IsaGen::G45 => ("dpr", "dpw", ", cache=render"),
        _ => ("rc", "rc", ""),
    }
}

fn hdr(p: IsaGen) -> &'static str {
    if p <= IsaGen::G45 { "" } else { " hdr" }
}

/// A 2D surface of `w` x `h` pixels of `fmt`, filled through the test's
/// own tiling function.
fn surface_rig(p: IsaGen, t: Tiling, fmt: u32, w: u32, h: u32, pitch: u32) -> Rig {
    let mut rig = Rig::new(p);
    let bpp = format::bytes(fmt).unwrap() as usize;
    for y in 0..h as usize {
        for x in 0..w as usize * bpp {
            let at = SURF + tiled(t, pitch as usize, x, y) as u64;
            assert!(rig.mem().put(at, &[texel(x, y)]));
        }
    }
    rig.bind(4, Surface::two_d(SURF, fmt, w, h, pitch, t));
    rig
}

fn header(x: i32, y: i32, width: u32, height: u32) -> [u32; 8] {
    [
        x as u32,
        y as u32,
        ((height - 1) << 16) | (width - 1),
        0,
        0,
        0,
        0,
        0,
    ]
}

/// The response bytes of register `r`.
fn bytes(rig: &Rig, r: usize) -> Vec<u8> {
    rig.resp(r).iter().flat_map(|d| d.to_le_bytes()).collect()
}

#[test]
fn reads_rows_at_power_of_two_pitch_on_every_tiling() {
    for p in [IsaGen::Gen4, IsaGen::Gen6, IsaGen::Gen7] {
        for t in [Tiling::Linear, Tiling::X, Tiling::Y] {
            let pitch = 1024;
            let mut rig = surface_rig(p, t, format::R8G8B8A8_UNORM, 200, 70, pitch);
            // 12 bytes wide (register pitch 16), 6 rows, crossing tile
            // columns and rows: x = 508 (X tile edge), y = 30.
            let (x0, y0) = (508usize, 30usize);
            rig.set(0, header(x0 as i32, y0 as i32, 12, 6));
            let (r, _, c) = port(p);
            rig.ok(
                &format!("{r}.media_block_read(bti=4{c}) mlen=1 rlen=3{}", hdr(p)),
                8,
                0,
            );
            let all: Vec<u8> = (0..3).flat_map(|r| bytes(&rig, r)).collect();
            for row in 0..6 {
                for col in 0..16 {
                    let want = if col < 12 {
                        texel(x0 + col, y0 + row)
                    } else {
                        0
                    };
                    assert_eq!(all[row * 16 + col], want, "{p:?} {t:?} row {row} col {col}");
                }
            }
        }
    }
}

#[test]
fn writes_land_through_the_tiling_and_drop_outside() {
    for p in [IsaGen::G45, IsaGen::Gen6, IsaGen::Gen75] {
        for t in [Tiling::Linear, Tiling::X, Tiling::Y] {
            let pitch = 512;
            // 100 x 40 pixels of 4 bytes = 400 bytes per row.
            let mut rig = surface_rig(p, t, format::R8G8B8A8_UNORM, 100, 40, pitch);
            let (x0, y0) = (392i32, 36i32); // 8 bytes in, 8 beyond the row end
            rig.set(0, header(x0, y0, 16, 6)); // rows 36..42: 4 inside
            let data: Vec<u8> = (0..96).map(|i| 0x80 | i as u8).collect();
            for r in 0..3 {
                let mut dw = [0u32; 8];
                for (d, v) in dw.iter_mut().enumerate() {
                    let b = &data[r * 32 + d * 4..r * 32 + d * 4 + 4];
                    *v = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
                rig.set(1 + r, dw);
            }
            let (_, w, _) = port(p);
            rig.ok(
                &format!("{w}.media_block_write(bti=4) mlen=4 rlen=0{}", hdr(p)),
                8,
                0,
            );
            for row in 0..6 {
                for col in 0..16 {
                    let (x, y) = (x0 as usize + col, y0 as usize + row);
                    if x >= 400 || y >= 40 {
                        continue;
                    }
                    let at = SURF + tiled(t, pitch as usize, x, y) as u64;
                    let got = rig.mem().get(at, 1).unwrap()[0];
                    assert_eq!(got, data[row * 16 + col], "{p:?} {t:?} ({x},{y})");
                }
            }
            // Neighbours outside the block keep their bytes.
            let at = SURF + tiled(t, pitch as usize, 391, 36) as u64;
            assert_eq!(rig.mem().get(at, 1).unwrap()[0], texel(391, 36));
        }
    }
}

#[test]
fn reads_outside_replicate_the_edge_pixel() {
    // 8 bpp: the edge byte; 32 bpp: the edge dword (000 lines 4714-4722).
    for (fmt, bpp) in [(format::R8_UINT, 1usize), (format::R32_UINT, 4)] {
        let mut rig = surface_rig(IsaGen::Gen6, Tiling::Linear, fmt, 8, 4, 64);
        let row_bytes = 8 * bpp;
        // 4 bytes left of the surface, 2 rows above: 16 wide, 4 high.
        rig.set(0, header(-4, -2, 16, 4));
        rig.ok("rc.media_block_read(bti=4) mlen=1 rlen=2 hdr", 8, 0);
        let all: Vec<u8> = (0..2).flat_map(|r| bytes(&rig, r)).collect();
        for row in 0..4 {
            let y = (row as i64 - 2).clamp(0, 3) as usize;
            for col in 0..16 {
                let x = col as i64 - 4;
                let sx = if x < 0 {
                    x.rem_euclid(bpp as i64) as usize
                } else if x as usize >= row_bytes {
                    row_bytes - bpp + (x as usize % bpp)
                } else {
                    x as usize
                };
                assert_eq!(
                    all[row * 16 + col],
                    texel(sx, y),
                    "bpp {bpp} row {row} col {col}"
                );
            }
        }
    }
}

#[test]
fn yuv_edges_follow_the_pixel_pair_rules() {
    // YUYV: left edge Y0 U0 Y0 V0, right edge Y1 U0 Y1 V0 (000 lines
    // 4719-4720); UYVY: U0 Y0 V0 Y0 and U0 Y1 V0 Y1.
    for (fmt, left, right) in [
        (format::YCRCB_NORMAL, [0, 1, 0, 3], [2, 1, 2, 3]),
        (format::YCRCB_SWAPY, [0, 1, 2, 1], [0, 3, 2, 3]),
    ] {
        let mut rig = surface_rig(IsaGen::Gen6, Tiling::Linear, fmt, 4, 1, 64);
        rig.set(0, header(-4, 0, 16, 1));
        rig.ok("rc.media_block_read(bti=4) mlen=1 rlen=1 hdr", 8, 0);
        let got = bytes(&rig, 0);
        for k in 0..4 {
            assert_eq!(got[k], texel(left[k], 0), "left {k}");
            assert_eq!(got[4 + k], texel(k, 0), "inside {k}");
            assert_eq!(got[12 + k], texel(4 + right[k], 0), "right {k}");
        }
    }
}

#[test]
fn field_access_reads_every_other_row() {
    // Override VLS (descriptor bits 10:8): logical row y is frame row
    // 2y + offset; past the field's end the last field row repeats (000
    // lines 4391-4401, modes 0).
    let mut rig = surface_rig(IsaGen::Gen4, Tiling::Linear, format::R8_UINT, 4, 8, 64);
    rig.set(0, header(0, 1, 4, 5));
    rig.ok(
        "dpr.media_block_read(bti=4, vls_enable, vls_stride, vls_offset, cache=render) mlen=1 rlen=1",
        8,
        0,
    );
    let got = bytes(&rig, 0);
    for (row, frame_row) in [3usize, 5, 7, 7, 7].iter().enumerate() {
        for col in 0..4 {
            assert_eq!(got[row * 4 + col], texel(col, *frame_row), "row {row}");
        }
    }
}

#[test]
fn interlaced_frames_alternate_rows_outside() {
    // Media Boundary Pixel Mode 3, no field access: rows above alternate
    // 0, 1 and rows below the last two (000 line 4399: 010101232323).
    let mut rig = surface_rig(IsaGen::Gen6, Tiling::Linear, format::R8_UINT, 4, 4, 64);
    let mut s = Surface::two_d(SURF, format::R8_UINT, 4, 4, 64, Tiling::Linear);
    s.media_boundary = 3;
    rig.bind(4, s);
    rig.set(0, header(0, -4, 4, 12));
    rig.ok("rc.media_block_read(bti=4) mlen=1 rlen=2 hdr", 8, 0);
    let all: Vec<u8> = (0..2).flat_map(|r| bytes(&rig, r)).collect();
    let rows = [0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3];
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(all[i * 4], texel(0, *r), "input row {}", i as i32 - 4);
    }
}

#[test]
fn oversized_blocks_and_non_2d_surfaces_are_refused() {
    let mut rig = surface_rig(IsaGen::Gen6, Tiling::Linear, format::R8_UINT, 4, 4, 64);
    rig.set(0, header(0, 0, 32, 9)); // 32 bytes x 9 rows > 8 registers
    assert!(
        rig.send("rc.media_block_read(bti=4) mlen=1 rlen=8 hdr", 8, 0)
            .is_err()
    );
    rig.bind(5, Surface::buffer(SURF, 16, 16));
    rig.set(0, header(0, 0, 4, 1));
    assert!(
        rig.send("rc.media_block_read(bti=5) mlen=1 rlen=1 hdr", 8, 0)
            .is_err()
    );
}
