//! Submission on the software GPU through the public API, for Gen6 and Gen7:
//! the driver code is the code that drives hardware; the device behind the
//! `Mmio` is the software GPU.

use baregpu::platform::PlatformBus;
use baregpu::platform::host::HostPlatform;
use baregpu::submit::HangReason;
use baregpu::{EngineId, Gpu, GpuError};
use baregpu_soft::SoftGpu;

mod support;
use support::words;

macro_rules! submission_tests {
    ($gen:ident, $generation:expr) => {
        mod $gen {
            use super::*;
            use baregpu::hal::$gen::commands::*;

            fn setup(p: &HostPlatform) -> SoftGpu<PlatformBus<'_, HostPlatform>> {
                SoftGpu::new($generation, PlatformBus::new(p)).expect("software GPU")
            }

            fn sdi(addr: u64, value: u32) -> MiStoreDataImm {
                MiStoreDataImm {
                    use_global_gtt: true,
                    address: addr,
                    data_dword0: value,
                    data_dword1: None,
                }
            }

            fn batch_start(addr: u64) -> MiBatchBufferStart {
                MiBatchBufferStart {
                    batch_buffer_start_address: addr,
                    ..Default::default()
                }
            }

            shared_submission_tests!($generation, 4);

            #[test]
            fn a_batch_stores_dwords_and_registers() {
                let p = HostPlatform::new();
                let soft = setup(&p);
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                let (buf, map) = gpu.map_buffer(4096).unwrap();
                let mut b = gpu.new_batch(4096).unwrap();
                b.push(&sdi(map.gfx.0, 0xdead_beef)).unwrap();
                b.push(&sdi(map.gfx.0 + 8, 0x1234_5678)).unwrap();
                // The render ring's START register (0x2038) holds the ring's GGTT address.
                b.push(&MiStoreRegisterMem {
                    use_global_gtt: true,
                    register_address: 0x2038,
                    memory_address: map.gfx.0 + 16,
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
            fn a_wait_for_a_display_event_that_never_comes_is_a_hang_and_conditions_pass() {
                let p = HostPlatform::new();
                let soft = setup(&p);
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                let (buf, map) = gpu.map_buffer(4096).unwrap();
                // A scan-line window wait: no such condition without a display, a no-op.
                let mut b = gpu.new_batch(4096).unwrap();
                b.push(&MiWaitForEvent {
                    display_pipe_a_scan_line_wait_enable: true,
                    ..Default::default()
                })
                .unwrap();
                b.push(&sdi(map.gfx.0, 1)).unwrap();
                let f = gpu.submit(EngineId::RENDER, b).unwrap();
                gpu.wait(f, 1_000_000).unwrap();
                assert_eq!(words(&buf)[0], 1);
                // Pipe B is off (the firmware lit pipe A only): its vertical blank never
                // comes, and the engine waits (RB Wait) until the hang check.
                let mut b = gpu.new_batch(4096).unwrap();
                b.push(&MiWaitForEvent {
                    display_pipe_b_vertical_blank_wait_enable: true,
                    ..Default::default()
                })
                .unwrap();
                b.push(&sdi(map.gfx.0 + 4, 2)).unwrap();
                let f = gpu.submit(EngineId::RENDER, b).unwrap();
                assert!(!gpu.poll(f));
                assert_ne!(gpu.mmio().read32(0x203c) & (1 << 11), 0, "RB Wait is set");
                let Err(GpuError::Hang(state)) = gpu.wait(f, 5_000) else {
                    panic!("expected a hang")
                };
                assert_eq!(state.reason, HangReason::Timeout);
                assert_eq!(words(&buf)[1], 0, "the store behind the wait never ran");
                let empty = gpu_empty(&mut gpu);
                let f = gpu.submit(EngineId::RENDER, empty).unwrap();
                gpu.wait(f, 1_000_000).unwrap();
            }

            fn gpu_empty<'a>(gpu: &mut Gpu<'a, HostPlatform>) -> baregpu::Batch<'a> {
                gpu.new_batch(4096).unwrap()
            }

            #[test]
            fn mi_update_gtt_rewrites_a_ppgtt_entry_only_from_a_secure_batch() {
                let p = HostPlatform::new();
                let soft = setup(&p);
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                let ctx = gpu.create_context().unwrap();
                let (old, va) = gpu.map_in_context(ctx, 8192).unwrap();
                let (new, _) = gpu.map_buffer(4096).unwrap();
                let store = |value| MiStoreDataImm {
                    use_global_gtt: false,
                    address: va.0 + 4096 + 16,
                    data_dword0: value,
                    data_dword1: None,
                };
                let update = MiUpdateGtt {
                    use_global_gtt: false,
                    entry_address: va.0 + 4096,
                    entries: vec![MiUpdateGttEntries {
                        entry_data: baregpu::gtt::ggtt::encode_pte(
                            $generation,
                            new.phys().0,
                            baregpu::gtt::Caching::Llc,
                        )
                        .unwrap(),
                    }],
                };
                // The context's page directory gets loaded by its first batch.
                let mut b = gpu.new_context_batch(ctx, 4096).unwrap();
                b.push(&store(1)).unwrap();
                let f = gpu.submit(EngineId::RENDER, b).unwrap();
                gpu.wait(f, 1_000_000).unwrap();
                // From a secure (GGTT) batch, with that directory still loaded, it lands.
                let mut b = gpu.new_batch(4096).unwrap();
                b.push(&update).unwrap();
                let f = gpu.submit(EngineId::RENDER, b).unwrap();
                gpu.wait(f, 1_000_000).unwrap();
                let mut b = gpu.new_context_batch(ctx, 4096).unwrap();
                b.push(&store(2)).unwrap();
                let f = gpu.submit(EngineId::RENDER, b).unwrap();
                gpu.wait(f, 1_000_000).unwrap();
                assert_eq!(
                    words(&old)[1024 + 4],
                    1,
                    "the first store used the old page"
                );
                assert_eq!(
                    words(&new)[4],
                    2,
                    "the second the page MI_UPDATE_GTT put there"
                );
                // From a context (non-secure) batch the update is refused and flagged.
                let mut b = gpu.new_context_batch(ctx, 4096).unwrap();
                b.push(&MiUpdateGtt {
                    use_global_gtt: true,
                    entry_address: 0,
                    entries: vec![MiUpdateGttEntries {
                        entry_data: 0x7000 | 1,
                    }],
                })
                .unwrap();
                let f = gpu.submit(EngineId::RENDER, b).unwrap();
                let Err(GpuError::Hang(state)) = gpu.wait(f, 1_000_000) else {
                    panic!("expected the privilege error")
                };
                assert_eq!(
                    state.eir & (1 << 2),
                    1 << 2,
                    "command privilege error: {state}"
                );
                assert_eq!(state.completed, f.seqno, "the batch itself ran to its end");
                let empty = gpu_empty(&mut gpu);
                let f = gpu.submit(EngineId::RENDER, empty).unwrap();
                gpu.wait(f, 1_000_000).unwrap();
            }

            #[test]
            fn two_ppgtt_contexts_cannot_see_each_other() {
                let p = HostPlatform::new();
                let soft = setup(&p);
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                let a = gpu.create_context().unwrap();
                let b = gpu.create_context().unwrap();
                // The first buffer of each context lands at the same address in
                // its own space, backed by different pages.
                let (buf_a, va_a) = gpu.map_in_context(a, 4096).unwrap();
                let (buf_b, va_b) = gpu.map_in_context(b, 4096).unwrap();
                assert_eq!(va_a, va_b);
                let (buf_a2, va_a2) = gpu.map_in_context(a, 4096).unwrap();
                for (ctx, value) in [(a, 0xaaaa_aaaa), (b, 0xbbbb_bbbb), (a, 0xaaaa_0001)] {
                    let mut batch = gpu.new_context_batch(ctx, 4096).unwrap();
                    // Offset 0 for the first store of each context, 4 for the second.
                    let off = if value == 0xaaaa_0001 { 4 } else { 0 };
                    batch
                        .push(&MiStoreDataImm {
                            use_global_gtt: false,
                            address: va_a.0 + off,
                            data_dword0: value,
                            data_dword1: None,
                        })
                        .unwrap();
                    let f = gpu.submit(EngineId::RENDER, batch).unwrap();
                    gpu.wait(f, 1_000_000).unwrap();
                }
                assert_eq!(&words(&buf_a)[..2], &[0xaaaa_aaaa, 0xaaaa_0001]);
                assert_eq!(&words(&buf_b)[..2], &[0xbbbb_bbbb, 0]);
                // B cannot reach A's second buffer: the address is not mapped in B.
                let mut batch = gpu.new_context_batch(b, 4096).unwrap();
                batch
                    .push(&MiStoreDataImm {
                        use_global_gtt: false,
                        address: va_a2.0,
                        data_dword0: 1,
                        data_dword1: None,
                    })
                    .unwrap();
                let f = gpu.submit(EngineId::RENDER, batch).unwrap();
                let Err(GpuError::Hang(state)) = gpu.wait(f, 1_000_000) else {
                    panic!("expected a fault")
                };
                assert_eq!(state.eir & (1 << 4), 1 << 4, "page table error");
                assert_eq!(words(&buf_a2)[0], 0);
                // GGTT work still runs after the fault and the reset.
                let (buf, map) = gpu.map_buffer(4096).unwrap();
                let mut batch = gpu.new_batch(4096).unwrap();
                batch.push(&sdi(map.gfx.0, 5)).unwrap();
                let f = gpu.submit(EngineId::RENDER, batch).unwrap();
                gpu.wait(f, 1_000_000).unwrap();
                assert_eq!(words(&buf)[0], 5);
            }

            #[test]
            fn a_semaphore_holds_one_engine_until_another_signals() {
                let p = HostPlatform::new();
                let soft = setup(&p);
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                let (buf, map) = gpu.map_buffer(4096).unwrap();
                // Render waits until its RBSYNC mailbox (0x2044, register select 2) exceeds 4.
                let mut wait = gpu.new_batch(4096).unwrap();
                wait.push(&MiSemaphoreMbox {
                    compare_semaphore: true,
                    compare_register: true,
                    register_select: 2,
                    semaphore_data_dword: 4,
                    ..Default::default()
                })
                .unwrap();
                wait.push(&sdi(map.gfx.0, 1)).unwrap();
                let waiting = gpu.submit(EngineId::RENDER, wait).unwrap();
                for _ in 0..100 {
                    assert!(!gpu.poll(waiting), "render must wait for the signal");
                }
                assert_eq!(
                    gpu.mmio().read32(0x203c) & (1 << 10),
                    1 << 10,
                    "RING_CTL shows the semaphore wait"
                );
                assert_eq!(words(&buf)[0], 0);
                // The blitter signals by writing the render engine's mailbox.
                let mut signal = gpu.new_batch(4096).unwrap();
                signal
                    .push(&MiLoadRegisterImm {
                        byte_write_disables: 0,
                        registers: vec![MiLoadRegisterImmRegisters {
                            register_offset: 0x2044,
                            data_dword: 5,
                        }],
                    })
                    .unwrap();
                let f = gpu.submit(EngineId::BLITTER, signal).unwrap();
                gpu.wait(f, 1_000_000).unwrap();
                gpu.wait(waiting, 1_000_000).unwrap();
                assert_eq!(words(&buf)[0], 1);
            }

            #[test]
            fn a_memory_semaphore_signalled_by_update_releases_a_waiter() {
                let p = HostPlatform::new();
                let soft = setup(&p);
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                let (buf, map) = gpu.map_buffer(4096).unwrap();
                let sem = map.gfx.0 + 64;
                // Video waits until the dword at `sem` exceeds 6, then stores.
                let mut wait = gpu.new_batch(4096).unwrap();
                wait.push(&MiSemaphoreMbox {
                    use_global_gtt: true,
                    compare_semaphore: true,
                    semaphore_data_dword: 6,
                    semaphore_address: sem,
                    ..Default::default()
                })
                .unwrap();
                wait.push(&sdi(map.gfx.0, 1)).unwrap();
                let waiting = gpu.submit(EngineId::VIDEO, wait).unwrap();
                assert!(!gpu.poll(waiting), "video must wait");
                // Render signals with the update form: it writes 7 there.
                let mut signal = gpu.new_batch(4096).unwrap();
                signal
                    .push(&MiSemaphoreMbox {
                        use_global_gtt: true,
                        update_semaphore: true,
                        semaphore_data_dword: 7,
                        semaphore_address: sem,
                        ..Default::default()
                    })
                    .unwrap();
                let f = gpu.submit(EngineId::RENDER, signal).unwrap();
                gpu.wait(f, 1_000_000).unwrap();
                assert_eq!(words(&buf)[16], 7, "the update wrote the data dword");
                gpu.wait(waiting, 1_000_000).unwrap();
                assert_eq!(words(&buf)[0], 1);
            }

            #[test]
            fn mi_update_gtt_maps_a_page_for_later_commands() {
                let p = HostPlatform::new();
                let soft = setup(&p);
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                let (target, _map) = gpu.map_buffer(4096).unwrap();
                let (entry, _) = gpu.ggtt().unwrap().reserve(1).unwrap();
                let pte = baregpu::gtt::ggtt::encode_pte(
                    $generation,
                    target.phys().0,
                    baregpu::gtt::Caching::Llc,
                )
                .unwrap();
                let mut b = gpu.new_batch(4096).unwrap();
                b.push(&MiUpdateGtt {
                    use_global_gtt: true,
                    entry_address: entry * 4096,
                    entries: vec![MiUpdateGttEntries { entry_data: pte }],
                })
                .unwrap();
                b.push(&sdi(entry * 4096 + 12, 0x600d)).unwrap();
                let f = gpu.submit(EngineId::RENDER, b).unwrap();
                gpu.wait(f, 1_000_000).unwrap();
                assert_eq!(words(&target)[3], 0x600d);
                assert_eq!(
                    gpu.mmio().read32((2 << 20) + entry as u32 * 4),
                    pte,
                    "the GTT alias reads the new entry"
                );
            }

            #[test]
            fn mi_set_context_saves_and_restores_the_modelled_state() {
                let p = HostPlatform::new();
                let soft = setup(&p);
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                let (_a, ctx_a) = gpu.map_buffer(4096).unwrap();
                let (_b, ctx_b) = gpu.map_buffer(4096).unwrap();
                let (out, map) = gpu.map_buffer(4096).unwrap();
                let set = |addr: u64, restore_inhibit: bool| MiSetContext {
                    logical_context_address: addr,
                    restore_inhibit,
                    ..Default::default()
                };
                // INSTPM (0x20c0) is masked: bits 31:16 enable the write of 15:0.
                let instpm = |v: u32| MiLoadRegisterImm {
                    byte_write_disables: 0,
                    registers: vec![MiLoadRegisterImmRegisters {
                        register_offset: 0x20c0,
                        data_dword: 0xffff_0000 | v,
                    }],
                };
                let mut b = gpu.new_batch(4096).unwrap();
                b.push(&set(ctx_a.gfx.0, true)).unwrap();
                b.push(&instpm(0x11)).unwrap();
                b.push(&set(ctx_b.gfx.0, true)).unwrap(); // saves A
                b.push(&instpm(0x22)).unwrap();
                b.push(&MiStoreRegisterMem {
                    use_global_gtt: true,
                    register_address: 0x20c0,
                    memory_address: map.gfx.0,
                })
                .unwrap();
                b.push(&set(ctx_a.gfx.0, false)).unwrap(); // saves B, restores A
                b.push(&MiStoreRegisterMem {
                    use_global_gtt: true,
                    register_address: 0x20c0,
                    memory_address: map.gfx.0 + 4,
                })
                .unwrap();
                b.push(&MiStoreRegisterMem {
                    use_global_gtt: true,
                    register_address: 0x2180,
                    memory_address: map.gfx.0 + 8,
                })
                .unwrap();
                let f = gpu.submit(EngineId::RENDER, b).unwrap();
                gpu.wait(f, 1_000_000).unwrap();
                let w = words(&out);
                assert_eq!(w[0] & 0xffff, 0x22, "B's value before the switch back");
                assert_eq!(w[1] & 0xffff, 0x11, "A's value restored");
                assert_eq!(
                    w[2],
                    ctx_a.gfx.0 as u32 | (1 << 8) | 1,
                    "CCID names context A, valid"
                );
            }
        }
    };
}

submission_tests!(gen6, baregpu::Generation::Gen6);
submission_tests!(gen7, baregpu::Generation::Gen7);

/// MI_LOAD_REGISTER_MEM exists from Ivy Bridge on.
#[test]
fn gen7_load_register_mem_round_trips_through_a_register() {
    use baregpu::hal::gen7::commands::*;
    let p = HostPlatform::new();
    let soft = SoftGpu::new(baregpu::Generation::Gen7, PlatformBus::new(&p)).unwrap();
    let mut gpu = Gpu::new(&p, &soft, baregpu::Generation::Gen7).unwrap();
    let (buf, map) = gpu.map_buffer(4096).unwrap();
    let mut b = gpu.new_batch(4096).unwrap();
    b.push(&MiStoreDataImm {
        use_global_gtt: true,
        address: map.gfx.0,
        data_dword0: 0x5eed,
        data_dword1: None,
    })
    .unwrap();
    // RVSYNC (0x2040) is a plain read-write mailbox register.
    b.push(&MiLoadRegisterMem {
        use_global_gtt: true,
        register_address: 0x2040,
        memory_address: map.gfx.0,
        ..Default::default()
    })
    .unwrap();
    b.push(&MiStoreRegisterMem {
        use_global_gtt: true,
        register_address: 0x2040,
        memory_address: map.gfx.0 + 4,
    })
    .unwrap();
    let f = gpu.submit(EngineId::RENDER, b).unwrap();
    gpu.wait(f, 1_000_000).unwrap();
    assert_eq!(words(&buf)[1], 0x5eed);
    assert_eq!(gpu.mmio().read32(0x2040), 0x5eed);
}

/// What only Gen12.5's execlists have answers `Unsupported` on the rings,
/// and buffers in system memory work through the same calls as on DG2.
#[test]
fn gen7_refuses_the_execlist_only_operations_and_keeps_system_buffers() {
    use baregpu::Generation::Gen7;
    use baregpu::hal::gen7::commands::*;
    use baregpu::submit::Placement;
    let p = HostPlatform::new();
    let soft = SoftGpu::new(Gen7, PlatformBus::new(&p)).unwrap();
    let mut gpu = Gpu::new(&p, &soft, Gen7).unwrap();
    let ctx = gpu.create_context().unwrap();
    let unsupported = Some(GpuError::Unsupported(Gen7));
    assert_eq!(gpu.destroy_context(ctx).err(), unsupported);
    assert_eq!(
        gpu.context_sw_id(Some(ctx), EngineId::RENDER).err(),
        unsupported
    );
    assert_eq!(gpu.take_interrupt_vectors().err(), unsupported);
    assert_eq!(gpu.csb_events(EngineId::RENDER).err(), unsupported);
    assert!(matches!(
        gpu.buffer(4096, Placement::Local),
        Err(GpuError::Unsupported(Gen7))
    ));
    assert!(matches!(
        gpu.context_buffer(ctx, 4096, Placement::Local),
        Err(GpuError::Unsupported(Gen7))
    ));
    let out = gpu.buffer(4096, Placement::System).unwrap();
    let in_ctx = gpu.context_buffer(ctx, 4096, Placement::System).unwrap();
    let mut b = gpu.new_batch(4096).unwrap();
    b.push(&MiStoreDataImm {
        use_global_gtt: true,
        address: out.gfx().0 + 8,
        data_dword0: 0x600d,
        data_dword1: None,
    })
    .unwrap();
    let f = gpu.submit(EngineId::RENDER, b).unwrap();
    gpu.wait(f, 1_000_000).unwrap();
    let mut b = gpu.new_context_batch(ctx, 4096).unwrap();
    b.push(&MiStoreDataImm {
        use_global_gtt: false,
        address: in_ctx.gfx().0,
        data_dword0: 0xc7c7,
        data_dword1: None,
    })
    .unwrap();
    let f = gpu.submit(EngineId::RENDER, b).unwrap();
    gpu.wait(f, 1_000_000).unwrap();
    assert_eq!(out.read_u32(2), Some(0x600d));
    assert_eq!(in_ctx.read_u32(0), Some(0xc7c7));
    assert_eq!(out.placement(), Placement::System);
    gpu.free_buffer(out);
}
