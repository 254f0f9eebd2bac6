//! The fast path of Xe-HPG's F arithmetic: add, mul and mad whose
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
    Some(XeFast { flat, touched })
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
        none("add (8|M0) r40.0<1>:ud r2.0<1;1,0>:ud r6.0<1;1,0>:ud");
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
