//! Dispatches: what the caller asks for, its validation into a `Plan`,
//! and the batch that carries the commands and the state.

use alloc::vec;
use alloc::vec::Vec;

use baregpu_hal::Generation;

use super::error::{ComputeError, check_max};
use super::kernel::Kernel;
use super::sampler::{Sampler, plan_samplers};
use super::state::{self, Cmds, MAX_STATE_BYTES, Plan, StateArea, Work};
use super::surface::{Resource, SurfaceDesc};
use crate::platform::Platform;
use crate::submit::{Batch, ContextId, Gpu};

/// Highest binding table index a dispatch may bind. 255 is the stateless
/// model's index (003 lines 81019-81050); Ivy Bridge also reserves 254
/// (shared local memory) and 253 (non-coherent stateless) [ext: Mesa
/// brw_eu_defines.h GFX7_BTI_SLM, BRW_BTI_STATELESS / GFX8_BTI_STATELESS_NON_COHERENT].
pub const MAX_BINDING_INDEX: u32 = 252;

/// Inline dwords one thread may carry (device description `[compute] inline_dwords`).
const fn max_inline(generation: Generation) -> usize {
    match state::limits(generation) {
        Some(c) => c.inline_dwords as usize,
        None => 0,
    }
}

/// MEDIA_OBJECTs one dispatch may hold (a bound on the batch the driver allocates).
pub const MAX_OBJECTS: usize = 1 << 20;

/// MEDIA_OBJECT_WALKER resolutions are 9-bit fields (003 lines 50230-50538).
pub const MAX_WALKER_SIDE: u32 = 511;

/// Threads one GPGPU thread group may have: the walker's Thread Width
/// Counter Maximum is 6 bits [ext: Mesa gen7.xml GPGPU_WALKER], and the
/// group must fit the threads the VFE runs at once (`state::max_threads`;
/// Mesa caps a workgroup at min(64, max_cs_threads)).
pub const fn max_group_threads(generation: Generation) -> u32 {
    let vfe = state::max_threads(generation);
    if vfe < 64 { vfe } else { 64 }
}

/// The most constant (CURBE) bytes one dispatch can carry: one thread reads
/// at most `state::max_curbe_read_rows` registers, and the blocks of a
/// GPGPU thread group together fit the URB (`state::max_curbe_rows`). A
/// bound for callers that read constants from files before they dispatch.
pub const fn max_curbe_bytes(generation: Generation) -> usize {
    let per_thread = state::max_curbe_read_rows(generation);
    let all = state::max_curbe_rows(generation);
    (if all > per_thread { all } else { per_thread }) as usize * 32
}

/// How threads are launched.
#[derive(Clone, Copy, Debug)]
pub enum Threads<'a> {
    /// `count` root threads, one MEDIA_OBJECT each (every generation).
    /// `inline` is split evenly: thread `i` receives the `i`-th part as
    /// inline data, in the registers after R0 and the constants.
    Objects { count: usize, inline: &'a [u32] },
    /// MEDIA_OBJECT_WALKER over a `width` x `height` grid, row by row
    /// (SNB and Ivy Bridge); every thread gets the same `inline` data.
    Walker {
        width: u32,
        height: u32,
        inline: &'a [u32],
    },
    /// GPGPU_WALKER (Ivy Bridge): `groups` thread groups of `group_size`
    /// invocations, run by SIMD8/16/32 threads of the kernel's width; the
    /// last thread's spare channels are masked off.
    Groups {
        groups: [u32; 3],
        group_size: [u32; 3],
    },
    /// COMPUTE_WALKER (Gen12.5): `groups` thread groups of `group_size`
    /// invocations (at most 1024), run by threads of the kernel's SIMD
    /// width, the last thread's spare channels masked off. Every thread
    /// gets `inline` (at most 8 dwords: the walker's inline data) in the
    /// register after its local IDs; `indirect` (at most 32 KiB) is copied
    /// into the batch's state, 64-byte aligned, and `pointer` says how the
    /// kernel finds it. The payload is laid out in `state/gen12_5.rs`.
    /// [`Threads::Groups`] is this with neither.
    Compute {
        groups: [u32; 3],
        group_size: [u32; 3],
        inline: &'a [u32],
        indirect: &'a [u8],
        pointer: IndirectPointer,
    },
}

/// How a Gen12.5 kernel finds its indirect data. Either way the walker
/// names it (Indirect Data Start Address from General State Base), and the
/// thread's r0.0 bits 31:6 carry that offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndirectPointer {
    /// Its 64-bit GPU address also takes inline dwords 0-1, `inline`
    /// following from dword 2 (at most 6 dwords): the convention of Mesa's
    /// anv, whose inline data begins with the address of the push
    /// constants [ext: Mesa genX_cmd_compute.c emit_compute_walker,
    /// ANV_INLINE_PARAM_PUSH_ADDRESS_OFFSET 0].
    InlineQword0,
    /// Only r0.0 and General State Base: the inline data is `inline` as
    /// given (at most 8 dwords), the convention of Intel's OpenCL and Level
    /// Zero runtime for IGC's kernels (their prologue reads the rest of the
    /// cross-thread data at r0.0 bits 31:6 through the stateless binding
    /// table index 253 [ext: IGC vISA PrologEpilog.cpp PayloadLoader;
    /// compute-runtime command_encoder_xehp_and_later.inl]).
    R0,
}

/// One launch of a kernel.
#[derive(Clone, Copy, Debug)]
pub struct Dispatch<'a> {
    pub threads: Threads<'a>,
    /// Constant data, delivered after R0 (zero-padded to the kernel's
    /// `curbe_bytes`). For [`Threads::Groups`] it is either that much, given
    /// to every thread of a group, or that much per thread of a group, in order.
    pub curbe: &'a [u8],
    /// Binding table: (index, resource).
    pub bindings: &'a [(u32, Resource<'a>)],
    /// Sampler table: (sampler index 0-15, sampler); the kernel's sample
    /// messages name the index.
    pub samplers: &'a [(u32, Sampler)],
}

/// Checks a dispatch of `kernel` on `generation` and works out what the
/// hardware must be told.
pub(crate) fn plan<'a>(
    generation: Generation,
    kernel: &'a Kernel<'a>,
    d: &Dispatch<'a>,
) -> Result<Plan<'a>, ComputeError> {
    if kernel.generation != generation {
        return Err(ComputeError::Invalid(
            "the kernel was loaded for another generation",
        ));
    }
    let unsupported = |what| ComputeError::Unsupported { generation, what };
    let xe = super::kernel::is_xe(generation);
    if xe && (!d.samplers.is_empty() || !kernel.samplers.is_empty()) {
        return Err(unsupported("samplers on Gen12.5 (not programmed yet)"));
    }
    if xe && !d.curbe.is_empty() {
        return Err(unsupported(
            "CURBE constants on Gen12.5 (it has none: use inline or indirect data)",
        ));
    }

    // Bindings: in range, once each, and covering what the kernel uses.
    let mut surfaces: Vec<(u32, SurfaceDesc)> = Vec::with_capacity(d.bindings.len());
    for (bti, resource) in d.bindings {
        if *bti > MAX_BINDING_INDEX || surfaces.iter().any(|(b, _)| b == bti) {
            return Err(ComputeError::BadBinding { bti: *bti });
        }
        surfaces.push((*bti, SurfaceDesc::of(resource, generation)?));
    }
    surfaces.sort_by_key(|(b, _)| *b);
    if let Some(&bti) = kernel
        .bindings
        .iter()
        .find(|b| !surfaces.iter().any(|(s, _)| s == *b))
    {
        return Err(ComputeError::MissingResource { bti });
    }
    let bt_entries = surfaces.last().map_or(0, |(b, _)| b + 1);
    let samplers = plan_samplers(generation, d.samplers, &kernel.samplers)?;

    let work = match d.threads {
        Threads::Groups { groups, group_size } if xe => walker_work(
            generation,
            kernel,
            groups,
            group_size,
            &[],
            &[],
            IndirectPointer::R0,
        )?,
        Threads::Compute {
            groups,
            group_size,
            inline,
            indirect,
            pointer,
        } => {
            if !xe {
                return Err(unsupported("COMPUTE_WALKER (Gen12.5)"));
            }
            walker_work(
                generation, kernel, groups, group_size, inline, indirect, pointer,
            )?
        }
        _ if xe => {
            return Err(unsupported(
                "media objects and walkers on Gen12.5 (COMPUTE_WALKER only: Threads::Compute)",
            ));
        }
        Threads::Objects { count, inline } => {
            if count == 0 {
                return Err(ComputeError::Invalid("no threads"));
            }
            check_max("media objects", count as u64, MAX_OBJECTS as u64)?;
            if !inline.len().is_multiple_of(count) {
                return Err(ComputeError::Invalid(
                    "inline data does not split evenly between the threads",
                ));
            }
            let per_thread = inline.len() / count;
            check_max(
                "inline dwords per thread",
                per_thread as u64,
                max_inline(generation) as u64,
            )?;
            Work::Objects {
                inline,
                per_thread,
                threads: count,
            }
        }
        Threads::Walker {
            width,
            height,
            inline,
        } => {
            if !state::limits(generation).is_some_and(|c| c.media_walker) {
                return Err(unsupported("MEDIA_OBJECT_WALKER (SNB and later)"));
            }
            if width == 0 || height == 0 {
                return Err(ComputeError::Invalid("no threads"));
            }
            check_max("walker width", width as u64, MAX_WALKER_SIDE as u64)?;
            check_max("walker height", height as u64, MAX_WALKER_SIDE as u64)?;
            check_max(
                "inline dwords per thread",
                inline.len() as u64,
                max_inline(generation) as u64,
            )?;
            Work::Walker {
                width,
                height,
                inline,
            }
        }
        Threads::Groups { groups, group_size } => {
            if !state::limits(generation).is_some_and(|c| c.gpgpu_walker) {
                return Err(unsupported("GPGPU_WALKER (Ivy Bridge and later)"));
            }
            if groups.contains(&0) || group_size.contains(&0) {
                return Err(ComputeError::Invalid("no threads"));
            }
            let invocations = group_size
                .iter()
                .try_fold(1u64, |n, &s| n.checked_mul(s as u64))
                .unwrap_or(u64::MAX);
            let lanes = kernel.simd.lanes() as u64;
            let threads = invocations.div_ceil(lanes);
            check_max(
                "threads per group",
                threads,
                max_group_threads(generation) as u64,
            )?;
            // Every thread of a group has its own copy of the constants.
            check_max(
                "CURBE registers per group",
                threads * kernel.curbe_rows() as u64,
                state::max_curbe_rows(generation) as u64,
            )?;
            Work::Groups {
                groups,
                threads: threads as u32,
                right_mask: right_mask(invocations, kernel.simd.lanes()),
            }
        }
    };

    if !xe {
        check_payload(generation, kernel, &work)?;
    }
    let curbe = curbe_data(kernel, &work, d.curbe)?;
    Ok(Plan {
        kernel,
        work,
        curbe,
        surfaces,
        bt_entries,
        samplers,
    })
}

/// A COMPUTE_WALKER's work (Gen12.5): the group size against 004's
/// COMPUTE_WALKER DW6 restriction (at most 1024 invocations), the threads
/// of a group, the last thread's mask and the inline and indirect data.
fn walker_work<'a>(
    generation: Generation,
    kernel: &Kernel<'_>,
    groups: [u32; 3],
    group_size: [u32; 3],
    inline: &'a [u32],
    indirect: &'a [u8],
    pointer: IndirectPointer,
) -> Result<Work<'a>, ComputeError> {
    #[cfg(feature = "gen12_5")]
    {
        use super::state::gen12_5 as g;
        let _ = generation;
        if groups.contains(&0) || group_size.contains(&0) {
            return Err(ComputeError::Invalid("no threads"));
        }
        let invocations = group_size
            .iter()
            .try_fold(1u64, |n, &s| n.checked_mul(s as u64))
            .unwrap_or(u64::MAX);
        check_max(
            "invocations per group",
            invocations,
            g::MAX_GROUP_INVOCATIONS as u64,
        )?;
        let address_inline = !indirect.is_empty() && pointer == IndirectPointer::InlineQword0;
        let inline_max = if address_inline {
            g::INLINE_DWORDS - 2
        } else {
            g::INLINE_DWORDS
        };
        check_max(
            "inline dwords (2 fewer with the indirect data's address inline)",
            inline.len() as u64,
            inline_max as u64,
        )?;
        check_max(
            "indirect data bytes",
            indirect.len() as u64,
            g::MAX_INDIRECT_BYTES as u64,
        )?;
        let lanes = kernel.simd.lanes();
        Ok(Work::Compute {
            groups,
            group_size,
            threads: invocations.div_ceil(lanes as u64) as u32,
            right_mask: right_mask(invocations, lanes),
            inline,
            indirect,
            address_inline,
        })
    }
    #[cfg(not(feature = "gen12_5"))]
    {
        let _ = (kernel, groups, group_size, inline, indirect, pointer);
        Err(ComputeError::Unsupported {
            generation,
            what: "COMPUTE_WALKER (Gen12.5)",
        })
    }
}

/// A thread's payload, R0 then its constant rows then its inline data,
/// must fit the GRF registers it has, "min(128, 16 * GRF Register Block
/// Count)" (003 lines 28578-28586): 128, or on 965/G45 the blocks the
/// kernel's descriptor gives it (sr0.1 GRF Register Blocks, 000 line 8029).
/// The device refuses a larger one only when it dispatches; this names the
/// limit before anything runs.
fn check_payload(
    generation: Generation,
    kernel: &Kernel,
    work: &Work<'_>,
) -> Result<(), ComputeError> {
    let grf = match generation {
        Generation::Gen4 | Generation::G45 => {
            kernel.grf_registers.min(state::grf_registers(generation))
        }
        _ => state::grf_registers(generation),
    };
    let registers = 1 + kernel.curbe_rows() as u64 + work.inline_dwords().div_ceil(8) as u64;
    check_max(
        "payload registers (R0, CURBE and inline data)",
        registers,
        grf as u64,
    )
}

/// The execution mask of a group's last thread: its channels that hold an
/// invocation (all of them when the group size is a multiple of the SIMD
/// width) [ext: Mesa brw_cs_get_dispatch_info, right_mask; intel-gpu-tools
/// gen7_emit_gpgpu_walk].
pub fn right_mask(invocations: u64, lanes: u32) -> u32 {
    let lanes = lanes.clamp(1, 32);
    let rem = (invocations % lanes as u64) as u32;
    let used = if rem == 0 { lanes } else { rem };
    ((1u64 << used) - 1) as u32
}

/// The CURBE bytes to load: padded to whole registers of the kernel's
/// constant length, and for GPGPU one block per thread of a group.
fn curbe_data(kernel: &Kernel, work: &Work<'_>, data: &[u8]) -> Result<Vec<u8>, ComputeError> {
    let block = kernel.curbe_bytes as usize;
    if block == 0 {
        return if data.is_empty() {
            Ok(Vec::new())
        } else {
            Err(ComputeError::Invalid(
                "constant data for a kernel that reads none",
            ))
        };
    }
    let per_group = match *work {
        Work::Groups { threads, .. } => threads as usize,
        _ => 1,
    };
    if data.len() == block * per_group {
        return Ok(data.to_vec());
    }
    check_max("constant bytes", data.len() as u64, block as u64)?;
    let mut one = vec![0u8; block];
    one[..data.len()].copy_from_slice(data);
    Ok(one.repeat(per_group))
}

/// MI_BATCH_BUFFER_END of each generation (the same header everywhere).
fn batch_end(generation: Generation) -> u32 {
    match generation {
        Generation::Gen4 => baregpu_hal::gen4::commands::MiBatchBufferEnd::HEADER_VALUE,
        Generation::G45 => baregpu_hal::g45::commands::MiBatchBufferEnd::HEADER_VALUE,
        Generation::Gen6 => baregpu_hal::gen6::commands::MiBatchBufferEnd::HEADER_VALUE,
        _ => baregpu_hal::gen7::commands::MiBatchBufferEnd::HEADER_VALUE,
    }
}

/// Builds the batch of a planned dispatch (see [`build_batch`]).
pub(crate) fn build<'g, P: Platform>(
    gpu: &mut Gpu<'g, P>,
    generation: Generation,
    context: Option<ContextId>,
    plan: &Plan<'_>,
) -> Result<Batch<'g>, ComputeError> {
    build_batch_in(gpu, generation, context, |base, area, cmds| {
        state::record(generation, plan, base, area, cmds)
    })
}

/// Builds a batch whose state area `record` lays out: commands,
/// MI_BATCH_BUFFER_END, MI_NOOPs up to the next page, the state area.
/// `record(base, area, cmds)` writes both for the area at `base`.
///
/// The commands hold absolute addresses of the state area, which sits after
/// them: a first pass with base 0 measures the commands (their length must
/// not depend on the base), the second writes them for the real base.
pub(crate) fn build_batch<'g, P: Platform>(
    gpu: &mut Gpu<'g, P>,
    generation: Generation,
    record: impl Fn(u64, &mut StateArea, &mut Cmds) -> Result<(), ComputeError>,
) -> Result<Batch<'g>, ComputeError> {
    build_batch_in(gpu, generation, None, record)
}

/// [`build_batch`] for a batch of `context` (its PPGTT), or of the GGTT
/// without one.
pub(crate) fn build_batch_in<'g, P: Platform>(
    gpu: &mut Gpu<'g, P>,
    generation: Generation,
    context: Option<ContextId>,
    record: impl Fn(u64, &mut StateArea, &mut Cmds) -> Result<(), ComputeError>,
) -> Result<Batch<'g>, ComputeError> {
    let (mut area, mut cmds) = (StateArea::default(), Cmds::default());
    record(0, &mut area, &mut cmds)?;
    check_max("state bytes", area.bytes() as u64, MAX_STATE_BYTES as u64)?;
    // Commands, the end (padded to a QWord, 003 line 1893), then the state page(s).
    let ended = (cmds.dwords.len() + 1).next_multiple_of(2);
    let state_at = (ended * 4).next_multiple_of(4096);
    // Batch::push keeps two dwords free for the batch end the submission adds.
    let bytes = state_at + area.bytes() + 8;
    let mut batch = match context {
        Some(ctx) => gpu.new_context_batch(ctx, bytes)?,
        None => gpu.new_batch(bytes)?,
    };
    let base = batch.gfx().0 + state_at as u64;
    let measured = cmds.dwords.len();
    let filled = (|| {
        let (mut area, mut cmds) = (StateArea::default(), Cmds::default());
        record(base, &mut area, &mut cmds)?;
        if cmds.dwords.len() != measured {
            return Err(ComputeError::Invalid(
                "command length depends on the state base",
            ));
        }
        batch.push_dwords(&cmds.dwords)?;
        batch.push_dwords(&[batch_end(generation)])?;
        // MI_NOOP is 0 on every generation.
        batch.push_dwords(&vec![0; (state_at / 4).saturating_sub(batch.len())])?;
        batch.push_dwords(&area.dwords)?;
        Ok(())
    })();
    match filled {
        Ok(()) => Ok(batch),
        Err(e) => {
            // Never submitted: its GGTT range goes back, its memory with it.
            if let Some(mapping) = batch.ggtt_mapping.take() {
                gpu.unmap(mapping);
            }
            Err(e)
        }
    }
}
