//! `baregpu decode`: list the commands of a raw batch with the hal's
//! reflection-table decoder.

use std::io;

use baregpu::hal::decode::decode;
use baregpu::hal::{Generation, reflect::GenTables};

use crate::output::CliError;

/// Decodes little-endian dwords as commands of `engine`; returns the listing,
/// or an error naming what is wrong with the arguments.
pub fn decode_bytes(generation: &str, engine: &str, bytes: &[u8]) -> Result<String, String> {
    let mut out = Vec::new();
    decode_to(generation, engine, bytes, &mut out).map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// [`decode_bytes`] writing each command to `out` as it is decoded.
pub fn decode_to(
    generation: &str,
    engine: &str,
    bytes: &[u8],
    out: &mut dyn io::Write,
) -> Result<(), CliError> {
    let generation = Generation::from_name(generation)
        .ok_or_else(|| format!("unknown generation {generation:?}"))?;
    let tables: &GenTables = generation.tables();
    if !tables.engines.iter().any(|(name, _)| *name == engine) {
        let names: Vec<&str> = tables.engines.iter().map(|(n, _)| *n).collect();
        return Err(format!(
            "{generation} has no engine {engine:?}; engines: {}",
            names.join(", ")
        )
        .into());
    }
    if !bytes.len().is_multiple_of(4) {
        return Err(format!("{} bytes is not a whole number of dwords", bytes.len()).into());
    }
    let dwords: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let (mut known, mut problems) = (0, 0);
    for cmd in decode(tables, engine, &dwords) {
        known += cmd.command.is_some() as usize;
        problems += cmd.problem.is_some() as usize;
        write!(out, "{cmd}")?;
    }
    writeln!(
        out,
        "-- {} dwords, {known} known commands, {problems} problem(s)",
        dwords.len()
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(dwords: &[u32]) -> Vec<u8> {
        dwords.iter().flat_map(|d| d.to_le_bytes()).collect()
    }

    #[test]
    fn lists_commands_and_problems() {
        // MI_STORE_DATA_IMM (GGTT, 4 dwords), MI_BATCH_BUFFER_END, then a truncated store.
        let b = bytes(&[0x1040_0002, 0, 0x1000, 42, 0x0500_0000, 0x1040_0002]);
        let text = decode_bytes("snb", "render", &b).unwrap();
        assert!(text.contains("MI_STORE_DATA_IMM (4 dwords)"), "{text}");
        assert!(text.contains("data_dword0: 0x2a"), "{text}");
        assert!(text.contains("MI_BATCH_BUFFER_END"), "{text}");
        assert!(text.contains("TRUNCATED"), "{text}");
        assert!(
            text.ends_with("-- 6 dwords, 3 known commands, 1 problem(s)\n"),
            "{text}"
        );
    }

    #[test]
    fn rejects_bad_arguments() {
        assert!(
            decode_bytes("gen5", "render", &[])
                .unwrap_err()
                .contains("unknown generation")
        );
        assert!(
            decode_bytes("gen6", "compute", &[])
                .unwrap_err()
                .contains("no engine")
        );
        assert!(
            decode_bytes("gen6", "render", &[1, 2, 3])
                .unwrap_err()
                .contains("whole number of dwords")
        );
    }
}
