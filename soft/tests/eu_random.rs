//! Random instruction streams never panic the interpreter: every kernel
//! ends, stops with an error, or runs into the budget. Two sources of
//! kernels: random words kept when they decode (so most instructions are
//! reached and executed, with random operands, regions, types and
//! controls), and raw random bytes (decode errors and compact words).

// Channels index several arrays at once; index loops read best.
#![allow(clippy::needless_range_loop)]

mod eu_support;

use baregpu_isa::IsaGen;
use baregpu_isa::codec::{decode, encode, to_dwords};
use baregpu_soft::eu::{Harness, SendError, SendRequest, SharedFunctions, Thread};
use eu_support::Rng;

/// Takes every message; writes a pattern into the response registers.
struct Sink;

impl SharedFunctions for Sink {
    fn send(&mut self, thread: &mut Thread, req: &SendRequest) -> Result<(), SendError> {
        if let Some(d) = req.dst {
            for r in 0..req.rlen.min(4) {
                let reg = d.wrapping_add(r) % 128;
                for i in 0..8 {
                    thread.set_grf_ud(reg, i, 0x1234_5678 ^ i as u32);
                }
            }
        }
        Ok(())
    }
}

/// Instructions to mutate: most opcodes, regions, types and controls.
const TEMPLATES: &[&str] = &[
    "mov (8|M0) r1.0<1>:f r2.0<8;8,1>:f",
    "mov (16|M0) r4.0<1>:w r2.1<16;8,2>:b",
    "add (8|M0) (lt)f0.0 (sat)r1.0<1>:f -r2.0<8;8,1>:f (abs)r3.1<0;1,0>:f",
    "(f0.0.any4h) add (8|M0) r1.0<1>:d r2.0<8;8,1>:d 7:d",
    "mul (8|M0) r1.0<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:uw",
    "mul (8|M0) acc0.0<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d",
    "mach (8|M0) r4.0<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d {AccWrEn}",
    "mac (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f",
    "and (8|M0) r1.0<1>:ud r2.0<8;8,1>:ud 0xff:ud",
    "or (16|M0) r1.0<1>:uw r2.0<16;16,1>:uw r3.0<16;16,1>:uw",
    "xor (8|M0) r1.0<1>:d r2.0<8;8,1>:d r[a0.0,32]<8;8,1>:d",
    "not (8|M0) r1.0<1>:ud r[a0.2]<1,0>:ud",
    "shl (8|M0) r1.0<1>:ud r2.0<8;8,1>:ud r3.0<8;8,1>:ud",
    "shr (8|M0) r1.0<1>:ud r2.0<8;8,1>:ud 3:ud",
    "asr (8|M0) r1.0<1>:d r2.0<8;8,1>:d 31:d",
    "cmp (8|M0) (ge)f0.1 r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f",
    "cmpn (8|M0) (lt)f0.0 null<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f",
    "(f0.0) sel (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f",
    "avg (8|M0) r1.0<1>:w r2.0<8;8,1>:w r3.0<8;8,1>:w",
    "frc (8|M0) r1.0<1>:f r2.0<8;8,1>:f",
    "rndd (8|M0) r1.0<1>:f r2.0<8;8,1>:f",
    "rnde (8|M0) r1.0<1>:f r2.0<8;8,1>:f",
    "lzd (8|M0) r1.0<1>:ud r2.0<8;8,1>:ud",
    "dp4 (8|M0) r1.0<1>:f r2.0<4>.xyzw:f r3.0<4>.wzyx:f {Align16}",
    "dph (8|M0) r1.0<1>.xz:f r2.0<4>.xyzw:f r3.0<0>.xxxx:f {Align16}",
    "line (8|M0) r1.0<1>:f r2.0<0;1,0>:f r3.0<8;8,1>:f",
    "pln (8|M0) r1.0<1>:f r2.4<0;1,0>:f r4.0<8;8,1>:f",
    "sad2 (8|M0) r1.0<1>:w r2.0<8;8,1>:ub r3.0<8;8,1>:ub",
    "sada2 (8|M0) r1.0<1>:w r2.0<8;8,1>:b r3.0<8;8,1>:b",
    "mov (8|M0) r1.0<1>:w 0x01234567:v",
    "mov (8|M0) r1.0<1>:f 0x30303030:vf",
    "mov (1|M0) a0.0<1>:uw 0x40:uw",
    "mov (1|M0) cr0.0<1>:ud r2.0<0;1,0>:ud {Switch}",
    "mov (1|M0) r1.0<1>:ud ip<0;1,0>:ud",
    "add (16|M0) r4.0<1>:f r6.0<8;8,1>:f r8.0<8;8,1>:f {Compr}",
    "mad (8|M0) r1.0<1>:f r2.0<2;1>:f r3.0<2;1>:f r4.0<1>:f",
    "lrp (8|M0) r1.0<1>:f r2.0<0;0>:f r3.0<2;1>:f r4.0<1>:f",
    "math.inv (8|M0) r1.0<1>:f r2.0<8;8,1>:f",
    "math.idiv (8|M0) r1.0<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d",
    "bfe (8|M0) r1.0<1>:ud r2.0<2;1>:ud r3.0<2;1>:ud r4.0<1>:ud",
    "bfi2 (8|M0) r1.0<1>:d r2.0<2;1>:d r3.0<2;1>:d r4.0<1>:d",
    "fbh (8|M0) r1.0<1>:ud r2.0<8;8,1>:d",
    "cbit (8|M0) r1.0<1>:ud r2.0<8;8,1>:ud",
    "addc (8|M0) r1.0<1>:ud r2.0<8;8,1>:ud r3.0<8;8,1>:ud {AccWrEn}",
    "f32to16 (8|M0) r1.0<1>:w r2.0<8;8,1>:f",
    "mov (4|M0) r1.0<1>:df r2.0<4;4,1>:df",
    "add (4|M0) r1.0<1>:df r2.0<4;4,1>:df r4.0<4;4,1>:df",
    "movi (8|M0) r1.0<1>:d r[a0.0]<8;8,1>:d",
    "(W) jmpi (1|M0) 32",
    "nop",
    "send (8|M0) r5:uw m1 r0:ud 0x4 0x110000",
    "send (8|M0) r5:uw m1 0x4 0x02110000",
    "send (8|M0) r5:uw r2 0x4 0x02110000",
];

/// Assembled templates of a platform, as 128-bit words.
fn templates(p: IsaGen) -> Vec<u128> {
    TEMPLATES
        .iter()
        .filter_map(|t| baregpu_isa::text::assemble(p, t).ok())
        .filter(|b| b.len() == 16)
        .map(|b| {
            let d = |i: usize| {
                u128::from(u32::from_le_bytes([
                    b[4 * i],
                    b[4 * i + 1],
                    b[4 * i + 2],
                    b[4 * i + 3],
                ]))
            };
            d(0) | d(1) << 32 | d(2) << 64 | d(3) << 96
        })
        .collect()
}

/// A template with a few random bits flipped, kept when it still decodes
/// on `p` (re-encoded, so the bytes are canonical).
fn random_instruction(p: IsaGen, pool: &[u128], rng: &mut Rng) -> Vec<u8> {
    loop {
        let mut w = pool[(rng.next() % pool.len() as u64) as usize];
        for _ in 0..rng.next() % 4 {
            w ^= 1u128 << (rng.next() % 128);
        }
        if let Ok(inst) = decode(p, w)
            && let Ok(word) = encode(p, &inst)
        {
            return to_dwords(word)
                .iter()
                .flat_map(|d| d.to_le_bytes())
                .collect();
        }
    }
}

fn randomize(h: &mut Harness, rng: &mut Rng) {
    for r in 0..128u8 {
        for i in 0..8 {
            let v = match rng.next() % 4 {
                0 => rng.u32(),
                1 => (rng.u32() % 64) * 4,
                2 => rng.f32().to_bits(),
                _ => 0,
            };
            h.thread.set_grf_ud(r, i, v);
        }
    }
    for i in 0..8 {
        h.thread.set_a0(i, (rng.u32() % 4096) as u16);
    }
    h.thread.set_flag(0, rng.u32());
    h.thread.set_flag(1, rng.u32());
    h.thread.set_cr0(0, rng.u32() & 0x7F);
    h.thread.set_dispatch_mask(rng.u32());
}

#[test]
fn decodable_random_streams() {
    let mut rng = Rng(0xDEC0_DE00);
    let mut outcomes = [0usize; 2];
    let mut executed = 0u64;
    let mut runs = 0u64;
    for p in IsaGen::ALL {
        let pool = templates(p);
        assert!(pool.len() > 30, "{p}: {} templates", pool.len());
        for _ in 0..300 {
            let mut bytes = Vec::new();
            for _ in 0..40 {
                bytes.extend(random_instruction(p, &pool, &mut rng));
            }
            let mut h = Harness::new(p);
            h.load(&bytes);
            randomize(&mut h, &mut rng);
            match h.run_with(&mut Sink, 2000) {
                Ok(_) => outcomes[0] += 1,
                Err(_) => outcomes[1] += 1,
            }
            executed += h.thread.executed();
            runs += 1;
            // Stepping after the end or an error is also safe.
            let _ = h.run_with(&mut Sink, 10);
        }
    }
    // Both kinds of outcome occur (a stream that only errors would not
    // exercise execution).
    assert!(outcomes[0] > 0 && outcomes[1] > 0, "{outcomes:?}");
    // And instructions do run: on average a good part of each stream.
    println!("{outcomes:?} outcomes, {executed} instructions in {runs} runs");
    assert!(
        executed > runs * 8,
        "{executed} instructions in {runs} runs"
    );
}

#[test]
fn raw_random_bytes() {
    let mut rng = Rng(0xB17E_5000);
    for p in IsaGen::ALL {
        for _ in 0..300 {
            let n = 8 * (1 + rng.next() % 64) as usize;
            let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
            let mut h = Harness::new(p);
            h.load(&bytes);
            randomize(&mut h, &mut rng);
            let _ = h.run_with(&mut Sink, 500);
        }
    }
}

/// The trace path runs the same instructions without panicking either.
#[test]
fn traced_random_streams() {
    let mut rng = Rng(0x7EAC_E000);
    for p in IsaGen::ALL {
        let pool = templates(p);
        for _ in 0..30 {
            let mut bytes = Vec::new();
            for _ in 0..20 {
                bytes.extend(random_instruction(p, &pool, &mut rng));
            }
            let mut h = Harness::new(p);
            h.load(&bytes);
            randomize(&mut h, &mut rng);
            h.enable_trace();
            let _ = h.run_with(&mut Sink, 200);
        }
    }
}
