//! The MEM words of fetch clauses: VTX_INST/TEX_INST 2 (VTX_INST_MEM, 002 lines 8261,
//! 8514) with a sub-opcode in MEM_OP `[10:8]` that picks one of three layouts:
//! MEM_RD_WORD0-2 for memory reads (scratch, reduction, scatter; 002 lines 8624-8754,
//! chapter 7 lines 2159-2218), MEM_DSW_WORD0-2 and MEM_DSR_WORD0-2 for local data share
//! writes and reads (002 lines 8755-8884, chapter 8 lines 2219-2236). Like TEX and VTX
//! words they take 128 bits, the fourth doubleword zero (002 lines 2161, 7600-7602).
//!
//! Memory reads are started by VTX/VTX_TC, LDS clauses by TEX (002 lines 2161, 2221);
//! which clause holds which kind, and that the kinds do not mix (2169), is checked by
//! [`crate::validate`], not by decoding: the words decode the same in either clause.
//!
//! R700 has no MEM_RAT, no GDS and no ALU-side LDS (those are Evergreen's; Evergreen
//! reuses MEM_OP 4 for GDS, cf. Multi2Sim `src/arch/evergreen/asm` MEM_GDS_WORD0).
//! MEM_OP 3, 6 and 7 are not R700 operations (8647-8653) and decode as
//! [`DecodeError::ReservedValue`].

use crate::{DecodeError, bit, field, put};

/// MEM_OP values (002 lines 8647-8653).
pub const MEM_OP_RD_SCRATCH: u8 = 0;
pub const MEM_OP_RD_REDUC: u8 = 1;
pub const MEM_OP_RD_SCATTER: u8 = 2;
pub const MEM_OP_LOCAL_DS_WRITE: u8 = 4;
pub const MEM_OP_LOCAL_DS_READ: u8 = 5;

/// The opcode in `[4:0]` of a fetch word that makes it a MEM word (VTX_INST_MEM,
/// TEX_INST_MEM: 002 lines 8261, 8514).
pub const INST_MEM: u32 = 2;

/// MEM_RD_WORD0-2 (002 lines 8630-8754).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemRead {
    /// W0 `[6:5]`: dwords per element minus one.
    pub elem_size: u8,
    /// W0 bit 7.
    pub fetch_whole_quad: bool,
    /// W0 `[10:8]`: 0 scratch, 1 reduction, 2 scatter.
    pub mem_op: u8,
    /// W0 bit 11.
    pub uncached: bool,
    /// W0 bit 12.
    pub indexed: bool,
    /// W0 `[22:16]`.
    pub src_gpr: u8,
    /// W0 bit 23 (loop index).
    pub src_rel: bool,
    /// W0 `[25:24]`.
    pub src_sel_x: u8,
    /// W0 `[29:26]`: reads minus one (RV710/730/740 only, 002 line 2215).
    pub burst_count: u8,
    /// W1 `[6:0]`.
    pub dst_gpr: u8,
    /// W1 bit 7.
    pub dst_rel: bool,
    /// W1 `[11:9]`..`[20:18]`: 0-3 xyzw, 4 0.0, 5 1.0, 7 masked.
    pub dst_sel: [u8; 4],
    /// W1 `[27:22]`.
    pub data_format: u8,
    /// W1 `[29:28]`.
    pub num_format_all: u8,
    /// W1 bit 30.
    pub format_comp_all: bool,
    /// W1 bit 31.
    pub srf_mode_all: bool,
    /// W2 `[12:0]`.
    pub array_base: u16,
    /// W2 `[17:16]`.
    pub endian_swap: u8,
    /// W2 bit 19 ("must be 1 for memory reads", 8749).
    pub mega_fetch: bool,
    /// W2 `[31:20]`.
    pub array_size: u16,
}

/// MEM_DSW_WORD0-2 (002 lines 8759-8827).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DsWrite {
    /// W0 `[17:11]`.
    pub src_gpr: u8,
    /// W0 `[19:18]`: 0 none, 1 loop index, 2 global.
    pub src_rel_mode: u8,
    /// W0 `[22:20]`..`[31:29]`: 0-3 xyzw, 4 0.0, 5 1.0, 7 masked (not written).
    pub src_sel: [u8; 4],
    /// W1 `[7:0]`: DST_INDEX `[5:0]` with DST_INDEX_EXT `[7:6]` as its high bits, in dwords.
    pub dst_index: u8,
    /// W1 `[24:16]`: DST_STRIDE `[22:16]` with DST_STRIDE_EXT `[24:23]` as its high bits.
    pub dst_stride: u16,
    /// W1 bit 31.
    pub simd_wave_rel: bool,
    /// W2 `[3:0]`.
    pub burst_count: u8,
}

/// MEM_DSR_WORD0-2 (002 lines 8829-8884).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DsRead {
    /// W0 `[17:11]`.
    pub src_gpr: u8,
    /// W0 `[19:18]`.
    pub src_rel_mode: u8,
    /// W0 `[22:20]`, `[25:23]`: 0-3 xyzw, 4 0.0, 5 1.0 (6 and 7 are not listed).
    pub src_sel: [u8; 2],
    /// W0 `[31:26]`.
    pub rd_offset: u8,
    /// W1 `[6:0]`.
    pub dst_gpr: u8,
    /// W1 `[8:7]`.
    pub dst_rel_mode: u8,
    /// W1 bits 9-12: write enables for X, Y, Z, W.
    pub dst_write: [bool; 4],
    /// W1 bit 16.
    pub broadcast: bool,
    /// W1 bit 17.
    pub waterfall: bool,
    /// W1 `[22:20]`: 0 none, 1 FFT permute, 2 dword select.
    pub mux_cntl: u8,
    /// W2 `[3:0]`.
    pub burst_count: u8,
}

/// One MEM word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemInst {
    Read(MemRead),
    DsWrite(DsWrite),
    DsRead(DsRead),
}

fn reserved(word: &'static str, w: u32, mask: u32) -> Result<(), DecodeError> {
    if w & mask != 0 {
        return Err(DecodeError::ReservedBits {
            word,
            bits: w & mask,
        });
    }
    Ok(())
}

fn not_listed(name: &'static str, v: u32, ok: impl Fn(u32) -> bool) -> Result<(), DecodeError> {
    if ok(v) {
        Ok(())
    } else {
        Err(DecodeError::ReservedValue {
            field: name,
            value: v,
        })
    }
}

fn sels(w: u32, lo: u32, n: usize) -> [u8; 4] {
    let mut s = [0; 4];
    for (i, v) in s.iter_mut().enumerate().take(n) {
        *v = field(w, lo + 3 * i as u32, lo + 3 * i as u32 + 2) as u8;
    }
    s
}

fn put_sels(s: &[u8], lo: u32) -> u32 {
    s.iter()
        .enumerate()
        .map(|(i, &v)| put(v as u32, lo + 3 * i as u32, lo + 3 * i as u32 + 2))
        .fold(0, |a, b| a | b)
}

impl MemInst {
    /// Whether a fetch word (either clause kind) is a MEM word.
    pub fn is_mem(w0: u32) -> bool {
        field(w0, 0, 4) == INST_MEM
    }

    /// MEM_OP's name as the manual spells it without `MEM_OP_`.
    pub fn op_name(&self) -> &'static str {
        match self {
            MemInst::Read(r) => match r.mem_op {
                MEM_OP_RD_SCRATCH => "RD_SCRATCH",
                MEM_OP_RD_REDUC => "RD_REDUC",
                _ => "RD_SCATTER",
            },
            MemInst::DsWrite(_) => "LOCAL_DS_WRITE",
            MemInst::DsRead(_) => "LOCAL_DS_READ",
        }
    }

    pub fn decode(w: [u32; 4]) -> Result<Self, DecodeError> {
        let op = field(w[0], 0, 4);
        if op != INST_MEM {
            return Err(DecodeError::ReservedOpcode {
                format: "MEM_RD/MEM_DSR/MEM_DSW WORD0 (VTX_INST must be 2)",
                opcode: op,
            });
        }
        // "plus a doubleword filled with zeros" (002 lines 2161, 7600-7602).
        reserved("MEM WORD3", w[3], u32::MAX)?;
        let mem_op = field(w[0], 8, 10);
        match mem_op as u8 {
            MEM_OP_RD_SCRATCH | MEM_OP_RD_REDUC | MEM_OP_RD_SCATTER => {
                // MEM_REQ_SIZE [14:13] "must be cleared for R700" (8658-8659), 15 and
                // [31:30] reserved (8660, 8679).
                reserved("MEM_RD_WORD0", w[0], 0xC000_E000)?;
                // W1 bits 8 and 21 reserved (8694, 8708).
                reserved("MEM_RD_WORD1", w[1], 1 << 8 | 1 << 21)?;
                // W2 [15:13] and 18 reserved (8739, 8746).
                reserved("MEM_RD_WORD2", w[2], 0xE000 | 1 << 18)?;
                let dst_sel = sels(w[1], 9, 4);
                for s in dst_sel {
                    not_listed("MEM_RD DST_SEL_*", s as u32, |v| v != 6)?;
                }
                let num_format_all = field(w[1], 28, 29);
                not_listed("MEM_RD NUM_FORMAT_ALL", num_format_all, |v| v < 3)?;
                let endian_swap = field(w[2], 16, 17);
                not_listed("MEM_RD ENDIAN_SWAP", endian_swap, |v| v < 3)?;
                Ok(MemInst::Read(MemRead {
                    elem_size: field(w[0], 5, 6) as u8,
                    fetch_whole_quad: bit(w[0], 7),
                    mem_op: mem_op as u8,
                    uncached: bit(w[0], 11),
                    indexed: bit(w[0], 12),
                    src_gpr: field(w[0], 16, 22) as u8,
                    src_rel: bit(w[0], 23),
                    src_sel_x: field(w[0], 24, 25) as u8,
                    burst_count: field(w[0], 26, 29) as u8,
                    dst_gpr: field(w[1], 0, 6) as u8,
                    dst_rel: bit(w[1], 7),
                    dst_sel,
                    data_format: field(w[1], 22, 27) as u8,
                    num_format_all: num_format_all as u8,
                    format_comp_all: bit(w[1], 30),
                    srf_mode_all: bit(w[1], 31),
                    array_base: field(w[2], 0, 12) as u16,
                    endian_swap: endian_swap as u8,
                    mega_fetch: bit(w[2], 19),
                    array_size: field(w[2], 20, 31) as u16,
                }))
            }
            MEM_OP_LOCAL_DS_WRITE => {
                // W0 [7:5] (8768), W1 [15:8] and [30:25] (8807, 8812), W2 [31:4] (8825).
                reserved("MEM_DSW_WORD0", w[0], 0xE0)?;
                reserved("MEM_DSW_WORD1", w[1], 0x7E00_FF00)?;
                reserved("MEM_DSW_WORD2", w[2], !0xF)?;
                let src_rel_mode = field(w[0], 18, 19);
                not_listed("MEM_DSW SRC_REL_MODE", src_rel_mode, |v| v < 3)?;
                let src_sel = sels(w[0], 20, 4);
                for s in src_sel {
                    not_listed("MEM_DSW SRC_SEL_*", s as u32, |v| v != 6)?;
                }
                Ok(MemInst::DsWrite(DsWrite {
                    src_gpr: field(w[0], 11, 17) as u8,
                    src_rel_mode: src_rel_mode as u8,
                    src_sel,
                    dst_index: field(w[1], 0, 7) as u8,
                    dst_stride: field(w[1], 16, 24) as u16,
                    simd_wave_rel: bit(w[1], 31),
                    burst_count: field(w[2], 0, 3) as u8,
                }))
            }
            MEM_OP_LOCAL_DS_READ => {
                // W0 [7:5] (8833), W1 [15:13], [19:18], [31:23] (8858, 8864, 8870), W2 [31:4] (8881).
                reserved("MEM_DSR_WORD0", w[0], 0xE0)?;
                reserved("MEM_DSR_WORD1", w[1], 0xFF8C_E000)?;
                reserved("MEM_DSR_WORD2", w[2], !0xF)?;
                let src_rel_mode = field(w[0], 18, 19);
                not_listed("MEM_DSR SRC_REL_MODE", src_rel_mode, |v| v < 3)?;
                let s = sels(w[0], 20, 2);
                for v in &s[..2] {
                    not_listed("MEM_DSR SRC_SEL_*", *v as u32, |v| v < 6)?;
                }
                let dst_rel_mode = field(w[1], 7, 8);
                not_listed("MEM_DSR DST_REL_MODE", dst_rel_mode, |v| v < 3)?;
                let mux_cntl = field(w[1], 20, 22);
                not_listed("MEM_DSR MUX_CNTL", mux_cntl, |v| v < 3)?;
                Ok(MemInst::DsRead(DsRead {
                    src_gpr: field(w[0], 11, 17) as u8,
                    src_rel_mode: src_rel_mode as u8,
                    src_sel: [s[0], s[1]],
                    rd_offset: field(w[0], 26, 31) as u8,
                    dst_gpr: field(w[1], 0, 6) as u8,
                    dst_rel_mode: dst_rel_mode as u8,
                    dst_write: [bit(w[1], 9), bit(w[1], 10), bit(w[1], 11), bit(w[1], 12)],
                    broadcast: bit(w[1], 16),
                    waterfall: bit(w[1], 17),
                    mux_cntl: mux_cntl as u8,
                    burst_count: field(w[2], 0, 3) as u8,
                }))
            }
            _ => Err(DecodeError::ReservedValue {
                field: "MEM_OP",
                value: mem_op,
            }),
        }
    }

    pub fn encode(&self) -> [u32; 4] {
        match *self {
            MemInst::Read(r) => {
                let w0 = INST_MEM
                    | put(r.elem_size as u32, 5, 6)
                    | put(r.fetch_whole_quad as u32, 7, 7)
                    | put(r.mem_op as u32, 8, 10)
                    | put(r.uncached as u32, 11, 11)
                    | put(r.indexed as u32, 12, 12)
                    | put(r.src_gpr as u32, 16, 22)
                    | put(r.src_rel as u32, 23, 23)
                    | put(r.src_sel_x as u32, 24, 25)
                    | put(r.burst_count as u32, 26, 29);
                let w1 = put(r.dst_gpr as u32, 0, 6)
                    | put(r.dst_rel as u32, 7, 7)
                    | put_sels(&r.dst_sel, 9)
                    | put(r.data_format as u32, 22, 27)
                    | put(r.num_format_all as u32, 28, 29)
                    | put(r.format_comp_all as u32, 30, 30)
                    | put(r.srf_mode_all as u32, 31, 31);
                let w2 = put(r.array_base as u32, 0, 12)
                    | put(r.endian_swap as u32, 16, 17)
                    | put(r.mega_fetch as u32, 19, 19)
                    | put(r.array_size as u32, 20, 31);
                [w0, w1, w2, 0]
            }
            MemInst::DsWrite(d) => {
                let w0 = INST_MEM
                    | put(MEM_OP_LOCAL_DS_WRITE as u32, 8, 10)
                    | put(d.src_gpr as u32, 11, 17)
                    | put(d.src_rel_mode as u32, 18, 19)
                    | put_sels(&d.src_sel, 20);
                let w1 = put(d.dst_index as u32, 0, 7)
                    | put(d.dst_stride as u32, 16, 24)
                    | put(d.simd_wave_rel as u32, 31, 31);
                [w0, w1, put(d.burst_count as u32, 0, 3), 0]
            }
            MemInst::DsRead(d) => {
                let w0 = INST_MEM
                    | put(MEM_OP_LOCAL_DS_READ as u32, 8, 10)
                    | put(d.src_gpr as u32, 11, 17)
                    | put(d.src_rel_mode as u32, 18, 19)
                    | put_sels(&d.src_sel, 20)
                    | put(d.rd_offset as u32, 26, 31);
                let we = d.dst_write;
                let w1 = put(d.dst_gpr as u32, 0, 6)
                    | put(d.dst_rel_mode as u32, 7, 8)
                    | (we[0] as u32) << 9
                    | (we[1] as u32) << 10
                    | (we[2] as u32) << 11
                    | (we[3] as u32) << 12
                    | put(d.broadcast as u32, 16, 16)
                    | put(d.waterfall as u32, 17, 17)
                    | put(d.mux_cntl as u32, 20, 22);
                [w0, w1, put(d.burst_count as u32, 0, 3), 0]
            }
        }
    }

    /// Whether this is a memory read (chapter 7) rather than an LDS access (chapter 8).
    pub fn is_memory_read(&self) -> bool {
        matches!(self, MemInst::Read(_))
    }
}
