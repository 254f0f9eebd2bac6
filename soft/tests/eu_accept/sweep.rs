//! Runs one allowed combination on the interpreter with generated inputs
//! and compares every lane with the model.

use baregpu_isa::inst::{
    Alu, Body, CondMod, Dst, Imm, Instruction, MathFn, Opcode, RegFile, RegSrc, Src, Type, arf,
};
use baregpu_isa::{IsaGen, encode_bytes};
use baregpu_soft::eu::{Harness, Step};

use super::combos::{Combo, DST_REG, SRC_REG};
use super::model::{self, Ctx, Expect, Lane, Val, Want};
use super::support::Mode;
use super::values::{Rng, element, immediate};

/// Register holding the values preloaded into the accumulator.
const ACC_REG: u8 = 36;

/// Element size as regions count it: Ivy Bridge DF counts 4-byte halves
/// (001 lines 660-663).
fn esize(p: IsaGen, ty: Type) -> usize {
    if p == IsaGen::Gen7 && ty == Type::Df {
        4
    } else {
        usize::from(ty.size())
    }
}

/// Channels a combination computes: every channel, or every other one for
/// Ivy Bridge DF (a DF element per channel pair, 001 lines 660-663).
fn channels(c: &Combo) -> Vec<usize> {
    let df = c.dst == Type::Df || c.srcs.iter().any(|s| s.ty == Type::Df);
    let step = if c.p == IsaGen::Gen7 && df { 2 } else { 1 };
    (0..usize::from(c.form.exec)).step_by(step).collect()
}

/// GRF byte offset of source `i`'s element for channel `ch`.
fn src_off(c: &Combo, i: usize, ch: usize) -> usize {
    let es = esize(c.p, c.srcs[i].ty);
    let base = usize::from(SRC_REG[i]) * 32;
    let f = c.form;
    if f.align16 {
        base + if f.scalar { (ch % 4) * es } else { ch * es }
    } else if f.exec == 1 || f.scalar {
        base
    } else {
        base + ch * es
    }
}

fn dst_off(c: &Combo, ch: usize) -> usize {
    let es = esize(c.p, c.dst);
    let stride = if c.form.align16 {
        1
    } else {
        usize::from(c.form.dst_stride)
    };
    usize::from(DST_REG) * 32 + ch * stride * es
}

fn load(bytes: &[u8], off: usize, size: usize) -> u64 {
    let mut v = 0u64;
    for k in 0..size {
        v |= u64::from(bytes.get(off + k).copied().unwrap_or(0)) << (8 * k);
    }
    v
}

fn store(bytes: &mut [u8], off: usize, size: usize, v: u64) {
    for k in 0..size {
        if let Some(b) = bytes.get_mut(off + k) {
            *b = (v >> (8 * k)) as u8;
        }
    }
}

/// The accumulator type of a mac/sada2/mach run: the execution type (000
/// lines 8423-8434: the accumulator holds it).
fn acc_type(c: &Combo) -> Type {
    let tys: Vec<Type> = c.srcs.iter().map(|s| s.ty).collect();
    if model::float_exec(&tys).is_some() {
        Type::F
    } else if c.op == Opcode::Mach {
        c.dst
    } else if tys.iter().any(|t| matches!(t, Type::D | Type::Ud)) {
        Type::D
    } else {
        Type::W
    }
}

/// The instruction that fills the accumulator before mac/sada2 (a move
/// from ACC_REG) or mach (the paired `mul acc0`, 000 lines 12178-12184).
fn acc_setup(c: &Combo, inst: &Instruction) -> Option<Instruction> {
    let ty = acc_type(c);
    let e = c.form.exec;
    let dst = Dst::new(RegFile::Arf, arf::ACC0, 0, ty, 1);
    let mut pre = match c.op {
        Opcode::Mac | Opcode::Sada2 => {
            let src = if e == 1 {
                RegSrc::grf(ACC_REG, 0, ty, 0, 1, 0)
            } else {
                RegSrc::grf(ACC_REG, 0, ty, e, e, 1)
            };
            let mut i = Instruction::new(
                Opcode::Mov,
                e,
                inst.group,
                Body::Alu(Alu {
                    dst,
                    src0: Src::Reg(src),
                    src1: Src::Reg(RegSrc::null(ty)),
                }),
            );
            i.access_mode = baregpu_isa::inst::AccessMode::Align1;
            i
        }
        Opcode::Mach => {
            let Body::Alu(a) = inst.body else {
                return None;
            };
            let mut i = *inst;
            i.opcode = Opcode::Mul;
            i.acc_wr_ctrl = false;
            i.body = Body::Alu(Alu { dst, ..a });
            i
        }
        _ => return None,
    };
    pre.saturate = false;
    Some(pre)
}

/// Outcome counters of a sweep.
#[derive(Default, Debug)]
pub struct Tally {
    pub combos: usize,
    pub lanes_checked: usize,
    pub lanes_undefined: usize,
    /// Combinations with no checked lane (all undefined), by reason.
    pub undefined: std::collections::BTreeMap<&'static str, usize>,
    pub failures: Vec<String>,
    /// Combinations the validator accepts and the encoder refuses.
    pub unencodable: std::collections::BTreeMap<String, usize>,
}

fn val_text(v: Val) -> String {
    match v {
        Val::I(x) => format!("{x}"),
        Val::F(b) => format!("{:e}({b:#010x})", f32::from_bits(b)),
        Val::D(b) => format!("{:e}({b:#018x})", f64::from_bits(b)),
    }
}

fn lane_text(l: &Lane, c: &Combo) -> String {
    let v: Vec<String> = (0..c.srcs.len()).map(|i| val_text(l.srcs[i])).collect();
    let mut s = v.join(", ");
    match c.op {
        Opcode::Line | Opcode::Pln => {
            let q: Vec<String> = l.pqr.iter().map(|v| val_text(*v)).collect();
            s += &format!(
                " src0.0-3 [{}] next src1 {}",
                q.join(", "),
                val_text(l.next[1])
            );
        }
        Opcode::Mac | Opcode::Sada2 => s += &format!(" acc {}", val_text(l.acc)),
        Opcode::Sel => s += &format!(" flag {}", l.flag),
        _ => {}
    }
    s
}

/// One run of `combo` with fresh inputs: `sat` sets the saturate bit,
/// `cond` the condition modifier of cmp/cmpn.
pub fn run(combo: &Combo, sat: bool, cond: CondMod, rng: &mut Rng, pick: usize, t: &mut Tally) {
    let mode = Ctx::new(combo.p, sat).mode;
    run_in(combo, sat, cond, mode, rng, pick, t)
}

/// `run` with the F rounding mode `mode` set in cr0.0[5:4] (Gen7: 00
/// nearest even, 01 up, 10 down, 11 toward zero; 001 lines 3251-3260).
pub fn run_in(
    combo: &Combo,
    sat: bool,
    cond: CondMod,
    mode: Mode,
    rng: &mut Rng,
    pick: usize,
    t: &mut Tally,
) {
    let p = combo.p;
    let mut inst = combo.inst;
    inst.saturate = sat;
    if matches!(combo.op, Opcode::Cmp | Opcode::Cmpn) {
        inst.cond_mod = cond;
    }
    // Immediates of this run.
    let mut imms = [0u64; 3];
    for (i, s) in combo.srcs.iter().enumerate() {
        if s.imm {
            imms[i] = if s.ty == Type::Df {
                element(Type::Df, rng, pick)
            } else {
                immediate(s.ty, rng, pick)
            };
        }
    }
    set_imms(&mut inst, combo, &imms);
    // Haswell dim: bits 90:89 are immediate bits 26:25 (the codec keeps
    // them in the flag field).
    if combo.op == Opcode::Dim {
        inst.flag.subreg = ((imms[0] >> 25) & 1) as u8;
        inst.flag.reg = ((imms[0] >> 26) & 1) as u8;
    }
    let mut words = Vec::new();
    if let Some(pre) = acc_setup(combo, &inst) {
        match encode_bytes(p, &pre) {
            Ok(b) => words.extend_from_slice(&b),
            Err(e) => {
                t.failures.push(format!(
                    "{}: accumulator setup does not encode: {e:?}",
                    combo.key()
                ));
                return;
            }
        }
    }
    match encode_bytes(p, &inst) {
        Ok(b) => words.extend_from_slice(&b),
        Err(e) => {
            // The validator accepts what the codec cannot encode: only
            // acceptable where the manuals define nothing anyway.
            let ctx = Ctx::new(p, sat);
            let l = lane(combo, &[], &imms, 0, 0);
            match model::expect(combo, &ctx, &l).dst {
                Want::Undef(_) => {
                    *t.unencodable.entry(combo.key()).or_default() += 1;
                }
                _ => t
                    .failures
                    .push(format!("{}: does not encode: {e:?}", combo.key())),
            }
            return;
        }
    }
    // The register image: sources (and the next register, for pln and
    // two-register regions), the accumulator values, a marked destination.
    let mut image = vec![0u8; 128 * 32];
    for (i, s) in combo.srcs.iter().enumerate() {
        if s.imm {
            continue;
        }
        let es = usize::from(s.ty.size());
        let base = usize::from(SRC_REG[i]) * 32;
        for k in 0..(128 / es) {
            let v = element(s.ty, rng, pick + k);
            store(&mut image, base + k * es, es, v);
        }
    }
    let acc_ty = acc_type(combo);
    let acc_es = usize::from(acc_ty.size());
    for k in 0..(64 / acc_es) {
        // Moderate accumulator values keep mac/sada2 results in range.
        let v = match acc_ty {
            Type::F => u64::from(super::values::random_f(rng) & 0xBFFF_FFFF),
            _ => u64::from(rng.u32() & 0x3FFF),
        };
        store(
            &mut image,
            usize::from(ACC_REG) * 32 + k * acc_es,
            acc_es,
            v,
        );
    }
    for b in &mut image[usize::from(DST_REG) * 32..usize::from(DST_REG + 2) * 32] {
        *b = 0xA5;
    }
    let flags = rng.u32() & 0xFFFF;

    let mut h = Harness::new(p);
    h.load(&words);
    h.thread.set_dispatch_mask(0xFFFF);
    h.thread.grf_mut()[..image.len()].copy_from_slice(&image);
    h.thread.set_flag(0, flags);
    if p >= IsaGen::Gen7 {
        let code = match mode {
            Mode::Rne => 0,
            Mode::Ru => 1,
            Mode::Rd => 2,
            Mode::Rtz => 3,
        };
        h.thread.set_cr0(0, code << 4);
    }
    let r = h.run(16);
    let ctx = Ctx {
        cond,
        mode,
        ..Ctx::new(p, sat)
    };
    let lanes = channels(combo);
    let expects: Vec<(usize, Lane, Expect)> = lanes
        .iter()
        .map(|&ch| {
            let l = lane(combo, &image, &imms, ch, flags);
            let e = model::expect(combo, &ctx, &l);
            (ch, l, e)
        })
        .collect();
    let all_undef = expects
        .iter()
        .all(|(_, _, e)| matches!(e.dst, Want::Undef(_)) && e.flag.is_none() && e.second.is_none());
    if r != Ok(Step::EndOfKernel) {
        if !all_undef {
            t.failures.push(format!(
                "{} sat={sat}: did not run to the end: {r:?}",
                combo.key()
            ));
        }
        return;
    }
    let grf = h.thread.grf().to_vec();
    let f0 = h.thread.flag(0);
    let dsize = usize::from(combo.dst.size());
    for (ch, l, e) in &expects {
        let mut checked = false;
        if !matches!(e.dst, Want::Undef(_)) {
            checked = true;
            let mut got = load(&grf, dst_off(combo, *ch), dsize);
            if matches!(combo.op, Opcode::Cmp | Opcode::Cmpn) {
                got &= 1;
            }
            if !model::accepts(&e.dst, got, combo.dst, e.frac) {
                t.failures.push(format!(
                    "{} sat={sat} cond={cond:?} ch{ch}: inputs [{}] want {:?} got {got:#x}",
                    combo.label(),
                    lane_text(l, combo),
                    e.dst
                ));
            }
        }
        if let Some(f) = e.flag {
            checked = true;
            let got = f0 >> ch & 1 != 0;
            if got != f {
                t.failures.push(format!(
                    "{} cond={cond:?} ch{ch}: inputs [{}] flag want {f} got {got}",
                    combo.key(),
                    lane_text(l, combo)
                ));
            }
        }
        if let Some(w) = &e.second {
            checked = true;
            let got = load(&grf, dst_off(combo, *ch) + 32, dsize);
            if !model::accepts(w, got, combo.dst, false) {
                t.failures.push(format!(
                    "{} ch{ch}: inputs [{}] second register want {w:?} got {got:#x}",
                    combo.key(),
                    lane_text(l, combo)
                ));
            }
        }
        if checked {
            t.lanes_checked += 1;
        } else {
            t.lanes_undefined += 1;
        }
    }
    if all_undef
        && let Some((_, _, e)) = expects.first()
        && let Want::Undef(why) = e.dst
    {
        *t.undefined.entry(why).or_default() += 1;
    }
}

/// Writes this run's immediate bits into the instruction.
fn set_imms(inst: &mut Instruction, combo: &Combo, imms: &[u64; 3]) {
    let put = |s: &mut Src, i: usize| {
        if let Src::Imm(im) = s {
            *s = Src::Imm(Imm {
                ty: im.ty,
                bits: imms[i],
            });
        }
    };
    match &mut inst.body {
        Body::Alu(a) => {
            put(&mut a.src0, 0);
            if combo.srcs.len() > 1 {
                put(&mut a.src1, 1);
            }
        }
        Body::Math(m) => {
            put(&mut m.src0, 0);
            if combo.srcs.len() > 1 {
                put(&mut m.src1, 1);
            }
        }
        _ => {}
    }
}

/// The inputs of channel `ch`.
fn lane(combo: &Combo, image: &[u8], imms: &[u64; 3], ch: usize, flags: u32) -> Lane {
    let read_at = |i: usize, c: usize, extra: usize| -> Val {
        match combo.srcs.get(i) {
            None => Val::I(0),
            Some(s) if s.imm => model::read(s.ty, imms[i], c),
            Some(s) => {
                let size = usize::from(s.ty.size());
                model::read(s.ty, load(image, src_off(combo, i, c) + extra, size), c)
            }
        }
    };
    let srcs = [read_at(0, ch, 0), read_at(1, ch, 0), read_at(2, ch, 0)];
    let g = ch / 4 * 4;
    let g0 = core::array::from_fn(|k| read_at(0, g + k, 0));
    let g1 = core::array::from_fn(|k| read_at(1, g + k, 0));
    let pqr = core::array::from_fn(|k| match combo.srcs.first() {
        Some(s) if !s.imm => {
            let size = usize::from(s.ty.size());
            model::read(
                s.ty,
                load(image, usize::from(SRC_REG[0]) * 32 + k * size, size),
                k,
            )
        }
        _ => Val::I(0),
    });
    let next = if combo.op == Opcode::Pln {
        [Val::I(0), read_at(1, ch, 32)]
    } else {
        [read_at(0, ch + 1, 0), read_at(1, ch + 1, 0)]
    };
    let acc_ty = acc_type(combo);
    let acc_es = usize::from(acc_ty.size());
    let acc = model::read(
        acc_ty,
        load(image, usize::from(ACC_REG) * 32 + ch * acc_es, acc_es),
        ch,
    );
    let acc = if combo.form.exec == 1 {
        model::read(acc_ty, load(image, usize::from(ACC_REG) * 32, acc_es), 0)
    } else {
        acc
    };
    Lane {
        srcs,
        acc,
        flag: flags >> ch & 1 != 0,
        channel: ch,
        g0,
        g1,
        pqr,
        next,
    }
}

/// Whether a math function writes a second register.
pub fn two_results(f: Option<MathFn>) -> bool {
    f == Some(MathFn::IntDivQuotientRemainder)
}
