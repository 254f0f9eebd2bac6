//! Function-control bit access that keeps count of which bits a message's
//! fields own, so that any bit left over is reported instead of dropped
//! (decode) and any value too wide is refused instead of truncated
//! (encode).

use super::MessageError;

/// Reads fields of function-control bits.
pub(crate) struct Reader {
    fc: u32,
    claimed: u32,
}

/// Mask of bits `hi:lo`.
pub(crate) const fn mask(hi: u32, lo: u32) -> u32 {
    (u32::MAX >> (31 - hi)) & !((1u32 << lo) - 1)
}

impl Reader {
    pub(crate) fn new(fc: u32) -> Reader {
        Reader { fc, claimed: 0 }
    }

    /// Bits `hi:lo`, now owned by a field.
    pub(crate) fn get(&mut self, hi: u32, lo: u32) -> u32 {
        self.claimed |= mask(hi, lo);
        (self.fc & mask(hi, lo)) >> lo
    }

    /// One bit, now owned by a field.
    pub(crate) fn flag(&mut self, bit: u32) -> bool {
        self.get(bit, bit) != 0
    }

    /// Error unless every set bit belongs to a field.
    pub(crate) fn finish(self) -> Result<(), MessageError> {
        match self.fc & !self.claimed {
            0 => Ok(()),
            bits => Err(MessageError::StrayBits { bits }),
        }
    }
}

/// An error for a code a field's table does not define.
pub(crate) fn reserved(field: &'static str, hi: u32, lo: u32, value: u32) -> MessageError {
    MessageError::Reserved {
        field,
        hi: hi as u8,
        lo: lo as u8,
        value,
    }
}

/// Builds function-control bits.
#[derive(Default)]
pub(crate) struct Writer {
    fc: u32,
}

impl Writer {
    /// Sets bits `hi:lo` to `value`, which must fit.
    pub(crate) fn put(
        &mut self,
        hi: u32,
        lo: u32,
        value: u32,
        field: &'static str,
    ) -> Result<(), MessageError> {
        if value > mask(hi - lo, 0) {
            return Err(MessageError::OutOfRange { field, value });
        }
        self.fc |= value << lo;
        Ok(())
    }

    /// Sets one bit.
    pub(crate) fn flag(&mut self, bit: u32, on: bool) {
        self.fc |= u32::from(on) << bit;
    }

    pub(crate) fn bits(&self) -> u32 {
        self.fc
    }
}

/// Entry for `code` in a (code, value) table.
pub(crate) fn by_code<T: Copy>(table: &[(u32, T)], code: u32) -> Option<T> {
    table.iter().find(|(c, _)| *c == code).map(|(_, v)| *v)
}

/// Code of `value` in a (code, value) table.
pub(crate) fn code_for<T: Copy + PartialEq>(table: &[(u32, T)], value: T) -> Option<u32> {
    table.iter().find(|(_, v)| *v == value).map(|(c, _)| *c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_cover_the_named_bits() {
        assert_eq!(mask(7, 0), 0xFF);
        assert_eq!(mask(18, 18), 1 << 18);
        assert_eq!(mask(31, 0), u32::MAX);
        assert_eq!(mask(13, 12), 0x3000);
    }

    #[test]
    fn reader_reports_unclaimed_bits() {
        let mut r = Reader::new(0x1F0F);
        assert_eq!(r.get(3, 0), 0xF);
        assert!(r.flag(8));
        assert_eq!(r.finish(), Err(MessageError::StrayBits { bits: 0x1E00 }));
    }

    #[test]
    fn writer_refuses_wide_values() {
        let mut w = Writer::default();
        assert!(w.put(9, 4, 63, "offset").is_ok());
        assert_eq!(
            w.put(9, 4, 64, "offset"),
            Err(MessageError::OutOfRange {
                field: "offset",
                value: 64
            })
        );
        assert_eq!(w.bits(), 63 << 4);
    }
}
