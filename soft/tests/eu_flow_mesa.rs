//! Flow control as the hardware runs compiler output: structured programs
//! (nested loops, if/else, break, continue, discard halts) are laid out as
//! Mesa's Gen6/Gen7 emitter lays them out, with JIP/UIP computed as its
//! patching computes them (src/intel/compiler/brw_eu_emit.c: `brw_IF`,
//! `patch_IF_ELSE`, `brw_WHILE`, `brw_find_next_block_end`,
//! `brw_find_loop_end`, `brw_set_uip_jip`; brw_fs_generator.cpp
//! `patch_halt_jumps`; elk_* in newer Mesa). Each program runs on the EU
//! model under SIMD8 and SIMD16 dispatch, with SIMD8 or SIMD16 flow
//! control, on Gen6, Gen7 and Gen7.5; every channel's registers are
//! compared with the same program run per channel on the host.

// Channels index several arrays at once; index loops read best.
#![allow(clippy::needless_range_loop)]

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{Body, Jump, Opcode};
use baregpu_soft::eu::{Harness, Step};

const PLATFORMS: [IsaGen; 3] = [IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75];

/// Logical registers: 0 and 1 are inputs, the others start at zero.
const REGS: usize = 8;
/// The first GRF of logical register 0.
const BASE: usize = 10;

#[derive(Clone, Copy, Debug)]
enum Cond {
    Lt,
    Ge,
    Eq,
    Ne,
    Gt,
}

impl Cond {
    fn text(self) -> &'static str {
        match self {
            Cond::Lt => "lt",
            Cond::Ge => "ge",
            Cond::Eq => "eq",
            Cond::Ne => "ne",
            Cond::Gt => "gt",
        }
    }

    fn holds(self, a: i32, b: i32) -> bool {
        match self {
            Cond::Lt => a < b,
            Cond::Ge => a >= b,
            Cond::Eq => a == b,
            Cond::Ne => a != b,
            Cond::Gt => a > b,
        }
    }
}

/// A register or an immediate source.
#[derive(Clone, Copy, Debug)]
enum Val {
    Reg(usize),
    Imm(i32),
}

#[derive(Clone, Copy, Debug)]
enum Alu {
    Add(usize, usize, Val),
    And(usize, usize, i32),
    Mov(usize, i32),
    /// cmp into flag sub-register f0.<n>.
    Cmp(Cond, usize, usize, Val),
}

/// A structured program; flags name f0.0 or f0.1.
#[derive(Clone, Debug)]
enum Node {
    Op(Alu),
    If(usize, Vec<Node>, Option<Vec<Node>>),
    /// `do { body } while (true)`: left by a break.
    Loop(Vec<Node>),
    /// `do { body; cmp } while (flag)`: a predicated while (Mesa's loops
    /// end with an unpredicated one; this checks that channels a break
    /// parked are not taken round by the predicate either).
    DoWhile(Vec<Node>, Alu, usize),
    Break(Option<usize>),
    Cont(Option<usize>),
    /// A discard: the channels whose flag is set leave for the end.
    Halt(usize),
}

// ---------------------------------------------------------------------------
// Host: the program per channel.
// ---------------------------------------------------------------------------

#[derive(PartialEq, Eq, Clone, Copy)]
enum Exit {
    Normal,
    Break,
    Cont,
    Halt,
}

struct Chan {
    r: [i32; REGS],
    f: [bool; 2],
}

impl Chan {
    fn val(&self, v: Val) -> i32 {
        match v {
            Val::Reg(i) => self.r[i],
            Val::Imm(x) => x,
        }
    }

    fn alu(&mut self, a: Alu) {
        match a {
            Alu::Add(d, s, v) => self.r[d] = self.r[s].wrapping_add(self.val(v)),
            Alu::And(d, s, m) => self.r[d] = self.r[s] & m,
            Alu::Mov(d, x) => self.r[d] = x,
            Alu::Cmp(c, f, s, v) => self.f[f] = c.holds(self.r[s], self.val(v)),
        }
    }

    fn run(&mut self, nodes: &[Node]) -> Exit {
        for n in nodes {
            let e = match n {
                Node::Op(a) => {
                    self.alu(*a);
                    Exit::Normal
                }
                Node::If(f, then, els) => {
                    if self.f[*f] {
                        self.run(then)
                    } else if let Some(e) = els {
                        self.run(e)
                    } else {
                        Exit::Normal
                    }
                }
                Node::Loop(body) => {
                    let mut e = Exit::Normal;
                    for _ in 0..1000 {
                        match self.run(body) {
                            Exit::Normal | Exit::Cont => continue,
                            Exit::Break => break,
                            Exit::Halt => {
                                e = Exit::Halt;
                                break;
                            }
                        }
                    }
                    e
                }
                Node::DoWhile(body, cmp, f) => {
                    let mut e = Exit::Normal;
                    for _ in 0..1000 {
                        match self.run(body) {
                            Exit::Normal => self.alu(*cmp),
                            Exit::Cont => {}
                            Exit::Break => break,
                            Exit::Halt => {
                                e = Exit::Halt;
                                break;
                            }
                        }
                        if !self.f[*f] {
                            break;
                        }
                    }
                    e
                }
                Node::Break(p) => {
                    if p.is_none_or(|f| self.f[f]) {
                        Exit::Break
                    } else {
                        Exit::Normal
                    }
                }
                Node::Cont(p) => {
                    if p.is_none_or(|f| self.f[f]) {
                        Exit::Cont
                    } else {
                        Exit::Normal
                    }
                }
                Node::Halt(f) => {
                    if self.f[*f] {
                        Exit::Halt
                    } else {
                        Exit::Normal
                    }
                }
            };
            if e != Exit::Normal {
                return e;
            }
        }
        Exit::Normal
    }
}

// ---------------------------------------------------------------------------
// Mesa's layout.
// ---------------------------------------------------------------------------

/// One instruction of the flat program. Jumps are in instructions (16
/// bytes each: Mesa does not compact flow control it patches).
#[derive(Clone, Debug)]
enum Flat {
    Alu(Alu),
    /// Gen4/G45 only: pushes LMask and CMask (000 lines 11294-11330).
    Do,
    If(usize),
    Else,
    Endif,
    /// The loop's first instruction (`brw_DO` emits nothing on Gen6+), and
    /// the predicate's flag.
    While(usize, Option<usize>),
    Break(Option<usize>),
    Cont(Option<usize>),
    Halt(usize),
    /// Mesa's closing halt, which every channel reaches
    /// (`patch_halt_jumps`: UIP = JIP = the next instruction); on Gen4/G45
    /// the restore of AMask from the dispatch mask there instead ("DMask
    /// is not automatically reloaded into AMask").
    FinalHalt,
    /// Runs after the final halt, for every channel.
    Tail(Alu),
}

/// The flat program; a loop starts with `do` before Gen6 (`brw_DO`).
fn flatten(p: IsaGen, nodes: &[Node], out: &mut Vec<Flat>) {
    for n in nodes {
        match n {
            Node::Op(a) => out.push(Flat::Alu(*a)),
            Node::If(f, then, els) => {
                out.push(Flat::If(*f));
                flatten(p, then, out);
                if let Some(e) = els {
                    out.push(Flat::Else);
                    flatten(p, e, out);
                }
                out.push(Flat::Endif);
            }
            Node::Loop(body) | Node::DoWhile(body, ..) => {
                if p <= IsaGen::G45 {
                    out.push(Flat::Do);
                }
                let start = out.len();
                flatten(p, body, out);
                let pred = if let Node::DoWhile(_, cmp, f) = n {
                    out.push(Flat::Alu(*cmp));
                    Some(*f)
                } else {
                    None
                };
                out.push(Flat::While(start, pred));
            }
            Node::Break(p) => out.push(Flat::Break(*p)),
            Node::Cont(p) => out.push(Flat::Cont(*p)),
            Node::Halt(f) => out.push(Flat::Halt(*f)),
        }
    }
}

/// `brw_find_next_block_end`: the next endif, else, halt or enclosing
/// while at the same if depth (a while that does not jump back before
/// `start` closes a sibling loop and is skipped).
fn next_block_end(code: &[Flat], start: usize) -> Option<usize> {
    let mut depth = 0;
    for (i, f) in code.iter().enumerate().skip(start + 1) {
        match f {
            Flat::If(_) => depth += 1,
            Flat::Endif => {
                if depth == 0 {
                    return Some(i);
                }
                depth -= 1;
            }
            Flat::While(to, _) if *to > start => {}
            Flat::While(..) | Flat::Else | Flat::Halt(_) | Flat::FinalHalt if depth == 0 => {
                return Some(i);
            }
            _ => {}
        }
    }
    None
}

/// `brw_find_loop_end`: the first while after `start` jumping back to or
/// before it.
fn loop_end(code: &[Flat], start: usize) -> usize {
    (start + 1..code.len())
        .find(|&i| matches!(code[i], Flat::While(to, _) if to <= start))
        .expect("a break or cont inside a loop")
}

/// Whether the if at `at` has an else.
fn has_else(code: &[Flat], at: usize) -> bool {
    let mut depth = 0;
    for f in &code[at + 1..] {
        match f {
            Flat::If(_) => depth += 1,
            Flat::Else if depth == 0 => return true,
            Flat::Endif if depth == 0 => return false,
            Flat::Endif => depth -= 1,
            _ => {}
        }
    }
    false
}

/// Gen4/G45 (jump count in instructions, pop count) per instruction as
/// Mesa sets them (`brw_IF`, `patch_IF_ELSE`, `brw_ENDIF`, `brw_WHILE`,
/// `brw_patch_break_cont`; the pop count of break and cont is the if depth
/// inside the innermost loop, `if_depth_in_loop`). An if without else
/// becomes `iff`, jumping past the endif.
fn patch_gen4(code: &[Flat]) -> Vec<(i32, i32)> {
    let mut j = vec![(0i32, 0i32); code.len()];
    let rel = |to: usize, from: usize| to as i32 - from as i32;
    let end = code.iter().position(|f| matches!(f, Flat::FinalHalt));
    let mut ifs: Vec<(usize, Option<usize>)> = Vec::new();
    let mut depth_in_loop = vec![0i32];
    for (i, f) in code.iter().enumerate() {
        match f {
            Flat::Do => depth_in_loop.push(0),
            Flat::If(_) => {
                ifs.push((i, None));
                *depth_in_loop.last_mut().unwrap() += 1;
            }
            Flat::Else => ifs.last_mut().unwrap().1 = Some(i),
            Flat::Endif => {
                *depth_in_loop.last_mut().unwrap() -= 1;
                let (at_if, at_else) = ifs.pop().unwrap();
                match at_else {
                    None => j[at_if] = (rel(i + 1, at_if), 0),
                    Some(e) => {
                        j[at_if] = (rel(e, at_if), 0);
                        j[e] = (rel(i + 1, e), 1);
                    }
                }
                j[i] = (0, 1);
            }
            Flat::While(start, _) => {
                depth_in_loop.pop();
                j[i] = (rel(*start, i), 0);
            }
            Flat::Break(_) => {
                let pops = *depth_in_loop.last().unwrap();
                j[i] = (rel(loop_end(code, i) + 1, i), pops);
            }
            Flat::Cont(_) => {
                let pops = *depth_in_loop.last().unwrap();
                j[i] = (rel(loop_end(code, i), i), pops);
            }
            // Mesa's discard halts land on the AMask restore.
            Flat::Halt(_) => j[i] = (rel(end.unwrap(), i), 0),
            _ => {}
        }
    }
    j
}

/// (JIP, UIP) per instruction, in instructions from it, as Mesa patches
/// them for `p`; before Gen6 (jump count, pop count).
fn patch(p: IsaGen, code: &[Flat]) -> Vec<(i32, i32)> {
    if p <= IsaGen::G45 {
        return patch_gen4(code);
    }
    let gen6 = p == IsaGen::Gen6;
    let mut j = vec![(0i32, 0i32); code.len()];
    let rel = |to: usize, from: usize| to as i32 - from as i32;
    let final_halt = code.iter().position(|f| matches!(f, Flat::FinalHalt));
    // patch_IF_ELSE, with the if/else stack of brw_IF/brw_ELSE/brw_ENDIF.
    let mut stack: Vec<(usize, Option<usize>)> = Vec::new();
    for (i, f) in code.iter().enumerate() {
        match f {
            Flat::If(_) => stack.push((i, None)),
            Flat::Else => stack.last_mut().unwrap().1 = Some(i),
            Flat::Endif => {
                let (at_if, at_else) = stack.pop().unwrap();
                match at_else {
                    // Gen6: IF to the ENDIF; Gen7: JIP = UIP = ENDIF.
                    None => j[at_if] = (rel(i, at_if), if gen6 { 0 } else { rel(i, at_if) }),
                    Some(e) => {
                        // IF just past the ELSE (UIP the ENDIF on Gen7),
                        // ELSE to the ENDIF.
                        j[at_if] = (rel(e + 1, at_if), if gen6 { 0 } else { rel(i, at_if) });
                        j[e] = (rel(i, e), 0);
                    }
                }
            }
            _ => {}
        }
    }
    for (i, f) in code.iter().enumerate() {
        let end = next_block_end(code, i);
        match f {
            Flat::While(to, _) => j[i] = (rel(*to, i), 0),
            Flat::Endif => j[i] = (end.map_or(1, |e| rel(e, i)), 0),
            // "Gen7 UIP points to WHILE; Gen6 points just after it".
            Flat::Break(_) => {
                let w = loop_end(code, i) + usize::from(gen6);
                j[i] = (rel(end.unwrap(), i), rel(w, i));
            }
            Flat::Cont(_) => j[i] = (rel(end.unwrap(), i), rel(loop_end(code, i), i)),
            // A discard's UIP is after the final halt; its JIP the block
            // end, or the UIP when there is none.
            Flat::Halt(_) => {
                let uip = rel(final_halt.unwrap() + 1, i);
                j[i] = (end.map_or(uip, |e| rel(e, i)), uip);
            }
            Flat::FinalHalt => j[i] = (1, 1),
            _ => {}
        }
    }
    j
}

/// How the program is dispatched and which channels its instructions
/// cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// SIMD8 thread, SIMD8 instructions.
    Simd8,
    /// SIMD16 thread, SIMD16 instructions (two registers per value).
    Simd16,
    /// SIMD16 thread running the program twice in SIMD8 halves: (8|M0) on
    /// the low registers, then (8|M8) on the high ones; the final halt and
    /// tail in SIMD16.
    Simd16Halves,
}

impl Mode {
    fn channels(self) -> usize {
        if self == Mode::Simd8 { 8 } else { 16 }
    }
}

/// The GRF holding channels `8 * half ..` of logical register `r`.
fn grf(mode: Mode, r: usize, half: usize) -> usize {
    match mode {
        Mode::Simd8 => BASE + r,
        _ => BASE + 2 * r + half,
    }
}

fn alu_text(a: Alu, exec: &str, g: impl Fn(usize) -> usize) -> String {
    let src = |v: Val| match v {
        Val::Reg(r) => format!("r{}.0<8;8,1>:d", g(r)),
        Val::Imm(x) => format!("{x}:d"),
    };
    match a {
        Alu::Add(d, s, v) => format!(
            "add ({exec}) r{}.0<1>:d r{}.0<8;8,1>:d {}",
            g(d),
            g(s),
            src(v)
        ),
        Alu::And(d, s, m) => format!("and ({exec}) r{}.0<1>:d r{}.0<8;8,1>:d {m}:d", g(d), g(s)),
        Alu::Mov(d, x) => format!("mov ({exec}) r{}.0<1>:d {x}:d", g(d)),
        Alu::Cmp(c, f, s, v) => format!(
            "cmp ({exec}) ({})f0.{f} null<1>:d r{}.0<8;8,1>:d {}",
            c.text(),
            g(s),
            src(v)
        ),
    }
}

/// The text of one flat program, its jumps as byte numbers (the
/// assembler's syntax for a target without a label).
/// A patched jump pair in the units of the text and of the decoded
/// instruction: bytes, and the pop count as is before Gen6.
fn bytes(p: IsaGen, j: (i32, i32)) -> (i32, i32) {
    if p <= IsaGen::G45 {
        (j.0 * 16, j.1)
    } else {
        (j.0 * 16, j.1 * 16)
    }
}

/// The Gen4/G45 text (`000` syntax notes in `baregpu_isa::text`): SIMD16
/// ALU instructions are compressed; branches are not.
fn text_gen4(code: &[Flat], exec: &str, g: &dyn Fn(usize) -> usize) -> Vec<String> {
    let j = patch_gen4(code);
    let compr = if exec.starts_with("16") {
        " {Compr}"
    } else {
        ""
    };
    let pred = |f: &Option<usize>| f.map_or(String::new(), |f| format!("(f0.{f}) "));
    let pop = |n: i32| {
        if n == 0 {
            String::new()
        } else {
            format!(" pop({n})")
        }
    };
    code.iter()
        .enumerate()
        .map(|(i, f)| {
            let (jump, pops) = (j[i].0 * 16, j[i].1);
            match f {
                Flat::Alu(a) | Flat::Tail(a) => alu_text(*a, exec, g) + compr,
                Flat::Do => format!("do ({exec}) null<1>:ud null<0;1,0>:ud"),
                Flat::If(fl) if has_else(code, i) => format!("(f0.{fl}) if ({exec}) {jump}"),
                Flat::If(fl) => format!("(f0.{fl}) iff ({exec}) {jump}"),
                Flat::Else => format!("else ({exec}) {jump}{}", pop(pops)),
                Flat::Endif => format!("endif ({exec}) {jump}{}", pop(pops)),
                Flat::While(_, fl) => format!("{}while ({exec}) {jump}", pred(fl)),
                Flat::Break(fl) => format!("{}break ({exec}) {jump}{}", pred(fl), pop(pops)),
                Flat::Cont(fl) => format!("{}cont ({exec}) {jump}{}", pred(fl), pop(pops)),
                Flat::Halt(fl) => format!("(f0.{fl}) halt ({exec}) {jump}"),
                // Mesa: `mov(1) mask0.0:uw sr0.1` retyped UW, the low word
                // of dword 1 (DMask): sr0.2 in word units.
                Flat::FinalHalt => "(W) mov (1|M0) mask0.0<1>:uw sr0.2<0;1,0>:uw {Switch}".into(),
            }
        })
        .collect()
}

fn text(p: IsaGen, code: &[Flat], exec: &str, g: &dyn Fn(usize) -> usize) -> Vec<String> {
    if p <= IsaGen::G45 {
        return text_gen4(code, exec, g);
    }
    let j = patch(p, code);
    let b = |i: usize| bytes(p, j[i]);
    let pred = |f: &Option<usize>| f.map_or(String::new(), |f| format!("(f0.{f}) "));
    code.iter()
        .enumerate()
        .map(|(i, f)| {
            let (jip, uip) = b(i);
            match f {
                Flat::Alu(a) => alu_text(*a, exec, g),
                Flat::Tail(a) => alu_text(*a, exec, g),
                Flat::If(fl) if p == IsaGen::Gen6 => format!("(f0.{fl}) if ({exec}) {jip}"),
                Flat::If(fl) => format!("(f0.{fl}) if ({exec}) {jip} {uip}"),
                Flat::Else => format!("else ({exec}) {jip}"),
                Flat::Endif => format!("endif ({exec}) {jip}"),
                Flat::While(_, fl) => format!("{}while ({exec}) {jip}", pred(fl)),
                Flat::Break(fl) => format!("{}break ({exec}) {jip} {uip}", pred(fl)),
                Flat::Cont(fl) => format!("{}cont ({exec}) {jip} {uip}", pred(fl)),
                Flat::Halt(fl) => format!("(f0.{fl}) halt ({exec}) {jip} {uip}"),
                Flat::FinalHalt => format!("halt ({exec}) {jip} {uip}"),
                Flat::Do => unreachable!("no do from Gen6 on"),
            }
        })
        .collect()
}

/// Whether the instruction is a branch whose jumps Mesa patches.
fn is_branch(p: IsaGen, f: &Flat) -> bool {
    match f {
        Flat::Alu(_) | Flat::Tail(_) | Flat::Do => false,
        Flat::FinalHalt => p >= IsaGen::Gen6,
        _ => true,
    }
}

/// The kernel of `prog` for `mode`, and the JIP/UIP (bytes) each of its
/// instructions must carry.
fn kernel(p: IsaGen, prog: &[Node], tail: &[Alu], mode: Mode) -> (String, Vec<Option<(i32, i32)>>) {
    let mut body = Vec::new();
    flatten(p, prog, &mut body);
    let end = core::iter::once(Flat::FinalHalt).chain(tail.iter().map(|a| Flat::Tail(*a)));
    // (code, the groups: (up to which instruction, exec, register half)).
    let (code, groups) = match mode {
        Mode::Simd8 => (
            body.into_iter().chain(end).collect(),
            vec![(usize::MAX, "8|M0", 0)],
        ),
        Mode::Simd16 => (
            body.into_iter().chain(end).collect(),
            vec![(usize::MAX, "16|M0", 0)],
        ),
        Mode::Simd16Halves => {
            // Each half's discards jump past the final halt, which follows
            // the second half: lay both halves out as one program.
            let n = body.len();
            let second = body.iter().cloned().map(|f| match f {
                Flat::While(to, fl) => Flat::While(to + n, fl),
                f => f,
            });
            let code: Vec<Flat> = body.clone().into_iter().chain(second).chain(end).collect();
            (
                code,
                vec![(n, "8|M0", 0), (2 * n, "8|M8", 1), (usize::MAX, "16|M0", 0)],
            )
        }
    };
    let j = patch(p, &code);
    let texts: Vec<Vec<String>> = groups
        .iter()
        .map(|&(_, exec, half)| text(p, &code, exec, &|r| grf(mode, r, half)))
        .collect();
    let mut lines = Vec::new();
    let mut jumps = Vec::new();
    for i in 0..code.len() {
        let g = groups.iter().position(|&(upto, ..)| i < upto).unwrap();
        lines.push(texts[g][i].clone());
        jumps.push(is_branch(p, &code[i]).then_some(bytes(p, j[i])));
    }
    (lines.join("\n") + "\n", jumps)
}

// ---------------------------------------------------------------------------
// Running and comparing.
// ---------------------------------------------------------------------------

fn check(p: IsaGen, prog: &[Node], inputs: &[[i32; 16]; 2], mode: Mode, what: &str) {
    let tail = [Alu::Add(REGS - 1, 2, Val::Imm(1000))];
    let (src, jumps) = kernel(p, prog, &tail, mode);
    let bytes =
        baregpu_isa::text::assemble(p, &src).unwrap_or_else(|e| panic!("{p} {what}: {e}\n{src}"));
    // The binary carries Mesa's JIP/UIP.
    assert_eq!(bytes.len(), jumps.len() * 16, "{p} {what}: no compaction");
    for (i, want) in jumps.iter().enumerate() {
        let Some(want) = want else { continue };
        let w = (0..4).fold(0u128, |w, k| {
            let at = 16 * i + 4 * k;
            w | u128::from(u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())) << (32 * k)
        });
        let inst = baregpu_isa::codec::decode(p, w).unwrap();
        let Body::Branch(b) = &inst.body else {
            panic!("{p} {what}: instruction {i} is not a branch");
        };
        let got = match b.jump {
            Jump::Jip { jip } => (jip, 0),
            Jump::JipUip { jip, uip } => (jip, uip),
            Jump::Count { jump, pop } => (jump, i32::from(pop)),
        };
        // Gen7 else and Gen6 if/else/endif/while have no UIP.
        let uip_free = p >= IsaGen::Gen6
            && (matches!(inst.opcode, Opcode::Else | Opcode::Endif | Opcode::While)
                || (p == IsaGen::Gen6 && inst.opcode == Opcode::If));
        assert_eq!(got.0, want.0, "{p} {what}: JIP of instruction {i}\n{src}");
        if !uip_free {
            assert_eq!(got.1, want.1, "{p} {what}: UIP of instruction {i}\n{src}");
        }
    }

    let n = mode.channels();
    let mut h = Harness::new(p);
    h.load(&bytes);
    h.thread
        .set_dispatch_mask(if n == 8 { 0xFF } else { 0xFFFF });
    for r in 0..2 {
        for c in 0..n {
            h.thread
                .set_grf_ud(grf(mode, r, c / 8) as u8, c % 8, inputs[r][c] as u32);
        }
    }
    let step = h.run(1_000_000);
    assert_eq!(
        step,
        Ok(Step::EndOfKernel),
        "{p} {mode:?} {what}: the kernel ends\n{src}"
    );

    for c in 0..n {
        let mut ch = Chan {
            r: [0; REGS],
            f: [false; 2],
        };
        ch.r[0] = inputs[0][c];
        ch.r[1] = inputs[1][c];
        ch.run(prog);
        for a in tail {
            ch.alu(a);
        }
        for r in 0..REGS {
            let got = h.thread.grf_ud(grf(mode, r, c / 8) as u8, c % 8) as i32;
            assert_eq!(
                got, ch.r[r],
                "{p} {mode:?} {what}: channel {c} register {r} (inputs {:?} {:?})\n{src}",
                inputs[0][c], inputs[1][c]
            );
        }
    }
}

/// The modes of `p`: Mesa's Gen4/G45 flow control covers the whole
/// dispatch (the manual's SecHalf masks, 000 lines 10705-10737, are not
/// exercised).
fn modes(p: IsaGen) -> &'static [Mode] {
    if p <= IsaGen::G45 {
        &[Mode::Simd8, Mode::Simd16]
    } else {
        &[Mode::Simd8, Mode::Simd16, Mode::Simd16Halves]
    }
}

use Alu::*;
use Node::*;
use Val::{Imm, Reg};

/// The inputs of the named tests: x in register 0, a limit in register 1.
fn inputs() -> [[i32; 16]; 2] {
    [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        [1, 4, 2, 6, 3, 5, 0, 7, 4, 2, 6, 1, 5, 3, 7, 4],
    ]
}

/// `for (i = 1;; i++) { if (i >= limit) break; if (i == 2) continue;
/// sum += i }`, the break as Mesa's predicated break; with an
/// unpredicated while, the Gen7 break UIP at the while.
#[test]
fn loop_break_continue() {
    let prog = vec![Loop(vec![
        Op(Add(3, 3, Imm(1))),
        Op(Cmp(Cond::Ge, 0, 3, Reg(1))),
        Break(Some(0)),
        Op(Cmp(Cond::Eq, 1, 3, Imm(2))),
        Cont(Some(1)),
        Op(Add(2, 2, Reg(3))),
    ])];
    for p in IsaGen::ALL {
        for &mode in modes(p) {
            check(p, &prog, &inputs(), mode, "loop");
        }
    }
}

/// The break as the loop's last instruction: on Gen7 its JIP, its UIP and
/// its next instruction are all the while, where the broken channels
/// wait while the others go round.
#[test]
fn break_just_before_while() {
    let prog = vec![Loop(vec![
        Op(Add(3, 3, Imm(1))),
        Op(Add(2, 2, Reg(3))),
        Op(Cmp(Cond::Ge, 1, 3, Reg(1))),
        Break(Some(1)),
    ])];
    for p in IsaGen::ALL {
        for &mode in modes(p) {
            check(p, &prog, &inputs(), mode, "last");
        }
    }
}

/// Nested loops; break and continue inside a divergent if/else, as
/// IF-BREAK-ENDIF and as predicated break; channels finish at different
/// iterations; some channels discard (halt) inside the inner loop.
#[test]
fn nested_loops_divergent() {
    let inner = Loop(vec![
        Op(Add(4, 4, Imm(1))),
        Op(Cmp(Cond::Gt, 0, 4, Reg(3))),
        If(0, vec![Break(None)], None),
        Op(Add(5, 0, Reg(4))),
        Op(And(5, 5, 3)),
        Op(Cmp(Cond::Eq, 1, 5, Imm(0))),
        If(
            1,
            vec![
                Op(Add(2, 2, Imm(100))),
                Op(Cmp(Cond::Eq, 0, 4, Imm(2))),
                Cont(Some(0)),
                Op(Add(2, 2, Reg(4))),
            ],
            Some(vec![
                Op(Add(2, 2, Imm(1))),
                Op(Cmp(Cond::Gt, 0, 2, Imm(300))),
                Break(Some(0)),
                Op(Cmp(Cond::Eq, 0, 5, Imm(3))),
                If(0, vec![Op(Cmp(Cond::Eq, 1, 0, Imm(13))), Halt(1)], None),
            ]),
        ),
        Op(Add(2, 2, Imm(3))),
    ]);
    let prog = vec![Loop(vec![
        Op(Add(3, 3, Imm(1))),
        Op(Cmp(Cond::Ge, 0, 3, Reg(1))),
        Break(Some(0)),
        Op(Mov(4, 0)),
        inner,
        Op(And(5, 3, 1)),
        Op(Cmp(Cond::Ne, 1, 5, Imm(0))),
        Cont(Some(1)),
        Op(Add(2, 2, Imm(7))),
    ])];
    for p in IsaGen::ALL {
        for &mode in modes(p) {
            check(p, &prog, &inputs(), mode, "nested");
        }
    }
}

/// Every channel breaks in the same iteration, from inside an if: the
/// break jumps (JIP) to the endif, which hops to the while; on Gen7 the
/// channels parked at the while leave the loop there.
#[test]
fn all_channels_break_together() {
    let prog = vec![
        Loop(vec![
            Op(Add(3, 3, Imm(1))),
            Op(Cmp(Cond::Ge, 0, 3, Imm(3))),
            If(0, vec![Op(Add(2, 2, Imm(10))), Break(None)], None),
            Op(Add(2, 2, Imm(1))),
        ]),
        Op(Add(2, 2, Imm(50))),
    ];
    for p in IsaGen::ALL {
        for &mode in modes(p) {
            check(p, &prog, &inputs(), mode, "together");
        }
    }
}

// ---------------------------------------------------------------------------
// Random structured programs.
// ---------------------------------------------------------------------------

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random statement list at loop depth `depth` (loop counters live in
/// registers 3 and 4; 2 accumulates; 5 and 6 are scratch).
fn statements(r: &mut Rng, depth: usize, in_loop: bool, budget: &mut usize) -> Vec<Node> {
    let mut out = Vec::new();
    let n = 1 + r.below(4);
    for _ in 0..n {
        if *budget == 0 {
            break;
        }
        *budget -= 1;
        let flag = r.below(2) as usize;
        let data = [0, 1, 2, 5, 6][r.below(5) as usize];
        let cmp = |r: &mut Rng| {
            let c = [Cond::Lt, Cond::Ge, Cond::Eq, Cond::Ne, Cond::Gt][r.below(5) as usize];
            Op(Cmp(c, flag, data, Imm(r.below(8) as i32)))
        };
        match r.below(10) {
            0..=2 => {
                let s = [0, 1, 3, 4, 5][r.below(5) as usize];
                let d = [2, 5, 6][r.below(3) as usize];
                out.push(Op(match r.below(3) {
                    0 => Add(d, s, Imm(r.below(9) as i32 - 2)),
                    1 => Add(d, d, Reg(s)),
                    _ => And(d, s, 7),
                }));
            }
            3..=4 => {
                out.push(cmp(r));
                let then = statements(r, depth, in_loop, budget);
                let els = (r.below(2) == 0).then(|| statements(r, depth, in_loop, budget));
                out.push(If(flag, then, els));
            }
            5 if depth < 2 => {
                // for (i = 0; i < x + k; i++) with a counter per depth.
                let i = 3 + depth;
                out.push(Op(Mov(i, 0)));
                let mut body = vec![
                    Op(Add(i, i, Imm(1))),
                    Op(Cmp(Cond::Gt, flag, i, Imm(1 + r.below(4) as i32))),
                    Break(Some(flag)),
                ];
                body.extend(statements(r, depth + 1, true, budget));
                if r.below(3) == 0 {
                    let c = [Cond::Lt, Cond::Ne, Cond::Gt][r.below(3) as usize];
                    let cmp = Cmp(
                        c,
                        flag,
                        [0, 2, 5][r.below(3) as usize],
                        Imm(r.below(8) as i32),
                    );
                    out.push(DoWhile(body, cmp, flag));
                } else {
                    out.push(Loop(body));
                }
            }
            6 if in_loop => {
                out.push(cmp(r));
                out.push(if r.below(2) == 0 {
                    Break(Some(flag))
                } else {
                    Cont(Some(flag))
                });
            }
            7 if in_loop => {
                out.push(cmp(r));
                let body = if r.below(2) == 0 {
                    Break(None)
                } else {
                    Cont(None)
                };
                out.push(If(flag, vec![Op(Add(2, 2, Imm(1))), body], None));
            }
            8 => {
                out.push(Op(Cmp(Cond::Eq, flag, 0, Imm(r.below(16) as i32))));
                out.push(Halt(flag));
            }
            _ => out.push(Op(Add(2, 2, Reg([0, 1, 3, 4][r.below(4) as usize])))),
        }
    }
    out
}

#[test]
fn random_programs() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..400 {
        let mut budget = 14;
        let mut prog = statements(&mut r, 0, false, &mut budget);
        // Make sure there is a loop.
        prog.push(Op(Mov(3, 0)));
        let mut body = vec![
            Op(Add(3, 3, Imm(1))),
            Op(Cmp(Cond::Ge, 0, 3, Reg(1))),
            Break(Some(0)),
        ];
        budget = 8;
        body.extend(statements(&mut r, 1, true, &mut budget));
        prog.push(Loop(body));
        let mut inp = [[0i32; 16]; 2];
        for c in 0..16 {
            inp[0][c] = c as i32;
            inp[1][c] = r.below(6) as i32;
        }
        for p in IsaGen::ALL {
            for &mode in modes(p) {
                check(p, &prog, &inp, mode, &format!("random {round}: {prog:?}"));
            }
        }
    }
}

/// A SIMD8 branch in a SIMD16 thread moves only its group: the other
/// half, following the IP, goes on through the SIMD16 instructions inside
/// the SIMD8 if and loop once (per-channel PcIP, 003 lines 96514-96562),
/// and the thread neither jumps the other half past them nor takes it
/// round the loop again.
#[test]
fn simd8_branches_leave_the_other_half() {
    for p in PLATFORMS {
        let (if_, endif, whl) = if p == IsaGen::Gen6 {
            ("if (8|M0) ENDIF", "endif (8|M0) NEXT", "while (8|M0) TOP")
        } else {
            (
                "if (8|M0) ENDIF ENDIF",
                "endif (8|M0) NEXT",
                "while (8|M0) TOP",
            )
        };
        let src = format!(
            "cmp (8|M0) (lt)f0.0 null<1>:d r10.0<8;8,1>:d 4:d\n\
             (f0.0) {if_}\n\
             add (16|M0) r20.0<1>:d r20.0<8;8,1>:d 1:d\n\
             ENDIF:\n\
             {endif}\n\
             NEXT:\n\
             TOP:\n\
             add (8|M0) r12.0<1>:d r12.0<8;8,1>:d 1:d\n\
             add (16|M0) r22.0<1>:d r22.0<8;8,1>:d 1:d\n\
             cmp (8|M0) (lt)f0.1 null<1>:d r12.0<8;8,1>:d r11.0<8;8,1>:d\n\
             (f0.1) {whl}\n\
             add (16|M0) r24.0<1>:d r24.0<8;8,1>:d 1:d\n"
        );
        let cases: [([i32; 8], [i32; 8]); 3] = [
            ([9; 8], [1, 2, 3, 4, 5, 6, 7, 8]),
            ([0, 5, 1, 6, 2, 7, 3, 8], [3; 8]),
            ([0; 8], [0, 4, 0, 2, 0, 6, 1, 1]),
        ];
        for (x, lim) in cases {
            let mut h = Harness::new(p);
            h.load_asm(&src).unwrap();
            h.thread.set_dispatch_mask(0xFFFF);
            for c in 0..8 {
                h.thread.set_grf_ud(10, c, x[c] as u32);
                h.thread.set_grf_ud(11, c, lim[c] as u32);
            }
            assert_eq!(h.run(10_000), Ok(Step::EndOfKernel), "{p}");
            for c in 0..16 {
                let (reg, sub) = (c / 8, c % 8);
                // The low half runs the program; the high half each
                // SIMD16 instruction once.
                let (in_if, passes) = if c < 8 {
                    (i32::from(x[c] < 4), lim[c].max(1))
                } else {
                    (1, 1)
                };
                let got = |r: usize| h.thread.grf_ud((r + reg) as u8, sub) as i32;
                assert_eq!(got(20), in_if, "{p} channel {c} in the if ({x:?})");
                assert_eq!(got(22), passes, "{p} channel {c} loop passes ({lim:?})");
                assert_eq!(got(24), 1, "{p} channel {c} after the loop");
            }
        }
    }
}
