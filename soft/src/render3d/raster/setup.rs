//! Setup (the SF unit, 003 lines 36872-39674): the provoking vertex, the
//! viewport transform and the drawing-rectangle origin, the snap to the
//! subpixel grid, degenerate and face culling, fill modes, points and lines
//! grown to their screen shapes, the depth offset, and the attribute setup
//! (swizzles, overrides, flat/linear deltas a0, a1, a2 per channel).

use alloc::vec;
use alloc::vec::Vec;

use super::aa::AaLine;
use super::clip::{divide, position};
use super::coverage::{GiqLine, Rule, Shape, area2};
use super::state::sample_grid;
use super::state::{Cull, Fill, RasterState, Sf};
use crate::render3d::types::{DrawError, ObjectKind};

/// 3DPRIMITIVE topologies setup looks at (003 lines 31101-31175).
pub(crate) mod topo {
    pub const LINELIST: u8 = 0x02;
    pub const TRILIST: u8 = 0x04;
    pub const TRISTRIP: u8 = 0x05;
    pub const TRIFAN: u8 = 0x06;
    pub const TRISTRIP_ADJ: u8 = 0x0c;
    pub const TRISTRIP_REVERSE: u8 = 0x0d;
    pub const POLYGON: u8 = 0x0e;
    pub const LINELIST_ADJ: u8 = 0x09;
    pub const POINTLIST_BF: u8 = 0x11;
    pub const LINESTRIP_CONT: u8 = 0x12;
    pub const LINESTRIP_BF: u8 = 0x13;
    pub const LINESTRIP_CONT_BF: u8 = 0x14;
    pub const TRIFAN_NOSTIPPLE: u8 = 0x16;
}

/// The interpolation plane of an object: three screen positions (pixels,
/// as snapped), their depth and 1/w. Triangles and rectangles use their
/// vertices v0, v1, v2; lines their end points and a third point beside the
/// first; points their upper-left, upper-right and lower-left corners.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Plane {
    pub x: [f64; 3],
    pub y: [f64; 3],
    pub z: [f32; 3],
    pub rhw: [f32; 3],
}

impl Plane {
    /// Twice the signed area.
    fn area(&self) -> f64 {
        (self.x[1] - self.x[0]) * (self.y[2] - self.y[0])
            - (self.x[2] - self.x[0]) * (self.y[1] - self.y[0])
    }

    /// Screen-space barycentrics (λ0, λ1, λ2) of the point (`px`, `py`).
    pub fn lambda(&self, px: f64, py: f64) -> [f64; 3] {
        let a = self.area();
        let (dx, dy) = (px - self.x[0], py - self.y[0]);
        let l1 = (dx * (self.y[2] - self.y[0]) - (self.x[2] - self.x[0]) * dy) / a;
        let l2 = ((self.x[1] - self.x[0]) * dy - dx * (self.y[1] - self.y[0])) / a;
        [1.0 - l1 - l2, l1, l2]
    }

    /// dz/dx and dz/dy.
    fn slopes(&self) -> (f64, f64) {
        let a = self.area();
        let (z1, z2) = (
            f64::from(self.z[1] - self.z[0]),
            f64::from(self.z[2] - self.z[0]),
        );
        let dzdx = (z1 * (self.y[2] - self.y[0]) - z2 * (self.y[1] - self.y[0])) / a;
        let dzdy = (z2 * (self.x[1] - self.x[0]) - z1 * (self.x[2] - self.x[0])) / a;
        (dzdx, dzdy)
    }
}

/// One object as setup hands it to the windower.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SetupObject {
    pub plane: Plane,
    /// Per output attribute, per channel (x, y, z, w): a1, a2, a0 as
    /// float bits (the payload's order).
    pub attrs: Vec<[[u32; 3]; 4]>,
    /// The covered region (several shapes for wireframe and point fill).
    pub shapes: Vec<Shape>,
    /// Depth offset, added to every interpolated depth.
    pub depth_bias: f32,
    pub back_facing: bool,
    /// Polygon stipple applies.
    pub stipple: bool,
    /// For a cut triangle with Non-Perspective Barycentric Enable: the
    /// matrix taking its own screen barycentrics to the non-perspective
    /// barycentrics that, with its attribute deltas, give the window-space
    /// interpolation of the original vertices' values.
    pub linear_map: Option<[[f64; 3]; 3]>,
    pub vp_index: u32,
    pub rta_index: u32,
    pub topology: u8,
    /// A line the line stipple applies to: its snapped end points, start
    /// first (subpixel units).
    pub stippled_line: Option<((i64, i64), (i64, i64))>,
    /// An anti-aliased line: the coverage the windower computes per pixel.
    pub aa: Option<AaLine>,
    /// A line (multisampling rasterises lines at the pixel location in
    /// MSRASTMODE_OFF_PATTERN).
    pub line: bool,
}

/// What setup knows of an object beyond its vertices.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ObjectInfo<'a> {
    pub kind: ObjectKind,
    pub topology: u8,
    /// Its ordinal in its strip (winding parity).
    pub ordinal: u32,
    /// It ends its primitive (no object of its strip follows).
    pub last_in_primitive: bool,
    /// For an object the clipper cut: its vertices' clip-space and
    /// window-space weights over the original vertices; empty otherwise.
    pub weights: &'a [[[f32; 3]; 2]],
    /// The provoking vertex's entry (flat attributes come from it, also
    /// when the clipper replaced the object's vertices).
    pub pv: &'a [u32],
    pub vp_index: u32,
    pub rta_index: u32,
    /// SF_VIEWPORT[vp_index] when the viewport transform is on.
    pub viewport: Option<[f32; 6]>,
}

/// The provoking vertex of an object (003 lines 36978-37535): points and
/// rectangles v0, POLYGON v0, fans the Triangle Fan select, other
/// triangles the Triangle Strip/List select, lines the Line select.
pub(crate) fn provoking(sf: &Sf, kind: ObjectKind, topology: u8) -> Result<usize, DrawError> {
    let pv = match kind {
        ObjectKind::Point | ObjectKind::Rectangle => 0,
        ObjectKind::Line => sf.pv_line,
        ObjectKind::Triangle => match topology {
            topo::POLYGON => 0,
            topo::TRIFAN | topo::TRIFAN_NOSTIPPLE => sf.pv_fan,
            _ => sf.pv_tri,
        },
    };
    let n = match kind {
        ObjectKind::Point => 1,
        ObjectKind::Line => 2,
        _ => 3,
    };
    if pv as usize >= n {
        return Err(DrawError::Invalid(
            "3DSTATE_SF provoking vertex select is reserved",
        ));
    }
    Ok(pv as usize)
}

/// Strip triangles alternate their winding: invertOrientation is set on
/// the odd ones of TRISTRIP and the even ones of TRISTRIP_REVERSE.
fn invert_orientation(topology: u8, ordinal: u32) -> bool {
    match topology {
        topo::TRISTRIP | topo::TRISTRIP_ADJ => ordinal % 2 == 1,
        topo::TRISTRIP_REVERSE => ordinal.is_multiple_of(2),
        _ => false,
    }
}

/// Rounds to the subpixel grid (round to nearest even) and clamps to the
/// [-16K, 16K) guardband (003 lines 37827-37870); subpixel units.
pub(crate) fn snap(v: f64, bits: u32) -> i64 {
    let one = f64::from(1u32 << bits);
    let f = libm::rint(v * one);
    let lo = -16384.0 * one;
    let hi = 16384.0 * one - 1.0;
    f.clamp(lo, hi) as i64
}

/// Input attribute `k` of an entry: the 128 bits `k` from the Vertex URB
/// Entry Read Offset; past the read length it reads as zeros.
fn input(sf: &Sf, dw: &[u32], k: u32) -> [u32; 4] {
    if k >= 2 * sf.read_length {
        return [0; 4];
    }
    let base = (8 * sf.read_offset + 4 * k) as usize;
    let mut v = [0; 4];
    for (c, out) in v.iter_mut().enumerate() {
        *out = dw.get(base + c).copied().unwrap_or(0);
    }
    v
}

/// Output attribute `k` of an entry after the swizzle (003 lines
/// 39549-39600, the controls of DW8-15).
fn output(sf: &Sf, dw: &[u32], k: u32, back: bool) -> Result<[u32; 4], DrawError> {
    let swizzled = sf.swizzle_enable && (k / 16 == u32::from(sf.swizzle_high));
    if !swizzled {
        return Ok(input(sf, dw, k));
    }
    let c = sf.controls[(k % 16) as usize];
    // INPUTATTR_FACING (1) and INPUTATTR_FACING_W (3): the back-face copy
    // is the next attribute.
    let src = u32::from(c.source) + u32::from(c.swizzle & 1 != 0 && back);
    let mut v = input(sf, dw, src);
    if c.swizzle & 2 != 0 {
        // INPUTATTR_W, INPUTATTR_FACING_W: W copied to X.
        v[0] = v[3];
    }
    for (ch, out) in v.iter_mut().enumerate() {
        if c.override_mask & (1 << ch) != 0 {
            *out = match c.constant {
                0 => 0.0f32.to_bits(),
                1 => if ch == 3 { 1.0f32 } else { 0.0 }.to_bits(),
                2 => 1.0f32.to_bits(),
                _ => {
                    return Err(DrawError::Unmodelled(
                        "attribute override with the PrimID constant",
                    ));
                }
            };
        }
    }
    Ok(v)
}

/// a1 or a2 with WrapShortest applied (003 lines 39620-39640).
fn wrap(d: f32) -> f32 {
    if d <= -0.5 {
        d + 1.0
    } else if d >= 0.5 {
        d - 1.0
    } else {
        d
    }
}

/// Sprite texture coordinates of the point corners UL, UR, LL (003 lines
/// 39641-39655).
fn sprite(lower_left: bool) -> [[f32; 4]; 3] {
    let (top, bottom) = if lower_left { (1.0, 0.0) } else { (0.0, 1.0) };
    [
        [0.0, top, 0.0, 1.0],
        [1.0, top, 0.0, 1.0],
        [0.0, bottom, 0.0, 1.0],
    ]
}

/// The attribute deltas of an object whose plane vertices are `verts`.
fn attributes(
    sf: &Sf,
    verts: [&[u32]; 3],
    pv: &[u32],
    back: bool,
    point: bool,
) -> Result<Vec<[[u32; 3]; 4]>, DrawError> {
    let mut out = Vec::with_capacity(sf.outputs as usize);
    for k in 0..sf.outputs {
        let mut a = [[0u32; 3]; 4];
        if sf.flat & (1 << k) != 0 {
            // Constant: the provoking vertex's value in a0, a1 = a2 = 0.
            let v = output(sf, pv, k, back)?;
            for ch in 0..4 {
                a[ch] = [0.0f32.to_bits(), 0.0f32.to_bits(), v[ch]];
            }
        } else {
            let mut vals = [[0.0f32; 4]; 3];
            for (i, dw) in verts.iter().enumerate() {
                let v = output(sf, dw, k, back)?;
                for ch in 0..4 {
                    vals[i][ch] = f32::from_bits(v[ch]);
                }
            }
            if point && sf.sprite_enable & (1 << k) != 0 {
                vals = sprite(sf.sprite_lower_left);
            }
            for ch in 0..4 {
                let mut d1 = vals[1][ch] - vals[0][ch];
                let mut d2 = vals[2][ch] - vals[0][ch];
                if k < 16 && (sf.wrap_shortest >> (4 * k + ch as u32)) & 1 != 0 {
                    d1 = wrap(d1);
                    d2 = wrap(d2);
                }
                a[ch] = [d1.to_bits(), d2.to_bits(), vals[0][ch].to_bits()];
            }
        }
        out.push(a);
    }
    Ok(out)
}

/// A vertex through the divide, the viewport transform and the origin.
#[derive(Clone, Copy, Debug)]
struct Screen {
    x: f64,
    y: f64,
    z: f32,
    rhw: f32,
}

fn to_screen(st: &RasterState, info: &ObjectInfo<'_>, dw: &[u32]) -> Option<Screen> {
    let [x, y, z, rhw] = divide(&st.clip, position(dw));
    // Invalid position culling, pre- and post-transform (003 lines
    // 37543-37549).
    if x.is_nan() || y.is_nan() || z.is_nan() || rhw.is_nan() {
        return None;
    }
    let (x, y, z) = match info.viewport {
        Some([m00, m11, m22, m30, m31, m32]) => (m00 * x + m30, m11 * y + m31, m22 * z + m32),
        None => (x, y, z),
    };
    if x.is_nan() || y.is_nan() || z.is_nan() {
        return None;
    }
    Some(Screen {
        x: f64::from(x) + f64::from(st.rect.origin_x),
        y: f64::from(y) + f64::from(st.rect.origin_y),
        z,
        rhw,
    })
}

/// `D · C⁻¹` for a cut triangle whose vertex k weighs `c_k` over the
/// original vertices in clip space and `d_k` in window space: with
/// barycentrics ν over the cut triangle, μ = ν·D·C⁻¹ satisfies
/// Σ μ_k c_k = Σ ν_k d_k, so the deltas of the cut triangle's values (made
/// with `c`) interpolate as the window-space values (`d`) would.
fn linear_map(w: &[[[f32; 3]; 2]]) -> Option<[[f64; 3]; 3]> {
    let c: [[f64; 3]; 3] = [0, 1, 2].map(|k| w[k][0].map(f64::from));
    let d: [[f64; 3]; 3] = [0, 1, 2].map(|k| w[k][1].map(f64::from));
    let det = c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1])
        - c[0][1] * (c[1][0] * c[2][2] - c[1][2] * c[2][0])
        + c[0][2] * (c[1][0] * c[2][1] - c[1][1] * c[2][0]);
    if det.abs() < 1e-12 {
        return None;
    }
    // The inverse by cofactors.
    let mut inv = [[0.0; 3]; 3];
    for (i, row) in inv.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            let (r0, r1) = ((j + 1) % 3, (j + 2) % 3);
            let (c0, c1) = ((i + 1) % 3, (i + 2) % 3);
            *x = (c[r0][c0] * c[r1][c1] - c[r0][c1] * c[r1][c0]) / det;
        }
    }
    let mut m = [[0.0; 3]; 3];
    for (i, row) in m.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = (0..3).map(|k| d[i][k] * inv[k][j]).sum();
        }
    }
    Some(m)
}

/// Global depth offset for triangles (003 lines 42180-42228): the
/// constant in units of the depth buffer format plus the scale times the
/// largest depth slope, clamped.
fn depth_bias(st: &RasterState, plane: &Plane) -> f32 {
    let sf = &st.sf;
    let (dzdx, dzdy) = plane.slopes();
    let slope = libm::fabs(dzdx).max(libm::fabs(dzdy)) as f32;
    let float_depth = matches!(st.depth_format, 0 | 1);
    let units = if sf.depth_offset_constant == 0.0 {
        0.0
    } else if float_depth {
        if sf.legacy_depth_bias {
            1.0
        } else {
            // 2^(exponent(max z) - 23).
            let zmax = plane.z.iter().fold(0.0f32, |m, z| m.max(libm::fabsf(*z)));
            let e = ((zmax.to_bits() >> 23) & 0xff) as i32 - 127;
            libm::exp2f((e - 23) as f32)
        }
    } else if sf.legacy_depth_bias {
        1.0
    } else {
        // The smallest step of the UNORM format (D16 or 24-bit).
        let bits = if st.depth_format == 5 { 16 } else { 24 };
        1.0 / ((1u32 << bits) - 1) as f32
    };
    let mut bias = sf.depth_offset_constant * units + sf.depth_offset_scale * slope;
    let c = sf.depth_offset_clamp;
    if c > 0.0 {
        bias = bias.min(c);
    } else if c < 0.0 {
        bias = bias.max(c);
    }
    bias
}

/// The plane of a line from `p0` to `p1` (pixels): the third point beside
/// the first, perpendicular to the line, with the first's depth and 1/w
/// (and attributes, so a2 = 0).
fn line_plane(p0: (f64, f64), p1: (f64, f64), s0: Screen, s1: Screen) -> Plane {
    Plane {
        x: [p0.0, p1.0, p0.0 - (p1.1 - p0.1)],
        y: [p0.1, p1.1, p0.1 + (p1.0 - p0.0)],
        z: [s0.z, s1.z, s0.z],
        rhw: [s0.rhw, s1.rhw, s0.rhw],
    }
}

fn line_shape(st: &RasterState, p0: (i64, i64), p1: (i64, i64), last: bool) -> Option<Shape> {
    if p0 == p1 {
        return None;
    }
    let sf = &st.sf;
    let (one, off) = sample_grid(st);
    if sf.line_width == 0.0 {
        let l = GiqLine {
            p0,
            p1,
            last_pixel: last,
            legacy: st.wm.legacy_diamond_lines,
        };
        return Some(Shape::giq(&l, one, off));
    }
    // A parallelogram: the end points moved by half the width along the
    // minor axis (diagonals are x-major; 003 lines 38131-38145).
    let half = libm::rint(f64::from(sf.line_width) * one as f64 / 2.0) as i64;
    let (dx, dy) = (p1.0 - p0.0, p1.1 - p0.1);
    let o = if dx.abs() >= dy.abs() {
        (0, half)
    } else {
        (half, 0)
    };
    Shape::polygon(
        &[
            (p0.0 + o.0, p0.1 + o.1),
            (p1.0 + o.0, p1.1 + o.1),
            (p1.0 - o.0, p1.1 - o.1),
            (p0.0 - o.0, p0.1 - o.1),
        ],
        Rule::TopLeft,
    )
}

fn point_width(st: &RasterState, dw: &[u32]) -> f32 {
    if st.sf.point_width_from_state {
        st.sf.point_width
    } else {
        let w = f32::from_bits(dw.get(3).copied().unwrap_or(0));
        w.clamp(
            st.clip.min_point_width,
            st.clip.max_point_width.max(st.clip.min_point_width),
        )
    }
}

/// A square of `width` about (`x`, `y`) in subpixel units, or `None` when
/// it snaps to nothing.
fn point_square(
    st: &RasterState,
    x: f64,
    y: f64,
    width: f32,
) -> Option<((i64, i64, i64, i64), Shape)> {
    let bits = st.sf.subpixel_bits;
    let h = f64::from(width) / 2.0;
    let (x0, x1) = (snap(x - h, bits), snap(x + h, bits));
    let (y0, y1) = (snap(y - h, bits), snap(y + h, bits));
    if x0 == x1 || y0 == y1 {
        return None;
    }
    let rule = if st.wm.point_upper_right {
        Rule::UpperRight
    } else {
        Rule::TopLeft
    };
    let shape = Shape::polygon(&[(x0, y0), (x1, y0), (x1, y1), (x0, y1)], rule)?;
    Some(((x0, y0, x1, y1), shape))
}

/// Sets up one object out of the clipper; `verts` are its entries (1, 2
/// or 3). Culled, degenerate and invalid objects give nothing.
pub(crate) fn setup(
    st: &RasterState,
    info: &ObjectInfo<'_>,
    verts: &[Vec<u32>],
) -> Result<Option<SetupObject>, DrawError> {
    let sf = &st.sf;
    let bits = sf.subpixel_bits;
    let one = f64::from(1u32 << bits);
    let mut scr = Vec::with_capacity(3);
    for v in verts {
        match to_screen(st, info, v) {
            Some(s) => scr.push(s),
            None => return Ok(None),
        }
    }
    let fixed: Vec<(i64, i64)> = scr
        .iter()
        .map(|s| (snap(s.x, bits), snap(s.y, bits)))
        .collect();
    let px = |p: (i64, i64)| (p.0 as f64 / one, p.1 as f64 / one);
    let topology = info.topology;
    let base = |plane: Plane, shapes: Vec<Shape>, back: bool, attrs| SetupObject {
        plane,
        attrs,
        shapes,
        depth_bias: 0.0,
        back_facing: back,
        stipple: false,
        linear_map: None,
        vp_index: info.vp_index,
        rta_index: info.rta_index,
        topology,
        stippled_line: None,
        aa: None,
        line: info.kind == ObjectKind::Line,
    };
    let bf_topology = matches!(
        topology,
        topo::POINTLIST_BF | topo::LINESTRIP_BF | topo::LINESTRIP_CONT_BF
    );
    match info.kind {
        ObjectKind::Point => {
            let s = scr[0];
            let Some(((x0, y0, x1, y1), shape)) =
                point_square(st, s.x, s.y, point_width(st, &verts[0]))
            else {
                return Ok(None);
            };
            let plane = Plane {
                x: [x0 as f64 / one, x1 as f64 / one, x0 as f64 / one],
                y: [y0 as f64 / one, y0 as f64 / one, y1 as f64 / one],
                z: [s.z; 3],
                rhw: [s.rhw; 3],
            };
            let v = verts[0].as_slice();
            let attrs = attributes(sf, [v, v, v], info.pv, bf_topology, true)?;
            Ok(Some(base(plane, vec![shape], bf_topology, attrs)))
        }
        ObjectKind::Line => {
            // Anti-aliasing is ignored for zero-width lines (003 lines
            // 37979-37980, 38655-38662).
            if sf.antialias && sf.line_width != 0.0 {
                if !sf.aa_true_distance {
                    return Err(DrawError::Invalid(
                        "3DSTATE_SF AA Line Distance Mode 0 is reserved",
                    ));
                }
                if st.aa_improved {
                    // Which distance Lo the slope and bias apply to is not
                    // written down (003 lines 41222-41254).
                    return Err(DrawError::Unmodelled(
                        "3DSTATE_AA_LINE_PARAMS coverage slopes other than 0",
                    ));
                }
                let aa = AaLine {
                    p0: px(fixed[0]),
                    p1: px(fixed[1]),
                    half_width: f64::from(sf.line_width) / 2.0,
                    region: f64::from(st.wm.aa_region),
                    cap: f64::from(st.wm.aa_cap_region),
                };
                let Some(shape) = aa.rectangle(f64::from(sf.aa_cap_region), 1i64 << bits) else {
                    return Ok(None);
                };
                let plane = line_plane(px(fixed[0]), px(fixed[1]), scr[0], scr[1]);
                let (a, b) = (verts[0].as_slice(), verts[1].as_slice());
                let attrs = attributes(sf, [a, b, a], info.pv, bf_topology, false)?;
                let mut o = base(plane, vec![shape], bf_topology, attrs);
                o.aa = Some(aa);
                return Ok(Some(o));
            }
            // Last Pixel Enable: the end pixel of each LINELIST line, of
            // the last line only in strips (003 lines 38060-38075).
            let list = matches!(topology, topo::LINELIST | topo::LINELIST_ADJ);
            let last = sf.last_pixel && (list || info.last_in_primitive);
            let Some(shape) = line_shape(st, fixed[0], fixed[1], last) else {
                return Ok(None);
            };
            let plane = line_plane(px(fixed[0]), px(fixed[1]), scr[0], scr[1]);
            let (a, b) = (verts[0].as_slice(), verts[1].as_slice());
            let attrs = attributes(sf, [a, b, a], info.pv, bf_topology, false)?;
            let mut o = base(plane, vec![shape], bf_topology, attrs);
            // Only non-anti-aliased lines are stippled (003 lines
            // 41257-41258).
            if st.line_stipple.is_some() {
                o.stippled_line = Some((fixed[0], fixed[1]));
            }
            Ok(Some(o))
        }
        ObjectKind::Rectangle => {
            // The implied fourth corner v3 = v0 - v1 + v2 (003 lines
            // 37810-37826).
            let (a, b, c) = (fixed[0], fixed[1], fixed[2]);
            let d = (a.0 - b.0 + c.0, a.1 - b.1 + c.1);
            let corners = [a, b, c, d];
            for i in 0..4 {
                for j in i + 1..4 {
                    if corners[i] == corners[j] {
                        return Ok(None);
                    }
                }
            }
            let Some(shape) = Shape::polygon(&corners, Rule::TopLeft) else {
                return Ok(None);
            };
            let plane = Plane {
                x: [px(a).0, px(b).0, px(c).0],
                y: [px(a).1, px(b).1, px(c).1],
                z: [scr[0].z, scr[1].z, scr[2].z],
                rhw: [scr[0].rhw, scr[1].rhw, scr[2].rhw],
            };
            let attrs = attributes(sf, [&verts[0], &verts[1], &verts[2]], info.pv, false, false)?;
            Ok(Some(base(plane, vec![shape], false, attrs)))
        }
        ObjectKind::Triangle => {
            // Degenerate triangles (collinear or coincident vertices) are
            // dropped when SOLID fill applies, and count as back-facing
            // (003 lines 37871-37905).
            let degenerate = area2(&fixed) == 0;
            let cw = area2(&fixed) > 0;
            let front =
                !degenerate && (cw != sf.front_ccw) != invert_orientation(topology, info.ordinal);
            let cull = match sf.cull {
                Cull::Both => true,
                Cull::None => false,
                Cull::Front => front,
                Cull::Back => !front,
            };
            if cull {
                return Ok(None);
            }
            let back = !front;
            let fill = if front { sf.front_fill } else { sf.back_fill };
            // The interpolation plane: the triangle's, or for a degenerate
            // one (wireframe or point fill) its longest edge's, as a line's.
            let order = if degenerate {
                if fill == Fill::Solid {
                    return Ok(None);
                }
                let len = |i: usize, j: usize| {
                    let (dx, dy) = (fixed[j].0 - fixed[i].0, fixed[j].1 - fixed[i].1);
                    dx * dx + dy * dy
                };
                let (i, j) = [(0, 1), (1, 2), (2, 0)]
                    .into_iter()
                    .max_by_key(|&(i, j)| len(i, j))
                    .unwrap_or((0, 1));
                if len(i, j) == 0 {
                    return Ok(None);
                }
                [i, j, i]
            } else {
                [0, 1, 2]
            };
            let plane = if degenerate {
                line_plane(
                    px(fixed[order[0]]),
                    px(fixed[order[1]]),
                    scr[order[0]],
                    scr[order[1]],
                )
            } else {
                Plane {
                    x: [px(fixed[0]).0, px(fixed[1]).0, px(fixed[2]).0],
                    y: [px(fixed[0]).1, px(fixed[1]).1, px(fixed[2]).1],
                    z: [scr[0].z, scr[1].z, scr[2].z],
                    rhw: [scr[0].rhw, scr[1].rhw, scr[2].rhw],
                }
            };
            let shapes: Vec<Shape> = match fill {
                Fill::Solid => Shape::polygon(&fixed, Rule::TopLeft).into_iter().collect(),
                Fill::Wireframe => {
                    if sf.antialias && sf.line_width != 0.0 {
                        return Err(DrawError::Unmodelled("anti-aliased wireframe lines"));
                    }
                    // Where the counter resets along a triangle's edges
                    // is not written down.
                    if st.line_stipple.is_some() {
                        return Err(DrawError::Unmodelled(
                            "line stipple on wireframe triangle edges",
                        ));
                    }
                    (0..3)
                        .filter_map(|i| line_shape(st, fixed[i], fixed[(i + 1) % 3], sf.last_pixel))
                        .collect()
                }
                Fill::Point => (0..3)
                    .filter_map(|i| {
                        point_square(st, scr[i].x, scr[i].y, point_width(st, &verts[i]))
                            .map(|p| p.1)
                    })
                    .collect(),
            };
            let attrs = attributes(
                sf,
                [&verts[order[0]], &verts[order[1]], &verts[order[2]]],
                info.pv,
                back,
                false,
            )?;
            let mut o = base(plane, shapes, back, attrs);
            let offset_on = match fill {
                Fill::Solid => sf.depth_offset[0],
                Fill::Wireframe => sf.depth_offset[1],
                Fill::Point => sf.depth_offset[2],
            };
            if offset_on {
                o.depth_bias = depth_bias(st, &plane);
            }
            if st.clip.non_perspective && !degenerate && info.weights.len() == 3 {
                o.linear_map = linear_map(info.weights);
            }
            o.stipple = st.wm.polygon_stipple
                && matches!(
                    topology,
                    topo::POLYGON
                        | topo::TRIFAN
                        | topo::TRILIST
                        | topo::TRISTRIP
                        | topo::TRISTRIP_REVERSE
                );
            Ok(Some(o))
        }
    }
}
