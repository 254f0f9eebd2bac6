//! Differential test against `intel-gen4asm` (intel-gpu-tools) on Gen4,
//! G45, Gen6 and Gen7: generated instructions are printed in gen4asm syntax
//! and assembled by it, and printed in our syntax and assembled by ours:
//! the bits must be identical.
//!
//! G45 is assembled with `-g 4`: gen4asm's `-g 5` is Ironlake, whose
//! message descriptor and opcode set differ; G45's ALU encoding is Gen4's
//! (000_5e6e9c0c4071cf6e.txt describes both; bit 28 MaskCtrlEx is the only
//! addition, which gen4asm cannot write and the generator leaves clear).
//!
//! The forms compared: Align1 and Align16 ALU instructions, Gen6+ `math`,
//! Gen6+ three-source, sends with each message target gen4asm knows,
//! branches and `jmpi`, with predication, condition modifiers and SIMD16
//! groups. What `text::gen4asm` leaves out, and why, is in its module
//! comment; every form must have identical instructions in the run.

mod common;

use baregpu_isa::IsaGen;
use baregpu_isa::codec::{encode, from_dwords};
use baregpu_isa::inst::{AccessMode, Body, Instruction, Opcode};
use baregpu_isa::text::{assemble, disassemble, gen4asm};
use common::{Oracle, ensure_oracles, generate, hex, scratch};
use std::collections::BTreeMap;
use std::fs;
use std::process::Command;

/// The form an instruction is counted under.
fn form(i: &Instruction) -> &'static str {
    match (&i.body, i.access_mode) {
        (Body::Alu(_), _) if i.opcode == Opcode::Jmpi => "jmpi",
        (Body::Alu(_), AccessMode::Align1) => "align1 alu",
        (Body::Alu(_), AccessMode::Align16) => "align16 alu",
        (Body::Math(_), _) => "math",
        (Body::ThreeSrc(_), _) => "three-source",
        (Body::Send(_), _) => "send",
        (Body::Branch(_), _) => "branch",
        _ => "other",
    }
}

fn run(p: IsaGen, g: &str) {
    let dir = scratch(&format!("diff-gen4asm-{g}-{}", p.name()));
    let insts = generate(p, Oracle::Gen4asm, 5000, 4);
    let printed: Vec<(usize, String)> = insts
        .iter()
        .enumerate()
        .filter_map(|(i, inst)| gen4asm::print(p, inst).map(|s| (i, s)))
        .collect();
    assert!(
        printed.len() >= 2000,
        "{p}: only {} of {} printable",
        printed.len(),
        insts.len()
    );
    let (src, out) = (dir.join("in.asm"), dir.join("out.txt"));
    let text: String = printed.iter().map(|(_, s)| format!("{s}\n")).collect();
    fs::write(&src, text).unwrap();
    let r = Command::new("intel-gen4asm")
        .args(["-g", g, src.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .output()
        .expect("run intel-gen4asm");
    assert!(
        r.status.success(),
        "{p}: intel-gen4asm failed: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    let words: Vec<u32> = fs::read_to_string(&out)
        .unwrap()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter_map(|t| t.strip_prefix("0x"))
        .map(|h| u32::from_str_radix(h, 16).unwrap())
        .collect();
    assert_eq!(words.len(), printed.len() * 4, "{p}: gen4asm output size");
    let mut bad = Vec::new();
    // Per form: generated, printed, identical, of those written `.raw`.
    let mut counts: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    for inst in &insts {
        counts.entry(form(inst)).or_default()[0] += 1;
    }
    for (k, (i, line)) in printed.iter().enumerate() {
        let theirs = from_dwords([
            words[4 * k],
            words[4 * k + 1],
            words[4 * k + 2],
            words[4 * k + 3],
        ]);
        let want = encode(p, &insts[*i]).unwrap();
        // Our text: the disassembler's line, which is `.raw` when the
        // syntax cannot state a field gen4asm sets implicitly.
        let ours_text = disassemble(p, &want.to_le_bytes(), false).unwrap();
        let ours = assemble(p, &ours_text).unwrap_or_else(|e| panic!("{p}: {ours_text}: {e}"));
        let c = counts.entry(form(&insts[*i])).or_default();
        c[1] += 1;
        if ours == want.to_le_bytes() && want == theirs {
            c[2] += 1;
            c[3] += usize::from(ours_text.starts_with(".raw"));
        } else {
            bad.push(format!(
                "{line}\n  ours: {}\n    ours    {}\n    gen4asm {}",
                ours_text.trim_end(),
                hex(want),
                hex(theirs)
            ));
        }
    }
    eprintln!(
        "{p} (-g {g}): {} generated, {} printed for gen4asm, {} identical",
        insts.len(),
        printed.len(),
        printed.len() - bad.len()
    );
    for (f, [n, pr, same, raw]) in &counts {
        eprintln!("  {f:>13}: {n:5} generated {pr:5} printed {same:5} identical ({raw} as .raw)");
    }
    let mut forms = vec!["align1 alu", "align16 alu", "branch", "jmpi", "send"];
    if p >= IsaGen::Gen6 {
        forms.extend(["math", "three-source"]);
    }
    for f in forms {
        let same = counts.get(f).map_or(0, |c| c[2]);
        assert!(same >= 50, "{p}: only {same} {f} instructions compared");
    }
    assert!(
        bad.is_empty(),
        "{p}: {} mismatches:\n{}",
        bad.len(),
        bad[..bad.len().min(25)].join("\n")
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn gen4_against_gen4asm() {
    ensure_oracles();
    run(IsaGen::Gen4, "4");
}

#[test]
fn g45_against_gen4asm() {
    ensure_oracles();
    run(IsaGen::G45, "4");
}

#[test]
fn gen6_against_gen4asm() {
    ensure_oracles();
    run(IsaGen::Gen6, "6");
}

#[test]
fn gen7_against_gen4asm() {
    ensure_oracles();
    run(IsaGen::Gen7, "7");
}
