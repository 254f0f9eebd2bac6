//! QEMU test kernels. Each file in `tests/` is a kernel that must exit with
//! success; each file in `src/bin/` is one that only the host harness
//! (`tests/qemu.rs`) runs: kernels that must fail in a given way (it checks
//! that the runner notices) and `mmio_high`, which needs a device of its
//! own on the QEMU command line.
#![no_std]
