//! Must fail: a triple fault (with -no-reboot QEMU exits 0, no verdict).
#![cfg_attr(target_os = "none", no_std, no_main)]

use baregpu_boot::{BootInfo, println};

baregpu_boot::entry!(run);

fn run(_: &'static BootInfo) -> ! {
    println!("fail_triple_fault: loading an empty IDT and trapping");
    #[cfg(target_os = "none")]
    // SAFETY: deliberately loads a zero-limit IDT so that the breakpoint
    // exception cannot be delivered: #GP, then #DF, then a triple fault.
    unsafe {
        let idt = x86_64::structures::DescriptorTablePointer {
            limit: 0,
            base: x86_64::VirtAddr::new(0),
        };
        x86_64::instructions::tables::lidt(&idt);
        core::arch::asm!("int3");
    }
    loop {
        core::hint::spin_loop();
    }
}
