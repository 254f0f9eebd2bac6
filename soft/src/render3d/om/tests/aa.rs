//! Anti-aliased line coverage in the output merger: source-0 alpha times
//! the windower's Antialias Alpha (U0.8) before alpha test and blending
//! (003 lines 44750-44751, 38183-38189), against a host reference.

use baregpu_hal::gen6::structs::{BlendState, ColorCalcState};

use super::*;

const RGBA8: u32 = 0x0C7;
const RGBA8_UINT: u32 = 0x0CB;

/// [`dispatch`] with coverage `c(slot)`.
fn aa_dispatch(c: impl Fn(usize) -> u8) -> PixelDispatch {
    PixelDispatch {
        aa_alpha: Some(core::array::from_fn(c)),
        ..dispatch()
    }
}

/// Coverage of slot `s` in these tests: a spread over 0-255, 255 included.
fn coverage(s: usize) -> u8 {
    [0, 1, 64, 127, 128, 200, 254, 255][s % 8]
}

#[test]
fn coverage_scales_source_alpha_before_blending() {
    let mut rng = Rng(0x0dd_ba11_cafe_f00d);
    for round in 0..20 {
        let mut f = Fixture::new(RGBA8, 4);
        // SRC_ALPHA, INV_SRC_ALPHA, ADD on colour and alpha.
        f.blend(
            0,
            &BlendState {
                color_buffer_blend_enable: true,
                source_blend_factor: 0x03,
                destination_blend_factor: 0x13,
                pre_blend_color_clamp_enable: true,
                post_blend_color_clamp_enable: true,
                ..Default::default()
            },
        );
        f.color_calc(&ColorCalcState::default());
        let mut dst = [[0u8; 4]; 8];
        for (s, d) in dst.iter_mut().enumerate() {
            *d = core::array::from_fn(|_| rng.next() as u8);
            let (x, y) = xy8(s);
            let at = f.rt_at(x, y);
            f.mem.put(at, d);
        }
        let src: Vec<[f32; 4]> = (0..8)
            .map(|_| core::array::from_fn(|_| rng.float(0.0, 1.0)))
            .collect();
        // The coverage of each slot shifted per round so every slot sees
        // several values; the message's slot 0 is dispatch slot 0.
        let cov = |s: usize| coverage(s + round);
        let d = aa_dispatch(cov);
        let w = write8(|s| src[s]);
        let mut om = f.om().unwrap();
        om.render_target(&mut f.mem, Some(&d), &w).unwrap();
        for s in 0..8 {
            let (x, y) = xy8(s);
            let got = f.rt_bytes(x, y);
            let a = f64::from(src[s][3]) * f64::from(cov(s)) / 255.0;
            for ch in 0..4 {
                let sv = if ch == 3 { a } else { f64::from(src[s][ch]) };
                let dv = f64::from(dst[s][ch]) / 255.0;
                let v = (sv * a + dv * (1.0 - a)).clamp(0.0, 1.0);
                let frac = v * 255.0 - (v * 255.0).floor();
                if (frac - 0.5).abs() < 0.01 {
                    continue;
                }
                assert_eq!(
                    u32::from(got[ch]),
                    unorm(v, 255.0),
                    "round {round} slot {s} ch {ch}: coverage {}",
                    cov(s)
                );
            }
        }
    }
}

#[test]
fn alpha_test_sees_the_attenuated_alpha() {
    // Alpha 0.8 everywhere; FLOAT32 test GREATER than 0.5: passes where
    // 0.8 * c / 255 > 0.5, i.e. c > 159.375.
    for s0a in [false, true] {
        let mut f = Fixture::new(RGBA8, 4);
        f.blend(
            0,
            &BlendState {
                alpha_test_enable: true,
                alpha_test_function: 5, // GREATER
                ..Default::default()
            },
        );
        f.color_calc(&ColorCalcState {
            alpha_test_format: 1,
            alpha_reference_value: 0.5f32.to_bits(),
            ..Default::default()
        });
        let cov = |s: usize| [0u8, 100, 159, 160, 161, 200, 254, 255][s % 8];
        let mut w = write8(|_| [1.0, 1.0, 1.0, if s0a { 0.0 } else { 0.8 }]);
        if s0a {
            // The separate source-0 alpha is attenuated too.
            let mut a = [0u32; 16];
            a[..8].fill(0.8f32.to_bits());
            w.src0_alpha = Some(a);
        }
        let mut om = f.om().unwrap();
        om.render_target(&mut f.mem, Some(&aa_dispatch(cov)), &w)
            .unwrap();
        for s in 0..8 {
            let pass = 0.8 * f64::from(cov(s)) / 255.0 > 0.5;
            let (x, y) = xy8(s);
            assert_eq!(
                f.rt_bytes(x, y) != [0; 4],
                pass,
                "s0a {s0a} coverage {}",
                cov(s)
            );
        }
    }
}

#[test]
fn the_dispatch_slot_picks_the_coverage_and_stores_keep_it() {
    // Blending off: the stored alpha is the attenuated one. The message
    // covers dispatch slots 8..16 of a SIMD16 dispatch.
    let mut f = Fixture::new(RGBA8, 4);
    f.blend(
        0,
        &BlendState {
            pre_blend_color_clamp_enable: true,
            ..Default::default()
        },
    );
    let mut w = write8(|_| [0.0, 0.0, 0.0, 1.0]);
    w.dispatch_slot = 8;
    let d = aa_dispatch(|s| if s >= 8 { (s * 10) as u8 } else { 255 });
    let mut om = f.om().unwrap();
    om.render_target(&mut f.mem, Some(&d), &w).unwrap();
    for s in 0..8 {
        let (x, y) = xy8(s);
        assert_eq!(u32::from(f.rt_bytes(x, y)[3]), ((s + 8) * 10) as u32);
    }
    // Without coverage (not a line) the alpha is stored as written.
    let mut om = f.om().unwrap();
    f.run(&mut om, &w).unwrap();
    assert_eq!(f.rt_bytes(0, 0)[3], 255);
}

#[test]
fn integer_targets_refuse_anti_aliased_lines() {
    let mut f = Fixture::new(RGBA8_UINT, 4);
    let w = write8(|_| [0.0; 4]);
    let mut om = f.om().unwrap();
    let e = om
        .render_target(&mut f.mem, Some(&aa_dispatch(coverage)), &w)
        .unwrap_err();
    assert!(matches!(e, crate::eu::send::SendError::Bad(m) if m.contains("integer")));
}
