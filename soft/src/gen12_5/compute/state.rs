//! The non-pipelined state the compute commands set, kept per logical ring
//! context (by engine and LRCA: hardware saves it with the context, so two
//! contexts on one engine do not see each other's), and what an engine's
//! last walker left (its hang or error report, cleared by an engine reset).

use alloc::string::String;

use super::fields::Fields;

/// A base address with its bound (0: not programmed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Base {
    pub address: u64,
    /// Bytes (4 KiB pages from the command), 0 when not given.
    pub size: u64,
}

/// A base, its address and Modify Enable names, its size's names.
type BaseFields<'a> = (&'a mut Base, &'a str, &'a str, Option<(&'a str, &'a str)>);

#[derive(Clone, Debug, Default)]
pub struct Pipeline {
    /// PIPELINE_SELECT: GPGPU (2) selected. RCS starts in the 3D pipeline
    /// (004 PIPELINE_SELECT Pipeline Selection, 3D = 0 is the reset value);
    /// CCS has only the compute pipeline.
    pub gpgpu: bool,
    pub general: Base,
    pub surface: Base,
    pub dynamic: Base,
    pub indirect: Base,
    pub instruction: Base,
    pub bindless_surface: Base,
    pub bindless_sampler: Base,
    /// 3DSTATE_BINDING_TABLE_POOL_ALLOC, and whether the context ran it
    /// (the binding table pointer's base then, see `super::xe_state`).
    pub binding_table_pool: Base,
    pub binding_table_pool_set: bool,
    /// STATE_COMPUTE_MODE DW1 bits 15:0 as last written (each bit under its mask).
    pub compute_mode: u32,
    /// CFE_STATE Maximum Number of Threads and the scratch surface.
    pub max_threads: u32,
    pub scratch_surface: u32,
    pub cfe_programmed: bool,
}

/// An engine's compute status.
#[derive(Clone, Debug, Default)]
pub struct State {
    /// An endless kernel: the engine stays at its COMPUTE_WALKER (what it is
    /// on hardware, for the driver's hang detection); the text says why.
    pub hung: Option<String>,
    /// The last walker's failure (thread error, bad kernel), shown with the
    /// Instruction Error the engine stopped on.
    pub report: Option<String>,
}

impl Pipeline {
    /// STATE_BASE_ADDRESS: each base (and each size) changes only when its
    /// Modify Enable bit is set (004 STATE_BASE_ADDRESS).
    pub fn base_address(&mut self, f: &Fields<'_>) {
        let pairs: [BaseFields<'_>; 7] = [
            (
                &mut self.general,
                "general_state_base_address",
                "general_state_base_address_modify_enable",
                Some((
                    "general_state_buffer_size",
                    "general_state_buffer_size_modify_enable",
                )),
            ),
            (
                &mut self.surface,
                "surface_state_base_address",
                "surface_state_base_address_modify_enable",
                None,
            ),
            (
                &mut self.dynamic,
                "dynamic_state_base_address",
                "dynamic_state_base_address_modify_enable",
                Some((
                    "dynamic_state_buffer_size",
                    "dynamic_state_buffer_size_modify_enable",
                )),
            ),
            (
                &mut self.indirect,
                "indirect_object_base_address",
                "indirect_object_base_address_modify_enable",
                Some((
                    "indirect_object_buffer_size",
                    "indirect_object_buffer_size_modify_enable",
                )),
            ),
            (
                &mut self.instruction,
                "instruction_base_address",
                "instruction_base_address_modify_enable",
                Some((
                    "instruction_buffer_size",
                    "instruction_buffer_size_modify_enable",
                )),
            ),
            (
                &mut self.bindless_surface,
                "bindless_surface_state_base_address",
                "bindless_surface_state_base_address_modify_enable",
                None,
            ),
            (
                &mut self.bindless_sampler,
                "bindless_sampler_state_base_address",
                "bindless_sampler_state_base_address_modify_enable",
                None,
            ),
        ];
        for (base, addr, modify, size) in pairs {
            if f.set(modify) {
                base.address = f.get(addr) & super::super::memory::VA_MASK;
                if let Some((s, m)) = size
                    && f.set(m)
                {
                    // The size fields hold 4 KiB pages in bits 31:12.
                    base.size = f.get(s) * 4096;
                }
            }
        }
        if f.set("bindless_surface_state_base_address_modify_enable") {
            // Number of 64-byte surface states minus one.
            self.bindless_surface.size = (f.get("bindless_surface_state_size") + 1) * 64;
        }
        if f.set("bindless_sampler_state_base_address_modify_enable") {
            self.bindless_sampler.size = f.get("bindless_sampler_state_buffer_size") * 4096;
        }
    }

    /// STATE_COMPUTE_MODE: bits 15:0 of DW1 written where the mask (31:16) is set.
    pub fn compute_mode(&mut self, dw1: u32) {
        let mask = dw1 >> 16;
        self.compute_mode = (self.compute_mode & !mask) | (dw1 & mask & 0xffff);
    }
}

/// The names STATE_BASE_ADDRESS must have.
pub const BASE_ADDRESS_FIELDS: &[&str] = &[
    "general_state_base_address",
    "general_state_base_address_modify_enable",
    "general_state_buffer_size",
    "general_state_buffer_size_modify_enable",
    "surface_state_base_address",
    "surface_state_base_address_modify_enable",
    "dynamic_state_base_address",
    "dynamic_state_base_address_modify_enable",
    "dynamic_state_buffer_size",
    "dynamic_state_buffer_size_modify_enable",
    "indirect_object_base_address",
    "indirect_object_base_address_modify_enable",
    "indirect_object_buffer_size",
    "indirect_object_buffer_size_modify_enable",
    "instruction_base_address",
    "instruction_base_address_modify_enable",
    "instruction_buffer_size",
    "instruction_buffer_size_modify_enable",
    "bindless_surface_state_base_address",
    "bindless_surface_state_base_address_modify_enable",
    "bindless_surface_state_size",
    "bindless_sampler_state_base_address",
    "bindless_sampler_state_base_address_modify_enable",
    "bindless_sampler_state_buffer_size",
    "enable_memory_compression_for_all_stateless_accesses",
];
