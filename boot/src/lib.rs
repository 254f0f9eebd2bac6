//! baregpu-boot: a bare-metal x86_64 kernel for QEMU and PCs.
//!
//! QEMU loads the ELF with `-kernel` through the PVH entry note, GRUB
//! through its Multiboot2 header; one 32-bit trampoline ([`entry`](mod@entry))
//! identity-maps the low 4 GiB, enters long mode, reads the loader's data
//! into a [`BootInfo`] and calls the kernel's function named with
//! [`entry!`]. This crate provides the serial console (COM1, text), the
//! screen with a text console ([`screen`]), defmt logging (COM2, binary
//! frames), the heap, page mappings of any physical range ([`paging`]), a
//! calibrated clock, the exit device and [`BootPlatform`], the
//! `baregpu::Platform` of this kernel.
//!
//! On the host the crate still compiles (so `cargo clippy --workspace`
//! works) but only the target build can run.
#![cfg_attr(target_os = "none", no_std)]

extern crate alloc;

pub mod bootinfo;
pub mod clock;
pub mod entry;
pub mod exit;
pub mod interrupts;
pub mod paging;
pub mod platform;
pub mod screen;
pub mod serial;

pub mod heap;
#[cfg(target_os = "none")]
mod logger;
mod panic;

pub use bootinfo::{BootInfo, Loader};
pub use exit::{ExitCode, exit_qemu};
pub use panic::expect_panic;
pub use platform::{BootPlatform, RunningDevice};

/// Declares the kernel's main function: `fn(&'static BootInfo) -> !`.
///
/// On the host it expands to a `main` that only explains how to run the
/// kernel, so that host builds of the workspace succeed.
#[macro_export]
macro_rules! entry {
    ($f:path) => {
        #[cfg(target_os = "none")]
        #[unsafe(no_mangle)]
        pub fn baregpu_kmain(info: &'static $crate::BootInfo) -> ! {
            let f: fn(&'static $crate::BootInfo) -> ! = $f;
            f(info)
        }

        #[cfg(not(target_os = "none"))]
        fn main() {
            let _: fn(&'static $crate::BootInfo) -> ! = $f;
            eprintln!("this is a bare-metal kernel: run it in QEMU (`cargo demo`, `cargo qtest`)");
            std::process::exit(2);
        }
    };
}
