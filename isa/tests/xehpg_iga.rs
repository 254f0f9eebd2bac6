//! Differential test of the Gen12.5 (Xe-HPG, DG2) codec and printer
//! against `iga64 -p=12p71`: generated instructions (every supported
//! opcode, register/immediate operands, regions, types, predication,
//! condition modifiers, every SWSB form, sends with descriptors, sync,
//! math, three-source Align1, branches) are encoded by us and printed by
//! us. iga64 assembles our text: the bits must equal ours. iga64
//! disassembles our bits: its text must equal ours token for token (its
//! column padding and `//` comments aside). Our decoder reads iga64's bits
//! back to the generated instruction. Lines iga64 rejects (its semantic
//! checks: region and type rules) are counted and dropped.

mod common;

use baregpu_isa::inst::*;
use baregpu_isa::xehpg::{self, codec, parse::parse, print::print};
use common::xehpg::*;
use common::{Rng, ensure_oracles, iga, scratch};
use std::fs;

/// iga64's disassembly, one normalised line per instruction (labels and
/// comments dropped, runs of blanks collapsed).
fn disassemble(bytes: &[u8], dir: &std::path::Path) -> Vec<String> {
    let bin = dir.join("ours.bin");
    fs::write(&bin, bytes).unwrap();
    let r = iga(&["-p=12p71", "-d", bin.to_str().unwrap()]);
    assert!(
        r.status.success(),
        "iga64 -d failed: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    String::from_utf8_lossy(&r.stdout)
        .lines()
        .map(|l| l.split("//").next().unwrap_or("").trim().to_string())
        .filter(|l| !(l.is_empty() || (l.starts_with('L') && l.ends_with(':'))))
        .map(|l| norm(&l))
        .collect()
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// iga64 writes bfn's function as an expression (`bfn.(s0&~s2|s1&s2)`),
/// ours as its value (`bfn.0xCA`): the expression, evaluated by our
/// parser, is compared as that value.
fn bfn_as_value(line: &str) -> String {
    line.split(' ')
        .map(|t| match t.strip_prefix("bfn.") {
            Some(f) => match xehpg::parse::bfn_function(f) {
                Ok(v) => format!("bfn.0x{v:X}"),
                Err(e) => format!("bfn.<{e}>"),
            },
            None => t.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Encode, print; iga64 assembles our text to our bits and disassembles
/// our bits to our text; we decode iga64's bits to the instruction.
fn compare(
    insts: &[Instruction],
    dir: &std::path::Path,
    with_labels: bool,
) -> (Vec<usize>, Vec<String>) {
    let words: Vec<u128> = insts
        .iter()
        .map(|i| xehpg::encode(i).unwrap_or_else(|e| panic!("encode {i:?}: {e}")))
        .collect();
    for (i, w) in insts.iter().zip(&words) {
        assert_eq!(
            xehpg::decode(*w).as_ref(),
            Ok(i),
            "decode of our word {w:032x}"
        );
    }
    let text: Vec<String> = insts
        .iter()
        .enumerate()
        .map(|(k, i)| {
            let pc = 16 * k as i64;
            let line = print(i, with_labels.then_some(pc));
            if with_labels {
                format!("L{pc}:\n{line}")
            } else {
                line
            }
        })
        .collect();
    let (keep, bin, rejected) = common::iga_assemble("12p71", &text, dir);
    if with_labels {
        assert!(
            rejected.is_empty(),
            "iga64 rejected branch lines:\n{}",
            rejected.join("\n")
        );
    }
    assert_eq!(bin.len(), keep.len() * 16, "iga64 output size");
    let mut mismatch = Vec::new();
    let mut ours_kept = Vec::new();
    for (n, &k) in keep.iter().enumerate() {
        let theirs = u128::from_le_bytes(bin[n * 16..n * 16 + 16].try_into().unwrap());
        if theirs != words[k] {
            mismatch.push(format!(
                "{}\n    ours  {:032x}\n    iga64 {:032x}",
                text[k], words[k], theirs
            ));
        }
        ours_kept.extend_from_slice(&words[k].to_le_bytes());
    }
    assert!(
        mismatch.is_empty(),
        "{} of {} lines assemble differently:\n{}",
        mismatch.len(),
        keep.len(),
        mismatch
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    compare_compaction(insts, &words, &keep, &text, dir);
    let dis = disassemble(&ours_kept, dir);
    assert_eq!(
        dis.len(),
        keep.len(),
        "iga64 -d printed {} lines",
        dis.len()
    );
    let mut textdiff = Vec::new();
    let mut parsediff = Vec::new();
    for (n, &k) in keep.iter().enumerate() {
        let ours = norm(text[k].rsplit('\n').next().unwrap_or(""));
        if bfn_as_value(&dis[n]) != ours {
            textdiff.push(format!("    ours  {ours}\n    iga64 {}", dis[n]));
        }
        // Our assembler reads our text and iga64's text back to the
        // instruction (iga64's labels are at the same offsets when no
        // line was dropped, which the branch kernel asserts).
        let pc = 16 * k as i64;
        for (who, line) in [("ours", &ours), ("iga64", &dis[n])] {
            let got = parse(line, if with_labels { 16 * n as i64 } else { pc });
            if got.as_ref() != Ok(&insts[k]) {
                parsediff.push(format!("    {who} {line}\n    -> {got:?}"));
            }
        }
    }
    assert!(
        parsediff.is_empty(),
        "{} lines parse differently:\n{}",
        parsediff.len(),
        parsediff
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        textdiff.is_empty(),
        "{} of {} disassemblies differ:\n{}",
        textdiff.len(),
        keep.len(),
        textdiff
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    (keep, rejected)
}

/// The opcodes of the instructions iga64 compacted (and we identically),
/// over every `compare` call.
static COMPACTED: std::sync::Mutex<Vec<Opcode>> = std::sync::Mutex::new(Vec::new());

/// iga64 assembles the kept lines again with `-Xautocompact`: every word it
/// compacts must be our compact form of the native word, and must expand
/// back (our `uncompact`) to the native word; every instruction it leaves
/// native must have no compact form of ours.
fn compare_compaction(
    insts: &[Instruction],
    words: &[u128],
    keep: &[usize],
    text: &[String],
    dir: &std::path::Path,
) {
    use baregpu_isa::{IsaGen, compact};
    let (src, out) = (dir.join("cmpt.asm"), dir.join("cmpt.bin"));
    let lines: String = keep.iter().map(|&k| format!("{}\n", text[k])).collect();
    fs::write(&src, lines).unwrap();
    let r = iga(&[
        "-p=12p71",
        "-a",
        src.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-Wnone",
        "-Xautocompact",
    ]);
    assert!(
        r.status.success(),
        "iga64 -Xautocompact refused lines it assembled natively: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    let bin = fs::read(&out).unwrap();
    let dword = |at: usize| u32::from_le_bytes(bin[at..at + 4].try_into().unwrap());
    let mut at = 0;
    let mut diffs = Vec::new();
    let mut compacted = Vec::new();
    for &k in keep {
        let native = baregpu_isa::codec::to_dwords(words[k]);
        let ours = compact::compact(IsaGen::Gen12_5, native);
        let theirs = if compact::is_compact(dword(at)) {
            let c = [dword(at), dword(at + 4)];
            at += 8;
            Some(c)
        } else {
            at += 16;
            None
        };
        if let Some(c) = theirs {
            compacted.push(insts[k].opcode);
            let back = compact::uncompact(IsaGen::Gen12_5, c);
            if back != Ok(native) {
                diffs.push(format!(
                    "{}\n    iga64 compact {:08x}{:08x} expands to {back:x?}",
                    text[k], c[1], c[0]
                ));
            }
        }
        if ours != theirs {
            diffs.push(format!(
                "{}\n    ours  {ours:08x?}\n    iga64 {theirs:08x?}  ({:?})",
                text[k], insts[k].opcode
            ));
        }
    }
    assert_eq!(at, bin.len(), "iga64 -Xautocompact output size");
    // Our disassembler reads iga64's compacted kernel as iga64 does
    // (`{Compacted}` marks included), and our assembler with compaction on
    // writes iga64's bytes (no jumps here: the branch kernel stays native).
    let opts = baregpu_isa::text::DisasmOptions {
        offsets: false,
        labels: true,
        messages: false,
    };
    let ours = baregpu_isa::text::disassemble_with(IsaGen::Gen12_5, &bin, opts)
        .unwrap_or_else(|e| panic!("disassembling iga64's compacted kernel: {e}"));
    // That text, `{Compacted}` marks and labels included, assembles back to
    // iga64's bytes.
    let again = baregpu_isa::text::assemble(IsaGen::Gen12_5, &ours)
        .unwrap_or_else(|e| panic!("reassembling our disassembly: {e}"));
    assert!(
        again == bin,
        "our disassembly of a compacted kernel reassembles differently"
    );
    let ours: Vec<String> = ours
        .lines()
        .filter(|l| !(l.starts_with('L') && l.ends_with(':')))
        .map(norm)
        .collect();
    let theirs = disassemble(&bin, dir);
    assert_eq!(ours.len(), theirs.len(), "compacted kernel lines");
    for (o, t) in ours.iter().zip(&theirs) {
        if *o != bfn_as_value(t) {
            diffs.push(format!("    ours  {o}\n    iga64 {t}"));
        }
    }
    if insts.iter().all(|i| !matches!(i.body, Body::Branch(_))) {
        let source: String = keep.iter().map(|&k| format!("{}\n", text[k])).collect();
        let asm = baregpu_isa::text::assemble_with(
            IsaGen::Gen12_5,
            &source,
            baregpu_isa::text::AsmOptions { compact: true },
        )
        .unwrap_or_else(|e| panic!("assembling with compaction: {e}"));
        assert!(
            asm == bin,
            "our compacting assembler differs from iga64 -Xautocompact"
        );
    }
    assert!(
        diffs.is_empty(),
        "{} of {} compactions differ:\n{}",
        diffs.len(),
        keep.len(),
        diffs
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    COMPACTED.lock().unwrap().extend(compacted);
}

#[test]
fn xehpg_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-iga");
    let mut rng = Rng::new(0x0125);
    let mut total = 0;
    let mut all_rejected = Vec::new();
    let mut indirect_kept = 0;
    let mut ex_reg_kept = 0;
    let mut madm_kept = 0;
    let mut bfn_kept = 0;
    let mut bfn_functions = [false; 256];
    let mut dpas_kept = 0;
    let mut dpas_sub_byte = 0;
    let mut macro_kept = 0;
    let mut region_false = Vec::new();
    let mut region_checked = 0;
    for _ in 0..10 {
        let insts: Vec<Instruction> = (0..2_500).map(|_| generate(&mut rng)).collect();
        let (kept, rej) = compare(&insts, &dir, false);
        total += kept.len();
        indirect_kept += kept.iter().filter(|&&k| has_indirect(&insts[k])).count();
        ex_reg_kept += kept.iter().filter(|&&k| has_ex_reg(&insts[k])).count();
        madm_kept += kept
            .iter()
            .filter(|&&k| insts[k].opcode == Opcode::Madm)
            .count();
        for &k in &kept {
            // The region rules iga64 also checks (it does not check spans,
            // scalar strides or Width-1 strides, which Mesa refuses): nothing
            // it accepts may break ours.
            for v in baregpu_isa::validate::validate(baregpu_isa::IsaGen::Gen12_5, &insts[k]) {
                use baregpu_isa::validate::Rule::*;
                // And no error of ours: every Gen12.5 error rule (the
                // source modifiers per opcode among them) is one iga64
                // holds too.
                if matches!(
                    v.rule,
                    WidthAboveExecSize | VertStrideMismatch | ZeroStridesWidth | DstHorzStrideZero
                ) || (v.severity == baregpu_isa::validate::Severity::Error
                    && !matches!(
                        v.rule,
                        SourceSpan | XeSendLength | XeSendDescriptor | XeLscShape
                    ))
                {
                    region_false.push(format!("{}: {v}", print(&insts[k], None)));
                }
            }
            region_checked += 1;
            match &insts[k].body {
                Body::Bfn(b) => {
                    bfn_kept += 1;
                    bfn_functions[usize::from(b.function)] = true;
                }
                Body::Math(m) if codec::macro_math(m.function) => macro_kept += 1,
                Body::Dpas(d) => {
                    dpas_kept += 1;
                    dpas_sub_byte += usize::from(d.precision.iter().any(|p| *p != Precision::Full));
                }
                _ => {}
            }
        }
        all_rejected.extend(rej);
    }
    eprintln!(
        "gen12.5: {total} instructions identical both ways ({indirect_kept} with indirect operands, {ex_reg_kept} sends with a0 extended descriptors, {madm_kept} madm), {} rejected by iga64",
        all_rejected.len()
    );
    let functions = bfn_functions.iter().filter(|&&f| f).count();
    eprintln!(
        "gen12.5: {bfn_kept} bfn ({functions} of the 256 functions), {dpas_kept} dpas/dpasw ({dpas_sub_byte} with 4- or 2-bit sources), {macro_kept} math.invm/rsqtm"
    );
    eprintln!(
        "gen12.5: {region_checked} instructions iga64 accepts checked against our region rules"
    );
    assert!(
        region_false.is_empty(),
        "region rules flag what iga64 accepts: {:#?}",
        &region_false[..region_false.len().min(10)]
    );
    assert!(
        macro_kept > 300,
        "only {macro_kept} math.invm/rsqtm compared"
    );
    let ops = COMPACTED.lock().unwrap().clone();
    let three = ops
        .iter()
        .filter(|o| {
            matches!(
                o,
                Opcode::Mad | Opcode::Add3 | Opcode::Bfn | Opcode::Dpas | Opcode::Dpasw
            )
        })
        .count();
    let dpas = ops
        .iter()
        .filter(|o| matches!(o, Opcode::Dpas | Opcode::Dpasw))
        .count();
    eprintln!(
        "gen12.5: {} instructions compacted by iga64 -Xautocompact, identically by us ({three} three-source, {dpas} dpas/dpasw); none we compact stays native there",
        ops.len()
    );
    assert!(ops.len() > 1_000, "only {} compactions compared", ops.len());
    assert!(
        three > 100,
        "only {three} three-source compactions compared"
    );
    assert!(madm_kept > 500, "only {madm_kept} madm compared");
    assert!(bfn_kept > 1_000, "only {bfn_kept} bfn compared");
    assert_eq!(functions, 256, "bfn functions compared");
    assert!(dpas_kept > 1_000, "only {dpas_kept} dpas compared");
    assert!(dpas_sub_byte > 300, "only {dpas_sub_byte} sub-byte dpas");
    assert!(
        ex_reg_kept > 500,
        "only {ex_reg_kept} sends with register extended descriptors compared"
    );
    assert!(
        indirect_kept > 1_000,
        "only {indirect_kept} indirect-operand instructions compared"
    );
    if std::env::var_os("XEHPG_SHOW_REJECTED").is_some() {
        for r in &all_rejected {
            eprintln!("rejected: {r}");
        }
    }
    for r in all_rejected.iter().take(15) {
        eprintln!("  {r}");
    }
    assert!(total >= 20_000, "only {total} instructions compared");
}

fn has_ex_reg(i: &Instruction) -> bool {
    matches!(
        i.body,
        Body::Send(Send {
            ex_desc: Some(ExDesc::Reg { .. }),
            ..
        })
    )
}

fn has_indirect(i: &Instruction) -> bool {
    let ind = |a: &Addr| matches!(a, Addr::Indirect { .. });
    i.dst().is_some_and(|d| ind(&d.addr))
        || i.srcs()
            .iter()
            .any(|s| matches!(s, Some(Src::Reg(r)) if ind(&r.addr)))
}

/// Branches in a kernel whose targets are instructions of the kernel:
/// iga64 resolves our labels to our JIP/UIP bits and prints the same
/// labels back.
#[test]
fn xehpg_branches_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-branch");
    let mut rng = Rng::new(0xB4A);
    let n = 400usize;
    let ops = [
        (Opcode::If, true),
        (Opcode::Else, true),
        (Opcode::Break, true),
        (Opcode::Cont, true),
        (Opcode::Halt, true),
        (Opcode::Goto, true),
        (Opcode::Endif, false),
        (Opcode::While, false),
        (Opcode::Join, false),
    ];
    let insts: Vec<Instruction> = (0..n)
        .map(|k| {
            if rng.chance(2) {
                return gen_ctrl(&mut rng, k, n);
            }
            let (op, two) = rng.pick(&ops);
            let off = |rng: &mut Rng| 16 * (rng.below(n) as i32 - k as i32);
            let jump = if two {
                Jump::JipUip {
                    jip: off(&mut rng),
                    uip: off(&mut rng),
                }
            } else {
                Jump::Jip { jip: off(&mut rng) }
            };
            let mut i = Instruction::new(
                op,
                rng.pick(&[8, 16, 32]),
                Q,
                Body::Branch(Branch {
                    dst: codec::NO_DST,
                    src0: codec::ABSENT,
                    src1: codec::ABSENT,
                    jump,
                }),
            );
            // iga64 drops a predicate on else and endif.
            if rng.chance(3) && !matches!(op, Opcode::Else | Opcode::Endif) {
                i.pred_ctrl = PredCtrl::Normal;
                i.flag.subreg = rng.below(2) as u8;
            }
            i.swsb = swsb(&mut rng);
            i
        })
        .collect();
    let ctrl = insts
        .iter()
        .filter(|i| xehpg::print::is_ctrl(i.opcode))
        .count();
    assert!(
        ctrl > n / 4,
        "only {ctrl} jmpi/brd/brc/call/calla/ret generated"
    );
    let (kept, _) = compare(&insts, &dir, true);
    let kept = kept.len();
    assert_eq!(kept, n);
    eprintln!(
        "gen12.5 branches: {kept} identical both ways, {ctrl} of them jmpi/brd/brc/call/calla/ret"
    );
}

/// jmpi, brd, brc, call, calla, ret at byte `16 * k` of an `n`-instruction
/// kernel: immediate targets inside the kernel (calla's absolute), or a
/// register target with a dword sub-register.
fn gen_ctrl(rng: &mut Rng, k: usize, n: usize) -> Instruction {
    let op = rng.pick(&[
        Opcode::Jmpi,
        Opcode::Brd,
        Opcode::Brc,
        Opcode::Call,
        Opcode::Calla,
        Opcode::Ret,
    ]);
    let any_reg = |rng: &mut Rng| (RegFile::Grf, rng.below(128) as u8, 4 * rng.below(8) as u8);
    let off = |rng: &mut Rng| {
        if op == Opcode::Calla {
            16 * rng.below(n) as i32
        } else {
            16 * (rng.below(n) as i32 - k as i32)
        }
    };
    let dst = matches!(op, Opcode::Call | Opcode::Calla).then(|| {
        let (f, nr, sub) = any_reg(rng);
        codec::ctrl_dst(f, nr, sub)
    });
    let body = if op == Opcode::Ret || rng.chance(3) {
        let (f, nr, sub) = any_reg(rng);
        Body::Alu(Alu {
            dst: dst.unwrap_or_else(codec::null_dst),
            src0: Src::Reg(codec::ctrl_reg(f, nr, sub)),
            src1: codec::ABSENT,
        })
    } else {
        let jip = off(rng);
        Body::Branch(Branch {
            dst: dst.map_or(codec::NO_DST, DstSlot::Reg),
            src0: codec::ABSENT,
            src1: codec::ABSENT,
            jump: if op == Opcode::Brc {
                Jump::JipUip { jip, uip: off(rng) }
            } else {
                Jump::Jip { jip }
            },
        })
    };
    // jmpi is always (W) with an implied (1); the others take any size.
    let exec = if op == Opcode::Jmpi {
        1
    } else {
        rng.pick(&[1, 8, 16, 32])
    };
    let mut i = Instruction::new(op, exec, Q, body);
    if op != Opcode::Jmpi && exec <= 8 && rng.chance(4) {
        i.group = GroupCtrl::Quarter {
            qtr: rng.below(4) as u8,
            nib: false,
        };
    }
    i.no_mask = op == Opcode::Jmpi || rng.chance(3);
    if rng.chance(3) {
        i.pred_ctrl = rng.pick(&[PredCtrl::Normal, PredCtrl::Any4H, PredCtrl::AllV]);
        i.pred_inv = rng.chance(2);
        i.flag.subreg = rng.below(2) as u8;
    }
    i.swsb = swsb(rng);
    i
}

/// Random words never panic; whatever decodes encodes back to the word.
#[test]
fn xehpg_random_words() {
    let mut rng = Rng::new(0x05EE_D125);
    let mut decoded = 0;
    for k in 0..200_000u32 {
        // Half the words get a defined opcode so the operand decoders run.
        let mut w = u128::from(rng.next()) | u128::from(rng.next()) << 64;
        if k % 2 == 0 {
            let (code, _, _) = baregpu_isa::xehpg::tables::OPCODES
                [rng.below(baregpu_isa::xehpg::tables::OPCODES.len())];
            w = (w & !0xFF & !(1 << 29)) | u128::from(code);
        }
        if let Ok(i) = xehpg::decode(w) {
            decoded += 1;
            assert_eq!(xehpg::encode(&i), Ok(w), "{w:032x}");
            // Printing and parsing the text back must not panic either.
            let _ = parse(&print(&i, Some(0)), 0);
        }
    }
    assert!(decoded > 0, "no random word decoded");
}

/// Reserved encodings are refused with the field named.
#[test]
fn xehpg_reserved_fields() {
    use baregpu_isa::error::{DecodeError, Field, Slot};
    // mov (8|M0) r1.0<1>:f r2.0<1;1,0>:f, from iga64 -p=12p71.
    let mov = baregpu_isa::codec::from_dwords([0x0003_0061, 0x0105_0aa0, 0x0010_0204, 0]);
    assert!(xehpg::decode(mov).is_ok());
    // ExecSize code 6.
    assert_eq!(
        xehpg::decode(mov | 6 << 16),
        Err(DecodeError::Reserved {
            field: Field::ExecSize,
            value: 7
        })
    );
    // Destination type code 12.
    assert!(matches!(
        xehpg::decode((mov & !(0xF << 36)) | 12 << 36),
        Err(DecodeError::Reserved { .. })
    ));
    // Bit 7 (reserved for opcode expansion).
    assert_eq!(
        xehpg::decode(mov | 1 << 7),
        Err(DecodeError::ReservedBits { mask: 1 << 7 })
    );
    // SWSB 0x58 (no such pipe).
    assert_eq!(
        xehpg::decode(mov | 0x58 << 8),
        Err(DecodeError::Reserved {
            field: Field::Swsb,
            value: 0x58
        })
    );
    // mov (8|M0) r1.0<1>:d r[a0.2,-4]<8,1>:d, from iga64 -p=12p71: the
    // indirect source with the Vx1 region.
    let ind = baregpu_isa::codec::from_dwords([0x0003_0061, 0x0105_0660, 0x00f7_2ff1, 0]);
    let i = xehpg::decode(ind).expect("indirect source decodes");
    let [Some(Src::Reg(s)), ..] = i.srcs() else {
        panic!("no register src0: {i:?}");
    };
    assert_eq!(
        s.addr,
        Addr::Indirect {
            addr_subnr: 2,
            offset: -4
        }
    );
    assert_eq!(
        s.region,
        Region::VxH {
            width: 8,
            hstride: 1
        }
    );
    // The same region code on a direct source is reserved.
    assert!(matches!(
        xehpg::decode(ind & !(1u128 << 80)),
        Err(DecodeError::Reserved { .. })
    ));
    let w = baregpu_isa::codec::from_dwords;
    // (W) jmpi r2.0 from iga64; without (W) it is not a form iga64 writes.
    let jmpi = w([0x8000_0020, 0, 0x0000_0204, 0]);
    assert!(xehpg::decode(jmpi).is_ok());
    assert!(matches!(
        xehpg::decode(jmpi & !(1u128 << 31)),
        Err(DecodeError::Reserved {
            field: Field::ExecSize,
            ..
        })
    ));
    // call (1|M0) r10.2 r4.1: a target sub-register off a dword is refused.
    let call = w([0x0000_002c, 0x0a44_0000, 0x0000_0424, 0]);
    assert!(xehpg::decode(call).is_ok());
    assert!(matches!(
        xehpg::decode((call & !(0x1F << 67)) | 6 << 67),
        Err(DecodeError::Reserved {
            field: Field::Addr(Slot::Src0),
            ..
        })
    ));
    // madm (8|M0) r10.mme0:df r20.mme1:df r30.mme2:df r40.nomme:df: selector
    // codes above nomme (8) are refused.
    let madm = w([0x0003_005d, 0x0a04_0bb0, 0x0b03_140d, 0x2845_1e15]);
    assert!(xehpg::decode(madm).is_ok());
    assert!(matches!(
        xehpg::decode(madm | 9 << 51),
        Err(DecodeError::Reserved {
            field: Field::Addr(Slot::Dst),
            ..
        })
    ));
    // send.ugm (8|M0) r10 r20 r30:2 a0.2 0x02108580 {ExBSO}.
    let send = xehpg::decode(w([0x0003_0031, 0x0a0e_0280, 0xfb00_140c, 0x0020_1e14]))
        .expect("register extended descriptor decodes");
    let Body::Send(s) = send.body else {
        panic!("not a send: {send:?}");
    };
    assert_eq!(
        s.ex_desc,
        Some(ExDesc::Reg {
            subnr: 2,
            src1_len: Some(2)
        })
    );
}

/// The generation-dispatching entry points reach the Gen12.5 codec and
/// printer; the paths without Gen12.5 support refuse it by name.
#[test]
fn xehpg_through_public_api() {
    use baregpu_isa::IsaGen;
    assert_eq!(IsaGen::from_name("dg2"), Some(IsaGen::Gen12_5));
    assert_eq!(IsaGen::from_name("xehpg"), Some(IsaGen::Gen12_5));
    assert_eq!(IsaGen::Gen12_5.name(), "gen12.5");
    // if (16|M0) L32 L48; else (16|M0) L32 L48; mov (8|M0) r1.0<1>:f r2.0<1;1,0>:f
    let dws: [[u32; 4]; 3] = [
        [0x0004_0022, 0x0000_c000, 0x0000_0030, 0x0000_0020],
        [0x0004_0024, 0x0000_c000, 0x0000_0020, 0x0000_0010],
        [0x0003_0061, 0x0105_0aa0, 0x0010_0204, 0],
    ];
    let mut bytes = Vec::new();
    for dw in dws {
        let w = baregpu_isa::codec::from_dwords(dw);
        let i = baregpu_isa::decode(IsaGen::Gen12_5, w).expect("decodes");
        assert_eq!(baregpu_isa::encode(IsaGen::Gen12_5, &i), Ok(w));
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    let text = baregpu_isa::text::disassemble_with(
        IsaGen::Gen12_5,
        &bytes,
        baregpu_isa::text::DisasmOptions {
            offsets: false,
            labels: true,
            messages: false,
        },
    )
    .expect("disassembles");
    assert_eq!(
        text,
        "if (16|M0) L32 L48\nelse (16|M0) L32 L48\nL32:\nmov (8|M0) r1.0<1>:f r2.0<1;1,0>:f\nL48:\n"
    );
    // Our own assembler reads the disassembly back to the bytes.
    assert_eq!(
        baregpu_isa::text::assemble(IsaGen::Gen12_5, &text),
        Ok(bytes.clone())
    );
    assert!(baregpu_isa::text::assemble(IsaGen::Gen12_5, "mov (8|M0) r1.0<1>:f r2:zz").is_err());
    // A suffix the form does not read is an error, not dropped: saturation
    // is `(sat)` before the destination.
    let sat = baregpu_isa::text::assemble(
        IsaGen::Gen12_5,
        "add.sat (8|M0) r1.0<1>:f r2.0<1;1,0>:f r3.0<1;1,0>:f",
    );
    assert!(sat.is_err(), "{sat:?}");
    let sat = baregpu_isa::text::assemble(
        IsaGen::Gen12_5,
        "add (8|M0) (sat)r1.0<1>:f r2.0<1;1,0>:f r3.0<1;1,0>:f",
    )
    .expect("(sat) assembles");
    let inst = baregpu_isa::kernel::decode_kernel(IsaGen::Gen12_5, &sat).unwrap();
    assert!(inst[0].inst.saturate);
    assert!(
        baregpu_isa::text::assemble(IsaGen::Gen12_5, "smov (8|M0) r1.0<1>:f r2.0<1;1,0>:f")
            .is_err()
    );
    assert!(baregpu_isa::compact::tables(IsaGen::Gen12_5).is_none());
    let v = baregpu_isa::validate::validate(
        IsaGen::Gen12_5,
        &baregpu_isa::decode(IsaGen::Gen12_5, baregpu_isa::codec::from_dwords(dws[2])).unwrap(),
    );
    // A mov meets no rule, alone or as a kernel.
    assert_eq!(v, vec![]);
    let k = baregpu_isa::validate::validate_kernel(IsaGen::Gen12_5, &bytes[32..]).unwrap();
    assert_eq!(k, vec![]);
}

/// Words iga64 -p=12p71 assembled (bfn, dpas with sub-byte sources,
/// math.invm) decode to the fields their text names; the bits these forms
/// do not have are refused; three-source operands are direct only.
#[test]
fn xehpg_bfn_dpas_macro_words() {
    use baregpu_isa::error::{DecodeError, EncodeError};
    let w = baregpu_isa::codec::from_dwords;
    // bfn.0xCA (16|M0) (eq)f0.0 r10.0<1>:ud r11.0<1;0>:ud r12.0<1;0>:ud r13.0<1>:ud
    let bfn = w([0x0004_006b, 0x0a04_1228, 0xc2aa_0b04, 0x0d05_0c04]);
    let i = xehpg::decode(bfn).expect("bfn decodes");
    let Body::Bfn(b) = i.body else {
        panic!("not bfn: {i:?}")
    };
    assert_eq!((b.function, i.cond_mod), (0xCA, CondMod::Z));
    // iga64's expressions read back to their functions; malformed ones,
    // however deep, are errors.
    use xehpg::parse::bfn_function;
    assert_eq!(bfn_function("(s0&~s2|s1&s2)"), Ok(0xCA));
    assert_eq!(bfn_function("(s0^(s0&s1|s1^s2))"), Ok(0x16));
    assert_eq!(bfn_function("(zeros)"), Ok(0));
    assert!(bfn_function("(s0&)").is_err());
    assert!(bfn_function("0x100").is_err());
    assert!(
        bfn_function(&format!(
            "({}s0{})",
            "(".repeat(100_000),
            ")".repeat(100_000)
        ))
        .is_err()
    );
    assert!(bfn_function(&format!("({}s0)", "~".repeat(100_000))).is_err());
    assert_eq!(
        print(&i, None),
        "bfn.0xCA (16|M0) (eq)f0.0 r10.0<1>:ud r11.0<1;0>:ud r12.0<1;0>:ud r13.0<1>:ud"
    );
    // Saturation (bit 34): bfn has none.
    assert!(matches!(
        xehpg::decode(bfn | 1 << 34),
        Err(DecodeError::ReservedBits { .. })
    ));
    // dpas.4x2 (8|M0) r10:d r20:d r30:u4 r40.0:s2
    let dpas = w([0x0003_0059, 0x0a06_0e60, 0x0064_1404, 0x2804_1e04]);
    let i = xehpg::decode(dpas).expect("dpas decodes");
    let Body::Dpas(d) = i.body else {
        panic!("not dpas: {i:?}")
    };
    assert_eq!((d.depth, d.repeat), (4, 2));
    assert_eq!(d.precision, [Precision::Bits4, Precision::Bits2]);
    assert_eq!(
        print(&i, None),
        "dpas.4x2 (8|M0) r10:d r20:d r30:u4 r40.0:s2"
    );
    // SubBytePrecision 3 is reserved; a condition modifier does not exist.
    assert!(xehpg::decode(dpas | 3 << 86).is_err());
    assert!(xehpg::decode(dpas | 1 << 92).is_err());
    // math.invm (8|M0) (eo)f0.0 r10.mme0:df -r20.mme1:df (abs)r30.nomme:df
    let invm = w([0x0003_0038, 0x0a05_2bb0, 0xeb10_140c, 0x0110_1e44]);
    let i = xehpg::decode(invm).expect("invm decodes");
    assert_eq!(
        print(&i, None),
        "math.invm (8|M0) (eo)f0.0 r10.mme0:df -r20.mme1:df (abs)r30.nomme:df"
    );
    // Selector code 9 (dst sub-register field 55:51) is reserved.
    assert!(xehpg::decode((invm & !(0x1F << 51)) | 9 << 51).is_err());
    // Three-source operands are DirectOperand only (004 lines 6173-6289;
    // iga64 refuses `r[a0.0]` sources and silently writes r0 for such a
    // destination): the encoder refuses them.
    let mut mad = xehpg::decode(w([0x0003_005b, 0x0a04_02a8, 0x020a_0b04, 0x0d05_0c04]))
        .expect("mad decodes");
    let Body::ThreeSrc(ts) = &mut mad.body else {
        panic!("not three-source: {mad:?}")
    };
    ts.dst.addr = Addr::Indirect {
        addr_subnr: 0,
        offset: 0,
    };
    assert!(matches!(
        xehpg::encode(&mad),
        Err(EncodeError::Unencodable { .. })
    ));
}

/// The compacting assembler on a kernel mixing branches with instructions
/// that compact: every branch still lands on the instruction it named
/// (labels placed where compaction moves them), and iga64's disassembly of
/// our compacted kernel equals ours token for token.
#[test]
fn xehpg_compacting_assembler_keeps_targets() {
    use baregpu_isa::{IsaGen, compact, text};
    ensure_oracles();
    let dir = scratch("xehpg-cmpt-asm");
    let mut rng = Rng::new(0xC0C0);
    let n = 300usize;
    let insts: Vec<Instruction> = (0..n)
        .map(|k| {
            if rng.chance(3) {
                let jip = 16 * (rng.below(n) as i32 - k as i32);
                let uip = 16 * (rng.below(n) as i32 - k as i32);
                let (op, jump) = rng.pick(&[
                    (Opcode::If, Jump::JipUip { jip, uip }),
                    (Opcode::Break, Jump::JipUip { jip, uip }),
                    (Opcode::Endif, Jump::Jip { jip }),
                    (Opcode::While, Jump::Jip { jip }),
                ]);
                return Instruction::new(
                    op,
                    16,
                    Q,
                    Body::Branch(Branch {
                        dst: codec::NO_DST,
                        src0: codec::ABSENT,
                        src1: codec::ABSENT,
                        jump,
                    }),
                );
            }
            let rg = Region::Align1 {
                vstride: 1,
                width: 1,
                hstride: 0,
            };
            let src = |rng: &mut Rng| {
                let mut r = reg(rng, Type::F, rg);
                r.addr = Addr::Direct {
                    nr: rng.below(120) as u8,
                    subnr: 0,
                };
                Src::Reg(r)
            };
            let d = Dst {
                file: RegFile::Grf,
                ty: Type::F,
                addr: Addr::Direct {
                    nr: rng.below(120) as u8,
                    subnr: 0,
                },
                hstride: 1,
                writemask: WRITEMASK_XYZW,
            };
            let (op, src1) = if rng.chance(2) {
                (Opcode::Add, src(&mut rng))
            } else {
                (Opcode::Mov, codec::ABSENT)
            };
            let mut i = Instruction::new(
                op,
                rng.pick(&[8, 16]),
                Q,
                Body::Alu(Alu {
                    dst: d,
                    src0: src(&mut rng),
                    src1,
                }),
            );
            // Some stay native: a predicate on (8|M0) has no control row.
            if rng.chance(4) {
                i.pred_ctrl = PredCtrl::Normal;
            }
            i
        })
        .collect();
    let source: String = insts
        .iter()
        .enumerate()
        .map(|(k, i)| format!("L{}:\n{}\n", 16 * k, print(i, Some(16 * k as i64))))
        .collect::<String>()
        + &format!("L{}:\n", 16 * n);
    let bytes = text::assemble_with(IsaGen::Gen12_5, &source, text::AsmOptions { compact: true })
        .expect("assembles with compaction");
    // Walk our kernel: offsets of instruction starts, and the branches.
    let mut starts = Vec::new();
    let mut at = 0;
    let mut compacted = 0;
    while at < bytes.len() {
        starts.push(at as i64);
        let dw0 = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let size = if compact::is_compact(dw0) { 8 } else { 16 };
        compacted += usize::from(size == 8);
        at += size;
    }
    starts.push(bytes.len() as i64);
    assert_eq!(starts.len(), n + 1, "instructions in the compacted kernel");
    assert!(compacted > n / 3, "only {compacted} compacted");
    let index_of = |off: i64| starts.iter().position(|&s| s == off);
    for (k, i) in insts.iter().enumerate() {
        let Body::Branch(b) = i.body else { continue };
        let at = starts[k] as usize;
        let word = u128::from_le_bytes(bytes[at..at + 16].try_into().unwrap());
        let got = xehpg::decode(word).expect("our branch decodes");
        let Body::Branch(g) = got.body else {
            panic!("not a branch: {got:?}")
        };
        let targets = |j: Jump| match j {
            Jump::JipUip { jip, uip } => vec![jip, uip],
            Jump::Jip { jip } => vec![jip],
            Jump::Count { .. } => vec![],
        };
        for (want, have) in targets(b.jump).into_iter().zip(targets(g.jump)) {
            let want = (k as i64 * 16 + i64::from(want)) / 16;
            assert_eq!(
                index_of(starts[k] + i64::from(have)),
                Some(want as usize),
                "branch {k} ({:?})",
                i.opcode
            );
        }
    }
    let opts = text::DisasmOptions {
        offsets: false,
        labels: true,
        messages: false,
    };
    let ours: Vec<String> = text::disassemble_with(IsaGen::Gen12_5, &bytes, opts)
        .expect("disassembles")
        .lines()
        .filter(|l| !(l.starts_with('L') && l.ends_with(':')))
        .map(norm)
        .collect();
    assert_eq!(ours, disassemble(&bytes, &dir), "our text against iga64's");
    // iga64 -Xautocompact lays out the same labelled source byte for byte.
    let (src, out) = (dir.join("kernel.asm"), dir.join("kernel.bin"));
    fs::write(&src, &source).unwrap();
    let r = iga(&[
        "-p=12p71",
        "-a",
        src.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-Wnone",
        "-Xautocompact",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(
        fs::read(&out).unwrap() == bytes,
        "iga64 -Xautocompact lays the kernel out differently"
    );
    eprintln!(
        "gen12.5 compacting assembler: {compacted} of {n} compacted, every branch on its target"
    );
}

/// Float immediates (`:f`, `:hf`, `:df`) over their special and random bit
/// patterns: our text is iga64's (IGA's `%g`, then `%e`, then hex rule;
/// signed qnan/snan payloads; inf), iga64 assembles our text to our bits,
/// and our parser reads iga64's text back to the bits.
#[test]
fn xehpg_float_immediates_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-float-imm");
    let mut rng = Rng::new(0xF10A7);
    let mut imms: Vec<(Type, u64)> = Vec::new();
    let f32s = [
        0u64,
        0x8000_0000,
        0x3F80_0000,
        0xBF80_0000,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0xFFC0_0001,
        0x7F80_0001,
        0xFFA0_1234,
        0x0000_0001,
        0x807F_FFFF,
        0x3DCC_CCCD,
        0x4B80_0000,
        0x7F7F_FFFF,
        0x3EAA_AAAB,
        0x4974_2400,
        0x3727_C5AC,
        0x10DA_2E51,
    ];
    let f16s = [
        0u64, 0x8000, 0x3C00, 0x7C00, 0xFC00, 0x7E00, 0xFDE0, 0x7C01, 0x0001, 0x0008, 0x03FF,
        0x0400, 0x7BFF, 0x3555, 0xD6A4, 0x2E66,
    ];
    let f64s = [
        0u64,
        0x8000_0000_0000_0000,
        0x3FF0_0000_0000_0000,
        0x7FF0_0000_0000_0000,
        0xFFF8_0000_0000_0001,
        0x7FF0_0000_0000_0001,
        0x0000_0000_0000_0001,
        0x3FB9_9999_9999_999A,
        0x4415_AF1D_78B5_8C40,
    ];
    imms.extend(f32s.iter().map(|&b| (Type::F, b)));
    imms.extend(f16s.iter().map(|&b| (Type::Hf, b)));
    imms.extend(f64s.iter().map(|&b| (Type::Df, b)));
    for _ in 0..600 {
        let r = rng.next();
        // Random bits, and values with few significant digits (which IGA
        // writes in decimal).
        let short = (rng.below(2_000_000) as f64 - 1e6) * 10f64.powi(rng.below(60) as i32 - 30);
        imms.push((Type::F, r & 0xFFFF_FFFF));
        imms.push((Type::F, u64::from((short as f32).to_bits())));
        imms.push((Type::Hf, r >> 48));
        imms.push((Type::Df, r));
        imms.push((Type::Df, short.to_bits()));
    }
    let insts: Vec<Instruction> = imms
        .iter()
        .enumerate()
        .map(|(k, &(ty, bits))| {
            let bits = if ty == Type::Hf {
                bits | bits << 16
            } else {
                bits
            };
            Instruction::new(
                Opcode::Mov,
                1,
                Q,
                Body::Alu(Alu {
                    dst: Dst {
                        file: RegFile::Grf,
                        ty,
                        addr: Addr::Direct {
                            nr: (k % 100) as u8,
                            subnr: 0,
                        },
                        hstride: 1,
                        writemask: WRITEMASK_XYZW,
                    },
                    src0: Src::Imm(Imm { ty, bits }),
                    src1: codec::ABSENT,
                }),
            )
        })
        .collect();
    let words: Vec<u128> = insts
        .iter()
        .map(|i| xehpg::encode(i).unwrap_or_else(|e| panic!("encode {i:?}: {e}")))
        .collect();
    let text: Vec<String> = insts.iter().map(|i| print(i, None)).collect();
    let (keep, bin, rejected) = common::iga_assemble("12p71", &text, &dir);
    assert!(rejected.is_empty(), "iga64 rejects: {rejected:#?}");
    let ours: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    assert_eq!(keep.len(), insts.len());
    for (k, w) in words.iter().enumerate() {
        let theirs = u128::from_le_bytes(bin[16 * k..16 * k + 16].try_into().unwrap());
        assert_eq!(theirs, *w, "iga64 assembles `{}` differently", text[k]);
    }
    let dis = disassemble(&ours, &dir);
    assert_eq!(dis.len(), insts.len());
    let mut decimal = 0;
    for (k, line) in dis.iter().enumerate() {
        assert_eq!(norm(&text[k]), *line, "ours vs iga64 for {:?}", imms[k]);
        assert_eq!(
            parse(line, 0).as_ref(),
            Ok(&insts[k]),
            "our parse of `{line}`"
        );
        let imm = line.rsplit(' ').next().unwrap_or("");
        decimal += usize::from(!imm.starts_with("0x"));
    }
    eprintln!(
        "gen12.5: {} float immediates printed as iga64 prints them ({decimal} not in hex)",
        insts.len()
    );
    // Both the decimal forms and the hex fallback are exercised.
    assert!(
        decimal > 1_000 && insts.len() - decimal > 300,
        "{decimal} decimal"
    );
    let _ = fs::remove_dir_all(&dir);
}
