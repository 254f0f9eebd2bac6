//! Gen12.5 (DG2) submission through `Gpu::new` (its execlist backend) on
//! the software GPU: the acceptance scenarios of the older generations
//! (tests/support/mod.rs) on RCS, BCS and CCS, with buffers in system and
//! local memory, PPGTT contexts that cannot see each other, and the errors.

use baregpu::Generation;
use baregpu::hal::gen12_5::commands::*;
use baregpu::platform::host::HostPlatform;
use baregpu::platform::{LocalMemory, PlatformBus};
use baregpu::submit::{CONTEXT_SWITCH_INTERRUPT, HangReason, Placement, USER_INTERRUPT};
use baregpu::{EngineId, Gpu, GpuError};
use baregpu_soft::SoftGpu;

mod support;

/// The harness's BAR2: the model's local memory behind the driver's seam.
struct Bar2<'a>(&'a SoftGpu<PlatformBus<'a, HostPlatform>>);

impl LocalMemory for Bar2<'_> {
    fn local_size(&self) -> u64 {
        self.0.local_memory_size()
    }
    fn read_local(&self, offset: u64, buf: &mut [u8]) -> bool {
        self.0.read_local(offset, buf)
    }
    fn write_local(&self, offset: u64, data: &[u8]) -> bool {
        self.0.write_local(offset, data)
    }
}

fn sdi(addr: u64, ggtt: bool, value: u32) -> MiStoreDataImm {
    MiStoreDataImm {
        use_global_gtt: ggtt,
        address: addr,
        data_dword0: value,
        ..Default::default()
    }
}

macro_rules! setup {
    ($p:ident, $soft:ident, $bar:ident, $gpu:ident) => {
        let $p = HostPlatform::new();
        let $soft = SoftGpu::new(Generation::Gen12_5, PlatformBus::new(&$p)).expect("DG2 model");
        let $bar = Bar2(&$soft);
        #[allow(unused_mut)]
        let mut $gpu =
            Gpu::with_local_memory(&$p, &$soft, Generation::Gen12_5, &$bar).expect("bring-up");
    };
}

const ENGINES: [&str; 3] = ["render", "blitter", "compute"];
const SECOND: u64 = 1_000_000;

/// A card whose firmware has not trained local memory (GU_CNTL LMEM_INIT
/// clear) is refused at bring-up, naming the register, before anything is
/// mapped; with the bit set the same model comes up.
#[test]
fn untrained_local_memory_is_refused_at_bring_up() {
    use baregpu::hal::Mmio;
    let p = HostPlatform::new();
    let soft = SoftGpu::new(Generation::Gen12_5, PlatformBus::new(&p)).expect("DG2 model");
    let bar = Bar2(&soft);
    assert_eq!(
        soft.read32(0x10_1010) & 1 << 7,
        1 << 7,
        "the model's memory is trained"
    );
    soft.write32(0x10_1010, 0);
    match Gpu::with_local_memory(&p, &soft, Generation::Gen12_5, &bar) {
        Err(GpuError::BringUp(why)) => assert!(why.contains("GU_CNTL"), "{why}"),
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("brought up with untrained local memory"),
    }
    soft.write32(0x10_1010, 1 << 7);
    Gpu::with_local_memory(&p, &soft, Generation::Gen12_5, &bar).expect("bring-up");
}

#[test]
fn stores_on_every_engine_reach_system_and_local_memory() {
    setup!(p, soft, bar, gpu);
    assert_eq!(gpu.bring_up().ggtt_entries, (8 << 20) / 8);
    for (k, name) in ENGINES.iter().enumerate() {
        let e = gpu.engine_named(name).unwrap();
        let sys = gpu.buffer(4096, Placement::System).unwrap();
        let lmem = gpu.buffer(8192, Placement::Local).unwrap();
        let mut b = gpu.new_batch(4096).unwrap();
        b.push(&sdi(sys.gfx().0 + 8, true, 0xc0de_0000 | k as u32))
            .unwrap();
        b.push(&sdi(lmem.gfx().0 + 4100, true, 0x10ca_1000 | k as u32))
            .unwrap();
        let f = gpu.submit(e, b).unwrap();
        gpu.wait(f, SECOND).unwrap();
        assert_eq!(sys.read_u32(2), Some(0xc0de_0000 | k as u32), "{name}");
        assert_eq!(sys.read_u32(0), Some(0), "{name}: nothing else");
        assert_eq!(lmem.read_u32(1025), Some(0x10ca_1000 | k as u32), "{name}");
        // Local memory: the store went to the device, not to any DMA page.
        let mut raw = [0u8; 4];
        let found = (0..bar.local_size() / 4096).any(|pg| {
            bar.read_local(pg * 4096 + 4100, &mut raw)
                && u32::from_le_bytes(raw) == 0x10ca_1000 | k as u32
        });
        assert!(found, "{name}: the value is in local memory");
    }
}

#[test]
fn a_chain_of_1000_batches() {
    setup!(p, soft, bar, gpu);
    let out = gpu.buffer(4096, Placement::System).unwrap();
    let e = gpu.engine_named("render").unwrap();
    let mut last = None;
    for n in 0..1000u32 {
        let mut b = gpu.new_batch(4096).unwrap();
        b.push(&sdi(out.gfx().0 + 4 * u64::from(n % 1024), true, n * n))
            .unwrap();
        last = Some(gpu.submit(e, b).unwrap());
    }
    gpu.wait(last.unwrap(), 10 * SECOND).unwrap();
    for n in 0..1000u32 {
        assert_eq!(out.read_u32(u64::from(n)), Some(n * n), "batch {n}");
    }
    assert_eq!(gpu.completed(e), 1000);
}

#[test]
fn sustained_submission_wraps_the_ring_with_no_lost_or_repeated_work() {
    setup!(p, soft, bar, gpu);
    for name in ["blitter", "compute"] {
        let e = gpu.engine_named(name).unwrap();
        let counter = gpu.buffer(4096, Placement::Local).unwrap();
        let log = gpu.buffer(3000 * 4, Placement::System).unwrap();
        let mut fences = Vec::new();
        for n in 0..3000u32 {
            let mut b = gpu.new_batch(4096).unwrap();
            // Each batch logs its number and increments a counter in local memory (MI_ATOMIC).
            b.push(&sdi(log.gfx().0 + 4 * u64::from(n), true, n + 1))
                .unwrap();
            b.push(&MiAtomic {
                memory_address: counter.gfx().0,
                atomic_opcode: MiAtomic::ATOMIC_OPCODE_ATOMIC_INC,
                data_size: 0,
                use_global_gtt: true,
                ..Default::default()
            })
            .unwrap();
            fences.push(gpu.submit(e, b).unwrap());
            if n % 500 == 499 {
                gpu.wait(fences[n as usize - 250], SECOND).unwrap();
            }
        }
        gpu.wait(*fences.last().unwrap(), 10 * SECOND).unwrap();
        for f in &fences {
            assert!(gpu.poll(*f));
        }
        for n in 0..3000u32 {
            assert_eq!(log.read_u32(u64::from(n)), Some(n + 1), "{name} batch {n}");
        }
        assert_eq!(
            counter.read_u32(0),
            Some(3000),
            "{name}: each batch ran once"
        );
    }
}

#[test]
fn interrupts_and_context_status_events() {
    setup!(p, soft, bar, gpu);
    gpu.enable_user_interrupts();
    for name in ENGINES {
        let e = gpu.engine_named(name).unwrap();
        let b = gpu.new_batch(4096).unwrap();
        let f = gpu.submit(e, b).unwrap();
        gpu.wait(f, SECOND).unwrap();
        assert!(gpu.interrupt_pending(), "{name}: the line is up");
        let got = gpu.take_interrupt_vectors().unwrap();
        assert_eq!(got.len(), 1, "{name}: {got:?}");
        assert_eq!(got[0].0, e);
        assert_ne!(got[0].1 & USER_INTERRUPT, 0, "{name}: user interrupt");
        assert_ne!(
            got[0].1 & CONTEXT_SWITCH_INTERRUPT,
            0,
            "{name}: context switch"
        );
        assert!(!gpu.interrupt_pending(), "{name}: acknowledged");
        let id = gpu.context_sw_id(None, e).unwrap();
        let ev = gpu.csb_events(e).unwrap();
        assert_eq!(ev.len(), 2, "{name}: {ev:?}");
        assert_eq!(
            (ev[0].to, ev[0].away, ev[0].new_queue),
            (Some(id), None, true)
        );
        assert_eq!((ev[1].to, ev[1].away), (None, Some(id)));
    }
}

#[test]
fn an_unknown_command_is_reported_decoded_and_later_work_runs() {
    setup!(p, soft, bar, gpu);
    let out = gpu.buffer(4096, Placement::System).unwrap();
    let e = gpu.engine_named("render").unwrap();
    let mut bad = gpu.new_batch(4096).unwrap();
    bad.push(&sdi(out.gfx().0, true, 1)).unwrap();
    // MI opcode 0x3f: no such command.
    bad.push_dwords(&[0x3f << 23, 0]).unwrap();
    bad.push(&sdi(out.gfx().0 + 4, true, 2)).unwrap();
    let f = gpu.submit(e, bad).unwrap();
    let Err(GpuError::Hang(state)) = gpu.wait(f, SECOND) else {
        panic!("an unknown command must be reported");
    };
    assert_eq!(state.reason, HangReason::EngineError);
    assert_eq!(state.eir & 1, 1, "instruction error");
    assert_eq!(state.ipehr, 0x3f << 23);
    assert!(state.commands.contains("MI_STORE_DATA_IMM"), "{state}");
    assert_eq!(out.read_u32(0), Some(1));
    assert_eq!(
        out.read_u32(1),
        Some(0),
        "nothing after the bad command ran"
    );
    let mut good = gpu.new_batch(4096).unwrap();
    good.push(&sdi(out.gfx().0 + 8, true, 3)).unwrap();
    let f = gpu.submit(e, good).unwrap();
    gpu.wait(f, SECOND).unwrap();
    assert_eq!(out.read_u32(2), Some(3));
}

#[test]
fn a_runaway_batch_is_a_hang_work_behind_it_is_lost_and_later_work_runs() {
    setup!(p, soft, bar, gpu);
    let out = gpu.buffer(4096, Placement::System).unwrap();
    let e = gpu.engine_named("blitter").unwrap();
    let mut b = gpu.new_batch(4096).unwrap();
    let at = b.gfx().0;
    b.push(&sdi(out.gfx().0, true, 7)).unwrap();
    // Jumps back to its own start for ever.
    b.push(&MiBatchBufferStart {
        batch_buffer_start_address: at,
        ..Default::default()
    })
    .unwrap();
    let hung = gpu.submit(e, b).unwrap();
    let next = gpu_batch_storing(&mut gpu, out.gfx().0 + 4, 8);
    let behind = gpu.submit(e, next).unwrap();
    let Err(GpuError::Hang(state)) = gpu.wait(hung, 20_000) else {
        panic!("a runaway batch must be a hang");
    };
    assert_eq!(state.reason, HangReason::Timeout);
    assert_eq!(u64::from(state.bb_addr), at & 0xffff_ffff, "{state}");
    assert!(state.commands.contains("MI_BATCH_BUFFER_START"), "{state}");
    assert_eq!(gpu.wait(behind, SECOND), Err(GpuError::Lost(behind)));
    assert_eq!(out.read_u32(1), Some(0), "the lost batch did not run");
    let next = gpu_batch_storing(&mut gpu, out.gfx().0 + 8, 9);
    let f = gpu.submit(e, next).unwrap();
    gpu.wait(f, SECOND).unwrap();
    assert_eq!(out.read_u32(2), Some(9));
}

fn gpu_batch_storing<'a>(
    gpu: &mut Gpu<'a, HostPlatform>,
    addr: u64,
    value: u32,
) -> baregpu::Batch<'a> {
    let mut b = gpu.new_batch(4096).unwrap();
    b.push(&sdi(addr, true, value)).unwrap();
    b
}

#[test]
fn a_store_to_an_unmapped_ppgtt_address_is_a_reported_fault() {
    setup!(p, soft, bar, gpu);
    let ctx = gpu.create_context().unwrap();
    let e = gpu.engine_named("compute").unwrap();
    let mut b = gpu.new_context_batch(ctx, 4096).unwrap();
    b.push(&sdi(0x7_6543_2000, false, 1)).unwrap();
    let f = gpu.submit(e, b).unwrap();
    let Err(GpuError::Hang(state)) = gpu.wait(f, SECOND) else {
        panic!("the fault must be reported");
    };
    let fault = state.fault.expect("a fault record");
    assert_eq!(fault.address, 0x7_6543_2000);
    assert!(!fault.ggtt);
    assert_eq!(state.eir & 1 << 4, 1 << 4, "page table error");
    // Later work in the same context runs.
    let buf = gpu.context_buffer(ctx, 4096, Placement::Local).unwrap();
    let mut b = gpu.new_context_batch(ctx, 4096).unwrap();
    b.push(&sdi(buf.gfx().0, false, 5)).unwrap();
    let f = gpu.submit(e, b).unwrap();
    gpu.wait(f, SECOND).unwrap();
    assert_eq!(buf.read_u32(0), Some(5));
}

#[test]
fn two_contexts_cannot_see_each_others_memory() {
    setup!(p, soft, bar, gpu);
    let e = gpu.engine_named("render").unwrap();
    let a = gpu.create_context().unwrap();
    let b = gpu.create_context().unwrap();
    let buf_a = gpu.context_buffer(a, 4096, Placement::System).unwrap();
    let buf_b = gpu.context_buffer(b, 4096, Placement::Local).unwrap();
    // Each context's first buffer is at the same virtual address.
    assert_eq!(buf_a.gfx(), buf_b.gfx());
    for (ctx, v) in [(a, 0xaaaa), (b, 0xbbbb)] {
        let mut batch = gpu.new_context_batch(ctx, 4096).unwrap();
        batch.push(&sdi(buf_a.gfx().0, false, v)).unwrap();
        let f = gpu.submit(e, batch).unwrap();
        gpu.wait(f, SECOND).unwrap();
    }
    assert_eq!(buf_a.read_u32(0), Some(0xaaaa));
    assert_eq!(buf_b.read_u32(0), Some(0xbbbb));
    // An address only A maps (the last page of 16, beyond anything B has
    // mapped) faults in B.
    let only_a = gpu.context_buffer(a, 16 * 4096, Placement::System).unwrap();
    let last_page = only_a.gfx().0 + 15 * 4096;
    let mut batch = gpu.new_context_batch(b, 4096).unwrap();
    assert!(batch.gfx().0 < last_page);
    batch.push(&sdi(last_page, false, 0xbad)).unwrap();
    let f = gpu.submit(e, batch).unwrap();
    let Err(GpuError::Hang(state)) = gpu.wait(f, SECOND) else {
        panic!("B's store through A's address must fault");
    };
    assert_eq!(state.fault.map(|f| f.address), Some(last_page));
    assert_eq!(only_a.read_u32(15 * 1024), Some(0));
    // The CSB names both contexts.
    let ids: Vec<_> = gpu
        .csb_events(e)
        .unwrap()
        .iter()
        .filter_map(|ev| ev.to)
        .collect();
    assert!(
        ids.contains(&gpu.context_sw_id(Some(a), e).unwrap())
            && ids.contains(&gpu.context_sw_id(Some(b), e).unwrap()),
        "{ids:?}"
    );
    gpu.destroy_context(a).unwrap();
    assert_eq!(gpu.destroy_context(a), Err(GpuError::NoContext(a)));
}

#[test]
fn engine_ids_are_the_tables_names() {
    setup!(p, soft, bar, gpu);
    let names: Vec<_> = gpu.engines().map(|e| e.name).collect();
    assert_eq!(names, ENGINES);
    assert_eq!(gpu.engine_named("render"), Some(EngineId(0)));
    assert_eq!(gpu.blit_engine(), gpu.engine_named("blitter"));
    assert_eq!(gpu.generation(), Generation::Gen12_5);
    // Each engine's bit in take_interrupts(): GEN11_GT_INTR_DW0's RCS0 0, BCS 15, CCS0 4.
    let bits: Vec<_> = (0..3)
        .map(|k| gpu.user_interrupt_bit(EngineId(k)))
        .collect();
    assert_eq!(bits, [Some(0), Some(15), Some(4)]);
}

/// Without its local-memory BAR a DG2 still runs everything in system
/// memory, and says why a local buffer cannot be had.
#[test]
fn without_local_memory_local_buffers_are_refused_by_name() {
    let p = HostPlatform::new();
    let soft = SoftGpu::new(Generation::Gen12_5, PlatformBus::new(&p)).expect("DG2 model");
    let mut gpu = Gpu::new(&p, &soft, Generation::Gen12_5).expect("bring-up");
    assert!(matches!(
        gpu.buffer(4096, Placement::Local),
        Err(GpuError::NoLocalMemory)
    ));
    let ctx = gpu.create_context().unwrap();
    assert!(matches!(
        gpu.context_buffer(ctx, 4096, Placement::Local),
        Err(GpuError::NoLocalMemory)
    ));
    assert_eq!(
        gpu.map_buffer_at(baregpu::gtt::GfxAddr(0x10_0000), 4096)
            .err(),
        Some(GpuError::Unsupported(Generation::Gen12_5))
    );
    assert!(gpu.ggtt().is_err());
    let (buf, map) = gpu.map_buffer(4096).unwrap();
    let mut b = gpu.new_batch(4096).unwrap();
    b.push(&sdi(map.gfx.0 + 12, true, 0x5a5a)).unwrap();
    let e = gpu.engine_named("compute").unwrap();
    let f = gpu.submit(e, b).unwrap();
    gpu.wait(f, SECOND).unwrap();
    assert_eq!(buf.to_u32s()[3], 0x5a5a);
    gpu.unmap(map);
}

/// Submissions alternating between two contexts on one engine, with no
/// waits between them: each context's stores land in its own buffer, in
/// order, and every fence completes (the driver lets one context's work
/// finish before the other's runs).
#[test]
fn alternating_contexts_on_one_engine_all_complete() {
    setup!(p, soft, bar, gpu);
    let e = gpu.engine_named("compute").unwrap();
    let ctxs = [gpu.create_context().unwrap(), gpu.create_context().unwrap()];
    let bufs = [
        gpu.context_buffer(ctxs[0], 4096, Placement::System)
            .unwrap(),
        gpu.context_buffer(ctxs[1], 4096, Placement::Local).unwrap(),
    ];
    let mut fences = Vec::new();
    for n in 0..40u32 {
        let k = (n % 2) as usize;
        let mut b = gpu.new_context_batch(ctxs[k], 4096).unwrap();
        b.push(&sdi(
            bufs[k].gfx().0 + 4 * u64::from(n / 2),
            false,
            100 * k as u32 + n,
        ))
        .unwrap();
        fences.push(gpu.submit(e, b).unwrap());
    }
    for f in &fences {
        gpu.wait(*f, SECOND).unwrap();
    }
    for n in 0..40u32 {
        let k = (n % 2) as usize;
        assert_eq!(
            bufs[k].read_u32(u64::from(n / 2)),
            Some(100 * k as u32 + n),
            "submission {n}"
        );
    }
    let switches = gpu
        .csb_events(e)
        .unwrap()
        .iter()
        .filter(|ev| ev.new_queue)
        .count();
    assert!(
        switches >= 40,
        "each submission reached the engine: {switches}"
    );
    // The engine's last context (the second) has switched out to idle; it
    // is destroyed, and later work runs.
    let last_id = gpu.context_sw_id(Some(ctxs[1]), e).unwrap();
    let last = *gpu.csb_events(e).unwrap().last().unwrap();
    assert_eq!((last.to, last.away), (None, Some(last_id)));
    gpu.destroy_context(ctxs[1]).unwrap();
    assert_eq!(
        gpu.destroy_context(ctxs[1]),
        Err(GpuError::NoContext(ctxs[1]))
    );
    let out = gpu.buffer(4096, Placement::Local).unwrap();
    let mut b = gpu.new_batch(4096).unwrap();
    b.push(&sdi(out.gfx().0, true, 77)).unwrap();
    let f = gpu.submit(e, b).unwrap();
    gpu.wait(f, SECOND).unwrap();
    assert_eq!(out.read_u32(0), Some(77));
}

/// The scenarios every generation shares (tests/support/mod.rs), through
/// `Gpu::new` with no local memory, as the older generations run them.
mod shared {
    use super::*;
    use baregpu::platform::host::HostPlatform;
    use baregpu::submit::HangReason;
    use support::words;

    fn setup(p: &HostPlatform) -> SoftGpu<PlatformBus<'_, HostPlatform>> {
        SoftGpu::new(Generation::Gen12_5, PlatformBus::new(p)).expect("DG2 model")
    }

    fn sdi(address: u64, data_dword0: u32) -> MiStoreDataImm {
        MiStoreDataImm {
            use_global_gtt: true,
            address,
            data_dword0,
            ..Default::default()
        }
    }

    fn batch_start(batch_buffer_start_address: u64) -> MiBatchBufferStart {
        MiBatchBufferStart {
            batch_buffer_start_address,
            ..Default::default()
        }
    }

    // EIR bit 4: the page-table error, as `a_store_to_an_unmapped_ppgtt_address_is_a_reported_fault` sees it.
    shared_submission_tests!(Generation::Gen12_5, 4, false);
}
