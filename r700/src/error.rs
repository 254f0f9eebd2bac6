//! Why a word, clause or program does not decode.

use core::fmt;

/// A decoding failure: which word, which field, what value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// An opcode the manual lists as reserved or does not list at all.
    ReservedOpcode { format: &'static str, opcode: u32 },
    /// A field holds a value the manual reserves.
    ReservedValue { field: &'static str, value: u32 },
    /// Bits the manual marks reserved (must be zero) are set.
    ReservedBits { word: &'static str, bits: u32 },
    /// The byte stream ends inside an instruction or clause.
    Truncated { at: usize },
    /// The CF program runs to the end of the binary without END_OF_PROGRAM.
    NoEndOfProgram,
    /// An ALU group has more than five instruction slots before LAST.
    GroupTooLong { slot: u32 },
    /// An ALU clause's COUNT ends inside a group or its literals.
    ClauseSplitsGroup { clause: u32 },
    /// A clause starts inside the CF program or another clause, or two CF words
    /// give the same address with different clause kinds or counts.
    Overlap { slot: u32 },
    /// A fetch clause is not 16-byte aligned (002 lines 812-823).
    Misaligned { slot: u32 },
    /// Non-zero words that no CF instruction reaches.
    Unreferenced { slot: u32 },
    /// A fetch clause mixes MEM words (memory read / LDS) with TEX or VTX words
    /// (002 line 2169).
    MixedClause { clause: u32 },
    /// A valid encoding this crate does not model yet.
    Unsupported { what: &'static str },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DecodeError::ReservedOpcode { format, opcode } => {
                write!(f, "{format}: opcode {opcode} ({opcode:#x}) is reserved")
            }
            DecodeError::ReservedValue { field, value } => {
                write!(f, "{field} = {value} is a reserved value")
            }
            DecodeError::ReservedBits { word, bits } => {
                write!(f, "{word}: reserved bits {bits:#010x} are set")
            }
            DecodeError::Truncated { at } => {
                write!(f, "binary ends inside the instruction at byte {at}")
            }
            DecodeError::NoEndOfProgram => f.write_str(
                "CF program (slot 0 up to the first clause) has no END_OF_PROGRAM instruction",
            ),
            DecodeError::GroupTooLong { slot } => {
                write!(
                    f,
                    "ALU group at slot {slot} has more than 5 instructions before LAST"
                )
            }
            DecodeError::ClauseSplitsGroup { clause } => {
                write!(f, "ALU clause at slot {clause}: COUNT ends inside a group")
            }
            DecodeError::Overlap { slot } => write!(f, "clause at slot {slot} overlaps other code"),
            DecodeError::Misaligned { slot } => {
                write!(f, "fetch clause at slot {slot} is not 16-byte aligned")
            }
            DecodeError::Unreferenced { slot } => {
                write!(
                    f,
                    "non-zero data at slot {slot} is not reached by any CF instruction"
                )
            }
            DecodeError::MixedClause { clause } => write!(
                f,
                "fetch clause at slot {clause} mixes MEM words with TEX/VTX instructions"
            ),
            DecodeError::Unsupported { what } => write!(f, "{what} is not supported yet"),
        }
    }
}

impl core::error::Error for DecodeError {}
