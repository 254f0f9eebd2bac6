//! The Gen12.5 validator rules (`validate/xe.rs`) on small kernels written
//! in iga64's syntax: each rule fires on the broken form and stays quiet
//! on the corrected one.

use baregpu_isa::generation::IsaGen;
use baregpu_isa::text::assemble;
use baregpu_isa::validate::{Rule, Severity, validate_kernel};

/// The rules found in `src`, with severity, in order.
fn found(src: &str) -> Vec<(Rule, Severity)> {
    let bytes = assemble(IsaGen::Gen12_5, src).unwrap_or_else(|e| panic!("{src}: {e}"));
    validate_kernel(IsaGen::Gen12_5, &bytes)
        .unwrap()
        .into_iter()
        .map(|(_, v)| (v.rule, v.severity))
        .filter(|(r, _)| *r != Rule::NoRulesForGeneration)
        .collect()
}

// load.ugm.d32x4.a64 at SIMD16: 4 address registers, 8 data registers.
const LOAD: &str = "send.ugm (16|M0) r10 r20 null:0 0x0 0x08803580 {$1}\n";

#[test]
fn the_missing_rule_families_are_said_once() {
    let bytes = assemble(IsaGen::Gen12_5, LOAD).unwrap();
    let all = validate_kernel(IsaGen::Gen12_5, &bytes).unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].1.rule, Rule::NoRulesForGeneration);
    assert_eq!(all[0].1.severity, Severity::Warning);
}

#[test]
fn a_clean_kernel_has_no_findings() {
    let src = format!(
        "{LOAD}add (16|M0) r30.0<1>:f r10.0<1;1,0>:f r12.0<1;1,0>:f {{$1.dst}}\n\
         mul (16|M0) r40.0<1>:f r30.0<1;1,0>:f r14.0<1;1,0>:f {{@1}}\n\
         load.ugm.d32.a32 (16|M0) r50:2 [r60:2] {{$2}}\n\
         send.gtwy (1|M0) null r127 null:0 0x0 0x02000000 {{EOT,$2.dst}}\n"
    );
    assert_eq!(found(&src), vec![]);
}

#[test]
fn token_dependencies() {
    let raw = format!("{LOAD}add (16|M0) r30.0<1>:f r10.0<1;1,0>:f r12.0<1;1,0>:f\n");
    assert_eq!(
        found(&raw),
        vec![(Rule::XeTokenDependency, Severity::Warning)]
    );
    // Overwriting the send's address payload before its sources are read.
    let war = format!("{LOAD}mov (16|M0) r20.0<1>:f r2.0<1;1,0>:f\n");
    assert_eq!(
        found(&war),
        vec![(Rule::XeTokenDependency, Severity::Warning)]
    );
    let waited = format!("{LOAD}mov (16|M0) r20.0<1>:f r2.0<1;1,0>:f {{$1.src}}\n");
    assert_eq!(found(&waited), vec![]);
    let synced =
        format!("{LOAD}sync.allwr null\nadd (16|M0) r30.0<1>:f r10.0<1;1,0>:f r12.0<1;1,0>:f\n");
    assert_eq!(found(&synced), vec![]);
    // A different token does not help.
    let other = format!("{LOAD}add (16|M0) r30.0<1>:f r10.0<1;1,0>:f r12.0<1;1,0>:f {{$3.dst}}\n");
    assert_eq!(
        found(&other),
        vec![(Rule::XeTokenDependency, Severity::Warning)]
    );
}

#[test]
fn distance_dependencies() {
    let src = "add (16|M0) r30.0<1>:f r1.0<1;1,0>:f r2.0<1;1,0>:f\n\
               mov (16|M0) r50.0<1>:f r3.0<1;1,0>:f\n\
               mul (16|M0) r40.0<1>:f r30.0<1;1,0>:f r4.0<1;1,0>:f\n";
    assert_eq!(
        found(src),
        vec![(Rule::XeDistanceDependency, Severity::Warning)]
    );
    assert_eq!(
        found(&src.replace("r4.0<1;1,0>:f\n", "r4.0<1;1,0>:f {@2}\n")),
        vec![]
    );
    // @3 waits for an instruction older than the writer: not enough.
    let short = src.replace("r4.0<1;1,0>:f\n", "r4.0<1;1,0>:f {@3}\n");
    assert_eq!(
        found(&short),
        vec![(Rule::XeDistanceDependency, Severity::Warning)]
    );
    // Far enough back, the write has completed.
    let far = src.replace(
        "mov (16|M0) r50.0<1>:f r3.0<1;1,0>:f\n",
        &"mov (16|M0) r50.0<1>:f r3.0<1;1,0>:f\n".repeat(8),
    );
    assert_eq!(found(&far), vec![]);
}

#[test]
fn send_rules() {
    // mlen 2 where A64 addresses at SIMD16 take 4.
    let mlen = "send.ugm (16|M0) r10 r20 null:0 0x0 0x04803580 {$1}\n";
    assert_eq!(found(mlen), vec![(Rule::XeSendLength, Severity::Error)]);
    // A transposed load at SIMD16.
    let t = "send.ugm (16|M0) r10 r20 null:0 0x0 0x0220D500 {$1}\n";
    assert!(found(t).contains(&(Rule::XeLscShape, Severity::Error)));
    assert_eq!(found(&t.replace("(16|M0)", "(1|M0)")), vec![]);
    // Bit 16 is MBZ.
    let mbz = "send.ugm (16|M0) r10 r20 null:0 0x0 0x08813580 {$1}\n";
    assert_eq!(found(mbz), vec![(Rule::XeSendDescriptor, Severity::Error)]);
    // A d32x16 vector is too long untransposed.
    let v = "send.ugm (8|M0) r10 r20 null:0 0x0 0x03005500 {$1}\n";
    assert!(found(v).contains(&(Rule::XeLscShape, Severity::Error)));
    // The barrier sends one register.
    let bar = "send.gtwy (1|M0) null r20 null:0 0x0 0x04000004 {$1}\n";
    assert_eq!(found(bar), vec![(Rule::XeSendLength, Severity::Error)]);
    assert_eq!(found(&bar.replace("0x04000004", "0x02000004")), vec![]);
    // A store's second payload: d32 at SIMD16 takes 2 registers.
    let st = "send.ugm (16|M0) null r20 r30:1 0x0 0x04000504 {$1}\n";
    assert_eq!(found(st), vec![(Rule::XeSendLength, Severity::Error)]);
    assert_eq!(found(&st.replace("r30:1", "r30:2")), vec![]);
}

#[test]
fn region_rules() {
    let ok = "add (8|M0) r10.0<1>:f r20.0<8;8,1>:f r30.0<0;1,0>:f\n";
    assert_eq!(found(ok), vec![]);
    let vs = "add (8|M0) r10.0<1>:f r20.0<4;8,1>:f r30.0<0;1,0>:f\n";
    assert_eq!(found(vs), vec![(Rule::VertStrideMismatch, Severity::Error)]);
    let wide = "add (4|M0) r10.0<1>:f r20.0<8;8,1>:f r30.0<0;1,0>:f\n";
    assert!(found(wide).contains(&(Rule::WidthAboveExecSize, Severity::Error)));
    let zero = "add (8|M0) r10.0<1>:f r20.0<0;4,0>:f r30.0<0;1,0>:f\n";
    assert_eq!(found(zero), vec![(Rule::ZeroStridesWidth, Severity::Error)]);
    // 16 qwords a register apart each: four registers.
    let span = "mov (16|M0) r10.0<1>:uq r20.0<1;1,0>:uq\n";
    assert!(found(span).contains(&(Rule::SourceSpan, Severity::Error)));
    // iga64 accepts a scalar written <1;1,0>; Mesa does not: a warning.
    let scalar = "mov (1|M0) r88.0<1>:d r49.0<1;1,0>:d\n";
    assert_eq!(
        found(scalar),
        vec![(Rule::ScalarStrides, Severity::Warning)]
    );
}
