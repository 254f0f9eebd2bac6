//! The smallest host program: the software GPU behind the driver, one batch
//! that stores a dword through the GGTT, a wait on its fence, and a look at
//! the memory the GPU wrote.
//!
//! `cargo run --example host`. The same driver calls drive a real GPU; only
//! the device handed to `Gpu::new` differs (see `bare_metal_platform.rs`).

use baregpu::hal::gen7::commands::MiStoreDataImm;
use baregpu::platform::PlatformBus;
use baregpu::platform::host::HostPlatform;
use baregpu::{EngineId, Generation, Gpu};
use baregpu_soft::SoftGpu;

fn main() -> Result<(), String> {
    // Heap memory under made-up physical addresses, no PCI devices, and a
    // clock that only the driver's waits advance.
    let platform = HostPlatform::new();
    // The software GPU reaches memory the way a GPU does: by physical address
    // through the platform.
    let soft = SoftGpu::new(Generation::Gen7, PlatformBus::new(&platform))
        .map_err(|e| format!("software GPU: {e:?}"))?;
    let mut gpu = Gpu::new(&platform, &soft, Generation::Gen7).map_err(|e| e.to_string())?;

    // A page the GPU may write, mapped in the GGTT. `buffer` is a `Dma`: it
    // owns the page and gives it back to the platform when dropped.
    let (buffer, mapping) = gpu.map_buffer(4096).map_err(|e| e.to_string())?;
    let mut batch = gpu.new_batch(4096).map_err(|e| e.to_string())?;
    batch
        .push(&MiStoreDataImm {
            use_global_gtt: true,
            address: mapping.gfx.0,
            data_dword0: 0xc0ff_ee00,
            data_dword1: None,
        })
        .map_err(|e| format!("batch: {e:?}"))?;
    let fence = gpu
        .submit(EngineId::RENDER, batch)
        .map_err(|e| e.to_string())?;
    gpu.wait(fence, 1_000_000).map_err(|e| e.to_string())?;

    // The GPU is done with the buffer (the fence passed): a volatile read.
    let first = buffer.read_u32(0).map_err(|e| e.to_string())?;
    println!(
        "render engine finished seqno {}; GGTT {:#x} (physical {}) holds {first:#010x}",
        fence.seqno,
        mapping.gfx.0,
        buffer.phys()
    );
    if first != 0xc0ff_ee00 {
        return Err("the store did not land".into());
    }

    // Nothing is freed by hand: unmapping gives the GGTT range back, dropping
    // the buffer its page, and dropping the `Gpu` stops the rings and gives
    // back the rings, status pages and batches it owns.
    gpu.unmap(mapping);
    drop(buffer);
    drop(gpu);
    println!(
        "DMA memory in use after the drops: {} bytes",
        platform.dma_bytes_in_use()
    );
    Ok(())
}
