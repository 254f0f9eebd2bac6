//! Differential test against `iga64 -p=7p5` (Intel's assembler, Haswell):
//! thousands of generated Gen7.5 instructions are printed in our syntax and
//! assembled by both our assembler and iga64 (native, no compaction): the
//! bits must be identical. Our disassembly of what iga64 assembled must
//! reassemble to the same bits, and iga64 must disassemble our bits.
//!
//! Forms left out of the generator for this oracle (see `common`):
//! * Align16 two-source instructions and three-source operands other than
//!   `<2;1>`/`<0;0>`/`<1>`/`<0>` with a `.xyzw` destination: iga64 7p5
//!   rejects them ("unsupported Align16 ChEn; only <1> (.xyzw) supported",
//!   "unconvertible ternary align16 operand").
//! * call/ret/jmpi-with-register, calla, wait, nop: iga64 fixes their implicit
//!   operands; they are checked in our own round trip.

mod common;

use baregpu_isa::IsaGen;
use baregpu_isa::codec::{encode, from_dwords, to_dwords};
use baregpu_isa::text::{assemble, disassemble, print_instruction};
use common::{Oracle, ensure_oracles, generate, hex, iga, scratch};
use std::fs;

const P: IsaGen = IsaGen::Gen75;

#[test]
fn gen75_against_iga64() {
    ensure_oracles();
    let dir = scratch("diff-iga");
    let body = generate(P, Oracle::Iga, 4000, 75);
    assert!(body.len() >= 3500, "generated {}", body.len());
    // iga64 refuses branches that leave the kernel: pad both ends.
    let pad = match baregpu_isa::text::assemble_program(P, "mov (8|M0) r1.0<1>:f r2.0<8;8,1>:f")
        .unwrap()
        .as_slice()
    {
        [baregpu_isa::text::Program::Inst { inst, .. }] => *inst,
        _ => unreachable!(),
    };
    let mut insts = vec![pad; 40];
    insts.extend(body);
    insts.extend([pad; 40]);
    let lines: Vec<String> = insts.iter().map(|i| print_instruction(P, i)).collect();
    let (keep, bin, rejected) = common::iga_assemble("7p5", &lines, &dir);
    assert_eq!(bin.len(), keep.len() * 16, "iga64 output size");
    let mut mismatches = Vec::new();
    for (k, &i) in keep.iter().enumerate() {
        let dw: Vec<u32> = bin[k * 16..k * 16 + 16]
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let theirs = from_dwords([dw[0], dw[1], dw[2], dw[3]]);
        let ours = encode(P, &insts[i]).unwrap();
        let asm = assemble(P, &lines[i]).unwrap();
        if ours != theirs || asm != ours.to_le_bytes() {
            mismatches.push(format!(
                "{}\n    ours  {}\n    iga64 {}",
                lines[i],
                hex(ours),
                hex(theirs)
            ));
        }
    }
    eprintln!(
        "gen7.5: {} generated, {} assembled by iga64, {} identical, {} rejected by iga64",
        insts.len(),
        keep.len(),
        keep.len() - mismatches.len(),
        rejected.len()
    );
    for r in rejected.iter().take(20) {
        eprintln!("  rejected: {r}");
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(30)].join("\n")
    );
    assert!(
        rejected.len() * 50 <= insts.len(),
        "iga64 rejected {} lines:\n{}",
        rejected.len(),
        rejected.join("\n")
    );

    // Our disassembly of iga64's bits reassembles to them.
    let dis = disassemble(P, &bin, false).expect("disassemble iga64 output");
    let again = assemble(P, &dis).expect("reassemble our disassembly");
    assert_eq!(again, bin, "disassembly of iga64 bits does not reassemble");

    // iga64 disassembles our bits.
    let ours: Vec<u8> = keep
        .iter()
        .flat_map(|&i| {
            to_dwords(encode(P, &insts[i]).unwrap())
                .into_iter()
                .flat_map(u32::to_le_bytes)
        })
        .collect();
    let f = dir.join("ours.bin");
    fs::write(&f, &ours).unwrap();
    let r = iga(&["-p=7p5", "-d", f.to_str().unwrap(), "-Wnone"]);
    assert!(
        r.status.success(),
        "iga64 -d failed on our bits: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    let text = String::from_utf8_lossy(&r.stdout);
    let count = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_end().ends_with(':'))
        .count();
    assert_eq!(count, keep.len(), "iga64 -d printed {count} instructions");
    let _ = fs::remove_dir_all(&dir);
}
