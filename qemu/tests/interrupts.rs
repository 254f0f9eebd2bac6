//! The kernel's interrupt path (`baregpu_boot::interrupts`): a wait with
//! nothing pending halts until the APIC timer ends it at its deadline; the GPU's
//! vector, raised as a self-IPI or through `Platform::msi` (the software GPU's
//! MSI), ends a wait at once and is counted by the handler.
#![cfg_attr(target_os = "none", no_std, no_main)]

use baregpu::Platform;
use baregpu_boot::interrupts::{self, GPU_VECTOR};
use baregpu_boot::{BootInfo, BootPlatform, ExitCode, clock, exit_qemu, println};

baregpu_boot::entry!(run);

const MS: u64 = 1_000_000;

fn run(_: &'static BootInfo) -> ! {
    let platform = BootPlatform::new();
    interrupts::init(&platform).expect("the local APIC");
    let before = interrupts::count();
    let per_ms = interrupts::timer_per_ms();
    assert!(per_ms > 0, "the APIC timer was calibrated");

    // Nothing pending: the wait lasts until its deadline.
    let t0 = clock::now_ns();
    platform.wait_for_interrupt(t0 + 20 * MS);
    let waited = clock::now_ns() - t0;
    assert!(
        (20 * MS..2_000 * MS).contains(&waited),
        "an idle wait of 20 ms took {} us",
        waited / 1000
    );
    assert_eq!(interrupts::count(), before, "no vector arrived");

    // The GPU's vector raised while interrupts are off: the next wait takes it at once.
    interrupts::raise(GPU_VECTOR);
    let t1 = clock::now_ns();
    platform.wait_for_interrupt(t1 + 5_000 * MS);
    assert_eq!(interrupts::count(), before + 1);
    assert!(
        clock::now_ns() - t1 < 1_000 * MS,
        "woken by the vector, not the deadline"
    );

    // The MSI message the driver is given, written as the software GPU writes it.
    let (address, data) = interrupts::msi_message().expect("an MSI message");
    assert!(platform.msi(address, u32::from(data)));
    let t2 = clock::now_ns();
    platform.wait_for_interrupt(t2 + 5_000 * MS);
    assert_eq!(interrupts::count(), before + 2);
    assert!(clock::now_ns() - t2 < 1_000 * MS);
    // A message for another APIC is not this kernel's.
    assert!(!platform.msi(address ^ (1 << 12), u32::from(data)));
    assert_eq!(interrupts::count(), before + 2);

    println!(
        "[ok] interrupts: idle wait {} ms (halted, APIC timer at {} ticks/ms), vector {:#x} through the IDT twice",
        waited / MS,
        per_ms,
        GPU_VECTOR
    );
    exit_qemu(ExitCode::Success)
}
