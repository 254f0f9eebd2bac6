//! Building a 4 KiB batch (1024 dwords) of common Gen6 packets: the
//! generated packers against hand-written shifts, in one run.
//!
//! `cargo bench -p baregpu-hal --bench pack` prints both times and their
//! ratio (target: the generated packers within 10% of hand-written code).

use std::hint::black_box;
use std::time::{Duration, Instant};

use baregpu_hal::Packet;
use baregpu_hal::gen6::commands::{
    MiBatchBufferStart, MiNoop, MiStoreDataImm, MiStoreRegisterMem, PipeControl, XyColorBlt,
};

const BATCH_DWORDS: usize = 1024;

/// One round of the packet mix: 4 + 3 + 4 + 6 + 2 + 1 = 20 dwords.
#[inline(never)]
fn generated(out: &mut [u32; BATCH_DWORDS], seed: u32) -> usize {
    let mut at = 0;
    let mut i = 0u32;
    while at + 20 <= BATCH_DWORDS {
        let v = seed.wrapping_add(i);
        at += MiStoreDataImm {
            use_global_gtt: true,
            address: ((v & 0xffff) << 3) as u64,
            data_dword0: v,
            data_dword1: None,
        }
        .pack(&mut out[at..])
        .unwrap();
        at += MiStoreRegisterMem {
            use_global_gtt: true,
            register_address: 0x2358,
            memory_address: ((v & 0xfff) << 4) as u64,
        }
        .pack(&mut out[at..])
        .unwrap();
        at += PipeControl {
            command_streamer_stall_enable: true,
            post_sync_operation: 1,
            address: ((v & 0xffff) << 3) as u64,
            use_global_gtt: true,
            immediate_data_low: v,
            ..Default::default()
        }
        .pack(&mut out[at..])
        .unwrap();
        at += XyColorBlt {
            bpp32_byte_mask: 3,
            color_depth: 3,
            destination_pitch: 4096,
            destination_x2: (v & 0x7ff) as i32,
            destination_y2: 64,
            destination_base_address: 0x10_0000,
            solid_pattern_color: v,
            ..Default::default()
        }
        .pack(&mut out[at..])
        .unwrap();
        at += MiBatchBufferStart {
            batch_buffer_start_address: ((v & 0xffff) << 2) as u64,
            ..Default::default()
        }
        .pack(&mut out[at..])
        .unwrap();
        at += MiNoop::default().pack(&mut out[at..]).unwrap();
        i += 1;
    }
    at
}

/// The same packets written as a driver would by hand (no range checks).
#[inline(never)]
fn hand_written(out: &mut [u32; BATCH_DWORDS], seed: u32) -> usize {
    let mut at = 0;
    let mut i = 0u32;
    while at + 20 <= BATCH_DWORDS {
        let v = seed.wrapping_add(i);
        let o = &mut out[at..at + 20];
        o[0] = (0x20 << 23) | (1 << 22) | 2;
        o[1] = 0;
        o[2] = (v & 0xffff) << 3;
        o[3] = v;
        o[4] = (0x24 << 23) | (1 << 22) | 1;
        o[5] = 0x2358;
        o[6] = (v & 0xfff) << 4;
        o[7] = (3 << 29) | (3 << 27) | (2 << 24) | 2;
        o[8] = (1 << 20) | (1 << 14);
        o[9] = ((v & 0xffff) << 3) | (1 << 2);
        o[10] = v;
        o[11] = (2 << 29) | (0x50 << 22) | (3 << 20) | 4;
        o[12] = (3 << 24) | 4096;
        o[13] = 0;
        o[14] = (64 << 16) | (v & 0x7ff);
        o[15] = 0x10_0000;
        o[16] = v;
        o[17] = 0x31 << 23;
        o[18] = (v & 0xffff) << 2;
        o[19] = 0;
        at += 20;
        i += 1;
    }
    at
}

fn time(f: fn(&mut [u32; BATCH_DWORDS], u32) -> usize, iters: u32) -> Duration {
    let mut buf = [0u32; BATCH_DWORDS];
    let start = Instant::now();
    for it in 0..iters {
        black_box(f(black_box(&mut buf), black_box(it)));
    }
    start.elapsed()
}

fn main() {
    // Both builders must produce the same batch, or the comparison means nothing.
    let (mut a, mut b) = ([0u32; BATCH_DWORDS], [0u32; BATCH_DWORDS]);
    assert_eq!(generated(&mut a, 7), hand_written(&mut b, 7));
    assert_eq!(a, b, "generated and hand-written batches differ");

    let iters = 20_000;
    let mut best_gen = Duration::MAX;
    let mut best_hand = Duration::MAX;
    for _ in 0..7 {
        best_gen = best_gen.min(time(generated, iters));
        best_hand = best_hand.min(time(hand_written, iters));
    }
    let per = |d: Duration| d.as_nanos() as f64 / iters as f64;
    println!("4 KiB batch of Gen6 packets (best of 7 runs of {iters}):");
    println!("  generated packers: {:8.0} ns per batch", per(best_gen));
    println!("  hand-written:      {:8.0} ns per batch", per(best_hand));
    println!(
        "  ratio generated / hand-written: {:.3}",
        per(best_gen) / per(best_hand)
    );
}
