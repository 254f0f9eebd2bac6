//! Xe-HPG hardware thread slots and the sr0.0 that names them.
//!
//! sr0.0 bits 13:0 (IGC vc GenXSubtarget.cpp `getThreadIdReservedBits` for
//! XeHPG, IGC EmitVISAPass `GetHWTID`): 2:0 the thread on its EU, 5:4
//! `EUID[1:0]`, 7 `EUID[2]`, 8 the subslice, 10:9 the dual-subslice, 13:11 the
//! slice; bits 3 and 6 reserved (zero). Kernels take their hardware thread
//! ID from it (bits 13:0 less 6 and 3): IGC's stateless private memory,
//! and the scratch surface's PThreadID (004 line 6653: "Base +
//! PThreadID*Pitch").

/// sr0.0 of the thread in slot `slot` (0..4096): slots count threads, then
/// EUs, then subslices, so the hardware thread ID is `slot` itself.
pub fn state_id(slot: u32) -> u32 {
    let tid = slot & 7;
    let eu = slot >> 3;
    tid | (eu & 3) << 4 | (eu >> 2 & 1) << 7 | (eu >> 3 & 0x3f) << 8
}

/// The hardware thread ID in `sr0`: bits 13:0 with bits 6 and 3 removed
/// (IGC's `RemoveBitRange` on bit 6, then bit 3).
pub fn slot_of(sr0: u32) -> u32 {
    let x = sr0 & 0x3FFF;
    let y = (x & 63) | (x >> 1 & !63);
    (y & 7) | (y >> 1 & !7)
}
