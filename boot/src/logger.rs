//! defmt's global logger: rzcobs-encoded frames on COM2.
//!
//! QEMU writes COM2 to a file (`-serial file:...`); the host decodes it
//! with the kernel ELF (see README, "Reading defmt logs").

use core::sync::atomic::{AtomicBool, Ordering};

use crate::serial::{COM2, write_byte};

static TAKEN: AtomicBool = AtomicBool::new(false);
static ENCODER: spin::Mutex<defmt::Encoder> = spin::Mutex::new(defmt::Encoder::new());

fn send(bytes: &[u8]) {
    bytes.iter().for_each(|&b| write_byte(COM2, b));
}

#[defmt::global_logger]
struct Com2Logger;

// SAFETY: `acquire`/`release` bracket every frame and the TAKEN flag rejects
// nested use; the kernel runs on one CPU with interrupts off.
unsafe impl defmt::Logger for Com2Logger {
    fn acquire() {
        if TAKEN.swap(true, Ordering::Acquire) {
            panic!("defmt logger re-entered");
        }
        ENCODER.lock().start_frame(send);
    }

    unsafe fn flush() {}

    unsafe fn release() {
        ENCODER.lock().end_frame(send);
        TAKEN.store(false, Ordering::Release);
    }

    unsafe fn write(bytes: &[u8]) {
        ENCODER.lock().write(bytes, send);
    }
}

defmt::timestamp!("{=u64:us}", crate::clock::now_us());
