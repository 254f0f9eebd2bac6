//! The stages after the front, as the draw calls them: the raster stage
//! (`render3d::raster`) and the output merger (`render3d::om`).

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::eu::shared::PixelBackend;
pub(super) use crate::render3d::raster::RasterStatistics;
use crate::render3d::raster::StippleCounter;
use crate::render3d::types::{DrawEnv, DrawError, Object, PixelThread, Vue};

/// The output merger for one draw.
pub(super) fn output_merger(env: &mut DrawEnv<'_>) -> Result<Box<dyn PixelBackend>, DrawError> {
    Ok(Box::new(crate::render3d::om::OutputMerger::new(env)?))
}

/// Clipping, setup, rasterisation: the pixel threads of the draw, and
/// what the raster stages add to the statistics registers.
pub(super) fn rasterize(
    env: &mut DrawEnv<'_>,
    vues: &[Vue],
    objects: &[Object],
    pixels: &mut dyn PixelBackend,
    stipple: &mut Option<StippleCounter>,
) -> Result<(Vec<PixelThread>, RasterStatistics), DrawError> {
    crate::render3d::raster::rasterize_carried(env, vues, objects, pixels, stipple)
}
