//! Mappings at fixed graphics addresses (GGTT and PPGTT), bring-up around
//! ranges the caller keeps free, and batches placed in the caller's memory,
//! on the software GPU through the public API.

use baregpu::gtt::{GfxAddr, GttError};
use baregpu::hal::Packet;
use baregpu::platform::PlatformBus;
use baregpu::platform::host::HostPlatform;
use baregpu::{EngineId, Generation, Gpu, GpuError};
use baregpu_soft::SoftGpu;

mod support;
use support::words;

fn soft(p: &HostPlatform, g: Generation) -> SoftGpu<PlatformBus<'_, HostPlatform>> {
    // Headless: no firmware console holds the low GGTT addresses these tests ask for.
    SoftGpu::new(g, PlatformBus::new(p))
        .expect("software GPU")
        .with_firmware_mode(None)
}

/// The GGTT ranges of the driver's own objects as the device sees them:
/// each engine's ring (RING_START, 32 KiB) and, where HWS_PGA holds a GGTT
/// address (G45 on), its status page.
fn driver_ranges(gpu: &Gpu<'_, HostPlatform>, g: Generation) -> Vec<(u64, u64)> {
    let mmio = gpu.mmio();
    let mut out = Vec::new();
    for e in gpu.engines() {
        out.push((mmio.read32(e.base + e.ring.start) as u64, 32 << 10));
        if g != Generation::Gen4 {
            out.push((mmio.read32(e.hws_pga) as u64 & !0xfff, 4096));
        }
    }
    out
}

fn occupied(r: Result<impl std::fmt::Debug, GpuError>) -> bool {
    matches!(r, Err(GpuError::Gtt(GttError::Occupied { .. })))
}

#[test]
fn fixed_ggtt_mappings_refuse_used_unaligned_and_out_of_range_addresses() {
    for g in [
        Generation::Gen4,
        Generation::G45,
        Generation::Gen6,
        Generation::Gen7,
    ] {
        let p = HostPlatform::new();
        let soft = soft(&p, g);
        let mut gpu = Gpu::new(&p, &soft, g).unwrap();
        // Where the driver put its rings and status pages.
        for (at, _) in driver_ranges(&gpu, g) {
            assert!(
                occupied(gpu.map_buffer_at(GfxAddr(at), 4096)),
                "{g}: {at:#x}"
            );
        }
        assert!(occupied(gpu.map_buffer_at(GfxAddr(0), 4096)), "{g}: page 0");
        assert_eq!(
            gpu.map_buffer_at(GfxAddr(0x10_0800), 4096).err(),
            Some(GpuError::Gtt(GttError::Unaligned(GfxAddr(0x10_0800))))
        );
        let size = gpu.ggtt().unwrap().layout().entries as u64 * 4096;
        assert!(matches!(
            gpu.map_buffer_at(GfxAddr(size - 4096), 8192),
            Err(GpuError::Gtt(GttError::OutOfRange { .. }))
        ));
        // The last page itself is mappable; a second mapping there is not.
        let free = gpu.ggtt().unwrap().free_pages();
        let (region, m) = gpu.map_buffer_at(GfxAddr(size - 4096), 4096).unwrap();
        assert_eq!(m.gfx, GfxAddr(size - 4096));
        assert!(occupied(gpu.map_buffer_at(GfxAddr(size - 8192), 8192)));
        // No batch used it: unmapped, then its memory goes back.
        gpu.unmap(m);
        drop(region);
        assert_eq!(
            gpu.ggtt().unwrap().free_pages(),
            free,
            "{g}: the range went back"
        );
    }
}

#[test]
fn bring_up_keeps_the_callers_ranges_free() {
    for g in [
        Generation::Gen4,
        Generation::G45,
        Generation::Gen6,
        Generation::Gen7,
    ] {
        let p = HostPlatform::new();
        let soft = soft(&p, g);
        // Where a plain bring-up puts the first ring: ask for it.
        let low = {
            let gpu = Gpu::new(&p, &soft, g).unwrap();
            driver_ranges(&gpu, g)
        };
        let keep = [(GfxAddr(0x1000), 0x8_0000u64), (GfxAddr(0x10_0000), 0x1000)];
        assert!(
            low.iter().any(|&(a, _)| a < 0x8_1000),
            "{g}: the test asks for a used range"
        );
        let soft = self::soft(&p, g);
        let mut gpu = Gpu::new_avoiding(&p, &soft, g, &keep).unwrap();
        for (at, bytes) in driver_ranges(&gpu, g) {
            for &(k, n) in &keep {
                assert!(
                    at + bytes <= k.0 || k.0 + n <= at,
                    "{g}: {at:#x} inside {k:?}"
                );
            }
        }
        let (buf, m) = gpu.map_buffer_at(GfxAddr(0x1000), 0x8_0000).unwrap();
        assert_eq!(m.gfx, GfxAddr(0x1000));
        let _second = gpu.map_buffer_at(GfxAddr(0x10_0000), 4096).unwrap();
        // The device sees the memory there: a store from a driver batch on
        // the render ring lands in it.
        let mut b = gpu.new_batch(4096).unwrap();
        b.push_dwords(&store(g, 0x1000 + 0x7_fff8, 0x600d_f00d))
            .unwrap();
        let f = gpu.submit(EngineId::RENDER, b).unwrap();
        gpu.wait(f, 5_000_000).unwrap();
        assert_eq!(words(&buf)[0x7_fff8 / 4], 0x600d_f00d, "{g}");
        // Ranges that overlap, hold page 0 or leave the GGTT are refused.
        let soft = self::soft(&p, g);
        for bad in [
            &[(GfxAddr(0x1000), 0x2000), (GfxAddr(0x2000), 0x1000)][..],
            &[(GfxAddr(0), 0x1000)],
            &[(GfxAddr(0x8000_0000), 0x1000)],
            &[(GfxAddr(0x1800), 0x1000)],
        ] {
            assert!(
                matches!(Gpu::new_avoiding(&p, &soft, g, bad), Err(GpuError::Gtt(_))),
                "{g}: {bad:?}"
            );
        }
    }
}

/// MI_STORE_DATA_IMM of one dword through the GGTT.
fn store(g: Generation, addr: u64, value: u32) -> Vec<u32> {
    use baregpu::hal::{g45, gen4, gen6, gen7};
    let mut out = vec![0; 4];
    // One name for the GTT bit on every generation: only the module differs.
    macro_rules! sdi {
        ($gen:ident) => {
            $gen::commands::MiStoreDataImm {
                use_global_gtt: true,
                address: addr,
                data_dword0: value,
                ..Default::default()
            }
            .pack(&mut out)
        };
    }
    let n = match g {
        Generation::Gen4 => sdi!(gen4),
        Generation::G45 => sdi!(g45),
        Generation::Gen6 => sdi!(gen6),
        _ => sdi!(gen7),
    }
    .unwrap();
    out.truncate(n);
    out
}

#[test]
fn fixed_ppgtt_mappings_and_a_placed_batch_in_a_context() {
    use baregpu::hal::gen7::commands::{MiBatchBufferEnd, MiStoreDataImm};
    let g = Generation::Gen7;
    let p = HostPlatform::new();
    let soft = soft(&p, g);
    let mut gpu = Gpu::new(&p, &soft, g).unwrap();
    let ring_at = driver_ranges(&gpu, g)[0].0;
    let ctx = gpu.create_context().unwrap();
    // The PPGTT is its own space: the GGTT's ring address is free there.
    let (target, _) = gpu.map_in_context_at(ctx, GfxAddr(ring_at), 4096).unwrap();
    assert!(occupied(gpu.map_in_context_at(ctx, GfxAddr(ring_at), 4096)));
    assert!(occupied(gpu.map_in_context_at(ctx, GfxAddr(0), 4096)));
    assert!(matches!(
        gpu.map_in_context_at(ctx, GfxAddr(0x7fff_f000), 8192),
        Err(GpuError::Gtt(GttError::OutOfRange { .. }))
    ));
    // A batch the caller writes at 0x100 into an object at 0x4000_0000.
    let (code, gfx) = gpu
        .map_in_context_at(ctx, GfxAddr(0x4000_0000), 8192)
        .unwrap();
    let mut batch = vec![0u32; 4];
    MiStoreDataImm {
        address: ring_at + 12,
        data_dword0: 0xc0ff_ee00,
        ..Default::default()
    }
    .pack(&mut batch)
    .unwrap();
    batch.push(MiBatchBufferEnd::HEADER_VALUE);
    for (k, &d) in batch.iter().enumerate() {
        code.write_u32(0x40 + k, d).unwrap();
    }
    // SAFETY: `code` outlives the Gpu's use of it (dropped after the wait).
    let placed = |at: u64| unsafe { gpu.placed_batch(&code, gfx, GfxAddr(at), Some(ctx), 20) };
    assert!(placed(0x4000_0102).is_none(), "not a dword");
    assert!(placed(0x4000_2000).is_none(), "past the object");
    assert!(placed(0x3fff_fffc).is_none(), "before the object");
    let mut b = placed(0x4000_0100).unwrap();
    assert!(
        b.push_dwords(&[0]).is_err(),
        "the driver does not write into it"
    );
    assert_eq!(b.contents(), &batch[..]);
    let f = gpu.submit(EngineId::RENDER, b).unwrap();
    gpu.wait(f, 5_000_000).unwrap();
    assert_eq!(words(&target)[3], 0xc0ff_ee00);
    // Submitted as it is: nothing after its MI_BATCH_BUFFER_END was written.
    assert_eq!(code.read_u32(0x40 + batch.len()).unwrap(), 0);
}

/// The GGTT's size is the one the GPU reports in the field its device description
/// names (SNB_GMCH_CTRL on Gen6/Gen7, PGTBL_CTL on Gen4/G45), not a fixed table.
mod gtt_size {
    use baregpu::gtt::GttError;
    use baregpu::hal::{ConfigSpace, Generation, Mmio};
    use baregpu::platform::PlatformBus;
    use baregpu::platform::host::HostPlatform;
    use baregpu::{Gpu, GpuError};
    use baregpu_soft::SoftGpu;

    #[test]
    fn the_driver_reads_the_size_the_gpu_reports() {
        for generation in [
            Generation::Gen4,
            Generation::G45,
            Generation::Gen6,
            Generation::Gen7,
        ] {
            let p = HostPlatform::new();
            let soft = SoftGpu::new(generation, PlatformBus::new(&p)).unwrap();
            let described = baregpu::hal::device::of(generation).unwrap().gtt.entries;
            let mut gpu = Gpu::new(&p, &soft, generation).unwrap();
            assert_eq!(
                gpu.ggtt().unwrap().layout().entries,
                described,
                "{generation:?}"
            );
        }
    }

    #[test]
    fn gen6_with_1_mib_of_ptes_has_half_the_entries() {
        let p = HostPlatform::new();
        let soft = SoftGpu::new(Generation::Gen6, PlatformBus::new(&p)).unwrap();
        // SNB_GMCH_CTRL (configuration word 0x50) bits 9:8: 1 = 1 MiB of PTEs.
        let word = soft.config_read32(0x50);
        soft.config_write32(0x50, (word & !(3 << 8)) | (1 << 8));
        let mut gpu = Gpu::new(&p, &soft, Generation::Gen6).unwrap();
        assert_eq!(gpu.ggtt().unwrap().layout().entries, 256 * 1024);
    }

    #[test]
    fn a_gpu_without_a_gtt_is_refused_with_the_register_value() {
        let p = HostPlatform::new();
        let soft = SoftGpu::new(Generation::Gen7, PlatformBus::new(&p)).unwrap();
        let word = soft.config_read32(0x50);
        soft.config_write32(0x50, word & !(3 << 8));
        let err = Gpu::new(&p, &soft, Generation::Gen7).err().expect("no GTT");
        assert!(
            matches!(err, GpuError::Gtt(GttError::NoGttSize { raw }) if raw & (3 << 8) == 0),
            "{err:?}"
        );
        assert!(err.to_string().contains("no usable GTT size"), "{err}");
    }

    #[test]
    fn the_965_size_field_is_bounded_by_its_bar() {
        let p = HostPlatform::new();
        let soft = SoftGpu::new(Generation::Gen4, PlatformBus::new(&p)).unwrap();
        // PGTBL_CTL bits 3:1 = 4: 2 MiB of PTEs, more than the 965's BAR holds past its
        // 512 KiB alias offset.
        let pgtbl_ctl = baregpu::hal::gen4::regs::PGTBL_CTL.offset();
        let ctl = soft.read32(pgtbl_ctl);
        soft.write32(pgtbl_ctl, (ctl & !0xe) | (4 << 1));
        let mut gpu = Gpu::new(&p, &soft, Generation::Gen4).unwrap();
        let gtt = baregpu::hal::device::of(Generation::Gen4).unwrap().gtt;
        assert_eq!(
            gpu.ggtt().unwrap().layout().entries,
            (gtt.bar_size - gtt.alias_offset) / 4
        );
        assert!((gtt.bar_size - gtt.alias_offset) / 4 < 2048 * 256);
    }
}
