//! Cube maps: which face a direction hits and where on it, and back.
//!
//! "The vector component (X, Y or Z) with the largest absolute value
//! determines the proper (major) axis, and then the sign of that component
//! is used to select between the two faces associated with that axis. The
//! coordinates along the two minor axes are then divided by the coordinate
//! of the major axis, and scaled and translated, to obtain the 2D texture
//! coordinate ([0,1]) within the chosen face" (003 lines 73145-73151; the
//! shader has already divided, so the major component arrives as +-1).
//! Faces are array slices q 0-5 in the order +X, -X, +Y, -Y, +Z, -Z (003
//! lines 6192-6208).
//!
//! The manual's orientation figure is an image lost in the text. The
//! orientation of the minor axes on each face is the one the APIs define
//! (OpenGL 4.6 spec table 8.19, the DirectX cube convention): Mesa's i965
//! passes the API's direction to the sampler unchanged but for the divide
//! [ext: mesa src/mesa/drivers/dri/i965/brw_cubemap_normalize.cpp, "have
//! the largest magnitude component be -1.0 or 1.0"], so the hardware must
//! use that table:
//!
//! ```text
//! face  sc   tc   ma        face  sc   tc   ma
//! +X    -z   -y   x         -X    +z   -y   x
//! +Y    +x   +z   y         -Y    +x   -z   y
//! +Z    +x   -y   z         -Z    -x   -y   z
//! s = (sc / |ma| + 1) / 2,  t = (tc / |ma| + 1) / 2
//! ```
//!
//! Ties between axes of equal magnitude are not defined by the manuals;
//! this model prefers Z, then Y, then X (a choice, stated in the tests).

/// Face index q of a direction, and its face coordinates (s, t) in [0, 1]
/// when the major component is +-1 (divided by |major| otherwise). A zero
/// vector gives the centre of +X; NaN components count as 0.
pub(super) fn select(d: [f64; 3]) -> (u32, f64, f64) {
    let [x, y, z] = d.map(|c| if c.is_nan() { 0.0 } else { c });
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if az >= ax && az >= ay && az > 0.0 {
        if z >= 0.0 {
            (4, x, -y, az)
        } else {
            (5, -x, -y, az)
        }
    } else if ay >= ax && ay > 0.0 {
        if y >= 0.0 {
            (2, x, z, ay)
        } else {
            (3, x, -z, ay)
        }
    } else if ax > 0.0 {
        if x >= 0.0 {
            (0, -z, -y, ax)
        } else {
            (1, z, -y, ax)
        }
    } else {
        (0, 0.0, 0.0, 1.0)
    };
    (face, (sc / ma + 1.0) / 2.0, (tc / ma + 1.0) / 2.0)
}

/// Face coordinates (s, t) of direction `d` on `face`, whatever its major
/// axis (for gradients taken on one face across a subspan).
pub(super) fn on_face(face: u32, d: [f64; 3]) -> (f64, f64) {
    let [x, y, z] = d;
    let (sc, tc, ma) = match face {
        0 => (-z, -y, x),
        1 => (z, -y, -x),
        2 => (x, z, y),
        3 => (x, -z, -y),
        4 => (x, -y, z),
        _ => (-x, -y, -z),
    };
    let ma = if ma.abs() > 0.0 { ma.abs() } else { 1.0 };
    ((sc / ma + 1.0) / 2.0, (tc / ma + 1.0) / 2.0)
}

/// The direction of face coordinates (`sc`, `tc`) in [-1, 1] (and beyond,
/// for texels past the face's edge) on `face`, major component +-1.
pub(super) fn direction(face: u32, sc: f64, tc: f64) -> [f64; 3] {
    match face {
        0 => [1.0, -tc, -sc],
        1 => [-1.0, -tc, sc],
        2 => [sc, 1.0, tc],
        3 => [sc, -1.0, -tc],
        4 => [sc, -tc, 1.0],
        _ => [-sc, -tc, -1.0],
    }
}

/// The Cube Face Enables bit of face `q` (bit 5 -X, 4 +X, 3 -Y, 2 +Y, 1
/// -Z, 0 +Z: 003 lines 75788-75803).
pub(super) fn enable_bit(q: u32) -> u32 {
    [4, 5, 2, 3, 0, 1][(q % 6) as usize]
}

/// Texel (`i`, `j`) of an `n` x `n` face that lies past one edge, as the
/// texel of the adjacent face it is (TEXCOORDMODE_CUBE, 003 lines
/// 73549-73555): the texel's centre as a direction, reselected. `None` for
/// a texel past two edges (a cube corner, which has no texel).
pub(super) fn across(face: u32, i: i64, j: i64, n: i64) -> Option<(u32, i64, i64)> {
    let out = |k: i64| !(0..n).contains(&k);
    if n <= 0 || (out(i) && out(j)) {
        return None;
    }
    let centre = |k: i64| 2.0 * (k as f64 + 0.5) / n as f64 - 1.0;
    let (f, s, t) = select(direction(face, centre(i), centre(j)));
    let texel = |c: f64| (libm::floor(c * n as f64) as i64).clamp(0, n - 1);
    Some((f, texel(s), texel(t)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn major_axis_picks_the_face_and_the_table_orients_it() {
        // +X face: s grows with -z, t with -y.
        assert_eq!(select([1.0, 0.0, 0.0]), (0, 0.5, 0.5));
        assert_eq!(select([1.0, -0.5, 0.5]), (0, 0.25, 0.75));
        assert_eq!(select([-1.0, -0.5, 0.5]), (1, 0.75, 0.75));
        assert_eq!(select([0.5, 1.0, -0.5]), (2, 0.75, 0.25));
        assert_eq!(select([0.5, -1.0, -0.5]), (3, 0.75, 0.75));
        assert_eq!(select([0.5, 0.5, 1.0]), (4, 0.75, 0.25));
        assert_eq!(select([0.5, 0.5, -1.0]), (5, 0.25, 0.25));
        // Undivided vectors are divided by the major magnitude.
        assert_eq!(select([0.0, 0.0, -4.0]), (5, 0.5, 0.5));
    }

    #[test]
    fn on_face_agrees_with_select_on_the_selected_face() {
        for d in [[1.0, -0.5, 0.5], [0.25, -1.0, 0.5], [-0.5, 0.5, -1.0]] {
            let (f, s, t) = select(d);
            assert_eq!(on_face(f, d), (s, t));
        }
    }

    #[test]
    fn ties_prefer_z_then_y() {
        assert_eq!(select([1.0, 1.0, 1.0]).0, 4);
        assert_eq!(select([1.0, -1.0, 0.0]).0, 3);
        assert_eq!(select([-1.0, 0.0, -1.0]).0, 5);
        assert_eq!(select([0.0, 0.0, 0.0]), (0, 0.5, 0.5));
        assert_eq!(select([f64::NAN, 0.0, 0.0]), (0, 0.5, 0.5));
    }

    #[test]
    fn direction_inverts_select() {
        for face in 0..6 {
            for (sc, tc) in [(-0.5, 0.25), (0.75, -0.125), (0.0, 0.0)] {
                let (f, s, t) = select(direction(face, sc, tc));
                assert_eq!(f, face);
                assert_eq!((s * 2.0 - 1.0, t * 2.0 - 1.0), (sc, tc));
            }
        }
    }

    #[test]
    fn texels_past_an_edge_come_from_the_neighbour_face() {
        // Left of +Z's column 0 (towards -x) is -X's column n-1 (-X's s
        // grows with +z, so +z = 1 is its right edge); the row keeps its
        // t since both faces' t runs with -y.
        assert_eq!(across(4, -1, 1, 4), Some((1, 3, 1)));
        // Right of +Z (towards +x) is +X's column 0.
        assert_eq!(across(4, 4, 2, 4), Some((0, 0, 2)));
        // Above +Z (towards +y) is +Y's bottom row (t = 1 at z = 1).
        assert_eq!(across(4, 1, -1, 4), Some((2, 1, 3)));
        // Below -Y's last row (towards +z... -Y's t grows with -z, so
        // beyond t = 1 is z < -1): -Z's bottom row, x mirrored.
        assert_eq!(across(3, 0, 4, 4), Some((5, 3, 3)));
        // Corners have no texel.
        assert_eq!(across(4, -1, -1, 4), None);
        assert_eq!(across(4, 4, 4, 4), None);
    }

    #[test]
    fn enables_follow_the_field_bits() {
        assert_eq!(
            (0..6).map(enable_bit).collect::<alloc::vec::Vec<_>>(),
            [4, 5, 2, 3, 0, 1]
        );
    }
}
