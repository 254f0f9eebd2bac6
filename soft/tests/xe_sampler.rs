//! The Gen12.5 sampler's basic forms (`eu::shared::xe`, the older
//! sampling engine behind it) run by an Xe-HPG thread against `XeUnits`:
//! ld and ld_lz on linear and Tile4 surfaces, sample_l, sample_lz and
//! sample with nearest and bilinear filtering under the wrap, clamp and
//! mirror address modes, SIMD8 and SIMD16, each lane checked against a
//! host computation (texel fetch by the tiling's formula, the filter's
//! weights in double precision); the binding table, the interface
//! descriptor's sampler pointer and the header's bindless sampler pointer.
//! `sampler_forms_match_iga64` checks that iga64 (-p=12p71) assembles
//! the sends to the same bits.

#![allow(clippy::needless_range_loop)]

use baregpu_isa::message::xe_sampler::{SamplerSimd, XeSampler};
use baregpu_soft::eu::shared::FlatMemory;
use baregpu_soft::eu::shared::xe::{XeUnits, surface};
use baregpu_soft::eu::xe::XeHarness;

const BASE: u64 = 0x1_2340_0000;
const SIZE: usize = 0x20000;
const R8G8B8A8_UNORM: u32 = 0xC7;
const R32_FLOAT: u32 = 0xD8;
/// Image bytes start here; surface states at 0x1000, the binding table at
/// 0x1800, sampler states at DYN + 0x100.
const IMG: u64 = 0x4000;
const DYN: u64 = 0x2000;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Byte offset of texel (x, y) in a Tile4 or linear surface (Tile4: 128 B
/// x 32-row 4 KiB tiles, inside `Y Y X Y X X Y Y X X X X` above 4 bits
/// of x, as gmmlib CpuSwizzleBlt.c INTEL_TILE_4 spells it).
fn texel_offset(tile4: bool, pitch: usize, bpp: usize, x: usize, y: usize) -> usize {
    if !tile4 {
        return y * pitch + x * bpp;
    }
    let bx = x * bpp;
    let tile = (y / 32) * (pitch / 128) + bx / 128;
    let (u, v) = (bx % 128, y % 32);
    tile * 4096
        + ((u & 0xF)
            | (v & 0x3) << 4
            | (u >> 4 & 0x3) << 6
            | (v >> 2 & 1) << 8
            | (u >> 6 & 1) << 9
            | (v >> 3 & 0x3) << 10)
}

struct Image {
    w: usize,
    h: usize,
    pitch: usize,
    bpp: usize,
    format: u32,
    tile4: bool,
}

impl Image {
    /// The four channels the sampler returns for texel (x, y) as floats
    /// (UNORM8 v / 255; R32_FLOAT's missing G, B read 0 and A 1).
    fn texel(&self, mem: &[u8], x: usize, y: usize) -> [f64; 4] {
        let o = IMG as usize + texel_offset(self.tile4, self.pitch, self.bpp, x, y);
        if self.format == R32_FLOAT {
            let v = f32::from_le_bytes(mem[o..o + 4].try_into().unwrap());
            [f64::from(v), 0.0, 0.0, 1.0]
        } else {
            core::array::from_fn(|c| f64::from(mem[o + c]) / 255.0)
        }
    }
}

fn units(seed: u64, img: &Image, bti: u8) -> XeUnits {
    let mut m = FlatMemory::new(BASE, SIZE);
    let mut r = Rng(seed | 1);
    for b in m.bytes.iter_mut() {
        *b = r.next() as u8;
    }
    if img.format == R32_FLOAT {
        // Finite floats in [-2, 2).
        for t in 0..(SIZE - IMG as usize) / 4 {
            let v = ((r.next() % 4096) as f32 - 2048.0) / 1024.0;
            let o = IMG as usize + 4 * t;
            m.bytes[o..o + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
    let mut u = XeUnits::new(m);
    u.state.surface_state_base = BASE;
    u.state.binding_table = BASE + 0x1800;
    u.state.dynamic_state_base = BASE + DYN;
    u.state.sampler_state_pointer = 0x100;
    let dw = surface::encode_image(
        BASE + IMG,
        img.w as u32,
        img.h as u32,
        img.pitch as u32,
        img.format,
        img.tile4,
    );
    for (i, d) in dw.iter().enumerate() {
        u.memory.set_dword(BASE + 0x1000 + 4 * i as u64, *d);
    }
    u.memory
        .set_dword(BASE + 0x1800 + 4 * u64::from(bti), 0x1000);
    u
}

/// SAMPLER_STATE words (hal gen12.5 structs.toml lines 157-190): min and
/// mag filter `linear` in 16:14 and 19:17, no mip filter, LODs 0, TCX/TCY
/// in DW3 8:6 and 5:3.
fn sampler_state(linear: bool, mode: u32) -> [u32; 4] {
    let f = u32::from(linear);
    [f << 14 | f << 17, 0, 0, mode << 6 | mode << 3 | mode]
}

fn put_state(u: &mut XeUnits, at: u64, st: [u32; 4]) {
    for (i, d) in st.iter().enumerate() {
        u.memory.set_dword(at + 4 * i as u64, *d);
    }
}

/// Texel index `i` under address mode `mode` (0 wrap, 1 mirror, 2 clamp)
/// on an axis of `n` texels.
fn address(mode: u32, i: i64, n: i64) -> usize {
    (match mode {
        0 => i.rem_euclid(n),
        1 => {
            let m = i.rem_euclid(2 * n);
            if m >= n { 2 * n - 1 - m } else { m }
        }
        _ => i.clamp(0, n - 1),
    }) as usize
}

/// The host's filtered value at normalized (s, t).
fn host_sample(img: &Image, mem: &[u8], linear: bool, mode: u32, s: f32, t: f32) -> [f64; 4] {
    let (x, y) = (f64::from(s) * img.w as f64, f64::from(t) * img.h as f64);
    let (w, h) = (img.w as i64, img.h as i64);
    if !linear {
        let (i, j) = (x.floor() as i64, y.floor() as i64);
        return img.texel(mem, address(mode, i, w), address(mode, j, h));
    }
    let (x, y) = (x - 0.5, y - 0.5);
    let (i, j) = (x.floor() as i64, y.floor() as i64);
    let (fx, fy) = (x - x.floor(), y - y.floor());
    let at = |di: i64, dj: i64| img.texel(mem, address(mode, i + di, w), address(mode, j + dj, h));
    let (a, b, c, d) = (at(0, 0), at(1, 0), at(0, 1), at(1, 1));
    core::array::from_fn(|k| {
        (1.0 - fx) * (1.0 - fy) * a[k]
            + fx * (1.0 - fy) * b[k]
            + (1.0 - fx) * fy * c[k]
            + fx * fy * d[k]
    })
}

fn desc(msg_type: u8, simd16: bool, bti: u8, sampler: u8, header: bool) -> u32 {
    XeSampler {
        bti,
        sampler,
        msg_type,
        simd: if simd16 {
            SamplerSimd::Simd16
        } else {
            SamplerSimd::Simd8
        },
        return_16bit: false,
        header,
    }
    .encode()
    .unwrap()
}

fn harness(src: &str) -> XeHarness {
    let mut h = XeHarness::new();
    h.load_asm(src).unwrap_or_else(|e| panic!("{src}: {e:?}"));
    h.thread.check_swsb = false;
    h
}

/// Parameter `k` of lane `n` (parameters from r20).
fn set_param(h: &mut XeHarness, lanes: usize, k: usize, n: usize, v: u32) {
    let reg = 20 + k * lanes / 8 + n / 8;
    let at = reg * 32 + (n % 8) * 4;
    h.thread.thread.grf_mut()[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Channel `c` of lane `n` of the response at r40.
fn result(h: &XeHarness, lanes: usize, c: usize, n: usize) -> f32 {
    f32::from_bits(h.grf_ud((40 + c * lanes / 8 + n / 8) as u8, n % 8))
}

fn images() -> [Image; 4] {
    [
        Image {
            w: 13,
            h: 7,
            pitch: 64,
            bpp: 4,
            format: R8G8B8A8_UNORM,
            tile4: false,
        },
        Image {
            w: 40,
            h: 37,
            pitch: 256,
            bpp: 4,
            format: R8G8B8A8_UNORM,
            tile4: true,
        },
        Image {
            w: 9,
            h: 50,
            pitch: 128,
            bpp: 4,
            format: R32_FLOAT,
            tile4: true,
        },
        Image {
            w: 21,
            h: 5,
            pitch: 96,
            bpp: 4,
            format: R32_FLOAT,
            tile4: false,
        },
    ]
}

/// ld (u, v, lod) and ld_lz (u, v): texels in place, the ones off the
/// surface (or at lod 1 of a single-level surface) zeros, alpha 1 for
/// R32_FLOAT; disabled lanes keep their registers.
#[test]
fn ld_and_ld_lz_linear_and_tile4() {
    let mut rng = Rng(0x1D1D);
    for img in images() {
        for simd16 in [false, true] {
            for lz in [false, true] {
                let lanes = if simd16 { 16 } else { 8 };
                let mut u = units(rng.next(), &img, 3);
                let params = if lz { 2 } else { 3 };
                let src = format!(
                    "(f0.0) send.smpl ({lanes}|M0) r40 r20 null:0 0x0 0x{:08x}\n",
                    desc(if lz { 26 } else { 7 }, simd16, 3, 0, false)
                        | ((params * lanes / 8) as u32) << 25
                        | ((4 * lanes / 8) as u32) << 20
                );
                let mut h = harness(&src);
                let mask = (rng.next() as u32 & 0xFFFF) | 1;
                h.thread.thread.set_flag(0, mask);
                for r in 40..48 {
                    for d in 0..8 {
                        h.thread.thread.grf_mut()[r * 32 + 4 * d..r * 32 + 4 * d + 4]
                            .copy_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
                    }
                }
                let mut want = vec![None; lanes];
                for n in 0..lanes {
                    let x = rng.next() as i64 % (img.w as i64 + 4) - 2;
                    let y = rng.next() as i64 % (img.h as i64 + 4) - 2;
                    let lod = if lz {
                        0
                    } else {
                        u32::from(rng.next().is_multiple_of(4))
                    };
                    set_param(&mut h, lanes, 0, n, x as u32);
                    set_param(&mut h, lanes, 1, n, y as u32);
                    if !lz {
                        set_param(&mut h, lanes, 2, n, lod);
                    }
                    let inside = x >= 0 && y >= 0 && (x as usize) < img.w && (y as usize) < img.h;
                    let zero = if img.format == R32_FLOAT {
                        [0.0, 0.0, 0.0, 1.0]
                    } else {
                        [0.0; 4]
                    };
                    if mask >> n & 1 != 0 {
                        want[n] = Some(if inside && lod == 0 {
                            img.texel(&u.memory.bytes, x as usize, y as usize)
                        } else {
                            zero
                        });
                    }
                }
                h.run_with(&mut u, 10)
                    .unwrap_or_else(|e| panic!("{src}: {e}"));
                for (n, w) in want.iter().enumerate() {
                    for c in 0..4 {
                        let got = result(&h, lanes, c, n);
                        match w {
                            Some(w) => assert_eq!(
                                f64::from(got),
                                f64::from(w[c] as f32),
                                "{src} lane {n} channel {c}"
                            ),
                            None => assert_eq!(got.to_bits(), 0xDEAD_BEEF, "{src} lane {n} off"),
                        }
                    }
                }
            }
        }
    }
}

/// sample_l (lod 0), sample_lz and sample: nearest and bilinear under
/// wrap, mirror and clamp, coordinates reaching past both edges; the
/// sampler state from the interface descriptor's pointer (sampler index
/// 2), or through a header's M0.3 with bit 0 from the bindless base.
#[test]
fn sample_forms_filters_and_address_modes() {
    let mut rng = Rng(0x5A4D);
    let mut checked = 0;
    for img in images() {
        for linear in [false, true] {
            for mode in [0u32, 1, 2] {
                for (msg_type, header) in [(2u8, false), (24, false), (0, false), (24, true)] {
                    let simd16 = rng.next() & 1 == 0;
                    let lanes = if simd16 { 16 } else { 8 };
                    let mut u = units(rng.next(), &img, 5);
                    let st = sampler_state(linear, mode);
                    // Index 2 from the descriptor's pointer; the bindless
                    // copy at the header's pointer. A wrong pick reads
                    // another filter or mode.
                    put_state(&mut u, BASE + DYN + 0x100 + 32, st);
                    put_state(
                        &mut u,
                        BASE + DYN + 0x100,
                        sampler_state(!linear, (mode + 1) % 3),
                    );
                    u.state.bindless_sampler_state_base = BASE + 0x3000;
                    put_state(&mut u, BASE + 0x3000 + 0x40, st);
                    let params = match msg_type {
                        2 => 3,
                        _ => 2,
                    };
                    let hdr = usize::from(header);
                    let mlen = hdr + params * lanes / 8;
                    // With a header the payload starts a register earlier
                    // (r19), the parameters staying at r20.
                    let first = if header { "r19" } else { "r20" };
                    let src = format!(
                        "send.smpl ({lanes}|M0) r40 {first} null:0 0x0 0x{:08x}\n",
                        desc(msg_type, simd16, 5, if header { 0 } else { 2 }, header)
                            | (mlen as u32) << 25
                            | ((4 * lanes / 8) as u32) << 20
                    );
                    let mut h = harness(&src);
                    if header {
                        // M0.3: pointer 0x40 from the bindless base.
                        let at = 19 * 32 + 12;
                        h.thread.thread.grf_mut()[at..at + 4]
                            .copy_from_slice(&0x41u32.to_le_bytes());
                    }
                    let mut want = Vec::new();
                    // sample computes its LOD from each 2x2 subspan: the
                    // coordinates of a subspan step by less than a texel
                    // (the LOD is negative, magnification: the filter is
                    // the same either way here).
                    for n in 0..lanes {
                        let (s, t) = (
                            ((rng.next() % 4000) as f32 - 1000.0) / 1700.0,
                            ((rng.next() % 4000) as f32 - 1000.0) / 1700.0,
                        );
                        let (s, t) = if msg_type == 0 {
                            let q = n / 4 * 4;
                            let (s0, t0) = (
                                ((q * 37 % 100) as f32) / 70.0 - 0.2,
                                ((q * 53 % 100) as f32) / 70.0 - 0.2,
                            );
                            (s0 + (n % 2) as f32 * 0.01, t0 + (n / 2 % 2) as f32 * 0.01)
                        } else {
                            (s, t)
                        };
                        let k0 = if msg_type == 2 {
                            set_param(&mut h, lanes, 0, n, 0.0f32.to_bits());
                            1
                        } else {
                            0
                        };
                        set_param(&mut h, lanes, k0, n, s.to_bits());
                        set_param(&mut h, lanes, k0 + 1, n, t.to_bits());
                        want.push(host_sample(&img, &u.memory.bytes, linear, mode, s, t));
                    }
                    h.run_with(&mut u, 10)
                        .unwrap_or_else(|e| panic!("{src}: {e}"));
                    for (n, w) in want.iter().enumerate() {
                        for c in 0..4 {
                            let got = f64::from(result(&h, lanes, c, n));
                            assert!(
                                (got - w[c]).abs() <= 1e-5,
                                "{src} linear {linear} mode {mode} lane {n} channel {c}: {got} vs {}",
                                w[c]
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 1000);
}

/// Binding-table index 252 (Mesa GFX9_BTI_BINDLESS): the surface state
/// is at Bindless Surface State Base + the extended descriptor's offset,
/// not behind the (random) binding-table entry 252.
#[test]
fn bindless_surface_through_the_extended_descriptor() {
    let img = &images()[0];
    let mut u = units(0xB55, img, 3);
    u.state.bindless_surface_state_base = BASE.wrapping_sub(0x11000);
    let src = format!(
        "send.smpl (8|M0) r40 r20 null:0 0x12000 0x{:08x}\n",
        desc(26, false, 252, 0, false) | 2 << 25 | 4 << 20
    );
    let mut h = harness(&src);
    for n in 0..8 {
        set_param(&mut h, 8, 0, n, n as u32);
        set_param(&mut h, 8, 1, n, (n % 7) as u32);
    }
    h.run_with(&mut u, 10)
        .unwrap_or_else(|e| panic!("{src}: {e}"));
    for n in 0..8 {
        let w = img.texel(&u.memory.bytes, n, n % 7);
        for c in 0..4 {
            assert_eq!(
                f64::from(result(&h, 8, c, n)),
                f64::from(w[c] as f32),
                "lane {n} channel {c}"
            );
        }
    }
}

/// Messages the model does not serve are refused by name, never misread.
#[test]
fn unmodelled_sampler_forms_are_refused() {
    let img = &images()[0];
    for (d, why) in [
        (desc(4, true, 3, 0, false), "only sample"),
        (desc(7, true, 3, 0, false) | 1 << 30, "16-bit"),
    ] {
        let mut u = units(9, img, 3);
        let mut h = harness(&format!(
            "send.smpl (16|M0) r40 r20 null:0 0x0 0x{:08x}\n",
            d | 6 << 25 | 8 << 20
        ));
        let e = h.run_with(&mut u, 10).unwrap_err();
        assert!(format!("{e}").contains(why), "{e}");
    }
}

#[test]
fn sampler_forms_match_iga64() {
    let lines = [
        format!(
            "send.smpl (16|M0) r40 r20 null:0 0x0 0x{:08x}",
            desc(7, true, 3, 0, false) | 6 << 25 | 8 << 20
        ),
        format!(
            "send.smpl (8|M0) r40 r20 null:0 0x0 0x{:08x}",
            desc(26, false, 3, 0, false) | 2 << 25 | 4 << 20
        ),
        format!(
            "send.smpl (16|M0) r40 r20 null:0 0x0 0x{:08x}",
            desc(2, true, 5, 2, false) | 6 << 25 | 8 << 20
        ),
        format!(
            "send.smpl (16|M0) r40 r19 null:0 0x0 0x{:08x}",
            desc(24, true, 5, 0, true) | 5 << 25 | 8 << 20
        ),
        format!(
            "send.smpl (8|M0) r40 r20 null:0 0x0 0x{:08x}",
            desc(0, false, 5, 2, false) | 2 << 25 | 4 << 20
        ),
        format!(
            "send.smpl (8|M0) r40 r20 null:0 0x12000 0x{:08x}",
            desc(26, false, 252, 0, false) | 2 << 25 | 4 << 20
        ),
    ];
    let dir = std::env::temp_dir().join(format!("baregpu-xe-smpl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, out) = (dir.join("k.asm"), dir.join("k.bin"));
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&src, &text).unwrap();
    let Ok(r) = std::process::Command::new("iga64")
        .args(["-p=12p71", "-a"])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output()
    else {
        eprintln!("iga64 not found: skipping the oracle comparison");
        return;
    };
    assert!(
        r.status.success(),
        "iga64: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    let theirs = std::fs::read(&out).unwrap();
    let ours = baregpu_isa::text::assemble(baregpu_isa::IsaGen::Gen12_5, &text).unwrap();
    assert_eq!(ours.len(), theirs.len());
    for (i, (a, b)) in ours.chunks(16).zip(theirs.chunks(16)).enumerate() {
        assert_eq!(a, b, "{}", lines[i]);
    }
}
