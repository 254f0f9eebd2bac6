//! The fast paths of Xe-HPG arithmetic.
//!
//! F arithmetic: add, mul and mad whose
//! operands are all F rows of consecutive dwords (or one dword
//! replicated) in the GRF, with no modifier, predicate, condition,
//! saturation or accumulator write, SIMD8 or SIMD16. Such an instruction
//! is planned once at predecode and runs on the lane kernels of the older
//! ISA's fast path (`eu::alu::nearest_f`) when cr0 asks for what they
//! compute: round to nearest even, F denormals flushed (the dispatch
//! default). In any other mode, or on anything else, the generic ALU
//! runs. The plan is made by the generic operand code itself (on a
//! scratch thread: direct GRF operands do not depend on thread state), so
//! offsets and the registers touched for the SWSB check are the generic
//! path's by construction; the tests below compare results bit for bit.
//!
//! Integer arithmetic (`IntFast`): mov, add, and, or, xor, shl, shr and asr
//! with a D/UD destination and D/UD register sources (rows of consecutive
//! dwords or one dword) or D/UD/W/UW immediates, with no modifier,
//! predicate, condition, saturation or accumulator write, on 1 to 32
//! channels: the 32-bit results are the generic path's `Res::Int` stored
//! in a dword, which only asr's sign (the source's type) can tell apart.

use baregpu_isa::inst::{Addr, Instruction, Opcode, PredCtrl, RegFile, Src, Type};

use super::alu;
use super::operand::{self, Plan, Touched};
use crate::eu::decoded::lite::Flat;
use crate::eu::thread::Thread;

/// A planned fast instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct XeFast {
    pub flat: Flat,
    /// What the generic path marks for the SWSB check.
    pub touched: Touched,
    /// An integer instruction's plan (then `flat` is unused).
    pub int: Option<IntFast>,
}

/// An integer operation of the fast path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntOp {
    Mov,
    Add,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Asr,
}

/// Where one source's dwords come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntSrc {
    /// Consecutive dwords from this byte offset.
    Row(u16),
    /// One dword for every channel.
    Scalar(u16),
    /// An immediate, extended to 32 bits by its type.
    Imm(u32),
}

/// A planned integer instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IntFast {
    pub op: IntOp,
    pub lanes: u8,
    pub dst: u16,
    pub src: [IntSrc; 2],
    /// src0 is signed (D, W): asr shifts its sign in.
    pub signed0: bool,
}

impl IntFast {
    fn get(&self, t: &Thread, k: usize, c: usize) -> u32 {
        match self.src[k] {
            IntSrc::Row(o) => t.load32(usize::from(o) + 4 * c),
            IntSrc::Scalar(o) => t.load32(usize::from(o)),
            IntSrc::Imm(v) => v,
        }
    }

    /// Runs the instruction on the channels of `en`.
    pub(crate) fn run(&self, t: &mut Thread, en: u32) {
        let n = usize::from(self.lanes);
        let mut out = [0u32; 32];
        for (c, o) in out.iter_mut().enumerate().take(n) {
            let a = self.get(t, 0, c);
            let b = if self.op == IntOp::Mov {
                0
            } else {
                self.get(t, 1, c)
            };
            // A 32-bit destination: the shift count's low 5 bits (the
            // generic path's `bits - 1` mask at 32 bits).
            let sh = b & 31;
            *o = match self.op {
                IntOp::Mov => a,
                IntOp::Add => a.wrapping_add(b),
                IntOp::And => a & b,
                IntOp::Or => a | b,
                IntOp::Xor => a ^ b,
                IntOp::Shl => a << sh,
                IntOp::Shr => a >> sh,
                IntOp::Asr if self.signed0 => ((a as i32) >> sh) as u32,
                IntOp::Asr => a >> sh,
            };
        }
        // Every source is read before the destination is written (it may
        // be one of them).
        for (c, v) in out.iter().enumerate().take(n) {
            if en >> c & 1 != 0 {
                t.store32(usize::from(self.dst) + 4 * c, *v);
            }
        }
    }
}

/// A source of the integer path: its plan and whether it is signed.
fn int_src(s: &Src, plan: &Plan, exec: usize) -> Option<(IntSrc, bool)> {
    match (s, plan) {
        (
            Src::Reg(r),
            Plan::Offsets {
                off,
                negate,
                abs,
                ty,
            },
        ) if r.file == RegFile::Grf
            && matches!(r.addr, Addr::Direct { .. })
            && !*negate
            && !*abs
            && matches!(ty, Type::D | Type::Ud) =>
        {
            let (first, scalar) = linear(off, exec)?;
            let k = if scalar {
                IntSrc::Scalar(first)
            } else {
                IntSrc::Row(first)
            };
            Some((k, *ty == Type::D))
        }
        // V/UV/VF vectors vary by channel (and plan as words or floats).
        (Src::Imm(m), Plan::Imm { ty, vals })
            if matches!(m.ty, Type::D | Type::Ud | Type::W | Type::Uw) =>
        {
            let v = vals[0];
            let (x, signed) = match ty {
                Type::D => (v as u32, true),
                Type::Ud => (v as u32, false),
                Type::W => (v as u16 as i16 as i32 as u32, true),
                Type::Uw => (u32::from(v as u16), false),
                _ => return None,
            };
            Some((IntSrc::Imm(x), signed))
        }
        _ => None,
    }
}

/// The integer plan of `inst`, if it has one.
fn plan_int(inst: &Instruction, scratch: &Thread) -> Option<XeFast> {
    let (op, n) = match inst.opcode {
        Opcode::Mov => (IntOp::Mov, 1),
        Opcode::Add => (IntOp::Add, 2),
        Opcode::And => (IntOp::And, 2),
        Opcode::Or => (IntOp::Or, 2),
        Opcode::Xor => (IntOp::Xor, 2),
        Opcode::Shl => (IntOp::Shl, 2),
        Opcode::Shr => (IntOp::Shr, 2),
        Opcode::Asr => (IntOp::Asr, 2),
        _ => return None,
    };
    let exec = usize::from(inst.exec_size);
    let shape = (1..=32).contains(&exec)
        && inst.pred_ctrl == PredCtrl::None
        && inst.cond_mod == baregpu_isa::inst::CondMod::None
        && !inst.saturate
        && !inst.acc_wr_ctrl;
    if !shape {
        return None;
    }
    let (dst, srcs) = alu::operands(inst)?;
    if srcs[2].is_some()
        || dst.file != RegFile::Grf
        || !matches!(dst.ty, Type::D | Type::Ud)
        || !matches!(dst.addr, Addr::Direct { .. })
    {
        return None;
    }
    let mut touched = Touched::default();
    let mut src = [IntSrc::Imm(0); 2];
    let mut signed0 = false;
    for (k, s) in srcs.iter().take(n).enumerate() {
        let s = s.as_ref()?;
        let plan = operand::src(scratch, s, exec, false, &mut touched).ok()?;
        let (x, signed) = int_src(s, &plan, exec)?;
        src[k] = x;
        if k == 0 {
            signed0 = signed;
        }
    }
    let off = operand::dst(scratch, &dst, exec, &mut touched).ok()??;
    // One channel is a row of one; more must be consecutive dwords.
    let (d, scalar) = linear(&off, exec)?;
    if scalar && exec > 1 {
        return None;
    }
    Some(XeFast {
        flat: Flat::default(),
        touched,
        int: Some(IntFast {
            op,
            lanes: exec as u8,
            dst: d,
            src,
            signed0,
        }),
    })
}

/// A direct GRF register of type F with no modifier.
fn plain_f(s: &Src) -> bool {
    matches!(s, Src::Reg(r) if r.file == RegFile::Grf
        && r.ty == Type::F
        && !r.negate
        && !r.abs
        && matches!(r.addr, Addr::Direct { .. }))
}

/// `off[..n]` as consecutive dwords (`Some(false)`) or one dword
/// (`Some(true)`), with its first offset.
fn linear(off: &[u32], n: usize) -> Option<(u16, bool)> {
    let first = *off.first()?;
    let scalar = off[..n].iter().all(|&o| o == first);
    let row = off[..n]
        .iter()
        .enumerate()
        .all(|(c, &o)| o == first + 4 * c as u32);
    let first = u16::try_from(first).ok()?;
    if scalar {
        Some((first, true))
    } else if row {
        Some((first, false))
    } else {
        None
    }
}

/// The fast plan of `inst`, if it has one. `scratch`: any thread (only
/// layout constants are read for direct GRF operands).
pub(crate) fn plan(inst: &Instruction, scratch: &Thread) -> Option<XeFast> {
    if let Some(f) = plan_int(inst, scratch) {
        return Some(f);
    }
    let n = match inst.opcode {
        Opcode::Add | Opcode::Mul => 2,
        Opcode::Mad => 3,
        _ => return None,
    };
    let exec = usize::from(inst.exec_size);
    let shape = matches!(exec, 8 | 16)
        && inst.pred_ctrl == PredCtrl::None
        && inst.cond_mod == baregpu_isa::inst::CondMod::None
        && !inst.saturate
        && !inst.acc_wr_ctrl;
    if !shape {
        return None;
    }
    let (dst, srcs) = alu::operands(inst)?;
    let three = srcs[2].is_some();
    if (n == 3) != three
        || dst.file != RegFile::Grf
        || dst.ty != Type::F
        || !matches!(dst.addr, Addr::Direct { .. })
    {
        return None;
    }
    let mut touched = Touched::default();
    let mut flat = Flat {
        lanes: exec as u8,
        ..Flat::default()
    };
    // Sources first, then the destination, as the generic path plans them.
    for (k, s) in srcs.iter().take(n).enumerate() {
        let s = s.as_ref().filter(|s| plain_f(s))?;
        let Plan::Offsets { off, .. } = operand::src(scratch, s, exec, three, &mut touched).ok()?
        else {
            return None;
        };
        (flat.src[k], flat.scalar[k]) = linear(&off, exec)?;
    }
    let off = operand::dst(scratch, &dst, exec, &mut touched).ok()??;
    let (d, false) = linear(&off, exec)? else {
        return None;
    };
    flat.dst = d;
    Some(XeFast {
        flat,
        touched,
        int: None,
    })
}

#[cfg(test)]
mod tests {
    use alloc::format;
    use alloc::string::String;
    use alloc::vec::Vec;

    use crate::eu::run::Step;
    use crate::eu::xe::XeHarness;

    /// Operand values that exercise the rules: zeros of both signs,
    /// denormals (flushed), infinities, NaNs (made canonical), values near
    /// FLT_MAX and near 2^-126, and random ones; lanes hold a mix.
    fn value(seed: &mut u64) -> u32 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        let r = (*seed >> 32) as u32;
        match (*seed >> 8) % 12 {
            0 => r & 0x8000_0000,
            1 => r & 0x807F_FFFF,
            2 => 0x7F80_0000 | r & 0x8000_0000,
            3 => 0x7F80_0001 | r & 0x807F_FFFF,
            4 => 0x7F00_0000 | r & 0x80FF_FFFF,
            5 => 0x0080_0000 | r & 0x81FF_FFFF,
            // Products and sums of these land on rounding midpoints.
            6 => 0x3F80_0000 | r & 0x8000_0FFF,
            _ => r & 0xBFFF_FFFF,
        }
    }

    /// Runs `kernel` with and without the fast plans from the same random
    /// registers and compares every GRF bit for bit.
    fn same_as_generic(kernel: &str, seeds: u64) {
        same_as_generic_masked(kernel, seeds, u32::MAX);
    }

    /// [`same_as_generic`] with the channels of `mask` alive.
    fn same_as_generic_masked(kernel: &str, seeds: u64, mask: u32) {
        for s in 0..seeds {
            let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ (s + 1);
            let mut fast = XeHarness::new();
            fast.load_asm(kernel).expect("assembles");
            assert!(
                fast.program.ops().iter().any(|o| o.fast.is_some()),
                "no fast plan in\n{kernel}"
            );
            let mut slow = XeHarness::new();
            slow.load_asm(kernel).expect("assembles");
            slow.program.drop_fast_plans();
            fast.thread.thread.set_dispatch_mask(mask);
            slow.thread.thread.set_dispatch_mask(mask);
            for r in 2..60u8 {
                for e in 0..8 {
                    let v = value(&mut seed);
                    fast.set_grf_ud(r, e, v);
                    slow.set_grf_ud(r, e, v);
                }
            }
            let a = fast.run(10_000);
            let b = slow.run(10_000);
            assert_eq!(a, b, "{kernel}");
            assert_eq!(a, Ok(Step::EndOfKernel), "{kernel}");
            for r in 0..128u8 {
                for e in 0..8 {
                    assert_eq!(
                        fast.grf_ud(r, e),
                        slow.grf_ud(r, e),
                        "seed {s}: r{r}.{e} after\n{kernel}"
                    );
                }
            }
        }
    }

    #[test]
    fn add_mul_and_mad_match_the_generic_path() {
        let mut forms: Vec<String> = Vec::new();
        for simd in [8, 16] {
            for op in ["add", "mul"] {
                forms.push(format!(
                    "{op} ({simd}|M0) r40.0<1>:f r2.0<1;1,0>:f r6.0<1;1,0>:f"
                ));
                // A replicated source, and the destination one of the
                // sources.
                forms.push(format!(
                    "{op} ({simd}|M0) r10.0<1>:f r10.0<1;1,0>:f r7.3<0;1,0>:f"
                ));
            }
            forms.push(format!(
                "mad ({simd}|M0) r40.0<1>:f r2.0<1;0>:f r6.0<1;0>:f r20.0<1>:f"
            ));
            forms.push(format!(
                "mad ({simd}|M0) r20.0<1>:f r20.0<1;0>:f r3.2<0;0>:f r30.0<1>:f"
            ));
        }
        for f in &forms {
            same_as_generic(&format!("{f}\n"), 64);
        }
        // Channels off in the dispatch mask keep their destination (the
        // second group of eight as its own instruction too).
        for k in [
            "mad (16|M0) r40.0<1>:f r2.0<1;0>:f r6.0<1;0>:f r20.0<1>:f\n",
            "add (8|M8) r40.0<1>:f r2.0<1;1,0>:f r6.0<1;1,0>:f\n",
        ] {
            same_as_generic_masked(k, 16, 0x0000_A5C3);
        }
    }

    #[test]
    fn integer_operations_match_the_generic_path() {
        let mut forms: Vec<String> = Vec::new();
        for op in ["add", "and", "or", "xor", "shl", "shr", "asr"] {
            for (dt, t0, t1) in [("d", "d", "d"), ("ud", "ud", "d"), ("d", "ud", "ud")] {
                for simd in [1, 8, 16] {
                    forms.push(format!(
                        "{op} ({simd}|M0) r40.0<1>:{dt} r2.0<1;1,0>:{t0} r6.0<1;1,0>:{t1}"
                    ));
                    forms.push(format!(
                        "{op} ({simd}|M0) r10.0<1>:{dt} r10.0<1;1,0>:{t0} r7.3<0;1,0>:{t1}"
                    ));
                }
            }
            // Immediates of every integer type the path takes, and a
            // SIMD32 row.
            for imm in ["0x7:uw", "0xFFF3:w", "0x80000005:ud", "-3:d", "35:w"] {
                forms.push(format!("{op} (16|M0) r40.0<1>:d r2.0<1;1,0>:d {imm}"));
            }
            forms.push(format!(
                "{op} (32|M0) r40.0<1>:ud r2.0<1;1,0>:d r20.0<1;1,0>:ud"
            ));
        }
        for simd in [1, 8, 16] {
            forms.push(format!("mov ({simd}|M0) r40.0<1>:d r2.3<0;1,0>:ud"));
            forms.push(format!("mov ({simd}|M0) r40.0<1>:ud r2.0<1;1,0>:d"));
            forms.push(format!("mov ({simd}|M0) r40.0<1>:d 0xFFF0:w"));
        }
        forms.push("mov (8|M8) r41.0<1>:ud 0x12345678:ud".into());
        for f in &forms {
            same_as_generic(&format!("{f}\n"), 8);
        }
        for k in [
            "add (16|M0) r40.0<1>:d r2.0<1;1,0>:d r6.0<1;1,0>:d\n",
            "asr (8|M8) r40.0<1>:d r2.0<1;1,0>:d r6.0<1;1,0>:ud\n",
            "(W) mov (1|M0) r40.2<1>:ud r2.5<0;1,0>:ud\n",
        ] {
            same_as_generic_masked(k, 16, 0x0000_A5C3);
        }
    }

    #[test]
    fn integer_shapes_outside_the_path_stay_generic() {
        let none = |k: &str| {
            let mut h = XeHarness::new();
            h.load_asm(k).expect("assembles");
            assert!(h.program.ops()[0].fast.is_none(), "{k}");
        };
        none("add (8|M0) r40.0<1>:d -r2.0<1;1,0>:d r6.0<1;1,0>:d");
        none("add (8|M0) (sat)r40.0<1>:d r2.0<1;1,0>:d r6.0<1;1,0>:d");
        none("add (8|M0) r40.0<1>:w r2.0<1;1,0>:w r6.0<1;1,0>:w");
        none("add (8|M0) r40.0<1>:d r2.0<1;1,0>:uw r6.0<1;1,0>:d");
        none("add (8|M0) r40.0<2>:d r2.0<1;1,0>:d r6.0<1;1,0>:d");
        none("add (8|M0) r40.0<1>:q r2.0<1;1,0>:q r6.0<1;1,0>:q");
        none("(f0.0) add (8|M0) r40.0<1>:d r2.0<1;1,0>:d r6.0<1;1,0>:d");
        none("add (8|M0) (lt)f0.0 r40.0<1>:d r2.0<1;1,0>:d r6.0<1;1,0>:d");
        none("and (8|M0) r40.0<1>:d ~r2.0<1;1,0>:d r6.0<1;1,0>:d");
        none("add (8|M0) r40.0<1>:d r2.0<1;1,0>:d 0x3:uv");
    }

    #[test]
    fn other_shapes_and_modes_stay_generic() {
        let none = |k: &str| {
            let mut h = XeHarness::new();
            h.load_asm(k).expect("assembles");
            assert!(h.program.ops()[0].fast.is_none(), "{k}");
        };
        none("add (8|M0) r40.0<1>:f -r2.0<1;1,0>:f r6.0<1;1,0>:f");
        none("add (8|M0) (sat)r40.0<1>:f r2.0<1;1,0>:f r6.0<1;1,0>:f");
        none("add (8|M0) r40.0<2>:f r2.0<1;1,0>:f r6.0<1;1,0>:f");
        none("add (8|M0) r40.0<1>:f r2.0<2;1,0>:f r6.0<1;1,0>:f");
        // Integer adds have their own path (below).
        none("add (8|M0) r40.0<1>:hf r2.0<1;1,0>:hf r6.0<1;1,0>:hf");
        none("(f0.0) add (8|M0) r40.0<1>:f r2.0<1;1,0>:f r6.0<1;1,0>:f");
        none("add (8|M0) (lt)f0.0 r40.0<1>:f r2.0<1;1,0>:f r6.0<1;1,0>:f");
        none("add (4|M0) r40.0<1>:f r2.0<1;1,0>:f r6.0<1;1,0>:f");
        // Round toward zero set in cr0 first: the generic path gives the
        // same bits as without plans.
        same_as_generic(
            "or (1|M0) cr0.0<1>:ud cr0.0<0;1,0>:ud 0x30:ud\nadd (8|M0) r40.0<1>:f r2.0<1;1,0>:f r6.0<1;1,0>:f\n",
            16,
        );
        // Denormals kept (cr0 bit 7).
        same_as_generic(
            "or (1|M0) cr0.0<1>:ud cr0.0<0;1,0>:ud 0x80:ud\nmad (8|M0) r40.0<1>:f r2.0<1;0>:f r6.0<1;0>:f r20.0<1>:f\n",
            16,
        );
    }
}
