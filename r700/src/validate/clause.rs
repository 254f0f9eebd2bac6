//! Rules over whole clauses: the CF word against the clause it starts (kind, COUNT,
//! length limits, COND), the memory-read fields, and what one ALU group may expect from
//! the previous one (PV/PS, MOVA, AR loading, relative writes; 002 lines 2032-2076).

use alloc::format;
use alloc::vec::Vec;

use super::group::{self, GroupInfo, read_srcs};
use super::ops;
use super::{Place, Rule, Violation};
use crate::alu::{AluForm, AluGroup, sel};
use crate::cf::{CfAlu, CfInst, CfOp};
use crate::mem::{MEM_OP_RD_REDUC, MemInst};
use crate::program::{Clause, Program};

const CHAN: [char; 4] = ['X', 'Y', 'Z', 'W'];

pub fn check(p: &Program, out: &mut Vec<Violation>) {
    for (index, inst) in p.cf.iter().enumerate() {
        match inst {
            CfInst::Alu(a) => {
                let Some(c) = p.clauses.get(&a.addr) else {
                    missing(index, a.addr, out);
                    continue;
                };
                let Clause::Alu(groups) = c else {
                    kind(index, "an ALU instruction starts a fetch clause", out);
                    continue;
                };
                let slots = c.slots();
                // COUNT is slots minus one, 1-128 slots (002 lines 810-820, 7749).
                if slots != a.count as u64 + 1 || slots > 128 {
                    out.push(Violation {
                        rule: Rule::ClauseLength,
                        place: Place::Cf { index },
                        detail: format!(
                            "COUNT {} says {} slots, the clause has {slots} (at most 128)",
                            a.count,
                            a.count as u32 + 1
                        ),
                    });
                }
                alu_clause(a, groups, out);
            }
            CfInst::Word(w) if matches!(w.op, CfOp::Tex | CfOp::Vtx | CfOp::VtxTc) => {
                if w.cond != 0 {
                    out.push(Violation {
                        rule: Rule::FetchCond,
                        place: Place::Cf { index },
                        detail: format!(
                            "{} has COND {}; clause instructions take CF_COND_ACTIVE only",
                            w.op.name(),
                            w.cond
                        ),
                    });
                }
                let Some(c) = p.clauses.get(&w.addr) else {
                    missing(index, w.addr, out);
                    continue;
                };
                let tex = w.op == CfOp::Tex;
                let n = match c {
                    Clause::Alu(_) => {
                        kind(index, "a fetch instruction starts an ALU clause", out);
                        continue;
                    }
                    Clause::Tex(t) if tex => t.len(),
                    Clause::Vtx(v) if !tex => v.len(),
                    Clause::Mem(m) => {
                        mem_clause(index, w.addr, tex, m, out);
                        m.len()
                    }
                    _ => {
                        kind(
                            index,
                            if tex {
                                "TEX starts a vertex-fetch clause"
                            } else {
                                "VTX starts a texture-fetch clause"
                            },
                            out,
                        );
                        continue;
                    }
                };
                // COUNT (with COUNT_3) is instructions minus one, 1-16 (7654-7658, 2169).
                if n != w.count as usize + 1 {
                    out.push(Violation {
                        rule: Rule::ClauseLength,
                        place: Place::Cf { index },
                        detail: format!(
                            "COUNT {} says {} instructions, the clause has {n}",
                            w.count,
                            w.count as u32 + 1
                        ),
                    });
                }
            }
            _ => {}
        }
    }
}

fn missing(index: usize, addr: u32, out: &mut Vec<Violation>) {
    kind(index, &format!("no clause at @{addr}"), out);
}

fn kind(index: usize, detail: &str, out: &mut Vec<Violation>) {
    out.push(Violation {
        rule: Rule::ClauseKind,
        place: Place::Cf { index },
        detail: detail.into(),
    });
}

/// Memory reads come from VTX/VTX_TC clauses, LDS accesses from TEX clauses, and the
/// two do not share a clause (002 lines 2161, 2169, 2221).
fn mem_clause(index: usize, clause: u32, tex: bool, m: &[MemInst], out: &mut Vec<Violation>) {
    let reads = m.iter().filter(|i| i.is_memory_read()).count();
    if reads != 0 && reads != m.len() {
        kind(
            index,
            "a clause mixes memory reads and LDS instructions",
            out,
        );
    } else if tex && reads != 0 {
        kind(
            index,
            "memory reads in a TEX clause (they need VTX or VTX_TC)",
            out,
        );
    } else if !tex && reads == 0 {
        kind(
            index,
            "LDS instructions in a VTX clause (they need TEX)",
            out,
        );
    }
    for (k, i) in m.iter().enumerate() {
        let MemInst::Read(r) = i else { continue };
        let mut bad = |detail: alloc::string::String| {
            out.push(Violation {
                rule: Rule::MemReadField,
                place: Place::Fetch { clause, index: k },
                detail,
            })
        };
        if !r.mega_fetch {
            bad("MEGA_FETCH is 0; memory reads need 1".into());
        }
        if r.elem_size == 2 {
            bad("ELEM_SIZE 2 (three dwords) is illegal".into());
        }
        if r.mem_op == MEM_OP_RD_REDUC && r.elem_size != 3 {
            bad(format!(
                "reduction reads need ELEM_SIZE 3, not {}",
                r.elem_size
            ));
        }
    }
}

fn alu_clause(cf: &CfAlu, groups: &[AluGroup], out: &mut Vec<Violation>) {
    let clause = cf.addr;
    let mut ar_loaded = 0u8;
    let mut prev: Option<(&AluGroup, GroupInfo)> = None;
    for (gi, g) in groups.iter().enumerate() {
        let info = group::check(g, clause, gi, cf, out);
        let at = |slot| Place::Group {
            clause,
            group: gi,
            slot: Some(slot),
        };
        // AR must come from a MOVA* in an earlier group of this clause (1328).
        let missing_ar = info.ar_used & !ar_loaded;
        if missing_ar != 0 {
            out.push(Violation {
                rule: Rule::ArNotLoaded,
                place: Place::Group {
                    clause,
                    group: gi,
                    slot: None,
                },
                detail: format!(
                    "indexes with AR.{} but no earlier group of the clause loads it with MOVA*",
                    (0..4)
                        .filter(|e| missing_ar >> e & 1 != 0)
                        .map(|e| CHAN[e])
                        .collect::<alloc::string::String>()
                ),
            });
        }
        ar_loaded |= info.ar_loaded;
        for (k, i) in g.insts.iter().enumerate() {
            if ops::is_kill(i) && gi + 1 != groups.len() {
                out.push(Violation {
                    rule: Rule::KillNotLast,
                    place: at(k),
                    detail: format!(
                        "{} in group {gi} of {}; KILL must be in the clause's last group",
                        i.info().name,
                        groups.len()
                    ),
                });
            }
            for (n, s) in read_srcs(i) {
                if s.sel != sel::PV && s.sel != sel::PS {
                    continue;
                }
                let name = if s.sel == sel::PS {
                    "PS".into()
                } else {
                    format!("PV.{}", CHAN[s.chan as usize & 3])
                };
                let Some((pg, pinfo)) = &prev else {
                    out.push(Violation {
                        rule: Rule::PvFirstGroup,
                        place: at(k),
                        detail: format!("src{n} reads {name} in the clause's first group"),
                    });
                    continue;
                };
                let producer = if s.sel == sel::PS {
                    pinfo.units.trans
                } else {
                    pinfo.units.vec[s.chan as usize & 3]
                }
                .map(|j| &pg.insts[j]);
                let why = match producer {
                    None => Some("that unit was idle (an implicit NOP)"),
                    Some(p) if ops::is_nop(p) => Some("that unit ran a NOP"),
                    Some(p) if ops::pv_x_only(p) && s.sel == sel::PV && s.chan != 0 => {
                        Some("the reduction leaves its result in PV.X only")
                    }
                    _ => None,
                };
                if let Some(why) = why {
                    out.push(Violation {
                        rule: Rule::PvUnwritten,
                        place: at(k),
                        detail: format!("src{n} reads {name}, but in the previous group {why}"),
                    });
                } else if producer.is_some_and(ops::is_mova) {
                    out.push(Violation {
                        rule: Rule::PvAfterMova,
                        place: at(k),
                        detail: format!(
                            "src{n} reads {name}, the undefined result of the previous group's MOVA*"
                        ),
                    });
                }
            }
        }
        if let Some((pg, _)) = &prev {
            rel_write_read(pg, g, clause, gi, out);
        }
        prev = Some((g, info));
    }
}

/// Whether an instruction's GPR access through `rel` uses AR (GPR_INDEX) rather than
/// no index or the loop index (INDEX_MODE, 002 lines 7927-7935).
fn via_ar(rel: bool, index_mode: u8) -> bool {
    rel && matches!(index_mode, 0..=3 | 6)
}

/// 002 lines 2032-2076: the hardware forwards a write to the next group's read when both
/// use no index or the loop index, or both use GPR_INDEX; when only one side uses
/// GPR_INDEX it does not, and the program must guarantee the two do not alias. That
/// cannot be shown from the binary, so a pair in the same element is reported.
fn rel_write_read(prev: &AluGroup, g: &AluGroup, clause: u32, gi: usize, out: &mut Vec<Violation>) {
    for w in &prev.insts {
        let writes = match w.form {
            AluForm::Op2 { write_mask, .. } => write_mask,
            AluForm::Op3 { .. } => true,
        };
        if !writes {
            continue;
        }
        let w_ar = via_ar(w.dst_rel, w.index_mode);
        for (k, i) in g.insts.iter().enumerate() {
            for (n, s) in read_srcs(i) {
                if s.sel >= 128 || s.chan != w.dst_chan || via_ar(s.rel, i.index_mode) == w_ar {
                    continue;
                }
                out.push(Violation {
                    rule: Rule::RelWriteRead,
                    place: Place::Group {
                        clause,
                        group: gi,
                        slot: Some(k),
                    },
                    detail: format!(
                        "src{n} reads R{}{}.{} and the previous group writes R{}{}.{}; one side is AR-relative, so the hardware does not forward it",
                        s.sel,
                        if via_ar(s.rel, i.index_mode) { "[AR.X]" } else { "" },
                        CHAN[s.chan as usize & 3],
                        w.dst_gpr,
                        if w_ar { "[AR.X]" } else { "" },
                        CHAN[w.dst_chan as usize & 3]
                    ),
                });
            }
        }
    }
}
