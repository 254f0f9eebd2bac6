//! QEMU's standard VGA adapter (PCI 1234:1111, the Bochs display
//! interface): a linear framebuffer in BAR0, and its mode set through the
//! VBE "DISPI" registers, an index port 0x1CE and a data port 0x1CF
//! [ext: Linux drivers/gpu/drm/tiny/bochs.c, VBE_DISPI_IOPORT_INDEX/DATA and
//! VBE_DISPI_INDEX_*]. The demo shows its pictures there as well as on the
//! serial console.

use core::ptr::NonNull;

use baregpu::pci::Bar;
use baregpu::{PhysAddr, Platform, ProbeReport};
use baregpu_boot::BootPlatform;
use x86_64::instructions::port::Port;

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

/// A 32-bit-per-pixel linear framebuffer, mapped.
pub struct Framebuffer {
    base: NonNull<u32>,
    pub width: usize,
    pub height: usize,
}

fn dispi(index: u16, value: u16) {
    // SAFETY: ports 0x1CE/0x1CF belong to the VGA adapter the probe found;
    // writing them changes only its display mode.
    unsafe {
        Port::<u16>::new(0x1CE).write(index);
        Port::<u16>::new(0x1CF).write(value);
    }
}

impl Framebuffer {
    /// Finds QEMU's VGA in the probe report and switches it to a
    /// `width` x `height` 32-bit mode; `None` without such an adapter.
    pub fn open(
        platform: &BootPlatform,
        report: &ProbeReport,
        width: u16,
        height: u16,
    ) -> Option<Framebuffer> {
        let vga = report
            .displays
            .iter()
            .find(|d| d.function.vendor_id == VENDOR && d.function.device_id == DEVICE)?;
        let Some(Bar::Memory { base, size, .. }) = vga.bars[0] else {
            return None;
        };
        let bytes = usize::from(width) * usize::from(height) * 4;
        if (size as usize) < bytes {
            return None;
        }
        let virt = platform.map_mmio(PhysAddr(base), bytes).ok()?;
        dispi(ENABLE, 0);
        dispi(XRES, width);
        dispi(YRES, height);
        dispi(BPP, 32);
        dispi(ENABLE, ENABLED | LFB_ENABLED);
        Some(Framebuffer {
            base: virt.cast(),
            width: width.into(),
            height: height.into(),
        })
    }

    /// Sets pixel (`x`, `y`) to `rgb` (0x00RRGGBB); outside is ignored.
    pub fn put(&mut self, x: usize, y: usize, rgb: u32) {
        if x < self.width && y < self.height {
            // SAFETY: (x, y) is inside the mapped width * height pixels.
            unsafe {
                self.base
                    .as_ptr()
                    .add(y * self.width + x)
                    .write_volatile(rgb)
            };
        }
    }
}
