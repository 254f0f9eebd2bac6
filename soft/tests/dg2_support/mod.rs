//! What the DG2 model's tests share: sparse system memory, the GGTT and a
//! four-level PPGTT built in it, and a batch submitted through an engine's
//! execlist in a fresh context (the context image as i915's gen12 register
//! state). Each test file keeps its own buffers and commands on top
//! (`Dg2Base` is reached through its `Dg2`'s `Deref`).

// Each test binary uses part of this.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::Mutex;

use baregpu_hal::bits;
use baregpu_hal::{BusError, Generation, MemoryBus, Mmio};
use baregpu_soft::SoftGpu;

/// Sparse system memory, page by page.
#[derive(Default)]
pub struct Ram(Mutex<BTreeMap<u64, Box<[u8; 4096]>>>);

impl MemoryBus for Ram {
    fn read(&self, phys: u64, buf: &mut [u8]) -> Result<(), BusError> {
        let pages = self.0.lock().unwrap();
        let mut done = 0;
        while done < buf.len() {
            let at = phys + done as u64;
            let off = (at & 0xfff) as usize;
            let n = (4096 - off).min(buf.len() - done);
            match pages.get(&(at >> 12)) {
                Some(p) => buf[done..done + n].copy_from_slice(&p[off..off + n]),
                None => buf[done..done + n].fill(0),
            }
            done += n;
        }
        Ok(())
    }
    fn write(&self, phys: u64, data: &[u8]) -> Result<(), BusError> {
        let mut pages = self.0.lock().unwrap();
        let mut done = 0;
        while done < data.len() {
            let at = phys + done as u64;
            let off = (at & 0xfff) as usize;
            let n = (4096 - off).min(data.len() - done);
            let p = pages.entry(at >> 12).or_insert_with(|| Box::new([0; 4096]));
            p[off..off + n].copy_from_slice(&data[done..done + n]);
            done += n;
        }
        Ok(())
    }
}

pub fn tables() -> &'static baregpu_hal::reflect::GenTables {
    Generation::Gen12_5.tables()
}

pub fn reg(name: &str) -> u32 {
    tables().register(name).unwrap().offset
}

/// The engines' indices in the model (the layout's order).
pub const RENDER: usize = 0;
pub const BLITTER: usize = 1;
pub const COMPUTE: usize = 2;
pub const GGTT: u32 = 8 << 20;
pub const MI_BATCH_BUFFER_END: u32 = 0x0a << 23;
/// MI_BATCH_BUFFER_START, 3 DWords, bit 8 the PPGTT.
pub const BB_START_PPGTT: u32 = 0x31 << 23 | 1 | 1 << 8;
/// PPGTT entry bit 11: a local-memory page (i915 GEN12_PPGTT_PTE_LM).
pub const PTE_LM: u64 = 1 << 11;

/// Where the kernels live: Instruction Base Address and the kernels' page.
pub const INSTRUCTION_BASE: u64 = 0x4000_0000;

/// A command of the gen12.5 tables with the named fields set (fixed fields
/// and the length from the table).
pub fn pack(name: &str, set: &[(&str, u64)]) -> Vec<u32> {
    let info = tables().command(name).unwrap();
    let len = info.length_from_header(0).max(
        info.fields
            .iter()
            .map(|f| f.end as usize / 32 + 1)
            .max()
            .unwrap(),
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
        assert!(
            info.fields.iter().any(|f| f.name == *n),
            "{name} has no {n}"
        );
    }
    dw
}

/// The model over its memory, with allocators of physical pages, GGTT
/// and PPGTT addresses.
pub struct Dg2Base {
    pub ram: &'static Ram,
    pub gpu: SoftGpu<&'static Ram>,
    pub next_phys: u64,
    pub next_gfx: u64,
    pub next_va: u64,
    pub pml4: u64,
}

impl Dg2Base {
    pub fn new() -> Self {
        let ram: &'static Ram = Box::leak(Box::default());
        let gpu = SoftGpu::new(Generation::Gen12_5, ram).expect("DG2 model");
        let mut g = Self {
            ram,
            gpu,
            next_phys: 0x1_0000_0000,
            next_gfx: 0x10_0000,
            next_va: 0x7f00_0000_0000,
            pml4: 0,
        };
        g.pml4 = g.phys(1);
        g
    }

    pub fn phys(&mut self, pages: u64) -> u64 {
        let p = self.next_phys;
        self.next_phys += pages * 4096;
        p
    }

    pub fn w32(&self, phys: u64, v: &[u32]) {
        for (k, d) in v.iter().enumerate() {
            self.ram.write_u32(phys + 4 * k as u64, *d).unwrap();
        }
    }

    pub fn r32(&self, phys: u64) -> u32 {
        self.ram.read_u32(phys).unwrap()
    }

    pub fn r64(&self, phys: u64) -> u64 {
        u64::from(self.r32(phys)) | u64::from(self.r32(phys + 4)) << 32
    }

    /// A system page mapped in the GGTT: (graphics, physical).
    pub fn ggtt_page(&mut self) -> (u64, u64) {
        let (gfx, phys) = (self.next_gfx, self.phys(1));
        self.next_gfx += 4096;
        let at = GGTT + (gfx >> 12) as u32 * 8;
        self.gpu.write32(at, phys as u32 | 1);
        self.gpu.write32(at + 4, (phys >> 32) as u32);
        (gfx, phys)
    }

    /// Maps `va` to `page` (a leaf entry with `bits`) in the four-level PPGTT.
    pub fn map(&mut self, va: u64, page: u64, bits: u64) {
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
        let leaf = page | bits | 3;
        self.w32(
            table + 8 * ((va >> 12) & 0x1ff),
            &[leaf as u32, (leaf >> 32) as u32],
        );
    }

    /// Runs the PPGTT batch at `batch` on engine `engine` in a fresh
    /// context whose ring starts it.
    pub fn submit(&mut self, engine: usize, batch: u64) {
        let name = ["render", "blitter", "compute"][engine];
        let b = tables().engine_base(name).unwrap();
        let (hwsp, _) = self.ggtt_page();
        let (lrca, _) = self.ggtt_page();
        let (_, state) = self.ggtt_page();
        let (ring_gfx, ring) = self.ggtt_page();
        self.w32(
            ring,
            &[BB_START_PPGTT, batch as u32, (batch >> 32) as u32, 0],
        );
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
        let desc = lrca | 1 | 3 << 3 | 1 << 8 | 7 << 39;
        if engine == COMPUTE {
            // GEN12_RCU_MODE CCS enable, as the driver sets it before a
            // compute submission.
            self.gpu.write32(reg("GEN12_RCU_MODE"), 1 << 16 | 1);
        }
        let sq = b + reg("RING_EXECLIST_SQ_CONTENTS");
        self.gpu.write32(sq, desc as u32);
        self.gpu.write32(sq + 4, (desc >> 32) as u32);
        self.gpu.write32(sq + 8, 0);
        self.gpu.write32(sq + 12, 0);
        self.gpu.write32(b + reg("RING_EXECLIST_CONTROL"), 1);
        self.gpu.run(1000);
    }

    /// `bytes` at a new PPGTT address: (va, phys).
    pub fn buffer(&mut self, bytes: &[u8]) -> (u64, u64) {
        let pages = bytes.len().div_ceil(4096).max(1) as u64;
        let va = self.next_va;
        self.next_va += (pages + 1) * 4096;
        let phys = self.phys(pages);
        for p in 0..pages {
            self.map(va + p * 4096, phys + p * 4096, 0);
        }
        self.ram.write(phys, bytes).unwrap();
        (va, phys)
    }

    /// A kernel at `offset` from the instruction base (mapped on first use).
    pub fn kernel(&mut self, offset: u64, code: &[u8]) {
        let page = INSTRUCTION_BASE + (offset & !0xfff);
        let phys = self.phys(code.len().div_ceil(4096) as u64 + 1);
        for p in 0..=(code.len() as u64 / 4096) {
            self.map(page + p * 4096, phys + p * 4096, 0);
        }
        self.ram.write(phys + (offset & 0xfff), code).unwrap();
    }

    /// Runs `cmds` as a PPGTT batch on engine `engine` in a fresh context.
    pub fn run(&mut self, engine: usize, cmds: &[u32]) {
        let mut words = cmds.to_vec();
        words.push(MI_BATCH_BUFFER_END);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let (batch, _) = self.buffer(&bytes);
        self.submit(engine, batch);
    }

    pub fn errors(&self) -> u64 {
        self.gpu.stats().errors
    }
}
