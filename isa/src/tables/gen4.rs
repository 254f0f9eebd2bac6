//! Gen4 (965/G35) and G45 (GM45/G4x): 000_5e6e9c0c4071cf6e.txt, the
//! "Subsystem and Cores" volume (Ch. 13 instruction set summary).

use super::{
    ArfKind, Bit28, DstFields, Fields, GenTables, JumpLayout, Layout, OpInfo, SendLayout,
    SrcFields, bits, concat_ops, op,
};
use crate::generation::IsaGen;
use crate::inst::{Compression, CondMod, Opcode as O, PredCtrl, RegFile, Sfid, ThreadCtrl, Type};

const ALU: Layout = Layout::Alu;
const JUMP: Layout = Layout::Branch(JumpLayout::Count);

/// Native format bit positions. DW0: Table 13-4, lines 9799-9844. DW1:
/// Table 13-5 and 13-6..13-9, lines 9852-9906. DW2: Tables 13-10..13-13,
/// lines 9921-9982. DW3: Tables 13-14..13-17, lines 9985-10052. Gen6/Gen7
/// start from this table and change what moved.
pub(super) const FIELDS: Fields = Fields {
    opcode: bits(6, 0),        // line 9844
    access_mode: bits(8, 8),   // line 9842
    mask_ctrl: bits(9, 9),     // line 9841
    no_dd_clr: bits(10, 10),   // line 9840 (DepCtrl 11:10)
    no_dd_chk: bits(11, 11),   // line 9840
    group: bits(13, 12),       // ComprCtrl, line 9835
    thread_ctrl: bits(15, 14), // line 9834
    pred_ctrl: bits(19, 16),   // line 9829
    pred_inv: bits(20, 20),    // line 9824
    exec_size: bits(23, 21),   // line 9823
    cond_mod: bits(27, 24),    // CondModifier / CurrDst.RegNum, line 9820
    bit28: bits(28, 28),       // MaskCtrlEx, line 9813
    bit28_meaning: Bit28::Reserved,
    cmpt: None,             // bit 29 "Reserved: MBZ", line 9812
    debug: bits(30, 30),    // line 9811
    saturate: bits(31, 31), // line 9802
    nib_ctrl: None,
    flag_reg: None,
    flag_subreg: bits(89, 89), // DW2 bit 25, lines 9925, 9941
    eot: bits(127, 127),       // Table 14-15 bit 31, line 13390
    dst_jip: bits(63, 48),     // unused before Gen6
    jip: bits(111, 96),        // exit code InstCount 15:0, lines 11085-11090
    uip: bits(127, 112),       // unused before Gen6
    pop: bits(115, 112),       // exit code ISPopCount 19:16, lines 11085-11090
    imm32: bits(127, 96),      // Imm32, Table 13-3 line 9776; DW3 text line 9985
    imm64: bits(127, 64),      // unused before Gen7.5
    dst: DstFields {
        file: bits(33, 32),       // line 9866
        ty: bits(36, 34),         // line 9865
        addr_mode: bits(63, 63),  // lines 9875, 9884
        hstride: bits(62, 61),    // line 9885; "MBZ" in Align16 (line 9876) but kept
        nr: bits(60, 53),         // lines 9877, 9886
        subnr: bits(52, 48),      // line 9887
        subnr16: bits(52, 52),    // line 9878
        writemask: bits(51, 48),  // line 9879
        addr_subnr: bits(60, 58), // lines 9896, 9905
        addr_imm: bits(57, 48),   // line 9906
        addr_imm16: bits(57, 52), // line 9897
    },
    src0: SrcFields {
        file: bits(38, 37),       // line 9864
        ty: bits(41, 39),         // line 9863
        vstride: bits(88, 85),    // DW2 24:21, lines 9921-9982
        width: bits(84, 82),      // DW2 20:18
        hstride: bits(81, 80),    // DW2 17:16
        swizzle_hi: bits(83, 80), // DW2 19:16 ChanSel[7:4]
        swizzle_lo: bits(67, 64), // DW2 3:0 ChanSel[3:0]
        addr_mode: bits(79, 79),  // DW2 15
        negate: bits(78, 78),     // SrcMod 14:13 = 10 negate (line 9763)
        abs: bits(77, 77),        // SrcMod 01 abs
        nr: bits(76, 69),         // DW2 12:5
        subnr: bits(68, 64),      // DW2 4:0
        subnr16: bits(68, 68),    // DW2 4
        addr_subnr: bits(76, 74), // DW2 12:10
        addr_imm: bits(73, 64),   // DW2 9:0
        addr_imm16: bits(73, 68), // DW2 9:4
    },
    src1: SrcFields {
        file: bits(43, 42),      // line 9862
        ty: bits(46, 44),        // line 9857
        vstride: bits(120, 117), // DW3 24:21, lines 9994-10052
        width: bits(116, 114),   // DW3 20:18
        hstride: bits(113, 112), // DW3 17:16
        swizzle_hi: bits(115, 112),
        swizzle_lo: bits(99, 96),
        addr_mode: bits(111, 111), // DW3 15 (indirect tables 13-16/13-17)
        negate: bits(110, 110),
        abs: bits(109, 109),
        nr: bits(108, 101),
        subnr: bits(100, 96),
        subnr16: bits(100, 100),
        addr_subnr: bits(108, 106),
        addr_imm: bits(105, 96),
        addr_imm16: bits(105, 100),
    },
    three_src: None,
    // Message descriptor, Table 14-15, lines 13388-13396: EOT 31, 30:28 MBZ,
    // target 27:24, length 23:20, response length 19:16, function 15:0.
    send: SendLayout::Gen4 {
        sfid: bits(123, 120),
        mlen: bits(119, 116),
        rlen: bits(115, 112),
        function: bits(111, 96),
    },
};

/// Opcodes of both Gen4 parts: Tables 13-20..13-25, lines 10116-10264.
/// Source counts are the tables' #src column without the exit code, which
/// branches keep in DW3 instead of an operand.
pub(super) const GEN4_OPS: [OpInfo; 47] = [
    op(0x00, O::Illegal, 0, ALU), // line 10258
    op(0x01, O::Mov, 1, ALU),     // lines 10119-10134
    op(0x02, O::Sel, 2, ALU),
    op(0x04, O::Not, 1, ALU),
    op(0x05, O::And, 2, ALU),
    op(0x06, O::Or, 2, ALU),
    op(0x07, O::Xor, 2, ALU),
    op(0x08, O::Shr, 2, ALU),
    op(0x09, O::Shl, 2, ALU),
    op(0x0C, O::Asr, 2, ALU),
    op(0x10, O::Cmp, 2, ALU),
    op(0x11, O::Cmpn, 2, ALU),
    op(0x20, O::Jmpi, 1, ALU), // lines 10147-10170 ("jmp" in the table)
    op(0x22, O::If, 0, JUMP),
    op(0x23, O::Iff, 0, JUMP),
    op(0x24, O::Else, 0, JUMP),
    op(0x25, O::Endif, 0, JUMP), // table says 0x25; its ref page prints 0x24
    op(0x26, O::Do, 0, ALU),
    op(0x27, O::While, 0, JUMP),
    op(0x28, O::Break, 0, JUMP),
    op(0x29, O::Cont, 0, JUMP),
    op(0x2A, O::Halt, 0, JUMP),
    op(0x2C, O::Msave, 1, ALU),
    op(0x2D, O::Mrest, 1, ALU),
    op(0x2E, O::Push, 1, ALU),
    op(0x2F, O::Pop, 2, ALU),
    op(0x30, O::Wait, 1, ALU), // lines 10178-10190
    op(0x31, O::Send, 1, Layout::Send),
    op(0x40, O::Add, 2, ALU), // lines 10198-10215
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
    op(0x50, O::Sad2, 2, ALU), // lines 10224-10245
    op(0x51, O::Sada2, 2, ALU),
    op(0x54, O::Dp4, 2, ALU),
    op(0x55, O::Dph, 2, ALU),
    op(0x56, O::Dp3, 2, ALU),
    op(0x57, O::Dp2, 2, ALU),
    op(0x59, O::Line, 2, ALU),
    op(0x7E, O::Nop, 0, ALU), // line 10260
];

/// [DevCTG-B+] additions: movi (line 10121; not on BW/CL, line 10135; #src
/// blank there, 1 per the Gen6 table), pln (line 10243), nenop (line 10259).
const G45_EXTRA: [OpInfo; 3] = [
    op(0x03, O::Movi, 1, ALU),
    op(0x5A, O::Pln, 2, ALU),
    op(0x7D, O::Nenop, 0, ALU),
];

static G45_OPS: [OpInfo; 50] = concat_ops(GEN4_OPS, G45_EXTRA);

/// Register file codes, line 9862.
pub(super) const REG_FILES: [Option<RegFile>; 4] = [
    Some(RegFile::Arf),
    Some(RegFile::Grf),
    Some(RegFile::Mrf),
    Some(RegFile::Imm),
];

/// Register type codes, lines 9857, 9865 (110 reserved).
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

/// Immediate type codes, line 9857 (100 reserved, no byte immediates).
const IMM_TYPES: [Option<Type>; 8] = [
    Some(Type::Ud),
    Some(Type::D),
    Some(Type::Uw),
    Some(Type::W),
    None,
    Some(Type::Vf),
    Some(Type::V),
    Some(Type::F),
];

/// ExecSize, line 9823.
pub(super) const EXEC_SIZES: [Option<u8>; 8] = [
    Some(1),
    Some(2),
    Some(4),
    Some(8),
    Some(16),
    Some(32),
    None,
    None,
];

/// ThreadCtrl, line 9834 (00 normal, 10 switch, 11 reserved); 01 "Atomic"
/// is not in the field table but is in the BNF, line 10526.
pub(super) const THREAD_CTRLS: [Option<ThreadCtrl>; 4] = [
    Some(ThreadCtrl::Normal),
    Some(ThreadCtrl::Atomic),
    Some(ThreadCtrl::Switch),
    None,
];

/// ComprCtrl, line 9835.
const COMPRESSIONS: [Option<Compression>; 4] = [
    Some(Compression::None),
    Some(Compression::SecHalf),
    Some(Compression::Compressed),
    None,
];

/// PredCtrl in Align1, line 9829 (1100-1111 reserved).
pub(super) const PRED_ALIGN1: [Option<PredCtrl>; 16] = [
    Some(PredCtrl::None),
    Some(PredCtrl::Normal),
    Some(PredCtrl::AnyV),
    Some(PredCtrl::AllV),
    Some(PredCtrl::Any2H),
    Some(PredCtrl::All2H),
    Some(PredCtrl::Any4H),
    Some(PredCtrl::All4H),
    Some(PredCtrl::Any8H),
    Some(PredCtrl::All8H),
    Some(PredCtrl::Any16H),
    Some(PredCtrl::All16H),
    None,
    None,
    None,
    None,
];

/// PredCtrl in Align16, line 9829 (1000-1111 reserved).
pub(super) const PRED_ALIGN16: [Option<PredCtrl>; 16] = [
    Some(PredCtrl::None),
    Some(PredCtrl::Normal),
    Some(PredCtrl::X),
    Some(PredCtrl::Y),
    Some(PredCtrl::Z),
    Some(PredCtrl::W),
    Some(PredCtrl::Any4H),
    Some(PredCtrl::All4H),
    None,
    None,
    None,
    None,
    None,
    None,
    None,
    None,
];

/// CondModifier, Table 13-3 line 9749 (0111 = .r round increment).
const COND_MODS: [Option<CondMod>; 16] = [
    Some(CondMod::None),
    Some(CondMod::Z),
    Some(CondMod::Nz),
    Some(CondMod::G),
    Some(CondMod::Ge),
    Some(CondMod::L),
    Some(CondMod::Le),
    Some(CondMod::R),
    Some(CondMod::O),
    Some(CondMod::U),
    None,
    None,
    None,
    None,
    None,
    None,
];

/// Target Function ID, Table 14-15 line 13393 (1000-1111 reserved).
const SFIDS: [Option<Sfid>; 16] = [
    Some(Sfid::Null),
    Some(Sfid::Math),
    Some(Sfid::Sampler),
    Some(Sfid::Gateway),
    Some(Sfid::DataPortRead),
    Some(Sfid::DataPortWrite),
    Some(Sfid::Urb),
    Some(Sfid::ThreadSpawner),
    None,
    None,
    None,
    None,
    None,
    None,
    None,
    None,
];

/// ARF types, Table 11-5 lines 7558-7572. The table lost its 0011 row;
/// f0 is described at lines 7794-7809.
const ARF: [Option<ArfKind>; 16] = [
    Some(ArfKind::Null),
    Some(ArfKind::Address),
    Some(ArfKind::Accumulator),
    Some(ArfKind::Flag),
    Some(ArfKind::Mask),
    Some(ArfKind::MaskStack),
    Some(ArfKind::MaskStackDepth),
    Some(ArfKind::State),
    Some(ArfKind::Control),
    Some(ArfKind::Notification),
    Some(ArfKind::Ip),
    None,
    None,
    None,
    None,
    None,
];

/// 965 G/Q, GM965, G35 ([DevBW], [DevCL]): no compaction, bit 28 MBZ.
pub(super) static GEN4: GenTables = GenTables {
    platform: IsaGen::Gen4,
    fields: FIELDS,
    opcodes: &GEN4_OPS,
    reg_files: REG_FILES,
    reg_types: REG_TYPES,
    imm_types: IMM_TYPES,
    three_src_types: None,
    exec_sizes: EXEC_SIZES,
    thread_ctrls: THREAD_CTRLS,
    compressions: Some(COMPRESSIONS),
    pred_align1: PRED_ALIGN1,
    pred_align16: PRED_ALIGN16,
    cond_mods: COND_MODS,
    math_fns: [None; 16], // math is a message to SFID 1 (lines 5845-5883)
    sfids: SFIDS,
    flag_regs: 1,
    // Jump counts are in 128-bit instructions (lines 11085-11090); so is
    // the jmpi index (lines 11925-11976).
    jump_unit: 16,
    jmpi_unit: 16,
    arf: ARF,
};

/// GM45/G4x ([DevCTG], [DevEL]): MaskCtrlEx in bit 28 (line 9813),
/// CompactCtrl in bit 29 (lines 10054-10096), movi/pln/nenop.
pub(super) static G45: GenTables = GenTables {
    platform: IsaGen::G45,
    fields: Fields {
        bit28_meaning: Bit28::MaskCtrlEx,
        cmpt: Some(bits(29, 29)),
        ..FIELDS
    },
    opcodes: &G45_OPS,
    reg_files: REG_FILES,
    reg_types: REG_TYPES,
    imm_types: IMM_TYPES,
    three_src_types: None,
    exec_sizes: EXEC_SIZES,
    thread_ctrls: THREAD_CTRLS,
    compressions: Some(COMPRESSIONS),
    pred_align1: PRED_ALIGN1,
    pred_align16: PRED_ALIGN16,
    cond_mods: COND_MODS,
    math_fns: [None; 16],
    sfids: SFIDS,
    flag_regs: 1,
    jump_unit: 16,
    jmpi_unit: 16,
    arf: ARF,
};
