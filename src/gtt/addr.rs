//! Graphics addresses: what the GGTT and the PPGTTs map, in pages.

/// A graphics (GTT) address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GfxAddr(pub u64);

/// Page size of GTT mappings.
pub const PAGE: u64 = 4096;
