//! Whole draws through `rasterize`: coverage against the exact reference,
//! interpolated attributes, depth and W against perspective-correct host
//! interpolation, R0, RECTLIST, the drawing rectangle and scissor, flat
//! shading, clipping, and the depth-only path.

use alloc::vec::Vec;

use super::coverage::reference;
use super::{Recorder, Rig, SCISSOR, lit_pixels, reg_dw, reg_f, tri, vue};
use crate::render3d::types::{Object, ObjectKind, PixelThread, Vue};

/// A 64x64 GL-style viewport: x' = 32x + 32, y' = -32y + 32, z' = z/2 + 1/2.
const VP: [f32; 6] = [32.0, -32.0, 0.5, 32.0, 32.0, 0.5];

fn screen(p: [f32; 4]) -> (f64, f64, f64) {
    let (x, y, z, w) = (
        f64::from(p[0]),
        f64::from(p[1]),
        f64::from(p[2]),
        f64::from(p[3]),
    );
    (32.0 * x / w + 32.0, -32.0 * y / w + 32.0, 0.5 * z / w + 0.5)
}

fn all_dispatch(threads: &[PixelThread]) -> Vec<crate::eu::shared::PixelDispatch> {
    threads.iter().map(|t| t.pixels.clone()).collect()
}

/// Checks every lit slot's interpolated attribute (a0 + a1 b1 + a2 b2 from
/// the payload's perspective barycentrics), source depth and source W
/// against the host's perspective-correct interpolation.
fn check_interpolation(threads: &[PixelThread], ps: [[f32; 4]; 3], attr: [f32; 3]) {
    let s: Vec<(f64, f64, f64)> = ps.iter().map(|p| screen(*p)).collect();
    for t in threads {
        assert_eq!(t.pixels.simd, 16);
        // R0, R1, b (4), depth (2), W (2): setup data at r10.
        let (a1, a2, a0) = (
            reg_f(&t.payload, 10, 0),
            reg_f(&t.payload, 10, 1),
            reg_f(&t.payload, 10, 3),
        );
        for slot in 0..16 {
            if t.pixels.mask >> slot & 1 == 0 {
                continue;
            }
            let c = t.pixels.corners[slot / 4];
            let px = f64::from(c & 0xffff) + (slot & 1) as f64 + 0.5;
            let py = f64::from(c >> 16) + ((slot >> 1) & 1) as f64 + 0.5;
            // Host reference: screen barycentrics, then perspective.
            let area =
                (s[1].0 - s[0].0) * (s[2].1 - s[0].1) - (s[2].0 - s[0].0) * (s[1].1 - s[0].1);
            let l1 = ((px - s[0].0) * (s[2].1 - s[0].1) - (s[2].0 - s[0].0) * (py - s[0].1)) / area;
            let l2 = ((s[1].0 - s[0].0) * (py - s[0].1) - (px - s[0].0) * (s[1].1 - s[0].1)) / area;
            let l = [1.0 - l1 - l2, l1, l2];
            let inv_w: f64 = (0..3).map(|i| l[i] / f64::from(ps[i][3])).sum();
            let want: f64 = (0..3)
                .map(|i| l[i] * f64::from(attr[i]) / f64::from(ps[i][3]))
                .sum::<f64>()
                / inv_w;
            let want_z: f64 = (0..3).map(|i| l[i] * s[i].2).sum();
            let (r, k) = (2 + 2 * (slot / 8), slot % 8);
            let (b1, b2) = (reg_f(&t.payload, r, k), reg_f(&t.payload, r + 1, k));
            let got = a0 + a1 * b1 + a2 * b2;
            assert!(
                (f64::from(got) - want).abs() < 1e-4 * want.abs().max(1.0),
                "slot {slot}: {got} vs {want}"
            );
            let z = reg_f(&t.payload, 6 + slot / 8, k);
            assert!((f64::from(z) - want_z).abs() < 1e-5, "z {z} vs {want_z}");
            assert_eq!(z, t.pixels.depth[slot]);
            let w = reg_f(&t.payload, 8 + slot / 8, k);
            assert!(
                (f64::from(w) - 1.0 / inv_w).abs() < 1e-4,
                "w {w} vs {}",
                1.0 / inv_w
            );
        }
    }
}

fn perspective_rig() -> Rig {
    let mut rig = Rig::new();
    rig.sf_viewport(0, VP);
    rig.wm.pixel_shader_uses_source_depth = true;
    rig.wm.pixel_shader_uses_source_w = true;
    rig.wm.dispatch_grf_start_register_for_constant_setup_data_0 = 10;
    rig
}

#[test]
fn perspective_triangle_coverage_and_interpolation() {
    let mut rig = perspective_rig();
    // Positions whose screen coordinates land on the 1/256 grid.
    let ps = [
        [-0.75, -0.5, 0.0, 1.0],
        [1.5, -1.0, 1.0, 2.0],
        [-1.0, 3.0, -2.0, 4.0],
    ];
    let attr = [1.0, 5.0, -3.0];
    let vs: Vec<Vue> = (0..3)
        .map(|i| vue(ps[i], &[[attr[i], 0.0, 0.0, 1.0]]))
        .collect();
    let threads = rig
        .run(&vs, &[tri([0, 1, 2], 0x04, 0)], &mut Recorder::default())
        .unwrap();
    let fixed: Vec<(i64, i64)> = ps
        .iter()
        .map(|p| {
            let (x, y, _) = screen(*p);
            ((x * 256.0) as i64, (y * 256.0) as i64)
        })
        .collect();
    let mut want = Vec::new();
    for y in 0..64 {
        for x in 0..64 {
            if reference(
                [fixed[0], fixed[1], fixed[2]],
                (x * 256 + 128, y * 256 + 128),
            ) {
                want.push((x as i32, y as i32));
            }
        }
    }
    want.sort_unstable();
    assert!(want.len() > 100);
    assert_eq!(lit_pixels(&all_dispatch(&threads)), want);
    check_interpolation(&threads, ps, attr);
    for t in &threads {
        // Dispatch mask: whole subspans; R1 masks: the lit pixels.
        let n = (0..4)
            .filter(|&k| t.pixels.corners[k] != 0 || t.pixels.mask >> (4 * k) & 0xf != 0)
            .count();
        assert!(t.dispatch_mask.count_ones() as usize >= 4 * n.min(1));
        assert_eq!(t.dispatch_mask & t.pixels.mask, t.pixels.mask);
        assert_eq!(reg_dw(&t.payload, 1, 7) & 0xffff, t.pixels.mask);
        assert_eq!(t.ffid, 0xf);
    }
}

#[test]
fn r0_header_fields() {
    let mut rig = Rig::new();
    rig.set(
        &baregpu_hal::gen6::commands::Cmd3dstateBindingTablePointers {
            pointer_to_ps_binding_table: 0x1a0,
            ..Default::default()
        },
    );
    rig.set(
        &baregpu_hal::gen6::commands::Cmd3dstateSamplerStatePointers {
            pointer_to_ps_sampler_state: 0x2e0,
            ..Default::default()
        },
    );
    rig.set(&baregpu_hal::gen6::commands::Cmd3dstateCcStatePointers {
        pointer_to_color_calc_state: 0x3c0,
        ..Default::default()
    });
    rig.wm.per_thread_scratch_space = 2;
    rig.wm.scratch_space_base_pointer = 0x8000;
    rig.clip.maximum_vpindex = 3;
    // Counter-clockwise on screen: back-facing; VPIndex 2 from the
    // leading vertex's header, RTAIndex 5.
    let mut vs: Vec<Vue> = [(1.0, 1.0), (1.0, 9.0), (9.0, 1.0)]
        .iter()
        .map(|p| vue([p.0, p.1, 0.0, 1.0], &[[0.0; 4]]))
        .collect();
    vs[0].dw[1] = 5;
    vs[0].dw[2] = 2;
    let threads = rig
        .run(&vs, &[tri([0, 1, 2], 0x06, 0)], &mut Recorder::default())
        .unwrap();
    let t = &threads[0];
    let r0 = reg_dw(&t.payload, 0, 0);
    assert_eq!(r0 >> 27 & 0xf, 2);
    assert_eq!(r0 >> 16 & 0x7ff, 5);
    assert_eq!(r0 >> 15 & 1, 1);
    assert_eq!(r0 & 0x1f, 0x06);
    assert_eq!(reg_dw(&t.payload, 0, 1), 0x3c0);
    assert_eq!(reg_dw(&t.payload, 0, 3), 0x2e0 | 2);
    assert_eq!(reg_dw(&t.payload, 0, 4), 0x1a0);
    assert_eq!(reg_dw(&t.payload, 0, 5), 0x8000);
    assert!(!t.pixels.front_facing);
    assert_eq!(
        (t.binding_table, t.sampler_state, t.scratch_code),
        (0x1a0, 0x2e0, 2)
    );
}

fn rect(x0: f32, y0: f32, x1: f32, y1: f32) -> (Vec<Vue>, Object) {
    let a = |x: f32, y: f32| vue([x, y, 0.0, 1.0], &[[0.0; 4]]);
    // Lower right, lower left, upper left.
    (
        [a(x1, y1), a(x0, y1), a(x0, y0)].into(),
        Object {
            kind: ObjectKind::Rectangle,
            v: [0, 1, 2],
            topology: 0x0f,
            ordinal: 0,
        },
    )
}

fn box_pixels(x0: i32, y0: i32, x1: i32, y1: i32) -> Vec<(i32, i32)> {
    let mut v = Vec::new();
    for x in x0..x1 {
        for y in y0..y1 {
            v.push((x, y));
        }
    }
    v.sort_unstable();
    v
}

#[test]
fn rectlist_drawing_rectangle_and_scissor() {
    let mut rig = Rig::new();
    let (vs, o) = rect(2.0, 2.0, 8.0, 8.0);
    let threads = rig.run(&vs, &[o], &mut Recorder::default()).unwrap();
    assert_eq!(lit_pixels(&all_dispatch(&threads)), box_pixels(2, 2, 8, 8));
    // The drawing rectangle clips (inclusive bounds), the origin moves.
    rig.rect.clipped_drawing_rectangle_x_min = 4;
    rig.rect.clipped_drawing_rectangle_y_max = 5;
    rig.rect.drawing_rectangle_origin_x = 1;
    let threads = rig.run(&vs, &[o], &mut Recorder::default()).unwrap();
    assert_eq!(lit_pixels(&all_dispatch(&threads)), box_pixels(4, 2, 9, 6));
    // The scissor, relative to the origin.
    rig.sf.scissor_rectangle_enable = true;
    rig.write(SCISSOR, &[2 << 16 | 2, 3 << 16 | 5]);
    let threads = rig.run(&vs, &[o], &mut Recorder::default()).unwrap();
    assert_eq!(lit_pixels(&all_dispatch(&threads)), box_pixels(4, 2, 7, 4));
    // Off the drawing rectangle: nothing.
    let (vs, o) = rect(100.0, 100.0, 120.0, 120.0);
    assert!(
        rig.run(&vs, &[o], &mut Recorder::default())
            .unwrap()
            .is_empty()
    );
}

#[test]
fn flat_shading_takes_the_provoking_vertex() {
    let mut rig = Rig::new();
    rig.sf.constant_interpolation_enable = 1;
    rig.sf.triangle_fan_provoking_vertex_select = 2;
    let vs: Vec<Vue> = [(1.0, 1.0, 7.0), (9.0, 1.0, 8.0), (1.0, 9.0, 9.0)]
        .iter()
        .map(|p| vue([p.0, p.1, 0.0, 1.0], &[[p.2, 0.0, 0.0, 0.0]]))
        .collect();
    let threads = rig
        .run(&vs, &[tri([0, 1, 2], 0x06, 0)], &mut Recorder::default())
        .unwrap();
    // Setup data at r6: a0 of x is vertex 2's 9.0.
    assert_eq!(reg_f(&threads[0].payload, 6, 3), 9.0);
    assert_eq!(reg_f(&threads[0].payload, 6, 0), 0.0);
    // POLYGON forces vertex 0.
    let threads = rig
        .run(&vs, &[tri([0, 1, 2], 0x0e, 0)], &mut Recorder::default())
        .unwrap();
    assert_eq!(reg_f(&threads[0].payload, 6, 3), 7.0);
}

#[test]
fn clipped_triangle_covers_what_the_viewport_shows() {
    let mut rig = perspective_rig();
    rig.clip.clip_enable = true;
    rig.clip.viewport_xy_cliptest_enable = true;
    rig.clip.viewport_z_cliptest_enable = true;
    // Reaches past the right and bottom edges of the viewport.
    let ps = [
        [-0.5, 0.5, 0.0, 1.0],
        [3.0, 0.25, 0.0, 1.0],
        [0.25, -2.5, 0.0, 1.0],
    ];
    let attr = [2.0, 4.0, 8.0];
    let vs: Vec<Vue> = (0..3)
        .map(|i| vue(ps[i], &[[attr[i], 0.0, 0.0, 1.0]]))
        .collect();
    let threads = rig
        .run(&vs, &[tri([0, 1, 2], 0x04, 0)], &mut Recorder::default())
        .unwrap();
    let got = lit_pixels(&all_dispatch(&threads));
    let mut dedup = got.clone();
    dedup.dedup();
    assert_eq!(
        dedup.len(),
        got.len(),
        "a pixel drawn twice across the clipped fan"
    );
    let fixed: Vec<(i64, i64)> = ps
        .iter()
        .map(|p| {
            let (x, y, _) = screen(*p);
            ((x * 256.0) as i64, (y * 256.0) as i64)
        })
        .collect();
    let mut want = Vec::new();
    for y in 0..64 {
        for x in 0..64 {
            if reference(
                [fixed[0], fixed[1], fixed[2]],
                (x * 256 + 128, y * 256 + 128),
            ) {
                want.push((x as i32, y as i32));
            }
        }
    }
    want.sort_unstable();
    // New vertices are rounded floats on the original edges: allow a
    // pixel or two exactly on those edges to differ.
    let missing = want
        .iter()
        .filter(|p| got.binary_search(p).is_err())
        .count();
    let extra = got
        .iter()
        .filter(|p| want.binary_search(p).is_err())
        .count();
    assert!(missing + extra <= 2, "missing {missing}, extra {extra}");
    assert!(threads.len() > 1);
    // The attribute still interpolates as on the whole triangle.
    for t in &threads {
        let (a1, a2, a0) = (
            reg_f(&t.payload, 10, 0),
            reg_f(&t.payload, 10, 1),
            reg_f(&t.payload, 10, 3),
        );
        let c = t.pixels.corners[0];
        let slot = 0;
        let px = f64::from(c & 0xffff) + 0.5;
        let py = f64::from(c >> 16) + 0.5;
        let s: Vec<(f64, f64, f64)> = ps.iter().map(|p| screen(*p)).collect();
        let area = (s[1].0 - s[0].0) * (s[2].1 - s[0].1) - (s[2].0 - s[0].0) * (s[1].1 - s[0].1);
        let l1 = ((px - s[0].0) * (s[2].1 - s[0].1) - (s[2].0 - s[0].0) * (py - s[0].1)) / area;
        let l2 = ((s[1].0 - s[0].0) * (py - s[0].1) - (px - s[0].0) * (s[1].1 - s[0].1)) / area;
        let want = f64::from(attr[0]) * (1.0 - l1 - l2)
            + f64::from(attr[1]) * l1
            + f64::from(attr[2]) * l2;
        let got = a0 + a1 * reg_f(&t.payload, 2, slot) + a2 * reg_f(&t.payload, 3, slot);
        assert!((f64::from(got) - want).abs() < 1e-3, "{got} vs {want}");
    }
}

#[test]
fn no_dispatch_sends_depth_and_stencil_only() {
    let mut rig = Rig::new();
    rig.wm.thread_dispatch_enable = false;
    let (vs, o) = rect(0.0, 0.0, 6.0, 2.0);
    let mut om = Recorder::default();
    let threads = rig.run(&vs, &[o], &mut om).unwrap();
    assert!(threads.is_empty());
    assert_eq!(lit_pixels(&om.depth_only), box_pixels(0, 0, 6, 2));
}

#[test]
fn sample_mask_and_stipple() {
    let mut rig = Rig::new();
    rig.set(&baregpu_hal::gen6::commands::Cmd3dstateSampleMask { sample_mask: 0 });
    let vs: Vec<Vue> = [(0.0, 0.0), (8.0, 0.0), (0.0, 8.0)]
        .iter()
        .map(|p| vue([p.0, p.1, 0.0, 1.0], &[[0.0; 4]]))
        .collect();
    assert!(
        rig.run(&vs, &[tri([0, 1, 2], 0x04, 0)], &mut Recorder::default())
            .unwrap()
            .is_empty()
    );
    let mut rig = Rig::new();
    rig.wm.polygon_stipple_enable = true;
    // Only the leftmost column of the pattern, rows 0 and 2, offset by 1.
    rig.set(&baregpu_hal::gen6::commands::Cmd3dstatePolyStipplePattern {
        polygon_stipple_pattern_row_1: 1 << 31,
        polygon_stipple_pattern_row_3: 1 << 31,
        ..Default::default()
    });
    rig.set(&baregpu_hal::gen6::commands::Cmd3dstatePolyStippleOffset {
        polygon_stipple_x_offset: 1,
        polygon_stipple_y_offset: 0,
    });
    let threads = rig
        .run(&vs, &[tri([0, 1, 2], 0x04, 0)], &mut Recorder::default())
        .unwrap();
    assert_eq!(lit_pixels(&all_dispatch(&threads)), [(1, 0), (1, 2)]);
    // RECTLIST is not stippled.
    let (vs, o) = rect(0.0, 0.0, 2.0, 2.0);
    assert_eq!(
        lit_pixels(&all_dispatch(
            &rig.run(&vs, &[o], &mut Recorder::default()).unwrap()
        ))
        .len(),
        4
    );
}

#[test]
fn points_lines_and_wireframe() {
    let mut rig = Rig::new();
    rig.sf.use_point_width_state = 1;
    rig.sf.point_width = 2 << 3;
    // A 2-pixel point about the pixel corner (4, 4).
    let vs = [vue([4.0, 4.0, 0.0, 1.0], &[[0.0; 4]])];
    let o = Object {
        kind: ObjectKind::Point,
        v: [0; 3],
        topology: 0x01,
        ordinal: 0,
    };
    let t = rig.run(&vs, &[o], &mut Recorder::default()).unwrap();
    assert_eq!(lit_pixels(&all_dispatch(&t)), box_pixels(3, 3, 5, 5));
    // A wide horizontal line, 2 pixels: rows 3 and 4 between x 1 and 6.
    rig.sf.line_width = 2 << 7;
    let vs = [
        vue([1.0, 4.0, 0.0, 1.0], &[[0.0; 4]]),
        vue([6.0, 4.0, 0.0, 1.0], &[[0.0; 4]]),
    ];
    let o = Object {
        kind: ObjectKind::Line,
        v: [0, 1, 1],
        topology: 0x02,
        ordinal: 0,
    };
    let t = rig.run(&vs, &[o], &mut Recorder::default()).unwrap();
    assert_eq!(lit_pixels(&all_dispatch(&t)), box_pixels(1, 3, 6, 5));
    // Wireframe: a triangle's edges only, as zero-width lines.
    rig.sf.line_width = 0;
    rig.sf.frontface_fill_mode = 1;
    let vs: Vec<Vue> = [(0.5, 0.5), (8.5, 0.5), (0.5, 8.5)]
        .iter()
        .map(|p| vue([p.0, p.1, 0.0, 1.0], &[[0.0; 4]]))
        .collect();
    let t = rig
        .run(&vs, &[tri([0, 1, 2], 0x04, 0)], &mut Recorder::default())
        .unwrap();
    let lit = lit_pixels(&all_dispatch(&t));
    assert!(lit.contains(&(3, 0)) && lit.contains(&(0, 3)) && lit.contains(&(4, 4)));
    assert!(!lit.contains(&(2, 2)), "the inside stays empty");
}

#[test]
fn unmodelled_state_is_refused() {
    let mut rig = Rig::new();
    rig.set(&baregpu_hal::gen6::commands::Cmd3dstateMultisample {
        number_of_multisamples: 2,
        ..Default::default()
    });
    let vs: Vec<Vue> = [(0.0, 0.0), (8.0, 0.0), (0.0, 8.0)]
        .iter()
        .map(|p| vue([p.0, p.1, 0.0, 1.0], &[[0.0; 4]]))
        .collect();
    assert!(matches!(
        rig.run(&vs, &[tri([0, 1, 2], 0x04, 0)], &mut Recorder::default()),
        Err(crate::render3d::types::DrawError::Unmodelled(_))
    ));
    // Mismatched output counts between SF and WM are invalid.
    let mut rig = Rig::new();
    rig.wm.number_of_sf_output_attributes = 2;
    assert!(matches!(
        rig.run(&vs, &[tri([0, 1, 2], 0x04, 0)], &mut Recorder::default()),
        Err(crate::render3d::types::DrawError::Invalid(_))
    ));
    // A vertex index past the entries.
    let mut rig = Rig::new();
    assert!(
        rig.run(&vs, &[tri([0, 1, 7], 0x04, 0)], &mut Recorder::default())
            .is_err()
    );
}

#[test]
fn upper_left_corner_sampling() {
    // PIXLOC_UL_CORNER: samples at integer positions; a rectangle from
    // (0.5, 0.5) to (2.5, 2.5) covers the samples (1, 1), (2, 1), (1, 2),
    // (2, 2): pixels 1 and 2, where centre sampling gives 0 and 1.
    let mut rig = Rig::new();
    let (vs, o) = rect(0.5, 0.5, 2.5, 2.5);
    let t = rig.run(&vs, &[o], &mut Recorder::default()).unwrap();
    assert_eq!(lit_pixels(&all_dispatch(&t)), box_pixels(0, 0, 2, 2));
    rig.set(&baregpu_hal::gen6::commands::Cmd3dstateMultisample {
        pixel_location: 1,
        ..Default::default()
    });
    let t = rig.run(&vs, &[o], &mut Recorder::default()).unwrap();
    assert_eq!(lit_pixels(&all_dispatch(&t)), box_pixels(1, 1, 3, 3));
}

#[test]
fn statistics_follow_their_enables() {
    let mut rig = Rig::new();
    rig.sf_viewport(0, VP);
    rig.clip.clip_enable = true;
    rig.clip.viewport_xy_cliptest_enable = true;
    // One triangle inside, one rejected, one cut into a fan.
    let ps: [[f32; 4]; 9] = [
        [-0.5, -0.5, 0.0, 1.0],
        [0.5, -0.5, 0.0, 1.0],
        [-0.5, 0.5, 0.0, 1.0],
        [2.0, 2.0, 0.0, 1.0],
        [3.0, 2.0, 0.0, 1.0],
        [2.0, 3.0, 0.0, 1.0],
        [0.0, 0.0, 0.0, 1.0],
        [3.0, 0.0, 0.0, 1.0],
        [0.0, -3.0, 0.0, 1.0],
    ];
    let vs: Vec<Vue> = ps.iter().map(|p| vue(*p, &[[0.0; 4]])).collect();
    let objs = [
        tri([0, 1, 2], 4, 0),
        tri([3, 4, 5], 4, 1),
        tri([6, 7, 8], 4, 2),
    ];
    let (_, s) = rig
        .run_counted(&vs, &objs, &mut Recorder::default())
        .unwrap();
    assert_eq!(s, Default::default());
    rig.clip.clipper_statistics_enable = true;
    rig.sf.statistics_enable = true;
    rig.wm.statistics_enable = true;
    let (t, s) = rig
        .run_counted(&vs, &objs, &mut Recorder::default())
        .unwrap();
    assert_eq!(s.cl_invocations, 3);
    // The third triangle, cut by x = 1 and y = -1, is a quad: two.
    assert_eq!(s.cl_primitives, 1 + 2);
    assert_eq!(s.ps_invocations, lit_pixels(&all_dispatch(&t)).len() as u64);
}

#[test]
fn last_pixel_of_a_line_strip() {
    let mut rig = Rig::new();
    rig.sf.last_pixel_enable = true;
    let c = |x: f32| vue([x + 0.5, 2.5, 0.0, 1.0], &[[0.0; 4]]);
    let vs: Vec<Vue> = [c(0.0), c(3.0), c(6.0)].into();
    let line = |v: [u32; 3], topology: u8, ordinal: u32| Object {
        kind: ObjectKind::Line,
        v,
        topology,
        ordinal,
    };
    // A strip of two lines: the shared pixel once, the end pixel lit.
    let strip = [line([0, 1, 1], 0x03, 0), line([1, 2, 2], 0x03, 1)];
    let t = rig.run(&vs, &strip, &mut Recorder::default()).unwrap();
    let lit = lit_pixels(&all_dispatch(&t));
    assert_eq!(lit, box_pixels(0, 2, 7, 3));
    // As a list, every line lights its end pixel: pixel 3 twice.
    let list = [line([0, 1, 1], 0x02, 0), line([1, 2, 2], 0x02, 1)];
    let t = rig.run(&vs, &list, &mut Recorder::default()).unwrap();
    assert_eq!(lit_pixels(&all_dispatch(&t)).len(), 8);
    // Without Last Pixel Enable the strip's end pixel stays dark.
    rig.sf.last_pixel_enable = false;
    let t = rig.run(&vs, &strip, &mut Recorder::default()).unwrap();
    assert_eq!(lit_pixels(&all_dispatch(&t)), box_pixels(0, 2, 6, 3));
}

/// The largest difference, over the lit slots of `threads`, between the
/// attribute the payload's linear barycentrics give (setup data at r6) and
/// the window-space interpolation over the original triangle `ps`.
fn linear_error(threads: &[PixelThread], ps: [[f32; 4]; 3], attr: [f32; 3]) -> f64 {
    let s: Vec<(f64, f64, f64)> = ps.iter().map(|p| screen(*p)).collect();
    let mut worst: f64 = 0.0;
    for t in threads {
        let (a1, a2, a0) = (
            reg_f(&t.payload, 6, 0),
            reg_f(&t.payload, 6, 1),
            reg_f(&t.payload, 6, 3),
        );
        for slot in 0..16 {
            if t.pixels.mask >> slot & 1 == 0 {
                continue;
            }
            let c = t.pixels.corners[slot / 4];
            let px = f64::from(c & 0xffff) + (slot & 1) as f64 + 0.5;
            let py = f64::from(c >> 16) + ((slot >> 1) & 1) as f64 + 0.5;
            let area =
                (s[1].0 - s[0].0) * (s[2].1 - s[0].1) - (s[2].0 - s[0].0) * (s[1].1 - s[0].1);
            let l1 = ((px - s[0].0) * (s[2].1 - s[0].1) - (s[2].0 - s[0].0) * (py - s[0].1)) / area;
            let l2 = ((s[1].0 - s[0].0) * (py - s[0].1) - (px - s[0].0) * (s[1].1 - s[0].1)) / area;
            let want = f64::from(attr[0]) * (1.0 - l1 - l2)
                + f64::from(attr[1]) * l1
                + f64::from(attr[2]) * l2;
            let (r, k) = (2 + 2 * (slot / 8), slot % 8);
            let got = a0 + a1 * reg_f(&t.payload, r, k) + a2 * reg_f(&t.payload, r + 1, k);
            worst = worst.max((f64::from(got) - want).abs());
        }
    }
    worst
}

#[test]
fn non_perspective_interpolation_survives_clipping() {
    let mut rig = Rig::new();
    rig.sf_viewport(0, VP);
    rig.clip.clip_enable = true;
    rig.clip.viewport_xy_cliptest_enable = true;
    // Linear-pixel barycentrics only.
    rig.wm.barycentric_interpolation_mode = 1 << 3;
    // Strong perspective, cut by the right edge x = w.
    let ps = [
        [-0.5, -0.5, 0.0, 1.0],
        [6.0, -1.0, 0.0, 4.0],
        [-0.5, 0.75, 0.0, 1.0],
    ];
    let attr = [0.0, 10.0, 3.0];
    let vs: Vec<Vue> = (0..3)
        .map(|i| vue(ps[i], &[[attr[i], 0.0, 0.0, 1.0]]))
        .collect();
    let objs = [tri([0, 1, 2], 0x04, 0)];
    let threads = rig.run(&vs, &objs, &mut Recorder::default()).unwrap();
    assert!(threads.len() > 2);
    // Without the enable the cut pieces interpolate their own (clip-space)
    // vertex values linearly: visibly off.
    assert!(linear_error(&threads, ps, attr) > 0.05);
    rig.clip.non_perspective_barycentric_enable = true;
    let threads = rig.run(&vs, &objs, &mut Recorder::default()).unwrap();
    let e = linear_error(&threads, ps, attr);
    assert!(e < 1e-3, "error {e}");
}

/// Random state and vertices (NaN, infinities, huge values, reserved
/// encodings) end in threads or an error, never a panic.
#[test]
fn random_state_and_vertices_do_not_panic() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        0.5,
        7.25,
        -3.5,
        1.0e30,
        -1.0e30,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE,
        1.0e-30,
    ];
    let (mut ran, mut drew) = (0, 0);
    for _ in 0..400 {
        let mut rig = Rig::new();
        rig.sf_viewport(0, VP);
        rig.clip_viewport(0, [-2.0, 2.0, -2.0, 2.0]);
        let mut sf = [0u32; 20];
        let mut wm = [0u32; 9];
        let mut clip = [0u32; 4];
        for d in sf.iter_mut().chain(wm.iter_mut()).chain(clip.iter_mut()) {
            *d = next() as u32;
        }
        // Mostly decodable: valid fill modes, clip mode, read length,
        // matching output counts, 1X rasterisation, no depth clears, the
        // setup data past the largest header; the rest random.
        sf[1] = (sf[1] & !(0x3f << 22)) | (sf[1] >> 22 & 0xf) << 22 | 1 << 11;
        sf[2] &= !(1 << 6 | 1 << 4);
        sf[3] &= !(3 << 8);
        clip[2] = (clip[2] & !(7 << 13)) | [0, 3, 4][(clip[2] >> 13) as usize % 3] << 13;
        wm[4] = (wm[4] & !(0x5f << 27 | 0x7f7f7f)) | 40 << 16 | 40 << 8 | 40;
        wm[5] = (wm[5] & !(7 | 1 << 11)) | 1 << 19 | [1, 2, 3, 6, 7][(wm[5] & 7) as usize % 5];
        sf[3] &= !(1 << 31);
        sf[4] &= !(1 << 30 | 1 << 28 | 1 << 26);
        wm[6] = (wm[6] & !(0x3f << 20 | 3 << 1)) | (sf[1] >> 22 & 0xf) << 20;
        // Keep the headers (the commands' identities).
        let mut put = |name: &'static str, dw: &mut [u32], header: u32| {
            dw[0] = header;
            rig.extras.push((name, dw.to_vec()));
        };
        put("3DSTATE_SF", &mut sf, 0x7813_0012);
        put("3DSTATE_WM", &mut wm, 0x7814_0007);
        put("3DSTATE_CLIP", &mut clip, 0x7812_0002);
        let vs: Vec<Vue> = (0..6)
            .map(|_| {
                let mut f = || {
                    let r = next();
                    if r % 3 == 0 {
                        specials[(r >> 8) as usize % specials.len()]
                    } else {
                        ((r >> 16) % 4000) as f32 / 1000.0 - 2.0
                    }
                };
                let p = [f(), f(), f(), f()];
                let mut v = vue(p, &[[f(), f(), f(), f()], [f(), f(), f(), f()]]);
                v.dw[1] = f().to_bits();
                v.dw[2] = f().to_bits() % 20;
                v.dw[3] = f().to_bits();
                v
            })
            .collect();
        let objs: Vec<Object> = (0..4)
            .map(|k| {
                let r = next();
                Object {
                    kind: [
                        ObjectKind::Point,
                        ObjectKind::Line,
                        ObjectKind::Triangle,
                        ObjectKind::Rectangle,
                    ][r as usize % 4],
                    v: [
                        (r >> 8) as u32 % 6,
                        (r >> 16) as u32 % 6,
                        (r >> 24) as u32 % if k == 3 { 7 } else { 6 },
                    ],
                    topology: (r >> 32) as u8 % 0x18,
                    ordinal: k,
                }
            })
            .collect();
        if let Ok(t) = rig.run(&vs, &objs, &mut Recorder::default()) {
            ran += 1;
            drew += usize::from(!t.is_empty());
        }
    }
    // The draws got past decoding and some drew.
    assert!(ran > 100 && drew > 20, "{ran} ran, {drew} drew");
}
