//! Re-checking entries after an invalidation: a kernel whose own bytes
//! fixed its length is re-read only as far as its last page; any other
//! kernel is fetched again; either way the answer (program, decode count,
//! fault) is what a fresh fetch gives.

use alloc::sync::Arc;
use alloc::vec::Vec;

use baregpu_isa::IsaGen;

use super::ProgramCache;
use crate::eu::shared::{FlatMemory, GfxMemory, MemFault};

const P: IsaGen = IsaGen::Gen7;
const KERNEL: u64 = 0x2000;

/// Two instructions and the end of the thread (three native words).
fn kernel() -> Vec<u8> {
    baregpu_isa::text::assemble(
        P,
        "add (8|M0) r5.0<1>:ud r5.0<8;8,1>:ud 0x1:ud
mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud {NoMask}
send (8|M0) null:ud r127 ts.deref(keep_urb) mlen=1 rlen=0 {EOT}
",
    )
    .expect("assembles")
}

/// Flat memory with a hole the test can open: accesses touching
/// `[hole.0, hole.1)` fault at their first address.
struct Holey {
    mem: FlatMemory,
    hole: Option<(u64, u64)>,
}

impl Holey {
    fn check(&self, addr: u64, len: usize, write: bool) -> Result<(), MemFault> {
        match self.hole {
            Some((a, b)) if addr < b && addr + len as u64 > a => Err(MemFault { addr, len, write }),
            _ => Ok(()),
        }
    }
}

impl GfxMemory for Holey {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), MemFault> {
        self.check(addr, buf.len(), false)?;
        self.mem.read(addr, buf)
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        self.check(addr, data.len(), true)?;
        self.mem.write(addr, data)
    }
}

fn memory() -> Holey {
    let mut mem = FlatMemory::new(0, 0x8000);
    mem.put(KERNEL, &kernel());
    // Non-zero bytes fill the pages after the kernel's page.
    for at in (0x3000..0x8000).step_by(4) {
        mem.set_dword(at, 0x5A5A_5A5A);
    }
    Holey { mem, hole: None }
}

#[test]
fn bytes_after_the_end_word_do_not_matter_to_a_recheck() {
    let mut mem = memory();
    let mut cache = ProgramCache::new();
    let a = cache.get(P, KERNEL, u64::MAX, &mut mem).unwrap();
    // Three instructions and the all-zero word.
    assert_eq!(a.len(), 4);
    let after = KERNEL + kernel().len() as u64 + 16;
    mem.mem.set_dword(after, 0x1234_5678);
    // Even pages after the kernel's page becoming unreadable do not.
    mem.hole = Some((0x3000, 0x8000));
    cache.invalidate();
    let b = cache.get(P, KERNEL, u64::MAX, &mut mem).unwrap();
    assert!(Arc::ptr_eq(&a, &b));
    assert_eq!((cache.stats.decodes, cache.stats.hits), (1, 1));
    // A fresh cache fetches the same program.
    let fresh = ProgramCache::new()
        .get(P, KERNEL, u64::MAX, &mut mem)
        .unwrap();
    assert_eq!(fresh.len(), a.len());
    // A changed instruction is decoded again.
    mem.mem.put(KERNEL, &[0; 16]);
    cache.invalidate();
    let c = cache.get(P, KERNEL, u64::MAX, &mut mem).unwrap();
    assert_eq!(c.len(), 1);
    assert_eq!(cache.stats.decodes, 2);
}

#[test]
fn a_recheck_that_faults_reports_the_fetch_fault() {
    let mut mem = memory();
    let mut cache = ProgramCache::new();
    cache.get(P, KERNEL, u64::MAX, &mut mem).unwrap();
    // The kernel's own page (past its end word) becomes unreadable.
    mem.hole = Some((0x2ff0, 0x3000));
    cache.invalidate();
    let err = cache.get(P, KERNEL, u64::MAX, &mut mem).unwrap_err();
    let fresh = ProgramCache::new()
        .get(P, KERNEL, u64::MAX, &mut mem)
        .unwrap_err();
    assert_eq!(err, fresh);
    assert_eq!(err.addr, KERNEL);
}

#[test]
fn a_kernel_cut_by_the_limit_is_fetched_again() {
    let mut mem = memory();
    let mut cache = ProgramCache::new();
    // The limit stops the fetch after two instructions: no end word, so
    // the bytes did not fix the length.
    let a = cache.get(P, KERNEL, KERNEL + 32, &mut mem).unwrap();
    assert_eq!(a.len(), 2);
    cache.invalidate();
    let b = cache.get(P, KERNEL, u64::MAX, &mut mem).unwrap();
    assert_eq!(b.len(), 4);
    assert_eq!(cache.stats.decodes, 2);
    // A fixed kernel under a limit lower than its end is fetched again too.
    cache.invalidate();
    let c = cache.get(P, KERNEL, KERNEL + 16, &mut mem).unwrap();
    assert_eq!(c.len(), 1);
    assert_eq!(cache.stats.decodes, 3);
}
