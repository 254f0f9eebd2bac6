//! Decoding the defmt frames a QEMU kernel wrote to COM2.

use std::fmt;

use defmt_decoder::{DecodeError, Table};

/// Why a log could not be decoded.
#[derive(Debug)]
pub enum DefmtLogError {
    /// The ELF could not be read as an ELF with defmt data.
    Elf(String),
    /// The ELF carries no `.defmt` section (built without defmt logging).
    NoTable,
    /// The byte stream holds a frame the table cannot decode (wrong ELF?).
    Malformed { frames_decoded: usize },
}

impl fmt::Display for DefmtLogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DefmtLogError::Elf(e) => write!(f, "cannot read the kernel ELF: {e}"),
            DefmtLogError::NoTable => f.write_str("the kernel ELF has no .defmt section"),
            DefmtLogError::Malformed { frames_decoded } => write!(
                f,
                "malformed defmt frame after {frames_decoded} good ones (is this the ELF that wrote the log?)"
            ),
        }
    }
}

impl std::error::Error for DefmtLogError {}

/// One decoded log line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// `INFO`, `WARN` ... (empty for `println`-style frames).
    pub level: String,
    /// The timestamp as the kernel formats it, if it has one.
    pub timestamp: Option<String>,
    pub message: String,
}

impl fmt::Display for LogLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(ts) = &self.timestamp {
            write!(f, "{ts} ")?;
        }
        write!(f, "{:<5} {}", self.level, self.message)
    }
}

/// Decodes every complete frame of `frames` with the string table of `elf`.
/// A truncated last frame (QEMU killed mid-write) is ignored.
pub fn decode(elf: &[u8], frames: &[u8]) -> Result<Vec<LogLine>, DefmtLogError> {
    let table = Table::parse(elf)
        .map_err(|e| DefmtLogError::Elf(e.to_string()))?
        .ok_or(DefmtLogError::NoTable)?;
    let mut stream = table.new_stream_decoder();
    stream.received(frames);
    let mut lines = Vec::new();
    loop {
        match stream.decode() {
            Ok(frame) => lines.push(LogLine {
                level: frame
                    .level()
                    .map(|l| l.as_str().to_uppercase())
                    .unwrap_or_default(),
                timestamp: frame.display_timestamp().map(|t| t.to_string()),
                message: frame.display_message().to_string(),
            }),
            Err(DecodeError::UnexpectedEof) => return Ok(lines),
            Err(DecodeError::Malformed) => {
                return Err(DefmtLogError::Malformed {
                    frames_decoded: lines.len(),
                });
            }
        }
    }
}
