//! Kernel upload: check an EU binary, copy it into instruction memory with
//! the alignment and prefetch padding the hardware needs, and keep what the
//! interface descriptor will say about it.

use alloc::vec::Vec;

use baregpu_hal::Generation;
use baregpu_isa::IsaGen;
use baregpu_isa::inst::Body;
use baregpu_isa::kernel::decode_kernel;

use super::error::{ComputeError, check_max};
use super::memory::Backing;
use super::surface::write_region;
use crate::gtt::GfxAddr;
use crate::platform::Platform;
use crate::submit::{ContextId, Gpu, Placement};

/// Kernel start pointers are 64-byte aligned: INTERFACE_DESCRIPTOR(_DATA)
/// DW0 bits 31:6 on every generation (003 line 47762; 965/G45 and Ivy Bridge
/// in the hal tables [ext: intel-vaapi-driver i965_structs.h, Mesa gen7.xml]).
pub const KERNEL_ALIGN: usize = 64;

/// The EUs may fetch up to 8 instructions (128 bytes) past the end of a
/// kernel (000 lines 9187-9193, SNB 003 lines 92725-92735; Ivy Bridge's
/// manual 001 lacks the chapter and the rule is carried over, as Mesa pads
/// every program). The padding holds NOPs, the fix the manuals name.
pub const PREFETCH_PAD: usize = 128;

/// `nop`: opcode 0x7E in bits 6:0, every other bit 0 (000 line 10260; the
/// same opcode on Gen6/Gen7, notes seed-001-003 opcode table).
const NOP: [u8; 16] = [0x7e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

/// Xe-HPG's `nop`: opcode 0x60 in bits 6:0 (isa xehpg tables; `iga64
/// -p=12p71` assembles `nop` to these 16 bytes).
const NOP_XE: [u8; 16] = [0x60, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

/// Size of one instruction heap; bigger kernels get a heap of their own.
const HEAP_BYTES: usize = 64 << 10;

/// SIMD width a kernel was compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Simd {
    Simd8,
    Simd16,
    Simd32,
}

impl Simd {
    /// Channels per thread.
    pub const fn lanes(self) -> u32 {
        match self {
            Simd::Simd8 => 8,
            Simd::Simd16 => 16,
            Simd::Simd32 => 32,
        }
    }
}

/// The local IDs COMPUTE_WALKER generates into a thread's payload after R0
/// (Gen12.5; 004 COMPUTE_WALKER Emit Local: X, XY or XYZ, one register per
/// component at SIMD8/16, two at SIMD32). The older generations' kernels
/// compute their IDs themselves and ignore it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LocalIds {
    None,
    X,
    Xy,
    Xyz,
}

impl LocalIds {
    /// Components emitted.
    pub const fn components(self) -> u32 {
        match self {
            LocalIds::None => 0,
            LocalIds::X => 1,
            LocalIds::Xy => 2,
            LocalIds::Xyz => 3,
        }
    }
}

/// What the driver needs to know about a kernel to dispatch it.
#[derive(Clone, Copy, Debug)]
pub struct KernelDesc<'a> {
    /// The EU binary (native and, from G45 on, compact instructions).
    pub binary: &'a [u8],
    /// SIMD width (GPGPU_WALKER dispatch; media threads are what the kernel makes of them).
    pub simd: Simd,
    /// GRF registers the threads need, 16-128 in steps of 16 (965/G45 only:
    /// the later interface descriptors have no such field).
    pub grf_registers: u32,
    /// Constant (CURBE) bytes each thread receives after R0, a multiple of 32.
    pub curbe_bytes: u32,
    /// Binding table indices the kernel accesses; a dispatch must bind each.
    pub bindings: &'a [u32],
    /// Sampler indices (0-15) its sample messages name; a dispatch must
    /// give a [`Sampler`](super::Sampler) for each.
    pub samplers: &'a [u32],
    /// GPGPU thread-group barriers (Ivy Bridge).
    pub barriers: bool,
    /// Shared local memory per thread group in bytes (Ivy Bridge, at most 64 KiB).
    pub slm_bytes: u32,
    /// Scratch space per thread in bytes (0 = none).
    pub scratch_bytes: u32,
    /// Single program flow (no divergent branches in the kernel).
    pub single_program_flow: bool,
    /// The local IDs the Gen12.5 walker writes after R0 (default XYZ).
    pub local_ids: LocalIds,
    /// Byte offset in `binary` of the instruction threads start at
    /// (Gen12.5; 0 elsewhere): 64-byte aligned, as Kernel Start Pointer is
    /// (bits 31:6), and at an instruction. IGC's kernels start past their
    /// per-thread payload prologue when the walker generates the local IDs
    /// (zebin `offset_to_skip_per_thread_data_load`).
    pub entry: u32,
}

impl<'a> KernelDesc<'a> {
    /// A SIMD16 kernel with 128 GRFs and nothing else.
    pub const fn new(binary: &'a [u8]) -> Self {
        KernelDesc {
            binary,
            simd: Simd::Simd16,
            grf_registers: 128,
            curbe_bytes: 0,
            bindings: &[],
            samplers: &[],
            barriers: false,
            slm_bytes: 0,
            scratch_bytes: 0,
            single_program_flow: false,
            local_ids: LocalIds::Xyz,
            entry: 0,
        }
    }
}

/// Per-thread scratch memory of a kernel.
#[derive(Debug)]
pub(crate) struct Scratch<'a> {
    /// Owned so that the scratch space lives as long as the kernel; only
    /// the device addresses it.
    pub memory: Backing<'a>,
    /// The MEDIA_VFE_STATE Per Thread Scratch Space code; on Gen12.5 the
    /// scratch surface's pitch, the bytes of one thread's part.
    pub encoded: u32,
}

/// A kernel in instruction memory, from [`super::Compute::load_kernel`].
#[derive(Debug)]
pub struct Kernel<'a> {
    pub(crate) generation: Generation,
    /// First instruction.
    pub(crate) gfx: GfxAddr,
    /// The heap holding it: Instruction Base Address and its upper bound.
    pub(crate) heap_base: GfxAddr,
    pub(crate) heap_end: GfxAddr,
    pub(crate) len: usize,
    pub(crate) instructions: usize,
    pub(crate) simd: Simd,
    pub(crate) grf_registers: u32,
    pub(crate) curbe_bytes: u32,
    pub(crate) bindings: Vec<u32>,
    pub(crate) samplers: Vec<u32>,
    pub(crate) barriers: bool,
    pub(crate) slm_bytes: u32,
    pub(crate) single_program_flow: bool,
    #[cfg_attr(not(feature = "gen12_5"), allow(dead_code))]
    pub(crate) local_ids: LocalIds,
    /// Where threads start, bytes past `gfx` (`KernelDesc::entry`).
    #[cfg_attr(not(feature = "gen12_5"), allow(dead_code))]
    pub(crate) entry: u32,
    /// Owned: the scratch memory goes back to the platform with the kernel.
    pub(crate) scratch: Option<Scratch<'a>>,
}

impl Kernel<'_> {
    /// Graphics address of the first instruction.
    pub fn gfx(&self) -> GfxAddr {
        self.gfx
    }
    /// Bytes of the binary (without padding).
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Instructions in the binary.
    pub fn instruction_count(&self) -> usize {
        self.instructions
    }
    pub fn generation(&self) -> Generation {
        self.generation
    }
    /// Graphics address of the kernel's scratch space, if it has one.
    pub fn scratch_gfx(&self) -> Option<GfxAddr> {
        self.scratch.as_ref().map(|s| s.memory.gfx())
    }
    /// 256-bit constant registers each thread reads.
    pub(crate) fn curbe_rows(&self) -> u32 {
        self.curbe_bytes / 32
    }
}

/// A buffer of kernels (GGTT, or the compute context's PPGTT), filled
/// front to back.
#[derive(Debug)]
pub(crate) struct InstructionHeap<'a> {
    pub memory: Backing<'a>,
    pub used: usize,
}

impl InstructionHeap<'_> {
    pub(crate) fn size(&self) -> usize {
        self.memory.len()
    }

    /// Offset where `need` bytes fit at kernel alignment, if they do.
    fn fit(&self, need: usize) -> Option<usize> {
        let at = self.used.next_multiple_of(KERNEL_ALIGN);
        (at.checked_add(need)? <= self.size()).then_some(at)
    }
}

/// The ISA platform that decodes kernels of `generation` (the device description's `eu_isa`).
/// Gen12.5 has no device description yet: its ISA is Xe-HPG (`12p71`).
pub(crate) fn isa_gen(generation: Generation) -> Option<IsaGen> {
    match generation {
        #[cfg(feature = "gen12_5")]
        Generation::Gen12_5 => Some(IsaGen::Gen12_5),
        _ => IsaGen::from_name(baregpu_hal::device::of(generation)?.eu_isa),
    }
}

/// Gen12.5 (Xe-HPG): COMPUTE_WALKER, not the media/GPGPU pipelines.
pub(crate) fn is_xe(generation: Generation) -> bool {
    isa_gen(generation).is_some_and(IsaGen::is_xe)
}

/// Checks a kernel before anything is allocated for it: it decodes, it ends
/// its threads, and its resource needs fit the generation. Returns the
/// number of instructions.
///
/// The limits come from the device description (as `state::limits` reads them;
/// the state builders read [`Kernel`], so this module does not import the
/// state); the scratch size is checked by the caller as it encodes it
/// (`state::scratch_code`).
pub(crate) fn validate(
    generation: Generation,
    desc: &KernelDesc<'_>,
) -> Result<usize, ComputeError> {
    let platform = isa_gen(generation).ok_or(ComputeError::Unsupported {
        generation,
        what: "compute",
    })?;
    if desc.binary.is_empty() {
        return Err(ComputeError::EmptyKernel);
    }
    let entries = decode_kernel(platform, desc.binary)?;
    check_entry(generation, platform, desc.entry, &entries)?;
    let ends = entries
        .iter()
        .any(|e| matches!(e.inst.body, Body::Send(s) if s.eot));
    if !ends {
        return Err(ComputeError::NoEndOfThread);
    }
    if platform.is_xe() {
        return validate_xe(generation, desc, &entries);
    }
    if !desc.curbe_bytes.is_multiple_of(32) {
        return Err(ComputeError::Invalid(
            "CURBE bytes must be a multiple of 32 (whole registers)",
        ));
    }
    let unsupported = |what| ComputeError::Unsupported { generation, what };
    // The device description's compute limits (what `state::limits` reads).
    let limits = baregpu_hal::device::of(generation).and_then(|d| d.compute);
    // Groups, their barriers and shared memory, and SIMD32 come with GPGPU_WALKER.
    if !limits.is_some_and(|c| c.gpgpu_walker) {
        if desc.barriers {
            return Err(unsupported("thread-group barriers"));
        }
        if desc.slm_bytes != 0 {
            return Err(unsupported("shared local memory"));
        }
        if desc.simd == Simd::Simd32 {
            return Err(unsupported("SIMD32"));
        }
    }
    // 128 GRFs in 16-register blocks: the thread's sr0.1 GRF Register Blocks
    // ranges over 16-128 registers (000 line 8029).
    if desc.grf_registers == 0 || !desc.grf_registers.is_multiple_of(16) {
        return Err(ComputeError::Invalid(
            "GRF registers must be a multiple of 16",
        ));
    }
    check_max("GRF registers", desc.grf_registers as u64, 128)?;
    if let Some(&index) = desc
        .samplers
        .iter()
        .find(|&&i| i >= super::sampler::MAX_SAMPLERS)
    {
        return Err(ComputeError::BadSampler { index });
    }
    check_max(
        "CURBE bytes per thread",
        desc.curbe_bytes as u64,
        limits.map_or(0, |c| c.curbe_read_rows) as u64 * 32,
    )?;
    let slm_max = limits.map_or(0, |c| c.shared_local_memory_bytes);
    check_max(
        "shared local memory bytes",
        desc.slm_bytes as u64,
        slm_max as u64,
    )?;
    Ok(entries.len())
}

/// The entry point: 0, or on Gen12.5 a 64-byte aligned offset (Kernel
/// Start Pointer bits 31:6, hal compute.toml) of a decoded instruction.
fn check_entry(
    generation: Generation,
    platform: IsaGen,
    entry: u32,
    entries: &[baregpu_isa::kernel::Entry],
) -> Result<(), ComputeError> {
    if entry == 0 {
        return Ok(());
    }
    if !platform.is_xe() {
        return Err(ComputeError::Unsupported {
            generation,
            what: "a kernel entry point past the first instruction (Gen12.5 only)",
        });
    }
    let offset = entry as usize;
    let why = if !offset.is_multiple_of(KERNEL_ALIGN) {
        "the entry point is not 64-byte aligned (Kernel Start Pointer bits 31:6)"
    } else if !entries.iter().any(|e| e.offset == offset) {
        "the entry point is not at an instruction of the kernel"
    } else {
        return Ok(());
    };
    Err(ComputeError::KernelInvalid {
        offset,
        why: alloc::string::String::from(why),
    })
}

/// The rest of [`validate`] for a Gen12.5 binary that decodes and ends its
/// threads: it also passes the ISA's rules (SWSB among them) before
/// anything runs it, the first error refusing it; then its resource needs.
#[cfg(feature = "gen12_5")]
fn validate_xe(
    generation: Generation,
    desc: &KernelDesc<'_>,
    entries: &[baregpu_isa::kernel::Entry],
) -> Result<usize, ComputeError> {
    use baregpu_isa::validate::{Severity, validate_entries};
    let platform = isa_gen(generation).ok_or(ComputeError::Unsupported {
        generation,
        what: "compute",
    })?;
    let found = validate_entries(platform, entries, desc.binary.len());
    if let Some((offset, v)) = found
        .into_iter()
        .find(|(_, v)| v.severity == Severity::Error)
    {
        return Err(ComputeError::KernelInvalid {
            offset,
            why: alloc::string::ToString::to_string(&v),
        });
    }
    check_xe_needs(generation, desc)?;
    Ok(entries.len())
}

#[cfg(not(feature = "gen12_5"))]
fn validate_xe(
    generation: Generation,
    _: &KernelDesc<'_>,
    _: &[baregpu_isa::kernel::Entry],
) -> Result<usize, ComputeError> {
    Err(ComputeError::Unsupported {
        generation,
        what: "compute",
    })
}

/// Copies a validated binary, then NOP padding, into a heap with room (a new
/// one when none has); returns (heap index, offset in the heap).
pub(crate) fn upload<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    context: Option<ContextId>,
    heaps: &mut Vec<InstructionHeap<'a>>,
    binary: &[u8],
) -> Result<(usize, usize), ComputeError> {
    let nop = if is_xe(gpu.generation()) {
        &NOP_XE
    } else {
        &NOP
    };
    let need = binary.len().next_multiple_of(16) + PREFETCH_PAD;
    let found = heaps
        .iter()
        .enumerate()
        .find_map(|(i, h)| h.fit(need).map(|at| (i, at)));
    let (index, at) = match found {
        Some(f) => f,
        None => {
            let size = need.max(HEAP_BYTES).next_multiple_of(4096);
            let memory = Backing::new(gpu, context, Placement::System, size)?;
            heaps.push(InstructionHeap { memory, used: 0 });
            (heaps.len() - 1, 0)
        }
    };
    let heap = &mut heaps[index];
    let limit = heap.size();
    write_region(&heap.memory, limit, at, binary)?;
    // A compact instruction may end the binary half way into a 16-byte
    // slot: zero the rest of it, then fill the prefetch window with NOPs.
    let mut pos = at + binary.len().next_multiple_of(16);
    let tail = pos - (at + binary.len());
    write_region(&heap.memory, limit, at + binary.len(), &[0; 16][..tail])?;
    while pos < at + need {
        write_region(&heap.memory, limit, pos, nop)?;
        pos += nop.len();
    }
    heap.used = at + need;
    Ok((index, at))
}

/// Shared local memory of one group: the interface descriptor's largest
/// encoding, 64 KiB (hal compute.toml Shared Local Memory Size, Mesa gen125.xml).
pub const MAX_SLM_BYTES: u32 = 64 << 10;

/// Checks a Gen12.5 kernel's needs (after the binary decoded and passed
/// the ISA rules).
#[cfg(feature = "gen12_5")]
fn check_xe_needs(generation: Generation, desc: &KernelDesc<'_>) -> Result<(), ComputeError> {
    let unsupported = |what| ComputeError::Unsupported { generation, what };
    if desc.curbe_bytes != 0 {
        return Err(unsupported(
            "CURBE constants on Gen12.5 (it has none: use inline or indirect data)",
        ));
    }
    // The scratch size is checked where it is encoded
    // (`state::scratch_code`, `state::gen12_5::scratch_pitch`).
    if !desc.samplers.is_empty() {
        return Err(unsupported("samplers on Gen12.5 (not programmed yet)"));
    }
    // 128 GRFs: `state::gen12_5::record` writes Large GRF Mode off (STATE_COMPUTE_MODE).
    if desc.grf_registers != 128 {
        return Err(ComputeError::Invalid(
            "Gen12.5 threads have 128 GRF registers (Large GRF Mode is not used)",
        ));
    }
    check_max(
        "shared local memory bytes",
        desc.slm_bytes as u64,
        MAX_SLM_BYTES as u64,
    )
}
