//! The 3D pipeline of the render engine (Sandy Bridge and Ivy Bridge): the
//! state the 3DSTATE_* commands load, and what 3DPRIMITIVE does with it.
//!
//! Stages, each in its folder, meeting at the types of [`types`]:
//! - `front`: the state store and the draw itself (the command side,
//!   PIPE_CONTROL's depth count), vertex fetch (vertex buffers and
//!   elements, index buffers, topologies, VertexID/InstanceID), the vertex
//!   and geometry shader threads and their URB entries, primitive assembly:
//!   it hands [`types::Vue`]s and [`types::Object`]s on.
//! - `raster`: clipping and the viewport transform, setup (attribute
//!   interpolation, culling, fill modes), rasterisation by the manual's
//!   rules, and the windower's pixel-shader threads
//!   ([`types::PixelThread`], with their payloads).
//! - `om`: the output merger behind the render-target write
//!   ([`crate::eu::shared::PixelBackend`]): blending, logic ops, write
//!   masks, alpha test, depth and stencil, the render-target formats.
//!
//! The pipeline's threads run on the media unit's EU array (one array
//! serves both pipelines, as on hardware); [`crate::eu::shared::Fixed`]
//! lends them the URB and the output merger.

pub(crate) mod types;

pub(crate) mod front;
mod om;
mod raster;
