//! Where each statement lands: byte offsets, labels resolved against them,
//! and (with [`AsmOptions::compact`]) which instructions are stored in the
//! 64-bit compact form.
//!
//! Branch offsets count bytes of the final, compacted layout (000 line
//! 9079, 003 lines 92488-92495), and a compacted branch must still encode
//! its offsets: whether a branch compacts depends on its JIP/UIP (the
//! compact word holds 13 immediate bits at most), which depend on the
//! layout. So the layout iterates: every instruction that may compact
//! starts compact; each round places everything, resolves labels, and
//! stores natively each instruction whose word then has no compact form.
//! Instructions only ever go from compact to native, so this reaches a
//! fixed point within one round per instruction. The fixed point may keep
//! an instruction native that would compact in the final layout; it never
//! stores one compact that does not.
//!
//! Padding, only in compact mode:
//! * G45: every native instruction and every branch target (here: every
//!   label) must be 128-bit aligned, and a NENOP may fill the second half
//!   of a 128-bit slot, where the hardware drops it (000 lines 9071,
//!   9080-9082). A compact NENOP is inserted where needed.
//! * Gen6+: a native end-of-thread send at an odd 64-bit offset gets a
//!   compact NOP before it ([ext: Mesa brw_eu_compact.c
//!   brw_compact_instructions: "the end of thread SEND instruction needs to
//!   be aligned, or the GPU hangs"]; the manuals say nothing).

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::{AsmOptions, Program, Refs, Res, Storage, err};
use crate::codec;
use crate::compact;
use crate::inst::{Body, Instruction, Opcode};
use crate::platform::Platform;

/// One statement of the source.
pub(super) enum Piece {
    Label(String),
    Raw(Vec<u32>),
    Inst {
        inst: Instruction,
        form: Storage,
        refs: Refs,
        line: usize,
    },
}

/// Compact NENOP (opcode 0x7D, CmptCtrl bit 29): G45 padding.
const NENOP: [u32; 2] = [0x7D | 1 << 29, 0];
/// Compact NOP (opcode 0x7E): Gen6+ padding before an EOT send.
pub(super) const NOP: [u32; 2] = [0x7E | 1 << 29, 0];

/// Places `pieces` and resolves their labels.
pub(super) fn place(p: Platform, pieces: &[Piece], opts: AsmOptions) -> Res<Vec<Program>> {
    let auto = opts.compact && compact::tables(p).is_some();
    // Whether each piece (an instruction) is stored compact this round.
    let mut small: Vec<bool> = pieces
        .iter()
        .map(|piece| match piece {
            Piece::Inst { form, .. } => match form {
                Storage::Compact => true,
                Storage::Native => false,
                Storage::Auto => auto,
            },
            _ => false,
        })
        .collect();
    loop {
        let (out, labels) = positions(p, pieces, &small, auto);
        let mut grew = false;
        let mut programs = Vec::with_capacity(out.len());
        for placed in out {
            let (index, at) = match placed {
                Placed::Pad(words) => {
                    programs.push(Program::Raw(words.to_vec()));
                    continue;
                }
                Placed::Piece { index, at } => (index, at),
            };
            match &pieces[index] {
                Piece::Label(_) => {}
                Piece::Raw(words) => programs.push(Program::Raw(words.clone())),
                Piece::Inst {
                    inst,
                    form,
                    refs,
                    line,
                } => {
                    let mut inst = *inst;
                    let size = if small[index] { 8 } else { 16 };
                    for (which, name, col) in refs {
                        let Some(&target) = labels.get(name) else {
                            return err(*line, *col, alloc::format!("undefined label {name}"));
                        };
                        super::super::jumps::set_target(p, &mut inst, *which, at, size, target)
                            .or_else(|m| err(*line, *col, m))?;
                    }
                    // An instruction the layout chose compact that turns
                    // out not to compact goes native for the next round.
                    if auto && small[index] && *form == Storage::Auto && !compacts(p, &inst) {
                        small[index] = false;
                        grew = true;
                    }
                    programs.push(Program::Inst {
                        inst,
                        compacted: small[index],
                        line: *line,
                    });
                }
            }
        }
        if !grew {
            return Ok(programs);
        }
    }
}

/// Whether `inst` encodes and its native word has a compact form.
fn compacts(p: Platform, inst: &Instruction) -> bool {
    codec::encode(p, inst).is_ok_and(|w| compact::compact(p, codec::to_dwords(w)).is_some())
}

/// A placed statement, or padding before the next one.
enum Placed {
    Piece { index: usize, at: usize },
    Pad([u32; 2]),
}

/// Offsets of every piece (with padding when `auto`) and of every label.
/// A label takes the offset of what follows it, after any padding.
fn positions(
    p: Platform,
    pieces: &[Piece],
    small: &[bool],
    auto: bool,
) -> (Vec<Placed>, BTreeMap<String, usize>) {
    let g45 = p == Platform::G45;
    let mut out = Vec::with_capacity(pieces.len());
    let mut labels = BTreeMap::new();
    let mut pending: Vec<&String> = Vec::new();
    let mut at = 0usize;
    for (index, piece) in pieces.iter().enumerate() {
        let (size, pad) = match piece {
            Piece::Label(name) => {
                pending.push(name);
                out.push(Placed::Piece { index, at });
                continue;
            }
            Piece::Raw(words) => (words.len() * 4, g45.then_some(NENOP)),
            Piece::Inst { inst, .. } => {
                let size = if small[index] { 8 } else { 16 };
                let pad = if g45 {
                    Some(NENOP)
                } else {
                    ends_thread(inst).then_some(NOP)
                };
                (size, pad)
            }
        };
        // Native words, and on G45 branch targets, start 128-bit slots.
        let due = size != 8 || (g45 && !pending.is_empty());
        if auto
            && due
            && at % 16 == 8
            && let Some(words) = pad
        {
            out.push(Placed::Pad(words));
            at += 8;
        }
        for name in pending.drain(..) {
            labels.insert(name.clone(), at);
        }
        out.push(Placed::Piece { index, at });
        at += size;
    }
    if auto && g45 && !pending.is_empty() && at % 16 == 8 {
        out.push(Placed::Pad(NENOP));
        at += 8;
    }
    for name in pending {
        labels.insert(name.clone(), at);
    }
    (out, labels)
}

/// A `send`/`sendc` with EOT.
fn ends_thread(inst: &Instruction) -> bool {
    matches!(inst.opcode, Opcode::Send | Opcode::Sendc)
        && matches!(&inst.body, Body::Send(s) if s.eot)
}
