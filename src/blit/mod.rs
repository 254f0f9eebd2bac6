//! Blitter commands the driver builds.
//!
//! [`dg2`]: the Gen12.5 (DG2) copy engine's XY_FAST_COPY_BLT,
//! XY_BLOCK_COPY_BLT and XY_FAST_COLOR_BLT between linear, Tile4 and Tile64
//! surfaces (the layouts of `gtt::tile4` and `gtt::tile64`), as packets to
//! push into a batch for the blitter engine of a Gen12.5 `Gpu`.

#[cfg(feature = "gen12_5")]
pub mod dg2;
