//! The Gen12.5 register offsets the model acts on, looked up by name in the
//! hal's gen12.5 register tables once, when the device is built (a renamed
//! register fails construction, not a read at run time). Engine registers
//! are relative to the engine's MMIO base.

use baregpu_hal::reflect::GenTables;

use super::irq::IrqRegs;

/// Engine-relative offsets.
#[derive(Clone, Copy, Debug)]
pub struct EngineRegs {
    pub tail: u32,
    pub head: u32,
    pub start: u32,
    pub ctl: u32,
    pub acthd: u32,
    pub acthd_udw: u32,
    pub ipeir: u32,
    pub ipehr: u32,
    pub hws_pga: u32,
    pub nopid: u32,
    pub mi_mode: u32,
    pub imr: u32,
    pub eir: u32,
    pub emr: u32,
    pub esr: u32,
    pub reset_ctl: u32,
    pub bbaddr: u32,
    pub bbaddr_udw: u32,
    pub execlist_status_hi: u32,
    pub timestamp: u32,
    pub csb_ptr: u32,
    pub ring_mode: u32,
    pub sq_contents: u32,
    pub execlist_control: u32,
    /// CS_GPR0, the first of 16 64-bit general purpose registers.
    pub gpr: u32,
}

/// GT-level offsets (absolute).
#[derive(Clone, Copy, Debug)]
pub struct GtRegs {
    pub gdrst: u32,
    pub fault: u32,
    pub fault_data0: u32,
    pub fault_data1: u32,
    pub rcu_mode: u32,
    pub irq: IrqRegs,
    /// Forcewake request registers (masked) and their acknowledges.
    pub forcewake: [(u32, u32); 2],
}

/// The name of the first register the tables lack.
pub type Missing = &'static str;

fn offset(t: &GenTables, name: &'static str) -> Result<u32, Missing> {
    t.register(name).map(|r| r.offset).ok_or(name)
}

impl EngineRegs {
    pub fn resolve(t: &GenTables) -> Result<Self, Missing> {
        let o = |n| offset(t, n);
        Ok(Self {
            tail: o("RING_TAIL")?,
            head: o("RING_HEAD")?,
            start: o("RING_START")?,
            ctl: o("RING_CTL")?,
            acthd: o("RING_ACTHD")?,
            acthd_udw: o("RING_ACTHD_UDW")?,
            ipeir: o("RING_IPEIR")?,
            ipehr: o("RING_IPEHR")?,
            hws_pga: o("RING_HWS_PGA")?,
            nopid: o("RING_NOPID")?,
            mi_mode: o("RING_MI_MODE")?,
            imr: o("RING_IMR")?,
            eir: o("RING_EIR")?,
            emr: o("RING_EMR")?,
            esr: o("RING_ESR")?,
            reset_ctl: o("RING_RESET_CTL")?,
            bbaddr: o("RING_BBADDR")?,
            bbaddr_udw: o("RING_BBADDR_UDW")?,
            execlist_status_hi: o("RING_EXECLIST_STATUS_HI")?,
            timestamp: o("RING_TIMESTAMP")?,
            csb_ptr: o("RING_CONTEXT_STATUS_PTR")?,
            ring_mode: o("RING_MODE_GEN7")?,
            sq_contents: o("RING_EXECLIST_SQ_CONTENTS")?,
            execlist_control: o("RING_EXECLIST_CONTROL")?,
            gpr: o("GEN8_RING_CS_GPR")?,
        })
    }
}

impl GtRegs {
    pub fn resolve(t: &GenTables) -> Result<Self, Missing> {
        let o = |n| offset(t, n);
        Ok(Self {
            gdrst: o("GEN6_GDRST")?,
            fault: o("GEN12_RING_FAULT_REG")?,
            fault_data0: o("GEN12_FAULT_TLB_DATA0")?,
            fault_data1: o("GEN12_FAULT_TLB_DATA1")?,
            rcu_mode: o("GEN12_RCU_MODE")?,
            irq: IrqRegs {
                tile: o("DG1_MSTR_TILE_INTR")?,
                master: o("GEN11_GFX_MSTR_IRQ")?,
                dw: [o("GEN11_GT_INTR_DW0")?, o("GEN11_GT_INTR_DW1")?],
                selector: [o("GEN11_IIR_REG_SELECTOR0")?, o("GEN11_IIR_REG_SELECTOR1")?],
                identity: [
                    o("GEN11_INTR_IDENTITY_REG0")?,
                    o("GEN11_INTR_IDENTITY_REG1")?,
                ],
            },
            forcewake: [
                (o("FORCEWAKE_RENDER_GEN9")?, o("FORCEWAKE_ACK_RENDER_GEN9")?),
                (o("FORCEWAKE_GT_GEN9")?, o("FORCEWAKE_ACK_GT_GEN9")?),
            ],
        })
    }
}
