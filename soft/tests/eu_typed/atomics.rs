//! Typed atomics: the old value returned per slot, the new one stored,
//! computed here from the operation definitions (IGC vISA TYPED_ATOMIC;
//! 003 lines 84687-84714 for the shared operations).

use baregpu_isa::IsaGen;
use baregpu_soft::eu::shared::surface::format;
use baregpu_soft::eu::shared::{MemoryUnits, Tiling};

use super::rig::*;

/// Slot i's texel before the atomics, and the sources.
const OLD: [u32; 8] = [5, 0xFFFF_FFF0, 7, 0x8000_0000, 100, 3, 0, 42];
const SRC0: [u32; 8] = [10, 0x20, 7, 1, 0xFFFF_FFFF, 4, 9, 42];
const SRC1: [u32; 8] = [1, 2, 3, 4, 5, 6, 7, 8];

/// Texel of slot i: (i, 0), except slot 6, which is past the right edge.
fn u_of(i: usize) -> u32 {
    if i == 6 { 8 } else { i as u32 }
}

/// A 2D R32 surface 8 x 2 with OLD in row 0.
fn gpu(p: IsaGen, fmt: u32) -> (MemoryUnits, Surf, Vec<u8>) {
    let s = Surf::two_d(fmt, 8, 2, 32, Tiling::Linear);
    let mut gpu = new_gpu(p, &s);
    let mut area = area_pattern();
    for (i, v) in OLD.iter().enumerate() {
        let at = s.texel(i as u32, 0, 0).expect("inside");
        area[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
    assert!(gpu.memory.put(SURF, &area));
    (gpu, s, area)
}

type HostOp = fn(u32, u32, u32) -> u32;

#[test]
fn atomics_return_the_old_values_and_store_the_new() {
    // (operation, sources, format, the new value from old, src0, src1).
    // CMPWR compares with the first source and stores the second [ext:
    // mesa brw_fs_nir.cpp image atomic comp_swap: data0 the comparand].
    let cases: [(&str, usize, u32, HostOp); 6] = [
        ("add", 1, format::R32_UINT, |o, a, _| o.wrapping_add(a)),
        (
            "cmpwr",
            2,
            format::R32_UINT,
            |o, a, b| if o == a { b } else { o },
        ),
        ("imin", 1, format::R32_SINT, |o, a, _| {
            (o as i32).min(a as i32) as u32
        }),
        ("imax", 1, format::R32_SINT, |o, a, _| {
            (o as i32).max(a as i32) as u32
        }),
        ("umin", 1, format::R32_UINT, |o, a, _| o.min(a)),
        ("umax", 1, format::R32_UINT, |o, a, _| o.max(a)),
    ];
    for p in GENS {
        for (op, srcs, fmt, host) in cases {
            for hi in [false, true] {
                let (mut gpu, s, mut want) = gpu(p, fmt);
                // Header and U only: V is not sent and reads 0.
                let mut payload = vec![header(0xFFFF), lanes(u_of)];
                payload.extend([SRC0, SRC1].into_iter().take(srcs));
                let group = if hi { "hi" } else { "lo" };
                let mut a = send(
                    format!(
                        "typed_atomic(bti=0, op={op}, slots={group}, ret) mlen={} rlen=1 hdr",
                        2 + srcs
                    ),
                    payload,
                );
                a.m8 = hi;
                // Slot 3 is off in the execution mask (channel 3 or 11).
                let dmask = !(1u32 << if hi { 11 } else { 3 });
                let h = run_ok(p, &mut gpu, &[a], dmask);
                let got = resp(&h, 0, 0);
                for i in 0..8 {
                    let ret = if i == 3 {
                        MARK
                    } else if i == 6 {
                        0 // outside: nothing read or written (IGC TYPED_ATOMIC)
                    } else {
                        let at = s.texel(i as u32, 0, 0).expect("inside");
                        let new = host(OLD[i], SRC0[i], SRC1[i]);
                        want[at..at + 4].copy_from_slice(&new.to_le_bytes());
                        OLD[i]
                    };
                    assert_eq!(got[i], ret, "{p:?} {op} {group} slot {i}");
                }
                assert!(area(&gpu) == want, "{p:?} {op} {group}");
            }
        }
    }
}

#[test]
fn an_atomic_without_return_only_stores() {
    for p in GENS {
        let (mut gpu, s, mut want) = gpu(p, format::R32_UINT);
        let a = send(
            "typed_atomic(bti=0, op=inc, slots=lo) mlen=2 rlen=0 hdr",
            vec![header(0xFF & !(1 << 1)), lanes(u_of)],
        );
        run_ok(p, &mut gpu, &[a], u32::MAX);
        for i in (0..8).filter(|i| *i != 1 && *i != 6) {
            let at = s.texel(i as u32, 0, 0).expect("inside");
            want[at..at + 4].copy_from_slice(&OLD[i].wrapping_add(1).to_le_bytes());
        }
        assert!(area(&gpu) == want, "{p:?}");
    }
}

#[test]
fn simd4x2_atomics_take_both_sources_from_one_register() {
    // Gen7.5 DC1 type 7: slot s's address in dwords 4s-4s+3, its src0 and
    // src1 in dwords 4s and 4s+1 of the next register [ext: mesa
    // brw_vec4_surface_builder.cpp `emit_typed_atomic` zips the sources
    // as X and Y]; the old value returns in dword 4s.
    let p = IsaGen::Gen75;
    let (mut gpu, s, mut want) = gpu(p, format::R32_UINT);
    let a = send(
        "typed_atomic(bti=0, op=cmpwr, slots=4x2, ret) mlen=3 rlen=1 hdr",
        vec![
            header(0),
            [2, 0, 0, 0, 4, 0, 0, 0],
            [OLD[2], 0x77, 0, 0, OLD[4] + 1, 0x99, 0, 0],
        ],
    );
    let h = run_ok(p, &mut gpu, &[a], 0xFF);
    // Slot 0 matches and stores; slot 1 does not.
    let at = s.texel(2, 0, 0).expect("inside");
    want[at..at + 4].copy_from_slice(&0x77u32.to_le_bytes());
    assert!(area(&gpu) == want);
    let got = resp(&h, 0, 0);
    assert_eq!((got[0], got[4]), (OLD[2], OLD[4]));
    assert_eq!([got[1], got[2], got[3], got[5]], [MARK; 4]);
}

#[test]
fn atomics_on_a_null_surface_return_zero() {
    for p in GENS {
        let (mut gpu, _, want) = gpu(p, format::R32_UINT);
        let a = send(
            "typed_atomic(bti=1, op=add, slots=lo, ret) mlen=3 rlen=1 hdr",
            vec![header(0xFF), lanes(u_of), SRC0],
        );
        let h = run_ok(p, &mut gpu, &[a], u32::MAX);
        assert_eq!(resp(&h, 0, 0), [0; 8], "{p:?}");
        assert!(area(&gpu) == want, "{p:?}");
    }
}
