//! Gen6/Gen7 flow control with per-channel instruction pointers (003
//! lines 96514-96562): a branch sends some channels to another IP (their
//! PcIP) and the thread jumps when no channel is left at the next
//! instruction. Pages: if 98418, else 97921, endif 98005, while 101304,
//! break 96933, cont 97495, halt 98321, call 97037, ret 99998, case 97150,
//! fork 98079 (003). Gen7 keeps the model with JIP/UIP in DW3 (the
//! isa crate's `Jump::JipUip`).
//!
//! Channels that follow the IP are not stored; a channel sent elsewhere is
//! "parked" at its PcIP and rejoins when the IP reaches it (the run loop).
//! With single program flow (cr0.0[2]) no PcIP changes and branches move
//! the whole thread: JIP for if/else/while/endif, UIP for break/cont/halt.
//!
//! Loops, as Mesa lays them out (src/intel/compiler/brw_eu_emit.c
//! `brw_set_uip_jip`, `brw_WHILE`; elk_eu_emit.c in newer Mesa): the
//! `while` JIP is the loop's first instruction; a `cont` UIP is the
//! `while`; a `break` UIP is just after the `while` on Gen6 (003 lines
//! 97003-97006: "the first instruction after the loop block") but the
//! `while` itself on Gen7 ("Gen7 UIP points to WHILE; Gen6 points just
//! after it"). Channels a Gen7 break parks at the `while` must not loop
//! again when it jumps back: they stay parked there (`Thread::broken`)
//! and go on after it with the others when the loop ends.
//!
//! A branch moves only the channels of its own group (ExecSize from the
//! group's first channel, as a SIMD8 half of a SIMD16 thread; the
//! pseudocode sets PcIP for n < exec_size only, e.g. break at 003 lines
//! 96970-96986). Our reading for the channels outside the group that
//! follow the IP: they go on to the next instruction as after any other
//! instruction, so the thread jumps only when none of them is there
//! either, and they wait there when it jumps anyway (while, call).

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{Body, CondMod, Opcode, Src};
use baregpu_isa::tables;

use crate::eu::alu;
use crate::eu::decoded::{Handler, Next, Op, compare_dom};
use crate::eu::error::ErrorKind;
use crate::eu::operand::plan::{self, Shape};
use crate::eu::operand::{DstKind, read};
use crate::eu::thread::Thread;
use crate::eu::thread::layout::CR0_BASE;

pub(crate) fn handler(op: Opcode) -> Handler {
    match op {
        Opcode::If | Opcode::Case => if_,
        Opcode::Else => else_,
        Opcode::Endif => endif,
        Opcode::While => while_,
        Opcode::Break | Opcode::Cont | Opcode::Halt => leave,
        Opcode::Call | Opcode::Calla => call,
        Opcode::Ret => ret,
        Opcode::Fork => fork,
        _ => alu::unimplemented,
    }
}

/// Absolute channel of an instruction's channel `c`.
fn abs(op: &Op, c: usize) -> usize {
    (usize::from(op.ctl.mask_first) + c) % 32
}

/// The thread channels of the instruction's group, bit per absolute channel.
fn group(op: &Op) -> u32 {
    (0..usize::from(op.ctl.exec)).fold(0, |m, c| m | 1 << abs(op, c))
}

impl Thread {
    /// Sends channels (instruction channel bits `m`) to `target`.
    fn park(&mut self, op: &Op, m: u32, target: u32) {
        for c in 0..usize::from(op.ctl.exec) {
            if m >> c & 1 != 0 {
                self.park_channel(abs(op, c), target);
            }
        }
    }

    fn park_channel(&mut self, ch: usize, target: u32) {
        self.parked |= 1 << ch;
        self.broken &= !(1 << ch);
        self.pcip[ch] = target;
    }

    /// The channels outside the instruction's group that follow the IP,
    /// bit per absolute channel: they go on to the next instruction.
    fn others_following(&self, op: &Op) -> u32 {
        self.channels_on() & !group(op)
    }

    /// Before a jump: the channels outside the group that follow the IP
    /// wait at the next instruction.
    fn park_others(&mut self, op: &Op) {
        let mut m = self.others_following(op);
        while m != 0 {
            let ch = m.trailing_zeros() as usize;
            m &= m - 1;
            self.park_channel(ch, op.next_ip);
        }
    }

    /// The instruction channels (bits) that a Gen7 break parked at this
    /// `while` and that rejoined here. A channel whose break UIP was
    /// elsewhere rejoined there as on Gen6: its mark is dropped.
    fn broken_here(&mut self, op: &Op, en: u32) -> u32 {
        if self.broken == 0 {
            return 0;
        }
        let mut here = 0u32;
        for c in 0..usize::from(op.ctl.exec) {
            let ch = abs(op, c);
            if self.broken >> ch & 1 == 0 || self.parked >> ch & 1 != 0 {
                continue;
            }
            if en >> c & 1 != 0 && self.pcip[ch] == op.ip {
                here |= 1 << c;
            } else {
                self.broken &= !(1 << ch);
            }
        }
        here
    }

    /// Marks instruction channels (bits `m`) as parked at their loop's
    /// `while` by a break; `park` drops the mark.
    fn mark_broken(&mut self, op: &Op, m: u32) {
        for c in 0..usize::from(op.ctl.exec) {
            if m >> c & 1 != 0 {
                self.broken |= 1 << abs(op, c);
            }
        }
    }

    /// Whether some channel waits at `ip` (and would run there).
    fn waiting_at(&self, ip: u32) -> bool {
        let mut m = self.parked;
        while m != 0 {
            let ch = m.trailing_zeros() as usize;
            m &= m - 1;
            if self.pcip[ch] == ip {
                return true;
            }
        }
        false
    }
}

fn target(op: &Op, off: i32) -> u32 {
    (op.ip as i64 + i64::from(off)) as u32
}

/// The branch condition per channel: the predicate, or on Gen6 an embedded
/// compare of src0 with src1 when a condition modifier is given (003 lines
/// 98418-98470; it writes no flags).
fn condition(t: &Thread, op: &Op, en: u32) -> Result<u32, ErrorKind> {
    if op.ctl.cond != CondMod::None && !op.src[0].is_absent() {
        let dom = compare_dom(op);
        return crate::eu::alu::compare_lanes(t, op, dom, usize::from(op.ctl.exec), en);
    }
    Ok(t.pmask(&op.ctl))
}

/// Jump unless some channel goes on to the next instruction: one of the
/// instruction's (`continuing`), one outside its group that follows the
/// IP, or one parked there.
fn jump_unless_continuing(t: &Thread, op: &Op, continuing: u32, to: u32) -> Next {
    if continuing != 0 || t.others_following(op) != 0 || t.waiting_at(op.next_ip) {
        Next::Fall
    } else {
        Next::Jump(to)
    }
}

/// if (and Gen6 case): channels whose condition is false go to JIP; when
/// no channel goes on, the thread jumps there.
fn if_(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let en = t.enables(&op.ctl, op.ip);
    let cond = condition(t, op, en)?;
    let to = target(op, op.target.jip);
    if t.fp.spf {
        return Ok(if en & cond == 0 {
            Next::Jump(to)
        } else {
            Next::Fall
        });
    }
    t.park(op, en & !cond, to);
    Ok(jump_unless_continuing(t, op, en & cond, to))
}

/// else: the channels that ran the if part go to JIP (the endif).
fn else_(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let en = t.enables(&op.ctl, op.ip);
    let to = target(op, op.target.jip);
    if t.fp.spf {
        return Ok(Next::Jump(to));
    }
    t.park(op, en, to);
    Ok(jump_unless_continuing(t, op, 0, to))
}

/// endif: channels parked here have rejoined; if none is active (nor a
/// channel outside the group), hop to JIP (the next block end).
fn endif(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    if t.fp.spf {
        return Ok(Next::Fall);
    }
    let en = t.enables(&op.ctl, op.ip);
    Ok(if en == 0 && t.others_following(op) == 0 {
        Next::Jump(target(op, op.target.jip))
    } else {
        Next::Fall
    })
}

/// while: channels whose condition holds loop back to JIP; the others
/// wait after the while; the thread jumps if any loops (003 lines
/// 101304-101448). Channels a Gen7 break sent here take no part: while
/// the loop goes on they stay parked here; when it ends they go on.
fn while_(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let en = t.enables(&op.ctl, op.ip);
    let to = target(op, op.target.jip);
    if t.fp.spf {
        let cond = condition(t, op, en)?;
        return Ok(if en & cond != 0 {
            Next::Jump(to)
        } else {
            Next::Fall
        });
    }
    let broken = t.broken_here(op, en);
    let en = en & !broken;
    let cond = condition(t, op, en)?;
    if en & cond != 0 {
        t.park(op, en & !cond, op.next_ip);
        t.park_others(op);
        t.park(op, broken, op.ip);
        t.mark_broken(op, broken);
        Ok(Next::Jump(to))
    } else {
        for c in 0..usize::from(op.ctl.exec) {
            if broken >> c & 1 != 0 {
                t.broken &= !(1 << abs(op, c));
            }
        }
        Ok(Next::Fall)
    }
}

/// break/cont/halt: predicated channels go to UIP; when none goes on, the
/// thread jumps to JIP. Under SPF the thread goes to UIP.
fn leave(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let en = t.enables(&op.ctl, op.ip);
    let cond = t.pmask(&op.ctl);
    let uip = target(op, op.target.uip);
    if t.fp.spf {
        return Ok(if en & cond != 0 {
            Next::Jump(uip)
        } else {
            Next::Fall
        });
    }
    t.park(op, en & cond, uip);
    // Gen7: the break UIP is the loop's while (see the module text).
    if op.inst.opcode == Opcode::Break && t.platform >= IsaGen::Gen7 {
        t.mark_broken(op, en & cond);
    }
    Ok(jump_unless_continuing(
        t,
        op,
        en & !cond,
        target(op, op.target.jip),
    ))
}

/// The call target: an immediate src1 in jump units from the call (003
/// lines 97037-97149), in bytes on Gen7.5 as IGA writes it (see jmpi); for
/// calla (Gen7.5) an absolute IP.
fn call_target(t: &Thread, op: &Op) -> Result<u32, ErrorKind> {
    let Body::Alu(a) = &op.inst.body else {
        return Err(ErrorKind::BadOperand("call operands"));
    };
    // The JIP is the DW3 immediate (003 line 97119: "at location <src1>");
    // the assembler's one-source form names it src0.
    let src = match (&a.src0, &a.src1) {
        (_, s @ Src::Imm(_)) | (s @ Src::Imm(_), _) => s,
        (_, s @ Src::Reg(_)) => s,
        (s, _) => s,
    };
    let v = match src {
        Src::Imm(i) => i64::from(i.bits as u32 as i32),
        s => {
            let sh = Shape {
                platform: t.platform,
                exec: 1,
                align16: false,
                three_src: false,
                df_half: false,
            };
            let p = plan::src(&sh, s).map_err(ErrorKind::BadOperand)?;
            read::ints(t, &p, 1, 1)?[0]
        }
    };
    if op.inst.opcode == Opcode::Calla {
        return Ok(v as u32);
    }
    let unit = if t.platform == IsaGen::Gen75 {
        1
    } else {
        i64::from(tables::for_platform(t.platform).jump_unit)
    };
    Ok((op.ip as i64 + v * unit) as u32)
}

/// call: the enabled (predicated) channels jump; the return IP and the
/// CallMask go to dst dwords 0 and 1; the others wait after the call.
fn call(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let en = t.enables(&op.ctl, op.ip);
    let jumping = en & t.pmask(&op.ctl);
    let to = call_target(t, op)?;
    if jumping == 0 {
        return Ok(Next::Fall);
    }
    let mut mask = 0u32;
    for c in 0..usize::from(op.ctl.exec) {
        if jumping >> c & 1 != 0 {
            mask |= 1 << abs(op, c);
        }
    }
    t.call_mask = mask;
    if !t.fp.spf {
        t.park(op, en & !jumping, op.next_ip);
        t.park_others(op);
    }
    if let Some(base) = dst_base(t, op)? {
        t.store32(base, op.next_ip);
        t.store32(base + 4, mask);
    }
    Ok(Next::Jump(to))
}

/// Where call stores the return IP and CallMask (`None` for null).
fn dst_base(t: &Thread, op: &Op) -> Result<Option<usize>, ErrorKind> {
    let Body::Alu(a) = &op.inst.body else {
        return Err(ErrorKind::BadOperand("call operands"));
    };
    let sh = Shape {
        platform: t.platform,
        exec: 2,
        align16: false,
        three_src: false,
        df_half: false,
    };
    let d = plan::dst(&sh, &a.dst).map_err(ErrorKind::BadOperand)?;
    match d.kind {
        DstKind::Direct { off } => Ok(Some(usize::from(off[0]))),
        DstKind::Null => Ok(None),
        DstKind::Indirect(_) => Err(ErrorKind::BadOperand("call destination")),
    }
}

/// ret: the enabled channels return to src0 dword 0 and leave the
/// CallMask; when it is empty, jump there and restore the CallMask from
/// src0 dword 1.
fn ret(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let en = t.enables(&op.ctl, op.ip) & t.pmask(&op.ctl);
    let Body::Alu(a) = &op.inst.body else {
        return Err(ErrorKind::BadOperand("ret operands"));
    };
    let sh = Shape {
        platform: t.platform,
        exec: 2,
        align16: false,
        three_src: false,
        df_half: false,
    };
    let p = plan::src(&sh, &a.src0).map_err(ErrorKind::BadOperand)?;
    let v = read::raw(t, &p, 2, 3)?;
    let (rip, saved) = (v[0] as u32, v[1] as u32);
    let mut m = 0u32;
    for c in 0..usize::from(op.ctl.exec) {
        if en >> c & 1 != 0 {
            m |= 1 << abs(op, c);
        }
    }
    if !t.fp.spf {
        t.park(op, en, rip);
    }
    t.call_mask &= !m;
    if t.call_mask == 0 {
        t.call_mask = saved;
        return Ok(Next::Jump(rip));
    }
    Ok(Next::Fall)
}

/// fork (Gen6): a null src0 turns single program flow on; otherwise it
/// turns it off and channels not in the given mask (DMask or VMask) go to
/// JIP (003 lines 98079-98221).
fn fork(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let cr = t.load32(CR0_BASE);
    if op.src[0].is_absent() || src_is_null(op) {
        t.store32(CR0_BASE, cr | 4);
        t.refresh_cr0();
        return Ok(Next::Fall);
    }
    t.store32(CR0_BASE, cr & !4);
    t.refresh_cr0();
    let mask = read::raw(t, &op.src[0], 1, 1)?[0] as u32;
    let en = t.enables(&op.ctl, op.ip) & t.pmask(&op.ctl);
    let mut off = 0u32;
    for c in 0..usize::from(op.ctl.exec) {
        if mask >> abs(op, c) & 1 == 0 {
            off |= 1 << c;
        }
    }
    let to = target(op, op.target.jip);
    t.park(op, en & off, to);
    Ok(jump_unless_continuing(t, op, en & !off, to))
}

fn src_is_null(op: &Op) -> bool {
    let Body::Branch(b) = &op.inst.body else {
        return true;
    };
    match &b.src0 {
        Src::Reg(r) => {
            r.file == baregpu_isa::inst::RegFile::Arf
                && matches!(r.addr, baregpu_isa::inst::Addr::Direct { nr: 0, .. })
        }
        _ => true,
    }
}
