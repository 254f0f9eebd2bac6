//! `baregpu_hal::VolatileMmio` on a real PCI BAR: QEMU's `edu` device
//! (1234:11e8) answers its identification register and inverts the value
//! written to its liveness register.
#![cfg_attr(target_os = "none", no_std, no_main)]

use baregpu::hal::{Mmio, VolatileMmio};
use baregpu::pci::{self, Bar};
use baregpu::{PhysAddr, Platform};
use baregpu_boot::{BootInfo, BootPlatform, ExitCode, exit_qemu, println};

baregpu_boot::entry!(run);

fn run(_: &'static BootInfo) -> ! {
    let platform = BootPlatform::new();
    let edu = pci::enumerate(&platform)
        .into_iter()
        .find(|f| (f.vendor_id, f.device_id) == (0x1234, 0x11e8))
        .expect("QEMU edu device (qemu/run.sh adds -device edu)");
    let Some(Bar::Memory { base, size, .. }) = pci::read_bars(&platform, edu.addr)[0] else {
        panic!("edu BAR0 is not a memory BAR");
    };
    let virt = platform
        .map_mmio(PhysAddr(base), size as usize)
        .expect("map edu BAR0");
    // SAFETY: BAR0 of the edu device, just mapped uncached, used only here.
    let mmio = unsafe { VolatileMmio::new(virt, size as usize) };
    let id = mmio.read32(0x00);
    assert_eq!(id & 0xffff, 0x00ed, "edu identification register {:#x}", id);
    for value in [0u32, 0x1234_5678, 0xffff_ffff] {
        mmio.write32(0x04, value);
        assert_eq!(mmio.read32(0x04), !value);
    }
    println!("[ok] mmio_edu: id {:#x}", id);
    exit_qemu(ExitCode::Success)
}
