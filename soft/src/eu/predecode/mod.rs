//! Predecode: a kernel is decoded once into [`Program`], a list of
//! executable operations with their operands resolved (per-channel byte
//! offsets, expanded immediates, execution controls) and their handler
//! chosen. Callers cache a `Program` by (kernel address, platform); the
//! interpreter never decodes while it runs. The operations' types are in
//! `decoded`; choosing a handler (`choose`) is the predecoder's job alone.

pub mod compress;
pub mod ctl;
pub(crate) mod lite;

use alloc::vec::Vec;

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{Body, Instruction, Jump, MathFn, Opcode, Src};
use baregpu_isa::kernel::{KernelError, KernelIter};
use baregpu_isa::tables;

use crate::eu::alu;
use crate::eu::decoded::lite::Lite;
use crate::eu::decoded::{Handler, Op, Target};
use crate::eu::error::ErrorKind;
use crate::eu::flow;
use crate::eu::message;
use crate::eu::operand::plan::{self, Shape};
use crate::eu::operand::{DstPlan, SrcPlan};
use crate::eu::thread::arf::ArfUse;
use crate::eu::thread::layout::{CR0_BASE, IP_BASE, SR0_BASE, TM_BASE};

/// A predecoded kernel.
#[derive(Clone, Debug)]
pub struct Program {
    pub(crate) platform: IsaGen,
    pub(crate) ops: Vec<Op>,
    /// (IP, index of its first operation), sorted by IP.
    pub(crate) index: Vec<(u32, u32)>,
    /// Where decoding stopped and why (bytes after it are unreachable).
    pub(crate) tail: Option<KernelError>,
    /// One straight-line entry per instruction, in `index` order.
    pub(crate) lite: Vec<Lite>,
}

impl Program {
    /// Predecodes a kernel. Decoding stops at the first word that does not
    /// decode; reaching that IP at run time reports the decode error.
    pub fn new(platform: IsaGen, bytes: &[u8]) -> Program {
        let mut ops = Vec::new();
        let mut index = Vec::new();
        let mut tail = None;
        for entry in KernelIter::new(platform, bytes) {
            match entry {
                Ok(e) => {
                    let ip = e.offset as u32;
                    let next_ip = (e.offset + e.size()) as u32;
                    index.push((ip, ops.len() as u32));
                    if compress::is_compressed(platform, &e.inst) {
                        let (a, b) = compress::split(platform, &e.inst);
                        let mut first = build(platform, ip, next_ip, &a, false, e.inst);
                        let second = build(platform, ip, next_ip, &b, true, e.inst);
                        first.pair = true;
                        // The run loop's fast path runs both halves.
                        first.simple &= second.simple;
                        ops.push(first);
                        ops.push(second);
                    } else {
                        let sec = ctl::is_sec_half(e.inst.group) && platform <= IsaGen::G45;
                        ops.push(build(platform, ip, next_ip, &e.inst, sec, e.inst));
                    }
                }
                Err(err) => tail = Some(err),
            }
        }
        let lite = lite::build(platform, &ops, &index);
        Program {
            platform,
            ops,
            index,
            tail,
            lite,
        }
    }

    pub fn platform(&self) -> IsaGen {
        self.platform
    }

    /// Number of instructions decoded.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The decoded instruction at `ip`, if one starts there.
    pub fn instruction_at(&self, ip: u32) -> Option<&Instruction> {
        self.lookup(ip).map(|i| &self.ops[i].inst)
    }

    /// The decode error that ended the kernel early, if any.
    pub fn decode_error(&self) -> Option<&KernelError> {
        self.tail.as_ref()
    }

    /// Index of the first operation of the instruction at `ip`.
    pub(crate) fn lookup(&self, ip: u32) -> Option<usize> {
        self.lookup_inst(ip).map(|k| self.index[k].1 as usize)
    }

    /// Index (in `index` and `lite`) of the instruction at `ip`.
    pub(crate) fn lookup_inst(&self, ip: u32) -> Option<usize> {
        self.index.binary_search_by_key(&ip, |&(i, _)| i).ok()
    }
}

/// Builds one operation. `orig` is the instruction as encoded (for the
/// trace); `inst` may be a compressed half.
fn build(
    p: IsaGen,
    ip: u32,
    next_ip: u32,
    inst: &Instruction,
    sec_half: bool,
    orig: Instruction,
) -> Op {
    let t = tables::for_platform(p);
    let nsrc = t.opcode_info(inst.opcode).map_or(0, |o| o.srcs);
    let dom = ctl::domain(inst, nsrc);
    let raw = is_raw(inst);
    let ctl = ctl::build(p, inst, dom, sec_half, raw);
    let mut op = Op {
        ip,
        next_ip,
        inst: orig,
        run: alu::unimplemented,
        ctl,
        dst: DstPlan::NULL,
        src: [SrcPlan::ABSENT, SrcPlan::ABSENT, SrcPlan::ABSENT],
        arf: ArfUse::default(),
        target: Target::default(),
        math: None,
        pair: false,
        bad: None,
        lin: [None; 4],
        simple: false,
        alu: false,
    };
    let shape = Shape {
        platform: p,
        exec: usize::from(inst.exec_size.min(32)),
        align16: ctl.align16,
        three_src: matches!(inst.body, Body::ThreeSrc(_)),
        df_half: ctl.step == 2,
    };
    let planned = plan_operands(&shape, inst, nsrc, &mut op);
    if let Err(what) = planned {
        op.bad = Some(ErrorKind::BadOperand(what));
    }
    op.arf = arf_use(p, inst);
    op.target = target(inst);
    if let Body::Math(m) = &inst.body {
        op.math = Some(m.function);
    }
    op.lin = [
        linear(&op.dst.kind_offsets(), shape.exec),
        linear(&op.src[0].offsets(), shape.exec),
        linear(&op.src[1].offsets(), shape.exec),
        linear(&op.src[2].offsets(), shape.exec),
    ];
    op.run = choose(p, inst, &op);
    op.alu = reaches_alu(p, inst, &op);
    // Flow instructions change the channel state the run loop's fast path
    // does not look at.
    let flow = matches!(inst.body, Body::Branch(_)) || is_flowish(inst.opcode);
    op.simple = !flow && !op.arf.any_write() && !op.arf.reads_ip && !op.arf.reads_tm;
    op
}

/// The (first offset, stride) of `n` offsets in arithmetic progression.
fn linear(off: &Option<[u16; crate::eu::operand::MAX_CH]>, n: usize) -> Option<(u16, u8)> {
    let off = off.as_ref()?;
    let base = off[0];
    let stride = if n > 1 { off[1].wrapping_sub(base) } else { 0 };
    let ok = (0..n).all(|c| off[c] == base.wrapping_add(stride.wrapping_mul(c as u16)));
    (ok && stride < 256).then_some((base, stride as u8))
}

/// A raw move: mov/sel/movi between identical types, no modifier, no
/// saturation (000 lines 8586-8593; 003 lines 99414-99416).
fn is_raw(inst: &Instruction) -> bool {
    let Body::Alu(a) = &inst.body else {
        return false;
    };
    if !matches!(inst.opcode, Opcode::Mov | Opcode::Sel | Opcode::Movi) || inst.saturate {
        return false;
    }
    // A sel with a condition compares (and flushes denormals, 003 line
    // 100753).
    if inst.opcode == Opcode::Sel && inst.cond_mod != baregpu_isa::inst::CondMod::None {
        return false;
    }
    let same = |s: &Src| match s {
        Src::Reg(r) => r.ty == a.dst.ty && !r.abs && !r.negate,
        Src::Imm(i) => i.ty == a.dst.ty,
        Src::Vacant(_) => true,
    };
    same(&a.src0) && (inst.opcode != Opcode::Sel || same(&a.src1))
}

fn plan_operands(
    sh: &Shape,
    inst: &Instruction,
    nsrc: u8,
    op: &mut Op,
) -> Result<(), &'static str> {
    match &inst.body {
        Body::Alu(a) => {
            if !is_flowish(inst.opcode) {
                op.dst = plan::dst(sh, &a.dst)?;
            }
            if nsrc >= 1 {
                op.src[0] = plan::src(sh, &a.src0)?;
            }
            if nsrc >= 2 {
                op.src[1] = plan::src(sh, &a.src1)?;
            }
        }
        Body::Math(m) => {
            op.dst = plan::dst(sh, &m.dst)?;
            op.src[0] = plan::src(sh, &m.src0)?;
            if matches!(
                m.function,
                MathFn::Fdiv
                    | MathFn::Pow
                    | MathFn::IntDivQuotient
                    | MathFn::IntDivRemainder
                    | MathFn::IntDivQuotientRemainder
            ) {
                op.src[1] = plan::src(sh, &m.src1)?;
            }
        }
        Body::ThreeSrc(t) => {
            op.dst = plan::dst(sh, &t.dst)?;
            for (k, s) in t.src.iter().enumerate() {
                op.src[k] = plan::src(sh, s)?;
            }
        }
        Body::Send(s) => {
            // The payload and writeback are described to the shared
            // function by register number; only the descriptor register
            // (a0.0) is read as an operand.
            if let baregpu_isa::inst::SendDesc::Reg(r) = &s.desc {
                op.src[1] = plan::src(sh, &Src::Reg(*r))?;
            }
            // Gen4/G45: a GRF src0 is the implied-move source.
            if s.base_mrf.is_some()
                && let Src::Reg(_) = s.src0
            {
                op.src[0] = plan::src(sh, &s.src0)?;
            }
            op.dst = plan::dst(sh, &s.dst)?;
        }
        Body::Branch(b) => {
            // Gen6 embedded compare: `if`/`while`/`case` with a condition
            // modifier compare src0 and src1 (003 lines 98418-98470).
            if inst.cond_mod != baregpu_isa::inst::CondMod::None {
                op.src[0] = plan::src(sh, &b.src0)?;
                op.src[1] = plan::src(sh, &b.src1)?;
            }
            // fork reads the mask register it names (003 lines 98079-98221).
            if inst.opcode == Opcode::Fork {
                op.src[0] = plan::src(sh, &b.src0)?;
            }
        }
        _ => return Err("unknown instruction body"),
    }
    Ok(())
}

/// Opcodes of the ALU layout whose dst/src are not data (jumps, calls,
/// mask-stack operations, wait).
fn is_flowish(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Jmpi
            | Opcode::Call
            | Opcode::Calla
            | Opcode::Ret
            | Opcode::Do
            | Opcode::Msave
            | Opcode::Mrest
            | Opcode::Push
            | Opcode::Pop
            | Opcode::Wait
            | Opcode::Nop
            | Opcode::Nenop
            | Opcode::Illegal
    )
}

/// Which special registers the operands touch.
fn arf_use(p: IsaGen, inst: &Instruction) -> ArfUse {
    let mut u = ArfUse::default();
    let slot = |file, nr| plan_base(p, file, nr);
    if let Some(d) = inst.dst()
        && let baregpu_isa::inst::Addr::Direct { nr, .. } = d.addr
        && !is_flowish(inst.opcode)
        && !matches!(inst.body, Body::Branch(_) | Body::Send(_))
    {
        match slot(d.file, nr) {
            Some(b) if b == crate::eu::thread::layout::A0_BASE => u.writes_a0 = true,
            Some(CR0_BASE) => u.writes_cr0 = true,
            Some(SR0_BASE) => u.writes_sr0 = true,
            Some(IP_BASE) => u.writes_ip = true,
            _ => {}
        }
    }
    for s in inst.srcs().iter().flatten() {
        if let Src::Reg(r) = s
            && let baregpu_isa::inst::Addr::Direct { nr, .. } = r.addr
        {
            match slot(r.file, nr) {
                Some(IP_BASE) => u.reads_ip = true,
                Some(TM_BASE) => u.reads_tm = true,
                _ => {}
            }
        }
    }
    // jmpi and Gen4 branches read ip implicitly; the handlers use op.ip.
    u
}

fn plan_base(p: IsaGen, file: baregpu_isa::inst::RegFile, nr: u8) -> Option<usize> {
    crate::eu::thread::layout::register_span(p, file, nr)
        .filter(|_| file == baregpu_isa::inst::RegFile::Arf)
        .map(|(span, at)| span.base + at)
}

fn target(inst: &Instruction) -> Target {
    match &inst.body {
        Body::Branch(b) => match b.jump {
            Jump::Count { jump, pop } => Target {
                jip: jump,
                uip: jump,
                pop,
            },
            Jump::Jip { jip } => Target {
                jip,
                uip: jip,
                pop: 0,
            },
            Jump::JipUip { jip, uip } => Target { jip, uip, pop: 0 },
        },
        _ => Target::default(),
    }
}

/// Chooses the handler.
fn choose(p: IsaGen, inst: &Instruction, op: &Op) -> Handler {
    if op.bad.is_some() {
        return alu::bad;
    }
    let exists = tables::for_platform(p).opcode_info(inst.opcode).is_some();
    if !exists || inst.opcode == Opcode::Illegal {
        return alu::illegal;
    }
    match &inst.body {
        Body::Send(_) => return message::exec,
        Body::Branch(_) => return flow::handler(p, inst.opcode),
        Body::Math(_) => return alu::math_op,
        _ => {}
    }
    match inst.opcode {
        Opcode::Jmpi
        | Opcode::Call
        | Opcode::Calla
        | Opcode::Ret
        | Opcode::Do
        | Opcode::Msave
        | Opcode::Mrest
        | Opcode::Push
        | Opcode::Pop
        | Opcode::Wait => flow::handler(p, inst.opcode),
        Opcode::Nop | Opcode::Nenop => alu::nop,
        _ => alu::choose(p, inst, op),
    }
}

/// Whether [`choose`] gives `op` the ALU's handler.
fn reaches_alu(p: IsaGen, inst: &Instruction, op: &Op) -> bool {
    op.bad.is_none()
        && tables::for_platform(p).opcode_info(inst.opcode).is_some()
        && !is_flowish(inst.opcode)
        && !matches!(inst.body, Body::Send(_) | Body::Branch(_) | Body::Math(_))
}
