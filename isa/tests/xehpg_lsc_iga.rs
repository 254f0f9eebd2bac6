//! Differential test of the Gen12.5 LSC message descriptors
//! (`baregpu_isa::message::lsc`) against `iga64 -p=12p71`: generated
//! messages over the whole field space (every operation and SFID, address
//! sizes and types, data sizes, vector lengths with and without transpose,
//! channel masks, cache controls, immediate and a0 surfaces, fences) are
//! encoded by us into sends and printed by us. iga64 assembles our text:
//! the bits must equal ours. iga64 disassembles them: its send comment
//! (`wr:M+N, rd:R; symbol`) must equal the one `baregpu disasm` writes, and
//! its symbol must parse back (ours) to the message we encoded, and its
//! `-Xprint-ldst` form (`load.ugm.d32x4.a64 (16|M0) r10:8 [r20:4]`) must
//! assemble (ours) to its bits. A second
//! pass throws random descriptor bits at both: what we decode must read
//! the same in iga64, and what we refuse is counted. Gateway and URB sends
//! go through our disassembler, whose comments must equal iga64's.

mod common;

use baregpu_isa::inst::*;
use baregpu_isa::message::lsc::{self, *};
use baregpu_isa::xehpg::{codec, parse::parse, print::print};
use common::{Rng, ensure_oracles, iga, iga_assemble, scratch};
use std::fs;

const Q: GroupCtrl = GroupCtrl::Quarter { qtr: 0, nib: false };
const SFIDS: [Sfid; 4] = [Sfid::Ugm, Sfid::Ugml, Sfid::Slm, Sfid::Tgm];

fn gen_msg(rng: &mut Rng) -> LscMsg {
    let sfid = rng.pick(&SFIDS);
    if rng.chance(12) {
        let f = Fence {
            scope: rng.pick(&[
                FenceScope::Group,
                FenceScope::Local,
                FenceScope::Tile,
                FenceScope::Gpu,
                FenceScope::Gpus,
                FenceScope::SystemRelease,
                FenceScope::SystemAcquire,
            ]),
            flush: rng.pick(&[
                FlushType::None,
                FlushType::Evict,
                FlushType::Invalidate,
                FlushType::Discard,
                FlushType::Clean,
                FlushType::L3Only,
            ]),
            flush_range: rng.chance(3),
            route_to_lsc: rng.chance(3),
        };
        return LscMsg {
            sfid,
            kind: LscKind::Fence(f),
        };
    }
    let op = rng.pick(&LscOp::ALL);
    let shape = if op.has_cmask() {
        Shape::Cmask(1 + rng.below(15) as u8)
    } else {
        Shape::Vector {
            len: rng.pick(&VECTOR_LENGTHS),
            transpose: rng.chance(3),
        }
    };
    // iga64 refuses a0.8 and above for the extended descriptor.
    let a0 = |rng: &mut Rng| rng.below(8) as u8;
    let surface = match rng.below(4) {
        0 => Surface::Flat,
        k @ (1 | 2) => {
            let r = if rng.chance(3) {
                SurfRef::A0(a0(rng))
            } else {
                SurfRef::Offset((rng.next() as u32) & 0xFFFF_F800)
            };
            if k == 1 {
                Surface::Bss(r)
            } else {
                Surface::Ss(r)
            }
        }
        _ => Surface::Bti(if rng.chance(3) {
            BtiRef::A0(a0(rng))
        } else {
            BtiRef::Index(rng.below(256) as u8)
        }),
    };
    LscMsg {
        sfid,
        kind: LscKind::Access(Access {
            op,
            addr_size: rng.pick(&AddrSize::ALL),
            data: rng.pick(&DataSize::ALL),
            shape,
            cache: CacheCtl(if sfid == Sfid::Slm {
                0
            } else {
                rng.below(8) as u8
            }),
            surface,
        }),
    }
}

/// A send carrying `desc`/`ex` to `sfid`, with random lengths.
fn send(rng: &mut Rng, sfid: Sfid, desc: u32, ex: LscExDesc, simd1: bool) -> (Instruction, u8) {
    let len1 = rng.below(4) as u8;
    let mut i = Instruction::new(
        Opcode::Send,
        if simd1 { 1 } else { rng.pick(&[8, 16]) },
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
    let src1 = if len1 == 0 {
        codec::send_reg(RegFile::Arf, 0)
    } else {
        codec::send_reg(RegFile::Grf, 70 + rng.below(40) as u8)
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
        src1: Some(Src::Reg(src1)),
        ex_desc: Some(match ex {
            LscExDesc::Imm(v) => ExDesc::Imm(v | u32::from(len1) << 6),
            // iga64 -p=12p71 writes every a0 extended descriptor as ExBSO.
            LscExDesc::A0(n) => ExDesc::Reg {
                subnr: n,
                src1_len: Some(len1),
            },
        }),
    });
    (i, len1)
}

/// iga64's comment per instruction: `wr:M+N, rd:R; symbol`, without the
/// payload notes it adds after a further `;` (TGM's `; u`).
fn iga_comments(bytes: &[u8], dir: &std::path::Path) -> Vec<String> {
    iga_full_comments(bytes, dir)
        .into_iter()
        .map(|c| {
            let mut parts = c.splitn(3, "; ");
            let head = parts.next().unwrap_or("");
            let sym = parts.next().unwrap_or("");
            format!("{head}; {sym}")
        })
        .collect()
}

/// iga64's whole comment per instruction.
fn iga_full_comments(bytes: &[u8], dir: &std::path::Path) -> Vec<String> {
    let bin = dir.join("lsc.bin");
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

/// iga64's `-Xprint-ldst` lines, one per instruction, comments dropped.
fn iga_ldst(dir: &std::path::Path) -> Vec<String> {
    let bin = dir.join("lsc.bin");
    let r = iga(&["-p=12p71", "-d", "-Xprint-ldst", bin.to_str().unwrap()]);
    assert!(
        r.status.success(),
        "iga64 -d: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    String::from_utf8_lossy(&r.stdout)
        .lines()
        .map(|l| l.split("//").next().unwrap_or("").trim().to_string())
        .filter(|l| !(l.is_empty() || l.ends_with(':')))
        .collect()
}

struct Case {
    inst: Instruction,
    msg: Option<LscMsg>,
    len1: u8,
}

/// Assembles the cases' text with iga64 (bits must equal ours) and
/// disassembles (comments must equal ours; its load/store lines must read
/// back to its bits). Returns (compared, refused by us, rejected by iga64,
/// load/store lines read).
fn run(cases: &[Case], dir: &std::path::Path) -> (usize, usize, Vec<String>, usize) {
    let lines: Vec<String> = cases.iter().map(|c| print(&c.inst, None)).collect();
    let (kept, bytes, rejected) = iga_assemble("12p71", &lines, dir);
    let comments = iga_comments(&bytes, dir);
    assert_eq!(comments.len(), kept.len(), "one comment per send");
    let ldst = iga_ldst(dir);
    assert_eq!(ldst.len(), kept.len(), "one ldst line per send");
    let mut compared = 0;
    let mut refused = 0;
    let mut ldst_read = 0;
    for (n, &k) in kept.iter().enumerate() {
        let c = &cases[k];
        let ours = baregpu_isa::codec::to_dwords(codec::encode(&c.inst).unwrap());
        let theirs: Vec<u32> = bytes[16 * n..16 * n + 16]
            .chunks(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        assert_eq!(ours.to_vec(), theirs, "bits of `{}`", lines[k]);
        let Body::Send(s) = &c.inst.body else {
            unreachable!()
        };
        let (decoded, _) = lsc::of_send(s).expect("an LSC send");
        let Ok(msg) = decoded else {
            refused += 1;
            continue;
        };
        // iga64's load/store form of what we decode reads back (ours) to
        // iga64's bits, except
        // where that form drops a field: a store's response, a load's
        // second payload.
        let SendDesc::Imm { desc: d, .. } = s.desc else {
            unreachable!()
        };
        let lossy = (ldst[n].starts_with("store") && d.rlen != 0)
            || (ldst[n].starts_with("load") && c.len1 != 0);
        if !ldst[n].starts_with("send") && !lossy {
            let inst = parse(&ldst[n], 0).unwrap_or_else(|e| panic!("`{}`: {e}", ldst[n]));
            let bits = baregpu_isa::codec::to_dwords(codec::encode(&inst).unwrap());
            assert_eq!(
                bits.to_vec(),
                theirs,
                "our reading of iga64's `{}`",
                ldst[n]
            );
            ldst_read += 1;
        }
        if let Some(m) = c.msg {
            assert_eq!(msg, m, "decode of `{}`", lines[k]);
        }
        let SendDesc::Imm { desc, .. } = s.desc else {
            unreachable!()
        };
        // iga64 prints nothing for the fence bits 15 and 18; our symbol
        // adds words for them, so compare without those words.
        let mut want = lsc::comment(&msg, desc.mlen, c.len1, desc.rlen);
        if let LscKind::Fence(f) = msg.kind {
            let plain = LscMsg {
                kind: LscKind::Fence(Fence {
                    flush_range: false,
                    route_to_lsc: false,
                    ..f
                }),
                ..msg
            };
            want = lsc::comment(&plain, desc.mlen, c.len1, desc.rlen);
        }
        assert_eq!(comments[n], want, "comment of `{}`", lines[k]);
        // iga64's symbol reads back (with our parser) to the message.
        let sym = comments[n].split_once("; ").unwrap().1;
        let back = lsc::parse(sym).unwrap_or_else(|e| panic!("`{sym}`: {e}"));
        if !matches!(msg.kind, LscKind::Fence(_)) {
            assert_eq!(back, msg, "parse of iga64's `{sym}`");
        }
        compared += 1;
    }
    (compared, refused, rejected, ldst_read)
}

#[test]
fn lsc_descriptors_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-lsc-iga");
    let mut rng = Rng::new(0x15C);
    let mut compared = 0;
    let mut ldst = 0;
    let mut rej_all = Vec::new();
    let mut ops = std::collections::BTreeSet::new();
    for _ in 0..5 {
        let cases: Vec<Case> = (0..2_000)
            .map(|_| {
                let m = gen_msg(&mut rng);
                let (desc, ex) = lsc::encode(&m).unwrap_or_else(|e| panic!("{m}: {e}"));
                let simd1 = match m.kind {
                    LscKind::Fence(_) => true,
                    LscKind::Access(a) => {
                        matches!(
                            a.shape,
                            Shape::Vector {
                                transpose: true,
                                ..
                            }
                        )
                    }
                };
                let (inst, len1) = send(&mut rng, m.sfid, desc, ex, simd1);
                Case {
                    inst,
                    msg: Some(m),
                    len1,
                }
            })
            .collect();
        let (c, refused, r, l) = run(&cases, &dir);
        ldst += l;
        assert_eq!(refused, 0, "generated messages decode");
        compared += c;
        rej_all.extend(r);
        for c in &cases {
            if let Some(m) = c.msg {
                ops.insert(match m.kind {
                    LscKind::Fence(_) => "fence",
                    LscKind::Access(a) => a.op.name(),
                });
            }
        }
    }
    if std::env::var_os("LSC_SHOW").is_some() {
        eprintln!("{rej_all:#?}");
    }
    eprintln!(
        "gen12.5 lsc: {compared} typed messages identical both ways, {} rejected by iga64",
        rej_all.len()
    );
    assert_eq!(ops.len(), 24, "every operation and the fence generated");
    eprintln!("gen12.5 lsc: {ldst} lines of iga64's load/store syntax read to iga64's bits");
    assert!(ldst >= 5_000, "only {ldst} load/store lines read");
    assert!(compared >= 9_500, "only {compared} compared");
}

/// Random descriptor bits (opcodes 0-31, every field code, the MBZ bits,
/// random extended descriptors): where we decode, iga64 must print the
/// same symbol.
#[test]
fn lsc_random_descriptors_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-lsc-raw");
    let mut rng = Rng::new(0x15D);
    let (mut compared, mut refused) = (0, 0);
    for _ in 0..8 {
        let cases: Vec<Case> = (0..2_000)
            .map(|_| {
                let sfid = rng.pick(&SFIDS);
                let op = rng.pick(&[0u32, 2, 4, 6, 8, 12, 18, 23, 26, 31, 31]);
                let mut desc = op | (rng.next() as u32 & 0x600F_FF80);
                if rng.chance(6) {
                    desc |= 1 << rng.pick(&[6u32, 16, 31]);
                }
                let ex = match rng.below(3) {
                    0 => LscExDesc::Imm(0),
                    1 => LscExDesc::Imm(rng.next() as u32 & 0xFFFF_F800),
                    _ => LscExDesc::Imm((rng.below(256) as u32) << 24),
                };
                let simd1 = desc & 1 << 15 != 0 || op == 31;
                let (inst, len1) = send(&mut rng, sfid, desc, ex, simd1);
                Case {
                    inst,
                    msg: None,
                    len1,
                }
            })
            .collect();
        let (c, r, _, _) = run(&cases, &dir);
        compared += c;
        refused += r;
    }
    eprintln!(
        "gen12.5 lsc: {compared} random descriptors read the same as iga64, {refused} refused by us (reserved codes or bits)"
    );
    assert!(compared >= 1_800, "only {compared} compared");
}

/// Sends of a legacy function through our encoder and disassembler:
/// where `disasm` comments one, iga64's comment is the same; `refusable`
/// says which descriptors we may leave uncommented (undefined codes,
/// reserved bits). Returns (identical, uncommented).
fn legacy_comments(
    sfid: Sfid,
    descs: &[u32],
    refusable: impl Fn(u32) -> bool,
    dir: &std::path::Path,
    rng: &mut Rng,
) -> (usize, usize) {
    let mut bytes = Vec::new();
    for &d in descs {
        let (mut inst, _) = send(rng, sfid, d, LscExDesc::Imm(0), sfid == Sfid::Gateway);
        if let Body::Send(s) = &mut inst.body {
            s.eot = sfid == Sfid::Gateway && d & 7 == 0 && rng.chance(2);
            s.src1 = Some(Src::Reg(codec::send_reg(RegFile::Arf, 0)));
            s.ex_desc = Some(ExDesc::Imm(0));
        }
        bytes.extend_from_slice(&codec::encode(&inst).unwrap().to_le_bytes());
    }
    let ours = baregpu_isa::text::disassemble_with(
        baregpu_isa::generation::IsaGen::Gen12_5,
        &bytes,
        baregpu_isa::text::DisasmOptions {
            offsets: false,
            labels: false,
            messages: true,
        },
    )
    .unwrap();
    let theirs = iga_full_comments(&bytes, dir);
    assert_eq!(theirs.len(), descs.len());
    let (mut same, mut refused) = (0, 0);
    for ((line, theirs), d) in ours.lines().zip(&theirs).zip(descs) {
        match line.split_once("// ") {
            Some((_, c)) => {
                assert_eq!(c, theirs, "{line}");
                same += 1;
            }
            None => {
                assert!(refusable(*d), "{line} uncommented");
                refused += 1;
            }
        }
    }
    (same, refused)
}

/// Gateway sends: every subfunction, now and then a reserved bit.
#[test]
fn gateway_comments_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-gw-iga");
    let mut rng = Rng::new(0x6A7E);
    let descs: Vec<u32> = (0..400)
        .map(|_| {
            let mut d = rng.below(8) as u32;
            if rng.chance(5) {
                d |= 1 << rng.pick(&[3u32, 4, 12, 15, 16, 18, 29, 31]);
            }
            d
        })
        .collect();
    let refusable = |d: u32| d & 7 == 5 || d & 7 == 7 || d & !7 != 0;
    let (same, refused) = legacy_comments(Sfid::Gateway, &descs, refusable, &dir, &mut rng);
    eprintln!("gen12.5 gateway: {same} comments identical to iga64's, {refused} left uncommented");
    assert!(same > 200, "only {same} compared");
}

/// URB sends: opcodes 4-10, random offsets, mask, per-slot and header
/// bits, now and then a reserved bit.
#[test]
fn urb_comments_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-urb-iga");
    let mut rng = Rng::new(0x0E7B);
    let descs: Vec<u32> = (0..400)
        .map(|_| {
            let op = rng.pick(&[4u32, 6, 7, 7, 7, 8, 8, 9, 10]);
            let mut d = op;
            if op != 9 || rng.chance(4) {
                d |= (rng.next() as u32) & 0xA_FFF0;
            }
            if rng.chance(6) {
                d |= 1 << rng.pick(&[16u32, 18, 29]);
            }
            d
        })
        .collect();
    let refusable = |d: u32| {
        !(7..=9).contains(&(d & 0xF)) || d & 0x2005_0000 != 0 || (d & 0xF == 9 && d & !0xF != 0)
    };
    let (same, refused) = legacy_comments(Sfid::Urb, &descs, refusable, &dir, &mut rng);
    eprintln!("gen12.5 urb: {same} comments identical to iga64's, {refused} left uncommented");
    assert!(same > 200, "only {same} compared");
}

/// Render target writes and reads: every subtype, surface and flag, now
/// and then another render-cache message type or a reserved bit.
#[test]
fn render_target_comments_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-rt-iga");
    let mut rng = Rng::new(0x4713);
    let descs: Vec<u32> = (0..600)
        .map(|_| {
            let ty = match rng.below(8) {
                0 => rng.below(16) as u32,
                1 | 2 => 0xD,
                _ => 0xC,
            };
            let mut d = (rng.next() as u32) & 0x4008_3FFF | ty << 14;
            d &= !(0x7 << 8);
            let subtypes = if rng.chance(8) { 8 } else { 5 };
            d |= (rng.below(subtypes) as u32) << 8;
            if ty == 0xD && !rng.chance(4) {
                d &= !0xA004_1600;
            }
            if rng.chance(8) {
                d |= 1 << rng.pick(&[29u32, 31]);
            }
            d
        })
        .collect();
    let refusable = |d: u32| match (d >> 14) & 0xF {
        0xC => (d >> 8) & 7 > 4 || d & 0xA000_0000 != 0,
        0xD => d & 0xA004_1600 != 0,
        _ => true,
    };
    // Every read we do not refuse must have been commented like iga64.
    let reads = descs
        .iter()
        .filter(|&&d| (d >> 14) & 0xF == 0xD && !refusable(d))
        .count();
    assert!(reads > 80, "only {reads} reads");
    let (same, refused) = legacy_comments(Sfid::DpRenderCache, &descs, refusable, &dir, &mut rng);
    eprintln!(
        "gen12.5 render target: {same} comments identical to iga64's ({reads} reads), {refused} left uncommented"
    );
    assert!(same > 300, "only {same} compared");
}

/// Sampler messages: every type and SIMD mode, random surfaces, samplers
/// and flag bits, now and then bit 31. Only the comments we write are
/// compared here; the SIMD32/64 mode (3 with bit 29 clear) is checked type by
/// type, refusals included, in `xehpg_sampler_iga.rs`, so this pass lets it
/// go uncommented.
#[test]
fn sampler_comments_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-smpl-iga");
    let mut rng = Rng::new(0x5A3B);
    let descs: Vec<u32> = (0..800)
        .map(|_| {
            let mut d = (rng.next() as u32) & 0x600F_FFFF;
            if rng.chance(10) {
                d |= 1 << 31;
            }
            d
        })
        .collect();
    let undefined = [13u32, 14, 15, 19, 21, 27];
    let refusable =
        |d: u32| (d >> 17) & 3 == 3 || undefined.contains(&((d >> 12) & 0x1F)) || d & 1 << 31 != 0;
    let (same, refused) = legacy_comments(Sfid::Sampler, &descs, refusable, &dir, &mut rng);
    eprintln!("gen12.5 sampler: {same} comments identical to iga64's, {refused} left uncommented");
    assert!(same > 400, "only {same} compared");
}
