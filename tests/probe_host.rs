//! Probe and device table through the public API, on the host platform's
//! simulated PCI bus.

use baregpu::pci::{Bar, PciAddress};
use baregpu::platform::host::{HostPlatform, SimPciDevice};
use baregpu::probe::{Support, devices};
use baregpu::{Backend, Generation, probe};

/// (device ID, generation) pairs checked one by one against Linux's
/// i915_pciids.h lists: one or more per family, from both ends of each range.
const KNOWN: &[(u16, Generation)] = &[
    (0x2972, Generation::Gen4), // 946GZ
    (0x2982, Generation::Gen4), // G35
    (0x29a2, Generation::Gen4), // 965G
    (0x2a02, Generation::Gen4), // 965GM
    (0x2a12, Generation::Gen4), // 965GME
    (0x2a42, Generation::G45),  // GM45
    (0x2e02, Generation::G45),
    (0x2e22, Generation::G45), // G45
    (0x2e32, Generation::G45), // G41
    (0x2e92, Generation::G45), // B43
    (0x0102, Generation::Gen6),
    (0x0116, Generation::Gen6),
    (0x0126, Generation::Gen6),
    (0x0152, Generation::Gen7),
    (0x0166, Generation::Gen7),
    (0x016a, Generation::Gen7),
    (0x5690, Generation::Gen12_5),
    (0x56a0, Generation::Gen12_5), // Arc A770
    (0x56a5, Generation::Gen12_5), // Arc A380
    (0x56b3, Generation::Gen12_5),
    (0x56bf, Generation::Gen12_5),
    (0x56c1, Generation::Gen12_5), // ATS-M75
];

/// Intel display IDs that exist but are not supported (Gen3, Gen5, Gen7.5,
/// Gen8, Gen9, Gen12 ...) or are made up: all must be "unknown".
const UNKNOWN: &[u16] = &[
    0x29c2, // G33 (Gen3)
    0xa011, // Pineview (Gen3)
    0x0042, // Ironlake (Gen5)
    0x0046, // Ironlake mobile (Gen5)
    0x0412, // Haswell GT2 (Gen7.5)
    0x0f31, // Valleyview
    0x1616, // Broadwell (Gen8)
    0x1912, // Skylake (Gen9)
    0x9a49, // Tiger Lake (Gen12)
    0x56c3, // next to ATS-M, not in the list
    0x0000, 0xffff,
];

#[test]
fn known_ids_map_to_their_generation() {
    for &(id, generation) in KNOWN {
        let info = devices::lookup(id).unwrap_or_else(|| panic!("{id:#06x} should be known"));
        assert_eq!(info.generation, generation, "{id:#06x}");
        assert!(
            info.source.contains("i915_pciids.h"),
            "{id:#06x} cites its source"
        );
    }
}

#[test]
fn unsupported_and_made_up_intel_ids_are_unknown() {
    for &id in UNKNOWN {
        assert!(
            devices::lookup(id).is_none(),
            "{id:#06x} must not be guessed"
        );
    }
}

#[test]
fn every_generation_has_devices() {
    for generation in Generation::ALL {
        assert!(
            devices::DEVICES.iter().any(|d| d.generation == generation),
            "{generation}"
        );
    }
}

fn qemu_like_bus() -> HostPlatform {
    let p = HostPlatform::new();
    p.add_pci_device(
        PciAddress::new(0, 0, 0),
        SimPciDevice::new(0x8086, 0x1237, 0x060000),
    );
    p.add_pci_device(
        PciAddress::new(0, 2, 0),
        SimPciDevice::new(0x1234, 0x1111, 0x030000).with_mem_bar(0, 0xfd00_0000, 16 << 20, true),
    );
    p
}

#[test]
fn no_intel_gpu_selects_the_software_gpu() {
    let p = qemu_like_bus();
    let report = probe(&p);
    assert_eq!(report.functions_scanned, 2);
    assert_eq!(report.displays.len(), 1);
    assert_eq!(report.displays[0].support, Support::OtherVendor);
    assert_eq!(report.backend, Backend::Software);
    let text = report.to_string();
    assert!(text.contains("00:02.0 1234:1111"), "{text}");
    assert!(text.contains("backend: software GPU"), "{text}");
}

#[test]
fn unknown_intel_display_is_reported_not_used() {
    let p = qemu_like_bus();
    p.add_pci_device(
        PciAddress::new(0, 3, 0),
        SimPciDevice::new(0x8086, 0x0412, 0x030000),
    );
    let report = probe(&p);
    assert_eq!(report.displays[1].support, Support::UnknownIntel);
    assert_eq!(report.backend, Backend::Software);
    assert!(report.to_string().contains("unknown ID, not supported"));
}

#[test]
fn supported_gpu_is_selected_with_its_bars() {
    let p = qemu_like_bus();
    p.add_pci_device(
        PciAddress::new(0, 3, 0),
        SimPciDevice::new(0x8086, 0x0412, 0x030000), // unknown comes first on the bus
    );
    p.add_pci_device(
        PciAddress::new(1, 0, 0),
        SimPciDevice::new(0x8086, 0x0162, 0x030000)
            .with_mem64_bar(0, 0xf000_0000, 4 << 20, false)
            .with_mem64_bar(2, 0xe000_0000, 256 << 20, true),
    );
    let report = probe(&p);
    assert_eq!(
        report.backend,
        Backend::Hardware {
            display: 2,
            generation: Generation::Gen7
        }
    );
    let gpu = &report.displays[2];
    assert_eq!(
        gpu.bars[0],
        Some(Bar::Memory {
            base: 0xf000_0000,
            size: 4 << 20,
            is_64bit: true,
            prefetchable: false
        })
    );
    assert_eq!(
        gpu.bars[2],
        Some(Bar::Memory {
            base: 0xe000_0000,
            size: 256 << 20,
            is_64bit: true,
            prefetchable: true
        })
    );
    let text = report.to_string();
    assert!(
        text.contains("Intel Ivy Bridge desktop GT2 (gen7), supported"),
        "{text}"
    );
    assert!(
        text.contains("BAR2: mem 0xe0000000 size 256 MiB 64-bit prefetchable"),
        "{text}"
    );
    assert!(
        text.contains("backend: hardware GPU at 01:00.0 (gen7)"),
        "{text}"
    );
}
