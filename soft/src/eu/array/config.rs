//! How big the EU array is and how its scheduler slices time.

use baregpu_isa::IsaGen;

/// The array's shape and the scheduler's knobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EuConfig {
    /// Execution units.
    pub eus: u8,
    /// Hardware thread slots per EU.
    pub threads_per_eu: u8,
    /// Instructions a thread runs before the scheduler moves on to the next
    /// resident thread (round robin). Small enough that threads interleave
    /// between messages, so barriers and message order are exercised.
    pub quantum: u32,
    /// Instructions one thread may execute in its lifetime. A thread that
    /// exceeds it is reported as hung: the array stops and the engine stays
    /// busy, so the driver's hang detection fires.
    pub thread_budget: u64,
    /// EU instructions the array may execute per command of the device's
    /// run budget (the device runs when the driver touches MMIO; a TAIL
    /// write grants 4096 commands, a register read 256).
    pub per_command: u64,
}

/// Default quantum: a few instructions of straight-line code between
/// switches.
pub const DEFAULT_QUANTUM: u32 = 32;

/// Default EU instructions per command of the run budget: a driver poll
/// (256 commands) lets the threads run 64 Ki instructions.
pub const DEFAULT_PER_COMMAND: u64 = 256;

/// Default lifetime budget of one thread (far above what a real compute
/// thread of the tests runs; an endless loop reaches it in a fraction of a
/// second of host time).
pub const DEFAULT_THREAD_BUDGET: u64 = 1 << 24;

impl EuConfig {
    /// The array of the part the software GPU models for each generation:
    ///
    /// * 965 (device 0x29a2): 8 EUs x 4 threads. The TID field names "four
    ///   possible thread slots on the EU" (000 line 6840); the EU count is
    ///   not in 000 [ext: Mesa intel_device_info i965, max_wm_threads 8 * 4;
    ///   Linux i915_reg.h I965_ROW_{0,1}_EU_{0-3}_DONE: two rows of four].
    /// * G45 (0x2e22): 10 EUs x 5 threads [ext: Mesa intel_device_info g4x,
    ///   num_eu_per_subslice 10, num_thread_per_eu 5].
    /// * SNB GT1 (0x0102): 6 EUs x 4 threads (003 lines 765-775).
    /// * Ivy Bridge GT2 (0x0162): 12 EUs x 8 threads [ext: Mesa
    ///   intel_device_info ivb_gt2, max_eus_per_subslice 12,
    ///   num_thread_per_eu 8]. Gen7.5 takes the same shape.
    pub const fn for_platform(p: IsaGen) -> EuConfig {
        let (eus, threads_per_eu) = match p {
            IsaGen::Gen4 => (8, 4),
            IsaGen::G45 => (10, 5),
            IsaGen::Gen6 => (6, 4),
            IsaGen::Gen7 | IsaGen::Gen75 => (12, 8),
            // Not modelled: Gen12.5 code never decodes for the EU array
            // (the predecoder refuses it), so the shape is never used.
            IsaGen::Gen12_5 => (12, 8),
        };
        EuConfig {
            eus,
            threads_per_eu,
            quantum: DEFAULT_QUANTUM,
            thread_budget: DEFAULT_THREAD_BUDGET,
            per_command: DEFAULT_PER_COMMAND,
        }
    }

    /// Hardware threads in the array.
    pub fn threads(&self) -> usize {
        usize::from(self.eus) * usize::from(self.threads_per_eu)
    }

    /// The same configuration with zero sizes raised to one (a zero-slot
    /// array could never run anything).
    pub(crate) fn sane(self) -> EuConfig {
        EuConfig {
            eus: self.eus.clamp(1, 16),
            threads_per_eu: self.threads_per_eu.clamp(1, 8),
            quantum: self.quantum.max(1),
            thread_budget: self.thread_budget.max(1),
            per_command: self.per_command.max(1),
        }
    }
}
