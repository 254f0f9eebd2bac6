//! The DG2 blitter through the execlist model: PPGTT batches on the blitter
//! engine that fast-copy, block-copy and fast-colour-fill linear, X, Tile4
//! and Tile64 surfaces in system and local memory, checked byte for byte
//! against a host reference written here from the layouts' published bit
//! strings (Intel gmmlib CpuSwizzleBlt.c: INTEL_TILE_X, INTEL_TILE_4,
//! INTEL_TILE_64_*), not from the model's or the hal's code; the fields the
//! model does not do refused by name; mutated blits never panic.
//!
//! Command layouts: hal/tables/gen12.5/blitter.toml; the pitch and tiling
//! encodings as Linux igt lib/intel_blt.c writes them for DG2.

mod dg2_support;

use std::ops::{Deref, DerefMut};

use baregpu_hal::{MemoryBus, Mmio};
use dg2_support::{BLITTER, Dg2Base, MI_BATCH_BUFFER_END, PTE_LM, reg, tables};

fn bcs() -> u32 {
    tables().engine_base("blitter").unwrap()
}

/// Where a buffer's bytes are.
#[derive(Clone, Copy)]
enum Place {
    System(u64),
    Local(u64),
}

#[derive(Clone, Copy)]
struct Buf {
    va: u64,
    place: Place,
    len: usize,
}

/// The model with local-memory buffers on top of the shared scaffolding.
struct Dg2 {
    base: Dg2Base,
    next_local: u64,
}

impl Deref for Dg2 {
    type Target = Dg2Base;
    fn deref(&self) -> &Dg2Base {
        &self.base
    }
}

impl DerefMut for Dg2 {
    fn deref_mut(&mut self) -> &mut Dg2Base {
        &mut self.base
    }
}

impl Dg2 {
    fn new() -> Self {
        Self {
            base: Dg2Base::new(),
            next_local: 0x10_0000,
        }
    }

    /// A buffer of `len` bytes mapped in the PPGTT, in local or system memory.
    fn buffer(&mut self, len: usize, local: bool) -> Buf {
        let pages = len.div_ceil(4096) as u64;
        let va = self.next_va;
        self.next_va += (pages + 1) * 4096;
        let place = if local {
            let off = self.next_local;
            self.next_local += pages * 4096;
            Place::Local(off)
        } else {
            Place::System(self.phys(pages))
        };
        for p in 0..pages {
            match place {
                Place::System(phys) => self.map(va + p * 4096, phys + p * 4096, 0),
                Place::Local(off) => self.map(va + p * 4096, off + p * 4096, PTE_LM),
            }
        }
        Buf { va, place, len }
    }

    fn write_buf(&self, b: &Buf, data: &[u8]) {
        match b.place {
            Place::System(p) => self.ram.write(p, data).unwrap(),
            Place::Local(o) => assert!(self.gpu.write_local(o, data)),
        }
    }

    fn read_buf(&self, b: &Buf) -> Vec<u8> {
        let mut v = vec![0u8; b.len];
        match b.place {
            Place::System(p) => self.ram.read(p, &mut v).unwrap(),
            Place::Local(o) => assert!(self.gpu.read_local(o, &mut v)),
        }
        v
    }

    /// Runs `cmds` as a PPGTT batch on the blitter, in a fresh context whose
    /// ring starts it.
    fn run(&mut self, cmds: &[u32]) {
        let batch = self.buffer(4096, false);
        let mut words = cmds.to_vec();
        words.push(MI_BATCH_BUFFER_END);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.write_buf(&batch, &bytes);
        self.submit(BLITTER, batch.va);
    }
}
/// A tile layout as gmmlib writes it, bit 15 first (`o`: not part of the tile).
const X_STR: &str = "o o o o Y Y Y X X X X X X X X X";
const TILE4_STR: &str = "o o o o Y Y X Y X X Y Y X X X X";

fn tile64_str(cpp: usize) -> &'static str {
    match cpp {
        1 => "Y Y Y X Y Y X Y X X Y Y X X X X",
        2 | 4 => "Y Y X X Y Y X Y X X Y Y X X X X",
        _ => "Y X X X Y Y X Y X X Y Y X X X X",
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tiling {
    Linear,
    X,
    Tile4,
    Tile64,
}

/// A surface as the host reference sees it.
#[derive(Clone, Copy)]
struct Surf {
    buf: Buf,
    tiling: Tiling,
    cpp: usize,
    pitch: usize,
}

/// Reference offset of byte column `xb` of row `y`: the bit string read
/// from the lowest bit up, each `X` taking the next column bit, each `Y`
/// the next row bit; tiles row-major with `pitch / width` per row.
fn reference_offset(s: &Surf, xb: usize, y: usize) -> usize {
    let bits = match s.tiling {
        Tiling::Linear => return y * s.pitch + xb,
        Tiling::X => X_STR,
        Tiling::Tile4 => TILE4_STR,
        Tiling::Tile64 => tile64_str(s.cpp),
    };
    let chars: Vec<&str> = bits.split(' ').rev().collect();
    let nx = chars.iter().filter(|c| **c == "X").count();
    let ny = chars.iter().filter(|c| **c == "Y").count();
    let (w, h) = (1usize << nx, 1usize << ny);
    let (mut u, mut v) = (xb % w, y % h);
    let mut inside = 0;
    for (k, c) in chars.iter().enumerate() {
        match *c {
            "X" => {
                inside |= (u & 1) << k;
                u >>= 1;
            }
            "Y" => {
                inside |= (v & 1) << k;
                v >>= 1;
            }
            _ => {}
        }
    }
    ((y / h) * (s.pitch / w) + xb / w) * (w * h) + inside
}

/// Tile width in bytes and height in rows by the same strings.
fn tile_extent(t: Tiling, cpp: usize) -> (usize, usize) {
    let s = match t {
        Tiling::Linear => return (16, 1),
        Tiling::X => X_STR,
        Tiling::Tile4 => TILE4_STR,
        Tiling::Tile64 => tile64_str(cpp),
    };
    let n = |c| s.split(' ').filter(|x| *x == c).count();
    (1 << n("X"), 1 << n("Y"))
}

/// A surface of at least `w` x `h` pixels, filled with bytes from `seed`.
fn surface(g: &mut Dg2, t: Tiling, cpp: usize, w: usize, h: usize, local: bool, seed: u32) -> Surf {
    let (tw, th) = tile_extent(t, cpp);
    let pitch = if t == Tiling::Linear {
        w * cpp + 3 * cpp * 16
    } else {
        (w * cpp).div_ceil(tw) * tw
    };
    let rows = h.div_ceil(th) * th;
    let buf = g.buffer(pitch * rows, local);
    let data: Vec<u8> = (0..buf.len)
        .map(|i| ((i as u32).wrapping_mul(2654435761) >> 13 ^ seed) as u8)
        .collect();
    g.write_buf(&buf, &data);
    Surf {
        buf,
        tiling: t,
        cpp,
        pitch,
    }
}

/// The destination after copying `w` x `h` pixels from (sx, sy) of `src`
/// to (dx, dy) of `dst`, by the reference layouts.
fn expected_copy(
    g: &Dg2,
    src: &Surf,
    dst: &Surf,
    (sx, sy): (usize, usize),
    (dx, dy): (usize, usize),
    (w, h): (usize, usize),
) -> Vec<u8> {
    let from = g.read_buf(&src.buf);
    let mut want = g.read_buf(&dst.buf);
    let cpp = src.cpp;
    for y in 0..h {
        for xb in 0..w * cpp {
            let s = reference_offset(src, sx * cpp + xb, sy + y);
            let d = reference_offset(dst, dx * cpp + xb, dy + y);
            want[d] = from[s];
        }
    }
    want
}

fn lo(a: u64) -> u32 {
    a as u32
}
fn hi(a: u64) -> u32 {
    (a >> 32) as u32
}
fn xy(x: usize, y: usize) -> u32 {
    (y as u32) << 16 | x as u32
}

/// XY_FAST_COPY_BLT (opcode 0x42, 10 DWords): tiling methods in DW0 21:20
/// and 14:13, Tile4 bits DW1 31/30, colour depth DW1 26:24, pitches in
/// DWords for tiled surfaces.
fn fast_copy(
    src: &Surf,
    dst: &Surf,
    s: (usize, usize),
    d: (usize, usize),
    wh: (usize, usize),
) -> Vec<u32> {
    let method = |t: Tiling| match t {
        Tiling::Linear => 0,
        Tiling::X => 1,
        Tiling::Tile4 => 2,
        Tiling::Tile64 => 3,
    };
    let depth = match src.cpp {
        1 => 0,
        2 => 1,
        4 => 3,
        8 => 4,
        _ => 5,
    };
    let pitch = |s: &Surf| if s.tiling == Tiling::Linear { s.pitch } else { s.pitch / 4 } as u32;
    let tile4 = |t: Tiling, bit: u32| u32::from(t == Tiling::Tile4) << bit;
    vec![
        2 << 29 | 0x42 << 22 | method(src.tiling) << 20 | method(dst.tiling) << 13 | 8,
        tile4(src.tiling, 31) | tile4(dst.tiling, 30) | depth << 24 | pitch(dst),
        xy(d.0, d.1),
        xy(d.0 + wh.0, d.1 + wh.1),
        lo(dst.buf.va),
        hi(dst.buf.va),
        xy(s.0, s.1),
        pitch(src),
        lo(src.buf.va),
        hi(src.buf.va),
    ]
}

fn block_tiling(t: Tiling) -> u32 {
    match t {
        Tiling::Linear => 0,
        Tiling::X => 1,
        Tiling::Tile4 => 2,
        Tiling::Tile64 => 3,
    }
}

fn block_depth(cpp: usize) -> u32 {
    match cpp {
        1 => 0,
        2 => 1,
        4 => 2,
        8 => 3,
        12 => 4,
        _ => 5,
    }
}

/// Pitch field of XY_BLOCK_COPY_BLT / XY_FAST_COLOR_BLT: minus one, DWords when tiled.
fn pitch_m1(s: &Surf) -> u32 {
    (if s.tiling == Tiling::Linear {
        s.pitch
    } else {
        s.pitch / 4
    }) as u32
        - 1
}

/// XY_BLOCK_COPY_BLT (opcode 0x41, 22 DWords) with origin offsets, 2D
/// surfaces, LOD 0, mip tail start 15 (as igt's blt_set_object_ext).
#[allow(clippy::too_many_arguments)]
fn block_copy(
    src: &Surf,
    dst: &Surf,
    s: (usize, usize),
    d: (usize, usize),
    wh: (usize, usize),
    src_off: (u32, u32),
    dst_off: (u32, u32),
) -> Vec<u32> {
    let mut c = vec![0u32; 22];
    c[0] = 2 << 29 | 0x41 << 22 | block_depth(src.cpp) << 19 | 20;
    c[1] = block_tiling(dst.tiling) << 30 | pitch_m1(dst);
    c[2] = xy(d.0, d.1);
    c[3] = xy(d.0 + wh.0, d.1 + wh.1);
    c[4] = lo(dst.buf.va);
    c[5] = hi(dst.buf.va);
    c[6] = dst_off.1 << 16 | dst_off.0;
    c[7] = xy(s.0, s.1);
    c[8] = block_tiling(src.tiling) << 30 | pitch_m1(src);
    c[9] = lo(src.buf.va);
    c[10] = hi(src.buf.va);
    c[11] = src_off.1 << 16 | src_off.0;
    c[16] = 1 << 29; // SURFTYPE_2D
    c[18] = 0xf << 8; // mip tail start LOD 15
    c[19] = 1 << 29;
    c[21] = 0xf << 8;
    c
}

/// XY_FAST_COLOR_BLT (opcode 0x44, 16 DWords): the fill colour from DW7.
fn fast_color(
    dst: &Surf,
    d: (usize, usize),
    wh: (usize, usize),
    off: (u32, u32),
    color: [u32; 4],
) -> Vec<u32> {
    let mut c = vec![0u32; 16];
    c[0] = 2 << 29 | 0x44 << 22 | block_depth(dst.cpp) << 19 | 14;
    c[1] = block_tiling(dst.tiling) << 30 | pitch_m1(dst);
    c[2] = xy(d.0, d.1);
    c[3] = xy(d.0 + wh.0, d.1 + wh.1);
    c[4] = lo(dst.buf.va);
    c[5] = hi(dst.buf.va);
    c[6] = off.1 << 16 | off.0;
    c[7..11].copy_from_slice(&color);
    c[13] = 1 << 29;
    c[15] = 0xf << 8;
    c
}

/// The Tile64 tile of a pixel size, in pixels.
fn tile64_px(cpp: usize) -> (usize, usize) {
    let (w, h) = tile_extent(Tiling::Tile64, cpp);
    (w / cpp, h)
}

#[test]
fn fast_copies_between_layouts_match_the_reference() {
    use Tiling::*;
    let pairs = [
        (Linear, Tile4),
        (Tile4, Linear),
        (Linear, Tile64),
        (Tile64, Linear),
        (Tile4, Tile64),
        (Tile64, Tile4),
        (X, Tile64),
        (Tile64, Tile64),
    ];
    for cpp in [1, 2, 4, 8, 16] {
        let (tw, th) = tile64_px(cpp);
        for (k, (st, dt)) in pairs.iter().enumerate() {
            let mut g = Dg2::new();
            // Surfaces two Tile64 tiles wide and a bit over one high; the
            // rectangle crosses tile columns and rows, with odd sizes.
            let (w, h) = (2 * tw, th + 24);
            let src = surface(&mut g, *st, cpp, w, h, k % 2 == 0, 0x11);
            let dst = surface(&mut g, *dt, cpp, w, h, k % 3 == 0, 0x77);
            let oword = 16 / cpp;
            let s = (oword.max(1), 3);
            let d = (3 * oword.max(1), 5);
            let wh = (tw + 7 - (3 * oword).min(tw / 2), th + 9);
            let want = expected_copy(&g, &src, &dst, s, d, wh);
            g.run(&fast_copy(&src, &dst, s, d, wh));
            assert_eq!(g.errors(), 0, "{cpp} bytes {st:?} -> {dt:?}");
            assert!(g.read_buf(&dst.buf) == want, "{cpp} bytes {st:?} -> {dt:?}");
        }
    }
}

#[test]
fn block_copies_with_offsets_and_odd_rectangles_match_the_reference() {
    use Tiling::*;
    let cases = [
        (Linear, Tile4, 4, (0, 0), (5, 3)),
        (Tile4, Linear, 2, (7, 2), (0, 0)),
        (Tile64, Tile4, 8, (3, 1), (9, 6)),
        (Tile4, Tile64, 1, (0, 0), (33, 17)),
        (Tile64, Linear, 16, (1, 4), (0, 0)),
        (Linear, Tile64, 4, (0, 0), (2, 40)),
        (Linear, Linear, 12, (0, 0), (0, 0)),
        (X, Tile4, 4, (6, 0), (0, 9)),
    ];
    for (k, (st, dt, cpp, so, dof)) in cases.into_iter().enumerate() {
        let mut g = Dg2::new();
        let (tw, th) = if cpp == 12 { (40, 40) } else { tile64_px(cpp) };
        let (w, h) = (tw + 60, th + 50);
        let src = surface(&mut g, st, cpp, w, h, k % 2 == 1, 0x35);
        let dst = surface(&mut g, dt, cpp, w, h, k % 2 == 0, 0xa9);
        // Odd corners and sizes: block copies have no alignment rule.
        let s = (5, 7);
        let d = (11, 3);
        let wh = (tw + 13, th + 5);
        let want = expected_copy(
            &g,
            &src,
            &dst,
            (s.0 + so.0 as usize, s.1 + so.1 as usize),
            (d.0 + dof.0 as usize, d.1 + dof.1 as usize),
            wh,
        );
        g.run(&block_copy(&src, &dst, s, d, wh, so, dof));
        assert_eq!(g.errors(), 0, "case {k}");
        assert!(
            g.read_buf(&dst.buf) == want,
            "case {k}: {cpp} bytes {st:?} -> {dt:?}"
        );
    }
}

/// A block copy inside one surface to rows below its source reads each row
/// before it is overwritten (bottom up), as a copy through a buffer would.
#[test]
fn an_overlapping_block_copy_within_a_surface_copies_the_original_rows() {
    let mut g = Dg2::new();
    let s = surface(&mut g, Tiling::Tile4, 4, 64, 96, true, 0x5c);
    let before = g.read_buf(&s.buf);
    let (src, dst, wh) = ((4, 2), (6, 9), (40, 60));
    let mut want = before.clone();
    for y in 0..wh.1 {
        for xb in 0..wh.0 * 4 {
            let from = reference_offset(&s, src.0 * 4 + xb, src.1 + y);
            let to = reference_offset(&s, dst.0 * 4 + xb, dst.1 + y);
            want[to] = before[from];
        }
    }
    g.run(&block_copy(&s, &s, src, dst, wh, (0, 0), (0, 0)));
    assert_eq!(g.errors(), 0);
    assert!(g.read_buf(&s.buf) == want);
}

#[test]
fn fast_color_fills_every_depth_and_layout() {
    use Tiling::*;
    let color: [u32; 4] = [0x8899_aabb, 0x1122_3344, 0x5566_7788, 0xccdd_eeff];
    let colour_bytes: Vec<u8> = color.iter().flat_map(|c| c.to_le_bytes()).collect();
    for (k, (t, cpp)) in [
        (Linear, 1),
        (Tile4, 2),
        (Tile64, 4),
        (Tile64, 8),
        (X, 16),
        (Linear, 12),
        (Tile4, 16),
        (Tile64, 1),
    ]
    .into_iter()
    .enumerate()
    {
        let mut g = Dg2::new();
        let (tw, th) = if cpp == 12 { (30, 30) } else { tile64_px(cpp) };
        let dst = surface(&mut g, t, cpp, tw + 40, th + 40, k % 2 == 0, 0x42);
        let off = if t == Linear { (0, 0) } else { (3, 2) };
        let (d, wh) = ((7, 5), (tw + 3, th + 1));
        let mut want = g.read_buf(&dst.buf);
        for y in 0..wh.1 {
            for xb in 0..wh.0 * cpp {
                let at = reference_offset(
                    &dst,
                    (d.0 + off.0 as usize) * cpp + xb,
                    d.1 + off.1 as usize + y,
                );
                want[at] = colour_bytes[xb % cpp];
            }
        }
        g.run(&fast_color(&dst, d, wh, off, color));
        assert_eq!(g.errors(), 0, "{t:?} {cpp}");
        assert!(g.read_buf(&dst.buf) == want, "{t:?} {cpp} bytes");
    }
}

/// Each form the model does not do stops the engine naming it, with the
/// header shown and the destination untouched.
#[test]
fn unmodelled_fields_are_refused_by_name() {
    type Mutation = (&'static str, Box<dyn Fn(&mut Vec<u32>)>, &'static str);
    let mutations: Vec<Mutation> = vec![
        ("block", Box::new(|c| c[1] |= 1 << 29), "compression"),
        ("block", Box::new(|c| c[8] |= 5 << 18), "auxiliary surface"),
        ("block", Box::new(|c| c[0] |= 1 << 12), "resolves"),
        ("block", Box::new(|c| c[0] |= 2 << 9), "multisampled"),
        ("block", Box::new(|c| c[16] = 2 << 29), "3D"),
        ("block", Box::new(|c| c[20] |= 2), "LOD 0"),
        ("block", Box::new(|c| c[18] |= 1 << 21), "array slices"),
        ("block", Box::new(|c| c[14] |= 1 << 5), "clear value"),
        ("block", Box::new(|c| c[18] &= !(0xf << 8)), "mip tail"),
        (
            "block",
            Box::new(|c| c[0] = c[0] & !0xff | 10),
            "Gen12 form",
        ),
        (
            "block",
            Box::new(|c| c[0] = c[0] & !(7 << 19) | 4 << 19),
            "96 bpp",
        ),
        (
            "block",
            Box::new(|c| c[2] = 0xffff_0000 | c[2] & 0xffff),
            "negative",
        ),
        ("fast", Box::new(|c| c[1] &= !(1 << 31)), "legacy Tile-Y"),
        (
            "fast",
            Box::new(|c| c[1] = c[1] & !(7 << 24) | 2 << 24),
            "reserved colour depth",
        ),
        ("fast", Box::new(|c| c[2] += 1), "OWord"),
        ("fast", Box::new(|c| c[7] = 24), "tile width"),
        ("color", Box::new(|c| c[0] |= 2 << 12), "fast clears"),
        ("color", Box::new(|c| c[1] |= 1 << 29), "compression"),
        ("color", Box::new(|c| c[6] = 1), "fill"),
    ];
    for (cmd, mutate, name) in mutations {
        let mut g = Dg2::new();
        let src = surface(&mut g, Tiling::Tile4, 4, 64, 40, false, 1);
        let lin = surface(&mut g, Tiling::Linear, 4, 64, 40, false, 2);
        let dst = surface(&mut g, Tiling::Tile64, 4, 128, 128, true, 3);
        let mut c = match cmd {
            "block" => block_copy(&src, &dst, (0, 0), (0, 0), (16, 16), (0, 0), (0, 0)),
            "fast" => fast_copy(&src, &dst, (0, 0), (0, 0), (16, 16)),
            _ => fast_color(&lin, (0, 0), (16, 16), (0, 0), [1, 2, 3, 4]),
        };
        mutate(&mut c);
        let target = if cmd == "color" { lin } else { dst };
        let before = g.read_buf(&target.buf);
        g.run(&c);
        // The linear fill with X/Y offsets is the one refusal named differently.
        let name = if name == "fill" {
            "linear surface"
        } else {
            name
        };
        let got = g.gpu.unmodelled(BLITTER);
        assert!(
            got.is_some_and(|n| n.contains(name)),
            "{cmd} {name}: {got:?}"
        );
        assert_eq!(g.gpu.read32(bcs() + reg("RING_IPEHR")), c[0], "{name}");
        assert_eq!(g.gpu.read32(bcs() + reg("RING_EIR")), 1, "{name}");
        assert!(g.read_buf(&target.buf) == before, "{name}: nothing written");
    }
}

/// A blit into an unmapped page is a page fault with its address; the rows
/// before it were written.
#[test]
fn a_blit_into_unmapped_memory_faults_at_the_address() {
    let mut g = Dg2::new();
    let src = surface(&mut g, Tiling::Linear, 4, 256, 16, false, 9);
    // The destination's mapping ends in row 10 of the 16 copied.
    let dst = surface(&mut g, Tiling::Linear, 4, 256, 8, true, 9);
    let before = g.read_buf(&src.buf);
    g.run(&fast_copy(&src, &dst, (0, 0), (0, 0), (256, 16)));
    assert_eq!(
        g.gpu.read32(bcs() + reg("RING_EIR")),
        1 << 4,
        "page table error"
    );
    let page = u64::from(g.gpu.read32(reg("GEN12_FAULT_TLB_DATA0")));
    let end = dst.buf.va + (dst.pitch * 8) as u64;
    assert_eq!(
        page,
        (end.next_multiple_of(4096) >> 12) as u32 as u64,
        "address 43:12"
    );
    assert!(g.read_buf(&dst.buf)[..dst.pitch * 8] == before[..dst.pitch * 8]);
}

/// Valid blits with random bits flipped: the model executes, refuses or
/// faults, and never panics.
#[test]
fn mutated_blit_batches_never_panic() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..60 {
        let mut g = Dg2::new();
        let a = surface(&mut g, Tiling::Tile4, 4, 64, 32, round % 2 == 0, 1);
        let b = surface(&mut g, Tiling::Tile64, 2, 64, 64, round % 3 == 0, 2);
        let l = surface(&mut g, Tiling::Linear, 4, 64, 32, round % 4 == 0, 3);
        let mut c = match round % 5 {
            0 => block_copy(&a, &b, (1, 1), (2, 2), (20, 20), (0, 0), (0, 0)),
            1 => fast_copy(&a, &a, (0, 0), (4, 1), (30, 9)),
            2 => xy_color(&l, (1, 2), (30, 20), 0x5a, 3, 0x1234_5678),
            3 => xy_src_copy(&l, &l, (0, 0), (2, 3), (40, 20), 0x88),
            _ => fast_color(&b, (3, 3), (40, 17), (1, 1), [7, 8, 9, 10]),
        };
        for _ in 0..1 + next() % 4 {
            let k = (next() as usize) % c.len();
            c[k] ^= 1 << (next() % 32);
        }
        // Keep coordinates small enough to finish quickly.
        if c.len() > 3 {
            c[3] &= 0x00ff_00ff;
        }
        g.run(&c);
        let _ = g.gpu.unmodelled(BLITTER);
    }
}

/// XY_COLOR_BLT (opcode 0x50, 7 DWords) and XY_SRC_COPY_BLT (0x53, 10
/// DWords): the SNB layout with 64-bit bases; depth 25:24, ROP 23:16, pitch
/// in bytes for linear surfaces, the 32 bpp byte mask in DW0 21:20.
fn xy_color(
    dst: &Surf,
    d: (usize, usize),
    wh: (usize, usize),
    rop: u32,
    mask: u32,
    color: u32,
) -> Vec<u32> {
    let depth = match dst.cpp {
        1 => 0,
        2 => 1,
        _ => 3,
    };
    vec![
        2 << 29 | 0x50 << 22 | mask << 20 | 5,
        depth << 24 | rop << 16 | dst.pitch as u32,
        xy(d.0, d.1),
        xy(d.0 + wh.0, d.1 + wh.1),
        lo(dst.buf.va),
        hi(dst.buf.va),
        color,
    ]
}

fn xy_src_copy(
    src: &Surf,
    dst: &Surf,
    s: (usize, usize),
    d: (usize, usize),
    wh: (usize, usize),
    rop: u32,
) -> Vec<u32> {
    let depth = match dst.cpp {
        1 => 0,
        2 => 1,
        _ => 3,
    };
    vec![
        2 << 29 | 0x53 << 22 | 3 << 20 | 8,
        depth << 24 | rop << 16 | dst.pitch as u32,
        xy(d.0, d.1),
        xy(d.0 + wh.0, d.1 + wh.1),
        lo(dst.buf.va),
        hi(dst.buf.va),
        xy(s.0, s.1),
        src.pitch as u32,
        lo(src.buf.va),
        hi(src.buf.va),
    ]
}

/// The legacy blits DG2 keeps, on linear surfaces: a 32 bpp fill that writes
/// only the RGB bytes, a 16 bpp copy with ROP 0x66 (source XOR destination),
/// and the tiled and clipped forms refused by name.
#[test]
fn legacy_color_and_source_copy_blits_on_linear_surfaces() {
    let mut g = Dg2::new();
    let dst = surface(&mut g, Tiling::Linear, 4, 50, 20, true, 0x31);
    let mut want = g.read_buf(&dst.buf);
    let (d, wh, color) = ((3, 2), (41, 13), 0xa1b2_c3d4u32);
    for y in d.1..d.1 + wh.1 {
        for x in d.0..d.0 + wh.0 {
            let at = y * dst.pitch + 4 * x;
            want[at..at + 3].copy_from_slice(&color.to_le_bytes()[..3]);
        }
    }
    // Byte mask 01b: RGB only, the alpha bytes keep their values.
    g.run(&xy_color(&dst, d, wh, 0xf0, 1, color));
    assert_eq!(g.errors(), 0);
    assert!(g.read_buf(&dst.buf) == want, "XY_COLOR_BLT");

    let src = surface(&mut g, Tiling::Linear, 2, 60, 30, false, 0x52);
    let dst = surface(&mut g, Tiling::Linear, 2, 60, 30, true, 0x93);
    let (from, mut want) = (g.read_buf(&src.buf), g.read_buf(&dst.buf));
    let (s, d, wh) = ((5, 1), (9, 4), (37, 21));
    for y in 0..wh.1 {
        for xb in 0..2 * wh.0 {
            let to = (d.1 + y) * dst.pitch + 2 * d.0 + xb;
            want[to] ^= from[(s.1 + y) * src.pitch + 2 * s.0 + xb];
        }
    }
    g.run(&xy_src_copy(&src, &dst, s, d, wh, 0x66));
    assert_eq!(g.errors(), 0);
    assert!(g.read_buf(&dst.buf) == want, "XY_SRC_COPY_BLT");

    // A 64-pixel linear pitch (448 bytes) read as Tile-X DWords is 1792
    // bytes, not a multiple of the 512-byte tile width.
    for (mutate, name) in [
        (1 << 11, "Tile-X legacy blit pitch"),
        (1 << 15, "Tile-X legacy blit pitch"),
        (0, "clipping"),
    ] {
        let mut g = Dg2::new();
        let s = surface(&mut g, Tiling::Linear, 4, 64, 4, false, 1);
        let mut c = xy_src_copy(&s, &s, (0, 0), (0, 2), (4, 2), 0xcc);
        c[0] |= mutate;
        if mutate == 0 {
            c[1] |= 1 << 30;
        }
        g.run(&c);
        let got = g.gpu.unmodelled(BLITTER);
        assert!(got.is_some_and(|n| n.contains(name)), "{name}: {got:?}");
    }
}

/// The legacy blits on Tile-X surfaces (DW0 bit 11 destination, bit 15
/// source; the pitch in DWords): a fill with a ROP, copies linear -> X,
/// X -> X and X -> linear, all against the reference layout; a tiled base
/// that is not 4 KiB aligned is refused by name.
#[test]
fn legacy_blits_on_tile_x_surfaces_match_the_reference() {
    let mut g = Dg2::new();
    let tiled = |c: &mut Vec<u32>, pitch_dw: usize, bits: u32, pitch_at: &[usize]| {
        c[0] |= bits;
        for &k in pitch_at {
            c[k] = (c[k] & !0xffff) | pitch_dw as u32;
        }
    };
    // XY_COLOR_BLT, 32 bpp, ROP 0x5a (pattern XOR destination), all bytes.
    let dst = surface(&mut g, Tiling::X, 4, 200, 20, true, 0x17);
    let before = g.read_buf(&dst.buf);
    let mut want = before.clone();
    let (d, wh, color) = ((70, 3), (100, 14), 0x0f1e_2d3cu32);
    for y in d.1..d.1 + wh.1 {
        for xb in 4 * d.0..4 * (d.0 + wh.0) {
            want[reference_offset(&dst, xb, y)] ^= color.to_le_bytes()[xb % 4];
        }
    }
    let mut c = xy_color(&dst, d, wh, 0x5a, 3, color);
    tiled(&mut c, dst.pitch / 4, 1 << 11, &[1]);
    g.run(&c);
    assert_eq!(g.errors(), 0);
    assert!(g.read_buf(&dst.buf) == want, "XY_COLOR_BLT on Tile-X");
    // XY_SRC_COPY_BLT with SRCCOPY between the layouts, 16 bpp.
    let cases = [
        (Tiling::Linear, Tiling::X, 1 << 11),
        (Tiling::X, Tiling::X, 1 << 11 | 1 << 15),
        (Tiling::X, Tiling::Linear, 1 << 15),
    ];
    for (from, to, bits) in cases {
        let src = surface(&mut g, from, 2, 300, 24, false, 0x41);
        let dst = surface(&mut g, to, 2, 300, 24, true, 0x77);
        let (sp, dp) = (src.pitch, dst.pitch);
        let (s0, d0, wh) = ((13, 5), (257, 9), (40, 15));
        let want = expected_copy(&g, &src, &dst, s0, d0, wh);
        let mut c = xy_src_copy(&src, &dst, s0, d0, wh, 0xcc);
        c[0] |= bits;
        if to == Tiling::X {
            c[1] = (c[1] & !0xffff) | (dp / 4) as u32;
        }
        if from == Tiling::X {
            c[7] = (sp / 4) as u32;
        }
        g.run(&c);
        assert_eq!(g.errors(), 0, "{from:?} -> {to:?}");
        assert!(g.read_buf(&dst.buf) == want, "{from:?} -> {to:?}");
    }
    // A tiled destination 64 bytes into its buffer.
    let dst = surface(&mut g, Tiling::X, 4, 128, 8, false, 3);
    let mut c = xy_color(&dst, (0, 0), (4, 4), 0xf0, 3, 1);
    tiled(&mut c, dst.pitch / 4, 1 << 11, &[1]);
    c[4] += 64;
    g.run(&c);
    let got = g.gpu.unmodelled(BLITTER);
    assert!(got.is_some_and(|n| n.contains("4 KiB aligned")), "{got:?}");
}
