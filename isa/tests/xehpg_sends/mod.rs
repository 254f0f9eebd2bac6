//! Sends of Gen12.5 legacy shared-function messages (HDC, sampler) for the
//! differential tests against `iga64 -p=12p71`: a send carrying a function
//! word, iga64's and our send comments, and the two passes every message
//! family goes through (generated messages both ways; random descriptor
//! bits read the same or refused).

use crate::common::{Rng, iga, iga_assemble};
use baregpu_isa::generation::IsaGen;
use baregpu_isa::inst::*;
use baregpu_isa::text::{DisasmOptions, disassemble_with};
use baregpu_isa::xehpg::{codec, print::print};
use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

const Q: GroupCtrl = GroupCtrl::Quarter { qtr: 0, nib: false };

/// A send to `sfid` carrying the function word `desc` (header in bit
/// 19), random lengths, no second payload.
pub fn send(rng: &mut Rng, sfid: Sfid, desc: u32) -> Instruction {
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
pub fn iga_comments(bytes: &[u8], dir: &Path) -> Vec<String> {
    let bin = dir.join("sends.bin");
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
pub fn our_comments(bytes: &[u8]) -> Vec<Option<String>> {
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

/// The function word (with the header in bit 19) of a send.
pub fn function_word(inst: &Instruction) -> u32 {
    let Body::Send(s) = &inst.body else {
        unreachable!()
    };
    let SendDesc::Imm { desc, .. } = s.desc else {
        unreachable!()
    };
    desc.function | u32::from(desc.header) << 19
}

/// Generated messages, encoded by us as `words`, sent to `sfid`: iga64
/// assembles our printed sends to our bits, `decodes` gives every word
/// back (checked by the caller's closure), and iga64's comment equals
/// ours. Returns the distinct message texts (iga64's words between the
/// lengths and any `; u,v` after them).
pub fn generated_against_iga(
    sfid: Sfid,
    words: &[u32],
    decodes: impl Fn(usize, u32),
    dir: &Path,
    rng: &mut Rng,
) -> BTreeSet<String> {
    let insts: Vec<Instruction> = words.iter().map(|&d| send(rng, sfid, d)).collect();
    let lines: Vec<String> = insts.iter().map(|i| print(i, None)).collect();
    let (kept, bytes, rejected) = iga_assemble("12p71", &lines, dir);
    assert!(rejected.is_empty(), "iga64 rejected: {rejected:#?}");
    assert_eq!(kept.len(), words.len());
    let theirs = iga_comments(&bytes, dir);
    let ours = our_comments(&bytes);
    assert_eq!(theirs.len(), words.len());
    let mut kinds = BTreeSet::new();
    for (n, inst) in insts.iter().enumerate() {
        let word = baregpu_isa::codec::to_dwords(codec::encode(inst).unwrap());
        let got: Vec<u32> = bytes[16 * n..16 * n + 16]
            .chunks(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        assert_eq!(word.to_vec(), got, "bits of `{}`", lines[n]);
        decodes(n, function_word(inst));
        let ours = ours[n]
            .as_deref()
            .unwrap_or_else(|| panic!("`{}` uncommented", lines[n]));
        assert_eq!(ours, theirs[n], "comment of `{}`", lines[n]);
        // The message text, without the lengths before it or the typed
        // messages' address coordinates after it.
        kinds.insert(theirs[n].split("; ").nth(1).unwrap().trim_end().to_string());
    }
    kinds
}

/// Random descriptor bits sent to `sfid`: where we comment, iga64 comments
/// the same; where we do not, `refusable` (the manual's reserved codes and
/// bits) must say so. Returns (identical, refused).
pub fn random_against_iga(
    sfid: Sfid,
    descs: &[u32],
    refusable: impl Fn(u32) -> bool,
    dir: &Path,
    rng: &mut Rng,
) -> (usize, usize) {
    let insts: Vec<Instruction> = descs.iter().map(|&d| send(rng, sfid, d)).collect();
    let bytes: Vec<u8> = insts
        .iter()
        .flat_map(|i| codec::encode(i).unwrap().to_le_bytes())
        .collect();
    let theirs = iga_comments(&bytes, dir);
    let ours = our_comments(&bytes);
    assert_eq!(theirs.len(), descs.len());
    let (mut same, mut refused) = (0, 0);
    for ((i, &d), (o, t)) in insts.iter().zip(descs).zip(ours.iter().zip(&theirs)) {
        match o {
            Some(o) => {
                assert_eq!(o, t, "{d:#x}: `{}`", print(i, None));
                same += 1;
            }
            None => {
                assert!(refusable(d), "{d:#x} uncommented: `{}`", print(i, None));
                refused += 1;
            }
        }
    }
    (same, refused)
}
