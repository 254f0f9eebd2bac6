//! Gen4/G45 descriptors built from the field tables of 000.

use super::*;

#[test]
fn gen4_math_from_the_manual() {
    // 000 line 1030: `send (16) r5 m3 r0 0x01110001` is an extended math
    // INV. Gen4 descriptor: SFID 27:24, mlen 23:20, rlen 19:16, function
    // control 15:0 (000 lines 13393-13396).
    let raw = 0x0111_0001u32;
    let sfid = tables::lookup(&tables::for_platform(Gen4).sfids, raw >> 24 & 0xF).unwrap();
    assert_eq!(sfid, Sfid::Math);
    let d = desc(
        (raw >> 20 & 0xF) as u8,
        (raw >> 16 & 0xF) as u8,
        false,
        raw & 0xFFFF,
    );
    let Ok(Message::Math(m)) = decode(Gen4, sfid, &d) else {
        panic!()
    };
    assert_eq!(m.function, MathFn::Inv);
    assert!(!m.signed && !m.partial && !m.saturate && !m.scalar && !m.snapshot);
    // 000 lines 5873-5882: 4h SQRT, bit 4 signed, 5 partial, 6 saturate,
    // 7 scalar, 8 snapshot.
    let fc = 0x4 | 1 << 4 | 1 << 5 | 1 << 6 | 1 << 7 | 1 << 8;
    assert_eq!(
        dec(G45, Sfid::Math, fc).unwrap(),
        Message::Math(MathMsg {
            function: MathFn::Sqrt,
            signed: true,
            partial: true,
            saturate: true,
            scalar: true,
            snapshot: true,
        })
    );
    assert!(matches!(
        dec(Gen4, Sfid::Math, 0xB).unwrap(),
        Message::Math(MathMsg {
            function: MathFn::IntDivQuotientRemainder,
            ..
        })
    ));
    for code in [0x0, 0x9, 0xE, 0xF] {
        refused(dec(Gen4, Sfid::Math, code), reserved(3, 0, code));
    }
    // 15:9 reserved MBZ (000 line 5872).
    refused(dec(Gen4, Sfid::Math, 0x1 | 1 << 9), |e| {
        *e == MessageError::StrayBits { bits: 1 << 9 }
    });
    // Gen6: math is an instruction; SFID 1 is reserved (003 line 100943).
    refused(dec(Gen6, Sfid::Math, 1), |e| {
        matches!(e, MessageError::NoSuchFunction { .. })
    });
}

#[test]
fn gen4_sampler_type_and_length_select_the_message() {
    // Gen4: 15:14 type, 13:12 return format, 11:8 sampler, 7:0 BTI (000
    // lines 3944-3947). Type 11 with MLEN 4 is SIMD8 ld (000 line 4015);
    // return format 10 is UINT32.
    let fc = 0b11 << 14 | 0b10 << 12 | 3 << 8 | 5;
    let want = SamplerMsg {
        bti: 5,
        sampler: 3,
        op: SamplerOp::Ld,
        simd: SamplerSimd::Simd8,
        ret: Some(ReturnFormat::U32),
    };
    assert_eq!(
        decode(Gen4, Sfid::Sampler, &desc(4, 4, false, fc)).unwrap(),
        Message::Sampler(want)
    );
    // Type 10, MLEN 9: SIMD16 sample_c (line 4007); MLEN 3: SIMD16 resinfo
    // (line 4021). G45 has the type in 15:12 and no return format.
    let sc = decode(G45, Sfid::Sampler, &desc(9, 8, false, 0b10 << 12 | 1)).unwrap();
    let Message::Sampler(s) = sc else { panic!() };
    assert_eq!(
        (s.op, s.simd, s.ret),
        (SamplerOp::SampleC, SamplerSimd::Simd16, None)
    );
    let Message::Sampler(s) = decode(G45, Sfid::Sampler, &desc(3, 8, false, 0b10 << 12)).unwrap()
    else {
        panic!()
    };
    assert_eq!((s.op, s.simd), (SamplerOp::Resinfo, SamplerSimd::Simd16));
    // Type 00 with MLEN 8 is in no row of the table.
    refused(decode(Gen4, Sfid::Sampler, &desc(8, 8, false, 0)), |e| {
        *e == MessageError::SamplerLength {
            msg_type: 0,
            mlen: 8,
        }
    });
    // Return format 01 is reserved (line 3945); G45 codes above 3 have no
    // table entry (sample_unorm's code is not given, lines 4023-4025).
    refused(
        decode(Gen4, Sfid::Sampler, &desc(4, 4, false, 0b01 << 12)),
        reserved(13, 12, 1),
    );
    refused(
        decode(G45, Sfid::Sampler, &desc(4, 4, false, 5 << 12)),
        reserved(15, 12, 5),
    );
}

#[test]
fn gen4_data_port_read_and_write_units() {
    // Gen4 read: 15:14 cache (01 render), 13:12 type (00 OWord block),
    // 11:8 control, block size 10:8 = 010 two OWords (000 lines 4479-4482,
    // 4568).
    let d = dp(Gen4, Sfid::DataPortRead, 0b01 << 14 | 0b010 << 8 | 7);
    assert_eq!(d.port, DpPort::Read(ReadCache::Render));
    assert_eq!(
        d.op,
        DpOp::OwordBlockRead {
            bti: 7,
            owords: OwordBlocks::Two
        }
    );
    // G45 read: type 13:11 = 110 DWord scattered, 9:8 = 11 sixteen DWords
    // (000 lines 4493, 4835).
    let d = dp(G45, Sfid::DataPortRead, 0b110 << 11 | 0b11 << 8 | 255);
    assert_eq!(
        d.op,
        DpOp::DwordScatteredRead {
            bti: 255,
            simd: ScatterSimd::Simd16
        }
    );
    refused(
        dec(G45, Sfid::DataPortRead, 0b101 << 11),
        reserved(13, 11, 0b101),
    );
    refused(
        dec(Gen4, Sfid::DataPortRead, 0b11 << 14),
        reserved(15, 14, 3),
    );
    // Write: 15 commit, 14:12 = 100 render-target write, 11 last RT, 10:8
    // = 000 SIMD16 (000 lines 4479-4480, 4961-4966).
    let d = dp(
        Gen4,
        Sfid::DataPortWrite,
        1 << 15 | 0b100 << 12 | 1 << 11 | 3,
    );
    assert!(d.commit);
    assert_eq!(
        d.op,
        DpOp::RtWrite {
            bti: 3,
            mode: RtMode::Simd16,
            last: true,
            slot_hi: false
        }
    );
    refused(
        dec(Gen4, Sfid::DataPortWrite, 0b100 << 12 | 0b101 << 8),
        reserved(10, 8, 0b101),
    );
    // 110 is reserved on Gen4 and RT UNORM write on G45 (000 lines 4480, 4493).
    refused(
        dec(Gen4, Sfid::DataPortWrite, 0b110 << 12),
        reserved(14, 12, 0b110),
    );
    assert!(matches!(
        dp(G45, Sfid::DataPortWrite, 0b110 << 12).op,
        DpOp::RtUnormWrite { .. }
    ));
    // Streamed VB write counters are G45 only; Gen4 ignores bits 10:8 (000
    // lines 5272-5274), which must then be 0.
    let all = SvbInc {
        svbi: true,
        prims_written: true,
        storage_needed: true,
    };
    assert_eq!(
        dp(G45, Sfid::DataPortWrite, 0b101 << 12 | 0b111 << 8).op,
        DpOp::SvbWrite { bti: 0, inc: all }
    );
    refused(
        dec(Gen4, Sfid::DataPortWrite, 0b101 << 12 | 0b111 << 8),
        |e| *e == MessageError::StrayBits { bits: 0x700 },
    );
    // Media block read, vertical line stride override bits 10, 9, 8 (000
    // lines 4733-4746); flush render cache 111 (line 4480).
    let v = Vls {
        enable: true,
        stride: true,
        offset: false,
    };
    assert_eq!(
        dp(Gen4, Sfid::DataPortRead, 0b10 << 12 | 0b110 << 8 | 9).op,
        DpOp::MediaBlockRead { bti: 9, vls: v }
    );
    assert_eq!(
        dp(Gen4, Sfid::DataPortWrite, 0b111 << 12 | 4).op,
        DpOp::FlushRenderCache { bti: 4 }
    );
}

#[test]
fn gen4_gateway_urb_spawner_null() {
    // Gateway: 1:0 sub-function (10 forward), 14 AckReq, 15 notify (000
    // lines 6343-6346); 11 reserved; 13:2 MBZ.
    let g = dec(Gen4, Sfid::Gateway, 0b10 | 1 << 14 | 1 << 15).unwrap();
    assert_eq!(
        g,
        Message::Gateway(GatewayMsg {
            op: GatewayOp::Forward,
            ack: true,
            notify: Notify::N0
        })
    );
    refused(dec(Gen4, Sfid::Gateway, 0b11), reserved(1, 0, 3));
    refused(dec(Gen4, Sfid::Gateway, 0b100), |e| {
        *e == MessageError::StrayBits { bits: 0b100 }
    });
    // URB: 15 complete, 14 used, 13 allocate, 11:10 swizzle (01 interleave),
    // 9:4 offset, 3:0 opcode 0 (000 lines 6590-6606).
    let fc = 1 << 15 | 1 << 13 | 0b01 << 10 | 5 << 4;
    let want = UrbMsg::Legacy {
        op: UrbOp::Write,
        offset: 5,
        swizzle: UrbSwizzle::Interleave,
        allocate: true,
        used: false,
        complete: true,
        fc_pass: false,
    };
    assert_eq!(dec(Gen4, Sfid::Urb, fc).unwrap(), Message::Urb(want));
    refused(dec(Gen4, Sfid::Urb, 0b11 << 10), reserved(11, 10, 3));
    refused(dec(Gen4, Sfid::Urb, 1), reserved(3, 0, 1));
    // Bit 12, fast-composite pass, is G45 only (000 line 6597).
    refused(dec(Gen4, Sfid::Urb, 1 << 12), |e| {
        *e == MessageError::StrayBits { bits: 1 << 12 }
    });
    assert!(matches!(
        dec(G45, Sfid::Urb, 1 << 12).unwrap(),
        Message::Urb(UrbMsg::Legacy { fc_pass: true, .. })
    ));
    // Thread spawner: 0 opcode, 1 requester, 4 resource select (003 lines
    // 50912-50949).
    assert_eq!(
        dec(Gen4, Sfid::ThreadSpawner, 0b1_0011).unwrap(),
        Message::Spawner(SpawnerMsg {
            spawn: true,
            child: true,
            resource: true
        })
    );
    refused(dec(Gen4, Sfid::ThreadSpawner, 0b100), |e| {
        *e == MessageError::StrayBits { bits: 0b100 }
    });
    assert_eq!(dec(Gen4, Sfid::Null, 0).unwrap(), Message::Null);
    refused(dec(Gen4, Sfid::Null, 2), |e| {
        *e == MessageError::StrayBits { bits: 2 }
    });
}
