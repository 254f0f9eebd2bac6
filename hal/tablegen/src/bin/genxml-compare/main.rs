//! `genxml-compare <genxml-dir> [--tables DIR] [--summary] [--stack] [--items PREFIX,...] [gen...]`:
//! compares the hal's tables with Mesa's genxml (src/intel/genxml: gen4.xml,
//! gen45.xml, gen6.xml, gen7.xml, gen125.xml and the files they import).
//! Prints, per generation, the items compared, the fields compared and the
//! fields with the same dword and bit range, then every difference.
//! `--stack` keeps the items the stack uses (see [`STACK_ITEMS`]).
//!
//! `cargo run -p baregpu-tablegen --bin genxml-compare -- /tmp/genxml`

mod compare;
mod genxml;
mod xml;

use std::path::PathBuf;
use std::process::ExitCode;

use baregpu_tablegen::{GENERATIONS, load_generation};

/// Our generation and its genxml file.
const FILES: [(&str, &str); 5] = [
    ("gen4", "gen4.xml"),
    ("g45", "gen45.xml"),
    ("gen6", "gen6.xml"),
    ("gen7", "gen7.xml"),
    ("gen12.5", "gen125.xml"),
];

/// Our names that genxml spells otherwise: (generation, ours, genxml).
const ALIASES: &[(&str, &str, &str)] = &[
    ("gen4", "SURFACE_STATE", "RENDER_SURFACE_STATE"),
    ("g45", "SURFACE_STATE", "RENDER_SURFACE_STATE"),
    ("gen6", "SURFACE_STATE", "RENDER_SURFACE_STATE"),
    (
        "gen6",
        "3DSTATE_AA_LINE_PARAMS",
        "3DSTATE_AA_LINE_PARAMETERS",
    ),
    (
        "gen7",
        "3DSTATE_AA_LINE_PARAMS",
        "3DSTATE_AA_LINE_PARAMETERS",
    ),
];

/// Name prefixes of the commands, structures and registers the stack uses or
/// will use (`--stack`): MI, blitter, 3D state, media/GPGPU and compute
/// state, surfaces, samplers, interface descriptors, binding tables.
const STACK_ITEMS: &[&str] = &[
    "MI_",
    "XY_",
    "3DSTATE_",
    "MEDIA_",
    "GPGPU_",
    "COMPUTE_WALKER",
    "CFE_STATE",
    "STATE_",
    "PIPELINE_SELECT",
    "PIPE_CONTROL",
    "SURFACE_STATE",
    "RENDER_SURFACE_STATE",
    "SAMPLER_STATE",
    "INTERFACE_DESCRIPTOR",
    "BINDING_TABLE_STATE",
    "VERTEX_",
];

const USAGE: &str = "usage: genxml-compare <genxml-dir> [--tables DIR] [--summary] [--stack] [--items PREFIX,...] [gen...]";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut dir = None;
    let mut tables = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tables");
    let mut summary = false;
    let mut prefixes: Vec<String> = Vec::new();
    let mut gens = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--summary" => summary = true,
            "--stack" => prefixes.extend(STACK_ITEMS.iter().map(|p| p.to_string())),
            "--tables" | "--items" => {
                let Some(v) = args.next() else {
                    eprintln!("{a} needs a value\n{USAGE}");
                    return ExitCode::FAILURE;
                };
                if a == "--tables" {
                    tables = PathBuf::from(v);
                } else {
                    prefixes.extend(v.split(',').map(str::to_string));
                }
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ if a.starts_with('-') => {
                eprintln!("unknown option {a}\n{USAGE}");
                return ExitCode::FAILURE;
            }
            _ if dir.is_none() => dir = Some(PathBuf::from(a)),
            _ if GENERATIONS.contains(&a.as_str()) => gens.push(a),
            _ => {
                eprintln!("unknown generation {a} (one of {GENERATIONS:?})");
                return ExitCode::FAILURE;
            }
        }
    }
    let Some(dir) = dir else {
        eprintln!("{USAGE}");
        return ExitCode::FAILURE;
    };
    if gens.is_empty() {
        gens = GENERATIONS.iter().map(|s| s.to_string()).collect();
    }
    let keep = |name: &str| prefixes.is_empty() || prefixes.iter().any(|p| name.starts_with(p));
    let mut failed = false;
    for g in &gens {
        let Some((_, file)) = FILES.iter().find(|(n, _)| n == g) else {
            continue;
        };
        let t = match load_generation(&tables, g) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{g}: {e}");
                failed = true;
                continue;
            }
        };
        let gx = match genxml::load(&dir, file) {
            Ok(x) => x,
            Err(e) => {
                eprintln!("{g}: {e}");
                failed = true;
                continue;
            }
        };
        let aliases: Vec<(&str, &str)> = ALIASES
            .iter()
            .filter(|(n, _, _)| n == g)
            .map(|(_, a, b)| (*a, *b))
            .collect();
        let r = compare::compare(&t, &gx, file, &aliases, &keep);
        println!(
            "{g} ({file}): {} items compared ({} of ours not in genxml), {} fields compared, {} agree ({:.1}%), {} same bits split otherwise; differences: {} noted at the entry, {} open",
            r.items,
            r.unmatched.len(),
            r.fields,
            r.agree,
            r.percent(),
            r.split,
            r.noted(),
            r.open()
        );
        if !summary {
            for d in &r.diffs {
                let mark = match (d.split, d.noted) {
                    (true, _) => "split",
                    (false, true) => "noted",
                    (false, false) => "open",
                };
                println!("  {g} {mark}: {}", d.text);
            }
            if !r.unmatched.is_empty() {
                println!("  {g}: not in genxml: {}", r.unmatched.join(" "));
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
