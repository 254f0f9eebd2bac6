//! The arithmetic MI commands of Gen12.5: MI_ATOMIC on memory and MI_MATH
//! on the command streamer's general purpose registers.

use baregpu_hal::MemoryBus;

use super::Device;
use super::halt::Halt;
use super::memory::VA_MASK;
use crate::command::{Cmd, F, field};

impl<B: MemoryBus> Device<B> {
    /// MI_ATOMIC (manual 004 lines 26535-26699) on a dword or qword: the
    /// operands inline (Operand1 in DW3/DW5) or in CS_GPR0 (Operand1); the
    /// value before the operation returned to CS_GPR4 with Return Data
    /// Control. Towards system memory only MOVE, INC and DEC exist (the
    /// programming note); octwords, float and compare-write operations and
    /// the post-sync form are refused.
    pub(super) fn atomic(&mut self, i: usize, c: &Cmd, dw: &[u32]) -> Result<(), Halt> {
        let f = |x: F| field(c, dw, x);
        if f(F::PostSyncOperation) == Some(1) {
            return Err(self.refuse(dw, "MI_ATOMIC as a post-sync operation"));
        }
        let opcode = f(F::AtomicOpcode).unwrap_or(0) as u32;
        let qword = match (f(F::DataSize), opcode & !0x20) {
            (_, op) if !(0x1..=0xd).contains(&op) || op == 0x9 => {
                return Err(self.refuse(dw, "MI_ATOMIC float, compare-write or reserved operation"));
            }
            (Some(0), _) if opcode & 0x20 == 0 => false,
            (Some(1), _) if opcode & 0x20 != 0 => true,
            _ => return Err(self.refuse(dw, "MI_ATOMIC data size other than its opcode's")),
        };
        let op = opcode & !0x20;
        // MOVE (4), INC (5), DEC (6) are the system-memory atomics.
        let addr = f(F::MemoryAddress).unwrap_or(0) & VA_MASK;
        let space = self.space(i, f(F::UseGlobalGtt));
        let at = self
            .memory(i)
            .translate(space, addr)
            .map_err(|e| Halt::of(e, dw[0]))?;
        if matches!(at, super::memory::Location::System(_)) && !(4..=6).contains(&op) {
            return Err(self.refuse(dw, "MI_ATOMIC arithmetic on system memory"));
        }
        let gpr = self.engines[i].base + self.er.gpr;
        let gpr_read = |d: &Self, n: u32| {
            u64::from(d.regs.get(gpr + 8 * n)) | u64::from(d.regs.get(gpr + 8 * n + 4)) << 32
        };
        let operand = if f(F::InlineData) == Some(1) {
            f(F::Operand1DataDword0).unwrap_or(0) | f(F::Operand1DataDword1).unwrap_or(0) << 32
        } else {
            gpr_read(self, 0)
        };
        let mask = if qword { u64::MAX } else { 0xffff_ffff };
        let operand = operand & mask;
        let mut old = u64::from(self.read(i, space, addr)?);
        if qword {
            old |= u64::from(self.read(i, space, addr.wrapping_add(4))?) << 32;
        }
        let signed = |v: u64| {
            if qword {
                v as i64
            } else {
                i64::from(v as u32 as i32)
            }
        };
        let new = match op {
            0x1 => old & operand,
            0x2 => old | operand,
            0x3 => old ^ operand,
            0x4 => operand,
            0x5 => old.wrapping_add(1),
            0x6 => old.wrapping_sub(1),
            0x7 => old.wrapping_add(operand),
            0x8 => old.wrapping_sub(operand),
            0xa => {
                if signed(old) >= signed(operand) {
                    old
                } else {
                    operand
                }
            }
            0xb => {
                if signed(old) <= signed(operand) {
                    old
                } else {
                    operand
                }
            }
            0xc => old.max(operand),
            _ => old.min(operand),
        } & mask;
        self.write(i, space, addr, new as u32)?;
        if qword {
            self.write(i, space, addr.wrapping_add(4), (new >> 32) as u32)?;
        }
        if f(F::ReturnDataControl) == Some(1) {
            // A dword return updates the lower dword of CS_GPR4 only.
            self.regs.set(gpr + 8 * 4, old as u32);
            if qword {
                self.regs.set(gpr + 8 * 4 + 4, (old >> 32) as u32);
            }
        }
        Ok(())
    }

    /// MI_MATH: each ALU dword (hal gen12.5 structs.toml
    /// MI_MATH_ALU_INSTRUCTION: opcode 31:20, operand 1 19:10, operand 2
    /// 9:0) on the engine's 64-bit CS_GPR0-15 and the ALU's SRCA, SRCB,
    /// ACCU and flags. The semantics are those Mesa's mi_builder.h relies on
    /// (its constant folding computes what the ALU would): LOAD/LOADINV put a
    /// register (or its inverse) in SRCA or SRCB, LOAD0 and LOAD1 zero and all
    /// ones; ADD and SUB set ACCU, CF (carry, or borrow: SRCA < SRCB) and ZF
    /// (ACCU zero); AND, OR, XOR (ZF; CF cleared, the model's choice: no
    /// source says); SHL, SHR, SAR by SRCB, a power of two up
    /// to 32 ("we only have power-of-two shifts"); STORE/STOREINV write ACCU,
    /// SRCA, SRCB or a flag (all ones when set) or its inverse to a
    /// register. Indirect loads and stores are refused.
    pub(super) fn math(&mut self, i: usize, dw: &[u32]) -> Result<(), Halt> {
        let gpr = self.engines[i].base + self.er.gpr;
        let mut alu = Alu::default();
        for &word in &dw[1..] {
            let (opcode, op1, op2) = (word >> 20, (word >> 10) & 0x3ff, word & 0x3ff);
            let reg = |regs: &crate::regfile::RegFile, n: u32| -> Option<u64> {
                (n < 16).then(|| {
                    u64::from(regs.get(gpr + 8 * n)) | u64::from(regs.get(gpr + 8 * n + 4)) << 32
                })
            };
            let (a, b) = (alu.a, alu.b);
            let ok = match opcode {
                // NOOP, FENCE_RD, FENCE_WR: the model has no pipeline to fence.
                0x000..=0x002 => true,
                0x080 => reg(&self.regs, op2).is_some_and(|v| alu.load(op1, v)),
                0x480 => reg(&self.regs, op2).is_some_and(|v| alu.load(op1, !v)),
                0x081 => alu.load(op1, 0),
                0x481 => alu.load(op1, u64::MAX),
                0x100 => {
                    let (r, carry) = a.overflowing_add(b);
                    alu.result(r, carry);
                    true
                }
                0x101 => {
                    let (r, borrow) = a.overflowing_sub(b);
                    alu.result(r, borrow);
                    true
                }
                0x102 => alu.result(a & b, false),
                0x103 => alu.result(a | b, false),
                0x104 => alu.result(a ^ b, false),
                0x105..=0x107 if b == 0 || b.is_power_of_two() && b <= 32 => {
                    alu.accu = match opcode {
                        0x105 => a << b,
                        0x106 => a >> b,
                        _ => ((a as i64) >> b) as u64,
                    };
                    true
                }
                0x180 | 0x580 => match (alu.source(op2).or_else(|| reg(&self.regs, op2)), op1 < 16)
                {
                    (Some(v), true) => {
                        let v = if opcode == 0x580 { !v } else { v };
                        self.regs.set(gpr + 8 * op1, v as u32);
                        self.regs.set(gpr + 8 * op1 + 4, (v >> 32) as u32);
                        true
                    }
                    _ => false,
                },
                _ => false,
            };
            if !ok {
                return Err(
                    self.refuse(dw, "an MI_MATH ALU instruction the model does not execute")
                );
            }
        }
        Ok(())
    }
}

/// The MI_MATH ALU's registers (operand codes of hal gen12.5 structs.toml
/// MI_MATH_ALU_INSTRUCTION: SRCA 0x20, SRCB 0x21, ACCU 0x31, ZF 0x32, CF 0x33).
#[derive(Default)]
struct Alu {
    a: u64,
    b: u64,
    accu: u64,
    zf: bool,
    cf: bool,
}

impl Alu {
    /// LOAD into SRCA or SRCB; `false` for another destination.
    fn load(&mut self, dst: u32, value: u64) -> bool {
        match dst {
            0x20 => self.a = value,
            0x21 => self.b = value,
            _ => return false,
        }
        true
    }

    /// An arithmetic or logic result: ACCU, the carry and zero flags.
    fn result(&mut self, accu: u64, carry: bool) -> bool {
        (self.accu, self.cf, self.zf) = (accu, carry, accu == 0);
        true
    }

    /// An ALU register as a STORE source (a set flag reads as all ones).
    fn source(&self, n: u32) -> Option<u64> {
        let flag = |f: bool| if f { u64::MAX } else { 0 };
        match n {
            0x20 => Some(self.a),
            0x21 => Some(self.b),
            0x31 => Some(self.accu),
            0x32 => Some(flag(self.zf)),
            0x33 => Some(flag(self.cf)),
            _ => None,
        }
    }
}
