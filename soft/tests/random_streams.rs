//! Whatever a batch contains, the software GPU never panics and never runs
//! away: random streams (made of real headers with random bodies, and of
//! random dwords) finish, halt with an error, or are still running after
//! the budget, and the device stays usable; on the render ring of every
//! generation and on the Gen6/Gen7 blitter ring.

use std::cell::RefCell;
use std::rc::Rc;

use baregpu_hal::{BusError, ConfigSpace, Generation, MemoryBus, Mmio};
use baregpu_soft::SoftGpu;
use baregpu_soft::layout::Reset;

/// 16 MiB of "physical memory" at address 0, shared with the test.
#[derive(Clone)]
struct Ram(Rc<RefCell<Vec<u8>>>);

impl Ram {
    fn poke(&self, phys: u64, value: u32) {
        self.0.borrow_mut()[phys as usize..phys as usize + 4].copy_from_slice(&value.to_le_bytes());
    }
}

impl MemoryBus for Ram {
    fn read(&self, phys: u64, buf: &mut [u8]) -> Result<(), BusError> {
        let ram = self.0.borrow();
        let s = ram
            .get(phys as usize..phys as usize + buf.len())
            .ok_or(BusError { phys })?;
        buf.copy_from_slice(s);
        Ok(())
    }
    fn write(&self, phys: u64, data: &[u8]) -> Result<(), BusError> {
        let mut ram = self.0.borrow_mut();
        let d = ram
            .get_mut(phys as usize..phys as usize + data.len())
            .ok_or(BusError { phys })?;
        d.copy_from_slice(data);
        Ok(())
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

const RING: u64 = 0x10_0000; // ring at physical and graphics 1 MiB
const BATCH: u64 = 0x20_0000; // batch at 2 MiB

#[test]
fn random_batches_never_panic() {
    for generation in [
        Generation::Gen4,
        Generation::G45,
        Generation::Gen6,
        Generation::Gen7,
    ] {
        random_streams_on(generation, "render");
    }
}

/// The same on the blitter engine, with the commands it runs (MI and the
/// XY_* blits with random bodies: clip rectangles, pitches, tiling, ROPs).
#[test]
fn random_blitter_batches_never_panic() {
    for generation in [Generation::Gen6, Generation::Gen7] {
        random_streams_on(generation, "blitter");
    }
}

/// 150 rounds of a random batch started from `engine`'s ring.
fn random_streams_on(generation: Generation, engine: &str) {
    let layout = baregpu_soft::layout::Layout::of(generation).unwrap();
    let gtt_offset = layout.gtt_offset;
    let e = layout
        .device
        .engines
        .iter()
        .find(|e| e.name == engine)
        .unwrap_or_else(|| panic!("{generation} has no {engine} engine"));
    let ring_reg = |r: u32| e.base + r;
    let tables = generation.tables();
    let candidates: Vec<_> = tables
        .commands
        .iter()
        .filter(|c| !c.name.starts_with("3D"))
        .filter(|c| c.engines.is_empty() || c.engines.contains(&engine))
        .collect();
    let (mut commands, mut errors, mut halted_or_done) = (0u64, 0u64, 0u32);
    let mut rng = Rng(0xfeed_f00d_1234_5678);
    for round in 0..150 {
        let ram = Ram(Rc::new(RefCell::new(vec![0u8; 16 << 20])));
        let gpu = SoftGpu::new(generation, ram.clone()).unwrap();
        // Identity-map the first 16 MiB in the GGTT (PTE: address | valid), except a hole.
        for page in 0..4096u32 {
            if page != 0x300 {
                gpu.write32(gtt_offset + page * 4, (page << 12) | 1);
            }
        }
        // A random batch: half real headers with random bodies, half noise.
        // The 3D commands are left out: the model refuses each at once
        // (tests/no_silent_noops.rs), which would end most streams early.
        let mut batch = Vec::new();
        while batch.len() < 256 {
            let r = rng.next();
            if r.is_multiple_of(2) && !candidates.is_empty() {
                let c = candidates[(r >> 8) as usize % candidates.len()];
                batch.push(c.header_value | (rng.next() as u32 & !c.header_mask));
            } else {
                batch.push(rng.next() as u32);
            }
            // Point some dwords at mapped memory so that stores really happen.
            if r.is_multiple_of(7) {
                batch.push(0x40_0000 + (rng.next() as u32 & 0xf_fff8));
            }
        }
        // The ring: start the batch (MI_BATCH_BUFFER_START, secure), then MI_USER_INTERRUPT.
        let ring_cmds = [0x1880_0000u32, BATCH as u32, 0x0100_0000, 0];
        for (k, d) in batch.iter().enumerate() {
            ram.poke(BATCH + 4 * k as u64, *d);
        }
        for (k, d) in ring_cmds.iter().enumerate() {
            ram.poke(RING + 4 * k as u64, *d);
        }
        // The engine's ring: START, CTL (one page, enabled), TAIL.
        gpu.write32(ring_reg(e.ring.start), RING as u32);
        gpu.write32(ring_reg(e.ring.ctl), 1);
        gpu.write32(ring_reg(e.ring.tail), 16);
        for _ in 0..20 {
            gpu.run(10_000);
        }
        let stats = gpu.stats();
        commands += stats.commands;
        errors += stats.errors;
        // Either the engine stopped (error) or it is still going within the budget:
        // HEAD reads back as a ring offset, never garbage.
        assert!(
            gpu.read32(ring_reg(e.ring.head)) & 0x1f_fffc < 4096,
            "round {round}: HEAD inside the ring"
        );
        halted_or_done += (stats.errors > 0) as u32;
        // Reset the engine: the device must accept new work afterwards.
        match layout.reset {
            Reset::Gdrst => gpu.write32(0x941c, 1 << e.reset_bit),
            Reset::PciConfig => gpu.config_write32(0xc0, (1 << 2) | 1),
        }
        assert_eq!(
            gpu.read32(ring_reg(e.ring.ctl)) & 1,
            0,
            "round {round}: reset disables the ring"
        );
    }
    // The streams did real work and hit real errors (the test would prove little otherwise).
    assert!(
        commands > 1000,
        "{generation} {engine}: only {commands} commands ran"
    );
    assert!(
        errors > 0 && halted_or_done > 10,
        "{generation} {engine}: {errors} errors"
    );
}
