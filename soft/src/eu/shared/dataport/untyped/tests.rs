//! The lane-run paths of untyped reads and writes against the slot-by-slot
//! order the messages define, including a payload that leaves the
//! register file part way (what the lane-by-lane order writes before the
//! error must still be written).

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{RegFile, Type};
use baregpu_isa::message;

use crate::eu::send::{Payload, SendError, SendRequest};
use crate::eu::shared::{FlatMemory, MemoryUnits, Surface};
use crate::eu::thread::Thread;

const P: IsaGen = IsaGen::Gen7;
const BUF: u64 = 0x1000;

fn request(text: &str, payload: u8, dst: Option<u8>, channels: u32) -> SendRequest {
    let (sfid, desc) = message::parse_symbolic(P, text).expect("descriptor");
    SendRequest {
        ip: 0,
        sfid: Some(sfid),
        desc: 0,
        mlen: desc.mlen,
        rlen: desc.rlen,
        header: desc.header,
        function: desc.function,
        payload: Payload {
            file: RegFile::Grf,
            reg: payload,
        },
        dst,
        dst_type: Type::Ud,
        exec_size: 16,
        first_channel: 0,
        channels,
        eot: false,
        conditional: false,
        extended: crate::eu::send::ExtendedSend::NONE,
    }
}

fn set_lanes(t: &mut Thread, first: u8, v: impl Fn(usize) -> u32) {
    for l in 0..16 {
        t.set_grf_ud(first + (l / 8) as u8, l % 8, v(l));
    }
}

fn units() -> MemoryUnits {
    let mut u = MemoryUnits::new(FlatMemory::new(BUF, 0x1000));
    u.surfaces.bind(0, Surface::buffer(BUF, 0x1000, 1));
    u
}

#[test]
fn a_write_whose_payload_leaves_the_register_file_keeps_the_lanes_before() {
    // Addresses r123-r124, x data r125-r126, y data r127 and r128 (which
    // does not exist): slot by slot, x is written, then y's slots 0-7,
    // then slot 8 of y fails.
    let mut t = Thread::new(P);
    set_lanes(&mut t, 123, |s| 16 * s as u32);
    set_lanes(&mut t, 125, |s| 0x100 + s as u32);
    for d in 0..8 {
        t.set_grf_ud(127, d, 0x200 + d as u32);
    }
    let mut u = units();
    let req = request(
        "dc.untyped_write(bti=0, simd=16, mask=xy) mlen=6 rlen=0",
        123,
        None,
        0xFFFF,
    );
    let r = u.serve(&mut t, &req);
    assert!(matches!(r, Err(SendError::Bad(_))), "{r:?}");
    for s in 0..16u64 {
        assert_eq!(u.memory.dword(BUF + 16 * s), 0x100 + s as u32, "x {s}");
        let y = if s < 8 { 0x200 + s as u32 } else { 0 };
        assert_eq!(u.memory.dword(BUF + 16 * s + 4), y, "y {s}");
    }
}

#[test]
fn reads_and_writes_of_runs_with_disabled_lanes_touch_only_enabled_lanes() {
    // Lanes read and write consecutive dwords except where disabled.
    let on = 0b1011_0111_1111_0110u32;
    let mut t = Thread::new(P);
    set_lanes(&mut t, 20, |s| 4 * s as u32 + 8);
    set_lanes(&mut t, 22, |s| 0xC000 + s as u32);
    let mut u = units();
    for at in (0..0x1000).step_by(4) {
        u.memory.set_dword(BUF + at, 0xEEEE_0000 | at as u32);
    }
    let w = request(
        "dc.untyped_write(bti=0, simd=16, mask=x) mlen=4 rlen=0",
        20,
        None,
        on,
    );
    u.serve(&mut t, &w).unwrap();
    for s in 0..16u64 {
        let at = 4 * s + 8;
        let want = if on >> s & 1 != 0 {
            0xC000 + s as u32
        } else {
            0xEEEE_0000 | at as u32
        };
        assert_eq!(u.memory.dword(BUF + at), want, "lane {s}");
    }
    // Read them back into r40-r41 marked beforehand.
    set_lanes(&mut t, 40, |_| 0xABAB_ABAB);
    let r = request(
        "dc.untyped_read(bti=0, simd=16, mask=x) mlen=2 rlen=2",
        20,
        Some(40),
        on,
    );
    u.serve(&mut t, &r).unwrap();
    for s in 0..16 {
        let want = if on >> s & 1 != 0 {
            0xC000 + s as u32
        } else {
            0xABAB_ABAB
        };
        assert_eq!(t.grf_ud(40 + (s / 8) as u8, s % 8), want, "lane {s}");
    }
}
