//! The global GTT: one 32-bit entry per 4 KiB page of graphics address
//! space, written by the driver through the GTT's MMIO alias.
//!
//! Gen6/Gen7 PTE (SNB 003 lines 6875-6963): 31:12 physical address 31:12,
//! 11:4 physical address 39:32, 3 GFDT, 2:1 cacheability, 0 valid.

use alloc::vec;
use alloc::vec::Vec;

/// The physical page an entry points to (bits 31:12, and 39:32 from bits 11:4).
/// PTEs and PPGTT PDEs share this layout (003 lines 6875-6963, 7096-7149).
pub fn entry_address(entry: u32) -> u64 {
    (entry as u64 & 0xffff_f000) | ((entry as u64 & 0xff0) << 28)
}

/// A valid entry pointing at the page `phys` (caching left to the GTT's default):
/// the inverse of [`entry_address`].
pub fn entry_for(phys: u64) -> u32 {
    (phys as u32 & 0xffff_f000) | ((phys >> 28) as u32 & 0xff0) | 1
}

pub struct Ggtt {
    entries: Vec<u32>,
}

/// A translation that found no valid entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GttFault {
    pub gfx_addr: u64,
}

impl Ggtt {
    pub fn new(entries: u32) -> Self {
        Self {
            entries: vec![0; entries as usize],
        }
    }

    pub fn read_entry(&self, index: u32) -> u32 {
        self.entries.get(index as usize).copied().unwrap_or(0)
    }

    pub fn write_entry(&mut self, index: u32, value: u32) {
        if let Some(e) = self.entries.get_mut(index as usize) {
            *e = value;
        }
    }

    /// Physical address of graphics address `gfx`.
    pub fn translate(&self, gfx: u64) -> Result<u64, GttFault> {
        let pte = self
            .entries
            .get((gfx >> 12) as usize)
            .copied()
            .ok_or(GttFault { gfx_addr: gfx })?;
        if pte & 1 == 0 {
            return Err(GttFault { gfx_addr: gfx });
        }
        Ok(entry_address(pte) | (gfx & 0xfff))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translates_valid_entries_with_high_address_bits() {
        let mut g = Ggtt::new(16);
        // Page at physical 0x12_3456_7000: bits 39:32 = 0x12 go to PTE bits 11:4.
        g.write_entry(3, 0x3456_7000 | (0x12 << 4) | 1);
        assert_eq!(g.translate(0x3abc), Ok(0x12_3456_7abc));
        assert_eq!(g.translate(0x2000), Err(GttFault { gfx_addr: 0x2000 }));
        assert_eq!(g.translate(16 << 12), Err(GttFault { gfx_addr: 16 << 12 }));
    }
}
