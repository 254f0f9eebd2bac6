//! Must fail: a kernel that never exits (the runner's timeout catches it).
#![cfg_attr(target_os = "none", no_std, no_main)]

use baregpu_boot::{BootInfo, println};

baregpu_boot::entry!(run);

fn run(_: &'static BootInfo) -> ! {
    println!("fail_hang: spinning forever");
    loop {
        core::hint::spin_loop();
    }
}
