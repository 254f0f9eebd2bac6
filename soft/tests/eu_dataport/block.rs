//! OWord block, unaligned block and dual block messages (000 lines
//! 4533-4682; 003 lines 83631-84001).

use baregpu_isa::IsaGen;
use baregpu_soft::eu::shared::{GeneralState, Surface};

use super::rig::*;

const BUF: u64 = MEM_BASE + 0x1000;

/// Port words for a read and a write, and the header flag, per platform.
fn ports(p: IsaGen) -> (&'static str, &'static str, &'static str) {
    match p {
        IsaGen::Gen4 | IsaGen::G45 => ("dpr", "dpw", ""),
        IsaGen::Gen6 => ("rc", "rc", " hdr"),
        _ => ("dc", "dc", " hdr"),
    }
}

fn read_text(p: IsaGen, bti: u8, owords: &str, rlen: usize) -> String {
    let (r, _, h) = ports(p);
    let cache = if p <= IsaGen::G45 {
        ", cache=render"
    } else {
        ""
    };
    format!("{r}.oword_block_read(bti={bti}, owords={owords}{cache}) mlen=1 rlen={rlen}{h}")
}

fn write_text(p: IsaGen, bti: u8, owords: &str, mlen: usize, commit: bool) -> String {
    let (_, w, h) = ports(p);
    let c = if commit { ", commit" } else { "" };
    let rlen = usize::from(commit);
    format!("{w}.oword_block_write(bti={bti}, owords={owords}{c}) mlen={mlen} rlen={rlen}{h}")
}

/// The header's Global Offset for OWord `n`: bytes on Gen4/G45 (000 line
/// 4518), OWords from Gen6 (003 lines 83583-83594).
fn oword_offset(p: IsaGen, n: u32) -> u32 {
    if p <= IsaGen::G45 { n * 16 } else { n }
}

fn header(global: u32) -> [u32; 8] {
    [0, 0, global, 0, 0, 0, 0, 0]
}

fn rig_with_buffer(p: IsaGen, entries: u32) -> Rig {
    let mut rig = Rig::new(p);
    rig.fill(BUF, 0x400, pattern);
    rig.bind(3, Surface::buffer(BUF, entries, 16));
    rig
}

/// The dwords of OWord `n` of the pattern buffer.
fn ow(n: usize) -> [u32; 4] {
    core::array::from_fn(|d| pattern_dword(n * 16 + d * 4))
}

fn halves(lo: [u32; 4], hi: [u32; 4]) -> [u32; 8] {
    [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]]
}

#[test]
fn four_owords_fill_two_registers_in_order() {
    for p in ALL {
        let mut rig = rig_with_buffer(p, 32);
        rig.set(0, header(oword_offset(p, 2)));
        rig.ok(&read_text(p, 3, "4", 2), 16, 0xFFFF);
        assert_eq!(rig.resp(0), halves(ow(2), ow(3)), "{p:?}");
        assert_eq!(rig.resp(1), halves(ow(4), ow(5)), "{p:?}");
    }
}

#[test]
fn read_mask_groups_of_four_pick_owords() {
    // Low 8 enables for W0 (and W2), high 8 for W1 (and W3); any bit of a
    // group of four fetches its OWord (000 line 4553).
    for p in ALL {
        let mut rig = rig_with_buffer(p, 32);
        rig.set(0, header(oword_offset(p, 0)));
        rig.mark_response(4, 0xDEAD_BEEF);
        rig.ok(&read_text(p, 3, "8", 4), 16, 0x0210);
        let m = [0xDEAD_BEEF; 4];
        assert_eq!(rig.resp(0), halves(m, ow(1)), "{p:?}");
        assert_eq!(rig.resp(1), halves(ow(2), m), "{p:?}");
        assert_eq!(rig.resp(2), halves(m, ow(5)), "{p:?}");
        assert_eq!(rig.resp(3), halves(ow(6), m), "{p:?}");
    }
}

#[test]
fn one_oword_high_half_keeps_the_low_half() {
    for p in ALL {
        let mut rig = rig_with_buffer(p, 32);
        rig.set(0, header(oword_offset(p, 5)));
        rig.mark_response(1, 0x1234_5678);
        rig.ok(&read_text(p, 3, "1hi", 1), 8, 0xF0);
        assert_eq!(rig.resp(0), halves([0x1234_5678; 4], ow(5)), "{p:?}");
    }
}

#[test]
fn reads_beyond_the_buffer_return_zero() {
    // 3 entries of 16 bytes: OWords 0-2 exist (000 lines 4541, 4561).
    for p in ALL {
        let mut rig = rig_with_buffer(p, 3);
        rig.set(0, header(oword_offset(p, 2)));
        rig.ok(&read_text(p, 3, "4", 2), 16, 0xFFFF);
        assert_eq!(rig.resp(0), halves(ow(2), [0; 4]), "{p:?}");
        assert_eq!(rig.resp(1), [0; 8], "{p:?}");
    }
}

#[test]
fn writes_follow_each_dword_enable_and_drop_out_of_bounds() {
    for p in ALL {
        let mut rig = rig_with_buffer(p, 4);
        rig.set(0, header(oword_offset(p, 2)));
        let data: [u32; 8] = core::array::from_fn(|d| 0xA000_0000 | d as u32);
        rig.set(1, data);
        rig.set(2, data.map(|v| v | 0x100));
        // 4 OWords = M1, M2: M1 dwords by enables 0-7, M2 by 8-15.
        rig.ok(&write_text(p, 3, "4", 3, false), 16, 0x8F35);
        for (d, v) in data.iter().enumerate() {
            let lo = BUF + 32 + 4 * d as u64;
            let want = if 0x35 >> d & 1 != 0 {
                *v
            } else {
                pattern_dword(32 + 4 * d)
            };
            assert_eq!(rig.dword(lo), want, "{p:?} M1.{d}");
        }
        // M2 is OWords 4 and 5: beyond the 4-entry buffer, dropped.
        for at in (64..96).step_by(4) {
            assert_eq!(rig.dword(BUF + at as u64), pattern_dword(at), "{p:?}");
        }
    }
}

#[test]
fn write_commit_leaves_the_destination_alone() {
    // "The destination register is not modified" (000 lines 4526-4532).
    for p in [IsaGen::Gen4, IsaGen::G45, IsaGen::Gen6] {
        let mut rig = rig_with_buffer(p, 32);
        rig.set(0, header(oword_offset(p, 1)));
        rig.set(1, [7; 8]);
        rig.mark_response(1, 0x5555_AAAA);
        rig.ok(&write_text(p, 3, "2", 2, true), 8, 0xFF);
        assert_eq!(rig.resp(0), [0x5555_AAAA; 8], "{p:?}");
        assert_eq!(rig.dword(BUF + 16), 7, "{p:?}");
    }
}

#[test]
fn unaligned_read_counts_bytes_and_ignores_the_mask() {
    for (p, port) in [(IsaGen::Gen6, "rc"), (IsaGen::Gen7, "dc")] {
        let mut rig = rig_with_buffer(p, 32);
        rig.set(0, header(0x14 | 3)); // the low two bits are dropped
        let text = format!("{port}.unaligned_oword_block_read(bti=3, owords=2) mlen=1 rlen=1 hdr");
        rig.ok(&text, 8, 0);
        let want: [u32; 8] = core::array::from_fn(|d| pattern_dword(0x14 + 4 * d));
        assert_eq!(rig.resp(0), want, "{p:?}");
    }
}

#[test]
fn stateless_uses_general_state_and_the_immediate_base() {
    // BTI 255: General State Base + M0.5[31:10], bounded by the upper
    // bound (000 lines 4327-4340).
    for p in [IsaGen::Gen4, IsaGen::Gen6, IsaGen::Gen7] {
        let mut rig = Rig::new(p);
        rig.fill(MEM_BASE, 0x4000, pattern);
        rig.units.general_state = GeneralState {
            base: MEM_BASE + 0x1000,
            upper_bound: MEM_BASE + 0x1400 + 0x30,
        };
        let mut h = header(oword_offset(p, 1));
        h[5] = 0x400 | 0x3FF; // bits 9:0 are not part of the address
        rig.set(0, h);
        rig.ok(&read_text(p, 255, "4", 2), 16, 0xFFFF);
        let at = 0x1400 + 16;
        let want0: [u32; 8] = core::array::from_fn(|d| pattern_dword(at + 4 * d));
        assert_eq!(rig.resp(0), want0, "{p:?}");
        // The bound cuts the second register (offsets 0x30.. of the window).
        assert_eq!(rig.resp(1), [0; 8], "{p:?}");
    }
}

#[test]
fn null_surface_reads_zero_and_drops_writes() {
    for p in ALL {
        let mut rig = Rig::new(p);
        rig.fill(MEM_BASE, 0x100, pattern);
        rig.bind(1, Surface::null());
        rig.set(0, header(0));
        rig.mark_response(1, 9);
        rig.ok(&read_text(p, 1, "2", 1), 8, 0xFF);
        assert_eq!(rig.resp(0), [0; 8], "{p:?}");
        rig.set(1, [1; 8]);
        rig.ok(&write_text(p, 1, "2", 2, false), 8, 0xFF);
        assert_eq!(rig.dword(MEM_BASE), pattern_dword(0), "{p:?}");
    }
}

fn dual_text(p: IsaGen, write: bool, owords: &str, mlen: usize, rlen: usize) -> String {
    let (r, w, h) = ports(p);
    let cache = if p <= IsaGen::G45 && !write {
        ", cache=data"
    } else {
        ""
    };
    let (unit, op) = if write {
        (w, "oword_dual_block_write")
    } else {
        (r, "oword_dual_block_read")
    };
    format!("{unit}.{op}(bti=3, owords={owords}{cache}) mlen={mlen} rlen={rlen}{h}")
}

#[test]
fn dual_block_reads_two_blocks_into_register_halves() {
    for p in ALL {
        let mut rig = rig_with_buffer(p, 64);
        let gen7 = p >= IsaGen::Gen7;
        // Block offsets 1 and 9 OWords, Global Offset 2 OWords.
        let (b0, b1) = (oword_offset(p, 1), oword_offset(p, 9));
        let at = if gen7 {
            // Headerless on Gen7: the Global Offset is 0.
            0
        } else {
            rig.set(0, header(oword_offset(p, 2)));
            1
        };
        rig.set(at, [b0, 0, 0, 0, b1, 0, 0, 0]);
        let g = if gen7 { 0 } else { 2 };
        let text =
            dual_text(p, false, "4", at + 1, 4).replace(" hdr", if gen7 { "" } else { " hdr" });
        rig.ok(&text, 8, 0xFF);
        for i in 0..4 {
            assert_eq!(
                rig.resp(i),
                halves(ow(g + 1 + i), ow(g + 9 + i)),
                "{p:?} W{i}"
            );
        }
    }
}

#[test]
fn dual_block_write_stores_enabled_dwords_of_both_blocks() {
    for p in [IsaGen::Gen4, IsaGen::Gen6] {
        let mut rig = rig_with_buffer(p, 64);
        rig.set(0, header(0));
        rig.set(
            1,
            [oword_offset(p, 3), 0, 0, 0, oword_offset(p, 7), 0, 0, 0],
        );
        let data: [u32; 8] = core::array::from_fn(|d| 0x7700 + d as u32);
        rig.set(2, data);
        rig.ok(&dual_text(p, true, "1", 3, 0), 8, 0b1010_0110);
        for d in 0..4 {
            let want0 = if 0b0110 >> d & 1 != 0 {
                data[d]
            } else {
                pattern_dword(48 + 4 * d)
            };
            let want1 = if 0b1010 >> d & 1 != 0 {
                data[4 + d]
            } else {
                pattern_dword(112 + 4 * d)
            };
            assert_eq!(
                rig.dword(BUF + 48 + 4 * d as u64),
                want0,
                "{p:?} block 0 dword {d}"
            );
            assert_eq!(
                rig.dword(BUF + 112 + 4 * d as u64),
                want1,
                "{p:?} block 1 dword {d}"
            );
        }
    }
}

#[test]
fn gen6_refuses_a_headerless_block_message() {
    let mut rig = rig_with_buffer(IsaGen::Gen6, 8);
    let r = rig.send(
        "rc.oword_block_read(bti=3, owords=2) mlen=1 rlen=1",
        8,
        0xFF,
    );
    assert!(r.is_err());
}

#[test]
fn short_messages_are_errors_not_panics() {
    for p in ALL {
        let mut rig = rig_with_buffer(p, 8);
        let (r, _, h) = ports(p);
        let cache = if p <= IsaGen::G45 {
            ", cache=render"
        } else {
            ""
        };
        // 8 OWords need 4 response registers; 2 given.
        let text = format!("{r}.oword_block_read(bti=3, owords=8{cache}) mlen=1 rlen=2{h}");
        assert!(rig.send(&text, 16, 0xFFFF).is_err(), "{p:?}");
        // Unbound binding-table index.
        rig.set(0, header(0));
        assert!(
            rig.send(&read_text(p, 9, "2", 1), 8, 0xFF).is_err(),
            "{p:?}"
        );
    }
}
