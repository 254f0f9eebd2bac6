//! Differential test of the Gen12.5 legacy data-port messages
//! (`baregpu_isa::message::xe_hdc`) against `iga64 -p=12p71`. Generated
//! messages over every field of every typed message are encoded by us
//! into sends and printed by us: iga64 assembles the text to our bits, the
//! bits decode back to the message, and iga64's send comment equals the
//! one `baregpu disasm --gen dg2` writes. A second pass throws random
//! descriptor bits (every message type, the MBZ and reserved bits) at
//! both: where we comment, iga64 comments the same; where we do not, the
//! descriptor has an untyped message type, a reserved code or a bit no
//! field owns, by the manual (the `refusable` functions, written from 004's
//! tables rather than from our decoder).

mod common;
mod xehpg_sends;

use baregpu_isa::inst::Sfid;
use baregpu_isa::message::xe_hdc::*;
use common::{Rng, ensure_oracles, scratch};
use xehpg_sends::{generated_against_iga, random_against_iga};

const OWORD_COUNTS: [OwordCount; 6] = [
    OwordCount::OneLow,
    OwordCount::OneHigh,
    OwordCount::Two,
    OwordCount::Four,
    OwordCount::Eight,
    OwordCount::Sixteen,
];

const HWORDS: [u8; 8] = [1, 2, 4, 8, 16, 32, 64, 128];

fn gen_msg(rng: &mut Rng) -> Dc1 {
    let bti = if rng.chance(3) {
        253
    } else {
        rng.below(256) as u8
    };
    let (header, packed_address, packed_data) = (rng.chance(3), rng.chance(4), rng.chance(4));
    match rng.below(12) {
        0 => {
            let a64 = rng.chance(2);
            let half = rng.chance(2);
            Dc1::FloatAtomic(FloatAtomic {
                a64,
                half,
                bti,
                op: 1 + rng.below(7) as u8,
                wide: !half && rng.chance(2),
                simd_bit: !(half && a64) && rng.chance(2),
                returns: rng.chance(2),
                header: !a64 && header,
                packed_address: !a64 && packed_address,
                packed_data: !a64 && packed_data,
            })
        }
        1 => {
            let write = rng.chance(2);
            if rng.chance(3) {
                return Dc1::A64HwordBlock(A64HwordBlock {
                    write,
                    bti,
                    hwords: rng.pick(&HWORDS),
                    invalidate_after_read: !write && rng.chance(3),
                });
            }
            Dc1::A64Block(A64Block {
                write,
                aligned: rng.chance(2),
                bti,
                count: rng.pick(&OWORD_COUNTS),
                invalidate_after_read: !write && rng.chance(3),
            })
        }
        2 => Dc1::MediaBlock(MediaBlock {
            write: rng.chance(2),
            bti,
            vlso: rng.below(8) as u8,
        }),
        3 | 4 => {
            let a64 = rng.chance(2);
            let word = rng.chance(2);
            Dc1::Atomic(UntypedAtomic {
                a64,
                word,
                bti,
                op: rng.below(16) as u8,
                bit12: !(a64 && word) && rng.chance(2),
                returns: rng.chance(2),
                header: !a64 && header,
                packed_address: !a64 && packed_address,
                packed_data: !a64 && packed_data,
            })
        }
        5 | 11 => {
            let counter = rng.chance(3);
            let word = rng.chance(2);
            Dc1::TypedAtomic(TypedAtomic {
                counter,
                word,
                bti,
                op: rng.below(16) as u8,
                bit12: !word && rng.chance(2),
                returns: rng.chance(2),
                header: counter || header,
                packed_address,
                packed_data,
            })
        }
        6 | 10 => Dc1::Typed(Typed {
            write: rng.chance(2),
            bti,
            channels: rng.below(16) as u8,
            slots: rng.pick(&[SlotGroup::Simd4x2, SlotGroup::Low, SlotGroup::High]),
            header,
            packed_address,
            packed_data,
        }),
        7 | 8 => {
            let a64 = rng.chance(2);
            Dc1::Untyped(Untyped {
                write: rng.chance(2),
                a64,
                bti,
                channels: rng.below(16) as u8,
                simd: rng.pick(&[
                    UntypedSimd::Simd4x2,
                    UntypedSimd::Simd8,
                    UntypedSimd::Simd16,
                ]),
                header: !a64 && header,
                packed_address: !a64 && packed_address,
                packed_data: !a64 && packed_data,
            })
        }
        _ => {
            let write = rng.chance(2);
            Dc1::A64Scattered(A64Scattered {
                write,
                bti,
                elem: rng.pick(&[ScatterElem::Byte, ScatterElem::Dword, ScatterElem::Qword]),
                elements: rng.pick(&[1, 2, 4, 8]),
                simd16: rng.chance(2),
                invalidate_after_read: !write && rng.chance(3),
            })
        }
    }
}

#[test]
fn hdc_messages_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-hdc-iga");
    let mut rng = Rng::new(0x4DC1);
    let msgs: Vec<Dc1> = (0..5_000).map(|_| gen_msg(&mut rng)).collect();
    let words: Vec<u32> = msgs
        .iter()
        .map(|m| m.encode().unwrap_or_else(|e| panic!("{m:?}: {e}")))
        .collect();
    let decodes = |n: usize, w: u32| assert_eq!(decode_dc1(w), Ok(msgs[n]), "{w:#x}");
    let kinds = generated_against_iga(Sfid::DpDataCache1, &words, decodes, &dir, &mut rng);
    eprintln!(
        "gen12.5 hdc: {} generated dc1 messages identical both ways, {} distinct texts",
        msgs.len(),
        kinds.len()
    );
    // untyped: 4 kinds x 16 masks; typed surfaces: 2 x (low, high) x 16;
    // scattered: 2 x (byte 4 + dword + qword); integer atomics: 16 ops x
    // (int32, int16, a64 int32, a64 int64, a64 int16); typed atomics: 16
    // x (32-bit, 32-bit high, 16-bit, 32-bit counter, 16-bit counter);
    // media block: 2 x iga64's 5 texts; A64 blocks: 2 x (2
    // OWord subtypes x 6 counts + 8 HWord counts); float atomics: 4 kinds
    // x 7 ops x return
    assert_eq!(
        kinds.len(),
        4 * 16 + 2 * 2 * 16 + 2 * 6 + 5 * 16 + 5 * 16 + 2 * 5 + 2 * (2 * 6 + 8) + 4 * 7 * 2,
        "{kinds:#?}"
    );
}

/// `dc1` descriptors we may leave uncommented, by 004's tables: a message
/// type not typed here, bit 31 (MBZ everywhere); for the A64 messages the
/// header and bits 30:29; SIMD mode 3 (untyped surface), slot group 3
/// (typed surface), scattered subtype 3 and the scattered write's 13; the
/// A64 word atomic's data width 12; the word typed atomic's and counter's
/// reserved 12 and a counter without its header; float operation 0, the
/// half-float forms' 11 and the A64 one's 12; the media and A64 block
/// messages' MBZ bits, missing header, undefined counts and subtype 2.
fn refusable(d: u32) -> bool {
    let ty = (d >> 14) & 0x1F;
    let bit = |b: u32| d & 1 << b != 0;
    let a64_stray = ty & 0x10 != 0 && d & 0x6008_0000 != 0;
    let fop0 = (d >> 8) & 7 == 0;
    bit(31)
        || match ty {
            0x01 | 0x09 | 0x11 | 0x19 => (d >> 12) & 3 == 3 || a64_stray,
            0x05 | 0x0D => (d >> 12) & 3 == 3,
            0x02 | 0x03 | 0x06 => false,
            0x07 => bit(12),
            0x0B => !bit(19),
            0x0C => !bit(19) || bit(12),
            0x12 => a64_stray,
            0x13 => a64_stray || bit(12),
            0x1B | 0x1D => a64_stray || fop0,
            0x1C => fop0 || bit(11),
            0x1E => a64_stray || fop0 || bit(11) || bit(12),
            0x04 | 0x0A => d & 0xE000_3800 != 0 || !bit(19),
            0x14 | 0x15 => {
                let sub = (d >> 11) & 3;
                d & 0xE000_0000 != 0
                    || !bit(19)
                    || sub == 2
                    || (sub < 2 && (d >> 8) & 7 > 5)
                    || (ty == 0x15 && bit(13))
            }
            0x10 => (d >> 8) & 3 == 3 || a64_stray,
            0x1A => (d >> 8) & 3 == 3 || a64_stray || bit(13),
            _ => true,
        }
}

/// The `dc1` message types typed here.
const DC1_TYPES: [u32; 24] = [
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x10, 0x11, 0x12, 0x13,
    0x14, 0x15, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E,
];

#[test]
fn hdc_random_descriptors_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-hdc-raw");
    let mut rng = Rng::new(0x4DC2);
    let descs: Vec<u32> = (0..5_000)
        .map(|_| {
            let ty = if rng.chance(5) {
                rng.below(32) as u32
            } else {
                rng.pick(&DC1_TYPES)
            };
            let mut d = (rng.next() as u32 & 0x3FFF) | ty << 14;
            if rng.chance(2) {
                d |= 1 << 19;
            }
            if rng.chance(8) {
                d |= 1 << rng.pick(&[29u32, 30, 31]);
            }
            d
        })
        .collect();
    let (same, refused) = random_against_iga(Sfid::DpDataCache1, &descs, refusable, &dir, &mut rng);
    eprintln!(
        "gen12.5 hdc: {same} random dc1 descriptors read the same as iga64, {refused} refused by us"
    );
    assert!(same > 1_800, "only {same} compared");
}

fn gen_dc0(rng: &mut Rng) -> Dc0 {
    let write = rng.chance(3);
    let bti = rng.below(256) as u8;
    match rng.below(8) {
        0 | 1 => {
            let dword = rng.chance(2);
            Dc0::Scattered(Scattered {
                write,
                dword,
                bti,
                bytes: if dword { 1 } else { rng.pick(&[1, 2, 4]) },
                simd16: rng.chance(2),
                invalidate_after_read: dword && !write && rng.chance(3),
                header: rng.chance(3),
                packed_address: rng.chance(4),
                packed_data: rng.chance(4),
            })
        }
        2 => Dc0::HwordBlock(HwordBlock {
            write,
            bti,
            hwords: rng.pick(&HWORDS),
        }),
        3 => Dc0::Scratch(Scratch {
            write,
            regs: rng.pick(&[1, 2, 4, 8]),
            offset: rng.below(4096) as u16,
            invalidate_after_read: !write && rng.chance(3),
            write_bit16: write && rng.chance(2),
        }),
        4 => {
            let slm = rng.chance(4);
            let l3_flush = if slm || rng.chance(3) {
                None
            } else {
                Some(rng.pick(&[
                    L3Flush::RwData,
                    L3Flush::Constant,
                    L3Flush::Texture,
                    L3Flush::Instructions,
                ]))
            };
            Dc0::Fence(Fence {
                slm,
                l1_flush: !slm && l3_flush.is_none() && rng.chance(2),
                l3_flush,
                header: rng.chance(2),
            })
        }
        _ => Dc0::Block(OwordBlock {
            write,
            aligned: rng.chance(2),
            bti,
            count: rng.pick(&OWORD_COUNTS),
        }),
    }
}

/// OWord and HWord blocks, dword and byte scattered, scratch blocks and
/// fences on `dc0`: every field, random surfaces, through iga64's
/// assembler and disassembler; then random descriptor bits.
#[test]
fn dc0_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-hdc-dc0");
    let mut rng = Rng::new(0x4DC0);
    let msgs: Vec<Dc0> = (0..2_500).map(|_| gen_dc0(&mut rng)).collect();
    let words: Vec<u32> = msgs
        .iter()
        .map(|m| m.encode().unwrap_or_else(|e| panic!("{m:?}: {e}")))
        .collect();
    let decodes = |n: usize, w: u32| assert_eq!(decode_dc0(w), Ok(msgs[n]), "{w:#x}");
    let kinds = generated_against_iga(Sfid::DpDataCache, &words, decodes, &dir, &mut rng);
    // OWord blocks: 4 messages x 6 counts; HWord blocks: 8 read counts,
    // the writes as iga64 names them (its OWord words, the aligned OWord
    // write's, and x0 for 64 and 128); scattered: 2 x (dword + 3 bytes);
    // scratch: 2 x 4 counts; fences: global with no flush, L1 or 4 L3
    // caches, SLM
    assert_eq!(kinds.len(), 24 + 8 + 1 + 8 + 8 + 7, "{kinds:#?}");

    // Random bits: types 0-31 (mostly the typed ones), every control
    // bit, the MBZ and header bits.
    let descs: Vec<u32> = (0..3_000)
        .map(|_| {
            let ty = if rng.chance(4) {
                rng.below(32) as u32
            } else {
                rng.pick(&[0u32, 1, 8, 9, 3, 4, 11, 12, 7, 7, 0x10, 0x18])
            };
            let mut d = (rng.next() as u32 & 0x3FFF) | ty << 14 | 1 << 19;
            match ty {
                0 | 1 | 8 | 9 => d &= !0x3800 | u32::from(rng.chance(2)) << 13,
                3 | 11 => d = d & !0x3C00 | 1 << 9,
                4 | 12 => d &= !0x3200,
                7 => {
                    d &= !0x3FFF;
                    let (any_bti, any_l3) = (rng.below(256) as u32, rng.below(16) as u32);
                    d |= rng.pick(&[0u32, 0xFE, 0xFE, any_bti]);
                    d |= rng.pick(&[0u32, 1, 2, 4, 8, any_l3]) << 9;
                    d |= u32::from(rng.chance(3)) << 8 | u32::from(!rng.chance(8)) << 13;
                }
                _ => {}
            }
            if rng.chance(6) {
                d |= 1 << rng.pick(&[9u32, 11, 12, 13, 14, 15, 16, 29, 30, 31]);
            }
            if rng.chance(12) {
                d &= !(1 << 9);
            }
            if rng.chance(8) {
                d &= !(1 << 19);
            }
            d
        })
        .collect();
    let (same, refused) =
        random_against_iga(Sfid::DpDataCache, &descs, dc0_refusable, &dir, &mut rng);
    eprintln!(
        "gen12.5 hdc dc0: {} messages identical both ways, {} distinct texts; {same} random descriptors read the same as iga64, {refused} refused by us",
        msgs.len(),
        kinds.len()
    );
    assert!(same > 1_200, "only {same} compared");
}

/// `dc0` descriptors we may leave uncommented, by 004's tables: another
/// type; for blocks an OWord count 6-7, the HWord subtype on the unaligned
/// types, MBZ 12:11 and 31:29, no header; for scattered messages bit 31,
/// the reserved bits, the legacy SIMD bit clear (dwords), a byte count
/// code 3; for scratch 31:29, no header, the read's 16 and 14 and the
/// write's 15:14 (its 16 is IGC's); for fences 31:29, commit clear, a surface other than 0
/// and FEh, flush bits on SLM, an L3 flush code other than one cache, L1
/// with L3.
fn dc0_refusable(d: u32) -> bool {
    let ty = (d >> 14) & 0x1F;
    let bit = |b: u32| d & 1 << b != 0;
    let count = (d >> 8) & 7;
    if ty & 0x10 != 0 {
        // A write's bit 16 is IGC's (`Scratch::write_bit16`), not refused.
        let reserved = if bit(17) { 0xC000 } else { 0x14000 };
        return d & 0xE000_0000 != 0 || !bit(19) || d & reserved != 0;
    }
    match ty {
        0 | 8 => count > 5 || d & 0xE000_3800 != 0 || !bit(19),
        1 | 9 => (!bit(13) && count > 5) || d & 0xE000_1800 != 0 || !bit(19),
        3 => bit(31) || d & 0x1C00 != 0 || !bit(9),
        11 => bit(31) || d & 0x3C00 != 0 || !bit(9),
        4 | 12 => bit(31) || d & 0x3200 != 0 || (d >> 10) & 3 == 3,
        7 => {
            let bti = d & 0xFF;
            let l3 = (d >> 9) & 0xF;
            d & 0xE000_0000 != 0
                || !bit(13)
                || (bti != 0 && bti != 0xFE)
                || (bti == 0xFE && d & 0x1F00 != 0)
                || ![0, 1, 2, 4, 8].contains(&l3)
                || (bit(8) && l3 != 0)
        }
        _ => true,
    }
}
