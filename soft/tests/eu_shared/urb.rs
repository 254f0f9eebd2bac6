//! URB writes into the `Urb` model: Gen4/G45/Gen6 URB_WRITE swizzles (000
//! lines 6569-6777; 003 lines 88204-88420) and Gen7 HWord/OWord messages.

use baregpu_isa::IsaGen;
use baregpu_soft::eu::send::SendError;
use baregpu_soft::eu::shared::Urb;

use super::rig::*;

fn rig(p: IsaGen) -> Rig {
    let mut rig = Rig::new(p);
    rig.units.urb = Urb::new(64);
    rig
}

fn data(r: usize) -> [u32; 8] {
    core::array::from_fn(|d| 0x100 * (r as u32 + 1) + d as u32)
}

#[test]
fn noswizzle_writes_consecutive_rows_whatever_the_enables() {
    for p in [IsaGen::Gen4, IsaGen::G45, IsaGen::Gen6] {
        let mut rig = rig(p);
        rig.set(0, [0x0009_0005, 0, 0, 0, 0, 0, 0, 0]); // handle ID 9, handle 5
        for r in 0..3 {
            rig.set(1 + r, data(r));
        }
        let h = if p == IsaGen::Gen6 { " hdr" } else { "" };
        // Channel enables are ignored (000 line 6665).
        rig.ok(
            &format!("urb.write(offset=2, complete) mlen=4 rlen=0{h}"),
            8,
            0,
        );
        for r in 0..3 {
            for d in 0..8 {
                assert_eq!(
                    rig.units.urb.dword(5 + 2 + r, d),
                    data(r)[d],
                    "{p:?} row {r}"
                );
            }
        }
        assert_eq!(rig.units.urb.dword(10, 0), 0);
    }
}

#[test]
fn interleaved_writes_split_halves_between_handles() {
    // M1.3:0 = vertex 0 data 3:0, M1.7:4 = vertex 1 data 3:0, M2 the next
    // four of each (000 lines 6710-6739); the enables gate dwords.
    let mut rig = rig(IsaGen::Gen4);
    rig.set(0, [3, 10, 0, 0, 0, 0, 0, 0]);
    rig.set(1, data(0));
    rig.set(2, data(1));
    rig.ok(
        "urb.write(offset=1, swizzle=interleave) mlen=3 rlen=0",
        8,
        0b1110_1111,
    );
    let urb = &rig.units.urb;
    let v0: Vec<u32> = (0..8).map(|d| urb.dword(4, d)).collect();
    let v1: Vec<u32> = (0..8).map(|d| urb.dword(11, d)).collect();
    assert_eq!(v0, [0x100, 0x101, 0x102, 0x103, 0x200, 0x201, 0x202, 0x203]);
    // Enable 4 is off: vertex 1's first dword of each register stays 0.
    assert_eq!(v1, [0, 0x105, 0x106, 0x107, 0, 0x205, 0x206, 0x207]);
}

#[test]
fn transpose_follows_table_8_2() {
    let mut rig = rig(IsaGen::G45);
    rig.set(0, [0; 8]);
    for r in 0..3 {
        rig.set(1 + r, data(r));
    }
    rig.ok(
        "urb.write(offset=0, swizzle=transpose) mlen=4 rlen=0",
        8,
        0xFF,
    );
    let (m1, m2, m3) = (data(0), data(1), data(2));
    for k in 0..4 {
        let row: Vec<u32> = (0..8).map(|d| rig.units.urb.dword(k, d)).collect();
        let (a, b) = (2 * k, 2 * k + 1);
        assert_eq!(
            row,
            [m1[a], m2[a], 0, m3[a], m1[b], m2[b], 0, m3[b]],
            "row {k}"
        );
    }
}

#[test]
fn allocate_and_ff_sync_need_the_fixed_functions() {
    let mut rig = rig(IsaGen::Gen6);
    rig.set(0, [0; 8]);
    let r = rig.send("urb.write(offset=0, alloc) mlen=1 rlen=1 hdr", 8, 0xFF);
    assert_eq!(r, Err(SendError::Unhandled));
    let r = rig.send("urb.ff_sync(offset=0) mlen=1 rlen=1 hdr", 8, 0xFF);
    assert_eq!(r, Err(SendError::Unhandled));
}

#[test]
fn gen7_hword_writes_with_per_slot_offsets_read_back() {
    let mut rig = rig(IsaGen::Gen7);
    // Handle 2 in M0.0, per-slot offset 3 HWords in M0.3, every channel
    // mask in M0.5[15:8].
    rig.set(0, [2, 0, 0, 3, 0, 0xFF00, 0, 0]);
    rig.set(1, data(0));
    rig.set(2, data(1));
    rig.ok(
        "urb.write_hword(offset=1, per_slot) mlen=3 rlen=0 hdr",
        8,
        0xFF,
    );
    for r in 0..2 {
        for d in 0..8 {
            assert_eq!(rig.units.urb.dword(2 + 1 + 3 + r, d), data(r)[d]);
        }
    }
    rig.set(0, [2, 0, 0, 0, 0, 0xFF00, 0, 0]);
    rig.ok("urb.read_hword(offset=4) mlen=1 rlen=1 hdr", 8, 0xFF);
    assert_eq!(rig.resp(0), data(0));
    // OWord units: offset 9 OWords from row 2 = row 6, high half.
    rig.ok("urb.read_oword(offset=9) mlen=1 rlen=1 hdr", 8, 0xFF);
    let d = data(0);
    assert_eq!(rig.resp(0)[..4], d[4..]);
    // Past the URB: an error, not a panic.
    rig.set(0, [63, 0, 0, 0, 0, 0xFF00, 0, 0]);
    assert!(
        rig.send("urb.write_hword(offset=4) mlen=2 rlen=0 hdr", 8, 0xFF)
            .is_err()
    );
}

/// The IVB header (Mesa's vec4 generators quoting IVB PRM vol 4 part 2
/// 2.4.3.1): handles in M0.0 and M0.1, per-slot offsets in M0.3 and M0.4,
/// M0.5[15:8] channel masks ANDed with the channel enables.
#[test]
fn gen7_interleaved_writes_use_both_handles_and_the_channel_masks() {
    let mut rig = rig(IsaGen::Gen7);
    // Slot 0: handle 4, offset 1; slot 1: handle 20, offset 2. Masks for
    // dwords 0-2 and 4-7 (dword 3, vertex 0's w, masked off).
    rig.set(0, [4, 20, 0, 1, 2, 0xF700, 0, 0]);
    rig.set(1, data(0));
    rig.ok(
        "urb.write_hword(offset=0, interleave, per_slot) mlen=2 rlen=0 hdr",
        8,
        // Channel 6 disabled by the execution mask.
        0b1011_1111,
    );
    let urb = &rig.units.urb;
    let v0: Vec<u32> = (0..4).map(|d| urb.dword(5, d)).collect();
    let v1: Vec<u32> = (0..4).map(|d| urb.dword(22, d)).collect();
    assert_eq!(v0, [0x100, 0x101, 0x102, 0]);
    assert_eq!(v1, [0x104, 0x105, 0, 0x107]);
    // Without the masks nothing is written.
    rig.set(0, [40, 41, 0, 0, 0, 0, 0, 0]);
    rig.ok(
        "urb.write_hword(offset=0, interleave) mlen=2 rlen=0 hdr",
        8,
        0xFF,
    );
    assert!((0..8).all(|d| rig.units.urb.dword(40, d) == 0 && rig.units.urb.dword(41, d) == 0));
}
