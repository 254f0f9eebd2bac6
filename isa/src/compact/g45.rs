//! G45 ("CTG-B" and later G4x, also Ironlake in Mesa) compaction tables.
//!
//! The compact layout is 000_5e6e9c0c4071cf6e.txt lines 10054-10096 (Tables 13-18/13-19);
//! the tables are at lines 8909-9067. The original 965 (Gen4) has no compaction.
//! Entry comments decode the entry (Align1 reading) and give the manual line it was checked
//! against; "text damage" marks rows the PDF conversion corrupted.

use super::CompactTables;

/// The four G45 tables; the flag subregister travels in compact bit 28.
pub static TABLES: CompactTables = CompactTables {
    control: CONTROL,
    datatype: DATATYPE,
    subreg: SUBREG,
    src: SRC,
    flag_in_control: false,
    small_immediates: false,
    three_source: &[],
};

/// ControlIndex: entry bit 16 -> Saturate (31), bits 15:0 -> bits 23:8.
/// Values: [ext: Mesa brw_eu_compact.c g45_control_index_table]. The manual copy
/// (000_5e6e9c0c4071cf6e.txt lines 8912-8946) dropped one 0 from 30 of the 32 entries in the
/// text conversion; every damaged row equals the Mesa value with one 0 removed.
pub const CONTROL: [u32; 32] = [
    0b00000000000000000, //  0 A1 (1); L8912 reads "0000000000000000" (16 digits): text damage
    0b01000000000000000, //  1 A1 (16); L8913 reads "0100000000000000" (16 digits): text damage
    0b00110000000000000, //  2 A1 (8); L8914 reads "0011000000000000" (16 digits): text damage
    0b00000000000000010, //  3 A1 NoMask (1); L8915 reads "0000000000000010" (16 digits): text damage
    0b00100000000000000, //  4 A1 (4); L8916 reads "0010000000000000" (16 digits): text damage
    0b00010000000000000, //  5 A1 (2); L8917 reads "0001000000000000" (16 digits): text damage
    0b01000000000100000, //  6 A1 qtr2 (16); L8918 reads "0100000000010000" (16 digits): text damage
    0b01000000100000000, //  7 A1 pred1 (16); L8919 reads "0100000010000000" (16 digits): text damage
    0b01010000000100000, //  8 A1 qtr2 (32); L8920 reads "0101000000010000" (16 digits): text damage
    0b00000000100000010, //  9 A1 NoMask pred1 (1); L8921 reads "0000000010000010" (16 digits): text damage
    0b11000000000000000, // 10 A1 (16) sat; L8922 reads "1100000000000000" (16 digits): text damage
    0b00001000100000010, // 11 A1 NoMask pred1 inv (1); L8923 reads "0000100010000010" (16 digits): text damage
    0b01001000100000000, // 12 A1 pred1 inv (16); L8924 reads "0100100010000000" (16 digits): text damage
    0b00000000100000000, // 13 A1 pred1 (1); L8925 reads "0000000010000000" (16 digits): text damage
    0b11000000000100000, // 14 A1 qtr2 (16) sat; L8926 reads "1100000000010000" (16 digits): text damage
    0b00001000100000000, // 15 A1 pred1 inv (1); L8927 reads "0000100010000000" (16 digits): text damage
    0b10110000000000000, // 16 A1 (8) sat; L8928 reads "1011000000000000" (16 digits): text damage
    0b11010000000100000, // 17 A1 qtr2 (32) sat; L8929 reads "1101000000010000" (16 digits): text damage
    0b00110000100000000, // 18 A1 pred1 (8); L8930 reads "0011000010000000" (16 digits): text damage
    0b00100000100000000, // 19 A1 pred1 (4); L8931 reads "0010000010000000" (16 digits): text damage
    0b01000000000001000, // 20 A1 NoDDChk (16); L8932 reads "0100000000000100" (16 digits): text damage
    0b01000000000000100, // 21 A1 NoDDClr (16); L8933 reads "0100000000000100" (16 digits): text damage
    0b00111100000000000, // 22 A1 pred8 inv (8); L8934 reads "0011110000000000" (16 digits): text damage
    0b00101011000000000, // 23 A1 pred6 inv (4); L8935 reads "0010101100000000" (16 digits): text damage
    0b00110000000010000, // 24 A1 qtr1 (8); L8936 reads "0011000000001000" (16 digits): text damage
    0b00010000100000000, // 25 A1 pred1 (2); L8937 reads "0001000010000000" (16 digits): text damage
    0b01000000000100100, // 26 A1 NoDDClr qtr2 (16); L8938 reads "0100000000010010" (16 digits): text damage
    0b01000000000101000, // 27 A1 NoDDChk qtr2 (16); L8939 reads "0100000000010100" (16 digits): text damage
    0b00110000000000110, // 28 A1 NoMask NoDDClr (8); L8940 reads "0011000000000110" (16 digits): text damage
    0b00000000000001010, // 29 A1 NoMask NoDDChk (1); L8944 reads "0000000000001010" (16 digits): text damage
    0b01010000000101000, // 30 A1 NoDDChk qtr2 (32); L8945
    0b01010000000100100, // 31 A1 NoDDClr qtr2 (32); L8946
];

/// DataTypeIndex: entry bits 17:15 -> bits 63:61 (dst AddrMode, HorzStride), 14:0 -> 46:32.
/// Source: 000_5e6e9c0c4071cf6e.txt lines 8951-8985; equal to [ext: Mesa brw_eu_compact.c
/// g45_datatype_table]. No entry has an immediate source, so G45 never compacts one.
pub const DATATYPE: [u32; 32] = [
    0b001000000000100001, //  0 r:ud r:ud a:ud <1>; L8951
    0b001011010110101101, //  1 r:w r:w r:w <1>; L8952
    0b001000001000110001, //  2 r:ub r:ub a:ud <1>; L8953
    0b001111011110111101, //  3 r:f r:f r:f <1>; L8954
    0b001011010110101100, //  4 a:w r:w r:w <1>; L8955
    0b001000000110101101, //  5 r:w r:w a:ud <1>; L8956
    0b001000000000100000, //  6 a:ud r:ud a:ud <1>; L8957
    0b010100010110110001, //  7 r:ub r:w r:ub <2>; L8958
    0b001100011000101101, //  8 r:w r:ub r:ub <1>; L8959
    0b001000000000100010, //  9 m:ud r:ud a:ud <1>; L8960
    0b001000001000110110, // 10 m:b r:ub a:ud <1>; L8961
    0b010000001000110001, // 11 r:ub r:ub a:ud <2>; L8962
    0b001000001000110010, // 12 m:ub r:ub a:ud <1>; L8963
    0b011000001000110010, // 13 m:ub r:ub a:ud <4>; L8964
    0b001111011110111100, // 14 a:f r:f r:f <1>; L8965
    0b001000000100101000, // 15 a:uw r:uw a:ud <1>; L8966
    0b010100011000110001, // 16 r:ub r:ub r:ub <2>; L8967
    0b001010010100101001, // 17 r:uw r:uw r:uw <1>; L8968
    0b001000001000101001, // 18 r:uw r:ub a:ud <1>; L8969
    0b010000001000110110, // 19 m:b r:ub a:ud <2>; L8973
    0b101000001000110001, // 20 r:ub r:ub a:ud <1> ind; L8974
    0b001011011000101101, // 21 r:w r:ub r:w <1>; L8975
    0b001000000100001001, // 22 r:uw a:uw a:ud <1>; L8976
    0b001011011000101100, // 23 a:w r:ub r:w <1>; L8977
    0b110100011000110001, // 24 r:ub r:ub r:ub <2> ind; L8978
    0b001000001110111101, // 25 r:f r:f a:ud <1>; L8979
    0b110000001000110001, // 26 r:ub r:ub a:ud <2> ind; L8980
    0b011000000100101010, // 27 m:uw r:uw a:ud <4>; L8981
    0b101000001000101001, // 28 r:uw r:ub a:ud <1> ind; L8982
    0b001011010110001100, // 29 a:w a:w r:w <1>; L8983
    0b001000000110100001, // 30 r:ud r:w a:ud <1>; L8984
    0b001010010100001000, // 31 a:uw a:uw r:uw <1>; L8985
];

/// SubRegIndex: entry bits 14:10 -> 100:96 (src1), 9:5 -> 68:64 (src0), 4:0 -> 52:48 (dst).
/// Values: [ext: Mesa brw_eu_compact.c g45_subreg_table]. The manual copy
/// (000_5e6e9c0c4071cf6e.txt lines 8990-9026) is damaged in entries 0-11 (one 0 too many or too few).
pub const SUBREG: [u16; 32] = [
    0b000000000000000, //  0 dst 0 src0 0 src1 0; L8990 reads "0000000000000000" (16 digits): text damage
    0b000000010000000, //  1 dst 0 src0 4 src1 0; L8991 reads "0000000100000000" (16 digits): text damage
    0b000001000000000, //  2 dst 0 src0 16 src1 0; L8992 reads "0000010000000000" (16 digits): text damage
    0b000100000000000, //  3 dst 0 src0 0 src1 2; L8993 reads "0001000000000000" (16 digits): text damage
    0b000000000100000, //  4 dst 0 src0 1 src1 0; L8994 reads "0000000001000000" (16 digits): text damage
    0b100000000000000, //  5 dst 0 src0 0 src1 16; L8995 reads "1000000000000000" (16 digits): text damage
    0b000000000010000, //  6 dst 16 src0 0 src1 0; L8996 reads "0000000000100000" (16 digits): text damage
    0b001100000000000, //  7 dst 0 src0 0 src1 6; L8997 reads "0011000000000000" (16 digits): text damage
    0b001010000000000, //  8 dst 0 src0 0 src1 5; L8998 reads "0010100000000000" (16 digits): text damage
    0b000000100000000, //  9 dst 0 src0 8 src1 0; L8999 reads "0000001000000000" (16 digits): text damage
    0b001000000000000, // 10 dst 0 src0 0 src1 4; L9000 reads "0010000000000000" (16 digits): text damage
    0b000000000001000, // 11 dst 8 src0 0 src1 0; L9006 reads "00000000001000" (14 digits): text damage
    0b000000001000000, // 12 dst 0 src0 2 src1 0; L9007
    0b000000000000001, // 13 dst 1 src0 0 src1 0; L9008
    0b000010000000000, // 14 dst 0 src0 0 src1 1; L9009
    0b000000010100000, // 15 dst 0 src0 5 src1 0; L9010
    0b000000000000111, // 16 dst 7 src0 0 src1 0; L9011
    0b000001000100000, // 17 dst 0 src0 17 src1 0; L9012
    0b011000000000000, // 18 dst 0 src0 0 src1 12; L9013
    0b000000110000000, // 19 dst 0 src0 12 src1 0; L9014
    0b000000000000010, // 20 dst 2 src0 0 src1 0; L9015
    0b000000000000100, // 21 dst 4 src0 0 src1 0; L9016
    0b000000001100000, // 22 dst 0 src0 3 src1 0; L9017
    0b000100000000010, // 23 dst 2 src0 0 src1 2; L9018
    0b001110011000110, // 24 dst 6 src0 6 src1 7; L9019
    0b001110100001000, // 25 dst 8 src0 8 src1 7; L9020
    0b000110011000110, // 26 dst 6 src0 6 src1 3; L9021
    0b000001000011000, // 27 dst 24 src0 16 src1 0; L9022
    0b000110010000100, // 28 dst 4 src0 4 src1 3; L9023
    0b001100000000110, // 29 dst 6 src0 0 src1 6; L9024
    0b000000010000110, // 30 dst 6 src0 4 src1 0; L9025
    0b000001000110000, // 31 dst 16 src0 17 src1 0; L9026
];

/// Src0Index/Src1Index: entry -> bits 88:77 (src0) or 120:109 (src1):
/// VertStride, Width, HorzStride, AddrMode, SrcMod from MSB to LSB.
/// Source: 000_5e6e9c0c4071cf6e.txt lines 9031-9065; equal to [ext: Mesa brw_eu_compact.c g45_src_index_table].
pub const SRC: [u16; 32] = [
    0b000000000000, //  0 <0;1,0>; L9031
    0b010001101000, //  1 <8;8,1>; L9032
    0b010110001000, //  2 <16;16,1>; L9033
    0b011010010000, //  3 <32;16,2>; L9034
    0b001101001000, //  4 <4;4,1>; L9035
    0b010110001010, //  5 <16;16,1> neg; L9036
    0b010101110000, //  6 <16;8,2>; L9037
    0b011001111000, //  7 <32;8,4>; L9041
    0b001000101000, //  8 <2;2,1>; L9042
    0b000000101000, //  9 <0;2,1>; L9043
    0b010001010000, // 10 <8;4,2>; L9044
    0b111101101100, // 11 <VxH;8,1> ind; L9045
    0b010110001100, // 12 <16;16,1> ind; L9046
    0b010001101100, // 13 <8;8,1> ind; L9047
    0b011010010100, // 14 <32;16,2> ind; L9048
    0b010001001100, // 15 <8;4,1> ind; L9049
    0b001100101000, // 16 <4;2,1>; L9050
    0b000000000010, // 17 <0;1,0> neg; L9051
    0b111101001100, // 18 <VxH;4,1> ind; L9052
    0b011001101000, // 19 <32;8,1>; L9053
    0b010101001000, // 20 <16;4,1>; L9054
    0b000000000100, // 21 <0;1,0> ind; L9055
    0b000000101100, // 22 <0;2,1> ind; L9056
    0b010001101010, // 23 <8;8,1> neg; L9057
    0b000000111000, // 24 <0;2,4>; L9058
    0b010101011000, // 25 <16;4,4>; L9059
    0b000100100000, // 26 <1;2,0>; L9060
    0b010110000000, // 27 <16;16,0>; L9061
    0b010000000100, // 28 <8;1,0> ind; L9062
    0b010000111000, // 29 <8;2,4>; L9063
    0b000101100000, // 30 <1;8,0>; L9064
    0b111101110100, // 31 <VxH;8,2> ind; L9065
];
