//! baregpu-hal: the hardware description of Intel GPUs.
//!
//! Every register, command packet and state structure of each generation is
//! generated (by `build.rs`, from the cited tables in `hal/tables/`) into one
//! module per generation: [`gen4`], [`g45`], [`gen6`], [`gen7`], [`gen12_5`].
//! Each module has typed packets (`commands`, `structs`: `pack` into dwords,
//! `unpack` from them), typed registers (`regs`: bitfield values and their
//! offsets) and `TABLES`, the reflection table that [`decode`] and the tools
//! read. [`Mmio`] is the register-access seam shared by the real GPU and the
//! software GPU.
#![cfg_attr(not(test), no_std)]

extern crate alloc;

pub mod bits;
pub mod bus;
pub mod config;
pub mod decode;
pub mod device;
pub mod generation;
pub mod mmio;
pub mod packet;
pub mod pci;
pub mod reflect;
pub mod reg;
pub mod tiling;

pub use bus::{BusError, MemoryBus};
pub use config::{ConfigSpace, DeviceIo, SplitDevice};
pub use generation::Generation;
pub use mmio::{Mmio, VolatileMmio};
pub use packet::{PackError, Packet, UnpackError};

/// Gen4: 965G/GM, G35.
pub mod gen4 {
    include!(concat!(env!("OUT_DIR"), "/gen4.rs"));
}
/// Gen4.5: G45, GM45, G41/G43.
pub mod g45 {
    include!(concat!(env!("OUT_DIR"), "/g45.rs"));
}
/// Gen6: Sandy Bridge.
pub mod gen6 {
    include!(concat!(env!("OUT_DIR"), "/gen6.rs"));
}
/// Gen7: Ivy Bridge.
pub mod gen7 {
    include!(concat!(env!("OUT_DIR"), "/gen7.rs"));
}
/// Gen12.5: DG2 (Arc Alchemist). Empty unless the feature `gen12_5` (on by
/// default) is enabled.
pub mod gen12_5 {
    include!(concat!(env!("OUT_DIR"), "/gen12_5.rs"));
}

/// The reflection tables of every generation, oldest first.
pub static GENERATIONS: [&reflect::GenTables; 5] = [
    &gen4::TABLES,
    &g45::TABLES,
    &gen6::TABLES,
    &gen7::TABLES,
    &gen12_5::TABLES,
];

impl Generation {
    /// The reflection tables of this generation.
    pub fn tables(self) -> &'static reflect::GenTables {
        match self {
            Generation::Gen4 => &gen4::TABLES,
            Generation::G45 => &g45::TABLES,
            Generation::Gen6 => &gen6::TABLES,
            Generation::Gen7 => &gen7::TABLES,
            Generation::Gen12_5 => &gen12_5::TABLES,
        }
    }
}

/// The reflection tables of a generation by name (`gen4`, `g45`, `gen6`,
/// `gen7`, `gen12.5`).
pub fn tables(name: &str) -> Option<&'static reflect::GenTables> {
    GENERATIONS.iter().copied().find(|t| t.name == name)
}
