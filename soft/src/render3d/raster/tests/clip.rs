//! The clipper: ClipDetermination outcomes, the Clip Mode switch, and
//! clipped polygons checked against their planes and a linear attribute.

use alloc::vec::Vec;

use super::super::clip::{Class, clip_object};
use super::super::clip::{classify, outcode};
use super::super::state::{Clip, ClipMode};
use super::vue;
use crate::render3d::types::ObjectKind;

fn clip_state() -> Clip {
    Clip {
        enable: true,
        statistics: false,
        d3d: false,
        viewport_xy: true,
        viewport_z: true,
        guardband: false,
        ucd_clip: 0,
        ucd_cull: 0,
        mode: ClipMode::Normal,
        perspective_divide_disable: false,
        non_perspective: false,
        min_point_width: 0.0,
        max_point_width: 255.0,
        force_zero_rta: false,
        max_vp_index: 0,
    }
}

const GB: [f32; 4] = [-4.0, 4.0, -4.0, 4.0];

/// An attribute linear in clip space (kept exactly by clipping).
fn linear(p: [f32; 4]) -> f32 {
    3.0 * p[0] - 2.0 * p[1] + 0.5 * p[2] + 1.25 * p[3]
}

fn vert(p: [f32; 4]) -> Vec<u32> {
    vue(p, &[[linear(p), 0.0, 0.0, 1.0]]).dw
}

fn class_of(c: &Clip, ps: &[[f32; 4]]) -> Class {
    let codes: Vec<u32> = ps.iter().map(|p| outcode(c, GB, &vert(*p))).collect();
    classify(&codes)
}

#[test]
fn determination_follows_the_outcodes() {
    let mut c = clip_state();
    let inside = [
        [0.0, 0.0, 0.0, 1.0],
        [0.5, 0.0, 0.0, 1.0],
        [0.0, 0.5, 0.0, 1.0],
    ];
    assert_eq!(class_of(&c, &inside), Class::TrivialAccept);
    let right = [
        [2.0, 0.0, 0.0, 1.0],
        [3.0, 0.0, 0.0, 1.0],
        [2.0, 0.5, 0.0, 1.0],
    ];
    assert_eq!(class_of(&c, &right), Class::TrivialReject);
    let straddle = [
        [0.0, 0.0, 0.0, 1.0],
        [2.0, 0.0, 0.0, 1.0],
        [0.0, 0.5, 0.0, 1.0],
    ];
    assert_eq!(class_of(&c, &straddle), Class::MustClip);
    // With the guardband on, a triangle inside it is accepted.
    c.guardband = true;
    assert_eq!(class_of(&c, &straddle), Class::TrivialAccept);
    // ... and one leaving it must be clipped.
    let far = [
        [0.0, 0.0, 0.0, 1.0],
        [6.0, 0.0, 0.0, 1.0],
        [0.0, 0.5, 0.0, 1.0],
    ];
    assert_eq!(class_of(&c, &far), Class::MustClip);
    // NaN anywhere: BAD.
    let bad = [
        [f32::NAN, 0.0, 0.0, 1.0],
        [0.5, 0.0, 0.0, 1.0],
        [0.0, 0.5, 0.0, 1.0],
    ];
    assert_eq!(class_of(&c, &bad), Class::Bad);
    // API mode: z = -0.5 is inside for OGL, outside (near) for D3D.
    let z = [
        [0.0, 0.0, -0.5, 1.0],
        [0.5, 0.0, -0.5, 1.0],
        [0.0, 0.5, -0.5, 1.0],
    ];
    assert_eq!(class_of(&c, &z), Class::TrivialAccept);
    c.d3d = true;
    assert_eq!(class_of(&c, &z), Class::TrivialReject);
    // Behind the eye (all w < 0): rejected through NEGW.
    let behind = [
        [0.0, 0.0, 0.0, -1.0],
        [0.1, 0.0, 0.0, -1.0],
        [0.0, 0.1, 0.0, -1.0],
    ];
    c.viewport_z = false;
    assert_eq!(class_of(&c, &behind), Class::TrivialReject);
}

#[test]
fn clip_modes() {
    let mut c = clip_state();
    let outside = vec_of(&[
        [2.0, 0.0, 0.0, 1.0],
        [3.0, 0.0, 0.0, 1.0],
        [2.0, 0.5, 0.0, 1.0],
    ]);
    let inside = vec_of(&[
        [0.0, 0.0, 0.0, 1.0],
        [0.5, 0.0, 0.0, 1.0],
        [0.0, 0.5, 0.0, 1.0],
    ]);
    assert!(
        clip_object(&c, GB, ObjectKind::Triangle, outside.clone())
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        clip_object(&c, GB, ObjectKind::Triangle, inside.clone())
            .unwrap()
            .len(),
        1
    );
    c.mode = ClipMode::AcceptAll;
    let o = clip_object(&c, GB, ObjectKind::Triangle, outside.clone()).unwrap();
    assert_eq!((o.len(), o[0].clipped), (1, false));
    c.mode = ClipMode::RejectAll;
    assert!(
        clip_object(&c, GB, ObjectKind::Triangle, inside.clone())
            .unwrap()
            .is_empty()
    );
    // The stage off: everything passes.
    c.enable = false;
    assert_eq!(
        clip_object(&c, GB, ObjectKind::Triangle, outside)
            .unwrap()
            .len(),
        1
    );
}

fn vec_of(ps: &[[f32; 4]]) -> Vec<Vec<u32>> {
    ps.iter().map(|p| vert(*p)).collect()
}

fn pos(dw: &[u32]) -> [f32; 4] {
    [4, 5, 6, 7].map(|i| f32::from_bits(dw[i]))
}

/// Twice the area of a polygon in NDC.
fn ndc_area(poly: &[[f32; 4]]) -> f32 {
    let n = poly.len();
    let mut s = 0.0;
    for i in 0..n {
        let (a, b) = (poly[i], poly[(i + 1) % n]);
        s += a[0] / a[3] * (b[1] / b[3]) - b[0] / b[3] * (a[1] / a[3]);
    }
    s
}

#[test]
fn must_clip_triangles_are_cut_on_the_planes() {
    let c = clip_state();
    // (0,0) (2,0) (0,2) at w = 1 against x <= 1 and y <= 1: the unit
    // square less the corner beyond x + y = 2, area 1 (twice: 2).
    let t = vec_of(&[
        [0.0, 0.0, 0.0, 1.0],
        [2.0, 0.0, 0.0, 1.0],
        [0.0, 2.0, 0.0, 1.0],
    ]);
    let out = clip_object(&c, GB, ObjectKind::Triangle, t).unwrap();
    assert!(!out.is_empty());
    let mut area = 0.0;
    for o in &out {
        assert!(o.clipped);
        let ps: Vec<[f32; 4]> = o.verts.iter().map(|v| pos(v)).collect();
        area += ndc_area(&ps);
        for (v, p) in o.verts.iter().zip(&ps) {
            assert!(p[0] <= 1.0 + 1e-6 && p[1] <= 1.0 + 1e-6, "{p:?}");
            // The attribute of every vertex, new ones too, is the linear
            // function of its position.
            let a = f32::from_bits(v[8]);
            assert!((a - linear(*p)).abs() < 1e-5, "{a} vs {}", linear(*p));
        }
    }
    assert!((area - 2.0).abs() < 1e-5, "area {area}");
}

#[test]
fn near_plane_clipping_in_clip_space() {
    // OGL near plane z >= -w: one vertex in front of it with w varying,
    // the cut lies where z = -w along each edge (checked in clip space).
    let c = clip_state();
    let t = vec_of(&[
        [0.0, 0.0, -3.0, 2.0],
        [0.5, 0.0, 0.5, 1.0],
        [0.0, 0.5, 0.5, 1.0],
    ]);
    let out = clip_object(&c, GB, ObjectKind::Triangle, t).unwrap();
    assert_eq!(out.len(), 2, "a quad as two triangles");
    for o in &out {
        for v in &o.verts {
            let p = pos(v);
            assert!(p[2] >= -p[3] - 1e-5, "{p:?}");
            assert!((f32::from_bits(v[8]) - linear(p)).abs() < 1e-5);
        }
    }
    // Exactly two new vertices lie on the plane.
    let on: Vec<[f32; 4]> = out
        .iter()
        .flat_map(|o| o.verts.iter().map(|v| pos(v)))
        .filter(|p| (p[2] + p[3]).abs() < 1e-5)
        .collect();
    assert!(on.len() >= 2);
}

#[test]
fn user_clip_distances_clip_and_cull() {
    let mut c = clip_state();
    c.viewport_xy = false;
    c.viewport_z = false;
    // Distance 0 at DW8 = x: the part with x >= 0 stays.
    let with_d = |p: [f32; 4]| {
        let mut v = vue(p, &[[p[0], 0.0, 0.0, 0.0], [0.0; 4]]).dw;
        v.truncate(16);
        v
    };
    let t: Vec<Vec<u32>> = [
        [-0.5, 0.0, 0.0, 1.0],
        [0.5, 0.0, 0.0, 1.0],
        [0.5, 0.5, 0.0, 1.0],
    ]
    .iter()
    .map(|p| with_d(*p))
    .collect();
    c.ucd_clip = 1;
    let out = clip_object(&c, GB, ObjectKind::Triangle, t.clone()).unwrap();
    assert!(!out.is_empty());
    for o in &out {
        for v in &o.verts {
            assert!(pos(v)[0] >= -1e-6);
        }
    }
    // Cull only: straddling passes whole, all negative is rejected.
    c.ucd_clip = 0;
    c.ucd_cull = 1;
    let out = clip_object(&c, GB, ObjectKind::Triangle, t).unwrap();
    assert_eq!((out.len(), out[0].clipped), (1, false));
    let neg: Vec<Vec<u32>> = [
        [-0.5, 0.0, 0.0, 1.0],
        [-0.2, 0.0, 0.0, 1.0],
        [-0.5, 0.5, 0.0, 1.0],
    ]
    .iter()
    .map(|p| with_d(*p))
    .collect();
    assert!(
        clip_object(&c, GB, ObjectKind::Triangle, neg)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn lines_and_points_clip() {
    let c = clip_state();
    let l = vec_of(&[[-3.0, 0.0, 0.0, 1.0], [0.5, 0.0, 0.0, 1.0]]);
    let out = clip_object(&c, GB, ObjectKind::Line, l).unwrap();
    assert_eq!(out.len(), 1);
    let p0 = pos(&out[0].verts[0]);
    assert!((p0[0] + 1.0).abs() < 1e-6, "{p0:?}");
    assert!((f32::from_bits(out[0].verts[0][8]) - linear(p0)).abs() < 1e-5);
    // A RECTLIST rectangle that must be clipped is refused.
    let r = vec_of(&[
        [2.0, 0.0, 0.0, 1.0],
        [0.0, 0.0, 0.0, 1.0],
        [0.0, 0.5, 0.0, 1.0],
    ]);
    assert!(clip_object(&c, GB, ObjectKind::Rectangle, r).is_err());
}
