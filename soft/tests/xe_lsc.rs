//! Gen12.5 LSC messages and the gateway run by an Xe-HPG thread
//! (`XeHarness`) against `eu::shared::xe::XeUnits` over a host byte array:
//! each message form is checked against a host computation of 004's DP_*
//! pseudocode (lanes in channel order, component-major data).
//!
//! The kernels are single sends in iga64's load/store syntax (the
//! assembler reads it; `lsc_forms_match_iga64` checks that iga64 assembles
//! each form to the same bits). The SWSB check is off here: the sends are
//! the subject, and `xe_eu_swsb.rs` covers the scoreboard.

#![allow(clippy::needless_range_loop)]

use baregpu_soft::eu::ErrorKind;
use baregpu_soft::eu::run::Step;
use baregpu_soft::eu::send::{ExtendedSend, Payload, SendRequest, SharedFunctions};
use baregpu_soft::eu::shared::FlatMemory;
use baregpu_soft::eu::shared::xe::{XeUnits, surface};
use baregpu_soft::eu::thread::Thread;
use baregpu_soft::eu::xe::XeHarness;

/// Memory of the tests: 64 KiB at a virtual address above 4 GiB.
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
    XeUnits::new(m)
}

/// A harness holding `src` (one line or more; nothing else runs).
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

/// Writes lane addresses (A32 or A64) starting at r20.
fn set_addrs(h: &mut XeHarness, a64: bool, addrs: &[u64]) {
    for (n, a) in addrs.iter().enumerate() {
        if a64 {
            set_bytes(h, 20, n * 8, &a.to_le_bytes());
        } else {
            set_bytes(h, 20, n * 4, &(*a as u32).to_le_bytes());
        }
    }
}

/// Memory bytes, register bytes and iga64's name of each data size.
const SIZES: [(&str, usize, usize); 7] = [
    ("d8", 1, 1),
    ("d16", 2, 2),
    ("d32", 4, 4),
    ("d64", 8, 8),
    ("d8u32", 1, 4),
    ("d16u32", 2, 4),
    ("d16u32h", 2, 4),
];

/// Register value of memory bytes `m` for a data size.
fn widen(name: &str, m: u64) -> u64 {
    if name == "d16u32h" { m << 16 } else { m }
}

/// The vector lengths a size takes untransposed on UGM (004 DP_LOAD).
fn vectors(name: &str) -> &'static [usize] {
    match name {
        "d32" => &[1, 2, 3, 4, 8],
        "d64" => &[1, 2, 3, 4],
        "d8u32" | "d16u32" | "d16u32h" => &[1, 2, 3, 4, 8],
        _ => &[1],
    }
}

fn regs(bytes: usize) -> usize {
    bytes.div_ceil(32).max(1)
}

fn le(b: &[u8]) -> u64 {
    let mut v = [0u8; 8];
    v[..b.len()].copy_from_slice(b);
    u64::from_le_bytes(v)
}

/// Gathers of every data size, vector length and address size, with half
/// the lanes predicated off (their registers keep what they held).
#[test]
fn gathers_of_every_size_and_vector() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut runs = 0;
    for (name, mb, rb) in SIZES {
        for &v in vectors(name) {
            for a64 in [true, false] {
                let exec = if v >= 8 || (mb == 8 && v >= 3) { 8 } else { 16 };
                let mut u = units(rng.next());
                if !a64 {
                    u.state.flat_base = BASE;
                }
                let comp_regs = regs(exec * rb);
                let rlen = v * comp_regs;
                let alen = regs(exec * if a64 { 8 } else { 4 });
                let vs = if v > 1 {
                    format!("x{v}")
                } else {
                    String::new()
                };
                let asz = if a64 { "a64" } else { "a32" };
                let pred = 0xA5C3u32 & ((1 << exec) - 1);
                let src = format!(
                    "mov (1|M0) f0.0<1>:uw 0x{pred:x}:uw\n(f0.0) load.ugm.{name}{vs}.{asz} ({exec}|M0) r40:{rlen} [r20:{alen}]\n"
                );
                let mut h = harness(&src);
                for r in 40..40 + rlen as u8 {
                    for i in 0..8 {
                        h.set_grf_ud(r, i, 0xDEAD_0000 + i as u32);
                    }
                }
                let span = (mb * v) as u64;
                let addrs: Vec<u64> = (0..exec)
                    .map(|_| {
                        let a = rng.next() % (SIZE as u64 - span) / mb as u64 * mb as u64;
                        if a64 { BASE + a } else { a }
                    })
                    .collect();
                set_addrs(&mut h, a64, &addrs);
                let before: Vec<u8> = (40..40 + rlen as u8)
                    .flat_map(|r| bytes(&h, r, 0, 32))
                    .collect();
                assert_eq!(h.run_with(&mut u, 10).unwrap(), Step::EndOfKernel, "{src}");
                for n in 0..exec {
                    let on = pred >> n & 1 != 0;
                    for c in 0..v {
                        let at = c * comp_regs * 32 + n * rb;
                        let got = le(&bytes(&h, 40, at, rb));
                        let want = if on {
                            let off =
                                if a64 { addrs[n] - BASE } else { addrs[n] } as usize + c * mb;
                            widen(name, le(&u.memory.bytes[off..off + mb]))
                        } else {
                            le(&before[at..at + rb])
                        };
                        assert_eq!(got, want, "{src} lane {n} component {c}");
                    }
                }
                runs += 1;
            }
        }
    }
    assert_eq!(runs, 2 * (5 + 4 + 1 + 1 + 5 * 3));
}

/// Scatters of every size and vector: memory afterwards equals a host
/// copy written lane by lane (the lanes' ranges do not overlap).
#[test]
fn scatters_of_every_size_and_vector() {
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    for (name, mb, rb) in SIZES {
        for &v in vectors(name) {
            let exec = if v >= 8 || (mb == 8 && v >= 3) { 8 } else { 16 };
            let mut u = units(rng.next());
            let comp_regs = regs(exec * rb);
            let dlen = v * comp_regs;
            let vs = if v > 1 {
                format!("x{v}")
            } else {
                String::new()
            };
            let pred = 0x7E5Bu32 & ((1 << exec) - 1);
            let src = format!(
                "mov (1|M0) f0.0<1>:uw 0x{pred:x}:uw\n(f0.0) store.ugm.{name}{vs}.a64 ({exec}|M0) [r20:{}] r50:{dlen}\n",
                regs(exec * 8)
            );
            let mut h = harness(&src);
            // Lane n writes slot n of 64-byte slots in a shuffled order.
            let mut slots: Vec<usize> = (0..exec).collect();
            for i in (1..exec).rev() {
                slots.swap(i, rng.next() as usize % (i + 1));
            }
            let addrs: Vec<u64> = slots
                .iter()
                .map(|s| BASE + 0x100 + 64 * *s as u64)
                .collect();
            set_addrs(&mut h, true, &addrs);
            for r in 50..50 + dlen as u8 {
                for i in 0..8 {
                    h.set_grf_ud(r, i, rng.next() as u32);
                }
            }
            let mut want = u.memory.bytes.clone();
            for n in 0..exec {
                if pred >> n & 1 == 0 {
                    continue;
                }
                for c in 0..v {
                    let r = le(&bytes(&h, 50, c * comp_regs * 32 + n * rb, rb));
                    let m = if name == "d16u32h" { r >> 16 } else { r };
                    let off = (addrs[n] - BASE) as usize + c * mb;
                    want[off..off + mb].copy_from_slice(&m.to_le_bytes()[..mb]);
                }
            }
            h.run_with(&mut u, 10).unwrap();
            assert!(u.memory.bytes == want, "{src}");
        }
    }
}

/// Transposed (block) loads and stores: one address, the vector packed in
/// the registers.
#[test]
fn transposed_block_loads_and_stores() {
    let mut rng = Rng(77);
    for (name, eb) in [("d32", 4usize), ("d64", 8)] {
        for v in [1usize, 2, 3, 4, 8, 16, 32, 64] {
            let mut u = units(rng.next());
            let n = regs(v * eb);
            let off = 0x40 * (1 + rng.next() % 64);
            let src = format!("load.ugm.{name}x{v}t.a64 (1|M0) r40:{n} [r20:1]\n");
            let mut h = harness(&src);
            set_addrs(&mut h, true, &[BASE + off]);
            h.run_with(&mut u, 10).unwrap();
            let o = off as usize;
            assert_eq!(
                bytes(&h, 40, 0, v * eb),
                u.memory.bytes[o..o + v * eb],
                "{src}"
            );

            let src = format!("store.ugm.{name}x{v}t.a64 (1|M0) [r20:1] r50:{n}\n");
            let mut h = harness(&src);
            set_addrs(&mut h, true, &[BASE + off]);
            let data: Vec<u8> = (0..v * eb).map(|_| rng.next() as u8).collect();
            set_bytes(&mut h, 50, 0, &data);
            let mut want = u.memory.bytes.clone();
            want[o..o + v * eb].copy_from_slice(&data);
            h.run_with(&mut u, 10).unwrap();
            assert!(u.memory.bytes == want, "{src}");
        }
    }
    // A transposed message at SIMD16 is refused by name.
    let mut u = units(1);
    let mut h = harness("load.ugm.d32x8t.a64 (16|M0) r40:1 [r20:4]\n");
    let e = h.run_with(&mut u, 10).unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::SharedFunction(w) if w.contains("Exec_Mask")),
        "{e}"
    );
}

/// load_quad/store_quad move only the channels of their mask, packed.
#[test]
fn quad_channel_masks() {
    let mut rng = Rng(5);
    for (mask, word) in [
        (0b1011u8, "xyw"),
        (0b0100, "z"),
        (0b1111, "xyzw"),
        (0b0110, "yz"),
    ] {
        let k = mask.count_ones() as usize;
        let mut u = units(rng.next());
        let addrs: Vec<u64> = (0..16).map(|n| BASE + 0x200 + 16 * n as u64).collect();
        let src = format!(
            "load_quad.ugm.d32.{word}.a64 (16|M0) r40:{} [r20:4]\n",
            2 * k
        );
        let mut h = harness(&src);
        set_addrs(&mut h, true, &addrs);
        h.run_with(&mut u, 10).unwrap();
        for n in 0..16 {
            let mut comp = 0;
            for c in 0..4 {
                if mask >> c & 1 == 0 {
                    continue;
                }
                let off = 0x200 + 16 * n + 4 * c;
                assert_eq!(
                    bytes(&h, 40, comp * 64 + n * 4, 4),
                    u.memory.bytes[off..off + 4],
                    "{src} lane {n} channel {c}"
                );
                comp += 1;
            }
        }
        let src = format!(
            "store_quad.ugm.d32.{word}.a64 (16|M0) [r20:4] r50:{}\n",
            2 * k
        );
        let mut h = harness(&src);
        set_addrs(&mut h, true, &addrs);
        for r in 50..50 + 2 * k as u8 {
            for i in 0..8 {
                h.set_grf_ud(r, i, rng.next() as u32);
            }
        }
        let mut want = u.memory.bytes.clone();
        for n in 0..16 {
            let mut comp = 0;
            for c in 0..4 {
                if mask >> c & 1 == 0 {
                    continue;
                }
                let off = 0x200 + 16 * n + 4 * c;
                want[off..off + 4].copy_from_slice(&bytes(&h, 50, comp * 64 + n * 4, 4));
                comp += 1;
            }
        }
        h.run_with(&mut u, 10).unwrap();
        assert!(u.memory.bytes == want, "{src}");
    }
}

/// The host's sequential model of one atomic (004 DP_ATOMIC_*).
fn host_atomic(op: &str, bits: u32, old: u64, x: u64, y: u64) -> Option<u64> {
    let m = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let s = |v: u64| ((v << (64 - bits)) as i64) >> (64 - bits);
    let f = |v: u64| f32::from_bits(v as u32);
    let fb = |v: f32| u64::from(v.to_bits());
    let r = match op {
        "atomic_iinc" => old + 1,
        "atomic_idec" => old.wrapping_sub(1),
        "atomic_load" => return None,
        "atomic_store" => x,
        "atomic_iadd" => old.wrapping_add(x),
        "atomic_isub" => old.wrapping_sub(x),
        "atomic_smin" => {
            if s(x) < s(old) {
                x
            } else {
                old
            }
        }
        "atomic_smax" => {
            if s(x) > s(old) {
                x
            } else {
                old
            }
        }
        "atomic_umin" => old.min(x),
        "atomic_umax" => old.max(x),
        "atomic_icas" => return (old == x).then_some(y),
        "atomic_and" => old & x,
        "atomic_or" => old | x,
        "atomic_xor" => old ^ x,
        "atomic_fadd" => fb(f(old) + f(x)),
        "atomic_fsub" => fb(f(old) - f(x)),
        // minNum/maxNum: a NaN gives the other operand; -0 < +0.
        "atomic_fmin" | "atomic_fmax" => {
            let (a, b) = (f(old), f(x));
            let max = op == "atomic_fmax";
            let pick = if a.is_nan() {
                b
            } else if b.is_nan() {
                a
            } else if a == b {
                if a.is_sign_negative() != max { a } else { b }
            } else if (a < b) != max {
                a
            } else {
                b
            };
            fb(pick)
        }
        "atomic_fcas" => return (f(old) == f(x)).then_some(y),
        _ => unreachable!(),
    };
    Some(r & m)
}

const INT_ATOMICS: [(&str, usize); 14] = [
    ("atomic_iinc", 0),
    ("atomic_idec", 0),
    ("atomic_load", 0),
    ("atomic_store", 1),
    ("atomic_iadd", 1),
    ("atomic_isub", 1),
    ("atomic_smin", 1),
    ("atomic_smax", 1),
    ("atomic_umin", 1),
    ("atomic_umax", 1),
    ("atomic_icas", 2),
    ("atomic_and", 1),
    ("atomic_or", 1),
    ("atomic_xor", 1),
];
const FLOAT_ATOMICS: [(&str, usize); 5] = [
    ("atomic_fadd", 1),
    ("atomic_fsub", 1),
    ("atomic_fmin", 1),
    ("atomic_fmax", 1),
    ("atomic_fcas", 2),
];

/// Float operands with the special cases: NaN, both zeros, infinities.
fn float_operand(r: &mut Rng) -> u64 {
    let special = [
        0x7FC0_0000u32,
        0x0000_0000,
        0x8000_0000,
        0x7F80_0000,
        0xFF80_0000,
        0x3F80_0000,
    ];
    let v = r.next();
    if v.is_multiple_of(3) {
        u64::from(special[(v >> 8) as usize % special.len()])
    } else {
        u64::from(f32::to_bits(((v >> 16) as u16) as f32 / 64.0 - 512.0))
    }
}

/// Every atomic, with four lanes on each of four addresses: the returned
/// old values and the memory equal the lanes run in channel order.
#[test]
fn every_atomic_with_contention() {
    let mut rng = Rng(0xA70_41C);
    let mut cases = Vec::new();
    for (op, k) in INT_ATOMICS {
        for (d, bits) in [("d32", 32u32), ("d64", 64), ("d16u32", 16)] {
            cases.push((op, k, d, bits, false));
        }
    }
    for (op, k) in FLOAT_ATOMICS {
        cases.push((op, k, "d32", 32, true));
    }
    for (op, k, d, bits, float) in cases {
        for round in 0..4 {
            let mut u = units(rng.next());
            let rb = if bits == 64 { 8 } else { 4 };
            let mb = bits as usize / 8;
            let dr = regs(16 * rb);
            // Few distinct values, so that compares match now and then.
            let pick = |r: &mut Rng| -> u64 {
                if float {
                    float_operand(r)
                } else {
                    let v = r.next() % 5;
                    if v == 4 { r.next() } else { v }
                }
            };
            let addrs: Vec<u64> = (0..16).map(|n| BASE + 0x800 + 8 * (n % 4) as u64).collect();
            for a in 0..4 {
                let v = pick(&mut rng);
                let o = 0x800 + 8 * a;
                u.memory.bytes[o..o + mb].copy_from_slice(&v.to_le_bytes()[..mb]);
            }
            let src1 = if k > 0 {
                format!(" r50:{}", k * dr)
            } else {
                " null".to_string()
            };
            let src = format!("{op}.ugm.{d}.a64 (16|M0) r40:{dr} [r20:4]{src1}\n");
            let mut h = harness(&src);
            set_addrs(&mut h, true, &addrs);
            let mut operands = [[0u64; 16]; 2];
            for j in 0..k {
                for n in 0..16 {
                    let v = pick(&mut rng);
                    operands[j][n] = v & if bits == 64 {
                        u64::MAX
                    } else {
                        (1 << bits) - 1
                    };
                    set_bytes(&mut h, 50, j * dr * 32 + n * rb, &v.to_le_bytes()[..rb]);
                }
            }
            let mut want = u.memory.bytes.clone();
            let mut olds = [0u64; 16];
            for n in 0..16 {
                let o = (addrs[n] - BASE) as usize;
                let old = le(&want[o..o + mb]);
                olds[n] = old;
                if let Some(new) = host_atomic(op, bits, old, operands[0][n], operands[1][n]) {
                    want[o..o + mb].copy_from_slice(&new.to_le_bytes()[..mb]);
                }
            }
            h.run_with(&mut u, 10)
                .unwrap_or_else(|e| panic!("{src}: {e}"));
            for n in 0..16 {
                assert_eq!(
                    le(&bytes(&h, 40, n * rb, rb)),
                    olds[n],
                    "{src} round {round} lane {n}"
                );
            }
            assert!(u.memory.bytes == want, "{src} round {round}");
        }
    }
}

/// SLM: A32 and A16 offsets into the group's array; SLM has no surfaces.
#[test]
fn shared_local_memory() {
    let mut u = units(3);
    u.slm = (0..1024u32).map(|i| (i * 7) as u8).collect();
    let mut h = harness(
        "store.slm.d32.a32 (16|M0) [r20:2] r50:2\nload.slm.d32.a16 (16|M0) r40:2 [r30:1]\n",
    );
    for n in 0..16 {
        h.set_grf_ud(20 + n as u8 / 8, n % 8, 4 * (15 - n as u32) + 64);
        h.set_grf_ud(50 + n as u8 / 8, n % 8, 0x1000 + n as u32);
        set_bytes(&mut h, 30, 2 * n, &(4 * n as u16 + 64).to_le_bytes());
    }
    h.run_with(&mut u, 10).unwrap();
    for n in 0..16 {
        assert_eq!(h.grf_ud(40 + n as u8 / 8, n % 8), 0x1000 + 15 - n as u32);
        let o = 64 + 4 * (15 - n);
        assert_eq!(le(&u.slm[o..o + 4]), 0x1000 + n as u64);
    }
    // Untouched SLM keeps its bytes.
    assert_eq!(
        u.slm[0..64],
        (0..64u32).map(|i| (i * 7) as u8).collect::<Vec<_>>()[..]
    );
    // An SLM atomic with contention: 16 increments of one counter.
    let mut h = harness("atomic_iinc.slm.d32.a32 (16|M0) r40:2 [r20:2] null\n");
    for n in 0..16 {
        h.set_grf_ud(20 + n as u8 / 8, n % 8, 8);
    }
    u.slm[8..12].copy_from_slice(&5u32.to_le_bytes());
    h.run_with(&mut u, 10).unwrap();
    assert_eq!(le(&u.slm[8..12]), 21);
    for n in 0..16 {
        assert_eq!(h.grf_ud(40 + n as u8 / 8, n % 8), 5 + n as u32);
    }
}

/// Only an SLM address's low 16 bits count: IGC tags its `__local`
/// pointers with bit 28 (0x10000000) and the accesses land at the low bits
/// (`lsc::slm_offset`); past the group's SLM within those 16 bits stays out
/// of bounds (reads 0, writes dropped).
#[test]
fn slm_addresses_keep_their_low_16_bits() {
    let mut u = units(4);
    u.slm = vec![0; 1024];
    let mut h = harness(
        "store.slm.d32.a32 (16|M0) [r20:2] r50:2\nload.slm.d32.a32 (16|M0) r40:2 [r30:2]\n",
    );
    for n in 0..16u32 {
        let (r, c) = (n as u8 / 8, n as usize % 8);
        // Lane 15 stores past the group's 1 KiB (0x1_0400 keeps 0x400).
        let addr = if n == 15 {
            0x1_0400
        } else {
            0x1000_0000 | (4 * n + 32)
        };
        h.set_grf_ud(20 + r, c, addr);
        h.set_grf_ud(50 + r, c, 0xabc0 + n);
        h.set_grf_ud(30 + r, c, 0x7fff_0000 | (4 * n + 32));
    }
    h.run_with(&mut u, 10).unwrap();
    for n in 0..15u32 {
        let o = (4 * n + 32) as usize;
        assert_eq!(le(&u.slm[o..o + 4]), u64::from(0xabc0 + n), "lane {n}");
        assert_eq!(h.grf_ud(40 + n as u8 / 8, n as usize % 8), 0xabc0 + n);
    }
    // Lane 15's store was dropped; its load (at 92) reads what is there: 0.
    assert_eq!(h.grf_ud(41, 7), 0);
    assert!(u.slm[92..].iter().all(|b| *b == 0));
}

/// Places a buffer's RENDER_SURFACE_STATE at `ss` (Surface State Base
/// relative) and points binding-table entry `bti` at it.
fn bind_buffer(u: &mut XeUnits, bti: u8, ss: u64, base: u64, size: u64) {
    u.state.surface_state_base = BASE;
    u.state.binding_table = BASE + 0xF000;
    for (i, d) in surface::encode_buffer(base, size).iter().enumerate() {
        u.memory.set_dword(BASE + ss + 4 * i as u64, *d);
    }
    u.memory
        .set_dword(BASE + 0xF000 + 4 * u64::from(bti), ss as u32);
}

/// Buffers through BTI, SS and BSS: in-bounds lanes reach the buffer,
/// lanes at or past its size read 0 and their writes are dropped.
#[test]
fn buffer_surfaces_and_out_of_bounds() {
    let mut u = units(11);
    let (buf, size) = (BASE + 0x4000, 100u64);
    bind_buffer(&mut u, 3, 0xE000, buf, size);
    u.state.bindless_surface_state_base = BASE;
    let offs: Vec<u64> = (0..16).map(|n| 8 * n).collect(); // 96 in, 104.. out
    for (form, what) in [
        ("bti[3]", "bti"),
        ("ss[0xE000]", "ss"),
        ("bss[0xE000]", "bss"),
    ] {
        let src = format!("load.ugm.d32.a32.{form}[r20:2] ");
        let _ = src;
        let text = format!("load.ugm.d32.a32 (16|M0) r40:2 {form}[r20:2]\n");
        let mut h = harness(&text);
        set_addrs(&mut h, false, &offs);
        h.run_with(&mut u, 10)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        for n in 0..16 {
            let want = if offs[n] + 4 <= size {
                u.memory.dword(buf + offs[n])
            } else {
                0
            };
            assert_eq!(h.grf_ud(40 + n as u8 / 8, n % 8), want, "{what} lane {n}");
        }
        let text = format!("store.ugm.d32.a32 (16|M0) {form}[r20:2] r50:2\n");
        let mut h = harness(&text);
        set_addrs(&mut h, false, &offs);
        for n in 0..16 {
            h.set_grf_ud(50 + n as u8 / 8, n % 8, 0x5000 + n as u32);
        }
        let mut want = u.memory.bytes.clone();
        for n in 0..16 {
            if offs[n] + 4 <= size {
                let o = (buf - BASE + offs[n]) as usize;
                want[o..o + 4].copy_from_slice(&(0x5000 + n as u32).to_le_bytes());
            }
        }
        h.run_with(&mut u, 10).unwrap();
        assert!(
            u.memory.bytes == want,
            "{what}: writes past the buffer dropped"
        );
    }
}

/// An access outside the address space is a fault naming the address;
/// nothing of the message after it is done.
#[test]
fn faults_name_the_address() {
    let mut u = units(2);
    let mut h = harness("load.ugm.d32.a64 (16|M0) r40:2 [r20:4]\n");
    let mut addrs: Vec<u64> = (0..16).map(|n| BASE + 4 * n).collect();
    addrs[5] = 0xDEAD_0000_0000;
    set_addrs(&mut h, true, &addrs);
    let e = h.run_with(&mut u, 10).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::MemoryFault {
            addr: 0xDEAD_0000_0000,
            len: 4,
            write: false
        }
    );
    assert!(format!("{e}").contains("0xdead00000000"), "{e}");
    let mut h = harness("store.ugm.d32.a64 (16|M0) [r20:4] r50:2\n");
    addrs[5] = BASE + SIZE as u64 - 2; // straddles the end
    set_addrs(&mut h, true, &addrs);
    let e = h.run_with(&mut u, 10).unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::MemoryFault { addr, write: true, .. } if addr == BASE + SIZE as u64 - 2),
        "{e}"
    );
}

/// A request for `desc`/`ex` with the payloads at r20 and r50.
fn request(sfid: baregpu_isa::inst::Sfid, desc: u32, ex: u32, exec: u8) -> SendRequest {
    SendRequest {
        ip: 0,
        sfid: Some(sfid),
        desc,
        mlen: (desc >> 25 & 0xF) as u8,
        rlen: (desc >> 20 & 0x1F) as u8,
        header: false,
        function: desc & 0x7FFFF,
        payload: Payload {
            file: baregpu_isa::inst::RegFile::Grf,
            reg: 20,
        },
        dst: Some(40),
        dst_type: baregpu_isa::inst::Type::Ud,
        exec_size: exec,
        first_channel: 0,
        channels: u32::MAX >> (32 - u32::from(exec)),
        eot: false,
        conditional: false,
        extended: ExtendedSend {
            desc: ex,
            from_a0: false,
            src1: Some(50),
            src1_len: (ex >> 6 & 0x1F) as u8,
        },
    }
}

/// Malformed messages are refused by name; random descriptors never
/// panic.
#[test]
fn malformed_descriptors_refused_random_never_panic() {
    use baregpu_isa::inst::Sfid;
    let mut u = units(9);
    let mut t = Thread::new(baregpu_isa::IsaGen::Gen12_5);
    // Reserved address size 0.
    let e = u.send(&mut t, &request(Sfid::Ugm, 0x0210_0000, 0, 16));
    assert!(
        matches!(e, Err(baregpu_soft::eu::send::SendError::Bad(w)) if w.contains("does not decode")),
        "{e:?}"
    );
    // d8 with a vector of 2.
    let d = 0x0420_0000 | 3 << 7 | 1 << 12;
    let e = u.send(&mut t, &request(Sfid::Ugm, d, 0, 16));
    assert!(
        matches!(e, Err(baregpu_soft::eu::send::SendError::Bad(w)) if w.contains("8- and 16-bit")),
        "{e:?}"
    );
    // SLM through a BTI surface.
    let d = 0x0420_0000 | 3 << 29 | 2 << 7 | 2 << 9;
    let e = u.send(&mut t, &request(Sfid::Slm, d, 0, 16));
    assert!(
        matches!(e, Err(baregpu_soft::eu::send::SendError::Bad(w)) if w.contains("flat")),
        "{e:?}"
    );
    // A response shorter than the data.
    let d = 0x0810_0000 | 3 << 7 | 2 << 9 | 3 << 12;
    let e = u.send(&mut t, &request(Sfid::Ugm, d, 0, 16));
    assert!(
        matches!(e, Err(baregpu_soft::eu::send::SendError::Bad(w)) if w.contains("response length")),
        "{e:?}"
    );
    let mut r = Rng(0xFEED);
    for _ in 0..20_000 {
        let sfid =
            [Sfid::Ugm, Sfid::Ugml, Sfid::Slm, Sfid::Tgm, Sfid::Gateway][r.next() as usize % 5];
        let desc = r.next() as u32;
        let ex = if r.next().is_multiple_of(2) {
            r.next() as u32
        } else {
            0
        };
        let exec = [1u8, 8, 16, 32][r.next() as usize % 4];
        u.slm = vec![0; 256];
        for g in t.grf_mut().iter_mut() {
            *g = r.next() as u8;
        }
        // Served or refused, never a panic.
        let _ = u.send(&mut t, &request(sfid, desc, ex, exec));
    }
}

/// The gateway: a barrier signal is counted and `sync.bar` waits until
/// the walker releases the thread; EOT ends it.
#[test]
fn barrier_and_end_of_thread() {
    let mut u = units(4);
    let mut h = harness(
        "send.gtwy (1|M0) null r0 null:0 0x0 0x02000004\nsync.bar null\nmov (8|M0) r10.0<1>:ud 0x7:ud\nsend.gtwy (1|M0) null r0 null:0 0x0 0x02000010 {EOT}\n",
    );
    assert_eq!(h.run_with(&mut u, 10).unwrap(), Step::Waiting);
    assert_eq!(u.gateway.barrier_signals, 1);
    assert_eq!(h.run_with(&mut u, 10).unwrap(), Step::Waiting);
    h.thread.signal_barrier();
    u.gateway.barrier_signals = 0;
    assert_eq!(h.run_with(&mut u, 10).unwrap(), Step::Ended);
    assert_eq!(h.grf_ud(10, 3), 7);
    assert_eq!(u.gateway.ended, 1);
}

/// A fence runs (ordered already) and its response register is allowed.
#[test]
fn fences_decode_and_run() {
    let mut u = units(4);
    // fence.ugm.none.gpu with a one-register response (Mesa lsc_fence_msg_desc).
    let mut h = harness("send.ugm (1|M0) r10 r0 null:0 0x0 0x0210071F\n");
    h.run_with(&mut u, 10).unwrap();
    // A reserved scope (7) is refused.
    let mut h = harness("send.ugm (1|M0) r10 r0 null:0 0x0 0x02100F1F\n");
    assert!(h.run_with(&mut u, 10).is_err());
}

/// Each form the tests run assembles with `iga64 -p=12p71` to our bits.
/// Skipped (with a note) without iga64.
#[test]
fn lsc_forms_match_iga64() {
    let lines = [
        "load.ugm.d32x4.a64 (16|M0) r40:8 [r20:4]",
        "load.ugm.d8u32.a32 (16|M0) r40:2 [r20:2]",
        "load.ugm.d16u32h.a64 (16|M0) r40:2 [r20:4]",
        "load.ugm.d64x4.a64 (8|M0) r40:8 [r20:2]",
        "store.ugm.d16.a64 (16|M0) [r20:4] r50:1",
        "load.ugm.d32x64t.a64 (1|M0) r40:8 [r20:1]",
        "store.ugm.d64x32t.a64 (1|M0) [r20:1] r50:8",
        "load_quad.ugm.d32.xyw.a64 (16|M0) r40:6 [r20:4]",
        "store_quad.ugm.d32.yz.a64 (16|M0) [r20:4] r50:4",
        "atomic_icas.ugm.d64.a64 (16|M0) r40:4 [r20:4] r50:8",
        "atomic_fmin.ugm.d32.a64 (16|M0) r40:2 [r20:4] r50:2",
        "atomic_iinc.slm.d32.a32 (16|M0) r40:2 [r20:2] null",
        "load.slm.d32.a16 (16|M0) r40:2 [r30:1]",
        "load.ugm.d32.a32 (16|M0) r40:2 bti[3][r20:2]",
        "store.ugm.d32.a32 (16|M0) ss[0xE000][r20:2] r50:2",
        "send.ugm (1|M0) r10 r0 null:0 0x0 0x0210071F",
        "send.gtwy (1|M0) null r0 null:0 0x0 0x02000004",
        "store_quad.tgm.d32.xyzw.a32 (16|M0) bti[2][r20:4] r50:8",
        "load_quad.tgm.d32.xyzw.a32 (16|M0) r40:8 bti[2][r20:4]",
        "atomic_iadd.tgm.d32.a32 (16|M0) r40:2 bti[2][r20:4] r50:2",
        // Not `bti[a0.2]`: our assembler sets ExBSO (bit 39) there and
        // iga64 does not (an isa/src/xehpg/ldst.rs difference; the length
        // is 0 either way).
    ];
    use baregpu_isa::message::xe_hdc::{A64Scattered, Dc1, ScatterElem, Untyped, UntypedSimd};
    let untyped = Dc1::Untyped(Untyped {
        write: false,
        a64: true,
        bti: 0xFF,
        channels: 0b0101,
        simd: UntypedSimd::Simd16,
        header: false,
        packed_address: false,
        packed_data: false,
    });
    let scattered = Dc1::A64Scattered(A64Scattered {
        write: true,
        bti: 0xFF,
        elem: ScatterElem::Qword,
        elements: 2,
        simd16: false,
        invalidate_after_read: false,
    });
    let block = Dc1::A64Block(baregpu_isa::message::xe_hdc::A64Block {
        write: false,
        aligned: false,
        bti: 0xFF,
        count: baregpu_isa::message::xe_hdc::OwordCount::Four,
        invalidate_after_read: false,
    });
    let media = Dc1::MediaBlock(baregpu_isa::message::xe_hdc::MediaBlock {
        write: true,
        bti: 2,
        vlso: 0,
    });
    let dc1 = [
        format!(
            "send.dc1 (8|M0) null r20 r50:2 0x0 0x{:08x}",
            media.encode().unwrap() | 1 << 25
        ),
        format!(
            "send.dc1 (8|M0) r40 r20 null:0 0x0 0x{:08x}",
            block.encode().unwrap() | 1 << 25 | 2 << 20
        ),
        format!(
            "send.dc1 (16|M0) r40 r20 null:0 0x0 0x{:08x}",
            untyped.encode().unwrap() | 4 << 25 | 4 << 20
        ),
        format!(
            "send.dc1 (8|M0) null r20 r50:4 0x0 0x{:08x}",
            scattered.encode().unwrap() | 2 << 25
        ),
    ];
    let lines: Vec<&str> = lines
        .iter()
        .copied()
        .chain(dc1.iter().map(|l| l.as_str()))
        .collect();
    let dir = std::env::temp_dir().join(format!("baregpu-xe-lsc-{}", std::process::id()));
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

/// Binds a 2D surface at binding-table entry `bti`.
fn bind_image(u: &mut XeUnits, bti: u8, ss: u64, dw: [u32; 16]) {
    u.state.surface_state_base = BASE;
    u.state.binding_table = BASE + 0xF000;
    for (i, d) in dw.iter().enumerate() {
        u.memory.set_dword(BASE + ss + 4 * i as u64, *d);
    }
    u.memory
        .set_dword(BASE + 0xF000 + 4 * u64::from(bti), ss as u32);
}

/// Byte offset of texel (x, y) of `bpp` bytes in a Tile4 or linear surface.
fn texel_offset(tile4: bool, pitch: usize, bpp: usize, x: usize, y: usize) -> usize {
    if tile4 {
        // Tile4: 128 B x 32 rows of 4 KiB, rows of tiles `pitch / 128`
        // wide; inside, `o o o o Y Y X Y X X Y Y X X X X` (gmmlib
        // CpuSwizzleBlt.c INTEL_TILE_4), spelled out bit by bit here.
        let (bx, y_) = (x * bpp, y);
        let tile = (y_ / 32) * (pitch / 128) + bx / 128;
        let (u, v) = (bx % 128, y_ % 32);
        let off = (u & 0xF)
            | (v & 0x3) << 4
            | (u >> 4 & 0x3) << 6
            | (v >> 2 & 1) << 8
            | (u >> 6 & 1) << 9
            | (v >> 3 & 0x3) << 10;
        tile * 4096 + off
    } else {
        y * pitch + x * bpp
    }
}

/// Typed stores and loads on a Tile4 R32_UINT surface and a linear
/// R8G8B8A8_UNORM one: texels land where the tiling puts them, formats
/// convert, missing channels read 0 and alpha 1, out-of-bounds
/// coordinates read 0 and drop writes.
#[test]
fn typed_surfaces_linear_and_tile4() {
    const R32_UINT: u32 = 0xD7;
    const R8G8B8A8_UNORM: u32 = 0xC7;
    let mut rng = Rng(0x7617);
    for (fmt, tile4, bpp) in [
        (R32_UINT, true, 4usize),
        (R8G8B8A8_UNORM, false, 4),
        (R32_UINT, false, 4),
    ] {
        let mut u = units(rng.next());
        let (w, hgt, pitch) = (40u32, 40u32, 256u32);
        let img = BASE + 0x4000;
        bind_image(
            &mut u,
            2,
            0xE000,
            surface::encode_image(img, w, hgt, pitch, fmt, tile4),
        );
        // Sixteen distinct texels, lanes 3 and 9 out of bounds.
        let mut coords: Vec<(u32, u32)> = Vec::new();
        while coords.len() < 16 {
            let c = (rng.next() as u32 % w, rng.next() as u32 % hgt);
            if !coords.contains(&c) {
                coords.push(c);
            }
        }
        coords[3] = (w, 1);
        coords[9] = (2, hgt + 5);
        let set_coords = |h: &mut XeHarness| {
            for (n, (x, y)) in coords.iter().enumerate() {
                h.set_grf_ud(20 + n as u8 / 8, n % 8, *x);
                h.set_grf_ud(22 + n as u8 / 8, n % 8, *y);
            }
        };
        let inside = |n: usize| coords[n].0 < w && coords[n].1 < hgt;
        let (chan, k) = if fmt == R32_UINT {
            ("x", 1)
        } else {
            ("xyzw", 4)
        };
        let src = format!(
            "store_quad.tgm.d32.{chan}.a32 (16|M0) bti[2][r20:4] r50:{}\n",
            2 * k
        );
        let mut h = harness(&src);
        set_coords(&mut h);
        let mut vals = vec![[0u32; 4]; 16];
        for n in 0..16 {
            for c in 0..k {
                vals[n][c] = if fmt == R32_UINT {
                    rng.next() as u32
                } else {
                    // Floats in and around [0, 1].
                    f32::to_bits((rng.next() % 1400) as f32 / 1000.0 - 0.2)
                };
                h.set_grf_ud(50 + (2 * c + n / 8) as u8, n % 8, vals[n][c]);
            }
        }
        let mut want = u.memory.bytes.clone();
        for n in 0..16 {
            if !inside(n) {
                continue;
            }
            let o = (img - BASE) as usize
                + texel_offset(
                    tile4,
                    pitch as usize,
                    bpp,
                    coords[n].0 as usize,
                    coords[n].1 as usize,
                );
            if fmt == R32_UINT {
                want[o..o + 4].copy_from_slice(&vals[n][0].to_le_bytes());
            } else {
                for c in 0..4 {
                    let f = f32::from_bits(vals[n][c]).clamp(0.0, 1.0);
                    want[o + c] = (f64::from(f) * 255.0).round() as u8;
                }
            }
        }
        h.run_with(&mut u, 10)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        assert!(u.memory.bytes == want, "{src} tile4={tile4}");

        let src = "load_quad.tgm.d32.xyzw.a32 (16|M0) r40:8 bti[2][r20:4]\n";
        let mut h = harness(src);
        set_coords(&mut h);
        h.run_with(&mut u, 10).unwrap();
        for n in 0..16 {
            let got: Vec<u32> = (0..4)
                .map(|c| h.grf_ud(40 + (2 * c + n / 8) as u8, n % 8))
                .collect();
            let wantv: [u32; 4] = if !inside(n) {
                [0; 4]
            } else {
                let o = (img - BASE) as usize
                    + texel_offset(
                        tile4,
                        pitch as usize,
                        bpp,
                        coords[n].0 as usize,
                        coords[n].1 as usize,
                    );
                if fmt == R32_UINT {
                    [le(&u.memory.bytes[o..o + 4]) as u32, 0, 0, 1]
                } else {
                    core::array::from_fn(|c| (f32::from(u.memory.bytes[o + c]) / 255.0).to_bits())
                }
            };
            assert_eq!(got, wantv, "lane {n} at {:?} tile4={tile4}", coords[n]);
        }
    }
}

/// A typed atomic add with four lanes on each texel, in channel order.
#[test]
fn typed_atomics_on_tile4() {
    let mut u = units(8);
    let img = BASE + 0x4000;
    bind_image(
        &mut u,
        2,
        0xE000,
        surface::encode_image(img, 64, 64, 256, 0xD7, true),
    );
    let mut h = harness("atomic_iadd.tgm.d32.a32 (16|M0) r40:2 bti[2][r20:4] r50:2\n");
    let texels = [(1u32, 1u32), (33, 2), (5, 40), (63, 63)];
    let mut want = u.memory.bytes.clone();
    let mut olds = [0u32; 16];
    for n in 0..16 {
        let (x, y) = texels[n % 4];
        h.set_grf_ud(20 + n as u8 / 8, n % 8, x);
        h.set_grf_ud(22 + n as u8 / 8, n % 8, y);
        h.set_grf_ud(50 + n as u8 / 8, n % 8, 1000 + n as u32);
        let o = (img - BASE) as usize + texel_offset(true, 256, 4, x as usize, y as usize);
        let old = le(&want[o..o + 4]) as u32;
        olds[n] = old;
        want[o..o + 4].copy_from_slice(&old.wrapping_add(1000 + n as u32).to_le_bytes());
    }
    h.run_with(&mut u, 10).unwrap();
    assert!(u.memory.bytes == want);
    for n in 0..16 {
        assert_eq!(h.grf_ud(40 + n as u8 / 8, n % 8), olds[n], "lane {n}");
    }
}

/// An extended descriptor in a0 (`bti[a0.2]`): read when the send runs.
#[test]
fn extended_descriptor_from_a0() {
    let mut u = units(12);
    let (buf, size) = (BASE + 0x4000, 0x100u64);
    bind_buffer(&mut u, 5, 0xE000, buf, size);
    let mut h = harness(
        "mov (1|M0) a0.2<1>:ud 0x5000000:ud\nload.ugm.d32.a32 (16|M0) r40:2 bti[a0.2][r20:2]\n",
    );
    let offs: Vec<u64> = (0..16).map(|n| 12 * n).collect();
    set_addrs(&mut h, false, &offs);
    h.run_with(&mut u, 10).unwrap();
    for n in 0..16 {
        assert_eq!(
            h.grf_ud(40 + n as u8 / 8, n % 8),
            u.memory.dword(buf + offs[n]),
            "lane {n}"
        );
    }
}

/// The legacy dc1 messages: A64 and BTI untyped surface read/write with a
/// channel mask, A64 scattered bytes, dwords and qwords; against the host.
#[test]
fn legacy_dc1_untyped_and_scattered() {
    use baregpu_isa::message::xe_hdc::{A64Scattered, Dc1, ScatterElem, Untyped, UntypedSimd};
    let mut rng = Rng(0xDC1);
    // (message, lanes, address bytes, register bytes per element, memory
    // bytes per element, memory places of the elements)
    let mut cases: Vec<(Dc1, usize, usize, usize, usize, Vec<usize>)> = Vec::new();
    for write in [false, true] {
        for (a64, bti) in [(true, 0xFF), (false, 3)] {
            for channels in [0b0001u8, 0b0101, 0b1111] {
                let u = Untyped {
                    write,
                    a64,
                    bti,
                    channels,
                    simd: UntypedSimd::Simd16,
                    header: false,
                    packed_address: false,
                    packed_data: false,
                };
                let places = (0..4).filter(|c| channels >> c & 1 != 0).collect();
                cases.push((Dc1::Untyped(u), 16, if a64 { 8 } else { 4 }, 4, 4, places));
            }
        }
        for (elem, elements, rb, mb) in [
            (ScatterElem::Byte, 1u8, 4usize, 1usize),
            (ScatterElem::Byte, 2, 4, 2),
            (ScatterElem::Byte, 4, 4, 4),
            (ScatterElem::Dword, 2, 4, 4),
            (ScatterElem::Dword, 4, 4, 4),
            (ScatterElem::Qword, 2, 8, 8),
        ] {
            let s = A64Scattered {
                write,
                bti: 0xFF,
                elem,
                elements,
                simd16: false,
                invalidate_after_read: false,
            };
            let places = if elem == ScatterElem::Byte {
                vec![0]
            } else {
                (0..usize::from(elements)).collect()
            };
            cases.push((Dc1::A64Scattered(s), 8, 8, rb, mb, places));
        }
    }
    for (msg, lanes, ab, rb, mb, places) in cases {
        let mut u = units(rng.next());
        // Buffer lanes on slots 13-15 lie wholly past its end.
        let (buf, size) = (BASE + 0x4000, 0x200 + 32 * 13u64);
        bind_buffer(&mut u, 3, 0xE000, buf, size);
        let a64 = ab == 8;
        let comp_regs = regs(lanes * rb);
        let dlen = places.len() * comp_regs;
        let alen = regs(lanes * ab);
        let write = matches!(
            msg,
            Dc1::Untyped(Untyped { write: true, .. })
                | Dc1::A64Scattered(A64Scattered { write: true, .. })
        );
        let function = msg.encode().unwrap();
        let src = if write {
            format!(
                "send.dc1 ({lanes}|M0) null r20 r50:{dlen} 0x0 0x{:08x}\n",
                function | (alen as u32) << 25
            )
        } else {
            format!(
                "send.dc1 ({lanes}|M0) r40 r20 null:0 0x0 0x{:08x}\n",
                function | (alen as u32) << 25 | (dlen as u32) << 20
            )
        };
        let mut h = harness(&src);
        // Lane n reaches 32-byte slot s(n).
        let slots: Vec<u64> = (0..lanes as u64)
            .map(|n| (n * 5 + 3) % lanes as u64)
            .collect();
        let offs: Vec<u64> = slots
            .iter()
            .map(|s| 32 * s + if a64 { 0 } else { 0x200 })
            .collect();
        let addrs: Vec<u64> = offs
            .iter()
            .map(|o| if a64 { BASE + 0x100 + o } else { *o })
            .collect();
        set_addrs(&mut h, a64, &addrs);
        for r in 50..50 + dlen as u8 {
            for i in 0..8 {
                h.set_grf_ud(r, i, rng.next() as u32);
            }
        }
        let mem_of = |n: usize| -> Option<usize> {
            if a64 {
                Some((addrs[n] - BASE) as usize)
            } else {
                (offs[n] < size).then(|| (buf - BASE + offs[n]) as usize)
            }
        };
        let mut want = u.memory.bytes.clone();
        if write {
            for n in 0..lanes {
                let Some(o) = mem_of(n) else { continue };
                for (c, p) in places.iter().enumerate() {
                    let v = bytes(&h, 50, c * comp_regs * 32 + n * rb, mb);
                    want[o + p * mb..o + p * mb + mb].copy_from_slice(&v);
                }
            }
        }
        h.run_with(&mut u, 10)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        if write {
            assert!(u.memory.bytes == want, "{msg:?}");
        } else {
            for n in 0..lanes {
                for (c, p) in places.iter().enumerate() {
                    let got = le(&bytes(&h, 40, c * comp_regs * 32 + n * rb, rb));
                    let wantv =
                        mem_of(n).map_or(0, |o| le(&u.memory.bytes[o + p * mb..o + p * mb + mb]));
                    assert_eq!(got, wantv, "{msg:?} lane {n} element {c}");
                }
            }
        }
    }
}

/// A64 OWord block reads and writes of every count: the bytes at the
/// header's address, packed two OWords to a register (x1H in the upper
/// half).
#[test]
fn legacy_a64_oword_blocks() {
    use baregpu_isa::message::xe_hdc::{A64Block, Dc1, OwordCount};
    let mut rng = Rng(0x0B10C);
    for (count, n, skip) in [
        (OwordCount::OneLow, 1usize, 0usize),
        (OwordCount::OneHigh, 1, 16),
        (OwordCount::Two, 2, 0),
        (OwordCount::Four, 4, 0),
        (OwordCount::Eight, 8, 0),
        (OwordCount::Sixteen, 16, 0),
    ] {
        let regs = (n * 16 + skip).div_ceil(32) as u32;
        let off = 16 * (1 + rng.next() % 200);
        for write in [false, true] {
            let mut u = units(rng.next());
            let d = Dc1::A64Block(A64Block {
                write,
                aligned: false,
                bti: 0xFF,
                count,
                invalidate_after_read: false,
            })
            .encode()
            .unwrap();
            let src = if write {
                format!(
                    "send.dc1 (8|M0) null r20 r50:{regs} 0x0 0x{:08x}\n",
                    d | 1 << 25
                )
            } else {
                format!(
                    "send.dc1 (8|M0) r40 r20 null:0 0x0 0x{:08x}\n",
                    d | 1 << 25 | regs << 20
                )
            };
            let mut h = harness(&src);
            set_bytes(&mut h, 20, 0, &(BASE + off).to_le_bytes());
            let data: Vec<u8> = (0..n * 16).map(|_| rng.next() as u8).collect();
            set_bytes(&mut h, 50, skip, &data);
            let o = off as usize;
            let mut want = u.memory.bytes.clone();
            if write {
                want[o..o + n * 16].copy_from_slice(&data);
            }
            h.run_with(&mut u, 10)
                .unwrap_or_else(|e| panic!("{src}: {e}"));
            assert!(u.memory.bytes == want, "{src}");
            if !write {
                assert_eq!(
                    bytes(&h, 40, skip, n * 16),
                    u.memory.bytes[o..o + n * 16],
                    "{src}"
                );
            }
        }
    }
}

/// Media block reads and writes on a Tile4 and a linear R32_UINT surface:
/// rows a power-of-two pitch apart, reads outside clamped to the edge
/// dword, writes outside dropped.
#[test]
fn legacy_media_blocks() {
    use baregpu_isa::message::xe_hdc::{Dc1, MediaBlock};
    let mut rng = Rng(0x3ED1A);
    for tile4 in [true, false] {
        let (w, hgt, pitch) = (16u32, 40u32, 128usize);
        let img = BASE + 0x4000;
        // (x in bytes, y, width in bytes, rows): inside, and across the
        // left and bottom edges.
        for (x, y, bw, rows) in [
            (8i32, 2i32, 16usize, 4usize),
            (-4, 37, 12, 6),
            (56, -2, 16, 3),
        ] {
            for write in [false, true] {
                let mut u = units(rng.next());
                bind_image(
                    &mut u,
                    2,
                    0xE000,
                    surface::encode_image(img, w, hgt, pitch as u32, 0xD7, tile4),
                );
                let rp = bw.next_power_of_two();
                let regs = (rp * rows).div_ceil(32) as u32;
                let d = Dc1::MediaBlock(MediaBlock {
                    write,
                    bti: 2,
                    vlso: 0,
                })
                .encode()
                .unwrap();
                let src = if write {
                    format!(
                        "send.dc1 (8|M0) null r20 r50:{regs} 0x0 0x{:08x}\n",
                        d | 1 << 25
                    )
                } else {
                    format!(
                        "send.dc1 (8|M0) r40 r20 null:0 0x0 0x{:08x}\n",
                        d | 1 << 25 | regs << 20
                    )
                };
                let mut h = harness(&src);
                h.set_grf_ud(20, 0, x as u32);
                h.set_grf_ud(20, 1, y as u32);
                h.set_grf_ud(20, 2, ((rows as u32 - 1) << 16) | (bw as u32 - 1));
                for r in 50..58 {
                    for i in 0..8 {
                        h.set_grf_ud(r, i, rng.next() as u32);
                    }
                }
                let at = |bx: i64, by: i64| -> usize {
                    (img - BASE) as usize + texel_offset(tile4, pitch, 1, bx as usize, by as usize)
                };
                let mut want = u.memory.bytes.clone();
                if write {
                    for r in 0..rows {
                        for c in 0..bw {
                            let (bx, by) = (i64::from(x) + c as i64, i64::from(y) + r as i64);
                            if bx >= 0 && by >= 0 && bx < 4 * i64::from(w) && by < i64::from(hgt) {
                                want[at(bx, by)] = bytes(&h, 50, r * rp + c, 1)[0];
                            }
                        }
                    }
                }
                h.run_with(&mut u, 10)
                    .unwrap_or_else(|e| panic!("{src}: {e}"));
                assert!(u.memory.bytes == want, "{src} tile4={tile4} ({x},{y})");
                if !write {
                    for r in 0..rows {
                        for c in 0..bw {
                            let (bx, by) = (i64::from(x) + c as i64, i64::from(y) + r as i64);
                            let cy = by.clamp(0, i64::from(hgt) - 1);
                            let cx = if bx < 0 {
                                bx.rem_euclid(4)
                            } else if bx >= 4 * i64::from(w) {
                                4 * i64::from(w) - 4 + bx.rem_euclid(4)
                            } else {
                                bx
                            };
                            assert_eq!(
                                bytes(&h, 40, r * rp + c, 1)[0],
                                u.memory.bytes[at(cx, cy)],
                                "tile4={tile4} block ({x},{y}) row {r} byte {c}"
                            );
                        }
                    }
                }
            }
        }
    }
}
