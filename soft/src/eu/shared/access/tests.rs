//! Gathered and scattered lanes against two references: a host model of
//! the window rule (bytes outside read 0, writes outside dropped) where
//! nothing faults, and the one-dword-at-a-time accesses where something
//! does (same values, same memory afterwards, same fault).

use alloc::vec::Vec;

use super::Window;
use crate::eu::shared::{
    BindingTable, FlatMemory, GfxMemory, MemFault, MessageEnv, SurfaceList, SurfaceSource,
};
use baregpu_isa::IsaGen;

const BASE: u64 = 0x1_0000;
const LEN: usize = 0x1000;

fn memory() -> FlatMemory {
    let mut m = FlatMemory::new(BASE, LEN);
    for (i, b) in m.bytes.iter_mut().enumerate() {
        *b = (i.wrapping_mul(37).wrapping_add(11) & 0xFF) as u8;
    }
    m
}

/// A window inside the memory: bytes 0x100..0x300 of it.
const WIN: Window = Window::Mem {
    base: BASE + 0x100,
    size: 0x200,
};

/// The window rule on the memory's bytes: byte k of the dword at `off` is
/// the memory's when `off + k` is below the window size, else 0.
fn model_read(bytes: &[u8], off: u64) -> u32 {
    let mut b = [0u8; 4];
    for (k, v) in b.iter_mut().enumerate() {
        let o = u128::from(off) + k as u128;
        if o < 0x200 {
            *v = bytes[0x100 + o as usize];
        }
    }
    u32::from_le_bytes(b)
}

fn model_write(bytes: &mut [u8], off: u64, v: u32) {
    for (k, x) in v.to_le_bytes().iter().enumerate() {
        let o = u128::from(off) + k as u128;
        if o < 0x200 {
            bytes[0x100 + o as usize] = *x;
        }
    }
}

/// Lane offset patterns: runs, runs leaving the window (aligned and not),
/// repeats, descending lanes, offsets that would wrap.
fn patterns() -> Vec<([u64; 16], u32)> {
    let run = |start: u64| core::array::from_fn(|i| start + 4 * i as u64);
    let mut v = alloc::vec![
        (run(0x10), 0xFFFF),
        (run(0x10), 0xFF),
        (run(0x10), 0b1010_1111_0000_1101),
        (run(0x1E0), 0xFFFF),
        (run(0x1E2), 0xFFFF),
        (core::array::from_fn(|i| 0x40 - 4 * i as u64), 0xFFFF),
        (core::array::from_fn(|i| 0x20 + 4 * (i as u64 / 2)), 0xFFFF),
        (
            core::array::from_fn(|i| (u64::MAX - 6).wrapping_add(4 * i as u64)),
            0xFFFF
        ),
    ];
    // Two runs with a gap, and the same with lane 8 off.
    let gap: [u64; 16] =
        core::array::from_fn(|i| 0x80 + 4 * i as u64 + if i >= 8 { 0x40 } else { 0 });
    v.push((gap, 0xFFFF));
    v.push((gap, 0xFEFF));
    v
}

fn env<'a>(mem: &'a mut FlatMemory, list: &'a mut SurfaceList) -> MessageEnv<'a> {
    MessageEnv::new(mem, SurfaceSource::List(list))
}

#[test]
fn gathered_lanes_follow_the_window_rule() {
    for (offs, on) in patterns() {
        let mut mem = memory();
        let bytes = mem.bytes.clone();
        let mut list = SurfaceList::new();
        let mut e = env(&mut mem, &mut list);
        let mut out = [0xDEAD_BEEFu32; 16];
        e.gather_dwords(WIN, &offs, on, &mut out).unwrap();
        for l in 0..16 {
            let want = if on >> l & 1 != 0 {
                model_read(&bytes, offs[l])
            } else {
                0xDEAD_BEEF // disabled lanes are left alone
            };
            assert_eq!(out[l], want, "lane {l} of {offs:x?} mask {on:#x}");
        }
    }
}

#[test]
fn scattered_lanes_follow_the_window_rule_in_lane_order() {
    for (offs, on) in patterns() {
        let mut mem = memory();
        let mut want = mem.bytes.clone();
        let vals: [u32; 16] = core::array::from_fn(|i| 0x0101_0101 * (i as u32 + 1));
        for l in 0..16 {
            if on >> l & 1 != 0 {
                model_write(&mut want, offs[l], vals[l]);
            }
        }
        let mut list = SurfaceList::new();
        let mut e = env(&mut mem, &mut list);
        e.scatter_dwords(WIN, &offs, on, &vals).unwrap();
        assert!(mem.bytes == want, "{offs:x?} mask {on:#x}");
    }
}

/// A window larger than the memory (like the stateless one): accesses past
/// the memory's end fault instead of reading 0.
const OPEN: Window = Window::Mem {
    base: BASE,
    size: u64::MAX - BASE,
};

/// Lanes 0-7 inside the memory, then lanes past its end (aligned or with
/// lane 8 straddling it).
fn leaving(start: u64) -> [u64; 16] {
    core::array::from_fn(|i| start + 4 * i as u64)
}

#[test]
fn a_gather_that_runs_off_the_memory_faults_at_the_first_outside_lane() {
    for start in [LEN as u64 - 32, LEN as u64 - 34] {
        let offs = leaving(start);
        let mut list = SurfaceList::new();
        // Reference: one dword at a time.
        let mut ref_mem = memory();
        let mut r = env(&mut ref_mem, &mut list);
        let mut ref_err = None;
        for o in offs {
            if let Err(e) = r.read_dword(OPEN, o) {
                ref_err = Some(e);
                break;
            }
        }
        let ref_fault = r.fault;
        let mut mem = memory();
        let mut list = SurfaceList::new();
        let mut e = env(&mut mem, &mut list);
        let mut out = [0u32; 16];
        let err = e.gather_dwords(OPEN, &offs, 0xFFFF, &mut out).unwrap_err();
        assert_eq!(Some(err), ref_err);
        // The first lane whose dword leaves the memory.
        let first_out = offs.iter().find(|o| **o + 4 > LEN as u64).copied();
        let want = first_out.map(|o| MemFault {
            addr: BASE + o,
            len: 4,
            write: false,
        });
        assert_eq!(e.fault, want, "start {start:#x}");
        assert_eq!(e.fault, ref_fault);
    }
}

#[test]
fn a_scatter_that_runs_off_the_memory_writes_the_lanes_before_the_fault() {
    for start in [LEN as u64 - 32, LEN as u64 - 34] {
        let offs = leaving(start);
        let vals: [u32; 16] = core::array::from_fn(|i| 0xA0B0_C0D0 ^ i as u32);
        let mut list = SurfaceList::new();
        let mut ref_mem = memory();
        let mut r = env(&mut ref_mem, &mut list);
        for (o, v) in offs.iter().zip(vals) {
            if r.write_dword(OPEN, *o, v).is_err() {
                break;
            }
        }
        let ref_fault = r.fault;
        let mut mem = memory();
        let mut list = SurfaceList::new();
        let mut e = env(&mut mem, &mut list);
        assert!(e.scatter_dwords(OPEN, &offs, 0xFFFF, &vals).is_err());
        let fault = e.fault;
        assert_eq!(fault, ref_fault, "start {start:#x}");
        assert!(fault.is_some_and(|f| f.write && f.addr == BASE + offs[8]));
        assert!(mem.bytes == ref_mem.bytes, "start {start:#x}");
        // The lanes inside did land.
        let at = start as usize;
        assert_eq!(&mem.bytes[at..at + 4], &vals[0].to_le_bytes());
    }
}

/// Gen7 SURFACE_STATE of a raw buffer of `entries` bytes at `base` (the
/// bit positions of `Surface::from_surface_state`'s Gen7 buffer rule).
fn buffer_state(base: u32, entries: u32) -> [u32; 8] {
    let n = entries - 1;
    let mut dw = [0u32; 8];
    dw[0] = 4 << 29;
    dw[1] = base;
    dw[2] = ((n >> 7) & 0x3FFF) << 16 | (n & 0x7F);
    dw[3] = ((n >> 21) & 0x3F) << 21;
    dw
}

#[test]
fn a_write_through_the_env_drops_the_surface_it_remembered() {
    let mut mem = FlatMemory::new(BASE, LEN);
    for (i, d) in buffer_state(0x5000, 16).iter().enumerate() {
        mem.set_dword(BASE + 0x40 + 4 * i as u64, *d);
    }
    for (i, d) in buffer_state(0x6000, 32).iter().enumerate() {
        mem.set_dword(BASE + 0x80 + 4 * i as u64, *d);
    }
    mem.set_dword(BASE, 0x40); // entry 0 -> the first state
    let memory: &mut dyn GfxMemory = &mut mem;
    let mut e = MessageEnv::new(
        memory,
        SurfaceSource::Table(BindingTable {
            platform: IsaGen::Gen7,
            table: BASE,
            surface_state_base: BASE,
        }),
    );
    let s = e.surface(0).unwrap();
    assert_eq!((s.base, s.entries()), (0x5000, 16));
    assert_eq!(e.surface(0).unwrap(), s);
    // Point entry 0 at the second state through the env's own write.
    let table = Window::Mem {
        base: BASE,
        size: LEN as u64,
    };
    e.write_dword(table, 0, 0x80).unwrap();
    let t = e.surface(0).unwrap();
    assert_eq!((t.base, t.entries()), (0x6000, 32));
}
