//! gen4asm branches and `jmpi`. Its jump operands count 16-byte
//! instructions on every generation; it takes no `{...}` options on a
//! branch and fills the other fields itself, so a branch prints only when
//! those fields are what it writes (learnt by assembling each form):
//!
//! * Gen4/G45 `if`, `else`, `while`: source `ip`, destination `ip` (`while`:
//!   null with stride 0), thread control Switch; `else` pops 1; `while` is
//!   always SIMD1. No branch is compressed, not even SIMD16. `break`/`cont`
//!   take a pop count and all-zero operand fields. `endif` is refused by
//!   its parser in every form tried.
//! * Gen6 `if`, `else`, `endif`, `while`: JIP in the destination, all other
//!   operand bits zero; `if` is always SIMD1 and not predicable ("IF should
//!   be 'IF execsize relativelocation'").
//! * Gen6 `break`/`cont`/`halt` and every Gen7 branch: JIP and UIP in DW3,
//!   operands zero except `halt`'s destination stride 1; Gen7 `else`,
//!   `endif`, `while` take the JIP only.

use alloc::string::String;
use core::fmt::Write;

use super::{predicate, src};
use crate::generation::IsaGen;
use crate::inst::{
    Body, Branch, Compression, Dst, DstSlot, GroupCtrl, Instruction, Jump, Opcode, PredCtrl,
    RegFile, RegSrc, Region, Src, ThreadCtrl, Type, Vacant, arf,
};
use crate::tables;

const SCALAR: Region = Region::Align1 {
    vstride: 0,
    width: 1,
    hstride: 0,
};

/// The fields of `inst` that gen4asm's branch syntax leaves to it.
fn plain(inst: &Instruction) -> bool {
    // It writes no compression, not even for SIMD16.
    let first_group = matches!(
        inst.group,
        GroupCtrl::Compression(Compression::None) | GroupCtrl::Quarter { qtr: 0, nib: false }
    );
    first_group
        && !inst.no_mask
        && !inst.no_dd_clr
        && !inst.no_dd_chk
        && !inst.debug
        && !inst.saturate
        && inst.cond_mod == crate::inst::CondMod::None
        && inst.access_mode == crate::inst::AccessMode::Align1
}

/// `jmpi N;` (N instructions after the next) or `jmpi g1<0,1,0>D;`.
pub(super) fn jmpi(p: IsaGen, inst: &Instruction) -> Option<String> {
    let Body::Alu(a) = &inst.body else {
        return None;
    };
    let ip_dst = Dst::new(RegFile::Arf, arf::IP, 0, Type::Ud, 1);
    let ip_src = Src::Reg(RegSrc::new(RegFile::Arf, arf::IP, 0, Type::Ud, SCALAR));
    if !plain(inst)
        || inst.exec_size != 1
        || inst.thread_ctrl != ThreadCtrl::Normal
        || a.dst != ip_dst
        || a.src0 != ip_src
    {
        return None;
    }
    let mut s = String::new();
    predicate(&mut s, inst)?;
    if inst.pred_ctrl == PredCtrl::None && inst.flag != Default::default() {
        return None;
    }
    s.push_str("jmpi ");
    match &a.src1 {
        Src::Imm(imm) if imm.ty == Type::D => {
            // It writes (N - 1) in jmpi units of 16 bytes (Gen4) or 8.
            let per = 16 / i64::from(tables::for_platform(p).jmpi_unit);
            let v = i64::from(imm.bits as u32 as i32);
            // `jmpi 0` assembles to 0 rather than -1 (tried): left out.
            if v % per != 0 || v == -per {
                return None;
            }
            write!(s, "{}", v / per + 1).ok()?;
        }
        other => src(p, &mut s, other, 1)?,
    }
    s.push(';');
    Some(s)
}

fn null_dst(hstride: u8) -> Dst {
    Dst::new(RegFile::Arf, arf::NULL, 0, Type::Ud, hstride)
}

fn null_src() -> Src {
    Src::Reg(RegSrc::new(RegFile::Arf, arf::NULL, 0, Type::Ud, SCALAR))
}

/// A branch, when its implicit fields are those gen4asm writes.
pub(super) fn branch(p: IsaGen, inst: &Instruction, b: &Branch) -> Option<String> {
    if !plain(inst) {
        return None;
    }
    let op = inst.opcode;
    let gen4 = p < IsaGen::Gen6;
    let vacant_ud = Src::Vacant(Vacant {
        file: RegFile::Arf,
        ty: Type::Ud,
    });
    // (expected dst, src0, src1, thread control, operands text)
    let (dst, src0, src1, thread, text) = match b.jump {
        Jump::Count { jump, pop } if gen4 => {
            let n = jump / 16;
            if jump % 16 != 0 {
                return None;
            }
            match op {
                Opcode::If | Opcode::Else | Opcode::While => {
                    let want_pop = u8::from(op == Opcode::Else);
                    if pop != want_pop || (op == Opcode::While && inst.exec_size != 1) {
                        return None;
                    }
                    let ip = RegSrc::new(RegFile::Arf, arf::IP, 0, Type::Ud, SCALAR);
                    let dst = if op == Opcode::While {
                        null_dst(0)
                    } else {
                        Dst::new(RegFile::Arf, arf::IP, 0, Type::Ud, 1)
                    };
                    (
                        DstSlot::Reg(dst),
                        Src::Reg(ip),
                        Src::Vacant(Vacant {
                            file: RegFile::Imm,
                            ty: Type::D,
                        }),
                        ThreadCtrl::Switch,
                        alloc::format!("{n}"),
                    )
                }
                Opcode::Break | Opcode::Cont => (
                    DstSlot::Reg(null_dst(0)),
                    null_src(),
                    vacant_ud,
                    ThreadCtrl::Normal,
                    alloc::format!("{n} {pop}"),
                ),
                _ => return None,
            }
        }
        Jump::Jip { jip } if !gen4 => {
            if jip % 16 != 0
                || !matches!(
                    op,
                    Opcode::If | Opcode::Else | Opcode::Endif | Opcode::While
                )
                || (op == Opcode::If && (inst.exec_size != 1 || inst.pred_ctrl != PredCtrl::None))
            {
                return None;
            }
            (
                DstSlot::Vacant(Vacant {
                    file: RegFile::Arf,
                    ty: Type::Ud,
                }),
                null_src(),
                null_src(),
                ThreadCtrl::Normal,
                alloc::format!("{}", jip / 16),
            )
        }
        Jump::JipUip { jip, uip } if !gen4 => {
            if jip % 16 != 0 || uip % 16 != 0 {
                return None;
            }
            let text = match op {
                Opcode::Else | Opcode::Endif | Opcode::While if uip == 0 => {
                    alloc::format!("{}", jip / 16)
                }
                // Gen6 `halt N 0` is written in the one-offset form (JIP in
                // the destination: tried), so it is left out.
                Opcode::Halt if uip == 0 && p == IsaGen::Gen6 => return None,
                Opcode::If | Opcode::Break | Opcode::Cont | Opcode::Halt => {
                    alloc::format!("{} {}", jip / 16, uip / 16)
                }
                _ => return None,
            };
            let hs = u8::from(op == Opcode::Halt);
            (
                DstSlot::Reg(null_dst(hs)),
                null_src(),
                vacant_ud,
                ThreadCtrl::Normal,
                text,
            )
        }
        _ => return None,
    };
    if b.dst != dst || b.src0 != src0 || b.src1 != src1 || inst.thread_ctrl != thread {
        return None;
    }
    // "syntax error at else/endif" after a predicate, on every generation.
    if matches!(op, Opcode::Else | Opcode::Endif) && inst.pred_ctrl != PredCtrl::None {
        return None;
    }
    let mut s = String::new();
    predicate(&mut s, inst)?;
    if inst.pred_ctrl == PredCtrl::None && inst.flag != Default::default() {
        return None;
    }
    write!(s, "{} ({}) {text};", op.mnemonic(), inst.exec_size).ok()?;
    Some(s)
}
