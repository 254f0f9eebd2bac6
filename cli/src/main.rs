//! `baregpu`: host tools.
//!
//! ```text
//! baregpu defmt-log <kernel-elf> [<frames-file>]   decode a kernel's COM2 log
//! baregpu decode --gen <gen> [--engine <engine>] <batch-file>   list a batch's commands
//! baregpu disasm --gen <gen> [--no-labels] <binary>       disassemble EU instructions
//! baregpu asm --gen <gen> [--compact] <source> -o <binary>  assemble EU instructions
//! baregpu validate --gen <gen> <binary>        check EU instructions against the manuals' rules
//! baregpu disasm|asm|validate --gen r700 ...   the same for AMD R700 shaders
//! baregpu run --gen <gen> --kernel <file> ...  run an EU binary on the software GPU
//! baregpu run --gen gen12.5 --zebin <file> ...  run an IGC kernel with its runtime dispatch
//! baregpu replay --gen <gen> --mem <addr>=<file> --batch <addr> ...  run a raw batch on it
//! ```

use std::io::{self, Write};
use std::process::ExitCode;

use baregpu_cli::output::CliError;

/// The usage text: this file's commands, then the EU toolkit's.
fn usage() -> String {
    format!(
        "{USAGE_HEAD}\n{}\n{}\n{}\n{}\n{}\n{}",
        baregpu_cli::eu::USAGE,
        baregpu_cli::r700_isa::USAGE,
        baregpu_cli::run::USAGE,
        baregpu_cli::run_zebin::USAGE,
        baregpu_cli::r700_run::USAGE,
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

/// Every command writes through one locked, buffered stdout and returns
/// its errors here. Output errors: a closed pipe (`| head`) ends quietly
/// with status 141, as a shell reports a process killed by SIGPIPE (Rust
/// ignores SIGPIPE, so the write fails with EPIPE instead); anything else
/// (a full disk) is an error message and status 1.
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = command(&args, &mut out).and_then(|code| {
        out.flush()?;
        Ok(code)
    });
    match result {
        Ok(code) => code,
        Err(CliError::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(141),
        Err(e) => {
            // stderr may be closed too; there is nowhere else to say it.
            let _ = writeln!(io::stderr(), "baregpu: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the command `args` names, writing its output to `out`.
fn command(args: &[String], out: &mut dyn Write) -> Result<ExitCode, CliError> {
    match args.first().map(String::as_str) {
        Some("defmt-log") if (2..=3).contains(&args.len()) => {
            defmt_log(&args[1], args.get(2), out)?
        }
        Some("decode") => decode(&args[1..], out)?,
        Some(cmd @ ("disasm" | "asm" | "validate")) if baregpu_cli::r700_isa::wants(&args[1..]) => {
            if !baregpu_cli::r700_isa::run_to(cmd, &args[1..], out)? {
                return Ok(ExitCode::FAILURE);
            }
        }
        Some(cmd @ ("disasm" | "asm")) => baregpu_cli::eu::run_to(&args[1..], cmd == "asm", out)?,
        Some("run") => write!(out, "{}", baregpu_cli::run::run(&args[1..])?.summary)?,
        Some("replay") => write!(out, "{}", baregpu_cli::replay::run(&args[1..])?.summary)?,
        Some("validate") => {
            let report = baregpu_cli::eu::run_validate(&args[1..])?;
            out.write_all(report.text.as_bytes())?;
            if report.errors > 0 {
                return Ok(ExitCode::FAILURE);
            }
        }
        Some("-h" | "--help" | "help") => writeln!(out, "{}", usage())?,
        _ => return Err(usage().into()),
    }
    Ok(ExitCode::SUCCESS)
}

fn defmt_log(
    elf_path: &str,
    frames_path: Option<&String>,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let frames_path = frames_path
        .cloned()
        .unwrap_or_else(|| format!("{elf_path}.defmt"));
    let elf = std::fs::read(elf_path).map_err(|e| format!("{elf_path}: {e}"))?;
    let frames = std::fs::read(&frames_path).map_err(|e| format!("{frames_path}: {e}"))?;
    let lines = baregpu_cli::defmt_log::decode(&elf, &frames).map_err(|e| e.to_string())?;
    for line in lines {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

fn decode(args: &[String], out: &mut dyn Write) -> Result<(), CliError> {
    let (mut generation, mut engine, mut file) = (None, "render".to_string(), None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--gen" => generation = it.next().cloned(),
            "--engine" => engine = it.next().cloned().ok_or("--engine needs a value")?,
            f if !f.starts_with("--") && file.is_none() => file = Some(f.to_string()),
            other => return Err(format!("unexpected argument {other:?}\n{}", usage()).into()),
        }
    }
    let generation = generation.ok_or_else(|| format!("--gen is required\n{}", usage()))?;
    let file = file.ok_or_else(|| format!("a batch file is required\n{}", usage()))?;
    let bytes = std::fs::read(&file).map_err(|e| format!("{file}: {e}"))?;
    baregpu_cli::decode_batch::decode_to(&generation, &engine, &bytes, out)
}
