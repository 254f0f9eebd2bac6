//! The free page ranges of a graphics address space (the GGTT, a PPGTT):
//! first-fit allocation anywhere, or taking an exact range for a mapping at a
//! fixed address.

use alloc::vec::Vec;

use super::addr::{GfxAddr, PAGE};
use super::error::GttError;

/// Free ranges as (first page, pages), sorted and never adjacent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PageRanges {
    free: Vec<(u64, u64)>,
    /// Pages in the whole space (free or not).
    total: u64,
}

impl PageRanges {
    /// A space of `total` pages whose pages `first..total` are free (page 0 is
    /// never handed out, so that a null graphics address reaches no buffer).
    pub(crate) fn new(first: u64, total: u64) -> Self {
        Self {
            free: alloc::vec![(first, total - first)],
            total,
        }
    }

    pub(crate) fn free_pages(&self) -> u64 {
        self.free.iter().map(|(_, n)| n).sum()
    }

    /// Whether `pages` pages at `first` are all free.
    pub(crate) fn is_free(&self, first: u64, pages: u64) -> bool {
        first
            .checked_add(pages)
            .is_some_and(|end| self.free.iter().any(|&(s, n)| s <= first && end <= s + n))
    }

    /// The first free range of `pages` pages; returns its first page.
    pub(crate) fn allocate(&mut self, pages: u64) -> Result<u64, GttError> {
        self.allocate_aligned(pages, 1)
    }

    /// The first free range of `pages` pages starting at a multiple of
    /// `align` pages (a power of two); returns its first page.
    pub(crate) fn allocate_aligned(&mut self, pages: u64, align: u64) -> Result<u64, GttError> {
        let align = align.max(1);
        let first = self
            .free
            .iter()
            .find_map(|&(s, n)| {
                let at = s.checked_next_multiple_of(align)?;
                (at.checked_add(pages)? <= s + n).then_some(at)
            })
            .ok_or(GttError::OutOfSpace { pages })?;
        self.take(first, pages)?;
        Ok(first)
    }

    /// Takes exactly `pages` pages at `first`: an error when the range is
    /// beyond the space or not entirely free.
    pub(crate) fn take(&mut self, first: u64, pages: u64) -> Result<(), GttError> {
        let gfx = GfxAddr(first.saturating_mul(PAGE));
        if pages == 0 {
            return Err(GttError::BadRegion);
        }
        if first.checked_add(pages).is_none_or(|end| end > self.total) {
            return Err(GttError::OutOfRange {
                gfx,
                pages,
                limit: GfxAddr(self.total * PAGE),
            });
        }
        let i = self
            .free
            .iter()
            .position(|&(s, n)| s <= first && first + pages <= s + n)
            .ok_or(GttError::Occupied { gfx, pages })?;
        let (s, n) = self.free[i];
        // What stays free before and after the taken range.
        let before = (s, first - s);
        let after = (first + pages, s + n - (first + pages));
        self.free.remove(i);
        let mut at = i;
        for part in [before, after] {
            if part.1 > 0 {
                self.free.insert(at, part);
                at += 1;
            }
        }
        Ok(())
    }

    /// Gives a range back, merging it with its free neighbours.
    pub(crate) fn release(&mut self, start: u64, pages: u64) {
        let i = self.free.partition_point(|&(s, _)| s < start);
        self.free.insert(i, (start, pages));
        if i + 1 < self.free.len() && self.free[i].0 + self.free[i].1 == self.free[i + 1].0 {
            self.free[i].1 += self.free[i + 1].1;
            self.free.remove(i + 1);
        }
        if i > 0 && self.free[i - 1].0 + self.free[i - 1].1 == self.free[i].0 {
            self.free[i - 1].1 += self.free[i].1;
            self.free.remove(i);
        }
    }

    /// The free ranges, as (first page, pages).
    pub(crate) fn ranges(&self) -> &[(u64, u64)] {
        &self.free
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocator_reuses_and_merges() {
        let mut r = PageRanges::new(1, 1000);
        let total = r.free_pages();
        let a = r.allocate(4).unwrap();
        let b = r.allocate(2).unwrap();
        assert_eq!((a, b), (1, 5));
        r.release(a, 4);
        assert_eq!(r.allocate(3).unwrap(), 1);
        r.release(1, 3);
        r.release(b, 2);
        assert_eq!(r.free_pages(), total);
        assert_eq!(r.ranges().len(), 1, "freed ranges merge back");
        assert_eq!(
            r.allocate(total + 1),
            Err(GttError::OutOfSpace { pages: total + 1 })
        );
    }

    #[test]
    fn aligned_allocation_skips_to_the_next_multiple() {
        let mut r = PageRanges::new(1, 100);
        // 1..16 is too short once aligned to 16: the range starts at 16.
        assert_eq!(r.allocate_aligned(16, 16), Ok(16));
        assert_eq!(r.allocate_aligned(4, 16), Ok(32));
        // The gaps stay free for smaller allocations.
        assert_eq!(r.ranges(), &[(1, 15), (36, 64)]);
        assert_eq!(r.allocate(15), Ok(1));
        assert_eq!(
            r.allocate_aligned(64, 16),
            Err(GttError::OutOfSpace { pages: 64 })
        );
    }

    #[test]
    fn taking_a_fixed_range_splits_the_free_range_around_it() {
        let mut r = PageRanges::new(1, 100);
        r.take(10, 5).unwrap();
        assert_eq!(r.ranges(), &[(1, 9), (15, 85)]);
        // Next to it and inside it.
        assert_eq!(
            r.take(14, 2),
            Err(GttError::Occupied {
                gfx: GfxAddr(14 * PAGE),
                pages: 2
            })
        );
        assert!(!r.is_free(9, 2));
        assert!(r.is_free(9, 1));
        // A range that starts and ends a free range.
        r.take(1, 9).unwrap();
        r.take(95, 5).unwrap();
        assert_eq!(r.ranges(), &[(15, 80)]);
        // Page 0 and anything past the end.
        assert!(matches!(r.take(0, 1), Err(GttError::Occupied { .. })));
        assert_eq!(
            r.take(99, 2),
            Err(GttError::OutOfRange {
                gfx: GfxAddr(99 * PAGE),
                pages: 2,
                limit: GfxAddr(100 * PAGE)
            })
        );
        assert!(matches!(
            r.take(u64::MAX, 2),
            Err(GttError::OutOfRange { .. })
        ));
        // First-fit allocation skips the taken ranges; giving them back merges.
        assert_eq!(r.allocate(3).unwrap(), 15);
        r.release(15, 3);
        r.release(10, 5);
        r.release(1, 9);
        r.release(95, 5);
        assert_eq!(r.ranges(), &[(1, 99)]);
    }
}
