//! Builds small R700 programs from instruction structs and runs them on the emulator.
#![allow(dead_code)]

use std::collections::BTreeMap;

use baregpu_r700::alu::{AluForm, AluGroup, AluInst, Src};
use baregpu_r700::cf::{CfAlu, CfAluOp, CfExport, CfInst, CfOp, CfWord, ExportOp, ExportWord1};
use baregpu_r700::emu::{self, EmuError, Grid, Options, Report};
use baregpu_r700::fetch::{TexInst, VtxInst};
use baregpu_r700::mem::MemInst;
use baregpu_r700::program::{Clause, Program};

pub fn gpr(g: u16, c: u8) -> Src {
    Src {
        sel: g,
        chan: c,
        ..Src::default()
    }
}

pub fn lit(c: u8) -> Src {
    gpr(253, c)
}

pub fn op2(op: u16, dst: (u8, u8), s0: Src, s1: Src) -> AluInst {
    AluInst {
        src0: s0,
        src1: s1,
        index_mode: 0,
        pred_sel: 0,
        last: false,
        form: AluForm::Op2 {
            opcode: op,
            update_exec_mask: false,
            update_pred: false,
            write_mask: true,
            omod: 0,
        },
        bank_swizzle: 0,
        dst_gpr: dst.0,
        dst_rel: false,
        dst_chan: dst.1,
        clamp: false,
    }
}

pub fn op3(op: u8, dst: (u8, u8), s0: Src, s1: Src, s2: Src) -> AluInst {
    AluInst {
        form: AluForm::Op3 {
            opcode: op,
            src2: s2,
        },
        ..op2(0, dst, s0, s1)
    }
}

/// A PRED_SET* with UPDATE_PRED and UPDATE_EXEC_MASK as chosen, no GPR write.
pub fn pred_set(op: u16, s0: Src, s1: Src, pred: bool, exec: bool) -> AluInst {
    let mut i = op2(op, (127, 0), s0, s1);
    i.form = AluForm::Op2 {
        opcode: op,
        update_exec_mask: exec,
        update_pred: pred,
        write_mask: false,
        omod: 0,
    };
    i
}

pub fn group(mut insts: Vec<AluInst>, literals: Vec<u32>) -> AluGroup {
    if let Some(l) = insts.last_mut() {
        l.last = true;
    }
    let mut literals = literals;
    let need = AluGroup::literal_dwords(&insts);
    literals.resize(need, 0);
    AluGroup { insts, literals }
}

pub fn word(op: CfOp) -> CfWord {
    CfWord {
        addr: 0,
        pop_count: 0,
        cf_const: 0,
        cond: 0,
        count: 0,
        call_count: 0,
        end_of_program: false,
        valid_pixel_mode: false,
        op,
        whole_quad_mode: false,
        barrier: true,
    }
}

/// A CF item: plain words, or clause starters whose clause the builder places.
pub enum C {
    W(CfWord),
    Alu(CfAluOp, Vec<AluGroup>),
    /// An ALU clause with kcache windows: bank, mode, addr per window.
    AluK(CfAluOp, [(u8, u8, u8); 2], Vec<AluGroup>),
    Tex(Vec<TexInst>),
    Vtx(Vec<VtxInst>),
    /// An LDS clause (MEM_DSW/MEM_DSR words), started by TEX (002 line 2221).
    Mem(Vec<MemInst>),
    /// A memory-read clause (MEM_RD words), started by VTX (002 lines 2169-2171).
    MemRd(Vec<MemInst>),
    E(CfExport),
}

/// EXPORT_DONE PARAM of GPRs first..first+count to params 0.., with EOP.
pub fn export_params(first: u8, count: u8) -> C {
    C::E(CfExport {
        array_base: 0,
        kind: 2,
        rw_gpr: first,
        rw_rel: false,
        index_gpr: 0,
        elem_size: 3,
        word1: ExportWord1::Swiz { sel: [0, 1, 2, 3] },
        burst_count: count - 1,
        end_of_program: true,
        valid_pixel_mode: false,
        op: ExportOp::ExportDone,
        whole_quad_mode: false,
        barrier: true,
    })
}

/// MEM_EXPORT WRITE_IND of `gpr` (ELEM_SIZE `es`, all components) at INDEX_GPR.x.
pub fn mem_export(gpr: u8, index: u8, es: u8, eop: bool) -> C {
    C::E(CfExport {
        array_base: 0,
        kind: 1,
        rw_gpr: gpr,
        rw_rel: false,
        index_gpr: index,
        elem_size: es,
        word1: ExportWord1::Buf {
            array_size: 0,
            comp_mask: 0xF,
        },
        burst_count: 0,
        end_of_program: eop,
        valid_pixel_mode: false,
        op: ExportOp::MemExport,
        whole_quad_mode: false,
        barrier: true,
    })
}

/// Lays out the CF program, then each clause (fetch clauses 16-byte aligned).
pub fn build(items: Vec<C>) -> Vec<u8> {
    let mut next = items.len() as u32;
    let mut cf = Vec::new();
    let mut clauses = BTreeMap::new();
    for it in items {
        match it {
            C::W(w) => cf.push(CfInst::Word(w)),
            C::E(e) => cf.push(CfInst::Export(e)),
            C::Alu(op, groups) => {
                push_alu(&mut cf, &mut clauses, &mut next, op, [(0, 0, 0); 2], groups)
            }
            C::AluK(op, k, groups) => push_alu(&mut cf, &mut clauses, &mut next, op, k, groups),
            C::Tex(t) => {
                next += next % 2;
                let mut w = word(CfOp::Tex);
                w.addr = next;
                w.count = t.len() as u8 - 1;
                next += 2 * t.len() as u32;
                clauses.insert(w.addr, Clause::Tex(t));
                cf.push(CfInst::Word(w));
            }
            C::Mem(m) => {
                next += next % 2;
                let mut w = word(CfOp::Tex);
                w.addr = next;
                w.count = m.len() as u8 - 1;
                next += 2 * m.len() as u32;
                clauses.insert(w.addr, Clause::Mem(m));
                cf.push(CfInst::Word(w));
            }
            C::MemRd(m) => {
                next += next % 2;
                let mut w = word(CfOp::Vtx);
                w.addr = next;
                w.count = m.len() as u8 - 1;
                next += 2 * m.len() as u32;
                clauses.insert(w.addr, Clause::Mem(m));
                cf.push(CfInst::Word(w));
            }
            C::Vtx(v) => {
                next += next % 2;
                let mut w = word(CfOp::Vtx);
                w.addr = next;
                w.count = v.len() as u8 - 1;
                next += 2 * v.len() as u32;
                clauses.insert(w.addr, Clause::Vtx(v));
                cf.push(CfInst::Word(w));
            }
        }
    }
    let p = Program {
        cf,
        clauses,
        len_slots: next,
    };
    let bytes = p.encode();
    assert_eq!(
        Program::decode(&bytes).as_ref(),
        Ok(&p),
        "builder output must decode back"
    );
    bytes
}

fn push_alu(
    cf: &mut Vec<CfInst>,
    clauses: &mut BTreeMap<u32, Clause>,
    next: &mut u32,
    op: CfAluOp,
    k: [(u8, u8, u8); 2],
    groups: Vec<AluGroup>,
) {
    let slots: usize = groups.iter().map(|g| g.slots()).sum();
    let a = CfAlu {
        addr: *next,
        kcache_bank: [k[0].0, k[1].0],
        kcache_mode: [k[0].1, k[1].1],
        kcache_addr: [k[0].2, k[1].2],
        count: slots as u8 - 1,
        alt_const: false,
        op,
        whole_quad_mode: false,
        barrier: true,
    };
    *next += slots as u32;
    clauses.insert(a.addr, Clause::Alu(groups));
    cf.push(CfInst::Alu(a));
}

/// Each thread's exported parameters.
pub type Params = Vec<Vec<[u32; 4]>>;

/// Runs `threads` threads (one group) with PARAM exports going to buffer 0; returns the
/// report and each thread's `params` exported vec4s.
pub fn run_params(
    bytes: &[u8],
    threads: u32,
    params: usize,
    opts: &mut Options,
    extra: &mut [&mut [u8]],
) -> Result<(Report, Params), EmuError> {
    let mut out = vec![0u8; threads as usize * 64 * 16];
    opts.export_base[2] = Some(emu::address(0, 0));
    let mut bufs: Vec<&mut [u8]> = vec![&mut out];
    for e in extra.iter_mut() {
        bufs.push(e);
    }
    let r = emu::run(
        bytes,
        &mut bufs,
        Grid {
            groups: [1, 1, 1],
            group_size: [threads, 1, 1],
        },
        opts,
    )?;
    let words: Vec<u32> = out
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let per = (0..threads as usize)
        .map(|t| {
            (0..params)
                .map(|p| {
                    let at = (t * 64 + p) * 4;
                    [words[at], words[at + 1], words[at + 2], words[at + 3]]
                })
                .collect()
        })
        .collect();
    Ok((r, per))
}
