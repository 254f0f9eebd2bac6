//! The registers each generation needs to be driven (ring, interrupt,
//! error, GTT control, fence, forcewake, reset) and the commands the
//! submission and dispatch layers build are in the tables.

use baregpu_hal::reflect::GenTables;

struct Needs {
    generation: &'static str,
    /// (role, register names)
    registers: &'static [(&'static str, &'static [&'static str])],
    commands: &'static [&'static str],
}

const NEEDS: &[Needs] = &[
    Needs {
        generation: "gen4",
        registers: &[
            (
                "ring",
                &[
                    "RING_BUFFER_TAIL",
                    "RING_BUFFER_HEAD",
                    "RING_BUFFER_START",
                    "RING_BUFFER_CONTROL",
                    "HWS_PGA",
                ],
            ),
            ("interrupt", &["IER", "IIR", "IMR", "ISR", "HWSTAM"]),
            (
                "error",
                &[
                    "EIR",
                    "EMR",
                    "ESR",
                    "IPEIR_I965",
                    "IPEHR_I965",
                    "INSTDONE_I965",
                    "ACTHD_I965",
                ],
            ),
            ("gtt control", &["PGTBL_CTL", "PGTBL_ER"]),
            ("fence", &["FENCE_REG_965"]),
            // Gen4 has no forcewake; its reset (GDRST) is in PCI configuration space, not MMIO.
        ],
        commands: &[
            "MI_NOOP",
            "MI_BATCH_BUFFER_START",
            "MI_BATCH_BUFFER_END",
            "MI_STORE_DATA_INDEX",
            "MI_USER_INTERRUPT",
            "PIPELINE_SELECT",
            "STATE_BASE_ADDRESS",
            "MEDIA_STATE_POINTERS",
            "MEDIA_OBJECT",
            "PIPE_CONTROL",
        ],
    },
    Needs {
        generation: "g45",
        registers: &[
            (
                "ring",
                &[
                    "RING_BUFFER_TAIL",
                    "RING_BUFFER_HEAD",
                    "RING_BUFFER_START",
                    "RING_BUFFER_CONTROL",
                    "HWS_PGA",
                ],
            ),
            ("interrupt", &["IER", "IIR", "IMR", "ISR", "HWSTAM"]),
            (
                "error",
                &[
                    "EIR",
                    "EMR",
                    "ESR",
                    "IPEIR_I965",
                    "IPEHR_I965",
                    "INSTDONE_I965",
                    "ACTHD_I965",
                ],
            ),
            ("gtt control", &["PGTBL_CTL", "PGTBL_ER"]),
            ("fence", &["FENCE_REG_965"]),
            ("debug", &["TD_CTL", "EU_ATT", "ISC_CTL"]),
        ],
        commands: &[
            "MI_NOOP",
            "MI_BATCH_BUFFER_START",
            "MI_BATCH_BUFFER_END",
            "MI_STORE_DATA_INDEX",
            "MI_USER_INTERRUPT",
            "MI_UPDATE_GTT",
            "PIPELINE_SELECT",
            "STATE_BASE_ADDRESS",
            "MEDIA_STATE_POINTERS",
            "MEDIA_OBJECT",
        ],
    },
    Needs {
        generation: "gen6",
        registers: &[
            (
                "ring",
                &[
                    "RING_BUFFER_TAIL",
                    "RING_BUFFER_HEAD",
                    "RING_BUFFER_START",
                    "RING_BUFFER_CONTROL",
                    "HWS_PGA",
                    "VCS_HWS_PGA",
                ],
            ),
            (
                "interrupt",
                &["GTIER", "GTIIR", "GTIMR", "GTISR", "DEIER", "IMR", "HWSTAM"],
            ),
            (
                "error",
                &[
                    "EIR",
                    "EMR",
                    "ESR",
                    "IPEIR",
                    "IPEHR",
                    "INSTDONE",
                    "ACTHD",
                    "ERROR_GEN6",
                ],
            ),
            (
                "gtt control",
                &[
                    "GFX_FLSH_CNTL",
                    "PGTBL_ER",
                    "GFX_MODE",
                    "PP_DIR_BASE",
                    "PP_DCLV",
                ],
            ),
            ("fence", &["FENCE", "TILECTL", "ARB_MODE"]),
            (
                "forcewake",
                &[
                    "FORCEWAKE",
                    "FORCEWAKE_ACK",
                    "FORCEWAKE_MT",
                    "FORCEWAKE_MT_ACK",
                    "GTFIFODBG",
                ],
            ),
            ("reset", &["GDRST"]),
        ],
        commands: &[
            "MI_NOOP",
            "MI_BATCH_BUFFER_START",
            "MI_BATCH_BUFFER_END",
            "MI_STORE_DATA_INDEX",
            "MI_USER_INTERRUPT",
            "MI_FLUSH_DW",
            "MI_SET_CONTEXT",
            "MI_UPDATE_GTT",
            "PIPE_CONTROL",
            "PIPELINE_SELECT",
            "STATE_BASE_ADDRESS",
            "MEDIA_VFE_STATE",
            "MEDIA_CURBE_LOAD",
            "MEDIA_INTERFACE_DESCRIPTOR_LOAD",
            "MEDIA_OBJECT",
            "MEDIA_OBJECT_WALKER",
            "MEDIA_STATE_FLUSH",
            "XY_COLOR_BLT",
            "XY_SRC_COPY_BLT",
        ],
    },
    Needs {
        generation: "gen7",
        registers: &[
            (
                "ring",
                &[
                    "RING_BUFFER_TAIL",
                    "RING_BUFFER_HEAD",
                    "RING_BUFFER_START",
                    "RING_BUFFER_CONTROL",
                    "HWS_PGA",
                    "VCS_HWS_PGA",
                    "BCS_HWS_PGA",
                ],
            ),
            (
                "interrupt",
                &["GTIER", "GTIIR", "GTIMR", "GTISR", "DEIER", "IMR", "HWSTAM"],
            ),
            (
                "error",
                &[
                    "EIR", "EMR", "ESR", "IPEIR", "IPEHR", "INSTDONE", "ACTHD", "ERR_INT",
                ],
            ),
            (
                "gtt control",
                &["GFX_FLSH_CNTL", "GFX_MODE", "PP_DIR_BASE", "PP_DCLV"],
            ),
            ("fence", &["FENCE", "TILECTL", "ARB_MODE"]),
            (
                "forcewake",
                &["FORCEWAKE_MT", "FORCEWAKE_MT_ACK", "GTFIFODBG"],
            ),
            ("reset", &["GDRST"]),
            ("slm", &["L3CNTLREG1", "L3CNTLREG2", "L3SQCREG1"]),
        ],
        commands: &[
            "MI_NOOP",
            "MI_BATCH_BUFFER_START",
            "MI_BATCH_BUFFER_END",
            "MI_STORE_DATA_INDEX",
            "PIPE_CONTROL",
            "PIPELINE_SELECT",
            "STATE_BASE_ADDRESS",
            "MEDIA_VFE_STATE",
            "MEDIA_CURBE_LOAD",
            "MEDIA_INTERFACE_DESCRIPTOR_LOAD",
            "GPGPU_WALKER",
            "MEDIA_OBJECT",
            "MEDIA_STATE_FLUSH",
        ],
    },
    Needs {
        generation: "gen12.5",
        registers: &[
            (
                "ring",
                &[
                    "RING_TAIL",
                    "RING_HEAD",
                    "RING_START",
                    "RING_CTL",
                    "RING_HWS_PGA",
                    "RING_MODE_GEN7",
                ],
            ),
            (
                "execlists",
                &[
                    "RING_EXECLIST_SQ_CONTENTS",
                    "RING_EXECLIST_CONTROL",
                    "RING_EXECLIST_STATUS_LO",
                    "RING_CONTEXT_STATUS_PTR",
                ],
            ),
            (
                "interrupt",
                &[
                    "GEN11_GFX_MSTR_IRQ",
                    "GEN11_GT_INTR_DW0",
                    "GEN11_IIR_REG_SELECTOR0",
                    "GEN11_INTR_IDENTITY_REG0",
                    "GEN11_RENDER_COPY_INTR_ENABLE",
                    "GEN12_CCS_RSVD_INTR_ENABLE",
                    "RING_IMR",
                    "RING_HWSTAM",
                ],
            ),
            (
                "error",
                &[
                    "RING_EIR",
                    "RING_EMR",
                    "RING_ESR",
                    "RING_IPEIR",
                    "RING_IPEHR",
                    "RING_INSTDONE",
                    "RING_ACTHD",
                    "GEN12_RING_FAULT_REG",
                ],
            ),
            ("gtt control", &["GFX_FLSH_CNTL_GEN6"]),
            (
                "forcewake",
                &[
                    "FORCEWAKE_RENDER_GEN9",
                    "FORCEWAKE_ACK_RENDER_GEN9",
                    "FORCEWAKE_GT_GEN9",
                    "FORCEWAKE_ACK_GT_GEN9",
                ],
            ),
            ("reset", &["GEN6_GDRST", "RING_RESET_CTL"]),
            ("compute", &["GEN12_RCU_MODE", "CCS_MODE"]),
        ],
        commands: &[
            "MI_NOOP",
            "MI_BATCH_BUFFER_START",
            "MI_BATCH_BUFFER_END",
            "MI_STORE_DATA_IMM",
            "MI_LOAD_REGISTER_IMM",
            "MI_SEMAPHORE_WAIT",
            "MI_ATOMIC",
            "PIPE_CONTROL",
            "PIPELINE_SELECT",
            "STATE_BASE_ADDRESS",
            "STATE_COMPUTE_MODE",
            "CFE_STATE",
            "COMPUTE_WALKER",
            "STATE_SIP",
            "3DSTATE_BINDING_TABLE_POOL_ALLOC",
        ],
    },
];

fn tables(name: &str) -> &'static GenTables {
    baregpu_hal::tables(name).unwrap_or_else(|| panic!("no generation {name}"))
}

#[test]
fn each_generation_has_the_registers_a_driver_needs() {
    for n in NEEDS {
        let t = tables(n.generation);
        for (role, names) in n.registers {
            for name in *names {
                assert!(
                    t.register(name).is_some(),
                    "{}: {role} register {name} missing",
                    n.generation
                );
            }
        }
    }
}

#[test]
fn each_generation_has_the_commands_submission_and_dispatch_build() {
    for n in NEEDS {
        let t = tables(n.generation);
        for name in n.commands {
            assert!(
                t.command(name).is_some(),
                "{}: command {name} missing",
                n.generation
            );
        }
    }
}

#[test]
fn per_engine_registers_resolve_to_the_documented_offsets() {
    // SNB ring registers: render 0x2030.., video 0x12030.., blitter 0x22030.. (003 lines 11504-11697,
    // 17156-17191, 24440-24640).
    let t = tables("gen6");
    let tail = t.register("RING_BUFFER_TAIL").unwrap();
    assert_eq!(t.register_offset(tail, "render", 0), Some(0x2030));
    assert_eq!(t.register_offset(tail, "video", 0), Some(0x12030));
    assert_eq!(t.register_offset(tail, "blitter", 0), Some(0x22030));
    let ctl = t.register("RING_BUFFER_CONTROL").unwrap();
    assert_eq!(t.register_offset(ctl, "render", 0), Some(0x203c));
    // DG2 compute engine ring at 0x1a000 (Linux intel_engine_regs.h, GEN12_COMPUTE0_RING_BASE).
    let t = tables("gen12.5");
    let tail = t.register("RING_TAIL").unwrap();
    assert_eq!(t.register_offset(tail, "compute", 0), Some(0x1a030));
    assert_eq!(t.register_offset(tail, "render", 0), Some(0x2030));
    // Typed access agrees with the reflection table.
    use baregpu_hal::gen6::{Engine, regs};
    assert_eq!(regs::RING_BUFFER_TAIL.at(Engine::Video).offset(), 0x12030);
    assert_eq!(
        regs::FENCE.at(15).map(|r| r.offset()),
        Some(0x100000 + 15 * 8)
    );
    assert!(regs::FENCE.at(16).is_none());
}
