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
//! the same address is decoded afresh.

use alloc::sync::Arc;
use alloc::vec::Vec;

use baregpu_isa::Platform;
use baregpu_isa::kernel::KernelIter;

use crate::eu::predecode::Program;
use crate::eu::shared::{GfxMemory, MemFault};

/// Longest kernel the cache fetches.
pub const MAX_KERNEL_BYTES: u64 = 256 << 10;

/// Entries kept; the oldest goes first.
const CAPACITY: usize = 32;

const PAGE: u64 = 4096;

struct Entry {
    addr: u64,
    platform: Platform,
    bytes: Vec<u8>,
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
        p: Platform,
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
            let bytes = fetch(p, addr, limit, memory)?;
            if bytes == self.entries[i].bytes {
                self.entries[i].verified = true;
                self.stats.hits += 1;
                return Ok(self.entries[i].program.clone());
            }
            self.entries.remove(i);
            return Ok(self.insert(p, addr, bytes));
        }
        let bytes = fetch(p, addr, limit, memory)?;
        Ok(self.insert(p, addr, bytes))
    }

    fn insert(&mut self, p: Platform, addr: u64, bytes: Vec<u8>) -> Arc<Program> {
        let program = Arc::new(Program::new(p, &bytes));
        self.stats.decodes += 1;
        if self.entries.len() >= CAPACITY {
            self.entries.remove(0);
        }
        self.entries.push(Entry {
            addr,
            platform: p,
            bytes,
            program: program.clone(),
            verified: true,
        });
        program
    }
}

/// The kernel's bytes: pages from `addr` until the limit, a fault or a
/// zero page, cut after the first all-zero instruction.
fn fetch(
    p: Platform,
    addr: u64,
    limit: u64,
    memory: &mut dyn GfxMemory,
) -> Result<Vec<u8>, MemFault> {
    let end = limit.min(addr.saturating_add(MAX_KERNEL_BYTES));
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
        return Ok(bytes);
    }
    let mut cut = bytes.len();
    for entry in KernelIter::new(p, &bytes) {
        let e = match entry {
            Ok(e) => e,
            // Decoding stops here anyway: keep the word so that reaching it
            // reports the decode error.
            Err(err) => {
                cut = (err.offset + 16).min(bytes.len());
                break;
            }
        };
        let span = e.offset..e.offset + e.size();
        if bytes
            .get(span.clone())
            .is_some_and(|b| b.iter().all(|v| *v == 0))
        {
            cut = span.end;
            break;
        }
    }
    bytes.truncate(cut);
    Ok(bytes)
}
