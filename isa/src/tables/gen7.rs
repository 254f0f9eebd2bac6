//! Gen7 (Ivy Bridge) and Gen7.5 (Haswell). 001_f8ea3ab73a649b18.txt is
//! the IVB EU volume but stops before the instruction formats, so the bit
//! positions here come from public sources, marked [ext], and were checked
//! against `iga64 -p=7p5` encodings (see tests/codec_tools.rs).

use super::{
    ArfKind, Fields, GenTables, JumpLayout, Layout, OpInfo, ThreeSrcFields, bits, concat_ops, gen4,
    gen6, op,
};
use crate::generation::IsaGen;
use crate::inst::{Opcode as O, PredCtrl, RegFile, Sfid, Type};

const ALU: Layout = Layout::Alu;
/// All Gen7 branches keep JIP in 111:96 and UIP in 127:112
/// [ext: Mesa src/intel/compiler/brw_inst.h brw_inst_jip/uip].
const JIP_UIP: Layout = Layout::Branch(JumpLayout::JipUip);

/// Three-source format: Gen6's, plus flag register (34), shared source type
/// (43:42), destination type (45:44) and NibCtrl (47); bit 32 (the Gen6 MRF
/// select) is gone with the MRF [ext: Mesa brw_inst.h 3src_a16_*].
const THREE_SRC: ThreeSrcFields = ThreeSrcFields {
    dst_file: None,
    flag_reg: Some(bits(34, 34)),
    src_type: Some(bits(43, 42)),
    dst_type: Some(bits(45, 44)),
    nib_ctrl: Some(bits(47, 47)),
    ..gen6::THREE_SRC
};

/// Gen6's layout plus FlagRegNum in bit 90 and NibCtrl in bit 47 (001 lines
/// 633-637 add both fields; positions [ext: Mesa brw_inst.h flag_reg_nr,
/// nib_control]). `dim`'s DF immediate fills bits 127:64
/// [ext: Mesa brw_inst.h brw_inst_set_imm_df].
const FIELDS: Fields = Fields {
    nib_ctrl: Some(bits(47, 47)),
    flag_reg: Some(bits(90, 90)),
    three_src: Some(THREE_SRC),
    ..gen6::FIELDS
};

/// Ivy Bridge opcodes. Additions over Gen6 are listed at 001 lines 629-673;
/// numbers and the removal of case/fork/nenop from [ext: Mesa
/// src/intel/compiler/brw_eu.c opcode_descs]. Source counts exclude jump
/// fields as on Gen6; brd/brc may take their target from src0; call and
/// calla count their target, an ordinary immediate operand.
const GEN7_OPS: [OpInfo; 62] = [
    op(0x00, O::Illegal, 0, ALU),
    op(0x01, O::Mov, 1, ALU),
    op(0x02, O::Sel, 2, ALU),
    op(0x03, O::Movi, 1, ALU),
    op(0x04, O::Not, 1, ALU),
    op(0x05, O::And, 2, ALU),
    op(0x06, O::Or, 2, ALU),
    op(0x07, O::Xor, 2, ALU),
    op(0x08, O::Shr, 2, ALU),
    op(0x09, O::Shl, 2, ALU),
    op(0x0C, O::Asr, 2, ALU),
    op(0x10, O::Cmp, 2, ALU),
    op(0x11, O::Cmpn, 2, ALU),
    op(0x13, O::F32to16, 1, ALU),
    op(0x14, O::F16to32, 1, ALU),
    op(0x17, O::Bfrev, 1, ALU),
    op(0x18, O::Bfe, 3, Layout::ThreeSrc),
    op(0x19, O::Bfi1, 2, ALU),
    op(0x1A, O::Bfi2, 3, Layout::ThreeSrc),
    op(0x20, O::Jmpi, 1, ALU),
    op(0x21, O::Brd, 1, JIP_UIP), // src0 may hold the target instead of DW3
    op(0x22, O::If, 0, JIP_UIP),
    op(0x23, O::Brc, 1, JIP_UIP),
    op(0x24, O::Else, 0, JIP_UIP),
    op(0x25, O::Endif, 0, JIP_UIP),
    op(0x27, O::While, 0, JIP_UIP),
    op(0x28, O::Break, 0, JIP_UIP),
    op(0x29, O::Cont, 0, JIP_UIP),
    op(0x2A, O::Halt, 0, JIP_UIP),
    op(0x2C, O::Call, 1, ALU),
    op(0x2D, O::Ret, 1, ALU),
    op(0x30, O::Wait, 1, ALU),
    op(0x31, O::Send, 1, Layout::Send),
    op(0x32, O::Sendc, 1, Layout::Send),
    op(0x38, O::Math, 2, Layout::Math),
    op(0x40, O::Add, 2, ALU),
    op(0x41, O::Mul, 2, ALU),
    op(0x42, O::Avg, 2, ALU),
    op(0x43, O::Frc, 1, ALU),
    op(0x44, O::Rndu, 1, ALU),
    op(0x45, O::Rndd, 1, ALU),
    op(0x46, O::Rnde, 1, ALU),
    op(0x47, O::Rndz, 1, ALU),
    op(0x48, O::Mac, 2, ALU),
    op(0x49, O::Mach, 2, ALU),
    op(0x4A, O::Lzd, 1, ALU),
    op(0x4B, O::Fbh, 1, ALU),
    op(0x4C, O::Fbl, 1, ALU),
    op(0x4D, O::Cbit, 1, ALU),
    op(0x4E, O::Addc, 2, ALU),
    op(0x4F, O::Subb, 2, ALU),
    op(0x50, O::Sad2, 2, ALU),
    op(0x51, O::Sada2, 2, ALU),
    op(0x54, O::Dp4, 2, ALU),
    op(0x55, O::Dph, 2, ALU),
    op(0x56, O::Dp3, 2, ALU),
    op(0x57, O::Dp2, 2, ALU),
    op(0x59, O::Line, 2, ALU),
    op(0x5A, O::Pln, 2, ALU),
    op(0x5B, O::Mad, 3, Layout::ThreeSrc),
    op(0x5C, O::Lrp, 3, Layout::ThreeSrc),
    op(0x7E, O::Nop, 0, ALU),
];

/// Haswell adds dim (0x0A) and calla (0x2B) [ext: Mesa brw_eu.c
/// opcode_descs; `iga64 -p=7p5 -Xlist-ops` lists both].
static GEN75_OPS: [OpInfo; 64] = concat_ops(
    GEN7_OPS,
    [op(0x0A, O::Dim, 1, ALU), op(0x2B, O::Calla, 1, ALU)],
);

/// RegFile codes: no MRF on Gen7 (001 lines 2168-2192 list GRF, ARF, IMM).
const REG_FILES: [Option<RegFile>; 4] = [
    Some(RegFile::Arf),
    Some(RegFile::Grf),
    None,
    Some(RegFile::Imm),
];

/// Register types: 110 becomes DF (001 lines 639-640 add DF; code
/// [ext: Mesa src/intel/compiler/brw_reg_type.c gen7 table]).
const REG_TYPES: [Option<Type>; 8] = [
    Some(Type::Ud),
    Some(Type::D),
    Some(Type::Uw),
    Some(Type::W),
    Some(Type::Ub),
    Some(Type::B),
    Some(Type::Df),
    Some(Type::F),
];

/// Three-source type codes (001 lines 642-644 add the fields; codes
/// [ext: Mesa brw_reg_type.c]: 0 F, 1 D, 2 UD, 3 DF).
const THREE_SRC_TYPES: [Option<Type>; 4] =
    [Some(Type::F), Some(Type::D), Some(Type::Ud), Some(Type::Df)];

/// Align1 predicates: Gen6's plus .any32h (12) and .all32h (13), for
/// ExecSize 32 (001 line 633) [ext: Mesa brw_eu_defines.h
/// BRW_PREDICATE_ALIGN1_ANY32H; iga64 -p=7p5 encodes any32h as 12].
const PRED_ALIGN1: [Option<PredCtrl>; 16] = {
    let mut t = gen4::PRED_ALIGN1;
    t[12] = Some(PredCtrl::Any32H);
    t[13] = Some(PredCtrl::All32H);
    t
};

/// SFIDs: Gen6's plus data cache (10) and pixel interpolator (11)
/// [ext: Mesa brw_eu_defines.h GEN7_SFID_*].
const SFIDS_GEN7: [Option<Sfid>; 16] = [
    Some(Sfid::Null),
    None,
    Some(Sfid::Sampler),
    Some(Sfid::Gateway),
    Some(Sfid::DpSamplerCache),
    Some(Sfid::DpRenderCache),
    Some(Sfid::Urb),
    Some(Sfid::ThreadSpawner),
    Some(Sfid::Vme),
    Some(Sfid::DpConstantCache),
    Some(Sfid::DpDataCache),
    Some(Sfid::PixelInterpolator),
    None,
    None,
    None,
    None,
];

/// Haswell adds data cache 1 (12) and CRE (13) [ext: Mesa
/// brw_eu_defines.h HSW_SFID_*].
const SFIDS_GEN75: [Option<Sfid>; 16] = {
    let mut t = SFIDS_GEN7;
    t[12] = Some(Sfid::DpDataCache1);
    t[13] = Some(Sfid::Cre);
    t
};

/// ARF types, 001 lines 2270-2300 (tm0 = 1100b).
const ARF: [Option<ArfKind>; 16] = [
    Some(ArfKind::Null),
    Some(ArfKind::Address),
    Some(ArfKind::Accumulator),
    Some(ArfKind::Flag),
    None,
    None,
    None,
    Some(ArfKind::State),
    Some(ArfKind::Control),
    Some(ArfKind::Notification),
    Some(ArfKind::Ip),
    Some(ArfKind::ThreadDependency),
    Some(ArfKind::Timestamp),
    None,
    None,
    None,
];

/// Ivy Bridge.
pub(super) static GEN7: GenTables = GenTables {
    platform: IsaGen::Gen7,
    fields: FIELDS,
    opcodes: &GEN7_OPS,
    reg_files: REG_FILES,
    reg_types: REG_TYPES,
    imm_types: gen6::IMM_TYPES, // no DF immediate on IVB [ext: Mesa brw_reg_type.c]
    three_src_types: Some(THREE_SRC_TYPES),
    exec_sizes: gen4::EXEC_SIZES, // 32 now valid for bytes/words, 001 line 633
    thread_ctrls: gen4::THREAD_CTRLS,
    compressions: None,
    pred_align1: PRED_ALIGN1,
    pred_align16: gen4::PRED_ALIGN16,
    cond_mods: gen6::COND_MODS,
    math_fns: gen6::MATH_FNS,
    sfids: SFIDS_GEN7,
    flag_regs: 2, // 001 line 635
    // 64-bit units as on Gen6 [ext: Mesa brw_eu.c brw_jump_scale]; iga64
    // -p=7p5 encodes a 32-byte forward `if` as JIP 4. jmpi: 64-bit units per
    // [ext: Mesa brw_eu_emit.c brw_land_fwd_jump, gen >= 5], but iga64 -p=7p5
    // writes jmpi (and call) targets in bytes; unresolved, see tests/codec_iga.rs.
    jump_unit: 8,
    jmpi_unit: 8,
    arf: ARF,
};

/// Haswell.
pub(super) static GEN75: GenTables = GenTables {
    platform: IsaGen::Gen75,
    fields: FIELDS,
    opcodes: &GEN75_OPS,
    reg_files: REG_FILES,
    reg_types: REG_TYPES,
    imm_types: gen6::IMM_TYPES,
    three_src_types: Some(THREE_SRC_TYPES),
    exec_sizes: gen4::EXEC_SIZES,
    thread_ctrls: gen4::THREAD_CTRLS,
    compressions: None,
    pred_align1: PRED_ALIGN1,
    pred_align16: gen4::PRED_ALIGN16,
    cond_mods: gen6::COND_MODS,
    math_fns: gen6::MATH_FNS,
    sfids: SFIDS_GEN75,
    flag_regs: 2,
    jump_unit: 8,
    jmpi_unit: 8,
    arf: ARF,
};

/// Placeholder for Gen12.5 in the Gen4-Gen7.5 table shape: no opcode
/// decodes (see `tables::for_platform`).
pub const GEN12_5_NONE: GenTables = GenTables {
    platform: IsaGen::Gen12_5,
    opcodes: &[],
    ..GEN75
};
