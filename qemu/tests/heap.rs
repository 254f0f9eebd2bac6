//! The heap works: many small allocations, large ones, and reuse after free.
#![cfg_attr(target_os = "none", no_std, no_main)]

extern crate alloc;

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use baregpu_boot::{BootInfo, ExitCode, exit_qemu, println};

baregpu_boot::entry!(run);

fn run(_: &'static BootInfo) -> ! {
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
