//! Gen6 descriptors built from 003's field tables; Gen7/7.5 from the Mesa
//! facts the module cites.

use super::*;

// ---------------------------------------------------------------- Gen6

#[test]
fn gen6_sampler_and_caches() {
    // Sampler: 17:16 SIMD (10 SIMD16), 15:12 type (0011 sample_c), 11:8
    // sampler, 7:0 BTI (003 lines 79176-79204, 79369).
    let fc = 0b10 << 16 | 0b0011 << 12 | 2 << 8 | 9;
    let Message::Sampler(s) = dec(Gen6, Sfid::Sampler, fc).unwrap() else {
        panic!()
    };
    assert_eq!(
        (s.bti, s.sampler, s.op, s.simd, s.ret),
        (9, 2, SamplerOp::SampleC, SamplerSimd::Simd16, None)
    );
    refused(
        dec(Gen6, Sfid::Sampler, 0b1101 << 12),
        reserved(15, 12, 0b1101),
    );
    refused(dec(Gen6, Sfid::Sampler, 1 << 18), |e| {
        *e == MessageError::StrayBits { bits: 1 << 18 }
    });
    // SIMD32/64 (mode 11) messages are kept raw.
    assert_eq!(
        dec(Gen6, Sfid::Sampler, 0b11 << 16 | 5).unwrap(),
        Message::Other {
            sfid: Sfid::Sampler,
            function: 0b11 << 16 | 5
        }
    );
    // Their names (003 lines 79400-79419, 4-bit codes in 15:12): Gen6
    // only, SIMD mode 3 only.
    let named = |p, fc| baregpu_isa::message::simd32_64_name(p, fc);
    assert_eq!(
        named(Gen6, 0b11 << 16 | 0b1100 << 12),
        Some("sample_unorm (media)")
    );
    assert_eq!(named(Gen6, 0b11 << 16 | 0b1000 << 12), Some("deinterlace"));
    assert_eq!(named(Gen6, 0b11 << 16 | 0b0001 << 12), None);
    assert_eq!(named(Gen6, 0b10 << 16 | 0b1100 << 12), None);
    assert_eq!(named(Gen7, 0b11 << 17), None);
    // Sampler cache: 15:13 type 101 unaligned OWord block read, 10:8 = 011
    // four OWords (003 lines 83436-83452, 83814-83826); 17:16 ignored.
    let d = dp(Gen6, Sfid::DpSamplerCache, 0b101 << 13 | 0b011 << 8 | 1);
    assert_eq!(
        d.op,
        DpOp::UnalignedOwordBlockRead {
            bti: 1,
            owords: OwordBlocks::Four
        }
    );
    refused(
        dec(Gen6, Sfid::DpSamplerCache, 0b001 << 13),
        reserved(15, 13, 1),
    );
    refused(dec(Gen6, Sfid::DpSamplerCache, 1 << 16), |e| {
        *e == MessageError::StrayBits { bits: 1 << 16 }
    });
    // Constant cache has no media block read (003 lines 83456-83467).
    refused(
        dec(Gen6, Sfid::DpConstantCache, 0b100 << 13),
        reserved(15, 13, 0b100),
    );
    // Render cache 16:13 = 0111 DWord atomic, 12 two-source, 11:8 = 0111
    // CMPXCHG (003 lines 83488, 84674-84703); 1101-1111 unsupported.
    let d = dp(
        Gen6,
        Sfid::DpRenderCache,
        0b0111 << 13 | 1 << 12 | 0b0111 << 8 | 6,
    );
    assert_eq!(
        d.op,
        DpOp::DwordAtomic {
            bti: 6,
            op: AtomicOp::CmpWr,
            two_src: true
        }
    );
    refused(
        dec(Gen6, Sfid::DpRenderCache, 0b0111 << 13 | 0b1101 << 8),
        reserved(11, 8, 0b1101),
    );
    // RT write: last RT bit 12, slot group 11, 101 SIMD8 image write (SNB
    // only), commit 17 (003 lines 83415, 84949-84991).
    let d = dp(
        Gen6,
        Sfid::DpRenderCache,
        1 << 17 | 0b1100 << 13 | 1 << 12 | 1 << 11 | 0b101 << 8,
    );
    assert!(d.commit);
    assert_eq!(
        d.op,
        DpOp::RtWrite {
            bti: 0,
            mode: RtMode::Simd8Image,
            last: true,
            slot_hi: true
        }
    );
    // DWord scattered block size 00 is reserved (003 lines 84505-84511).
    refused(
        dec(Gen6, Sfid::DpRenderCache, 0b1011 << 13),
        reserved(9, 8, 0),
    );
    // OWord block size 101 (six OWords) is Gen4/G45 only.
    refused(
        dec(Gen6, Sfid::DpRenderCache, 0b101 << 8),
        reserved(10, 8, 0b101),
    );
}

#[test]
fn gen6_gateway_and_urb() {
    // 2:0 = 100 BarrierMsg, 16:15 = 10 N2 (003 lines 87452-87506).
    let g = dec(Gen6, Sfid::Gateway, 0b100 | 0b10 << 15).unwrap();
    assert_eq!(
        g,
        Message::Gateway(GatewayMsg {
            op: GatewayOp::Barrier,
            ack: false,
            notify: Notify::N2
        })
    );
    assert!(matches!(
        dec(Gen6, Sfid::Gateway, 0b011).unwrap(),
        Message::Gateway(GatewayMsg {
            op: GatewayOp::Timestamp,
            ..
        })
    ));
    refused(dec(Gen6, Sfid::Gateway, 0b111), reserved(2, 0, 7));
    refused(dec(Gen6, Sfid::Gateway, 0b11 << 15), reserved(16, 15, 3));
    // Before SNB, 011 and 1xx are reserved (003 line 87508).
    refused(dec(G45, Sfid::Gateway, 0b100), |e| {
        *e == MessageError::StrayBits { bits: 0b100 }
    });
    // URB opcode 1 is FF_SYNC on Gen6 (003 lines 88199-88203) only.
    let u = dec(Gen6, Sfid::Urb, 1 | 1 << 13).unwrap();
    assert!(matches!(
        u,
        Message::Urb(UrbMsg::Legacy {
            op: UrbOp::FfSync,
            allocate: true,
            ..
        })
    ));
    refused(dec(G45, Sfid::Urb, 1), reserved(3, 0, 1));
}

// ---------------------------------------------------------------- Gen7/7.5

#[test]
fn gen7_data_cache_from_mesa_facts() {
    // Untyped surface read: type 17:14 = 5, SIMD mode 13:12 = 2 (SIMD8),
    // 11:8 channel disables 1100 (z, w off) [ext: mesa brw_eu_defines.h
    // GEN7_DATAPORT_DC_UNTYPED_SURFACE_READ, brw_eu.h
    // brw_dp_untyped_surface_rw_desc].
    let d = dp(Gen7, Sfid::DpDataCache, 5 << 14 | 2 << 12 | 0b1100 << 8 | 1);
    assert_eq!(
        d.op,
        DpOp::UntypedRead {
            bti: 1,
            simd: SurfaceSimd::Simd8,
            mask: Channels(0b0011)
        }
    );
    // Gen7.5 moved it to DC1, type 1 [ext: HSW_DATAPORT_DC_PORT1_*].
    refused(dec(Gen75, Sfid::DpDataCache, 5 << 14), reserved(17, 14, 5));
    let d = dp(
        Gen75,
        Sfid::DpDataCache1,
        1 << 14 | 1 << 12 | 0b1110 << 8 | 2,
    );
    assert_eq!(
        d.op,
        DpOp::UntypedRead {
            bti: 2,
            simd: SurfaceSimd::Simd16,
            mask: Channels(0b0001)
        }
    );
    // Untyped atomic: op 11:8 = 7 ADD, SIMD8 bit 12, return bit 13.
    let d = dp(
        Gen7,
        Sfid::DpDataCache,
        6 << 14 | 1 << 13 | 1 << 12 | 7 << 8 | 3,
    );
    assert_eq!(
        d.op,
        DpOp::UntypedAtomic {
            bti: 3,
            op: AtomicOp::Add,
            simd: SurfaceSimd::Simd8,
            ret: true
        }
    );
    refused(dec(Gen7, Sfid::DpDataCache, 6 << 14), reserved(11, 8, 0));
    // Scratch: bit 18, write 17, block size 13:12 = 01 (two registers),
    // HWord offset 11:0 [ext: mesa brw_inst.h scratch_*].
    let d = dp(Gen7, Sfid::DpDataCache, 1 << 18 | 1 << 17 | 1 << 12 | 0x10);
    assert_eq!(
        d.op,
        DpOp::ScratchWrite {
            regs: 2,
            offset: 16,
            dword: false,
            invalidate: false
        }
    );
    refused(
        dec(Gen7, Sfid::DpDataCache, 1 << 18 | 2 << 12),
        reserved(13, 12, 2),
    );
    refused(dec(Gen7, Sfid::DpDataCache, 1 << 18 | 1 << 14), |e| {
        *e == MessageError::StrayBits { bits: 1 << 14 }
    });
    // Fence with commit (control bit 5 = bit 13).
    assert_eq!(
        dp(Gen7, Sfid::DpDataCache, 7 << 14 | 1 << 13).op,
        DpOp::Fence {
            bti: 0,
            commit: true
        }
    );
    // DC1 typed write: 13:12 = 2 high slots; media block (4) stays raw.
    let d = dp(
        Gen75,
        Sfid::DpDataCache1,
        13 << 14 | 2 << 12 | 0b1110 << 8 | 5,
    );
    assert_eq!(
        d.op,
        DpOp::TypedWrite {
            bti: 5,
            slots: Slots::High,
            mask: Channels(1)
        }
    );
    assert!(matches!(
        dec(Gen75, Sfid::DpDataCache1, 4 << 14).unwrap(),
        Message::Other { .. }
    ));
    // Render cache RT write: SIMD8 image write was SNB only.
    refused(
        dec(Gen7, Sfid::DpRenderCache, 12 << 14 | 0b101 << 8),
        reserved(10, 8, 5),
    );
    // The Gen7 sampler-cache port is kept raw; DC1 does not exist on Gen7.
    assert!(matches!(
        dec(Gen7, Sfid::DpSamplerCache, 3).unwrap(),
        Message::Other { .. }
    ));
    refused(dec(Gen7, Sfid::DpDataCache1, 0), |e| {
        matches!(e, MessageError::NoSuchFunction { .. })
    });
}

#[test]
fn gen7_sampler_urb_gateway() {
    // Sampler: 18:17 SIMD, 16:12 type (16 gather4_c; 20 sample_d_c is HSW
    // only) [ext: mesa brw_inst.h, brw_eu_defines.h].
    let Message::Sampler(s) = dec(Gen7, Sfid::Sampler, 1 << 17 | 16 << 12 | 4).unwrap() else {
        panic!()
    };
    assert_eq!(
        (s.op, s.simd, s.bti),
        (SamplerOp::Gather4C, SamplerSimd::Simd8, 4)
    );
    refused(dec(Gen7, Sfid::Sampler, 20 << 12), reserved(16, 12, 20));
    assert!(matches!(
        dec(Gen75, Sfid::Sampler, 20 << 12).unwrap(),
        Message::Sampler(SamplerMsg {
            op: SamplerOp::SampleDC,
            ..
        })
    ));
    // URB: 2:0 opcode (0 write HWord), 13:3 offset, 14 interleave, 15
    // complete, 16 per-slot [ext: mesa brw_inst.h urb_* for gen 7].
    let u = dec(Gen7, Sfid::Urb, 1 << 16 | 1 << 15 | 9 << 3).unwrap();
    assert_eq!(
        u,
        Message::Urb(UrbMsg::Gen7 {
            op: UrbOp7::WriteHword,
            offset: 9,
            interleave: false,
            complete: true,
            per_slot: true
        })
    );
    refused(dec(Gen7, Sfid::Urb, 6), reserved(2, 0, 6));
    // Gateway barrier as Mesa's brw_barrier sends it: notify 01, sub 100.
    assert_eq!(
        dec(Gen75, Sfid::Gateway, 1 << 15 | 4).unwrap(),
        Message::Gateway(GatewayMsg {
            op: GatewayOp::Barrier,
            ack: false,
            notify: Notify::N0
        })
    );
}
