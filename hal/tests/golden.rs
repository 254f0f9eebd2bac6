//! Packets packed by the generated code against dwords worked out by hand
//! from the manuals (the citation of each value is beside it).

use baregpu_hal::Packet;
use baregpu_hal::{g45, gen4, gen6, gen7, gen12_5};

fn pack<P: Packet>(p: &P) -> Vec<u32> {
    let mut out = vec![0u32; p.dwords()];
    let n = p.pack(&mut out).expect("pack");
    assert_eq!(n, out.len());
    out
}

#[test]
fn mi_batch_buffer_end_and_noop_on_every_generation() {
    // MI opcode 0Ah in bits 28:23, client 0 (003 lines 14634-14665; 004 lines 26700-26725).
    const BBE: u32 = 0x0A << 23;
    assert_eq!(pack(&gen4::commands::MiBatchBufferEnd::default()), [BBE]);
    assert_eq!(pack(&g45::commands::MiBatchBufferEnd::default()), [BBE]);
    assert_eq!(pack(&gen6::commands::MiBatchBufferEnd::default()), [BBE]);
    assert_eq!(pack(&gen7::commands::MiBatchBufferEnd::default()), [BBE]);
    assert_eq!(pack(&gen12_5::commands::MiBatchBufferEnd::default()), [BBE]);
    assert_eq!(BBE, 0x0500_0000);
    assert_eq!(pack(&gen6::commands::MiNoop::default()), [0]);
    // MI_NOOP with the NOPID write: bit 22 plus the 22-bit identification (003 lines 15541-15603).
    let noop = gen6::commands::MiNoop {
        identification_number_register_write_enable: true,
        identification_number: 0x12345,
    };
    assert_eq!(pack(&noop), [0x0040_0000 | 0x12345]);
}

#[test]
fn pipeline_select_on_every_generation() {
    // GFXPIPE (3 << 29), opcode 1 << 24, sub-opcode 4 << 16. The 965 uses
    // subtype 0 (0x6104xxxx); G4x and later subtype 1 (0x6904xxxx): Mesa
    // gen4.xml/gen45.xml, SNB 003 lines 846-858.
    let p = gen4::commands::PipelineSelect {
        pipeline_selection: 1,
    };
    assert_eq!(pack(&p), [0x6104_0001]);
    let p = g45::commands::PipelineSelect {
        pipeline_selection: 1,
    };
    assert_eq!(pack(&p), [0x6904_0001]);
    let p = gen6::commands::PipelineSelect {
        pipeline_selection: gen6::commands::PipelineSelect::PIPELINE_SELECTION_PIPELINE_MEDIA,
    };
    assert_eq!(pack(&p), [0x6904_0001]);
    let p = gen7::commands::PipelineSelect {
        pipeline_selection: gen7::commands::PipelineSelect::PIPELINE_SELECTION_GPGPU,
    };
    assert_eq!(pack(&p), [0x6904_0002]);
    // DG2: mask bits 15:8 enable the write of bits 1:0 (004 lines 30751-30826).
    let p = gen12_5::commands::PipelineSelect {
        mask_bits: 0x03,
        pipeline_selection: gen12_5::commands::PipelineSelect::PIPELINE_SELECTION_GPGPU,
        ..Default::default()
    };
    assert_eq!(pack(&p), [0x6904_0302]);
}

#[test]
fn gen6_mi_store_data_imm_dword_and_qword() {
    // 003 lines 15944-16048: opcode 20h, bit 22 global GTT, length 2 (DW) or 3 (QW).
    let mut p = gen6::commands::MiStoreDataImm {
        use_global_gtt: true,
        address: 0x1000,
        data_dword0: 0xdead_beef,
        data_dword1: None,
    };
    assert_eq!(pack(&p), [0x1040_0002, 0, 0x1000, 0xdead_beef]);
    p.data_dword1 = Some(0x0123_4567);
    assert_eq!(pack(&p), [0x1040_0003, 0, 0x1000, 0xdead_beef, 0x0123_4567]);
    // A misaligned address is refused, not truncated.
    p.address = 0x1002;
    assert!(matches!(
        p.pack(&mut [0; 5]),
        Err(baregpu_hal::PackError::Misaligned { .. })
    ));
}

#[test]
fn gen6_mi_load_register_imm_pairs() {
    use gen6::commands::{MiLoadRegisterImm, MiLoadRegisterImmRegisters as Pair};
    // 003 lines 15424-15540: opcode 22h, DWord Length = 2n - 1 for n pairs.
    let p = MiLoadRegisterImm {
        byte_write_disables: 0,
        registers: vec![Pair {
            register_offset: 0x2098,
            data_dword: 0xffff_ffff,
        }],
    };
    assert_eq!(pack(&p), [0x1100_0001, 0x2098, 0xffff_ffff]);
    let p = MiLoadRegisterImm {
        byte_write_disables: 0,
        registers: vec![
            Pair {
                register_offset: 0x2098,
                data_dword: 1,
            },
            Pair {
                register_offset: 0x20a8,
                data_dword: 2,
            },
        ],
    };
    assert_eq!(pack(&p), [0x1100_0003, 0x2098, 1, 0x20a8, 2]);
    // No pair at all is not a valid MI_LOAD_REGISTER_IMM.
    let empty = MiLoadRegisterImm {
        byte_write_disables: 0,
        registers: vec![],
    };
    assert!(matches!(
        empty.pack(&mut [0; 4]),
        Err(baregpu_hal::PackError::TooShort { .. })
    ));
}

#[test]
fn gen6_batch_start_and_state_headers() {
    // MI_BATCH_BUFFER_START: opcode 31h, bit 8 = non-secure / PPGTT, 2 dwords (003 lines 14754-14894).
    let p = gen6::commands::MiBatchBufferStart {
        buffer_security_indicator:
            gen6::commands::MiBatchBufferStart::BUFFER_SECURITY_INDICATOR_PPGTT,
        batch_buffer_start_address: 0x10000,
        ..Default::default()
    };
    assert_eq!(pack(&p), [0x1880_0100, 0x10000]);
    // STATE_BASE_ADDRESS: 0x6101, DWord Length 8, 10 dwords (003 lines 1135-1150).
    assert_eq!(
        pack(&gen6::commands::StateBaseAddress::default())[0],
        0x6101_0008
    );
    // PIPE_CONTROL: 0x7A00, 4 dwords, or 5 with the high immediate dword.
    let p = gen6::commands::PipeControl::default();
    assert_eq!(pack(&p)[0], 0x7a00_0002);
    let p = gen6::commands::PipeControl {
        immediate_data_high: Some(0),
        ..Default::default()
    };
    assert_eq!(pack(&p)[0], 0x7a00_0003);
    // XY_COLOR_BLT: client 2, opcode 50h in 28:22, 32-bpp write mask 21:20, 6 dwords.
    let p = gen6::commands::XyColorBlt {
        bpp32_byte_mask: gen6::commands::XyColorBlt::BPP32_BYTE_MASK_WRITE_ALPHA_RGB,
        ..Default::default()
    };
    assert_eq!(pack(&p)[0], 0x5430_0004);
}

#[test]
fn dg2_compute_headers() {
    // COMPUTE_WALKER: (3<<29)|(2<<27)|(2<<24)|(2<<18)|37, 39 dwords (004 lines 12738-12980).
    let cw = pack(&gen12_5::commands::ComputeWalker::default());
    assert_eq!(cw.len(), 39);
    assert_eq!(cw[0], 0x7208_0025);
    // CFE_STATE: CFE sub-opcode 0, 6 dwords (004 lines 12335-12434).
    let cfe = pack(&gen12_5::commands::CfeState::default());
    assert_eq!((cfe.len(), cfe[0]), (6, 0x7200_0004));
    // STATE_COMPUTE_MODE: 0x6105, 2 dwords (004 lines 34567-34663).
    let scm = pack(&gen12_5::commands::StateComputeMode::default());
    assert_eq!((scm.len(), scm[0]), (2, 0x6105_0000));
    // MI_BATCH_BUFFER_START: 3 dwords on DG2, DWord Length 1 (004 lines 26726-26830).
    let bbs = gen12_5::commands::MiBatchBufferStart {
        address_space_indicator:
            gen12_5::commands::MiBatchBufferStart::ADDRESS_SPACE_INDICATOR_PPGTT,
        ..Default::default()
    };
    assert_eq!(pack(&bbs)[0], 0x1880_0101);
}

#[test]
fn values_that_do_not_fit_are_errors() {
    let p = gen6::commands::MiNoop {
        identification_number_register_write_enable: false,
        identification_number: 1 << 22,
    };
    assert_eq!(
        p.pack(&mut [0]),
        Err(baregpu_hal::PackError::FieldOverflow {
            packet: "MI_NOOP",
            field: "identification_number"
        })
    );
    let p = gen6::commands::MiBatchBufferEnd::default();
    assert!(matches!(
        p.pack(&mut []),
        Err(baregpu_hal::PackError::BufferTooSmall { .. })
    ));
}

#[test]
fn unpack_rejects_wrong_headers_and_lengths() {
    use baregpu_hal::UnpackError;
    assert!(matches!(
        gen6::commands::MiBatchBufferEnd::unpack(&[0]),
        Err(UnpackError::WrongHeader { .. })
    ));
    assert!(matches!(
        gen6::commands::MiStoreDataImm::unpack(&[0x1040_0002, 0, 0x1000]),
        Err(UnpackError::Truncated { .. })
    ));
    // A DWord Length of 9 for a 4/5-dword packet.
    assert!(matches!(
        gen6::commands::MiStoreDataImm::unpack(&[0x1040_0009, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        Err(UnpackError::BadLength { .. })
    ));
    let p = gen6::commands::MiStoreDataImm::unpack(&[0x1040_0002, 0, 0x1000, 7]).unwrap();
    assert_eq!((p.address, p.data_dword0, p.data_dword1), (0x1000, 7, None));
}
