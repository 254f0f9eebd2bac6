//! Gen12.5 (Xe-HPG, DG2) legacy data-port (HDC) messages, one module per
//! data-cache port: `dc1.rs` (SFID `dc1`, Mesa
//! `HSW_SFID_DATAPORT_DATA_CACHE_1`: untyped and typed surfaces, the
//! integer, word, float and half-float atomics, typed atomics and atomic
//! counters, the A64 scattered, OWord and HWord block messages, media
//! block) and `dc0.rs` (SFID `dc0`, Mesa `GFX7_SFID_DATAPORT_DATA_CACHE`:
//! OWord and HWord blocks, dword and byte scattered, scratch blocks, the
//! memory fence). DG2 kernels built before LSC still send them.
//!
//! Each message is typed from 004's MSD table (cited beside it) and its
//! Mesa helper or type code; bits 28:20 (the lengths) stay outside, the
//! header bit 19 is a field. Decoding and encoding are exact inverses: a
//! reserved code, a must-be-zero bit or a bit the message does not own is
//! refused by name. The text ([`core::fmt::Display`]) is the description
//! `iga64 -p=12p71` writes in its send comment, which leaves out the
//! surface, the SIMD mode and the packing; the typed value keeps them.

mod dc0;
mod dc1;

pub use dc0::*;
pub use dc1::*;

use super::MessageError;

/// The OWord count of a block message (bits 10:8; MDC_DB_OW and
/// MDC_A64_DB_OW, Mesa `BRW_DATAPORT_OWORD_BLOCK_*`: 0 one low, 1 one
/// high, 2, 4, 8 and, `GFX12_DATAPORT_OWORD_BLOCK_16_OWORDS`, 5 for 16; 6
/// and 7 undefined).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OwordCount {
    OneLow,
    OneHigh,
    Two,
    Four,
    Eight,
    Sixteen,
}

/// The counts by code, with iga64's words.
const OWORD_COUNTS: [(OwordCount, &str); 6] = [
    (OwordCount::OneLow, "x1"),
    (OwordCount::OneHigh, "x1H"),
    (OwordCount::Two, "x2"),
    (OwordCount::Four, "x4"),
    (OwordCount::Eight, "x8"),
    (OwordCount::Sixteen, "x16"),
];

/// The OWord count of code `code` (bits 10:8).
fn oword_count(code: u32) -> Result<OwordCount, MessageError> {
    OWORD_COUNTS
        .get(code as usize)
        .map(|c| c.0)
        .ok_or(MessageError::Reserved {
            field: "OWord block count",
            hi: 10,
            lo: 8,
            value: code,
        })
}

impl OwordCount {
    fn code(self) -> u32 {
        OWORD_COUNTS.iter().position(|c| c.0 == self).unwrap_or(0) as u32
    }

    fn text(self) -> &'static str {
        OWORD_COUNTS[self.code() as usize].1
    }
}

/// Refuses `desc` when any of `bits` is set.
fn stray(desc: u32, bits: u32) -> Result<(), MessageError> {
    if desc & bits != 0 {
        Err(MessageError::StrayBits { bits: desc & bits })
    } else {
        Ok(())
    }
}

/// Refuses `desc` without its header bit (MDC_MHR: the message requires
/// one).
fn header_required(desc: u32, field: &'static str) -> Result<(), MessageError> {
    if desc & 1 << 19 == 0 {
        Err(MessageError::Reserved {
            field,
            hi: 19,
            lo: 19,
            value: 0,
        })
    } else {
        Ok(())
    }
}

/// The HWord count `1 << code` of a 3-bit MDC_DB_HW or MDC_A64_DB_HW
/// code. 004 names these formats (lines 5365, 18827) but prints no table;
/// the power of two is how `iga64 -p=12p71` reads them (`x1` to `x128`).
fn hword_count(code: u32) -> u8 {
    1 << (code & 7)
}

/// The 3-bit code of `hwords` HWords, if it is a power of two up to 128.
fn hword_code(hwords: u8) -> Result<u32, MessageError> {
    if hwords.is_power_of_two() {
        Ok(hwords.trailing_zeros())
    } else {
        Err(MessageError::OutOfRange {
            field: "HWord block count (1, 2, 4, ... 128)",
            value: hwords.into(),
        })
    }
}
