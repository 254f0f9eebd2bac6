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
//! Only instructions with labels can change their answer between rounds,
//! so a round looks at those alone: offsets come from a segment tree over
//! the pieces (`Offsets`, each piece a map from the incoming offset's
//! 16-byte parity to its size plus padding), updated where a piece went
//! native. A round costs O(branches * log pieces) instead of a pass over
//! the whole program, which made a few hundred chained branches near the
//! compact range take minutes. The rounds, their order of errors and the
//! result are the same as placing everything each round
//! (`tests::same_as_full_rounds`).
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
use crate::generation::IsaGen;
use crate::inst::{Body, Instruction, Opcode};

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
pub(super) fn place(p: IsaGen, pieces: &[Piece], opts: AsmOptions) -> Res<Vec<Program>> {
    let auto = opts.compact && compact::tables(p).is_some();
    let mut small = initial_forms(pieces, auto);
    if auto {
        // An unlabelled instruction compacts or not whatever the layout;
        // those that do not go native after the first round, as in a
        // full round.
        let fixed: Vec<usize> = pieces
            .iter()
            .enumerate()
            .filter_map(|(index, piece)| match piece {
                Piece::Inst {
                    inst, form, refs, ..
                } if refs.is_empty()
                    && *form == Storage::Auto
                    && small[index]
                    && !compacts(p, inst) =>
                {
                    Some(index)
                }
                _ => None,
            })
            .collect();
        settle_branches(p, pieces, &mut small, fixed)?;
    }
    let (programs, changed) = round(p, pieces, &mut small, auto)?;
    debug_assert!(!changed, "the layout reached its fixed point");
    Ok(programs)
}

/// Whether each piece (an instruction) starts compact.
fn initial_forms(pieces: &[Piece], auto: bool) -> Vec<bool> {
    pieces
        .iter()
        .map(|piece| match piece {
            Piece::Inst { form, .. } => match form {
                Storage::Compact => true,
                Storage::Native => false,
                Storage::Auto => auto,
            },
            _ => false,
        })
        .collect()
}

/// One round over the whole program: places everything, resolves labels,
/// and moves each automatically compacted instruction that no longer
/// compacts to native. Returns the program and whether anything moved.
fn round(p: IsaGen, pieces: &[Piece], small: &mut [bool], auto: bool) -> Res<(Vec<Program>, bool)> {
    let (out, labels) = positions(p, pieces, small, auto);
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
                let size = if small[index] { 8 } else { 16 };
                let inst = resolve(p, inst, refs, *line, at, size, |name| {
                    labels.get(name).copied()
                })?;
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
    Ok((programs, grew))
}

/// `inst` with its label references set for its place `at` (`size`
/// bytes); `label` gives a label's offset.
fn resolve(
    p: IsaGen,
    inst: &Instruction,
    refs: &Refs,
    line: usize,
    at: usize,
    size: usize,
    label: impl Fn(&str) -> Option<usize>,
) -> Res<Instruction> {
    let mut inst = *inst;
    for (which, name, col) in refs {
        let Some(target) = label(name) else {
            return err(line, *col, alloc::format!("undefined label {name}"));
        };
        super::super::jumps::set_target(p, &mut inst, *which, at, size, target)
            .or_else(|m| err(line, *col, m))?;
    }
    Ok(inst)
}

/// The rounds of [`round`] restricted to the instructions with labels
/// (the others are settled before): each round resolves every labelled
/// instruction in order (so the first error is the one a full round
/// meets first), then moves the compact ones that no longer compact.
fn settle_branches(
    p: IsaGen,
    pieces: &[Piece],
    small: &mut [bool],
    mut unlabelled: Vec<usize>,
) -> Res<()> {
    let mut offsets = Offsets::new(p, pieces, small);
    // Label name -> the piece it names (None: the end of the program).
    let mut names: BTreeMap<&str, Option<usize>> = BTreeMap::new();
    let mut pending: Vec<&str> = Vec::new();
    for (index, piece) in pieces.iter().enumerate() {
        match piece {
            Piece::Label(name) => pending.push(name),
            _ => pending.drain(..).for_each(|n| {
                names.insert(n, Some(index));
            }),
        }
    }
    pending.drain(..).for_each(|n| {
        names.insert(n, None);
    });
    let branches: Vec<usize> = pieces
        .iter()
        .enumerate()
        .filter_map(|(i, piece)| match piece {
            Piece::Inst { refs, .. } if !refs.is_empty() => Some(i),
            _ => None,
        })
        .collect();
    // The last resolved word of each branch and whether it compacted.
    let mut seen: BTreeMap<usize, (Instruction, bool)> = BTreeMap::new();
    loop {
        let mut native = Vec::new();
        for &index in &branches {
            let Piece::Inst {
                inst,
                form,
                refs,
                line,
            } = &pieces[index]
            else {
                continue;
            };
            let size = if small[index] { 8 } else { 16 };
            let at = offsets.start(index);
            let inst = resolve(p, inst, refs, *line, at, size, |name| {
                names.get(name).map(|at| match at {
                    Some(i) => offsets.start(*i),
                    None => offsets.end(),
                })
            })?;
            if small[index] && *form == Storage::Auto {
                let fits = match seen.get(&index) {
                    Some((last, fits)) if *last == inst => *fits,
                    _ => compacts(p, &inst),
                };
                seen.insert(index, (inst, fits));
                if !fits {
                    native.push(index);
                }
            }
        }
        native.append(&mut unlabelled);
        if native.is_empty() {
            return Ok(());
        }
        for index in native {
            small[index] = false;
            offsets.set(pieces, small, index);
        }
    }
}

/// Offsets of the pieces under the current forms, with the padding of
/// [`positions`]: a segment tree whose leaves are the pieces, each a map
/// from the parity of the offset it starts at (`at % 16` is 0 or 8) to the
/// bytes it adds (padding and size); inner nodes compose their children.
struct Offsets {
    p: IsaGen,
    /// Leaves start at `leaves`; node 1 is the root.
    tree: Vec<[usize; 2]>,
    leaves: usize,
    /// Whether each piece pads when it would start at an odd 64-bit
    /// offset (see [`positions`]).
    pads: Vec<bool>,
}

/// A piece that adds nothing (a label).
const NOTHING: [usize; 2] = [0, 0];

/// `f` then `g`.
fn then(f: [usize; 2], g: [usize; 2]) -> [usize; 2] {
    let step = |parity: usize| {
        let d = f[parity];
        d + g[(parity * 8 + d) % 16 / 8]
    };
    [step(0), step(1)]
}

impl Offsets {
    fn new(p: IsaGen, pieces: &[Piece], small: &[bool]) -> Self {
        let leaves = pieces.len().next_power_of_two().max(1);
        let mut o = Offsets {
            p,
            tree: alloc::vec![NOTHING; 2 * leaves],
            leaves,
            pads: alloc::vec![false; pieces.len()],
        };
        for i in 0..pieces.len() {
            o.tree[leaves + i] = o.leaf(pieces, small, i);
        }
        for n in (1..leaves).rev() {
            o.tree[n] = then(o.tree[2 * n], o.tree[2 * n + 1]);
        }
        o
    }

    /// Piece `i`'s bytes by incoming parity: the rules of [`positions`].
    fn leaf(&mut self, pieces: &[Piece], small: &[bool], i: usize) -> [usize; 2] {
        let g45 = self.p == IsaGen::G45;
        let (size, pad) = match &pieces[i] {
            Piece::Label(_) => return NOTHING,
            Piece::Raw(words) => (words.len() * 4, g45),
            Piece::Inst { inst, .. } => (if small[i] { 8 } else { 16 }, g45 || ends_thread(inst)),
        };
        let after_label = i > 0 && matches!(pieces[i - 1], Piece::Label(_));
        let due = size != 8 || (g45 && after_label);
        self.pads[i] = due && pad;
        [size, size + if self.pads[i] { 8 } else { 0 }]
    }

    /// Piece `i` changed form.
    fn set(&mut self, pieces: &[Piece], small: &[bool], i: usize) {
        let mut n = self.leaves + i;
        self.tree[n] = self.leaf(pieces, small, i);
        while n > 1 {
            n /= 2;
            self.tree[n] = then(self.tree[2 * n], self.tree[2 * n + 1]);
        }
    }

    /// Where the pieces before `i` end (before `i`'s padding).
    fn before(&self, i: usize) -> usize {
        let (mut l, mut r) = (self.leaves, self.leaves + i);
        let (mut left, mut right) = (NOTHING, NOTHING);
        while l < r {
            if l & 1 == 1 {
                left = then(left, self.tree[l]);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                right = then(self.tree[r], right);
            }
            l /= 2;
            r /= 2;
        }
        then(left, right)[0]
    }

    /// Where piece `i` starts, after its padding.
    fn start(&self, i: usize) -> usize {
        let at = self.before(i);
        at + if self.pads[i] && at % 16 == 8 { 8 } else { 0 }
    }

    /// Where a label after the last piece lands (G45 pads it to 16 bytes).
    fn end(&self) -> usize {
        let at = self.tree[1][0];
        at + if self.p == IsaGen::G45 && at % 16 == 8 {
            8
        } else {
            0
        }
    }
}

/// Whether `inst` encodes and its native word has a compact form.
fn compacts(p: IsaGen, inst: &Instruction) -> bool {
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
    p: IsaGen,
    pieces: &[Piece],
    small: &[bool],
    auto: bool,
) -> (Vec<Placed>, BTreeMap<String, usize>) {
    let g45 = p == IsaGen::G45;
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

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::String;

    /// The layout as it was: a full round until nothing moves.
    fn full_rounds(p: IsaGen, pieces: &[Piece], opts: AsmOptions) -> Res<Vec<Program>> {
        let auto = opts.compact && compact::tables(p).is_some();
        let mut small = initial_forms(pieces, auto);
        loop {
            let (programs, grew) = round(p, pieces, &mut small, auto)?;
            if !grew {
                return Ok(programs);
            }
        }
    }

    /// The two layouts of a source that parses: (fast, full rounds).
    type Both = (Res<Vec<Program>>, Res<Vec<Program>>);

    fn both(p: IsaGen, src: &str) -> Option<Both> {
        let pieces = super::super::pieces(p, src).ok()?;
        let opts = AsmOptions { compact: true };
        Some((place(p, &pieces, opts), full_rounds(p, &pieces, opts)))
    }

    /// Lines a random program is made of; `{}` is a label name.
    fn lines(p: IsaGen) -> &'static [&'static str] {
        match p {
            IsaGen::G45 => &[
                "(f0.0) if (8|M0) {}",
                "else (8|M0) {} pop(1)",
                "(f0.0) while (8|M0) {}",
                "(W) jmpi {}",
            ],
            IsaGen::Gen6 => &[
                "(f0.0) if (8|M0) {}",
                "else (8|M0) {}",
                "(W) jmpi {}",
                "(W) jmpi {}",
                "(W) call (1|M0) r10.0<1>:d {}",
                "send (8|M0) null:ud r112 0x7 0x02000010 {EOT}",
            ],
            _ => &[
                "(f0.0) if (8|M0) {} {}",
                "(f0.1) while (16|M0) {}",
                "(W) jmpi {}",
                "(W) call (1|M0) r10.0<1>:d {}",
                "send (8|M0) null:ud r112 0x27 0x02000010 {EOT}",
            ],
        }
    }

    const FILLERS: [&str; 5] = [
        "add (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f",
        "add (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f {Uncompacted}",
        "mov (8|M0) r1.0<1>:f 0x3F800001:f",
        ".raw 0x00000001 0x00000000 0x00000000 0x00000000",
        "add (8|M0) r4.0<1>:f r5.0<8;8,1>:f r6.0<8;8,1>:f {Compacted}",
    ];

    /// A random program: runs of fillers (long ones put jumps near the
    /// compact range), branches to random labels, labels, an undefined
    /// label now and then.
    fn program(p: IsaGen, seed: u64) -> String {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        let labels = 1 + next(6);
        let mut src = String::new();
        let mut placed = 0;
        for _ in 0..40 {
            match next(6) {
                0 | 1 => {
                    // Now and then a label no line defines.
                    let k = if next(40) == 0 { labels } else { next(labels) };
                    let line = lines(p)[next(lines(p).len())].replace("{}", &format!("L{k}"));
                    src.push_str(&line);
                }
                2 if placed < labels => {
                    src.push_str(&format!("L{placed}:"));
                    placed += 1;
                }
                3 => {
                    let f = FILLERS[next(FILLERS.len())];
                    let n = [100, 1000, 2040, 4090, 4200][next(5)];
                    src.push_str(&format!("{f}\n").repeat(n));
                    src.pop();
                }
                _ => src.push_str(FILLERS[next(FILLERS.len())]),
            }
            src.push('\n');
        }
        for k in placed..labels {
            src.push_str(&format!("L{k}:\n"));
        }
        src
    }

    #[test]
    fn same_as_full_rounds() {
        let (mut compared, mut errors, mut jmpi) = (0, 0, [0; 2]);
        for p in [IsaGen::G45, IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75] {
            for seed in 0..40 {
                let src = program(p, seed);
                if let Some((fast, full)) = both(p, &src) {
                    assert_eq!(fast, full, "{p} seed {seed}");
                    compared += 1;
                    let prog = match fast {
                        Ok(prog) => prog,
                        Err(_) => {
                            errors += 1;
                            continue;
                        }
                    };
                    for i in prog {
                        if let Program::Inst {
                            inst, compacted, ..
                        } = i
                            && inst.opcode == Opcode::Jmpi
                        {
                            jmpi[compacted as usize] += 1;
                        }
                    }
                }
            }
        }
        // Programs that place, programs that fail, branches either way.
        assert!(compared > 100, "{compared} programs parsed");
        assert!(
            errors > 0 && errors < compared / 2,
            "{errors} of {compared}"
        );
        assert!(jmpi[0] > 10 && jmpi[1] > 10, "jmpi native/compact {jmpi:?}");
    }

    /// Chained `jmpi`s just inside the compact range (Gen6: 13-bit
    /// immediates in 64-bit units): the last one is one unit out, and each
    /// going native pushes the one before out too, one per round.
    pub(crate) fn chain(n: usize) -> String {
        let (spacing, reach) = (3000, 4095);
        let mut at_slot: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for k in 0..n {
            let d = if k == n - 1 { reach + 1 } else { reach };
            at_slot
                .entry(k * spacing + 1 + d)
                .or_default()
                .push(format!("T{k}:"));
        }
        let last = at_slot.keys().last().copied().unwrap_or(0);
        let mut src = String::new();
        for slot in 0..=last {
            for l in at_slot.get(&slot).into_iter().flatten() {
                src.push_str(l);
                src.push('\n');
            }
            if slot % spacing == 0 && slot / spacing < n {
                src.push_str(&format!("(W) jmpi T{}\n", slot / spacing));
            } else {
                src.push_str("add (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n");
            }
        }
        src
    }

    #[test]
    fn same_as_full_rounds_on_a_chain() {
        let (fast, full) = both(IsaGen::Gen6, &chain(5)).unwrap();
        let fast = fast.unwrap();
        assert_eq!(fast, full.unwrap());
        let native = fast
            .iter()
            .filter(|i| matches!(i, Program::Inst { inst, compacted: false, .. } if inst.opcode == Opcode::Jmpi))
            .count();
        assert_eq!(native, 5, "the whole chain went native");
    }
}
