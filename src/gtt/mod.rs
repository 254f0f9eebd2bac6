//! Graphics memory layout: tiled surface formats and CPU (de)tiling.

mod addr;
mod error;
pub mod fence;
pub mod gen12;
pub mod ggtt;
pub mod ppgtt;
pub(crate) mod ranges;
pub mod tile4;
pub mod tile64;
mod tiled_copy;
pub mod tiling;

pub use addr::{GfxAddr, PAGE};
pub use error::GttError;
pub use ggtt::{Caching, Ggtt, Mapping, decode_pte};
pub use ppgtt::Ppgtt;
