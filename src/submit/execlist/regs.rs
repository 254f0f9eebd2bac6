//! The Gen12.5 registers the execlist backend programs, looked up by name in
//! the hal's gen12.5 register tables once, at bring-up (engine registers
//! relative to the engine's MMIO base). Each name is Linux i915's
//! (gt/intel_engine_regs.h, gt/intel_gt_regs.h), cited in the tables.

use baregpu_hal::reflect::GenTables;

use crate::submit::GpuError;

/// Engine-relative offsets.
#[derive(Clone, Copy, Debug)]
pub struct EngineRegs {
    pub head: u32,
    pub tail: u32,
    pub start: u32,
    pub ctl: u32,
    pub acthd: u32,
    pub acthd_udw: u32,
    pub bbaddr: u32,
    pub bbaddr_udw: u32,
    pub ipeir: u32,
    pub instdone: u32,
    pub emr: u32,
    pub ipehr: u32,
    pub eir: u32,
    pub esr: u32,
    pub imr: u32,
    pub hws_pga: u32,
    pub mi_mode: u32,
    pub ring_mode: u32,
    pub reset_ctl: u32,
    pub sq_contents: u32,
    pub execlist_control: u32,
    pub ctx_timestamp: u32,
    pub bb_state: u32,
}

/// GT offsets (absolute).
#[derive(Clone, Copy, Debug)]
pub struct GtRegs {
    pub gdrst: u32,
    pub fault: u32,
    pub fault_data0: u32,
    pub fault_data1: u32,
    pub rcu_mode: u32,
    /// Forcewake request and acknowledge: render, then GT.
    pub forcewake: [(u32, u32); 2],
    pub tile_irq: u32,
    pub master_irq: u32,
    pub intr_dw0: u32,
    pub selector0: u32,
    pub identity0: u32,
    pub render_copy_enable: u32,
    pub ccs_enable: u32,
    pub rcs_mask: u32,
    pub bcs_mask: u32,
    pub ccs_mask: u32,
}

fn offset(t: &GenTables, name: &'static str) -> Result<u32, GpuError> {
    t.register(name)
        .map(|r| r.offset)
        .ok_or(GpuError::BringUp(name))
}

impl EngineRegs {
    pub fn resolve(t: &GenTables) -> Result<Self, GpuError> {
        let o = |n| offset(t, n);
        Ok(Self {
            head: o("RING_HEAD")?,
            tail: o("RING_TAIL")?,
            start: o("RING_START")?,
            ctl: o("RING_CTL")?,
            acthd: o("RING_ACTHD")?,
            acthd_udw: o("RING_ACTHD_UDW")?,
            bbaddr: o("RING_BBADDR")?,
            bbaddr_udw: o("RING_BBADDR_UDW")?,
            ipeir: o("RING_IPEIR")?,
            instdone: o("RING_INSTDONE")?,
            emr: o("RING_EMR")?,
            ipehr: o("RING_IPEHR")?,
            eir: o("RING_EIR")?,
            esr: o("RING_ESR")?,
            imr: o("RING_IMR")?,
            hws_pga: o("RING_HWS_PGA")?,
            mi_mode: o("RING_MI_MODE")?,
            ring_mode: o("RING_MODE_GEN7")?,
            reset_ctl: o("RING_RESET_CTL")?,
            sq_contents: o("RING_EXECLIST_SQ_CONTENTS")?,
            execlist_control: o("RING_EXECLIST_CONTROL")?,
            ctx_timestamp: o("RING_CTX_TIMESTAMP")?,
            // RING_BB_STATE, base + 0x110 (i915 gt/intel_engine_regs.h; the
            // image slot CTX_BB_STATE of intel_lrc_reg.h).
            bb_state: 0x110,
        })
    }
}

impl GtRegs {
    pub fn resolve(t: &GenTables) -> Result<Self, GpuError> {
        let o = |n| offset(t, n);
        Ok(Self {
            gdrst: o("GEN6_GDRST")?,
            fault: o("GEN12_RING_FAULT_REG")?,
            fault_data0: o("GEN12_FAULT_TLB_DATA0")?,
            fault_data1: o("GEN12_FAULT_TLB_DATA1")?,
            rcu_mode: o("GEN12_RCU_MODE")?,
            forcewake: [
                (o("FORCEWAKE_RENDER_GEN9")?, o("FORCEWAKE_ACK_RENDER_GEN9")?),
                (o("FORCEWAKE_GT_GEN9")?, o("FORCEWAKE_ACK_GT_GEN9")?),
            ],
            tile_irq: o("DG1_MSTR_TILE_INTR")?,
            master_irq: o("GEN11_GFX_MSTR_IRQ")?,
            intr_dw0: o("GEN11_GT_INTR_DW0")?,
            selector0: o("GEN11_IIR_REG_SELECTOR0")?,
            identity0: o("GEN11_INTR_IDENTITY_REG0")?,
            render_copy_enable: o("GEN11_RENDER_COPY_INTR_ENABLE")?,
            ccs_enable: o("GEN12_CCS_RSVD_INTR_ENABLE")?,
            rcs_mask: o("GEN11_RCS0_RSVD_INTR_MASK")?,
            bcs_mask: o("GEN11_BCS_RSVD_INTR_MASK")?,
            ccs_mask: o("GEN12_CCS0_CCS1_INTR_MASK")?,
        })
    }
}
