//! The first data-cache port (`dc0`). Descriptors, bits 18:14 the message
//! type (Mesa `brw_eu_defines.h` `GFX7_DATAPORT_DC_*`,
//! `HSW_DATAPORT_DC_PORT0_*`):
//! - OWord block read, 00h (004 MSD0R_OWB lines 30431-30463), OWord
//!   aligned block read, 01h (MSD0R_OWAB lines 30361-30395), OWord block
//!   write, 08h (MSD0W_OWB lines 30465-30497) and OWord aligned block
//!   write, 09h (MSD0W_OWAB lines 30397-30430): surface 7:0, OWord count
//!   10:8 ([`super::OwordCount`]), 12:11 MBZ, subtype 13 (0 OWord), legacy
//!   bit 18 zero, header 19 required (MDC_MHR), 31:29 MBZ. Mesa's
//!   `brw_eu_defines.h` calls 01h `GFX7_DATAPORT_DC_UNALIGNED_OWORD_BLOCK_READ`;
//!   the DG2 manual and iga64 call it aligned, and the name here follows
//!   them;
//! - HWord aligned block read, 01h, and write, 09h, with subtype 13 set
//!   (004 MSD0R_HWAB lines 18804-18837, MSD0W_HWAB 18838-18869): the same
//!   but an HWord count 10:8 (MDC_DB_HW, see the parent module);
//! - dword scattered read, 03h (004 MSD0R_DWS lines 14510-14557), and
//!   write, 0Bh (MSD0W_DWS 14558-14602): surface 7:0, SIMD16 8, legacy SIMD
//!   mode 9 (must be set), the read's invalidate-after-read 13, the rest of
//!   13:10 reserved; the byte scattered read, 04h (MSD0R_BS lines
//!   11752-11801), and write, 0Ch (MSD0W_BS 11802-11850): surface 7:0,
//!   SIMD16 8, bytes per slot 11:10 (MDC_DS, Mesa
//!   `GFX7_BYTE_SCATTERED_DATA_ELEMENT_*`: 1, 2, 4; 3 undefined), 9 and
//!   13:12 reserved; both with header 19, packing 29 and 30, 31 MBZ (Mesa
//!   `brw_dp_dword_scattered_rw_desc`, `brw_dp_byte_scattered_rw_desc`);
//! - scratch block read and write (004 MSD0R_SB lines 32833-32875, MSD0W_SB
//!   32876-32907; Mesa `GFX7_DATAPORT_SCRATCH_READ`/`_WRITE`): bit 18 set
//!   (the scratch form: 17:14 are no message type), operation 17 (0 read,
//!   1 write), the read's invalidate-after-read 15 with 16 and 14 MBZ (the
//!   write's 16:14 reserved), registers 13:12 (MDC_DB_HW, 1, 2, 4 or 8;
//!   Mesa `GFX7_DATAPORT_SCRATCH_NUM_REGS_SHIFT`), offset 11:0 in HWords
//!   (32 bytes) from the header's buffer address, header 19 required,
//!   31:29 MBZ;
//! - memory fence, 07h (004 MSD_MEMFENCE lines 20436-20484; Mesa
//!   `HSW_DATAPORT_DC_PORT0_MEMORY_FENCE`): surface 7:0 (0 global memory,
//!   FEh shared local memory; others undefined), L1 flush 8, L3 flush
//!   12:9 (8 r/w data, 4 constant, 2 texture, 1 instructions; one at a
//!   time, and never with L1 flush: 004 has the caches flushed by separate
//!   fences, and other codes are not in its table), commit 13 (must be
//!   set: 004 calls 0 reserved), header 19, 31:29 MBZ. 004 has the L3 and
//!   L1 flush fields ignored for SLM: set, they are refused.
//!
//! The dual block messages (02h, 0Ah) and qword scattered (05h, 0Dh) are
//! not in 004's DG2 list and are refused.

use core::fmt;

use super::{
    MessageError, OWORD_COUNTS, OwordCount, header_required, hword_code, hword_count, oword_count,
    stray,
};

/// An OWord block read or write (the header is always present).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OwordBlock {
    pub write: bool,
    /// The aligned forms (types 01h and 09h).
    pub aligned: bool,
    pub bti: u8,
    pub count: OwordCount,
}

/// An HWord aligned block read or write (the header is always present).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HwordBlock {
    pub write: bool,
    pub bti: u8,
    /// HWords (32 bytes each): 1, 2, 4 ... 128.
    pub hwords: u8,
}

/// A dword or byte scattered read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scattered {
    pub write: bool,
    /// Dword (types 03h/0Bh) rather than byte (04h/0Ch) elements.
    pub dword: bool,
    pub bti: u8,
    /// Bytes per slot of a byte message: 1, 2 or 4 (1 for dwords).
    pub bytes: u8,
    pub simd16: bool,
    /// Dword reads only.
    pub invalidate_after_read: bool,
    pub header: bool,
    pub packed_address: bool,
    pub packed_data: bool,
}

/// A scratch block read or write (the header is always present).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scratch {
    pub write: bool,
    /// Registers (HWords): 1, 2, 4 or 8.
    pub regs: u8,
    /// Offset from the header's buffer address in HWords, 12 bits.
    pub offset: u16,
    /// Reads only.
    pub invalidate_after_read: bool,
    /// Writes only: bit 16, which 004 prints reserved (MSD0W_SB 16:14) but
    /// IGC sets on every DG2 scratch write (descriptors 0x020F0xxx in its
    /// spill code); iga64 names the message the same either way. It is the
    /// bit the Gen7-Gen11 scratch messages give the channel mode (Mesa
    /// `brw_inst.h` scratch fields), kept so that IGC's sends decode and
    /// encode back to their bits.
    pub write_bit16: bool,
}

/// The L3 flush of a global memory fence (bits 12:9, one cache at a time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum L3Flush {
    RwData,
    Constant,
    Texture,
    Instructions,
}

/// The L3 flush codes and iga64's words.
const L3_FLUSHES: [(L3Flush, u32, &str); 4] = [
    (L3Flush::RwData, 8, "r/w data"),
    (L3Flush::Constant, 4, "constant data"),
    (L3Flush::Texture, 2, "texture data"),
    (L3Flush::Instructions, 1, "instruction data"),
];

/// A memory fence (commit always set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fence {
    /// Shared local memory (surface FEh) rather than global memory (0).
    pub slm: bool,
    /// Invalidate the subslice's L1 read-only data cache (global only).
    pub l1_flush: bool,
    /// Global only, never with `l1_flush`.
    pub l3_flush: Option<L3Flush>,
    pub header: bool,
}

/// A typed `dc0` message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dc0 {
    Block(OwordBlock),
    HwordBlock(HwordBlock),
    Scattered(Scattered),
    Scratch(Scratch),
    Fence(Fence),
}

fn decode_scattered(desc: u32, ty: u32) -> Result<Dc0, MessageError> {
    let dword = ty & 7 == 3;
    let write = ty & 8 != 0;
    let bit = |b: u32| desc & 1 << b != 0;
    let bytes = if dword {
        stray(desc, 1 << 31 | 0x1C00 | u32::from(write) << 13)?;
        if !bit(9) {
            return Err(MessageError::Reserved {
                field: "legacy SIMD mode (must be set)",
                hi: 9,
                lo: 9,
                value: 0,
            });
        }
        1
    } else {
        stray(desc, 1 << 31 | 0x3200)?;
        match (desc >> 10) & 3 {
            3 => {
                return Err(MessageError::Reserved {
                    field: "byte scattered data elements",
                    hi: 11,
                    lo: 10,
                    value: 3,
                });
            }
            v => 1 << v,
        }
    };
    Ok(Dc0::Scattered(Scattered {
        write,
        dword,
        bti: desc as u8,
        bytes,
        simd16: bit(8),
        invalidate_after_read: bit(13),
        header: bit(19),
        packed_address: bit(29),
        packed_data: bit(30),
    }))
}

fn decode_scratch(desc: u32) -> Result<Dc0, MessageError> {
    let write = desc & 1 << 17 != 0;
    // A write's bit 16: see `Scratch::write_bit16`.
    stray(desc, 0xE000_0000 | if write { 0x0_C000 } else { 0x1_4000 })?;
    header_required(desc, "header present (a scratch block requires its header)")?;
    Ok(Dc0::Scratch(Scratch {
        write,
        regs: 1 << ((desc >> 12) & 3),
        offset: (desc & 0xFFF) as u16,
        invalidate_after_read: desc & 1 << 15 != 0,
        write_bit16: write && desc & 1 << 16 != 0,
    }))
}

fn decode_fence(desc: u32) -> Result<Dc0, MessageError> {
    stray(desc, 0xE000_0000)?;
    if desc & 1 << 13 == 0 {
        return Err(MessageError::Reserved {
            field: "fence commit (0 is reserved)",
            hi: 13,
            lo: 13,
            value: 0,
        });
    }
    let slm = match desc & 0xFF {
        0 => false,
        0xFE => true,
        v => {
            return Err(MessageError::Reserved {
                field: "fence surface (0 global, FEh SLM)",
                hi: 7,
                lo: 0,
                value: v,
            });
        }
    };
    if slm {
        // 004: the flushes are ignored for SLM.
        stray(desc, 0x1F00)?;
    }
    let code = (desc >> 9) & 0xF;
    let l3_flush = match code {
        0 => None,
        c => Some(
            L3_FLUSHES
                .iter()
                .find(|e| e.1 == c)
                .ok_or(MessageError::Reserved {
                    field: "fence L3 flush (one cache at a time)",
                    hi: 12,
                    lo: 9,
                    value: c,
                })?
                .0,
        ),
    };
    let l1_flush = desc & 1 << 8 != 0;
    if l1_flush && l3_flush.is_some() {
        return Err(MessageError::Reserved {
            field: "fence L1 flush with an L3 flush",
            hi: 8,
            lo: 8,
            value: 1,
        });
    }
    Ok(Dc0::Fence(Fence {
        slm,
        l1_flush,
        l3_flush,
        header: desc & 1 << 19 != 0,
    }))
}

/// The `dc0` message of `desc` (bits 28:20, the lengths, ignored).
pub fn decode_dc0(desc: u32) -> Result<Dc0, MessageError> {
    let desc = desc & !0x1FF0_0000;
    let ty = (desc >> 14) & 0x1F;
    if ty & 0x10 != 0 {
        return decode_scratch(desc);
    }
    let (write, aligned) = match ty {
        0x00 => (false, false),
        0x01 => (false, true),
        0x08 => (true, false),
        0x09 => (true, true),
        0x03 | 0x04 | 0x0B | 0x0C => return decode_scattered(desc, ty),
        0x07 => return decode_fence(desc),
        v => {
            return Err(MessageError::Reserved {
                field: "dc0 message type (dual block and qword scattered are not typed)",
                hi: 18,
                lo: 14,
                value: v,
            });
        }
    };
    stray(desc, 0xE000_1800)?;
    header_required(desc, "header present (a block message requires its header)")?;
    let code = (desc >> 8) & 7;
    if desc & 1 << 13 != 0 {
        if !aligned {
            return Err(MessageError::Reserved {
                field: "block message subtype (HWord blocks are aligned: types 01h, 09h)",
                hi: 13,
                lo: 13,
                value: 1,
            });
        }
        return Ok(Dc0::HwordBlock(HwordBlock {
            write,
            bti: desc as u8,
            hwords: hword_count(code),
        }));
    }
    Ok(Dc0::Block(OwordBlock {
        write,
        aligned,
        bti: desc as u8,
        count: oword_count(code)?,
    }))
}

impl Dc0 {
    /// The descriptor's function and header bits (lengths zero); refuses
    /// fields that do not fit or that the message does not have.
    pub fn encode(&self) -> Result<u32, MessageError> {
        let block_type = |write: bool, aligned: bool| u32::from(write) << 3 | u32::from(aligned);
        let d = match self {
            Dc0::Block(b) => {
                u32::from(b.bti)
                    | b.count.code() << 8
                    | block_type(b.write, b.aligned) << 14
                    | 1 << 19
            }
            Dc0::HwordBlock(b) => {
                u32::from(b.bti)
                    | hword_code(b.hwords)? << 8
                    | 1 << 13
                    | block_type(b.write, true) << 14
                    | 1 << 19
            }
            Dc0::Scattered(s) => s.encode()?,
            Dc0::Scratch(s) => {
                let regs = match s.regs {
                    1 => 0,
                    2 => 1,
                    4 => 2,
                    8 => 3,
                    v => {
                        return Err(MessageError::OutOfRange {
                            field: "scratch registers (1, 2, 4 or 8)",
                            value: v.into(),
                        });
                    }
                };
                if s.offset > 0xFFF {
                    return Err(MessageError::OutOfRange {
                        field: "scratch offset (12 bits of HWords)",
                        value: s.offset.into(),
                    });
                }
                u32::from(s.offset)
                    | regs << 12
                    | u32::from(s.invalidate_after_read) << 15
                    | u32::from(s.write && s.write_bit16) << 16
                    | u32::from(s.write) << 17
                    | 1 << 18
                    | 1 << 19
            }
            Dc0::Fence(fe) => {
                let l3 = fe
                    .l3_flush
                    .and_then(|l| L3_FLUSHES.iter().find(|e| e.0 == l))
                    .map_or(0, |e| e.1);
                (u32::from(fe.slm) * 0xFE)
                    | u32::from(fe.l1_flush) << 8
                    | l3 << 9
                    | 1 << 13
                    | 7 << 14
                    | u32::from(fe.header) << 19
            }
        };
        match decode_dc0(d) {
            Ok(back) if back == *self => Ok(d),
            _ => Err(MessageError::OutOfRange {
                field: "dc0 fields the message does not have",
                value: d,
            }),
        }
    }
}

impl Scattered {
    fn encode(&self) -> Result<u32, MessageError> {
        let elements = match (self.dword, self.bytes) {
            (true, 1) | (false, 1) => 0,
            (false, 2) => 1,
            (false, 4) => 2,
            (_, v) => {
                return Err(MessageError::OutOfRange {
                    field: "scattered bytes per slot (1, 2 or 4 for bytes, 1 for dwords)",
                    value: v.into(),
                });
            }
        };
        let ty = match (self.dword, self.write) {
            (true, false) => 0x03,
            (false, false) => 0x04,
            (true, true) => 0x0B,
            (false, true) => 0x0C,
        };
        Ok(u32::from(self.bti)
            | u32::from(self.simd16) << 8
            | u32::from(self.dword) << 9
            | elements << 10
            | u32::from(self.invalidate_after_read) << 13
            | ty << 14
            | u32::from(self.header) << 19
            | u32::from(self.packed_address) << 29
            | u32::from(self.packed_data) << 30)
    }
}

/// iga64's description.
impl fmt::Display for Dc0 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dc0::Block(b) => {
                let rw = if b.write { "write" } else { "read" };
                let count = b.count.text();
                match (b.write, b.aligned) {
                    // iga64 calls every 09h an HWord write.
                    (true, true) => write!(f, "hword aligned block write {count}"),
                    (false, true) => write!(f, "oword aligned block read {count}"),
                    _ => write!(f, "oword block {rw} {count}"),
                }
            }
            Dc0::HwordBlock(b) if b.write => {
                // iga64 reads 09h's count with the OWord table whatever
                // the subtype, and writes x0 for its undefined codes.
                let code = b.hwords.trailing_zeros() as usize;
                let count = OWORD_COUNTS.get(code).map_or("x0", |c| c.1);
                write!(f, "hword aligned block write {count}")
            }
            Dc0::HwordBlock(b) => write!(f, "hword aligned block read x{}", b.hwords),
            Dc0::Scattered(s) => {
                let elem = if s.dword { "dword" } else { "byte" };
                let rw = if s.write {
                    "scattering write"
                } else {
                    "gathering read"
                };
                write!(f, "{elem} {rw}")?;
                if !s.dword {
                    write!(f, " {}b", 8 * s.bytes)?;
                }
                Ok(())
            }
            Dc0::Scratch(s) => {
                let rw = if s.write { "write" } else { "read" };
                write!(f, "hword scratch block {rw} x{}", s.regs)
            }
            Dc0::Fence(fe) => {
                if fe.slm {
                    return f.write_str("synchronized SLM fence");
                }
                f.write_str("synchronized global fence flushing")?;
                if fe.l1_flush {
                    f.write_str(" L1")?;
                }
                if let Some(e) = fe
                    .l3_flush
                    .and_then(|l| L3_FLUSHES.iter().find(|e| e.0 == l))
                {
                    write!(f, " L3 {}", e.2)?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dc0_function_word_round_trips() {
        let mut ok = 0;
        for low in 0..(1u32 << 20) {
            for high in [0u32, 1 << 29, 1 << 30, 1 << 31] {
                let d = low | high;
                if let Ok(m) = decode_dc0(d) {
                    assert_eq!(m.encode(), Ok(d), "{d:#x}");
                    ok += 1;
                }
            }
        }
        // OWord blocks: 4 types x 256 surfaces x 6 counts; HWord blocks:
        // 2 x 256 x 8 counts; scattered: 256 x SIMD x header x (none, 29,
        // 30), x 3 byte counts for the byte messages, x invalidate for the
        // dword read; scratch: 4 counts x 4096 offsets, reads x
        // invalidate, writes x IGC's bit 16; fences: header x (global: no flush, L1, 4 L3
        // flushes; SLM)
        let scattered = 256 * 2 * 2 * 3;
        let scratch = 4 * 4096 * 4;
        let fence = 2 * (6 + 1);
        assert_eq!(
            ok,
            4 * 256 * 6 + 2 * 256 * 8 + scattered * (3 + 3 + 2 + 1) + scratch + fence
        );
    }

    #[test]
    fn mesa_descriptors_read() {
        // GFX7_DATAPORT_SCRATCH_WRITE of 2 registers at HWord 5
        let m = decode_dc0(5 | 1 << 12 | 3 << 17 | 1 << 19).unwrap();
        assert_eq!(m.to_string(), "hword scratch block write x2");
        assert_eq!(
            m,
            Dc0::Scratch(Scratch {
                write: true,
                regs: 2,
                offset: 5,
                invalidate_after_read: false,
                write_bit16: false,
            })
        );
        // HSW_DATAPORT_DC_PORT0_MEMORY_FENCE, commit, global, no flush
        let m = decode_dc0(1 << 13 | 7 << 14 | 1 << 19).unwrap();
        assert_eq!(m.to_string(), "synchronized global fence flushing");
        // two L3 caches at once, and a fence without commit, are refused
        assert!(decode_dc0(0xC << 9 | 1 << 13 | 7 << 14).is_err());
        assert!(decode_dc0(7 << 14).is_err());
    }
}
