//! Setup: attribute deltas, flat shading's provoking vertex, swizzles and
//! overrides, culling and winding, the viewport and origin, point sprites,
//! the depth offset.

use alloc::vec::Vec;

use super::super::setup::{ObjectInfo, SetupObject, setup, topo};
use super::{Rig, vue};
use crate::render3d::types::{ObjectKind, Vue};

/// Screen-space vertices (viewport transform off, w = 1) with attributes.
fn verts(ps: [(f32, f32); 3], attrs: [[[f32; 4]; 2]; 3]) -> Vec<Vue> {
    (0..3)
        .map(|i| vue([ps[i].0, ps[i].1, 0.25 * i as f32, 1.0], &attrs[i]))
        .collect()
}

fn run(
    rig: &mut Rig,
    kind: ObjectKind,
    topology: u8,
    ordinal: u32,
    vs: &[Vue],
    pv: usize,
) -> Option<SetupObject> {
    // 3DSTATE_WM names the same attribute count (33-48 stand for n - 16).
    let n = rig.sf.number_of_sf_output_attributes;
    rig.wm.number_of_sf_output_attributes = if n > 32 { n - 16 } else { n };
    let st = rig.state().unwrap();
    let dws: Vec<Vec<u32>> = vs.iter().map(|v| v.dw.clone()).collect();
    let info = ObjectInfo {
        kind,
        topology,
        ordinal,
        last_in_primitive: true,
        weights: &[],
        pv: &dws[pv],
        vp_index: 0,
        rta_index: 0,
        viewport: None,
    };
    setup(&st, &info, &dws).unwrap()
}

const A: [[[f32; 4]; 2]; 3] = [
    [[1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0]],
    [[1.5, 2.5, 3.5, 4.5], [11.0, 22.0, 33.0, 44.0]],
    [[0.5, 1.0, 1.5, 2.0], [12.0, 24.0, 36.0, 48.0]],
];

fn f(bits: u32) -> f32 {
    f32::from_bits(bits)
}

#[test]
fn linear_and_flat_attribute_deltas() {
    let mut rig = Rig::new();
    rig.sf.number_of_sf_output_attributes = 2;
    rig.sf.constant_interpolation_enable = 0b10;
    // Triangle list provoking vertex 2.
    rig.sf.triangle_strip_list_provoking_vertex_select = 2;
    let vs = verts([(1.0, 1.0), (9.0, 1.0), (1.0, 9.0)], A);
    let o = run(&mut rig, ObjectKind::Triangle, topo::TRILIST, 0, &vs, 2).unwrap();
    for (ch, d) in o.attrs[0].iter().enumerate() {
        let [a1, a2, a0] = *d;
        assert_eq!(f(a0), A[0][0][ch]);
        assert_eq!(f(a1), A[1][0][ch] - A[0][0][ch]);
        assert_eq!(f(a2), A[2][0][ch] - A[0][0][ch]);
        // Flat: the provoking vertex's value, no deltas.
        assert_eq!(o.attrs[1][ch], [0, 0, A[2][1][ch].to_bits()]);
    }
}

#[test]
fn provoking_vertex_per_topology() {
    let mut rig = Rig::new();
    rig.sf.triangle_strip_list_provoking_vertex_select = 1;
    rig.sf.triangle_fan_provoking_vertex_select = 2;
    rig.sf.line_strip_list_provoking_vertex_select = 1;
    let st = rig.state().unwrap();
    use super::super::setup::provoking;
    assert_eq!(
        provoking(&st.sf, ObjectKind::Triangle, topo::TRILIST).unwrap(),
        1
    );
    assert_eq!(
        provoking(&st.sf, ObjectKind::Triangle, topo::TRISTRIP).unwrap(),
        1
    );
    assert_eq!(
        provoking(&st.sf, ObjectKind::Triangle, topo::TRIFAN).unwrap(),
        2
    );
    assert_eq!(
        provoking(&st.sf, ObjectKind::Triangle, topo::POLYGON).unwrap(),
        0
    );
    assert_eq!(provoking(&st.sf, ObjectKind::Rectangle, 0x0f).unwrap(), 0);
    assert_eq!(provoking(&st.sf, ObjectKind::Line, 0x03).unwrap(), 1);
    assert_eq!(provoking(&st.sf, ObjectKind::Point, 0x01).unwrap(), 0);
}

#[test]
fn swizzles_facing_w_and_overrides() {
    let mut rig = Rig::new();
    rig.sf.attribute_swizzle_enable = true;
    rig.sf.number_of_sf_output_attributes = 2;
    // Output 0: INPUTATTR_FACING_W from input 0 (back face: input 1).
    rig.sf.attribute_0_swizzle_select = 3;
    rig.sf.attribute_0_source_attribute = 0;
    // Output 1: input 0 with Y and W overridden by CONST_0001.
    rig.sf.attribute_1_source_attribute = 0;
    rig.sf.attribute_1_constant_source = 1;
    rig.sf.attribute_1_component_override_y = true;
    rig.sf.attribute_1_component_override_w = true;
    // Clockwise on screen is front (FRONTWINDING_CW): this one is CCW, so
    // back-facing, and the back-face input is used.
    let vs = verts([(1.0, 1.0), (1.0, 9.0), (9.0, 1.0)], A);
    let o = run(&mut rig, ObjectKind::Triangle, topo::TRILIST, 0, &vs, 0).unwrap();
    assert!(o.back_facing);
    let a0 = |k: usize, ch: usize| f(o.attrs[k][ch][2]);
    assert_eq!(
        [a0(0, 0), a0(0, 1), a0(0, 2), a0(0, 3)],
        [40.0, 20.0, 30.0, 40.0]
    );
    assert_eq!(
        [a0(1, 0), a0(1, 1), a0(1, 2), a0(1, 3)],
        [1.0, 0.0, 3.0, 1.0]
    );
    // Overridden channels do not vary.
    assert_eq!(o.attrs[1][1][..2], [0.0f32.to_bits(), 0.0f32.to_bits()]);
    // The same triangle clockwise is front-facing: input 0.
    let vs = verts([(1.0, 1.0), (9.0, 1.0), (1.0, 9.0)], A);
    let o = run(&mut rig, ObjectKind::Triangle, topo::TRILIST, 0, &vs, 0).unwrap();
    assert!(!o.back_facing);
    assert_eq!(f(o.attrs[0][0][2]), 4.0);
}

#[test]
fn culling_winding_and_strip_parity() {
    let cw = verts([(1.0, 1.0), (9.0, 1.0), (1.0, 9.0)], A);
    let ccw = verts([(1.0, 1.0), (1.0, 9.0), (9.0, 1.0)], A);
    let mut rig = Rig::new();
    rig.sf.cull_mode = 3; // BACK
    assert!(run(&mut rig, ObjectKind::Triangle, topo::TRILIST, 0, &cw, 0).is_some());
    assert!(run(&mut rig, ObjectKind::Triangle, topo::TRILIST, 0, &ccw, 0).is_none());
    // The second triangle of a strip has its winding inverted.
    assert!(run(&mut rig, ObjectKind::Triangle, topo::TRISTRIP, 1, &ccw, 0).is_some());
    assert!(
        run(
            &mut rig,
            ObjectKind::Triangle,
            topo::TRISTRIP_REVERSE,
            0,
            &ccw,
            0
        )
        .is_some()
    );
    rig.sf.front_winding = 1; // CCW is front
    assert!(run(&mut rig, ObjectKind::Triangle, topo::TRILIST, 0, &cw, 0).is_none());
    rig.sf.cull_mode = 2; // FRONT
    assert!(run(&mut rig, ObjectKind::Triangle, topo::TRILIST, 0, &cw, 0).is_some());
    rig.sf.cull_mode = 0; // BOTH
    assert!(run(&mut rig, ObjectKind::Triangle, topo::TRILIST, 0, &cw, 0).is_none());
    // Degenerate: dropped even with culling off.
    rig.sf.cull_mode = 1;
    let flat = verts([(1.0, 1.0), (5.0, 5.0), (9.0, 9.0)], A);
    assert!(run(&mut rig, ObjectKind::Triangle, topo::TRILIST, 0, &flat, 0).is_none());
}

#[test]
fn viewport_origin_and_snap() {
    let mut rig = Rig::new();
    rig.rect.drawing_rectangle_origin_x = 3;
    rig.rect.drawing_rectangle_origin_y = -2;
    let st = rig.state().unwrap();
    let vs = verts([(0.5, 0.5), (-0.5, 0.5), (0.5, -0.5)], A);
    let dws: Vec<Vec<u32>> = vs.iter().map(|v| v.dw.clone()).collect();
    // x' = 10 x + 20, y' = -8 y + 16, z' = 0.5 z + 0.5 (plus the origin).
    let info = ObjectInfo {
        kind: ObjectKind::Triangle,
        topology: topo::TRILIST,
        ordinal: 0,
        last_in_primitive: true,
        weights: &[],
        pv: &dws[0],
        vp_index: 0,
        rta_index: 0,
        viewport: Some([10.0, -8.0, 0.5, 20.0, 16.0, 0.5]),
    };
    let o = setup(&st, &info, &dws).unwrap().unwrap();
    assert_eq!(o.plane.x, [28.0, 18.0, 28.0]);
    assert_eq!(o.plane.y, [10.0, 10.0, 18.0]);
    assert_eq!(o.plane.z, [0.5, 0.625, 0.75]);
    // A position between subpixels rounds to the nearest 1/256 (even on a
    // tie).
    assert_eq!(super::super::setup::snap(1.0 + 1.5 / 256.0, 8), 256 + 2);
    assert_eq!(super::super::setup::snap(1.0 + 2.5 / 256.0, 8), 256 + 2);
    assert_eq!(super::super::setup::snap(1.0 + 0.4 / 16.0, 4), 16);
    assert_eq!(super::super::setup::snap(1.0e9, 8), 16384 * 256 - 1);
}

#[test]
fn point_sprites_and_width() {
    let mut rig = Rig::new();
    rig.sf.number_of_sf_output_attributes = 2;
    rig.sf.point_sprite_texture_coordinate_enable = 0b10;
    rig.sf.use_point_width_state = 1;
    rig.sf.point_width = 4 << 3; // 4 pixels, U8.3
    let vs = [vue([10.0, 10.0, 0.0, 1.0], &A[0])];
    let o = run(&mut rig, ObjectKind::Point, 0x01, 0, &vs, 0).unwrap();
    assert_eq!(o.plane.x, [8.0, 12.0, 8.0]);
    assert_eq!(o.plane.y, [8.0, 8.0, 12.0]);
    // Attribute 0 is constant over the point; attribute 1 runs 0..1 in s
    // along x and 0..1 in t downwards (UPPERLEFT origin).
    assert_eq!(o.attrs[0][0], [0, 0, 1.0f32.to_bits()]);
    let s = o.attrs[1][0];
    let t = o.attrs[1][1];
    assert_eq!([f(s[0]), f(s[1]), f(s[2])], [1.0, 0.0, 0.0]);
    assert_eq!([f(t[0]), f(t[1]), f(t[2])], [0.0, 1.0, 0.0]);
    rig.sf.point_sprite_texture_coordinate_origin = 1;
    let o = run(&mut rig, ObjectKind::Point, 0x01, 0, &vs, 0).unwrap();
    let t = o.attrs[1][1];
    assert_eq!([f(t[0]), f(t[1]), f(t[2])], [0.0, -1.0, 1.0]);
}

#[test]
fn wrap_shortest_and_depth_offset() {
    let mut rig = Rig::new();
    rig.sf.attribute_0_wrapshortest_enables = 0b0001;
    let mut a = A;
    a[0][0][0] = 0.9;
    a[1][0][0] = 0.1; // 0.1 - 0.9 = -0.8 -> +0.2
    a[2][0][0] = 0.6; // -0.3 stays
    rig.sf.global_depth_offset_enable_solid = true;
    rig.sf.global_depth_offset_constant = 2.0;
    rig.sf.global_depth_offset_scale = 1.0;
    // D24 (UNORM): r = 1 / (2^24 - 1).
    rig.set(&baregpu_hal::gen6::commands::Cmd3dstateDepthBuffer {
        surface_format: 3,
        ..Default::default()
    });
    let vs = verts([(1.0, 1.0), (9.0, 1.0), (1.0, 9.0)], a);
    let o = run(&mut rig, ObjectKind::Triangle, topo::TRILIST, 0, &vs, 0).unwrap();
    let d = o.attrs[0][0];
    assert!(
        (f(d[0]) - 0.2).abs() < 1e-6 && (f(d[1]) + 0.3).abs() < 1e-6,
        "{} {}",
        f(d[0]),
        f(d[1])
    );
    // z rises 0.25 over 8 pixels in x and 0.5 over 8 in y: slope 1/16.
    let want = 2.0 / 16_777_215.0 + 1.0 / 16.0;
    assert!((o.depth_bias - want).abs() < 1e-7, "{}", o.depth_bias);
    rig.sf.global_depth_offset_clamp = 0.01;
    let o = run(&mut rig, ObjectKind::Triangle, topo::TRILIST, 0, &vs, 0).unwrap();
    assert_eq!(o.depth_bias, 0.01);
}

#[test]
fn degenerate_triangles_outside_solid_fill() {
    let mut rig = Rig::new();
    let flat = verts([(1.0, 1.0), (5.0, 5.0), (9.0, 9.0)], A);
    // Back-facing by definition: the back fill mode applies.
    rig.sf.backface_fill_mode = 1;
    let o = run(&mut rig, ObjectKind::Triangle, topo::TRILIST, 0, &flat, 0).unwrap();
    assert!(o.back_facing);
    assert_eq!(o.shapes.len(), 3);
    // Interpolated along the longest edge, from v2 to v0.
    assert_eq!((o.plane.x[0], o.plane.x[1]), (9.0, 1.0));
    assert_eq!(f(o.attrs[0][0][0]), A[0][0][0] - A[2][0][0]);
    assert_eq!(f(o.attrs[0][0][2]), A[2][0][0]);
    assert_eq!(o.attrs[0][0][1], 0.0f32.to_bits());
    // Culled as back-facing.
    rig.sf.cull_mode = 3;
    assert!(run(&mut rig, ObjectKind::Triangle, topo::TRILIST, 0, &flat, 0).is_none());
}
