//! The EU array's scheduler: round robin with a fixed quantum, so a run is
//! reproducible and threads really interleave; many more threads than
//! slots; the thread-slot identity each thread sees in sr0.

mod eu_array_support;

use baregpu_isa::IsaGen;
use baregpu_soft::eu::array::payload::{Pipeline, RootHeader};
use baregpu_soft::eu::array::{EuArray, EuConfig, Event};
use eu_array_support::*;

/// Thread i (r1.0 = loop count, r1.1 = i) spins r1.0 times, then takes a
/// ticket with an atomic add on dword 0 and stores it at 64 + 4i.
fn ticket_kernel() -> String {
    format!(
        "mov (1|M0) r5.0<1>:ud r1.0<0;1,0>:ud\n\
         LOOP:\n\
         add (1|M0) (ne)f0.0 r5.0<1>:d r5.0<0;1,0>:d -1:d\n\
         (W&f0.0) jmpi LOOP\n\
         mov (8|M0) r112.0<1>:ud 0x0:ud\n\
         mov (8|M0) r113.0<1>:ud 0x1:ud\n\
         send (1|M0) r20:ud r112 dc.untyped_atomic(bti=255, op=add, simd=8, ret) mlen=2 rlen=1\n\
         shl (1|M0) r30.0<1>:ud r1.1<0;1,0>:ud 0x2:ud\n\
         add (1|M0) r30.0<1>:ud r30.0<0;1,0>:ud 0x40:ud\n\
         mov (8|M0) r112.0<1>:ud r30.0<0;1,0>:ud\n\
         mov (8|M0) r113.0<1>:ud r20.0<0;1,0>:ud\n\
         send (1|M0) null:ud r112 dc.untyped_write(bti=255, simd=8, mask=x) mlen=2 rlen=0\n\
         {}",
        end_thread(IsaGen::Gen7)
    )
}

const SPINS: [u32; 6] = [60, 10, 40, 20, 50, 30];

/// Runs the ticket threads; returns the tickets and the event log.
fn tickets(quantum: u32) -> (Vec<u32>, Vec<Event>) {
    let mut a = gen7_array(12, 8, quantum);
    a.enable_log();
    let mut mem = memory();
    let prog = program(IsaGen::Gen7, &ticket_kernel());
    let r1s: Vec<Vec<u32>> = SPINS
        .iter()
        .enumerate()
        .map(|(i, s)| vec![*s, i as u32])
        .collect();
    run_threads(&mut a, &mut mem, &prog, &r1s);
    let t = (0..SPINS.len())
        .map(|i| mem.dword(64 + 4 * i as u64))
        .collect();
    (t, a.log().to_vec())
}

#[test]
fn the_same_work_runs_the_same_way_every_time() {
    for quantum in [1, 7, 32, 1000] {
        let first = tickets(quantum);
        let second = tickets(quantum);
        assert_eq!(first, second, "quantum {quantum}");
        // Every thread got a different ticket.
        let mut t = first.0.clone();
        t.sort();
        assert_eq!(t, (0..6).collect::<Vec<u32>>(), "quantum {quantum}");
    }
}

#[test]
fn a_small_quantum_interleaves_threads_and_a_large_one_does_not() {
    // One instruction per turn: every thread advances in lock step, so the
    // shortest spin takes the first ticket.
    let (t, _) = tickets(1);
    let mut by_spin: Vec<usize> = (0..SPINS.len()).collect();
    by_spin.sort_by_key(|&i| SPINS[i]);
    for (rank, &i) in by_spin.iter().enumerate() {
        assert_eq!(t[i], rank as u32, "thread {i} (spins {})", SPINS[i]);
    }
    // A quantum longer than any thread: each runs to its end in its first
    // turn, in slot order, which is dispatch order here.
    let (t, log) = tickets(1_000_000);
    assert_eq!(t, [0, 1, 2, 3, 4, 5]);
    let ended: Vec<usize> = log
        .iter()
        .filter_map(|e| match e {
            Event::Ended { slot, .. } => Some(*slot),
            _ => None,
        })
        .collect();
    // Six threads on 12 EUs: thread 0 of EUs 0-5 (slot = EU * 8).
    assert_eq!(ended, [0, 8, 16, 24, 32, 40]);
}

#[test]
fn many_threads_share_few_slots() {
    // 2 EUs x 2 threads: 500 threads, at most 4 at once.
    let mut a = gen7_array(2, 2, 16);
    let mut mem = memory();
    // Thread i stores 3i + 1 at dword i.
    let prog = program(
        IsaGen::Gen7,
        &format!(
            "shl (1|M0) r30.0<1>:ud r1.0<0;1,0>:ud 0x2:ud\n\
             mul (1|M0) r31.0<1>:ud r1.0<0;1,0>:ud 0x3:uw\n\
             add (1|M0) r31.0<1>:ud r31.0<0;1,0>:ud 0x1:ud\n\
             mov (8|M0) r112.0<1>:ud r30.0<0;1,0>:ud\n\
             mov (8|M0) r113.0<1>:ud r31.0<0;1,0>:ud\n\
             send (1|M0) null:ud r112 dc.untyped_write(bti=255, simd=8, mask=x) mlen=2 rlen=0\n\
             {}",
            end_thread(IsaGen::Gen7)
        ),
    );
    let r1s: Vec<Vec<u32>> = (0..500).map(|i| vec![i]).collect();
    run_threads(&mut a, &mut mem, &prog, &r1s);
    for i in 0..500u64 {
        assert_eq!(mem.dword(4 * i), 3 * i as u32 + 1, "thread {i}");
    }
    let s = a.stats();
    assert_eq!((s.dispatched, s.completed), (500, 500));
    assert_eq!(s.peak_resident, 4);
    assert_eq!(s.messages, 1000, "a write and an EOT each");
}

#[test]
fn the_dispatch_limit_caps_resident_threads() {
    let mut a = gen7_array(4, 4, 8);
    a.set_limit(3);
    let prog = program(IsaGen::Gen7, end_thread(IsaGen::Gen7));
    for _ in 0..3 {
        let slot = a.free_slot().unwrap();
        start(
            &mut a,
            slot,
            &prog,
            Pipeline::Gpgpu,
            RootHeader::default(),
            &[],
            None,
        );
    }
    assert_eq!(a.free_slot(), None, "limit reached with 13 slots free");
    let mut mem = memory();
    a.run(&mut mem, 1000);
    assert!(a.is_idle());
    assert_eq!(a.free_slots(), 3);
}

#[test]
fn threads_spread_over_the_eus_and_see_their_ids_in_sr0() {
    for p in IsaGen::ALL {
        let mut a = EuArray::new(p, EuConfig::for_platform(p));
        let c = a.config();
        let prog = program(p, end_thread(p));
        let n = usize::from(c.eus) + 2;
        for k in 0..n {
            let slot = a.free_slot().unwrap();
            // TID 0 on every EU first, then TID 1.
            let (eu, tid) = (k % usize::from(c.eus), k / usize::from(c.eus));
            assert_eq!(slot, eu * usize::from(c.threads_per_eu) + tid, "{p}");
            start(
                &mut a,
                slot,
                &prog,
                Pipeline::Media,
                RootHeader::default(),
                &[],
                None,
            );
            let t = a.thread(slot).unwrap();
            // sr0.0: FFID 27:24, EUID 11:8, TID 2:0 (000 lines 8016-8036;
            // 003 lines 90560-90620).
            assert_eq!(t.sr0(0), 7 << 24 | (eu as u32) << 8 | tid as u32, "{p}");
            assert_eq!(t.dispatch_mask(), 0xFFFF, "{p}");
        }
        assert_eq!(a.resident(), n);
    }
}

#[test]
fn per_generation_array_shapes() {
    let shape = |p| {
        let c = EuConfig::for_platform(p);
        (c.eus, c.threads_per_eu)
    };
    // 000 line 6840 (four thread slots), 003 lines 765-775 (SNB GT1), and
    // the Mesa device tables for the EU counts the manuals leave out.
    assert_eq!(shape(IsaGen::Gen4), (8, 4));
    assert_eq!(shape(IsaGen::G45), (10, 5));
    assert_eq!(shape(IsaGen::Gen6), (6, 4));
    assert_eq!(shape(IsaGen::Gen7), (12, 8));
}
