//! Gen4/G45 flow control: the mask registers AMask, IMask, LMask, CMask
//! (mask0, 000 lines 7815-7848) and the mask stacks, one 4-bit counter per
//! channel (ms0, 000 lines 7852-7921) with their depths (msd0, 000 lines
//! 7946-7992). The branch pseudocode is 000 lines 10628-10793 and the
//! instruction pages (if 11806, iff 11863, else 11562, endif 11635, do
//! 11294, while 13611, break 11035, cont 11225, halt 11752, msave 12375,
//! mrest 12326, push 12782, pop 12732).

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{Addr, Body, Opcode, Src};

use crate::eu::alu;
use crate::eu::decoded::{Handler, Next, Op};
use crate::eu::error::ErrorKind;
use crate::eu::operand::plan::{self, Shape};
use crate::eu::operand::read;
use crate::eu::thread::Thread;
use crate::eu::thread::layout::{CR0_BASE, MASK_BASE, MS_BASE, MSD_BASE};

pub(crate) fn handler(op: Opcode) -> Handler {
    match op {
        Opcode::If => if_,
        Opcode::Iff => iff,
        Opcode::Else => else_,
        Opcode::Endif => endif,
        Opcode::Do => do_,
        Opcode::While => while_,
        Opcode::Break => break_,
        Opcode::Cont => cont,
        Opcode::Halt => halt,
        Opcode::Msave => msave,
        Opcode::Mrest => mrest,
        Opcode::Push => push,
        Opcode::Pop => pop,
        _ => alu::unimplemented,
    }
}

const AMASK: usize = 0;
const IMASK: usize = 1;
const LMASK: usize = 2;
const CMASK: usize = 3;

/// The two mask stacks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stack {
    I = 0,
    L = 1,
}

impl Thread {
    fn mask(&self, i: usize) -> u16 {
        self.load(MASK_BASE + i * 2, 2) as u16
    }

    fn set_mask(&mut self, i: usize, v: u16) {
        self.store(MASK_BASE + i * 2, 2, u64::from(v));
    }

    fn counter(&self, s: Stack, ch: usize) -> u8 {
        (self.load(MS_BASE + s as usize * 16 + ch, 1) & 0xF) as u8
    }

    fn set_counter(&mut self, s: Stack, ch: usize, v: u8) {
        self.store(MS_BASE + s as usize * 16 + ch, 1, u64::from(v & 0xF));
    }

    fn depth(&self, s: Stack) -> u8 {
        (self.load(MSD_BASE + s as usize * 2, 2) & 0xF) as u8
    }

    fn set_depth(&mut self, s: Stack, v: u8) {
        self.store(MSD_BASE + s as usize * 2, 2, u64::from(v & 0xF));
    }

    /// Whether a mask-stack exception is reported: cr0.1[11] enables it
    /// (000 line 8122).
    fn stack_exceptions(&self) -> bool {
        self.load32(CR0_BASE + 4) & (1 << 11) != 0
    }

    /// Push (000 lines 10640-10660): each channel whose mask bit is 0
    /// counts one more level; the depth counts modulo 16. Nothing under
    /// SPF.
    fn push_mask(&mut self, s: Stack, m: u16) -> Result<(), ErrorKind> {
        if self.fp.spf {
            return Ok(());
        }
        let d = self.depth(s);
        // Overflow triggers: 15 on the 965 (BW), 12 on G45 (CTG), Table
        // 11-16 (000 lines 7946-7952).
        let limit = if self.platform == IsaGen::Gen4 {
            15
        } else {
            12
        };
        if d + 1 > limit && self.stack_exceptions() {
            return Err(ErrorKind::MaskStack);
        }
        self.set_depth(s, d.wrapping_add(1));
        for ch in 0..16 {
            if m >> ch & 1 == 0 {
                let c = self.counter(s, ch);
                self.set_counter(s, ch, c.wrapping_add(1));
            }
        }
        Ok(())
    }

    /// Pop `n` levels (000 lines 10662-10683): counters saturate at zero.
    fn pop_mask(&mut self, s: Stack, n: u8) -> Result<(), ErrorKind> {
        if self.fp.spf {
            return Ok(());
        }
        let d = self.depth(s);
        if n > d && self.stack_exceptions() {
            return Err(ErrorKind::MaskStack);
        }
        self.set_depth(s, d.wrapping_sub(n));
        for ch in 0..16 {
            let c = self.counter(s, ch);
            self.set_counter(s, ch, c.saturating_sub(n));
        }
        Ok(())
    }

    /// TopOfStack: a channel is enabled where its counter is zero.
    fn top(&self, s: Stack) -> u16 {
        (0..16).fold(0u16, |m, ch| {
            if self.counter(s, ch) == 0 {
                m | 1 << ch
            } else {
                m
            }
        })
    }

    /// Evaluate(EMask) (000 lines 10705-10737), as a 16-bit channel mask:
    /// AMask & IMask & LMask & CMask (without CMask for `while`), all ones
    /// for NoMask, then the predicate, the SecHalf shift and the execution
    /// size.
    fn eval(&self, op: &Op, no_cmask: bool) -> u16 {
        let ctl = &op.ctl;
        let all = ctl.all();
        let chans = if ctl.no_mask {
            all
        } else {
            let c = if no_cmask { 0xFFFF } else { self.mask(CMASK) };
            let e = self.mask(AMASK) & self.mask(IMASK) & self.mask(LMASK) & c;
            (u32::from(e) >> ctl.mask_first) & all
        };
        (chans & self.pmask(ctl)) as u16
    }
}

/// The branch target: the jump count is added to the IP before it is
/// incremented (000 lines 11084-11090), and the IP addresses 128-bit slots
/// (a compacted branch in the second half of a slot counts from the slot).
fn jump(op: &Op) -> Next {
    Next::Jump((i64::from(op.ip & !15) + i64::from(op.target.jip)) as u32)
}

/// The pop count of else/endif: the manuals require 1 (000 lines
/// 11600-11605, 11650-11660); an encoded 0 is taken as 1.
fn one_pop(op: &Op) -> u8 {
    op.target.pop.max(1)
}

fn if_(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let e = t.eval(op, false);
    t.push_mask(Stack::I, t.mask(IMASK))?;
    t.set_mask(IMASK, e);
    Ok(if e == 0 { jump(op) } else { Next::Fall })
}

fn iff(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let e = t.eval(op, false);
    if e != 0 {
        t.push_mask(Stack::I, t.mask(IMASK))?;
        t.set_mask(IMASK, e);
        Ok(Next::Fall)
    } else {
        Ok(jump(op))
    }
}

fn else_(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let top = t.top(Stack::I);
    t.set_mask(IMASK, !t.mask(IMASK) & top);
    let e = t.eval(op, false);
    if e == 0 {
        t.set_mask(IMASK, top);
        t.pop_mask(Stack::I, one_pop(op))?;
        return Ok(jump(op));
    }
    Ok(Next::Fall)
}

fn endif(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    t.set_mask(IMASK, t.top(Stack::I));
    t.pop_mask(Stack::I, one_pop(op))?;
    Ok(Next::Fall)
}

fn do_(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let e = t.eval(op, false);
    t.push_mask(Stack::L, t.mask(LMASK))?;
    t.push_mask(Stack::L, t.mask(CMASK))?;
    t.set_mask(LMASK, e);
    t.set_mask(CMASK, e);
    Ok(Next::Fall)
}

fn while_(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let e = t.eval(op, true);
    if e != 0 {
        t.set_mask(CMASK, e);
        t.set_mask(LMASK, e);
        return Ok(jump(op));
    }
    restore_loop(t)?;
    Ok(Next::Fall)
}

/// CMask then LMask from the loop stack.
fn restore_loop(t: &mut Thread) -> Result<(), ErrorKind> {
    t.set_mask(CMASK, t.top(Stack::L));
    t.pop_mask(Stack::L, 1)?;
    t.set_mask(LMASK, t.top(Stack::L));
    t.pop_mask(Stack::L, 1)
}

/// Leaving `pc` levels of if blocks: pop pc - 1, restore IMask from the
/// top, pop once more.
fn leave_ifs(t: &mut Thread, pc: u8) -> Result<(), ErrorKind> {
    if pc != 0 {
        t.pop_mask(Stack::I, pc - 1)?;
        t.set_mask(IMASK, t.top(Stack::I));
        t.pop_mask(Stack::I, 1)?;
    }
    Ok(())
}

fn break_(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let e = t.eval(op, false);
    t.set_mask(LMASK, t.mask(LMASK) & !e);
    t.set_mask(CMASK, t.mask(CMASK) & !e);
    if t.mask(LMASK) & t.mask(AMASK) == 0 {
        restore_loop(t)?;
        leave_ifs(t, op.target.pop)?;
        return Ok(jump(op));
    }
    Ok(Next::Fall)
}

fn cont(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let e = t.eval(op, false);
    t.set_mask(CMASK, t.mask(CMASK) & !e);
    if t.mask(CMASK) & t.mask(AMASK) == 0 {
        leave_ifs(t, op.target.pop)?;
        return Ok(jump(op));
    }
    Ok(Next::Fall)
}

/// halt: the enabled channels leave AMask; when none is left, jump (AMask
/// is not restored by hardware).
fn halt(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let e = t.eval(op, false);
    t.set_mask(AMASK, t.mask(AMASK) & !e);
    Ok(if t.mask(AMASK) == 0 {
        jump(op)
    } else {
        Next::Fall
    })
}

/// The mask register (by mask0 sub-register) or mask stack (by ms0
/// sub-register: 0 IStack, 16 LStack) an operand names.
fn mask_index(src: &Src) -> Option<usize> {
    match src {
        Src::Reg(r) => match r.addr {
            Addr::Direct { subnr, .. } => Some(usize::from(subnr / 2) & 3),
            Addr::Indirect { .. } => None,
        },
        _ => None,
    }
}

fn stack_of(subnr: u8) -> Stack {
    if subnr >= 16 { Stack::L } else { Stack::I }
}

/// (mask-stack operand, other operand) of msave/mrest/push/pop: the dst
/// and src0 of the ALU form.
fn stack_operands(op: &Op) -> Option<(Stack, &Src, u8)> {
    let Body::Alu(a) = &op.inst.body else {
        return None;
    };
    match a.dst.addr {
        Addr::Direct { subnr, .. } => Some((stack_of(subnr), &a.src0, subnr)),
        Addr::Indirect { .. } => None,
    }
}

/// msave: push the mask, then the mask becomes EMask.
fn msave(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let (s, src, _) = stack_operands(op).ok_or(ErrorKind::BadOperand("msave operands"))?;
    let m = mask_index(src).ok_or(ErrorKind::BadOperand("msave mask"))?;
    let e = t.eval(op, false);
    t.push_mask(s, t.mask(m))?;
    t.set_mask(m, e);
    Ok(Next::Fall)
}

/// mrest: the mask register (dst) from the top of the stack (src0), then
/// one pop (under SPF no pop).
fn mrest(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let Body::Alu(a) = &op.inst.body else {
        return Err(ErrorKind::BadOperand("mrest operands"));
    };
    let m = match a.dst.addr {
        Addr::Direct { subnr, .. } => usize::from(subnr / 2) & 3,
        Addr::Indirect { .. } => return Err(ErrorKind::BadOperand("mrest mask")),
    };
    let s = match &a.src0 {
        Src::Reg(r) => match r.addr {
            Addr::Direct { subnr, .. } => stack_of(subnr),
            Addr::Indirect { .. } => return Err(ErrorKind::BadOperand("mrest stack")),
        },
        _ => return Err(ErrorKind::BadOperand("mrest stack")),
    };
    t.set_mask(m, t.top(s));
    t.pop_mask(s, 1)?;
    Ok(Next::Fall)
}

fn push(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let (s, src, _) = stack_operands(op).ok_or(ErrorKind::BadOperand("push operands"))?;
    let m = mask_index(src).ok_or(ErrorKind::BadOperand("push mask"))?;
    t.push_mask(s, t.mask(m))?;
    Ok(Next::Fall)
}

/// pop: discard `depth` levels, a 4-bit count (immediate or register, 000
/// lines 12750-12760). The table gives pop two sources (000 lines
/// 10160-10170): the depth is the immediate, or src1.
fn pop(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let (s, _, _) = stack_operands(op).ok_or(ErrorKind::BadOperand("pop operands"))?;
    let Body::Alu(a) = &op.inst.body else {
        return Err(ErrorKind::BadOperand("pop operands"));
    };
    let src = match (&a.src0, &a.src1) {
        (s0 @ Src::Imm(_), _) => s0,
        (_, s1) => s1,
    };
    let sh = Shape {
        platform: t.platform,
        exec: 1,
        align16: false,
        three_src: false,
        df_half: false,
    };
    let plan = plan::src(&sh, src).map_err(ErrorKind::BadOperand)?;
    let n = read::ints(t, &plan, 1, 1)?[0] & 0xF;
    t.pop_mask(s, n as u8)?;
    Ok(Next::Fall)
}
