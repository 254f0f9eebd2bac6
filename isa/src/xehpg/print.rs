//! Gen12.5 instructions as text in IGA's syntax, token for token what
//! `iga64 -p=12p71 -d` writes (its column padding and `//` comments
//! aside): `(W&~f1.1.any4h) add (16|M16) (le)f1.1 (sat)r1.2<2>:f
//! -r2.1<4;2,1>:f (abs)r3.0<0;1,0>:f {Atomic,A@1}`.

use alloc::format;
use alloc::string::String;
use core::fmt::Write;

use super::codec::{macro_math, out_of_order};
use super::tables::SFIDS;
use crate::inst::{
    Addr, Body, CondMod, Dst, ExDesc, GroupCtrl, Imm, Instruction, Jump, MathFn, Opcode, Pipe,
    Precision, PredCtrl, RegFile, Region, Send, SendDesc, Src, Swsb, SyncFn, TokenMode, Type,
};

/// One instruction. `pc` is its byte offset in the kernel: branch targets
/// are then printed as IGA's labels (`L64`), else as byte offsets.
pub fn print(inst: &Instruction, pc: Option<i64>) -> String {
    print_with(inst, pc, false)
}

/// [`print`], marking an instruction stored compacted `{Compacted}` as
/// iga64 does (after `Breakpoint`, before the SWSB).
pub fn print_with(inst: &Instruction, pc: Option<i64>, compacted: bool) -> String {
    let mut p = Printer {
        out: String::new(),
        inst,
        compacted,
    };
    p.instruction(pc);
    p.out
}

struct Printer<'a> {
    out: String,
    inst: &'a Instruction,
    compacted: bool,
}

fn pred_suffix(p: PredCtrl) -> &'static str {
    match p {
        PredCtrl::AnyV => ".anyv",
        PredCtrl::AllV => ".allv",
        PredCtrl::Any2H => ".any2h",
        PredCtrl::All2H => ".all2h",
        PredCtrl::Any4H => ".any4h",
        PredCtrl::All4H => ".all4h",
        PredCtrl::Any8H => ".any8h",
        PredCtrl::All8H => ".all8h",
        PredCtrl::Any16H => ".any16h",
        PredCtrl::All16H => ".all16h",
        PredCtrl::Any32H => ".any32h",
        PredCtrl::All32H => ".all32h",
        _ => "",
    }
}

/// IGA's condition-modifier names.
fn cond_name(c: CondMod) -> &'static str {
    match c {
        CondMod::Z => "eq",
        CondMod::Nz => "ne",
        CondMod::G => "gt",
        CondMod::Ge => "ge",
        CondMod::L => "lt",
        CondMod::Le => "le",
        CondMod::O => "ov",
        CondMod::U => "un",
        CondMod::None | CondMod::R => "",
    }
}

/// IGA's math function names (`sqt`, `rsqt`).
pub fn math_name(f: MathFn) -> &'static str {
    match f {
        MathFn::Inv => "inv",
        MathFn::Log => "log",
        MathFn::Exp => "exp",
        MathFn::Sqrt => "sqt",
        MathFn::Rsq => "rsqt",
        MathFn::Sin => "sin",
        MathFn::Cos => "cos",
        MathFn::Fdiv => "fdiv",
        MathFn::Pow => "pow",
        MathFn::SinCos => "sincos",
        MathFn::IntDivQuotientRemainder => "idiv",
        MathFn::IntDivQuotient => "iqot",
        MathFn::IntDivRemainder => "irem",
        MathFn::Invm => "invm",
        MathFn::Rsqtm => "rsqtm",
    }
}

pub fn sync_name(f: SyncFn) -> &'static str {
    match f {
        SyncFn::Nop => "nop",
        SyncFn::AllRd => "allrd",
        SyncFn::AllWr => "allwr",
        SyncFn::Fence => "fence",
        SyncFn::Bar => "bar",
        SyncFn::Host => "host",
    }
}

/// An ARF register's name from `RegNum[7:4]` and whether IGA writes a
/// sub-register after it.
fn arf_name(nr: u8) -> (String, bool) {
    let n = nr & 0xF;
    match nr >> 4 {
        0 => ("null".into(), false),
        1 => (format!("a{n}"), true),
        2 => (format!("acc{n}"), true),
        3 => (format!("f{n}"), true),
        4 => ("ce".into(), false),
        7 => (format!("sr{n}"), true),
        8 => (format!("cr{n}"), true),
        9 => (format!("n{n}"), true),
        0xA => ("ip".into(), false),
        0xB => (format!("tdr{n}"), true),
        0xC => (format!("tm{n}"), true),
        _ => (format!("arf{nr}"), true),
    }
}

/// A float immediate as iga64 writes it [IGA `Frontend/Floats.cpp`,
/// `FormatFloat`]: `inf`/`-inf`; a NaN as `[-]qnan(0x..)`/`[-]snan(0x..)`
/// with the mantissa bits below the quiet bit; otherwise C++'s default
/// stream format (`%g`, 6 significant digits; `.0` added when it has no
/// `.` or exponent) if that text parses back (as a double, then narrowed
/// to the operand's type) to the same value, else `%e` (7 digits) on the
/// same condition, else the bits in hex. `bits` are the value's bits,
/// `width` 16, 32 or 64; a half is formatted through its f32 value and
/// checked at f32 precision, as IGA does.
fn float_text(bits: u64, width: u32) -> String {
    let (man_bits, exp_bits) = match width {
        16 => (10, 5),
        32 => (23, 8),
        _ => (52, 11),
    };
    let sign = bits >> (width - 1) & 1 != 0;
    let exp = bits >> man_bits & ((1 << exp_bits) - 1);
    let man = bits & ((1u64 << man_bits) - 1);
    let minus = if sign { "-" } else { "" };
    if exp == (1 << exp_bits) - 1 {
        if man == 0 {
            return format!("{minus}inf");
        }
        let quiet = 1u64 << (man_bits - 1);
        let kind = if man & quiet != 0 { "qnan" } else { "snan" };
        return format!("{minus}{kind}(0x{:X})", man & (quiet - 1));
    }
    let v = match width {
        16 => half_to_f64(bits as u16),
        32 => f64::from(f32::from_bits(bits as u32)),
        _ => f64::from_bits(bits),
    };
    // The check is `(T)strtod(text) == x` with T = float for f and hf.
    let reparses = |t: &str| match t.parse::<f64>() {
        Ok(y) if width == 64 => y == v,
        Ok(y) => y as f32 == v as f32,
        Err(_) => false,
    };
    let g = c_general(v);
    if reparses(&g) {
        return if g.contains(['.', 'e']) {
            g
        } else {
            format!("{g}.0")
        };
    }
    let e = c_scientific(v, 6);
    if reparses(&e) {
        return e;
    }
    format!("0x{:X}", bits & (u64::MAX >> (64 - width)))
}

/// C's `%.{digits}e`: the mantissa and an exponent of at least two digits
/// with its sign (Rust's `{:e}` writes `e-5`, C `e-05`).
fn c_scientific(v: f64, digits: usize) -> String {
    let s = format!("{v:.digits$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let sign = if e < 0 { '-' } else { '+' };
    format!("{m}e{sign}{:02}", e.unsigned_abs())
}

/// C's `%g` (precision 6): `%e` with 5 fraction digits when the exponent
/// is below -4 or at least 6, else `%f` with 5 - exponent fraction digits;
/// trailing zeros (and a trailing `.`) removed [ISO C 7.21.6.1].
fn c_general(v: f64) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let e = c_scientific(v, 5);
    let x: i32 = e
        .split_once('e')
        .and_then(|(_, x)| x.parse().ok())
        .unwrap_or(0);
    let trim = |m: &str| -> String {
        if m.contains('.') {
            m.trim_end_matches('0').trim_end_matches('.').into()
        } else {
            m.into()
        }
    };
    if (-4..6).contains(&x) {
        let frac = (5 - x) as usize;
        trim(&format!("{v:.frac$}"))
    } else {
        let (m, x) = e.split_once('e').unwrap_or((&e, ""));
        format!("{}e{x}", trim(m))
    }
}

fn half_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1F);
    let man = f64::from(h & 0x3FF);
    let mag = match exp {
        0 => man * libm_pow2(-24),
        0x1F => f64::INFINITY,
        e => (1.0 + man / 1024.0) * libm_pow2(e - 15),
    };
    sign * mag
}

fn libm_pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}

fn imm_text(i: &Imm) -> String {
    let b = i.bits;
    let v = match i.ty {
        Type::V | Type::Uv | Type::Vf => format!("0x{:X}", b as u32),
        Type::F => float_text(b & 0xFFFF_FFFF, 32),
        Type::Df => float_text(b, 64),
        Type::Hf => float_text(b & 0xFFFF, 16),
        Type::W => format!("{}", b as u16 as i16),
        Type::B => format!("{}", b as u8 as i8),
        Type::D => format!("{}", b as u32 as i32),
        Type::Q => format!("{}", b as i64),
        Type::Uw => format!("0x{:X}", b as u16),
        Type::Ub => format!("0x{:X}", b as u8),
        Type::Ud => format!("0x{:X}", b as u32),
        _ => format!("0x{b:X}"),
    };
    format!("{v}:{}", i.ty.name())
}

impl Printer<'_> {
    fn instruction(&mut self, pc: Option<i64>) {
        let i = self.inst;
        if i.no_mask || i.pred_ctrl != PredCtrl::None {
            self.out.push('(');
            if i.no_mask {
                self.out.push('W');
            }
            if i.pred_ctrl != PredCtrl::None {
                if i.no_mask {
                    self.out.push('&');
                }
                if i.pred_inv {
                    self.out.push('~');
                }
                let _ = write!(
                    self.out,
                    "f{}.{}{}",
                    i.flag.reg,
                    i.flag.subreg,
                    pred_suffix(i.pred_ctrl)
                );
            }
            self.out.push_str(") ");
        }
        self.out.push_str(i.opcode.mnemonic());
        match &i.body {
            Body::Math(m) => {
                let _ = write!(self.out, ".{}", math_name(m.function));
            }
            Body::Send(s) => {
                let name = SFIDS
                    .iter()
                    .find(|(f, _)| Some(*f) == s.sfid)
                    .map_or("?", |(_, n)| n);
                let _ = write!(self.out, ".{name}");
            }
            Body::Sync(s) => {
                let _ = write!(self.out, ".{}", sync_name(s.function));
            }
            // iga64 prints the function as one of its own 256 expressions
            // (`bfn.(s0&~s2|s1&s2)`); ours is the value, which iga64 reads
            // too and `parse.rs` reads both.
            Body::Bfn(b) => {
                let _ = write!(self.out, ".0x{:X}", b.function);
            }
            Body::Dpas(d) => {
                let _ = write!(self.out, ".{}x{}", d.depth, d.repeat);
            }
            // BranchCtrl is the mnemonic's `.b` [IGA `Frontend/Formatter.cpp`,
            // formatOpMnemonicExecInfo; iga64 -p=12p71 refuses a
            // `{BranchCtrl}` option].
            Body::Branch(_) if i.acc_wr_ctrl => self.out.push_str(".b"),
            _ => {}
        }
        let bare = matches!(i.opcode, Opcode::Nop | Opcode::Illegal);
        let sync = matches!(i.body, Body::Sync(_));
        let implied_exec = bare || (sync && i.exec_size == 1) || i.opcode == Opcode::Jmpi;
        if !implied_exec {
            let first = match i.group {
                GroupCtrl::Quarter { qtr, nib } => qtr * 8 + u8::from(nib) * 4,
                GroupCtrl::Compression(_) => 0,
            };
            let _ = write!(self.out, " ({}|M{first})", i.exec_size);
        }
        if i.cond_mod != CondMod::None {
            let _ = write!(
                self.out,
                " ({}){}",
                cond_name(i.cond_mod),
                format_args!("f{}.{}", i.flag.reg, i.flag.subreg)
            );
        }
        match &i.body {
            _ if is_ctrl(i.opcode) => self.ctrl(pc),
            Body::ThreeSrc(t) if i.opcode == Opcode::Madm => {
                self.out.push(' ');
                self.madm_operand(t.dst.addr, t.dst.ty);
                for s in &t.src {
                    if let Src::Reg(r) = s {
                        self.out.push(' ');
                        self.mods(r.negate, r.abs);
                        self.madm_operand(r.addr, r.ty);
                    }
                }
            }
            Body::Alu(a) if !bare => {
                self.dst(&a.dst, i.saturate);
                self.src(&a.src0, false);
                if !matches!(a.src1, Src::Vacant(_)) {
                    self.src(&a.src1, false);
                }
            }
            Body::Alu(_) => {}
            // The macros name their early-out flag [iga64 -p=12p71 prints
            // `(eo)f0.0` from the flag fields] and a selector per operand.
            Body::Math(m) if macro_math(m.function) => {
                let _ = write!(self.out, " (eo)f{}.{}", i.flag.reg, i.flag.subreg);
                self.out.push(' ');
                self.madm_operand(m.dst.addr, m.dst.ty);
                for s in [&m.src0, &m.src1] {
                    if let Src::Reg(r) = s {
                        self.out.push(' ');
                        self.mods(r.negate, r.abs);
                        self.madm_operand(r.addr, r.ty);
                    }
                }
            }
            Body::Math(m) => {
                self.dst(&m.dst, i.saturate);
                self.src(&m.src0, false);
                if !matches!(m.src1, Src::Vacant(_)) {
                    self.src(&m.src1, false);
                }
            }
            Body::ThreeSrc(t) => {
                self.dst(&t.dst, i.saturate);
                for (k, s) in t.src.iter().enumerate() {
                    self.src3(s, k == 2);
                }
            }
            Body::Send(s) => {
                self.out.push(' ');
                self.send_reg(s.dst.file, s.dst.addr);
                if let Src::Reg(r) = &s.src0 {
                    self.out.push(' ');
                    self.send_reg(r.file, r.addr);
                }
                // The second payload's length: bits 10:6 of an immediate
                // extended descriptor, the ExBSO field, or (register
                // descriptor without ExBSO) not written.
                let (len, ex_text) = match s.ex_desc {
                    Some(ExDesc::Imm(v)) => (Some((v >> 6) & 0x1F), format!("0x{:X}", v & !0x7C0)),
                    Some(ExDesc::Reg { subnr, src1_len }) => {
                        (src1_len.map(u32::from), format!("a0.{subnr}"))
                    }
                    None => (None, String::new()),
                };
                if let Some(Src::Reg(r)) = &s.src1 {
                    self.out.push(' ');
                    self.send_reg(r.file, r.addr);
                    if let Some(len) = len {
                        let _ = write!(self.out, ":{len}");
                    }
                }
                let _ = write!(self.out, " {ex_text}");
                match &s.desc {
                    SendDesc::Reg(_) => self.out.push_str(" a0.0"),
                    SendDesc::Imm { desc, .. } => {
                        let word = super::codec::desc_word(desc).unwrap_or(desc.function);
                        let _ = write!(self.out, " 0x{word:08X}");
                    }
                }
            }
            // allrd/allwr's immediate is a set of SBIDs, written as one
            // [IGA `Frontend/Formatter.cpp`, formatSyncAllSrc0: `($1,$3)`,
            // `()` when empty].
            Body::Sync(s) if matches!(s.function, SyncFn::AllRd | SyncFn::AllWr) => match &s.src0 {
                Src::Imm(imm) => {
                    let set: alloc::vec::Vec<String> = (0..32)
                        .filter(|k| imm.bits >> k & 1 != 0)
                        .map(|k| format!("${k}"))
                        .collect();
                    let _ = write!(self.out, " ({})", set.join(","));
                }
                other => self.src_plain(other),
            },
            Body::Sync(s) => match &s.src0 {
                Src::Imm(imm) => {
                    let _ = write!(self.out, " {}", imm_text(imm));
                }
                other => self.src_plain(other),
            },
            Body::Bfn(b) => {
                self.dst(&b.dst, i.saturate);
                for (k, s) in b.src.iter().enumerate() {
                    self.src3(s, k == 2);
                }
            }
            Body::Dpas(d) => {
                self.dpas_operand(d.dst.file, d.dst.addr, dpas_type(d.dst.ty, None), false);
                for (k, s) in d.src.iter().enumerate() {
                    if let Src::Reg(r) = s {
                        let p = k.checked_sub(1).map(|n| d.precision[n]);
                        self.dpas_operand(r.file, r.addr, dpas_type(r.ty, p), k == 2);
                    }
                }
            }
            Body::Branch(b) => {
                let target = |off: i32| match pc {
                    Some(pc) => format!(" L{}", pc + i64::from(off)),
                    None => format!(" {off}"),
                };
                match b.jump {
                    Jump::JipUip { jip, uip } => {
                        self.out.push_str(&target(jip));
                        self.out.push_str(&target(uip));
                    }
                    Jump::Jip { jip } => self.out.push_str(&target(jip)),
                    Jump::Count { jump, .. } => self.out.push_str(&target(jump)),
                }
            }
        }
        self.options();
    }

    /// jmpi, brd, brc, call, calla, ret: registers without region or type,
    /// targets as labels (calla's absolute) or byte offsets [iga64 -p=12p71].
    fn ctrl(&mut self, pc: Option<i64>) {
        let i = self.inst;
        let target = |off: i32| match pc {
            Some(_) if i.opcode == Opcode::Calla => format!(" L{off}"),
            Some(pc) => format!(" L{}", pc + i64::from(off)),
            None => format!(" {off}"),
        };
        match &i.body {
            Body::Branch(b) => {
                if let crate::inst::DstSlot::Reg(d) = b.dst {
                    self.out.push(' ');
                    self.reg_name(d.file, d.addr, d.ty);
                }
                match b.jump {
                    Jump::JipUip { jip, uip } => {
                        self.out.push_str(&target(jip));
                        self.out.push_str(&target(uip));
                    }
                    Jump::Jip { jip } | Jump::Count { jump: jip, .. } => {
                        self.out.push_str(&target(jip));
                    }
                }
            }
            Body::Alu(a) => {
                if i.opcode == Opcode::Call || i.opcode == Opcode::Calla {
                    self.out.push(' ');
                    self.reg_name(a.dst.file, a.dst.addr, a.dst.ty);
                }
                if let Src::Reg(r) = &a.src0 {
                    self.out.push(' ');
                    self.reg_name(r.file, r.addr, r.ty);
                }
            }
            _ => {}
        }
    }

    /// `r10.mme3:df` / `r10.nomme:df`: madm's selector where the
    /// sub-register would be [iga64 -p=12p71].
    fn madm_operand(&mut self, addr: Addr, ty: Type) {
        if let Addr::Direct { nr, subnr } = addr {
            let _ = write!(self.out, "r{nr}.{}:{}", mme_name(subnr), ty.name());
        }
    }

    fn options(&mut self) {
        let i = self.inst;
        let mut opts: alloc::vec::Vec<String> = alloc::vec::Vec::new();
        if i.acc_wr_ctrl && !matches!(i.body, Body::Branch(_)) {
            opts.push("AccWrEn".into());
        }
        if i.thread_ctrl == crate::inst::ThreadCtrl::Atomic {
            opts.push("Atomic".into());
        }
        if i.debug {
            opts.push("Breakpoint".into());
        }
        if self.compacted {
            opts.push("Compacted".into());
        }
        if let Body::Send(s) = &i.body
            && s.eot
        {
            opts.push("EOT".into());
        }
        if let Body::Send(Send {
            ex_desc: Some(ExDesc::Reg {
                src1_len: Some(_), ..
            }),
            ..
        }) = &i.body
        {
            opts.push("ExBSO".into());
        }
        if let Some(sw) = i.swsb {
            opts.push(swsb_text(sw, i.opcode));
        }
        if !opts.is_empty() {
            let _ = write!(self.out, " {{{}}}", opts.join(","));
        }
    }

    fn reg_name(&mut self, file: RegFile, addr: Addr, ty: Type) {
        let (nr, subnr) = match addr {
            Addr::Direct { nr, subnr } => (nr, subnr),
            // `r[a0.N]` or `r[a0.N,offset]`, the offset in bytes [iga].
            Addr::Indirect { addr_subnr, offset } => {
                let _ = write!(self.out, "r[a0.{addr_subnr}");
                if offset != 0 {
                    let _ = write!(self.out, ",{offset}");
                }
                self.out.push(']');
                return;
            }
        };
        let sub = subnr / ty.size().max(1);
        match file {
            RegFile::Grf => {
                let _ = write!(self.out, "r{nr}.{sub}");
            }
            _ => {
                let (name, has_sub) = arf_name(nr);
                self.out.push_str(&name);
                // iga64 -p=12p71 writes null's sub-register when it is not
                // 0 (`cmp (8|M0) (lt)f0.0 null.8<1>:hf ...` from IGC).
                if has_sub || (nr == 0 && sub != 0) {
                    let _ = write!(self.out, ".{sub}");
                }
            }
        }
    }

    fn dst(&mut self, d: &Dst, sat: bool) {
        self.out.push(' ');
        if sat {
            self.out.push_str("(sat)");
        }
        self.reg_name(d.file, d.addr, d.ty);
        let _ = write!(self.out, "<{}>:{}", d.hstride, d.ty.name());
    }

    fn mods(&mut self, negate: bool, abs: bool) {
        // On logic operations the negate modifier inverts bits: IGA writes `~`.
        let logic = matches!(
            self.inst.opcode,
            Opcode::And | Opcode::Or | Opcode::Xor | Opcode::Not
        );
        if negate {
            self.out.push(if logic && !abs { '~' } else { '-' });
        }
        if abs {
            self.out.push_str("(abs)");
        }
    }

    fn src(&mut self, s: &Src, _three: bool) {
        self.out.push(' ');
        match s {
            Src::Reg(r) => {
                self.mods(r.negate, r.abs);
                self.reg_name(r.file, r.addr, r.ty);
                match r.region {
                    Region::Align1 {
                        vstride,
                        width,
                        hstride,
                    } => {
                        let _ = write!(self.out, "<{vstride};{width},{hstride}>");
                    }
                    // Vx1/VxH: IGA writes only width and horizontal stride.
                    Region::VxH { width, hstride } => {
                        let _ = write!(self.out, "<{width},{hstride}>");
                    }
                    Region::Align16 { .. } => {}
                }
                let _ = write!(self.out, ":{}", r.ty.name());
            }
            Src::Imm(i) => self.out.push_str(&imm_text(i)),
            Src::Vacant(_) => {}
        }
    }

    fn src_plain(&mut self, s: &Src) {
        if let Src::Reg(r) = s {
            self.out.push(' ');
            self.reg_name(r.file, r.addr, r.ty);
        }
    }

    fn src3(&mut self, s: &Src, last: bool) {
        self.out.push(' ');
        match s {
            Src::Reg(r) => {
                self.mods(r.negate, r.abs);
                self.reg_name(r.file, r.addr, r.ty);
                if let Region::Align1 {
                    vstride, hstride, ..
                } = r.region
                {
                    if last {
                        let _ = write!(self.out, "<{hstride}>");
                    } else {
                        let _ = write!(self.out, "<{vstride};{hstride}>");
                    }
                }
                let _ = write!(self.out, ":{}", r.ty.name());
            }
            Src::Imm(i) => self.out.push_str(&imm_text(&Imm {
                ty: i.ty,
                bits: i.bits & 0xFFFF,
            })),
            Src::Vacant(_) => {}
        }
    }

    /// `r10:f`, `r10.2:f`, `null:f`; src2 always has its sub-register
    /// (`r40.0:hf`) [iga64 -p=12p71].
    fn dpas_operand(&mut self, file: RegFile, addr: Addr, (name, size): (&str, u8), last: bool) {
        let Addr::Direct { nr, subnr } = addr else {
            return;
        };
        self.out.push(' ');
        let sub = subnr / size;
        match file {
            RegFile::Grf if sub != 0 || last => {
                let _ = write!(self.out, "r{nr}.{sub}");
            }
            RegFile::Grf => {
                let _ = write!(self.out, "r{nr}");
            }
            _ => self.out.push_str(&arf_name(nr).0),
        }
        let _ = write!(self.out, ":{name}");
    }

    fn send_reg(&mut self, file: RegFile, addr: Addr) {
        match (file, addr) {
            (RegFile::Grf, Addr::Direct { nr, .. }) => {
                let _ = write!(self.out, "r{nr}");
            }
            (_, Addr::Direct { nr, .. }) => self.out.push_str(&arf_name(nr).0),
            _ => self.out.push('?'),
        }
    }
}

/// A dpas operand's type name and element size: sub-byte precisions of
/// the byte types are `u4`/`s4`/`u2`/`s2` [iga64 -p=12p71].
pub fn dpas_type(ty: Type, p: Option<Precision>) -> (&'static str, u8) {
    match (ty, p) {
        (Type::Ub, Some(Precision::Bits4)) => ("u4", 1),
        (Type::B, Some(Precision::Bits4)) => ("s4", 1),
        (Type::Ub, Some(Precision::Bits2)) => ("u2", 1),
        (Type::B, Some(Precision::Bits2)) => ("s2", 1),
        _ => (ty.name(), ty.size().max(1)),
    }
}

/// A madm math-macro selector's name.
pub fn mme_name(code: u8) -> String {
    if code == super::tables::MME_NONE {
        "nomme".into()
    } else {
        format!("mme{code}")
    }
}

/// The control-flow opcodes whose target may be a register.
pub fn is_ctrl(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Jmpi | Opcode::Brd | Opcode::Brc | Opcode::Call | Opcode::Calla | Opcode::Ret
    )
}

/// The SWSB annotation as IGA writes it.
pub fn swsb_text(s: Swsb, op: Opcode) -> String {
    match s {
        Swsb::Dist { pipe, dist } => {
            let p = match pipe {
                Pipe::Same => "",
                Pipe::All => "A",
                Pipe::Float => "F",
                Pipe::Int => "I",
                Pipe::Long => "L",
            };
            format!("{p}@{dist}")
        }
        Swsb::Token { mode, sbid } => match mode {
            TokenMode::Set => format!("${sbid}"),
            TokenMode::Dst => format!("${sbid}.dst"),
            TokenMode::Src => format!("${sbid}.src"),
        },
        Swsb::Both { dist, sbid } => {
            if matches!(op, Opcode::Send | Opcode::Sendc) {
                format!("A@{dist},${sbid}")
            } else if out_of_order(op) {
                format!("@{dist},${sbid}")
            } else {
                format!("@{dist},${sbid}.dst")
            }
        }
    }
}
