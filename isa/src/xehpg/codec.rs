//! Xe-HPG 128-bit word <-> [`Instruction`].
//!
//! The decoder marks every bit a field of the word's form reads; any other
//! bit set refuses the word (`ReservedBits`), so decoding is exact. The
//! encoder writes the fields and then decodes its own word: an instruction
//! that would come back different (a field this form does not have, a
//! value the representation normalises) is refused as `NotCanonical`, so
//! `decode(encode(i)) == i` and `encode(decode(w)) == w` whenever they
//! succeed.

use super::tables::{self as t, Form, code, dpas as dp, send as sd, three as th};
use crate::codec::{Reader, Writer};
use crate::error::{DecodeError, EncodeError, Field, Slot};
use crate::inst::{
    AccessMode, Addr, Alu, Bfn, Body, Branch, CondMod, Dpas, Dst, DstSlot, ExDesc, FlagReg,
    GroupCtrl, Imm, Instruction, Jump, Math, MsgDesc, Opcode, Pipe, Precision, PredCtrl, RegFile,
    RegSrc, Region, Send, SendDesc, Src, Swsb, Sync, ThreadCtrl, ThreeSrc, TokenMode, Type, Vacant,
    WRITEMASK_XYZW,
};
use crate::tables::Bits;

type DResult<T> = Result<T, DecodeError>;
type EResult<T> = Result<T, EncodeError>;

/// An operand slot the form does not have: all of its bits are zero.
pub const ABSENT: Src = Src::Vacant(Vacant {
    file: RegFile::Arf,
    ty: Type::Ub,
});

/// The destination slot of a branch (no destination fields).
pub const NO_DST: DstSlot = DstSlot::Vacant(Vacant {
    file: RegFile::Arf,
    ty: Type::Ub,
});

/// Align1 predicate codes [Mesa brw_eu_defines.h enum brw_predicate,
/// BRW_PREDICATE_NORMAL .. BRW_PREDICATE_ALIGN1_ALL32H]; 14-15 reserved.
const PREDS: [Option<PredCtrl>; 16] = [
    Some(PredCtrl::None),
    Some(PredCtrl::Normal),
    Some(PredCtrl::AnyV),
    Some(PredCtrl::AllV),
    Some(PredCtrl::Any2H),
    Some(PredCtrl::All2H),
    Some(PredCtrl::Any4H),
    Some(PredCtrl::All4H),
    Some(PredCtrl::Any8H),
    Some(PredCtrl::All8H),
    Some(PredCtrl::Any16H),
    Some(PredCtrl::All16H),
    Some(PredCtrl::Any32H),
    Some(PredCtrl::All32H),
    None,
    None,
];

/// Condition modifiers [Mesa brw_eu_defines.h enum brw_conditional_mod];
/// 7 (the Gen4 round-increment code) is reserved.
const CONDS: [Option<CondMod>; 16] = [
    Some(CondMod::None),
    Some(CondMod::Z),
    Some(CondMod::Nz),
    Some(CondMod::G),
    Some(CondMod::Ge),
    Some(CondMod::L),
    Some(CondMod::Le),
    None,
    Some(CondMod::O),
    Some(CondMod::U),
    None,
    None,
    None,
    None,
    None,
    None,
];

const fn reserved(field: Field, value: u32) -> DecodeError {
    DecodeError::Reserved { field, value }
}

fn look<T: Copy>(table: &[Option<T>], v: u32, field: Field) -> DResult<T> {
    table
        .get(v as usize)
        .copied()
        .flatten()
        .ok_or(reserved(field, v))
}

/// The form of an opcode number.
pub fn form_of(code: u8) -> Option<(Opcode, Form)> {
    t::OPCODES
        .iter()
        .find(|(c, _, _)| *c == code)
        .map(|&(_, o, f)| (o, f))
}

fn code_of_opcode(op: Opcode) -> Option<(u8, Form)> {
    t::OPCODES
        .iter()
        .find(|(_, o, _)| *o == op)
        .map(|&(c, _, f)| (c, f))
}

/// Send, math and dpas run out of order: a combined SWSB byte sets their
/// token (Mesa brw_eu_defines.h tgl_swsb_decode, `is_unordered`; iga64
/// -p=12p71 prints dpas's as `{@2,$3}`).
pub fn out_of_order(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Send | Opcode::Sendc | Opcode::Math | Opcode::Dpas | Opcode::Dpasw
    )
}

/// bfn's two-bit CondCtrl2 [004 bfn format table: none, (ze), (gt), (lt)].
const BFN_CONDS: [CondMod; 4] = [CondMod::None, CondMod::Z, CondMod::G, CondMod::L];

/// SubBytePrecision codes; 3 is reserved.
const PRECISIONS: [Option<Precision>; 4] = [
    Some(Precision::Full),
    Some(Precision::Bits4),
    Some(Precision::Bits2),
    None,
];

/// The region every dpas source implies (004 lines 13756-14070).
pub const DPAS_REGION: Region = Region::Align1 {
    vstride: 1,
    width: 1,
    hstride: 0,
};

/// The SWSB byte [Mesa brw_eu_defines.h tgl_swsb_decode, ver < 20 with
/// verx10 >= 125 pipes: 0x08 all, 0x10 float, 0x18 int, 0x50 long;
/// 0x20/0x30/0x40 token dst/src/set; 0x80 | dist << 4 | sbid combined].
/// A distance of 0 with a pipe or in the combined form is reserved.
fn swsb_of(x: u32) -> DResult<Option<Swsb>> {
    let dist = (x & 7) as u8;
    let sbid = (x & 0xF) as u8;
    let dist_on = |pipe| {
        if dist == 0 {
            Err(reserved(Field::Swsb, x))
        } else {
            Ok(Some(Swsb::Dist { pipe, dist }))
        }
    };
    match x {
        0 => Ok(None),
        0x01..=0x07 => dist_on(Pipe::Same),
        0x08..=0x0F => dist_on(Pipe::All),
        0x10..=0x17 => dist_on(Pipe::Float),
        0x18..=0x1F => dist_on(Pipe::Int),
        0x50..=0x57 => dist_on(Pipe::Long),
        0x20..=0x2F => Ok(Some(Swsb::Token {
            mode: TokenMode::Dst,
            sbid,
        })),
        0x30..=0x3F => Ok(Some(Swsb::Token {
            mode: TokenMode::Src,
            sbid,
        })),
        0x40..=0x4F => Ok(Some(Swsb::Token {
            mode: TokenMode::Set,
            sbid,
        })),
        0x90..=0xFF => Ok(Some(Swsb::Both {
            dist: ((x >> 4) & 7) as u8,
            sbid,
        })),
        _ => Err(reserved(Field::Swsb, x)),
    }
}

fn swsb_code(s: Option<Swsb>) -> EResult<u64> {
    let bad = |v: u8| EncodeError::Unencodable {
        field: Field::Swsb,
        value: i64::from(v),
    };
    Ok(match s {
        None => 0,
        Some(Swsb::Dist { pipe, dist }) => {
            if !(1..=7).contains(&dist) {
                return Err(bad(dist));
            }
            let base = match pipe {
                Pipe::Same => 0,
                Pipe::All => 0x08,
                Pipe::Float => 0x10,
                Pipe::Int => 0x18,
                Pipe::Long => 0x50,
            };
            base | u64::from(dist)
        }
        Some(Swsb::Token { mode, sbid }) => {
            if sbid > 15 {
                return Err(bad(sbid));
            }
            let base = match mode {
                TokenMode::Dst => 0x20,
                TokenMode::Src => 0x30,
                TokenMode::Set => 0x40,
            };
            base | u64::from(sbid)
        }
        Some(Swsb::Both { dist, sbid }) => {
            if !(1..=7).contains(&dist) {
                return Err(bad(dist));
            }
            if sbid > 15 {
                return Err(bad(sbid));
            }
            0x80 | u64::from(dist) << 4 | u64::from(sbid)
        }
    })
}

fn file_of(bit: bool) -> RegFile {
    if bit { RegFile::Grf } else { RegFile::Arf }
}

/// Decodes one native Xe-HPG instruction.
pub fn decode(word: u128) -> DResult<Instruction> {
    let mut r = Reader::new(word);
    if r.flag(t::CMPT) {
        return Err(DecodeError::Compacted);
    }
    let code = r.get(t::OPCODE);
    let (opcode, form) =
        form_of(code as u8).ok_or(DecodeError::UnknownOpcode { code: code as u8 })?;
    if t::UNSUPPORTED.contains(&opcode) {
        return Err(DecodeError::Unsupported {
            field: Field::Opcode,
            value: code,
        });
    }
    let swsb = swsb_of(r.get(t::SWSB))?;
    let mut inst = Instruction::new(
        opcode,
        1,
        GroupCtrl::Quarter { qtr: 0, nib: false },
        Body::Alu(Alu {
            dst: null_dst(),
            src0: ABSENT,
            src1: ABSENT,
        }),
    );
    inst.swsb = swsb;
    if form == Form::Bare {
        r.finish()?;
        return Ok(inst);
    }
    let exec = r.get(t::EXEC_SIZE);
    inst.exec_size = look(&t::EXEC_SIZES, exec, Field::ExecSize)?;
    inst.group = GroupCtrl::Quarter {
        qtr: r.get(t::QTR_CTRL) as u8,
        nib: r.flag(t::NIB_CTRL),
    };
    inst.flag = FlagReg {
        reg: r.get(t::FLAG_REG) as u8,
        subreg: r.get(t::FLAG_SUBREG) as u8,
    };
    inst.pred_ctrl = look(&PREDS, r.get(t::PRED_CTRL), Field::PredCtrl)?;
    inst.pred_inv = r.flag(t::PRED_INV);
    inst.debug = r.flag(t::DEBUG);
    inst.no_mask = r.flag(t::MASK_CTRL);
    inst.thread_ctrl = if r.flag(t::ATOMIC) {
        ThreadCtrl::Atomic
    } else {
        ThreadCtrl::Normal
    };
    if !matches!(
        form,
        Form::Send | Form::Target | Form::Call | Form::Ret | Form::Brc
    ) {
        inst.acc_wr_ctrl = r.flag(t::ACC_WR);
    }
    // iga64 writes jmpi with (W) and without an execution size or channel
    // offset: (1|M0) only.
    if opcode == Opcode::Jmpi
        && (!inst.no_mask
            || inst.exec_size != 1
            || inst.group != (GroupCtrl::Quarter { qtr: 0, nib: false }))
    {
        return Err(reserved(Field::ExecSize, exec));
    }
    let body = match form {
        Form::One | Form::Two => {
            inst.saturate = r.flag(t::SATURATE);
            let dst = dst(&mut r)?;
            let src0 = src0(&mut r, form == Form::One)?;
            let src1 = if form == Form::Two {
                src1(&mut r)?
            } else {
                ABSENT
            };
            if !is_imm64(&src0) {
                inst.cond_mod = look(&CONDS, r.get(t::COND_MOD), Field::CondMod)?;
            }
            Body::Alu(Alu { dst, src0, src1 })
        }
        Form::Math => {
            inst.saturate = r.flag(t::SATURATE);
            let fc = r.get(t::COND_MOD);
            let function = look(&t::MATH_FNS, fc, Field::MathFn)?;
            if macro_math(function) {
                math_macro(&mut r, function, inst.exec_size)?
            } else {
                let dst = dst(&mut r)?;
                let src0 = src0(&mut r, false)?;
                let src1 = if binary_math(function) {
                    src1(&mut r)?
                } else {
                    ABSENT
                };
                Body::Math(Math {
                    function,
                    dst,
                    src0,
                    src1,
                })
            }
        }
        Form::Three => {
            inst.saturate = r.flag(t::SATURATE);
            inst.cond_mod = look(&CONDS, r.get(t::COND_MOD), Field::CondMod)?;
            Body::ThreeSrc(three_src(&mut r)?)
        }
        Form::Send => Body::Send(send(&mut r)?),
        Form::Sync => {
            let function = look(&t::SYNC_FNS, r.get(t::COND_MOD), Field::CondMod)?;
            // The implied null destination carries HorzStride 1 [iga].
            let hs = r.get(t::DST_HSTRIDE);
            if hs != 1 {
                return Err(reserved(Field::HStride, hs));
            }
            let src0 = src0(&mut r, true)?;
            // sync's operand is named, not addressed: no indirect form.
            if let Src::Reg(RegSrc {
                addr: Addr::Indirect { .. },
                ..
            }) = src0
            {
                return Err(reserved(Field::Addr(Slot::Src0), 1));
            }
            Body::Sync(Sync { function, src0 })
        }
        Form::JipUip | Form::Jip => {
            if !r.flag(t::SRC0_IS_IMM) {
                return Err(reserved(Field::Jump, 0));
            }
            let jip = r.signed(t::JIP);
            let jump = if form == Form::JipUip {
                if !r.flag(t::SRC1_IS_IMM) {
                    return Err(reserved(Field::Jump, 1));
                }
                Jump::JipUip {
                    jip,
                    uip: r.signed(t::UIP),
                }
            } else {
                Jump::Jip { jip }
            };
            Body::Branch(Branch {
                dst: NO_DST,
                src0: ABSENT,
                src1: ABSENT,
                jump,
            })
        }
        Form::Target | Form::Call | Form::Ret | Form::Brc => ctrl(&mut r, form)?,
        Form::Madm => Body::ThreeSrc(madm(&mut r)?),
        Form::Bfn => {
            let function = (r.get(th::BFN_FC_HI) << 4 | r.get(th::BFN_FC_LO)) as u8;
            inst.cond_mod = BFN_CONDS[r.get(th::BFN_COND) as usize];
            // three_src reads the modifier bits too; they are the function
            // and CondCtrl2 here, so the sources carry none.
            let ts = three_src(&mut r)?;
            Body::Bfn(Bfn {
                function,
                dst: ts.dst,
                src: ts.src.map(|s| match s {
                    Src::Reg(reg) => Src::Reg(RegSrc {
                        abs: false,
                        negate: false,
                        ..reg
                    }),
                    other => other,
                }),
            })
        }
        Form::Dpas => Body::Dpas(dpas(&mut r)?),
        Form::Bare => unreachable_bare(),
    };
    r.finish()?;
    inst.body = body;
    Ok(inst)
}

/// invm and rsqtm: the IEEE macros (see `t::MATH_FNS`).
pub fn macro_math(f: crate::inst::MathFn) -> bool {
    matches!(f, crate::inst::MathFn::Invm | crate::inst::MathFn::Rsqtm)
}

/// The region of every math-macro source (invm, rsqtm): `<0;1,0>` at
/// SIMD1, `<1;1,0>` otherwise (iga64 -p=12p71 writes these; it prints no
/// region, so any other is refused).
pub const fn math_macro_region(exec_size: u8) -> Region {
    Region::Align1 {
        vstride: if exec_size == 1 { 0 } else { 1 },
        width: 1,
        hstride: 0,
    }
}

/// A math-macro operand: direct GRF, the selector code (0-8) in the
/// sub-register field; sources with the `<1;1,0>` region codes.
fn macro_operand(r: &mut Reader, file: Bits, subreg: Bits, slot: Slot) -> DResult<u8> {
    if !r.flag(file) {
        return Err(reserved(Field::File(slot), 0));
    }
    let mme = r.get(subreg);
    if mme > u32::from(t::MME_NONE) {
        return Err(reserved(Field::Addr(slot), mme));
    }
    Ok(mme as u8)
}

fn math_macro(r: &mut Reader, function: crate::inst::MathFn, exec_size: u8) -> DResult<Body> {
    if r.flag(t::DST_ADDR_MODE) {
        return Err(reserved(Field::Addr(Slot::Dst), 1));
    }
    let mme = macro_operand(r, t::DST_FILE, t::DST_SUBREG, Slot::Dst)?;
    let hs = r.get(t::DST_HSTRIDE);
    if hs != 1 {
        return Err(reserved(Field::HStride, hs));
    }
    let dst = Dst {
        file: RegFile::Grf,
        ty: look(&t::REG_TYPES, r.get(t::DST_TYPE), Field::Type(Slot::Dst))?,
        addr: Addr::Direct {
            nr: r.get(t::DST_NR) as u8,
            subnr: mme,
        },
        hstride: 1,
        writemask: WRITEMASK_XYZW,
    };
    let src = |r: &mut Reader, b: &SrcBits| -> DResult<Src> {
        if r.flag(b.addr_mode) {
            return Err(reserved(Field::Addr(b.slot), 1));
        }
        let mme = macro_operand(r, b.file, b.subreg, b.slot)?;
        // vstride code 0 or 1 (see math_macro_region), width code 0 (1),
        // hstride code 0.
        let region = (r.get(b.vstride), r.get(b.width), r.get(b.hstride));
        if region != (u32::from(exec_size != 1), 0, 0) {
            return Err(reserved(Field::Region(b.slot), region.0));
        }
        Ok(Src::Reg(RegSrc {
            file: RegFile::Grf,
            ty: look(&t::REG_TYPES, r.get(b.ty), Field::Type(b.slot))?,
            addr: Addr::Direct {
                nr: r.get(b.nr) as u8,
                subnr: mme,
            },
            region: math_macro_region(exec_size),
            abs: r.flag(b.abs),
            negate: r.flag(b.neg),
        }))
    };
    let src0 = src(r, &SRC0)?;
    let src1 = if function == crate::inst::MathFn::Invm {
        src(r, &SRC1)?
    } else {
        ABSENT
    };
    Ok(Body::Math(Math {
        function,
        dst,
        src0,
        src1,
    }))
}

/// One dpas register operand: file, number, sub-register (bytes), type.
fn dpas_reg(
    r: &mut Reader,
    types: &[Option<Type>; 8],
    b: [Bits; 4],
    slot: Slot,
) -> DResult<(RegFile, Type, Addr)> {
    let file = file_of(r.flag(b[0]));
    let ty = look(types, r.get(b[1]), Field::Type(slot))?;
    let addr = Addr::Direct {
        nr: r.get(b[2]) as u8,
        subnr: r.get(b[3]) as u8,
    };
    Ok((file, ty, addr))
}

const DPAS_BITS: [(Slot, [Bits; 4]); 4] = [
    (
        Slot::Dst,
        [dp::DST_FILE, dp::DST_TYPE, dp::DST_NR, dp::DST_SUBREG],
    ),
    (
        Slot::Src0,
        [dp::SRC0_FILE, dp::SRC0_TYPE, dp::SRC0_NR, dp::SRC0_SUBREG],
    ),
    (
        Slot::Src1,
        [dp::SRC1_FILE, dp::SRC1_TYPE, dp::SRC1_NR, dp::SRC1_SUBREG],
    ),
    (
        Slot::Src2,
        [dp::SRC2_FILE, dp::SRC2_TYPE, dp::SRC2_NR, dp::SRC2_SUBREG],
    ),
];

fn dpas(r: &mut Reader) -> DResult<Dpas> {
    let types = three_types(r.flag(dp::EXEC_TYPE));
    let depth = 1 << r.get(dp::SDEPTH);
    let repeat = r.get(dp::RCOUNT) as u8 + 1;
    let (file, ty, addr) = dpas_reg(r, types, DPAS_BITS[0].1, Slot::Dst)?;
    let dst = Dst {
        file,
        ty,
        addr,
        hstride: 1,
        writemask: WRITEMASK_XYZW,
    };
    let mut src = [ABSENT; 3];
    for (s, (slot, b)) in src.iter_mut().zip(&DPAS_BITS[1..]) {
        let (file, ty, addr) = dpas_reg(r, types, *b, *slot)?;
        *s = Src::Reg(RegSrc {
            file,
            ty,
            addr,
            region: DPAS_REGION,
            negate: false,
            abs: false,
        });
    }
    let mut precision = [Precision::Full; 2];
    for (k, (p, (b, slot))) in precision
        .iter_mut()
        .zip([
            (dp::SRC1_PRECISION, Slot::Src1),
            (dp::SRC2_PRECISION, Slot::Src2),
        ])
        .enumerate()
    {
        let code = r.get(b);
        *p = look(&PRECISIONS, code, Field::Type(slot))?;
        // Sub-byte elements only divide a byte type.
        if *p != Precision::Full
            && !matches!(&src[k + 1], Src::Reg(reg) if matches!(reg.ty, Type::Ub | Type::B))
        {
            return Err(reserved(Field::Type(slot), code));
        }
    }
    Ok(Dpas {
        depth,
        repeat,
        dst,
        src,
        precision,
    })
}

fn put_dpas(w: &mut Writer, d: &Dpas) -> EResult<()> {
    let float = d.dst.ty.is_float();
    w.flag(dp::EXEC_TYPE, float);
    let types = three_types(float);
    let sdepth = [1, 2, 4, 8]
        .iter()
        .position(|&x| x == d.depth)
        .ok_or(bad(Field::Body, i64::from(d.depth)))?;
    w.put(dp::SDEPTH, sdepth as u64, Field::Body)?;
    if !(1..=8).contains(&d.repeat) {
        return Err(bad(Field::Body, i64::from(d.repeat)));
    }
    w.put(dp::RCOUNT, u64::from(d.repeat - 1), Field::Body)?;
    let mut ops = [(d.dst.file, d.dst.ty, d.dst.addr); 4];
    for (o, s) in ops[1..].iter_mut().zip(&d.src) {
        let Src::Reg(reg) = s else {
            return Err(bad(Field::File(Slot::Src0), 0));
        };
        *o = (reg.file, reg.ty, reg.addr);
    }
    for ((file, ty, addr), (slot, b)) in ops.into_iter().zip(DPAS_BITS) {
        let (nr, subnr) = direct(addr, slot)?;
        w.flag(b[0], file_bit(file, slot)?);
        w.put(b[1], ty_code(types, ty, slot)?, Field::Type(slot))?;
        w.put(b[2], u64::from(nr), Field::Addr(slot))?;
        w.put(b[3], u64::from(subnr), Field::Addr(slot))?;
    }
    for (p, b) in d
        .precision
        .iter()
        .zip([dp::SRC1_PRECISION, dp::SRC2_PRECISION])
    {
        let code = PRECISIONS.iter().position(|x| *x == Some(*p)).unwrap_or(0);
        w.put(b, code as u64, Field::Type(Slot::Src1))?;
    }
    Ok(())
}

/// One madm register operand's bit positions (see `t::MME_NONE`).
struct MadmBits {
    slot: Slot,
    ty: Bits,
    file: Bits,
    nr: Bits,
    mme: Bits,
    /// Horizontal stride (code 1) and vertical stride bits (hi, lo; code 2).
    hstride: Option<Bits>,
    vstride: Option<(Bits, Bits)>,
    abs: Option<Bits>,
    neg: Option<Bits>,
}

const MADM_DST: MadmBits = MadmBits {
    slot: Slot::Dst,
    ty: th::DST_TYPE,
    file: th::DST_FILE,
    nr: th::DST_NR,
    mme: th::DST_SUBREG,
    hstride: None,
    vstride: None,
    abs: None,
    neg: None,
};

const MADM_SRCS: [MadmBits; 3] = [
    MadmBits {
        slot: Slot::Src0,
        ty: th::SRC0_TYPE,
        file: th::SRC0_FILE,
        nr: th::SRC0_NR,
        mme: th::SRC0_SUBREG,
        hstride: Some(th::SRC0_HSTRIDE),
        vstride: Some((th::SRC0_VSTRIDE_HI, th::SRC0_VSTRIDE_LO)),
        abs: Some(th::SRC0_ABS),
        neg: Some(th::SRC0_NEG),
    },
    MadmBits {
        slot: Slot::Src1,
        ty: th::SRC1_TYPE,
        file: th::SRC1_FILE,
        nr: th::SRC1_NR,
        mme: th::SRC1_SUBREG,
        hstride: Some(th::SRC1_HSTRIDE),
        vstride: Some((th::SRC1_VSTRIDE_HI, th::SRC1_VSTRIDE_LO)),
        abs: Some(th::SRC1_ABS),
        neg: Some(th::SRC1_NEG),
    },
    MadmBits {
        slot: Slot::Src2,
        ty: th::SRC2_TYPE,
        file: th::SRC2_FILE,
        nr: th::SRC2_NR,
        mme: th::SRC2_SUBREG,
        hstride: Some(th::SRC2_HSTRIDE),
        vstride: None,
        abs: Some(th::SRC2_ABS),
        neg: Some(th::SRC2_NEG),
    },
];

/// The region every madm source carries.
pub const MADM_REGION: Region = Region::Align1 {
    vstride: 4,
    width: 1,
    hstride: 1,
};

/// A madm operand's register and selector; `subnr` holds the selector
/// code (0-7 mme0-mme7, 8 nomme), not a byte offset.
fn madm_reg(r: &mut Reader, b: &MadmBits) -> DResult<(Type, Addr)> {
    if !r.flag(b.file) {
        return Err(reserved(Field::File(b.slot), 0));
    }
    let ty = look(&t::THREE_FLOAT_TYPES, r.get(b.ty), Field::Type(b.slot))?;
    let nr = r.get(b.nr) as u8;
    let mme = r.get(b.mme);
    if mme > u32::from(t::MME_NONE) {
        return Err(reserved(Field::Addr(b.slot), mme));
    }
    if let Some(h) = b.hstride {
        let code = r.get(h);
        if code != 1 {
            return Err(reserved(Field::Region(b.slot), code));
        }
    }
    if let Some((hi, lo)) = b.vstride {
        let code = r.get(hi) << 1 | r.get(lo);
        if code != 2 {
            return Err(reserved(Field::Region(b.slot), code));
        }
    }
    Ok((
        ty,
        Addr::Direct {
            nr,
            subnr: mme as u8,
        },
    ))
}

fn madm(r: &mut Reader) -> DResult<ThreeSrc> {
    if !r.flag(th::EXEC_TYPE) {
        return Err(reserved(Field::Type(Slot::Dst), 0));
    }
    let (ty, addr) = madm_reg(r, &MADM_DST)?;
    let dst = Dst {
        file: RegFile::Grf,
        ty,
        addr,
        hstride: 1,
        writemask: WRITEMASK_XYZW,
    };
    let mut src = [ABSENT; 3];
    for (s, b) in src.iter_mut().zip(MADM_SRCS.iter()) {
        let (ty, addr) = madm_reg(r, b)?;
        *s = Src::Reg(RegSrc {
            file: RegFile::Grf,
            ty,
            addr,
            region: MADM_REGION,
            abs: b.abs.is_some_and(|a| r.flag(a)),
            negate: b.neg.is_some_and(|n| r.flag(n)),
        });
    }
    Ok(ThreeSrc { dst, src })
}

fn put_madm_reg(w: &mut Writer, b: &MadmBits, ty: Type, addr: Addr) -> EResult<()> {
    let (nr, mme) = direct(addr, b.slot)?;
    w.flag(b.file, true);
    w.put(
        b.ty,
        ty_code(&t::THREE_FLOAT_TYPES, ty, b.slot)?,
        Field::Type(b.slot),
    )?;
    w.put(b.nr, u64::from(nr), Field::Addr(b.slot))?;
    w.put(b.mme, u64::from(mme), Field::Addr(b.slot))?;
    if let Some(h) = b.hstride {
        w.put(h, 1, Field::Region(b.slot))?;
    }
    if let Some((hi, _)) = b.vstride {
        w.flag(hi, true);
    }
    Ok(())
}

/// Writes madm; the final decode check refuses anything `madm` would not
/// read back the same (an ARF, another region, a selector above 8).
fn put_madm(w: &mut Writer, ts: &ThreeSrc) -> EResult<()> {
    w.flag(th::EXEC_TYPE, true);
    put_madm_reg(w, &MADM_DST, ts.dst.ty, ts.dst.addr)?;
    for (s, b) in ts.src.iter().zip(MADM_SRCS.iter()) {
        let Src::Reg(reg) = s else {
            return Err(bad(Field::File(b.slot), 0));
        };
        put_madm_reg(w, b, reg.ty, reg.addr)?;
        if let (Some(a), Some(n)) = (b.abs, b.neg) {
            w.flag(a, reg.abs);
            w.flag(n, reg.negate);
        }
    }
    Ok(())
}

/// A control-flow register operand: only file, number and sub-register
/// are written; types and regions stay zero and are implied (dwords,
/// `<0;1,0>`) [iga64 -p=12p71: `call (1|M0) r10.2 r4.1` has dst subreg
/// 8 and src0 subreg 4, every type and region code 0].
pub fn ctrl_reg(file: RegFile, nr: u8, subnr: u8) -> RegSrc {
    RegSrc {
        file,
        ty: Type::D,
        addr: Addr::Direct { nr, subnr },
        region: Region::Align1 {
            vstride: 0,
            width: 1,
            hstride: 0,
        },
        negate: false,
        abs: false,
    }
}

/// The return-address destination of call/calla (see [`ctrl_reg`]).
pub fn ctrl_dst(file: RegFile, nr: u8, subnr: u8) -> Dst {
    Dst {
        file,
        ty: Type::D,
        addr: Addr::Direct { nr, subnr },
        hstride: 1,
        writemask: WRITEMASK_XYZW,
    }
}

fn dword_subreg(r: &mut Reader, b: Bits, slot: Slot) -> DResult<u8> {
    let sub = r.get(b);
    if !sub.is_multiple_of(4) {
        return Err(reserved(Field::Addr(slot), sub));
    }
    Ok(sub as u8)
}

/// jmpi, brd, call, calla, ret, brc: an immediate target is a JIP (UIP
/// too on brc), in bytes; calla's is absolute [iga64 -p=12p71]. A register
/// target decodes to an `Alu` body, an immediate one to a `Branch`.
fn ctrl(r: &mut Reader, form: Form) -> DResult<Body> {
    let dst = if form == Form::Call {
        let file = file_of(r.flag(t::DST_FILE));
        let nr = r.get(t::DST_NR) as u8;
        Some(ctrl_dst(
            file,
            nr,
            dword_subreg(r, t::DST_SUBREG, Slot::Dst)?,
        ))
    } else {
        None
    };
    if form != Form::Ret && r.flag(t::SRC0_IS_IMM) {
        let jip = r.signed(t::JIP);
        let jump = if form == Form::Brc {
            if !r.flag(t::SRC1_IS_IMM) {
                return Err(reserved(Field::Jump, 1));
            }
            Jump::JipUip {
                jip,
                uip: r.signed(t::UIP),
            }
        } else {
            Jump::Jip { jip }
        };
        return Ok(Body::Branch(Branch {
            dst: dst.map_or(NO_DST, DstSlot::Reg),
            src0: ABSENT,
            src1: ABSENT,
            jump,
        }));
    }
    let file = file_of(r.flag(t::SRC0_FILE));
    let nr = r.get(t::SRC0_NR) as u8;
    let src0 = ctrl_reg(file, nr, dword_subreg(r, t::SRC0_SUBREG, Slot::Src0)?);
    Ok(Body::Alu(Alu {
        dst: dst.unwrap_or_else(null_dst),
        src0: Src::Reg(src0),
        src1: ABSENT,
    }))
}

/// `Form::Bare` returns before the body match; kept total without a panic.
fn unreachable_bare() -> Body {
    Body::Alu(Alu {
        dst: null_dst(),
        src0: ABSENT,
        src1: ABSENT,
    })
}

pub fn null_dst() -> Dst {
    Dst {
        file: RegFile::Arf,
        ty: Type::Ub,
        addr: Addr::Direct { nr: 0, subnr: 0 },
        hstride: 0,
        writemask: WRITEMASK_XYZW,
    }
}

fn binary_math(f: crate::inst::MathFn) -> bool {
    matches!(f, crate::inst::MathFn::Fdiv | crate::inst::MathFn::Pow)
}

fn is_imm64(s: &Src) -> bool {
    matches!(s, Src::Imm(i) if i.ty.size() == 8)
}

fn indirect(r: &mut Reader, subreg: Bits, imm: Bits) -> Addr {
    Addr::Indirect {
        addr_subnr: r.get(subreg) as u8,
        offset: r.signed(imm) as i16,
    }
}

fn dst(r: &mut Reader) -> DResult<Dst> {
    let (file, addr) = if r.flag(t::DST_ADDR_MODE) {
        (RegFile::Grf, indirect(r, t::DST_IA_SUBREG, t::DST_IA_IMM))
    } else {
        (
            file_of(r.flag(t::DST_FILE)),
            Addr::Direct {
                nr: r.get(t::DST_NR) as u8,
                subnr: r.get(t::DST_SUBREG) as u8,
            },
        )
    };
    Ok(Dst {
        file,
        ty: look(&t::REG_TYPES, r.get(t::DST_TYPE), Field::Type(Slot::Dst))?,
        addr,
        hstride: t::HSTRIDES[r.get(t::DST_HSTRIDE) as usize],
        writemask: WRITEMASK_XYZW,
    })
}

struct SrcBits {
    slot: Slot,
    ty: Bits,
    file: Bits,
    nr: Bits,
    subreg: Bits,
    addr_mode: Bits,
    ia_subreg: Bits,
    ia_imm: Bits,
    vstride: Bits,
    width: Bits,
    hstride: Bits,
    abs: Bits,
    neg: Bits,
}

const SRC0: SrcBits = SrcBits {
    slot: Slot::Src0,
    ty: t::SRC0_TYPE,
    file: t::SRC0_FILE,
    nr: t::SRC0_NR,
    subreg: t::SRC0_SUBREG,
    addr_mode: t::SRC0_ADDR_MODE,
    ia_subreg: t::SRC0_IA_SUBREG,
    ia_imm: t::SRC0_IA_IMM,
    vstride: t::SRC0_VSTRIDE,
    width: t::SRC0_WIDTH,
    hstride: t::SRC0_HSTRIDE,
    abs: t::SRC0_ABS,
    neg: t::SRC0_NEG,
};

const SRC1: SrcBits = SrcBits {
    slot: Slot::Src1,
    ty: t::SRC1_TYPE,
    file: t::SRC1_FILE,
    nr: t::SRC1_NR,
    subreg: t::SRC1_SUBREG,
    addr_mode: t::SRC1_ADDR_MODE,
    ia_subreg: t::SRC1_IA_SUBREG,
    ia_imm: t::SRC1_IA_IMM,
    vstride: t::SRC1_VSTRIDE,
    width: t::SRC1_WIDTH,
    hstride: t::SRC1_HSTRIDE,
    abs: t::SRC1_ABS,
    neg: t::SRC1_NEG,
};

fn reg_src(r: &mut Reader, b: &SrcBits) -> DResult<Src> {
    let is_indirect = r.flag(b.addr_mode);
    let (file, addr) = if is_indirect {
        (RegFile::Grf, indirect(r, b.ia_subreg, b.ia_imm))
    } else {
        (
            file_of(r.flag(b.file)),
            Addr::Direct {
                nr: r.get(b.nr) as u8,
                subnr: r.get(b.subreg) as u8,
            },
        )
    };
    let vs = r.get(b.vstride);
    let width = look(&t::WIDTHS, r.get(b.width), Field::Region(b.slot))?;
    let hstride = t::HSTRIDES[r.get(b.hstride) as usize];
    let region = if is_indirect && vs == t::VSTRIDE_VXH {
        Region::VxH { width, hstride }
    } else {
        Region::Align1 {
            vstride: look(&t::VSTRIDES, vs, Field::Region(b.slot))?,
            width,
            hstride,
        }
    };
    Ok(Src::Reg(RegSrc {
        file,
        ty: look(&t::REG_TYPES, r.get(b.ty), Field::Type(b.slot))?,
        addr,
        region,
        abs: r.flag(b.abs),
        negate: r.flag(b.neg),
    }))
}

/// src0: an immediate fills 127:96, or 127:64 for 64-bit types (then only
/// in a one-source form, where no src1 fields exist).
fn src0(r: &mut Reader, one_source: bool) -> DResult<Src> {
    if !r.flag(t::SRC0_IS_IMM) {
        return reg_src(r, &SRC0);
    }
    let c = r.get(t::SRC0_TYPE);
    let ty = look(&t::IMM_TYPES, c, Field::Type(Slot::Src0))?;
    if !one_source {
        // src1's fields share 127:96: no room for a src0 immediate.
        return Err(reserved(Field::File(Slot::Src0), 1));
    }
    let bits = if ty.size() == 8 {
        u64::from(r.get(t::IMM64_HI)) << 32 | u64::from(r.get(t::IMM64_LO))
    } else {
        u64::from(r.get(t::IMM32))
    };
    Ok(Src::Imm(Imm { ty, bits }))
}

fn src1(r: &mut Reader) -> DResult<Src> {
    if !r.flag(t::SRC1_IS_IMM) {
        return reg_src(r, &SRC1);
    }
    let c = r.get(t::SRC1_TYPE);
    let ty = look(&t::IMM_TYPES, c, Field::Type(Slot::Src1))?;
    if ty.size() == 8 {
        return Err(reserved(Field::Type(Slot::Src1), c));
    }
    Ok(Src::Imm(Imm {
        ty,
        bits: u64::from(r.get(t::IMM32)),
    }))
}

fn three_types(exec_float: bool) -> &'static [Option<Type>; 8] {
    if exec_float {
        &t::THREE_FLOAT_TYPES
    } else {
        &t::THREE_INT_TYPES
    }
}

fn three_src(r: &mut Reader) -> DResult<ThreeSrc> {
    let types = three_types(r.flag(th::EXEC_TYPE));
    let dst = Dst {
        file: file_of(r.flag(th::DST_FILE)),
        ty: look(types, r.get(th::DST_TYPE), Field::Type(Slot::Dst))?,
        addr: Addr::Direct {
            nr: r.get(th::DST_NR) as u8,
            subnr: r.get(th::DST_SUBREG) as u8,
        },
        hstride: if r.flag(th::DST_HSTRIDE) { 2 } else { 1 },
        writemask: WRITEMASK_XYZW,
    };
    let ty0 = r.get(th::SRC0_TYPE);
    let src0 = if r.flag(th::SRC0_IS_IMM) {
        Src::Imm(Imm {
            ty: look(types, ty0, Field::Type(Slot::Src0))?,
            bits: r.get64(th::SRC0_IMM),
        })
    } else {
        let vs = r.get(th::SRC0_VSTRIDE_HI) << 1 | r.get(th::SRC0_VSTRIDE_LO);
        Src::Reg(RegSrc {
            file: file_of(r.flag(th::SRC0_FILE)),
            ty: look(types, ty0, Field::Type(Slot::Src0))?,
            addr: Addr::Direct {
                nr: r.get(th::SRC0_NR) as u8,
                subnr: r.get(th::SRC0_SUBREG) as u8,
            },
            region: Region::Align1 {
                vstride: th::VSTRIDES[vs as usize],
                width: 1,
                hstride: t::HSTRIDES[r.get(th::SRC0_HSTRIDE) as usize],
            },
            abs: r.flag(th::SRC0_ABS),
            negate: r.flag(th::SRC0_NEG),
        })
    };
    let vs1 = r.get(th::SRC1_VSTRIDE_HI) << 1 | r.get(th::SRC1_VSTRIDE_LO);
    let src1 = Src::Reg(RegSrc {
        file: file_of(r.flag(th::SRC1_FILE)),
        ty: look(types, r.get(th::SRC1_TYPE), Field::Type(Slot::Src1))?,
        addr: Addr::Direct {
            nr: r.get(th::SRC1_NR) as u8,
            subnr: r.get(th::SRC1_SUBREG) as u8,
        },
        region: Region::Align1 {
            vstride: th::VSTRIDES[vs1 as usize],
            width: 1,
            hstride: t::HSTRIDES[r.get(th::SRC1_HSTRIDE) as usize],
        },
        abs: r.flag(th::SRC1_ABS),
        negate: r.flag(th::SRC1_NEG),
    });
    let ty2 = r.get(th::SRC2_TYPE);
    let src2 = if r.flag(th::SRC2_IS_IMM) {
        Src::Imm(Imm {
            ty: look(types, ty2, Field::Type(Slot::Src2))?,
            bits: r.get64(th::SRC2_IMM),
        })
    } else {
        Src::Reg(RegSrc {
            file: file_of(r.flag(th::SRC2_FILE)),
            ty: look(types, ty2, Field::Type(Slot::Src2))?,
            addr: Addr::Direct {
                nr: r.get(th::SRC2_NR) as u8,
                subnr: r.get(th::SRC2_SUBREG) as u8,
            },
            region: Region::Align1 {
                vstride: 0,
                width: 1,
                hstride: t::HSTRIDES[r.get(th::SRC2_HSTRIDE) as usize],
            },
            abs: r.flag(th::SRC2_ABS),
            negate: r.flag(th::SRC2_NEG),
        })
    };
    Ok(ThreeSrc {
        dst,
        src: [src0, src1, src2],
    })
}

/// The canonical operand of a send payload or destination register.
pub fn send_reg(file: RegFile, nr: u8) -> RegSrc {
    RegSrc {
        file,
        ty: Type::Ud,
        addr: Addr::Direct { nr, subnr: 0 },
        region: Region::Align1 {
            vstride: 0,
            width: 1,
            hstride: 0,
        },
        negate: false,
        abs: false,
    }
}

/// The register descriptor operand, a0.0.
pub fn desc_a0() -> RegSrc {
    send_reg(RegFile::Arf, crate::inst::arf::A0)
}

/// Descriptor bits the normalised fields hold (mlen 28:25, rlen 24:20,
/// header 19); `MsgDesc::function` keeps every other bit, 31:29 included.
const DESC_LENGTHS: u32 = 0x1FF8_0000;

pub fn msg_desc(desc: u32) -> MsgDesc {
    MsgDesc {
        mlen: ((desc >> 25) & 0xF) as u8,
        rlen: ((desc >> 20) & 0x1F) as u8,
        header: desc & (1 << 19) != 0,
        function: desc & !DESC_LENGTHS,
    }
}

pub fn desc_word(d: &MsgDesc) -> EResult<u32> {
    if d.mlen > 15 || d.rlen > 31 || d.function & DESC_LENGTHS != 0 {
        return Err(EncodeError::Unencodable {
            field: Field::Desc,
            value: i64::from(d.function),
        });
    }
    Ok(d.function | u32::from(d.mlen) << 25 | u32::from(d.rlen) << 20 | u32::from(d.header) << 19)
}

fn send(r: &mut Reader) -> DResult<Send> {
    let eot = r.flag(sd::EOT);
    let dst_reg = send_reg(file_of(r.flag(sd::DST_FILE)), r.get(sd::DST_NR) as u8);
    let src0 = send_reg(file_of(r.flag(sd::SRC0_FILE)), r.get(sd::SRC0_NR) as u8);
    let src1 = send_reg(file_of(r.flag(sd::SRC1_FILE)), r.get(sd::SRC1_NR) as u8);
    let sfid = t::SFIDS[r.get(sd::SFID) as usize].0;
    let desc = if r.flag(sd::DESC_IS_REG) {
        SendDesc::Reg(desc_a0())
    } else {
        let mut d = 0u32;
        for (b, lo) in sd::DESC {
            d |= r.get(b) << lo;
        }
        SendDesc::Imm {
            ty: Type::Ud,
            desc: msg_desc(d),
        }
    };
    let ex_desc = if r.flag(sd::EX_DESC_IS_REG) {
        let subnr = r.get(sd::EX_DESC_SUBREG) as u8;
        let src1_len = if r.flag(sd::EX_BSO) {
            Some(r.get(sd::SRC1_LEN) as u8)
        } else {
            None
        };
        ExDesc::Reg { subnr, src1_len }
    } else {
        let mut ex = r.get(sd::SRC1_LEN) << 6;
        for (b, lo) in sd::EX_DESC {
            ex |= r.get(b) << lo;
        }
        ExDesc::Imm(ex)
    };
    Ok(Send {
        dst: Dst {
            file: dst_reg.file,
            ty: Type::Ud,
            addr: dst_reg.addr,
            hstride: 1,
            writemask: WRITEMASK_XYZW,
        },
        src0: Src::Reg(src0),
        desc,
        sfid: Some(sfid),
        base_mrf: None,
        eot,
        src1: Some(Src::Reg(src1)),
        ex_desc: Some(ex_desc),
    })
}

// ---------------------------------------------------------------- encode

fn bad(field: Field, value: i64) -> EncodeError {
    EncodeError::Unencodable { field, value }
}

fn file_bit(file: RegFile, slot: Slot) -> EResult<bool> {
    match file {
        RegFile::Grf => Ok(true),
        RegFile::Arf => Ok(false),
        _ => Err(bad(Field::File(slot), 0)),
    }
}

fn direct(a: Addr, slot: Slot) -> EResult<(u8, u8)> {
    match a {
        Addr::Direct { nr, subnr } => Ok((nr, subnr)),
        Addr::Indirect { .. } => Err(bad(Field::Addr(slot), 1)),
    }
}

fn hs_code(h: u8, slot: Slot) -> EResult<u64> {
    t::HSTRIDES
        .iter()
        .position(|&x| x == h)
        .map(|i| i as u64)
        .ok_or(bad(Field::Region(slot), i64::from(h)))
}

fn ty_code(table: &[Option<Type>], ty: Type, slot: Slot) -> EResult<u64> {
    code(table, ty)
        .map(u64::from)
        .ok_or(bad(Field::Type(slot), 0))
}

/// Encodes one native Xe-HPG instruction.
pub fn encode(inst: &Instruction) -> EResult<u128> {
    let (opcode_code, form) = code_of_opcode(inst.opcode).ok_or(EncodeError::UnknownOpcode {
        opcode: inst.opcode,
    })?;
    if t::UNSUPPORTED.contains(&inst.opcode) {
        return Err(EncodeError::UnknownOpcode {
            opcode: inst.opcode,
        });
    }
    if inst.access_mode != AccessMode::Align1 {
        return Err(bad(Field::AccessMode, 1));
    }
    let mut w = Writer::new();
    w.put(t::OPCODE, u64::from(opcode_code), Field::Opcode)?;
    w.put(t::SWSB, swsb_code(inst.swsb)?, Field::Swsb)?;
    if form != Form::Bare {
        let exec = code(&t::EXEC_SIZES, inst.exec_size)
            .ok_or(bad(Field::ExecSize, i64::from(inst.exec_size)))?;
        w.put(t::EXEC_SIZE, u64::from(exec), Field::ExecSize)?;
        let GroupCtrl::Quarter { qtr, nib } = inst.group else {
            return Err(bad(Field::GroupCtrl, 0));
        };
        w.put(t::QTR_CTRL, u64::from(qtr), Field::GroupCtrl)?;
        w.flag(t::NIB_CTRL, nib);
        w.put(t::FLAG_REG, u64::from(inst.flag.reg), Field::FlagReg)?;
        w.put(t::FLAG_SUBREG, u64::from(inst.flag.subreg), Field::FlagReg)?;
        let pred = code(&PREDS, inst.pred_ctrl).ok_or(bad(Field::PredCtrl, 0))?;
        w.put(t::PRED_CTRL, u64::from(pred), Field::PredCtrl)?;
        w.flag(t::PRED_INV, inst.pred_inv);
        w.flag(t::DEBUG, inst.debug);
        w.flag(t::MASK_CTRL, inst.no_mask);
        match inst.thread_ctrl {
            ThreadCtrl::Normal => {}
            ThreadCtrl::Atomic => w.flag(t::ATOMIC, true),
            ThreadCtrl::Switch => return Err(bad(Field::ThreadCtrl, 2)),
        }
        w.flag(t::ACC_WR, inst.acc_wr_ctrl);
    }
    let cond = || -> EResult<u64> {
        code(&CONDS, inst.cond_mod)
            .map(u64::from)
            .ok_or(bad(Field::CondMod, 0))
    };
    match (&inst.body, form) {
        (_, Form::Bare) => {}
        (Body::Alu(a), Form::One | Form::Two) => {
            w.flag(t::SATURATE, inst.saturate);
            put_dst(&mut w, &a.dst)?;
            put_src0(&mut w, &a.src0)?;
            if form == Form::Two {
                put_src1(&mut w, &a.src1)?;
            }
            if !is_imm64(&a.src0) {
                w.put(t::COND_MOD, cond()?, Field::CondMod)?;
            }
        }
        (Body::Math(m), Form::Math) => {
            w.flag(t::SATURATE, inst.saturate);
            let fc = code(&t::MATH_FNS, m.function).ok_or(bad(Field::MathFn, 0))?;
            w.put(t::COND_MOD, u64::from(fc), Field::MathFn)?;
            put_dst(&mut w, &m.dst)?;
            put_src0(&mut w, &m.src0)?;
            // A macro's selectors sit in the sub-register fields and its
            // region is `<1;1,0>`: the plain operand writers place both.
            if binary_math(m.function) || m.function == crate::inst::MathFn::Invm {
                put_src1(&mut w, &m.src1)?;
            }
        }
        (Body::ThreeSrc(ts), Form::Three) => {
            w.flag(t::SATURATE, inst.saturate);
            w.put(t::COND_MOD, cond()?, Field::CondMod)?;
            put_three(&mut w, ts)?;
        }
        (Body::Send(s), Form::Send) => put_send(&mut w, s)?,
        (Body::Sync(s), Form::Sync) => {
            let fc = code(&t::SYNC_FNS, s.function).ok_or(bad(Field::CondMod, 0))?;
            w.put(t::COND_MOD, u64::from(fc), Field::CondMod)?;
            w.put(t::DST_HSTRIDE, 1, Field::HStride)?;
            put_src0(&mut w, &s.src0)?;
        }
        (_, Form::Target | Form::Call | Form::Ret | Form::Brc) => {
            put_ctrl(&mut w, &inst.body, form)?
        }
        (Body::ThreeSrc(ts), Form::Madm) => put_madm(&mut w, ts)?,
        (Body::Bfn(b), Form::Bfn) => {
            // put_three writes the (absent) source modifiers first; the
            // function and CondCtrl2 then take their bits.
            put_three(
                &mut w,
                &ThreeSrc {
                    dst: b.dst,
                    src: b.src,
                },
            )?;
            let c = BFN_CONDS
                .iter()
                .position(|c| *c == inst.cond_mod)
                .ok_or(bad(Field::CondMod, 0))?;
            w.put(th::BFN_COND, c as u64, Field::CondMod)?;
            w.put(th::BFN_FC_HI, u64::from(b.function >> 4), Field::Body)?;
            w.put(th::BFN_FC_LO, u64::from(b.function & 0xF), Field::Body)?;
        }
        (Body::Dpas(d), Form::Dpas) => put_dpas(&mut w, d)?,
        (Body::Branch(b), Form::JipUip | Form::Jip) => {
            w.flag(t::SRC0_IS_IMM, true);
            match (b.jump, form) {
                (Jump::JipUip { jip, uip }, Form::JipUip) => {
                    w.signed(t::JIP, i64::from(jip), Field::Jump)?;
                    w.flag(t::SRC1_IS_IMM, true);
                    w.signed(t::UIP, i64::from(uip), Field::Jump)?;
                }
                (Jump::Jip { jip }, Form::Jip) => {
                    w.signed(t::JIP, i64::from(jip), Field::Jump)?;
                }
                _ => return Err(EncodeError::NotCanonical { field: Field::Jump }),
            }
        }
        _ => return Err(EncodeError::NotCanonical { field: Field::Body }),
    }
    let word = w.word();
    match decode(word) {
        Ok(back) if back == *inst => Ok(word),
        _ => Err(EncodeError::NotCanonical {
            field: first_difference(inst, word),
        }),
    }
}

/// Names the first field in which `inst` and the decoding of `word` differ
/// (for the `NotCanonical` error).
fn first_difference(inst: &Instruction, word: u128) -> Field {
    let Ok(back) = decode(word) else {
        return Field::Body;
    };
    if back.exec_size != inst.exec_size {
        Field::ExecSize
    } else if back.cond_mod != inst.cond_mod {
        Field::CondMod
    } else if back.saturate != inst.saturate {
        Field::Body
    } else if back.swsb != inst.swsb {
        Field::Swsb
    } else if back.flag != inst.flag {
        Field::FlagReg
    } else {
        Field::Body
    }
}

fn put_ctrl_reg(
    w: &mut Writer,
    file: RegFile,
    addr: Addr,
    b: [Bits; 3],
    slot: Slot,
) -> EResult<()> {
    let (nr, subnr) = direct(addr, slot)?;
    w.flag(b[0], file_bit(file, slot)?);
    w.put(b[1], u64::from(nr), Field::Addr(slot))?;
    w.put(b[2], u64::from(subnr), Field::Addr(slot))
}

/// Writes the control-flow forms of [`ctrl`]; the final decode check
/// refuses any field these forms do not have.
fn put_ctrl(w: &mut Writer, body: &Body, form: Form) -> EResult<()> {
    let dst_bits = [t::DST_FILE, t::DST_NR, t::DST_SUBREG];
    let src_bits = [t::SRC0_FILE, t::SRC0_NR, t::SRC0_SUBREG];
    match body {
        Body::Branch(b) => {
            if let (DstSlot::Reg(d), Form::Call) = (b.dst, form) {
                put_ctrl_reg(w, d.file, d.addr, dst_bits, Slot::Dst)?;
            }
            w.flag(t::SRC0_IS_IMM, true);
            match b.jump {
                Jump::Jip { jip } => w.signed(t::JIP, i64::from(jip), Field::Jump),
                Jump::JipUip { jip, uip } => {
                    w.signed(t::JIP, i64::from(jip), Field::Jump)?;
                    w.flag(t::SRC1_IS_IMM, true);
                    w.signed(t::UIP, i64::from(uip), Field::Jump)
                }
                Jump::Count { .. } => Err(EncodeError::NotCanonical { field: Field::Jump }),
            }
        }
        Body::Alu(a) => {
            if form == Form::Call {
                put_ctrl_reg(w, a.dst.file, a.dst.addr, dst_bits, Slot::Dst)?;
            }
            let Src::Reg(s) = &a.src0 else {
                return Err(bad(Field::File(Slot::Src0), 0));
            };
            put_ctrl_reg(w, s.file, s.addr, src_bits, Slot::Src0)
        }
        _ => Err(EncodeError::NotCanonical { field: Field::Body }),
    }
}

/// Writes a register's address: number, sub-register and file, or the
/// address sub-register and offset of an indirect GRF operand.
fn put_addr(
    w: &mut Writer,
    file: RegFile,
    addr: Addr,
    direct_bits: [Bits; 3],
    ia: (Bits, Bits, Bits),
    slot: Slot,
) -> EResult<()> {
    match addr {
        Addr::Direct { nr, subnr } => {
            w.flag(direct_bits[0], file_bit(file, slot)?);
            w.put(direct_bits[1], u64::from(nr), Field::Addr(slot))?;
            w.put(direct_bits[2], u64::from(subnr), Field::Addr(slot))
        }
        Addr::Indirect { addr_subnr, offset } => {
            if file != RegFile::Grf {
                return Err(bad(Field::File(slot), 0));
            }
            w.flag(ia.0, true);
            w.put(ia.1, u64::from(addr_subnr), Field::Addr(slot))?;
            w.signed(ia.2, i64::from(offset), Field::Addr(slot))
        }
    }
}

fn put_dst(w: &mut Writer, d: &Dst) -> EResult<()> {
    put_addr(
        w,
        d.file,
        d.addr,
        [t::DST_FILE, t::DST_NR, t::DST_SUBREG],
        (t::DST_ADDR_MODE, t::DST_IA_SUBREG, t::DST_IA_IMM),
        Slot::Dst,
    )?;
    w.put(
        t::DST_TYPE,
        ty_code(&t::REG_TYPES, d.ty, Slot::Dst)?,
        Field::Type(Slot::Dst),
    )?;
    w.put(
        t::DST_HSTRIDE,
        hs_code(d.hstride, Slot::Dst)?,
        Field::HStride,
    )
}

fn put_reg(w: &mut Writer, s: &RegSrc, b: &SrcBits) -> EResult<()> {
    let (vs, width, hstride) = match s.region {
        Region::Align1 {
            vstride,
            width,
            hstride,
        } => (
            code(&t::VSTRIDES, vstride).ok_or(bad(Field::Region(b.slot), i64::from(vstride)))?,
            width,
            hstride,
        ),
        // Only an indirect source decodes back to VxH (checked by encode).
        Region::VxH { width, hstride } => (t::VSTRIDE_VXH as u8, width, hstride),
        Region::Align16 { .. } => return Err(bad(Field::Region(b.slot), 0)),
    };
    put_addr(
        w,
        s.file,
        s.addr,
        [b.file, b.nr, b.subreg],
        (b.addr_mode, b.ia_subreg, b.ia_imm),
        b.slot,
    )?;
    w.put(
        b.ty,
        ty_code(&t::REG_TYPES, s.ty, b.slot)?,
        Field::Type(b.slot),
    )?;
    let wd = code(&t::WIDTHS, width).ok_or(bad(Field::Region(b.slot), i64::from(width)))?;
    w.put(b.vstride, u64::from(vs), Field::Region(b.slot))?;
    w.put(b.width, u64::from(wd), Field::Region(b.slot))?;
    w.put(b.hstride, hs_code(hstride, b.slot)?, Field::Region(b.slot))?;
    w.flag(b.abs, s.abs);
    w.flag(b.neg, s.negate);
    Ok(())
}

fn put_src0(w: &mut Writer, s: &Src) -> EResult<()> {
    match s {
        Src::Reg(r) => put_reg(w, r, &SRC0),
        Src::Imm(i) => {
            w.flag(t::SRC0_IS_IMM, true);
            w.put(
                t::SRC0_TYPE,
                ty_code(&t::IMM_TYPES, i.ty, Slot::Src0)?,
                Field::Type(Slot::Src0),
            )?;
            if i.ty.size() == 8 {
                w.put(t::IMM64_HI, i.bits >> 32, Field::Imm(Slot::Src0))?;
                w.put(t::IMM64_LO, i.bits & 0xFFFF_FFFF, Field::Imm(Slot::Src0))
            } else {
                w.put(t::IMM32, i.bits, Field::Imm(Slot::Src0))
            }
        }
        Src::Vacant(_) => Err(bad(Field::File(Slot::Src0), 0)),
    }
}

fn put_src1(w: &mut Writer, s: &Src) -> EResult<()> {
    match s {
        Src::Reg(r) => put_reg(w, r, &SRC1),
        Src::Imm(i) => {
            w.flag(t::SRC1_IS_IMM, true);
            w.put(
                t::SRC1_TYPE,
                ty_code(&t::IMM_TYPES, i.ty, Slot::Src1)?,
                Field::Type(Slot::Src1),
            )?;
            w.put(t::IMM32, i.bits, Field::Imm(Slot::Src1))
        }
        Src::Vacant(_) => Err(bad(Field::File(Slot::Src1), 0)),
    }
}

struct Three {
    ty: Bits,
    file: Bits,
    nr: Bits,
    subreg: Bits,
    hstride: Bits,
    vstride: Option<(Bits, Bits)>,
    abs: Bits,
    neg: Bits,
    imm: Option<(Bits, Bits)>,
}

fn put_three(w: &mut Writer, ts: &ThreeSrc) -> EResult<()> {
    let float = ts.dst.ty.is_float();
    w.flag(th::EXEC_TYPE, float);
    let types = three_types(float);
    let (nr, subnr) = direct(ts.dst.addr, Slot::Dst)?;
    w.flag(th::DST_FILE, file_bit(ts.dst.file, Slot::Dst)?);
    w.put(
        th::DST_TYPE,
        ty_code(types, ts.dst.ty, Slot::Dst)?,
        Field::Type(Slot::Dst),
    )?;
    w.put(th::DST_NR, u64::from(nr), Field::Addr(Slot::Dst))?;
    w.put(th::DST_SUBREG, u64::from(subnr), Field::Addr(Slot::Dst))?;
    match ts.dst.hstride {
        1 => {}
        2 => w.flag(th::DST_HSTRIDE, true),
        h => return Err(bad(Field::HStride, i64::from(h))),
    }
    let slots = [
        (
            Slot::Src0,
            Three {
                ty: th::SRC0_TYPE,
                file: th::SRC0_FILE,
                nr: th::SRC0_NR,
                subreg: th::SRC0_SUBREG,
                hstride: th::SRC0_HSTRIDE,
                vstride: Some((th::SRC0_VSTRIDE_HI, th::SRC0_VSTRIDE_LO)),
                abs: th::SRC0_ABS,
                neg: th::SRC0_NEG,
                imm: Some((th::SRC0_IS_IMM, th::SRC0_IMM)),
            },
        ),
        (
            Slot::Src1,
            Three {
                ty: th::SRC1_TYPE,
                file: th::SRC1_FILE,
                nr: th::SRC1_NR,
                subreg: th::SRC1_SUBREG,
                hstride: th::SRC1_HSTRIDE,
                vstride: Some((th::SRC1_VSTRIDE_HI, th::SRC1_VSTRIDE_LO)),
                abs: th::SRC1_ABS,
                neg: th::SRC1_NEG,
                imm: None,
            },
        ),
        (
            Slot::Src2,
            Three {
                ty: th::SRC2_TYPE,
                file: th::SRC2_FILE,
                nr: th::SRC2_NR,
                subreg: th::SRC2_SUBREG,
                hstride: th::SRC2_HSTRIDE,
                vstride: None,
                abs: th::SRC2_ABS,
                neg: th::SRC2_NEG,
                imm: Some((th::SRC2_IS_IMM, th::SRC2_IMM)),
            },
        ),
    ];
    for (src, (slot, f)) in ts.src.iter().zip(slots.iter()) {
        let slot = *slot;
        match src {
            Src::Imm(i) => {
                let Some((is_imm, bits)) = f.imm else {
                    return Err(bad(Field::File(slot), 0));
                };
                w.flag(is_imm, true);
                w.put(f.ty, ty_code(types, i.ty, slot)?, Field::Type(slot))?;
                w.put(bits, i.bits, Field::Imm(slot))?;
            }
            Src::Reg(r) => {
                let (nr, subnr) = direct(r.addr, slot)?;
                let Region::Align1 {
                    vstride, hstride, ..
                } = r.region
                else {
                    return Err(bad(Field::Region(slot), 0));
                };
                w.flag(f.file, file_bit(r.file, slot)?);
                w.put(f.ty, ty_code(types, r.ty, slot)?, Field::Type(slot))?;
                w.put(f.nr, u64::from(nr), Field::Addr(slot))?;
                w.put(f.subreg, u64::from(subnr), Field::Addr(slot))?;
                w.put(f.hstride, hs_code(hstride, slot)?, Field::Region(slot))?;
                if let Some((hi, lo)) = f.vstride {
                    let vs = th::VSTRIDES
                        .iter()
                        .position(|&v| v == vstride)
                        .ok_or(bad(Field::Region(slot), i64::from(vstride)))?;
                    w.flag(hi, vs & 2 != 0);
                    w.flag(lo, vs & 1 != 0);
                }
                w.flag(f.abs, r.abs);
                w.flag(f.neg, r.negate);
            }
            Src::Vacant(_) => return Err(bad(Field::File(slot), 0)),
        }
    }
    Ok(())
}

fn send_operand(s: &Src, slot: Slot) -> EResult<(bool, u8)> {
    match s {
        Src::Reg(r) => {
            let (nr, _) = direct(r.addr, slot)?;
            Ok((file_bit(r.file, slot)?, nr))
        }
        _ => Err(bad(Field::File(slot), 0)),
    }
}

fn put_send(w: &mut Writer, s: &Send) -> EResult<()> {
    w.flag(sd::EOT, s.eot);
    let (nr, _) = direct(s.dst.addr, Slot::Dst)?;
    w.flag(sd::DST_FILE, file_bit(s.dst.file, Slot::Dst)?);
    w.put(sd::DST_NR, u64::from(nr), Field::Addr(Slot::Dst))?;
    let (f0, n0) = send_operand(&s.src0, Slot::Src0)?;
    w.flag(sd::SRC0_FILE, f0);
    w.put(sd::SRC0_NR, u64::from(n0), Field::Addr(Slot::Src0))?;
    let src1 = s.src1.as_ref().ok_or(bad(Field::SplitSend, 0))?;
    let (f1, n1) = send_operand(src1, Slot::Src1)?;
    w.flag(sd::SRC1_FILE, f1);
    w.put(sd::SRC1_NR, u64::from(n1), Field::Addr(Slot::Src1))?;
    let sfid = s.sfid.ok_or(bad(Field::Sfid, 0))?;
    let sf = t::SFIDS
        .iter()
        .position(|(x, _)| *x == sfid)
        .ok_or(bad(Field::Sfid, 0))?;
    w.put(sd::SFID, sf as u64, Field::Sfid)?;
    match &s.desc {
        SendDesc::Reg(_) => w.flag(sd::DESC_IS_REG, true),
        SendDesc::Imm { desc, .. } => {
            let d = desc_word(desc)?;
            for (b, lo) in sd::DESC {
                w.put(b, u64::from(d >> lo) & ((1 << b.width()) - 1), Field::Desc)?;
            }
        }
    }
    match s.ex_desc {
        Some(ExDesc::Imm(ex)) => {
            if ex & 0x3F != 0 {
                return Err(bad(Field::SplitSend, i64::from(ex)));
            }
            w.put(sd::SRC1_LEN, u64::from((ex >> 6) & 0x1F), Field::SplitSend)?;
            for (b, lo) in sd::EX_DESC {
                w.put(
                    b,
                    u64::from(ex >> lo) & ((1 << b.width()) - 1),
                    Field::SplitSend,
                )?;
            }
            Ok(())
        }
        Some(ExDesc::Reg { subnr, src1_len }) => {
            w.flag(sd::EX_DESC_IS_REG, true);
            w.put(sd::EX_DESC_SUBREG, u64::from(subnr), Field::SplitSend)?;
            if let Some(len) = src1_len {
                w.flag(sd::EX_BSO, true);
                w.put(sd::SRC1_LEN, u64::from(len), Field::SplitSend)?;
            }
            Ok(())
        }
        None => Err(bad(Field::SplitSend, 0)),
    }
}
