//! Per-generation state and command building.
//!
//! A dispatch becomes one batch: the commands, MI_BATCH_BUFFER_END, then (at
//! the next 4 KiB boundary, so it can be a state base address) the state
//! area the commands point into: binding table, SURFACE_STATEs, interface
//! descriptor, CURBE data and the small scratch words the flushes need.
//! Everything is freed with the batch when its fence completes.
//!
//! The builders here only pack: every size and count was checked when the
//! [`Plan`] was made (`dispatch.rs`), and any value that still does not fit
//! a field comes back as [`ComputeError::Pack`].

#[cfg(feature = "gen12_5")]
pub mod gen12_5;
pub mod gen4;
pub mod gen6;
pub mod gen7;
mod media;
pub(crate) mod sampler;
mod surface;

use alloc::vec::Vec;

use baregpu_hal::device::{self, ComputeDesc};
use baregpu_hal::{Generation, Packet};

use super::error::ComputeError;
use super::kernel::Kernel;
use super::sampler::SamplerDesc;
use super::surface::SurfaceDesc;

/// State area bytes addressable from one base: binding tables must lie in
/// the first 64 KiB of Surface State Base on SNB B+ (the pointer's bits
/// 31:16 must be 0, 003 lines 26859-26900) and Ivy Bridge's interface
/// descriptor holds only bits 15:5 [ext: Mesa gen7.xml INTERFACE_DESCRIPTOR_DATA].
pub const MAX_STATE_BYTES: usize = 64 << 10;

/// A dispatch after validation: what every generation's builder needs.
#[derive(Debug)]
pub(crate) struct Plan<'a> {
    pub kernel: &'a Kernel<'a>,
    pub work: Work<'a>,
    /// The bytes MEDIA_CURBE_LOAD / CONSTANT_BUFFER deliver, whole registers.
    pub curbe: Vec<u8>,
    /// Bound surfaces, sorted by binding table index.
    pub surfaces: Vec<(u32, SurfaceDesc)>,
    /// Binding table entries (highest index + 1; 0 = no table).
    pub bt_entries: u32,
    /// Bound samplers, sorted by index.
    pub samplers: Vec<(u32, SamplerDesc)>,
}

/// How the threads are launched.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Work<'a> {
    /// One MEDIA_OBJECT per thread; thread `i` gets
    /// `inline[i * per_thread..][..per_thread]`.
    Objects {
        inline: &'a [u32],
        per_thread: usize,
        threads: usize,
    },
    /// MEDIA_OBJECT_WALKER over a `width` x `height` grid, every thread with
    /// the same inline data.
    Walker {
        width: u32,
        height: u32,
        inline: &'a [u32],
    },
    /// GPGPU_WALKER: `groups` thread groups of `threads` threads each, the
    /// last thread of a group masked by `right_mask`.
    Groups {
        groups: [u32; 3],
        threads: u32,
        right_mask: u32,
    },
    /// COMPUTE_WALKER (Gen12.5): `groups` groups of `group_size`
    /// invocations in `threads` threads, the last masked by `right_mask`;
    /// the walker's inline data and the indirect data.
    #[cfg_attr(not(feature = "gen12_5"), allow(dead_code))]
    Compute {
        groups: [u32; 3],
        group_size: [u32; 3],
        threads: u32,
        right_mask: u32,
        inline: &'a [u32],
        indirect: &'a [u8],
        /// The indirect data's address takes inline dwords 0-1 (the
        /// dispatch asked for `IndirectPointer::InlineQword0`).
        address_inline: bool,
    },
}

impl Work<'_> {
    /// Inline dwords each thread's URB entry must hold.
    pub fn inline_dwords(&self) -> usize {
        match *self {
            Work::Objects { per_thread, .. } => per_thread,
            Work::Walker { inline, .. } => inline.len(),
            Work::Groups { .. } | Work::Compute { .. } => 0,
        }
    }
}

/// The state area being laid out; offsets are bytes from its start, which
/// is 4 KiB aligned in memory, so alignment here is alignment there.
#[derive(Debug, Default)]
pub(crate) struct StateArea {
    pub dwords: Vec<u32>,
}

impl StateArea {
    /// Reserves `bytes` (zeroed) at the next multiple of `align`.
    pub fn alloc(&mut self, bytes: usize, align: usize) -> u32 {
        let at = (self.dwords.len() * 4).next_multiple_of(align);
        self.dwords.resize((at + bytes).div_ceil(4), 0);
        at as u32
    }

    /// Packs a structure at `at` (from [`StateArea::alloc`]).
    pub fn put<P: Packet>(&mut self, at: u32, p: &P) -> Result<(), ComputeError> {
        let start = at as usize / 4;
        let end = start + p.dwords();
        if self.dwords.len() < end {
            self.dwords.resize(end, 0);
        }
        p.pack(&mut self.dwords[start..end])?;
        Ok(())
    }

    /// Copies bytes (little-endian dwords) to `at`, a multiple of 4.
    pub fn put_bytes(&mut self, at: u32, bytes: &[u8]) {
        let start = at as usize / 4;
        let end = start + bytes.len().div_ceil(4);
        if self.dwords.len() < end {
            self.dwords.resize(end, 0);
        }
        for (k, chunk) in bytes.chunks(4).enumerate() {
            let mut w = [0u8; 4];
            w[..chunk.len()].copy_from_slice(chunk);
            self.dwords[start + k] = u32::from_le_bytes(w);
        }
    }

    pub fn bytes(&self) -> usize {
        self.dwords.len() * 4
    }
}

/// The command stream being built; it starts at the batch's first dword.
#[derive(Debug, Default)]
pub(crate) struct Cmds {
    pub dwords: Vec<u32>,
}

impl Cmds {
    pub fn push<P: Packet>(&mut self, p: &P) -> Result<(), ComputeError> {
        let start = self.dwords.len();
        self.dwords.resize(start + p.dwords(), 0);
        let n = p.pack(&mut self.dwords[start..])?;
        self.dwords.truncate(start + n);
        Ok(())
    }

    pub fn raw(&mut self, dwords: &[u32]) {
        self.dwords.extend_from_slice(dwords);
    }
}

/// Builds the commands and the state area of `plan` for `generation`;
/// `base` is where the area will be in the GGTT.
pub(crate) fn record(
    generation: Generation,
    plan: &Plan<'_>,
    base: u64,
    area: &mut StateArea,
    cmds: &mut Cmds,
) -> Result<(), ComputeError> {
    match generation {
        Generation::Gen4 => gen4::record_gen4(plan, base, area, cmds),
        Generation::G45 => gen4::record_g45(plan, base, area, cmds),
        Generation::Gen6 => gen6::record(plan, base, area, cmds),
        Generation::Gen7 => gen7::record(plan, base, area, cmds),
        #[cfg(feature = "gen12_5")]
        Generation::Gen12_5 => gen12_5::record(plan, base, area, cmds),
        #[allow(unreachable_patterns)]
        g => Err(ComputeError::Unsupported {
            generation: g,
            what: "compute",
        }),
    }
}

/// The binding table of `entries` entries and one SURFACE_STATE per bound
/// resource of `surfaces`; returns the
/// table's offset. `surface_state` packs one resource at a given offset;
/// `size`/`align` are that generation's SURFACE_STATE size and alignment.
pub(crate) fn binding_table(
    surfaces: &[(u32, SurfaceDesc)],
    entries: u32,
    area: &mut StateArea,
    size: usize,
    align: usize,
    mut surface_state: impl FnMut(&mut StateArea, u32, &SurfaceDesc) -> Result<(), ComputeError>,
) -> Result<u32, ComputeError> {
    // 32-byte aligned array of dwords (003 lines 75392-75410; the same on
    // 965/G45, whose interface descriptor keeps pointer bits 31:5).
    let table = area.alloc(entries as usize * 4, 32);
    for (bti, desc) in surfaces {
        let at = area.alloc(size, align);
        surface_state(area, at, desc)?;
        // Each entry: Surface State Pointer, bits 31:5, relative to Surface State Base.
        area.dwords[(table / 4 + bti) as usize] = at;
    }
    Ok(table)
}

/// Places the CURBE data in `reserve` bytes (at least its length) at
/// `align`; None when there is none, so no constant load is emitted.
pub(crate) fn place_curbe(
    plan: &Plan<'_>,
    area: &mut StateArea,
    reserve: usize,
    align: usize,
) -> Option<u32> {
    (!plan.curbe.is_empty()).then(|| {
        let at = area.alloc(reserve, align);
        area.put_bytes(at, &plan.curbe);
        at
    })
}

/// MEDIA_VFE_STATE's Scratch Space Base Pointer and Per Thread Scratch
/// Space code of `kernel`, both 0 without scratch.
pub(crate) fn scratch_space(kernel: &Kernel) -> (u64, u32) {
    kernel
        .scratch
        .as_ref()
        .map_or((0, 0), |sc| (sc.memory.gfx().0, sc.encoded))
}

/// Interface descriptors carry a 5-bit binding table entry count, a
/// prefetch hint (003 line 47917; the same 5 bits on 965/G45 and Ivy Bridge).
pub(crate) fn bt_prefetch_count(entries: u32) -> u32 {
    entries.min(31)
}

/// The generation's media/GPGPU limits, from its device description
/// (`hal/tables/<gen>/device.toml` `[compute]`, where each is cited); `None` for a
/// generation without a compute path.
pub(crate) const fn limits(generation: Generation) -> Option<ComputeDesc> {
    match device::of(generation) {
        Some(d) => d.compute,
        None => None,
    }
}

/// URB rows media dispatch shares with the CURBE (0 where the generation has its own
/// scheme, Gen4/G45, or no compute).
const fn urb_rows(generation: Generation) -> u32 {
    match limits(generation) {
        Some(ComputeDesc {
            urb_rows: Some(rows),
            ..
        }) => rows,
        _ => 0,
    }
}

/// Gen6/Gen7 MEDIA_VFE_STATE URB sizing for media (non-GPGPU) dispatch:
/// (rows per entry, entries). An entry holds a thread's inline data, 256-bit
/// rows; the URB must fit `entries * rows + CURBE rows + 32` in the URB rows of
/// the device description (the smallest part, so it holds everywhere; the
/// MEDIA_VFE_STATE capacity note, 003 lines 47419-47587). At most 64 entries
/// (MEDIA_VFE_STATE Number of URB Entries range, same page).
pub(crate) fn media_urb(
    generation: Generation,
    inline_dwords: usize,
    curbe_rows: u32,
) -> Result<(u32, u32), ComputeError> {
    let urb = urb_rows(generation);
    let rows = (inline_dwords.div_ceil(8) as u32).max(1);
    let free = urb
        .checked_sub(32 + curbe_rows)
        .ok_or(ComputeError::OutOfRange {
            what: "CURBE rows",
            value: curbe_rows as u64,
            max: urb.saturating_sub(32 + rows) as u64,
        })?;
    let entries = (free / rows).min(64);
    if entries == 0 {
        return Err(ComputeError::OutOfRange {
            what: "inline dwords per thread",
            value: inline_dwords as u64,
            max: (free * 8) as u64,
        });
    }
    Ok((rows, entries))
}

/// Constant registers a thread group may have: where the driver sizes the URB
/// (SNB/IVB) the CURBE must fit it next to the 32 reserved rows and at least one
/// one-row entry ([`media_urb`]'s rule); elsewhere (965/G45) one thread's read
/// length bounds it.
pub(crate) const fn max_curbe_rows(generation: Generation) -> u32 {
    match urb_rows(generation) {
        0 => max_curbe_read_rows(generation),
        rows => rows - 32 - 1,
    }
}

/// Constant registers one thread may read (the interface descriptor's Constant
/// URB Entry Read Length, bounded by the GRF after R0).
pub(crate) const fn max_curbe_read_rows(generation: Generation) -> u32 {
    match limits(generation) {
        Some(c) => c.curbe_read_rows,
        None => 0,
    }
}

/// GRF registers a thread has. Its payload (R0, the constants, the inline
/// data) must fit them: "the maximum size payload for any thread is limited
/// by the number of GRF registers available to the thread, as determined by
/// min(128, 16 * GRF Register Block Count). Software is responsible for
/// ensuring this maximum size is not exceeded" (003 lines 28578-28586).
pub(crate) const fn grf_registers(generation: Generation) -> u32 {
    match limits(generation) {
        Some(c) => c.grf_registers,
        None => 0,
    }
}

/// The MEDIA_VFE_STATE Per Thread Scratch Space code and the bytes it
/// stands for, for at least `bytes` of scratch (None for no scratch), in the
/// generation's encoding (device description `[compute] scratch`).
pub(crate) fn scratch_code(
    generation: Generation,
    bytes: u32,
) -> Result<Option<(u32, u32)>, ComputeError> {
    if bytes == 0 {
        return Ok(None);
    }
    // Gen12.5: a SURFTYPE_SCRATCH surface whose pitch is one thread's part
    // (`gen12_5::scratch_pitch`); no code.
    #[cfg(feature = "gen12_5")]
    if generation == Generation::Gen12_5 {
        let pitch = gen12_5::scratch_pitch(bytes)?;
        return Ok(Some((pitch, pitch)));
    }
    let Some(c) = limits(generation) else {
        return Err(ComputeError::Unsupported {
            generation,
            what: "compute",
        });
    };
    if bytes == 0 {
        return Ok(None);
    }
    super::error::check_max(
        "scratch bytes per thread",
        bytes as u64,
        c.scratch_max_bytes as u64,
    )?;
    Ok(Some(c.scratch.code_for(bytes)))
}

/// Hardware threads MEDIA_VFE_STATE is programmed for: the scratch space is
/// sized for this many (device description `[compute] threads`).
pub(crate) const fn max_threads(generation: Generation) -> u32 {
    #[cfg(feature = "gen12_5")]
    if let Generation::Gen12_5 = generation {
        return gen12_5::CFE_MAX_THREADS;
    }
    match limits(generation) {
        Some(c) => c.threads,
        None => 0,
    }
}
