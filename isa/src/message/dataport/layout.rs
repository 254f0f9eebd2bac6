//! Where each data port keeps its message type, and the type codes, per
//! generation and port. The message-specific control bits are in
//! `control.rs`.

use super::Kind;
use crate::generation::IsaGen;
use crate::inst::Sfid;

/// The shape of one port's function control.
pub(super) struct Layout {
    /// Message-type field, `hi:lo`.
    pub(super) ty: (u32, u32),
    pub(super) types: &'static [(u32, Kind)],
    /// Bit of the send-write-commit flag, if the port has one.
    pub(super) commit: Option<u32>,
    /// Gen7 data cache: bit 18 set selects a scratch block message.
    pub(super) scratch: bool,
    /// Type codes of documented messages kept raw ([`super::Message::Other`]).
    pub(super) raw: &'static [u32],
}

use Kind as K;

/// Gen4 read unit, 13:12 (000 line 4480).
const GEN4_READ: [(u32, Kind); 4] = [
    (0b00, K::OwordBlockRead),
    (0b01, K::OwordDualBlockRead),
    (0b10, K::MediaBlockRead),
    (0b11, K::DwordScatteredRead),
];

/// G45 read unit, 13:11 (000 line 4493; 101, 111 reserved).
const G45_READ: [(u32, Kind); 6] = [
    (0b000, K::OwordBlockRead),
    (0b001, K::RtUnormRead),
    (0b010, K::OwordDualBlockRead),
    (0b011, K::AvcLoopFilterRead),
    (0b100, K::MediaBlockRead),
    (0b110, K::DwordScatteredRead),
];

/// Gen4 write unit, 14:12 (000 line 4480; 110 reserved).
const GEN4_WRITE: [(u32, Kind); 7] = [
    (0b000, K::OwordBlockWrite),
    (0b001, K::OwordDualBlockWrite),
    (0b010, K::MediaBlockWrite),
    (0b011, K::DwordScatteredWrite),
    (0b100, K::RtWrite),
    (0b101, K::SvbWrite),
    (0b111, K::FlushRenderCache),
];

/// G45 write unit, 14:12 (000 line 4493): Gen4's plus 110 RT UNORM write.
const G45_WRITE: [(u32, Kind); 8] = [
    (0b000, K::OwordBlockWrite),
    (0b001, K::OwordDualBlockWrite),
    (0b010, K::MediaBlockWrite),
    (0b011, K::DwordScatteredWrite),
    (0b100, K::RtWrite),
    (0b101, K::SvbWrite),
    (0b110, K::RtUnormWrite),
    (0b111, K::FlushRenderCache),
];

/// Gen6 sampler cache, 15:13 (003 lines 83436-83452).
const GEN6_SC: [(u32, Kind); 5] = [
    (0b000, K::OwordBlockRead),
    (0b010, K::OwordDualBlockRead),
    (0b100, K::MediaBlockRead),
    (0b101, K::UnalignedOwordBlockRead),
    (0b110, K::DwordScatteredRead),
];

/// Gen6 constant cache, 15:13 (003 lines 83456-83467).
const GEN6_CC: [(u32, Kind); 3] = [
    (0b000, K::OwordBlockRead),
    (0b010, K::OwordDualBlockRead),
    (0b110, K::DwordScatteredRead),
];

/// Gen6 render cache, 16:13 (003 lines 83469-83512; 0011, 1111 reserved).
const GEN6_RC: [(u32, Kind); 14] = [
    (0b0000, K::OwordBlockRead),
    (0b0001, K::RtUnormRead),
    (0b0010, K::OwordDualBlockRead),
    (0b0100, K::MediaBlockRead),
    (0b0101, K::UnalignedOwordBlockRead),
    (0b0110, K::DwordScatteredRead),
    (0b0111, K::DwordAtomic),
    (0b1000, K::OwordBlockWrite),
    (0b1001, K::OwordDualBlockWrite),
    (0b1010, K::MediaBlockWrite),
    (0b1011, K::DwordScatteredWrite),
    (0b1100, K::RtWrite),
    (0b1101, K::SvbWrite),
    (0b1110, K::RtUnormWrite),
];

/// Gen7 render cache, 17:14 [ext: mesa src/intel/compiler/brw_eu_defines.h
/// GEN7_DATAPORT_RC_*, brw_inst.h `dp_msg_type` gen 7: MD(17):MD(14)].
/// Mesa emits the typed messages here only on Gen7; Gen7.5 keeps the codes.
const GEN7_RC: [(u32, Kind); 7] = [
    (4, K::MediaBlockRead),
    (5, K::TypedRead),
    (6, K::TypedAtomic),
    (7, K::Fence),
    (10, K::MediaBlockWrite),
    (12, K::RtWrite),
    (13, K::TypedWrite),
];

/// Gen7 data cache, 17:14 [ext: mesa brw_eu_defines.h GEN7_DATAPORT_DC_*].
const GEN7_DC: [(u32, Kind); 13] = [
    (0, K::OwordBlockRead),
    (1, K::UnalignedOwordBlockRead),
    (2, K::OwordDualBlockRead),
    (3, K::DwordScatteredRead),
    (4, K::ByteScatteredRead),
    (5, K::UntypedRead),
    (6, K::UntypedAtomic),
    (7, K::Fence),
    (8, K::OwordBlockWrite),
    (10, K::OwordDualBlockWrite),
    (11, K::DwordScatteredWrite),
    (12, K::ByteScatteredWrite),
    (13, K::UntypedWrite),
];

/// Gen7.5 data cache port 0: the surface messages moved to port 1 [ext:
/// mesa brw_eu_defines.h HSW_DATAPORT_DC_PORT0_*].
const GEN75_DC0: [(u32, Kind); 10] = [
    (0, K::OwordBlockRead),
    (1, K::UnalignedOwordBlockRead),
    (2, K::OwordDualBlockRead),
    (3, K::DwordScatteredRead),
    (4, K::ByteScatteredRead),
    (7, K::Fence),
    (8, K::OwordBlockWrite),
    (10, K::OwordDualBlockWrite),
    (11, K::DwordScatteredWrite),
    (12, K::ByteScatteredWrite),
];

/// Gen7.5 data cache port 1 [ext: mesa brw_eu_defines.h
/// HSW_DATAPORT_DC_PORT1_*]; 4 and 10 (media block) and 11, 12 (atomic
/// counters) stay raw.
const GEN75_DC1: [(u32, Kind); 8] = [
    (1, K::UntypedRead),
    (2, K::UntypedAtomic),
    (3, K::UntypedAtomic4x2),
    (5, K::TypedRead),
    (6, K::TypedAtomic),
    (7, K::TypedAtomic4x2),
    (9, K::UntypedWrite),
    (13, K::TypedWrite),
];

/// Gen7 constant cache: the read subset of the data-cache codes [ext: mesa
/// brw_fs_generator uniform pull loads send GEN7_DATAPORT_DC_OWORD_BLOCK_READ
/// to GEN6_SFID_DATAPORT_CONSTANT_CACHE; IGA (iga64 -p=7p5 -Xdsd) names
/// codes 0, 1, 3 the same way].
const GEN7_CC: [(u32, Kind); 4] = [
    (0, K::OwordBlockRead),
    (1, K::UnalignedOwordBlockRead),
    (2, K::OwordDualBlockRead),
    (3, K::DwordScatteredRead),
];

const fn layout(ty: (u32, u32), types: &'static [(u32, Kind)], commit: Option<u32>) -> Layout {
    Layout {
        ty,
        types,
        commit,
        scratch: false,
        raw: &[],
    }
}

/// The layout of `sfid` on `p`; `None` for a data port kept raw whole (the
/// Gen7 sampler-cache port, whose message table no source at hand gives)
/// or not a data port there.
pub(super) fn of(p: IsaGen, sfid: Sfid) -> Option<Layout> {
    use IsaGen::*;
    Some(match (p, sfid) {
        // Write commit: Gen4/G45 bit 15 (000 lines 4479, 4492).
        (Gen4, Sfid::DataPortRead) => layout((13, 12), &GEN4_READ, None),
        (G45, Sfid::DataPortRead) => layout((13, 11), &G45_READ, None),
        (Gen4, Sfid::DataPortWrite) => layout((14, 12), &GEN4_WRITE, Some(15)),
        (G45, Sfid::DataPortWrite) => layout((14, 12), &G45_WRITE, Some(15)),
        // Gen6 render cache commit: bit 17 (003 lines 83415-83434).
        (Gen6, Sfid::DpSamplerCache) => layout((15, 13), &GEN6_SC, None),
        (Gen6, Sfid::DpConstantCache) => layout((15, 13), &GEN6_CC, None),
        (Gen6, Sfid::DpRenderCache) => layout((16, 13), &GEN6_RC, Some(17)),
        // Gen7 has no write commit bit [ext: brw_inst.h `dp_write_commit`].
        (Gen7 | Gen75, Sfid::DpRenderCache) => layout((17, 14), &GEN7_RC, None),
        (Gen7 | Gen75, Sfid::DpConstantCache) => layout((17, 14), &GEN7_CC, None),
        (Gen7, Sfid::DpDataCache) => Layout {
            scratch: true,
            ..layout((17, 14), &GEN7_DC, None)
        },
        (Gen75, Sfid::DpDataCache) => Layout {
            scratch: true,
            ..layout((17, 14), &GEN75_DC0, None)
        },
        (Gen75, Sfid::DpDataCache1) => Layout {
            raw: &[4, 10, 11, 12],
            ..layout((17, 14), &GEN75_DC1, None)
        },
        _ => return None,
    })
}
