//! Ivy Bridge (Gen7) and Haswell (Gen7.5) compaction tables.
//!
//! Neither manual here has them (001 stops before the instruction formats), so they come
//! from public sources: Mesa's i965 and ilo drivers, which agree except in `SUBREG[10]`.
//! Haswell shares Ivy Bridge's tables: Mesa uses one set for both, and iga64 -p=7p5
//! (Intel's GED tables) reads every row of every table as below, to the resolution of its
//! text (subregisters in units of the operand type), and compacts the same way
//! (tests/compact_iga.rs). No Ivy Bridge tool was at hand, so the IVB-only evidence is
//! Mesa's. Gen7 moves the flag register into the control table and leaves compact bit 28
//! unused (iga64 ignores it; we refuse it).

use super::CompactTables;

/// Gen7/7.5 three-source opcodes: bfe 0x18, bfi2 0x1a, mad 0x5b, lrp 0x5c.
const THREE_SOURCE: [u8; 4] = [0x18, 0x1a, 0x5b, 0x5c];

/// The four Gen7 tables, used for Gen7.5 as well.
pub static TABLES: CompactTables = CompactTables {
    control: CONTROL,
    datatype: DATATYPE,
    subreg: SUBREG,
    src: SRC,
    flag_in_control: true,
    small_immediates: true,
    three_source: &THREE_SOURCE,
};

/// ControlIndex: entry bits 18:17 -> FlagRegNum:FlagSubRegNum (90:89), bit 16 -> Saturate (31),
/// bits 15:0 -> bits 23:8. Source: [ext: Mesa brw_eu_compact.c gen7_control_index_table];
/// the same values in [ext: Mesa ilo toy_compiler_asm.c toy_compaction_table_gen7] and in
/// iga64 -p=7p5 (checked by tests/compact_iga.rs).
pub const CONTROL: [u32; 32] = [
    0b0000000000000000010, //  0 A1 NoMask (1) f0.0
    0b0000100000000000000, //  1 A1 (4) f0.0
    0b0000100000000000001, //  2 A16 (4) f0.0
    0b0000100000000000010, //  3 A1 NoMask (4) f0.0
    0b0000100000000000011, //  4 A16 NoMask (4) f0.0
    0b0000100000000000100, //  5 A1 NoDDClr (4) f0.0
    0b0000100000000000101, //  6 A16 NoDDClr (4) f0.0
    0b0000100000000000111, //  7 A16 NoMask NoDDClr (4) f0.0
    0b0000100000000001000, //  8 A1 NoDDChk (4) f0.0
    0b0000100000000001001, //  9 A16 NoDDChk (4) f0.0
    0b0000100000000001101, // 10 A16 NoDDClr NoDDChk (4) f0.0
    0b0000110000000000000, // 11 A1 (8) f0.0
    0b0000110000000000001, // 12 A16 (8) f0.0
    0b0000110000000000010, // 13 A1 NoMask (8) f0.0
    0b0000110000000000011, // 14 A16 NoMask (8) f0.0
    0b0000110000000000100, // 15 A1 NoDDClr (8) f0.0
    0b0000110000000000101, // 16 A16 NoDDClr (8) f0.0
    0b0000110000000000111, // 17 A16 NoMask NoDDClr (8) f0.0
    0b0000110000000001001, // 18 A16 NoDDChk (8) f0.0
    0b0000110000000001101, // 19 A16 NoDDClr NoDDChk (8) f0.0
    0b0000110000000010000, // 20 A1 qtr1 (8) f0.0
    0b0000110000100000000, // 21 A1 pred1 (8) f0.0
    0b0001000000000000000, // 22 A1 (16) f0.0
    0b0001000000000000010, // 23 A1 NoMask (16) f0.0
    0b0001000000000000100, // 24 A1 NoDDClr (16) f0.0
    0b0001000000100000000, // 25 A1 pred1 (16) f0.0
    0b0010110000000000000, // 26 A1 (8) sat f0.0
    0b0010110000000010000, // 27 A1 qtr1 (8) sat f0.0
    0b0011000000000000000, // 28 A1 (16) sat f0.0
    0b0011000000100000000, // 29 A1 pred1 (16) sat f0.0
    0b0101000000000000000, // 30 A1 (16) f0.1
    0b0101000000100000000, // 31 A1 pred1 (16) f0.1
];

/// DataTypeIndex: entry bits 17:15 -> bits 63:61, 14:0 -> 46:32.
/// Source: [ext: Mesa brw_eu_compact.c gen7_datatype_table]; ilo and iga64 -p=7p5 agree.
pub const DATATYPE: [u32; 32] = [
    0b001000000000000001, //  0 r:ud a:ud a:ud <1>
    0b001000000000100000, //  1 a:ud r:ud a:ud <1>
    0b001000000000100001, //  2 r:ud r:ud a:ud <1>
    0b001000000001100001, //  3 r:ud i:ud a:ud <1>
    0b001000000010111101, //  4 r:f r:d a:ud <1>
    0b001000001011111101, //  5 r:f i:vf a:ud <1>; a Mesa comment quoting the Bspec calls this row 3, iga64 uses 5
    0b001000001110100001, //  6 r:ud r:f a:ud <1>
    0b001000001110100101, //  7 r:d r:f a:ud <1>
    0b001000001110111101, //  8 r:f r:f a:ud <1>
    0b001000010000100001, //  9 r:ud r:ud r:ud <1>
    0b001000110000100000, // 10 a:ud r:ud i:ud <1>
    0b001000110000100001, // 11 r:ud r:ud i:ud <1>
    0b001001010010100101, // 12 r:d r:d r:d <1>
    0b001001110010100100, // 13 a:d r:d i:d <1>
    0b001001110010100101, // 14 r:d r:d i:d <1>
    0b001111001110111101, // 15 r:f r:f a:f <1>
    0b001111011110011101, // 16 r:f a:f r:f <1>
    0b001111011110111100, // 17 a:f r:f r:f <1>
    0b001111011110111101, // 18 r:f r:f r:f <1>
    0b001111111110111100, // 19 a:f r:f i:f <1>
    0b000000001000001100, // 20 a:w a:ub a:ud <0>
    0b001000000000111101, // 21 r:f r:ud a:ud <1>
    0b001000000010100101, // 22 r:d r:d a:ud <1>
    0b001000010000100000, // 23 a:ud r:ud r:ud <1>
    0b001001010010100100, // 24 a:d r:d r:d <1>
    0b001001110010000100, // 25 a:d a:d i:d <1>
    0b001010010100001001, // 26 r:uw a:uw r:uw <1>
    0b001101111110111101, // 27 r:f r:f i:vf <1>
    0b001111111110111101, // 28 r:f r:f i:f <1>
    0b001011110110101100, // 29 a:w r:w i:w <1>
    0b001010010100101000, // 30 a:uw r:uw r:uw <1>
    0b001010110100101000, // 31 a:uw r:uw i:uw <1>
];

/// SubRegIndex: entry bits 14:10 -> 100:96 (src1), 9:5 -> 68:64 (src0), 4:0 -> 52:48 (dst).
/// Source: [ext: Mesa brw_eu_compact.c gen7_subreg_table] except entry 10, which follows
/// [ext: Mesa ilo toy_compiler_asm.c toy_compaction_table_gen7 subreg\[10\]] and iga64 -p=7p5
/// (src0 at byte 20). i965 has 0b000010100000000 (src1 byte 1, src0 byte 8), the ilo value
/// shifted left by one: a typo only an instruction with exactly those offsets would expose.
pub const SUBREG: [u16; 32] = [
    0b000000000000000, //  0 dst 0 src0 0 src1 0
    0b000000000000001, //  1 dst 1 src0 0 src1 0
    0b000000000001000, //  2 dst 8 src0 0 src1 0
    0b000000000001111, //  3 dst 15 src0 0 src1 0
    0b000000000010000, //  4 dst 16 src0 0 src1 0
    0b000000010000000, //  5 dst 0 src0 4 src1 0
    0b000000100000000, //  6 dst 0 src0 8 src1 0
    0b000000110000000, //  7 dst 0 src0 12 src1 0
    0b000001000000000, //  8 dst 0 src0 16 src1 0
    0b000001000010000, //  9 dst 16 src0 16 src1 0
    0b000001010000000, // 10 dst 0 src0 20 src1 0; i965 has 0b000010100000000 here, see above
    0b001000000000000, // 11 dst 0 src0 0 src1 4
    0b001000000000001, // 12 dst 1 src0 0 src1 4
    0b001000010000001, // 13 dst 1 src0 4 src1 4
    0b001000010000010, // 14 dst 2 src0 4 src1 4
    0b001000010000011, // 15 dst 3 src0 4 src1 4
    0b001000010000100, // 16 dst 4 src0 4 src1 4
    0b001000010000111, // 17 dst 7 src0 4 src1 4
    0b001000010001000, // 18 dst 8 src0 4 src1 4
    0b001000010001110, // 19 dst 14 src0 4 src1 4
    0b001000010001111, // 20 dst 15 src0 4 src1 4
    0b001000110000000, // 21 dst 0 src0 12 src1 4
    0b001000111101000, // 22 dst 8 src0 15 src1 4
    0b010000000000000, // 23 dst 0 src0 0 src1 8
    0b010000110000000, // 24 dst 0 src0 12 src1 8
    0b011000000000000, // 25 dst 0 src0 0 src1 12
    0b011110010000111, // 26 dst 7 src0 4 src1 15
    0b100000000000000, // 27 dst 0 src0 0 src1 16
    0b101000000000000, // 28 dst 0 src0 0 src1 20
    0b110000000000000, // 29 dst 0 src0 0 src1 24
    0b111000000000000, // 30 dst 0 src0 0 src1 28
    0b111000000011100, // 31 dst 28 src0 0 src1 28
];

/// Src0Index/Src1Index: entry -> bits 88:77 (src0) or 120:109 (src1).
/// Source: [ext: Mesa brw_eu_compact.c gen7_src_index_table]; ilo and iga64 -p=7p5 agree.
pub const SRC: [u16; 32] = [
    0b000000000000, //  0 <0;1,0>
    0b000000000010, //  1 <0;1,0> neg
    0b000000010000, //  2 <0;1,2>
    0b000000010010, //  3 <0;1,2> neg
    0b000000011000, //  4 <0;1,4>
    0b000000100000, //  5 <0;2,0>
    0b000000101000, //  6 <0;2,1>
    0b000001001000, //  7 <0;4,1>
    0b000001010000, //  8 <0;4,2>
    0b000001110000, //  9 <0;8,2>
    0b000001111000, // 10 <0;8,4>
    0b001100000000, // 11 <4;1,0>
    0b001100000010, // 12 <4;1,0> neg
    0b001100001000, // 13 <4;1,1>
    0b001100010000, // 14 <4;1,2>
    0b001100010010, // 15 <4;1,2> neg
    0b001100100000, // 16 <4;2,0>
    0b001100101000, // 17 <4;2,1>
    0b001100111000, // 18 <4;2,4>
    0b001101000000, // 19 <4;4,0>
    0b001101000010, // 20 <4;4,0> neg
    0b001101001000, // 21 <4;4,1>
    0b001101010000, // 22 <4;4,2>
    0b001101100000, // 23 <4;8,0>
    0b001101101000, // 24 <4;8,1>
    0b001101110000, // 25 <4;8,2>
    0b001101110001, // 26 <4;8,2> abs
    0b001101111000, // 27 <4;8,4>
    0b010001101000, // 28 <8;8,1>
    0b010001101001, // 29 <8;8,1> abs
    0b010001101010, // 30 <8;8,1> neg
    0b010110001000, // 31 <16;16,1>
];
