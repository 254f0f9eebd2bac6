//! Decoding arbitrary bytes as a kernel of any generation must never panic,
//! and whatever decodes must encode back to the bytes it came from (native
//! words) or to a word that uncompacts to the same instruction (compact ones).
#![no_main]

use baregpu_isa::kernel::decode_at;
use baregpu_isa::{IsaGen, compact, encode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    let platform = IsaGen::EVERY[selector as usize % IsaGen::EVERY.len()];
    let mut offset = 0;
    while offset < bytes.len() {
        let Ok(entry) = decode_at(platform, bytes, offset) else {
            break;
        };
        let native = encode(platform, &entry.inst).expect("a decoded instruction encodes");
        let size = if entry.compacted { 8 } else { 16 };
        if entry.compacted {
            let words: [u32; 2] = core::array::from_fn(|i| {
                let b = &bytes[offset + 4 * i..offset + 4 * i + 4];
                u32::from_le_bytes([b[0], b[1], b[2], b[3]])
            });
            let expanded = compact::uncompact(platform, words).expect("it uncompacted once");
            assert_eq!(baregpu_isa::codec::from_dwords(expanded), native);
        } else {
            let original = &bytes[offset..offset + 16];
            let mut le = [0u8; 16];
            le.copy_from_slice(&native.to_le_bytes());
            assert_eq!(original, &le[..], "native round trip at {offset:#x}");
        }
        offset += size;
    }
});
