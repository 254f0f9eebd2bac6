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
    /// Bit of the user interrupt in the interrupt registers.
    pub user_interrupt_bit: u32,
    /// Bit of the command streamer (master) error.
    pub error_bit: u32,
    /// Bit of the MI_FLUSH_DW / PIPE_CONTROL notify interrupt.
    pub notify_bit: u32,
    /// Gen6/Gen7: its bit in GDRST. Gen4/G45: its reset domain (GRDOM, bits 3:2
    /// of the configuration-space GDRST).
    pub reset_bit: u32,
}

/// Where the interrupt registers are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IrqRegs {
    pub isr: u32,
    pub imr: u32,
    pub iir: u32,
    pub ier: u32,
}

/// Gen6/Gen7 GT interrupt registers (SNB 003 lines 55316-55700).
const GT_IRQ: IrqRegs = IrqRegs {
    isr: GTISR,
    imr: GTIMR,
    iir: GTIIR,
    ier: GTIER,
};

/// Gen4/G45 interrupt registers: IER 0x20a0, IIR 0x20a4, IMR 0x20a8, ISR 0x20ac
/// (hal/tables/gen4/registers.toml, from Linux i915_reg.h).
const I965_IRQ: IrqRegs = IrqRegs {
    isr: 0x20ac,
    imr: 0x20a8,
    iir: 0x20a4,
    ier: 0x20a0,
};

/// How engines are reset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reset {
    /// Gen6/Gen7: the MMIO register GDRST, one bit per engine.
    Gdrst,
    /// Gen4/G45: GDRST at 0xc0 in PCI configuration space: bits 3:2 the domain
    /// (0 full, 1 render, 3 media), bit 0 starts the reset and reads 1 until it is
    /// done (Linux i915 I965_GDRST, GRDOM_*, i965_do_reset / g4x_do_reset).
    PciConfig,
}

/// GDRST's offset in configuration space on Gen4/G45.
pub const CONFIG_GDRST: u16 = 0xc0;

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
    /// Gen6/Gen7: each ring has its own IMR at base + 0xa8 in front of the GT one.
    pub ring_imr: bool,
    /// Gen4 (965): HWS_PGA holds a physical address (bits 35:32 in 7:4), not a GTT one.
    pub hwsp_physical: bool,
    /// Gen4/G45: commands may address memory physically (their GTT bit clear).
    pub physical_addressing: bool,
    /// The PCI device ID the model reports.
    pub device_id: u16,
    /// EIR bit of a page-table error: 4 on 965 and Gen6/Gen7, 5 on G4x
    /// (hal/tables/g45/registers.toml EIR).
    pub page_fault_eir_bit: u32,
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

/// Gen4: the render engine only; blits run on it too (the gen4 tables put
/// the XY_* commands on "render"). User interrupt bit 1, master error 15,
/// PIPE_CONTROL notify 18 (hal/tables/gen4/registers.toml IER); HWS_PGA 0x2080.
const GEN4_RENDER: EngineLayout = EngineLayout {
    name: "render",
    base: 0x2000,
    hws_pga: 0x2080,
    user_interrupt_bit: 1,
    error_bit: 15,
    notify_bit: 18,
    reset_bit: 1,
};
const GEN4_ENGINES: &[EngineLayout] = &[GEN4_RENDER];

/// G45 adds the BSD (video) ring at 0x4000 (hal/tables/g45/generation.toml),
/// user interrupt bit 25 (Linux I915_BSD_USER_INTERRUPT), reset in the media
/// domain (GRDOM_MEDIA = 3). The sources give it no error or notify bit of its
/// own: the model reports its errors on the master error bit.
const G45_ENGINES: &[EngineLayout] = &[
    GEN4_RENDER,
    EngineLayout {
        name: "video",
        base: 0x4000,
        hws_pga: 0x4080,
        user_interrupt_bit: 25,
        error_bit: 15,
        notify_bit: 25,
        reset_bit: 3,
    },
];

impl Layout {
    /// The layout of a generation the model supports.
    pub fn of(generation: Generation) -> Option<Layout> {
        // Gen6/Gen7: registers in the first 2 MiB of BAR0, the GTT alias in the next 2 MiB
        // (Linux intel-gtt.c: gtt_offset = MB(2) for gen 5-7); 512 Ki entries map 2 GiB.
        let gen6 = Layout {
            generation,
            gtt_offset: 2 << 20,
            gtt_entries: 512 << 10,
            bar_size: 4 << 20,
            gfx_mode: Some(GfxMode::Global(0x2520)),
            engines: GEN6_ENGINES,
            irq: GT_IRQ,
            reset: Reset::Gdrst,
            forcewake: true,
            ring_imr: true,
            hwsp_physical: false,
            physical_addressing: false,
            device_id: 0x0102,
            page_fault_eir_bit: 4,
        };
        // Gen4 (965): the GTT alias at BAR0 + 512 KiB (Linux intel-gtt.c i9xx_setup, "gen 4"),
        // 512 KiB of entries by default (PGETBL_CTL size 0: 128 Ki entries, 512 MiB).
        let gen4 = Layout {
            generation,
            gtt_offset: 512 << 10,
            gtt_entries: 128 << 10,
            bar_size: 1 << 20,
            gfx_mode: None,
            engines: GEN4_ENGINES,
            irq: I965_IRQ,
            reset: Reset::PciConfig,
            forcewake: false,
            ring_imr: false,
            hwsp_physical: true,
            physical_addressing: true,
            device_id: 0x29a2,
            page_fault_eir_bit: 4,
        };
        match generation {
            Generation::Gen4 => Some(gen4),
            // G45: intel-gtt's g4x driver counts as "gen 5" there, so the alias is at
            // BAR0 + 2 MiB; GMCH_CTRL GGMS 1 MiB (the smallest G4x GTT) gives 256 Ki entries.
            Generation::G45 => Some(Layout {
                gtt_offset: 2 << 20,
                gtt_entries: 256 << 10,
                bar_size: 4 << 20,
                engines: G45_ENGINES,
                hwsp_physical: false,
                device_id: 0x2e22,
                page_fault_eir_bit: 5,
                ..gen4
            }),
            Generation::Gen6 => Some(gen6),
            Generation::Gen7 => Some(Layout {
                gfx_mode: Some(GfxMode::PerEngine(0x29c)),
                engines: GEN7_ENGINES,
                device_id: 0x0162,
                ..gen6
            }),
            Generation::Gen12_5 => None,
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
