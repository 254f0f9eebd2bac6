//! Xe-HPG flow control with per-channel instruction pointers: every
//! channel has a PcIP; a channel takes part in an instruction when its
//! PcIP is the IP (Evaluate WrEn); a branch moves the PcIPs of its
//! channels and the thread jumps when no channel is left at the next
//! instruction. JIP and UIP are byte offsets from the branch, "added to
//! IP pre-increment" (004 if, lines 18870-18990). Pseudocode pages in
//! 004: brc 11339, brd 11475, break 11590, call 11847, else 14870, goto
//! 15956, halt 16261, if
//! 18870, join 19026, while 36453.
//!
//! Unlike `eu/flow/gen6.rs`, which keeps only the channels sent away, the
//! PcIP of every channel is stored here (32 per thread), which Xe's
//! branch-heavy SIMD32 code makes simpler to follow. Loops as Mesa lays
//! them out (brw_eu_emit.c `brw_set_uip_jip`: a `break` UIP is the loop's
//! `while`): channels a break parks at a `while` do not loop again when it
//! jumps back; they go on after it with the others when the loop ends
//! (`Thread::broken`, as on Gen7).

use baregpu_isa::inst::{Body, Jump, Opcode, Src};

use super::operand::{self, Touched};
use crate::eu::error::ErrorKind;
use crate::eu::thread::Thread;

/// What a branch needs to know about its place in the kernel.
pub struct At {
    pub ip: u32,
    pub next_ip: u32,
    /// First channel and execution size of the instruction.
    pub first: usize,
    pub exec: usize,
    /// Channels alive in the thread (the dispatch mask).
    pub live: u32,
}

impl At {
    fn abs(&self, c: usize) -> usize {
        (self.first + c) % 32
    }
}

fn offsets(inst: &baregpu_isa::inst::Instruction) -> (i32, i32) {
    match &inst.body {
        Body::Branch(b) => match b.jump {
            Jump::JipUip { jip, uip } => (jip, uip),
            Jump::Jip { jip } => (jip, jip),
            Jump::Count { jump, .. } => (jump, jump),
        },
        _ => (0, 0),
    }
}

fn rel(ip: u32, off: i32) -> u32 {
    (i64::from(ip) + i64::from(off)) as u32
}

/// Sends the instruction channels in `m` to `target`.
fn park(t: &mut Thread, at: &At, m: u32, target: u32) {
    for c in 0..at.exec {
        if m >> c & 1 != 0 {
            t.pcip[at.abs(c)] = target;
        }
    }
}

/// Every channel still at the IP goes on to the next instruction.
pub fn fall_rest(t: &mut Thread, at: &At) {
    for p in t.pcip.iter_mut() {
        if *p == at.ip {
            *p = at.next_ip;
        }
    }
}

/// The next IP: the next instruction when a live channel is there, else
/// `to`.
fn next_or(t: &Thread, at: &At, to: u32) -> u32 {
    let any = (0..32).any(|ch| at.live >> ch & 1 != 0 && t.pcip[ch] == at.next_ip);
    if any { at.next_ip } else { to }
}

fn mark_broken(t: &mut Thread, at: &At, m: u32) {
    for c in 0..at.exec {
        if m >> c & 1 != 0 {
            t.broken |= 1 << at.abs(c);
        }
    }
}

/// Runs a branch. `here`: the instruction's channels whose PcIP is the IP
/// (bit per instruction channel), `pred`: its predicate; `uip_is_while`:
/// whether the UIP lands on a `while` (a break parks there). Returns the
/// next IP.
pub fn exec(
    t: &mut Thread,
    inst: &baregpu_isa::inst::Instruction,
    at: &At,
    here: u32,
    pred: u32,
    uip_is_while: bool,
    touched: &mut Touched,
) -> Result<u32, ErrorKind> {
    let (jip, uip) = offsets(inst);
    let (jip, uip) = (rel(at.ip, jip), rel(at.ip, uip));
    let next = match inst.opcode {
        Opcode::If => {
            // Channels whose predicate is false go to JIP (else/endif).
            park(t, at, here & !pred, jip);
            fall_rest(t, at);
            next_or(t, at, jip)
        }
        Opcode::Else => {
            // The channels that ran the if part go to JIP (endif).
            park(t, at, here, jip);
            fall_rest(t, at);
            next_or(t, at, jip)
        }
        Opcode::Endif | Opcode::Join => {
            fall_rest(t, at);
            next_or(t, at, jip)
        }
        Opcode::Goto if inst.acc_wr_ctrl => {
            // BranchCtrl (`goto.b`, IGC's loop back edge): the predicated
            // channels go to UIP and the others wait at IP + 1; the thread
            // follows the channels to UIP when any went there, else goes on
            // as a plain goto (004 lines 15965-15972, goto pseudocode).
            let going = here & pred;
            park(t, at, going, uip);
            fall_rest(t, at);
            if going != 0 { uip } else { next_or(t, at, jip) }
        }
        Opcode::Break | Opcode::Cont | Opcode::Halt | Opcode::Goto => {
            // Predicated channels go to UIP; the thread jumps to JIP when
            // none goes on.
            park(t, at, here & pred, uip);
            if inst.opcode == Opcode::Break && uip_is_while {
                mark_broken(t, at, here & pred);
            }
            fall_rest(t, at);
            next_or(t, at, jip)
        }
        Opcode::Brc => {
            // 004 lines 11339-11385: enabled channels go to UIP; the
            // thread jumps to JIP when none goes on.
            if !matches!(inst.body, Body::Branch(_)) {
                return Err(ErrorKind::BadOperand(
                    "brc with a register target is not modelled",
                ));
            }
            park(t, at, here & pred, uip);
            fall_rest(t, at);
            next_or(t, at, jip)
        }
        Opcode::Brd => {
            // 004 lines 11475-11523: enabled channels go to JIP; the
            // thread jumps there when any channel is there.
            let to = match &inst.body {
                Body::Alu(a) => rel(at.ip, reg_dword(t, &a.src0, 0, touched)? as i32),
                _ => jip,
            };
            park(t, at, here & pred, to);
            fall_rest(t, at);
            let any = (0..32).any(|ch| at.live >> ch & 1 != 0 && t.pcip[ch] == to);
            if any { to } else { at.next_ip }
        }
        Opcode::While => {
            let mut broken = 0u32;
            for c in 0..at.exec {
                if here >> c & 1 != 0 && t.broken >> at.abs(c) & 1 != 0 {
                    broken |= 1 << c;
                }
            }
            let en = here & !broken;
            let looping = en & pred;
            if looping != 0 {
                park(t, at, looping, jip);
                park(t, at, en & !looping, at.next_ip);
                // Broken channels stay at the while; others at it (outside
                // the group) wait after it.
                for p in t.pcip.iter_mut() {
                    if *p == at.ip {
                        *p = at.next_ip;
                    }
                }
                park(t, at, broken, at.ip);
                jip
            } else {
                for c in 0..at.exec {
                    if broken >> c & 1 != 0 {
                        t.broken &= !(1 << at.abs(c));
                    }
                }
                fall_rest(t, at);
                at.next_ip
            }
        }
        Opcode::Jmpi => {
            // The whole thread on the first channel's predicate; a
            // register target is relative too.
            let to = match &inst.body {
                Body::Alu(a) => rel(at.ip, reg_dword(t, &a.src0, 0, touched)? as i32),
                _ => jip,
            };
            let take = pred & 1 != 0;
            let to = if take { to } else { at.next_ip };
            for p in t.pcip.iter_mut() {
                if *p == at.ip {
                    *p = to;
                }
            }
            to
        }
        Opcode::Call | Opcode::Calla => {
            let to = match &inst.body {
                Body::Alu(a) => {
                    let v = reg_dword(t, &a.src0, 0, touched)?;
                    if inst.opcode == Opcode::Calla {
                        v
                    } else {
                        rel(at.ip, v as i32)
                    }
                }
                _ if inst.opcode == Opcode::Calla => offsets(inst).0 as u32,
                _ => jip,
            };
            let jumping = here & pred;
            if jumping == 0 {
                fall_rest(t, at);
                return Ok(at.next_ip);
            }
            let mut mask = 0u32;
            for c in 0..at.exec {
                if jumping >> c & 1 != 0 {
                    mask |= 1 << at.abs(c);
                }
            }
            let saved = t.call_mask;
            t.call_mask = mask;
            park(t, at, jumping, to);
            fall_rest(t, at);
            // The return IP and the caller's CallMask in dst dwords 0, 1
            // (004 call, lines 11847-; as on Gen7).
            let dst = match &inst.body {
                Body::Branch(b) => match &b.dst {
                    baregpu_isa::inst::DstSlot::Reg(d) => Some(*d),
                    _ => None,
                },
                Body::Alu(a) => Some(a.dst),
                _ => None,
            };
            if let Some(d) = dst
                && let Some(off) = operand::dst(t, &d, 2, touched)?
            {
                t.store32(off[0] as usize, at.next_ip);
                t.store32(off[0] as usize + 4, saved);
            }
            to
        }
        Opcode::Ret => {
            let Body::Alu(a) = &inst.body else {
                return Err(ErrorKind::BadOperand("ret needs a register source"));
            };
            let rip = reg_dword(t, &a.src0, 0, touched)?;
            let saved = reg_dword(t, &a.src0, 1, touched)?;
            let en = here & pred;
            let mut m = 0u32;
            for c in 0..at.exec {
                if en >> c & 1 != 0 {
                    m |= 1 << at.abs(c);
                }
            }
            park(t, at, en, rip);
            fall_rest(t, at);
            t.call_mask &= !m;
            if t.call_mask == 0 {
                t.call_mask = saved;
                rip
            } else {
                next_or(t, at, rip)
            }
        }
        op => return Err(ErrorKind::Unimplemented(op)),
    };
    Ok(next)
}

/// Dword `i` of a scalar register operand (call and ret targets).
fn reg_dword(t: &Thread, s: &Src, i: usize, touched: &mut Touched) -> Result<u32, ErrorKind> {
    let Src::Reg(r) = s else {
        return Err(ErrorKind::BadOperand("branch target register"));
    };
    let mut r = *r;
    if let baregpu_isa::inst::Addr::Direct { nr, subnr } = r.addr {
        r.addr = baregpu_isa::inst::Addr::Direct {
            nr,
            subnr: subnr.saturating_add((i * 4) as u8),
        };
    }
    r.ty = baregpu_isa::inst::Type::Ud;
    let p = operand::src(t, &Src::Reg(r), 1, false, touched)?;
    Ok(p.raw(t, 0) as u32)
}
