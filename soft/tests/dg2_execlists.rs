//! The Gen12.5 (DG2) software GPU through its public interface: the BAR and
//! its 64-bit GGTT, execlist submission of hand-built logical ring contexts on
//! the render, blitter and compute engines, the context status buffer and the
//! interrupt tree, MI commands through the GGTT, the four-level PPGTT and local
//! memory, and the errors the engine reports (page faults, unknown and refused
//! commands).
//!
//! The context images follow the register-state layout of Linux i915
//! (gt/intel_lrc_reg.h: CTX_RING_HEAD at dword 5, CTX_RING_TAIL 7,
//! CTX_RING_START 9, CTX_RING_CTL 11, the second MI_LOAD_REGISTER_IMM header
//! at 0x21 with CTX_PDP0_UDW/LDW values at 0x31/0x33), built here by hand.

use std::collections::BTreeMap;
use std::sync::Mutex;

use baregpu_hal::{BusError, ConfigSpace, Generation, MemoryBus, Mmio};
use baregpu_soft::SoftGpu;

/// Sparse system memory: any address below 1 TiB, zero until written.
#[derive(Default)]
struct Ram(Mutex<BTreeMap<u64, Box<[u8; 4096]>>>);

const RAM_LIMIT: u64 = 1 << 40;

impl MemoryBus for Ram {
    fn read(&self, phys: u64, buf: &mut [u8]) -> Result<(), BusError> {
        if phys + buf.len() as u64 > RAM_LIMIT {
            return Err(BusError { phys });
        }
        let pages = self.0.lock().unwrap();
        for (k, b) in buf.iter_mut().enumerate() {
            let at = phys + k as u64;
            *b = pages
                .get(&(at >> 12))
                .map_or(0, |p| p[(at & 0xfff) as usize]);
        }
        Ok(())
    }
    fn write(&self, phys: u64, data: &[u8]) -> Result<(), BusError> {
        if phys + data.len() as u64 > RAM_LIMIT {
            return Err(BusError { phys });
        }
        let mut pages = self.0.lock().unwrap();
        for (k, b) in data.iter().enumerate() {
            let at = phys + k as u64;
            pages.entry(at >> 12).or_insert_with(|| Box::new([0; 4096]))[(at & 0xfff) as usize] =
                *b;
        }
        Ok(())
    }
}

fn tables() -> &'static baregpu_hal::reflect::GenTables {
    Generation::Gen12_5.tables()
}

/// A register's offset by its name in the gen12.5 tables (engine-relative
/// for engine registers).
fn reg(name: &str) -> u32 {
    tables()
        .register(name)
        .unwrap_or_else(|| panic!("no {name}"))
        .offset
}

fn base(engine: &str) -> u32 {
    tables().engine_base(engine).unwrap()
}

const GGTT: u32 = 8 << 20;

/// MI headers (hal gen12.5 mi.toml): opcode in 28:23, DWord Length = total - 2.
const fn mi(opcode: u32, total_dwords: u32) -> u32 {
    (opcode << 23) | (total_dwords.saturating_sub(2))
}
const MI_NOOP: u32 = 0;
const MI_USER_INTERRUPT: u32 = 0x02 << 23;
const MI_BATCH_BUFFER_END: u32 = 0x0a << 23;
/// MI_STORE_DATA_IMM with Use Global GTT (bit 22), one data dword.
const SDI_GGTT: u32 = mi(0x20, 4) | 1 << 22;
const SDI_PPGTT: u32 = mi(0x20, 4);
/// MI_BATCH_BUFFER_START, bit 8 the PPGTT; bit 22 a second-level batch.
const BB_START: u32 = mi(0x31, 3);
const BB_PPGTT: u32 = 1 << 8;
const BB_SECOND_LEVEL: u32 = 1 << 22;
/// MI_LOAD_REGISTER_IMM header with Add CS MMIO Start Offset (bit 19), as i915
/// writes context images on Gen11+.
const fn lri(pairs: u32) -> u32 {
    (0x22 << 23) | 1 << 19 | (2 * pairs - 1)
}
/// MI_CONDITIONAL_BATCH_BUFFER_END, GGTT, compare operation 4 (continue while equal).
const CBBE_EQUAL: u32 = mi(0x36, 4) | 1 << 22 | 4 << 12;
/// MI_SEMAPHORE_SIGNAL (refused by the model), two dwords.
const MI_SEMAPHORE_SIGNAL: u32 = 0x1b << 23;

/// Descriptor bits (Xe xe_lrc.c): valid, legacy 64-bit addressing, privilege;
/// the software context ID in 54:39 (xe_execlist.c XEHP_SW_CTX_ID).
fn descriptor(lrca: u64, id: u32) -> u64 {
    lrca | 1 | 3 << 3 | 1 << 8 | u64::from(id) << 39
}

/// CSB layout (i915 intel_execlists_submission.c, Xe_HP): "to" ID in low
/// 25:10, "away" ID in high 25:10, new queue in high bit 1.
fn csb(to: u32, away: u32, new_queue: bool) -> (u32, u32) {
    (to << 10, away << 10 | u32::from(new_queue) << 1)
}
const IDLE: u32 = 0xffff;

struct Dg2 {
    ram: &'static Ram,
    gpu: SoftGpu<&'static Ram>,
    /// Next free physical page and GGTT page.
    next_phys: u64,
    next_gfx: u64,
}

impl Dg2 {
    fn new() -> Self {
        let ram: &'static Ram = Box::leak(Box::default());
        let gpu = SoftGpu::new(Generation::Gen12_5, ram).expect("DG2 model");
        Self {
            ram,
            gpu,
            next_phys: 0x1_0000_0000,
            next_gfx: 0x10_0000,
        }
    }

    fn ggtt_map(&self, gfx: u64, pte: u64) {
        let at = GGTT + (gfx >> 12) as u32 * 8;
        self.gpu.write32(at, pte as u32);
        self.gpu.write32(at + 4, (pte >> 32) as u32);
    }

    /// A fresh system page, mapped in the GGTT: (graphics, physical).
    fn page(&mut self) -> (u64, u64) {
        let (gfx, phys) = (self.next_gfx, self.next_phys);
        self.next_gfx += 0x1000;
        self.next_phys += 0x1000;
        self.ggtt_map(gfx, phys | 1);
        (gfx, phys)
    }

    fn phys_page(&mut self) -> u64 {
        let p = self.next_phys;
        self.next_phys += 0x1000;
        p
    }

    fn write(&self, phys: u64, dwords: &[u32]) {
        for (k, d) in dwords.iter().enumerate() {
            self.ram.write_u32(phys + 4 * k as u64, *d).unwrap();
        }
    }

    fn read(&self, phys: u64) -> u32 {
        self.ram.read_u32(phys).unwrap()
    }

    fn write64(&self, phys: u64, v: u64) {
        self.write(phys, &[v as u32, (v >> 32) as u32]);
    }
}

/// A hand-built logical ring context: its image (status page + register
/// state) and a one-page ring, on `engine`.
struct Ctx {
    lrca: u64,
    state_phys: u64,
    pphwsp_phys: u64,
    ring_gfx: u64,
    ring_phys: u64,
    tail: u32,
    id: u32,
}

impl Ctx {
    fn new(g: &mut Dg2, engine: &'static str, id: u32, pml4: u64) -> Self {
        let (lrca, pphwsp_phys) = g.page();
        let (_, state_phys) = g.page();
        let (ring_gfx, ring_phys) = g.page();
        let b = base(engine);
        let mut state = vec![0u32; 0x40];
        // First list: CONTEXT_CONTROL, RING_HEAD, RING_TAIL, RING_START, RING_CTL
        // at the positions of intel_lrc_reg.h, then BB_ADDR_UDW and BB_ADDR.
        state[1] = lri(7);
        let ring = [
            (0x244, 0xffff_0000),
            (reg("RING_HEAD"), 0),
            (reg("RING_TAIL"), 0),
            (reg("RING_START"), ring_gfx as u32),
            // One page, Ring Valid (RING_CTL_SIZE(4096) | RING_VALID).
            (reg("RING_CTL"), 1),
            (reg("RING_BBADDR_UDW"), 0),
            (reg("RING_BBADDR"), 0),
        ];
        for (k, (r, v)) in ring.iter().enumerate() {
            state[2 + 2 * k] = b + r;
            state[3 + 2 * k] = *v;
        }
        // Second list at 0x21: CTX_TIMESTAMP, then PDP3..PDP0 upper/lower; PDP0
        // holds the PML4 (ASSIGN_CTX_PML4).
        state[0x21] = lri(9);
        state[0x22] = b + reg("RING_CTX_TIMESTAMP");
        for n in 0..4u32 {
            let k = 0x24 + 4 * (3 - n) as usize;
            state[k] = b + 0x270 + 8 * n + 4;
            state[k + 2] = b + 0x270 + 8 * n;
        }
        state[0x31] = (pml4 >> 32) as u32;
        state[0x33] = pml4 as u32;
        g.write(state_phys, &state);
        assert_eq!(state[5], 0, "CTX_RING_HEAD");
        Self {
            lrca,
            state_phys,
            pphwsp_phys,
            ring_gfx,
            ring_phys,
            tail: 0,
            id,
        }
    }

    /// Appends commands to the ring (padding to a qword) and sets the image's tail.
    fn emit(&mut self, g: &Dg2, dwords: &[u32]) {
        let mut all = dwords.to_vec();
        if all.len() % 2 == 1 {
            all.push(MI_NOOP);
        }
        g.write(self.ring_phys + u64::from(self.tail), &all);
        self.tail += 4 * all.len() as u32;
        g.write(self.state_phys + 7 * 4, &[self.tail]);
    }

    fn desc(&self) -> u64 {
        descriptor(self.lrca, self.id)
    }
}

/// Sets the engine's status page, then submits up to two contexts (on a
/// compute engine after enabling the CCS engines, as Xe's __start_lrc does).
fn submit(g: &Dg2, engine: &str, hwsp_gfx: u64, contexts: &[&Ctx]) {
    if engine == "compute" {
        g.gpu.write32(reg("GEN12_RCU_MODE"), 1 << 16 | 1);
    }
    load(g, engine, hwsp_gfx, contexts);
}

/// The submission itself: status page, execlist mode, queue, load.
fn load(g: &Dg2, engine: &str, hwsp_gfx: u64, contexts: &[&Ctx]) {
    let b = base(engine);
    g.gpu.write32(b + reg("RING_HWS_PGA"), hwsp_gfx as u32);
    // Execlists: GEN11_GFX_DISABLE_LEGACY_MODE (masked), as Xe's __start_lrc.
    g.gpu
        .write32(b + reg("RING_MODE_GEN7"), (1 << 3) << 16 | 1 << 3);
    let sq = b + reg("RING_EXECLIST_SQ_CONTENTS");
    for k in 0..2u32 {
        let d = contexts.get(k as usize).map_or(0, |c| c.desc());
        g.gpu.write32(sq + 8 * k, d as u32);
        g.gpu.write32(sq + 8 * k + 4, (d >> 32) as u32);
    }
    g.gpu.write32(b + reg("RING_EXECLIST_CONTROL"), 1);
}

/// The CSB entries written so far, read from the status page (entry 0 first).
fn csb_entries(g: &Dg2, hwsp_phys: u64, n: usize) -> Vec<(u32, u32)> {
    (0..n)
        .map(|k| {
            let at = hwsp_phys + 4 * (0x10 + 2 * k as u64);
            (g.read(at), g.read(at + 4))
        })
        .collect()
}

/// Enables every engine interrupt bit the model raises (user 0, error 3,
/// notify 4, context switch 8) and both master enables, as i915's
/// gen11_gt_irq_postinstall and dg1_irq_postinstall do.
fn enable_interrupts(g: &Dg2) {
    let irqs = 1 | 1 << 3 | 1 << 4 | 1 << 8;
    for r in [
        "GEN11_RENDER_COPY_INTR_ENABLE",
        "GEN11_VCS_VECS_INTR_ENABLE",
        "GEN12_CCS_RSVD_INTR_ENABLE",
    ] {
        g.gpu.write32(reg(r), irqs << 16 | irqs);
    }
    for r in [
        "GEN11_RCS0_RSVD_INTR_MASK",
        "GEN11_BCS_RSVD_INTR_MASK",
        "GEN12_CCS0_CCS1_INTR_MASK",
    ] {
        g.gpu.write32(reg(r), !(irqs << 16 | irqs));
    }
    for e in ["render", "blitter", "compute"] {
        g.gpu.write32(base(e) + reg("RING_IMR"), !irqs);
    }
    g.gpu.write32(reg("GEN11_GFX_MSTR_IRQ"), 1 << 31);
    g.gpu.write32(reg("DG1_MSTR_TILE_INTR"), 1 << 31);
}

/// Takes engine interrupts the way i915's gen11_gt_irq_handler does: the
/// bank's pending bits, each one's identity through the selector, the bank
/// cleared. Returns (DW0 bit, identity) pairs.
fn take_interrupts(g: &Dg2) -> Vec<(u32, u32)> {
    let dw0 = g.gpu.read32(reg("GEN11_GT_INTR_DW0"));
    let mut out = vec![];
    for bit in (0..32).filter(|b| dw0 >> b & 1 == 1) {
        g.gpu.write32(reg("GEN11_IIR_REG_SELECTOR0"), 1 << bit);
        let ident = g.gpu.read32(reg("GEN11_INTR_IDENTITY_REG0"));
        g.gpu.write32(reg("GEN11_INTR_IDENTITY_REG0"), ident);
        out.push((bit, ident));
    }
    g.gpu.write32(reg("GEN11_GT_INTR_DW0"), dw0);
    out
}

#[test]
fn dg2_is_created_with_a_16_mib_bar_and_64_bit_ggtt_entries() {
    let g = Dg2::new();
    assert_eq!(g.gpu.bar_size(), 16 << 20);
    assert_eq!(g.gpu.config_read32(0), 0x56a0_8086);
    // GMCH_CTRL GGMS (bits 7:6) = 3: 8 MiB of entries.
    assert_eq!(g.gpu.config_read32(0x50) >> 6 & 3, 3);
    assert_eq!(g.gpu.local_memory_size(), 256 << 20);
    // A PTE at GGTT + 8 * page reads back whole, both halves.
    g.ggtt_map(0x5000, 0x12_3456_7003);
    assert_eq!(g.gpu.read32(GGTT + 5 * 8), 0x3456_7003);
    assert_eq!(g.gpu.read32(GGTT + 5 * 8 + 4), 0x12);
    // Other generations have no local memory.
    let older = SoftGpu::new(Generation::Gen7, g.ram).unwrap();
    assert_eq!(older.local_memory_size(), 0);
}

/// On each of RCS, BCS and CCS: a context whose ring stores a dword through
/// the GGTT and raises a user interrupt; the CSB shows the context starting
/// and completing, the interrupt tree the engine's vector, and the image the
/// saved RING_HEAD.
#[test]
fn a_submitted_context_runs_its_ring_and_reports_in_the_csb() {
    for (engine, class, dw_bit) in [("render", 0, 0), ("blitter", 3, 15), ("compute", 5, 4)] {
        let mut g = Dg2::new();
        enable_interrupts(&g);
        let (hwsp_gfx, hwsp_phys) = g.page();
        let (dst_gfx, dst_phys) = g.page();
        let mut ctx = Ctx::new(&mut g, engine, 7, 0);
        ctx.emit(
            &g,
            &[
                SDI_GGTT,
                dst_gfx as u32 + 8,
                (dst_gfx >> 32) as u32,
                0xc0ff_ee00 | class,
                MI_USER_INTERRUPT,
            ],
        );
        submit(&g, engine, hwsp_gfx, &[&ctx]);
        g.gpu.run(100);
        assert_eq!(g.read(dst_phys + 8), 0xc0ff_ee00 | class, "{engine}");
        assert_eq!(
            csb_entries(&g, hwsp_phys, 2),
            vec![csb(7, IDLE, true), csb(IDLE, 7, false)],
            "{engine}"
        );
        let b = base(engine);
        // Write pointer 1 (entry 1 last written) in the register and the status page.
        assert_eq!(g.gpu.read32(b + reg("RING_CONTEXT_STATUS_PTR")) & 0xf, 1);
        assert_eq!(g.read(hwsp_phys + 4 * 0x2f), 1);
        // The save wrote RING_HEAD (= the tail) at CTX_RING_HEAD.
        assert_eq!(g.read(ctx.state_phys + 5 * 4), ctx.tail, "{engine}");
        // The interrupt: both masters, the engine's DW0 bit, its identity.
        assert!(g.gpu.intx_asserted(), "{engine}");
        assert_eq!(g.gpu.read32(reg("GEN11_GFX_MSTR_IRQ")), 1 << 31 | 1);
        let taken = take_interrupts(&g);
        assert_eq!(
            taken,
            vec![(dw_bit, 1 << 31 | class << 16 | 1 << 8 | 1)],
            "{engine}: context switch and user interrupt"
        );
        assert!(!g.gpu.intx_asserted(), "{engine}: acknowledged");
    }
}

/// Two elements: the second runs when the first completes (CSB: start,
/// switch, idle), each saved with its own head.
#[test]
fn the_second_element_runs_after_the_first() {
    let mut g = Dg2::new();
    let (hwsp_gfx, hwsp_phys) = g.page();
    let (dst_gfx, dst_phys) = g.page();
    let mut a = Ctx::new(&mut g, "render", 1, 0);
    let mut b = Ctx::new(&mut g, "render", 2, 0);
    a.emit(&g, &[SDI_GGTT, dst_gfx as u32, 0, 0xa]);
    b.emit(
        &g,
        &[SDI_GGTT, dst_gfx as u32 + 4, 0, 0xb, MI_NOOP, MI_NOOP],
    );
    submit(&g, "render", hwsp_gfx, &[&a, &b]);
    g.gpu.run(100);
    assert_eq!((g.read(dst_phys), g.read(dst_phys + 4)), (0xa, 0xb));
    assert_eq!(
        csb_entries(&g, hwsp_phys, 3),
        vec![csb(1, IDLE, true), csb(2, 1, false), csb(IDLE, 2, false)]
    );
    assert_eq!(g.read(a.state_phys + 5 * 4), a.tail);
    assert_eq!(g.read(b.state_phys + 5 * 4), b.tail);
}

/// A context waiting in a batch on a memory dword (MI_CONDITIONAL_BATCH_BUFFER_END
/// in a loop) is submitted again with more commands: a lite restore (CSB to =
/// away = the context, new queue). When the dword changes the batch ends and
/// the ring goes on to the new tail.
#[test]
fn resubmitting_the_running_context_is_a_lite_restore() {
    let mut g = Dg2::new();
    let (hwsp_gfx, hwsp_phys) = g.page();
    let (flag_gfx, flag_phys) = g.page();
    let (loop_gfx, loop_phys) = g.page();
    // Loop: continue while the flag equals 0, then start over.
    g.write(
        loop_phys,
        &[
            CBBE_EQUAL,
            0,
            flag_gfx as u32,
            0,
            BB_START,
            loop_gfx as u32,
            0,
            MI_BATCH_BUFFER_END,
        ],
    );
    let mut ctx = Ctx::new(&mut g, "render", 5, 0);
    ctx.emit(&g, &[BB_START, loop_gfx as u32, 0]);
    submit(&g, "render", hwsp_gfx, &[&ctx]);
    g.gpu.run(50);
    assert_eq!(csb_entries(&g, hwsp_phys, 1), vec![csb(5, IDLE, true)]);
    // More work behind the loop, submitted again.
    ctx.emit(&g, &[SDI_GGTT, flag_gfx as u32 + 4, 0, 0x1234]);
    submit(&g, "render", hwsp_gfx, &[&ctx]);
    g.gpu.run(50);
    assert_eq!(csb_entries(&g, hwsp_phys, 2)[1], csb(5, 5, true));
    assert_eq!(g.read(flag_phys + 4), 0, "still looping");
    g.write(flag_phys, &[1]);
    g.gpu.run(50);
    assert_eq!(g.read(flag_phys + 4), 0x1234, "the resampled tail ran");
    assert_eq!(csb_entries(&g, hwsp_phys, 3)[2], csb(IDLE, 5, false));
}

/// Builds a four-level PPGTT in system memory mapping `va` to `phys`.
fn map_ppgtt(g: &mut Dg2, pml4: u64, va: u64, phys: u64) {
    let mut table = pml4;
    for level in 0..3 {
        let index = (va >> (39 - 9 * level)) & 0x1ff;
        let at = table + 8 * index;
        let entry = g.read(at) as u64 | (g.read(at + 4) as u64) << 32;
        table = if entry & 1 == 1 {
            entry & 0x3fff_ffff_f000
        } else {
            let next = g.phys_page();
            g.write64(at, next | 3);
            next
        };
    }
    g.write64(table + 8 * ((va >> 12) & 0x1ff), phys | 3);
}

/// A PPGTT batch at a 48-bit address chains to a second one, which starts a
/// second-level batch; stores through the PPGTT land where the context's
/// page tables say, and the first batch carries on after the second level.
#[test]
fn ppgtt_batches_chain_and_store_at_48_bit_addresses() {
    let mut g = Dg2::new();
    let (hwsp_gfx, _) = g.page();
    let pml4 = g.phys_page();
    let va = |n: u64| 0x7f12_3450_0000 + n * 0x20_1000;
    let pages: Vec<u64> = (0..4).map(|_| g.phys_page()).collect();
    for (n, p) in pages.iter().enumerate() {
        map_ppgtt(&mut g, pml4, va(n as u64), *p);
    }
    let lo = |a: u64| a as u32;
    let hi = |a: u64| (a >> 32) as u32;
    let data = va(3);
    // Batch 0: a store, then chain (bit 22 clear) to batch 1.
    g.write(
        pages[0],
        &[
            SDI_PPGTT,
            lo(data),
            hi(data),
            0x11,
            BB_START | BB_PPGTT,
            lo(va(1)),
            hi(va(1)),
        ],
    );
    // Batch 1: second-level batch 2, then a store after it returns, then end.
    g.write(
        pages[1],
        &[
            BB_START | BB_PPGTT | BB_SECOND_LEVEL,
            lo(va(2)),
            hi(va(2)),
            SDI_PPGTT,
            lo(data + 8),
            hi(data + 8),
            0x33,
            MI_BATCH_BUFFER_END,
        ],
    );
    // Batch 2: a store; its Use Global GTT bit is ignored in a PPGTT batch.
    g.write(
        pages[2],
        &[
            SDI_GGTT,
            lo(data + 4),
            hi(data + 4),
            0x22,
            MI_BATCH_BUFFER_END,
        ],
    );
    let mut ctx = Ctx::new(&mut g, "blitter", 9, pml4);
    ctx.emit(&g, &[BB_START | BB_PPGTT, lo(va(0)), hi(va(0))]);
    submit(&g, "blitter", hwsp_gfx, &[&ctx]);
    g.gpu.run(100);
    let got: Vec<u32> = (0..3).map(|k| g.read(pages[3] + 4 * k)).collect();
    assert_eq!(got, vec![0x11, 0x22, 0x33]);
    assert_eq!(g.gpu.stats().batches, 3);
    assert_eq!(g.gpu.stats().errors, 0);
    // The last batch started is reported in RING_BBADDR / _UDW.
    let b = base("blitter");
    assert_eq!(g.gpu.read32(b + reg("RING_BBADDR")), lo(va(2)));
    assert_eq!(g.gpu.read32(b + reg("RING_BBADDR_UDW")), hi(va(2)));
}

/// A store to an unmapped PPGTT address stops the engine with a page fault:
/// the fault registers as i915 reads them, EIR's page-table bit, the CS error
/// interrupt; the context does not complete. A GDRST of the engine's domain
/// clears it.
#[test]
fn an_unmapped_ppgtt_address_is_a_reported_fault() {
    let mut g = Dg2::new();
    enable_interrupts(&g);
    let (hwsp_gfx, hwsp_phys) = g.page();
    let pml4 = g.phys_page();
    let mapped = g.phys_page();
    map_ppgtt(&mut g, pml4, 0x4000_0000, mapped);
    let bad = 0xabcd_e000_1000u64;
    let mut ctx = Ctx::new(&mut g, "compute", 3, pml4);
    ctx.emit(
        &g,
        &[
            SDI_PPGTT,
            0x4000_0000,
            0,
            1,
            SDI_PPGTT,
            bad as u32,
            (bad >> 32) as u32,
            2,
        ],
    );
    submit(&g, "compute", hwsp_gfx, &[&ctx]);
    g.gpu.run(100);
    assert_eq!(g.read(mapped), 1, "the mapped store ran");
    let b = base("compute");
    assert_eq!(g.gpu.read32(b + reg("RING_EIR")), 1 << 4);
    let fault = g.gpu.read32(reg("GEN12_RING_FAULT_REG"));
    assert_eq!(fault & 1, 1, "valid");
    assert_eq!(fault >> 11 & 1, 0, "PPGTT");
    assert_eq!(fault >> 12 & 7, 5, "the compute class");
    assert_eq!(
        g.gpu.read32(reg("GEN12_FAULT_TLB_DATA0")),
        (bad >> 12) as u32
    );
    let data1 = g.gpu.read32(reg("GEN12_FAULT_TLB_DATA1"));
    assert_eq!((data1 & 0xf, data1 >> 4 & 1), ((bad >> 44) as u32, 0));
    // Only the start: the context never completed.
    assert_eq!(csb_entries(&g, hwsp_phys, 2)[1], (0, 0));
    let taken = take_interrupts(&g);
    assert_eq!(taken, vec![(4, 1 << 31 | 5 << 16 | 1 << 8 | 1 << 3)]);
    // i915's reset order: stop the ring (MODE_IDLE follows STOP_RING), ask for
    // the reset, then the render domain (which holds CCS): the engine is clean.
    let mi_mode = b + reg("RING_MI_MODE");
    assert_eq!(g.gpu.read32(mi_mode) & 1 << 9, 0);
    g.gpu.write32(mi_mode, 1 << 24 | 1 << 8);
    assert_eq!(g.gpu.read32(mi_mode) & 3 << 8, 3 << 8, "stopped and idle");
    g.gpu.write32(b + reg("RING_RESET_CTL"), 1 << 16 | 1);
    assert_eq!(
        g.gpu.read32(b + reg("RING_RESET_CTL")) & 2,
        2,
        "ready to reset"
    );
    g.gpu.write32(reg("GEN6_GDRST"), 1 << 1);
    assert_eq!(g.gpu.read32(reg("GEN6_GDRST")), 0, "reset done");
    assert_eq!(g.gpu.read32(b + reg("RING_EIR")), 0);
    assert_eq!(g.gpu.stats().resets, 2, "render and compute");
}

/// An unknown header is an instruction error with the header in IPEHR; a
/// known command the model does not execute is refused by name.
#[test]
fn unknown_and_unmodelled_commands_stop_the_engine_visibly() {
    for (cmd, name) in [
        (0x1f80_0000u32, None),
        (MI_SEMAPHORE_SIGNAL, Some("MI_SEMAPHORE_SIGNAL")),
    ] {
        let mut g = Dg2::new();
        let (hwsp_gfx, _) = g.page();
        let (dst_gfx, dst_phys) = g.page();
        let mut ctx = Ctx::new(&mut g, "render", 4, 0);
        ctx.emit(&g, &[cmd, 0, SDI_GGTT, dst_gfx as u32, 0, 5]);
        submit(&g, "render", hwsp_gfx, &[&ctx]);
        g.gpu.run(100);
        let b = base("render");
        assert_eq!(g.gpu.read32(b + reg("RING_EIR")), 1, "{cmd:#x}");
        assert_eq!(g.gpu.read32(b + reg("RING_IPEHR")), cmd);
        assert_eq!(g.gpu.unmodelled(0), name);
        let shown = g.gpu.read32(b + baregpu_hal::mmio::SOFT_UNMODELLED_COMMAND);
        assert_eq!(shown, if name.is_some() { cmd } else { 0 });
        assert_eq!(g.read(dst_phys), 0, "nothing after it ran");
        // ACTHD points at the command (ring start + 0).
        assert_eq!(g.gpu.read32(b + reg("RING_ACTHD")), ctx.ring_gfx as u32);
    }
}

/// GGTT entries with the local-memory bit reach device memory: a store lands
/// there and reads back through BAR2; the per-process status page of
/// MI_STORE_DATA_INDEX is page 0 of the context image.
#[test]
fn local_memory_and_the_per_process_status_page() {
    let mut g = Dg2::new();
    let (hwsp_gfx, _) = g.page();
    // GGTT page 0x80_0000 -> local memory 0x30000 (bit 1, GEN12_GGTT_PTE_LM).
    g.ggtt_map(0x80_0000, 0x3_0000 | 1 << 1 | 1);
    let mut ctx = Ctx::new(&mut g, "render", 6, 0);
    // MI_STORE_DATA_INDEX (opcode 0x21), per-process (bit 21), offset 0x100.
    let sdi_index = mi(0x21, 3) | 1 << 21;
    ctx.emit(
        &g,
        &[SDI_GGTT, 0x80_0010, 0, 0x600d, sdi_index, 0x100, 0x77],
    );
    submit(&g, "render", hwsp_gfx, &[&ctx]);
    g.gpu.run(100);
    let mut b = [0u8; 4];
    assert!(g.gpu.read_local(0x3_0010, &mut b));
    assert_eq!(u32::from_le_bytes(b), 0x600d);
    assert_eq!(g.read(ctx.pphwsp_phys + 0x100), 0x77);
    assert!(g.gpu.write_local(0x3_0020, &[1, 2, 3, 4]));
    assert!(!g.gpu.read_local(256 << 20, &mut b), "past the end");
    assert_eq!(g.gpu.stats().errors, 0);
}

/// MI_SEMAPHORE_WAIT in polling mode holds the engine (RING_CTL's semaphore
/// wait bit set, nothing after it runs) until the dword passes the compare.
#[test]
fn a_polling_semaphore_wait_holds_the_engine_until_memory_passes() {
    let mut g = Dg2::new();
    let (hwsp_gfx, hwsp_phys) = g.page();
    let (sem_gfx, sem_phys) = g.page();
    // GGTT (22), polling (15), SAD_EQUAL_SDD (4 << 12), five dwords.
    let wait = mi(0x1c, 5) | 1 << 22 | 1 << 15 | 4 << 12;
    let mut ctx = Ctx::new(&mut g, "render", 8, 0);
    ctx.emit(
        &g,
        &[
            wait,
            3,
            sem_gfx as u32,
            0,
            0,
            SDI_GGTT,
            sem_gfx as u32 + 4,
            0,
            0x5e,
        ],
    );
    submit(&g, "render", hwsp_gfx, &[&ctx]);
    g.gpu.run(100);
    let ctl = base("render") + reg("RING_CTL");
    assert_ne!(g.gpu.read32(ctl) & 1 << 10, 0, "waiting");
    assert_eq!(g.read(sem_phys + 4), 0);
    g.write(sem_phys, &[2]);
    g.gpu.run(100);
    assert_eq!(g.read(sem_phys + 4), 0, "2 is not 3");
    g.write(sem_phys, &[3]);
    g.gpu.run(100);
    assert_eq!(g.read(sem_phys + 4), 0x5e);
    assert_eq!(g.gpu.read32(ctl) & 1 << 10, 0);
    assert_eq!(csb_entries(&g, hwsp_phys, 2)[1], csb(IDLE, 8, false));
}

/// MI_ATOMIC with inline operands: ADD on local memory returning the old
/// value to CS_GPR4 (stored out with MI_STORE_REGISTER_MEM), a qword INC on
/// system memory; an ADD towards system memory is refused (the hardware has
/// only MOVE, INC and DEC there).
#[test]
fn mi_atomic_adds_and_increments_where_the_hardware_allows() {
    let mut g = Dg2::new();
    let (hwsp_gfx, _) = g.page();
    let (sys_gfx, sys_phys) = g.page();
    g.ggtt_map(0x90_0000, 0x4_0000 | 1 << 1 | 1);
    assert!(g.gpu.write_local(0x4_0000, &10u32.to_le_bytes()));
    g.write(sys_phys, &[0xffff_ffff, 0]);
    // GGTT (22), inline data (18), return data (16), opcode in 15:8; eleven dwords.
    let atomic =
        |size: u32, op: u32| mi(0x2f, 11) | 1 << 22 | size << 19 | 1 << 18 | 1 << 16 | op << 8;
    let add = atomic(0, 0x07);
    let inc8 = atomic(1, 0x25);
    let gpr4 = base("render") + reg("GEN8_RING_CS_GPR") + 8 * 4;
    let srm = mi(0x24, 4) | 1 << 22;
    let mut ctx = Ctx::new(&mut g, "render", 10, 0);
    #[rustfmt::skip]
    ctx.emit(&g, &[
        add, 0x90_0000, 0, 5, 0, 0, 0, 0, 0, 0, 0,
        srm, gpr4, sys_gfx as u32 + 16, 0,
        inc8, sys_gfx as u32, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        add, sys_gfx as u32 + 8, 0, 1, 0, 0, 0, 0, 0, 0, 0,
    ]);
    submit(&g, "render", hwsp_gfx, &[&ctx]);
    g.gpu.run(100);
    let mut b = [0u8; 4];
    assert!(g.gpu.read_local(0x4_0000, &mut b));
    assert_eq!(u32::from_le_bytes(b), 15);
    assert_eq!(g.read(sys_phys + 16), 10, "the old value came back in GPR4");
    assert_eq!(
        (g.read(sys_phys), g.read(sys_phys + 4)),
        (0, 1),
        "qword INC"
    );
    assert_eq!(
        g.gpu.unmodelled(0),
        Some("MI_ATOMIC arithmetic on system memory")
    );
    assert_eq!(g.read(sys_phys + 8), 0);
}

/// Without execlists (RING_MODE Disable Legacy Mode clear) a RING_TAIL write
/// that would start a valid ring is ring-buffer submission, which the model
/// refuses visibly.
#[test]
fn ring_buffer_submission_is_refused() {
    let g = Dg2::new();
    let b = base("blitter");
    g.gpu.write32(b + reg("RING_CTL"), 1);
    g.gpu.write32(b + reg("RING_TAIL"), 0);
    assert_eq!(g.gpu.unmodelled(1), None, "an empty ring starts nothing");
    g.gpu.write32(b + reg("RING_TAIL"), 0x40);
    assert_eq!(
        g.gpu.unmodelled(1),
        Some("ring buffer submission (RING_MODE Disable Legacy Mode clear)")
    );
    assert_eq!(g.gpu.read32(b + reg("RING_EIR")), 1);
}

/// A PDE with the page-size bit maps a 2 MiB page (GEN8_PDE_PS_2M); one with
/// GEN12_PDE_64K names a compact page table of 32 64 KiB entries indexed by
/// VA bits 20:16 (i915 xehpsdv_ppgtt_insert_huge, Xe xe_compact_pt_shifts),
/// here in local memory; a 4 KiB table whose entries carry the PS64 hint
/// translates entry by entry; a missing 64 KiB entry is a page fault.
#[test]
fn two_mib_and_64_kib_ppgtt_pages_map() {
    let mut g = Dg2::new();
    let (hwsp_gfx, _) = g.page();
    let pml4 = g.phys_page();
    let (pdp, pd) = (g.phys_page(), g.phys_page());
    let va = 0x0000_0080_4000_0000u64; // PML4 index 1, PDP index 1, PD index 0
    g.write64(pml4 + 8, pdp | 3);
    g.write64(pdp + 8, pd | 3);
    let big = 0x2_0000_0000u64; // 2 MiB aligned
    g.write64(pd, big | 1 << 7 | 3);
    // PD entry 1: a compact table in local memory; its entry 3 (VA 20:16 = 3)
    // a 64 KiB local page, entry 4 absent.
    let lm = 1u64 << 11;
    let (compact, page64) = (0x3_0000u64, 0x7_0000u64);
    g.write64(pd + 8, compact | lm | 1 << 6 | 3);
    let put = |at: u64, v: u64| assert!(g.gpu.write_local(at, &v.to_le_bytes()));
    put(compact + 8 * 3, page64 | lm | 3);
    // PD entry 2: a 4 KiB table whose entries 16..32 carry GEN12_PTE_PS64 (bit 8).
    let pt = g.phys_page();
    g.write64(pd + 16, pt | 3);
    let sys64 = 0x3_0001_0000u64;
    for k in 0..16u64 {
        g.write64(pt + 8 * (16 + k), (sys64 + k * 0x1000) | 1 << 8 | 3);
    }
    let mut ctx = Ctx::new(&mut g, "render", 11, pml4);
    let in_2m = va + 0x1f_f000 + 0x10;
    let in_64k = va + 0x20_0000 + 3 * 0x1_0000 + 0xfffc;
    let hinted = va + 0x40_0000 + 16 * 0x1000 + 5 * 0x1000 + 0x20;
    let missing = va + 0x20_0000 + 4 * 0x1_0000;
    let sdi = |at: u64, v: u32| [SDI_PPGTT, at as u32, (at >> 32) as u32, v];
    let mut ring = Vec::new();
    for (at, v) in [
        (in_2m, 0x2222),
        (in_64k, 0x6464),
        (hinted, 0x5050),
        (missing, 9),
    ] {
        ring.extend(sdi(at, v));
    }
    ctx.emit(&g, &ring);
    submit(&g, "render", hwsp_gfx, &[&ctx]);
    g.gpu.run(100);
    assert_eq!(g.read(big + 0x1f_f010), 0x2222);
    let mut b = [0u8; 4];
    assert!(g.gpu.read_local(page64 + 0xfffc, &mut b));
    assert_eq!(
        u32::from_le_bytes(b),
        0x6464,
        "offset 0xfffc in the 64 KiB page"
    );
    assert_eq!(g.read(sys64 + 5 * 0x1000 + 0x20), 0x5050);
    assert_eq!(g.gpu.unmodelled(0), None);
    assert_eq!(
        g.gpu.read32(base("render") + reg("RING_EIR")),
        1 << 4,
        "a page fault"
    );
    assert_eq!(
        g.gpu.read32(reg("GEN12_FAULT_TLB_DATA0")),
        (missing >> 12) as u32
    );
}

/// MI_MATH on the CS GPRs: a subtraction with its borrow, a shift, stored out
/// with MI_STORE_REGISTER_MEM (64-bit results as two dwords).
#[test]
fn mi_math_computes_on_the_general_purpose_registers() {
    let mut g = Dg2::new();
    let (hwsp_gfx, _) = g.page();
    let (out_gfx, out_phys) = g.page();
    let gpr = |n: u32| base("compute") + reg("GEN8_RING_CS_GPR") + 8 * n;
    let alu = |op: u32, a: u32, b: u32| op << 20 | a << 10 | b;
    let (load, sub, shl, store) = (0x080, 0x101, 0x105, 0x180);
    let (srca, srcb, accu, cf) = (0x20, 0x21, 0x31, 0x33);
    let srm = |reg: u32, at: u64| [mi(0x24, 4) | 1 << 22, reg, at as u32, 0];
    let mut ring = vec![
        lri(3) & !(1 << 19),
        gpr(0),
        7,
        gpr(1),
        9,
        gpr(4),
        4,
        mi(0x1a, 9),
        alu(load, srca, 0),
        alu(load, srcb, 1),
        alu(sub, 0, 0),
        alu(store, 2, accu),
        alu(store, 3, cf),
        alu(load, srcb, 4),
        alu(shl, 0, 0),
        alu(store, 5, accu),
        MI_NOOP,
    ];
    for (k, r) in [gpr(2), gpr(2) + 4, gpr(3), gpr(5)].iter().enumerate() {
        ring.extend(srm(*r, out_gfx + 4 * k as u64));
    }
    let mut ctx = Ctx::new(&mut g, "compute", 12, 0);
    ctx.emit(&g, &ring);
    submit(&g, "compute", hwsp_gfx, &[&ctx]);
    g.gpu.run(100);
    let got: Vec<u32> = (0..4).map(|k| g.read(out_phys + 4 * k)).collect();
    assert_eq!(got, vec![0xffff_fffe, 0xffff_ffff, 0xffff_ffff, 0x70]);
    assert_eq!(g.gpu.stats().errors, 0);
}

/// Page tables and pages in local memory: PPGTT entries with bit 11
/// (GEN12_PPGTT_PTE_LM, Xe XE_PPGTT_PTE_DM) point into device memory, for the
/// levels below the root as for the page.
#[test]
fn ppgtt_levels_and_pages_in_local_memory() {
    let mut g = Dg2::new();
    let (hwsp_gfx, _) = g.page();
    let pml4 = g.phys_page();
    let lm = 1u64 << 11;
    let (pdp, pd, pt, page) = (0x1_0000u64, 0x1_1000u64, 0x1_2000u64, 0x5_0000u64);
    let put = |at: u64, v: u64| assert!(g.gpu.write_local(at, &v.to_le_bytes()));
    g.write64(pml4, pdp | lm | 3);
    put(pdp, pd | lm | 3);
    put(pd + 8 * 2, pt | lm | 3);
    put(pt + 8 * 5, page | lm | 3);
    let va = 2u64 << 21 | 5 << 12 | 0x40;
    let mut ctx = Ctx::new(&mut g, "blitter", 13, pml4);
    ctx.emit(&g, &[SDI_PPGTT, va as u32, 0, 0x10ca1]);
    submit(&g, "blitter", hwsp_gfx, &[&ctx]);
    g.gpu.run(100);
    let mut b = [0u8; 4];
    assert!(g.gpu.read_local(page + 0x40, &mut b));
    assert_eq!(u32::from_le_bytes(b), 0x10ca1);
    assert_eq!(g.gpu.stats().errors, 0);
}

/// Forcewake: the acknowledge follows the masked request (render and GT domains).
#[test]
fn forcewake_requests_are_acknowledged() {
    let g = Dg2::new();
    for (req, ack) in [
        ("FORCEWAKE_RENDER_GEN9", "FORCEWAKE_ACK_RENDER_GEN9"),
        ("FORCEWAKE_GT_GEN9", "FORCEWAKE_ACK_GT_GEN9"),
    ] {
        assert_eq!(g.gpu.read32(reg(ack)) & 1, 0);
        g.gpu.write32(reg(req), 1 << 16 | 1);
        assert_eq!(g.gpu.read32(reg(ack)) & 1, 1, "{req}");
        g.gpu.write32(reg(req), 1 << 16);
        assert_eq!(g.gpu.read32(reg(ack)) & 1, 0, "{req} released");
    }
}

/// MI_PREDICATE sets MI_PREDICATE_RESULT from the sources; a predicated
/// MI_STORE_REGISTER_MEM runs only while it is set. MI_SET_PREDICATE on a
/// clear result drops what follows (a store, and a command the model would
/// otherwise refuse) until the next MI_SET_PREDICATE.
#[test]
fn predication_drops_commands() {
    let mut g = Dg2::new();
    let (hwsp_gfx, _) = g.page();
    let (out_gfx, out_phys) = g.page();
    let b = base("render");
    let (src0, src1) = (b + 0x400, b + 0x408);
    let lri_abs = |pairs: u32| lri(pairs) & !(1 << 19);
    // LOAD (7:6 = 2), SET (4:3 = 0), SRCS_EQUAL (1:0 = 2).
    let predicate = 0x0c << 23 | 2 << 6 | 2;
    // MI_STORE_REGISTER_MEM of SRC0, predicated on MI_PREDICATE_RESULT (bit 21).
    let srm_if = |at: u64| [mi(0x24, 4) | 1 << 22 | 1 << 21, src0, at as u32, 0];
    let set_predicate = |v: u32| 0x01 << 23 | v;
    let mut ring = vec![lri_abs(2), src0, 5, src1, 5, predicate];
    ring.extend(srm_if(out_gfx));
    ring.extend([lri_abs(1), src1, 6, predicate]);
    ring.extend(srm_if(out_gfx + 4));
    // MI_PREDICATE_RESULT is now clear: NOOP on result clear (3).
    ring.extend([set_predicate(3), SDI_GGTT, out_gfx as u32 + 8, 0, 0xbad]);
    ring.extend([MI_SEMAPHORE_SIGNAL, 0, set_predicate(0)]);
    ring.extend([SDI_GGTT, out_gfx as u32 + 12, 0, 0x600d]);
    let mut ctx = Ctx::new(&mut g, "render", 14, 0);
    ctx.emit(&g, &ring);
    submit(&g, "render", hwsp_gfx, &[&ctx]);
    g.gpu.run(100);
    let got: Vec<u32> = (0..4).map(|k| g.read(out_phys + 4 * k)).collect();
    assert_eq!(got, vec![5, 0, 0, 0x600d]);
    assert_eq!(g.gpu.read32(b + 0x418) & 1, 0, "MI_PREDICATE_RESULT");
    assert_eq!(g.gpu.stats().errors, 0);
}

/// Post-sync writes and register moves: MI_FLUSH_DW (qword immediate,
/// notify interrupt) on the blitter; PIPE_CONTROL (immediate qword, then
/// the timestamp) on render; MI_LOAD_REGISTER_MEM, MI_LOAD_REGISTER_REG and
/// MI_COPY_MEM_MEM.
#[test]
fn post_sync_writes_and_register_moves() {
    let mut g = Dg2::new();
    enable_interrupts(&g);
    let (hwsp_gfx, _) = g.page();
    let (out_gfx, out_phys) = g.page();
    // MI_FLUSH_DW: write immediate data (15:14 = 1), notify (8), GGTT address (DW1 bit 2).
    let flush = mi(0x26, 5) | 1 << 14 | 1 << 8;
    let mut blt = Ctx::new(&mut g, "blitter", 15, 0);
    blt.emit(&g, &[flush, out_gfx as u32 | 1 << 2, 0, 0x1111, 0x2222]);
    submit(&g, "blitter", hwsp_gfx, &[&blt]);
    g.gpu.run(100);
    assert_eq!((g.read(out_phys), g.read(out_phys + 4)), (0x1111, 0x2222));
    let taken = take_interrupts(&g);
    assert_eq!(taken, vec![(15, 1 << 31 | 3 << 16 | 1 << 8 | 1 << 4)]);

    let (hwsp2_gfx, _) = g.page();
    // PIPE_CONTROL (3D type 3, subtype 3, opcode 2): DW1 GGTT (24), post-sync 15:14.
    let pipe_control = 3 << 29 | 3 << 27 | 2 << 24 | 4;
    let gpr = |n: u32| base("render") + reg("GEN8_RING_CS_GPR") + 8 * n;
    let lrm = mi(0x29, 4) | 1 << 22;
    let lrr = mi(0x2a, 3);
    let copy = mi(0x2e, 5) | 1 << 22 | 1 << 21;
    let mut rcs = Ctx::new(&mut g, "render", 16, 0);
    #[rustfmt::skip]
    rcs.emit(&g, &[
        pipe_control, 1 << 24 | 1 << 14, out_gfx as u32 + 8, 0, 0x3333, 0x4444,
        pipe_control, 1 << 24 | 3 << 14, out_gfx as u32 + 16, 0, 0, 0,
        lrm, gpr(0), out_gfx as u32 + 8, 0,
        lrr, gpr(0), gpr(1),
        mi(0x24, 4) | 1 << 22, gpr(1), out_gfx as u32 + 24, 0,
        copy, out_gfx as u32 + 28, 0, out_gfx as u32 + 12, 0,
    ]);
    submit(&g, "render", hwsp2_gfx, &[&rcs]);
    g.gpu.run(100);
    assert_eq!(
        (g.read(out_phys + 8), g.read(out_phys + 12)),
        (0x3333, 0x4444)
    );
    let timestamp = u64::from(g.read(out_phys + 16)) | u64::from(g.read(out_phys + 20)) << 32;
    assert!(timestamp >= 3, "commands executed so far: {timestamp}");
    assert_eq!(
        g.read(out_phys + 24),
        0x3333,
        "memory -> GPR0 -> GPR1 -> memory"
    );
    assert_eq!(g.read(out_phys + 28), 0x4444, "MI_COPY_MEM_MEM");
    assert_eq!(g.gpu.stats().errors, 0);
}

/// Random rings, batches and context images never panic the model: every
/// outcome is an executed command, a wait, or a reported engine error.
#[test]
fn random_streams_and_images_are_device_input_not_panics() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..300 {
        let mut g = Dg2::new();
        let (hwsp_gfx, _) = g.page();
        let engine = ["render", "blitter", "compute"][round % 3];
        let pml4 = g.phys_page();
        // A few random page-table entries, some pointing at real pages.
        for k in 0..8 {
            let v = next();
            let e = if k % 2 == 0 {
                (g.next_phys + (v & 0xf000)) | 3
            } else {
                v
            };
            g.write64(pml4 + 8 * (v % 512), e);
        }
        let mut ctx = Ctx::new(&mut g, engine, round as u32, pml4);
        // MI-typed headers (bits 31:29 = 0) most of the time, anything otherwise.
        let dwords: Vec<u32> = (0..1000)
            .map(|k| {
                let v = next() as u32;
                if k % 3 == 0 { v & 0x1fff_ffff } else { v }
            })
            .collect();
        ctx.emit(&g, &dwords);
        if round % 4 == 3 {
            // A garbled register-state page too.
            let junk: Vec<u32> = (0..1024).map(|_| next() as u32).collect();
            g.write(ctx.state_phys, &junk);
        }
        submit(&g, engine, hwsp_gfx, &[&ctx]);
        g.gpu.run(2000);
        // Commands ran, an error stopped the engine, or (an image without a
        // valid ring) the context completed at once, with CSB events.
        let s = g.gpu.stats();
        let csb_ptr = g.gpu.read32(base(engine) + reg("RING_CONTEXT_STATUS_PTR")) & 0xf;
        assert!(
            s.commands + s.errors > 0 || csb_ptr != 11,
            "round {round}: nothing happened"
        );
    }
}

/// Without GEN12_RCU_MODE CCS_ENABLE the compute engine does not take a
/// submission (nothing runs, no CSB event); once enabled it does.
#[test]
fn the_compute_engine_needs_ccs_enable() {
    let mut g = Dg2::new();
    let (hwsp_gfx, hwsp_phys) = g.page();
    let (dst_gfx, dst_phys) = g.page();
    let mut ctx = Ctx::new(&mut g, "compute", 17, 0);
    ctx.emit(&g, &[SDI_GGTT, dst_gfx as u32, 0, 0xcc5]);
    load(&g, "compute", hwsp_gfx, &[&ctx]);
    g.gpu.run(100);
    assert_eq!(g.read(dst_phys), 0);
    assert_eq!(csb_entries(&g, hwsp_phys, 1), vec![(0, 0)]);
    submit(&g, "compute", hwsp_gfx, &[&ctx]);
    g.gpu.run(100);
    assert_eq!(g.read(dst_phys), 0xcc5);
    assert_eq!(csb_entries(&g, hwsp_phys, 1), vec![csb(17, IDLE, true)]);
}

/// A ring stopped with RING_MI_MODE STOP_RING executes nothing until started again.
#[test]
fn a_stopped_ring_waits() {
    let mut g = Dg2::new();
    let (hwsp_gfx, _) = g.page();
    let (dst_gfx, dst_phys) = g.page();
    let mi_mode = base("blitter") + reg("RING_MI_MODE");
    g.gpu.write32(mi_mode, 1 << 24 | 1 << 8);
    let mut ctx = Ctx::new(&mut g, "blitter", 18, 0);
    ctx.emit(&g, &[SDI_GGTT, dst_gfx as u32, 0, 0x57]);
    submit(&g, "blitter", hwsp_gfx, &[&ctx]);
    g.gpu.run(100);
    assert_eq!(g.read(dst_phys), 0);
    g.gpu.write32(mi_mode, 1 << 24);
    g.gpu.run(100);
    assert_eq!(g.read(dst_phys), 0x57);
}

/// A ring whose commands run past its end continue at its start: a store
/// split across the wrap, then one after it; RING_HEAD's wrap count counts it.
#[test]
fn commands_wrap_around_the_ring() {
    let mut g = Dg2::new();
    let (hwsp_gfx, _) = g.page();
    let (dst_gfx, dst_phys) = g.page();
    let mut ctx = Ctx::new(&mut g, "render", 19, 0);
    // Head and tail start 8 bytes before the end of the one-page ring.
    let start = 4096 - 8;
    g.write(ctx.state_phys + 5 * 4, &[start]);
    ctx.tail = start;
    let (a, b) = ([SDI_GGTT, dst_gfx as u32], [0, 0xa1]);
    g.write(ctx.ring_phys + u64::from(start), &a);
    g.write(ctx.ring_phys, &b);
    g.write(ctx.ring_phys + 8, &[SDI_GGTT, dst_gfx as u32 + 4, 0, 0xb2]);
    g.write(ctx.state_phys + 7 * 4, &[24]);
    submit(&g, "render", hwsp_gfx, &[&ctx]);
    g.gpu.run(100);
    assert_eq!((g.read(dst_phys), g.read(dst_phys + 4)), (0xa1, 0xb2));
    // Saved head: offset 24, wrap count 1 (bits 31:21).
    assert_eq!(g.read(ctx.state_phys + 5 * 4), 1 << 21 | 24);
}

/// A context image whose BB_PER_CTX_PTR is valid asks for a workaround batch
/// on restore, which the model does not run: refused by name, not ignored.
#[test]
fn workaround_batches_in_an_image_are_refused() {
    let mut g = Dg2::new();
    let (hwsp_gfx, _) = g.page();
    let mut ctx = Ctx::new(&mut g, "render", 20, 0);
    ctx.emit(&g, &[MI_NOOP, MI_NOOP]);
    // Replace the BB_ADDR pair (dwords 14/15) by RING_BB_PER_CTX_PTR, valid.
    g.write(
        ctx.state_phys + 14 * 4,
        &[base("render") + 0x1c0, 0x4000 | 1],
    );
    submit(&g, "render", hwsp_gfx, &[&ctx]);
    g.gpu.run(100);
    assert_eq!(
        g.gpu.unmodelled(0),
        Some("a context's workaround batches (BB_PER_CTX_PTR, INDIRECT_CTX)")
    );
}
