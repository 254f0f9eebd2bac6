//! QEMU test kernels. Each file in `tests/` is a kernel that must exit with
//! success; each file in `src/bin/` is a kernel that must fail in a given
//! way (the host harness `tests/qemu.rs` checks that the runner notices).
#![no_std]
