//! Hand-made programs that break one rule each must be rejected with that rule (and a
//! legal neighbour, where one exists, must pass). llc's whole corpus validating clean is
//! checked in `llvm_diff.rs`.

use baregpu_r700::asm::assemble;
use baregpu_r700::cf::CfInst;
use baregpu_r700::program::{Clause, Program};
use baregpu_r700::validate::{Place, Rule, Violation, validate};

/// A program: one ALU clause at slot 2 (each line one slot) locking `kc` for KC0.
fn alu(kc: &str, lines: &[&str]) -> Program {
    let text = format!(
        "ALU {}, @2, KC0[{kc}], KC1[]\nCF_END\nALU clause starting at 2:\n{}",
        lines.len() - 1,
        lines.join("\n")
    );
    let bin = assemble(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    Program::decode(&bin).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn rules(p: &Program) -> Vec<Rule> {
    validate(p).iter().map(|v| v.rule).collect()
}

/// The program breaks `rule` (and the first such violation is at `place`), nothing else.
fn rejects(p: &Program, rule: Rule, place: Place) {
    let v: Vec<Violation> = validate(p);
    let hit = v.iter().find(|v| v.rule == rule);
    let Some(hit) = hit else {
        panic!("expected {rule:?}, got {v:?}");
    };
    assert_eq!(hit.place, place, "{hit}");
    // The message names place, rule and the manual.
    let msg = hit.to_string();
    assert!(msg.contains(rule.name()) && msg.contains("002"), "{msg}");
    let others: Vec<&Violation> = v.iter().filter(|v| v.rule != rule).collect();
    assert!(others.is_empty(), "other rules broken too: {others:?}");
}

fn clean(p: &Program) {
    let v = validate(p);
    assert!(v.is_empty(), "{v:?}");
}

fn at(group: usize, slot: usize) -> Place {
    Place::Group {
        clause: 2,
        group,
        slot: Some(slot),
    }
}

fn group(group: usize) -> Place {
    Place::Group {
        clause: 2,
        group,
        slot: None,
    }
}

#[test]
fn legal_groups_pass() {
    clean(&alu(
        "CB0:0-16",
        &[
            "  MUL_IEEE   T1.X, T1.X, T1.Y,  ",
            "  ADD   T1.Y, T2.Y, KC0[3].Z,  ",
            "  RECIPSQRT_IEEE * T0.Z, T2.X,  ",
            "  ADD * T1.Z, PV.Y, PS,  ",
        ],
    ));
}

#[test]
fn last_bit() {
    let mut p = alu(
        "",
        &["  ADD   T1.X, T1.X, T1.Y,  ", "  ADD * T1.Y, T1.X, T1.Y,  "],
    );
    let Some(Clause::Alu(g)) = p.clauses.get_mut(&2) else {
        panic!()
    };
    g[0].insts[0].last = true;
    rejects(&p, Rule::LastBit, at(0, 0));
}

#[test]
fn slot_assignment() {
    // The third .X writer finds ALU.X and ALU.Trans taken (and the second, on
    // ALU.Trans, is not last).
    let v = validate(&alu(
        "",
        &[
            "  ADD   T1.X, T2.X, T2.Y,  ",
            "  ADD   T3.X, T2.X, T2.Y,  ",
            "  ADD * T4.X, T2.X, T2.Y,  ",
        ],
    ));
    let got: Vec<(Rule, Place)> = v.iter().map(|v| (v.rule, v.place)).collect();
    assert_eq!(
        got,
        vec![
            (Rule::TransNotLast, at(0, 1)),
            (Rule::SlotAssignment, at(0, 2))
        ]
    );
    // A vector-only opcode cannot move to ALU.Trans.
    rejects(
        &alu(
            "",
            &[
                "  ADD   T1.X, T2.X, T2.Y,  ",
                "  MOVA_INT * T0.X (MASKED), T2.X,  ",
            ],
        ),
        Rule::SlotAssignment,
        at(0, 1),
    );
}

#[test]
fn trans_not_last() {
    rejects(
        &alu(
            "",
            &[
                "  RECIP_IEEE   T1.X, T2.X,  ",
                "  ADD * T1.Y, T2.Y, T2.Y,  ",
            ],
        ),
        Rule::TransNotLast,
        at(0, 0),
    );
}

#[test]
fn slot_order() {
    rejects(
        &alu(
            "",
            &["  ADD   T1.Y, T2.Y, T2.Y,  ", "  ADD * T1.X, T2.X, T2.X,  "],
        ),
        Rule::SlotOrder,
        at(0, 1),
    );
}

#[test]
fn reductions_span_all_four_units() {
    let dot = |w_op: &str| {
        alu(
            "",
            &[
                "  DOT4   T1.X, T2.X, T3.X,  ",
                "  DOT4   T1.Y (MASKED), T2.Y, T3.Y,  ",
                "  DOT4   T1.Z (MASKED), T2.Z, T3.Z,  ",
                &format!("  {w_op} * T1.W (MASKED), T2.W, T3.W,  "),
            ],
        )
    };
    clean(&dot("DOT4"));
    rejects(&dot("MUL_IEEE"), Rule::Reduction, at(0, 0));
    // Same opcode but another output modifier.
    let mut p = dot("DOT4");
    let Some(Clause::Alu(g)) = p.clauses.get_mut(&2) else {
        panic!()
    };
    g[0].insts[3].clamp = true;
    rejects(&p, Rule::Reduction, at(0, 0));
}

#[test]
fn double_precision_pairs() {
    rejects(
        &alu(
            "",
            &[
                "  ADD_64   T1.X, T2.X, T3.X,  ",
                "  ADD * T1.Y, T2.Y, T3.Y,  ",
            ],
        ),
        Rule::DoublePrecision,
        at(0, 0),
    );
    clean(&alu(
        "",
        &[
            "  ADD_64   T1.X, T2.X, T3.X,  ",
            "  ADD_64 * T1.Y, T2.Y, T3.Y,  ",
        ],
    ));
}

#[test]
fn once_per_group() {
    rejects(
        &alu(
            "",
            &[
                "  PRED_SETE   ExecMask,PredicateBit (MASKED), T1.X, T2.X,  ",
                "  KILLGT * T1.Y, T2.Y, T3.Y,  ",
            ],
        ),
        Rule::OncePerGroup,
        at(0, 1),
    );
}

#[test]
fn two_double_precision_predicate_sets_fill_one_group() {
    // 002 lines 5422-5424: two PRED_SETE_64 in slots 0-3 are legal, a third predicate
    // set beside them is not.
    let lines = [
        "  PRED_SETE_64   T1.X (MASKED), T2.X, T3.X,  ",
        "  PRED_SETE_64   T1.Y (MASKED), T2.Y, T3.Y,  ",
        "  PRED_SETE_64   T1.Z (MASKED), T2.Z, T3.Z,  ",
        "  PRED_SETE_64 * T1.W (MASKED), T2.W, T3.W,  ",
    ];
    clean(&alu("", &lines));
    let mut more = lines.to_vec();
    more[3] = "  PRED_SETE_64   T1.W (MASKED), T2.W, T3.W,  ";
    more.push("  PRED_SETE * T4.X (MASKED), T3.X, T3.Y,  ");
    rejects(&alu("", &more), Rule::OncePerGroup, at(0, 4));
}

#[test]
fn predicate_bits() {
    rejects(
        &alu("", &["  ADD * Pred,T1.X, T2.X, T2.Y,  "]),
        Rule::PredicateBits,
        at(0, 0),
    );
}

#[test]
fn trans_bank_swizzle() {
    rejects(
        &alu("", &["  RECIP_IEEE * T1.X, T2.X,  BS:VEC_201"]),
        Rule::BankSwizzle,
        at(0, 0),
    );
}

#[test]
fn gpr_read_ports_002_lines_1513_1526() {
    // The manual's illegal example: R1.X and R3.X both on the X port in cycle 0 ...
    rejects(
        &alu(
            "",
            &[
                "  MUL_IEEE   T0.X, T1.X, T2.X,  ",
                "  MUL_IEEE * T0.Y, T3.X, T1.Y,  ",
            ],
        ),
        Rule::GprReadPort,
        at(0, 1),
    );
    // ... and its fix with VEC_201 on the second instruction.
    clean(&alu(
        "",
        &[
            "  MUL_IEEE   T0.X, T1.X, T2.X,  ",
            "  MUL_IEEE * T0.Y, T3.X, T1.Y,  BS:VEC_201",
        ],
    ));
    // src0 = src1 shares one read (002 lines 1488-1500).
    clean(&alu(
        "",
        &[
            "  MUL_IEEE   T0.X, T1.X, T1.X,  ",
            "  MUL_IEEE * T0.Y, T1.Y, T1.Y,  BS:VEC_120/SCL_212",
        ],
    ));
}

#[test]
fn constant_read_ports() {
    // Three cfile pairs (C0.xy, C1.xy, C2.xy): R700 has two.
    rejects(
        &alu(
            "",
            &[
                "  ADD   T0.X, C0.X, T1.X,  ",
                "  ADD   T0.Y, C1.Y, T1.Y,  ",
                "  ADD * T0.Z, C2.X, T1.Z,  ",
            ],
        ),
        Rule::ConstReadPort,
        at(0, 2),
    );
    // Four elements from two pairs are fine.
    clean(&alu(
        "CB0:0-16",
        &[
            "  ADD   T0.X, KC0[1].X, T1.X,  ",
            "  ADD   T0.Y, KC0[1].Y, T1.Y,  ",
            "  ADD   T0.Z, KC0[2].Z, KC0[2].W,  ",
            "  ADD * T0.W, KC0[1].X, T1.W,  ",
        ],
    ));
}

#[test]
fn trans_constants() {
    rejects(
        &alu("CB0:0-16", &["  MUL_LIT * T1.X, KC0[0].X, 1.0, 0.5, "]),
        Rule::TransConstants,
        at(0, 0),
    );
}

#[test]
fn trans_constant_cycles_002_lines_1590_1631() {
    // One constant: no GPR load in cycle 0; SCL_210 loads src2 there.
    rejects(
        &alu("CB0:0-16", &["  MUL_LIT * T1.X, KC0[0].X, T2.Y, T3.Z, "]),
        Rule::TransConstCycle,
        at(0, 0),
    );
    clean(&alu(
        "CB0:0-16",
        &["  MUL_LIT * T1.X, KC0[0].X, T2.Y, T3.Z, BS:VEC_021/SCL_122"],
    ));
}

#[test]
fn literal_count() {
    let mut p = alu(
        "",
        &[
            "  ADD * T1.X, T2.X, literal.x,  ",
            "1065353216(1.000000e+00), 0(0.000000e+00)",
        ],
    );
    clean(&p);
    let Some(Clause::Alu(g)) = p.clauses.get_mut(&2) else {
        panic!()
    };
    g[0].literals.clear();
    let CfInst::Alu(a) = &mut p.cf[0] else {
        panic!()
    };
    a.count -= 1;
    rejects(&p, Rule::LiteralCount, group(0));
}

#[test]
fn ar_indexing() {
    // MOVA* and AR-relative reads in one group.
    rejects(
        &alu(
            "",
            &[
                "  MOVA_INT * T0.X (MASKED), T1.X,  ",
                "  MOV   T2.X, C0.X+,   ; index=0",
                "  MOVA_INT * T0.Y (MASKED), T1.Y,  ",
            ],
        ),
        Rule::MovaWithArIndex,
        at(1, 0),
    );
    // AR-relative before any MOVA* in the clause.
    rejects(
        &alu("", &["  MOV * T2.X, C0.X+,   ; index=0"]),
        Rule::ArNotLoaded,
        group(0),
    );
    // Loaded first, then used: legal.
    clean(&alu(
        "",
        &[
            "  MOVA_INT * T0.X (MASKED), T1.X,  ",
            "  MOV * T2.X, T5.Y,  ",
            "  MOV * T2.X, C0.X+,   ; index=0",
        ],
    ));
    // Two AR elements in one group.
    rejects(
        &alu(
            "",
            &[
                "  MOVA_INT   T0.X (MASKED), T1.X,  ",
                "  MOVA_INT * T0.Y (MASKED), T1.Y,  ",
                "  MOV * T2.X, T5.Y,  ",
                "  MOV   T2.X, C0.X+,   ; index=0",
                "  MOV * T2.Y, C1.X+,   ; index=1",
            ],
        ),
        Rule::ArElements,
        group(2),
    );
    // Kcache constants take the loop index only.
    rejects(
        &alu(
            "CB0:0-16",
            &[
                "  MOVA_INT * T0.X (MASKED), T1.X,  ",
                "  MOV * T2.X, T5.Y,  ",
                "  MOV * T2.X, KC0[1].X+,   ; index=0",
            ],
        ),
        Rule::KcacheArIndex,
        at(2, 0),
    );
}

#[test]
fn kcache_lines_must_be_locked() {
    rejects(
        &alu("CB0:0-16", &["  MOV * T2.X, KC0[17].X,  "]),
        Rule::KcacheUnlocked,
        at(0, 0),
    );
    clean(&alu("CB0:0-32", &["  MOV * T2.X, KC0[17].X,  "]));
    rejects(
        &alu("", &["  MOV * T2.X, KC1[0].X,  "]),
        Rule::KcacheUnlocked,
        at(0, 0),
    );
}

#[test]
fn kill_ends_the_clause() {
    rejects(
        &alu(
            "",
            &[
                "  KILLGT * T0.X, T1.X, T2.X,  ",
                "  ADD * T1.X, T2.X, T2.Y,  ",
            ],
        ),
        Rule::KillNotLast,
        at(0, 0),
    );
    clean(&alu(
        "",
        &[
            "  ADD * T1.X, T2.X, T2.Y,  ",
            "  KILLGT * T0.X, T1.X, T2.X,  ",
        ],
    ));
}

#[test]
fn pv_and_ps_rules() {
    rejects(
        &alu("", &["  ADD * T1.X, PV.X, T2.Y,  "]),
        Rule::PvFirstGroup,
        at(0, 0),
    );
    // The previous group had no ALU.Y instruction, nor a trans one.
    rejects(
        &alu(
            "",
            &["  ADD * T1.X, T2.X, T2.Y,  ", "  ADD * T1.X, PV.Y, T2.Y,  "],
        ),
        Rule::PvUnwritten,
        at(1, 0),
    );
    rejects(
        &alu(
            "",
            &["  ADD * T1.X, T2.X, T2.Y,  ", "  ADD * T1.X, PS, T2.Y,  "],
        ),
        Rule::PvUnwritten,
        at(1, 0),
    );
    // DOT4 leaves its result in PV.X only.
    let dot = [
        "  DOT4   T1.X, T2.X, T3.X,  ",
        "  DOT4   T1.Y (MASKED), T2.Y, T3.Y,  ",
        "  DOT4   T1.Z (MASKED), T2.Z, T3.Z,  ",
        "  DOT4 * T1.W (MASKED), T2.W, T3.W,  ",
    ];
    let mut lines = dot.to_vec();
    lines.push("  ADD * T4.X, PV.X, T2.Y,  ");
    clean(&alu("", &lines));
    lines.pop();
    lines.push("  ADD * T4.X, PV.Z, T2.Y,  ");
    rejects(&alu("", &lines), Rule::PvUnwritten, at(1, 0));
    // A MOVA*'s PV element is undefined.
    rejects(
        &alu(
            "",
            &[
                "  MOVA_INT * T0.X (MASKED), T1.X,  ",
                "  ADD * T1.Y, PV.X, T2.Y,  ",
            ],
        ),
        Rule::PvAfterMova,
        at(1, 0),
    );
}

#[test]
fn relative_write_then_absolute_read() {
    let p = |read: &str| {
        alu(
            "",
            &[
                "  MOVA_INT * T0.X (MASKED), T1.X,  ",
                "  MOV * T5.Y, T6.Y,  ",
                "  MOV * T2.X+, T1.X,   ; index=0",
                read,
            ],
        )
    };
    rejects(
        &p("  ADD * T3.X, T2.X, T1.Y,  "),
        Rule::RelWriteRead,
        at(3, 0),
    );
    // The same AR-relative read is forwarded by the hardware; another element cannot alias.
    clean(&p("  ADD * T3.X, T2.X+, T1.Y,   ; index=0"));
    clean(&p("  ADD * T3.Y, T2.Y, T1.Y,  "));
}

/// A program with one fetch clause at slot 2 started by `cf`.
fn fetch(cf: &str, lines: &[&str]) -> Program {
    let text = format!(
        "{cf}\nCF_END\nFetch clause starting at 2:\n{}",
        lines.join("\n")
    );
    let bin = assemble(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    Program::decode(&bin).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn fetch_clause_rules() {
    let read = "  MEM_RD_SCATTER T1.XYZW, T0.X, 0";
    let lds = "  LOCAL_DS_WRITE T1.XYZW, 0, 4";
    clean(&fetch("VTX 0 @2", &[read]));
    clean(&fetch("TEX 0 @2", &[lds]));
    let cf0 = Place::Cf { index: 0 };
    // Memory reads belong to VTX clauses, LDS to TEX clauses, never together.
    rejects(&fetch("TEX 0 @2", &[read]), Rule::ClauseKind, cf0);
    rejects(&fetch("VTX 0 @2", &[lds]), Rule::ClauseKind, cf0);
    rejects(&fetch("VTX 1 @2", &[read, lds]), Rule::ClauseKind, cf0);
    rejects(&fetch("VTX 0 @2 ; cond=2", &[read]), Rule::FetchCond, cf0);
    rejects(
        &fetch("VTX 0 @2", &["  MEM_RD_SCATTER T1.XYZW, T0.X, 0 ; mega=0"]),
        Rule::MemReadField,
        Place::Fetch {
            clause: 2,
            index: 0,
        },
    );
    rejects(
        &fetch("VTX 0 @2", &["  MEM_RD_REDUC T1.XYZW, T0.X, 0 ; esize=1"]),
        Rule::MemReadField,
        Place::Fetch {
            clause: 2,
            index: 0,
        },
    );
    // COUNT must match the clause.
    let mut p = fetch("VTX 1 @2", &[read, read]);
    clean(&p);
    let CfInst::Word(w) = &mut p.cf[0] else {
        panic!()
    };
    w.count = 0;
    rejects(&p, Rule::ClauseLength, cf0);
}

#[test]
fn alu_clause_count_must_match() {
    let mut p = alu("", &["  ADD * T1.X, T2.X, T2.Y,  "]);
    let CfInst::Alu(a) = &mut p.cf[0] else {
        panic!()
    };
    a.count = 5;
    assert_eq!(rules(&p), vec![Rule::ClauseLength]);
}
