//! Rules inside one ALU instruction group: unit assignment, LAST, reductions and double
//! precision, once-per-group ops, predicate bits, literals, AR indexing, kcache locking,
//! and the read-port algorithm of 002 lines 1613-1745 with the group's own bank swizzles.

use alloc::format;
use alloc::vec::Vec;

use super::ops::{self, Units};
use super::{Place, Rule, Violation};
use crate::alu::{AluForm, AluGroup, AluInst, Src, sel};
use crate::cf::CfAlu;

const CHAN: [char; 4] = ['X', 'Y', 'Z', 'W'];

/// Which instruction (index in the group) each unit runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Units5 {
    pub vec: [Option<usize>; 4],
    pub trans: Option<usize>,
}

/// What the clause-level checks need to know about a group.
pub struct GroupInfo {
    pub units: Units5,
    /// AR elements the group indexes with (bit per element).
    pub ar_used: u8,
    /// AR elements its MOVA* instructions load.
    pub ar_loaded: u8,
}

/// The sources an instruction reads (its opcode's operand count, 002 lines 1688, 1714).
pub fn read_srcs(i: &AluInst) -> Vec<(usize, Src)> {
    let n = match i.form {
        AluForm::Op3 { .. } => 3,
        AluForm::Op2 { .. } => i.info().srcs as usize,
    };
    i.srcs().take(n).enumerate().collect()
}

fn is_gpr(s: u16) -> bool {
    s < 128
}
fn is_kcache(s: u16) -> bool {
    (sel::KCACHE0..sel::KCACHE1 + 32).contains(&s)
}
fn is_cfile(s: u16) -> bool {
    s >= sel::CFILE
}
/// Any constant: kcache, cfile, inline constants and the literal (002 lines 1717, 1736).
fn is_const(s: u16) -> bool {
    is_kcache(s) || is_cfile(s) || (sel::ONE_DBL_L..=sel::LITERAL).contains(&s)
}

/// The AR element an AR-relative operand uses, if INDEX_MODE is an AR mode: GPRs always
/// use AR.X, constants AR.<mode> (Table 4.2, 002 lines 1317-1324; INDEX_GLOBAL_AR_X,
/// 7935).
fn ar_elem(mode: u8, gpr: bool) -> Option<u8> {
    match mode {
        0..=3 if gpr => Some(0),
        0..=3 => Some(mode),
        6 => Some(0),
        _ => None,
    }
}

/// Cycle of operand `k` for a vector unit's bank swizzle (Table 4.3, 002 lines 1625-1637).
const VEC_CYCLE: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 2, 0],
    [1, 0, 2],
    [2, 0, 1],
    [2, 1, 0],
];
/// The same for ALU.Trans (SCL_210, SCL_122, SCL_212, SCL_221).
const SCL_CYCLE: [[usize; 3]; 4] = [[2, 1, 0], [1, 2, 2], [2, 1, 2], [2, 2, 1]];

/// The read-port reservations of 002 lines 1645-1684 (HW_GPR, HW_CONST).
struct Ports {
    gpr: [[Option<u16>; 4]; 3],
    /// Two constant pairs: (select, element / 2).
    consts: [Option<(u16, u8)>; 2],
}

impl Ports {
    fn gpr(&mut self, sel: u16, chan: u8, cycle: usize) -> Result<(), u16> {
        let port = &mut self.gpr[cycle][chan as usize & 3];
        match *port {
            None => {
                *port = Some(sel);
                Ok(())
            }
            Some(s) if s == sel => Ok(()),
            Some(s) => Err(s),
        }
    }
    fn constant(&mut self, sel: u16, chan: u8) -> Result<(), ()> {
        let key = (sel, chan / 2);
        if self.consts.contains(&Some(key)) {
            return Ok(());
        }
        match self.consts.iter_mut().find(|c| c.is_none()) {
            Some(c) => {
                *c = Some(key);
                Ok(())
            }
            None => Err(()),
        }
    }
}

fn src_name(s: u16, chan: u8) -> alloc::string::String {
    let c = CHAN[chan as usize & 3];
    match s {
        0..=127 => format!("R{s}.{c}"),
        128..=159 => format!("KC0[{}].{c}", s - 128),
        160..=191 => format!("KC1[{}].{c}", s - 160),
        256.. => format!("C{}.{c}", s - 256),
        _ => format!("select {s}"),
    }
}

/// Checks one group; `clause`/`gi` locate it, `cf` is the CF instruction that started it.
pub fn check(
    g: &AluGroup,
    clause: u32,
    gi: usize,
    cf: &CfAlu,
    out: &mut Vec<Violation>,
) -> GroupInfo {
    let at = |slot: Option<usize>| Place::Group {
        clause,
        group: gi,
        slot,
    };
    let mut v = |rule, slot: Option<usize>, detail: alloc::string::String| {
        out.push(Violation {
            rule,
            place: at(slot),
            detail,
        })
    };
    let n = g.insts.len();
    for (k, i) in g.insts.iter().enumerate() {
        if i.last != (k + 1 == n) {
            v(
                Rule::LastBit,
                Some(k),
                if i.last {
                    "LAST is set before the group's last instruction".into()
                } else {
                    "the group's last instruction has no LAST bit".into()
                },
            );
        }
    }

    // Unit assignment (002 lines 1253-1283).
    let mut u = Units5::default();
    let mut last_elem: Option<usize> = None;
    for (k, i) in g.insts.iter().enumerate() {
        let e = i.dst_chan as usize & 3;
        let trans = match ops::units(i) {
            Units::Trans => true,
            Units::Vector => false,
            Units::Any => u.vec[e].is_some(),
        };
        if trans {
            if let Some(j) = u.trans {
                v(
                    Rule::SlotAssignment,
                    Some(k),
                    format!(
                        "ALU.Trans already runs slot {j} ({})",
                        g.insts[j].info().name
                    ),
                );
            } else {
                u.trans = Some(k);
            }
            if k + 1 != n {
                v(
                    Rule::TransNotLast,
                    Some(k),
                    format!("{} goes to ALU.Trans but is not last", i.info().name),
                );
            }
        } else if let Some(j) = u.vec[e] {
            v(
                Rule::SlotAssignment,
                Some(k),
                format!(
                    "{} needs ALU.{} but slot {j} already has it{}",
                    i.info().name,
                    CHAN[e],
                    if ops::units(i) == Units::Vector {
                        " (vector-only opcode)"
                    } else {
                        ""
                    }
                ),
            );
        } else {
            u.vec[e] = Some(k);
            if last_elem.is_some_and(|l| l > e) {
                v(
                    Rule::SlotOrder,
                    Some(k),
                    format!("ALU.{} instruction after a later element's", CHAN[e]),
                );
            }
            last_elem = Some(e);
        }
    }

    // Reductions and double precision span fixed units with one opcode.
    let vec_op = |e: usize| u.vec[e].map(|k| &g.insts[k]);
    for e in 0..4 {
        let Some(i) = vec_op(e) else { continue };
        let span = if ops::is_reduction(i) {
            Some((Rule::Reduction, 4))
        } else {
            ops::dp_width(i).map(|w| (Rule::DoublePrecision, w))
        };
        let Some((rule, w)) = span else { continue };
        let first = e / w * w;
        if e != first {
            continue; // checked from the span's first element
        }
        let k = u.vec[e];
        for (f, &name) in CHAN.iter().enumerate().take(first + w).skip(first) {
            let same = vec_op(f).is_some_and(|o| {
                o.info().opcode == i.info().opcode
                    && core::mem::discriminant(&o.form) == core::mem::discriminant(&i.form)
                    && (rule != Rule::Reduction || (o.clamp == i.clamp && omod(o) == omod(i)))
            });
            if !same {
                v(
                    rule,
                    k,
                    format!(
                        "{} must run on ALU.{}-{} alike{}; ALU.{} differs",
                        i.info().name,
                        CHAN[first],
                        CHAN[first + w - 1],
                        if rule == Rule::Reduction {
                            " with the same OMOD and CLAMP"
                        } else {
                            ""
                        },
                        name
                    ),
                );
                break;
            }
        }
    }
    // A span that does not start at its first element (e.g. ADD_64 on Y,Z only).
    for (e, &name) in CHAN.iter().enumerate() {
        let Some(i) = vec_op(e) else { continue };
        let w = if ops::is_reduction(i) {
            4
        } else {
            ops::dp_width(i).unwrap_or(1)
        };
        let first = e / w * w;
        if w > 1 && e != first && vec_op(first).is_none_or(|o| o.info().opcode != i.info().opcode) {
            v(
                if w == 4 && ops::is_reduction(i) {
                    Rule::Reduction
                } else {
                    Rule::DoublePrecision
                },
                u.vec[e],
                format!(
                    "{} on ALU.{name} without ALU.{}",
                    i.info().name,
                    CHAN[first]
                ),
            );
        }
    }

    // At most one PRED_SET* or KILL (002 lines 1872-1874, 2026), and the predicate
    // bits only on PRED_SET* (2002, 2026).
    let preds: Vec<usize> = (0..n).filter(|&k| ops::is_pred_set(&g.insts[k])).collect();
    let kills: Vec<usize> = (0..n).filter(|&k| ops::is_kill(&g.insts[k])).collect();
    // PRED_SET*_64 spans two units, and two of them may fill X-W (002 lines 5422-5424,
    // 5660-5662): together they count as one.
    let dp_preds = preds.iter().any(|&k| ops::dp_width(&g.insts[k]).is_some());
    let pred_count = preds
        .iter()
        .filter(|&&k| ops::dp_width(&g.insts[k]).is_none())
        .count()
        + dp_preds as usize;
    if pred_count > 1 || kills.len() > 1 || (pred_count > 0 && !kills.is_empty()) {
        let k = *preds.iter().chain(&kills).max().unwrap_or(&0);
        v(
            Rule::OncePerGroup,
            Some(k),
            format!(
                "{} PRED_SET* and {} KILL* instructions co-issued",
                pred_count,
                kills.len()
            ),
        );
    }
    for (k, i) in g.insts.iter().enumerate() {
        if let AluForm::Op2 {
            update_pred,
            update_exec_mask,
            ..
        } = i.form
            && (update_pred || update_exec_mask)
            && !ops::is_pred_set(i)
        {
            v(
                Rule::PredicateBits,
                Some(k),
                format!(
                    "{} computes no predicate but sets UPDATE_PRED/UPDATE_EXEC_MASK",
                    i.info().name
                ),
            );
        }
    }

    if g.literals.len() != AluGroup::literal_dwords(&g.insts) {
        v(
            Rule::LiteralCount,
            None,
            format!(
                "{} literal dwords follow the group, its sources select {}",
                g.literals.len(),
                AluGroup::literal_dwords(&g.insts)
            ),
        );
    }

    // AR indexing (002 lines 1317-1334, 1918).
    let mova = (0..n).find(|&k| ops::is_mova(&g.insts[k]));
    let mut ar_used = 0u8;
    let mut ar_loaded = 0u8;
    for (k, i) in g.insts.iter().enumerate() {
        if ops::is_mova(i) && u.vec[i.dst_chan as usize & 3] == Some(k) {
            ar_loaded |= 1 << (i.dst_chan & 3);
        }
        let mut uses = 0u8;
        for (_, s) in read_srcs(i) {
            if !s.rel {
                continue;
            }
            if is_kcache(s.sel) && ar_elem(i.index_mode, false).is_some() {
                v(
                    Rule::KcacheArIndex,
                    Some(k),
                    format!(
                        "{} is relative to AR; kcache constants take the loop index only",
                        src_name(s.sel, s.chan)
                    ),
                );
            } else if (is_gpr(s.sel) || is_cfile(s.sel))
                && let Some(e) = ar_elem(i.index_mode, is_gpr(s.sel))
            {
                uses |= 1 << e;
            }
        }
        if i.dst_rel
            && let Some(e) = ar_elem(i.index_mode, true)
        {
            uses |= 1 << e;
        }
        if uses != 0
            && let Some(m) = mova
        {
            v(
                Rule::MovaWithArIndex,
                Some(k),
                format!("AR-relative addressing in a group whose slot {m} is a MOVA*"),
            );
        }
        ar_used |= uses;
    }
    if ar_used.count_ones() > 1 {
        v(
            Rule::ArElements,
            None,
            format!(
                "the group indexes with AR.{}",
                (0..4)
                    .filter(|e| ar_used >> e & 1 != 0)
                    .map(|e| CHAN[e])
                    .collect::<alloc::string::String>()
            ),
        );
    }

    // Kcache lines locked by the CF instruction (002 line 1350).
    for (k, i) in g.insts.iter().enumerate() {
        for (_, s) in read_srcs(i) {
            if !is_kcache(s.sel) {
                continue;
            }
            let (set, idx) = if s.sel < sel::KCACHE1 {
                (0, s.sel - sel::KCACHE0)
            } else {
                (1, s.sel - sel::KCACHE1)
            };
            let mode = cf.kcache_mode[set];
            if mode == 0 || (idx >= 16 && mode == 1) {
                v(
                    Rule::KcacheUnlocked,
                    Some(k),
                    format!(
                        "KC{set}[{idx}] read but KCACHE_MODE{set} is {}",
                        ["NOP", "LOCK_1", "LOCK_2", "LOCK_LOOP_INDEX"][mode as usize & 3]
                    ),
                );
            }
        }
    }

    read_ports(g, &u, &mut v);
    GroupInfo {
        units: u,
        ar_used,
        ar_loaded,
    }
}

fn omod(i: &AluInst) -> u8 {
    match i.form {
        AluForm::Op2 { omod, .. } => omod,
        AluForm::Op3 { .. } => 0,
    }
}

/// check_vector / check_scalar (002 lines 1686-1745) with the encoded bank swizzles.
fn read_ports(
    g: &AluGroup,
    u: &Units5,
    v: &mut impl FnMut(Rule, Option<usize>, alloc::string::String),
) {
    let mut ports = Ports {
        gpr: [[None; 4]; 3],
        consts: [None; 2],
    };
    for k in u.vec.iter().flatten().copied() {
        let i = &g.insts[k];
        let bs = i.bank_swizzle as usize;
        if bs >= VEC_CYCLE.len() {
            continue; // decoding refuses 6 and 7
        }
        for (n, s) in read_srcs(i) {
            if is_gpr(s.sel) {
                // src1 = src0 shares src0's read (002 lines 1491-1508).
                if n == 1 && s.sel == i.src0.sel && s.chan == i.src0.chan {
                    continue;
                }
                let cycle = VEC_CYCLE[bs][n];
                if let Err(other) = ports.gpr(s.sel, s.chan, cycle) {
                    v(
                        Rule::GprReadPort,
                        Some(k),
                        format!(
                            "src{n} {} needs the {} port in cycle {cycle}, which R{other}.{} uses",
                            src_name(s.sel, s.chan),
                            CHAN[s.chan as usize & 3],
                            CHAN[s.chan as usize & 3]
                        ),
                    );
                }
            } else if (is_cfile(s.sel) || is_kcache(s.sel))
                && ports.constant(s.sel, s.chan).is_err()
            {
                v(
                    Rule::ConstReadPort,
                    Some(k),
                    format!(
                        "src{n} {} needs a third constant pair",
                        src_name(s.sel, s.chan)
                    ),
                );
            }
        }
    }
    let Some(k) = u.trans else { return };
    let i = &g.insts[k];
    let bs = i.bank_swizzle as usize;
    if bs >= SCL_CYCLE.len() {
        v(
            Rule::BankSwizzle,
            Some(k),
            format!(
                "BANK_SWIZZLE {bs} on ALU.Trans, which has SCL_210, SCL_122, SCL_212, SCL_221 (0-3)"
            ),
        );
        return;
    }
    let srcs = read_srcs(i);
    let mut consts = 0;
    for &(n, s) in &srcs {
        if !is_const(s.sel) {
            continue;
        }
        if consts == 2 {
            v(
                Rule::TransConstants,
                Some(k),
                format!("src{n} is a third constant operand of an ALU.Trans instruction"),
            );
        }
        consts += 1;
        if (is_cfile(s.sel) || is_kcache(s.sel)) && ports.constant(s.sel, s.chan).is_err() {
            v(
                Rule::ConstReadPort,
                Some(k),
                format!(
                    "src{n} {} needs a third constant pair",
                    src_name(s.sel, s.chan)
                ),
            );
        }
    }
    for &(n, s) in &srcs {
        let cycle = SCL_CYCLE[bs][n];
        if is_gpr(s.sel) || s.sel == sel::PV || s.sel == sel::PS {
            if cycle < consts.min(2) {
                v(
                    Rule::TransConstCycle,
                    Some(k),
                    format!(
                        "src{n} loads in cycle {cycle}, but the instruction's {consts} constant(s) take cycle{} 0{}",
                        if consts > 1 { "s" } else { "" },
                        if consts > 1 { "-1" } else { "" }
                    ),
                );
            }
            if is_gpr(s.sel)
                && let Err(other) = ports.gpr(s.sel, s.chan, cycle)
            {
                v(
                    Rule::GprReadPort,
                    Some(k),
                    format!(
                        "src{n} {} needs the {} port in cycle {cycle}, which R{other}.{} uses",
                        src_name(s.sel, s.chan),
                        CHAN[s.chan as usize & 3],
                        CHAN[s.chan as usize & 3]
                    ),
                );
            }
        }
    }
}
