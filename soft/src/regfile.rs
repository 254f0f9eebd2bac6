//! The register file: every register of the generation's tables with its
//! reset value and access semantics.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use baregpu_hal::reflect::GenTables;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    ReadWrite,
    ReadOnly,
    WriteOnly,
    WriteOneToClear,
    /// Bits 31:16 enable the write of bits 15:0; they read as zero.
    Masked,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    value: u32,
    reset: u32,
    access: Access,
}

/// A register nobody listed: reads what was last written, resets to 0.
const PLAIN: Slot = Slot {
    value: 0,
    reset: 0,
    access: Access::ReadWrite,
};

/// Dword registers per 4 KiB page.
const PAGE_SLOTS: usize = 1024;
/// Offsets below this are kept in pages (direct indexing: the command streamer
/// reads and writes registers on every command); it covers every BAR the model
/// has. Others, and unaligned offsets, go to a map.
const PAGED_SPACE: u32 = 1 << 24;

pub struct RegFile {
    /// Page `offset >> 12`, allocated when a register in it is listed or written.
    pages: Vec<Option<Box<[Slot; PAGE_SLOTS]>>>,
    /// Registers outside the paged space or at unaligned offsets.
    others: BTreeMap<u32, Slot>,
}

impl RegFile {
    /// Every dword of every register instance in `tables`, at its reset value.
    pub fn new(tables: &GenTables) -> Self {
        let mut file = Self {
            pages: Vec::new(),
            others: BTreeMap::new(),
        };
        for r in tables.registers {
            let access = match r.access {
                "ro" => Access::ReadOnly,
                "wo" => Access::WriteOnly,
                "rw1c" => Access::WriteOneToClear,
                "masked" => Access::Masked,
                _ => Access::ReadWrite,
            };
            let engines: Vec<&str> = if r.engines.is_empty() {
                alloc::vec![""]
            } else {
                r.engines.to_vec()
            };
            for e in engines {
                for i in 0..r.count {
                    let Some(off) = tables.register_offset(r, e, i) else {
                        continue;
                    };
                    let reset = r.reset.unwrap_or(0);
                    *file.slot_mut(off) = Slot {
                        value: reset as u32,
                        reset: reset as u32,
                        access,
                    };
                    if r.width == 64 {
                        let hi = (reset >> 32) as u32;
                        *file.slot_mut(off + 4) = Slot {
                            value: hi,
                            reset: hi,
                            access,
                        };
                    }
                }
            }
        }
        file
    }

    /// Page and index of a paged offset.
    fn paged(offset: u32) -> Option<(usize, usize)> {
        (offset < PAGED_SPACE && offset.is_multiple_of(4))
            .then_some(((offset >> 12) as usize, ((offset & 0xfff) >> 2) as usize))
    }

    fn slot(&self, offset: u32) -> Option<&Slot> {
        match Self::paged(offset) {
            Some((p, i)) => self.pages.get(p)?.as_ref().map(|page| &page[i]),
            None => self.others.get(&offset),
        }
    }

    /// The slot of `offset`, created as a plain register if absent.
    fn slot_mut(&mut self, offset: u32) -> &mut Slot {
        match Self::paged(offset) {
            Some((p, i)) => {
                if self.pages.len() <= p {
                    self.pages.resize_with(p + 1, || None);
                }
                &mut self.pages[p].get_or_insert_with(|| Box::new([PLAIN; PAGE_SLOTS]))[i]
            }
            None => self.others.entry(offset).or_insert(PLAIN),
        }
    }

    pub fn read(&self, offset: u32) -> u32 {
        match self.slot(offset) {
            Some(s) if s.access == Access::WriteOnly => 0,
            Some(s) if s.access == Access::Masked => s.value & 0xffff,
            Some(s) => s.value,
            None => 0,
        }
    }

    /// A write as the driver does it, with the register's access rule.
    pub fn write(&mut self, offset: u32, value: u32) {
        let slot = self.slot_mut(offset);
        slot.value = match slot.access {
            Access::ReadOnly => slot.value,
            Access::WriteOneToClear => slot.value & !value,
            Access::Masked => {
                let mask = value >> 16;
                (slot.value & !mask) | (value & mask & 0xffff)
            }
            Access::ReadWrite | Access::WriteOnly => value,
        };
    }

    /// Sets a value as the hardware does (ignores the access rule).
    pub fn set(&mut self, offset: u32, value: u32) {
        self.slot_mut(offset).value = value;
    }

    /// A value loaded by a context restore: a masked register takes the bits
    /// its write enables select (the image holds masked writes), any other
    /// register the value as it is, whatever its software access.
    pub fn restore(&mut self, offset: u32, value: u32) {
        let slot = self.slot_mut(offset);
        slot.value = match slot.access {
            Access::Masked => {
                let mask = value >> 16;
                (slot.value & !mask) | (value & mask & 0xffff)
            }
            _ => value,
        };
    }

    /// The value a context save writes: a masked register with every write
    /// enable set, so that restoring it gives back the same bits.
    pub fn saved_value(&self, offset: u32) -> u32 {
        match self.slot(offset) {
            Some(s) if s.access == Access::Masked => 0xffff_0000 | (s.value & 0xffff),
            Some(s) => s.value,
            None => 0,
        }
    }

    /// Hardware-side read of the raw value.
    pub fn get(&self, offset: u32) -> u32 {
        self.slot(offset).map_or(0, |s| s.value)
    }

    /// Back to reset values for the offsets in `range`.
    pub fn reset_range(&mut self, range: core::ops::Range<u32>) {
        let mut offset = range.start & !3;
        while offset < range.end.min(PAGED_SPACE) {
            let (p, i) = ((offset >> 12) as usize, ((offset & 0xfff) >> 2) as usize);
            match self.pages.get_mut(p).and_then(Option::as_mut) {
                Some(page) => {
                    let s = &mut page[i];
                    s.value = s.reset;
                    offset += 4;
                }
                // Nothing in this page: skip to the next.
                None => offset = (offset | 0xfff) + 1,
            }
        }
        for (_, s) in self.others.range_mut(range) {
            s.value = s.reset;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_read_only_and_reset_values_follow_the_tables() {
        let mut r = RegFile::new(&baregpu_hal::gen6::TABLES);
        // GFX_MODE resets to 0x800 (003 line 10147) and is masked.
        assert_eq!(r.read(0x2520), 0x800);
        r.write(0x2520, (1 << 9 << 16) | (1 << 9));
        assert_eq!(r.read(0x2520), 0xa00);
        r.write(0x2520, 1 << 9); // no enable bit: no change
        assert_eq!(r.read(0x2520), 0xa00);
        r.write(0x2520, 1 << 9 << 16); // enable without value: clears
        assert_eq!(r.read(0x2520), 0x800);
        r.reset_range(0x2000..0x3000);
        assert_eq!(r.read(0x2520), 0x800);
    }

    /// A context restore applies a masked register's write enables and sets
    /// any other register whatever its software access; a save writes a
    /// masked register back with every enable, so restoring it is exact.
    #[test]
    fn restore_and_save_round_trip_masked_and_read_only_registers() {
        let mut r = RegFile::new(&baregpu_hal::gen6::TABLES);
        // GFX_MODE (masked): only bit 9 enabled in the image.
        r.restore(0x2520, (1 << 9 << 16) | (1 << 9) | 0x1);
        assert_eq!(r.read(0x2520), 0xa00);
        assert_eq!(r.saved_value(0x2520), 0xffff_0a00);
        let saved = r.saved_value(0x2520);
        r.reset_range(0x2000..0x3000);
        r.restore(0x2520, saved);
        assert_eq!(r.read(0x2520), 0xa00);
        // A read-only register (ACTHD, 0x2074) takes the restored value.
        r.restore(0x2074, 0x1234);
        assert_eq!((r.read(0x2074), r.saved_value(0x2074)), (0x1234, 0x1234));
    }

    /// Registers nobody listed hold what is written and reset to 0, in the pages,
    /// beyond them and at unaligned offsets alike; a reset touches only its range.
    #[test]
    fn unlisted_offsets_hold_their_value_until_reset() {
        let mut r = RegFile::new(&baregpu_hal::gen6::TABLES);
        for off in [0x2ffc, 0x3000, 0x12_3456, PAGED_SPACE + 8, 0x2001] {
            assert_eq!(r.read(off), 0, "{off:#x}");
            r.write(off, 0xdead_beef);
            assert_eq!(
                (r.read(off), r.get(off)),
                (0xdead_beef, 0xdead_beef),
                "{off:#x}"
            );
        }
        r.reset_range(0x2000..0x3000);
        assert_eq!((r.read(0x2ffc), r.read(0x2001)), (0, 0));
        assert_eq!(r.read(0x3000), 0xdead_beef, "past the range end");
        r.reset_range(PAGED_SPACE..u32::MAX);
        assert_eq!(r.read(PAGED_SPACE + 8), 0);
        assert_eq!(r.read(0x12_3456), 0xdead_beef);
    }
}
