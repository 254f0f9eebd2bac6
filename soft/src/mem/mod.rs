//! Graphics memory and its address translation: the global GTT (`gtt`),
//! an engine's PPGTT walk, physical access on the device's memory bus
//! ([`Memory`]), and the EU array's view of it (`view`).
//!
//! The command streamers, the blitter and the media unit all reach memory
//! through a [`Memory`] and an address [`Space`]; a failed translation or
//! bus access is a [`Fault`], which each caller turns into its own error
//! (the streamer into a page fault of the engine).

pub(crate) mod bus;
pub(crate) mod gtt;
pub(crate) mod view;

use baregpu_hal::MemoryBus;

use crate::layout;
use crate::regfile::RegFile;
use gtt::Ggtt;

/// Which address space an access goes through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Space {
    #[default]
    Ggtt,
    /// The engine's per-process GTT (page directory at PP_DIR_BASE).
    Ppgtt,
    /// Physical memory, untranslated (Gen4/G45 commands without their GTT bit).
    Physical,
}

/// An access through an invalid GTT entry or to missing memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    pub gfx_addr: u64,
    /// The access went through the GGTT (false: the PPGTT or physical).
    pub ggtt: bool,
}

/// Graphics memory as one engine reaches it: the bus, the GGTT, and the
/// engine's PPGTT directory register (read at each walk, as the registers
/// may change between two accesses).
pub(crate) struct Memory<'a, B: MemoryBus> {
    pub bus: &'a B,
    pub gtt: &'a Ggtt,
    regs: &'a RegFile,
    /// Offset of the engine's PP_DIR_BASE register.
    pp_dir_base: u32,
}

// By hand: a derive would ask `B: Copy`, and only references are copied.
impl<B: MemoryBus> Clone for Memory<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B: MemoryBus> Copy for Memory<'_, B> {}

impl<'a, B: MemoryBus> Memory<'a, B> {
    /// The memory of the engine whose registers start at `engine_base`.
    pub fn new(bus: &'a B, gtt: &'a Ggtt, regs: &'a RegFile, engine_base: u32) -> Self {
        Memory {
            bus,
            gtt,
            regs,
            pp_dir_base: engine_base + layout::PP_DIR_BASE,
        }
    }

    /// Physical address of `gfx` in `space` (the PPGTT walk is in
    /// [`Self::ppgtt_pte_address`]; physical space is the identity).
    pub fn translate(&self, space: Space, gfx: u64) -> Result<u64, Fault> {
        let fault = Fault {
            gfx_addr: gfx,
            ggtt: space == Space::Ggtt,
        };
        match space {
            Space::Physical => Ok(gfx),
            Space::Ggtt => self.gtt.translate(gfx).map_err(|_| fault),
            Space::Ppgtt => {
                let pte_addr = self.ppgtt_pte_address(gfx)?;
                let pte = self.bus.read_u32(pte_addr).map_err(|_| fault)?;
                if pte & 1 == 0 {
                    return Err(fault);
                }
                Ok(gtt::entry_address(pte) | (gfx & 0xfff))
            }
        }
    }

    /// Physical address of the PPGTT entry of `gfx`: PDEs are GGTT entries
    /// from PP_DIR_BASE (a cacheline offset in bits 30:16), each pointing to
    /// a page table of 1024 PTEs (003 lines 6964-7169).
    pub fn ppgtt_pte_address(&self, gfx: u64) -> Result<u64, Fault> {
        let fault = Fault {
            gfx_addr: gfx,
            ggtt: false,
        };
        let pd_cachelines = (self.regs.get(self.pp_dir_base) >> 16) & 0x7fff;
        let pd_entry = pd_cachelines * 64 / 4;
        if gfx >> 32 != 0 {
            return Err(fault);
        }
        let pde = self.gtt.read_entry(pd_entry + (gfx >> 22) as u32);
        if pde & 1 == 0 {
            return Err(fault);
        }
        Ok(gtt::entry_address(pde) + ((gfx >> 12) & 0x3ff) * 4)
    }

    pub fn read_u32(&self, space: Space, gfx: u64) -> Result<u32, Fault> {
        let phys = self.translate(space, gfx)?;
        let ggtt = space == Space::Ggtt;
        self.bus.read_u32(phys).map_err(|_| Fault {
            gfx_addr: gfx,
            ggtt,
        })
    }

    pub fn write_u32(&self, space: Space, gfx: u64, value: u32) -> Result<(), Fault> {
        let phys = self.translate(space, gfx)?;
        let ggtt = space == Space::Ggtt;
        self.bus.write_u32(phys, value).map_err(|_| Fault {
            gfx_addr: gfx,
            ggtt,
        })
    }
}
