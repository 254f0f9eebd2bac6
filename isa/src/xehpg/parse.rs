//! Gen12.5 IGA-syntax text back to an [`Instruction`]: the inverse of
//! `print.rs`, for the forms the codec covers. One line at a time; `pc` is
//! the line's byte offset so `L<n>` branch targets become offsets.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::codec::{
    ABSENT, DPAS_REGION, MADM_REGION, NO_DST, ctrl_dst, ctrl_reg, desc_a0, macro_math,
    math_macro_region, msg_desc, null_dst, send_reg,
};
use super::print::{math_name, mme_name, sync_name};
use super::tables::{Form, MME_NONE, OPCODES, SFIDS};
use crate::inst::{
    Addr, Alu, Bfn, Body, Branch, CondMod, Dpas, Dst, DstSlot, ExDesc, FlagReg, GroupCtrl, Imm,
    Instruction, Jump, Math, MathFn, Opcode, Pipe, Precision, PredCtrl, RegFile, RegSrc, Region,
    Send, SendDesc, Src, Swsb, Sync, SyncFn, ThreadCtrl, ThreeSrc, TokenMode, Type, WRITEMASK_XYZW,
};

pub(super) type R<T> = Result<T, String>;

const TYPES: [Type; 15] = [
    Type::Ud,
    Type::D,
    Type::Uw,
    Type::W,
    Type::Ub,
    Type::B,
    Type::F,
    Type::Df,
    Type::V,
    Type::Uv,
    Type::Vf,
    Type::Uq,
    Type::Q,
    Type::Hf,
    Type::Bf,
];

fn ty(s: &str) -> R<Type> {
    TYPES
        .iter()
        .copied()
        .find(|t| t.name() == s)
        .ok_or_else(|| format!("unknown type :{s}"))
}

fn num(s: &str) -> R<i64> {
    let (neg, body) = s.strip_prefix('-').map_or((false, s), |b| (true, b));
    let v = if let Some(h) = body.strip_prefix("0x") {
        u64::from_str_radix(h, 16).map_err(|_| format!("bad number {s}"))? as i64
    } else {
        body.parse::<u64>().map_err(|_| format!("bad number {s}"))? as i64
    };
    Ok(if neg { v.wrapping_neg() } else { v })
}

fn pred_of(s: &str) -> R<PredCtrl> {
    Ok(match s {
        "" => PredCtrl::Normal,
        "anyv" => PredCtrl::AnyV,
        "allv" => PredCtrl::AllV,
        "any2h" => PredCtrl::Any2H,
        "all2h" => PredCtrl::All2H,
        "any4h" => PredCtrl::Any4H,
        "all4h" => PredCtrl::All4H,
        "any8h" => PredCtrl::Any8H,
        "all8h" => PredCtrl::All8H,
        "any16h" => PredCtrl::Any16H,
        "all16h" => PredCtrl::All16H,
        "any32h" => PredCtrl::Any32H,
        "all32h" => PredCtrl::All32H,
        _ => return Err(format!("unknown predicate .{s}")),
    })
}

fn flag(s: &str) -> R<FlagReg> {
    let f = s
        .strip_prefix('f')
        .ok_or_else(|| format!("expected a flag register: {s}"))?;
    let (r, sub) = f.split_once('.').ok_or_else(|| format!("bad flag {s}"))?;
    Ok(FlagReg {
        reg: r.parse().map_err(|_| format!("bad flag {s}"))?,
        subreg: sub.parse().map_err(|_| format!("bad flag {s}"))?,
    })
}

fn cond_of(s: &str) -> R<CondMod> {
    Ok(match s {
        "eq" => CondMod::Z,
        "ne" => CondMod::Nz,
        "gt" => CondMod::G,
        "ge" => CondMod::Ge,
        "lt" => CondMod::L,
        "le" => CondMod::Le,
        "ov" => CondMod::O,
        "un" => CondMod::U,
        _ => return Err(format!("unknown condition ({s})")),
    })
}

/// A register name: `r12.3` (sub-register in elements of `t`) or an ARF.
pub(super) fn reg(s: &str, t: Type) -> R<(RegFile, u8, u8)> {
    let size = t.size();
    let split = |s: &str| -> R<(u8, u8)> {
        match s.split_once('.') {
            Some((n, sub)) => Ok((
                n.parse().map_err(|_| format!("bad register {s}"))?,
                sub.parse::<u8>().map_err(|_| format!("bad register {s}"))? * size,
            )),
            None => Ok((s.parse().map_err(|_| format!("bad register {s}"))?, 0)),
        }
    };
    if s.starts_with("r[") {
        return Err(format!("{s}: an indirect register has no direct address"));
    }
    if let Some(rest) = s.strip_prefix('r') {
        let (nr, sub) = split(rest)?;
        return Ok((RegFile::Grf, nr, sub));
    }
    let arfs: [(&str, u8); 11] = [
        ("null", 0x00),
        ("acc", 0x20),
        ("a", 0x10),
        ("f", 0x30),
        ("ce", 0x40),
        ("sr", 0x70),
        ("cr", 0x80),
        ("n", 0x90),
        ("ip", 0xA0),
        ("tdr", 0xB0),
        ("tm", 0xC0),
    ];
    for (name, base) in arfs {
        if let Some(rest) = s.strip_prefix(name) {
            if rest.is_empty() {
                return Ok((RegFile::Arf, base, 0));
            }
            // `null.8`: null with a sub-register (see print.rs).
            if base == 0
                && let Some(sub) = rest.strip_prefix('.')
            {
                let sub = sub.parse::<u8>().map_err(|_| format!("bad register {s}"))?;
                return Ok((RegFile::Arf, 0, sub * size));
            }
            if rest.starts_with(|c: char| c.is_ascii_digit()) {
                let (n, sub) = split(rest)?;
                return Ok((RegFile::Arf, base | (n & 0xF), sub));
            }
        }
    }
    Err(format!("unknown register {s}"))
}

fn half_bits(v: f64) -> R<u64> {
    // Exact halves only (what IGA prints round-trips through f64).
    let f = v as f32;
    let b = f.to_bits();
    let sign = (b >> 16) & 0x8000;
    if f.is_infinite() {
        return Ok(u64::from(sign | 0x7C00));
    }
    // Subnormal halves: multiples of 2^-24 below 2^-14.
    let scaled = f64::from(f.abs()) * 16_777_216.0;
    if scaled < 1024.0 && scaled == f64::from(scaled as u32) {
        return Ok(u64::from(sign | scaled as u32));
    }
    let exp = ((b >> 23) & 0xFF) as i32 - 127 + 15;
    let man = b & 0x7F_FFFF;
    if !(1..31).contains(&exp) || man & 0x1FFF != 0 {
        return Err(format!("{v} is not an exact half float"));
    }
    Ok(u64::from(sign | (exp as u32) << 10 | man >> 13))
}

fn float(s: &str) -> R<f64> {
    match s {
        "inf" => Ok(f64::INFINITY),
        "-inf" => Ok(f64::NEG_INFINITY),
        _ => s.parse::<f64>().map_err(|_| format!("bad float {s}")),
    }
}

/// `[-]qnan(0x..)` / `[-]snan(0x..)`: a NaN of `width` bits with that
/// payload below the quiet bit [IGA `Frontend/Floats.cpp`: the syntax
/// `'-'? ('snan'|'qnan') '(' HEXLIT ')'`; an snan's payload is not 0].
fn nan_bits(s: &str, width: u32) -> Option<R<u64>> {
    let (sign, rest) = match s.strip_prefix('-') {
        Some(r) => (1u64 << (width - 1), r),
        None => (0, s),
    };
    let (quiet, payload) = if let Some(p) = rest.strip_prefix("qnan(") {
        (true, p)
    } else {
        (false, rest.strip_prefix("snan(")?)
    };
    let man_bits = match width {
        16 => 10,
        32 => 23,
        _ => 52,
    };
    let q = 1u64 << (man_bits - 1);
    let payload = payload
        .strip_suffix(')')
        .and_then(|p| p.strip_prefix("0x"))
        .and_then(|p| u64::from_str_radix(p, 16).ok());
    Some(match payload {
        Some(p) if p < q && (quiet || p != 0) => {
            let exp = (u64::MAX >> (64 - width)) >> 1 & !((1u64 << man_bits) - 1);
            Ok(sign | exp | if quiet { q } else { 0 } | p)
        }
        _ => Err(format!("bad NaN {s}")),
    })
}

/// `value:type`; `three` keeps 16-bit immediates unreplicated.
fn imm(s: &str, three: bool) -> R<Imm> {
    let (v, t) = s
        .rsplit_once(':')
        .ok_or_else(|| format!("bad operand {s}"))?;
    let t = ty(t)?;
    // iga64 writes some floats as their bits (`0x3F800001:f`).
    let float_bits = t.is_float() && v.starts_with("0x");
    let width = match t {
        Type::Hf => 16,
        Type::Df => 64,
        _ => 32,
    };
    let nan = if t.is_float() {
        nan_bits(v, width).transpose()?
    } else {
        None
    };
    let bits = match t {
        _ if nan.is_some() && t == Type::Hf => {
            let h = nan.unwrap_or(0);
            if three { h } else { h | h << 16 }
        }
        _ if nan.is_some() => nan.unwrap_or(0),
        _ if float_bits && t == Type::Hf => {
            let h = num(v)? as u64 & 0xFFFF;
            if three { h } else { h | h << 16 }
        }
        _ if float_bits => num(v)? as u64,
        Type::F => u64::from((float(v)? as f32).to_bits()),
        Type::Df => float(v)?.to_bits(),
        Type::Hf => {
            let h = half_bits(float(v)?)?;
            if three { h } else { h | h << 16 }
        }
        Type::W | Type::Uw => {
            let h = (num(v)? as u64) & 0xFFFF;
            if three { h } else { h | h << 16 }
        }
        Type::Uq | Type::Q => num(v)? as u64,
        _ => (num(v)? as u64) & 0xFFFF_FFFF,
    };
    Ok(Imm { ty: t, bits })
}

fn region_nums(r: &str) -> R<Vec<u8>> {
    r.split([';', ','])
        .map(|x| x.parse::<u8>().map_err(|_| format!("bad region <{r}>")))
        .collect()
}

/// A register operand's address: `r[a0.N]`, `r[a0.N,offset]` (indirect,
/// GRF) or a direct name (see [`reg`]).
fn addr(s: &str, t: Type) -> R<(RegFile, Addr)> {
    let Some(inner) = s.strip_prefix("r[a0.").and_then(|r| r.strip_suffix(']')) else {
        let (file, nr, subnr) = reg(s, t)?;
        return Ok((file, Addr::Direct { nr, subnr }));
    };
    let (sub, off) = inner.split_once(',').unwrap_or((inner, "0"));
    Ok((
        RegFile::Grf,
        Addr::Indirect {
            addr_subnr: sub
                .parse()
                .map_err(|_| format!("bad address register in {s}"))?,
            offset: off.parse().map_err(|_| format!("bad offset in {s}"))?,
        },
    ))
}

/// A source: modifiers, register, region, type; or an immediate.
fn src(s: &str, three: Option<bool>) -> R<Src> {
    let (negate, rest) = match s.strip_prefix('-').or_else(|| s.strip_prefix('~')) {
        Some(r)
            if r.starts_with(|c: char| !c.is_ascii_digit())
                && !["inf", "qnan(", "snan("].iter().any(|p| r.starts_with(p)) =>
        {
            (true, r)
        }
        _ => (false, s),
    };
    let (abs, rest) = rest
        .strip_prefix("(abs)")
        .map_or((false, rest), |r| (true, r));
    let Some(lt) = rest.find('<') else {
        if rest.starts_with("null") && !rest.contains(':') {
            return Ok(Src::Reg(RegSrc {
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
            }));
        }
        return Ok(Src::Imm(imm(s, three.is_some())?));
    };
    let gt = rest.find('>').ok_or_else(|| format!("bad region in {s}"))?;
    let t = ty(rest[gt + 1..].trim_start_matches(':'))?;
    let (file, addr) = addr(&rest[..lt], t)?;
    let n = region_nums(&rest[lt + 1..gt])?;
    let region = match (three, n.as_slice()) {
        (None, [v, w, h]) => Region::Align1 {
            vstride: *v,
            width: *w,
            hstride: *h,
        },
        (None, [w, h]) if matches!(addr, Addr::Indirect { .. }) => Region::VxH {
            width: *w,
            hstride: *h,
        },
        (Some(false), [v, h]) => Region::Align1 {
            vstride: *v,
            width: 1,
            hstride: *h,
        },
        (Some(true), [h]) => Region::Align1 {
            vstride: 0,
            width: 1,
            hstride: *h,
        },
        _ => return Err(format!("bad region in {s}")),
    };
    Ok(Src::Reg(RegSrc {
        file,
        ty: t,
        addr,
        region,
        negate,
        abs,
    }))
}

fn dst(s: &str) -> R<(Dst, bool)> {
    let (sat, rest) = s.strip_prefix("(sat)").map_or((false, s), |r| (true, r));
    let lt = rest
        .find('<')
        .ok_or_else(|| format!("bad destination {s}"))?;
    let gt = rest
        .find('>')
        .ok_or_else(|| format!("bad destination {s}"))?;
    let t = ty(rest[gt + 1..].trim_start_matches(':'))?;
    let (file, addr) = addr(&rest[..lt], t)?;
    Ok((
        Dst {
            file,
            ty: t,
            addr,
            hstride: rest[lt + 1..gt]
                .parse()
                .map_err(|_| format!("bad stride in {s}"))?,
            writemask: WRITEMASK_XYZW,
        },
        sat,
    ))
}

/// The SWSB options; a combined one's meaning follows from the opcode
/// (see `Swsb::Both`), so `$n` and `$n.dst` read alike there.
pub(super) fn swsb(s: &str) -> R<Option<Swsb>> {
    let dist = |d: &str| d.parse::<u8>().map_err(|_| format!("bad SWSB {s}"));
    if let Some((a, b)) = s.split_once(',') {
        let (_, d) = a.split_once('@').ok_or_else(|| format!("bad SWSB {s}"))?;
        let t = b.trim_start_matches('$');
        let t = t.strip_suffix(".dst").unwrap_or(t);
        return Ok(Some(Swsb::Both {
            dist: dist(d)?,
            sbid: dist(t)?,
        }));
    }
    if let Some(t) = s.strip_prefix('$') {
        let (n, mode) = match t.split_once('.') {
            Some((n, "dst")) => (n, TokenMode::Dst),
            Some((n, "src")) => (n, TokenMode::Src),
            None => (t, TokenMode::Set),
            _ => return Err(format!("bad SWSB {s}")),
        };
        return Ok(Some(Swsb::Token {
            mode,
            sbid: dist(n)?,
        }));
    }
    let (p, d) = s
        .split_once('@')
        .ok_or_else(|| format!("unknown option {s}"))?;
    let pipe = match p {
        "" => Pipe::Same,
        "A" => Pipe::All,
        "F" => Pipe::Float,
        "I" => Pipe::Int,
        "L" => Pipe::Long,
        _ => return Err(format!("unknown pipe {p}@")),
    };
    Ok(Some(Swsb::Dist {
        pipe,
        dist: dist(d)?,
    }))
}

/// `(N|Mx)` (the opening parenthesis gone or not): size and group.
pub(super) fn exec_group(e: &str) -> R<(u8, GroupCtrl)> {
    let e = e.trim_start_matches('(').trim_end_matches(')');
    let (n, m) = e
        .split_once("|M")
        .ok_or_else(|| format!("bad execution size ({e})"))?;
    let n = n.parse().map_err(|_| format!("bad execution size {n}"))?;
    let m: u8 = m.parse().map_err(|_| format!("bad channel offset M{m}"))?;
    Ok((
        n,
        GroupCtrl::Quarter {
            qtr: m / 8,
            nib: m % 8 == 4,
        },
    ))
}

/// Parses one instruction line (no label definitions, no comments).
pub fn parse(line: &str, pc: i64) -> R<Instruction> {
    let toks: Vec<&str> = line.split_whitespace().collect();
    let mut k = 0;
    let mut inst = Instruction::new(
        Opcode::Nop,
        1,
        GroupCtrl::Quarter { qtr: 0, nib: false },
        Body::Alu(Alu {
            dst: send_dst(RegFile::Arf, 0),
            src0: ABSENT,
            src1: ABSENT,
        }),
    );
    let next = |k: &mut usize| -> R<&str> {
        let t = toks.get(*k).copied().ok_or("line ends early")?;
        *k += 1;
        Ok(t)
    };
    let mut t = next(&mut k)?;
    if let Some(p) = t.strip_prefix('(').and_then(|p| p.strip_suffix(')')) {
        let mut p = p;
        if let Some(r) = p.strip_prefix('W') {
            inst.no_mask = true;
            p = r.strip_prefix('&').unwrap_or(r);
        }
        if !p.is_empty() {
            if let Some(r) = p.strip_prefix('~') {
                inst.pred_inv = true;
                p = r;
            }
            let mut parts = p.splitn(3, '.');
            let f = parts.next().unwrap_or("");
            let sub = parts.next().unwrap_or("");
            inst.flag = flag(&format!("{f}.{sub}"))?;
            inst.pred_ctrl = pred_of(parts.next().unwrap_or(""))?;
        }
        t = next(&mut k)?;
    }
    if super::ldst::is_ldst(t) {
        return super::ldst::parse_ldst(inst, &toks[k - 1..]);
    }
    let (mn, sub) = t.split_once('.').map_or((t, None), |(a, b)| (a, Some(b)));
    let op = Opcode::from_mnemonic(mn).ok_or_else(|| format!("unknown mnemonic {mn}"))?;
    let form = OPCODES
        .iter()
        .find(|(_, o, _)| *o == op)
        .map(|&(_, _, f)| f)
        .ok_or_else(|| format!("{mn} does not exist on gen12.5"))?;
    // Only these forms read a suffix; anything else after a dot would be
    // dropped silently (`add.sat`: IGA writes saturation as `(sat)` before
    // the destination, and iga64 refuses the suffix too).
    if let Some(x) = sub
        && !matches!(
            form,
            Form::Math
                | Form::Sync
                | Form::Send
                | Form::JipUip
                | Form::Jip
                | Form::Bfn
                | Form::Dpas
        )
    {
        return Err(format!(
            "{mn}.{x}: {mn} takes no suffix (saturation is `(sat)` before the destination)"
        ));
    }
    inst.opcode = op;
    if let Some(e) = toks
        .get(k)
        .and_then(|t| t.strip_prefix('('))
        .filter(|t| t.contains('|'))
    {
        (inst.exec_size, inst.group) = exec_group(e)?;
        k += 1;
    }
    let mut early_out = false;
    if let Some(c) = toks.get(k).filter(|t| {
        t.starts_with('(')
            && !t.starts_with("(sat)")
            && !t.starts_with("(abs)")
            && !t.starts_with("($")
            && **t != "()"
    }) {
        let (c, f) = c[1..]
            .split_once(')')
            .ok_or_else(|| format!("bad condition {c}"))?;
        // `(eo)`: the early-out flag of math.invm/rsqtm, no condition.
        early_out = c == "eo";
        if !early_out {
            inst.cond_mod = cond_of(c)?;
        }
        inst.flag = flag(f)?;
        k += 1;
    }
    let mut ops: Vec<&str> = Vec::new();
    let mut opts: Vec<String> = Vec::new();
    for t in &toks[k..] {
        if let Some(o) = t.strip_prefix('{') {
            opts.extend(o.trim_end_matches('}').split(',').map(ToString::to_string));
        } else {
            ops.push(t);
        }
    }
    let mut eot = false;
    let mut bso = false;
    let mut sw = Vec::new();
    for o in &opts {
        match o.as_str() {
            "AccWrEn" | "BranchCtrl" => inst.acc_wr_ctrl = true,
            "Atomic" => inst.thread_ctrl = ThreadCtrl::Atomic,
            "Breakpoint" => inst.debug = true,
            "EOT" => eot = true,
            "ExBSO" => bso = true,
            // Storage, not meaning: the assembler's layout reads it.
            "Compacted" | "Uncompacted" => {}
            s => sw.push(s.to_string()),
        }
    }
    if !sw.is_empty() {
        inst.swsb = swsb(&sw.join(","))?;
    }
    let op_at = |i: usize| {
        ops.get(i)
            .copied()
            .ok_or_else(|| format!("{mn}: missing operand {i}"))
    };
    inst.body = match form {
        // nop, illegal: the opcode and SWSB alone, as the decoder reads them.
        Form::Bare => Body::Alu(Alu {
            dst: null_dst(),
            src0: ABSENT,
            src1: ABSENT,
        }),
        Form::One | Form::Two => {
            let (d, sat) = dst(op_at(0)?)?;
            inst.saturate = sat;
            let src1 = if form == Form::Two {
                src(op_at(2)?, None)?
            } else {
                ABSENT
            };
            Body::Alu(Alu {
                dst: d,
                src0: src(op_at(1)?, None)?,
                src1,
            })
        }
        Form::Math => {
            let f = [
                MathFn::Inv,
                MathFn::Log,
                MathFn::Exp,
                MathFn::Sqrt,
                MathFn::Rsq,
                MathFn::Sin,
                MathFn::Cos,
                MathFn::Fdiv,
                MathFn::Pow,
                MathFn::Invm,
                MathFn::Rsqtm,
            ]
            .into_iter()
            .find(|f| Some(math_name(*f)) == sub)
            .ok_or_else(|| format!("unknown math function {sub:?}"))?;
            if early_out && !macro_math(f) {
                return Err(format!(
                    "(eo) goes with math.invm/rsqtm, not math.{}",
                    math_name(f)
                ));
            }
            if macro_math(f) {
                let (dt, da, _, _) = macro_operand(op_at(0)?)?;
                let src = |k: usize| -> R<Src> {
                    let (ty, addr, negate, abs) = macro_operand(op_at(k)?)?;
                    Ok(Src::Reg(RegSrc {
                        file: RegFile::Grf,
                        ty,
                        addr,
                        region: math_macro_region(inst.exec_size),
                        negate,
                        abs,
                    }))
                };
                return Ok(Instruction {
                    body: Body::Math(Math {
                        function: f,
                        dst: Dst {
                            file: RegFile::Grf,
                            ty: dt,
                            addr: da,
                            hstride: 1,
                            writemask: WRITEMASK_XYZW,
                        },
                        src0: src(1)?,
                        src1: if f == MathFn::Invm { src(2)? } else { ABSENT },
                    }),
                    ..inst
                });
            }
            let (d, sat) = dst(op_at(0)?)?;
            inst.saturate = sat;
            let two = matches!(f, MathFn::Fdiv | MathFn::Pow);
            Body::Math(Math {
                function: f,
                dst: d,
                src0: src(op_at(1)?, None)?,
                src1: if two { src(op_at(2)?, None)? } else { ABSENT },
            })
        }
        Form::Three => {
            let (d, sat) = dst(op_at(0)?)?;
            inst.saturate = sat;
            Body::ThreeSrc(ThreeSrc {
                dst: d,
                src: [
                    src(op_at(1)?, Some(false))?,
                    src(op_at(2)?, Some(false))?,
                    src(op_at(3)?, Some(true))?,
                ],
            })
        }
        Form::Sync => {
            let f = [
                SyncFn::Nop,
                SyncFn::AllRd,
                SyncFn::AllWr,
                SyncFn::Fence,
                SyncFn::Bar,
                SyncFn::Host,
            ]
            .into_iter()
            .find(|f| Some(sync_name(*f)) == sub)
            .ok_or_else(|| format!("unknown sync function {sub:?}"))?;
            let s0 = op_at(0)?;
            let src0 = match s0.strip_prefix('(').and_then(|s| s.strip_suffix(')')) {
                // allrd/allwr's SBID set [IGA `Frontend/KernelParser.cpp`,
                // ParseSyncSrc0Op: `($11,$2,$7)` is the mask, `()` empty].
                Some(set) if matches!(f, SyncFn::AllRd | SyncFn::AllWr) => {
                    let mut bits = 0u64;
                    for id in set.split(',').filter(|x| !x.is_empty()) {
                        let n = id
                            .strip_prefix('$')
                            .and_then(|n| n.parse::<u32>().ok())
                            .filter(|&n| n < 32)
                            .ok_or_else(|| format!("bad SBID {id} in {s0}"))?;
                        bits |= 1 << n;
                    }
                    Src::Imm(Imm { ty: Type::Ud, bits })
                }
                _ => src(s0, None)?,
            };
            Body::Sync(Sync { function: f, src0 })
        }
        Form::Send => {
            let sfid = SFIDS
                .iter()
                .find(|(_, n)| Some(*n) == sub)
                .map(|(f, _)| *f)
                .ok_or_else(|| format!("unknown SFID {sub:?}"))?;
            let file_nr = |s: &str| -> R<(RegFile, u8)> {
                let (f, n, _) = reg(s, Type::Ub)?;
                Ok((f, n))
            };
            let (df, dn) = file_nr(op_at(0)?)?;
            let (f0, n0) = file_nr(op_at(1)?)?;
            let (s1, len) = match op_at(2)?.split_once(':') {
                Some((s1, len)) => (
                    s1,
                    Some(len.parse::<u8>().map_err(|_| format!("bad length {len}"))?),
                ),
                None => (op_at(2)?, None),
            };
            let (f1, n1) = file_nr(s1)?;
            let ex_desc = match op_at(3)?.strip_prefix("a0.") {
                Some(sub) => ExDesc::Reg {
                    subnr: sub
                        .parse()
                        .map_err(|_| format!("bad a0 sub-register {sub}"))?,
                    src1_len: match (bso, len) {
                        (true, Some(l)) => Some(l),
                        (true, None) => return Err("ExBSO send needs src1:length".into()),
                        (false, None) => None,
                        (false, Some(_)) => {
                            return Err("src1:length with a0 needs {ExBSO}".into());
                        }
                    },
                },
                None if bso => return Err("ExBSO needs a register extended descriptor".into()),
                None => ExDesc::Imm(
                    num(op_at(3)?)? as u32 | u32::from(len.ok_or("send src1 needs :length")?) << 6,
                ),
            };
            let desc = match op_at(4)? {
                "a0.0" => SendDesc::Reg(desc_a0()),
                d => SendDesc::Imm {
                    ty: Type::Ud,
                    desc: msg_desc(num(d)? as u32),
                },
            };
            Body::Send(Send {
                dst: send_dst(df, dn),
                src0: Src::Reg(send_reg(f0, n0)),
                desc,
                sfid: Some(sfid),
                base_mrf: None,
                eot,
                src1: Some(Src::Reg(send_reg(f1, n1))),
                ex_desc: Some(ex_desc),
            })
        }
        Form::Target | Form::Call | Form::Ret | Form::Brc => {
            let target = |s: &str| -> R<i32> {
                let v = match s.strip_prefix('L') {
                    Some(l) if op == Opcode::Calla => num(l)?,
                    Some(l) => num(l)? - pc,
                    None => num(s)?,
                };
                i32::try_from(v).map_err(|_| format!("jump {s} out of range"))
            };
            let is_target =
                |s: &str| s.starts_with(['L', '-']) || s.starts_with(|c: char| c.is_ascii_digit());
            let dword_reg = |s: &str| -> R<(RegFile, u8, u8)> {
                if s.contains(['<', ':']) {
                    return Err(format!("{mn}: {s} takes no region or type"));
                }
                reg(s, Type::D)
            };
            let mut at = 0;
            let dst = if form == Form::Call {
                at = 1;
                let (f, n, sub) = dword_reg(op_at(0)?)?;
                Some(ctrl_dst(f, n, sub))
            } else {
                None
            };
            let first = op_at(at)?;
            if form != Form::Ret && is_target(first) {
                let jip = target(first)?;
                let jump = if form == Form::Brc {
                    Jump::JipUip {
                        jip,
                        uip: target(op_at(at + 1)?)?,
                    }
                } else {
                    Jump::Jip { jip }
                };
                Body::Branch(Branch {
                    dst: dst.map_or(NO_DST, DstSlot::Reg),
                    src0: ABSENT,
                    src1: ABSENT,
                    jump,
                })
            } else {
                let (f, n, sub) = dword_reg(first)?;
                Body::Alu(Alu {
                    dst: dst.unwrap_or_else(null_dst),
                    src0: Src::Reg(ctrl_reg(f, n, sub)),
                    src1: ABSENT,
                })
            }
        }
        Form::Madm => {
            let operand = macro_operand;
            let (dt, da, _, _) = operand(op_at(0)?)?;
            let mut srcs = [ABSENT; 3];
            for (k, s) in srcs.iter_mut().enumerate() {
                let (ty, addr, negate, abs) = operand(op_at(k + 1)?)?;
                *s = Src::Reg(RegSrc {
                    file: RegFile::Grf,
                    ty,
                    addr,
                    region: MADM_REGION,
                    negate,
                    abs,
                });
            }
            Body::ThreeSrc(ThreeSrc {
                dst: Dst {
                    file: RegFile::Grf,
                    ty: dt,
                    addr: da,
                    hstride: 1,
                    writemask: WRITEMASK_XYZW,
                },
                src: srcs,
            })
        }
        Form::Bfn => {
            let (d, sat) = dst(op_at(0)?)?;
            inst.saturate = sat;
            Body::Bfn(Bfn {
                function: bfn_function(sub.ok_or("bfn needs its function: bfn.0xCA")?)?,
                dst: d,
                src: [
                    src(op_at(1)?, Some(false))?,
                    src(op_at(2)?, Some(false))?,
                    src(op_at(3)?, Some(true))?,
                ],
            })
        }
        Form::Dpas => {
            let (depth, repeat) = sub
                .and_then(|s| s.split_once('x'))
                .ok_or_else(|| format!("{mn} needs depth x repeat: {mn}.8x8"))?;
            let mut ops = [(RegFile::Grf, Type::Ud, Addr::Direct { nr: 0, subnr: 0 }); 4];
            let mut precision = [Precision::Full; 2];
            for (k, o) in ops.iter_mut().enumerate() {
                let (r, t) = op_at(k)?
                    .split_once(':')
                    .ok_or_else(|| format!("{mn}: operand {k} needs a type"))?;
                let (t, p) = dpas_type(t)?;
                if k >= 2 {
                    precision[k - 2] = p;
                }
                let (file, nr, subnr) = reg(r, if p == Precision::Full { t } else { Type::Ub })?;
                *o = (file, t, Addr::Direct { nr, subnr });
            }
            let src = |k: usize| {
                let (file, ty, addr) = ops[k];
                Src::Reg(RegSrc {
                    file,
                    ty,
                    addr,
                    region: DPAS_REGION,
                    negate: false,
                    abs: false,
                })
            };
            Body::Dpas(Dpas {
                depth: depth.parse().map_err(|_| format!("bad depth {depth}"))?,
                repeat: repeat.parse().map_err(|_| format!("bad repeat {repeat}"))?,
                dst: Dst {
                    file: ops[0].0,
                    ty: ops[0].1,
                    addr: ops[0].2,
                    hstride: 1,
                    writemask: WRITEMASK_XYZW,
                },
                src: [src(1), src(2), src(3)],
                precision,
            })
        }
        Form::JipUip | Form::Jip => {
            match sub {
                Some("b") => inst.acc_wr_ctrl = true,
                None => {}
                Some(x) => return Err(format!("{mn}.{x}: unknown branch control")),
            }
            let target = |s: &str| -> R<i32> {
                let v = match s.strip_prefix('L') {
                    Some(l) => num(l)? - pc,
                    None => num(s)?,
                };
                i32::try_from(v).map_err(|_| format!("jump {s} out of range"))
            };
            let jump = if form == Form::JipUip {
                Jump::JipUip {
                    jip: target(op_at(0)?)?,
                    uip: target(op_at(1)?)?,
                }
            } else {
                Jump::Jip {
                    jip: target(op_at(0)?)?,
                }
            };
            Body::Branch(Branch {
                dst: NO_DST,
                src0: ABSENT,
                src1: ABSENT,
                jump,
            })
        }
    };
    Ok(inst)
}

/// A math-macro operand (madm, math.invm/rsqtm): `-(abs)r20.mme1:df`,
/// modifiers, register, selector, type.
fn macro_operand(s: &str) -> R<(Type, Addr, bool, bool)> {
    let (negate, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
    let (abs, s) = s.strip_prefix("(abs)").map_or((false, s), |r| (true, r));
    let (reg, t) = s
        .split_once(':')
        .ok_or_else(|| format!("{s} needs a type"))?;
    let (nr, sel) = reg
        .strip_prefix('r')
        .and_then(|r| r.split_once('.'))
        .ok_or_else(|| format!("bad macro register {reg}"))?;
    let nr = nr
        .parse()
        .map_err(|_| format!("bad macro register {reg}"))?;
    let subnr = (0..=MME_NONE)
        .find(|&c| mme_name(c) == sel)
        .ok_or_else(|| format!("unknown selector {sel}"))?;
    Ok((ty(t)?, Addr::Direct { nr, subnr }, negate, abs))
}

/// A dpas operand type: the register types, `u8`/`s8` as `ub`/`b`, and
/// the sub-byte `u4 s4 u2 s2` [iga64 -p=12p71].
fn dpas_type(s: &str) -> R<(Type, Precision)> {
    Ok(match s {
        "u8" => (Type::Ub, Precision::Full),
        "s8" => (Type::B, Precision::Full),
        "u4" => (Type::Ub, Precision::Bits4),
        "s4" => (Type::B, Precision::Bits4),
        "u2" => (Type::Ub, Precision::Bits2),
        "s2" => (Type::B, Precision::Bits2),
        _ => (ty(s)?, Precision::Full),
    })
}

/// bfn's function: a value (`0xCA`) or an expression over `s0 s1 s2` with
/// `~ & ^ |` (C precedence) and parentheses, `zeros`, `ones`, as iga64
/// prints it: each source stands for its truth-table column (s0 = 0xAA,
/// s1 = 0xCC, s2 = 0xF0; 004 lines 11150-11160).
pub fn bfn_function(s: &str) -> R<u8> {
    if s.starts_with("0x") || s.starts_with(|c: char| c.is_ascii_digit()) {
        return u8::try_from(num(s)?).map_err(|_| format!("bfn function {s} is not 8 bits"));
    }
    let e = s
        .strip_prefix('(')
        .and_then(|e| e.strip_suffix(')'))
        .ok_or_else(|| format!("bad bfn function {s}"))?;
    let mut p = BfnExpr {
        text: e.as_bytes(),
        at: 0,
        depth: 0,
    };
    let v = p.or()?;
    if p.at != p.text.len() {
        return Err(format!("bad bfn function {s}"));
    }
    Ok(v)
}

struct BfnExpr<'a> {
    text: &'a [u8],
    at: usize,
    /// Nesting of `~` and parentheses, bounded so that no input exhausts
    /// the stack.
    depth: u32,
}

impl BfnExpr<'_> {
    fn eat(&mut self, c: u8) -> bool {
        let hit = self.text.get(self.at) == Some(&c);
        self.at += usize::from(hit);
        hit
    }

    fn or(&mut self) -> R<u8> {
        let mut v = self.xor()?;
        while self.eat(b'|') {
            v |= self.xor()?;
        }
        Ok(v)
    }

    fn xor(&mut self) -> R<u8> {
        let mut v = self.and()?;
        while self.eat(b'^') {
            v ^= self.and()?;
        }
        Ok(v)
    }

    fn and(&mut self) -> R<u8> {
        let mut v = self.not()?;
        while self.eat(b'&') {
            v &= self.not()?;
        }
        Ok(v)
    }

    fn not(&mut self) -> R<u8> {
        if self.depth > 64 {
            return Err("bfn: expression nested too deeply".into());
        }
        if self.eat(b'~') {
            self.depth += 1;
            let v = !self.not()?;
            self.depth -= 1;
            return Ok(v);
        }
        if self.eat(b'(') {
            self.depth += 1;
            let v = self.or()?;
            self.depth -= 1;
            return if self.eat(b')') {
                Ok(v)
            } else {
                Err("bfn: unbalanced parenthesis".into())
            };
        }
        let rest = &self.text[self.at..];
        for (name, v) in [
            ("s0", 0xAA),
            ("s1", 0xCC),
            ("s2", 0xF0),
            ("zeros", 0x00),
            ("ones", 0xFF),
        ] {
            if rest.starts_with(name.as_bytes()) {
                self.at += name.len();
                return Ok(v);
            }
        }
        Err(format!(
            "bfn: unexpected {:?}",
            core::str::from_utf8(rest).unwrap_or("")
        ))
    }
}

fn send_dst(file: RegFile, nr: u8) -> Dst {
    Dst {
        file,
        ty: Type::Ud,
        addr: Addr::Direct { nr, subnr: 0 },
        hstride: 1,
        writemask: WRITEMASK_XYZW,
    }
}
