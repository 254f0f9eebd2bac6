//! Gen7 data-cache messages: untyped surface read/write, untyped atomics,
//! shared local memory, stateless, scratch blocks and the fence; the Gen6
//! render-cache DWord atomic. Atomic results are checked against host
//! arithmetic written here from the operation tables (003 lines
//! 84687-84714; IGC vISA DWORD_ATOMIC).

use baregpu_isa::IsaGen;
use baregpu_soft::eu::shared::{GeneralState, Scratch, Surface};

use super::rig::*;

const BUF: u64 = MEM_BASE + 0x3000;

/// Untyped messages live on DC (Gen7) or DC1 (Gen7.5).
fn unit(p: IsaGen) -> &'static str {
    if p == IsaGen::Gen75 { "dc1" } else { "dc" }
}

fn rig(p: IsaGen) -> Rig {
    let mut rig = Rig::new(p);
    rig.fill(BUF, 0x400, pattern);
    rig.bind(1, Surface::buffer(BUF, 0x100, 1)); // 256 bytes, raw
    rig
}

#[test]
fn simd8_read_returns_one_register_per_enabled_channel() {
    for p in [IsaGen::Gen7, IsaGen::Gen75] {
        let mut rig = rig(p);
        let addrs: [u32; 8] = [0, 16, 4, 200, 252, 100, 40, 8];
        rig.set(0, addrs);
        rig.mark_response(3, 0xABAB_ABAB);
        // Mask xzw: three registers, x then z then w.
        let text = format!(
            "{}.untyped_read(bti=1, simd=8, mask=xzw) mlen=1 rlen=3",
            unit(p)
        );
        rig.ok(&text, 8, 0b1101_1111);
        for (k, c) in [0usize, 2, 3].iter().enumerate() {
            for (s, addr) in addrs.iter().enumerate() {
                let at = *addr as usize + 4 * c;
                let want = if s == 5 {
                    0xABAB_ABAB // slot disabled
                } else if at + 4 <= 256 {
                    pattern_dword(at)
                } else {
                    0
                };
                assert_eq!(rig.resp(k)[s], want, "{p:?} channel {c} slot {s}");
            }
        }
    }
}

#[test]
fn simd16_write_then_read_round_trips_through_slm() {
    for p in [IsaGen::Gen7, IsaGen::Gen75] {
        let mut rig = rig(p);
        rig.units.slm = vec![0; 1024];
        let addrs: [u32; 16] = core::array::from_fn(|s| 8 * s as u32 + 4);
        rig.set(0, core::array::from_fn(|s| addrs[s]));
        rig.set(1, core::array::from_fn(|s| addrs[8 + s]));
        // Two channels (xy), two registers each.
        for r in 0..4 {
            rig.set(
                2 + r,
                core::array::from_fn(|d| 0x1000 * r as u32 + d as u32),
            );
        }
        let enables = 0x7FFE; // slots 0 and 15 off
        let w = format!(
            "{}.untyped_write(bti=254, simd=16, mask=xy) mlen=6 rlen=0",
            unit(p)
        );
        rig.ok(&w, 16, enables);
        for (s, addr) in addrs.iter().enumerate() {
            for c in 0..2 {
                let at = *addr as usize + 4 * c;
                let got = u32::from_le_bytes(rig.units.slm[at..at + 4].try_into().unwrap());
                let want = if enables >> s & 1 != 0 {
                    0x1000 * (2 * c + s / 8) as u32 + (s % 8) as u32
                } else {
                    0
                };
                assert_eq!(got, want, "{p:?} slot {s} channel {c}");
            }
        }
        let r = format!(
            "{}.untyped_read(bti=254, simd=16, mask=y) mlen=2 rlen=2",
            unit(p)
        );
        rig.ok(&r, 16, 0xFFFF);
        for s in 0..16 {
            let want = if enables >> s & 1 != 0 {
                0x1000 * (2 + s / 8) as u32 + (s % 8) as u32
            } else {
                0
            };
            assert_eq!(rig.resp(s / 8)[s % 8], want, "{p:?} read back slot {s}");
        }
    }
}

#[test]
fn simd4x2_read_places_each_slot_in_its_half() {
    let mut rig = rig(IsaGen::Gen7);
    rig.set(0, [12, 0, 0, 0, 64, 0, 0, 0]);
    rig.mark_response(1, 7);
    rig.ok(
        "dc.untyped_read(bti=1, simd=4x2, mask=xyw) mlen=1 rlen=1",
        8,
        0b1101_0111,
    );
    let got = rig.resp(0);
    let want = [
        pattern_dword(12),
        pattern_dword(16),
        7, // z not in the mask
        7, // w of slot 0: channel enable 3 off
        pattern_dword(64),
        7, // y of slot 1: channel enable 5 off
        7, // z not in the mask
        pattern_dword(76),
    ];
    assert_eq!(got, want);
}

/// Host model of each Gen7 operation (new value, returned value), from
/// the operation list: CMPWR compares with src0 and writes src1.
fn host(op: &str, old: u32, a: u32, b: u32) -> (u32, u32) {
    let new = match op {
        "and" => old & a,
        "or" => old | a,
        "xor" => old ^ a,
        "mov" => a,
        "inc" => old.wrapping_add(1),
        "dec" | "predec" => old.wrapping_sub(1),
        "add" => old.wrapping_add(a),
        "sub" => old.wrapping_sub(a),
        "revsub" => a.wrapping_sub(old),
        "imax" => (old as i32).max(a as i32) as u32,
        "imin" => (old as i32).min(a as i32) as u32,
        "umax" => old.max(a),
        "umin" => old.min(a),
        "cmpwr" => {
            if old == a {
                b
            } else {
                old
            }
        }
        _ => unreachable!(),
    };
    (new, if op == "predec" { new } else { old })
}

#[test]
fn every_untyped_atomic_matches_host_arithmetic() {
    let ops = [
        "and", "or", "xor", "mov", "inc", "dec", "add", "sub", "revsub", "imax", "imin", "umax",
        "umin", "cmpwr", "predec",
    ];
    let olds: [u32; 8] = [
        0,
        1,
        0xFFFF_FFFF,
        0x8000_0000,
        5,
        0x7FFF_FFFF,
        123,
        0xFFFF_FFF0,
    ];
    let a: [u32; 8] = [3, 1, 1, 0x7FFF_FFFF, 5, 0x8000_0000, 100, 7];
    let b: [u32; 8] = [9, 2, 3, 4, 55, 6, 7, 8];
    for p in [IsaGen::Gen7, IsaGen::Gen75] {
        for op in ops {
            let mut rig = rig(p);
            let srcs = match op {
                "inc" | "dec" | "predec" => 0,
                "cmpwr" => 2,
                _ => 1,
            };
            // Slot s works on dword s; slot 6 is disabled.
            for (s, v) in olds.iter().enumerate() {
                rig.mem().set_dword(BUF + 4 * s as u64, *v);
            }
            rig.set(0, core::array::from_fn(|s| 4 * s as u32));
            let mut mlen = 1;
            if srcs >= 1 {
                rig.set(1, a);
                mlen += 1;
            }
            if srcs == 2 {
                rig.set(2, b);
                mlen += 1;
            }
            rig.mark_response(1, 0xCCCC_CCCC);
            let text = format!(
                "{}.untyped_atomic(bti=1, op={op}, simd=8, ret) mlen={mlen} rlen=1",
                unit(p)
            );
            rig.ok(&text, 8, 0b1011_1111);
            for s in 0..8 {
                let (sa, sb) = if srcs == 0 { (0, 0) } else { (a[s], b[s]) };
                let (new, ret) = host(op, olds[s], sa, sb);
                let mem = rig.dword(BUF + 4 * s as u64);
                if s == 6 {
                    assert_eq!(mem, olds[s], "{p:?} {op} disabled slot");
                    assert_eq!(rig.resp(0)[s], 0xCCCC_CCCC);
                } else {
                    assert_eq!(mem, new, "{p:?} {op} slot {s} memory");
                    assert_eq!(rig.resp(0)[s], ret, "{p:?} {op} slot {s} return");
                }
            }
        }
    }
}

/// SIMD4x2 atomics (Haswell's vec4 form) zip both sources into one
/// register: slot s's src0 in dword 4s, src1 in dword 4s + 1; the address
/// register holds slot s's address in dword 4s, and so does the return.
#[test]
fn simd4x2_atomics_take_both_sources_from_one_register() {
    let mut rig = rig(IsaGen::Gen75);
    rig.mem().set_dword(BUF + 8, 5);
    rig.mem().set_dword(BUF + 40, 6);
    rig.set(0, [8, 0, 0, 0, 40, 0, 0, 0]);
    // Slot 0 compares 5 (a match) and writes 50; slot 1 compares 7 (no
    // match: 6 stays).
    rig.set(1, [5, 50, 0, 0, 7, 70, 0, 0]);
    rig.mark_response(1, 0xCCCC_CCCC);
    rig.ok(
        "dc1.untyped_atomic(bti=1, op=cmpwr, simd=4x2, ret) mlen=2 rlen=1",
        8,
        0xFF,
    );
    assert_eq!(rig.dword(BUF + 8), 50);
    assert_eq!(rig.dword(BUF + 40), 6);
    let got = rig.resp(0);
    assert_eq!((got[0], got[4]), (5, 6), "old values in each slot's x");
}

#[test]
fn atomics_on_one_address_serialise_and_skip_out_of_bounds() {
    let mut rig = rig(IsaGen::Gen7);
    rig.mem().set_dword(BUF + 8, 10);
    // Slots 0-14 add s to dword 2; slot 15 points past the buffer.
    let mut addrs = [8u32; 16];
    addrs[15] = 0x1000;
    rig.set(0, core::array::from_fn(|s| addrs[s]));
    rig.set(1, core::array::from_fn(|s| addrs[8 + s]));
    rig.set(2, core::array::from_fn(|s| s as u32));
    rig.set(3, core::array::from_fn(|s| 8 + s as u32));
    rig.mem().set_dword(BUF + 0x1000, 0x5EED);
    rig.ok(
        "dc.untyped_atomic(bti=1, op=add, simd=16, ret) mlen=4 rlen=2",
        16,
        0xFFFF,
    );
    let mut running = 10u32;
    for s in 0..15 {
        assert_eq!(
            rig.resp(s / 8)[s % 8],
            running,
            "slot {s} sees the earlier slots"
        );
        running += s as u32;
    }
    assert_eq!(rig.dword(BUF + 8), running);
    assert_eq!(rig.resp(1)[7], 0, "out-of-bounds atomic returns 0");
    assert_eq!(
        rig.dword(BUF + 0x1000),
        0x5EED,
        "memory past the buffer untouched"
    );
}

#[test]
fn gen6_dword_atomic_uses_dword_offsets_and_its_cmpxchg_order() {
    // CMPXCHG: new = (old == src1) ? src0 : old (003 line 84703).
    let mut rig = Rig::new(IsaGen::Gen6);
    rig.bind(2, Surface::buffer(BUF, 4, 16)); // 64 bytes
    for d in 0..16 {
        rig.mem().set_dword(BUF + 4 * d, 100 + d as u32);
    }
    rig.set(0, [0, 0, 1, 0, 0, 0, 0, 0]); // Global Offset: 1 dword
    rig.set(1, [0, 1, 2, 3, 4, 5, 6, 20]); // slot 7 beyond the buffer
    rig.set(2, [7; 8]); // src0: the new value
    rig.set(3, [101, 0, 103, 0, 105, 0, 0, 0]); // src1: the comparand
    rig.ok(
        "rc.dword_atomic(bti=2, op=cmpwr, two_src) mlen=4 rlen=1 hdr",
        8,
        0xFF,
    );
    for s in 0..7u32 {
        let old = 101 + s;
        let want = if [0, 2, 4].contains(&s) { 7 } else { old };
        assert_eq!(rig.dword(BUF + 4 * u64::from(1 + s)), want, "slot {s}");
        assert_eq!(
            rig.resp(0)[s as usize],
            old,
            "slot {s} returns the old value"
        );
    }
    assert_eq!(rig.resp(0)[7], 0);
    // Unsigned MIN (003 line 84697) on 0xFFFFFFFF keeps the small value.
    rig.set(0, [0; 8]);
    rig.set(1, [0; 8]);
    rig.set(2, [0xFFFF_FFFF; 8]);
    rig.ok("rc.dword_atomic(bti=2, op=umin) mlen=3 rlen=1 hdr", 8, 0x01);
    assert_eq!(rig.dword(BUF), 100);
}

#[test]
fn stateless_untyped_addresses_general_state() {
    let mut rig = rig(IsaGen::Gen7);
    rig.units.general_state = GeneralState {
        base: BUF,
        upper_bound: BUF + 0x40,
    };
    rig.set(0, [0, 4, 0x3C, 0x40, 0, 0, 0, 0]);
    rig.ok(
        "dc.untyped_read(bti=255, simd=8, mask=x) mlen=1 rlen=1",
        8,
        0x0F,
    );
    let want = [pattern_dword(0), pattern_dword(4), pattern_dword(0x3C), 0];
    assert_eq!(rig.resp(0)[..4], want);
}

#[test]
fn scratch_blocks_address_the_threads_space() {
    let mut rig = Rig::new(IsaGen::Gen7);
    rig.units.general_state = GeneralState {
        base: MEM_BASE + 0x8000,
        upper_bound: u64::MAX,
    };
    rig.units.scratch = Some(Scratch { per_thread: 0x400 });
    let space = 0x800u32; // this thread's scratch, General State relative
    let mut h = [0u32; 8];
    h[5] = space | 0x21; // low 10 bits are not address
    rig.set(0, h);
    for r in 0..4 {
        rig.set(1 + r, core::array::from_fn(|d| (r * 8 + d) as u32 + 0x50));
    }
    // 4 registers at HWord offset 3, DWord mode: enables 0x0F write dwords
    // 0-3 of every register.
    rig.ok(
        "dc.scratch_write(regs=4, offset=3, dword) mlen=5 rlen=0 hdr",
        8,
        0x0F,
    );
    let base = MEM_BASE + 0x8000 + u64::from(space) + 3 * 32;
    for r in 0..4u64 {
        for d in 0..8u64 {
            let want = if d < 4 { (r * 8 + d) as u32 + 0x50 } else { 0 };
            assert_eq!(rig.dword(base + 32 * r + 4 * d), want, "reg {r} dword {d}");
        }
    }
    rig.ok("dc.scratch_read(regs=2, offset=4) mlen=1 rlen=2 hdr", 8, 0);
    assert_eq!(rig.resp(0)[..4], [0x58, 0x59, 0x5A, 0x5B]);
    // Beyond the 1 KB per-thread space: reads 0.
    rig.ok("dc.scratch_read(regs=1, offset=32) mlen=1 rlen=1 hdr", 8, 0);
    assert_eq!(rig.resp(0), [0; 8]);
}

#[test]
fn fence_with_commit_writes_nothing() {
    let mut rig = Rig::new(IsaGen::Gen7);
    rig.set(0, [0; 8]);
    rig.mark_response(1, 0x600D);
    rig.ok("dc.fence(bti=0, commit) mlen=1 rlen=1 hdr", 8, 1);
    assert_eq!(rig.resp(0), [0x600D; 8]);
}

#[test]
fn slm_without_a_group_is_an_error() {
    let mut rig = rig(IsaGen::Gen7);
    rig.set(0, [0; 8]);
    assert!(
        rig.send(
            "dc.untyped_read(bti=254, simd=8, mask=x) mlen=1 rlen=1",
            8,
            0xFF
        )
        .is_err()
    );
}
