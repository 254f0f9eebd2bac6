//! Run by the host harness (`tests/qemu.rs`) with an `ivshmem-plain` device
//! whose 64-bit BAR2 is backed by a host file of 1 GiB: too large for the
//! 32-bit PCI window of QEMU's `pc` machine, so the firmware places it
//! above 4 GiB, outside the trampoline's identity map. The kernel maps it
//! through `BootPlatform::map_mmio`, prints the 16 bytes the host wrote at
//! its start and writes their complement at offset 4096, which the host
//! reads back from the file once QEMU has exited.
#![cfg_attr(target_os = "none", no_std, no_main)]

use baregpu::pci::{self, Bar};
use baregpu::{PhysAddr, Platform};
use baregpu_boot::{BootInfo, BootPlatform, ExitCode, exit_qemu, print, println};

baregpu_boot::entry!(run);

/// QEMU's ivshmem-plain [ext: QEMU docs/specs/ivshmem-spec.rst].
const IVSHMEM: (u16, u16) = (0x1af4, 0x1110);

fn run(_: &'static BootInfo) -> ! {
    let platform = BootPlatform::new();
    let dev = pci::enumerate(&platform)
        .into_iter()
        .find(|f| (f.vendor_id, f.device_id) == IVSHMEM)
        .expect("ivshmem-plain device (tests/qemu.rs adds it)");
    let Some(Bar::Memory {
        base,
        size,
        is_64bit: true,
        ..
    }) = pci::read_bars(&platform, dev.addr)[2]
    else {
        panic!("ivshmem BAR2 is not a 64-bit memory BAR");
    };
    println!("ivshmem BAR2 at {:#x}, {} MiB", base, size >> 20);
    assert!(base >= 4 << 30, "BAR2 below 4 GiB proves nothing here");
    let virt = platform
        .map_mmio(PhysAddr(base), 8192)
        .expect("map a BAR above 4 GiB");
    let p = virt.as_ptr();
    print!("bytes at BAR2:");
    for i in 0..16 {
        // SAFETY: within the 8 KiB of BAR2 just mapped; the device is
        // plain shared memory, used only by this kernel and the host.
        let b = unsafe { p.add(i).read_volatile() };
        print!(" {:02x}", b);
        // SAFETY: as above, at 4096 + i.
        unsafe { p.add(4096 + i).write_volatile(!b) };
    }
    println!();
    println!("[ok] mmio_high: mapped and used a BAR above 4 GiB");
    exit_qemu(ExitCode::Success)
}
