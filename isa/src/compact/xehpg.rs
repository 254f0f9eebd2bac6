//! Xe-HPG (Gen12.5, DG2) compaction: its own 64-bit format and tables.
//!
//! No Xe-HPG manual here has the tables (004 line 791 calls them internal, "documented for
//! use by software tools"), so every value and bit position comes from Mesa
//! src/intel/compiler/brw_eu_compact.c (the tables Mesa picks for verx10 >= 125:
//! `gfx12_control_index_table`, `gfx12_datatype_table`, `gfx12_subreg_table`,
//! `xehp_src0_index_table`, `xehp_src1_index_table`, `xehp_3src_control_index_table`,
//! `xehp_3src_source_index_table`, `gfx12_3src_subreg_table`; the native bits each key
//! gathers from its `set_*_index` functions; immediates from `compact_immediate`) and
//! brw_inst.h (the compact fields' "12+" column). tests/xehpg_iga.rs checks them against
//! what `iga64 -p=12p71 -Xautocompact` writes.
//!
//! Compact word, two-source layout (three-source after `3src:`):
//!
//! | bits  | field                                  | native bits        |
//! |-------|----------------------------------------|--------------------|
//! | 6:0   | opcode                                 | 6:0                |
//! | 7     | DebugCtrl                              | 30                 |
//! | 15:8  | SWSB                                   | 15:8               |
//! | 23:16 | Dst.RegNum                             | 63:56              |
//! | 28:24 | ControlIndex                           | see `CONTROL_KEY`  |
//! | 29    | CmptCtrl = 1                           | 29 = 0             |
//! | 34:30 | DataTypeIndex (3src: SourceIndex)      | `DATATYPE_KEY`     |
//! | 39:35 | SubRegIndex                            | `SUBREG_KEY`       |
//! | 47:40 | Src0.RegNum                            | 79:72              |
//! | 51:48 | Src0Index (3src: 55:48 Src2.RegNum)    | `SRC0_KEY` (127:120) |
//! | 55:52 | Src1Index, or immediate 3:0            | `SRC1_KEY`         |
//! | 63:56 | Src1.RegNum, or immediate 11:4         | 111:104            |
//!
//! A compact form exists only when expanding it gives back every bit of the native word,
//! so bits no field carries (7, 127:122 beside a register src1) keep a word native.

use super::CompactError;

/// A table key's pieces: native bits `hi..=lo` at bit `at` of the key.
type Span = (u32, u32, u32);

/// ControlIndex key (21 bits): CondCtrl, Saturate, AccWrCtrl, Atomic, MaskCtrl, PredInv,
/// PredCtrl, flag register, QtrCtrl/NibCtrl, ExecSize [Mesa set_control_index, ver >= 12].
const CONTROL_KEY: [Span; 10] = [
    (95, 92, 17),
    (34, 34, 16),
    (33, 33, 15),
    (32, 32, 14),
    (31, 31, 13),
    (28, 28, 12),
    (27, 24, 8),
    (23, 22, 6),
    (21, 19, 3),
    (18, 16, 0),
];

/// DataTypeIndex key (20 bits): register files, types, dst stride and address mode, the
/// immediate flags; src1's file (bit 19) only without an immediate [Mesa
/// set_datatype_index, ver >= 12].
const DATATYPE_KEY: [Span; 10] = [
    (98, 98, 19),
    (91, 88, 15),
    (66, 66, 14),
    (50, 50, 13),
    (49, 48, 11),
    (47, 47, 10),
    (46, 46, 9),
    (43, 40, 5),
    (39, 36, 1),
    (35, 35, 0),
];

/// SubRegIndex key (15 bits): dst, src0, and src1 (not with an immediate) sub-registers.
const SUBREG_KEY: [Span; 3] = [(103, 99, 10), (71, 67, 5), (55, 51, 0)];

/// Src0Index key (12 bits): region, address mode, modifiers [Mesa set_src0_index].
const SRC0_KEY: [Span; 6] = [
    (87, 87, 11),
    (86, 84, 8),
    (83, 81, 5),
    (80, 80, 4),
    (65, 64, 2),
    (45, 44, 0),
];

/// Src1Index key (12 bits) [Mesa set_src1_index, ver >= 12].
const SRC1_KEY: [Span; 5] = [
    (121, 120, 10),
    (119, 116, 6),
    (115, 113, 3),
    (112, 112, 2),
    (97, 96, 0),
];

/// Three-source ControlIndex key (37 bits) [Mesa set_3src_control_index, verx10 >= 125].
const CONTROL_3SRC_KEY: [Span; 18] = [
    (95, 92, 33),
    (90, 88, 30),
    (82, 80, 27),
    (50, 50, 26),
    (49, 48, 24),
    (42, 40, 21),
    (39, 39, 20),
    (38, 36, 17),
    (34, 34, 16),
    (33, 33, 15),
    (32, 32, 14),
    (31, 31, 13),
    (28, 28, 12),
    (27, 24, 8),
    (23, 23, 7),
    (22, 22, 6),
    (21, 19, 3),
    (18, 16, 0),
];

/// Three-source SourceIndex key (21 bits) [Mesa set_3src_source_index, ver >= 12].
const SOURCE_3SRC_KEY: [Span; 15] = [
    (114, 114, 20),
    (113, 112, 18),
    (98, 98, 17),
    (97, 96, 15),
    (91, 91, 14),
    (87, 86, 12),
    (85, 84, 10),
    (83, 83, 9),
    (66, 66, 8),
    (65, 64, 6),
    (47, 47, 5),
    (46, 46, 4),
    (45, 44, 2),
    (43, 43, 1),
    (35, 35, 0),
];

/// Three-source SubRegIndex key (20 bits): src2, src1, src0, dst sub-registers.
const SUBREG_3SRC_KEY: [Span; 4] = [(119, 115, 15), (103, 99, 10), (71, 67, 5), (55, 51, 0)];

/// Opcodes in the three-source format [Mesa brw_eu.c opcode_descs with three sources,
/// GFX_GE(GFX12)/GFX_GE(GFX125): add3 dp4a dpas mad madm bfn csel bfe bfi2; dpasw (004
/// line 14071) shares dpas's format].
const THREE_SOURCE: [u8; 10] = [0x52, 0x58, 0x59, 0x5a, 0x5b, 0x5d, 0x6b, 0x72, 0x78, 0x7a];

/// send/sendc: never compacted with EOT [Mesa has_unmapped_bits].
const SENDS: [u8; 2] = [0x31, 0x32];
const EOT: u32 = 34;

/// math is never compacted: its function sits where the control table keeps CondCtrl,
/// and iga64 -p=12p71 -Xautocompact leaves every math native (Intel's GED tables give it
/// no compact mapping) although Mesa's bit-level lookup would match inv..rsqt to the
/// eq..lt rows.
const MATH: u8 = 0x38;

/// ControlIndex rows [Mesa gfx12_control_index_table].
pub const CONTROL: [u32; 32] = [
    0x000004, 0x000003, 0x002000, 0x002004, 0x002003, 0x080004, 0x000024, 0x0a0004, 0x000000,
    0x010004, 0x000013, 0x060004, 0x020004, 0x022004, 0x040004, 0x000104, 0x0a0003, 0x000184,
    0x002001, 0x000144, 0x0001c4, 0x082004, 0x000023, 0x000033, 0x0a2004, 0x080003, 0x022000,
    0x010003, 0x0a0084, 0x020003, 0x008003, 0x002024,
];

/// DataTypeIndex rows [Mesa gfx12_datatype_table].
pub const DATATYPE: [u32; 32] = [
    0xd6954, 0x06954, 0x02b54, 0x56d54, 0xd4954, 0xd2954, 0x54d54, 0x00800, 0xd0954, 0x2eccc,
    0xb68cc, 0x52d54, 0x96844, 0x50d54, 0x36ccc, 0x16c44, 0x07154, 0x2cccc, 0x00822, 0x02844,
    0x26c2a, 0x0ec22, 0x97044, 0x0694c, 0x8c8cc, 0x06854, 0x2ec4c, 0x02822, 0x06834, 0x06814,
    0x068d4, 0x02954,
];

/// SubRegIndex rows [Mesa gfx12_subreg_table].
pub const SUBREG: [u16; 32] = [
    0x0000, 0x4000, 0x1000, 0x3000, 0x0080, 0x2000, 0x5000, 0x0008, 0x0100, 0x6000, 0x7000, 0x0200,
    0x0004, 0x0300, 0x0280, 0x0180, 0x0380, 0x001c, 0x0010, 0x000c, 0x0018, 0x0014, 0x0002, 0x0140,
    0x0040, 0x0084, 0x005c, 0x0042, 0x018c, 0x0020, 0x0060, 0x6300,
];

/// Src0Index rows [Mesa xehp_src0_index_table: <1;1,0> replaces
/// Gen12's <8;8,1>].
pub const SRC0: [u16; 16] = [
    0x100, 0x000, 0x102, 0x101, 0x002, 0x200, 0x240, 0x340, 0x300, 0x103, 0x001, 0xf10, 0x460,
    0x140, 0x448, 0x202,
];

/// Src1Index rows [Mesa xehp_src1_index_table].
pub const SRC1: [u16; 16] = [
    0x040, 0x000, 0x840, 0x800, 0x440, 0x8d0, 0x080, 0x0d0, 0x0c0, 0xc40, 0x400, 0xc00, 0x118,
    0x880, 0x809, 0x844,
];

/// Three-source ControlIndex rows [Mesa xehp_3src_control_index_table; rows
/// 22-31 are dpas forms].
pub const CONTROL_3SRC: [u64; 32] = [
    0x0094540004,
    0x0094540003,
    0x0090540003,
    0x0094542003,
    0x0090542003,
    0x0090540013,
    0x0094540013,
    0x0090542013,
    0x0094542013,
    0x0094542004,
    0x0090540004,
    0x0094550004,
    0x0094540024,
    0x0090542004,
    0x0094542000,
    0x0094550003,
    0x0090542023,
    0x0090542033,
    0x0094542023,
    0x0094542033,
    0x0090540033,
    0x0090540023,
    0x0027cc0003,
    0x0007cc4003,
    0x0127cc4003,
    0x0107cc4003,
    0x0127cc0003,
    0x0007cc0003,
    0x0027cc4003,
    0x0107cc0003,
    0x016f544003,
    0x016f540003,
];

/// Three-source SourceIndex rows [Mesa xehp_3src_source_index_table; rows
/// 24-31 carry dpas's sub-byte precisions].
pub const SOURCE_3SRC: [u32; 32] = [
    0x120300, 0x120201, 0x160301, 0x120301, 0x160101, 0x160309, 0x140301, 0x160300, 0x100300,
    0x160b01, 0x162301, 0x160100, 0x100301, 0x122300, 0x122301, 0x120309, 0x120101, 0x120308,
    0x120100, 0x162300, 0x120b00, 0x140300, 0x120b01, 0x160b09, 0x122100, 0x120900, 0x122900,
    0x121100, 0x121900, 0x120500, 0x121500, 0x122500,
];

/// Three-source SubRegIndex rows [Mesa gfx12_3src_subreg_table].
pub const SUBREG_3SRC: [u32; 32] = [
    0x00000, 0x20000, 0x00180, 0xa0000, 0x80380, 0x60000, 0x40000, 0x02000, 0x01000, 0xc0000,
    0x80000, 0xe0000, 0x06000, 0x00080, 0x04000, 0x03000, 0x05000, 0x07000, 0x00100, 0x00200,
    0x00300, 0x00280, 0x00380, 0xc0380, 0x20100, 0x20180, 0x40180, 0x80300, 0x80280, 0x60080,
    0xa0380, 0x40080,
];

/// Bits `hi..=lo` of `n`.
fn bits(n: u128, hi: u32, lo: u32) -> u64 {
    ((n >> lo) & ((1u128 << (hi - lo + 1)) - 1)) as u64
}

fn gather(n: u128, key: &[Span]) -> u64 {
    key.iter()
        .fold(0, |k, &(hi, lo, at)| k | bits(n, hi, lo) << at)
}

fn scatter(k: u64, key: &[Span]) -> u128 {
    key.iter().fold(0, |n, &(hi, lo, at)| {
        let width = hi - lo + 1;
        n | u128::from((k >> at) & ((1 << width) - 1)) << lo
    })
}

fn row<T: Copy + Into<u64>>(table: &[T], key: u64) -> Option<u64> {
    table
        .iter()
        .position(|&e| e.into() == key)
        .map(|i| i as u64)
}

/// A compact word's field `hi..=lo`.
fn field(c: u64, hi: u32, lo: u32) -> u64 {
    (c >> lo) & ((1 << (hi - lo + 1)) - 1)
}

/// The immediate type code (the one/two-source immediate codes: 0 uv, 1 uw, 2 ud, 4 v,
/// 5 w, 6 d, 8 vf, 9 hf, 10 f) when src0 or src1 is an immediate.
fn immediate_type(n: u128) -> Option<u8> {
    if bits(n, 46, 46) != 0 {
        Some(bits(n, 43, 40) as u8)
    } else if bits(n, 47, 47) != 0 {
        Some(bits(n, 91, 88) as u8)
    } else {
        None
    }
}

/// The 12 bits a compact word keeps of a 32-bit immediate: the high bits of a float, the
/// low bits of an integer (sign-extended from bit 11 when signed), 16-bit values
/// replicated in both halves [Mesa compact_immediate, ver >= 12].
fn compact_immediate(ty: u8, imm: u32) -> Option<u64> {
    let halves_equal = imm >> 16 == imm & 0xffff;
    let c = match ty {
        10 if imm & 0xf_ffff == 0 => imm >> 20,
        9 if halves_equal && imm & 0xf == 0 => (imm >> 4) & 0xfff,
        0 | 2 | 4 | 8 if imm & 0xffff_f000 == 0 => imm,
        1 if halves_equal && imm & 0xf000 == 0 => imm & 0xfff,
        6 if matches!((imm as i32) >> 11, 0 | -1) => imm & 0xfff,
        5 if halves_equal && matches!((imm as u16 as i16) >> 11, 0 | -1) => imm & 0xfff,
        _ => return None,
    };
    Some(u64::from(c))
}

/// The immediate a compact word's 12 bits stand for [Mesa uncompact_immediate].
fn uncompact_immediate(ty: u8, c: u32) -> Result<u32, CompactError> {
    Ok(match ty {
        10 => c << 20,
        9 => c << 20 | c << 4,
        0 | 2 | 4 | 8 => c,
        1 => c << 16 | c,
        6 => ((c << 20) as i32 >> 20) as u32,
        5 => {
            let half = ((c << 4) as u16 as i16 >> 4) as u16;
            u32::from(half) << 16 | u32::from(half)
        }
        _ => return Err(CompactError::ImmediateType(ty)),
    })
}

/// The compact form of a native Xe-HPG word, if and only if one expands back to it.
pub fn compact(n: u128) -> Option<u64> {
    if bits(n, 29, 29) != 0 {
        return None;
    }
    let opcode = bits(n, 6, 0) as u8;
    if opcode == MATH || SENDS.contains(&opcode) && bits(n, EOT, EOT) != 0 {
        return None;
    }
    let head = u64::from(opcode)
        | bits(n, 30, 30) << 7
        | bits(n, 15, 8) << 8
        | bits(n, 63, 56) << 16
        | 1 << 29
        | bits(n, 79, 72) << 40;
    let c = if THREE_SOURCE.contains(&opcode) {
        head | row(&CONTROL_3SRC, gather(n, &CONTROL_3SRC_KEY))? << 24
            | row(&SOURCE_3SRC, gather(n, &SOURCE_3SRC_KEY))? << 30
            | row(&SUBREG_3SRC, gather(n, &SUBREG_3SRC_KEY))? << 35
            | bits(n, 127, 120) << 48
            | bits(n, 111, 104) << 56
    } else {
        let imm = immediate_type(n);
        // With an immediate, src1's file and sub-register bits belong to it.
        let (datatype, subreg) = match imm {
            Some(_) => (
                gather(n, &DATATYPE_KEY) & !(1 << 19),
                gather(n, &SUBREG_KEY) & 0x3ff,
            ),
            None => (gather(n, &DATATYPE_KEY), gather(n, &SUBREG_KEY)),
        };
        let src1 = match imm {
            Some(ty) => {
                let v = compact_immediate(ty, bits(n, 127, 96) as u32)?;
                (v & 0xf) << 52 | (v >> 4) << 56
            }
            None => row(&SRC1, gather(n, &SRC1_KEY))? << 52 | bits(n, 111, 104) << 56,
        };
        head | row(&CONTROL, gather(n, &CONTROL_KEY))? << 24
            | row(&DATATYPE, datatype)? << 30
            | row(&SUBREG, subreg)? << 35
            | row(&SRC0, gather(n, &SRC0_KEY))? << 48
            | src1
    };
    (expand(c) == Ok(n)).then_some(c)
}

/// The native word a compact word stands for; every index is in range, so only an
/// immediate of a type without a compact form fails.
pub fn expand(c: u64) -> Result<u128, CompactError> {
    if c & 1 << 29 == 0 {
        return Err(CompactError::NotCompact);
    }
    let opcode = field(c, 6, 0) as u8;
    let f = |hi, lo| u128::from(field(c, hi, lo));
    let mut n = f(6, 0) | f(7, 7) << 30 | f(15, 8) << 8 | f(23, 16) << 56 | f(47, 40) << 72;
    let index = |hi, lo| field(c, hi, lo) as usize;
    if THREE_SOURCE.contains(&opcode) {
        n |= scatter(CONTROL_3SRC[index(28, 24)], &CONTROL_3SRC_KEY)
            | scatter(u64::from(SOURCE_3SRC[index(34, 30)]), &SOURCE_3SRC_KEY)
            | scatter(u64::from(SUBREG_3SRC[index(39, 35)]), &SUBREG_3SRC_KEY)
            | f(55, 48) << 120
            | f(63, 56) << 104;
        return Ok(n);
    }
    n |= scatter(u64::from(CONTROL[index(28, 24)]), &CONTROL_KEY)
        | scatter(u64::from(DATATYPE[index(34, 30)]), &DATATYPE_KEY)
        | scatter(u64::from(SUBREG[index(39, 35)]), &SUBREG_KEY)
        | scatter(u64::from(SRC0[index(51, 48)]), &SRC0_KEY);
    match immediate_type(n) {
        // The immediate takes all of 127:96 (src1's file and sub-register included).
        Some(ty) => {
            let imm = uncompact_immediate(ty, field(c, 63, 52) as u32)?;
            n = (n & !(u128::from(u32::MAX) << 96)) | u128::from(imm) << 96;
        }
        None => n |= scatter(u64::from(SRC1[index(55, 52)]), &SRC1_KEY) | f(63, 56) << 104,
    }
    Ok(n)
}
