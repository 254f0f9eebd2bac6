//! The pattern, monochrome-source, text, scan-line, full and chroma-key
//! blits on the software GPU, checked pixel by pixel against a host
//! computation written from the manual's definitions (SNB PRM BLT chapter,
//! 003 lines 20941-23130): pattern pixel `(x + hseed) % 8`, row
//! `(y + vseed) % 8`; mono bit 1 = foreground, 0 = background or no write
//! in transparency mode; first pixel = most significant bit; mono source
//! lines word aligned, text bit or byte packed; chroma keys per component;
//! result `ROP3(P, S, D)` with bit `P*4 + S*2 + D` of the code.
//! Commands are built from the reflection tables by field name.

use baregpu::hal::Generation;
use baregpu::hal::reflect::GenTables;
use baregpu::platform::PlatformBus;
use baregpu::platform::host::HostPlatform;
use baregpu::{Dma, Gpu, GpuError};
use baregpu_soft::SoftGpu;

type HostGpu<'a> = Gpu<'a, HostPlatform>;

/// Surface size in pixels.
const W: usize = 53;
const H: usize = 19;

/// A command by field name; `imm` fills its immediate group.
fn cmd(t: &'static GenTables, name: &str, fields: &[(&str, i64)], imm: &[u32]) -> Vec<u32> {
    let c = t
        .command(name)
        .unwrap_or_else(|| panic!("{name} in the tables"));
    let len = match c.group {
        Some(g) => g.dw as usize + imm.len(),
        None => c.length.unwrap_or(c.min_length) as usize,
    };
    let mut dw = vec![0u32; len];
    dw[0] = c.header_value;
    let put = |dw: &mut Vec<u32>, f: &baregpu::hal::reflect::FieldInfo, v: u64| {
        let w = f.width();
        let v = (v >> f.shift) & if w == 64 { !0 } else { (1u64 << w) - 1 };
        baregpu::hal::bits::put(dw, f.start as u32, w, v);
    };
    for &(n, v) in fields {
        let f = c.fields.iter().find(|f| f.name == n);
        put(&mut dw, f.unwrap_or_else(|| panic!("{name}.{n}")), v as u64);
    }
    if let Some(f) = c.length_field() {
        put(&mut dw, f, (len - c.bias as usize) as u64);
    }
    if let Some(g) = c.group {
        dw[g.dw as usize..].copy_from_slice(imm);
    }
    dw
}

/// Deterministic noise (xorshift32); `seed` and `seed | 1` give the same.
fn noise(seed: u32, n: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

/// A copy of a buffer (the model runs only inside MMIO calls).
fn mem(r: &Dma<'_>) -> Vec<u8> {
    r.to_vec()
}

/// Writes `bytes` at the start of a buffer.
fn fill(r: &Dma<'_>, bytes: &[u8]) {
    r.write(0, bytes).unwrap();
}

/// A linear buffer filled with noise.
fn buffer<'a>(gpu: &mut HostGpu<'a>, bytes: usize, seed: u32) -> (Dma<'a>, u64) {
    let (r, m) = gpu.map_buffer(bytes.max(64)).unwrap();
    let n = noise(seed, r.size());
    fill(&r, &n);
    (r, m.gfx.0)
}

fn run(gpu: &mut HostGpu, cmds: &[Vec<u32>]) -> Result<(), GpuError> {
    let mut b = gpu.new_batch(8192).unwrap();
    for c in cmds {
        b.push_dwords(c).unwrap();
    }
    let e = gpu.blit_engine().unwrap();
    let f = gpu.submit(e, b)?;
    gpu.wait(f, 1_000_000)
}

fn rop3(code: u8, p: u8, s: u8, d: u8) -> u8 {
    (0..8).fold(0, |acc, bit| {
        let pick = |v: u8, on: bool| if on { v } else { !v };
        let term = pick(p, bit & 4 != 0) & pick(s, bit & 2 != 0) & pick(d, bit & 1 != 0);
        if code >> bit & 1 == 1 {
            acc | term
        } else {
            acc
        }
    })
}

/// MSB-first bit `n`.
fn bit(bytes: &[u8], n: usize) -> bool {
    bytes[n / 8] >> (7 - n % 8) & 1 == 1
}

/// What the host expects of one pixel: the pattern and source colours, or
/// `None` when the pixel is not written.
type Operands<'a> = &'a dyn Fn(i64, i64, u32) -> Option<(u32, u32)>;

/// The destination after drawing `rect` (already clipped) with `rop` and
/// the 32 bpp byte mask `mask`.
fn expect(
    dst: &[u8],
    pitch: usize,
    cpp: usize,
    rect: (i64, i64, i64, i64),
    rop: u8,
    mask: u32,
    op: Operands,
) -> Vec<u8> {
    let mut out = dst.to_vec();
    for y in rect.1..rect.3 {
        for x in rect.0..rect.2 {
            let at = y as usize * pitch + x as usize * cpp;
            let d = out[at..at + cpp]
                .iter()
                .rev()
                .fold(0u32, |a, &b| a << 8 | b as u32);
            let Some((p, s)) = op(x, y, d) else { continue };
            for k in 0..cpp {
                let written = cpp < 4 || (k == 3 && mask & 2 != 0) || (k < 3 && mask & 1 != 0);
                if written {
                    out[at + k] =
                        rop3(rop, (p >> (8 * k)) as u8, (s >> (8 * k)) as u8, out[at + k]);
                }
            }
        }
    }
    // Every case here draws something: a no-op cannot pass.
    assert!(out != dst, "the expected image equals the old one");
    out
}

fn depth(cpp: usize) -> i64 {
    match cpp {
        1 => 0,
        2 => 1,
        _ => 3,
    }
}

/// A pixel of an 8x8 colour pattern in bytes.
fn pat_pixel(pat: &[u8], cpp: usize, x: i64, y: i64, seed: (i64, i64)) -> u32 {
    let (c, r) = (
        (x + seed.0).rem_euclid(8) as usize,
        (y + seed.1).rem_euclid(8) as usize,
    );
    let at = (r * 8 + c) * cpp;
    pat[at..at + cpp]
        .iter()
        .rev()
        .fold(0, |a, &b| a << 8 | b as u32)
}

/// A mono pattern pixel: row r = byte r, first pixel = MSB.
fn mono_pat(bits: u64, x: i64, y: i64, seed: (i64, i64)) -> bool {
    let (c, r) = ((x + seed.0).rem_euclid(8), (y + seed.1).rem_euclid(8));
    (bits >> (8 * r)) as u8 >> (7 - c) & 1 == 1
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| c.iter().rev().fold(0, |a, &b| a << 8 | b as u32))
        .collect()
}

fn low(cpp: usize, v: u32) -> u32 {
    if cpp == 4 {
        v
    } else {
        v & ((1 << (8 * cpp)) - 1)
    }
}

macro_rules! expand_tests {
    ($gen:ident, $generation:expr) => {
        mod $gen {
            use super::*;

            const T: &GenTables = &baregpu::hal::$gen::TABLES;

            fn with_gpu(test: impl FnOnce(&mut HostGpu)) {
                let p = HostPlatform::new();
                let soft = SoftGpu::new($generation, PlatformBus::new(&p)).unwrap();
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                test(&mut gpu);
            }

            /// The common fields of an XY drawing command.
            fn xy(
                cpp: usize,
                pitch: usize,
                gfx: u64,
                r: (i64, i64, i64, i64),
                rop: u8,
                clip: bool,
            ) -> Vec<(&'static str, i64)> {
                vec![
                    ("bpp32_byte_mask", 3),
                    ("color_depth", depth(cpp)),
                    ("raster_operation", rop as i64),
                    ("destination_pitch", pitch as i64),
                    ("destination_x1", r.0),
                    ("destination_y1", r.1),
                    ("destination_x2", r.2),
                    ("destination_y2", r.3),
                    ("destination_base_address", gfx as i64),
                    ("clipping_enable", clip as i64),
                ]
            }

            const RECT: (i64, i64, i64, i64) = (3, 2, 47, 17);
            const CLIP: (i64, i64, i64, i64) = (5, 4, 40, 15);

            fn clip_cmd() -> Vec<u32> {
                cmd(
                    T,
                    "XY_SETUP_CLIP_BLT",
                    &[
                        ("cliprect_x1", CLIP.0),
                        ("cliprect_y1", CLIP.1),
                        ("cliprect_x2", CLIP.2),
                        ("cliprect_y2", CLIP.3),
                    ],
                    &[],
                )
            }

            fn clipped(clip: bool) -> (i64, i64, i64, i64) {
                if clip {
                    (
                        RECT.0.max(CLIP.0),
                        RECT.1.max(CLIP.1),
                        RECT.2.min(CLIP.2),
                        RECT.3.min(CLIP.3),
                    )
                } else {
                    RECT
                }
            }

            #[test]
            fn colour_patterns_from_memory_and_immediate() {
                with_gpu(|gpu| {
                    for cpp in [1, 2, 4] {
                        for (rop, clip, immediate) in [
                            (0xf0u8, false, false),
                            (0x5a, true, false),
                            (0xf0, true, true),
                            (0xa5, false, true),
                        ] {
                            let pitch = W * cpp + 8;
                            let (d, dg) = buffer(gpu, pitch * H, 11 + cpp as u32);
                            let (p, pg) = buffer(gpu, 64 * cpp, 23);
                            let pat = mem(&p)[..64 * cpp].to_vec();
                            let seed = (5, 3);
                            let before = mem(&d)[..pitch * H].to_vec();
                            let mut f = xy(cpp, pitch, dg, RECT, rop, clip);
                            f.push(("pattern_horizontal_seed", seed.0));
                            f.push(("pattern_vertical_seed", seed.1));
                            let c = if immediate {
                                cmd(T, "XY_PAT_BLT_IMMEDIATE", &f, &words(&pat))
                            } else {
                                f.push(("pattern_base_address", pg as i64));
                                cmd(T, "XY_PAT_BLT", &f, &[])
                            };
                            run(gpu, &[clip_cmd(), c]).unwrap();
                            let want =
                                expect(&before, pitch, cpp, clipped(clip), rop, 3, &|x, y, _| {
                                    Some((pat_pixel(&pat, cpp, x, y, seed), 0))
                                });
                            assert!(
                                mem(&d)[..pitch * H] == want[..],
                                "XY_PAT_BLT{} {cpp} bpp rop {rop:#x}",
                                if immediate { "_IMMEDIATE" } else { "" }
                            );
                        }
                    }
                });
            }

            #[test]
            fn mono_patterns_with_and_without_transparency() {
                with_gpu(|gpu| {
                    for cpp in [1, 2, 4] {
                        for (rop, transparent, solid) in [
                            (0xf0u8, false, false),
                            (0xf0, true, false),
                            (0x5a, false, false),
                            (0xf0, false, true),
                        ] {
                            let pitch = W * cpp;
                            let (d, dg) = buffer(gpu, pitch * H, 31);
                            let before = mem(&d)[..pitch * H].to_vec();
                            let bits = 0x8142_2418_a55a_3cc3u64;
                            let (fg, bg) = (0x1122_3344u32, 0x99aa_bbccu32);
                            let seed = (2, 7);
                            let mut f = xy(cpp, pitch, dg, RECT, rop, false);
                            f.extend([
                                ("pattern_horizontal_seed", seed.0),
                                ("pattern_vertical_seed", seed.1),
                                ("mono_pattern_transparency_mode", transparent as i64),
                                ("pattern_foreground_color", fg as i64),
                                ("pattern_background_color", bg as i64),
                                ("pattern_data_0", bits as u32 as i64),
                                ("pattern_data_1", (bits >> 32) as i64),
                            ]);
                            let name = if solid {
                                "XY_FULL_MONO_PATTERN_BLT"
                            } else {
                                "XY_MONO_PAT_BLT"
                            };
                            if solid {
                                // A full blit with Solid Pattern Select and a
                                // ROP without source: the background only.
                                f.extend([
                                    ("solid_pattern_select", 1),
                                    ("source_pitch", pitch as i64),
                                    ("source_base_address", dg as i64),
                                ]);
                            }
                            run(gpu, &[cmd(T, name, &f, &[])]).unwrap();
                            let want = expect(&before, pitch, cpp, RECT, rop, 3, &|x, y, _| {
                                let on = !solid && mono_pat(bits, x, y, seed);
                                (on || !transparent).then_some((if on { fg } else { bg }, 0))
                            });
                            assert!(
                                mem(&d)[..pitch * H] == want[..],
                                "{name} {cpp} bpp rop {rop:#x} transparent {transparent}"
                            );
                        }
                    }
                });
            }

            /// Mono source bits for a `w` x `h` rectangle, word-aligned lines
            /// starting at bit `first`.
            fn mono_words(
                w: usize,
                h: usize,
                first: usize,
                seed: u32,
            ) -> (Vec<u8>, impl Fn(i64, i64) -> bool) {
                let stride = (first + w).div_ceil(16) * 2;
                let data = noise(seed, stride * h + 8);
                let d = data.clone();
                (data, move |x: i64, y: i64| {
                    bit(&d, y as usize * stride * 8 + first + x as usize)
                })
            }

            #[test]
            fn mono_source_copies_from_memory_and_immediate() {
                with_gpu(|gpu| {
                    for cpp in [1, 2, 4] {
                        for (rop, transparent, first, immediate, clip) in [
                            (0xccu8, false, 0, false, false),
                            (0xcc, true, 3, false, true),
                            (0x66, false, 5, true, false),
                            (0xcc, true, 0, true, true),
                        ] {
                            let pitch = W * cpp;
                            let (d, dg) = buffer(gpu, pitch * H, 41);
                            let before = mem(&d)[..pitch * H].to_vec();
                            let (w, h) = ((RECT.2 - RECT.0) as usize, (RECT.3 - RECT.1) as usize);
                            let (bits, src) = mono_words(w, h, first, 77 + cpp as u32);
                            let (s, sg) = buffer(gpu, bits.len(), 1);
                            fill(&s, &bits);
                            let (fg, bg) = (0xdead_beefu32, 0x0bad_f00du32);
                            let mut f = xy(cpp, pitch, dg, RECT, rop, clip);
                            f.extend([
                                ("monochrome_source_data_bit_position", first as i64),
                                ("mono_source_transparency_mode", transparent as i64),
                                ("source_foreground_color", fg as i64),
                                ("source_background_color", bg as i64),
                            ]);
                            let c = if immediate {
                                let qwords = (bits.len() - 8).div_ceil(8) * 8;
                                cmd(
                                    T,
                                    "XY_MONO_SRC_COPY_IMMEDIATE_BLT",
                                    &f,
                                    &words(&bits[..qwords]),
                                )
                            } else {
                                f.push(("source_address", sg as i64));
                                cmd(T, "XY_MONO_SRC_COPY_BLT", &f, &[])
                            };
                            run(gpu, &[clip_cmd(), c]).unwrap();
                            let want =
                                expect(&before, pitch, cpp, clipped(clip), rop, 3, &|x, y, _| {
                                    let on = src(x - RECT.0, y - RECT.1);
                                    (on || !transparent).then_some((0, if on { fg } else { bg }))
                                });
                            assert!(
                                mem(&d)[..pitch * H] == want[..],
                                "mono source {cpp} bpp rop {rop:#x} immediate {immediate}"
                            );
                        }
                    }
                });
            }

            #[test]
            fn full_blits_combine_pattern_source_and_destination() {
                with_gpu(|gpu| {
                    let cpp = 4;
                    let pitch = W * cpp;
                    let seed = (1, 6);
                    let (fg, bg) = (0x0f0f_0f0fu32, 0xf0e0_d0c0u32);
                    let (pfg, pbg) = (0x1234_5678u32, 0x8765_4321u32);
                    let pbits = 0x0123_4567_89ab_cdefu64;
                    for rop in [0xb8u8, 0xe2, 0x96, 0x1e] {
                        for name in [
                            "XY_FULL_BLT",
                            "XY_FULL_IMMEDIATE_PATTERN_BLT",
                            "XY_FULL_MONO_SRC_BLT",
                            "XY_FULL_MONO_SRC_IMMEDIATE_PATTERN_BLT",
                            "XY_FULL_MONO_PATTERN_BLT",
                            "XY_FULL_MONO_PATTERN_MONO_SRC_BLT",
                        ] {
                            let (d, dg) = buffer(gpu, pitch * H, 51);
                            let (s, sg) = buffer(gpu, pitch * H, 55);
                            let (p, pg) = buffer(gpu, 256, 53);
                            let before = mem(&d)[..pitch * H].to_vec();
                            let src = mem(&s)[..pitch * H].to_vec();
                            let pat = mem(&p)[..256].to_vec();
                            let (w, h) = ((RECT.2 - RECT.0) as usize, (RECT.3 - RECT.1) as usize);
                            let (bits, mono) = mono_words(w, h, 2, 9);
                            let (m, mg) = buffer(gpu, bits.len(), 2);
                            fill(&m, &bits);
                            let mono_src = name.contains("MONO_SRC");
                            let mono_pat = name.contains("MONO_PATTERN");
                            let imm_pat = name.contains("IMMEDIATE");
                            let (sx, sy) = (4, 1);
                            let mut f = xy(cpp, pitch, dg, RECT, rop, false);
                            f.extend([
                                ("pattern_horizontal_seed", seed.0),
                                ("pattern_vertical_seed", seed.1),
                            ]);
                            if mono_src {
                                let addr = if name == "XY_FULL_MONO_PATTERN_MONO_SRC_BLT" {
                                    "source_address"
                                } else {
                                    "mono_source_address"
                                };
                                f.extend([
                                    (addr, mg as i64),
                                    ("monochrome_source_data_bit_position", 2),
                                    ("source_foreground_color", fg as i64),
                                    ("source_background_color", bg as i64),
                                ]);
                            } else {
                                f.extend([
                                    ("source_pitch", pitch as i64),
                                    ("source_x1", sx),
                                    ("source_y1", sy),
                                    ("source_base_address", sg as i64),
                                ]);
                            }
                            if mono_pat {
                                f.extend([
                                    ("pattern_foreground_color", pfg as i64),
                                    ("pattern_background_color", pbg as i64),
                                    ("pattern_data_0", pbits as u32 as i64),
                                    ("pattern_data_1", (pbits >> 32) as i64),
                                ]);
                            } else if !imm_pat {
                                f.push(("pattern_base_address", pg as i64));
                            }
                            let imm = if imm_pat { words(&pat) } else { vec![] };
                            run(gpu, &[cmd(T, name, &f, &imm)]).unwrap();
                            let want = expect(&before, pitch, cpp, RECT, rop, 3, &|x, y, _| {
                                let p = if mono_pat {
                                    if mono_pat_bit(pbits, x, y, seed) {
                                        pfg
                                    } else {
                                        pbg
                                    }
                                } else {
                                    pat_pixel(&pat, cpp, x, y, seed)
                                };
                                let s = if mono_src {
                                    if mono(x - RECT.0, y - RECT.1) { fg } else { bg }
                                } else {
                                    let at = (sy + y - RECT.1) as usize * pitch
                                        + (sx + x - RECT.0) as usize * cpp;
                                    u32::from_le_bytes(src[at..at + 4].try_into().unwrap())
                                };
                                Some((p, s))
                            });
                            assert!(mem(&d)[..pitch * H] == want[..], "{name} rop {rop:#x}");
                        }
                    }
                });
            }

            fn mono_pat_bit(bits: u64, x: i64, y: i64, seed: (i64, i64)) -> bool {
                mono_pat(bits, x, y, seed)
            }

            /// Per-component range test of the chroma keys.
            fn in_range(depth: i64, alpha: bool, v: u32, lo: u32, hi: u32) -> bool {
                let fields: Vec<(u32, u32)> = match (depth, alpha) {
                    (1, _) => vec![(11, 5), (5, 6), (0, 5)],
                    (3, false) => vec![(16, 8), (8, 8), (0, 8)],
                    (3, true) => vec![(24, 8), (16, 8), (8, 8), (0, 8)],
                    _ => unreachable!(),
                };
                fields.iter().all(|&(s, w)| {
                    let m = (1 << w) - 1;
                    (lo >> s) & m <= (v >> s) & m && (v >> s) & m <= (hi >> s) & m
                })
            }

            #[test]
            fn chroma_keys_on_source_and_destination() {
                with_gpu(|gpu| {
                    for cpp in [2, 4] {
                        for mode in [0b001u32, 0b011, 0b101, 0b111, 0b000] {
                            for pattern in [false, true] {
                                if pattern && mode & 0b101 == 0b001 {
                                    continue;
                                }
                                let pitch = W * cpp;
                                let (d, dg) = buffer(gpu, pitch * H, 61);
                                let (s, sg) = buffer(gpu, pitch * H, 65);
                                let before = mem(&d)[..pitch * H].to_vec();
                                let src = mem(&s)[..pitch * H].to_vec();
                                let pat = noise(63, 64 * cpp);
                                // A range that holds about a third of the noise: each component
                                // between 1/8 and 7/8 of its scale.
                                let (lo, hi) = if cpp == 2 {
                                    ((4 << 11) | (8 << 5) | 4, (28 << 11) | (56 << 5) | 28)
                                } else {
                                    (0x2020_2020u32, 0xe0e0_e0e0u32)
                                };
                                (0x2020_2020u32 & low(cpp, !0), 0xe0c0_e0c0u32 & low(cpp, !0));
                                let mut f = xy(
                                    cpp,
                                    pitch,
                                    dg,
                                    RECT,
                                    if pattern { 0xf0 } else { 0xcc },
                                    false,
                                );
                                f.extend([
                                    ("transparency_range_mode", mode as i64),
                                    ("transparency_color_low", lo as i64),
                                    ("transparency_color_high", hi as i64),
                                ]);
                                // 16 bpp takes the pattern in the command, 32 bpp from memory.
                                // The pattern's memory lives until the blit ran.
                                let mut pattern_mem = None;
                                let c = if pattern && cpp == 2 {
                                    cmd(T, "XY_PAT_CHROMA_BLT_IMMEDIATE", &f, &words(&pat))
                                } else if pattern {
                                    let (p, pg) = buffer(gpu, pat.len(), 1);
                                    fill(&p, &pat);
                                    pattern_mem = Some(p);
                                    f.push(("pattern_base_address", pg as i64));
                                    cmd(T, "XY_PAT_CHROMA_BLT", &f, &[])
                                } else {
                                    // The source pixel at the destination's coordinates.
                                    f.extend([
                                        ("source_pitch", pitch as i64),
                                        ("source_x1", RECT.0),
                                        ("source_y1", RECT.1),
                                        ("source_base_address", sg as i64),
                                    ]);
                                    cmd(T, "XY_SRC_COPY_CHROMA_BLT", &f, &[])
                                };
                                run(gpu, &[c]).unwrap();
                                drop(pattern_mem);
                                let want = expect(
                                    &before,
                                    pitch,
                                    cpp,
                                    RECT,
                                    if pattern { 0xf0 } else { 0xcc },
                                    3,
                                    &|x, y, old| {
                                        let at = y as usize * pitch + x as usize * cpp;
                                        let sv = src[at..at + cpp]
                                            .iter()
                                            .rev()
                                            .fold(0u32, |a, &b| a << 8 | b as u32);
                                        let alpha = mode & 0b110 != 0b110 && mode & 0b010 != 0;
                                        let alpha = alpha && cpp == 4;
                                        let keep = match mode {
                                            0b001 | 0b011 => {
                                                !in_range(depth(cpp), alpha, sv, lo, hi)
                                            }
                                            0b101 | 0b111 => in_range(
                                                depth(cpp),
                                                mode == 0b101 && cpp == 4,
                                                old,
                                                lo,
                                                hi,
                                            ),
                                            _ => true,
                                        };
                                        let p = if pattern {
                                            pat_pixel(&pat, cpp, x, y, (0, 0))
                                        } else {
                                            0
                                        };
                                        keep.then_some((p, sv))
                                    },
                                );
                                assert!(
                                    mem(&d)[..pitch * H] == want[..],
                                    "chroma mode {mode:#05b} {cpp} bpp pattern {pattern}"
                                );
                            }
                        }
                    }
                    // A source key on a pattern chroma blit is illegal.
                    let (_dst, dg) = buffer(gpu, 4 * W * H, 1);
                    let mut f = xy(4, 4 * W, dg, RECT, 0xf0, false);
                    f.push(("transparency_range_mode", 1));
                    let r = run(gpu, &[cmd(T, "XY_PAT_CHROMA_BLT_IMMEDIATE", &f, &[0; 64])]);
                    assert!(matches!(r, Err(GpuError::Hang(_))), "{r:?}");
                });
            }

            #[test]
            fn scan_lines_and_text_use_the_setup_state() {
                with_gpu(|gpu| {
                    for cpp in [1, 2, 4] {
                        let pitch = W * cpp;
                        let (fg, bg) = (0x4455_6677u32, 0xccdd_eeffu32);
                        let pbits = 0x3c7e_ffdb_ff66_3c18u64;
                        let seed = (6, 1);
                        // XY_SETUP_MONO_PATTERN_SL_BLT then XY_SCANLINES_BLT.
                        let (d, dg) = buffer(gpu, pitch * H, 71);
                        let before = mem(&d)[..pitch * H].to_vec();
                        let setup = |name: &str, rop: u8, extra: &[(&'static str, i64)]| {
                            let mut f = vec![
                                ("bpp32_byte_mask", 3),
                                ("color_depth", depth(cpp)),
                                ("raster_operation", rop as i64),
                                ("destination_pitch", pitch as i64),
                                ("clipping_enable", 1),
                                ("cliprect_x1", CLIP.0),
                                ("cliprect_y1", CLIP.1),
                                ("cliprect_x2", CLIP.2),
                                ("cliprect_y2", CLIP.3),
                                ("setup_destination_base_address", dg as i64),
                                ("setup_background_color", bg as i64),
                                ("setup_foreground_color", fg as i64),
                            ];
                            f.extend_from_slice(extra);
                            cmd(T, name, &f, &[])
                        };
                        let rect = [
                            ("destination_x1", RECT.0),
                            ("destination_y1", RECT.1),
                            ("destination_x2", RECT.2),
                            ("destination_y2", RECT.3),
                        ];
                        let mut sl = rect.to_vec();
                        sl.extend([
                            ("pattern_horizontal_seed", seed.0),
                            ("pattern_vertical_seed", seed.1),
                        ]);
                        run(
                            gpu,
                            &[
                                setup(
                                    "XY_SETUP_MONO_PATTERN_SL_BLT",
                                    0xf0,
                                    &[
                                        ("pattern_data_0", pbits as u32 as i64),
                                        ("pattern_data_1", (pbits >> 32) as i64),
                                    ],
                                ),
                                cmd(T, "XY_SCANLINES_BLT", &sl, &[]),
                            ],
                        )
                        .unwrap();
                        let want =
                            expect(&before, pitch, cpp, clipped(true), 0xf0, 3, &|x, y, _| {
                                Some((if mono_pat(pbits, x, y, seed) { fg } else { bg }, 0))
                            });
                        assert!(
                            mem(&d)[..pitch * H] == want[..],
                            "scan lines, mono pattern, {cpp} bpp"
                        );

                        // XY_SETUP_BLT (colour pattern at BR07) then XY_SCANLINES_BLT.
                        let (p, pg) = buffer(gpu, 64 * cpp, 72);
                        let pat = mem(&p)[..64 * cpp].to_vec();
                        let before = mem(&d)[..pitch * H].to_vec();
                        run(
                            gpu,
                            &[
                                setup(
                                    "XY_SETUP_BLT",
                                    0x5a,
                                    &[("setup_pattern_base_address", pg as i64)],
                                ),
                                cmd(T, "XY_SCANLINES_BLT", &sl, &[]),
                            ],
                        )
                        .unwrap();
                        let want =
                            expect(&before, pitch, cpp, clipped(true), 0x5a, 3, &|x, y, _| {
                                Some((pat_pixel(&pat, cpp, x, y, seed), 0))
                            });
                        assert!(
                            mem(&d)[..pitch * H] == want[..],
                            "scan lines, colour pattern, {cpp} bpp"
                        );

                        // Text: bit and byte packed, from memory and immediate,
                        // with and without transparency.
                        for (packed, immediate, transparent) in [
                            (0, false, false),
                            (1, false, true),
                            (0, true, true),
                            (1, true, false),
                        ] {
                            let (w, h) = ((RECT.2 - RECT.0) as usize, (RECT.3 - RECT.1) as usize);
                            let line = if packed == 1 { w.div_ceil(8) * 8 } else { w };
                            let bytes = (line * h).div_ceil(64) * 8;
                            let text = noise(80 + 4 * packed + 2 * immediate as u32, bytes);
                            let (t, tg) = buffer(gpu, bytes, 3);
                            fill(&t, &text);
                            let before = mem(&d)[..pitch * H].to_vec();
                            let mut f = rect.to_vec();
                            f.push(("bit_byte_packed", packed as i64));
                            let c = if immediate {
                                cmd(T, "XY_TEXT_IMMEDIATE_BLT", &f, &words(&text))
                            } else {
                                f.push(("source_address", tg as i64));
                                cmd(T, "XY_TEXT_BLT", &f, &[])
                            };
                            run(
                                gpu,
                                &[
                                    setup(
                                        "XY_SETUP_BLT",
                                        0xcc,
                                        &[("mono_source_transparency_mode", transparent as i64)],
                                    ),
                                    c,
                                ],
                            )
                            .unwrap();
                            let want =
                                expect(&before, pitch, cpp, clipped(true), 0xcc, 3, &|x, y, _| {
                                    let on = bit(
                                        &text,
                                        (y - RECT.1) as usize * line + (x - RECT.0) as usize,
                                    );
                                    (on || !transparent).then_some((0, if on { fg } else { bg }))
                                });
                            assert!(
                                mem(&d)[..pitch * H] == want[..],
                                "text packed {packed} immediate {immediate} {cpp} bpp"
                            );
                        }
                    }
                });
            }

            /// The 32 bpp byte mask: alpha only, RGB only.
            #[test]
            fn the_byte_mask_limits_32bpp_writes() {
                with_gpu(|gpu| {
                    let (cpp, pitch) = (4, W * 4);
                    for mask in [1, 2] {
                        let (d, dg) = buffer(gpu, pitch * H, 131 + 2 * mask as u32);
                        let (p, pg) = buffer(gpu, 256, 137);
                        let pat = mem(&p)[..256].to_vec();
                        let before = mem(&d)[..pitch * H].to_vec();
                        let mut f = xy(cpp, pitch, dg, RECT, 0x5a, false);
                        f[0] = ("bpp32_byte_mask", mask);
                        f.push(("pattern_base_address", pg as i64));
                        run(gpu, &[cmd(T, "XY_PAT_BLT", &f, &[])]).unwrap();
                        let want =
                            expect(&before, pitch, cpp, RECT, 0x5a, mask as u32, &|x, y, _| {
                                Some((pat_pixel(&pat, cpp, x, y, (0, 0)), 0))
                            });
                        assert!(mem(&d)[..pitch * H] == want[..], "mask {mask}");
                    }
                });
            }

            /// The fixed patterns as the manual draws them (003 lines
            /// 21700-21918): one string per scan line, pixel 0 first.
            const FIXED: [(i64, [&str; 8]); 10] = [
                (
                    0,
                    [
                        "00000000", "00000000", "00000000", "11111111", "00000000", "00000000",
                        "00000000", "00000000",
                    ],
                ),
                (1, ["00001000"; 8]),
                (
                    2,
                    [
                        "10000000", "01000000", "00100000", "00010000", "00001000", "00000100",
                        "00000010", "00000001",
                    ],
                ),
                (
                    3,
                    [
                        "00000001", "00000010", "00000100", "00001000", "00010000", "00100000",
                        "01000000", "10000000",
                    ],
                ),
                (
                    4,
                    [
                        "00001000", "00001000", "00001000", "11111111", "00001000", "00001000",
                        "00001000", "00001000",
                    ],
                ),
                (
                    5,
                    [
                        "10000001", "01000010", "00100100", "00011000", "00011000", "00100100",
                        "01000010", "10000001",
                    ],
                ),
                (
                    8,
                    [
                        "01010101", "10101010", "01010101", "10101010", "01010101", "10101010",
                        "01010101", "10101010",
                    ],
                ),
                (
                    9,
                    [
                        "11001100", "00110011", "11001100", "00110011", "11001100", "00110011",
                        "11001100", "00110011",
                    ],
                ),
                (
                    10,
                    [
                        "10001000", "01000100", "00100010", "00010001", "10001000", "01000100",
                        "00100010", "00010001",
                    ],
                ),
                (
                    11,
                    [
                        "01110111", "10111011", "11011101", "11101110", "01110111", "10111011",
                        "11011101", "11101110",
                    ],
                ),
            ];

            #[test]
            fn fixed_mono_patterns_follow_the_manual_drawings() {
                with_gpu(|gpu| {
                    let cpp = 2;
                    let pitch = W * cpp;
                    let (fg, bg) = (0xf00fu32, 0x0ff0u32);
                    for (code, rows) in FIXED {
                        for (seed, transparent) in [((0, 0), false), ((3, 5), true)] {
                            let (d, dg) = buffer(gpu, pitch * H, 90 + 2 * code as u32);
                            let before = mem(&d)[..pitch * H].to_vec();
                            let mut f = xy(cpp, pitch, dg, RECT, 0xf0, false);
                            f.extend([
                                ("fixed_pattern", code),
                                ("pattern_horizontal_seed", seed.0),
                                ("pattern_vertical_seed", seed.1),
                                ("mono_pattern_transparency_mode", transparent as i64),
                                ("pattern_foreground_color", fg as i64),
                                ("pattern_background_color", bg as i64),
                            ]);
                            run(gpu, &[cmd(T, "XY_MONO_PAT_FIXED_BLT", &f, &[])]).unwrap();
                            let want = expect(&before, pitch, cpp, RECT, 0xf0, 3, &|x, y, _| {
                                let (c, r) =
                                    ((x + seed.0).rem_euclid(8), (y + seed.1).rem_euclid(8));
                                let on = rows[r as usize].as_bytes()[c as usize] == b'1';
                                (on || !transparent).then_some((if on { fg } else { bg }, 0))
                            });
                            assert!(
                                mem(&d)[..pitch * H] == want[..],
                                "fixed pattern {code} seed {seed:?}"
                            );
                        }
                    }
                    // A reserved code is an engine error.
                    let (_dst, dg) = buffer(gpu, pitch * H, 1);
                    let mut f = xy(cpp, pitch, dg, RECT, 0xf0, false);
                    f.push(("fixed_pattern", 6));
                    let r = run(gpu, &[cmd(T, "XY_MONO_PAT_FIXED_BLT", &f, &[])]);
                    assert!(matches!(r, Err(GpuError::Hang(_))), "{r:?}");
                });
            }

            /// All 256 raster operations over a colour pattern, a colour
            /// source and the destination.
            #[test]
            fn every_rop_of_a_full_blit() {
                with_gpu(|gpu| {
                    let cpp = 4;
                    let pitch = W * cpp;
                    let (s, sg) = buffer(gpu, pitch * H, 101);
                    let (p, pg) = buffer(gpu, 256, 103);
                    let src = mem(&s)[..pitch * H].to_vec();
                    let pat = mem(&p)[..256].to_vec();
                    let rect = (1, 1, 12, 5);
                    for rop in 0..=255u8 {
                        let (d, dg) = buffer(gpu, pitch * H, 105 + 2 * rop as u32);
                        let before = mem(&d)[..pitch * H].to_vec();
                        let mut f = xy(cpp, pitch, dg, rect, rop, false);
                        f.extend([
                            ("source_pitch", pitch as i64),
                            ("source_x1", 7),
                            ("source_y1", 2),
                            ("source_base_address", sg as i64),
                            ("pattern_base_address", pg as i64),
                        ]);
                        run(gpu, &[cmd(T, "XY_FULL_BLT", &f, &[])]).unwrap();
                        // ROPs 0xAA (D) leave the destination unchanged.
                        if rop == 0xaa {
                            assert!(mem(&d)[..pitch * H] == before[..], "rop 0xaa");
                            continue;
                        }
                        let want = expect(&before, pitch, cpp, rect, rop, 3, &|x, y, _| {
                            let at = (2 + y - 1) as usize * pitch + (7 + x - 1) as usize * cpp;
                            Some((
                                pat_pixel(&pat, cpp, x, y, (0, 0)),
                                u32::from_le_bytes(src[at..at + 4].try_into().unwrap()),
                            ))
                        });
                        assert!(
                            mem(&d)[..pitch * H] == want[..],
                            "XY_FULL_BLT rop {rop:#04x}"
                        );
                    }
                });
            }

            /// A pattern blit into X- and Y-tiled destinations (BCS_SWCTRL
            /// selects Y), compared through the driver's CPU de-tiling.
            #[test]
            fn pattern_blits_into_tiled_surfaces() {
                use baregpu::gtt::tiling::{Swizzle, Tiling, align_pitch, tiled_to_linear};
                with_gpu(|gpu| {
                    let cpp = 4;
                    for (tiling, y) in [(Tiling::X, false), (Tiling::Y, true)] {
                        let pitch = align_pitch(tiling, W * cpp).unwrap();
                        let rows = H.next_multiple_of(tiling.row_alignment());
                        let (d, dg) = buffer(gpu, pitch * rows, 111);
                        let image = |m: &[u8]| {
                            let mut img = vec![0; pitch * rows];
                            tiled_to_linear(
                                &mut img,
                                pitch,
                                m,
                                tiling,
                                Swizzle::None,
                                pitch,
                                pitch,
                                rows,
                            )
                            .unwrap();
                            img
                        };
                        let before = image(&mem(&d)[..pitch * rows]);
                        let bits = 0x1824_4281_8142_2418u64;
                        let mut f = xy(cpp, pitch / 4, dg, RECT, 0x5a, false);
                        f.extend([
                            ("tiling_enable", 1),
                            ("pattern_foreground_color", 0x00ff_00ff),
                            ("pattern_background_color", 0x7f00_7f00),
                            ("pattern_data_0", bits as u32 as i64),
                            ("pattern_data_1", (bits >> 32) as i64),
                        ]);
                        // BCS_SWCTRL (0x22200, masked): bit 1 = destination Y-tiled (Linux i915).
                        let swctrl = cmd(
                            T,
                            "MI_LOAD_REGISTER_IMM",
                            &[],
                            &[0x22200, (2 << 16) | ((y as u32) << 1)],
                        );
                        run(gpu, &[swctrl, cmd(T, "XY_MONO_PAT_BLT", &f, &[])]).unwrap();
                        let want = expect(&before, pitch, cpp, RECT, 0x5a, 3, &|x, y, _| {
                            Some((
                                if mono_pat(bits, x, y, (0, 0)) {
                                    0x00ff_00ff
                                } else {
                                    0x7f00_7f00
                                },
                                0,
                            ))
                        });
                        assert!(image(&mem(&d)[..pitch * rows]) == want, "{tiling:?}");
                    }
                });
            }
        }
    };
}

expand_tests!(gen6, Generation::Gen6);
expand_tests!(gen7, Generation::Gen7);

/// Gen4/G45 run XY_TEXT_IMMEDIATE_BLT on the render engine with the
/// XY_SETUP_BLT state (their only expanded blit).
macro_rules! text_tests {
    ($gen:ident, $generation:expr) => {
        mod $gen {
            use super::*;

            const T: &GenTables = &baregpu::hal::$gen::TABLES;

            #[test]
            fn immediate_text_with_the_setup_colours() {
                let p = HostPlatform::new();
                let soft = SoftGpu::new($generation, PlatformBus::new(&p)).unwrap();
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                let gpu = &mut gpu;
                let cpp = 4;
                let pitch = W * cpp;
                let (fg, bg) = (0x1357_9bdfu32, 0x2468_ace0u32);
                let rect = (2, 3, 37, 11);
                let (w, h) = ((rect.2 - rect.0) as usize, (rect.3 - rect.1) as usize);
                for (packed, transparent) in [(0u32, false), (1, true)] {
                    let line = if packed == 1 { w.div_ceil(8) * 8 } else { w };
                    let text = noise(120 + 2 * packed, (line * h).div_ceil(64) * 8);
                    let (d, dg) = buffer(gpu, pitch * H, 121);
                    let before = mem(&d)[..pitch * H].to_vec();
                    let setup = cmd(
                        T,
                        "XY_SETUP_BLT",
                        &[
                            ("bpp32_byte_mask", 3),
                            ("color_depth", 3),
                            ("raster_operation", 0xcc),
                            ("destination_pitch", pitch as i64),
                            ("mono_source_transparency_mode", transparent as i64),
                            ("setup_destination_base_address", dg as i64),
                            ("setup_background_color", bg as i64),
                            ("setup_foreground_color", fg as i64),
                        ],
                        &[],
                    );
                    let f = [
                        ("bit_byte_packed", packed as i64),
                        ("destination_x1", rect.0),
                        ("destination_y1", rect.1),
                        ("destination_x2", rect.2),
                        ("destination_y2", rect.3),
                    ];
                    run(
                        gpu,
                        &[setup, cmd(T, "XY_TEXT_IMMEDIATE_BLT", &f, &words(&text))],
                    )
                    .unwrap();
                    let want = expect(&before, pitch, cpp, rect, 0xcc, 3, &|x, y, _| {
                        let on = bit(&text, (y - rect.1) as usize * line + (x - rect.0) as usize);
                        (on || !transparent).then_some((0, if on { fg } else { bg }))
                    });
                    assert!(mem(&d)[..pitch * H] == want[..], "text packed {packed}");
                }
            }
        }
    };
}

text_tests!(gen4, Generation::Gen4);
text_tests!(g45, Generation::G45);
