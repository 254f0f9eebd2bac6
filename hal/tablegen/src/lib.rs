//! baregpu-tablegen: the hal's table toolchain, run on the host.
//!
//! [`load`] reads a generation's folder of TOML tables (with inheritance),
//! [`check`] verifies them (bit ranges, overlaps, values that fit, citations,
//! decodability), and [`codegen`] writes the Rust module that `baregpu-hal`
//! includes. The format is described in `hal/tables/README.md`.

pub mod check;
pub mod codegen;
pub mod device;
pub mod load;
pub mod model;

pub use load::{LoadError, load_generation};
pub use model::*;

/// The generations, in the order they are generated.
pub const GENERATIONS: [&str; 5] = ["gen4", "g45", "gen6", "gen7", "gen12.5"];
