//! Where things are in each generation's MMIO BAR, and the engine bits
//! the model needs. Offsets come from the hal tables where they have them;
//! the rest is cited here.

use baregpu_hal::Generation;

/// One command streamer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineLayout {
    /// Engine name in the tables.
    pub name: &'static str,
    /// MMIO base of its ring registers (TAIL at +0x30, HEAD +0x34, START +0x38, CTL +0x3c:
    /// SNB 003 lines 11504-11697; the same offsets on every generation here).
    pub base: u32,
    /// Hardware status page address register.
    pub hws_pga: u32,
    /// Bit of the user interrupt in the GT (and ring) interrupt registers.
    pub user_interrupt_bit: u32,
    /// Bit of the command streamer master error.
    pub error_bit: u32,
    /// Bit of the MI_FLUSH_DW / PIPE_CONTROL notify interrupt.
    pub notify_bit: u32,
    /// Its bit in GDRST.
    pub reset_bit: u32,
}

/// Where the PPGTT enable (bit 9) lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GfxMode {
    /// One GFX_MODE register for all engines (Gen6: 0x2520, 003 lines 10136-10325).
    Global(u32),
    /// One per engine at engine base + offset (Gen7: RING_MODE_GEN7 0x29c, Linux i915_reg.h).
    PerEngine(u32),
}

/// PP_DIR_BASE: page directory offset in the GGTT, bits 30:16 in cachelines (003 lines 9508-9567).
pub const PP_DIR_BASE: u32 = 0x228;
/// GFX_MODE bit 9: PPGTT enable.
pub const PPGTT_ENABLE: u32 = 1 << 9;

/// The BAR layout of a generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub generation: Generation,
    pub gfx_mode: GfxMode,
    /// Offset of the GTT alias in the BAR (registers below it).
    pub gtt_offset: u32,
    /// GGTT entries (4 KiB pages).
    pub gtt_entries: u32,
    /// Size of the MMIO BAR.
    pub bar_size: u32,
    pub engines: &'static [EngineLayout],
}

pub const TAIL: u32 = 0x30;
pub const HEAD: u32 = 0x34;
pub const START: u32 = 0x38;
pub const CTL: u32 = 0x3c;
/// Per-engine error registers (SNB 003 lines 12102-12295; Linux RING_IPEIR/IPEHR/INSTDONE/ACTHD).
pub const IPEIR: u32 = 0x64;
pub const IPEHR: u32 = 0x68;
pub const ACTHD: u32 = 0x74;
pub const EIR: u32 = 0xb0;
pub const EMR: u32 = 0xb4;
pub const ESR: u32 = 0xb8;
/// BB_ADDR: address of the batch being executed (SNB 003 line 12298).
pub const BB_ADDR: u32 = 0x140;

/// GT interrupt registers (SNB 003 lines 55316-55700): ISR, IMR, IIR, IER.
pub const GTISR: u32 = 0x44010;
pub const GTIMR: u32 = 0x44014;
pub const GTIIR: u32 = 0x44018;
pub const GTIER: u32 = 0x4401c;
/// Reset (Linux i915_reg.h GEN6_GDRST 0x941c; bit 0 full, 1 render, 2 media, 3 blitter).
pub const GDRST: u32 = 0x941c;
/// Forcewake request and acknowledge (Linux i915_reg.h FORCEWAKE 0xa18c / FORCEWAKE_ACK 0x130090,
/// FORCEWAKE_MT 0xa188 / FORCEWAKE_MT_ACK 0x130040).
pub const FORCEWAKE: u32 = 0xa18c;
pub const FORCEWAKE_ACK: u32 = 0x130090;
pub const FORCEWAKE_MT: u32 = 0xa188;
pub const FORCEWAKE_MT_ACK: u32 = 0x130040;
/// GFX_FLSH_CNTL: a write flushes GTT updates (Linux GFX_FLSH_CNTL_GEN6 0x101008).
pub const GFX_FLSH_CNTL: u32 = 0x101008;

/// The three engines of Gen6 and Gen7, which differ only in where their
/// HWS_PGA registers are. Interrupt bits from the GT table (SNB 003 lines
/// 55316-55700): render 0/3/4, video 12/15/16, blitter 22/25/26; GDRST bits
/// 1/2/3 (Linux GEN6_GRDOM_RENDER/MEDIA/BLT).
const fn engines(hws_pga: [u32; 3]) -> [EngineLayout; 3] {
    const fn engine(
        name: &'static str,
        base: u32,
        hws_pga: u32,
        first_bit: u32,
        reset_bit: u32,
    ) -> EngineLayout {
        EngineLayout {
            name,
            base,
            hws_pga,
            user_interrupt_bit: first_bit,
            error_bit: first_bit + 3,
            notify_bit: first_bit + 4,
            reset_bit,
        }
    }
    [
        engine("render", 0x2000, hws_pga[0], 0, 1),
        engine("video", 0x12000, hws_pga[1], 12, 2),
        engine("blitter", 0x22000, hws_pga[2], 22, 3),
    ]
}

/// Gen6: HWS_PGA at engine base + 0x2080 (render 4080h line 9431, BCS 24080h line 23853; VCS
/// 0x14080 from Linux RING_HWS_PGA_GEN6, the manual's 04180h being the Gen7 location).
const GEN6_ENGINES: &[EngineLayout] = &engines([0x4080, 0x14080, 0x24080]);

/// Gen7: HWS_PGA moves to 0x4080/0x4180/0x4280 (Linux RENDER_HWS_PGA_GEN7, BSD_HWS_PGA_GEN7,
/// BLT_HWS_PGA_GEN7).
const GEN7_ENGINES: &[EngineLayout] = &engines([0x4080, 0x4180, 0x4280]);

impl Layout {
    /// The layout of a generation the model supports.
    pub fn of(generation: Generation) -> Option<Layout> {
        // Gen6/Gen7: registers in the first 2 MiB of BAR0, the GTT alias in the next 2 MiB
        // (Linux intel-gtt.c: gtt_offset = MB(2) for gen 5-7); 512 Ki entries map 2 GiB.
        match generation {
            Generation::Gen6 => Some(Layout {
                generation,
                gtt_offset: 2 << 20,
                gtt_entries: 512 << 10,
                bar_size: 4 << 20,
                gfx_mode: GfxMode::Global(0x2520),
                engines: GEN6_ENGINES,
            }),
            Generation::Gen7 => Some(Layout {
                generation,
                gtt_offset: 2 << 20,
                gtt_entries: 512 << 10,
                bar_size: 4 << 20,
                gfx_mode: GfxMode::PerEngine(0x29c),
                engines: GEN7_ENGINES,
            }),
            _ => None,
        }
    }

    /// The engine whose ring registers contain `offset`.
    pub fn engine_at(&self, offset: u32) -> Option<(usize, u32)> {
        self.engines
            .iter()
            .position(|e| offset >= e.base && offset < e.base + 0x1000)
            .map(|i| (i, offset - self.engines[i].base))
    }
}
