//! The logical ring context image: page 0 the per-process hardware status
//! page, page 1 the register state (i915 gt/intel_lrc.h LRC_PPHWSP_PN 0,
//! LRC_STATE_PN 1), and the context descriptor that names it.
//!
//! The register state is the list i915 writes for a Gen12 non-render engine
//! (gt/intel_lrc.c gen12_xcs_offsets, expanded by set_offsets: MI_NOOP,
//! MI_LOAD_REGISTER_IMM of 13 pairs with the engine-relative offsets, five
//! MI_NOOPs, MI_LOAD_REGISTER_IMM of 9 pairs), so that each value lands in
//! its slot of gt/intel_lrc_reg.h: CTX_CONTEXT_CONTROL dword 3, CTX_RING_HEAD
//! 5, CTX_RING_TAIL 7, CTX_RING_START 9, CTX_RING_CTL 11, CTX_BB_STATE 17,
//! CTX_PDP0_UDW 0x31, CTX_PDP0_LDW 0x33. The render engine's longer list
//! begins the same way; the driver writes this one for every engine.

use super::regs::EngineRegs;

/// State-page dwords of the values the driver rewrites.
pub const CTX_RING_HEAD: usize = 0x05;
pub const CTX_RING_TAIL: usize = 0x07;
const CTX_CONTEXT_CONTROL: usize = 0x03;
const CTX_RING_START: usize = 0x09;
const CTX_RING_CTL: usize = 0x0b;
const CTX_PDP0_UDW: usize = 0x31;
const CTX_PDP0_LDW: usize = 0x33;
/// Dwords the two lists take.
pub const STATE_DWORDS: usize = 0x34;

/// MI_LOAD_REGISTER_IMM with MI_LRI_CS_MMIO (bit 19: offsets relative to the
/// engine, set by i915 on Gen11+ images) and MI_LRI_FORCE_POSTED (bit 12),
/// as set_offsets writes it; DWord Length = 2 x pairs - 1.
fn lri(pairs: u32) -> u32 {
    baregpu_hal::gen12_5::commands::MiLoadRegisterImm::HEADER_VALUE
        | 1 << 19
        | 1 << 12
        | (2 * pairs - 1)
}

/// CONTEXT_CONTROL: CTX_CTRL_INHIBIT_SYN_CTX_SWITCH (bit 3) set and
/// CTX_CTRL_ENGINE_CTX_RESTORE_INHIBIT (bit 0) clear, masked (i915
/// intel_lrc.c init_common_regs).
const CONTEXT_CONTROL: u32 = (1 << 3 | 1) << 16 | 1 << 3;
/// RING_CTL: RING_CTL_SIZE(size) = size - 4096, RING_VALID bit 0
/// (i915 gt/intel_engine_regs.h; intel_lrc.c init_common_regs).
fn ring_ctl(ring_bytes: u32) -> u32 {
    (ring_bytes - 4096) | 1
}

/// The register state of a new context on the engine at `base`: its ring at
/// `ring_gfx` (GGTT) of `ring_bytes`, its PPGTT's PML4 at `pml4`.
pub fn state(
    r: &EngineRegs,
    base: u32,
    ring_gfx: u32,
    ring_bytes: u32,
    pml4: u64,
) -> [u32; STATE_DWORDS] {
    let mut s = [0u32; STATE_DWORDS];
    // gen12_xcs_offsets' first list: CONTEXT_CONTROL (0x244), RING_HEAD,
    // RING_TAIL, RING_START, RING_CTL, BB_ADDR_UDW (0x168), BB_ADDR (0x140),
    // BB_STATE (0x110), BB_PER_CTX_PTR (0x1c0), INDIRECT_CTX (0x1c4),
    // INDIRECT_CTX_OFFSET (0x1c8), CCID (0x180), 0x2b4; values zero unless set below.
    let first: [u32; 13] = [
        0x244,
        r.head,
        r.tail,
        r.start,
        r.ctl,
        r.bbaddr_udw,
        r.bbaddr,
        r.bb_state,
        0x1c0,
        0x1c4,
        0x1c8,
        0x180,
        0x2b4,
    ];
    s[1] = lri(first.len() as u32);
    for (k, reg) in first.iter().enumerate() {
        s[2 + 2 * k] = base + reg;
    }
    s[CTX_CONTEXT_CONTROL] = CONTEXT_CONTROL;
    s[CTX_RING_START] = ring_gfx;
    s[CTX_RING_CTL] = ring_ctl(ring_bytes);
    // Five MI_NOOPs (0x1c-0x20), then the second list at 0x21:
    // CTX_TIMESTAMP (0x3a8) and the PDPs 3..0, upper then lower
    // (GEN8_RING_PDP_UDW/LDW(base, n) = base + 0x270 + 8 n (+ 4)).
    s[0x21] = lri(9);
    s[0x22] = base + r.ctx_timestamp;
    for n in 0..4u32 {
        let k = 0x24 + 4 * (3 - n) as usize;
        s[k] = base + 0x270 + 8 * n + 4;
        s[k + 2] = base + 0x270 + 8 * n;
    }
    // A 48-bit context: PDP0 holds the PML4 (ASSIGN_CTX_PML4).
    s[CTX_PDP0_UDW] = (pml4 >> 32) as u32;
    s[CTX_PDP0_LDW] = pml4 as u32;
    s
}

/// The context descriptor (Linux Xe xe_lrc.c: LRC_VALID bit 0,
/// LRC_ADDRESSING_MODE 4:3 = LRC_LEGACY_64B_CONTEXT 3, LRC_PRIVILEGE bit 8,
/// the context's GGTT address in 31:12; xe_execlist.c XEHP_SW_CTX_ID 54:39
/// from graphics 12.50; i915 intel_lrc.c lrc_descriptor).
pub fn descriptor(lrca: u64, sw_id: u32) -> u64 {
    (lrca & 0xffff_f000) | 1 | 3 << 3 | 1 << 8 | u64::from(sw_id & 0xffff) << 39
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regs() -> EngineRegs {
        EngineRegs::resolve(baregpu_hal::Generation::Gen12_5.tables()).unwrap()
    }

    /// The values land in intel_lrc_reg.h's slots, each after its register's offset.
    #[test]
    fn the_image_puts_each_value_in_its_intel_lrc_reg_slot() {
        let r = regs();
        let base = 0x2000;
        let s = state(&r, base, 0x12_3000, 16 << 10, 0x0000_0042_1234_5000);
        assert_eq!(s[0], 0, "MI_NOOP");
        assert_eq!(s[1] >> 23, 0x22, "MI_LOAD_REGISTER_IMM");
        assert_eq!(s[1] & 0xff, 25, "13 pairs");
        for (slot, reg) in [
            (CTX_RING_HEAD, r.head),
            (CTX_RING_TAIL, r.tail),
            (CTX_RING_START, r.start),
            (CTX_RING_CTL, r.ctl),
            (0x11, r.bb_state),
            (CTX_PDP0_UDW, 0x274),
            (CTX_PDP0_LDW, 0x270),
        ] {
            assert_eq!(s[slot - 1], base + reg, "slot {slot:#x}");
        }
        assert_eq!(s[CTX_RING_START], 0x12_3000);
        assert_eq!(
            s[CTX_RING_CTL],
            (12 << 10) | 1,
            "RING_CTL_SIZE(16 KiB) | RING_VALID"
        );
        assert_eq!((s[CTX_PDP0_UDW], s[CTX_PDP0_LDW]), (0x42, 0x1234_5000));
        assert_eq!(s[0x21] & 0xff, 17, "the second list: 9 pairs");
        assert!(s[0x1c..0x21].iter().all(|&d| d == 0), "five MI_NOOPs");
    }

    #[test]
    fn the_descriptor_has_valid_legacy_64_bit_privilege_and_the_id() {
        let d = descriptor(0x7_5000, 9);
        assert_eq!(d & 0xffff_ffff, 0x7_5000 | 1 | 3 << 3 | 1 << 8);
        assert_eq!(d >> 39, 9);
    }
}
