//! Issue 6 acceptance, per-instruction tests: every (opcode, destination
//! type, source types) combination each platform allows runs on the
//! interpreter with edge and random inputs, plain and saturated, and every
//! lane is checked against the independent model in `eu_accept/model`.
//! "Allowed" is what the ISA tables and the validator accept
//! (`eu_accept/combos.rs`). Combinations the manuals leave undefined still
//! run (no result is asserted) and are counted by reason.
//! Inputs include NaN, infinities, denormals, integer range ends and
//! overflow, shift counts of 31-33, and zero divisors for `math`.

mod eu_accept;

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{CondMod, Opcode, Type};
use eu_accept::combos;
use eu_accept::sweep::{self, Tally};
use eu_accept::values::Rng;

const CONDS: [CondMod; 6] = [
    CondMod::Z,
    CondMod::Nz,
    CondMod::G,
    CondMod::Ge,
    CondMod::L,
    CondMod::Le,
];

/// Per opcode (and math function): combinations allowed, combinations
/// with at least one lane checked against the model, and combinations the
/// manuals leave undefined.
type Table = std::collections::BTreeMap<String, [usize; 3]>;

fn sweep_platform(p: IsaGen, filter: impl Fn(Opcode) -> bool) -> (Tally, Table) {
    let mut t = Tally::default();
    let mut table = Table::new();
    let mut rng = Rng(0x5EED_0000 + p as u64);
    for c in combos::all(p).iter().filter(|c| filter(c.op)) {
        t.combos += 1;
        let checked = t.lanes_checked;
        let cmp = matches!(c.op, Opcode::Cmp | Opcode::Cmpn);
        let runs = if cmp { CONDS.len() } else { 4 };
        for r in 0..runs {
            sweep::run(c, false, CONDS[r % CONDS.len()], &mut rng, r, &mut t);
        }
        if c.sat_ok && !cmp {
            for r in 0..3 {
                sweep::run(c, true, CondMod::Z, &mut rng, r, &mut t);
            }
        }
        let name = match c.func {
            Some(f) => format!("math.{f:?}"),
            None => c.op.mnemonic().to_string(),
        };
        let row = table.entry(name).or_default();
        row[0] += 1;
        if t.lanes_checked > checked {
            row[1] += 1;
        } else {
            row[2] += 1;
        }
    }
    (t, table)
}

fn print_table(p: IsaGen, table: &Table) {
    println!("{p}: opcode allowed checked undefined");
    for (op, [a, c, u]) in table {
        println!("  {op:<32} {a:>5} {c:>5} {u:>5}");
    }
}

fn report(p: IsaGen, t: &Tally) {
    println!(
        "{p}: {} combinations, {} lanes checked, {} lanes undefined",
        t.combos, t.lanes_checked, t.lanes_undefined
    );
    for (why, n) in &t.undefined {
        println!("  all lanes undefined in {n} runs: {why}");
    }
    for (k, n) in &t.unencodable {
        println!("  accepted by the validator, refused by the encoder (x{n} runs): {k}");
    }
    let mut kinds: std::collections::BTreeMap<String, (usize, &String)> = Default::default();
    for f in &t.failures {
        let k = f.split(" ch").next().unwrap_or(f).to_string();
        kinds.entry(k).or_insert((0, f)).0 += 1;
    }
    for (k, (n, first)) in &kinds {
        println!("FAIL x{n} {k} | {first}");
    }
    // The validator and the encoder agree on every form swept.
    assert!(
        t.unencodable.is_empty(),
        "{p}: {} forms the validator accepts and the encoder refuses",
        t.unencodable.len()
    );
    assert!(
        t.failures.is_empty(),
        "{p}: {} lane failures (first: {})",
        t.failures.len(),
        t.failures[0]
    );
}

#[test]
fn gen4_every_combination() {
    let (t, table) = sweep_platform(IsaGen::Gen4, |_| true);
    print_table(IsaGen::Gen4, &table);
    report(IsaGen::Gen4, &t);
}

#[test]
fn g45_every_combination() {
    let (t, table) = sweep_platform(IsaGen::G45, |_| true);
    print_table(IsaGen::G45, &table);
    report(IsaGen::G45, &t);
}

#[test]
fn gen6_every_combination() {
    let (t, table) = sweep_platform(IsaGen::Gen6, |_| true);
    print_table(IsaGen::Gen6, &table);
    report(IsaGen::Gen6, &t);
}

#[test]
fn gen7_every_combination() {
    let (t, table) = sweep_platform(IsaGen::Gen7, |_| true);
    print_table(IsaGen::Gen7, &table);
    report(IsaGen::Gen7, &t);
}

#[test]
fn gen75_every_combination() {
    let (t, table) = sweep_platform(IsaGen::Gen75, |_| true);
    print_table(IsaGen::Gen75, &table);
    report(IsaGen::Gen75, &t);
}

/// Ivy Bridge and Haswell round F arithmetic and integer-to-F conversions
/// as cr0.0[5:4] says (001 lines 3251-3260, 1711-1715): the F combinations
/// of add, mul and mov again in each directed mode.
#[test]
fn gen7_rounding_modes() {
    use eu_accept::support::Mode;
    for p in [IsaGen::Gen7, IsaGen::Gen75] {
        let mut t = Tally::default();
        let mut rng = Rng(0x40D + p as u64);
        for c in combos::all(p).iter().filter(|c| {
            let df = c.dst == Type::Df || c.srcs.iter().any(|s| s.ty == Type::Df);
            matches!(c.op, Opcode::Add | Opcode::Mul | Opcode::Mov)
                && !df
                && (c.dst == Type::F || c.srcs.iter().any(|s| s.ty == Type::F))
        }) {
            t.combos += 1;
            for mode in [Mode::Ru, Mode::Rd, Mode::Rtz] {
                for r in 0..3 {
                    sweep::run_in(c, false, CondMod::Z, mode, &mut rng, r, &mut t);
                }
            }
        }
        report(p, &t);
    }
}
