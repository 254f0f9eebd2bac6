//! Fetch instructions: 128 bits each, TEX_WORD0-2 or VTX_WORD0-2 plus a zero doubleword
//! (002 lines 8245-8623).

use crate::{DecodeError, bit, field, put};

/// TEX_INST names by opcode (002 lines 8509-8546; pages 7053-7485). 13 is reserved.
/// GET_LERP_FACTORS' page (7095) says 5, but the field table gives 5 to
/// GET_NUMBER_OF_SAMPLES and 9 to GET_LERP; the field table is followed.
/// 15 is the field table's unnamed "Fetch4/Load4 Instruction for DX 10.1" (8528).
pub fn tex_op_name(op: u8) -> Option<&'static str> {
    Some(match op {
        0 => "VTX_FETCH",
        1 => "VTX_SEMANTIC",
        2 => "MEM",
        3 => "LD",
        4 => "GET_TEXTURE_RESINFO",
        5 => "GET_NUMBER_OF_SAMPLES",
        6 => "GET_COMP_TEX_LOD",
        7 => "GET_GRADIENTS_H",
        8 => "GET_GRADIENTS_V",
        9 => "GET_LERP",
        10 => "KEEP_GRADIENTS",
        11 => "SET_GRADIENTS_H",
        12 => "SET_GRADIENTS_V",
        14 => "SET_CUBEMAP_INDEX",
        15 => "FETCH4",
        16 => "SAMPLE",
        17 => "SAMPLE_L",
        18 => "SAMPLE_LB",
        19 => "SAMPLE_LZ",
        20 => "SAMPLE_G",
        21 => "SAMPLE_G_L",
        22 => "SAMPLE_G_LB",
        23 => "SAMPLE_G_LZ",
        24 => "SAMPLE_C",
        25 => "SAMPLE_C_L",
        26 => "SAMPLE_C_LB",
        27 => "SAMPLE_C_LZ",
        28 => "SAMPLE_C_G",
        29 => "SAMPLE_C_G_L",
        30 => "SAMPLE_C_G_LB",
        31 => "SAMPLE_C_G_LZ",
        _ => return None,
    })
}

/// TEX_WORD0-2 (002 lines 8506-8623).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TexInst {
    /// W0 `[4:0]`.
    pub op: u8,
    /// W0 bit 5.
    pub bc_frac_mode: bool,
    /// W0 bit 7 (bit 6 reserved).
    pub fetch_whole_quad: bool,
    /// W0 `[15:8]`.
    pub resource_id: u8,
    /// W0 `[22:16]`.
    pub src_gpr: u8,
    /// W0 bit 23.
    pub src_rel: bool,
    /// W0 bit 24 (`[31:25]` reserved).
    pub alt_const: bool,
    /// W1 `[6:0]`.
    pub dst_gpr: u8,
    /// W1 bit 7 (bit 8 reserved).
    pub dst_rel: bool,
    /// W1 `[11:9]`, `[14:12]`, `[17:15]`, `[20:18]`: 0-3 xyzw, 4 0.0, 5 1.0, 7 masked.
    pub dst_sel: [u8; 4],
    /// W1 `[27:21]`: S3.4 two's complement.
    pub lod_bias: u8,
    /// W1 bits 28-31: 0 unnormalised, 1 normalised.
    pub coord_type: [bool; 4],
    /// W2 `[4:0]`, `[9:5]`, `[14:10]`: signed texel offsets.
    pub offset: [u8; 3],
    /// W2 `[19:15]`.
    pub sampler_id: u8,
    /// W2 `[22:20]`, `[25:23]`, `[28:26]`, `[31:29]`.
    pub src_sel: [u8; 4],
}

fn sel4(w: u32, lo: u32) -> [u8; 4] {
    [
        field(w, lo, lo + 2) as u8,
        field(w, lo + 3, lo + 5) as u8,
        field(w, lo + 6, lo + 8) as u8,
        field(w, lo + 9, lo + 11) as u8,
    ]
}

fn put_sel4(s: [u8; 4], lo: u32) -> u32 {
    (0..4)
        .map(|i| put(s[i] as u32, lo + 3 * i as u32, lo + 3 * i as u32 + 2))
        .fold(0, |a, b| a | b)
}

/// Destination/source selects: 6 is reserved (002 lines 7893, 8397).
fn check_sel(s: [u8; 4], name: &'static str) -> Result<(), DecodeError> {
    match s.iter().find(|&&v| v == 6) {
        Some(&v) => Err(DecodeError::ReservedValue {
            field: name,
            value: v as u32,
        }),
        None => Ok(()),
    }
}

fn check_pad(w3: u32, word: &'static str) -> Result<(), DecodeError> {
    // "plus a doubleword filled with zeros" (002 lines 8509, 8577; VTX: 8376, 8431).
    if w3 != 0 {
        return Err(DecodeError::ReservedBits { word, bits: w3 });
    }
    Ok(())
}

impl TexInst {
    pub fn decode(w: [u32; 4]) -> Result<Self, DecodeError> {
        let op = field(w[0], 0, 4) as u8;
        // TEX_INST 2 (MEM) words have their own layouts: crate::mem::MemInst.
        if tex_op_name(op).is_none() || op as u32 == crate::mem::INST_MEM {
            return Err(DecodeError::ReservedOpcode {
                format: "TEX_WORD0",
                opcode: op as u32,
            });
        }
        let r0 = w[0] & (1 << 6 | 0xFE00_0000);
        if r0 != 0 {
            return Err(DecodeError::ReservedBits {
                word: "TEX_WORD0",
                bits: r0,
            });
        }
        if bit(w[1], 8) {
            return Err(DecodeError::ReservedBits {
                word: "TEX_WORD1",
                bits: 1 << 8,
            });
        }
        check_pad(w[3], "TEX_WORD3")?;
        let dst_sel = sel4(w[1], 9);
        let src_sel = sel4(w[2], 20);
        check_sel(dst_sel, "DST_SEL_*")?;
        check_sel(src_sel, "SRC_SEL_*")?;
        Ok(TexInst {
            op,
            bc_frac_mode: bit(w[0], 5),
            fetch_whole_quad: bit(w[0], 7),
            resource_id: field(w[0], 8, 15) as u8,
            src_gpr: field(w[0], 16, 22) as u8,
            src_rel: bit(w[0], 23),
            alt_const: bit(w[0], 24),
            dst_gpr: field(w[1], 0, 6) as u8,
            dst_rel: bit(w[1], 7),
            dst_sel,
            lod_bias: field(w[1], 21, 27) as u8,
            coord_type: [bit(w[1], 28), bit(w[1], 29), bit(w[1], 30), bit(w[1], 31)],
            offset: [
                field(w[2], 0, 4) as u8,
                field(w[2], 5, 9) as u8,
                field(w[2], 10, 14) as u8,
            ],
            sampler_id: field(w[2], 15, 19) as u8,
            src_sel,
        })
    }

    pub fn encode(&self) -> [u32; 4] {
        let w0 = put(self.op as u32, 0, 4)
            | put(self.bc_frac_mode as u32, 5, 5)
            | put(self.fetch_whole_quad as u32, 7, 7)
            | put(self.resource_id as u32, 8, 15)
            | put(self.src_gpr as u32, 16, 22)
            | put(self.src_rel as u32, 23, 23)
            | put(self.alt_const as u32, 24, 24);
        let ct = self.coord_type;
        let w1 = put(self.dst_gpr as u32, 0, 6)
            | put(self.dst_rel as u32, 7, 7)
            | put_sel4(self.dst_sel, 9)
            | put(self.lod_bias as u32, 21, 27)
            | (ct[0] as u32) << 28
            | (ct[1] as u32) << 29
            | (ct[2] as u32) << 30
            | (ct[3] as u32) << 31;
        let w2 = put(self.offset[0] as u32, 0, 4)
            | put(self.offset[1] as u32, 5, 9)
            | put(self.offset[2] as u32, 10, 14)
            | put(self.sampler_id as u32, 15, 19)
            | put_sel4(self.src_sel, 20);
        [w0, w1, w2, 0]
    }
}

/// VTX_WORD0-2 for VTX_INST FETCH (0) and SEMANTIC (1) (002 lines 8251-8499).
/// VTX_INST 2 (MEM, 8624-8884) has its own layouts: [`crate::mem::MemInst`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VtxInst {
    /// W0 `[4:0]`: 0 FETCH, 1 SEMANTIC (8258-8262).
    pub op: u8,
    /// W0 `[6:5]`: 0 vertex data, 1 instance data, 2 no index offset; 3 is not listed (8264-8267).
    pub fetch_type: u8,
    /// W0 bit 7.
    pub fetch_whole_quad: bool,
    /// W0 `[15:8]`.
    pub buffer_id: u8,
    /// W0 `[22:16]`.
    pub src_gpr: u8,
    /// W0 bit 23.
    pub src_rel: bool,
    /// W0 `[25:24]`.
    pub src_sel_x: u8,
    /// W0 `[31:26]`: bytes minus one.
    pub mega_fetch_count: u8,
    /// W1 `[7:0]`: FETCH: DST_GPR `[6:0]` and DST_REL bit 7 (VTX_WORD1_GPR); SEMANTIC:
    /// SEMANTIC_ID (VTX_WORD1_SEM, 8296). Bit 8 is reserved in both.
    pub dst_or_semantic: u8,
    /// W1 `[20:9]`.
    pub dst_sel: [u8; 4],
    /// W1 bit 21.
    pub use_const_fields: bool,
    /// W1 `[27:22]` (FMT_* table 8319-8352).
    pub data_format: u8,
    /// W1 `[29:28]`: 0 NORM, 1 INT, 2 SCALED; 3 is not listed (8455-8460).
    pub num_format_all: u8,
    /// W1 bit 30.
    pub format_comp_all: bool,
    /// W1 bit 31.
    pub srf_mode_all: bool,
    /// W2 `[15:0]`.
    pub offset: u16,
    /// W2 `[17:16]`: 0 none, 1 8in16, 2 8in32; 3 is not listed (8480-8484).
    pub endian_swap: u8,
    /// W2 bit 18.
    pub const_buf_no_stride: bool,
    /// W2 bit 19.
    pub mega_fetch: bool,
    /// W2 bit 20 (`[31:21]` reserved, 8494-8495).
    pub alt_const: bool,
}

impl VtxInst {
    pub fn decode(w: [u32; 4]) -> Result<Self, DecodeError> {
        let op = field(w[0], 0, 4) as u8;
        match op {
            0 | 1 => {}
            // VTX_INST_MEM words have their own layout: crate::mem::MemInst.
            2 => {
                return Err(DecodeError::ReservedOpcode {
                    format: "VTX_WORD0 (VTX_INST 2 is a MEM word: mem::MemInst)",
                    opcode: 2,
                });
            }
            _ => {
                return Err(DecodeError::ReservedOpcode {
                    format: "VTX_WORD0",
                    opcode: op as u32,
                });
            }
        }
        let fetch_type = field(w[0], 5, 6) as u8;
        if fetch_type == 3 {
            return Err(DecodeError::ReservedValue {
                field: "FETCH_TYPE",
                value: 3,
            });
        }
        if bit(w[1], 8) {
            return Err(DecodeError::ReservedBits {
                word: "VTX_WORD1",
                bits: 1 << 8,
            });
        }
        let num_format_all = field(w[1], 28, 29) as u8;
        if num_format_all == 3 {
            return Err(DecodeError::ReservedValue {
                field: "NUM_FORMAT_ALL",
                value: 3,
            });
        }
        let endian_swap = field(w[2], 16, 17) as u8;
        if endian_swap == 3 {
            return Err(DecodeError::ReservedValue {
                field: "ENDIAN_SWAP",
                value: 3,
            });
        }
        if w[2] >> 21 != 0 {
            return Err(DecodeError::ReservedBits {
                word: "VTX_WORD2",
                bits: w[2] & 0xFFE0_0000,
            });
        }
        check_pad(w[3], "VTX_WORD3")?;
        let dst_sel = sel4(w[1], 9);
        check_sel(dst_sel, "DST_SEL_*")?;
        Ok(VtxInst {
            op,
            fetch_type,
            fetch_whole_quad: bit(w[0], 7),
            buffer_id: field(w[0], 8, 15) as u8,
            src_gpr: field(w[0], 16, 22) as u8,
            src_rel: bit(w[0], 23),
            src_sel_x: field(w[0], 24, 25) as u8,
            mega_fetch_count: field(w[0], 26, 31) as u8,
            dst_or_semantic: field(w[1], 0, 7) as u8,
            dst_sel,
            use_const_fields: bit(w[1], 21),
            data_format: field(w[1], 22, 27) as u8,
            num_format_all,
            format_comp_all: bit(w[1], 30),
            srf_mode_all: bit(w[1], 31),
            offset: field(w[2], 0, 15) as u16,
            endian_swap,
            const_buf_no_stride: bit(w[2], 18),
            mega_fetch: bit(w[2], 19),
            alt_const: bit(w[2], 20),
        })
    }

    pub fn encode(&self) -> [u32; 4] {
        let w0 = put(self.op as u32, 0, 4)
            | put(self.fetch_type as u32, 5, 6)
            | put(self.fetch_whole_quad as u32, 7, 7)
            | put(self.buffer_id as u32, 8, 15)
            | put(self.src_gpr as u32, 16, 22)
            | put(self.src_rel as u32, 23, 23)
            | put(self.src_sel_x as u32, 24, 25)
            | put(self.mega_fetch_count as u32, 26, 31);
        let w1 = put(self.dst_or_semantic as u32, 0, 7)
            | put_sel4(self.dst_sel, 9)
            | put(self.use_const_fields as u32, 21, 21)
            | put(self.data_format as u32, 22, 27)
            | put(self.num_format_all as u32, 28, 29)
            | put(self.format_comp_all as u32, 30, 30)
            | put(self.srf_mode_all as u32, 31, 31);
        let w2 = put(self.offset as u32, 0, 15)
            | put(self.endian_swap as u32, 16, 17)
            | put(self.const_buf_no_stride as u32, 18, 18)
            | put(self.mega_fetch as u32, 19, 19)
            | put(self.alt_const as u32, 20, 20);
        [w0, w1, w2, 0]
    }
}
