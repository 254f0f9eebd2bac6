//! Sandy Bridge (Gen6) compaction tables.
//!
//! The compact layout is 003_e4327438ed1f7ac3.txt lines 92359-92487 (Table 5-26), the
//! tables are at lines 92071-92351 and the rules at lines 92488-92495. Entry comments
//! decode the entry (Align1 reading) and give the manual line it was checked against.

use super::CompactTables;

/// Gen6 three-source opcodes (mad 0x5b, lrp 0x5c): their 128-bit layout has no compact
/// form before Gen8 [ext: Mesa brw_eu_compact.c try_compact_instruction].
const THREE_SOURCE: [u8; 2] = [0x5b, 0x5c];

/// The four Gen6 tables; immediates travel as 13 sign-extended bits.
pub static TABLES: CompactTables = CompactTables {
    control: CONTROL,
    datatype: DATATYPE,
    subreg: SUBREG,
    src: SRC,
    flag_in_control: false,
    small_immediates: true,
    three_source: &THREE_SOURCE,
};

/// ControlIndex: entry bit 16 -> Saturate (31), bits 15:0 -> bits 23:8.
/// Source: 003_e4327438ed1f7ac3.txt lines 92077-92140; equal entry for entry to
/// [ext: Mesa brw_eu_compact.c gen6_control_index_table].
pub const CONTROL: [u32; 32] = [
    0b00000000000000000, //  0 A1 (1); L92077
    0b01000000000000000, //  1 A1 (16); L92079
    0b00110000000000000, //  2 A1 (8); L92081
    0b00000000100000000, //  3 A1 pred1 (1); L92083
    0b00010000000000000, //  4 A1 (2); L92085
    0b00001000100000000, //  5 A1 pred1 inv (1); L92087
    0b00000000100000010, //  6 A1 NoMask pred1 (1); L92089
    0b00000000000000010, //  7 A1 NoMask (1); L92091
    0b01000000100000000, //  8 A1 pred1 (16); L92094
    0b01010000000000000, //  9 A1 (32); L92096
    0b10110000000000000, // 10 A1 (8) sat; L92098
    0b00100000000000000, // 11 A1 (4); L92100
    0b11010000000000000, // 12 A1 (32) sat; L92102
    0b11000000000000000, // 13 A1 (16) sat; L92104
    0b01001000100000000, // 14 A1 pred1 inv (16); L92106
    0b01000000000001000, // 15 A1 NoDDChk (16); L92108
    0b01000000000000100, // 16 A1 NoDDClr (16); L92110
    0b00000000000001000, // 17 A1 NoDDChk (1); L92112
    0b00000000000000100, // 18 A1 NoDDClr (1); L92114
    0b00111000100000000, // 19 A1 pred1 inv (8); L92116
    0b00001000100000010, // 20 A1 NoMask pred1 inv (1); L92118
    0b00110000100000000, // 21 A1 pred1 (8); L92120
    0b00110000000000001, // 22 A16 (8); L92122
    0b00100000000000001, // 23 A16 (4); L92124
    0b00110000000000010, // 24 A1 NoMask (8); L92126
    0b00110000000000101, // 25 A16 NoDDClr (8); L92128
    0b00110000000001001, // 26 A16 NoDDChk (8); L92130
    0b00110000000010000, // 27 A1 qtr1 (8); L92132
    0b00110000000000011, // 28 A16 NoMask (8); L92134
    0b00110000000000100, // 29 A1 NoDDClr (8); L92136
    0b00110000100001000, // 30 A1 NoDDChk pred1 (8); L92138
    0b00100000000001001, // 31 A16 NoDDChk (4); L92140
];

/// DataTypeIndex: entry bits 17:15 -> bits 63:61, 14:0 -> 46:32.
/// Source: 003_e4327438ed1f7ac3.txt lines 92144-92207; equal entry for entry to
/// [ext: Mesa brw_eu_compact.c gen6_datatype_table].
pub const DATATYPE: [u32; 32] = [
    0b001001110000000000, //  0 a:ud a:ud i:d <1>; L92144
    0b001000110000100000, //  1 a:ud r:ud i:ud <1>; L92146
    0b001001110000000001, //  2 r:ud a:ud i:d <1>; L92148
    0b001000000001100000, //  3 a:ud i:ud a:ud <1>; L92150
    0b001010110100101001, //  4 r:uw r:uw i:uw <1>; L92152
    0b001000000110101101, //  5 r:w r:w a:ud <1>; L92154
    0b001100011000101100, //  6 a:w r:ub r:ub <1>; L92156
    0b001011110110101101, //  7 r:w r:w i:w <1>; L92158
    0b001000000111101100, //  8 a:w i:w a:ud <1>; L92161
    0b001000000001100001, //  9 r:ud i:ud a:ud <1>; L92163
    0b001000110010100101, // 10 r:d r:d i:ud <1>; L92165
    0b001000000001000001, // 11 r:ud m:ud a:ud <1>; L92167
    0b001000001000110001, // 12 r:ub r:ub a:ud <1>; L92169
    0b001000001000101001, // 13 r:uw r:ub a:ud <1>; L92171
    0b001000000000100000, // 14 a:ud r:ud a:ud <1>; L92173
    0b001000001000110010, // 15 m:ub r:ub a:ud <1>; L92175
    0b001010010100101001, // 16 r:uw r:uw r:uw <1>; L92177
    0b001011010010100101, // 17 r:d r:d r:w <1>; L92179
    0b001000000110100101, // 18 r:d r:w a:ud <1>; L92181
    0b001100011000101001, // 19 r:uw r:ub r:ub <1>; L92183
    0b001011011000101100, // 20 a:w r:ub r:w <1>; L92185
    0b001011010110100101, // 21 r:d r:w r:w <1>; L92187
    0b001011110110100101, // 22 r:d r:w i:w <1>; L92189
    0b001111011110111101, // 23 r:f r:f r:f <1>; L92191
    0b001111011110111100, // 24 a:f r:f r:f <1>; L92193
    0b001111011110111101, // 25 r:f r:f r:f <1>; L92195; same as row 23, compact() picks 23
    0b001111011110011101, // 26 r:f a:f r:f <1>; L92197
    0b001111011110111110, // 27 m:f r:f r:f <1>; L92199
    0b001000000000100001, // 28 r:ud r:ud a:ud <1>; L92201
    0b001000000000100010, // 29 m:ud r:ud a:ud <1>; L92203
    0b001001111111011101, // 30 r:f m:f i:d <1>; L92205
    0b001000001110111110, // 31 m:f r:f a:ud <1>; L92207
];

/// SubRegIndex: entry bits 14:10 -> 100:96 (src1), 9:5 -> 68:64 (src0), 4:0 -> 52:48 (dst).
/// Source: 003_e4327438ed1f7ac3.txt lines 92278-92348; equal entry for entry to
/// [ext: Mesa brw_eu_compact.c gen6_subreg_table].
pub const SUBREG: [u16; 32] = [
    0b000000000000000, //  0 dst 0 src0 0 src1 0; L92278
    0b000000000000100, //  1 dst 4 src0 0 src1 0; L92280
    0b000000110000000, //  2 dst 0 src0 12 src1 0; L92282
    0b111000000000000, //  3 dst 0 src0 0 src1 28; L92284
    0b011110000001000, //  4 dst 8 src0 0 src1 15; L92286
    0b000010000000000, //  5 dst 0 src0 0 src1 1; L92288
    0b000000000010000, //  6 dst 16 src0 0 src1 0; L92290
    0b000110000001100, //  7 dst 12 src0 0 src1 3; L92292
    0b001000000000000, //  8 dst 0 src0 0 src1 4; L92302
    0b000001000000000, //  9 dst 0 src0 16 src1 0; L92304
    0b000001010010100, // 10 dst 20 src0 20 src1 0; L92306
    0b000000001010110, // 11 dst 22 src0 2 src1 0; L92308
    0b010000000000000, // 12 dst 0 src0 0 src1 8; L92310
    0b110000000000000, // 13 dst 0 src0 0 src1 24; L92312
    0b000100000000000, // 14 dst 0 src0 0 src1 2; L92314
    0b000000010000000, // 15 dst 0 src0 4 src1 0; L92316
    0b000000000001000, // 16 dst 8 src0 0 src1 0; L92318
    0b100000000000000, // 17 dst 0 src0 0 src1 16; L92320
    0b000001010000000, // 18 dst 0 src0 20 src1 0; L92322
    0b001010000000000, // 19 dst 0 src0 0 src1 5; L92324
    0b001100000000000, // 20 dst 0 src0 0 src1 6; L92326
    0b000000001010100, // 21 dst 20 src0 2 src1 0; L92328
    0b101101010010100, // 22 dst 20 src0 20 src1 22; L92330
    0b010100000000000, // 23 dst 0 src0 0 src1 10; L92332
    0b000000010001111, // 24 dst 15 src0 4 src1 0; L92334
    0b011000000000000, // 25 dst 0 src0 0 src1 12; L92336
    0b111110000000000, // 26 dst 0 src0 0 src1 31; L92338
    0b101000000000000, // 27 dst 0 src0 0 src1 20; L92340
    0b000000000001111, // 28 dst 15 src0 0 src1 0; L92342
    0b000100010001111, // 29 dst 15 src0 4 src1 2; L92344
    0b001000010001111, // 30 dst 15 src0 4 src1 4; L92346
    0b000110000000000, // 31 dst 0 src0 0 src1 3; L92348
];

/// Src0Index/Src1Index: entry -> bits 88:77 (src0) or 120:109 (src1).
/// Source: 003_e4327438ed1f7ac3.txt lines 92211-92274; equal entry for entry to
/// [ext: Mesa brw_eu_compact.c gen6_src_index_table].
pub const SRC: [u16; 32] = [
    0b000000000000, //  0 <0;1,0>; L92211
    0b010110001000, //  1 <16;16,1>; L92213
    0b010001101000, //  2 <8;8,1>; L92215
    0b001000101000, //  3 <2;2,1>; L92217
    0b011010010000, //  4 <32;16,2>; L92219
    0b000100100000, //  5 <1;2,0>; L92221
    0b010001101100, //  6 <8;8,1> ind; L92223
    0b010101110000, //  7 <16;8,2>; L92225
    0b011001111000, //  8 <32;8,4>; L92228
    0b001100101000, //  9 <4;2,1>; L92230
    0b010110001100, // 10 <16;16,1> ind; L92232
    0b001000100000, // 11 <2;2,0>; L92234
    0b010110001010, // 12 <16;16,1> neg; L92236
    0b000000000010, // 13 <0;1,0> neg; L92238
    0b010101010000, // 14 <16;4,2>; L92240
    0b010101101000, // 15 <16;8,1>; L92242
    0b111101001100, // 16 <VxH;4,1> ind; L92244
    0b111100101100, // 17 <VxH;2,1> ind; L92246
    0b011001110000, // 18 <32;8,2>; L92248
    0b010110001001, // 19 <16;16,1> abs; L92250
    0b010101011000, // 20 <16;4,4>; L92252
    0b001101001000, // 21 <4;4,1>; L92254
    0b010000101100, // 22 <8;2,1> ind; L92256
    0b010000000000, // 23 <8;1,0>; L92258
    0b001101110000, // 24 <4;8,2>; L92260
    0b001100010000, // 25 <4;1,2>; L92262
    0b001100000000, // 26 <4;1,0>; L92264
    0b010001101010, // 27 <8;8,1> neg; L92266
    0b001101111000, // 28 <4;8,4>; L92268
    0b000001110000, // 29 <0;8,2>; L92270
    0b001100100000, // 30 <4;2,0>; L92272
    0b001101010000, // 31 <4;4,2>; L92274
];
