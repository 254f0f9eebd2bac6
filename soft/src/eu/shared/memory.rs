//! What the memory shared functions reach: graphics memory (addresses the
//! GTT already translated, or that the implementer translates), a simple
//! in-memory version for tests and the harness, and the general-state and
//! scratch windows. The binding-table lookup is in `surface`.

use alloc::vec;
use alloc::vec::Vec;

/// An access the memory refused (an unmapped or out-of-range address).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemFault {
    /// First address of the refused access.
    pub addr: u64,
    /// Its length in bytes.
    pub len: usize,
    pub write: bool,
}

/// Graphics memory as the shared functions see it: graphics addresses,
/// translated (GGTT or PPGTT) by the implementer.
pub trait GfxMemory {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), MemFault>;
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault>;

    /// Reads state the shared functions look up again and again (binding
    /// table entries, SURFACE_STATE). An implementation may answer from a
    /// cache, as long as the answer is what [`GfxMemory::read`] would give
    /// (a write that could change the bytes must drop them).
    fn read_state(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), MemFault> {
        self.read(addr, buf)
    }

    /// A promise about [`GfxMemory::read_state`]: while this returns the
    /// same `Some(e)`, every byte `read_state` returned since it first
    /// returned `e` still holds that value, so anything computed from those
    /// bytes alone may be kept. `None` (the default): no promise.
    fn state_epoch(&self) -> Option<u64> {
        None
    }
}

/// A flat address space `[base, base + len)` held in a vector; any access
/// that leaves it faults (nothing is read or written then).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlatMemory {
    pub base: u64,
    pub bytes: Vec<u8>,
}

impl FlatMemory {
    /// `len` zero bytes starting at graphics address `base`.
    pub fn new(base: u64, len: usize) -> FlatMemory {
        FlatMemory {
            base,
            bytes: vec![0; len],
        }
    }

    /// The byte range of `[addr, addr + len)` in `bytes`, if inside.
    fn range(&self, addr: u64, len: usize) -> Option<core::ops::Range<usize>> {
        let start = usize::try_from(addr.checked_sub(self.base)?).ok()?;
        let end = start.checked_add(len)?;
        (end <= self.bytes.len()).then_some(start..end)
    }

    /// Reads `len` bytes for a test (`None` outside the space).
    pub fn get(&self, addr: u64, len: usize) -> Option<&[u8]> {
        self.range(addr, len).map(|r| &self.bytes[r])
    }

    /// Writes bytes for a test set-up (`false`, and nothing written, outside).
    pub fn put(&mut self, addr: u64, data: &[u8]) -> bool {
        match self.range(addr, data.len()) {
            Some(r) => {
                self.bytes[r].copy_from_slice(data);
                true
            }
            None => false,
        }
    }

    /// Little-endian dword at `addr` (0 outside the space).
    pub fn dword(&self, addr: u64) -> u32 {
        self.get(addr, 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn set_dword(&mut self, addr: u64, v: u32) -> bool {
        self.put(addr, &v.to_le_bytes())
    }
}

impl GfxMemory for FlatMemory {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), MemFault> {
        let fault = MemFault {
            addr,
            len: buf.len(),
            write: false,
        };
        let r = self.range(addr, buf.len()).ok_or(fault)?;
        buf.copy_from_slice(&self.bytes[r]);
        Ok(())
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        let fault = MemFault {
            addr,
            len: data.len(),
            write: true,
        };
        let r = self.range(addr, data.len()).ok_or(fault)?;
        self.bytes[r].copy_from_slice(data);
        Ok(())
    }
}

/// The general-state window: stateless (BTI 255) accesses and scratch
/// space are addressed from its base and checked against its upper bound
/// (000 lines 4327-4340; 003 lines 81028-81049).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GeneralState {
    /// General State Base Address.
    pub base: u64,
    /// General State Access Upper Bound: addresses at or above it are out
    /// of bounds (reads 0, writes dropped). `u64::MAX` for none.
    pub upper_bound: u64,
}

impl Default for GeneralState {
    fn default() -> GeneralState {
        GeneralState {
            base: 0,
            upper_bound: u64::MAX,
        }
    }
}

/// The thread's scratch space for Gen7 scratch block messages: the header's
/// `M0.5[31:10]` gives the thread's space (General State relative), this the
/// bytes each thread owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scratch {
    pub per_thread: u32,
}
