//! Where each rule comes from, per generation: the manual lines (or the
//! [ext: ...] source) that messages end with. See `rule.rs` for the
//! manuals' names.

use super::Rule;
use crate::generation::IsaGen;

/// The manual generation a rule's text comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Gen {
    G4,
    G6,
    G7,
}

fn gen_of(p: IsaGen) -> Gen {
    match p {
        IsaGen::Gen4 | IsaGen::G45 => Gen::G4,
        IsaGen::Gen6 => Gen::G6,
        // Gen12.5 runs only the xe/ rules, cited without a generation.
        IsaGen::Gen7 | IsaGen::Gen75 | IsaGen::Gen12_5 => Gen::G7,
    }
}

impl Rule {
    /// Where the rule comes from for platform `p` (for messages).
    pub fn citation(self, p: IsaGen) -> &'static str {
        use Gen::*;
        use Rule::*;
        let g = gen_of(p);
        match (self, g) {
            (XeSendDescriptor, _) => "004 lines 19506-19586, 15406-15469, 10451-10478, 15127-15162",
            (XeSendLength, _) => "004 lines 7003-7014, 10451-10478, 15127-15162",
            (XeLscShape, _) => "004 lines 19506-19586",
            (XeTokenDependency, _) => {
                "[ext: Mesa brw_scoreboard.cpp: out-of-order dependencies wait on their SBID]"
            }
            (XeDistanceDependency, _) => {
                "[ext: Mesa brw_scoreboard.cpp: in-order dependencies wait by register distance]"
            }
            (XeOpcodeTypes, _) => "004 type tables; [ext: Mesa intel_device_info.c]",
            (XeModifier, _) => "004 instruction headers",
            (XeConversion, _) => {
                "[ext: Mesa brw_eu_validate.c general_restrictions_based_on_operand_types]"
            }
            (XeAccumulator, _) => "004 lines 6311-6313, 10500, 13596, 15177, 19735, 29372, 29625",
            (XeByteSource, _) => "[ext: Mesa brw_eu_validate.c, Gfx11+]",
            (XeSendPayload, _) => "[ext: Mesa brw_eu_validate.c send_restrictions]",
            (XeMixedFloat, _) => {
                "[ext: Mesa brw_eu_validate.c special_restrictions_for_mixed_float_mode]"
            }
            (XeVectorImmediate, _) => "[ext: Mesa brw_eu_validate.c vector_immediate_restrictions]",
            (XeDstSpan, _) => "[ext: Mesa brw_eu_validate.c region_alignment_rules]",
            (XeRegisterNumber, _) => "004 line 33186",
            (XeEotPayload, _) => "004 line 33186",
            (XeDpas, _) => "004 lines 13857-13867, 14199-14209",
            (ExecSizeLimit, G4) => "000 lines 8439, 8490-8498",
            (ExecSizeLimit, G6) => "003 lines 91714, 91810-91816; 001 line 633",
            (ExecSizeLimit, G7) => "001 line 633; 003 lines 91714-91716",
            (WidthAboveExecSize, G4) => "000 line 8441",
            (WidthAboveExecSize, _) => "003 line 91722",
            (VertStrideMismatch, G4) => "000 line 8442",
            (VertStrideMismatch, _) => "003 line 91724",
            (WidthOneHorzStride, G4) => "000 line 8444",
            (WidthOneHorzStride, _) => "003 line 91727",
            (ScalarStrides, G4) => "000 line 8445",
            (ScalarStrides, _) => "003 line 91729",
            (ZeroStridesWidth, G4) => "000 line 8446",
            (ZeroStridesWidth, _) => "003 line 91731",
            (VertStrideForType, G4) => "000 line 9768",
            (VertStrideForType, _) => "003 lines 94144-94146",
            (SourceSpan, G4) => "000 lines 8465, 8476",
            (SourceSpan, _) => "003 lines 91788, 91798",
            (SourceRowCrossing, G4) => "000 line 8466",
            (SourceRowCrossing, _) => {
                "000 line 8466, kept for Gen6+ by [ext: Mesa brw_eu_validate.c]"
            }
            (Src1CrossingStride, _) => "000 line 8467",
            (Align16SourceSpan, _) => "000 line 8471",
            (DstCrossing, G4) => "000 lines 8450-8451",
            (DstCrossing, _) => {
                "003 lines 91733-91736, widened to evenly split two-register \
                 destinations by [ext: Mesa brw_eu_validate.c]"
            }
            (DstHorzStrideZero, G4) => "000 lines 8455-8456",
            (DstHorzStrideZero, _) => "003 lines 91749-91754",
            (DstAlignment, G4) => "000 lines 8453-8454, 8462-8463, 8486",
            (DstAlignment, _) => "003 lines 91740-91747, 91776-91783",
            (DstStride, G4) => "000 lines 8455, 8464",
            (DstStride, _) => "003 lines 91749, 91785",
            (PackedByteDst, G4) => "000 line 8457",
            (PackedByteDst, _) => "003 line 91756",
            (DstOwordSplit, G4) => "000 lines 8458-8461",
            (DstOwordSplit, _) => "003 lines 91762-91769",
            (DstRegisterSource, _) => {
                "003 lines 91771-91774; [ext: Mesa brw_eu_validate.c, IVB/HSW PRM text]"
            }
            (IndirectSingleIndex, G4) => "000 lines 8474-8475, 9768",
            (IndirectSingleIndex, _) => "003 lines 91792-91796",
            (IndirectSrc1Device, _) => "000 lines 8473, 8500-8504",
            (AddressGroup, G4) => "000 lines 7659-7666",
            (AddressGroup, G6) => "003 lines 90267-90284",
            (AddressGroup, G7) => "001 lines 2575-2600",
            (IndirectDevice, _) => "000 lines 8478-8483",
            (Align16VertStride, G4) => "000 line 9768",
            (Align16VertStride, _) => "003 line 94120",
            (Align16Origin, G4) => "000 line 8416",
            (Align16Origin, _) => "003 lines 91664-91668",
            (Align16DstStride, _) => "003 line 94776",
            (Align16ExecSize, _) => {
                "[ext: IVB PRM, 'In Align16 access mode, SIMD16 is not allowed for \
                 DW operations', quoted in Mesa brw_fs.cpp]"
            }
            (RegionForm, G4) => "000 lines 8412-8420",
            (RegionForm, _) => "003 lines 91664-91680",
            (RegisterType, G4) => "000 line 9857",
            (RegisterType, G6) => "003 lines 94802-94817",
            (RegisterType, G7) => "001 lines 639-640; 003 lines 94802-94817",
            (ImmediateType, G4) => "000 lines 8233, 9857",
            (ImmediateType, G6) => "003 lines 91255, 94820-94833",
            (ImmediateType, G7) => "001 lines 3970-3975",
            (MixedTypes, G4) => "000 lines 10881, 11163, 11221, 12023, 12507",
            (MixedTypes, _) => "003 line 91700",
            (OpcodeTypes, G4) => "000 instruction reference, lines 10798-13740",
            (OpcodeTypes, _) => "003 instruction reference, lines 96442-101531",
            (ImmediatePlacement, G4) => "000 lines 9644, 9775",
            (ImmediatePlacement, _) => "003 lines 93539-93541, 94793-94794",
            (WordImmediate, G4) => "000 line 8235",
            (WordImmediate, G6) => "003 lines 91258-91260",
            (WordImmediate, G7) => "001 lines 3964-3967",
            (VectorImmediateDst, G4) => "000 line 8257",
            (VectorImmediateDst, G6) => "003 lines 91299-91302",
            (VectorImmediateDst, G7) => "001 lines 3992-3995",
            (VectorImmediatePackedWord, G4) => "000 line 9857",
            (VectorImmediatePackedWord, _) => "003 lines 94796-94799",
            (RegisterNumber, G4) => "000 lines 9755, 7540-7546",
            (RegisterNumber, G6) => {
                "003 lines 94004, 90007 (24 MRFs; the RegNum text at line 94010 \
                 still says 16)"
            }
            (RegisterNumber, G7) => "003 line 94004",
            (RegisterFile, G4) => "000 line 7529",
            (RegisterFile, G6) => "003 line 89988",
            (RegisterFile, G7) => "001 lines 2170-2192",
            (ArfNumber, G4) => "000 lines 7558-7574",
            (ArfNumber, G6) => "003 lines 90017-90050",
            (ArfNumber, G7) => "001 lines 2253-2300",
            (NullSource, G4) => "000 line 7601",
            (NullSource, _) => "003 line 90114",
            (UnusedSource, _) => "000 lines 9183-9186",
            (AccSourceSlot, G4) => "000 line 7709",
            (AccSourceSlot, _) => "003 line 90375",
            (AccMismatch, G4) => "000 line 7703",
            (AccMismatch, _) => "003 line 90369",
            (AccSourceModifier, G4) => "000 line 7709",
            (AccSourceModifier, _) => "003 lines 96766, 97393",
            (AccOperand, G4) => "000 instruction reference, lines 10798-13740",
            (AccOperand, _) => "003 instruction reference, lines 96442-101531",
            (AccWideExec, G4) => "000 line 7707",
            (AccWideExec, G6) => "003 line 90372",
            (AccWideExec, G7) => "001 line 672; 003 line 90372",
            (AccSaturate, _) => "000 line 7713",
            (AccSwizzle, _) => "003 line 90382",
            (SwitchRequired, G4) => "000 lines 7844, 7916-7918, 7983, 8138",
            (SwitchRequired, G6) => "003 lines 91003-91008",
            (SwitchRequired, G7) => {
                "001 lines 3504-3510; for cmp with a null destination [ext: IVB PRM \
                 quoted in Mesa brw_eu_validate.c]"
            }
            (FlagRegister, G4) => "000 lines 7778-7790",
            (FlagRegister, G6) => "003 lines 90464-90470",
            (FlagRegister, G7) => "001 lines 635, 2852",
            (PredicateMode, G4) => "000 line 9829",
            (PredicateMode, _) => "003 lines 94546-94609",
            (CondModCode, G4) => "000 lines 9749, 9820-9822",
            (CondModCode, _) => "003 lines 93945-93975",
            (MrfZero, _) => "000 line 7548",
            (
                PredicationNotAllowed
                | PredicationRequired
                | CondModNotAllowed
                | CondModRequired
                | SaturateNotAllowed
                | SourceModifierNotAllowed
                | OpcodeExecSize
                | NoMaskRequired
                | AccWriteRequired
                | OpcodeOperands
                | CmpDestination
                | SelByteDestination
                | SelConversion,
                G4,
            ) => "000 instruction reference, lines 10798-13740",
            (
                PredicationNotAllowed
                | PredicationRequired
                | CondModNotAllowed
                | CondModRequired
                | SaturateNotAllowed
                | SourceModifierNotAllowed
                | OpcodeExecSize
                | NoMaskRequired
                | AccWriteRequired
                | OpcodeOperands
                | CmpDestination
                | SelByteDestination
                | SelConversion,
                _,
            ) => "003 instruction reference, lines 96442-101531",
            (ComprAccessMode, _) => "000 line 8807",
            (ComprExecSize, _) => "000 line 8823",
            (ComprOpcode, _) => "000 line 8826",
            (ComprArf, _) => "000 lines 8827-8828",
            (ComprAlignment, _) => "000 lines 8808-8822",
            (ComprIndirect, _) => "000 lines 8764-8770",
            (ComprDevice, _) => "000 lines 8796-8798",
            (GroupControl, _) => "003 lines 94697-94699, 97140; 001 line 637",
            (SendPayload, G4) => "000 line 13344",
            (SendPayload, G6) => "003 line 100844",
            (SendPayload, G7) => "001 lines 2170-2192 (no MRF)",
            (SendDestination, G4) => "000 line 13356",
            (SendDestination, _) => "003 lines 100849, 101024",
            (SendLength, G4) => "000 lines 13394-13395",
            (SendLength, _) => "003 lines 100895-100909",
            (SendResponse, G4) => "000 lines 13358-13360",
            (SendResponse, _) => "003 lines 100853-100860",
            (SendDescriptor, G4) => "000 lines 7668, 13340",
            (SendDescriptor, _) => "003 lines 90286-90290, 100835-100836",
            (SendControls, G4) => "000 lines 13380, 13384",
            (SendControls, _) => "003 lines 100885-100886, 101019-101023",
            (SendPostDstType, _) => "000 lines 13366-13368",
            (EotDestination, G4) => "000 line 13422",
            (EotDestination, _) => "003 line 101002",
            (EotTarget, G4) => "000 lines 1107-1110, 1120, 13424",
            (EotTarget, _) => "003 lines 72865-72875, 101008-101012",
            (EotDescriptor, _) => "000 line 1168, against line 13340",
            (EotPayload, _) => "[ext: Mesa brw_eu_validate.c, 'send with EOT must use g112-g127']",
            (MathOperands, _) => "003 lines 99306, 99319, 99331",
            (MathTypes, _) => "003 lines 99324-99329",
            (MathRegion, _) => "003 lines 99308-99317",
            (MathAccessMode, _) => {
                "003 line 99308 against [ext: Mesa brw_vec4_generator.cpp, Gen6 math \
                 ignores Align16 controls]"
            }
            (MathFunction, _) => "003 lines 99259-99298",
            (ThreeSrcAccessMode, _) => "003 line 93863",
            (ThreeSrcOperands, _) => "003 lines 93857-93863, 98878, 99112",
            (PopCount, _) => "000 lines 11607-11608, 11672-11674, 11789, 11848, 11908, 13662",
            (EmbeddedCompare, _) => "003 lines 98550-98557, 101434-101441, 97288-97295",
            (JumpTarget, G4) => "000 lines 11084, 9079-9080",
            (JumpTarget, _) => "003 lines 92490-92493, 97017",
            (CompactAlignment, _) => "000 lines 9078-9081",
            (WaitBackToBack, G4) => "000 line 13605",
            (WaitBackToBack, _) => "003 line 101301",
            (TwoRowAfterBranch, _) => "000 line 8484",
        }
    }
}
