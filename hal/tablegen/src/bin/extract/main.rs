//! `extract [--prm DIR] [--out DIR] [--tables DIR] [--compare]`: drafts hal
//! tables mechanically from the manuals' text, independent of the curated
//! tables, so that reviews of the curated tables can be checked against it.
//!
//! Reads manual 003 (Sandy Bridge) and 004 (DG2 Vol 2a) from `--prm`
//! (default `../shared/prm` next to the repository) and writes
//! `gen6/commands.toml`, `gen6/registers.toml`, `gen12.5/commands.toml` and
//! `REPORT.md` under `--out` (default `hal/draft`). With `--compare` it also
//! prints the differences between the drafts and the curated tables
//! (`--tables`, default `hal/tables`).
//!
//! Run from the repository root:
//! `cargo run -q -p baregpu-tablegen --bin extract -- --compare`

mod build;
mod compare;
mod dg2;
mod draft;
mod emit;
mod snb;
mod snb_regs;
mod table;
mod text;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use baregpu_tablegen::check::ManualLines;
use baregpu_tablegen::model::*;

use draft::Outcome;

const SNB_ENGINES: [&str; 3] = ["render", "video", "blitter"];

struct Args {
    prm: PathBuf,
    out: PathBuf,
    tables: PathBuf,
    compare: bool,
}

fn usage() -> String {
    "usage: extract [--prm DIR] [--out DIR] [--tables DIR] [--compare]".into()
}

fn parse_args() -> Result<Args, String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut a = Args {
        prm: root.join("../shared/prm"),
        out: root.join("hal/draft"),
        tables: root.join("hal/tables"),
        compare: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().map(PathBuf::from).ok_or_else(usage);
        match arg.as_str() {
            "--prm" => a.prm = value()?,
            "--out" => a.out = value()?,
            "--tables" => a.tables = value()?,
            "--compare" => a.compare = true,
            _ => return Err(usage()),
        }
    }
    Ok(a)
}

/// The manual `NNN_*.txt` of `prm`, as lines (lossy: the text may hold odd
/// bytes).
fn manual(prm: &Path, number: &str) -> Result<Vec<String>, String> {
    let dir = std::fs::read_dir(prm).map_err(|e| format!("{}: {e}", prm.display()))?;
    let mut names: Vec<PathBuf> = dir
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{number}_")) && n.ends_with(".txt"))
        })
        .collect();
    names.sort();
    let path = names
        .first()
        .ok_or_else(|| format!("manual {number} not found in {}", prm.display()))?;
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(String::from_utf8_lossy(&bytes)
        .lines()
        .map(str::to_string)
        .collect())
}

/// Line counts of the manuals, for the citation checks.
fn manual_lines(texts: &[(&str, &[String])]) -> ManualLines {
    texts
        .iter()
        .map(|(n, l)| (n.to_string(), l.len() as u32))
        .collect()
}

struct Drafts {
    snb_commands: Outcome<Command>,
    snb_registers: Outcome<Register>,
    dg2_commands: Outcome<Command>,
}

fn extract(snb: &[String], dg2: &[String]) -> Drafts {
    let manuals = manual_lines(&[("003", snb), ("004", dg2)]);
    let (mut raws, mut skips) = snb::gfx_commands(snb);
    let (blt, blt_skips) = snb::blt_commands(snb);
    raws.extend(blt);
    skips.extend(blt_skips);
    let snb_commands = draft::commands("003", &raws, &skips, &SNB_ENGINES, &manuals);
    let (regs, reg_skips) = snb_regs::registers(snb);
    let snb_registers = draft::registers(&regs, &reg_skips, &manuals);
    let (raws, skips) = dg2::commands(dg2);
    let dg2_commands = draft::commands("004", &raws, &skips, &dg2::ENGINES, &manuals);
    Drafts {
        snb_commands,
        snb_registers,
        dg2_commands,
    }
}

const COMMENT: &str = "Draft drawn mechanically from the manual's text by `extract` (hal/tablegen/src/bin/extract).
Do not edit: rerun `cargo run -q -p baregpu-tablegen --bin extract`. For review of the curated tables only;
field types are guesses from the Format lines, reserved ranges are all listed as mbz.";

fn report(d: &Drafts) -> String {
    let mut s = String::from(
        "# Draft extraction report\n\n\
         Written by `cargo run -q -p baregpu-tablegen --bin extract` from manuals 003 (Sandy Bridge) and 004 (DG2 Vol 2a).\n\n\
         A block is *clean* when its rows were parsed, the bit ranges of every DWord run from the top bit down to bit 0\n\
         without gaps or overlaps, the dwords follow each other, header opcodes carry values, the packet length agrees with\n\
         the DWord Length default plus the bias, and the entry passes `baregpu_tablegen::check`. Only clean blocks are\n\
         written; a name found in several blocks is written once (engines merged when the layouts agree).\n\n\
         | manual | kind | headers found | extracted cleanly | entries written | not extracted |\n\
         |---|---|---:|---:|---:|---:|\n",
    );
    for row in [
        d.snb_commands.summary_row(),
        d.snb_registers.summary_row(),
        d.dg2_commands.summary_row(),
    ] {
        s.push_str(&row);
        s.push('\n');
    }
    s.push_str(
        "\nHeaders found: 003 commands = `NAME` + `Project: ... Length Bias:` blocks plus 2D `0 = BR00` tables;\n\
         003 registers = `Address Offset` headers in the render (9309-14501), VCS (16689-18218) and BCS (23783-25047)\n\
         chapters; 004 commands = entries whose `DWord Bit Description` table starts with a Command Type.\n",
    );
    s.push_str(&d.snb_commands.details());
    s.push_str(&d.snb_registers.details());
    s.push_str(&d.dg2_commands.details());
    s
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn write_all(out: &Path, d: &Drafts) -> Result<(), String> {
    let gen6 = out.join("gen6");
    write(
        &gen6.join("commands.toml"),
        &emit::file(COMMENT, "003", &d.snb_commands.entries, &[]),
    )?;
    write(
        &gen6.join("registers.toml"),
        &emit::file(COMMENT, "003", &[], &d.snb_registers.entries),
    )?;
    let dg2 = out.join("gen12.5");
    write(
        &dg2.join("commands.toml"),
        &emit::file(COMMENT, "004", &d.dg2_commands.entries, &[]),
    )?;
    write(&out.join("REPORT.md"), &report(d))
}

fn compare_all(tables: &Path, d: &Drafts) -> Result<(), String> {
    let gens = [
        ("gen6", &d.snb_commands, Some(&d.snb_registers)),
        ("gen12.5", &d.dg2_commands, None),
    ];
    let mut totals = Vec::new();
    for (generation, cmds, regs) in gens {
        let mut rejected: Vec<&draft::Rejected> = cmds.rejected.iter().collect();
        if let Some(r) = regs {
            rejected.extend(r.rejected.iter());
        }
        let drafts = compare::Drafts {
            commands: &cmds.entries,
            registers: regs.map_or(&[][..], |r| &r.entries[..]),
            rejected,
        };
        match compare::generation(tables, generation, &drafts) {
            Ok(s) => totals.push((generation, s)),
            Err(e) => println!("{generation}: curated tables not loaded: {e}"),
        }
    }
    println!("\nsummary:");
    for (generation, s) in totals {
        println!(
            "  {generation}: {} curated entries: {} match the draft exactly, {} differ, {} have no draft",
            s.curated, s.same, s.differ, s.no_draft
        );
    }
    Ok(())
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    let snb = manual(&args.prm, "003")?;
    let dg2 = manual(&args.prm, "004")?;
    let d = extract(&snb, &dg2);
    write_all(&args.out, &d)?;
    for o in [
        d.snb_commands.summary_row(),
        d.snb_registers.summary_row(),
        d.dg2_commands.summary_row(),
    ] {
        eprintln!("{o}");
    }
    if args.compare {
        compare_all(&args.tables, &d)?;
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("extract: {e}");
            ExitCode::FAILURE
        }
    }
}
