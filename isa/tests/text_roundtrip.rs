//! Our syntax round trip on every generation: generated instructions are
//! printed, assembled back and must be identical (as instructions and as
//! bits); disassembling the bytes must reassemble to the same bytes.

mod common;

use baregpu_isa::IsaGen;
use baregpu_isa::codec::{encode, to_dwords};
use baregpu_isa::text::{Program, assemble, assemble_program, disassemble, print_instruction};
use common::{Oracle, generate, hex};

#[test]
fn print_parse_round_trip() {
    for p in IsaGen::ALL {
        let insts = generate(p, Oracle::Ours, 3000, 1);
        assert!(
            insts.len() >= 2500,
            "{p}: only {} instructions generated",
            insts.len()
        );
        let mut bad = Vec::new();
        let mut text = String::new();
        for inst in &insts {
            let line = print_instruction(p, inst);
            text.push_str(&line);
            text.push('\n');
            match assemble_program(p, &line) {
                Ok(v) => match v.as_slice() {
                    [
                        Program::Inst {
                            inst: back,
                            compacted: false,
                            ..
                        },
                    ] if back == inst => {}
                    other => bad.push(format!("{line}\n   {inst:?}\n-> {other:?}")),
                },
                Err(e) => bad.push(format!("{line}\n   error {e}")),
            }
        }
        assert!(
            bad.is_empty(),
            "{p}: {} of {} lines differ:\n{}",
            bad.len(),
            insts.len(),
            bad[..bad.len().min(8)].join("\n")
        );
        // Whole program, and disassembly of its bytes.
        let bytes = assemble(p, &text).unwrap_or_else(|e| panic!("{p}: {e}"));
        let expect: Vec<u8> = insts
            .iter()
            .flat_map(|i| {
                to_dwords(encode(p, i).unwrap())
                    .into_iter()
                    .flat_map(u32::to_le_bytes)
            })
            .collect();
        assert_eq!(bytes, expect, "{p}: assembled program differs");
        let dis = disassemble(p, &bytes, true).unwrap_or_else(|e| panic!("{p}: {e}"));
        let again = assemble(p, &dis).unwrap_or_else(|e| panic!("{p}: {e}"));
        assert_eq!(again, bytes, "{p}: disassembly does not reassemble");
        let raw = dis.lines().filter(|l| l.contains(".raw")).count();
        assert_eq!(raw, 0, "{p}: {raw} lines fell back to .raw");
        let _ = hex(0);
    }
}

#[test]
fn errors_have_positions_and_never_panic() {
    let p = IsaGen::Gen75;
    for (src, line, col) in [
        ("mov (8|M0) r1.0<1>:f r2.0<8;8,1>:q", 1, 34),
        ("\nfoo (8|M0) r1:f", 2, 1),
        ("mov (8|M0) r1.0<1>:f", 1, 1),
        ("add (8|M0) r1.0<1>:f r2.0<8;8,1>:f 5", 1, 36),
        ("jmpi L9", 1, 6),
        ("mov (3|M0) r1.0<1>:f r2.0<8;8,1>:f", 1, 6),
    ] {
        let e = assemble(p, src).expect_err(src);
        assert_eq!((e.line, e.col), (line, col), "{src}: {e}");
    }
    // Arbitrary junk: errors, no panic.
    let junk = [
        "(",
        "((W",
        "mov (",
        "r[",
        "send (8|M0) r1:ud r2 0xfff 0x0",
        ".raw 1",
        "mov (8|M0) r1.0<1;",
        "-:",
        "(f0.0.any99h) mov",
        "L:",
        ":",
        "mov (8|M0) r[a0.0,99999]<1>:f r1<8;8,1>:f",
        "x\u{e9}y",
    ];
    for j in junk {
        let _ = assemble(p, j);
        for cut in 0..j.len() {
            if j.is_char_boundary(cut) {
                let _ = assemble(p, &j[..cut]);
            }
        }
    }
}

#[test]
fn labels_resolve() {
    let p = IsaGen::Gen75;
    let src = "L0:\nif (8|M0) L1 L2\nelse (8|M0) L2\nL1:\nendif (8|M0) L2\nL2:\n(W) jmpi L0\nwhile (8|M0) L0\n";
    let v = assemble_program(p, src).unwrap();
    let text: Vec<String> = v
        .iter()
        .map(|i| match i {
            Program::Inst { inst, .. } => print_instruction(p, inst),
            Program::Raw(_) => String::new(),
        })
        .collect();
    assert_eq!(
        text,
        [
            "if (8|M0) 32 48",
            "else (8|M0) 32",
            "endif (8|M0) 16",
            "(W) jmpi (1|M0) -48",
            "while (8|M0) -64"
        ]
    );
}
