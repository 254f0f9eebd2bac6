//! Panic handling: report on the console and fail the QEMU run, unless the
//! kernel announced that it expects a panic (should-panic tests).

use core::sync::atomic::{AtomicBool, Ordering};

#[cfg(target_os = "none")]
use crate::{ExitCode, exit_qemu, println};

static EXPECT_PANIC: AtomicBool = AtomicBool::new(false);

/// From now on a panic ends the run as a success.
pub fn expect_panic() {
    EXPECT_PANIC.store(true, Ordering::SeqCst);
}

#[cfg(target_os = "none")]
#[panic_handler]
fn on_panic(info: &core::panic::PanicInfo<'_>) -> ! {
    if EXPECT_PANIC.load(Ordering::SeqCst) {
        println!("[ok] panicked as expected: {}", info);
        exit_qemu(ExitCode::Success)
    }
    println!("[failed] {}", info);
    exit_qemu(ExitCode::Failed)
}
