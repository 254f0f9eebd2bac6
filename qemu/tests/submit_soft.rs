//! The driver's submission path on the software GPU inside the kernel, for
//! Gen4, G45, Gen6 and Gen7: stores seen by the CPU on every engine, a chain
//! of batches, and a runaway batch detected as a hang and recovered.
#![cfg_attr(target_os = "none", no_std, no_main)]

use baregpu::hal::Generation;
use baregpu::platform::PlatformBus;
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
    println!("[ok] submit_soft");
    exit_qemu(ExitCode::Success)
}
