//! Multisampled render targets and depth buffers on Sandy Bridge (4X,
//! interleaved): each covered sample tested and written at its own place,
//! the oMask, alpha-to-coverage and alpha-to-one, against addresses this
//! file computes.

use baregpu_hal::Packet;
use baregpu_hal::gen6::commands::Cmd3dstateMultisample;
use baregpu_hal::gen6::structs::{BlendState, DepthStencilState, SurfaceState};

use super::*;
use crate::eu::shared::SampleDispatch;

const RGBA8: u32 = 0x0C7;

/// Sample `s` of pixel (x, y) in a 4X interleaved surface: the 2x2 pixel
/// block at (x/2, y/2) is a 4x4 block of samples made of four 2x2
/// quadrants, quadrant (s % 2, s / 2) holding sample s of the block's
/// pixels in their own 2x2 order (Mesa brw_blorp_blit.cpp, encode_msaa).
pub(super) fn ims4(x: u64, y: u64, s: u64) -> (u64, u64) {
    (
        4 * (x / 2) + 2 * (s % 2) + x % 2,
        4 * (y / 2) + 2 * (s / 2) + y % 2,
    )
}

/// A 4X draw: 3DSTATE_MULTISAMPLE 4X, the Y-tiled render target marked
/// 4X, a D32_FLOAT depth buffer.
fn fixture4() -> Fixture {
    let mut f = Fixture::new(RGBA8, 4);
    f.tile_rt(2);
    let at = SURFACES + 0x40;
    let dw: Vec<u32> = (0..6).map(|i| f.mem.dword(at + 4 * i)).collect();
    let mut ss = SurfaceState::unpack(&dw).unwrap();
    ss.number_of_multisamples = 2;
    f.set_dw(at, &pack(&ss));
    let ms = Cmd3dstateMultisample {
        number_of_multisamples: 2,
        ..Default::default()
    };
    f.packets.set(Cmd3dstateMultisample::NAME, &pack(&ms));
    f.depth_buffer(1);
    f
}

/// [`dispatch`] with per-slot sample coverage and sample depths.
fn ms_dispatch(cover: impl Fn(usize) -> u8, z: impl Fn(usize, usize) -> f32) -> PixelDispatch {
    PixelDispatch {
        samples: Some(alloc::boxed::Box::new(SampleDispatch {
            count: 4,
            coverage: core::array::from_fn(&cover),
            depth: core::array::from_fn(|slot| core::array::from_fn(|s| z(slot, s))),
        })),
        ..dispatch()
    }
}

fn depth_f(f: &Fixture, x: u64, y: u64) -> f32 {
    let b = f.mem.get(f.depth_at(x, y), 4).unwrap();
    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

#[test]
fn covered_samples_pass_their_own_depth_test_and_land_interleaved() {
    let mut rng = Rng(0x5eed_4444);
    for round in 0..10 {
        let mut f = fixture4();
        f.depth_stencil(&DepthStencilState {
            depth_test_enable: true,
            depth_test_function: 2, // LESS
            depth_buffer_write_enable: true,
            ..Default::default()
        });
        // Every sample's stored depth, random.
        let mut old = [[0f32; 4]; 8];
        for (slot, o) in old.iter_mut().enumerate() {
            let (x, y) = xy8(slot);
            for (s, v) in o.iter_mut().enumerate() {
                *v = rng.float(0.0, 1.0);
                let (sx, sy) = ims4(x, y, s as u64);
                let at = f.depth_at(sx, sy);
                f.mem.put(at, &v.to_le_bytes());
            }
        }
        let cover: Vec<u8> = (0..8).map(|_| (rng.next() & 0xf) as u8).collect();
        let z: Vec<[f32; 4]> = (0..8)
            .map(|_| core::array::from_fn(|_| rng.float(0.0, 1.0)))
            .collect();
        let omask: Vec<u16> = (0..8).map(|_| (rng.next() & 0xf) as u16 | 0xfff0).collect();
        let d = ms_dispatch(|s| cover[s % 8], |slot, s| z[slot % 8][s % 4]);
        let mut w = write8(|s| [0.25 * (s % 4) as f32, 0.5, 1.0, 1.0]);
        if round % 2 == 1 {
            let mut m = [0u16; 16];
            m[..8].copy_from_slice(&omask);
            w.omask = Some(m);
        }
        let mut om = f.om().unwrap();
        om.render_target(&mut f.mem, Some(&d), &w).unwrap();
        let mut passed = 0;
        for slot in 0..8 {
            let (x, y) = xy8(slot);
            for s in 0..4 {
                let (sx, sy) = ims4(x, y, s as u64);
                let on = cover[slot] >> s & 1 != 0 && (round % 2 == 0 || omask[slot] >> s & 1 != 0);
                let pass = on && z[slot][s] < old[slot][s];
                passed += usize::from(pass);
                let want_z = if pass { z[slot][s] } else { old[slot][s] };
                assert_eq!(
                    depth_f(&f, sx, sy),
                    want_z,
                    "round {round} slot {slot} sample {s}"
                );
                let want_c = if pass {
                    let r = unorm(0.25 * (slot % 4) as f64, 255.0) as u8;
                    alloc::vec![r, 128, 255, 255]
                } else {
                    alloc::vec![0; 4]
                };
                assert_eq!(
                    f.rt_bytes(sx, sy),
                    want_c,
                    "round {round} slot {slot} sample {s}"
                );
            }
        }
        assert_eq!(om.samples_passed(), passed as u64);
    }
}

#[test]
fn alpha_to_coverage_and_alpha_to_one() {
    let b = BlendState {
        alphatocoverage_enable: true,
        alphatoone_enable: true,
        pre_blend_color_clamp_enable: true,
        ..Default::default()
    };
    // Alpha 0 (and NaN, and below 0) covers nothing, 1 (and above) every
    // covered sample, whose stored alpha alpha-to-one makes 1.
    for (alpha, all) in [
        (0.0f32, false),
        (f32::NAN, false),
        (-2.0, false),
        (1.0, true),
        (3.0, true),
    ] {
        let mut f = fixture4();
        f.blend(0, &b);
        let d = ms_dispatch(|_| 0b0110, |_, _| 0.5);
        let w = write8(|_| [1.0, 0.0, 0.0, alpha]);
        let mut om = f.om().unwrap();
        om.render_target(&mut f.mem, Some(&d), &w).unwrap();
        for slot in 0..8 {
            let (x, y) = xy8(slot);
            for s in 0..4u64 {
                let (sx, sy) = ims4(x, y, s);
                let want = if all && (s == 1 || s == 2) {
                    alloc::vec![255, 0, 0, 255]
                } else {
                    alloc::vec![0; 4]
                };
                assert_eq!(f.rt_bytes(sx, sy), want, "alpha {alpha} sample {s}");
            }
        }
    }
    // Between 0 and 1 the manual gives no mask: refused, nothing written.
    let mut f = fixture4();
    f.blend(0, &b);
    let mut om = f.om().unwrap();
    let e = om
        .render_target(
            &mut f.mem,
            Some(&ms_dispatch(|_| 0xf, |_, _| 0.5)),
            &write8(|_| [1.0, 0.0, 0.0, 0.5]),
        )
        .unwrap_err();
    assert!(matches!(e, crate::eu::send::SendError::Bad(s) if s.contains("alpha-to-coverage")));
    // Alpha-to-one alone: the stored alpha is 1 whatever the shader's.
    let mut f = fixture4();
    f.blend(
        0,
        &BlendState {
            alphatoone_enable: true,
            ..Default::default()
        },
    );
    let mut om = f.om().unwrap();
    om.render_target(
        &mut f.mem,
        Some(&ms_dispatch(|_| 1, |_, _| 0.5)),
        &write8(|_| [0.0, 0.0, 0.0, 0.25]),
    )
    .unwrap();
    assert_eq!(f.rt_bytes(0, 0), [0, 0, 0, 255]);
    // Dithered alpha-to-coverage is refused by name.
    let mut f = fixture4();
    f.blend(
        0,
        &BlendState {
            alphatocoverage_enable: true,
            alphatocoverage_dither_enable: true,
            ..Default::default()
        },
    );
    let mut om = f.om().unwrap();
    assert!(f.run(&mut om, &write8(|_| [0.0; 4])).is_err());
}

#[test]
fn a_1x_target_under_4x_state_is_invalid() {
    let mut f = fixture4();
    let at = SURFACES + 0x40;
    let dw: Vec<u32> = (0..6).map(|i| f.mem.dword(at + 4 * i)).collect();
    let mut ss = SurfaceState::unpack(&dw).unwrap();
    ss.number_of_multisamples = 0;
    f.set_dw(at, &pack(&ss));
    let mut om = f.om().unwrap();
    let e = om
        .render_target(
            &mut f.mem,
            Some(&ms_dispatch(|_| 0xf, |_, _| 0.5)),
            &write8(|_| [1.0; 4]),
        )
        .unwrap_err();
    assert!(
        matches!(e, crate::eu::send::SendError::Bad(s) if s.contains("Number of Multisamples"))
    );
}

#[test]
fn depth_only_pixels_test_and_write_each_covered_sample() {
    let mut f = fixture4();
    f.depth_stencil(&DepthStencilState {
        depth_test_enable: true,
        depth_test_function: 2, // LESS
        depth_buffer_write_enable: true,
        ..Default::default()
    });
    // Stored depth 0.5 everywhere; sample s of slot k at (k + s) / 20.
    for y in 0..16 {
        for x in 0..32 {
            let at = f.depth_at(x, y);
            f.mem.put(at, &0.5f32.to_le_bytes());
        }
    }
    let cover = |slot: usize| (slot * 7 % 16) as u8;
    let z = |slot: usize, s: usize| (slot + s) as f32 / 20.0;
    let mut d = ms_dispatch(cover, z);
    d.mask = 0xff;
    let mut om = f.om().unwrap();
    om.depth_stencil_only(&mut f.mem, &d).unwrap();
    let mut passed = 0;
    for slot in 0..8 {
        // dispatch(): subspans at x 0, 2, 4, 6 (slot / 4 picks one).
        let (x, y) = (
            2 * (slot / 4) as u64 + (slot % 2) as u64,
            (slot % 4 / 2) as u64,
        );
        for s in 0..4 {
            let (sx, sy) = ims4(x, y, s as u64);
            let pass = cover(slot) >> s & 1 != 0 && z(slot, s) < 0.5;
            passed += usize::from(pass);
            let want = if pass { z(slot, s) } else { 0.5 };
            assert_eq!(depth_f(&f, sx, sy), want, "slot {slot} sample {s}");
        }
    }
    assert_eq!(om.samples_passed(), passed as u64);
}
