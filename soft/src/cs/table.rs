//! The commands one engine accepts: each command of the generation's
//! tables with the operation the model gives it ([`Op`]) and the fields
//! that operation reads, resolved once; a lookup from a header to its
//! command.

use alloc::vec::Vec;

use baregpu_hal::reflect::{CommandInfo, GenTables};

use crate::blit::BlitOp;
use crate::command::{Cmd, F};
use crate::media::MediaOp;

/// What the model does with a recognised command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Noop,
    BatchStart,
    BatchEnd,
    StoreDataImm,
    StoreDataIndex,
    LoadRegisterImm,
    StoreRegisterMem,
    UserInterrupt,
    ReportHead,
    FlushDw,
    PipeControl,
    ConditionalBatchEnd,
    SemaphoreMbox,
    WaitForEvent,
    UpdateGtt,
    LoadRegisterMem,
    SetContext,
    /// A blitter command, executed in `blit/`.
    Blit(BlitOp),
    /// A media/GPGPU pipeline command, executed in `media`.
    Media(MediaOp),
    ReportPerfCount,
    /// MI_DISPLAY_FLIP: queued on the display (`crate::display`).
    DisplayFlip,
    /// MI_PREDICATE (Gen7): the predicate state bit (`mi::predicate`).
    Predicate,
    /// MI_TOPOLOGY_FILTER (Gen7): the topology 3DPRIMITIVE must have.
    TopologyFilter,
    /// A command whose effect the model has nothing to apply to ([`NO_EFFECT`]).
    NoEffect,
    /// Known, not modelled: refused with [`super::Halt::Unmodelled`].
    Unmodelled,
}

/// Commands that have no effect on the model, each with why. Everything in
/// the tables that is neither here nor executed is refused.
const NO_EFFECT: [(&str, &str); 6] = [
    // Flushes the render cache (and invalidates read caches, 003 lines
    // 15320-15423): the model writes memory directly and keeps no caches.
    ("MI_FLUSH", "no caches"),
    // Flushes the cachelines of one page (003 lines 14940-15062): no caches;
    // the dwords after the address are dummies, one per half cacheline.
    ("MI_CLFLUSH", "no caches"),
    // An arbitration (preemption) point and its enable (003 lines
    // 14544-14633): the model runs each engine's commands to the end of a
    // run and never preempts, so neither changes what executes.
    ("MI_ARB_CHECK", "no preemption"),
    ("MI_ARB_ON_OFF", "no preemption"),
    // Holds back display and VT-d flushes (003 lines 16289-16333): the model
    // has neither.
    ("MI_SUSPEND_FLUSH", "no display flushes"),
    // Where the system routine is (003 lines 1582-1637). It runs only on an
    // exception or breakpoint the thread enabled; the EU model raises none:
    // an instruction that would stops the engine with an instruction error
    // instead (`media::Media::run_threads`), so no thread ever reaches the
    // routine and the pointer has nothing to change. Linux's userspace
    // emits it in every 3D batch [ext: intel-gpu-tools
    // lib/rendercopy_gen6.c gen6_emit_sip].
    ("STATE_SIP", "no exceptions reach a system routine"),
];
// Refused on purpose (not in NO_EFFECT): STATE_PREFETCH would be harmless (a
// state-cache hint) but names state the model would not check;
// MI_LOAD_SCAN_LINES_INCL needs scan-line counting the display model does
// not do; MI_URB_CLEAR serves URB handling the model does not keep between
// draws.

fn op_of(name: &'static str) -> Op {
    if let Some(b) = BlitOp::of(name) {
        return Op::Blit(b);
    }
    if let Some(m) = MediaOp::of(name) {
        return Op::Media(m);
    }
    match name {
        "MI_NOOP" => Op::Noop,
        "MI_BATCH_BUFFER_START" => Op::BatchStart,
        "MI_BATCH_BUFFER_END" => Op::BatchEnd,
        "MI_STORE_DATA_IMM" => Op::StoreDataImm,
        "MI_STORE_DATA_INDEX" => Op::StoreDataIndex,
        "MI_LOAD_REGISTER_IMM" => Op::LoadRegisterImm,
        "MI_STORE_REGISTER_MEM" => Op::StoreRegisterMem,
        "MI_USER_INTERRUPT" => Op::UserInterrupt,
        "MI_REPORT_HEAD" => Op::ReportHead,
        "MI_FLUSH_DW" => Op::FlushDw,
        "PIPE_CONTROL" => Op::PipeControl,
        "MI_CONDITIONAL_BATCH_BUFFER_END" => Op::ConditionalBatchEnd,
        "MI_SEMAPHORE_MBOX" => Op::SemaphoreMbox,
        "MI_WAIT_FOR_EVENT" => Op::WaitForEvent,
        "MI_UPDATE_GTT" => Op::UpdateGtt,
        "MI_LOAD_REGISTER_MEM" => Op::LoadRegisterMem,
        "MI_SET_CONTEXT" => Op::SetContext,
        "MI_REPORT_PERF_COUNT" => Op::ReportPerfCount,
        "MI_DISPLAY_FLIP" => Op::DisplayFlip,
        "MI_PREDICATE" => Op::Predicate,
        "MI_TOPOLOGY_FILTER" => Op::TopologyFilter,
        _ if NO_EFFECT.iter().any(|(n, _)| *n == name) => Op::NoEffect,
        _ => Op::Unmodelled,
    }
}

/// The commands one engine accepts, most specific header first, with the
/// fields the model reads resolved.
pub struct CommandTable {
    entries: Vec<(Cmd, Op)>,
    /// For each value of header bits 31:23 (command type and MI opcode),
    /// the entries whose header can match it, in `entries` order: a header
    /// is compared with a handful of commands instead of all of them.
    buckets: Vec<Vec<u16>>,
}

/// Header bits that select a bucket of [`CommandTable`].
const BUCKET_SHIFT: u32 = 23;

/// A field an operation of the model needs is missing from a command of
/// the generation's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MissingField {
    pub command: &'static str,
    pub field: &'static str,
}

/// The fields each operation reads without a fallback: a command of that
/// operation without one of them fails construction. Fields that only some
/// generations have (Gen4's physical address extension, the 64-bit
/// immediate of G45's PIPE_CONTROL, ...) are read as optional.
fn required(op: Op) -> &'static [F] {
    match op {
        Op::Noop => &[
            F::IdentificationNumberRegisterWriteEnable,
            F::IdentificationNumber,
        ],
        Op::BatchStart => &[F::BatchBufferStartAddress],
        Op::StoreDataImm => &[F::Address, F::DataDword0],
        Op::StoreDataIndex => &[F::Offset, F::DataDword0],
        Op::StoreRegisterMem | Op::LoadRegisterMem => &[F::RegisterAddress, F::MemoryAddress],
        Op::FlushDw | Op::PipeControl => &[F::Address, F::PostSyncOperation, F::NotifyEnable],
        Op::ConditionalBatchEnd => &[F::CompareDataDword, F::CompareAddress],
        Op::SemaphoreMbox => &[
            F::CompareSemaphore,
            F::UpdateSemaphore,
            F::SemaphoreDataDword,
            F::SemaphoreAddress,
        ],
        Op::UpdateGtt => &[F::EntryAddress],
        Op::SetContext => &[F::LogicalContextAddress, F::ForceRestore, F::RestoreInhibit],
        Op::ReportPerfCount => &[F::MemoryAddress, F::ReportId],
        Op::DisplayFlip => &[
            F::DisplayPlaneSelect,
            F::DisplayBufferBaseAddress,
            F::DisplayBufferPitch,
            F::TileParameter,
        ],
        Op::Predicate => &[F::LoadOperation, F::CombineOperation, F::CompareOperation],
        Op::TopologyFilter => &[F::TopologyFilterValue],
        Op::Blit(b) => b.required(),
        Op::Media(m) => m.required(),
        Op::BatchEnd
        | Op::LoadRegisterImm
        | Op::UserInterrupt
        | Op::ReportHead
        | Op::WaitForEvent
        | Op::NoEffect
        | Op::Unmodelled => &[],
    }
}

/// A command's operation and resolved fields; an error names the first
/// field the operation needs that the command lacks.
fn resolve(info: &'static CommandInfo) -> Result<(Cmd, Op), MissingField> {
    let op = op_of(info.name);
    let cmd = match op {
        Op::NoEffect | Op::Unmodelled => Cmd::unread(info),
        _ => Cmd::resolve(info),
    };
    let missing = |f: F| MissingField {
        command: info.name,
        field: f.name(),
    };
    if let Some(f) = required(op).iter().find(|f| !cmd.has(**f)) {
        return Err(missing(*f));
    }
    if op == Op::LoadRegisterImm && cmd.register_pair.is_none() {
        return Err(missing(F::RegisterOffset));
    }
    Ok((cmd, op))
}

impl CommandTable {
    pub fn new(tables: &'static GenTables, engine: &str) -> Result<Self, MissingField> {
        let mut entries = Vec::new();
        for info in tables.commands.iter().filter(|c| c.accepts(engine)) {
            entries.push(resolve(info)?);
        }
        entries.sort_by_key(|(c, _)| core::cmp::Reverse(c.header_mask.count_ones()));
        let high = u32::MAX << BUCKET_SHIFT;
        let buckets = (0..=u32::MAX >> BUCKET_SHIFT)
            .map(|prefix| {
                let bits = prefix << BUCKET_SHIFT;
                (0..entries.len())
                    .filter(|&k| {
                        let c = &entries[k].0;
                        (bits ^ c.header_value) & c.header_mask & high == 0
                    })
                    .map(|k| k as u16)
                    .collect()
            })
            .collect();
        Ok(Self { entries, buckets })
    }

    /// The first entry (most specific header) that `dw0` matches.
    pub(crate) fn identify(&self, dw0: u32) -> Option<&(Cmd, Op)> {
        self.buckets[(dw0 >> BUCKET_SHIFT) as usize]
            .iter()
            .map(|&k| &self.entries[k as usize])
            .find(|(c, _)| dw0 & c.header_mask == c.header_value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baregpu_hal::Generation;

    /// Every generation the model runs resolves every field its engines'
    /// commands need (a renamed or missing field fails here, not as a zero
    /// read while commands run).
    #[test]
    fn every_generation_resolves_the_fields_the_model_reads() {
        let mut built = 0;
        for g in Generation::ALL {
            let Some(layout) = crate::layout::Layout::of(g) else {
                continue;
            };
            for e in layout.engines {
                let table = CommandTable::new(g.tables(), e.name)
                    .unwrap_or_else(|m| panic!("{g:?} {}: {m:?}", e.name));
                // The MI commands every engine executes are found and resolved.
                let store = table
                    .entries
                    .iter()
                    .find(|(c, _)| c.name == "MI_STORE_DATA_IMM")
                    .unwrap_or_else(|| panic!("{g:?} {}: no MI_STORE_DATA_IMM", e.name));
                assert_eq!(store.1, Op::StoreDataImm);
                assert!(store.0.has(F::Address) && store.0.has(F::DataDword0));
                built += 1;
            }
        }
        assert!(built >= 4, "only {built} engine tables built");
    }

    /// A command without a field its operation needs is refused at construction.
    #[test]
    fn a_missing_field_is_a_construction_error() {
        let tables = Generation::Gen7.tables();
        let sdi = tables
            .commands
            .iter()
            .find(|c| c.name == "MI_STORE_DATA_IMM")
            .expect("Gen7 has MI_STORE_DATA_IMM");
        assert!(resolve(sdi).is_ok());
        let fields: Vec<_> = sdi
            .fields
            .iter()
            .filter(|f| f.name != "address")
            .copied()
            .collect();
        let without_address: &'static CommandInfo =
            alloc::boxed::Box::leak(alloc::boxed::Box::new(CommandInfo {
                fields: alloc::boxed::Box::leak(fields.into_boxed_slice()),
                ..*sdi
            }));
        assert_eq!(
            resolve(without_address).err(),
            Some(MissingField {
                command: "MI_STORE_DATA_IMM",
                field: "address",
            })
        );
    }
}
