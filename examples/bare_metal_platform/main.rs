//! What an OS writes to embed baregpu: a `baregpu::Platform` for a kernel
//! that maps physical memory at a fixed offset (0 for an identity-mapped
//! kernel), with DMA memory from a static arena handed out by a bump
//! allocator, PCI configuration space through ports 0xCF8/0xCFC, and the
//! kernel's clock.
//! Then the start-up: probe the PCI bus, and run a batch on the software GPU
//! when no supported GPU is present.
//!
//! Copy `kernel_platform.rs` into the kernel: it uses `core` and `spin`
//! only. `main` below is the host stand-in for the kernel
//! (`cargo run --example bare_metal_platform`): user space may not touch the
//! PCI ports, so it passes `PciAccess::Absent` (an empty bus), and the arena
//! is given a made-up physical address as if the kernel's direct map held it
//! there. `boot/src/platform.rs` is the complete platform of the QEMU kernel.

use std::sync::OnceLock;
use std::time::Instant;

use baregpu::hal::gen7::commands::MiStoreDataImm;
use baregpu::platform::PlatformBus;
use baregpu::{Backend, EngineId, Generation, Gpu};
use baregpu_soft::SoftGpu;

use kernel_platform::{Arena, KernelPlatform, PciAccess};

mod kernel_platform;

/// DMA memory for the GPU.
static ARENA: Arena<{ 1 << 20 }> = Arena::new();

/// Where the host stand-in pretends the arena lies in physical memory (a
/// GGTT entry holds at most 40 address bits on Gen7; a user-space address
/// may have more).
const HOST_ARENA_PHYS: u64 = 0x1000_0000;

/// The host stand-in for the kernel's clock.
fn host_clock_ns() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

fn main() -> Result<(), String> {
    // In the kernel: `KernelPlatform::new(&ARENA, 0, PciAccess::PortIo, clock)`
    // for an identity map, or the offset of its direct map.
    let direct_map_offset = (ARENA.as_ptr() as u64).wrapping_sub(HOST_ARENA_PHYS);
    let pci = if cfg!(target_os = "none") {
        PciAccess::PortIo
    } else {
        PciAccess::Absent
    };
    let platform = KernelPlatform::new(&ARENA, direct_map_offset, pci, host_clock_ns);

    let report = baregpu::probe(&platform);
    println!("{report}");
    let generation = match report.backend {
        Backend::Software => Generation::Gen7,
        Backend::Hardware { generation, .. } => {
            // A supported GPU: hand `Gpu::new` its register BAR mapped with
            // `map_mmio` (a `baregpu::hal::VolatileMmio`) and its
            // configuration space (`baregpu::pci::PciConfig`) as one
            // `baregpu::hal::SplitDevice`. This example drives the software
            // GPU only.
            println!("a {generation} GPU is present; this example uses the software GPU");
            Generation::Gen7
        }
    };

    let soft = SoftGpu::new(generation, PlatformBus::new(&platform))
        .map_err(|e| format!("software GPU: {e:?}"))?;
    let mut gpu = Gpu::new(&platform, &soft, generation).map_err(|e| e.to_string())?;
    let (buffer, mapping) = gpu.map_buffer(4096).map_err(|e| e.to_string())?;
    let mut batch = gpu.new_batch(4096).map_err(|e| e.to_string())?;
    batch
        .push(&MiStoreDataImm {
            use_global_gtt: true,
            address: mapping.gfx.0,
            data_dword0: 0x0b0a_4d00,
            data_dword1: None,
        })
        .map_err(|e| format!("batch: {e:?}"))?;
    let fence = gpu
        .submit(EngineId::RENDER, batch)
        .map_err(|e| e.to_string())?;
    // One second on the kernel's clock.
    gpu.wait(fence, 1_000_000).map_err(|e| e.to_string())?;

    // The fence passed, so the GPU is done with the buffer: a volatile read.
    let first = buffer.read_u32(0).map_err(|e| e.to_string())?;
    println!(
        "arena page at physical {} holds {first:#010x} ({} KiB of the arena in use)",
        buffer.phys(),
        platform.dma_bytes_in_use() / 1024
    );
    if first != 0x0b0a_4d00 {
        return Err("the store did not land".into());
    }
    // DMA memory is owned: `buffer` (a `baregpu::Dma`) and everything the
    // `Gpu` allocated go back through `Platform::dma_free` as they are
    // dropped; the kernel never calls it itself. Unmap before dropping.
    gpu.unmap(mapping);
    drop(buffer);
    drop(gpu);
    println!(
        "after the drops: {} KiB of the arena in use (a bump allocator takes back only its last region)",
        platform.dma_bytes_in_use() / 1024
    );
    Ok(())
}
