//! EU interpreter throughput on ALU-bound kernels, against the same
//! computation as a plain Rust loop, measured in the same run.
//!
//! The kernel is a chain of F mad/add/mul (four instructions repeated),
//! SIMD8 and SIMD16, on Gen7.5 (nearest-even rounding: the fast path) and
//! on G45 (round toward zero and the implicit accumulator: the generic
//! path), and on Gen12.5 (Xe-HPG: its own native format and thread,
//! `eu::xe`, run with and without the software-scoreboard check; the
//! chain's dependencies carry `{F@1}` as a compiler writes them). The
//! plain loop does the same arithmetic on arrays with Rust f32
//! operations. `cargo bench -p baregpu-soft --bench eu_alu` prints lane
//! operations per second for both and their ratio. Nothing asserts on time;
//! the results are checked against each other.

// Channels index several arrays at once; index loops read best.
#![allow(clippy::needless_range_loop)]

use std::hint::black_box;
use std::time::Instant;

use baregpu_isa::IsaGen;
use baregpu_soft::eu::xe::XeHarness;
use baregpu_soft::eu::{EuError, Harness, Step};

/// Times the four-instruction group repeats in the kernel.
const GROUPS: usize = 64;
/// Kernel executions per measurement.
const RUNS: usize = 1000;
/// Measurements (pairs of emulator and plain loop).
const REPS: usize = 21;

fn kernel(simd: u32, p: IsaGen) -> String {
    if p == IsaGen::Gen12_5 {
        return xe_kernel(simd);
    }
    // Registers: a at r10, b r20, c r30, d r40, k r50 (SIMD16 operands
    // take two registers).
    let r = |base: u32| format!("r{base}.0");
    let src = |base: u32| format!("r{base}.0<{simd};{simd},1>:f");
    let src3 = |base: u32| format!("r{base}.0<2;1>:f");
    let src3_last = |base: u32| format!("r{base}.0<1>:f");
    let mad = |d: u32, s0: u32, s1: u32, s2: u32| {
        if p == IsaGen::G45 {
            // No three-source instructions: the product into a temporary
            // (r60), then the add (the destination is also src0 here).
            format!(
                "mul ({simd}|M0) {}<1>:f {} {}\nadd ({simd}|M0) {}<1>:f {} {}\n",
                r(60),
                src(s1),
                src(s2),
                r(d),
                src(60),
                src(s0)
            )
        } else {
            format!(
                "mad ({simd}|M0) {}<1>:f {} {} {}\n",
                r(d),
                src3(s0),
                src3(s1),
                src3_last(s2)
            )
        }
    };
    // Gen4/G45 run 16 float channels as a compressed instruction.
    let compr = if p <= IsaGen::G45 && simd == 16 {
        " {Compr}"
    } else {
        ""
    };
    let mut k = String::new();
    for _ in 0..GROUPS {
        // a = b * k + a; c = c + a; d = c * k; b = d * k + b (as mad dst
        // src0 src1 src2 computes src1 * src2 + src0).
        k += &mad(10, 10, 20, 50);
        k += &format!("add ({simd}|M0) {}<1>:f {} {}\n", r(30), src(30), src(10));
        k += &format!("mul ({simd}|M0) {}<1>:f {} {}\n", r(40), src(30), src(50));
        k += &mad(20, 20, 40, 50);
    }
    if compr.is_empty() {
        k
    } else {
        k.replace('\n', &format!("{compr}\n"))
    }
}

/// The chain in Xe-HPG syntax (same registers; every instruction reads
/// the one before it on the float pipe, so it waits `{F@1}`, the first
/// excepted).
fn xe_kernel(simd: u32) -> String {
    let src = |base: u32| format!("r{base}.0<1;1,0>:f");
    let src3 = |base: u32| format!("r{base}.0<1;0>:f");
    let mut k = String::new();
    for g in 0..GROUPS {
        let wait = if g == 0 { "" } else { " {F@1}" };
        k += &format!(
            "mad ({simd}|M0) r10.0<1>:f {} {} r50.0<1>:f{wait}\n",
            src3(10),
            src3(20)
        );
        k += &format!(
            "add ({simd}|M0) r30.0<1>:f {} {} {{F@1}}\n",
            src(30),
            src(10)
        );
        k += &format!(
            "mul ({simd}|M0) r40.0<1>:f {} {} {{F@1}}\n",
            src(30),
            src(50)
        );
        k += &format!(
            "mad ({simd}|M0) r20.0<1>:f {} {} r50.0<1>:f {{F@1}}\n",
            src3(20),
            src3(40)
        );
    }
    k
}

/// One thread of either interpreter.
enum Emu {
    Legacy(Box<Harness>),
    Xe(Box<XeHarness>),
}

impl Emu {
    /// A thread of `p` with `kernel` loaded; `swsb`: the Xe scoreboard
    /// check on.
    fn new(p: IsaGen, kernel: &str, swsb: bool) -> Emu {
        if p == IsaGen::Gen12_5 {
            let mut h = XeHarness::new();
            h.load_asm(kernel).expect("kernel assembles");
            h.thread.check_swsb = swsb;
            Emu::Xe(Box::new(h))
        } else {
            let mut h = Harness::new(p);
            h.load_asm(kernel).expect("kernel assembles");
            Emu::Legacy(Box::new(h))
        }
    }

    fn len(&self) -> usize {
        match self {
            Emu::Legacy(h) => h.program.len(),
            Emu::Xe(h) => h.program.len(),
        }
    }

    fn set_grf_f(&mut self, reg: u8, e: usize, v: f32) {
        match self {
            Emu::Legacy(h) => h.thread.set_grf_f(reg, e, v),
            Emu::Xe(h) => h.thread.thread.set_grf_f(reg, e, v),
        }
    }

    fn grf_f(&self, reg: u8, e: usize) -> f32 {
        match self {
            Emu::Legacy(h) => h.thread.grf_f(reg, e),
            Emu::Xe(h) => h.thread.thread.grf_f(reg, e),
        }
    }

    /// Runs the kernel from its first instruction.
    fn run(&mut self) -> Result<Step, EuError> {
        match self {
            Emu::Legacy(h) => {
                h.thread.set_ip(0);
                h.run(1 << 30)
            }
            Emu::Xe(h) => {
                // A new dispatch: nothing pending from the last run.
                h.thread.scoreboard = Default::default();
                h.thread.set_ip(0);
                h.run(1 << 30)
            }
        }
    }
}

/// The same chain on host arrays: the baseline.
fn plain(lanes: usize, a: &mut [f32], b: &mut [f32], c: &mut [f32], d: &mut [f32], k: &[f32]) {
    for _ in 0..GROUPS {
        for i in 0..lanes {
            a[i] += b[i] * k[i];
            c[i] += a[i];
            d[i] = c[i] * k[i];
            b[i] += d[i] * k[i];
        }
    }
}

/// The chain with `mad` fused as the EU computes it: the reference the
/// Gen6+ results must match bit for bit.
fn fused(lanes: usize, a: &mut [f32], b: &mut [f32], c: &mut [f32], d: &mut [f32], k: &[f32]) {
    for _ in 0..GROUPS {
        for i in 0..lanes {
            a[i] = b[i].mul_add(k[i], a[i]);
            c[i] += a[i];
            d[i] = c[i] * k[i];
            b[i] = d[i].mul_add(k[i], b[i]);
        }
    }
}

fn init(h: &mut Emu, lanes: usize) {
    for i in 0..lanes {
        let (reg, e) = ((i / 8) as u8, i % 8);
        h.set_grf_f(10 + reg, e, 0.5 + i as f32);
        h.set_grf_f(20 + reg, e, 0.25);
        h.set_grf_f(30 + reg, e, 1.0);
        h.set_grf_f(40 + reg, e, 0.0);
        h.set_grf_f(50 + reg, e, 0.999);
    }
}

fn measure(p: IsaGen, simd: u32, swsb: bool) {
    let lanes = simd as usize;
    let mut h = Emu::new(p, &kernel(simd, p), swsb);
    let insts = h.len();
    init(&mut h, lanes);
    // Host baseline on the same starting values.
    let a0: Vec<f32> = (0..lanes).map(|i| 0.5 + i as f32).collect();
    let mut a = a0.clone();
    let mut b = vec![0.25f32; lanes];
    let mut c = vec![1.0f32; lanes];
    let mut d = vec![0.0f32; lanes];
    let k = vec![0.999f32; lanes];
    // One run checked against the references: Gen6+ round to nearest like
    // the host and fuse mad, bit for bit; G45 truncates every result, so
    // it stays within a relative 1e-4 of the host's unfused chain (each
    // of the 384 roundings is off by less than 2^-23).
    assert_eq!(h.run(), Ok(Step::EndOfKernel));
    if p >= IsaGen::Gen6 {
        fused(lanes, &mut a, &mut b, &mut c, &mut d, &k);
        for i in 0..lanes {
            let got = h.grf_f(20 + (i / 8) as u8, i % 8);
            assert_eq!(got.to_bits(), b[i].to_bits(), "lane {i}");
        }
    } else {
        plain(lanes, &mut a, &mut b, &mut c, &mut d, &k);
        for i in 0..lanes {
            let got = h.grf_f(20 + (i / 8) as u8, i % 8);
            let rel = ((got - b[i]) / b[i]).abs();
            assert!(rel < 1e-4, "lane {i}: {got:e} vs {:e}", b[i]);
        }
    }
    // Repetitions alternate the two sides, so that each pair runs under
    // the same machine conditions (the machine is shared and its speed
    // drifts): the ratio reported is the median of the pairs' ratios, the
    // rates the best of each side.
    let mut emu = f64::MAX;
    let mut host = f64::MAX;
    let mut ratios = Vec::with_capacity(REPS);
    for _ in 0..REPS {
        // Each run starts from the same values on both sides: the chain
        // grows ~1e31 per run, so without the reset the second run would
        // already compute on infinities.
        let t0 = Instant::now();
        for _ in 0..RUNS {
            init(&mut h, lanes);
            let r = h.run();
            assert_eq!(black_box(r), Ok(Step::EndOfKernel));
        }
        let e = t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        for _ in 0..RUNS {
            a.copy_from_slice(&a0);
            b.fill(0.25);
            c.fill(1.0);
            d.fill(0.0);
            plain(
                lanes,
                black_box(&mut a),
                black_box(&mut b),
                black_box(&mut c),
                black_box(&mut d),
                black_box(&k),
            );
        }
        let hst = t1.elapsed().as_secs_f64();
        emu = emu.min(e);
        host = host.min(hst);
        ratios.push(e / hst);
    }
    ratios.sort_by(f64::total_cmp);
    let ratio = ratios[ratios.len() / 2];
    // Lane operations: every instruction of the kernel on every lane.
    let ops = (insts * lanes * RUNS) as f64;
    let host_ops = (GROUPS * 4 * lanes * RUNS) as f64;
    let (e, hst) = (ops / emu, host_ops / host);
    // The ratio compares times for the same computation (median of pairs).
    let name = match (p, swsb) {
        (IsaGen::Gen12_5, true) => "gen12.5 (SWSB check)",
        (IsaGen::Gen12_5, false) => "gen12.5 (no check)",
        _ => p.name(),
    };
    println!(
        "{:7} SIMD{:<2} {:5} insts  emulator {:8.1} M lane-op/s  plain loop {:8.1} M lane-op/s  time ratio {:5.1}x",
        name,
        simd,
        insts,
        e / 1e6,
        hst / 1e6,
        ratio
    );
}

/// Per-instruction breakdown: a kernel of one instruction repeated (its
/// destination r10, read by none of its sources so each is independent),
/// nanoseconds per instruction.
fn breakdown(p: IsaGen, simd: u32, kinds: &[String]) {
    let src = format!("r20.0<{simd};{simd},1>:f");
    let src3 = "r20.0<2;1>:f";
    let compr = if p <= IsaGen::G45 && simd == 16 {
        " {Compr}"
    } else {
        ""
    };
    let mut forms = if p == IsaGen::Gen12_5 {
        // Xe-HPG regions; the instructions are independent (no waits).
        let (a, b) = ("r20.0<1;1,0>:f", "r30.0<1;1,0>:f");
        vec![
            ("add", format!("add ({simd}|M0) r10.0<1>:f {a} {b}")),
            ("mul", format!("mul ({simd}|M0) r10.0<1>:f {a} {b}")),
            (
                "mad",
                format!("mad ({simd}|M0) r10.0<1>:f r20.0<1;0>:f r30.0<1;0>:f r40.0<1>:f"),
            ),
        ]
    } else {
        vec![
            (
                "add",
                format!("add ({simd}|M0) r10.0<1>:f {src} r30.0<{simd};{simd},1>:f{compr}"),
            ),
            (
                "mul",
                format!("mul ({simd}|M0) r10.0<1>:f {src} r30.0<{simd};{simd},1>:f{compr}"),
            ),
        ]
    };
    if (IsaGen::Gen6..IsaGen::Gen12_5).contains(&p) {
        forms.push((
            "mad",
            format!("mad ({simd}|M0) r10.0<1>:f {src3} r30.0<2;1>:f r40.0<1>:f"),
        ));
    }
    let mut line = format!("{:7} SIMD{:<2}", p.name(), simd);
    for (name, inst) in forms {
        if !kinds.is_empty() && !kinds.iter().any(|k| k == name) {
            continue;
        }
        let k: String = (0..256).map(|_| format!("{inst}\n")).collect();
        let mut h = Emu::new(p, &k, true);
        init(&mut h, simd as usize);
        let mut best = f64::MAX;
        for _ in 0..REPS {
            let t0 = Instant::now();
            for _ in 0..RUNS {
                black_box(h.run()).expect("runs");
            }
            best = best.min(t0.elapsed().as_secs_f64());
        }
        line += &format!("  {name} {:6.1} ns", best * 1e9 / (256 * RUNS) as f64);
    }
    println!("{line}");
}

fn main() {
    // An argument naming a platform (e.g. `gen7.5`) measures only that one;
    // `breakdown` times each instruction kind alone (or only those named:
    // `add`, `mul`, `mad`; `simd8`/`simd16` pick the width).
    let args: Vec<String> = std::env::args().collect();
    let kinds: Vec<String> = args
        .iter()
        .filter(|a| ["add", "mul", "mad"].contains(&a.as_str()))
        .cloned()
        .collect();
    let widths: Vec<u32> = args
        .iter()
        .filter_map(|a| a.strip_prefix("simd").and_then(|w| w.parse().ok()))
        .collect();
    let only: Vec<IsaGen> = args.iter().filter_map(|a| IsaGen::from_name(a)).collect();
    let split = args.iter().any(|a| a == "breakdown");
    println!(
        "fast ALU lanes: {}",
        if baregpu_soft::eu::wide_lanes() {
            "AVX2 + FMA (this CPU has them)"
        } else {
            "portable (no AVX2 + FMA on this CPU)"
        }
    );
    for p in [IsaGen::Gen12_5, IsaGen::Gen75, IsaGen::Gen6, IsaGen::G45] {
        if !only.is_empty() && !only.contains(&p) {
            continue;
        }
        for simd in [8, 16] {
            if !widths.is_empty() && !widths.contains(&simd) {
                continue;
            }
            if split {
                breakdown(p, simd, &kinds);
            } else {
                measure(p, simd, true);
                if p == IsaGen::Gen12_5 {
                    measure(p, simd, false);
                }
            }
        }
    }
}
