//! Control-flow instructions: 64-bit words at the start of a program.
//!
//! Three encodings share the 64 bits (002 lines 7614-7904). CF_ALU_WORD1's 4-bit CF_INST
//! sits at `[29:26]` and every ALU opcode (8-15) sets bit 29; the other two put a 7-bit
//! CF_INST at `[29:23]` whose bit 29 is then zero, so bit 29 tells the ALU form apart
//! (the same test as Mesa `src/gallium/drivers/r600/sb/sb_bc_decoder.cpp`).

use crate::{DecodeError, bit, field, put};

/// CF_INST values of the CF_WORD0/1 form (002 lines 7676-7704; per-opcode pages
/// 2382-2955). JUMP is 10 per the field table (7683); the JUMP page's "0x10" (2564)
/// is a misprint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CfOp {
    Nop = 0,
    Tex = 1,
    Vtx = 2,
    VtxTc = 3,
    LoopStart = 4,
    LoopEnd = 5,
    LoopStartDx10 = 6,
    LoopStartNoAl = 7,
    LoopContinue = 8,
    LoopBreak = 9,
    Jump = 10,
    Push = 11,
    PushElse = 12,
    Else = 13,
    Pop = 14,
    PopJump = 15,
    PopPush = 16,
    PopPushElse = 17,
    Call = 18,
    CallFs = 19,
    Return = 20,
    EmitVertex = 21,
    EmitCutVertex = 22,
    CutVertex = 23,
    Kill = 24,
    WaitAck = 26,
}

impl CfOp {
    /// 25, 27 and 28-31 are reserved (002 line 7703); 32 and up belong to the export form.
    pub fn from_bits(v: u32) -> Option<Self> {
        use CfOp::*;
        Some(match v {
            0 => Nop,
            1 => Tex,
            2 => Vtx,
            3 => VtxTc,
            4 => LoopStart,
            5 => LoopEnd,
            6 => LoopStartDx10,
            7 => LoopStartNoAl,
            8 => LoopContinue,
            9 => LoopBreak,
            10 => Jump,
            11 => Push,
            12 => PushElse,
            13 => Else,
            14 => Pop,
            15 => PopJump,
            16 => PopPush,
            17 => PopPushElse,
            18 => Call,
            19 => CallFs,
            20 => Return,
            21 => EmitVertex,
            22 => EmitCutVertex,
            23 => CutVertex,
            24 => Kill,
            26 => WaitAck,
            _ => return None,
        })
    }

    /// The manual's mnemonic without the `CF_INST_` prefix.
    pub fn name(self) -> &'static str {
        use CfOp::*;
        match self {
            Nop => "NOP",
            Tex => "TEX",
            Vtx => "VTX",
            VtxTc => "VTX_TC",
            LoopStart => "LOOP_START",
            LoopEnd => "LOOP_END",
            LoopStartDx10 => "LOOP_START_DX10",
            LoopStartNoAl => "LOOP_START_NO_AL",
            LoopContinue => "LOOP_CONTINUE",
            LoopBreak => "LOOP_BREAK",
            Jump => "JUMP",
            Push => "PUSH",
            PushElse => "PUSH_ELSE",
            Else => "ELSE",
            Pop => "POP",
            PopJump => "POP_JUMP",
            PopPush => "POP_PUSH",
            PopPushElse => "POP_PUSH_ELSE",
            Call => "CALL",
            CallFs => "CALL_FS",
            Return => "RETURN",
            EmitVertex => "EMIT_VERTEX",
            EmitCutVertex => "EMIT_CUT_VERTEX",
            CutVertex => "CUT_VERTEX",
            Kill => "KILL",
            WaitAck => "WAIT_ACK",
        }
    }
}

/// CF_WORD0/1 (002 lines 7624-7714).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CfWord {
    /// W0 `[31:0]`: clause or jump address in 8-byte units.
    pub addr: u32,
    /// W1 `[2:0]`.
    pub pop_count: u8,
    /// W1 `[7:3]`: loop or boolean constant index.
    pub cf_const: u8,
    /// W1 `[9:8]`: 0 ACTIVE, 1 FALSE, 2 BOOL, 3 NOT_BOOL (7646-7652).
    pub cond: u8,
    /// W1 `[12:10]` with COUNT_3 (W1 bit 19) as bit 3: instruction count minus one (7654-7658).
    pub count: u8,
    /// W1 `[18:13]`.
    pub call_count: u8,
    /// W1 bit 21.
    pub end_of_program: bool,
    /// W1 bit 22.
    pub valid_pixel_mode: bool,
    /// W1 `[29:23]`.
    pub op: CfOp,
    /// W1 bit 30.
    pub whole_quad_mode: bool,
    /// W1 bit 31.
    pub barrier: bool,
}

/// CF_INST values of CF_ALU_WORD1 `[29:26]` (002 lines 7750-7760; pages 2245-2380).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CfAluOp {
    Alu = 8,
    AluPushBefore = 9,
    AluPopAfter = 10,
    AluPop2After = 11,
    AluContinue = 13,
    AluBreak = 14,
    AluElseAfter = 15,
}

impl CfAluOp {
    /// 12 is reserved (002 line 7758); 0-7 cannot occur (bit 29 is set).
    pub fn from_bits(v: u32) -> Option<Self> {
        use CfAluOp::*;
        Some(match v {
            8 => Alu,
            9 => AluPushBefore,
            10 => AluPopAfter,
            11 => AluPop2After,
            13 => AluContinue,
            14 => AluBreak,
            15 => AluElseAfter,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        use CfAluOp::*;
        match self {
            Alu => "ALU",
            AluPushBefore => "ALU_PUSH_BEFORE",
            AluPopAfter => "ALU_POP_AFTER",
            AluPop2After => "ALU_POP2_AFTER",
            AluContinue => "ALU_CONTINUE",
            AluBreak => "ALU_BREAK",
            AluElseAfter => "ALU_ELSE_AFTER",
        }
    }
}

/// CF_ALU_WORD0/1 (002 lines 7715-7775).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CfAlu {
    /// W0 `[21:0]`: clause address in 8-byte units.
    pub addr: u32,
    /// W0 `[25:22]`, `[29:26]`: constant buffer of each kcache window.
    pub kcache_bank: [u8; 2],
    /// W0 `[31:30]`, W1 `[1:0]`: 0 NOP, 1 LOCK_1, 2 LOCK_2, 3 LOCK_LOOP_INDEX.
    pub kcache_mode: [u8; 2],
    /// W1 `[9:2]`, `[17:10]`: first locked line, in units of 16 constants.
    pub kcache_addr: [u8; 2],
    /// W1 `[24:18]`: number of 64-bit slots (literals included) minus one.
    pub count: u8,
    /// W1 bit 25 (R700's ALT_CONST; R600's USES_WATERFALL, cf. 002 line 831).
    pub alt_const: bool,
    /// W1 `[29:26]`.
    pub op: CfAluOp,
    /// W1 bit 30.
    pub whole_quad_mode: bool,
    /// W1 bit 31.
    pub barrier: bool,
}

/// CF_INST values of the CF_ALLOC_EXPORT form (002 lines 7830-7843; pages 2509-2818).
/// MEM_STREAM3 is 35 per the field table; its page's "0x32" (2818) is a misprint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ExportOp {
    MemStream0 = 32,
    MemStream1 = 33,
    MemStream2 = 34,
    MemStream3 = 35,
    MemScratch = 36,
    MemReduction = 37,
    MemRing = 38,
    Export = 39,
    ExportDone = 40,
    MemExport = 58,
}

impl ExportOp {
    pub fn from_bits(v: u32) -> Option<Self> {
        use ExportOp::*;
        Some(match v {
            32 => MemStream0,
            33 => MemStream1,
            34 => MemStream2,
            35 => MemStream3,
            36 => MemScratch,
            37 => MemReduction,
            38 => MemRing,
            39 => Export,
            40 => ExportDone,
            58 => MemExport,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        use ExportOp::*;
        match self {
            MemStream0 => "MEM_STREAM0",
            MemStream1 => "MEM_STREAM1",
            MemStream2 => "MEM_STREAM2",
            MemStream3 => "MEM_STREAM3",
            MemScratch => "MEM_SCRATCH",
            MemReduction => "MEM_REDUCTION",
            MemRing => "MEM_RING",
            Export => "EXPORT",
            ExportDone => "EXPORT_DONE",
            MemExport => "MEM_EXPORT",
        }
    }

    /// EXPORT and EXPORT_DONE take the SWIZ second word, the MEM_* writes the BUF one
    /// (002 lines 7864-7866, 7880-7882).
    pub fn uses_swizzle(self) -> bool {
        matches!(self, ExportOp::Export | ExportOp::ExportDone)
    }
}

/// The instruction-specific half of CF_ALLOC_EXPORT_WORD1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExportWord1 {
    /// CF_ALLOC_EXPORT_WORD1_BUF: ARRAY_SIZE `[11:0]`, COMP_MASK `[15:12]` (002 lines 7864-7875).
    Buf { array_size: u16, comp_mask: u8 },
    /// CF_ALLOC_EXPORT_WORD1_SWIZ: SEL_X..SEL_W at `[2:0]`..`[11:9]`; 0-3 xyzw, 4 0.0, 5 1.0,
    /// 7 masked; 6 is reserved (002 lines 7880-7899).
    Swiz { sel: [u8; 4] },
}

/// CF_ALLOC_EXPORT_WORD0 + WORD1_{BUF,SWIZ} (002 lines 7776-7904).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CfExport {
    /// W0 `[12:0]`.
    pub array_base: u16,
    /// W0 `[14:13]`: EXPORT: 0 PIXEL, 1 POS, 2 PARAM (3 reserved); MEM: 0 WRITE, 1 WRITE_IND, 2 READ, 3 READ_IND.
    pub kind: u8,
    /// W0 `[21:15]`.
    pub rw_gpr: u8,
    /// W0 bit 22.
    pub rw_rel: bool,
    /// W0 `[29:23]`.
    pub index_gpr: u8,
    /// W0 `[31:30]`: dwords per element minus one.
    pub elem_size: u8,
    pub word1: ExportWord1,
    /// W1 `[20:17]`.
    pub burst_count: u8,
    /// W1 bit 21.
    pub end_of_program: bool,
    /// W1 bit 22.
    pub valid_pixel_mode: bool,
    /// W1 `[29:23]`.
    pub op: ExportOp,
    /// W1 bit 30.
    pub whole_quad_mode: bool,
    /// W1 bit 31.
    pub barrier: bool,
}

/// One control-flow instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CfInst {
    Word(CfWord),
    Alu(CfAlu),
    Export(CfExport),
}

impl CfInst {
    /// Decodes the 64-bit pair (word0 at the lower address).
    pub fn decode(w0: u32, w1: u32) -> Result<Self, DecodeError> {
        if bit(w1, 29) {
            let opv = field(w1, 26, 29);
            let op = CfAluOp::from_bits(opv).ok_or(DecodeError::ReservedOpcode {
                format: "CF_ALU_WORD1",
                opcode: opv,
            })?;
            return Ok(CfInst::Alu(CfAlu {
                addr: field(w0, 0, 21),
                kcache_bank: [field(w0, 22, 25) as u8, field(w0, 26, 29) as u8],
                kcache_mode: [field(w0, 30, 31) as u8, field(w1, 0, 1) as u8],
                kcache_addr: [field(w1, 2, 9) as u8, field(w1, 10, 17) as u8],
                count: field(w1, 18, 24) as u8,
                alt_const: bit(w1, 25),
                op,
                whole_quad_mode: bit(w1, 30),
                barrier: bit(w1, 31),
            }));
        }
        let opv = field(w1, 23, 29);
        if let Some(op) = CfOp::from_bits(opv) {
            // W1 bit 20 is reserved (002 line 7659).
            if bit(w1, 20) {
                return Err(DecodeError::ReservedBits {
                    word: "CF_WORD1",
                    bits: 1 << 20,
                });
            }
            let cond = field(w1, 8, 9) as u8;
            return Ok(CfInst::Word(CfWord {
                addr: w0,
                pop_count: field(w1, 0, 2) as u8,
                cf_const: field(w1, 3, 7) as u8,
                cond,
                count: (field(w1, 10, 12) | field(w1, 19, 19) << 3) as u8,
                call_count: field(w1, 13, 18) as u8,
                end_of_program: bit(w1, 21),
                valid_pixel_mode: bit(w1, 22),
                op,
                whole_quad_mode: bit(w1, 30),
                barrier: bit(w1, 31),
            }));
        }
        let op = ExportOp::from_bits(opv).ok_or(DecodeError::ReservedOpcode {
            format: "CF_WORD1",
            opcode: opv,
        })?;
        let word1 = if op.uses_swizzle() {
            // SWIZ [16:12] must be zero (002 lines 7897-7898).
            if field(w1, 12, 16) != 0 {
                return Err(DecodeError::ReservedBits {
                    word: "CF_ALLOC_EXPORT_WORD1_SWIZ",
                    bits: w1 & 0x1_F000,
                });
            }
            let sel = [
                field(w1, 0, 2) as u8,
                field(w1, 3, 5) as u8,
                field(w1, 6, 8) as u8,
                field(w1, 9, 11) as u8,
            ];
            if let Some(&s) = sel.iter().find(|&&s| s == 6) {
                return Err(DecodeError::ReservedValue {
                    field: "SEL_*",
                    value: s as u32,
                });
            }
            ExportWord1::Swiz { sel }
        } else {
            // BUF bit 16 must be zero (002 lines 7873-7874).
            if bit(w1, 16) {
                return Err(DecodeError::ReservedBits {
                    word: "CF_ALLOC_EXPORT_WORD1_BUF",
                    bits: 1 << 16,
                });
            }
            ExportWord1::Buf {
                array_size: field(w1, 0, 11) as u16,
                comp_mask: field(w1, 12, 15) as u8,
            }
        };
        Ok(CfInst::Export(CfExport {
            array_base: field(w0, 0, 12) as u16,
            kind: field(w0, 13, 14) as u8,
            rw_gpr: field(w0, 15, 21) as u8,
            rw_rel: bit(w0, 22),
            index_gpr: field(w0, 23, 29) as u8,
            elem_size: field(w0, 30, 31) as u8,
            word1,
            burst_count: field(w1, 17, 20) as u8,
            end_of_program: bit(w1, 21),
            valid_pixel_mode: bit(w1, 22),
            op,
            whole_quad_mode: bit(w1, 30),
            barrier: bit(w1, 31),
        }))
    }

    /// Encodes to the 64-bit pair; the inverse of [`CfInst::decode`] for every field value
    /// that fits its field (wider values are masked).
    pub fn encode(&self) -> (u32, u32) {
        match *self {
            CfInst::Word(w) => (
                w.addr,
                put(w.pop_count as u32, 0, 2)
                    | put(w.cf_const as u32, 3, 7)
                    | put(w.cond as u32, 8, 9)
                    | put(w.count as u32, 10, 12)
                    | put(w.call_count as u32, 13, 18)
                    | put((w.count >> 3) as u32, 19, 19)
                    | put(w.end_of_program as u32, 21, 21)
                    | put(w.valid_pixel_mode as u32, 22, 22)
                    | put(w.op as u32, 23, 29)
                    | put(w.whole_quad_mode as u32, 30, 30)
                    | put(w.barrier as u32, 31, 31),
            ),
            CfInst::Alu(a) => (
                put(a.addr, 0, 21)
                    | put(a.kcache_bank[0] as u32, 22, 25)
                    | put(a.kcache_bank[1] as u32, 26, 29)
                    | put(a.kcache_mode[0] as u32, 30, 31),
                put(a.kcache_mode[1] as u32, 0, 1)
                    | put(a.kcache_addr[0] as u32, 2, 9)
                    | put(a.kcache_addr[1] as u32, 10, 17)
                    | put(a.count as u32, 18, 24)
                    | put(a.alt_const as u32, 25, 25)
                    | put(a.op as u32, 26, 29)
                    | put(a.whole_quad_mode as u32, 30, 30)
                    | put(a.barrier as u32, 31, 31),
            ),
            CfInst::Export(e) => {
                let w0 = put(e.array_base as u32, 0, 12)
                    | put(e.kind as u32, 13, 14)
                    | put(e.rw_gpr as u32, 15, 21)
                    | put(e.rw_rel as u32, 22, 22)
                    | put(e.index_gpr as u32, 23, 29)
                    | put(e.elem_size as u32, 30, 31);
                let lo = match e.word1 {
                    ExportWord1::Buf {
                        array_size,
                        comp_mask,
                    } => put(array_size as u32, 0, 11) | put(comp_mask as u32, 12, 15),
                    ExportWord1::Swiz { sel } => {
                        put(sel[0] as u32, 0, 2)
                            | put(sel[1] as u32, 3, 5)
                            | put(sel[2] as u32, 6, 8)
                            | put(sel[3] as u32, 9, 11)
                    }
                };
                let w1 = lo
                    | put(e.burst_count as u32, 17, 20)
                    | put(e.end_of_program as u32, 21, 21)
                    | put(e.valid_pixel_mode as u32, 22, 22)
                    | put(e.op as u32, 23, 29)
                    | put(e.whole_quad_mode as u32, 30, 30)
                    | put(e.barrier as u32, 31, 31);
                (w0, w1)
            }
        }
    }

    /// The BARRIER bit ("all prior instructions must complete before this instruction
    /// executes", 002 lines 7710-7713).
    pub fn barrier(&self) -> bool {
        match self {
            CfInst::Word(w) => w.barrier,
            CfInst::Alu(a) => a.barrier,
            CfInst::Export(e) => e.barrier,
        }
    }

    /// Whether this instruction ends the CF program (ALU words have no EOP bit).
    pub fn end_of_program(&self) -> bool {
        match self {
            CfInst::Word(w) => w.end_of_program,
            CfInst::Alu(_) => false,
            CfInst::Export(e) => e.end_of_program,
        }
    }
}
