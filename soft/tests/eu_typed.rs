//! Typed surface read, write and atomic messages on Gen7 (render cache)
//! and Gen7.5 (data cache 1), run through the EU harness: kernels `send`
//! prepared payloads, surfaces are found through a binding table and
//! SURFACE_STATE in memory, and the surface area is compared byte for
//! byte with what the test builds from the formats' definitions, so stray
//! writes fail too.
//!
//! Sources, as the handler cites them: 003 = Sandy Bridge PRM (surface
//! layouts, tiling, the leaked Gen7 message summary); Gen7 message layouts
//! [ext: mesa brw_lower_logical_sends.cpp `lower_surface_logical_send`,
//! brw_eu.h typed descriptors]; conversions and bounds [ext: IGC vISA
//! SCATTER4_TYPED, GATHER4_TYPED, TYPED_ATOMIC]; per-format support [ext:
//! mesa isl_format.c]; SURFACE_STATE bits [ext: mesa gen7.xml].

#[path = "eu_typed/atomics.rs"]
mod atomics;
#[path = "eu_typed/malformed.rs"]
mod malformed;
#[path = "eu_typed/rig.rs"]
mod rig;
#[path = "eu_typed/write_read.rs"]
mod write_read;
