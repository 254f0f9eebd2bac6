//! Code as Mesa's Gen4-Gen7.5 emitter writes it (every form of
//! `mesa_forms::corpus`, built field by field after elk_eu_emit.c) decodes,
//! re-encodes to the same word, disassembles with no `.raw` line, and
//! assembles back to the same bits. Mesa fills fields hardware ignores
//! (the unused src1's file and type after an immediate, the operands of
//! branches); those must neither stop decoding nor be lost.
//!
//! The oracles must read the same meaning: iga64 (`-p=7p5`, the only
//! platform of this age it has; Ivy Bridge words share its layout) and
//! intel-gen4disasm decode every word, and the mnemonics and immediates they
//! print match ours. `isa/ensure-oracles.sh` installs them when missing.

mod common;
#[path = "mesa_forms/corpus.rs"]
mod corpus;
#[path = "mesa_forms/emit.rs"]
mod emit;

use baregpu_isa::codec::to_dwords;
use baregpu_isa::inst::{AccessMode, Body, Jump, Opcode, Src};
use baregpu_isa::text::{assemble, disassemble};
use baregpu_isa::{IsaGen, decode, encode};
use std::process::Command;

const PLATFORMS: [IsaGen; 5] = [
    IsaGen::Gen4,
    IsaGen::G45,
    IsaGen::Gen6,
    IsaGen::Gen7,
    IsaGen::Gen75,
];

fn bytes(forms: &[corpus::Form]) -> Vec<u8> {
    forms.iter().flat_map(|f| f.word.to_le_bytes()).collect()
}

#[test]
fn every_form_decodes_and_reencodes_exactly() {
    for p in PLATFORMS {
        for f in corpus::forms(p) {
            let inst = decode(p, f.word)
                .unwrap_or_else(|e| panic!("{p}: {}: {:08x?}: {e}", f.what, to_dwords(f.word)));
            assert_eq!(encode(p, &inst), Ok(f.word), "{p}: {}", f.what);
        }
    }
}

#[test]
fn the_unused_src1_of_an_immediate_form_keeps_mesas_copied_type() {
    // elk_set_src0 copies the immediate's type code (V = 6, a reserved
    // register type before Gen7) into src1 with file ARF.
    for p in PLATFORMS {
        let f = corpus::forms(p)
            .into_iter()
            .find(|f| f.what.starts_with("elk_MOV V immediate"))
            .expect("V form");
        let t = baregpu_isa::tables::for_platform(p);
        let code = ((f.word & t.fields.src1.ty.mask()) >> t.fields.src1.ty.lo) as u32;
        assert_eq!(code, emit::V, "{p}: the corpus sets the copied code");
        let inst = decode(p, f.word).unwrap();
        let Body::Alu(a) = inst.body else {
            panic!("{p}: mov is ALU")
        };
        let Src::Vacant(v) = a.src1 else {
            panic!("{p}: src1 is vacant after an immediate")
        };
        assert_eq!(t.vacant_code(v.file, v.ty), Some(6), "{p}: {v:?}");
    }
}

/// The corpus is well-formed code: the validator finds no error in it
/// (it catches a form no Mesa path would write).
#[test]
fn the_corpus_passes_the_validator() {
    use baregpu_isa::validate::{Severity, validate};
    for p in PLATFORMS {
        for f in corpus::forms(p) {
            let errors: Vec<_> = validate(p, &decode(p, f.word).unwrap())
                .into_iter()
                .filter(|v| v.severity == Severity::Error)
                .collect();
            assert!(errors.is_empty(), "{p}: {}: {errors:?}", f.what);
        }
    }
}

/// Whatever a compiler leaves in the file and type fields of a slot the
/// hardware does not read (every 2-bit file and 3-bit type code), the word
/// decodes, re-encodes to itself and disassembles symbolically.
#[test]
fn every_code_in_an_unread_slot_decodes_and_round_trips() {
    use baregpu_isa::inst::DstSlot;
    let mut swept = 0;
    for p in PLATFORMS {
        let f = &baregpu_isa::tables::for_platform(p).fields;
        for form in corpus::forms(p) {
            let inst = decode(p, form.word).unwrap();
            let mut slots = Vec::new();
            match &inst.body {
                Body::Alu(a) if matches!(a.src1, Src::Vacant(_)) => slots.push(f.src1),
                Body::Math(m) if matches!(m.src1, Src::Vacant(_)) => slots.push(f.src1),
                Body::Branch(b) => {
                    if matches!(b.src1, Src::Vacant(_)) {
                        slots.push(f.src1);
                    }
                    if matches!(b.dst, DstSlot::Vacant(_)) {
                        // The destination's file/type sit where src fields
                        // have theirs; reuse the shape with dst positions.
                        slots.push(baregpu_isa::tables::SrcFields {
                            file: f.dst.file,
                            ty: f.dst.ty,
                            ..f.src1
                        });
                    }
                }
                _ => {}
            }
            for s in slots {
                for file in 0..4u128 {
                    for ty in 0..8u128 {
                        let w = form.word & !(s.file.mask() | s.ty.mask())
                            | file << s.file.lo
                            | ty << s.ty.lo;
                        let i = decode(p, w).unwrap_or_else(|e| {
                            panic!("{p}: {} with file {file} type {ty}: {e}", form.what)
                        });
                        assert_eq!(encode(p, &i), Ok(w), "{p}: {}", form.what);
                        let b = w.to_le_bytes();
                        let text = disassemble(p, &b, false).unwrap();
                        assert!(!text.starts_with(".raw"), "{p}: {text}");
                        assert_eq!(assemble(p, &text).unwrap(), b.to_vec(), "{p}: {text}");
                        swept += 1;
                    }
                }
            }
        }
    }
    assert!(swept > 1000, "{swept}");
}

/// `.raw` lines and total lines of our disassembly.
fn raw_lines(text: &str) -> (usize, usize) {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let raw = lines
        .iter()
        .filter(|l| l.trim_start().starts_with(".raw"))
        .count();
    (raw, lines.len())
}

#[test]
fn disassembly_is_symbolic_and_reassembles_to_the_same_bits() {
    let (mut raw_all, mut all) = (0, 0);
    for p in PLATFORMS {
        let forms = corpus::forms(p);
        let bin = bytes(&forms);
        let text = disassemble(p, &bin, false).unwrap_or_else(|e| panic!("{p}: {e}"));
        let (raw, n) = raw_lines(&text);
        eprintln!("{p}: {raw} of {n} lines .raw");
        raw_all += raw;
        all += n;
        for (line, f) in text.lines().zip(&forms) {
            assert!(
                !line.starts_with(".raw"),
                "{p}: {} printed as {line}",
                f.what
            );
            let again = assemble(p, line).unwrap_or_else(|e| panic!("{p}: {line}: {e}"));
            assert_eq!(
                again,
                f.word.to_le_bytes().to_vec(),
                "{p}: {} -> {line}",
                f.what
            );
        }
        assert_eq!(text.lines().count(), forms.len(), "{p}");
        assert_eq!(assemble(p, &text).unwrap(), bin, "{p}: whole kernel");
    }
    eprintln!("all: {raw_all} of {all} lines .raw");
}

/// Mesa compacts what its tables allow (elk_eu_compact.c
/// elk_compact_instructions, G45 on): those of our forms that compact must
/// expand back exactly and disassemble symbolically as `{Compacted}`.
#[test]
fn compacted_forms_stay_exact_and_symbolic() {
    let mut compacted = 0;
    for p in [IsaGen::G45, IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75] {
        for f in corpus::forms(p) {
            let Some(c) = baregpu_isa::compact::compact(p, to_dwords(f.word)) else {
                continue;
            };
            compacted += 1;
            assert_eq!(
                baregpu_isa::compact::uncompact(p, c),
                Ok(to_dwords(f.word)),
                "{p}: {}",
                f.what
            );
            let bin: Vec<u8> = c.iter().flat_map(|d| d.to_le_bytes()).collect();
            let text = disassemble(p, &bin, false).unwrap();
            assert!(
                !text.starts_with(".raw") && text.contains("Compacted"),
                "{p}: {}: {text}",
                f.what
            );
            assert_eq!(assemble(p, &text).unwrap(), bin, "{p}: {}: {text}", f.what);
        }
    }
    assert!(compacted > 0, "some forms compact");
}

/// The mnemonic of one of our lines (after a predicate).
fn mnemonic(line: &str) -> &str {
    let l = line.trim_start();
    let l = if l.starts_with('(') {
        l.split_once(") ").map_or(l, |x| x.1)
    } else {
        l
    };
    l.split([' ', '.']).next().unwrap_or("")
}

/// Checks an oracle's line for one form: same mnemonic, and the immediate
/// (or Gen4 jump/pop counts, which gen4disasm prints as one immediate) as
/// the same number.
fn same_meaning(p: IsaGen, f: &corpus::Form, ours: &str, theirs: &str, tool: &str) {
    let ours_m = mnemonic(ours);
    let t = theirs.trim_start();
    let t = if t.starts_with('(') {
        t.split_once(')').map_or(t, |x| x.1.trim_start())
    } else {
        t
    };
    assert!(
        t.starts_with(ours_m),
        "{p}: {}: {tool} `{theirs}` vs ours `{ours}`",
        f.what
    );
    let inst = decode(p, f.word).unwrap();
    let lower = theirs.to_lowercase();
    let number = |v: u32| {
        lower.contains(&format!("{v:x}"))
            || lower.contains(&(v as i32).to_string())
            || lower.contains(&f32::from_bits(v).to_string())
            || lower.contains(&(v as u16 as i16).to_string())
            || lower.contains(&format!("{:x}", v as u16))
    };
    if let Some(Src::Imm(i)) = inst
        .srcs()
        .into_iter()
        .flatten()
        .find(|s| matches!(s, Src::Imm(_)))
        && !matches!(i.ty, baregpu_isa::inst::Type::Vf)
        // intel-gen4disasm reads UV with the Gen4 table (as UB).
        && !(i.ty == baregpu_isa::inst::Type::Uv && tool == "intel-gen4disasm")
        && inst.opcode != Opcode::Jmpi
    {
        assert!(
            number(i.bits as u32),
            "{p}: {}: {tool} `{theirs}` lacks immediate {:#x}",
            f.what,
            i.bits
        );
    }
    if let Body::Branch(b) = &inst.body
        && let Jump::Count { jump, pop } = b.jump
        && lower.contains('d')
        && !matches!(inst.opcode, Opcode::Cont | Opcode::Halt | Opcode::Do)
    {
        let raw = u32::from(pop) << 16 | (jump / 16) as u16 as u32;
        assert!(
            number(raw),
            "{p}: {}: {tool} `{theirs}` lacks jump/pop {raw:#x}",
            f.what
        );
    }
}

#[test]
fn iga_reads_the_same_instructions() {
    common::ensure_oracles();
    let dir = std::env::temp_dir().join(format!("mesa_forms_iga_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // iga64 has no platform before Haswell; Ivy Bridge shares its layout
    // for every form here.
    for p in [IsaGen::Gen7, IsaGen::Gen75] {
        let forms = corpus::forms(p);
        let ours = disassemble(p, &bytes(&forms), false).unwrap();
        for (f, line) in forms.iter().zip(ours.lines()) {
            // Mesa lands jmpi in 64-bit units from Gen5 on (elk_land_fwd_jump:
            // `jmpi = 2`), iga64 -p=7p5 reads bytes (see text/jumps.rs): the
            // target is not comparable.
            if mnemonic(line) == "jmpi" {
                continue;
            }
            let path = dir.join("one.bin");
            // Nops around the word keep its jump targets inside the kernel
            // (iga64 refuses targets past either end).
            let nop = corpus::forms(p)
                .pop()
                .expect("the corpus ends with nop")
                .word;
            assert_eq!(mnemonic(ours.lines().last().unwrap_or("")), "nop");
            let mut bin = Vec::new();
            for k in 0..25 {
                let w = if k == 12 { f.word } else { nop };
                bin.extend_from_slice(&w.to_le_bytes());
            }
            std::fs::write(&path, bin).unwrap();
            let out = Command::new("iga64")
                .args(["-d", "-p=7p5", path.to_str().unwrap()])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            let err = String::from_utf8_lossy(&out.stderr);
            // iga64 -p=7p5 has no Align16 two-source syntax (see diff_iga.rs)
            // and reads an Align16 send's swizzle as Align1 region fields.
            let a16 = decode(p, f.word).unwrap().access_mode == AccessMode::Align16;
            if err.to_lowercase().contains("align16") || (a16 && !out.status.success()) {
                eprintln!("{p}: iga64 cannot print {}: {}", f.what, err.trim());
                continue;
            }
            let theirs = text
                .lines()
                .filter(|l| !l.trim().is_empty() && !l.trim_end().ends_with(':'))
                .nth(12)
                .unwrap_or("");
            assert!(
                out.status.success() && !theirs.to_lowercase().contains("illegal"),
                "{p}: iga64 does not read {} ({:08x?}): {}{}",
                f.what,
                to_dwords(f.word),
                text,
                String::from_utf8_lossy(&out.stderr)
            );
            same_meaning(p, f, line, theirs, "iga64");
            // Jump targets: the word sits at byte 192.
            if let Body::Branch(b) = decode(p, f.word).unwrap().body {
                let targets = match b.jump {
                    Jump::JipUip { jip, uip } => vec![jip, uip],
                    Jump::Jip { jip } => vec![jip],
                    Jump::Count { .. } => vec![],
                };
                for t in targets {
                    let label = format!("L{}", 192 + t);
                    assert!(
                        theirs.split_whitespace().any(|w| w == label) || t == 0,
                        "{p}: {}: iga64 `{theirs}` lacks {label}",
                        f.what
                    );
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gen4disasm_reads_the_same_instructions() {
    common::ensure_oracles();
    let dir = std::env::temp_dir().join(format!("mesa_forms_g4_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (p, g) in [
        (IsaGen::Gen4, "4"),
        (IsaGen::G45, "4"),
        (IsaGen::Gen6, "6"),
        (IsaGen::Gen7, "7"),
    ] {
        let forms = corpus::forms(p);
        let ours = disassemble(p, &bytes(&forms), false).unwrap();
        // intel-gen4disasm reads one `{ 0x.., 0x.., 0x.., 0x.. },` line per
        // instruction.
        let mut src = String::new();
        for f in &forms {
            let d = to_dwords(f.word);
            src.push_str(&format!(
                "   {{ {:#010x}, {:#010x}, {:#010x}, {:#010x} }},\n",
                d[0], d[1], d[2], d[3]
            ));
        }
        let path = dir.join("in.txt");
        std::fs::write(&path, src).unwrap();
        let out = Command::new("intel-gen4disasm")
            .args(["-g", g, path.to_str().unwrap()])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        // A send prints its message on a second line; each instruction ends
        // with ';'.
        let mut theirs = Vec::new();
        let mut cur = String::new();
        for l in text.lines() {
            cur.push_str(l);
            cur.push(' ');
            if l.trim_end().ends_with(';') {
                theirs.push(std::mem::take(&mut cur));
            }
        }
        assert_eq!(
            theirs.len(),
            forms.len(),
            "{p}: intel-gen4disasm: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for ((f, line), t) in forms.iter().zip(ours.lines()).zip(&theirs) {
            // intel-gen4disasm's opcode table lacks lrp (Mesa emits it from
            // Gen6: elk_eu.c opcode_descs, LRP GFX_GE(GFX6)).
            if t.contains("invalid opcode value 92") {
                eprintln!("{p}: intel-gen4disasm does not know lrp");
                continue;
            }
            same_meaning(p, f, line, t, "intel-gen4disasm");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Prints every form with its disassembly:
/// `cargo test -p baregpu-isa --test mesa_forms dump -- --ignored --nocapture`.
#[test]
#[ignore]
fn dump() {
    for p in PLATFORMS {
        for f in corpus::forms(p) {
            let d = to_dwords(f.word);
            match decode(p, f.word) {
                Err(e) => println!("{p} DECODE {}: {d:08x?} {e}", f.what),
                Ok(_) => {
                    let t = disassemble(p, &f.word.to_le_bytes(), false).unwrap();
                    println!("{p} {}: {}", f.what, t.trim());
                }
            }
        }
    }
}

/// The explicit-slot syntax: a slot written as an operand may not be given
/// again, sends and three-source forms have no implicit slot, and a vacant
/// slot's `file:type` lands in the bits.
#[test]
fn explicit_slots_are_checked() {
    let p = IsaGen::Gen6;
    for bad in [
        "add (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f src1=r4.0<8;8,1>:f",
        "mov (8|M0) r1.0<1>:f 0x0:f dst=r2.0<1>:f",
        "send (8|M0) r10:ud m1.0<8;8,1>:ud 0x9 0x02180103 src1=arf:ud",
        "mov (8|M0) r1.0<1>:f 0x0:f src1=xrf:ud",
        "mov (8|M0) r1.0<1>:f src1=arf:f 0x0:f",
    ] {
        assert!(assemble(p, bad).is_err(), "{bad}");
    }
    let w = u128::from_le_bytes(
        assemble(p, "mov (8|M0) r1.0<1>:w 0x10:w src1=mrf:v")
            .unwrap()
            .try_into()
            .unwrap(),
    );
    let f = &baregpu_isa::tables::for_platform(p).fields.src1;
    assert_eq!((w & f.file.mask()) >> f.file.lo, 2, "MRF code");
    assert_eq!((w & f.ty.mask()) >> f.ty.lo, 6, "V code");
}
