//! Graphics memory as the EU array reaches it: addresses translated
//! through the engine's address space (GGTT, the context's PPGTT, or
//! physical memory for Gen4/G45 accesses without their GTT bit) and read or
//! written on the device's memory bus, page by page.
//!
//! State reads ([`GfxMemory::read_state`]: binding-table entries and
//! SURFACE_STATE, looked up by every message) are kept in a small cache
//! that is exact, not a model of the hardware's state caches:
//! - a view lives for one call into the device (one MMIO access of the
//!   driver), during which nothing but the view's own writes changes
//!   memory (the media unit's command view, alive at the same time, only
//!   reads), and the GGTT and the engine's registers cannot change (the
//!   view's [`Memory`] borrows them);
//! - every write through the view drops the cache when it lands on a
//!   physical page a cached read came from, and moves the state epoch
//!   ([`GfxMemory::state_epoch`]) that lets the EU array keep resolved
//!   surfaces;
//! - PPGTT views do not cache: a thread may rewrite a page table, which
//!   would change a translation without touching the state's own pages.

use baregpu_hal::MemoryBus;

use super::{Memory, Space};
use crate::eu::shared::{GfxMemory, MemFault};

const PAGE: u64 = 4096;

/// Reads the state cache keeps, and their longest length (an 8-dword
/// Gen7 SURFACE_STATE).
const STATE_ENTRIES: usize = 16;
const STATE_BYTES: usize = 32;
/// Physical pages the cached reads may come from; a read from a further
/// page empties the cache first, so that writes check only these.
const STATE_PAGES: usize = 4;

#[derive(Clone, Copy)]
struct StateEntry {
    addr: u64,
    len: u8,
    bytes: [u8; STATE_BYTES],
}

/// Recent state reads and the physical pages they came from.
struct StateCache {
    entries: [StateEntry; STATE_ENTRIES],
    used: usize,
    /// Next entry to replace once all are used.
    next: usize,
    pages: [u64; STATE_PAGES],
    npages: usize,
    /// Counts the times the cache was emptied or a state read was not
    /// watched ([`GfxMemory::state_epoch`]).
    epoch: u64,
}

impl StateCache {
    fn new() -> StateCache {
        StateCache {
            entries: [StateEntry {
                addr: 0,
                len: 0,
                bytes: [0; STATE_BYTES],
            }; STATE_ENTRIES],
            used: 0,
            next: 0,
            pages: [0; STATE_PAGES],
            npages: 0,
            epoch: 0,
        }
    }

    fn clear(&mut self) {
        self.used = 0;
        self.next = 0;
        self.npages = 0;
        self.epoch += 1;
    }

    fn find(&self, addr: u64, len: usize) -> Option<&StateEntry> {
        self.entries[..self.used]
            .iter()
            .find(|e| e.addr == addr && usize::from(e.len) == len)
    }

    /// Whether a write to physical page `page` may change a cached read.
    fn depends_on(&self, page: u64) -> bool {
        self.pages[..self.npages].contains(&page)
    }

    /// Keeps `bytes`, read at `addr` from the physical pages `pages`.
    fn insert(&mut self, addr: u64, bytes: &[u8], pages: &[u64]) {
        let new = pages.iter().filter(|p| !self.depends_on(**p)).count();
        if self.npages + new > STATE_PAGES {
            self.clear();
        }
        for &p in pages {
            if !self.depends_on(p) {
                self.pages[self.npages] = p;
                self.npages += 1;
            }
        }
        let mut e = StateEntry {
            addr,
            len: bytes.len() as u8,
            bytes: [0; STATE_BYTES],
        };
        e.bytes[..bytes.len()].copy_from_slice(bytes);
        if self.used < STATE_ENTRIES {
            self.entries[self.used] = e;
            self.used += 1;
        } else {
            self.entries[self.next] = e;
            self.next = (self.next + 1) % STATE_ENTRIES;
        }
    }
}

/// The device's memory in one engine's address space.
pub(crate) struct GfxView<'a, B: MemoryBus> {
    mem: Memory<'a, B>,
    space: Space,
    /// Made on the first state read (most views never read state).
    state: Option<StateCache>,
}

impl<'a, B: MemoryBus> GfxView<'a, B> {
    pub fn new(mem: Memory<'a, B>, space: Space) -> GfxView<'a, B> {
        GfxView {
            mem,
            space,
            state: None,
        }
    }
}

/// Runs `f` on each page-sized piece of `[addr, addr + len)` with its
/// physical address and its range in the caller's buffer.
fn each_page<B: MemoryBus>(
    mem: &Memory<'_, B>,
    space: Space,
    addr: u64,
    len: usize,
    write: bool,
    mut f: impl FnMut(u64, core::ops::Range<usize>) -> bool,
) -> Result<(), MemFault> {
    let mut done = 0usize;
    while done < len {
        let at = addr.wrapping_add(done as u64);
        let take = ((PAGE - at % PAGE) as usize).min(len - done);
        let fault = MemFault {
            addr: at,
            len: len - done,
            write,
        };
        let phys = mem.translate(space, at).map_err(|_| fault)?;
        if !f(phys, done..done + take) {
            return Err(fault);
        }
        done += take;
    }
    Ok(())
}

impl<B: MemoryBus> GfxMemory for GfxView<'_, B> {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), MemFault> {
        let bus = self.mem.bus;
        let len = buf.len();
        each_page(&self.mem, self.space, addr, len, false, |phys, r| {
            bus.read(phys, &mut buf[r]).is_ok()
        })
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        let bus = self.mem.bus;
        let mut state = self.state.as_mut();
        // Checked before each piece is stored: a piece that faults later
        // may still have stored its first pages.
        each_page(&self.mem, self.space, addr, data.len(), true, |phys, r| {
            if let Some(s) = state.as_deref_mut()
                && s.depends_on(phys / PAGE)
            {
                s.clear();
            }
            bus.write(phys, &data[r]).is_ok()
        })
    }

    fn read_state(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), MemFault> {
        let len = buf.len();
        let state = self.state.get_or_insert_with(StateCache::new);
        if self.space == Space::Ppgtt || len == 0 || len > STATE_BYTES {
            // Not watched: whatever was derived from it must not be kept.
            state.epoch += 1;
            return self.read(addr, buf);
        }
        if let Some(e) = state.find(addr, len) {
            buf.copy_from_slice(&e.bytes[..len]);
            return Ok(());
        }
        let mut pages = [0u64; 2];
        let mut n = 0;
        let bus = self.mem.bus;
        each_page(&self.mem, self.space, addr, len, false, |phys, r| {
            // At most two pages: `len` is at most 32 bytes.
            if n < pages.len() {
                pages[n] = phys / PAGE;
                n += 1;
            }
            bus.read(phys, &mut buf[r]).is_ok()
        })?;
        state.insert(addr, buf, &pages[..n]);
        Ok(())
    }

    /// The state cache's epoch; none for PPGTT views, which do not watch
    /// their page tables.
    fn state_epoch(&self) -> Option<u64> {
        if self.space == Space::Ppgtt {
            return None;
        }
        Some(self.state.as_ref().map_or(0, |s| s.epoch))
    }
}

#[cfg(test)]
mod tests;
