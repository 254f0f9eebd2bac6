//! Xe-HPG (Gen12.5, DG2) native format: bit positions and codes.
//!
//! No Xe-HPG EU volume is in `shared/prm`, so every entry comes from public
//! sources: [Mesa brw_inst.h] is the "12+" column of the field macros in
//! Mesa src/intel/compiler/brw_inst.h; [Mesa brw_eu.c] the `opcode_descs`
//! table (GFX_GE(GFX12)/GFX_GE(GFX125) rows); [Mesa defines] is
//! src/intel/compiler/brw_eu_defines.h (`tgl_swsb_decode` for ver < 20,
//! `tgl_sync_function`, SFIDs). Codes marked (iga) were read from what
//! `iga64 -p=12p71` assembles (tests/xehpg_iga.rs checks all of them).

use crate::inst::{MathFn, Opcode as O, Sfid, SyncFn, Type};
use crate::tables::{Bits, bits};

/// Operand layout of an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// dst and one source.
    One,
    /// dst and two sources.
    Two,
    /// `math`: function in the cond-modifier bits, one or two sources.
    Math,
    /// Three-source Align1.
    Three,
    Send,
    Sync,
    /// JIP and UIP.
    JipUip,
    /// JIP only.
    Jip,
    /// jmpi, brd: one target, a JIP immediate or a register (iga).
    Target,
    /// call, calla: return-address dst and a target (immediate or register).
    Call,
    /// ret: the return-address register as src0.
    Ret,
    /// brc: JIP and UIP immediates, or one register (iga).
    Brc,
    /// madm: the three-source layout with a math-macro selector in place
    /// of every sub-register (iga).
    Madm,
    /// bfn: the three-source layout, the function in the modifier and
    /// condition bits (see `three::BFN_*`).
    Bfn,
    /// dpas, dpasw: the systolic layout (see `dpas`).
    Dpas,
    /// No operands (nop, illegal).
    Bare,
}

/// Opcode numbers [Mesa brw_eu.c opcode_descs, GFX_GE(GFX12) and
/// GFX_GE(GFX125) rows; `iga64 -p=12p71` assembles each]. Not yet here
/// (decoded as `Unsupported`): smov.
pub const OPCODES: [(u8, O, Form); 64] = [
    (0x00, O::Illegal, Form::Bare),
    (0x01, O::Sync, Form::Sync),
    (0x22, O::If, Form::JipUip),
    (0x24, O::Else, Form::JipUip),
    (0x25, O::Endif, Form::Jip),
    (0x27, O::While, Form::Jip),
    (0x28, O::Break, Form::JipUip),
    (0x29, O::Cont, Form::JipUip),
    (0x2A, O::Halt, Form::JipUip),
    (0x2E, O::Goto, Form::JipUip),
    (0x2F, O::Join, Form::Jip),
    (0x31, O::Send, Form::Send),
    (0x32, O::Sendc, Form::Send),
    (0x38, O::Math, Form::Math),
    (0x40, O::Add, Form::Two),
    (0x41, O::Mul, Form::Two),
    (0x42, O::Avg, Form::Two),
    (0x43, O::Frc, Form::One),
    (0x44, O::Rndu, Form::One),
    (0x45, O::Rndd, Form::One),
    (0x46, O::Rnde, Form::One),
    (0x47, O::Rndz, Form::One),
    (0x48, O::Mac, Form::Two),
    (0x49, O::Mach, Form::Two),
    (0x4A, O::Lzd, Form::One),
    (0x4B, O::Fbh, Form::One),
    (0x4C, O::Fbl, Form::One),
    (0x4D, O::Cbit, Form::One),
    (0x4E, O::Addc, Form::Two),
    (0x4F, O::Subb, Form::Two),
    (0x52, O::Add3, Form::Three),
    (0x58, O::Dp4a, Form::Three),
    (0x5B, O::Mad, Form::Three),
    (0x60, O::Nop, Form::Bare),
    (0x61, O::Mov, Form::One),
    (0x62, O::Sel, Form::Two),
    (0x63, O::Movi, Form::Two),
    (0x64, O::Not, Form::One),
    (0x65, O::And, Form::Two),
    (0x66, O::Or, Form::Two),
    (0x67, O::Xor, Form::Two),
    (0x68, O::Shr, Form::Two),
    (0x69, O::Shl, Form::Two),
    (0x6C, O::Asr, Form::Two),
    (0x6E, O::Ror, Form::Two),
    (0x6F, O::Rol, Form::Two),
    (0x70, O::Cmp, Form::Two),
    (0x71, O::Cmpn, Form::Two),
    (0x72, O::Csel, Form::Three),
    (0x77, O::Bfrev, Form::One),
    (0x78, O::Bfe, Form::Three),
    (0x79, O::Bfi1, Form::Two),
    (0x7A, O::Bfi2, Form::Three),
    // Control flow whose target may be a register [Mesa brw_eu.c
    // opcode_descs; operand layout read from iga64 -p=12p71's words].
    (0x20, O::Jmpi, Form::Target),
    (0x21, O::Brd, Form::Target),
    (0x23, O::Brc, Form::Brc),
    (0x2B, O::Calla, Form::Call),
    (0x2C, O::Call, Form::Call),
    (0x2D, O::Ret, Form::Ret),
    (0x5D, O::Madm, Form::Madm),
    // bfn 107 [Mesa brw_eu.c opcode_descs, GFX_GE(GFX125)]; dpas 0x59 and
    // dpasw 0x5A [004 lines 13756 and 14071; iga64 -p=12p71 assembles both].
    (0x6B, O::Bfn, Form::Bfn),
    (0x59, O::Dpas, Form::Dpas),
    (0x5A, O::Dpasw, Form::Dpas),
    // Listed so the error says "unsupported", not "undefined": Mesa
    // brw_eu.c lists smov (106) for GFX_GE(GFX12), but iga64 -p=12p71
    // neither assembles it ("invalid mnemonic") nor decodes its words, so
    // there is no form to check against.
    (0x6A, O::Smov, Form::Bare),
];

/// Opcodes whose number is known but whose form is not written yet.
pub const UNSUPPORTED: [O; 1] = [O::Smov];

/// madm's math-macro selectors (`.mme0`-`.mme7`, `.nomme`) are the codes
/// 0-8 of each operand's sub-register field; other codes are refused.
/// Its sources always carry vertical stride code 2 and horizontal stride 1,
/// the destination stride 1; iga64 -p=12p71 drops saturation and condition
/// modifiers from madm (read from its words; the selector field is
/// Mesa brw_eu_inst.h 3src_a1 `*_subreg_nr`, "12+" column).
pub const MME_NONE: u8 = 8;

/// Fields common to every form [Mesa brw_inst.h "12+" column].
pub const OPCODE: Bits = bits(6, 0);
/// Bit 7 is reserved "for future opcode expansion" [Mesa brw_inst.h].
pub const SWSB: Bits = bits(15, 8);
pub const EXEC_SIZE: Bits = bits(18, 16);
pub const NIB_CTRL: Bits = bits(19, 19);
pub const QTR_CTRL: Bits = bits(21, 20);
pub const FLAG_SUBREG: Bits = bits(22, 22);
pub const FLAG_REG: Bits = bits(23, 23);
pub const PRED_CTRL: Bits = bits(27, 24);
pub const PRED_INV: Bits = bits(28, 28);
pub const CMPT: Bits = bits(29, 29);
pub const DEBUG: Bits = bits(30, 30);
pub const MASK_CTRL: Bits = bits(31, 31);
pub const ATOMIC: Bits = bits(32, 32);
/// AccWrCtrl (BranchCtrl on branches).
pub const ACC_WR: Bits = bits(33, 33);
/// Saturate; EOT on send.
pub const SATURATE: Bits = bits(34, 34);
pub const COND_MOD: Bits = bits(95, 92);

/// One/two-source operand fields [Mesa brw_inst.h dst_*, src0_*, src1_*].
pub const DST_ADDR_MODE: Bits = bits(35, 35);
pub const DST_TYPE: Bits = bits(39, 36);
pub const SRC0_TYPE: Bits = bits(43, 40);
pub const SRC0_ABS: Bits = bits(44, 44);
pub const SRC0_NEG: Bits = bits(45, 45);
pub const SRC0_IS_IMM: Bits = bits(46, 46);
pub const SRC1_IS_IMM: Bits = bits(47, 47);
pub const DST_HSTRIDE: Bits = bits(49, 48);
pub const DST_FILE: Bits = bits(50, 50);
pub const DST_SUBREG: Bits = bits(55, 51);
pub const DST_NR: Bits = bits(63, 56);
pub const SRC0_HSTRIDE: Bits = bits(65, 64);
pub const SRC0_FILE: Bits = bits(66, 66);
pub const SRC0_SUBREG: Bits = bits(71, 67);
pub const SRC0_NR: Bits = bits(79, 72);
pub const SRC0_ADDR_MODE: Bits = bits(80, 80);
pub const SRC0_WIDTH: Bits = bits(83, 81);
pub const SRC0_VSTRIDE: Bits = bits(87, 84);
pub const SRC1_TYPE: Bits = bits(91, 88);
pub const SRC1_HSTRIDE: Bits = bits(97, 96);
pub const SRC1_FILE: Bits = bits(98, 98);
pub const SRC1_SUBREG: Bits = bits(103, 99);
pub const SRC1_NR: Bits = bits(111, 104);
pub const SRC1_ADDR_MODE: Bits = bits(112, 112);
pub const SRC1_WIDTH: Bits = bits(115, 113);
pub const SRC1_VSTRIDE: Bits = bits(119, 116);
pub const SRC1_ABS: Bits = bits(120, 120);
pub const SRC1_NEG: Bits = bits(121, 121);
/// Register-indirect operands (address mode 1): the a0 sub-register and a
/// signed 10-bit byte offset take the place of the register number,
/// sub-register and file bits (the file is GRF) [Mesa brw_eu_inst.h
/// dst/src0/src1_ia_subreg_nr "12+" and BRW_IA1_ADDR_IMM Gfx12 column].
/// Vertical stride code 15 is the Vx1/VxH region, indirect sources only.
pub const DST_IA_SUBREG: Bits = bits(63, 60);
pub const DST_IA_IMM: Bits = bits(59, 50);
pub const SRC0_IA_SUBREG: Bits = bits(79, 76);
pub const SRC0_IA_IMM: Bits = bits(75, 66);
pub const SRC1_IA_SUBREG: Bits = bits(111, 108);
pub const SRC1_IA_IMM: Bits = bits(107, 98);
pub const VSTRIDE_VXH: u32 = 15;

/// A 32-bit immediate of either source [Mesa brw_inst.h brw_inst_imm_ud].
pub const IMM32: Bits = bits(127, 96);
/// A 64-bit immediate (src0 only): low dword in 127:96, high dword in
/// 95:64 [iga: `0x123456789abcdef0:q` assembles DW2 = 0x12345678,
/// DW3 = 0x9abcdef0].
pub const IMM64_LO: Bits = bits(127, 96);
pub const IMM64_HI: Bits = bits(95, 64);

/// Branches: JIP in 127:96 with src0 marked immediate, UIP in 95:64 with
/// src1 marked immediate [Mesa brw_inst.h brw_inst_set_jip/uip, gfx12].
pub const JIP: Bits = bits(127, 96);
pub const UIP: Bits = bits(95, 64);

/// Three-source Align1 fields [Mesa brw_inst.h 3src_a1_*, 3src_*, "12+"].
pub mod three {
    use crate::tables::{Bits, bits};
    pub const SRC0_VSTRIDE_LO: Bits = bits(35, 35);
    pub const DST_TYPE: Bits = bits(38, 36);
    /// 0 integer, 1 float: picks the type table of all four operands.
    pub const EXEC_TYPE: Bits = bits(39, 39);
    pub const SRC0_TYPE: Bits = bits(42, 40);
    pub const SRC0_VSTRIDE_HI: Bits = bits(43, 43);
    pub const SRC0_ABS: Bits = bits(44, 44);
    pub const SRC0_NEG: Bits = bits(45, 45);
    pub const SRC0_IS_IMM: Bits = bits(46, 46);
    pub const SRC2_IS_IMM: Bits = bits(47, 47);
    /// 0: stride 1, 1: stride 2.
    pub const DST_HSTRIDE: Bits = bits(48, 48);
    pub const DST_FILE: Bits = bits(50, 50);
    pub const DST_SUBREG: Bits = bits(55, 51);
    pub const DST_NR: Bits = bits(63, 56);
    pub const SRC0_HSTRIDE: Bits = bits(65, 64);
    pub const SRC0_FILE: Bits = bits(66, 66);
    pub const SRC0_SUBREG: Bits = bits(71, 67);
    pub const SRC0_NR: Bits = bits(79, 72);
    /// src0's 16-bit immediate [Mesa brw_inst.h brw_inst_3src_a1_src0_imm].
    pub const SRC0_IMM: Bits = bits(79, 64);
    pub const SRC2_TYPE: Bits = bits(82, 80);
    pub const SRC1_VSTRIDE_LO: Bits = bits(83, 83);
    pub const SRC2_ABS: Bits = bits(84, 84);
    pub const SRC2_NEG: Bits = bits(85, 85);
    pub const SRC1_ABS: Bits = bits(86, 86);
    pub const SRC1_NEG: Bits = bits(87, 87);
    pub const SRC1_TYPE: Bits = bits(90, 88);
    pub const SRC1_VSTRIDE_HI: Bits = bits(91, 91);
    pub const SRC1_HSTRIDE: Bits = bits(97, 96);
    pub const SRC1_FILE: Bits = bits(98, 98);
    pub const SRC1_SUBREG: Bits = bits(103, 99);
    pub const SRC1_NR: Bits = bits(111, 104);
    pub const SRC2_HSTRIDE: Bits = bits(113, 112);
    pub const SRC2_FILE: Bits = bits(114, 114);
    pub const SRC2_SUBREG: Bits = bits(119, 115);
    pub const SRC2_NR: Bits = bits(127, 120);
    /// src2's 16-bit immediate [Mesa brw_inst.h brw_inst_3src_a1_src2_imm].
    pub const SRC2_IMM: Bits = bits(127, 112);
    /// Two-bit vertical stride codes of src0/src1: 0, 1, 4, 8 (iga).
    pub const VSTRIDES: [u8; 4] = [0, 1, 4, 8];
    /// bfn has no source modifiers: its BooleanFuncCtrl bits 7:4 take the
    /// condition modifier's bits and bits 3:0 the src1/src2 modifier bits, and
    /// a two-bit CondCtrl2 (none, ze, gt, lt) the src0 modifier bits
    /// [004 lines 11140-11260, the bfn format table; iga].
    pub const BFN_FC_HI: Bits = bits(95, 92);
    pub const BFN_FC_LO: Bits = bits(87, 84);
    pub const BFN_COND: Bits = bits(45, 44);
}

/// dpas/dpasw fields [Mesa brw_inst.h dpas_3src_*, "12+" column; 004 lines
/// 13756-14070]. Types are the three-source codes picked by `EXEC_TYPE`;
/// sub-registers are in bytes; every other bit is zero.
pub mod dpas {
    use crate::tables::{Bits, bits};
    pub const DST_TYPE: Bits = bits(38, 36);
    pub const EXEC_TYPE: Bits = bits(39, 39);
    pub const SRC0_TYPE: Bits = bits(42, 40);
    /// Repeat count minus one.
    pub const RCOUNT: Bits = bits(45, 43);
    /// Systolic depth as log2 (1, 2, 4, 8) [iga: `dpas.1x3` has 0 here,
    /// `dpas.4x2` 2, `dpas.8x8` 3].
    pub const SDEPTH: Bits = bits(49, 48);
    pub const DST_FILE: Bits = bits(50, 50);
    pub const DST_SUBREG: Bits = bits(55, 51);
    pub const DST_NR: Bits = bits(63, 56);
    pub const SRC0_FILE: Bits = bits(66, 66);
    pub const SRC0_SUBREG: Bits = bits(71, 67);
    pub const SRC0_NR: Bits = bits(79, 72);
    pub const SRC2_TYPE: Bits = bits(82, 80);
    /// SubBytePrecision: 0 the type, 1 four bits, 2 two bits, 3 reserved.
    pub const SRC2_PRECISION: Bits = bits(85, 84);
    pub const SRC1_PRECISION: Bits = bits(87, 86);
    pub const SRC1_TYPE: Bits = bits(90, 88);
    pub const SRC1_FILE: Bits = bits(98, 98);
    pub const SRC1_SUBREG: Bits = bits(103, 99);
    pub const SRC1_NR: Bits = bits(111, 104);
    pub const SRC2_FILE: Bits = bits(114, 114);
    pub const SRC2_SUBREG: Bits = bits(119, 115);
    pub const SRC2_NR: Bits = bits(127, 120);
}

/// Send fields [Mesa brw_inst.h send_*, eot, sfid, brw_inst_send_desc,
/// brw_inst_send_ex_desc, "12+"]. The immediate descriptor is scattered:
/// (instruction bits, descriptor low bit).
pub mod send {
    use crate::tables::{Bits, bits};
    pub const EOT: Bits = bits(34, 34);
    pub const DESC_IS_REG: Bits = bits(48, 48);
    pub const EX_DESC_IS_REG: Bits = bits(49, 49);
    /// With a register extended descriptor: its a0 sub-register (as IGA
    /// numbers it, a0.0-a0.7), and ExBSO, which moves the second payload
    /// length into `SRC1_LEN` [Mesa brw_eu_inst.h send_ex_desc_ia_subreg_nr
    /// and send_ex_bso, "12+" column; iga64 -p=12p71 prints `{ExBSO}`].
    pub const EX_DESC_SUBREG: Bits = bits(42, 40);
    pub const EX_BSO: Bits = bits(39, 39);
    pub const DST_FILE: Bits = bits(50, 50);
    pub const DST_NR: Bits = bits(63, 56);
    pub const SRC0_FILE: Bits = bits(66, 66);
    pub const SRC0_NR: Bits = bits(79, 72);
    pub const SFID: Bits = bits(95, 92);
    pub const SRC1_FILE: Bits = bits(98, 98);
    /// Second payload length = ExDesc bits 10:6 (Gen12.5 keeps it here for
    /// both descriptor forms) [Mesa brw_inst.h send_src1_len].
    pub const SRC1_LEN: Bits = bits(103, 99);
    pub const SRC1_NR: Bits = bits(111, 104);
    pub const DESC: [(Bits, u32); 5] = [
        (bits(91, 81), 0),
        (bits(121, 113), 11),
        (bits(55, 51), 20),
        (bits(71, 67), 25),
        (bits(123, 122), 30),
    ];
    /// The immediate extended descriptor without bits 10:6 (`SRC1_LEN`).
    pub const EX_DESC: [(Bits, u32); 4] = [
        (bits(47, 35), 11),
        (bits(65, 64), 24),
        (bits(97, 96), 26),
        (bits(127, 124), 28),
    ];
}

/// Register type codes of one/two-source operands [Mesa brw_reg_type.c
/// gfx12 hardware types; iga].
pub const REG_TYPES: [Option<Type>; 16] = [
    Some(Type::Ub),
    Some(Type::Uw),
    Some(Type::Ud),
    Some(Type::Uq),
    Some(Type::B),
    Some(Type::W),
    Some(Type::D),
    Some(Type::Q),
    None,
    Some(Type::Hf),
    Some(Type::F),
    Some(Type::Df),
    None,
    Some(Type::Bf),
    None,
    None,
];

/// Immediate type codes: the register codes, with the vector immediates in
/// the byte codes (UV = UB, V = B) and VF in 8 (iga).
pub const IMM_TYPES: [Option<Type>; 16] = [
    Some(Type::Uv),
    Some(Type::Uw),
    Some(Type::Ud),
    Some(Type::Uq),
    Some(Type::V),
    Some(Type::W),
    Some(Type::D),
    Some(Type::Q),
    Some(Type::Vf),
    Some(Type::Hf),
    Some(Type::F),
    Some(Type::Df),
    None,
    None,
    None,
    None,
];

/// Three-source type codes by exec type [Mesa brw_reg_type.c gfx12 a1 3src
/// types; iga]: integer table, float table.
pub const THREE_INT_TYPES: [Option<Type>; 8] = [
    Some(Type::Ub),
    Some(Type::Uw),
    Some(Type::Ud),
    Some(Type::Uq),
    Some(Type::B),
    Some(Type::W),
    Some(Type::D),
    Some(Type::Q),
];
pub const THREE_FLOAT_TYPES: [Option<Type>; 8] = [
    None,
    Some(Type::Hf),
    Some(Type::F),
    Some(Type::Df),
    None,
    Some(Type::Bf),
    None,
    None,
];

/// Execution sizes by code; 6 and 7 are reserved.
pub const EXEC_SIZES: [Option<u8>; 8] = [
    Some(1),
    Some(2),
    Some(4),
    Some(8),
    Some(16),
    Some(32),
    None,
    None,
];

/// Region codes: vertical stride (code 15 is VxH, indirect only), width,
/// horizontal stride (the Gen7 codes, unchanged [Mesa brw_inst.h]).
pub use crate::tables::{VSTRIDES, WIDTHS};
pub const HSTRIDES: [u8; 4] = [0, 1, 2, 4];

/// Math functions by code [Mesa brw_eu_defines.h BRW_MATH_FUNCTION_*];
/// 8 (sincos) and 11-13 (integer divide, gone on Gen12) are refused; 14-15
/// are the IEEE macros INVM and RSQRTM (iga64 -p=12p71: `invm`, `rsqtm`):
/// math-macro selectors in the sub-register fields (`MME_NONE`), sources
/// `<1;1,0>`, the destination stride 1, all GRF [read from iga's words].
pub const MATH_FNS: [Option<MathFn>; 16] = [
    None,
    Some(MathFn::Inv),
    Some(MathFn::Log),
    Some(MathFn::Exp),
    Some(MathFn::Sqrt),
    Some(MathFn::Rsq),
    Some(MathFn::Sin),
    Some(MathFn::Cos),
    None,
    Some(MathFn::Fdiv),
    Some(MathFn::Pow),
    None,
    None,
    None,
    Some(MathFn::Invm),
    Some(MathFn::Rsqtm),
];

/// Sync functions [Mesa brw_eu_defines.h tgl_sync_function].
pub const SYNC_FNS: [Option<SyncFn>; 16] = [
    Some(SyncFn::Nop),
    None,
    Some(SyncFn::AllRd),
    Some(SyncFn::AllWr),
    None,
    None,
    None,
    None,
    None,
    None,
    None,
    None,
    None,
    Some(SyncFn::Fence),
    Some(SyncFn::Bar),
    Some(SyncFn::Host),
];

/// SFIDs and IGA's names for them [Mesa brw_eu_defines.h brw_message_target,
/// GFX12_SFID_*; names as `iga64 -p=12p71` prints them].
pub const SFIDS: [(Sfid, &str); 16] = [
    (Sfid::Null, "null"),
    (Sfid::Ugml, "ugml"),
    (Sfid::Sampler, "smpl"),
    (Sfid::Gateway, "gtwy"),
    (Sfid::DpSamplerCache, "dc2"),
    (Sfid::DpRenderCache, "rc"),
    (Sfid::Urb, "urb"),
    (Sfid::Btd, "btd"),
    (Sfid::Rta, "rta"),
    (Sfid::DpConstantCache, "dcro"),
    (Sfid::DpDataCache, "dc0"),
    (Sfid::PixelInterpolator, "pixi"),
    (Sfid::DpDataCache1, "dc1"),
    (Sfid::Tgm, "tgm"),
    (Sfid::Slm, "slm"),
    (Sfid::Ugm, "ugm"),
];

/// Index of `v` in a code table.
pub fn code<T: PartialEq + Copy>(table: &[Option<T>], v: T) -> Option<u8> {
    table.iter().position(|x| *x == Some(v)).map(|i| i as u8)
}
