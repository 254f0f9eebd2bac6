//! Gen12.5 (Xe-HPG, DG2) URB messages, which stay on the legacy URB
//! function (SFID 6) there: SIMD8 dword read and (masked) write, and the
//! URB fence.
//!
//! Descriptor (004 MSDUR_DWS lines 35620-35659, MSDUW_DWS 35660-35696,
//! MSD_URBFENCE 35697-35717, MSDUW_MDWS 35718-35760): opcode 3:0 (7 write,
//! 8 read, 9 fence), global offset 14:4 in owords, channel mask present
//! 15, per-slot offset present 17, header present 19; 16 and 18 MBZ, and
//! the fence has nothing but its opcode. Lengths stay outside.
//!
//! The text is `iga64 -p=12p71`'s description (`urb dword masked write
//! with per-slot offset enabled`), which leaves out the global offset; the
//! typed value keeps it.

use core::fmt;

use super::MessageError;

/// The URB operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XeUrbOp {
    Write,
    Read,
    Fence,
}

/// A URB message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct XeUrb {
    pub op: XeUrbOp,
    /// Global offset in owords (11 bits).
    pub offset: u16,
    /// A channel mask precedes the data (the masked write).
    pub channel_mask: bool,
    /// Per-slot offsets follow the handles.
    pub per_slot: bool,
    pub header: bool,
}

/// The URB message of `desc` (bits 28:20, the lengths, ignored).
pub fn decode(desc: u32) -> Result<XeUrb, MessageError> {
    let desc = desc & !0x1FF0_0000;
    let op = match desc & 0xF {
        7 => XeUrbOp::Write,
        8 => XeUrbOp::Read,
        9 => XeUrbOp::Fence,
        v => {
            return Err(MessageError::Reserved {
                field: "URB opcode",
                hi: 3,
                lo: 0,
                value: v,
            });
        }
    };
    let owned = if op == XeUrbOp::Fence { 0xF } else { 0xA_FFFF };
    if desc & !owned != 0 {
        return Err(MessageError::StrayBits {
            bits: desc & !owned,
        });
    }
    Ok(XeUrb {
        op,
        offset: ((desc >> 4) & 0x7FF) as u16,
        channel_mask: desc & 1 << 15 != 0,
        per_slot: desc & 1 << 17 != 0,
        header: desc & 1 << 19 != 0,
    })
}

impl XeUrb {
    /// The descriptor's function and header bits (lengths zero); refuses
    /// fields that do not fit or that the fence does not have.
    pub fn encode(&self) -> Result<u32, MessageError> {
        let op = match self.op {
            XeUrbOp::Write => 7,
            XeUrbOp::Read => 8,
            XeUrbOp::Fence => 9,
        };
        if self.offset > 0x7FF {
            return Err(MessageError::OutOfRange {
                field: "URB global offset",
                value: self.offset.into(),
            });
        }
        let d = op
            | u32::from(self.offset) << 4
            | u32::from(self.channel_mask) << 15
            | u32::from(self.per_slot) << 17
            | u32::from(self.header) << 19;
        match decode(d) {
            Ok(back) if back == *self => Ok(d),
            _ => Err(MessageError::OutOfRange {
                field: "URB fence fields",
                value: d,
            }),
        }
    }
}

/// iga64's description.
impl fmt::Display for XeUrb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.op {
            XeUrbOp::Fence => return f.write_str("urb fence"),
            XeUrbOp::Read => f.write_str("urb dword read")?,
            XeUrbOp::Write if self.channel_mask => f.write_str("urb dword masked write")?,
            XeUrbOp::Write => f.write_str("urb dword write")?,
        }
        if self.per_slot {
            f.write_str(" with per-slot offset enabled")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_function_word_round_trips() {
        let mut ok = 0;
        for d in 0..(1u32 << 20) {
            if let Ok(u) = decode(d) {
                assert_eq!(u.encode(), Ok(d));
                ok += 1;
            }
        }
        // read and write: 2^11 offsets x mask x per-slot x header; fence 1
        assert_eq!(ok, 2 * 2048 * 8 + 1);
        assert!(decode(0x1_0007).is_err());
        assert!(decode(0x19).is_err());
    }
}
