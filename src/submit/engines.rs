//! What the driver needs to know about each generation's command
//! streamers and their surroundings (interrupts, reset, forcewake), read
//! from the hal's typed registers where they exist.

use alloc::vec::Vec;

use baregpu_hal::{Generation, g45, gen4, gen6, gen7};

/// One command streamer as the submission layer drives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineInfo {
    /// Name in the hal tables.
    pub name: &'static str,
    /// MMIO base of its ring registers.
    pub base: u32,
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

/// Ring register offsets relative to the engine base (SNB 003 lines 11504-11697; the same on every
/// generation here: the gen4 tables place IPEIR/IPEHR/INSTDONE/ACTHD at the same ring offsets).
pub mod ring {
    pub const TAIL: u32 = 0x30;
    pub const HEAD: u32 = 0x34;
    pub const START: u32 = 0x38;
    pub const CTL: u32 = 0x3c;
    pub const IPEIR: u32 = 0x64;
    pub const IPEHR: u32 = 0x68;
    pub const INSTDONE: u32 = 0x6c;
    pub const ACTHD: u32 = 0x74;
    pub const IMR: u32 = 0xa8;
    pub const EIR: u32 = 0xb0;
    pub const ESR: u32 = 0xb8;
    pub const BB_ADDR: u32 = 0x140;
}

/// Interrupt mask, identity and enable registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IrqRegs {
    pub imr: u32,
    pub iir: u32,
    pub ier: u32,
}

/// How the GT is kept awake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Forcewake {
    /// Gen4/G45 have no power wells to wake.
    None,
    /// Gen6: FORCEWAKE 0xa18c, acknowledged in FORCEWAKE_ACK 0x130090 (Linux i915_reg.h).
    Gen6,
    /// Gen7: the multi-threaded FORCEWAKE_MT 0xa188 (masked), ack 0x130040 (Linux i915_reg.h).
    Gen7,
}

/// How an engine is reset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResetMethod {
    /// Gen6/Gen7: MMIO GDRST 0x941c, one bit per engine (Linux GEN6_GDRST, GEN6_GRDOM_*).
    Gdrst,
    /// Gen4/G45: GDRST at 0xc0 in PCI configuration space; bits 3:2 the domain,
    /// bit 0 starts the reset and clears when it is done (Linux I965_GDRST,
    /// GRDOM_RENDER 1 / GRDOM_MEDIA 3, i965_do_reset / g4x_do_reset).
    PciConfig,
}

/// Where PPGTT is switched on (bit 9, masked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GfxMode {
    /// Gen6: one GFX_MODE at 0x2520 (SNB 003 lines 10136-10325).
    Global(u32),
    /// Gen7: RING_MODE_GEN7 at engine base + 0x29c (Linux i915_reg.h).
    PerEngine(u32),
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
    /// G4x and later a GTT address (Linux I915_NEED_GFX_HWS; hal/tables/gen4 HWS_PGA).
    pub hwsp_physical: bool,
    /// `None`: no PPGTT contexts on this generation (Linux keeps the Gen4 per-process GTT off).
    pub gfx_mode: Option<GfxMode>,
}

/// GT interrupt registers of Gen6/Gen7 (SNB 003 lines 55316-55700).
const GT_IRQ: IrqRegs = IrqRegs {
    imr: 0x44014,
    iir: 0x44018,
    ier: 0x4401c,
};

/// Gen4/G45 interrupt registers IER 0x20a0, IIR 0x20a4, IMR 0x20a8 (hal/tables/gen4/registers.toml).
const I965_IRQ: IrqRegs = IrqRegs {
    imr: 0x20a8,
    iir: 0x20a4,
    ier: 0x20a0,
};

/// The submission profile of `generation`, or `None` when the submission
/// layer does not cover it yet.
pub fn profile(generation: Generation) -> Option<Profile> {
    let engine = |name, base, hws_pga, user_interrupt_bit, reset_bit, runs_blits| EngineInfo {
        name,
        base,
        hws_pga,
        user_interrupt_bit,
        reset_bit,
        runs_blits,
    };
    match generation {
        Generation::Gen4 | Generation::G45 => {
            // Render: user interrupt bit 1, domain GRDOM_RENDER (1); the G4x BSD ring:
            // bit 25 (I915_BSD_USER_INTERRUPT), domain GRDOM_MEDIA (3).
            let render = gen4::Engine::Render;
            let mut engines = alloc::vec![engine(
                "render",
                render.base_offset(),
                gen4::regs::HWS_PGA.at(render).offset(),
                1,
                1,
                true,
            )];
            if generation == Generation::G45 {
                let video = g45::Engine::Video;
                engines.push(engine(
                    "video",
                    video.base_offset(),
                    g45::regs::HWS_PGA.at(video).offset(),
                    25,
                    3,
                    false,
                ));
            }
            Some(Profile {
                engines,
                irq: I965_IRQ,
                forcewake: Forcewake::None,
                reset: ResetMethod::PciConfig,
                ring_imr: false,
                hwsp_physical: generation == Generation::Gen4,
                gfx_mode: None,
            })
        }
        Generation::Gen6 | Generation::Gen7 => {
            use gen6::Engine as E6;
            // GT interrupt bits (SNB 003 lines 55316-55700): render 0, video 12, blitter 22. GDRST
            // bits from Linux GEN6_GRDOM_RENDER/MEDIA/BLT (1, 2, 3).
            let (render_hws, video_hws, blitter_hws, forcewake, gfx_mode) =
                if generation == Generation::Gen6 {
                    (
                        gen6::regs::HWS_PGA.at(E6::Render).offset(),
                        gen6::regs::VCS_HWS_PGA.offset(),
                        gen6::regs::HWS_PGA.at(E6::Blitter).offset(),
                        Forcewake::Gen6,
                        GfxMode::Global(0x2520),
                    )
                } else {
                    (
                        gen7::regs::HWS_PGA.offset(),
                        gen7::regs::VCS_HWS_PGA.offset(),
                        gen7::regs::BCS_HWS_PGA.offset(),
                        Forcewake::Gen7,
                        GfxMode::PerEngine(0x29c),
                    )
                };
            Some(Profile {
                engines: alloc::vec![
                    engine("render", E6::Render.base_offset(), render_hws, 0, 1, false),
                    engine("video", E6::Video.base_offset(), video_hws, 12, 2, false),
                    engine(
                        "blitter",
                        E6::Blitter.base_offset(),
                        blitter_hws,
                        22,
                        3,
                        true
                    ),
                ],
                irq: GT_IRQ,
                forcewake,
                reset: ResetMethod::Gdrst,
                ring_imr: true,
                hwsp_physical: false,
                gfx_mode: Some(gfx_mode),
            })
        }
        Generation::Gen12_5 => None,
    }
}
