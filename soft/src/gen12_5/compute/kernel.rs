//! Kernels read from memory and predecoded once per address.
//!
//! A dispatch reads the kernel's bytes at Instruction Base Address + Kernel
//! Start Pointer through the context's page tables, up to the end of the
//! Instruction Buffer Size (at most [`MAX_WINDOW`]; [`WINDOW`] without
//! one), stopping at the first page that does not translate (the first
//! one must). The bytes are compared with the cached ones, so a kernel
//! rewritten at the same address is decoded again; an unchanged one is not.

use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;

use baregpu_hal::MemoryBus;

use super::super::memory::VA_MASK;
use super::super::memory::{Fault, Memory, Space};
use crate::eu::xe::XeProgram;

/// Bytes of one kernel the model reads when STATE_BASE_ADDRESS gave no
/// Instruction Buffer Size (a branch beyond them is an error when it runs).
pub const WINDOW: u64 = 64 << 10;

/// Most bytes the model reads up to the Instruction Buffer Size's end: IGC
/// kernels that spill run past 64 KiB (a 93 KiB SIMD32 one in the zebin
/// corpus).
pub const MAX_WINDOW: u64 = 4 << 20;
const PAGE: u64 = 4096;
/// Kernels kept decoded (the cache starts over beyond this).
const MAX_KERNELS: usize = 64;

#[derive(Default)]
pub struct KernelCache {
    kernels: BTreeMap<u64, (Vec<u8>, Arc<XeProgram>)>,
}

impl KernelCache {
    /// The decoded kernel at `addr`, reading at most `window` bytes
    /// (clamped to [`MAX_WINDOW`]).
    pub fn get<B: MemoryBus>(
        &mut self,
        mem: &Memory<'_, B>,
        space: Space,
        addr: u64,
        window: u64,
    ) -> Result<Arc<XeProgram>, Fault> {
        let addr = addr & VA_MASK;
        let window = window.clamp(1, MAX_WINDOW);
        let mut bytes = Vec::new();
        let mut at = addr;
        while (at - addr) < window {
            let n = (PAGE - at % PAGE).min(window - (at - addr));
            let mut chunk = vec![0u8; n as usize];
            match mem.read(space, at & VA_MASK, &mut chunk) {
                Ok(()) => bytes.extend_from_slice(&chunk),
                Err(f) if bytes.is_empty() => return Err(f),
                Err(_) => break,
            }
            at += n;
        }
        if let Some((cached, prog)) = self.kernels.get(&addr)
            && *cached == bytes
        {
            return Ok(prog.clone());
        }
        let prog = Arc::new(XeProgram::new(&bytes));
        if self.kernels.len() >= MAX_KERNELS {
            self.kernels.clear();
        }
        self.kernels.insert(addr, (bytes, prog.clone()));
        Ok(prog)
    }
}
