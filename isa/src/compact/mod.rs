//! EU instruction compaction on raw bits: 128-bit native words <-> 64-bit compact words.
//! The layout below is G45 to Gen7.5; Xe-HPG has a format and tables of its own
//! (`xehpg.rs`), reached through the same [`compact`] and [`uncompact`].
//!
//! From G45 on, an instruction whose rarely varying fields match one row in each of four
//! per-generation tables can be stored in 64 bits: five 5-bit table indices, the register
//! numbers verbatim and a few single bits. Working on raw words keeps this independent of
//! the instruction representation, so the fetch path of the software EU, the disassembler
//! and the assembler can all use it.
//!
//! Compact word (000_5e6e9c0c4071cf6e.txt lines 10054-10096; 003_e4327438ed1f7ac3.txt
//! lines 92359-92487):
//!
//! | bits  | field                    | native bits                                    |
//! |-------|--------------------------|------------------------------------------------|
//! | 6:0   | opcode                   | 6:0                                            |
//! | 7     | DebugCtrl                | 30                                             |
//! | 12:8  | ControlIndex             | 31, 23:8 (Gen7: also 90:89)                    |
//! | 17:13 | DataTypeIndex            | 63:61, 46:32                                   |
//! | 22:18 | SubRegIndex              | 100:96, 68:64, 52:48                           |
//! | 23    | MaskCtrlEx / AccWrCtrl   | 28                                             |
//! | 27:24 | CondModifier             | 27:24                                          |
//! | 28    | FlagSubRegNum            | 89 (G45, Gen6; unused on Gen7)                 |
//! | 29    | CmptCtrl = 1             | 29 = 0                                         |
//! | 34:30 | Src0Index                | 88:77                                          |
//! | 39:35 | Src1Index, or imm 12:8   | 120:109, or imm with bit 12 copied to 31:13    |
//! | 47:40 | Dst.RegNum               | 60:53                                          |
//! | 55:48 | Src0.RegNum              | 76:69                                          |
//! | 63:56 | Src1.RegNum, or imm 7:0  | 108:101, or 103:96                             |
//!
//! Where the Gen6 manual contradicts itself we follow the reading Mesa and iga64 share:
//! - compact bit 7: Table 5-26 (003 line 92388) and [ext: Mesa brw_eu_compact.c] say
//!   DebugCtrl (bit 30); the field list (line 92476) says "Reserved".
//! - immediates: Table 5-26's immediate column (lines 92375, 92378) sends compact 63:56 to
//!   `Imm[23:16] Imm[7:0] [119:112] [103:96]` and 39:35 to `[127:120] [111:104]`; the
//!   field list (lines 92425-92426) and line 92357 give imm 7:0 from 63:56, imm 12:8
//!   from 39:35 and bit 12 copied through bit 31, as Mesa does (and iga64 -p=7p5 on Gen7.5).

pub mod g45;
pub mod gen6;
pub mod gen7;
pub mod xehpg;

use crate::IsaGen;
use core::fmt;

/// One generation's compaction tables and the rules that differ between generations.
#[derive(Debug)]
pub struct CompactTables {
    /// ControlIndex rows: bit 16 -> bit 31, bits 15:0 -> bits 23:8, Gen7 bits 18:17 -> 90:89.
    pub control: [u32; 32],
    /// DataTypeIndex rows: bits 17:15 -> bits 63:61, bits 14:0 -> bits 46:32.
    pub datatype: [u32; 32],
    /// SubRegIndex rows: bits 14:10 -> 100:96, 9:5 -> 68:64, 4:0 -> 52:48.
    pub subreg: [u16; 32],
    /// Src0Index/Src1Index rows: 12 bits -> 88:77 (src0) or 120:109 (src1).
    pub src: [u16; 32],
    /// The flag register lives in the control table (Gen7) instead of compact bit 28.
    pub flag_in_control: bool,
    /// Immediates can be compacted as 13 sign-extended bits (Gen6 and later).
    pub small_immediates: bool,
    /// Opcodes in the three-source format, which has no compact form before Gen8.
    pub three_source: &'static [u8],
}

/// The compaction tables of `p`, or `None` for the original 965, which has no compaction
/// (000_5e6e9c0c4071cf6e.txt line 8895 tags the feature "[DevCTG-B+]").
pub fn tables(p: IsaGen) -> Option<&'static CompactTables> {
    match p {
        IsaGen::Gen4 => None,
        IsaGen::G45 => Some(&g45::TABLES),
        IsaGen::Gen6 => Some(&gen6::TABLES),
        IsaGen::Gen7 | IsaGen::Gen75 => Some(&gen7::TABLES),
        // Xe-HPG's format and tables are its own: `xehpg`, reached through
        // `compact`/`uncompact`.
        IsaGen::Gen12_5 => None,
    }
}

/// Why a 64-bit word has no 128-bit expansion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompactError {
    /// The platform has no compact encoding.
    Unsupported(IsaGen),
    /// CmptCtrl (bit 29) is clear: the word is the first half of a native instruction.
    NotCompact,
    /// A compact bit the generation leaves unused is set (bit 28 on Gen7/7.5).
    ReservedBit(u8),
    /// A three-source opcode: before Gen8 the compact format cannot describe one.
    ThreeSource(u8),
    /// Xe-HPG: the immediate's type (its code) has no compact form.
    ImmediateType(u8),
}

impl fmt::Display for CompactError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompactError::Unsupported(p) => write!(f, "{p} has no compact instructions"),
            CompactError::NotCompact => f.write_str("CmptCtrl (bit 29) is clear"),
            CompactError::ReservedBit(b) => write!(f, "reserved compact bit {b} is set"),
            CompactError::ThreeSource(op) => {
                write!(f, "three-source opcode {op:#04x} has no compact form")
            }
            CompactError::ImmediateType(t) => {
                write!(f, "immediate type code {t} has no compact form")
            }
        }
    }
}

impl core::error::Error for CompactError {}

/// CmptCtrl: bit 29 of the first dword tells a 64-bit instruction from a 128-bit one.
pub const fn is_compact(word0: u32) -> bool {
    word0 & (1 << 29) != 0
}

/// The compact form of `native`, if and only if it exists: every table-covered field
/// matches a row, any immediate fits the generation's short form, and nothing the compact
/// form cannot carry is set. Instructions that never compact give `None`: three-source
/// ones, sends that end the thread, any instruction on the original 965.
///
/// Bit-exact on purpose: iga64 also compacts one-source instructions whose null src1
/// differs from the chosen row in subregister or type, treating those bits as don't-care.
pub fn compact(p: IsaGen, native: [u32; 4]) -> Option<[u32; 2]> {
    if p == IsaGen::Gen12_5 {
        let c = xehpg::compact(native_bits(native))?;
        return Some([c as u32, (c >> 32) as u32]);
    }
    let t = tables(p)?;
    let n = native_bits(native);
    let opcode = bits(n, 6, 0) as u8;
    if bits(n, 29, 29) != 0 || t.three_source.contains(&opcode) || ends_thread(n) {
        return None;
    }
    let imm = has_immediate(n as u64 >> 32);

    let mut control = (bits(n, 31, 31) << 16) | bits(n, 23, 8);
    if t.flag_in_control {
        control |= bits(n, 90, 89) << 17;
    }
    let datatype = (bits(n, 63, 61) << 15) | bits(n, 46, 32);
    // An immediate overwrites src1's subregister bits, so only dst and src0 must match.
    let sub_mask: u16 = if imm { 0x3ff } else { 0x7fff };
    let subreg = ((bits(n, 100, 96) << 10) | (bits(n, 68, 64) << 5) | bits(n, 52, 48)) as u16;

    let mut c = bits(n, 6, 0)
        | (bits(n, 30, 30) << 7)
        | (row(&t.control, |e| e == control as u32)? << 8)
        | (row(&t.datatype, |e| e == datatype as u32)? << 13)
        | (row(&t.subreg, |e| e & sub_mask == subreg & sub_mask)? << 18)
        | (bits(n, 28, 28) << 23)
        | (bits(n, 27, 24) << 24)
        | (1 << 29)
        | (row(&t.src, |e| u64::from(e) == bits(n, 88, 77))? << 30)
        | (bits(n, 60, 53) << 40)
        | (bits(n, 76, 69) << 48);
    if !t.flag_in_control {
        c |= bits(n, 89, 89) << 28;
    }
    if imm {
        let value = bits(n, 127, 96) as u32;
        // 12 free bits and a 13th copied through bits 31:13 (003_e4327438ed1f7ac3.txt
        // lines 92352-92358, 92425-92429); G45 has no immediate form at all.
        if !t.small_immediates || !matches!((value as i32) >> 12, 0 | -1) {
            return None;
        }
        c |= (u64::from(value >> 8) & 0x1f) << 35 | u64::from(value & 0xff) << 56;
    } else {
        c |= row(&t.src, |e| u64::from(e) == bits(n, 120, 109))? << 35;
        c |= bits(n, 108, 101) << 56;
    }
    // The tables cover disjoint fields, so the first matching row of each is as good as
    // any; what remains is whether the native word sets a bit no field carries (Gen7
    // NibCtrl 47, Gen6 bit 90, 95:91, src1 AddrMode with an immediate...).
    (expand(t, c) == n).then_some([c as u32, (c >> 32) as u32])
}

/// The 128-bit instruction that the compact word `compact` stands for.
pub fn uncompact(p: IsaGen, compact: [u32; 2]) -> Result<[u32; 4], CompactError> {
    if p == IsaGen::Gen12_5 {
        let n = xehpg::expand(u64::from(compact[0]) | u64::from(compact[1]) << 32)?;
        return Ok([
            n as u32,
            (n >> 32) as u32,
            (n >> 64) as u32,
            (n >> 96) as u32,
        ]);
    }
    let t = tables(p).ok_or(CompactError::Unsupported(p))?;
    let c = u64::from(compact[0]) | (u64::from(compact[1]) << 32);
    if !is_compact(compact[0]) {
        return Err(CompactError::NotCompact);
    }
    // iga64 -p=7p5 ignores bit 28; we refuse it so that every accepted word re-compacts.
    if t.flag_in_control && c & (1 << 28) != 0 {
        return Err(CompactError::ReservedBit(28));
    }
    let opcode = (c & 0x7f) as u8;
    if t.three_source.contains(&opcode) {
        return Err(CompactError::ThreeSource(opcode));
    }
    let n = expand(t, c);
    Ok([
        n as u32,
        (n >> 32) as u32,
        (n >> 64) as u32,
        (n >> 96) as u32,
    ])
}

/// Table expansion shared by both directions; every index is 5 bits, so no lookup fails.
fn expand(t: &CompactTables, c: u64) -> u128 {
    let control = u128::from(pick(&t.control, c >> 8));
    let datatype = u128::from(pick(&t.datatype, c >> 13));
    let subreg = u128::from(pick(&t.subreg, c >> 18));
    let field = |hi: u32, lo: u32| u128::from((c >> lo) & ((1 << (hi - lo + 1)) - 1));

    let mut n = field(6, 0)
        | (field(7, 7) << 30)
        | ((control >> 16 & 1) << 31)
        | ((control & 0xffff) << 8)
        | ((datatype >> 15) << 61)
        | ((datatype & 0x7fff) << 32)
        | ((subreg >> 10) << 96)
        | ((subreg >> 5 & 0x1f) << 64)
        | ((subreg & 0x1f) << 48)
        | (field(23, 23) << 28)
        | (field(27, 24) << 24)
        | (u128::from(pick(&t.src, c >> 30)) << 77)
        | (field(47, 40) << 53)
        | (field(55, 48) << 69);
    if t.flag_in_control {
        n |= (control >> 17) << 89;
    } else {
        n |= field(28, 28) << 89;
    }
    // The register files come from the datatype row; an immediate takes all of DW3.
    if has_immediate((datatype & 0x7fff) as u64) {
        let imm = (field(39, 35) << 8 | field(63, 56)) as u32;
        let imm = ((imm << 19) as i32 >> 19) as u32;
        n = (n & !(u128::from(u32::MAX) << 96)) | (u128::from(imm) << 96);
    } else {
        n |= (u128::from(pick(&t.src, c >> 35)) << 109) | (field(63, 56) << 101);
    }
    n
}

/// Whether DW1 (in bits 14:0 of `dw1`) gives src0 or src1 the immediate register file.
fn has_immediate(dw1: u64) -> bool {
    (dw1 >> 5) & 3 == 3 || (dw1 >> 10) & 3 == 3
}

/// `send`/`sendc` with EOT (bit 127) are never compacted [ext: Mesa brw_eu_compact.c
/// has_unmapped_bits]; only a descriptor of the form 0xfffffxxx could carry the bit.
fn ends_thread(n: u128) -> bool {
    matches!(bits(n, 6, 0), 0x31 | 0x32) && bits(n, 127, 127) != 0
}

fn native_bits(w: [u32; 4]) -> u128 {
    u128::from(w[0]) | u128::from(w[1]) << 32 | u128::from(w[2]) << 64 | u128::from(w[3]) << 96
}

/// Bits `hi..=lo` of the native word, at most 32 of them.
fn bits(n: u128, hi: u32, lo: u32) -> u64 {
    ((n >> lo) & ((1u128 << (hi - lo + 1)) - 1)) as u64
}

/// The row a 5-bit index selects; masking keeps the lookup in range for any input.
fn pick<T: Copy>(table: &[T; 32], index: u64) -> T {
    table[(index & 31) as usize]
}

/// The first row satisfying `matches`, as a 5-bit index.
fn row<T: Copy>(table: &[T; 32], matches: impl Fn(T) -> bool) -> Option<u64> {
    table.iter().position(|&e| matches(e)).map(|i| i as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// iga64 -p=7p5 -Xautocompact output for `mov (8|M0) r1.0<1>:f r2.0<8;8,1>:f`.
    const HSW_MOV: ([u32; 4], [u32; 2]) = (
        [0x0060_0001, 0x2020_03bd, 0x008d_0040, 0x0000_0000],
        [0x2001_0b01, 0x0002_0107],
    );

    #[test]
    fn compact_matches_known_encoding() {
        assert_eq!(compact(IsaGen::Gen75, HSW_MOV.0), Some(HSW_MOV.1));
        assert_eq!(uncompact(IsaGen::Gen75, HSW_MOV.1), Ok(HSW_MOV.0));
    }

    #[test]
    fn immediates_sign_extend_from_bit_12() {
        // add (8) r3<1>:d r4<8;8,1>:d imm:d, Gen7.5 datatype row 14.
        let mut native = [0x0060_0040, 0x2060_1ca5, 0x008d_0080, 0];
        for imm in [0u32, 5, 0xfff, 0xffff_f000, 0xffff_ffff, 0xffff_f800] {
            native[3] = imm;
            let c = compact(IsaGen::Gen75, native).expect("13-bit immediate compacts");
            assert_eq!(uncompact(IsaGen::Gen75, c), Ok(native));
        }
        for imm in [0x1000u32, 0x8000_0000, 0xffff_e000, 0x0001_0000] {
            native[3] = imm;
            assert_eq!(compact(IsaGen::Gen75, native), None, "{imm:#x}");
        }
    }

    #[test]
    fn errors() {
        let c = HSW_MOV.1;
        assert_eq!(
            uncompact(IsaGen::Gen4, c),
            Err(CompactError::Unsupported(IsaGen::Gen4))
        );
        assert_eq!(
            uncompact(IsaGen::Gen7, [c[0] & !(1 << 29), c[1]]),
            Err(CompactError::NotCompact)
        );
        assert_eq!(
            uncompact(IsaGen::Gen7, [c[0] | 1 << 28, c[1]]),
            Err(CompactError::ReservedBit(28))
        );
        assert_eq!(
            uncompact(IsaGen::Gen6, [(c[0] & !0x7f) | 0x5b, c[1]]),
            Err(CompactError::ThreeSource(0x5b))
        );
        assert!(uncompact(IsaGen::Gen6, [c[0] | 1 << 28, c[1]]).is_ok());
        assert_eq!(compact(IsaGen::Gen4, HSW_MOV.0), None);
        assert!(is_compact(c[0]) && !is_compact(HSW_MOV.0[0]));
    }

    #[test]
    fn g45_has_no_immediate_rows() {
        assert!(
            g45::DATATYPE
                .iter()
                .all(|&e| !has_immediate(u64::from(e & 0x7fff)))
        );
    }
}
