//! What the codec refuses, and why: reserved codes and bits give a decode
//! error naming the field; instructions without an encoding (or with one
//! that would decode differently) give an encode error.

use baregpu_isa::codec::from_dwords;
use baregpu_isa::error::{DecodeError, EncodeError, Field, Slot};
use baregpu_isa::inst::{
    AccessMode, Addr, Alu, Body, Branch, Compression, CondMod, Dst, DstSlot, FlagReg, GroupCtrl,
    Imm, Instruction, Jump, MsgDesc, Opcode, Pipe, PredCtrl, RegFile, RegSrc, Region, Send,
    SendDesc, Sfid, Src, Swizzle, Swsb, ThreeSrc, Type, Vacant,
};
use baregpu_isa::{IsaGen, decode, encode};

use IsaGen::*;

/// mov (8) r1<1>:f r2<8;8,1>:f, null src1 — as gen4asm encodes it.
const MOV: u128 = from_dwords([0x00600001, 0x202003bd, 0x008d0040, 0x00000000]);
/// mov (8) r1<1>:d 5:d (immediate src0).
const MOV_IMM: u128 = from_dwords([0x00600001, 0x202010e5, 0x00000000, 0x00000005]);

fn set(word: u128, hi: u32, lo: u32, v: u128) -> u128 {
    let mask = (u128::MAX >> (127 - (hi - lo))) << lo;
    (word & !mask) | (v << lo & mask)
}

fn reserved(field: Field, value: u32) -> DecodeError {
    DecodeError::Reserved { field, value }
}

#[test]
fn reserved_codes_name_their_field() {
    // Register type 110: reserved before Gen7, DF after.
    let w = set(MOV, 36, 34, 6);
    assert_eq!(decode(Gen6, w), Err(reserved(Field::Type(Slot::Dst), 6)));
    assert!(matches!(decode(Gen7, w), Ok(i) if i.dst().map(|d| d.ty) == Some(Type::Df)));
    // Immediate type 100: reserved on Gen4, UV from Gen6.
    let w = set(MOV_IMM, 41, 39, 4);
    assert_eq!(decode(Gen4, w), Err(reserved(Field::Type(Slot::Src0), 4)));
    assert!(decode(Gen6, w).is_ok());
    // Condition modifier 0111: .r on Gen4, reserved on Gen6.
    let w = set(MOV, 27, 24, 7);
    assert_eq!(decode(Gen4, w).map(|i| i.cond_mod), Ok(CondMod::R));
    assert_eq!(decode(Gen6, w), Err(reserved(Field::CondMod, 7)));
    assert_eq!(
        decode(Gen6, set(MOV, 27, 24, 0xA)),
        Err(reserved(Field::CondMod, 0xA))
    );
    assert_eq!(
        decode(Gen7, set(MOV, 23, 21, 6)),
        Err(reserved(Field::ExecSize, 6))
    );
    assert_eq!(
        decode(Gen7, set(MOV, 84, 82, 5)),
        Err(reserved(Field::Region(Slot::Src0), 5))
    );
    assert_eq!(
        decode(Gen7, set(MOV, 88, 85, 7)),
        Err(reserved(Field::Region(Slot::Src0), 7))
    );
    // VxH needs indirect addressing.
    assert_eq!(
        decode(Gen7, set(MOV, 88, 85, 15)),
        Err(reserved(Field::Region(Slot::Src0), 15))
    );
    assert!(decode(Gen7, set(set(MOV, 88, 85, 15), 79, 79, 1)).is_ok());
    assert_eq!(
        decode(Gen6, set(MOV, 15, 14, 3)),
        Err(reserved(Field::ThreadCtrl, 3))
    );
    assert_eq!(
        decode(Gen4, set(MOV, 13, 12, 3)),
        Err(reserved(Field::GroupCtrl, 3))
    );
    assert!(decode(Gen6, set(MOV, 13, 12, 3)).is_ok()); // 4th quarter
    // Predicate 1100: .any32h only from Gen7; Align16 stops at 0111.
    let w = set(MOV, 19, 16, 12);
    assert_eq!(decode(Gen6, w), Err(reserved(Field::PredCtrl, 12)));
    assert_eq!(decode(Gen7, w).map(|i| i.pred_ctrl), Ok(PredCtrl::Any32H));
    assert_eq!(
        decode(Gen7, set(set(MOV, 19, 16, 8), 8, 8, 1)),
        Err(reserved(Field::PredCtrl, 8))
    );
    // Files: no MRF on Gen7, no immediate destination.
    assert_eq!(
        decode(Gen7, set(MOV, 33, 32, 2)),
        Err(reserved(Field::File(Slot::Dst), 2))
    );
    assert_eq!(
        decode(Gen6, set(MOV, 33, 32, 3)),
        Err(reserved(Field::File(Slot::Dst), 3))
    );
}

#[test]
fn reserved_bits_are_reported() {
    for p in IsaGen::ALL {
        assert_eq!(
            decode(p, MOV | 1 << 7),
            Err(DecodeError::ReservedBits { mask: 1 << 7 }),
            "{p}"
        );
        assert_eq!(
            decode(p, MOV | 1 << 93),
            Err(DecodeError::ReservedBits { mask: 1 << 93 }),
            "{p}"
        );
        // An immediate src0 has no region: its bits must be clear.
        assert_eq!(
            decode(p, MOV_IMM | 1 << 69),
            Err(DecodeError::ReservedBits { mask: 1 << 69 }),
            "{p}"
        );
        // Align16 sources leave bit 84 unused.
        let a16 = MOV | 1 << 8;
        assert!(decode(p, a16).is_ok());
        assert_eq!(
            decode(p, a16 | 1 << 84),
            Err(DecodeError::ReservedBits { mask: 1 << 84 }),
            "{p}"
        );
    }
    // NibCtrl (47) and the flag register (90) exist from Gen7.
    assert_eq!(
        decode(Gen6, MOV | 1 << 47),
        Err(DecodeError::ReservedBits { mask: 1 << 47 })
    );
    assert!(
        matches!(decode(Gen7, MOV | 1 << 47), Ok(i) if i.group == GroupCtrl::Quarter { qtr: 0, nib: true })
    );
    assert_eq!(
        decode(Gen6, MOV | 1 << 90),
        Err(DecodeError::ReservedBits { mask: 1 << 90 })
    );
    assert_eq!(
        decode(Gen7, MOV | 1 << 90).map(|i| i.flag),
        Ok(FlagReg { reg: 1, subreg: 0 })
    );
    // Bit 28: MBZ on the 965, MaskCtrlEx on G45, AccWrCtrl from Gen6.
    assert_eq!(
        decode(Gen4, MOV | 1 << 28),
        Err(DecodeError::ReservedBits { mask: 1 << 28 })
    );
    assert!(matches!(decode(G45, MOV | 1 << 28), Ok(i) if i.mask_ctrl_ex && !i.acc_wr_ctrl));
    assert!(matches!(decode(Gen6, MOV | 1 << 28), Ok(i) if i.acc_wr_ctrl && !i.mask_ctrl_ex));
    // Bit 29: compaction from G45, reserved on the 965.
    assert_eq!(
        decode(Gen4, MOV | 1 << 29),
        Err(DecodeError::ReservedBits { mask: 1 << 29 })
    );
    for p in [G45, Gen6, Gen7, Gen75] {
        assert_eq!(decode(p, MOV | 1 << 29), Err(DecodeError::Compacted));
    }
}

#[test]
fn opcode_and_form_errors() {
    let dim = set(MOV_IMM, 6, 0, 0x0A);
    assert_eq!(
        decode(Gen7, dim),
        Err(DecodeError::UnknownOpcode { code: 0x0A })
    );
    // dim's immediate must be typed F (it holds a DF in bits 127:64).
    assert_eq!(
        decode(Gen75, dim),
        Err(reserved(Field::Type(Slot::Src0), 1))
    );
    let dim_f = set(dim, 41, 39, 7);
    let i = decode(Gen75, dim_f).unwrap();
    assert!(matches!(
        i.body,
        Body::Alu(Alu {
            src0: Src::Imm(Imm {
                ty: Type::Df,
                bits: 0x5_0000_0000
            }),
            ..
        })
    ));
    for p in IsaGen::ALL {
        assert_eq!(
            decode(p, 0x7F),
            Err(DecodeError::UnknownOpcode { code: 0x7F })
        );
    }
    // Three-source instructions are Align16 only before Gen10.
    let mad = from_dwords([0x0060015b, 0x011e0000, 0x390021c8, 0x01072006]);
    assert!(decode(Gen6, mad).is_ok());
    assert_eq!(
        decode(Gen6, mad & !(1 << 8)),
        Err(reserved(Field::AccessMode, 0))
    );
    // Gen6 three-source: bits 35:34 and 48:42 reserved; Gen7 uses 43:42 for the type.
    assert_eq!(
        decode(Gen6, mad | 1 << 42),
        Err(DecodeError::ReservedBits { mask: 1 << 42 })
    );
    assert!(decode(Gen7, mad | 1 << 42).is_ok());
    // send: payload cannot be immediate; descriptor MBZ bits; SFIDs.
    let send6 = from_dwords([0x07600031, 0x21401cc9, 0x00000000, 0x82000010]);
    assert!(decode(Gen6, send6).is_ok());
    assert_eq!(
        decode(Gen6, set(send6, 38, 37, 3)),
        Err(reserved(Field::File(Slot::Src0), 3))
    );
    assert_eq!(
        decode(Gen6, send6 | 1 << 125),
        Err(DecodeError::ReservedBits { mask: 1 << 125 })
    );
    assert_eq!(
        decode(Gen6, set(send6, 27, 24, 1)),
        Err(reserved(Field::Sfid, 1))
    );
    let send4 = from_dwords([0x00600031, 0x20001c3c, 0x008d0e00, 0x87100010]);
    assert_eq!(
        decode(Gen4, set(send4, 123, 120, 9)),
        Err(reserved(Field::Sfid, 9))
    );
    assert_eq!(
        decode(Gen4, send4 | 1 << 124),
        Err(DecodeError::ReservedBits { mask: 1 << 124 })
    );
    // math function 0 is reserved.
    let math = from_dwords([0x04600038, 0x208003bd, 0x008d0040, 0x00000000]);
    assert_eq!(
        decode(Gen6, set(math, 27, 24, 0)),
        Err(reserved(Field::MathFn, 0))
    );
    // Gen4 exit code: bits 31:20 MBZ.
    let if4 = from_dwords([0x00618022, 0x34001c00, 0x00001400, 0x00000002]);
    assert!(decode(Gen4, if4).is_ok());
    assert_eq!(
        decode(Gen4, if4 | 1 << 116),
        Err(DecodeError::ReservedBits { mask: 1 << 116 })
    );
}

/// Bits hardware ignores are kept, so they survive a round trip.
#[test]
fn ignored_bits_are_kept() {
    for p in IsaGen::ALL {
        // PredInv without predication, a flag sub-register nobody reads.
        let w = MOV | 1 << 20 | 1 << 89;
        let i = decode(p, w).unwrap();
        assert!(i.pred_inv && i.pred_ctrl == PredCtrl::None && i.flag.subreg == 1);
        assert_eq!(encode(p, &i), Ok(w));
        // The unused src1 of a one-source instruction with junk in it.
        let w = set(MOV, 108, 101, 77) | 1 << 110;
        let i = decode(p, w).unwrap();
        let Body::Alu(a) = &i.body else { panic!() };
        assert!(matches!(
            a.src1,
            Src::Reg(RegSrc {
                negate: true,
                addr: Addr::Direct { nr: 77, .. },
                ..
            })
        ));
        assert_eq!(encode(p, &i), Ok(w));
        // A word immediate whose halves differ.
        let w = set(set(MOV_IMM, 41, 39, 3), 127, 96, 0x1234_5678);
        let i = decode(p, w).unwrap();
        let Body::Alu(a) = &i.body else { panic!() };
        assert_eq!(
            a.src0,
            Src::Imm(Imm {
                ty: Type::W,
                bits: 0x1234_5678
            })
        );
        assert_eq!(encode(p, &i), Ok(w));
    }
}

fn mov(p: IsaGen) -> Instruction {
    decode(p, MOV).unwrap()
}

fn with_alu(mut i: Instruction, f: impl FnOnce(&mut Alu)) -> Instruction {
    if let Body::Alu(a) = &mut i.body {
        f(a);
    }
    i
}

fn not_canonical(field: Field) -> Result<u128, EncodeError> {
    Err(EncodeError::NotCanonical { field })
}

fn unencodable(field: Field, value: i64) -> Result<u128, EncodeError> {
    Err(EncodeError::Unencodable { field, value })
}

#[test]
fn encode_refuses_what_does_not_exist() {
    let mut i = mov(Gen7);
    i.opcode = Opcode::Dim;
    assert_eq!(
        encode(Gen7, &i),
        Err(EncodeError::UnknownOpcode {
            opcode: Opcode::Dim
        })
    );
    let mut i = mov(Gen6);
    i.flag.reg = 1;
    assert_eq!(encode(Gen6, &i), unencodable(Field::FlagReg, 1));
    let mut i = mov(Gen6);
    i.group = GroupCtrl::Quarter { qtr: 0, nib: true };
    assert_eq!(encode(Gen6, &i), unencodable(Field::GroupCtrl, 1));
    let mut i = mov(G45);
    i.acc_wr_ctrl = true;
    assert_eq!(encode(G45, &i), unencodable(Field::AccWrCtrl, 1));
    let mut i = mov(Gen6);
    i.mask_ctrl_ex = true;
    assert_eq!(encode(Gen6, &i), unencodable(Field::MaskCtrlEx, 1));
    let mut i = mov(Gen6);
    i.exec_size = 3;
    assert_eq!(encode(Gen6, &i), unencodable(Field::ExecSize, 3));
    let mut i = mov(Gen6);
    i.swsb = Some(Swsb::Dist {
        pipe: Pipe::Same,
        dist: 1,
    });
    assert_eq!(encode(Gen6, &i), unencodable(Field::Swsb, 0));
    let mut i = mov(Gen6);
    i.cond_mod = CondMod::R;
    assert_eq!(encode(Gen6, &i), unencodable(Field::CondMod, 0));
    let i = with_alu(mov(Gen6), |a| {
        a.dst.addr = Addr::Indirect {
            addr_subnr: 0,
            offset: 600,
        }
    });
    assert_eq!(encode(Gen6, &i), unencodable(Field::Addr(Slot::Dst), 600));
    let i = with_alu(mov(Gen6), |a| {
        a.src1 = Src::Imm(Imm {
            ty: Type::Ud,
            bits: 1 << 32,
        })
    });
    assert_eq!(
        encode(Gen6, &i),
        unencodable(Field::Imm(Slot::Src1), 1 << 32)
    );
    let i = with_alu(mov(Gen6), |a| a.src1 = Src::Imm(Imm::df(1.0)));
    assert!(matches!(
        encode(Gen6, &i),
        Err(EncodeError::Unencodable {
            field: Field::Type(Slot::Src1),
            ..
        })
    ));
    let i = with_alu(mov(Gen7), |a| a.dst.file = RegFile::Mrf);
    assert!(matches!(
        encode(Gen7, &i),
        Err(EncodeError::Unencodable {
            field: Field::File(Slot::Dst),
            ..
        })
    ));
}

#[test]
fn encode_refuses_non_canonical_forms() {
    let i = with_alu(mov(Gen6), |a| a.dst.writemask = 0x3);
    assert_eq!(encode(Gen6, &i), not_canonical(Field::WriteMask));
    let i = with_alu(mov(Gen6), |a| {
        a.src0 = Src::Vacant(Vacant {
            file: RegFile::Arf,
            ty: Type::Ud,
        })
    });
    assert_eq!(encode(Gen6, &i), not_canonical(Field::File(Slot::Src0)));
    let i = with_alu(mov(Gen6), |a| a.src0 = Src::Imm(Imm::ud(1)));
    assert_eq!(encode(Gen6, &i), not_canonical(Field::File(Slot::Src1)));
    let i = with_alu(mov(Gen6), |a| {
        a.src1 = Src::Reg(RegSrc {
            file: RegFile::Imm,
            ..RegSrc::null(Type::Ud)
        })
    });
    assert_eq!(encode(Gen6, &i), not_canonical(Field::File(Slot::Src1)));
    let i = with_alu(mov(Gen6), |a| {
        if let Src::Reg(r) = &mut a.src0 {
            r.region = Region::VxH {
                width: 1,
                hstride: 0,
            };
        }
    });
    assert_eq!(encode(Gen6, &i), not_canonical(Field::Region(Slot::Src0)));
    let i = with_alu(mov(Gen6), |a| {
        if let Src::Reg(r) = &mut a.src0 {
            r.region = Region::Align16 {
                vstride: 4,
                swizzle: Swizzle::XYZW,
            };
        }
    });
    assert_eq!(encode(Gen6, &i), not_canonical(Field::Region(Slot::Src0)));
    let mut i = mov(Gen6);
    i.pred_ctrl = PredCtrl::X;
    assert_eq!(encode(Gen6, &i), not_canonical(Field::PredCtrl));
    let mut i = mov(Gen4);
    i.group = GroupCtrl::Quarter { qtr: 0, nib: false };
    assert_eq!(encode(Gen4, &i), not_canonical(Field::GroupCtrl));
    let mut i = mov(Gen6);
    i.group = GroupCtrl::Compression(Compression::None);
    assert_eq!(encode(Gen6, &i), not_canonical(Field::GroupCtrl));
    let mut i = mov(Gen6);
    i.opcode = Opcode::Send;
    assert_eq!(encode(Gen6, &i), not_canonical(Field::Body));
    // Align16 sub-registers are 0 or 16 bytes.
    let mut i = with_alu(mov(Gen6), |a| a.dst.addr = Addr::Direct { nr: 1, subnr: 8 });
    i.access_mode = AccessMode::Align16;
    assert_eq!(encode(Gen6, &i), unencodable(Field::Addr(Slot::Dst), 8));
}

#[test]
fn send_branch_and_three_source_rules() {
    let send = |p| {
        let Ok(i) = decode(
            p,
            from_dwords([0x07600031, 0x21401ca9, 0x00000000, 0x82000010]),
        ) else {
            panic!()
        };
        i
    };
    let with_send = |mut i: Instruction, f: &dyn Fn(&mut Send)| {
        if let Body::Send(s) = &mut i.body {
            f(s);
        }
        i
    };
    let mut i = send(Gen7);
    i.cond_mod = CondMod::Z;
    assert_eq!(encode(Gen7, &i), not_canonical(Field::CondMod));
    let i = with_send(send(Gen7), &|s| s.base_mrf = Some(1));
    assert_eq!(encode(Gen7, &i), not_canonical(Field::BaseMrf));
    let i = with_send(send(Gen7), &|s| s.sfid = None);
    assert_eq!(encode(Gen7, &i), not_canonical(Field::Sfid));
    let i = with_send(send(Gen7), &|s| {
        s.ex_desc = Some(baregpu_isa::inst::ExDesc::Imm(0))
    });
    assert_eq!(encode(Gen7, &i), unencodable(Field::SplitSend, 0));
    let i = with_send(send(Gen7), &|s| {
        s.desc = SendDesc::Imm {
            ty: Type::Ud,
            desc: MsgDesc {
                mlen: 1,
                rlen: 0,
                header: false,
                function: 1 << 19,
            },
        }
    });
    assert_eq!(encode(Gen7, &i), unencodable(Field::Desc, 1 << 19));
    // Gen4: the SFID of a register descriptor is not in the instruction.
    let g4 = decode(
        Gen4,
        from_dwords([0x00600031, 0x20001c3c, 0x008d0e00, 0x87100010]),
    )
    .unwrap();
    let i = with_send(g4, &|s| s.desc = SendDesc::Reg(RegSrc::null(Type::Ud)));
    assert_eq!(encode(Gen4, &i), not_canonical(Field::Sfid));
    let i = with_send(i, &|s| s.sfid = None);
    assert!(encode(Gen4, &i).is_ok());
    let i = with_send(i, &|s| s.base_mrf = None);
    assert_eq!(encode(Gen4, &i), not_canonical(Field::BaseMrf));
    let i = with_send(g4, &|s| s.sfid = Some(Sfid::Vme));
    assert_eq!(encode(Gen4, &i), unencodable(Field::Sfid, 0));

    // Branch offsets come in the generation's units and range.
    let jump = |p, jump: Jump| {
        let b = Branch {
            dst: DstSlot::Reg(Dst::null(Type::Ud)),
            src0: Src::Reg(RegSrc::null(Type::Ud)),
            src1: Src::Vacant(Vacant {
                file: RegFile::Imm,
                ty: Type::D,
            }),
            jump,
        };
        encode(
            p,
            &Instruction::new(
                Opcode::Break,
                8,
                GroupCtrl::Quarter { qtr: 0, nib: false },
                Body::Branch(b),
            ),
        )
    };
    assert!(jump(Gen7, Jump::JipUip { jip: 8, uip: -8 }).is_ok());
    assert_eq!(
        jump(Gen7, Jump::JipUip { jip: 12, uip: 0 }),
        unencodable(Field::Jump, 12)
    );
    assert_eq!(
        jump(
            Gen7,
            Jump::JipUip {
                jip: 8 * 40000,
                uip: 0
            }
        ),
        unencodable(Field::Jump, 40000)
    );
    assert_eq!(jump(Gen7, Jump::Jip { jip: 8 }), not_canonical(Field::Jump));
    assert_eq!(
        jump(Gen6, Jump::Count { jump: 16, pop: 0 }),
        not_canonical(Field::Jump)
    );

    // Three-source operands: one source type, replicate or <4>, dword sub-registers.
    let mad = decode(
        Gen7,
        from_dwords([0x0060015b, 0x011e1400, 0x390021c8, 0x01072006]),
    )
    .unwrap();
    let with_src = |i: &Instruction, n: usize, f: &dyn Fn(&mut RegSrc)| {
        let mut i = *i;
        if let Body::ThreeSrc(ThreeSrc { src, .. }) = &mut i.body
            && let Src::Reg(r) = &mut src[n]
        {
            f(r);
        }
        i
    };
    assert_eq!(
        encode(Gen7, &with_src(&mad, 1, &|r| r.ty = Type::Ud)),
        not_canonical(Field::Type(Slot::Src1))
    );
    assert_eq!(
        encode(
            Gen7,
            &with_src(&mad, 2, &|r| r.region = Region::Align16 {
                vstride: 2,
                swizzle: Swizzle::XYZW
            })
        ),
        not_canonical(Field::Region(Slot::Src2))
    );
    assert_eq!(
        encode(
            Gen7,
            &with_src(&mad, 0, &|r| r.addr = Addr::Direct { nr: 2, subnr: 2 })
        ),
        unencodable(Field::Addr(Slot::Src0), 2)
    );
    assert_eq!(encode(Gen6, &mad), unencodable(Field::Type(Slot::Dst), 0));
}

#[test]
fn dim_flag_must_match_its_immediate() {
    let word = from_dwords([0x0040000a, 0x202073f9, 0x12345678, 0x3ff80000]);
    let i = decode(Gen75, word).unwrap();
    // Bits 89 and 90 are immediate bits 25 and 26 (0x12345678: 1 and 0).
    assert_eq!(i.flag, FlagReg { reg: 0, subreg: 1 });
    assert_eq!(encode(Gen75, &i), Ok(word));
    let mut bad = i;
    bad.flag = FlagReg { reg: 0, subreg: 0 };
    assert_eq!(encode(Gen75, &bad), not_canonical(Field::FlagReg));
}
