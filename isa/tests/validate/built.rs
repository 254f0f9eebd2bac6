//! Cases the assembly syntax cannot write: an assembled instruction with
//! one field changed.

use super::*;

// ---- Cases the assembly syntax cannot write: one field changed ----

fn alu(i: &mut Instruction) -> &mut Alu {
    match &mut i.body {
        Body::Alu(a) => a,
        other => panic!("not an ALU body: {other:?}"),
    }
}

fn reg(s: &mut Src) -> &mut RegSrc {
    match s {
        Src::Reg(r) => r,
        other => panic!("not a register: {other:?}"),
    }
}

pub type Built = (
    IsaGen,
    Instruction,
    Instruction,
    Rule,
    Option<Operand>,
    Severity,
);

/// `good` assembled, `bad` = `good` with `change` applied.
fn changed(
    p: IsaGen,
    good: &str,
    rule: Rule,
    at: Option<Operand>,
    sev: Severity,
    change: impl Fn(&mut Instruction),
) -> Built {
    let good = one(p, good);
    let mut bad = good;
    change(&mut bad);
    (p, bad, good, rule, at, sev)
}

pub fn built() -> Vec<Built> {
    let a16 = "mov (8|M0) r1.0<1>.xyzw:f r2.0<4>.xyzw:f {Align16}";
    vec![
        // Align1 instruction, Align16 region (000 lines 8412-8420).
        changed(
            Gen6,
            "mov (8|M0) r1.0<1>:f r2.0<8;8,1>:f",
            Rule::RegionForm,
            Some(Src0),
            E,
            |i| {
                reg(&mut alu(i).src0).region = Region::Align16 {
                    vstride: 4,
                    swizzle: Swizzle::XYZW,
                };
            },
        ),
        // Align16 VertStride 2 (000 line 9768: only 0000 and 0011).
        changed(Gen4, a16, Rule::Align16VertStride, Some(Src0), E, |i| {
            reg(&mut alu(i).src0).region = Region::Align16 {
                vstride: 2,
                swizzle: Swizzle::XYZW,
            };
        }),
        changed(Gen6, a16, Rule::Align16Origin, Some(Src0), E, |i| {
            reg(&mut alu(i).src0).addr = Addr::Direct { nr: 2, subnr: 8 };
        }),
        changed(Gen6, a16, Rule::Align16DstStride, Some(Dst), E, |i| {
            alu(i).dst.hstride = 2
        }),
        changed(
            Gen6,
            "mov (8|M0) r1.0<1>:f r2.0<8;8,1>:f",
            Rule::RegisterType,
            Some(Dst),
            E,
            |i| {
                alu(i).dst.ty = Type::Df;
            },
        ),
        changed(
            Gen4,
            "mov (8|M0) r1.0<1>:uw 0x76543210:v",
            Rule::ImmediateType,
            Some(Src0),
            E,
            |i| {
                alu(i).src0 = Src::Imm(Imm::vector(Type::Uv, 0x7654_3210));
            },
        ),
        changed(
            Gen6,
            "add (8|M0) r1.0<1>:f r2.0<8;8,1>:f 0x3f800000:f",
            Rule::ImmediatePlacement,
            Some(Src0),
            E,
            |i| {
                let a = alu(i);
                core::mem::swap(&mut a.src0, &mut a.src1);
            },
        ),
        changed(
            Gen7,
            "add (8|M0) r1.0<1>:w r2.0<8;8,1>:w 0x1:w",
            Rule::WordImmediate,
            Some(Src1),
            E,
            |i| {
                alu(i).src1 = Src::Imm(Imm {
                    ty: Type::W,
                    bits: 0x0002_0001,
                });
            },
        ),
        changed(
            Gen4,
            "mov (8|M0) r1.0<1>:f r2.0<8;8,1>:f",
            Rule::UnusedSource,
            Some(Src1),
            W,
            |i| {
                alu(i).src1 = Src::Reg(RegSrc::grf(5, 0, Type::F, 8, 8, 1));
            },
        ),
        changed(
            Gen7,
            "mov (8|M0) r1.0<1>:f r2.0<8;8,1>:f",
            Rule::RegisterFile,
            Some(Dst),
            E,
            |i| {
                alu(i).dst.file = RegFile::Mrf;
            },
        ),
        changed(
            Gen6,
            "(f0.1) mov (8|M0) r1.0<1>:f r2.0<8;8,1>:f",
            Rule::FlagRegister,
            None,
            E,
            |i| {
                i.flag.reg = 1;
            },
        ),
        changed(
            Gen6,
            "(f0.0.any4h) mov (8|M0) r1.0<1>.xyzw:f r2.0<4>.xyzw:f {Align16}",
            Rule::PredicateMode,
            None,
            E,
            |i| {
                i.pred_ctrl = PredCtrl::Any2H;
            },
        ),
        changed(
            Gen6,
            "rndd (8|M0) (lt)f0.0 r1.0<1>:f r2.0<8;8,1>:f",
            Rule::CondModCode,
            None,
            E,
            |i| {
                i.cond_mod = CondMod::R;
            },
        ),
        changed(
            Gen4,
            "cmp (8|M0) (lt)f0.0 null<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f",
            Rule::CondModRequired,
            None,
            E,
            |i| {
                i.cond_mod = CondMod::None;
            },
        ),
        // Compr4 (MRF RegNum[7]) is missing on the 965 (000 line 8796).
        changed(
            Gen4,
            "mov (16|M0) m2.0<1>:f r2.0<8;8,1>:f {Compr}",
            Rule::ComprDevice,
            Some(Dst),
            E,
            |i| {
                alu(i).dst.addr = Addr::Direct { nr: 0x82, subnr: 0 };
            },
        ),
        changed(
            Gen7,
            "mov (4|M0) r1.0<1>:f r2.0<4;4,1>:f",
            Rule::GroupControl,
            None,
            E,
            |i| {
                i.exec_size = 8;
                reg(&mut alu(i).src0).region = Region::Align1 {
                    vstride: 8,
                    width: 8,
                    hstride: 1,
                };
                i.group = GroupCtrl::Quarter { qtr: 0, nib: true };
            },
        ),
        changed(
            Gen6,
            "send (8|M0) r4:ud m1 0x2 a0.0",
            Rule::SendDescriptor,
            Some(Src1),
            E,
            |i| {
                if let Body::Send(s) = &mut i.body
                    && let SendDesc::Reg(r) = &mut s.desc
                {
                    r.addr = Addr::Direct {
                        nr: arf::A0,
                        subnr: 4,
                    };
                }
            },
        ),
        changed(
            Gen4,
            "send (8|M0) null:uw m1 r0.0:ud 0x6 0x0100000 {EOT}",
            Rule::EotDescriptor,
            None,
            W,
            |i| {
                if let Body::Send(s) = &mut i.body {
                    s.desc = SendDesc::Reg(RegSrc::new(
                        RegFile::Arf,
                        arf::A0,
                        0,
                        Type::Ud,
                        Region::Align1 {
                            vstride: 0,
                            width: 1,
                            hstride: 0,
                        },
                    ));
                    s.sfid = None;
                }
            },
        ),
        changed(
            Gen7,
            "send (8|M0) r4:ud r1 0x2 0x04420001",
            Rule::SendPayload,
            Some(Src0),
            E,
            |i| {
                if let Body::Send(s) = &mut i.body {
                    reg(&mut s.src0).file = RegFile::Mrf;
                }
            },
        ),
        changed(
            Gen6,
            "math.inv (8|M0) r1.0<1>:f r2.0<8;8,1>:f",
            Rule::MathFunction,
            None,
            E,
            |i| {
                if let Body::Math(m) = &mut i.body {
                    m.function = MathFn::SinCos;
                }
            },
        ),
        changed(
            Gen6,
            "math.inv (8|M0) r1.0<1>:f r2.0<8;8,1>:f",
            Rule::MathOperands,
            Some(Src1),
            E,
            |i| {
                if let Body::Math(m) = &mut i.body {
                    m.src1 = Src::Reg(RegSrc::grf(3, 0, Type::F, 8, 8, 1));
                }
            },
        ),
        changed(
            Gen6,
            "mad (8|M0) r1.0<1>.xyzw:f r2.0<4>.xyzw:f r3.0<4>.xyzw:f r4.0<4>.xyzw:f",
            Rule::ThreeSrcAccessMode,
            None,
            E,
            |i| {
                i.access_mode = AccessMode::Align1;
            },
        ),
        changed(
            Gen7,
            "mad (8|M0) r1.0<1>.xyzw:f r2.0<4>.xyzw:f r3.0<4>.xyzw:f r4.0<4>.xyzw:f",
            Rule::ThreeSrcOperands,
            Some(Src2),
            E,
            |i| {
                if let Body::ThreeSrc(t) = &mut i.body {
                    t.src[2] = Src::Imm(Imm::f(1.0));
                }
            },
        ),
        changed(
            Gen6,
            "(f0.0) if (8|M0) 32",
            Rule::EmbeddedCompare,
            None,
            E,
            |i| {
                i.cond_mod = CondMod::L;
            },
        ),
        changed(
            Gen4,
            "wait (1|M0) n0.0:ud",
            Rule::OpcodeOperands,
            None,
            E,
            |i| {
                alu(i).dst = baregpu_isa::inst::Dst::grf(1, 0, Type::Ud);
            },
        ),
    ]
}
