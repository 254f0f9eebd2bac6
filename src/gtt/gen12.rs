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

/// A four-level PPGTT (PML4, PDP, PD, PT; VA bits 47:39, 38:30, 29:21,
/// 20:12: i915 gt/gen8_ppgtt.c gen8_pd_index), its tables in system memory.
pub struct Ppgtt4<'a> {
    /// Every table, the PML4 first; each with the physical address it is at.
    tables: Vec<Dma<'a>>,
    /// Index in `tables` of the next level below entry `(table, index)`.
    children: Vec<[u32; ENTRIES as usize]>,
    free: PageRanges,
}

const NONE: u32 = u32::MAX;

impl<'a> Ppgtt4<'a> {
    pub fn new(platform: &'a dyn Platform) -> Result<Self, PlatformError> {
        let pml4 = Dma::new(platform, PAGE as usize, PAGE as usize)?;
        Ok(Self {
            tables: alloc::vec![pml4],
            children: alloc::vec![[NONE; ENTRIES as usize]],
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

    /// The table below `(table, index)`, allocated when missing.
    fn child(
        &mut self,
        platform: &'a dyn Platform,
        table: usize,
        index: u64,
    ) -> Result<usize, PlatformError> {
        let c = self.children[table][index as usize];
        if c != NONE {
            return Ok(c as usize);
        }
        let dma = Dma::new(platform, PAGE as usize, PAGE as usize)?;
        // i915 gen8_pde_encode: address | PRESENT | RW.
        let entry = (dma.phys().0 & ADDRESS) | PRESENT | PPGTT_RW;
        self.tables.push(dma);
        self.children.push([NONE; ENTRIES as usize]);
        let n = self.tables.len() - 1;
        self.children[table][index as usize] = n as u32;
        self.write_entry(table, index, entry);
        Ok(n)
    }

    fn set_pte(
        &mut self,
        platform: &'a dyn Platform,
        va: u64,
        pte: u64,
    ) -> Result<(), PlatformError> {
        let mut t = 0;
        for shift in [39u32, 30, 21] {
            t = self.child(platform, t, (va >> shift) & (ENTRIES - 1))?;
        }
        self.write_entry(t, (va >> 12) & (ENTRIES - 1), pte);
        Ok(())
    }

    /// Maps `pages` pages starting at `backing` at the first free range.
    pub fn map(
        &mut self,
        platform: &'a dyn Platform,
        backing: Backing,
        pages: u64,
    ) -> Result<GfxAddr, GttError> {
        if pages == 0 {
            return Err(GttError::BadRegion);
        }
        let first = self.free.allocate(pages)?;
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
        for k in 0..pages {
            // i915 gen8_pte_encode / gen12_pte_encode: PRESENT | RW, LM for local memory.
            let pte = match backing.page(k) {
                Backing::System(p) => (p.0 & ADDRESS) | PRESENT | PPGTT_RW,
                Backing::Local(o) => (o & ADDRESS) | PPGTT_LOCAL | PRESENT | PPGTT_RW,
            };
            if self.set_pte(platform, (first + k) * PAGE, pte).is_err() {
                self.unmap(GfxAddr(first * PAGE), k);
                self.free.release(first + k, pages - k);
                return Err(GttError::OutOfSpace { pages });
            }
        }
        Ok(GfxAddr(first * PAGE))
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

    /// Clears the entries of a mapping and gives its range back (the tables stay).
    pub fn unmap(&mut self, gfx: GfxAddr, pages: u64) {
        for k in 0..pages {
            let va = gfx.0 + k * PAGE;
            let mut t = 0usize;
            let mut present = true;
            for shift in [39u32, 30, 21] {
                let c = self.children[t][((va >> shift) & (ENTRIES - 1)) as usize];
                if c == NONE {
                    present = false;
                    break;
                }
                t = c as usize;
            }
            if present {
                self.write_entry(t, (va >> 12) & (ENTRIES - 1), 0);
            }
        }
        self.free.release(gfx.0 / PAGE, pages);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::host::HostPlatform;

    /// The walk a GPU does (i915 gen8_pd_index), over physical memory.
    fn walk(p: &HostPlatform, pml4: PhysAddr, va: u64) -> Option<u64> {
        let mut table = pml4.0;
        for shift in [39u32, 30, 21, 12] {
            let at = table + ((va >> shift) & 511) * 8;
            let ptr = p.phys_to_virt(PhysAddr(at))?;
            // SAFETY: a live table page of the platform; 8-byte aligned entry.
            let entry = unsafe { ptr.as_ptr().cast::<u64>().read_volatile() };
            if entry & PRESENT == 0 {
                return None;
            }
            table = entry & ADDRESS;
            if shift == 12 {
                return Some(entry);
            }
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
            let e = walk(&p, pt.pml4(), at.0 + k * PAGE).expect("mapped");
            assert_eq!(e & ADDRESS, 0x20_0000 + k * PAGE);
            assert_eq!(
                e & (PPGTT_LOCAL | PRESENT | PPGTT_RW),
                PPGTT_LOCAL | PRESENT | PPGTT_RW
            );
        }
        let sys = pt
            .map(&p, Backing::System(PhysAddr(0x5000_0000)), 1)
            .unwrap();
        let e = walk(&p, pt.pml4(), sys.0).unwrap();
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
}
