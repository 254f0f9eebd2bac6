//! The DG2 PPGTT's large pages (`gtt::gen12::Ppgtt4`) against the software
//! GPU's walk: buffers the driver maps with 2 MiB pages, compact 64 KiB
//! tables, hinted 64 KiB runs and 4 KiB heads and tails, written by
//! MI_STORE_DATA_IMM and copied by the blitter, read back by the CPU; and
//! unmapped, so that the same addresses fault.

use baregpu::blit::dg2::{self, Layout, Rect, Surface};
use baregpu::gtt::GfxAddr;
use baregpu::gtt::gen12::PageSize::{self, *};
use baregpu::hal::gen12_5::commands::MiStoreDataImm;
use baregpu::platform::host::HostPlatform;
use baregpu::platform::{LocalMemory, PlatformBus};
use baregpu::submit::{Buffer, HangReason, Placement};
use baregpu::{ContextId, Generation, Gpu, GpuError};
use baregpu_soft::SoftGpu;

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

const SECOND: u64 = 1_000_000;
const PAGE: u64 = 4096;
const K64: u64 = 64 << 10;
const M2: u64 = 2 << 20;

fn pattern(len: usize, seed: u32) -> Vec<u8> {
    (0..len)
        .map(|i| ((i as u32).wrapping_mul(0x9e37_79b9).rotate_left(7) ^ seed) as u8)
        .collect()
}

fn read_all(b: &Buffer<'_>) -> Vec<u8> {
    let mut v = vec![0u8; b.len() as usize];
    assert!(b.read(0, &mut v));
    v
}

/// The page sizes over a buffer, as runs of (size, bytes).
fn runs(gpu: &mut Gpu<'_, HostPlatform>, ctx: ContextId, b: &Buffer<'_>) -> Vec<(PageSize, u64)> {
    let mut out: Vec<(PageSize, u64)> = Vec::new();
    for off in (0..b.len()).step_by(PAGE as usize) {
        let s = gpu
            .context_page_size(ctx, GfxAddr(b.gfx().0 + off))
            .unwrap()
            .expect("mapped");
        match out.last_mut() {
            Some((last, n)) if *last == s => *n += PAGE,
            _ => out.push((s, PAGE)),
        }
    }
    out
}

/// Stores a distinct dword near the start and at the end of every page of
/// each buffer from one PPGTT batch on `engine`; every other byte keeps the
/// CPU's pattern.
fn store_through_every_page(
    gpu: &mut Gpu<'_, HostPlatform>,
    ctx: ContextId,
    engine: &str,
    buffers: &[&Buffer<'_>],
) {
    let mut want = Vec::new();
    let mut stores = Vec::new();
    for (n, b) in buffers.iter().enumerate() {
        let mut w = pattern(b.len() as usize, n as u32);
        assert!(b.write(0, &w));
        for page in 0..b.len() / PAGE {
            for off in [((page * 52) % 2048) & !3, PAGE - 4] {
                let at = page * PAGE + off;
                let v = (n as u32) << 28 | (page as u32) << 1 | (off == PAGE - 4) as u32;
                w[at as usize..at as usize + 4].copy_from_slice(&v.to_le_bytes());
                stores.push(MiStoreDataImm {
                    address: b.gfx().0 + at,
                    data_dword0: v,
                    ..Default::default()
                });
            }
        }
        want.push(w);
    }
    let e = gpu.engine_named(engine).unwrap();
    let mut batch = gpu.new_context_batch(ctx, stores.len() * 16 + 64).unwrap();
    for s in &stores {
        batch.push(s).unwrap();
    }
    let f = gpu.submit(e, batch).unwrap();
    gpu.wait(f, 10 * SECOND).unwrap();
    for (n, b) in buffers.iter().enumerate() {
        assert!(
            read_all(b) == want[n],
            "{engine}: buffer {n} as the CPU expects"
        );
    }
}

macro_rules! setup {
    ($p:ident, $soft:ident, $bar:ident, $gpu:ident) => {
        let $p = HostPlatform::new();
        let $soft = SoftGpu::new(Generation::Gen12_5, PlatformBus::new(&$p)).expect("DG2 model");
        let $bar = Bar2(&$soft);
        let mut $gpu =
            Gpu::with_local_memory(&$p, &$soft, Generation::Gen12_5, &$bar).expect("bring-up");
    };
}

/// Large buffers in system and local memory take 2 MiB pages, then hinted
/// 64 KiB runs, then 4 KiB pages; one placed 64 KiB before a 2 MiB
/// boundary over local memory takes a hinted head, a compact table and a
/// 4 KiB tail. Stores through every page of each, on the render and the
/// copy engine, land where the CPU sees them, and a blit copies between
/// the mixed layouts byte for byte.
#[test]
fn gpu_stores_and_blits_through_large_pages_reach_the_right_bytes() {
    setup!(p, soft, bar, gpu);
    let ctx = gpu.create_context().unwrap();
    let bytes = M2 + 3 * K64 + 5 * PAGE;
    let sys = gpu.context_buffer(ctx, bytes, Placement::System).unwrap();
    let local = gpu.context_buffer(ctx, bytes, Placement::Local).unwrap();
    let tail = [(Hinted64K, 3 * K64), (Size4K, 5 * PAGE)];
    for b in [&sys, &local] {
        assert_eq!(
            runs(&mut gpu, ctx, b),
            [&[(Size2M, M2)][..], &tail].concat()
        );
    }
    let at = GfxAddr(0x10_0000_0000 + 4 * M2 - K64);
    let mixed = gpu
        .context_buffer_at(ctx, at, K64 + M2 + PAGE, Placement::Local)
        .unwrap();
    assert_eq!(
        runs(&mut gpu, ctx, &mixed),
        [(Hinted64K, K64), (Compact64K, M2), (Size4K, PAGE)]
    );
    for engine in ["render", "blitter"] {
        store_through_every_page(&mut gpu, ctx, engine, &[&sys, &local, &mixed]);
    }
    // A linear copy of the first 132 rows of 16 KiB from the system buffer
    // over the mixed one.
    let (pitch, rows) = (16384u32, 132u32);
    let surface = |b: &Buffer<'_>| Surface {
        gfx: b.gfx(),
        pitch,
        layout: Layout::Linear,
        bytes_per_pixel: 4,
    };
    let rect = Rect {
        x: 0,
        y: 0,
        width: pitch / 4,
        height: rows,
    };
    let blit = dg2::fast_copy(&surface(&sys), (0, 0), &surface(&mixed), rect).unwrap();
    let before = read_all(&mixed);
    let e = gpu.engine_named("blitter").unwrap();
    let mut batch = gpu.new_context_batch(ctx, 4096).unwrap();
    batch.push(&blit).unwrap();
    let f = gpu.submit(e, batch).unwrap();
    gpu.wait(f, 10 * SECOND).unwrap();
    let n = (pitch * rows) as usize;
    let (from, to) = (read_all(&sys), read_all(&mixed));
    assert!(from[..n] == to[..n], "the copy through every page size");
    assert!(to[n..] == before[n..], "nothing past the copy");
    for b in [sys, local, mixed] {
        gpu.free_buffer(b);
    }
}

/// Unmapping clears every page size: stores to where a 2 MiB page, a
/// compact table's entry and a hinted run were now fault at that address.
#[test]
fn unmapped_large_pages_fault() {
    setup!(p, soft, bar, gpu);
    let ctx = gpu.create_context().unwrap();
    let at = GfxAddr(0x20_0000_0000 + 2 * M2 - K64);
    let mixed = gpu
        .context_buffer_at(ctx, at, K64 + 2 * M2, Placement::Local)
        .unwrap();
    let big = gpu.context_buffer(ctx, M2, Placement::System).unwrap();
    assert_eq!(
        runs(&mut gpu, ctx, &mixed),
        [(Hinted64K, K64), (Compact64K, 2 * M2)]
    );
    assert_eq!(runs(&mut gpu, ctx, &big), [(Size2M, M2)]);
    let probes = [
        at.0 + 8,
        at.0 + K64 + 5 * K64 + 12,
        at.0 + K64 + M2 + 0x1234 * 4,
        big.gfx().0 + M2 - 4,
    ];
    let gfx_big = big.gfx();
    gpu.free_buffer(mixed);
    gpu.free_buffer(big);
    assert_eq!(gpu.context_page_size(ctx, gfx_big).unwrap(), None);
    let e = gpu.engine_named("compute").unwrap();
    for addr in probes {
        let mut batch = gpu.new_context_batch(ctx, 4096).unwrap();
        batch
            .push(&MiStoreDataImm {
                address: addr,
                data_dword0: 1,
                ..Default::default()
            })
            .unwrap();
        let f = gpu.submit(e, batch).unwrap();
        let Err(GpuError::Hang(state)) = gpu.wait(f, SECOND) else {
            panic!("a store to {addr:#x} must fault once unmapped");
        };
        assert_eq!(state.reason, HangReason::EngineError);
        assert_eq!(state.fault.map(|f| f.address), Some(addr & !0xfff));
    }
    // The places are reusable at other sizes: 4 KiB where the compact table was.
    let small = gpu
        .context_buffer_at(ctx, GfxAddr(at.0 + K64), PAGE, Placement::System)
        .unwrap();
    assert_eq!(runs(&mut gpu, ctx, &small), [(Size4K, PAGE)]);
    store_through_every_page(&mut gpu, ctx, "render", &[&small]);
}
