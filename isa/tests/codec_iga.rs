//! Gen7.5 encodings compared with Intel's IGA. Words produced once with
//! `iga64 -p=7p5 -a file.asm -o file.bin -Xforce-no-compact` from the
//! assembly in each comment (labels resolved by IGA) and kept literally.

use baregpu_isa::codec::from_dwords;
use baregpu_isa::inst::{
    AccessMode, Addr, Alu, Body, Branch, CondMod, Dst, DstSlot, FlagReg, GroupCtrl, Imm,
    Instruction, Jump, Math, MathFn, MsgDesc, Opcode, PredCtrl, RegFile, RegSrc, Region, Send,
    SendDesc, Sfid, Src, Swizzle, ThreeSrc, Type, Vacant, arf,
};
use baregpu_isa::{IsaGen, decode, encode};

const P: IsaGen = IsaGen::Gen75;
const Q1: GroupCtrl = GroupCtrl::Quarter { qtr: 0, nib: false };

fn check(dw: [u32; 4], inst: &Instruction) {
    let word = from_dwords(dw);
    assert_eq!(decode(P, word).as_ref(), Ok(inst), "decode {dw:08x?}");
    assert_eq!(encode(P, inst), Ok(word), "encode {:?}", inst.opcode);
    // Ivy Bridge shares the layout; only Haswell's additions differ.
    if inst.opcode != Opcode::Calla {
        assert_eq!(
            encode(IsaGen::Gen7, inst),
            Ok(word),
            "gen7 encode {:?}",
            inst.opcode
        );
        assert_eq!(
            decode(IsaGen::Gen7, word).as_ref(),
            Ok(inst),
            "gen7 decode {dw:08x?}"
        );
    } else {
        assert!(decode(IsaGen::Gen7, word).is_err());
    }
}

fn alu(op: Opcode, exec: u8, dst: Dst, src0: Src, src1: Src) -> Instruction {
    Instruction::new(op, exec, Q1, Body::Alu(Alu { dst, src0, src1 }))
}

fn g(nr: u8, ty: Type, v: u8, w: u8, h: u8) -> Src {
    Src::Reg(RegSrc::grf(nr, 0, ty, v, w, h))
}

fn null() -> Src {
    Src::Reg(RegSrc::null(Type::Ud))
}

fn vacant(file: RegFile, ty: Type) -> Src {
    Src::Vacant(Vacant { file, ty })
}

/// IGA writes an IMM:W placeholder into src0 of JIP/UIP branches.
fn placeholder(ty: Type) -> Src {
    Src::Reg(RegSrc::new(
        RegFile::Imm,
        0,
        0,
        ty,
        Region::Align1 {
            vstride: 0,
            width: 1,
            hstride: 0,
        },
    ))
}

fn branch(op: Opcode, dst: Dst, src0: Src, src1: Src, jip: i32, uip: i32) -> Instruction {
    let b = Branch {
        dst: DstSlot::Reg(dst),
        src0,
        src1,
        jump: Jump::JipUip { jip, uip },
    };
    Instruction::new(op, 8, Q1, Body::Branch(b))
}

fn a16(nr: u8, subnr: u8, ty: Type, vstride: u8) -> RegSrc {
    RegSrc::new(
        RegFile::Grf,
        nr,
        subnr,
        ty,
        Region::Align16 {
            vstride,
            swizzle: Swizzle::XYZW,
        },
    )
}

fn three(op: Opcode, ty: Type) -> Instruction {
    let src = [a16(2, 0, ty, 4), a16(3, 0, ty, 4), a16(4, 0, ty, 4)].map(Src::Reg);
    let mut i = Instruction::new(
        op,
        8,
        Q1,
        Body::ThreeSrc(ThreeSrc {
            dst: Dst::grf(1, 0, ty),
            src,
        }),
    );
    i.access_mode = AccessMode::Align16;
    i
}

#[test]
fn branches() {
    use Type::*;
    let null_dst = Dst::null(Ud);
    // (f0.1) if (8|M0) L32 L48   (at 0)
    let mut i = branch(
        Opcode::If,
        null_dst,
        placeholder(W),
        vacant(RegFile::Arf, Ud),
        32,
        48,
    );
    i.pred_ctrl = PredCtrl::Normal;
    i.flag = FlagReg { reg: 0, subreg: 1 };
    check([0x00610022, 0x200001e0, 0x02000000, 0x00060004], &i);
    // else (8|M0) L48   (at 16)
    check(
        [0x00600024, 0x200001e0, 0x00000000, 0x00000004],
        &branch(
            Opcode::Else,
            null_dst,
            placeholder(W),
            vacant(RegFile::Arf, Ud),
            32,
            0,
        ),
    );
    // endif (8|M0) L48   (at 32)
    check(
        [0x00600025, 0x20001c00, 0x00000000, 0x00000002],
        &branch(
            Opcode::Endif,
            null_dst,
            null(),
            vacant(RegFile::Imm, D),
            16,
            0,
        ),
    );
    // break (8|M0) L32 L48   (at 96)
    check(
        [0x00600028, 0x200001e0, 0x00000000, 0xfffafff8],
        &branch(
            Opcode::Break,
            null_dst,
            placeholder(W),
            vacant(RegFile::Arf, Ud),
            -64,
            -48,
        ),
    );
    // brd (8|M0) L32   (at 112; IGA sign-extends the JIP into the UIP half)
    check(
        [0x00600021, 0x340001e4, 0x00000000, 0xfffffff6],
        &branch(
            Opcode::Brd,
            Dst::new(RegFile::Arf, arf::IP, 0, D, 1),
            placeholder(W),
            vacant(RegFile::Arf, Ud),
            -80,
            -8,
        ),
    );
    // brd (8|M0) r2.0<0;1,0>:d   (target from a register)
    check(
        [0x00600021, 0x340001a4, 0x00000040, 0x00000000],
        &branch(
            Opcode::Brd,
            Dst::new(RegFile::Arf, arf::IP, 0, D, 1),
            g(2, W, 0, 1, 0),
            vacant(RegFile::Arf, Ud),
            0,
            0,
        ),
    );
    // halt (8|M0) L32 L48   (at 144)
    check(
        [0x0060002a, 0x200001e0, 0x00000000, 0xfff4fff2],
        &branch(
            Opcode::Halt,
            null_dst,
            placeholder(W),
            vacant(RegFile::Arf, Ud),
            -112,
            -96,
        ),
    );
    // while (8|M0) L32   (at 160)
    check(
        [0x00600027, 0x20001c00, 0x00000000, 0x0000fff0],
        &branch(
            Opcode::While,
            null_dst,
            null(),
            vacant(RegFile::Imm, D),
            -128,
            0,
        ),
    );
    // call (1|M0) r10.0 L32   (at 64: IGA's target is a byte offset in an immediate src1)
    let call_src0 = g(0, Ud, 2, 2, 1);
    let Src::Reg(r) = call_src0 else {
        unreachable!()
    };
    let call_src0 = Src::Reg(RegSrc {
        file: RegFile::Arf,
        ..r
    });
    check(
        [0x0000002c, 0x21401c05, 0x00450000, 0xffffffe0],
        &alu(
            Opcode::Call,
            1,
            Dst::grf(10, 0, D),
            call_src0,
            Src::Imm(Imm::d(-32)),
        ),
    );
    // calla (1|M0) r10.0 0x40
    check(
        [0x0000002b, 0x21401c05, 0x00450000, 0x00000040],
        &alu(
            Opcode::Calla,
            1,
            Dst::grf(10, 0, D),
            call_src0,
            Src::Imm(Imm::d(0x40)),
        ),
    );
    // ret (1|M0) r10.0
    check(
        [0x0000002d, 0x200000a0, 0x00000140, 0x00000000],
        &alu(Opcode::Ret, 1, null_dst, g(10, D, 0, 1, 0), null()),
    );
    // (W) jmpi L224   (at 192)
    let mut i = alu(
        Opcode::Jmpi,
        1,
        Dst::new(RegFile::Arf, arf::IP, 0, Ud, 1),
        Src::Reg(RegSrc::new(
            RegFile::Arf,
            arf::IP,
            0,
            Ud,
            Region::Align1 {
                vstride: 0,
                width: 1,
                hstride: 0,
            },
        )),
        Src::Imm(Imm::d(16)),
    );
    i.no_mask = true;
    check([0x00000220, 0x34001c00, 0x00001400, 0x00000010], &i);
}

#[test]
fn three_source() {
    use Type::*;
    // mad (8|M0) r1.0<1>:f r2.0<2;1>:f r3.0<2;1>:f r4.0<1>:f
    check(
        [0x0060015b, 0x011e0000, 0x390021c8, 0x01072006],
        &three(Opcode::Mad, F),
    );
    // lrp (8|M0) r1.0<1>:f r2.0<2;1>:f r3.0<2;1>:f r4.0<1>:f
    check(
        [0x0060015c, 0x011e0000, 0x390021c8, 0x01072006],
        &three(Opcode::Lrp, F),
    );
    // bfe (8|M0) r1.0<1>:ud r2.0<2;1>:ud r3.0<2;1>:ud r4.0<1>:ud
    check(
        [0x00600118, 0x011e2800, 0x390021c8, 0x01072006],
        &three(Opcode::Bfe, Ud),
    );
    // bfi2 (8|M0) r1.0<1>:d r2.0<2;1>:d r3.0<2;1>:d r4.0<1>:d
    check(
        [0x0060011a, 0x011e1400, 0x390021c8, 0x01072006],
        &three(Opcode::Bfi2, D),
    );
    // (f1.1) mad (8|M8) (ne)f1.1 r1.4<1>:f -r2.1<2;1>:f (abs)r3.2<2;1>:f -(abs)r4.3<1>:f
    let src = [
        RegSrc {
            negate: true,
            ..a16(2, 4, F, 4)
        },
        RegSrc {
            abs: true,
            ..a16(3, 8, F, 4)
        },
        RegSrc {
            negate: true,
            abs: true,
            ..a16(4, 12, F, 4)
        },
    ]
    .map(Src::Reg);
    let body = ThreeSrc {
        dst: Dst::grf(1, 16, F),
        src,
    };
    let mut i = Instruction::new(
        Opcode::Mad,
        8,
        GroupCtrl::Quarter { qtr: 1, nib: false },
        Body::ThreeSrc(body),
    );
    i.access_mode = AccessMode::Align16;
    i.pred_ctrl = PredCtrl::Normal;
    i.cond_mod = CondMod::Nz;
    i.flag = FlagReg { reg: 1, subreg: 1 };
    check([0x0261115b, 0x019e0366, 0xb90023c8, 0x011f2006], &i);
}

#[test]
fn alu_forms() {
    use Type::*;
    // (f1.0.any32h) mov (8|M0) r1.0<1>:f r2.0<8;8,1>:f
    let mut i = alu(Opcode::Mov, 8, Dst::grf(1, 0, F), g(2, F, 8, 8, 1), null());
    i.pred_ctrl = PredCtrl::Any32H;
    i.flag = FlagReg { reg: 1, subreg: 0 };
    check([0x006c0001, 0x202003bd, 0x048d0040, 0x00000000], &i);
    // mov (4|M4) / (4|M12) r1.0<1>:f r2.0<4;4,1>:f   (NibCtrl)
    for (qtr, dw0) in [(0, 0x00400001), (1, 0x00401001)] {
        let mut i = alu(Opcode::Mov, 4, Dst::grf(1, 0, F), g(2, F, 4, 4, 1), null());
        i.group = GroupCtrl::Quarter { qtr, nib: true };
        check([dw0, 0x202083bd, 0x00690040, 0x00000000], &i);
    }
    // (f1.0) mov (16|M16) r1.0<1>:w r2.0<16;16,1>:w
    let mut i = alu(
        Opcode::Mov,
        16,
        Dst::grf(1, 0, W),
        g(2, W, 16, 16, 1),
        null(),
    );
    i.group = GroupCtrl::Quarter { qtr: 2, nib: false };
    i.pred_ctrl = PredCtrl::Normal;
    i.flag = FlagReg { reg: 1, subreg: 0 };
    check([0x00812001, 0x202001ad, 0x04b10040, 0x00000000], &i);
    // (f0.1) sel (8|M0) (lt)f0.1 r1.0<1>:d r2.0<8;8,1>:d -7:d
    let mut i = alu(
        Opcode::Sel,
        8,
        Dst::grf(1, 0, D),
        g(2, D, 8, 8, 1),
        Src::Imm(Imm::d(-7)),
    );
    i.pred_ctrl = PredCtrl::Normal;
    i.cond_mod = CondMod::L;
    i.flag = FlagReg { reg: 0, subreg: 1 };
    check([0x05610002, 0x20201ca5, 0x028d0040, 0xfffffff9], &i);
    // mov (8|M0) r1.0<1>:w 0x76543210:v / :uv, mov (4|M0) r1.0<1>:f 0x30384050:vf,
    // mov (8|M0) r1.0<1>:w 0x1234:w
    let v = vacant(RegFile::Arf, Ud);
    check(
        [0x00600001, 0x2020036d, 0x00000000, 0x76543210],
        &alu(
            Opcode::Mov,
            8,
            Dst::grf(1, 0, W),
            Src::Imm(Imm::vector(V, 0x76543210)),
            v,
        ),
    );
    check(
        [0x00600001, 0x20200269, 0x00000000, 0x76543210],
        &alu(
            Opcode::Mov,
            8,
            Dst::grf(1, 0, Uw),
            Src::Imm(Imm::vector(Uv, 0x76543210)),
            v,
        ),
    );
    check(
        [0x00400001, 0x202002fd, 0x00000000, 0x30384050],
        &alu(
            Opcode::Mov,
            4,
            Dst::grf(1, 0, F),
            Src::Imm(Imm::vector(Vf, 0x30384050)),
            v,
        ),
    );
    check(
        [0x00600001, 0x202001ed, 0x00000000, 0x12341234],
        &alu(
            Opcode::Mov,
            8,
            Dst::grf(1, 0, W),
            Src::Imm(Imm::w(0x1234)),
            v,
        ),
    );
    // mov (8|M0) r1.0<1>:ud r[a0.2,32]<8;8,1>:ud
    let Src::Reg(r) = g(0, Ud, 8, 8, 1) else {
        unreachable!()
    };
    let ind = RegSrc {
        addr: Addr::Indirect {
            addr_subnr: 2,
            offset: 32,
        },
        ..r
    };
    check(
        [0x00600001, 0x20200021, 0x008d8820, 0x00000000],
        &alu(Opcode::Mov, 8, Dst::grf(1, 0, Ud), Src::Reg(ind), null()),
    );
    // mov (8|M0) r[a0.1,-64]<1>:ud r2.0<8;8,1>:ud
    let d = Dst {
        addr: Addr::Indirect {
            addr_subnr: 1,
            offset: -64,
        },
        ..Dst::grf(0, 0, Ud)
    };
    check(
        [0x00600001, 0xa7c00021, 0x008d0040, 0x00000000],
        &alu(Opcode::Mov, 8, d, g(2, Ud, 8, 8, 1), null()),
    );
    // add (8|M0) acc0.0<1>:f r2.0<8;8,1>:f 1.0:f {AccWrEn}
    let mut i = alu(
        Opcode::Add,
        8,
        Dst::new(RegFile::Arf, arf::ACC0, 0, F, 1),
        g(2, F, 8, 8, 1),
        Src::Imm(Imm::f(1.0)),
    );
    i.acc_wr_ctrl = true;
    check([0x10600040, 0x24007fbc, 0x008d0040, 0x3f800000], &i);
    // mov (4|M0) r1.0<1>:df r2.0<4;4,1>:df
    check(
        [0x00400001, 0x20200339, 0x00690040, 0x00000000],
        &alu(
            Opcode::Mov,
            4,
            Dst::grf(1, 0, Df),
            g(2, Df, 4, 4, 1),
            null(),
        ),
    );
    // math.sqt (8|M0) r4.0<1>:f r2.0<8;8,1>:f ; math.fdiv (8|M0) r4.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f
    let m = Math {
        function: MathFn::Sqrt,
        dst: Dst::grf(4, 0, F),
        src0: g(2, F, 8, 8, 1),
        src1: null(),
    };
    check(
        [0x04600038, 0x208003bd, 0x008d0040, 0x00000000],
        &Instruction::new(Opcode::Math, 8, Q1, Body::Math(m)),
    );
    let m = Math {
        function: MathFn::Fdiv,
        src1: g(3, F, 8, 8, 1),
        ..m
    };
    check(
        [0x09600038, 0x208077bd, 0x008d0040, 0x008d0060],
        &Instruction::new(Opcode::Math, 8, Q1, Body::Math(m)),
    );
}

#[test]
fn sends() {
    use Type::*;
    // send (8|M0) r10:ud r112:ud 0x27 0x02184200 {EOT}   (ex_desc 0x27 = EOT | spawner)
    let s = Send {
        dst: Dst::grf(10, 0, Ud),
        src0: g(112, Ud, 0, 1, 0),
        desc: SendDesc::Imm {
            ty: Ud,
            desc: MsgDesc {
                mlen: 1,
                rlen: 1,
                header: true,
                function: 0x4200,
            },
        },
        sfid: Some(Sfid::ThreadSpawner),
        base_mrf: None,
        eot: true,
        src1: None,
        ex_desc: None,
    };
    check(
        [0x07600031, 0x21400c21, 0x00000e00, 0x82184200],
        &Instruction::new(Opcode::Send, 8, Q1, Body::Send(s)),
    );
    // sendc (16|M0) r20:uw r2:ud 0xA 0x04420001   (data cache)
    let s = Send {
        dst: Dst::grf(20, 0, Uw),
        src0: g(2, Ud, 0, 1, 0),
        desc: SendDesc::Imm {
            ty: Ud,
            desc: MsgDesc {
                mlen: 2,
                rlen: 4,
                header: false,
                function: 0x20001,
            },
        },
        sfid: Some(Sfid::DpDataCache),
        eot: false,
        ..s
    };
    check(
        [0x0a800032, 0x22800c29, 0x00000040, 0x04420001],
        &Instruction::new(Opcode::Sendc, 16, Q1, Body::Send(s)),
    );
}
