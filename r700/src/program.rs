//! A whole shader binary: the CF program from byte 0 up to the first clause (it must
//! hold an END_OF_PROGRAM), then the clauses at the addresses the CF words give (in 8-byte units),
//! with zero padding between them (002 lines 493-511, 808-850).
//!
//! The manual's order is CF, ALU, TEX/VTX, ... (497-510), but nothing depends on it and
//! LLVM places fetch clauses first; only the addresses matter. ALU clauses count 64-bit
//! slots, literals included (CF_ALU_WORD1 COUNT, 7750-7756); fetch clauses count 128-bit
//! instructions and must be 16-byte aligned (812-823).

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::DecodeError;
use crate::alu::AluGroup;
use crate::cf::{CfInst, CfOp};
use crate::fetch::{TexInst, VtxInst};
use crate::mem::MemInst;

/// The instructions of one clause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Clause {
    Alu(Vec<AluGroup>),
    Tex(Vec<TexInst>),
    Vtx(Vec<VtxInst>),
    /// A fetch clause of MEM words: memory reads (started by VTX/VTX_TC) or local data
    /// share reads and writes (started by TEX); see [`crate::mem`].
    Mem(Vec<MemInst>),
}

impl Clause {
    /// 64-bit slots the clause occupies.
    pub fn slots(&self) -> u64 {
        match self {
            Clause::Alu(g) => g.iter().map(|g| g.slots() as u64).sum(),
            Clause::Tex(t) => 2 * t.len() as u64,
            Clause::Vtx(v) => 2 * v.len() as u64,
            Clause::Mem(m) => 2 * m.len() as u64,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Alu,
    Tex,
    Vtx,
}

/// A decoded shader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub cf: Vec<CfInst>,
    /// Clauses by start address (8-byte units).
    pub clauses: BTreeMap<u32, Clause>,
    /// Total length in 64-bit slots (trailing padding included).
    pub len_slots: u32,
}

/// The clause a CF instruction starts: kind, address, size in slots.
fn clause_of(inst: &CfInst) -> Option<(Kind, u32, u64)> {
    match inst {
        CfInst::Alu(a) => Some((Kind::Alu, a.addr, a.count as u64 + 1)),
        CfInst::Word(w) => match w.op {
            CfOp::Tex => Some((Kind::Tex, w.addr, 2 * (w.count as u64 + 1))),
            CfOp::Vtx | CfOp::VtxTc => Some((Kind::Vtx, w.addr, 2 * (w.count as u64 + 1))),
            _ => None,
        },
        CfInst::Export(_) => None,
    }
}

impl Program {
    /// Decodes a little-endian shader binary.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        if !bytes.len().is_multiple_of(8) {
            return Err(DecodeError::Truncated {
                at: bytes.len() & !7,
            });
        }
        let slots: Vec<(u32, u32)> = bytes
            .chunks_exact(8)
            .map(|c| {
                (
                    u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                    u32::from_le_bytes([c[4], c[5], c[6], c[7]]),
                )
            })
            .collect();
        let len_slots = u32::try_from(slots.len()).map_err(|_| DecodeError::Unsupported {
            what: "a binary of 2^32 or more slots",
        })?;
        // The CF program runs from slot 0 up to the first clause. END_OF_PROGRAM does not
        // end it: llc sets EOP on the last export and still emits a CF_END after it.
        let mut cf = Vec::new();
        let mut limit = slots.len() as u64;
        while (cf.len() as u64) < limit {
            let (w0, w1) = slots[cf.len()];
            let inst = CfInst::decode(w0, w1)?;
            if let Some((_, addr, _)) = clause_of(&inst) {
                limit = limit.min(addr as u64);
            }
            cf.push(inst);
        }
        // Zero slots before the first clause are padding (llc's PAD), not CF NOPs.
        while cf.last().is_some_and(|i| i.encode() == (0, 0)) {
            cf.pop();
        }
        if !cf.iter().any(CfInst::end_of_program) {
            return Err(DecodeError::NoEndOfProgram);
        }
        let cf_end = cf.len() as u64;
        // Each clause once; several CF words may start the same clause.
        let mut wanted: BTreeMap<u32, (Kind, u64)> = BTreeMap::new();
        for (kind, addr, size) in cf.iter().filter_map(clause_of) {
            if (addr as u64) < cf_end {
                return Err(DecodeError::Overlap { slot: addr });
            }
            if kind != Kind::Alu && addr % 2 != 0 {
                return Err(DecodeError::Misaligned { slot: addr });
            }
            if addr as u64 + size > slots.len() as u64 {
                return Err(DecodeError::Truncated {
                    at: slots.len() * 8,
                });
            }
            match wanted.get(&addr) {
                Some(&(k, s)) if k != kind || s != size => {
                    return Err(DecodeError::Overlap { slot: addr });
                }
                _ => {
                    wanted.insert(addr, (kind, size));
                }
            }
        }
        let mut covered = cf_end;
        let mut clauses = BTreeMap::new();
        for (&addr, &(kind, size)) in &wanted {
            let start = addr as u64;
            if start < covered {
                return Err(DecodeError::Overlap { slot: addr });
            }
            if let Some(i) = (covered..start).find(|&i| slots[i as usize] != (0, 0)) {
                return Err(DecodeError::Unreferenced { slot: i as u32 });
            }
            let body = &slots[start as usize..(start + size) as usize];
            let clause = match kind {
                Kind::Alu => {
                    let mut groups = Vec::new();
                    let mut i = 0;
                    while i < body.len() {
                        let (g, n) =
                            AluGroup::decode(&body[i..], addr + i as u32).map_err(|e| match e {
                                DecodeError::ClauseSplitsGroup { .. } => {
                                    DecodeError::ClauseSplitsGroup { clause: addr }
                                }
                                e => e,
                            })?;
                        groups.push(g);
                        i += n;
                    }
                    Clause::Alu(groups)
                }
                // A fetch clause holds MEM words only or none (002 line 2169).
                _ if body.chunks_exact(2).any(|p| MemInst::is_mem(p[0].0)) => {
                    if !body.chunks_exact(2).all(|p| MemInst::is_mem(p[0].0)) {
                        return Err(DecodeError::MixedClause { clause: addr });
                    }
                    Clause::Mem(
                        body.chunks_exact(2)
                            .map(|p| MemInst::decode([p[0].0, p[0].1, p[1].0, p[1].1]))
                            .collect::<Result<_, _>>()?,
                    )
                }
                Kind::Tex => Clause::Tex(
                    body.chunks_exact(2)
                        .map(|p| TexInst::decode([p[0].0, p[0].1, p[1].0, p[1].1]))
                        .collect::<Result<_, _>>()?,
                ),
                Kind::Vtx => Clause::Vtx(
                    body.chunks_exact(2)
                        .map(|p| VtxInst::decode([p[0].0, p[0].1, p[1].0, p[1].1]))
                        .collect::<Result<_, _>>()?,
                ),
            };
            clauses.insert(addr, clause);
            covered = start + size;
        }
        if let Some(i) = (covered..slots.len() as u64).find(|&i| slots[i as usize] != (0, 0)) {
            return Err(DecodeError::Unreferenced { slot: i as u32 });
        }
        Ok(Program {
            cf,
            clauses,
            len_slots,
        })
    }

    /// Encodes back to bytes: CF words from 0, each clause at its address, zeros between.
    /// Clauses that overlap are written in address order, later ones winning.
    pub fn encode(&self) -> Vec<u8> {
        let mut end = self.len_slots as u64;
        for (&a, c) in &self.clauses {
            end = end.max(a as u64 + c.slots());
        }
        end = end.max(self.cf.len() as u64);
        let mut slots = alloc::vec![(0u32, 0u32); end as usize];
        for (i, inst) in self.cf.iter().enumerate() {
            slots[i] = inst.encode();
        }
        for (&a, c) in &self.clauses {
            let mut out = Vec::new();
            match c {
                Clause::Alu(groups) => groups.iter().for_each(|g| g.encode(&mut out)),
                Clause::Tex(t) => t.iter().for_each(|t| {
                    let w = t.encode();
                    out.push((w[0], w[1]));
                    out.push((w[2], w[3]));
                }),
                Clause::Vtx(v) => v.iter().for_each(|v| {
                    let w = v.encode();
                    out.push((w[0], w[1]));
                    out.push((w[2], w[3]));
                }),
                Clause::Mem(m) => m.iter().for_each(|m| {
                    let w = m.encode();
                    out.push((w[0], w[1]));
                    out.push((w[2], w[3]));
                }),
            }
            for (i, s) in out.into_iter().enumerate() {
                slots[a as usize + i] = s;
            }
        }
        let mut bytes = Vec::with_capacity(slots.len() * 8);
        for (w0, w1) in slots {
            bytes.extend_from_slice(&w0.to_le_bytes());
            bytes.extend_from_slice(&w1.to_le_bytes());
        }
        bytes
    }

    /// Instructions: CF words, ALU slots (literal slots not counted) and fetches.
    pub fn instruction_count(&self) -> usize {
        self.cf.len()
            + self
                .clauses
                .values()
                .map(|c| match c {
                    Clause::Alu(g) => g.iter().map(|g| g.insts.len()).sum(),
                    Clause::Tex(t) => t.len(),
                    Clause::Vtx(v) => v.len(),
                    Clause::Mem(m) => m.len(),
                })
                .sum::<usize>()
    }
}
