//! Differential test of the Gen12.5 sampler messages
//! (`baregpu_isa::message::xe_sampler`) against `iga64 -p=12p71`:
//! generated messages over every SIMD mode (SIMD32/64 included), message
//! type, surface, sampler and flag are encoded by us into sends that iga64
//! assembles to our bits and comments as we do; then random descriptor
//! bits read the same in both, or are refused by us for a reserved SIMD
//! mode (7), a message type no source names in its SIMD mode's table, or
//! bit 31.

mod common;
mod xehpg_sends;

use baregpu_isa::inst::Sfid;
use baregpu_isa::message::xe_sampler::*;
use common::{Rng, ensure_oracles, scratch};
use xehpg_sends::{generated_against_iga, random_against_iga};

/// SIMD8/16 types iga64 names (003's and Mesa's `GFX*_SAMPLER_MESSAGE_*`).
const TYPES: [u8; 26] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16, 17, 18, 20, 22, 23, 24, 25, 26, 28, 29, 30, 31,
];
/// SIMD32/64 types (003 lines 79400-79419 but 3, and iga64's cache flush).
const SIMD32_64_TYPES: [u8; 7] = [0, 2, 8, 10, 11, 12, 31];

const SIMDS: [SamplerSimd; 7] = [
    SamplerSimd::Simd8Integer,
    SamplerSimd::Simd8,
    SamplerSimd::Simd16,
    SamplerSimd::Simd16Integer,
    SamplerSimd::Simd8High,
    SamplerSimd::Simd16High,
    SamplerSimd::Simd32_64,
];

#[test]
fn sampler_messages_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-sampler-iga");
    let mut rng = Rng::new(0x5A4C);
    let msgs: Vec<XeSampler> = (0..4_000)
        .map(|_| {
            let simd = rng.pick(&SIMDS);
            let msg_type = if simd == SamplerSimd::Simd32_64 {
                rng.pick(&SIMD32_64_TYPES)
            } else {
                rng.pick(&TYPES)
            };
            XeSampler {
                bti: rng.below(256) as u8,
                sampler: rng.below(16) as u8,
                msg_type,
                simd,
                return_16bit: rng.chance(3),
                header: rng.chance(2),
            }
        })
        .collect();
    let words: Vec<u32> = msgs
        .iter()
        .map(|m| m.encode().unwrap_or_else(|e| panic!("{m:?}: {e}")))
        .collect();
    let decodes = |n: usize, w: u32| assert_eq!(decode(w), Ok(msgs[n]), "{w:#x}");
    let kinds = generated_against_iga(Sfid::Sampler, &words, decodes, &dir, &mut rng);
    // The message words without the sampler index.
    let names: std::collections::BTreeSet<&str> = kinds
        .iter()
        .filter_map(|k| k.split_once(" using sampler index "))
        .map(|(name, _)| name)
        .collect();
    let simd32_64 = names.iter().filter(|k| k.starts_with("simd32/64")).count();
    eprintln!(
        "gen12.5 sampler: {} generated messages identical both ways, {} distinct texts, {} without the sampler index ({simd32_64} SIMD32/64)",
        msgs.len(),
        kinds.len(),
        names.len()
    );
    // SIMD32/64: 7 types x 16-bit; the others: 26 types x 6 modes x 16-bit
    assert_eq!(simd32_64, 7 * 2, "{names:#?}");
    assert_eq!(names.len(), 7 * 2 + 26 * 6 * 2, "{names:#?}");
}

#[test]
fn sampler_random_descriptors_against_iga64() {
    ensure_oracles();
    let dir = scratch("xehpg-sampler-raw");
    let mut rng = Rng::new(0x5A4D);
    let descs: Vec<u32> = (0..2_000)
        .map(|_| {
            let mut d = (rng.next() as u32) & 0x600F_FFFF;
            if rng.chance(10) {
                d |= 1 << 31;
            }
            d
        })
        .collect();
    let refusable = |d: u32| {
        let code = (d >> 17) & 3 | (d >> 29 & 1) << 2;
        let ty = ((d >> 12) & 0x1F) as u8;
        let named = match code {
            3 => SIMD32_64_TYPES.contains(&ty),
            _ => TYPES.contains(&ty),
        };
        code == 7 || !named || d & 1 << 31 != 0
    };
    let (same, refused) = random_against_iga(Sfid::Sampler, &descs, refusable, &dir, &mut rng);
    eprintln!(
        "gen12.5 sampler: {same} random descriptors read the same as iga64, {refused} refused by us"
    );
    assert!(same > 1_000, "only {same} compared");
}
