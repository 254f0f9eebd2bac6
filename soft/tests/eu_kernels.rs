//! Whole kernels assembled from text, on data preloaded into GRFs, checked
//! against the same computation on the host; the send seam; the trace.

// Channels index several arrays at once; index loops read best.
#![allow(clippy::needless_range_loop)]

mod eu_support;

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{RegFile, Sfid};
use baregpu_soft::eu::{
    ErrorKind, Harness, NoSharedFunctions, SendError, SendRequest, SharedFunctions, Step, Thread,
};
use eu_support::*;

const ALL: [IsaGen; 5] = IsaGen::ALL;

/// SIMD16 float vector add and a 32-element integer add, two registers per
/// operand; Gen4/G45 use {Compr} for the 16-channel float add.
#[test]
fn vector_add() {
    let mut rng = Rng(11);
    for p in ALL {
        let x: Vec<f32> = (0..16).map(|_| (rng.u32() % 1000) as f32 / 7.0).collect();
        let y: Vec<f32> = (0..16).map(|_| (rng.u32() % 1000) as f32 / 3.0).collect();
        let xi: Vec<u32> = (0..16).map(|_| rng.u32()).collect();
        let yi: Vec<u32> = (0..16).map(|_| rng.u32()).collect();
        let compr = if p <= IsaGen::G45 { " {Compr}" } else { "" };
        let src = format!(
            "add (16|M0) r20.0<1>:f r10.0<8;8,1>:f r12.0<8;8,1>:f{compr}\n\
             add (8|M0) r22.0<1>:d r14.0<8;8,1>:d r16.0<8;8,1>:d\n\
             add (8|M8) r23.0<1>:d r15.0<8;8,1>:d r17.0<8;8,1>:d\n"
        );
        let h = run(p, &src, |h| {
            h.thread.set_dispatch_mask(0xFFFF);
            for i in 0..16 {
                let (r, e) = ((i / 8) as u8, i % 8);
                h.thread.set_grf_f(10 + r, e, x[i]);
                h.thread.set_grf_f(12 + r, e, y[i]);
                h.thread.set_grf_ud(14 + r, e, xi[i]);
                h.thread.set_grf_ud(16 + r, e, yi[i]);
            }
        });
        let mode = if p <= IsaGen::G45 {
            Mode::Rtz
        } else {
            Mode::Rne
        };
        for i in 0..16 {
            let (r, e) = ((i / 8) as u8, i % 8);
            let want = eu_support::add(x[i], y[i], mode);
            assert_eq!(
                h.thread.grf_f(20 + r, e).to_bits(),
                want.to_bits(),
                "{p} float lane {i}"
            );
            assert_eq!(
                h.thread.grf_ud(22 + r, e),
                xi[i].wrapping_add(yi[i]),
                "{p} int lane {i}"
            );
        }
    }
}

/// Dot products of 4-vectors stored SIMD4x2 (two vectors per register),
/// computed with dp4 in Align16 and with mul + mac through the
/// accumulator, against the host.
#[test]
fn dot_product_kernel() {
    let vecs: [[f32; 4]; 4] = [
        [1.0, 2.0, 3.0, 4.0],
        [0.5, -0.25, 8.0, 1.0],
        [3.0, 3.0, 3.0, 3.0],
        [-1.0, 0.0, 2.0, 0.125],
    ];
    let w = [2.0f32, 0.5, -1.0, 4.0];
    for p in ALL {
        // r2, r3: four vectors; r4: w twice; dp4 into r10, r11.
        let src = "dp4 (8|M0) r10.0<1>:f r2.0<4>.xyzw:f r4.0<4>.xyzw:f {Align16}\n\
                   dp4 (8|M0) r11.0<1>:f r3.0<4>.xyzw:f r4.0<4>.xyzw:f {Align16}\n";
        let h = run(p, src, |h| {
            simd8(h);
            for (k, v) in vecs.iter().enumerate() {
                for c in 0..4 {
                    h.thread.set_grf_f(2 + (k / 2) as u8, (k % 2) * 4 + c, v[c]);
                }
            }
            for c in 0..8 {
                h.thread.set_grf_f(4, c, w[c % 4]);
            }
        });
        for (k, v) in vecs.iter().enumerate() {
            let want: f32 = (0..4).map(|c| v[c] * w[c]).sum();
            for c in 0..4 {
                let got = h.thread.grf_f(10 + (k / 2) as u8, (k % 2) * 4 + c);
                assert_eq!(got, want, "{p} vector {k}");
            }
        }
    }
}

/// A longer kernel: y = a * x + b over 16 floats in SIMD8 halves, then a
/// horizontal sum through regions, integer index math and a compare.
#[test]
fn saxpy_and_reduce() {
    for p in ALL {
        let src = "mul (8|M0) r20.0<1>:f r10.0<8;8,1>:f r1.0<0;1,0>:f\n\
                   mul (8|M0) r21.0<1>:f r11.0<8;8,1>:f r1.0<0;1,0>:f\n\
                   add (8|M0) r20.0<1>:f r20.0<8;8,1>:f r1.1<0;1,0>:f\n\
                   add (8|M0) r21.0<1>:f r21.0<8;8,1>:f r1.1<0;1,0>:f\n\
                   add (8|M0) r22.0<1>:f r20.0<8;8,1>:f r21.0<8;8,1>:f\n\
                   add (4|M0) r23.0<1>:f r22.0<4;4,1>:f r22.4<4;4,1>:f\n\
                   add (2|M0) r24.0<1>:f r23.0<2;2,1>:f r23.2<2;2,1>:f\n\
                   add (1|M0) r25.0<1>:f r24.0<0;1,0>:f r24.1<0;1,0>:f\n\
                   cmp (1|M0) (gt)f0.0 null<1>:f r25.0<0;1,0>:f 0x42c80000:f\n\
                   (f0.0) mov (1|M0) r26.0<1>:d 1:d\n";
        let x: Vec<f32> = (0..16).map(|i| i as f32 * 0.5).collect();
        let h = run(p, src, |h| {
            simd8(h);
            h.thread.set_grf_f(1, 0, 2.0);
            h.thread.set_grf_f(1, 1, 1.0);
            for i in 0..16 {
                h.thread.set_grf_f(10 + (i / 8) as u8, i % 8, x[i]);
            }
        });
        let y: Vec<f32> = x.iter().map(|v| 2.0 * v + 1.0).collect();
        for i in 0..16 {
            assert_eq!(
                h.thread.grf_f(20 + (i / 8) as u8, i % 8),
                y[i],
                "{p} y[{i}]"
            );
        }
        let total: f32 = y.iter().sum();
        assert_eq!(h.thread.grf_f(25, 0), total, "{p} sum");
        assert_eq!(
            h.thread.grf_ud(26, 0),
            u32::from(total > 100.0),
            "{p} compare"
        );
    }
}

/// Collects sends; answers with one register of a fixed value.
struct Recorder {
    seen: Vec<SendRequest>,
}

impl SharedFunctions for Recorder {
    fn send(&mut self, thread: &mut Thread, req: &SendRequest) -> Result<(), SendError> {
        self.seen.push(req.clone());
        if let Some(d) = req.dst {
            for i in 0..8 {
                thread.set_grf_ud(d, i, 0x5EED_0000 + i as u32);
            }
        }
        Ok(())
    }
}

/// The send seam: the request carries SFID, lengths, payload location,
/// response register, channel enables and EOT; an EOT ends the thread; a
/// harness without shared functions reports the send.
#[test]
fn send_requests() {
    for p in ALL {
        // Gen4: base MRF m1, implied move from r0; Gen6: payload m1; Gen7:
        // payload r112 (the EOT range).
        let (src, payload) = match p {
            IsaGen::Gen4 | IsaGen::G45 => (
                "send (8|M0) r5:uw m1 r0:ud 0x4 0x110000\nsend (8|M0) null:uw m1 r0:ud 0x7 0x100001 {EOT}\n",
                (RegFile::Mrf, 1),
            ),
            IsaGen::Gen6 => (
                "send (8|M0) r5:uw m1 0x4 0x02110000\nsend (8|M0) null:uw m1 0x7 0x02000001 {EOT}\n",
                (RegFile::Mrf, 1),
            ),
            _ => (
                "send (8|M0) r5:uw r112 0x4 0x02110000\nsend (8|M0) null:uw r112 0x7 0x02000001 {EOT}\n",
                (RegFile::Grf, 112),
            ),
        };
        let mut h = Harness::new(p);
        h.load_asm(src).unwrap_or_else(|e| panic!("{p}: {e}"));
        h.thread.set_dispatch_mask(0xFF);
        for i in 0..8 {
            h.thread.set_grf_ud(0, i, 0xA0 + i as u32);
        }
        let mut rec = Recorder { seen: Vec::new() };
        assert_eq!(h.run_with(&mut rec, 100), Ok(Step::Ended), "{p}");
        assert_eq!(rec.seen.len(), 2, "{p}");
        let r = &rec.seen[0];
        // SFID 4: data port read on Gen4 (000 line 13393), the sampler-cache
        // data port on Gen6+ (003 lines 100937-100968).
        let dp = if p <= IsaGen::G45 {
            Sfid::DataPortRead
        } else {
            Sfid::DpSamplerCache
        };
        assert_eq!(r.sfid, Some(dp), "{p}");
        assert_eq!((r.payload.file, r.payload.reg), payload, "{p}");
        assert_eq!(r.dst, Some(5), "{p}");
        assert_eq!((r.mlen, r.rlen), (1, 1), "{p}");
        assert_eq!(r.channels, 0xFF, "{p}");
        assert!(!r.eot && rec.seen[1].eot, "{p}");
        assert_eq!(rec.seen[1].sfid, Some(Sfid::ThreadSpawner), "{p}");
        assert_eq!(h.thread.grf_ud(5, 3), 0x5EED_0003, "{p} response written");
        if p <= IsaGen::G45 {
            // The implied move copied r0 into m1.
            assert_eq!(&h.thread.mrf()[32..36], &0xA0u32.to_le_bytes(), "{p}");
        }
        // Without shared functions the send is an error at its IP.
        let mut h2 = Harness::new(p);
        h2.load_asm(src).unwrap();
        let e = h2.run(100).unwrap_err();
        assert_eq!((e.ip, e.kind), (0, ErrorKind::UnhandledSend), "{p}");
        let mut h3 = Harness::new(p);
        h3.load_asm(src).unwrap();
        let e = h3
            .run_with(&mut NoSharedFunctions { allow_eot: true }, 100)
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::UnhandledSend, "{p}");
    }
}

/// The trace records IP, text, execution mask and the values written.
#[test]
fn trace_records_instructions() {
    let p = IsaGen::Gen7;
    let mut h = Harness::new(p);
    h.load_asm("mov (8|M0) r1.0<1>:d 5:d\n(f0.0) add (8|M0) r2.0<1>:d r1.0<8;8,1>:d 1:d\n")
        .unwrap();
    h.thread.set_dispatch_mask(0xFF);
    h.thread.set_flag(0, 0b0000_0101);
    h.enable_trace();
    assert_eq!(h.run(10), Ok(Step::EndOfKernel));
    let t = h.trace.as_ref().unwrap();
    assert_eq!(t.len(), 2);
    assert_eq!(t[0].ip, 0);
    assert_eq!(t[1].ip, 16);
    assert!(
        t[0].text.starts_with("mov (8|M0) r1.0<1>:d"),
        "{}",
        t[0].text
    );
    assert_eq!(t[0].exec_mask, 0xFF);
    assert_eq!(t[1].exec_mask, 0b101);
    assert_eq!(t[1].writes, vec![(0, 6), (2, 6)]);
}

/// Errors stop the thread with the IP of the instruction: an undecodable
/// word, a jump into the middle of an instruction, an indirect access out
/// of the register file, the budget.
#[test]
fn errors_carry_the_ip() {
    let p = IsaGen::Gen75;
    let mut h = Harness::new(p);
    let mut bytes = baregpu_isa::text::assemble(p, "mov (8|M0) r1.0<1>:d 5:d\n").unwrap();
    bytes.extend_from_slice(&[0x7F, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    h.load(&bytes);
    let e = h.run(10).unwrap_err();
    assert_eq!(e.ip, 16);
    assert!(matches!(e.kind, ErrorKind::Decode(_)), "{e}");

    let mut h = Harness::new(p);
    h.load_asm("mov (8|M0) r1.0<1>:d r[a0.0]<8;8,1>:d\n")
        .unwrap();
    h.thread.set_a0(0, 127 * 32 + 8);
    let e = h.run(10).unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::IndirectOutOfRange { .. }),
        "{e}"
    );

    let mut h = Harness::new(p);
    h.load_asm("L0:\n(W) jmpi L0\n").unwrap();
    let e = h.run(1000).unwrap_err();
    assert_eq!((e.ip, e.kind), (0, ErrorKind::Budget));

    let mut h = Harness::new(p);
    h.load_asm("mov (8|M0) r1.0<1>:d 5:d\n").unwrap();
    h.thread.set_ip(8);
    let e = h.run(10).unwrap_err();
    assert_eq!((e.ip, e.kind), (8, ErrorKind::NotAnInstruction));
}
