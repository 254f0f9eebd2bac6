//! `baregpu disasm` / `baregpu asm`: EU binaries (raw little-endian native
//! and compact instructions) to text in the IGA-based syntax and back.

use baregpu_isa::IsaGen;
use baregpu_isa::text::{self, AsmOptions, DisasmOptions};
use std::io;

use crate::output::{CliError, FmtWriter};

const GENS: &str = "gen4, gen4.5 (g45), gen6 (snb), gen7 (ivb), gen7.5 (hsw), gen12.5 (xehpg, dg2: disasm, asm, and validate with the send, region, type, operand, dpas and SWSB rules)";

/// The usage lines of the two commands.
pub const USAGE: &str =
    "  baregpu disasm --gen <gen4|gen4.5|g45|gen6|snb|gen7|ivb|gen7.5|hsw|gen12.5|dg2> [--no-labels] <binary>
      Disassemble raw little-endian EU instructions (native and compact) in
      IGA syntax, one per line with its byte offset; branch targets inside
      the binary are labels (L<offset>:) unless --no-labels. A zebin (ocloc
      -device dg2 --format zebin) is read as its kernels, each under its
      name; validate takes one too.
  baregpu asm --gen <gen> [--compact] <source> -o <binary>
      Assemble IGA-syntax EU instructions to a raw little-endian binary;
      --compact stores every instruction that has a compact form compacted
      ({Compacted}/{Uncompacted} force a line's form either way).
  baregpu validate --gen <gen> <binary>
      Check every instruction against the manuals' region, type and operand
      rules; prints each violation under its instruction and fails when any
      is an error (warnings alone pass).";

/// Parses a generation name or alias.
pub fn platform(name: &str) -> Result<IsaGen, String> {
    IsaGen::from_name(name).ok_or_else(|| format!("unknown generation {name:?} (one of {GENS})"))
}

/// Disassembles `bytes`, each line prefixed by its byte offset, with labels.
pub fn disasm(gen_name: &str, bytes: &[u8]) -> Result<String, String> {
    disasm_with(
        gen_name,
        bytes,
        DisasmOptions {
            offsets: true,
            labels: true,
            messages: true,
        },
    )
}

/// Disassembles `bytes` with options.
pub fn disasm_with(gen_name: &str, bytes: &[u8], opts: DisasmOptions) -> Result<String, String> {
    let p = platform(gen_name)?;
    text::disassemble_with(p, bytes, opts).map_err(|e| e.to_string())
}

/// Assembles `source`; errors read `<file>:<line>:<col>: message`.
pub fn asm(gen_name: &str, file: &str, source: &str) -> Result<Vec<u8>, String> {
    asm_with(gen_name, file, source, AsmOptions::default())
}

/// Assembles `source` with options.
pub fn asm_with(
    gen_name: &str,
    file: &str,
    source: &str,
    opts: AsmOptions,
) -> Result<Vec<u8>, String> {
    let p = platform(gen_name)?;
    text::assemble_with(p, source, opts).map_err(|e| format!("{file}:{e}"))
}

/// A kernel's name and code.
type NamedCode<'a> = (String, &'a [u8]);

/// The kernels of `bytes` when it is an ELF file (a zebin, as `ocloc
/// -device dg2 --format zebin` writes it): each kernel's name and its
/// `.text.<name>` code. `None`: raw instruction words.
fn zebin_kernels(p: IsaGen, bytes: &[u8]) -> Result<Option<Vec<NamedCode<'_>>>, String> {
    if !bytes.starts_with(b"\x7fELF") {
        return Ok(None);
    }
    if p != IsaGen::Gen12_5 {
        return Err(String::from(
            "an ELF file: zebins hold Gen12.5 code (--gen gen12.5); \
             older generations take raw instruction words",
        ));
    }
    let z = baregpu_isa::zebin::read(bytes).map_err(|e| format!("zebin: {e}"))?;
    Ok(Some(
        z.kernels.iter().map(|k| (k.name.clone(), k.code)).collect(),
    ))
}

/// Runs `baregpu disasm` (`assemble` false) or `baregpu asm` with the
/// arguments after the command name; returns what goes to stdout.
pub fn run(args: &[String], assemble: bool) -> Result<String, String> {
    let mut out = Vec::new();
    run_to(args, assemble, &mut out).map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// [`run`] writing to `out` as it goes (the disassembly is not held).
pub fn run_to(args: &[String], assemble: bool, out: &mut dyn io::Write) -> Result<(), CliError> {
    let (mut generation, mut file, mut dest) = (None, None, None);
    let mut labels = true;
    let mut compact = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--gen" => generation = it.next().cloned(),
            "-o" if assemble => dest = it.next().cloned(),
            "--compact" if assemble => compact = true,
            "--no-labels" if !assemble => labels = false,
            f if !f.starts_with('-') && file.is_none() => file = Some(f.to_string()),
            other => return Err(format!("unexpected argument {other:?}\nusage:\n{USAGE}").into()),
        }
    }
    let generation = generation.ok_or_else(|| format!("--gen is required\nusage:\n{USAGE}"))?;
    let file = file.ok_or_else(|| format!("an input file is required\nusage:\n{USAGE}"))?;
    if assemble {
        let dest = dest.ok_or_else(|| format!("-o <binary> is required\nusage:\n{USAGE}"))?;
        let source = std::fs::read_to_string(&file).map_err(|e| format!("{file}: {e}"))?;
        let bytes = asm_with(&generation, &file, &source, AsmOptions { compact })?;
        std::fs::write(&dest, bytes).map_err(|e| format!("{dest}: {e}"))?;
        Ok(())
    } else {
        let bytes = std::fs::read(&file).map_err(|e| format!("{file}: {e}"))?;
        let opts = DisasmOptions {
            offsets: true,
            labels,
            messages: true,
        };
        let p = platform(&generation)?;
        let kernels = zebin_kernels(p, &bytes).map_err(|e| format!("{file}: {e}"))?;
        let mut w = FmtWriter::new(out);
        let done = match &kernels {
            None => text::disassemble_to(p, &bytes, opts, &mut w),
            // A zebin: each kernel's code under its name, offsets from the
            // kernel's start (where its section begins).
            Some(ks) => ks.iter().enumerate().try_for_each(|(i, (name, code))| {
                use std::fmt::Write as _;
                let gap = if i == 0 { "" } else { "\n" };
                let _ = writeln!(
                    w,
                    "{gap}// kernel {name}: .text.{name}, {} bytes",
                    code.len()
                );
                text::disassemble_to(p, code, opts, &mut w)
            }),
        };
        if let Some(e) = w.error {
            return Err(CliError::Write(e));
        }
        done.map_err(|e| format!("{file}: {e}").into())
    }
}

/// What `baregpu validate` found.
pub struct Report {
    pub text: String,
    pub errors: usize,
    pub warnings: usize,
}

/// Validates a binary: each instruction with violations, printed with its
/// offset, followed by the violations, then a count. A word that does not
/// decode is an error at its offset; the words after it are still checked.
pub fn validate(gen_name: &str, bytes: &[u8]) -> Result<Report, String> {
    use baregpu_isa::validate::{Severity, validate_bytes};
    use std::fmt::Write;
    let p = platform(gen_name)?;
    let report = validate_bytes(p, bytes);
    let entries = &report.entries;
    // Findings by offset; an undecodable word is one error at its offset.
    let mut lines: Vec<(usize, String, Option<Severity>)> = report
        .found
        .iter()
        .map(|(o, v)| (*o, v.to_string(), Some(v.severity)))
        .collect();
    for e in &report.undecodable {
        lines.push((e.offset, format!("error [Undecodable]: {e}"), None));
    }
    lines.sort_by_key(|(o, _, _)| *o);
    let mut text = String::new();
    let mut last = None;
    for (offset, v, _) in &lines {
        if last != Some(*offset) {
            last = Some(*offset);
            let inst = entries.iter().find(|e| e.offset == *offset).map(|e| e.inst);
            let shown = inst.map_or_else(
                || String::from("(does not decode)"),
                |i| text::print_instruction(p, &i),
            );
            let _ = writeln!(text, "/* {offset:04x} */ {shown}");
        }
        let _ = writeln!(text, "    {v}");
    }
    let errors = lines
        .iter()
        .filter(|(_, _, s)| *s != Some(Severity::Warning))
        .count();
    let warnings = lines.len() - errors;
    let undecodable = report.undecodable.len();
    let _ = write!(text, "{} instructions", entries.len());
    if undecodable > 0 {
        let _ = write!(text, " and {undecodable} words that do not decode");
    }
    let _ = writeln!(text, ": {errors} errors, {warnings} warnings");
    Ok(Report {
        text,
        errors,
        warnings,
    })
}

/// `code` without the zeros IGC pads a zebin kernel's section with (it
/// ends every kernel with zero bytes past its last instruction; iga64
/// shows them as `illegal`, and the last few are shorter than an
/// instruction): the instructions up to the first one from which every
/// byte is zero, walked as the decoder walks them (8 bytes when CmptCtrl,
/// bit 29, is set, else 16). Returns the code and the padding's length.
fn without_padding(code: &[u8]) -> (&[u8], usize) {
    let mut at = 0;
    while at < code.len() {
        if code[at..].iter().all(|b| *b == 0) {
            return (&code[..at], code.len() - at);
        }
        let compact = code.get(at + 3).is_some_and(|b| b & 0x20 != 0);
        at += if compact { 8 } else { 16 };
    }
    (code, 0)
}

/// Runs `baregpu validate` with its command-line arguments.
pub fn run_validate(args: &[String]) -> Result<Report, String> {
    let (mut generation, mut file) = (None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--gen" => generation = it.next().cloned(),
            f if !f.starts_with('-') && file.is_none() => file = Some(f.to_string()),
            other => return Err(format!("unexpected argument {other:?}\nusage:\n{USAGE}")),
        }
    }
    let generation = generation.ok_or_else(|| format!("--gen is required\nusage:\n{USAGE}"))?;
    let file = file.ok_or_else(|| format!("an input file is required\nusage:\n{USAGE}"))?;
    let bytes = std::fs::read(&file).map_err(|e| format!("{file}: {e}"))?;
    let kernels =
        zebin_kernels(platform(&generation)?, &bytes).map_err(|e| format!("{file}: {e}"))?;
    let Some(kernels) = kernels else {
        return validate(&generation, &bytes).map_err(|e| format!("{file}: {e}"));
    };
    // A zebin: each kernel's report under its name.
    let mut all = Report {
        text: String::new(),
        errors: 0,
        warnings: 0,
    };
    for (name, code) in kernels {
        let (code, padding) = without_padding(code);
        let r = validate(&generation, code).map_err(|e| format!("{file}: kernel {name}: {e}"))?;
        let note = if padding > 0 {
            format!(" ({padding} bytes of zero padding after the code, not checked)")
        } else {
            String::new()
        };
        all.text
            .push_str(&format!("// kernel {name}{note}\n{}", r.text));
        all.errors += r.errors;
        all.warnings += r.warnings;
    }
    Ok(all)
}
