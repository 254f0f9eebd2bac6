//! The shared functions a walker's threads reach when the host installed
//! none: the Xe-HPG functions of `crate::eu::shared::xe` (LSC on UGM/SLM/
//! TGM, the legacy dc1 messages) over the running context's memory.
//!
//! Addresses are the context's PPGTT virtual addresses (the space the
//! walker read the kernel through), landing in system or local memory as
//! the page tables say. The first access that does not translate is kept:
//! the walker then stops the engine with the page fault it is, as any
//! other command's access does (`Halt::PageFault`).

use alloc::vec;
use alloc::vec::Vec;

use baregpu_hal::MemoryBus;

use super::super::memory::VA_MASK;
use super::super::memory::{Fault, Memory, Space};
use super::ComputeFunctions;
use crate::eu::send::{SendError, SendRequest, SharedFunctions};
use crate::eu::shared::xe::{self, Gateway, XeEnv, XeState};
use crate::eu::shared::{GfxMemory, MemFault};
use crate::eu::thread::Thread;

const PAGE: u64 = 4096;

/// [`GfxMemory`] over one space of the engine's memory, page by page (each
/// page translated on its own: contiguous virtual pages need not be
/// contiguous behind the page tables).
pub struct SpaceMemory<'m, 'a, B: MemoryBus> {
    pub memory: &'m mut Memory<'a, B>,
    pub space: Space,
    /// The first access refused.
    pub fault: Option<Fault>,
}

impl<B: MemoryBus> SpaceMemory<'_, '_, B> {
    fn refuse(&mut self, f: Fault, addr: u64, len: usize, write: bool) -> MemFault {
        self.fault.get_or_insert(f);
        MemFault { addr, len, write }
    }
}

impl<B: MemoryBus> GfxMemory for SpaceMemory<'_, '_, B> {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), MemFault> {
        let mut done = 0;
        while done < buf.len() {
            let at = addr.wrapping_add(done as u64) & VA_MASK;
            let n = ((PAGE - at % PAGE) as usize).min(buf.len() - done);
            if let Err(f) = self.memory.read(self.space, at, &mut buf[done..done + n]) {
                return Err(self.refuse(f, addr, buf.len(), false));
            }
            done += n;
        }
        Ok(())
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        // Every page translates before any byte lands (a refused write
        // writes nothing, as `GfxMemory` asks).
        let mut at = addr & !(PAGE - 1);
        while at < addr.saturating_add(data.len() as u64) {
            if let Err(f) = self.memory.translate(self.space, at & VA_MASK) {
                return Err(self.refuse(f, addr, data.len(), true));
            }
            at += PAGE;
        }
        let mut done = 0;
        while done < data.len() {
            let at = addr.wrapping_add(done as u64) & VA_MASK;
            let n = ((PAGE - at % PAGE) as usize).min(data.len() - done);
            if let Err(f) = self.memory.write(self.space, at, &data[done..done + n]) {
                return Err(self.refuse(f, addr, data.len(), true));
            }
            done += n;
        }
        Ok(())
    }
}

/// The Xe-HPG shared functions for one walker.
pub struct XeFunctions<'m, 'a, B: MemoryBus> {
    pub memory: SpaceMemory<'m, 'a, B>,
    pub state: XeState,
    slm: Vec<u8>,
    /// Unused by the walker (its router answers the gateway), kept for
    /// messages `xe::serve` counts there.
    gateway: Gateway,
}

impl<'m, 'a, B: MemoryBus> XeFunctions<'m, 'a, B> {
    pub fn new(memory: SpaceMemory<'m, 'a, B>, state: XeState) -> Self {
        Self {
            memory,
            state,
            slm: Vec::new(),
            gateway: Gateway::default(),
        }
    }
}

impl<B: MemoryBus> SharedFunctions for XeFunctions<'_, '_, B> {
    fn send(&mut self, thread: &mut Thread, req: &SendRequest) -> Result<(), SendError> {
        let slm = (!self.slm.is_empty()).then_some(self.slm.as_mut_slice());
        let mut env = XeEnv {
            memory: &mut self.memory,
            state: self.state,
            slm,
            gateway: &mut self.gateway,
            slot: 0,
        };
        xe::serve(&mut env, thread, req)
    }
}

impl<B: MemoryBus> ComputeFunctions for XeFunctions<'_, '_, B> {
    fn begin_group(&mut self, _group: [u32; 3], slm_bytes: u32) {
        self.slm = vec![0; slm_bytes as usize];
    }
}
