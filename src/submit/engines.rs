//! What the driver needs to know about each generation's command
//! streamers and their surroundings (interrupts, reset, forcewake): read
//! from the hal's generated device description (`hal/tables/<gen>/device.toml`).

use alloc::vec::Vec;

use baregpu_hal::Generation;
use baregpu_hal::device;

pub use baregpu_hal::device::{
    ErrorRegs, Forcewake, GfxMode, IrqRegs, Reset as ResetMethod, RingRegs, WakeSequence,
};

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
    /// Its error-capture registers (absolute).
    pub errors: ErrorRegs,
    /// Its ring IMR (absolute), on generations whose rings have one.
    pub imr: Option<u32>,
    /// User interrupt bit in the interrupt registers (and the ring IMR on Gen6/Gen7).
    pub user_interrupt_bit: u32,
    /// Gen6/Gen7: its bit in GDRST. Gen4/G45: its reset domain (GRDOM).
    pub reset_bit: u32,
    /// It executes the XY_* blitter commands (the blitter ring on Gen6/Gen7,
    /// the render ring before).
    pub runs_blits: bool,
}

/// Everything generation-specific the submission layer needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    pub engines: Vec<EngineInfo>,
    pub irq: IrqRegs,
    pub forcewake: Forcewake,
    /// The steps around the forcewake request.
    pub wake: WakeSequence,
    /// The interrupt blocks and master enable.
    pub interrupts: &'static device::InterruptDesc,
    /// The engines as described (the interrupt handler reads their bits).
    pub engine_descs: &'static [device::EngineDesc],
    pub reset: ResetMethod,
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
                errors: e.errors,
                imr: e.imr,
                user_interrupt_bit: e.user_interrupt_bit,
                reset_bit: e.reset_bit,
                runs_blits: e.runs("blitter"),
            })
            .collect(),
        irq: d.gt.irq,
        forcewake: d.gt.forcewake,
        wake: d.gt.wake,
        interrupts: &d.interrupts,
        engine_descs: d.engines,
        reset: d.gt.reset,
        hwsp_physical: d.gt.hwsp_physical,
        gfx_mode: d.gt.gfx_mode,
    })
}
