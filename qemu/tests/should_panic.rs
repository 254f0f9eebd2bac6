//! A kernel that must panic: the panic handler turns an expected panic into
//! success, so this passes only if the out-of-bounds access really panics.
#![cfg_attr(target_os = "none", no_std, no_main)]

use baregpu_boot::{BootInfo, ExitCode, exit_qemu, println};

baregpu_boot::entry!(run);

fn run(_: &'static BootInfo) -> ! {
    baregpu_boot::expect_panic();
    let table = [1u32, 2, 3];
    let index = core::hint::black_box(7usize);
    let value = table[index];
    println!("[failed] no panic, read {}", value);
    exit_qemu(ExitCode::Failed)
}
