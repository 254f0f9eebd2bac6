//! Gen12.5 (DG2) graphics address spaces: the global GTT of 64-bit entries
//! and a context's four-level PPGTT, each page in system memory or in the
//! GPU's local memory.
//!
//! Entry bits (Linux i915 gt/intel_gtt.h): GEN8_PAGE_PRESENT bit 0,
//! GEN8_PAGE_RW bit 1 in PPGTT entries, the page address in 45:12
//! (GEN12_GGTT_PTE_ADDR_MASK); GEN12_GGTT_PTE_LM bit 1 of a GGTT entry and
//! GEN12_PPGTT_PTE_LM bit 11 of a PPGTT entry put the page in local memory
//! (gen8_ggtt_pte_encode, gen12_pte_encode). The GGTT's entries sit in the
//! register BAR from 8 MiB (gt/intel_ggtt.c gen6_gttadr_offset: "GEN8:
//! GTTMMADR size is 16MB and GTTADR starts at 8MB offset").

use alloc::vec::Vec;

use baregpu_hal::{DeviceIo, Mmio};

use super::error::GttError;
use super::ranges::PageRanges;
use super::{GfxAddr, PAGE};
use crate::platform::{Dma, PhysAddr, Platform, PlatformError};

const PRESENT: u64 = 1 << 0;
const PPGTT_RW: u64 = 1 << 1;
const GGTT_LOCAL: u64 = 1 << 1;
const PPGTT_LOCAL: u64 = 1 << 11;
const ADDRESS: u64 = 0x0000_3fff_ffff_f000;
/// Where the GGTT's entries start in the register BAR.
pub const GGTT_BAR_OFFSET: u32 = 8 << 20;
/// GMCH_CTRL, PCI configuration word 0x50, bits 7:6 GGMS: 2^GGMS MiB of
/// entries (i915 gt/intel_ggtt.c gen8_get_total_gtt_size, BDW_GMCH_GGMS_SHIFT 6).
const GMCH_CTRL: u16 = 0x50;
/// The GGTT pages the driver never hands out: the first MiB (i915 keeps
/// low GGTT space for the firmware's use, and page 0 stays unmapped so a
/// null address reaches nothing).
const GGTT_FIRST_PAGE: u64 = 256;

/// Where a page of memory is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backing {
    /// System memory at a physical address.
    System(PhysAddr),
    /// Device-local memory at an offset from its start.
    Local(u64),
}

impl Backing {
    fn page(self, k: u64) -> Backing {
        match self {
            Backing::System(p) => Backing::System(PhysAddr(p.0 + k * PAGE)),
            Backing::Local(o) => Backing::Local(o + k * PAGE),
        }
    }
}

/// The GGTT of a Gen12.5 GPU: entries written through the BAR, addresses
/// handed out first fit.
pub struct Ggtt64 {
    entries: u64,
    free: PageRanges,
}

impl Ggtt64 {
    /// Reads the GGTT's size from GMCH_CTRL.
    pub fn read(device: &dyn DeviceIo) -> Result<Self, GttError> {
        let raw = u32::from(device.config_read16(GMCH_CTRL));
        let ggms = (raw >> 6) & 3;
        if ggms == 0 {
            return Err(GttError::NoGttSize { raw });
        }
        let entries = (1u64 << (20 + ggms)) / 8;
        Ok(Self {
            entries,
            free: PageRanges::new(GGTT_FIRST_PAGE, entries),
        })
    }

    /// Entries (4 KiB pages) of the GGTT.
    pub fn entries(&self) -> u64 {
        self.entries
    }

    fn write_pte(mmio: &dyn Mmio, page: u64, pte: u64) {
        let at = GGTT_BAR_OFFSET + (page * 8) as u32;
        mmio.write32(at, pte as u32);
        mmio.write32(at + 4, (pte >> 32) as u32);
    }

    fn encode(backing: Backing) -> u64 {
        match backing {
            Backing::System(p) => (p.0 & ADDRESS) | PRESENT,
            Backing::Local(o) => (o & ADDRESS) | GGTT_LOCAL | PRESENT,
        }
    }

    /// Maps `pages` pages of contiguous memory starting at `backing`.
    pub fn map(
        &mut self,
        mmio: &dyn Mmio,
        backing: Backing,
        pages: u64,
    ) -> Result<GfxAddr, GttError> {
        if pages == 0 {
            return Err(GttError::BadRegion);
        }
        let first = self.free.allocate(pages)?;
        for k in 0..pages {
            Self::write_pte(mmio, first + k, Self::encode(backing.page(k)));
        }
        Ok(GfxAddr(first * PAGE))
    }

    /// Invalidates the entries of a mapping and gives its range back.
    pub fn unmap(&mut self, mmio: &dyn Mmio, gfx: GfxAddr, pages: u64) {
        let first = gfx.0 / PAGE;
        for k in 0..pages {
            Self::write_pte(mmio, first + k, 0);
        }
        self.free.release(first, pages);
    }
}

/// Entries per table at every level (i915 gt/gen8_ppgtt.c: 512 8-byte entries).
const ENTRIES: u64 = 512;
/// The 48-bit space but page 0 (never mapped, so that a null address faults).
const PPGTT_FIRST_PAGE: u64 = 1;
const PPGTT_PAGES: u64 = (1 << 48) / PAGE;
const SIZE_64K: u64 = 64 << 10;
const SIZE_2M: u64 = 2 << 20;
/// PDE bit 7, GEN8_PDE_PS_2M: the entry is a 2 MiB page (i915 gt/intel_gtt.h).
const PDE_PS_2M: u64 = 1 << 7;
/// PDE bit 6, GEN12_PDE_64K: the page table below is compact, 32 entries of
/// 64 KiB indexed by VA bits 20:16 (i915 gt/intel_gtt.h;
/// gen8_ppgtt.c xehpsdv_ppgtt_insert_huge; Xe xe_pt.c xe_compact_pt_shifts).
const PDE_64K: u64 = 1 << 6;
/// PTE bit 8, GEN12_PTE_PS64: sixteen 4 KiB entries of one 64 KiB page, a
/// TLB hint (i915 gt/intel_gtt.h; xehpsdv_ppgtt_insert_huge writes all sixteen).
const PTE_PS64: u64 = 1 << 8;
/// Entries of a compact page table.
const COMPACT_ENTRIES: u64 = 32;

/// How a PPGTT address is mapped (i915's I915_GTT_PAGE_SIZE_* as the
/// Xe_HP tables hold them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageSize {
    /// One 4 KiB PTE.
    Size4K,
    /// Sixteen 4 KiB PTEs with GEN12_PTE_PS64.
    Hinted64K,
    /// One entry of a compact page table (GEN12_PDE_64K).
    Compact64K,
    /// A PDE with GEN8_PDE_PS_2M.
    Size2M,
}

/// The alignment (bytes) of memory and graphics address that lets a
/// mapping of `bytes` use the largest page that fits in it (i915 aligns
/// huge objects the same way: i915_gem_object page_sizes, i915_vma_insert).
pub fn huge_alignment(bytes: u64) -> u64 {
    if bytes >= SIZE_2M {
        SIZE_2M
    } else if bytes >= SIZE_64K {
        SIZE_64K
    } else {
        PAGE
    }
}

impl Backing {
    /// The backing `bytes` further on.
    fn at(self, bytes: u64) -> Backing {
        match self {
            Backing::System(p) => Backing::System(PhysAddr(p.0 + bytes)),
            Backing::Local(o) => Backing::Local(o + bytes),
        }
    }

    /// The physical address or local-memory offset.
    fn addr(self) -> u64 {
        match self {
            Backing::System(p) => p.0,
            Backing::Local(o) => o,
        }
    }

    /// A leaf entry for it (i915 gen8_pte_encode / gen12_pte_encode:
    /// PRESENT | RW, GEN12_PPGTT_PTE_LM for local memory).
    fn pte(self) -> u64 {
        match self {
            Backing::System(p) => (p.0 & ADDRESS) | PRESENT | PPGTT_RW,
            Backing::Local(o) => (o & ADDRESS) | PPGTT_LOCAL | PRESENT | PPGTT_RW,
        }
    }
}

/// A four-level PPGTT (PML4, PDP, PD, PT; VA bits 47:39, 38:30, 29:21,
/// 20:12: i915 gt/gen8_ppgtt.c gen8_pd_index), its tables in system memory.
/// Mappings use the largest page their alignment allows, as i915's
/// xehpsdv_ppgtt_insert_huge does: 2 MiB pages where address and memory
/// are 2 MiB aligned; a compact page table of 64 KiB entries where a
/// local-memory mapping fills a whole 2 MiB range; 4 KiB entries with the
/// 64 KiB hint where 64 KiB aligned; 4 KiB entries for the rest.
pub struct Ppgtt4<'a> {
    /// Every table, the PML4 first; each with the physical address it is at.
    tables: Vec<Dma<'a>>,
    /// Index in `tables` of the next level below entry `(table, index)`,
    /// [`NONE`], or [`LEAF_2M`] for a PD entry that is a 2 MiB page.
    children: Vec<[u32; ENTRIES as usize]>,
    /// Whether each table is a compact page table.
    compact: Vec<bool>,
    /// Page tables that emptied and were unhooked, zeroed, for reuse.
    spare: Vec<usize>,
    free: PageRanges,
}

const NONE: u32 = u32::MAX;
const LEAF_2M: u32 = u32::MAX - 1;

impl<'a> Ppgtt4<'a> {
    pub fn new(platform: &'a dyn Platform) -> Result<Self, PlatformError> {
        let pml4 = Dma::new(platform, PAGE as usize, PAGE as usize)?;
        Ok(Self {
            tables: alloc::vec![pml4],
            children: alloc::vec![[NONE; ENTRIES as usize]],
            compact: alloc::vec![false],
            spare: Vec::new(),
            free: PageRanges::new(PPGTT_FIRST_PAGE, PPGTT_PAGES),
        })
    }

    /// The PML4's physical address (the context image's PDP0 value,
    /// i915 intel_lrc.c ASSIGN_CTX_PML4).
    pub fn pml4(&self) -> PhysAddr {
        self.tables[0].phys()
    }

    fn write_entry(&self, table: usize, index: u64, entry: u64) {
        // Every table is one page of 512 entries and `index` is below 512.
        let _ = self.tables[table].write(index as usize * 8, &entry.to_le_bytes());
    }

    fn read_entry(&self, table: usize, index: u64) -> u64 {
        let mut b = [0u8; 8];
        let _ = self.tables[table].read(index as usize * 8, &mut b);
        u64::from_le_bytes(b)
    }

    fn is_empty(&self, table: usize) -> bool {
        (0..ENTRIES).all(|k| self.read_entry(table, k) == 0)
    }

    /// Hooks table `child` below `(table, index)` (i915 gen8_pde_encode:
    /// address | PRESENT | RW; `extra` adds GEN12_PDE_64K).
    fn link(&mut self, table: usize, index: u64, child: usize, extra: u64) {
        let entry = (self.tables[child].phys().0 & ADDRESS) | PRESENT | PPGTT_RW | extra;
        self.children[table][index as usize] = child as u32;
        self.write_entry(table, index, entry);
    }

    /// A zeroed table, reused or new.
    fn new_table(&mut self, platform: &'a dyn Platform) -> Result<usize, PlatformError> {
        if let Some(t) = self.spare.pop() {
            return Ok(t);
        }
        let dma = Dma::new(platform, PAGE as usize, PAGE as usize)?;
        self.tables.push(dma);
        self.children.push([NONE; ENTRIES as usize]);
        self.compact.push(false);
        Ok(self.tables.len() - 1)
    }

    /// The PD that maps `va`, with the levels above allocated when missing.
    fn pd(&mut self, platform: &'a dyn Platform, va: u64) -> Result<usize, PlatformError> {
        let mut t = 0;
        for shift in [39u32, 30] {
            let index = (va >> shift) & (ENTRIES - 1);
            t = match self.children[t][index as usize] {
                NONE | LEAF_2M => {
                    let c = self.new_table(platform)?;
                    self.link(t, index, c, 0);
                    c
                }
                c => c as usize,
            };
        }
        Ok(t)
    }

    /// The PD that maps `va`, if the levels above exist.
    fn find_pd(&self, va: u64) -> Option<usize> {
        let mut t = 0usize;
        for shift in [39u32, 30] {
            match self.children[t][((va >> shift) & (ENTRIES - 1)) as usize] {
                NONE | LEAF_2M => return None,
                c => t = c as usize,
            }
        }
        Some(t)
    }

    /// Frees PD entry `slot` for a 2 MiB page or a compact table: a page
    /// table there that maps nothing any more goes to the spare list.
    fn vacate(&mut self, pd: usize, slot: u64) -> bool {
        match self.children[pd][slot as usize] {
            NONE => true,
            LEAF_2M => false,
            t if self.is_empty(t as usize) => {
                self.children[pd][slot as usize] = NONE;
                self.write_entry(pd, slot, 0);
                self.compact[t as usize] = false;
                self.spare.push(t as usize);
                true
            }
            _ => false,
        }
    }

    /// Maps what starts at `va` (`left` bytes to go, at `backing`) with the
    /// largest page that fits; returns the bytes mapped.
    fn map_next(
        &mut self,
        platform: &'a dyn Platform,
        backing: Backing,
        va: u64,
        left: u64,
    ) -> Result<u64, GttError> {
        let out = |_| GttError::OutOfSpace { pages: left / PAGE };
        let addr = backing.addr();
        let pd = self.pd(platform, va).map_err(out)?;
        let slot = (va >> 21) & (ENTRIES - 1);
        let whole_2m = va.is_multiple_of(SIZE_2M) && left >= SIZE_2M;
        if whole_2m && addr.is_multiple_of(SIZE_2M) && self.vacate(pd, slot) {
            self.write_entry(pd, slot, backing.pte() | PDE_PS_2M);
            self.children[pd][slot as usize] = LEAF_2M;
            return Ok(SIZE_2M);
        }
        // i915 uses the compact layout for local memory only ("If this is
        // system memory we only bother with PS64").
        let local = matches!(backing, Backing::Local(_));
        if whole_2m && local && addr.is_multiple_of(SIZE_64K) && self.vacate(pd, slot) {
            let t = self.new_table(platform).map_err(out)?;
            self.compact[t] = true;
            self.link(pd, slot, t, PDE_64K);
            for k in 0..COMPACT_ENTRIES {
                self.write_entry(t, k, backing.at(k * SIZE_64K).pte());
            }
            return Ok(SIZE_2M);
        }
        let t = match self.children[pd][slot as usize] {
            NONE => {
                let t = self.new_table(platform).map_err(out)?;
                self.link(pd, slot, t, 0);
                t
            }
            // A 2 MiB page or a compact table there maps the whole range:
            // `va` would not have been free.
            LEAF_2M => {
                return Err(GttError::Occupied {
                    gfx: GfxAddr(va),
                    pages: 1,
                });
            }
            t => t as usize,
        };
        if self.compact[t] {
            if !self.vacate(pd, slot) {
                return Err(GttError::Occupied {
                    gfx: GfxAddr(va),
                    pages: 1,
                });
            }
            return self.map_next(platform, backing, va, left);
        }
        let index = (va >> 12) & (ENTRIES - 1);
        if va.is_multiple_of(SIZE_64K) && addr.is_multiple_of(SIZE_64K) && left >= SIZE_64K {
            for k in 0..SIZE_64K / PAGE {
                self.write_entry(t, index + k, backing.at(k * PAGE).pte() | PTE_PS64);
            }
            return Ok(SIZE_64K);
        }
        self.write_entry(t, index, backing.pte());
        Ok(PAGE)
    }

    /// Maps `pages` pages starting at `backing` at the first free range,
    /// aligned for the largest page that fits ([`huge_alignment`]).
    pub fn map(
        &mut self,
        platform: &'a dyn Platform,
        backing: Backing,
        pages: u64,
    ) -> Result<GfxAddr, GttError> {
        if pages == 0 {
            return Err(GttError::BadRegion);
        }
        let align = huge_alignment(pages * PAGE) / PAGE;
        let first = self.free.allocate_aligned(pages, align)?;
        self.free.release(first, pages);
        self.map_pages(platform, backing, first, pages)
    }

    /// Takes pages `first..first + pages` and points them at `backing`.
    fn map_pages(
        &mut self,
        platform: &'a dyn Platform,
        backing: Backing,
        first: u64,
        pages: u64,
    ) -> Result<GfxAddr, GttError> {
        self.free.take(first, pages)?;
        let (start, end) = (first * PAGE, (first + pages) * PAGE);
        let mut va = start;
        while va < end {
            match self.map_next(platform, backing.at(va - start), va, end - va) {
                Ok(step) => va += step,
                Err(e) => {
                    self.clear(start, va);
                    self.free.release(first, pages);
                    return Err(e);
                }
            }
        }
        Ok(GfxAddr(start))
    }

    /// Maps `pages` pages starting at `backing` at exactly `gfx`: an error
    /// when unaligned, in use (page 0 always is) or beyond the 48-bit space.
    pub fn map_at(
        &mut self,
        platform: &'a dyn Platform,
        backing: Backing,
        gfx: GfxAddr,
        pages: u64,
    ) -> Result<GfxAddr, GttError> {
        if pages == 0 {
            return Err(GttError::BadRegion);
        }
        if !gfx.0.is_multiple_of(PAGE) {
            return Err(GttError::Unaligned(gfx));
        }
        let first = gfx.0 / PAGE;
        self.map_pages(platform, backing, first, pages)
    }

    /// Clears the entries that map `start..end`: a 2 MiB page or a 64 KiB
    /// entry goes whole (a mapping always owns them whole).
    fn clear(&mut self, start: u64, end: u64) {
        let mut va = start;
        while va < end {
            let next_2m = (va | (SIZE_2M - 1)) + 1;
            let Some(pd) = self.find_pd(va) else {
                va = next_2m;
                continue;
            };
            let slot = (va >> 21) & (ENTRIES - 1);
            match self.children[pd][slot as usize] {
                NONE => va = next_2m,
                LEAF_2M => {
                    self.write_entry(pd, slot, 0);
                    self.children[pd][slot as usize] = NONE;
                    va = next_2m;
                }
                t if self.compact[t as usize] => {
                    self.write_entry(t as usize, (va >> 16) & (COMPACT_ENTRIES - 1), 0);
                    va = (va | (SIZE_64K - 1)) + 1;
                }
                t => {
                    self.write_entry(t as usize, (va >> 12) & (ENTRIES - 1), 0);
                    va += PAGE;
                }
            }
        }
    }

    /// Clears the entries of a mapping and gives its range back (the tables
    /// stay; emptied ones are reused when a larger page needs their place).
    pub fn unmap(&mut self, gfx: GfxAddr, pages: u64) {
        self.clear(gfx.0, gfx.0 + pages * PAGE);
        self.free.release(gfx.0 / PAGE, pages);
    }

    /// How `gfx` is mapped (`None`: not mapped), from the tables as the GPU reads them.
    pub fn page_size(&self, gfx: GfxAddr) -> Option<PageSize> {
        let va = gfx.0;
        let pd = self.find_pd(va)?;
        let slot = (va >> 21) & (ENTRIES - 1);
        let present = |e: u64| e & PRESENT != 0;
        match self.children[pd][slot as usize] {
            NONE => None,
            LEAF_2M => present(self.read_entry(pd, slot)).then_some(PageSize::Size2M),
            t if self.compact[t as usize] => {
                let e = self.read_entry(t as usize, (va >> 16) & (COMPACT_ENTRIES - 1));
                present(e).then_some(PageSize::Compact64K)
            }
            t => {
                let e = self.read_entry(t as usize, (va >> 12) & (ENTRIES - 1));
                present(e).then_some(if e & PTE_PS64 != 0 {
                    PageSize::Hinted64K
                } else {
                    PageSize::Size4K
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::host::HostPlatform;

    /// The walk a GPU does (i915 gen8_pd_index), over physical memory:
    /// the leaf entry and the address it gives `va`, with 2 MiB pages
    /// (GEN8_PDE_PS_2M) and compact 64 KiB tables (GEN12_PDE_64K).
    fn walk(p: &HostPlatform, pml4: PhysAddr, va: u64) -> Option<(u64, u64)> {
        let mut table = pml4.0;
        let mut compact = false;
        for shift in [39u32, 30, 21, 12] {
            let index = if shift == 12 && compact {
                (va >> 16) & 31
            } else {
                (va >> shift) & 511
            };
            let ptr = p.phys_to_virt(PhysAddr(table + index * 8))?;
            // SAFETY: a live table page of the platform; 8-byte aligned entry.
            let entry = unsafe { ptr.as_ptr().cast::<u64>().read_volatile() };
            if entry & PRESENT == 0 {
                return None;
            }
            let size = match shift {
                21 if entry & PDE_PS_2M != 0 => SIZE_2M,
                12 if compact => SIZE_64K,
                12 => PAGE,
                _ => 0,
            };
            if size != 0 {
                return Some((entry, (entry & ADDRESS & !(size - 1)) | (va & (size - 1))));
            }
            compact = shift == 21 && entry & PDE_64K != 0;
            table = entry & ADDRESS;
        }
        None
    }

    #[test]
    fn four_level_entries_cross_table_boundaries_and_carry_the_local_bit() {
        let p = HostPlatform::new();
        let mut pt = Ppgtt4::new(&p).unwrap();
        // Three pages across a PML4 entry's boundary (2^39).
        let at = GfxAddr((1 << 39) - PAGE);
        let got = pt.map_at(&p, Backing::Local(0x20_0000), at, 3).unwrap();
        assert_eq!(got, at);
        for k in 0..3 {
            let (e, _) = walk(&p, pt.pml4(), at.0 + k * PAGE).expect("mapped");
            assert_eq!(e & ADDRESS, 0x20_0000 + k * PAGE);
            assert_eq!(
                e & (PPGTT_LOCAL | PRESENT | PPGTT_RW),
                PPGTT_LOCAL | PRESENT | PPGTT_RW
            );
        }
        let sys = pt
            .map(&p, Backing::System(PhysAddr(0x5000_0000)), 1)
            .unwrap();
        let (e, _) = walk(&p, pt.pml4(), sys.0).unwrap();
        assert_eq!(e & (ADDRESS | PPGTT_LOCAL), 0x5000_0000);
        // Taken ranges and page 0 are refused; unmapping clears the entries.
        assert!(matches!(
            pt.map_at(&p, Backing::Local(0), at, 1),
            Err(GttError::Occupied { .. })
        ));
        assert!(pt.map_at(&p, Backing::Local(0), GfxAddr(0), 1).is_err());
        assert!(matches!(
            pt.map_at(&p, Backing::Local(0), GfxAddr(0x1800), 1),
            Err(GttError::Unaligned(_))
        ));
        pt.unmap(at, 3);
        assert_eq!(walk(&p, pt.pml4(), at.0), None);
        assert!(pt.map_at(&p, Backing::Local(0), at, 3).is_ok());
    }

    /// Every page of a mapping reaches the memory behind it, at the size
    /// expected for its place; unmapping clears every entry.
    fn check(p: &HostPlatform, pt: &Ppgtt4, gfx: u64, backing: Backing, pages: u64) {
        for k in 0..pages {
            let va = gfx + k * PAGE + 0x18;
            let (e, addr) = walk(p, pt.pml4(), va).expect("mapped");
            assert_eq!(addr, backing.addr() + k * PAGE + 0x18, "page {k}");
            let local = matches!(backing, Backing::Local(_));
            assert_eq!(e & PPGTT_LOCAL != 0, local, "page {k}: the LM bit");
        }
    }

    fn sizes(pt: &Ppgtt4, gfx: u64, pages: u64) -> Vec<(PageSize, u64)> {
        // Runs of one page size, in pages.
        let mut out: Vec<(PageSize, u64)> = Vec::new();
        for k in 0..pages {
            let s = pt.page_size(GfxAddr(gfx + k * PAGE)).expect("mapped");
            match out.last_mut() {
                Some((last, n)) if *last == s => *n += 1,
                _ => out.push((s, 1)),
            }
        }
        out
    }

    #[test]
    fn large_aligned_mappings_use_the_largest_page_that_fits() {
        use PageSize::*;
        let p = HostPlatform::new();
        let mut pt = Ppgtt4::new(&p).unwrap();
        let mb2 = SIZE_2M / PAGE;
        // System memory, 2 MiB aligned, 2 MiB + 3 x 64 KiB + 5 pages: a 2 MiB
        // page, hinted 64 KiB runs, then 4 KiB pages.
        let sys = Backing::System(PhysAddr(0x4000_0000));
        let pages = mb2 + 3 * 16 + 5;
        let gfx = pt.map(&p, sys, pages).unwrap();
        assert!(
            gfx.0.is_multiple_of(SIZE_2M),
            "aligned for its largest page"
        );
        assert_eq!(
            sizes(&pt, gfx.0, pages),
            [(Size2M, mb2), (Hinted64K, 48), (Size4K, 5)]
        );
        check(&p, &pt, gfx.0, sys, pages);
        // Local memory only 64 KiB aligned over 4 MiB: compact tables.
        let local = Backing::Local(0x1_0000);
        let gfx2 = pt.map(&p, local, 2 * mb2).unwrap();
        assert_eq!(sizes(&pt, gfx2.0, 2 * mb2), [(Compact64K, 2 * mb2)]);
        check(&p, &pt, gfx2.0, local, 2 * mb2);
        // The same 64 KiB-aligned memory in system memory: i915 keeps the
        // compact layout for local memory, the hint for the rest.
        let sys64 = Backing::System(PhysAddr(0x8001_0000));
        let gfx3 = pt.map(&p, sys64, mb2).unwrap();
        assert_eq!(sizes(&pt, gfx3.0, mb2), [(Hinted64K, mb2)]);
        check(&p, &pt, gfx3.0, sys64, mb2);
        // Unaligned heads and tails: at 2 MiB + 12 KiB with memory at the
        // same offset, 4 KiB up to the 64 KiB boundary, hinted 64 KiB up to
        // 4 MiB, a 2 MiB page, then a 4 KiB tail.
        let at = GfxAddr(0x40_0000_0000 + SIZE_2M + 3 * PAGE);
        let mem = Backing::Local(0x100_0000 + SIZE_2M + 3 * PAGE);
        let n = 13 + (mb2 - 16) + mb2 + 1;
        pt.map_at(&p, mem, at, n).unwrap();
        assert_eq!(
            sizes(&pt, at.0, n),
            [
                (Size4K, 13),
                (Hinted64K, mb2 - 16),
                (Size2M, mb2),
                (Size4K, 1)
            ]
        );
        check(&p, &pt, at.0, mem, n);
        // Memory not congruent with the address (4 KiB off): 4 KiB pages only.
        let odd = Backing::System(PhysAddr(0xc000_1000));
        let at2 = GfxAddr(0x50_0000_0000);
        pt.map_at(&p, odd, at2, mb2).unwrap();
        assert_eq!(sizes(&pt, at2.0, mb2), [(Size4K, mb2)]);
        check(&p, &pt, at2.0, odd, mb2);
        // Unmapping clears every size; the emptied places take other sizes.
        for (g, n) in [
            (gfx, pages),
            (gfx2, 2 * mb2),
            (gfx3, mb2),
            (at, n),
            (at2, mb2),
        ] {
            pt.unmap(g, n);
            assert!((0..n).all(|k| walk(&p, pt.pml4(), g.0 + k * PAGE).is_none()));
        }
        // 4 KiB pages where the compact tables were, then a 2 MiB page where
        // the 4 KiB table of `at2` was.
        pt.map_at(&p, sys, gfx2, 1).unwrap();
        assert_eq!(pt.page_size(gfx2), Some(Size4K));
        check(&p, &pt, gfx2.0, sys, 1);
        pt.map_at(&p, sys, at2, mb2).unwrap();
        assert_eq!(sizes(&pt, at2.0, mb2), [(Size2M, mb2)]);
        check(&p, &pt, at2.0, sys, mb2);
    }
}
