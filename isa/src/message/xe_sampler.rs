//! Gen12.5 (Xe-HPG, DG2) sampler messages (SFID 2). The DG2 volume (004)
//! has no sampler descriptors (notes line 33), so the layout is Mesa's
//! `brw_eu.h` `brw_sampler_desc` for Gfx8-Gfx12.5: binding-table index
//! 7:0, sampler index 11:8, message type 16:12, SIMD mode 18:17 with its
//! upper bit in 29, return format (16-bit) 30; header 19; 31 MBZ. The
//! message type names and SIMD words are `iga64 -p=12p71`'s, whose send
//! comment (`simd16 sample gather4 using sampler index 3`) is the text;
//! it leaves out the binding-table index, which the typed value keeps.
//!
//! SIMD mode 3 (SIMD32/64) gives the message type other meanings: the
//! sample_unorm, sample_8x8 and deinterlace family of 003's Gen6 table
//! (lines 79400-79419: 0 sample_unorm, 2 +killpix, 3 sample_8x8, 8
//! deinterlace, 12, 10 and 11 their media-payload forms), of which iga64
//! names all but 3, and 31, which iga64 calls the sampler cache flush (no
//! manual or Mesa entry gives it: the name is iga64's alone). Mesa defines
//! no SIMD32/64 type (it never sends them). SIMD mode 7, type 3 and the
//! types no source names in SIMD32/64 mode, and the SIMD8/16 types iga64
//! calls `?` (13-15, 19, 21, 27), are refused.

use core::fmt;

use super::MessageError;

/// Message types (bits 16:12) and iga64's words; `None` where it has none.
const TYPES: [Option<&str>; 32] = [
    Some("sample"),
    Some("sample+LOD bias"),
    Some("sample override LOD"),
    Some("sample compare"),
    Some("sample gradient"),
    Some("sample compare+LOD bias"),
    Some("sample compare+override LOD"),
    Some("sample load"),
    Some("sample gather4"),
    Some("sample override lod"),
    Some("sample res info"),
    Some("sample info"),
    Some("sample+killpix"),
    None,
    None,
    None,
    Some("sample gather4+compare"),
    Some("sample gather4+pixel offset"),
    Some("sample gather4 pixel offset+compare"),
    None,
    Some("sample derivatives+compare"),
    None,
    Some("sample min"),
    Some("sample max"),
    Some("sample with lod forced to 0"),
    Some("sample compare+with lod forced to 0"),
    Some("sample load with lod forced to 0"),
    None,
    Some("sample ld2 multi-sample wide"),
    Some("sample load mcs auxiliary data"),
    Some("sample load multi-sample"),
    Some("sample multi-sample without mcs"),
];

/// SIMD32/64 message types (SIMD mode 3) and iga64's words; `None` where
/// it has none (3, sample_8x8 with a pixel-shader payload in 003, too).
const SIMD32_64_TYPES: [Option<&str>; 32] = {
    let mut t = [None; 32];
    t[0] = Some("sample unorm");
    t[2] = Some("sample unorm+killpix");
    t[8] = Some("sample deinterlace");
    t[10] = Some("sample unorm+killpix for media");
    t[11] = Some("sample 8x8");
    t[12] = Some("sample unorm for media");
    t[31] = Some("sampler cache flush");
    t
};

/// SIMD mode, three bits: 18:17 and 29 as the top bit (Mesa
/// `brw_sampler_desc`: `simd_mode >> 2` in bit 29). Codes and words from
/// `iga64 -p=12p71`: 0 SIMD8 with integer return (Mesa's SIMD8D), 1 SIMD8,
/// 2 SIMD16, 4 SIMD16 with integer return, 5 and 6 SIMD8 and SIMD16
/// "high" (Mesa's SIMD8H/SIMD16H, 16-bit payloads), 3 SIMD32/64 (Mesa
/// `BRW_SAMPLER_SIMD_MODE_SIMD32_64`, 003 lines 79184-79194); 7 is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SamplerSimd {
    Simd8Integer,
    Simd8,
    Simd16,
    Simd16Integer,
    Simd8High,
    Simd16High,
    Simd32_64,
}

const SIMDS: [(SamplerSimd, u32, &str); 7] = [
    (SamplerSimd::Simd8Integer, 0, "simd8 with integer return"),
    (SamplerSimd::Simd8, 1, "simd8"),
    (SamplerSimd::Simd16, 2, "simd16"),
    (SamplerSimd::Simd16Integer, 4, "simd16 with integer return"),
    (SamplerSimd::Simd8High, 5, "simd8 high"),
    (SamplerSimd::Simd16High, 6, "simd16 high"),
    (SamplerSimd::Simd32_64, 3, "simd32/64"),
];

/// The message type names of `simd`'s table.
fn types(simd: SamplerSimd) -> &'static [Option<&'static str>; 32] {
    if simd == SamplerSimd::Simd32_64 {
        &SIMD32_64_TYPES
    } else {
        &TYPES
    }
}

/// A sampler message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct XeSampler {
    pub bti: u8,
    /// Sampler state index (4 bits).
    pub sampler: u8,
    /// Message type (5 bits, one iga64 names in the SIMD mode's table).
    pub msg_type: u8,
    pub simd: SamplerSimd,
    /// 16-bit return format (bit 30).
    pub return_16bit: bool,
    pub header: bool,
}

/// The sampler message of `desc` (bits 28:20, the lengths, ignored).
pub fn decode(desc: u32) -> Result<XeSampler, MessageError> {
    let desc = desc & !0x1FF0_0000;
    if desc & 1 << 31 != 0 {
        return Err(MessageError::StrayBits { bits: 1 << 31 });
    }
    let msg_type = (desc >> 12) & 0x1F;
    let code = (desc >> 17) & 3 | (desc >> 29 & 1) << 2;
    let simd = SIMDS
        .iter()
        .find(|e| e.1 == code)
        .ok_or(MessageError::Reserved {
            field: "sampler SIMD mode (bits 29, 18:17)",
            hi: 18,
            lo: 17,
            value: code,
        })?
        .0;
    if types(simd)[msg_type as usize].is_none() {
        return Err(MessageError::Reserved {
            field: if simd == SamplerSimd::Simd32_64 {
                "sampler SIMD32/64 message type"
            } else {
                "sampler message type"
            },
            hi: 16,
            lo: 12,
            value: msg_type,
        });
    }
    Ok(XeSampler {
        bti: desc as u8,
        sampler: ((desc >> 8) & 0xF) as u8,
        msg_type: msg_type as u8,
        simd,
        return_16bit: desc & 1 << 30 != 0,
        header: desc & 1 << 19 != 0,
    })
}

impl XeSampler {
    /// The descriptor's function and header bits (lengths zero); refuses
    /// what does not fit or has no name.
    pub fn encode(&self) -> Result<u32, MessageError> {
        let simd = SIMDS.iter().find(|e| e.0 == self.simd).map_or(0, |e| e.1);
        let d = u32::from(self.bti)
            | u32::from(self.sampler & 0xF) << 8
            | u32::from(self.msg_type & 0x1F) << 12
            | (simd & 3) << 17
            | u32::from(self.header) << 19
            | (simd >> 2) << 29
            | u32::from(self.return_16bit) << 30;
        match decode(d) {
            Ok(back) if back == *self => Ok(d),
            Ok(_) => Err(MessageError::OutOfRange {
                field: "sampler index or message type",
                value: d,
            }),
            Err(e) => Err(e),
        }
    }
}

/// iga64's description.
impl fmt::Display for XeSampler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(SIMDS.iter().find(|e| e.0 == self.simd).map_or("?", |e| e.2))?;
        if self.return_16bit {
            f.write_str(" 16b")?;
        }
        let name = types(self.simd)[usize::from(self.msg_type & 0x1F)].unwrap_or("?");
        write!(f, " {name} using sampler index {}", self.sampler)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_function_word_round_trips() {
        let mut ok = 0;
        for low in 0..(1u32 << 20) {
            for high in [0u32, 1 << 29, 1 << 30, 3 << 29, 1 << 31] {
                let d = low | high;
                if let Ok(m) = decode(d) {
                    assert_eq!(m.encode(), Ok(d));
                    ok += 1;
                }
            }
        }
        // 256 surfaces x 16 samplers x (26 types x 6 modes + 7 SIMD32/64
        // types) x header x 16-bit
        assert_eq!(ok, 256 * 16 * (26 * 6 + 7) * 2 * 2);
    }
}
