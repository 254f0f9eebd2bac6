//! The sampling engine with SAMPLER_STATE, on every generation: kernels
//! assembled from text send one sampler message each; textures, binding
//! table, SURFACE_STATE, SAMPLER_STATE and border colours sit in memory,
//! written from the manuals' bit layouts. Expected values are computed
//! here from the manuals' rules (texel centres, weights, address modes,
//! the LOD pseudocode, the mip layout), not taken from the model.
//!
//! Manual references: 000 = Gen4/G45 PRM Vol 4, 003 = Sandy Bridge PRM;
//! Gen7/7.5 layouts from Mesa (cited where used).

#[path = "eu_sampler/filter.rs"]
mod filter;
#[path = "eu_sampler/mips.rs"]
mod mips;
#[path = "eu_sampler/multisample.rs"]
mod multisample;
#[path = "eu_sampler/queries.rs"]
mod queries;
#[path = "eu_sampler/rig.rs"]
mod rig;
#[path = "eu_sampler/state.rs"]
mod state;
#[path = "eu_sampler/volume.rs"]
mod volume;
