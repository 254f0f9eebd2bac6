//! The rules, each with the manual lines it comes from.
//!
//! Manuals: "000" is the Gen4/G45 PRM Vol 4 (000_5e6e9c0c4071cf6e.txt),
//! "003" the Sandy Bridge PRM (003_e4327438ed1f7ac3.txt), "001" the Ivy
//! Bridge EU ISA chapters (001_f8ea3ab73a649b18.txt). The Ivy Bridge volume
//! stops before its restrictions chapter, so Gen7 and Gen7.5 use the Gen6
//! rules unless 001's change list (lines 617-673) says otherwise; rules from
//! outside the manuals are marked [ext: ...] with the project they come from.
//! Rules whose text differs per instruction carry the exact lines in their
//! message instead (see `opcode.rs`).

/// Every rule the validator checks.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    // ---- Gen12.5 (xe/) ----
    /// An LSC or gateway send whose immediate descriptor has a reserved
    /// code or a must-be-zero bit set for its SFID (004 DP_LOAD lines
    /// 19506-19586, DP_FENCE 15406-15469, MSD_BARRIER 10451-10478, MSD_EOT
    /// 15127-15162).
    XeSendDescriptor,
    /// Message, response and second-payload lengths against the LSC
    /// descriptor (004 lines 7003-7014: src0 = roundup(addr_size * simd /
    /// grf), dest = roundup(data_size * vector * simd / grf)) and the
    /// gateway's one register (004 lines 10451-10478, 15127-15162).
    XeSendLength,
    /// LSC shapes: transposed at SIMD1, 8/16-bit data with vector 1, the
    /// non-transposed vector limits (004 DP_LOAD lines 19506-19586).
    XeLscShape,
    /// A register of an out-of-order instruction (send, math, dpas) used
    /// before waiting on its SBID token ([ext: Mesa brw_scoreboard.cpp]).
    XeTokenDependency,
    /// A register written by one of the last seven in-order instructions
    /// read without a register-distance wait reaching it ([ext: Mesa
    /// brw_scoreboard.cpp]).
    XeDistanceDependency,
    /// Types per opcode from 004's type tables, and DG2's missing 64-bit
    /// types ([ext: Mesa intel_device_info.c]); warnings (iga64 accepts).
    XeOpcodeTypes,
    /// Source modifier, saturation, condition modifier and predication
    /// where the instruction's header in 004 says false.
    XeModifier,
    /// Destinations of conversions: packed bytes only for a raw mov, the
    /// stride and alignment of the execution type, integer <-> HF DWord
    /// strided ([ext: Mesa brw_eu_validate.c]); warnings (iga64 accepts).
    XeConversion,
    /// Accumulator uses each instruction's entry in 004 forbids (no
    /// access for the bit-field instructions, only invm/rsqtm in math,
    /// addc/subb's implicit destination and AccWrEn ...); warnings.
    XeAccumulator,
    /// A byte-typed src1 (src1/src2 of a three-source instruction but
    /// dpas) ([ext: Mesa brw_eu_validate.c, Gfx11+]); a warning.
    XeByteSource,
    /// Send payloads: a split send's two payloads overlapping, a response
    /// ending at r127 over its own payload ([ext: Mesa brw_eu_validate.c
    /// send_restrictions]); warnings.
    XeSendPayload,
    /// Mixed F/HF restrictions ([ext: Mesa brw_eu_validate.c
    /// special_restrictions_for_mixed_float_mode]); warnings.
    XeMixedFloat,
    /// V/UV/VF immediates need a 16-byte aligned word- or dword-strided
    /// destination ([ext: Mesa brw_eu_validate.c]); a warning.
    XeVectorImmediate,
    /// A destination spanning more than two registers ([ext: Mesa
    /// brw_eu_validate.c region_alignment_rules]); a warning.
    XeDstSpan,
    /// A GRF past r127 (DG2 has 128).
    XeRegisterNumber,
    /// An EOT send's payload outside r112-r127 (004 line 33186).
    XeEotPayload,
    /// dpas/dpasw: ExecSize 8, systolic depth 8, src1 at a register start
    /// (004 lines 13857-13867, 14199-14209).
    XeDpas,
    // ---- Region parameters (region.rs) ----
    /// ExecSize at most the limit of the widest operand type: Gen4 8 (dword)
    /// or 16 (word/byte), twice that compressed (000 lines 8439, 8490-8498);
    /// Gen6 16/32 (003 lines 91714, 91810-91816); Gen7 32 for bytes and words
    /// only (001 line 633).
    ExecSizeLimit,
    /// ExecSize >= Width (000 line 8441; 003 line 91722).
    WidthAboveExecSize,
    /// ExecSize = Width and HorzStride != 0 need VertStride = Width *
    /// HorzStride (000 line 8442; 003 line 91724).
    VertStrideMismatch,
    /// Width 1 needs HorzStride 0 (000 line 8444; 003 line 91727).
    WidthOneHorzStride,
    /// ExecSize = Width = 1 needs both strides 0 (000 line 8445; 003 line
    /// 91729).
    ScalarStrides,
    /// VertStride = HorzStride = 0 needs Width 1 (000 line 8446; 003 line
    /// 91731).
    ZeroStridesWidth,
    /// VertStride 16 only for bytes and words, 32 only for bytes (000 line
    /// 9768; 003 lines 94144-94146).
    VertStrideForType,
    /// An Align1 source lies within two adjacent registers, and elements of
    /// one index within one register (000 lines 8465, 8476; 003 lines 91788,
    /// 91798).
    SourceSpan,
    /// A row of an Align1 source may not cross a register (000 line 8466;
    /// Gen6+ [ext: Mesa brw_eu_validate.c] keeps it, reported as a warning).
    SourceRowCrossing,
    /// Gen4: src1 crossing a register needs a 32-byte VertStride (000 line
    /// 8467).
    Src1CrossingStride,
    /// Gen4: an Align16 source lies within one register (000 line 8471).
    Align16SourceSpan,
    /// The destination may not cross a register, except a compressed
    /// (Gen4, 000 lines 8450-8451) or SIMD16 dword (Gen6, 003 lines
    /// 91733-91736) one covering exactly two.
    DstCrossing,
    /// Destination HorzStride 0 (000 lines 8455-8456; 003 lines 91749-91754).
    DstHorzStrideZero,
    /// Destination sub-register aligned to the execution type, bytes also
    /// one above on G45+ (000 lines 8453-8454, 8462-8463, 8486; 003 lines
    /// 91740-91747, 91776-91783).
    DstAlignment,
    /// Destination stride * size >= execution type size (000 lines 8455,
    /// 8464; 003 lines 91749, 91785).
    DstStride,
    /// Packed-byte destinations only for a raw `mov` (000 line 8457; 003
    /// line 91756).
    PackedByteDst,
    /// A two-register source needs the destination in one oword or split
    /// evenly (000 lines 8458-8461; 003 lines 91762-91769).
    DstOwordSplit,
    /// Gen6+: a two-register destination takes each register from one
    /// source register (003 lines 91771-91774), and single-register sources
    /// must be scalar or packed words widened to dwords [ext: Mesa
    /// brw_eu_validate.c, quoting the IVB/HSW PRMs].
    DstRegisterSource,
    /// Only src0 may use more than one address sub-register (000 lines
    /// 8474-8475, 9768 note 3; 003 lines 91792-91796).
    IndirectSingleIndex,
    /// 965G/G35 have no indirect src1 (000 lines 8473, 8500-8504).
    IndirectSrc1Device,
    /// Address sub-registers used as a group are group-aligned, at most 8
    /// (000 lines 7659-7666; 003 lines 90267-90284; 001 lines 2575-2600).
    AddressGroup,
    /// 965/GM965 indirect errata: VxH with 2 indices may not start at a0.6;
    /// a0.7 with a negative offset on bytes (000 lines 8478-8483).
    IndirectDevice,
    /// Align16 VertStride only 0 or 4 (000 line 9768; 003 line 94120).
    Align16VertStride,
    /// Align16 operands start on 16 bytes (000 lines 8414-8416; 003 lines
    /// 91664-91668).
    Align16Origin,
    /// Gen6+: Align16 destinations are programmed with HorzStride 1 (003
    /// line 94776).
    Align16DstStride,
    /// Gen6/Gen7: no SIMD16 Align16 instruction on dwords [ext: IVB PRM
    /// "In Align16 access mode, SIMD16 is not allowed for DW operations",
    /// quoted in Mesa brw_fs.cpp].
    Align16ExecSize,
    /// The region form (Align1, VxH, Align16) matches the access mode (000
    /// lines 8412-8420; 003 lines 91664-91680).
    RegionForm,

    // ---- Types and immediates (types.rs) ----
    /// The type exists as a register type on the platform (000 line 9857;
    /// 003 lines 94802-94817; 001 lines 639-640).
    RegisterType,
    /// The type exists as an immediate type (000 lines 8233, 9857; 003
    /// lines 91255, 94820-94833; 001 lines 3970-3975).
    ImmediateType,
    /// Mixed float and integer sources (Gen6+, 003 line 91700); on Gen4 a
    /// float with a dword integer in add/mul/cmp/cmpn/line (000 lines 10881,
    /// 11163, 11221, 12023, 12507).
    MixedTypes,
    /// Operand types an instruction accepts (the lines per instruction are
    /// in `types::table` and `types::special_types`).
    OpcodeTypes,
    /// Only the last source may be an immediate (000 lines 9644, 9775; 003
    /// lines 93539-93541, 94793-94794).
    ImmediatePlacement,
    /// Word immediates repeat in both halves (000 line 8235; 003 lines
    /// 91258-91260; 001 lines 3964-3967).
    WordImmediate,
    /// A vector immediate needs a 16-byte aligned destination with a word
    /// (V/UV) or dword (VF) stride (000 line 8257; 003 lines 91299-91302;
    /// 001 lines 3992-3995).
    VectorImmediateDst,
    /// A :v src1 needs a byte or word src0 (000 line 9857 note 2; 003 lines
    /// 94796-94799).
    VectorImmediatePackedWord,

    // ---- Operands (operands.rs) ----
    /// Register numbers in range: GRF r0-r127, MRF m0-m15 (Gen4), m0-m23
    /// (Gen6) (000 lines 9755, 7540-7546; 003 lines 94004, 90007).
    RegisterNumber,
    /// Register file use: MRF only as a destination, no MRF on Gen7, no
    /// immediate destination (000 line 7529; 003 line 89988; 001 lines
    /// 2170-2192).
    RegisterFile,
    /// ARF register numbers that exist (000 lines 7558-7574; 003 lines
    /// 90017-90050; 001 lines 2253-2300).
    ArfNumber,
    /// A source the instruction reads is the null register: undefined
    /// values (000 line 7601; 003 line 90114).
    NullSource,
    /// The unused src1 of a one-source instruction is null (000 lines
    /// 9183-9186).
    UnusedSource,
    /// An explicit accumulator source is src0 (000 line 7709; 003 line
    /// 90375).
    AccSourceSlot,
    /// Different accumulators as source and destination (000 line 7703; 003
    /// line 90369).
    AccMismatch,
    /// No source modifier on an accumulator source (000 line 7709; 003 lines
    /// 96766, 97393).
    AccSourceModifier,
    /// Instructions that take no accumulator operand (lines per
    /// instruction in `acc::forbidden`).
    AccOperand,
    /// Compressed or SIMD16 dword instructions use acc0 (000 line 7707; 003
    /// line 90372); Gen7 allows no explicit accumulator there (001 line 672).
    AccWideExec,
    /// No saturation with an explicit accumulator destination (000 line
    /// 7713).
    AccSaturate,
    /// Swizzles with an accumulator source (003 line 90382).
    AccSwizzle,
    /// Explicit mask, mask stack and control registers need {Switch} (000
    /// lines 7844, 7916-7918, 7983, 8138; 003 lines 91003-91008; 001 lines
    /// 3504-3510).
    SwitchRequired,
    /// Flag register and sub-register in range: f0 before Gen7, f0-f1 on
    /// Gen7 (000 lines 7778-7790; 003 lines 90464-90470; 001 line 2852).
    FlagRegister,
    /// Predicate control valid for the access mode and platform (000 line
    /// 9829; 003 lines 94546-94609).
    PredicateMode,
    /// Condition modifier defined on the platform (000 lines 9749, 9820-9822; 003
    /// lines 93945-93975).
    CondModCode,
    /// m0 is kept for the system routine (000 line 7548).
    MrfZero,

    // ---- Per-instruction restrictions (opcode.rs, forms.rs) ----
    // The lines are per instruction: the Gen4 table rows in
    // `opcode::row`, the pages' restriction lines beside each check.
    /// Predication not allowed: the Gen4 table (000 lines 10804-13689),
    /// else/endif/wait (003 lines 98003, 98076, 101298), sel with a
    /// condition modifier (003 line 100742).
    PredicationNotAllowed,
    /// `sel` needs a predicate (000 line 13283), or on Gen6+ a condition
    /// modifier (003 lines 100740-100741).
    PredicationRequired,
    /// Condition modifier not allowed: the Gen4 table, movi (003 line
    /// 99518), mul on dwords (000 line 12509; 003 lines 99687-99689), lrp
    /// .o (003 line 98882); mov on Gen6 is a warning (003 line 99412).
    CondModNotAllowed,
    /// `cmp`/`cmpn` need a condition modifier (000 line 11151; 003 lines
    /// 97370, 97465).
    CondModRequired,
    /// Saturation not allowed: the Gen4 table, frc (003 line 98314), mul on
    /// dwords (000 line 12509), shl in dword mode (000 lines 13506-13508).
    SaturateNotAllowed,
    /// Source modifiers not allowed: the Gen4 table, shr on unsigned (000
    /// line 13554), Gen6 math and Gen7 INT DIV [ext: Mesa].
    SourceModifierNotAllowed,
    /// Execution sizes of special instructions (dp*, line, pln, sad2, jmpi,
    /// wait, mask-stack ops, movi, call, sel, math; lines in `forms.rs`).
    OpcodeExecSize,
    /// `jmpi` needs {NoMask} (000 line 11963; 003 line 98631).
    NoMaskRequired,
    /// Gen6+ `mach` needs AccWrCtrl (003 lines 99049-99051).
    AccWriteRequired,
    /// Fixed operand forms of special instructions (line, pln, sad2, movi,
    /// wait, mask-stack ops, call, halt, jmpi; lines in `forms.rs`).
    OpcodeOperands,
    /// `cmp`/`cmpn` write a GRF, MRF or null, never an ARF (000 lines 11159,
    /// 11217; 003 lines 97386, 97487).
    CmpDestination,
    /// `sel` byte destinations start on an even byte (000 line 13289; 003
    /// lines 100761-100764).
    SelByteDestination,
    /// Gen6+ `sel` converts no formats (003 line 100755).
    SelConversion,

    // ---- Compression and channel groups (compress.rs) ----
    /// Gen4: compressed instructions are Align1 (000 line 8807).
    ComprAccessMode,
    /// Gen4: compressed ExecSize 16 or 32 (000 line 8823).
    ComprExecSize,
    /// Gen4: instructions that cannot be compressed (000 line 8826 and the
    /// "Instr Comp" column of the instruction reference).
    ComprOpcode,
    /// Gen4: no explicit ARF except accumulators and null in a compressed
    /// instruction (000 lines 8827-8828).
    ComprArf,
    /// Gen4: operand alignment of compressed instructions (000 lines
    /// 8808-8822).
    ComprAlignment,
    /// Gen4: compressed indirect operands use an even address sub-register
    /// and one index (000 lines 8764-8770).
    ComprIndirect,
    /// 965/GM965: no ExecSize 32 compression with an implicit accumulator
    /// source (000 line 8798); Compr4 not supported (000 line 8796).
    ComprDevice,
    /// Gen6+ channel-group control: NibCtrl only with ExecSize <= 4 (003
    /// lines 94697-94699; 001 line 637); `call` takes no QtrCtrl (003 line
    /// 97140).
    GroupControl,

    // ---- send (send.rs) ----
    /// Payload operand: Gen4 GRF or null, direct; Gen6 MRF; Gen7 GRF (000
    /// line 13344; 003 line 100844; 001 lines 2170-2192).
    SendPayload,
    /// Writeback operand: null or GRF; not r0 with a writeback (000 line
    /// 13356; 003 lines 100849, 101024).
    SendDestination,
    /// Message length 1-15, response length 0-8 (Gen4) or 0-16 (Gen6+)
    /// (000 lines 13394-13395; 003 lines 100895-100909).
    SendLength,
    /// Null writeback iff response length 0 (000 lines 13358-13360; 003
    /// lines 100853-100860).
    SendResponse,
    /// A register descriptor is a0.0<0;1,0>:ud (000 lines 7668, 13340; 003
    /// lines 90286-90290, 100835-100836).
    SendDescriptor,
    /// Controls send does not take: compression (Gen4), AccWrCtrl, .sat,
    /// ThreadCtrl (Gen6+), NoDDChk (000 lines 13380, 13384; 003 lines
    /// 100885-100886, 101019-101023).
    SendControls,
    /// Gen4: the post-destination type is word or dword; ExecSize 16 needs
    /// a word type (000 lines 13366-13368).
    SendPostDstType,
    /// EOT needs a null destination (000 line 13422; 003 line 101002).
    EotDestination,
    /// EOT targets: never Sampler (or Gen4 Extended Math); Null and read
    /// ports disputed (000 lines 1107-1110, 13424; 003 lines 72865-72875,
    /// 101008-101012).
    EotTarget,
    /// Gen4: EOT is not recognized with a register descriptor (000 line
    /// 1168, against line 13340).
    EotDescriptor,
    /// Gen7: an EOT payload lives in r112-r127 [ext: Mesa brw_eu_validate.c].
    EotPayload,

    // ---- math (math.rs) ----
    /// Gen6+ math operands: GRF only, direct, src1 null for one-source
    /// functions (003 lines 99306, 99319, 99331).
    MathOperands,
    /// math source types: F, or D/UD (not mixed) for INT DIV (003 lines
    /// 99324-99329).
    MathTypes,
    /// math regions: stride 1, Width = ExecSize, same offsets (003 lines
    /// 99308-99317).
    MathRegion,
    /// Gen6 math in Align16 (003 line 99308 allows it; [ext: Mesa] says the
    /// hardware ignores Align16 controls there).
    MathAccessMode,
    /// The function exists on the platform (003 lines 99259-99298).
    MathFunction,

    // ---- three-source (three_src.rs) ----
    /// Three-source instructions are Align16 (003 line 93863).
    ThreeSrcAccessMode,
    /// Three-source operands: GRF sources, GRF (or Gen6 MRF) destination,
    /// direct, dword sub-registers, no immediates (003 lines 93857-93863,
    /// 98878, 99112).
    ThreeSrcOperands,

    // ---- Branches and kernels (flow.rs) ----
    /// Gen4 exit-code pop counts: 1 for else/endif, 0 where MBZ; endif has
    /// no jump (000 lines 11607-11608, 11672-11674, 11789, 11848, 11908,
    /// 13662).
    PopCount,
    /// Gen6 embedded-compare branches take no predicate (003 lines
    /// 98550-98557, 101434-101441, 97288-97295).
    EmbeddedCompare,
    /// A jump lands on an instruction of the kernel (000 lines 11084,
    /// 9079-9080; 003 lines 92490-92493).
    JumpTarget,
    /// G45: native instructions are 16-byte aligned among compacted ones
    /// (000 lines 9078-9081).
    CompactAlignment,
    /// No two `wait` back to back (000 line 13605; 003 line 101301).
    WaitBackToBack,
    /// 965/GM965: a two-row source right after a conditional branch or at a
    /// jump target (000 line 8484).
    TwoRowAfterBranch,
}

impl Rule {
    /// Every rule, in declaration order.
    pub const ALL: [Rule; 97] = [
        Rule::ExecSizeLimit,
        Rule::WidthAboveExecSize,
        Rule::VertStrideMismatch,
        Rule::WidthOneHorzStride,
        Rule::ScalarStrides,
        Rule::ZeroStridesWidth,
        Rule::VertStrideForType,
        Rule::SourceSpan,
        Rule::SourceRowCrossing,
        Rule::Src1CrossingStride,
        Rule::Align16SourceSpan,
        Rule::DstCrossing,
        Rule::DstHorzStrideZero,
        Rule::DstAlignment,
        Rule::DstStride,
        Rule::PackedByteDst,
        Rule::DstOwordSplit,
        Rule::DstRegisterSource,
        Rule::IndirectSingleIndex,
        Rule::IndirectSrc1Device,
        Rule::AddressGroup,
        Rule::IndirectDevice,
        Rule::Align16VertStride,
        Rule::Align16Origin,
        Rule::Align16DstStride,
        Rule::Align16ExecSize,
        Rule::RegionForm,
        Rule::RegisterType,
        Rule::ImmediateType,
        Rule::MixedTypes,
        Rule::OpcodeTypes,
        Rule::ImmediatePlacement,
        Rule::WordImmediate,
        Rule::VectorImmediateDst,
        Rule::VectorImmediatePackedWord,
        Rule::RegisterNumber,
        Rule::RegisterFile,
        Rule::ArfNumber,
        Rule::NullSource,
        Rule::UnusedSource,
        Rule::AccSourceSlot,
        Rule::AccMismatch,
        Rule::AccSourceModifier,
        Rule::AccOperand,
        Rule::AccWideExec,
        Rule::AccSaturate,
        Rule::AccSwizzle,
        Rule::SwitchRequired,
        Rule::FlagRegister,
        Rule::PredicateMode,
        Rule::CondModCode,
        Rule::MrfZero,
        Rule::PredicationNotAllowed,
        Rule::PredicationRequired,
        Rule::CondModNotAllowed,
        Rule::CondModRequired,
        Rule::SaturateNotAllowed,
        Rule::SourceModifierNotAllowed,
        Rule::OpcodeExecSize,
        Rule::NoMaskRequired,
        Rule::AccWriteRequired,
        Rule::OpcodeOperands,
        Rule::CmpDestination,
        Rule::SelByteDestination,
        Rule::SelConversion,
        Rule::ComprAccessMode,
        Rule::ComprExecSize,
        Rule::ComprOpcode,
        Rule::ComprArf,
        Rule::ComprAlignment,
        Rule::ComprIndirect,
        Rule::ComprDevice,
        Rule::GroupControl,
        Rule::SendPayload,
        Rule::SendDestination,
        Rule::SendLength,
        Rule::SendResponse,
        Rule::SendDescriptor,
        Rule::SendControls,
        Rule::SendPostDstType,
        Rule::EotDestination,
        Rule::EotTarget,
        Rule::EotDescriptor,
        Rule::EotPayload,
        Rule::MathOperands,
        Rule::MathTypes,
        Rule::MathRegion,
        Rule::MathAccessMode,
        Rule::MathFunction,
        Rule::ThreeSrcAccessMode,
        Rule::ThreeSrcOperands,
        Rule::PopCount,
        Rule::EmbeddedCompare,
        Rule::JumpTarget,
        Rule::CompactAlignment,
        Rule::WaitBackToBack,
        Rule::TwoRowAfterBranch,
    ];
}
