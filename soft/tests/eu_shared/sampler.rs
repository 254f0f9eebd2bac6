//! The sampler as far as compute needs: ld, point-sampled sample, resinfo
//! on 2D surfaces, SIMD8 and SIMD16, with the write-channel mask and the
//! SIMD16 writeback compaction (000 lines 3962-4274; 003 lines
//! 79177-79440).

use baregpu_isa::IsaGen;
use baregpu_soft::eu::shared::sampler::AddressMode;
use baregpu_soft::eu::shared::surface::format;
use baregpu_soft::eu::shared::{Surface, Tiling};

use super::rig::*;

const TEX: u64 = MEM_BASE + 0x1_0000;

/// A 16 x 8 R32_UINT texture whose texel (x, y) holds 1000 y + x, Y-tiled
/// when asked (the sampler reads through the tiling too).
fn uint_texture(p: IsaGen, t: Tiling) -> Rig {
    let mut rig = Rig::new(p);
    let pitch = 128u32;
    let s = Surface::two_d(TEX, format::R32_UINT, 16, 8, pitch, t);
    for y in 0..8u64 {
        for x in 0..16u64 {
            assert!(
                rig.mem()
                    .set_dword(TEX + s.offset(4 * x, y), (1000 * y + x) as u32)
            );
        }
    }
    rig.bind(1, s);
    rig
}

/// ld's descriptor and payload per platform for SIMD8 (u, v at lod 0):
/// Gen4/G45 header + u v r (000 line 4015); Gen6 header + u v (003 line
/// 79380); Gen7 header + u lod v [ext: mesa, "u, lod, v, r"].
fn ld8(rig: &mut Rig, u: [i32; 8], v: [i32; 8]) {
    let p = rig.p;
    rig.set(0, [0; 8]);
    let text = match p {
        IsaGen::Gen4 => {
            rig.set(1, u.map(|x| x as u32));
            rig.set(2, v.map(|x| x as u32));
            rig.set(3, [0; 8]);
            "sampler.ld(bti=1, sampler=0, simd=8, ret=u32) mlen=4 rlen=4"
        }
        IsaGen::G45 => {
            rig.set(1, u.map(|x| x as u32));
            rig.set(2, v.map(|x| x as u32));
            rig.set(3, [0; 8]);
            "sampler.ld(bti=1, sampler=0, simd=8) mlen=4 rlen=4"
        }
        IsaGen::Gen6 => {
            rig.set(1, u.map(|x| x as u32));
            rig.set(2, v.map(|x| x as u32));
            "sampler.ld(bti=1, sampler=0, simd=8) mlen=3 rlen=4 hdr"
        }
        _ => {
            rig.set(1, u.map(|x| x as u32));
            rig.set(2, [0; 8]);
            rig.set(3, v.map(|x| x as u32));
            "sampler.ld(bti=1, sampler=0, simd=8) mlen=4 rlen=4 hdr"
        }
    };
    rig.ok(text, 8, 0xFF);
}

#[test]
fn ld_fetches_integer_texels_with_default_channels() {
    for p in ALL {
        for t in [Tiling::Linear, Tiling::Y] {
            let mut rig = uint_texture(p, t);
            let u = [0, 1, 15, 7, 16, -1, 3, 2];
            let v = [0, 0, 7, 3, 0, 2, 8, 5];
            ld8(&mut rig, u, v);
            for c in 0..8 {
                let inside = (0..16).contains(&u[c]) && (0..8).contains(&v[c]);
                let r = if inside {
                    (1000 * v[c] + u[c]) as u32
                } else {
                    0
                };
                // R32_UINT has no G, B, A: 0, 0 and integer 1 (000 lines
                // 3541-3648).
                let got = [
                    rig.resp(0)[c],
                    rig.resp(1)[c],
                    rig.resp(2)[c],
                    rig.resp(3)[c],
                ];
                assert_eq!(got, [r, 0, 0, 1], "{p:?} {t:?} lane {c}");
            }
        }
    }
}

#[test]
fn simd16_sample_skips_masked_channels_in_the_writeback() {
    // RGBA8 UNORM 4 x 4; green masked (M0.2 bit 13): red in W0-W1, blue in
    // W2-W3, alpha in W4-W5 (000 line 4189).
    let mut rig = Rig::new(IsaGen::Gen6);
    let s = Surface::two_d(TEX, format::R8G8B8A8_UNORM, 4, 4, 16, Tiling::Linear);
    for y in 0..4u64 {
        for x in 0..4u64 {
            let rgba = [(x * 60) as u8, 7, (y * 80) as u8, 255];
            assert!(rig.mem().put(TEX + y * 16 + 4 * x, &rgba));
        }
    }
    rig.bind(1, s);
    rig.set(0, [0, 0, 1 << 13, 0, 0, 0, 0, 0]);
    // Lane l samples texel (l % 4, l / 4) at its centre.
    let u: [f32; 16] = core::array::from_fn(|l| ((l % 4) as f32 + 0.5) / 4.0);
    let v: [f32; 16] = core::array::from_fn(|l| ((l / 4) as f32 + 0.5) / 4.0);
    rig.set(1, core::array::from_fn(|l| u[l].to_bits()));
    rig.set(2, core::array::from_fn(|l| u[8 + l].to_bits()));
    rig.set(3, core::array::from_fn(|l| v[l].to_bits()));
    rig.set(4, core::array::from_fn(|l| v[8 + l].to_bits()));
    rig.ok(
        "sampler.sample(bti=1, sampler=0, simd=16) mlen=5 rlen=6 hdr",
        16,
        0xFFFF,
    );
    for l in 0..16 {
        let (x, y) = ((l % 4) as f32, (l / 4) as f32);
        let at = |ch: usize| f32::from_bits(rig.resp(2 * ch + l / 8)[l % 8]);
        assert_eq!(at(0), x * 60.0 / 255.0, "red lane {l}");
        assert_eq!(at(1), y * 80.0 / 255.0, "blue lane {l}");
        assert_eq!(at(2), 1.0, "alpha lane {l}");
    }
}

#[test]
fn sample_address_modes_clamp_wrap_and_mirror() {
    for (mode, want) in [
        (AddressMode::Clamp, [0u32, 15, 0, 15]),
        (AddressMode::Wrap, [15, 0, 14, 1]),
        (AddressMode::Mirror, [0, 15, 1, 14]),
        (AddressMode::ClampBorder, [0, 0, 0, 0]),
    ] {
        let mut rig = uint_texture(IsaGen::Gen7, Tiling::Linear);
        rig.units.sampling.address = mode;
        // u = -1/32, 33/32, -3/32, 35/32 in texels of a 16-wide texture:
        // -0.5, 16.5, -1.5, 17.5 -> floor -1, 16, -2, 17.
        let u = [
            -1.0f32 / 32.0,
            33.0 / 32.0,
            -3.0 / 32.0,
            35.0 / 32.0,
            0.0,
            0.0,
            0.0,
            0.0,
        ];
        rig.set(0, u.map(f32::to_bits));
        rig.set(1, [0.0f32.to_bits(); 8]);
        rig.ok(
            "sampler.sample(bti=1, sampler=0, simd=8) mlen=2 rlen=4",
            8,
            0x0F,
        );
        assert_eq!(rig.resp(0)[..4], want, "{mode:?}");
    }
}

#[test]
fn resinfo_reports_the_size_at_a_lod() {
    let mut rig = uint_texture(IsaGen::Gen6, Tiling::Linear);
    rig.set(0, [0; 8]);
    rig.set(1, [0, 1, 2, 3, 0, 0, 0, 0]);
    rig.ok(
        "sampler.resinfo(bti=1, sampler=0, simd=8) mlen=2 rlen=4 hdr",
        8,
        0x0F,
    );
    assert_eq!(rig.resp(0)[..4], [16, 8, 4, 2]);
    assert_eq!(rig.resp(1)[..4], [8, 4, 2, 1]);
}

#[test]
fn unmodelled_sampler_messages_are_unhandled() {
    let mut rig = uint_texture(IsaGen::Gen6, Tiling::Linear);
    rig.set(0, [0; 8]);
    let r = rig.send(
        "sampler.sample_c(bti=1, sampler=0, simd=8) mlen=5 rlen=4 hdr",
        8,
        0xFF,
    );
    assert_eq!(r, Err(baregpu_soft::eu::send::SendError::Unhandled));
}
