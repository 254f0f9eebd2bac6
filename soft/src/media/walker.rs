//! The hardware walkers: MEDIA_OBJECT_WALKER positions (Gen6+) and
//! GPGPU_WALKER thread groups (Gen7).
//!
//! MEDIA_OBJECT_WALKER (003 lines 46900-47168, fields 50230-50538): a
//! global loop steps over blocks of the global resolution (outer stride,
//! then inner unit, from the global start); at each block a local loop
//! steps over the block (outer stride, then inner unit, from the local
//! start). A position is the sum of the global and local positions. The
//! local block shrinks at the right and bottom edges ("Local Block
//! Boundary Adjustment"). The flowcharts of the manual are lost in the
//! text; the model runs every loop while its position is inside its
//! bounding box and at most Loop Exec Count + 1 times, and does not model
//! the middle loop, dual mode or repel (the fields are read and ignored).
//! A zero step ends its loop after one pass.
//!
//! GPGPU_WALKER [ext: Mesa gen7.xml GPGPU_WALKER; anv/iris dispatch]:
//! thread group IDs from the starting ID to the dimension (exclusive), X
//! fastest, then Y, then Z; each group has (width + 1) x (height + 1) x
//! (depth + 1) threads, X fastest.

/// A 2D position or step.
pub(super) type Xy = (i32, i32);

/// MEDIA_OBJECT_WALKER loop parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct MediaWalkSpec {
    pub block: Xy,
    pub global_res: Xy,
    pub global_start: Xy,
    pub global_outer: Xy,
    pub global_inner: Xy,
    pub local_start: Xy,
    pub local_outer: Xy,
    pub local_inner: Xy,
    pub global_count: u32,
    pub local_count: u32,
}

/// Iterates the positions of a MEDIA_OBJECT_WALKER.
#[derive(Clone, Debug)]
pub(super) struct MediaWalk {
    s: MediaWalkSpec,
    g_outer: Xy,
    g_outer_n: u32,
    g_inner: Option<Xy>,
    /// The current block: its origin and size.
    block: Option<(Xy, Xy)>,
    l_outer: Xy,
    l_outer_n: u32,
    l_inner: Option<Xy>,
    done: bool,
}

fn inside(p: Xy, size: Xy) -> bool {
    p.0 >= 0 && p.1 >= 0 && p.0 < size.0 && p.1 < size.1
}

fn add(a: Xy, b: Xy) -> Xy {
    (a.0.saturating_add(b.0), a.1.saturating_add(b.1))
}

impl MediaWalk {
    pub fn new(s: MediaWalkSpec) -> MediaWalk {
        let empty = s.global_res.0 <= 0 || s.global_res.1 <= 0 || s.block.0 <= 0 || s.block.1 <= 0;
        MediaWalk {
            s,
            g_outer: s.global_start,
            g_outer_n: 0,
            g_inner: None,
            block: None,
            l_outer: (0, 0),
            l_outer_n: 0,
            l_inner: None,
            done: empty,
        }
    }

    /// Advances the global loops to the next block; false at the end.
    fn next_block(&mut self) -> bool {
        loop {
            let inner = match self.g_inner {
                Some(p) => {
                    let n = add(p, self.s.global_inner);
                    if self.s.global_inner == (0, 0) || !inside(n, self.s.global_res) {
                        None
                    } else {
                        Some(n)
                    }
                }
                None => {
                    if !inside(self.g_outer, self.s.global_res)
                        || self.g_outer_n > self.s.global_count
                    {
                        return false;
                    }
                    Some(self.g_outer)
                }
            };
            match inner {
                Some(p) => {
                    self.g_inner = Some(p);
                    let size = (
                        self.s.block.0.min(self.s.global_res.0 - p.0),
                        self.s.block.1.min(self.s.global_res.1 - p.1),
                    );
                    self.block = Some((p, size));
                    // A start outside the shrunk block moves to its corner.
                    self.l_outer = (
                        self.s.local_start.0.clamp(0, size.0 - 1),
                        self.s.local_start.1.clamp(0, size.1 - 1),
                    );
                    self.l_outer_n = 0;
                    self.l_inner = None;
                    return true;
                }
                None => {
                    self.g_inner = None;
                    self.g_outer_n += 1;
                    if self.s.global_outer == (0, 0) {
                        return false;
                    }
                    self.g_outer = add(self.g_outer, self.s.global_outer);
                }
            }
        }
    }
}

impl Iterator for MediaWalk {
    type Item = (u16, u16);

    fn next(&mut self) -> Option<(u16, u16)> {
        while !self.done {
            let Some((origin, size)) = self.block else {
                if !self.next_block() {
                    self.done = true;
                }
                continue;
            };
            let pos = match self.l_inner {
                Some(p) => {
                    let n = add(p, self.s.local_inner);
                    (self.s.local_inner != (0, 0) && inside(n, size)).then_some(n)
                }
                None => (inside(self.l_outer, size) && self.l_outer_n <= self.s.local_count)
                    .then_some(self.l_outer),
            };
            match pos {
                Some(p) => {
                    self.l_inner = Some(p);
                    let at = add(origin, p);
                    return Some((at.0.clamp(0, 0xFFFF) as u16, at.1.clamp(0, 0xFFFF) as u16));
                }
                None if self.l_inner.is_some() => {
                    // The inner loop ended: next outer step.
                    self.l_inner = None;
                    self.l_outer_n += 1;
                    if self.s.local_outer == (0, 0) {
                        self.l_outer = (-1, -1);
                    } else {
                        self.l_outer = add(self.l_outer, self.s.local_outer);
                    }
                }
                None => self.block = None,
            }
        }
        None
    }
}

/// GPGPU_WALKER thread groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct GroupWalk {
    start: [u32; 3],
    end: [u32; 3],
    next: Option<[u32; 3]>,
}

impl GroupWalk {
    /// Groups with IDs `start[i]..end[i]` in each dimension.
    pub fn new(start: [u32; 3], end: [u32; 3]) -> GroupWalk {
        let empty = (0..3).any(|i| start[i] >= end[i]);
        GroupWalk {
            start,
            end,
            next: (!empty).then_some(start),
        }
    }

    /// The next group's ID, without moving on.
    pub fn peek(&self) -> Option<[u32; 3]> {
        self.next
    }

    /// Moves past the current group.
    pub fn advance(&mut self) {
        let Some(mut id) = self.next else { return };
        for i in 0..3 {
            id[i] += 1;
            if id[i] < self.end[i] {
                self.next = Some(id);
                return;
            }
            id[i] = self.start[i];
        }
        self.next = None;
    }
}

/// Thread `t` of a group of `dims` (thread counts per dimension), X
/// fastest.
pub(super) fn thread_coords(t: u32, dims: [u32; 3]) -> [u32; 3] {
    let w = dims[0].max(1);
    let h = dims[1].max(1);
    [t % w, (t / w) % h, t / (w * h)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// The driver's raster walk (src/compute/state/gen6.rs): one block the
    /// size of the grid, rows left to right, top to bottom.
    fn raster(w: i32, h: i32) -> MediaWalkSpec {
        MediaWalkSpec {
            block: (w, h),
            global_res: (w, h),
            global_outer: (w, 0),
            global_inner: (0, h),
            local_outer: (0, 1),
            local_inner: (1, 0),
            global_count: 0x3FF,
            local_count: 0x3FF,
            ..MediaWalkSpec::default()
        }
    }

    #[test]
    fn a_raster_walk_visits_every_position_in_row_order() {
        let got: Vec<(u16, u16)> = MediaWalk::new(raster(4, 3)).collect();
        let want: Vec<(u16, u16)> = (0..3).flat_map(|y| (0..4).map(move |x| (x, y))).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn blocks_shrink_at_the_edges() {
        // 3x3 blocks over a 5x4 image, blocks left to right then down.
        let s = MediaWalkSpec {
            block: (3, 3),
            global_res: (5, 4),
            global_outer: (0, 3),
            global_inner: (3, 0),
            local_outer: (0, 1),
            local_inner: (1, 0),
            global_count: 10,
            local_count: 10,
            ..MediaWalkSpec::default()
        };
        let got: Vec<(u16, u16)> = MediaWalk::new(s).collect();
        assert_eq!(got.len(), 20, "every pixel once: {got:?}");
        let mut sorted = got.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 20);
        // The first block is 3x3 from (0,0); the second 2x3 from (3,0).
        assert_eq!(&got[..3], &[(0, 0), (1, 0), (2, 0)]);
        assert_eq!(&got[9..11], &[(3, 0), (4, 0)]);
    }

    #[test]
    fn loop_counts_and_zero_steps_end_loops() {
        let mut s = raster(4, 4);
        s.local_count = 1;
        // Two rows of the only block.
        assert_eq!(MediaWalk::new(s).count(), 8);
        s.local_inner = (0, 0);
        assert_eq!(MediaWalk::new(s).count(), 2, "one position per row");
        let empty = MediaWalkSpec::default();
        assert_eq!(MediaWalk::new(empty).count(), 0);
    }

    #[test]
    fn groups_walk_x_fastest_from_their_start() {
        let mut g = GroupWalk::new([1, 0, 5], [3, 2, 6]);
        let mut seen = Vec::new();
        while let Some(id) = g.peek() {
            seen.push(id);
            g.advance();
        }
        assert_eq!(seen, [[1, 0, 5], [2, 0, 5], [1, 1, 5], [2, 1, 5]]);
        assert!(GroupWalk::new([0, 0, 0], [4, 0, 1]).peek().is_none());
        assert_eq!(thread_coords(5, [2, 3, 2]), [1, 2, 0]);
        assert_eq!(thread_coords(7, [2, 3, 2]), [1, 0, 1]);
    }
}
