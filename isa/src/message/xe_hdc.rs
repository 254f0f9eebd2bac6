//! Gen12.5 (Xe-HPG, DG2) legacy data-port (HDC) messages. On the second
//! data-cache port (SFID `dc1`, Mesa `HSW_SFID_DATAPORT_DATA_CACHE_1`):
//! the untyped surface read and write (binding table or stateless) and
//! their A64 forms, the untyped integer and float atomics, the A64
//! scattered (gathering) read and write of bytes, dwords and qwords, the
//! A64 OWord block and the media block; on the first (`dc0`, below) the
//! OWord block and the dword and byte scattered messages. DG2 kernels built before LSC still send them.
//!
//! Descriptors (lengths 28:20 stay outside):
//! - untyped surface read, type 01h (004 MSD1R_US lines 35516-35561) and
//!   write, 09h (MSD1W_US lines 35586-35630): binding table index 7:0,
//!   channel mask 11:8 (MDC_CMASK: a set bit leaves the channel out), SIMD
//!   mode 13:12 (MDC_SM3: 0 SIMD4x2, 1 SIMD16, 2 SIMD8, 3 reserved; Mesa
//!   `brw_eu.h` `brw_dp_untyped_surface_rw_desc`), header 19, packed
//!   address payload 29, packed data payload 30, 31 MBZ;
//! - A64 untyped surface read, 11h (004 MSD1R_A64_US lines 5697-5730) and
//!   write, 19h (MSD1W_A64_US lines 5762-5795): the same 13:8 and surface
//!   7:0 (MDC_STATELESS), but the header is forbidden (MDC_MHF) and 31:29
//!   MBZ;
//! - A64 scattered read, 10h, and write, 1Ah (004 MSD1R_A64_BS lines
//!   5064-5091, MSD1W_A64_BS 5092-5130, the dword 5131-5200 and qword
//!   5542-5610 forms): surface 7:0, subtype 9:8 (0 byte, 1 dword, 2 qword;
//!   3 undefined), data elements 11:10 (MDC_A64_DS: 1, 2, 4 or 8, Mesa
//!   `brw_mdc_a64_ds`), SIMD mode 12 (MDC_SM2: SIMD16 when set), the
//!   read's invalidate-after-read 13 (the write's 13 is reserved); header
//!   forbidden, 31:29 MBZ;
//! - untyped atomic integer operation, 02h (004 MSD1R_DWAI lines
//!   14787-14827): surface 7:0, operation 11:8 (MDC_AOP, Mesa `BRW_AOP_*`:
//!   1 AND ... 15 PREDEC; 0 is iga64's `64b integer compare and swap`),
//!   SIMD mode 12 (SIMD8 when set, Mesa `brw_dp_untyped_atomic_desc`),
//!   return data 13, header 19, packing 29 and 30, 31 MBZ; and its A64
//!   form, 12h (MSD1R_A64_DWAI lines 5274-5307, MSD1R_A64_QWAI 5609-5643):
//!   the same 11:8 and 13, data width 12 (64-bit integers when set), no
//!   header, 31:29 MBZ (Mesa `GFX8_DATAPORT_DC_PORT1_A64_UNTYPED_ATOMIC_OP`);
//! - media block read, 04h, and write, 0Ah (004 MSD1R_MB lines
//!   20368-20391, MSD1W_MB 20392-20415): surface 7:0, vertical line stride
//!   override 10:8 (MDC_VLSO, whose table 004 does not print: kept as its
//!   code, described by iga64's words), 13:11 MBZ, header 19 required,
//!   31:29 MBZ (Mesa `HSW_DATAPORT_DC_PORT1_MEDIA_BLOCK_READ`/`_WRITE`);
//! - A64 OWord block read, 14h, and write, 15h (004 MSD1R_A64_OWB lines
//!   5457-5482, MSD1W_A64_OWB 5483-5510, MSD1R_A64_OWAB 5399-5429,
//!   MSD1W_A64_OWAB 5430-5456): surface 7:0, OWord count 10:8 (as `dc0`'s
//!   block messages), subtype 12:11 (0 OWord, 1 aligned OWord; the HWord
//!   subtype 3, MSD1R_A64_HWB lines 5346-5371, is not typed and 2 is
//!   undefined), the read's invalidate-after-read 13 (the write's 13 is
//!   reserved; the aligned read's row is garbled in 004 and taken as the
//!   plain read's), header 19 required, 31:29 MBZ (Mesa
//!   `GFX9_DATAPORT_DC_PORT1_A64_OWORD_BLOCK_READ`/`_WRITE`; Mesa's
//!   `brw_dp_a64_oword_block_rw_desc` sets subtype 1 for an address *not*
//!   16-byte aligned, while 004 and iga64 call 1 the aligned one: the names
//!   here follow 004);
//! - untyped atomic float operation, 1Bh (004 MSD1R_DWAF lines
//!   14691-14738), and its A64 form, 1Dh (MSD1R_A64_DWAF lines 5199-5234):
//!   surface 7:0, operation 10:8 (MDC_FOP, Mesa `BRW_AOP_FMAX` 1, `FMIN` 2,
//!   `FCMPWR` 3, `FADD` 4; 5-7 named by iga64; 0 undefined), data width 11,
//!   SIMD mode 12, return data 13; the surface form with header 19 and
//!   packing 29, 30 (31 MBZ), the A64 form without (31:29 MBZ; Mesa
//!   `GFX9_DATAPORT_DC_PORT1_UNTYPED_ATOMIC_FLOAT_OP`, `..._A64_...`).
//!
//!
//! Other `dc1` types (word and half-float atomics, typed) are not typed
//! here. Message type codes: Mesa `brw_eu_defines.h`
//! `HSW_DATAPORT_DC_PORT1_UNTYPED_SURFACE_READ`/`_WRITE`,
//! `GFX8_DATAPORT_DC_PORT1_A64_UNTYPED_SURFACE_READ`/`_WRITE`,
//! `GFX9_DATAPORT_DC_PORT1_A64_SCATTERED_READ`,
//! `GFX8_DATAPORT_DC_PORT1_A64_SCATTERED_WRITE` and those named above.
//! The text is the description `iga64 -p=12p71` writes in its send
//! comment (`untyped surface read with xy`, `a64 byte gathering read
//! 16b`), which leaves out the surface, the SIMD mode and the packing; the
//! typed value keeps them.
//!
//! On the first port (SFID `dc0`, Mesa `GFX7_SFID_DATAPORT_DATA_CACHE`),
//! the OWord block read, type 00h (004 MSD0R_OWB lines 30431-30463), the
//! OWord aligned block read, 01h (MSD0R_OWAB lines 30361-30395) and the
//! OWord block write, 08h (MSD0W_OWB lines 30465-30497): surface 7:0,
//! OWord count 10:8 (MDC_DB_OW, Mesa `BRW_DATAPORT_OWORD_BLOCK_*`: 0 one
//! low, 1 one high, 2, 4, 8 and, `GFX12_DATAPORT_OWORD_BLOCK_16_OWORDS`,
//! 5 for 16; 6 and 7 undefined), 12:11 MBZ, subtype 13 (0 OWord; the
//! HWord subtype of type 01h is not typed), legacy bit 18 zero, header 19
//! required (MDC_MHR), 31:29 MBZ. Mesa's `brw_eu_defines.h` calls 01h
//! `GFX7_DATAPORT_DC_UNALIGNED_OWORD_BLOCK_READ`; the DG2 manual and iga64
//! call it aligned, and the name here follows them. And the dword
//! scattered read, 03h (004 MSD0R_DWS lines 14510-14557), and write, 0Bh
//! (MSD0W_DWS 14558-14602): surface 7:0, SIMD16 8, legacy SIMD mode 9
//! (must be set), the read's invalidate-after-read 13, the rest of 13:10
//! reserved; the byte scattered read, 04h (MSD0R_BS lines 11752-11801),
//! and write, 0Ch (MSD0W_BS 11802-11850): surface 7:0, SIMD16 8, bytes
//! per slot 11:10 (MDC_DS, Mesa `GFX7_BYTE_SCATTERED_DATA_ELEMENT_*`: 1, 2,
//! 4; 3 undefined), 9 and 13:12 reserved; both with header 19, packing 29
//! and 30, 31 MBZ (Mesa `brw_dp_dword_scattered_rw_desc`,
//! `brw_dp_byte_scattered_rw_desc`). The aligned write,
//! 09h (MSD0W_OWAB), is left out: iga64 calls every 09h an HWord write.

use core::fmt;

use super::MessageError;

/// Message types (bits 18:14).
const UNTYPED_READ: u32 = 0x01;
const UNTYPED_WRITE: u32 = 0x09;
const A64_SCATTERED_READ: u32 = 0x10;
const A64_UNTYPED_READ: u32 = 0x11;
const A64_UNTYPED_WRITE: u32 = 0x19;
const A64_SCATTERED_WRITE: u32 = 0x1A;
const UNTYPED_ATOMIC: u32 = 0x02;
const MEDIA_BLOCK_READ: u32 = 0x04;
const MEDIA_BLOCK_WRITE: u32 = 0x0A;
const A64_BLOCK_READ: u32 = 0x14;
const A64_BLOCK_WRITE: u32 = 0x15;
const FLOAT_ATOMIC: u32 = 0x1B;
const A64_FLOAT_ATOMIC: u32 = 0x1D;
const A64_UNTYPED_ATOMIC: u32 = 0x12;

/// MDC_SM3, the untyped surface SIMD mode (bits 13:12).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UntypedSimd {
    Simd4x2,
    Simd16,
    Simd8,
}

/// An untyped surface read or write (the channel mask is of the channels
/// *present*, bit 0 for x; the descriptor holds its complement).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Untyped {
    pub write: bool,
    /// A64 stateless addresses (types 11h/19h) rather than a surface.
    pub a64: bool,
    pub bti: u8,
    /// Channels present, x in bit 0.
    pub channels: u8,
    pub simd: UntypedSimd,
    /// Header present (not for A64).
    pub header: bool,
    /// 16-bit addresses (bit 29, not for A64).
    pub packed_address: bool,
    /// 16-bit data (bit 30, not for A64).
    pub packed_data: bool,
}

/// The A64 scattered element (bits 9:8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScatterElem {
    Byte,
    Dword,
    Qword,
}

/// An A64 scattered read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct A64Scattered {
    pub write: bool,
    pub bti: u8,
    pub elem: ScatterElem,
    /// Data elements per slot: 1, 2, 4 or 8 (bytes for the byte subtype).
    pub elements: u8,
    pub simd16: bool,
    /// Invalidate the L3 lines after the read (reads only).
    pub invalidate_after_read: bool,
}

/// The integer atomic operations (MDC_AOP, bits 11:8) with iga64's names.
pub const ATOMIC_OPS: [&str; 16] = [
    "64b integer compare and swap",
    "logical AND",
    "logical OR",
    "logical XOR",
    "store",
    "integer increment",
    "integer decrement",
    "integer add",
    "integer subtract",
    "commuted integer subtract",
    "signed-integer max",
    "signed-integer min",
    "unsigned-integer max",
    "unsigned-integer min",
    "integer compare and swap",
    "integer pre-decrement (returns pre-decrement value)",
];

/// An untyped integer atomic (dword; with `a64`, dword or qword).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UntypedAtomic {
    pub a64: bool,
    pub bti: u8,
    /// MDC_AOP code, an index into [`ATOMIC_OPS`].
    pub op: u8,
    /// Bit 12: SIMD8 (surface form) or 64-bit data (A64 form).
    pub bit12: bool,
    pub returns: bool,
    /// Header present (not for A64).
    pub header: bool,
    pub packed_address: bool,
    pub packed_data: bool,
}

/// A media block read or write (the header is always present).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MediaBlock {
    pub write: bool,
    pub bti: u8,
    /// The MDC_VLSO code, bits 10:8.
    pub vlso: u8,
}

/// iga64's words for the MDC_VLSO codes, its spacing kept (bits 9:8
/// choose the words, bit 10 alone adds the bare phrase).
const VLSO_TEXT: [&str; 8] = [
    "",
    " with vertical line stride  and skip",
    " with vertical line stride override and offset",
    " with vertical line stride override,skip, and offset",
    " with vertical line stride ",
    " with vertical line stride  and skip",
    " with vertical line stride override and offset",
    " with vertical line stride override,skip, and offset",
];

/// An A64 OWord block read or write (the header is always present).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct A64Block {
    pub write: bool,
    /// Subtype 1, the aligned OWord block.
    pub aligned: bool,
    pub bti: u8,
    pub count: OwordCount,
    /// Reads only.
    pub invalidate_after_read: bool,
}

/// The float atomic operations (MDC_FOP, bits 10:8, code 1 first) with
/// iga64's names (its spacing kept).
pub const FLOAT_OPS: [&str; 7] = [
    "max (32b)",
    "min (32b)",
    "fp-compare and swap  (32b)",
    "add (32b)",
    "subtract (32b)",
    "64b add (64b)",
    "64b subtract (64b)",
];

/// An untyped float atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatAtomic {
    pub a64: bool,
    pub bti: u8,
    /// MDC_FOP code 1-7.
    pub op: u8,
    /// Data width bit 11.
    pub wide: bool,
    /// SIMD mode bit 12.
    pub simd_bit: bool,
    pub returns: bool,
    /// Header present (not for A64).
    pub header: bool,
    pub packed_address: bool,
    pub packed_data: bool,
}

/// A typed `dc1` message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dc1 {
    FloatAtomic(FloatAtomic),
    Untyped(Untyped),
    A64Scattered(A64Scattered),
    Atomic(UntypedAtomic),
    MediaBlock(MediaBlock),
    A64Block(A64Block),
}

fn stray(desc: u32, bits: u32) -> Result<(), MessageError> {
    if desc & bits != 0 {
        Err(MessageError::StrayBits { bits: desc & bits })
    } else {
        Ok(())
    }
}

/// The `dc1` message of `desc` (bits 28:20, the lengths, ignored).
pub fn decode_dc1(desc: u32) -> Result<Dc1, MessageError> {
    let desc = desc & !0x1FF0_0000;
    let ty = (desc >> 14) & 0x1F;
    let bit = |b: u32| desc & 1 << b != 0;
    match ty {
        UNTYPED_READ | UNTYPED_WRITE | A64_UNTYPED_READ | A64_UNTYPED_WRITE => {
            let a64 = ty & 0x10 != 0;
            stray(desc, if a64 { 0xE008_0000 } else { 1 << 31 })?;
            let simd = match (desc >> 12) & 3 {
                0 => UntypedSimd::Simd4x2,
                1 => UntypedSimd::Simd16,
                2 => UntypedSimd::Simd8,
                v => {
                    return Err(MessageError::Reserved {
                        field: "untyped surface SIMD mode",
                        hi: 13,
                        lo: 12,
                        value: v,
                    });
                }
            };
            Ok(Dc1::Untyped(Untyped {
                write: ty & 8 != 0,
                a64,
                bti: desc as u8,
                channels: !(desc >> 8) as u8 & 0xF,
                simd,
                header: bit(19),
                packed_address: bit(29),
                packed_data: bit(30),
            }))
        }
        A64_SCATTERED_READ | A64_SCATTERED_WRITE => {
            let write = ty == A64_SCATTERED_WRITE;
            stray(desc, 0xE008_0000 | u32::from(write) << 13)?;
            let elem = match (desc >> 8) & 3 {
                0 => ScatterElem::Byte,
                1 => ScatterElem::Dword,
                2 => ScatterElem::Qword,
                v => {
                    return Err(MessageError::Reserved {
                        field: "A64 scattered message subtype",
                        hi: 9,
                        lo: 8,
                        value: v,
                    });
                }
            };
            Ok(Dc1::A64Scattered(A64Scattered {
                write,
                bti: desc as u8,
                elem,
                elements: 1 << ((desc >> 10) & 3),
                simd16: bit(12),
                invalidate_after_read: bit(13),
            }))
        }
        UNTYPED_ATOMIC | A64_UNTYPED_ATOMIC => {
            let a64 = ty == A64_UNTYPED_ATOMIC;
            stray(desc, if a64 { 0xE008_0000 } else { 1 << 31 })?;
            Ok(Dc1::Atomic(UntypedAtomic {
                a64,
                bti: desc as u8,
                op: ((desc >> 8) & 0xF) as u8,
                bit12: bit(12),
                returns: bit(13),
                header: bit(19),
                packed_address: bit(29),
                packed_data: bit(30),
            }))
        }
        MEDIA_BLOCK_READ | MEDIA_BLOCK_WRITE => {
            stray(desc, 0xE000_3800)?;
            if !bit(19) {
                return Err(MessageError::Reserved {
                    field: "header present (a media block message requires its header)",
                    hi: 19,
                    lo: 19,
                    value: 0,
                });
            }
            Ok(Dc1::MediaBlock(MediaBlock {
                write: ty == MEDIA_BLOCK_WRITE,
                bti: desc as u8,
                vlso: ((desc >> 8) & 7) as u8,
            }))
        }
        FLOAT_ATOMIC | A64_FLOAT_ATOMIC => {
            let a64 = ty == A64_FLOAT_ATOMIC;
            stray(desc, if a64 { 0xE008_0000 } else { 1 << 31 })?;
            let op = ((desc >> 8) & 7) as u8;
            if op == 0 {
                return Err(MessageError::Reserved {
                    field: "float atomic operation",
                    hi: 10,
                    lo: 8,
                    value: 0,
                });
            }
            Ok(Dc1::FloatAtomic(FloatAtomic {
                a64,
                bti: desc as u8,
                op,
                wide: bit(11),
                simd_bit: bit(12),
                returns: bit(13),
                header: bit(19),
                packed_address: bit(29),
                packed_data: bit(30),
            }))
        }
        A64_BLOCK_READ | A64_BLOCK_WRITE => {
            let write = ty == A64_BLOCK_WRITE;
            stray(desc, 0xE000_0000 | u32::from(write) << 13)?;
            if !bit(19) {
                return Err(MessageError::Reserved {
                    field: "header present (an A64 block message requires its header)",
                    hi: 19,
                    lo: 19,
                    value: 0,
                });
            }
            let sub = (desc >> 11) & 3;
            if sub > 1 {
                return Err(MessageError::Reserved {
                    field: "A64 block message subtype (OWord and aligned OWord are typed)",
                    hi: 12,
                    lo: 11,
                    value: sub,
                });
            }
            let code = (desc >> 8) & 7;
            let count = OWORD_COUNTS
                .get(code as usize)
                .ok_or(MessageError::Reserved {
                    field: "OWord block count",
                    hi: 10,
                    lo: 8,
                    value: code,
                })?
                .0;
            Ok(Dc1::A64Block(A64Block {
                write,
                aligned: sub == 1,
                bti: desc as u8,
                count,
                invalidate_after_read: bit(13),
            }))
        }
        v => Err(MessageError::Reserved {
            field: "dc1 message type (untyped surface and atomic, A64 scattered and block, media block are typed)",
            hi: 18,
            lo: 14,
            value: v,
        }),
    }
}

impl Dc1 {
    /// The descriptor's function and header bits (lengths zero); refuses
    /// fields that do not fit or that the message does not have.
    pub fn encode(&self) -> Result<u32, MessageError> {
        let d = match self {
            Dc1::Untyped(u) => {
                if u.channels > 0xF {
                    return Err(MessageError::OutOfRange {
                        field: "untyped surface channels",
                        value: u.channels.into(),
                    });
                }
                let ty = match (u.a64, u.write) {
                    (false, false) => UNTYPED_READ,
                    (false, true) => UNTYPED_WRITE,
                    (true, false) => A64_UNTYPED_READ,
                    (true, true) => A64_UNTYPED_WRITE,
                };
                let simd = match u.simd {
                    UntypedSimd::Simd4x2 => 0,
                    UntypedSimd::Simd16 => 1,
                    UntypedSimd::Simd8 => 2,
                };
                u32::from(u.bti)
                    | u32::from(!u.channels & 0xF) << 8
                    | simd << 12
                    | ty << 14
                    | u32::from(u.header) << 19
                    | u32::from(u.packed_address) << 29
                    | u32::from(u.packed_data) << 30
            }
            Dc1::A64Scattered(s) => {
                let elements = match s.elements {
                    1 => 0,
                    2 => 1,
                    4 => 2,
                    8 => 3,
                    v => {
                        return Err(MessageError::OutOfRange {
                            field: "A64 scattered data elements (1, 2, 4 or 8)",
                            value: v.into(),
                        });
                    }
                };
                let elem = match s.elem {
                    ScatterElem::Byte => 0,
                    ScatterElem::Dword => 1,
                    ScatterElem::Qword => 2,
                };
                let ty = if s.write {
                    A64_SCATTERED_WRITE
                } else {
                    A64_SCATTERED_READ
                };
                u32::from(s.bti)
                    | elem << 8
                    | elements << 10
                    | u32::from(s.simd16) << 12
                    | u32::from(s.invalidate_after_read) << 13
                    | ty << 14
            }
            Dc1::Atomic(a) => {
                if a.op > 0xF {
                    return Err(MessageError::OutOfRange {
                        field: "atomic operation",
                        value: a.op.into(),
                    });
                }
                let ty = if a.a64 {
                    A64_UNTYPED_ATOMIC
                } else {
                    UNTYPED_ATOMIC
                };
                u32::from(a.bti)
                    | u32::from(a.op) << 8
                    | u32::from(a.bit12) << 12
                    | u32::from(a.returns) << 13
                    | ty << 14
                    | u32::from(a.header) << 19
                    | u32::from(a.packed_address) << 29
                    | u32::from(a.packed_data) << 30
            }
            Dc1::MediaBlock(m) => {
                if m.vlso > 7 {
                    return Err(MessageError::OutOfRange {
                        field: "vertical line stride override",
                        value: m.vlso.into(),
                    });
                }
                let ty = if m.write {
                    MEDIA_BLOCK_WRITE
                } else {
                    MEDIA_BLOCK_READ
                };
                u32::from(m.bti) | u32::from(m.vlso) << 8 | ty << 14 | 1 << 19
            }
            Dc1::FloatAtomic(a) => {
                if !(1..=7).contains(&a.op) {
                    return Err(MessageError::OutOfRange {
                        field: "float atomic operation (1-7)",
                        value: a.op.into(),
                    });
                }
                let ty = if a.a64 {
                    A64_FLOAT_ATOMIC
                } else {
                    FLOAT_ATOMIC
                };
                u32::from(a.bti)
                    | u32::from(a.op) << 8
                    | u32::from(a.wide) << 11
                    | u32::from(a.simd_bit) << 12
                    | u32::from(a.returns) << 13
                    | ty << 14
                    | u32::from(a.header) << 19
                    | u32::from(a.packed_address) << 29
                    | u32::from(a.packed_data) << 30
            }
            Dc1::A64Block(b) => {
                let code = OWORD_COUNTS
                    .iter()
                    .position(|c| c.0 == b.count)
                    .unwrap_or(0) as u32;
                let ty = if b.write {
                    A64_BLOCK_WRITE
                } else {
                    A64_BLOCK_READ
                };
                u32::from(b.bti)
                    | code << 8
                    | u32::from(b.aligned) << 11
                    | u32::from(b.invalidate_after_read) << 13
                    | ty << 14
                    | 1 << 19
            }
        };
        // The fields a message lacks (an A64 header or packing, a write's
        // invalidate) come back refused.
        match decode_dc1(d) {
            Ok(back) if back == *self => Ok(d),
            _ => Err(MessageError::OutOfRange {
                field: "dc1 fields the message does not have",
                value: d,
            }),
        }
    }
}

/// iga64's description.
impl fmt::Display for Dc1 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dc1::Untyped(u) => {
                let a64 = if u.a64 { "a64 " } else { "" };
                let rw = if u.write { "write" } else { "read" };
                write!(f, "{a64}untyped surface {rw} with ")?;
                for (i, c) in ['x', 'y', 'z', 'w'].into_iter().enumerate() {
                    if u.channels & 1 << i != 0 {
                        write!(f, "{c}")?;
                    }
                }
                Ok(())
            }
            Dc1::A64Scattered(s) => {
                let elem = match s.elem {
                    ScatterElem::Byte => "byte",
                    ScatterElem::Dword => "dword",
                    ScatterElem::Qword => "qword",
                };
                let rw = if s.write {
                    "scattering write"
                } else {
                    "gathering read"
                };
                write!(f, "a64 {elem} {rw}")?;
                // iga64 names the byte counts but the eight-byte one.
                if s.elem == ScatterElem::Byte && s.elements < 8 {
                    write!(f, " {}b", 8 * s.elements)?;
                }
                Ok(())
            }
            Dc1::Atomic(a) => {
                let a64 = if a.a64 { " a64" } else { "" };
                let width = if a.a64 && a.bit12 { 64 } else { 32 };
                let op = ATOMIC_OPS[usize::from(a.op & 0xF)];
                write!(f, "untyped{a64} atomic int{width} {op}")
            }
            Dc1::FloatAtomic(a) => {
                let a64 = if a.a64 { "a64 " } else { "" };
                let op = FLOAT_OPS[usize::from(a.op.clamp(1, 7) - 1)];
                let ret = if a.returns { " with return" } else { "" };
                write!(f, "{a64}float atomic {op}{ret}")
            }
            Dc1::A64Block(b) => {
                let al = if b.aligned { "aligned" } else { "unaligned" };
                let rw = if b.write { "write" } else { "read" };
                let count = OWORD_COUNTS
                    .iter()
                    .find(|c| c.0 == b.count)
                    .map_or("", |c| c.1);
                write!(f, "a64 {al} oword block {rw} {count}")
            }
            Dc1::MediaBlock(m) => {
                let rw = if m.write { "write" } else { "read" };
                let vlso = VLSO_TEXT[usize::from(m.vlso & 7)];
                write!(f, "media block {rw}{vlso}")
            }
        }
    }
}

/// The OWord count of a block message (bits 10:8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OwordCount {
    OneLow,
    OneHigh,
    Two,
    Four,
    Eight,
    Sixteen,
}

const OWORD_COUNTS: [(OwordCount, &str); 6] = [
    (OwordCount::OneLow, "x1"),
    (OwordCount::OneHigh, "x1H"),
    (OwordCount::Two, "x2"),
    (OwordCount::Four, "x4"),
    (OwordCount::Eight, "x8"),
    (OwordCount::Sixteen, "x16"),
];

/// An OWord block read or write on `dc0` (the header is always present).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OwordBlock {
    pub write: bool,
    /// The aligned read (type 01h); writes are never aligned here.
    pub aligned: bool,
    pub bti: u8,
    pub count: OwordCount,
}

/// A dword or byte scattered read or write on `dc0`.
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

/// A typed `dc0` message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dc0 {
    Block(OwordBlock),
    Scattered(Scattered),
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

/// The `dc0` message of `desc` (bits 28:20, the lengths, ignored).
pub fn decode_dc0(desc: u32) -> Result<Dc0, MessageError> {
    let desc = desc & !0x1FF0_0000;
    let ty = (desc >> 14) & 0x1F;
    let (write, aligned) = match ty {
        0x00 => (false, false),
        0x01 => (false, true),
        0x08 => (true, false),
        0x03 | 0x04 | 0x0B | 0x0C => return decode_scattered(desc, ty),
        v => {
            return Err(MessageError::Reserved {
                field: "dc0 message type (OWord block, dword and byte scattered are typed)",
                hi: 18,
                lo: 14,
                value: v,
            });
        }
    };
    if desc & 1 << 13 != 0 {
        return Err(MessageError::Reserved {
            field: "block message subtype (HWord is not typed)",
            hi: 13,
            lo: 13,
            value: 1,
        });
    }
    stray(desc, 0xE000_1800)?;
    if desc & 1 << 19 == 0 {
        return Err(MessageError::Reserved {
            field: "header present (a block message requires its header)",
            hi: 19,
            lo: 19,
            value: 0,
        });
    }
    let code = (desc >> 8) & 7;
    let count = OWORD_COUNTS
        .get(code as usize)
        .ok_or(MessageError::Reserved {
            field: "OWord block count",
            hi: 10,
            lo: 8,
            value: code,
        })?
        .0;
    Ok(Dc0::Block(OwordBlock {
        write,
        aligned,
        bti: desc as u8,
        count,
    }))
}

impl Dc0 {
    /// The descriptor's function and header bits (lengths zero); refuses
    /// an aligned write.
    pub fn encode(&self) -> Result<u32, MessageError> {
        let b = match self {
            Dc0::Block(b) => b,
            Dc0::Scattered(s) => return s.encode(),
        };
        let ty = match (b.write, b.aligned) {
            (false, false) => 0x00,
            (false, true) => 0x01,
            (true, false) => 0x08,
            (true, true) => {
                return Err(MessageError::OutOfRange {
                    field: "OWord aligned block write (not typed)",
                    value: 0x09,
                });
            }
        };
        let code = OWORD_COUNTS
            .iter()
            .position(|c| c.0 == b.count)
            .unwrap_or(0) as u32;
        Ok(u32::from(b.bti) | code << 8 | ty << 14 | 1 << 19)
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
        let d = u32::from(self.bti)
            | u32::from(self.simd16) << 8
            | u32::from(self.dword) << 9
            | elements << 10
            | u32::from(self.invalidate_after_read) << 13
            | ty << 14
            | u32::from(self.header) << 19
            | u32::from(self.packed_address) << 29
            | u32::from(self.packed_data) << 30;
        match decode_dc0(d) {
            Ok(Dc0::Scattered(back)) if back == *self => Ok(d),
            _ => Err(MessageError::OutOfRange {
                field: "scattered fields the message does not have",
                value: d,
            }),
        }
    }
}

/// iga64's description.
impl fmt::Display for Dc0 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = match self {
            Dc0::Block(b) => b,
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
                return Ok(());
            }
        };
        let aligned = if b.aligned { " aligned" } else { "" };
        let rw = if b.write { "write" } else { "read" };
        let count = OWORD_COUNTS
            .iter()
            .find(|c| c.0 == b.count)
            .map_or("", |c| c.1);
        write!(f, "oword{aligned} block {rw} {count}")
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
                if let Ok(m) = decode_dc1(d) {
                    assert_eq!(m.encode(), Ok(d), "{d:#x}");
                    ok += 1;
                }
            }
        }
        // untyped: 2 surface types x 256 surfaces x 16 masks x 3 SIMD
        // modes x header x (none, bit 29, bit 30 of the loop's high bits),
        // 2 A64 types without them; scattered: 256 x 3 subtypes x 4 counts
        // x SIMD, reads x bit 13
        let untyped = 256 * 16 * 3;
        let scattered = 256 * 3 * 4 * 2;
        // atomics: 256 x 16 ops x bit 12 x return, the surface form also
        // x header x (none, 29, 30)
        let atomic = 256 * 16 * 4;
        // media blocks: 2 x 256 x 8 codes, header set
        let media = 2 * 256 * 8;
        // A64 blocks: 256 x 6 counts x 2 subtypes, reads x invalidate
        let a64_block = 256 * 6 * 2 * 3;
        // float atomics: 256 x 7 ops x bits 11, 12, 13; the surface form
        // also x header x (none, 29, 30)
        let float_atomic = 256 * 7 * 8;
        assert_eq!(
            ok,
            2 * untyped * 2 * 3
                + 2 * untyped
                + scattered * 3
                + atomic * 2 * 3
                + atomic
                + media
                + a64_block
                + float_atomic * 2 * 3
                + float_atomic
        );
        // an A64 header, a reserved SIMD mode and subtype are refused
        assert!(decode_dc1(0x8_0000 | A64_UNTYPED_READ << 14).is_err());
        assert!(decode_dc1(0x3000 | UNTYPED_READ << 14).is_err());
        assert!(decode_dc1(0x300 | A64_SCATTERED_READ << 14).is_err());
    }

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
        // blocks: 3 types x 256 surfaces x 6 counts, header set;
        // scattered: 256 x SIMD x header x (none, 29, 30), x 3 byte counts
        // for the byte messages, x invalidate for the dword read
        let scattered = 256 * 2 * 2 * 3;
        assert_eq!(ok, 3 * 256 * 6 + scattered * (3 + 3 + 2 + 1));
    }

    #[test]
    fn mesa_descriptors_read() {
        // brw_dp_untyped_surface_rw_desc(16, 2 channels, read) on BTI 3
        let m = decode_dc1(0x3 | 0xC << 8 | 1 << 12 | 1 << 14).unwrap();
        assert_eq!(m.to_string(), "untyped surface read with xy");
        assert_eq!(
            m,
            Dc1::Untyped(Untyped {
                write: false,
                a64: false,
                bti: 3,
                channels: 3,
                simd: UntypedSimd::Simd16,
                header: false,
                packed_address: false,
                packed_data: false,
            })
        );
        // a64 byte scattered write of 4 bytes, SIMD16, stateless 253
        let m = decode_dc1(253 | 2 << 10 | 1 << 12 | 0x1A << 14).unwrap();
        assert_eq!(m.to_string(), "a64 byte scattering write 32b");
    }
}
