//! Submission on the software GPU through the public API, for Gen4 (965) and
//! G45: the same acceptance as Gen6/Gen7 (tests/submit.rs) where the
//! generation has the feature. Differences these tests pin down: blits run
//! on the render ring, the 965's status page is physical, commands may
//! address physical memory, interrupts live in IER/IIR/IMR, reset goes
//! through GDRST in PCI configuration space, and there are no PPGTT contexts.

use baregpu::platform::PlatformBus;
use baregpu::platform::host::HostPlatform;
use baregpu::submit::HangReason;
use baregpu::{EngineId, Generation, Gpu, GpuError};
use baregpu_hal::ConfigSpace;
use baregpu_soft::SoftGpu;

mod support;
use support::words;

/// MI_STORE_DATA_IMM of a dword: through the GTT, or at a physical address
/// (bits 35:32 in DW1). Bit 22 is an enum on the 965 ("memory virtual") and
/// a flag on G4x ("use GGTT") in the tables.
fn gen4_sdi(gtt: bool, addr: u64, value: u32) -> baregpu::hal::gen4::commands::MiStoreDataImm {
    baregpu::hal::gen4::commands::MiStoreDataImm {
        use_global_gtt: gtt,
        physical_start_address_extension: (addr >> 32) as u32,
        address: addr & 0xffff_ffff,
        data_dword0: value,
        data_dword1: None,
    }
}

fn g45_sdi(gtt: bool, addr: u64, value: u32) -> baregpu::hal::g45::commands::MiStoreDataImm {
    baregpu::hal::g45::commands::MiStoreDataImm {
        use_global_gtt: gtt,
        physical_start_address_extension: (addr >> 32) as u32,
        address: addr & 0xffff_ffff,
        data_dword0: value,
        data_dword1: None,
    }
}

macro_rules! gen4_submission_tests {
    ($gen:ident, $generation:expr, $page_fault_bit:expr, $sdi:path) => {
        mod $gen {
            use super::*;
            use baregpu::hal::$gen::commands::*;

            fn setup(p: &HostPlatform) -> SoftGpu<PlatformBus<'_, HostPlatform>> {
                SoftGpu::new($generation, PlatformBus::new(p)).expect("software GPU")
            }

            /// MI_STORE_DATA_IMM through the GTT (bit 22 set).
            fn sdi(addr: u64, value: u32) -> MiStoreDataImm {
                $sdi(true, addr, value)
            }

            fn batch_start(addr: u64) -> MiBatchBufferStart {
                MiBatchBufferStart {
                    batch_buffer_start_address: addr,
                    buffer_address_space: MiBatchBufferStart::BUFFER_ADDRESS_SPACE_GTT,
                    ..Default::default()
                }
            }

            shared_submission_tests!($generation, $page_fault_bit);

            #[test]
            fn blits_go_to_the_render_ring() {
                let p = HostPlatform::new();
                let soft = setup(&p);
                let gpu = Gpu::new(&p, &soft, $generation).unwrap();
                assert_eq!(gpu.blit_engine(), Some(EngineId::RENDER));
                assert_eq!(gpu.engine_named("blitter"), None);
            }

            #[test]
            fn a_reset_goes_through_configuration_space() {
                let p = HostPlatform::new();
                let soft = setup(&p);
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                let mut b = gpu.new_batch(4096).unwrap();
                b.push_dwords(&[0x0780_0000]).unwrap(); // an unknown MI opcode
                let f = gpu.submit(EngineId::RENDER, b).unwrap();
                assert!(matches!(gpu.wait(f, 1_000_000), Err(GpuError::Hang(_))));
                assert_eq!(soft.stats().resets, 1, "one engine reset");
                assert_eq!(soft.config_read32(0xc0) & 0xff, 0, "GDRST request cleared");
                let b = gpu.new_batch(4096).unwrap();
                let f = gpu.submit(EngineId::RENDER, b).unwrap();
                gpu.wait(f, 1_000_000).unwrap();
            }

            #[test]
            fn a_batch_stores_dwords_and_registers() {
                let p = HostPlatform::new();
                let soft = setup(&p);
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                let (buf, map) = gpu.map_buffer(4096).unwrap();
                let mut b = gpu.new_batch(4096).unwrap();
                b.push(&sdi(map.gfx.0, 0xdead_beef)).unwrap();
                b.push(&sdi(map.gfx.0 + 8, 0x1234_5678)).unwrap();
                // The render ring's START register (0x2038) holds the ring's GTT address.
                b.push(&MiStoreRegisterMem {
                    use_global_gtt: true,
                    register_address: 0x2038,
                    memory_address: map.gfx.0 + 16,
                    ..Default::default()
                })
                .unwrap();
                let fence = gpu.submit(EngineId::RENDER, b).unwrap();
                gpu.wait(fence, 1_000_000).unwrap();
                let w = words(&buf);
                assert_eq!(w[0], 0xdead_beef);
                assert_eq!(w[2], 0x1234_5678);
                assert_eq!(w[4], gpu.mmio().read32(0x2038));
                assert_ne!(w[4], 0);
                assert_eq!(w[1], 0, "nothing else written");
            }

            #[test]
            fn commands_can_address_physical_memory() {
                let p = HostPlatform::new();
                let soft = setup(&p);
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                let (buf, _map) = gpu.map_buffer(4096).unwrap();
                let phys = buf.phys().0;
                let mut b = gpu.new_batch(4096).unwrap();
                // Bit 22 clear: a physical address, bits 35:32 in DW1 3:0.
                b.push(&$sdi(false, phys, 0x600d_f00d)).unwrap();
                // PIPE_CONTROL's 64-bit immediate write, through the GTT.
                b.push(&PipeControl {
                    post_sync_operation: PipeControl::POST_SYNC_OPERATION_WRITE_IMMEDIATE_DATA,
                    address: _map.gfx.0 + 8,
                    use_global_gtt: true,
                    immediate_data: 0x1122_3344_5566_7788,
                    ..Default::default()
                })
                .unwrap();
                let fence = gpu.submit(EngineId::RENDER, b).unwrap();
                gpu.wait(fence, 1_000_000).unwrap();
                assert_eq!(
                    &words(&buf)[..4],
                    &[0x600d_f00d, 0, 0x5566_7788, 0x1122_3344]
                );
            }

            #[test]
            fn a_vertical_blank_wait_is_a_hang_the_driver_recovers_from() {
                let p = HostPlatform::new();
                let soft = setup(&p);
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                let mut b = gpu.new_batch(4096).unwrap();
                // Pipe B is off (the firmware lit pipe A only): its vertical blank never comes.
                b.push(&MiWaitForEvent {
                    pipe_b_vertical_blank_wait_enable: true,
                    ..Default::default()
                })
                .unwrap();
                let f = gpu.submit(EngineId::RENDER, b).unwrap();
                let Err(GpuError::Hang(state)) = gpu.wait(f, 5_000) else {
                    panic!("expected a hang")
                };
                assert_eq!(state.reason, HangReason::Timeout);
                assert!(state.to_string().contains("MI_WAIT_FOR_EVENT"), "{state}");
                let empty = gpu.new_batch(4096).unwrap();
                let f = gpu.submit(EngineId::RENDER, empty).unwrap();
                gpu.wait(f, 1_000_000).unwrap();
            }

            #[test]
            fn there_are_no_ppgtt_contexts() {
                let p = HostPlatform::new();
                let soft = setup(&p);
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                assert_eq!(
                    gpu.create_context(),
                    Err(GpuError::Unsupported($generation))
                );
            }
        }
    };
}

gen4_submission_tests!(gen4, Generation::Gen4, 4, gen4_sdi);
gen4_submission_tests!(g45, Generation::G45, 5, g45_sdi);

/// The 965 reads its status page at a physical address, G4x through the GTT.
#[test]
fn the_965_status_page_is_physical_and_g45_uses_the_gtt() {
    for (generation, physical) in [(Generation::Gen4, true), (Generation::G45, false)] {
        let p = HostPlatform::new();
        let soft = SoftGpu::new(generation, PlatformBus::new(&p)).unwrap();
        let gpu = Gpu::new(&p, &soft, generation).unwrap();
        let hws = gpu.mmio().read32(0x2080);
        // The host platform's DMA addresses lie above 4 GiB, so a physical address shows
        // bits 35:32 in HWS_PGA 7:4; a GTT address below 512 MiB does not.
        assert_eq!(hws & 0xf0 != 0, physical, "{generation}: HWS_PGA {hws:#x}");
    }
}

/// MI_UPDATE_GTT exists from G45 (CTG) on: a batch maps a page for the commands after it.
#[test]
fn g45_mi_update_gtt_maps_a_page_for_later_commands() {
    use baregpu::hal::g45::commands::*;
    let p = HostPlatform::new();
    let soft = SoftGpu::new(Generation::G45, PlatformBus::new(&p)).unwrap();
    let mut gpu = Gpu::new(&p, &soft, Generation::G45).unwrap();
    let (buf, _) = gpu.map_buffer(4096).unwrap();
    let pte =
        baregpu::gtt::ggtt::encode_pte(Generation::G45, buf.phys().0, baregpu::gtt::Caching::Llc)
            .unwrap();
    let target = 0x0100_0000u64; // an entry the driver never handed out
    let mut b = gpu.new_batch(4096).unwrap();
    b.push(&MiUpdateGtt {
        use_global_gtt: true,
        entry_address: target,
        entries: vec![MiUpdateGttEntries { entry_data: pte }],
    })
    .unwrap();
    b.push(&g45_sdi(true, target + 12, 77)).unwrap();
    let f = gpu.submit(EngineId::RENDER, b).unwrap();
    gpu.wait(f, 1_000_000).unwrap();
    assert_eq!(words(&buf)[3], 77);
}
