//! Differential test of the Gen12.5 legacy data-port messages on `dc1`
//! (`baregpu_isa::message::xe_hdc`) against `iga64 -p=12p71`. Generated
//! messages (untyped surface read and write, binding table and A64, A64
//! scattered byte/dword/qword read and write, every field) are encoded by
//! us into sends and printed by us: iga64 assembles the text to our bits,
//! and its send comment equals the one `baregpu disasm --gen dg2` writes.
//! A second pass throws random descriptor bits (every message type, the
//! MBZ and reserved bits) at both: where we comment, iga64 comments the
//! same; where we do not, the descriptor has an untyped message type, a
//! reserved code or a bit no field owns. The OWord block messages on
//! `dc0` go through the same two passes.

mod common;

use baregpu_isa::generation::IsaGen;
use baregpu_isa::inst::*;
use baregpu_isa::message::xe_hdc::*;
use baregpu_isa::text::{DisasmOptions, disassemble_with};
use baregpu_isa::xehpg::{codec, print::print};
use common::{Rng, ensure_oracles, iga, iga_assemble, scratch};
use std::fs;

const OWORD_COUNTS: [OwordCount; 6] = [
    OwordCount::OneLow,
    OwordCount::OneHigh,
    OwordCount::Two,
    OwordCount::Four,
    OwordCount::Eight,
    OwordCount::Sixteen,
];

const Q: GroupCtrl = GroupCtrl::Quarter { qtr: 0, nib: false };

fn gen_msg(rng: &mut Rng) -> Dc1 {
    let bti = if rng.chance(3) {
        253
    } else {
        rng.below(256) as u8
    };
    if rng.chance(8) {
        let a64 = rng.chance(2);
        return Dc1::FloatAtomic(FloatAtomic {
            a64,
            bti,
            op: 1 + rng.below(7) as u8,
            wide: rng.chance(2),
            simd_bit: rng.chance(2),
            returns: rng.chance(2),
            header: !a64 && rng.chance(3),
            packed_address: !a64 && rng.chance(4),
            packed_data: !a64 && rng.chance(4),
        });
    }
    if rng.chance(8) {
        let write = rng.chance(2);
        return Dc1::A64Block(A64Block {
            write,
            aligned: rng.chance(2),
            bti,
            count: rng.pick(&OWORD_COUNTS),
            invalidate_after_read: !write && rng.chance(3),
        });
    }
    if rng.chance(8) {
        return Dc1::MediaBlock(MediaBlock {
            write: rng.chance(2),
            bti,
            vlso: rng.below(8) as u8,
        });
    }
    if rng.chance(4) {
        let a64 = rng.chance(2);
        return Dc1::Atomic(UntypedAtomic {
            a64,
            bti,
            op: rng.below(16) as u8,
            bit12: rng.chance(2),
            returns: rng.chance(2),
            header: !a64 && rng.chance(3),
            packed_address: !a64 && rng.chance(4),
            packed_data: !a64 && rng.chance(4),
        });
    }
    if rng.chance(2) {
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
            header: !a64 && rng.chance(3),
            packed_address: !a64 && rng.chance(4),
            packed_data: !a64 && rng.chance(4),
        })
    } else {
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

/// A send to `sfid` carrying the function word `desc` (header in bit
/// 19), random lengths, no second payload.
fn send(rng: &mut Rng, sfid: Sfid, desc: u32) -> Instruction {
    let mut i = Instruction::new(
        Opcode::Send,
        rng.pick(&[8, 16]),
        Q,
        Body::Alu(Alu {
            dst: Dst {
                file: RegFile::Arf,
                ty: Type::Ud,
                addr: Addr::Direct { nr: 0, subnr: 0 },
                hstride: 1,
                writemask: WRITEMASK_XYZW,
            },
            src0: codec::ABSENT,
            src1: codec::ABSENT,
        }),
    );
    i.swsb = Some(Swsb::Token {
        mode: TokenMode::Set,
        sbid: rng.below(16) as u8,
    });
    let rlen = rng.below(9) as u32;
    let dst = if rlen == 0 {
        codec::send_reg(RegFile::Arf, 0)
    } else {
        codec::send_reg(RegFile::Grf, 10 + rng.below(50) as u8)
    };
    let word = desc | (1 + rng.below(8) as u32) << 25 | rlen << 20;
    i.body = Body::Send(Send {
        dst: Dst {
            file: dst.file,
            ty: Type::Ud,
            addr: dst.addr,
            hstride: 1,
            writemask: WRITEMASK_XYZW,
        },
        src0: Src::Reg(codec::send_reg(RegFile::Grf, 60 + rng.below(10) as u8)),
        desc: SendDesc::Imm {
            ty: Type::Ud,
            desc: codec::msg_desc(word),
        },
        sfid: Some(sfid),
        base_mrf: None,
        eot: false,
        src1: Some(Src::Reg(codec::send_reg(RegFile::Arf, 0))),
        ex_desc: Some(ExDesc::Imm(0)),
    });
    i
}

/// iga64's comment per send of `bytes`.
fn iga_comments(bytes: &[u8], dir: &std::path::Path) -> Vec<String> {
    let bin = dir.join("hdc.bin");
    fs::write(&bin, bytes).unwrap();
    let r = iga(&["-p=12p71", "-d", bin.to_str().unwrap()]);
    assert!(
        r.status.success(),
        "iga64 -d: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    String::from_utf8_lossy(&r.stdout)
        .lines()
        .filter(|l| l.contains("send"))
        .map(|l| l.split_once("//").map_or("", |(_, c)| c.trim()).to_string())
        .collect()
}

/// Our disassembly's comment per instruction of `bytes` (None: none).
fn our_comments(bytes: &[u8]) -> Vec<Option<String>> {
    let text = disassemble_with(
        IsaGen::Gen12_5,
        bytes,
        DisasmOptions {
            offsets: false,
            labels: false,
            messages: true,
        },
    )
    .unwrap();
    text.lines()
        .map(|l| l.split_once("// ").map(|(_, c)| c.trim_end().to_string()))
        .collect()
}

fn function_word(inst: &Instruction) -> u32 {
    let Body::Send(s) = &inst.body else {
        unreachable!()
    };
    let SendDesc::Imm { desc, .. } = s.desc else {
        unreachable!()
    };
    desc.function | u32::from(desc.header) << 19
}

#[test]
fn hdc_messages_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-hdc-iga");
    let mut rng = Rng::new(0x4DC1);
    let msgs: Vec<Dc1> = (0..3_000).map(|_| gen_msg(&mut rng)).collect();
    let insts: Vec<Instruction> = msgs
        .iter()
        .map(|m| {
            let d = m.encode().unwrap_or_else(|e| panic!("{m:?}: {e}"));
            send(&mut rng, Sfid::DpDataCache1, d)
        })
        .collect();
    let lines: Vec<String> = insts.iter().map(|i| print(i, None)).collect();
    let (kept, bytes, rejected) = iga_assemble("12p71", &lines, &dir);
    assert!(rejected.is_empty(), "iga64 rejected: {rejected:#?}");
    let theirs = iga_comments(&bytes, &dir);
    let ours = our_comments(&bytes);
    assert_eq!(theirs.len(), kept.len());
    let mut kinds = std::collections::BTreeSet::new();
    for (n, &k) in kept.iter().enumerate() {
        let word = baregpu_isa::codec::to_dwords(codec::encode(&insts[k]).unwrap());
        let got: Vec<u32> = bytes[16 * n..16 * n + 16]
            .chunks(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        assert_eq!(word.to_vec(), got, "bits of `{}`", lines[k]);
        assert_eq!(decode_dc1(function_word(&insts[k])), Ok(msgs[k]));
        let ours = ours[n]
            .as_deref()
            .unwrap_or_else(|| panic!("`{}` uncommented", lines[k]));
        assert_eq!(ours, theirs[n], "comment of `{}`", lines[k]);
        kinds.insert(theirs[n].split_once("; ").unwrap().1.to_string());
    }
    eprintln!(
        "gen12.5 hdc: {} generated dc1 messages identical both ways, {} distinct texts",
        kept.len(),
        kinds.len()
    );
    assert_eq!(kept.len(), msgs.len());
    // 4 untyped kinds x 16 masks, scattered: 2 x (byte 4 + dword + qword),
    // atomics: 16 ops x (int32, a64 int32, a64 int64); media block: 2 x
    // iga64's 5 texts; A64 blocks: 2 x 2 subtypes x 6 counts; float
    // atomics: 2 x 7 ops x return
    assert_eq!(
        kinds.len(),
        4 * 16 + 2 * 6 + 3 * 16 + 2 * 5 + 2 * 2 * 6 + 2 * 7 * 2,
        "{kinds:#?}"
    );
}

/// Descriptors we may leave uncommented, by the manual: a message type
/// not typed here, SIMD mode 3 (untyped surface), subtype 3 (scattered),
/// bit 31,
/// and for the A64 messages the header and bits 30:29, for the scattered
/// write bit 13.
fn refusable(d: u32) -> bool {
    let ty = (d >> 14) & 0x1F;
    let a64 = ty & 0x10 != 0;
    let a64_stray = a64 && d & 0x6008_0000 != 0;
    d & 1 << 31 != 0
        || match ty {
            0x01 | 0x09 | 0x11 | 0x19 => (d >> 12) & 3 == 3 || a64_stray,
            0x02 | 0x12 => a64_stray,
            0x1B | 0x1D => a64_stray || (d >> 8) & 7 == 0,
            0x04 | 0x0A => d & 0xE000_3800 != 0 || d & 1 << 19 == 0,
            0x14 | 0x15 => {
                d & 0xE000_0000 != 0
                    || d & 1 << 19 == 0
                    || (d >> 11) & 3 > 1
                    || (d >> 8) & 7 > 5
                    || (ty == 0x15 && d & 1 << 13 != 0)
            }
            0x10 => (d >> 8) & 3 == 3 || a64_stray,
            0x1A => (d >> 8) & 3 == 3 || a64_stray || d & 1 << 13 != 0,
            _ => true,
        }
}

#[test]
fn hdc_random_descriptors_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-hdc-raw");
    let mut rng = Rng::new(0x4DC2);
    let descs: Vec<u32> = (0..3_000)
        .map(|_| {
            let ty = if rng.chance(4) {
                rng.below(32) as u32
            } else {
                rng.pick(&[
                    0x01u32, 0x02, 0x04, 0x09, 0x0A, 0x10, 0x11, 0x12, 0x19, 0x1A,
                ])
            };
            let mut d = (rng.next() as u32 & 0x3FFF) | ty << 14;
            if rng.chance(8) {
                d |= 1 << 19;
            }
            if rng.chance(8) {
                d |= 1 << rng.pick(&[29u32, 30, 31]);
            }
            d
        })
        .collect();
    let insts: Vec<Instruction> = descs
        .iter()
        .map(|&d| send(&mut rng, Sfid::DpDataCache1, d))
        .collect();
    let bytes: Vec<u8> = insts
        .iter()
        .flat_map(|i| codec::encode(i).unwrap().to_le_bytes())
        .collect();
    let theirs = iga_comments(&bytes, &dir);
    let ours = our_comments(&bytes);
    assert_eq!(theirs.len(), descs.len());
    let (mut same, mut refused) = (0, 0);
    for ((i, d), (o, t)) in insts.iter().zip(&descs).zip(ours.iter().zip(&theirs)) {
        match o {
            Some(o) => {
                assert_eq!(o, t, "{d:#x}: `{}`", print(i, None));
                same += 1;
            }
            None => {
                assert!(refusable(*d), "{d:#x} uncommented: `{}`", print(i, None));
                refused += 1;
            }
        }
    }
    eprintln!(
        "gen12.5 hdc: {same} random dc1 descriptors read the same as iga64, {refused} refused by us"
    );
    assert!(same > 1_200, "only {same} compared");
}

/// OWord block reads (plain and aligned) and writes, dword and byte
/// scattered reads and writes on `dc0`: every field, random surfaces,
/// through iga64's assembler and disassembler.
#[test]
fn dc0_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-hdc-owb");
    let mut rng = Rng::new(0x4DC0);
    let counts = OWORD_COUNTS;
    let msgs: Vec<Dc0> = (0..1_200)
        .map(|_| {
            let write = rng.chance(3);
            if rng.chance(2) {
                let dword = rng.chance(2);
                return Dc0::Scattered(Scattered {
                    write,
                    dword,
                    bti: rng.below(256) as u8,
                    bytes: if dword { 1 } else { rng.pick(&[1, 2, 4]) },
                    simd16: rng.chance(2),
                    invalidate_after_read: dword && !write && rng.chance(3),
                    header: rng.chance(3),
                    packed_address: rng.chance(4),
                    packed_data: rng.chance(4),
                });
            }
            Dc0::Block(OwordBlock {
                write,
                aligned: !write && rng.chance(2),
                bti: rng.below(256) as u8,
                count: rng.pick(&counts),
            })
        })
        .collect();
    let insts: Vec<Instruction> = msgs
        .iter()
        .map(|m| send(&mut rng, Sfid::DpDataCache, m.encode().unwrap()))
        .collect();
    let lines: Vec<String> = insts.iter().map(|i| print(i, None)).collect();
    let (kept, bytes, rejected) = iga_assemble("12p71", &lines, &dir);
    assert!(rejected.is_empty(), "iga64 rejected: {rejected:#?}");
    assert_eq!(kept.len(), msgs.len());
    let theirs = iga_comments(&bytes, &dir);
    let ours = our_comments(&bytes);
    let mut kinds = std::collections::BTreeSet::new();
    for (n, m) in msgs.iter().enumerate() {
        let word = baregpu_isa::codec::to_dwords(codec::encode(&insts[n]).unwrap());
        let got: Vec<u32> = bytes[16 * n..16 * n + 16]
            .chunks(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        assert_eq!(word.to_vec(), got, "bits of `{}`", lines[n]);
        assert_eq!(decode_dc0(function_word(&insts[n])), Ok(*m));
        assert_eq!(
            ours[n].as_deref(),
            Some(theirs[n].as_str()),
            "`{}`",
            lines[n]
        );
        kinds.insert(theirs[n].split_once("; ").unwrap().1.to_string());
    }
    // blocks: 3 messages x 6 counts; scattered: 2 x (dword + 3 bytes)
    assert_eq!(kinds.len(), 18 + 8, "{kinds:#?}");

    // Random bits: types 0-31 (mostly the typed ones), every control
    // bit, the MBZ and header bits.
    let descs: Vec<u32> = (0..1_500)
        .map(|_| {
            let ty = if rng.chance(4) {
                rng.below(32) as u32
            } else {
                rng.pick(&[0u32, 1, 8, 3, 4, 11, 12])
            };
            let mut d = (rng.next() as u32 & 0x7FF) | ty << 14 | 1 << 19;
            if [3, 11].contains(&ty) {
                d = d & !0x1C00 | 1 << 9;
            }
            if rng.chance(6) {
                d |= 1 << rng.pick(&[9u32, 11, 12, 13, 29, 30, 31]);
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
    let insts: Vec<Instruction> = descs
        .iter()
        .map(|&d| send(&mut rng, Sfid::DpDataCache, d))
        .collect();
    let bytes: Vec<u8> = insts
        .iter()
        .flat_map(|i| codec::encode(i).unwrap().to_le_bytes())
        .collect();
    let theirs = iga_comments(&bytes, &dir);
    let ours = our_comments(&bytes);
    let (mut same, mut refused) = (0, 0);
    for ((i, &d), (o, t)) in insts.iter().zip(&descs).zip(ours.iter().zip(&theirs)) {
        match o {
            Some(o) => {
                assert_eq!(o, t, "{d:#x}: `{}`", print(i, None));
                same += 1;
            }
            None => {
                assert!(dc0_refusable(d), "{d:#x} uncommented: `{}`", print(i, None));
                refused += 1;
            }
        }
    }
    eprintln!(
        "gen12.5 hdc dc0: {} block and scattered messages identical both ways; {same} random descriptors read the same as iga64, {refused} refused by us",
        msgs.len()
    );
    assert!(same > 500, "only {same} compared");
}

/// `dc0` descriptors we may leave uncommented, by the manual: another
/// type; for blocks a count 6-7, the HWord subtype, MBZ 12:11 and 31:29,
/// no header; for scattered messages bit 31, the reserved bits, the
/// legacy SIMD bit clear (dwords), a byte count code 3.
fn dc0_refusable(d: u32) -> bool {
    let ty = (d >> 14) & 0x1F;
    let bit = |b: u32| d & 1 << b != 0;
    match ty {
        0 | 1 | 8 => (d >> 8) & 7 > 5 || d & 0xE000_3800 != 0 || !bit(19),
        3 => bit(31) || d & 0x1C00 != 0 || !bit(9),
        11 => bit(31) || d & 0x3C00 != 0 || !bit(9),
        4 | 12 => bit(31) || d & 0x3200 != 0 || (d >> 10) & 3 == 3,
        _ => true,
    }
}
