//! Decoded EU instructions per second, per generation, against a baseline
//! measured in the same run: one pass that reads the same kernel bytes as
//! dwords (what any decoder must at least do). The kernel is 100,000
//! instructions from the test suite's generator, compacted where possible
//! (Gen12.5: the generator of tests/xehpg_iga.rs, `common::xehpg`).
//!
//! `cargo bench -p baregpu-isa --bench decode`

use std::hint::black_box;
use std::time::Instant;

use baregpu_isa::kernel::decode_kernel;
use baregpu_isa::{IsaGen, compact, encode};

/// The test suite's instruction generator (every opcode, type, region and
/// message form the generation allows).
#[path = "../tests/common/mod.rs"]
mod common;

/// `n` generated instructions of `platform` that encode.
fn instructions(platform: IsaGen, n: usize) -> Vec<baregpu_isa::inst::Instruction> {
    if platform != IsaGen::Gen12_5 {
        return common::generate(platform, common::Oracle::Ours, n, 7);
    }
    let mut rng = common::Rng::new(7);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let inst = common::xehpg::generate(&mut rng);
        if encode(platform, &inst).is_ok() {
            out.push(inst);
        }
    }
    out
}

/// A kernel of `n` generated instructions, compacted where the tables allow.
/// Compact instructions are placed in pairs (a lone one stays native) so that
/// every native instruction stays 16-byte aligned.
fn kernel(platform: IsaGen, n: usize) -> (Vec<u8>, usize) {
    let insts = instructions(platform, n);
    let mut bytes = Vec::new();
    let mut compacted = 0;
    let mut pending: Option<[u32; 4]> = None;
    for inst in &insts {
        let dw = baregpu_isa::codec::to_dwords(
            encode(platform, inst).expect("generated instructions encode"),
        );
        match compact::compact(platform, dw) {
            // Compact instructions go in pairs so that native ones stay 16-byte aligned.
            Some(c) => match pending.take() {
                Some(first) => {
                    let fc = compact::compact(platform, first).expect("it compacted before");
                    bytes.extend(fc.iter().chain(c.iter()).flat_map(|d| d.to_le_bytes()));
                    compacted += 2;
                }
                None => pending = Some(dw),
            },
            None => bytes.extend(dw.iter().flat_map(|d| d.to_le_bytes())),
        }
    }
    if let Some(dw) = pending {
        bytes.extend(dw.iter().flat_map(|d| d.to_le_bytes()));
    }
    (bytes, compacted * 100 / insts.len().max(1))
}

fn best_of<R>(runs: usize, mut f: impl FnMut() -> R) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    const N: usize = 100_000;
    println!("platform  instructions  compact%  decode Minst/s  baseline ratio  encode Minst/s");
    for platform in IsaGen::EVERY {
        let (bytes, compact_pct) = kernel(platform, N);
        let entries = decode_kernel(platform, &bytes).expect("the generated kernel decodes");
        let n = entries.len();
        let decode_s = best_of(5, || {
            decode_kernel(platform, black_box(&bytes)).map(|e| e.len())
        });
        let baseline_s = best_of(5, || {
            black_box(&bytes)
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .fold(0u32, |a, d| a.wrapping_add(d))
        });
        let encode_s = best_of(5, || {
            entries
                .iter()
                .map(|e| encode(platform, black_box(&e.inst)).map_or(0, |w| w as u32))
                .fold(0u32, u32::wrapping_add)
        });
        println!(
            "{:8}  {:12}  {:7}%  {:14.1}  {:14.0}x  {:14.1}",
            platform.name(),
            n,
            compact_pct,
            n as f64 / decode_s / 1e6,
            decode_s / baseline_s,
            n as f64 / encode_s / 1e6,
        );
    }
}
