//! The register file: every register of the generation's tables with its
//! reset value and access semantics.

use alloc::collections::BTreeMap;

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

pub struct RegFile {
    slots: BTreeMap<u32, Slot>,
}

impl RegFile {
    /// Every dword of every register instance in `tables`, at its reset value.
    pub fn new(tables: &GenTables) -> Self {
        let mut slots = BTreeMap::new();
        for r in tables.registers {
            let access = match r.access {
                "ro" => Access::ReadOnly,
                "wo" => Access::WriteOnly,
                "rw1c" => Access::WriteOneToClear,
                "masked" => Access::Masked,
                _ => Access::ReadWrite,
            };
            let engines: alloc::vec::Vec<&str> = if r.engines.is_empty() {
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
                    slots.insert(
                        off,
                        Slot {
                            value: reset as u32,
                            reset: reset as u32,
                            access,
                        },
                    );
                    if r.width == 64 {
                        let hi = (reset >> 32) as u32;
                        slots.insert(
                            off + 4,
                            Slot {
                                value: hi,
                                reset: hi,
                                access,
                            },
                        );
                    }
                }
            }
        }
        Self { slots }
    }

    pub fn read(&self, offset: u32) -> u32 {
        match self.slots.get(&offset) {
            Some(s) if s.access == Access::WriteOnly => 0,
            Some(s) if s.access == Access::Masked => s.value & 0xffff,
            Some(s) => s.value,
            None => 0,
        }
    }

    /// A write as the driver does it, with the register's access rule.
    pub fn write(&mut self, offset: u32, value: u32) {
        let slot = self.slots.entry(offset).or_insert(Slot {
            value: 0,
            reset: 0,
            access: Access::ReadWrite,
        });
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
        self.slots
            .entry(offset)
            .or_insert(Slot {
                value: 0,
                reset: 0,
                access: Access::ReadWrite,
            })
            .value = value;
    }

    /// Hardware-side read of the raw value.
    pub fn get(&self, offset: u32) -> u32 {
        self.slots.get(&offset).map_or(0, |s| s.value)
    }

    /// Back to reset values for the offsets in `range`.
    pub fn reset_range(&mut self, range: core::ops::Range<u32>) {
        for (_, s) in self.slots.range_mut(range) {
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
}
