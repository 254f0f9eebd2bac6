//! What both pipelines of the render engine (media/GPGPU in `media`, 3D in
//! `render3d`) share, kept below both so that neither imports the other's
//! state: STATE_BASE_ADDRESS's bases and the dispatcher's cr0.

/// STATE_BASE_ADDRESS: bases and exclusive upper bounds (0 = unchecked,
/// 003 lines 1378-1383).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Bases {
    pub general: u64,
    pub surface: u64,
    pub dynamic: u64,
    pub indirect: u64,
    pub instruction: u64,
    pub general_bound: u64,
    pub dynamic_bound: u64,
    pub indirect_bound: u64,
    pub instruction_bound: u64,
}

/// cr0.0 bit 0 floating-point mode and bit 2 single program flow (000
/// lines 8074-8141; 003 lines 90735-90870); cr0.1 exception enables from
/// DW1: illegal opcode (13) to bit 12, mask stack (11) to bit 11, software
/// exception (7) to bit 13 (003 lines 47824-47866).
pub(crate) fn cr0(
    alt: bool,
    spf: bool,
    illegal: bool,
    mask_stack: bool,
    software: bool,
) -> [u32; 2] {
    [
        u32::from(alt) | u32::from(spf) << 2,
        u32::from(illegal) << 12 | u32::from(mask_stack) << 11 | u32::from(software) << 13,
    ]
}
