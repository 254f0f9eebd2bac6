//! A printer of the syntax of `intel-gen4asm` (intel-gpu-tools), used to
//! check our encoder against that assembler on Gen4 to Gen7:
//!
//! ```text
//! (-f0.1.any4h) add.l.f0.1.sat (8) g1.2<1>F -g2<8,8,1>F (abs)g3.1<0,1,0>F { align1 NoDDClr };
//! add (8) g1<1>.xyF g2.16<4,4,1>.yxzwF g3<0,4,1>.xxxxF { align16 };
//! math (8) g1<1>F g2<8,8,1>F null inv { align1 };
//! send (8) 1 g4<1>UD g0<0,1,0>UD read (3, 0, 2, 1) mlen 1 rlen 1 { align1 };
//! break (8) 3 5;
//! ```
//!
//! Only the forms that assembler reads back are printed; [`print`] returns
//! `None` for the others. What each form leaves out, with the reason (the
//! tool's behaviour when tried):
//!
//! * ARF registers other than null/acc/a0/f/sr0; UV immediates (its lexer
//!   has no `UV`); float immediates that are not finite (decimal parser);
//!   a predicate and condition modifier on different flags (one field);
//!   source rows wider than the execution size (`validate_reg` aborts);
//!   AccWrEn and MaskCtrlEx (no option names); fields its syntax cannot
//!   state (the unused source of one-source instructions must be what it
//!   writes).
//! * Align16: sub-registers other than 0 and 16 bytes (it drops the rest),
//!   an empty write mask, indirect operands, the predicate `.z` ("syntax
//!   error at .z"; `.x`, `.y`, `.w` assemble).
//! * `math` (Gen6+): `(sat)` and condition modifiers ("syntax error at
//!   .sat"), `fdiv` (not a function name it knows).
//! * Three-source: a flag other than f0.0 (it writes no flag fields), a
//!   destination sub-register (it writes the byte offset divided by 16 into
//!   the dword field: `g1.16` assembles as 4 bytes), a replicated source
//!   whose swizzle is not `.xxxx` (asserts in `get_3src_subreg_nr`).
//! * Sends: only the message targets of `send` with the fields their
//!   syntax sets; it has no raw descriptor form ("syntax error at 0x..").
//! * Branches take no `{...}` options at all ("syntax error at {").

mod flow;
mod send;

use alloc::string::String;
use core::fmt::Write;

use crate::generation::IsaGen;
use crate::inst::{
    AccessMode, Addr, Body, Compression, CondMod, Dst, GroupCtrl, Imm, Instruction, Math, MathFn,
    Opcode, PredCtrl, RegFile, RegSrc, Region, Src, Swizzle, ThreadCtrl, ThreeSrc, Type, Vacant,
};
use crate::tables::{self, ArfKind};

/// Prints `inst` in gen4asm syntax, or `None` if that syntax cannot state it.
pub fn print(p: IsaGen, inst: &Instruction) -> Option<String> {
    if inst.mask_ctrl_ex || inst.acc_wr_ctrl {
        return None;
    }
    match &inst.body {
        Body::Alu(_) if inst.opcode == Opcode::Jmpi => flow::jmpi(p, inst),
        Body::Alu(_) => alu(p, inst),
        Body::Math(m) => math(p, inst, m),
        Body::ThreeSrc(t) => three(p, inst, t),
        Body::Send(s) => send::send(p, inst, s),
        Body::Branch(b) => flow::branch(p, inst, b),
        // Gen12.5 only; gen4asm has no such instruction.
        Body::Sync(_) | Body::Bfn(_) | Body::Dpas(_) => None,
    }
}

/// `(-f0.1.any4h) ` before the mnemonic.
fn predicate(s: &mut String, inst: &Instruction) -> Option<()> {
    if inst.pred_ctrl == PredCtrl::None {
        return if inst.pred_inv { None } else { Some(()) };
    }
    let a16 = inst.access_mode == AccessMode::Align16;
    let suffix = match (inst.pred_ctrl, a16) {
        (PredCtrl::Normal, _) => "",
        (PredCtrl::AnyV, false) => ".anyv",
        (PredCtrl::AllV, false) => ".allv",
        (PredCtrl::Any2H, false) => ".any2h",
        (PredCtrl::All2H, false) => ".all2h",
        (PredCtrl::Any4H, _) => ".any4h",
        (PredCtrl::All4H, _) => ".all4h",
        (PredCtrl::Any8H, false) => ".any8h",
        (PredCtrl::All8H, false) => ".all8h",
        (PredCtrl::Any16H, false) => ".any16h",
        (PredCtrl::All16H, false) => ".all16h",
        (PredCtrl::X, true) => ".x",
        (PredCtrl::Y, true) => ".y",
        (PredCtrl::W, true) => ".w",
        _ => return None,
    };
    let sign = if inst.pred_inv { "-" } else { "" };
    write!(
        s,
        "({sign}f{}.{}{suffix}) ",
        inst.flag.reg, inst.flag.subreg
    )
    .ok()
}

/// `.l.f0.1` after the mnemonic; also rejects a flag no field names.
fn cond(s: &mut String, inst: &Instruction) -> Option<()> {
    if inst.cond_mod != CondMod::None {
        let c = match inst.cond_mod {
            CondMod::Z => "z",
            CondMod::Nz => "nz",
            CondMod::G => "g",
            CondMod::Ge => "ge",
            CondMod::L => "l",
            CondMod::Le => "le",
            CondMod::O => "o",
            CondMod::U => "u",
            _ => return None,
        };
        write!(s, ".{c}.f{}.{}", inst.flag.reg, inst.flag.subreg).ok()?;
    }
    if inst.pred_ctrl == PredCtrl::None
        && inst.cond_mod == CondMod::None
        && inst.flag != Default::default()
    {
        return None;
    }
    Some(())
}

/// ` { align1 nomask ... };` with `extra` options (EOT) at the end. With
/// `no_group` the instruction must cover the first channels: gen4asm
/// ignores `compr` and `sechalf` on sends and writes neither.
fn options(s: &mut String, inst: &Instruction, extra: &str, no_group: bool) -> Option<()> {
    s.push_str(match inst.access_mode {
        AccessMode::Align1 => " { align1",
        AccessMode::Align16 => " { align16",
    });
    if inst.no_mask {
        s.push_str(" nomask");
    }
    let first = matches!(
        inst.group,
        GroupCtrl::Compression(Compression::None) | GroupCtrl::Quarter { qtr: 0, nib: false }
    );
    match inst.group {
        _ if no_group => {
            if !first {
                return None;
            }
        }
        GroupCtrl::Compression(Compression::None) if inst.exec_size == 16 => return None,
        GroupCtrl::Compression(Compression::None) | GroupCtrl::Quarter { qtr: 0, nib: false } => {}
        GroupCtrl::Compression(Compression::SecHalf)
        | GroupCtrl::Quarter { qtr: 1, nib: false } => s.push_str(" sechalf"),
        // gen4asm compresses every SIMD16 instruction on Gen4/G45.
        GroupCtrl::Compression(Compression::Compressed) if inst.exec_size == 16 => {
            s.push_str(" compr")
        }
        _ => return None,
    }
    match inst.thread_ctrl {
        ThreadCtrl::Normal => {}
        ThreadCtrl::Atomic => s.push_str(" atomic"),
        ThreadCtrl::Switch => s.push_str(" switch"),
    }
    if inst.no_dd_clr {
        s.push_str(" NoDDClr");
    }
    if inst.no_dd_chk {
        s.push_str(" NoDDChk");
    }
    if inst.debug {
        s.push_str(" breakpoint");
    }
    s.push_str(extra);
    s.push_str(" };");
    Some(())
}

/// What gen4asm writes in the source slot a one-source instruction leaves
/// unused: nothing after an immediate (the slot holds its upper bits),
/// else zeros, which read as null:UD with a scalar region.
fn unused_src1(src0: &Src, a16: bool) -> Src {
    let region = if a16 {
        Region::Align16 {
            vstride: 0,
            swizzle: Swizzle::XXXX,
        }
    } else {
        Region::Align1 {
            vstride: 0,
            width: 1,
            hstride: 0,
        }
    };
    match src0 {
        Src::Imm(_) => Src::Vacant(Vacant {
            file: RegFile::Arf,
            ty: Type::Ud,
        }),
        _ => Src::Reg(RegSrc::new(RegFile::Arf, 0, 0, Type::Ud, region)),
    }
}

fn alu(p: IsaGen, inst: &Instruction) -> Option<String> {
    let Body::Alu(a) = &inst.body else {
        return None;
    };
    let info = tables::for_platform(p).opcode_info(inst.opcode)?;
    if matches!(inst.opcode, Opcode::Wait | Opcode::Nop) || info.srcs == 0 {
        return None;
    }
    let a16 = inst.access_mode == AccessMode::Align16;
    let mut s = String::new();
    predicate(&mut s, inst)?;
    s.push_str(inst.opcode.mnemonic());
    cond(&mut s, inst)?;
    if inst.saturate {
        s.push_str(".sat");
    }
    write!(s, " ({}) ", inst.exec_size).ok()?;
    dst(p, &mut s, &a.dst, a16)?;
    s.push(' ');
    src(p, &mut s, &a.src0, inst.exec_size)?;
    if info.srcs >= 2 {
        s.push(' ');
        src(p, &mut s, &a.src1, inst.exec_size)?;
    } else if a.src1 != unused_src1(&a.src0, a16) {
        return None;
    }
    options(&mut s, inst, "", false)?;
    Some(s)
}

/// Gen6+ `math (8) dst src0 src1|null fn`.
fn math(p: IsaGen, inst: &Instruction, m: &Math) -> Option<String> {
    let f = match m.function {
        MathFn::Inv => "inv",
        MathFn::Log => "log",
        MathFn::Exp => "exp",
        MathFn::Sqrt => "sqrt",
        MathFn::Rsq => "rsq",
        MathFn::Sin => "sin",
        MathFn::Cos => "cos",
        MathFn::Pow => "pow",
        MathFn::IntDivQuotient => "intdiv",
        MathFn::IntDivRemainder => "intmod",
        MathFn::IntDivQuotientRemainder => "intdivmod",
        _ => return None,
    };
    if inst.saturate || inst.cond_mod != CondMod::None {
        return None;
    }
    let a16 = inst.access_mode == AccessMode::Align16;
    let mut s = String::new();
    predicate(&mut s, inst)?;
    s.push_str("math");
    cond(&mut s, inst)?;
    write!(s, " ({}) ", inst.exec_size).ok()?;
    dst(p, &mut s, &m.dst, a16)?;
    s.push(' ');
    src(p, &mut s, &m.src0, inst.exec_size)?;
    s.push(' ');
    let binary = matches!(
        m.function,
        MathFn::Pow
            | MathFn::IntDivQuotient
            | MathFn::IntDivRemainder
            | MathFn::IntDivQuotientRemainder
    );
    if binary {
        src(p, &mut s, &m.src1, inst.exec_size)?;
    } else {
        // Its null operand: scalar in Align1, `.xyzw` in Align16.
        let region = if a16 {
            Region::Align16 {
                vstride: 0,
                swizzle: Swizzle::XYZW,
            }
        } else {
            Region::Align1 {
                vstride: 0,
                width: 1,
                hstride: 0,
            }
        };
        if m.src1 != Src::Reg(RegSrc::new(RegFile::Arf, 0, 0, Type::Ud, region)) {
            return None;
        }
        s.push_str("null");
    }
    write!(s, " {f}").ok()?;
    options(&mut s, inst, "", false)?;
    Some(s)
}

/// Gen6/Gen7 three-source instructions (always Align16).
fn three(p: IsaGen, inst: &Instruction, t: &ThreeSrc) -> Option<String> {
    if inst.flag != Default::default() {
        return None;
    }
    if !matches!(t.dst.addr, Addr::Direct { subnr: 0, .. }) {
        return None;
    }
    let mut s = String::new();
    predicate(&mut s, inst)?;
    s.push_str(inst.opcode.mnemonic());
    cond(&mut s, inst)?;
    if inst.saturate {
        s.push_str(".sat");
    }
    write!(s, " ({}) ", inst.exec_size).ok()?;
    dst(p, &mut s, &t.dst, true)?;
    for x in &t.src {
        s.push(' ');
        let Src::Reg(r) = x else {
            return None;
        };
        let Region::Align16 { vstride, swizzle } = r.region else {
            return None;
        };
        let Addr::Direct { nr, subnr } = r.addr else {
            return None;
        };
        if r.file != RegFile::Grf || !subnr.is_multiple_of(4) {
            return None;
        }
        modifiers(&mut s, r);
        match vstride {
            0 if swizzle == Swizzle::XXXX => write!(s, "g{nr}.{subnr}<0,1,0>.x").ok()?,
            4 => {
                write!(s, "g{nr}.{subnr}<4,4,1>").ok()?;
                swizzle_text(&mut s, swizzle);
            }
            _ => return None,
        }
        s.push_str(ty(r.ty)?);
    }
    options(&mut s, inst, "", false)?;
    Some(s)
}

fn ty(t: Type) -> Option<&'static str> {
    Some(match t {
        Type::Ud => "UD",
        Type::D => "D",
        Type::Uw => "UW",
        Type::W => "W",
        Type::Ub => "UB",
        Type::B => "B",
        Type::F => "F",
        Type::V => "V",
        Type::Vf => "VF",
        _ => return None,
    })
}

fn swizzle_text(s: &mut String, sw: Swizzle) {
    s.push('.');
    for i in 0..4 {
        s.push(['x', 'y', 'z', 'w'][usize::from(sw.component(i))]);
    }
}

fn modifiers(s: &mut String, r: &RegSrc) {
    if r.negate {
        s.push('-');
    }
    if r.abs {
        s.push_str("(abs)");
    }
}

fn reg(p: IsaGen, s: &mut String, file: RegFile, addr: &Addr) -> Option<()> {
    match *addr {
        Addr::Direct { nr, subnr: sub } => {
            // gen4asm reads the number after the dot as the byte offset.
            match file {
                RegFile::Grf => write!(s, "g{nr}").ok()?,
                RegFile::Mrf => write!(s, "m{nr}").ok()?,
                RegFile::Arf => {
                    let name = match tables::for_platform(p).arf_kind(nr)? {
                        ArfKind::Null if nr == 0 && sub == 0 => "null",
                        ArfKind::Address => "a",
                        ArfKind::Accumulator => "acc",
                        ArfKind::Flag => "f",
                        ArfKind::State => "sr",
                        _ => return None,
                    };
                    s.push_str(name);
                    if name == "null" {
                        return Some(());
                    }
                    write!(s, "{}", nr & 0xF).ok()?;
                }
                RegFile::Imm => return None,
            }
            if sub != 0
                || (file == RegFile::Arf
                    && matches!(
                        tables::for_platform(p).arf_kind(nr),
                        Some(ArfKind::Address | ArfKind::Flag | ArfKind::State)
                    ))
            {
                write!(s, ".{sub}").ok()?;
            }
        }
        Addr::Indirect { addr_subnr, offset } => {
            let f = match file {
                RegFile::Grf => "g",
                _ => return None,
            };
            if offset == 0 {
                write!(s, "{f}[a0.{addr_subnr}]").ok()?;
            } else {
                write!(s, "{f}[a0.{addr_subnr},{offset}]").ok()?;
            }
        }
    }
    Some(())
}

/// Align16 operands may start at byte 0 or 16 only (gen4asm drops the rest).
fn align16_addr_ok(file: RegFile, addr: &Addr) -> bool {
    match addr {
        Addr::Direct { subnr, .. } => *subnr == 0 || (*subnr == 16 && file != RegFile::Arf),
        Addr::Indirect { .. } => false,
    }
}

fn dst(p: IsaGen, s: &mut String, d: &Dst, a16: bool) -> Option<()> {
    if a16 {
        // It writes stride 1 and the mask it is given; no mask is not
        // expressible.
        if d.hstride != 1 || d.writemask == 0 || !align16_addr_ok(d.file, &d.addr) {
            return None;
        }
        reg(p, s, d.file, &d.addr)?;
        s.push_str("<1>");
        if d.writemask != 0xF {
            s.push('.');
            for (bit, c) in ['x', 'y', 'z', 'w'].into_iter().enumerate() {
                if d.writemask & (1 << bit) != 0 {
                    s.push(c);
                }
            }
        }
        return write!(s, "{}", ty(d.ty)?).ok();
    }
    // gen4asm asserts that a strided destination spans 2 bytes per element.
    if d.hstride > 1 && u32::from(d.hstride) * u32::from(d.ty.size()) != 2 {
        return None;
    }
    reg(p, s, d.file, &d.addr)?;
    write!(s, "<{}>{}", d.hstride, ty(d.ty)?).ok()
}

fn src(p: IsaGen, s: &mut String, x: &Src, exec_size: u8) -> Option<()> {
    match x {
        Src::Imm(imm) => self::imm(s, imm),
        Src::Vacant(_) => None,
        Src::Reg(r) => {
            modifiers(s, r);
            match r.region {
                Region::Align1 {
                    vstride,
                    width,
                    hstride,
                } => {
                    // gen4asm asserts (aborts) on a row wider than the
                    // execution size.
                    if width > exec_size {
                        return None;
                    }
                    reg(p, s, r.file, &r.addr)?;
                    write!(s, "<{vstride},{width},{hstride}>").ok()?;
                }
                Region::VxH { width, hstride } => {
                    if width > exec_size {
                        return None;
                    }
                    reg(p, s, r.file, &r.addr)?;
                    write!(s, "<{width},{hstride}>").ok()?;
                }
                Region::Align16 { vstride, swizzle } => {
                    if !matches!(vstride, 0 | 4) || !align16_addr_ok(r.file, &r.addr) {
                        return None;
                    }
                    reg(p, s, r.file, &r.addr)?;
                    write!(s, "<{vstride},4,1>").ok()?;
                    swizzle_text(s, swizzle);
                }
            }
            s.push_str(ty(r.ty)?);
            Some(())
        }
    }
}

fn imm(s: &mut String, imm: &Imm) -> Option<()> {
    let b = imm.bits as u32;
    match imm.ty {
        Type::D => write!(s, "{}D", b as i32).ok(),
        Type::Ud => write!(s, "{b:#x}UD").ok(),
        Type::W | Type::Uw if b >> 16 != b & 0xFFFF => None,
        Type::W => write!(s, "{}W", b as u16 as i16).ok(),
        Type::Uw => write!(s, "{}UW", b as u16).ok(),
        Type::F => {
            let f = f32::from_bits(b);
            if !f.is_finite() || (f == 0.0 && f.is_sign_negative()) {
                return None;
            }
            // Plain decimal (its lexer has no exponents), always with a point.
            let mut t = alloc::format!("{f}");
            if !t.contains('.') {
                t.push_str(".0");
            }
            write!(s, "{t}F").ok()
        }
        Type::V => write!(s, "{b:#x}V").ok(),
        Type::Vf => write!(s, "{b:#x}VF").ok(),
        _ => None,
    }
}
