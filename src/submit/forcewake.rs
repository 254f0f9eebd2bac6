//! Forcewake: keeping the GT out of RC6 while the driver touches its registers,
//! with the steps of Linux i915 (intel_uncore.c): wait for the previous
//! acknowledge to clear, request, post the write with a read (ECOBUS), wait for
//! the acknowledge, then for the GT threads to wake
//! (fw_domains_get_with_thread_status, __gen6_gt_wait_for_thread_c0). Ivy Bridge
//! takes the multi-threaded request only when ECOBUS bit 5 reads 1 with it held,
//! else the single one (intel_uncore_fw_domains_init). The registers, the bits
//! and the acknowledge timeout come from the device description.

use core::fmt;

use baregpu_hal::Mmio;
use baregpu_hal::device::{Forcewake, WakeSequence};

use crate::platform::Platform;

/// How long the GT threads may take to wake after the acknowledge: 5 ms (Linux
/// i915 __gen6_gt_wait_for_thread_c0, wait_for_atomic_us(..., 5000)).
const THREAD_WAKE_MS: u32 = 5;

/// A forcewake step that did not finish in time: the GT did not wake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ForcewakeTimeout {
    /// The register that did not reach its value.
    pub register: u32,
    /// What was waited for.
    pub step: &'static str,
    pub timeout_ms: u32,
}

impl fmt::Display for ForcewakeTimeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "forcewake timed out waiting for {} (register {:#x}, {} ms)",
            self.step, self.register, self.timeout_ms
        )
    }
}

/// The forcewake the driver holds, to let go of it at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Held {
    None,
    /// FORCEWAKE written 1; released by writing 0.
    Single {
        request: u32,
    },
    /// FORCEWAKE_MT's kernel bit (masked); released by clearing it.
    MultiThreaded {
        request: u32,
    },
}

/// The kernel's bit of the multi-threaded request, with its write enable (Linux
/// _MASKED_BIT_ENABLE(FORCEWAKE_KERNEL)).
const MT_KERNEL_ON: u32 = (1 << 16) | 1;
const MT_KERNEL_OFF: u32 = 1 << 16;

struct Steps<'a, P: Platform> {
    mmio: &'a dyn Mmio,
    platform: &'a P,
    wake: WakeSequence,
}

impl<P: Platform> Steps<'_, P> {
    /// Waits until `read(register) & mask == want` for at most `ms` on the platform clock.
    fn until(
        &self,
        register: u32,
        mask: u32,
        want: u32,
        ms: u32,
        step: &'static str,
    ) -> Result<(), ForcewakeTimeout> {
        let start = self.platform.now_ns();
        loop {
            if self.mmio.read32(register) & mask == want {
                return Ok(());
            }
            if self.platform.now_ns().saturating_sub(start) > ms as u64 * 1_000_000 {
                return Err(ForcewakeTimeout {
                    register,
                    step,
                    timeout_ms: ms,
                });
            }
            self.platform.delay_us(10);
        }
    }

    /// One request: old ack clear, request, posting read, ack, threads awake.
    fn get(&self, request: u32, ack: u32, value: u32) -> Result<(), ForcewakeTimeout> {
        let ms = self.wake.ack_timeout_ms;
        self.until(ack, 1, 0, ms, "the previous forcewake acknowledge to clear")?;
        self.mmio.write32(request, value);
        if let Some(r) = self.wake.posting_read {
            let _ = self.mmio.read32(r);
        }
        self.until(ack, 1, 1, ms, "the forcewake acknowledge")?;
        if let Some((status, mask)) = self.wake.thread_status {
            self.until(status, mask, 0, THREAD_WAKE_MS, "the GT threads to wake")?;
        }
        Ok(())
    }
}

/// Takes forcewake as the description says.
pub(crate) fn take<P: Platform>(
    mmio: &dyn Mmio,
    platform: &P,
    style: Forcewake,
    wake: WakeSequence,
) -> Result<Held, ForcewakeTimeout> {
    let steps = Steps {
        mmio,
        platform,
        wake,
    };
    match style {
        Forcewake::None => Ok(Held::None),
        Forcewake::Single { request, ack } => {
            steps.get(request, ack, 1)?;
            Ok(Held::Single { request })
        }
        Forcewake::MultiThreaded { request, ack } => {
            let Some(mt) = wake.mt_enable else {
                steps.get(request, ack, MT_KERNEL_ON)?;
                return Ok(Held::MultiThreaded { request });
            };
            // Ivy Bridge: clear the single request, try the multi-threaded one, and
            // keep it only if ECOBUS says the part has it.
            mmio.write32(mt.single_request, 0);
            if let Some(r) = wake.posting_read {
                let _ = mmio.read32(r);
            }
            steps.get(request, ack, MT_KERNEL_ON)?;
            if mmio.read32(mt.register) >> mt.bit & 1 == 1 {
                return Ok(Held::MultiThreaded { request });
            }
            mmio.write32(request, MT_KERNEL_OFF);
            steps.get(mt.single_request, mt.single_ack, 1)?;
            Ok(Held::Single {
                request: mt.single_request,
            })
        }
    }
}

/// Lets go of what [`take`] took.
pub(crate) fn release(mmio: &dyn Mmio, held: Held) {
    match held {
        Held::None => {}
        Held::Single { request } => mmio.write32(request, 0),
        Held::MultiThreaded { request } => mmio.write32(request, MT_KERNEL_OFF),
    }
}
