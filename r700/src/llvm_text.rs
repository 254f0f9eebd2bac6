//! Text as LLVM's R600 backend prints it (`llc -march=r600 -mcpu=rv770 -filetype=asm`),
//! so llc's output can serve as an oracle. One line per instruction, without llc's
//! leading tab; trailing spaces are kept because llc prints them.
//!
//! Formats follow the asm strings of LLVM `R600Instructions.td` (R600_1OP, R600_2OP,
//! R600_3OP, R600_TEX, ExportSwzInst, ALU_CLAUSE, CF_CLAUSE_R600, LITERALS, PAD,
//! FETCH_CLAUSE, ALU_CLAUSE) and the operand printers of `R600InstPrinter.cpp`.
//! LLVM's text drops fields (EXPORT's ARRAY_BASE and TYPE, EXPORT vs EXPORT_DONE, texel
//! offsets, ...), so it is not enough to reassemble a binary on its own.
//! Forms LLVM never prints for RV770 (cfile constants, VTX fetches, MEM_RD and LDS words,
//! CF ops LLVM does not define) use the manual's names in the same style; they are marked "ours" below.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use crate::alu::{AluForm, AluGroup, AluInst, Src, sel};
use crate::cf::{CfInst, CfOp, ExportWord1};
use crate::fetch::{TexInst, VtxInst, tex_op_name};
use crate::mem::MemInst;
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

/// Ours (llc prints no MEM words for RV770): `  MEM_RD_SCATTER T1.XYZW, T0.X, 4` (dst,
/// address element, ARRAY_BASE), `  LOCAL_DS_WRITE T1.XYZW, 0, 4` (source selects,
/// DST_INDEX, DST_STRIDE), `  LOCAL_DS_READ T1.XY_W, T0.XY, 0` (written elements,
/// source selects, RD_OFFSET).
pub fn mem(m: &MemInst) -> String {
    match m {
        MemInst::Read(r) => format!(
            "  MEM_{} T{}.{}, T{}.{}, {}",
            m.op_name(),
            r.dst_gpr,
            sels(r.dst_sel),
            r.src_gpr,
            CHAN[r.src_sel_x as usize & 3],
            r.array_base
        ),
        MemInst::DsWrite(d) => format!(
            "  LOCAL_DS_WRITE T{}.{}, {}, {}",
            d.src_gpr,
            sels(d.src_sel),
            d.dst_index,
            d.dst_stride
        ),
        MemInst::DsRead(d) => {
            let we: String = (0..4)
                .map(|k| if d.dst_write[k] { CHAN[k] } else { '_' })
                .collect();
            format!(
                "  LOCAL_DS_READ T{}.{we}, T{}.{}{}, {}",
                d.dst_gpr,
                d.src_gpr,
                rsel(d.src_sel[0]),
                rsel(d.src_sel[1]),
                d.rd_offset
            )
        }
    }
}

/// What a MEM line does not show.
pub fn mem_extras(m: &MemInst) -> Extras {
    let mut x = Extras::new();
    match m {
        MemInst::Read(r) => {
            push(&mut x, "esize", r.elem_size as u32, 0);
            push(&mut x, "fwq", r.fetch_whole_quad as u32, 0);
            push(&mut x, "uncached", r.uncached as u32, 0);
            push(&mut x, "indexed", r.indexed as u32, 0);
            push(&mut x, "srel", r.src_rel as u32, 0);
            push(&mut x, "burst", r.burst_count as u32, 0);
            push(&mut x, "drel", r.dst_rel as u32, 0);
            push(&mut x, "fmt", r.data_format as u32, 0);
            push(&mut x, "nfa", r.num_format_all as u32, 0);
            push(&mut x, "fca", r.format_comp_all as u32, 0);
            push(&mut x, "srf", r.srf_mode_all as u32, 0);
            push(&mut x, "endian", r.endian_swap as u32, 0);
            // MEGA_FETCH "must be 1 for memory reads" (002 line 8749).
            push(&mut x, "mega", r.mega_fetch as u32, 1);
            push(&mut x, "asize", r.array_size as u32, 0);
        }
        MemInst::DsWrite(d) => {
            push(&mut x, "srel", d.src_rel_mode as u32, 0);
            push(&mut x, "wave", d.simd_wave_rel as u32, 0);
            push(&mut x, "burst", d.burst_count as u32, 0);
        }
        MemInst::DsRead(d) => {
            push(&mut x, "srel", d.src_rel_mode as u32, 0);
            push(&mut x, "drel", d.dst_rel_mode as u32, 0);
            push(&mut x, "bcast", d.broadcast as u32, 0);
            push(&mut x, "wfall", d.waterfall as u32, 0);
            push(&mut x, "mux", d.mux_cntl as u32, 0);
            push(&mut x, "burst", d.burst_count as u32, 0);
        }
    }
    x
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
            Clause::Mem(m) => {
                out.push(format!("Fetch clause starting at {addr}:"));
                out.extend(m.iter().map(mem));
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

/// Fields LLVM's text leaves out, as `key=value` pairs that `asm` reads back. Only values
/// that differ from what the LLVM-style line implies are listed.
pub type Extras = Vec<(&'static str, u32)>;

fn push(x: &mut Extras, key: &'static str, v: u32, default: u32) {
    if v != default {
        x.push((key, v));
    }
}

/// What a CF line does not show.
pub fn cf_extras(i: &CfInst) -> Extras {
    let mut x = Extras::new();
    match i {
        CfInst::Alu(a) => {
            for k in 0..2 {
                let (mode, bank, addr) = (a.kcache_mode[k], a.kcache_bank[k], a.kcache_addr[k]);
                let keys = [
                    ["kc0mode", "kc0bank", "kc0addr"],
                    ["kc1mode", "kc1bank", "kc1addr"],
                ][k];
                // The text shows LOCK_2 and LOCK_LOOP_INDEX alike (32 constants).
                push(&mut x, keys[0], (mode == 3) as u32 * 3, 0);
                if mode == 0 {
                    push(&mut x, keys[1], bank as u32, 0);
                    push(&mut x, keys[2], addr as u32, 0);
                }
            }
            push(&mut x, "alt", a.alt_const as u32, 0);
            push(&mut x, "wqm", a.whole_quad_mode as u32, 0);
            push(&mut x, "barrier", a.barrier as u32, 1);
        }
        CfInst::Word(w) => {
            let shows_addr = !matches!(w.op, CfOp::CallFs) && !(w.op == CfOp::Nop);
            let shows_count = matches!(w.op, CfOp::Tex | CfOp::Vtx | CfOp::VtxTc);
            let shows_pop = !matches!(
                w.op,
                CfOp::Nop
                    | CfOp::CallFs
                    | CfOp::Tex
                    | CfOp::Vtx
                    | CfOp::VtxTc
                    | CfOp::LoopStartDx10
                    | CfOp::LoopEnd
                    | CfOp::LoopBreak
                    | CfOp::LoopContinue
                    | CfOp::PushElse
            );
            if !shows_addr {
                push(&mut x, "addr", w.addr, 0);
            }
            if !shows_count {
                push(&mut x, "count", w.count as u32, 0);
            }
            if !shows_pop {
                push(&mut x, "pop", w.pop_count as u32, 0);
            }
            push(&mut x, "cfconst", w.cf_const as u32, 0);
            push(&mut x, "cond", w.cond as u32, 0);
            push(&mut x, "callcount", w.call_count as u32, 0);
            // CF_END is the NOP with EOP; other ops show no EOP.
            if w.op != CfOp::Nop {
                push(&mut x, "eop", w.end_of_program as u32, 0);
            }
            push(&mut x, "vpm", w.valid_pixel_mode as u32, 0);
            push(&mut x, "wqm", w.whole_quad_mode as u32, 0);
            push(&mut x, "barrier", w.barrier as u32, 1);
        }
        CfInst::Export(e) => {
            push(&mut x, "op", e.op as u32, 39);
            push(&mut x, "type", e.kind as u32, 0);
            push(&mut x, "base", e.array_base as u32, 0);
            push(&mut x, "rel", e.rw_rel as u32, 0);
            push(&mut x, "index", e.index_gpr as u32, 0);
            let swiz = matches!(e.word1, ExportWord1::Swiz { .. });
            push(
                &mut x,
                "esize",
                e.elem_size as u32,
                if swiz { 3 } else { 0 },
            );
            if let ExportWord1::Buf {
                array_size,
                comp_mask,
            } = e.word1
            {
                push(&mut x, "asize", array_size as u32, 0);
                push(&mut x, "mask", comp_mask as u32, 0);
            }
            push(&mut x, "burst", e.burst_count as u32, 0);
            push(&mut x, "eop", e.end_of_program as u32, 0);
            push(&mut x, "vpm", e.valid_pixel_mode as u32, 0);
            push(&mut x, "wqm", e.whole_quad_mode as u32, 0);
            push(&mut x, "barrier", e.barrier as u32, 1);
        }
    }
    x
}

const SRC_KEYS: [[&str; 5]; 3] = [
    ["s0sel", "s0chan", "s0neg", "s0abs", "s0rel"],
    ["s1sel", "s1chan", "s1neg", "s1abs", "s1rel"],
    ["s2sel", "s2chan", "s2neg", "s2abs", "s2rel"],
];

/// What an ALU line does not show: the index mode, source fields the form does not print
/// (an unused src1, PS's element), the uem/up flags of one-source ops, and "-1" read as
/// a negated integer 1.
pub fn alu_extras(i: &AluInst) -> Extras {
    let mut x = Extras::new();
    // LLVM prints PRED_SETGT_INT as "PRED_SETGE_INT"; a name shared by two opcodes reads
    // back as the first, so the other says which it is.
    let info = i.info();
    let table = match i.form {
        AluForm::Op2 { .. } => crate::alu::OP2,
        AluForm::Op3 { .. } => crate::alu::OP3,
    };
    if let Some(first) = table.iter().find(|o| o.llvm == info.llvm)
        && first.opcode != info.opcode
    {
        x.push(("opcode", info.opcode as u32));
    }
    push(&mut x, "index", i.index_mode as u32, 0);
    let srcs: Vec<Src> = i.srcs().collect();
    let shown = match i.form {
        AluForm::Op2 { .. } => i.info().srcs.max(1) as usize,
        AluForm::Op3 { .. } => 3,
    };
    for (k, s) in srcs.iter().enumerate() {
        let keys = SRC_KEYS[k];
        if k >= shown {
            push(&mut x, keys[0], s.sel as u32, 0);
            push(&mut x, keys[1], s.chan as u32, 0);
            push(&mut x, keys[2], s.neg as u32, 0);
            push(&mut x, keys[3], s.abs as u32, 0);
            push(&mut x, keys[4], s.rel as u32, 0);
            continue;
        }
        if matches!(s.sel, sel::PS | sel::ZERO..=sel::HALF | sel::ONE_DBL_L..=sel::HALF_DBL_M) {
            push(&mut x, keys[1], s.chan as u32, 0);
        }
        // "-1" reads back as ALU_SRC_M_1_INT; a negated ALU_SRC_1_INT says so.
        if s.neg && s.sel == sel::ONE_INT {
            x.push((keys[0], s.sel as u32));
            x.push((keys[2], 1));
        }
    }
    if let AluForm::Op2 {
        update_exec_mask,
        update_pred,
        ..
    } = i.form
        && i.info().srcs < 2
    {
        push(&mut x, "uem", update_exec_mask as u32, 0);
        push(&mut x, "up", update_pred as u32, 0);
    }
    x
}

/// What a TEX line does not show.
pub fn tex_extras(t: &TexInst) -> Extras {
    let mut x = Extras::new();
    push(&mut x, "bcfrac", t.bc_frac_mode as u32, 0);
    push(&mut x, "fwq", t.fetch_whole_quad as u32, 0);
    push(&mut x, "srel", t.src_rel as u32, 0);
    push(&mut x, "drel", t.dst_rel as u32, 0);
    push(&mut x, "alt", t.alt_const as u32, 0);
    push(&mut x, "lod", t.lod_bias as u32, 0);
    push(&mut x, "ox", t.offset[0] as u32, 0);
    push(&mut x, "oy", t.offset[1] as u32, 0);
    push(&mut x, "oz", t.offset[2] as u32, 0);
    x
}

/// What a VTX line does not show.
pub fn vtx_extras(v: &VtxInst) -> Extras {
    let mut x = Extras::new();
    push(&mut x, "op", v.op as u32, 0);
    push(&mut x, "ftype", v.fetch_type as u32, 0);
    push(&mut x, "fwq", v.fetch_whole_quad as u32, 0);
    push(&mut x, "srel", v.src_rel as u32, 0);
    push(&mut x, "mfc", v.mega_fetch_count as u32, 0);
    push(&mut x, "drel", (v.dst_or_semantic >> 7) as u32, 0);
    push(&mut x, "ucf", v.use_const_fields as u32, 0);
    push(&mut x, "fmt", v.data_format as u32, 0);
    push(&mut x, "nfa", v.num_format_all as u32, 0);
    push(&mut x, "fca", v.format_comp_all as u32, 0);
    push(&mut x, "srf", v.srf_mode_all as u32, 0);
    push(&mut x, "endian", v.endian_swap as u32, 0);
    push(&mut x, "cbns", v.const_buf_no_stride as u32, 0);
    push(&mut x, "mega", v.mega_fetch as u32, 0);
    push(&mut x, "alt", v.alt_const as u32, 0);
    x
}

fn annotate(line: String, x: Extras) -> String {
    if x.is_empty() {
        return line;
    }
    let mut s = line;
    s.push_str(" ;");
    for (k, v) in x {
        let _ = write!(s, " {k}={v}");
    }
    s
}

/// The exact text: [`program`]'s lines, each followed by ` ; key=value ...` for the fields
/// LLVM's syntax leaves out. Cutting every line at its last " ;" gives [`program`]'s
/// text; `crate::asm::assemble` turns it back into the same bytes.
pub fn program_exact(p: &Program) -> Vec<String> {
    let mut out: Vec<String> = p.cf.iter().map(|i| annotate(cf(i), cf_extras(i))).collect();
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
                    out.extend(g.insts.iter().map(|i| annotate(alu(i), alu_extras(i))));
                    out.extend(literals(g));
                }
            }
            Clause::Tex(t) => {
                out.push(format!("Fetch clause starting at {addr}:"));
                out.extend(t.iter().map(|t| annotate(tex(t), tex_extras(t))));
            }
            Clause::Vtx(v) => {
                out.push(format!("Fetch clause starting at {addr}:"));
                out.extend(v.iter().map(|v| annotate(vtx(v), vtx_extras(v))));
            }
            Clause::Mem(m) => {
                out.push(format!("Fetch clause starting at {addr}:"));
                out.extend(m.iter().map(|m| annotate(mem(m), mem_extras(m))));
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
