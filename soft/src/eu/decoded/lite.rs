//! The straight-line form of a program: one compact entry per
//! instruction ([`Lite`]) with how many instructions from it on the run
//! loop may execute back to back, and the operands of the ALU fast paths
//! ([`Flat`]). `predecode::lite` builds the entries and states the
//! invariant blocks rely on.

use baregpu_isa::IsaGen;

use super::{Next, Op};
use crate::eu::error::ErrorKind;
use crate::eu::exec::Ctl;
use crate::eu::thread::Thread;

/// A straight-line handler: runs one instruction given the block's
/// `channels_on` value.
/// `ops` are the program's operations ([`Lite::op`] indexes them).
pub(crate) type LiteFn = fn(&mut Thread, &Lite, &[Op], u32) -> Result<Next, ErrorKind>;

/// One instruction as a block runs it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lite {
    pub run: LiteFn,
    pub ip: u32,
    pub next_ip: u32,
    /// Index of the instruction's first operation in `Program::ops`.
    pub op: u32,
    /// Instructions from this one on that a block may run (0: this one
    /// takes the general step).
    pub straight: u32,
    /// Channel enables of a fast handler from the block's mask state:
    /// `(on.rotate_right(first) | force) & keep` (see [`Lite::enables`]).
    pub first: u8,
    pub force: u32,
    pub keep: u32,
    /// Operands of a fast handler.
    pub flat: Flat,
}

impl Lite {
    /// What [`Ctl::enables_from`] gives for the operation a fast handler
    /// runs (a fused Gen4/G45 pair as one SIMD16 operation), precomputed:
    /// NoMask forces every channel, the Align16 write mask is folded into
    /// `keep`. Gen4/G45 shift the mask right where Gen6+ rotate it; the
    /// same here, as the Gen4 mask has 16 bits and a channel group
    /// starting at 8 has at most 8 channels (`ctl::build`).
    #[inline(always)]
    pub fn enables(&self, on: u32) -> u32 {
        (on.rotate_right(u32::from(self.first)) | self.force) & self.keep
    }

    pub(crate) fn set_enables(&mut self, ctl: &Ctl) {
        self.first = ctl.mask_first;
        self.keep = ctl.enables_from(IsaGen::Gen6, u32::MAX);
        // With NoMask every channel of `keep`; `keep` is all the mask
        // can give.
        self.force = if ctl.no_mask { u32::MAX } else { 0 };
    }
}

/// Runs the instruction's operations with their own handlers (both halves
/// of a Gen4/G45 compressed instruction), as the general step does.
pub(crate) fn by_ops(t: &mut Thread, l: &Lite, ops: &[Op], _on: u32) -> Result<Next, ErrorKind> {
    let i = l.op as usize;
    let Some(op) = ops.get(i) else {
        return Err(ErrorKind::NotAnInstruction);
    };
    let mut next = (op.run)(t, op)?;
    if op.pair
        && let (Next::Fall, Some(second)) = (&next, ops.get(i + 1))
    {
        next = (second.run)(t, second)?;
    }
    Ok(next)
}

/// The operands of a fast instruction as flat register offsets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Flat {
    /// First destination dword (the rest follow).
    pub dst: u16,
    /// First dword of src0, src1, src2 (unused slots 0).
    pub src: [u16; 3],
    /// Source `k` is one dword replicated (stride 0) instead of a row.
    pub scalar: [bool; 3],
    /// Accumulator element of channel 0.
    pub acc_first: u8,
    /// The instruction writes the implicit accumulator (unless cr0.0[1]).
    pub acc_write: bool,
    /// Channels the operation computes (8 or 16; a fused pair is 16).
    pub lanes: u8,
    /// The accumulator write is dead: the next instruction of the
    /// straight-line block overwrites the same elements under the same
    /// enables before anything reads them (set by `predecode::lite`; the run
    /// loop runs a block's last instruction exactly when the budget cuts
    /// the block before its successor).
    pub acc_dead: bool,
    /// Source `k` is this immediate (the integer paths).
    pub imm: [Option<u32>; 3],
}

impl Flat {
    /// Whether the kernel writes the accumulator (`disabled`: cr0.0[1]).
    #[inline(always)]
    pub(crate) fn writes_acc(&self, disabled: bool) -> bool {
        self.acc_write && !self.acc_dead && !disabled
    }
}
