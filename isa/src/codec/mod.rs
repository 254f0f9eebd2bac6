//! Native (128-bit) decode and encode.
//!
//! An instruction word is a `u128` whose bit `i` is bit `i` of the
//! instruction (DW0 = bits 31:0), i.e. the 16 bytes read little-endian.
//! The decoder records every bit a field consumes; a word that sets any
//! other bit is rejected, so `encode(decode(w)) == w` whenever decoding
//! succeeds.

mod decode;
mod encode;

pub use decode::decode;
pub use encode::encode;

use crate::error::{DecodeError, EncodeError, Field};
use crate::generation::IsaGen;
use crate::inst::Instruction;
use crate::tables::Bits;

/// Decodes 16 little-endian bytes.
pub fn decode_bytes(platform: IsaGen, bytes: &[u8; 16]) -> Result<Instruction, DecodeError> {
    decode(platform, u128::from_le_bytes(*bytes))
}

/// Encodes to 16 little-endian bytes.
pub fn encode_bytes(platform: IsaGen, inst: &Instruction) -> Result<[u8; 16], EncodeError> {
    encode(platform, inst).map(u128::to_le_bytes)
}

/// Joins four doublewords (DW0 first), as tools print them.
pub const fn from_dwords(dw: [u32; 4]) -> u128 {
    (dw[0] as u128) | (dw[1] as u128) << 32 | (dw[2] as u128) << 64 | (dw[3] as u128) << 96
}

/// Splits into four doublewords (DW0 first).
pub const fn to_dwords(word: u128) -> [u32; 4] {
    [
        word as u32,
        (word >> 32) as u32,
        (word >> 64) as u32,
        (word >> 96) as u32,
    ]
}

/// Field reader that remembers which bits it has read.
pub(crate) struct Reader {
    word: u128,
    used: u128,
}

impl Reader {
    pub(crate) const fn new(word: u128) -> Self {
        Reader { word, used: 0 }
    }

    /// A field of up to 64 bits.
    pub(crate) fn get64(&mut self, b: Bits) -> u64 {
        let mask = b.mask();
        self.used |= mask;
        ((self.word & mask) >> b.lo) as u64
    }

    /// A field of up to 32 bits.
    pub(crate) fn get(&mut self, b: Bits) -> u32 {
        self.get64(b) as u32
    }

    pub(crate) fn flag(&mut self, b: Bits) -> bool {
        self.get64(b) != 0
    }

    /// A two's-complement field, sign-extended.
    pub(crate) fn signed(&mut self, b: Bits) -> i32 {
        let width = b.width();
        let v = self.get64(b) as i64;
        ((v << (64 - width)) >> (64 - width)) as i32
    }

    /// Fails if bits no field consumed are set.
    pub(crate) fn finish(self) -> Result<(), DecodeError> {
        let stray = self.word & !self.used;
        if stray == 0 {
            Ok(())
        } else {
            Err(DecodeError::ReservedBits { mask: stray })
        }
    }
}

/// Field writer that checks values fit.
pub(crate) struct Writer {
    word: u128,
}

impl Writer {
    pub(crate) const fn new() -> Self {
        Writer { word: 0 }
    }

    /// Writes an unsigned value; `field` names it in the error.
    pub(crate) fn put(&mut self, b: Bits, value: u64, field: Field) -> Result<(), EncodeError> {
        let width = b.width();
        if width < 64 && value >> width != 0 {
            return Err(EncodeError::Unencodable {
                field,
                value: value as i64,
            });
        }
        self.word = (self.word & !b.mask()) | ((value as u128) << b.lo);
        Ok(())
    }

    pub(crate) fn flag(&mut self, b: Bits, value: bool) {
        self.word = (self.word & !b.mask()) | ((value as u128) << b.lo);
    }

    /// Writes a two's-complement value.
    pub(crate) fn signed(&mut self, b: Bits, value: i64, field: Field) -> Result<(), EncodeError> {
        let width = b.width();
        let min = -(1i64 << (width - 1));
        let max = (1i64 << (width - 1)) - 1;
        if value < min || value > max {
            return Err(EncodeError::Unencodable { field, value });
        }
        let raw = (value as u64) & (u64::MAX >> (64 - width));
        self.put(b, raw, field)
    }

    pub(crate) const fn word(&self) -> u128 {
        self.word
    }
}
