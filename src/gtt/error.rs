//! What can go wrong in a graphics address space (GGTT or PPGTT).

use core::fmt;

use baregpu_hal::Generation;

use super::addr::{GfxAddr, PAGE};

/// Why a mapping or reservation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GttError {
    /// No free range of that many pages.
    OutOfSpace { pages: u64 },
    /// The region is not page aligned or empty.
    BadRegion,
    /// This generation's PTE format is not implemented yet.
    Unsupported(Generation),
    /// A fixed address that is not page aligned.
    Unaligned(GfxAddr),
    /// A fixed range that overlaps a mapping or reservation (or page 0, which
    /// is never handed out, so that a null address reaches no buffer).
    Occupied { gfx: GfxAddr, pages: u64 },
    /// A fixed range that does not fit below the end of the address space at `limit`.
    OutOfRange {
        gfx: GfxAddr,
        pages: u64,
        limit: GfxAddr,
    },
    /// The GPU's GTT size field holds a reserved value or says there is no GTT
    /// (`raw`: the register or configuration word it was read from).
    NoGttSize { raw: u32 },
    /// The memory lies in stolen memory, which belongs to the firmware and the
    /// GPU: the platform handed out RAM it should have kept reserved.
    InStolen { phys: u64 },
}

impl fmt::Display for GttError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GttError::OutOfSpace { pages } => write!(f, "no free range of {pages} pages"),
            GttError::BadRegion => write!(f, "the memory is empty or not page aligned"),
            GttError::Unsupported(g) => write!(f, "the {g} PTE format is not implemented"),
            GttError::Unaligned(a) => write!(f, "address {:#x} is not 4 KiB aligned", a.0),
            GttError::Occupied { gfx, pages } => write!(
                f,
                "{:#x}..{:#x} is already in use (page 0 is never handed out)",
                gfx.0,
                gfx.0.saturating_add(pages.saturating_mul(PAGE))
            ),
            GttError::InStolen { phys } => write!(
                f,
                "the memory at {phys:#x} lies in the GPU's stolen memory; the platform must keep that range reserved"
            ),
            GttError::NoGttSize { raw } => write!(
                f,
                "the GPU reports no usable GTT size (size register {raw:#x}); the firmware did not set up the GTT"
            ),
            GttError::OutOfRange { gfx, pages, limit } => write!(
                f,
                "{:#x}..{:#x} is beyond the end of the address space at {:#x}",
                gfx.0,
                gfx.0.saturating_add(pages.saturating_mul(PAGE)),
                limit.0
            ),
        }
    }
}
