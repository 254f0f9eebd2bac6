//! A monotonic clock: the TSC, calibrated once against the PIT.

use core::sync::atomic::{AtomicU64, Ordering};

use x86_64::instructions::port::Port;

/// TSC ticks per microsecond; 0 until calibrated.
static TSC_PER_US: AtomicU64 = AtomicU64::new(0);

fn rdtsc() -> u64 {
    // SAFETY: RDTSC only reads the time-stamp counter.
    unsafe { core::arch::x86_64::_rdtsc() }
}

/// Measures the TSC rate over 10 ms of PIT channel 2 (1.193182 MHz).
pub fn calibrate() {
    const PIT_HZ: u64 = 1_193_182;
    const WINDOW_US: u64 = 10_000;
    let count = (PIT_HZ * WINDOW_US / 1_000_000) as u16;
    let mut gate = Port::<u8>::new(0x61);
    let mut mode = Port::<u8>::new(0x43);
    let mut ch2 = Port::<u8>::new(0x42);
    // SAFETY: the PC speaker gate, PIT mode and channel 2 ports; channel 2
    // drives only the (disabled) speaker, so reprogramming it is harmless.
    let (t0, t1) = unsafe {
        let g = gate.read();
        gate.write((g & !0x02) | 0x01); // speaker off, gate on
        mode.write(0xb0); // channel 2, lobyte/hibyte, mode 0 (terminal count)
        ch2.write(count as u8);
        ch2.write((count >> 8) as u8);
        let t0 = rdtsc();
        // OUT2 (bit 5) rises when the count reaches zero; bounded in case no PIT exists.
        let mut spins = 0u64;
        while gate.read() & 0x20 == 0 && spins < 100_000_000 {
            spins += 1;
        }
        (t0, rdtsc())
    };
    TSC_PER_US.store(((t1 - t0) / WINDOW_US).max(1), Ordering::Relaxed);
}

/// Nanoseconds since an arbitrary point (0 before calibration).
pub fn now_ns() -> u64 {
    let per_us = TSC_PER_US.load(Ordering::Relaxed);
    if per_us == 0 {
        return 0;
    }
    (rdtsc() as u128 * 1000 / per_us as u128) as u64
}

/// Microseconds since an arbitrary point.
pub fn now_us() -> u64 {
    now_ns() / 1000
}

/// Busy-waits at least `us` microseconds.
pub fn delay_us(us: u64) {
    let end = now_ns().saturating_add(us.saturating_mul(1000));
    while now_ns() < end {
        core::hint::spin_loop();
    }
}
