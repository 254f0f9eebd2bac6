//! The software GPU and the CPU-side helpers, measured on this machine in one run:
//!
//! 1. command-streamer throughput (MI commands per second) against decoding the
//!    same dwords with the hal decoder and against one plain store per command,
//!    on Gen6 (rings) and on Gen12.5 (DG2: execlists, the kernel context's
//!    GGTT batch);
//! 2. submit-to-seqno-visible latency (median and p99), on both;
//! 3. GGTT map and unmap of 1 GiB (262144 PTE writes each way) through the
//!    software GPU's MMIO against plain u32 stores into a Vec;
//! 4. tiled copies (X and Y, with and without bit-6 swizzling) against
//!    `copy_from_slice` of the same bytes.
//!
//! `cargo bench --bench cs` prints one table. Times are the best (or the
//! median, for latency) of a few repetitions; nothing asserts on time, only on
//! the results being right.

use std::hint::black_box;
use std::time::{Duration, Instant};

use baregpu::gtt::ggtt::encode_pte;
use baregpu::gtt::tiling::{Swizzle, Tiling, linear_to_tiled, surface_size, tiled_to_linear};
use baregpu::gtt::{Caching, Ggtt};
use baregpu::hal::Packet;
use baregpu::hal::decode::decode;
use baregpu::hal::gen6::commands::{
    MiLoadRegisterImm, MiLoadRegisterImmRegisters, MiNoop, MiStoreDataImm,
};
use baregpu::platform::PlatformBus;
use baregpu::platform::host::HostPlatform;
use baregpu::{Dma, EngineId, Generation, Gpu};
use baregpu_soft::SoftGpu;

const GENERATION: Generation = Generation::Gen6;

/// What sections 1 and 2 need per generation: its packets differ.
struct Subject {
    generation: Generation,
    /// A plain read-write register for MI_LOAD_REGISTER_IMM.
    lri_register: u32,
    /// The throughput batch for a target buffer's GGTT address.
    mix: fn(u64) -> Vec<u32>,
    /// One MI_STORE_DATA_IMM of `value` to a GGTT address.
    sdi: fn(u64, u32) -> Vec<u32>,
}

const SUBJECTS: [Subject; 2] = [
    Subject {
        generation: Generation::Gen6,
        lri_register: LRI_REGISTER,
        mix: command_mix,
        sdi: sdi_gen6,
    },
    Subject {
        generation: Generation::Gen12_5,
        lri_register: DG2_LRI_REGISTER,
        mix: command_mix_dg2,
        sdi: sdi_dg2,
    },
];

/// Render GPR0 (low dword; i915 `GEN8_RING_CS_GPR(RENDER_RING_BASE, 0)`):
/// a plain register on DG2, as PMIMR is on Sandy Bridge.
const DG2_LRI_REGISTER: u32 = 0x2600;
/// Commands in the throughput batch.
const COMMANDS: usize = 100_000;
/// Dwords of the SDI target buffer (64 KiB).
const TARGET_DWORDS: usize = 16 * 1024;
/// PMIMR (SNB 003, gt_registers.toml): a plain read-write register for MI_LOAD_REGISTER_IMM.
const LRI_REGISTER: u32 = 0x4_4024;
/// Latency samples.
const SUBMISSIONS: usize = 20_000;
/// 1 GiB of 4 KiB pages.
const GGTT_PAGES: usize = 1 << 18;
/// Tiled-copy surface: bytes per row and rows.
const SURFACE_WIDTH: usize = 4096;
const SURFACE_HEIGHT: usize = 1024;

/// `CS_PROFILE=1`: only the command-streamer section, its run repeated 40 times
/// and its decoder baseline once, so that a profiler (`perf record`) sees the
/// software GPU and little else.
fn profiling() -> bool {
    std::env::var_os("CS_PROFILE").is_some()
}

fn best_of(reps: usize, mut f: impl FnMut() -> Duration) -> Duration {
    (0..reps).map(|_| f()).min().unwrap_or_default()
}

fn ns(d: Duration) -> f64 {
    d.as_nanos() as f64
}

struct Table {
    rows: Vec<(String, String, String)>,
}

impl Table {
    fn row(&mut self, what: &str, figure: String, ratio: String) {
        self.rows.push((what.to_string(), figure, ratio));
    }
    fn section(&mut self, title: &str) {
        self.rows
            .push((format!("[{title}]"), String::new(), String::new()));
    }
    fn print(&self) {
        let data = || self.rows.iter().filter(|r| !r.1.is_empty());
        let w0 = data().map(|r| r.0.len()).max().unwrap_or(0);
        let w1 = data().map(|r| r.1.len()).max().unwrap_or(0);
        for (a, b, c) in &self.rows {
            if b.is_empty() {
                println!("{a}");
            } else {
                println!("  {a:<w0$}  {b:>w1$}  {c}");
            }
        }
    }
}

fn sdi_gen6(address: u64, value: u32) -> Vec<u32> {
    let mut buf = [0u32; 8];
    let sdi = MiStoreDataImm {
        use_global_gtt: true,
        address,
        data_dword0: value,
        data_dword1: None,
    };
    let n = sdi.pack(&mut buf).unwrap();
    buf[..n].to_vec()
}

fn sdi_dg2(address: u64, value: u32) -> Vec<u32> {
    use baregpu::hal::gen12_5::commands::MiStoreDataImm;
    let mut buf = [0u32; 8];
    let sdi = MiStoreDataImm {
        use_global_gtt: true,
        store_qword: false,
        workload_partition_id_offset_enable: false,
        address,
        core_mode_enable: false,
        data_dword0: value,
        data_dword1: None,
    };
    let n = sdi.pack(&mut buf).unwrap();
    buf[..n].to_vec()
}

/// Gen12.5's throughput batch: the same rounds as `command_mix` in its packets.
fn command_mix_dg2(target: u64) -> Vec<u32> {
    use baregpu::hal::gen12_5::commands::{MiLoadRegisterImm, MiLoadRegisterImmRegisters, MiNoop};
    let mut out = Vec::with_capacity(COMMANDS / 4 * 10);
    let mut buf = [0u32; 8];
    for k in 0..COMMANDS / 4 {
        let v = k as u32;
        out.extend(sdi_dg2(target + 4 * (k % TARGET_DWORDS) as u64, v));
        let lri = MiLoadRegisterImm {
            add_cs_mmio_start_offset: false,
            mmio_remap_enable: false,
            byte_write_disables: 0,
            registers: vec![MiLoadRegisterImmRegisters {
                register_offset: DG2_LRI_REGISTER,
                data_dword: v,
            }],
        };
        let n = MiNoop::default().pack(&mut buf).unwrap();
        out.extend_from_slice(&buf[..n]);
        let n = lri.pack(&mut buf).unwrap();
        out.extend_from_slice(&buf[..n]);
        let n = MiNoop::default().pack(&mut buf).unwrap();
        out.extend_from_slice(&buf[..n]);
    }
    out
}

/// The throughput batch: rounds of MI_STORE_DATA_IMM, MI_NOOP,
/// MI_LOAD_REGISTER_IMM, MI_NOOP (4 commands, 9 dwords).
fn command_mix(target: u64) -> Vec<u32> {
    let mut out = Vec::with_capacity(COMMANDS / 4 * 9);
    let mut buf = [0u32; 8];
    for k in 0..COMMANDS / 4 {
        let v = k as u32;
        let sdi = MiStoreDataImm {
            use_global_gtt: true,
            address: target + 4 * (k % TARGET_DWORDS) as u64,
            data_dword0: v,
            data_dword1: None,
        };
        let lri = MiLoadRegisterImm {
            byte_write_disables: 0,
            registers: vec![MiLoadRegisterImmRegisters {
                register_offset: LRI_REGISTER,
                data_dword: v,
            }],
        };
        let n = sdi.pack(&mut buf).unwrap();
        out.extend_from_slice(&buf[..n]);
        let n = MiNoop::default().pack(&mut buf).unwrap();
        out.extend_from_slice(&buf[..n]);
        let n = lri.pack(&mut buf).unwrap();
        out.extend_from_slice(&buf[..n]);
        let n = MiNoop::default().pack(&mut buf).unwrap();
        out.extend_from_slice(&buf[..n]);
    }
    out
}

fn throughput(t: &mut Table, subject: &Subject) {
    let generation = subject.generation;
    let p = HostPlatform::new();
    let soft = SoftGpu::new(generation, PlatformBus::new(&p)).expect("software GPU");
    let mut gpu = Gpu::new(&p, &soft, generation).expect("bring-up");
    let (target, target_map) = gpu.map_buffer(TARGET_DWORDS * 4).unwrap();
    let dwords = (subject.mix)(target_map.gfx.0);

    let mut run_once = |check: bool| -> (Duration, u64) {
        // Building the batch is not part of the measurement.
        let mut b = gpu.new_batch(dwords.len() * 4 + 64).unwrap();
        b.push_dwords(&dwords).unwrap();
        let before = soft.stats().commands;
        let start = Instant::now();
        let f = gpu.submit(EngineId::RENDER, b).unwrap();
        gpu.wait(f, 600_000_000).unwrap();
        let took = start.elapsed();
        let executed = soft.stats().commands - before;
        if check {
            // The GPU finished with the buffer.
            let last = (COMMANDS / 4 - 1) as u32;
            let landed = target.read_u32(last as usize % TARGET_DWORDS).unwrap();
            assert_eq!(landed, last, "SDI landed");
            assert_eq!(gpu.mmio().read32(subject.lri_register), last, "LRI landed");
        }
        (took, executed)
    };
    run_once(true);
    let mut best = Duration::MAX;
    let mut executed = 0;
    for _ in 0..if profiling() { 40 } else { 5 } {
        let (d, n) = run_once(false);
        best = best.min(d);
        executed = n;
    }

    // Baseline A: the hal decoder over the same dwords.
    let tables = generation.tables();
    let decoded = decode(tables, "render", &dwords)
        .filter(|d| d.command.is_some() && d.problem.is_none())
        .count();
    assert_eq!(decoded, COMMANDS, "the decoder recognises every command");
    let dec = best_of(if profiling() { 1 } else { 5 }, || {
        let start = Instant::now();
        let n = decode(tables, "render", black_box(&dwords)).count();
        black_box(n);
        start.elapsed()
    });

    // Baseline B: one plain (volatile) store per command, at the SDI addresses.
    let mut mem = vec![0u32; TARGET_DWORDS];
    let stores = best_of(5, || {
        let ptr = black_box(mem.as_mut_ptr());
        let start = Instant::now();
        for k in 0..COMMANDS {
            // SAFETY: the index is reduced modulo the Vec's length.
            unsafe { std::ptr::write_volatile(ptr.add(k % TARGET_DWORDS), k as u32) };
        }
        start.elapsed()
    });
    black_box(&mem);

    let rate = |d: Duration| COMMANDS as f64 / d.as_secs_f64();
    t.section(&format!(
        "1. command streamer, {generation}: {COMMANDS} MI commands (SDI, NOOP, LRI, NOOP), {} dwords, best of 5",
        dwords.len()
    ));
    t.row(
        "software GPU, submit + wait",
        format!("{:.2} M cmd/s", rate(best) / 1e6),
        format!(
            "{:.1} ns/cmd ({executed} executed incl. ring + batch end)",
            ns(best) / COMMANDS as f64
        ),
    );
    t.row(
        "baseline: hal decoder, same dwords",
        format!("{:.2} M cmd/s", rate(dec) / 1e6),
        format!(
            "time ratio software GPU / decoder = {:.2}",
            ns(best) / ns(dec)
        ),
    );
    t.row(
        "baseline: one plain store per command",
        format!("{:.2} M cmd/s", rate(stores) / 1e6),
        format!(
            "time ratio software GPU / stores = {:.0}",
            ns(best) / ns(stores)
        ),
    );
}

fn latency(t: &mut Table, subject: &Subject) {
    let generation = subject.generation;
    let p = HostPlatform::new();
    let soft = SoftGpu::new(generation, PlatformBus::new(&p)).expect("software GPU");
    let mut gpu = Gpu::new(&p, &soft, generation).expect("bring-up");
    let (_buf, map) = gpu.map_buffer(4096).unwrap();
    let mut samples = Vec::with_capacity(SUBMISSIONS);
    let mut polls = 0u64;
    for k in 0..SUBMISSIONS + 1000 {
        let mut b = gpu.new_batch(4096).unwrap();
        b.push_dwords(&(subject.sdi)(map.gfx.0 + 4 * (k % 1024) as u64, k as u32))
            .unwrap();
        let start = Instant::now();
        let f = gpu.submit(EngineId::RENDER, b).unwrap();
        let mut n = 1;
        while !gpu.poll(f) {
            n += 1;
        }
        let took = start.elapsed();
        // Retire the batch (unmap and free) outside the measurement.
        gpu.wait(f, 1_000_000).unwrap();
        if k >= 1000 {
            samples.push(took);
            polls += n;
        }
    }
    samples.sort();
    let pct = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    t.section(&format!(
        "2. submit -> poll sees seqno, {generation}, 1-SDI batch, {SUBMISSIONS} submissions (after 1000 warm-up)"
    ));
    t.row(
        "median",
        format!("{:.2} us", ns(pct(0.5)) / 1e3),
        String::new(),
    );
    t.row(
        "p99",
        format!("{:.2} us", ns(pct(0.99)) / 1e3),
        format!(
            "(min {:.2} us, max {:.2} us, {:.2} polls per submission)",
            ns(samples[0]) / 1e3,
            ns(*samples.last().unwrap()) / 1e3,
            polls as f64 / SUBMISSIONS as f64
        ),
    );
}

fn ggtt(t: &mut Table) {
    let p = HostPlatform::new();
    let soft = SoftGpu::new(GENERATION, PlatformBus::new(&p)).expect("software GPU");
    let mut gpu = Gpu::new(&p, &soft, GENERATION).expect("bring-up");
    let mmio = gpu.mmio();
    // 1 GiB of DMA memory: zeroed lazily by the allocator, never touched here.
    let region = Dma::new(&p, GGTT_PAGES * 4096, 4096).unwrap();
    let alias = Ggtt::new(GENERATION).unwrap().layout().alias_offset;

    let (mut map_best, mut unmap_best) = (Duration::MAX, Duration::MAX);
    for rep in 0..5 {
        let start = Instant::now();
        let m = gpu
            .ggtt()
            .unwrap()
            .map(mmio, &region.region(), Caching::Llc)
            .unwrap();
        map_best = map_best.min(start.elapsed());
        assert_eq!(m.pages as usize, GGTT_PAGES);
        if rep == 0 {
            let first = (m.gfx.0 / 4096) as u32;
            let last_pte = mmio.read32(alias + 4 * (first + GGTT_PAGES as u32 - 1));
            let want = encode_pte(
                GENERATION,
                region.phys().0 + (GGTT_PAGES as u64 - 1) * 4096,
                Caching::Llc,
            );
            assert_eq!(Ok(last_pte), want, "the last PTE reached the device");
        }
        let start = Instant::now();
        gpu.ggtt().unwrap().unmap(mmio, m);
        unmap_best = unmap_best.min(start.elapsed());
    }

    // Baselines: the same PTE values, and zeros, stored into a Vec.
    let mut ptes = vec![0u32; GGTT_PAGES];
    let phys = region.phys().0;
    let plain_map = best_of(5, || {
        let ptr = black_box(ptes.as_mut_ptr());
        let start = Instant::now();
        for p in 0..GGTT_PAGES {
            let pte = ((phys + p as u64 * 4096) as u32 & 0xffff_f000) | 0x10 | 0b101;
            // SAFETY: p < GGTT_PAGES = the Vec's length.
            unsafe { std::ptr::write_volatile(ptr.add(p), pte) };
        }
        start.elapsed()
    });
    let plain_unmap = best_of(5, || {
        let ptr = black_box(ptes.as_mut_ptr());
        let start = Instant::now();
        for p in 0..GGTT_PAGES {
            // SAFETY: p < GGTT_PAGES = the Vec's length.
            unsafe { std::ptr::write_volatile(ptr.add(p), 0) };
        }
        start.elapsed()
    });
    let encode_store = best_of(5, || {
        let ptr = black_box(ptes.as_mut_ptr());
        let start = Instant::now();
        for p in 0..GGTT_PAGES {
            let pte = encode_pte(GENERATION, phys + p as u64 * 4096, Caching::Llc).unwrap();
            // SAFETY: p < GGTT_PAGES = the Vec's length.
            unsafe { std::ptr::write_volatile(ptr.add(p), pte) };
        }
        start.elapsed()
    });
    black_box(&ptes);
    // Unmapped above: the memory goes back to the platform.
    drop(region);

    let per = |d: Duration| ns(d) / GGTT_PAGES as f64;
    t.section(&format!(
        "3. GGTT, 1 GiB = {GGTT_PAGES} PTEs each way through the software GPU's MMIO, best of 5"
    ));
    t.row(
        "Ggtt::map",
        format!("{:.2} ns/page", per(map_best)),
        format!(
            "{:.1} ms total; {:.1}x the plain stores below",
            ns(map_best) / 1e6,
            per(map_best) / per(plain_map)
        ),
    );
    t.row(
        "Ggtt::unmap",
        format!("{:.2} ns/page", per(unmap_best)),
        format!(
            "{:.1} ms total; {:.1}x the plain stores below",
            ns(unmap_best) / 1e6,
            per(unmap_best) / per(plain_unmap)
        ),
    );
    t.row(
        "baseline: PTE value stores into a Vec",
        format!("{:.2} ns/page", per(plain_map)),
        String::new(),
    );
    t.row(
        "baseline: zero stores into a Vec",
        format!("{:.2} ns/page", per(plain_unmap)),
        String::new(),
    );
    t.row(
        "baseline: encode_pte + store into a Vec",
        format!("{:.2} ns/page", per(encode_store)),
        format!(
            "Ggtt::map is {:.1}x this",
            per(map_best) / per(encode_store)
        ),
    );
}

fn tiled_copies(t: &mut Table) {
    let (w, h) = (SURFACE_WIDTH, SURFACE_HEIGHT);
    let bytes = w * h;
    let mut s = 0x1234_5678u32;
    let linear: Vec<u8> = (0..bytes)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s >> 24) as u8
        })
        .collect();
    let mut back = vec![0u8; bytes];
    let reps = 20;

    let memcpy = best_of(reps, || {
        let start = Instant::now();
        back.copy_from_slice(black_box(&linear));
        black_box(&back);
        start.elapsed()
    });
    let gbs = |d: Duration| bytes as f64 / d.as_secs_f64() / 1e9;
    t.section(&format!(
        "4. tiled copies, {w} x {h} bytes ({} MiB), pitch {w}, best of {reps}",
        bytes >> 20
    ));
    t.row(
        "baseline: copy_from_slice",
        format!("{:.2} GB/s", gbs(memcpy)),
        String::new(),
    );

    for (tiling, swizzle, name) in [
        (Tiling::X, Swizzle::None, "X"),
        (Tiling::Y, Swizzle::None, "Y"),
        (Tiling::X, Swizzle::Bit9Bit10, "X, swizzle 9^10"),
        (Tiling::Y, Swizzle::Bit9, "Y, swizzle 9"),
    ] {
        let mut surface = vec![0u8; surface_size(tiling, w, h)];
        back.fill(0);
        linear_to_tiled(&mut surface, tiling, swizzle, w, &linear, w, w, h).unwrap();
        tiled_to_linear(&mut back, w, &surface, tiling, swizzle, w, w, h).unwrap();
        assert!(back == linear, "{name}: round trip");
        let l2t = best_of(reps, || {
            let start = Instant::now();
            linear_to_tiled(
                black_box(&mut surface),
                tiling,
                swizzle,
                w,
                &linear,
                w,
                w,
                h,
            )
            .unwrap();
            black_box(&surface);
            start.elapsed()
        });
        let t2l = best_of(reps, || {
            let start = Instant::now();
            tiled_to_linear(black_box(&mut back), w, &surface, tiling, swizzle, w, w, h).unwrap();
            black_box(&back);
            start.elapsed()
        });
        t.row(
            &format!("linear_to_tiled {name}"),
            format!("{:.2} GB/s", gbs(l2t)),
            format!("time ratio / memcpy = {:.2}", ns(l2t) / ns(memcpy)),
        );
        t.row(
            &format!("tiled_to_linear {name}"),
            format!("{:.2} GB/s", gbs(t2l)),
            format!("time ratio / memcpy = {:.2}", ns(t2l) / ns(memcpy)),
        );
    }
}

fn main() {
    let mut t = Table { rows: Vec::new() };
    for subject in &SUBJECTS {
        // The profiling run looks at the Gen6 command streamer alone.
        if profiling() && subject.generation != GENERATION {
            continue;
        }
        throughput(&mut t, subject);
        if !profiling() {
            latency(&mut t, subject);
        }
    }
    if !profiling() {
        ggtt(&mut t);
    }
    if !profiling() {
        tiled_copies(&mut t);
    }
    println!(
        "baregpu software GPU and CPU helpers (sections 3-4 on {GENERATION:?}, this machine):"
    );
    t.print();
}
