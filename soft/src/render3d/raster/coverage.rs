//! Which pixel samples an object covers, on the snapped fixed-point vertex
//! positions (1/2^n pixel, n = 8 or 4), evaluated exactly in integers.
//!
//! - Triangles, rectangles and wide lines: a sample strictly inside is
//!   covered, one on an edge only if that edge is a "left" or "top" edge
//!   ("not a right or bottom edge"; top and bottom edges are exactly
//!   horizontal; 003 lines 41399-41445).
//! - Points: squares whose edges follow the Point Rasterization Rule
//!   (RASTRULE_UPPER_LEFT: upper and left edges inclusive;
//!   RASTRULE_UPPER_RIGHT: upper and right; 003 lines 37566-37626).
//! - Zero-width lines: the GIQ diamond-exit rule (003 lines 38020-38130),
//!   sampled on the 1/16-pixel subpixel grid the manual describes.

use alloc::vec::Vec;

/// Which edges of a polygon own the samples on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    TopLeft,
    UpperRight,
}

/// `E(P) = a·x + b·y + c`, positive inside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Edge {
    pub a: i64,
    pub b: i64,
    pub c: i64,
    pub inclusive: bool,
}

impl Edge {
    /// The edge from `p` to `q` of a polygon with positive signed area
    /// (clockwise on the y-down screen).
    fn new(p: (i64, i64), q: (i64, i64), rule: Rule) -> Edge {
        let a = -(q.1 - p.1);
        let b = q.0 - p.0;
        let c = -(a * p.0 + b * p.1);
        // (a, b) is the inward normal: a > 0 a left edge, a < 0 a right
        // edge, a = 0 with b > 0 a top edge.
        let top = a == 0 && b > 0;
        let inclusive = match rule {
            Rule::TopLeft => a > 0 || top,
            Rule::UpperRight => a < 0 || top,
        };
        Edge { a, b, c, inclusive }
    }

    fn inside(&self, x: i64, y: i64) -> bool {
        let e = self.a * x + self.b * y + self.c;
        e > 0 || (e == 0 && self.inclusive)
    }
}

/// Twice the signed area of a polygon (positive: clockwise on screen).
pub(crate) fn area2(pts: &[(i64, i64)]) -> i64 {
    let n = pts.len();
    let mut s = 0;
    for i in 0..n {
        let (p, q) = (pts[i], pts[(i + 1) % n]);
        s += p.0 * q.1 - q.0 * p.1;
    }
    s
}

/// A zero-width line in subpixel units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GiqLine {
    pub p0: (i64, i64),
    pub p1: (i64, i64),
    /// Light the pixel whose diamond holds the end point.
    pub last_pixel: bool,
    /// Legacy Diamond Line Rasterization (3DSTATE_WM DW5 bit 23).
    pub legacy: bool,
}

/// The covered region of (part of) an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A convex polygon (3 or 4 edges), tested at each sample.
    Polygon { edges: Vec<Edge>, bbox: [i64; 4] },
    /// Pixels listed (sorted), with their bounding box in pixels.
    Pixels {
        lit: Vec<(i64, i64)>,
        bbox: [i64; 4],
    },
}

impl Shape {
    /// A convex polygon through `pts` (in either winding); `None` when it
    /// has no area.
    pub fn polygon(pts: &[(i64, i64)], rule: Rule) -> Option<Shape> {
        let a = area2(pts);
        if a == 0 {
            return None;
        }
        let mut p: Vec<(i64, i64)> = pts.to_vec();
        if a < 0 {
            p.reverse();
        }
        let n = p.len();
        let edges = (0..n)
            .map(|i| Edge::new(p[i], p[(i + 1) % n], rule))
            .collect();
        let bbox = [
            p.iter().map(|q| q.0).min().unwrap_or(0),
            p.iter().map(|q| q.1).min().unwrap_or(0),
            p.iter().map(|q| q.0).max().unwrap_or(0),
            p.iter().map(|q| q.1).max().unwrap_or(0),
        ];
        Some(Shape::Polygon { edges, bbox })
    }

    /// The pixels a zero-width line lights by the GIQ rule; `one` subpixel
    /// units to a pixel, samples `off` units into each pixel.
    pub fn giq(l: &GiqLine, one: i64, off: i64) -> Shape {
        Shape::pixels(giq_pixels(l, one, off))
    }

    /// The listed pixels `lit` (in any order, repeats allowed).
    pub fn pixels(mut lit: Vec<(i64, i64)>) -> Shape {
        lit.sort_unstable();
        lit.dedup();
        let bbox = [
            lit.iter().map(|p| p.0).min().unwrap_or(0),
            lit.iter().map(|p| p.1).min().unwrap_or(0),
            lit.iter().map(|p| p.0).max().unwrap_or(-1),
            lit.iter().map(|p| p.1).max().unwrap_or(-1),
        ];
        Shape::Pixels { lit, bbox }
    }

    /// Pixel bounding box (x min, y min, x max, y max), inclusive, of the
    /// pixels whose sample may be covered; `one` subpixel units to a pixel,
    /// samples `off` units into each pixel.
    pub fn pixel_bbox(&self, one: i64, off: i64) -> [i64; 4] {
        match self {
            Shape::Polygon { bbox, .. } => [
                ceil_div(bbox[0] - off, one),
                ceil_div(bbox[1] - off, one),
                (bbox[2] - off).div_euclid(one),
                (bbox[3] - off).div_euclid(one),
            ],
            Shape::Pixels { bbox, .. } => *bbox,
        }
    }

    /// Whether pixel (`px`, `py`), whose sample is at (`sx`, `sy`) in
    /// subpixel units, is covered.
    pub fn covers(&self, px: i64, py: i64, sx: i64, sy: i64) -> bool {
        match self {
            Shape::Polygon { edges, .. } => edges.iter().all(|e| e.inside(sx, sy)),
            Shape::Pixels { lit, .. } => lit.binary_search(&(px, py)).is_ok(),
        }
    }
}

fn ceil_div(n: i64, d: i64) -> i64 {
    -((-n).div_euclid(d))
}

/// Whether the point `d` (relative to the sample, in 1/16 pixel) lies in
/// the sample's diamond: the rule of 003 lines 38090-38130, or the legacy
/// rule of 38020-38060 (with the slope = +1 / -1 exceptions).
fn in_diamond(d: (i64, i64), x_major: bool, legacy: bool, slope: (bool, bool)) -> bool {
    let (dx, dy) = d;
    let dist = dx.abs() + dy.abs();
    let interior = dist < 8;
    let bottom_corner = dx == 0 && dy == 8;
    let left_corner = dx == -8 && dy == 0;
    let right_corner = dx == 8 && dy == 0;
    let bottom_left = dist == 8 && dx < 0 && dy > 0;
    let bottom_right = dist == 8 && dx > 0 && dy > 0;
    if legacy {
        let (pos_one, neg_one) = slope;
        interior
            || bottom_corner
            || (if pos_one { left_corner } else { right_corner })
            || (pos_one && bottom_left)
            || (neg_one && bottom_right)
    } else {
        interior || bottom_corner || (!x_major && right_corner) || bottom_left || bottom_right
    }
}

/// GIQ: a pixel is lit when the line leaves its diamond (or passes through
/// it); a line ending inside the diamond does not light it, unless Last
/// Pixel Enable asks for the end pixel. The line is walked one 1/16 pixel
/// step along its major axis (the manual's subpixel grid), the minor
/// coordinate rounded to the grid: the model's reading of "intersect the
/// directed, ideal line with the diamonds".
fn giq_pixels(l: &GiqLine, one: i64, off: i64) -> Vec<(i64, i64)> {
    let to16 = |v: i64| (v * 16).div_euclid(one);
    let (x0, y0) = (to16(l.p0.0), to16(l.p0.1));
    let (x1, y1) = (to16(l.p1.0), to16(l.p1.1));
    let off16 = to16(off);
    let (dx, dy) = (x1 - x0, y1 - y0);
    let x_major = dx.abs() >= dy.abs();
    let slope = (dx != 0 && dx == dy, dx != 0 && dx == -dy);
    let steps = dx.abs().max(dy.abs());
    let mut out = Vec::new();
    if steps == 0 {
        return out;
    }
    // The diamonds holding a point: samples within Manhattan distance 8.
    let holders = |px: i64, py: i64, out: &mut Vec<(i64, i64)>| {
        for i in (px - off16 - 8).div_euclid(16)..=(px - off16 + 8).div_euclid(16) {
            for j in (py - off16 - 8).div_euclid(16)..=(py - off16 + 8).div_euclid(16) {
                let d = (px - (16 * i + off16), py - (16 * j + off16));
                if in_diamond(d, x_major, l.legacy, slope) {
                    out.push((i, j));
                }
            }
        }
    };
    for k in 0..=steps {
        let px = x0 + div_round(dx * k, steps);
        let py = y0 + div_round(dy * k, steps);
        holders(px, py, &mut out);
    }
    if !l.last_pixel {
        let mut end = Vec::new();
        holders(x1, y1, &mut end);
        out.retain(|p| !end.contains(p));
    }
    out
}

/// Rounds `n / d` (d > 0) to the nearest integer, halves away from zero.
fn div_round(n: i64, d: i64) -> i64 {
    if n >= 0 {
        (2 * n + d) / (2 * d)
    } else {
        -((-2 * n + d) / (2 * d))
    }
}
