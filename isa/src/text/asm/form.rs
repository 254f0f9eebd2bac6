//! Instruction forms: the operands each layout (ALU, math, three-source,
//! branch) takes and the implicit fields it fills in; sends are in
//! [`super::send`].

use super::super::jumps;
use super::super::parse::{Line, Opnd, SlotName, SlotValue, Target};
use super::operand::{Ctx, SCALAR, null_src};
use super::options::{Options, exec_group, flags};
use super::{Refs, Res, Storage, Which, err};
use crate::compact;
use crate::generation::IsaGen;
use crate::inst::{
    AccessMode, Addr, Alu, Body, Branch, Dst, DstSlot, Imm, Instruction, Jump, Math, Opcode,
    RegFile, RegSrc, Region, Src, Swizzle, ThreadCtrl, ThreeSrc, Type, Vacant, arf,
};
use crate::tables::{self, JumpLayout, Layout};

/// What a layout builder produces: the body, the `(sat)` written on its
/// destination, and how many operands it used (more is an error).
pub(super) struct Form {
    pub body: Body,
    pub saturate: bool,
    pub used: usize,
}

/// Builds the instruction of a parsed line; label references are returned
/// for the caller to resolve.
pub(crate) fn build(p: IsaGen, l: &Line, line: usize) -> Res<(Instruction, Storage, Refs)> {
    let t = tables::for_platform(p);
    let Some(opcode) = Opcode::from_mnemonic(&l.mnemonic) else {
        return err(
            line,
            l.mnemonic_col,
            alloc::format!("unknown mnemonic '{}'", l.mnemonic),
        );
    };
    let Some(info) = t.opcode_info(opcode) else {
        return err(
            line,
            l.mnemonic_col,
            alloc::format!("{} does not exist on {p}", l.mnemonic),
        );
    };
    let opts = Options::read(l, line)?;
    // Only a send has an EOT bit (in its descriptor); dropping the option
    // would silently change what the program does.
    if opts.eot && info.layout != Layout::Send {
        let col = l
            .options
            .iter()
            .find(|(n, _)| n == "EOT")
            .map_or(l.mnemonic_col, |(_, c)| *c);
        return err(
            line,
            col,
            alloc::format!(
                "{{EOT}} ends a thread only on send/sendc, not {}",
                l.mnemonic
            ),
        );
    }
    let a16 = opts.align16 || info.layout == Layout::ThreeSrc;
    let (exec_size, group) = exec_group(p, l, line, opcode, opts.compr)?;
    let (flag, pred_ctrl, pred_inv, cond_mod) = flags(l, line)?;
    let cx = Ctx { line, l, a16 };
    let mut refs = Refs::new();
    let mut form = match info.layout {
        Layout::Alu => alu(p, &cx, opcode, info.srcs, &mut refs)?,
        Layout::Math => math(&cx)?,
        Layout::ThreeSrc => three(&cx)?,
        Layout::Send => super::send::send(p, &cx, opts.eot)?,
        Layout::Branch(layout) => branch(&cx, opcode, layout, &mut refs)?,
    };
    explicit_slots(&cx, opcode, form.used, &mut form.body)?;
    if let Some(extra) = l.operands.get(form.used) {
        return cx.e(
            col_of(extra),
            alloc::format!("{} takes {} operands", l.mnemonic, form.used),
        );
    }
    let inst = Instruction {
        opcode,
        exec_size,
        access_mode: if a16 {
            AccessMode::Align16
        } else {
            AccessMode::Align1
        },
        no_mask: l.no_mask || opts.no_mask,
        mask_ctrl_ex: opts.mask_ex,
        acc_wr_ctrl: opts.acc_wr,
        no_dd_clr: opts.no_dd_clr,
        no_dd_chk: opts.no_dd_chk,
        group,
        thread_ctrl: opts.thread.unwrap_or(ThreadCtrl::Normal),
        pred_ctrl,
        pred_inv,
        flag,
        cond_mod,
        saturate: form.saturate,
        debug: opts.debug,
        swsb: None,
        body: form.body,
    };
    let storage = match (opts.compacted, opts.uncompacted) {
        (true, _) => Storage::Compact,
        (_, true) => Storage::Native,
        _ => Storage::Auto,
    };
    let inst = match storage {
        Storage::Compact => compact_nop(p, inst).unwrap_or(inst),
        _ => inst,
    };
    Ok((inst, storage, refs))
}

/// Writes the slots given as `dst=`, `src0=`, `src1=` over the ones the form
/// filled in implicitly; a slot the line already wrote as an operand (of
/// `used`) may not be given again.
fn explicit_slots(cx: &Ctx, opcode: Opcode, used: usize, body: &mut Body) -> Res<()> {
    // Slots written as operands: dst, src0, src1.
    let written = match (&*body, opcode) {
        (Body::Alu(_), Opcode::Nop) | (Body::Branch(_), _) => [false; 3],
        (Body::Alu(_), Opcode::Jmpi) => [false, false, true],
        (Body::Alu(_), Opcode::Call) => [true, false, true],
        (Body::Alu(_), Opcode::Wait) => [false, true, false],
        _ => [true, true, used >= 3],
    };
    let def = if cx.a16 {
        Region::Align16 {
            vstride: 4,
            swizzle: Swizzle::XYZW,
        }
    } else {
        SCALAR
    };
    for e in &cx.l.explicit {
        let k = match e.slot {
            SlotName::Dst => 0,
            SlotName::Src0 => 1,
            SlotName::Src1 => 2,
        };
        if written[k] {
            return cx.e(e.col, "this slot is written as an operand already");
        }
        let src = || -> Res<Src> {
            match &e.value {
                SlotValue::Vacant(file, ty) => Ok(Src::Vacant(Vacant {
                    file: *file,
                    ty: *ty,
                })),
                SlotValue::Opnd(o) => cx.src(o, None, def),
            }
        };
        let dst = || -> Res<Dst> {
            match &e.value {
                SlotValue::Opnd(o) => match cx.dst(o, false)? {
                    (_, true) => cx.e(e.col, "(sat) is written on the destination operand"),
                    (d, false) => Ok(d),
                },
                SlotValue::Vacant(..) => cx.e(e.col, "this destination is a register"),
            }
        };
        let (d, s0, s1) = match body {
            Body::Alu(a) => (DstRef::Reg(&mut a.dst), &mut a.src0, &mut a.src1),
            Body::Math(m) => (DstRef::Reg(&mut m.dst), &mut m.src0, &mut m.src1),
            Body::Branch(b) => (DstRef::Slot(&mut b.dst), &mut b.src0, &mut b.src1),
            _ => {
                return cx.e(
                    e.col,
                    "sends and three-source instructions write every slot",
                );
            }
        };
        match (e.slot, d) {
            (SlotName::Dst, DstRef::Reg(d)) => *d = dst()?,
            (SlotName::Dst, DstRef::Slot(d)) => {
                *d = match &e.value {
                    SlotValue::Vacant(file, ty) => DstSlot::Vacant(Vacant {
                        file: *file,
                        ty: *ty,
                    }),
                    SlotValue::Opnd(_) => DstSlot::Reg(dst()?),
                }
            }
            (SlotName::Src0, _) => *s0 = src()?,
            (SlotName::Src1, _) => *s1 = src()?,
        }
    }
    Ok(())
}

/// A destination slot that may be vacant (branches) or not.
enum DstRef<'a> {
    Reg(&'a mut Dst),
    Slot(&'a mut DstSlot),
}

/// `nop {Compacted}` where the written nop has no compact form (Gen6+:
/// its null operands are in no compaction table): the compact NOP with
/// every table index 0, the padding `layout` inserts before an EOT send,
/// as Mesa does ([ext: Mesa brw_eu_compact.c]). A nop's operands do
/// nothing; this one has those the index-0 entries hold, so its text
/// reads back to the same word. `None` unless the line is a plain nop
/// with the controls that word has.
fn compact_nop(p: IsaGen, written: Instruction) -> Option<Instruction> {
    if written.opcode != Opcode::Nop || compact::tables(p).is_none() {
        return None;
    }
    let native = crate::codec::encode(p, &written).ok()?;
    if compact::compact(p, crate::codec::to_dwords(native)).is_some() {
        return None;
    }
    let pad = compact::uncompact(p, super::layout::NOP).ok()?;
    let pad = crate::codec::decode(p, crate::codec::from_dwords(pad)).ok()?;
    let same_controls = Instruction {
        body: written.body,
        ..pad
    } == written;
    same_controls.then_some(pad)
}

/// The column an operand starts at, for errors.
pub(super) fn col_of(o: &Opnd) -> usize {
    match o {
        Opnd::Reg(r) => r.col,
        Opnd::Imm { col, .. }
        | Opnd::Target { col, .. }
        | Opnd::Pop { col, .. }
        | Opnd::Message { col, .. } => *col,
    }
}

/// One- and two-source instructions, with the operand-less `nop`, `jmpi`
/// (a target or a register) and `wait` (one notification register).
fn alu(p: IsaGen, cx: &Ctx, opcode: Opcode, srcs: u8, refs: &mut Refs) -> Res<Form> {
    let a16 = cx.a16;
    let (body, saturate, used) = match opcode {
        Opcode::Nop => {
            let mut d = Dst::null(Type::Ud);
            d.hstride = 0;
            let s = Src::Reg(null_src(Type::Ud, a16));
            let body = Body::Alu(Alu {
                dst: d,
                src0: s,
                src1: s,
            });
            (body, false, 0)
        }
        Opcode::Jmpi => {
            let ip = RegSrc::new(RegFile::Arf, arf::IP, 0, Type::Ud, SCALAR);
            let src1 = match cx.operand(0, "a target")? {
                Opnd::Target {
                    target: Target::Bytes(b),
                    col,
                } => Src::Imm(jumps::number_imm(p, Which::Jmpi, *b).or_else(|m| cx.e(*col, m))?),
                Opnd::Target {
                    target: Target::Label(name),
                    col,
                } => {
                    refs.push((Which::Jmpi, name.clone(), *col));
                    Src::Imm(Imm::d(0))
                }
                o => cx.src(o, None, SCALAR)?,
            };
            let dst = Dst::new(RegFile::Arf, arf::IP, 0, Type::Ud, 1);
            let body = Body::Alu(Alu {
                dst,
                src0: Src::Reg(ip),
                src1,
            });
            (body, false, 1)
        }
        Opcode::Call => {
            let (dst, sat) = cx.dst(cx.operand(0, "a destination")?, false)?;
            let src1 = match cx.operand(1, "a target")? {
                Opnd::Target {
                    target: Target::Bytes(b),
                    col,
                } => Src::Imm(jumps::number_imm(p, Which::Call, *b).or_else(|m| cx.e(*col, m))?),
                Opnd::Target {
                    target: Target::Label(name),
                    col,
                } => {
                    refs.push((Which::Call, name.clone(), *col));
                    Src::Imm(Imm::d(0))
                }
                o => cx.src(o, None, SCALAR)?,
            };
            // src0 is unused; iga64 writes null<2;2,1>:ud, the region the
            // manual requires of it (003 lines 97137-97138).
            let region = Region::Align1 {
                vstride: 2,
                width: 2,
                hstride: 1,
            };
            let src0 = Src::Reg(RegSrc::new(RegFile::Arf, arf::NULL, 0, Type::Ud, region));
            (Body::Alu(Alu { dst, src0, src1 }), sat, 2)
        }
        Opcode::Wait => {
            let s = cx.src(cx.operand(0, "a notification register")?, None, SCALAR)?;
            let Src::Reg(r) = s else {
                return cx.e(cx.l.mnemonic_col, "wait takes a register");
            };
            let Addr::Direct { nr, subnr } = r.addr else {
                return cx.e(cx.l.mnemonic_col, "wait takes n0");
            };
            let dst = Dst::new(r.file, nr, subnr, r.ty, 1);
            let body = Body::Alu(Alu {
                dst,
                src0: s,
                src1: Src::Reg(null_src(Type::Ud, a16)),
            });
            (body, false, 1)
        }
        _ => {
            let (dst, sat) = cx.dst(cx.operand(0, "a destination")?, false)?;
            let def = if a16 {
                Region::Align16 {
                    vstride: 4,
                    swizzle: Swizzle::XYZW,
                }
            } else {
                SCALAR
            };
            let src0 = cx.src(cx.operand(1, "a source")?, None, def)?;
            let mut used = 2;
            let src1 = if srcs >= 2 {
                used = 3;
                cx.src(cx.operand(2, "two sources")?, None, def)?
            } else {
                unused_src1(&src0, a16)
            };
            (Body::Alu(Alu { dst, src0, src1 }), sat, used)
        }
    };
    Ok(Form {
        body,
        saturate,
        used,
    })
}

/// The second source a one-source instruction leaves unused, as IGA
/// writes it: after an immediate only file and type remain.
fn unused_src1(src0: &Src, a16: bool) -> Src {
    if matches!(src0, Src::Imm(_)) {
        Src::Vacant(Vacant {
            file: RegFile::Arf,
            ty: Type::Ud,
        })
    } else {
        Src::Reg(null_src(Type::Ud, a16))
    }
}

/// Gen6+ `math.<fn>`: one or two sources.
fn math(cx: &Ctx) -> Res<Form> {
    let Some(function) = cx.l.math else {
        return cx.e(cx.l.mnemonic_col, "math needs a function, e.g. math.inv");
    };
    let (dst, saturate) = cx.dst(cx.operand(0, "a destination")?, false)?;
    let src0 = cx.src(cx.operand(1, "a source")?, None, SCALAR)?;
    let (src1, used) = match cx.l.operands.get(2) {
        Some(o) => (cx.src(o, None, SCALAR)?, 3),
        None => (unused_src1(&src0, cx.a16), 2),
    };
    Ok(Form {
        body: Body::Math(Math {
            function,
            dst,
            src0,
            src1,
        }),
        saturate,
        used,
    })
}

/// Three-source (Align16) `mad`, `lrp`, `bfe`, `bfi2`.
fn three(cx: &Ctx) -> Res<Form> {
    let (dst, saturate) = cx.dst(cx.operand(0, "a destination")?, true)?;
    let mut src = [Src::Vacant(Vacant {
        file: RegFile::Grf,
        ty: Type::F,
    }); 3];
    for (k, s) in src.iter_mut().enumerate() {
        let def = Region::Align16 {
            vstride: 4,
            swizzle: Swizzle::XYZW,
        };
        *s = cx.src(cx.operand(k + 1, "three sources")?, Some(k == 2), def)?;
    }
    Ok(Form {
        body: Body::ThreeSrc(ThreeSrc { dst, src }),
        saturate,
        used: 4,
    })
}

/// Branches: the jump fields of the generation's layout, with the implicit
/// operands IGA writes around them.
fn branch(cx: &Ctx, opcode: Opcode, layout: JumpLayout, refs: &mut Refs) -> Res<Form> {
    let n = cx.l.operands.len();
    let (body, used) = match layout {
        JumpLayout::Count => {
            let jump = cx.target(0, refs, Which::Jip)?;
            let mut used = 1;
            let mut pop = 0;
            if let Some(Opnd::Pop { count, .. }) = cx.l.operands.get(1) {
                pop = *count;
                used = 2;
            }
            let ip = RegSrc::new(RegFile::Arf, arf::IP, 0, Type::Ud, SCALAR);
            let body = Body::Branch(Branch {
                dst: DstSlot::Reg(Dst::new(RegFile::Arf, arf::IP, 0, Type::Ud, 1)),
                src0: Src::Reg(ip),
                src1: Src::Vacant(Vacant {
                    file: RegFile::Imm,
                    ty: Type::D,
                }),
                jump: Jump::Count { jump, pop },
            });
            (body, used)
        }
        JumpLayout::DstJip => {
            let jip = cx.target(0, refs, Which::Jip)?;
            let body = Body::Branch(Branch {
                dst: DstSlot::Vacant(Vacant {
                    file: RegFile::Imm,
                    ty: Type::W,
                }),
                src0: Src::Reg(null_src(Type::D, false)),
                src1: Src::Reg(null_src(Type::D, false)),
                jump: Jump::Jip { jip },
            });
            (body, 1)
        }
        JumpLayout::JipUip => {
            let jip = cx.target(0, refs, Which::Jip)?;
            let jip_only = matches!(opcode, Opcode::Else | Opcode::Endif | Opcode::While);
            let uip = if jip_only && n < 2 {
                0
            } else {
                cx.target(1, refs, Which::Uip)?
            };
            let used = if jip_only && n < 2 { 1 } else { 2 };
            let (src0, src1) = if matches!(opcode, Opcode::Endif | Opcode::While) {
                (
                    Src::Reg(null_src(Type::Ud, false)),
                    Src::Vacant(Vacant {
                        file: RegFile::Imm,
                        ty: Type::D,
                    }),
                )
            } else {
                let imm0 = RegSrc::new(RegFile::Imm, 0, 0, Type::W, SCALAR);
                (
                    Src::Reg(imm0),
                    Src::Vacant(Vacant {
                        file: RegFile::Arf,
                        ty: Type::Ud,
                    }),
                )
            };
            let body = Body::Branch(Branch {
                dst: DstSlot::Reg(Dst::null(Type::Ud)),
                src0,
                src1,
                jump: Jump::JipUip { jip, uip },
            });
            (body, used)
        }
    };
    Ok(Form {
        body,
        saturate: false,
        used,
    })
}
