//! Render-target write as far as clears need (Gen4/G45: 000 lines
//! 4911-5249) and the streamed vertex buffer write (000 lines 5250-5289;
//! 003 lines 86080-86150).

use baregpu_isa::IsaGen;
use baregpu_soft::eu::send::SendError;
use baregpu_soft::eu::shared::surface::format;
use baregpu_soft::eu::shared::{Surface, Tiling};

use super::rig::*;

const RT: u64 = MEM_BASE + 0x1_0000;

/// Header: M0.0 pixel enables; M1.2-M1.5 subspan upper-left X/Y.
fn header(rig: &mut Rig, enables: u32, spans: [(u32, u32); 4]) {
    rig.set(0, [enables, 0, 0, 0, 0, 0, 0, 0]);
    let mut m1 = [0u32; 8];
    for (i, (x, y)) in spans.iter().enumerate() {
        m1[2 + i] = y << 16 | x;
    }
    rig.set(1, m1);
}

#[test]
fn replicated_clear_writes_one_colour_to_lit_pixels() {
    for t in [Tiling::X, Tiling::Y] {
        let mut rig = Rig::new(IsaGen::Gen4);
        let s = Surface::two_d(RT, format::R8G8B8A8_UNORM, 16, 8, 512, t);
        rig.bind(0, s);
        header(
            &mut rig,
            0xFFFF & !(1 << 5),
            [(0, 0), (2, 0), (4, 6), (14, 7)],
        );
        rig.set(
            2,
            [1.0f32, 0.5, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0].map(f32::to_bits),
        );
        rig.ok(
            "dpw.rt_write(bti=0, mode=simd16_rep, last) mlen=3 rlen=0",
            16,
            0,
        );
        // 0.5 * 255 + 0.5 rounds to 128.
        let colour = [255u8, 128, 0, 255];
        let spans = [(0u64, 0u64), (2, 0), (4, 6), (14, 7)];
        for (slot, (sx, sy)) in (0..16).map(|s| (s, spans[s / 4])) {
            let (x, y) = (sx + (slot % 2) as u64, sy + (slot % 4 / 2) as u64);
            let got = rig.mem().get(RT + s.offset(4 * x, y), 4).unwrap().to_vec();
            // Slot 5 is unlit; subspan 3's lower row (y = 8) is outside.
            let want = if slot == 5 || y >= 8 { [0; 4] } else { colour };
            assert_eq!(got, want, "{t:?} slot {slot} at ({x},{y})");
        }
    }
}

#[test]
fn simd8_colour_goes_to_each_slot() {
    let mut rig = Rig::new(IsaGen::G45);
    let s = Surface::two_d(RT, format::R32G32B32A32_FLOAT, 8, 8, 128, Tiling::Linear);
    rig.bind(0, s);
    header(&mut rig, 0xFF, [(2, 2), (4, 2), (0, 0), (0, 0)]);
    for ch in 0..4 {
        rig.set(
            2 + ch,
            core::array::from_fn(|slot| (10 * slot + ch) as f32).map(f32::to_bits),
        );
    }
    rig.ok(
        "dpw.rt_write(bti=0, mode=simd8_lo, last) mlen=6 rlen=0",
        8,
        0,
    );
    for slot in 0..8u64 {
        let (sx, sy) = if slot < 4 { (2, 2) } else { (4, 2) };
        let (x, y) = (sx + slot % 2, sy + slot % 4 / 2);
        for ch in 0..4u64 {
            let got = f32::from_bits(rig.dword(RT + y * 128 + x * 16 + 4 * ch));
            assert_eq!(got, (10 * slot + ch) as f32);
        }
    }
}

#[test]
fn rt_write_with_depth_is_not_modelled() {
    // Gen6+ forms are tested in tests/eu_rt_write.rs.
    let mut rig = Rig::new(IsaGen::Gen4);
    rig.bind(
        0,
        Surface::two_d(RT, format::R8G8B8A8_UNORM, 4, 4, 64, Tiling::Linear),
    );
    header(&mut rig, 0xFF, [(0, 0); 4]);
    let mut m1 = [0u32; 8];
    m1[6] = 1 << 29; // source depth present
    rig.set(1, m1);
    let r = rig.send(
        "dpw.rt_write(bti=0, mode=simd8_lo, last) mlen=7 rlen=0",
        8,
        0,
    );
    assert!(
        matches!(r, Err(SendError::Bad(why)) if why.contains("depth")),
        "{r:?}"
    );
}

#[test]
fn streamed_vertex_buffer_write_stores_the_formats_channels() {
    for (p, text) in [
        (IsaGen::G45, "dpw.svb_write(bti=2) mlen=1 rlen=0"),
        (IsaGen::Gen6, "rc.svb_write(bti=2) mlen=1 rlen=0 hdr"),
    ] {
        let mut rig = Rig::new(p);
        let mut s = Surface::buffer(RT, 10, 12);
        s.format = format::R32G32B32_FLOAT; // 3 channels, 12-byte entries
        rig.bind(2, s);
        rig.fill(RT, 160, |_| 0xEE);
        rig.set(0, [11, 22, 33, 44, 0, 7, 0, 0]); // index 7
        rig.ok(text, 8, 0b1101);
        assert_eq!(rig.dword(RT + 84), 11, "{p:?} R");
        assert_eq!(rig.dword(RT + 88), 0xEEEE_EEEE, "{p:?} G disabled");
        assert_eq!(rig.dword(RT + 92), 33, "{p:?} B");
        assert_eq!(rig.dword(RT + 96), 0xEEEE_EEEE, "{p:?} no A channel");
        // Index 10 is past the 10 entries: dropped.
        rig.set(0, [5, 5, 5, 5, 0, 10, 0, 0]);
        rig.ok(text, 8, 0xF);
        assert_eq!(rig.dword(RT + 120), 0xEEEE_EEEE, "{p:?}");
    }
}
