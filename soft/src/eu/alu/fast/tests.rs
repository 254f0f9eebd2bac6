//! The fast paths against the generic ALU path, which computes every
//! result exactly before one rounding ([`crate::eu::fp::round_f32`]): the
//! toward-zero lane functions one by one, and whole random kernels of F
//! add/mul/mad run three ways (the run loop's blocks, the general step,
//! the generic handler on every operation) on values chosen to hit the
//! hard cases: denormals, NaN, infinities, signed zeros, overflow, results
//! on F rounding midpoints, sums whose rest is below f64 precision; with
//! channels off, NoMask, channel groups, ALT mode, the accumulator
//! disabled and every Gen7 rounding mode. Then the run loop's budget and
//! errors inside a block.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use baregpu_isa::IsaGen;

use super::fast;
use super::lanes::{
    add_toward_zero, add_toward_zero_finite, add_wide, mul_toward_zero, out, toward_zero,
};
use crate::eu::fp::{self, Rounding};
use crate::eu::predecode::Program;
use crate::eu::send::NoSharedFunctions;
use crate::eu::thread::Thread;

/// xorshift64*: deterministic test values.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// An F value from a mix of special values, random bits and random
    /// magnitudes across (and beyond) the normal range.
    fn f(&mut self) -> f32 {
        const SPECIAL: [u32; 12] = [
            0x0000_0000,
            0x8000_0000,
            0x7F80_0000,
            0xFF80_0000,
            0x7FC0_0001,
            0xFFA0_0000,
            0x7F7F_FFFF,
            0xFF7F_FFFF,
            0x0080_0000,
            0x8080_0001,
            0x0000_0001,
            0x807F_FFFF,
        ];
        match self.below(8) {
            0 => f32::from_bits(SPECIAL[self.below(12) as usize]),
            1 => f32::from_bits(self.next() as u32),
            _ => {
                // Exponent field 0-255 (denormals, normals, inf/NaN).
                let e = (self.below(256) as u32) << 23;
                let m = self.next() as u32 & 0x007F_FFFF;
                let s = (self.next() as u32) & 0x8000_0000;
                f32::from_bits(s | e | m)
            }
        }
    }

    /// A value near `x`: scaled by a power of two (often far below it, so
    /// that a sum has a rest f64 cannot hold) and perhaps negated.
    fn near(&mut self, x: f32) -> f32 {
        let k = self.below(90) as i32 - 10;
        let m = (self.next() as u32 & 0x007F_FFFF) | 0x3F80_0000;
        let v = f32::from_bits(m) * libm::exp2f(-(k as f32));
        let v = if x.is_finite() {
            v * x.abs().max(1e-30)
        } else {
            v
        };
        if self.below(2) == 0 { v } else { -v }
    }
}

/// Toward-zero rounding by bits against the generic rounding, on exact
/// sums and products of F values.
#[test]
fn toward_zero_matches_the_exact_rounding() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..200_000 {
        let a = r.f();
        let b = if r.below(2) == 0 { r.f() } else { r.near(a) };
        // Flushed inputs, as the kernels see them.
        let (a, b) = (
            f32::from_bits(fp::flush32(a.to_bits())),
            f32::from_bits(fp::flush32(b.to_bits())),
        );
        let (s, e) = fp::add_exact(a, b);
        let want = out(fp::round_f32(s, e, Rounding::TowardZero));
        assert_eq!(toward_zero(s, e), want, "{a:e} + {b:e}");
        let (bits, ok) = add_toward_zero(a, b);
        let wide = add_wide(a, b);
        assert!(!ok || bits == want, "{a:e} + {b:e} in F");
        // Only finite sums of operands near FLT_MAX need the f64 path.
        assert!(ok || a.abs().max(b.abs()) > 1.0e38, "{a:e} + {b:e}");
        let (fast_bits, finite) = add_toward_zero_finite(a, b);
        assert!(!finite || fast_bits == want, "{a:e} + {b:e} in F (finite)");
        // The accumulator keeps the exact sum rounded to f64, a zero with
        // its sign (what the generic path keeps).
        let (s2, e2) = fp::two_sum(f64::from(a), f64::from(b));
        let sum = if e2 == 0.0 { s2 } else { s2 + e2 };
        assert!(
            wide.to_bits() == sum.to_bits() || (wide.is_nan() && sum.is_nan()),
            "{a:e} + {b:e}: {wide:e} vs {sum:e}"
        );
        let p = f64::from(a) * f64::from(b);
        let want = out(fp::round_f32(p, 0.0, Rounding::TowardZero));
        assert_eq!(toward_zero(p, 0.0), want, "{a:e} * {b:e}");
        assert_eq!(mul_toward_zero(a, b), want, "{a:e} * {b:e} in F");
    }
}

/// Registers the kernels use; few, so that operands overlap often.
const REGS: [u32; 6] = [10, 11, 12, 13, 14, 16];

fn reg(r: &mut Rng) -> u32 {
    REGS[r.below(REGS.len() as u64) as usize]
}

/// One random F add/mul/mad of `simd` channels in the assembler's syntax,
/// sometimes NoMask or on another channel group.
fn instruction(r: &mut Rng, p: IsaGen, simd: u32) -> String {
    let nomask = if r.below(5) == 0 { "(W) " } else { "" };
    let group = match (simd, r.below(3)) {
        (8, 0) => 8,
        (8, 1) if p >= IsaGen::Gen7 => 16 + 8 * r.below(2) as u32,
        (16, 0) if p >= IsaGen::Gen7 => 16,
        _ => 0,
    };
    let text = body(r, p, simd);
    format!(
        "{nomask}{}",
        text.replacen("|M0)", &format!("|M{group})"), 1)
    )
}

/// The operation and operands of [`instruction`].
fn body(r: &mut Rng, p: IsaGen, simd: u32) -> String {
    let two = |r: &mut Rng| {
        let src = |r: &mut Rng| {
            if r.below(4) == 0 {
                format!("r{}.{}<0;1,0>:f", reg(r), r.below(8))
            } else {
                format!("r{}.0<{simd};{simd},1>:f", reg(r))
            }
        };
        let op = if r.below(2) == 0 { "add" } else { "mul" };
        let (d, a, b) = (reg(r), src(r), src(r));
        let opt = if p <= IsaGen::G45 && simd == 16 {
            " {Compr}"
        } else if p > IsaGen::G45 && r.below(4) == 0 {
            " {AccWrEn}"
        } else {
            ""
        };
        format!("{op} ({simd}|M0) r{d}.0<1>:f {a} {b}{opt}")
    };
    if p <= IsaGen::G45 || r.below(3) != 0 {
        return two(r);
    }
    let src3 = |r: &mut Rng| {
        if r.below(4) == 0 {
            format!("r{}.{}<0;0>:f", reg(r), r.below(8))
        } else {
            format!("r{}.0<2;1>:f", reg(r))
        }
    };
    let last = if r.below(4) == 0 {
        format!("r{}.{}<0>:f", reg(r), r.below(8))
    } else {
        format!("r{}.0<1>:f", reg(r))
    };
    let (d, a, b) = (reg(r), src3(r), src3(r));
    let opt = if r.below(4) == 0 { " {AccWrEn}" } else { "" };
    format!("mad ({simd}|M0) r{d}.0<1>:f {a} {b} {last}{opt}")
}

/// Random register contents; some lanes set up so that a mad's f64 sum
/// lands exactly on an F rounding midpoint: src0 = x, src1 = 2^(E-24) (1 +
/// 2^-18), src2 = 1 - 2^-18, whose exact sum is half an F ulp above x
/// minus 2^(E-60), which f64 rounds to the midpoint.
fn fill(t: &mut Thread, r: &mut Rng) {
    for reg in 8..20u8 {
        for e in 0..8 {
            let v = r.f();
            t.set_grf_f(reg, e, v);
        }
    }
    for _ in 0..6 {
        let (e, ra) = (r.below(8) as usize, REGS[r.below(6) as usize] as u8);
        let (rb, rc) = (
            REGS[r.below(6) as usize] as u8,
            REGS[r.below(6) as usize] as u8,
        );
        let x = f32::from_bits(((r.below(200) as u32 + 20) << 23) | (r.next() as u32 & 0x7F_FFFF));
        let exp = ((x.to_bits() >> 23) as i32) - 127;
        let h = libm::exp2f((exp - 24) as f32) * (1.0 + libm::exp2f(-18.0));
        t.set_grf_f(ra, e, x);
        t.set_grf_f(rb, e, h);
        t.set_grf_f(rc, e, 1.0 - libm::exp2f(-18.0));
    }
    // Lanes where src1 * src2 nearly cancels src0 near the bottom of the
    // normal range: results around 2^-126, normal, denormal or zero.
    for _ in 0..4 {
        let (e, ra) = (r.below(8) as usize, REGS[r.below(6) as usize] as u8);
        let (rb, rc) = (
            REGS[r.below(6) as usize] as u8,
            REGS[r.below(6) as usize] as u8,
        );
        let a = libm::exp2f(-(r.below(20) as f32) - 95.0) * (1.0 + r.below(1000) as f32 / 1000.0);
        let b = 1.0 + r.below(1 << 20) as f32 / (1 << 20) as f32;
        t.set_grf_f(ra, e, a);
        t.set_grf_f(rb, e, b);
        t.set_grf_f(rc, e, -(a / b));
    }
}

/// A second thread in the same state.
fn copy(t: &Thread) -> Thread {
    Thread {
        platform: t.platform,
        regs: t.regs.clone(),
        acc: t.acc.clone(),
        ip: t.ip,
        pcip: t.pcip,
        parked: t.parked,
        broken: t.broken,
        call_mask: t.call_mask,
        hint: t.hint,
        fp: t.fp,
        executed: t.executed,
        ended: t.ended,
    }
}

/// Runs every operation with the generic handler.
fn generic(t: &mut Thread, prog: &Program) {
    for op in &prog.ops {
        let r = super::super::exec(t, op);
        assert!(r.is_ok(), "{r:?}");
    }
}

/// Registers and accumulator of two threads are the same. The
/// accumulator's extra precision only exists on Gen4/G45 (Gen6+ keep F at
/// F precision: what is kept there is never read), and is compared bit
/// for bit (a -0 must stay -0), except that a NaN may differ in payload
/// (every NaN result is made canonical before it is stored).
fn same(a: &Thread, b: &Thread, what: &str) {
    assert!(a.regs == b.regs, "{what}: registers differ");
    if a.platform > IsaGen::G45 {
        return;
    }
    for (x, y) in a.acc.f.iter().zip(b.acc.f.iter()) {
        assert!(
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
            "{what}: accumulator {x:e} vs {y:e}"
        );
    }
}

fn check_platform(p: IsaGen, seed: u64) {
    let mut r = Rng(seed);
    for round in 0..1000 {
        let simd = if r.below(2) == 0 { 8 } else { 16 };
        let n = 1 + r.below(12);
        let text: Vec<String> = (0..n).map(|_| instruction(&mut r, p, simd)).collect();
        let src = text.join("\n");
        let bytes = match baregpu_isa::text::assemble(p, &src) {
            Ok(b) => b,
            Err(e) => panic!("{e:?} in\n{src}"),
        };
        let prog = Program::new(p, &bytes);
        assert!(prog.ops.iter().all(|op| fast(op).is_some()), "{src}");
        let mut base = Thread::new(p);
        fill(&mut base, &mut r);
        // Controls: channels off, and on Gen7 the rounding mode, ALT mode
        // and the accumulator disable of cr0.0.
        if r.below(3) == 0 {
            base.set_dispatch_mask(r.next() as u32);
        }
        let mut cr0 = 0u32;
        if r.below(6) == 0 {
            cr0 |= 1;
        }
        if r.below(6) == 0 {
            cr0 |= 2;
        }
        if p >= IsaGen::Gen7 {
            cr0 |= (r.below(4) as u32) << 4;
        }
        base.set_cr0(0, cr0);
        let what = format!("{} round {round} cr0 {cr0:#x}:\n{src}", p.name());
        compare_runs(&prog, &base, &what);
    }
}

/// Runs `prog` from `base` three ways: in straight-line blocks, one step
/// at a time, and with the generic handlers; all three must leave the
/// same registers and accumulator, and the first two the same IP and
/// instruction count.
fn compare_runs(prog: &Program, base: &Thread, what: &str) {
    let mut blocks = copy(base);
    let mut steps = copy(base);
    let mut reference = copy(base);
    let sf = &mut NoSharedFunctions::default();
    let end = blocks.run(prog, sf, 1000);
    assert_eq!(end, Ok(crate::eu::Step::EndOfKernel), "{what}");
    for _ in 0..prog.len() {
        assert!(steps.step(prog, sf).is_ok());
    }
    generic(&mut reference, prog);
    same(&blocks, &reference, what);
    same(&steps, &reference, what);
    assert_eq!(blocks.executed, steps.executed);
    assert_eq!(blocks.ip, steps.ip);
}

#[test]
fn kernels_match_the_generic_path_gen75() {
    check_platform(IsaGen::Gen75, 1);
}

#[test]
fn kernels_match_the_generic_path_gen7() {
    check_platform(IsaGen::Gen7, 2);
}

#[test]
fn kernels_match_the_generic_path_gen6() {
    check_platform(IsaGen::Gen6, 3);
}

#[test]
fn kernels_match_the_generic_path_g45() {
    check_platform(IsaGen::G45, 4);
}

/// The portable lane loops too, on a host where the wide ones are chosen
/// (elsewhere the tests above already ran them).
#[test]
fn portable_kernels_match_the_generic_path() {
    super::PORTABLE_ONLY.store(true, core::sync::atomic::Ordering::Relaxed);
    for (p, seed) in [(IsaGen::Gen75, 5), (IsaGen::Gen6, 6), (IsaGen::G45, 7)] {
        check_platform(p, seed);
    }
    super::PORTABLE_ONLY.store(false, core::sync::atomic::Ordering::Relaxed);
}

/// A compressed instruction whose second half reads what the first half
/// wrote is not fused (the halves run in order).
#[test]
fn overlapping_halves_are_not_fused() {
    let p = IsaGen::G45;
    let fused = |src: &str| {
        let bytes = baregpu_isa::text::assemble(p, src).expect("assembles");
        let prog = Program::new(p, &bytes);
        super::choose_lite(p, &prog.ops[0], prog.ops.get(1)).is_some()
    };
    assert!(fused(
        "add (16|M0) r20.0<1>:f r10.0<8;8,1>:f r12.0<8;8,1>:f {Compr}"
    ));
    // The first half writes r11, the second half reads r11.
    assert!(!fused(
        "add (16|M0) r11.0<1>:f r10.0<8;8,1>:f r12.0<8;8,1>:f {Compr}"
    ));
}

/// A budget that runs out inside a straight-line block stops where
/// stepping one instruction at a time stops.
#[test]
fn budget_runs_out_inside_a_block() {
    let p = IsaGen::Gen75;
    let src: Vec<String> = (0..10)
        .map(|i| format!("add (8|M0) r{}.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f", 10 + i))
        .collect();
    let bytes = baregpu_isa::text::assemble(p, &src.join("\n")).expect("assembles");
    let prog = Program::new(p, &bytes);
    let sf = &mut NoSharedFunctions::default();
    let mut stepped = Thread::new(p);
    for _ in 0..7 {
        assert_eq!(stepped.step(&prog, sf), Ok(crate::eu::Step::Ran));
    }
    let mut blocks = Thread::new(p);
    let r = blocks.run(&prog, sf, 7);
    assert_eq!(
        r,
        Err(crate::eu::EuError::new(
            stepped.ip,
            crate::eu::ErrorKind::Budget
        ))
    );
    assert_eq!(blocks.ip, stepped.ip);
    assert_eq!(blocks.executed, 7);
}

/// An instruction that fails inside a block reports its own IP; the
/// instructions before it ran and count, as when run one by one.
#[test]
fn an_error_inside_a_block_stops_there() {
    let p = IsaGen::Gen75;
    // r127 with 16 channels leaves the register file: a bad operand.
    let src = "add (8|M0) r10.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n\
               add (8|M0) r11.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n\
               add (16|M0) r12.0<1>:f r127.0<16;16,1>:f r3.0<16;16,1>:f\n\
               add (8|M0) r13.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f";
    let bytes = baregpu_isa::text::assemble(p, src).expect("assembles");
    let prog = Program::new(p, &bytes);
    let sf = &mut NoSharedFunctions::default();
    let mut stepped = Thread::new(p);
    for _ in 0..2 {
        assert_eq!(stepped.step(&prog, sf), Ok(crate::eu::Step::Ran));
    }
    let bad_ip = stepped.ip;
    let want = stepped.step(&prog, sf);
    assert!(
        matches!(&want, Err(e) if e.ip == bad_ip && matches!(e.kind, crate::eu::ErrorKind::BadOperand(_))),
        "{want:?}"
    );
    let mut blocks = Thread::new(p);
    assert_eq!(blocks.run(&prog, sf, 100), want);
    assert_eq!(blocks.ip, bad_ip);
    assert_eq!(blocks.executed, 2);
}

/// Gen4/G45 arithmetic writes the accumulator implicitly; a block skips
/// the writes the next instruction overwrites. Wherever the budget stops
/// a block, the accumulator is what stepping one instruction at a time
/// leaves (the last instruction run wrote it).
#[test]
fn dead_accumulator_writes_stay_invisible_when_the_budget_cuts() {
    let p = IsaGen::G45;
    let src = "add (16|M0) r20.0<1>:f r10.0<8;8,1>:f r12.0<8;8,1>:f {Compr}\n\
               mul (16|M0) r22.0<1>:f r20.0<8;8,1>:f r12.0<8;8,1>:f {Compr}\n\
               mul (8|M0) r24.0<1>:f r22.0<8;8,1>:f r14.0<8;8,1>:f\n\
               add (16|M0) r26.0<1>:f r24.0<8;8,1>:f r10.0<0;1,0>:f {Compr}\n\
               add (16|M0) r20.0<1>:f r26.0<8;8,1>:f r12.0<8;8,1>:f {Compr}";
    let bytes = baregpu_isa::text::assemble(p, src).expect("assembles");
    let prog = Program::new(p, &bytes);
    // The first instruction's write is dead (the next covers it); the
    // SIMD8 mul's is not followed by a narrower one, so the SIMD16 add
    // after it overwrites it: dead too.
    assert!(prog.lite[0].flat.acc_dead && prog.lite[2].flat.acc_dead);
    let sf = &mut NoSharedFunctions::default();
    let mut r = Rng(7);
    let mut base = Thread::new(p);
    fill(&mut base, &mut r);
    for budget in 1..=prog.len() as u64 {
        let mut stepped = copy(&base);
        for _ in 0..budget {
            assert_eq!(stepped.step(&prog, sf), Ok(crate::eu::Step::Ran));
        }
        let mut blocks = copy(&base);
        let _ = blocks.run(&prog, sf, budget);
        let what = format!("budget {budget}");
        same(&blocks, &stepped, &what);
        assert_eq!(blocks.ip, stepped.ip, "{what}");
    }
}

/// One random dword integer instruction of the integer fast path's forms
/// (add, shl, and, or, mov; D/UD; rows, replicated dwords, immediates).
fn int_instruction(r: &mut Rng, simd: u32) -> String {
    let ty = |r: &mut Rng| if r.below(2) == 0 { "d" } else { "ud" };
    let src = |r: &mut Rng| match r.below(4) {
        0 => format!("r{}.{}<0;1,0>:{}", reg(r), r.below(8), ty(r)),
        1 => format!("{:#x}:{}", r.next() as u32, ty(r)),
        _ => format!("r{}.0<8;8,1>:{}", reg(r), ty(r)),
    };
    let op = ["add", "shl", "and", "or", "mov"][r.below(5) as usize];
    let nomask = if r.below(5) == 0 { "(W) " } else { "" };
    let (d, a) = (reg(r), src(r));
    let dty = ty(r);
    if op == "mov" {
        // An immediate mov source needs a register-typed form: keep it.
        return format!("{nomask}mov ({simd}|M0) r{d}.0<1>:{dty} {a}");
    }
    // src1 may be an immediate, src0 not (one immediate, in src1).
    let a = if a.starts_with("0x") {
        format!("r{}.0<8;8,1>:{}", reg(r), ty(r))
    } else {
        a
    };
    let b = src(r);
    format!("{nomask}{op} ({simd}|M0) r{d}.0<1>:{dty} {a} {b}")
}

/// Random integer programs run the same through blocks, single steps and
/// the generic handlers; on Gen6+ the fast path is the one that runs.
#[test]
fn integer_kernels_match_the_generic_path() {
    for (p, seed) in [
        (IsaGen::Gen6, 11),
        (IsaGen::Gen7, 12),
        (IsaGen::Gen75, 13),
        (IsaGen::G45, 14),
    ] {
        let mut r = Rng(seed);
        let mut fast_seen = 0;
        for round in 0..500 {
            let simd = if r.below(2) == 0 { 8 } else { 16 };
            let n = 1 + r.below(10);
            let src: Vec<String> = (0..n).map(|_| int_instruction(&mut r, simd)).collect();
            let src = src.join("\n");
            let bytes = match baregpu_isa::text::assemble(p, &src) {
                Ok(b) => b,
                Err(e) => panic!("{e:?} in\n{src}"),
            };
            let prog = Program::new(p, &bytes);
            fast_seen += prog.lite.iter().filter(|l| l.flat.lanes != 0).count();
            let mut base = Thread::new(p);
            fill(&mut base, &mut r);
            if r.below(3) == 0 {
                base.set_dispatch_mask(r.next() as u32);
            }
            let what = format!("{} round {round}:\n{src}", p.name());
            compare_runs(&prog, &base, &what);
        }
        if p >= IsaGen::Gen6 {
            assert!(fast_seen > 1000, "{}: {fast_seen} fast entries", p.name());
        }
    }
}
