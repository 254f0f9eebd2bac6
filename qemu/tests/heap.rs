//! The heap works: many small allocations, large ones, and reuse after free;
//! it lies in usable RAM of the PVH memory map, clear of the loader's data.
#![cfg_attr(target_os = "none", no_std, no_main)]

extern crate alloc;

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use baregpu_boot::bootinfo::MemoryKind;
use baregpu_boot::{BootInfo, ExitCode, Loader, exit_qemu, println};

baregpu_boot::entry!(run);

fn run(info: &'static BootInfo) -> ! {
    println!("boot: {}", info);
    assert_eq!(info.loader, Loader::Pvh);
    assert!(
        info.framebuffer.is_none(),
        "QEMU's PVH loader gives no framebuffer"
    );
    assert!(info.ram_bytes() >= 256 << 20, "qemu/run.sh gives 512 MiB");
    let probe = alloc::vec![0u8; 4096];
    let at = probe.as_ptr() as u64;
    assert!(
        info.memory_map()
            .iter()
            .any(|r| r.kind == MemoryKind::Usable && r.addr <= at && at + 4096 <= r.addr + r.len),
        "heap block {at:#x} outside usable RAM"
    );
    assert!(
        info.reserved()
            .iter()
            .all(|&(a, b)| at + 4096 <= a || at >= b)
    );
    for round in 0..50u32 {
        let v: Vec<u32> = (0..1000).map(|i| i * round).collect();
        let m: BTreeMap<u32, Box<u64>> = (0..100)
            .map(|i| (i, Box::new(u64::from(i) << 32)))
            .collect();
        assert_eq!(v[999], 999 * round);
        assert_eq!(*m[&99], 99 << 32);
    }
    // Large blocks, written and checked end to end, twice (the first must be freed).
    for _ in 0..2 {
        let big: Vec<u8> = (0..8 << 20).map(|i: usize| (i % 251) as u8).collect();
        assert!(big.iter().enumerate().all(|(i, &b)| b == (i % 251) as u8));
    }
    let (used, free) = baregpu_boot::heap::usage();
    println!(
        "[ok] heap: {} KiB used, {} MiB free",
        used >> 10,
        free >> 20
    );
    exit_qemu(ExitCode::Success)
}
