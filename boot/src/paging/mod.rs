//! Identity mappings of any physical range, with a cache type.
//!
//! The trampoline maps the low 4 GiB with 2 MiB pages. [`Mapper`] extends
//! and refines that: it maps a range anywhere below 2^47 (the lower half of
//! the 48-bit virtual space, where virtual = physical is canonical), using
//! 2 MiB pages where the range covers them and 4 KiB pages elsewhere
//! (splitting a 2 MiB page into 512 small ones that keep its attributes),
//! so that marking a BAR uncached or a framebuffer write-combining never
//! changes the RAM beside it. New tables come from a static pool.
//!
//! Entry formats: Intel SDM Vol. 3A, "4-Level Paging" (tables "Format of a
//! PML4 Entry", "...Page-Directory-Pointer-Table Entry (PDPTE) that
//! References a Page Directory", "...Page-Directory Entry that Maps a
//! 2-MByte Page", "...Page-Table Entry that Maps a 4-KByte Page"). The
//! table walk is generic over [`Tables`] so the host tests run it on
//! ordinary memory.

#[cfg(target_os = "none")]
mod live;
#[cfg(target_os = "none")]
pub use live::{init, map};

/// On the host (tests, clippy) there are no live page tables.
#[cfg(not(target_os = "none"))]
pub fn map(_phys: u64, _size: u64, _cache: Cache) -> Result<(), MapError> {
    Err(MapError::OutOfTables)
}

/// A small page.
pub const PAGE: u64 = 4096;
/// A large page (a page-directory entry with PS set).
pub const LARGE_PAGE: u64 = 2 << 20;
/// First address the identity map cannot reach (bit 47 set is not
/// canonical in the lower half).
pub const LIMIT: u64 = 1 << 47;

const PRESENT: u64 = 1 << 0;
const WRITABLE: u64 = 1 << 1;
/// Page-level write-through: PAT index bit 0.
const PWT: u64 = 1 << 3;
/// Page-level cache disable: PAT index bit 1.
const PCD: u64 = 1 << 4;
/// Page size, in a PDPTE or PDE.
const PS: u64 = 1 << 7;
/// PAT index bit 2: bit 12 in a 2 MiB PDE (bit 7 in a 4 KiB PTE). Left 0.
const PAT_LARGE: u64 = 1 << 12;
const PAT_SMALL: u64 = 1 << 7;
/// Address bits 51:12 of a table or 4 KiB page; 51:21 of a 2 MiB page.
const ADDR: u64 = 0x000f_ffff_ffff_f000;
const LARGE_ADDR: u64 = 0x000f_ffff_ffe0_0000;

/// The memory type of a mapping. The PAT is programmed so that PAT index
/// 1 (PWT only) is write-combining; index 0 stays write-back and index 3
/// (PCD | PWT) uncacheable, as at reset (`live::init`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cache {
    WriteBack,
    WriteCombining,
    Uncached,
}

impl Cache {
    /// PWT/PCD bits selecting this type's PAT entry (same bits in 4 KiB
    /// and 2 MiB entries; the PAT bit stays 0).
    pub fn bits(self) -> u64 {
        match self {
            Cache::WriteBack => 0,
            Cache::WriteCombining => PWT,
            Cache::Uncached => PCD | PWT,
        }
    }

    fn from_bits(entry: u64) -> Option<Cache> {
        match entry & (PCD | PWT) {
            0 => Some(Cache::WriteBack),
            PWT => Some(Cache::WriteCombining),
            x if x == PCD | PWT => Some(Cache::Uncached),
            _ => None,
        }
    }
}

/// Why a range could not be mapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapError {
    /// Empty, wrapping, or reaching [`LIMIT`].
    OutOfRange,
    /// The pool of page-table pages is used up.
    OutOfTables,
    /// A 1 GiB page is in the way (this kernel never makes one).
    HugePage,
}

/// Table indices of `addr`: PML4, PDPT, PD, PT (9 bits each from bit 39,
/// 30, 21, 12).
pub fn indices(addr: u64) -> [usize; 4] {
    [39, 30, 21, 12].map(|shift| ((addr >> shift) & 0x1ff) as usize)
}

/// Page-table pages: allocation and access by physical address.
pub trait Tables {
    /// A fresh page for a table (its contents are cleared by the mapper).
    fn alloc(&mut self) -> Option<u64>;
    /// The 512 entries of the table at `phys`.
    fn entries(&mut self, phys: u64) -> &mut [u64; 512];
}

/// Maps ranges identically in the hierarchy rooted at a PML4.
pub struct Mapper<T: Tables> {
    pml4: u64,
    tables: T,
}

impl<T: Tables> Mapper<T> {
    pub const fn new(pml4: u64, tables: T) -> Self {
        Mapper { pml4, tables }
    }

    /// Maps `phys..phys + size` to the same virtual addresses with `cache`,
    /// widened to whole 4 KiB pages. The caller flushes the TLB afterwards.
    pub fn map(&mut self, phys: u64, size: u64, cache: Cache) -> Result<(), MapError> {
        let end = phys.checked_add(size).ok_or(MapError::OutOfRange)?;
        if size == 0 || end > LIMIT {
            return Err(MapError::OutOfRange);
        }
        let mut addr = phys & !(PAGE - 1);
        let end = end.next_multiple_of(PAGE);
        while addr < end {
            if addr.is_multiple_of(LARGE_PAGE) && end - addr >= LARGE_PAGE {
                let pd = self.directory(addr)?;
                let [.., i2, _] = indices(addr);
                // A table that split this 2 MiB before stays allocated, unused.
                self.tables.entries(pd)[i2] = addr | PRESENT | WRITABLE | PS | cache.bits();
                addr += LARGE_PAGE;
            } else {
                let pt = self.page_table(addr)?;
                let [.., i1] = indices(addr);
                self.tables.entries(pt)[i1] = addr | PRESENT | WRITABLE | cache.bits();
                addr += PAGE;
            }
        }
        Ok(())
    }

    /// Where `virt` leads: the physical address and the cache type.
    pub fn translate(&mut self, virt: u64) -> Option<(u64, Option<Cache>)> {
        let [i4, i3, i2, i1] = indices(virt);
        let e4 = self.tables.entries(self.pml4)[i4];
        if e4 & PRESENT == 0 {
            return None;
        }
        let e3 = self.tables.entries(e4 & ADDR)[i3];
        if e3 & PRESENT == 0 || e3 & PS != 0 {
            return None;
        }
        let e2 = self.tables.entries(e3 & ADDR)[i2];
        if e2 & PRESENT == 0 {
            return None;
        }
        if e2 & PS != 0 {
            return Some((
                (e2 & LARGE_ADDR) | (virt & (LARGE_PAGE - 1)),
                Cache::from_bits(e2),
            ));
        }
        let e1 = self.tables.entries(e2 & ADDR)[i1];
        (e1 & PRESENT != 0).then(|| ((e1 & ADDR) | (virt & (PAGE - 1)), Cache::from_bits(e1)))
    }

    /// The table an entry points to, made (empty) when not present.
    fn next(&mut self, table: u64, index: usize) -> Result<u64, MapError> {
        let entry = self.tables.entries(table)[index];
        if entry & PRESENT != 0 {
            return if entry & PS != 0 {
                Err(MapError::HugePage)
            } else {
                Ok(entry & ADDR)
            };
        }
        let new = self.tables.alloc().ok_or(MapError::OutOfTables)?;
        self.tables.entries(new).fill(0);
        self.tables.entries(table)[index] = new | PRESENT | WRITABLE;
        Ok(new)
    }

    /// The page directory covering `addr`.
    fn directory(&mut self, addr: u64) -> Result<u64, MapError> {
        let [i4, i3, ..] = indices(addr);
        let pdpt = self.next(self.pml4, i4)?;
        self.next(pdpt, i3)
    }

    /// The page table covering `addr`, splitting a 2 MiB page there into
    /// 512 small pages with its attributes.
    fn page_table(&mut self, addr: u64) -> Result<u64, MapError> {
        let pd = self.directory(addr)?;
        let [.., i2, _] = indices(addr);
        let entry = self.tables.entries(pd)[i2];
        if entry & PRESENT != 0 && entry & PS != 0 {
            let pt = self.tables.alloc().ok_or(MapError::OutOfTables)?;
            let base = entry & LARGE_ADDR;
            let mut flags = entry & (PRESENT | WRITABLE | PWT | PCD);
            if entry & PAT_LARGE != 0 {
                flags |= PAT_SMALL;
            }
            for (k, e) in self.tables.entries(pt).iter_mut().enumerate() {
                *e = (base + k as u64 * PAGE) | flags;
            }
            self.tables.entries(pd)[i2] = pt | PRESENT | WRITABLE;
            return Ok(pt);
        }
        self.next(pd, i2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::boxed::Box;
    use std::vec::Vec;

    /// Tables in ordinary memory, at made-up physical addresses.
    struct HostTables(Vec<Box<[u64; 512]>>);

    const BASE: u64 = 0x10_0000;

    impl Tables for HostTables {
        fn alloc(&mut self) -> Option<u64> {
            self.0.push(Box::new([0xdead; 512]));
            Some(BASE + (self.0.len() as u64 - 1) * PAGE)
        }
        fn entries(&mut self, phys: u64) -> &mut [u64; 512] {
            &mut self.0[((phys - BASE) / PAGE) as usize]
        }
    }

    /// A mapper whose low 4 GiB are mapped with 2 MiB write-back pages, as
    /// the trampoline leaves them.
    fn boot_like() -> Mapper<HostTables> {
        let mut t = HostTables(Vec::new());
        let pml4 = t.alloc().unwrap();
        t.entries(pml4).fill(0);
        let mut m = Mapper::new(pml4, t);
        m.map(0, 4 << 30, Cache::WriteBack).unwrap();
        m
    }

    #[test]
    fn indices_split_the_address() {
        let addr = (3 << 39) | (5 << 30) | (7 << 21) | (9 << 12) | 0x123;
        assert_eq!(indices(addr), [3, 5, 7, 9]);
        assert_eq!(indices(0xfd00_0000), [0, 3, 488, 0]);
        assert_eq!(indices(LIMIT - 1), [255, 511, 511, 511]);
    }

    #[test]
    fn cache_bits_select_pat_entries() {
        // PAT index = PAT:PCD:PWT; 0 = WB, 1 = WC (as programmed), 3 = UC.
        assert_eq!(Cache::WriteBack.bits(), 0);
        assert_eq!(Cache::WriteCombining.bits(), 1 << 3);
        assert_eq!(Cache::Uncached.bits(), (1 << 4) | (1 << 3));
    }

    #[test]
    fn low_memory_uses_large_pages() {
        let mut m = boot_like();
        // PML4, PDPT and four directories; no page tables.
        assert_eq!(m.tables.0.len(), 6);
        assert_eq!(
            m.translate(0xfd12_3456),
            Some((0xfd12_3456, Some(Cache::WriteBack)))
        );
    }

    #[test]
    fn a_small_range_splits_one_large_page() {
        let mut m = boot_like();
        m.map(0x20_3000, 0x1800, Cache::Uncached).unwrap();
        assert_eq!(m.tables.0.len(), 7, "one page table");
        assert_eq!(
            m.translate(0x20_3010),
            Some((0x20_3010, Some(Cache::Uncached)))
        );
        assert_eq!(
            m.translate(0x20_4ff0),
            Some((0x20_4ff0, Some(Cache::Uncached)))
        );
        // The neighbours keep the large page's type and address.
        assert_eq!(
            m.translate(0x20_2fff),
            Some((0x20_2fff, Some(Cache::WriteBack)))
        );
        assert_eq!(
            m.translate(0x20_5000),
            Some((0x20_5000, Some(Cache::WriteBack)))
        );
        assert_eq!(
            m.translate(0x3f_f000),
            Some((0x3f_f000, Some(Cache::WriteBack)))
        );
    }

    #[test]
    fn high_ranges_get_new_tables() {
        let mut m = boot_like();
        // A 64-bit BAR at 512 GiB + 6 MiB + 4 KiB (a new PML4 slot), 4 MiB long:
        // small pages up to the next 2 MiB boundary, then a large page, then
        // small pages again.
        let base = (512 << 30) + (6 << 20) + 0x1000;
        assert_eq!(m.translate(base), None);
        m.map(base, 4 << 20, Cache::WriteCombining).unwrap();
        for off in [0u64, 0x1f_efff, 0x1f_f000, 0x3f_f000, (4 << 20) - 1] {
            assert_eq!(
                m.translate(base + off),
                Some((base + off, Some(Cache::WriteCombining))),
                "{off:#x}"
            );
        }
        assert_eq!(m.translate(base + (4 << 20) + 0x1000), None);
        // PDPT, PD and two page tables.
        assert_eq!(m.tables.0.len(), 6 + 4);
        // Top of the reachable space.
        m.map(LIMIT - PAGE, PAGE, Cache::Uncached).unwrap();
        assert_eq!(
            m.translate(LIMIT - 1),
            Some((LIMIT - 1, Some(Cache::Uncached)))
        );
    }

    #[test]
    fn unreachable_ranges_are_refused() {
        let mut m = boot_like();
        assert_eq!(
            m.map(LIMIT - PAGE, 2 * PAGE, Cache::Uncached),
            Err(MapError::OutOfRange)
        );
        assert_eq!(
            m.map(u64::MAX - 10, 100, Cache::Uncached),
            Err(MapError::OutOfRange)
        );
        assert_eq!(m.map(0x1000, 0, Cache::Uncached), Err(MapError::OutOfRange));
    }
}
