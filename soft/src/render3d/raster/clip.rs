//! The SNB fixed-function clipper (003 lines 35113-36871): VertexClipTest
//! outcodes, ClipDetermination (trivial accept, trivial reject, must-clip),
//! the Clip Mode switch, clipping of must-clip objects in 4D clip space with
//! the attributes of new vertices interpolated, and the perspective divide.
//!
//! A vertex here is its whole URB entry (header DW0-3, position DW4-7, clip
//! distances DW8-15 when the clip/cull masks read them, then the rest).

use alloc::vec;
use alloc::vec::Vec;

use super::state::{Clip, ClipMode};
use crate::render3d::types::{DrawError, ObjectKind};

/// Outcode bits (003 lines 35990-36417).
pub(crate) mod oc {
    pub const BAD: u32 = 1 << 0;
    pub const NEGW: u32 = 1 << 1;
    pub const VP_XMIN: u32 = 1 << 2;
    pub const VP_XMAX: u32 = 1 << 3;
    pub const VP_YMIN: u32 = 1 << 4;
    pub const VP_YMAX: u32 = 1 << 5;
    pub const VP_ZMIN: u32 = 1 << 6;
    pub const VP_ZMAX: u32 = 1 << 7;
    pub const GB_XMIN: u32 = 1 << 8;
    pub const GB_XMAX: u32 = 1 << 9;
    pub const GB_YMIN: u32 = 1 << 10;
    pub const GB_YMAX: u32 = 1 << 11;
    /// User clip distance planes 0-7 (clip test), bits 16-23.
    pub const UC_SHIFT: u32 = 16;
    /// User clip distance planes 0-7 (cull test), bits 24-31.
    pub const UCULL_SHIFT: u32 = 24;
    pub const VP_XY: u32 = VP_XMIN | VP_XMAX | VP_YMIN | VP_YMAX;
    pub const VP_Z: u32 = VP_ZMIN | VP_ZMAX;
    pub const GB: u32 = GB_XMIN | GB_XMAX | GB_YMIN | GB_YMAX;
}

/// Position of a vertex entry.
pub(crate) fn position(dw: &[u32]) -> [f32; 4] {
    let f = |i: usize| f32::from_bits(dw.get(i).copied().unwrap_or(0));
    [f(4), f(5), f(6), f(7)]
}

fn distance(dw: &[u32], i: usize) -> f32 {
    f32::from_bits(dw.get(8 + i).copied().unwrap_or(0))
}

/// The speculative perspective divide: NDC x, y, z and 1/w ("w is always
/// 1/w", 003 line 36015). With Perspective Divide Disable the position is
/// taken as already divided, its w as the reciprocal w.
pub(crate) fn divide(clip: &Clip, p: [f32; 4]) -> [f32; 4] {
    if clip.perspective_divide_disable {
        p
    } else {
        let rhw = 1.0 / p[3];
        [p[0] * rhw, p[1] * rhw, p[2] * rhw, rhw]
    }
}

/// VertexClipTest for the SNB (DevCTG+ NEGW handling, DevIL+ NaN rules)
/// against the guardband `gb` (x min, x max, y min, y max in NDC).
pub(crate) fn outcode(clip: &Clip, gb: [f32; 4], dw: &[u32]) -> u32 {
    let p = position(dw);
    let [x, y, z, rhw] = divide(clip, p);
    let mut o = 0;
    let ucd = clip.ucd_clip | clip.ucd_cull;
    let bad_dist = (0..8).any(|i| ucd & (1 << i) != 0 && distance(dw, i).is_nan());
    if p.iter().any(|c| c.is_nan()) || rhw.is_nan() || bad_dist {
        o |= oc::BAD;
    }
    // "negative (including negative 0)": the sign bit.
    let neg = rhw.is_sign_negative();
    if neg {
        o |= oc::NEGW;
    }
    // Outside tests flip with the sign of w (DevCTG+).
    let out_lo = |v: f32, lim: f32| if neg { v > lim } else { v < lim };
    let out_hi = |v: f32, lim: f32| if neg { v < lim } else { v > lim };
    let mut vp = 0;
    if clip.viewport_xy {
        vp |= if out_lo(x, -1.0) { oc::VP_XMIN } else { 0 };
        vp |= if out_hi(x, 1.0) { oc::VP_XMAX } else { 0 };
        vp |= if out_lo(y, -1.0) { oc::VP_YMIN } else { 0 };
        vp |= if out_hi(y, 1.0) { oc::VP_YMAX } else { 0 };
    }
    let mut g = 0;
    if clip.guardband {
        g |= if out_lo(x, gb[0]) { oc::GB_XMIN } else { 0 };
        g |= if out_hi(x, gb[1]) { oc::GB_XMAX } else { 0 };
        g |= if out_lo(y, gb[2]) { oc::GB_YMIN } else { 0 };
        g |= if out_hi(y, gb[3]) { oc::GB_YMAX } else { 0 };
    }
    // One set disabled: it takes the other's outcodes.
    if clip.viewport_xy && !clip.guardband {
        g = vp << 6;
    } else if !clip.viewport_xy && clip.guardband {
        vp = g >> 6;
    }
    o |= vp | g;
    if clip.viewport_z {
        let zmin = if clip.d3d { 0.0 } else { -1.0 };
        o |= if out_lo(z, zmin) { oc::VP_ZMIN } else { 0 };
        o |= if out_hi(z, 1.0) { oc::VP_ZMAX } else { 0 };
    }
    let xy = clip.viewport_xy || clip.guardband;
    if x.is_nan() && xy {
        o |= oc::VP_XMIN | oc::VP_XMAX | oc::GB_XMIN | oc::GB_XMAX;
    }
    if y.is_nan() && xy {
        o |= oc::VP_YMIN | oc::VP_YMAX | oc::GB_YMIN | oc::GB_YMAX;
    }
    if z.is_nan() && clip.viewport_z {
        o |= oc::VP_ZMIN;
    }
    // A clip distance below 0 (or NaN) sets the vertex's UCF bit (VUE
    // header D8-D15, 003 lines 27800-27830).
    for i in 0..8 {
        let d = distance(dw, i);
        let out = d < 0.0 || d.is_nan();
        if out && clip.ucd_clip & (1 << i) != 0 {
            o |= 1 << (oc::UC_SHIFT + i as u32);
        }
        if out && clip.ucd_cull & (1 << i) != 0 {
            o |= 1 << (oc::UCULL_SHIFT + i as u32);
        }
    }
    o
}

/// ClipDetermination's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Bad,
    TrivialReject,
    TrivialAccept,
    MustClip,
}

/// ClipDetermination (003 lines 36443-36560): the clip-test distances are
/// treated as must-clip planes, the cull-test ones only reject.
pub(crate) fn classify(codes: &[u32]) -> Class {
    let and = codes.iter().fold(u32::MAX, |a, c| a & c);
    let or = codes.iter().fold(0, |a, c| a | c);
    if or & oc::BAD != 0 {
        return Class::Bad;
    }
    let tr_vpxy = and & oc::VP_XY != 0;
    let tr_gb = and & oc::GB != 0;
    let tr_vpz = and & oc::VP_Z != 0;
    let tr_uc = and >> oc::UC_SHIFT != 0;
    let tr_negw = and & oc::NEGW != 0;
    if tr_gb || tr_vpxy || tr_vpz || tr_uc || tr_negw {
        return Class::TrivialReject;
    }
    let ta = or & (oc::GB | oc::VP_Z | oc::NEGW) == 0 && (or >> oc::UC_SHIFT) & 0xff == 0;
    if ta {
        Class::TrivialAccept
    } else {
        Class::MustClip
    }
}

/// A clip plane as a signed distance on the homogeneous vertex (inside when
/// >= 0).
#[derive(Clone, Copy, Debug)]
enum Plane {
    /// a·x + b·w (for x, y, z against ±w or a guardband scale of w).
    Axis { axis: usize, a: f32, b: f32 },
    /// The clip distance i.
    Distance(usize),
    /// w above the smallest positive normal float, for vertices behind the
    /// eye when no z plane takes them out (a model choice: the manual does
    /// not say where the w = 0 plane cuts).
    PositiveW,
}

impl Plane {
    fn eval(self, dw: &[u32]) -> f32 {
        let p = position(dw);
        match self {
            Plane::Axis { axis, a, b } => a * p[axis] + b * p[3],
            Plane::Distance(i) => distance(dw, i),
            Plane::PositiveW => p[3] - f32::MIN_POSITIVE,
        }
    }
}

/// The planes the must-clip object straddles (those its vertices' union of
/// outcodes names).
fn planes(clip: &Clip, gb: [f32; 4], or: u32) -> Vec<Plane> {
    let mut v = Vec::new();
    // X/Y: the guardband (equal to the viewport when its test is off), so
    // that what is left is trivially accepted by the 2D clip downstream.
    let (xmin, xmax, ymin, ymax) = if clip.guardband {
        (gb[0], gb[1], gb[2], gb[3])
    } else {
        (-1.0, 1.0, -1.0, 1.0)
    };
    if or & (oc::GB_XMIN | oc::VP_XMIN) != 0 {
        v.push(Plane::Axis {
            axis: 0,
            a: 1.0,
            b: -xmin,
        });
    }
    if or & (oc::GB_XMAX | oc::VP_XMAX) != 0 {
        v.push(Plane::Axis {
            axis: 0,
            a: -1.0,
            b: xmax,
        });
    }
    if or & (oc::GB_YMIN | oc::VP_YMIN) != 0 {
        v.push(Plane::Axis {
            axis: 1,
            a: 1.0,
            b: -ymin,
        });
    }
    if or & (oc::GB_YMAX | oc::VP_YMAX) != 0 {
        v.push(Plane::Axis {
            axis: 1,
            a: -1.0,
            b: ymax,
        });
    }
    if or & oc::VP_ZMIN != 0 {
        // D3D: z >= 0; OGL: z >= -w (003 lines 35200-35215).
        v.push(Plane::Axis {
            axis: 2,
            a: 1.0,
            b: if clip.d3d { 0.0 } else { 1.0 },
        });
    }
    if or & oc::VP_ZMAX != 0 {
        v.push(Plane::Axis {
            axis: 2,
            a: -1.0,
            b: 1.0,
        });
    }
    for i in 0..8 {
        if or & (1 << (oc::UC_SHIFT + i)) != 0 {
            v.push(Plane::Distance(i as usize));
        }
    }
    if or & oc::NEGW != 0 {
        v.push(Plane::PositiveW);
    }
    v
}

/// A vertex in the clipper: its entry, and its weights over the object's
/// original vertices in clip space (`c`, how its dwords were made) and in
/// window space (`d`, what a non-perspective attribute has there).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CVert {
    pub dw: Vec<u32>,
    pub c: [f32; 3],
    pub d: [f32; 3],
}

/// The vertex a fraction `t` of the way from `a` to `b` in clip space:
/// every dword from the position on interpolated as a float, the header
/// (RTAIndex, VPIndex, point width) kept from `a`. In window space the
/// same point lies `t·wb / ((1 - t)·wa + t·wb)` of the way.
fn lerp(a: &CVert, b: &CVert, t: f32) -> CVert {
    let n = a.dw.len().max(b.dw.len());
    let mut dw = Vec::with_capacity(n);
    for i in 0..n {
        let x = a.dw.get(i).copied().unwrap_or(0);
        if i < 4 {
            dw.push(x);
            continue;
        }
        let fa = f32::from_bits(x);
        let fb = f32::from_bits(b.dw.get(i).copied().unwrap_or(0));
        dw.push((fa + (fb - fa) * t).to_bits());
    }
    let (wa, wb) = (position(&a.dw)[3], position(&b.dw)[3]);
    let s = t * wb / ((1.0 - t) * wa + t * wb);
    let mix = |p: [f32; 3], q: [f32; 3], f: f32| [0, 1, 2].map(|i| p[i] + (q[i] - p[i]) * f);
    CVert {
        dw,
        c: mix(a.c, b.c, t),
        d: mix(a.d, b.d, s),
    }
}

impl Plane {
    fn at(self, v: &CVert) -> f32 {
        self.eval(&v.dw)
    }
}

/// Sutherland-Hodgman against each plane in turn; a polygon (triangle) or
/// a segment (line) comes back, maybe empty.
fn clip_polygon(mut poly: Vec<CVert>, planes: &[Plane], closed: bool) -> Vec<CVert> {
    for &pl in planes {
        if poly.is_empty() {
            break;
        }
        let n = poly.len();
        let mut out = Vec::with_capacity(n + 2);
        if !closed {
            // A segment: keep the inside part.
            let (a, b) = (&poly[0], &poly[1]);
            let (da, db) = (pl.at(a), pl.at(b));
            if da < 0.0 && db < 0.0 {
                return Vec::new();
            }
            let na = if da < 0.0 {
                lerp(a, b, da / (da - db))
            } else {
                a.clone()
            };
            let nb = if db < 0.0 {
                lerp(b, a, db / (db - da))
            } else {
                b.clone()
            };
            out.push(na);
            out.push(nb);
            poly = out;
            continue;
        }
        for i in 0..n {
            let a = &poly[i];
            let b = &poly[(i + 1) % n];
            let (da, db) = (pl.at(a), pl.at(b));
            if da >= 0.0 {
                out.push(a.clone());
            }
            if (da >= 0.0) != (db >= 0.0) {
                // The new vertex is interpolated from the inside end, so
                // that shared edges of neighbours give the same point.
                if da >= 0.0 {
                    out.push(lerp(a, b, da / (da - db)));
                } else {
                    out.push(lerp(b, a, db / (db - da)));
                }
            }
        }
        poly = out;
    }
    if closed && poly.len() < 3 {
        poly.clear();
    }
    poly
}

/// What the clipper hands setup for one object: zero or more objects of
/// the same kind (a clipped triangle becomes a fan of triangles from the
/// first vertex of the clipped polygon).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Clipped {
    pub kind: ObjectKind,
    pub verts: Vec<Vec<u32>>,
    /// It was cut by the clipper (its vertices are new).
    pub clipped: bool,
    /// For cut objects, each vertex's clip-space and window-space weights
    /// over the original vertices ([`CVert`]).
    pub weights: Vec<[[f32; 3]; 2]>,
}

impl Clipped {
    fn cut(kind: ObjectKind, v: Vec<CVert>) -> Clipped {
        Clipped {
            kind,
            weights: v.iter().map(|v| [v.c, v.d]).collect(),
            verts: v.into_iter().map(|v| v.dw).collect(),
            clipped: true,
        }
    }
}

/// Runs the clipper on one object whose vertices are `verts` (1, 2 or 3
/// entries), with the guardband of its viewport.
pub(crate) fn clip_object(
    clip: &Clip,
    gb: [f32; 4],
    kind: ObjectKind,
    verts: Vec<Vec<u32>>,
) -> Result<Vec<Clipped>, DrawError> {
    let pass = |verts: Vec<Vec<u32>>| {
        vec![Clipped {
            kind,
            verts,
            clipped: false,
            weights: Vec::new(),
        }]
    };
    // Each original vertex weighs 1 on itself.
    let originals = |verts: Vec<Vec<u32>>| -> Vec<CVert> {
        verts
            .into_iter()
            .enumerate()
            .map(|(i, dw)| {
                let mut e = [0.0; 3];
                e[i] = 1.0;
                CVert { dw, c: e, d: e }
            })
            .collect()
    };
    if !clip.enable {
        // The stage is off: objects pass untested (the SF still drops NaN
        // positions).
        return Ok(pass(verts));
    }
    let codes: Vec<u32> = verts.iter().map(|v| outcode(clip, gb, v)).collect();
    let class = classify(&codes);
    match clip.mode {
        ClipMode::RejectAll => Ok(Vec::new()),
        ClipMode::AcceptAll => {
            if class == Class::Bad {
                Ok(Vec::new())
            } else {
                Ok(pass(verts))
            }
        }
        ClipMode::Normal => match class {
            Class::Bad | Class::TrivialReject => Ok(Vec::new()),
            Class::TrivialAccept => Ok(pass(verts)),
            Class::MustClip => {
                let or = codes.iter().fold(0, |a, c| a | c);
                let pl = planes(clip, gb, or);
                match kind {
                    ObjectKind::Point => {
                        let inside = pl.iter().all(|p| p.eval(&verts[0]) >= 0.0);
                        Ok(if inside { pass(verts) } else { Vec::new() })
                    }
                    ObjectKind::Line => {
                        let seg = clip_polygon(originals(verts), &pl, false);
                        Ok(if seg.len() == 2 {
                            vec![Clipped::cut(kind, seg)]
                        } else {
                            Vec::new()
                        })
                    }
                    ObjectKind::Triangle => {
                        let poly = clip_polygon(originals(verts), &pl, true);
                        let mut out = Vec::new();
                        for i in 1..poly.len().saturating_sub(1) {
                            let t = vec![poly[0].clone(), poly[i].clone(), poly[i + 1].clone()];
                            out.push(Clipped::cut(kind, t));
                        }
                        Ok(out)
                    }
                    ObjectKind::Rectangle => Err(DrawError::Unmodelled(
                        "a RECTLIST rectangle the clipper must clip (RECTLIST needs clipping off or trivially accepted)",
                    )),
                }
            }
        },
    }
}
