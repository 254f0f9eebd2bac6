//! `baregpu`: host tools.
//!
//! ```text
//! baregpu defmt-log <kernel-elf> [<frames-file>]   decode a kernel's COM2 log
//! baregpu decode --gen <gen> [--engine <engine>] <batch-file>   list a batch's commands
//! baregpu disasm --gen <gen> [--no-labels] <binary>       disassemble EU instructions
//! baregpu asm --gen <gen> [--compact] <source> -o <binary>  assemble EU instructions
//! baregpu validate --gen <gen> <binary>        check EU instructions against the manuals' rules
//! baregpu run --gen <gen> --kernel <file> ...  run an EU binary on the software GPU
//! baregpu replay --gen <gen> --mem <addr>=<file> --batch <addr> ...  run a raw batch on it
//! ```

use std::process::ExitCode;

/// The usage text: this file's commands, then the EU toolkit's.
fn usage() -> String {
    format!(
        "{USAGE_HEAD}\n{}\n{}\n{}",
        baregpu_cli::eu::USAGE,
        baregpu_cli::run::USAGE,
        baregpu_cli::replay::USAGE
    )
}

const USAGE_HEAD: &str = "usage:
  baregpu defmt-log <kernel-elf> [<frames-file>]
      Decode the defmt frames a QEMU kernel wrote to COM2 (default frames file:
      <kernel-elf>.defmt, where qemu/run.sh puts them).
  baregpu decode --gen <gen4|g45|gen6|gen7|gen12.5> [--engine <render|video|blitter|...>] <batch-file>
      List the commands of a raw batch (little-endian dwords) with their fields,
      unknown opcodes and truncated packets (engine default: render).";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("defmt-log") if (2..=3).contains(&args.len()) => defmt_log(&args[1], args.get(2)),
        Some("decode") => decode(&args[1..]),
        Some(cmd @ ("disasm" | "asm")) => {
            baregpu_cli::eu::run(&args[1..], cmd == "asm").map(|text| print!("{text}"))
        }
        Some("run") => baregpu_cli::run::run(&args[1..]).map(|o| print!("{}", o.summary)),
        Some("replay") => baregpu_cli::replay::run(&args[1..]).map(|o| print!("{}", o.summary)),
        Some("validate") => match baregpu_cli::eu::run_validate(&args[1..]) {
            Ok(report) => {
                print!("{}", report.text);
                if report.errors > 0 {
                    return ExitCode::FAILURE;
                }
                Ok(())
            }
            Err(e) => Err(e),
        },
        Some("-h" | "--help" | "help") => {
            println!("{}", usage());
            return ExitCode::SUCCESS;
        }
        _ => Err(usage()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("baregpu: {e}");
            ExitCode::FAILURE
        }
    }
}

fn defmt_log(elf_path: &str, frames_path: Option<&String>) -> Result<(), String> {
    let frames_path = frames_path
        .cloned()
        .unwrap_or_else(|| format!("{elf_path}.defmt"));
    let elf = std::fs::read(elf_path).map_err(|e| format!("{elf_path}: {e}"))?;
    let frames = std::fs::read(&frames_path).map_err(|e| format!("{frames_path}: {e}"))?;
    let lines = baregpu_cli::defmt_log::decode(&elf, &frames).map_err(|e| e.to_string())?;
    for line in lines {
        println!("{line}");
    }
    Ok(())
}

fn decode(args: &[String]) -> Result<(), String> {
    let (mut generation, mut engine, mut file) = (None, "render".to_string(), None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--gen" => generation = it.next().cloned(),
            "--engine" => engine = it.next().cloned().ok_or("--engine needs a value")?,
            f if !f.starts_with("--") && file.is_none() => file = Some(f.to_string()),
            other => return Err(format!("unexpected argument {other:?}\n{}", usage())),
        }
    }
    let generation = generation.ok_or_else(|| format!("--gen is required\n{}", usage()))?;
    let file = file.ok_or_else(|| format!("a batch file is required\n{}", usage()))?;
    let bytes = std::fs::read(&file).map_err(|e| format!("{file}: {e}"))?;
    print!(
        "{}",
        baregpu_cli::decode_batch::decode_bytes(&generation, &engine, &bytes)?
    );
    Ok(())
}
