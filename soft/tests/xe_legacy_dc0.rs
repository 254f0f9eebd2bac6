//! The legacy dc0 data-port messages of Gen12.5 threads (`XeHarness`
//! against `eu::shared::xe::XeUnits` over a host byte array): OWord blocks
//! in both offset units through the stateless, SLM and buffer binding-table
//! indices, dword and byte scattered reads and writes (every data size,
//! SIMD8 and SIMD16, masked lanes, with and without a header, SLM,
//! stateless and a buffer with lanes past its end), scratch blocks, the
//! memory fence, and the binding table read through a pool's bound. Each
//! result is checked against the host's copy of the bytes;
//! `dc0_forms_match_iga64` checks that iga64 (-p=12p71) assembles the sends
//! to the same bits, and `scattered_descriptors_as_iga64_decodes_them` runs
//! scattered descriptors with the lanes, sizes and surfaces iga64's
//! descriptor decoder (`-Xdsd`) reads in them.

use baregpu_isa::message::xe_hdc::{Dc0, Fence, OwordBlock, OwordCount, Scattered, Scratch};
use baregpu_soft::eu::shared::FlatMemory;
use baregpu_soft::eu::shared::xe::{XeUnits, surface};
use baregpu_soft::eu::xe::XeHarness;

const BASE: u64 = 0x1_2340_0000;
const SIZE: usize = 0x10000;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn units(seed: u64) -> XeUnits {
    let mut m = FlatMemory::new(BASE, SIZE);
    let mut r = Rng(seed | 1);
    for b in m.bytes.iter_mut() {
        *b = r.next() as u8;
    }
    let mut u = XeUnits::new(m);
    // Stateless A32 (BTI 253/255) counts from General State Base.
    u.state.flat_base = BASE;
    u.state.general_state_base = BASE;
    u.slm = (0..4096).map(|_| r.next() as u8).collect();
    u
}

fn harness(src: &str) -> XeHarness {
    let mut h = XeHarness::new();
    h.load_asm(src).unwrap_or_else(|e| panic!("{src}: {e:?}"));
    h.thread.check_swsb = false;
    h
}

fn set_bytes(h: &mut XeHarness, reg: u8, off: usize, v: &[u8]) {
    let at = usize::from(reg) * 32 + off;
    h.thread.thread.grf_mut()[at..at + v.len()].copy_from_slice(v);
}

fn bytes(h: &XeHarness, reg: u8, off: usize, n: usize) -> Vec<u8> {
    let at = usize::from(reg) * 32 + off;
    h.thread.thread.grf()[at..at + n].to_vec()
}

/// Where a block's bytes are, for the host: memory from BASE, SLM, or a
/// buffer of `size` bytes at memory offset `at`.
#[derive(Clone, Copy, Debug)]
enum Place {
    Stateless,
    Slm,
    Buffer { at: usize, size: usize },
}

const COUNTS: [(OwordCount, usize, usize); 6] = [
    (OwordCount::OneLow, 1, 0),
    (OwordCount::OneHigh, 1, 16),
    (OwordCount::Two, 2, 0),
    (OwordCount::Four, 4, 0),
    (OwordCount::Eight, 8, 0),
    (OwordCount::Sixteen, 16, 0),
];

/// Every count, both offset units (OWords for 00h/08h, bytes for
/// 01h/09h), reads and writes, stateless, SLM and a buffer whose end
/// cuts some blocks (those read 0 and drop their writes whole).
#[test]
fn oword_blocks_every_count_unit_and_place() {
    let mut rng = Rng(0xD0C0);
    let mut runs = 0;
    for (count, n, skip) in COUNTS {
        for byte_units in [false, true] {
            for write in [false, true] {
                for place in [
                    Place::Stateless,
                    Place::Slm,
                    Place::Buffer {
                        at: 0x4000,
                        size: 0x230,
                    },
                ] {
                    let mut u = units(rng.next());
                    let bti = match place {
                        Place::Stateless => 0xFF,
                        Place::Slm => 0xFE,
                        Place::Buffer { at, size } => {
                            u.state.surface_state_base = BASE;
                            u.state.binding_table = BASE + 0xF000;
                            for (i, d) in surface::encode_buffer(BASE + at as u64, size as u64)
                                .iter()
                                .enumerate()
                            {
                                u.memory.set_dword(BASE + 0xE000 + 4 * i as u64, *d);
                            }
                            u.memory.set_dword(BASE + 0xF000 + 4 * 5, 0xE000);
                            5
                        }
                    };
                    let desc = Dc0::Block(OwordBlock {
                        write,
                        aligned: byte_units,
                        bti,
                        count,
                    })
                    .encode()
                    .unwrap();
                    let regs = (n * 16 + skip).div_ceil(32) as u32;
                    let src = if write {
                        format!(
                            "send.dc0 (8|M0) null r20 r50:{regs} 0x0 0x{:08x}\n",
                            desc | 1 << 25
                        )
                    } else {
                        format!(
                            "send.dc0 (8|M0) r40 r20 null:0 0x0 0x{:08x}\n",
                            desc | 1 << 25 | regs << 20
                        )
                    };
                    let mut h = harness(&src);
                    // Byte offsets dword aligned, some past a buffer's end.
                    let off = match place {
                        Place::Buffer { .. } => 16 * (rng.next() % 40) as usize,
                        _ => 16 * (1 + rng.next() % 200) as usize,
                    } + if byte_units {
                        4 * (rng.next() % 4) as usize
                    } else {
                        0
                    };
                    let m2 = if byte_units { off } else { off / 16 } as u32;
                    set_bytes(&mut h, 20, 8, &m2.to_le_bytes());
                    let data: Vec<u8> = (0..n * 16).map(|_| rng.next() as u8).collect();
                    set_bytes(&mut h, 50, skip, &data);
                    set_bytes(&mut h, 40, skip, &vec![0xAA; n * 16]);
                    let (mut mem, mut slm) = (u.memory.bytes.clone(), u.slm.clone());
                    let (store, at, inside) = match place {
                        Place::Stateless => (&mut mem, off, true),
                        Place::Slm => (&mut slm, off, true),
                        Place::Buffer { at, size } => (&mut mem, at + off, off + n * 16 <= size),
                    };
                    let want_read = if inside {
                        store[at..at + n * 16].to_vec()
                    } else {
                        vec![0; n * 16]
                    };
                    if write && inside {
                        store[at..at + n * 16].copy_from_slice(&data);
                    }
                    h.run_with(&mut u, 10)
                        .unwrap_or_else(|e| panic!("{place:?} {src}: {e}"));
                    assert!(u.memory.bytes == mem, "{place:?} {src}");
                    assert!(u.slm == slm, "{place:?} {src}");
                    if !write {
                        assert_eq!(bytes(&h, 40, skip, n * 16), want_read, "{place:?} {src}");
                    }
                    runs += 1;
                }
            }
        }
    }
    assert_eq!(runs, 72);
}

/// Scratch blocks of 1, 2, 4 and 8 registers at random offsets in a
/// thread's space (M0.5 31:10 from the scratch base): writes land there,
/// reads return them, accesses past the per-thread size read 0 and are
/// dropped; a write with bit 16 stores only the enabled channels' dwords.
#[test]
fn scratch_blocks() {
    let mut rng = Rng(0x5C4A7C);
    let per_thread = 0x800u64;
    for regs in [1u8, 2, 4, 8] {
        for bit16 in [false, true] {
            let mut u = units(rng.next());
            u.state.scratch_base = BASE + 0x1000;
            u.state.scratch_per_thread = per_thread;
            let own = 0x400 * (1 + rng.next() % 8);
            // Offsets in registers, the last ones running past the space.
            for offset in [0u16, 3, 60, 63] {
                let w = Dc0::Scratch(Scratch {
                    write: true,
                    regs,
                    offset,
                    invalidate_after_read: false,
                    write_bit16: bit16,
                })
                .encode()
                .unwrap();
                let r = Dc0::Scratch(Scratch {
                    write: false,
                    regs,
                    offset,
                    invalidate_after_read: false,
                    write_bit16: false,
                })
                .encode()
                .unwrap();
                let src = format!(
                    "(f0.0) send.dc0 (8|M0) null r20 r50:{regs} 0x0 0x{:08x}\n\
                     send.dc0 (8|M0) r40 r20 null:0 0x0 0x{:08x}\n",
                    w | 1 << 25,
                    r | 1 << 25 | u32::from(regs) << 20
                );
                let mut h = harness(&src);
                let mask = (rng.next() as u32 & 0xFF) | 1;
                h.thread.thread.set_flag(0, mask);
                // M0.5 carries the thread's space with FFTID-like low bits.
                set_bytes(&mut h, 20, 20, &((own as u32) | 0x2A5).to_le_bytes());
                let n = usize::from(regs) * 32;
                let data: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                set_bytes(&mut h, 50, 0, &data);
                let mut mem = u.memory.bytes.clone();
                let space = 0x1000 + own as usize;
                let start = usize::from(offset) * 32;
                let mut want = vec![0u8; n];
                for d in 0..n / 4 {
                    let o = start + 4 * d;
                    let on = !bit16 || mask >> (d % 8) & 1 != 0;
                    if o + 4 > per_thread as usize {
                        continue;
                    }
                    if on {
                        mem[space + o..space + o + 4].copy_from_slice(&data[4 * d..4 * d + 4]);
                    }
                    want[4 * d..4 * d + 4].copy_from_slice(&mem[space + o..space + o + 4]);
                }
                h.run_with(&mut u, 10)
                    .unwrap_or_else(|e| panic!("{src}: {e}"));
                assert!(u.memory.bytes == mem, "{src}");
                assert_eq!(bytes(&h, 40, 0, n), want, "{src}");
            }
        }
    }
    // No scratch space: refused by name.
    let mut u = units(1);
    let r = Dc0::Scratch(Scratch {
        write: false,
        regs: 1,
        offset: 0,
        invalidate_after_read: false,
        write_bit16: false,
    })
    .encode()
    .unwrap();
    let mut h = harness(&format!(
        "send.dc0 (8|M0) r40 r20 null:0 0x0 0x{:08x}\n",
        r | 1 << 25 | 1 << 20
    ));
    let e = h.run_with(&mut u, 10).unwrap_err();
    assert!(format!("{e}").contains("no scratch space"), "{e}");
}

/// Fences run (global and SLM), answer with at most one register; the
/// messages the model refuses name themselves.
#[test]
fn fences_and_refusals() {
    for (slm, rlen, ok) in [(false, 1u32, true), (true, 0, true), (false, 2, false)] {
        let mut u = units(2);
        let d = Dc0::Fence(Fence {
            slm,
            l1_flush: false,
            l3_flush: None,
            header: true,
        })
        .encode()
        .unwrap();
        let dst = if rlen == 0 { "null" } else { "r40" };
        let src = format!(
            "send.dc0 (8|M0) {dst} r20 null:0 0x0 0x{:08x}\n",
            d | 1 << 25 | rlen << 20
        );
        let mut h = harness(&src);
        assert_eq!(h.run_with(&mut u, 10).is_ok(), ok, "{src}");
    }
    // HWord block read (type 01h, subtype 1): refused, not misread.
    let mut u = units(3);
    let mut h = harness("send.dc0 (8|M0) r40 r20 null:0 0x0 0x021A61FF\n");
    let e = h.run_with(&mut u, 10).unwrap_err();
    assert!(format!("{e}").contains("HWord"), "{e}");
}

/// A binding table read through a pool's bound: the entry inside the
/// pool finds its buffer, the one past the pool's end reads 0 (surface
/// state at Surface State Base + 0, here a null surface: reads give 0).
#[test]
fn binding_table_pool_bound() {
    for (left, want_data) in [(None, true), (Some(4 * 6), true), (Some(4 * 5), false)] {
        let mut u = units(4);
        u.state.surface_state_base = BASE;
        u.state.binding_table = BASE + 0xF000;
        u.state.binding_table_left = left;
        for (i, d) in surface::encode_buffer(BASE + 0x4000, 0x1000)
            .iter()
            .enumerate()
        {
            u.memory.set_dword(BASE + 0xE000 + 4 * i as u64, *d);
        }
        let mut null = [0u32; 16];
        null[0] = 7 << 29;
        for (i, d) in null.iter().enumerate() {
            u.memory.set_dword(BASE + 4 * i as u64, *d);
        }
        u.memory.set_dword(BASE + 0xF000 + 4 * 5, 0xE000);
        let d = Dc0::Block(OwordBlock {
            write: false,
            aligned: false,
            bti: 5,
            count: OwordCount::Two,
        })
        .encode()
        .unwrap();
        let mut h = harness(&format!(
            "send.dc0 (8|M0) r40 r20 null:0 0x0 0x{:08x}\n",
            d | 1 << 25 | 1 << 20
        ));
        set_bytes(&mut h, 20, 8, &2u32.to_le_bytes());
        h.run_with(&mut u, 10).unwrap();
        let want = if want_data {
            u.memory.bytes[0x4020..0x4040].to_vec()
        } else {
            vec![0; 32]
        };
        assert_eq!(bytes(&h, 40, 0, 32), want, "{left:?}");
    }
}

#[test]
fn dc0_forms_match_iga64() {
    let block = |write, aligned, count| {
        Dc0::Block(OwordBlock {
            write,
            aligned,
            bti: 3,
            count,
        })
        .encode()
        .unwrap()
    };
    let scratch = |write, regs| {
        Dc0::Scratch(Scratch {
            write,
            regs,
            offset: 0x12,
            invalidate_after_read: false,
            write_bit16: write,
        })
        .encode()
        .unwrap()
    };
    let fence = Dc0::Fence(Fence {
        slm: false,
        l1_flush: false,
        l3_flush: None,
        header: true,
    })
    .encode()
    .unwrap();
    let lines = [
        format!(
            "send.dc0 (8|M0) r40 r20 null:0 0x0 0x{:08x}",
            block(false, false, OwordCount::Four) | 1 << 25 | 2 << 20
        ),
        format!(
            "send.dc0 (8|M0) r40 r20 null:0 0x0 0x{:08x}",
            block(false, true, OwordCount::Sixteen) | 1 << 25 | 8 << 20
        ),
        format!(
            "send.dc0 (8|M0) null r20 r50:1 0x0 0x{:08x}",
            block(true, false, OwordCount::OneHigh) | 1 << 25
        ),
        format!(
            "send.dc0 (8|M0) null r20 r50:4 0x0 0x{:08x}",
            block(true, true, OwordCount::Eight) | 1 << 25
        ),
        format!(
            "send.dc0 (16|M0) null r20 r50:4 0x0 0x{:08x}",
            scratch(true, 4) | 1 << 25
        ),
        format!(
            "send.dc0 (16|M0) r40 r20 null:0 0x0 0x{:08x}",
            scratch(false, 8) | 1 << 25 | 8 << 20
        ),
        format!(
            "send.dc0 (8|M0) r40 r20 null:0 0x0 0x{:08x}",
            fence | 1 << 25 | 1 << 20
        ),
    ];
    let dir = std::env::temp_dir().join(format!("baregpu-xe-dc0-{}", std::process::id()));
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

/// A scattered message's descriptor (lengths zero).
fn scattered_desc(dword: bool, bytes: u8, write: bool, simd16: bool, header: bool, bti: u8) -> u32 {
    Dc0::Scattered(Scattered {
        write,
        dword,
        bti,
        bytes,
        simd16,
        invalidate_after_read: false,
        header,
        packed_address: false,
        packed_data: false,
    })
    .encode()
    .unwrap()
}

/// Sets up binding-table entry 5 as a buffer of `size` bytes at memory
/// offset `at`.
fn bind_buffer(u: &mut XeUnits, at: usize, size: usize) {
    u.state.surface_state_base = BASE;
    u.state.binding_table = BASE + 0xF000;
    for (i, d) in surface::encode_buffer(BASE + at as u64, size as u64)
        .iter()
        .enumerate()
    {
        u.memory.set_dword(BASE + 0xE000 + 4 * i as u64, *d);
    }
    u.memory.set_dword(BASE + 0xF000 + 4 * 5, 0xE000);
}

/// One scattered run's shape.
#[derive(Clone, Copy, Debug)]
struct Shape {
    /// Dword scattered (else byte scattered with `bytes` a lane).
    dword: bool,
    bytes: usize,
    write: bool,
    simd16: bool,
    header: bool,
    /// The write's data in a second payload (else after the offsets).
    split: bool,
    place: Place,
}

/// Runs one scattered message of `shape` with random offsets, data and
/// lane mask, and checks memory, SLM and the response against the host.
fn scattered_case(rng: &mut Rng, shape: Shape) {
    let Shape {
        dword,
        bytes: size,
        write,
        simd16,
        header,
        split,
        place,
    } = shape;
    let mut u = units(rng.next());
    let stateless_bti = if rng.next() & 1 == 0 { 0xFF } else { 0xFD };
    let bti = match place {
        Place::Stateless => stateless_bti,
        Place::Slm => 0xFE,
        Place::Buffer { at, size } => {
            bind_buffer(&mut u, at, size);
            5
        }
    };
    let lanes = if simd16 { 16 } else { 8 };
    let regs = lanes / 8;
    let hdr = usize::from(header);
    let elem = if dword { 1 } else { size as u8 };
    let desc = scattered_desc(dword, elem, write, simd16, header, bti);
    let exec = if simd16 { 16 } else { 8 };
    let src = if write && split {
        format!(
            "(f0.0) send.dc0 ({exec}|M0) null r20 r50:{regs} 0x0 0x{:08x}\n",
            desc | ((hdr + regs) as u32) << 25
        )
    } else if write {
        format!(
            "(f0.0) send.dc0 ({exec}|M0) null r20 null:0 0x0 0x{:08x}\n",
            desc | ((hdr + 2 * regs) as u32) << 25
        )
    } else {
        format!(
            "(f0.0) send.dc0 ({exec}|M0) r40 r20 null:0 0x0 0x{:08x}\n",
            desc | ((hdr + regs) as u32) << 25 | (regs as u32) << 20
        )
    };
    let mut h = harness(&src);
    let mask = (rng.next() as u32 & ((1 << lanes) - 1)) | 1;
    h.thread.thread.set_flag(0, mask);
    // The header: Global Offset in M0.2, for stateless a Buffer Base
    // Address in M0.5 31:10 (with FFTID-like low bits, not part of it).
    let unit = if dword { 4 } else { 1 };
    let (global, buffer) = if header {
        let g = (rng.next() % 16) as u32;
        let b = match place {
            Place::Stateless => 0x400 * (1 + rng.next() % 4) as u32,
            _ => 0,
        };
        set_bytes(&mut h, 20, 8, &g.to_le_bytes());
        set_bytes(&mut h, 20, 20, &(b | 0x1A5).to_le_bytes());
        (g, b as usize)
    } else {
        (0, 0)
    };
    // Offsets in units; some past a buffer's or SLM's end.
    let span = match place {
        Place::Stateless => 0x2000,
        Place::Slm => 4096 + 64,
        Place::Buffer { size, .. } => size + 32,
    } / unit;
    let offs: Vec<u32> = (0..lanes)
        .map(|_| (rng.next() % span as u64) as u32)
        .collect();
    let oreg = 20 + hdr as u8;
    for (n, o) in offs.iter().enumerate() {
        set_bytes(&mut h, oreg + (n / 8) as u8, 4 * (n % 8), &o.to_le_bytes());
    }
    let data: Vec<u32> = (0..lanes).map(|_| rng.next() as u32).collect();
    let dreg = if split { 50 } else { oreg + regs as u8 };
    for (n, v) in data.iter().enumerate() {
        set_bytes(&mut h, dreg + (n / 8) as u8, 4 * (n % 8), &v.to_le_bytes());
    }
    set_bytes(&mut h, 40, 0, &vec![0xAA; 32 * regs]);
    // The host's expectation, lane by lane in order.
    let (mut mem, mut slm) = (u.memory.bytes.clone(), u.slm.clone());
    let mut want = vec![0xAAu8; 32 * regs];
    for n in 0..lanes {
        if mask >> n & 1 == 0 {
            continue;
        }
        let off = (global as usize + offs[n] as usize) * unit;
        let (store, at, inside) = match place {
            Place::Stateless => (&mut mem, buffer + off, true),
            Place::Slm => (&mut slm, off, off + size <= 4096),
            Place::Buffer { at, size: s } => (&mut mem, at + off, off + size <= s),
        };
        let w = 32 * (n / 8) + 4 * (n % 8);
        if write {
            if inside {
                store[at..at + size].copy_from_slice(&data[n].to_le_bytes()[..size]);
            }
        } else {
            let mut v = [0u8; 4];
            if inside {
                v[..size].copy_from_slice(&store[at..at + size]);
            }
            want[w..w + 4].copy_from_slice(&v);
        }
    }
    h.run_with(&mut u, 10)
        .unwrap_or_else(|e| panic!("{shape:?} {src}: {e}"));
    assert!(u.memory.bytes == mem, "memory: {shape:?} {src}");
    assert!(u.slm == slm, "SLM: {shape:?} {src}");
    assert_eq!(
        bytes(&h, 40, 0, 32 * regs),
        want,
        "response: {shape:?} {src}"
    );
}

/// Dword scattered and byte scattered of 1, 2 and 4 bytes, SIMD8 and
/// SIMD16, reads and writes (whole and split payloads), with and without a
/// header (none on SLM), stateless (BTI 255 and 253), SLM and a buffer
/// whose end some lanes pass (they read 0 and drop their writes), under a
/// random lane mask.
#[test]
fn scattered_every_form_size_simd_and_place() {
    let mut rng = Rng(0x5CA7);
    let mut runs = 0;
    for (dword, size) in [(true, 4), (false, 1), (false, 2), (false, 4)] {
        for simd16 in [false, true] {
            for (write, split) in [(false, false), (true, false), (true, true)] {
                for header in [false, true] {
                    for place in [
                        Place::Stateless,
                        Place::Slm,
                        Place::Buffer {
                            at: 0x4000,
                            size: 0x1F3,
                        },
                    ] {
                        if header && matches!(place, Place::Slm) {
                            continue;
                        }
                        for _ in 0..3 {
                            scattered_case(
                                &mut rng,
                                Shape {
                                    dword,
                                    bytes: size,
                                    write,
                                    simd16,
                                    header,
                                    split,
                                    place,
                                },
                            );
                            runs += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(runs, 4 * 2 * 3 * 5 * 3);
}

/// IGC's two sends of `group_sum` (dispatch.cl, ocloc -device dg2, stateful
/// buffers): a single-lane SIMD8 byte scattered read of 32 bits from SLM
/// offset 0 (0x021108FE) and its write to binding-table index 1 at the
/// group's byte offset (0x02030801, the data a second payload).
#[test]
fn igc_group_sum_sends() {
    let mut u = units(9);
    u.state.surface_state_base = BASE;
    u.state.binding_table = BASE + 0xF000;
    for (i, d) in surface::encode_buffer(BASE + 0x4000, 16).iter().enumerate() {
        u.memory.set_dword(BASE + 0xE000 + 4 * i as u64, *d);
    }
    u.memory.set_dword(BASE + 0xF000 + 4, 0xE000);
    let mut h = harness(
        "(W) send.dc0 (1|M0) r40 r41 null:0 0x0 0x021108FE\n\
         (W) send.dc0 (1|M0) null r42 r40:1 0x0 0x02030801\n",
    );
    set_bytes(&mut h, 41, 0, &[0; 32]);
    set_bytes(&mut h, 42, 0, &8u32.to_le_bytes());
    h.run_with(&mut u, 10).unwrap();
    let sum = u32::from_le_bytes(u.slm[0..4].try_into().unwrap());
    assert_eq!(bytes(&h, 40, 0, 4), sum.to_le_bytes());
    assert_eq!(u.memory.bytes[0x4008..0x400C], sum.to_le_bytes());
    // The other dwords of the buffer stay as they were.
    let before = units(9).memory.bytes;
    assert_eq!(u.memory.bytes[0x4000..0x4008], before[0x4000..0x4008]);
    assert_eq!(u.memory.bytes[0x400C..0x4010], before[0x400C..0x4010]);
}

/// Packed (16-bit) addresses: sixteen lanes' word offsets in one register.
#[test]
fn scattered_packed_addresses() {
    let mut u = units(5);
    let d = Dc0::Scattered(Scattered {
        write: false,
        dword: true,
        bti: 0xFE,
        bytes: 1,
        simd16: true,
        invalidate_after_read: false,
        header: false,
        packed_address: true,
        packed_data: false,
    })
    .encode()
    .unwrap();
    let mut h = harness(&format!(
        "send.dc0 (16|M0) r40 r20 null:0 0x0 0x{:08x}\n",
        d | 1 << 25 | 2 << 20
    ));
    let offs: Vec<u16> = (0..16).map(|n| (n * 37 % 1024) as u16).collect();
    for (n, o) in offs.iter().enumerate() {
        set_bytes(&mut h, 20, 2 * n, &o.to_le_bytes());
    }
    h.run_with(&mut u, 10).unwrap();
    for (n, o) in offs.iter().enumerate() {
        let at = 4 * usize::from(*o);
        assert_eq!(
            bytes(&h, 40 + (n / 8) as u8, 4 * (n % 8), 4),
            u.slm[at..at + 4],
            "lane {n}"
        );
    }
}

/// What the model refuses, by name: packed data, a header on SLM, a
/// message shorter than its offsets and data, a short response.
#[test]
fn scattered_refusals() {
    let packed = Dc0::Scattered(Scattered {
        write: false,
        dword: false,
        bti: 0xFF,
        bytes: 4,
        simd16: false,
        invalidate_after_read: false,
        header: false,
        packed_address: false,
        packed_data: true,
    })
    .encode()
    .unwrap();
    let cases = [
        (
            format!(
                "send.dc0 (8|M0) r40 r20 null:0 0x0 0x{:08x}\n",
                packed | 1 << 25 | 1 << 20
            ),
            "packed",
        ),
        (
            format!(
                "send.dc0 (8|M0) r40 r20 null:0 0x0 0x{:08x}\n",
                scattered_desc(true, 1, false, false, true, 0xFE) | 2 << 25 | 1 << 20
            ),
            "header on an SLM",
        ),
        (
            format!(
                "send.dc0 (16|M0) null r20 r50:1 0x0 0x{:08x}\n",
                scattered_desc(false, 2, true, true, false, 0xFF) | 2 << 25
            ),
            "shorter than its header, offsets and data",
        ),
        (
            format!(
                "send.dc0 (16|M0) r40 r20 null:0 0x0 0x{:08x}\n",
                scattered_desc(true, 1, false, true, false, 0xFF) | 2 << 25 | 1 << 20
            ),
            "response shorter",
        ),
    ];
    for (src, why) in cases {
        let mut u = units(6);
        let mut h = harness(&src);
        let e = h.run_with(&mut u, 10).unwrap_err();
        assert!(format!("{e}").contains(why), "{src}: {e}");
    }
}

/// iga64's reading of a scattered descriptor (`iga64 -p=12p71 -Xdsd dc0`).
#[derive(Debug)]
struct IgaScattered {
    /// Warnings it printed (bits it calls undefined or wrong).
    warnings: Vec<String>,
    /// From its message symbol `hdc_<op>_simd<n>.<surface>.a32.d<bits>`.
    write: bool,
    lanes: usize,
    surface: String,
    mem_bits: usize,
    header: bool,
    /// "dword" or "byte" from its message-type text.
    elem: String,
}

/// Runs `iga64 -Xdsd` on `desc`; `None` when iga64 is missing (off CI).
fn iga_dsd(desc: u32) -> Option<IgaScattered> {
    let r = match std::process::Command::new("iga64")
        .args(["-p=12p71", "-Xdsd", "dc0", "0x0"])
        .arg(format!("0x{desc:08x}"))
        .output()
    {
        Ok(r) => r,
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "iga64 (Debian libigc-tools) missing on CI: {e}"
            );
            eprintln!("iga64 not found ({e}): skipping the descriptor comparison");
            return None;
        }
    };
    let out = String::from_utf8_lossy(&r.stdout).into_owned() + &String::from_utf8_lossy(&r.stderr);
    let warnings = out
        .lines()
        .filter(|l| l.starts_with("Desc["))
        .map(str::to_owned)
        .collect();
    let sym = out
        .lines()
        .find(|l| l.starts_with("hdc_"))
        .unwrap_or_else(|| panic!("{desc:#x}: no message symbol in\n{out}"));
    // e.g. "hdc_load_simd8.slm.a32.d8u32 (byte gathering read 8b)"
    let (name, text) = sym.split_once(' ').unwrap();
    let parts: Vec<&str> = name.split('.').collect();
    let (op, simd) = parts[0]
        .trim_start_matches("hdc_")
        .split_once("_simd")
        .unwrap();
    let bits = parts[3].trim_start_matches('d');
    let mem_bits = bits.split('u').next().unwrap().parse().unwrap();
    let header = out
        .lines()
        .find(|l| l.contains("Header"))
        .is_some_and(|l| l.contains("included"));
    Some(IgaScattered {
        warnings,
        write: op == "store",
        lanes: simd.parse().unwrap(),
        surface: parts[1].to_owned(),
        mem_bits,
        header,
        elem: text
            .trim_start_matches('(')
            .split(' ')
            .next()
            .unwrap()
            .to_owned(),
    })
}

/// Scattered descriptors over every type, SIMD mode, data size, header
/// and surface kind go through iga64's descriptor decoder; each is then
/// run as iga64 reads it (its lanes, memory size, header and surface: 254
/// SLM, 253/255 stateless, others a binding-table buffer) and checked
/// against the host, after checking that those fields encode back to the
/// same descriptor. Descriptors iga64 warns about (the legacy SIMD bit
/// clear, reserved bits set) are refused by the model. Where the two
/// differ by design: iga64 reads a byte scattered data-size code 3 as 8
/// bytes a lane ("d64u32") without a warning; 004 lists no such size (MDC_DS
/// in MSD0R_BS, Mesa `brw_mdc_ds` stops at 4 bytes) and a lane's dword
/// cannot hold it, so the model refuses it. iga64 also reads bit 13 of a
/// write as Invalidate After Read without a warning, where 004 has it
/// reserved (MSD0W_DWS 13:10, MSD0W_BS 13:12); the model refuses it.
#[test]
fn scattered_descriptors_as_iga64_decodes_them() {
    let mut rng = Rng(0x1DA);
    let mut runs = 0;
    for ty in [0x03u32, 0x0B, 0x04, 0x0C] {
        let dword = ty & 7 == 3;
        let sizes: &[u32] = if dword { &[0] } else { &[0, 1, 2] };
        for &ds in sizes {
            for simd16 in [false, true] {
                for header in [false, true] {
                    for bti in [5u32, 0xFD, 0xFE, 0xFF] {
                        if header && bti == 0xFE {
                            continue;
                        }
                        let desc = ty << 14
                            | u32::from(header) << 19
                            | ds << 10
                            | u32::from(dword) << 9
                            | u32::from(simd16) << 8
                            | bti
                            | 1 << 25;
                        let Some(iga) = iga_dsd(desc) else {
                            return;
                        };
                        assert!(iga.warnings.is_empty(), "{desc:#x}: {iga:?}");
                        assert_eq!(iga.elem == "dword", dword, "{desc:#x}: {iga:?}");
                        let place = match iga.surface.as_str() {
                            "slm" => Place::Slm,
                            "stateless" | "stateless_incoherent" => Place::Stateless,
                            s if s.starts_with("bti[") => Place::Buffer {
                                at: 0x4000,
                                size: 0x1F3,
                            },
                            s => panic!("{desc:#x}: surface {s}"),
                        };
                        let shape = Shape {
                            dword: iga.elem == "dword",
                            bytes: iga.mem_bits / 8,
                            write: iga.write,
                            simd16: iga.lanes == 16,
                            header: iga.header,
                            split: iga.write && rng.next() & 1 == 0,
                            place,
                        };
                        let elem = if shape.dword { 1 } else { shape.bytes as u8 };
                        let back = scattered_desc(
                            shape.dword,
                            elem,
                            shape.write,
                            shape.simd16,
                            shape.header,
                            bti as u8,
                        );
                        assert_eq!(back, desc & 0xF_FFFF, "{iga:?}");
                        scattered_case(&mut rng, shape);
                        runs += 1;
                    }
                }
            }
        }
    }
    assert_eq!(runs, 2 * 2 * 7 + 2 * 3 * 2 * 7);
    // Descriptors iga64 warns about: refused by the model.
    for desc in [
        0x03u32 << 14 | 0xFF,                 // legacy SIMD mode clear
        0x03 << 14 | 1 << 9 | 1 << 12 | 0xFF, // reserved 12
        0x04 << 14 | 1 << 9 | 0xFE,           // byte: reserved 9
        0x0C << 14 | 1 << 12 | 0xFE,          // byte: reserved 12
        0x04 << 14 | 1 << 31 | 0xFE,          // MBZ 31
    ] {
        let Some(iga) = iga_dsd(desc | 1 << 25) else {
            return;
        };
        assert!(!iga.warnings.is_empty(), "{desc:#x}: {iga:?}");
        let mut u = units(7);
        let mut h = harness(&format!(
            "send.dc0 (8|M0) r40 r20 null:0 0x0 0x{:08x}\n",
            desc | 1 << 25 | 1 << 20
        ));
        let e = h.run_with(&mut u, 10).unwrap_err();
        assert!(format!("{e}").contains("does not decode"), "{desc:#x}: {e}");
    }
}

/// A stateless OWord block adds the header's Buffer Base Address (M0.5
/// 31:10, its low bits not part of it) to General State Base; SLM and
/// buffers do not.
#[test]
fn oword_block_stateless_buffer_base() {
    for (bti, from) in [(0xFFu8, 0x2400usize), (0xFD, 0x2400), (0xFE, 0)] {
        let mut u = units(8);
        let d = Dc0::Block(OwordBlock {
            write: false,
            aligned: true,
            bti,
            count: OwordCount::Two,
        })
        .encode()
        .unwrap();
        let mut h = harness(&format!(
            "send.dc0 (8|M0) r40 r20 null:0 0x0 0x{:08x}\n",
            d | 1 << 25 | 1 << 20
        ));
        set_bytes(&mut h, 20, 8, &0x40u32.to_le_bytes());
        set_bytes(&mut h, 20, 20, &0x27FFu32.to_le_bytes());
        h.run_with(&mut u, 10).unwrap();
        let at = from + 0x40;
        let want = if bti == 0xFE {
            u.slm[at..at + 32].to_vec()
        } else {
            u.memory.bytes[at..at + 32].to_vec()
        };
        assert_eq!(bytes(&h, 40, 0, 32), want, "{bti:#x}");
    }
}
