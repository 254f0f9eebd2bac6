//! The driver's submission path on the software GPU inside the kernel, for
//! Gen4, G45, Gen6 and Gen7: stores seen by the CPU on every engine, a chain
//! of batches, and a runaway batch detected as a hang and recovered; for
//! Gen12.5 (DG2, execlists, through the same `Gpu::new`) the same, with
//! buffers in local memory, sustained submission, interrupts, an unknown
//! command, a PPGTT fault and two contexts that cannot see each other.
#![cfg_attr(target_os = "none", no_std, no_main)]

use baregpu::hal::Generation;
use baregpu::platform::{LocalMemory, PlatformBus};
use baregpu::submit::{HangReason, Placement, USER_INTERRUPT};
use baregpu::{EngineId, Gpu, GpuError};
use baregpu_boot::{BootInfo, BootPlatform, ExitCode, exit_qemu, println};
use baregpu_soft::SoftGpu;

baregpu_boot::entry!(run);

/// A copy of a buffer's dwords, read after the GPU finished with it.
fn words(buffer: &baregpu::Dma<'_>) -> alloc::vec::Vec<u32> {
    buffer.to_u32s()
}

/// `$sdi(addr, value)`: MI_STORE_DATA_IMM through the GTT; `$bbs(addr)`:
/// MI_BATCH_BUFFER_START of a GTT batch (their GTT bits differ per generation).
macro_rules! exercise {
    ($gen:ident, $generation:expr, $platform:expr, $sdi:expr, $bbs:expr) => {{
        use baregpu::hal::$gen::commands::*;
        let platform = $platform;
        let soft = SoftGpu::new($generation, PlatformBus::new(platform)).unwrap();
        let mut gpu = Gpu::new(platform, &soft, $generation).unwrap();
        let (buf, map) = gpu.map_buffer(4096).unwrap();
        let sdi: fn(u64, u32) -> MiStoreDataImm = $sdi;
        let bbs: fn(u64) -> MiBatchBufferStart = $bbs;
        // Stores on every engine.
        let engines = gpu.engines().count();
        for k in 0..engines {
            let mut b = gpu.new_batch(4096).unwrap();
            b.push(&sdi(map.gfx.0 + 4 * k as u64, 0x100 + k as u32))
                .unwrap();
            let f = gpu.submit(EngineId(k), b).unwrap();
            gpu.wait(f, 1_000_000).unwrap();
        }
        assert!((0..engines).all(|k| words(&buf)[k] == 0x100 + k as u32));
        // A chain of 100 batches, each storing its index.
        let mut next = None;
        let mut first = None;
        let mut keep = alloc::vec::Vec::new();
        for k in (0..100u32).rev() {
            let mut b = gpu.new_batch(4096).unwrap();
            b.push(&sdi(map.gfx.0 + 64 + 4 * k as u64, k)).unwrap();
            match next {
                Some(a) => b.push(&bbs(a)).unwrap(),
                None => b.push(&MiBatchBufferEnd::default()).unwrap(),
            }
            next = Some(b.gfx().0);
            if k == 0 {
                first = Some(b)
            } else {
                keep.push(b)
            }
        }
        let f = gpu.submit(EngineId::RENDER, first.unwrap()).unwrap();
        gpu.wait(f, 1_000_000).unwrap();
        assert!((0..100u32).all(|k| words(&buf)[16 + k as usize] == k));
        // A batch that loops forever: detected, reset, and the engine works again.
        let mut b = gpu.new_batch(4096).unwrap();
        let top = b.gfx().0;
        b.push(&bbs(top)).unwrap();
        let f = gpu.submit(EngineId::RENDER, b).unwrap();
        match gpu.wait(f, 20_000) {
            Err(GpuError::Hang(state)) => println!(
                "{}: hang detected as expected; ACTHD {:#x}",
                stringify!($gen),
                state.acthd
            ),
            other => panic!("expected a hang, got {:?}", other),
        }
        let b = gpu.new_batch(4096).unwrap();
        let f = gpu.submit(EngineId::RENDER, b).unwrap();
        gpu.wait(f, 1_000_000).unwrap();
        println!(
            "{}: {} commands, {} batches, {} resets",
            stringify!($gen),
            soft.stats().commands,
            soft.stats().batches,
            soft.stats().resets
        );
    }};
}

extern crate alloc;

/// The DG2 model's local memory behind the driver's BAR2 seam.
struct Bar2<'a>(&'a SoftGpu<PlatformBus<'a, BootPlatform>>);

impl LocalMemory for Bar2<'_> {
    fn local_size(&self) -> u64 {
        self.0.local_memory_size()
    }
    fn read_local(&self, offset: u64, buf: &mut [u8]) -> bool {
        self.0.read_local(offset, buf)
    }
    fn write_local(&self, offset: u64, data: &[u8]) -> bool {
        self.0.write_local(offset, data)
    }
}

/// The acceptance scenarios on the DG2 model, through `Gpu::new`'s
/// execlist backend (a smaller count of submissions than the host's tests:
/// TCG runs the model slowly).
fn exercise_dg2(platform: &BootPlatform) {
    use baregpu::hal::gen12_5::commands::*;
    let sdi = |address: u64, ggtt: bool, data_dword0: u32| MiStoreDataImm {
        use_global_gtt: ggtt,
        address,
        data_dword0,
        ..Default::default()
    };
    let soft = SoftGpu::new(Generation::Gen12_5, PlatformBus::new(platform)).unwrap();
    let bar = Bar2(&soft);
    let mut gpu = Gpu::with_local_memory(platform, &soft, Generation::Gen12_5, &bar).unwrap();
    // Stores on every engine, into system and local memory.
    let sys = gpu.buffer(4096, Placement::System).unwrap();
    let lmem = gpu.buffer(4096, Placement::Local).unwrap();
    let engines = gpu.engines().count();
    assert_eq!(engines, 3, "render, blitter, compute");
    for k in 0..engines {
        let mut b = gpu.new_batch(4096).unwrap();
        b.push(&sdi(sys.gfx().0 + 4 * k as u64, true, 0x100 + k as u32))
            .unwrap();
        b.push(&sdi(lmem.gfx().0 + 4 * k as u64, true, 0x200 + k as u32))
            .unwrap();
        let f = gpu.submit(EngineId(k), b).unwrap();
        gpu.wait(f, 1_000_000).unwrap();
    }
    for k in 0..engines as u64 {
        assert_eq!(sys.read_u32(k), Some(0x100 + k as u32));
        assert_eq!(lmem.read_u32(k), Some(0x200 + k as u32));
    }
    // A chain of 100 batches, each storing its index and jumping to the next.
    let mut next = None;
    let mut first = None;
    let mut keep = alloc::vec::Vec::new();
    for k in (0..100u32).rev() {
        let mut b = gpu.new_batch(4096).unwrap();
        b.push(&sdi(sys.gfx().0 + 64 + 4 * k as u64, true, k))
            .unwrap();
        match next {
            Some(a) => b
                .push(&MiBatchBufferStart {
                    batch_buffer_start_address: a,
                    ..Default::default()
                })
                .unwrap(),
            None => b.push(&MiBatchBufferEnd::default()).unwrap(),
        }
        next = Some(b.gfx().0);
        if k == 0 {
            first = Some(b)
        } else {
            keep.push(b)
        }
    }
    let render = gpu.engine_named("render").unwrap();
    let f = gpu.submit(render, first.unwrap()).unwrap();
    gpu.wait(f, 1_000_000).unwrap();
    assert!((0..100u64).all(|k| sys.read_u32(16 + k) == Some(k as u32)));
    // Sustained submission on the blitter: 300 batches, each logging its
    // number and counting itself in local memory, with no waits between
    // most of them (the 16 KiB ring wraps).
    let blitter = gpu.blit_engine().unwrap();
    let log = gpu.buffer(300 * 4, Placement::System).unwrap();
    let counter = gpu.buffer(4096, Placement::Local).unwrap();
    let mut last = None;
    for n in 0..300u32 {
        let mut b = gpu.new_batch(4096).unwrap();
        b.push(&sdi(log.gfx().0 + 4 * u64::from(n), true, n + 1))
            .unwrap();
        b.push(&MiAtomic {
            memory_address: counter.gfx().0,
            atomic_opcode: MiAtomic::ATOMIC_OPCODE_ATOMIC_INC,
            use_global_gtt: true,
            ..Default::default()
        })
        .unwrap();
        last = Some(gpu.submit(blitter, b).unwrap());
    }
    gpu.wait(last.unwrap(), 10_000_000).unwrap();
    assert!((0..300u32).all(|n| log.read_u32(u64::from(n)) == Some(n + 1)));
    assert_eq!(counter.read_u32(0), Some(300), "each batch ran once");
    // Interrupts: each engine's user interrupt, acknowledged.
    gpu.enable_user_interrupts();
    for k in 0..engines {
        let b = gpu.new_batch(4096).unwrap();
        let f = gpu.submit(EngineId(k), b).unwrap();
        gpu.wait(f, 1_000_000).unwrap();
        let got = gpu.take_interrupt_vectors().unwrap();
        assert!(
            got.iter()
                .any(|&(e, v)| e == EngineId(k) && v & USER_INTERRUPT != 0),
            "engine {k}: {got:?}"
        );
    }
    assert!(!gpu.interrupt_pending());
    // An unknown command: reported, decoded, and later work runs.
    let mut bad = gpu.new_batch(4096).unwrap();
    bad.push(&sdi(sys.gfx().0 + 1024, true, 1)).unwrap();
    bad.push_dwords(&[0x3f << 23, 0]).unwrap();
    bad.push(&sdi(sys.gfx().0 + 1028, true, 2)).unwrap();
    let f = gpu.submit(render, bad).unwrap();
    match gpu.wait(f, 1_000_000) {
        Err(GpuError::Hang(state)) => {
            assert_eq!(state.reason, HangReason::EngineError);
            assert_eq!(state.ipehr, 0x3f << 23);
        }
        other => panic!("expected an instruction error, got {:?}", other),
    }
    assert_eq!((sys.read_u32(256), sys.read_u32(257)), (Some(1), Some(0)));
    // A runaway batch: a hang; the batch queued behind it is lost; later work runs.
    let mut b = gpu.new_batch(4096).unwrap();
    let top = b.gfx().0;
    b.push(&MiBatchBufferStart {
        batch_buffer_start_address: top,
        ..Default::default()
    })
    .unwrap();
    let hung = gpu.submit(render, b).unwrap();
    let mut b = gpu.new_batch(4096).unwrap();
    b.push(&sdi(sys.gfx().0 + 1032, true, 3)).unwrap();
    let behind = gpu.submit(render, b).unwrap();
    match gpu.wait(hung, 20_000) {
        Err(GpuError::Hang(state)) => println!(
            "gen12_5: hang detected as expected; BB_ADDR {:#x}",
            state.bb_addr
        ),
        other => panic!("expected a hang, got {:?}", other),
    }
    assert_eq!(gpu.wait(behind, 20_000), Err(GpuError::Lost(behind)));
    assert_eq!(sys.read_u32(258), Some(0), "the lost batch did not run");
    let mut b = gpu.new_batch(4096).unwrap();
    b.push(&sdi(sys.gfx().0 + 1036, true, 4)).unwrap();
    let f = gpu.submit(render, b).unwrap();
    gpu.wait(f, 1_000_000).unwrap();
    assert_eq!(sys.read_u32(259), Some(4));
    // Two contexts: the same address in each is its own memory, and an
    // address only A maps faults in B (a reported page fault).
    let compute = gpu.engine_named("compute").unwrap();
    let a = gpu.create_context().unwrap();
    let b_ctx = gpu.create_context().unwrap();
    let buf_a = gpu.context_buffer(a, 4096, Placement::System).unwrap();
    let buf_b = gpu.context_buffer(b_ctx, 4096, Placement::Local).unwrap();
    assert_eq!(buf_a.gfx(), buf_b.gfx());
    for (ctx, v) in [(a, 0xaaaa), (b_ctx, 0xbbbb)] {
        let mut batch = gpu.new_context_batch(ctx, 4096).unwrap();
        batch.push(&sdi(buf_a.gfx().0, false, v)).unwrap();
        let f = gpu.submit(compute, batch).unwrap();
        gpu.wait(f, 1_000_000).unwrap();
    }
    assert_eq!(buf_a.read_u32(0), Some(0xaaaa));
    assert_eq!(buf_b.read_u32(0), Some(0xbbbb));
    let only_a = gpu.context_buffer(a, 16 * 4096, Placement::System).unwrap();
    let last_page = only_a.gfx().0 + 15 * 4096;
    let mut batch = gpu.new_context_batch(b_ctx, 4096).unwrap();
    batch.push(&sdi(last_page, false, 0xbad)).unwrap();
    let f = gpu.submit(compute, batch).unwrap();
    match gpu.wait(f, 1_000_000) {
        Err(GpuError::Hang(state)) => {
            assert_eq!(state.fault.map(|f| f.address), Some(last_page));
        }
        other => panic!("expected a page fault, got {:?}", other),
    }
    assert_eq!(only_a.read_u32(15 * 1024), Some(0));
    // B still runs after the fault and the reset.
    let mut batch = gpu.new_context_batch(b_ctx, 4096).unwrap();
    batch.push(&sdi(buf_b.gfx().0 + 4, false, 5)).unwrap();
    let f = gpu.submit(compute, batch).unwrap();
    gpu.wait(f, 1_000_000).unwrap();
    assert_eq!(buf_b.read_u32(1), Some(5));
    println!(
        "gen12_5: {} commands, {} batches, {} resets",
        soft.stats().commands,
        soft.stats().batches,
        soft.stats().resets
    );
}

fn run(_: &'static BootInfo) -> ! {
    let platform = BootPlatform::new();
    exercise!(
        gen4,
        Generation::Gen4,
        &platform,
        |address, data_dword0| MiStoreDataImm {
            use_global_gtt: true,
            address,
            data_dword0,
            ..Default::default()
        },
        |batch_buffer_start_address| MiBatchBufferStart {
            batch_buffer_start_address,
            buffer_address_space: MiBatchBufferStart::BUFFER_ADDRESS_SPACE_GTT,
            ..Default::default()
        }
    );
    exercise!(
        g45,
        Generation::G45,
        &platform,
        |address, data_dword0| MiStoreDataImm {
            use_global_gtt: true,
            address,
            data_dword0,
            ..Default::default()
        },
        |batch_buffer_start_address| MiBatchBufferStart {
            batch_buffer_start_address,
            buffer_address_space: MiBatchBufferStart::BUFFER_ADDRESS_SPACE_GTT,
            ..Default::default()
        }
    );
    exercise!(
        gen6,
        Generation::Gen6,
        &platform,
        |address, data_dword0| MiStoreDataImm {
            use_global_gtt: true,
            address,
            data_dword0,
            data_dword1: None,
        },
        |batch_buffer_start_address| MiBatchBufferStart {
            batch_buffer_start_address,
            ..Default::default()
        }
    );
    exercise!(
        gen7,
        Generation::Gen7,
        &platform,
        |address, data_dword0| MiStoreDataImm {
            use_global_gtt: true,
            address,
            data_dword0,
            data_dword1: None,
        },
        |batch_buffer_start_address| MiBatchBufferStart {
            batch_buffer_start_address,
            ..Default::default()
        }
    );
    exercise_dg2(&platform);
    println!("[ok] submit_soft");
    exit_qemu(ExitCode::Success)
}
