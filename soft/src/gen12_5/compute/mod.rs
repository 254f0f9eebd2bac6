//! The DG2 compute pipeline: the compute commands on the render (RCS) and
//! compute (CCS) engines, and COMPUTE_WALKER's thread groups run on Xe-HPG
//! EU threads (`crate::eu::xe`).
//!
//! Commands (hal/tables/gen12.5/compute.toml; fields read by name in
//! `fields`, every name checked when the model is built), their state kept
//! per context (`state`):
//! - PIPELINE_SELECT: on RCS the walker needs GPGPU selected (the 3D
//!   pipeline is the reset selection); CCS has only compute. Mask Bits are
//!   honoured for the selection; Systolic Mode and the power-gating bits
//!   have no effect in the model.
//! - STATE_BASE_ADDRESS: the bases and sizes under their Modify Enable bits,
//!   the bindless surface and sampler bases included (`state`); stateless
//!   compression is refused. STATE_SIP is not modelled (no System Routine).
//! - STATE_COMPUTE_MODE: the masked DW1 bits are kept; Large GRF Mode is
//!   refused (the Xe threads have 128 GRFs, see `crate::eu::xe`).
//! - CFE_STATE: Maximum Number of Threads and the scratch surface are kept;
//!   a walker before any CFE_STATE is refused.
//! - 3DSTATE_BINDING_TABLE_POOL_ALLOC (render engine): once a context ran
//!   it, the interface descriptor's Binding Table Pointer counts from the
//!   pool's base, bounded by its size (`xe_state` gives the finding and
//!   its sources).
//! - COMPUTE_WALKER (`walker`, `payload`, `dispatch`): the groups from the
//!   starting IDs up to the dimensions, X fastest; each group's threads
//!   with R0, the generated local IDs and the inline data; the last thread
//!   with the Execution Mask; barriers through the gateway; shared local
//!   memory sized by the interface descriptor; then the post-sync write.
//!   The walker runs to completion inside the command (the engine does not
//!   overlap walkers), within an instruction budget
//!   ([`Device::set_compute_budget`]): a walker that exhausts it, or whose
//!   threads wait at a barrier that cannot complete, hangs the engine at
//!   the command (it never finishes, as on hardware). A thread error or an
//!   undecodable kernel stops the engine with an Instruction Error (the
//!   text in [`Device::compute_report`]); a kernel pointer with no
//!   translation is the page fault it is.
//! - PIPE_CONTROL is `mi`'s.
//!
//! **The shared functions.** Every send that is not for the message
//! gateway goes to the Xe-HPG shared functions of `crate::eu::shared::xe`
//! (`functions`): LSC on UGM/SLM/TGM, the legacy dc0/dc1 messages and the
//! sampler (samplers from Dynamic State Base and the descriptor's Sampler
//! State Pointer, or the bindless base), over
//! the context's PPGTT (the space the kernel is read through) with each
//! page translated on its own; surfaces found from STATE_BASE_ADDRESS's
//! Surface State and Bindless Surface State bases and the interface
//! descriptor's Binding Table Pointer; SLM the group's, zeroed when the
//! group starts. A message's access that does not translate stops the
//! engine with the page fault it is (fault registers as for a command's
//! own access). A host may install other functions instead
//! ([`Device::set_compute_functions`]: a [`SharedFunctions`] plus
//! `begin_group`, which gives each thread group its shared local memory);
//! the tests do, to see the walker alone. The end-of-thread and barrier
//! messages to the gateway are routed here (`dispatch::Router`) and never
//! reach either.
//!
//! Not modelled (refused by name): indirect parameters, workload
//! partitions, resumed walkers, tiled local IDs and a Message SIMD other
//! than the SIMD Size, bindless thread dispatch, the ALTERNATE float mode
//! and rounding modes other than RTNE, named barriers (more than one), SLM
//! sizes beyond 64 KiB. Flat A32 LSC addresses are taken as virtual
//! addresses (General State Base, `XeState::flat_base`, is not added).
//! Scratch: r0.5 31:10 carries CFE_STATE's Scratch Space Buffer, the
//! offset of a SURFTYPE_SCRATCH surface state; scratch messages (LSC on
//! that surface state, the legacy dc0 scratch blocks) reach the thread's
//! part, Base + PThreadID * Pitch (004 line 6653), the thread ID being its
//! slot (sr0.0, `crate::eu::thread::slot`).

mod dispatch;
mod fields;
mod functions;
mod kernel;
mod payload;
mod state;
mod walker;

use alloc::format;

use baregpu_hal::MemoryBus;
use baregpu_hal::reflect::CommandInfo;

pub use kernel::KernelCache;
pub use state::{Pipeline, State};

use super::Device;
use super::halt::Halt;
use super::memory::VA_MASK;
use crate::eu::send::SharedFunctions;
use fields::Fields;
use walker::PostSync;

/// The shared functions compute threads reach.
pub trait ComputeFunctions: SharedFunctions {
    /// A thread group of a walker starts: its shared local memory is
    /// `slm_bytes` bytes of zeros (INTERFACE_DESCRIPTOR_DATA Shared Local
    /// Memory Size; 004 gives no initial contents, the model clears it).
    fn begin_group(&mut self, group: [u32; 3], slm_bytes: u32);
}

/// A compute command the model executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    PipelineSelect,
    StateBaseAddress,
    ComputeMode,
    CfeState,
    BindingTablePool,
    Walker,
}

/// The compute command a table command name is, if the model executes it.
pub fn of(name: &str) -> Option<Kind> {
    Some(match name {
        "PIPELINE_SELECT" => Kind::PipelineSelect,
        "STATE_BASE_ADDRESS" => Kind::StateBaseAddress,
        "STATE_COMPUTE_MODE" => Kind::ComputeMode,
        "CFE_STATE" => Kind::CfeState,
        "3DSTATE_BINDING_TABLE_POOL_ALLOC" => Kind::BindingTablePool,
        "COMPUTE_WALKER" => Kind::Walker,
        _ => return None,
    })
}

/// The field names `kind` reads.
fn names(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::PipelineSelect => &["mask_bits", "pipeline_selection"],
        Kind::StateBaseAddress => state::BASE_ADDRESS_FIELDS,
        Kind::ComputeMode => &["mask", "large_grf_mode"],
        Kind::CfeState => &[
            "cfe_subopcode_variant",
            "scratch_space_buffer",
            "maximum_number_of_threads",
        ],
        Kind::BindingTablePool => &[
            "binding_table_pool_base_address",
            "binding_table_pool_buffer_size",
        ],
        Kind::Walker => walker::WALKER_FIELDS,
    }
}

/// The walker's interface descriptor field `xe_state` reads besides
/// `walker`'s (an offset from Dynamic State Base, compute.toml line 197).
const SAMPLER_STATE_POINTER: &str = "interface_descriptor_sampler_state_pointer";

/// The first field `kind` needs that `info` lacks.
pub fn missing(info: &CommandInfo, kind: Kind) -> Option<&'static str> {
    if kind == Kind::Walker
        && let Some(m) = fields::check(info, &[SAMPLER_STATE_POINTER])
    {
        return Some(m);
    }
    fields::check(info, names(kind))
}

/// Instructions one walker may run before it counts as a hang.
pub const DEFAULT_BUDGET: u64 = 1 << 22;

/// PIPELINE_SELECT Mask Bits: bits 9:8 enable the selection bits 1:0
/// (004 PIPELINE_SELECT; Mesa genX_emit_pipeline_select sets MaskBits 3).
const SELECTION_MASK: u64 = 0x3;

impl<B: MemoryBus> Device<B> {
    /// The compute state of the context running on engine `i`.
    fn pipeline(&mut self, i: usize) -> &mut Pipeline {
        let lrca = self.state[i].active.map_or(0, |c| c.lrca());
        self.pipelines.entry((i, lrca)).or_default()
    }

    /// Installs the shared functions compute threads' messages reach.
    pub fn set_compute_functions(&mut self, sf: alloc::boxed::Box<dyn ComputeFunctions + Send>) {
        self.compute_sf = Some(sf);
    }

    /// Takes the installed shared functions back (a test reads what they saw).
    pub fn take_compute_functions(
        &mut self,
    ) -> Option<alloc::boxed::Box<dyn ComputeFunctions + Send>> {
        self.compute_sf.take()
    }

    /// The instruction budget of one walker (hang detection).
    pub fn set_compute_budget(&mut self, budget: u64) {
        self.compute_budget = budget.max(1);
    }

    /// Whether walker threads check their SWSB dependencies (on by default).
    pub fn set_swsb_check(&mut self, on: bool) {
        self.swsb_check = on;
    }

    /// Why engine `i`'s last walker hung or stopped it.
    pub fn compute_report(&self, i: usize) -> Option<&str> {
        let s = &self.state.get(i)?.compute;
        s.hung.as_deref().or(s.report.as_deref())
    }

    /// A compute state command on engine `i` (after the command advanced).
    pub(super) fn compute(
        &mut self,
        i: usize,
        info: &'static CommandInfo,
        kind: Kind,
        dw: &[u32],
    ) -> Result<(), Halt> {
        let f = Fields { info, dw };
        let s = self.pipeline(i);
        match kind {
            Kind::PipelineSelect => {
                if f.get("mask_bits") & SELECTION_MASK == SELECTION_MASK {
                    match f.get("pipeline_selection") {
                        2 => s.gpgpu = true,
                        0 => s.gpgpu = false,
                        _ => {
                            return Err(
                                self.refuse(dw, "PIPELINE_SELECT reserved pipeline (media)")
                            );
                        }
                    }
                }
            }
            Kind::StateBaseAddress => {
                if f.set("enable_memory_compression_for_all_stateless_accesses") {
                    return Err(self.refuse(
                        dw,
                        "STATE_BASE_ADDRESS Enable Memory Compression For All Stateless Accesses",
                    ));
                }
                s.base_address(&f);
            }
            Kind::ComputeMode => {
                let dw1 = dw.get(1).copied().unwrap_or(0);
                s.compute_mode(dw1);
                if s.compute_mode & (1 << 15) != 0 {
                    s.compute_mode &= !(1 << 15);
                    return Err(self.refuse(dw, "STATE_COMPUTE_MODE Large GRF Mode"));
                }
            }
            Kind::CfeState => {
                if f.get("cfe_subopcode_variant") != 0 {
                    return Err(
                        self.refuse(dw, "CFE_STATE CFE SubOpcode Variant other than STANDARD")
                    );
                }
                s.max_threads = f.get("maximum_number_of_threads") as u32;
                s.scratch_surface = f.get("scratch_space_buffer") as u32;
                s.cfe_programmed = true;
            }
            Kind::BindingTablePool => {
                s.binding_table_pool_set = true;
                s.binding_table_pool = state::Base {
                    address: f.get("binding_table_pool_base_address") & VA_MASK,
                    size: f.get("binding_table_pool_buffer_size") * 4096,
                };
            }
            // Run before the command advanced (`walk`).
            Kind::Walker => {}
        }
        Ok(())
    }

    /// COMPUTE_WALKER on engine `i`, before the command advances:
    /// `Ok(false)` while the engine is hung at it.
    pub(super) fn walk(
        &mut self,
        i: usize,
        info: &'static CommandInfo,
        dw: &[u32],
    ) -> Result<bool, Halt> {
        if self.state[i].compute.hung.is_some() {
            return Ok(false);
        }
        let f = Fields { info, dw };
        let mut w = walker::decode(&f).map_err(|name| self.refuse(dw, name))?;
        let render = self.engines[i].class == super::RENDER_CLASS;
        let s = self.pipeline(i);
        if render && !s.gpgpu {
            return Err(self.refuse(dw, "COMPUTE_WALKER with the 3D pipeline selected"));
        }
        if !s.cfe_programmed {
            return Err(self.refuse(dw, "COMPUTE_WALKER before CFE_STATE"));
        }
        w.scratch_surface = s.scratch_surface;
        let kernel = s.instruction.address.wrapping_add(w.kernel) & VA_MASK;
        // The kernel's bytes up to the Instruction Buffer Size's end when
        // STATE_BASE_ADDRESS gave one (64 KiB otherwise).
        let window = match s.instruction.size {
            0 => kernel::WINDOW,
            size => (s.instruction.address.wrapping_add(size) & VA_MASK).saturating_sub(kernel),
        };
        let state = xe_state(s, &w, f.get(SAMPLER_STATE_POINTER));
        let space = self.space(i, None);
        let mut cache = core::mem::take(&mut self.kernels);
        let prog = cache.get(&self.memory(i), space, kernel, window);
        self.kernels = cache;
        let prog = prog.map_err(|fault| Halt::of(fault, dw[0]))?;
        let mut budget = self.compute_budget;
        let check = self.swsb_check;
        let mut fault = None;
        // The installed shared functions if any (a host's override), else
        // the Xe-HPG ones over the context's memory.
        let result = if let Some(mut sf) = self.compute_sf.take() {
            let result = walk_groups(&w, &prog, sf.as_mut(), &mut budget, check);
            self.compute_sf = Some(sf);
            result
        } else {
            let mut memory = self.memory(i);
            let mut sf = functions::XeFunctions::new(
                functions::SpaceMemory {
                    memory: &mut memory,
                    space,
                    fault: None,
                },
                state,
            );
            let result = walk_groups(&w, &prog, &mut sf, &mut budget, check);
            fault = sf.memory.fault;
            result
        };
        // A message's access that did not translate: the page fault, as a
        // command's own access reports it.
        // The report names the thread and its message (what the fault
        // registers do not say).
        if let (Err(dispatch::Failure::Thread(why)), Some(f)) = (&result, fault) {
            self.state[i].compute.report = Some(format!("COMPUTE_WALKER page fault: {why}"));
            return Err(Halt::of(f, dw[0]));
        }
        match result {
            Err(dispatch::Failure::Hang(why)) => {
                self.state[i].compute.hung = Some(format!("COMPUTE_WALKER hang: {why}"));
                return Ok(false);
            }
            Err(dispatch::Failure::Thread(why)) => {
                self.state[i].compute.report = Some(format!("COMPUTE_WALKER thread error: {why}"));
                return Err(Halt::Kernel { dw0: dw[0] });
            }
            Ok(()) => {}
        }
        // POSTSYNC_DATA: after every thread of the walker ended.
        let dest = w.post_sync_address & VA_MASK;
        match w.post_sync {
            PostSync::None => {}
            PostSync::Immediate(v) => {
                self.write(i, space, dest, v as u32)?;
                self.write(i, space, dest.wrapping_add(4), (v >> 32) as u32)?;
            }
            PostSync::Timestamp => {
                let t = self.timestamp;
                self.write(i, space, dest, t as u32)?;
                self.write(i, space, dest.wrapping_add(4), (t >> 32) as u32)?;
            }
        }
        Ok(true)
    }
}

/// Runs every group of `w`, Walk Order aside: groups are independent, so
/// the order they run in shows only through atomics and hangs.
fn walk_groups(
    w: &walker::Walker,
    prog: &crate::eu::xe::XeProgram,
    sf: &mut dyn ComputeFunctions,
    budget: &mut u64,
    check_swsb: bool,
) -> Result<(), dispatch::Failure> {
    for z in w.start[2]..w.groups[2] {
        for y in w.start[1]..w.groups[1] {
            for x in w.start[0]..w.groups[0] {
                dispatch::run_group(w, prog, [x, y, z], sf, budget, check_swsb)?;
            }
        }
    }
    Ok(())
}

/// The bases the shared functions find surfaces, samplers and scratch
/// from.
///
/// The binding table. On Gen12.5 the interface descriptor's Binding Table
/// Pointer (20:5, 32-byte aligned) is an offset from the Binding Table Pool
/// Base Address of 3DSTATE_BINDING_TABLE_POOL_ALLOC, which has no enable
/// bit any more: Mesa's batch decoder takes the pool base for verx10 >= 125
/// whatever the (Gfx11-12) enable, and Surface State Base only while no
/// pool base is known (src/intel/common/intel_batch_decoder.c
/// `handle_binding_table_pool_alloc`, `dump_binding_table`, which the
/// compute walker's descriptor goes through); anv on Gfx12.5 programs the
/// pool with its binding-table heap and writes the pointers as offsets in
/// it (genX_cmd_buffer.c `cmd_buffer_emit_state_base_address`), and iris
/// from Gfx11 writes them as offsets in its binder (iris_blorp.c: no
/// 3-bit shift on 12.5). The binding-table *entries* stay offsets from
/// Surface State Base (both drivers; intel_batch_decoder adds
/// `surface_base`). 004 prints the command (lines 1256-1306, reads past
/// the pool's end return 0) but not the descriptor's text; the hal table's
/// note "offset from Surface State Base" describes the no-pool case. The
/// model: the pool's base once the context ran the command, Surface State
/// Base before; entries past the pool's size read 0.
///
/// Samplers: the BTI form's index counts 16-byte SAMPLER_STATEs from
/// Dynamic State Base + the descriptor's Sampler State Pointer; the
/// bindless form's offset is from Bindless Sampler State Base (Mesa
/// brw_lower_logical_sends.cpp `lower_sampler_logical_send`: the sampler
/// handle in the header's M0.3 with the bindless base).
fn xe_state(
    s: &Pipeline,
    w: &walker::Walker,
    sampler_pointer: u64,
) -> crate::eu::shared::xe::XeState {
    let (bt_base, left) = if s.binding_table_pool_set {
        let pool = s.binding_table_pool;
        (
            pool.address,
            Some(pool.size.saturating_sub(w.binding_table)),
        )
    } else {
        (s.surface.address, None)
    };
    crate::eu::shared::xe::XeState {
        surface_state_base: s.surface.address,
        bindless_surface_state_base: s.bindless_surface.address,
        binding_table: bt_base.wrapping_add(w.binding_table) & VA_MASK,
        binding_table_left: left,
        dynamic_state_base: s.dynamic.address,
        sampler_state_pointer: sampler_pointer as u32,
        bindless_sampler_state_base: s.bindless_sampler.address,
        // A64 flat addresses are the virtual addresses themselves.
        flat_base: 0,
        general_state_base: s.general.address,
        // Scratch is a SURFTYPE_SCRATCH surface state that r0.5 names
        // (`payload`), not a base and a per-thread size.
        scratch_base: 0,
        scratch_per_thread: 0,
        scratch_surface_state: true,
    }
}
