//! Predication on Gen12.5: MI_PREDICATE (the compare and combine into
//! MI_PREDICATE_RESULT), MI_SET_PREDICATE (the status that drops commands),
//! and which commands each drops.

use baregpu_hal::MemoryBus;

use super::Device;
use super::halt::Halt;
use super::mi::Op;
use crate::command::{Cmd, F, field};

/// The predicate registers, engine-relative (Linux i915
/// MI_PREDICATE_SRC0 0x2400, SRC1 0x2408, DATA 0x2410, RESULT 0x2418,
/// MI_PREDICATE_RESULT_2 0x23bc on the render engine; Mesa's mi_builder.h
/// reaches the 0x2000-0x27ff range of the other engines CS-relative).
const PREDICATE_SRC0: u32 = 0x400;
const PREDICATE_SRC1: u32 = 0x408;
const PREDICATE_DATA: u32 = 0x410;
const PREDICATE_RESULT: u32 = 0x418;
const PREDICATE_RESULT_2: u32 = 0x3bc;

impl<B: MemoryBus> Device<B> {
    /// Whether predication drops the command. MI_SET_PREDICATE's status
    /// (MI_SET_PREDICATE_RESULT bit 0) drops every command after it but the
    /// next MI_SET_PREDICATE (manual 004 lines 28501-28554); the batch
    /// commands and MI_MATH are dropped only when their Predication Enable
    /// (bit 15) asks for it (lines 26700-26830, 27940-27962). MI_STORE_REGISTER_MEM's
    /// Predicate Enable drops it when MI_PREDICATE_RESULT bit 0 is clear
    /// (lines 28672-28749).
    pub(super) fn predicated_out(&self, i: usize, c: &Cmd, op: Op, dw: &[u32]) -> bool {
        let f = |x: F| field(c, dw, x);
        let status = self.state[i].set_predicate;
        let bit15 = f(F::PredicationEnable).or(f(F::PredicateEnable)) == Some(1);
        let dropped = match op {
            Op::SetPredicate => false,
            Op::BatchStart | Op::BatchEnd | Op::ConditionalBatchEnd | Op::Math => status && bit15,
            _ => status,
        };
        let base = self.engines[i].base;
        dropped
            || op == Op::StoreRegisterMem
                && f(F::PredicateEnable) == Some(1)
                && self.regs.get(base + PREDICATE_RESULT) & 1 == 0
    }

    /// MI_SET_PREDICATE: the status from MI_PREDICATE_RESULT(_2) (values 3
    /// and 4 on the render and compute engines only), or always (Fh). The
    /// WPARID condition needs registers the model lacks: refused.
    pub(super) fn set_predicate(&mut self, i: usize, c: &Cmd, dw: &[u32]) -> Result<(), Halt> {
        let f = |x: F| field(c, dw, x);
        if f(F::PredicateEnableWparid).is_some_and(|v| v != 0) {
            return Err(self.refuse(dw, "MI_SET_PREDICATE on WPARID"));
        }
        let base = self.engines[i].base;
        let result = self.regs.get(base + PREDICATE_RESULT) & 1 == 1;
        let result2 = self.regs.get(base + PREDICATE_RESULT_2) & 1 == 1;
        let render_like = matches!(
            self.engines[i].class,
            super::RENDER_CLASS | super::COMPUTE_CLASS
        );
        self.state[i].set_predicate = match f(F::PredicateEnable) {
            Some(0) => false,
            Some(1) => !result2,
            Some(2) => result2,
            Some(3) if render_like => !result,
            Some(4) if render_like => result,
            Some(0xf) => true,
            _ => return Err(self.refuse(dw, "a reserved MI_SET_PREDICATE condition")),
        };
        Ok(())
    }

    /// MI_PREDICATE (manual 004 lines 28041-28088): compare the 64-bit
    /// MI_PREDICATE_SRC0 and SRC1 (TRUE, FALSE, SRCS_EQUAL loading their
    /// difference into MI_PREDICATE_DATA, DELTAS_EQUAL comparing it), combine
    /// with MI_PREDICATE_RESULT (SET, AND, OR, XOR), then keep, load or load
    /// inverted.
    pub(super) fn predicate(&mut self, i: usize, c: &Cmd, dw: &[u32]) -> Result<(), Halt> {
        let f = |x: F| field(c, dw, x);
        let base = self.engines[i].base;
        let r64 = |d: &Self, at: u32| {
            u64::from(d.regs.get(base + at)) | u64::from(d.regs.get(base + at + 4)) << 32
        };
        let delta = r64(self, PREDICATE_SRC0).wrapping_sub(r64(self, PREDICATE_SRC1));
        let compare = match f(F::CompareOperation) {
            Some(0) => true,
            Some(1) => false,
            Some(2) => {
                self.regs.set(base + PREDICATE_DATA, delta as u32);
                self.regs
                    .set(base + PREDICATE_DATA + 4, (delta >> 32) as u32);
                delta == 0
            }
            _ => delta == r64(self, PREDICATE_DATA),
        };
        let current = self.regs.get(base + PREDICATE_RESULT) & 1 == 1;
        let combined = match f(F::CombineOperation) {
            Some(0) => compare,
            Some(1) => compare && current,
            Some(2) => compare || current,
            _ => compare ^ current,
        };
        let result = match f(F::LoadOperation) {
            Some(0) => current,
            Some(2) => combined,
            Some(3) => !combined,
            _ => return Err(self.refuse(dw, "a reserved MI_PREDICATE load operation")),
        };
        self.regs.set(base + PREDICATE_RESULT, u32::from(result));
        Ok(())
    }
}
