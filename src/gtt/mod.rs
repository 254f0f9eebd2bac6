//! Graphics memory layout: tiled surface formats and CPU (de)tiling.

pub mod fence;
pub mod ggtt;
pub mod ppgtt;
mod ranges;
pub mod tiling;

pub use ggtt::{Caching, GfxAddr, Ggtt, GttError, Mapping};
pub use ppgtt::Ppgtt;
