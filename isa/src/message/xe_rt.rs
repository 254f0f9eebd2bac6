//! Gen12.5 (Xe-HPG, DG2) render-target writes and reads on the render
//! cache (SFID `rc`): the message a pixel shader ends with, and the read
//! of the target's colour (004 MSD_RTR SIMD8 lines 34069-34116: index
//! 7:0, subtype 8 (SIMD8 when set), slot group 11, per-sample 13, type
//! 0Dh, header 19, half precision 30; 10:9, 12, 18, 29, 31 MBZ).
//!
//! Descriptor (004 MSD_RTW SIMD8 lines 34117-34141 and the SIMD16, REP16,
//! LO8DS, HI8DS and half-precision variants, TOC lines 273-277, 304, 313,
//! 446, 511-513; Mesa `brw_eu.h` `brw_fb_desc`, `brw_fb_write_desc`):
//! binding-table index 7:0, subtype 10:8 (0 SIMD16, 1 replicated SIMD16,
//! 2 low and 3 high SIMD8 of a dual-source write, 4 SIMD8), slot group
//! 11, last render target 12, per-sample PS outputs 13, message type 17:14
//! (0Ch, render target write), per-coarse-pixel PS outputs 18, header 19,
//! half precision 30; 29 and 31 MBZ. Lengths stay outside. The text is
//! `iga64 -p=12p71`'s description.

use core::fmt;

use super::MessageError;

/// The render target message subtype (bits 10:8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RtSubtype {
    Simd16,
    Replicated16,
    DualLow8,
    DualHigh8,
    Simd8,
}

const SUBTYPES: [(RtSubtype, &str); 5] = [
    (RtSubtype::Simd16, " SIMD16"),
    (RtSubtype::Replicated16, " replicated SIMD16"),
    (RtSubtype::DualLow8, " of low SIMD8"),
    (RtSubtype::DualHigh8, " of high SIMD8"),
    (RtSubtype::Simd8, " SIMD8"),
];

/// Message type of a render target write (bits 17:14).
const RT_WRITE: u32 = 0xC;

/// A render target write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RtWrite {
    pub bti: u8,
    pub subtype: RtSubtype,
    /// Slot group select: the high half.
    pub slot_group_high: bool,
    pub last: bool,
    pub per_sample: bool,
    pub coarse: bool,
    pub header: bool,
    pub half_precision: bool,
}

/// A render target read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RtRead {
    pub bti: u8,
    /// SIMD8 (bit 8 set) rather than SIMD16.
    pub simd8: bool,
    pub slot_group_high: bool,
    pub per_sample: bool,
    pub header: bool,
    pub half_precision: bool,
}

/// Message type of a render target read (bits 17:14).
const RT_READ: u32 = 0xD;

/// A typed render-cache message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RenderCache {
    Write(RtWrite),
    Read(RtRead),
}

impl RenderCache {
    /// The descriptor's function and header bits (lengths zero).
    pub fn encode(&self) -> u32 {
        match self {
            RenderCache::Write(w) => w.encode(),
            RenderCache::Read(r) => {
                u32::from(r.bti)
                    | u32::from(r.simd8) << 8
                    | u32::from(r.slot_group_high) << 11
                    | u32::from(r.per_sample) << 13
                    | RT_READ << 14
                    | u32::from(r.header) << 19
                    | u32::from(r.half_precision) << 30
            }
        }
    }
}

/// The render-cache message of `desc` (bits 28:20, the lengths, ignored).
pub fn decode(desc: u32) -> Result<RenderCache, MessageError> {
    let desc = desc & !0x1FF0_0000;
    if (desc >> 14) & 0xF == RT_READ {
        let stray = desc & (1 << 31 | 1 << 29 | 1 << 18 | 1 << 12 | 3 << 9);
        if stray != 0 {
            return Err(MessageError::StrayBits { bits: stray });
        }
        let bit = |b: u32| desc & 1 << b != 0;
        return Ok(RenderCache::Read(RtRead {
            bti: desc as u8,
            simd8: bit(8),
            slot_group_high: bit(11),
            per_sample: bit(13),
            header: bit(19),
            half_precision: bit(30),
        }));
    }
    decode_write(desc).map(RenderCache::Write)
}

fn decode_write(desc: u32) -> Result<RtWrite, MessageError> {
    let stray = desc & (1 << 31 | 1 << 29);
    if stray != 0 {
        return Err(MessageError::StrayBits { bits: stray });
    }
    let ty = (desc >> 14) & 0xF;
    if ty != RT_WRITE {
        return Err(MessageError::Reserved {
            field: "render cache message type (render target write and read are typed)",
            hi: 17,
            lo: 14,
            value: ty,
        });
    }
    let sub = (desc >> 8) & 7;
    let subtype = SUBTYPES
        .get(sub as usize)
        .ok_or(MessageError::Reserved {
            field: "render target message subtype",
            hi: 10,
            lo: 8,
            value: sub,
        })?
        .0;
    let bit = |b: u32| desc & 1 << b != 0;
    Ok(RtWrite {
        bti: desc as u8,
        subtype,
        slot_group_high: bit(11),
        last: bit(12),
        per_sample: bit(13),
        coarse: bit(18),
        header: bit(19),
        half_precision: bit(30),
    })
}

impl RtWrite {
    /// The descriptor's function and header bits (lengths zero).
    pub fn encode(&self) -> u32 {
        let sub = SUBTYPES
            .iter()
            .position(|s| s.0 == self.subtype)
            .unwrap_or(0) as u32;
        u32::from(self.bti)
            | sub << 8
            | u32::from(self.slot_group_high) << 11
            | u32::from(self.last) << 12
            | u32::from(self.per_sample) << 13
            | RT_WRITE << 14
            | u32::from(self.coarse) << 18
            | u32::from(self.header) << 19
            | u32::from(self.half_precision) << 30
    }
}

/// iga64's description.
impl fmt::Display for RtWrite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = if self.half_precision { "half" } else { "full" };
        write!(f, "{p}-precision render target write")?;
        f.write_str(
            SUBTYPES
                .iter()
                .find(|s| s.0 == self.subtype)
                .map_or("", |s| s.1),
        )?;
        if self.per_sample {
            f.write_str(" with Per-Sample Pixel PS outputs enable")?;
        }
        if self.coarse {
            f.write_str(" with Per-Coarse Pixel PS outputs enable")?;
        }
        if self.last {
            f.write_str("; last render target")?;
        }
        if self.slot_group_high {
            f.write_str(" slot group high")?;
        }
        write!(f, " to surface {}", self.bti)
    }
}

/// iga64's description.
impl fmt::Display for RtRead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = if self.half_precision { "half" } else { "full" };
        let simd = if self.simd8 { "SIMD8" } else { "SIMD16" };
        write!(f, "{p}-precision render target read {simd}")?;
        if self.per_sample {
            f.write_str(" with Per-Sample Pixel PS outputs enable")?;
        }
        if self.slot_group_high {
            f.write_str(" slot group high")?;
        }
        write!(f, " to surface {}", self.bti)
    }
}

impl fmt::Display for RenderCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RenderCache::Write(w) => w.fmt(f),
            RenderCache::Read(r) => r.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_function_word_round_trips() {
        let mut ok = 0;
        for low in 0..(1u32 << 20) {
            for high in [0u32, 1 << 29, 1 << 30, 1 << 31] {
                let d = low | high;
                if let Ok(m) = decode(d) {
                    assert_eq!(m.encode(), d);
                    ok += 1;
                }
            }
        }
        // writes: 256 surfaces x 5 subtypes x flag bits 11, 12, 13, 18, 19,
        // 30; reads: 256 x flag bits 8, 11, 13, 19, 30
        assert_eq!(ok, 256 * 5 * 64 + 256 * 32);
    }
}
