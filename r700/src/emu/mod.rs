//! A functional emulator of the R700 shader core: wavefronts of threads in quads, the CF
//! program with its branch/loop/call stack, ALU clauses (VLIW groups with all reads before
//! any write, PV/PS forwarding, predicates, AR and the loop index, kcache and the constant
//! file), vertex and texture fetch through resource descriptors, the local data share
//! (LDS clauses, wavefronts of a group interleaved at BARRIER instructions), the SIMD-global
//! GPRs, EXPORT, the MEM_* writes and the memory reads (MEM_RD, CF READ), GS emit/cut events.
//! Sources: the R700 ISA manual (`002 lines A-B`), with Linux radeon and Mesa r600 cited where
//! the manual leaves a layout to the driver.
//!
//! What the manual leaves to the command processor (register setup, descriptor layouts,
//! the shader input layout) is defined here as the project's own launch interface:
//! [`Options`], [`Grid`] and the memory map of [`run`]; `r700/README.md` documents it.

// Per-thread state lives in parallel vectors indexed by the thread number.
#![allow(clippy::needless_range_loop)]

mod alu;
mod cf;
mod fetch;
mod float;
mod ops;
mod texture;

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::DecodeError;
use crate::program::Program;

pub use fetch::{Sampler, TexResource, VtxResource};

/// Threads per wavefront on RV770/RV740 (002 lines 9306-9307; Mesa `r600_wavefront_size`
/// gives 32 for RV730/RV710).
pub const WAVE_SIZE: usize = 64;

/// Every buffer is mapped at `index << 32` in the emulator's 40-bit GPU address space, so a
/// descriptor's 40-bit base (SQ_VTX_CONSTANT_WORD2 BASE_ADDRESS_HI, Linux radeon r600d.h)
/// names the buffer in its high byte and the byte offset in its low 32 bits.
pub const BUFFER_SHIFT: u32 = 32;

/// The GPU address of byte `offset` of buffer `index`.
pub const fn address(index: u8, offset: u32) -> u64 {
    (index as u64) << BUFFER_SHIFT | offset as u64
}

/// GS events each thread's list holds (the project's own limit; later ones are dropped and
/// counted in [`Report::dropped_writes`]).
pub const GS_EVENTS: u64 = 255;

/// How many threads run: `groups` thread groups of `group_size` threads, each group split
/// into wavefronts of [`Options::wave_size`] threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    pub groups: [u32; 3],
    pub group_size: [u32; 3],
}

/// A constant buffer for the kcache windows (SQ_ALU_CONST_CACHE_*, SQ_ALU_CONST_BUFFER_SIZE_*
/// in Linux radeon r600d.h): a GPU address and a size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConstBuffer {
    pub address: u64,
    pub size: u32,
}

/// The launch state the manual says the host writes (002 table 2.5-2.8, lines 512-575).
#[derive(Clone, Debug)]
pub struct Options {
    /// Threads per wavefront: 16, 32, 48 or 64.
    pub wave_size: usize,
    /// SQ_PGM_RESOURCES NUM_GPRS: GPRs 0..num_gprs are usable (1-128).
    pub num_gprs: u8,
    /// SQ_GPR_RESOURCE_MGMT_1 NUM_CLAUSE_TEMP_GPRS: GPRs 128-K..127 are clause temporaries.
    pub clause_temps: u8,
    /// SQ_PGM_RESOURCES STACK_SIZE, in stack entries (002 lines 1060-1088).
    pub stack_size: u32,
    /// Steps (CF instructions, ALU groups, fetches, per wavefront) before the run stops
    /// with [`EmuError::Budget`].
    pub budget: u64,
    /// Flush single-precision denormal inputs and results to zero of the same sign (the
    /// double-precision tables do it, 002 lines 2993-3005; SP is not specified).
    pub flush_denormals: bool,
    /// SQ_CONFIG ALU_INST_PREFER_VECTOR (Mesa sets it): a LAST instruction whose vector
    /// unit is free goes there rather than to Trans (002 lines 1249-1290).
    pub prefer_vector: bool,
    /// The DX9 constant file, c[0..256] (SRC_SEL 256-511).
    pub cfile: Vec<[u32; 4]>,
    /// Constant buffers 0-15 for the kcache windows.
    pub const_buffers: [Option<ConstBuffer>; 16],
    /// SQ_LOOP_CONST: COUNT `[11:0]`, INIT `[23:12]`, INC `[31:24]` (Linux radeon r600d.h,
    /// Mesa r600_state_common.c; one packed dword, not the manual's 3x32 of line 532).
    pub loop_consts: [u32; 32],
    /// SQ_BOOL_CONST: bit n is boolean constant n.
    pub bool_consts: u32,
    /// Vertex-fetch constants by BUFFER_ID.
    pub vtx_resources: Vec<(u8, VtxResource)>,
    /// The semantic table VTX_SEMANTIC looks its SEMANTIC_ID up in: (semantic ID, GPR) pairs
    /// (the project's own form of the host-written table, 002 lines 8296-8297).
    pub semantic_table: Vec<(u8, u8)>,
    /// SQ_VTX_BASE_VTX_LOC and SQ_VTX_START_INST_LOC (r600d.h): the index offsets
    /// FETCH_TYPE VERTEX_DATA and INSTANCE_DATA add to a vertex fetch's index.
    pub base_vertex: u32,
    pub start_instance: u32,
    /// Texture resources by RESOURCE_ID.
    pub tex_resources: Vec<(u8, TexResource)>,
    /// Samplers by SAMPLER_ID (0-17).
    pub samplers: Vec<(u8, Sampler)>,
    /// Border colours by SAMPLER_ID for BORDER_COLOR_TYPE 3 (TD_PS_SAMPLER0_BORDER_RED..ALPHA,
    /// four floats per sampler: Mesa r600_state.c), as GPR dwords (X = red).
    pub border_colors: Vec<(u8, [u32; 4])>,
    /// SX_MEMORY_EXPORT_BASE (Linux radeon r600d.h 0x9010): MEM_EXPORT's base, a GPU byte
    /// address (256-byte aligned: the manual appends six zero bits to a dword address, 2721).
    pub mem_export_base: Option<u64>,
    /// Where EXPORT writes: pixel, position, parameter (the project's own output layout).
    pub export_base: [Option<u64>; 3],
    /// MEM_STREAM0-3, MEM_SCRATCH, MEM_REDUCTION, MEM_RING buffers (ours, see [`run`]).
    pub stream_base: [Option<u64>; 4],
    pub scratch_base: Option<u64>,
    /// Dwords of scratch per thread (the stand-in for SQ_*TMP_RING_ITEMSIZE, r600d.h). When
    /// set, MEM_SCRATCH writes, CF scratch reads and MEM_RD scratch reads all address thread
    /// `t`'s item at `scratch_base + t * scratch_item * 4`; unset, MEM_SCRATCH writes keep the
    /// per-instruction items of `run` and scratch reads are refused.
    pub scratch_item: Option<u32>,
    pub reduction_base: Option<u64>,
    pub ring_base: Option<u64>,
    /// Where EMIT_VERTEX / CUT_VERTEX / EMIT_CUT_VERTEX are recorded (the project's stand-in
    /// for VGT's vertex counting and strip cuts): thread `t` owns `GS_EVENTS + 1` dwords at
    /// `gs_events + t * (GS_EVENTS + 1) * 4`, the count of its events, then each event (1 emit,
    /// 2 cut, 3 emit and cut). The vertex data itself goes out by MEM_RING before each emit.
    pub gs_events: Option<u64>,
    /// Per-thread inputs (what SPI would load for a PS, ours): thread `t`'s GPRs
    /// `first..first+count` from `address + (t * count + k) * 16`, after R0-R2, so they
    /// may replace them.
    pub inputs: Option<Inputs>,
    /// SIMD-global GPRs (the shared pool of 002 lines 583-625; its count is the "state
    /// register ... defining the number of registers reserved for global usage"): absolute
    /// GPRs 0..global_gprs, one set per lane shared by every wavefront of the dispatch, zeroed
    /// at its start. Reached by the ALU's INDEX_GLOBAL/INDEX_GLOBAL_AR_X and LDS REL_GLOBAL.
    pub global_gprs: u8,
    /// Local data share bytes per thread group: four banks of equal size. R700 has 16 kB
    /// per SIMD, four banks of 256 16-byte entries (002 lines 629-631). A multiple of 16.
    pub lds_size: usize,
}

/// See [`Options::inputs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inputs {
    pub address: u64,
    pub first: u8,
    pub count: u8,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            wave_size: WAVE_SIZE,
            num_gprs: 128,
            clause_temps: 0,
            stack_size: 32,
            budget: 1 << 20,
            flush_denormals: true,
            prefer_vector: true,
            cfile: alloc::vec![[0; 4]; 256],
            const_buffers: [None; 16],
            loop_consts: [0; 32],
            bool_consts: 0,
            vtx_resources: Vec::new(),
            semantic_table: Vec::new(),
            base_vertex: 0,
            start_instance: 0,
            tex_resources: Vec::new(),
            samplers: Vec::new(),
            border_colors: Vec::new(),
            mem_export_base: None,
            export_base: [None; 3],
            stream_base: [None; 4],
            scratch_base: None,
            scratch_item: None,
            reduction_base: None,
            ring_base: None,
            gs_events: None,
            inputs: None,
            lds_size: 16 * 1024,
            global_gprs: 0,
        }
    }
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub wavefronts: u64,
    pub threads: u64,
    /// CF instructions, ALU groups and fetch instructions executed (all wavefronts).
    pub steps: u64,
    /// Memory writes dropped because their address fell outside every buffer or past a clamp.
    pub dropped_writes: u64,
    /// Threads whose valid bit a KILL cleared.
    pub killed: u64,
    /// LDS dwords written or read outside the LDS (the manual does not say what happens:
    /// such writes are dropped and such reads return 0, see `cf.rs` `lds_clause`).
    pub lds_out_of_range: u64,
}

/// Why a run stopped early. None of these is a panic; they name what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmuError {
    Decode(DecodeError),
    /// The step budget ran out (an endless loop, or a budget too small).
    Budget {
        steps: u64,
    },
    /// The CF program counter left the CF program.
    PcOutOfRange {
        pc: u32,
    },
    /// The branch stack needs more than `Options::stack_size` entries.
    StackOverflow {
        pc: u32,
    },
    /// RETURN outside a subroutine (002 lines 1163-1170: illegal).
    ReturnOutsideCall {
        pc: u32,
    },
    /// A group the hardware cannot issue (two instructions for one unit, a Trans-only op
    /// with Trans taken, a reduction not on all four vector units, ...).
    IllegalGroup {
        clause: u32,
        group: usize,
        why: &'static str,
    },
    /// A fetch names a resource or sampler that is not bound, or one with a layout this
    /// emulator does not model.
    Resource {
        pc: u32,
        why: String,
    },
    /// A valid instruction this emulator does not model yet.
    Unsupported {
        pc: u32,
        what: &'static str,
    },
    /// Bad launch parameters.
    Launch(String),
}

impl From<DecodeError> for EmuError {
    fn from(e: DecodeError) -> Self {
        EmuError::Decode(e)
    }
}

impl fmt::Display for EmuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmuError::Decode(e) => write!(f, "decode: {e}"),
            EmuError::Budget { steps } => {
                write!(f, "stopped after {steps} steps: the step budget ran out")
            }
            EmuError::PcOutOfRange { pc } => {
                write!(f, "CF program counter {pc} is outside the CF program")
            }
            EmuError::StackOverflow { pc } => {
                write!(f, "CF {pc}: branch stack deeper than STACK_SIZE")
            }
            EmuError::ReturnOutsideCall { pc } => {
                write!(f, "CF {pc}: RETURN outside a subroutine")
            }
            EmuError::IllegalGroup { clause, group, why } => {
                write!(f, "ALU clause at slot {clause}, group {group}: {why}")
            }
            EmuError::Resource { pc, why } => write!(f, "CF {pc}: {why}"),
            EmuError::Unsupported { pc, what } => {
                write!(f, "CF {pc}: {what} is not emulated yet")
            }
            EmuError::Launch(why) => write!(f, "launch: {why}"),
        }
    }
}

impl core::error::Error for EmuError {}

/// The buffers a kernel sees: buffer `i` at GPU address `i << 32` ([`address`]).
pub(crate) struct Memory<'a, 'b> {
    pub bufs: &'a mut [&'b mut [u8]],
    pub dropped: u64,
    /// The current thread group's local data share, in dwords: bank `b` holds dwords
    /// `b * len / 4 ..` (002 lines 629-631, 648-656).
    pub lds: Vec<u32>,
    pub lds_out_of_range: u64,
    /// The SIMD-global GPRs, `lane * 128 + g` ([`Options::global_gprs`]).
    pub globals: Vec<[u32; 4]>,
}

impl Memory<'_, '_> {
    fn slice(&self, addr: u64, len: usize) -> Option<(usize, usize)> {
        let idx = (addr >> BUFFER_SHIFT) as usize;
        let off = (addr & 0xFFFF_FFFF) as usize;
        let buf = self.bufs.get(idx)?;
        (off.checked_add(len)? <= buf.len()).then_some((idx, off))
    }

    /// Reads `out.len()` bytes at `addr`; `false` (and zeros) if any byte is unmapped.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> bool {
        match self.slice(addr, out.len()) {
            Some((i, o)) => {
                out.copy_from_slice(&self.bufs[i][o..o + out.len()]);
                true
            }
            None => {
                out.fill(0);
                false
            }
        }
    }

    pub fn read_u32(&self, addr: u64) -> Option<u32> {
        let mut b = [0; 4];
        self.read(addr, &mut b).then(|| u32::from_le_bytes(b))
    }

    /// Writes a dword; an unmapped address drops the write and counts it.
    pub fn write_u32(&mut self, addr: u64, v: u32) {
        match self.slice(addr, 4) {
            Some((i, o)) => self.bufs[i][o..o + 4].copy_from_slice(&v.to_le_bytes()),
            None => self.dropped += 1,
        }
    }
}

/// Runs `program` (a little-endian R700 binary, CF program at byte 0) over `grid`.
///
/// Input layout (the project's own; Mesa r600_shader.c gives a VS R0.x = VertexID):
/// R0 = (global linear thread id, linear id in the group, linear group id, 0),
/// R1 = (local id x, y, z, 0), R2 = (group id x, y, z, 0); all other GPRs are zero.
/// Threads of a group run in wavefronts of `wave_size` threads, in quads of four
/// consecutive threads; a last partial wavefront has its missing threads invalid.
///
/// Memory: buffer `i` is mapped at `i << 32`. EXPORT of type PIXEL/POS/PARAM writes
/// thread `t`'s ARRAY_BASE+n at `export_base[type] + (t * 64 + ARRAY_BASE + n) * 16`.
/// MEM_STREAM/SCRATCH/REDUCTION/RING writes give each thread an item of ARRAY_SIZE
/// elements: `base + (t * ARRAY_SIZE * (ELEM_SIZE+1) + first_mem) * 4`.
pub fn run(
    program: &[u8],
    buffers: &mut [&mut [u8]],
    grid: Grid,
    options: &Options,
) -> Result<Report, EmuError> {
    let prog = Program::decode(program)?;
    run_program(&prog, buffers, grid, options)
}

/// [`run`] for an already decoded program.
pub fn run_program(
    prog: &Program,
    buffers: &mut [&mut [u8]],
    grid: Grid,
    options: &Options,
) -> Result<Report, EmuError> {
    if !matches!(options.wave_size, 16 | 32 | 48 | 64) {
        return Err(EmuError::Launch(alloc::format!(
            "wave size {} is not 16, 32, 48 or 64",
            options.wave_size
        )));
    }
    if options.num_gprs == 0 || options.num_gprs > 128 || options.clause_temps > 128 {
        return Err(EmuError::Launch(alloc::format!(
            "{} GPRs with {} clause temporaries: GPRs are 1-128",
            options.num_gprs,
            options.clause_temps
        )));
    }
    let group_threads = grid
        .group_size
        .iter()
        .try_fold(1u64, |a, &b| a.checked_mul(b as u64))
        .filter(|&n| n > 0)
        .ok_or_else(|| EmuError::Launch("empty or overflowing thread group".into()))?;
    let groups = grid
        .groups
        .iter()
        .try_fold(1u64, |a, &b| a.checked_mul(b as u64))
        .ok_or_else(|| EmuError::Launch("grid overflows".into()))?;
    let total = groups
        .checked_mul(group_threads)
        .filter(|&n| n <= u32::MAX as u64)
        .ok_or_else(|| EmuError::Launch("more than 2^32 threads".into()))?;
    if !options.lds_size.is_multiple_of(16) || options.lds_size > 1 << 24 {
        return Err(EmuError::Launch(alloc::format!(
            "LDS size {} is not a multiple of 16 bytes up to 16 MiB",
            options.lds_size
        )));
    }
    let mut mem = Memory {
        bufs: buffers,
        dropped: 0,
        lds: Vec::new(),
        lds_out_of_range: 0,
        globals: alloc::vec![[0; 4]; 128 * options.wave_size],
    };
    let mut report = Report {
        threads: total,
        ..Report::default()
    };
    let mut budget = options.budget;
    let [gx, gy, _] = grid.groups;
    let [sx, sy, _] = grid.group_size;
    for g in 0..groups {
        let gid = [
            (g % gx as u64) as u32,
            (g / gx as u64 % gy as u64) as u32,
            (g / (gx as u64 * gy as u64)) as u32,
        ];
        // Each thread group starts with a zeroed LDS (the manual leaves its initial contents
        // undefined; zero keeps runs repeatable).
        mem.lds.clear();
        mem.lds.resize(options.lds_size / 4, 0);
        // Every wavefront of the group first, then run them in turns: each runs until it
        // reaches a CF instruction with BARRIER set (or ends), so a BARRIER instruction
        // starts only when every wavefront of the group has completed what precedes its own
        // barrier (the project's reading of "all prior instructions must complete", 002
        // lines 7710-7713: R700 has no separate group barrier).
        let mut waves = Vec::new();
        let mut first = 0u64;
        while first < group_threads {
            let n = (group_threads - first).min(options.wave_size as u64) as usize;
            let mut init = Vec::with_capacity(n);
            for i in 0..n as u64 {
                let local = first + i;
                let lid = [
                    (local % sx as u64) as u32,
                    (local / sx as u64 % sy as u64) as u32,
                    (local / (sx as u64 * sy as u64)) as u32,
                ];
                init.push([
                    [
                        (g * group_threads + local) as u32,
                        local as u32,
                        g as u32,
                        0,
                    ],
                    [lid[0], lid[1], lid[2], 0],
                    [gid[0], gid[1], gid[2], 0],
                ]);
            }
            let mut wave = cf::Wave::new(options, &init);
            if let Some(inp) = options.inputs {
                for (t, row) in init.iter().enumerate() {
                    for k in 0..inp.count as u64 {
                        let g = inp.first as u64 + k;
                        if g >= 128 {
                            break;
                        }
                        let at = inp
                            .address
                            .wrapping_add((row[0][0] as u64 * inp.count as u64 + k) * 16);
                        let v = core::array::from_fn(|c| {
                            mem.read_u32(at.wrapping_add(4 * c as u64)).unwrap_or(0)
                        });
                        wave.set_gpr(t, g as usize, v);
                    }
                }
            }
            waves.push(Some(wave));
            first += n as u64;
        }
        while waves.iter().any(Option::is_some) {
            for slot in waves.iter_mut() {
                let Some(wave) = slot else { continue };
                let (used, ended) = wave.run(prog, options, &mut mem, budget)?;
                budget -= used;
                report.steps += used;
                if ended {
                    report.killed += wave.killed();
                    report.wavefronts += 1;
                    *slot = None;
                }
            }
        }
    }
    report.dropped_writes = mem.dropped;
    report.lds_out_of_range = mem.lds_out_of_range;
    Ok(report)
}
