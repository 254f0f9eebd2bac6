//! Issue 6 acceptance, robustness: random streams of *valid* instructions
//! (every instruction passes the toolkit's validator, which encodes the
//! manuals' rules) with random registers, immediates, saturation,
//! condition modifiers, predication, register contents, float modes and
//! dispatch masks never panic the host. A straight stream runs to its end;
//! a stream closed by a backward `jmpi` is stopped by the budget.
//! (eu_random.rs covers streams of merely decodable words.)

mod eu_accept;

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{Addr, Body, CondMod, Instruction, MathFn, Opcode, PredCtrl, Src};
use baregpu_isa::validate::{Severity, validate};
use baregpu_isa::{encode_bytes, text};
use baregpu_soft::eu::{ErrorKind, Harness, Step};
use eu_accept::combos::{self, Combo};
use eu_accept::values::{Rng, immediate};

const CONDS: [CondMod; 8] = [
    CondMod::None,
    CondMod::Z,
    CondMod::Nz,
    CondMod::G,
    CondMod::Ge,
    CondMod::L,
    CondMod::Le,
    CondMod::O,
];

fn renumber(a: &mut Addr, nr: u8) {
    if let Addr::Direct { nr: n, .. } = a {
        *n = nr;
    }
}

fn renumber_src(s: &mut Src, nr: u8, rng: &mut Rng, pick: usize) {
    match s {
        Src::Reg(r) if r.file == baregpu_isa::inst::RegFile::Grf => renumber(&mut r.addr, nr),
        Src::Imm(i) => i.bits = immediate(i.ty, rng, pick),
        _ => {}
    }
}

/// A random valid variant of `c`: other registers, immediates and
/// controls; `None` if the validator rejects the draw.
fn variant(c: &Combo, rng: &mut Rng) -> Option<Instruction> {
    let mut i = c.inst;
    let pick = rng.below(6);
    let mut reg = || 1 + rng.below(100) as u8;
    let (d, s0, s1, s2) = (reg(), reg(), reg(), reg());
    match &mut i.body {
        Body::Alu(a) => {
            renumber(&mut a.dst.addr, d);
            renumber_src(&mut a.src0, s0, rng, pick);
            renumber_src(&mut a.src1, s1, rng, pick);
        }
        Body::Math(m) => {
            renumber(&mut m.dst.addr, d);
            renumber_src(&mut m.src0, s0, rng, pick);
            renumber_src(&mut m.src1, s1, rng, pick);
        }
        Body::ThreeSrc(t) => {
            renumber(&mut t.dst.addr, d);
            for (k, nr) in [s0, s1, s2].into_iter().enumerate() {
                renumber_src(&mut t.src[k], nr, rng, pick);
            }
        }
        _ => return None,
    }
    if c.sat_ok && rng.below(3) == 0 {
        i.saturate = true;
    }
    if !matches!(c.op, Opcode::Cmp | Opcode::Cmpn | Opcode::Sel) && rng.below(3) == 0 {
        i.cond_mod = CONDS[rng.below(CONDS.len())];
    }
    if c.op == Opcode::Cmp || c.op == Opcode::Cmpn {
        i.cond_mod = CONDS[1 + rng.below(CONDS.len() - 1)];
    }
    if c.op != Opcode::Sel && rng.below(4) == 0 {
        i.pred_ctrl = PredCtrl::Normal;
        i.pred_inv = rng.below(2) == 0;
    }
    let v = validate(c.p, &i);
    v.iter().all(|x| x.severity != Severity::Error).then_some(i)
}

/// The encoding of a backward `jmpi` over `n` instructions to the start.
fn jump_back(p: IsaGen, n: usize) -> Vec<u8> {
    let src = format!("TOP:\n{}jmpi (1|M0) TOP {{NoMask}}\n", "nop\n".repeat(n));
    let bytes = text::assemble(p, &src).unwrap_or_else(|e| panic!("{p}: {e}"));
    assert_eq!(
        bytes.len(),
        16 * (n + 1),
        "{p}: native (uncompacted) encodings"
    );
    bytes[16 * n..].to_vec()
}

#[test]
fn random_valid_streams_end_or_meet_the_budget() {
    for p in IsaGen::ALL {
        // movi needs an indirect source, which the validator does not
        // demand (000 lines 12290-12300); its own test is in
        // eu_accept_forms.rs.
        let pool: Vec<Combo> = combos::all(p)
            .into_iter()
            .filter(|c| c.op != Opcode::Movi)
            .collect();
        let mut rng = Rng(0xB00 + p as u64);
        let mut ended = 0;
        let mut stopped = 0;
        let mut errors = Vec::new();
        for stream in 0..300 {
            // ALT mode, and on Gen7 the rounding and DF denormal modes.
            let cr0 = rng.u32() & if p >= IsaGen::Gen7 { 0x71 } else { 0x1 };
            let alt = cr0 & 1 != 0;
            let len = 1 + rng.below(40);
            let mut bytes = Vec::new();
            let mut n = 0;
            while n < len {
                let c = &pool[rng.below(pool.len())];
                // FDIV is not supported in ALT mode (003 line 99335).
                if alt && c.func == Some(MathFn::Fdiv) {
                    continue;
                }
                if let Some(i) = variant(c, &mut rng)
                    && let Ok(b) = encode_bytes(p, &i)
                {
                    bytes.extend_from_slice(&b);
                    n += 1;
                }
            }
            let looped = stream % 4 == 0;
            if looped {
                bytes.extend(jump_back(p, n));
            }
            let mut h = Harness::new(p);
            h.load(&bytes);
            let mut grf = Rng(rng.next());
            for b in h.thread.grf_mut().iter_mut() {
                *b = (grf.u32() & 0xFF) as u8;
            }
            h.thread.set_dispatch_mask(rng.u32() | 1);
            h.thread.set_flag(0, rng.u32());
            h.thread.set_cr0(0, cr0);
            match h.run(5_000) {
                Ok(Step::EndOfKernel) if !looped => ended += 1,
                Err(e) if looped && e.kind == ErrorKind::Budget => stopped += 1,
                other => errors.push(format!("{p} stream {stream} (looped {looped}): {other:?}")),
            }
        }
        println!("{p}: {ended} streams ended, {stopped} stopped by the budget");
        assert!(errors.is_empty(), "{}", errors.join("\n"));
    }
}
