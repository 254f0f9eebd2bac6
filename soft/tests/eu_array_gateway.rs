//! The message gateway of the EU array: Gen7 thread-group barriers with
//! shared local memory, the SNB barrier programmed by MEDIA_GATEWAY_STATE
//! (byte broadcast and N0), Gen4 gateways (open, forward with key and
//! notification, wait), and SNB timestamps.

mod eu_array_support;

use baregpu_isa::IsaGen;
use baregpu_soft::eu::array::payload::{Pipeline, RootHeader};
use baregpu_soft::eu::array::{EuArray, EuConfig, Event, GroupSpec};
use eu_array_support::*;

/// Thread i of a group (r1.0 = i) stores i + 1 in SLM dword i, meets the
/// others at the barrier, then adds SLM dwords 0-3 and stores the sum at
/// 4i.
fn group_kernel(barrier: bool) -> String {
    let mut k = String::from(
        "shl (1|M0) r30.0<1>:ud r1.0<0;1,0>:ud 0x2:ud\n\
         add (1|M0) r31.0<1>:ud r1.0<0;1,0>:ud 0x1:ud\n\
         mov (8|M0) r112.0<1>:ud r30.0<0;1,0>:ud\n\
         mov (8|M0) r113.0<1>:ud r31.0<0;1,0>:ud\n\
         send (1|M0) null:ud r112 dc.untyped_write(bti=254, simd=8, mask=x) mlen=2 rlen=0\n",
    );
    if barrier {
        // M0.2[27:24] = the barrier ID from R0.2 [ext: Mesa emit_barrier].
        k += "mov (8|M0) r112.0<1>:ud 0x0:ud\n\
              and (1|M0) r112.2<1>:ud r0.2<0;1,0>:ud 0x0f000000:ud\n\
              send (8|M0) null:ud r112 gw.barrier() mlen=1 rlen=0\n\
              wait (1|M0) n0.0<0;1,0>:ud\n";
    }
    k += "mov (8|M0) r32.0<1>:uw 0x76543210:v\n\
          shl (8|M0) r112.0<1>:ud r32.0<8;8,1>:uw 0x2:ud\n\
          send (8|M0) r40:ud r112 dc.untyped_read(bti=254, simd=8, mask=x) mlen=1 rlen=1\n\
          add (2|M0) r41.0<1>:ud r40.0<2;2,1>:ud r40.2<2;2,1>:ud\n\
          add (1|M0) r42.0<1>:ud r41.0<0;1,0>:ud r41.1<0;1,0>:ud\n\
          mov (8|M0) r112.0<1>:ud r30.0<0;1,0>:ud\n\
          mov (8|M0) r113.0<1>:ud r42.0<0;1,0>:ud\n\
          send (1|M0) null:ud r112 dc.untyped_write(bti=255, simd=8, mask=x) mlen=2 rlen=0\n";
    k += end_thread(IsaGen::Gen7);
    k
}

/// One group of four threads; returns the four sums and the log.
fn run_group(barrier: bool) -> (Vec<u32>, Vec<Event>) {
    let mut a = gen7_array(2, 4, 8);
    a.enable_log();
    let mut mem = memory();
    let prog = program(IsaGen::Gen7, &group_kernel(barrier));
    let spec = GroupSpec {
        threads: 4,
        barrier_threads: 4,
        barrier: true,
        slm_bytes: 4096,
    };
    let (group, id) = a.open_group(spec).unwrap();
    assert_eq!(id, Some(0), "the first barrier ID");
    for i in 0..4 {
        let slot = a.free_slot().unwrap();
        let h = RootHeader {
            barrier_id: id.unwrap(),
            ..RootHeader::default()
        };
        start(&mut a, slot, &prog, Pipeline::Gpgpu, h, &[i], Some(group));
    }
    let r = a.run(&mut mem, 100_000);
    assert!(a.report().is_none(), "{}", a.report().unwrap());
    assert!(a.is_idle() && !r.stalled);
    assert_eq!(
        a.open_groups(),
        0,
        "the group is freed with its last thread"
    );
    let sums = (0..4).map(|i| mem.dword(4 * i)).collect();
    (sums, a.log().to_vec())
}

#[test]
fn a_barrier_orders_shared_local_memory_between_a_groups_threads() {
    let (sums, log) = run_group(true);
    assert_eq!(sums, [10, 10, 10, 10], "1 + 2 + 3 + 4 seen by every thread");
    // Four arrivals, then one completion, and no thread ends before it.
    let done = log
        .iter()
        .position(|e| matches!(e, Event::BarrierDone { threads: 4 }))
        .expect("the barrier completes");
    let arrivals = log[..done]
        .iter()
        .filter(|e| matches!(e, Event::BarrierArrive { .. }))
        .count();
    assert_eq!(arrivals, 4);
    assert!(!log[..done].iter().any(|e| matches!(e, Event::Ended { .. })));
}

#[test]
fn without_the_barrier_early_threads_miss_later_stores() {
    let (sums, _) = run_group(false);
    // Thread 0 runs first (slot order) and reads before the others store.
    assert_ne!(sums[0], 10, "{sums:?}");
}

#[test]
fn a_barrier_that_cannot_complete_stalls_the_array() {
    let mut a = gen7_array(2, 4, 8);
    let mut mem = memory();
    let prog = program(IsaGen::Gen7, &group_kernel(true));
    // The barrier waits for five threads; only four exist.
    let spec = GroupSpec {
        threads: 4,
        barrier_threads: 5,
        barrier: true,
        slm_bytes: 4096,
    };
    let (group, id) = a.open_group(spec).unwrap();
    for i in 0..4 {
        let slot = a.free_slot().unwrap();
        let h = RootHeader {
            barrier_id: id.unwrap(),
            ..RootHeader::default()
        };
        start(&mut a, slot, &prog, Pipeline::Gpgpu, h, &[i], Some(group));
    }
    let r = a.run(&mut mem, 100_000);
    assert!(r.stalled, "four threads asleep in wait");
    assert_eq!(a.resident(), 4);
    assert!(r.used < 100, "sleeping threads cost nothing: {}", r.used);
}

#[test]
fn only_sixteen_groups_with_barriers_at_once() {
    let mut a = gen7_array(12, 8, 8);
    let spec = GroupSpec {
        threads: 1,
        barrier_threads: 1,
        barrier: true,
        slm_bytes: 0,
    };
    for id in 0..16 {
        assert_eq!(a.open_group(spec).unwrap().1, Some(id));
    }
    assert!(
        a.open_group(spec).is_none(),
        "R0.2[27:24] names 16 barriers"
    );
    let no_barrier = GroupSpec {
        barrier: false,
        ..spec
    };
    assert!(a.open_group(no_barrier).is_some());
}

/// SNB barrier (003 lines 87848-87995): MEDIA_GATEWAY_STATE gives barrier
/// 2 a count of 3 and byte 0x5A; each thread sends BarrierMsg with M0.2 =
/// ID 2, Barrier.Offset 20, waits on n0, then stores r20.0 (where the
/// broadcast put the byte) with a stateless OWord write at OWord r1.0.
#[test]
fn snb_barriers_broadcast_their_byte_and_notify() {
    let p = IsaGen::Gen6;
    let mut a = EuArray::new(p, EuConfig::for_platform(p));
    a.set_barrier_state(2, 0x5A, 3);
    let text = format!(
        "mov (8|M0) m1.0<1>:ud 0x0:ud\n\
         mov (1|M0) m1.2<1>:ud 0x02140000:ud\n\
         send (8|M0) null:ud m1 gw.barrier() mlen=1 rlen=0\n\
         wait (1|M0) n0.0<0;1,0>:ud\n\
         mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud\n\
         mov (1|M0) m1.5<1>:ud 0x0:ud\n\
         mov (1|M0) m1.2<1>:ud r1.0<0;1,0>:ud\n\
         mov (8|M0) m2.0<1>:ud r20.0<0;1,0>:ud\n\
         send (8|M0) null:ud m1 rc.oword_block_write(bti=255, owords=1lo) mlen=2 rlen=0 hdr\n\
         {}",
        end_thread(p)
    );
    let prog = program(p, &text);
    let mut mem = memory();
    for i in 0..3 {
        let slot = a.free_slot().unwrap();
        start(
            &mut a,
            slot,
            &prog,
            Pipeline::Media,
            RootHeader::default(),
            &[i + 1],
            None,
        );
    }
    let r = a.run(&mut mem, 10_000);
    assert!(a.is_idle(), "{r:?} {:?}", a.report());
    assert_eq!(a.stats().barriers, 1);
    for i in 1..=3u64 {
        assert_eq!(mem.dword(16 * i), 0x5A, "thread {i}: the barrier byte");
    }
}

/// Gen4 gateways (000 lines 6320-6475): thread A opens a gateway (RegBase
/// r10, 4 registers, key 0x1234) and waits; B forwards four dwords to A's
/// register RegBase + 1 with the right key and a notification; C uses a
/// wrong key and gets error 011 back. A, woken, stores what arrived; B and
/// C store their acknowledgements.
#[test]
fn gen4_gateways_forward_with_keys_and_notifications() {
    let p = IsaGen::Gen4;
    let mut a = EuArray::new(p, EuConfig::for_platform(p));
    let mut mem = memory();
    // Stateless OWord block write of r(data) at byte r1.1 (Gen4 offsets
    // count bytes, 000 line 4518).
    let store = |data: &str| {
        format!(
            "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud\n\
             mov (1|M0) m1.5<1>:ud 0x0:ud\n\
             mov (1|M0) m1.2<1>:ud r1.1<0;1,0>:ud\n\
             mov (8|M0) m2.0<1>:ud {data}.0<8;8,1>:ud\n\
             send (8|M0) null:uw m1 null:ud dpw.oword_block_write(bti=255, owords=1lo) mlen=2 rlen=0\n"
        )
    };
    let recipient = format!(
        "mov (8|M0) m1.0<1>:ud 0x0:ud\n\
         mov (1|M0) m1.5<1>:ud 0x01400200:ud\n\
         mov (1|M0) m1.4<1>:ud 0x1234:ud\n\
         send (8|M0) null:uw m1 null:ud gw.open() mlen=1 rlen=0\n\
         wait (1|M0) n0.0<0;1,0>:ud\n\
         {}{}",
        store("r11"),
        end_thread(p)
    );
    // r1.0 = key; M0.5: register offset 1 (28:21), 4 dwords (10:8);
    // M0.4: EUID 0, TID 0, key.
    let sender = format!(
        "mov (8|M0) m1.0<1>:ud 0x0:ud\n\
         mov (4|M0) r126.0<1>:uw 0x76543210:v\n\
         mov (4|M0) m1.0<1>:ud r126.0<4;4,1>:uw\n\
         mov (1|M0) m1.5<1>:ud 0x00200400:ud\n\
         mov (1|M0) m1.4<1>:ud r1.0<0;1,0>:ud\n\
         send (8|M0) r30:uw m1 null:ud gw.forward(ack, notify=n0) mlen=1 rlen=1\n\
         {}{}",
        store("r30"),
        end_thread(p)
    );
    let recipient = program(p, &recipient);
    let sender = program(p, &sender);
    start(
        &mut a,
        0,
        &recipient,
        Pipeline::Media,
        RootHeader::default(),
        &[0, 0x100],
        None,
    );
    a.run(&mut mem, 1000);
    assert_eq!(a.resident(), 1, "A waits");
    let (b, c) = (1, 2);
    start(
        &mut a,
        b,
        &sender,
        Pipeline::Media,
        RootHeader::default(),
        &[0x1234, 0x200],
        None,
    );
    start(
        &mut a,
        c,
        &sender,
        Pipeline::Media,
        RootHeader::default(),
        &[0x4321, 0x300],
        None,
    );
    a.run(&mut mem, 100_000);
    assert!(a.is_idle(), "{:?}", a.report());
    // A's r11.0-3: the forwarded dwords 0, 1, 2, 3.
    let got: Vec<u32> = (0..4).map(|d| mem.dword(0x100 + 4 * d)).collect();
    assert_eq!(got, [0, 1, 2, 3]);
    // Acknowledgements: SFID 3 in 19:16, error code in 2:0 (000 lines
    // 6440-6460).
    assert_eq!(mem.dword(0x200), 3 << 16, "B: success");
    assert_eq!(mem.dword(0x300), 3 << 16 | 0b011, "C: key mismatch");
}

/// SNB GetTimeStamp (003 lines 87736-87830): two reads by one thread,
/// low half of the response; time only moves forward and bits 19:0 of the
/// low dwords are zero.
#[test]
fn snb_timestamps_move_forward() {
    let p = IsaGen::Gen6;
    let mut a = EuArray::new(p, EuConfig::for_platform(p));
    let text = format!(
        "mov (8|M0) m1.0<1>:ud 0x0:ud\n\
         send (8|M0) r20:ud m1 gw.timestamp(ack) mlen=1 rlen=1\n\
         add (1|M0) r5.0<1>:ud r5.0<0;1,0>:ud 0x1:ud\n\
         add (1|M0) r5.0<1>:ud r5.0<0;1,0>:ud 0x1:ud\n\
         send (8|M0) r21:ud m1 gw.timestamp(ack) mlen=1 rlen=1\n\
         mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud\n\
         mov (1|M0) m1.5<1>:ud 0x0:ud\n\
         mov (1|M0) m1.2<1>:ud 0x0:ud\n\
         mov (8|M0) m2.0<1>:ud r20.0<8;8,1>:ud\n\
         mov (4|M0) m2.4<1>:ud r21.0<4;4,1>:ud\n\
         send (8|M0) null:ud m1 rc.oword_block_write(bti=255, owords=2) mlen=2 rlen=0 hdr\n\
         {}",
        end_thread(p)
    );
    let prog = program(p, &text);
    let mut mem = memory();
    start(
        &mut a,
        0,
        &prog,
        Pipeline::Media,
        RootHeader::default(),
        &[],
        None,
    );
    a.run(&mut mem, 1000);
    assert!(a.is_idle(), "{:?}", a.report());
    let t = |d: u64| u64::from(mem.dword(d)) | u64::from(mem.dword(d + 4)) << 32;
    let (first, second) = (t(0), t(16));
    assert_eq!(first & 0xF_FFFF, 0);
    assert!(second > first, "{first:#x} then {second:#x}");
    // Absolute and relative time agree in the model.
    assert_eq!(t(8), first);
}
