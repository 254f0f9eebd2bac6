//! A Gen12.5 kernel decoded once: each instruction with its disassembly
//! (for errors and the SWSB report) and, when DG2 cannot run it, the
//! error it raises when reached.

use alloc::string::String;
use alloc::vec::Vec;

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{Body, Instruction, Jump, MathFn, Opcode, Src, Type};
use baregpu_isa::kernel::{KernelError, KernelIter};

use super::fast::{self, XeFast};
use super::swsb::Annot;
use crate::eu::error::{ErrorKind, EuError};
use crate::eu::thread::Thread;

#[derive(Clone, Debug)]
pub struct XeOp {
    pub ip: u32,
    pub next_ip: u32,
    pub inst: Instruction,
    pub text: String,
    /// Why this instruction cannot run (raised when it is reached).
    pub refused: Option<ErrorKind>,
    /// A branch whose UIP is a `while` (a break parks there).
    pub uip_is_while: bool,
    /// The F arithmetic fast path's plan (`fast`), when it has one.
    pub(crate) fast: Option<XeFast>,
    /// Its pipes and read order, for the SWSB check.
    pub(crate) swsb: Annot,
}

/// A predecoded Xe-HPG kernel.
#[derive(Clone, Debug, Default)]
pub struct XeProgram {
    pub(crate) ops: Vec<XeOp>,
    /// The op at each 8-byte step of the code (instructions are 16 bytes,
    /// or 8 compacted): `NONE` inside an instruction. A lookup per step
    /// costs one load instead of a binary search over the ops.
    at: Vec<u32>,
    tail: Option<KernelError>,
}

/// No instruction starts at this 8-byte step.
const NONE: u32 = u32::MAX;

/// 64-bit types: DG2 has no 64-bit float or integer ALU (Mesa
/// intel_device_info.c XEHP_FEATURES: has_64bit_float = false,
/// has_64bit_int = false; the compiler lowers them to 32-bit code).
fn is_64(ty: Type) -> bool {
    matches!(ty, Type::Df | Type::Q | Type::Uq)
}

fn types(inst: &Instruction) -> Vec<Type> {
    let mut v = Vec::new();
    if let Some(d) = inst.dst() {
        v.push(d.ty);
    }
    for s in inst.srcs().into_iter().flatten() {
        match s {
            Src::Reg(r) => v.push(r.ty),
            Src::Imm(i) => v.push(i.ty),
            Src::Vacant(_) => {}
        }
    }
    v
}

/// What DG2 refuses, or this model does not run, for an instruction.
fn refusal(inst: &Instruction) -> Option<ErrorKind> {
    match inst.opcode {
        Opcode::Illegal => return Some(ErrorKind::IllegalOpcode),
        Opcode::Madm | Opcode::Dpasw | Opcode::Mac | Opcode::Smov => {
            return Some(ErrorKind::Unimplemented(inst.opcode));
        }
        _ => {}
    }
    if let Body::Math(m) = &inst.body {
        match m.function {
            MathFn::Invm | MathFn::Rsqtm => return Some(ErrorKind::Unimplemented(inst.opcode)),
            MathFn::IntDivQuotient | MathFn::IntDivRemainder | MathFn::IntDivQuotientRemainder => {
                return Some(ErrorKind::Unsupported(
                    "integer divide in math: not modelled for Xe-HPG",
                ));
            }
            _ => {}
        }
    }
    let alu = matches!(
        inst.body,
        Body::Alu(_) | Body::Math(_) | Body::ThreeSrc(_) | Body::Bfn(_)
    );
    if alu && types(inst).into_iter().any(is_64) {
        return Some(ErrorKind::Unsupported(
            "DG2 has no 64-bit float or integer ALU (:df, :q, :uq; Mesa has_64bit_float/has_64bit_int = false)",
        ));
    }
    None
}

impl XeProgram {
    /// Predecodes a Gen12.5 kernel; decoding stops at the first word that
    /// does not decode (reaching it reports the decode error).
    pub fn new(bytes: &[u8]) -> XeProgram {
        let mut ops = Vec::new();
        let mut tail = None;
        let scratch = Thread::new(IsaGen::Gen12_5);
        for e in KernelIter::new(IsaGen::Gen12_5, bytes) {
            match e {
                Ok(e) => {
                    let refused = refusal(&e.inst);
                    ops.push(XeOp {
                        ip: e.offset as u32,
                        next_ip: (e.offset + e.size()) as u32,
                        text: baregpu_isa::text::print_instruction(IsaGen::Gen12_5, &e.inst),
                        fast: refused
                            .is_none()
                            .then(|| fast::plan(&e.inst, &scratch))
                            .flatten(),
                        refused,
                        swsb: Annot::of(&e.inst),
                        uip_is_while: false,
                        inst: e.inst,
                    })
                }
                Err(err) => {
                    tail = Some(err);
                    break;
                }
            }
        }
        let end = ops.last().map_or(0, |o| o.next_ip as usize);
        let mut at = alloc::vec![NONE; end.div_ceil(8)];
        for (k, o) in ops.iter().enumerate() {
            if o.ip.is_multiple_of(8)
                && let Some(slot) = at.get_mut(o.ip as usize / 8)
            {
                *slot = k as u32;
            }
        }
        let mut p = XeProgram { ops, at, tail };
        for k in 0..p.ops.len() {
            if let Body::Branch(b) = &p.ops[k].inst.body
                && let Jump::JipUip { uip, .. } = b.jump
            {
                let to = (i64::from(p.ops[k].ip) + i64::from(uip)) as u32;
                p.ops[k].uip_is_while = p
                    .lookup(to)
                    .is_some_and(|j| p.ops[j].inst.opcode == Opcode::While);
            }
        }
        p
    }

    /// Runs every instruction on the generic path (tests compare the two).
    pub fn drop_fast_plans(&mut self) {
        for o in &mut self.ops {
            o.fast = None;
        }
    }

    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The decoded instructions, in order.
    pub fn ops(&self) -> &[XeOp] {
        &self.ops
    }

    pub fn decode_error(&self) -> Option<&KernelError> {
        self.tail.as_ref()
    }

    pub(crate) fn lookup(&self, ip: u32) -> Option<usize> {
        if !ip.is_multiple_of(8) {
            return None;
        }
        match self.at.get(ip as usize / 8) {
            Some(&k) if k != NONE => Some(k as usize),
            _ => None,
        }
    }

    /// The error for an IP with no instruction: the decode error there,
    /// the kernel's end, or the middle of an instruction.
    pub(crate) fn off_end(&self, ip: u32) -> EuError {
        if let Some(e) = &self.tail
            && e.offset as u32 == ip
        {
            return EuError::new(ip, ErrorKind::Decode(*e));
        }
        EuError::new(ip, ErrorKind::NotAnInstruction)
    }

    /// The end of the decoded code.
    pub fn end(&self) -> u32 {
        self.ops.last().map_or(0, |o| o.next_ip)
    }
}
