//! Interrupts through the public API on the software GPU, for every generation:
//! the MSI capability found and programmed, an MSI that wakes a waiter blocked in
//! the platform's wait, masks and the master enable that keep interrupts in,
//! IIR acknowledged by the handler, the INTx fallback with Interrupt Disable; and
//! forcewake timeouts reported as errors.

use baregpu::hal::pci::{self, msi};
use baregpu::hal::{ConfigSpace, Mmio};
use baregpu::irq::InterruptMode;
use baregpu::platform::PlatformBus;
use baregpu::platform::host::{HostPlatform, WithDevice};
use baregpu::{EngineId, Generation, Gpu, GpuError, Platform};
use baregpu_soft::SoftGpu;

const MSI_ADDRESS: u64 = 0xfee0_0000;
const MSI_DATA: u16 = 0x41;
const MSI: InterruptMode = InterruptMode::Msi {
    address: MSI_ADDRESS,
    data: MSI_DATA,
};

/// MI_NOOPs that keep an engine busy past what the TAIL write and the driver's
/// first register reads run (4096 + 256 commands), so that the wait has to sleep.
const LONG_BATCH: usize = 20_000;

fn soft(p: &HostPlatform, generation: Generation) -> SoftGpu<PlatformBus<'_, HostPlatform>> {
    SoftGpu::new(generation, PlatformBus::new(p)).expect("software GPU")
}

/// The engine block's interrupt registers and the master enable, from the description.
fn regs(generation: Generation) -> (baregpu::hal::device::IrqRegs, Option<(u32, u32)>) {
    let d = baregpu::hal::device::of(generation).unwrap();
    (d.gt.irq, d.interrupts.master.map(|m| (m.register, m.bit)))
}

macro_rules! interrupt_tests {
    ($gen:ident, $generation:expr) => {
        mod $gen {
            use super::*;

            /// The capability list leads to the MSI capability; enabling MSI programs
            /// its address, data and enable, turns bus mastering on and INTx off.
            #[test]
            fn the_msi_capability_is_found_and_programmed() {
                let p = HostPlatform::new();
                let soft = soft(&p, $generation);
                let cap = pci::find_capability(&soft, msi::ID).expect("an MSI capability");
                let enable = (msi::CONTROL_ENABLE as u32) << msi::CONTROL_SHIFT;
                assert_eq!(soft.config_read32(cap) & enable, 0, "off at reset");
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                gpu.enable_interrupts(MSI).unwrap();
                assert_ne!(soft.config_read32(cap) & enable, 0);
                assert_eq!(soft.config_read32(cap + msi::ADDRESS), MSI_ADDRESS as u32);
                assert_eq!(soft.config_read32(cap + msi::DATA_32), MSI_DATA as u32);
                let command = soft.config_read32(pci::COMMAND);
                assert_ne!(command & pci::COMMAND_BUS_MASTER, 0);
                assert_ne!(command & pci::COMMAND_INTERRUPT_DISABLE, 0);
                assert_eq!(
                    gpu.enable_interrupts(InterruptMode::Msi {
                        address: 1 << 32,
                        data: 0
                    }),
                    Err(GpuError::Interrupts(
                        baregpu::irq::IrqError::MsiAddressTooWide(1 << 32)
                    )),
                    "the capability has a 32-bit address"
                );
            }

            /// A waiter sleeps in the platform's wait while the device runs, and the
            /// MSI, not a timeout, wakes it: every wake is counted as an interrupt,
            /// each MSI the device sent reached the platform with the OS's address
            /// and data, and the handler saw the engine's user interrupt.
            #[test]
            fn an_msi_wakes_the_waiter_on_every_engine() {
                let p = HostPlatform::new();
                let soft = soft(&p, $generation);
                let step = || soft.run(64);
                let host = WithDevice::new(&p, &step);
                let mut gpu = Gpu::new(&host, &soft, $generation).unwrap();
                gpu.enable_interrupts(MSI).unwrap();
                for e in (0..gpu.engines().count()).map(EngineId) {
                    let before = p.interrupt_counts();
                    let mut b = gpu.new_batch(4 * LONG_BATCH + 4096).unwrap();
                    b.push_dwords(&[0; LONG_BATCH]).unwrap();
                    let f = gpu.submit(e, b).unwrap();
                    assert!(!gpu.poll(f), "the batch is still running");
                    let t0 = p.now_ns();
                    gpu.wait(f, 1_000_000).unwrap();
                    let after = p.interrupt_counts();
                    assert!(
                        after.woken_by_interrupt > before.woken_by_interrupt,
                        "engine {}: the wait slept and an MSI woke it",
                        e.0
                    );
                    assert_eq!(after.woken_otherwise, 0, "no wait ended without an MSI");
                    assert!(p.now_ns() - t0 < 1_000_000_000, "well before the deadline");
                    assert!(gpu.take_signalled().engines & (1 << e.0) != 0);
                }
                let c = p.interrupt_counts();
                assert!(!c.msis.is_empty());
                assert_eq!(c.msis.len() as u64, soft.msis_sent());
                assert!(c.msis.iter().all(|&m| m == (MSI_ADDRESS, MSI_DATA as u32)));
            }

            /// The handler reads and acknowledges IIR: nothing stays pending, the line
            /// is low, and the next completion sends the next MSI.
            #[test]
            fn the_handler_acknowledges_iir() {
                let p = HostPlatform::new();
                let soft = soft(&p, $generation);
                let (irq, _) = regs($generation);
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                gpu.enable_interrupts(MSI).unwrap();
                for n in 1..=2u64 {
                    let b = gpu.new_batch(4096).unwrap();
                    let f = gpu.submit(EngineId::RENDER, b).unwrap();
                    while !gpu.poll(f) {}
                    assert_eq!(soft.msis_sent(), n, "one MSI per completion");
                    let bit = gpu.user_interrupt_bit(EngineId::RENDER).unwrap();
                    assert_ne!(gpu.mmio().read32(irq.iir) & 1 << bit, 0, "latched in IIR");
                    let s = gpu.handle_interrupt();
                    assert_eq!(s.engines, 1, "the render engine signalled");
                    assert_eq!(gpu.mmio().read32(irq.iir), 0, "acknowledged");
                }
            }

            /// A user interrupt masked in IMR never reaches IIR: no MSI, no INTx, and
            /// the waiter wakes only when its poll interval ends.
            #[test]
            fn masked_interrupts_are_not_delivered() {
                let p = HostPlatform::new();
                let soft = soft(&p, $generation);
                let (irq, _) = regs($generation);
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                gpu.enable_interrupts(MSI).unwrap();
                gpu.mmio().write32(irq.imr, u32::MAX);
                let b = gpu.new_batch(4096).unwrap();
                let f = gpu.submit(EngineId::RENDER, b).unwrap();
                gpu.wait(f, 1_000_000).unwrap();
                assert_eq!(gpu.mmio().read32(irq.iir), 0);
                assert_eq!(soft.msis_sent(), 0);
                assert!(!soft.intx_asserted());
                assert_eq!(p.interrupt_counts().woken_by_interrupt, 0);
            }

            /// With INTx the line is a level the platform reads: asserted while the
            /// interrupt is pending, held off by the command register's Interrupt
            /// Disable, dropped by the handler's acknowledge; no MSI is written.
            #[test]
            fn intx_is_the_fallback_and_interrupt_disable_holds_it_off() {
                let p = HostPlatform::new();
                let soft = soft(&p, $generation);
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                gpu.enable_interrupts(InterruptMode::Intx).unwrap();
                let command = soft.config_read32(pci::COMMAND) & 0xffff;
                assert_eq!(command & pci::COMMAND_INTERRUPT_DISABLE, 0);
                let b = gpu.new_batch(4096).unwrap();
                let f = gpu.submit(EngineId::RENDER, b).unwrap();
                while !gpu.poll(f) {}
                assert!(soft.intx_asserted());
                assert_ne!(soft.config_read32(pci::COMMAND) & pci::STATUS_INTERRUPT, 0);
                soft.config_write32(pci::COMMAND, command | pci::COMMAND_INTERRUPT_DISABLE);
                assert!(!soft.intx_asserted(), "Interrupt Disable");
                assert_ne!(
                    soft.config_read32(pci::COMMAND) & pci::STATUS_INTERRUPT,
                    0,
                    "still pending in the status register"
                );
                soft.config_write32(pci::COMMAND, command);
                assert!(soft.intx_asserted());
                assert_eq!(gpu.handle_interrupt().engines, 1);
                assert!(!soft.intx_asserted());
                assert_eq!(soft.msis_sent(), 0);
                assert!(p.interrupt_counts().msis.is_empty());
            }
        }
    };
}

interrupt_tests!(gen4, Generation::Gen4);
interrupt_tests!(g45, Generation::G45);
interrupt_tests!(gen6, Generation::Gen6);
interrupt_tests!(gen7, Generation::Gen7);

/// Gen6/Gen7: with DEIER's master bit clear the pending interrupt stays in the
/// device (IIR latched, no MSI, no INTx); setting it sends the MSI at once.
#[test]
fn the_master_enable_gates_delivery_on_gen6_and_gen7() {
    for generation in [Generation::Gen6, Generation::Gen7] {
        let p = HostPlatform::new();
        let soft = soft(&p, generation);
        let (irq, master) = regs(generation);
        let (deier, bit) = master.expect("DEIER's master bit");
        assert_eq!((deier, bit), (0x4400c, 31));
        let mut gpu = Gpu::new(&p, &soft, generation).unwrap();
        gpu.enable_interrupts(MSI).unwrap();
        let on = gpu.mmio().read32(deier);
        assert_ne!(on & 1 << bit, 0, "enabling sets the master bit");
        gpu.mmio().write32(deier, on & !(1 << bit));
        let b = gpu.new_batch(4096).unwrap();
        let f = gpu.submit(EngineId::RENDER, b).unwrap();
        while !gpu.poll(f) {}
        assert_ne!(gpu.mmio().read32(irq.iir) & 1, 0, "{generation}: latched");
        assert_eq!(soft.msis_sent(), 0, "{generation}: master off, no MSI");
        gpu.mmio().write32(deier, on);
        assert_eq!(soft.msis_sent(), 1, "{generation}: master on, the MSI goes");
        assert_eq!(p.interrupt_counts().msis, [(MSI_ADDRESS, MSI_DATA as u32)]);
    }
}

/// Gen4/G45 have no master enable: IER alone gates the line.
#[test]
fn gen4_and_g45_gate_with_ier_alone() {
    for generation in [Generation::Gen4, Generation::G45] {
        let p = HostPlatform::new();
        let soft = soft(&p, generation);
        let (irq, master) = regs(generation);
        assert_eq!(master, None);
        assert_eq!(
            (irq.ier, irq.iir, irq.imr, irq.isr),
            (0x20a0, 0x20a4, 0x20a8, 0x20ac)
        );
        let mut gpu = Gpu::new(&p, &soft, generation).unwrap();
        gpu.enable_interrupts(MSI).unwrap();
        let ier = gpu.mmio().read32(irq.ier);
        gpu.mmio().write32(irq.ier, 0);
        let b = gpu.new_batch(4096).unwrap();
        let f = gpu.submit(EngineId::RENDER, b).unwrap();
        while !gpu.poll(f) {}
        assert_ne!(
            gpu.mmio().read32(irq.iir) & 1 << 1,
            0,
            "{generation}: bit 1 latched"
        );
        assert_eq!(soft.msis_sent(), 0);
        gpu.mmio().write32(irq.ier, ier);
        assert_eq!(soft.msis_sent(), 1);
    }
}

/// A GT that never acknowledges forcewake is a clear error naming the register,
/// not a hang or a success.
#[test]
fn a_forcewake_that_is_never_acknowledged_is_reported() {
    for (generation, ack) in [(Generation::Gen6, 0x130090), (Generation::Gen7, 0x130040)] {
        let p = HostPlatform::new();
        let soft = soft(&p, generation);
        soft.set_forcewake_acks(false);
        let Err(GpuError::Forcewake(t)) = Gpu::new(&p, &soft, generation) else {
            panic!("{generation}: expected a forcewake timeout");
        };
        assert_eq!((t.register, t.timeout_ms), (ack, 50), "{generation}");
        assert_eq!(t.step, "the forcewake acknowledge");
        let text = GpuError::Forcewake(t).to_string();
        assert!(
            text.contains("forcewake") && text.contains("50 ms"),
            "{text}"
        );
        assert!(
            p.now_ns() >= 50_000_000,
            "{generation}: it waited the whole timeout"
        );
    }
}

/// Ivy Bridge keeps the multi-threaded request when ECOBUS bit 5 says the part has
/// it, and falls back to the single FORCEWAKE otherwise (Linux
/// intel_uncore_fw_domains_init).
#[test]
fn ivy_bridge_falls_back_to_single_forcewake_without_mt() {
    for mt in [true, false] {
        let p = HostPlatform::new();
        let soft = soft(&p, Generation::Gen7);
        soft.set_forcewake_mt_capable(mt);
        let gpu = Gpu::new(&p, &soft, Generation::Gen7).unwrap();
        let (forcewake_mt, forcewake) = (gpu.mmio().read32(0xa188), gpu.mmio().read32(0xa18c));
        assert_eq!(
            (forcewake_mt & 1, forcewake & 1),
            (mt as u32, !mt as u32),
            "MT {mt}"
        );
        drop(gpu);
        let held = (soft.read32(0xa188) & 1, soft.read32(0xa18c) & 1);
        assert_eq!(held, (0, 0), "released on drop");
    }
}

/// Gen6/Gen7: an engine's own IMR masks its user interrupt before the GT sees it
/// (003 line 55552: command streamer interrupts are masked there, not in GTIMR);
/// the other engines still signal.
#[test]
fn the_ring_imr_gates_user_interrupts_on_gen6_and_gen7() {
    for generation in [Generation::Gen6, Generation::Gen7] {
        let p = HostPlatform::new();
        let soft = soft(&p, generation);
        let (irq, _) = regs(generation);
        let mut gpu = Gpu::new(&p, &soft, generation).unwrap();
        gpu.enable_interrupts(MSI).unwrap();
        let render_imr = gpu.engines().next().unwrap().imr.unwrap();
        assert_eq!(render_imr, 0x20a8);
        gpu.mmio().write32(render_imr, u32::MAX);
        let b = gpu.new_batch(4096).unwrap();
        let f = gpu.submit(EngineId::RENDER, b).unwrap();
        while !gpu.poll(f) {}
        assert_eq!(
            gpu.mmio().read32(irq.iir),
            0,
            "{generation}: masked at the ring"
        );
        assert_eq!(soft.msis_sent(), 0);
        let blitter = gpu.engine_named("blitter").unwrap();
        let b = gpu.new_batch(4096).unwrap();
        let f = gpu.submit(blitter, b).unwrap();
        while !gpu.poll(f) {}
        assert_eq!(
            gpu.mmio().read32(irq.iir),
            1 << 22,
            "{generation}: the blitter's bit"
        );
        assert_eq!(soft.msis_sent(), 1);
    }
}

/// After an engine reset (a hang) the driver unmasks the ring's interrupts again,
/// so the next completion still wakes the waiter with an MSI.
#[test]
fn interrupts_survive_an_engine_reset() {
    for generation in [
        Generation::Gen4,
        Generation::G45,
        Generation::Gen6,
        Generation::Gen7,
    ] {
        let p = HostPlatform::new();
        let soft = soft(&p, generation);
        let mut gpu = Gpu::new(&p, &soft, generation).unwrap();
        gpu.enable_interrupts(MSI).unwrap();
        let mut b = gpu.new_batch(4096).unwrap();
        b.push_dwords(&[0x0780_0000]).unwrap(); // MI opcode 0Fh: an unknown command
        let f = gpu.submit(EngineId::RENDER, b).unwrap();
        assert!(matches!(gpu.wait(f, 1_000_000), Err(GpuError::Hang(_))));
        let sent = soft.msis_sent();
        let b = gpu.new_batch(4096).unwrap();
        let f = gpu.submit(EngineId::RENDER, b).unwrap();
        gpu.wait(f, 1_000_000).unwrap();
        assert!(
            soft.msis_sent() > sent,
            "{generation}: MSIs after the reset"
        );
    }
}

/// Gen12.5 (DG2): the model lists the same MSI capability and sends its
/// message on a rising edge of the Gen11 interrupt tree's line; the
/// execlist backend's waits sleep in the platform's wait, and the MSI, not
/// a timeout or a poll interval, wakes them, on every engine.
#[cfg(feature = "gen12_5")]
#[test]
fn dg2_waits_sleep_until_the_msi_on_every_engine() {
    let p = HostPlatform::new();
    let soft = soft(&p, Generation::Gen12_5);
    let step = || soft.run(64);
    let host = WithDevice::new(&p, &step);
    let mut gpu = Gpu::new(&host, &soft, Generation::Gen12_5).unwrap();
    gpu.enable_interrupts(MSI).unwrap();
    let cap = pci::find_capability(&soft, msi::ID).expect("an MSI capability");
    assert_eq!(soft.config_read32(cap + msi::ADDRESS), MSI_ADDRESS as u32);
    for e in (0..gpu.engines().count()).map(EngineId) {
        let before = p.interrupt_counts();
        let mut b = gpu.new_batch(4 * LONG_BATCH + 4096).unwrap();
        b.push_dwords(&[0; LONG_BATCH]).unwrap();
        let f = gpu.submit(e, b).unwrap();
        assert!(!gpu.poll(f), "the batch is still running");
        let t0 = p.now_ns();
        gpu.wait(f, 1_000_000).unwrap();
        let after = p.interrupt_counts();
        assert!(
            after.woken_by_interrupt > before.woken_by_interrupt,
            "engine {}: the wait slept and an MSI woke it",
            e.0
        );
        assert_eq!(after.woken_otherwise, 0, "no wait ended without an MSI");
        assert!(p.now_ns() - t0 < 1_000_000_000, "well before the deadline");
        assert!(gpu.take_signalled().engines & (1 << e.0) != 0);
    }
    let c = p.interrupt_counts();
    assert!(!c.msis.is_empty());
    assert_eq!(c.msis.len() as u64, soft.msis_sent());
    assert!(c.msis.iter().all(|&m| m == (MSI_ADDRESS, MSI_DATA as u32)));
}

/// Gen12.5 with INTx: the line is up while a vector is pending, held off
/// by Interrupt Disable, dropped by the handler; no MSI is written. Without
/// interrupts enabled the waits poll: nothing wakes them.
#[cfg(feature = "gen12_5")]
#[test]
fn dg2_intx_and_polling_without_interrupts() {
    let p = HostPlatform::new();
    let soft = soft(&p, Generation::Gen12_5);
    let mut gpu = Gpu::new(&p, &soft, Generation::Gen12_5).unwrap();
    let b = gpu.new_batch(4096).unwrap();
    let f = gpu.submit(EngineId::RENDER, b).unwrap();
    gpu.wait(f, 1_000_000).unwrap();
    assert_eq!(p.interrupt_counts().woken_by_interrupt, 0);
    assert!(!soft.intx_asserted(), "nothing enabled");
    gpu.enable_interrupts(InterruptMode::Intx).unwrap();
    let command = soft.config_read32(pci::COMMAND) & 0xffff;
    let b = gpu.new_batch(4096).unwrap();
    let f = gpu.submit(EngineId::RENDER, b).unwrap();
    while !gpu.poll(f) {}
    assert!(soft.intx_asserted());
    soft.config_write32(pci::COMMAND, command | pci::COMMAND_INTERRUPT_DISABLE);
    assert!(!soft.intx_asserted(), "Interrupt Disable");
    assert_ne!(
        soft.config_read32(pci::COMMAND) & pci::STATUS_INTERRUPT,
        0,
        "still pending in the status register"
    );
    soft.config_write32(pci::COMMAND, command);
    assert_eq!(gpu.handle_interrupt().engines, 1);
    assert!(!soft.intx_asserted());
    assert_eq!(soft.msis_sent(), 0);
}
