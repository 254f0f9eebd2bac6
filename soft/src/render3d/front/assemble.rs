//! Primitive assembly: the vertices of one primitive (between cuts and
//! instance ends) become objects in the order the manual hands them on
//! (003 lines 37250-37500, the decompositions of the SF chapter), with
//! the GS and CLIP's pass-through conversions of the adjacency forms
//! (003 lines 36770-36830: "adjacent vertices removed") and of QUADLIST
//! into POLYGON (003 lines 26543-26545). Incomplete objects are dropped
//! ("silently ignored", 003 lines 26440-26600).
//!
//! Each object carries the topology SF sees (after those conversions) and
//! its ordinal within its primitive: for strips, SF derives the winding
//! parity from it (`invertOrientation` flips per triangle, starting
//! true for TRISTRIP_REVERSE, 003 lines 37420-37440).

use alloc::vec::Vec;

use crate::render3d::types::{DrawError, Object, ObjectKind};

/// `_3DPRIM_*` values (003 lines 31101-31175).
pub(crate) mod prim {
    pub const POINTLIST: u8 = 0x01;
    pub const LINELIST: u8 = 0x02;
    pub const LINESTRIP: u8 = 0x03;
    pub const TRILIST: u8 = 0x04;
    pub const TRISTRIP: u8 = 0x05;
    pub const TRIFAN: u8 = 0x06;
    pub const QUADLIST: u8 = 0x07;
    pub const QUADSTRIP: u8 = 0x08;
    pub const LINELIST_ADJ: u8 = 0x09;
    pub const LINESTRIP_ADJ: u8 = 0x0A;
    pub const TRILIST_ADJ: u8 = 0x0B;
    pub const TRISTRIP_ADJ: u8 = 0x0C;
    pub const TRISTRIP_REVERSE: u8 = 0x0D;
    pub const POLYGON: u8 = 0x0E;
    pub const RECTLIST: u8 = 0x0F;
    pub const LINELOOP: u8 = 0x10;
    pub const POINTLIST_BF: u8 = 0x11;
    pub const LINESTRIP_CONT: u8 = 0x12;
    pub const LINESTRIP_BF: u8 = 0x13;
    pub const LINESTRIP_CONT_BF: u8 = 0x14;
    pub const TRIFAN_NOSTIPPLE: u8 = 0x16;
}

use prim::*;

/// Whether a cut index may be enabled with `topology` (003 lines
/// 29975-30025; TRIFAN, QUADLIST, QUADSTRIP, POLYGON, RECTLIST, LINELOOP
/// and TRIFAN_NOSTIPPLE are "N" on SNB).
pub(crate) fn cuts_allowed(topology: u8) -> bool {
    !matches!(
        topology,
        TRIFAN | QUADLIST | QUADSTRIP | POLYGON | RECTLIST | LINELOOP | TRIFAN_NOSTIPPLE
    )
}

/// Appends the objects of one primitive whose vertices (indices into the
/// draw's VUEs) are `v`.
pub(crate) fn objects(topology: u8, v: &[u32], out: &mut Vec<Object>) -> Result<(), DrawError> {
    let n = v.len();
    let mut push = |kind, topology, idx: [usize; 3], ordinal: usize| {
        out.push(Object {
            kind,
            v: [v[idx[0]], v[idx[1]], v[idx[2]]],
            topology,
            ordinal: ordinal as u32,
        });
    };
    use ObjectKind::*;
    match topology {
        POINTLIST | POINTLIST_BF => (0..n).for_each(|i| push(Point, topology, [i, i, i], i)),
        LINELIST => (0..n / 2).for_each(|k| push(Line, topology, [2 * k, 2 * k + 1, 2 * k + 1], k)),
        LINESTRIP | LINESTRIP_BF | LINESTRIP_CONT | LINESTRIP_CONT_BF => {
            (0..n.saturating_sub(1)).for_each(|i| push(Line, topology, [i, i + 1, i + 1], i))
        }
        // (0,1,2,3) per line: the middle two are the line.
        LINELIST_ADJ => {
            (0..n / 4).for_each(|k| push(Line, LINELIST, [4 * k + 1, 4 * k + 2, 4 * k + 2], k))
        }
        // The strip without its first and last vertex.
        LINESTRIP_ADJ => {
            (0..n.saturating_sub(3)).for_each(|i| push(Line, LINESTRIP, [i + 1, i + 2, i + 2], i))
        }
        TRILIST => {
            (0..n / 3).for_each(|k| push(Triangle, topology, [3 * k, 3 * k + 1, 3 * k + 2], k))
        }
        RECTLIST => {
            (0..n / 3).for_each(|k| push(Rectangle, topology, [3 * k, 3 * k + 1, 3 * k + 2], k))
        }
        // (0,1,2,3,4,5) per triangle: the even ones are the triangle.
        TRILIST_ADJ => {
            (0..n / 6).for_each(|k| push(Triangle, TRILIST, [6 * k, 6 * k + 2, 6 * k + 4], k))
        }
        TRISTRIP | TRISTRIP_REVERSE => {
            (0..n.saturating_sub(2)).for_each(|i| push(Triangle, topology, [i, i + 1, i + 2], i))
        }
        // The even vertices form the strip; "N even, N >= 6" (003 lines
        // 34594-34620): an odd last vertex is adjacency only.
        TRISTRIP_ADJ => (0..(n / 2).saturating_sub(2))
            .for_each(|i| push(Triangle, TRISTRIP, [2 * i, 2 * i + 2, 2 * i + 4], i)),
        TRIFAN | TRIFAN_NOSTIPPLE | POLYGON => {
            (1..n.saturating_sub(1)).for_each(|i| push(Triangle, topology, [0, i, i + 1], i - 1))
        }
        // Converted to POLYGON at the top of the pipeline [DevSNB+].
        QUADLIST => (0..n / 4).for_each(|k| {
            push(Triangle, POLYGON, [4 * k, 4 * k + 1, 4 * k + 2], 0);
            push(Triangle, POLYGON, [4 * k, 4 * k + 2, 4 * k + 3], 1);
        }),
        // "QUADLIST, QUADSTRIP, LINELOOP primitives are not supported by the
        // SF unit. Software must use a GS thread to convert these" (003
        // lines 36897-36899): only GS threads take them (`gs::objects`);
        // the draw refuses them without one.
        QUADSTRIP | LINELOOP => {}
        _ => return Err(DrawError::Invalid("reserved primitive topology")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(topology: u8, n: u32) -> Vec<(ObjectKind, [u32; 3], u8, u32)> {
        let v: Vec<u32> = (0..n).map(|k| 100 + k).collect();
        let mut out = Vec::new();
        objects(topology, &v, &mut out).unwrap();
        out.iter()
            .map(|o| (o.kind, o.v, o.topology, o.ordinal))
            .collect()
    }

    #[test]
    fn lists_drop_incomplete_objects() {
        use ObjectKind::*;
        assert_eq!(
            run(TRILIST, 7),
            [
                (Triangle, [100, 101, 102], TRILIST, 0),
                (Triangle, [103, 104, 105], TRILIST, 1)
            ]
        );
        assert_eq!(run(LINELIST, 3), [(Line, [100, 101, 101], LINELIST, 0)]);
        assert_eq!(run(POINTLIST_BF, 2).len(), 2);
        assert_eq!(
            run(RECTLIST, 3),
            [(Rectangle, [100, 101, 102], RECTLIST, 0)]
        );
        assert!(run(TRISTRIP, 2).is_empty());
    }

    #[test]
    fn strips_and_fans_keep_the_manual_order_with_ordinals() {
        use ObjectKind::*;
        assert_eq!(
            run(TRISTRIP_REVERSE, 4),
            [
                (Triangle, [100, 101, 102], TRISTRIP_REVERSE, 0),
                (Triangle, [101, 102, 103], TRISTRIP_REVERSE, 1)
            ]
        );
        assert_eq!(
            run(TRIFAN, 4),
            [
                (Triangle, [100, 101, 102], TRIFAN, 0),
                (Triangle, [100, 102, 103], TRIFAN, 1)
            ]
        );
        assert_eq!(
            run(LINESTRIP_CONT, 3)[1],
            (Line, [101, 102, 102], LINESTRIP_CONT, 1)
        );
    }

    #[test]
    fn adjacency_forms_lose_their_adjacent_vertices() {
        use ObjectKind::*;
        assert_eq!(
            run(TRILIST_ADJ, 6),
            [(Triangle, [100, 102, 104], TRILIST, 0)]
        );
        assert_eq!(
            run(LINELIST_ADJ, 8)[1],
            (Line, [105, 106, 106], LINELIST, 1)
        );
        assert_eq!(
            run(LINESTRIP_ADJ, 5),
            [
                (Line, [101, 102, 102], LINESTRIP, 0),
                (Line, [102, 103, 103], LINESTRIP, 1)
            ]
        );
        assert_eq!(
            run(TRISTRIP_ADJ, 8),
            [
                (Triangle, [100, 102, 104], TRISTRIP, 0),
                (Triangle, [102, 104, 106], TRISTRIP, 1)
            ]
        );
        assert!(run(TRISTRIP_ADJ, 5).is_empty());
        assert_eq!(run(TRISTRIP_ADJ, 7).len(), 1, "N = 6 or 7: one object");
        assert_eq!(run(QUADLIST, 4)[1], (Triangle, [100, 102, 103], POLYGON, 1));
    }

    #[test]
    fn loops_and_quad_strips_make_no_sf_objects() {
        let mut out = Vec::new();
        objects(LINELOOP, &[1, 2], &mut out).unwrap();
        objects(QUADSTRIP, &[1, 2, 3, 4], &mut out).unwrap();
        assert!(out.is_empty());
        assert!(matches!(
            objects(0x15, &[1], &mut out),
            Err(DrawError::Invalid(_))
        ));
    }
}
