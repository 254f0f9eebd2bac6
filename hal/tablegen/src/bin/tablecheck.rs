//! `tablecheck [<gen>...]`: load and check hal tables, print a summary and
//! every problem. Exit status 1 when any generation has problems.
//!
//! Run from the repository root:
//! `cargo run -p baregpu-tablegen --bin tablecheck -- gen6`

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use baregpu_tablegen::check::{ManualLines, check_generation};
use baregpu_tablegen::{GENERATIONS, load_generation};

fn manuals(prm: &Path) -> ManualLines {
    let mut m = ManualLines::new();
    let Ok(dir) = std::fs::read_dir(prm) else {
        return m;
    };
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if let (Some(num), Ok(text)) = (name.split('_').next(), std::fs::read_to_string(e.path()))
            && num.len() == 3
            && num.chars().all(|c| c.is_ascii_digit())
        {
            m.insert(num.to_string(), text.lines().count() as u32);
        }
    }
    m
}

fn main() -> ExitCode {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let tables = root.join("tables");
    let prm = root.join("../../shared/prm");
    let manuals = manuals(&prm);
    if manuals.is_empty() {
        eprintln!(
            "note: manuals not found at {}, line ranges not checked",
            prm.display()
        );
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let gens: Vec<String> = if args.is_empty() {
        GENERATIONS.iter().map(|s| s.to_string()).collect()
    } else {
        args
    };
    let mut bad = false;
    for g in &gens {
        if !tables.join(g).join("generation.toml").exists() {
            println!("{g}: no tables yet");
            continue;
        }
        match load_generation(&tables, g) {
            Err(e) => {
                bad = true;
                println!("{g}: {e}");
            }
            Ok(mut t) => {
                let device = tables.join(g).join("device.toml");
                let device_text = std::fs::read_to_string(&device).ok();
                if let Some(text) = &device_text
                    && let Err(e) = baregpu_tablegen::device::add_instances(text, &mut t)
                {
                    bad = true;
                    println!("  {g}: {}: {e}", device.display());
                }
                let problems = check_generation(&t, &manuals);
                let cites = |c: &baregpu_tablegen::Citation| c.source != "ext";
                let manual = t.registers.iter().filter(|r| cites(&r.citation)).count()
                    + t.commands.iter().filter(|c| cites(&c.citation)).count()
                    + t.structs.iter().filter(|s| cites(&s.citation)).count();
                let total = t.registers.len() + t.commands.len() + t.structs.len();
                println!(
                    "{g}: {} registers, {} commands, {} structures ({manual} from a manual, {} from public sources), {} problem(s)",
                    t.registers.len(),
                    t.commands.len(),
                    t.structs.len(),
                    total - manual,
                    problems.len()
                );
                for p in &problems {
                    println!("  {g}: {p}");
                }
                bad |= !problems.is_empty();
                if let Some(text) = &device_text
                    && let Err(e) = baregpu_tablegen::device::parse(text, &t)
                {
                    bad = true;
                    println!("  {g}: {}: {e}", device.display());
                }
            }
        }
    }
    if bad {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
