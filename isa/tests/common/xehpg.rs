//! The Gen12.5 (Xe-HPG, DG2) instruction generator of tests/xehpg_iga.rs
//! (every supported opcode, operand form, region, type, SWSB and message
//! form iga64 -p=12p71 accepts), shared with the decode benchmark.

use super::Rng;
use baregpu_isa::inst::*;
use baregpu_isa::xehpg::codec;

pub const Q: GroupCtrl = GroupCtrl::Quarter { qtr: 0, nib: false };

pub const INT: [Type; 6] = [Type::Ud, Type::D, Type::Uw, Type::W, Type::Uq, Type::Q];
pub const FLOAT: [Type; 3] = [Type::F, Type::Hf, Type::Df];

pub fn reg(rng: &mut Rng, ty: Type, region: Region) -> RegSrc {
    let elems = 32 / ty.size();
    RegSrc {
        file: RegFile::Grf,
        ty,
        addr: Addr::Direct {
            nr: rng.below(120) as u8,
            subnr: (rng.below(usize::from(elems)) as u8) * ty.size(),
        },
        region,
        negate: false,
        abs: false,
    }
}

pub fn dst(rng: &mut Rng, ty: Type) -> Dst {
    let hstride = if rng.chance(4) { 2 } else { 1 };
    let elems = 32 / ty.size();
    Dst {
        file: RegFile::Grf,
        ty,
        addr: Addr::Direct {
            nr: rng.below(120) as u8,
            subnr: if rng.chance(3) {
                (rng.below(usize::from(elems)) as u8) * ty.size()
            } else {
                0
            },
        },
        hstride,
        writemask: WRITEMASK_XYZW,
    }
}

pub fn region(rng: &mut Rng, exec: u8) -> Region {
    let w = exec.min(8);
    rng.pick(&[
        Region::Align1 {
            vstride: 0,
            width: 1,
            hstride: 0,
        },
        Region::Align1 {
            vstride: w,
            width: w,
            hstride: 1,
        },
        Region::Align1 {
            vstride: 1,
            width: 1,
            hstride: 0,
        },
    ])
}

pub fn imm_bits(rng: &mut Rng, ty: Type) -> u64 {
    match ty {
        Type::F => u64::from(rng.pick(&[1.5f32, -2.0, 0.25, 3.0, 100.0, -0.5]).to_bits()),
        Type::Df => rng.pick(&[1.5f64, -2.0, 0.25, 0.1]).to_bits(),
        Type::Hf => {
            let h = rng.pick(&[0x3C00u64, 0x4000, 0xB800, 0x3E00]);
            h | h << 16
        }
        Type::W | Type::Uw => {
            let h = rng.next() & 0xFFFF;
            h | h << 16
        }
        Type::Uq | Type::Q => rng.next(),
        _ => rng.next() & 0xFFFF_FFFF,
    }
}

pub fn swsb(rng: &mut Rng) -> Option<Swsb> {
    let dist = 1 + rng.below(7) as u8;
    let sbid = rng.below(16) as u8;
    match rng.below(6) {
        0 => None,
        1 => Some(Swsb::Dist {
            pipe: rng.pick(&[Pipe::Same, Pipe::All, Pipe::Float, Pipe::Int, Pipe::Long]),
            dist,
        }),
        2 => Some(Swsb::Token {
            mode: TokenMode::Dst,
            sbid,
        }),
        3 => Some(Swsb::Token {
            mode: TokenMode::Src,
            sbid,
        }),
        4 => Some(Swsb::Both { dist, sbid }),
        _ => Some(Swsb::Dist {
            pipe: Pipe::Same,
            dist,
        }),
    }
}

pub fn controls(rng: &mut Rng, i: &mut Instruction) {
    i.exec_size = rng.pick(&[1, 2, 4, 8, 16, 32]);
    i.group = match i.exec_size {
        8 => GroupCtrl::Quarter {
            qtr: rng.below(4) as u8,
            nib: false,
        },
        16 => GroupCtrl::Quarter {
            qtr: rng.pick(&[0, 2]),
            nib: false,
        },
        _ => Q,
    };
    i.no_mask = rng.chance(4);
    if rng.chance(3) {
        i.pred_ctrl = rng.pick(&[PredCtrl::Normal, PredCtrl::Any4H, PredCtrl::AllV]);
        i.pred_inv = rng.chance(2);
        i.flag = FlagReg {
            reg: rng.below(2) as u8,
            subreg: rng.below(2) as u8,
        };
    }
    i.swsb = swsb(rng);
    i.debug = rng.chance(16);
    if rng.chance(16) {
        i.thread_ctrl = ThreadCtrl::Atomic;
    }
}

pub const ONE: [Opcode; 12] = [
    Opcode::Mov,
    Opcode::Not,
    Opcode::Frc,
    Opcode::Rndu,
    Opcode::Rndd,
    Opcode::Rnde,
    Opcode::Rndz,
    Opcode::Lzd,
    Opcode::Fbh,
    Opcode::Fbl,
    Opcode::Cbit,
    Opcode::Bfrev,
];
pub const TWO: [Opcode; 20] = [
    Opcode::Sel,
    Opcode::And,
    Opcode::Or,
    Opcode::Xor,
    Opcode::Shr,
    Opcode::Shl,
    Opcode::Asr,
    Opcode::Ror,
    Opcode::Rol,
    Opcode::Cmp,
    Opcode::Cmpn,
    Opcode::Add,
    Opcode::Mul,
    Opcode::Avg,
    Opcode::Mac,
    Opcode::Mach,
    Opcode::Addc,
    Opcode::Subb,
    Opcode::Bfi1,
    Opcode::Movi,
];
pub const THREE: [Opcode; 6] = [
    Opcode::Mad,
    Opcode::Add3,
    Opcode::Bfe,
    Opcode::Bfi2,
    Opcode::Csel,
    Opcode::Dp4a,
];

pub fn ty_for(rng: &mut Rng) -> Type {
    if rng.chance(2) {
        rng.pick(&INT)
    } else {
        rng.pick(&FLOAT)
    }
}

/// Operations whose condition modifier iga64 keeps.
pub const COND_OK: [Opcode; 8] = [
    Opcode::Mov,
    Opcode::Add,
    Opcode::Mul,
    Opcode::And,
    Opcode::Or,
    Opcode::Xor,
    Opcode::Not,
    Opcode::Sel,
];
/// Arithmetic operations that saturate.
pub const SAT_OK: [Opcode; 7] = [
    Opcode::Mov,
    Opcode::Add,
    Opcode::Mul,
    Opcode::Rndd,
    Opcode::Rndz,
    Opcode::Rnde,
    Opcode::Rndu,
];

/// Sometimes makes a register operand indirect: `r[a0.N,offset]`, an
/// offset in bytes aligned to the type, and for sources sometimes the
/// Vx1/VxH region.
pub fn indirect_addr(rng: &mut Rng, ty: Type) -> Addr {
    let off = (rng.below(1024 / usize::from(ty.size())) as i16 - 512 / i16::from(ty.size()))
        * i16::from(ty.size());
    Addr::Indirect {
        addr_subnr: rng.below(16) as u8,
        offset: if rng.chance(4) { 0 } else { off },
    }
}

pub fn maybe_indirect_src(rng: &mut Rng, s: &mut RegSrc, exec: u8) {
    if !rng.chance(6) {
        return;
    }
    s.addr = indirect_addr(rng, s.ty);
    match rng.below(3) {
        0 => {
            s.region = Region::VxH {
                width: 1,
                hstride: 0,
            }
        }
        1 => {
            s.region = Region::VxH {
                width: exec.min(8),
                hstride: 1,
            }
        }
        _ => {}
    }
}

pub fn gen_alu(rng: &mut Rng) -> Instruction {
    let two = rng.chance(2);
    let op = if two { rng.pick(&TWO) } else { rng.pick(&ONE) };
    let ty = ty_for(rng);
    let mut i = Instruction::new(
        op,
        8,
        Q,
        Body::Alu(Alu {
            dst: dst(rng, ty),
            src0: codec::ABSENT,
            src1: codec::ABSENT,
        }),
    );
    controls(rng, &mut i);
    let exec = i.exec_size;
    let rg = region(rng, exec);
    let mut s0 = reg(rng, ty, rg);
    s0.negate = rng.chance(5);
    s0.abs = rng.chance(6);
    maybe_indirect_src(rng, &mut s0, exec);
    let src0 = if !two && rng.chance(4) {
        Src::Imm(Imm {
            ty,
            bits: imm_bits(rng, ty),
        })
    } else {
        Src::Reg(s0)
    };
    let src1 = if two {
        if rng.chance(3) && ty.size() < 8 {
            Src::Imm(Imm {
                ty,
                bits: imm_bits(rng, ty),
            })
        } else {
            let rg = region(rng, exec);
            let mut s1 = reg(rng, ty, rg);
            s1.negate = rng.chance(5);
            maybe_indirect_src(rng, &mut s1, exec);
            Src::Reg(s1)
        }
    } else {
        codec::ABSENT
    };
    // iga64 silently drops a condition modifier where the operation has
    // none and saturation on integer results: only generate them where
    // they stay.
    if (COND_OK.contains(&op) || op == Opcode::Cmp || op == Opcode::Cmpn)
        && rng.chance(3)
        && !matches!(
            src0,
            Src::Imm(Imm {
                ty: Type::Df | Type::Q | Type::Uq,
                ..
            })
        )
    {
        i.cond_mod = rng.pick(&[CondMod::Z, CondMod::Nz, CondMod::G, CondMod::L, CondMod::Le]);
    }
    i.saturate = ty.is_float() && SAT_OK.contains(&op) && rng.chance(6);
    i.acc_wr_ctrl = rng.chance(16);
    let mut d = i.dst().copied().unwrap_or_else(|| dst(rng, ty));
    if rng.chance(6) {
        d.addr = indirect_addr(rng, ty);
    }
    i.body = Body::Alu(Alu { dst: d, src0, src1 });
    i
}

pub fn gen_math(rng: &mut Rng) -> Instruction {
    let f = rng.pick(&[
        MathFn::Inv,
        MathFn::Log,
        MathFn::Exp,
        MathFn::Sqrt,
        MathFn::Rsq,
        MathFn::Sin,
        MathFn::Cos,
    ]);
    let ty = rng.pick(&[Type::F, Type::Hf]);
    let mut i = Instruction::new(
        Opcode::Math,
        8,
        Q,
        Body::Alu(Alu {
            dst: dst(rng, ty),
            src0: codec::ABSENT,
            src1: codec::ABSENT,
        }),
    );
    controls(rng, &mut i);
    let rg = region(rng, i.exec_size);
    let mut s0 = reg(rng, ty, rg);
    maybe_indirect_src(rng, &mut s0, i.exec_size);
    let src0 = Src::Reg(s0);
    i.saturate = rng.chance(8);
    let mut d = dst(rng, ty);
    if rng.chance(6) {
        d.addr = indirect_addr(rng, ty);
    }
    i.body = Body::Math(Math {
        function: f,
        dst: d,
        src0,
        src1: codec::ABSENT,
    });
    i
}

/// math.invm / math.rsqtm: a selector per operand (mme0-mme7, nomme),
/// sources with modifiers; iga64 prints the flag as `(eo)`.
pub fn gen_math_macro(rng: &mut Rng) -> Instruction {
    let f = rng.pick(&[MathFn::Invm, MathFn::Rsqtm]);
    let ty = rng.pick(&[Type::F, Type::Df, Type::Hf]);
    let mut i = Instruction::new(
        Opcode::Math,
        8,
        Q,
        Body::Alu(Alu {
            dst: dst(rng, ty),
            src0: codec::ABSENT,
            src1: codec::ABSENT,
        }),
    );
    controls(rng, &mut i);
    i.flag = FlagReg {
        reg: rng.below(2) as u8,
        subreg: rng.below(2) as u8,
    };
    let sel = |rng: &mut Rng| Addr::Direct {
        nr: rng.below(120) as u8,
        subnr: rng.below(9) as u8,
    };
    let region = codec::math_macro_region(i.exec_size);
    let src = |rng: &mut Rng| {
        Src::Reg(RegSrc {
            file: RegFile::Grf,
            ty,
            addr: sel(rng),
            region,
            negate: rng.chance(4),
            abs: rng.chance(4),
        })
    };
    let src0 = src(rng);
    let src1 = if f == MathFn::Invm {
        src(rng)
    } else {
        codec::ABSENT
    };
    i.body = Body::Math(Math {
        function: f,
        dst: Dst {
            file: RegFile::Grf,
            ty,
            addr: sel(rng),
            hstride: 1,
            writemask: WRITEMASK_XYZW,
        },
        src0,
        src1,
    });
    i
}

pub fn gen_three(rng: &mut Rng) -> Instruction {
    let op = rng.pick(&THREE);
    let ty = if op == Opcode::Mad && rng.chance(2) {
        rng.pick(&[Type::F, Type::Hf, Type::Df])
    } else {
        rng.pick(&[Type::D, Type::Ud, Type::W, Type::Uw])
    };
    let mut i = Instruction::new(
        op,
        8,
        Q,
        Body::Alu(Alu {
            dst: dst(rng, ty),
            src0: codec::ABSENT,
            src1: codec::ABSENT,
        }),
    );
    controls(rng, &mut i);
    let r3 = |rng: &mut Rng, last: bool| {
        let rg = Region::Align1 {
            vstride: if last { 0 } else { rng.pick(&[0, 1, 4, 8]) },
            width: 1,
            hstride: rng.pick(&[0, 1, 2]),
        };
        let mut r = reg(rng, ty, rg);
        r.negate = rng.chance(5);
        Src::Reg(r)
    };
    let imm16 = |rng: &mut Rng| {
        let t = if ty.is_float() {
            Type::Hf
        } else {
            rng.pick(&[Type::W, Type::Uw])
        };
        Src::Imm(Imm {
            ty: t,
            bits: if t == Type::Hf {
                0x3C00
            } else {
                rng.next() & 0xFFFF
            },
        })
    };
    let s0 = if rng.chance(5) {
        imm16(rng)
    } else {
        r3(rng, false)
    };
    let s1 = r3(rng, false);
    let s2 = if rng.chance(5) {
        imm16(rng)
    } else {
        r3(rng, true)
    };
    i.saturate = ty.is_float() && rng.chance(8);
    if op == Opcode::Csel {
        // csel's flag is its compare input: iga64 drops a predicate.
        i.pred_ctrl = PredCtrl::None;
        i.pred_inv = false;
        i.flag = FlagReg::default();
    }
    i.body = Body::ThreeSrc(ThreeSrc {
        dst: dst(rng, ty),
        src: [s0, s1, s2],
    });
    i
}

/// madm with a math-macro selector on every operand (mme0-mme7, nomme).
pub fn gen_madm(rng: &mut Rng) -> Instruction {
    let ty = rng.pick(&[Type::F, Type::Df, Type::Hf]);
    let mut i = Instruction::new(
        Opcode::Madm,
        8,
        Q,
        Body::Alu(Alu {
            dst: dst(rng, ty),
            src0: codec::ABSENT,
            src1: codec::ABSENT,
        }),
    );
    controls(rng, &mut i);
    // iga64 drops saturation and condition modifiers from madm.
    i.cond_mod = CondMod::None;
    i.saturate = false;
    i.acc_wr_ctrl = rng.chance(8);
    let sel = |rng: &mut Rng| Addr::Direct {
        nr: rng.below(120) as u8,
        subnr: rng.below(9) as u8,
    };
    let mut src = [codec::ABSENT; 3];
    for s in &mut src {
        *s = Src::Reg(RegSrc {
            file: RegFile::Grf,
            ty,
            addr: sel(rng),
            region: codec::MADM_REGION,
            negate: rng.chance(4),
            abs: rng.chance(4),
        });
    }
    i.body = Body::ThreeSrc(ThreeSrc {
        dst: Dst {
            file: RegFile::Grf,
            ty,
            addr: sel(rng),
            hstride: 1,
            writemask: WRITEMASK_XYZW,
        },
        src,
    });
    i
}

pub fn gen_send(rng: &mut Rng) -> Instruction {
    let op = rng.pick(&[Opcode::Send, Opcode::Sendc]);
    let sfid = rng.pick(&[Sfid::Ugm, Sfid::Slm, Sfid::Tgm, Sfid::Urb, Sfid::Gateway]);
    let eot = rng.chance(8);
    let mut i = Instruction::new(
        op,
        8,
        Q,
        Body::Alu(Alu {
            dst: dst(rng, Type::Ud),
            src0: codec::ABSENT,
            src1: codec::ABSENT,
        }),
    );
    controls(rng, &mut i);
    i.exec_size = rng.pick(&[1, 8, 16, 32]);
    i.group = Q;
    i.thread_ctrl = ThreadCtrl::Normal;
    i.swsb = Some(match rng.below(2) {
        0 => Swsb::Token {
            mode: TokenMode::Set,
            sbid: rng.below(16) as u8,
        },
        _ => Swsb::Both {
            dist: 1 + rng.below(7) as u8,
            sbid: rng.below(16) as u8,
        },
    });
    let len1 = rng.below(4) as u32;
    let src1 = if len1 == 0 {
        codec::send_reg(RegFile::Arf, 0)
    } else {
        codec::send_reg(RegFile::Grf, rng.below(100) as u8)
    };
    let desc = if rng.chance(6) {
        SendDesc::Reg(codec::desc_a0())
    } else {
        let d = (1 + rng.below(4) as u32) << 25
            | (rng.below(4) as u32) << 20
            | (rng.next() as u32 & 0xE007_FFFF);
        SendDesc::Imm {
            ty: Type::Ud,
            desc: codec::msg_desc(d),
        }
    };
    let dst_reg = if eot || rng.chance(4) {
        codec::send_reg(RegFile::Arf, 0)
    } else {
        codec::send_reg(RegFile::Grf, rng.below(100) as u8)
    };
    i.body = Body::Send(Send {
        dst: Dst {
            file: dst_reg.file,
            ty: Type::Ud,
            addr: dst_reg.addr,
            hstride: 1,
            writemask: WRITEMASK_XYZW,
        },
        src0: Src::Reg(codec::send_reg(RegFile::Grf, rng.below(100) as u8)),
        desc,
        sfid: Some(sfid),
        base_mrf: None,
        eot,
        src1: Some(Src::Reg(src1)),
        ex_desc: Some(if rng.chance(4) {
            // The register extended descriptor, with or without ExBSO.
            ExDesc::Reg {
                subnr: rng.below(8) as u8,
                src1_len: rng.chance(2).then_some(len1 as u8),
            }
        } else {
            ExDesc::Imm(len1 << 6 | (rng.below(16) as u32) << 12)
        }),
    });
    i
}

pub fn gen_sync(rng: &mut Rng) -> Instruction {
    let mut i = Instruction::new(
        Opcode::Sync,
        1,
        Q,
        Body::Sync(Sync {
            function: rng.pick(&[SyncFn::Nop, SyncFn::AllRd, SyncFn::AllWr, SyncFn::Bar]),
            src0: Src::Reg(RegSrc {
                file: RegFile::Arf,
                ty: Type::Ub,
                addr: Addr::Direct { nr: 0, subnr: 0 },
                region: Region::Align1 {
                    vstride: 0,
                    width: 1,
                    hstride: 0,
                },
                negate: false,
                abs: false,
            }),
        }),
    );
    i.swsb = swsb(rng);
    i
}

/// bfn: any of the 256 functions, integer three-source operands without
/// modifiers (the format has none), 16-bit immediates in src0/src2, and
/// the three conditions CondCtrl2 can hold.
pub fn gen_bfn(rng: &mut Rng) -> Instruction {
    let ty = rng.pick(&[Type::D, Type::Ud, Type::W, Type::Uw]);
    let mut i = Instruction::new(
        Opcode::Bfn,
        8,
        Q,
        Body::Alu(Alu {
            dst: dst(rng, ty),
            src0: codec::ABSENT,
            src1: codec::ABSENT,
        }),
    );
    controls(rng, &mut i);
    if rng.chance(3) {
        i.cond_mod = rng.pick(&[CondMod::Z, CondMod::G, CondMod::L]);
    }
    let r3 = |rng: &mut Rng, last: bool| {
        let rg = Region::Align1 {
            vstride: if last { 0 } else { rng.pick(&[0, 1, 4, 8]) },
            width: 1,
            hstride: rng.pick(&[0, 1, 2]),
        };
        Src::Reg(reg(rng, ty, rg))
    };
    let imm16 = |rng: &mut Rng| {
        Src::Imm(Imm {
            ty: rng.pick(&[Type::W, Type::Uw]),
            bits: rng.next() & 0xFFFF,
        })
    };
    let s0 = if rng.chance(5) {
        imm16(rng)
    } else {
        r3(rng, false)
    };
    let s1 = r3(rng, false);
    let s2 = if rng.chance(5) {
        imm16(rng)
    } else {
        r3(rng, true)
    };
    i.body = Body::Bfn(Bfn {
        function: rng.below(256) as u8,
        dst: dst(rng, ty),
        src: [s0, s1, s2],
    });
    i
}

/// dpas/dpasw: every systolic depth and repeat count, the float
/// (f/hf/bf) and integer (d/ud with ub/b in 8, 4 or 2 bits) operands,
/// src0 null or a register. No predicate, saturation or condition: the
/// format has none (iga64 drops a predicate silently).
pub fn gen_dpas(rng: &mut Rng) -> Instruction {
    let float = rng.chance(2);
    let (acc, ab): (&[Type], &[Type]) = if float {
        (&[Type::F, Type::Hf, Type::Bf], &[Type::Hf, Type::Bf])
    } else {
        (&[Type::D, Type::Ud], &[Type::Ub, Type::B])
    };
    let op = if rng.chance(3) {
        Opcode::Dpasw
    } else {
        Opcode::Dpas
    };
    let sub = |rng: &mut Rng, ty: Type| {
        if rng.chance(6) {
            rng.below(usize::from(32 / ty.size())) as u8 * ty.size()
        } else {
            0
        }
    };
    let operand = |rng: &mut Rng, ty: Type, subnr: u8| {
        Src::Reg(RegSrc {
            file: RegFile::Grf,
            ty,
            addr: Addr::Direct {
                nr: rng.below(120) as u8,
                subnr,
            },
            region: codec::DPAS_REGION,
            negate: false,
            abs: false,
        })
    };
    let dt = rng.pick(acc);
    let d = dst(rng, dt);
    let dst = Dst {
        hstride: 1,
        addr: Addr::Direct {
            nr: match d.addr {
                Addr::Direct { nr, .. } => nr,
                Addr::Indirect { .. } => 0,
            },
            subnr: sub(rng, dt),
        },
        ..d
    };
    let t0 = rng.pick(acc);
    let s0 = if rng.chance(6) {
        Src::Reg(RegSrc {
            file: RegFile::Arf,
            ty: t0,
            addr: Addr::Direct { nr: 0, subnr: 0 },
            region: codec::DPAS_REGION,
            negate: false,
            abs: false,
        })
    } else {
        let s = sub(rng, t0);
        operand(rng, t0, s)
    };
    let mut precision = [Precision::Full; 2];
    let mut srcs = [codec::ABSENT; 2];
    for k in 0..2 {
        let t = rng.pick(ab);
        if !float {
            precision[k] = rng.pick(&[Precision::Full, Precision::Bits4, Precision::Bits2]);
        }
        let s = if precision[k] == Precision::Full {
            sub(rng, t)
        } else {
            0
        };
        srcs[k] = operand(rng, t, s);
    }
    let mut i = Instruction::new(
        op,
        rng.pick(&[8, 8, 8, 16]),
        Q,
        Body::Dpas(Dpas {
            depth: rng.pick(&[1, 2, 4, 8]),
            repeat: 1 + rng.below(8) as u8,
            dst,
            src: [s0, srcs[0], srcs[1]],
            precision,
        }),
    );
    if i.exec_size == 8 && rng.chance(3) {
        i.group = GroupCtrl::Quarter {
            qtr: 1 + rng.below(3) as u8,
            nib: false,
        };
    }
    i.no_mask = rng.chance(4);
    i.swsb = swsb(rng);
    i.debug = rng.chance(16);
    i
}

pub fn generate(rng: &mut Rng) -> Instruction {
    match rng.below(17) {
        13..=15 => gen_compactable(rng),
        16 => gen_bfn(rng),
        0..=3 => gen_alu(rng),
        4 | 5 => gen_three(rng),
        6 if rng.chance(3) => gen_math_macro(rng),
        6 => gen_math(rng),
        7 | 8 => gen_send(rng),
        9 => gen_madm(rng),
        10 => gen_bfn(rng),
        11 => gen_dpas(rng),
        _ => gen_sync(rng),
    }
}

/// Instructions shaped like the rows of the compaction tables (the common
/// execution sizes, f/d/ud types, `<1;1,0>`/`<0;1,0>` regions, small
/// immediates, three-source f/ud forms), so that many do compact; the
/// fields still vary, so many do not.
pub fn gen_compactable(rng: &mut Rng) -> Instruction {
    let ty = rng.pick(&[Type::F, Type::F, Type::D, Type::Ud, Type::Uw]);
    let grf = |rng: &mut Rng, ty: Type, scalar: bool| {
        let sub = if rng.chance(4) {
            rng.below(usize::from(32 / ty.size())) as u8 * ty.size()
        } else {
            0
        };
        let mut r = reg(
            rng,
            ty,
            Region::Align1 {
                vstride: if scalar { 0 } else { 1 },
                width: 1,
                hstride: 0,
            },
        );
        r.addr = match r.addr {
            Addr::Direct { nr, .. } => Addr::Direct { nr, subnr: sub },
            a => a,
        };
        if rng.chance(6) {
            r.negate = true;
        }
        if rng.chance(8) && ty.is_float() {
            r.abs = true;
        }
        r
    };
    let mut d = dst(rng, ty);
    if rng.chance(2) {
        d.addr = Addr::Direct {
            nr: rng.below(120) as u8,
            subnr: 0,
        };
    }
    d.hstride = if rng.chance(6) { 2 } else { 1 };
    let mut i = Instruction::new(
        Opcode::Mov,
        rng.pick(&[16, 16, 8, 8, 1, 2, 4]),
        Q,
        Body::Alu(Alu {
            dst: d,
            src0: codec::ABSENT,
            src1: codec::ABSENT,
        }),
    );
    i.group = match (i.exec_size, rng.below(4)) {
        (16, 1) => GroupCtrl::Quarter { qtr: 2, nib: false },
        (8, q @ 1..=3) => GroupCtrl::Quarter {
            qtr: q as u8,
            nib: false,
        },
        _ => Q,
    };
    i.no_mask = rng.chance(3);
    if rng.chance(5) {
        i.pred_ctrl = PredCtrl::Normal;
        i.flag = FlagReg {
            reg: rng.below(2) as u8,
            subreg: rng.below(2) as u8,
        };
    }
    i.swsb = swsb(rng);
    i.debug = rng.chance(20);
    let small_imm = |rng: &mut Rng, ty: Type| {
        let bits = match ty {
            Type::F => {
                u64::from(rng.pick(&[0x3f80_0000u32, 0x4000_0000, 0xbf80_0000, 0x3f88_0000]))
            }
            Type::Uw => {
                let h = rng.next() & 0xfff;
                h | h << 16
            }
            _ => rng.pick(&[1u64, 0x7ff, 0xffff_f800, 0x800, 0x1234]),
        };
        Src::Imm(Imm { ty, bits })
    };
    if rng.chance(8) {
        // dpas.8x1 (8|M0) in the forms of the dpas rows.
        let mut i = gen_dpas(rng);
        let float = matches!(&i.body, Body::Dpas(d) if d.dst.ty.is_float());
        if let Body::Dpas(d) = &mut i.body {
            let (acc, ab) = if float {
                (Type::F, Type::Bf)
            } else {
                (Type::D, rng.pick(&[Type::Ub, Type::B]))
            };
            d.depth = 8;
            d.repeat = 1;
            d.dst.ty = acc;
            d.dst.addr = Addr::Direct {
                nr: rng.below(120) as u8,
                subnr: 0,
            };
            for (k, s) in d.src.iter_mut().enumerate() {
                if let Src::Reg(r) = s {
                    r.ty = [acc, ab, ab][k];
                    r.addr = Addr::Direct {
                        nr: rng.below(120) as u8,
                        subnr: 0,
                    };
                    r.file = RegFile::Grf;
                }
            }
            if float {
                d.precision = [Precision::Full; 2];
            }
        }
        i.opcode = Opcode::Dpas;
        i.exec_size = 8;
        i.group = Q;
        i.no_mask = false;
        return i;
    }
    match rng.below(5) {
        0 | 1 => {
            i.opcode = rng.pick(&[Opcode::Mov, Opcode::Not, Opcode::Frc]);
            if i.opcode == Opcode::Frc && !ty.is_float() || i.opcode == Opcode::Not && ty.is_float()
            {
                i.opcode = Opcode::Mov;
            }
            let s0 = if rng.chance(3) {
                small_imm(rng, ty)
            } else {
                {
                    let scalar = rng.chance(3);
                    Src::Reg(grf(rng, ty, scalar))
                }
            };
            if let Src::Reg(r) = &s0
                && r.negate
                && i.opcode == Opcode::Not
            {
                i.opcode = Opcode::Mov;
            }
            if let Body::Alu(a) = &mut i.body {
                a.src0 = s0;
            }
        }
        2 | 3 => {
            i.opcode = rng.pick(&[
                Opcode::Add,
                Opcode::Mul,
                Opcode::Sel,
                Opcode::Cmp,
                Opcode::And,
            ]);
            if i.opcode == Opcode::And && ty.is_float() {
                i.opcode = Opcode::Add;
            }
            if matches!(i.opcode, Opcode::Cmp | Opcode::Sel) || rng.chance(4) {
                i.cond_mod =
                    rng.pick(&[CondMod::Ge, CondMod::L, CondMod::G, CondMod::Z, CondMod::Nz]);
            }
            if i.opcode == Opcode::Sel && i.cond_mod == CondMod::None {
                i.cond_mod = CondMod::Ge;
            }
            i.saturate = ty.is_float() && i.opcode != Opcode::Cmp && rng.chance(6);
            let scalar = rng.chance(4);
            let s0 = grf(rng, ty, scalar);
            let s1 = if rng.chance(3) {
                small_imm(rng, ty)
            } else {
                {
                    let scalar = rng.chance(3);
                    Src::Reg(grf(rng, ty, scalar))
                }
            };
            if let Body::Alu(a) = &mut i.body {
                a.src0 = Src::Reg(s0);
                a.src1 = s1;
            }
        }
        _ => {
            let ty = if rng.chance(4) { Type::Ud } else { Type::F };
            i.opcode = if ty == Type::F {
                Opcode::Mad
            } else {
                Opcode::Add3
            };
            i.saturate = ty == Type::F && rng.chance(6);
            let r3 = |rng: &mut Rng, last: bool| {
                let vs = rng.pick(&[0, 1]);
                let hs = rng.pick(&[0, 1]);
                let mut r = reg(
                    rng,
                    ty,
                    Region::Align1 {
                        vstride: if last { 0 } else { vs },
                        width: 1,
                        hstride: if last { hs } else { 0 },
                    },
                );
                r.addr = Addr::Direct {
                    nr: rng.below(120) as u8,
                    subnr: if rng.chance(5) {
                        4 * rng.below(8) as u8
                    } else {
                        0
                    },
                };
                r.negate = rng.chance(6);
                Src::Reg(r)
            };
            let mut d = dst(rng, ty);
            d.hstride = 1;
            d.addr = Addr::Direct {
                nr: rng.below(120) as u8,
                subnr: 0,
            };
            i.body = Body::ThreeSrc(ThreeSrc {
                dst: d,
                src: [r3(rng, false), r3(rng, false), r3(rng, true)],
            });
        }
    }
    if let Body::Alu(a) = &mut i.body
        && i.opcode == Opcode::Cmp
    {
        a.dst.file = RegFile::Arf;
        a.dst.addr = Addr::Direct { nr: 0, subnr: 0 };
    }
    i
}
