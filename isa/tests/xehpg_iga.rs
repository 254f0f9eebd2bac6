//! Differential test of the Gen12.5 (Xe-HPG, DG2) codec and printer
//! against `iga64 -p=12p71`: generated instructions (every supported
//! opcode, register/immediate operands, regions, types, predication,
//! condition modifiers, every SWSB form, sends with descriptors, sync,
//! math, three-source Align1, branches) are encoded by us and printed by
//! us. iga64 assembles our text: the bits must equal ours. iga64
//! disassembles our bits: its text must equal ours token for token (its
//! column padding and `//` comments aside). Our decoder reads iga64's bits
//! back to the generated instruction. Lines iga64 rejects (its semantic
//! checks: region and type rules) are counted and dropped.

mod common;

use baregpu_isa::inst::*;
use baregpu_isa::xehpg::{self, codec, parse::parse, print::print};
use common::{Rng, ensure_oracles, iga, scratch};
use std::fs;

const Q: GroupCtrl = GroupCtrl::Quarter { qtr: 0, nib: false };

/// iga64's disassembly, one normalised line per instruction (labels and
/// comments dropped, runs of blanks collapsed).
fn disassemble(bytes: &[u8], dir: &std::path::Path) -> Vec<String> {
    let bin = dir.join("ours.bin");
    fs::write(&bin, bytes).unwrap();
    let r = iga(&["-p=12p71", "-d", bin.to_str().unwrap()]);
    assert!(
        r.status.success(),
        "iga64 -d failed: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    String::from_utf8_lossy(&r.stdout)
        .lines()
        .map(|l| l.split("//").next().unwrap_or("").trim().to_string())
        .filter(|l| !(l.is_empty() || (l.starts_with('L') && l.ends_with(':'))))
        .map(|l| norm(&l))
        .collect()
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

const INT: [Type; 6] = [Type::Ud, Type::D, Type::Uw, Type::W, Type::Uq, Type::Q];
const FLOAT: [Type; 3] = [Type::F, Type::Hf, Type::Df];

fn reg(rng: &mut Rng, ty: Type, region: Region) -> RegSrc {
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

fn dst(rng: &mut Rng, ty: Type) -> Dst {
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

fn region(rng: &mut Rng, exec: u8) -> Region {
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

fn imm_bits(rng: &mut Rng, ty: Type) -> u64 {
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

fn swsb(rng: &mut Rng) -> Option<Swsb> {
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

fn controls(rng: &mut Rng, i: &mut Instruction) {
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

const ONE: [Opcode; 12] = [
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
const TWO: [Opcode; 20] = [
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
const THREE: [Opcode; 6] = [
    Opcode::Mad,
    Opcode::Add3,
    Opcode::Bfe,
    Opcode::Bfi2,
    Opcode::Csel,
    Opcode::Dp4a,
];

fn ty_for(rng: &mut Rng) -> Type {
    if rng.chance(2) {
        rng.pick(&INT)
    } else {
        rng.pick(&FLOAT)
    }
}

/// Operations whose condition modifier iga64 keeps.
const COND_OK: [Opcode; 8] = [
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
const SAT_OK: [Opcode; 7] = [
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
fn indirect_addr(rng: &mut Rng, ty: Type) -> Addr {
    let off = (rng.below(1024 / usize::from(ty.size())) as i16 - 512 / i16::from(ty.size()))
        * i16::from(ty.size());
    Addr::Indirect {
        addr_subnr: rng.below(16) as u8,
        offset: if rng.chance(4) { 0 } else { off },
    }
}

fn maybe_indirect_src(rng: &mut Rng, s: &mut RegSrc, exec: u8) {
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

fn gen_alu(rng: &mut Rng) -> Instruction {
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

fn gen_math(rng: &mut Rng) -> Instruction {
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
fn gen_math_macro(rng: &mut Rng) -> Instruction {
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

fn gen_three(rng: &mut Rng) -> Instruction {
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
fn gen_madm(rng: &mut Rng) -> Instruction {
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

fn gen_send(rng: &mut Rng) -> Instruction {
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

fn gen_sync(rng: &mut Rng) -> Instruction {
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
fn gen_bfn(rng: &mut Rng) -> Instruction {
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
fn gen_dpas(rng: &mut Rng) -> Instruction {
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

fn generate(rng: &mut Rng) -> Instruction {
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

/// iga64 writes bfn's function as an expression (`bfn.(s0&~s2|s1&s2)`),
/// ours as its value (`bfn.0xCA`): the expression, evaluated by our
/// parser, is compared as that value.
fn bfn_as_value(line: &str) -> String {
    line.split(' ')
        .map(|t| match t.strip_prefix("bfn.") {
            Some(f) => match xehpg::parse::bfn_function(f) {
                Ok(v) => format!("bfn.0x{v:X}"),
                Err(e) => format!("bfn.<{e}>"),
            },
            None => t.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Encode, print; iga64 assembles our text to our bits and disassembles
/// our bits to our text; we decode iga64's bits to the instruction.
fn compare(
    insts: &[Instruction],
    dir: &std::path::Path,
    with_labels: bool,
) -> (Vec<usize>, Vec<String>) {
    let words: Vec<u128> = insts
        .iter()
        .map(|i| xehpg::encode(i).unwrap_or_else(|e| panic!("encode {i:?}: {e}")))
        .collect();
    for (i, w) in insts.iter().zip(&words) {
        assert_eq!(
            xehpg::decode(*w).as_ref(),
            Ok(i),
            "decode of our word {w:032x}"
        );
    }
    let text: Vec<String> = insts
        .iter()
        .enumerate()
        .map(|(k, i)| {
            let pc = 16 * k as i64;
            let line = print(i, with_labels.then_some(pc));
            if with_labels {
                format!("L{pc}:\n{line}")
            } else {
                line
            }
        })
        .collect();
    let (keep, bin, rejected) = common::iga_assemble("12p71", &text, dir);
    if with_labels {
        assert!(
            rejected.is_empty(),
            "iga64 rejected branch lines:\n{}",
            rejected.join("\n")
        );
    }
    assert_eq!(bin.len(), keep.len() * 16, "iga64 output size");
    let mut mismatch = Vec::new();
    let mut ours_kept = Vec::new();
    for (n, &k) in keep.iter().enumerate() {
        let theirs = u128::from_le_bytes(bin[n * 16..n * 16 + 16].try_into().unwrap());
        if theirs != words[k] {
            mismatch.push(format!(
                "{}\n    ours  {:032x}\n    iga64 {:032x}",
                text[k], words[k], theirs
            ));
        }
        ours_kept.extend_from_slice(&words[k].to_le_bytes());
    }
    assert!(
        mismatch.is_empty(),
        "{} of {} lines assemble differently:\n{}",
        mismatch.len(),
        keep.len(),
        mismatch
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    compare_compaction(insts, &words, &keep, &text, dir);
    let dis = disassemble(&ours_kept, dir);
    assert_eq!(
        dis.len(),
        keep.len(),
        "iga64 -d printed {} lines",
        dis.len()
    );
    let mut textdiff = Vec::new();
    let mut parsediff = Vec::new();
    for (n, &k) in keep.iter().enumerate() {
        let ours = norm(text[k].rsplit('\n').next().unwrap_or(""));
        if bfn_as_value(&dis[n]) != ours {
            textdiff.push(format!("    ours  {ours}\n    iga64 {}", dis[n]));
        }
        // Our assembler reads our text and iga64's text back to the
        // instruction (iga64's labels are at the same offsets when no
        // line was dropped, which the branch kernel asserts).
        let pc = 16 * k as i64;
        for (who, line) in [("ours", &ours), ("iga64", &dis[n])] {
            let got = parse(line, if with_labels { 16 * n as i64 } else { pc });
            if got.as_ref() != Ok(&insts[k]) {
                parsediff.push(format!("    {who} {line}\n    -> {got:?}"));
            }
        }
    }
    assert!(
        parsediff.is_empty(),
        "{} lines parse differently:\n{}",
        parsediff.len(),
        parsediff
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        textdiff.is_empty(),
        "{} of {} disassemblies differ:\n{}",
        textdiff.len(),
        keep.len(),
        textdiff
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    (keep, rejected)
}

/// The opcodes of the instructions iga64 compacted (and we identically),
/// over every `compare` call.
static COMPACTED: std::sync::Mutex<Vec<Opcode>> = std::sync::Mutex::new(Vec::new());

/// iga64 assembles the kept lines again with `-Xautocompact`: every word it
/// compacts must be our compact form of the native word, and must expand
/// back (our `uncompact`) to the native word; every instruction it leaves
/// native must have no compact form of ours.
fn compare_compaction(
    insts: &[Instruction],
    words: &[u128],
    keep: &[usize],
    text: &[String],
    dir: &std::path::Path,
) {
    use baregpu_isa::{IsaGen, compact};
    let (src, out) = (dir.join("cmpt.asm"), dir.join("cmpt.bin"));
    let lines: String = keep.iter().map(|&k| format!("{}\n", text[k])).collect();
    fs::write(&src, lines).unwrap();
    let r = iga(&[
        "-p=12p71",
        "-a",
        src.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-Wnone",
        "-Xautocompact",
    ]);
    assert!(
        r.status.success(),
        "iga64 -Xautocompact refused lines it assembled natively: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    let bin = fs::read(&out).unwrap();
    let dword = |at: usize| u32::from_le_bytes(bin[at..at + 4].try_into().unwrap());
    let mut at = 0;
    let mut diffs = Vec::new();
    let mut compacted = Vec::new();
    for &k in keep {
        let native = baregpu_isa::codec::to_dwords(words[k]);
        let ours = compact::compact(IsaGen::Gen12_5, native);
        let theirs = if compact::is_compact(dword(at)) {
            let c = [dword(at), dword(at + 4)];
            at += 8;
            Some(c)
        } else {
            at += 16;
            None
        };
        if let Some(c) = theirs {
            compacted.push(insts[k].opcode);
            let back = compact::uncompact(IsaGen::Gen12_5, c);
            if back != Ok(native) {
                diffs.push(format!(
                    "{}\n    iga64 compact {:08x}{:08x} expands to {back:x?}",
                    text[k], c[1], c[0]
                ));
            }
        }
        if ours != theirs {
            diffs.push(format!(
                "{}\n    ours  {ours:08x?}\n    iga64 {theirs:08x?}  ({:?})",
                text[k], insts[k].opcode
            ));
        }
    }
    assert_eq!(at, bin.len(), "iga64 -Xautocompact output size");
    // Our disassembler reads iga64's compacted kernel as iga64 does
    // (`{Compacted}` marks included), and our assembler with compaction on
    // writes iga64's bytes (no jumps here: the branch kernel stays native).
    let opts = baregpu_isa::text::DisasmOptions {
        offsets: false,
        labels: true,
        messages: false,
    };
    let ours = baregpu_isa::text::disassemble_with(IsaGen::Gen12_5, &bin, opts)
        .unwrap_or_else(|e| panic!("disassembling iga64's compacted kernel: {e}"));
    // That text, `{Compacted}` marks and labels included, assembles back to
    // iga64's bytes.
    let again = baregpu_isa::text::assemble(IsaGen::Gen12_5, &ours)
        .unwrap_or_else(|e| panic!("reassembling our disassembly: {e}"));
    assert!(
        again == bin,
        "our disassembly of a compacted kernel reassembles differently"
    );
    let ours: Vec<String> = ours
        .lines()
        .filter(|l| !(l.starts_with('L') && l.ends_with(':')))
        .map(norm)
        .collect();
    let theirs = disassemble(&bin, dir);
    assert_eq!(ours.len(), theirs.len(), "compacted kernel lines");
    for (o, t) in ours.iter().zip(&theirs) {
        if *o != bfn_as_value(t) {
            diffs.push(format!("    ours  {o}\n    iga64 {t}"));
        }
    }
    if insts.iter().all(|i| !matches!(i.body, Body::Branch(_))) {
        let source: String = keep.iter().map(|&k| format!("{}\n", text[k])).collect();
        let asm = baregpu_isa::text::assemble_with(
            IsaGen::Gen12_5,
            &source,
            baregpu_isa::text::AsmOptions { compact: true },
        )
        .unwrap_or_else(|e| panic!("assembling with compaction: {e}"));
        assert!(
            asm == bin,
            "our compacting assembler differs from iga64 -Xautocompact"
        );
    }
    assert!(
        diffs.is_empty(),
        "{} of {} compactions differ:\n{}",
        diffs.len(),
        keep.len(),
        diffs
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    COMPACTED.lock().unwrap().extend(compacted);
}

/// Instructions shaped like the rows of the compaction tables (the common
/// execution sizes, f/d/ud types, `<1;1,0>`/`<0;1,0>` regions, small
/// immediates, three-source f/ud forms), so that many do compact; the
/// fields still vary, so many do not.
fn gen_compactable(rng: &mut Rng) -> Instruction {
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

#[test]
fn xehpg_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-iga");
    let mut rng = Rng::new(0x0125);
    let mut total = 0;
    let mut all_rejected = Vec::new();
    let mut indirect_kept = 0;
    let mut ex_reg_kept = 0;
    let mut madm_kept = 0;
    let mut bfn_kept = 0;
    let mut bfn_functions = [false; 256];
    let mut dpas_kept = 0;
    let mut dpas_sub_byte = 0;
    let mut macro_kept = 0;
    let mut region_false = Vec::new();
    let mut region_checked = 0;
    for _ in 0..10 {
        let insts: Vec<Instruction> = (0..2_500).map(|_| generate(&mut rng)).collect();
        let (kept, rej) = compare(&insts, &dir, false);
        total += kept.len();
        indirect_kept += kept.iter().filter(|&&k| has_indirect(&insts[k])).count();
        ex_reg_kept += kept.iter().filter(|&&k| has_ex_reg(&insts[k])).count();
        madm_kept += kept
            .iter()
            .filter(|&&k| insts[k].opcode == Opcode::Madm)
            .count();
        for &k in &kept {
            // The region rules iga64 also checks (it does not check spans,
            // scalar strides or Width-1 strides, which Mesa refuses): nothing
            // it accepts may break ours.
            for v in baregpu_isa::validate::validate(baregpu_isa::IsaGen::Gen12_5, &insts[k]) {
                use baregpu_isa::validate::Rule::*;
                // And no error of ours: every Gen12.5 error rule (the
                // source modifiers per opcode among them) is one iga64
                // holds too.
                if matches!(
                    v.rule,
                    WidthAboveExecSize | VertStrideMismatch | ZeroStridesWidth | DstHorzStrideZero
                ) || (v.severity == baregpu_isa::validate::Severity::Error
                    && !matches!(
                        v.rule,
                        SourceSpan | XeSendLength | XeSendDescriptor | XeLscShape
                    ))
                {
                    region_false.push(format!("{}: {v}", print(&insts[k], None)));
                }
            }
            region_checked += 1;
            match &insts[k].body {
                Body::Bfn(b) => {
                    bfn_kept += 1;
                    bfn_functions[usize::from(b.function)] = true;
                }
                Body::Math(m) if codec::macro_math(m.function) => macro_kept += 1,
                Body::Dpas(d) => {
                    dpas_kept += 1;
                    dpas_sub_byte += usize::from(d.precision.iter().any(|p| *p != Precision::Full));
                }
                _ => {}
            }
        }
        all_rejected.extend(rej);
    }
    eprintln!(
        "gen12.5: {total} instructions identical both ways ({indirect_kept} with indirect operands, {ex_reg_kept} sends with a0 extended descriptors, {madm_kept} madm), {} rejected by iga64",
        all_rejected.len()
    );
    let functions = bfn_functions.iter().filter(|&&f| f).count();
    eprintln!(
        "gen12.5: {bfn_kept} bfn ({functions} of the 256 functions), {dpas_kept} dpas/dpasw ({dpas_sub_byte} with 4- or 2-bit sources), {macro_kept} math.invm/rsqtm"
    );
    eprintln!(
        "gen12.5: {region_checked} instructions iga64 accepts checked against our region rules"
    );
    assert!(
        region_false.is_empty(),
        "region rules flag what iga64 accepts: {:#?}",
        &region_false[..region_false.len().min(10)]
    );
    assert!(
        macro_kept > 300,
        "only {macro_kept} math.invm/rsqtm compared"
    );
    let ops = COMPACTED.lock().unwrap().clone();
    let three = ops
        .iter()
        .filter(|o| {
            matches!(
                o,
                Opcode::Mad | Opcode::Add3 | Opcode::Bfn | Opcode::Dpas | Opcode::Dpasw
            )
        })
        .count();
    let dpas = ops
        .iter()
        .filter(|o| matches!(o, Opcode::Dpas | Opcode::Dpasw))
        .count();
    eprintln!(
        "gen12.5: {} instructions compacted by iga64 -Xautocompact, identically by us ({three} three-source, {dpas} dpas/dpasw); none we compact stays native there",
        ops.len()
    );
    assert!(ops.len() > 1_000, "only {} compactions compared", ops.len());
    assert!(
        three > 100,
        "only {three} three-source compactions compared"
    );
    assert!(madm_kept > 500, "only {madm_kept} madm compared");
    assert!(bfn_kept > 1_000, "only {bfn_kept} bfn compared");
    assert_eq!(functions, 256, "bfn functions compared");
    assert!(dpas_kept > 1_000, "only {dpas_kept} dpas compared");
    assert!(dpas_sub_byte > 300, "only {dpas_sub_byte} sub-byte dpas");
    assert!(
        ex_reg_kept > 500,
        "only {ex_reg_kept} sends with register extended descriptors compared"
    );
    assert!(
        indirect_kept > 1_000,
        "only {indirect_kept} indirect-operand instructions compared"
    );
    if std::env::var_os("XEHPG_SHOW_REJECTED").is_some() {
        for r in &all_rejected {
            eprintln!("rejected: {r}");
        }
    }
    for r in all_rejected.iter().take(15) {
        eprintln!("  {r}");
    }
    assert!(total >= 20_000, "only {total} instructions compared");
}

fn has_ex_reg(i: &Instruction) -> bool {
    matches!(
        i.body,
        Body::Send(Send {
            ex_desc: Some(ExDesc::Reg { .. }),
            ..
        })
    )
}

fn has_indirect(i: &Instruction) -> bool {
    let ind = |a: &Addr| matches!(a, Addr::Indirect { .. });
    i.dst().is_some_and(|d| ind(&d.addr))
        || i.srcs()
            .iter()
            .any(|s| matches!(s, Some(Src::Reg(r)) if ind(&r.addr)))
}

/// Branches in a kernel whose targets are instructions of the kernel:
/// iga64 resolves our labels to our JIP/UIP bits and prints the same
/// labels back.
#[test]
fn xehpg_branches_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-branch");
    let mut rng = Rng::new(0xB4A);
    let n = 400usize;
    let ops = [
        (Opcode::If, true),
        (Opcode::Else, true),
        (Opcode::Break, true),
        (Opcode::Cont, true),
        (Opcode::Halt, true),
        (Opcode::Goto, true),
        (Opcode::Endif, false),
        (Opcode::While, false),
        (Opcode::Join, false),
    ];
    let insts: Vec<Instruction> = (0..n)
        .map(|k| {
            if rng.chance(2) {
                return gen_ctrl(&mut rng, k, n);
            }
            let (op, two) = rng.pick(&ops);
            let off = |rng: &mut Rng| 16 * (rng.below(n) as i32 - k as i32);
            let jump = if two {
                Jump::JipUip {
                    jip: off(&mut rng),
                    uip: off(&mut rng),
                }
            } else {
                Jump::Jip { jip: off(&mut rng) }
            };
            let mut i = Instruction::new(
                op,
                rng.pick(&[8, 16, 32]),
                Q,
                Body::Branch(Branch {
                    dst: codec::NO_DST,
                    src0: codec::ABSENT,
                    src1: codec::ABSENT,
                    jump,
                }),
            );
            // iga64 drops a predicate on else and endif.
            if rng.chance(3) && !matches!(op, Opcode::Else | Opcode::Endif) {
                i.pred_ctrl = PredCtrl::Normal;
                i.flag.subreg = rng.below(2) as u8;
            }
            i.swsb = swsb(&mut rng);
            i
        })
        .collect();
    let ctrl = insts
        .iter()
        .filter(|i| xehpg::print::is_ctrl(i.opcode))
        .count();
    assert!(
        ctrl > n / 4,
        "only {ctrl} jmpi/brd/brc/call/calla/ret generated"
    );
    let (kept, _) = compare(&insts, &dir, true);
    let kept = kept.len();
    assert_eq!(kept, n);
    eprintln!(
        "gen12.5 branches: {kept} identical both ways, {ctrl} of them jmpi/brd/brc/call/calla/ret"
    );
}

/// jmpi, brd, brc, call, calla, ret at byte `16 * k` of an `n`-instruction
/// kernel: immediate targets inside the kernel (calla's absolute), or a
/// register target with a dword sub-register.
fn gen_ctrl(rng: &mut Rng, k: usize, n: usize) -> Instruction {
    let op = rng.pick(&[
        Opcode::Jmpi,
        Opcode::Brd,
        Opcode::Brc,
        Opcode::Call,
        Opcode::Calla,
        Opcode::Ret,
    ]);
    let any_reg = |rng: &mut Rng| (RegFile::Grf, rng.below(128) as u8, 4 * rng.below(8) as u8);
    let off = |rng: &mut Rng| {
        if op == Opcode::Calla {
            16 * rng.below(n) as i32
        } else {
            16 * (rng.below(n) as i32 - k as i32)
        }
    };
    let dst = matches!(op, Opcode::Call | Opcode::Calla).then(|| {
        let (f, nr, sub) = any_reg(rng);
        codec::ctrl_dst(f, nr, sub)
    });
    let body = if op == Opcode::Ret || rng.chance(3) {
        let (f, nr, sub) = any_reg(rng);
        Body::Alu(Alu {
            dst: dst.unwrap_or_else(codec::null_dst),
            src0: Src::Reg(codec::ctrl_reg(f, nr, sub)),
            src1: codec::ABSENT,
        })
    } else {
        let jip = off(rng);
        Body::Branch(Branch {
            dst: dst.map_or(codec::NO_DST, DstSlot::Reg),
            src0: codec::ABSENT,
            src1: codec::ABSENT,
            jump: if op == Opcode::Brc {
                Jump::JipUip { jip, uip: off(rng) }
            } else {
                Jump::Jip { jip }
            },
        })
    };
    // jmpi is always (W) with an implied (1); the others take any size.
    let exec = if op == Opcode::Jmpi {
        1
    } else {
        rng.pick(&[1, 8, 16, 32])
    };
    let mut i = Instruction::new(op, exec, Q, body);
    if op != Opcode::Jmpi && exec <= 8 && rng.chance(4) {
        i.group = GroupCtrl::Quarter {
            qtr: rng.below(4) as u8,
            nib: false,
        };
    }
    i.no_mask = op == Opcode::Jmpi || rng.chance(3);
    if rng.chance(3) {
        i.pred_ctrl = rng.pick(&[PredCtrl::Normal, PredCtrl::Any4H, PredCtrl::AllV]);
        i.pred_inv = rng.chance(2);
        i.flag.subreg = rng.below(2) as u8;
    }
    i.swsb = swsb(rng);
    i
}

/// Random words never panic; whatever decodes encodes back to the word.
#[test]
fn xehpg_random_words() {
    let mut rng = Rng::new(0x05EE_D125);
    let mut decoded = 0;
    for k in 0..200_000u32 {
        // Half the words get a defined opcode so the operand decoders run.
        let mut w = u128::from(rng.next()) | u128::from(rng.next()) << 64;
        if k % 2 == 0 {
            let (code, _, _) = baregpu_isa::xehpg::tables::OPCODES
                [rng.below(baregpu_isa::xehpg::tables::OPCODES.len())];
            w = (w & !0xFF & !(1 << 29)) | u128::from(code);
        }
        if let Ok(i) = xehpg::decode(w) {
            decoded += 1;
            assert_eq!(xehpg::encode(&i), Ok(w), "{w:032x}");
            // Printing and parsing the text back must not panic either.
            let _ = parse(&print(&i, Some(0)), 0);
        }
    }
    assert!(decoded > 0, "no random word decoded");
}

/// Reserved encodings are refused with the field named.
#[test]
fn xehpg_reserved_fields() {
    use baregpu_isa::error::{DecodeError, Field, Slot};
    // mov (8|M0) r1.0<1>:f r2.0<1;1,0>:f, from iga64 -p=12p71.
    let mov = baregpu_isa::codec::from_dwords([0x0003_0061, 0x0105_0aa0, 0x0010_0204, 0]);
    assert!(xehpg::decode(mov).is_ok());
    // ExecSize code 6.
    assert_eq!(
        xehpg::decode(mov | 6 << 16),
        Err(DecodeError::Reserved {
            field: Field::ExecSize,
            value: 7
        })
    );
    // Destination type code 12.
    assert!(matches!(
        xehpg::decode((mov & !(0xF << 36)) | 12 << 36),
        Err(DecodeError::Reserved { .. })
    ));
    // Bit 7 (reserved for opcode expansion).
    assert_eq!(
        xehpg::decode(mov | 1 << 7),
        Err(DecodeError::ReservedBits { mask: 1 << 7 })
    );
    // SWSB 0x58 (no such pipe).
    assert_eq!(
        xehpg::decode(mov | 0x58 << 8),
        Err(DecodeError::Reserved {
            field: Field::Swsb,
            value: 0x58
        })
    );
    // mov (8|M0) r1.0<1>:d r[a0.2,-4]<8,1>:d, from iga64 -p=12p71: the
    // indirect source with the Vx1 region.
    let ind = baregpu_isa::codec::from_dwords([0x0003_0061, 0x0105_0660, 0x00f7_2ff1, 0]);
    let i = xehpg::decode(ind).expect("indirect source decodes");
    let [Some(Src::Reg(s)), ..] = i.srcs() else {
        panic!("no register src0: {i:?}");
    };
    assert_eq!(
        s.addr,
        Addr::Indirect {
            addr_subnr: 2,
            offset: -4
        }
    );
    assert_eq!(
        s.region,
        Region::VxH {
            width: 8,
            hstride: 1
        }
    );
    // The same region code on a direct source is reserved.
    assert!(matches!(
        xehpg::decode(ind & !(1u128 << 80)),
        Err(DecodeError::Reserved { .. })
    ));
    let w = baregpu_isa::codec::from_dwords;
    // (W) jmpi r2.0 from iga64; without (W) it is not a form iga64 writes.
    let jmpi = w([0x8000_0020, 0, 0x0000_0204, 0]);
    assert!(xehpg::decode(jmpi).is_ok());
    assert!(matches!(
        xehpg::decode(jmpi & !(1u128 << 31)),
        Err(DecodeError::Reserved {
            field: Field::ExecSize,
            ..
        })
    ));
    // call (1|M0) r10.2 r4.1: a target sub-register off a dword is refused.
    let call = w([0x0000_002c, 0x0a44_0000, 0x0000_0424, 0]);
    assert!(xehpg::decode(call).is_ok());
    assert!(matches!(
        xehpg::decode((call & !(0x1F << 67)) | 6 << 67),
        Err(DecodeError::Reserved {
            field: Field::Addr(Slot::Src0),
            ..
        })
    ));
    // madm (8|M0) r10.mme0:df r20.mme1:df r30.mme2:df r40.nomme:df: selector
    // codes above nomme (8) are refused.
    let madm = w([0x0003_005d, 0x0a04_0bb0, 0x0b03_140d, 0x2845_1e15]);
    assert!(xehpg::decode(madm).is_ok());
    assert!(matches!(
        xehpg::decode(madm | 9 << 51),
        Err(DecodeError::Reserved {
            field: Field::Addr(Slot::Dst),
            ..
        })
    ));
    // send.ugm (8|M0) r10 r20 r30:2 a0.2 0x02108580 {ExBSO}.
    let send = xehpg::decode(w([0x0003_0031, 0x0a0e_0280, 0xfb00_140c, 0x0020_1e14]))
        .expect("register extended descriptor decodes");
    let Body::Send(s) = send.body else {
        panic!("not a send: {send:?}");
    };
    assert_eq!(
        s.ex_desc,
        Some(ExDesc::Reg {
            subnr: 2,
            src1_len: Some(2)
        })
    );
}

/// The generation-dispatching entry points reach the Gen12.5 codec and
/// printer; the paths without Gen12.5 support refuse it by name.
#[test]
fn xehpg_through_public_api() {
    use baregpu_isa::IsaGen;
    assert_eq!(IsaGen::from_name("dg2"), Some(IsaGen::Gen12_5));
    assert_eq!(IsaGen::from_name("xehpg"), Some(IsaGen::Gen12_5));
    assert_eq!(IsaGen::Gen12_5.name(), "gen12.5");
    // if (16|M0) L32 L48; else (16|M0) L32 L48; mov (8|M0) r1.0<1>:f r2.0<1;1,0>:f
    let dws: [[u32; 4]; 3] = [
        [0x0004_0022, 0x0000_c000, 0x0000_0030, 0x0000_0020],
        [0x0004_0024, 0x0000_c000, 0x0000_0020, 0x0000_0010],
        [0x0003_0061, 0x0105_0aa0, 0x0010_0204, 0],
    ];
    let mut bytes = Vec::new();
    for dw in dws {
        let w = baregpu_isa::codec::from_dwords(dw);
        let i = baregpu_isa::decode(IsaGen::Gen12_5, w).expect("decodes");
        assert_eq!(baregpu_isa::encode(IsaGen::Gen12_5, &i), Ok(w));
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    let text = baregpu_isa::text::disassemble_with(
        IsaGen::Gen12_5,
        &bytes,
        baregpu_isa::text::DisasmOptions {
            offsets: false,
            labels: true,
            messages: false,
        },
    )
    .expect("disassembles");
    assert_eq!(
        text,
        "if (16|M0) L32 L48\nelse (16|M0) L32 L48\nL32:\nmov (8|M0) r1.0<1>:f r2.0<1;1,0>:f\nL48:\n"
    );
    // Our own assembler reads the disassembly back to the bytes.
    assert_eq!(
        baregpu_isa::text::assemble(IsaGen::Gen12_5, &text),
        Ok(bytes.clone())
    );
    assert!(baregpu_isa::text::assemble(IsaGen::Gen12_5, "mov (8|M0) r1.0<1>:f r2:zz").is_err());
    assert!(
        baregpu_isa::text::assemble(IsaGen::Gen12_5, "smov (8|M0) r1.0<1>:f r2.0<1;1,0>:f")
            .is_err()
    );
    assert!(baregpu_isa::compact::tables(IsaGen::Gen12_5).is_none());
    let v = baregpu_isa::validate::validate(
        IsaGen::Gen12_5,
        &baregpu_isa::decode(IsaGen::Gen12_5, baregpu_isa::codec::from_dwords(dws[2])).unwrap(),
    );
    // A mov meets no rule, alone or as a kernel.
    assert_eq!(v, vec![]);
    let k = baregpu_isa::validate::validate_kernel(IsaGen::Gen12_5, &bytes[32..]).unwrap();
    assert_eq!(k, vec![]);
}

/// Words iga64 -p=12p71 assembled (bfn, dpas with sub-byte sources,
/// math.invm) decode to the fields their text names; the bits these forms
/// do not have are refused; three-source operands are direct only.
#[test]
fn xehpg_bfn_dpas_macro_words() {
    use baregpu_isa::error::{DecodeError, EncodeError};
    let w = baregpu_isa::codec::from_dwords;
    // bfn.0xCA (16|M0) (eq)f0.0 r10.0<1>:ud r11.0<1;0>:ud r12.0<1;0>:ud r13.0<1>:ud
    let bfn = w([0x0004_006b, 0x0a04_1228, 0xc2aa_0b04, 0x0d05_0c04]);
    let i = xehpg::decode(bfn).expect("bfn decodes");
    let Body::Bfn(b) = i.body else {
        panic!("not bfn: {i:?}")
    };
    assert_eq!((b.function, i.cond_mod), (0xCA, CondMod::Z));
    // iga64's expressions read back to their functions; malformed ones,
    // however deep, are errors.
    use xehpg::parse::bfn_function;
    assert_eq!(bfn_function("(s0&~s2|s1&s2)"), Ok(0xCA));
    assert_eq!(bfn_function("(s0^(s0&s1|s1^s2))"), Ok(0x16));
    assert_eq!(bfn_function("(zeros)"), Ok(0));
    assert!(bfn_function("(s0&)").is_err());
    assert!(bfn_function("0x100").is_err());
    assert!(
        bfn_function(&format!(
            "({}s0{})",
            "(".repeat(100_000),
            ")".repeat(100_000)
        ))
        .is_err()
    );
    assert!(bfn_function(&format!("({}s0)", "~".repeat(100_000))).is_err());
    assert_eq!(
        print(&i, None),
        "bfn.0xCA (16|M0) (eq)f0.0 r10.0<1>:ud r11.0<1;0>:ud r12.0<1;0>:ud r13.0<1>:ud"
    );
    // Saturation (bit 34): bfn has none.
    assert!(matches!(
        xehpg::decode(bfn | 1 << 34),
        Err(DecodeError::ReservedBits { .. })
    ));
    // dpas.4x2 (8|M0) r10:d r20:d r30:u4 r40.0:s2
    let dpas = w([0x0003_0059, 0x0a06_0e60, 0x0064_1404, 0x2804_1e04]);
    let i = xehpg::decode(dpas).expect("dpas decodes");
    let Body::Dpas(d) = i.body else {
        panic!("not dpas: {i:?}")
    };
    assert_eq!((d.depth, d.repeat), (4, 2));
    assert_eq!(d.precision, [Precision::Bits4, Precision::Bits2]);
    assert_eq!(
        print(&i, None),
        "dpas.4x2 (8|M0) r10:d r20:d r30:u4 r40.0:s2"
    );
    // SubBytePrecision 3 is reserved; a condition modifier does not exist.
    assert!(xehpg::decode(dpas | 3 << 86).is_err());
    assert!(xehpg::decode(dpas | 1 << 92).is_err());
    // math.invm (8|M0) (eo)f0.0 r10.mme0:df -r20.mme1:df (abs)r30.nomme:df
    let invm = w([0x0003_0038, 0x0a05_2bb0, 0xeb10_140c, 0x0110_1e44]);
    let i = xehpg::decode(invm).expect("invm decodes");
    assert_eq!(
        print(&i, None),
        "math.invm (8|M0) (eo)f0.0 r10.mme0:df -r20.mme1:df (abs)r30.nomme:df"
    );
    // Selector code 9 (dst sub-register field 55:51) is reserved.
    assert!(xehpg::decode((invm & !(0x1F << 51)) | 9 << 51).is_err());
    // Three-source operands are DirectOperand only (004 lines 6173-6289;
    // iga64 refuses `r[a0.0]` sources and silently writes r0 for such a
    // destination): the encoder refuses them.
    let mut mad = xehpg::decode(w([0x0003_005b, 0x0a04_02a8, 0x020a_0b04, 0x0d05_0c04]))
        .expect("mad decodes");
    let Body::ThreeSrc(ts) = &mut mad.body else {
        panic!("not three-source: {mad:?}")
    };
    ts.dst.addr = Addr::Indirect {
        addr_subnr: 0,
        offset: 0,
    };
    assert!(matches!(
        xehpg::encode(&mad),
        Err(EncodeError::Unencodable { .. })
    ));
}

/// The compacting assembler on a kernel mixing branches with instructions
/// that compact: every branch still lands on the instruction it named
/// (labels placed where compaction moves them), and iga64's disassembly of
/// our compacted kernel equals ours token for token.
#[test]
fn xehpg_compacting_assembler_keeps_targets() {
    use baregpu_isa::{IsaGen, compact, text};
    ensure_oracles();
    let dir = scratch("xehpg-cmpt-asm");
    let mut rng = Rng::new(0xC0C0);
    let n = 300usize;
    let insts: Vec<Instruction> = (0..n)
        .map(|k| {
            if rng.chance(3) {
                let jip = 16 * (rng.below(n) as i32 - k as i32);
                let uip = 16 * (rng.below(n) as i32 - k as i32);
                let (op, jump) = rng.pick(&[
                    (Opcode::If, Jump::JipUip { jip, uip }),
                    (Opcode::Break, Jump::JipUip { jip, uip }),
                    (Opcode::Endif, Jump::Jip { jip }),
                    (Opcode::While, Jump::Jip { jip }),
                ]);
                return Instruction::new(
                    op,
                    16,
                    Q,
                    Body::Branch(Branch {
                        dst: codec::NO_DST,
                        src0: codec::ABSENT,
                        src1: codec::ABSENT,
                        jump,
                    }),
                );
            }
            let rg = Region::Align1 {
                vstride: 1,
                width: 1,
                hstride: 0,
            };
            let src = |rng: &mut Rng| {
                let mut r = reg(rng, Type::F, rg);
                r.addr = Addr::Direct {
                    nr: rng.below(120) as u8,
                    subnr: 0,
                };
                Src::Reg(r)
            };
            let d = Dst {
                file: RegFile::Grf,
                ty: Type::F,
                addr: Addr::Direct {
                    nr: rng.below(120) as u8,
                    subnr: 0,
                },
                hstride: 1,
                writemask: WRITEMASK_XYZW,
            };
            let (op, src1) = if rng.chance(2) {
                (Opcode::Add, src(&mut rng))
            } else {
                (Opcode::Mov, codec::ABSENT)
            };
            let mut i = Instruction::new(
                op,
                rng.pick(&[8, 16]),
                Q,
                Body::Alu(Alu {
                    dst: d,
                    src0: src(&mut rng),
                    src1,
                }),
            );
            // Some stay native: a predicate on (8|M0) has no control row.
            if rng.chance(4) {
                i.pred_ctrl = PredCtrl::Normal;
            }
            i
        })
        .collect();
    let source: String = insts
        .iter()
        .enumerate()
        .map(|(k, i)| format!("L{}:\n{}\n", 16 * k, print(i, Some(16 * k as i64))))
        .collect::<String>()
        + &format!("L{}:\n", 16 * n);
    let bytes = text::assemble_with(IsaGen::Gen12_5, &source, text::AsmOptions { compact: true })
        .expect("assembles with compaction");
    // Walk our kernel: offsets of instruction starts, and the branches.
    let mut starts = Vec::new();
    let mut at = 0;
    let mut compacted = 0;
    while at < bytes.len() {
        starts.push(at as i64);
        let dw0 = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let size = if compact::is_compact(dw0) { 8 } else { 16 };
        compacted += usize::from(size == 8);
        at += size;
    }
    starts.push(bytes.len() as i64);
    assert_eq!(starts.len(), n + 1, "instructions in the compacted kernel");
    assert!(compacted > n / 3, "only {compacted} compacted");
    let index_of = |off: i64| starts.iter().position(|&s| s == off);
    for (k, i) in insts.iter().enumerate() {
        let Body::Branch(b) = i.body else { continue };
        let at = starts[k] as usize;
        let word = u128::from_le_bytes(bytes[at..at + 16].try_into().unwrap());
        let got = xehpg::decode(word).expect("our branch decodes");
        let Body::Branch(g) = got.body else {
            panic!("not a branch: {got:?}")
        };
        let targets = |j: Jump| match j {
            Jump::JipUip { jip, uip } => vec![jip, uip],
            Jump::Jip { jip } => vec![jip],
            Jump::Count { .. } => vec![],
        };
        for (want, have) in targets(b.jump).into_iter().zip(targets(g.jump)) {
            let want = (k as i64 * 16 + i64::from(want)) / 16;
            assert_eq!(
                index_of(starts[k] + i64::from(have)),
                Some(want as usize),
                "branch {k} ({:?})",
                i.opcode
            );
        }
    }
    let opts = text::DisasmOptions {
        offsets: false,
        labels: true,
        messages: false,
    };
    let ours: Vec<String> = text::disassemble_with(IsaGen::Gen12_5, &bytes, opts)
        .expect("disassembles")
        .lines()
        .filter(|l| !(l.starts_with('L') && l.ends_with(':')))
        .map(norm)
        .collect();
    assert_eq!(ours, disassemble(&bytes, &dir), "our text against iga64's");
    // iga64 -Xautocompact lays out the same labelled source byte for byte.
    let (src, out) = (dir.join("kernel.asm"), dir.join("kernel.bin"));
    fs::write(&src, &source).unwrap();
    let r = iga(&[
        "-p=12p71",
        "-a",
        src.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-Wnone",
        "-Xautocompact",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(
        fs::read(&out).unwrap() == bytes,
        "iga64 -Xautocompact lays the kernel out differently"
    );
    eprintln!(
        "gen12.5 compacting assembler: {compacted} of {n} compacted, every branch on its target"
    );
}
