//! The Gen12.5 MI commands the model executes, with the layouts of the
//! gen12.5 tables (hal/tables/gen12.5/mi.toml, compute.toml PIPE_CONTROL):
//! 48-bit addresses over two dwords, so the dword counts differ from the
//! older generations' while the meanings are the same as in `crate::cs::mi`.
//!
//! Executed: MI_NOOP (NOPID write), MI_BATCH_BUFFER_START (48-bit, GGTT or
//! PPGTT; chaining, and second-level batches that return on
//! MI_BATCH_BUFFER_END), MI_BATCH_BUFFER_END, MI_STORE_DATA_IMM (every data
//! dword), MI_STORE_DATA_INDEX (the global or per-process status page),
//! MI_LOAD_REGISTER_IMM (with CS-relative offsets and the all-bytes-disabled
//! no-op), MI_STORE_REGISTER_MEM, MI_LOAD_REGISTER_MEM,
//! MI_LOAD_REGISTER_REG, MI_USER_INTERRUPT, MI_FLUSH_DW and PIPE_CONTROL
//! post-sync writes (immediate data, timestamp) and notify, MI_COPY_MEM_MEM,
//! MI_CONDITIONAL_BATCH_BUFFER_END (the compare operations, not the
//! semaphore-register or mask modes), MI_SEMAPHORE_WAIT in polling mode
//! (memory or register; the engine waits with RING_CTL bit 10 set),
//! MI_ATOMIC on dwords and qwords (the integer operations), MI_MATH (the ALU
//! on CS_GPR0-15, semantics as Mesa's mi_builder.h uses them), MI_PREDICATE
//! and MI_SET_PREDICATE with the commands they drop (those two in
//! `predicate`, MI_ATOMIC and MI_MATH in `arith`).
//! The compute commands (PIPELINE_SELECT, STATE_BASE_ADDRESS,
//! STATE_COMPUTE_MODE, CFE_STATE, 3DSTATE_BINDING_TABLE_POOL_ALLOC,
//! COMPUTE_WALKER) on the render and compute engines in `super::compute`.
//! The blitter engine's XY_FAST_COPY_BLT, XY_BLOCK_COPY_BLT, XY_FAST_COLOR_BLT,
//! XY_COLOR_BLT and XY_SRC_COPY_BLT are executed in `super::blit`.
//! MI_ARB_CHECK and MI_ARB_ON_OFF have no effect: the model never preempts in
//! the middle of a ring.
//!
//! Refused (the engine stops with an instruction error naming the command,
//! `SOFT_UNMODELLED_COMMAND` showing its header): every other command of the
//! tables (MI_SEMAPHORE_SIGNAL, MI_UPDATE_GTT, the 3D, compute and video
//! commands ...) unless predication drops it, and forms of the executed ones
//! the model does not do (MI_SET_PREDICATE on WPARID, End Context, nested
//! batches, MMIO remapping, PS depth count, an LRI post-sync, a semaphore
//! wait in signal mode that does not pass, MI_ATOMIC octword, float and
//! compare-write operations, or arithmetic towards system memory, which the
//! hardware lacks). A header no table knows is an instruction error.

use alloc::vec::Vec;

use baregpu_hal::MemoryBus;
use baregpu_hal::reflect::{CommandInfo, GenTables};

use super::Device;
use super::execlist::{Batch, NOTIFY_BIT, USER_BIT, position};
use super::halt::Halt;
use super::memory::Space;
use super::memory::VA_MASK;
use crate::command::{Cmd, F, field};

/// What the model does with a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Noop,
    BatchStart,
    BatchEnd,
    StoreDataImm,
    StoreDataIndex,
    LoadRegisterImm,
    StoreRegisterMem,
    LoadRegisterMem,
    LoadRegisterReg,
    UserInterrupt,
    FlushDw,
    PipeControl,
    CopyMemMem,
    ConditionalBatchEnd,
    SemaphoreWait,
    Atomic,
    Math,
    SetPredicate,
    Predicate,
    NoEffect,
    /// A blitter command (`super::blit`).
    Blit(super::blit::Kind),
    /// A compute command (`super::compute`).
    Compute(super::compute::Kind),
}

fn op_of(name: &str) -> Option<Op> {
    Some(match name {
        "MI_NOOP" => Op::Noop,
        "MI_BATCH_BUFFER_START" => Op::BatchStart,
        "MI_BATCH_BUFFER_END" => Op::BatchEnd,
        "MI_STORE_DATA_IMM" => Op::StoreDataImm,
        "MI_STORE_DATA_INDEX" => Op::StoreDataIndex,
        "MI_LOAD_REGISTER_IMM" => Op::LoadRegisterImm,
        "MI_STORE_REGISTER_MEM" => Op::StoreRegisterMem,
        "MI_LOAD_REGISTER_MEM" => Op::LoadRegisterMem,
        "MI_LOAD_REGISTER_REG" => Op::LoadRegisterReg,
        "MI_USER_INTERRUPT" => Op::UserInterrupt,
        "MI_FLUSH_DW" => Op::FlushDw,
        "PIPE_CONTROL" => Op::PipeControl,
        "MI_COPY_MEM_MEM" => Op::CopyMemMem,
        "MI_CONDITIONAL_BATCH_BUFFER_END" => Op::ConditionalBatchEnd,
        "MI_SEMAPHORE_WAIT" => Op::SemaphoreWait,
        "MI_ATOMIC" => Op::Atomic,
        "MI_MATH" => Op::Math,
        "MI_SET_PREDICATE" => Op::SetPredicate,
        "MI_PREDICATE" => Op::Predicate,
        // Arbitration points: no preemption inside a ring in the model.
        "MI_ARB_CHECK" | "MI_ARB_ON_OFF" => Op::NoEffect,
        _ => {
            return super::blit::of(name)
                .map(Op::Blit)
                .or_else(|| super::compute::of(name).map(Op::Compute));
        }
    })
}

/// The fields each operation reads without a fallback.
fn required(op: Op) -> &'static [F] {
    match op {
        Op::Noop => &[
            F::IdentificationNumberRegisterWriteEnable,
            F::IdentificationNumber,
        ],
        Op::BatchStart => &[F::BatchBufferStartAddress, F::AddressSpaceIndicator],
        Op::StoreDataImm => &[F::Address, F::UseGlobalGtt],
        Op::StoreDataIndex => &[F::Offset, F::UsePerProcessHardwareStatusPage],
        Op::StoreRegisterMem | Op::LoadRegisterMem => {
            &[F::RegisterAddress, F::MemoryAddress, F::UseGlobalGtt]
        }
        Op::LoadRegisterReg => &[F::SourceRegisterAddress, F::DestinationRegisterAddress],
        Op::FlushDw => &[F::DestinationAddress, F::PostSyncOperation, F::NotifyEnable],
        Op::PipeControl => &[F::Address, F::PostSyncOperation, F::NotifyEnable],
        Op::CopyMemMem => &[
            F::DestinationMemoryAddress,
            F::SourceMemoryAddress,
            F::UseGlobalGttSource,
            F::UseGlobalGttDestination,
        ],
        Op::ConditionalBatchEnd => &[
            F::CompareDataDword,
            F::CompareAddress,
            F::CompareOperation,
            F::UseGlobalGtt,
        ],
        Op::SemaphoreWait => &[
            F::SemaphoreDataDword,
            F::SemaphoreAddress,
            F::CompareOperation,
            F::WaitMode,
            F::RegisterPollMode,
            F::UseGlobalGtt,
        ],
        Op::Atomic => &[
            F::MemoryAddress,
            F::AtomicOpcode,
            F::DataSize,
            F::InlineData,
            F::ReturnDataControl,
            F::UseGlobalGtt,
            F::Operand1DataDword0,
            F::Operand1DataDword1,
        ],
        Op::SetPredicate => &[F::PredicateEnable, F::PredicateEnableWparid],
        Op::Predicate => &[F::LoadOperation, F::CombineOperation, F::CompareOperation],
        Op::Blit(kind) => super::blit::required(kind),
        Op::BatchEnd
        | Op::LoadRegisterImm
        | Op::UserInterrupt
        | Op::Math
        | Op::NoEffect
        | Op::Compute(_) => &[],
    }
}

/// A field an operation needs is missing from a command of the tables.
#[derive(Clone, Copy, Debug)]
pub struct MissingField {
    pub command: &'static str,
    pub field: &'static str,
}

/// The commands one engine executes, with their fields resolved.
pub struct CommandSet {
    /// The engine's commands (`GenTables::identify`'s candidates, filtered
    /// by engine once: comparing engine names per header cost a third of
    /// the command streamer's time).
    known: Vec<&'static CommandInfo>,
    executed: Vec<(Cmd, Op)>,
}

impl CommandSet {
    pub fn new(tables: &'static GenTables, engine: &'static str) -> Result<Self, MissingField> {
        let mut executed = Vec::new();
        for info in tables.commands.iter().filter(|c| c.accepts(engine)) {
            let Some(op) = op_of(info.name) else {
                continue;
            };
            let cmd = Cmd::resolve(info);
            if let Some(f) = required(op).iter().find(|f| !cmd.has(**f)) {
                return Err(MissingField {
                    command: info.name,
                    field: f.name(),
                });
            }
            if let Op::Compute(kind) = op
                && let Some(field) = super::compute::missing(info, kind)
            {
                return Err(MissingField {
                    command: info.name,
                    field,
                });
            }
            if op == Op::LoadRegisterImm && cmd.register_pair.is_none() {
                return Err(MissingField {
                    command: info.name,
                    field: F::RegisterOffset.name(),
                });
            }
            executed.push((cmd, op));
        }
        let known = tables
            .commands
            .iter()
            .filter(|c| c.accepts(engine))
            .collect();
        Ok(Self { known, executed })
    }

    /// The command of header `dw0`: executed (`Ok`), or known but refused (`Err`).
    fn identify(&self, dw0: u32) -> Option<Result<&(Cmd, Op), &'static CommandInfo>> {
        // As `GenTables::identify(engine, dw0)`: the most specific header match.
        let info = *self
            .known
            .iter()
            .filter(|c| dw0 & c.header_mask == c.header_value)
            .max_by_key(|c| c.header_mask.count_ones())?;
        Some(
            self.executed
                .iter()
                .find(|(c, _)| core::ptr::eq(c.info, info))
                .ok_or(info),
        )
    }
}

/// Longest command the model reads: MI_STORE_DATA_IMM's 10-bit DWord
/// Length plus its bias. Anything longer is refused, never cut short.
const MAX_COMMAND: usize = 1025;
/// RING_CTL bit 10: the ring waits on a semaphore (hal RING_CTL semaphore_wait).
const SEMAPHORE_WAIT: u32 = 1 << 10;
/// MI_MODE bit 12: nested batch buffers (TGL_NESTED_BB_EN).
const NESTED_BB_ENABLE: u32 = 1 << 12;

impl<B: MemoryBus> Device<B> {
    /// Graphics address and space of dword `k` of the command stream.
    fn stream(&self, i: usize, k: u32) -> (u64, Space) {
        let base = self.engines[i].base;
        match self.state[i].batch {
            Some(b) => (b.addr + 4 * u64::from(k), b.space),
            None => {
                let start = u64::from(self.regs.get(base + self.er.start) & 0xffff_f000);
                let size = ring_size(self.regs.get(base + self.er.ctl));
                let head = self.regs.get(base + self.er.head) & 0x001f_fffc;
                (start + u64::from((head + 4 * k) % size), Space::Ggtt)
            }
        }
    }

    fn fetch(&mut self, i: usize, k: u32) -> Result<u32, Halt> {
        let (gfx, space) = self.stream(i, k);
        self.memory(i)
            .read_u32(space, gfx)
            .map_err(|f| Halt::of(f, 0))
    }

    /// Fetches, decodes and executes one command of engine `i`; `Ok(false)`:
    /// the engine waits at the command (a semaphore that has not passed).
    pub(super) fn step(&mut self, i: usize) -> Result<bool, Halt> {
        let base = self.engines[i].base;
        let batch = self.state[i].batch;
        let start = self.regs.get(base + self.er.start);
        let head = self.regs.get(base + self.er.head);
        let acthd = position(batch, start & 0xffff_f000, head & 0x001f_fffc);
        self.regs.set(base + self.er.acthd, acthd as u32);
        self.regs
            .set(base + self.er.acthd_udw, (acthd >> 32) as u32);
        let dw0 = self.fetch(i, 0)?;
        let commands = core::mem::take(&mut self.commands);
        let result = self.decode_and_execute(i, &commands[i], dw0);
        self.commands = commands;
        result
    }

    fn decode_and_execute(&mut self, i: usize, set: &CommandSet, dw0: u32) -> Result<bool, Halt> {
        let (cmd, op) = match set.identify(dw0) {
            None => return Err(Halt::InstructionError { dw0 }),
            // A command MI_SET_PREDICATE drops is skipped, modelled or not.
            Some(Err(info)) if self.state[i].set_predicate => {
                self.advance(i, info.length_from_header(dw0).max(1) as u32);
                return Ok(true);
            }
            Some(Err(info)) => {
                return Err(Halt::Unmodelled {
                    dw0,
                    name: info.name,
                });
            }
            Some(Ok((c, op))) => (c, *op),
        };
        let len = cmd.length_from_header(dw0).max(1);
        if len > MAX_COMMAND {
            return Err(Halt::Unmodelled {
                dw0,
                name: "a command longer than the model reads",
            });
        }
        let mut dw = Vec::with_capacity(len);
        dw.push(dw0);
        for k in 1..len {
            dw.push(self.fetch(i, k as u32)?);
        }
        // RING_CTL bit 10 (RING_WAIT_SEMAPHORE) shows a waiting engine.
        let ctl = self.engines[i].base + self.er.ctl;
        if op == Op::SemaphoreWait && !self.semaphore_passes(i, cmd, &dw)? {
            self.regs.set(ctl, self.regs.get(ctl) | SEMAPHORE_WAIT);
            return Ok(false);
        }
        self.regs.set(ctl, self.regs.get(ctl) & !SEMAPHORE_WAIT);
        // A walker runs before the command advances: a hung one keeps the
        // engine at it.
        if op == Op::Compute(super::compute::Kind::Walker)
            && !self.predicated_out(i, cmd, op, &dw)
            && !self.walk(i, cmd.info, &dw)?
        {
            return Ok(false);
        }
        self.advance(i, len as u32);
        self.stats.commands += 1;
        self.timestamp += 1;
        self.execute(i, cmd, op, &dw).map(|()| true)
    }

    /// Moves the stream past a command of `len` dwords.
    fn advance(&mut self, i: usize, len: u32) {
        let base = self.engines[i].base;
        match &mut self.state[i].batch {
            Some(b) => b.addr += 4 * u64::from(len),
            None => {
                let size = ring_size(self.regs.get(base + self.er.ctl));
                let head = self.regs.get(base + self.er.head);
                let mut wrap = head >> 21;
                let next = (head & 0x001f_fffc) + 4 * len;
                if next >= size {
                    wrap = (wrap + 1) & 0x7ff;
                }
                self.regs
                    .set(base + self.er.head, (wrap << 21) | (next % size));
            }
        }
    }

    /// The space of a command's memory access: a PPGTT batch reaches only
    /// the PPGTT (its Use Global GTT bits are ignored, as for the older
    /// generations' non-secure batches); elsewhere the bit decides.
    pub(super) fn space(&self, i: usize, global_bit: Option<u64>) -> Space {
        match self.state[i].batch {
            Some(Batch {
                space: Space::Ppgtt,
                ..
            }) => Space::Ppgtt,
            _ if global_bit == Some(1) => Space::Ggtt,
            _ => Space::Ppgtt,
        }
    }

    pub(super) fn refuse(&self, dw: &[u32], name: &'static str) -> Halt {
        Halt::Unmodelled { dw0: dw[0], name }
    }

    pub(super) fn write(
        &mut self,
        i: usize,
        space: Space,
        gfx: u64,
        value: u32,
    ) -> Result<(), Halt> {
        self.memory(i)
            .write_u32(space, gfx & VA_MASK, value)
            .map_err(|f| Halt::of(f, 0))
    }

    pub(super) fn read(&mut self, i: usize, space: Space, gfx: u64) -> Result<u32, Halt> {
        self.memory(i)
            .read_u32(space, gfx & VA_MASK)
            .map_err(|f| Halt::of(f, 0))
    }

    /// A register offset of a command, CS-relative when the command asks
    /// (bit 19, Add CS MMIO Start Offset: the engine base plus bits 11:0).
    fn register(&self, i: usize, c: &Cmd, dw: &[u32], offset: u64) -> u32 {
        let base = self.engines[i].base;
        if field(c, dw, F::AddCsMmioStartOffset) == Some(1) {
            base + (offset as u32 & 0xfff)
        } else {
            offset as u32
        }
    }

    fn execute(&mut self, i: usize, c: &Cmd, op: Op, dw: &[u32]) -> Result<(), Halt> {
        let base = self.engines[i].base;
        let f = |x: F| field(c, dw, x);
        // MMIO remapping and predication change which registers or whether a
        // command acts: not modelled.
        if f(F::MmioRemapEnable) == Some(1) {
            return Err(self.refuse(dw, "MMIO remapping (MMIO Remap Enable)"));
        }
        if self.predicated_out(i, c, op, dw) {
            return Ok(());
        }
        match op {
            Op::NoEffect => {}
            Op::Noop => {
                if f(F::IdentificationNumberRegisterWriteEnable) == Some(1) {
                    let id = f(F::IdentificationNumber).unwrap_or(0) as u32;
                    self.regs.set(base + self.er.nopid, id);
                }
            }
            Op::BatchStart => self.batch_start(i, c, dw)?,
            Op::BatchEnd => {
                if f(F::EndContext) == Some(1) {
                    return Err(self.refuse(dw, "MI_BATCH_BUFFER_END End Context"));
                }
                let s = &mut self.state[i];
                s.batch = s.parent.take();
            }
            Op::StoreDataImm => {
                let space = self.space(i, f(F::UseGlobalGtt));
                let addr = f(F::Address).unwrap_or(0);
                // Every data dword from DW3 on (DWord Length 2: one, 3: a QWord ...).
                for (k, v) in dw.iter().skip(3).enumerate() {
                    self.write(i, space, addr.wrapping_add(4 * k as u64), *v)?;
                }
            }
            Op::StoreDataIndex => {
                let page = self.status_page(i, f(F::UsePerProcessHardwareStatusPage) == Some(1));
                // Offset 11:2: the tables give it as a dword index (manual 004
                // lines 28628-28671: "dword offset") or as a byte offset.
                let scale = match c.get(F::Offset) {
                    Some(o) if o.shift == 0 => 4,
                    _ => 1,
                };
                let addr = page + scale * f(F::Offset).unwrap_or(0);
                for (k, v) in dw.iter().skip(2).enumerate() {
                    self.write(i, Space::Ggtt, addr.wrapping_add(4 * k as u64), *v)?;
                }
            }
            Op::LoadRegisterImm => {
                // Byte Write Disables 1111b makes the command a no-op.
                if f(F::ByteWriteDisables) == Some(0xf) {
                    return Ok(());
                }
                if f(F::ByteWriteDisables).is_some_and(|b| b != 0) {
                    return Err(self.refuse(dw, "MI_LOAD_REGISTER_IMM byte write disables"));
                }
                if let (Some(g), Some((o, d))) = (&c.group, c.register_pair) {
                    let pairs = dw.get(g.dw as usize..).unwrap_or(&[]);
                    for pair in pairs.chunks_exact(g.size as usize) {
                        let reg = self.register(i, c, dw, o.extract(pair) << o.shift);
                        self.write_register(reg, d.extract(pair) as u32);
                    }
                }
            }
            Op::StoreRegisterMem => {
                let reg = self.register(i, c, dw, f(F::RegisterAddress).unwrap_or(0));
                let value = self.read_register(reg);
                let space = self.space(i, f(F::UseGlobalGtt));
                self.write(i, space, f(F::MemoryAddress).unwrap_or(0), value)?;
            }
            Op::LoadRegisterMem => {
                let reg = self.register(i, c, dw, f(F::RegisterAddress).unwrap_or(0));
                let space = self.space(i, f(F::UseGlobalGtt));
                let value = self.read(i, space, f(F::MemoryAddress).unwrap_or(0))?;
                self.write_register(reg, value);
            }
            Op::LoadRegisterReg => {
                let from = f(F::SourceRegisterAddress).unwrap_or(0) as u32;
                let to = f(F::DestinationRegisterAddress).unwrap_or(0) as u32;
                let relative = |bit: F, reg: u32| {
                    if f(bit) == Some(1) {
                        base + (reg & 0xfff)
                    } else {
                        reg
                    }
                };
                let from = relative(F::AddCsMmioStartOffsetSource, from);
                let to = relative(F::AddCsMmioStartOffsetDestination, to);
                let value = self.read_register(from);
                self.write_register(to, value);
            }
            Op::UserInterrupt => self.raise(i, USER_BIT),
            Op::FlushDw | Op::PipeControl => self.post_sync(i, c, op, dw)?,
            Op::CopyMemMem => {
                let src = self.space(i, f(F::UseGlobalGttSource));
                let dst = self.space(i, f(F::UseGlobalGttDestination));
                let value = self.read(i, src, f(F::SourceMemoryAddress).unwrap_or(0))?;
                self.write(i, dst, f(F::DestinationMemoryAddress).unwrap_or(0), value)?;
            }
            Op::ConditionalBatchEnd => self.conditional_end(i, c, dw)?,
            // The wait was decided before the command advanced.
            Op::SemaphoreWait => {}
            Op::Atomic => self.atomic(i, c, dw)?,
            Op::Math => self.math(i, dw)?,
            Op::SetPredicate => self.set_predicate(i, c, dw)?,
            Op::Predicate => self.predicate(i, c, dw)?,
            Op::Blit(kind) => self.blit(i, c, kind, dw)?,
            Op::Compute(kind) => self.compute(i, c.info, kind, dw)?,
        }
        Ok(())
    }

    /// MI_SEMAPHORE_WAIT (manual 004 lines 28332-28433): the semaphore
    /// (the dword at the address, or with Register Poll Mode the register
    /// whose offset is in bits 22:2) compared with the data. In polling mode
    /// the engine retries until it passes; signal mode, which switches the
    /// context out to wait for MI_SEMAPHORE_SIGNAL, is refused when the
    /// compare fails.
    fn semaphore_passes(&mut self, i: usize, c: &Cmd, dw: &[u32]) -> Result<bool, Halt> {
        let f = |x: F| field(c, dw, x);
        let addr = f(F::SemaphoreAddress).unwrap_or(0);
        let sad = if f(F::RegisterPollMode) == Some(1) {
            self.read_register(addr as u32 & 0x7f_fffc)
        } else {
            let space = self.space(i, f(F::UseGlobalGtt));
            self.read(i, space, addr)?
        };
        let data = f(F::SemaphoreDataDword).unwrap_or(0) as u32;
        match compare(f(F::CompareOperation), sad, data) {
            None => Err(self.refuse(dw, "a reserved compare operation")),
            Some(true) => Ok(true),
            Some(false) if f(F::WaitMode) == Some(1) => Ok(false),
            Some(false) => Err(self.refuse(dw, "MI_SEMAPHORE_WAIT signal mode")),
        }
    }

    /// The engine's status page (RING_HWS_PGA), or the running context's
    /// per-process one (page 0 of its image).
    fn status_page(&self, i: usize, per_process: bool) -> u64 {
        let base = self.engines[i].base;
        match self.state[i].active {
            Some(ctx) if per_process => ctx.lrca(),
            _ => u64::from(self.regs.get(base + self.er.hws_pga) & 0xffff_f000),
        }
    }

    /// MI_BATCH_BUFFER_START: bit 8 selects the PPGTT; a batch started from a
    /// PPGTT batch stays in the PPGTT. From a batch, bit 22 set starts a
    /// second-level batch that returns to its parent; clear, it chains. From
    /// the ring bit 22 is ignored (hal mi.toml note).
    fn batch_start(&mut self, i: usize, c: &Cmd, dw: &[u32]) -> Result<(), Halt> {
        let base = self.engines[i].base;
        let f = |x: F| field(c, dw, x);
        if self.regs.get(base + self.er.mi_mode) & NESTED_BB_ENABLE != 0 {
            return Err(self.refuse(
                dw,
                "nested batch buffers (MI_MODE Nested Batch Buffer Enable)",
            ));
        }
        let addr = f(F::BatchBufferStartAddress).unwrap_or(0) & VA_MASK;
        let ppgtt = f(F::AddressSpaceIndicator) == Some(1);
        let current = self.state[i].batch;
        let space = match current {
            Some(Batch {
                space: Space::Ppgtt,
                ..
            }) => Space::Ppgtt,
            _ if ppgtt => Space::Ppgtt,
            _ => Space::Ggtt,
        };
        if current.is_some() && f(F::SecondLevelBatchBuffer) == Some(1) {
            if self.state[i].parent.is_some() {
                return Err(self.refuse(dw, "a third batch level"));
            }
            self.state[i].parent = current;
        }
        self.state[i].batch = Some(Batch { addr, space });
        self.regs.set(base + self.er.bbaddr, addr as u32);
        self.regs
            .set(base + self.er.bbaddr_udw, (addr >> 32) as u32);
        self.stats.batches += 1;
        Ok(())
    }

    /// Post-sync of MI_FLUSH_DW and PIPE_CONTROL: the immediate data or the
    /// timestamp, then the notify interrupt.
    fn post_sync(&mut self, i: usize, c: &Cmd, op: Op, dw: &[u32]) -> Result<(), Halt> {
        let f = |x: F| field(c, dw, x);
        if f(F::LriPostSyncOperation) == Some(1) {
            return Err(self.refuse(dw, "PIPE_CONTROL LRI post-sync operation"));
        }
        let addr_field = if op == Op::FlushDw {
            F::DestinationAddress
        } else {
            F::Address
        };
        let mut addr = f(addr_field).unwrap_or(0);
        let mut space = self.space(i, f(F::UseGlobalGtt));
        if f(F::StoreDataIndex) == Some(1) {
            addr = self.status_page(i, false) + (addr & 0xfff);
            space = Space::Ggtt;
        }
        match f(F::PostSyncOperation) {
            Some(1) => {
                let (low, high) = if op == Op::FlushDw {
                    (f(F::ImmediateDataLow), f(F::ImmediateDataHigh))
                } else {
                    let d = f(F::ImmediateData);
                    (d.map(|d| d & 0xffff_ffff), d.map(|d| d >> 32))
                };
                self.write(i, space, addr, low.unwrap_or(0) as u32)?;
                if let Some(h) = high {
                    self.write(i, space, addr.wrapping_add(4), h as u32)?;
                }
            }
            Some(3) => {
                let t = self.timestamp;
                self.write(i, space, addr, t as u32)?;
                self.write(i, space, addr.wrapping_add(4), (t >> 32) as u32)?;
            }
            Some(2) => return Err(self.refuse(dw, "PIPE_CONTROL Write PS Depth Count")),
            _ => {}
        }
        if f(F::NotifyEnable) == Some(1) {
            self.raise(i, NOTIFY_BIT);
        }
        Ok(())
    }

    /// MI_CONDITIONAL_BATCH_BUFFER_END: the batch ends when the compare of
    /// the memory dword with the data fails (manual 004 lines 26831-26902,
    /// MAD = memory address data, IDD = inline data dword), or ends every
    /// level with End Current Batch Buffer Level clear.
    fn conditional_end(&mut self, i: usize, c: &Cmd, dw: &[u32]) -> Result<(), Halt> {
        let f = |x: F| field(c, dw, x);
        if f(F::CompareSemaphore) == Some(1) || f(F::CompareMaskMode) == Some(1) {
            return Err(self.refuse(dw, "MI_CONDITIONAL_BATCH_BUFFER_END semaphore or mask mode"));
        }
        let data = f(F::CompareDataDword).unwrap_or(0) as u32;
        let space = self.space(i, f(F::UseGlobalGtt));
        let mad = self.read(i, space, f(F::CompareAddress).unwrap_or(0))?;
        let Some(go_on) = compare(f(F::CompareOperation), mad, data) else {
            return Err(self.refuse(dw, "a reserved compare operation"));
        };
        if !go_on && self.state[i].batch.is_some() {
            let s = &mut self.state[i];
            s.batch = if f(F::EndCurrentBatchBufferLevel) == Some(1) {
                s.parent.take()
            } else {
                s.parent = None;
                None
            };
        }
        Ok(())
    }
}

/// The compare of MI_SEMAPHORE_WAIT and MI_CONDITIONAL_BATCH_BUFFER_END
/// (operations 0-5: greater, greater or equal, less, less or equal, equal,
/// not equal, the fetched value on the left); `None` for a reserved one.
fn compare(op: Option<u64>, fetched: u32, data: u32) -> Option<bool> {
    Some(match op? {
        0 => fetched > data,
        1 => fetched >= data,
        2 => fetched < data,
        3 => fetched <= data,
        4 => fetched == data,
        5 => fetched != data,
        _ => return None,
    })
}

/// Bytes of a ring from RING_CTL bits 20:12 (pages minus one).
fn ring_size(ctl: u32) -> u32 {
    (((ctl >> 12) & 0x1ff) + 1) * 4096
}
