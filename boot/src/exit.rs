//! Leaving QEMU with a status, through the isa-debug-exit device.
//!
//! QEMU is started with `-device isa-debug-exit,iobase=0xf4,iosize=0x04`;
//! writing `v` there makes QEMU exit with status `(v << 1) | 1`.

use x86_64::instructions::port::Port;

/// The outcome reported to the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum ExitCode {
    /// QEMU exits with 33.
    Success = 0x10,
    /// QEMU exits with 35.
    Failed = 0x11,
}

/// Exits QEMU. Halts forever if the exit device is missing.
pub fn exit_qemu(code: ExitCode) -> ! {
    crate::serial::flush();
    // SAFETY: port 0xf4 is the isa-debug-exit device in every QEMU command
    // line of this project; on a machine without it the write is ignored.
    unsafe { Port::<u32>::new(0xf4).write(code as u32) };
    loop {
        x86_64::instructions::hlt();
    }
}
