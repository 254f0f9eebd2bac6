//! What the driver needs to know about each generation's command
//! streamers and their surroundings (interrupts, reset, forcewake): read
//! from the hal's generated device description (`hal/tables/<gen>/device.toml`).

use alloc::vec::Vec;

use baregpu_hal::Generation;
use baregpu_hal::device;

pub use baregpu_hal::device::{Forcewake, GfxMode, IrqRegs, Reset as ResetMethod, RingRegs};

/// One command streamer as the submission layer drives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineInfo {
    /// Name in the hal tables.
    pub name: &'static str,
    /// MMIO base of its ring registers.
    pub base: u32,
    /// Its ring registers (relative to `base`).
    pub ring: RingRegs,
    /// Absolute offset of its HWS_PGA register.
    pub hws_pga: u32,
    /// User interrupt bit in the interrupt registers (and the ring IMR on Gen6/Gen7).
    pub user_interrupt_bit: u32,
    /// Gen6/Gen7: its bit in GDRST. Gen4/G45: its reset domain (GRDOM).
    pub reset_bit: u32,
    /// It executes the XY_* blitter commands (the blitter ring on Gen6/Gen7,
    /// the render ring before).
    pub runs_blits: bool,
}

/// Ring register offsets relative to the engine base that the device description does not
/// carry. The hal's typed Gen6 registers where they are per engine (SNB 003 lines 12102-12295;
/// the gen4 tables place IPEIR/IPEHR/INSTDONE/ACTHD/EIR/ESR at the same ring offsets, the
/// Gen7 tables inherit them).
pub mod ring {
    use baregpu_hal::gen6::regs;

    pub const IPEIR: u32 = regs::IPEIR.relative_offset();
    pub const IPEHR: u32 = regs::IPEHR.relative_offset();
    pub const INSTDONE: u32 = regs::INSTDONE.relative_offset();
    pub const ACTHD: u32 = regs::ACTHD.relative_offset();
    pub const EIR: u32 = regs::EIR.relative_offset();
    pub const ESR: u32 = regs::ESR.relative_offset();
    /// The ring IMR: the gen6 tables list it per ring as absolute registers
    /// (IMR 0x20a8, VCS_IMR 0x120a8, BCS_IMR 0x220a8), all at base + 0xa8.
    pub const IMR: u32 = 0xa8;
    /// BB_ADDR: the gen6 tables list it per ring as absolute registers (BB_ADDR 0x140 is the
    /// render one relative to its base, VCS_BB_ADDR 0x12140, BCS_BB_ADDR 0x22140): base + 0x140.
    pub const BB_ADDR: u32 = 0x140;
}

/// Everything generation-specific the submission layer needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    pub engines: Vec<EngineInfo>,
    pub irq: IrqRegs,
    pub forcewake: Forcewake,
    pub reset: ResetMethod,
    /// Gen6/Gen7 rings have their own IMR (base + 0xa8) in front of the GT one.
    pub ring_imr: bool,
    /// The 965 wants a physical status page address in HWS_PGA (bits 35:32 in 7:4);
    /// G4x and later a GTT address.
    pub hwsp_physical: bool,
    /// `None`: no PPGTT contexts on this generation.
    pub gfx_mode: Option<GfxMode>,
}

/// The submission profile of `generation`, or `None` when the submission
/// layer does not cover it yet (its tables have no device description).
pub fn profile(generation: Generation) -> Option<Profile> {
    let d = device::of(generation)?;
    Some(Profile {
        engines: d
            .engines
            .iter()
            .map(|e| EngineInfo {
                name: e.name,
                base: e.base,
                ring: e.ring,
                hws_pga: e.hws_pga,
                user_interrupt_bit: e.user_interrupt_bit,
                reset_bit: e.reset_bit,
                runs_blits: e.runs("blitter"),
            })
            .collect(),
        irq: d.gt.irq,
        forcewake: d.gt.forcewake,
        reset: d.gt.reset,
        ring_imr: d.gt.ring_imr,
        hwsp_physical: d.gt.hwsp_physical,
        gfx_mode: d.gt.gfx_mode,
    })
}
