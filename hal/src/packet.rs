//! What generated packets have in common: errors and the [`Packet`] trait.

use core::fmt;

/// Why a packet could not be packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PackError {
    /// The output slice is shorter than the packet.
    BufferTooSmall { packet: &'static str, needed: usize },
    /// A value does not fit its field.
    FieldOverflow {
        packet: &'static str,
        field: &'static str,
    },
    /// An address or offset has bits set below the field's alignment.
    Misaligned {
        packet: &'static str,
        field: &'static str,
    },
    /// More group elements than the length field can express.
    TooLong { packet: &'static str },
    /// Fewer group elements than the packet needs.
    TooShort {
        packet: &'static str,
        min_dwords: usize,
    },
}

/// Why dwords could not be read as a given packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum UnpackError {
    /// Fewer dwords than the packet needs.
    Truncated {
        packet: &'static str,
        needed: usize,
        got: usize,
    },
    /// Dword 0 is not this packet's header.
    WrongHeader { packet: &'static str, dw0: u32 },
    /// The DWord Length field gives a length this packet cannot have.
    BadLength { packet: &'static str, length: usize },
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackError::BufferTooSmall { packet, needed } => {
                write!(f, "{packet}: needs {needed} dwords of space")
            }
            PackError::FieldOverflow { packet, field } => {
                write!(f, "{packet}.{field}: value does not fit the field")
            }
            PackError::Misaligned { packet, field } => {
                write!(f, "{packet}.{field}: value is not aligned")
            }
            PackError::TooLong { packet } => {
                write!(f, "{packet}: too many elements for the length field")
            }
            PackError::TooShort { packet, min_dwords } => {
                write!(
                    f,
                    "{packet}: needs at least {min_dwords} dwords (more elements)"
                )
            }
        }
    }
}

impl fmt::Display for UnpackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnpackError::Truncated {
                packet,
                needed,
                got,
            } => {
                write!(f, "{packet}: truncated, {got} of {needed} dwords")
            }
            UnpackError::WrongHeader { packet, dw0 } => {
                write!(f, "{packet}: dword 0 {dw0:#010x} is not its header")
            }
            UnpackError::BadLength { packet, length } => {
                write!(f, "{packet}: invalid length {length}")
            }
        }
    }
}

/// A command or structure that packs into dwords.
pub trait Packet: Sized {
    /// The manual's name.
    const NAME: &'static str;
    /// Dwords this value packs into.
    fn dwords(&self) -> usize;
    /// Packs into the start of `out`; returns the dwords written.
    fn pack(&self, out: &mut [u32]) -> Result<usize, PackError>;
    /// Reads a packet from the start of `dwords`.
    fn unpack(dwords: &[u32]) -> Result<Self, UnpackError>;
}

// Range and alignment checks called by the generated packers; they are tiny
// and inline into each one.

#[doc(hidden)]
#[inline(always)]
pub fn check_uint(
    packet: &'static str,
    field: &'static str,
    value: u64,
    max: u64,
) -> Result<u64, PackError> {
    if value > max {
        Err(PackError::FieldOverflow { packet, field })
    } else {
        Ok(value)
    }
}

#[doc(hidden)]
#[inline(always)]
pub fn check_int(
    packet: &'static str,
    field: &'static str,
    value: i64,
    width: u32,
) -> Result<u64, PackError> {
    let min = -(1i64 << (width - 1));
    let max = (1i64 << (width - 1)) - 1;
    if width < 64 && (value < min || value > max) {
        Err(PackError::FieldOverflow { packet, field })
    } else {
        Ok(value as u64 & (u64::MAX >> (64 - width)))
    }
}

#[doc(hidden)]
#[inline(always)]
pub fn check_aligned(
    packet: &'static str,
    field: &'static str,
    value: u64,
    shift: u32,
    max_raw: u64,
) -> Result<u64, PackError> {
    if value & ((1u64 << shift) - 1) != 0 {
        return Err(PackError::Misaligned { packet, field });
    }
    check_uint(packet, field, value >> shift, max_raw)
}
