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
//! and MI_SET_PREDICATE with the commands they drop (`predicated_out`).
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
use super::execlist::{Batch, Halt, NOTIFY_BIT, USER_BIT, position};
use super::memory::Space;
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
        _ => return None,
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
        Op::BatchEnd | Op::LoadRegisterImm | Op::UserInterrupt | Op::Math | Op::NoEffect => &[],
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
    engine: &'static str,
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
            if op == Op::LoadRegisterImm && cmd.register_pair.is_none() {
                return Err(MissingField {
                    command: info.name,
                    field: F::RegisterOffset.name(),
                });
            }
            executed.push((cmd, op));
        }
        Ok(Self { engine, executed })
    }

    /// The command of header `dw0`: executed (`Ok`), or known but refused (`Err`).
    fn identify(
        &self,
        tables: &GenTables,
        dw0: u32,
    ) -> Option<Result<&(Cmd, Op), &'static CommandInfo>> {
        let info = tables.identify(self.engine, dw0)?;
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
/// Graphics addresses are 48 bits (canonical upper bits ignored).
const VA_MASK: u64 = 0xffff_ffff_ffff;
/// The predicate registers, engine-relative (Linux i915
/// MI_PREDICATE_SRC0 0x2400, SRC1 0x2408, DATA 0x2410, RESULT 0x2418,
/// MI_PREDICATE_RESULT_2 0x23bc on the render engine; Mesa's mi_builder.h
/// reaches the 0x2000-0x27ff range of the other engines CS-relative).
const PREDICATE_SRC0: u32 = 0x400;
const PREDICATE_SRC1: u32 = 0x408;
const PREDICATE_DATA: u32 = 0x410;
const PREDICATE_RESULT: u32 = 0x418;
const PREDICATE_RESULT_2: u32 = 0x3bc;
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
        let (cmd, op) = match set.identify(self.tables, dw0) {
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
    fn space(&self, i: usize, global_bit: Option<u64>) -> Space {
        match self.state[i].batch {
            Some(Batch {
                space: Space::Ppgtt,
                ..
            }) => Space::Ppgtt,
            _ if global_bit == Some(1) => Space::Ggtt,
            _ => Space::Ppgtt,
        }
    }

    fn refuse(&self, dw: &[u32], name: &'static str) -> Halt {
        Halt::Unmodelled { dw0: dw[0], name }
    }

    fn write(&mut self, i: usize, space: Space, gfx: u64, value: u32) -> Result<(), Halt> {
        self.memory(i)
            .write_u32(space, gfx & VA_MASK, value)
            .map_err(|f| Halt::of(f, 0))
    }

    fn read(&mut self, i: usize, space: Space, gfx: u64) -> Result<u32, Halt> {
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

    /// MI_ATOMIC (manual 004 lines 26535-26699) on a dword or qword: the
    /// operands inline (Operand1 in DW3/DW5) or in CS_GPR0 (Operand1); the
    /// value before the operation returned to CS_GPR4 with Return Data
    /// Control. Towards system memory only MOVE, INC and DEC exist (the
    /// programming note); octwords, float and compare-write operations and
    /// the post-sync form are refused.
    fn atomic(&mut self, i: usize, c: &Cmd, dw: &[u32]) -> Result<(), Halt> {
        let f = |x: F| field(c, dw, x);
        if f(F::PostSyncOperation) == Some(1) {
            return Err(self.refuse(dw, "MI_ATOMIC as a post-sync operation"));
        }
        let opcode = f(F::AtomicOpcode).unwrap_or(0) as u32;
        let qword = match (f(F::DataSize), opcode & !0x20) {
            (_, op) if !(0x1..=0xd).contains(&op) || op == 0x9 => {
                return Err(self.refuse(dw, "MI_ATOMIC float, compare-write or reserved operation"));
            }
            (Some(0), _) if opcode & 0x20 == 0 => false,
            (Some(1), _) if opcode & 0x20 != 0 => true,
            _ => return Err(self.refuse(dw, "MI_ATOMIC data size other than its opcode's")),
        };
        let op = opcode & !0x20;
        // MOVE (4), INC (5), DEC (6) are the system-memory atomics.
        let addr = f(F::MemoryAddress).unwrap_or(0) & VA_MASK;
        let space = self.space(i, f(F::UseGlobalGtt));
        let at = self
            .memory(i)
            .translate(space, addr)
            .map_err(|e| Halt::of(e, dw[0]))?;
        if matches!(at, super::memory::Location::System(_)) && !(4..=6).contains(&op) {
            return Err(self.refuse(dw, "MI_ATOMIC arithmetic on system memory"));
        }
        let gpr = self.engines[i].base + self.er.gpr;
        let gpr_read = |d: &Self, n: u32| {
            u64::from(d.regs.get(gpr + 8 * n)) | u64::from(d.regs.get(gpr + 8 * n + 4)) << 32
        };
        let operand = if f(F::InlineData) == Some(1) {
            f(F::Operand1DataDword0).unwrap_or(0) | f(F::Operand1DataDword1).unwrap_or(0) << 32
        } else {
            gpr_read(self, 0)
        };
        let mask = if qword { u64::MAX } else { 0xffff_ffff };
        let operand = operand & mask;
        let mut old = u64::from(self.read(i, space, addr)?);
        if qword {
            old |= u64::from(self.read(i, space, addr.wrapping_add(4))?) << 32;
        }
        let signed = |v: u64| {
            if qword {
                v as i64
            } else {
                i64::from(v as u32 as i32)
            }
        };
        let new = match op {
            0x1 => old & operand,
            0x2 => old | operand,
            0x3 => old ^ operand,
            0x4 => operand,
            0x5 => old.wrapping_add(1),
            0x6 => old.wrapping_sub(1),
            0x7 => old.wrapping_add(operand),
            0x8 => old.wrapping_sub(operand),
            0xa => {
                if signed(old) >= signed(operand) {
                    old
                } else {
                    operand
                }
            }
            0xb => {
                if signed(old) <= signed(operand) {
                    old
                } else {
                    operand
                }
            }
            0xc => old.max(operand),
            _ => old.min(operand),
        } & mask;
        self.write(i, space, addr, new as u32)?;
        if qword {
            self.write(i, space, addr.wrapping_add(4), (new >> 32) as u32)?;
        }
        if f(F::ReturnDataControl) == Some(1) {
            // A dword return updates the lower dword of CS_GPR4 only.
            self.regs.set(gpr + 8 * 4, old as u32);
            if qword {
                self.regs.set(gpr + 8 * 4 + 4, (old >> 32) as u32);
            }
        }
        Ok(())
    }

    /// Whether predication drops the command. MI_SET_PREDICATE's status
    /// (MI_SET_PREDICATE_RESULT bit 0) drops every command after it but the
    /// next MI_SET_PREDICATE (manual 004 lines 28501-28554); the batch
    /// commands and MI_MATH are dropped only when their Predication Enable
    /// (bit 15) asks for it (lines 26700-26830, 27940-27962). MI_STORE_REGISTER_MEM's
    /// Predicate Enable drops it when MI_PREDICATE_RESULT bit 0 is clear
    /// (lines 28672-28749).
    fn predicated_out(&self, i: usize, c: &Cmd, op: Op, dw: &[u32]) -> bool {
        let f = |x: F| field(c, dw, x);
        let status = self.state[i].set_predicate;
        let bit15 = f(F::PredicationEnable).or(f(F::PredicateEnable)) == Some(1);
        let dropped = match op {
            Op::SetPredicate => false,
            Op::BatchStart | Op::BatchEnd | Op::ConditionalBatchEnd | Op::Math => status && bit15,
            _ => status,
        };
        let base = self.engines[i].base;
        dropped
            || op == Op::StoreRegisterMem
                && f(F::PredicateEnable) == Some(1)
                && self.regs.get(base + PREDICATE_RESULT) & 1 == 0
    }

    /// MI_SET_PREDICATE: the status from MI_PREDICATE_RESULT(_2) (values 3
    /// and 4 on the render and compute engines only), or always (Fh). The
    /// WPARID condition needs registers the model lacks: refused.
    fn set_predicate(&mut self, i: usize, c: &Cmd, dw: &[u32]) -> Result<(), Halt> {
        let f = |x: F| field(c, dw, x);
        if f(F::PredicateEnableWparid).is_some_and(|v| v != 0) {
            return Err(self.refuse(dw, "MI_SET_PREDICATE on WPARID"));
        }
        let base = self.engines[i].base;
        let result = self.regs.get(base + PREDICATE_RESULT) & 1 == 1;
        let result2 = self.regs.get(base + PREDICATE_RESULT_2) & 1 == 1;
        let render_like = matches!(
            self.engines[i].class,
            super::RENDER_CLASS | super::COMPUTE_CLASS
        );
        self.state[i].set_predicate = match f(F::PredicateEnable) {
            Some(0) => false,
            Some(1) => !result2,
            Some(2) => result2,
            Some(3) if render_like => !result,
            Some(4) if render_like => result,
            Some(0xf) => true,
            _ => return Err(self.refuse(dw, "a reserved MI_SET_PREDICATE condition")),
        };
        Ok(())
    }

    /// MI_PREDICATE (manual 004 lines 28041-28088): compare the 64-bit
    /// MI_PREDICATE_SRC0 and SRC1 (TRUE, FALSE, SRCS_EQUAL loading their
    /// difference into MI_PREDICATE_DATA, DELTAS_EQUAL comparing it), combine
    /// with MI_PREDICATE_RESULT (SET, AND, OR, XOR), then keep, load or load
    /// inverted.
    fn predicate(&mut self, i: usize, c: &Cmd, dw: &[u32]) -> Result<(), Halt> {
        let f = |x: F| field(c, dw, x);
        let base = self.engines[i].base;
        let r64 = |d: &Self, at: u32| {
            u64::from(d.regs.get(base + at)) | u64::from(d.regs.get(base + at + 4)) << 32
        };
        let delta = r64(self, PREDICATE_SRC0).wrapping_sub(r64(self, PREDICATE_SRC1));
        let compare = match f(F::CompareOperation) {
            Some(0) => true,
            Some(1) => false,
            Some(2) => {
                self.regs.set(base + PREDICATE_DATA, delta as u32);
                self.regs
                    .set(base + PREDICATE_DATA + 4, (delta >> 32) as u32);
                delta == 0
            }
            _ => delta == r64(self, PREDICATE_DATA),
        };
        let current = self.regs.get(base + PREDICATE_RESULT) & 1 == 1;
        let combined = match f(F::CombineOperation) {
            Some(0) => compare,
            Some(1) => compare && current,
            Some(2) => compare || current,
            _ => compare ^ current,
        };
        let result = match f(F::LoadOperation) {
            Some(0) => current,
            Some(2) => combined,
            Some(3) => !combined,
            _ => return Err(self.refuse(dw, "a reserved MI_PREDICATE load operation")),
        };
        self.regs.set(base + PREDICATE_RESULT, u32::from(result));
        Ok(())
    }

    /// MI_MATH: each ALU dword (hal gen12.5 structs.toml
    /// MI_MATH_ALU_INSTRUCTION: opcode 31:20, operand 1 19:10, operand 2
    /// 9:0) on the engine's 64-bit CS_GPR0-15 and the ALU's SRCA, SRCB,
    /// ACCU and flags. The semantics are those Mesa's mi_builder.h relies on
    /// (its constant folding computes what the ALU would): LOAD/LOADINV put a
    /// register (or its inverse) in SRCA or SRCB, LOAD0 and LOAD1 zero and all
    /// ones; ADD and SUB set ACCU, CF (carry, or borrow: SRCA < SRCB) and ZF
    /// (ACCU zero); AND, OR, XOR (ZF; CF cleared, the model's choice: no
    /// source says); SHL, SHR, SAR by SRCB, a power of two up
    /// to 32 ("we only have power-of-two shifts"); STORE/STOREINV write ACCU,
    /// SRCA, SRCB or a flag (all ones when set) or its inverse to a
    /// register. Indirect loads and stores are refused.
    fn math(&mut self, i: usize, dw: &[u32]) -> Result<(), Halt> {
        let gpr = self.engines[i].base + self.er.gpr;
        let mut alu = Alu::default();
        for &word in &dw[1..] {
            let (opcode, op1, op2) = (word >> 20, (word >> 10) & 0x3ff, word & 0x3ff);
            let reg = |regs: &crate::regfile::RegFile, n: u32| -> Option<u64> {
                (n < 16).then(|| {
                    u64::from(regs.get(gpr + 8 * n)) | u64::from(regs.get(gpr + 8 * n + 4)) << 32
                })
            };
            let (a, b) = (alu.a, alu.b);
            let ok = match opcode {
                // NOOP, FENCE_RD, FENCE_WR: the model has no pipeline to fence.
                0x000..=0x002 => true,
                0x080 => reg(&self.regs, op2).is_some_and(|v| alu.load(op1, v)),
                0x480 => reg(&self.regs, op2).is_some_and(|v| alu.load(op1, !v)),
                0x081 => alu.load(op1, 0),
                0x481 => alu.load(op1, u64::MAX),
                0x100 => {
                    let (r, carry) = a.overflowing_add(b);
                    alu.result(r, carry);
                    true
                }
                0x101 => {
                    let (r, borrow) = a.overflowing_sub(b);
                    alu.result(r, borrow);
                    true
                }
                0x102 => alu.result(a & b, false),
                0x103 => alu.result(a | b, false),
                0x104 => alu.result(a ^ b, false),
                0x105..=0x107 if b == 0 || b.is_power_of_two() && b <= 32 => {
                    alu.accu = match opcode {
                        0x105 => a << b,
                        0x106 => a >> b,
                        _ => ((a as i64) >> b) as u64,
                    };
                    true
                }
                0x180 | 0x580 => match (alu.source(op2).or_else(|| reg(&self.regs, op2)), op1 < 16)
                {
                    (Some(v), true) => {
                        let v = if opcode == 0x580 { !v } else { v };
                        self.regs.set(gpr + 8 * op1, v as u32);
                        self.regs.set(gpr + 8 * op1 + 4, (v >> 32) as u32);
                        true
                    }
                    _ => false,
                },
                _ => false,
            };
            if !ok {
                return Err(
                    self.refuse(dw, "an MI_MATH ALU instruction the model does not execute")
                );
            }
        }
        Ok(())
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

/// The MI_MATH ALU's registers (operand codes of hal gen12.5 structs.toml
/// MI_MATH_ALU_INSTRUCTION: SRCA 0x20, SRCB 0x21, ACCU 0x31, ZF 0x32, CF 0x33).
#[derive(Default)]
struct Alu {
    a: u64,
    b: u64,
    accu: u64,
    zf: bool,
    cf: bool,
}

impl Alu {
    /// LOAD into SRCA or SRCB; `false` for another destination.
    fn load(&mut self, dst: u32, value: u64) -> bool {
        match dst {
            0x20 => self.a = value,
            0x21 => self.b = value,
            _ => return false,
        }
        true
    }

    /// An arithmetic or logic result: ACCU, the carry and zero flags.
    fn result(&mut self, accu: u64, carry: bool) -> bool {
        (self.accu, self.cf, self.zf) = (accu, carry, accu == 0);
        true
    }

    /// An ALU register as a STORE source (a set flag reads as all ones).
    fn source(&self, n: u32) -> Option<u64> {
        let flag = |f: bool| if f { u64::MAX } else { 0 };
        match n {
            0x20 => Some(self.a),
            0x21 => Some(self.b),
            0x31 => Some(self.accu),
            0x32 => Some(flag(self.zf)),
            0x33 => Some(flag(self.cf)),
            _ => None,
        }
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
