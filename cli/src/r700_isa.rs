//! `baregpu disasm|asm|validate --gen r700`: AMD R700 shader binaries (raw
//! little-endian, or the `.text` of an ELF object as `llc -march=r600
//! -mcpu=rv770 -filetype=obj` writes it) to the exact text of
//! `baregpu_r700::llvm_text` and back, and the manual's legality rules.

use std::io::Write;

use baregpu_r700::program::Program;
use baregpu_r700::{asm, llvm_text, validate};

use crate::output::CliError;

/// The usage lines of the three commands for R700.
pub const USAGE: &str = "  baregpu disasm --gen r700 [--llvm] <binary>
      Disassemble an R700 shader (raw little-endian, or an ELF object's .text)
      in llc's syntax with ` ; key=value` for the fields it leaves out
      (--llvm: llc's text alone, which does not always assemble back).
  baregpu asm --gen r700 <source> -o <binary>
      Assemble that text to a raw little-endian R700 shader.
  baregpu validate --gen r700 <binary>
      Check an R700 shader against the manual's group, read-port, literal,
      clause, kcache and adjacent-group rules; fails when any is broken.";

/// Whether the arguments of `disasm`/`asm`/`validate` name the R700.
pub fn wants(args: &[String]) -> bool {
    args.windows(2)
        .any(|w| w[0] == "--gen" && w[1].eq_ignore_ascii_case("r700"))
}

/// The `.text` section of a little-endian ELF32 object, bounds-checked.
pub fn elf_text(obj: &[u8]) -> Result<&[u8], String> {
    let bad = |what: &str| format!("ELF object: {what}");
    let u16_at = |o: usize| -> Result<usize, String> {
        let b = obj.get(o..o + 2).ok_or_else(|| bad("truncated header"))?;
        Ok(u16::from_le_bytes([b[0], b[1]]) as usize)
    };
    let u32_at = |o: usize| -> Result<usize, String> {
        let b = obj.get(o..o + 4).ok_or_else(|| bad("truncated header"))?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    if obj.get(4) != Some(&1) || obj.get(5) != Some(&1) {
        return Err(bad("not a little-endian 32-bit ELF file"));
    }
    let (shoff, shentsize, shnum, shstrndx) =
        (u32_at(0x20)?, u16_at(0x2E)?, u16_at(0x30)?, u16_at(0x32)?);
    let sh = |k: usize| {
        k.checked_mul(shentsize)
            .and_then(|o| o.checked_add(shoff))
            .ok_or_else(|| bad("section table out of range"))
    };
    let strtab = u32_at(sh(shstrndx)? + 16)?;
    for k in 0..shnum {
        let name = strtab
            .checked_add(u32_at(sh(k)?)?)
            .ok_or_else(|| bad("section name out of range"))?;
        if obj.get(name..name + 6) == Some(b".text\0") {
            let (off, size) = (u32_at(sh(k)? + 16)?, u32_at(sh(k)? + 20)?);
            return off
                .checked_add(size)
                .and_then(|end| obj.get(off..end))
                .ok_or_else(|| bad(".text lies outside the file"));
        }
    }
    Err(bad("no .text section"))
}

/// The shader bytes of a file: an ELF object's `.text`, else the file itself.
pub fn shader_bytes(file: &[u8]) -> Result<&[u8], String> {
    if file.starts_with(b"\x7fELF") {
        elf_text(file)
    } else {
        Ok(file)
    }
}

fn decode(file: &str, bytes: &[u8]) -> Result<Program, String> {
    let bytes = shader_bytes(bytes).map_err(|e| format!("{file}: {e}"))?;
    Program::decode(bytes).map_err(|e| format!("{file}: {e}"))
}

/// The exact text of a shader (or llc's text alone with `llvm`), one line each.
pub fn disasm(file: &str, bytes: &[u8], llvm: bool) -> Result<String, String> {
    let p = decode(file, bytes)?;
    let lines = if llvm {
        llvm_text::program(&p)
    } else {
        llvm_text::program_exact(&p)
    };
    let mut s = lines.join("\n");
    s.push('\n');
    Ok(s)
}

/// Assembles exact text; errors read `<file>:<line>: message`.
pub fn assemble(file: &str, source: &str) -> Result<Vec<u8>, String> {
    asm::assemble(source).map_err(|e| format!("{file}:{}: {}", e.line, e.msg))
}

/// What `baregpu validate --gen r700` found.
pub struct Report {
    pub text: String,
    pub errors: usize,
}

/// Each violation on a line, then a count.
pub fn check(file: &str, bytes: &[u8]) -> Result<Report, String> {
    let p = decode(file, bytes)?;
    let found = validate::validate(&p);
    let mut text = String::new();
    for v in &found {
        text.push_str(&format!("{v}\n"));
    }
    text.push_str(&format!(
        "{} instructions: {} violations\n",
        p.instruction_count(),
        found.len()
    ));
    Ok(Report {
        text,
        errors: found.len(),
    })
}

fn usage_err(msg: &str) -> CliError {
    format!("{msg}\nusage:\n{USAGE}").into()
}

/// Runs `cmd` (`disasm`, `asm` or `validate`) with its arguments; returns
/// whether the command succeeded (validate fails on violations).
pub fn run_to(cmd: &str, args: &[String], out: &mut dyn Write) -> Result<bool, CliError> {
    let (mut file, mut dest, mut llvm) = (None, None, false);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--gen" => {
                it.next();
            }
            "-o" if cmd == "asm" => {
                dest = Some(
                    it.next()
                        .ok_or_else(|| usage_err("-o needs a file"))?
                        .clone(),
                )
            }
            "--llvm" if cmd == "disasm" => llvm = true,
            f if !f.starts_with('-') && file.is_none() => file = Some(f.to_string()),
            other => return Err(usage_err(&format!("unexpected argument {other:?}"))),
        }
    }
    let file = file.ok_or_else(|| usage_err("an input file is required"))?;
    match cmd {
        "asm" => {
            let dest = dest.ok_or_else(|| usage_err("-o <binary> is required"))?;
            let source = std::fs::read_to_string(&file).map_err(|e| format!("{file}: {e}"))?;
            let bytes = assemble(&file, &source)?;
            std::fs::write(&dest, bytes).map_err(|e| format!("{dest}: {e}"))?;
            Ok(true)
        }
        "disasm" => {
            let bytes = std::fs::read(&file).map_err(|e| format!("{file}: {e}"))?;
            out.write_all(disasm(&file, &bytes, llvm)?.as_bytes())?;
            Ok(true)
        }
        _ => {
            let bytes = std::fs::read(&file).map_err(|e| format!("{file}: {e}"))?;
            let report = check(&file, &bytes)?;
            out.write_all(report.text.as_bytes())?;
            Ok(report.errors == 0)
        }
    }
}
