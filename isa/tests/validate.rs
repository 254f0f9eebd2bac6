//! The instruction validator: for every rule an instruction that breaks it
//! (the rule is reported on the right operand, with the right severity)
//! and a near-identical one that the validator passes without any finding;
//! kernel-level rules; realistic kernels of each generation that must be
//! clean; and robustness over generated and random instructions.
//!
//! Instructions come from the assembler (one line, decoded back) or are
//! built by changing one field of an assembled one when the syntax cannot
//! express the broken form. The expected rule of each case is the manual's
//! statement cited beside it.

mod common;

use baregpu_isa::IsaGen::{self, G45, Gen4, Gen6, Gen7, Gen75};
use baregpu_isa::inst::*;
use baregpu_isa::kernel::decode_kernel;
use baregpu_isa::text::assemble;
use baregpu_isa::validate::{Operand, Rule, Severity, Violation, validate, validate_kernel};

/// Assembles one line and decodes it back.
fn one(p: IsaGen, text: &str) -> Instruction {
    let bytes = assemble(p, text).unwrap_or_else(|e| panic!("{p}: `{text}`: {e}"));
    decode_kernel(p, &bytes).unwrap_or_else(|e| panic!("{p}: `{text}`: {e}"))[0].inst
}

fn show(v: &[Violation]) -> String {
    v.iter().map(|x| format!("\n    {x}")).collect()
}

use Operand::{Dst, Src0, Src1, Src2};
use Severity::{Error as E, Warning as W};

/// (platform, breaking line, passing line, rule, operand, severity).
pub type Case = (
    IsaGen,
    &'static str,
    &'static str,
    Rule,
    Option<Operand>,
    Severity,
);

#[path = "validate/built.rs"]
mod built;
#[path = "validate/cases.rs"]
mod cases;
#[path = "validate/kernels.rs"]
mod kernels;

use built::built;
use cases::CASES;
use kernels::{GEN4_KERNEL, GEN6_KERNEL, GEN7_KERNEL};

#[test]
fn every_case_breaks_its_rule_and_its_twin_passes() {
    let mut bad = Vec::new();
    for &(p, broken, fine, rule, at, sev) in CASES {
        let found = validate(p, &one(p, broken));
        if !found
            .iter()
            .any(|v| v.rule == rule && v.operand == at && v.severity == sev)
        {
            bad.push(format!(
                "{p}: `{broken}` should break {rule:?} on {at:?} ({sev:?}):{}",
                show(&found)
            ));
        }
        let clean = validate(p, &one(p, fine));
        if !clean.is_empty() {
            bad.push(format!("{p}: `{fine}` should pass:{}", show(&clean)));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn built_cases_break_their_rule_and_the_assembled_twin_passes() {
    let mut bad = Vec::new();
    for (p, broken, fine, rule, at, sev) in built() {
        let found = validate(p, &broken);
        if !found
            .iter()
            .any(|v| v.rule == rule && v.operand == at && v.severity == sev)
        {
            bad.push(format!(
                "{p}: {broken:?}\n  should break {rule:?} on {at:?} ({sev:?}):{}",
                show(&found)
            ));
        }
        let clean = validate(p, &fine);
        if !clean.is_empty() {
            bad.push(format!("{p}: {fine:?}\n  should pass:{}", show(&clean)));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

// ---- Rules over a whole kernel ----

/// The (offset, rule, severity) findings of a kernel.
fn kernel(p: IsaGen, text: &str) -> Vec<(usize, Rule, Severity)> {
    let bytes = assemble(p, text).unwrap_or_else(|e| panic!("{p}: {e}\n{text}"));
    validate_kernel(p, &bytes)
        .unwrap_or_else(|e| panic!("{p}: {e}"))
        .into_iter()
        .map(|(o, v)| (o, v.rule, v.severity))
        .collect()
}

#[test]
fn jumps_land_on_instructions() {
    // JIP counts bytes from the branch (003 lines 97017, 98537): 24 is the
    // middle of the 16-byte mov.
    let body = "mov (8|M0) r1.0<1>:f r2.0<8;8,1>:f\nendif (8|M0) 16\n";
    let mid = kernel(Gen6, &format!("(f0.0) if (8|M0) 24\n{body}"));
    assert_eq!(mid, [(0, Rule::JumpTarget, E)]);
    assert_eq!(kernel(Gen6, &format!("(f0.0) if (8|M0) 32\n{body}")), []);
    let far = kernel(Gen6, &format!("(f0.0) if (8|M0) 320\n{body}"));
    assert_eq!(far, [(0, Rule::JumpTarget, W)]);
    // Gen4 jmpi counts 16-byte units from the next instruction (000 lines
    // 11928-11953): 0 falls through, 1 skips one instruction.
    let j = "(W) jmpi (1|M0) L\nmov (8|M0) r1.0<1>:f r2.0<8;8,1>:f\nL:\nmov (8|M0) r3.0<1>:f r2.0<8;8,1>:f\n";
    assert_eq!(kernel(Gen4, j), []);
}

#[test]
fn g45_native_instructions_stay_16_byte_aligned() {
    // 000 lines 9078-9081: a native word after one compacted word sits at 8.
    let first = "add (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f {Compacted}\n";
    let bad = kernel(G45, &format!("{first}mov (8|M0) r4.0<1>:f 0x3f800000:f\n"));
    assert_eq!(bad, [(8, Rule::CompactAlignment, E)]);
    let good = kernel(
        G45,
        &format!(
            "{first}add (8|M0) r4.0<1>:f r5.0<8;8,1>:f r6.0<8;8,1>:f {{Compacted}}\nmov (8|M0) r4.0<1>:f 0x3f800000:f\n"
        ),
    );
    assert_eq!(good, []);
}

#[test]
fn no_wait_after_wait() {
    let two = "wait (1|M0) n0.0:ud\nwait (1|M0) n0.0:ud\n";
    assert_eq!(kernel(Gen4, two), [(16, Rule::WaitBackToBack, E)]);
    assert_eq!(kernel(Gen6, two), [(16, Rule::WaitBackToBack, E)]);
    assert_eq!(
        kernel(Gen6, "wait (1|M0) n0.0:ud\nnop\nwait (1|M0) n0.0:ud\n"),
        []
    );
}

#[test]
fn two_row_sources_after_branches_on_the_965() {
    // 000 lines 8565-8580, examples 5 and 7: a <8;4,1> source reads r4 and
    // r5 right after a predicated jmpi or if.
    let two_rows = "mov (8|M0) r10.0<1>:f r4.0<8;4,1>:f\n";
    let one_row = "mov (8|M0) r10.0<1>:f r4.0<8;8,1>:f\n";
    let after = |m: &str| format!("(f0.0) if (8|M0) 32\n{m}endif (8|M0) 0 pop(1)\n");
    assert_eq!(
        kernel(Gen4, &after(two_rows)),
        [(16, Rule::TwoRowAfterBranch, W)]
    );
    assert_eq!(kernel(Gen4, &after(one_row)), []);
    // Only the 965 and GM965 have the restriction.
    assert_eq!(kernel(G45, &after(two_rows)), []);
}

#[test]
fn realistic_kernels_are_clean() {
    let gen75 = GEN7_KERNEL.replace("r52.0<8;8,1>:df", "r52.0<4;4,1>:df");
    let kernels: [(IsaGen, &str); 5] = [
        (Gen4, GEN4_KERNEL),
        (G45, GEN4_KERNEL),
        (Gen6, GEN6_KERNEL),
        (Gen7, GEN7_KERNEL),
        (Gen75, &gen75),
    ];
    for (p, text) in kernels {
        let bytes = assemble(p, text).unwrap_or_else(|e| panic!("{p}: {e}"));
        let n = decode_kernel(p, &bytes).unwrap().len();
        assert!(n >= 40, "{p}: only {n} instructions");
        let found = validate_kernel(p, &bytes).unwrap();
        let text: Vec<String> = found.iter().map(|(o, v)| format!("@{o} {v}")).collect();
        assert!(found.is_empty(), "{p}:\n{}", text.join("\n"));
    }
}

/// The same line on two platforms: a rule of the first that the second
/// relaxed or never had.
#[rustfmt::skip]
const DIFFERENCES: &[(IsaGen, IsaGen, &str, Rule)] = &[
    // 000 line 8486: the 965 lacks the odd-byte destination relaxation.
    (Gen4, G45, "mov (1|M0) r0.1<1>:b r2.0<0;1,0>:w", Rule::DstAlignment),
    // 000 line 8798: 965 erratum on implicit accumulators at ExecSize 32.
    (Gen4, G45, "mac (32|M0) r4.0<1>:w r8.0<16;16,1>:w r12.0<16;16,1>:w {Compr}", Rule::ComprDevice),
    // 000 lines 8500-8504: no indirect src1 on the 965G.
    (Gen4, G45, "add (8|M0) r1.0<1>:d r2.0<8;8,1>:d r[a0.2,0]<8;8,1>:d", Rule::IndirectSrc1Device),
    // 16 MRFs before Gen6, 24 on Gen6 (003 line 90007).
    (Gen4, Gen6, "mov (8|M0) m16.0<1>:f r2.0<8;8,1>:f", Rule::RegisterNumber),
    // ExecSize 32 for words arrives with Gen7 (001 line 633).
    (Gen6, Gen7, "mov (32|M0) r4.0<1>:uw r2.0<16;16,1>:uw", Rule::ExecSizeLimit),
    // f1 arrives with Gen7 (001 line 635).
    (Gen6, Gen7, "mov (1|M0) r1.0<1>:uw f1.0<0;1,0>:uw", Rule::ArfNumber),
    // Gen6 math is SIMD8 only (003 line 99333).
    (Gen6, Gen7, "math.inv (16|M0) r2.0<1>:f r4.0<8;8,1>:f", Rule::OpcodeExecSize),
    // Gen7 drops the sel accumulator restriction (001 line 654).
    (Gen6, Gen7, "(f0.0) sel (8|M0) r1.0<1>:f acc0.0<8;8,1>:f r2.0<8;8,1>:f", Rule::AccOperand),
    // Integer compares read the accumulator again on Gen7 (001 line 652).
    (Gen6, Gen7, "cmp (8|M0) (lt)f0.0 r1.0<1>:d acc0.0<8;8,1>:d r2.0<8;8,1>:d", Rule::AccOperand),
    // Ivy Bridge only (001 line 672).
    (Gen7, Gen75, "add (16|M0) acc0.0<1>:f r2.0<8;8,1>:f r4.0<8;8,1>:f", Rule::AccWideExec),
    // Haswell runs SIMD16 Align16 on dwords [ext: Mesa supports_simd16_3src].
    (Gen7, Gen75, "mov (16|M0) r1.0<1>.xyzw:f r2.0<4>.xyzw:f {Align16}", Rule::Align16ExecSize),
];

#[test]
fn platform_differences() {
    for &(strict, relaxed, line, rule) in DIFFERENCES {
        let found = validate(strict, &one(strict, line));
        assert!(
            found.iter().any(|v| v.rule == rule),
            "{strict}: `{line}` should break {rule:?}:{}",
            show(&found)
        );
        let clean = validate(relaxed, &one(relaxed, line));
        assert!(
            clean.is_empty(),
            "{relaxed}: `{line}` should pass:{}",
            show(&clean)
        );
    }
    // Gen4's round-increment modifier is gone on Gen6 (003 lines 93945-93975).
    let round = "rndu (8|M0) (r)f0.1 r25.0<1>:f r23.0<8;8,1>:f";
    assert_eq!(validate(Gen4, &one(Gen4, round)), []);
}

/// Rules checked by the kernel tests above.
const KERNEL_RULES: [Rule; 4] = [
    Rule::JumpTarget,
    Rule::CompactAlignment,
    Rule::WaitBackToBack,
    Rule::TwoRowAfterBranch,
];

#[test]
fn every_rule_has_a_case() {
    let mut covered: Vec<Rule> = CASES.iter().map(|c| c.3).collect();
    covered.extend(built().into_iter().map(|b| b.3));
    covered.extend(KERNEL_RULES);
    let missing: Vec<Rule> = Rule::ALL
        .into_iter()
        .filter(|r| !covered.contains(r))
        .collect();
    assert!(missing.is_empty(), "rules without a test case: {missing:?}");
}

#[test]
fn messages_name_the_operand_the_fault_and_the_manual() {
    // 000 line 8545, example 3: one row of two dwords spanning r2 and r3.
    let v = validate(Gen4, &one(Gen4, "mov (2|M0) r1.0<1>:d r2.7<2;2,1>:d"));
    let [v] = v.as_slice() else { panic!("{v:?}") };
    assert_eq!(
        (v.rule, v.operand, v.severity),
        (Rule::SourceRowCrossing, Some(Src0), E)
    );
    assert!(
        v.message.starts_with("src0: r2.7<2;2,1>:d: "),
        "{}",
        v.message
    );
    assert!(v.message.ends_with("(000 line 8466)"), "{}", v.message);
    assert!(
        v.to_string()
            .starts_with("error [SourceRowCrossing]: src0:"),
        "{v}"
    );
    // Per-instruction rules cite their own page.
    let v = validate(
        Gen4,
        &one(
            Gen4,
            "cmp (8|M0) (lt)f0.0 (sat)r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f",
        ),
    );
    assert!(
        v.iter().any(|x| x.message.contains("000 line 11119")),
        "{}",
        show(&v)
    );
    // Every rule cites something on every platform.
    for p in IsaGen::ALL {
        for r in Rule::ALL {
            let c = r.citation(p);
            assert!(
                c.contains("line") || c.contains("[ext"),
                "{r:?} on {p}: {c}"
            );
        }
    }
}

#[test]
fn never_panics_on_generated_or_random_instructions() {
    let mut rng = common::Rng::new(0x5EED);
    for p in IsaGen::ALL {
        for oracle in [
            common::Oracle::Ours,
            common::Oracle::Iga,
            common::Oracle::Gen4asm,
        ] {
            for i in common::generate(p, oracle, 400, 3) {
                for v in validate(p, &i) {
                    assert!(v.message.ends_with(')'), "{p}: {v}");
                }
            }
        }
        // Valid words with a few bits flipped reach odd corners the
        // generator does not produce.
        let mut decoded = 0;
        for i in common::generate(p, common::Oracle::Ours, 200, 5) {
            let Ok(word) = baregpu_isa::encode(p, &i) else {
                continue;
            };
            for _ in 0..50 {
                let mut w = word;
                for _ in 0..1 + rng.below(3) {
                    w ^= 1u128 << rng.below(128);
                }
                if let Ok(i) = baregpu_isa::decode(p, w) {
                    decoded += 1;
                    let _ = validate(p, &i);
                }
            }
        }
        assert!(decoded > 1000, "{p}: only {decoded} mutated words decode");
        let bytes: Vec<u8> = (0..4096).map(|_| rng.next() as u8).collect();
        let _ = validate_kernel(p, &bytes);
    }
}

/// One fault, one finding: an ExecSize too large for the type is not
/// reported again as every operand spanning too many registers, and a
/// VertStride that breaks Width*HorzStride not again as too wide for the
/// type. Each other rule still fires alone.
#[test]
fn a_root_cause_is_reported_once() {
    for (p, text, want) in [
        (
            Gen75,
            "mov (32|M0) r1.0<1>:d r2.0<8;8,1>:d",
            vec![Rule::ExecSizeLimit],
        ),
        (
            Gen75,
            "mov (16|M0) r1.0<1>:df r2.0<8;8,1>:df",
            vec![Rule::ExecSizeLimit],
        ),
        (
            Gen6,
            "mov (8|M0) r1.0<1>:f r2.0<16;8,1>:f",
            vec![Rule::VertStrideMismatch],
        ),
        (
            Gen75,
            "mov (16|M0) r1.0<1>:d r2.0<32;8,4>:d",
            vec![Rule::VertStrideForType],
        ),
        // Without the cause, the consequence is reported.
        (
            Gen75,
            "mov (16|M0) r1.0<1>:w r2.0<16;4,4>:w",
            vec![Rule::SourceSpan],
        ),
    ] {
        let found = validate(p, &one(p, text));
        let rules: Vec<Rule> = found.iter().map(|v| v.rule).collect();
        assert_eq!(rules, want, "{p}: {text}:{}", show(&found));
    }
}

/// A send to an ARF with response length 0 writes nothing back: the
/// message says the destination field must still be a GRF or null, not
/// that the ARF is a writeback register.
#[test]
fn a_send_to_an_arf_without_response_is_not_called_a_writeback() {
    let found = validate(Gen75, &one(Gen75, "send (8|M0) acc0:ud r2 0xA 0x02000000"));
    let [v] = found.as_slice() else {
        panic!("{}", show(&found))
    };
    assert_eq!((v.rule, v.operand), (Rule::SendDestination, Some(Dst)));
    assert!(!v.message.contains("writeback register"), "{v}");
    assert!(v.message.contains("nothing is written back"), "{v}");
    let found = validate(Gen75, &one(Gen75, "send (8|M0) acc0:ud r2 0xA 0x02100000"));
    assert!(
        !found
            .iter()
            .any(|v| v.message.contains("nothing is written back")),
        "{}",
        show(&found)
    );
}

/// A word that does not decode does not hide the rest: it is reported at
/// its offset and the instructions after it are still checked, a jump
/// onto it still lands on an instruction start.
#[test]
fn validation_goes_on_past_an_undecodable_word() {
    use baregpu_isa::validate::validate_bytes;
    let p = Gen75;
    let mut bytes = assemble(
        p,
        "(W) jmpi 32\nnop\nadd (8|M0) r1.0<0>:d r1.0<8;8,1>:d 1:d\n",
    )
    .unwrap();
    // Opcode 0x7f is reserved: the nop at 16 becomes undecodable.
    bytes[16] = 0x7f;
    assert!(validate_kernel(p, &bytes).is_err());
    let r = validate_bytes(p, &bytes);
    assert_eq!(
        r.undecodable.iter().map(|e| e.offset).collect::<Vec<_>>(),
        [16]
    );
    assert_eq!(
        r.entries.iter().map(|e| e.offset).collect::<Vec<_>>(),
        [0, 32]
    );
    assert!(
        r.found
            .iter()
            .any(|(at, v)| *at == 32 && v.rule == Rule::DstHorzStrideZero),
        "{:?}",
        r.found
    );
    assert!(
        !r.found.iter().any(|(_, v)| v.rule == Rule::JumpTarget),
        "{:?}",
        r.found
    );
    // A compact word without an expansion is skipped as 8 bytes.
    let mut bytes = assemble(p, "nop\nadd (8|M0) r1.0<0>:d r1.0<8;8,1>:d 1:d\n").unwrap();
    bytes.splice(0..16, [0x7f, 0, 0, 0x20, 0xff, 0xff, 0xff, 0xff]);
    let r = validate_bytes(p, &bytes);
    assert_eq!(
        r.undecodable.iter().map(|e| e.offset).collect::<Vec<_>>(),
        [0]
    );
    assert_eq!(r.entries.iter().map(|e| e.offset).collect::<Vec<_>>(), [8]);
}
