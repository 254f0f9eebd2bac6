//! Straight-line blocks: builds the program's entries (`decoded::lite`),
//! one per instruction, with how many instructions from it on can run
//! back to back, and picks each one's fast handler. The run loop executes a
//! block with the channel-mask state read once at its start and no
//! per-instruction lookup, IP or budget bookkeeping in between.
//!
//! Invariant the blocks rely on: no instruction inside a block changes
//! what `Thread::channels_on` reads or the parked channels. Blocks hold
//! only [`Op::simple`] instructions (no flow, no write to a0, cr0, sr0 or
//! ip, no read of ip or tm0) whose destination is not an architecture
//! register other than null, the accumulator or a flag register (so not
//! Gen4's mask0). A `send` may appear: its message runs after its handler
//! returns `Next::Send`, which ends the block, and the next block reads the
//! mask state again.

use alloc::vec::Vec;

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{Addr, RegFile};

use crate::eu::alu;
use crate::eu::decoded::Op;
use crate::eu::decoded::lite::{Flat, Lite, LiteFn, by_ops};
use crate::eu::thread::layout::{ACC_BASE, FLAG_BASE, NULL_BASE, register_span};

/// Whether an operation may sit inside a block.
fn blockable(p: IsaGen, op: &Op) -> bool {
    if !op.simple {
        return false;
    }
    let Some(d) = op.inst.dst() else {
        return true;
    };
    if d.file != RegFile::Arf {
        return true;
    }
    let Addr::Direct { nr, .. } = d.addr else {
        // Indirect ARF destinations do not predecode (BadOperand).
        return true;
    };
    matches!(
        register_span(p, d.file, nr).map(|(s, _)| s.base),
        Some(NULL_BASE | ACC_BASE | FLAG_BASE)
    )
}

/// The block entries of a program, one per instruction of `index`.
pub(crate) fn build(p: IsaGen, ops: &[Op], index: &[(u32, u32)]) -> Vec<Lite> {
    let mut out: Vec<Lite> = Vec::with_capacity(index.len());
    for &(_, i) in index {
        let i = i as usize;
        let Some(first) = ops.get(i) else {
            continue;
        };
        let second = if first.pair { ops.get(i + 1) } else { None };
        let ok = blockable(p, first) && second.is_none_or(|s| blockable(p, s));
        // A fast path only where the ALU's handler would run.
        let alu_ops = first.alu && second.is_none_or(|s| s.alu);
        let fast = alu::choose_lite(p, first, second).filter(|_| alu_ops);
        let mut ctl = first.ctl;
        let (run, flat) = match fast {
            Some((h, flat)) => {
                if second.is_some() {
                    ctl.exec = 16;
                }
                (h, flat)
            }
            None => (by_ops as LiteFn, Flat::default()),
        };
        let mut lite = Lite {
            run,
            ip: first.ip,
            next_ip: first.next_ip,
            op: i as u32,
            straight: u32::from(ok),
            first: 0,
            force: 0,
            keep: 0,
            flat,
        };
        lite.set_enables(&ctl);
        out.push(lite);
    }
    // Run lengths, from the end: an entry continues into the next one when
    // falling through reaches it.
    for k in (0..out.len().saturating_sub(1)).rev() {
        if out[k].straight != 0 && out[k + 1].ip == out[k].next_ip {
            out[k].straight = out[k + 1].straight.saturating_add(1);
        }
    }
    mark_dead_acc(&mut out);
    out
}

/// Marks the implicit accumulator writes (every Gen4/G45 arithmetic
/// instruction makes one) that the next instruction of the same block
/// overwrites: both fast handlers (which neither fail nor read the
/// accumulator), the successor covering the same elements (same first
/// element, at least as many lanes) under at least the same enables (same
/// channel group and NoMask, a superset of the write mask). Nothing can
/// observe the dead value: a block runs to its end unless the budget cuts
/// it, and then the run loop runs the cut block's last instruction exactly.
fn mark_dead_acc(out: &mut [Lite]) {
    for k in 0..out.len().saturating_sub(1) {
        let (a, b) = (&out[k], &out[k + 1]);
        let (fa, fb) = (&a.flat, &b.flat);
        let dead = a.straight >= 2
            && fa.lanes != 0
            && fb.lanes != 0
            && fa.acc_write
            && fb.acc_write
            && fb.acc_first == fa.acc_first
            && fb.lanes >= fa.lanes
            && b.first == a.first
            && b.force == a.force
            && b.keep & a.keep == a.keep;
        out[k].flat.acc_dead = dead;
    }
}
