//! QEMU's standard VGA adapter (PCI 1234:1111, the Bochs display
//! interface): a linear framebuffer in BAR0, and its mode set through the
//! VBE "DISPI" registers, an index port 0x1CE and a data port 0x1CF
//! [ext: Linux drivers/gpu/drm/tiny/bochs.c, VBE_DISPI_IOPORT_INDEX/DATA and
//! VBE_DISPI_INDEX_*]. The screen falls back to it when the loader gave no
//! framebuffer (QEMU's PVH `-kernel` boot).

use baregpu::pci::{self, Bar};
use x86_64::instructions::port::Port;

use crate::BootPlatform;
use crate::bootinfo::{ColorField, Framebuffer};

/// PCI IDs of QEMU's standard VGA [ext: QEMU hw/display/vga-pci.c].
const VENDOR: u16 = 0x1234;
const DEVICE: u16 = 0x1111;

/// DISPI register indices [ext: bochs.c]: resolution, depth, enable.
const XRES: u16 = 1;
const YRES: u16 = 2;
const BPP: u16 = 3;
const ENABLE: u16 = 4;
/// ENABLE bits: display on, linear framebuffer.
const ENABLED: u16 = 0x01;
const LFB_ENABLED: u16 = 0x40;

fn dispi(index: u16, value: u16) {
    // SAFETY: ports 0x1CE/0x1CF belong to the VGA adapter found on the bus;
    // writing them changes only its display mode.
    unsafe {
        Port::<u16>::new(0x1CE).write(index);
        Port::<u16>::new(0x1CF).write(value);
    }
}

/// Finds QEMU's VGA on the PCI bus and switches it to a `width` x `height`
/// 32-bit mode (pixels 0x00RRGGBB); `None` without such an adapter or when
/// its BAR0 is too small.
pub fn open(platform: &BootPlatform, width: u16, height: u16) -> Option<Framebuffer> {
    let vga = pci::enumerate(platform)
        .into_iter()
        .find(|f| f.vendor_id == VENDOR && f.device_id == DEVICE)?;
    let Some(Bar::Memory { base, size, .. }) = pci::read_bars(platform, vga.addr)[0] else {
        return None;
    };
    let pitch = u32::from(width) * 4;
    if size < u64::from(pitch) * u64::from(height) {
        return None;
    }
    dispi(ENABLE, 0);
    dispi(XRES, width);
    dispi(YRES, height);
    dispi(BPP, 32);
    dispi(ENABLE, ENABLED | LFB_ENABLED);
    let field = |position| ColorField { position, size: 8 };
    Some(Framebuffer {
        addr: base,
        width: width.into(),
        height: height.into(),
        pitch,
        bits_per_pixel: 32,
        red: field(16),
        green: field(8),
        blue: field(0),
    })
}
