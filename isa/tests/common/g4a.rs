//! Instruction forms for the intel-gen4asm differential test beyond the
//! Align1 ALU: Align16, sends with the descriptors its message targets
//! write, branches and jmpi with the implicit fields it writes (see
//! `baregpu_isa::text::gen4asm` for where those were learnt).

use super::{Rng, group};
use baregpu_isa::IsaGen;
use baregpu_isa::inst::*;

/// Predicate, flag, no-mask and dependency controls, as the ALU generator
/// draws them (Align16 predicates in Align16).
pub fn controls(p: IsaGen, rng: &mut Rng, i: &mut Instruction) {
    let flags = if p >= IsaGen::Gen7 { 2 } else { 1 };
    i.flag = FlagReg {
        reg: rng.below(flags) as u8,
        subreg: rng.below(2) as u8,
    };
    if rng.chance(3) {
        i.pred_ctrl = match (i.access_mode, rng.below(4)) {
            (_, 0 | 1) => PredCtrl::Normal,
            (AccessMode::Align16, _) => rng.pick(&[
                PredCtrl::X,
                PredCtrl::Y,
                PredCtrl::W,
                PredCtrl::Any4H,
                PredCtrl::All4H,
            ]),
            _ => rng.pick(&[PredCtrl::AnyV, PredCtrl::Any4H, PredCtrl::All8H]),
        };
        i.pred_inv = rng.chance(3);
    }
    if i.pred_ctrl == PredCtrl::None && i.cond_mod == CondMod::None {
        i.flag = FlagReg::default();
    }
    i.no_mask = rng.chance(4);
    i.no_dd_clr = rng.chance(8);
    i.no_dd_chk = rng.chance(8);
}

fn a16_src(rng: &mut Rng, ty: Type) -> Src {
    let mut r = RegSrc::grf(1 + rng.below(120) as u8, 0, ty, 0, 1, 0);
    r.addr = Addr::Direct {
        nr: 1 + rng.below(120) as u8,
        subnr: rng.below(2) as u8 * 16,
    };
    r.region = Region::Align16 {
        vstride: rng.pick(&[0, 4, 4]),
        swizzle: Swizzle(rng.next() as u8),
    };
    r.negate = rng.chance(4);
    r.abs = ty == Type::F && rng.chance(5);
    Src::Reg(r)
}

/// Align16 one- and two-source ALU instructions.
pub fn align16(p: IsaGen, rng: &mut Rng) -> Instruction {
    let float = rng.chance(2);
    let two = !rng.chance(4);
    let op = match (float, two) {
        (true, true) => rng.pick(&[
            Opcode::Add,
            Opcode::Mul,
            Opcode::Dp4,
            Opcode::Dp3,
            Opcode::Dph,
            Opcode::Cmp,
            Opcode::Sel,
        ]),
        (true, false) => rng.pick(&[Opcode::Mov, Opcode::Frc, Opcode::Rndd]),
        (false, true) => rng.pick(&[Opcode::Add, Opcode::And, Opcode::Or, Opcode::Shl]),
        (false, false) => rng.pick(&[Opcode::Mov, Opcode::Not]),
    };
    let ty = if float {
        Type::F
    } else {
        rng.pick(&[Type::D, Type::Ud])
    };
    let exec = rng.pick(&[4, 8, 8, 16]);
    let mut dst = Dst::grf(1 + rng.below(100) as u8, rng.below(2) as u8 * 16, ty);
    dst.writemask = 1 + rng.below(15) as u8;
    let src0 = a16_src(rng, ty);
    let src1 = if !two {
        Src::Reg(RegSrc::new(
            RegFile::Arf,
            0,
            0,
            Type::Ud,
            Region::Align16 {
                vstride: 0,
                swizzle: Swizzle::XXXX,
            },
        ))
    } else if rng.chance(4) {
        Src::Imm(if float {
            Imm::f(rng.pick(&[1.5f32, -2.0, 0.25]))
        } else {
            Imm::d(rng.next() as i32 >> 8)
        })
    } else {
        a16_src(rng, ty)
    };
    let mut i = Instruction::new(
        op,
        exec,
        group(p, rng, exec, super::Oracle::Gen4asm),
        Body::Alu(Alu { dst, src0, src1 }),
    );
    i.access_mode = AccessMode::Align16;
    if op == Opcode::Cmp || rng.chance(5) && op != Opcode::Sel {
        i.cond_mod = rng.pick(&[CondMod::Z, CondMod::Nz, CondMod::G, CondMod::L]);
    }
    controls(p, rng, &mut i);
    if op == Opcode::Sel && i.pred_ctrl == PredCtrl::None {
        i.pred_ctrl = PredCtrl::Normal;
        i.flag = FlagReg::default();
    }
    i.saturate = float && rng.chance(5) && !matches!(op, Opcode::Cmp | Opcode::Frc);
    i
}

/// Function bits, SFID and header of a message target gen4asm writes.
fn message(p: IsaGen, rng: &mut Rng) -> (Sfid, u32, bool) {
    let r = |rng: &mut Rng, bits: u32| rng.next() as u32 & ((1 << bits) - 1);
    let gen4 = p < IsaGen::Gen6;
    let gen7 = p >= IsaGen::Gen7;
    let urb = |rng: &mut Rng| r(rng, 6) << 4 | (1 + r(rng, 1)) << 10 | r(rng, 3) << 13;
    let ts = |rng: &mut Rng| r(rng, 1) | r(rng, 1) << 1 | r(rng, 1) << 4;
    match rng.below(7) {
        0 => (rng.pick(&[Sfid::Null, Sfid::Gateway]), 0, false),
        1 => (Sfid::ThreadSpawner, ts(rng), false),
        2 => (Sfid::Urb, urb(rng), !gen4),
        3 => {
            let simd = match p {
                IsaGen::Gen6 => 1 << 17,
                IsaGen::Gen7 => 1 << 18,
                _ => 0,
            };
            (Sfid::Sampler, r(rng, 12) | simd, !gen4)
        }
        4 if gen4 => {
            let f = rng.pick(&[1, 2, 3, 4, 5, 6, 7, 8, 0xA, 0xB, 0xC, 0xD]);
            (Sfid::Math, f | r(rng, 1) << 4 | r(rng, 1) << 7, false)
        }
        4 | 5 if gen4 => (Sfid::DataPortRead, r(rng, 16), false),
        5 if !gen7 => (
            Sfid::DpSamplerCache,
            r(rng, 8) | r(rng, 3) << 8 | r(rng, 2) << 13,
            true,
        ),
        5 => (
            Sfid::DpSamplerCache,
            r(rng, 8) | r(rng, 3) << 8 | r(rng, 2) << 14,
            true,
        ),
        _ if gen4 => (Sfid::DataPortWrite, r(rng, 16), false),
        _ if !gen7 => (
            Sfid::DpRenderCache,
            r(rng, 8) | r(rng, 3) << 8 | r(rng, 3) << 13 | r(rng, 1) << 17,
            true,
        ),
        _ => (
            Sfid::DpRenderCache,
            r(rng, 8) | r(rng, 3) << 8 | r(rng, 3) << 14,
            true,
        ),
    }
}

/// A send with a message target gen4asm can write.
pub fn send(p: IsaGen, rng: &mut Rng) -> Instruction {
    let (sfid, function, header) = message(p, rng);
    let eot = rng.chance(6);
    let desc = SendDesc::Imm {
        ty: Type::D,
        desc: MsgDesc {
            mlen: 1 + rng.below(8) as u8,
            rlen: if eot { 0 } else { rng.below(8) as u8 },
            header,
            function,
        },
    };
    let file = if p == IsaGen::Gen6 {
        RegFile::Mrf
    } else {
        RegFile::Grf
    };
    let scalar = Region::Align1 {
        vstride: 0,
        width: 1,
        hstride: 0,
    };
    let src0 = Src::Reg(RegSrc::new(
        file,
        rng.below(if file == RegFile::Mrf { 16 } else { 100 }) as u8,
        0,
        // gen4asm types the Gen6/Gen7 payload D.
        if p >= IsaGen::Gen6 { Type::D } else { Type::Ud },
        scalar,
    ));
    let dst = if eot {
        Dst::null(Type::Ud)
    } else {
        Dst::grf(
            1 + rng.below(100) as u8,
            0,
            rng.pick(&[Type::Ud, Type::Uw, Type::F]),
        )
    };
    let exec = rng.pick(&[8, 16]);
    let gen4 = p < IsaGen::Gen6;
    let op = if !gen4 && rng.chance(4) {
        Opcode::Sendc
    } else {
        Opcode::Send
    };
    let body = Body::Send(Send {
        dst,
        src0,
        desc,
        sfid: Some(sfid),
        base_mrf: gen4.then(|| rng.below(15) as u8),
        eot,
        src1: None,
        ex_desc: None,
    });
    // It writes no compression or second half on a send.
    let mut i = Instruction::new(op, exec, first_group(p), body);
    controls(p, rng, &mut i);
    // It writes none of these on a send.
    i.no_mask = false;
    i.no_dd_clr = false;
    i.no_dd_chk = false;
    i
}

/// The group of an instruction without compression or offset.
fn first_group(p: IsaGen) -> GroupCtrl {
    if p < IsaGen::Gen6 {
        GroupCtrl::Compression(Compression::None)
    } else {
        GroupCtrl::Quarter { qtr: 0, nib: false }
    }
}

fn null_src() -> Src {
    Src::Reg(RegSrc::null(Type::Ud))
}

/// A branch with the implicit fields gen4asm writes (see the printer).
pub fn branch(p: IsaGen, rng: &mut Rng) -> Instruction {
    let off = |rng: &mut Rng| (rng.below(64) as i32 - 32) * 16;
    let vacant_ud = Src::Vacant(Vacant {
        file: RegFile::Arf,
        ty: Type::Ud,
    });
    let exec = rng.pick(&[8, 16]);
    let mut thread = ThreadCtrl::Normal;
    let (op, exec, b) = if p < IsaGen::Gen6 {
        let op = rng.pick(&[
            Opcode::If,
            Opcode::Else,
            Opcode::While,
            Opcode::Break,
            Opcode::Cont,
        ]);
        let jump = off(rng);
        let b = match op {
            Opcode::Break | Opcode::Cont => Branch {
                dst: DstSlot::Reg(Dst::new(RegFile::Arf, 0, 0, Type::Ud, 0)),
                src0: null_src(),
                src1: vacant_ud,
                jump: Jump::Count {
                    jump,
                    pop: rng.below(4) as u8,
                },
            },
            _ => {
                thread = ThreadCtrl::Switch;
                let ip = RegSrc::new(
                    RegFile::Arf,
                    arf::IP,
                    0,
                    Type::Ud,
                    Region::Align1 {
                        vstride: 0,
                        width: 1,
                        hstride: 0,
                    },
                );
                let dst = if op == Opcode::While {
                    Dst::new(RegFile::Arf, 0, 0, Type::Ud, 0)
                } else {
                    Dst::new(RegFile::Arf, arf::IP, 0, Type::Ud, 1)
                };
                Branch {
                    dst: DstSlot::Reg(dst),
                    src0: Src::Reg(ip),
                    src1: Src::Vacant(Vacant {
                        file: RegFile::Imm,
                        ty: Type::D,
                    }),
                    jump: Jump::Count {
                        jump,
                        pop: u8::from(op == Opcode::Else),
                    },
                }
            }
        };
        let exec = if op == Opcode::While { 1 } else { exec };
        (op, exec, b)
    } else {
        let op = rng.pick(&[
            Opcode::If,
            Opcode::Else,
            Opcode::Endif,
            Opcode::While,
            Opcode::Break,
            Opcode::Cont,
            Opcode::Halt,
        ]);
        let (jip, uip) = (off(rng), off(rng));
        let jip_only = matches!(op, Opcode::Else | Opcode::Endif | Opcode::While);
        let gen6_dst = p == IsaGen::Gen6 && (jip_only || op == Opcode::If);
        let b = if gen6_dst {
            Branch {
                dst: DstSlot::Vacant(Vacant {
                    file: RegFile::Arf,
                    ty: Type::Ud,
                }),
                src0: null_src(),
                src1: null_src(),
                jump: Jump::Jip { jip },
            }
        } else {
            let hs = u8::from(op == Opcode::Halt);
            Branch {
                dst: DstSlot::Reg(Dst::new(RegFile::Arf, 0, 0, Type::Ud, hs)),
                src0: null_src(),
                src1: vacant_ud,
                jump: Jump::JipUip {
                    jip,
                    uip: if jip_only { 0 } else { uip },
                },
            }
        };
        let exec = if p == IsaGen::Gen6 && op == Opcode::If {
            1
        } else {
            exec
        };
        (op, exec, b)
    };
    let grp = first_group(p);
    let mut i = Instruction::new(op, exec, grp, Body::Branch(b));
    i.thread_ctrl = thread;
    // Gen6 `if` and every `else`/`endif` refuse a predicate.
    let predicable =
        !(matches!(op, Opcode::Else | Opcode::Endif) || (p == IsaGen::Gen6 && op == Opcode::If));
    if predicable && rng.chance(3) {
        i.pred_ctrl = PredCtrl::Normal;
        i.flag.subreg = rng.below(2) as u8;
        i.pred_inv = rng.chance(3);
    }
    i
}

/// `jmpi` to a relative instruction count or through a register.
pub fn jmpi(p: IsaGen, rng: &mut Rng) -> Instruction {
    let scalar = Region::Align1 {
        vstride: 0,
        width: 1,
        hstride: 0,
    };
    let per = if p < IsaGen::Gen6 { 1 } else { 2 };
    let src1 = if rng.chance(4) {
        Src::Reg(RegSrc::new(
            RegFile::Grf,
            1 + rng.below(100) as u8,
            0,
            Type::D,
            scalar,
        ))
    } else {
        Src::Imm(Imm::d((rng.below(64) as i32 - 32) * per))
    };
    let mut i = Instruction::new(
        Opcode::Jmpi,
        1,
        first_group(p),
        Body::Alu(Alu {
            dst: Dst::new(RegFile::Arf, arf::IP, 0, Type::Ud, 1),
            src0: Src::Reg(RegSrc::new(RegFile::Arf, arf::IP, 0, Type::Ud, scalar)),
            src1,
        }),
    );
    if rng.chance(3) {
        i.pred_ctrl = PredCtrl::Normal;
        i.flag.subreg = rng.below(2) as u8;
    }
    i
}
