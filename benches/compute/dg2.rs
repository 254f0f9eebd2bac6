//! The compute benchmark on the DG2 (Gen12.5) model, through the model's
//! public interface (MMIO and memory, as `soft/tests/dg2_compute.rs` drives
//! it): a PPGTT batch of PIPELINE_SELECT, STATE_BASE_ADDRESS, CFE_STATE and
//! COMPUTE_WALKER submitted to the compute engine through its execlist.
//!
//! 1. dispatch overhead: a walker of one SIMD8 thread running only its
//!    end-of-thread message, from the ELSP write to the engine idle
//!    (median), next to an empty batch submitted the same way;
//! 2. vector add of 1 Mi u32 with LSC A64 loads and stores (one element
//!    per channel, SIMD16, 64-channel groups: the shape IGC gives an
//!    OpenCL `c[i] = a[i] + b[i]`), against the plain Rust loop of the
//!    Gen7 section.
//!
//! Nothing asserts on time; the sums are checked.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use baregpu::Generation;
use baregpu_hal::{BusError, MemoryBus, Mmio, bits};
use baregpu_isa::IsaGen;
use baregpu_soft::SoftGpu;

const PAGE: u64 = 4096;
const GGTT: u32 = 8 << 20;
const MI_BATCH_BUFFER_END: u32 = 0x0a << 23;
/// MI_BATCH_BUFFER_START, PPGTT address space, 48-bit address.
const BB_START_PPGTT: u32 = 0x31 << 23 | 1 | 1 << 8;
/// The instruction base (kernels live at offsets from it).
const INSTRUCTION_BASE: u64 = 0x4000_0000;
const EOT: &str = "send.gtwy (1|M0) null r0 null:0 0x0 0x02000010 {EOT}\n";

/// System memory from `RAM_BASE` up as one growing array (the allocator
/// below hands out pages in order from there); elsewhere reads are zero and
/// writes are dropped. One lookup per access, as the host platform's DMA
/// memory gives the Gen7 part.
#[derive(Default)]
struct Ram(Mutex<Vec<u8>>);

const RAM_BASE: u64 = 0x1_0000_0000;

impl Ram {
    fn range(phys: u64, len: usize) -> Option<std::ops::Range<usize>> {
        let start = usize::try_from(phys.checked_sub(RAM_BASE)?).ok()?;
        Some(start..start.checked_add(len)?)
    }
}

impl MemoryBus for Ram {
    fn read(&self, phys: u64, buf: &mut [u8]) -> Result<(), BusError> {
        let mem = self.0.lock().unwrap();
        match Ram::range(phys, buf.len()).and_then(|r| mem.get(r)) {
            Some(b) => buf.copy_from_slice(b),
            None => buf.fill(0),
        }
        Ok(())
    }

    fn write(&self, phys: u64, data: &[u8]) -> Result<(), BusError> {
        let mut mem = self.0.lock().unwrap();
        if let Some(r) = Ram::range(phys, data.len()) {
            if mem.len() < r.end {
                mem.resize(r.end, 0);
            }
            mem[r].copy_from_slice(data);
        }
        Ok(())
    }
}

fn tables() -> &'static baregpu_hal::reflect::GenTables {
    Generation::Gen12_5.tables()
}

fn reg(name: &str) -> u32 {
    tables().register(name).expect("register").offset
}

/// A command of the Gen12.5 tables with the named fields set.
fn pack(name: &str, set: &[(&str, u64)]) -> Vec<u32> {
    let info = tables().command(name).expect("command");
    let len = info.length_from_header(0).max(
        info.fields
            .iter()
            .map(|f| f.end as usize / 32 + 1)
            .max()
            .unwrap_or(1),
    );
    let mut dw = vec![0u32; len];
    for f in info.fields {
        let v = match f.value {
            Some(v) => v,
            None if f.name == "dword_length" => (len - 2) as u64,
            None => match set.iter().rfind(|(n, _)| *n == f.name) {
                Some((_, v)) => v >> f.shift,
                None => f.default.unwrap_or(0),
            },
        };
        bits::put(&mut dw, f.start as u32, f.width(), v);
    }
    for (n, _) in set {
        assert!(info.fields.iter().any(|f| f.name == *n), "{name}: {n}");
    }
    dw
}

/// The model, its memory and the allocators of physical pages, GGTT and
/// PPGTT addresses.
struct Dg2 {
    ram: &'static Ram,
    gpu: SoftGpu<&'static Ram>,
    next_phys: u64,
    next_gfx: u64,
    next_va: u64,
    pml4: u64,
}

impl Dg2 {
    fn new() -> Self {
        let ram: &'static Ram = Box::leak(Box::default());
        let gpu = SoftGpu::new(Generation::Gen12_5, ram).expect("DG2 model");
        // A walker of 1 Mi channels runs more instructions than the default
        // hang budget allows.
        gpu.set_compute_budget(1 << 26);
        let mut g = Dg2 {
            ram,
            gpu,
            next_phys: RAM_BASE,
            next_gfx: 0x10_0000,
            next_va: 0x7f00_0000_0000,
            pml4: 0,
        };
        g.pml4 = g.phys(1);
        g
    }

    fn phys(&mut self, pages: u64) -> u64 {
        let p = self.next_phys;
        self.next_phys += pages * PAGE;
        p
    }

    fn w32(&self, phys: u64, v: &[u32]) {
        let b: Vec<u8> = v.iter().flat_map(|d| d.to_le_bytes()).collect();
        self.ram.write(phys, &b).expect("ram");
    }

    fn r64(&self, phys: u64) -> u64 {
        let mut b = [0u8; 8];
        self.ram.read(phys, &mut b).expect("ram");
        u64::from_le_bytes(b)
    }

    /// A page mapped in the GGTT: (graphics address, physical).
    fn ggtt_page(&mut self) -> (u64, u64) {
        let (gfx, phys) = (self.next_gfx, self.phys(1));
        self.next_gfx += PAGE;
        let at = GGTT + (gfx >> 12) as u32 * 8;
        self.gpu.write32(at, phys as u32 | 1);
        self.gpu.write32(at + 4, (phys >> 32) as u32);
        (gfx, phys)
    }

    /// Maps `va` to `page` in the four-level PPGTT.
    fn map(&mut self, va: u64, page: u64) {
        let mut table = self.pml4;
        for level in 0..3 {
            let at = table + 8 * ((va >> (39 - 9 * level)) & 0x1ff);
            let entry = self.r64(at);
            table = if entry & 1 == 1 {
                entry & 0x3fff_ffff_f000
            } else {
                let next = self.phys(1);
                self.w32(at, &[next as u32 | 3, (next >> 32) as u32]);
                next
            };
        }
        let leaf = page | 3;
        self.w32(
            table + 8 * ((va >> 12) & 0x1ff),
            &[leaf as u32, (leaf >> 32) as u32],
        );
    }

    /// `bytes` at a new PPGTT address: (va, phys).
    fn buffer(&mut self, bytes: &[u8]) -> (u64, u64) {
        let pages = bytes.len().div_ceil(PAGE as usize).max(1) as u64;
        let va = self.next_va;
        self.next_va += (pages + 1) * PAGE;
        let phys = self.phys(pages);
        for p in 0..pages {
            self.map(va + p * PAGE, phys + p * PAGE);
        }
        self.ram.write(phys, bytes).expect("ram");
        (va, phys)
    }

    /// A kernel at `offset` from the instruction base.
    fn kernel(&mut self, offset: u64, code: &[u8]) {
        let page = INSTRUCTION_BASE + (offset & !0xfff);
        let phys = self.phys(code.len().div_ceil(PAGE as usize) as u64 + 1);
        for p in 0..=(code.len() as u64 / PAGE) {
            self.map(page + p * PAGE, phys + p * PAGE);
        }
        self.ram.write(phys + (offset & 0xfff), code).expect("ram");
    }

    /// Writes `cmds` as a PPGTT batch and a fresh context whose ring starts
    /// it; returns the context descriptor to submit.
    fn prepare(&mut self, cmds: &[u32]) -> u64 {
        let b = tables().engine_base("compute").expect("compute engine");
        let mut words = cmds.to_vec();
        words.push(MI_BATCH_BUFFER_END);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let (batch, _) = self.buffer(&bytes);
        let (hwsp, _) = self.ggtt_page();
        let (lrca, _) = self.ggtt_page();
        let (_, state) = self.ggtt_page();
        let (ring_gfx, ring) = self.ggtt_page();
        self.w32(
            ring,
            &[BB_START_PPGTT, batch as u32, (batch >> 32) as u32, 0],
        );
        // The context image: ring registers and the PPGTT root (PDP0) as
        // MI_LOAD_REGISTER_IMM lists at the offsets the model reads.
        let lri = |pairs: u32| (0x22 << 23) | 1 << 19 | (2 * pairs - 1);
        let mut s = vec![0u32; 0x40];
        s[1] = lri(5);
        let regs = [
            (0x244, 0xffff_0000),
            (reg("RING_HEAD"), 0),
            (reg("RING_TAIL"), 16),
            (reg("RING_START"), ring_gfx as u32),
            (reg("RING_CTL"), 1),
        ];
        for (k, (r, v)) in regs.iter().enumerate() {
            s[2 + 2 * k] = b + r;
            s[3 + 2 * k] = *v;
        }
        s[0x21] = lri(2);
        s[0x22] = b + 0x274;
        s[0x23] = (self.pml4 >> 32) as u32;
        s[0x24] = b + 0x270;
        s[0x25] = self.pml4 as u32;
        self.w32(state, &s);
        self.gpu.write32(b + reg("RING_HWS_PGA"), hwsp as u32);
        self.gpu
            .write32(b + reg("RING_MODE_GEN7"), (1 << 3) << 16 | 1 << 3);
        // GEN12_RCU_MODE: the compute engine enabled.
        self.gpu.write32(reg("GEN12_RCU_MODE"), 1 << 16 | 1);
        lrca | 1 | 3 << 3 | 1 << 8 | 7 << 39
    }

    /// Submits a prepared context and runs the model until it is done.
    fn submit(&self, desc: u64) {
        let b = tables().engine_base("compute").expect("compute engine");
        let sq = b + reg("RING_EXECLIST_SQ_CONTENTS");
        self.gpu.write32(sq, desc as u32);
        self.gpu.write32(sq + 4, (desc >> 32) as u32);
        self.gpu.write32(sq + 8, 0);
        self.gpu.write32(sq + 12, 0);
        self.gpu.write32(b + reg("RING_EXECLIST_CONTROL"), 1);
        self.gpu.run(1000);
    }

    fn check(&self) {
        assert_eq!(
            self.gpu.stats().errors,
            0,
            "{:?}",
            self.gpu.compute_report(2)
        );
    }
}

/// GPGPU selected, the instruction base, CFE_STATE.
fn setup() -> Vec<u32> {
    let mut v = pack(
        "PIPELINE_SELECT",
        &[("mask_bits", 0x3), ("pipeline_selection", 2)],
    );
    v.extend(pack(
        "STATE_BASE_ADDRESS",
        &[
            ("instruction_base_address", INSTRUCTION_BASE),
            ("instruction_base_address_modify_enable", 1),
            ("instruction_buffer_size", 0x100), // 1 MiB: the field counts 4 KiB pages
            ("instruction_buffer_size_modify_enable", 1),
        ],
    ));
    v.extend(pack("CFE_STATE", &[("maximum_number_of_threads", 64)]));
    v
}

/// A COMPUTE_WALKER of `groups` groups of `local` channels run as SIMD
/// `simd` threads, local X IDs generated, the kernel at `kernel` from the
/// instruction base, `inline` as its inline data.
fn walker(simd: u32, local: u32, groups: u32, kernel: u64, inline: [u32; 8]) -> Vec<u32> {
    let threads = local.div_ceil(simd);
    let left = local - simd * (threads - 1);
    let mut f: Vec<(&str, u64)> = vec![
        ("simd_size", u64::from(simd / 16)),
        ("message_simd", u64::from(simd / 16)),
        ("generate_local_id", 1),
        ("emit_local", 1),
        ("execution_mask", (1u64 << left) - 1),
        ("local_x_maximum", u64::from(local - 1)),
        ("thread_group_id_x_dimension", u64::from(groups)),
        ("thread_group_id_y_dimension", 1),
        ("thread_group_id_z_dimension", 1),
        ("interface_descriptor_kernel_start_pointer", kernel),
        (
            "interface_descriptor_number_of_threads_in_gpgpu_thread_group",
            u64::from(threads),
        ),
        ("emit_inline_parameter", 1),
    ];
    const INLINE: [&str; 8] = [
        "inline_data0",
        "inline_data1",
        "inline_data2",
        "inline_data3",
        "inline_data4",
        "inline_data5",
        "inline_data6",
        "inline_data7",
    ];
    for (k, v) in inline.iter().enumerate() {
        f.push((INLINE[k], u64::from(*v)));
    }
    pack("COMPUTE_WALKER", &f)
}

fn asm(src: &str) -> Vec<u8> {
    baregpu_isa::text::assemble(IsaGen::Gen12_5, src).unwrap_or_else(|e| panic!("{e:?}\n{src}"))
}

/// c[i] = a[i] + b[i] (u32) with i the global X ID: r1 holds the local X
/// IDs (words), r0.1 the group, the inline data in r2 the buffers' 64-bit
/// addresses (qwords 0-2; the buffers do not cross a 4 GiB line, so the low
/// dword does not carry).
fn vector_add_kernel(lws: u32) -> String {
    let mut s = format!(
        "shl (1|M0) r3.0<1>:ud r0.1<0;1,0>:ud {}:ud\n",
        lws.trailing_zeros()
    );
    s += "add (16|M0) r10.0<1>:ud r1.0<1;1,0>:uw r3.0<0;1,0>:ud {A@1}\n";
    s += "shl (16|M0) r12.0<1>:ud r10.0<1;1,0>:ud 2:ud {A@1}\n";
    for (q, a) in [(0, 20), (1, 24), (2, 28)] {
        let (lo, hi) = (2 * q, 2 * q + 1);
        s += &format!("add (8|M0) r{a}.0<2>:ud r12.0<1;1,0>:ud r2.{lo}<0;1,0>:ud {{A@1}}\n");
        s += &format!(
            "add (8|M8) r{}.0<2>:ud r13.0<1;1,0>:ud r2.{lo}<0;1,0>:ud\n",
            a + 2
        );
        s += &format!("mov (8|M0) r{a}.1<2>:ud r2.{hi}<0;1,0>:ud\n");
        s += &format!("mov (8|M8) r{}.1<2>:ud r2.{hi}<0;1,0>:ud\n", a + 2);
    }
    s += "sync.nop null {A@1}\n";
    s += "load.ugm.d32.a64 (16|M0) r40:2 [r20:4] {$1}\n";
    s += "load.ugm.d32.a64 (16|M0) r42:2 [r24:4] {$2}\n";
    s += "sync.nop null {$1.dst}\n";
    s += "add (16|M0) r44.0<1>:ud r40.0<1;1,0>:ud r42.0<1;1,0>:ud {$2.dst}\n";
    s += "sync.nop null {A@1}\n";
    s += "store.ugm.d32.a64 (16|M0) [r28:4] r44:2 {$3}\n";
    s + EOT
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs both measurements; `host` is the plain loop's time for the vector
/// add of `a` and `b` (measured by the caller).
pub fn run(dispatches: usize, reps: usize, a: &[u32], b: &[u32], host: Duration) {
    let mut g = Dg2::new();

    // 1. Dispatch overhead: each submission a fresh context (prepared
    // outside the timing).
    g.kernel(0, &asm(EOT));
    let mut walk = setup();
    walk.extend(walker(8, 8, 1, 0, [0; 8]));
    let mut samples = Vec::with_capacity(dispatches);
    for _ in 0..dispatches {
        let desc = g.prepare(&walk);
        let t = Instant::now();
        g.submit(desc);
        samples.push(t.elapsed());
    }
    g.check();
    let dispatch = median(samples);
    let mut samples = Vec::with_capacity(dispatches);
    for _ in 0..dispatches {
        let desc = g.prepare(&[]);
        let t = Instant::now();
        g.submit(desc);
        samples.push(t.elapsed());
    }
    g.check();
    let empty = median(samples);
    println!(
        "DG2: a COMPUTE_WALKER of one SIMD8 thread (EOT only), ELSP write to idle: median {:.1} us; an empty batch: {:.1} us ({:.1}x)",
        dispatch.as_secs_f64() * 1e6,
        empty.as_secs_f64() * 1e6,
        dispatch.as_secs_f64() / empty.as_secs_f64()
    );

    // 2. Vector add.
    let n = a.len();
    const LWS: u32 = 64;
    g.kernel(0x1000, &asm(&vector_add_kernel(LWS)));
    let bytes = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let (va, _) = g.buffer(&bytes(a));
    let (vb, _) = g.buffer(&bytes(b));
    let (vc, pc) = g.buffer(&vec![0; 4 * n]);
    let mut inline = [0u32; 8];
    for (k, q) in [va, vb, vc].into_iter().enumerate() {
        inline[2 * k] = q as u32;
        inline[2 * k + 1] = (q >> 32) as u32;
    }
    let mut cmds = setup();
    cmds.extend(walker(16, LWS, n as u32 / LWS, 0x1000, inline));
    let mut emu = Duration::MAX;
    for _ in 0..reps {
        // Each run's sums its own.
        g.ram.write(pc, &vec![0; 4 * n]).expect("ram");
        let desc = g.prepare(&cmds);
        let t = Instant::now();
        g.submit(desc);
        emu = emu.min(t.elapsed());
        g.check();
    }
    let mut got = vec![0u8; 4 * n];
    g.ram.read(pc, &mut got).expect("ram");
    for i in 0..n {
        let v = u32::from_le_bytes([got[4 * i], got[4 * i + 1], got[4 * i + 2], got[4 * i + 3]]);
        assert_eq!(v, a[i].wrapping_add(b[i]), "element {i}");
    }
    println!(
        "DG2: vector add of {} Mi u32 (LSC A64, SIMD16, groups of {LWS}): {:.1} ms ({:.1} M elements/s); plain loop {:.3} ms; time ratio {:.0}x",
        n >> 20,
        emu.as_secs_f64() * 1e3,
        n as f64 / emu.as_secs_f64() / 1e6,
        host.as_secs_f64() * 1e3,
        emu.as_secs_f64() / host.as_secs_f64()
    );
}
