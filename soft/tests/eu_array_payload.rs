//! What a thread finds at dispatch (R0 per generation and pipeline, the
//! CURBE and inline data after it), and the predecode cache that gives
//! every thread of a kernel the same decoded program.

mod eu_array_support;

use std::sync::Arc;

use baregpu_isa::IsaGen;
use baregpu_soft::eu::array::ProgramCache;
use baregpu_soft::eu::array::payload::{self, Pipeline, RootHeader};
use baregpu_soft::eu::shared::FlatMemory;
use eu_array_support::*;

fn header() -> RootHeader {
    RootHeader {
        urb_handle: 0x1234,
        scoreboard_mask: 0xA5,
        scoreboard: (0x1AB, 0x0CD),
        interface_descriptor: 3,
        barrier_id: 9,
        sampler_state: 0x4567_8FE0,
        scratch_code: 5,
        binding_table: 0x0000_2A40,
        scratch_pointer: 0x0012_3400,
        fftid: 0x42,
        debug_id: 0x7001_0002,
        group_id: [11, 22, 33],
    }
}

#[test]
fn snb_media_r0_follows_table_1_23() {
    // 003 lines 50598-50731, field by field.
    let r0 = payload::r0(IsaGen::Gen6, Pipeline::Media, &header());
    assert_eq!(
        r0[0],
        0xA5 << 24 | 0x1234,
        "scoreboard mask 31:24, URB handle 15:0"
    );
    assert_eq!(r0[1], 0x0CD << 16 | 0x1AB, "scoreboard Y 24:16, X 8:0");
    assert_eq!(
        r0[2],
        9 << 24 | 3 << 4,
        "barrier ID 27:24, descriptor offset 8:4"
    );
    assert_eq!(r0[3], 0x4567_8FE0 | 5, "sampler pointer 31:5, scratch 3:0");
    assert_eq!(r0[4], 0x2A40, "binding table pointer 31:5");
    assert_eq!(
        r0[5],
        0x0012_3400 | 0x42,
        "scratch pointer 31:10, FFTID 7:0"
    );
    assert_eq!((r0[6], r0[7]), (0, 0), "reserved");
    // Ivy Bridge media threads keep the layout.
    assert_eq!(payload::r0(IsaGen::Gen7, Pipeline::Media, &header()), r0);
}

#[test]
fn gen4_r0_has_no_scoreboard_and_carries_the_debug_id() {
    for p in [IsaGen::Gen4, IsaGen::G45] {
        let r0 = payload::r0(p, Pipeline::Media, &header());
        assert_eq!(r0[0], 0x1234, "{p}: URB handle only");
        assert_eq!((r0[1], r0[2]), (0, 0), "{p}: [DevILK+] and [DevSNB] fields");
        assert_eq!(r0[4], 0x2A40);
        assert_eq!(r0[5], 0x0012_3400 | 0x42);
        // {FF unit ID, object ID, root thread ID} (000 lines 1955-1971).
        assert_eq!((r0[6], r0[7]), (0x7001_0002, 0), "{p}");
    }
}

#[test]
fn gpgpu_r0_carries_the_group_id_and_barrier() {
    let r0 = payload::r0(IsaGen::Gen7, Pipeline::Gpgpu, &header());
    // [ext: Mesa emit_cs_work_group_id_setup and emit_barrier].
    assert_eq!((r0[1], r0[6], r0[7]), (11, 22, 33));
    assert_eq!(r0[2] & 0x0F00_0000, 9 << 24);
    assert_eq!(r0[0], 0, "no URB handle in GPGPU mode");
    assert_eq!(r0[4], 0x2A40);
    assert_eq!(r0[5] & 0xFF, 0x42);
}

#[test]
fn constants_then_inline_then_indirect_each_in_whole_registers() {
    let r0 = [1, 2, 3, 4, 5, 6, 7, 8];
    let curbe: Vec<u8> = (0..40).collect();
    let inline = [0xAAAA_0001, 0xAAAA_0002, 0xAAAA_0003];
    let indirect: Vec<u8> = (100..133).collect();
    let g = payload::build(&r0, &curbe, &inline, &indirect).unwrap();
    // R0, 2 CURBE registers, 1 inline, 2 indirect (003 lines 50547-50597,
    // 48187).
    assert_eq!(g.len(), 6 * 32);
    assert_eq!(&g[..4], &1u32.to_le_bytes());
    assert_eq!(&g[32..72], &curbe[..]);
    assert!(g[72..96].iter().all(|b| *b == 0), "CURBE padding");
    assert_eq!(&g[96..100], &0xAAAA_0001u32.to_le_bytes());
    assert_eq!(&g[104..108], &0xAAAA_0003u32.to_le_bytes());
    assert!(g[108..128].iter().all(|b| *b == 0), "inline padding");
    assert_eq!(&g[128..161], &indirect[..]);
    // r0-r127 at most: 1 + 100 + 27 registers fit, one more does not.
    assert!(payload::build(&r0, &[0; 32 * 100], &[0; 8 * 27], &[]).is_ok());
    let e = payload::build(&r0, &[0; 32 * 100], &[0; 8 * 27], &[1]).unwrap_err();
    assert_eq!(e.registers, 129);
}

#[test]
fn curbe_rows_are_cut_from_the_store_and_padded_with_zeros() {
    let store: Vec<u8> = (0..96).collect();
    assert_eq!(payload::curbe_rows(&store, 1, 1), store[32..64].to_vec());
    let tail = payload::curbe_rows(&store, 2, 2);
    assert_eq!(&tail[..32], &store[64..96]);
    assert!(tail[32..].iter().all(|b| *b == 0));
    assert!(payload::curbe_rows(&store, 9, 1).iter().all(|b| *b == 0));
}

/// A kernel at 0x2000 (its last instruction an EOT), then zeros.
fn kernel_memory(p: IsaGen) -> (FlatMemory, usize) {
    let bytes = baregpu_isa::text::assemble(
        p,
        &format!(
            "add (1|M0) r5.0<1>:ud r5.0<0;1,0>:ud 0x1:ud\n{}",
            end_thread(p)
        ),
    )
    .unwrap();
    let mut mem = memory();
    mem.put(0x2000, &bytes);
    (mem, bytes.len())
}

#[test]
fn the_cache_decodes_a_kernel_once_and_ends_it_at_the_first_zero_word() {
    for p in IsaGen::ALL {
        let (mut mem, len) = kernel_memory(p);
        let mut cache = ProgramCache::new();
        let a = cache.get(p, 0x2000, u64::MAX, &mut mem).unwrap();
        // The kernel's instructions, and the all-zero word after them
        // (kept, so reaching it raises the illegal-opcode error).
        assert_eq!(a.len(), len / 16 + 1, "{p}");
        let b = cache.get(p, 0x2000, u64::MAX, &mut mem).unwrap();
        assert!(Arc::ptr_eq(&a, &b), "{p}");
        assert_eq!((cache.stats.decodes, cache.stats.hits), (1, 1), "{p}");
        // After an invalidation, unchanged bytes keep the program.
        cache.invalidate();
        let c = cache.get(p, 0x2000, u64::MAX, &mut mem).unwrap();
        assert!(Arc::ptr_eq(&a, &c), "{p}");
        assert_eq!(cache.stats.decodes, 1, "{p}");
        // New bytes at the same address are decoded again.
        let other = baregpu_isa::text::assemble(p, end_thread(p)).unwrap();
        mem.put(0x2000, &other);
        mem.put(0x2000 + other.len() as u64, &[0; 64]);
        cache.invalidate();
        let d = cache.get(p, 0x2000, u64::MAX, &mut mem).unwrap();
        assert_eq!(cache.stats.decodes, 2, "{p}");
        assert_eq!(d.len(), other.len() / 16 + 1, "{p}");
        // The same address on another platform is another program.
        let q = if p == IsaGen::Gen7 {
            IsaGen::Gen6
        } else {
            IsaGen::Gen7
        };
        let _ = cache.get(q, 0x2000, u64::MAX, &mut mem);
        assert_eq!(cache.stats.decodes, 3, "{p}");
    }
}

#[test]
fn a_kernel_that_cannot_be_fetched_is_a_fault() {
    let mut mem = memory();
    let mut cache = ProgramCache::new();
    let past = MEM_BYTES as u64;
    let e = cache
        .get(IsaGen::Gen7, past, u64::MAX, &mut mem)
        .unwrap_err();
    assert_eq!(e.addr, past);
    // A limit stops the fetch: nothing past it is decoded.
    let (mut mem, _) = kernel_memory(IsaGen::Gen7);
    let one = cache.get(IsaGen::Gen7, 0x2000, 0x2010, &mut mem).unwrap();
    assert_eq!(one.len(), 1);
}
