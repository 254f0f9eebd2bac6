//! The Gen12.5 (DG2, Xe-HPG) device model: a GPU that takes work through
//! execlists and logical ring contexts, addresses memory through a 64-bit
//! GGTT and per-context four-level PPGTTs, and has memory of its own.
//!
//! What is modelled:
//! - the MMIO BAR: 16 MiB, registers below 8 MiB and the GGTT from 8 MiB
//!   (Linux i915 gt/intel_ggtt.c gen6_gttmmadr_size / gen6_gttadr_offset:
//!   "GEN8: GTTMMADR size is 16MB and GTTADR starts at 8MB offset"; Xe
//!   xe_ggtt.c maps the GSM at regs + SZ_8M), 8 MiB of 64-bit entries
//!   (GMCH_CTRL GGMS = 3, i915 gen8_get_total_gtt_size) in [`memory`];
//! - device-local memory behind BAR2 ([`Device::read_local`]), reached by the
//!   GPU through entries with their local-memory bit;
//! - the engines RCS0, BCS0, CCS0, VCS0 and VECS0 at the bases of the tables
//!   (hal gen12.5 generation.toml), each taking contexts through its
//!   execlist submit queue ([`execlist`]) and executing the MI commands of
//!   [`mi`] from its ring and batches, the blitter engine also the blits of
//!   [`blit`]; the video engines run MI commands only;
//! - engine errors (RING_EIR/ESR/IPEHR/IPEIR/ACTHD/BBADDR, the CS error
//!   interrupt), page faults (GEN12_RING_FAULT_REG and the fault TLB data
//!   registers), engine reset through GEN6_GDRST (with the RING_RESET_CTL
//!   handshake), forcewake acknowledges, the interrupt tree of [`irq`].
//!
//! Not modelled (refused or absent, see the report in `mi` and `execlist`):
//! the legacy ring-buffer mode (a RING_TAIL write only stores), MSI, the
//! display, the 3D pipeline.

mod arith;
mod blit;
mod compute;
mod execlist;
mod halt;
mod irq;
pub(crate) mod memory;
pub use compute::ComputeFunctions;
mod mi;
mod predicate;
mod regs;

use alloc::vec::Vec;

use baregpu_hal::MemoryBus;
use baregpu_hal::reflect::GenTables;

use crate::SoftGpuError;
use crate::cs::Stats;
use crate::mem::bus::DeviceBus;
use crate::regfile::RegFile;
use execlist::EngineState;
use irq::Interrupts;
use memory::{Ggtt, LocalMemory};
use regs::{EngineRegs, GtRegs};

/// Size of the MMIO BAR (GTTMMADR) and where the GGTT starts in it.
pub const BAR_SIZE: u32 = 16 << 20;
pub const GGTT_OFFSET: u32 = 8 << 20;
/// GGTT entries: 8 MiB of 8-byte entries, 4 GiB of graphics addresses.
pub const GGTT_ENTRIES: u32 = (8 << 20) / 8;
/// Device-local memory the model has: 256 MiB (the smallest DG2 part has
/// 4 GiB; the model allocates pages only as they are written, the size
/// bounds what tests may address).
pub const LOCAL_MEMORY_BYTES: u64 = 256 << 20;
/// The PCI device ID the model reports: DG2 G10 (Arc A770), 0x56a0 in the
/// driver's device table (src/probe/devices.rs).
const DEVICE_ID: u32 = 0x56a0;
/// GMCH_CTRL (configuration word 0x50) bits 7:6 GGMS: 3 = 8 MiB of entries
/// (i915 gt/intel_ggtt.c gen8_get_total_gtt_size, BDW_GMCH_GGMS_SHIFT 6).
const GMCH_CTRL: usize = 0x50 / 4;
/// GU_CNTL with LMEM_INIT (bit 7) set: the model's local memory is ready at
/// power-on, as a card's is once its firmware has trained it (Linux
/// i915_reg.h `GU_CNTL` 0x101010, `LMEM_INIT`; the driver checks it).
const GU_CNTL: u32 = 0x10_1010;
const GU_CNTL_LMEM_INIT: u32 = 1 << 7;
const GGMS_8MIB: u32 = 3 << 6;

/// RING_MI_MODE bit 8 STOP_RING (bit 9 MODE_IDLE reads back when stopped).
const STOP_RING: u32 = 1 << 8;
/// RING_MODE bit 3: execlist submission (hal RING_MODE_GEN7 gfx_disable_legacy_mode).
const DISABLE_LEGACY_MODE: u32 = 1 << 3;

/// Commands an engine runs when the driver submits to it, and per MMIO read.
const RUN_ON_SUBMIT: u32 = 4096;
const RUN_ON_POLL: u32 = 256;

/// Engine class values (i915 gt/intel_engine_types.h; the identity
/// register's engine_class enum in the tables).
const RENDER_CLASS: u32 = 0;
const VIDEO_DECODE_CLASS: u32 = 1;
const VIDEO_ENHANCEMENT_CLASS: u32 = 2;
const COPY_ENGINE_CLASS: u32 = 3;
const COMPUTE_CLASS: u32 = 5;

/// Where an engine's interrupts go: its bank and bit of GEN11_GT_INTR_DW,
/// its half of a class enable register and of a mask register.
#[derive(Clone, Copy, Debug)]
pub struct EngineIrq {
    pub bank: usize,
    pub bit: u32,
    pub enable: u32,
    pub enable_shift: u32,
    pub mask: u32,
    pub mask_shift: u32,
}

/// One command streamer.
#[derive(Clone, Copy, Debug)]
pub struct Engine12 {
    /// Its name in the tables.
    pub name: &'static str,
    pub base: u32,
    pub class: u32,
    pub instance: u32,
    pub irq: EngineIrq,
    /// Its bit of GEN6_GDRST.
    pub reset_bit: u32,
    /// RING_IMR, absolute.
    pub imr: u32,
}

/// One engine as the model lays it out.
struct EngineSpec {
    name: &'static str,
    class: u32,
    /// Bank and bit of GEN11_GT_INTR_DW.
    bank: usize,
    bit: u32,
    /// The class enable register and the engine's half of it.
    enable: &'static str,
    enable_shift: u32,
    /// The mask register whose upper half is the engine's.
    mask: &'static str,
    reset_bit: u32,
}

/// The engines. Sources: i915 gt/intel_gt_regs.h (GEN11_RCS0 0, GEN11_BCS
/// 15, GEN12_CCS0 4 in DW0; GEN11_VCS(0) 0, GEN11_VECS(0) 31 in DW1; the
/// *_INTR_ENABLE and *_INTR_MASK pairs with the first-named engine in
/// 31:16); GEN11_GRDOM_RENDER 1 (with the CCS engines), GEN11_GRDOM_BLT 2,
/// GEN11_GRDOM_MEDIA 5, GEN11_GRDOM_VECS 13.
const ENGINES: [EngineSpec; 5] = [
    EngineSpec {
        name: "render",
        class: RENDER_CLASS,
        bank: 0,
        bit: 0,
        enable: "GEN11_RENDER_COPY_INTR_ENABLE",
        enable_shift: 16,
        mask: "GEN11_RCS0_RSVD_INTR_MASK",
        reset_bit: 1,
    },
    EngineSpec {
        name: "blitter",
        class: COPY_ENGINE_CLASS,
        bank: 0,
        bit: 15,
        enable: "GEN11_RENDER_COPY_INTR_ENABLE",
        enable_shift: 0,
        mask: "GEN11_BCS_RSVD_INTR_MASK",
        reset_bit: 2,
    },
    EngineSpec {
        name: "compute",
        class: COMPUTE_CLASS,
        bank: 0,
        bit: 4,
        enable: "GEN12_CCS_RSVD_INTR_ENABLE",
        enable_shift: 16,
        mask: "GEN12_CCS0_CCS1_INTR_MASK",
        reset_bit: 1,
    },
    EngineSpec {
        name: "video",
        class: VIDEO_DECODE_CLASS,
        bank: 1,
        bit: 0,
        enable: "GEN11_VCS_VECS_INTR_ENABLE",
        enable_shift: 16,
        mask: "GEN11_VCS0_VCS1_INTR_MASK",
        reset_bit: 5,
    },
    EngineSpec {
        name: "video_enhancement",
        class: VIDEO_ENHANCEMENT_CLASS,
        bank: 1,
        bit: 31,
        enable: "GEN11_VCS_VECS_INTR_ENABLE",
        enable_shift: 0,
        mask: "GEN11_VECS0_VECS1_INTR_MASK",
        reset_bit: 13,
    },
];

/// All engines' masks share the upper half (the engine's own vector).
const MASK_SHIFT: u32 = 16;

fn engines(t: &GenTables, er: &EngineRegs) -> Result<Vec<Engine12>, &'static str> {
    let reg = |n: &'static str| t.register(n).map(|r| r.offset).ok_or(n);
    ENGINES
        .iter()
        .map(|s| {
            let base = t.engine_base(s.name).ok_or(s.name)?;
            Ok(Engine12 {
                name: s.name,
                base,
                class: s.class,
                instance: 0,
                irq: EngineIrq {
                    bank: s.bank,
                    bit: s.bit,
                    enable: reg(s.enable)?,
                    enable_shift: s.enable_shift,
                    mask: reg(s.mask)?,
                    mask_shift: MASK_SHIFT,
                },
                reset_bit: s.reset_bit,
                imr: base + er.imr,
            })
        })
        .collect()
}

pub struct Device<B: MemoryBus> {
    regs: RegFile,
    ggtt: Ggtt,
    local: LocalMemory,
    bus: DeviceBus<B>,
    engines: Vec<Engine12>,
    state: Vec<EngineState>,
    er: EngineRegs,
    gt: GtRegs,
    irq: Interrupts,
    commands: Vec<mi::CommandSet>,
    timestamp: u64,
    stats: Stats,
    config: [u32; 64],
    /// The interrupt line as MSI delivery last saw it, and the messages sent.
    msi: crate::msi::Messages,
    /// The shared functions compute threads reach, and the walkers' budget.
    compute_sf: Option<alloc::boxed::Box<dyn ComputeFunctions + Send>>,
    compute_budget: u64,
    /// Walker threads check SWSB dependencies (`set_swsb_check`).
    swsb_check: bool,
    kernels: compute::KernelCache,
    /// Each context's compute state, by engine and LRCA.
    pipelines: alloc::collections::BTreeMap<(usize, u64), compute::Pipeline>,
}

impl<B: MemoryBus> Device<B> {
    pub fn new(bus: B) -> Result<Self, SoftGpuError> {
        let tables = baregpu_hal::Generation::Gen12_5.tables();
        // The hal built without its Gen12.5 tables (feature `gen12_5` off).
        if tables.registers.is_empty() {
            return Err(SoftGpuError::Unsupported(baregpu_hal::Generation::Gen12_5));
        }
        let missing = |name: &'static str| SoftGpuError::MissingField {
            command: "gen12.5 registers",
            field: name,
        };
        let er = EngineRegs::resolve(tables).map_err(missing)?;
        let gt = GtRegs::resolve(tables).map_err(missing)?;
        let engines = engines(tables, &er).map_err(missing)?;
        let commands = engines
            .iter()
            .map(|e| mi::CommandSet::new(tables, e.name))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|m| SoftGpuError::MissingField {
                command: m.command,
                field: m.field,
            })?;
        let mut config = [0u32; 64];
        config[0] = (DEVICE_ID << 16) | 0x8086;
        // Memory space and bus master on, as the firmware leaves them; class
        // 03h subclass 80h (display controller, other: DG2 is not VGA).
        config[1] = 0x6;
        config[2] = 0x0380_0000;
        config[GMCH_CTRL] = GGMS_8MIB;
        crate::msi::install(&mut config);
        let mut device = Self {
            regs: RegFile::new(tables),
            ggtt: Ggtt::new(GGTT_ENTRIES),
            local: LocalMemory::new(LOCAL_MEMORY_BYTES),
            bus: DeviceBus::new(bus, true),
            state: engines.iter().map(|_| EngineState::default()).collect(),
            irq: Interrupts::new(engines.len()),
            engines,
            er,
            gt,
            commands,
            timestamp: 0,
            stats: Stats::default(),
            config,
            msi: crate::msi::Messages::default(),
            compute_sf: None,
            compute_budget: compute::DEFAULT_BUDGET,
            swsb_check: true,
            kernels: compute::KernelCache::default(),
            pipelines: alloc::collections::BTreeMap::new(),
        };
        device.regs.set(GU_CNTL, GU_CNTL_LMEM_INIT);
        for i in 0..device.engines.len() {
            device.reset_engine(i);
        }
        device.stats.resets = 0;
        Ok(device)
    }

    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// What engine `i` was stopped on as not modelled.
    pub fn unmodelled(&self, i: usize) -> Option<&'static str> {
        match self.state.get(i)?.halted {
            Some(execlist::Halt::Unmodelled { name, .. }) => Some(name),
            _ => None,
        }
    }

    /// Device-local memory (the BAR2 aperture).
    pub fn local_memory_size(&self) -> u64 {
        self.local.size()
    }

    pub fn read_local(&self, offset: u64, buf: &mut [u8]) -> bool {
        self.local.read(offset, buf)
    }

    pub fn write_local(&mut self, offset: u64, data: &[u8]) -> bool {
        self.local.write(offset, data)
    }

    /// Whether the INTx line is asserted: an interrupt is pending, MSI is
    /// off and the command register's Interrupt Disable is clear.
    pub fn intx_asserted(&self) -> bool {
        self.irq.line(&self.regs, &self.gt.irq)
            && !crate::msi::enabled(&self.config)
            && self.config[1] & baregpu_hal::pci::COMMAND_INTERRUPT_DISABLE == 0
    }

    /// Sends an MSI on the rising edge of the interrupt line (`crate::msi`).
    fn deliver(&mut self) {
        let line = self.irq.line(&self.regs, &self.gt.irq);
        self.msi.update(line, &self.config, &self.bus);
    }

    /// MSI messages sent so far.
    pub fn msis(&self) -> u64 {
        self.msi.sent
    }

    pub fn config_read(&self, offset: u16) -> u32 {
        let value = self.config.get(offset as usize / 4).copied().unwrap_or(0);
        // The status register's Interrupt Status bit (PCI 3.0, 6.2.3) shows
        // a pending interrupt, whatever Interrupt Disable says.
        if offset & !3 == baregpu_hal::pci::COMMAND && self.irq.line(&self.regs, &self.gt.irq) {
            return value | baregpu_hal::pci::STATUS_INTERRUPT;
        }
        value
    }

    /// Configuration writes: the identity dwords and GMCH_CTRL are
    /// read-only; the command register's bus master bit gates memory access.
    pub fn config_write(&mut self, offset: u16, value: u32) {
        let index = offset as usize / 4;
        if index == 0 || index == 2 || index == GMCH_CTRL || index >= self.config.len() {
            return;
        }
        if index == 1 {
            self.bus
                .set_master(value & baregpu_hal::pci::COMMAND_BUS_MASTER != 0);
            self.config[1] = (self.config[1] & 0xffff_0000) | (value & 0xffff);
        } else {
            self.config[index] = crate::msi::write(&self.config, index, value).unwrap_or(value);
        }
        self.deliver();
    }

    /// Runs every engine for at most `budget` commands.
    pub fn run(&mut self, budget: u32) {
        for i in 0..self.engines.len() {
            self.run_engine(i, budget);
        }
        self.deliver();
    }

    fn in_ggtt(offset: u32) -> bool {
        (GGTT_OFFSET..GGTT_OFFSET + GGTT_ENTRIES * 8).contains(&offset)
    }

    /// The engine whose 4 KiB register page holds `offset`, and the offset in it.
    fn engine_at(&self, offset: u32) -> Option<(usize, u32)> {
        self.engines
            .iter()
            .position(|e| (e.base..e.base + 0x1000).contains(&offset))
            .map(|i| (i, offset - self.engines[i].base))
    }

    pub fn mmio_read(&mut self, offset: u32) -> u32 {
        if !Self::in_ggtt(offset) {
            self.run(RUN_ON_POLL);
        }
        self.read_register(offset)
    }

    /// A register read without running the engines (MI_STORE_REGISTER_MEM too).
    fn read_register(&self, offset: u32) -> u32 {
        if Self::in_ggtt(offset) {
            return self.ggtt.read_dword((offset - GGTT_OFFSET) / 4);
        }
        if let Some(v) = self.irq.read(&self.regs, &self.gt.irq, offset) {
            return v;
        }
        if let Some((i, rel)) = self.engine_at(offset) {
            let er = &self.er;
            match rel {
                r if r == er.timestamp => return self.timestamp as u32,
                r if r == er.timestamp + 4 => return (self.timestamp >> 32) as u32,
                // The engine is ready to reset as soon as it is asked
                // (RESET_CTL_READY_TO_RESET follows RESET_CTL_REQUEST_RESET).
                r if r == er.reset_ctl => {
                    let v = self.regs.read(offset);
                    return v | (v & 1) << 1;
                }
                baregpu_hal::mmio::SOFT_UNMODELLED_COMMAND => return self.state[i].unmodelled,
                // STOP_RING takes effect between two commands, which is where
                // the model always is: MODE_IDLE follows it (i915
                // intel_engine_cs.c __intel_engine_stop_cs waits for it).
                r if r == er.mi_mode => {
                    let v = self.regs.read(offset);
                    return v | (v & STOP_RING) << 1;
                }
                _ => {}
            }
        }
        if offset == self.gt.gdrst {
            // Resets complete at once: the domain bits read back clear.
            return 0;
        }
        // Forcewake: the acknowledge follows the (masked) request.
        if let Some(&(req, _)) = self.gt.forcewake.iter().find(|(_, ack)| *ack == offset) {
            return self.regs.read(req);
        }
        self.regs.read(offset)
    }

    pub fn mmio_write(&mut self, offset: u32, value: u32) {
        self.write_register(offset, value);
        self.deliver();
    }

    fn write_register(&mut self, offset: u32, value: u32) {
        if Self::in_ggtt(offset) {
            self.ggtt.write_dword((offset - GGTT_OFFSET) / 4, value);
            return;
        }
        if self.irq.write(&self.engines, &self.gt.irq, offset, value) {
            return;
        }
        if offset == self.gt.gdrst {
            self.gdrst(value);
            return;
        }
        if let Some((i, rel)) = self.engine_at(offset) {
            match rel {
                baregpu_hal::mmio::SOFT_UNMODELLED_COMMAND => return,
                // A tail beyond the head of a valid ring outside execlist
                // mode is ring-buffer submission: not modelled.
                r if r == self.er.tail && self.legacy_submission(i, value) => {
                    self.regs.write(offset, value);
                    return self.halt(
                        i,
                        execlist::Halt::Unmodelled {
                            dw0: 0,
                            name: "ring buffer submission (RING_MODE Disable Legacy Mode clear)",
                        },
                    );
                }
                r if r == self.er.execlist_control => {
                    // EL_CTRL_LOAD: submit the queue's contents.
                    if value & 1 != 0 {
                        self.submit(i);
                        self.run_engine(i, RUN_ON_SUBMIT);
                    }
                    return;
                }
                _ => {}
            }
        }
        self.regs.write(offset, value);
    }

    /// Whether writing `tail` to engine `i`'s RING_TAIL would start its ring
    /// in legacy mode: RING_MODE bit 3 (GEN11_GFX_DISABLE_LEGACY_MODE) clear,
    /// the ring valid, the tail away from the head.
    fn legacy_submission(&self, i: usize, tail: u32) -> bool {
        let base = self.engines[i].base;
        let execlists = self.regs.get(base + self.er.ring_mode) & DISABLE_LEGACY_MODE != 0;
        let valid = self.regs.get(base + self.er.ctl) & 1 == 1;
        let head = self.regs.get(base + self.er.head) & 0x001f_fffc;
        !execlists && valid && tail & 0x001f_fff8 != head
    }

    /// GEN6_GDRST: bit 0 resets every engine, the others their domain.
    fn gdrst(&mut self, bits: u32) {
        for i in 0..self.engines.len() {
            if bits & 1 != 0 || bits >> self.engines[i].reset_bit & 1 != 0 {
                self.reset_engine(i);
            }
        }
        if bits & 1 != 0 {
            self.irq.reset();
        }
    }

    /// An engine back to its reset state: its register page at reset
    /// values, no context, the CSB write pointer at the last entry so that
    /// the first event lands in entry 0 (i915 intel_execlists_submission.c
    /// reset_csb_pointers: "After a reset, the HW starts writing into CSB
    /// entry [0]").
    fn reset_engine(&mut self, i: usize) {
        let base = self.engines[i].base;
        self.state[i] = EngineState::default();
        self.regs.reset_range(base..base + 0x1000);
        let ptr = base + self.er.csb_ptr;
        let last = execlist::CSB_ENTRIES - 1;
        self.regs.set(ptr, (last << 8) | last);
        self.stats.resets += 1;
    }
}
