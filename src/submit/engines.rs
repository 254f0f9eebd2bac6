//! What the driver needs to know about each generation's command
//! streamers, read from the hal's typed registers where they exist.

use baregpu_hal::{Generation, gen6, gen7};

/// One command streamer as the submission layer drives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineInfo {
    /// Name in the hal tables.
    pub name: &'static str,
    /// MMIO base of its ring registers.
    pub base: u32,
    /// Absolute offset of its HWS_PGA register.
    pub hws_pga: u32,
    /// User interrupt bit in GTIIR/GTIMR and the ring IMR.
    pub user_interrupt_bit: u32,
    /// Its bit in GDRST.
    pub reset_bit: u32,
}

/// Ring register offsets relative to the engine base (SNB 003 lines 11504-11697; the same on every
/// generation here).
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

/// The engines the driver submits to on `generation`, or `None` when the
/// submission layer does not cover it yet.
pub fn engines(generation: Generation) -> Option<[EngineInfo; 3]> {
    use gen6::Engine as E6;
    // GT interrupt bits (SNB 003 lines 55316-55700): render 0, video 12, blitter 22. GDRST bits from
    // Linux GEN6_GRDOM_RENDER/MEDIA/BLT (1, 2, 3).
    let (render_hws, video_hws, blitter_hws) = match generation {
        Generation::Gen6 => (
            gen6::regs::HWS_PGA.at(E6::Render).offset(),
            gen6::regs::VCS_HWS_PGA.offset(),
            gen6::regs::HWS_PGA.at(E6::Blitter).offset(),
        ),
        Generation::Gen7 => (
            gen7::regs::HWS_PGA.offset(),
            gen7::regs::VCS_HWS_PGA.offset(),
            gen7::regs::BCS_HWS_PGA.offset(),
        ),
        _ => return None,
    };
    Some([
        EngineInfo {
            name: "render",
            base: E6::Render.base_offset(),
            hws_pga: render_hws,
            user_interrupt_bit: 0,
            reset_bit: 1,
        },
        EngineInfo {
            name: "video",
            base: E6::Video.base_offset(),
            hws_pga: video_hws,
            user_interrupt_bit: 12,
            reset_bit: 2,
        },
        EngineInfo {
            name: "blitter",
            base: E6::Blitter.base_offset(),
            hws_pga: blitter_hws,
            user_interrupt_bit: 22,
            reset_bit: 3,
        },
    ])
}
