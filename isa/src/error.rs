//! Decode and encode errors. Each names the field and the reason, so a
//! disassembler can say why a word is not an instruction.

use core::fmt;

use crate::inst::Opcode;

/// An operand slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    Dst,
    Src0,
    Src1,
    Src2,
}

/// A field of the instruction word or of the representation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    Opcode,
    Body,
    AccessMode,
    MaskCtrlEx,
    AccWrCtrl,
    GroupCtrl,
    ThreadCtrl,
    PredCtrl,
    ExecSize,
    CondMod,
    MathFn,
    Sfid,
    BaseMrf,
    FlagReg,
    Swsb,
    /// Register file of an operand.
    File(Slot),
    /// Type of an operand.
    Type(Slot),
    /// Register number, sub-register or indirect address of an operand.
    Addr(Slot),
    /// Region (strides, width, swizzle) of a source.
    Region(Slot),
    /// Destination horizontal stride.
    HStride,
    /// Destination write mask.
    WriteMask,
    /// Source modifier.
    SrcMod(Slot),
    /// Immediate value.
    Imm(Slot),
    /// Message descriptor (length fields, function control).
    Desc,
    /// Split-send extras (second payload, extended descriptor).
    SplitSend,
    Jump,
}

/// Why a 128-bit word does not decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecodeError {
    /// CmptCtrl (bit 29) is set: a 64-bit compact instruction, to be
    /// expanded by the compaction tables first.
    Compacted,
    /// No opcode with this number on the generation.
    UnknownOpcode { code: u8 },
    /// A field holds a code the generation reserves.
    Reserved { field: Field, value: u32 },
    /// Bits outside every field this instruction form defines are set.
    ReservedBits { mask: u128 },
    /// A valid encoding this codec does not represent yet (Gen12.5:
    /// indirect operands, register extended descriptors, some opcodes).
    Unsupported { field: Field, value: u32 },
}

/// Why an [`Instruction`](crate::inst::Instruction) does not encode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EncodeError {
    /// The generation has no such opcode.
    UnknownOpcode { opcode: Opcode },
    /// The value has no encoding on this generation (reserved, absent or
    /// out of range).
    Unencodable { field: Field, value: i64 },
    /// The value is encodable but decoding would give a different
    /// representation (wrong body form, vacant slot in the wrong place,
    /// fields that must agree but do not).
    NotCanonical { field: Field },
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Slot::Dst => "dst",
            Slot::Src0 => "src0",
            Slot::Src1 => "src1",
            Slot::Src2 => "src2",
        })
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Field::File(s) => write!(f, "{s} register file"),
            Field::Type(s) => write!(f, "{s} type"),
            Field::Addr(s) => write!(f, "{s} address"),
            Field::Region(s) => write!(f, "{s} region"),
            Field::SrcMod(s) => write!(f, "{s} source modifier"),
            Field::Imm(s) => write!(f, "{s} immediate"),
            other => write!(f, "{other:?}"),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Compacted => f.write_str("compacted instruction (CmptCtrl set)"),
            DecodeError::UnknownOpcode { code } => write!(f, "opcode {code:#04x} is not defined"),
            DecodeError::Reserved { field, value } => {
                write!(f, "{field}: reserved code {value:#x}")
            }
            DecodeError::ReservedBits { mask } => write!(f, "reserved bits set: {mask:#034x}"),
            DecodeError::Unsupported { field, value } => {
                write!(
                    f,
                    "{field}: {value:#x} is valid but not supported by this codec yet"
                )
            }
        }
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::UnknownOpcode { opcode } => {
                write!(
                    f,
                    "opcode {} does not exist on this generation",
                    opcode.mnemonic()
                )
            }
            EncodeError::Unencodable { field, value } => {
                write!(f, "{field}: {value} has no encoding")
            }
            EncodeError::NotCanonical { field } => {
                write!(f, "{field}: not the form this generation decodes to")
            }
        }
    }
}

impl core::error::Error for DecodeError {}
impl core::error::Error for EncodeError {}
