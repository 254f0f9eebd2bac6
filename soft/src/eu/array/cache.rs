//! The predecode cache: a kernel is fetched and decoded into a [`Program`]
//! once, keyed by (kernel address, platform), and shared by every thread
//! that runs it. Threads never decode while they run.
//!
//! How much to fetch: a kernel has no length in any state. The cache reads
//! from the kernel start page by page up to a limit (the Instruction Access
//! Upper Bound when one is set, the first unmapped page, a page of zeros, or
//! [`MAX_KERNEL_BYTES`]) and ends the kernel after its first all-zero
//! instruction: opcode 0 is `illegal` (000 lines 9340-9346), which no
//! compiled kernel contains, and the bytes after a kernel's prefetch pad are
//! zero in a freshly filled heap. That instruction itself stays in the
//! program, so a thread that reaches it still raises the illegal-opcode
//! error.
//!
//! Entries are checked again (bytes re-read and compared) after
//! [`ProgramCache::invalidate`], which the media unit calls whenever new
//! interface descriptors are loaded: a heap reused for another kernel at
//! the same address is decoded afresh. When a kernel's length was fixed by
//! its own bytes (it ended at its all-zero instruction, or at a word that
//! does not decode, with the whole word fetched), the check re-reads only
//! the pages that hold it: the same bytes then give the same fetch.

use alloc::sync::Arc;
use alloc::vec::Vec;

use baregpu_isa::IsaGen;
use baregpu_isa::kernel::{KernelErrorKind, KernelIter};

use crate::eu::predecode::Program;
use crate::eu::shared::{GfxMemory, MemFault};

/// Longest kernel the cache fetches.
pub const MAX_KERNEL_BYTES: u64 = 256 << 10;

/// Entries kept; the oldest goes first.
const CAPACITY: usize = 32;

const PAGE: u64 = 4096;

struct Entry {
    addr: u64,
    platform: IsaGen,
    bytes: Vec<u8>,
    /// The length came from the bytes themselves (see [`Fetched::fixed`]).
    fixed: bool,
    program: Arc<Program>,
    verified: bool,
}

/// Counters for tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Kernels fetched and predecoded.
    pub decodes: u64,
    /// Lookups served from the cache.
    pub hits: u64,
}

/// Predecoded kernels by (address, platform).
#[derive(Default)]
pub struct ProgramCache {
    entries: Vec<Entry>,
    /// Reused buffer for re-reading a kernel's pages.
    scratch: Vec<u8>,
    pub stats: CacheStats,
}

impl ProgramCache {
    pub fn new() -> ProgramCache {
        ProgramCache::default()
    }

    /// Marks every entry for a byte comparison before its next use.
    pub fn invalidate(&mut self) {
        for e in &mut self.entries {
            e.verified = false;
        }
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The program at graphics address `addr`, fetched through `memory`
    /// no further than `limit` (exclusive; `u64::MAX` for none). A fault
    /// on the kernel's first bytes is returned; later pages that fault end
    /// the fetch.
    pub fn get(
        &mut self,
        p: IsaGen,
        addr: u64,
        limit: u64,
        memory: &mut dyn GfxMemory,
    ) -> Result<Arc<Program>, MemFault> {
        if let Some(i) = self
            .entries
            .iter()
            .position(|e| e.addr == addr && e.platform == p)
        {
            if self.entries[i].verified {
                self.stats.hits += 1;
                return Ok(self.entries[i].program.clone());
            }
            let e = &self.entries[i];
            if e.fixed && unchanged(addr, limit, memory, &e.bytes, &mut self.scratch) {
                self.entries[i].verified = true;
                self.stats.hits += 1;
                return Ok(self.entries[i].program.clone());
            }
            let f = fetch(p, addr, limit, memory)?;
            if f.bytes == self.entries[i].bytes {
                self.entries[i].verified = true;
                self.entries[i].fixed = f.fixed;
                self.stats.hits += 1;
                return Ok(self.entries[i].program.clone());
            }
            self.entries.remove(i);
            return Ok(self.insert(p, addr, f));
        }
        let f = fetch(p, addr, limit, memory)?;
        Ok(self.insert(p, addr, f))
    }

    fn insert(&mut self, p: IsaGen, addr: u64, f: Fetched) -> Arc<Program> {
        let program = Arc::new(Program::new(p, &f.bytes));
        self.stats.decodes += 1;
        if self.entries.len() >= CAPACITY {
            self.entries.remove(0);
        }
        self.entries.push(Entry {
            addr,
            platform: p,
            bytes: f.bytes,
            fixed: f.fixed,
            program: program.clone(),
            verified: true,
        });
        program
    }
}

/// Where [`fetch`] stops reading: the limit, or `MAX_KERNEL_BYTES` on.
fn fetch_end(addr: u64, limit: u64) -> u64 {
    limit.min(addr.saturating_add(MAX_KERNEL_BYTES))
}

/// Whether [`fetch`] would now give `bytes` again, for a kernel whose
/// length its bytes fixed: the pages `fetch` reads up to the end of
/// `bytes` read without a fault and hold `bytes`. False means "do the
/// whole fetch" (which also finds any fault exactly).
fn unchanged(
    addr: u64,
    limit: u64,
    memory: &mut dyn GfxMemory,
    bytes: &[u8],
    scratch: &mut Vec<u8>,
) -> bool {
    let end = fetch_end(addr, limit);
    let Some(stop) = addr.checked_add(bytes.len() as u64) else {
        return false;
    };
    if bytes.is_empty() || stop > end {
        return false;
    }
    // `fetch` reads whole pages (the last one up to `end`).
    let last_page_end = stop.div_ceil(PAGE).saturating_mul(PAGE).min(end);
    let n = (last_page_end - addr) as usize;
    if scratch.len() < n {
        scratch.resize(n, 0);
    }
    let now = &mut scratch[..n];
    memory.read(addr, now).is_ok() && now[..bytes.len()] == *bytes
}

/// What [`fetch`] read.
struct Fetched {
    bytes: Vec<u8>,
    /// The cut came from the bytes alone: an all-zero instruction, or a
    /// word that does not decode with all 16 bytes of it fetched. Bytes
    /// after the cut (more pages, a fault further on) could not change it.
    fixed: bool,
}

/// The kernel's bytes: pages from `addr` until the limit, a fault or a
/// zero page, cut after the first all-zero instruction.
fn fetch(
    p: IsaGen,
    addr: u64,
    limit: u64,
    memory: &mut dyn GfxMemory,
) -> Result<Fetched, MemFault> {
    let end = fetch_end(addr, limit);
    let mut bytes = Vec::new();
    let mut at = addr;
    while at < end {
        let next = (at / PAGE + 1).saturating_mul(PAGE).min(end);
        let mut chunk = alloc::vec![0u8; (next - at) as usize];
        match memory.read(at, &mut chunk) {
            Ok(()) => {}
            Err(f) if bytes.is_empty() => return Err(f),
            Err(_) => break,
        }
        let zero = chunk.iter().all(|b| *b == 0);
        bytes.extend_from_slice(&chunk);
        if zero {
            break;
        }
        at = next;
    }
    if bytes.is_empty() {
        // A limit at or below the kernel start: nothing is fetchable.
        let mut one = [0u8; 1];
        memory.read(addr, &mut one)?;
        return Ok(Fetched {
            bytes,
            fixed: false,
        });
    }
    let mut cut = bytes.len();
    let mut fixed = false;
    for entry in KernelIter::new(p, &bytes) {
        let e = match entry {
            Ok(e) => e,
            // Decoding stops here anyway: keep the word so that reaching it
            // reports the decode error.
            Err(err) => {
                cut = (err.offset + 16).min(bytes.len());
                fixed = !matches!(err.kind, KernelErrorKind::Truncated { .. })
                    && err.offset + 16 <= bytes.len();
                break;
            }
        };
        let span = e.offset..e.offset + e.size();
        if bytes
            .get(span.clone())
            .is_some_and(|b| b.iter().all(|v| *v == 0))
        {
            cut = span.end;
            fixed = true;
            break;
        }
    }
    bytes.truncate(cut);
    Ok(Fetched { bytes, fixed })
}

#[cfg(test)]
mod tests;
