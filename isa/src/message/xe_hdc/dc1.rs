//! The second data-cache port (`dc1`). Descriptors, bits 18:14 the message
//! type (Mesa `brw_eu_defines.h` `HSW_DATAPORT_DC_PORT1_*`, `GFX8_`/
//! `GFX9_`/`GFX12_DATAPORT_DC_PORT1_*`):
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
//!   14787-14827), and its word form, 03h (MSD1R_WAI lines 36846-36891,
//!   MSD1W_WAI 36892-36929): surface 7:0, operation 11:8 (MDC_AOP, Mesa
//!   `BRW_AOP_*`: 1 AND ... 15 PREDEC; 0 is iga64's `64b integer compare
//!   and swap`), SIMD mode 12 (SIMD8 when set, Mesa
//!   `brw_dp_untyped_atomic_desc`), return data 13, header 19, packing 29
//!   and 30, 31 MBZ; the A64 form, 12h (MSD1R_A64_DWAI lines 5274-5307,
//!   MSD1R_A64_QWAI 5609-5643): the same 11:8 and 13, data width 12
//!   (64-bit integers when set), no header, 31:29 MBZ (Mesa
//!   `GFX8_DATAPORT_DC_PORT1_A64_UNTYPED_ATOMIC_OP`), and its word form,
//!   13h (MSD1R_A64_WAI lines 5855-5890, MSD1W_A64_WAI 5891-5923; Mesa
//!   `GFX12_DATAPORT_DC_PORT1_A64_UNTYPED_ATOMIC_HALF_INT_OP`), whose data
//!   width 12 has only its default 0 (`brw_dp_a64_untyped_atomic_desc`
//!   sets 12 only for 64 bits): set, it is refused;
//! - media block read, 04h, and write, 0Ah (004 MSD1R_MB lines
//!   20368-20391, MSD1W_MB 20392-20415): surface 7:0, vertical line stride
//!   override 10:8 (MDC_VLSO, whose table 004 does not print: kept as its
//!   code, described by iga64's words), 13:11 MBZ, header 19 required,
//!   31:29 MBZ (Mesa `HSW_DATAPORT_DC_PORT1_MEDIA_BLOCK_READ`/`_WRITE`);
//! - A64 block read, 14h, and write, 15h (004 MSD1R_A64_OWB lines
//!   5457-5482, MSD1W_A64_OWB 5483-5510, MSD1R_A64_OWAB 5399-5429,
//!   MSD1W_A64_OWAB 5430-5456, MSD1R_A64_HWB 5346-5371, MSD1W_A64_HWB
//!   5372-5398): surface 7:0, subtype 12:11 (0 OWord, 1 aligned OWord, 3
//!   HWord; 2 undefined), count 10:8 (an OWord count as `dc0`'s block
//!   messages, or for HWords MDC_A64_DB_HW, see
//!   [`super::OwordCount`] and the HWord note in the parent module), the
//!   read's invalidate-after-read 13 (the write's 13 is reserved; the
//!   aligned read's row is garbled in 004 and taken as the plain read's),
//!   header 19 required, 31:29 MBZ (Mesa
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
//!   `GFX9_DATAPORT_DC_PORT1_UNTYPED_ATOMIC_FLOAT_OP`, `..._A64_...`);
//! - their half-float (word) forms, 1Ch (004 MSD1R_WAF lines 36750-36796,
//!   MSD1W_WAF 36797-36845) and 1Eh (MSD1R_A64_WAF lines 5785-5818,
//!   MSD1W_A64_WAF 5819-5854; Mesa
//!   `GFX12_DATAPORT_DC_PORT1_A64_UNTYPED_ATOMIC_HALF_FLOAT_OP`): the same
//!   7:0, 10:8 and 13, but 11 is MBZ on 1Ch and on 1Eh a data width with
//!   only its default 0 (refused when set), and 1Eh's 12 is MBZ; 1Ch keeps
//!   SIMD mode 12, header 19 and packing 29, 30;
//! - typed surface read, 05h (004 MSD1R_TS lines 35373-35432), and write,
//!   0Dh (MSD1W_TS lines 35447-35503): surface 7:0, channel mask 11:8 (as
//!   untyped), slot group 13:12 (MDC_SG3, whose table 004 does not print:
//!   Mesa `brw_dp_typed_surface_rw_desc` writes 0 for SIMD4x2 and 1, 2 for
//!   the low and high eight slots; 3 is refused), header 19, packing 29
//!   and 30, 31 MBZ;
//! - typed atomic integer operation, 06h (004 MSD1R_DWTAI lines
//!   14603-14645, MSD1W_DWTAI 14646-14690): surface 7:0, operation 11:8,
//!   slot group 12 (MDC_SG2: the high eight slots when set, Mesa
//!   `brw_dp_typed_atomic_desc`), return data 13, header 19, packing 29 and
//!   30, 31 MBZ; its word form, 07h (MSD1R_WTAI lines 36660-36703,
//!   MSD1W_WTAI 36704-36749), with 12 reserved;
//! - atomic counter operation, 0Bh (004 MSD1R_DWAC lines 14422-14465,
//!   MSD1W_DWAC 14466-14509; Mesa `HSW_DATAPORT_DC_PORT1_ATOMIC_COUNTER_OP`):
//!   surface 7:0, operation 11:8, SIMD mode 12 (MDC_SM2RS, whose table 004
//!   does not print: kept as the bit), return data 13, header 19 required
//!   (MDC_MHR), packing 29 and 30, 31 MBZ; its word form, 0Ch (MSD1R_WAC
//!   lines 36578-36618, MSD1W_WAC 36619-36659), with 12 reserved.
//!
//! Other types (media transpose read 00h, the typed read returning status
//! 0Eh that iga64 names and 004 does not, the CCS updates) are refused.

use alloc::string::{String, ToString};
use core::fmt;

use super::super::AtomicOp;
use super::super::lsc::LscOp;
use super::{
    MessageError, OwordCount, header_required, hword_code, hword_count, oword_count, stray,
};

/// Message types (bits 18:14).
const UNTYPED_READ: u32 = 0x01;
const UNTYPED_ATOMIC: u32 = 0x02;
const WORD_ATOMIC: u32 = 0x03;
const MEDIA_BLOCK_READ: u32 = 0x04;
const TYPED_READ: u32 = 0x05;
const TYPED_ATOMIC: u32 = 0x06;
const WORD_TYPED_ATOMIC: u32 = 0x07;
const UNTYPED_WRITE: u32 = 0x09;
const MEDIA_BLOCK_WRITE: u32 = 0x0A;
const COUNTER: u32 = 0x0B;
const WORD_COUNTER: u32 = 0x0C;
const TYPED_WRITE: u32 = 0x0D;
const A64_SCATTERED_READ: u32 = 0x10;
const A64_UNTYPED_READ: u32 = 0x11;
const A64_UNTYPED_ATOMIC: u32 = 0x12;
const A64_WORD_ATOMIC: u32 = 0x13;
const A64_BLOCK_READ: u32 = 0x14;
const A64_BLOCK_WRITE: u32 = 0x15;
const A64_UNTYPED_WRITE: u32 = 0x19;
const A64_SCATTERED_WRITE: u32 = 0x1A;
const FLOAT_ATOMIC: u32 = 0x1B;
const HALF_FLOAT_ATOMIC: u32 = 0x1C;
const A64_FLOAT_ATOMIC: u32 = 0x1D;
const A64_HALF_FLOAT_ATOMIC: u32 = 0x1E;

/// Bits a stateless (A64) message never has: its header 19 (MDC_MHF) and
/// 31:29.
const A64_MBZ: u32 = 0xE008_0000;

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

/// An untyped integer atomic: dword or (`word`) word; with `a64`, dword,
/// qword or word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UntypedAtomic {
    pub a64: bool,
    /// The 16-bit form (types 03h/13h).
    pub word: bool,
    pub bti: u8,
    /// MDC_AOP code, an index into [`ATOMIC_OPS`].
    pub op: u8,
    /// Bit 12: SIMD8 (surface forms) or 64-bit data (the A64 dword form;
    /// never set on the A64 word form).
    pub bit12: bool,
    pub returns: bool,
    /// Header present (not for A64).
    pub header: bool,
    pub packed_address: bool,
    pub packed_data: bool,
}

impl UntypedAtomic {
    /// The operation of the MDC_AOP code (Mesa brw_eu_defines.h
    /// `BRW_AOP_*`, 1 AND to 15 PREDEC); `None` for code 0, which iga64
    /// names "64b integer compare and swap" in the dword message and 004
    /// does not describe.
    pub fn operation(&self) -> Option<AtomicOp> {
        AtomicOp::from_aop(u32::from(self.op))
    }

    /// Bits of each data element: 16 for the word forms, 64 for the A64
    /// form with bit 12 set (004 MSD1R_A64_QWAI line 5630: "Operations are
    /// on 64-bit integers"; clear, MSD1R_A64_DWAI line 5294, 32-bit), else
    /// 32.
    pub fn data_bits(&self) -> u8 {
        match (self.word, self.a64 && self.bit12) {
            (true, _) => 16,
            (false, true) => 64,
            (false, false) => 32,
        }
    }

    /// Lanes of the message. The A64 forms are SIMD8 whatever bit 12 says,
    /// as bit 12 is their data width (IGA MessageDecoderHDC: "the SIMD
    /// size is always fixed", 8; Mesa `brw_dp_a64_untyped_atomic_desc`
    /// asserts exec_size 8, and `get_lowered_simd_width` splits
    /// A64_UNTYPED_ATOMIC to 8 without LSC). The surface forms are SIMD8
    /// with bit 12 set and SIMD16 without (Mesa
    /// `brw_dp_untyped_atomic_desc`, IGA `decodeMDC_SM2R`).
    pub fn lanes(&self) -> u8 {
        if self.a64 || self.bit12 { 8 } else { 16 }
    }
}

/// The MDC_FOP codes of 32-bit floats with the LSC operation of the same
/// meaning (Mesa brw_eu_defines.h `BRW_AOP_FMAX` 1, `FMIN` 2, `FCMPWR` 3,
/// `FADD` 4; 5 iga64's "subtract (32b)", its `atomic_fsub`); 6 and 7 are
/// iga64's 64-bit add and subtract.
const FLOAT_LSC_OPS: [(u8, LscOp); 5] = [
    (1, LscOp::AtomicFmax),
    (2, LscOp::AtomicFmin),
    (3, LscOp::AtomicFcmpxchg),
    (4, LscOp::AtomicFadd),
    (5, LscOp::AtomicFsub),
];

impl FloatAtomic {
    /// The operation of the MDC_FOP code as the LSC operation of the same
    /// meaning; `None` for the 64-bit codes 6 and 7.
    pub fn operation(&self) -> Option<LscOp> {
        FLOAT_LSC_OPS
            .iter()
            .find(|(c, _)| *c == self.op)
            .map(|(_, o)| *o)
    }

    /// Lanes of the message. The A64 forms are SIMD8 with bit 12 clear
    /// (004 MSD1R_A64_DWAF and MSD1W_A64_DWAF bit 12, lines 5219 and 5255:
    /// "Only SIMD8 operations are supported"; Mesa
    /// `brw_dp_a64_untyped_atomic_float_desc` asserts exec_size 8 and
    /// leaves bit 12 clear; `iga64 -p=12p71 -Xdsd` reads 8 channels), and
    /// `None` with it set (iga64 reads 16 channels there, which 004 does
    /// not allow). The surface forms are SIMD8 with bit 12 set, SIMD16
    /// without (Mesa `brw_dp_untyped_atomic_float_desc`; iga64's channel
    /// count).
    pub fn lanes(&self) -> Option<u8> {
        match (self.a64, self.simd_bit) {
            (true, false) => Some(8),
            (true, true) => None,
            (false, true) => Some(8),
            (false, false) => Some(16),
        }
    }
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

/// An A64 HWord block read or write (subtype 3; the header is always
/// present).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct A64HwordBlock {
    pub write: bool,
    pub bti: u8,
    /// HWords (32 bytes each): 1, 2, 4 ... 128 (MDC_A64_DB_HW).
    pub hwords: u8,
    /// Reads only.
    pub invalidate_after_read: bool,
}

/// The float atomic operations (MDC_FOP, bits 10:8, code 1 first) with
/// iga64's names (its spacing kept); the half-float forms say `(16b)`
/// where these say `(32b)`.
pub const FLOAT_OPS: [&str; 7] = [
    "max (32b)",
    "min (32b)",
    "fp-compare and swap  (32b)",
    "add (32b)",
    "subtract (32b)",
    "64b add (64b)",
    "64b subtract (64b)",
];

/// An untyped float or (`half`) half-float atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatAtomic {
    pub a64: bool,
    /// The half-float form (types 1Ch/1Eh).
    pub half: bool,
    pub bti: u8,
    /// MDC_FOP code 1-7.
    pub op: u8,
    /// Data width bit 11 (the 32-bit forms only).
    pub wide: bool,
    /// SIMD mode bit 12 (not on the A64 half-float form).
    pub simd_bit: bool,
    pub returns: bool,
    /// Header present (not for A64).
    pub header: bool,
    pub packed_address: bool,
    pub packed_data: bool,
}

/// MDC_SG3, the typed surface slot group (bits 13:12).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlotGroup {
    Simd4x2,
    /// Slots 0-7.
    Low,
    /// Slots 8-15.
    High,
}

/// A typed surface read or write (channels present, x in bit 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Typed {
    pub write: bool,
    pub bti: u8,
    pub channels: u8,
    pub slots: SlotGroup,
    pub header: bool,
    pub packed_address: bool,
    pub packed_data: bool,
}

/// A typed integer atomic (type 06h, or 07h with `word`) or an atomic
/// counter operation (0Bh, or 0Ch with `word`; the header is always
/// present).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TypedAtomic {
    pub counter: bool,
    pub word: bool,
    pub bti: u8,
    /// MDC_AOP code, an index into [`ATOMIC_OPS`].
    pub op: u8,
    /// Bit 12 of the dword forms: the high slot group (typed) or the SIMD
    /// mode (counter).
    pub bit12: bool,
    pub returns: bool,
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
    A64HwordBlock(A64HwordBlock),
    Typed(Typed),
    TypedAtomic(TypedAtomic),
}

fn reserved_bit(desc: u32, b: u8, field: &'static str) -> Result<(), MessageError> {
    if desc & 1 << b != 0 {
        Err(MessageError::Reserved {
            field,
            hi: b,
            lo: b,
            value: 1,
        })
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
            stray(desc, if a64 { A64_MBZ } else { 1 << 31 })?;
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
        TYPED_READ | TYPED_WRITE => {
            stray(desc, 1 << 31)?;
            let slots = match (desc >> 12) & 3 {
                0 => SlotGroup::Simd4x2,
                1 => SlotGroup::Low,
                2 => SlotGroup::High,
                v => {
                    return Err(MessageError::Reserved {
                        field: "typed surface slot group",
                        hi: 13,
                        lo: 12,
                        value: v,
                    });
                }
            };
            Ok(Dc1::Typed(Typed {
                write: ty == TYPED_WRITE,
                bti: desc as u8,
                channels: !(desc >> 8) as u8 & 0xF,
                slots,
                header: bit(19),
                packed_address: bit(29),
                packed_data: bit(30),
            }))
        }
        A64_SCATTERED_READ | A64_SCATTERED_WRITE => {
            let write = ty == A64_SCATTERED_WRITE;
            stray(desc, A64_MBZ | u32::from(write) << 13)?;
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
        UNTYPED_ATOMIC | WORD_ATOMIC | A64_UNTYPED_ATOMIC | A64_WORD_ATOMIC => {
            let a64 = ty & 0x10 != 0;
            let word = ty & 1 != 0;
            stray(desc, if a64 { A64_MBZ } else { 1 << 31 })?;
            if a64 && word {
                reserved_bit(desc, 12, "A64 word atomic data width (only 0)")?;
            }
            Ok(Dc1::Atomic(UntypedAtomic {
                a64,
                word,
                bti: desc as u8,
                op: ((desc >> 8) & 0xF) as u8,
                bit12: bit(12),
                returns: bit(13),
                header: bit(19),
                packed_address: bit(29),
                packed_data: bit(30),
            }))
        }
        TYPED_ATOMIC | WORD_TYPED_ATOMIC | COUNTER | WORD_COUNTER => {
            let counter = ty >= COUNTER;
            let word = ty == WORD_TYPED_ATOMIC || ty == WORD_COUNTER;
            stray(desc, 1 << 31)?;
            if word {
                reserved_bit(desc, 12, "word typed atomic or counter bit 12")?;
            }
            if counter {
                header_required(
                    desc,
                    "header present (an atomic counter requires its header)",
                )?;
            }
            Ok(Dc1::TypedAtomic(TypedAtomic {
                counter,
                word,
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
            header_required(
                desc,
                "header present (a media block message requires its header)",
            )?;
            Ok(Dc1::MediaBlock(MediaBlock {
                write: ty == MEDIA_BLOCK_WRITE,
                bti: desc as u8,
                vlso: ((desc >> 8) & 7) as u8,
            }))
        }
        FLOAT_ATOMIC | HALF_FLOAT_ATOMIC | A64_FLOAT_ATOMIC | A64_HALF_FLOAT_ATOMIC => {
            let a64 = ty >= A64_FLOAT_ATOMIC;
            let half = ty == HALF_FLOAT_ATOMIC || ty == A64_HALF_FLOAT_ATOMIC;
            stray(desc, if a64 { A64_MBZ } else { 1 << 31 })?;
            match (half, a64) {
                (true, false) => stray(desc, 1 << 11)?,
                (true, true) => {
                    stray(desc, 1 << 12)?;
                    reserved_bit(desc, 11, "A64 half-float atomic data width (only 0)")?;
                }
                _ => {}
            }
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
                half,
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
            header_required(
                desc,
                "header present (an A64 block message requires its header)",
            )?;
            let code = (desc >> 8) & 7;
            match (desc >> 11) & 3 {
                3 => Ok(Dc1::A64HwordBlock(A64HwordBlock {
                    write,
                    bti: desc as u8,
                    hwords: hword_count(code),
                    invalidate_after_read: bit(13),
                })),
                2 => Err(MessageError::Reserved {
                    field: "A64 block message subtype (2 is undefined)",
                    hi: 12,
                    lo: 11,
                    value: 2,
                }),
                sub => Ok(Dc1::A64Block(A64Block {
                    write,
                    aligned: sub == 1,
                    bti: desc as u8,
                    count: oword_count(code)?,
                    invalidate_after_read: bit(13),
                })),
            }
        }
        v => Err(MessageError::Reserved {
            field: "dc1 message type (media transpose, status-returning typed read and CCS updates are not typed)",
            hi: 18,
            lo: 14,
            value: v,
        }),
    }
}

/// The common atomic fields: surface, operation, bit 12, return,
/// header and packing.
#[allow(clippy::too_many_arguments)]
fn atomic_bits(
    bti: u8,
    op: u8,
    bit12: bool,
    returns: bool,
    ty: u32,
    header: bool,
    packed_address: bool,
    packed_data: bool,
) -> u32 {
    u32::from(bti)
        | u32::from(op) << 8
        | u32::from(bit12) << 12
        | u32::from(returns) << 13
        | ty << 14
        | u32::from(header) << 19
        | u32::from(packed_address) << 29
        | u32::from(packed_data) << 30
}

fn check_op(op: u8, max: u8, field: &'static str) -> Result<(), MessageError> {
    if op > max {
        Err(MessageError::OutOfRange {
            field,
            value: op.into(),
        })
    } else {
        Ok(())
    }
}

impl Dc1 {
    /// The descriptor's function and header bits (lengths zero); refuses
    /// fields that do not fit or that the message does not have.
    pub fn encode(&self) -> Result<u32, MessageError> {
        let d = match self {
            Dc1::Untyped(u) => {
                check_op(u.channels, 0xF, "untyped surface channels")?;
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
            Dc1::Typed(t) => {
                check_op(t.channels, 0xF, "typed surface channels")?;
                let slots = match t.slots {
                    SlotGroup::Simd4x2 => 0,
                    SlotGroup::Low => 1,
                    SlotGroup::High => 2,
                };
                let ty = if t.write { TYPED_WRITE } else { TYPED_READ };
                u32::from(t.bti)
                    | u32::from(!t.channels & 0xF) << 8
                    | slots << 12
                    | ty << 14
                    | u32::from(t.header) << 19
                    | u32::from(t.packed_address) << 29
                    | u32::from(t.packed_data) << 30
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
                check_op(a.op, 0xF, "atomic operation")?;
                let ty = match (a.a64, a.word) {
                    (false, false) => UNTYPED_ATOMIC,
                    (false, true) => WORD_ATOMIC,
                    (true, false) => A64_UNTYPED_ATOMIC,
                    (true, true) => A64_WORD_ATOMIC,
                };
                atomic_bits(
                    a.bti,
                    a.op,
                    a.bit12,
                    a.returns,
                    ty,
                    a.header,
                    a.packed_address,
                    a.packed_data,
                )
            }
            Dc1::TypedAtomic(a) => {
                check_op(a.op, 0xF, "atomic operation")?;
                let ty = match (a.counter, a.word) {
                    (false, false) => TYPED_ATOMIC,
                    (false, true) => WORD_TYPED_ATOMIC,
                    (true, false) => COUNTER,
                    (true, true) => WORD_COUNTER,
                };
                atomic_bits(
                    a.bti,
                    a.op,
                    a.bit12,
                    a.returns,
                    ty,
                    a.header,
                    a.packed_address,
                    a.packed_data,
                )
            }
            Dc1::MediaBlock(m) => {
                check_op(m.vlso, 7, "vertical line stride override")?;
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
                let ty = match (a.a64, a.half) {
                    (false, false) => FLOAT_ATOMIC,
                    (false, true) => HALF_FLOAT_ATOMIC,
                    (true, false) => A64_FLOAT_ATOMIC,
                    (true, true) => A64_HALF_FLOAT_ATOMIC,
                };
                atomic_bits(
                    a.bti,
                    a.op,
                    a.simd_bit,
                    a.returns,
                    ty,
                    a.header,
                    a.packed_address,
                    a.packed_data,
                ) | u32::from(a.wide) << 11
            }
            Dc1::A64Block(b) => {
                let ty = if b.write {
                    A64_BLOCK_WRITE
                } else {
                    A64_BLOCK_READ
                };
                u32::from(b.bti)
                    | b.count.code() << 8
                    | u32::from(b.aligned) << 11
                    | u32::from(b.invalidate_after_read) << 13
                    | ty << 14
                    | 1 << 19
            }
            Dc1::A64HwordBlock(b) => {
                let ty = if b.write {
                    A64_BLOCK_WRITE
                } else {
                    A64_BLOCK_READ
                };
                u32::from(b.bti)
                    | hword_code(b.hwords)? << 8
                    | 3 << 11
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

impl Dc1 {
    /// iga64's whole description of the message in a send of `mlen`
    /// payload registers and `exec_size` channels: the text
    /// ([`fmt::Display`]) and, for the typed surface messages, the word
    /// typed atomic and the atomic counters, the address coordinates iga64
    /// counts in the payload (`; u,v`): one per register of eight slots
    /// (the counter's SIMD16 mode, bit 12 clear, takes two, but not past
    /// the send's channels), none when it finds more than four.
    pub fn describe(&self, mlen: u8, exec_size: u8) -> String {
        let mut text = self.to_string();
        let slots: u8 = match self {
            Dc1::Typed(_) => 8,
            Dc1::TypedAtomic(a) if a.word || a.counter => {
                if a.counter && !a.bit12 {
                    16
                } else {
                    8
                }
            }
            _ => return text,
        };
        let regs = (slots.min(exec_size) / 8).max(1);
        let coords = usize::from(mlen / regs);
        if (1..=4).contains(&coords) {
            text.push_str("; ");
            text.push_str(["u", "u,v", "u,v,r", "u,v,r,lod"][coords - 1]);
        }
        text
    }
}

/// Channels present as iga64 lists them (`xyzw`, or nothing).
fn channels(f: &mut fmt::Formatter<'_>, mask: u8) -> fmt::Result {
    for (i, c) in ['x', 'y', 'z', 'w'].into_iter().enumerate() {
        if mask & 1 << i != 0 {
            write!(f, "{c}")?;
        }
    }
    Ok(())
}

/// iga64's description.
impl fmt::Display for Dc1 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op_name = |op: u8| ATOMIC_OPS[usize::from(op & 0xF)];
        match self {
            Dc1::Untyped(u) => {
                let a64 = if u.a64 { "a64 " } else { "" };
                let rw = if u.write { "write" } else { "read" };
                write!(f, "{a64}untyped surface {rw} with ")?;
                channels(f, u.channels)
            }
            Dc1::Typed(t) => {
                let rw = if t.write { "write" } else { "read" };
                let high = if t.slots == SlotGroup::High {
                    " (high slot group)"
                } else {
                    ""
                };
                write!(f, "typed surface {rw}{high} with ")?;
                channels(f, t.channels)
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
                let width = match (a.word, a.a64 && a.bit12) {
                    (true, _) => 16,
                    (false, true) => 64,
                    (false, false) => 32,
                };
                write!(f, "untyped{a64} atomic int{width} {}", op_name(a.op))
            }
            Dc1::TypedAtomic(a) => {
                let width = if a.word { 16 } else { 32 };
                if a.counter {
                    write!(f, "typed atomic {width}-bit counter {}", op_name(a.op))
                } else if a.bit12 {
                    write!(
                        f,
                        "typed_sgh atomic {width}-bit integer (slot group high) {}",
                        op_name(a.op)
                    )
                } else {
                    write!(f, "typed atomic {width}-bit integer {}", op_name(a.op))
                }
            }
            Dc1::FloatAtomic(a) => {
                let a64 = if a.a64 { "a64 " } else { "" };
                let op = FLOAT_OPS[usize::from(a.op.clamp(1, 7) - 1)];
                let ret = if a.returns { " with return" } else { "" };
                if a.half {
                    let op16 = op.strip_suffix("(32b)").map(|o| (o, "(16b)"));
                    let (o, w) = op16.unwrap_or((op, ""));
                    write!(f, "{a64}untyped half-float atomic {o}{w}{ret}")
                } else {
                    write!(f, "{a64}float atomic {op}{ret}")
                }
            }
            Dc1::A64Block(b) => {
                let al = if b.aligned { "aligned" } else { "unaligned" };
                let rw = if b.write { "write" } else { "read" };
                write!(f, "a64 {al} oword block {rw} {}", b.count.text())
            }
            Dc1::A64HwordBlock(b) => {
                let rw = if b.write { "write" } else { "read" };
                write!(f, "a64 unaligned hword block {rw} x{}", b.hwords)
            }
            Dc1::MediaBlock(m) => {
                let rw = if m.write { "write" } else { "read" };
                let vlso = VLSO_TEXT[usize::from(m.vlso & 7)];
                write!(f, "media block {rw}{vlso}")
            }
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
                if let Ok(m) = decode_dc1(d) {
                    assert_eq!(m.encode(), Ok(d), "{d:#x}");
                    ok += 1;
                }
            }
        }
        // Per surface (x 256), a surface form counts x header x (none,
        // bit 29, bit 30) of the loop's high bits; an A64 one counts once.
        let surface = 2 * 3;
        // untyped: 16 masks x 3 SIMD modes, 2 surface and 2 A64 types;
        // typed surfaces: 16 masks x 3 slot groups, 2 types
        let untyped = 16 * 3 * (2 * surface + 2);
        let typed = 16 * 3 * 2 * surface;
        // scattered: 3 subtypes x 4 counts x SIMD, reads x bit 13
        let scattered = 3 * 4 * 2 * 3;
        // integer atomics: 16 ops x return, x bit 12 but on the A64 word
        // form: dword and word surface forms, A64 dword and word
        let atomic = 16 * 2 * (2 * 2 * surface + 2 + 1);
        // typed atomics: 16 ops x return, x bit 12 on the dword form, the
        // counters with their header only
        let typed_atomic = 16 * 2 * ((2 + 1) * surface + (2 + 1) * 3);
        // media blocks: 2 x 8 codes, header set
        let media = 2 * 8;
        // A64 blocks: 6 OWord counts x 2 subtypes and 8 HWord counts,
        // reads x invalidate
        let a64_block = (6 * 2 + 8) * 3;
        // float atomics: 7 ops x return x bit 12 x bit 11 (32-bit), the
        // half-float surface form x bit 12, the A64 half-float alone
        let float_atomic = 7 * 2 * (2 * 2 * (surface + 1) + 2 * surface + 1);
        assert_eq!(
            ok,
            256 * (untyped
                + typed
                + scattered
                + atomic
                + typed_atomic
                + media
                + a64_block
                + float_atomic)
        );
        // an A64 header, a reserved SIMD mode, subtype and slot group are
        // refused
        assert!(decode_dc1(0x8_0000 | A64_UNTYPED_READ << 14).is_err());
        assert!(decode_dc1(0x3000 | UNTYPED_READ << 14).is_err());
        assert!(decode_dc1(0x300 | A64_SCATTERED_READ << 14).is_err());
        assert!(decode_dc1(0x3000 | TYPED_READ << 14).is_err());
        assert!(decode_dc1(0x1100 | A64_WORD_ATOMIC << 14).is_err());
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
        // brw_dp_typed_surface_rw_desc(8, group 8, 4 channels, write) on
        // BTI 1: slot group 2, nothing disabled
        let m = decode_dc1(1 | 2 << 12 | 0xD << 14).unwrap();
        assert_eq!(
            m.to_string(),
            "typed surface write (high slot group) with xyzw"
        );
        assert_eq!(
            m.describe(3, 8),
            "typed surface write (high slot group) with xyzw; u,v,r"
        );
        assert_eq!(m.describe(5, 8), m.to_string());
        // brw_dp_a64_untyped_atomic_float_desc(8, 16, FADD, true)
        let m = decode_dc1(253 | 4 << 8 | 1 << 13 | 0x1E << 14).unwrap();
        assert_eq!(
            m.to_string(),
            "a64 untyped half-float atomic add (16b) with return"
        );
    }
}
