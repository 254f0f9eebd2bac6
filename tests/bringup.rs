//! The bring-up steps before the engines (`baregpu::bringup`) against the
//! software GPU, per generation: bus mastering, the GTT and stolen memory as the
//! graphics control registers report them, the firmware's GGTT ranges kept and
//! never handed out, and the scratch page behind every unused entry.

use baregpu::bringup::Stolen;
use baregpu::gtt::{Caching, GfxAddr, GttError, decode_pte};
use baregpu::hal::{ConfigSpace, Mmio};
use baregpu::platform::host::{HostPlatform, SimPciDevice};
use baregpu::platform::{PciAddress, PlatformBus};
use baregpu::{DmaRegion, EngineId, Generation, Gpu, GpuError, PhysAddr};
use baregpu_soft::SoftGpu;

const GENERATIONS: [Generation; 4] = [
    Generation::Gen4,
    Generation::G45,
    Generation::Gen6,
    Generation::Gen7,
];

type Soft<'p> = SoftGpu<PlatformBus<'p, HostPlatform>>;

fn soft(p: &HostPlatform, g: Generation) -> Soft<'_> {
    SoftGpu::new(g, PlatformBus::new(p)).expect("software GPU")
}

/// The GGTT alias offset of the generation.
fn alias(g: Generation) -> u32 {
    baregpu::hal::device::of(g).unwrap().gtt.alias_offset
}

/// On Gen4/G45 the stolen size is in the host bridge's GMCH_CTRL (0x52 bits 7:4):
/// a bridge whose GMS field is `gms`.
fn add_host_bridge(p: &HostPlatform, gms: u32) {
    let mut bridge = SimPciDevice::new(0x8086, 0x2a40, 0x060000);
    bridge.config[0x50 / 4] = (gms << 4) << 16;
    p.add_pci_device(PciAddress::new(0, 0, 0), bridge);
}

/// A store of `value` at `gfx` through the GGTT, on the render engine; waits.
fn store(gpu: &mut Gpu<'_, HostPlatform>, gfx: u64, value: u32) -> Result<(), GpuError> {
    let mut b = gpu.new_batch(4096)?;
    match gpu.generation() {
        Generation::Gen4 | Generation::G45 => {
            b.push(&baregpu::hal::gen4::commands::MiStoreDataImm {
                use_global_gtt: true,
                address: gfx,
                data_dword0: value,
                data_dword1: None,
                ..Default::default()
            })
        }
        _ => b.push(&baregpu::hal::gen6::commands::MiStoreDataImm {
            use_global_gtt: true,
            address: gfx,
            data_dword0: value,
            data_dword1: None,
        }),
    }
    .map_err(|_| GpuError::BringUp("packet"))?;
    let f = gpu.submit(EngineId::RENDER, b)?;
    gpu.wait(f, 1_000_000)
}

#[test]
fn the_driver_turns_on_memory_space_and_bus_mastering() {
    for g in GENERATIONS {
        let p = HostPlatform::new();
        // As after a reset: the GPU reaches no memory until a driver lets it.
        let soft = soft(&p, g).with_pci_command(0);
        let mut gpu = Gpu::new(&p, &soft, g).unwrap();
        let report = gpu.bring_up().clone();
        assert_eq!(report.command_before, 0, "{g}");
        assert_eq!(report.command_after & 0x6, 0x6, "{g}: {report}");
        assert_eq!(soft.config_read32(4) & 0x6, 0x6, "{g}");
        let (buf, map) = gpu.map_buffer(4096).unwrap();
        store(&mut gpu, map.gfx.0, 0x600d).unwrap();
        assert_eq!(buf.to_u32s()[0], 0x600d, "{g}");
        // Without bus mastering the GPU reaches no memory: the next batch is
        // never fetched, and the driver reports the engine as hung.
        soft.config_write32(4, 0x2);
        let err = store(&mut gpu, map.gfx.0, 0xbad).unwrap_err();
        assert!(matches!(err, GpuError::Hang(_)), "{g}: {err}");
        assert_eq!(buf.to_u32s()[0], 0x600d, "{g}");
    }
}

#[test]
fn stolen_memory_comes_from_the_graphics_control_registers() {
    for g in GENERATIONS {
        let p = HostPlatform::new();
        let gen4 = matches!(g, Generation::Gen4 | Generation::G45);
        if gen4 {
            add_host_bridge(&p, 0x7); // 64 MiB (Linux I915_GMCH_GMS_STOLEN_64M)
        }
        let soft = soft(&p, g).with_stolen(0x6000_0000, 64 << 20).unwrap();
        let gpu = Gpu::new(&p, &soft, g).unwrap();
        assert_eq!(
            gpu.bring_up().stolen,
            Some(Stolen {
                base: PhysAddr(0x6000_0000),
                bytes: 64 << 20
            }),
            "{g}"
        );
        if !gen4 {
            // SNB_GMCH_CTRL GMS = 2 (units of 32 MiB) in bits 7:3 of word 0x50.
            assert_eq!((soft.config_read32(0x50) >> 3) & 0x1f, 2, "{g}");
        }
        // The GTT size the driver uses is the one the GPU reports.
        assert_eq!(
            gpu.bring_up().ggtt_entries,
            baregpu::hal::device::of(g).unwrap().gtt.entries,
            "{g}"
        );
    }
    // Gen4 without a host bridge that answers: stolen memory is unknown, not guessed.
    let p = HostPlatform::new();
    let soft = soft(&p, Generation::Gen4);
    let gpu = Gpu::new(&p, &soft, Generation::Gen4).unwrap();
    assert_eq!(gpu.bring_up().stolen, None);
}

#[test]
fn the_firmwares_ggtt_ranges_are_kept_and_never_handed_out() {
    for g in GENERATIONS {
        let p = HostPlatform::new();
        if matches!(g, Generation::Gen4 | Generation::G45) {
            add_host_bridge(&p, 0x5); // 32 MiB
        }
        let base = 0x7800_0000u64;
        // Headless, so that the entries written below are the firmware's only ones.
        let soft = soft(&p, g)
            .with_firmware_mode(None)
            .with_stolen(base, 32 << 20)
            .unwrap();
        // The firmware's console: 300 pages of stolen memory at GGTT page 0, and
        // 16 more at page 1000; an entry outside stolen memory at page 2000.
        let pte = |phys: u64| baregpu::gtt::ggtt::encode_pte(g, phys, Caching::Uncached).unwrap();
        for i in 0..300u32 {
            soft.write32(alias(g) + 4 * i, pte(base + u64::from(i) * 4096));
        }
        for i in 0..16u32 {
            soft.write32(
                alias(g) + 4 * (1000 + i),
                pte(base + (1 << 20) + u64::from(i) * 4096),
            );
        }
        soft.write32(alias(g) + 4 * 2000, pte(0x1_2345_6000));
        let mut gpu = Gpu::new(&p, &soft, g).unwrap();
        let kept: Vec<(u64, u64)> = gpu
            .bring_up()
            .firmware_ranges
            .iter()
            .map(|m| (m.gfx.0, m.pages))
            .collect();
        assert_eq!(kept, [(0, 300), (1000 * 4096, 16)], "{g}");
        // Untouched, and the stale entry outside stolen memory went to the scratch page.
        assert_eq!(
            soft.read32(alias(g) + 4 * 299),
            pte(base + 299 * 4096),
            "{g}"
        );
        assert_eq!(
            soft.read32(alias(g) + 4 * 1015),
            pte(base + (1 << 20) + 15 * 4096),
            "{g}"
        );
        let scratch = gpu.bring_up().scratch.expect("a scratch page").0;
        assert_eq!(
            decode_pte(g, soft.read32(alias(g) + 4 * 2000)),
            Some(scratch),
            "{g}"
        );
        // Never handed out: fixed addresses inside refuse, and no allocation lands there.
        assert!(
            matches!(
                gpu.map_buffer_at(GfxAddr(1004 * 4096), 4096),
                Err(GpuError::Gtt(GttError::Occupied { .. }))
            ),
            "{g}"
        );
        for _ in 0..8 {
            let (_b, m) = gpu.map_buffer(64 << 10).unwrap();
            let (first, last) = (m.gfx.0 / 4096, m.gfx.0 / 4096 + m.pages);
            assert!(last <= 1000 || first >= 1016, "{g}: {first}..{last}");
            assert!(first >= 300, "{g}: {first}");
        }
        // Memory in stolen memory is refused, whoever hands it out.
        let mut page = [0u8; 4096];
        let in_stolen = DmaRegion {
            phys: PhysAddr(base + (8 << 20)),
            virt: core::ptr::NonNull::new(page.as_mut_ptr()).unwrap(),
            size: 4096,
        };
        let mmio = gpu.mmio();
        assert_eq!(
            gpu.ggtt().unwrap().map(mmio, &in_stolen, Caching::Llc),
            Err(GttError::InStolen {
                phys: base + (8 << 20)
            }),
            "{g}"
        );
    }
}

#[test]
fn a_scratch_page_is_behind_every_unused_entry() {
    for g in GENERATIONS {
        let p = HostPlatform::new();
        // Headless: entry 0 holds no firmware console.
        let soft = soft(&p, g).with_firmware_mode(None);
        let mut gpu = Gpu::new(&p, &soft, g).unwrap();
        let scratch = gpu.bring_up().scratch.expect("a scratch page").0;
        let entries = gpu.bring_up().ggtt_entries;
        for index in [0, entries / 2, entries - 1] {
            let pte = soft.read32(alias(g) + 4 * index);
            assert_eq!(
                decode_pte(g, pte),
                Some(scratch),
                "{g}: entry {index} = {pte:#x}"
            );
        }
        // A mapping given back points at the scratch page again.
        let (_buf, map) = gpu.map_buffer(8192).unwrap();
        let index = (map.gfx.0 / 4096) as u32;
        assert_ne!(
            decode_pte(g, soft.read32(alias(g) + 4 * index)),
            Some(scratch)
        );
        gpu.unmap(map);
        assert_eq!(
            decode_pte(g, soft.read32(alias(g) + 4 * (index + 1))),
            Some(scratch),
            "{g}"
        );
        // A stray store to an address nothing uses lands in the scratch page: no
        // fault, no engine reset.
        let stray = u64::from(entries - 8) * 4096 + 0x40;
        store(&mut gpu, stray, 0x5c4a7c4).unwrap();
        let mut word = [0u8; 4];
        baregpu::hal::MemoryBus::read(&PlatformBus::new(&p), scratch + 0x40, &mut word).unwrap();
        assert_eq!(u32::from_le_bytes(word), 0x5c4a7c4, "{g}");
    }
}

#[test]
fn ring_initialisation_writes_the_mode_registers_as_i915_does() {
    for g in GENERATIONS {
        let p = HostPlatform::new();
        let soft = soft(&p, g);
        let _gpu = Gpu::new(&p, &soft, g).unwrap();
        let init = baregpu::hal::device::of(g).unwrap().init;
        assert!(!init.is_empty(), "{g}");
        for w in init {
            let enables = w.value >> 16;
            assert_eq!(
                soft.read32(w.register) & enables,
                w.value & enables,
                "{g}: register {:#x}",
                w.register
            );
        }
    }
    // Spelled out for Sandy Bridge (i915 init_render_ring): MI_MODE VS timer
    // dispatch (6) and async flip performance mode disabled (14), GFX_MODE flush
    // TLB invalidation mode (13), INSTPM force ordering (7).
    let p = HostPlatform::new();
    let soft = soft(&p, Generation::Gen6);
    let _gpu = Gpu::new(&p, &soft, Generation::Gen6).unwrap();
    assert_eq!(soft.read32(0x209c) & 0x4040, 0x4040);
    assert_eq!(soft.read32(0x2520) & (1 << 13), 1 << 13);
    assert_eq!(soft.read32(0x20c0) & (1 << 7), 1 << 7);
}

#[test]
fn the_models_firmware_console_in_stolen_memory_is_kept() {
    // The model's firmware lights pipe A at 1024x768 XRGB8888 from GGTT 0, its
    // surface in stolen memory: 768 pages the driver keeps.
    for g in GENERATIONS {
        let p = HostPlatform::new();
        if matches!(g, Generation::Gen4 | Generation::G45) {
            add_host_bridge(&p, 0x5); // 32 MiB, the model's stolen size
        }
        let soft = soft(&p, g);
        let before: Vec<u32> = (0..768).map(|i| soft.read32(alias(g) + 4 * i)).collect();
        let gpu = Gpu::new(&p, &soft, g).unwrap();
        let kept: Vec<(u64, u64)> = gpu
            .bring_up()
            .firmware_ranges
            .iter()
            .map(|m| (m.gfx.0, m.pages))
            .collect();
        assert_eq!(kept, [(0, 768)], "{g}");
        let after: Vec<u32> = (0..768).map(|i| soft.read32(alias(g) + 4 * i)).collect();
        assert_eq!(before, after, "{g}");
        let stolen = gpu.bring_up().stolen.unwrap();
        assert_eq!(
            decode_pte(g, after[767]),
            Some(stolen.base.0 + 767 * 4096),
            "{g}"
        );
    }
}
