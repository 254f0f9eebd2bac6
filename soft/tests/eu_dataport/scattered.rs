//! DWord scattered (000 lines 4800-4910; 003 lines 84440-84640) and Gen7
//! byte scattered messages.

use baregpu_isa::IsaGen;
use baregpu_soft::eu::shared::Surface;

use super::rig::*;

const BUF: u64 = MEM_BASE + 0x2000;

fn ports(p: IsaGen) -> (&'static str, &'static str, &'static str) {
    match p {
        IsaGen::Gen4 | IsaGen::G45 => ("dpr", "dpw", ""),
        IsaGen::Gen6 => ("rc", "rc", " hdr"),
        _ => ("dc", "dc", " hdr"),
    }
}

/// Offsets count bytes on Gen4/G45 (000 line 4840) and DWords from Gen6
/// (003 lines 84519-84525).
fn dw_offset(p: IsaGen, dword: u32) -> u32 {
    if p <= IsaGen::G45 { dword * 4 } else { dword }
}

fn rig(p: IsaGen, entries: u32) -> Rig {
    let mut rig = Rig::new(p);
    rig.fill(BUF, 0x800, pattern);
    rig.bind(2, Surface::buffer(BUF, entries, 16));
    rig
}

#[test]
fn simd16_gather_follows_offsets_and_enables() {
    for p in ALL {
        let mut rig = rig(p, 64);
        let (r, _, h) = ports(p);
        let cache = if p <= IsaGen::G45 { ", cache=data" } else { "" };
        // Global Offset 3 dwords; channel c reads dword 5c % 61.
        let dwords: [u32; 16] = core::array::from_fn(|c| (5 * c as u32) % 61);
        rig.set(0, [0, 0, dw_offset(p, 3), 0, 0, 0, 0, 0]);
        rig.set(1, core::array::from_fn(|c| dw_offset(p, dwords[c])));
        rig.set(2, core::array::from_fn(|c| dw_offset(p, dwords[8 + c])));
        rig.mark_response(2, 0xEEEE_EEEE);
        let enables = 0b1011_0000_1111_0101;
        let text = format!("{r}.dword_scattered_read(bti=2, simd=16{cache}) mlen=3 rlen=2{h}");
        rig.ok(&text, 16, enables);
        for (c, dw) in dwords.iter().enumerate() {
            let got = rig.resp(c / 8)[c % 8];
            let want = if enables >> c & 1 != 0 {
                pattern_dword(4 * (3 + *dw as usize))
            } else {
                0xEEEE_EEEE
            };
            assert_eq!(got, want, "{p:?} channel {c}");
        }
    }
}

#[test]
fn simd8_scatter_writes_data_after_offsets_and_drops_out_of_bounds() {
    for p in ALL {
        let mut rig = rig(p, 4); // 64 bytes: dwords 0-15
        let (_, w, h) = ports(p);
        rig.set(0, [0; 8]);
        let targets = [0u32, 3, 15, 16, 40, 7, 8, 2];
        rig.set(1, core::array::from_fn(|c| dw_offset(p, targets[c])));
        let data: [u32; 8] = core::array::from_fn(|c| 0xC0DE_0000 + c as u32);
        rig.set(2, data);
        let text = format!("{w}.dword_scattered_write(bti=2, simd=8) mlen=3 rlen=0{h}");
        rig.ok(&text, 8, 0b0111_1111); // channel 7 off
        for (c, t) in targets.iter().enumerate() {
            let at = BUF + 4 * u64::from(*t);
            let inside = *t < 16;
            let want = if inside && c != 7 {
                data[c]
            } else {
                pattern_dword(4 * *t as usize)
            };
            assert_eq!(rig.dword(at), want, "{p:?} channel {c}");
        }
    }
}

#[test]
fn gen4_dword_destination_drops_the_high_enables() {
    // A dword-typed destination forces enables 15:8 to zero (000 lines
    // 13366-13368): channels 8-15 of a SIMD16 read stay unwritten.
    let mut rig = rig(IsaGen::Gen4, 64);
    rig.set(0, [0; 8]);
    rig.set(1, core::array::from_fn(|c| 4 * c as u32));
    rig.set(2, core::array::from_fn(|c| 4 * (8 + c) as u32));
    rig.mark_response(2, 1);
    rig.ok(
        "dpr.dword_scattered_read(bti=2, simd=16, cache=data) mlen=3 rlen=2",
        8,
        0xFFFF,
    );
    assert_eq!(rig.resp(0), core::array::from_fn(|c| pattern_dword(4 * c)));
    assert_eq!(rig.resp(1), [1; 8]);
}

#[test]
fn byte_scattered_reads_zero_extend_and_writes_keep_neighbours() {
    for p in [IsaGen::Gen7, IsaGen::Gen75] {
        let mut rig = rig(p, 32);
        rig.bind(5, Surface::buffer(BUF, 100, 1)); // 100 bytes
        let offs = [1u32, 2, 7, 50, 99, 98, 0, 120];
        rig.set(0, core::array::from_fn(|c| offs[c]));
        for (size, bytes) in [("1", 1usize), ("2", 2), ("4", 4)] {
            rig.ok(
                &format!("dc.byte_scattered_read(bti=5, simd=8, size={size}) mlen=1 rlen=1"),
                8,
                0xFF,
            );
            for (c, o) in offs.iter().enumerate() {
                let mut b = [0u8; 4];
                for (k, v) in b.iter_mut().enumerate().take(bytes) {
                    let at = *o as usize + k;
                    *v = if at < 100 { pattern(at) } else { 0 };
                }
                assert_eq!(
                    rig.resp(0)[c],
                    u32::from_le_bytes(b),
                    "{p:?} size {size} ch {c}"
                );
            }
        }
        // Word writes with a header: Global Offset 10 bytes.
        rig.set(0, [0, 0, 10, 0, 0, 0, 0, 0]);
        rig.set(1, [0, 4, 88, 89, 0, 0, 0, 0]);
        rig.set(
            2,
            [
                0xAAAA_1111,
                0xBBBB_2222,
                0xCCCC_3333,
                0xDDDD_4444,
                0,
                0,
                0,
                0,
            ],
        );
        rig.ok(
            "dc.byte_scattered_write(bti=5, simd=8, size=2) mlen=3 rlen=0 hdr",
            8,
            0b0101,
        );
        let byte = |rig: &mut Rig, at: u64| rig.mem().get(BUF + at, 1).unwrap()[0];
        assert_eq!([byte(&mut rig, 10), byte(&mut rig, 11)], [0x11, 0x11]);
        assert_eq!(
            [byte(&mut rig, 14), byte(&mut rig, 15)],
            [pattern(14), pattern(15)]
        );
        assert_eq!([byte(&mut rig, 98), byte(&mut rig, 99)], [0x33, 0x33]);
        assert_eq!(byte(&mut rig, 12), pattern(12));
    }
}
