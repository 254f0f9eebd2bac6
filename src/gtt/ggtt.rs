//! The global GTT: an allocator of graphics address space, and PTE writes
//! through the GTT's MMIO alias.
//!
//! One PTE encoder per PTE format: Gen4/G45 (memory type in bits 2:1,
//! address bits 35:32 in 7:4), Gen6 (cacheability in bits 2:1) and Gen7
//! (LLC bit 2, L3 bit 1), all packed with the hal's `GTT_PTE` structures.

use baregpu_hal::DeviceIo;
use baregpu_hal::device::{self, PteFormat, SizeSource};
use baregpu_hal::{Generation, Mmio, Packet, gen4, gen6, gen7};

use super::addr::{GfxAddr, PAGE};
use super::error::GttError;
use super::ranges::PageRanges;
use crate::platform::DmaRegion;

/// How the GPU caches a mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caching {
    /// Ring buffers, scanout.
    Uncached,
    /// Everything else.
    Llc,
}

/// A mapping made by [`Ggtt::map`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub gfx: GfxAddr,
    pub pages: u64,
}

/// Where a generation's GGTT entries are and how many there are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GgttLayout {
    /// Offset of the PTE alias in the register BAR.
    pub alias_offset: u32,
    pub entries: u32,
    /// Register written after PTE updates to flush the GTT write buffers.
    pub flush_register: u32,
}

impl GgttLayout {
    /// The GTT of the GPU behind `device`: the alias and flush register of the
    /// generation's device description, and the size the GPU reports in the size field
    /// the description names (`[gtt] size`: PGTBL_CTL on Gen4/G45, SNB_GMCH_CTRL in
    /// configuration space on Gen6/Gen7), bounded by the alias's room in the BAR.
    pub fn read(generation: Generation, device: &dyn DeviceIo) -> Result<GgttLayout, GttError> {
        let gtt = device::of(generation)
            .ok_or(GttError::Unsupported(generation))?
            .gtt;
        let raw = match gtt.size.source {
            SizeSource::Mmio(at) => device.read32(at),
            SizeSource::PciConfig(at) => u32::from(device.config_read16(at)),
        };
        let entries = gtt.size.entries(raw).ok_or(GttError::NoGttSize { raw })?;
        // The 965's 1 MiB BAR holds 512 KiB of PTEs; a larger size could not be written.
        let room = (gtt.bar_size - gtt.alias_offset) / 4;
        Ok(GgttLayout {
            alias_offset: gtt.alias_offset,
            entries: entries.min(room),
            flush_register: gtt.flush_register,
        })
    }

    /// From the generation's device description alone (`hal/tables/<gen>/device.toml`,
    /// `[gtt]`): the size the software GPU reports, the smallest of the generation's parts.
    pub fn of(generation: Generation) -> Option<GgttLayout> {
        let gtt = baregpu_hal::device::of(generation)?.gtt;
        Some(GgttLayout {
            alias_offset: gtt.alias_offset,
            entries: gtt.entries,
            flush_register: gtt.flush_register,
        })
    }
}

/// Encodes one valid PTE for the physical page `phys`, in the PTE format the
/// generation's device description names.
pub fn encode_pte(generation: Generation, phys: u64, caching: Caching) -> Result<u32, GttError> {
    let format = device::of(generation)
        .ok_or(GttError::Unsupported(generation))?
        .gtt
        .pte;
    let mut out = [0u32];
    let page = phys & 0xffff_f000;
    let ext = ((phys >> 32) & 0xff) as u32;
    let packed = match format {
        // Gen4/G45: 36-bit physical addresses; there is no LLC, so cached memory is
        // mapped snooped (memory type 3, Linux I830_PTE_SYSTEM_CACHED).
        PteFormat::Gen4 => {
            if phys >> 36 != 0 {
                return Err(GttError::BadRegion);
            }
            gen4::structs::GttPte {
                physical_page_address: page,
                physical_page_address_extension: ext,
                memory_type: match caching {
                    Caching::Uncached => gen4::structs::GttPte::MEMORY_TYPE_UNCACHED_MAIN_MEMORY,
                    Caching::Llc => gen4::structs::GttPte::MEMORY_TYPE_CACHED_SNOOPED,
                },
                valid: true,
            }
            .pack(&mut out)
        }
        PteFormat::Gen6 => gen6::structs::GttPte {
            physical_page_address: page,
            physical_start_address_extension: ext,
            graphics_data_type: false,
            cacheability_control: match caching {
                Caching::Uncached => gen6::structs::GttPte::CACHEABILITY_CONTROL_UNCACHEABLE,
                Caching::Llc => gen6::structs::GttPte::CACHEABILITY_CONTROL_LLC_ONLY,
            },
            valid: true,
        }
        .pack(&mut out),
        PteFormat::Gen7 => gen7::structs::GttPte {
            physical_page_address: page,
            physical_start_address_extension: ext,
            graphics_data_type: false,
            llc_cacheability_control: caching == Caching::Llc,
            l3_cacheability_control: false,
            valid: true,
        }
        .pack(&mut out),
    };
    packed.map_err(|_| GttError::BadRegion)?;
    Ok(out[0])
}

/// The physical page a valid PTE of the generation's format points at
/// (`None` for an invalid entry): the inverse of [`encode_pte`].
pub fn decode_pte(generation: Generation, pte: u32) -> Option<u64> {
    let format = device::of(generation)?.gtt.pte;
    let (page, ext, valid) = match format {
        PteFormat::Gen4 => {
            let p = gen4::structs::GttPte::unpack(&[pte]).ok()?;
            (
                p.physical_page_address,
                p.physical_page_address_extension,
                p.valid,
            )
        }
        PteFormat::Gen6 => {
            let p = gen6::structs::GttPte::unpack(&[pte]).ok()?;
            (
                p.physical_page_address,
                p.physical_start_address_extension,
                p.valid,
            )
        }
        PteFormat::Gen7 => {
            let p = gen7::structs::GttPte::unpack(&[pte]).ok()?;
            (
                p.physical_page_address,
                p.physical_start_address_extension,
                p.valid,
            )
        }
    };
    valid.then_some((page & 0xffff_f000) | (u64::from(ext) << 32))
}

/// The GGTT manager: first-fit allocation over free page ranges.
pub struct Ggtt {
    generation: Generation,
    layout: GgttLayout,
    free: PageRanges,
    /// The PTE behind every unused entry (0 until [`Ggtt::take_over`] sets a
    /// scratch page).
    unused_pte: u32,
    /// Stolen memory (physical start, bytes), which no mapping may use.
    stolen: Option<(u64, u64)>,
}

impl Ggtt {
    /// A manager for `generation` with a GGTT of the description's size
    /// ([`GgttLayout::of`]), never handing out page 0, so that a null graphics
    /// address reaches no buffer.
    pub fn new(generation: Generation) -> Result<Self, GttError> {
        let layout = GgttLayout::of(generation).ok_or(GttError::Unsupported(generation))?;
        Ok(Self::with_layout(generation, layout))
    }

    /// A GGTT of `layout` (from [`GgttLayout::read`]).
    pub fn with_layout(generation: Generation, layout: GgttLayout) -> Self {
        Self {
            generation,
            layout,
            free: PageRanges::new(1, layout.entries as u64),
            unused_pte: 0,
            stolen: None,
        }
    }

    /// Takes the GGTT over from the firmware, as Linux i915 does at load: the
    /// entries that point into stolen memory (`stolen`: physical start and
    /// bytes) are the firmware's (its console framebuffer, i915
    /// `intel_alloc_initial_plane_obj` keeps the plane's), so they stay as they
    /// are and are never handed out; every other entry, page 0 included, is
    /// pointed at `scratch`, a page the GPU may read and write harmlessly (i915
    /// `init_ggtt` clears every hole with `ggtt->vm.clear_range`, whose PTE is the
    /// scratch page's). Returns the firmware's ranges, and makes [`Ggtt::unmap`]
    /// point freed entries at the scratch page too.
    ///
    /// Reads every entry once: an uncached MMIO read each, so on the silicon this
    /// takes a few hundred milliseconds for the 512 Ki entries of a 2 GiB GGTT.
    pub fn take_over(
        &mut self,
        mmio: &dyn Mmio,
        stolen: Option<(u64, u64)>,
        scratch: &DmaRegion,
    ) -> Result<alloc::vec::Vec<Mapping>, GttError> {
        let scratch_pte = encode_pte(self.generation, scratch.phys.0, Caching::Uncached)?;
        let in_stolen =
            |phys: u64| stolen.is_some_and(|(base, bytes)| phys >= base && phys - base < bytes);
        let mut firmware: alloc::vec::Vec<Mapping> = alloc::vec::Vec::new();
        for index in 0..self.layout.entries as u64 {
            let at = self.layout.alias_offset + (index * 4) as u32;
            let pte = mmio.read32(at);
            if decode_pte(self.generation, pte).is_some_and(in_stolen) {
                match firmware.last_mut() {
                    Some(m) if m.gfx.0 / PAGE + m.pages == index => m.pages += 1,
                    _ => firmware.push(Mapping {
                        gfx: GfxAddr(index * PAGE),
                        pages: 1,
                    }),
                }
            } else if pte != scratch_pte {
                mmio.write32(at, scratch_pte);
            }
        }
        let _ = mmio.read32(self.layout.alias_offset);
        mmio.write32(self.layout.flush_register, 1);
        for m in &firmware {
            // Page 0 is never in the free ranges; the rest of a range is taken.
            let (first, pages) = if m.gfx.0 == 0 {
                (1, m.pages - 1)
            } else {
                (m.gfx.0 / PAGE, m.pages)
            };
            if pages > 0 {
                self.free.take(first, pages)?;
            }
        }
        self.unused_pte = scratch_pte;
        self.stolen = stolen;
        Ok(firmware)
    }

    pub fn layout(&self) -> GgttLayout {
        self.layout
    }

    /// Free pages left.
    pub fn free_pages(&self) -> u64 {
        self.free.free_pages()
    }

    /// Whether the `bytes` (rounded up to pages) at `gfx` are all unused.
    pub fn is_free(&self, gfx: GfxAddr, bytes: u64) -> bool {
        gfx.0.is_multiple_of(PAGE) && self.free.is_free(gfx.0 / PAGE, bytes.div_ceil(PAGE))
    }

    /// Maps a page-aligned DMA region; returns its graphics address.
    pub fn map(
        &mut self,
        mmio: &dyn Mmio,
        region: &DmaRegion,
        caching: Caching,
    ) -> Result<Mapping, GttError> {
        let pages = Self::pages_of(region)?;
        let first = self.free.allocate(pages)?;
        self.write_ptes(mmio, region, first, pages, caching)
            .inspect_err(|_| self.free.release(first, pages))
    }

    /// Maps a page-aligned DMA region at exactly `gfx`: an error when `gfx` is
    /// not page aligned, or the range is beyond the GGTT or not entirely free.
    pub fn map_at(
        &mut self,
        mmio: &dyn Mmio,
        region: &DmaRegion,
        gfx: GfxAddr,
        caching: Caching,
    ) -> Result<Mapping, GttError> {
        let pages = Self::pages_of(region)?;
        if !gfx.0.is_multiple_of(PAGE) {
            return Err(GttError::Unaligned(gfx));
        }
        let first = gfx.0 / PAGE;
        self.free.take(first, pages)?;
        self.write_ptes(mmio, region, first, pages, caching)
            .inspect_err(|_| self.free.release(first, pages))
    }

    fn pages_of(region: &DmaRegion) -> Result<u64, GttError> {
        if region.size == 0 || !region.phys.0.is_multiple_of(PAGE) {
            return Err(GttError::BadRegion);
        }
        Ok((region.size as u64).div_ceil(PAGE))
    }

    fn write_ptes(
        &self,
        mmio: &dyn Mmio,
        region: &DmaRegion,
        first: u64,
        pages: u64,
        caching: Caching,
    ) -> Result<Mapping, GttError> {
        if let Some((base, bytes)) = self.stolen
            && region.phys.0 < base + bytes
            && region.phys.0 + region.size as u64 > base
        {
            return Err(GttError::InStolen {
                phys: region.phys.0.max(base),
            });
        }
        // Encode every PTE first, so that a region the format cannot address maps nothing.
        let ptes = (0..pages)
            .map(|p| encode_pte(self.generation, region.phys.0 + p * PAGE, caching))
            .collect::<Result<alloc::vec::Vec<u32>, GttError>>()?;
        for (p, pte) in ptes.into_iter().enumerate() {
            mmio.write32(
                self.layout.alias_offset + ((first + p as u64) * 4) as u32,
                pte,
            );
        }
        // Posting read of the last entry, then the GTT flush.
        let _ = mmio.read32(self.layout.alias_offset + ((first + pages - 1) * 4) as u32);
        mmio.write32(self.layout.flush_register, 1);
        Ok(Mapping {
            gfx: GfxAddr(first * PAGE),
            pages,
        })
    }

    /// Reserves `pages` entries without mapping them (a PPGTT page directory
    /// lives in GGTT entries); returns (first entry, pages).
    pub fn reserve(&mut self, pages: u64) -> Result<(u64, u64), GttError> {
        Ok((self.free.allocate(pages)?, pages))
    }

    /// Reserves the `pages` entries at `gfx` without mapping them (to keep
    /// them free while other mappings are made); returns (first entry, pages).
    pub fn reserve_at(&mut self, gfx: GfxAddr, pages: u64) -> Result<(u64, u64), GttError> {
        if !gfx.0.is_multiple_of(PAGE) {
            return Err(GttError::Unaligned(gfx));
        }
        self.free.take(gfx.0 / PAGE, pages)?;
        Ok((gfx.0 / PAGE, pages))
    }

    /// Gives back a range from [`Ggtt::reserve`] or [`Ggtt::reserve_at`].
    pub fn release_reservation(&mut self, first: u64, pages: u64) {
        self.free.release(first, pages);
    }

    /// Writes one GGTT entry through the alias (and flushes).
    pub fn write_entry(&self, mmio: &dyn Mmio, index: u64, value: u32) {
        mmio.write32(self.layout.alias_offset + (index * 4) as u32, value);
        mmio.write32(self.layout.flush_register, 1);
    }

    /// Makes every unused entry (page 0 included) invalid instead of pointing at
    /// the scratch page, now and for entries given back later: a debugging mode in
    /// which a stray access faults and is reported, where the silicon under Linux
    /// would read or write the scratch page silently (`baregpu replay` runs so).
    pub fn invalidate_unused(&mut self, mmio: &dyn Mmio) {
        self.unused_pte = 0;
        let mut unused: alloc::vec::Vec<(u64, u64)> = self.free.ranges().to_vec();
        unused.push((0, 1));
        for (first, pages) in unused {
            for index in first..first + pages {
                mmio.write32(self.layout.alias_offset + (index * 4) as u32, 0);
            }
        }
        mmio.write32(self.layout.flush_register, 1);
    }

    /// Points a mapping's PTEs back at the scratch page (invalid before
    /// [`Ggtt::take_over`]) and frees its address range.
    pub fn unmap(&mut self, mmio: &dyn Mmio, mapping: Mapping) {
        let first = mapping.gfx.0 / PAGE;
        for p in 0..mapping.pages {
            mmio.write32(
                self.layout.alias_offset + ((first + p) * 4) as u32,
                self.unused_pte,
            );
        }
        mmio.write32(self.layout.flush_register, 1);
        self.free.release(first, mapping.pages);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pte_formats() {
        // Gen6: 31:12 address, 11:4 address 39:32, 2:1 cacheability (01 UC, 10 LLC), 0 valid (003 lines 6875-6963).
        assert_eq!(
            encode_pte(Generation::Gen6, 0x1_2345_6000, Caching::Llc),
            Ok(0x2345_6000 | 0x10 | 0b101)
        );
        assert_eq!(
            encode_pte(Generation::Gen6, 0x7000, Caching::Uncached),
            Ok(0x7000 | 0b011)
        );
        // Gen7: LLC is bit 2 alone.
        assert_eq!(
            encode_pte(Generation::Gen7, 0x7000, Caching::Llc),
            Ok(0x7000 | 0b101)
        );
        // Gen4: address bits 35:32 in 7:4, snooped = memory type 3 (intel-gtt i965_write_entry).
        assert_eq!(
            encode_pte(Generation::Gen4, 0xa_2345_6000, Caching::Llc),
            Ok(0x2345_6000 | 0xa0 | 0b111)
        );
        assert_eq!(
            encode_pte(Generation::G45, 0x7000, Caching::Uncached),
            Ok(0x7000 | 1)
        );
        assert_eq!(
            encode_pte(Generation::Gen4, 1 << 36, Caching::Llc),
            Err(GttError::BadRegion)
        );
    }
}
