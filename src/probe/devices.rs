//! PCI device IDs of the Intel GPUs baregpu supports, and their generation.
//!
//! Not in the manuals we build from: every ID comes from Linux
//! `include/drm/i915_pciids.h` (the macro named in each entry's `source`),
//! checked against the version that lists DG2 G10/G11/G12 and ATS-M.
//! An Intel display ID that is not here is reported as unknown, never
//! guessed from its neighbours.

use crate::Generation;

/// One supported PCI device ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// PCI device ID (the vendor is always 0x8086).
    pub device_id: u16,
    pub generation: Generation,
    /// Platform name, as Linux calls it.
    pub platform: &'static str,
    /// Where the ID comes from.
    pub source: &'static str,
}

const fn dev(
    device_id: u16,
    generation: Generation,
    platform: &'static str,
    source: &'static str,
) -> DeviceInfo {
    DeviceInfo {
        device_id,
        generation,
        platform,
        source,
    }
}

use Generation::{G45, Gen4, Gen6, Gen7, Gen12_5};

const I965G: &str = "linux i915_pciids.h INTEL_I965G_IDS";
const I965GM: &str = "linux i915_pciids.h INTEL_I965GM_IDS";
const G45_IDS: &str = "linux i915_pciids.h INTEL_G45_IDS";
const GM45_IDS: &str = "linux i915_pciids.h INTEL_GM45_IDS";
const SNB_D: &str = "linux i915_pciids.h INTEL_SNB_D_GT1_IDS/INTEL_SNB_D_GT2_IDS";
const SNB_M: &str = "linux i915_pciids.h INTEL_SNB_M_GT1_IDS/INTEL_SNB_M_GT2_IDS";
const IVB_D: &str = "linux i915_pciids.h INTEL_IVB_D_GT1_IDS/INTEL_IVB_D_GT2_IDS";
const IVB_M: &str = "linux i915_pciids.h INTEL_IVB_M_GT1_IDS/INTEL_IVB_M_GT2_IDS";
const DG2_G10: &str = "linux i915_pciids.h INTEL_DG2_G10_IDS";
const DG2_G11: &str = "linux i915_pciids.h INTEL_DG2_G11_IDS";
const DG2_G12: &str = "linux i915_pciids.h INTEL_DG2_G12_IDS";
const ATS_M: &str = "linux i915_pciids.h INTEL_ATS_M150_IDS/INTEL_ATS_M75_IDS";

/// The supported devices, sorted by device ID.
pub static DEVICES: &[DeviceInfo] = &[
    dev(0x0102, Gen6, "Sandy Bridge desktop GT1", SNB_D),
    dev(0x0106, Gen6, "Sandy Bridge mobile GT1", SNB_M),
    dev(0x010a, Gen6, "Sandy Bridge server GT1", SNB_D),
    dev(0x0112, Gen6, "Sandy Bridge desktop GT2", SNB_D),
    dev(0x0116, Gen6, "Sandy Bridge mobile GT2", SNB_M),
    dev(0x0122, Gen6, "Sandy Bridge desktop GT2", SNB_D),
    dev(0x0126, Gen6, "Sandy Bridge mobile GT2", SNB_M),
    dev(0x0152, Gen7, "Ivy Bridge desktop GT1", IVB_D),
    dev(0x0156, Gen7, "Ivy Bridge mobile GT1", IVB_M),
    dev(0x015a, Gen7, "Ivy Bridge server GT1", IVB_D),
    dev(0x0162, Gen7, "Ivy Bridge desktop GT2", IVB_D),
    dev(0x0166, Gen7, "Ivy Bridge mobile GT2", IVB_M),
    dev(0x016a, Gen7, "Ivy Bridge server GT2", IVB_D),
    dev(0x2972, Gen4, "946GZ", I965G),
    dev(0x2982, Gen4, "G35", I965G),
    dev(0x2992, Gen4, "965Q", I965G),
    dev(0x29a2, Gen4, "965G", I965G),
    dev(0x2a02, Gen4, "965GM", I965GM),
    dev(0x2a12, Gen4, "965GME", I965GM),
    dev(0x2a42, G45, "GM45", GM45_IDS),
    dev(0x2e02, G45, "IGD-E", G45_IDS),
    dev(0x2e12, G45, "Q45", G45_IDS),
    dev(0x2e22, G45, "G45", G45_IDS),
    dev(0x2e32, G45, "G41", G45_IDS),
    dev(0x2e42, G45, "B43", G45_IDS),
    dev(0x2e92, G45, "B43", G45_IDS),
    dev(0x5690, Gen12_5, "DG2 G10", DG2_G10),
    dev(0x5691, Gen12_5, "DG2 G10", DG2_G10),
    dev(0x5692, Gen12_5, "DG2 G10", DG2_G10),
    dev(0x5693, Gen12_5, "DG2 G11", DG2_G11),
    dev(0x5694, Gen12_5, "DG2 G11", DG2_G11),
    dev(0x5695, Gen12_5, "DG2 G11", DG2_G11),
    dev(0x5696, Gen12_5, "DG2 G12", DG2_G12),
    dev(0x5697, Gen12_5, "DG2 G12", DG2_G12),
    dev(0x56a0, Gen12_5, "DG2 G10", DG2_G10),
    dev(0x56a1, Gen12_5, "DG2 G10", DG2_G10),
    dev(0x56a2, Gen12_5, "DG2 G10", DG2_G10),
    dev(0x56a3, Gen12_5, "DG2 G12", DG2_G12),
    dev(0x56a4, Gen12_5, "DG2 G12", DG2_G12),
    dev(0x56a5, Gen12_5, "DG2 G11", DG2_G11),
    dev(0x56a6, Gen12_5, "DG2 G11", DG2_G11),
    dev(0x56b0, Gen12_5, "DG2 G11", DG2_G11),
    dev(0x56b1, Gen12_5, "DG2 G11", DG2_G11),
    dev(0x56b2, Gen12_5, "DG2 G12", DG2_G12),
    dev(0x56b3, Gen12_5, "DG2 G12", DG2_G12),
    dev(0x56ba, Gen12_5, "DG2 G11", DG2_G11),
    dev(0x56bb, Gen12_5, "DG2 G11", DG2_G11),
    dev(0x56bc, Gen12_5, "DG2 G11", DG2_G11),
    dev(0x56bd, Gen12_5, "DG2 G11", DG2_G11),
    dev(0x56be, Gen12_5, "DG2 G10", DG2_G10),
    dev(0x56bf, Gen12_5, "DG2 G10", DG2_G10),
    dev(0x56c0, Gen12_5, "ATS-M150", ATS_M),
    dev(0x56c1, Gen12_5, "ATS-M75", ATS_M),
    dev(0x56c2, Gen12_5, "ATS-M150", ATS_M),
];

/// Looks up an Intel (vendor 0x8086) display device ID.
pub fn lookup(device_id: u16) -> Option<&'static DeviceInfo> {
    DEVICES
        .binary_search_by_key(&device_id, |d| d.device_id)
        .ok()
        .map(|i| &DEVICES[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_unique() {
        assert!(DEVICES.windows(2).all(|w| w[0].device_id < w[1].device_id));
    }
}
