//! Encodings compared with independent assemblers. The words were produced
//! once with the tools named at each case and are kept literally here, so
//! the test runs without them:
//!   - `intel-gen4asm -g N file.asm -o out.txt` (intel-gpu-tools),
//!   - `iga64 -p=7p5 -a file.asm -o file.bin -Xforce-no-compact` (IGA).
//!
//! Each case builds the instruction by hand and checks both directions.

use baregpu_isa::codec::from_dwords;
use baregpu_isa::error::{DecodeError, Field, Slot};
use baregpu_isa::inst::{
    AccessMode, Addr, Alu, Body, Branch, Compression, CondMod, Dst, DstSlot, FlagReg, GroupCtrl,
    Imm, Instruction, Jump, Math, MathFn, MsgDesc, Opcode, PredCtrl, RegFile, RegSrc, Region, Send,
    SendDesc, Sfid, Src, Swizzle, ThreadCtrl, ThreeSrc, Type, Vacant, arf,
};
use baregpu_isa::{IsaGen, decode, encode};

const G4: GroupCtrl = GroupCtrl::Compression(Compression::None);
const Q1: GroupCtrl = GroupCtrl::Quarter { qtr: 0, nib: false };

fn check(p: IsaGen, dw: [u32; 4], inst: &Instruction) {
    let word = from_dwords(dw);
    assert_eq!(decode(p, word).as_ref(), Ok(inst), "{p}: decode {dw:08x?}");
    assert_eq!(encode(p, inst), Ok(word), "{p}: encode {:?}", inst.opcode);
}

fn alu(op: Opcode, exec: u8, group: GroupCtrl, dst: Dst, src0: Src, src1: Src) -> Instruction {
    Instruction::new(op, exec, group, Body::Alu(Alu { dst, src0, src1 }))
}

fn dst(file: RegFile, nr: u8, subnr: u8, ty: Type, hstride: u8) -> Dst {
    Dst::new(file, nr, subnr, ty, hstride)
}

fn g(nr: u8, subnr: u8, ty: Type, v: u8, w: u8, h: u8) -> Src {
    Src::Reg(RegSrc::grf(nr, subnr, ty, v, w, h))
}

fn raw(file: RegFile, nr: u8, ty: Type, v: u8, w: u8, h: u8) -> Src {
    Src::Reg(RegSrc::new(
        file,
        nr,
        0,
        ty,
        Region::Align1 {
            vstride: v,
            width: w,
            hstride: h,
        },
    ))
}

fn null() -> Src {
    Src::Reg(RegSrc::null(Type::Ud))
}

fn vacant(file: RegFile, ty: Type) -> Src {
    Src::Vacant(Vacant { file, ty })
}

fn imm(i: Imm) -> Src {
    Src::Imm(i)
}

fn a16(nr: u8, ty: Type, vstride: u8, swizzle: u8) -> RegSrc {
    RegSrc::new(
        RegFile::Grf,
        nr,
        0,
        ty,
        Region::Align16 {
            vstride,
            swizzle: Swizzle(swizzle),
        },
    )
}

fn three(op: Opcode, dst: Dst, src: [RegSrc; 3]) -> Instruction {
    let mut i = Instruction::new(
        op,
        8,
        Q1,
        Body::ThreeSrc(ThreeSrc {
            dst,
            src: src.map(Src::Reg),
        }),
    );
    i.access_mode = AccessMode::Align16;
    i
}

fn branch(
    op: Opcode,
    exec: u8,
    group: GroupCtrl,
    dst: DstSlot,
    src0: Src,
    src1: Src,
    jump: Jump,
) -> Instruction {
    Instruction::new(
        op,
        exec,
        group,
        Body::Branch(Branch {
            dst,
            src0,
            src1,
            jump,
        }),
    )
}

#[test]
fn gen4_matches_intel_gen4asm() {
    use Type::*;
    let p = IsaGen::Gen4;
    // mov (8) g1<1>F g2<8,8,1>F { align1 };
    check(
        p,
        [0x00600001, 0x202003bd, 0x008d0040, 0x00000000],
        &alu(
            Opcode::Mov,
            8,
            G4,
            Dst::grf(1, 0, F),
            g(2, 0, F, 8, 8, 1),
            null(),
        ),
    );
    // add (8) g1<1>D g2<8,8,1>D 5D { align1 };
    check(
        p,
        [0x00600040, 0x20201ca5, 0x008d0040, 0x00000005],
        &alu(
            Opcode::Add,
            8,
            G4,
            Dst::grf(1, 0, D),
            g(2, 0, D, 8, 8, 1),
            imm(Imm::d(5)),
        ),
    );
    // (-f0.1) add.nz.sat (8) g4<2>UW -g5.2<16,8,2>UW (abs)g6.1<0,1,0>UW { align1 };
    // (gen4asm writes the sub-registers as byte offsets 2 and 1)
    let mut i = alu(
        Opcode::Add,
        8,
        G4,
        dst(RegFile::Grf, 4, 0, Uw, 2),
        Src::Reg(RegSrc {
            negate: true,
            ..RegSrc::grf(5, 2, Uw, 16, 8, 2)
        }),
        Src::Reg(RegSrc {
            abs: true,
            ..RegSrc::grf(6, 1, Uw, 0, 1, 0)
        }),
    );
    i.pred_ctrl = PredCtrl::Normal;
    i.pred_inv = true;
    i.flag = FlagReg { reg: 0, subreg: 1 };
    i.cond_mod = CondMod::Nz;
    i.saturate = true;
    check(p, [0x82710040, 0x40802529, 0x02ae40a2, 0x000020c1], &i);
    // mov (8) g3<1>W -3W { align1 };  (word immediate replicated)
    check(
        p,
        [0x00600001, 0x206001ed, 0x00000000, 0xfffdfffd],
        &alu(
            Opcode::Mov,
            8,
            G4,
            Dst::grf(3, 0, W),
            imm(Imm::w(-3)),
            vacant(RegFile::Arf, Ud),
        ),
    );
    // mov (16) g3<1>W 0x76543210V { align1 compr };
    check(
        p,
        [0x00802001, 0x2060036d, 0x00000000, 0x76543210],
        &alu(
            Opcode::Mov,
            16,
            GroupCtrl::Compression(Compression::Compressed),
            Dst::grf(3, 0, W),
            imm(Imm::vector(V, 0x76543210)),
            vacant(RegFile::Arf, Ud),
        ),
    );
    // mul (8) acc0<1>F g2<8,8,1>F g3<8,8,1>F { align1 sechalf };
    check(
        p,
        [0x00601041, 0x240077bc, 0x008d0040, 0x008d0060],
        &alu(
            Opcode::Mul,
            8,
            GroupCtrl::Compression(Compression::SecHalf),
            dst(RegFile::Arf, arf::ACC0, 0, F, 1),
            g(2, 0, F, 8, 8, 1),
            g(3, 0, F, 8, 8, 1),
        ),
    );
    // mov (8) m2<1>UD g0<8,8,1>UD { align1 nomask };
    let mut i = alu(
        Opcode::Mov,
        8,
        G4,
        dst(RegFile::Mrf, 2, 0, Ud, 1),
        g(0, 0, Ud, 8, 8, 1),
        null(),
    );
    i.no_mask = true;
    check(p, [0x00600201, 0x20400022, 0x008d0000, 0x00000000], &i);
    // add (4) g2.4<1>.xyz F g3<4>.yzwx F g4.4<0>.x F { align16 };
    // (gen4asm drops the Align16 sub-registers)
    let mut i = alu(
        Opcode::Add,
        4,
        G4,
        Dst {
            writemask: 0x7,
            ..Dst::grf(2, 0, F)
        },
        Src::Reg(a16(3, F, 4, 0x39)),
        Src::Reg(a16(4, F, 0, 0x00)),
    );
    i.access_mode = AccessMode::Align16;
    check(p, [0x00400140, 0x204777bd, 0x00630069, 0x00000080], &i);
    // mov (8) g1<1>UD g[a0.2,32]<8,8,1>UD { align1 };  (gen4asm encodes AddrSubRegNum 1)
    let ind = RegSrc {
        addr: Addr::Indirect {
            addr_subnr: 1,
            offset: 32,
        },
        ..RegSrc::grf(0, 0, Ud, 8, 8, 1)
    };
    check(
        p,
        [0x00600001, 0x20200021, 0x008d8420, 0x00000000],
        &alu(
            Opcode::Mov,
            8,
            G4,
            Dst::grf(1, 0, Ud),
            Src::Reg(ind),
            null(),
        ),
    );
    // mov (4) g1<1>F 0x30384050VF { align1 };
    check(
        p,
        [0x00400001, 0x202002fd, 0x00000000, 0x30384050],
        &alu(
            Opcode::Mov,
            4,
            G4,
            Dst::grf(1, 0, F),
            imm(Imm::vector(Vf, 0x30384050)),
            vacant(RegFile::Arf, Ud),
        ),
    );
    // cmp.l (8) null<1>F g2<8,8,1>F 0.5F { align1 };
    let mut i = alu(
        Opcode::Cmp,
        8,
        G4,
        Dst::null(F),
        g(2, 0, F, 8, 8, 1),
        imm(Imm::f(0.5)),
    );
    i.cond_mod = CondMod::L;
    check(p, [0x05600010, 0x20007fbc, 0x008d0040, 0x3f000000], &i);
    // send (8) 0 null g112<8,8,1>UD thread_spawner(0, 0, 1) mlen 1 rlen 0 { align1 EOT };
    let send = Send {
        dst: Dst::null(F),
        src0: g(112, 0, Ud, 8, 8, 1),
        desc: SendDesc::Imm {
            ty: D,
            desc: MsgDesc {
                mlen: 1,
                rlen: 0,
                header: false,
                function: 0x10,
            },
        },
        sfid: Some(Sfid::ThreadSpawner),
        base_mrf: Some(0),
        eot: true,
        src1: None,
        ex_desc: None,
    };
    check(
        p,
        [0x00600031, 0x20001c3c, 0x008d0e00, 0x87100010],
        &Instruction::new(Opcode::Send, 8, G4, Body::Send(send)),
    );
    // send (8) 1 null null write (0, 2, 0, 0) mlen 2 rlen 0 { align1 };
    let send = Send {
        src0: null(),
        desc: SendDesc::Imm {
            ty: D,
            desc: MsgDesc {
                mlen: 2,
                rlen: 0,
                header: false,
                function: 0x200,
            },
        },
        sfid: Some(Sfid::DataPortWrite),
        base_mrf: Some(1),
        eot: false,
        ..send
    };
    check(
        p,
        [0x01600031, 0x20001c1c, 0x00000000, 0x05200200],
        &Instruction::new(Opcode::Send, 8, G4, Body::Send(send)),
    );
    // (+f0.0) if (8) L1; else (8) L2; ... (labels two and one instructions ahead)
    let ip_dst = DstSlot::Reg(dst(RegFile::Arf, arf::IP, 0, Ud, 1));
    let ip_src = raw(RegFile::Arf, arf::IP, Ud, 0, 1, 0);
    let mut i = branch(
        Opcode::If,
        8,
        G4,
        ip_dst,
        ip_src,
        vacant(RegFile::Imm, D),
        Jump::Count { jump: 32, pop: 0 },
    );
    i.thread_ctrl = ThreadCtrl::Switch;
    i.pred_ctrl = PredCtrl::Normal;
    check(p, [0x00618022, 0x34001c00, 0x00001400, 0x00000002], &i);
    let mut i = branch(
        Opcode::Else,
        8,
        G4,
        ip_dst,
        ip_src,
        vacant(RegFile::Imm, D),
        Jump::Count { jump: 16, pop: 1 },
    );
    i.thread_ctrl = ThreadCtrl::Switch;
    check(p, [0x00608024, 0x34001c00, 0x00001400, 0x00010001], &i);
}

#[test]
fn g45_matches_intel_gen4asm() {
    use Type::*;
    let p = IsaGen::G45;
    // pln (8) g10<1>F g2.0<0,1,0>F g4<8,8,1>F { align1 };  (intel-gen4asm -g 5:
    // Ironlake, whose ALU encoding is G45's)
    check(
        p,
        [0x0060005a, 0x214077bd, 0x00000040, 0x008d0080],
        &alu(
            Opcode::Pln,
            8,
            G4,
            Dst::grf(10, 0, F),
            g(2, 0, F, 0, 1, 0),
            g(4, 0, F, 8, 8, 1),
        ),
    );
    // Gen4 words mean the same on G45, and pln does not exist on the 965.
    let mov = from_dwords([0x00600001, 0x202003bd, 0x008d0040, 0x00000000]);
    assert_eq!(decode(p, mov), decode(IsaGen::Gen4, mov));
    let pln = from_dwords([0x0060005a, 0x214077bd, 0x00000040, 0x008d0080]);
    assert_eq!(
        decode(IsaGen::Gen4, pln),
        Err(DecodeError::UnknownOpcode { code: 0x5A })
    );
}

#[test]
fn gen6_matches_intel_gen4asm() {
    use Type::*;
    let p = IsaGen::Gen6;
    // math (8) g4<1>F g2<8,8,1>F null sqrt { align1 };
    let m = Math {
        function: MathFn::Sqrt,
        dst: Dst::grf(4, 0, F),
        src0: g(2, 0, F, 8, 8, 1),
        src1: null(),
    };
    check(
        p,
        [0x04600038, 0x208003bd, 0x008d0040, 0x00000000],
        &Instruction::new(Opcode::Math, 8, Q1, Body::Math(m)),
    );
    // math (8) g4<1>D g2<8,8,1>D g3<8,8,1>D intdivmod { align1 };
    let m = Math {
        function: MathFn::IntDivQuotientRemainder,
        dst: Dst::grf(4, 0, D),
        src0: g(2, 0, D, 8, 8, 1),
        src1: g(3, 0, D, 8, 8, 1),
    };
    check(
        p,
        [0x0b600038, 0x208014a5, 0x008d0040, 0x008d0060],
        &Instruction::new(Opcode::Math, 8, Q1, Body::Math(m)),
    );
    // mov (8) g1<1>F g2<8,8,1>F { align1 accwrctrl };
    let mut i = alu(
        Opcode::Mov,
        8,
        Q1,
        Dst::grf(1, 0, F),
        g(2, 0, F, 8, 8, 1),
        null(),
    );
    i.acc_wr_ctrl = true;
    check(p, [0x10600001, 0x202003bd, 0x008d0040, 0x00000000], &i);
    // mad (8) g1<1>F g2<4,4,1>F g3<4,4,1>F g4<4,4,1>F { align16 };
    let srcs = [a16(2, F, 4, 0xE4), a16(3, F, 4, 0xE4), a16(4, F, 4, 0xE4)];
    check(
        p,
        [0x0060015b, 0x011e0000, 0x390021c8, 0x01072006],
        &three(Opcode::Mad, Dst::grf(1, 0, F), srcs),
    );
    // lrp (8) m1<1>F g2<4,4,1>F g3<4,4,1>F g4<4,4,1>F { align16 };
    check(
        p,
        [0x0060015c, 0x011e0001, 0x390021c8, 0x01072006],
        &three(Opcode::Lrp, dst(RegFile::Mrf, 1, 0, F, 1), srcs),
    );
    // (+f0.0) if (8) L1; else (8) L2; L1: endif (8) L2; L2: while (8) L1; break (8) L1 L2;
    // (gen4asm leaves the if's ExecSize at 1 and the JIP slot typed ARF:UD)
    let jip_dst = DstSlot::Vacant(Vacant {
        file: RegFile::Arf,
        ty: Ud,
    });
    let mut i = branch(
        Opcode::If,
        1,
        Q1,
        jip_dst,
        null(),
        null(),
        Jump::Jip { jip: 32 },
    );
    i.pred_ctrl = PredCtrl::Normal;
    check(p, [0x00010022, 0x00040000, 0x00000000, 0x00000000], &i);
    check(
        p,
        [0x00600024, 0x00040000, 0x00000000, 0x00000000],
        &branch(
            Opcode::Else,
            8,
            Q1,
            jip_dst,
            null(),
            null(),
            Jump::Jip { jip: 32 },
        ),
    );
    check(
        p,
        [0x00600025, 0x00020000, 0x00000000, 0x00000000],
        &branch(
            Opcode::Endif,
            8,
            Q1,
            jip_dst,
            null(),
            null(),
            Jump::Jip { jip: 16 },
        ),
    );
    check(
        p,
        [0x00600027, 0xfffe0000, 0x00000000, 0x00000000],
        &branch(
            Opcode::While,
            8,
            Q1,
            jip_dst,
            null(),
            null(),
            Jump::Jip { jip: -16 },
        ),
    );
    check(
        p,
        [0x00600028, 0x00000000, 0x00000000, 0xfffefffc],
        &branch(
            Opcode::Break,
            8,
            Q1,
            DstSlot::Reg(dst(RegFile::Arf, 0, 0, Ud, 0)),
            null(),
            vacant(RegFile::Arf, Ud),
            Jump::JipUip { jip: -32, uip: -16 },
        ),
    );
    // send (8) 0 g10<1>UW g2<8,8,1>UD thread_spawner(0, 0, 1) mlen 1 rlen 0 { align1 EOT };
    // (on Gen6 the tool takes the payload from m0, as the hardware does)
    let send = Send {
        dst: Dst::grf(10, 0, Uw),
        src0: raw(RegFile::Mrf, 0, D, 0, 1, 0),
        desc: SendDesc::Imm {
            ty: D,
            desc: MsgDesc {
                mlen: 1,
                rlen: 0,
                header: false,
                function: 0x10,
            },
        },
        sfid: Some(Sfid::ThreadSpawner),
        base_mrf: None,
        eot: true,
        src1: None,
        ex_desc: None,
    };
    check(
        p,
        [0x07600031, 0x21401cc9, 0x00000000, 0x82000010],
        &Instruction::new(Opcode::Send, 8, Q1, Body::Send(send)),
    );
}

#[test]
fn gen7_matches_intel_gen4asm() {
    use Type::*;
    let p = IsaGen::Gen7;
    // (+f1.0) mov (8) g1<1>F g2<8,8,1>F { align1 };
    let mut i = alu(
        Opcode::Mov,
        8,
        Q1,
        Dst::grf(1, 0, F),
        g(2, 0, F, 8, 8, 1),
        null(),
    );
    i.pred_ctrl = PredCtrl::Normal;
    i.flag = FlagReg { reg: 1, subreg: 0 };
    check(p, [0x00610001, 0x202003bd, 0x048d0040, 0x00000000], &i);
    // mad (8) g1<1>D g2<4,4,1>D g3<4,4,1>D g4<4,4,1>D { align16 };
    check(
        p,
        [0x0060015b, 0x011e1400, 0x390021c8, 0x01072006],
        &three(
            Opcode::Mad,
            Dst::grf(1, 0, D),
            [a16(2, D, 4, 0xE4), a16(3, D, 4, 0xE4), a16(4, D, 4, 0xE4)],
        ),
    );
    // bfi2 (8) g1<1>UD g2<4,4,1>UD g3<4,4,1>UD g4<4,4,1>UD { align16 };
    check(
        p,
        [0x0060011a, 0x011e2800, 0x390021c8, 0x01072006],
        &three(
            Opcode::Bfi2,
            Dst::grf(1, 0, Ud),
            [
                a16(2, Ud, 4, 0xE4),
                a16(3, Ud, 4, 0xE4),
                a16(4, Ud, 4, 0xE4),
            ],
        ),
    );
    // math (16) g4<1>F g2<8,8,1>F null inv { align1 };
    let m = Math {
        function: MathFn::Inv,
        dst: Dst::grf(4, 0, F),
        src0: g(2, 0, F, 8, 8, 1),
        src1: null(),
    };
    check(
        p,
        [0x01800038, 0x208003bd, 0x008d0040, 0x00000000],
        &Instruction::new(Opcode::Math, 16, Q1, Body::Math(m)),
    );
    // The Gen6 send above names an MRF, which Gen7 does not have.
    assert_eq!(
        decode(
            p,
            from_dwords([0x07600031, 0x21401cc9, 0x00000000, 0x82000010])
        ),
        Err(DecodeError::Reserved {
            field: Field::File(Slot::Src0),
            value: 2
        })
    );
}
