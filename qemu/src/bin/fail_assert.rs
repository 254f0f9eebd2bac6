//! Must fail: a failed assertion (QEMU status 35).
#![cfg_attr(target_os = "none", no_std, no_main)]

use baregpu_boot::{BootInfo, ExitCode, exit_qemu};

baregpu_boot::entry!(run);

fn run(_: &'static BootInfo) -> ! {
    let answer = core::hint::black_box(41);
    assert_eq!(answer, 42, "deliberate failure");
    exit_qemu(ExitCode::Success)
}
