//! Gen6 (Sandy Bridge): the EU ISA part of 003_e4327438ed1f7ac3.txt
//! (Vol 4 Part 2, Ch. 7 "Instruction Set Summary" and Ch. 8 reference).

use super::{
    ArfKind, Bit28, Fields, GenTables, JumpLayout, Layout, OpInfo, SendLayout, Src3Fields,
    ThreeSrcFields, bits, gen4, op,
};
use crate::generation::IsaGen;
use crate::inst::{CondMod, MathFn, Opcode as O, RegFile, Sfid, Type};

const ALU: Layout = Layout::Alu;
/// JIP in the destination bits: "<JIP> is at location <dst>".
const DST_JIP: Layout = Layout::Branch(JumpLayout::DstJip);
/// JIP and UIP in DW3: "<JIP> and <UIP> are at location <src1>".
const JIP_UIP: Layout = Layout::Branch(JumpLayout::JipUip);

/// Three-source format: DW1 Table 7-10 (lines 95011-95066), DW2/DW3
/// Table 7-15 (lines 95280-95331). Types are implicitly F on Gen6.
pub(super) const THREE_SRC: ThreeSrcFields = ThreeSrcFields {
    dst_file: Some(bits(32, 32)), // DW1 bit 0: 0 GRF, 1 MRF
    flag_subreg: bits(33, 33),    // DW1 bit 1
    flag_reg: None,
    src_type: None,
    dst_type: None,
    nib_ctrl: None,
    dst_writemask: bits(52, 49), // DW1 20:17
    dst_subnr: bits(55, 53),     // DW1 23:21
    dst_nr: bits(63, 56),        // DW1 31:24
    src: [
        // Source modifiers DW1 5:4, 7:6, 9:8 use the SrcMod code (01 abs, 10 negate).
        Src3Fields {
            rep_ctrl: bits(64, 64),
            swizzle: bits(72, 65),
            subnr: bits(75, 73),
            nr: bits(83, 76),
            negate: bits(37, 37),
            abs: bits(36, 36),
        },
        Src3Fields {
            rep_ctrl: bits(85, 85),
            swizzle: bits(93, 86),
            subnr: bits(96, 94),
            nr: bits(104, 97),
            negate: bits(39, 39),
            abs: bits(38, 38),
        },
        Src3Fields {
            rep_ctrl: bits(106, 106),
            swizzle: bits(114, 107),
            subnr: bits(117, 115),
            nr: bits(125, 118),
            negate: bits(41, 41),
            abs: bits(40, 40),
        },
    ],
};

/// Gen6 moves only these fields relative to Gen4 (DW0 Table 7-4, lines
/// 94439-94756): AccWrCtrl in bit 28 (lines 94489-94494), CmptCtrl in bit
/// 29 (Table 5-26, lines 92359-92381). The DW0 table marks bit 30 reserved,
/// but the instruction layout figure (lines 93593-93840) and Gen4/Gen7 keep
/// DebugCtrl there [ext: Mesa src/intel/compiler/brw_inst.h debug_control].
pub(super) const FIELDS: Fields = Fields {
    bit28_meaning: Bit28::AccWrCtrl,
    cmpt: Some(bits(29, 29)),
    three_src: Some(THREE_SRC),
    // Message descriptor, Table 8-15 (lines 100894-100915): 31:29 MBZ,
    // length 28:25, response length 24:20, header 19, function 18:0. EOT
    // and SFID are the extended descriptor (Table 8-16, lines 100916-100945),
    // in bit 127 and bits 27:24.
    send: SendLayout::Gen6 {
        mlen: bits(124, 121),
        rlen: bits(120, 116),
        header: bits(115, 115),
        function: bits(114, 96),
    },
    ..gen4::FIELDS
};

/// Opcodes, Tables 7-20..7-25 (lines 95566-95914). Source counts are the
/// tables' #src column without the JIP/UIP (if/case "0/2" → 2 for the
/// embedded compare, math "1/2" → 2). Where the JIP lives is stated
/// on each reference page: dst for if (line 98535), else (line 97984),
/// case (line 97269), fork (line 98181), while (line 101416); src1 for
/// break (line 97017), cont (line 97571), halt (line 98393) and call (line
/// 97119). endif's page says src1 (line 98056) but Mesa emits it in the dst
/// bits and that runs on SNB [ext: Mesa brw_eu_emit.c gen6 ENDIF,
/// brw_inst.h gen6_jump_count 63:48]; intel-gen4asm -g 6 agrees. call
/// keeps its JIP as an ordinary immediate src1 (counted as its source).
/// The table's dim (0x0A) is leaked Haswell text (Gen6 has no DF) and is
/// left out.
static GEN6_OPS: [OpInfo; 52] = [
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
    op(0x20, O::Jmpi, 1, ALU),
    op(0x22, O::If, 2, DST_JIP),
    op(0x24, O::Else, 0, DST_JIP),
    op(0x25, O::Endif, 0, DST_JIP),
    op(0x26, O::Case, 2, DST_JIP),
    op(0x27, O::While, 0, DST_JIP),
    op(0x28, O::Break, 0, JIP_UIP),
    op(0x29, O::Cont, 0, JIP_UIP),
    op(0x2A, O::Halt, 0, JIP_UIP),
    op(0x2C, O::Call, 1, ALU),
    op(0x2D, O::Ret, 1, ALU),
    op(0x2E, O::Fork, 1, DST_JIP),
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
    op(0x7D, O::Nenop, 0, ALU), // line 95910
    op(0x7E, O::Nop, 0, ALU),
];

/// Register type codes, lines 94804-94818 (110 reserved on SNB).
const REG_TYPES: [Option<Type>; 8] = [
    Some(Type::Ud),
    Some(Type::D),
    Some(Type::Uw),
    Some(Type::W),
    Some(Type::Ub),
    Some(Type::B),
    None,
    Some(Type::F),
];

/// Immediate type codes, lines 94820-94835: 100 becomes UV.
pub(super) const IMM_TYPES: [Option<Type>; 8] = [
    Some(Type::Ud),
    Some(Type::D),
    Some(Type::Uw),
    Some(Type::W),
    Some(Type::Uv),
    Some(Type::Vf),
    Some(Type::V),
    Some(Type::F),
];

/// CondModifier, Table 7-2 lines 93945-93975: 0111 (.r) is reserved now.
pub(super) const COND_MODS: [Option<CondMod>; 16] = [
    Some(CondMod::None),
    Some(CondMod::Z),
    Some(CondMod::Nz),
    Some(CondMod::G),
    Some(CondMod::Ge),
    Some(CondMod::L),
    Some(CondMod::Le),
    None,
    Some(CondMod::O),
    Some(CondMod::U),
    None,
    None,
    None,
    None,
    None,
    None,
];

/// math FC[3:0], lines 99263-99290 (0, 8, E, F reserved).
pub(super) const MATH_FNS: [Option<MathFn>; 16] = [
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
    Some(MathFn::IntDivQuotientRemainder),
    Some(MathFn::IntDivQuotient),
    Some(MathFn::IntDivRemainder),
    None,
    None,
];

/// Target Function ID, Table 8-16 lines 100937-100968 (1 and 10-15 reserved).
const SFIDS: [Option<Sfid>; 16] = [
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
    None,
    None,
    None,
    None,
    None,
    None,
];

/// ARF types, Table 5-5 lines 90017-90035.
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
    None,
    None,
    None,
    None,
];

/// Sandy Bridge.
pub(super) static GEN6: GenTables = GenTables {
    platform: IsaGen::Gen6,
    fields: FIELDS,
    opcodes: &GEN6_OPS,
    // RegFile codes, lines 94834-94898 (a destination cannot be IMM).
    reg_files: [
        Some(RegFile::Arf),
        Some(RegFile::Grf),
        Some(RegFile::Mrf),
        Some(RegFile::Imm),
    ],
    reg_types: REG_TYPES,
    imm_types: IMM_TYPES,
    three_src_types: None,
    exec_sizes: gen4::EXEC_SIZES,     // lines 94518-94532
    thread_ctrls: gen4::THREAD_CTRLS, // lines 94610-94635 (01 Atomic)
    compressions: None,               // QtrCtrl, lines 94636-94699
    pred_align1: gen4::PRED_ALIGN1,   // lines 94546-94609
    pred_align16: gen4::PRED_ALIGN16,
    cond_mods: COND_MODS,
    math_fns: MATH_FNS,
    sfids: SFIDS,
    flag_regs: 1, // f0 only, lines 90440-90506
    // JIP/UIP count 64-bit chunks (lines 98537-98540); jmpi too
    // (lines 98559-98645) [ext: Mesa brw_eu.c brw_jump_scale].
    jump_unit: 8,
    jmpi_unit: 8,
    arf: ARF,
};
