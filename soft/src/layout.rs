//! Where things are in each generation's MMIO BAR, and the engine bits
//! the model needs: read from the hal's device description
//! (`hal/tables/<gen>/device.toml`), plus what only the model chooses
//! (the PCI device ID it reports).

use baregpu_hal::Generation;
use baregpu_hal::device::{self, Device, Forcewake};

pub use baregpu_hal::device::{GfxMode, IrqRegs};

/// One command streamer: the description's entry (name, base, ring and status-page
/// registers, interrupt and reset bits).
pub type EngineLayout = baregpu_hal::device::EngineDesc;

/// How engines are reset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reset {
    /// Gen6/Gen7: the MMIO register GDRST, one bit per engine.
    Gdrst,
    /// Gen4/G45: GDRST in PCI configuration space: bits 3:2 the domain
    /// (0 full, 1 render, 3 media), bit 0 starts the reset and reads 1 until it is done.
    PciConfig,
}

/// PP_DIR_BASE: page directory offset in the GGTT, bits 30:16 in cachelines (003 lines 9508-9567).
pub const PP_DIR_BASE: u32 = baregpu_hal::gen6::regs::PP_DIR_BASE.relative_offset();
/// GFX_MODE bit 9: PPGTT enable.
pub const PPGTT_ENABLE: u32 = 1 << 9;

/// The BAR layout of a generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub generation: Generation,
    /// The description everything below is read from.
    pub device: &'static Device,
    /// Where PPGTT is enabled; `None` where the model has no PPGTT (Gen4/G45).
    pub gfx_mode: Option<GfxMode>,
    /// Offset of the GTT alias in the BAR (registers below it).
    pub gtt_offset: u32,
    /// GGTT entries (4 KiB pages).
    pub gtt_entries: u32,
    /// Size of the MMIO BAR.
    pub bar_size: u32,
    pub engines: &'static [EngineLayout],
    pub irq: IrqRegs,
    pub reset: Reset,
    /// Gen6/Gen7: the GT sleeps unless forcewake is held.
    pub forcewake: bool,
    /// Gen6/Gen7: each ring has its own IMR (`EngineLayout::imr`) in front of the GT one.
    pub ring_imr: bool,
    /// Gen4 (965): HWS_PGA holds a physical address (bits 35:32 in 7:4), not a GTT one.
    pub hwsp_physical: bool,
    /// Gen4/G45: commands may address memory physically (their GTT bit clear).
    pub physical_addressing: bool,
    /// The PCI device ID the model reports.
    pub device_id: u16,
    /// EIR bit of a page-table error.
    pub page_fault_eir_bit: u32,
}

impl Layout {
    /// The layout of a generation the model supports (one its tables describe).
    pub fn of(generation: Generation) -> Option<Layout> {
        let d = device::of(generation)?;
        // The PCI device IDs the model reports: 965G, G45, SNB GT1 desktop, IVB GT1 desktop.
        let device_id = match generation {
            Generation::Gen4 => 0x29a2,
            Generation::G45 => 0x2e22,
            Generation::Gen6 => 0x0102,
            Generation::Gen7 => 0x0162,
            Generation::Gen12_5 => return None,
        };
        Some(Layout {
            generation,
            device: d,
            gfx_mode: d.gt.gfx_mode,
            gtt_offset: d.gtt.alias_offset,
            gtt_entries: d.gtt.entries,
            bar_size: d.gtt.bar_size,
            engines: d.engines,
            irq: d.gt.irq,
            reset: match d.gt.reset {
                device::Reset::Gdrst { .. } => Reset::Gdrst,
                device::Reset::PciConfig { .. } => Reset::PciConfig,
            },
            forcewake: d.gt.forcewake != Forcewake::None,
            ring_imr: d.gt.ring_imr,
            hwsp_physical: d.gt.hwsp_physical,
            physical_addressing: d.gt.physical_addressing,
            device_id,
            page_fault_eir_bit: d.gt.page_fault_eir_bit,
        })
    }

    /// The engine whose ring registers contain `offset`.
    pub fn engine_at(&self, offset: u32) -> Option<(usize, u32)> {
        self.engines
            .iter()
            .position(|e| offset >= e.base && offset < e.base + 0x1000)
            .map(|i| (i, offset - self.engines[i].base))
    }
}
