//! Why a descriptor has no typed meaning, or why text or a typed message
//! has no descriptor. Every variant names the bits or the field involved.

use alloc::string::String;
use core::fmt;

use crate::generation::IsaGen;
use crate::inst::Sfid;

/// A descriptor, message or symbolic text that cannot be converted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MessageError {
    /// The shared function does not exist on the platform (or, for the
    /// Gen6+ math instruction, is not a message).
    NoSuchFunction { platform: IsaGen, sfid: Sfid },
    /// A field holds a code the manual reserves or does not define.
    /// `hi`/`lo` are function-control bit numbers.
    Reserved {
        field: &'static str,
        hi: u8,
        lo: u8,
        value: u32,
    },
    /// Function-control bits that no field of this message owns (reserved,
    /// must-be-zero or ignored) are set; `bits` is their mask.
    StrayBits { bits: u32 },
    /// Gen4/G45 sampler: the message type and message length pair is not
    /// in the manual's table, so the message is undefined.
    SamplerLength { msg_type: u8, mlen: u8 },
    /// Message or response length, or the header bit, does not fit the
    /// platform's descriptor.
    Length { field: &'static str, value: u32 },
    /// A field value does not fit its bits (when encoding).
    OutOfRange { field: &'static str, value: u32 },
    /// The message (or this field value) does not exist on the platform.
    NotOnPlatform {
        platform: IsaGen,
        what: &'static str,
    },
    /// Symbolic text that does not parse; `at` is a byte offset.
    Syntax { at: usize, what: String },
}

impl fmt::Display for MessageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MessageError::NoSuchFunction { platform, sfid } => {
                write!(f, "shared function {sfid:?} has no messages on {platform}")
            }
            MessageError::Reserved {
                field,
                hi,
                lo,
                value,
            } => {
                if hi == lo {
                    write!(
                        f,
                        "reserved {field} value {value} in function-control bit {hi}"
                    )
                } else {
                    write!(
                        f,
                        "reserved {field} code {value:#b} in function-control bits {hi}:{lo}"
                    )
                }
            }
            MessageError::StrayBits { bits } => write!(
                f,
                "function-control bits {bits:#x} are reserved or ignored for this message and must be 0"
            ),
            MessageError::SamplerLength { msg_type, mlen } => write!(
                f,
                "sampler message type {msg_type:#b} with message length {mlen} is not a defined message"
            ),
            MessageError::Length { field, value } => {
                write!(f, "{field} {value} does not fit the descriptor")
            }
            MessageError::OutOfRange { field, value } => {
                write!(f, "{field} {value} is out of range")
            }
            MessageError::NotOnPlatform { platform, what } => {
                write!(f, "{what} does not exist on {platform}")
            }
            MessageError::Syntax { at, what } => write!(f, "at offset {at}: {what}"),
        }
    }
}
