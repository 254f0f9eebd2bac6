//! The kernel's interrupts: an IDT with the GPU's vector, and the local APIC
//! (xAPIC, memory-mapped) that delivers it.
//!
//! A GPU's MSI is a write of the vector to the APIC's message window
//! (`0xfee0_0000 | apic_id << 12`, Intel SDM vol. 3, 11.11 "Message Signalled
//! Interrupts"); the APIC raises the vector, the stub below counts it and sends
//! the EOI. The handler touches nothing else, least of all the GPU: the waiter
//! that wakes acknowledges the GPU's interrupt registers itself
//! (`Gpu::wait` calls the driver's handler on every pass), so an interrupt that
//! lands while the kernel holds a lock (the software GPU's, the console's) never
//! waits for it.
//!
//! The software GPU has no wire to the APIC: its MSI reaches
//! [`crate::BootPlatform`]'s `msi`, which sends the same vector to this CPU as a
//! self-IPI (SDM vol. 3, 11.6 "Issuing Interprocessor Interrupts"), so the
//! vector travels the same IDT and EOI path as a real MSI.
//!
//! Interrupts stay disabled (IF = 0) except while a waiter sleeps in
//! the platform's `wait_for_interrupt`; a vector raised meanwhile stays pending in the
//! APIC until then.

// On the host only the types compile (the crate is linted there); the APIC and
// IDT code is the kernel's.
#![cfg_attr(not(target_os = "none"), allow(dead_code))]

use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The GPU's vector: the first above the 32 exception vectors, any free one works.
pub const GPU_VECTOR: u8 = 0x40;
/// The APIC timer's vector: it only ends a halted wait at its deadline.
pub const TIMER_VECTOR: u8 = 0x41;
/// Spurious-interrupt vector (SDM 11.9: its low four bits are 1 on older APICs).
const SPURIOUS_VECTOR: u8 = 0xff;

/// xAPIC registers (SDM vol. 3, table 11-1), offsets in the 4 KiB page.
const APIC_ID: usize = 0x20;
const APIC_TPR: usize = 0x80;
const APIC_EOI: usize = 0xb0;
const APIC_SVR: usize = 0xf0;
const APIC_ICR_LOW: usize = 0x300;
const APIC_ICR_HIGH: usize = 0x310;
/// APIC timer (SDM 11.5.4): LVT timer, initial and current count, divide configuration.
const APIC_LVT_TIMER: usize = 0x320;
const APIC_TIMER_INITIAL: usize = 0x380;
const APIC_TIMER_CURRENT: usize = 0x390;
const APIC_TIMER_DIVIDE: usize = 0x3e0;
/// Divide configuration 0b0011: the bus clock divided by 16 (SDM figure 11-10).
const TIMER_DIVIDE_16: u32 = 0b0011;
/// LVT mask bit (16); mode bits 18:17 = 00 is one-shot.
const LVT_MASKED: u32 = 1 << 16;
/// SVR bit 8: APIC software enable.
const SVR_ENABLE: u32 = 1 << 8;
/// ICR: destination shorthand "self" (bits 19:18 = 01), fixed delivery, edge.
const ICR_SELF: u32 = 0b01 << 18;
/// IA32_APIC_BASE MSR: base in bits 51:12 (SDM 11.4.4).
const IA32_APIC_BASE: u32 = 0x1b;

/// Interrupts counted on the GPU's vector since boot.
static COUNT: AtomicU64 = AtomicU64::new(0);
/// The APIC's registers, mapped uncached (0 until [`init`]).
static APIC: AtomicU64 = AtomicU64::new(0);
static READY: AtomicBool = AtomicBool::new(false);
/// APIC timer ticks (after the divider) per millisecond; 0 when not calibrated.
static TIMER_PER_MS: AtomicU64 = AtomicU64::new(0);

/// How many times the GPU's vector has arrived.
pub fn count() -> u64 {
    COUNT.load(Ordering::Acquire)
}

/// APIC timer ticks per millisecond measured at [`init`] (0: no timer, so waits
/// spin instead of halting).
pub fn timer_per_ms() -> u64 {
    TIMER_PER_MS.load(Ordering::Acquire)
}

/// Whether [`init`] has run: the IDT is loaded and the APIC enabled.
pub fn ready() -> bool {
    READY.load(Ordering::Acquire)
}

/// The MSI address and data that deliver [`GPU_VECTOR`] to this CPU: fixed
/// delivery, edge, physical destination (SDM 11.11.1, 11.11.2).
pub fn msi_message() -> Option<(u64, u16)> {
    ready().then(|| {
        let id = apic_read(APIC_ID) >> 24;
        (0xfee0_0000 | (u64::from(id) << 12), u16::from(GPU_VECTOR))
    })
}

fn apic_read(offset: usize) -> u32 {
    let base = APIC.load(Ordering::Acquire) as usize;
    if base == 0 {
        return 0;
    }
    // SAFETY: `base` is the APIC page, mapped uncached by `init`; the offset is
    // one of the architectural registers, dword aligned.
    unsafe { core::ptr::read_volatile((base + offset) as *const u32) }
}

fn apic_write(offset: usize, value: u32) {
    let base = APIC.load(Ordering::Acquire) as usize;
    if base == 0 {
        return;
    }
    // SAFETY: as in `apic_read`.
    unsafe { core::ptr::write_volatile((base + offset) as *mut u32, value) }
}

/// The stub the IDT entry points at, and the Rust it calls.
#[cfg(target_os = "none")]
mod entry {
    use super::*;

    core::arch::global_asm!(
        r#"
.section .text
.global baregpu_gpu_vector_stub
baregpu_gpu_vector_stub:
    /* The caller-saved registers; with the five-word frame the CPU pushed
       (aligned to 16 first), nine pushes leave RSP 16-byte aligned for the call. */
    push %rax
    push %rcx
    push %rdx
    push %rsi
    push %rdi
    push %r8
    push %r9
    push %r10
    push %r11
    cld
    call baregpu_gpu_vector
    pop %r11
    pop %r10
    pop %r9
    pop %r8
    pop %rdi
    pop %rsi
    pop %rdx
    pop %rcx
    pop %rax
    iretq

.global baregpu_timer_stub
baregpu_timer_stub:
    push %rax
    push %rcx
    push %rdx
    push %rsi
    push %rdi
    push %r8
    push %r9
    push %r10
    push %r11
    cld
    call baregpu_timer_vector
    pop %r11
    pop %r10
    pop %r9
    pop %r8
    pop %rdi
    pop %rsi
    pop %rdx
    pop %rcx
    pop %rax
    iretq

.global baregpu_spurious_stub
baregpu_spurious_stub:
    /* A spurious interrupt takes no EOI (SDM 11.9). */
    iretq
"#,
        options(att_syntax)
    );

    unsafe extern "C" {
        pub fn baregpu_gpu_vector_stub();
        pub fn baregpu_spurious_stub();
        pub fn baregpu_timer_stub();
    }

    /// The APIC timer: it woke a halted wait; nothing to do but end it.
    #[unsafe(no_mangle)]
    extern "C" fn baregpu_timer_vector() {
        apic_write(APIC_EOI, 0);
    }

    /// The GPU's vector: count it, end it.
    #[unsafe(no_mangle)]
    extern "C" fn baregpu_gpu_vector() {
        COUNT.fetch_add(1, Ordering::AcqRel);
        apic_write(APIC_EOI, 0);
    }
}

#[cfg(target_os = "none")]
static IDT: spin::Once<x86_64::structures::idt::InterruptDescriptorTable> = spin::Once::new();

/// Loads the IDT and enables the local APIC (interrupts stay disabled until a
/// waiter sleeps). `None` when the APIC cannot be mapped.
#[cfg(target_os = "none")]
pub fn init(platform: &crate::BootPlatform) -> Option<()> {
    use baregpu::{PhysAddr, Platform};
    use x86_64::VirtAddr;
    use x86_64::structures::idt::InterruptDescriptorTable;
    if ready() {
        return Some(());
    }
    x86_64::instructions::interrupts::disable();
    // SAFETY: reading IA32_APIC_BASE has no side effects.
    let base = unsafe { x86_64::registers::model_specific::Msr::new(IA32_APIC_BASE).read() }
        & 0x000f_ffff_ffff_f000;
    let apic = platform.map_mmio(PhysAddr(base), 4096).ok()?;
    APIC.store(apic.as_ptr() as u64, Ordering::Release);
    let idt = IDT.call_once(|| {
        let mut idt = InterruptDescriptorTable::new();
        // SAFETY: both stubs save what they clobber and end with IRETQ, which is
        // what an interrupt gate's handler must do.
        unsafe {
            // The legacy PICs' vectors after `mask_legacy_pics`: all masked, but a
            // masked 8259 can still signal a spurious IRQ 7 or 15.
            for v in LEGACY_PIC_BASE..LEGACY_PIC_BASE + 16 {
                idt[v].set_handler_addr(VirtAddr::new(
                    entry::baregpu_spurious_stub as *const () as u64,
                ));
            }
            idt[TIMER_VECTOR]
                .set_handler_addr(VirtAddr::new(entry::baregpu_timer_stub as *const () as u64));
            idt[GPU_VECTOR].set_handler_addr(VirtAddr::new(
                entry::baregpu_gpu_vector_stub as *const () as u64,
            ));
            idt[SPURIOUS_VECTOR].set_handler_addr(VirtAddr::new(
                entry::baregpu_spurious_stub as *const () as u64,
            ));
        }
        idt
    });
    mask_legacy_pics();
    idt.load();
    apic_write(APIC_TPR, 0);
    apic_write(APIC_SVR, SVR_ENABLE | u32::from(SPURIOUS_VECTOR));
    calibrate_timer();
    READY.store(true, Ordering::Release);
    Some(())
}

/// Counts the APIC timer against the calibrated TSC clock for 10 ms (its rate,
/// the bus clock, is not architectural), then leaves it masked.
#[cfg(target_os = "none")]
fn calibrate_timer() {
    apic_write(APIC_TIMER_DIVIDE, TIMER_DIVIDE_16);
    apic_write(APIC_LVT_TIMER, LVT_MASKED | u32::from(TIMER_VECTOR));
    apic_write(APIC_TIMER_INITIAL, u32::MAX);
    crate::clock::delay_us(10_000);
    let elapsed = u64::from(u32::MAX - apic_read(APIC_TIMER_CURRENT));
    apic_write(APIC_TIMER_INITIAL, 0);
    TIMER_PER_MS.store(elapsed / 10, Ordering::Release);
}

/// Halts until an interrupt arrives or about `ns` nanoseconds pass (the APIC
/// timer, one-shot, ends the halt); returns at once without a calibrated timer.
/// Interrupts are enabled only inside: `sti; hlt` takes a pending vector
/// without a window between the two (SDM vol. 2, STI: interrupts are
/// recognised after the next instruction).
pub fn halt_for(ns: u64) {
    let per_ms = TIMER_PER_MS.load(Ordering::Acquire);
    if per_ms == 0 || !ready() {
        return;
    }
    let ticks = (u128::from(ns) * u128::from(per_ms) / 1_000_000).clamp(1, u128::from(u32::MAX));
    apic_write(APIC_LVT_TIMER, u32::from(TIMER_VECTOR));
    apic_write(APIC_TIMER_INITIAL, ticks as u32);
    #[cfg(target_os = "none")]
    {
        // SAFETY: the enabled vectors' handlers save what they touch; `cli`
        // afterwards restores the kernel's interrupts-off state.
        unsafe { core::arch::asm!("sti", "hlt", "cli", options(nostack)) };
    }
    apic_write(APIC_TIMER_INITIAL, 0);
    apic_write(APIC_LVT_TIMER, LVT_MASKED | u32::from(TIMER_VECTOR));
}

/// Where the legacy PICs' 16 lines are moved (off the exception vectors 0-31,
/// where the firmware leaves them: the PIT's IRQ 0 would arrive as a double fault).
const LEGACY_PIC_BASE: u8 = 0x20;

/// Reprograms the two 8259A PICs to vectors `LEGACY_PIC_BASE..+16` and masks
/// every line: the APIC delivers the GPU's vector; nothing else is wanted
/// (8259A datasheet: ICW1 0x11 = edge, cascade, ICW4 follows; ICW2 the vector
/// base; ICW3 the cascade on IRQ 2; ICW4 0x01 = 8086 mode; then OCW1 = mask).
#[cfg(target_os = "none")]
fn mask_legacy_pics() {
    use x86_64::instructions::port::Port;
    let writes: [(u16, u8); 10] = [
        (0x20, 0x11),
        (0xa0, 0x11),
        (0x21, LEGACY_PIC_BASE),
        (0xa1, LEGACY_PIC_BASE + 8),
        (0x21, 0x04),
        (0xa1, 0x02),
        (0x21, 0x01),
        (0xa1, 0x01),
        (0x21, 0xff),
        (0xa1, 0xff),
    ];
    for (port, value) in writes {
        // SAFETY: the PICs' command and data ports; the sequence above is their
        // initialisation, with every line masked at the end.
        unsafe { Port::<u8>::new(port).write(value) };
    }
}

#[cfg(not(target_os = "none"))]
pub fn init(_platform: &crate::BootPlatform) -> Option<()> {
    None
}

/// Raises `vector` on this CPU (a self-IPI): how the software GPU's MSI arrives.
pub fn raise(vector: u8) {
    apic_write(APIC_ICR_HIGH, 0);
    apic_write(APIC_ICR_LOW, ICR_SELF | u32::from(vector));
}

/// Lets pending interrupts in for a moment (IF = 1 across one instruction), then
/// disables them again.
pub fn let_in() {
    #[cfg(target_os = "none")]
    {
        // `sti` takes effect after the next instruction: a pending vector is taken
        // between the `nop` and the `cli`.
        // SAFETY: the only vectors enabled are the GPU's and the spurious one,
        // whose handlers save what they touch.
        unsafe { core::arch::asm!("sti", "nop", "cli", options(nostack)) };
    }
}
