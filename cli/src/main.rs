//! `baregpu`: host tools.
//!
//! ```text
//! baregpu defmt-log <kernel-elf> [<frames-file>]   decode a kernel's COM2 log
//! ```

use std::process::ExitCode;

const USAGE: &str = "usage:
  baregpu defmt-log <kernel-elf> [<frames-file>]
      Decode the defmt frames a QEMU kernel wrote to COM2 (default frames file:
      <kernel-elf>.defmt, where qemu/run.sh puts them).";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("defmt-log") if (2..=3).contains(&args.len()) => defmt_log(&args[1], args.get(2)),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => Err(USAGE.to_string()),
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
