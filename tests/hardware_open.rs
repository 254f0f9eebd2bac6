//! Opening the real GPU the probe found (`baregpu::probe::HardwareGpu`) on the
//! host test platform, whose "BAR" is plain RAM: the mapping, the checks on
//! BAR0, and the driver's bring-up stopping with a clear error at the first
//! register that does not behave like a GPU (what the demo reports before it
//! falls back to the software GPU).

use baregpu::platform::PciAddress;
use baregpu::platform::host::{HostPlatform, SimPciDevice};
use baregpu::probe::{HardwareGpu, OpenError};
use baregpu::{Backend, Generation, Gpu, GpuError, Platform, PlatformError, probe};

const GPU_AT: PciAddress = PciAddress::new(0, 2, 0);
/// Above 4 GiB, as firmware places 64-bit BARs.
const BAR0: u64 = 0x4_0000_0000;

/// An Ivy Bridge GT2 (8086:0162) with a 64-bit BAR0 of `bar_size` bytes and the
/// GTT size field `ggms` in SNB_GMCH_CTRL (0x50 bits 9:8).
fn platform_with_ivb(bar_size: u64, ggms: u32) -> HostPlatform {
    let p = HostPlatform::new();
    let mut gpu =
        SimPciDevice::new(0x8086, 0x0162, 0x030000).with_mem64_bar(0, BAR0, bar_size, false);
    gpu.config[0x50 / 4] = ggms << 8;
    p.add_pci_device(GPU_AT, gpu);
    p
}

#[test]
fn the_probed_gpu_opens_and_bring_up_names_the_step_that_fails() {
    let p = platform_with_ivb(4 << 20, 2);
    p.add_mmio_ram(BAR0, 4 << 20).unwrap();
    let report = probe(&p);
    assert!(
        matches!(
            report.backend,
            Backend::Hardware {
                generation: Generation::Gen7,
                ..
            }
        ),
        "{report}"
    );
    let hw = HardwareGpu::open(&p, &report).unwrap();
    assert_eq!(hw.address(), GPU_AT);
    assert_eq!(hw.bar().1, 4 << 20);
    // RAM is no GPU: the bring-up gets through the PCI and GTT steps (the
    // command register and GTT size are real configuration space here) and
    // stops at the forcewake acknowledgement, which nothing gives.
    let err = Gpu::new(&p, hw.device(), hw.generation())
        .err()
        .expect("no GPU behind the BAR");
    assert!(
        matches!(err, GpuError::Forcewake(t) if t.register == 0x130040 && t.step == "the forcewake acknowledge"),
        "{err}"
    );
    assert_eq!(
        p.pci_read32(GPU_AT, 4) & 0x6,
        0x6,
        "memory space and bus master were set"
    );
}

#[test]
fn a_bar_that_cannot_hold_the_registers_and_gtt_is_refused() {
    let p = platform_with_ivb(1 << 20, 2);
    p.add_mmio_ram(BAR0, 1 << 20).unwrap();
    let report = probe(&p);
    assert_eq!(
        HardwareGpu::open(&p, &report).err(),
        Some(OpenError::BarTooSmall {
            size: 1 << 20,
            needed: 4 << 20
        })
    );
}

#[test]
fn an_unmappable_bar_and_a_missing_gpu_are_errors() {
    let p = platform_with_ivb(4 << 20, 2);
    let report = probe(&p);
    assert_eq!(
        HardwareGpu::open(&p, &report).err(),
        Some(OpenError::Platform(PlatformError::Unmappable))
    );
    let empty = HostPlatform::new();
    assert_eq!(
        HardwareGpu::open(&empty, &probe(&empty)).err(),
        Some(OpenError::NoHardware)
    );
}
