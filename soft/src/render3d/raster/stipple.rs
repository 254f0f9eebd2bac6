//! Line stipple (003 lines 41255-41398): the windower's Line Stipple
//! Counter `s` over the pixels a non-anti-aliased line produces, and the
//! pattern bit that keeps or discards each.
//!
//! The rule: s starts at 0 and counts the pixels of a line as they are
//! produced, from the start point towards the end point; the pixel is
//! kept when bit b = floor(s / r) mod 16 of the pattern is 1 (bit 0 the
//! least significant). The formula's image is lost from the text here;
//! the surrounding words are OpenGL's line stipple (OpenGL 2.1 §3.4.2),
//! whose formula this is, and 3DSTATE_LINE_STIPPLE's context-restore
//! fields (Current Repeat Counter U9, Current Stipple Index U4) name the
//! same state as a counter within the repeat and a pattern index, which
//! is how it is kept here. s is reset before each LINELIST line and at
//! the start of each primitive except LINESTRIP_CONT(_BF), which continue
//! it (003 lines 41266-41272, 26477-26486, 37296-37301).
//!
//! Model choices where the manual is silent: a wide (parallelogram) line
//! steps s once per column along its major axis, every pixel of the column
//! sharing the bit (OpenGL's rule for wide lines); zero-width lines step
//! it per lit pixel in order along the line; the counter counts pixels as
//! rasterised, before the scissor and drawing rectangle drop any.

use alloc::vec::Vec;

use super::coverage::Shape;
use crate::render3d::types::DrawError;

/// 3DSTATE_LINE_STIPPLE as the windower uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LineStipple {
    /// Line Stipple Pattern, bit 0 first.
    pub pattern: u16,
    /// Line Stipple Repeat Count, 1-256.
    pub repeat: u32,
}

/// The Line Stipple Counter: pixels produced with the current pattern bit
/// (the Current Repeat Counter) and that bit's index (the Current Stipple
/// Index).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct StippleCounter {
    pub repeat: u32,
    pub index: u32,
}

impl StippleCounter {
    /// The counter a 3DSTATE_LINE_STIPPLE (`dw`, header first) loads: with
    /// Modify Enable (DW1 31) its Current Repeat Counter (29:21) and
    /// Current Stipple Index (19:16), the same bits on SNB (003 lines
    /// 41321-41360) and IVB (Mesa gen7.xml); without it none. For the
    /// front end, which sees the command when it runs.
    pub fn loaded(dw: &[u32]) -> Option<StippleCounter> {
        let d = *dw.get(1)?;
        (d >> 31 != 0).then_some(StippleCounter {
            repeat: d >> 21 & 0x1ff,
            index: d >> 16 & 0xf,
        })
    }

    /// Whether the pixel at the counter is kept.
    pub fn lit(&self, ls: &LineStipple) -> bool {
        ls.pattern >> (self.index % 16) & 1 != 0
    }

    /// One pixel (or column) produced.
    pub fn step(&mut self, ls: &LineStipple) {
        self.repeat += 1;
        if self.repeat >= ls.repeat {
            self.repeat = 0;
            self.index = (self.index + 1) % 16;
        }
    }
}

/// The pixels of `shape` (a line from `p0` to `p1`, subpixel units, `one`
/// units a pixel, samples `off` units in) in production order, grouped:
/// each group takes one step of the counter. A wide line's pixels lie
/// within `reach` (subpixel units) of it along the minor axis.
fn produced(
    shape: &Shape,
    (p0, p1): ((i64, i64), (i64, i64)),
    reach: i64,
    one: i64,
    off: i64,
) -> Vec<Vec<(i64, i64)>> {
    let (dx, dy) = (p1.0 - p0.0, p1.1 - p0.1);
    let x_major = dx.abs() >= dy.abs();
    // Along the line: the major coordinate in the line's direction.
    let forward = if x_major { dx >= 0 } else { dy >= 0 };
    let along = |p: (i64, i64)| {
        let m = if x_major { p.0 } else { p.1 };
        if forward { m } else { -m }
    };
    let mut pixels: Vec<(i64, i64)> = match shape {
        Shape::Pixels { lit, .. } => lit.clone(),
        Shape::Polygon { .. } => {
            // Per column along the major axis, only the pixels within
            // `reach` of the line on the minor axis (a long diagonal's
            // bounding box would be too many to test).
            let [x0, y0, x1, y1] = shape.pixel_bbox(one, off);
            let (m0, m1) = if x_major { (x0, x1) } else { (y0, y1) };
            let (major, minor) = if x_major { (dx, dy) } else { (dy, dx) };
            let (p_major, p_minor) = if x_major { p0 } else { (p0.1, p0.0) };
            let mut v = Vec::new();
            for m in m0..=m1 {
                let sm = m * one + off;
                let at = if major == 0 {
                    p_minor
                } else {
                    p_minor + (sm - p_major) * minor / major
                };
                let lo = (at - reach - off).div_euclid(one);
                let hi = (at + reach - off).div_euclid(one) + 1;
                for n in lo..=hi {
                    let (px, py) = if x_major { (m, n) } else { (n, m) };
                    if shape.covers(px, py, px * one + off, py * one + off) {
                        v.push((px, py));
                    }
                }
            }
            v
        }
    };
    pixels.sort_by_key(|&p| (along(p), if x_major { p.1 } else { p.0 }));
    let per_column = matches!(shape, Shape::Polygon { .. });
    let mut groups: Vec<Vec<(i64, i64)>> = Vec::new();
    for p in pixels {
        match groups.last_mut() {
            Some(g) if per_column && along(g[0]) == along(p) => g.push(p),
            _ => groups.push(alloc::vec![p]),
        }
    }
    groups
}

/// The pixels of a line's `shape` the stipple keeps, advancing `counter`
/// over all the pixels it produces; `width` is its Line Width in pixels.
pub(crate) fn apply(
    ls: &LineStipple,
    counter: &mut StippleCounter,
    shape: &Shape,
    ends: ((i64, i64), (i64, i64)),
    width: f32,
    (one, off): (i64, i64),
) -> Result<Shape, DrawError> {
    if !(1..=256).contains(&ls.repeat) {
        return Err(DrawError::Invalid(
            "3DSTATE_LINE_STIPPLE Line Stipple Repeat Count outside [1, 256]",
        ));
    }
    let mut kept = Vec::new();
    // Half the width, plus a pixel for the edges' rounding.
    let reach = libm::ceil(f64::from(width) / 2.0 * one as f64) as i64 + one;
    for group in produced(shape, ends, reach, one, off) {
        if counter.lit(ls) {
            kept.extend(group);
        }
        counter.step(ls);
    }
    Ok(Shape::pixels(kept))
}
