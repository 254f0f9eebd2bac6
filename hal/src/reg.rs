//! Typed register access over [`Mmio`].
//!
//! Generated register types (bitfield structs) implement [`RegValue`]; a
//! [`Reg`] pairs one with its absolute MMIO offset.

use core::marker::PhantomData;

use crate::mmio::Mmio;

/// A register's value type: 32 or 64 bits wide.
pub trait RegValue: Copy {
    /// Register width in bits (32 or 64).
    const WIDTH: u32;
    fn from_raw(raw: u64) -> Self;
    fn to_raw(self) -> u64;
}

/// A register at an absolute MMIO offset.
#[derive(Debug)]
pub struct Reg<T> {
    offset: u32,
    _value: PhantomData<fn() -> T>,
}

impl<T> Clone for Reg<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Reg<T> {}

impl<T: RegValue> Reg<T> {
    pub const fn new(offset: u32) -> Self {
        Self {
            offset,
            _value: PhantomData,
        }
    }

    /// Absolute MMIO offset.
    pub const fn offset(self) -> u32 {
        self.offset
    }

    pub fn read(self, mmio: &(impl Mmio + ?Sized)) -> T {
        let raw = if T::WIDTH == 64 {
            mmio.read64(self.offset)
        } else {
            mmio.read32(self.offset) as u64
        };
        T::from_raw(raw)
    }

    pub fn write(self, mmio: &(impl Mmio + ?Sized), value: T) {
        if T::WIDTH == 64 {
            mmio.write64(self.offset, value.to_raw())
        } else {
            mmio.write32(self.offset, value.to_raw() as u32)
        }
    }

    /// Read, change, write back.
    pub fn modify(self, mmio: &(impl Mmio + ?Sized), f: impl FnOnce(T) -> T) {
        let v = self.read(mmio);
        self.write(mmio, f(v));
    }

    /// Writes a masked register: bits 31:16 select which of bits 15:0 change.
    pub fn write_masked(self, mmio: &(impl Mmio + ?Sized), mask: u16, value: u16) {
        mmio.write32(self.offset, (mask as u32) << 16 | (value & mask) as u32);
    }
}

/// A register that each engine has at `engine base + offset`.
#[derive(Debug)]
pub struct EngineReg<T, E: 'static> {
    offset: u32,
    engines: &'static [E],
    _value: PhantomData<fn() -> T>,
}

impl<T, E: 'static> Clone for EngineReg<T, E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, E: 'static> Copy for EngineReg<T, E> {}

/// What a generation's engine enum provides.
pub trait EngineBase: Copy + PartialEq {
    /// MMIO base of the engine's register block.
    fn base(self) -> u32;
}

impl<T: RegValue, E: EngineBase + 'static> EngineReg<T, E> {
    pub const fn new(offset: u32, engines: &'static [E]) -> Self {
        Self {
            offset,
            engines,
            _value: PhantomData,
        }
    }

    /// Engine-relative offset.
    pub const fn relative_offset(self) -> u32 {
        self.offset
    }

    /// Whether the register exists on `engine`.
    pub fn exists_on(self, engine: E) -> bool {
        self.engines.contains(&engine)
    }

    /// The register instance of `engine`.
    pub fn at(self, engine: E) -> Reg<T> {
        Reg::new(engine.base() + self.offset)
    }
}

/// An array of registers `stride` bytes apart.
#[derive(Debug)]
pub struct RegArray<T> {
    offset: u32,
    count: u32,
    stride: u32,
    _value: PhantomData<fn() -> T>,
}

impl<T> Clone for RegArray<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for RegArray<T> {}

impl<T: RegValue> RegArray<T> {
    pub const fn new(offset: u32, count: u32, stride: u32) -> Self {
        Self {
            offset,
            count,
            stride,
            _value: PhantomData,
        }
    }
    pub const fn len(self) -> u32 {
        self.count
    }
    pub const fn is_empty(self) -> bool {
        self.count == 0
    }
    /// Instance `index`, or `None` past the end.
    pub fn at(self, index: u32) -> Option<Reg<T>> {
        (index < self.count).then(|| Reg::new(self.offset + index * self.stride))
    }
}

macro_rules! raw_reg_value {
    ($t:ty, $w:expr) => {
        impl RegValue for $t {
            const WIDTH: u32 = $w;
            fn from_raw(raw: u64) -> Self {
                raw as $t
            }
            fn to_raw(self) -> u64 {
                self as u64
            }
        }
    };
}
raw_reg_value!(u32, 32);
raw_reg_value!(u64, 64);
