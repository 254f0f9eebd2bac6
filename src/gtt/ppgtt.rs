//! Per-process GTTs (Gen6/Gen7 two-level PPGTT, SNB 003 lines 6964-7169).
//!
//! The page directory is 512 GGTT entries (it must lie inside the GGTT and
//! is written through the GTT alias); each PDE points to a page table of 1024
//! PTEs in ordinary DMA memory, mapping 4 MiB. 512 PDEs cover 2 GiB.
//! PDEs and PTEs share the GGTT PTE's address layout (31:12, 39:32 in 11:4,
//! bit 0 valid); PPGTT PTEs carry cacheability in 2:1 (01 UC, 10 LLC).

use alloc::vec::Vec;

use baregpu_hal::Mmio;

use super::addr::{GfxAddr, PAGE};
use super::error::GttError;
use super::ggtt::{Caching, Ggtt};
use super::ranges::PageRanges;
use crate::platform::{Dma, DmaRegion, Platform};

/// PDEs in a directory (PP_DCLV validates groups of 16; 32 groups = 512).
pub const PDES: u64 = 512;
/// PTEs per page table.
const PTES: u64 = 1024;

fn entry(phys: u64, valid_and_flags: u32) -> u32 {
    (phys as u32 & 0xffff_f000) | (((phys >> 32) as u32 & 0xff) << 4) | valid_and_flags
}

/// One address space. It owns its page tables: they go back to the platform
/// when it is dropped.
pub struct Ppgtt<'p> {
    /// Where page tables come from.
    platform: &'p dyn Platform,
    /// GGTT entry index of PDE 0 (cacheline aligned).
    pd_entry: u64,
    /// The GGTT range reserved for the directory (to give back).
    pd_reservation: (u64, u64),
    tables: Vec<Option<Dma<'p>>>,
    /// Free page ranges of the address space, like the GGTT's.
    free: PageRanges,
}

impl<'p> Ppgtt<'p> {
    /// Reserves the directory in the GGTT; page tables come on demand, from
    /// `platform`.
    pub fn new(
        platform: &'p dyn Platform,
        ggtt: &mut Ggtt,
        mmio: &dyn Mmio,
    ) -> Result<Self, GttError> {
        // 512 entries on a 16-entry (64-byte cacheline) boundary.
        let (first, pages) = ggtt.reserve(PDES + 16)?;
        let pd_entry = first.next_multiple_of(16);
        let ppgtt = Self {
            platform,
            pd_entry,
            pd_reservation: (first, pages),
            tables: (0..PDES).map(|_| None).collect(),
            free: PageRanges::new(1, PDES * PTES),
        };
        for p in 0..PDES {
            ggtt.write_entry(mmio, pd_entry + p, 0);
        }
        Ok(ppgtt)
    }

    /// The PP_DIR_BASE value: the directory's cacheline offset in the GGTT, in bits 30:16
    /// (003 lines 9508-9567).
    pub fn pp_dir_base(&self) -> u32 {
        ((self.pd_entry * 4 / 64) as u32) << 16
    }

    /// Maps a page-aligned region; returns its address in this space.
    pub fn map(
        &mut self,
        ggtt: &Ggtt,
        mmio: &dyn Mmio,
        region: &DmaRegion,
        caching: Caching,
    ) -> Result<GfxAddr, GttError> {
        let pages = Self::pages_of(region)?;
        let first = self.free.allocate(pages)?;
        self.write_ptes(ggtt, mmio, region, first, caching)
            .inspect_err(|_| self.free.release(first, pages))
    }

    /// Maps a page-aligned region at exactly `gfx` in this space: an error when
    /// `gfx` is not page aligned, or the range is beyond the 2 GiB space or not
    /// entirely free (page 0 never is).
    pub fn map_at(
        &mut self,
        ggtt: &Ggtt,
        mmio: &dyn Mmio,
        region: &DmaRegion,
        gfx: GfxAddr,
        caching: Caching,
    ) -> Result<GfxAddr, GttError> {
        let pages = Self::pages_of(region)?;
        if !gfx.0.is_multiple_of(PAGE) {
            return Err(GttError::Unaligned(gfx));
        }
        let first = gfx.0 / PAGE;
        self.free.take(first, pages)?;
        self.write_ptes(ggtt, mmio, region, first, caching)
            .inspect_err(|_| self.free.release(first, pages))
    }

    fn pages_of(region: &DmaRegion) -> Result<u64, GttError> {
        if region.size == 0 || !region.phys.0.is_multiple_of(PAGE) {
            return Err(GttError::BadRegion);
        }
        Ok((region.size as u64).div_ceil(PAGE))
    }

    /// Writes the PTEs of `region` from page `first` on.
    fn write_ptes(
        &mut self,
        ggtt: &Ggtt,
        mmio: &dyn Mmio,
        region: &DmaRegion,
        first: u64,
        caching: Caching,
    ) -> Result<GfxAddr, GttError> {
        let flags = match caching {
            Caching::Uncached => 0b011,
            Caching::Llc => 0b101,
        };
        for p in 0..(region.size as u64).div_ceil(PAGE) {
            let page = first + p;
            let table = self.table(ggtt, mmio, page / PTES)?;
            let pte = entry(region.phys.0 + p * PAGE, flags);
            // A volatile write (the GPU walks the table); `page % PTES` <
            // 1024 is always inside the 4 KiB table.
            let _ = table.write_u32((page % PTES) as usize, pte);
        }
        Ok(GfxAddr(first * PAGE))
    }

    /// The page table for directory slot `pde`, allocated and hooked into the
    /// directory on first use.
    fn table(&mut self, ggtt: &Ggtt, mmio: &dyn Mmio, pde: u64) -> Result<&Dma<'p>, GttError> {
        let slot = &mut self.tables[pde as usize];
        if slot.is_none() {
            let t = Dma::new(self.platform, 4096, 4096)
                .map_err(|_| GttError::OutOfSpace { pages: 1 })?;
            ggtt.write_entry(mmio, self.pd_entry + pde, entry(t.phys().0, 1));
            *slot = Some(t);
        }
        slot.as_ref().ok_or(GttError::OutOfSpace { pages: 1 })
    }

    /// Gives the directory's GGTT entries back and drops the page tables
    /// (their memory goes back to the platform).
    ///
    /// # Safety
    /// No engine may still use this address space: the GPU would walk page
    /// tables that are freed.
    pub unsafe fn destroy(self, ggtt: &mut Ggtt, mmio: &dyn Mmio) {
        for p in 0..PDES {
            ggtt.write_entry(mmio, self.pd_entry + p, 0);
        }
        ggtt.release_reservation(self.pd_reservation.0, self.pd_reservation.1);
    }
}
