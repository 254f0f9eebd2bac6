//! ALU instructions: ALU_WORD0 with ALU_WORD1_OP2 or ALU_WORD1_OP3 (002 lines 7905-8244),
//! grouped into VLIW instruction groups of up to five slots that end at LAST, followed by
//! zero, one or two 64-bit literal slots (002 lines 1228-1248).

use alloc::vec::Vec;

use crate::{DecodeError, bit, field, put};

/// One opcode's names. `llvm` is the mnemonic LLVM's R600 backend prints when it differs
/// from the manual's (R600Instructions.td asm strings), else the manual's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpInfo {
    pub opcode: u16,
    /// The manual's name without the `OP2_INST_` / `OP3_INST_` prefix.
    pub name: &'static str,
    /// What `llc -march=r600` prints.
    pub llvm: &'static str,
    /// Source operands read (OP2: 0-2; OP3: 3).
    pub srcs: u8,
}

const fn op(opcode: u16, name: &'static str, srcs: u8) -> OpInfo {
    OpInfo {
        opcode,
        name,
        llvm: name,
        srcs,
    }
}

const fn opl(opcode: u16, name: &'static str, llvm: &'static str, srcs: u8) -> OpInfo {
    OpInfo {
        opcode,
        name,
        llvm,
        srcs,
    }
}

/// ALU_WORD1_OP2 ALU_INST values (R700: `[17:7]`, 11 bits; see the note on [`AluInst`]).
/// Field table 002 lines 7988-8086 (0-104) and 8092-8115 (105-126, numbers lost in the
/// conversion; they follow in order, and the per-opcode pages confirm them: COS 111
/// line 3350, ASHR_INT 112 line 3138, LSHR_INT 113 line 4187, LSHL_INT 114 line 4171,
/// MULLO_INT 115 line 5141, MULHI_INT 116 line 5108, MULLO_UINT 117 line 5160,
/// MULHI_UINT 118 line 5125, RECIP_INT 119 line 6398, RECIP_UINT 120 line 6415,
/// LDEXP_64 122 line 4056, FRACT_64 123 line 3752, PRED_SETGT_64 124 line 5925,
/// PRED_SETE_64 125 line 5435, PRED_SETGE_64 126 line 5673; FLT_TO_UINT 121 also in
/// LLVM R600Instructions.td `FLT_TO_UINT_r600 <0x79>`). 74-79 are garbled in the field
/// table (8068-8072); their pages give PRED_SETE_PUSH_INT 74 (5580), PRED_SETGT_PUSH_INT
/// 75 (6071), PRED_SETGE_PUSH_INT 76 (5832), PRED_SETLE_PUSH_INT 79 (6135); 77/78 are
/// PRED_SETNE_PUSH_INT / PRED_SETLT_PUSH_INT in that order (8070-8071).
/// 84-95 and 127 and up are reserved.
pub static OP2: &[OpInfo] = &[
    op(0, "ADD", 2),
    // LLVM prints MUL as "MUL NON-IEEE" (R600Instructions.td `def MUL`).
    opl(1, "MUL", "MUL NON-IEEE", 2),
    op(2, "MUL_IEEE", 2),
    op(3, "MAX", 2),
    op(4, "MIN", 2),
    op(5, "MAX_DX10", 2),
    op(6, "MIN_DX10", 2),
    op(7, "FREXP_64", 2),
    op(8, "SETE", 2),
    op(9, "SETGT", 2),
    op(10, "SETGE", 2),
    op(11, "SETNE", 2),
    op(12, "SETE_DX10", 2),
    op(13, "SETGT_DX10", 2),
    op(14, "SETGE_DX10", 2),
    op(15, "SETNE_DX10", 2),
    op(16, "FRACT", 1),
    op(17, "TRUNC", 1),
    op(18, "CEIL", 1),
    op(19, "RNDNE", 1),
    op(20, "FLOOR", 1),
    op(21, "MOVA", 1),
    op(22, "MOVA_FLOOR", 1),
    op(23, "ADD_64", 2),
    op(24, "MOVA_INT", 1),
    op(25, "MOV", 1),
    op(26, "NOP", 0),
    op(27, "MUL_64", 2),
    op(28, "FLT64_TO_FLT32", 1),
    op(29, "FLT32_TO_FLT64", 1),
    op(30, "PRED_SETGT_UINT", 2),
    op(31, "PRED_SETGE_UINT", 2),
    op(32, "PRED_SETE", 2),
    op(33, "PRED_SETGT", 2),
    op(34, "PRED_SETGE", 2),
    op(35, "PRED_SETNE", 2),
    op(36, "PRED_SET_INV", 1),
    op(37, "PRED_SET_POP", 2),
    op(38, "PRED_SET_CLR", 0),
    op(39, "PRED_SET_RESTORE", 1),
    op(40, "PRED_SETE_PUSH", 2),
    op(41, "PRED_SETGT_PUSH", 2),
    op(42, "PRED_SETGE_PUSH", 2),
    op(43, "PRED_SETNE_PUSH", 2),
    op(44, "KILLE", 2),
    op(45, "KILLGT", 2),
    op(46, "KILLGE", 2),
    op(47, "KILLNE", 2),
    op(48, "AND_INT", 2),
    op(49, "OR_INT", 2),
    op(50, "XOR_INT", 2),
    op(51, "NOT_INT", 1),
    op(52, "ADD_INT", 2),
    op(53, "SUB_INT", 2),
    op(54, "MAX_INT", 2),
    op(55, "MIN_INT", 2),
    op(56, "MAX_UINT", 2),
    op(57, "MIN_UINT", 2),
    op(58, "SETE_INT", 2),
    op(59, "SETGT_INT", 2),
    op(60, "SETGE_INT", 2),
    op(61, "SETNE_INT", 2),
    op(62, "SETGT_UINT", 2),
    op(63, "SETGE_UINT", 2),
    op(64, "KILLGT_UINT", 2),
    op(65, "KILLGE_UINT", 2),
    op(66, "PRED_SETE_INT", 2),
    // LLVM's asm string for PRED_SETGT_INT reads "PRED_SETGE_INT" (R600Instructions.td
    // `def PRED_SETGT_INT : R600_2OP <0x43, "PRED_SETGE_INT", []>`).
    opl(67, "PRED_SETGT_INT", "PRED_SETGE_INT", 2),
    op(68, "PRED_SETGE_INT", 2),
    op(69, "PRED_SETNE_INT", 2),
    op(70, "KILLE_INT", 2),
    op(71, "KILLGT_INT", 2),
    op(72, "KILLGE_INT", 2),
    op(73, "KILLNE_INT", 2),
    op(74, "PRED_SETE_PUSH_INT", 2),
    op(75, "PRED_SETGT_PUSH_INT", 2),
    op(76, "PRED_SETGE_PUSH_INT", 2),
    op(77, "PRED_SETNE_PUSH_INT", 2),
    op(78, "PRED_SETLT_PUSH_INT", 2),
    op(79, "PRED_SETLE_PUSH_INT", 2),
    op(80, "DOT4", 2),
    op(81, "DOT4_IEEE", 2),
    op(82, "CUBE", 2),
    op(83, "MAX4", 1),
    op(96, "MOVA_GPR_INT", 1),
    op(97, "EXP_IEEE", 1),
    op(98, "LOG_CLAMPED", 1),
    op(99, "LOG_IEEE", 1),
    op(100, "RECIP_CLAMPED", 1),
    op(101, "RECIP_FF", 1),
    op(102, "RECIP_IEEE", 1),
    op(103, "RECIPSQRT_CLAMPED", 1),
    op(104, "RECIPSQRT_FF", 1),
    op(105, "RECIPSQRT_IEEE", 1),
    op(106, "SQRT_IEEE", 1),
    op(107, "FLT_TO_INT", 1),
    op(108, "INT_TO_FLT", 1),
    op(109, "UINT_TO_FLT", 1),
    op(110, "SIN", 1),
    op(111, "COS", 1),
    // LLVM names the shifts without "_INT" (R600Instructions.td ASHR/LSHR/LSHL_Common).
    opl(112, "ASHR_INT", "ASHR", 2),
    opl(113, "LSHR_INT", "LSHR", 2),
    opl(114, "LSHL_INT", "LSHL", 2),
    op(115, "MULLO_INT", 2),
    op(116, "MULHI_INT", 2),
    op(117, "MULLO_UINT", 2),
    // LLVM: MULHI_UINT_Common's asm string is "MULHI".
    opl(118, "MULHI_UINT", "MULHI", 2),
    op(119, "RECIP_INT", 1),
    op(120, "RECIP_UINT", 1),
    op(121, "FLT_TO_UINT", 1),
    op(122, "LDEXP_64", 2),
    op(123, "FRACT_64", 1),
    op(124, "PRED_SETGT_64", 2),
    op(125, "PRED_SETE_64", 2),
    op(126, "PRED_SETGE_64", 2),
];

/// ALU_WORD1_OP3 ALU_INST values (`[17:13]`; 002 lines 8186-8228, pages 3187-5090).
/// The field table's "CMNDGT_INT" (8210) is CNDGT_INT; chapter 9 calls the CND* ops
/// CMOV* (3187-3333). 0-7, 27 and 31 are reserved.
pub static OP3: &[OpInfo] = &[
    op(8, "MULADD_64", 3),
    op(9, "MULADD_64_M2", 3),
    op(10, "MULADD_64_M4", 3),
    op(11, "MULADD_64_D2", 3),
    op(12, "MUL_LIT", 3),
    op(13, "MUL_LIT_M2", 3),
    op(14, "MUL_LIT_M4", 3),
    op(15, "MUL_LIT_D2", 3),
    op(16, "MULADD", 3),
    op(17, "MULADD_M2", 3),
    op(18, "MULADD_M4", 3),
    op(19, "MULADD_D2", 3),
    op(20, "MULADD_IEEE", 3),
    op(21, "MULADD_IEEE_M2", 3),
    op(22, "MULADD_IEEE_M4", 3),
    op(23, "MULADD_IEEE_D2", 3),
    op(24, "CNDE", 3),
    op(25, "CNDGT", 3),
    op(26, "CNDGE", 3),
    op(28, "CNDE_INT", 3),
    op(29, "CNDGT_INT", 3),
    op(30, "CNDGE_INT", 3),
];

fn lookup(table: &'static [OpInfo], opcode: u32) -> Option<&'static OpInfo> {
    table.iter().find(|o| o.opcode as u32 == opcode)
}

/// SRC*_SEL special values (002 lines 8158-8168, 1408-1435).
pub mod sel {
    pub const KCACHE0: u16 = 128;
    /// 160, not the 144 of 002 line 1431 (the field table 7917 and kcache0's 32 entries agree).
    pub const KCACHE1: u16 = 160;
    pub const ONE_DBL_L: u16 = 244;
    pub const ONE_DBL_M: u16 = 245;
    pub const HALF_DBL_L: u16 = 246;
    pub const HALF_DBL_M: u16 = 247;
    pub const ZERO: u16 = 248;
    pub const ONE: u16 = 249;
    pub const ONE_INT: u16 = 250;
    pub const M_ONE_INT: u16 = 251;
    pub const HALF: u16 = 252;
    pub const LITERAL: u16 = 253;
    pub const PV: u16 = 254;
    pub const PS: u16 = 255;
    pub const CFILE: u16 = 256;
}

/// One source operand (ALU_WORD0 `[12:0]` / `[25:13]`, OP3 word1 `[12:0]` for src2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Src {
    /// 0-127 GPR, 128-191 kcache, 244-255 specials, 256-511 cfile; 192-243 are reserved.
    pub sel: u16,
    pub rel: bool,
    /// Element 0-3 (x, y, z, w).
    pub chan: u8,
    pub neg: bool,
    /// OP2 only (ALU_WORD1_OP2 bits 0 and 1); always false for src2 and for OP3.
    pub abs: bool,
}

/// OP2 or OP3 with the fields only that form has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AluForm {
    /// ALU_WORD1_OP2 (002 lines 7960-8137).
    Op2 {
        opcode: u16,
        update_exec_mask: bool,
        update_pred: bool,
        write_mask: bool,
        /// 0 off, 1 ×2, 2 ×4, 3 ÷2.
        omod: u8,
    },
    /// ALU_WORD1_OP3 (002 lines 8138-8244).
    Op3 { opcode: u8, src2: Src },
}

/// One ALU instruction slot.
///
/// R700's ALU_WORD1_OP2 has ALU_INST at `[17:7]` and OMOD at `[6:5]`: the manual's "`[17:8]`"
/// header (002 line 8040) is a leftover from R600, whose FOG_MERGE bit R700 dropped
/// (LLVM R600MCCodeEmitter.cpp shifts the opcode up one bit only for R600-family parts,
/// FeatureR600ALUInst; RV770 objects from llc carry it at bit 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AluInst {
    pub src0: Src,
    pub src1: Src,
    /// ALU_WORD0 `[28:26]`: 0-3 AR.x-w, 4 loop index, 5 global, 6 global+AR.x; 7 is not listed (7928-7935).
    pub index_mode: u8,
    /// ALU_WORD0 `[30:29]`: 0 off, 2 run if predicate 0, 3 run if 1; 1 reserved (7936-7941).
    pub pred_sel: u8,
    /// ALU_WORD0 bit 31.
    pub last: bool,
    pub form: AluForm,
    /// Word1 `[20:18]`: 0-5 (VEC_012..VEC_210 / SCL_210..SCL_221); 6 and 7 are not listed (8113-8122).
    pub bank_swizzle: u8,
    /// Word1 `[27:21]`.
    pub dst_gpr: u8,
    /// Word1 bit 28.
    pub dst_rel: bool,
    /// Word1 `[30:29]`.
    pub dst_chan: u8,
    /// Word1 bit 31.
    pub clamp: bool,
}

fn decode_src(w: u32, lo: u32) -> Result<Src, DecodeError> {
    let sel = field(w, lo, lo + 8) as u16;
    if (192..244).contains(&sel) {
        return Err(DecodeError::ReservedValue {
            field: "SRC*_SEL",
            value: sel as u32,
        });
    }
    Ok(Src {
        sel,
        rel: bit(w, lo + 9),
        chan: field(w, lo + 10, lo + 11) as u8,
        neg: bit(w, lo + 12),
        abs: false,
    })
}

fn encode_src(s: &Src, lo: u32) -> u32 {
    put(s.sel as u32, lo, lo + 8)
        | put(s.rel as u32, lo + 9, lo + 9)
        | put(s.chan as u32, lo + 10, lo + 11)
        | put(s.neg as u32, lo + 12, lo + 12)
}

impl AluInst {
    /// Decodes one slot. OP3 if word1 `[17:15]` is non-zero (an OP3 opcode is ≥ 8 at `[17:13]`;
    /// OP2 opcodes are below 256 at `[17:7]`); Mesa `sb_bc_decoder.cpp` makes the same test.
    pub fn decode(w0: u32, w1: u32) -> Result<Self, DecodeError> {
        let mut src0 = decode_src(w0, 0)?;
        let mut src1 = decode_src(w0, 13)?;
        let index_mode = field(w0, 26, 28) as u8;
        if index_mode == 7 {
            return Err(DecodeError::ReservedValue {
                field: "INDEX_MODE",
                value: 7,
            });
        }
        let pred_sel = field(w0, 29, 30) as u8;
        if pred_sel == 1 {
            return Err(DecodeError::ReservedValue {
                field: "PRED_SEL",
                value: 1,
            });
        }
        let bank_swizzle = field(w1, 18, 20) as u8;
        if bank_swizzle > 5 {
            return Err(DecodeError::ReservedValue {
                field: "BANK_SWIZZLE",
                value: bank_swizzle as u32,
            });
        }
        let form = if field(w1, 15, 17) != 0 {
            let opcode = field(w1, 13, 17);
            lookup(OP3, opcode).ok_or(DecodeError::ReservedOpcode {
                format: "ALU_WORD1_OP3",
                opcode,
            })?;
            AluForm::Op3 {
                opcode: opcode as u8,
                src2: decode_src(w1, 0)?,
            }
        } else {
            let opcode = field(w1, 7, 17);
            lookup(OP2, opcode).ok_or(DecodeError::ReservedOpcode {
                format: "ALU_WORD1_OP2",
                opcode,
            })?;
            src0.abs = bit(w1, 0);
            src1.abs = bit(w1, 1);
            AluForm::Op2 {
                opcode: opcode as u16,
                update_exec_mask: bit(w1, 2),
                update_pred: bit(w1, 3),
                write_mask: bit(w1, 4),
                omod: field(w1, 5, 6) as u8,
            }
        };
        Ok(AluInst {
            src0,
            src1,
            index_mode,
            pred_sel,
            last: bit(w0, 31),
            form,
            bank_swizzle,
            dst_gpr: field(w1, 21, 27) as u8,
            dst_rel: bit(w1, 28),
            dst_chan: field(w1, 29, 30) as u8,
            clamp: bit(w1, 31),
        })
    }

    pub fn encode(&self) -> (u32, u32) {
        let w0 = encode_src(&self.src0, 0)
            | encode_src(&self.src1, 13)
            | put(self.index_mode as u32, 26, 28)
            | put(self.pred_sel as u32, 29, 30)
            | put(self.last as u32, 31, 31);
        let common = put(self.bank_swizzle as u32, 18, 20)
            | put(self.dst_gpr as u32, 21, 27)
            | put(self.dst_rel as u32, 28, 28)
            | put(self.dst_chan as u32, 29, 30)
            | put(self.clamp as u32, 31, 31);
        let w1 = match self.form {
            AluForm::Op2 {
                opcode,
                update_exec_mask,
                update_pred,
                write_mask,
                omod,
            } => {
                put(self.src0.abs as u32, 0, 0)
                    | put(self.src1.abs as u32, 1, 1)
                    | put(update_exec_mask as u32, 2, 2)
                    | put(update_pred as u32, 3, 3)
                    | put(write_mask as u32, 4, 4)
                    | put(omod as u32, 5, 6)
                    | put(opcode as u32, 7, 17)
            }
            AluForm::Op3 { opcode, src2 } => encode_src(&src2, 0) | put(opcode as u32, 13, 17),
        };
        (w0, w1 | common)
    }

    /// The opcode's names and arity.
    pub fn info(&self) -> &'static OpInfo {
        // Decoding checked the opcode; a hand-built AluInst with a bad one gets a
        // placeholder rather than a panic.
        static UNKNOWN: OpInfo = OpInfo {
            opcode: 0xFFFF,
            name: "?",
            llvm: "?",
            srcs: 3,
        };
        match self.form {
            AluForm::Op2 { opcode, .. } => lookup(OP2, opcode as u32),
            AluForm::Op3 { opcode, .. } => lookup(OP3, opcode as u32),
        }
        .unwrap_or(&UNKNOWN)
    }

    /// The source fields the encoding carries (two for OP2, three for OP3).
    pub fn srcs(&self) -> impl Iterator<Item = Src> + '_ {
        let third = match self.form {
            AluForm::Op3 { src2, .. } => Some(src2),
            AluForm::Op2 { .. } => None,
        };
        [self.src0, self.src1].into_iter().chain(third)
    }
}

/// A VLIW instruction group: 1-5 slots (the last has LAST set) and its literals.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AluGroup {
    pub insts: Vec<AluInst>,
    /// Literal dwords: 0, 2 or 4 (one or two 64-bit slots; X is the first dword).
    pub literals: Vec<u32>,
}

impl AluGroup {
    /// How many literal dwords the group's instructions imply: a literal slot is fetched
    /// if any source field selects ALU_SRC_LITERAL, and both if any reads Z or W
    /// (002 lines 1234-1236, 1463-1466, 7917). Every source field counts, used or not.
    pub fn literal_dwords(insts: &[AluInst]) -> usize {
        let mut n = 0;
        for s in insts.iter().flat_map(|i| i.srcs()) {
            if s.sel == sel::LITERAL {
                n = n.max(if s.chan >= 2 { 4 } else { 2 });
            }
        }
        n
    }

    /// Decodes the group whose first slot is `slots[0]`; returns it and the number of
    /// 64-bit slots it takes.
    pub fn decode(slots: &[(u32, u32)], first_slot: u32) -> Result<(Self, usize), DecodeError> {
        let mut insts = Vec::new();
        let mut i = 0;
        loop {
            let &(w0, w1) = slots
                .get(i)
                .ok_or(DecodeError::ClauseSplitsGroup { clause: first_slot })?;
            let inst = AluInst::decode(w0, w1)?;
            insts.push(inst);
            i += 1;
            if inst.last {
                break;
            }
            if i == 5 {
                return Err(DecodeError::GroupTooLong { slot: first_slot });
            }
        }
        let lit = Self::literal_dwords(&insts);
        let mut literals = Vec::with_capacity(lit);
        for _ in 0..lit / 2 {
            let &(a, b) = slots
                .get(i)
                .ok_or(DecodeError::ClauseSplitsGroup { clause: first_slot })?;
            literals.push(a);
            literals.push(b);
            i += 1;
        }
        Ok((AluGroup { insts, literals }, i))
    }

    /// Appends the group's slots.
    pub fn encode(&self, out: &mut Vec<(u32, u32)>) {
        out.extend(self.insts.iter().map(AluInst::encode));
        out.extend(
            self.literals
                .chunks(2)
                .map(|c| (c[0], *c.get(1).unwrap_or(&0))),
        );
    }

    /// Slots taken (instructions plus literal slots).
    pub fn slots(&self) -> usize {
        self.insts.len() + self.literals.len().div_ceil(2)
    }
}
