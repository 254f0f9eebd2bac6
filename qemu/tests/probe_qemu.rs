//! The probe on QEMU's `pc` machine: it sees the host bridge and the std VGA
//! adapter (1234:1111), finds no Intel GPU, and selects the software GPU.
#![cfg_attr(target_os = "none", no_std, no_main)]

use baregpu::pci::{self, Bar};
use baregpu::probe::Support;
use baregpu::{Backend, probe};
use baregpu_boot::{BootInfo, BootPlatform, ExitCode, exit_qemu, println};

baregpu_boot::entry!(run);

fn run(_: &'static BootInfo) -> ! {
    let platform = BootPlatform::new();
    let functions = pci::enumerate(&platform);
    // i440FX host bridge and PIIX3 ISA bridge: Intel devices that are not GPUs.
    assert!(
        functions
            .iter()
            .any(|f| (f.vendor_id, f.device_id, f.class) == (0x8086, 0x1237, 0x06))
    );
    assert!(
        functions
            .iter()
            .any(|f| (f.vendor_id, f.device_id) == (0x8086, 0x7000))
    );

    let report = probe(&platform);
    println!("{}", report);
    assert_eq!(report.functions_scanned, functions.len());
    assert_eq!(report.displays.len(), 1, "exactly one display controller");
    let vga = &report.displays[0];
    assert_eq!(
        (vga.function.vendor_id, vga.function.device_id),
        (0x1234, 0x1111)
    );
    assert_eq!(vga.support, Support::OtherVendor);
    // Bochs VGA: BAR0 is the 16 MiB prefetchable framebuffer.
    match vga.bars[0] {
        Some(Bar::Memory {
            base,
            size,
            prefetchable: true,
            ..
        }) => {
            assert_eq!(size, 16 << 20);
            assert_ne!(base, 0);
        }
        other => panic!("unexpected VGA BAR0 {:?}", other),
    }
    assert_eq!(report.backend, Backend::Software);
    println!("[ok] probe_qemu");
    exit_qemu(ExitCode::Success)
}
