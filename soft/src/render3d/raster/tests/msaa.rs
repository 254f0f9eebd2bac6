//! Multisampled rasterisation against a host reference: each sample's
//! coverage by the exact top-left rule of `coverage::reference` at the
//! programmed offsets, the sample mask, the per-sample depth from the
//! plane through the vertices, and the refusals.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use baregpu_hal::gen6::commands::{Cmd3dstateMultisample, Cmd3dstateSampleMask};

use super::coverage::reference;
use super::{Recorder, Rig, tri, vue};
use crate::eu::shared::PixelDispatch;
use crate::render3d::types::{DrawError, Object, ObjectKind, PixelThread, Vue};

/// Mesa's standard 4X positions, (x, y) in 16ths (i965
/// brw_multisample_state.h: 0xae2ae662, sample 0 in the low byte).
pub(super) const STD4: [(u8, u8); 4] = [(6, 2), (14, 6), (2, 10), (10, 14)];

/// A triangle whose vertices lie on the 1/16 grid (samples land on its
/// edges) with a depth gradient: (x, y, z).
pub(super) const TRI: [(f64, f64, f64); 3] = [
    (3.25, 2.5, 0.125),
    (40.75, 9.125, 0.5),
    (12.0625, 35.5, 0.875),
];

pub(super) fn tri_vues() -> Vec<Vue> {
    TRI.iter()
        .map(|&(x, y, z)| vue([x as f32, y as f32, z as f32, 1.0], &[[0.0; 4]]))
        .collect()
}

/// The host's samples of every pixel: coverage bits (only non-zero
/// pixels) and the plane's depth at each covered sample.
fn host(offsets: &[(u8, u8)], enabled: u8) -> BTreeMap<(i32, i32), (u8, Vec<f64>)> {
    let t = TRI.map(|(x, y, _)| ((x * 256.0) as i64, (y * 256.0) as i64));
    // z = a x + b y + c through the three vertices (Cramer's rule).
    let [(x0, y0, z0), (x1, y1, z1), (x2, y2, z2)] = TRI;
    let det = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
    let a = ((z1 - z0) * (y2 - y0) - (z2 - z0) * (y1 - y0)) / det;
    let b = ((x1 - x0) * (z2 - z0) - (x2 - x0) * (z1 - z0)) / det;
    let mut m = BTreeMap::new();
    for py in 0..64i32 {
        for px in 0..64i32 {
            let mut bits = 0u8;
            let mut z = Vec::new();
            for (k, &(ox, oy)) in offsets.iter().enumerate() {
                let s = (
                    i64::from(px) * 256 + i64::from(ox) * 16,
                    i64::from(py) * 256 + i64::from(oy) * 16,
                );
                let (sx, sy) = (s.0 as f64 / 256.0, s.1 as f64 / 256.0);
                z.push(z0 + a * (sx - x0) + b * (sy - y0));
                if enabled >> k & 1 != 0 && reference(t, s) {
                    bits |= 1 << k;
                }
            }
            if bits != 0 {
                m.insert((px, py), (bits, z));
            }
        }
    }
    m
}

/// The model's lit pixels with their coverage and sample depths.
fn model(ds: &[PixelDispatch]) -> BTreeMap<(i32, i32), (u8, Vec<f64>)> {
    let mut m = BTreeMap::new();
    for d in ds {
        let s = d
            .samples
            .as_ref()
            .expect("multisampled threads carry their samples");
        for slot in (0..usize::from(d.simd)).filter(|i| d.mask >> i & 1 != 0) {
            let c = d.corners[slot / 4];
            let xy = (
                (c & 0xffff) as i32 + (slot as i32 & 1),
                (c >> 16) as i32 + (slot as i32 >> 1 & 1),
            );
            let z = s.depth[slot][..usize::from(s.count)]
                .iter()
                .map(|&v| f64::from(v))
                .collect();
            m.insert(xy, (s.coverage[slot], z));
        }
    }
    m
}

/// Compares coverage exactly and the covered samples' depth; returns the
/// number of partly covered pixels.
pub(super) fn check(threads: &[PixelThread], offsets: &[(u8, u8)], enabled: u8) -> usize {
    let ds: Vec<PixelDispatch> = threads.iter().map(|t| t.pixels.clone()).collect();
    check_dispatches(&ds, offsets, enabled)
}

fn check_dispatches(ds: &[PixelDispatch], offsets: &[(u8, u8)], enabled: u8) -> usize {
    let want = host(offsets, enabled);
    let got = model(ds);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "lit pixels"
    );
    let full = ((1u16 << offsets.len()) - 1) as u8 & enabled;
    let mut partial = 0;
    for (xy, (bits, z)) in &want {
        let (gb, gz) = &got[xy];
        assert_eq!(gb, bits, "coverage of {xy:?}");
        for k in (0..offsets.len()).filter(|k| bits >> k & 1 != 0) {
            assert!(
                (gz[k] - z[k]).abs() < 1e-5,
                "{xy:?} sample {k}: {} vs {}",
                gz[k],
                z[k]
            );
        }
        partial += usize::from(*bits != full);
    }
    partial
}

fn rig4(mode: u32) -> Rig {
    let mut rig = Rig::new();
    rig.sf.multisample_rasterization_mode = mode;
    rig.wm.multisample_rasterization_mode = mode;
    rig.wm.multisample_dispatch_mode = 1; // PERPIXEL
    let [s0, s1, s2, s3] = STD4;
    rig.set(&Cmd3dstateMultisample {
        number_of_multisamples: 2,
        sample0_x_offset: u32::from(s0.0),
        sample0_y_offset: u32::from(s0.1),
        sample1_x_offset: u32::from(s1.0),
        sample1_y_offset: u32::from(s1.1),
        sample2_x_offset: u32::from(s2.0),
        sample2_y_offset: u32::from(s2.1),
        sample3_x_offset: u32::from(s3.0),
        sample3_y_offset: u32::from(s3.1),
        ..Default::default()
    });
    rig
}

fn one_tri() -> [Object; 1] {
    [tri([0, 1, 2], 0x04, 0)]
}

#[test]
fn gen6_4x_pattern_covers_samples_by_the_top_left_rule() {
    for mode in [1, 3] {
        let mut rig = rig4(mode);
        let t = rig
            .run(&tri_vues(), &one_tri(), &mut Recorder::default())
            .unwrap();
        let partial = check(&t, &STD4, 0xf);
        assert!(partial > 40, "the edges cut pixels ({partial})");
    }
    // The sample mask drops its samples (pixels with none left unlit).
    let mut rig = rig4(3);
    rig.set(&Cmd3dstateSampleMask {
        sample_mask: 0b1010,
    });
    let t = rig
        .run(&tri_vues(), &one_tri(), &mut Recorder::default())
        .unwrap();
    check(&t, &STD4, 0b1010);
}

#[test]
fn gen6_4x_pixel_modes_put_every_sample_at_the_pixel_centre() {
    for mode in [0, 2] {
        let mut rig = rig4(mode);
        let t = rig
            .run(&tri_vues(), &one_tri(), &mut Recorder::default())
            .unwrap();
        assert_eq!(check(&t, &[(8, 8); 4], 0xf), 0, "all or none");
    }
}

#[test]
fn gen6_4x_with_thread_dispatch_off_tests_every_sample() {
    let mut rig = rig4(3);
    rig.wm.thread_dispatch_enable = false;
    let mut om = Recorder::default();
    rig.run(&tri_vues(), &one_tri(), &mut om).unwrap();
    check_dispatches(&om.depth_only, &STD4, 0xf);
}

#[test]
fn multisampling_refusals_are_named() {
    let vs = tri_vues();
    // Per-sample dispatch.
    let mut rig = rig4(3);
    rig.wm.multisample_dispatch_mode = 0;
    assert_eq!(
        rig.run(&vs, &one_tri(), &mut Recorder::default())
            .unwrap_err(),
        DrawError::Unmodelled(
            "per-sample pixel shader dispatch (MSDISPMODE_PERSAMPLE with more than one sample)"
        )
    );
    // SNB: 4X per-pixel with computed depth dispatches SIMD8 only.
    let mut rig = rig4(3);
    rig.wm.pixel_shader_computed_depth = true;
    assert!(matches!(
        rig.run(&vs, &one_tri(), &mut Recorder::default()),
        Err(DrawError::Invalid(s)) if s.contains("SIMD8 only")
    ));
    rig.wm.pixel_dispatch_enable_16 = false;
    rig.wm.pixel_dispatch_enable_8 = true;
    assert!(rig.run(&vs, &one_tri(), &mut Recorder::default()).is_ok());
    // Centroid barycentrics with the samples at their offsets.
    let mut rig = rig4(3);
    rig.wm.barycentric_interpolation_mode = 0b10;
    assert!(matches!(
        rig.run(&vs, &one_tri(), &mut Recorder::default()),
        Err(DrawError::Unmodelled(s)) if s.contains("centroid")
    ));
    // Lines in the ON modes are rectangles of Line Width.
    let mut rig = rig4(3);
    let line = [Object {
        kind: ObjectKind::Line,
        v: [0, 1, 1],
        topology: 0x02,
        ordinal: 0,
    }];
    assert!(matches!(
        rig.run(&vs, &line, &mut Recorder::default()),
        Err(DrawError::Unmodelled(s)) if s.contains("line")
    ));
    // ... but keep their legacy rasterisation in OFF_PATTERN: every
    // sample of a lit pixel at the pixel centre.
    let mut rig = rig4(1);
    let t = rig.run(&vs, &line, &mut Recorder::default()).unwrap();
    assert!(!t.is_empty());
    for th in &t {
        let s = th.pixels.samples.as_ref().unwrap();
        for slot in (0..32).filter(|i| th.pixels.mask >> i & 1 != 0) {
            assert_eq!(s.coverage[slot], 0xf);
        }
    }
}
