//! Coverage against an exact host reference of the top-left rule, shared
//! edges, points and GIQ lines.

use alloc::vec::Vec;

use super::super::coverage::{GiqLine, Rule, Shape};

const ONE: i64 = 256;
const HALF: i64 = 128;

/// Reference: is the sample `p` (1/256 units) inside the triangle `t`, an
/// on-edge sample belonging to the triangle when the third vertex lies
/// below a horizontal edge (top edge) or to the right of a sloped edge
/// (left edge).
pub(super) fn reference(t: [(i64, i64); 3], p: (i64, i64)) -> bool {
    let cross = |a: (i64, i64), b: (i64, i64), c: (i64, i64)| -> i128 {
        i128::from(b.0 - a.0) * i128::from(c.1 - a.1)
            - i128::from(b.1 - a.1) * i128::from(c.0 - a.0)
    };
    let area = cross(t[0], t[1], t[2]);
    if area == 0 {
        return false;
    }
    for i in 0..3 {
        let (a, b, c) = (t[i], t[(i + 1) % 3], t[(i + 2) % 3]);
        // Same side as the third vertex: strictly inside this edge.
        let s = cross(a, b, p);
        if s != 0 {
            if (s > 0) != (area > 0) {
                return false;
            }
            continue;
        }
        // On the edge line.
        if a.1 == b.1 {
            if c.1 <= a.1 {
                return false; // a bottom edge
            }
        } else {
            // x of the edge at c's height versus c.x, scaled by (b.y - a.y).
            let dy = i128::from(b.1 - a.1);
            let lhs = i128::from(c.0 - a.0) * dy - i128::from(b.0 - a.0) * i128::from(c.1 - a.1);
            let right_of_edge = if dy > 0 { lhs > 0 } else { lhs < 0 };
            if !right_of_edge {
                return false; // a right edge
            }
        }
    }
    true
}

fn covered(s: &Shape, px: i64, py: i64) -> bool {
    s.covers(px, py, px * ONE + HALF, py * ONE + HALF)
}

/// A small LCG for test geometry.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: i64) -> i64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as i64
    }
}

#[test]
fn random_triangles_match_the_reference() {
    let mut r = Lcg(7);
    for _ in 0..300 {
        // Vertices on a coarse grid (many samples on edges) or fine.
        let step = if r.next(2) == 0 { HALF } else { 1 };
        let mut v = || {
            (
                r.next(16 * ONE / step) * step,
                r.next(16 * ONE / step) * step,
            )
        };
        let t = [v(), v(), v()];
        let shape = Shape::polygon(&t, Rule::TopLeft);
        for py in 0..16 {
            for px in 0..16 {
                let want = reference(t, (px * ONE + HALF, py * ONE + HALF));
                let got = shape.as_ref().is_some_and(|s| covered(s, px, py));
                assert_eq!(got, want, "triangle {t:?} pixel ({px},{py})");
            }
        }
    }
}

#[test]
fn shared_edges_are_drawn_once() {
    // A 4x4 grid of cells whose inner corners sit on pixel centres, split
    // along alternating diagonals: every pixel in the hull exactly once.
    let mut r = Lcg(3);
    let n = 4;
    let mut corner = [[(0i64, 0i64); 5]; 5];
    for (j, row) in corner.iter_mut().enumerate() {
        for (i, c) in row.iter_mut().enumerate() {
            let inner = i > 0 && i < n && j > 0 && j < n;
            let jitter = |r: &mut Lcg| if inner { (r.next(3) - 1) * HALF } else { 0 };
            *c = (
                i as i64 * 4 * ONE + jitter(&mut r),
                j as i64 * 4 * ONE + jitter(&mut r),
            );
        }
    }
    let mut count = [[0u32; 16]; 16];
    for j in 0..n {
        for i in 0..n {
            let (a, b, c, d) = (
                corner[j][i],
                corner[j][i + 1],
                corner[j + 1][i + 1],
                corner[j + 1][i],
            );
            let tris = if (i + j) % 2 == 0 {
                [[a, b, c], [a, c, d]]
            } else {
                [[a, b, d], [b, c, d]]
            };
            for t in tris {
                if let Some(s) = Shape::polygon(&t, Rule::TopLeft) {
                    for (py, row) in count.iter_mut().enumerate() {
                        for (px, k) in row.iter_mut().enumerate() {
                            if covered(&s, px as i64, py as i64) {
                                *k += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    for row in count {
        for k in row {
            assert_eq!(k, 1, "{count:?}");
        }
    }
}

#[test]
fn rectangle_edges_follow_top_left() {
    // Corners on pixel centres: the left and top rows are in, the right and
    // bottom ones out.
    let s = Shape::polygon(
        &[
            (HALF, HALF),
            (2 * ONE + HALF, HALF),
            (2 * ONE + HALF, 2 * ONE + HALF),
            (HALF, 2 * ONE + HALF),
        ],
        Rule::TopLeft,
    )
    .unwrap();
    let mut lit = Vec::new();
    for py in 0..4 {
        for px in 0..4 {
            if covered(&s, px, py) {
                lit.push((px, py));
            }
        }
    }
    assert_eq!(lit, [(0, 0), (1, 0), (0, 1), (1, 1)]);
    // Degenerate: no shape.
    assert!(Shape::polygon(&[(0, 0), (ONE, ONE), (2 * ONE, 2 * ONE)], Rule::TopLeft).is_none());
}

#[test]
fn point_rule_upper_right_takes_the_right_edge() {
    // A 2x2 square with corners on pixel centres (1.5, 1.5)-(3.5, 3.5).
    let sq = [
        (ONE + HALF, ONE + HALF),
        (3 * ONE + HALF, ONE + HALF),
        (3 * ONE + HALF, 3 * ONE + HALF),
        (ONE + HALF, 3 * ONE + HALF),
    ];
    let lit = |rule| {
        let s = Shape::polygon(&sq, rule).unwrap();
        let mut v = Vec::new();
        for py in 0..5 {
            for px in 0..5 {
                if covered(&s, px, py) {
                    v.push((px, py));
                }
            }
        }
        v
    };
    assert_eq!(lit(Rule::TopLeft), [(1, 1), (2, 1), (1, 2), (2, 2)]);
    assert_eq!(lit(Rule::UpperRight), [(2, 1), (3, 1), (2, 2), (3, 2)]);
}

fn giq(p0: (i64, i64), p1: (i64, i64), last: bool) -> Vec<(i64, i64)> {
    match Shape::giq(
        &GiqLine {
            p0,
            p1,
            last_pixel: last,
            legacy: false,
        },
        ONE,
        HALF,
    ) {
        Shape::Pixels { lit, .. } => lit,
        _ => unreachable!(),
    }
}

#[test]
fn giq_lines_light_the_diamonds_they_leave() {
    let c = |x: i64| x * ONE + HALF;
    // Centre to centre, horizontal: the end pixel's diamond is not left.
    assert_eq!(
        giq((c(0), c(0)), (c(4), c(0)), false),
        [(0, 0), (1, 0), (2, 0), (3, 0)]
    );
    assert_eq!(giq((c(0), c(0)), (c(4), c(0)), true).len(), 5);
    // Vertical, going up.
    let up = giq((c(2), c(5)), (c(2), c(1)), false);
    assert_eq!(up, [(2, 2), (2, 3), (2, 4), (2, 5)]);
    // Diagonal through the centres.
    assert_eq!(
        giq((c(0), c(0)), (c(3), c(3)), false),
        [(0, 0), (1, 1), (2, 2)]
    );
    // A horizontal line exactly between two rows of centres touches the
    // bottom corners of the upper row's diamonds (inclusive), not the top
    // corners of the lower row's.
    let between = giq((c(0), 2 * ONE), (c(3), 2 * ONE), false);
    assert_eq!(between, [(0, 1), (1, 1), (2, 1)]);
}
