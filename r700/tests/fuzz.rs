//! Random words never panic the decoders; whatever decodes re-encodes to the same bits.
//! Plus hand-checked encodings from llc objects and reserved-encoding errors.

use baregpu_r700::DecodeError;
use baregpu_r700::alu::{AluForm, AluGroup, AluInst};
use baregpu_r700::cf::{CfInst, CfOp, ExportWord1};
use baregpu_r700::fetch::{TexInst, VtxInst};
use baregpu_r700::program::Program;
use baregpu_r700::{asm, llvm_text};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
}

/// The program decodes, prints as exact text, and assembles back to the same bytes.
fn text_round_trip(words: &[u32]) {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let p = Program::decode(&bytes).unwrap_or_else(|e| panic!("{e}: {words:08x?}"));
    let exact = llvm_text::program_exact(&p).join("\n");
    assert_eq!(asm::assemble(&exact).as_ref(), Ok(&bytes), "{exact}");
}

#[test]
fn random_words_round_trip_or_error() {
    let mut r = Rng(0x1234_5678_9ABC_DEF1);
    let (mut cf_ok, mut alu_ok, mut tex_ok, mut vtx_ok) = (0, 0, 0, 0);
    for _ in 0..400_000 {
        let w = [
            r.next(),
            r.next(),
            r.next(),
            r.next() & if r.next() & 1 == 0 { 0 } else { !0 },
        ];
        if let Ok(i) = CfInst::decode(w[0], w[1]) {
            assert_eq!(i.encode(), (w[0], w[1]), "{i:?}");
            cf_ok += 1;
            // Through the exact text and back, followed by a CF_END (clause starters
            // would need their clause; they are covered by the llc corpus).
            if !matches!(i, CfInst::Alu(_))
                && !matches!(i, CfInst::Word(w) if matches!(w.op, CfOp::Tex | CfOp::Vtx | CfOp::VtxTc))
            {
                text_round_trip(&[w[0], w[1], 0, 0x8020_0000]);
            }
        }
        if let Ok(i) = AluInst::decode(w[0], w[1]) {
            assert_eq!(i.encode(), (w[0], w[1]), "{i:?}");
            alu_ok += 1;
            // Through the exact text and back, as a one-group clause with its literals.
            if i.last {
                let lits = AluGroup::literal_dwords(&[i]);
                let mut bytes = Vec::new();
                for v in [
                    2u32,
                    0xA000_0000 | ((lits / 2) as u32) << 18,
                    0,
                    0x8020_0000,
                    w[0],
                    w[1],
                ] {
                    bytes.extend_from_slice(&v.to_le_bytes());
                }
                bytes.extend(std::iter::repeat_n(0x3Fu8, lits * 4));
                let p = Program::decode(&bytes).unwrap();
                let exact = llvm_text::program_exact(&p).join("\n");
                assert_eq!(asm::assemble(&exact).as_ref(), Ok(&bytes), "{exact}");
            }
        }
        // Fetch words as they come, and with the reserved bits cleared half the time
        // so that the field round trips are exercised too.
        let clear = r.next() & 1 == 0;
        let t = if clear {
            [w[0] & 0x01FF_FFBF, w[1] & !0x100, w[2], 0]
        } else {
            w
        };
        if let Ok(i) = TexInst::decode(t) {
            assert_eq!(i.encode(), t, "{i:?}");
            text_round_trip(&[2, 0x8080_0000, 0, 0x8020_0000, t[0], t[1], t[2], t[3]]);
            tex_ok += 1;
        }
        let v = if clear {
            [w[0] & !0x1E, w[1] & !0x100, w[2] & 0x1F_FFFF, 0]
        } else {
            w
        };
        if let Ok(i) = VtxInst::decode(v) {
            assert_eq!(i.encode(), v, "{i:?}");
            text_round_trip(&[2, 0x8100_0000, 0, 0x8020_0000, v[0], v[1], v[2], v[3]]);
            vtx_ok += 1;
        }
    }
    // Each decoder accepts a real share of random words, so the round trips were exercised.
    assert!(
        cf_ok > 10_000 && alu_ok > 10_000 && tex_ok > 1_000 && vtx_ok > 100,
        "{cf_ok} {alu_ok} {tex_ok} {vtx_ok}"
    );
}

#[test]
fn random_programs_never_panic_and_round_trip() {
    let mut r = Rng(0xDEAD_BEEF_0BAD_F00D);
    let mut ok = 0;
    for n in 0..40_000 {
        let len = 2 + (r.next() % 24) as usize;
        let mut bytes = Vec::with_capacity(len * 8);
        for k in 0..len * 2 {
            // Mostly small words, so addresses land inside the binary often.
            let w = match r.next() % 4 {
                0 => r.next(),
                1 => r.next() % 24,
                2 => (r.next() & 0xFFE0_0000) | (r.next() % 24),
                _ => 0,
            };
            let w = if k == 1 && n % 2 == 0 { w | 1 << 21 } else { w };
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        if n % 7 == 0 {
            bytes.pop();
        }
        if let Ok(p) = Program::decode(&bytes) {
            assert_eq!(p.encode(), bytes);
            let exact = llvm_text::program_exact(&p).join("\n");
            assert_eq!(asm::assemble(&exact).as_ref(), Ok(&bytes), "{exact}");
            // The validator takes any decoded program without panicking.
            let _ = baregpu_r700::validate::validate(&p);
            ok += 1;
        }
    }
    assert!(ok > 100, "only {ok} random programs decoded");
}

/// `ADD * T0.W, T1.X, literal.x` with literal 2.0, from an llc rv770 object.
#[test]
fn llc_alu_group_with_literal() {
    let slots = [(0x801F_A001, 0x6000_0010), (0x4000_0000, 0)];
    let (g, n) = AluGroup::decode(&slots, 0).unwrap();
    assert_eq!(n, 2);
    assert_eq!(g.literals, [0x4000_0000, 0]);
    let i = g.insts[0];
    assert!(matches!(
        i.form,
        AluForm::Op2 {
            opcode: 0,
            write_mask: true,
            ..
        }
    ));
    assert_eq!(
        (i.dst_gpr, i.dst_chan, i.src0.sel, i.src1.sel),
        (0, 3, 1, 253)
    );
    assert_eq!(llvm_text::alu(&i), "  ADD * T0.W, T1.X, literal.x,  ");
    assert_eq!(
        llvm_text::literals(&g),
        ["1073741824(2.000000e+00), 0(0.000000e+00)"]
    );
}

/// The CF words of an llc vertex shader: CALL_FS, ALU, two EXPORTs, CF_END.
#[test]
fn llc_cf_words() {
    let words = [
        (0x0000_0000, 0x8980_0000u32),
        (0x0000_0006, 0xA020_0000),
        (0xC001_203C, 0x9400_0688),
        (0xC000_C000, 0x9420_0688),
        (0x0000_0000, 0x8020_0000),
    ];
    let text: Vec<_> = words
        .iter()
        .map(|&(a, b)| llvm_text::cf(&CfInst::decode(a, b).unwrap()))
        .collect();
    assert_eq!(
        text,
        [
            "CALL_FS",
            "ALU 8, @6, KC0[], KC1[]",
            "EXPORT T2.XYZW",
            "EXPORT T1.XYZW",
            "CF_END"
        ]
    );
    match CfInst::decode(0xC001_203C, 0x9400_0688).unwrap() {
        CfInst::Export(e) => {
            assert_eq!((e.array_base, e.kind, e.rw_gpr, e.elem_size), (60, 1, 2, 3));
            assert_eq!(e.word1, ExportWord1::Swiz { sel: [0, 1, 2, 3] });
            assert!(!e.end_of_program);
        }
        other => panic!("{other:?}"),
    }
    let CfInst::Word(w) = CfInst::decode(0, 0x8020_0000).unwrap() else {
        panic!()
    };
    assert_eq!((w.op, w.end_of_program, w.barrier), (CfOp::Nop, true, true));
}

#[test]
fn reserved_encodings_are_errors() {
    // CF_WORD1 CF_INST 25 and CF_ALU_WORD1 CF_INST 12.
    assert_eq!(
        CfInst::decode(0, 25 << 23),
        Err(DecodeError::ReservedOpcode {
            format: "CF_WORD1",
            opcode: 25
        })
    );
    assert_eq!(
        CfInst::decode(0, 12 << 26),
        Err(DecodeError::ReservedOpcode {
            format: "CF_ALU_WORD1",
            opcode: 12
        })
    );
    // CF_WORD1 bit 20.
    assert!(matches!(
        CfInst::decode(0, 1 << 20),
        Err(DecodeError::ReservedBits { .. })
    ));
    // OP2 opcode 84, OP3 opcode 27, PRED_SEL 1, BANK_SWIZZLE 6, SRC_SEL 200.
    assert!(matches!(
        AluInst::decode(0, 84 << 7),
        Err(DecodeError::ReservedOpcode { opcode: 84, .. })
    ));
    assert!(matches!(
        AluInst::decode(0, 27 << 13),
        Err(DecodeError::ReservedOpcode { opcode: 27, .. })
    ));
    assert!(matches!(
        AluInst::decode(1 << 29, 0),
        Err(DecodeError::ReservedValue {
            field: "PRED_SEL",
            ..
        })
    ));
    assert!(matches!(
        AluInst::decode(0, 6 << 18),
        Err(DecodeError::ReservedValue {
            field: "BANK_SWIZZLE",
            ..
        })
    ));
    assert!(matches!(
        AluInst::decode(200, 0),
        Err(DecodeError::ReservedValue {
            field: "SRC*_SEL",
            ..
        })
    ));
    // TEX_INST 13, a non-zero fourth dword.
    assert!(matches!(
        TexInst::decode([13, 0, 0, 0]),
        Err(DecodeError::ReservedOpcode { .. })
    ));
    assert!(matches!(
        TexInst::decode([16, 0, 0, 1]),
        Err(DecodeError::ReservedBits { .. })
    ));
    // A group of six slots without LAST.
    let six = [(0u32, 0x0000_0C80u32); 6];
    assert!(matches!(
        AluGroup::decode(&six, 0),
        Err(DecodeError::GroupTooLong { .. })
    ));
    // A program without END_OF_PROGRAM, and one whose clause lies past the end.
    assert_eq!(Program::decode(&[0; 16]), Err(DecodeError::NoEndOfProgram));
    let mut p = Vec::new();
    for w in [4u32, 0xA000_0000 | 1 << 18, 0, 0x8020_0000] {
        p.extend_from_slice(&w.to_le_bytes());
    }
    assert!(matches!(
        Program::decode(&p),
        Err(DecodeError::Truncated { .. })
    ));
}

/// Mutated exact text never panics the assembler; it assembles or names the line.
#[test]
fn mutated_text_never_panics_the_assembler() {
    let mut words = vec![
        2u32,
        0xA004_0000,
        0xC001_203C,
        0x9420_0688,
        0,
        0x8020_0000,
        0,
        0, // CF: ALU, EXPORT_DONE, NOP, CF_END
    ];
    words[0] = 4;
    // ALU clause at slot 4: ADD * T0.W, T1.X, literal.x with its literal slot.
    words.extend([0x801F_A001, 0x6000_0010, 0x4000_0000, 0]);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let p = Program::decode(&bytes).unwrap();
    let text = llvm_text::program_exact(&p).join("\n");
    assert_eq!(asm::assemble(&text).as_ref(), Ok(&bytes), "{text}");
    let alphabet: Vec<char> = " ,.;:=*|-+_@[]0123456789TXYZWKCPSVlitera\u{e9}\n"
        .chars()
        .collect();
    let mut r = Rng(0x0123_4567_89AB_CDEF);
    let mut errors = 0;
    for _ in 0..20_000 {
        let mut t: Vec<char> = text.chars().collect();
        for _ in 0..1 + r.next() % 3 {
            let at = r.next() as usize % t.len();
            match r.next() % 3 {
                0 => t[at] = alphabet[r.next() as usize % alphabet.len()],
                1 => t.insert(at, alphabet[r.next() as usize % alphabet.len()]),
                _ => {
                    t.remove(at);
                }
            }
        }
        let t: String = t.into_iter().collect();
        if let Err(e) = asm::assemble(&t) {
            assert!(e.line >= 1 && !e.msg.is_empty());
            errors += 1;
        }
    }
    assert!(
        errors > 1000,
        "mutations should mostly be rejected ({errors})"
    );
}
