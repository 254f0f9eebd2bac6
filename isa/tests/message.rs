//! Typed message descriptors (`baregpu_isa::message`).
//!
//! 1. Descriptors built bit by bit from the manuals' field tables decode to
//!    the typed messages the tables describe, and reserved codes are
//!    refused with the right reason.
//! 2. Exhaustive sweeps of every function-control value of every SFID of
//!    every platform: whatever decodes encodes back to the same bits and
//!    prints to text that parses back to the same bits; the number of
//!    accepted values of the small functions matches the count the field
//!    tables give.
//! 3. A sample of decoded descriptors is disassembled by `intel-gen4disasm`
//!    and the fields it prints are compared with the typed fields.

mod common;
#[path = "message/gen4.rs"]
mod gen4;
#[path = "message/gen4disasm.rs"]
mod gen4disasm;
#[path = "message/gen6_gen7.rs"]
mod gen6_gen7;
#[path = "message/sweep.rs"]
mod sweep;

use baregpu_isa::IsaGen::{self, G45, Gen4, Gen6, Gen7, Gen75};
use baregpu_isa::inst::{MathFn, MsgDesc, Sfid};
use baregpu_isa::message::*;
use baregpu_isa::tables;

pub(crate) fn desc(mlen: u8, rlen: u8, header: bool, function: u32) -> MsgDesc {
    MsgDesc {
        mlen,
        rlen,
        header,
        function,
    }
}

/// Decode with lengths 1/1 and no header.
pub(crate) fn dec(p: IsaGen, sfid: Sfid, fc: u32) -> Result<Message, MessageError> {
    decode(p, sfid, &desc(1, 1, false, fc))
}

pub(crate) fn dp(p: IsaGen, sfid: Sfid, fc: u32) -> DataPortMsg {
    match dec(p, sfid, fc) {
        Ok(Message::DataPort(d)) => d,
        other => panic!("{p} {sfid:?} {fc:#x}: {other:?}"),
    }
}

pub(crate) fn reserved(hi: u8, lo: u8, value: u32) -> impl Fn(&MessageError) -> bool {
    move |e| matches!(e, MessageError::Reserved { hi: h, lo: l, value: v, .. } if *h == hi && *l == lo && *v == value)
}

#[track_caller]
pub(crate) fn refused(r: Result<Message, MessageError>, why: impl Fn(&MessageError) -> bool) {
    match r {
        Err(e) if why(&e) => {}
        other => panic!("expected a specific refusal, got {other:?}"),
    }
}

pub(crate) fn sfids(p: IsaGen) -> Vec<Sfid> {
    tables::for_platform(p)
        .sfids
        .iter()
        .flatten()
        .copied()
        .collect()
}

/// Function-control width: 15:0 on Gen4/G45, 18:0 from Gen6.
pub(crate) fn width(p: IsaGen) -> u32 {
    if p < Gen6 { 16 } else { 19 }
}

// ---------------------------------------------------------------- encode, text

#[test]
fn encode_refuses_what_the_platform_lacks() {
    let rt = Message::DataPort(DataPortMsg {
        port: DpPort::RenderCache,
        commit: true,
        op: DpOp::RtWrite {
            bti: 0,
            mode: RtMode::Simd16,
            last: true,
            slot_hi: false,
        },
    });
    assert!(encode(Gen6, &rt, 8, 0, true).is_ok());
    // Gen7 has no write-commit bit.
    assert!(matches!(
        encode(Gen7, &rt, 8, 0, true),
        Err(MessageError::NotOnPlatform { .. })
    ));
    // Header bit does not exist on Gen4; rlen has 4 bits there.
    let null = Message::Null;
    assert!(matches!(
        encode(Gen4, &null, 1, 0, true),
        Err(MessageError::Length { .. })
    ));
    assert!(matches!(
        encode(Gen4, &null, 1, 16, false),
        Err(MessageError::Length { .. })
    ));
    assert!(encode(Gen6, &null, 1, 16, false).is_ok());
    let scratch = Message::DataPort(DataPortMsg {
        port: DpPort::DataCache,
        commit: false,
        op: DpOp::ScratchRead {
            regs: 3,
            offset: 0,
            dword: false,
            invalidate: false,
        },
    });
    assert!(matches!(
        encode(Gen7, &scratch, 1, 3, true),
        Err(MessageError::OutOfRange { .. })
    ));
    let urb = Message::Urb(UrbMsg::Legacy {
        op: UrbOp::Write,
        offset: 64,
        swizzle: UrbSwizzle::None,
        allocate: false,
        used: false,
        complete: false,
        fc_pass: false,
    });
    assert!(matches!(
        encode(Gen4, &urb, 1, 0, false),
        Err(MessageError::OutOfRange { .. })
    ));
}

#[test]
fn symbolic_examples() {
    let cases: [(IsaGen, &str, Sfid, u32); 8] = [
        (
            Gen7,
            "dc.untyped_read(bti=1, simd=8, mask=xyzw) mlen=2 rlen=4",
            Sfid::DpDataCache,
            5 << 14 | 2 << 12 | 1,
        ),
        (
            Gen4,
            "math.sqrt(sat, scalar) mlen=1 rlen=1",
            Sfid::Math,
            4 | 1 << 6 | 1 << 7,
        ),
        (
            Gen4,
            "dpr.oword_block_read(bti=2, owords=2, cache=render) mlen=1 rlen=1",
            Sfid::DataPortRead,
            1 << 14 | 2 << 8 | 2,
        ),
        (
            Gen6,
            "rc.dword_atomic(bti=3, op=add) mlen=3 rlen=1 hdr",
            Sfid::DpRenderCache,
            7 << 13 | 3,
        ),
        (
            Gen7,
            "dc.scratch_read(regs=4, offset=0x20) mlen=1 rlen=4 hdr",
            Sfid::DpDataCache,
            1 << 18 | 3 << 12 | 0x20,
        ),
        (
            Gen75,
            "gw.barrier(notify=n0) mlen=1 rlen=0",
            Sfid::Gateway,
            4 | 1 << 15,
        ),
        (
            Gen6,
            "ts.deref(child) mlen=1 rlen=0",
            Sfid::ThreadSpawner,
            0b10,
        ),
        (
            Gen6,
            "vme.raw(fc=0x1a000) mlen=4 rlen=6 hdr",
            Sfid::Vme,
            0x1a000,
        ),
    ];
    for (p, text, sfid, fc) in cases {
        let (s, d) = parse_symbolic(p, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(s, sfid, "{text}");
        assert_eq!(d.function, fc, "{text}");
        let again = print_symbolic(p, s, &d).unwrap();
        assert_eq!(parse_symbolic(p, &again).unwrap(), (s, d), "{again}");
    }
    // Errors point at the problem.
    assert!(parse_symbolic(Gen7, "dc.untyped_read(bti=1, simd=9) mlen=2 rlen=4").is_err());
    assert!(parse_symbolic(Gen7, "dc.untyped_read(bti=1, simd=8, ret) mlen=2 rlen=4").is_err());
    assert!(parse_symbolic(Gen7, "xx.untyped_read(bti=1) mlen=2 rlen=4").is_err());
    assert!(parse_symbolic(Gen6, "dc.fence(bti=0) mlen=1 rlen=0").is_err());
    assert!(parse_symbolic(Gen7, "dc.untyped_read(bti=256, simd=8) mlen=2 rlen=4").is_err());
}
