//! Line stipple and anti-aliased lines on Sandy Bridge: the pixels a
//! stippled line keeps against a host reference of the manual's rule
//! (bit floor(s / r) mod 16 of the pattern, s counting the produced
//! pixels), its reset and continue rules per topology, and the refusals
//! that remain.

use alloc::vec::Vec;

use baregpu_hal::gen6::commands::{Cmd3dstateAaLineParams, Cmd3dstateLineStipple};

use super::super::aa::AaLine;
use super::{Recorder, Rig, lit_pixels, tri, vue};
use crate::render3d::types::{DrawError, Object, ObjectKind, PixelThread, Vue};

const LINELIST: u8 = 0x02;
const LINESTRIP: u8 = 0x03;
const LINESTRIP_CONT: u8 = 0x12;
const LINESTRIP_CONT_BF: u8 = 0x14;

fn line(v: [u32; 2], topology: u8, ordinal: u32) -> Object {
    Object {
        kind: ObjectKind::Line,
        v: [v[0], v[1], v[1]],
        topology,
        ordinal,
    }
}

fn lit(threads: &[PixelThread]) -> Vec<(i32, i32)> {
    let ds: Vec<_> = threads.iter().map(|t| t.pixels.clone()).collect();
    lit_pixels(&ds)
}

/// Pixel centres along row `y`, at the given x.
fn row(y: f32, xs: &[f32]) -> Vec<Vue> {
    xs.iter()
        .map(|&x| vue([x + 0.5, y + 0.5, 0.0, 1.0], &[[0.0; 4]]))
        .collect()
}

/// The manual's rule, on the host: is the pixel with counter `s` kept?
fn kept(pattern: u16, repeat: u32, s: u32) -> bool {
    pattern >> ((s / repeat) % 16) & 1 != 0
}

fn stipple_rig(pattern: u16, repeat: u32) -> Rig {
    let mut rig = Rig::new();
    rig.wm.line_stipple_enable = true;
    rig.set(&Cmd3dstateLineStipple {
        line_stipple_pattern: u32::from(pattern),
        line_stipple_repeat_count: repeat,
        // 1/r in U1.13, truncated, as Mesa computes it.
        line_stipple_inverse_repeat_count: (8192 / repeat.max(1)).min(0xffff),
        ..Default::default()
    });
    rig
}

#[test]
fn linelist_resets_the_counter_for_each_line() {
    for (pattern, repeat) in [(0xf0f0u16, 1u32), (0x00ff, 3), (0xa5c3, 2), (0x0001, 1)] {
        let mut rig = stipple_rig(pattern, repeat);
        // Two x-major lines of 20 pixels (the end pixel not drawn), rows 2
        // and 5; the second runs right to left from x = 20.
        let mut vs = row(2.0, &[0.0, 20.0]);
        vs.extend(row(5.0, &[20.0, 0.0]));
        let objs = [line([0, 1], LINELIST, 0), line([2, 3], LINELIST, 1)];
        let got = lit(&rig.run(&vs, &objs, &mut Recorder::default()).unwrap());
        let mut want = Vec::new();
        for s in 0..20 {
            if kept(pattern, repeat, s) {
                want.push((s as i32, 2));
                // Produced from the start point: x = 20 first.
                want.push((20 - s as i32, 5));
            }
        }
        want.sort_unstable();
        assert_eq!(got, want, "pattern {pattern:#x} repeat {repeat}");
    }
}

#[test]
fn linestrip_continues_and_new_primitives_reset() {
    let (pattern, repeat) = (0x3c3cu16, 2u32);
    let mut rig = stipple_rig(pattern, repeat);
    // A strip of three lines along row 3: 0 -> 7 -> 13 -> 30; the shared
    // pixels are produced once, so s = x all along.
    let vs = row(3.0, &[0.0, 7.0, 13.0, 30.0]);
    let strip = [
        line([0, 1], LINESTRIP, 0),
        line([1, 2], LINESTRIP, 1),
        line([2, 3], LINESTRIP, 2),
    ];
    let got = lit(&rig.run(&vs, &strip, &mut Recorder::default()).unwrap());
    let want: Vec<(i32, i32)> = (0..30u32)
        .filter(|&s| kept(pattern, repeat, s))
        .map(|s| (s as i32, 3))
        .collect();
    assert_eq!(got, want);
    // As two strips (ordinals start again): the second resets at x = 7.
    let two = [
        line([0, 1], LINESTRIP, 0),
        line([1, 2], LINESTRIP, 0),
        line([2, 3], LINESTRIP, 1),
    ];
    let got = lit(&rig.run(&vs, &two, &mut Recorder::default()).unwrap());
    let want: Vec<(i32, i32)> = (0..30u32)
        .filter(|&x| kept(pattern, repeat, if x < 7 { x } else { x - 7 }))
        .map(|x| (x as i32, 3))
        .collect();
    assert_eq!(got, want);
    // The second as LINESTRIP_CONT (and _BF) picks up where the first
    // left off: as the one strip.
    for cont in [LINESTRIP_CONT, LINESTRIP_CONT_BF] {
        let objs = [
            line([0, 1], LINESTRIP, 0),
            line([1, 2], cont, 0),
            line([2, 3], cont, 1),
        ];
        let got = lit(&rig.run(&vs, &objs, &mut Recorder::default()).unwrap());
        let want: Vec<(i32, i32)> = (0..30u32)
            .filter(|&s| kept(pattern, repeat, s))
            .map(|s| (s as i32, 3))
            .collect();
        assert_eq!(got, want, "topology {cont:#x}");
    }
    // A CONT strip opening the draw would continue a counter this draw
    // does not have.
    let objs = [line([0, 1], LINESTRIP_CONT, 0)];
    assert_eq!(
        rig.run(&vs, &objs, &mut Recorder::default()),
        Err(DrawError::Unmodelled(
            "LINESTRIP_CONT continuing the line stipple of an earlier draw"
        ))
    );
}

#[test]
fn y_major_and_repeat_256() {
    // A vertical line from y = 40 up to y = 0 (produced from y = 40): with
    // repeat 256 the counter never leaves bit 0 within the line.
    for (pattern, want_any) in [(0x0001u16, true), (0xfffe, false)] {
        let mut rig = stipple_rig(pattern, 256);
        let vs = [
            vue([4.5, 40.5, 0.0, 1.0], &[[0.0; 4]]),
            vue([4.5, 0.5, 0.0, 1.0], &[[0.0; 4]]),
        ];
        let got = lit(&rig
            .run(&vs, &[line([0, 1], LINELIST, 0)], &mut Recorder::default())
            .unwrap());
        assert_eq!(got.len(), if want_any { 40 } else { 0 });
    }
    // Repeat 1, pattern with bit k: every 16th pixel from the start point,
    // counted downwards from y = 40.
    let mut rig = stipple_rig(1 << 5, 1);
    let vs = [
        vue([4.5, 40.5, 0.0, 1.0], &[[0.0; 4]]),
        vue([4.5, 0.5, 0.0, 1.0], &[[0.0; 4]]),
    ];
    let got = lit(&rig
        .run(&vs, &[line([0, 1], LINELIST, 0)], &mut Recorder::default())
        .unwrap());
    assert_eq!(got, [(4, 3), (4, 19), (4, 35)]);
}

#[test]
fn wide_lines_stipple_whole_columns() {
    let (pattern, repeat) = (0x0f0fu16, 1u32);
    let mut rig = stipple_rig(pattern, repeat);
    // A 2-pixel horizontal line from x = 1 to 17 on y = 4: rows 3 and 4,
    // columns 1-16, column k from the start taking s = k.
    rig.sf.line_width = 2 << 7;
    let vs = [
        vue([1.0, 4.0, 0.0, 1.0], &[[0.0; 4]]),
        vue([17.0, 4.0, 0.0, 1.0], &[[0.0; 4]]),
    ];
    let got = lit(&rig
        .run(&vs, &[line([0, 1], LINELIST, 0)], &mut Recorder::default())
        .unwrap());
    let mut want = Vec::new();
    for s in 0..16u32 {
        if kept(pattern, repeat, s) {
            want.push((1 + s as i32, 3));
            want.push((1 + s as i32, 4));
        }
    }
    want.sort_unstable();
    assert_eq!(got, want);
}

#[test]
fn stipple_leaves_other_objects_alone() {
    // Pattern 0 kills every line pixel; triangles and points still draw.
    let mut rig = stipple_rig(0, 1);
    let vs: Vec<Vue> = [(0.0, 0.0), (8.0, 0.0), (0.0, 8.0)]
        .iter()
        .map(|p| vue([p.0, p.1, 0.0, 1.0], &[[0.0; 4]]))
        .collect();
    let t = rig
        .run(&vs, &[tri([0, 1, 2], 0x04, 0)], &mut Recorder::default())
        .unwrap();
    assert!(!lit(&t).is_empty());
    let t = rig
        .run(&vs, &[line([0, 1], LINELIST, 0)], &mut Recorder::default())
        .unwrap();
    assert!(lit(&t).is_empty());
}

#[test]
fn refusals_and_anti_aliasing_ignored_at_width_zero() {
    let vs = row(2.0, &[0.0, 10.0]);
    let one = [line([0, 1], LINELIST, 0)];
    // Line stipple enabled with a repeat count outside [1, 256].
    let mut rig = stipple_rig(0xffff, 0);
    assert!(matches!(
        rig.run(&vs, &one, &mut Recorder::default()),
        Err(DrawError::Invalid(_))
    ));
    let mut rig = Rig::new();
    rig.wm.line_stipple_enable = true;
    assert!(matches!(
        rig.run(&vs, &one, &mut Recorder::default()),
        Err(DrawError::Invalid(_))
    ));
    // Anti-aliasing is ignored for zero-width lines: the GIQ pixels.
    let mut rig = Rig::new();
    let plain = lit(&rig.run(&vs, &one, &mut Recorder::default()).unwrap());
    rig.sf.anti_aliasing_enable = true;
    assert_eq!(
        lit(&rig.run(&vs, &one, &mut Recorder::default()).unwrap()),
        plain
    );
    // Wide anti-aliased lines: AA Line Distance Mode 0 is reserved; the
    // improved coverage of 3DSTATE_AA_LINE_PARAMS is refused.
    rig.sf.line_width = 2 << 7;
    assert_eq!(
        rig.run(&vs, &one, &mut Recorder::default()),
        Err(DrawError::Invalid(
            "3DSTATE_SF AA Line Distance Mode 0 is reserved"
        ))
    );
    rig.sf.aa_line_distance_mode = 1;
    rig.set(&Cmd3dstateAaLineParams {
        aa_coverage_slope: 141,
        aa_coverage_bias: 87,
        ..Default::default()
    });
    assert!(matches!(
        rig.run(&vs, &one, &mut Recorder::default()),
        Err(DrawError::Unmodelled(_))
    ));
    rig.extras.clear();
    let tv: Vec<Vue> = [(0.5, 0.5), (8.5, 0.5), (0.5, 8.5)]
        .iter()
        .map(|p| vue([p.0, p.1, 0.0, 1.0], &[[0.0; 4]]))
        .collect();
    rig.sf.frontface_fill_mode = 1;
    assert_eq!(
        rig.run(&tv, &[tri([0, 1, 2], 0x04, 0)], &mut Recorder::default()),
        Err(DrawError::Unmodelled("anti-aliased wireframe lines"))
    );
    // Stippled wireframe edges: where the counter resets is not written.
    let mut rig = stipple_rig(0xffff, 1);
    rig.sf.frontface_fill_mode = 1;
    assert_eq!(
        rig.run(&tv, &[tri([0, 1, 2], 0x04, 0)], &mut Recorder::default()),
        Err(DrawError::Unmodelled(
            "line stipple on wireframe triangle edges"
        ))
    );
}

/// The manual's coverage on the host, from unnormalised cross and dot
/// products: distance to the closest parallel edge over half the AA
/// region, times one minus the distance past the end point over the cap
/// region, each clamped to [0, 1].
fn host_alpha(p0: (f64, f64), p1: (f64, f64), w: f64, region: f64, cap: f64, s: (f64, f64)) -> f64 {
    let (dx, dy) = (p1.0 - p0.0, p1.1 - p0.1);
    let len2 = dx * dx + dy * dy;
    let len = len2.sqrt();
    let (rx, ry) = (s.0 - p0.0, s.1 - p0.1);
    let cross = (dx * ry - dy * rx).abs() / len;
    let t = (dx * rx + dy * ry) / len2; // 0 at p0, 1 at p1
    let past = if t < 0.0 {
        -t * len
    } else if t > 1.0 {
        (t - 1.0) * len
    } else {
        0.0
    };
    let e = ((w / 2.0 - cross) / (region / 2.0)).clamp(0.0, 1.0);
    let c = (1.0 - past / cap).clamp(0.0, 1.0);
    e * c
}

#[test]
fn aa_coverage_matches_the_manual_formula() {
    // A spread of directions, widths and region widths; samples on a
    // 1/8-pixel grid around each line.
    let mut seed = 0x2545_f491_u32;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        f64::from(seed % 1000) / 1000.0
    };
    for _ in 0..40 {
        let p0 = (4.0 + 8.0 * next(), 4.0 + 8.0 * next());
        let p1 = (4.0 + 8.0 * next(), 4.0 + 8.0 * next());
        if (p1.0 - p0.0).abs() + (p1.1 - p0.1).abs() < 0.5 {
            continue;
        }
        let w = 0.5 + 7.0 * next();
        let region = [0.5, 1.0, 2.0, 4.0][(next() * 4.0) as usize % 4];
        let cap = [0.5, 1.0, 2.0, 4.0][(next() * 4.0) as usize % 4];
        let l = AaLine {
            p0,
            p1,
            half_width: w / 2.0,
            region,
            cap,
        };
        for i in 0..160 {
            for j in 0..160 {
                let s = (f64::from(i) / 8.0, f64::from(j) / 8.0);
                let want = host_alpha(p0, p1, w, region, cap, s) * 255.0;
                let got = f64::from(l.alpha(s.0, s.1));
                assert!(
                    (got - want).abs() <= 0.5 + 1e-6,
                    "{p0:?} {p1:?} at {s:?}: {got} vs {want}"
                );
            }
        }
    }
}

/// The pixels whose centre the AA rectangle holds, on the host (samples
/// exactly on an edge are not asked about: the lines below avoid them).
fn host_rectangle(p0: (f64, f64), p1: (f64, f64), w: f64, sf_cap: f64) -> Vec<(i32, i32)> {
    let (dx, dy) = (p1.0 - p0.0, p1.1 - p0.1);
    let len = (dx * dx + dy * dy).sqrt();
    let mut v = Vec::new();
    for y in 0..64 {
        for x in 0..64 {
            let (rx, ry) = (f64::from(x) + 0.5 - p0.0, f64::from(y) + 0.5 - p0.1);
            let across = (dx * ry - dy * rx).abs() / len;
            let along = (dx * rx + dy * ry) / len;
            if across < w / 2.0 && along > -sf_cap && along < len + sf_cap {
                v.push((x, y));
            }
        }
    }
    v.sort_unstable();
    v
}

#[test]
fn aa_lines_cover_their_rectangle() {
    let mut rig = Rig::new();
    rig.sf.anti_aliasing_enable = true;
    rig.sf.aa_line_distance_mode = 1;
    // Mesa's programming: SF cap 1.0, WM cap 0.5, WM region 1.0 (i965
    // genX_state_upload.c, crocus_state.c).
    rig.sf.line_end_cap_antialiasing_region_width = 1;
    rig.wm.line_end_cap_antialiasing_region_width = 0;
    rig.wm.line_antialiasing_region_width = 1;
    rig.sf.line_width = 3 << 7;
    let (p0, p1) = ((5.3, 6.1), (30.2, 17.7));
    let vs = [
        vue([p0.0 as f32, p0.1 as f32, 0.0, 1.0], &[[0.0; 4]]),
        vue([p1.0 as f32, p1.1 as f32, 0.0, 1.0], &[[0.0; 4]]),
    ];
    let one = [line([0, 1], LINELIST, 0)];
    // The snapped end points (8 fractional bits).
    let snap = |v: f64| (v * 256.0).round() / 256.0;
    let (q0, q1) = ((snap(p0.0), snap(p0.1)), (snap(p1.0), snap(p1.1)));
    let want = host_rectangle(q0, q1, 3.0, 1.0);
    // With threads: the rectangle's pixels, each lit slot carrying the
    // manual's coverage at its centre as U0.8 (WM cap 0.5, region 1.0).
    let t = rig.run(&vs, &one, &mut Recorder::default()).unwrap();
    assert_eq!(lit(&t), want);
    let mut partial = 0;
    for th in &t {
        let d = &th.pixels;
        let aa = d.aa_alpha.expect("an AA line's threads carry its coverage");
        for slot in (0..usize::from(d.simd)).filter(|s| d.mask >> s & 1 != 0) {
            let c = d.corners[slot / 4];
            let x = f64::from(c & 0xffff) + (slot & 1) as f64 + 0.5;
            let y = f64::from(c >> 16) + (slot >> 1 & 1) as f64 + 0.5;
            let host = host_alpha(q0, q1, 3.0, 1.0, 0.5, (x, y)) * 255.0;
            assert!(
                (f64::from(aa[slot]) - host).abs() <= 0.5 + 1e-6,
                "({x}, {y}): {} vs {host}",
                aa[slot]
            );
            partial += usize::from(aa[slot] < 255);
        }
    }
    assert!(partial > 20, "the edges are partly covered ({partial})");
    // Without threads (depth and stencil only) the same pixels.
    rig.wm.thread_dispatch_enable = false;
    let mut om = Recorder::default();
    rig.run(&vs, &one, &mut om).unwrap();
    assert_eq!(lit_pixels(&om.depth_only), want);
    rig.wm.thread_dispatch_enable = true;
    // A line every pixel of which is fully covered: 4
    // wide on a pixel boundary with a 0.5 region, centres 0.5 and 1.5 from
    // the line; end points on pixel centres, SF caps of 0.5 reaching no
    // further centre.
    let mut rig = Rig::new();
    rig.sf.anti_aliasing_enable = true;
    rig.sf.aa_line_distance_mode = 1;
    rig.sf.line_width = 4 << 7;
    let vs = [
        vue([1.5, 8.0, 0.0, 1.0], &[[0.0; 4]]),
        vue([10.5, 8.0, 0.0, 1.0], &[[0.0; 4]]),
    ];
    let t = rig.run(&vs, &one, &mut Recorder::default()).unwrap();
    let want: Vec<(i32, i32)> = (1..=10)
        .flat_map(|x| (6..10).map(move |y| (x, y)))
        .collect();
    let mut want = want;
    want.sort_unstable();
    assert_eq!(lit(&t), want);
    for th in &t {
        let aa = th.pixels.aa_alpha.unwrap();
        for slot in (0..32).filter(|s| th.pixels.mask >> s & 1 != 0) {
            assert_eq!(aa[slot], 255);
        }
    }
    // Stipple does not touch anti-aliased lines (003 lines 41257-41258).
    rig.wm.line_stipple_enable = true;
    rig.set(&Cmd3dstateLineStipple {
        line_stipple_pattern: 0,
        line_stipple_repeat_count: 1,
        ..Default::default()
    });
    let t = rig.run(&vs, &one, &mut Recorder::default()).unwrap();
    assert_eq!(lit(&t), want);
}

#[test]
fn stippled_wide_diagonals_keep_a_subset_of_their_pixels() {
    // An all-ones pattern keeps every pixel the unstippled line lights; a
    // sparse one a subset, whole columns along the major axis at a time.
    for (p0, p1) in [((2.3, 3.1), (50.7, 40.2)), ((9.6, 60.2), (1.2, 4.9))] {
        let vs = [
            vue([p0.0, p0.1, 0.0, 1.0], &[[0.0; 4]]),
            vue([p1.0, p1.1, 0.0, 1.0], &[[0.0; 4]]),
        ];
        let one = [line([0, 1], LINELIST, 0)];
        let mut rig = Rig::new();
        rig.sf.line_width = (3 << 7) + 37;
        let all = lit(&rig.run(&vs, &one, &mut Recorder::default()).unwrap());
        assert!(all.len() > 100);
        let mut rig = stipple_rig(0xffff, 1);
        rig.sf.line_width = (3 << 7) + 37;
        assert_eq!(
            lit(&rig.run(&vs, &one, &mut Recorder::default()).unwrap()),
            all
        );
        let mut rig = stipple_rig(0x0101, 2);
        rig.sf.line_width = (3 << 7) + 37;
        let some = lit(&rig.run(&vs, &one, &mut Recorder::default()).unwrap());
        assert!(!some.is_empty() && some.len() < all.len() / 4);
        assert!(some.iter().all(|p| all.contains(p)));
        // Every kept column is kept whole.
        let x_major = (p1.0 - p0.0).abs() >= (p1.1 - p0.1).abs();
        let major = |p: &(i32, i32)| if x_major { p.0 } else { p.1 };
        for p in &some {
            let column: Vec<_> = all.iter().filter(|q| major(q) == major(p)).collect();
            assert!(column.iter().all(|q| some.contains(q)));
        }
    }
}

#[test]
fn the_counter_carries_between_draws_and_loads_from_the_command() {
    use super::super::StippleCounter;
    let (pattern, repeat) = (0x3c3cu16, 2u32);
    let mut rig = stipple_rig(pattern, repeat);
    let vs = row(3.0, &[0.0, 7.0, 13.0, 30.0]);
    let whole: Vec<(i32, i32)> = (0..30u32)
        .filter(|&s| kept(pattern, repeat, s))
        .map(|s| (s as i32, 3))
        .collect();
    // Draw 1: a LINESTRIP to x = 7; draw 2: LINESTRIP_CONT on from it.
    let mut counter = None;
    let a = lit(&rig
        .run_carried(&vs, &[line([0, 1], LINESTRIP, 0)], &mut counter)
        .unwrap());
    // 7 pixels at repeat 2: index 3, one pixel into it.
    assert_eq!(
        counter,
        Some(StippleCounter {
            repeat: 1,
            index: 3
        })
    );
    let cont = [
        line([1, 2], LINESTRIP_CONT, 0),
        line([2, 3], LINESTRIP_CONT, 1),
    ];
    let b = lit(&rig.run_carried(&vs, &cont, &mut counter).unwrap());
    let mut both = [a, b].concat();
    both.sort_unstable();
    assert_eq!(both, whole);
    // A command with Modify Enable loads the counter; without, nothing.
    let mut dw = [0x7908_0001u32, 0, 0];
    assert_eq!(StippleCounter::loaded(&dw), None);
    dw[1] = 1 << 31 | 1 << 21 | 3 << 16 | u32::from(pattern);
    let mut counter = StippleCounter::loaded(&dw);
    assert_eq!(
        counter,
        Some(StippleCounter {
            repeat: 1,
            index: 3
        })
    );
    let b = lit(&rig.run_carried(&vs, &cont, &mut counter).unwrap());
    let tail: Vec<(i32, i32)> = whole.iter().copied().filter(|p| p.0 >= 7).collect();
    assert_eq!(b, tail);
    // A LINESTRIP resets whatever was carried.
    let mut counter = Some(StippleCounter {
        repeat: 1,
        index: 9,
    });
    let a = lit(&rig
        .run_carried(&vs, &[line([0, 1], LINESTRIP, 0)], &mut counter)
        .unwrap());
    let head: Vec<(i32, i32)> = whole.iter().copied().filter(|p| p.0 < 7).collect();
    assert_eq!(a, head);
}
