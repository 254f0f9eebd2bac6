//! Instruction → text in the IGA-based syntax described in [`super`]; whole
//! binaries are in [`super::disasm`].

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write};

use super::jumps::{self, Which};
use super::{ARF_NAMES, COND_NAMES, MATH_NAMES, PRED_NAMES};
use crate::generation::IsaGen;
use crate::inst::{
    AccessMode, Addr, Body, Branch, Compression, CondMod, Dst, DstSlot, GroupCtrl, Imm,
    Instruction, Jump, Opcode, PredCtrl, RegFile, RegSrc, Region, Send, SendDesc, Src, Swizzle,
    ThreadCtrl, Type, Vacant,
};
use crate::tables::{self, SendLayout};

/// Prints one instruction on one line (no trailing newline). Branch offsets
/// are printed as byte offsets from the instruction. Slots the syntax
/// leaves implicit are written out (`src1=arf:f`) where they differ from
/// what the assembler fills in; [`super::disassemble`] also checks the
/// line reassembles exactly.
pub fn print_instruction(p: IsaGen, inst: &Instruction) -> String {
    if p.is_xe() {
        return crate::xehpg::print::print(inst, None);
    }
    print_with(p, inst, None)
}

/// Where an instruction sits and which byte offsets have labels: jump
/// fields that land on one print the label (`L64`) instead of a number.
pub(crate) struct Labels<'a> {
    pub at: usize,
    pub size: usize,
    pub set: &'a BTreeSet<i64>,
}

/// Prints one instruction, with labels for its jumps when given. Slots the
/// syntax leaves implicit are written out (`src1=arf:f`) where they differ
/// from what the assembler fills in, found by assembling the short form.
pub(crate) fn print_with(p: IsaGen, inst: &Instruction, labels: Option<&Labels>) -> String {
    let (head, opts) = parts(p, inst, labels);
    let plain = if labels.is_some() {
        parts(p, inst, None).0
    } else {
        head.clone()
    };
    let mut s = head;
    explicit_slots(p, inst, &plain, &opts, &mut s);
    s.push_str(&opts);
    s
}

/// The text up to the options, and the options (` {...}` or empty).
fn parts(p: IsaGen, inst: &Instruction, labels: Option<&Labels>) -> (String, String) {
    let mut s = String::new();
    let mut pr = Printer {
        p,
        out: &mut s,
        labels,
    };
    // Writing into a String cannot fail.
    let _ = pr.inst(inst);
    let opts = options(inst);
    let o = if opts.is_empty() {
        String::new()
    } else {
        alloc::format!(" {{{}}}", opts.join(","))
    };
    (s, o)
}

/// The slots of a body that the syntax may leave implicit.
fn slots(b: &Body) -> Option<(Option<&Dst>, Option<&Vacant>, &Src, &Src)> {
    match b {
        Body::Alu(a) => Some((Some(&a.dst), None, &a.src0, &a.src1)),
        Body::Math(m) => Some((Some(&m.dst), None, &m.src0, &m.src1)),
        Body::Branch(b) => match &b.dst {
            DstSlot::Reg(d) => Some((Some(d), None, &b.src0, &b.src1)),
            DstSlot::Vacant(v) => Some((None, Some(v), &b.src0, &b.src1)),
        },
        _ => None,
    }
}

/// Appends `dst=`, `src0=`, `src1=` for each slot in which the instruction
/// differs from what the assembler builds from `head` + `opts`.
fn explicit_slots(p: IsaGen, inst: &Instruction, head: &str, opts: &str, out: &mut String) {
    let text = alloc::format!("{head}{opts}");
    let Ok(Some(item)) = super::asm::parse_line(p, &text, 1) else {
        return;
    };
    let (Some(have), Some(want)) = (slots(&item.inst.body), slots(&inst.body)) else {
        return;
    };
    let a16 = inst.access_mode == AccessMode::Align16;
    let mut pr = Printer {
        p,
        out,
        labels: None,
    };
    if (have.0, have.1) != (want.0, want.1) {
        pr.out.push_str(" dst=");
        let _ = match (want.0, want.1) {
            (Some(d), _) => pr.dst(d, false, a16),
            (_, Some(v)) => pr.vacant(v),
            _ => Ok(()),
        };
    }
    if have.2 != want.2 {
        pr.out.push_str(" src0=");
        let _ = pr.src(want.2, a16);
    }
    if have.3 != want.3 {
        pr.out.push_str(" src1=");
        let _ = pr.src(want.3, a16);
    }
}

/// The instruction options, in the order they print.
fn options(i: &Instruction) -> Vec<&'static str> {
    let three = matches!(i.body, Body::ThreeSrc(_));
    let mut opts: Vec<&str> = Vec::new();
    if i.access_mode == AccessMode::Align16 && !three {
        opts.push("Align16");
    }
    if i.group == GroupCtrl::Compression(Compression::Compressed) {
        opts.push("Compr");
    }
    if i.acc_wr_ctrl {
        opts.push("AccWrEn");
    }
    if i.mask_ctrl_ex {
        opts.push("MaskCtrlEx");
    }
    if i.debug {
        opts.push("Breakpoint");
    }
    if i.no_dd_chk {
        opts.push("NoDDChk");
    }
    if i.no_dd_clr {
        opts.push("NoDDClr");
    }
    match i.thread_ctrl {
        ThreadCtrl::Normal => {}
        ThreadCtrl::Atomic => opts.push("Atomic"),
        ThreadCtrl::Switch => opts.push("Switch"),
    }
    if let Body::Send(s) = &i.body
        && s.eot
    {
        opts.push("EOT");
    }
    opts
}

struct Printer<'a> {
    p: IsaGen,
    out: &'a mut String,
    labels: Option<&'a Labels<'a>>,
}

type R = fmt::Result;

impl Printer<'_> {
    fn inst(&mut self, i: &Instruction) -> R {
        let align16 = i.access_mode == AccessMode::Align16;
        // Predicate.
        let pred = i.pred_ctrl != PredCtrl::None;
        if i.no_mask || pred {
            self.out.push('(');
            if i.no_mask {
                self.out.push('W');
            }
            if pred {
                if i.no_mask {
                    self.out.push('&');
                }
                if i.pred_inv {
                    self.out.push('~');
                }
                write!(self.out, "f{}.{}", i.flag.reg, i.flag.subreg)?;
                if let Some((_, n)) = PRED_NAMES.iter().find(|(c, _)| *c == i.pred_ctrl) {
                    write!(self.out, ".{n}")?;
                }
            }
            self.out.push_str(") ");
        }
        self.out.push_str(i.opcode.mnemonic());
        if let Body::Math(m) = &i.body
            && let Some((_, n)) = MATH_NAMES.iter().find(|(f, _)| *f == m.function)
        {
            write!(self.out, ".{n}")?;
        }
        if i.opcode != Opcode::Nop {
            let m = match i.group {
                GroupCtrl::Compression(Compression::SecHalf) => 8,
                GroupCtrl::Compression(_) => 0,
                GroupCtrl::Quarter { qtr, nib } => u32::from(qtr) * 8 + u32::from(nib) * 4,
            };
            write!(self.out, " ({}|M{m})", i.exec_size)?;
        }
        if i.cond_mod != CondMod::None
            && let Some((_, n)) = COND_NAMES.iter().find(|(c, _)| *c == i.cond_mod)
        {
            write!(self.out, " ({n})f{}.{}", i.flag.reg, i.flag.subreg)?;
        }
        match &i.body {
            Body::Alu(a) => self.alu(i, &a.dst, &a.src0, &a.src1, align16)?,
            Body::Math(m) => {
                self.out.push(' ');
                self.dst(&m.dst, i.saturate, align16)?;
                self.out.push(' ');
                self.src(&m.src0, align16)?;
                if self.is_binary_math(m.function) {
                    self.out.push(' ');
                    self.src(&m.src1, align16)?;
                }
            }
            Body::ThreeSrc(t) => {
                self.out.push(' ');
                self.three_dst(&t.dst, i.saturate)?;
                for (k, s) in t.src.iter().enumerate() {
                    self.out.push(' ');
                    match s {
                        Src::Reg(r) => self.three_src(r, k == 2)?,
                        other => self.src(other, true)?,
                    }
                }
            }
            Body::Send(s) => self.send(s, i.saturate, align16)?,
            Body::Branch(b) => self.branch(i.opcode, b)?,
            // Gen12.5 only (`crate::xehpg` prints Gen12.5 code).
            Body::Sync(s) => {
                self.out.push(' ');
                self.src(&s.src0, false)?;
            }
            // Gen12.5 only, printed by `crate::xehpg::print` alone.
            Body::Bfn(_) | Body::Dpas(_) => {}
        }
        Ok(())
    }

    fn is_binary_math(&self, f: crate::inst::MathFn) -> bool {
        use crate::inst::MathFn::*;
        matches!(
            f,
            Fdiv | Pow | IntDivQuotientRemainder | IntDivQuotient | IntDivRemainder
        )
    }

    fn alu(&mut self, i: &Instruction, dst: &Dst, s0: &Src, s1: &Src, a16: bool) -> R {
        let srcs = tables::for_platform(self.p)
            .opcode_info(i.opcode)
            .map_or(2, |o| o.srcs);
        match i.opcode {
            Opcode::Nop => return Ok(()),
            Opcode::Jmpi => {
                self.out.push(' ');
                return match s1 {
                    Src::Imm(imm) => self.jump(Which::Jmpi, jumps::imm_bytes(self.p, imm)),
                    other => self.src(other, a16),
                };
            }
            Opcode::Call => {
                self.out.push(' ');
                self.dst(dst, i.saturate, a16)?;
                self.out.push(' ');
                return match s1 {
                    Src::Imm(imm) => self.jump(Which::Call, jumps::imm_bytes(self.p, imm)),
                    other => self.src(other, a16),
                };
            }
            Opcode::Wait => {
                self.out.push(' ');
                return self.src(s0, a16);
            }
            _ => {}
        }
        self.out.push(' ');
        self.dst(dst, i.saturate, a16)?;
        self.out.push(' ');
        self.src(s0, a16)?;
        if srcs >= 2 {
            self.out.push(' ');
            self.src(s1, a16)?;
        }
        Ok(())
    }

    /// A jump field: its label when it lands on one, else its number.
    fn jump(&mut self, which: Which, value: i64) -> R {
        if let Some(l) = self.labels {
            let t = jumps::target(self.p, which, value, l.at, l.size);
            if l.set.contains(&t) {
                return write!(self.out, "L{t}");
            }
        }
        write!(self.out, "{}", jumps::number(which, value))
    }

    fn reg_name(&mut self, file: RegFile, nr: u8) -> R {
        match file {
            RegFile::Grf => write!(self.out, "r{nr}"),
            RegFile::Mrf => write!(self.out, "m{nr}"),
            RegFile::Imm => write!(self.out, "imm{nr}"),
            RegFile::Arf => {
                let kind = tables::for_platform(self.p).arf_kind(nr);
                match kind.and_then(|k| ARF_NAMES.iter().find(|(a, _)| *a == k)) {
                    Some((crate::tables::ArfKind::Null, n))
                    | Some((crate::tables::ArfKind::Ip, n)) => {
                        self.out.push_str(n);
                        if nr & 0xF != 0 {
                            write!(self.out, "{}", nr & 0xF)?;
                        }
                        Ok(())
                    }
                    Some((_, n)) => write!(self.out, "{n}{}", nr & 0xF),
                    None => write!(self.out, "arf{nr}"),
                }
            }
        }
    }

    /// `.sub` in elements of `ty` (or `.Nb` in bytes when unaligned). The
    /// null register and `ip` print no sub-register when it is 0.
    fn subreg(&mut self, file: RegFile, nr: u8, subnr: u8, ty: Type) -> R {
        let bare = file == RegFile::Arf
            && matches!(
                tables::for_platform(self.p).arf_kind(nr),
                Some(crate::tables::ArfKind::Null | crate::tables::ArfKind::Ip)
            );
        if bare && subnr == 0 {
            return Ok(());
        }
        let size = ty.size();
        if subnr.is_multiple_of(size) {
            write!(self.out, ".{}", subnr / size)
        } else {
            write!(self.out, ".{subnr}b")
        }
    }

    fn addr(&mut self, file: RegFile, addr: &Addr, ty: Type) -> R {
        match *addr {
            Addr::Direct { nr, subnr } => {
                self.reg_name(file, nr)?;
                self.subreg(file, nr, subnr, ty)
            }
            Addr::Indirect { addr_subnr, offset } => {
                let f = if file == RegFile::Mrf { "m" } else { "r" };
                if offset == 0 {
                    write!(self.out, "{f}[a0.{addr_subnr}]")
                } else {
                    write!(self.out, "{f}[a0.{addr_subnr},{offset}]")
                }
            }
        }
    }

    fn dst(&mut self, d: &Dst, sat: bool, a16: bool) -> R {
        if sat {
            self.out.push_str("(sat)");
        }
        self.addr(d.file, &d.addr, d.ty)?;
        write!(self.out, "<{}>", d.hstride)?;
        if a16 {
            self.writemask(d.writemask)?;
        }
        write!(self.out, ":{}", d.ty.name())
    }

    fn writemask(&mut self, m: u8) -> R {
        self.out.push('.');
        if m & 0xF == 0 {
            self.out.push_str("none");
        }
        for (bit, c) in ['x', 'y', 'z', 'w'].into_iter().enumerate() {
            if m & (1 << bit) != 0 {
                self.out.push(c);
            }
        }
        Ok(())
    }

    fn swizzle(&mut self, s: Swizzle) -> R {
        self.out.push('.');
        for i in 0..4 {
            self.out
                .push(['x', 'y', 'z', 'w'][usize::from(s.component(i))]);
        }
        Ok(())
    }

    fn modifiers(&mut self, r: &RegSrc) {
        if r.negate {
            self.out.push('-');
        }
        if r.abs {
            self.out.push_str("(abs)");
        }
    }

    fn reg_src(&mut self, r: &RegSrc, a16: bool) -> R {
        self.modifiers(r);
        self.addr(r.file, &r.addr, r.ty)?;
        match r.region {
            Region::Align1 {
                vstride,
                width,
                hstride,
            } => write!(self.out, "<{vstride};{width},{hstride}>")?,
            Region::VxH { width, hstride } => write!(self.out, "<{width},{hstride}>")?,
            Region::Align16 { vstride, swizzle } => {
                write!(self.out, "<{vstride}>")?;
                self.swizzle(swizzle)?;
            }
        }
        let _ = a16;
        write!(self.out, ":{}", r.ty.name())
    }

    fn src(&mut self, s: &Src, a16: bool) -> R {
        match s {
            Src::Reg(r) => self.reg_src(r, a16),
            Src::Imm(imm) => self.imm(imm),
            Src::Vacant(v) => self.vacant(v),
        }
    }

    /// A slot of which only file and type exist: `arf:ud`.
    fn vacant(&mut self, v: &Vacant) -> R {
        let file = match v.file {
            RegFile::Arf => "arf",
            RegFile::Grf => "grf",
            RegFile::Mrf => "mrf",
            RegFile::Imm => "imm",
        };
        write!(self.out, "{file}:{}", v.ty.name())
    }

    fn imm(&mut self, imm: &Imm) -> R {
        let b = imm.bits;
        match imm.ty {
            Type::D => write!(self.out, "{}:d", b as u32 as i32),
            Type::W if b as u32 >> 16 == b as u32 & 0xFFFF => {
                write!(self.out, "{}:w", b as u16 as i16)
            }
            Type::Uw if b as u32 >> 16 == b as u32 & 0xFFFF => {
                write!(self.out, "{:#x}:uw", b as u16)
            }
            Type::Df => write!(self.out, "{b:#x}:df"),
            ty => write!(self.out, "{:#x}:{}", b as u32, ty.name()),
        }
    }

    /// Three-source destination: IGA's `<1>` form, or with the write mask
    /// when it is not `.xyzw`.
    fn three_dst(&mut self, d: &Dst, sat: bool) -> R {
        if sat {
            self.out.push_str("(sat)");
        }
        self.addr(d.file, &d.addr, d.ty)?;
        self.out.push_str("<1>");
        if d.writemask != 0xF {
            self.writemask(d.writemask)?;
        }
        write!(self.out, ":{}", d.ty.name())
    }

    /// Three-source source: IGA's `<2;1>`/`<0;0>` (src0, src1) or `<1>`/`<0>`
    /// (src2) when the swizzle is `.xyzw` (iga64 writes that swizzle with a
    /// replicated source too), else `<4>.swz` / `<0>.swz`.
    fn three_src(&mut self, r: &RegSrc, last: bool) -> R {
        let Region::Align16 { vstride, swizzle } = r.region else {
            return self.reg_src(r, true);
        };
        self.modifiers(r);
        self.addr(r.file, &r.addr, r.ty)?;
        match (vstride, swizzle, last) {
            (4, Swizzle::XYZW, false) => self.out.push_str("<2;1>"),
            (0, Swizzle::XYZW, false) => self.out.push_str("<0;0>"),
            (4, Swizzle::XYZW, true) => self.out.push_str("<1>"),
            (0, Swizzle::XYZW, true) => self.out.push_str("<0>"),
            _ => {
                write!(self.out, "<{vstride}>")?;
                self.swizzle(swizzle)?;
            }
        }
        write!(self.out, ":{}", r.ty.name())
    }

    fn send(&mut self, s: &Send, sat: bool, a16: bool) -> R {
        self.out.push(' ');
        if sat {
            self.out.push_str("(sat)");
        }
        // IGA's short forms: `r1:ud` for the destination, `r2` (or `r2:f`)
        // for the payload. A destination stride other than 1 or an Align16
        // write mask other than .xyzw is written out (`r20.0<1>.x:f`).
        if s.dst.hstride != 1 || s.dst.writemask != crate::inst::WRITEMASK_XYZW {
            self.dst(&s.dst, false, a16)?;
        } else {
            self.addr(s.dst.file, &s.dst.addr, s.dst.ty)?;
            write!(self.out, ":{}", s.dst.ty.name())?;
        }
        self.out.push(' ');
        if let Some(base) = s.base_mrf {
            write!(self.out, "m{base} ")?;
        }
        match &s.src0 {
            // A region other than the scalar default is written out (the
            // Gen4/G45 implied move copies by it).
            Src::Reg(r)
                if r.region
                    != (Region::Align1 {
                        vstride: 0,
                        width: 1,
                        hstride: 0,
                    }) =>
            {
                self.reg_src(r, false)?
            }
            Src::Reg(r) => {
                self.modifiers(r);
                self.addr(r.file, &r.addr, r.ty)?;
                if r.ty != Type::Ud || self.p < IsaGen::Gen6 {
                    write!(self.out, ":{}", r.ty.name())?;
                }
            }
            other => self.src(other, false)?,
        }
        let t = tables::for_platform(self.p);
        let sfid = s.sfid.and_then(|f| tables::code_of(&t.sfids, f));
        match s.desc {
            SendDesc::Imm { desc, ty } => {
                let raw = match t.fields.send {
                    SendLayout::Gen4 {
                        mlen,
                        rlen,
                        function,
                        ..
                    } => {
                        u32::from(desc.mlen) << (mlen.lo - 96)
                            | u32::from(desc.rlen) << (rlen.lo - 96)
                            | desc.function << (function.lo - 96)
                    }
                    SendLayout::Gen6 {
                        mlen,
                        rlen,
                        header,
                        function,
                    } => {
                        u32::from(desc.mlen) << (mlen.lo - 96)
                            | u32::from(desc.rlen) << (rlen.lo - 96)
                            | u32::from(desc.header) << (header.lo - 96)
                            | desc.function << (function.lo - 96)
                    }
                };
                let ex = u32::from(sfid.unwrap_or(0))
                    | if s.eot && self.p >= IsaGen::Gen7 {
                        0x20
                    } else {
                        0
                    };
                write!(self.out, " {ex:#x} {raw:#010x}")?;
                // IGA writes UD; another type (gen4asm writes D) is stated.
                if ty != Type::Ud {
                    write!(self.out, ":{}", ty.name())?;
                }
            }
            SendDesc::Reg(r) => {
                let ex = match sfid {
                    Some(c) => {
                        u32::from(c)
                            | if s.eot && self.p >= IsaGen::Gen7 {
                                0x20
                            } else {
                                0
                            }
                    }
                    None => 0,
                };
                write!(self.out, " {ex:#x} ")?;
                self.addr(r.file, &r.addr, r.ty)?;
            }
        }
        Ok(())
    }

    fn branch(&mut self, op: Opcode, b: &Branch) -> R {
        self.out.push(' ');
        match b.jump {
            Jump::Count { jump, pop } => {
                self.jump(Which::Jip, i64::from(jump))?;
                if pop != 0 {
                    write!(self.out, " pop({pop})")?;
                }
            }
            Jump::Jip { jip } => self.jump(Which::Jip, i64::from(jip))?,
            Jump::JipUip { jip, uip } => {
                self.jump(Which::Jip, i64::from(jip))?;
                if jumps::uip_shown(op, uip) {
                    self.out.push(' ');
                    self.jump(Which::Uip, i64::from(uip))?;
                }
            }
        }
        Ok(())
    }
}
