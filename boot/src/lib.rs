//! baregpu-boot: a bare-metal x86_64 kernel for QEMU.
//!
//! QEMU loads the ELF with `-kernel` through the PVH entry note; a 32-bit
//! trampoline ([`pvh`]) identity-maps the low 4 GiB, enters long mode and
//! calls the kernel's function named with [`entry!`]. This crate provides
//! the serial console (COM1, text), defmt logging (COM2, binary frames),
//! the heap, a calibrated clock, the exit device and [`BootPlatform`], the
//! `baregpu::Platform` of this kernel.
//!
//! On the host the crate still compiles (so `cargo clippy --workspace`
//! works) but only the target build can run.
#![cfg_attr(target_os = "none", no_std)]

extern crate alloc;

pub mod clock;
pub mod exit;
pub mod platform;
pub mod pvh;
pub mod serial;

pub mod heap;
#[cfg(target_os = "none")]
mod logger;
mod panic;

pub use exit::{ExitCode, exit_qemu};
pub use panic::expect_panic;
pub use platform::BootPlatform;
pub use pvh::StartInfo;

/// Declares the kernel's main function: `fn(&'static StartInfo) -> !`.
///
/// On the host it expands to a `main` that only explains how to run the
/// kernel, so that host builds of the workspace succeed.
#[macro_export]
macro_rules! entry {
    ($f:path) => {
        #[cfg(target_os = "none")]
        #[unsafe(no_mangle)]
        pub fn baregpu_kmain(info: &'static $crate::StartInfo) -> ! {
            let f: fn(&'static $crate::StartInfo) -> ! = $f;
            f(info)
        }

        #[cfg(not(target_os = "none"))]
        fn main() {
            let _: fn(&'static $crate::StartInfo) -> ! = $f;
            eprintln!("this is a bare-metal kernel: run it in QEMU (`cargo demo`, `cargo qtest`)");
            std::process::exit(2);
        }
    };
}
