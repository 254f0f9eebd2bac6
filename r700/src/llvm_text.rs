//! Text as LLVM's R600 backend prints it (`llc -march=r600 -mcpu=rv770 -filetype=asm`),
//! so llc's output can serve as an oracle. One line per instruction, without llc's
//! leading tab; trailing spaces are kept because llc prints them.
//!
//! Formats follow the asm strings of LLVM `R600Instructions.td` (R600_1OP, R600_2OP,
//! R600_3OP, R600_TEX, ExportSwzInst, ALU_CLAUSE, CF_CLAUSE_R600, LITERALS, PAD,
//! FETCH_CLAUSE, ALU_CLAUSE) and the operand printers of `R600InstPrinter.cpp`.
//! LLVM's text drops fields (EXPORT's ARRAY_BASE and TYPE, EXPORT vs EXPORT_DONE, texel
//! offsets, ...), so it is not enough to reassemble a binary on its own.
//! Forms LLVM never prints for RV770 (cfile constants, VTX fetches, CF ops LLVM does not
//! define) use the manual's names in the same style; they are marked "ours" below.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use crate::alu::{AluForm, AluGroup, AluInst, Src, sel};
use crate::cf::{CfInst, CfOp, ExportWord1};
use crate::fetch::{TexInst, VtxInst, tex_op_name};
use crate::program::{Clause, Program};

const CHAN: [char; 4] = ['X', 'Y', 'Z', 'W'];

/// A swizzle select as `printRSel` prints it (4 → '0', 5 → '1', 7 → '_').
fn rsel(s: u8) -> &'static str {
    match s {
        0 => "X",
        1 => "Y",
        2 => "Z",
        3 => "W",
        4 => "0",
        5 => "1",
        7 => "_",
        _ => "",
    }
}

fn sels(s: [u8; 4]) -> String {
    s.iter().map(|&v| rsel(v)).collect()
}

/// `%e` as LLVM's `write_double` prints a float literal: six digits, two-digit exponent;
/// "nan" and "INF"/"-INF" for the specials.
pub fn float_e(bits: u32) -> String {
    let f = f32::from_bits(bits) as f64;
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f < 0.0 { "-INF".into() } else { "INF".into() };
    }
    let s = format!("{f:.6e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    format!(
        "{mant}e{}{:02}",
        if e < 0 { '-' } else { '+' },
        e.unsigned_abs()
    )
}

/// A source register name (R600RegisterInfo.td names as printed by llc).
fn src_reg(s: &Src) -> String {
    let c = CHAN[s.chan as usize & 3];
    match s.sel {
        0..=127 => format!("T{}.{c}", s.sel),
        128..=159 => format!("KC0[{}].{c}", s.sel - sel::KCACHE0),
        160..=191 => format!("KC1[{}].{c}", s.sel - sel::KCACHE1),
        // Ours: LLVM has no names for the double-precision inline constants.
        sel::ONE_DBL_L => "1.0_DBL_L".into(),
        sel::ONE_DBL_M => "1.0_DBL_M".into(),
        sel::HALF_DBL_L => "0.5_DBL_L".into(),
        sel::HALF_DBL_M => "0.5_DBL_M".into(),
        sel::ZERO => "0.0".into(),
        sel::ONE => "1.0".into(),
        sel::ONE_INT => "1".into(),
        sel::M_ONE_INT => "-1".into(),
        sel::HALF => "0.5".into(),
        sel::LITERAL => format!("literal.{}", c.to_ascii_lowercase()),
        sel::PV => format!("PV.{c}"),
        sel::PS => "PS".into(),
        // Ours: cfile constants c[0..255].
        256..=511 => format!("C{}.{c}", s.sel - sel::CFILE),
        _ => format!("?{}", s.sel),
    }
}

fn src_text(s: &Src, with_abs: bool) -> String {
    let abs = if with_abs && s.abs { "|" } else { "" };
    format!(
        "{}{abs}{}{abs}{}",
        if s.neg { "-" } else { "" },
        src_reg(s),
        if s.rel { "+" } else { "" }
    )
}

fn pred_sel(p: u8) -> &'static str {
    match p {
        2 => "Pred_sel_zero",
        3 => "Pred_sel_one",
        _ => "",
    }
}

/// `printBankSwizzle`.
fn bank_swizzle(b: u8) -> &'static str {
    match b {
        1 => "BS:VEC_021/SCL_122",
        2 => "BS:VEC_120/SCL_212",
        3 => "BS:VEC_102/SCL_221",
        4 => "BS:VEC_201",
        5 => "BS:VEC_210",
        _ => "",
    }
}

/// One ALU slot, e.g. `  MULADD_IEEE * T0.W, T1.X, literal.x, T1.Y, `.
pub fn alu(i: &AluInst) -> String {
    let info = i.info();
    let clamp = if i.clamp { "_SAT" } else { "" };
    let last = if i.last { "*" } else { " " };
    let dst_rel = if i.dst_rel { "+" } else { "" };
    let mut dst = format!("T{}.{}", i.dst_gpr, CHAN[i.dst_chan as usize & 3]);
    match i.form {
        AluForm::Op2 {
            update_exec_mask,
            update_pred,
            write_mask,
            omod,
            ..
        } => {
            let mut flags = String::new();
            if info.srcs >= 2 {
                if update_exec_mask {
                    flags.push_str("ExecMask,");
                }
                if update_pred {
                    flags.push_str("Pred,");
                }
            }
            // LLVM's PRED_SET* writing the predicate has the pseudo register PredicateBit
            // as destination; it encodes as T0.X.
            if (update_pred || update_exec_mask) && !write_mask && i.dst_gpr == 0 && i.dst_chan == 0
            {
                dst = "PredicateBit".into();
            }
            let write = if write_mask { "" } else { " (MASKED)" };
            let omod = match omod {
                1 => " * 2.0",
                2 => " * 4.0",
                3 => " / 2.0",
                _ => "",
            };
            let mut s = format!(
                "  {}{clamp} {last} {flags}{dst}{write}{dst_rel}{omod}, ",
                info.llvm
            );
            s.push_str(&src_text(&i.src0, true));
            s.push_str(", ");
            if info.srcs >= 2 {
                s.push_str(&src_text(&i.src1, true));
                s.push_str(", ");
            }
            let _ = write!(
                s,
                "{} {}",
                pred_sel(i.pred_sel),
                bank_swizzle(i.bank_swizzle)
            );
            s
        }
        AluForm::Op3 { src2, .. } => format!(
            "  {}{clamp} {last} {dst}{dst_rel}, {}, {}, {}, {}{}",
            info.llvm,
            src_text(&i.src0, false),
            src_text(&i.src1, false),
            src_text(&src2, false),
            pred_sel(i.pred_sel),
            bank_swizzle(i.bank_swizzle)
        ),
    }
}

/// A group's literal slots, one line per 64-bit pair: `1080033280(3.500000e+00), 0(0.000000e+00)`.
pub fn literals(g: &AluGroup) -> Vec<String> {
    g.literals
        .chunks(2)
        .map(|c| {
            let b = *c.get(1).unwrap_or(&0);
            format!(
                "{}({}), {}({})",
                c[0] as i32,
                float_e(c[0]),
                b as i32,
                float_e(b)
            )
        })
        .collect()
}

fn kcache(mode: u8, bank: u8, addr: u8) -> String {
    if mode == 0 {
        return String::new();
    }
    let line = if mode == 1 { 16 } else { 32 };
    let a = addr as u32 * 16;
    format!("CB{bank}:{a}-{}", a + line)
}

/// One CF instruction.
pub fn cf(i: &CfInst) -> String {
    match i {
        CfInst::Alu(a) => format!(
            "{} {}, @{}, KC0[{}], KC1[{}]",
            a.op.name(),
            a.count,
            a.addr,
            kcache(a.kcache_mode[0], a.kcache_bank[0], a.kcache_addr[0]),
            kcache(a.kcache_mode[1], a.kcache_bank[1], a.kcache_addr[1])
        ),
        CfInst::Export(e) => match e.word1 {
            // LLVM prints EXPORT for EXPORT_DONE and for the stream writes alike.
            ExportWord1::Swiz { sel } => format!("EXPORT T{}.{}", e.rw_gpr, sels(sel)),
            ExportWord1::Buf { .. } => format!("EXPORT T{}", e.rw_gpr),
        },
        CfInst::Word(w) => match w.op {
            CfOp::Nop if w.end_of_program => "CF_END".into(),
            CfOp::Tex => format!("TEX {} @{}", w.count, w.addr),
            CfOp::Vtx => format!("VTX {} @{}", w.count, w.addr),
            CfOp::VtxTc => format!("VTX_TC {} @{}", w.count, w.addr), // ours
            CfOp::LoopStartDx10 => format!("LOOP_START_DX10 @{}", w.addr),
            CfOp::LoopEnd => format!("END_LOOP @{}", w.addr),
            CfOp::LoopBreak => format!("LOOP_BREAK @{}", w.addr),
            CfOp::LoopContinue => format!("CONTINUE @{}", w.addr),
            CfOp::Jump => format!("JUMP @{} POP:{}", w.addr, w.pop_count),
            CfOp::PushElse => format!("PUSH_ELSE @{}", w.addr),
            CfOp::Else => format!("ELSE @{} POP:{}", w.addr, w.pop_count),
            CfOp::Pop => format!("POP @{} POP:{}", w.addr, w.pop_count),
            CfOp::CallFs => "CALL_FS".into(),
            CfOp::Nop => "NOP".into(), // ours
            // Ours: the CF ops LLVM does not define.
            op => format!("{} @{} POP:{}", op.name(), w.addr, w.pop_count),
        },
    }
}

/// One texture fetch: `  TEX_SAMPLE T0.XYZW, T1.XYZW RID:0 SID:0 CT:UUUU`.
pub fn tex(t: &TexInst) -> String {
    let ct: String = t
        .coord_type
        .iter()
        .map(|&n| if n { 'N' } else { 'U' })
        .collect();
    format!(
        "  TEX_{} T{}.{}, T{}.{} RID:{} SID:{} CT:{ct}",
        tex_op_name(t.op).unwrap_or("?"),
        t.dst_gpr,
        sels(t.dst_sel),
        t.src_gpr,
        sels(t.src_sel),
        t.resource_id,
        t.sampler_id
    )
}

/// Ours (llc has no RV770 vertex fetches): `  VTX_READ T1.XYZW, T0.X, 16, #1`.
pub fn vtx(v: &VtxInst) -> String {
    format!(
        "  VTX_READ T{}.{}, T{}.{}, {}, #{}",
        v.dst_or_semantic & 0x7F,
        sels(v.dst_sel),
        v.src_gpr,
        CHAN[v.src_sel_x as usize & 3],
        v.offset,
        v.buffer_id
    )
}

/// The whole program in llc's order: CF instructions, then by address `PAD` for each
/// zero slot and each clause under its "... clause starting at N:" header.
pub fn program(p: &Program) -> Vec<String> {
    let mut out: Vec<String> = p.cf.iter().map(cf).collect();
    let mut at = p.cf.len() as u64;
    for (&addr, c) in &p.clauses {
        while at < addr as u64 {
            out.push("PAD".into());
            at += 1;
        }
        match c {
            Clause::Alu(groups) => {
                out.push(format!("ALU clause starting at {addr}:"));
                for g in groups {
                    out.extend(g.insts.iter().map(alu));
                    out.extend(literals(g));
                }
            }
            Clause::Tex(t) => {
                out.push(format!("Fetch clause starting at {addr}:"));
                out.extend(t.iter().map(tex));
            }
            Clause::Vtx(v) => {
                out.push(format!("Fetch clause starting at {addr}:"));
                out.extend(v.iter().map(vtx));
            }
        }
        at = addr as u64 + c.slots();
    }
    while at < p.len_slots as u64 {
        out.push("PAD".into());
        at += 1;
    }
    out
}
