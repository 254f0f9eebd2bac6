//! The data-port messages of the software GPU's shared functions, one
//! message type at a time, with payloads built from the manuals' layout
//! tables against a flat memory.
//!
//! Manual references: 000 = Gen4/G45 PRM Vol 4, 003 = Sandy Bridge PRM;
//! Gen7 facts are from Mesa/IGC as the handlers cite them.

#[path = "eu_dataport/block.rs"]
mod block;
#[path = "eu_dataport/media.rs"]
mod media;
#[path = "eu_dataport/rig.rs"]
mod rig;
#[path = "eu_dataport/scattered.rs"]
mod scattered;
#[path = "eu_dataport/surface.rs"]
mod surface;
#[path = "eu_dataport/untyped.rs"]
mod untyped;
