//! `baregpu disasm` / `baregpu asm`: EU binaries (raw little-endian native
//! and compact instructions) to text in the IGA-based syntax and back.

use baregpu_isa::Platform;
use baregpu_isa::text;

const GENS: &str = "gen4, gen4.5 (g45), gen6 (snb), gen7 (ivb), gen7.5 (hsw)";

/// Parses a generation name or alias.
pub fn platform(name: &str) -> Result<Platform, String> {
    Platform::from_name(name).ok_or_else(|| format!("unknown generation {name:?} (one of {GENS})"))
}

/// Disassembles `bytes`, each line prefixed by its byte offset.
pub fn disasm(gen_name: &str, bytes: &[u8]) -> Result<String, String> {
    let p = platform(gen_name)?;
    text::disassemble(p, bytes, true).map_err(|e| e.to_string())
}

/// Assembles `source`; errors read `<file>:<line>:<col>: message`.
pub fn asm(gen_name: &str, file: &str, source: &str) -> Result<Vec<u8>, String> {
    let p = platform(gen_name)?;
    text::assemble(p, source).map_err(|e| format!("{file}:{e}"))
}
