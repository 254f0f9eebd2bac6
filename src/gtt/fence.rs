//! Fence registers: they make the CPU's view of a tiled surface through the
//! aperture (GMADR) linear. One encoder per register layout:
//! Gen4/G45 (FENCE_REG_965 at 0x3000, 16 fences, pitch in bits 11:2 — Linux
//! i915_reg.h), Gen6 (FENCE at 0x100000, 16 fences, pitch in 41:32 — SNB 003
//! lines 7544-7645) and Gen7 (32 fences, pitch in 42:32 — Linux).

use baregpu_hal::reg::RegValue;
use baregpu_hal::{Generation, Mmio, gen4, gen6, gen7};

use super::GfxAddr;
use super::tiling::Tiling;

/// A fenced range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FenceRegion {
    /// 4 KiB-aligned start in the GGTT.
    pub gfx: GfxAddr,
    /// Bytes, a multiple of 4 KiB.
    pub size: u64,
    pub tiling: Tiling,
    /// Row pitch in bytes: a multiple of the tile width (512 for X, 128 for Y).
    pub pitch: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FenceError {
    /// Start or size not 4 KiB granular, empty, or past 4 GiB.
    BadRange,
    /// Pitch not a multiple of the tile width, or too large for the register.
    BadPitch,
    /// Linear surfaces need no fence.
    NotTiled,
    /// Every fence register is in use.
    NoneFree,
    Unsupported(Generation),
}

/// The fence registers of a generation: how many, and the raw value for a region.
fn count(generation: Generation) -> Option<u32> {
    match generation {
        Generation::Gen4 | Generation::G45 => Some(gen4::regs::FENCE_REG_965.len()),
        Generation::Gen6 => Some(gen6::regs::FENCE.len()),
        Generation::Gen7 => Some(gen7::regs::FENCE.len()),
        Generation::Gen12_5 => None,
    }
}

/// Encodes the 64-bit fence register value for `r`.
pub fn encode(generation: Generation, r: &FenceRegion) -> Result<u64, FenceError> {
    let end = r.gfx.0.checked_add(r.size).ok_or(FenceError::BadRange)?;
    if r.size == 0 || !r.gfx.0.is_multiple_of(4096) || !r.size.is_multiple_of(4096) || end > 1 << 32
    {
        return Err(FenceError::BadRange);
    }
    let (tile_width, y) = match r.tiling {
        Tiling::Linear => return Err(FenceError::NotTiled),
        Tiling::X => (512, false),
        Tiling::Y => (128, true),
    };
    if r.pitch == 0 || !r.pitch.is_multiple_of(tile_width) {
        return Err(FenceError::BadPitch);
    }
    let units = r.pitch / 128 - 1;
    let first = (r.gfx.0 >> 12) as u32;
    let last = ((end - 4096) >> 12) as u32;
    let raw = match generation {
        // G45 inherits this register from the Gen4 tables.
        Generation::Gen4 | Generation::G45 => gen4::regs::FenceReg965::new()
            .with_fence_upper_bound_checked(last)
            .and_then(|v| v.with_fence_lower_bound_checked(first))
            .and_then(|v| v.with_fence_pitch_checked(units as u16))
            .map(|v| v.with_tile_walk(y as u8).with_fence_valid(true).to_raw()),
        Generation::Gen6 => gen6::regs::Fence::new()
            .with_fence_upper_bound_checked(last)
            .and_then(|v| v.with_fence_lower_bound_checked(first))
            .and_then(|v| v.with_fence_pitch_checked(units as u16))
            .map(|v| v.with_tile_walk(y as u8).with_fence_valid(1).to_raw()),
        Generation::Gen7 => gen7::regs::Fence::new()
            .with_fence_upper_bound_checked(last)
            .and_then(|v| v.with_fence_lower_bound_checked(first))
            .and_then(|v| v.with_fence_pitch_checked(units as u16))
            .map(|v| v.with_tile_walk(y as u8).with_fence_valid(true).to_raw()),
        g => return Err(FenceError::Unsupported(g)),
    };
    raw.map_err(|_| FenceError::BadPitch)
}

/// Which fence registers are in use.
pub struct Fences {
    generation: Generation,
    used: u32,
    count: u32,
}

/// A fence register in use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FenceId(pub u32);

impl Fences {
    pub fn new(generation: Generation) -> Result<Self, FenceError> {
        let count = count(generation).ok_or(FenceError::Unsupported(generation))?;
        Ok(Self {
            generation,
            used: 0,
            count,
        })
    }

    fn offset(&self, id: u32) -> Option<u32> {
        match self.generation {
            Generation::Gen4 | Generation::G45 => {
                gen4::regs::FENCE_REG_965.at(id).map(|r| r.offset())
            }
            Generation::Gen6 => gen6::regs::FENCE.at(id).map(|r| r.offset()),
            Generation::Gen7 => gen7::regs::FENCE.at(id).map(|r| r.offset()),
            Generation::Gen12_5 => None,
        }
    }

    /// Programs a free fence for `r`.
    pub fn set(&mut self, mmio: &dyn Mmio, r: &FenceRegion) -> Result<FenceId, FenceError> {
        let value = encode(self.generation, r)?;
        let id = (0..self.count)
            .find(|i| self.used & (1 << i) == 0)
            .ok_or(FenceError::NoneFree)?;
        let off = self.offset(id).ok_or(FenceError::NoneFree)?;
        // Invalidate first, then upper and lower dword (Linux writes the fence this way so
        // that a half-written register is never valid).
        mmio.write32(off, 0);
        mmio.write32(off + 4, (value >> 32) as u32);
        mmio.write32(off, value as u32);
        self.used |= 1 << id;
        Ok(FenceId(id))
    }

    /// Clears a fence.
    pub fn clear(&mut self, mmio: &dyn Mmio, id: FenceId) {
        if let Some(off) = self.offset(id.0) {
            mmio.write32(off, 0);
            mmio.write32(off + 4, 0);
        }
        self.used &= !(1 << id.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use core::cell::RefCell;

    struct Writes(RefCell<Vec<(u32, u32)>>);
    impl Mmio for Writes {
        fn read32(&self, _: u32) -> u32 {
            0
        }
        fn write32(&self, o: u32, v: u32) {
            self.0.borrow_mut().push((o, v));
        }
    }

    fn region(tiling: Tiling, pitch: u32) -> FenceRegion {
        FenceRegion {
            gfx: GfxAddr(0x10_0000),
            size: 0x1_0000,
            tiling,
            pitch,
        }
    }

    #[test]
    fn gen6_layout() {
        // SNB 003 lines 7544-7645: 63:44 last page, 41:32 pitch/128 - 1, 31:12 first page,
        // 1 Y-major, 0 valid.
        let v = encode(Generation::Gen6, &region(Tiling::X, 4096)).unwrap();
        assert_eq!(v, (0x10f << 44) | (31 << 32) | 0x10_0000 | 1);
        let v = encode(Generation::Gen6, &region(Tiling::Y, 128)).unwrap();
        assert_eq!(v, (0x10f << 44) | 0x10_0000 | 0b11);
    }

    #[test]
    fn gen4_layout_has_the_pitch_in_the_low_dword() {
        // Linux I965_FENCE_PITCH_SHIFT 2: pitch/128 - 1 in bits 11:2.
        let v = encode(Generation::Gen4, &region(Tiling::X, 1024)).unwrap();
        assert_eq!(v, (0x10f << 44) | 0x10_0000 | (7 << 2) | 1);
        assert_eq!(encode(Generation::G45, &region(Tiling::X, 1024)), Ok(v));
    }

    #[test]
    fn gen7_pitch_is_one_bit_wider() {
        // 2048 units of 128 bytes do not fit Gen6's 10 bits but fit Gen7's 11.
        let r = FenceRegion {
            pitch: 2048 * 128,
            ..region(Tiling::Y, 0)
        };
        assert_eq!(encode(Generation::Gen6, &r), Err(FenceError::BadPitch));
        assert_eq!(
            encode(Generation::Gen7, &r).map(|v| (v >> 32) & 0x7ff),
            Ok(2047)
        );
    }

    #[test]
    fn bad_regions_are_refused() {
        assert_eq!(
            encode(Generation::Gen6, &region(Tiling::Linear, 512)),
            Err(FenceError::NotTiled)
        );
        assert_eq!(
            encode(Generation::Gen6, &region(Tiling::X, 128)),
            Err(FenceError::BadPitch)
        );
        let r = FenceRegion {
            gfx: GfxAddr(0x1234),
            ..region(Tiling::X, 512)
        };
        assert_eq!(encode(Generation::Gen6, &r), Err(FenceError::BadRange));
        assert_eq!(
            Fences::new(Generation::Gen12_5).err(),
            Some(FenceError::Unsupported(Generation::Gen12_5))
        );
    }

    #[test]
    fn allocation_writes_the_register_safely_and_frees() {
        let m = Writes(RefCell::new(Vec::new()));
        let mut f = Fences::new(Generation::Gen6).unwrap();
        let a = f.set(&m, &region(Tiling::X, 4096)).unwrap();
        let b = f.set(&m, &region(Tiling::Y, 256)).unwrap();
        assert_eq!((a, b), (FenceId(0), FenceId(1)));
        // Invalidate, upper dword, then the lower dword with the valid bit last.
        assert_eq!(
            &m.0.borrow()[..3],
            &[
                (0x10_0000, 0),
                (0x10_0004, 0x10f << 12 | 31),
                (0x10_0000, 0x10_0001)
            ]
        );
        f.clear(&m, a);
        assert_eq!(f.set(&m, &region(Tiling::X, 512)).unwrap(), FenceId(0));
        for _ in 2..16 {
            f.set(&m, &region(Tiling::X, 512)).unwrap();
        }
        assert_eq!(
            f.set(&m, &region(Tiling::X, 512)),
            Err(FenceError::NoneFree)
        );
    }
}
