//! Differential test against LLVM's R600 backend (`llc -march=r600 -mcpu=rv770`).
//!
//! Generates LLVM IR vertex and pixel shaders (seeded, deterministic), compiles each to an
//! object (`-filetype=obj`) and to assembly, then checks that
//! * every .text decodes, and re-encodes to exactly the same bytes;
//! * our LLVM-style text equals llc's, line for line;
//! * our exact text (llc's plus ` ; key=value` for what llc's syntax omits) assembles back
//!   to llc's bytes;
//! * the validator (`baregpu_r700::validate`) finds no broken rule.
//!
//! Normalisations of llc's assembly (nothing else is changed):
//! 1. only the lines between the function label `k:` and `.Lfunc_end0:` are compared;
//! 2. lines that are comments (`;` first) or directives (`.` first) are dropped;
//! 3. the one leading tab llc puts before every line is removed (trailing spaces stay);
//! 4. literal dwords: llc prints the same bits sometimes as a signed and sometimes as an
//!    unsigned integer (however the backend built the immediate); values above
//!    i32::MAX are rewritten to their signed form, which is what we print.
//!
//! llc 14 sometimes places predicated ALU instructions into the CF stream (its text then
//! shows ALU lines before the first clause header) and emits a program whose CF words
//! overrun the binary. Those shaders are not compared; the test checks that the decoder
//! rejects them with an error instead.
//!
//! Global memory loads and stores do not select for RV770 in LLVM 14 (they are Evergreen
//! RAT/VTX patterns), so the shaders read their inputs from registers, constant buffers
//! (kcache) and textures, and write through exports (`llvm.r600.store.swizzle`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use baregpu_r700::emu::{self, EmuError, Grid, Options, Sampler, TexResource};
use baregpu_r700::program::Program;
use baregpu_r700::{asm, llvm_text};

/// Runs a program over one wavefront with every constant buffer, texture and sampler
/// bound (zeros and a small float texture) and the exports going to memory.
fn run_on_emulator(program: &Program) -> Result<(), EmuError> {
    let mut consts = vec![0u8; 1 << 16];
    let mut out = vec![0u8; 64 * 64 * 16];
    let mut tex: Vec<u8> = (0..8 * 8 * 4)
        .flat_map(|i: u32| (i as f32).to_le_bytes())
        .collect();
    let mut opts = Options {
        budget: 100_000,
        export_base: [Some(emu::address(1, 0)); 3],
        ..Options::default()
    };
    for cb in &mut opts.const_buffers {
        *cb = Some(emu::ConstBuffer {
            address: emu::address(0, 0),
            size: 1 << 16,
        });
    }
    for id in 0..18u8 {
        opts.tex_resources.push((
            id,
            TexResource::linear(1, emu::address(2, 0), [8, 8], 8, 35, 0, false),
        ));
        opts.samplers.push((id, Sampler::point(0)));
    }
    emu::run_program(
        program,
        &mut [&mut consts, &mut out, &mut tex],
        Grid {
            groups: [1, 1, 1],
            group_size: [64, 1, 1],
        },
        &opts,
    )
    .map(|_| ())
}

/// llc-14 (or llc), installed first by `r700/ensure-oracles.sh` when it is
/// missing (as root or with password-less sudo; otherwise it says how).
fn llc() -> &'static str {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/ensure-oracles.sh");
    let status = Command::new("sh")
        .arg(script)
        .status()
        .expect("run r700/ensure-oracles.sh");
    assert!(
        status.success(),
        "r700/ensure-oracles.sh could not install llvm-14"
    );
    for c in ["llc-14", "llc"] {
        if Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return c;
        }
    }
    panic!(
        "neither llc-14 nor llc found: install the Debian package llvm-14 (apt-get install llvm-14)"
    );
}

/// xorshift64*: the kernels are the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() >> 33) as usize % n
    }
}

/// Builds one shader's IR body: a pool of f32 and i32 SSA values grown by random ops.
struct Gen {
    rng: Rng,
    body: String,
    n: usize,
    f: Vec<String>,
    i: Vec<String>,
}

impl Gen {
    fn tmp(&mut self) -> String {
        self.n += 1;
        format!("%v{}", self.n)
    }
    fn pf(&mut self) -> String {
        let k = self.rng.below(self.f.len());
        self.f[k].clone()
    }
    fn pi(&mut self) -> String {
        let k = self.rng.below(self.i.len());
        self.i[k].clone()
    }
    fn emit(&mut self, s: String) {
        self.body.push_str("  ");
        self.body.push_str(&s);
        self.body.push('\n');
    }
    fn fconst(&mut self) -> String {
        const C: [&str; 8] = [
            "1.0",
            "0.5",
            "2.0",
            "-3.25",
            "0.0",
            "1.0e+01",
            "0x3FB99999A0000000",
            "-1.0",
        ];
        C[self.rng.below(C.len())].to_string()
    }
    fn step(&mut self) {
        let t = self.tmp();
        match self.rng.below(31) {
            0..=3 => {
                let ops = ["fadd", "fsub", "fmul", "fdiv"];
                let o = ops[self.rng.below(4)];
                let (a, b) = (
                    self.pf(),
                    if self.rng.below(3) == 0 {
                        self.fconst()
                    } else {
                        self.pf()
                    },
                );
                self.emit(format!("{t} = {o} float {a}, {b}"));
                self.f.push(t);
            }
            4..=6 => {
                let fns = [
                    "sqrt", "sin", "cos", "floor", "ceil", "trunc", "rint", "fabs", "exp2", "log2",
                ];
                let f = fns[self.rng.below(fns.len())];
                let a = self.pf();
                self.emit(format!("{t} = call float @llvm.{f}.f32(float {a})"));
                self.f.push(t);
            }
            7 => {
                let f = ["minnum", "maxnum"][self.rng.below(2)];
                let (a, b) = (self.pf(), self.pf());
                self.emit(format!(
                    "{t} = call float @llvm.{f}.f32(float {a}, float {b})"
                ));
                self.f.push(t);
            }
            8 => {
                // llvm.fma does not select for RV770 (no FMA unit before Evergreen).
                let f = "fmuladd";
                let (a, b, c) = (self.pf(), self.pf(), self.pf());
                self.emit(format!(
                    "{t} = call float @llvm.{f}.f32(float {a}, float {b}, float {c})"
                ));
                self.f.push(t);
            }
            9 => {
                let a = self.pf();
                self.emit(format!("{t} = fneg float {a}"));
                self.f.push(t);
            }
            10 | 11 => {
                let preds = [
                    "oeq", "ogt", "oge", "one", "olt", "ole", "ueq", "une", "ugt",
                ];
                let p = preds[self.rng.below(preds.len())];
                let (a, b, x, y) = (self.pf(), self.pf(), self.pf(), self.pf());
                let c = self.tmp();
                self.emit(format!("{c} = fcmp {p} float {a}, {b}"));
                self.emit(format!("{t} = select i1 {c}, float {x}, float {y}"));
                self.f.push(t);
            }
            12..=15 => {
                let ops = [
                    "add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr",
                ];
                let o = ops[self.rng.below(ops.len())];
                let a = self.pi();
                let b = if matches!(o, "shl" | "lshr" | "ashr") {
                    let m = self.tmp();
                    let s = self.pi();
                    self.emit(format!("{m} = and i32 {s}, 31"));
                    m
                } else if self.rng.below(3) == 0 {
                    format!("{}", self.rng.below(1000) as i32 - 300)
                } else {
                    self.pi()
                };
                self.emit(format!("{t} = {o} i32 {a}, {b}"));
                self.i.push(t);
            }
            16 => {
                let f = ["smin", "smax", "umin", "umax"][self.rng.below(4)];
                let (a, b) = (self.pi(), self.pi());
                self.emit(format!("{t} = call i32 @llvm.{f}.i32(i32 {a}, i32 {b})"));
                self.i.push(t);
            }
            17 => {
                let preds = ["eq", "ne", "sgt", "sge", "ugt", "uge", "slt", "ult"];
                let p = preds[self.rng.below(preds.len())];
                let (a, b, x, y) = (self.pi(), self.pi(), self.pi(), self.pi());
                let c = self.tmp();
                self.emit(format!("{c} = icmp {p} i32 {a}, {b}"));
                self.emit(format!("{t} = select i1 {c}, i32 {x}, i32 {y}"));
                self.i.push(t);
            }
            18 | 19 => {
                let o = ["fptosi", "fptoui"][self.rng.below(2)];
                let a = self.pf();
                self.emit(format!("{t} = {o} float {a} to i32"));
                self.i.push(t);
            }
            20 | 21 => {
                let o = ["sitofp", "uitofp"][self.rng.below(2)];
                let a = self.pi();
                self.emit(format!("{t} = {o} i32 {a} to float"));
                self.f.push(t);
            }
            22 => {
                let a = self.pi();
                self.emit(format!("{t} = bitcast i32 {a} to float"));
                self.f.push(t);
            }
            23 => {
                let a = self.pf();
                self.emit(format!("{t} = bitcast float {a} to i32"));
                self.i.push(t);
            }
            24 => {
                let (a, b) = (self.pf(), self.pf());
                self.emit(format!(
                    "{t} = call float @llvm.pow.f32(float {a}, float {b})"
                ));
                self.f.push(t);
            }
            25 => {
                let v = self.vec4();
                let (c, lane) = (self.tmp(), self.rng.below(4));
                self.emit(format!(
                    "{c} = call <4 x float> @llvm.r600.cube(<4 x float> {v})"
                ));
                self.emit(format!("{t} = extractelement <4 x float> {c}, i32 {lane}"));
                self.f.push(t);
            }
            26 => {
                let o = ["udiv", "urem", "sdiv", "srem"][self.rng.below(4)];
                let (a, b) = (self.pi(), self.pi());
                let nz = self.tmp();
                self.emit(format!("{nz} = or i32 {b}, 1"));
                self.emit(format!("{t} = {o} i32 {a}, {nz}"));
                self.i.push(t);
            }
            27 => {
                let ext = ["zext", "sext"][self.rng.below(2)];
                let (a, b) = (self.pi(), self.pi());
                let (a6, b6, m, h) = (self.tmp(), self.tmp(), self.tmp(), self.tmp());
                self.emit(format!("{a6} = {ext} i32 {a} to i64"));
                self.emit(format!("{b6} = {ext} i32 {b} to i64"));
                self.emit(format!("{m} = mul i64 {a6}, {b6}"));
                self.emit(format!("{h} = lshr i64 {m}, 32"));
                self.emit(format!("{t} = trunc i64 {h} to i32"));
                self.i.push(t);
            }
            28 => {
                let f = ["clamped", "ieee"][self.rng.below(2)];
                let a = self.pf();
                self.emit(format!(
                    "{t} = call float @llvm.r600.recipsqrt.{f}(float {a})"
                ));
                self.f.push(t);
            }
            29 => {
                let (a, b) = (self.pf(), self.pf());
                self.emit(format!(
                    "{t} = call float @llvm.copysign.f32(float {a}, float {b})"
                ));
                self.f.push(t);
            }
            _ => {
                // Clamp to [0, 1]: llc folds it into the _SAT output modifier where it can.
                let (a, m) = (self.pf(), self.tmp());
                self.emit(format!(
                    "{m} = call float @llvm.maxnum.f32(float {a}, float 0.0)"
                ));
                self.emit(format!(
                    "{t} = call float @llvm.minnum.f32(float {m}, float 1.0)"
                ));
                self.f.push(t);
            }
        }
    }
    /// A branch condition: a float or an integer compare with a random predicate.
    fn cond(&mut self) -> (String, String) {
        let c = self.tmp();
        let line = if self.rng.below(2) == 0 {
            let preds = ["oeq", "ogt", "oge", "one", "olt", "ole", "une", "ult"];
            let p = preds[self.rng.below(preds.len())];
            let (a, b) = (self.pf(), self.pf());
            format!("  {c} = fcmp {p} float {a}, {b}\n")
        } else {
            let preds = ["eq", "ne", "sgt", "sge", "ugt", "uge", "slt", "ule"];
            let p = preds[self.rng.below(preds.len())];
            let (a, b) = (self.pi(), self.pi());
            format!("  {c} = icmp {p} i32 {a}, {b}\n")
        };
        (line, c)
    }
    /// `n` random steps as a block body; the pools are restored afterwards.
    fn block(&mut self, n: usize) -> (String, String) {
        let saved = (
            self.f.clone(),
            self.i.clone(),
            std::mem::take(&mut self.body),
        );
        for _ in 0..n {
            self.step();
        }
        let v = self.pf();
        let body = std::mem::replace(&mut self.body, saved.2);
        (self.f, self.i) = (saved.0, saved.1);
        (body, v)
    }
    /// A vector of four pool values.
    fn vec4(&mut self) -> String {
        let mut v = "undef".to_string();
        for k in 0..4 {
            let t = self.tmp();
            let x = self.pf();
            self.emit(format!(
                "{t} = insertelement <4 x float> {v}, float {x}, i32 {k}"
            ));
            v = t;
        }
        v
    }
}

const DECLS: &str = "
declare float @llvm.sqrt.f32(float)
declare float @llvm.sin.f32(float)
declare float @llvm.cos.f32(float)
declare float @llvm.floor.f32(float)
declare float @llvm.ceil.f32(float)
declare float @llvm.trunc.f32(float)
declare float @llvm.rint.f32(float)
declare float @llvm.fabs.f32(float)
declare float @llvm.exp2.f32(float)
declare float @llvm.log2.f32(float)
declare float @llvm.minnum.f32(float, float)
declare float @llvm.maxnum.f32(float, float)
declare float @llvm.fmuladd.f32(float, float, float)
declare float @llvm.pow.f32(float, float)
declare float @llvm.copysign.f32(float, float)
declare float @llvm.r600.recipsqrt.clamped(float)
declare float @llvm.r600.recipsqrt.ieee(float)
declare <4 x float> @llvm.r600.cube(<4 x float>)
declare <4 x float> @llvm.r600.texc(<4 x float>, i32, i32, i32, i32, i32, i32, i32, i32, i32)
declare void @llvm.r600.kill(float)
declare void @llvm.r600.store.stream.output(<4 x float>, i32, i32, i32)
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.umin.i32(i32, i32)
declare i32 @llvm.umax.i32(i32, i32)
declare <4 x float> @llvm.r600.tex(<4 x float>, i32, i32, i32, i32, i32, i32, i32, i32, i32)
declare void @llvm.r600.store.swizzle(<4 x float>, i32, i32)
";

/// One shader. `shape` picks straight-line, if/else, or a loop around the random body.
fn kernel(seed: u64) -> String {
    let mut g = Gen {
        rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
        body: String::new(),
        n: 0,
        f: vec![],
        i: vec![],
    };
    let ps = g.rng.below(3) == 0;
    for k in 0..4 {
        let t = g.tmp();
        g.emit(format!("{t} = extractelement <4 x float> %reg1, i32 {k}"));
        g.f.push(t);
    }
    // Constant-buffer reads (kcache), two buffers.
    for cb in [8, 9] {
        if g.rng.below(2) == 0 {
            let idx = g.rng.below(40);
            let (p, v) = (g.tmp(), g.tmp());
            g.emit(format!(
                "{p} = getelementptr <4 x float>, <4 x float> addrspace({cb})* null, i32 {idx}"
            ));
            g.emit(format!(
                "{v} = load <4 x float>, <4 x float> addrspace({cb})* {p}"
            ));
            for k in 0..4 {
                let t = g.tmp();
                g.emit(format!("{t} = extractelement <4 x float> {v}, i32 {k}"));
                g.f.push(t);
            }
        }
    }
    // Texture fetches.
    for _ in 0..g.rng.below(3) {
        let c = g.vec4();
        let (t, x) = (g.tmp(), g.tmp());
        // llvm.r600.tex(coord, offset x, y, z, resource, sampler, coord type x, y, z, w);
        // coordinate types are 0 (unnormalised) or 1 (normalised).
        let (ox, oy, oz) = (
            g.rng.below(16) as i32 - 8,
            g.rng.below(16) as i32 - 8,
            g.rng.below(16) as i32 - 8,
        );
        let (rid, sid) = (g.rng.below(16), g.rng.below(16));
        let ct: Vec<usize> = (0..4).map(|_| g.rng.below(2)).collect();
        let tf = ["tex", "texc"][g.rng.below(2)];
        g.emit(format!(
            "{t} = call <4 x float> @llvm.r600.{tf}(<4 x float> {c}, i32 {ox}, i32 {oy}, i32 {oz}, i32 {rid}, i32 {sid}, i32 {}, i32 {}, i32 {}, i32 {})",
            ct[0], ct[1], ct[2], ct[3]
        ));
        let lane = g.rng.below(4);
        g.emit(format!("{x} = extractelement <4 x float> {t}, i32 {lane}"));
        g.f.push(x);
    }
    let t = g.tmp();
    let a = g.pf();
    g.emit(format!("{t} = bitcast float {a} to i32"));
    g.i.push(t);
    let steps = 8 + g.rng.below(40);
    for _ in 0..steps {
        g.step();
    }
    let shape = g.rng.below(5);
    let mut text = String::new();
    let cc = if ps { "amdgpu_ps" } else { "amdgpu_vs" };
    writeln!(
        text,
        "define {cc} void @k(<4 x float> inreg %reg0, <4 x float> inreg %reg1) {{"
    )
    .unwrap();
    writeln!(text, "entry:").unwrap();
    text.push_str(&g.body);
    g.body.clear();
    let (c0, c1) = (g.pf(), g.pf());
    let out = match shape {
        0 => {
            text.push_str("  br label %tail\ntail:\n");
            g.pf()
        }
        1 => {
            let (cl, c) = g.cond();
            writeln!(text, "{cl}  br i1 {c}, label %then, label %else").unwrap();
            let saved = (g.f.clone(), g.i.clone());
            for _ in 0..4 + g.rng.below(10) {
                g.step();
            }
            let a = g.pf();
            writeln!(text, "then:\n{}  br label %tail", g.body).unwrap();
            g.body.clear();
            (g.f, g.i) = saved.clone();
            for _ in 0..4 + g.rng.below(10) {
                g.step();
            }
            let b = g.pf();
            writeln!(text, "else:\n{}  br label %tail", g.body).unwrap();
            g.body.clear();
            (g.f, g.i) = saved;
            let m = g.tmp();
            writeln!(text, "tail:\n  {m} = phi float [{a}, %then], [{b}, %else]").unwrap();
            g.f.push(m.clone());
            m
        }
        3 => {
            // if-then without else.
            let (cl, c) = g.cond();
            let (body, a) = {
                let n = 3 + g.rng.below(10);
                g.block(n)
            };
            let x = g.pf();
            let m = g.tmp();
            writeln!(
                text,
                "{cl}  br i1 {c}, label %then, label %tail\nthen:\n{body}  br label %tail\ntail:\n  {m} = phi float [{a}, %then], [{x}, %entry]"
            )
            .unwrap();
            m
        }
        4 => {
            // A counted loop with a data-dependent break in the middle.
            let n = g.tmp();
            let (i, acc, acc2, i2, c) = (g.tmp(), g.tmp(), g.tmp(), g.tmp(), g.tmp());
            let m = g.tmp();
            writeln!(text, "  {n} = fptosi float {c0} to i32\n  br label %loop").unwrap();
            g.f.push(acc.clone());
            g.i.push(i.clone());
            let (b1, _) = {
                let n = 2 + g.rng.below(6);
                g.block(n)
            };
            let (cl, bc) = g.cond();
            let (b2, v) = {
                let n = 2 + g.rng.below(6);
                g.block(n)
            };
            g.f.pop();
            g.i.pop();
            writeln!(
                text,
                "loop:\n  {i} = phi i32 [0, %entry], [{i2}, %cont]\n  {acc} = phi float [{c1}, %entry], [{acc2}, %cont]\n{b1}{cl}  br i1 {bc}, label %tail, label %cont\ncont:\n{b2}  {acc2} = fadd float {acc}, {v}\n  {i2} = add i32 {i}, 1\n  {c} = icmp slt i32 {i2}, {n}\n  br i1 {c}, label %loop, label %tail\ntail:\n  {m} = phi float [{acc}, %loop], [{acc2}, %cont]"
            )
            .unwrap();
            m
        }
        _ => {
            let n = g.tmp();
            writeln!(text, "  {n} = fptosi float {c0} to i32\n  br label %loop").unwrap();
            let (i, acc, acc2, i2, c) = (g.tmp(), g.tmp(), g.tmp(), g.tmp(), g.tmp());
            let saved = (g.f.clone(), g.i.clone());
            g.f.push(acc.clone());
            g.i.push(i.clone());
            for _ in 0..4 + g.rng.below(12) {
                g.step();
            }
            let v = g.pf();
            writeln!(
                text,
                "loop:\n  {i} = phi i32 [0, %entry], [{i2}, %loop]\n  {acc} = phi float [{c1}, %entry], [{acc2}, %loop]\n{}  {acc2} = fadd float {acc}, {v}\n  {i2} = add i32 {i}, 1\n  {c} = icmp slt i32 {i2}, {n}\n  br i1 {c}, label %loop, label %tail\ntail:",
                g.body
            )
            .unwrap();
            g.body.clear();
            (g.f, g.i) = saved;
            g.f.push(acc2.clone());
            acc2
        }
    };
    g.f.push(out);
    for _ in 0..4 + g.rng.below(10) {
        g.step();
    }
    if ps && g.rng.below(3) == 0 {
        let a = g.pf();
        g.emit(format!("call void @llvm.r600.kill(float {a})"));
    }
    // Exports: pixel MRTs for pixel shaders, position + parameters for vertex shaders.
    let exports: Vec<(usize, usize)> = if ps {
        (0..1 + g.rng.below(3)).map(|k| (k, 0)).collect()
    } else {
        let mut e = vec![(60, 1)];
        e.extend((0..1 + g.rng.below(3)).map(|k| (k, 2)));
        e
    };
    // Stream-out writes (MEM_STREAM0-3, the BUF form of CF_ALLOC_EXPORT) from vertex shaders.
    if !ps && g.rng.below(3) == 0 {
        let v = g.vec4();
        let (base, buf, mask) = (g.rng.below(64), g.rng.below(4), 1 + g.rng.below(15));
        g.emit(format!(
            "call void @llvm.r600.store.stream.output(<4 x float> {v}, i32 {base}, i32 {buf}, i32 {mask})"
        ));
    }
    for (base, kind) in exports {
        let v = g.vec4();
        g.emit(format!(
            "call void @llvm.r600.store.swizzle(<4 x float> {v}, i32 {base}, i32 {kind})"
        ));
    }
    text.push_str(&g.body);
    text.push_str("  ret void\n}\n");
    text.push_str(DECLS);
    text
}

fn run(llc: &str, ll: &Path, args: &[&str], out: &Path) -> Result<(), String> {
    let o = Command::new(llc)
        .args(["-march=r600", "-mcpu=rv770"])
        .args(args)
        .arg(ll)
        .arg("-o")
        .arg(out)
        .output()
        .map_err(|e| format!("{llc}: {e}"))?;
    if !o.status.success() {
        let err = String::from_utf8_lossy(&o.stderr);
        return Err(format!(
            "{llc} failed on {}: {}",
            ll.display(),
            err.lines().next().unwrap_or("")
        ));
    }
    Ok(())
}

/// The `.text` section of a little-endian ELF32 object.
fn elf_text(obj: &[u8]) -> Option<&[u8]> {
    let u16_at = |o: usize| Some(u16::from_le_bytes(obj.get(o..o + 2)?.try_into().ok()?) as usize);
    let u32_at = |o: usize| Some(u32::from_le_bytes(obj.get(o..o + 4)?.try_into().ok()?) as usize);
    if obj.get(0..4)? != b"\x7fELF" || obj[4] != 1 {
        return None;
    }
    let (shoff, shentsize, shnum, shstrndx) =
        (u32_at(0x20)?, u16_at(0x2E)?, u16_at(0x30)?, u16_at(0x32)?);
    let sh = |k: usize| shoff + k * shentsize;
    let strtab = u32_at(sh(shstrndx) + 16)?;
    for k in 0..shnum {
        let name = strtab + u32_at(sh(k))?;
        if obj.get(name..name + 6)? == b".text\0" {
            let (off, size) = (u32_at(sh(k) + 16)?, u32_at(sh(k) + 20)?);
            return obj.get(off..off + size);
        }
    }
    None
}

/// llc's instruction lines (see the module comment for the normalisation).
fn llc_lines(asm: &str) -> Vec<String> {
    asm.lines()
        .skip_while(|l| !l.starts_with("k:"))
        .skip(1)
        .take_while(|l| !l.starts_with(".Lfunc_end0:"))
        .filter(|l| {
            let t = l.trim_start();
            !t.is_empty() && !t.starts_with(';') && !t.starts_with('.')
        })
        .map(|l| signed_literals(l.strip_prefix('\t').unwrap_or(l)))
        .collect()
}

/// Normalisation 4: `3240099840(-1.000000e+01), 0(0.000000e+00)` -> `-1054867456(...), ...`.
fn signed_literals(line: &str) -> String {
    if !line.starts_with(|c: char| c.is_ascii_digit() || c == '-') || !line.contains('(') {
        return line.to_string();
    }
    line.split(", ")
        .map(|part| match part.split_once('(') {
            Some((n, rest)) => match n.parse::<i64>() {
                Ok(v) => format!("{}({rest}", v as u32 as i32),
                Err(_) => part.to_string(),
            },
            None => part.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// llc's miscompile: ALU instruction lines before the first clause header.
fn alu_in_cf_stream(lines: &[String]) -> bool {
    lines
        .iter()
        .take_while(|l| !l.ends_with("clause starting at") && !l.contains(" clause starting at "))
        .any(|l| l.starts_with("  "))
}

#[test]
fn llc_rv770_shaders_disassemble_to_llc_text_and_reencode_to_its_bytes() {
    let llc = llc();
    let dir: PathBuf =
        std::env::temp_dir().join(format!("baregpu-r700-llc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut shaders, mut insts, mut lines_compared, mut malformed) =
        (0usize, 0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    let mut mnemonics = std::collections::BTreeMap::new();
    let mut swizzle_needed = 0usize;
    let (mut emulated, mut not_emulated) = (0usize, Vec::new());
    for seed in 1..=300u64 {
        let ll = dir.join(format!("k{seed}.ll"));
        let (obj, asm) = (
            dir.join(format!("k{seed}.o")),
            dir.join(format!("k{seed}.s")),
        );
        std::fs::write(&ll, kernel(seed)).unwrap();
        if let Err(e) = run(llc, &ll, &["-filetype=obj"], &obj)
            .and_then(|_| run(llc, &ll, &["-filetype=asm"], &asm))
        {
            failures.push(e);
            continue;
        }
        let bytes = std::fs::read(&obj).unwrap();
        let text = elf_text(&bytes)
            .expect("llc object has a .text section")
            .to_vec();
        let theirs = llc_lines(&std::fs::read_to_string(&asm).unwrap());
        if alu_in_cf_stream(&theirs) {
            if Program::decode(&text).is_ok() {
                failures.push(format!(
                    "seed {seed}: llc's malformed program decoded without error"
                ));
            }
            malformed += 1;
            continue;
        }
        let program = match Program::decode(&text) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("seed {seed}: decode: {e}"));
                continue;
            }
        };
        // llc's output is legal by construction: the validator must accept all of it.
        for v in baregpu_r700::validate::validate(&program) {
            failures.push(format!("seed {seed}: validate: {v}"));
        }
        // And llc's bank swizzles matter: with every group reset to VEC_012/SCL_210 some
        // programs break the read-port rules.
        let mut plain = program.clone();
        for c in plain.clauses.values_mut() {
            if let baregpu_r700::program::Clause::Alu(groups) = c {
                groups
                    .iter_mut()
                    .flat_map(|g| g.insts.iter_mut())
                    .for_each(|i| i.bank_swizzle = 0);
            }
        }
        if baregpu_r700::validate::validate(&plain).iter().any(|v| {
            matches!(
                v.rule,
                baregpu_r700::validate::Rule::GprReadPort
                    | baregpu_r700::validate::Rule::TransConstCycle
            )
        }) {
            swizzle_needed += 1;
        }
        if program.encode() != text {
            failures.push(format!("seed {seed}: re-encoding differs from llc's bytes"));
        }
        // llc's groups, clauses and flow run on the emulator: a group it calls illegal or
        // a program that does not stop would be the emulator's error.
        match run_on_emulator(&program) {
            Ok(()) => emulated += 1,
            Err(
                e @ (EmuError::IllegalGroup { .. }
                | EmuError::Budget { .. }
                | EmuError::PcOutOfRange { .. }
                | EmuError::StackOverflow { .. }),
            ) => failures.push(format!("seed {seed}: emulator: {e}")),
            Err(e) => not_emulated.push(format!("seed {seed}: {e}")),
        }
        let ours = llvm_text::program(&program);
        // The exact text is llc's text plus " ; key=value" annotations, and assembles
        // back to llc's bytes.
        let exact = llvm_text::program_exact(&program);
        let stripped: Vec<&str> = exact
            .iter()
            .map(|l| l.rfind(" ;").map_or(l.as_str(), |k| &l[..k]))
            .collect();
        if stripped != ours {
            failures.push(format!(
                "seed {seed}: exact text without annotations differs from the LLVM text"
            ));
        }
        match asm::assemble(&exact.join("\n")) {
            Ok(b) if b == text => {}
            Ok(_) => failures.push(format!(
                "seed {seed}: assembling the exact text gives other bytes"
            )),
            Err(e) => failures.push(format!("seed {seed}: assembling the exact text: {e}")),
        }
        if ours != theirs {
            let k = ours
                .iter()
                .zip(&theirs)
                .position(|(a, b)| a != b)
                .unwrap_or(ours.len().min(theirs.len()));
            failures.push(format!(
                "seed {seed}: line {k}: ours {:?}, llc {:?} ({} vs {} lines)",
                ours.get(k),
                theirs.get(k),
                ours.len(),
                theirs.len()
            ));
        }
        for l in &theirs {
            let m = l.trim_start().split([' ', ',']).next().unwrap_or("");
            if !m.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
                *mnemonics.entry(m.to_string()).or_insert(0usize) += 1;
            }
        }
        shaders += 1;
        insts += program.instruction_count();
        lines_compared += theirs.len();
    }
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        println!("kept the shaders in {}", dir.display());
    }
    println!(
        "llc rv770: {shaders} shaders, {insts} instructions, {lines_compared} text lines compared; \
         {malformed} malformed llc programs rejected; {swizzle_needed} need their bank swizzles"
    );
    println!("mnemonics: {mnemonics:?}");
    println!(
        "emulator: {emulated} shaders ran; not emulated: {:?}",
        &not_emulated[..not_emulated.len().min(10)]
    );
    assert_eq!(
        emulated, shaders,
        "shaders the emulator did not run: {not_emulated:?}"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(25)].join("\n")
    );
    assert!(insts >= 5000, "only {insts} instructions compared");
    assert!(
        swizzle_needed >= 10,
        "only {swizzle_needed} programs need llc's bank swizzles by the validator's read-port rules"
    );
    // The corpus keeps reaching the forms it was built for.
    for m in [
        "ALU_PUSH_BEFORE",
        "ALU_POP_AFTER",
        "JUMP",
        "POP",
        "LOOP_START_DX10",
        "END_LOOP",
        "LOOP_BREAK",
        "CALL_FS",
        "PAD",
        "TEX_SAMPLE",
        "TEX_SAMPLE_C",
        "KILLGT",
        "MUL",
        "CUBE",
        "MULADD_IEEE",
        "CNDE_INT",
        "PRED_SETE_INT",
        "RECIP_UINT",
        "MULHI",
        "MULHI_INT",
        "SETGT_DX10",
    ] {
        assert!(mnemonics.contains_key(m), "no {m} in the llc corpus");
    }
}
