//! Random messages never panic the host. Each round sends one message with
//! a random descriptor (shared function, function-control bits, lengths,
//! header bit) and random payload registers to the memory shared functions
//! of a random memory: a binding table whose SURFACE_STATEs are random
//! bytes (some with their base address moved inside the memory, so that
//! accesses land), a random SAMPLER_STATE pointer, shared local memory.
//! The message may be served or refused with an error; what it must not do
//! is panic, and the thread must come back (ended, at the end of the
//! kernel, or stopped by an error).

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{Body, SendDesc};
use baregpu_soft::eu::shared::sampler::SamplerSource;
use baregpu_soft::eu::shared::{BindingTable, FlatMemory, MemoryUnits};
use baregpu_soft::eu::{Harness, Step};

/// xorshift64*: deterministic, so a failure names its round.
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
}

const MEM_LEN: usize = 1 << 20;
const TABLE: u64 = 0x1000;
/// Binding-table entries written each round (BTIs 0-7).
const ENTRIES: u64 = 8;
const ROUNDS: usize = 8000;

/// A random descriptor: (SFID, 32 descriptor bits).
fn descriptor(p: IsaGen, r: &mut Rng) -> (u32, u32) {
    let (mlen, rlen) = (1 + r.below(15) as u32, r.below(9) as u32);
    if p <= IsaGen::G45 {
        // Gen4: function 15:0, rlen 19:16, mlen 23:20 (000 lines 9000-9040).
        const SFIDS: [u32; 6] = [1, 2, 3, 4, 5, 6];
        let sfid = SFIDS[r.below(SFIDS.len() as u64) as usize];
        let bits = r.next() as u32 & 0xFFFF;
        let function = bti_bits(r, bits);
        (sfid, function | rlen << 16 | mlen << 20)
    } else {
        // Gen6+: function 18:0, header 19, rlen 24:20, mlen 28:25.
        const SFIDS: [u32; 8] = [2, 3, 4, 5, 6, 9, 10, 12];
        let sfid = SFIDS[r.below(SFIDS.len() as u64) as usize];
        let bits = r.next() as u32 & 0x7_FFFF;
        let function = bti_bits(r, bits);
        let header = r.below(2) as u32;
        (sfid, function | header << 19 | rlen << 20 | mlen << 25)
    }
}

/// Function-control bits with bits 7:0 (the binding-table index of the
/// sampler and data-port messages) mostly naming one of the entries the
/// round writes, so that messages reach a surface.
fn bti_bits(r: &mut Rng, function: u32) -> u32 {
    if r.below(4) == 0 {
        function
    } else {
        (function & !0xFF) | r.below(ENTRIES) as u32
    }
}

/// The send of `desc` in the assembler's syntax (payload in m1 before
/// Gen7, r10 on Gen7; response in r40-r47).
fn send(p: IsaGen, simd: u32, (sfid, desc): (u32, u32)) -> String {
    let src = match p {
        IsaGen::Gen4 | IsaGen::G45 => "m1 r0:ud",
        IsaGen::Gen6 => "m1",
        _ => "r10",
    };
    format!("send ({simd}|M0) r40:ud {src} {sfid:#x} {desc:#010x}\n")
}

/// Whether the send in `bytes` carries a descriptor the toolkit decodes.
fn decodes(p: IsaGen, bytes: &[u8]) -> bool {
    let Some(word) = bytes.get(..16).and_then(|b| <&[u8; 16]>::try_from(b).ok()) else {
        return false;
    };
    let Ok(inst) = baregpu_isa::decode_bytes(p, word) else {
        return false;
    };
    match inst.body {
        Body::Send(s) => match (s.sfid, s.desc) {
            (Some(sfid), SendDesc::Imm { desc, .. }) => {
                baregpu_isa::message::decode(p, sfid, &desc).is_ok()
            }
            _ => false,
        },
        _ => false,
    }
}

/// Rewrites the binding table and its SURFACE_STATEs with random bytes,
/// half of them with their base address (dword 1 on every generation)
/// inside the memory.
fn scramble_state(mem: &mut FlatMemory, r: &mut Rng) {
    for bti in 0..ENTRIES {
        let state = 0x2000 + 0x40 * bti;
        assert!(mem.set_dword(TABLE + 4 * bti, state as u32));
        for dw in 0..16 {
            assert!(mem.set_dword(state + 4 * dw, r.next() as u32));
        }
        if r.below(2) == 0 {
            let base = (r.next() as u32) & 0xF_FFC0;
            assert!(mem.set_dword(state + 4, base));
        }
    }
}

fn fuzz(p: IsaGen, seed: u64) {
    let mut r = Rng(seed);
    let mut mem = FlatMemory::new(0, MEM_LEN);
    let noise: Vec<u8> = (0..MEM_LEN).map(|_| r.next() as u8).collect();
    assert!(mem.put(0, &noise));
    let mut units = MemoryUnits::new(mem);
    units.binding_table = Some(BindingTable {
        platform: p,
        table: TABLE,
        surface_state_base: 0,
    });
    units.slm = vec![0; 64 * 1024];
    let (mut sent, mut served) = (0, 0);
    for round in 0..ROUNDS {
        scramble_state(&mut units.memory, &mut r);
        units.samplers = Some(SamplerSource {
            base: 0,
            pointer: (r.next() as u32) & 0xF_FFE0,
        });
        let simd = [8, 16][r.below(2) as usize];
        // Half the rounds draw until the toolkit decodes the descriptor
        // (so the message reaches its handler), half take any bits.
        let want_valid = r.below(2) == 0;
        let mut picked = None;
        for _ in 0..256 {
            let src = send(p, simd, descriptor(p, &mut r));
            let Ok(bytes) = baregpu_isa::text::assemble(p, &src) else {
                // A descriptor the assembler refuses (a length the
                // platform cannot encode).
                continue;
            };
            if !want_valid || decodes(p, &bytes) {
                picked = Some((src, bytes));
                break;
            }
        }
        let Some((src, bytes)) = picked else {
            continue;
        };
        let mut h = Harness::new(p);
        h.load(&bytes);
        h.thread.set_dispatch_mask(r.next() as u32);
        for reg in 0..128u8 {
            for i in 0..8 {
                h.thread.set_grf_ud(reg, i, r.next() as u32);
            }
        }
        let mrf = h.thread.mrf_mut();
        for b in mrf.iter_mut() {
            *b = r.next() as u8;
        }
        sent += 1;
        match h.run_with(&mut units, 100) {
            Ok(Step::EndOfKernel | Step::Ended | Step::Waiting) => served += 1,
            Err(_) => {}
            Ok(Step::Ran) => panic!("{p} round {round}: run returned mid-kernel for {src}"),
        }
    }
    eprintln!("{p}: {sent} messages sent, {served} served");
    // The rounds really exercised the units: most descriptors assemble, and
    // some messages are served rather than refused.
    assert!(
        sent > ROUNDS / 2,
        "{p}: only {sent} of {ROUNDS} rounds sent a message"
    );
    assert!(served > 0, "{p}: no message was served");
}

#[test]
fn random_messages_on_gen4_never_panic() {
    fuzz(IsaGen::Gen4, 0x1234_5678_9ABC_DEF1);
}

#[test]
fn random_messages_on_g45_never_panic() {
    fuzz(IsaGen::G45, 0x0FED_CBA9_8765_4321);
}

#[test]
fn random_messages_on_gen6_never_panic() {
    fuzz(IsaGen::Gen6, 0xA5A5_5A5A_1234_9876);
}

#[test]
fn random_messages_on_gen7_never_panic() {
    fuzz(IsaGen::Gen7, 0x1357_9BDF_2468_ACE0);
}

#[test]
fn random_messages_on_gen75_never_panic() {
    fuzz(IsaGen::Gen75, 0x0BAD_F00D_DEAD_BEEF);
}
