//! The (opcode, destination type, source types) combinations a platform
//! allows, enumerated from the ISA tables (`baregpu_isa::tables`, which
//! cite the opcode tables of each manual) and filtered by the validator
//! (`baregpu_isa::validate`, which cites the manuals' type and region
//! rules). A combination is allowed when some plain operand form of it
//! validates without an error; that form is kept to run it.

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{
    AccessMode, Alu, Body, CondMod, Dst, GroupCtrl, Imm, Instruction, Math, MathFn, Opcode,
    PredCtrl, RegFile, RegSrc, Region, Src, Swizzle, ThreeSrc, Type,
};
use baregpu_isa::tables::{self, Layout};
use baregpu_isa::validate::{Severity, validate};

/// First register of the destination and of each source slot.
pub const DST_REG: u8 = 10;
pub const SRC_REG: [u8; 3] = [20, 24, 28];

/// One source slot: its type and whether it is an immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub ty: Type,
    pub imm: bool,
}

/// The operand form a combination runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Form {
    pub exec: u8,
    pub align16: bool,
    /// Destination stride in elements (Align1).
    pub dst_stride: u8,
    /// Sources read one element (`<0;1,0>`, Align16 `<0>`).
    pub scalar: bool,
}

/// An allowed combination and the instruction that exercises it.
#[derive(Clone, Debug)]
pub struct Combo {
    pub p: IsaGen,
    pub op: Opcode,
    pub func: Option<MathFn>,
    pub dst: Type,
    pub srcs: Vec<Slot>,
    pub form: Form,
    /// The validator accepts `.sat` on this form.
    pub sat_ok: bool,
    /// The chosen form draws validator warnings ("should" rules).
    pub warned: bool,
    pub inst: Instruction,
}

impl Combo {
    /// "gen6 add d <- ud,imm:w" for messages and tables.
    pub fn key(&self) -> String {
        let f = self.func.map(|f| format!(".{f:?}")).unwrap_or_default();
        let s: Vec<String> = self
            .srcs
            .iter()
            .map(|s| {
                if s.imm {
                    format!("imm:{}", s.ty.name())
                } else {
                    s.ty.name().to_string()
                }
            })
            .collect();
        format!(
            "{} {}{} {} <- {}",
            self.p,
            self.op.mnemonic(),
            f,
            self.dst.name(),
            s.join(",")
        )
    }
}

impl Combo {
    /// The key and the operand form, for failure messages.
    pub fn label(&self) -> String {
        let f = self.form;
        format!(
            "{} ({}{}, dst stride {}{})",
            self.key(),
            f.exec,
            if f.align16 { " Align16" } else { "" },
            f.dst_stride,
            if f.scalar { ", scalar sources" } else { "" }
        )
    }
}

/// Operand forms tried in order; the first that validates cleanly wins.
const FORMS: [Form; 12] = [
    form(8, false, 1, false),
    form(8, false, 2, false),
    form(8, false, 4, false),
    form(4, false, 1, false),
    form(4, false, 2, false),
    form(4, false, 4, false),
    form(1, false, 1, false),
    form(8, true, 1, false),
    form(4, true, 1, false),
    form(8, false, 1, true),
    form(8, false, 2, true),
    form(4, true, 1, true),
];

const fn form(exec: u8, align16: bool, dst_stride: u8, scalar: bool) -> Form {
    Form {
        exec,
        align16,
        dst_stride,
        scalar,
    }
}

/// Opcodes outside the type sweep: flow control, messages, mask-stack
/// instructions, and those whose operands are not ordinary typed values.
pub fn swept(op: Opcode) -> bool {
    use Opcode as O;
    !matches!(
        op,
        O::Illegal
            | O::Jmpi
            | O::Wait
            | O::Nop
            | O::Nenop
            | O::Push
            | O::Pop
            | O::Msave
            | O::Mrest
            | O::Do
            | O::Call
            | O::Ret
            | O::Calla
            | O::Brd
            | O::Brc
            | O::Fork
            | O::Case
            | O::If
            | O::Iff
            | O::Else
            | O::Endif
            | O::While
            | O::Break
            | O::Cont
            | O::Halt
            | O::Send
            | O::Sendc
    )
}

/// Number of data sources of a math function (003 lines 99263-99290:
/// fdiv, pow and the integer divides take two).
pub fn math_srcs(f: MathFn) -> usize {
    match f {
        MathFn::Fdiv
        | MathFn::Pow
        | MathFn::IntDivQuotient
        | MathFn::IntDivRemainder
        | MathFn::IntDivQuotientRemainder => 2,
        _ => 1,
    }
}

fn reg_src(ty: Type, f: Form, nr: u8) -> Src {
    let region = if f.align16 {
        Region::Align16 {
            vstride: if f.scalar { 0 } else { 4 },
            swizzle: Swizzle::XYZW,
        }
    } else if f.exec == 1 || f.scalar {
        Region::Align1 {
            vstride: 0,
            width: 1,
            hstride: 0,
        }
    } else {
        // Ivy Bridge DF regions count 4-byte halves (001 lines 660-663),
        // so a packed DF row is encoded as the packed dword row there.
        Region::Align1 {
            vstride: f.exec,
            width: f.exec,
            hstride: 1,
        }
    };
    Src::Reg(RegSrc::new(RegFile::Grf, nr, 0, ty, region))
}

/// A representative immediate of `ty` (word immediates repeat their half,
/// 000 line 9776); the sweep replaces the bits per run.
fn imm(ty: Type) -> Src {
    let bits = match ty {
        Type::W | Type::Uw => 0x0001_0001,
        _ => 1,
    };
    Src::Imm(Imm { ty, bits })
}

/// The instruction of a combination in form `f`.
pub fn build(
    p: IsaGen,
    op: Opcode,
    func: Option<MathFn>,
    dst_ty: Type,
    srcs: &[Slot],
    f: Form,
) -> Instruction {
    let t = tables::for_platform(p);
    let layout = t.opcode_info(op).map(|i| i.layout);
    let mut dst = Dst::new(RegFile::Grf, DST_REG, 0, dst_ty, f.dst_stride);
    if f.align16 {
        dst.hstride = 1;
    }
    let ops: Vec<Src> = srcs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if s.imm {
                imm(s.ty)
            } else {
                reg_src(s.ty, f, SRC_REG[i])
            }
        })
        .collect();
    // The unused second slot of a one-source instruction: the null
    // register, or the placeholder the assembler writes beside an
    // immediate src0 (ARF, UD).
    let filler = |s: &Slot| {
        if s.imm {
            Src::vacant(RegFile::Arf, Type::Ud)
        } else {
            Src::Reg(RegSrc::null(s.ty))
        }
    };
    let body = match layout {
        Some(Layout::ThreeSrc) => Body::ThreeSrc(ThreeSrc {
            dst,
            src: [ops[0], ops[1], ops[2]],
        }),
        Some(Layout::Math) => Body::Math(Math {
            function: func.unwrap_or(MathFn::Inv),
            dst,
            src0: ops[0],
            src1: ops.get(1).copied().unwrap_or_else(|| filler(&srcs[0])),
        }),
        _ => Body::Alu(Alu {
            dst,
            src0: ops[0],
            src1: ops.get(1).copied().unwrap_or_else(|| filler(&srcs[0])),
        }),
    };
    let group = if t.compressions.is_some() {
        GroupCtrl::Compression(baregpu_isa::inst::Compression::None)
    } else {
        GroupCtrl::Quarter { qtr: 0, nib: false }
    };
    let mut inst = Instruction::new(op, f.exec, group, body);
    inst.access_mode = if f.align16 {
        AccessMode::Align16
    } else {
        AccessMode::Align1
    };
    // Controls some instructions require: a condition modifier on cmp and
    // cmpn (000 line 11151), a predicate on sel (000 line 13283), AccWrEn on
    // Gen6+ mach (003 lines 99049-99051).
    match op {
        Opcode::Cmp | Opcode::Cmpn => inst.cond_mod = CondMod::Z,
        Opcode::Sel => inst.pred_ctrl = PredCtrl::Normal,
        Opcode::Mach if p >= IsaGen::Gen6 => inst.acc_wr_ctrl = true,
        _ => {}
    }
    inst
}

/// How the validator judges an instruction: `None` on an error, else
/// whether it warns.
fn judge(p: IsaGen, inst: &Instruction) -> Option<bool> {
    let v = validate(p, inst);
    if v.iter().any(|x| x.severity == Severity::Error) {
        None
    } else {
        Some(!v.is_empty())
    }
}

/// Source slot types of one opcode: register types of the platform, plus
/// the immediate types in the last slot of a non-three-source instruction
/// (000 line 9857; 003 lines 94820-94835), plus Haswell `dim`'s DF
/// immediate; three-source operands take the Gen7 three-source types or
/// Gen6's implied F (003 lines 95011-95066).
fn slot_types(p: IsaGen, op: Opcode, n: usize, three: bool) -> Vec<Vec<Slot>> {
    let t = tables::for_platform(p);
    let regs: Vec<Type> = t.reg_types.iter().flatten().copied().collect();
    let imms: Vec<Type> = t.imm_types.iter().flatten().copied().collect();
    (0..n)
        .map(|i| {
            let mut v: Vec<Slot> = Vec::new();
            if three {
                match t.three_src_types {
                    Some(ts) => v.extend(ts.iter().flatten().map(|&ty| Slot { ty, imm: false })),
                    None => v.push(Slot {
                        ty: Type::F,
                        imm: false,
                    }),
                }
            } else {
                v.extend(regs.iter().map(|&ty| Slot { ty, imm: false }));
                if i + 1 == n {
                    v.extend(imms.iter().map(|&ty| Slot { ty, imm: true }));
                    if op == Opcode::Dim {
                        v.push(Slot {
                            ty: Type::Df,
                            imm: true,
                        });
                    }
                }
            }
            v
        })
        .collect()
}

/// Every allowed combination of platform `p`, in table order.
pub fn all(p: IsaGen) -> Vec<Combo> {
    let t = tables::for_platform(p);
    let mut out = Vec::new();
    for info in t.opcodes {
        if !swept(info.opcode) {
            continue;
        }
        let three = info.layout == Layout::ThreeSrc;
        let funcs: Vec<Option<MathFn>> = if info.layout == Layout::Math {
            t.math_fns.iter().flatten().map(|f| Some(*f)).collect()
        } else {
            vec![None]
        };
        for func in funcs {
            let n = match func {
                Some(f) => math_srcs(f),
                None => usize::from(info.srcs),
            };
            let slots = slot_types(p, info.opcode, n, three);
            let dsts: Vec<Type> = if three {
                match t.three_src_types {
                    Some(ts) => ts.iter().flatten().copied().collect(),
                    None => vec![Type::F],
                }
            } else {
                t.reg_types.iter().flatten().copied().collect()
            };
            let mut lists: Vec<Vec<Slot>> = vec![Vec::new()];
            for s in &slots {
                let mut next = Vec::new();
                for l in &lists {
                    for x in s {
                        // One type for all three-source operands (Gen6:
                        // implied F; Gen7: one SrcType field).
                        if three && l.first().is_some_and(|f: &Slot| f.ty != x.ty) {
                            continue;
                        }
                        let mut l2 = l.clone();
                        l2.push(*x);
                        next.push(l2);
                    }
                }
                lists = next;
            }
            for &d in &dsts {
                for srcs in &lists {
                    if let Some(c) = choose(p, info.opcode, func, d, srcs) {
                        out.push(c);
                    }
                }
            }
        }
    }
    out
}

/// The best form of one combination: warning-free if any, else the first
/// that has no error.
fn choose(p: IsaGen, op: Opcode, func: Option<MathFn>, dst: Type, srcs: &[Slot]) -> Option<Combo> {
    let mut best: Option<(Form, bool, Instruction)> = None;
    for f in FORMS {
        let inst = build(p, op, func, dst, srcs, f);
        if let Some(warned) = judge(p, &inst) {
            if best.is_none() || (!warned && best.as_ref().is_some_and(|b| b.1)) {
                best = Some((f, warned, inst));
            }
            if !warned {
                break;
            }
        }
    }
    let (form, warned, inst) = best?;
    let mut sat = inst;
    sat.saturate = true;
    let sat_ok = judge(p, &sat).is_some();
    Some(Combo {
        p,
        op,
        func,
        dst,
        srcs: srcs.to_vec(),
        form,
        sat_ok,
        warned,
        inst,
    })
}
