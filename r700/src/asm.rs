//! Assembler for the exact text of [`crate::llvm_text::program_exact`]: llc's syntax, plus
//! ` ; key=value ...` for the fields that syntax leaves out. Without annotations, fields
//! take the values LLVM's R600 backend gives them (BARRIER set, ELEM_SIZE 3 for EXPORT, ...).

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::alu::{AluForm, AluGroup, AluInst, OP2, OP3, OpInfo, Src, sel};
use crate::cf::{CfAlu, CfAluOp, CfExport, CfInst, CfOp, CfWord, ExportOp, ExportWord1};
use crate::fetch::{TexInst, VtxInst, tex_op_name};
use crate::mem::{self, DsRead, DsWrite, MemInst, MemRead};
use crate::program::{Clause, Program};

/// A line that does not assemble.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// 1-based line number.
    pub line: usize,
    pub msg: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.msg)
    }
}

impl core::error::Error for AsmError {}

type R<T> = Result<T, String>;

/// A cursor over one line.
struct Cur<'a>(&'a str);

impl<'a> Cur<'a> {
    fn eat(&mut self, p: &str) -> bool {
        match self.0.strip_prefix(p) {
            Some(r) => {
                self.0 = r;
                true
            }
            None => false,
        }
    }
    fn expect(&mut self, p: &str) -> R<()> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(format!("expected {p:?} at {:?}", self.0))
        }
    }
    fn num(&mut self) -> R<u32> {
        let neg = self.eat("-");
        let n = self.0.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return Err(format!("expected a number at {:?}", self.0));
        }
        let v: i64 = self.0[..n]
            .parse()
            .map_err(|_| format!("bad number {:?}", &self.0[..n]))?;
        self.0 = &self.0[n..];
        let v = if neg { -v } else { v };
        if v < i32::MIN as i64 || v > u32::MAX as i64 {
            return Err(format!("{v} does not fit 32 bits"));
        }
        Ok(v as u32)
    }
    fn chan(&mut self) -> R<u8> {
        let c = self.0.chars().next().ok_or("expected an element")?;
        let v = match c {
            'X' | 'x' => 0,
            'Y' | 'y' => 1,
            'Z' | 'z' => 2,
            'W' | 'w' => 3,
            _ => return Err(format!("expected X, Y, Z or W at {:?}", self.0)),
        };
        self.0 = &self.0[1..];
        Ok(v)
    }
    /// Four swizzle selects: X Y Z W 0 1 _.
    fn sel4(&mut self) -> R<[u8; 4]> {
        self.sel4_prefix(4)
    }
    /// The first `n` of four swizzle selects (the rest zero).
    fn sel4_prefix(&mut self, n: usize) -> R<[u8; 4]> {
        let mut s = [0; 4];
        for v in s.iter_mut().take(n) {
            let c = self.0.chars().next().ok_or("expected four selects")?;
            *v = match c {
                'X' => 0,
                'Y' => 1,
                'Z' => 2,
                'W' => 3,
                '0' => 4,
                '1' => 5,
                '_' => 7,
                _ => return Err(format!("bad select {c:?}")),
            };
            self.0 = &self.0[1..];
        }
        Ok(s)
    }
    fn end(&self) -> R<()> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(format!("unexpected {:?}", self.0))
        }
    }
}

/// Splits ` ; key=value ...` off a line.
fn split_extras(line: &str) -> R<(&str, BTreeMap<&str, u32>)> {
    let Some(at) = line.rfind(" ;") else {
        return Ok((line, BTreeMap::new()));
    };
    let mut m = BTreeMap::new();
    for kv in line[at + 2..].split_whitespace() {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("bad annotation {kv:?}"))?;
        let v: u32 = v.parse().map_err(|_| format!("bad value in {kv:?}"))?;
        if m.insert(k, v).is_some() {
            return Err(format!("{k} given twice"));
        }
    }
    Ok((&line[..at], m))
}

/// Annotations, each read once; leftovers are an error.
struct Extras<'a>(BTreeMap<&'a str, u32>);

impl Extras<'_> {
    fn get(&mut self, k: &str, default: u32, max: u32) -> R<u32> {
        match self.0.remove(k) {
            Some(v) if v > max => Err(format!("{k}={v} is larger than {max}")),
            Some(v) => Ok(v),
            None => Ok(default),
        }
    }
    fn flag(&mut self, k: &str, default: bool) -> R<bool> {
        Ok(self.get(k, default as u32, 1)? != 0)
    }
    fn done(self) -> R<()> {
        match self.0.keys().next() {
            Some(k) => Err(format!("unknown annotation {k:?}")),
            None => Ok(()),
        }
    }
}

fn cf_op_by_name(name: &str) -> Option<CfOp> {
    (0..32)
        .filter_map(CfOp::from_bits)
        .find(|o| o.name() == name)
}

fn kcache(c: &mut Cur) -> R<(u8, u8, u8)> {
    if c.eat("]") {
        return Ok((0, 0, 0));
    }
    c.expect("CB")?;
    let bank = c.num()?;
    c.expect(":")?;
    let a = c.num()?;
    c.expect("-")?;
    let b = c.num()?;
    c.expect("]")?;
    let mode = match b.wrapping_sub(a) {
        16 => 1,
        32 => 2,
        _ => {
            return Err(format!(
                "kcache range {a}-{b} is neither 16 nor 32 constants"
            ));
        }
    };
    if a % 16 != 0 || a / 16 > 255 || bank > 15 {
        return Err(format!("kcache CB{bank}:{a} out of range"));
    }
    Ok((mode, bank as u8, (a / 16) as u8))
}

fn parse_cf(text: &str, x: &mut Extras) -> R<CfInst> {
    let mut c = Cur(text);
    let name: &str = text.split(' ').next().unwrap_or("");
    c.0 = &text[name.len()..];
    if let Some(op) = [
        CfAluOp::Alu,
        CfAluOp::AluPushBefore,
        CfAluOp::AluPopAfter,
        CfAluOp::AluPop2After,
        CfAluOp::AluContinue,
        CfAluOp::AluBreak,
        CfAluOp::AluElseAfter,
    ]
    .into_iter()
    .find(|o| o.name() == name)
    {
        c.expect(" ")?;
        let count = c.num()?;
        c.expect(", @")?;
        let addr = c.num()?;
        c.expect(", KC0[")?;
        let k0 = kcache(&mut c)?;
        c.expect(", KC1[")?;
        let k1 = kcache(&mut c)?;
        c.end()?;
        if count > 127 || addr >= 1 << 22 {
            return Err("ALU COUNT or ADDR out of range".into());
        }
        let mut modes = [k0.0, k1.0];
        let mut banks = [k0.1, k1.1];
        let mut addrs = [k0.2, k1.2];
        for (k, keys) in [
            ["kc0mode", "kc0bank", "kc0addr"],
            ["kc1mode", "kc1bank", "kc1addr"],
        ]
        .iter()
        .enumerate()
        {
            if x.get(keys[0], 0, 3)? == 3 {
                modes[k] = 3;
            }
            banks[k] = x.get(keys[1], banks[k] as u32, 15)? as u8;
            addrs[k] = x.get(keys[2], addrs[k] as u32, 255)? as u8;
        }
        return Ok(CfInst::Alu(CfAlu {
            addr,
            kcache_bank: banks,
            kcache_mode: modes,
            kcache_addr: addrs,
            count: count as u8,
            alt_const: x.flag("alt", false)?,
            op,
            whole_quad_mode: x.flag("wqm", false)?,
            barrier: x.flag("barrier", true)?,
        }));
    }
    if name == "EXPORT" {
        c.expect(" T")?;
        let gpr = c.num()?;
        let sel = if c.eat(".") { Some(c.sel4()?) } else { None };
        c.end()?;
        let opv = x.get("op", 39, 127)?;
        let op = ExportOp::from_bits(opv).ok_or_else(|| format!("op={opv} is not an export"))?;
        let word1 = match (op.uses_swizzle(), sel) {
            (true, Some(sel)) => ExportWord1::Swiz { sel },
            (false, None) => ExportWord1::Buf {
                array_size: x.get("asize", 0, 4095)? as u16,
                comp_mask: x.get("mask", 0, 15)? as u8,
            },
            _ => {
                return Err(format!(
                    "{} takes {}",
                    op.name(),
                    if op.uses_swizzle() {
                        "a swizzle"
                    } else {
                        "no swizzle"
                    }
                ));
            }
        };
        let swiz = op.uses_swizzle();
        return Ok(CfInst::Export(CfExport {
            array_base: x.get("base", 0, 8191)? as u16,
            kind: x.get("type", 0, 3)? as u8,
            rw_gpr: u8::try_from(gpr)
                .ok()
                .filter(|g| *g < 128)
                .ok_or("GPR out of range")?,
            rw_rel: x.flag("rel", false)?,
            index_gpr: x.get("index", 0, 127)? as u8,
            elem_size: x.get("esize", if swiz { 3 } else { 0 }, 3)? as u8,
            word1,
            burst_count: x.get("burst", 0, 15)? as u8,
            end_of_program: x.flag("eop", false)?,
            valid_pixel_mode: x.flag("vpm", false)?,
            op,
            whole_quad_mode: x.flag("wqm", false)?,
            barrier: x.flag("barrier", true)?,
        }));
    }
    // CF_WORD forms.
    let (op, eop_default) = match name {
        "CF_END" => (CfOp::Nop, true),
        "END_LOOP" => (CfOp::LoopEnd, false),
        "CONTINUE" => (CfOp::LoopContinue, false),
        n => (
            cf_op_by_name(n).ok_or_else(|| format!("unknown instruction {n:?}"))?,
            false,
        ),
    };
    let (mut addr, mut count, mut pop) = (None, None, None);
    if matches!(op, CfOp::Tex | CfOp::Vtx | CfOp::VtxTc) {
        c.expect(" ")?;
        count = Some(c.num()?);
    }
    if c.eat(" @") {
        addr = Some(c.num()?);
    }
    if c.eat(" POP:") {
        pop = Some(c.num()?);
    }
    c.end()?;
    let count = match count {
        Some(v) if v > 15 => return Err("COUNT is larger than 15".into()),
        Some(v) => v,
        None => x.get("count", 0, 15)?,
    };
    let pop = match pop {
        Some(v) if v > 7 => return Err("POP_COUNT is larger than 7".into()),
        Some(v) => v,
        None => x.get("pop", 0, 7)?,
    };
    let addr = match addr {
        Some(v) => v,
        None => x.get("addr", 0, u32::MAX)?,
    };
    let eop = if op == CfOp::Nop {
        eop_default
    } else {
        x.flag("eop", false)?
    };
    Ok(CfInst::Word(CfWord {
        addr,
        pop_count: pop as u8,
        cf_const: x.get("cfconst", 0, 31)? as u8,
        cond: x.get("cond", 0, 3)? as u8,
        count: count as u8,
        call_count: x.get("callcount", 0, 63)? as u8,
        end_of_program: eop,
        valid_pixel_mode: x.flag("vpm", false)?,
        op,
        whole_quad_mode: x.flag("wqm", false)?,
        barrier: x.flag("barrier", true)?,
    }))
}

fn gpr(c: &mut Cur) -> R<u8> {
    let n = c.num()?;
    u8::try_from(n)
        .ok()
        .filter(|g| *g < 128)
        .ok_or_else(|| format!("T{n} out of range"))
}

/// One source operand: `-|KC0`[3]`.Y|+`.
fn parse_src(c: &mut Cur) -> R<Src> {
    let mut s = Src {
        neg: c.eat("-"),
        ..Src::default()
    };
    // "-1" is ALU_SRC_M_1_INT ("-1.0" is a negated 1.0); "--1" negates it.
    if s.neg
        && c.0.starts_with('1')
        && !c.0[1..].starts_with(|ch: char| ch == '.' || ch.is_ascii_digit())
    {
        c.eat("1");
        s.neg = false;
        s.sel = sel::M_ONE_INT;
        s.rel = c.eat("+");
        return Ok(s);
    }
    s.abs = c.eat("|");
    let idx = |c: &mut Cur, base: u16, max: u32| -> R<u16> {
        let n = c.num()?;
        if n >= max {
            return Err(format!("index {n} out of range"));
        }
        Ok(base + n as u16)
    };
    if c.eat("T") {
        s.sel = gpr(c)? as u16;
        c.expect(".")?;
        s.chan = c.chan()?;
    } else if c.eat("KC0[") {
        s.sel = idx(c, sel::KCACHE0, 32)?;
        c.expect("].")?;
        s.chan = c.chan()?;
    } else if c.eat("KC1[") {
        s.sel = idx(c, sel::KCACHE1, 32)?;
        c.expect("].")?;
        s.chan = c.chan()?;
    } else if c.eat("C") {
        s.sel = idx(c, sel::CFILE, 256)?;
        c.expect(".")?;
        s.chan = c.chan()?;
    } else if c.eat("PV.") {
        s.sel = sel::PV;
        s.chan = c.chan()?;
    } else if c.eat("PS") {
        s.sel = sel::PS;
    } else if c.eat("literal.") {
        s.sel = sel::LITERAL;
        s.chan = c.chan()?;
    } else {
        const NAMED: [(&str, u16); 9] = [
            ("1.0_DBL_L", sel::ONE_DBL_L),
            ("1.0_DBL_M", sel::ONE_DBL_M),
            ("0.5_DBL_L", sel::HALF_DBL_L),
            ("0.5_DBL_M", sel::HALF_DBL_M),
            ("0.0", sel::ZERO),
            ("1.0", sel::ONE),
            ("0.5", sel::HALF),
            ("-1", sel::M_ONE_INT),
            ("1", sel::ONE_INT),
        ];
        s.sel = NAMED
            .iter()
            .find(|(n, _)| c.eat(n))
            .map(|&(_, v)| v)
            .ok_or_else(|| format!("unknown operand at {:?}", c.0))?;
    }
    if s.abs {
        c.expect("|")?;
    }
    s.rel = c.eat("+");
    Ok(s)
}

fn apply_src_extras(s: &mut Src, k: usize, x: &mut Extras) -> R<()> {
    let keys = [
        ["s0sel", "s0chan", "s0neg", "s0abs", "s0rel"],
        ["s1sel", "s1chan", "s1neg", "s1abs", "s1rel"],
        ["s2sel", "s2chan", "s2neg", "s2abs", "s2rel"],
    ][k];
    s.sel = x.get(keys[0], s.sel as u32, 511)? as u16;
    if (192..244).contains(&s.sel) {
        return Err(format!("{}={} is reserved", keys[0], s.sel));
    }
    s.chan = x.get(keys[1], s.chan as u32, 3)? as u8;
    s.neg = x.flag(keys[2], s.neg)?;
    s.abs = x.flag(keys[3], s.abs)?;
    s.rel = x.flag(keys[4], s.rel)?;
    Ok(())
}

fn tail(c: &mut Cur, sep: bool) -> R<(u8, u8)> {
    let pred = if c.eat("Pred_sel_zero") {
        2
    } else if c.eat("Pred_sel_one") {
        3
    } else {
        0
    };
    if sep {
        c.expect(" ")?;
    }
    const BS: [&str; 5] = [
        "BS:VEC_021/SCL_122",
        "BS:VEC_120/SCL_212",
        "BS:VEC_102/SCL_221",
        "BS:VEC_201",
        "BS:VEC_210",
    ];
    let bs = BS.iter().position(|b| c.eat(b)).map_or(0, |p| p as u8 + 1);
    c.end()?;
    Ok((pred, bs))
}

/// The opcode whose LLVM name starts the line, longest match first ("MUL NON-IEEE" before
/// "MUL", "MULADD_IEEE" before "MULADD").
fn find_op(rest: &str) -> Option<(bool, &'static OpInfo)> {
    let mut best: Option<(bool, &'static OpInfo)> = None;
    for (op3, table) in [(false, OP2), (true, OP3)] {
        for o in table {
            if let Some(r) = rest.strip_prefix(o.llvm)
                && (r.starts_with(' ') || r.starts_with("_SAT "))
                && best.is_none_or(|(_, b)| o.llvm.len() > b.llvm.len())
            {
                best = Some((op3, o));
            }
        }
    }
    best
}

fn parse_alu(text: &str, x: &mut Extras) -> R<AluInst> {
    let rest = text
        .strip_prefix("  ")
        .ok_or("ALU instructions start with two spaces")?;
    let (op3, info) = find_op(rest).ok_or_else(|| format!("unknown ALU instruction {rest:?}"))?;
    // LLVM prints PRED_SETGT_INT as PRED_SETGE_INT, so that name reads back as 68; the
    // annotation `opcode=67` says which.
    let mut c = Cur(&rest[info.llvm.len()..]);
    let clamp = c.eat("_SAT");
    c.expect(" ")?;
    let last = if c.eat("*") {
        true
    } else {
        c.expect(" ")?;
        false
    };
    c.expect(" ")?;
    let (mut uem, mut up) = (false, false);
    if !op3 {
        uem = c.eat("ExecMask,");
        up = c.eat("Pred,");
    }
    let (dst_gpr, dst_chan) = if c.eat("PredicateBit") {
        (0, 0)
    } else {
        c.expect("T")?;
        let g = gpr(&mut c)?;
        c.expect(".")?;
        (g, c.chan()?)
    };
    let write = op3 || !c.eat(" (MASKED)");
    let dst_rel = c.eat("+");
    let omod = if op3 {
        0
    } else if c.eat(" * 2.0") {
        1
    } else if c.eat(" * 4.0") {
        2
    } else if c.eat(" / 2.0") {
        3
    } else {
        0
    };
    c.expect(", ")?;
    let shown = if op3 { 3 } else { info.srcs.max(1) as usize };
    let mut srcs = [Src::default(); 3];
    for s in srcs.iter_mut().take(shown) {
        *s = parse_src(&mut c)?;
        if op3 && s.abs {
            return Err("OP3 sources have no absolute value".into());
        }
        c.expect(", ")?;
    }
    let (pred_sel, bank_swizzle) = tail(&mut c, !op3)?;
    for (k, s) in srcs.iter_mut().enumerate().take(if op3 { 3 } else { 2 }) {
        apply_src_extras(s, k, x)?;
    }
    let opcode = x.get("opcode", info.opcode as u32, 2047)?;
    let form = if op3 {
        if !OP3.iter().any(|o| o.opcode as u32 == opcode) {
            return Err(format!("opcode={opcode} is not an OP3 opcode"));
        }
        AluForm::Op3 {
            opcode: opcode as u8,
            src2: srcs[2],
        }
    } else {
        if !OP2.iter().any(|o| o.opcode as u32 == opcode) {
            return Err(format!("opcode={opcode} is not an OP2 opcode"));
        }
        AluForm::Op2 {
            opcode: opcode as u16,
            update_exec_mask: x.flag("uem", uem)?,
            update_pred: x.flag("up", up)?,
            write_mask: write,
            omod,
        }
    };
    let (mut src0, mut src1) = (srcs[0], srcs[1]);
    if op3 {
        src0.abs = false;
        src1.abs = false;
    }
    Ok(AluInst {
        src0,
        src1,
        index_mode: x.get("index", 0, 6)? as u8,
        pred_sel,
        last,
        form,
        bank_swizzle,
        dst_gpr,
        dst_rel,
        dst_chan,
        clamp,
    })
}

fn parse_literals(text: &str) -> R<[u32; 2]> {
    let mut out = [0; 2];
    for (k, part) in text.split(", ").enumerate() {
        if k > 1 {
            return Err("a literal line holds two values".into());
        }
        let (n, _) = part.split_once('(').ok_or("literal without its float")?;
        let mut c = Cur(n);
        out[k] = c.num()?;
        c.end()?;
    }
    Ok(out)
}

fn parse_tex(text: &str, x: &mut Extras) -> R<TexInst> {
    let rest = text.strip_prefix("  TEX_").ok_or("expected TEX_")?;
    let name = rest.split(' ').next().unwrap_or("");
    // TEX_INST 2 words are MEM words (crate::mem), written as MEM_RD_* / LOCAL_DS_*.
    let op = (0..32u8)
        .filter(|&o| o as u32 != mem::INST_MEM)
        .find(|&o| tex_op_name(o) == Some(name))
        .ok_or_else(|| format!("unknown TEX_{name}"))?;
    let mut c = Cur(&rest[name.len()..]);
    c.expect(" T")?;
    let dst_gpr = gpr(&mut c)?;
    c.expect(".")?;
    let dst_sel = c.sel4()?;
    c.expect(", T")?;
    let src_gpr = gpr(&mut c)?;
    c.expect(".")?;
    let src_sel = c.sel4()?;
    c.expect(" RID:")?;
    let rid = c.num()?;
    c.expect(" SID:")?;
    let sid = c.num()?;
    c.expect(" CT:")?;
    let mut ct = [false; 4];
    for v in &mut ct {
        *v = if c.eat("N") {
            true
        } else {
            c.expect("U")?;
            false
        };
    }
    c.end()?;
    if rid > 255 || sid > 31 {
        return Err("RID or SID out of range".into());
    }
    Ok(TexInst {
        op,
        bc_frac_mode: x.flag("bcfrac", false)?,
        fetch_whole_quad: x.flag("fwq", false)?,
        resource_id: rid as u8,
        src_gpr,
        src_rel: x.flag("srel", false)?,
        alt_const: x.flag("alt", false)?,
        dst_gpr,
        dst_rel: x.flag("drel", false)?,
        dst_sel,
        lod_bias: x.get("lod", 0, 127)? as u8,
        coord_type: ct,
        offset: [
            x.get("ox", 0, 31)? as u8,
            x.get("oy", 0, 31)? as u8,
            x.get("oz", 0, 31)? as u8,
        ],
        sampler_id: sid as u8,
        src_sel,
    })
}

fn parse_vtx(text: &str, x: &mut Extras) -> R<VtxInst> {
    let mut c = Cur(text);
    c.expect("  VTX_READ T")?;
    let dst = gpr(&mut c)?;
    c.expect(".")?;
    let dst_sel = c.sel4()?;
    c.expect(", T")?;
    let src_gpr = gpr(&mut c)?;
    c.expect(".")?;
    let src_sel_x = c.chan()?;
    c.expect(", ")?;
    let offset = c.num()?;
    c.expect(", #")?;
    let buffer = c.num()?;
    c.end()?;
    if offset > 0xFFFF || buffer > 255 {
        return Err("OFFSET or BUFFER_ID out of range".into());
    }
    let op = x.get("op", 0, 1)? as u8;
    let drel = x.get("drel", 0, 1)? as u8;
    let v = VtxInst {
        op,
        fetch_type: x.get("ftype", 0, 2)? as u8,
        fetch_whole_quad: x.flag("fwq", false)?,
        buffer_id: buffer as u8,
        src_gpr,
        src_rel: x.flag("srel", false)?,
        src_sel_x,
        mega_fetch_count: x.get("mfc", 0, 63)? as u8,
        dst_or_semantic: dst | drel << 7,
        dst_sel,
        use_const_fields: x.flag("ucf", false)?,
        data_format: x.get("fmt", 0, 63)? as u8,
        num_format_all: x.get("nfa", 0, 2)? as u8,
        format_comp_all: x.flag("fca", false)?,
        srf_mode_all: x.flag("srf", false)?,
        offset: offset as u16,
        endian_swap: x.get("endian", 0, 2)? as u8,
        const_buf_no_stride: x.flag("cbns", false)?,
        mega_fetch: x.flag("mega", false)?,
        alt_const: x.flag("alt", false)?,
    };
    Ok(v)
}

/// A MEM line (the text of [`crate::llvm_text::mem`]).
fn parse_mem(text: &str, x: &mut Extras) -> R<MemInst> {
    let rest = text.strip_prefix("  ").ok_or("expected two spaces")?;
    let name = rest.split(' ').next().unwrap_or("");
    let mut c = Cur(&rest[name.len()..]);
    let read_op = match name {
        "MEM_RD_SCRATCH" => Some(mem::MEM_OP_RD_SCRATCH),
        "MEM_RD_REDUC" => Some(mem::MEM_OP_RD_REDUC),
        "MEM_RD_SCATTER" => Some(mem::MEM_OP_RD_SCATTER),
        _ => None,
    };
    if let Some(mem_op) = read_op {
        c.expect(" T")?;
        let dst_gpr = gpr(&mut c)?;
        c.expect(".")?;
        let dst_sel = c.sel4()?;
        c.expect(", T")?;
        let src_gpr = gpr(&mut c)?;
        c.expect(".")?;
        let src_sel_x = c.chan()?;
        c.expect(", ")?;
        let base = c.num()?;
        c.end()?;
        if base > 8191 {
            return Err("ARRAY_BASE is larger than 8191".into());
        }
        return Ok(MemInst::Read(MemRead {
            elem_size: x.get("esize", 0, 3)? as u8,
            fetch_whole_quad: x.flag("fwq", false)?,
            mem_op,
            uncached: x.flag("uncached", false)?,
            indexed: x.flag("indexed", false)?,
            src_gpr,
            src_rel: x.flag("srel", false)?,
            src_sel_x,
            burst_count: x.get("burst", 0, 15)? as u8,
            dst_gpr,
            dst_rel: x.flag("drel", false)?,
            dst_sel,
            data_format: x.get("fmt", 0, 63)? as u8,
            num_format_all: x.get("nfa", 0, 2)? as u8,
            format_comp_all: x.flag("fca", false)?,
            srf_mode_all: x.flag("srf", false)?,
            array_base: base as u16,
            endian_swap: x.get("endian", 0, 2)? as u8,
            mega_fetch: x.flag("mega", true)?,
            array_size: x.get("asize", 0, 4095)? as u16,
        }));
    }
    match name {
        "LOCAL_DS_WRITE" => {
            c.expect(" T")?;
            let src_gpr = gpr(&mut c)?;
            c.expect(".")?;
            let src_sel = c.sel4()?;
            c.expect(", ")?;
            let index = c.num()?;
            c.expect(", ")?;
            let stride = c.num()?;
            c.end()?;
            if index > 255 || stride > 511 {
                return Err("DST_INDEX (0-255) or DST_STRIDE (0-511) out of range".into());
            }
            Ok(MemInst::DsWrite(DsWrite {
                src_gpr,
                src_rel_mode: x.get("srel", 0, 2)? as u8,
                src_sel,
                dst_index: index as u8,
                dst_stride: stride as u16,
                simd_wave_rel: x.flag("wave", false)?,
                burst_count: x.get("burst", 0, 15)? as u8,
            }))
        }
        "LOCAL_DS_READ" => {
            c.expect(" T")?;
            let dst_gpr = gpr(&mut c)?;
            c.expect(".")?;
            let mut dst_write = [false; 4];
            for (k, w) in dst_write.iter_mut().enumerate() {
                *w = if c.eat("_") {
                    false
                } else if c.eat(&"XYZW"[k..k + 1]) {
                    true
                } else {
                    return Err(format!("expected {} or _ at {:?}", &"XYZW"[k..k + 1], c.0));
                };
            }
            c.expect(", T")?;
            let src_gpr = gpr(&mut c)?;
            c.expect(".")?;
            let s = c.sel4_prefix(2)?;
            if s.iter().any(|&v| v > 5) {
                return Err("LOCAL_DS_READ source selects are X, Y, Z, W, 0 or 1".into());
            }
            c.expect(", ")?;
            let off = c.num()?;
            c.end()?;
            if off > 63 {
                return Err("RD_OFFSET is larger than 63".into());
            }
            Ok(MemInst::DsRead(DsRead {
                src_gpr,
                src_rel_mode: x.get("srel", 0, 2)? as u8,
                src_sel: [s[0], s[1]],
                rd_offset: off as u8,
                dst_gpr,
                dst_rel_mode: x.get("drel", 0, 2)? as u8,
                dst_write,
                broadcast: x.flag("bcast", false)?,
                waterfall: x.flag("wfall", false)?,
                mux_cntl: x.get("mux", 0, 2)? as u8,
                burst_count: x.get("burst", 0, 15)? as u8,
            }))
        }
        _ => Err(format!("unknown fetch instruction {name:?}")),
    }
}

enum Section {
    Cf,
    Alu(u32, Vec<AluGroup>),
    Fetch(u32, Vec<TexInst>, Vec<VtxInst>, Vec<MemInst>),
}

/// Assembles exact text (one instruction per line, as [`crate::llvm_text::program_exact`]
/// prints it; leading tabs and blank lines are ignored) into a shader binary.
pub fn assemble(text: &str) -> Result<Vec<u8>, AsmError> {
    let mut cf = Vec::new();
    let mut clauses = BTreeMap::new();
    let mut at: u64 = 0;
    let mut section = Section::Cf;
    let mut open: Vec<AluInst> = Vec::new();
    fn close(
        section: Section,
        clauses: &mut BTreeMap<u32, Clause>,
        at: &mut u64,
        open: &[AluInst],
    ) -> R<()> {
        if !open.is_empty() {
            return Err("ALU group without a LAST ('*') instruction".into());
        }
        let clause = match section {
            Section::Cf => return Ok(()),
            Section::Alu(addr, groups) => (addr, Clause::Alu(groups)),
            Section::Fetch(addr, t, v, m) => match (t.is_empty(), v.is_empty(), m.is_empty()) {
                (_, true, true) => (addr, Clause::Tex(t)),
                (true, false, true) => (addr, Clause::Vtx(v)),
                (true, true, false) => (addr, Clause::Mem(m)),
                _ => {
                    return Err(
                        "a fetch clause mixes TEX, VTX and MEM instructions (002 line 2169)".into(),
                    );
                }
            },
        };
        *at = clause.0 as u64 + clause.1.slots();
        clauses.insert(clause.0, clause.1);
        Ok(())
    }
    let mut trailing_pad = 0u64;
    for (n, raw) in text.lines().enumerate() {
        let err = |msg: String| AsmError { line: n + 1, msg };
        let line = raw.strip_prefix('\t').unwrap_or(raw);
        if line.trim().is_empty() {
            continue;
        }
        let (body, extras) = split_extras(line).map_err(err)?;
        let mut x = Extras(extras);
        let header = |p: &str| body.strip_prefix(p).and_then(|r| r.strip_suffix(':'));
        if let Some(a) =
            header("ALU clause starting at ").or_else(|| header("Fetch clause starting at "))
        {
            let addr: u32 = a
                .parse()
                .map_err(|_| err(format!("bad clause address {a:?}")))?;
            let prev = core::mem::replace(&mut section, Section::Cf);
            close(prev, &mut clauses, &mut at, &open).map_err(err)?;
            at += trailing_pad;
            trailing_pad = 0;
            if addr as u64 != at {
                return Err(err(format!(
                    "clause at {addr} but the previous code ends at {at}"
                )));
            }
            section = if body.starts_with("ALU") {
                Section::Alu(addr, Vec::new())
            } else {
                Section::Fetch(addr, Vec::new(), Vec::new(), Vec::new())
            };
            continue;
        }
        if body == "PAD" {
            trailing_pad += 1;
            continue;
        }
        if trailing_pad != 0 {
            return Err(err("PAD in the middle of code".into()));
        }
        match &mut section {
            Section::Cf => {
                cf.push(parse_cf(body, &mut x).map_err(err)?);
                at += 1;
            }
            Section::Alu(_, groups) => {
                if body.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
                    let lit = parse_literals(body).map_err(err)?;
                    let g = groups
                        .last_mut()
                        .filter(|_| open.is_empty())
                        .ok_or_else(|| err("literals outside a group".into()))?;
                    g.literals.extend(lit);
                } else {
                    let i = parse_alu(body, &mut x).map_err(err)?;
                    open.push(i);
                    if i.last {
                        if open.len() > 5 {
                            return Err(err("more than five instructions in a group".into()));
                        }
                        groups.push(AluGroup {
                            insts: core::mem::take(&mut open),
                            literals: Vec::new(),
                        });
                    }
                }
            }
            Section::Fetch(_, t, v, m) => {
                if body.starts_with("  TEX_") {
                    t.push(parse_tex(body, &mut x).map_err(err)?);
                } else if body.starts_with("  MEM_") || body.starts_with("  LOCAL_DS_") {
                    m.push(parse_mem(body, &mut x).map_err(err)?);
                } else {
                    v.push(parse_vtx(body, &mut x).map_err(err)?);
                }
            }
        }
        x.done().map_err(err)?;
    }
    let end = text.lines().count();
    close(section, &mut clauses, &mut at, &open).map_err(|msg| AsmError { line: end, msg })?;
    let len_slots = u32::try_from(at + trailing_pad).map_err(|_| AsmError {
        line: end,
        msg: "program too long".into(),
    })?;
    // Literal counts must match what the group's sources imply, or decode would differ.
    for (addr, c) in &clauses {
        if let Clause::Alu(groups) = c {
            for g in groups {
                if g.literals.len() != AluGroup::literal_dwords(&g.insts) {
                    return Err(AsmError {
                        line: end,
                        msg: format!(
                            "ALU clause at {addr}: a group has {} literal dwords, its sources need {}",
                            g.literals.len(),
                            AluGroup::literal_dwords(&g.insts)
                        ),
                    });
                }
            }
        }
    }
    Ok(Program {
        cf,
        clauses,
        len_slots,
    }
    .encode())
}
